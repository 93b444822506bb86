//===- GraphGrouping.cpp - Convex groups of importable ops -> graphs ------===//
//
// Per block: every op gets its recipe (or none); importable ops are visited
// in block order and join the union of their producers' groups when that
// keeps the block acyclic after contracting every group (else one producer
// group, else a new group). Each group then becomes one `mirage_kernel.graph`
// placed after its last member. A group that fails (misfit shape, graph that
// does not verify, side-effecting op in the way) disables its culprit and the
// block is analysed again; nothing is half-rewritten. Layout changes
// (unit-dim reshapes, transposes) join a group only after a member; the
// body is built through a LayoutBuilder (Layout.cpp), which pushes the
// layouts recipes ask for up to views of the graph's operands.
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <vector>

using namespace mlir;
using namespace mirage;
using namespace mirage::import;
namespace mk = mirage::kernel;

namespace {

struct BlockImporter {
  Block &block;
  /// Ops that must not be imported (a previous attempt failed), with reason.
  DenseMap<Operation *, std::string> &disabled;
  SmallVectorImpl<mk::GraphOp> &created;

  BlockImporter(Block &block, DenseMap<Operation *, std::string> &disabled,
                SmallVectorImpl<mk::GraphOp> &created)
      : block(block), disabled(disabled), created(created) {}

  std::vector<Operation *> ops;
  DenseMap<Operation *, int> index;
  std::vector<std::optional<Recipe>> recipes;
  std::vector<SmallVector<int, 4>> deps; // producers relevant for grouping
  std::vector<int> parent;               // union-find over op indices
  std::vector<int> member;               // group root or -1
  /// The graph result that replaced each member result of a graph built in
  /// this attempt. Recipes were analysed before any graph existed, so a
  /// later group's recipe still names the replaced value; it must read the
  /// graph result instead. (Reading the replaced value kept the member op
  /// alive, and a member may read an op that placement moved after the
  /// graph: `tensor.expand_shape` of a `linalg.reduce` that stays.)
  DenseMap<Value, Value> replacedBy;

  Value current(Value v) const {
    for (auto it = replacedBy.find(v); it != replacedBy.end();
         it = replacedBy.find(v))
      v = it->second;
    return v;
  }

  int find(int i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }

  void collectProducers(Operation *op, SmallVectorImpl<int> &out) {
    auto add = [&](Value v) {
      if (Operation *d = v.getDefiningOp())
        if (Operation *a = block.findAncestorOpInBlock(*d))
          if (auto it = index.find(a); it != index.end() && a != op)
            out.push_back(it->second);
    };
    for (Value v : op->getOperands())
      add(v);
    op->walk([&](Operation *nested) {
      if (nested != op)
        for (Value v : nested->getOperands())
          add(v);
    });
  }

  /// Would the group made of the groups `roots` plus op `x` be non-convex or
  /// close a cycle among groups?
  bool createsCycle(const llvm::SmallDenseSet<int> &roots, int x) {
    auto inM = [&](int n) {
      return n == x || (member[n] >= 0 && roots.contains(find(member[n])));
    };
    SmallVector<int> stack;
    DenseSet<int> seen, seenGroups;
    for (int n = 0; n < (int)ops.size(); ++n)
      if (inM(n))
        for (int p : deps[n])
          if (!inM(p))
            stack.push_back(p);
    while (!stack.empty()) {
      int n = stack.pop_back_val();
      if (!seen.insert(n).second)
        continue;
      if (inM(n))
        return true;
      if (member[n] >= 0) {
        int g = find(member[n]);
        if (seenGroups.insert(g).second)
          for (int m = 0; m < (int)ops.size(); ++m)
            if (member[m] >= 0 && find(member[m]) == g)
              for (int p : deps[m])
                stack.push_back(p);
      } else {
        for (int p : deps[n])
          stack.push_back(p);
      }
    }
    return false;
  }

