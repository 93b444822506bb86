//===- ChipLimits.h - What a kernel launch may use, per chip ----*- C++ -*-===//
//
// The one table of hardware launch limits mirage-run checks manifests
// against: the chip a manifest names ("sm_90") decides whether each kernel's
// block, grid, shared memory and registers fit, and how many blocks of it
// can be resident on one SM. The numbers come from the CUDA C++ Programming
// Guide ("Technical Specifications per Compute Capability") and the
// allocation rules of the toolkit's occupancy calculator (cuda_occupancy.h);
// the README says more.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_CHIP_LIMITS_H
#define MIRAGE_RUN_CHIP_LIMITS_H

#include <string>

namespace mirage_run {

struct ChipLimits {
  // What differs between the chips of the table.
  const char *chip; // as in a manifest and ptxas -arch: "sm_90"
  const char *gpus; // examples, for messages: "H100, H200"
  /// Static plus dynamic shared memory of one block, with the opt-in
  /// (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES) that mirage-run makes.
  unsigned maxSharedPerBlock;
  /// Shared memory of one SM, shared by its resident blocks, each of which
  /// also takes `sharedReservedPerBlock` of it.
  unsigned sharedPerSM;
  unsigned maxThreadsPerSM;
  unsigned maxBlocksPerSM;

  // The same on every chip of the table (compute capability 8.0 and later).
  unsigned maxThreadsPerBlock = 1024;
  unsigned maxBlockDim[3] = {1024, 1024, 64};
  unsigned maxGridDim[3] = {0x7fffffffu, 65535, 65535};
  /// Without the opt-in; ptxas refuses more *static* .shared than this.
  unsigned maxStaticSharedPerBlock = 48 * 1024;
  /// The driver keeps this much of an SM's shared memory for every block.
  unsigned sharedReservedPerBlock = 1024;
  /// A block's shared memory (reserve included) is allocated in these units.
  unsigned sharedAllocationUnit = 128;
  unsigned registersPerSM = 65536;
  unsigned registersPerBlock = 65536;
  unsigned maxRegistersPerThread = 255;
  /// A warp's registers are allocated in units of this many (8 per thread).
  unsigned registerAllocationUnit = 256;
  /// The register file is split evenly between this many warp schedulers;
  /// a warp takes all its registers from one of them.
  unsigned registerFileParts = 4;
  unsigned warpSize = 32;
};

/// The limits of `chip`, or null for a chip the table does not know. An
/// architecture-specific name ("sm_90a") has the limits of its base chip.
const ChipLimits *findChipLimits(const std::string &chip);

} // namespace mirage_run

#endif // MIRAGE_RUN_CHIP_LIMITS_H
