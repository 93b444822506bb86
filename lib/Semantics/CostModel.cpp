//===- CostModel.cpp - Analytic cost of a kernel graph on a GPU -----------===//
//
// See docs/Rationale/CostModel.md for the model.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/BlockSchedule.h"
#include "Mirage/Semantics/TailCombine.h"
#include "Mirage/Semantics/TileCopy.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

using namespace mirage;

static double elems(const UValue &v) {
  return static_cast<double>(numElements(v.shape));
}

/// FLOPs of a graph-defined kernel with block graph `b` whose op i runs
/// `runs[i]` times per block (timesRun: in-loop ops and accumulators once
/// per iteration, the rest once), in every block.
static double blockGraphFlops(const UGraph &b, llvm::ArrayRef<int64_t> runs) {
  double perBlock = 0;
  for (size_t i = 0; i < b.ops.size(); ++i)
    perBlock += opFlops(b, b.ops[i]) * static_cast<double>(runs[i]);
  return perBlock * static_cast<double>(b.grid[0] * b.grid[1] * b.grid[2]);
}

double mirage::opFlops(const UGraph &g, const UOp &op) {
  if (op.results.empty())
    return 0;
  const UValue &out = g.values[op.results.front()];
  switch (op.kind) {
  case OpKind::Matmul: {
    const UValue &a = g.values[op.operands[0]];
    double k = a.shape.empty() ? 1 : static_cast<double>(a.shape.back());
    return 2 * elems(out) * k;
  }
  case OpKind::Unary:
  case OpKind::Binary:
    return elems(out);
  case OpKind::Reduce:
    return elems(g.values[op.operands[0]]);
  case OpKind::RunningMax: // a row max per iteration, and one max with prev
    return elems(g.values[op.operands[0]]) + elems(out);
  case OpKind::RmsNorm: {
    // square, sum, scale by rsqrt (+ weight); one rsqrt per row.
    const UValue &x = g.values[op.operands[0]];
    double rows = x.shape.empty() ? 1 : elems(x) / static_cast<double>(x.shape.back());
    return (op.operands.size() > 1 ? 4 : 3) * elems(x) + rows;
  }
  case OpKind::Accum: {
    double in = elems(g.values[op.operands[0]]);
    switch (op.accumKind()) {
    case AccumKind::rms_last: // square and add
      return 2 * in;
    case AccumKind::sum:
    case AccumKind::sum_last:
    case AccumKind::mean_last:
    case AccumKind::max: // one add (or max), plus the rescale's multiply
      return in + (op.operands.size() > 1 ? elems(out) : 0);
    }
    return in;
  }
  case OpKind::ThreadGraph: {
    if (op.body < 0 || op.body >= static_cast<int32_t>(g.bodies.size()))
      return 0;
    return static_cast<double>(g.bodies[op.body].ops.size()) * elems(out);
  }
  case OpKind::Custom: {
    if (op.body < 0 || op.body >= static_cast<int32_t>(g.bodies.size()))
      return 0;
    const UGraph &body = g.bodies[op.body];
    BlockSchedule sched = scheduleBlock(body);
    llvm::SmallVector<int64_t, 16> runs;
    for (size_t i = 0; i < body.ops.size(); ++i)
      runs.push_back(timesRun(body, sched, i));
    return blockGraphFlops(body, runs);
  }
  case OpKind::Concat:
  case OpKind::InputIterator:
  case OpKind::OutputSaver:
    return 0;
  }
  return 0;
}

static bool isHalf(ElemType t) {
  return t == ElemType::F16 || t == ElemType::BF16;
}

namespace {
/// DRAM and L2 move memory in sectors of this many bytes.
constexpr double kSectorBytes = 32;

/// Where a kernel's loads come from and how many it keeps in flight.
struct LoadProfile {
  double loadBytes = 0;      // all loads through L2 (every block)
  double storeBytes = 0;     // all stores
  /// Bytes one block keeps in flight; 0: the kernel streams at the SM's
  /// bandwidth (library kernels, assumed pipelined).
  double inFlightPerBlock = 0;
  int64_t residentPerSM = 0; // 0: the target's block cap
  double serialSteps = 0;    // per block
  /// The loop's copies run ahead (the plan's stages > 1), or the kernel
  /// streams like a library kernel: bytes stay in flight.
  bool pipelined = true;
};

struct Estimator {
  const TargetInfo &t;

