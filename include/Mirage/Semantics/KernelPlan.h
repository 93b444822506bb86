//===- KernelPlan.h - How one block graph becomes one kernel ----*- C++ -*-===//
//
// The launch plan of a graph-defined kernel, computed once without IR and
// obeyed by every side (docs/Rationale/LaunchPlan.md): the loop-level
// lowering allocates the plan's tiles and puts on tensor cores exactly the
// matmuls the plan does; the GPU stages read its copy grouping and pipeline
// depth; the search keeps only plans that launch; the cost model prices the
// plan; the manifest records it.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_KERNELPLAN_H
#define MIRAGE_SEMANTICS_KERNELPLAN_H

#include "Mirage/Semantics/Target.h"
#include "Mirage/Semantics/UGraph.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace mirage {

/// Threads of every generated block (four warps).
constexpr int64_t kPlanThreadsPerBlock = 128;
/// For global->shared copies the loop IR does not group itself (the GPU
/// stage's fallback): a copy phase whose threads each make at most this many
/// 16-byte copies is unrolled into one cp.async commit group; beyond it
/// every copy is waited for on its own.
constexpr int64_t kMaxGroupedCopiesPerThread = 16;
/// Most threads that reduce one output together (the whole block: a row
/// alone in its block is folded by every thread, then by a tree).
constexpr int64_t kMaxReductionLanes = kPlanThreadsPerBlock;
/// The most pipeline stages (buffers of a loop-copied tile) a plan uses.
constexpr int64_t kMaxPipelineStages = 4;
/// Tensor-core K chains (MatmulPlan::slices, chains; MmaChains.md): a
/// warp's chain of dependent mma.sync is split when it has at least
/// kLongMmaChainSteps steps (twice as many for a matmul that adds into no
/// accumulator: it pays a combine phase every time it runs), into partials
/// of at least kMinPartialSteps,
/// at most kMaxChainsPerItem per warp item, with at most
/// kMaxPartialScratchBytes of f32 partial sums per matmul.
constexpr int64_t kLongMmaChainSteps = 16;
constexpr int64_t kMinPartialSteps = 4;
constexpr int64_t kMaxChainsPerItem = 4;
constexpr int64_t kMaxPartialScratchBytes = 8192;
/// FMA register micro-tiles (MatmulPlan::microRows, microCols;
/// FmaMicroTiles.md): rows and columns per thread are powers of two up to
/// kMaxMicroTile, and a thread's registers beside its r·c accumulators and
/// r + c operands are counted as kFmaTileOverheadRegisters (addresses, the
/// K counter, the guards).
constexpr int64_t kMaxMicroTile = 8;
constexpr int64_t kFmaTileOverheadRegisters = 24;
/// Alignment of each static shared buffer (cp.async and ldmatrix rows).
constexpr int64_t kStaticSharedAlign = 16;
/// Alignment of each buffer in dynamic shared memory (one swizzle period).
constexpr int64_t kDynamicSharedAlign = 128;

struct MatmulPlan {
  int32_t op = -1;          // index in the block's ops
  int32_t accumulator = -1; // the accum op it adds into (BlockSchedule), or -1
  bool tensorCores = false;
  /// Why the matmul runs on FMA; empty on tensor cores.
  std::string whyNotTensorCores;
  /// Rows of its A tile as allocated (M rounded up to the MMA's m, or to
  /// its n when transposed), and of its C tile when not transposed; 0 on
  /// FMA.
  int64_t paddedRows = 0;
  /// On tensor cores, the product computed transposed, Cᵀ = Bᵀ·Aᵀ
  /// (docs/Rationale/TransposedDecodeMma.md): B's columns are the MMA's 16
  /// rows and A's rows (M <= the MMA's n: decode tokens) its columns. Each
  /// fragment is Cᵀ's, written to the matmul's scratch (usesScratch) and
  /// combined into C's real rows, which are not padded.
  bool transposed = false;
  /// On tensor cores, the K steps split into `slices * chains` contiguous
  /// ranges, each its own chain of mma.sync (docs/Rationale/MmaChains.md):
  /// a warp item is (output fragment, slice), and its loop carries `chains`
  /// accumulators. With more than one partial, every partial goes to the
  /// matmul's scratch tile (KernelPlan::scratchOf) and a phase adds them
  /// into C in order.
  int64_t slices = 1, chains = 1;
  int64_t partials() const { return slices * chains; }
  /// On tensor cores, its output fragments of the MMA's mmaM x mmaN for
  /// `batch` products of N columns: C's (batch x paddedRows/mmaM x
  /// N/mmaN), or, transposed, Cᵀ's (N/mmaM, one tile of tokens).
  int64_t fragments(int64_t batch, int64_t n, int64_t mmaM,
                    int64_t mmaN) const {
    return transposed ? n / mmaM : batch * (paddedRows / mmaM) * (n / mmaN);
  }
  /// Whether its fragments go to a scratch tile of partial sums
  /// (KernelPlan::scratchOf) that a phase adds into C: split or transposed.
  bool usesScratch() const {
    return tensorCores && (transposed || partials() > 1);
  }
  /// On FMA, each thread's register micro-tile (FmaMicroTiles.md): rows
  /// rowGroup * microRows + i, clamped to the tile's last row (a clamped
  /// row's store is skipped), and columns colGroup + j * N / microCols.
  int64_t microRows = 1, microCols = 1;
  /// On FMA, one run's cycles (fmaCycles of the micro-tile): `pipe`, what
  /// the block occupies of its SM's busier pipe, which resident blocks
  /// share; `issue`, the floor of a block alone, its warps issuing their
  /// FMAs one a cycle on their schedulers.
  double fmaPipeCycles = 0, fmaIssueCycles = 0;
};

