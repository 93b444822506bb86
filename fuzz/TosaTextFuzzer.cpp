//===- TosaTextFuzzer.cpp - Fuzz --mirage-import on raw MLIR text ---------===//
//
// Input: MLIR text (seeds: the TOSA and linalg programs under test/ and
// examples/). Every input that parses and verifies goes through
// --mirage-import (the low bit of the length picks strict-lax, so both modes
// see every shape of input); ImportCheck.h says what is a finding.
//
//===----------------------------------------------------------------------===//
#include "ImportCheck.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mirage::fuzz::checkImport(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      /*strictLax=*/size & 1);
  return 0;
}
