//===- LaunchCheck.cpp - Kernels against their chip's launch limits -------===//

#include "LaunchCheck.h"
#include "PtxShared.h"

#include <algorithm>
#include <climits>
#include <map>

namespace mirage_run {

namespace {

uint64_t roundUp(uint64_t x, uint64_t unit) { return (x + unit - 1) / unit * unit; }

uint64_t divideRoundingUp(uint64_t x, uint64_t y) { return (x + y - 1) / y; }

/// Registers one warp of the kernel takes: its threads' registers, in
/// allocation units.
uint64_t registersPerWarp(const ChipLimits &c, unsigned registersPerThread) {
  return roundUp(uint64_t(registersPerThread) * c.warpSize, c.registerAllocationUnit);
}

/// Registers a block needs to launch. As the occupancy calculator models
/// the hardware's check, a block's warps count as spread evenly over the
/// register file's parts, so its warp count is rounded up to a multiple of
/// their number.
uint64_t registersPerBlock(const ChipLimits &c, unsigned registersPerThread,
                           unsigned warps) {
  return registersPerWarp(c, registersPerThread) * roundUp(warps, c.registerFileParts);
}

/// Checks one kernel; appends what does not fit to `problems` and fills in
/// the residency of `k` when everything does.
void checkKernel(const ChipLimits &c, KernelLaunch &k,
                 std::vector<std::string> &problems) {
  const Kernel &kernel = *k.kernel;
  static const char *const kAxis[] = {"x", "y", "z"};
  const size_t problemsBefore = problems.size();
  bool blockDimsFit = true;
  for (int i = 0; i < 3; ++i)
    if (kernel.block[i] > c.maxBlockDim[i]) {
      problems.push_back("block " + std::string(kAxis[i]) + " is " +
                         std::to_string(kernel.block[i]) +
                         ", more than the limit of " + std::to_string(c.maxBlockDim[i]));
      blockDimsFit = false;
    }
  // Only with every dimension in range is the product small enough to mean
  // anything (and to fit an unsigned).
  if (blockDimsFit) {
    k.threads = kernel.block[0] * kernel.block[1] * kernel.block[2];
    if (k.threads > c.maxThreadsPerBlock)
      problems.push_back("block " +
                         shapeString({kernel.block[0], kernel.block[1], kernel.block[2]}) +
                         " has " + std::to_string(k.threads) +
                         " threads, more than the limit of " +
                         std::to_string(c.maxThreadsPerBlock));
  }
  for (int i = 0; i < 3; ++i)
    if (kernel.grid[i] > c.maxGridDim[i])
      problems.push_back("grid " + std::string(kAxis[i]) + " is " +
                         std::to_string(kernel.grid[i]) + ", more than the limit of " +
                         std::to_string(c.maxGridDim[i]));

  if (k.staticSharedBytes > c.maxStaticSharedPerBlock)
    problems.push_back(std::to_string(k.staticSharedBytes) +
                       " bytes of static shared memory (counted by " +
                       k.staticSharedSource + ") exceed the limit of " +
                       std::to_string(c.maxStaticSharedPerBlock) +
                       " on .shared variables; more must be dynamic");
  if (k.sharedBytes() > c.maxSharedPerBlock)
    problems.push_back(std::to_string(k.sharedBytes()) +
                       " bytes of shared memory per block (static " +
                       std::to_string(k.staticSharedBytes) + " + dynamic " +
                       std::to_string(kernel.dynamicSharedBytes) +
                       ") exceed the limit of " + std::to_string(c.maxSharedPerBlock));

  const unsigned warps = unsigned(divideRoundingUp(k.threads, c.warpSize));
  if (k.ptxas && k.threads) {
    const unsigned regs = k.ptxas->registers;
    if (regs > c.maxRegistersPerThread)
      problems.push_back(std::to_string(regs) +
                         " registers per thread exceed the limit of " +
                         std::to_string(c.maxRegistersPerThread));
    else if (registersPerBlock(c, regs, warps) > c.registersPerBlock)
      problems.push_back(std::to_string(regs) + " registers per thread (ptxas) need " +
                         std::to_string(registersPerBlock(c, regs, warps)) +
                         " registers for a block of " + std::to_string(k.threads) +
                         " threads, more than the limit of " +
                         std::to_string(c.registersPerBlock));
  }
  if (problems.size() != problemsBefore || !k.threads)
    return;

  k.blocksByThreads = c.maxThreadsPerSM / c.warpSize / warps;
  k.blocksBySharedMemory = unsigned(
      c.sharedPerSM /
      roundUp(k.sharedBytes() + c.sharedReservedPerBlock, c.sharedAllocationUnit));
  k.residentBlocks = std::min({c.maxBlocksPerSM, k.blocksByThreads, k.blocksBySharedMemory});
  if (k.ptxas && k.ptxas->registers) {
    // Each part of the register file holds whole warps.
    const uint64_t warpsPerPart = c.registersPerSM / c.registerFileParts /
                                  registersPerWarp(c, k.ptxas->registers);
    k.blocksByRegisters = unsigned(warpsPerPart * c.registerFileParts / warps);
    k.residentBlocks = std::min(k.residentBlocks, k.blocksByRegisters);
  }
}

} // namespace

LaunchCheck checkLaunches(const Manifest &m, bool runPtxasOnPtx) {
  LaunchCheck check;
  check.limits = findChipLimits(m.chip);
  if (!check.limits) {
    check.warnings.push_back("no launch limits known for chip " + m.chip +
                             ": its kernels' threads, grid, shared memory and "
                             "registers are not checked");
    return check;
  }
  const ChipLimits &c = *check.limits;

  std::map<std::string, PtxasKernel> ptxasReport;
  std::string registersUnknown = "ptxas runs only with --dry-run";
  if (runPtxasOnPtx) {
    const std::string ptxas = findPtxas(registersUnknown);
    if (!ptxas.empty()) {
      std::string err;
      if (!runPtxas(ptxas, m.chip, m.ptxPath, ptxasReport, err)) {
        check.refusals.push_back(err);
        return check;
      }
      registersUnknown = "ptxas did not report this kernel";
    }
  }

  // The PTX's own declarations, read only when a kernel has no better count.
  std::map<std::string, uint64_t> declaredShared;
  bool declaredSharedRead = false;
  for (const Kernel &kernel : m.kernels) {
    KernelLaunch k;
    k.kernel = &kernel;
    auto reported = ptxasReport.find(kernel.name);
    if (reported != ptxasReport.end())
      k.ptxas = reported->second;
    else
      k.registersUnknown = registersUnknown;

    // ptxas's count is what the driver will allocate, alignment padding
    // included; the manifest's is the writer's; the PTX's is a lower bound.
    if (k.ptxas) {
      k.staticSharedBytes = k.ptxas->staticSharedBytes;
      k.staticSharedSource = "ptxas";
      if (kernel.staticSharedBytes && *kernel.staticSharedBytes != k.staticSharedBytes)
        check.warnings.push_back(
            "kernel '" + kernel.name + "': the manifest's static_shared_bytes " +
            std::to_string(*kernel.staticSharedBytes) + " differ from ptxas's " +
            std::to_string(k.staticSharedBytes) + "; checking ptxas's");
    } else if (kernel.staticSharedBytes) {
      k.staticSharedBytes = *kernel.staticSharedBytes;
      k.staticSharedSource = "the manifest";
    } else {
      if (!declaredSharedRead) {
        std::string err;
        if (!staticSharedBytesPerEntry(m.ptxText, declaredShared, err)) {
          check.refusals.push_back(m.ptxPath +
                                   ": cannot count the static shared memory of "
                                   "its kernels: " + err);
          return check;
        }
        declaredSharedRead = true;
      }
      auto declared = declaredShared.find(kernel.name);
      if (declared == declaredShared.end()) {
        check.refusals.push_back(m.ptxPath + ": cannot find the body of .entry " +
                                 kernel.name + " to count its static shared memory");
        continue;
      }
      k.staticSharedBytes = declared->second;
      k.staticSharedSource = "the PTX";
    }

    std::vector<std::string> problems;
    checkKernel(c, k, problems);
    for (const std::string &p : problems)
      check.refusals.push_back("kernel '" + kernel.name + "' cannot launch on " +
                               m.chip + ": " + p);
    check.kernels.push_back(k);
  }
  return check;
}

void printLaunchPlan(const Manifest &m, const LaunchCheck &check, FILE *out) {
  if (!check.limits) {
    std::fprintf(out, "launch on %s: limits unknown, not checked\n", m.chip.c_str());
    return;
  }
  const ChipLimits &c = *check.limits;
  std::fprintf(out, "launch on %s (%s):\n", m.chip.c_str(), c.gpus);
  std::fprintf(out,
               "  limits per block: %u threads, %u bytes of shared memory (%u of it "
               "static), %u registers, %u per thread\n",
               c.maxThreadsPerBlock, c.maxSharedPerBlock, c.maxStaticSharedPerBlock,
               c.registersPerBlock, c.maxRegistersPerThread);
  std::fprintf(out,
               "  limits per SM: %u threads, %u blocks, %u bytes of shared memory (%u "
               "of it reserved per block), %u registers\n",
               c.maxThreadsPerSM, c.maxBlocksPerSM, c.sharedPerSM,
               c.sharedReservedPerBlock, c.registersPerSM);
  for (const KernelLaunch &k : check.kernels) {
    const Kernel &kernel = *k.kernel;
    std::fprintf(out, "  kernel %s\n", kernel.name.c_str());
    std::fprintf(out, "    threads: %u per block\n", k.threads);
    std::fprintf(out,
                 "    shared memory: %llu bytes per block (static %llu + dynamic %u; "
                 "static counted by %s)\n",
                 (unsigned long long)k.sharedBytes(),
                 (unsigned long long)k.staticSharedBytes, kernel.dynamicSharedBytes,
                 k.staticSharedSource);
    if (k.ptxas)
      std::fprintf(out,
                   "    registers: %u per thread (ptxas), spill stores %llu bytes, "
                   "spill loads %llu bytes\n",
                   k.ptxas->registers, (unsigned long long)k.ptxas->spillStoreBytes,
                   (unsigned long long)k.ptxas->spillLoadBytes);
    else
      std::fprintf(out, "    registers: not checked (%s)\n", k.registersUnknown.c_str());
    // Without the registers the count is only an upper bound.
    std::fprintf(out, "    resident blocks per SM: %s%u (shared memory %u, threads %u",
                 k.ptxas ? "" : "at most ", k.residentBlocks,
                 k.blocksBySharedMemory, k.blocksByThreads);
    if (k.blocksByRegisters)
      std::fprintf(out, ", registers %u", k.blocksByRegisters);
    std::fprintf(out, ", chip %u)\n", c.maxBlocksPerSM);
  }
}

} // namespace mirage_run
