//===- UpstreamAttrs.h - Defensive reads of upstream op attributes -*- C++ -*-===//
//
// Internal to lib/Conversion. The one path by which the importer reads an
// attribute (inherent or discardable) of an upstream TOSA or linalg op.
//
// Why: an op that parsed and verified may still lack an attribute its
// typed getter dereferences. MLIR 22.1.8 parses `tosa.reduce_max ...
// {nan_mode = "IGNORE"}` (a string where the op declares an enum), leaves the
// default-valued property empty, and the op verifies; `getNanMode()` then
// reads through a null attribute. So recipes never call typed attribute
// getters (nor interface methods that read an attribute, before it was
// checked here). They read by name and kind; an absent attribute takes the
// TOSA specification's default where the specification gives one, and
// otherwise the read fails and the op stays unimported with the reason as
// its remark. See docs/Rationale/Import.md, "Reading upstream attributes".
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_CONVERSION_UPSTREAMATTRS_H
#define MIRAGE_LIB_CONVERSION_UPSTREAMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mirage::import {

/// The TOSA specification's value for attribute `name` of `op` when the
/// program omits it, or null where the specification gives none.
mlir::Attribute tosaSpecDefault(mlir::Operation *op, llvm::StringRef name);

/// Reads the attributes one recipe needs from one upstream op. Every read
/// returns null (or nullopt) when it fails; the first failure is kept, and
/// the recipe checks `ok()` once before it uses any value:
///
///   UpstreamAttrs attrs(op);
///   auto nan = attrs.get<tosa::NanPropagationModeAttr>("nan_mode");
///   std::optional<int64_t> axis = attrs.integer("axis");
///   if (!attrs.ok())
///     return Analysis::no(attrs.why());
class UpstreamAttrs {
public:
  explicit UpstreamAttrs(mlir::Operation *op) : op(op) {}

  /// `name` as an `AttrT`: the op's own value; when the op has none, the
  /// TOSA specification's default; else null and the read fails. A value of
  /// another kind fails too (no default replaces what the program wrote).
  template <typename AttrT> AttrT get(llvm::StringRef name) {
    mlir::Attribute a = op->getAttr(name);
    if (!a)
      a = tosaSpecDefault(op, name);
    if (auto t = llvm::dyn_cast_if_present<AttrT>(a))
      return t;
    fail(name, a);
    return {};
  }

  /// Like `get`, for an attribute that only some ops of a family declare
  /// (e.g. `indexing_maps`, stored by linalg.generic and linalg.matmul,
  /// computed by linalg.add): null without failing when `op` does not
  /// declare `name` as an inherent attribute.
  template <typename AttrT> AttrT getIfDeclared(llvm::StringRef name) {
    if (!declares(name))
      return {};
    return get<AttrT>(name);
  }

  /// An integer attribute's value (IntegerAttr of any width).
  std::optional<int64_t> integer(llvm::StringRef name);

  /// A float attribute's value (FloatAttr of any width).
  std::optional<double> floating(llvm::StringRef name);

  /// Whether every read so far succeeded.
  bool ok() const { return firstFailure.empty(); }

  /// Why the first failed read failed (empty when `ok()`).
  const std::string &why() const { return firstFailure; }

private:
  bool declares(llvm::StringRef name) const;
  void fail(llvm::StringRef name, mlir::Attribute found);

  mlir::Operation *op;
  std::string firstFailure;
};

} // namespace mirage::import

#endif // MIRAGE_LIB_CONVERSION_UPSTREAMATTRS_H
