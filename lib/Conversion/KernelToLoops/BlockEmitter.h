//===- BlockEmitter.h - Shared state of the block-graph lowering -*- C++ -*-===//
//
// Internal to KernelToLoops. One BlockEmitter lowers one block graph (the
// body of a graph-defined kernel) into the body of the grid `scf.forall`.
// The files of this directory each emit one kind of phase:
//
//   CopyPhases.cpp        input iterators and output savers (global <-> tile)
//   ElementwisePhases.cpp unary, binary, thread graphs, reduce, rms_norm, concat
//   MatmulPhases.cpp      block matmuls (warp contracts or per-thread FMA)
//   AccumPhases.cpp       accumulator start, combine and finish
//   RunningMaxPhase.cpp   running_max's update in every iteration
//   KernelEmitter.cpp     the kernel function and the driver over the stages
//   KernelToLoops.cpp     the pass: graphs, host functions, the nested module
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_BLOCKEMITTER_H
#define MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_BLOCKEMITTER_H

#include "Mirage/Conversion/KernelToLoops.h"
#include "Mirage/Dialect/Block/IR/BlockUGraph.h"
#include "Mirage/Semantics/BlockSchedule.h"
#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/UGraph.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <array>

namespace mirage::loops {

constexpr int64_t kWarpSize = 32;
/// Most items per warp a warp phase emits unrolled (warpPhase).
constexpr int64_t kMaxUnrolledWarpItems = 4;

/// A tensor-core operand tile, collapsed to 2-D as it lies in shared
/// memory: `swapped` when it is stored transposed (OperandLayouts.md). Its
/// batch entries' logical `rows` x `cols` matrices are stacked; swapped,
/// logical element (b·rows + r, c) lies at (b·cols + c, r) of `mem`.
struct MmaOperand {
  mlir::Value mem;
  bool swapped = false;
  int64_t rows = 0, cols = 0;
};

struct BlockEmitter {
  mlir::OpBuilder &b;
  mlir::Location loc;
  const UGraph &g;
  const BlockSchedule &sched;
  /// The launch plan: tile shapes, tensor cores or FMA per matmul.
  const KernelPlan &plan;
  /// Block ids x, y, z (the grid forall's induction variables).
  std::array<mlir::Value, 3> blockIds;
  /// The for-loop's induction variable while emitting the loop body.
  mlir::Value iter;
  /// Per value id: its memref (a workgroup tile, or the device tensor of a
  /// block input / saver result); null when it has none.
  llvm::SmallVector<mlir::Value> mem;
  /// Per value stored transposed (OperandLayouts.md): its memref as it
  /// lies; `mem` holds the logical view of it.
  llvm::DenseMap<int32_t, mlir::Value> stored;
  /// The first error; emission stops at it.
  std::string error;
  /// Per reduction op with several lanes per output: its scratch tile.
  llvm::DenseMap<int32_t, mlir::Value> scratch;
  /// A pipelined copy's group: its copies carry it (kPrefetchStagesAttr,
  /// kPrefetchGroupAttr, kPrefetchWaitAttr) for the GPU stage that turns
  /// them into one cp.async group per iteration.
  struct PrefetchGroup {
    int64_t stages, group;
    /// Groups left pending when this one is committed, if not the
    /// pipeline's rule.
    std::optional<int64_t> wait;
  };
  /// While emitting a grouped copy: its group.
  std::optional<PrefetchGroup> prefetch;

  BlockEmitter(mlir::OpBuilder &b, mlir::Location loc, const UGraph &g,
               const BlockSchedule &sched, const KernelPlan &plan)
      : b(b), loc(loc), g(g), sched(sched), plan(plan),
        mem(g.values.size()) {}

