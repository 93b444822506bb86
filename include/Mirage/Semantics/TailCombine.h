//===- TailCombine.h - A consumer kernel run by its producer's last blocks ===//
//
// When a kernel (the consumer) reads its predecessor's (the producer's)
// results only in tiles that a group of producer blocks wrote, the
// consumer's blocks of each group run at the end of the producer block that
// completes the group, and the consumer is not launched
// (docs/Rationale/TailCombine.md). The rule is stated here once: the cost
// model prices the fused launch by it and the lowering emits it.
//
// IR-free.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_TAILCOMBINE_H
#define MIRAGE_SEMANTICS_TAILCOMBINE_H

#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/Target.h"
#include "Mirage/Semantics/UGraph.h"

#include "llvm/ADT/ArrayRef.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mirage {

struct TailCombine {
  /// Kernel op indices of the graph: the consumer directly follows.
  int32_t producer = -1, consumer = -1;
  /// Per producer grid axis: the consumer axis it is tied to, or -1 (free:
  /// every block along it belongs to each group).
  std::array<int, 3> tiedTo{-1, -1, -1};
  /// Groups (the product of the tied producer extents), producer blocks
  /// per group (the free extents), consumer blocks per group (the untied
  /// consumer extents; planTailCombine accepts only 1).
  int64_t groups = 1;
  int64_t producerBlocksPerGroup = 1;
  int64_t consumerBlocksPerGroup = 1;
  /// The fused launch's blocks per SM: the producer's, or fewer where the
  /// consumer's shared memory lowers it and the tail still pays
  /// (TailCombine.md, "a tail that lowers the producer's occupancy").
  int64_t producerResidentBlocksPerSM = 1;
  /// What the fused launch saves against the two launches, by the model.
  double savedSeconds = 0;

  /// Whether consumer axis `c` is tied to a producer axis.
  bool consumerAxisTied(int c) const {
    return tiedTo[0] == c || tiedTo[1] == c || tiedTo[2] == c;
  }
  /// Per producer axis, its weight in the group number: the tied axes'
  /// coordinates linearized x-major over those axes, 0 for a free axis.
  /// groupOf and the lowering's group index both read it.
  std::array<int64_t, 3> groupStrides(const GridDims &producerGrid) const;
  /// The group of producer block `p` (x, y, z).
  int64_t groupOf(const std::array<int64_t, 3> &p,
                  const GridDims &producerGrid) const;
  /// The consumer block of the group of producer block `p`: the tied axes
  /// take p's coordinates, the others (extent 1) are 0.
  std::array<int64_t, 3> consumerBlock(const std::array<int64_t, 3> &p) const;
};

/// The shared word through which the producer block's thread 0 tells the
/// others whether it completed its group.
constexpr int64_t kTailCombineFlagBytes = 4;

/// The shared memory of the fused kernel: both plans' buffers and the flag
/// word, laid out as one kernel's (sharedLayoutBytes).
int64_t tailCombineSharedBytes(const KernelPlan &producerPlan,
                               const KernelPlan &consumerPlan,
                               const TargetInfo &target, bool &dynamic);

/// Whether kernel op `producer` of kernel graph `g` and the op after it run
/// as one launch (TailCombine.md); `why` says why not. The kernels' plans
/// are `producerPlan` and `consumerPlan` on `target`; `producerOwnSeconds`
/// and `consumerOwnSeconds`, the kernels' estimates as their own launches,
/// where the caller has them (estimateCost), else they are computed here.
std::optional<TailCombine>
planTailCombine(const UGraph &g, int32_t producer,
                const KernelPlan &producerPlan, const KernelPlan &consumerPlan,
                const TargetInfo &target, std::string *why = nullptr,
                std::optional<double> producerOwnSeconds = std::nullopt,
                std::optional<double> consumerOwnSeconds = std::nullopt);

/// The tails of kernel graph `g`: per kernel op, whether it runs in its
/// predecessor's launch. A kernel that does is not the producer of
/// another, so of two overlapping pairs (i - 1, i) and (i, i + 1) at most
/// one fuses: the pairs are chosen for the most seconds saved in all (on a
/// tie, the earlier pair). `plans[i]` is kernel op i's plan (null where it
/// has none); `ownSeconds`, where given, each kernel's estimate as its own
/// launch. The cost model and the lowering both take the tails from here.
std::vector<std::optional<TailCombine>>
planTails(const UGraph &g, llvm::ArrayRef<const KernelPlan *> plans,
          const TargetInfo &target, llvm::ArrayRef<double> ownSeconds = {});

/// The producer's plan in the fused launch of `t`: `producerPlan` with the
/// fused kernel's shared memory (both plans' buffers and the flag) and
/// `t`'s blocks per SM; its stages, threads and register budget as they
/// are. The model prices the producer by it and the lowering emits it.
KernelPlan fusedProducerPlan(const TailCombine &t,
                             const KernelPlan &producerPlan,
                             const KernelPlan &consumerPlan,
                             const TargetInfo &target);

/// The seconds the consumer's block of one group takes after its producer
/// block (TailCombine.md, "Cost"): its round trips at L2 latency, its loads
/// and stores at one SM's bandwidth, its serial steps, plus one DRAM round
/// trip for the counter.
double tailCombineSeconds(const TailCombine &t, const KernelPlan &consumerPlan,
                          int64_t consumerForloop, const TargetInfo &target);

/// A lower bound of tailCombineSeconds on `target` (what a split pair's
/// floor may count for its combine): the counter's round trip, and one
/// consumer block's reads of the producer's results, at least one round
/// trip at L2 latency (a consumer reads them, or it would not be one).
inline double tailCombineFloorSeconds(const TargetInfo &target) {
  return target.dramLatencySeconds + target.l2LatencySeconds;
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_TAILCOMBINE_H