  void analyze() {
    for (Operation &op : block)
      if (!op.hasTrait<OpTrait::IsTerminator>()) {
        index[&op] = ops.size();
        ops.push_back(&op);
      }
    recipes.resize(ops.size());
    deps.resize(ops.size());
    parent.resize(ops.size());
    member.assign(ops.size(), -1);
    for (int i = 0; i < (int)ops.size(); ++i) {
      parent[i] = i;
      if (!disabled.count(ops[i])) {
        Analysis a = analyzeOp(ops[i]);
        recipes[i] = std::move(a.recipe);
      }
      if (recipes[i]) {
        for (Value v : recipes[i]->inputs)
          if (Operation *d = v.getDefiningOp())
            if (Operation *anc = block.findAncestorOpInBlock(*d))
              if (auto it = index.find(anc); it != index.end())
                deps[i].push_back(it->second);
      } else {
        collectProducers(ops[i], deps[i]);
      }
    }
  }

  void group() {
    for (int i = 0; i < (int)ops.size(); ++i) {
      if (!recipes[i])
        continue;
      llvm::SmallDenseSet<int> cands;
      for (int p : deps[i])
        if (member[p] >= 0)
          cands.insert(find(member[p]));
      // A layout change joins a group only after a member (and below, only
      // before one): at a boundary it is the graph's operand or result.
      bool layout = recipes[i]->layoutOnly;
      if (layout && cands.empty())
        continue;
      llvm::SmallDenseSet<int> chosen;
      if (!cands.empty() && !createsCycle(cands, i)) {
        chosen = cands;
      } else {
        for (int c : cands) {
          llvm::SmallDenseSet<int> one;
          one.insert(c);
          if (!createsCycle(one, i)) {
            chosen = one;
            break;
          }
        }
      }
      if (layout && chosen.empty())
        continue;
      member[i] = i;
      for (int c : chosen)
        parent[c] = i;
    }
    for (int i = 0; i < (int)ops.size(); ++i)
      if (member[i] >= 0)
        member[i] = find(i);
    // Transposes that no member of their group reads leave it: pushed up
    // for nothing, they would only move to the graph's operands (removing a
    // sink keeps a group convex). A unit-dim reshape costs nothing inside
    // and saves a view of the result, so it stays.
    for (bool changed = true; changed;) {
      changed = false;
      for (int i = 0; i < (int)ops.size(); ++i) {
        if (member[i] < 0 || !recipes[i]->layoutOnly || recipes[i]->anyForm)
          continue;
        bool read = false;
        for (Operation *u : ops[i]->getResult(0).getUsers())
          if (Operation *a = block.findAncestorOpInBlock(*u))
            if (auto it = index.find(a);
                it != index.end() && member[it->second] == member[i] &&
                llvm::is_contained(recipes[it->second]->inputs,
                                   ops[i]->getResult(0)))
              read = true;
        if (!read) {
          member[i] = -1;
          changed = true;
        }
      }
    }
  }