/// A row reduction (reduce, rms_norm, a last-dim accumulator's combine) run
/// by `lanes` threads per output: each lane folds the chunks congruent to it
/// into a scratch tile [outputs, lanes] (f32), then one thread per output
/// folds the lanes in order (ElementwisePhases.cpp, AccumPhases.cpp).
struct ReductionPlan {
  int32_t op = -1;
  int64_t outputs = 0;   // reduced results (rows)
  int64_t chunks = 0;    // elements folded into each
  int64_t lanes = 1;     // threads per output (a power of two, <= 32)
};

/// A block value held in shared memory, or a reduction's scratch tile.
struct TilePlan {
  int32_t value = -1;        // -1 for a scratch tile
  /// The op whose scratch it is: a reduction's lanes, or a tensor-core
  /// matmul's partial sums (MatmulPlan::partials).
  int32_t scratchFor = -1;
  /// As allocated: rows padded for tensor cores, the last two dims
  /// swapped for a tile stored transposed.
  Shape shape;
  /// Stored with its last two dims swapped (OperandLayouts.md): an input
  /// iterator's tile of a tensor stored so.
  bool transposed = false;
  /// Elements per allocated row (>= shape.back()): a tile ldmatrix reads
  /// whose rows are a multiple of 128 bytes gets 16 bytes more, so that
  /// consecutive rows start in different banks (tileRowPitch;
  /// docs/Rationale/SharedTilePitch.md). 0 only before planning.
  int64_t pitch = 0;
  ElemType storage = ElemType::F32;
  int64_t bytes = 0;         // one buffer, unaligned, with the pitch
  int64_t buffers = 1;       // pipeline buffers
};

/// How an input iterator's tile is copied in.
struct CopyPlan {
  int32_t op = -1;
  bool inLoop = false;       // fetched every iteration (fmap >= 0)
  int64_t bytes = 0;         // per fetch
  int64_t vectorBytes = 0;   // bytes per copy (16 for cp.async, else the element)
  int64_t copiesPerThread = 0;
  /// A 16-byte cp.async in its stage's one commit group (all the tiles a
  /// stage loads: the loop-invariant ones, or an iteration's); false: a
  /// synchronous copy of narrower elements, a round trip per copy.
  bool grouped = false;
  /// Copied `stages - 1` iterations ahead (KernelPlan::stages).
  bool prefetched = false;
  /// Round trips to memory of its own per fetch (0 when grouped: the
  /// stage's group takes one for all its tiles).
  int64_t roundTrips = 0;
};

struct KernelPlan {
  int64_t threads = kPlanThreadsPerBlock;
  int64_t warps = kPlanThreadsPerBlock / 32;
  std::vector<MatmulPlan> matmuls;
  std::vector<TilePlan> tiles;
  std::vector<CopyPlan> copies;
  std::vector<ReductionPlan> reductions;
  /// Pipeline stages of the for-loop's copies (1: none).
  /// Buffers of every loop-copied tile: iteration i + stages - 1's tiles
  /// are copied while iteration i computes (one cp.async group per
  /// iteration, `cp.async.wait_group stages - 1`). 1: no pipeline (a single
  /// iteration, or not even two buffers fit).
  int64_t stages = 1;
  /// Bytes the block loads: per for-loop iteration, and once (loop-invariant
  /// tiles, hoisted before the loop; every tile when there is no loop).
  int64_t loopLoadBytes = 0, onceLoadBytes = 0;
  /// Memory round trips of those loads (waits the block sits through).
  int64_t loopRoundTrips = 0, onceRoundTrips = 0;
  /// Bytes the savers store.
  int64_t storeBytes = 0;
  /// Per op of the block: how many times it runs per block (the
  /// schedule's timesRun: the for-loop's range in the loop, once before or
  /// after it), which the plan's serial steps and the cost model's FLOPs
  /// count.
  std::vector<int64_t> timesRun;
  /// Longest chain of dependent steps one thread runs in a serial reduction
  /// (rms_norm, reduce, a last-dim accumulator: one thread per row).
  int64_t serialSteps = 0;
  /// Shared memory as the lowering allocates it, and whether it is dynamic
  /// (then `sharedBytes` includes the target's dynamic reserve).
  int64_t sharedBytes = 0;
  bool dynamicShared = false;
  /// Blocks one SM holds at once (shared memory, threads, the block cap).
  int64_t residentBlocksPerSM = 0;
  /// The occupancy the kernel promises ptxas (`.minnctapersm`), and the
  /// register budget per thread that follows from it: the resident blocks,
  /// but never so many that a thread gets fewer than
  /// kMinRegistersPerThread registers (docs/Rationale/LaunchPlan.md,
  /// "Registers"). A block that holds an SM alone may use up to the
  /// target's per-thread limit.
  int64_t minBlocksPerSM = 1;
  int64_t registersPerThread = 0;
  /// Bytes one block keeps in flight on average: bytes per round trip
  /// (times stages - 1 when pipelined).
  double bytesInFlightPerBlock = 0;
  /// Whether it can launch on the target; if not, which limit it breaks.
  bool launchable = true;
  std::string whyNotLaunchable;