  /// Memory: the largest of DRAM traffic at DRAM bandwidth, all traffic at
  /// L2 bandwidth, the busiest SM's traffic at the bandwidth its
  /// resident blocks sustain: one SM's L2 bandwidth, or the bytes they keep
  /// in flight per DRAM latency (Little's law) if fewer; and the busiest
  /// SM's share of DRAM traffic at one SM's DRAM ceiling. Compute: the FLOPs
  /// at the peaks of the instructions the plan uses, scaled by the fraction
  /// of SM-time the grid keeps busy; FMA matmuls at their plan's pipe
  /// cycles on the busiest SM. Serial reduction chains are computed
  /// beside the time, not added to it.
  void finish(KernelCost &k, const LoadProfile &lp) const {
    int64_t blocks = std::max<int64_t>(1, k.blocks);
    k.blocksOnBusiestSM = (blocks + t.numSMs - 1) / t.numSMs;
    k.smFill = static_cast<double>(blocks) /
               static_cast<double>(t.numSMs * k.blocksOnBusiestSM);
    double eff = t.memoryEfficiency;
    // Library kernels balance their work over the SMs they use (stream-K,
    // persistent grids); a custom kernel's busiest SM runs ⌈b/N⌉ blocks.
    const bool library = lp.inFlightPerBlock <= 0;
    double share =
        library ? 1.0 / static_cast<double>(std::min<int64_t>(blocks, t.numSMs))
                : static_cast<double>(k.blocksOnBusiestSM) /
                      static_cast<double>(blocks);
    int64_t cap = lp.residentPerSM > 0 ? lp.residentPerSM : t.maxBlocksPerSM;
    int64_t resident = std::max<int64_t>(1, std::min(cap, k.blocksOnBusiestSM));
    double smBandwidth = t.smBytesPerSecond * eff;
    double smDram = t.smDramBytesPerSecond() * eff;
    // A byte an SM moves crosses its L2 port, and the DRAM part of the
    // traffic also its share of DRAM (CostModel.md, "An SM's share of
    // DRAM"): the rate one round trip's bytes arrive at.
    double moved = lp.loadBytes + lp.storeBytes;
    double dramFraction = moved > 0 ? std::min(1.0, k.dramBytes / moved) : 0;
    double transfer =
        1.0 / std::max(1.0 / smBandwidth, dramFraction / smDram);
    double loadBandwidth = transfer;
    if (!library) {
      k.bytesInFlightPerSM = lp.inFlightPerBlock * static_cast<double>(resident);
      loadBandwidth =
          sustainedSMBandwidth(lp.inFlightPerBlock, static_cast<double>(resident),
                               lp.pipelined, transfer, t);
    }
    double busiestSM = lp.loadBytes * share / loadBandwidth +
                       lp.storeBytes * share / smBandwidth;
    double dram = k.dramBytes / (t.dramBytesPerSecond * eff);
    double l2 = k.l2Bytes / (t.l2BytesPerSecond * eff);
    // The busiest SM's share of the DRAM traffic at what one SM can pull
    // from DRAM: a grid reaches DRAM's bandwidth only with most SMs busy.
    double busiestDram = k.dramBytes * share / smDram;
    k.memorySeconds = std::max({dram, l2, busiestSM, busiestDram});
    double tc = t.mma.flopsPerSecond * t.computeEfficiency * k.smFill;
    double cc = t.fp32FlopsPerSecond * t.computeEfficiency * k.smFill;
    // Rounds of resident blocks on the busiest SM.
    double rounds = std::ceil(static_cast<double>(k.blocksOnBusiestSM) /
                              static_cast<double>(resident));
    // An FMA matmul runs at its plan's cycles (FmaMicroTiles.md): the
    // busiest SM's blocks share its busier pipe, and each round of resident
    // blocks takes at least a block's own issue time.
    double fmaMatmul = std::max(k.fmaPipeCyclesPerBlock *
                                    static_cast<double>(k.blocksOnBusiestSM),
                                k.fmaIssueCyclesPerBlock * rounds) /
                       (t.clockHz * t.computeEfficiency);
    k.computeSeconds =
        k.tensorIssuedFlops / tc +
        std::max(0.0, k.flops - k.tensorFlops - k.fmaMatmulFlops) / cc +
        fmaMatmul;
    // A serial chain runs once per round of resident blocks on the SM.
    k.serialSeconds =
        lp.serialSteps * t.serialStepCycles / t.clockHz * rounds;
    k.launchSeconds = t.launchSeconds;
    // The serial chains are reported, not ranked: see CostModel.md,
    // "Serial chains" (no traffic floor can see them, and with them in the
    // estimate branch and bound stopped bounding any reduction workload).
    k.seconds = std::max(k.memorySeconds, k.computeSeconds) + k.launchSeconds;
  }

