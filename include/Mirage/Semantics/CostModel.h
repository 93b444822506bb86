//===- CostModel.h - Analytic cost of a kernel graph on a GPU ---*- C++ -*-===//
//
// The search ranks verified candidates with this model, and the expansion
// of pre-defined kernels picks its tiles with it (KernelExpansion.h); it
// lives beside the launch plan it prices. Its estimate for the input and
// for the winner appear in the search report. It is a roofline
// per kernel with an L2 level, a per-SM bandwidth from the bytes the launch
// plan keeps in flight (Little's law), tensor cores or FMA as the plan says,
// serial reductions and a fixed launch overhead: see
// docs/Rationale/CostModel.md and LaunchPlan.md. Every figure comes from the
// target record (Target.h).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_COSTMODEL_H
#define MIRAGE_SEMANTICS_COSTMODEL_H

#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/Target.h"
#include "Mirage/Semantics/UGraph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <string>
#include <vector>

namespace mirage {

/// The estimate for one kernel-level op.
struct KernelCost {
  int32_t opIndex = -1;
  OpKind kind = OpKind::Custom;
  double dramBytes = 0;      // device-memory traffic after L2 reuse
  double l2Bytes = 0;        // all loads and stores (through L2)
  /// Custom kernels: per input of the block graph (the kernel's operands,
  /// in order), its tiles' loads by every block, so that a tensor several
  /// blocks re-read shows as more than its size.
  std::vector<double> inputLoadBytes;
  double flops = 0;          // all FLOPs
  double tensorFlops = 0;    // of which matmul FLOPs on tensor cores
  /// The work those MMAs issue: padded rows included (MatmulPlan::
  /// paddedRows: M to 16 rows, or to 8 tokens when transposed), at which
  /// the tensor-core time is priced.
  double tensorIssuedFlops = 0;
  /// Of which matmul FLOPs on FMA (custom kernels), priced by their plan's
  /// pipe cycles, not at the FMA peak (FmaMicroTiles.md).
  double fmaMatmulFlops = 0;
  /// One block's FMA matmul cycles, all runs (MatmulPlan::fmaPipeCycles
  /// and fmaIssueCycles).
  double fmaPipeCyclesPerBlock = 0, fmaIssueCyclesPerBlock = 0;
  int64_t matmuls = 0;       // block matmuls (custom kernels)
  int64_t tensorCoreMatmuls = 0; // of which on tensor cores (by the plan)
  int64_t blocks = 0;        // thread blocks launched
  int64_t smemBytes = 0;     // shared memory per block (Custom; 0 otherwise)
  int64_t blocksPerSM = 0;   // resident blocks per SM (occupancy)
  int64_t blocksOnBusiestSM = 0; // ceil(blocks / SMs)
  double smFill = 0;         // fraction of SM-time the grid keeps busy:
                             // blocks / (SMs × blocksOnBusiestSM)
  double bytesInFlightPerSM = 0; // the busiest SM's, by the plan
  double serialSeconds = 0;  // serial reduction chains (custom kernels):
                             // reported, not in `seconds` (CostModel.md)
  double memorySeconds = 0;  // max of the DRAM, L2 and per-SM times
  double computeSeconds = 0;
  double launchSeconds = 0;
  double seconds = 0;        // max(memory, compute) + launch
  bool fits = true;          // the plan launches on the target
  std::string note;          // why it does not fit, if so
  /// Runs at the end of the previous kernel's launch, by the last block of
  /// each group (TailCombine.md): `seconds` is the tail, with no launch.
  bool inTail = false;
};

struct GraphCost {
  std::string target;
  std::vector<KernelCost> kernels;
  double dramBytes = 0, l2Bytes = 0, flops = 0;
  int64_t blocks = 0;        // total over kernels
  int64_t maxSmemBytes = 0;  // largest per-block smem of any kernel
  double seconds = 0;
  bool fits = true;          // every kernel fits the target
  int64_t numKernels() const { return static_cast<int64_t>(kernels.size()); }
  double micros() const { return seconds * 1e6; }
  /// The FLOPs its tensor-core MMAs spend on padded rows (issued minus
  /// computed).
  double paddingFlops() const;
  /// A multi-line human-readable breakdown (one line per kernel + total).
  std::string describe() const;
};

/// Estimates `g` (a kernel-level graph) on `target`. Kernel ops are assumed
/// to run one after another (no overlap between kernels).
GraphCost estimateCost(const UGraph &g, const TargetInfo &target);
/// Same, by target name; an unknown name falls back to the default target
/// and sets `target` in the result to the name actually used.
GraphCost estimateCost(const UGraph &g,
                       llvm::StringRef targetName = kDefaultTarget);

/// Reprices `k`'s launch for its place in a graph: a kernel after the
/// graph's first launch (`firstLaunch` false) pays the target's chained
/// launch where the lowering chains kernels (gridDependencyControl). A tail
/// (no launch of its own) is left alone. estimateCost and the manifests of
/// mirage-kernels-to-ptx both price launches by it.
void priceLaunchAt(KernelCost &k, bool firstLaunch, const TargetInfo &target);

/// The cost of the graph-defined kernel with block graph `block` and
/// launch plan `plan` (what estimateCost computes for a Custom op).
KernelCost estimateKernel(const UGraph &block, const KernelPlan &plan,
                          const TargetInfo &target);

/// A lower bound on estimateCost of every kernel graph made of one
/// graph-defined kernel with `block`'s grid, for-loop and input iterators
/// (its other ops are ignored) whose savers write `savedBytes`: a kernel
/// takes max(memory, compute) + launch, and its traffic is fixed by its
/// iterators and savers, so its memory time plus the launch. The search
/// skips launch patterns whose floor cannot beat its best graph so far.
double trafficFloorSeconds(const UGraph &block, double savedBytes,
                           const TargetInfo &target);

/// The least launch a kernel pays anywhere in a graph: a chained one after
/// the first (estimateCost), the launch trafficFloorSeconds counts.
inline double leastLaunchSeconds(const TargetInfo &target) {
  return std::min(target.launchSeconds, target.chainedLaunchSeconds);
}

/// What a graph's first kernel pays for its launch beyond
/// leastLaunchSeconds: its launch is never chained.
inline double firstLaunchFloorSeconds(const TargetInfo &target) {
  return target.launchSeconds - leastLaunchSeconds(target);
}

/// Kernels that move at least this many DRAM bytes should fill the machine
/// (kernel-roofline.md, target 2).
inline constexpr double kFillBytes = 1e6;
/// What ranking charges a launch that leaves SMs idle (CostModel.md,
/// "Ranking: a charge for grids that leave SMs idle").
inline constexpr double kUnderfillCharge = 0.15;

/// Whether `k` fills the machine (TargetInfo::fillsMachine), or moves too
/// little to need to.
bool fillsMachine(const KernelCost &k, const TargetInfo &target);

/// The figure the search and the expansion order launches by: the
/// estimate `seconds` of `kernels`, plus kUnderfillCharge times the
/// estimate of each of them that does not fill the machine (charged where
/// the SMs idle, not on the whole graph). Never below `seconds`, so a lower
/// bound of the estimate bounds it too.
double rankingSeconds(double seconds, llvm::ArrayRef<KernelCost> kernels,
                      const TargetInfo &target);
inline double rankingSeconds(const GraphCost &c, const TargetInfo &target) {
  return rankingSeconds(c.seconds, c.kernels, target);
}

/// The hash behind the model's fingerprints (costModelFingerprint,
/// emittedCostFingerprint): FNV-1a over the bytes it is given, a double by
/// its bits, so any value that moves moves the hash. Not for hash tables:
/// a key the result cache stores and compares.
class FingerprintHash {
public:
  void add(llvm::StringRef text);
  void add(double value);
  /// The hash as 16 hex digits.
  std::string hex() const;

private:
  void addByte(unsigned char c);
  uint64_t h = 0xcbf29ce484222325ull;
};

/// A fingerprint of the model on `target`: the bits of its estimates for a
/// fixed set of probe graphs. Any change of a formula or a constant changes
/// it; the result cache keys on it, so cached winners ranked by another
/// model are never reused.
std::string costModelFingerprint(const TargetInfo &target);

/// FLOPs of one op of a kernel or block graph over its result shapes (a
/// ThreadGraph: its body's op count per result element); 0 for data movement.
double opFlops(const UGraph &g, const UOp &op);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_COSTMODEL_H
