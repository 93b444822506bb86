//===- NarrowStatistics.cpp - f64 statistics computed in the program's type ===//
//
// torch-mlir's LayerNorm decomposition (var_mean) computes the statistics
// of an f32 or f16 program in f64: an element-wise generic upcasts the
// input with `arith.extf`, the mean and variance run on f64 tensors, and
// generics truncate them back. An f64 graph has no GPU path, so left as
// they are those ops stay outside every graph (WidenedStatistics.cpp) and
// the LayerNorm is cut in pieces. PyTorch itself computes these statistics
// in f32 on the GPU (its accumulation type for f32 and f16), so before
// import each such island is retyped to the program's type T: f64 tensors
// become T tensors, f64 scalars (body constants, captured constants,
// `sitofp` counts) become T, the upcast and the truncations become
// identities. A remark on the upcast says so; `narrow-f64-statistics=false`
// keeps the f64 ops as they are. docs/Rationale/Import.md, "f64 statistics".
//
// An island is a set of ops connected by f64 tensors: linalg generics and
// fills, tensor.empty and splat f64 constants only, every f64 scalar they
// read from outside an arith.constant, every body op one of the arith/math
// ops retyping keeps valid, exactly one narrower float type T among its
// tensors, and at least one generic reading a T tensor into an f64 one (the
// upcast). Anything else (an f64 function argument or result, an f64
// program) is left alone.
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

bool isF64(Type t) { return getElementTypeOrSelf(t).isF64(); }
bool isF64Tensor(Type t) { return isa<RankedTensorType>(t) && isF64(t); }

/// Body ops whose result types follow their operands' (or are set here).
bool retypableBodyOp(Operation *op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::ExtFOp,
             arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp,
             arith::ConstantOp, arith::SelectOp, arith::CmpFOp,
             arith::IndexCastOp, linalg::IndexOp, linalg::YieldOp,
             math::RsqrtOp, math::SqrtOp, math::ExpOp, math::LogOp,
             math::PowFOp, math::FPowIOp, math::AbsFOp, math::TanhOp,
             math::ErfOp>(op);
}

/// An island of f64 ops and its program type.
struct Island {
  llvm::SetVector<Operation *> ops;
  FloatType narrow;
  Operation *upcast = nullptr;
};

/// The island around `seed` (an op with an f64 tensor result), or nullopt
/// when it is not one this file narrows. `visited` gets every op the walk
/// reached: all of them are in the seed's island, so a walk from any of
/// them ends the same way (the reasons to stop are properties of the
/// island: an op, a boundary type, a function argument).
std::optional<Island> islandOf(Operation *seed,
                               llvm::SmallPtrSetImpl<Operation *> &visited) {
  Island is;
  SmallVector<Operation *> work{seed};
  auto fail = [] { return std::nullopt; };
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!is.ops.insert(op))
      continue;
    visited.insert(op);
    if (!isa<linalg::GenericOp, linalg::FillOp, tensor::EmptyOp,
             arith::ConstantOp>(op))
      return fail();
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseFPElementsAttr>(c.getValue());
      if (!dense || !dense.isSplat())
        return fail();
    }
    // Neighbours through f64 tensors; the narrow type from the others.
    auto visit = [&](Value v) -> bool {
      Type t = v.getType();
      if (isF64Tensor(t)) {
        if (Operation *d = v.getDefiningOp())
          work.push_back(d);
        else
          return false; // a function argument
        for (Operation *u : v.getUsers())
          work.push_back(u);
        return true;
      }
      auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(t));
      if (!ft || !isa<RankedTensorType>(t) || ft.isF64())
        return true;
      if (is.narrow && is.narrow != ft)
        return false;
      is.narrow = ft;
      return true;
    };
    for (Value v : op->getOperands())
      if (!visit(v))
        return fail();
    for (Value v : op->getResults())
      if (!visit(v))
        return fail();
    // f64 scalars read from outside: constants only (retyped below).
    auto scalarOk = [&](Value v) {
      if (!isa<FloatType>(v.getType()) || !isF64(v.getType()))
        return true;
      return (bool)v.getDefiningOp<arith::ConstantOp>();
    };
    if (auto f = dyn_cast<linalg::FillOp>(op))
      if (!scalarOk(f.value()))
        return fail();
    if (auto g = dyn_cast<linalg::GenericOp>(op)) {
      bool reads = false, writes = false;
      for (Value in : g.getDpsInputs())
        reads |= isa<RankedTensorType>(in.getType()) && !isF64(in.getType()) &&
                 isa<FloatType>(getElementTypeOrSelf(in.getType()));
      writes = llvm::any_of(g->getResultTypes(), isF64Tensor);
      if (reads && writes && !is.upcast)
        is.upcast = op;
      WalkResult w = g.getBody()->walk([&](Operation *b) {
        if (!retypableBodyOp(b))
          return WalkResult::interrupt();
        for (Value v : b->getOperands())
          if (v.getParentBlock() != g.getBody() &&
              !g->isProperAncestor(v.getParentBlock()->getParentOp()) &&
              !scalarOk(v))
            return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (w.wasInterrupted())
        return fail();
    }
  }
  if (!is.narrow || !is.upcast)
    return std::nullopt;
  return is;
}

