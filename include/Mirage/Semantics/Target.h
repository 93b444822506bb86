//===- Target.h - GPU targets a μGraph is built for -------------*- C++ -*-===//
//
// The per-target limits the verifiers enforce (shared memory per block) and
// that the cost model reads (SM count, bandwidths). One table, by name.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_TARGET_H
#define MIRAGE_SEMANTICS_TARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mirage {

struct TargetInfo {
  llvm::StringRef name;
  llvm::StringRef chip;          // sm_80, sm_90
  int64_t smemBytesPerBlock;     // opt-in dynamic shared memory per block
  int64_t numSMs;
  double dramBytesPerSecond;
  double fp16FlopsPerSecond;     // dense tensor-core peak
  double fp32FlopsPerSecond;     // CUDA-core peak
};

/// The default target when an op or pass names none.
constexpr llvm::StringLiteral kDefaultTarget = "h100";

/// Looks a target up by name ("h100", "a100"); std::nullopt if unknown.
std::optional<TargetInfo> lookupTarget(llvm::StringRef name);

/// Bytes per element of a μGraph element type (f16/bf16 2, f32 4, f64 8).
int64_t bytesPerElement(unsigned bitWidth);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_TARGET_H