  /// The inputs of `rc`, converted to what its builder wants, into `in`,
  /// and the layout of its result relative to what the builder returns;
  /// false when no conversion has a kernel form.
  ///
  /// An element-wise recipe (`loopShape`) computes in the kernel form of
  /// one of its inputs that spans the whole index space, so that a value
  /// kept with the reduced unit dim of a reduction, without a reshape's
  /// unit dim, or with two dims merged (a linear layer's rows `[b·s, n]`
  /// read as `[b, s, n]`), is not reshaped back: the forms of inputs
  /// computed in the graph are tried first, then those of graph arguments,
  /// then the index space itself. A reduction (`reduceDim`) does the same
  /// with forms that keep its reduced dim whole.
  bool convertInputs(const Recipe &rc, const DenseMap<Value, Value> &map,
                     LayoutBuilder &layouts, SmallVectorImpl<Value> &in,
                     std::optional<DimMap> &resultLayout) const {
    SmallVector<std::optional<DimMap>> wants(rc.inputs.size());
    for (auto [i, w] : llvm::enumerate(rc.layouts))
      if (i < wants.size())
        wants[i] = w;
    SmallVector<Value> kernel;
    for (Value v : rc.inputs)
      kernel.push_back(map.lookup(current(v)));
    auto programType = [&](size_t i) {
      return dyn_cast<RankedTensorType>(rc.inputs[i].getType());
    };
    // Every input in the program layout `wants` (then `reshapes`).
    auto plain = [&]() {
      in.clear();
      for (size_t i = 0; i < rc.inputs.size(); ++i) {
        Value k = kernel[i];
        auto pt = programType(i);
        if (k && pt && i < rc.reshapes.size() && rc.reshapes[i])
          k = layouts.convertThenReshape(k, pt, wants[i],
                                         withShape(pt, *rc.reshapes[i]));
        else if (k && !rc.anyForm && pt)
          k = layouts.convert(k, pt, wants[i]);
        if (!k)
          return false;
        in.push_back(k);
      }
      resultLayout = rc.resultLayout;
      return true;
    };
    if (rc.batchForm && inBatchForm(rc, wants, layouts, kernel, in,
                                    resultLayout))
      return true;
    if (!rc.loopShape)
      return plain();
    ArrayRef<int64_t> space = *rc.loopShape;
    SmallVector<RankedTensorType> forms;
    for (bool computed : {true, false})
      for (size_t i = 0; i < rc.inputs.size(); ++i) {
        auto pt = programType(i);
        Value k = kernel[i];
        // An input read in the index space as it is, or through unit dims
        // only (a statistic read through `(d0, d1, 0)`).
        RankedTensorType lt =
            !pt ? nullptr : wants[i] ? applyDimMap(pt, *wants[i]) : pt;
        if (!lt || lt.getShape() != space ||
            (wants[i] && !onlyUnitDims(*wants[i], pt)) || !k ||
            isa<BlockArgument>(k) == computed)
          continue;
        auto f = cast<RankedTensorType>(k.getType());
        if (!llvm::is_contained(forms, f))
          forms.push_back(f);
      }
    for (RankedTensorType form : forms) {
      if (sameNonUnitDims(form, withShape(form, space))
              ? inUnitForm(rc, wants, form, layouts, kernel, in, resultLayout)
              : inMergedForm(rc, wants, form, layouts, kernel, in,
                             resultLayout))
        return true;
    }
    return plain();
  }

  /// `convertInputs` for a matmul (`batchForm`) in the kernel form of A when
  /// that form differs from A's program type in its batch dims only.
  bool inBatchForm(const Recipe &rc, ArrayRef<std::optional<DimMap>> wants,
                   LayoutBuilder &layouts, ArrayRef<Value> kernel,
                   SmallVectorImpl<Value> &in,
                   std::optional<DimMap> &resultLayout) const {
    if (rc.inputs.size() < 2 || rc.inputs.size() > 3 || rc.resultLayout ||
        llvm::any_of(wants, [](auto &w) { return w.has_value(); }) ||
        llvm::any_of(kernel, [](Value k) { return !k; }))
      return false;
    auto pa = dyn_cast<RankedTensorType>(rc.inputs[0].getType());
    auto form = cast<RankedTensorType>(kernel[0].getType());
    int64_t r = pa ? pa.getRank() : 0, f = form.getRank();
    if (!pa || form == pa || r < 2 || f < 3 ||
        form.getShape().take_back(2) != pa.getShape().take_back(2) ||
        !isKernelFormOf(form, pa))
      return false;
    ArrayRef<int64_t> batch = form.getShape().drop_back(2);
    in.assign({kernel[0]});
    for (size_t i = 1; i < rc.inputs.size(); ++i) {
      auto pt = dyn_cast<RankedTensorType>(rc.inputs[i].getType());
      if (!pt || pt.getRank() != r)
        return false;
      SmallVector<int64_t> s(batch);
      llvm::append_range(s, pt.getShape().take_back(2));
      Value k = layouts.reshape(kernel[i], withShape(pt, s));
      if (!k)
        return false;
      in.push_back(k);
    }
    resultLayout = std::nullopt;
    return true;
  }

