//===- CostModel.cpp - Analytic cost of a kernel graph on a GPU -----------===//
//
// See docs/Rationale/CostModel.md for the model.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Search/CostModel.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mirage;

CostParams mirage::costParamsFor(const TargetInfo &target) {
  // L2: H100 SXM5 50 MB, A100 40 MB. L2 bandwidth: measured figures vary
  // (microbenchmarks report about 5.5-7.5 TB/s on H100 and 4-5 TB/s on A100);
  // we take about twice DRAM bandwidth. Per SM: 64 bytes per clock between
  // L2 and the SM (1.755 GHz H100 SXM boost, 1.41 GHz A100). Shared memory
  // per SM: 228 KiB (H100), 164 KiB (A100); at most 32 resident blocks per
  // SM on both.
  if (target.name == "a100")
    return CostParams{40e6,       4.0e12, 64 * 1.41e9, 164 * 1024, 32,
                      2e-6,       0.85,   0.7,         1024};
  return CostParams{50e6,       7.0e12, 64 * 1.755e9, 228 * 1024, 32,
                    2e-6,       0.85,   0.7,          1024};
}

static double bytesOf(const UValue &v) {
  return static_cast<double>(numElements(v.shape)) *
         static_cast<double>(elemTypeBytes(v.type));
}

static double elems(const UValue &v) {
  return static_cast<double>(numElements(v.shape));
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
  case OpKind::RmsNorm: {
    // square, sum, scale by rsqrt (+ weight); one rsqrt per row.
    const UValue &x = g.values[op.operands[0]];
    double rows = x.shape.empty() ? 1 : elems(x) / static_cast<double>(x.shape.back());
    return (op.operands.size() > 1 ? 4 : 3) * elems(x) + rows;
  }
  case OpKind::Accum: {
    double in = elems(g.values[op.operands[0]]);
    switch (op.accumKind()) {
    case AccumKind::rms_last:
      return 2 * in;
    default:
      return in + (op.operands.size() > 1 ? elems(out) : 0);
    }
  }
  case OpKind::ThreadGraph: {
    if (op.body < 0 || op.body >= static_cast<int32_t>(g.bodies.size()))
      return 0;
    return static_cast<double>(g.bodies[op.body].ops.size()) * elems(out);
  }
  case OpKind::Custom: {
    if (op.body < 0 || op.body >= static_cast<int32_t>(g.bodies.size()))
      return 0;
    const UGraph &b = g.bodies[op.body];
    double perBlock = 0;
    for (const UOp &bo : b.ops) {
      double f = opFlops(b, bo);
      bool inLoop = bo.kind == OpKind::Accum ||
                    (!bo.results.empty() &&
                     b.values[bo.results.front()].phase == Phase::InLoop);
      perBlock += inLoop ? f * static_cast<double>(b.forloopRange) : f;
    }
    return perBlock * static_cast<double>(b.grid[0] * b.grid[1] * b.grid[2]);
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
struct Estimator {
  const TargetInfo &t;
  CostParams p;

  /// Memory: the largest of DRAM traffic at DRAM bandwidth, all traffic at
  /// L2 bandwidth, and the busiest SM's share of the traffic at one SM's
  /// bandwidth (this is what makes an under-filled grid slow). Compute: the
  /// FLOPs at the peaks scaled by the fraction of SM-time the grid keeps busy
  /// (idle SMs, or a partial last round of blocks).
  void finish(KernelCost &k) const {
    int64_t blocks = std::max<int64_t>(1, k.blocks);
    k.blocksOnBusiestSM = (blocks + t.numSMs - 1) / t.numSMs;
    k.smFill = static_cast<double>(blocks) /
               static_cast<double>(t.numSMs * k.blocksOnBusiestSM);
    double eff = p.memoryEfficiency;
    double busiestSMBytes = k.l2Bytes / static_cast<double>(blocks) *
                            static_cast<double>(k.blocksOnBusiestSM);
    k.memorySeconds =
        std::max({k.dramBytes / (t.dramBytesPerSecond * eff),
                  k.l2Bytes / (p.l2BytesPerSecond * eff),
                  busiestSMBytes / (p.smBytesPerSecond * eff)});
    double tc = t.fp16FlopsPerSecond * p.computeEfficiency * k.smFill;
    double cc = t.fp32FlopsPerSecond * p.computeEfficiency * k.smFill;
    k.computeSeconds = k.tensorFlops / tc + (k.flops - k.tensorFlops) / cc;
    k.launchSeconds = p.launchSeconds;
    k.seconds = std::max(k.memorySeconds, k.computeSeconds) + k.launchSeconds;
  }

  KernelCost predefined(const UGraph &g, const UOp &op) const {
    KernelCost k;
    k.kind = op.kind;
    llvm::SmallDenseSet<int32_t, 4> seen;
    double inElems = 0, outElems = 0;
    for (int32_t a : op.operands)
      if (seen.insert(a).second) {
        k.dramBytes += bytesOf(g.values[a]);
        inElems = std::max(inElems, elems(g.values[a]));
      }
    for (int32_t r : op.results) {
      k.dramBytes += bytesOf(g.values[r]);
      outElems = std::max(outElems, elems(g.values[r]));
    }
    k.l2Bytes = k.dramBytes;
    k.flops = opFlops(g, op);
    if (op.kind == OpKind::Matmul && isHalf(g.values[op.operands[0]].type))
      k.tensorFlops = k.flops;
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
          1, static_cast<int64_t>(std::ceil(e / p.libraryElemsPerBlock)));
    }
    k.blocksPerSM = p.maxBlocksPerSM;
    return k;
  }

  /// An input iterator's loads: its tile per block and per iteration (once
  /// per block with fmap φ).
  void addIteratorTraffic(const UGraph &b, const UOp &it, KernelCost &k) const {
    const UValue &tile = b.values[it.results.front()];
    const UValue &dev = b.values[it.operands.front()];
    double blocks = static_cast<double>(b.grid[0] * b.grid[1] * b.grid[2]);
    double loads = it.fmap >= 0 ? static_cast<double>(b.forloopRange) : 1;
    double total = bytesOf(tile) * loads * blocks;
    double unique = std::min(total, bytesOf(dev));
    k.l2Bytes += total;
    // Re-reads of a tensor by several blocks hit L2 if it fits there.
    k.dramBytes += unique <= p.l2Bytes ? unique : total;
  }

  KernelCost custom(const UGraph &g, const UOp &op) const {
    KernelCost k;
    k.kind = OpKind::Custom;
    if (op.body < 0 || op.body >= static_cast<int32_t>(g.bodies.size())) {
      k.fits = false;
      k.note = "custom op without a body";
      return k;
    }
    const UGraph &b = g.bodies[op.body];
    k.blocks = b.grid[0] * b.grid[1] * b.grid[2];
    double blocks = static_cast<double>(k.blocks);
    for (const UOp &bo : b.ops) {
      if (bo.kind == OpKind::InputIterator) {
        addIteratorTraffic(b, bo, k);
      } else if (bo.kind == OpKind::OutputSaver) {
        double saved = bytesOf(b.values[bo.results.front()]);
        k.l2Bytes += saved;
        k.dramBytes += saved;
      } else if (bo.kind == OpKind::Matmul) {
        double f = opFlops(b, bo) * blocks *
                   (b.values[bo.results.front()].phase == Phase::InLoop
                        ? static_cast<double>(b.forloopRange)
                        : 1);
        if (isHalf(b.values[bo.operands[0]].type))
          k.tensorFlops += f;
      }
    }
    k.flops = opFlops(g, op);
    k.smemBytes = sharedMemoryBytes(b);
    if (k.smemBytes > t.smemBytesPerBlock) {
      k.fits = false;
      k.note = "shared memory " + std::to_string(k.smemBytes) +
               " bytes per block exceeds the " + t.name.str() + "'s " +
               std::to_string(t.smemBytesPerBlock);
      k.blocksPerSM = 0;
    } else {
      k.blocksPerSM = k.smemBytes > 0
                          ? std::min<int64_t>(p.maxBlocksPerSM,
                                              p.smemBytesPerSM / k.smemBytes)
                          : p.maxBlocksPerSM;
    }
    return k;
  }
};
} // namespace

