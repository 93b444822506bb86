//===- TailCombine.cpp - A consumer kernel run by its producer's last blocks ==//
//
// docs/Rationale/TailCombine.md: the groups of a producer/consumer pair,
// from the producer's savers and the consumer's iterators.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/TailCombine.h"
#include "Mirage/Semantics/CostModel.h"

#include <algorithm>

using namespace mirage;

std::array<int64_t, 3>
TailCombine::groupStrides(const GridDims &producerGrid) const {
  std::array<int64_t, 3> strides{0, 0, 0};
  int64_t stride = 1;
  for (int a = 0; a < 3; ++a)
    if (tiedTo[a] >= 0) {
      strides[a] = stride;
      stride *= producerGrid[a];
    }
  return strides;
}

int64_t TailCombine::groupOf(const std::array<int64_t, 3> &p,
                             const GridDims &producerGrid) const {
  std::array<int64_t, 3> strides = groupStrides(producerGrid);
  return p[0] * strides[0] + p[1] * strides[1] + p[2] * strides[2];
}

std::array<int64_t, 3>
TailCombine::consumerBlock(const std::array<int64_t, 3> &p) const {
  std::array<int64_t, 3> c{0, 0, 0};
  for (int a = 0; a < 3; ++a)
    if (tiedTo[a] >= 0)
      c[tiedTo[a]] = p[a];
  return c;
}

int64_t mirage::tailCombineSharedBytes(const KernelPlan &p,
                                       const KernelPlan &c,
                                       const TargetInfo &target,
                                       bool &dynamic) {
  std::vector<int64_t> buffers;
  for (const KernelPlan *plan : {&p, &c})
    for (const TilePlan &t : plan->tiles)
      buffers.push_back(t.bytes * t.buffers);
  buffers.push_back(kTailCombineFlagBytes);
  return sharedLayoutBytes(buffers, target, dynamic);
}

std::optional<TailCombine> mirage::planTailCombine(
    const UGraph &g, int32_t producer, const KernelPlan &producerPlan,
    const KernelPlan &consumerPlan, const TargetInfo &target, std::string *why,
    std::optional<double> producerOwnSeconds,
    std::optional<double> consumerOwnSeconds) {
  auto fail = [&](const char *reason) -> std::optional<TailCombine> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  if (producer < 0 || static_cast<size_t>(producer) + 1 >= g.ops.size())
    return fail("no kernel follows");
  const UOp &p = g.ops[producer], &c = g.ops[producer + 1];
  if (p.kind != OpKind::Custom || c.kind != OpKind::Custom)
    return fail("not two graph-defined kernels");
  if (!producerPlan.launchable || !consumerPlan.launchable)
    return fail("a kernel does not launch");
  // The consumer's phases run in the producer's block; a block wider than
  // they are leaves its other threads out of them (WideBlocks.md).
  if (consumerPlan.threads > producerPlan.threads)
    return fail("the consumer needs more threads than the producer's block");
  bool dynamic = false;
  int64_t shared =
      tailCombineSharedBytes(producerPlan, consumerPlan, target, dynamic);
  const int64_t resident =
      residentBlocksPerSM(shared, producerPlan.threads, target);
  if (shared > target.smemBytesPerBlock || resident < 1)
    return fail("the two kernels' shared memory exceeds a block's");
  // Lowering the producer's occupancy is weighed for combines only: the
  // tail's price counts round trips, bytes and serial steps, not a
  // consumer's matrix products (TailCombine.md, "a tail that lowers the
  // producer's occupancy").
  if (resident < producerPlan.residentBlocksPerSM &&
      !consumerPlan.matmuls.empty())
    return fail("the consumer's shared memory lowers the producer's "
                "occupancy");

  const UGraph &pb = g.bodies[p.body], &cb = g.bodies[c.body];
  // Per producer axis: the consumer axis it is tied to so far (-2: not yet
  // seen in any result the consumer reads), or free.
  std::array<int, 3> tied{-2, -2, -2};
  std::array<bool, 3> free{false, false, false};
  bool readsProducer = false;
  for (size_t i = 0; i < c.operands.size(); ++i) {
    auto it = std::find(p.results.begin(), p.results.end(), c.operands[i]);
    if (it == p.results.end())
      continue; // a graph input or an earlier kernel's result: complete
    readsProducer = true;
    const UOp &saver = pb.ops[pb.values[pb.outputs[it - p.results.begin()]].def];
    for (const UOp &iter : cb.ops) {
      if (iter.kind != OpKind::InputIterator ||
          iter.operands[0] != cb.inputs[i])
        continue;
      for (int a = 0; a < 3; ++a) {
        if (pb.grid[a] == 1)
          continue;
        const int64_t d = saver.map[a];
        int match = -1;
        for (int ca = 0; ca < 3 && d >= 0; ++ca)
          if (iter.map[ca] == d && iter.fmap != d && cb.grid[ca] == pb.grid[a])
            match = ca;
        if (match < 0 || (tied[a] != -2 && tied[a] != match))
          free[a] = true;
        else
          tied[a] = match;
      }
    }
  }
  if (!readsProducer)
    return fail("the consumer reads none of the producer's results");

  TailCombine t;
  t.producer = producer;
  t.consumer = producer + 1;
  for (int a = 0; a < 3; ++a) {
    if (pb.grid[a] > 1 && !free[a] && tied[a] >= 0) {
      if (t.consumerAxisTied(tied[a]))
        return fail("two producer axes tied to one consumer axis");
      t.tiedTo[a] = tied[a];
      t.groups *= pb.grid[a];
    } else {
      t.producerBlocksPerGroup *= pb.grid[a];
    }
  }
  for (int a = 0; a < 3; ++a)
    if (!t.consumerAxisTied(a))
      t.consumerBlocksPerGroup *= cb.grid[a];
  // One consumer block per group: several would run one after another on
  // one SM, a round trip each, where their own launch spreads them.
  if (t.consumerBlocksPerGroup != 1)
    return fail("more than one consumer block per group");
  // Only where the fused launch is cheaper than the two: the tail against
  // the consumer's own launch, and where the consumer's shared memory
  // lowers the producer's blocks per SM, the producer at that residency
  // against the producer as planned.
  t.producerResidentBlocksPerSM =
      std::min(resident, producerPlan.residentBlocksPerSM);
  if (!consumerOwnSeconds)
    consumerOwnSeconds = estimateKernel(cb, consumerPlan, target).seconds;
  double lowered = 0;
  if (t.producerResidentBlocksPerSM < producerPlan.residentBlocksPerSM) {
    if (!producerOwnSeconds)
      producerOwnSeconds = estimateKernel(pb, producerPlan, target).seconds;
    lowered = estimateKernel(
                  pb, fusedProducerPlan(t, producerPlan, consumerPlan, target),
                  target)
                  .seconds -
              *producerOwnSeconds;
  }
  t.savedSeconds =
      *consumerOwnSeconds -
      (lowered + tailCombineSeconds(t, consumerPlan, cb.forloopRange, target));
  if (t.savedSeconds <= 0)
    return fail(t.producerResidentBlocksPerSM < producerPlan.residentBlocksPerSM
                    ? "at the occupancy the consumer's shared memory leaves "
                      "the producer, two launches are faster"
                    : "the consumer is faster as its own launch");
  return t;
}

