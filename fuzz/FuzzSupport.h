//===- FuzzSupport.h - What the libFuzzer targets share ---------*- C++ -*-===//
//
// A fresh MLIRContext per input (a long-lived one would keep every attribute
// and type a mutated input ever uniqued, and the run would end in an
// out-of-memory report that is no finding), diagnostics dropped (bad input
// is expected to be diagnosed, not printed thousands of times a second),
// and one way to report a finding: print what broke and abort, which
// libFuzzer records as a crash with its reproducer.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_FUZZ_FUZZSUPPORT_H
#define MIRAGE_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringRef.h"

#include <memory>

namespace mirage::fuzz {

/// A single-threaded context with every dialect of `registry` loaded and a
/// diagnostic handler that drops everything.
std::unique_ptr<mlir::MLIRContext>
makeQuietContext(const mlir::DialectRegistry &registry);

/// Reports a finding and aborts.
[[noreturn]] void finding(llvm::StringRef what, llvm::StringRef detail = "");

} // namespace mirage::fuzz

#endif // MIRAGE_FUZZ_FUZZSUPPORT_H
