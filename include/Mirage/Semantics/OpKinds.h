//===- OpKinds.h - One table of facts per op kind ---------------*- C++ -*-===//
//
// What every pass may ask about a kind without looking at a graph: its name,
// where it may appear, its arity, whether it maps elements one to one or
// reduces, which UOp fields it reads, and for the sub-kinds (MirageEnums.td)
// partiality, commutativity, LAX membership and how they fold. Each table is
// a constexpr function with one exhaustive switch and no `default:`, and
// each row is a constructor that takes every fact with a type of its own: a
// kind without a row, or a row missing a fact, does not compile
// (-Werror=switch). See docs/Rationale/OpKinds.md.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_OPKINDS_H
#define MIRAGE_SEMANTICS_OPKINDS_H

#include "Mirage/Semantics/UGraph.h"

#include <cstdint>

namespace mirage {

//===----------------------------------------------------------------------===//
// The fact types. One enum per fact, so rows cannot swap two facts.
//===----------------------------------------------------------------------===//

/// The levels a kind may appear at (a bit set).
enum class Levels : uint8_t {
  Kernel = 1,
  Block = 2,
  Thread = 4,
  KernelBlock = Kernel | Block,
  All = Kernel | Block | Thread,
};
constexpr bool allows(Levels set, Level l) {
  return (static_cast<uint8_t>(set) &
          (l == Level::Kernel  ? static_cast<uint8_t>(Levels::Kernel)
           : l == Level::Block ? static_cast<uint8_t>(Levels::Block)
                               : static_cast<uint8_t>(Levels::Thread))) != 0;
}

/// Operand counts; `max` < 0: any number (at least `min`).
struct Arity {
  int8_t min;
  int8_t max;
  constexpr bool accepts(size_t n) const {
    return n >= static_cast<size_t>(min) &&
           (max < 0 || n <= static_cast<size_t>(max));
  }
};

/// Result element i depends on operand elements at i only (with
/// broadcasting): unary, binary, thread graphs.
enum class Elementwise : bool { No, Yes };
/// Some result element combines several operand elements along a dim (or
/// over the for-loop's iterations).
enum class Reduces : bool { No, Yes };

/// The phase of the results (UGraph.h, Phase): the operands' own phase, or
/// the fixed phase of the for-loop's edges.
enum class PhaseRule : uint8_t { FromOperands, InLoop, AfterLoop, Saved };

/// Which enum `UOp::sub` holds.
enum class SubKind : uint8_t { None, Unary, Binary, Reduce, Accum };

/// The UOp attribute fields a kind reads (a bit set). `scalar` may be read
/// by some sub-kinds only (unaryFacts, accumFacts).
enum UOpField : uint8_t {
  FieldNone = 0,
  FieldDim = 1,
  FieldSize = 2,
  FieldScalar = 4,
  FieldMap = 8,
  FieldFmap = 16,
  FieldBody = 32,
};
struct Fields {
  uint8_t bits;
  constexpr bool has(UOpField f) const { return (bits & f) != 0; }
};
constexpr Fields fields(uint8_t bits) { return Fields{bits}; }

//===----------------------------------------------------------------------===//
// OpKind
//===----------------------------------------------------------------------===//

struct OpKindFacts {
  const char *name;
  Levels levels;
  Arity arity;
  /// Results: one, or one per output of the nested body.
  bool resultPerBodyOutput;
  Elementwise elementwise;
  Reduces reduces;
  PhaseRule phase;
  SubKind sub;
  Fields fields;

  constexpr OpKindFacts(const char *name, Levels levels, Arity arity,
                        bool resultPerBodyOutput, Elementwise elementwise,
                        Reduces reduces, PhaseRule phase, SubKind sub,
                        Fields fields)
      : name(name), levels(levels), arity(arity),
        resultPerBodyOutput(resultPerBodyOutput), elementwise(elementwise),
        reduces(reduces), phase(phase), sub(sub), fields(fields) {}

