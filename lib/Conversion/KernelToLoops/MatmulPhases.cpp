//===- MatmulPhases.cpp - Block-level matmuls ------------------------------===//
//
// C (+)= A · B on tiles, with f32 accumulation. Two forms:
//
//  * tensor-core form (when the launch plan says so, KernelPlan.cpp: f16/bf16
//    operands, N % 8, K % 16, padded M; the plan states why not): a warp
//    phase; each warp takes 16x8 output tiles in turn and runs the K loop on
//    native 16x8x16 `vector.contract`s (A read (m,k), B read transposed
//    (n,k) — ldmatrix.trans on the GPU) with the accumulator carried in the
//    loop's iter_args: the form upstream's vector-to-nvgpu conversion turns
//    into mma.sync (docs/Rationale/Lowering.md, GPU path);
//  * per-thread form: one thread per output element, FMA over k.
//
// When the product's only user is an un-rescaled `accum sum`, C is that
// accumulator's state and the matmul adds into it (BlockSchedule.h).
// Batched tiles are collapsed to 2-D (rows of all batch entries stacked), so
// every transfer is a plain 2-D read with an identity layout.
//
//===----------------------------------------------------------------------===//
#include "BlockEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::loops;

namespace {
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;

/// `m` collapsed to 2-D: all dims but the last merged into rows.
Value collapse2D(OpBuilder &b, Location loc, Value m) {
  auto t = cast<MemRefType>(m.getType());
  if (t.getRank() == 2)
    return m;
  ReassociationIndices rows;
  for (int64_t d = 0; d + 1 < t.getRank(); ++d)
    rows.push_back(d);
  return memref::CollapseShapeOp::create(
      b, loc, m,
      ArrayRef<ReassociationIndices>{rows, ReassociationIndices{t.getRank() - 1}});
}
} // namespace

bool BlockEmitter::emitMatmul(const UOp &op, int32_t intoAccum) {
  int32_t a = op.operands[0], bv = op.operands[1];
  bool accumulate = intoAccum >= 0;
  int32_t c = accumulate ? g.ops[intoAccum].results[0] : op.results[0];
  const Shape &as = g.values[a].shape, &cs = g.values[c].shape;
  size_t r = as.size();
  int64_t k = as[r - 1], n = cs[r - 1];
  int64_t batch = numElements(cs) / (as[r - 2] * n);
  ElemType at = sched.storage[a];

  const MatmulPlan *mp = plan.matmulOf(opIndex(op));
  if (mp && mp->tensorCores) {
    // M rounded up to the MMA's 16: rows past M are never stored (each
    // output row depends only on its own A row).
    int64_t m = mp->paddedRows;
    Value A = collapse2D(b, loc, mem[a]), B = collapse2D(b, loc, mem[bv]);
    Value C = collapse2D(b, loc, mem[c]);
    Type elem = toMLIRType(ctx(), at);
    auto f32 = b.getF32Type();
    auto aT = VectorType::get({kMmaM, kMmaK}, elem);
    auto bT = VectorType::get({kMmaN, kMmaK}, elem);
    auto cT = VectorType::get({kMmaM, kMmaN}, f32);
    int64_t tilesM = m / kMmaM, tilesN = n / kMmaN;
    AffineExpr t = getAffineDimExpr(0, ctx()), kk = getAffineDimExpr(1, ctx());
    AffineExpr bIdx = t.floorDiv(tilesM * tilesN);
    AffineExpr i = t.floorDiv(tilesN) % tilesM, j = t % tilesN;
    AffineExpr rowC = bIdx * m + i * kMmaM, colC = j * kMmaN;
    MLIRContext *c0 = ctx();
    auto d0 = getAffineDimExpr(0, c0), d1 = getAffineDimExpr(1, c0),
         d2 = getAffineDimExpr(2, c0);
    // (m, n, k): A (m, k), B (n, k), C (m, n).
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0, {d0, d2}, c0), AffineMap::get(3, 0, {d1, d2}, c0),
        AffineMap::get(3, 0, {d0, d1}, c0)};
    auto par = vector::IteratorTypeAttr::get(c0, vector::IteratorType::parallel);
    auto red =
        vector::IteratorTypeAttr::get(c0, vector::IteratorType::reduction);
    ArrayAttr mapsAttr = b.getAffineMapArrayAttr(maps);
    ArrayAttr iters = b.getArrayAttr({par, par, red});
    AffineMap transposed = AffineMap::get(2, 0, {d1, d0}, c0);
    warpPhase(batch * tilesM * tilesN, [&](OpBuilder &ob, Value tile) {
      Value row = apply(ob, rowC, tile), col = apply(ob, colC, tile);
      Value init;
      if (accumulate) {
        init = vector::TransferReadOp::create(ob, loc, cT, C, {row, col},
                                              std::nullopt,
                                              ArrayRef<bool>{true, true});
      } else {
        init = arith::ConstantOp::create(
            ob, loc, cT, DenseElementsAttr::get(cT, ob.getF32FloatAttr(0)));
      }
      auto loop = scf::ForOp::create(ob, loc, index(ob, 0),
                                     index(ob, k / kMmaK), index(ob, 1),
                                     ValueRange{init});
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value step = loop.getInductionVar();
      Value aRow = apply(lb, bIdx * m + i * kMmaM, {tile, step});
      Value aCol = apply(lb, kk * kMmaK, {tile, step});
      Value bRow = apply(lb, bIdx * k + kk * kMmaK, {tile, step});
      Value bCol = apply(lb, j * kMmaN, {tile, step});
      Value av = vector::TransferReadOp::create(
          lb, loc, aT, A, {aRow, aCol}, std::nullopt,
          ArrayRef<bool>{true, true});
      Value bvv = vector::TransferReadOp::create(
          lb, loc, bT, B, {bRow, bCol}, std::nullopt, transposed,
          ArrayRef<bool>{true, true});
      Value next = vector::ContractionOp::create(
          lb, loc, av, bvv, loop.getRegionIterArg(0), mapsAttr, iters);
      scf::YieldOp::create(lb, loc, next);
      vector::TransferWriteOp::create(ob, loc, loop.getResult(0), C,
                                      {row, col}, ArrayRef<bool>{true, true});
    });
    return true;
  }

  // Per-thread form.
  threadPhase(numElements(cs), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, cs);
    Value init = accumulate ? load(ob, c, idx) : constF(ob, 0.0);
    auto loop = scf::ForOp::create(ob, loc, index(ob, 0), index(ob, k),
                                   index(ob, 1), ValueRange{init});
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value kv = loop.getInductionVar();
    SmallVector<Value> ai(idx.begin(), idx.end()), bi(idx.begin(), idx.end());
    ai[r - 1] = kv;
    bi[r - 2] = kv;
    Value prod = math::FmaOp::create(lb, loc, load(lb, a, ai), load(lb, bv, bi),
                                     loop.getRegionIterArg(0));
    scf::YieldOp::create(lb, loc, prod);
    store(ob, loop.getResult(0), c, idx);
  });
  return true;
}