  KernelCost predefined(const UGraph &g, const UOp &op,
                        LoadProfile &lp) const {
    KernelCost k;
    k.kind = op.kind;
    llvm::SmallDenseSet<int32_t, 4> seen;
    double inElems = 0, outElems = 0;
    for (int32_t a : op.operands)
      if (seen.insert(a).second) {
        k.dramBytes += bytesOf(g.values[a]);
        lp.loadBytes += bytesOf(g.values[a]);
        inElems = std::max(inElems, elems(g.values[a]));
      }
    for (int32_t r : op.results) {
      k.dramBytes += bytesOf(g.values[r]);
      lp.storeBytes += bytesOf(g.values[r]);
      outElems = std::max(outElems, elems(g.values[r]));
    }
    k.l2Bytes = k.dramBytes;
    k.flops = opFlops(g, op);
    if (op.kind == OpKind::Matmul && isHalf(g.values[op.operands[0]].type))
      k.tensorFlops = k.tensorIssuedFlops = k.flops;
    if (op.kind == OpKind::Matmul) {
      // A library GEMM picks tiles (and split-K) to fill the machine.
      const UValue &out = g.values[op.results.front()];
      int64_t m = out.shape.size() >= 2 ? out.shape[out.shape.size() - 2] : 1;
      int64_t n = out.shape.empty() ? 1 : out.shape.back();
      int64_t batch = numElements(out.shape) / std::max<int64_t>(1, m * n);
      int64_t tiles = batch * ((m + 127) / 128) * ((n + 127) / 128);
      k.blocks = std::max<int64_t>(t.numSMs, tiles);
    } else {
      double e = std::max(inElems, outElems);
      k.blocks = std::max<int64_t>(
          1, static_cast<int64_t>(std::ceil(e / t.libraryElemsPerBlock)));
    }
    k.blocksPerSM = t.maxBlocksPerSM;
    return k;
  }

  /// An input iterator's loads: its tile per block and per iteration (once
  /// per block with fmap φ), in whole 32-byte sectors: a tile whose
  /// contiguous runs in the device tensor (TileCopy.h: its rows, or rows
  /// and the trailing dims it holds whole) are narrower than a sector moves
  /// the rest of the sector too.
  void addIteratorTraffic(const UGraph &b, const UOp &it, KernelCost &k,
                          LoadProfile &lp) const {
    const UValue &tile = b.values[it.results.front()];
    const UValue &dev = b.values[it.operands.front()];
    double blocks = static_cast<double>(b.grid[0] * b.grid[1] * b.grid[2]);
    double loads = it.fmap >= 0 ? static_cast<double>(b.forloopRange) : 1;
    const int64_t elemBytes = elemTypeBytes(tile.type);
    // Runs as the tensor lies (OperandLayouts.md).
    Shape stored = storedShape(b, it.operands.front());
    double row = static_cast<double>(
        copyRun(storedShape(b, it.results.front()), stored, stored, elemBytes)
            .elements *
        elemBytes);
    double sectors = std::ceil(row / kSectorBytes) * kSectorBytes / row;
    double total = bytesOf(tile) * sectors * loads * blocks;
    double unique = std::min(total, bytesOf(dev));
    k.l2Bytes += total;
    lp.loadBytes += total;
    auto pos = llvm::find(b.inputs, it.operands.front());
    k.inputLoadBytes.resize(b.inputs.size(), 0);
    if (pos != b.inputs.end())
      k.inputLoadBytes[pos - b.inputs.begin()] += total;
    // Re-reads of a tensor by several blocks hit L2 if it fits there.
    k.dramBytes += unique <= t.l2Bytes ? unique : total;
  }

