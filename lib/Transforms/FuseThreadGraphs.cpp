//===- FuseThreadGraphs.cpp - Fuse element-wise block ops into thread graphs ===//
//
// Inside every `mirage_kernel.custom` body, groups connected element-wise
// block operators (`mirage_block.unary`, `mirage_block.binary` and existing
// `mirage_block.thread_graph`s) into one `mirage_block.thread_graph` whose
// body holds the scalar `mirage_thread` form. See
// docs/Rationale/ThreadGraphs.md for the grouping rule.
//
// The pass collects all groups first and rewrites afterwards:
//
//  1. phases: every op gets its stage from the one phase rule
//     (Semantics/BlockSchedule.h) on the imported block graph;
//  2. groups: a union-find over the candidate ops joins a producer and a
//     consumer when both have the same result shape and phase and the union
//     stays convex (no path leaves the group and re-enters it, which would
//     make the thread graph depend on itself);
//  3. a group whose shape is smaller than its consumers' (e.g. `exp` of a
//     16x1 tile that a 16x32 `div` broadcasts) joins the consumer group when
//     none of its values is used outside that group: its values stay
//     registers; otherwise it stays separate, since a thread graph's results
//     all have the broadcast shape of its inputs;
//  4. every group of two or more ops becomes one thread graph: inputs are the
//     external operands (deduplicated, first-use order), results the values
//     used outside the group. The block is then re-sorted topologically.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Dialect/Block/IR/BlockDialect.h"
#include "Mirage/Dialect/Block/IR/BlockUGraph.h"
#include "Mirage/Semantics/BlockSchedule.h"
#include "Mirage/Semantics/Target.h"
#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"
#include "Mirage/Dialect/Thread/IR/ThreadDialect.h"
#include "Mirage/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEFUSETHREADGRAPHS
#include "Mirage/Transforms/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {

// BeforeLoop: an in-loop op the schedule runs once, before the loop
// (LoopInvariantOps.md); grouping it with the loop's ops would run it in
// every iteration again.
enum class Ph { BeforeLoop, InLoop, AfterLoop, Saved, Mixed };

bool isCandidate(Operation *op) {
  return isa<block::UnaryOp, block::BinaryOp, block::ThreadGraphOp>(op);
}

/// The (single) result shape of a candidate; thread graphs' results all have
/// the broadcast shape of their inputs.
ArrayRef<int64_t> shapeOf(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType()).getShape();
}

struct Grouper {
  Block &body;
  SmallVector<Operation *> ops; // candidates, program order
  DenseMap<Operation *, unsigned> index;
  SmallVector<unsigned> parent;
  DenseMap<Operation *, Ph> phase;

  explicit Grouper(Block &body) : body(body) {}

  unsigned find(unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }

  /// Phases from the one rule (BlockSchedule.h), read off the imported
  /// block graph, whose ops are the body's ops in order.
  void computePhases(const UGraph &graph) {
    BlockSchedule sched = scheduleBlock(graph);
    size_t i = 0;
    for (Operation &op : body.without_terminator()) {
      Ph p = Ph::Mixed;
      if (i < graph.ops.size()) {
        switch (sched.stage[i]) {
        case BlockStage::Iterator:
        case BlockStage::InLoop:
          p = sched.beforeLoop[i] ? Ph::BeforeLoop : Ph::InLoop;
          break;
        case BlockStage::Accumulate:
        case BlockStage::AfterLoop:
          p = Ph::AfterLoop;
          break;
        case BlockStage::Save:
          p = Ph::Saved;
          break;
        }
        ++i;
      }
      phase[&op] = p;
    }
  }

  /// Members of the group rooted at `root`.
  SmallVector<Operation *> members(unsigned root) {
    SmallVector<Operation *> m;
    for (unsigned i = 0; i < ops.size(); ++i)
      if (find(i) == root)
        m.push_back(ops[i]);
    return m;
  }

