//===- Replay.h - Replaying a UGraph's ops into another ---------*- C++ -*-===//
#ifndef MIRAGE_SEMANTICS_REPLAY_H
#define MIRAGE_SEMANTICS_REPLAY_H

#include "Mirage/Semantics/UGraph.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace mirage {

/// Adds `op`, an op of another graph, to `dst` through `UGraph::addLike`:
/// its operands are mapped through `map` (value ids of the source graph to
/// value ids of `dst`) and its results are recorded there. `body` is the
/// nested graph of a Custom or ThreadGraph op. Returns false, adding nothing
/// to `map`, when an operand is unmapped or `dst` refuses the op.
inline bool replayOp(UGraph &dst, const UOp &op, std::vector<int32_t> &map,
                     UGraph body = UGraph()) {
  llvm::SmallVector<int32_t, 4> ins;
  for (int32_t o : op.operands) {
    if (o < 0 || map[o] < 0)
      return false;
    ins.push_back(map[o]);
  }
  int32_t r = dst.addLike(op, ins, std::move(body));
  if (r < 0)
    return false;
  for (size_t k = 0; k < op.results.size(); ++k)
    map[op.results[k]] = r + k;
  return true;
}

/// The ops of `g` a replay needs to compute the values marked in `live`:
/// walking the ops backward, an op whose index `walk` accepts is taken when one
/// of its results is live, and then its operands become live. `live` (one
/// flag per value of `g`) holds every value the taken ops read on return;
/// the result holds one flag per op. Topological order makes one backward
/// pass enough.
inline std::vector<bool> backwardCone(const UGraph &g, std::vector<bool> &live,
                                      llvm::function_ref<bool(size_t)> walk) {
  std::vector<bool> taken(g.ops.size(), false);
  for (size_t i = g.ops.size(); i-- > 0;) {
    const UOp &op = g.ops[i];
    if (!walk(i))
      continue;
    for (int32_t r : op.results)
      if (live[r]) {
        taken[i] = true;
        break;
      }
    if (taken[i])
      for (int32_t o : op.operands)
        live[o] = true;
  }
  return taken;
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_REPLAY_H