  void addSaverTraffic(const UGraph &b, const UOp &saver, KernelCost &k,
                       LoadProfile &lp) const {
    double saved = bytesOf(b.values[saver.results.front()]);
    k.l2Bytes += saved;
    k.dramBytes += saved;
    lp.storeBytes += saved;
  }

  KernelCost custom(const UGraph &b, const KernelPlan &plan,
                    LoadProfile &lp) const {
    KernelCost k;
    k.kind = OpKind::Custom;
    k.blocks = b.grid[0] * b.grid[1] * b.grid[2];
    double blocks = static_cast<double>(k.blocks);
    for (const UOp &bo : b.ops) {
      if (bo.kind == OpKind::InputIterator)
        addIteratorTraffic(b, bo, k, lp);
      else if (bo.kind == OpKind::OutputSaver)
        addSaverTraffic(b, bo, k, lp);
    }
    // The plan's run counts (its schedule's), not a second schedule.
    for (const MatmulPlan &m : plan.matmuls) {
      ++k.matmuls;
      double runs = static_cast<double>(plan.timesRun[m.op]);
      double flops = opFlops(b, b.ops[m.op]) * blocks * runs;
      if (!m.tensorCores) {
        k.fmaMatmulFlops += flops;
        k.fmaPipeCyclesPerBlock += m.fmaPipeCycles * runs;
        k.fmaIssueCyclesPerBlock += m.fmaIssueCycles * runs;
        continue;
      }
      ++k.tensorCoreMatmuls;
      k.tensorFlops += flops;
      // The MMAs multiply the padded rows too.
      const Shape &as = b.values[b.ops[m.op].operands[0]].shape;
      double rows = static_cast<double>(as[as.size() - 2]);
      k.tensorIssuedFlops +=
          flops * static_cast<double>(std::max<int64_t>(1, m.paddedRows)) /
          std::max(1.0, rows);
    }
    k.flops = blockGraphFlops(b, plan.timesRun);
    k.smemBytes = plan.sharedBytes;
    k.blocksPerSM = plan.launchable ? plan.residentBlocksPerSM : 0;
    k.fits = plan.launchable;
    k.note = plan.whyNotLaunchable;
    lp.inFlightPerBlock = plan.bytesInFlightPerBlock;
    lp.residentPerSM = std::max<int64_t>(1, plan.residentBlocksPerSM);
    lp.serialSteps = static_cast<double>(plan.serialSteps);
    lp.pipelined = plan.stages > 1;
    return k;
  }
};
} // namespace

KernelCost mirage::estimateKernel(const UGraph &block, const KernelPlan &plan,
                                  const TargetInfo &target) {
  Estimator est{target};
  LoadProfile lp;
  KernelCost k = est.custom(block, plan, lp);
  est.finish(k, lp);
  return k;
}

void mirage::priceLaunchAt(KernelCost &k, bool firstLaunch,
                           const TargetInfo &target) {
  // The lowering chains every kernel after a graph's first as a
  // programmatic dependent of the one before (Lowering.md): its launch
  // overlaps that kernel (Target.h, chainedLaunchSeconds).
  if (firstLaunch || k.inTail || k.launchSeconds <= 0 ||
      !target.gridDependencyControl)
    return;
  k.seconds += target.chainedLaunchSeconds - k.launchSeconds;
  k.launchSeconds = target.chainedLaunchSeconds;
}

