//===- Layout.cpp - Kernel forms, DimMaps and retargeting -----------------===//
//
// Layout changes (unit-dim reshapes, transposes, the broadcast and projection
// of linalg input maps) have no kernel op. Inside a graph a program value is
// held in a *kernel form*: the same non-unit dims in the same order, unit dims
// anywhere. A layout a recipe wants is produced by `LayoutBuilder::retarget`,
// which pushes the change up the kernel ops that computed the value until it
// reaches graph arguments, where it becomes a view outside the graph. See
// docs/Rationale/Import.md, "Layouts and indexing maps".
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mirage;
namespace mk = mirage::kernel;

namespace mirage::import {

namespace {

SmallVector<int64_t> nonUnit(ArrayRef<int64_t> s) {
  SmallVector<int64_t> r;
  for (int64_t d : s)
    if (d != 1)
      r.push_back(d);
  return r;
}

bool isIdentityMap(ArrayRef<int64_t> m, int64_t rank) {
  if ((int64_t)m.size() != rank)
    return false;
  for (auto [j, d] : llvm::enumerate(m))
    if (d != (int64_t)j)
      return false;
  return true;
}

/// Whether the non-unit source dims appear in `m` in increasing order (the
/// layout then only adds or drops unit dims).
bool keepsOrder(ArrayRef<int64_t> m, ArrayRef<int64_t> shape) {
  int64_t last = -1;
  for (int64_t d : m)
    if (d >= 0 && shape[d] != 1) {
      if (d < last)
        return false;
      last = d;
    }
  return true;
}

/// Groups of `shape`'s dims, each holding one non-unit dim (unit dims join
/// their left neighbour's group, leading ones the first group); empty when
/// every dim is a unit dim.
SmallVector<ReassociationIndices> unitGroups(ArrayRef<int64_t> shape) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
    if (shape[i] != 1) {
      pending.push_back(i);
      groups.push_back(pending);
      pending.clear();
    } else if (groups.empty()) {
      pending.push_back(i);
    } else {
      groups.back().push_back(i);
    }
  }
  return groups;
}

} // namespace

bool sameNonUnitDims(RankedTensorType a, RankedTensorType b) {
  return a && b && a.getElementType() == b.getElementType() &&
         a.hasStaticShape() && b.hasStaticShape() &&
         nonUnit(a.getShape()) == nonUnit(b.getShape());
}

RankedTensorType applyDimMap(RankedTensorType t, ArrayRef<int64_t> m) {
  if (!t || !t.hasStaticShape())
    return {};
  int64_t r = t.getRank();
  SmallVector<bool> seen(r, false);
  SmallVector<int64_t> s;
  for (int64_t d : m) {
    if (d < -1 || d >= r)
      return {};
    if (d == -1) {
      s.push_back(1);
      continue;
    }
    if (seen[d])
      return {};
    seen[d] = true;
    s.push_back(t.getDimSize(d));
  }
  for (int64_t d = 0; d < r; ++d)
    if (!seen[d] && t.getDimSize(d) != 1)
      return {};
  return withShape(t, s);
}

DimMap alignNonUnitDims(ArrayRef<int64_t> to, ArrayRef<int64_t> from) {
  // Non-unit dims match in order; between two of them, the unit dims of
  // both match in order too, as far as both have them (so equal shapes
  // align as the identity, and a kept unit dim stays where it was).
  DimMap m(to.size(), -1);
  size_t i = 0, k = 0;
  while (i < to.size() || k < from.size()) {
    size_t ri = i, rk = k;
    while (ri < to.size() && to[ri] == 1)
      ++ri;
    while (rk < from.size() && from[rk] == 1)
      ++rk;
    for (size_t t = 0; i + t < ri && k + t < rk; ++t)
      m[i + t] = k + t;
    i = ri;
    k = rk;
    if (i < to.size() && k < from.size())
      m[i] = k;
    if (i < to.size())
      ++i;
    if (k < from.size())
      ++k;
  }
  return m;
}

bool onlyUnitDims(ArrayRef<int64_t> m, RankedTensorType t) {
  return applyDimMap(t, m) && keepsOrder(m, t.getShape());
}

Value unitReshape(OpBuilder &b, Location loc, Value v, RankedTensorType t) {
  auto vt = dyn_cast<RankedTensorType>(v.getType());
  if (!vt || !sameNonUnitDims(vt, t))
    return {};
  if (vt == t)
    return v;
  if (vt.getRank() != t.getRank())
    if (auto re = getReassociationIndicesForReshape(vt, t)) {
      if (vt.getRank() > t.getRank())
        return tensor::CollapseShapeOp::create(b, loc, t, v, *re);
      return tensor::ExpandShapeOp::create(b, loc, t, v, *re);
    }
  SmallVector<int64_t> core = nonUnit(vt.getShape());
  Value cur = v;
  if ((int64_t)core.size() != vt.getRank())
    cur = tensor::CollapseShapeOp::create(b, loc, withShape(vt, core), cur,
                                          unitGroups(vt.getShape()));
  if ((int64_t)core.size() != t.getRank())
    cur = tensor::ExpandShapeOp::create(b, loc, t, cur,
                                        unitGroups(t.getShape()));
  return cur;
}