  /// `convertInputs` in `form`, which has the index space's non-unit dims:
  /// the inputs' layouts, given relative to the index space, are
  /// re-expressed relative to `form`.
  bool inUnitForm(const Recipe &rc, ArrayRef<std::optional<DimMap>> wants,
                  RankedTensorType form, LayoutBuilder &layouts,
                  ArrayRef<Value> kernel, SmallVectorImpl<Value> &in,
                  std::optional<DimMap> &resultLayout) const {
    ArrayRef<int64_t> space = *rc.loopShape;
    DimMap fromForm = alignNonUnitDims(form.getShape(), space);
    DimMap toForm = alignNonUnitDims(space, form.getShape());
    in.clear();
    for (auto [i, v] : llvm::enumerate(rc.inputs)) {
      auto pt = dyn_cast<RankedTensorType>(v.getType());
      Value k = kernel[i];
      if (!pt || !k)
        return false;
      DimMap rel = wants[i] ? *wants[i] : identityMap(pt.getRank());
      if (rel.size() != space.size())
        return false; // not relative to the index space
      DimMap w;
      for (int64_t d : fromForm)
        w.push_back(d < 0 ? -1 : rel[d]);
      k = layouts.convert(k, pt, w);
      if (!k)
        return false;
      in.push_back(k);
    }
    DimMap res = rc.resultLayout ? *rc.resultLayout : identityMap(space.size());
    for (int64_t &d : res)
      d = d < 0 ? -1 : toForm[d];
    resultLayout = res;
    return true;
  }

  /// `convertInputs` in `form`, a row-major form of the index space that
  /// merges or splits some of its dims: each input in its layout relative
  /// to the index space, then reshaped to `form` (broadcast dims stay unit
  /// dims, `broadcastInForm`). The result is then in `form`, a kernel form
  /// of the op's result, so only a result layout that adds or drops unit
  /// dims is allowed.
  bool inMergedForm(const Recipe &rc, ArrayRef<std::optional<DimMap>> wants,
                    RankedTensorType form, LayoutBuilder &layouts,
                    ArrayRef<Value> kernel, SmallVectorImpl<Value> &in,
                    std::optional<DimMap> &resultLayout) const {
    ArrayRef<int64_t> space = *rc.loopShape;
    RankedTensorType spaceType = withShape(form, space);
    // What the builder returns in the index space (a reduction keeps its
    // reduced dim as a unit dim), relative to which `resultLayout` is given.
    SmallVector<int64_t> produced(space);
    if (rc.reduceDim && *rc.reduceDim < (int64_t)produced.size())
      produced[*rc.reduceDim] = 1;
    if (!isKernelFormOf(form, spaceType) ||
        (rc.resultLayout &&
         !onlyUnitDims(*rc.resultLayout, withShape(form, produced))) ||
        (rc.reduceDim && !formDim(space, *rc.reduceDim, form.getShape())))
      return false;
    in.clear();
    for (auto [i, v] : llvm::enumerate(rc.inputs)) {
      auto pt = dyn_cast<RankedTensorType>(v.getType());
      Value k = kernel[i];
      if (!pt || !k)
        return false;
      RankedTensorType lt = wants[i] ? applyDimMap(pt, *wants[i]) : pt;
      if (!lt || lt.getRank() != (int64_t)space.size())
        return false;
      auto s = broadcastInForm(lt.getShape(), space, form.getShape());
      if (!s)
        return false;
      k = layouts.convertThenReshape(k, pt, wants[i], withShape(pt, *s));
      if (!k)
        return false;
      in.push_back(k);
    }
    resultLayout = std::nullopt;
    return true;
  }