GraphCost mirage::estimateCost(const UGraph &g, const TargetInfo &target) {
  Estimator est{target};
  GraphCost c;
  c.target = target.name.str();
  // Each custom kernel's plan; a kernel that runs in the tail of the one
  // before it (TailCombine.md) is priced as that tail, without a launch.
  std::vector<std::optional<KernelPlan>> plans(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].kind == OpKind::Custom && g.ops[i].body >= 0 &&
        g.ops[i].body < static_cast<int32_t>(g.bodies.size()))
      plans[i] = planKernel(g.bodies[g.ops[i].body], target);
  // Each custom kernel's estimate as its own launch, once: it prices the
  // kernels that launch, and the tail decision compares against it.
  std::vector<std::optional<KernelCost>> own(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (plans[i])
      own[i] = estimateKernel(g.bodies[g.ops[i].body], *plans[i], target);
  // tails[i]: kernel i runs in kernel i - 1's launch (as the lowering
  // decides: planTails).
  std::vector<const KernelPlan *> planned(g.ops.size(), nullptr);
  std::vector<double> ownSeconds(g.ops.size(), 0);
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (plans[i]) {
      planned[i] = &*plans[i];
      ownSeconds[i] = own[i]->seconds;
    }
  std::vector<std::optional<TailCombine>> tails =
      planTails(g, planned, target, ownSeconds);
  bool launched = false;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const UOp &op = g.ops[i];
    KernelCost k;
    const std::optional<TailCombine> &tail = tails[i];
    if (op.kind != OpKind::Custom) {
      LoadProfile lp;
      k = est.predefined(g, op, lp);
      est.finish(k, lp);
    } else if (!plans[i]) {
      k.kind = OpKind::Custom;
      k.fits = false;
      k.note = "custom op without a body";
    } else {
      const UGraph &b = g.bodies[op.body];
      k = *own[i];
      // A producer allocates its tail's tiles too, at the fused launch's
      // blocks per SM (planTailCombine).
      if (i + 1 < g.ops.size() && tails[i + 1]) {
        KernelPlan fused =
            fusedProducerPlan(*tails[i + 1], *plans[i], *plans[i + 1], target);
        if (fused.residentBlocksPerSM != plans[i]->residentBlocksPerSM)
          k = estimateKernel(b, fused, target);
        k.smemBytes = fused.sharedBytes;
      }
      if (tail) {
        k.inTail = true;
        k.launchSeconds = 0;
        k.seconds = tailCombineSeconds(*tail, *plans[i], b.forloopRange,
                                       target);
      }
    }
    if (!k.inTail && k.launchSeconds > 0) {
      priceLaunchAt(k, !launched, target);
      launched = true;
    }
    k.opIndex = static_cast<int32_t>(i);
    c.dramBytes += k.dramBytes;
    c.l2Bytes += k.l2Bytes;
    c.flops += k.flops;
    c.blocks += k.blocks;
    c.maxSmemBytes = std::max(c.maxSmemBytes, k.smemBytes);
    c.seconds += k.seconds;
    c.fits = c.fits && k.fits;
    c.kernels.push_back(std::move(k));
  }
  return c;
}

double mirage::trafficFloorSeconds(const UGraph &block, double savedBytes,
                                   const TargetInfo &target) {
  // The most any plan with these iterators keeps in flight: its largest
  // load of one round trip (an iteration's tiles, or the loop-invariant
  // ones) as many iterations ahead as the deepest pipeline, with as many
  // blocks resident as the iterator tiles alone allow (other tiles and more
  // buffers only lower it). So the busiest SM's bandwidth is at least the
  // plan's, and the floor at most its estimate (CostModel.md).
  Estimator est{target};
  KernelCost k;
  LoadProfile lp;
  k.blocks = block.grid[0] * block.grid[1] * block.grid[2];
  std::vector<int64_t> tileBytes;
  double loopBytes = 0, onceBytes = 0;
  for (const UOp &bo : block.ops) {
    if (bo.kind != OpKind::InputIterator)
      continue;
    est.addIteratorTraffic(block, bo, k, lp);
    double bytes = bytesOf(block.values[bo.results.front()]);
    tileBytes.push_back(static_cast<int64_t>(bytes));
    (bo.fmap >= 0 && block.forloopRange > 1 ? loopBytes : onceBytes) += bytes;
  }
  k.l2Bytes += savedBytes;
  k.dramBytes += savedBytes;
  lp.storeBytes += savedBytes;
  int64_t ahead = std::max<int64_t>(
      1, std::min(kMaxPipelineStages, block.forloopRange) - 1);
  lp.inFlightPerBlock =
      std::max(loopBytes, onceBytes) * static_cast<double>(ahead);
  // Without a loop no plan pipelines: one round trip of latency and
  // transfer, as the estimate prices it (and no faster for fewer bytes).
  lp.pipelined = block.forloopRange > 1;
  bool dynamic = false;
  lp.residentPerSM = std::max<int64_t>(
      1, residentBlocksPerSM(sharedLayoutBytes(tileBytes, target, dynamic),
                             kPlanThreadsPerBlock, target));
  est.finish(k, lp); // no FLOPs, no serial chains: memory time plus launch
  // The least launch, so that the floor of every kernel of a graph stays
  // below its share of the graph's estimate.
  return k.seconds - k.launchSeconds + leastLaunchSeconds(target);
}