Value LayoutBuilder::convert(Value v, RankedTensorType programType,
                             const std::optional<DimMap> &want) {
  auto vt = dyn_cast_if_present<RankedTensorType>(v ? v.getType() : Type());
  if (!vt || !programType || !sameNonUnitDims(vt, programType))
    return {};
  DimMap rel = want ? *want
                    : DimMap(llvm::to_vector(
                          llvm::seq<int64_t>(0, programType.getRank())));
  DimMap align = alignNonUnitDims(programType.getShape(), vt.getShape());
  DimMap m;
  for (int64_t d : rel) {
    if (d < -1 || d >= programType.getRank())
      return {};
    m.push_back(d < 0 ? -1 : align[d]);
  }
  return retarget(v, m);
}

Value LayoutBuilder::retarget(Value v, ArrayRef<int64_t> mIn) {
  if (!v)
    return {};
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return {};
  RankedTensorType target = applyDimMap(t, mIn);
  if (!target || target.getRank() < 1 || target.getRank() > 4)
    return {};
  if (isIdentityMap(mIn, t.getRank()) ||
      (target == t && keepsOrder(mIn, t.getShape())))
    return v;
  auto key = std::make_pair(v.getAsOpaquePointer(),
                            std::vector<int64_t>(mIn.begin(), mIn.end()));
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  Value r = compute(v, t, DimMap(mIn), target);
  if (r && r.getType() != target)
    r = {};
  memo[key] = r;
  return r;
}

