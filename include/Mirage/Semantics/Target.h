//===- Target.h - The GPU a μGraph is built for -----------------*- C++ -*-===//
//
// One record per target, read by every layer: the verifiers' and the
// search's launch limits, the launch plan (KernelPlan.h), the cost model's
// figures and the code generator's chip. `h100` is sm_90 everywhere; a
// pipeline cannot pair a cost target with another chip
// (docs/Rationale/LaunchPlan.md). Triton's TargetInfo and IREE's
// getCudaTargetInfo play the same role there.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_TARGET_H
#define MIRAGE_SEMANTICS_TARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mirage {

/// The warp-level MMA instruction the lowering emits for f16/bf16 matmuls.
struct MmaInstruction {
  llvm::StringRef name;        // mma.sync.aligned.m16n8k16
  int64_t m, n, k;             // native tile
  llvm::StringRef operandTypes; // "f16,bf16": both operands stored so
  llvm::StringRef accumulatorType; // "f32": the C tile stored so
  double flopsPerSecond;       // dense peak of *this* instruction
};

struct TargetInfo {
  llvm::StringRef name;          // h100, a100
  llvm::StringRef chip;          // sm_90, sm_80: the code generator's target
  llvm::StringRef ptxFeatures;   // +ptx80 (valid for every chip here)
  int64_t numSMs;
  // Shared memory.
  int64_t smemBytesPerBlock;     // opt-in limit, static + dynamic, per block
  int64_t smemBytesPerSM;
  int64_t maxStaticSmemBytes;    // above it a kernel needs dynamic smem
  int64_t smemReservePerBlock;   // CUDA's per-resident-block reserve
  int64_t dynamicSmemReserve;    // bytes the lowering leaves unused at the
                                 // start of dynamic smem (gpu-lowering 7.3)
  // Threads and registers.
  int64_t warpSize;
  int64_t maxThreadsPerBlock;
  int64_t maxThreadsPerSM;
  int64_t maxBlocksPerSM;
  int64_t registersPerSM;
  int64_t maxRegistersPerThread;
  // Instructions.
  MmaInstruction mma;
  int64_t asyncCopyBytes;        // cp.async.cg moves this many bytes
  double fp32FlopsPerSecond;     // CUDA-core FMA peak
  /// FP32 lanes per SM: warps' FMAs issued per cycle times 32
  /// (FmaMicroTiles.md prices a CUDA-core matmul by issue slots).
  int64_t fmaLanesPerSM;
  /// One SM's shared-memory bandwidth: bytes per cycle, one wavefront.
  int64_t sharedBytesPerCycle;
  // Memory system.
  double dramBytesPerSecond;
  double l2BytesPerSecond;
  double l2Bytes;                // capacity
  double smBytesPerSecond;       // one SM's L2 <-> SM bandwidth
  double clockHz;                // SM clock (boost)
  double serialStepCycles;       // one step of a reduction's fold (a dependent
                                 // add, its shared load issued ahead)
  double dramLatencySeconds;     // a load's round trip (Little's law)
  /// The fraction of the SMs that must be busy for DRAM's bandwidth to be
  /// reached: one SM pulls at most dramBytesPerSecond / (this · numSMs)
  /// from DRAM (CostModel.md, "An SM's share of DRAM"; a modelling choice
  /// to calibrate on a GPU).
  double dramBusyFraction;
  // Achievable fractions of the peaks and fixed costs (cost model).
  double memoryEfficiency;
  double computeEfficiency;
  double launchSeconds;          // per kernel launch and tail
  /// Blocks assumed for a pre-defined (library) element-wise or reduction
  /// kernel: one per this many elements of its largest tensor.
  int64_t libraryElemsPerBlock;
  /// The same part with its architecture-specific features on (sm_90a), a
  /// chip the code generator also accepts; empty where there is none.
  llvm::StringRef archSpecificChip;
  /// Grid dependency control (`griddepcontrol`, sm_90 and above): a graph's
  /// kernels are chained by programmatic dependent launch (Lowering.md,
  /// "Programmatic dependent launch").
  bool gridDependencyControl;
  /// A load's round trip when its line is in L2 (kernel-roofline.md:
  /// 200-300 ns): what a tail combine's reads of just-written partials
  /// wait (TailCombine.md).
  double l2LatencySeconds;
  /// What the launch of a kernel after a graph's first adds, launched as a
  /// programmatic dependent of the one before (gridDependencyControl): its
  /// launch overlaps that kernel's run. launchSeconds where there is no
  /// dependent launch.
  double chainedLaunchSeconds;

  /// Whether a grid of `blocks` fills the machine (kernel-roofline.md,
  /// target 2): a block on every SM, and at most kMaxFillIdle of the
  /// SM-time idle when the busiest SM runs ⌈blocks / numSMs⌉ of them (the
  /// cost model's fill, CostModel.md). Counted in blocks, not in waves of
  /// resident blocks: blocks resident together share their SM's bandwidth,
  /// so a memory-bound grid ends with its SMs that hold the most blocks,
  /// one wave or not (140 blocks two to an SM: one wave, 47 % idle).
  bool fillsMachine(int64_t blocks) const;
  static constexpr double kMaxFillIdle = 0.10;

  /// The most one SM pulls from DRAM, however much it keeps in flight.
  double smDramBytesPerSecond() const {
    return dramBytesPerSecond / (dramBusyFraction * static_cast<double>(numSMs));
  }
};

/// The default target when an op or pass names none.
constexpr llvm::StringLiteral kDefaultTarget = "h100";

/// Looks a target up by name ("h100", "a100"); std::nullopt if unknown.
std::optional<TargetInfo> lookupTarget(llvm::StringRef name);

/// The target whose chip is `chip` ("sm_90" or "sm_90a" -> h100);
/// std::nullopt for every other chip, which the code generator refuses
/// before lowering (LLVM aborts on some of them).
std::optional<TargetInfo> lookupTargetByChip(llvm::StringRef chip);

/// The chips lookupTargetByChip accepts, for diagnostics: "sm_80, sm_90,
/// sm_90a".
std::string supportedChips();

/// The one diagnostic for a chip lookupTargetByChip refuses:
/// "unsupported chip 'sm_75' (supported: sm_80, sm_90, sm_90a)".
std::string unsupportedChipMessage(llvm::StringRef chip);

/// Bytes per element of a μGraph element type (f16/bf16 2, f32 4, f64 8).
int64_t bytesPerElement(unsigned bitWidth);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_TARGET_H
