//===- Target.cpp - The GPU a μGraph is built for -------------------------===//
#include "Mirage/Semantics/Target.h"

#include <algorithm>
#include <array>
#include <vector>

using namespace mirage;

namespace {
// Published figures unless noted.
//
// H100 SXM5: 132 SMs; 227 KiB (232,448 B) of shared memory per block and
// 228 KiB per SM; 1 KiB reserved per resident block by CUDA; 64 K registers
// per SM, 255 per thread; 2,048 threads and 32 blocks per SM; 3.35 TB/s
// HBM3; 50 MB L2 (about 7 TB/s measured); 64 B per clock per SM from L2
// at 1.755 GHz; a serial fold step (a dependent add, its shared load issued
// ahead as ptxas unrolls the fold) about 8 cycles, a guess to calibrate on a
// GPU; DRAM latency 600-800 ns, L2 200-300 ns (kernel-roofline.md); DRAM's
// bandwidth reached only with every SM busy, each pulling its fair share (a
// modelling choice to calibrate, CostModel.md). Dense fp16
// peak 989 TFLOP/s is wgmma's (sm_90a); mma.sync, which the lowering emits,
// reaches about half of it. FMA 67 TFLOP/s, 128 FP32 lanes per SM; shared
// memory serves one 128-byte wavefront per cycle per SM.
//
// Calibrated on an H200 (sm_90, the H100's SMs with faster HBM3e) on
// 2026-11-30, bench/gpu/README.md "Results": the refit of 114 kernel times
// of this project's own kernels (bench/gpu/calibrate.py) scales the
// memory and compute terms by 1.51 (efficiencies 0.85 -> 0.56 and
// 0.70 -> 0.46), a kernel launched alone costs 3.9 us (the 2 us guessed
// before; the probes: 4.4 us), and each further kernel of a dependent
// chain adds 3.9 - 2.2 = 1.7 us. Memory-bound kernels will run slower on
// an H100's 3.35 TB/s than the scale says; the next H100 run refits it.
//
// A100 SXM4 80GB: 108 SMs; 163 KiB per block, 164 KiB per SM; 2.04 TB/s;
// 40 MB L2 (about 4 TB/s); 64 B per clock per SM at 1.41 GHz; mma.sync is
// the tensor-core path, 312 TFLOP/s; FMA 19.5 TFLOP/s, 64 FP32 lanes per SM;
// shared memory 128 bytes per cycle per SM.
//
// One record per line group, in the fields' order.
// clang-format off
const std::array<TargetInfo, 2> kTargets{{
    {"h100", "sm_90", "+ptx80", 132,
     232448, 233472, 48 * 1024, 1024, 1024,
     32, 1024, 2048, 32, 65536, 255,
     {"mma.sync.aligned.m16n8k16", 16, 8, 16, "f16,bf16", "f32", 989e12 / 2},
     16, 67e12, 128, 128,
     3.35e12, 7.0e12, 50e6, 64 * 1.755e9, 1.755e9, 8, 700e-9, 1.0,
     0.56, 0.46, 3.9e-6, 1024, "sm_90a", true, 250e-9, 1.7e-6},
    {"a100", "sm_80", "+ptx80", 108,
     166912, 167936, 48 * 1024, 1024, 1024,
     32, 1024, 2048, 32, 65536, 255,
     {"mma.sync.aligned.m16n8k16", 16, 8, 16, "f16,bf16", "f32", 312e12},
     16, 19.5e12, 64, 128,
     2.04e12, 4.0e12, 40e6, 64 * 1.41e9, 1.41e9, 8, 700e-9, 1.0,
     0.85, 0.7, 2e-6, 1024, "", false, 250e-9, 2e-6},
}};
// clang-format on
} // namespace

std::optional<TargetInfo> mirage::lookupTarget(llvm::StringRef name) {
  for (const TargetInfo &t : kTargets)
    if (t.name == name)
      return t;
  return std::nullopt;
}

std::optional<TargetInfo> mirage::lookupTargetByChip(llvm::StringRef chip) {
  for (const TargetInfo &t : kTargets)
    if (t.chip == chip ||
        (!t.archSpecificChip.empty() && t.archSpecificChip == chip))
      return t;
  return std::nullopt;
}

bool TargetInfo::fillsMachine(int64_t blocks) const {
  if (blocks < numSMs)
    return false;
  int64_t busiest = (blocks + numSMs - 1) / numSMs;
  double fill = static_cast<double>(blocks) /
                static_cast<double>(numSMs * busiest);
  return 1.0 - fill <= kMaxFillIdle;
}

std::string mirage::supportedChips() {
  std::vector<std::string> chips;
  for (const TargetInfo &t : kTargets) {
    chips.push_back(t.chip.str());
    if (!t.archSpecificChip.empty())
      chips.push_back(t.archSpecificChip.str());
  }
  std::sort(chips.begin(), chips.end());
  std::string out;
  for (const std::string &c : chips)
    out += (out.empty() ? "" : ", ") + c;
  return out;
}

std::string mirage::unsupportedChipMessage(llvm::StringRef chip) {
  return "unsupported chip '" + chip.str() +
         "' (supported: " + supportedChips() + ")";
}

int64_t mirage::bytesPerElement(unsigned bitWidth) { return (bitWidth + 7) / 8; }
