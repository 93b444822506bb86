//===- BlockSchedule.cpp - When and where block ops run -------------------===//
#include "Mirage/Semantics/BlockSchedule.h"

using namespace mirage;

BlockStage mirage::blockStage(const UGraph &block, const UOp &op) {
  switch (op.kind) {
  case OpKind::InputIterator:
    return BlockStage::Iterator;
  case OpKind::Accum:
    return BlockStage::Accumulate;
  case OpKind::RunningMax:
    // In every iteration, like an in-loop operator; its state is its own
    // results' tiles, which stay alive across the iterations.
    return BlockStage::InLoop;
  case OpKind::OutputSaver:
    return BlockStage::Save;
  case OpKind::Matmul:
  case OpKind::Unary:
  case OpKind::Binary:
  case OpKind::Reduce:
  case OpKind::RmsNorm:
  case OpKind::Concat:
  case OpKind::ThreadGraph:
  case OpKind::Custom:
    // The builders give an operator's results the phase of its operands
    // (UGraph.cpp, operandPhase): in-loop or after-loop.
    return block.values[op.results[0]].phase == Phase::InLoop
               ? BlockStage::InLoop
               : BlockStage::AfterLoop;
  }
  return BlockStage::AfterLoop;
}

BlockSchedule mirage::scheduleBlock(const UGraph &block) {
  BlockSchedule s;
  size_t numOps = block.ops.size(), numValues = block.values.size();
  s.stage.resize(numOps);
  s.matmulInto.assign(numOps, -1);
  s.computedIn.assign(numOps, -1);
  s.concatInPlace.assign(numOps, false);
  s.buffered.assign(numValues, false);
  s.beforeLoop.assign(numOps, false);
  s.sameInEveryBlock.assign(numOps, false);
  s.storage.resize(numValues);
  for (size_t v = 0; v < numValues; ++v)
    s.storage[v] = block.values[v].type;

  // Users of every value.
  std::vector<llvm::SmallVector<int32_t, 2>> users(numValues);
  for (size_t i = 0; i < numOps; ++i)
    for (int32_t v : block.ops[i].operands)
      users[v].push_back(i);

  for (size_t i = 0; i < numOps; ++i) {
    const UOp &op = block.ops[i];
    s.stage[i] = blockStage(block, op);
    bool sums = false;
    switch (op.kind) {
    case OpKind::Matmul:
    case OpKind::Reduce:
    case OpKind::Accum:
    // The max of a row of sums (scores) at the sums' precision: exp(s - cur)
    // must not see a cur rounded below the s it shifts.
    case OpKind::RunningMax:
      sums = true;
      break;
    case OpKind::InputIterator:
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::RmsNorm:
    case OpKind::Concat:
    case OpKind::ThreadGraph:
    case OpKind::OutputSaver:
    case OpKind::Custom:
      break;
    }
    for (int32_t r : op.results) {
      if (sums)
        s.storage[r] = sumType(block.values[r].type);
      s.buffered[r] = op.kind != OpKind::OutputSaver;
    }
    // A running max keeps its state in cur's tile; prev is only a result,
    // and one no op reads needs no tile (a store-only buffer, which the GPU
    // stages drop: the plan would count bytes the kernel never allocates).
    if (op.kind == OpKind::RunningMax && users[op.results[0]].empty())
      s.buffered[op.results[0]] = false;
    // Before the loop (LoopInvariantOps.md): the in-loop ops whose results
    // the builders mark loop-invariant (the rule that also lets after-loop
    // code read them, AfterLoopInvariants.md).
    s.beforeLoop[i] = block.forloopRange > 1 && runsInLoop(s.stage[i]) &&
                      s.stage[i] != BlockStage::Accumulate &&
                      !op.results.empty() &&
                      block.values[op.results[0]].loopInvariant;
    // The same in every block: the operands' producers come earlier too.
    if (op.kind == OpKind::InputIterator) {
      bool replicated = true;
      for (int a = 0; a < 3; ++a)
        replicated = replicated && (block.grid[a] == 1 || op.map[a] < 0);
      s.sameInEveryBlock[i] = replicated;
    } else if (op.kind != OpKind::OutputSaver && !op.operands.empty()) {
      bool same = true;
      for (int32_t v : op.operands) {
        int32_t d = block.values[v].def;
        same = same && d >= 0 && s.sameInEveryBlock[d];
      }
      s.sameInEveryBlock[i] = same;
    }
    if (op.kind == OpKind::Matmul && s.stage[i] == BlockStage::InLoop &&
        !s.beforeLoop[i]) {
      int32_t r = op.results[0];
      if (users[r].size() == 1) {
        const UOp &u = block.ops[users[r][0]];
        if (u.kind == OpKind::Accum && u.accumKind() == AccumKind::sum &&
            u.operands.size() == 1) {
          s.matmulInto[i] = users[r][0];
          s.buffered[r] = false;
        }
      }
    }
  }
  // Element-wise results whose only reader is a reduce in the same place,
  // or a saver (ElementsInReductions.md): computed where the reduction folds
  // them, or where the saver writes them.
  for (size_t i = 0; i < numOps; ++i) {
    const UOp &op = block.ops[i];
    bool elementwise = op.kind == OpKind::Unary || op.kind == OpKind::Binary ||
                       op.kind == OpKind::ThreadGraph;
    if (!elementwise || op.results.size() != 1)
      continue;
    int32_t r = op.results[0];
    if (users[r].size() != 1)
      continue;
    int32_t u = users[r][0];
    const UOp &reader = block.ops[u];
    bool reduce = reader.kind == OpKind::Reduce &&
                  reader.operands.size() == 1 && s.stage[u] == s.stage[i] &&
                  s.beforeLoop[u] == s.beforeLoop[i];
    // A saver writes after the loop what the op computed there.
    bool saver = reader.kind == OpKind::OutputSaver &&
                 s.stage[i] == BlockStage::AfterLoop;
    if (!reduce && !saver)
      continue;
    s.computedIn[i] = u;
    s.buffered[r] = false;
  }
  // Concats whose readers all read elements where the concat runs: read
  // in place (ElementsInReductions.md, "Concats").
  for (size_t i = 0; i < numOps; ++i) {
    const UOp &op = block.ops[i];
    if (op.kind != OpKind::Concat)
      continue;
    int32_t r = op.results[0];
    bool inPlace = !users[r].empty();
    for (int32_t u : users[r]) {
      bool elementReader = false;
      switch (block.ops[u].kind) {
      case OpKind::Unary:
      case OpKind::Binary:
      case OpKind::ThreadGraph:
      case OpKind::Reduce:
      case OpKind::RmsNorm:
      case OpKind::Concat:
      case OpKind::Accum:
      case OpKind::RunningMax:
        elementReader = true;
        break;
      case OpKind::Matmul:
      case OpKind::OutputSaver:
      case OpKind::InputIterator:
      case OpKind::Custom:
        break;
      }
      // The same place: an in-loop concat's tile may be an accumulator's
      // contribution in the same iteration too.
      bool samePlace =
          s.beforeLoop[u] == s.beforeLoop[i] &&
          (s.stage[u] == s.stage[i] ||
           (s.stage[i] == BlockStage::InLoop &&
            s.stage[u] == BlockStage::Accumulate && !s.beforeLoop[i]));
      inPlace = inPlace && elementReader && samePlace;
    }
    if (!inPlace)
      continue;
    s.concatInPlace[i] = true;
    s.buffered[r] = false;
  }
  return s;
}

int64_t mirage::timesRun(const UGraph &block, const BlockSchedule &sched,
                         size_t op) {
  return runsInLoop(sched.stage[op]) && !sched.beforeLoop[op]
             ? block.forloopRange
             : 1;
}
