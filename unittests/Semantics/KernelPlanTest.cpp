//===- KernelPlanTest.cpp - The launch plan of a block graph --------------===//
#include "Mirage/Semantics/KernelPlan.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {
const TargetInfo &h100() {
  static const TargetInfo t = *lookupTarget("h100");
  return t;
}

/// Y = X · W over a for-loop on K: X [m, k] iterated on K,
/// W [k, n] split over grid x on n, the product summed in an accumulator.
UGraph gemvBlock(int64_t m, int64_t k, int64_t n, int64_t gridX,
                 int64_t forloop, ElemType t = ElemType::F16,
                 bool wTransposed = false) {
  UGraph b(Level::Block);
  b.grid = {gridX, 1, 1};
  b.forloopRange = forloop;
  int32_t bx = b.addInput({m, k}, t);
  // W stored N x K (OperandLayouts.md), as addCustom would mark it.
  int32_t bw = b.addInput({k, n}, t, wTransposed);
  int32_t xt = b.addInputIterator(bx, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(bw, {1, -1, -1}, 0);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  b.markOutput(b.addOutputSaver(acc, {1, -1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;
  return b;
}

/// Y = Σ exp(X · W) over a for-loop on W's columns: the product goes to
/// exp, not into the accumulator.
UGraph productBlock(int64_t m, int64_t k, int64_t n, int64_t gridX) {
  UGraph b(Level::Block);
  b.grid = {gridX, 1, 1};
  b.forloopRange = 2;
  int32_t bx = b.addInput({m, k}, ElemType::F16);
  int32_t bw = b.addInput({k, 2 * n * gridX}, ElemType::F16);
  int32_t xt = b.addInputIterator(bx, {-1, -1, -1}, -1);
  int32_t wt = b.addInputIterator(bw, {1, -1, -1}, 1);
  int32_t e = b.addUnary(UnaryKind::exp, b.addMatmul(xt, wt));
  int32_t acc = b.addAccum(AccumKind::sum, e, -1, 0);
  b.markOutput(b.addOutputSaver(acc, {1, -1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;
  return b;
}
} // namespace

TEST(KernelPlan, SumsAreStoredInF32AndRowsPaddedForTensorCores) {
  // M = 12 rows (more than a transposed product's 8 tokens): the A tile and
  // the accumulator are padded to 16 rows, the accumulator is f32 though the
  // graph is f16.
  UGraph b = gemvBlock(12, 1024, 2048, 64, 16);
  KernelPlan p = planKernel(b, h100());
  ASSERT_EQ(p.matmuls.size(), 1u);
  EXPECT_TRUE(p.matmuls[0].tensorCores) << p.matmuls[0].whyNotTensorCores;
  EXPECT_FALSE(p.matmuls[0].transposed);
  EXPECT_EQ(p.matmuls[0].paddedRows, 16);
  // X's 128-byte rows are read by ldmatrix: 16 bytes more each
  // (tileRowPitch); W's 64-byte rows and the accumulator are not padded.
  int64_t x = 16 * (64 + 8) * 2, w = 64 * 32 * 2, acc = 16 * 32 * 4;
  ASSERT_EQ(p.tiles.size(), 3u);
  EXPECT_EQ(p.tiles[0].pitch, 72);
  EXPECT_EQ(p.tiles[1].pitch, 32);
  EXPECT_EQ(p.tiles[2].pitch, 32);
  EXPECT_EQ(p.tiles[0].bytes, x);
  EXPECT_EQ(p.tiles[1].bytes, w);
  EXPECT_EQ(p.tiles[2].storage, ElemType::F32);
  EXPECT_EQ(p.tiles[2].bytes, acc);
  // X and W are copied in the loop: pipelined, one buffer per stage.
  EXPECT_GE(p.stages, 2);
  EXPECT_EQ(p.tiles[0].buffers, p.stages);
  EXPECT_EQ(p.tiles[1].buffers, p.stages);
  EXPECT_EQ(p.tiles[2].buffers, 1);
  EXPECT_FALSE(p.dynamicShared);
  EXPECT_EQ(p.sharedBytes, (x + w) * p.stages + acc);
  // The declared dtypes count 12 rows of f16: the plan is what is allocated.
  EXPECT_GT(p.sharedBytes, sharedMemoryBytes(b));
}

TEST(KernelPlan, DecodeMatmulsAreTransposed) {
  // TransposedDecodeMma.md. M = 4 tokens, 32 columns a block: Cᵀ = Wᵀ·Xᵀ,
  // X padded to the MMA's 8 columns (not 16 rows), the accumulator not
  // padded, the fragments (2 of 16 columns) in a scratch of Cᵀ's rows.
  UGraph b = gemvBlock(4, 1024, 2048, 64, 16);
  KernelPlan p = planKernel(b, h100());
  ASSERT_EQ(p.matmuls.size(), 1u);
  const MatmulPlan &m = p.matmuls[0];
  EXPECT_TRUE(m.tensorCores) << m.whyNotTensorCores;
  EXPECT_TRUE(m.transposed);
  EXPECT_TRUE(m.usesScratch());
  EXPECT_EQ(m.paddedRows, 8);
  // 4 K steps a run: too short to split.
  EXPECT_EQ(m.partials(), 1);
  int64_t x = 8 * (64 + 8) * 2, w = 64 * 32 * 2, acc = 4 * 32 * 4;
  ASSERT_EQ(p.tiles.size(), 4u);
  EXPECT_EQ(p.tiles[0].bytes, x);
  EXPECT_EQ(p.tiles[1].bytes, w);
  EXPECT_EQ(p.tiles[2].bytes, acc);
  const TilePlan *partials = p.scratchOf(m.op);
  ASSERT_NE(partials, nullptr);
  EXPECT_EQ(partials->shape, (Shape{32, 8}));
  EXPECT_EQ(partials->storage, ElemType::F32);
  EXPECT_EQ(p.sharedBytes, (x + w) * p.stages + acc + 32 * 8 * 4);

  // Not transposed: more than 8 tokens, N not a multiple of 16, a product
  // that adds into no accumulator (its fragments would need a combine phase
  // every run).
  EXPECT_FALSE(planKernel(gemvBlock(9, 1024, 2048, 64, 16), h100())
                   .matmuls[0]
                   .transposed);
  KernelPlan product = planKernel(productBlock(4, 64, 16, 8), h100());
  EXPECT_FALSE(product.matmuls[0].transposed);
  EXPECT_EQ(product.matmuls[0].paddedRows, 16);
  EXPECT_FALSE(planKernel(gemvBlock(4, 1024, 8 * 64, 64, 16), h100())
                   .matmuls[0]
                   .transposed);
}

TEST(KernelPlan, LdmatrixRowsAMultipleOf128BytesArePadded) {
  // Eight 16-byte rows of an ldmatrix matrix 128 bytes apart share their
  // banks; 16 bytes more per row spread them (SharedTilePitch.md).
  EXPECT_EQ(tileRowPitch(64, ElemType::F16, true), 72);
  EXPECT_EQ(tileRowPitch(896, ElemType::F16, true), 904);
  EXPECT_EQ(tileRowPitch(64, ElemType::BF16, true), 72);
  EXPECT_EQ(tileRowPitch(32, ElemType::F32, true), 36);
  // Rows that already spread, and tiles ldmatrix does not read, keep theirs.
  EXPECT_EQ(tileRowPitch(16, ElemType::F16, true), 16);
  EXPECT_EQ(tileRowPitch(56, ElemType::F16, true), 56);
  EXPECT_EQ(tileRowPitch(64, ElemType::F16, false), 64);
  // The plan counts the padding in the bytes it allocates: the decode GEMV
  // of the Qwen2.5-7B gated MLP, x [8 (4 padded), 896] and W [896, 16].
  // (Its fourth tile holds the partial sums of its split K: below.)
  KernelPlan p = planKernel(gemvBlock(4, 3584, 16 * 1184, 1184, 4), h100());
  ASSERT_EQ(p.tiles.size(), 4u);
  EXPECT_EQ(p.tiles[0].pitch, 904);
  EXPECT_EQ(p.tiles[0].bytes, 8 * 904 * 2);
  EXPECT_EQ(p.tiles[1].pitch, 16);
  EXPECT_EQ(p.tiles[1].bytes, 896 * 16 * 2);
}

TEST(KernelPlan, LongMmaChainsAreSplit) {
  // MmaChains.md. The Qwen2.5-7B GEMV, transposed (TransposedDecodeMma.md):
  // one fragment of Cᵀ (16 columns x 8 tokens), 56 K steps per iteration,
  // four warps: 4 slices (one per warp) x 2 chains per warp, 8 partials of
  // 7 steps, 8 x 16 rows (columns of C) x 8 tokens of f32 partial sums.
  KernelPlan p = planKernel(gemvBlock(4, 3584, 16 * 1184, 1184, 4), h100());
  ASSERT_EQ(p.matmuls.size(), 1u);
  const MatmulPlan &m = p.matmuls[0];
  EXPECT_TRUE(m.transposed);
  EXPECT_EQ(m.slices, 4);
  EXPECT_EQ(m.chains, 2);
  const TilePlan *partials = p.scratchOf(m.op);
  ASSERT_NE(partials, nullptr);
  EXPECT_EQ(partials->shape, (Shape{8 * 16, 8}));
  EXPECT_EQ(partials->storage, ElemType::F32);
  EXPECT_EQ(partials->bytes, 8 * 16 * 8 * 4);
  EXPECT_EQ(partials->buffers, 1);

  // A short chain stays whole: 16 fragments over 4 warps, 2 K steps each.
  KernelPlan shortK = planKernel(gemvBlock(32, 64, 64, 1, 2), h100());
  EXPECT_EQ(shortK.matmuls[0].partials(), 1);
  EXPECT_EQ(shortK.scratchOf(shortK.matmuls[0].op), nullptr);

  // Enough fragments for every warp: no slices, but chains while each
  // keeps 4 steps and the partials fit 8 KB (16 x 64 x 4 bytes each: 2).
  KernelPlan wide = planKernel(gemvBlock(16, 1024, 64 * 32, 32, 4), h100());
  const MatmulPlan &w = wide.matmuls[0];
  EXPECT_EQ(w.slices, 1);
  EXPECT_EQ(w.chains, 2);
  EXPECT_LE(wide.scratchOf(w.op)->bytes, kMaxPartialScratchBytes);

  // Without an accumulator the partials are added every time the matmul
  // runs: its chain must be twice as long. Two fragments, 24 K steps: not
  // split; 32: split like the GEMV.
  KernelPlan k24 = planKernel(productBlock(4, 24 * 16, 16, 8), h100());
  ASSERT_EQ(k24.matmuls.size(), 1u);
  EXPECT_EQ(k24.matmuls[0].accumulator, -1);
  EXPECT_EQ(k24.matmuls[0].partials(), 1);
  KernelPlan k32 = planKernel(productBlock(4, 32 * 16, 16, 8), h100());
  EXPECT_EQ(k32.matmuls[0].slices, 2);
  EXPECT_EQ(k32.matmuls[0].chains, 4);

  // Partials divide the steps: 20 K steps make 4 partials of 5 (4 slices
  // x 1 chain), not 8.
  KernelPlan odd = planKernel(gemvBlock(4, 320 * 4, 16 * 8, 8, 4), h100());
  EXPECT_EQ(odd.matmuls[0].slices, 4);
  EXPECT_EQ(odd.matmuls[0].chains, 1);
}

TEST(KernelPlan, FmaMicroTiles) {
  const TargetInfo &t = h100();
  // Per K step: one output per thread, 128 of them, is 4 warps x 2
  // wavefronts (8 cycles) for 4 warps' FMAs (1 cycle of the pipe, 1 of a
  // scheduler's issue); 4 x 4 per thread is 4 x 8 wavefronts for 16 FMA
  // cycles; 8 x 8 balances the pipes (64 each) at 64 cycles of issue.
  FmaCycles one = fmaCycles(1, 1, 128, 1, 1, 1, 128, t);
  EXPECT_DOUBLE_EQ(one.pipe, 8);
  EXPECT_DOUBLE_EQ(one.issue, 1);
  EXPECT_DOUBLE_EQ(fmaCycles(1, 16, 128, 1, 4, 4, 128, t).pipe, 32);
  FmaCycles big = fmaCycles(1, 64, 128, 1, 8, 8, 128, t);
  EXPECT_DOUBLE_EQ(big.pipe, 64);
  EXPECT_DOUBLE_EQ(big.issue, 64);
  // One warp of 8 x 8: a sixth of the pipe, all of its scheduler's issue.
  FmaCycles warp = fmaCycles(1, 8, 256, 1, 8, 8, 128, t);
  EXPECT_DOUBLE_EQ(warp.pipe, 16);
  EXPECT_DOUBLE_EQ(warp.issue, 64);
  // Rows past M are clamped duplicates, counted as work: 13 rows by 4 are
  // 4 row groups. Rounds: 300 items are 2 full rounds and 44 items.
  EXPECT_DOUBLE_EQ(fmaCycles(1, 13, 4, 10, 4, 1, 128, t).pipe,
                   fmaCycles(1, 16, 4, 10, 4, 1, 128, t).pipe);
  EXPECT_DOUBLE_EQ(fmaCycles(1, 300, 1, 1, 1, 1, 128, t).pipe, 8 + 8 + 2 * 2);

  // An f32 prefill block (64 x 64 outputs per block): the micro-tile of
  // least time within the register budget, well below one output per
  // thread.
  KernelPlan p =
      planKernel(gemvBlock(64, 1024, 1024, 16, 16, ElemType::F32), t);
  ASSERT_EQ(p.matmuls.size(), 1u);
  const MatmulPlan &m = p.matmuls[0];
  EXPECT_FALSE(m.tensorCores);
  EXPECT_GE(m.microRows * m.microCols, 16);
  EXPECT_LE(m.microRows * m.microCols + m.microRows + m.microCols +
                kFmaTileOverheadRegisters,
            p.registersPerThread);
  EXPECT_EQ(64 % m.microCols, 0);
  FmaCycles chosen = fmaCycles(1, 64, 64, 64, m.microRows, m.microCols, 128, t);
  EXPECT_DOUBLE_EQ(m.fmaPipeCycles, chosen.pipe);
  EXPECT_DOUBLE_EQ(m.fmaIssueCycles, chosen.issue);
  EXPECT_LT(std::max(m.fmaPipeCycles, m.fmaIssueCycles) * 3,
            fmaCycles(1, 64, 64, 64, 1, 1, 128, t).pipe);

  // A GEMV row (M = 1): never more rows than M.
  KernelPlan gemv =
      planKernel(gemvBlock(1, 4096, 4096, 64, 16, ElemType::F32), t);
  EXPECT_EQ(gemv.matmuls[0].microRows, 1);
  // 13 rows: the choice may clamp (its cycles count the duplicates).
  KernelPlan odd = planKernel(gemvBlock(13, 256, 64, 2, 4, ElemType::F32), t);
  const MatmulPlan &o = odd.matmuls[0];
  EXPECT_LE(o.microRows, 8);
  EXPECT_DOUBLE_EQ(
      o.fmaPipeCycles,
      fmaCycles(1, 13, 32, 64, o.microRows, o.microCols, 128, t).pipe);
  // Tensor-core matmuls have no micro-tile.
  KernelPlan tc = planKernel(gemvBlock(16, 1024, 1024, 32, 16), t);
  EXPECT_TRUE(tc.matmuls[0].tensorCores);
  EXPECT_EQ(tc.matmuls[0].microRows * tc.matmuls[0].microCols, 1);
  EXPECT_EQ(tc.matmuls[0].fmaPipeCycles, 0);
}

TEST(KernelPlan, TensorCoreRefusalsSayWhy) {
  KernelPlan k56 = planKernel(gemvBlock(16, 56 * 16, 1024, 32, 16), h100());
  ASSERT_EQ(k56.matmuls.size(), 1u);
  EXPECT_FALSE(k56.matmuls[0].tensorCores);
  EXPECT_NE(k56.matmuls[0].whyNotTensorCores.find("K = 56"), std::string::npos)
      << k56.matmuls[0].whyNotTensorCores;
  EXPECT_EQ(k56.tensorCoreMatmuls(), 0);
  KernelPlan f32 =
      planKernel(gemvBlock(16, 1024, 1024, 32, 16, ElemType::F32), h100());
  EXPECT_NE(f32.matmuls[0].whyNotTensorCores.find("not both f16 or bf16"),
            std::string::npos);
  PlanOptions off;
  off.tensorCores = false;
  EXPECT_EQ(planKernel(gemvBlock(16, 1024, 1024, 32, 16), h100(), off)
                .tensorCoreMatmuls(),
            0);
}

TEST(KernelPlan, DynamicSharedMemoryPaysTheReserve) {
  // 64 KiB of W per iteration: past the 48 KiB static limit.
  KernelPlan p = planKernel(gemvBlock(16, 4096, 8192, 32, 16), h100());
  EXPECT_TRUE(p.dynamicShared);
  int64_t expected = h100().dynamicSmemReserve;
  for (const TilePlan &t : p.tiles)
    expected += (t.bytes + kDynamicSharedAlign - 1) / kDynamicSharedAlign *
                kDynamicSharedAlign;
  EXPECT_EQ(p.sharedBytes, expected);
  EXPECT_TRUE(p.launchable);
  bool dynamic = false;
  EXPECT_EQ(sharedLayoutBytes({100, 100}, h100(), dynamic), 112 + 112);
  EXPECT_FALSE(dynamic);
}

TEST(KernelPlan, UnlaunchablePlansSayWhichLimit) {
  // A block holding a 2048 x 2048 f16 W tile (8 MiB).
  KernelPlan p = planKernel(gemvBlock(16, 2048, 2048, 1, 1), h100());
  EXPECT_FALSE(p.launchable);
  EXPECT_NE(p.whyNotLaunchable.find("232448"), std::string::npos)
      << p.whyNotLaunchable;
  EXPECT_EQ(p.residentBlocksPerSM, 0);
}

TEST(KernelPlan, SixteenByteCopiesShareTheirStagesRoundTrip) {
  // No loop, so no pipeline. X and W tiles in 16-byte copies, however many
  // per thread (32 here): one cp.async group, one round trip for both.
  KernelPlan wide = planKernel(gemvBlock(16, 256, 4096, 32, 1), h100());
  ASSERT_EQ(wide.copies.size(), 2u);
  EXPECT_EQ(wide.stages, 1);
  EXPECT_TRUE(wide.copies[1].grouped);
  EXPECT_EQ(wide.copies[1].copiesPerThread, 32);
  EXPECT_EQ(wide.copies[1].roundTrips, 0);
  EXPECT_EQ(wide.onceRoundTrips, 1);
  EXPECT_DOUBLE_EQ(wide.bytesInFlightPerBlock,
                   static_cast<double>(wide.onceLoadBytes));
  // W in 4-column slices (8 bytes a row): synchronous copies of single
  // elements, a round trip per copy (2 per thread) besides X's group.
  KernelPlan narrow = planKernel(gemvBlock(16, 64, 256, 64, 1), h100());
  EXPECT_FALSE(narrow.copies[1].grouped);
  EXPECT_EQ(narrow.copies[1].vectorBytes, 2);
  EXPECT_EQ(narrow.copies[1].roundTrips, 2);
  EXPECT_EQ(narrow.onceRoundTrips, 3);
  EXPECT_LT(narrow.bytesInFlightPerBlock, wide.bytesInFlightPerBlock);
}

TEST(KernelPlan, TilesOfTransposedTensorsAreStoredAsTheyLie) {
  // OperandLayouts.md. W's 4-column slices of the narrow case above, W
  // stored N x K: the tile is stored 4 x 64 as W lies, its rows the
  // tensor's, copied in 16-byte cp.async steps instead of element by
  // element.
  KernelPlan narrow = planKernel(
      gemvBlock(16, 64, 256, 64, 1, ElemType::F16, /*wTransposed=*/true),
      h100());
  ASSERT_EQ(narrow.copies.size(), 2u);
  EXPECT_TRUE(narrow.copies[1].grouped);
  EXPECT_EQ(narrow.copies[1].vectorBytes, 16);
  const TilePlan *w = nullptr;
  for (const TilePlan &t : narrow.tiles)
    if (t.transposed)
      w = &t;
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->shape, (Shape{4, 64}));
  // The decode GEMV above: still on tensor cores, transposed (the weight
  // as the MMA's A operand, read without .trans), its tile 32 x 64 stored,
  // the 128-byte rows padded for ldmatrix.
  KernelPlan decode =
      planKernel(gemvBlock(4, 1024, 2048, 64, 16, ElemType::F16, true), h100());
  ASSERT_EQ(decode.matmuls.size(), 1u);
  EXPECT_TRUE(decode.matmuls[0].tensorCores)
      << decode.matmuls[0].whyNotTensorCores;
  EXPECT_TRUE(decode.matmuls[0].transposed);
  EXPECT_EQ(decode.tiles[1].shape, (Shape{32, 64}));
  EXPECT_TRUE(decode.tiles[1].transposed);
  EXPECT_EQ(decode.tiles[1].pitch, 72);
  EXPECT_EQ(decode.tiles[1].bytes, 32 * 72 * 2);
}

TEST(KernelPlan, LoopCopiesArePipelined) {
  // W tile 128 x 256 f16 per iteration (32 copies per thread): the loop's
  // copies of an iteration are one group, stages - 1 iterations ahead.
  KernelPlan p = planKernel(gemvBlock(16, 4096, 8192, 32, 32), h100());
  ASSERT_GE(p.stages, 2);
  EXPECT_LE(p.stages, kMaxPipelineStages);
  for (const CopyPlan &c : p.copies) {
    EXPECT_TRUE(c.prefetched);
    EXPECT_TRUE(c.grouped);
  }
  EXPECT_EQ(p.loopRoundTrips, 1);
  EXPECT_GE(p.bytesInFlightPerBlock,
            static_cast<double>((p.stages - 1) * p.loopLoadBytes));
  EXPECT_TRUE(p.launchable) << p.whyNotLaunchable;
  // A loop of one stage's worth of iterations or less is not pipelined
  // deeper than its range.
  EXPECT_LE(planKernel(gemvBlock(16, 1024, 2048, 64, 2), h100()).stages, 2);
}

TEST(KernelPlan, LoopInvariantTilesAreLoadedOnce) {
  // out = Σ_i (X + Y_i): X [16, 64] is the same tile in every iteration
  // (fmap -1) and is fetched once, before the loop; Y's tiles every time.
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  b.forloopRange = 4;
  int32_t bx = b.addInput({16, 64}, ElemType::F16);
  int32_t by = b.addInput({16, 256}, ElemType::F16);
  int32_t xt = b.addInputIterator(bx, {-1, -1, -1}, -1);
  int32_t yt = b.addInputIterator(by, {-1, -1, -1}, 1);
  int32_t acc =
      b.addAccum(AccumKind::sum, b.addBinary(BinaryKind::add, xt, yt), -1, 0);
  b.markOutput(b.addOutputSaver(acc, {-1, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  KernelPlan p = planKernel(b, h100());
  EXPECT_EQ(p.onceLoadBytes, 16 * 64 * 2);
  EXPECT_EQ(p.loopLoadBytes, 16 * 64 * 2);
  ASSERT_EQ(p.copies.size(), 2u);
  EXPECT_FALSE(p.copies[0].inLoop);
  EXPECT_TRUE(p.copies[1].inLoop);
}

TEST(KernelPlan, SerialReductionsAreCounted) {
  // An rms_last accumulator of 8 rows of 4096 per iteration.
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  b.forloopRange = 2;
  int32_t bx = b.addInput({8, 8192}, ElemType::F16);
  int32_t xt = b.addInputIterator(bx, {-1, -1, -1}, 1);
  int32_t acc = b.addAccum(AccumKind::rms_last, xt, -1, 1);
  b.markOutput(b.addOutputSaver(acc, {-1, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  KernelPlan p = planKernel(b, h100());
  // 8 rows x 16 lanes fill the 128 threads: each lane folds 4096 / 16
  // chunks, then a tree folds the 16 lanes in 4 levels; twice (two
  // iterations).
  ASSERT_EQ(p.reductions.size(), 1u);
  EXPECT_EQ(p.reductions[0].lanes, 16);
  EXPECT_EQ(p.serialSteps, 2 * (4096 / 16 + 4));
  const TilePlan *scratch = p.scratchOf(p.reductions[0].op);
  ASSERT_NE(scratch, nullptr);
  EXPECT_EQ(scratch->shape, (Shape{8, 16}));
  EXPECT_EQ(scratch->storage, ElemType::F32);
}

TEST(KernelPlan, ARowAloneIsFoldedByTheWholeBlock) {
  // One row of 8192 per block: 128 lanes (every thread, not one warp),
  // each folding 64 chunks, then 7 tree levels.
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  b.forloopRange = 1;
  int32_t bx = b.addInput({1, 8192}, ElemType::F16);
  int32_t xt = b.addInputIterator(bx, {-1, -1, -1}, -1);
  int32_t acc = b.addAccum(AccumKind::rms_last, xt, -1, 1);
  b.markOutput(b.addOutputSaver(acc, {-1, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  KernelPlan p = planKernel(b, h100());
  ASSERT_EQ(p.reductions.size(), 1u);
  EXPECT_EQ(p.reductions[0].lanes, 128);
  EXPECT_EQ(p.serialSteps, 8192 / 128 + 7);
}

TEST(KernelPlan, TargetsByChip) {
  EXPECT_EQ(lookupTargetByChip("sm_90")->name, "h100");
  EXPECT_EQ(lookupTargetByChip("sm_90a")->name, "h100");
  EXPECT_EQ(lookupTargetByChip("sm_80")->name, "a100");
  EXPECT_FALSE(lookupTargetByChip("sm_75"));
  // Only sm_90 has an architecture-specific variant here; LLVM has no
  // sm_80a (issue 23).
  EXPECT_FALSE(lookupTargetByChip("sm_80a"));
  EXPECT_FALSE(lookupTargetByChip(""));
  EXPECT_EQ(supportedChips(), "sm_80, sm_90, sm_90a");
  EXPECT_EQ(lookupTarget("h100")->chip, "sm_90");
}