  /// Builds the graph for one group; returns failure with the op to disable.
  LogicalResult realize(ArrayRef<Operation *> members,
                        const llvm::SmallPtrSetImpl<Operation *> &allMembers,
                        const DenseMap<Operation *, const Recipe *> &recipeOf,
                        Operation *&culprit, std::string &why) {
    llvm::SmallPtrSet<Operation *, 16> inG(members.begin(), members.end());
    // Inputs.
    llvm::SetVector<Value> ins;
    for (Operation *m : members)
      for (Value v : recipeOf.lookup(m)->inputs)
        if (Value c = current(v);
            !c.getDefiningOp() || !inG.contains(c.getDefiningOp()))
          ins.insert(c);
    // An op outside the group whose results only members read (the
    // `linalg.reduce` under an imported `tensor.expand_shape`) dies with the
    // members: it is no reason for an output and it does not move. (Their
    // recipes cannot read it: it reads the group, so that would be a cycle,
    // which grouping excludes.) An op nobody reads is not such an op; it
    // moves like any other reader of the group.
    auto feedsOnlyGroup = [&](Operation *o) {
      if (o->use_empty() || !isMemoryEffectFree(o))
        return false;
      for (Operation *user : o->getUsers()) {
        Operation *a = block.findAncestorOpInBlock(*user);
        if (!a || !inG.contains(a))
          return false;
      }
      return true;
    };
    // Outputs: results used by ops that stay, or by other groups' recipes.
    llvm::SetVector<Value> outs;
    for (Operation *m : members)
      for (OpOperand &use : m->getResult(0).getUses()) {
        Operation *u = use.getOwner();
        Operation *anc = block.findAncestorOpInBlock(*u);
        if (anc && (inG.contains(anc) || feedsOnlyGroup(anc)))
          continue;
        if (anc && allMembers.contains(anc)) {
          if (llvm::is_contained(recipeOf.lookup(anc)->inputs,
                                 m->getResult(0)))
            outs.insert(m->getResult(0));
          continue;
        }
        outs.insert(m->getResult(0));
      }
    if (outs.empty())
      return success(); // nothing observable; members die with their users
    if (llvm::all_of(members, [&](Operation *m) {
          return recipeOf.lookup(m)->layoutOnly;
        }))
      return success(); // layout changes only: nothing to compute
    // Placement: after the last member; ops in between that use the group
    // move after the graph and must be free of side effects.
    Operation *last = members.front();
    for (Operation *m : members)
      if (last->isBeforeInBlock(m))
        last = m;
    SmallVector<Operation *> toMove;
    llvm::SmallPtrSet<Operation *, 16> tainted(inG.begin(), inG.end());
    for (Operation *o = members.front(); o && o != last; o = o->getNextNode()) {
      if (inG.contains(o) || feedsOnlyGroup(o))
        continue;
      bool uses = false;
      auto check = [&](Operation *nested) {
        for (Value v : nested->getOperands())
          if (Operation *d = v.getDefiningOp())
            if (Operation *a = block.findAncestorOpInBlock(*d))
              if (tainted.contains(a))
                uses = true;
      };
      o->walk(check);
      if (uses) {
        if (!isMemoryEffectFree(o)) {
          culprit = nullptr;
          why = "grouping would move an op with side effects";
          return failure();
        }
        tainted.insert(o);
        toMove.push_back(o);
      }
    }
    // Build the graph. Its operands grow when a layout change reaches one
    // (a view outside, LayoutBuilder); its result types are the kernel forms
    // the members produced, with views after the graph where they differ.
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    Location loc = members.size() == 1
                       ? members.front()->getLoc()
                       : b.getFusedLoc(llvm::to_vector(llvm::map_range(
                             members, [](Operation *m) { return m->getLoc(); })));
    SmallVector<Type> outTypes;
    for (Value v : outs)
      outTypes.push_back(v.getType());
    auto g =
        mk::GraphOp::create(b, loc, outTypes, ins.getArrayRef(), StringAttr(),
                            StringAttr(), DenseI64ArrayAttr());
    Block *body = new Block();
    g.getBody().push_back(body);
    SmallVector<Value> operands(ins.begin(), ins.end());
    DenseMap<Value, Value> map;
    for (Value v : ins)
      map[v] = body->addArgument(v.getType(), v.getLoc());
    OpBuilder outer(g);
    LayoutBuilder layouts(outer, body, operands);
    auto giveUp = [&](Operation *c, const char *w) {
      g->erase();
      for (Operation *o : llvm::reverse(layouts.views))
        o->erase();
      culprit = c;
      why = w;
      return failure();
    };
    OpBuilder ib = OpBuilder::atBlockEnd(body);
    for (Operation *m : members) {
      const Recipe &rc = *recipeOf.lookup(m);
      std::optional<DimMap> resultLayout;
      SmallVector<Value> in;
      if (!convertInputs(rc, map, layouts, in, resultLayout))
        return giveUp(m, "its layout change has no kernel form");
      ib.setInsertionPointToEnd(body);
      Value r = rc.build(ib, m->getLoc(), in);
      // A layout that only adds or drops unit dims is a kernel form as is.
      if (r && resultLayout &&
          !onlyUnitDims(*resultLayout, cast<RankedTensorType>(r.getType())))
        r = layouts.retarget(r, *resultLayout);
      auto rt = cast<RankedTensorType>(m->getResult(0).getType());
      auto kt = r ? dyn_cast<RankedTensorType>(r.getType()) : nullptr;
      if (!kt || !isKernelFormOf(kt, rt))
        return giveUp(m, "operand shapes have no kernel form");
      map[m->getResult(0)] = r;
    }
    SmallVector<Value> ys;
    for (Value v : outs)
      ys.push_back(map.lookup(v));
    ib.setInsertionPointToEnd(body);
    mk::YieldOp::create(ib, loc, ys);
    // Layout changes pushed up the same cone twice rebuild the same ops.
    {
      IRRewriter rw(g->getContext());
      DominanceInfo dom;
      mlir::eliminateCommonSubExpressions(rw, dom, g);
      ys.assign(body->getTerminator()->operand_begin(),
                body->getTerminator()->operand_end());
    }
    // What layout changes left unused: kernel ops, arguments, views.
    for (Operation &o : llvm::make_early_inc_range(llvm::reverse(*body)))
      if (!o.hasTrait<OpTrait::IsTerminator>() && o.use_empty())
        o.erase();
    for (int i = (int)body->getNumArguments() - 1; i >= 0; --i)
      if (body->getArgument(i).use_empty()) {
        body->eraseArgument(i);
        operands.erase(operands.begin() + i);
      }
    g->setOperands(operands);
    for (Operation *o : llvm::reverse(layouts.views))
      if (o->use_empty()) {
        llvm::erase(layouts.views, o);
        o->erase();
      }
    for (auto [r, y] : llvm::zip(g.getResults(), ys))
      r.setType(y.getType());
    // Copies only (identity generics): the group computes nothing, and a
    // graph of no kernel would only fail downstream (issue 22). Its values
    // are forwarded instead; the copies die with their last user. Where
    // that would need a view, the group stays as it is.
    if (llvm::hasSingleElement(body->getOperations())) {
      bool plain = layouts.views.empty();
      SmallVector<Value> forwarded;
      for (auto [cv, y] : llvm::zip(outs, ys)) {
        forwarded.push_back(operands[cast<BlockArgument>(y).getArgNumber()]);
        plain &= forwarded.back().getType() == cv.getType();
      }
      g->erase();
      for (Operation *o : llvm::reverse(layouts.views))
        o->erase();
      if (!plain)
        return success();
      for (auto [cv, f] : llvm::zip(outs, forwarded)) {
        Value(cv).replaceUsesWithIf(f, [&](OpOperand &use) {
          Operation *anc = block.findAncestorOpInBlock(*use.getOwner());
          return !(anc && inG.contains(anc));
        });
        replacedBy[cv] = f;
      }
      return success();
    }
    {
      ScopedDiagnosticHandler silence(g->getContext(),
                                      [](Diagnostic &) { return success(); });
      if (failed(mlir::verify(g)))
        return giveUp(nullptr, "the kernel graph would not verify");
    }
    // Commit: views of results whose kernel form is not the program type,
    // then the ops that read the group, then the uses.
    OpBuilder after(g->getContext());
    after.setInsertionPointAfter(g);
    SmallVector<Value> finals;
    for (auto [cv, r] : llvm::zip(outs, g.getResults()))
      finals.push_back(
          reshapeView(after, loc, r, cast<RankedTensorType>(cv.getType())));
    Operation *afterOp = g;
    if (after.getInsertionPoint() != g->getBlock()->end())
      afterOp = after.getInsertionPoint()->getPrevNode();
    else
      afterOp = &g->getBlock()->back();
    for (Operation *o : toMove) {
      o->moveAfter(afterOp);
      afterOp = o;
    }
    for (auto [cv, r] : llvm::zip(outs, finals)) {
      Value(cv).replaceUsesWithIf(r, [&](OpOperand &use) {
        Operation *anc = block.findAncestorOpInBlock(*use.getOwner());
        return !(anc && inG.contains(anc));
      });
      replacedBy[cv] = r;
    }
    created.push_back(g);
    return success();
  }
};

/// Erases ops that are trivially dead and either imported or feeding only
/// what was erased (constants, fills, empties, imported ops). A graph built
/// earlier can become dead too (its only user was a stay-op, e.g. a clamp,
/// feeding a dead imported op); it is then dropped from `created` as well.
void eraseDead(Block &block, SmallVectorImpl<mk::GraphOp> &created,
               llvm::SmallPtrSetImpl<Operation *> &importedUsers) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
      if (op.hasTrait<OpTrait::IsTerminator>() || !isOpTriviallyDead(&op))
        continue;
      if (!importedUsers.contains(&op) && !analyzeOp(&op).recipe)
        continue;
      for (Value v : op.getOperands())
        if (Operation *d = v.getDefiningOp())
          importedUsers.insert(d);
      if (auto g = dyn_cast<mk::GraphOp>(&op))
        llvm::erase(created, g);
      importedUsers.erase(&op);
      op.erase();
      changed = true;
    }
  }
}

} // namespace

