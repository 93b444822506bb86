//===- ImportCheck.h - Run --mirage-import and check its output -*- C++ -*-===//
//
// The property both import fuzzers check: parse a TOSA/linalg program; if it
// parses and verifies, --mirage-import (default, or strict-lax) either
// fails with a diagnostic or leaves a module that verifies. The pass
// manager's own verifier is off so that invalid output is seen here, as a
// finding, rather than folded into an ordinary pass failure.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_FUZZ_IMPORTCHECK_H
#define MIRAGE_FUZZ_IMPORTCHECK_H

#include "llvm/ADT/StringRef.h"

namespace mirage::fuzz {

/// Returns whether `text` parsed (the check ran); aborts on a finding.
bool checkImport(llvm::StringRef text, bool strictLax);

} // namespace mirage::fuzz

#endif // MIRAGE_FUZZ_IMPORTCHECK_H
