//===- Target.cpp - GPU targets a μGraph is built for ---------------------===//
#include "Mirage/Semantics/Target.h"

using namespace mirage;

std::optional<TargetInfo> mirage::lookupTarget(llvm::StringRef name) {
  // Published figures: H100 SXM5 (227 KiB smem/block, 132 SMs, 3.35 TB/s,
  // 989 TFLOP/s dense fp16, 67 TFLOP/s fp32); A100 SXM4 80GB (163 KiB,
  // 108 SMs, 2.04 TB/s, 312 TFLOP/s fp16, 19.5 TFLOP/s fp32).
  if (name == "h100")
    return TargetInfo{"h100", "sm_90", 227 * 1024, 132, 3.35e12, 989e12, 67e12};
  if (name == "a100")
    return TargetInfo{"a100", "sm_80", 163 * 1024, 108, 2.04e12, 312e12, 19.5e12};
  return std::nullopt;
}

int64_t mirage::bytesPerElement(unsigned bitWidth) { return (bitWidth + 7) / 8; }