/// The constant `c` (an f64 scalar or splat) in `narrow`, next to `at`.
Value narrowConstant(OpBuilder &b, arith::ConstantOp c, FloatType narrow) {
  auto convert = [&](APFloat v) {
    bool lost;
    v.convert(narrow.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return v;
  };
  if (auto f = dyn_cast<FloatAttr>(c.getValue()))
    return arith::ConstantOp::create(
        b, c.getLoc(), FloatAttr::get(narrow, convert(f.getValue())));
  auto dense = cast<DenseFPElementsAttr>(c.getValue());
  auto type = cast<RankedTensorType>(c.getType()).clone(narrow);
  return arith::ConstantOp::create(
      b, c.getLoc(),
      DenseElementsAttr::get(type, convert(dense.getSplatValue<APFloat>())));
}

void narrow(Island &is) {
  FloatType t = is.narrow;
  auto retype = [&](Value v) {
    if (auto rt = dyn_cast<RankedTensorType>(v.getType()); rt && isF64(rt))
      v.setType(rt.clone(t));
    else if (isa<FloatType>(v.getType()) && isF64(v.getType()))
      v.setType(t);
  };
  // A captured or fill f64 scalar constant: a T copy next to the op.
  llvm::SetVector<Operation *> captured;
  auto narrowOperand = [&](Operation *user, OpOperand &o) {
    auto c = o.get().getDefiningOp<arith::ConstantOp>();
    if (!c || !isa<FloatType>(c.getType()) || !isF64(c.getType()))
      return;
    OpBuilder b(user);
    o.set(narrowConstant(b, c, t));
    captured.insert(c);
  };
  for (Operation *op : is.ops) {
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      OpBuilder b(c);
      c.replaceAllUsesWith(narrowConstant(b, c, t));
      continue;
    }
    if (auto f = dyn_cast<linalg::FillOp>(op))
      narrowOperand(op, f->getOpOperand(0));
    for (Value r : op->getResults())
      retype(r);
    auto g = dyn_cast<linalg::GenericOp>(op);
    if (!g)
      continue;
    Block *body = g.getBody();
    for (BlockArgument a : body->getArguments())
      retype(a);
    SmallVector<Operation *> bodyOps;
    for (Operation &b : *body)
      bodyOps.push_back(&b);
    for (Operation *b : bodyOps) {
      for (OpOperand &o : b->getOpOperands())
        if (o.get().getParentBlock() != body)
          narrowOperand(g, o);
      if (auto c = dyn_cast<arith::ConstantOp>(b)) {
        if (isa<FloatType>(c.getType()) && isF64(c.getType())) {
          OpBuilder bb(c);
          c.replaceAllUsesWith(narrowConstant(bb, c, t));
          c.erase();
        }
        continue;
      }
      // A cast whose source now has its result type is an identity.
      if (isa<arith::ExtFOp, arith::TruncFOp>(b)) {
        Value src = b->getOperand(0);
        Type dst = isF64(b->getResult(0).getType()) ? Type(t)
                                                     : b->getResult(0).getType();
        if (src.getType() == dst) {
          b->getResult(0).replaceAllUsesWith(src);
          b->erase();
          continue;
        }
      }
      for (Value r : b->getResults())
        retype(r);
    }
  }
  // The f64 constants only the island read.
  for (Operation *c : captured)
    if (c->use_empty())
      c->erase();
}

} // namespace

void mirage::import::narrowWidenedStatistics(Operation *root, bool remarks) {
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Island> islands;
  root->walk([&](Operation *op) {
    if (seen.contains(op) || !llvm::any_of(op->getResultTypes(), isF64Tensor))
      return;
    if (op->getParentOfType<linalg::LinalgOp>())
      return;
    // Every op the walk reached is in op's island: walked once, kept or not
    // (a failed island's other ops would fail the same way, and walking
    // each of them again was quadratic in the island's size).
    if (std::optional<Island> is = islandOf(op, seen))
      islands.push_back(std::move(*is));
  });
  for (Island &is : islands) {
    std::string type;
    llvm::raw_string_ostream(type) << is.narrow;
    if (remarks)
      is.upcast->emitRemark("f64 statistics computed in ")
          << type << ", the program's type, as PyTorch computes them ("
          << is.ops.size()
          << " ops retyped; narrow-f64-statistics=false keeps them in f64)";
    narrow(is);
  }
}