Value LayoutBuilder::compute(Value v, RankedTensorType t, DimMap m,
                             RankedTensorType target) {
  Location loc = v.getLoc();
  int64_t r = t.getRank(), R = m.size();
  auto has = [&](int64_t d) { return llvm::is_contained(m, d); };
  // Puts the omitted unit source dim `d` at the new unit dim `j`.
  auto place = [&](int64_t j, int64_t d) {
    if (m[j] == d)
      return true;
    if (m[j] != -1 || has(d) || t.getDimSize(d) != 1)
      return false;
    m[j] = d;
    return true;
  };
  if (auto ba = dyn_cast<BlockArgument>(v)) {
    if (ba.getOwner() != body || ba.getArgNumber() >= operands.size())
      return {};
    Value src = operands[ba.getArgNumber()];
    auto st = dyn_cast<RankedTensorType>(src.getType());
    if (!st || st != t)
      return {};
    // A unit reshape this builder made is looked through: the view is made
    // of its source instead, or is that source when nothing else changes.
    while (Operation *d = src.getDefiningOp()) {
      if (!llvm::is_contained(views, d))
        break;
      Value s0 = d->getOperand(0);
      auto t0 = cast<RankedTensorType>(s0.getType());
      if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(d)) {
        DimMap al = alignNonUnitDims(st.getShape(), t0.getShape());
        for (int64_t &x : m)
          x = x < 0 ? -1 : al[x];
      } else if (auto tr = dyn_cast<linalg::TransposeOp>(d)) {
        ArrayRef<int64_t> p = tr.getPermutation();
        for (int64_t &x : m)
          x = x < 0 ? -1 : p[x];
      } else {
        break;
      }
      src = s0;
      st = t0;
    }
    if (src != operands[ba.getArgNumber()]) {
      if (!applyDimMap(st, m))
        return {};
      // The source itself, where it already has the target's type (not
      // only the same non-unit dims: a [64] weight wanted as [1, 64] still
      // needs its unit reshape, made below).
      if (st == target && applyDimMap(st, m) == target &&
          keepsOrder(m, st.getShape())) {
        for (auto [i, o] : llvm::enumerate(operands))
          if (o == src && i < body->getNumArguments())
            return body->getArgument(i);
        operands.push_back(src);
        return body->addArgument(target, loc);
      }
    }
    r = st.getRank();
    auto hasSrc = [&](int64_t d) { return llvm::is_contained(m, d); };
    // Unit source dims the layout drops fill its new unit dims, so that a
    // transpose needs no reshape after it.
    for (int64_t &x : m)
      if (x == -1)
        for (int64_t d = 0; d < r; ++d)
          if (st.getDimSize(d) == 1 && !hasSrc(d)) {
            x = d;
            break;
          }
    // A permutation of the non-unit dims first, then the unit dims.
    Value cur = src;
    if (!keepsOrder(m, st.getShape())) {
      SmallVector<int64_t> perm;
      for (int64_t d : m)
        if (d >= 0)
          perm.push_back(d);
      for (int64_t d = 0; d < r; ++d)
        if (!hasSrc(d))
          perm.push_back(d);
      SmallVector<int64_t> ps;
      for (int64_t d : perm)
        ps.push_back(st.getDimSize(d));
      auto empty = tensor::EmptyOp::create(outer, loc, ps, st.getElementType());
      auto tr = linalg::TransposeOp::create(outer, loc, cur, empty, perm);
      tr->setAttr(kImportViewAttr, outer.getUnitAttr());
      views.push_back(empty);
      views.push_back(tr);
      cur = tr->getResult(0);
    }
    Value view = unitReshape(outer, loc, cur, target);
    if (!view)
      return {};
    SmallVector<Operation *> chain;
    for (Value x = view; x != cur; x = x.getDefiningOp()->getOperand(0))
      chain.push_back(x.getDefiningOp());
    views.append(chain.rbegin(), chain.rend());
    if (view == src)
      return v;
    operands.push_back(view);
    return body->addArgument(target, loc);
  }
  Operation *op = v.getDefiningOp();
  if (!op || op->getBlock() != body)
    return {};
  OpBuilder b = OpBuilder::atBlockEnd(body);
  if (auto u = dyn_cast<mk::UnaryOp>(op)) {
    Value x = retarget(u.getInput(), m);
    if (!x)
      return {};
    return mk::UnaryOp::create(b, loc, target, u.getKindAttr(), x,
                               u.getScalarAttr());
  }
  if (auto bin = dyn_cast<mk::BinaryOp>(op))
    return emitBinary(b, loc, bin.getKind(), retarget(bin.getLhs(), m),
                      retarget(bin.getRhs(), m));
  if (auto red = dyn_cast<mk::ReduceOp>(op)) {
    int64_t d = red.getDim();
    if (!has(d)) {
      // A reduced unit dim the layout drops: a new unit dim holds it, one
      // that keeps it in order with the other dims where there is one (else
      // its input would be transposed).
      auto inOrder = [&](int64_t j) {
        for (int64_t k = 0; k < R; ++k)
          if (m[k] >= 0 && ((k < j && m[k] > d) || (k > j && m[k] < d)))
            return false;
        return true;
      };
      for (int64_t j = 0; j < R && !has(d); ++j)
        if (m[j] == -1 && inOrder(j))
          place(j, d);
      for (int64_t j = 0; j < R && !has(d); ++j)
        if (m[j] == -1)
          place(j, d);
      if (!has(d))
        return {};
    }
    int64_t j = llvm::find(m, d) - m.begin();
    Value x = retarget(red.getInput(), m);
    if (!x)
      return {};
    return mk::ReduceOp::create(b, loc, target, red.getKindAttr(), x,
                                b.getI64IntegerAttr(j), red.getSizeAttr());
  }
  if (auto cat = dyn_cast<mk::ConcatOp>(op)) {
    int64_t d = cat.getDim();
    if (!has(d))
      return {};
    int64_t j = llvm::find(m, d) - m.begin();
    return emitConcat(b, loc, retarget(cat.getLhs(), m),
                      retarget(cat.getRhs(), m), j);
  }
  if (auto mm = dyn_cast<mk::MatmulOp>(op)) {
    if (R < 2)
      return {};
    DimMap keep = m;
    bool plain = place(R - 2, r - 2) && place(R - 1, r - 1);
    if (plain)
      return emitMatmul(b, loc, retarget(mm.getLhs(), m),
                        retarget(mm.getRhs(), m));
    m = keep;
    // (A·B)ᵀ = Bᵀ·Aᵀ on the last two dims.
    if (place(R - 2, r - 1) && place(R - 1, r - 2))
      return emitMatmul(b, loc, retarget(mm.getRhs(), m),
                        retarget(mm.getLhs(), m));
    return {};
  }
  if (auto rn = dyn_cast<mk::RmsNormOp>(op)) {
    if (!place(R - 1, r - 1))
      return {};
    Value x = retarget(rn.getInput(), m);
    Value w;
    if (Value w0 = rn.getWeight()) {
      if (cast<RankedTensorType>(w0.getType()).getRank() != r)
        return {};
      w = retarget(w0, m);
      if (!w)
        return {};
    }
    if (!x)
      return {};
    return mk::RmsNormOp::create(b, loc, target, x, w, rn.getEpsAttr());
  }
  return {};
}

} // namespace mirage::import
