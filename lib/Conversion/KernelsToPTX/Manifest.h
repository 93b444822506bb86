//===- Manifest.h - The launch manifest mirage-run reads --------*- C++ -*-===//
#ifndef MIRAGE_LIB_CONVERSION_KERNELSTOPTX_MANIFEST_H
#define MIRAGE_LIB_CONVERSION_KERNELSTOPTX_MANIFEST_H

#include "Mirage/Conversion/KernelToLoops.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mirage {

struct ManifestInfo {
  std::string chip;
  std::string ptxFile;
  uint64_t seed = 1;
  double tolerance = 0;
  /// Per output position: the expected-values file, or empty.
  std::vector<std::string> expectedFiles;
  /// Per kernel name: dynamic and static shared memory bytes.
  llvm::StringMap<int64_t> dynamicSharedBytes, staticSharedBytes;
  /// Per kernel name: the cost model's estimate of its plan.
  struct Estimate {
    double seconds = 0;
    /// The parts of `seconds` (CostModel.md), for calibration against a
    /// GPU's times (bench/gpu/calibrate.py): seconds = max(memory, compute)
    /// + launch + tail.
    double memorySeconds = 0, computeSeconds = 0, launchSeconds = 0;
    double tailSeconds = 0; // a tail combine's (TailCombine.md), or 0
    double tileBytes = 0; // loads and stores through L2, every block's
    double dramBytes = 0; // after L2 reuse
    /// Per kernel argument: the loads of its tiles, every block's (0 for
    /// the outputs).
    std::vector<double> argLoadBytes;
  };
  llvm::StringMap<Estimate> estimates;
  /// Kernels that start with griddepcontrol.wait: mirage-run launches them
  /// as programmatic dependents of the kernel before (Lowering.md).
  llvm::StringSet<> waitsOnPrevious;
};

/// The JSON text of a `mirage-run-manifest-1` manifest for `plan`
/// (format: tools/mirage-run/README.md).
std::string writeManifest(const LaunchPlan &plan, const ManifestInfo &info);

} // namespace mirage

#endif // MIRAGE_LIB_CONVERSION_KERNELSTOPTX_MANIFEST_H