void mirage::import::importBlock(
    Block &block, SmallVectorImpl<mk::GraphOp> &created,
    llvm::SmallPtrSetImpl<Operation *> &importedUsers) {
  DenseMap<Operation *, std::string> disabled;
  for (unsigned attempt = 0; attempt < 64; ++attempt) {
    BlockImporter bi(block, disabled, created);
    bi.analyze();
    bi.group();
    // Groups in order of their first member.
    std::map<int, SmallVector<Operation *>> groups;
    llvm::SmallPtrSet<Operation *, 32> allMembers;
    DenseMap<Operation *, const Recipe *> recipeOf;
    for (int i = 0; i < (int)bi.ops.size(); ++i)
      if (bi.member[i] >= 0) {
        groups[bi.member[i]].push_back(bi.ops[i]);
        allMembers.insert(bi.ops[i]);
        recipeOf[bi.ops[i]] = &*bi.recipes[i];
      }
    if (groups.empty())
      return;
    SmallVector<SmallVector<Operation *>> ordered;
    for (auto &[root, ms] : groups)
      ordered.push_back(ms);
    llvm::sort(ordered, [](const auto &a, const auto &b) {
      return a.front()->isBeforeInBlock(b.front());
    });
    bool retry = false;
    for (auto &ms : ordered) {
      Operation *culprit = nullptr;
      std::string why;
      if (failed(bi.realize(ms, allMembers, recipeOf, culprit, why))) {
        // Disable the culprit (or the whole group) and start over; the
        // graphs built so far stay (their members are now dead).
        auto disable = [&](Operation *op) {
          disabled[op] = why;
          op->setAttr(kImportWhyAttr,
                      StringAttr::get(op->getContext(), why));
        };
        if (culprit)
          disable(culprit);
        else
          for (Operation *m : ms)
            disable(m);
        retry = true;
        break;
      }
    }
    // Erase what the graphs replaced (reverse order: users first) and
    // whatever became dead because of it.
    eraseDead(block, created, importedUsers);
    if (!retry)
      return;
  }
}