  // Stages (one call per op, in program order).
  bool emitIterator(const UOp &op);
  /// emitIterator with its copies in cp.async group `group` of a pipeline
  /// of `stages` (kPrefetchStagesAttr), committed with a wait for all but
  /// `wait` groups if given (kPrefetchWaitAttr).
  bool emitGroupedIterator(const UOp &op, int64_t stages, int64_t group,
                           std::optional<int64_t> wait = std::nullopt);
  bool emitSaver(const UOp &op);
  /// A saver of an element-wise result computed where it is written
  /// (BlockSchedule::computedIn): one phase computing and storing it, at
  /// the device tensor's offsets `dstOff` (in the element index, the block
  /// ids and the iteration, as copy phases take them).
  bool emitComputedSaver(const UOp &op,
                         llvm::ArrayRef<mlir::AffineExpr> dstOff);
  bool emitElementwise(const UOp &op);
  bool emitReduce(const UOp &op);
  bool emitRmsNorm(const UOp &op);
  bool emitConcat(const UOp &op);
  /// Block matmul `op` (on tensor cores exactly when the plan says so).
  bool emitMatmul(const UOp &op, int32_t intoAccum);
  /// The FMA form of `op`: each thread a register micro-tile of the plan's
  /// shape (FmaMicroTiles.md; one output per thread without a plan).
  void emitFmaMatmul(const UOp &op, const MatmulPlan *mp, int32_t intoAccum);
  /// The tensor-core form of `op` split into the plan's partials
  /// (MmaChains.md), on the 2-D views A and B of its operands. Into an
  /// accumulator, the partials persist across the for-loop and are added
  /// when it finishes (emitAccumStart zeroes them, emitAccumFinish adds
  /// them); else they are added into C right after.
  void emitSplitMma(const UOp &op, const MatmulPlan &mp, const MmaOperand &A,
                    const MmaOperand &B, int64_t batch, int64_t k, int64_t n);
  /// Tile `v` as a tensor-core operand: 2-D, as it lies.
  MmaOperand mmaOperand(int32_t v);
  /// C (+)= the partial sums of split matmul `op`, in order, by one thread
  /// per element of C's real rows.
  void addPartials(const UOp &op, const MatmulPlan &mp);
  bool emitAccumStart(const UOp &op);
  bool emitAccumCombine(const UOp &op);
  bool emitAccumFinish(const UOp &op);
  /// One iteration of running_max `op` (RunningMaxRule.h).
  bool emitRunningMax(const UOp &op);

