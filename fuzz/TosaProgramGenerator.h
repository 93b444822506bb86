//===- TosaProgramGenerator.h - TOSA programs from fuzzer bytes -*- C++ -*-===//
//
// Turns an arbitrary byte string into a well-typed TOSA function (f32,
// ranks 1-4, static shapes): element-wise unary and broadcasting binary ops,
// scalar constants, reductions, matmul, transposes and reshapes, and the
// composite forms frontends emit (softmax, RMS normalisation, SiLU) over
// every axis. Every byte string gives a program, so libFuzzer's mutations
// move through program space instead of through parse errors; the raw-text
// fuzzer covers the inputs a generator would never write.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_FUZZ_TOSAPROGRAMGENERATOR_H
#define MIRAGE_FUZZ_TOSAPROGRAMGENERATOR_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mirage::fuzz {

/// The MLIR text of a module with one func.func @fuzz built from `data`.
std::string generateTosaProgram(const uint8_t *data, size_t size);

} // namespace mirage::fuzz

#endif // MIRAGE_FUZZ_TOSAPROGRAMGENERATOR_H