  int64_t tensorCoreMatmuls() const;
  /// The copy plan of input iterator op `op`, or null.
  const CopyPlan *copyOf(int32_t op) const;
  const MatmulPlan *matmulOf(int32_t op) const;
  const ReductionPlan *reductionOf(int32_t op) const;
  /// The scratch tile of reduction op `op` (null: one lane per output) or
  /// of matmul op `op` (null: one partial).
  const TilePlan *scratchOf(int32_t op) const;
};

struct PlanOptions {
  /// Offer tensor cores to f16/bf16 matmuls.
  bool tensorCores = true;
  /// Threads per block; 0: the plan's choice, kPlanThreadsPerBlock unless
  /// that leaves one block of four warps on an SM, then twice as many
  /// (kWideBlockThreads; docs/Rationale/WideBlocks.md).
  int64_t threads = 0;
};

/// The threads of a block that is alone on its SM (PlanOptions::threads).
constexpr int64_t kWideBlockThreads = 2 * kPlanThreadsPerBlock;

/// The plan of block graph `block` (the body of a graph-defined kernel).
KernelPlan planKernel(const UGraph &block, const TargetInfo &target,
                      const PlanOptions &options = {});

/// The elements per allocated row of a tile of `cols` elements of
/// `storage` per row (TilePlan::pitch): 16 bytes more when ldmatrix reads it
/// (`ldmatrixOperand`) and its rows are a multiple of 128 bytes, else cols.
int64_t tileRowPitch(int64_t cols, ElemType storage, bool ldmatrixOperand);

/// The shared memory a kernel with buffers of `bufferBytes` allocates on
/// `target`: 16-byte aligned static buffers when they fit the static limit,
/// else 128-byte aligned views of dynamic shared memory after the reserve.
/// `dynamic` says which. The lowering's placement follows the same rule.
int64_t sharedLayoutBytes(llvm::ArrayRef<int64_t> bufferBytes,
                          const TargetInfo &target, bool &dynamic);

/// The load bandwidth one SM sustains when `resident` blocks each keep
/// `inFlightPerBlock` bytes outstanding (Little's law), at most `cap`:
/// pipelined, the bytes stay in flight for a DRAM latency; unpipelined, a
/// block's round trip is the latency plus its transfer at `cap`, with
/// nothing in flight while it computes. The plan's stage choice and the cost
/// model both use it.
double sustainedSMBandwidth(double inFlightPerBlock, double resident,
                            bool pipelined, double cap,
                            const TargetInfo &target);

/// The fewest registers per thread a plan budgets: ptxas's own default for
/// 128-thread blocks, which the tensor-core fragments of a 16-row tile and
/// their addresses fit.
constexpr int64_t kMinRegistersPerThread = 64;

/// The cycles of a block of `threads` threads computing `batch` products
/// of M x K by K x N as register micro-tiles of r x c (FmaMicroTiles.md).
/// Per K step and round of items, each of its w warps issues r·c FMAs and
/// r + c shared wavefronts (A's loads are broadcasts, B's scalar loads of
/// consecutive columns one wavefront each). `pipe`: the SM's busier pipe
/// for them, w·r·c FMAs at fmaLanesPerSM / 32 warps' a cycle or w·(r + c)
/// wavefronts at one a cycle; resident blocks share it. `issue`: a block
/// alone, its warps spread over the schedulers, each issuing one FMA a
/// cycle: r·c per warp a scheduler holds.
struct FmaCycles {
  double pipe = 0, issue = 0;
};
FmaCycles fmaCycles(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t r,
                    int64_t c, int64_t threads, const TargetInfo &target);

/// Blocks one SM holds at once with `sharedBytes` and `threads` per block.
int64_t residentBlocksPerSM(int64_t sharedBytes, int64_t threads,
                            const TargetInfo &target);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_KERNELPLAN_H
