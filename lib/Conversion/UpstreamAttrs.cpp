//===- UpstreamAttrs.cpp - Defensive reads of upstream op attributes ------===//
//
// The TOSA specification's defaults and the failure reasons of
// UpstreamAttrs (see the header for why every read goes through here).
//
//===----------------------------------------------------------------------===//
#include "UpstreamAttrs.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mirage::import {

Attribute tosaSpecDefault(Operation *op, StringRef name) {
  if (!isa_and_present<tosa::TosaDialect>(op->getDialect()))
    return {};
  // TOSA 1.0, "NaN propagation": an operator with a nan_mode argument
  // propagates NaN unless told otherwise. Every other attribute the
  // importer reads (axis, min_val, max_val) has no default in the
  // specification.
  if (name == "nan_mode")
    return tosa::NanPropagationModeAttr::get(
        op->getContext(), tosa::NanPropagationMode::PROPAGATE);
  return {};
}

std::optional<int64_t> UpstreamAttrs::integer(StringRef name) {
  if (auto a = get<IntegerAttr>(name))
    return a.getValue().getSExtValue();
  return std::nullopt;
}

std::optional<double> UpstreamAttrs::floating(StringRef name) {
  if (auto a = get<FloatAttr>(name))
    return a.getValueAsDouble();
  return std::nullopt;
}

bool UpstreamAttrs::declares(StringRef name) const {
  std::optional<RegisteredOperationName> info = op->getRegisteredInfo();
  return info && llvm::any_of(info->getAttributeNames(), [&](StringAttr n) {
           return n.getValue() == name;
         });
}

void UpstreamAttrs::fail(StringRef name, Attribute found) {
  if (!firstFailure.empty())
    return;
  llvm::raw_string_ostream os(firstFailure);
  os << "attribute '" << name << "' ";
  if (!found)
    os << "is absent and has no default in the specification";
  else
    os << "has an unexpected kind (" << found << ")";
}

} // namespace mirage::import