  // Helpers shared by the phases.
  mlir::MLIRContext *ctx() { return b.getContext(); }
  /// The type arithmetic runs in: f32 (f64 for f64 graphs).
  mlir::FloatType computeType() const;
  mlir::Value index(mlir::OpBuilder &ob, int64_t v);
  /// `affine.apply` of `expr` over dims `operands`.
  mlir::Value apply(mlir::OpBuilder &ob, mlir::AffineExpr expr,
                    mlir::ValueRange operands);
  /// A phase over the plan's threads T: `scf.forall (%t) in (T)`
  /// (#gpu.thread<x>) whose body loops over linear element indices e = t,
  /// t + T, ... < n and calls `body(builder, e)`. Returns the forall.
  mlir::scf::ForallOp
  threadPhase(int64_t n,
              llvm::function_ref<void(mlir::OpBuilder &, mlir::Value)> body);
  /// A warp phase's work item, the warp, and unrolled the constant offset
  /// with item = warp + offset (-1 in the loop form), from which a caller
  /// can state indices the warp alone moves (emitMatmul). `inChunk` is the
  /// item's distance from the first item given with it (j·W for the j-th;
  /// the offset when unrolled).
  struct WarpItem {
    mlir::Value item, warp;
    int64_t offset = -1;
    int64_t inChunk = 0;
  };
  /// A phase over the plan's warps W: `scf.forall (%w) in (W)`
  /// (#gpu.warp<linear_dim_0>) whose body loops over work items i = w,
  /// w + W, ... < n; when W divides n into at most
  /// kMaxUnrolledWarpItems items per warp, the body is emitted once per
  /// item instead, without a loop, so that an item's accumulator
  /// fragments have indices of the warp alone and the GPU stage carries
  /// them in registers across the for-loop (MapToGPU.cpp).
  void
  warpPhase(int64_t n,
            llvm::function_ref<void(mlir::OpBuilder &, const WarpItem &)> body);
  /// warpPhase with a warp's items given to `body` together, so that they
  /// can share one loop (emitMatmul: MmaChains.md, "A warp's fragments in
  /// one K loop"): all of them when unrolled; in the loop form, chunks of
  /// G consecutive items of the warp (i, i + W, ..., i + (G-1)·W), G the
  /// largest divisor of n / W up to `maxChunk` (1: one item at a time).
  void warpGroupPhase(
      int64_t n,
      llvm::function_ref<void(mlir::OpBuilder &, llvm::ArrayRef<WarpItem>)>
          body,
      int64_t maxChunk = kMaxUnrolledWarpItems);
  /// Row reduction `op` as its plan says (ReductionPlan): `outputs` results,
  /// each the fold with `combine` of the chunks c = 0..chunks-1, started
  /// from chunk 0; `finish(out, folded)` stores it. `elem(out, c, w)` gives
  /// chunks c .. c+w-1 of output `out` (the linear output index), w the
  /// `width` (1, or reductionWidth's where consecutive chunks are
  /// consecutive elements). With one lane, one thread per output folds in
  /// chunk order; with L lanes, lane l folds the vectors of `width` chunks
  /// l, l+L, ... into the op's scratch tile and one thread per output folds
  /// the lanes in order.
  void rowReduction(
      const UOp &op, int64_t width,
      llvm::function_ref<llvm::SmallVector<mlir::Value>(
          mlir::OpBuilder &, mlir::Value out, mlir::Value chunk, int64_t width)>
          elem,
      llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value,
                                     mlir::Value)>
          combine,
      llvm::function_ref<void(mlir::OpBuilder &, mlir::Value out,
                              mlir::Value folded)>
          finish);
  /// The index of `op` in the block's ops.
  int32_t opIndex(const UOp &op) const {
    return static_cast<int32_t>(&op - g.ops.data());
  }
  /// Buffer `slot` of a pipelined tile's allocation (leading stage dim),
  /// as its logical tile of `cols` columns (its rows may be padded,
  /// TilePlan::pitch).
  /// Makes `m`, the memref of value `v` as it lies, `v`'s memory: for a
  /// value stored transposed, `mem` gets its logical view (the last two
  /// dims swapped back) and `stored` keeps `m`.
  void bind(mlir::OpBuilder &ob, int32_t v, mlir::Value m);
  mlir::Value stageView(mlir::OpBuilder &ob, mlir::Value buffers,
                        mlir::Value slot, int64_t cols);
  /// The multi-index of linear index `e` in row-major `shape`.
  llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &ob,
                                             mlir::Value e,
                                             llvm::ArrayRef<int64_t> shape);
  /// The elements a step of an element phase over `shape` covers: V
  /// consecutive elements of the last dim, V the widest of 4, 2 that every
  /// value of `values` whose last dim is whole allows (aligned rows, at
  /// most 16 bytes) and that leaves every thread a step; else 1
  /// (docs/Rationale/VectorElementPhases.md).
  int64_t vectorWidth(llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<int32_t> values);
  /// The chunks a lane of row reduction `op` over value `x` reads per step
  /// (rowReduction's `width`): 4 or 2 when they divide each lane's chunks
  /// and x's tile rows keep such a vector aligned, else 1. Only for a
  /// reduction whose consecutive chunks are consecutive elements of x's
  /// last dim, from the row's start.
  int64_t reductionWidth(const UOp &op, int32_t x);
  /// threadPhase over the steps of `width` elements of `shape`: `body`
  /// gets the multi-index of a step's first element.
  void vectorPhase(
      llvm::ArrayRef<int64_t> shape, int64_t width,
      llvm::function_ref<void(mlir::OpBuilder &, llvm::ArrayRef<mlir::Value>)>
          body);
  /// The `width` elements of value `v` from `idx` (consecutive in the last
  /// dim), read with broadcasting (one `vector.load`, or one scalar for a
  /// last dim of 1), converted to the compute type. A value computed in its
  /// reduce (BlockSchedule::computedIn) is computed from its op's operands
  /// instead, rounded to its storage type; a concat read in place is read
  /// from the operand holding the element (ElementsInReductions.md).
  llvm::SmallVector<mlir::Value> loadLanes(mlir::OpBuilder &ob, int32_t v,
                                           llvm::ArrayRef<mlir::Value> idx,
                                           int64_t width);
  /// The `width` elements from `idx` of concat `op` read in place
  /// (BlockSchedule::concatInPlace): of its operand that holds them.
  llvm::SmallVector<mlir::Value> concatLanes(mlir::OpBuilder &ob, const UOp &op,
                                             llvm::ArrayRef<mlir::Value> idx,
                                             int64_t width);
  /// Stores `xs` (compute type) into value `v`'s tile from `idx`, one
  /// `vector.store` for more than one.
  void storeLanes(mlir::OpBuilder &ob, llvm::ArrayRef<mlir::Value> xs,
                  int32_t v, llvm::ArrayRef<mlir::Value> idx);
  /// Loads element `idx` (an index into a tensor of shape `outShape`) of
  /// value `v`, read with broadcasting, converted to the compute type.
  mlir::Value load(mlir::OpBuilder &ob, int32_t v,
                   llvm::ArrayRef<mlir::Value> idx);
  /// Stores `x` (compute type) into value `v`'s tile at `idx`.
  void store(mlir::OpBuilder &ob, mlir::Value x, int32_t v,
             llvm::ArrayRef<mlir::Value> idx);
  /// Converts float `x` to float type `t`.
  mlir::Value convert(mlir::OpBuilder &ob, mlir::Value x, mlir::Type t);
  mlir::Value constF(mlir::OpBuilder &ob, double v);
  /// How element code computes exp (docs/Rationale/HalfPrecisionExp.md):
  /// math.exp, or math.exp2(x · log2 e) in a phase whose results are all
  /// stored in 16-bit floats.
  enum class ExpForm { Exact, Exp2 };
  /// The exp form of a phase that stores `results`.
  ExpForm expFormFor(llvm::ArrayRef<int32_t> results);
  /// The results of element-wise op `op` (unary, binary, thread graph) at
  /// `width` lanes from its operands' lanes `ins`, in the compute type:
  /// one vector of lanes per result.
  llvm::SmallVector<llvm::SmallVector<mlir::Value>>
  elementwiseLanes(mlir::OpBuilder &ob, const UOp &op,
                   llvm::ArrayRef<llvm::SmallVector<mlir::Value>> ins,
                   int64_t width, ExpForm exp);
  /// The op whose result `v` its readers compute or read in place (an
  /// element-wise op computed in its reduce, BlockSchedule::computedIn; a
  /// concat read in place, concatInPlace), or null for a value with a tile.
  const UOp *readInPlace(int32_t v) const;
  /// Whether vectors of `width` elements of value `v` are one access each:
  /// a tile's aligned rows; for a value read in place, the same of the
  /// operands its vectors come from (for a concat along the last dim, one
  /// operand per vector).
  bool lanesFit(int32_t v, int64_t width);
  /// Scalar code of the μGraph's element-wise operators, in compute type.
  mlir::Value unary(mlir::OpBuilder &ob, UnaryKind k, mlir::Value x,
                    double scalar, ExpForm exp = ExpForm::Exact);
  mlir::Value binary(mlir::OpBuilder &ob, BinaryKind k, mlir::Value x,
                     mlir::Value y);
  bool fail(const UOp &op, const std::string &why);
};

} // namespace mirage::loops

#endif // MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_BLOCKEMITTER_H