GraphCost mirage::estimateCost(const UGraph &g, llvm::StringRef targetName) {
  std::optional<TargetInfo> t = lookupTarget(targetName);
  if (!t)
    t = lookupTarget(kDefaultTarget);
  return estimateCost(g, *t);
}

double GraphCost::paddingFlops() const {
  double f = 0;
  for (const KernelCost &k : kernels)
    f += k.tensorIssuedFlops - k.tensorFlops;
  return f;
}

static std::string humanBytes(double b) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (b >= 1e6)
    os << llvm::format("%.2f MB", b / 1e6);
  else if (b >= 1e3)
    os << llvm::format("%.1f KB", b / 1e3);
  else
    os << llvm::format("%.0f B", b);
  return s;
}

std::string GraphCost::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "cost on " << target << ": " << kernels.size() << " kernel"
     << (kernels.size() == 1 ? "" : "s") << ", "
     << llvm::format("%.2f us", micros()) << (fits ? "" : " (DOES NOT FIT)")
     << "\n";
  for (const KernelCost &k : kernels) {
    os << "  #" << k.opIndex << " " << opKindName(k.kind) << ": " << k.blocks
       << " blocks";
    if (k.kind == OpKind::Custom)
      os << llvm::format(", smem %.1f KiB, %lld/SM", k.smemBytes / 1024.0,
                         static_cast<long long>(k.blocksPerSM));
    os << llvm::format(", %lld on the busiest SM, fill %.2f",
                       static_cast<long long>(k.blocksOnBusiestSM), k.smFill);
    if (k.kind == OpKind::Custom)
      os << ", " << k.tensorCoreMatmuls << "/" << k.matmuls
         << " matmuls on tensor cores, "
         << humanBytes(k.bytesInFlightPerSM) << " in flight per SM";
    os << ", DRAM "
       << humanBytes(k.dramBytes) << ", L2 " << humanBytes(k.l2Bytes)
       << llvm::format(", %.3g FLOP", k.flops)
       << llvm::format(": %.2f us (memory %.2f, compute %.2f, serial %.2f, "
                       "launch %.2f)",
                       k.seconds * 1e6, k.memorySeconds * 1e6,
                       k.computeSeconds * 1e6, k.serialSeconds * 1e6,
                       k.launchSeconds * 1e6);
    if (k.inTail)
      os << " [in the previous kernel's launch: its last blocks run it]";
    if (!k.fits)
      os << " [" << k.note << "]";
    os << "\n";
  }
  os << "  total: DRAM " << humanBytes(dramBytes) << ", L2 "
     << humanBytes(l2Bytes) << llvm::format(", %.3g FLOP", flops) << ", "
     << blocks << " blocks, max smem "
     << llvm::format("%.1f KiB", maxSmemBytes / 1024.0) << "\n";
  return s;
}

