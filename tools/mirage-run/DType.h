//===- DType.h - Element types of mirage-run buffers ------------*- C++ -*-===//
//
// The element types a manifest may name, and the exact conversions
// between them and double. mirage-run fills inputs from doubles
// (SeededValues.h) and compares outputs as doubles, so these two directions
// are all it needs; the conversions are written out by hand because the tool
// must build without cuda_fp16.h or any other CUDA header.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_DTYPE_H
#define MIRAGE_RUN_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mirage_run {

/// I32: a tail combine's counters (docs/Rationale/TailCombine.md), only in
/// temp buffers, which start at zero.
enum class DType { F16, BF16, F32, I32 };

/// Parses "f16", "bf16", "f32" or "i32"; false for anything else.
bool parseDType(const std::string &name, DType &out);
const char *dtypeName(DType t);
size_t dtypeSize(DType t);

/// IEEE binary16 / bfloat16 bits of `v`, rounded to nearest, ties to even,
/// straight from the double (one rounding, never double rounding). Overflow
/// gives infinity, NaN a quiet NaN with the sign kept.
uint16_t doubleToHalfBits(double v);
uint16_t doubleToBF16Bits(double v);
double halfBitsToDouble(uint16_t bits);
double bf16BitsToDouble(uint16_t bits);

/// Stores `v` as one element of type `t` at `dst` (host byte order; every
/// CUDA host is little-endian, like the device).
void encodeElement(double v, DType t, void *dst);
/// Reads one element of type `t` from `src`.
double decodeElement(const void *src, DType t);

/// Checks the conversions against hand-computed bit patterns and against the
/// compiler's own double→float rounding; prints what fails to stderr and
/// returns the number of failures. Run by `mirage-run --self-test`.
int selfTestDTypes();

} // namespace mirage_run

#endif // MIRAGE_RUN_DTYPE_H
