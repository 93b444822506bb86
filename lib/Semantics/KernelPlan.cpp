//===- KernelPlan.cpp - How one block graph becomes one kernel ------------===//
//
// See docs/Rationale/LaunchPlan.md. Every rule here is one the loop-level
// lowering follows (the lowering reads the plan rather than restating it).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/TileCopy.h"

#include "Mirage/Semantics/AccumRules.h"
#include "Mirage/Semantics/BlockSchedule.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mirage;

int64_t KernelPlan::tensorCoreMatmuls() const {
  return llvm::count_if(matmuls,
                        [](const MatmulPlan &m) { return m.tensorCores; });
}

const CopyPlan *KernelPlan::copyOf(int32_t op) const {
  for (const CopyPlan &c : copies)
    if (c.op == op)
      return &c;
  return nullptr;
}

const ReductionPlan *KernelPlan::reductionOf(int32_t op) const {
  for (const ReductionPlan &r : reductions)
    if (r.op == op)
      return &r;
  return nullptr;
}

const TilePlan *KernelPlan::scratchOf(int32_t op) const {
  for (const TilePlan &t : tiles)
    if (t.scratchFor == op)
      return &t;
  return nullptr;
}

const MatmulPlan *KernelPlan::matmulOf(int32_t op) const {
  for (const MatmulPlan &m : matmuls)
    if (m.op == op)
      return &m;
  return nullptr;
}

FmaCycles mirage::fmaCycles(int64_t batch, int64_t m, int64_t n, int64_t k,
                            int64_t r, int64_t c, int64_t threads,
                            const TargetInfo &target) {
  int64_t items = batch * llvm::divideCeil(m, r) * (n / c);
  int64_t warpFmasPerCycle =
      std::max<int64_t>(1, target.fmaLanesPerSM / target.warpSize);
  // A wavefront: one 4-byte word from each of the 32 banks.
  double wavefrontsPerCycle = static_cast<double>(target.sharedBytesPerCycle) /
                              static_cast<double>(target.warpSize * 4);
  FmaCycles total;
  auto round = [&](int64_t itemsInRound, double times) {
    int64_t warps = llvm::divideCeil(itemsInRound, target.warpSize);
    double fma = static_cast<double>(warps * r * c) /
                 static_cast<double>(warpFmasPerCycle);
    double lds = static_cast<double>(warps * (r + c)) / wavefrontsPerCycle;
    total.pipe += times * std::max(fma, lds);
    total.issue +=
        times *
        static_cast<double>(r * c * llvm::divideCeil(warps, warpFmasPerCycle));
  };
  int64_t full = items / threads, rest = items % threads;
  if (full > 0)
    round(threads, static_cast<double>(full));
  if (rest > 0)
    round(rest, 1);
  total.pipe *= static_cast<double>(k);
  total.issue *= static_cast<double>(k);
  return total;
}

int64_t mirage::tileRowPitch(int64_t cols, ElemType storage,
                             bool ldmatrixOperand) {
  // An ldmatrix matrix is eight 16-byte rows; rows a multiple of 128 bytes
  // apart share their banks (an 8-way conflict, measured on an H200).
  constexpr int64_t kBankGroupBytes = 16, kBankLineBytes = 128;
  int64_t bytes = elemTypeBytes(storage);
  int64_t rowBytes = cols * bytes;
  if (!ldmatrixOperand || rowBytes % kBankLineBytes != 0)
    return cols;
  return cols + kBankGroupBytes / bytes;
}

int64_t mirage::sharedLayoutBytes(llvm::ArrayRef<int64_t> bufferBytes,
                                  const TargetInfo &target, bool &dynamic) {
  int64_t total = 0;
  for (int64_t b : bufferBytes)
    total += llvm::alignTo(b, kStaticSharedAlign);
  dynamic = total > target.maxStaticSmemBytes;
  if (!dynamic)
    return total;
  total = target.dynamicSmemReserve;
  for (int64_t b : bufferBytes)
    total += llvm::alignTo(b, kDynamicSharedAlign);
  return total;
}