  constexpr bool isElementwise() const {
    return elementwise == Elementwise::Yes;
  }
  constexpr bool isReduction() const { return reduces == Reduces::Yes; }
  constexpr bool hasBody() const { return fields.has(FieldBody); }
};

/// The row of `k`; nullptr name for a value outside the enum.
constexpr OpKindFacts opKindFacts(OpKind k) {
  using E = Elementwise;
  using R = Reduces;
  using P = PhaseRule;
  using S = SubKind;
  constexpr bool one = false, perOutput = true;
  switch (k) {
  case OpKind::Matmul:
    return {"matmul", Levels::KernelBlock, {2, 2}, one, E::No, R::Yes,
            P::FromOperands, S::None, fields(FieldNone)};
  case OpKind::Unary:
    return {"unary", Levels::All, {1, 1}, one, E::Yes, R::No,
            P::FromOperands, S::Unary, fields(FieldScalar)};
  case OpKind::Binary:
    return {"binary", Levels::All, {2, 2}, one, E::Yes, R::No,
            P::FromOperands, S::Binary, fields(FieldNone)};
  case OpKind::Reduce:
    return {"reduce", Levels::KernelBlock, {1, 1}, one, E::No, R::Yes,
            P::FromOperands, S::Reduce, fields(FieldDim | FieldSize)};
  case OpKind::RmsNorm: // x [, weight]; scalar: eps
    return {"rms_norm", Levels::KernelBlock, {1, 2}, one, E::No, R::Yes,
            P::FromOperands, S::None, fields(FieldScalar)};
  case OpKind::Concat:
    return {"concat", Levels::KernelBlock, {2, 2}, one, E::No, R::No,
            P::FromOperands, S::None, fields(FieldDim)};
  case OpKind::Custom:
    return {"custom", Levels::Kernel, {0, -1}, perOutput, E::No, R::No,
            P::FromOperands, S::None, fields(FieldBody)};
  case OpKind::InputIterator:
    return {"input_iterator", Levels::Block, {1, 1}, one, E::No, R::No,
            P::InLoop, S::None, fields(FieldMap | FieldFmap)};
  case OpKind::Accum: // x [, rescale]; scalar: rms_last's eps
    return {"accum", Levels::Block, {1, 2}, one, E::No, R::Yes,
            P::AfterLoop, S::Accum, fields(FieldSize | FieldScalar)};
  case OpKind::OutputSaver:
    return {"output_saver", Levels::Block, {1, 1}, one, E::No, R::No,
            P::Saved, S::None, fields(FieldMap)};
  case OpKind::ThreadGraph:
    return {"thread_graph", Levels::Block, {1, -1}, perOutput, E::Yes, R::No,
            P::FromOperands, S::None, fields(FieldBody)};
  case OpKind::RunningMax: // two results: prev, cur
    return {"running_max", Levels::Block, {1, 1}, one, E::No, R::Yes,
            P::InLoop, S::None, fields(FieldDim)};
  }
  return {nullptr, Levels::All, {0, -1}, one, E::No, R::No, P::FromOperands,
          S::None, fields(FieldNone)};
}

//===----------------------------------------------------------------------===//
// Sub-kinds. Their names are TableGen's (stringifyUnaryKind, ...): the
// assembly syntax is the one place they are spelled.
//===----------------------------------------------------------------------===//

/// Total over the reals, or undefined somewhere (sqrt of a negative number,
/// a division by zero); the definedness check (Verification.md §4.6) must
/// know which.
enum class Domain : bool { Total, Partial };
/// Reads UOp::scalar (mul_scalar's factor, rms_last's eps).
enum class ReadsScalar : bool { No, Yes };
/// Inside LAX (linear algebra plus exp), the fragment the abstract
/// expressions model (Import.md).
enum class Lax : bool { No, Yes };
enum class Commutative : bool { No, Yes };
/// How a reduction or accumulator folds its contributions.
enum class Fold : uint8_t { Add, Max };

struct UnaryFacts {
  Domain domain;
  ReadsScalar readsScalar;
  Lax lax;
  constexpr UnaryFacts(Domain domain, ReadsScalar readsScalar, Lax lax)
      : domain(domain), readsScalar(readsScalar), lax(lax) {}
  constexpr bool isPartial() const { return domain == Domain::Partial; }
  constexpr bool usesScalar() const { return readsScalar == ReadsScalar::Yes; }
  constexpr bool inLax() const { return lax == Lax::Yes; }
};

constexpr UnaryFacts unaryFacts(UnaryKind k) {
  using D = Domain;
  using S = ReadsScalar;
  switch (k) {
  case UnaryKind::exp:
    return {D::Total, S::No, Lax::Yes};
  case UnaryKind::square:
    return {D::Total, S::No, Lax::Yes};
  case UnaryKind::sqrt:
    return {D::Partial, S::No, Lax::Yes};
  case UnaryKind::rsqrt:
    return {D::Partial, S::No, Lax::Yes};
  case UnaryKind::reciprocal:
    return {D::Partial, S::No, Lax::Yes};
  case UnaryKind::silu:
    return {D::Total, S::No, Lax::No};
  case UnaryKind::gelu:
    return {D::Total, S::No, Lax::No};
  case UnaryKind::relu:
    return {D::Total, S::No, Lax::No};
  case UnaryKind::sigmoid:
    return {D::Total, S::No, Lax::No};
  case UnaryKind::tanh:
    return {D::Total, S::No, Lax::No};
  case UnaryKind::erf:
    return {D::Total, S::No, Lax::No};
  case UnaryKind::mul_scalar:
    return {D::Total, S::Yes, Lax::Yes};
  case UnaryKind::add_scalar:
    return {D::Total, S::Yes, Lax::Yes};
  }
  return {D::Partial, S::No, Lax::No};
}

struct BinaryFacts {
  Domain domain;
  Commutative commutative;
  Lax lax;
  constexpr BinaryFacts(Domain domain, Commutative commutative, Lax lax)
      : domain(domain), commutative(commutative), lax(lax) {}
  constexpr bool isPartial() const { return domain == Domain::Partial; }
  constexpr bool isCommutative() const {
    return commutative == Commutative::Yes;
  }
  constexpr bool inLax() const { return lax == Lax::Yes; }
};

constexpr BinaryFacts binaryFacts(BinaryKind k) {
  using D = Domain;
  using C = Commutative;
  switch (k) {
  case BinaryKind::add:
    return {D::Total, C::Yes, Lax::Yes};
  case BinaryKind::sub:
    return {D::Total, C::No, Lax::Yes};
  case BinaryKind::mul:
    return {D::Total, C::Yes, Lax::Yes};
  case BinaryKind::div: // by zero
    return {D::Partial, C::No, Lax::Yes};
  case BinaryKind::pow: // 0^-1, (-1)^0.5
    return {D::Partial, C::No, Lax::No};
  }
  return {D::Partial, C::No, Lax::No};
}

struct ReduceFacts {
  Fold fold;
  Lax lax;
  constexpr ReduceFacts(Fold fold, Lax lax) : fold(fold), lax(lax) {}
  constexpr bool inLax() const { return lax == Lax::Yes; }
};

constexpr ReduceFacts reduceFacts(ReduceKind k) {
  switch (k) {
  case ReduceKind::sum:
    return {Fold::Add, Lax::Yes};
  case ReduceKind::max:
    return {Fold::Max, Lax::No};
  }
  return {Fold::Add, Lax::No};
}

/// What an accumulator does each iteration and after the loop
/// (AccumRules.h turns these and an op's operands into its rule).
enum class SquaresOperand : bool { No, Yes };
/// The contribution sums the operand's last dim, strided to `size`.
enum class ReducesLastDim : bool { No, Yes };
/// After the loop: divide by the number of contributions per element.
enum class DividesByCount : bool { No, Yes };
/// After the division (and eps): take the square root.
enum class TakesSqrt : bool { No, Yes };

struct AccumFacts {
  Fold fold;
  SquaresOperand squares;
  ReducesLastDim lastDim;
  DividesByCount byCount;
  TakesSqrt sqrt;
  /// scalar: the eps added before the square root.
  ReadsScalar readsScalar;
  constexpr AccumFacts(Fold fold, SquaresOperand squares,
                       ReducesLastDim lastDim, DividesByCount byCount,
                       TakesSqrt sqrt, ReadsScalar readsScalar)
      : fold(fold), squares(squares), lastDim(lastDim), byCount(byCount),
        sqrt(sqrt), readsScalar(readsScalar) {}
  constexpr bool reducesLastDim() const {
    return lastDim == ReducesLastDim::Yes;
  }
  constexpr bool usesScalar() const { return readsScalar == ReadsScalar::Yes; }
};

constexpr AccumFacts accumFacts(AccumKind k) {
  using Sq = SquaresOperand;
  using L = ReducesLastDim;
  using C = DividesByCount;
  using T = TakesSqrt;
  using S = ReadsScalar;
  switch (k) {
  case AccumKind::sum:
    return {Fold::Add, Sq::No, L::No, C::No, T::No, S::No};
  case AccumKind::sum_last:
    return {Fold::Add, Sq::No, L::Yes, C::No, T::No, S::No};
  case AccumKind::mean_last:
    return {Fold::Add, Sq::No, L::Yes, C::Yes, T::No, S::No};
  case AccumKind::rms_last:
    return {Fold::Add, Sq::Yes, L::Yes, C::Yes, T::Yes, S::Yes};
  case AccumKind::max:
    return {Fold::Max, Sq::No, L::No, C::No, T::No, S::No};
  }
  return {Fold::Add, Sq::No, L::No, C::No, T::No, S::No};
}

//===----------------------------------------------------------------------===//
// Queries on ops
//===----------------------------------------------------------------------===//

/// Whether `op` reads UOp::scalar (mul/add_scalar, rms_norm, rms_last).
inline bool usesScalar(const UOp &op) {
  switch (opKindFacts(op.kind).sub) {
  case SubKind::Unary:
    return unaryFacts(op.unaryKind()).usesScalar();
  case SubKind::Accum:
    return accumFacts(op.accumKind()).usesScalar();
  case SubKind::None:
  case SubKind::Binary:
  case SubKind::Reduce:
    return opKindFacts(op.kind).fields.has(FieldScalar);
  }
  return false;
}

/// The TableGen name of `op`'s sub-kind ("" for kinds without one).
llvm::StringRef subKindName(const UOp &op);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_OPKINDS_H
