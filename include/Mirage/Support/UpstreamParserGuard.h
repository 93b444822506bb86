//===- UpstreamParserGuard.h - Text that crashes MLIR 22's parser -*- C++ -*-===//
//
// MLIR 22.1.8's custom parsers of linalg.broadcast, linalg.transpose and
// linalg.reduce store the result of DenseI64ArrayAttr::parse without
// checking it: a `dimensions = ...` or `permutation = ...` clause whose value
// is not an integer list makes the parser dereference a null attribute, and
// stock mlir-opt dies with a segmentation fault before any pass runs. Our
// tools promise a diagnostic for bad input, never a crash, so mirage-opt and
// the text fuzzers look for such clauses before parsing
// (docs/Rationale/Import.md, "Upstream parser crashes").
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SUPPORT_UPSTREAMPARSERGUARD_H
#define MIRAGE_SUPPORT_UPSTREAMPARSERGUARD_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mirage {

/// Where `text` holds a clause that crashes the upstream parser.
struct UpstreamParserHazard {
  unsigned line = 0;   // 1-based
  unsigned column = 0; // 1-based, at the clause's keyword
  llvm::StringRef keyword;
};

/// The first `dimensions =` or `permutation =` clause (outside `//`
/// comments, and not an entry of an attribute dictionary, which the generic
/// attribute parser checks) whose value is not `[` integers `]`, if any.
std::optional<UpstreamParserHazard>
findUpstreamParserHazard(llvm::StringRef text);

} // namespace mirage

#endif // MIRAGE_SUPPORT_UPSTREAMPARSERGUARD_H