GraphCost mirage::estimateCost(const UGraph &g, const TargetInfo &target) {
  Estimator est{target, costParamsFor(target)};
  GraphCost c;
  c.target = target.name.str();
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const UOp &op = g.ops[i];
    KernelCost k = op.kind == OpKind::Custom ? est.custom(g, op)
                                             : est.predefined(g, op);
    k.opIndex = static_cast<int32_t>(i);
    est.finish(k);
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
  Estimator est{target, costParamsFor(target)};
  KernelCost k;
  k.blocks = block.grid[0] * block.grid[1] * block.grid[2];
  for (const UOp &bo : block.ops)
    if (bo.kind == OpKind::InputIterator)
      est.addIteratorTraffic(block, bo, k);
  k.l2Bytes += savedBytes;
  k.dramBytes += savedBytes;
  est.finish(k); // no FLOPs: memory time plus the launch
  return k.seconds;
}

GraphCost mirage::estimateCost(const UGraph &g, llvm::StringRef targetName) {
  std::optional<TargetInfo> t = lookupTarget(targetName);
  if (!t)
    t = lookupTarget(kDefaultTarget);
  return estimateCost(g, *t);
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
    os << llvm::format(", %lld on the busiest SM, fill %.2f", static_cast<long long>(k.blocksOnBusiestSM), k.smFill) << ", DRAM "
       << humanBytes(k.dramBytes) << ", L2 " << humanBytes(k.l2Bytes)
       << llvm::format(", %.3g FLOP", k.flops)
       << llvm::format(": %.2f us (memory %.2f, compute %.2f, launch %.2f)",
                       k.seconds * 1e6, k.memorySeconds * 1e6,
                       k.computeSeconds * 1e6, k.launchSeconds * 1e6);
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