namespace {
/// A probe of one custom kernel computing x · w: w's columns split over
/// grid x, x's rows over grid y (replicated when grid y is 1), K walked by
/// a for-loop of `forloop` steps.
UGraph productProbe(const Shape &xs, const Shape &ws, ElemType type,
                    GridDims grid, int64_t forloop, bool wTransposed = false) {
  UGraph g;
  int32_t x = g.addInput(xs, type);
  // The body's input gets the layout from addCustom.
  int32_t w = g.addInput(ws, type, wTransposed);
  UGraph b(Level::Block);
  b.grid = grid;
  b.forloopRange = forloop;
  int32_t rows = grid[1] > 1 ? 0 : -1;
  int32_t bx = b.addInput(xs, type);
  int32_t bw = b.addInput(ws, type);
  int32_t xt = b.addInputIterator(bx, {-1, rows, -1}, 1);
  int32_t wt = b.addInputIterator(bw, {1, -1, -1}, 0);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  b.markOutput(b.addOutputSaver(acc, {1, rows, -1}));
  g.markOutput(g.addCustom({x, w}, std::move(b)));
  return g;
}

/// Probe graphs of the fingerprint: one of each thing the model prices.
std::vector<UGraph> fingerprintProbes() {
  std::vector<UGraph> probes;
  // A GEMV-shaped custom kernel: X replicated to every block, W streamed,
  // an accumulated product. With 1024 of K per iteration and 16 columns
  // per block, the plan splits its tensor-core chain (MmaChains.md): the
  // partials' scratch is in its shared memory.
  for (auto [gridX, forloop] :
       {std::pair<int64_t, int64_t>{16, 16}, {256, 16}, {256, 2}})
    probes.push_back(productProbe({8, 2048}, {2048, 4096}, ElemType::F16,
                                  {gridX, 1, 1}, forloop));
  // The same GEMV with W stored N x K (OperandLayouts.md), in 4-column
  // tiles: its copies and sectors follow the stored rows.
  probes.push_back(productProbe({8, 2048}, {2048, 4096}, ElemType::F16,
                                {1024, 1, 1}, 16, /*wTransposed=*/true));
  // An f32 product on FMA (FmaMicroTiles.md): priced by its micro-tile's
  // pipe and issue cycles, compute-bound at these shapes.
  probes.push_back(
      productProbe({128, 768}, {768, 768}, ElemType::F32, {12, 4, 1}, 12));
  // A combine-shaped kernel: per-row partials of last dim 1 (a contiguous
  // run across rows, TileCopy.h) scale a partial output.
  {
    UGraph g;
    int32_t m = g.addInput({8, 256, 1}, ElemType::F16);
    int32_t o = g.addInput({8, 256, 128}, ElemType::F16);
    UGraph b(Level::Block);
    b.grid = {8, 16, 1};
    int32_t bm = b.addInput({8, 256, 1}, ElemType::F16);
    int32_t bo = b.addInput({8, 256, 128}, ElemType::F16);
    int32_t mt = b.addInputIterator(bm, {0, -1, -1}, -1);
    int32_t ot = b.addInputIterator(bo, {0, 2, -1}, -1);
    b.markOutput(b.addOutputSaver(b.addBinary(BinaryKind::mul, ot, mt),
                                  {0, 2, -1}));
    g.markOutput(g.addCustom({m, o}, std::move(b)));
    probes.push_back(std::move(g));
  }
  // Column sums of squares, as QK-norm's over K's head dim: the squares
  // are computed in the reduction and get no tile (ElementsInReductions.md),
  // which the plan's shared memory shows.
  {
    UGraph g;
    int32_t k = g.addInput({8, 128, 4096}, ElemType::F16);
    UGraph b(Level::Block);
    b.grid = {8, 16, 1};
    b.forloopRange = 4;
    int32_t bk = b.addInput({8, 128, 4096}, ElemType::F16);
    int32_t kt = b.addInputIterator(bk, {0, 2, -1}, 2);
    int32_t sums = b.addReduce(ReduceKind::sum,
                               b.addBinary(BinaryKind::mul, kt, kt), 1, 1);
    b.markOutput(
        b.addOutputSaver(b.addAccum(AccumKind::sum, sums, -1, 0), {0, 2, -1}));
    g.markOutput(g.addCustom({k}, std::move(b)));
    probes.push_back(std::move(g));
  }
  // Library kernels: a GEMM, an element-wise op, an rms_norm.
  UGraph g;
  int32_t x = g.addInput({64, 4096}, ElemType::F16);
  int32_t w = g.addInput({4096, 4096}, ElemType::F16);
  int32_t y = g.addMatmul(g.addRmsNorm(x, -1), w);
  g.markOutput(g.addUnary(UnaryKind::exp, y));
  probes.push_back(std::move(g));
  // A split-K pair whose combine runs in its split kernel's tail
  // (TailCombine.md): 4 column groups of 8 splits, one combine block each;
  // over K = 2048 the fused launch holds fewer split blocks per SM.
  for (int64_t k : {256, 2048}) {
    UGraph pair;
    int32_t px = pair.addInput({8, k}, ElemType::F16);
    int32_t pw = pair.addInput({k, 64}, ElemType::F16);
    UGraph split(Level::Block);
    split.grid = {4, 8, 1};
    int32_t sx = split.addInput({8, k}, ElemType::F16);
    int32_t sw = split.addInput({k, 64}, ElemType::F16);
    int32_t prod = split.addMatmul(split.addInputIterator(sx, {-1, 1, -1}, -1),
                                   split.addInputIterator(sw, {1, 0, -1}, -1));
    split.markOutput(split.addOutputSaver(
        split.addAccum(AccumKind::sum, prod, -1, 0), {1, 0, -1}));
    int32_t partials = pair.addCustom({px, pw}, std::move(split));
    UGraph combine(Level::Block);
    combine.grid = {4, 1, 1};
    int32_t cp = combine.addInput({64, 64}, ElemType::F16);
    int32_t folded = combine.addReduce(
        ReduceKind::sum, combine.addInputIterator(cp, {1, -1, -1}, -1), 0, 8);
    combine.markOutput(combine.addOutputSaver(
        combine.addAccum(AccumKind::sum, folded, -1, 0), {1, -1, -1}));
    pair.markOutput(pair.addCustom({partials}, std::move(combine)));
    probes.push_back(std::move(pair));
  }
  return probes;
}
} // namespace

