//===- KernelExpansion.h - Pre-defined kernels as block graphs --*- C++ -*-===//
//
// Rewrites every pre-defined kernel op (matmul, element-wise, reduce,
// rms_norm, concat) of a kernel graph into a graph-defined kernel whose block
// graph computes the same function, so that one code generator lowers both
// the unfused reference and the fused μGraph (docs/Rationale/Lowering.md).
// The result is an ordinary μGraph: the evaluator checks every expansion.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_KERNELEXPANSION_H
#define MIRAGE_SEMANTICS_KERNELEXPANSION_H

#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/UGraph.h"

#include <optional>

namespace mirage {

struct KernelExpansionOptions {
  /// Output tile of a matmul kernel (rows × cols) and its K step.
  int64_t matmulTileM = 64, matmulTileN = 64, matmulTileK = 32;
  /// Elements of one block's tile for element-wise and row kernels.
  int64_t elementwiseTileElems = 2048;
  /// Shared-memory bytes one block may use; 0: the graph's target's
  /// (Target.h; beyond 48 KB the GPU path uses dynamic shared memory).
  int64_t sharedMemoryBytes = 0;
};

/// The graph with every pre-defined kernel op replaced by a custom kernel,
/// or std::nullopt with `error` naming the op and the reason.
std::optional<UGraph> expandPredefinedKernels(const UGraph &g,
                                              const KernelExpansionOptions &o,
                                              std::string &error);

/// Whether `g` has a pre-defined kernel op, i.e. whether its expansion
/// differs from it.
bool hasPredefinedKernels(const UGraph &g);

/// The cost of `g` on `target` as the code generator emits it
/// (docs/Rationale/PricingAsEmitted.md): its pre-defined kernels expanded
/// with the code generator's options, for `target`, and priced as the
/// custom kernels they become. A graph without pre-defined kernels is
/// priced as it is; one whose expansion fails is priced as written
/// (library kernels), since its lowering refuses it with its own reason.
GraphCost estimateEmittedCost(const UGraph &g, const TargetInfo &target);

/// costModelFingerprint extended by the bits of estimateEmittedCost for a
/// fixed set of graphs of pre-defined kernels: any change of the
/// expansion's rules that moves what the search compares against (its
/// tiles, its splits) changes it too. The result cache keys on it when
/// the search prices graphs as emitted.
std::string emittedCostFingerprint(const TargetInfo &target);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_KERNELEXPANSION_H
