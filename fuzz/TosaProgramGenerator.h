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
#include <vector>

namespace mirage::fuzz {

/// What the generated programs look like. The defaults are the fuzzers'
/// (small f32 tensors, cheap to import and verify); the code-generation
/// campaign (bench/fuzz/codegen.sh) asks for f16 and dims large enough for
/// tensor cores, pipelines and split reductions.
struct TosaGenOptions {
  /// Element type of every tensor: "f32" or "f16".
  std::string elementType = "f32";
  /// The dims a shape draws from.
  std::vector<int64_t> dims = {1, 2, 3, 4, 8};
  /// No tensor of the program has more elements (0: no bound). A step whose
  /// result would is skipped or given a smaller operand.
  int64_t maxElements = 0;
  /// Also draw whole attention layers (softmax(Q·K·c)·V, with or without
  /// the max subtracted): the flash-attention, split-KV and tail lowerings
  /// that single ops rarely compose. Off for the fuzzers, whose byte-to-
  /// program mapping stays as it was.
  bool attention = false;
};

/// The MLIR text of a module with one func.func @fuzz built from `data`.
std::string generateTosaProgram(const uint8_t *data, size_t size,
                                const TosaGenOptions &options = {});

} // namespace mirage::fuzz

#endif // MIRAGE_FUZZ_TOSAPROGRAMGENERATOR_H