double mirage::sustainedSMBandwidth(double inFlightPerBlock, double resident,
                                    bool pipelined, double cap,
                                    const TargetInfo &target) {
  double roundTrip = pipelined
                         ? target.dramLatencySeconds
                         : target.dramLatencySeconds + inFlightPerBlock / cap;
  return std::min(cap, resident * inFlightPerBlock / roundTrip);
}

int64_t mirage::residentBlocksPerSM(int64_t sharedBytes, int64_t threads,
                                    const TargetInfo &target) {
  int64_t bySmem = target.smemBytesPerSM /
                   std::max<int64_t>(1, sharedBytes + target.smemReservePerBlock);
  int64_t byThreads = target.maxThreadsPerSM / std::max<int64_t>(1, threads);
  return std::max<int64_t>(
      0, std::min({target.maxBlocksPerSM, bySmem, byThreads}));
}

namespace {

/// The blocks per SM a kernel of `threads` threads promises ptxas when
/// `resident` fit by shared memory (KernelPlan::minBlocksPerSM).
int64_t registerBoundBlocksPerSM(int64_t resident, int64_t threads,
                                 const TargetInfo &target) {
  int64_t floorBudget = target.registersPerSM /
                        (std::max<int64_t>(1, threads) * kMinRegistersPerThread);
  return std::clamp<int64_t>(resident, 1, std::max<int64_t>(1, floorBudget));
}

/// Each thread's register budget at `blocksPerSM` resident blocks.
int64_t registersPerThreadBudget(int64_t blocksPerSM, int64_t threads,
                                 const TargetInfo &target) {
  // Registers are allocated per warp in units of 256, so a thread's share
  // is a multiple of 8.
  int64_t share = target.registersPerSM /
                  (std::max<int64_t>(1, blocksPerSM) *
                   std::max<int64_t>(1, threads));
  return std::min(target.maxRegistersPerThread, share / 8 * 8);
}

bool isHalf(ElemType t) { return t == ElemType::F16 || t == ElemType::BF16; }

/// The scratch of a split or transposed matmul's partial sums (MmaChains.md,
/// TransposedDecodeMma.md), as the emitter indexes it: per partial an f32
/// copy of C's rows (`batch` tiles of `paddedRows`, row p * rowsOfC + row),
/// or, transposed, of Cᵀ's (N rows of the MMA's n tokens, row p * N + col).
/// The chain rule checks its size and the plan allocates it.
Shape partialSumsShape(const MatmulPlan &p, int64_t batch, int64_t n,
                       const TargetInfo &t) {
  if (p.transposed)
    return {p.partials() * n, t.mma.n};
  return {p.partials() * batch * p.paddedRows, n};
}

/// The K chains of tensor-core matmul `p` of `batch` tiles of
/// p.paddedRows x `n` over `k`, run by `warps` warps (MmaChains.md): slices
/// across idle warps first, then chains within a warp item, as long as a
/// warp's chain is long (kLongMmaChainSteps, twice that without an
/// accumulator), every partial keeps kMinPartialSteps steps and the
/// partial sums fit kMaxPartialScratchBytes.
void planMatmulChains(MatmulPlan &p, int64_t batch, int64_t n, int64_t k,
                      int64_t warps, const TargetInfo &t) {
  int64_t steps = k / t.mma.k;
  int64_t fragments = p.fragments(batch, n, t.mma.m, t.mma.n);
  int64_t warpChain = llvm::divideCeil(fragments, warps) * steps;
  int64_t longChain =
      p.accumulator >= 0 ? kLongMmaChainSteps : 2 * kLongMmaChainSteps;
  if (warpChain < longChain)
    return;
  auto fits = [&](int64_t slices, int64_t chains) {
    MatmulPlan q = p;
    q.slices = slices;
    q.chains = chains;
    return steps % q.partials() == 0 &&
           steps / q.partials() >= kMinPartialSteps &&
           numElements(partialSumsShape(q, batch, n, t)) *
                   elemTypeBytes(ElemType::F32) <=
               kMaxPartialScratchBytes;
  };
  while (fragments * p.slices * 2 <= warps && fits(p.slices * 2, p.chains))
    p.slices *= 2;
  while (p.chains * 2 <= kMaxChainsPerItem && fits(p.slices, p.chains * 2))
    p.chains *= 2;
}

/// A block matmul's extents: `batch` products of M x K by K x N (C the
/// accumulator's state when it adds into one).
struct MatmulDims {
  int64_t batch, m, n, k;
};

MatmulDims matmulDims(const UGraph &g, const MatmulPlan &p) {
  const UOp &op = g.ops[p.op];
  int32_t c =
      p.accumulator >= 0 ? g.ops[p.accumulator].results[0] : op.results[0];
  const Shape &as = g.values[op.operands[0]].shape, &cs = g.values[c].shape;
  size_t r = as.size();
  MatmulDims d{1, as[r - 2], cs[r - 1], as[r - 1]};
  d.batch = numElements(cs) / std::max<int64_t>(1, d.m * d.n);
  return d;
}

/// The register micro-tile of FMA matmul `p` (FmaMicroTiles.md): the r x c
/// whose registers fit `budget` and whose block takes the fewest cycles
/// beside `together` - 1 others on its SM (max(pipe, issue / together)),
/// fewer registers on a tie; r at most M (rows past it would be clamped
/// duplicates only), c a divisor of N.
void planFmaMicroTile(MatmulPlan &p, const MatmulDims &d, int64_t threads,
                      int64_t budget, int64_t together, const TargetInfo &t) {
  auto registers = [](int64_t r, int64_t c) {
    return r * c + r + c + kFmaTileOverheadRegisters;
  };
  auto time = [&](const FmaCycles &f) {
    return std::max(f.pipe, f.issue / static_cast<double>(together));
  };
  FmaCycles best = fmaCycles(d.batch, d.m, d.n, d.k, 1, 1, threads, t);
  for (int64_t r = 1; r <= kMaxMicroTile && (r == 1 || r <= d.m); r *= 2)
    for (int64_t c = 1; c <= kMaxMicroTile && d.n % c == 0; c *= 2) {
      if (registers(r, c) > budget)
        continue;
      FmaCycles f = fmaCycles(d.batch, d.m, d.n, d.k, r, c, threads, t);
      bool tie = time(f) <= time(best) * (1 + 1e-9) &&
                 time(f) >= time(best) * (1 - 1e-9);
      if (time(f) < time(best) * (1 - 1e-9) ||
          (tie && registers(r, c) < registers(p.microRows, p.microCols))) {
        p.microRows = r;
        p.microCols = c;
        best = f;
      }
    }
  p.fmaPipeCycles = best.pipe;
  p.fmaIssueCycles = best.issue;
}

/// The tensor-core decision for block matmul `op`: the conditions under
/// which the warp-level MMA form applies (MatmulPhases.cpp emits it).
MatmulPlan planMatmul(const UGraph &g, const BlockSchedule &sched,
                      int32_t opIndex, const TargetInfo &t, bool offered,
                      int64_t warps) {
  const UOp &op = g.ops[opIndex];
  MatmulPlan p;
  p.op = opIndex;
  p.accumulator = sched.matmulInto[opIndex];
  int32_t a = op.operands[0], bv = op.operands[1];
  int32_t c = p.accumulator >= 0 ? g.ops[p.accumulator].results[0]
                                 : op.results[0];
  auto [batch, m, n, k] = matmulDims(g, p);
  ElemType at = sched.storage[a], bt = sched.storage[bv];
  int64_t rows = llvm::alignTo(m, t.mma.m);
  auto refuse = [&](std::string why) {
    p.whyNotTensorCores = std::move(why);
    return p;
  };
  if (!offered)
    return refuse("tensor cores off");
  if (at != bt || !isHalf(at))
    return refuse(std::string("operands stored ") + elemTypeName(at).str() +
                  " and " + elemTypeName(bt).str() + ", not both f16 or bf16");
  if (sched.storage[c] != ElemType::F32)
    return refuse("result stored " + elemTypeName(sched.storage[c]).str() +
                  ", not f32");
  if (k % t.mma.k != 0)
    return refuse("K = " + std::to_string(k) + " is not a multiple of " +
                  std::to_string(t.mma.k));
  if (n % t.mma.n != 0)
    return refuse("N = " + std::to_string(n) + " is not a multiple of " +
                  std::to_string(t.mma.n));
  if (rows != m && batch != 1)
    return refuse("M = " + std::to_string(m) +
                  " would need padding inside a batched tile");
  p.tensorCores = true;
  p.paddedRows = rows;
  // Decode rows: the weight's columns as the MMA's 16 rows, the tokens as
  // its 8 columns (TransposedDecodeMma.md), when the product adds into an
  // accumulator: its fragments then join C once, after the loop; another
  // product would pay a combine phase and its barrier every run.
  if (p.accumulator >= 0 && batch == 1 && m <= t.mma.n && n % t.mma.m == 0) {
    p.transposed = true;
    p.paddedRows = llvm::alignTo(m, t.mma.n);
  }
  planMatmulChains(p, batch, n, k, warps, t);
  return p;
}

/// How input iterator `op`'s tile is copied into its buffer of shape
/// `buffer` (CopyPhases.cpp: 16-byte vectors along the contiguous run of
/// TileCopy.h, one thread-strided loop per tile; AsyncCopies.cpp: cp.async
/// groups for unrollable same-type copies).
CopyPlan planCopy(const UGraph &g, const BlockSchedule &sched, int32_t opIndex,
                  const Shape &buffer, int64_t threads) {
  const UOp &op = g.ops[opIndex];
  int32_t tile = op.results[0];
  const Shape &shape = g.values[tile].shape;
  ElemType src = g.values[op.operands[0]].type, dst = sched.storage[tile];
  int64_t elemBytes = std::max(elemTypeBytes(src), elemTypeBytes(dst));
  // Stored rows into stored rows (a transposed tile copies its tensor's).
  int64_t vec = copyRun(storedShape(g, tile), storedShape(g, op.operands[0]),
                        buffer, elemBytes)
                    .vec;
  int64_t n = numElements(shape) / vec;
  CopyPlan c;
  c.op = opIndex;
  // Copied in every iteration unless the schedule runs it before the loop
  // (fmap -1: LoopInvariantOps.md) or there is no loop.
  c.inLoop = g.forloopRange > 1 && !sched.beforeLoop[opIndex];
  c.bytes = numElements(shape) * elemTypeBytes(src);
  c.vectorBytes = vec * elemBytes;
  c.copiesPerThread = llvm::divideCeil(n, threads);
  // 16-byte copies become cp.async and join their stage's one commit group
  // (KernelEmitter marks every iterator copy); narrower ones stay
  // synchronous loads, a round trip per copy.
  c.grouped = vec > 1 && src == dst;
  c.roundTrips = c.grouped ? 0 : c.copiesPerThread;
  return c;
}

/// The row reduction op `op` performs (outputs and chunks per output), or
/// std::nullopt for an op that reduces nothing.
std::optional<ReductionPlan> reductionShape(const UGraph &g, const UOp &op) {
  ReductionPlan r;
  r.op = -1;
  switch (op.kind) {
  case OpKind::Reduce: {
    const Shape &x = g.values[op.operands[0]].shape;
    r.outputs = numElements(g.values[op.results[0]].shape);
    r.chunks = x[op.dim] / std::max<int64_t>(1, op.size);
    return r;
  }
  case OpKind::RmsNorm: {
    const Shape &x = g.values[op.operands[0]].shape;
    r.chunks = x.empty() ? 1 : x.back();
    r.outputs = numElements(x) / std::max<int64_t>(1, r.chunks);
    return r;
  }
  case OpKind::Accum: {
    if (!accumRule(op).reducesLastDim)
      return std::nullopt;
    const Shape &x = g.values[op.operands[0]].shape;
    r.outputs = numElements(g.values[op.results[0]].shape);
    r.chunks = x.back() / accumReduceSize(op);
    return r;
  }
  case OpKind::RunningMax: { // the row max of every iteration
    const Shape &x = g.values[op.operands[0]].shape;
    r.outputs = numElements(g.values[op.results[0]].shape);
    r.chunks = x[op.dim];
    return r;
  }
  case OpKind::Matmul:
  case OpKind::Unary:
  case OpKind::Binary:
  case OpKind::Concat:
  case OpKind::Custom:
  case OpKind::InputIterator:
  case OpKind::OutputSaver:
  case OpKind::ThreadGraph:
    return std::nullopt;
  }
  return std::nullopt;
}

/// Lanes per output: as many as the block's threads allow, and a power of
/// two that divides the chunks (every lane folds as many).
int64_t reductionLanes(int64_t outputs, int64_t chunks, int64_t threads) {
  int64_t lanes = 1;
  while (lanes * 2 <= kMaxReductionLanes && chunks % (lanes * 2) == 0 &&
         outputs * lanes * 2 <= threads)
    lanes *= 2;
  return lanes;
}

/// Dependent steps of the longest per-thread chain of reduction `r` of op
/// `op` (per run): the lanes' folds, the tree over the lanes (one step per
/// level), and for rms_norm the division phase.
int64_t serialSteps(const UGraph &g, const UOp &op, const ReductionPlan &r,
                    int64_t threads) {
  auto perThread = [&](int64_t items) {
    return llvm::divideCeil(std::max<int64_t>(1, items), threads);
  };
  int64_t steps = perThread(r.outputs * r.lanes) * llvm::divideCeil(r.chunks, r.lanes);
  for (int64_t half = r.lanes / 2; half >= 1; half /= 2)
    steps += perThread(r.outputs * half);
  if (op.kind == OpKind::RmsNorm)
    steps += r.lanes > 1 ? perThread(r.outputs * r.chunks) : r.chunks;
  return steps;
}

} // namespace