bool mirage::fillsMachine(const KernelCost &k, const TargetInfo &target) {
  // A tail launches no grid: its blocks run in its producer's.
  return k.inTail || k.dramBytes < kFillBytes ||
         target.fillsMachine(k.blocks);
}

double mirage::rankingSeconds(double seconds,
                              llvm::ArrayRef<KernelCost> kernels,
                              const TargetInfo &target) {
  double charged = 0;
  for (const KernelCost &k : kernels)
    if (!fillsMachine(k, target))
      charged += k.seconds;
  return seconds + kUnderfillCharge * charged;
}

void FingerprintHash::addByte(unsigned char c) {
  h ^= c;
  h *= 0x100000001b3ull;
}

void FingerprintHash::add(llvm::StringRef text) {
  for (char c : text)
    addByte(static_cast<unsigned char>(c));
}

void FingerprintHash::add(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  for (int i = 0; i < 8; ++i)
    addByte(static_cast<unsigned char>((bits >> (8 * i)) & 0xff));
}

std::string FingerprintHash::hex() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex_no_prefix(h, 16);
  return s;
}

std::string mirage::costModelFingerprint(const TargetInfo &target) {
  // The bits of every estimate: any change to a formula or a constant that
  // moves an estimate moves the fingerprint.
  FingerprintHash h;
  for (const UGraph &g : fingerprintProbes()) {
    GraphCost c = estimateCost(g, target);
    for (const KernelCost &k : c.kernels) {
      h.add(k.seconds);
      h.add(k.memorySeconds);
      h.add(k.computeSeconds);
      h.add(k.serialSeconds);
      h.add(static_cast<double>(k.smemBytes));
      h.add(k.fits ? 1.0 : 0.0);
      h.add(k.inTail ? 1.0 : 0.0);
    }
    h.add(rankingSeconds(c, target));
  }
  // The ranking's policy, whether or not a probe meets it: the charge's
  // form on a pair whose large kernel fills and whose small one does not,
  // beside a tail and a kernel too small to need filling.
  std::vector<KernelCost> mixed(4);
  const double bytes[] = {2 * kFillBytes, kFillBytes, kFillBytes,
                          kFillBytes / 2};
  const int64_t blocks[] = {4 * target.numSMs, target.numSMs / 2, 1, 1};
  for (size_t i = 0; i < mixed.size(); ++i) {
    mixed[i].dramBytes = bytes[i];
    mixed[i].blocks = blocks[i];
    mixed[i].seconds = 1e-6 * static_cast<double>(i + 1);
  }
  mixed[2].inTail = true;
  h.add(rankingSeconds(1e-5, mixed, target));
  h.add(kFillBytes);
  h.add(kUnderfillCharge);
  h.add(static_cast<double>(target.numSMs));
  h.add(TargetInfo::kMaxFillIdle);
  return h.hex();
}
