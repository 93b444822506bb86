//===- ChipLimits.cpp - The per-chip launch limits table ------------------===//

#include "ChipLimits.h"

namespace mirage_run {

namespace {

// Per block the opt-in maximum is the SM's shared memory less the 1 KiB
// reserve, so that exactly one such block fits on an SM.
const ChipLimits kChips[] = {
    // chip    gpus                        shared/block  shared/SM  threads/SM  blocks/SM
    {"sm_80", "A100, A30",                 163 * 1024,   164 * 1024, 2048,      32},
    {"sm_86", "A10, A40, RTX 30xx",        99 * 1024,    100 * 1024, 1536,      16},
    {"sm_89", "L4, L40, RTX 40xx",         99 * 1024,    100 * 1024, 1536,      24},
    {"sm_90", "H100, H200",                227 * 1024,   228 * 1024, 2048,      32},
};

} // namespace

const ChipLimits *findChipLimits(const std::string &chip) {
  for (const ChipLimits &c : kChips)
    if (chip == c.chip)
      return &c;
  // "sm_90a" enables architecture-specific instructions (wgmma, setmaxnreg)
  // on the same hardware as "sm_90".
  if (chip.size() > 1 && chip.back() == 'a')
    return findChipLimits(chip.substr(0, chip.size() - 1));
  return nullptr;
}

} // namespace mirage_run
