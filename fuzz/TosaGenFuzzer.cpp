//===- TosaGenFuzzer.cpp - Fuzz --mirage-import on generated TOSA ---------===//
//
// Input: bytes that TosaProgramGenerator turns into a well-typed TOSA
// program; the first byte picks strict-lax. A generated program that does
// not parse is a generator bug and reported as a finding too, so the
// generator cannot silently drift into exercising nothing.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "ImportCheck.h"
#include "TosaProgramGenerator.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string program =
      mirage::fuzz::generateTosaProgram(data + 1, size - 1);
  if (!mirage::fuzz::checkImport(program, /*strictLax=*/data[0] & 1))
    mirage::fuzz::finding("a generated TOSA program does not parse", program);
  return 0;
}
