//===- LaunchCheck.h - Can a manifest's kernels launch on its chip? -*- C++ -*-===//
//
// A manifest names the chip its PTX was written for; every kernel must fit
// that chip's limits (ChipLimits.h) or the launch fails on the GPU machine,
// after the bundle was built and shipped. This checks, per kernel, what can
// be known on the CPU machine: block and grid dimensions, static and
// dynamic shared memory per block and, when ptxas is run on the PTX,
// registers; and it works out how many blocks of the kernel fit on one SM.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_LAUNCH_CHECK_H
#define MIRAGE_RUN_LAUNCH_CHECK_H

#include "ChipLimits.h"
#include "Manifest.h"
#include "Ptxas.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace mirage_run {

/// What one kernel asks of an SM, and how many of its blocks fit on one.
struct KernelLaunch {
  const Kernel *kernel = nullptr;
  /// Threads per block; 0 when a block dimension is over its limit.
  unsigned threads = 0;
  uint64_t staticSharedBytes = 0;
  /// Where staticSharedBytes comes from: "ptxas", "the manifest" or "the PTX".
  const char *staticSharedSource = "";
  /// ptxas's report on the kernel; none when ptxas did not run or did not
  /// report this kernel (registersUnknown says which).
  std::optional<PtxasKernel> ptxas;
  std::string registersUnknown;
  /// Resident blocks per SM as each resource limits them (registers only
  /// when known), and the least of them and the chip's own cap; all 0 when
  /// the kernel cannot launch.
  unsigned blocksBySharedMemory = 0, blocksByThreads = 0, blocksByRegisters = 0;
  unsigned residentBlocks = 0;

  uint64_t sharedBytes() const {
    return staticSharedBytes + kernel->dynamicSharedBytes;
  }
};

struct LaunchCheck {
  /// The manifest's chip; null when the table does not know it, and then
  /// nothing was checked (and `kernels` is empty).
  const ChipLimits *limits = nullptr;
  std::vector<KernelLaunch> kernels;
  /// One line each, without the "mirage-run: MANIFEST: " prefix:
  /// "kernel 'k' cannot launch on sm_90: ...", or a ptxas failure.
  std::vector<std::string> refusals;
  std::vector<std::string> warnings;
};

/// Checks every kernel of `m` against the limits of `m.chip`. With
/// `runPtxasOnPtx`, also runs ptxas (Ptxas.h) on the PTX for the registers
/// and the exact static shared memory; a ptxas that rejects the PTX is a
/// refusal.
LaunchCheck checkLaunches(const Manifest &m, bool runPtxasOnPtx);

/// Prints the chip's limits and, per kernel, threads, shared memory,
/// registers and resident blocks per SM: the launch part of the dry-run plan.
void printLaunchPlan(const Manifest &m, const LaunchCheck &c, FILE *out);

} // namespace mirage_run

#endif // MIRAGE_RUN_LAUNCH_CHECK_H