namespace {
/// Whether a block alone on its SM gets kWideBlockThreads (WideBlocks.md).
constexpr bool kWideBlocks = false;

/// The bytes of one buffer of tile `t` as allocated: its rows at its pitch.
int64_t allocatedBytes(const TilePlan &t) {
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < t.shape.size(); ++d)
    rows *= t.shape[d];
  return rows * t.pitch * elemTypeBytes(t.storage);
}
} // namespace

KernelPlan mirage::planKernel(const UGraph &block, const TargetInfo &target,
                              const PlanOptions &options) {
  if (options.threads == 0) {
    // A block alone on its SM leaves it four warps to hide every latency
    // with: such a kernel runs twice the threads when that still fits
    // (WideBlocks.md; off, kWideBlocks).
    PlanOptions narrow = options, wide = options;
    narrow.threads = kPlanThreadsPerBlock;
    wide.threads = kWideBlockThreads;
    KernelPlan p = planKernel(block, target, narrow);
    if (!kWideBlocks || !p.launchable || p.residentBlocksPerSM != 1 ||
        kWideBlockThreads > target.maxThreadsPerBlock)
      return p;
    KernelPlan w = planKernel(block, target, wide);
    return w.launchable && w.stages >= p.stages ? w : p;
  }
  KernelPlan plan;
  plan.threads = options.threads;
  plan.warps = plan.threads / target.warpSize;
  BlockSchedule sched = scheduleBlock(block);
  int64_t loop = std::max<int64_t>(1, block.forloopRange);
  for (size_t i = 0; i < block.ops.size(); ++i)
    plan.timesRun.push_back(timesRun(block, sched, i));

  // Matmuls first: their padded rows shape the A and C tiles, and the
  // operands ldmatrix reads get padded rows (tileRowPitch).
  std::vector<int64_t> rows(block.values.size(), 0);
  std::vector<bool> ldmatrixRead(block.values.size(), false);
  for (size_t i = 0; i < block.ops.size(); ++i) {
    if (block.ops[i].kind != OpKind::Matmul)
      continue;
    MatmulPlan m = planMatmul(block, sched, static_cast<int32_t>(i), target,
                              options.tensorCores, plan.warps);
    const UOp &op = block.ops[i];
    int32_t c = m.accumulator >= 0 ? block.ops[m.accumulator].results[0]
                                   : op.results[0];
    rows[op.operands[0]] = std::max(rows[op.operands[0]], m.paddedRows);
    if (!m.transposed) // a transposed product's C is written by its combine
      rows[c] = std::max(rows[c], m.paddedRows);
    if (m.tensorCores)
      for (int32_t v : {op.operands[0], op.operands[1]})
        ldmatrixRead[v] = true;
    plan.matmuls.push_back(std::move(m));
  }

  // A value's tile buffer: its rows padded as a tensor-core operand's,
  // then its last two dims swapped if it is stored transposed
  // (OperandLayouts.md).
  auto bufferShape = [&](size_t v) {
    Shape shape = block.values[v].shape;
    if (shape.size() >= 2 && rows[v] > shape[shape.size() - 2])
      shape[shape.size() - 2] = rows[v];
    return storedTransposed(block, static_cast<int32_t>(v)) ? swapLastTwo(shape)
                                                            : shape;
  };
  for (size_t v = 0; v < block.values.size(); ++v) {
    if (!sched.buffered[v])
      continue;
    TilePlan t;
    t.value = static_cast<int32_t>(v);
    t.shape = bufferShape(v);
    t.transposed = storedTransposed(block, static_cast<int32_t>(v));
    t.storage = sched.storage[v];
    t.pitch = tileRowPitch(t.shape.empty() ? 1 : t.shape.back(), t.storage,
                           ldmatrixRead[v]);
    t.bytes = allocatedBytes(t);
    plan.tiles.push_back(std::move(t));
  }
  // A split or transposed matmul's partial sums (partialSumsShape).
  for (const MatmulPlan &m : plan.matmuls) {
    if (!m.usesScratch())
      continue;
    MatmulDims d = matmulDims(block, m);
    TilePlan t;
    t.scratchFor = m.op;
    t.shape = partialSumsShape(m, d.batch, d.n, target);
    t.pitch = t.shape.back();
    t.storage = ElemType::F32;
    t.bytes = allocatedBytes(t);
    plan.tiles.push_back(std::move(t));
  }

  bool anyAsyncInLoop = false, anyAsyncOnce = false;
  for (size_t i = 0; i < block.ops.size(); ++i) {
    const UOp &op = block.ops[i];
    if (op.kind == OpKind::InputIterator) {
      CopyPlan c = planCopy(block, sched, static_cast<int32_t>(i),
                            bufferShape(op.results[0]), plan.threads);
      (c.inLoop ? plan.loopLoadBytes : plan.onceLoadBytes) += c.bytes;
      (c.inLoop ? plan.loopRoundTrips : plan.onceRoundTrips) += c.roundTrips;
      (c.inLoop ? anyAsyncInLoop : anyAsyncOnce) |= c.grouped;
      plan.copies.push_back(c);
    } else if (op.kind == OpKind::OutputSaver) {
      const UValue &out = block.values[op.results[0]];
      plan.storeBytes += numElements(out.shape) * elemTypeBytes(out.type);
    } else if (std::optional<ReductionPlan> r = reductionShape(block, op)) {
      r->op = static_cast<int32_t>(i);
      r->lanes = reductionLanes(r->outputs, r->chunks, plan.threads);
      int64_t steps = serialSteps(block, op, *r, plan.threads);
      // Per iteration in the loop (an accumulator combines in every one),
      // once before or after it.
      plan.serialSteps += steps * plan.timesRun[i];
      if (r->lanes > 1) {
        TilePlan t;
        t.scratchFor = r->op;
        t.shape = {r->outputs, r->lanes};
        t.pitch = r->lanes;
        t.storage = sumType(block.values[op.results[0]].type);
        t.bytes = allocatedBytes(t);
        plan.tiles.push_back(std::move(t));
      }
      plan.reductions.push_back(*r);
    }
  }

  // The grouped copies of a stage take one round trip together.
  plan.loopRoundTrips += anyAsyncInLoop ? 1 : 0;
  plan.onceRoundTrips += anyAsyncOnce ? 1 : 0;

  // Shared memory with `stages` buffers of every loop-copied tile.
  std::vector<bool> loopCopied;
  for (const TilePlan &t : plan.tiles)
    loopCopied.push_back(llvm::any_of(plan.copies, [&](const CopyPlan &c) {
      return c.inLoop && block.ops[c.op].results[0] == t.value;
    }));
  auto layout = [&](int64_t stages, bool &dynamic) {
    std::vector<int64_t> bufferBytes;
    for (size_t i = 0; i < plan.tiles.size(); ++i)
      bufferBytes.push_back(plan.tiles[i].bytes * (loopCopied[i] ? stages : 1));
    return sharedLayoutBytes(bufferBytes, target, dynamic);
  };
  // Stages: the count whose bytes in flight sustain the most bandwidth on
  // the busiest SM (Little's law, as the cost model prices it), fewest on a
  // tie; at least two buffers must fit, else no pipeline.
  int64_t blocks = block.grid[0] * block.grid[1] * block.grid[2];
  int64_t perSM = std::max<int64_t>(1, llvm::divideCeil(blocks, target.numSMs));
  double best = 0;
  if (anyAsyncInLoop)
    for (int64_t s = 2; s <= std::min(kMaxPipelineStages, loop); ++s) {
      bool dynamic = false;
      int64_t bytes = layout(s, dynamic);
      if (bytes > target.smemBytesPerBlock)
        break;
      double resident = static_cast<double>(std::min(
          perSM, residentBlocksPerSM(bytes, plan.threads, target)));
      double bandwidth = sustainedSMBandwidth(
          static_cast<double>((s - 1) * plan.loopLoadBytes), resident,
          /*pipelined=*/true, target.smBytesPerSecond, target);
      if (bandwidth > best * (1 + 1e-9)) {
        best = bandwidth;
        plan.stages = s;
      }
    }
  if (plan.stages > 1) {
    for (size_t i = 0; i < plan.tiles.size(); ++i)
      if (loopCopied[i])
        plan.tiles[i].buffers = plan.stages;
    // The loop's 16-byte copies of an iteration form one cp.async group,
    // waited for `stages - 1` iterations later. Narrower copies are
    // prefetched too (the schedule is the same) but stay synchronous loads:
    // each keeps its round trips.
    for (CopyPlan &c : plan.copies)
      c.prefetched |= c.inLoop;
  }
  plan.sharedBytes = layout(plan.stages, plan.dynamicShared);

  double loads = static_cast<double>(plan.loopLoadBytes) * loop +
                 static_cast<double>(plan.onceLoadBytes);
  double trips = static_cast<double>(plan.loopRoundTrips) * loop +
                 static_cast<double>(plan.onceRoundTrips);
  // Pipelined, the group of an iteration is in flight S - 1 times over.
  plan.bytesInFlightPerBlock =
      trips > 0 ? loads / trips * std::max<int64_t>(1, plan.stages - 1) : 0;
  plan.residentBlocksPerSM =
      residentBlocksPerSM(plan.sharedBytes, plan.threads, target);
  plan.minBlocksPerSM =
      registerBoundBlocksPerSM(plan.residentBlocksPerSM, plan.threads, target);
  plan.registersPerThread =
      registersPerThreadBudget(plan.minBlocksPerSM, plan.threads, target);
  // FMA matmuls take the register micro-tile the budget allows, for the
  // blocks that share an SM (as many as are resident, or the grid gives).
  int64_t together =
      std::max<int64_t>(1, std::min(plan.residentBlocksPerSM, perSM));
  for (MatmulPlan &m : plan.matmuls)
    if (!m.tensorCores)
      planFmaMicroTile(m, matmulDims(block, m), plan.threads,
                       plan.registersPerThread, together, target);

  if (plan.sharedBytes > target.smemBytesPerBlock) {
    plan.launchable = false;
    plan.whyNotLaunchable =
        "shared memory " + std::to_string(plan.sharedBytes) +
        " bytes per block exceeds the " + target.name.str() + "'s " +
        std::to_string(target.smemBytesPerBlock);
  } else if (plan.threads > target.maxThreadsPerBlock) {
    plan.launchable = false;
    plan.whyNotLaunchable = std::to_string(plan.threads) +
                            " threads per block exceed the " +
                            target.name.str() + "'s " +
                            std::to_string(target.maxThreadsPerBlock);
  }
  return plan;
}