  /// True when the set is convex: no op outside it is both reachable from it
  /// and able to reach it.
  bool convex(const DenseSet<Operation *> &set) {
    SmallVector<Operation *> work;
    DenseSet<Operation *> seen;
    for (Operation *op : set)
      for (Operation *u : op->getUsers())
        if (!set.contains(u) && seen.insert(u).second)
          work.push_back(u);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      for (Operation *u : op->getUsers()) {
        if (set.contains(u))
          return false;
        if (seen.insert(u).second)
          work.push_back(u);
      }
    }
    return true;
  }

  DenseSet<Operation *> unionSet(unsigned a, unsigned b) {
    DenseSet<Operation *> s;
    for (unsigned i = 0; i < ops.size(); ++i) {
      unsigned r = find(i);
      if (r == a || r == b)
        s.insert(ops[i]);
    }
    return s;
  }

  bool tryUnion(unsigned a, unsigned b) {
    a = find(a);
    b = find(b);
    if (a == b)
      return true;
    if (!convex(unionSet(a, b)))
      return false;
    parent[std::max(a, b)] = std::min(a, b);
    return true;
  }

  /// Returns the groups (each in program order) of two or more ops.
  SmallVector<SmallVector<Operation *>> run(const UGraph &graph) {
    computePhases(graph);
    for (Operation &op : body)
      if (isCandidate(&op)) {
        Ph p = phase[&op];
        if (p != Ph::BeforeLoop && p != Ph::InLoop && p != Ph::AfterLoop)
          continue;
        index[&op] = ops.size();
        ops.push_back(&op);
      }
    parent.resize(ops.size());
    for (unsigned i = 0; i < ops.size(); ++i)
      parent[i] = i;

    // Step 2: same-shape, same-phase producer/consumer edges.
    for (unsigned i = 0; i < ops.size(); ++i) {
      Operation *op = ops[i];
      for (Value v : op->getOperands()) {
        Operation *d = v.getDefiningOp();
        if (!d || !index.count(d))
          continue;
        if (shapeOf(d) != shapeOf(op) || phase[d] != phase[op])
          continue;
        tryUnion(index[d], i);
      }
    }

    // Step 3: absorb smaller-shape groups whose values are used only by one
    // other group (and themselves). Repeat until nothing changes.
    bool changed = true;
    while (changed) {
      changed = false;
      for (unsigned i = 0; i < ops.size() && !changed; ++i) {
        if (find(i) != i)
          continue;
        SmallVector<Operation *> m = members(i);
        DenseSet<Operation *> mine(m.begin(), m.end());
        std::optional<unsigned> target;
        bool ok = true;
        for (Operation *op : m) {
          for (Operation *u : op->getUsers()) {
            if (mine.contains(u))
              continue;
            auto it = index.find(u);
            if (it == index.end()) {
              ok = false;
              break;
            }
            unsigned r = find(it->second);
            if (target && *target != r) {
              ok = false;
              break;
            }
            target = r;
          }
          if (!ok)
            break;
        }
        if (!ok || !target)
          continue;
        Operation *rep = ops[*target];
        if (phase[rep] != phase[m.front()] || shapeOf(rep) == shapeOf(m.front()))
          continue;
        if (tryUnion(i, *target))
          changed = true;
      }
    }

    SmallVector<SmallVector<Operation *>> groups;
    DenseMap<unsigned, unsigned> slot;
    for (unsigned i = 0; i < ops.size(); ++i) {
      unsigned r = find(i);
      auto [it, inserted] = slot.try_emplace(r, groups.size());
      if (inserted)
        groups.emplace_back();
      groups[it->second].push_back(ops[i]);
    }
    SmallVector<SmallVector<Operation *>> result;
    for (auto &g : groups)
      if (g.size() >= 2)
        result.push_back(std::move(g));
    return result;
  }
};

/// Replaces `group` (program order, convex, one phase) by one thread graph.
void fuseGroup(IRRewriter &rewriter, ArrayRef<Operation *> group) {
  DenseSet<Operation *> inGroup(group.begin(), group.end());
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  for (Operation *op : group) {
    for (Value v : op->getOperands()) {
      Operation *d = v.getDefiningOp();
      if (!d || !inGroup.contains(d))
        inputs.insert(v);
    }
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !inGroup.contains(u); }))
        outputs.push_back(r);
  }
  Location loc = rewriter.getFusedLoc(
      llvm::map_to_vector(group, [](Operation *op) { return op->getLoc(); }));
  rewriter.setInsertionPointAfter(group.back());
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  auto tg = block::ThreadGraphOp::create(rewriter, loc, resultTypes,
                                         inputs.getArrayRef());
  Block *inner = rewriter.createBlock(&tg.getBody());
  IRMapping scalars;
  for (Value in : inputs)
    scalars.map(in, inner->addArgument(getElementTypeOrSelf(in.getType()),
                                       in.getLoc()));
  rewriter.setInsertionPointToEnd(inner);
  for (Operation *op : group) {
    if (auto u = dyn_cast<block::UnaryOp>(op)) {
      Value x = scalars.lookup(u.getInput());
      scalars.map(u.getResult(),
                  thread::UnaryOp::create(rewriter, u.getLoc(), x.getType(),
                                          u.getKindAttr(), x,
                                          u.getScalarAttr())
                      .getResult());
    } else if (auto bop = dyn_cast<block::BinaryOp>(op)) {
      Value l = scalars.lookup(bop.getLhs()), r = scalars.lookup(bop.getRhs());
      scalars.map(bop.getResult(),
                  thread::BinaryOp::create(rewriter, bop.getLoc(), l.getType(),
                                           bop.getKindAttr(), l, r)
                      .getResult());
    } else {
      auto old = cast<block::ThreadGraphOp>(op);
      Block &ob = old.getBody().front();
      IRMapping m;
      for (auto [arg, in] : llvm::zip(ob.getArguments(), old.getInputs()))
        m.map(arg, scalars.lookup(in));
      for (Operation &o : ob.without_terminator())
        rewriter.clone(o, m);
      auto y = cast<thread::YieldOp>(ob.getTerminator());
      for (auto [res, val] : llvm::zip(old.getResults(), y.getValues()))
        scalars.map(res, m.lookupOrDefault(val));
    }
  }
  SmallVector<Value> yielded;
  for (Value v : outputs)
    yielded.push_back(scalars.lookup(v));
  thread::YieldOp::create(rewriter, loc, yielded);
  for (auto [v, r] : llvm::zip(outputs, tg.getResults()))
    rewriter.replaceAllUsesWith(v, r);
  for (Operation *op : llvm::reverse(group))
    rewriter.eraseOp(op);
}

struct FuseThreadGraphsPass
    : mirage::impl::MirageFuseThreadGraphsBase<FuseThreadGraphsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<kernel::CustomOp> customs;
    getOperation()->walk([&](kernel::CustomOp c) { customs.push_back(c); });
    IRRewriter rewriter(&getContext());
    for (kernel::CustomOp c : customs) {
      Block &body = c.getBody().front();
      FailureOr<UGraph> graph = block::importBlockGraph(
          c, c.getBody(), c.getGridDims(), c.getForloopRange(),
          c.getTarget() ? *c.getTarget() : StringRef(kDefaultTarget));
      if (failed(graph))
        return signalPassFailure();
      Grouper grouper(body);
      SmallVector<SmallVector<Operation *>> groups = grouper.run(*graph);
      if (groups.empty())
        continue;
      for (auto &g : groups)
        fuseGroup(rewriter, g);
      if (!sortTopologically(&body)) {
        c.emitError("thread-graph fusion produced a cyclic block graph");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
