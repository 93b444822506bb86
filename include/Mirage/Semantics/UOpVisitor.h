//===- UOpVisitor.h - Dispatch on a UOp's kind, every kind said -*- C++ -*-===//
//
// A CRTP visitor after CIRCT's CombVisitors.h, with one difference: the base
// gives no per-kind default. A visitor names what it does with every kind
// (a visitor that never sees a kind forwards it to visitUnhandledUOp in one
// line), so a new OpKind is a compile error in every visitor that does not
// say, as well as in the dispatch switch (-Werror=switch).
// docs/Rationale/OpKinds.md, Decision 3.
//
//   struct Printer : UOpVisitor<Printer, std::string> {
//     std::string visitMatmul(const UOp &op) { ... }
//     ...
//     std::string visitCustom(const UOp &op) { return visitUnhandledUOp(op); }
//   };
//   std::string s = Printer().dispatchUOpVisitor(op);
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_UOPVISITOR_H
#define MIRAGE_SEMANTICS_UOPVISITOR_H

#include "Mirage/Semantics/UGraph.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

namespace mirage {

template <typename ConcreteType, typename ResultType = void,
          typename... ExtraArgs>
class UOpVisitor {
public:
  ResultType dispatchUOpVisitor(const UOp &op, ExtraArgs... args) {
    auto *self = static_cast<ConcreteType *>(this);
    switch (op.kind) {
    case OpKind::Matmul:
      return self->visitMatmul(op, args...);
    case OpKind::Unary:
      return self->visitUnary(op, args...);
    case OpKind::Binary:
      return self->visitBinary(op, args...);
    case OpKind::Reduce:
      return self->visitReduce(op, args...);
    case OpKind::RmsNorm:
      return self->visitRmsNorm(op, args...);
    case OpKind::Concat:
      return self->visitConcat(op, args...);
    case OpKind::Custom:
      return self->visitCustom(op, args...);
    case OpKind::InputIterator:
      return self->visitInputIterator(op, args...);
    case OpKind::Accum:
      return self->visitAccum(op, args...);
    case OpKind::OutputSaver:
      return self->visitOutputSaver(op, args...);
    case OpKind::ThreadGraph:
      return self->visitThreadGraph(op, args...);
    case OpKind::RunningMax:
      return self->visitRunningMax(op, args...);
    }
    return self->visitInvalidUOp(op, args...);
  }

  /// A kind value outside the enum (a corrupt UOp).
  [[noreturn]] ResultType visitInvalidUOp(const UOp &, ExtraArgs...) {
    llvm::report_fatal_error("UOp with an unknown kind");
  }

  /// A kind this visitor is never given (the caller's contract excludes
  /// it). Visitors that can refuse gracefully override this.
  [[noreturn]] ResultType visitUnhandledUOp(const UOp &op, ExtraArgs...) {
    llvm::report_fatal_error(llvm::Twine("unhandled UOp kind '") +
                             opKindName(op.kind) + "'");
  }
};

/// Dispatches a thread-level op (a thread graph's body holds unary and
/// binary ops only, UGraph's builders refuse the rest): `unary(kind)` or
/// `binary(kind)`. A new thread-level kind is a compile error here and then
/// at every caller, which must pass a function for it.
template <typename UnaryFn, typename BinaryFn>
auto visitThreadOp(const UOp &op, UnaryFn &&unary, BinaryFn &&binary)
    -> decltype(unary(UnaryKind::exp)) {
  switch (op.kind) {
  case OpKind::Unary:
    return unary(op.unaryKind());
  case OpKind::Binary:
    return binary(op.binaryKind());
  case OpKind::Matmul:
  case OpKind::Reduce:
  case OpKind::RmsNorm:
  case OpKind::Concat:
  case OpKind::Custom:
  case OpKind::InputIterator:
  case OpKind::Accum:
  case OpKind::OutputSaver:
  case OpKind::ThreadGraph:
  case OpKind::RunningMax:
    break;
  }
  llvm::report_fatal_error(llvm::Twine("'") + opKindName(op.kind) +
                           "' is not a thread-level operator");
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_UOPVISITOR_H
