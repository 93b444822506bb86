//===- Ptxas.h - What ptxas says about a PTX module's kernels ---*- C++ -*-===//
//
// Registers per thread are only known once the PTX is compiled for a chip,
// so `--dry-run` runs the toolkit's ptxas on the manifest's PTX (once per
// manifest) and reads its `-v` report: per entry the registers, the spill
// traffic and the static shared memory it allocated. ptxas is optional (the
// CPU machine may have no CUDA toolkit); where there is none the caller says
// that registers were not checked.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_PTXAS_H
#define MIRAGE_RUN_PTXAS_H

#include <cstdint>
#include <map>
#include <string>

namespace mirage_run {

/// One entry's line of `ptxas -v`.
struct PtxasKernel {
  unsigned registers = 0; // per thread
  uint64_t spillStoreBytes = 0, spillLoadBytes = 0;
  uint64_t staticSharedBytes = 0; // "N bytes smem", padding included
};

/// The ptxas to run: $PTXAS when set (set but empty: none), else
/// /usr/local/cuda/bin/ptxas, else `ptxas` on PATH. Returns "" when there is
/// none, with `whyNone` saying so for the plan ("no ptxas").
std::string findPtxas(std::string &whyNone);

/// Runs `ptxas -arch=CHIP -v PTX -o /dev/null` and fills `kernels` by entry
/// name. Fails with `err` set when ptxas cannot be started or rejects the
/// PTX (its error lines, e.g. "uses too much shared data").
bool runPtxas(const std::string &ptxas, const std::string &chip,
              const std::string &ptxPath,
              std::map<std::string, PtxasKernel> &kernels, std::string &err);

} // namespace mirage_run

#endif // MIRAGE_RUN_PTXAS_H