std::vector<std::optional<TailCombine>>
mirage::planTails(const UGraph &g, llvm::ArrayRef<const KernelPlan *> plans,
                  const TargetInfo &target, llvm::ArrayRef<double> ownSeconds) {
  const size_t n = g.ops.size();
  // pair[i]: kernel i in kernel i - 1's launch, where that pays.
  std::vector<std::optional<TailCombine>> pair(n), tails(n);
  for (size_t i = 1; i < n; ++i)
    if (plans[i - 1] && plans[i])
      pair[i] = planTailCombine(
          g, static_cast<int32_t>(i - 1), *plans[i - 1], *plans[i], target,
          /*why=*/nullptr,
          ownSeconds.empty() ? std::nullopt
                             : std::optional<double>(ownSeconds[i - 1]),
          ownSeconds.empty() ? std::nullopt
                             : std::optional<double>(ownSeconds[i]));
  // best[i + 1]: the most saved over kernels 0 .. i, pairs not sharing a
  // kernel (a path's maximum matching).
  std::vector<double> best(n + 1, 0);
  for (size_t i = 1; i < n; ++i) {
    best[i + 1] = best[i];
    if (pair[i] && best[i - 1] + pair[i]->savedSeconds > best[i + 1])
      best[i + 1] = best[i - 1] + pair[i]->savedSeconds;
  }
  for (size_t i = n; i-- > 1;) {
    if (best[i + 1] == best[i])
      continue; // kernel i launches by itself
    tails[i] = std::move(pair[i]);
    --i; // kernel i - 1 is its producer
  }
  return tails;
}

KernelPlan mirage::fusedProducerPlan(const TailCombine &t,
                                     const KernelPlan &producerPlan,
                                     const KernelPlan &consumerPlan,
                                     const TargetInfo &target) {
  KernelPlan plan = producerPlan;
  plan.sharedBytes = tailCombineSharedBytes(producerPlan, consumerPlan, target,
                                            plan.dynamicShared);
  plan.residentBlocksPerSM = t.producerResidentBlocksPerSM;
  return plan;
}

double mirage::tailCombineSeconds(const TailCombine &,
                                  const KernelPlan &consumerPlan,
                                  int64_t consumerForloop,
                                  const TargetInfo &target) {
  const double loop = static_cast<double>(std::max<int64_t>(1, consumerForloop));
  // At least one: a consumer reads its producer's results.
  const double trips =
      std::max(1.0, static_cast<double>(consumerPlan.onceRoundTrips) +
                        static_cast<double>(consumerPlan.loopRoundTrips) * loop);
  const double bytes = static_cast<double>(consumerPlan.onceLoadBytes) +
                       static_cast<double>(consumerPlan.loopLoadBytes) * loop +
                       static_cast<double>(consumerPlan.storeBytes);
  const double serial = static_cast<double>(consumerPlan.serialSteps) *
                        target.serialStepCycles / target.clockHz;
  // One consumer block per group (planTailCombine).
  return trips * target.l2LatencySeconds + bytes / target.smBytesPerSecond +
         serial + target.dramLatencySeconds;
}
