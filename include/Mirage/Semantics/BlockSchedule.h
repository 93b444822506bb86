//===- BlockSchedule.h - When and where block ops run -----------*- C++ -*-===//
//
// The phase rule of a block graph, stated once: which ops run in every
// for-loop iteration, which after the loop, and (for the lowering) where each
// tile is stored. The evaluator runs a block by this rule;
// mirage-fuse-thread-graphs groups ops of one stage; the loop-level lowering
// emits the stages as phases.
//
//   for i in 0 .. F-1:  Iterator, InLoop and Accumulate (combine) ops,
//                       in program order
//   after the loop:     Accumulate (finish), AfterLoop and Save ops,
//                       in program order
//
// The schedule also says which in-loop ops compute the same tile in every
// iteration and so run once, before the loop (beforeLoop,
// docs/Rationale/LoopInvariantOps.md); values are the same either way.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_BLOCKSCHEDULE_H
#define MIRAGE_SEMANTICS_BLOCKSCHEDULE_H

#include "Mirage/Semantics/UGraph.h"

#include <vector>

namespace mirage {

enum class BlockStage : uint8_t {
  /// input_iterator: loads its tile in every iteration.
  Iterator,
  /// An operator over in-loop tiles: runs in every iteration.
  InLoop,
  /// An accumulator: combines in every iteration, finishes after the loop.
  Accumulate,
  /// An operator over after-loop tiles: runs once after the loop.
  AfterLoop,
  /// output_saver: writes the block's tile once, after the loop.
  Save,
};

/// The stage of block-level op `op` of `block`.
BlockStage blockStage(const UGraph &block, const UOp &op);

/// Whether the op takes part in the loop body (Iterator, InLoop, Accumulate).
inline bool runsInLoop(BlockStage s) {
  return s == BlockStage::Iterator || s == BlockStage::InLoop ||
         s == BlockStage::Accumulate;
}
/// Whether the op takes part after the loop (Accumulate, AfterLoop, Save).
inline bool runsAfterLoop(BlockStage s) {
  return s == BlockStage::Accumulate || s == BlockStage::AfterLoop ||
         s == BlockStage::Save;
}

/// The schedule the lowering follows.
struct BlockSchedule {
  /// Per op.
  std::vector<BlockStage> stage;
  /// Per op: for an in-loop matmul whose only user is an un-rescaled
  /// `accum sum`, that accumulator's op index (the product is added straight
  /// into the accumulator's state; no product tile exists); -1 otherwise.
  std::vector<int32_t> matmulInto;
  /// Per op: for an element-wise op (unary, binary, a one-result thread
  /// graph) whose result's only reader is a `reduce` that runs where it
  /// runs, or an output saver, that reader's op index: the reduction computes
  /// each element it folds (the saver each element it writes) from the op's
  /// operands, rounded to the result's storage type, and the result has no
  /// tile (docs/Rationale/ElementsInReductions.md); -1 otherwise.
  std::vector<int32_t> computedIn;
  /// Per op: whether it is a concat read in place: each of its readers
  /// reads it element by element (an element-wise op, a reduction, rms_norm,
  /// a concat, an accumulator, a running max; not a matmul, not a saver) in
  /// the same place, so it has no tile and an element of it is read from the
  /// operand that holds it (ElementsInReductions.md, "Concats").
  std::vector<bool> concatInPlace;
  /// Per value: the element type its tile is stored in. Iterator tiles keep
  /// the device dtype, element-wise results the graph's element type;
  /// everything that sums (matmul, reduce, accumulator states) is at least
  /// f32 (docs/Rationale/Lowering.md, "Storage types").
  std::vector<ElemType> storage;
  /// Per value: whether the value is a tile in (shared) memory. False for
  /// device tensors, saver results, matmul products fused into an
  /// accumulator, element-wise results computed in their reduce
  /// (computedIn), concats read in place (concatInPlace), and a running
  /// max's prev that no op reads.
  std::vector<bool> buffered;
  /// Per op: whether it runs once, before the for-loop (of more than one
  /// iteration), although its stage is in the loop: an input iterator of
  /// fmap -1, or a stateless operator (not running_max) all of whose
  /// operands are before the loop (UValue::loopInvariant, when the loop
  /// has more than one iteration). Its tile is the same in every iteration;
  /// such a matmul keeps its product tile (no matmulInto).
  std::vector<bool> beforeLoop;
  /// Per op: whether its results are the same in every block of the grid:
  /// an input iterator that replicates every grid axis of extent > 1 (imap
  /// -1), or an operator (not a saver) all of whose operands are such
  /// results. The evaluator computes these once per graph
  /// (GridInvariantOps.md); every block of the GPU kernel still computes
  /// its own.
  std::vector<bool> sameInEveryBlock;
};

BlockSchedule scheduleBlock(const UGraph &block);

/// How many times op `op` of `block` runs per block under `sched`: the
/// for-loop range for iterators, in-loop operators and accumulators (an
/// accumulator combines in every iteration) that are not before the loop,
/// once otherwise.
int64_t timesRun(const UGraph &block, const BlockSchedule &sched, size_t op);

/// The element type sums of `t` are kept in (f32, or f64 for f64).
inline ElemType sumType(ElemType t) {
  return t == ElemType::F64 ? ElemType::F64 : ElemType::F32;
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_BLOCKSCHEDULE_H
