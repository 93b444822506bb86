//===- TosaGenMain.cpp - mirage-tosa-gen: write generated TOSA programs ---===//
//
// The program generator of the tosa-gen fuzzer (TosaProgramGenerator.h) as a
// command, for the code-generation campaign (bench/fuzz/codegen.sh): each
// program comes from bytes of a seeded std::mt19937, so a seed names a
// program on every machine.
//
//   mirage-tosa-gen --count N --seed S --out DIR [--f16 | --bf16 | --f32-large]
//
// writes DIR/p<S>.mlir ... DIR/p<S+N-1>.mlir. --f16: f16 tensors of up to
// 2^20 elements with dims from 1 to 1024 and whole attention layers among
// the steps (tensor cores, pipelines, split reductions, flash attention);
// --bf16: the same in bf16; --f32-large: f32 with dims up to 256, tensors
// up to 2^18 elements and attention layers (FMA micro-tiles); otherwise the
// fuzzers' small f32 programs.
//
//===----------------------------------------------------------------------===//
#include "TosaProgramGenerator.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  long count = 1, seed = 1;
  std::string out;
  mirage::fuzz::TosaGenOptions options;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mirage-tosa-gen: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--count"))
      count = std::atol(value());
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::atol(value());
    else if (!std::strcmp(argv[i], "--out"))
      out = value();
    else if (!std::strcmp(argv[i], "--f16") ||
             !std::strcmp(argv[i], "--bf16")) {
      options.elementType = argv[i] + 2;
      options.dims = {1, 2, 3, 16, 64, 128, 512, 1024};
      options.maxElements = int64_t(1) << 20;
      options.attention = true;
    } else if (!std::strcmp(argv[i], "--f32-large")) {
      // f32 at sizes where matmuls take FMA register micro-tiles and
      // loops pipeline; fewer elements than f16's, as f32 doubles the
      // bytes and the CPU check's time.
      options.dims = {1, 3, 16, 64, 128, 256};
      options.maxElements = int64_t(1) << 18;
      options.attention = true;
    } else {
      std::fprintf(stderr,
                   "usage: mirage-tosa-gen --count N --seed S --out DIR "
                   "[--f16 | --bf16 | --f32-large]\n");
      return 2;
    }
  }
  if (out.empty() || count < 1 || seed < 0) {
    std::fprintf(stderr, "mirage-tosa-gen: --out DIR, --count >= 1 and "
                         "--seed >= 0 are required\n");
    return 2;
  }
  for (long s = seed; s < seed + count; ++s) {
    std::mt19937 rng(static_cast<uint32_t>(s));
    std::vector<uint8_t> bytes(64 + rng() % 192);
    for (uint8_t &b : bytes)
      b = static_cast<uint8_t>(rng());
    std::string program =
        mirage::fuzz::generateTosaProgram(bytes.data(), bytes.size(), options);
    std::string path = out + "/p" + std::to_string(s) + ".mlir";
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "mirage-tosa-gen: cannot write %s\n", path.c_str());
      return 1;
    }
    std::fputs(program.c_str(), f);
    std::fclose(f);
  }
  return 0;
}
