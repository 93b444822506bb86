//===- SharedOpsUGraph.h - UGraph glue for the shared op classes -*- C++ -*-===//
//
// Matmul, unary, binary, reduce, rms_norm and concat exist in the kernel and
// block dialects (MirageOpBases.td). Their import into a UGraph and export
// back to MLIR are written once here, parameterised by the dialect's op
// classes (`Ops::Matmul`, ...).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_DIALECT_COMMON_SHAREDOPSUGRAPH_H
#define MIRAGE_DIALECT_COMMON_SHAREDOPSUGRAPH_H

#include "Mirage/Semantics/UGraph.h"
#include "Mirage/Semantics/OpKinds.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mirage {

/// The scalar attribute of a unary op: present for mul/add_scalar only.
inline mlir::FloatAttr unaryScalarAttr(mlir::OpBuilder &b, const UOp &op) {
  return unaryFacts(op.unaryKind()).usesScalar() ? b.getF64FloatAttr(op.scalar)
                                                  : mlir::FloatAttr();
}

/// Adds `op` to `g` if it is one of the shared op classes of dialect `Ops`;
/// `get` maps an MLIR value to its UGraph id. Returns std::nullopt for other
/// ops, else the builder's result (-1 with g.error on refusal).
template <typename Ops, typename GetFn>
std::optional<int32_t> importSharedOp(UGraph &g, mlir::Operation *op,
                                      GetFn get) {
  if (auto m = llvm::dyn_cast<typename Ops::Matmul>(op))
    return g.addMatmul(get(m.getLhs()), get(m.getRhs()));
  if (auto u = llvm::dyn_cast<typename Ops::Unary>(op))
    return g.addUnary(u.getKind(), get(u.getInput()),
                      u.getScalar() ? u.getScalar()->convertToDouble() : 0.0);
  if (auto b = llvm::dyn_cast<typename Ops::Binary>(op))
    return g.addBinary(b.getKind(), get(b.getLhs()), get(b.getRhs()));
  if (auto r = llvm::dyn_cast<typename Ops::Reduce>(op))
    return g.addReduce(r.getKind(), get(r.getInput()), r.getDim(),
                       r.getSize());
  if (auto r = llvm::dyn_cast<typename Ops::RmsNorm>(op))
    return g.addRmsNorm(get(r.getInput()),
                        r.getWeight() ? get(r.getWeight()) : -1,
                        r.getEps().convertToDouble());
  if (auto c = llvm::dyn_cast<typename Ops::Concat>(op))
    return g.addConcat(get(c.getLhs()), get(c.getRhs()), c.getDim());
  return std::nullopt;
}

/// Emits the shared op `op` of `g` with dialect `Ops`; `in(i)` gives the MLIR
/// value of operand i and `type` the result type.
template <typename Ops, typename InFn>
mlir::Value exportSharedOp(mlir::OpBuilder &b, mlir::Location loc,
                           const UOp &op, mlir::Type type, InFn in) {
  switch (op.kind) {
  case OpKind::Matmul:
    return Ops::Matmul::create(b, loc, type, in(0), in(1));
  case OpKind::Unary:
    return Ops::Unary::create(b, loc, type, op.unaryKind(), in(0),
                              unaryScalarAttr(b, op));
  case OpKind::Binary:
    return Ops::Binary::create(b, loc, type, op.binaryKind(), in(0), in(1));
  case OpKind::Reduce:
    return Ops::Reduce::create(b, loc, type, op.reduceKind(), in(0), op.dim,
                               op.size);
  case OpKind::RmsNorm:
    return Ops::RmsNorm::create(b, loc, type, in(0),
                                op.operands.size() > 1 ? in(1) : mlir::Value(),
                                b.getF64FloatAttr(op.scalar));
  case OpKind::Concat:
    return Ops::Concat::create(b, loc, type, in(0), in(1), op.dim);
  case OpKind::Custom: // not shared: each has one level's op class
  case OpKind::InputIterator:
  case OpKind::Accum:
  case OpKind::OutputSaver:
  case OpKind::ThreadGraph:
  case OpKind::RunningMax:
    return mlir::Value();
  }
  return mlir::Value();
}

} // namespace mirage

#endif // MIRAGE_DIALECT_COMMON_SHAREDOPSUGRAPH_H
