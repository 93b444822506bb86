//===- MatmulPhases.cpp - Block-level matmuls -----------------------------===//
//
// C (+)= A · B on tiles, with f32 accumulation. Two forms:
//
//  * tensor-core form (when the launch plan says so, KernelPlan.cpp: f16/bf16
//    operands, N % 8, K % 16, padded M; the plan states why not): a warp
//    phase; each warp takes 16x8 output tiles in turn and runs the K loop on
//    native 16x8x16 `vector.contract`s (A read (m,k), B read transposed
//    (n,k) — ldmatrix.trans on the GPU) with the accumulator carried in the
//    loop's iter_args: the form upstream's vector-to-nvgpu conversion turns
//    into mma.sync (docs/Rationale/Lowering.md, GPU path); when the plan
//    splits K (MatmulPlan::partials, docs/Rationale/MmaChains.md), a warp
//    item is (fragment, slice) whose loop carries several accumulators over
//    disjoint K ranges, written to the plan's scratch and added into C by
//    a phase of their own;
//  * FMA form: each thread a register micro-tile of the plan's rows x
//    columns (FmaMicroTiles.md), FMA over k.
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

/// One native 16x8x16 MMA step on 2-D tiles: A read (m, k), B read
/// transposed (n, k), into an f32 16x8 accumulator; the form upstream's
/// vector-to-nvgpu conversion turns into ldmatrix + mma.sync.
struct NativeMma {
  Location loc;
  VectorType aT, bT, cT;
  ArrayAttr maps, iterators;
  AffineMap transposed;

  NativeMma(OpBuilder &b, Location loc, Type operand) : loc(loc) {
    MLIRContext *c = b.getContext();
    aT = VectorType::get({kMmaM, kMmaK}, operand);
    bT = VectorType::get({kMmaN, kMmaK}, operand);
    cT = VectorType::get({kMmaM, kMmaN}, b.getF32Type());
    auto d0 = getAffineDimExpr(0, c), d1 = getAffineDimExpr(1, c),
         d2 = getAffineDimExpr(2, c);
    // (m, n, k): A (m, k), B (n, k), C (m, n).
    maps = b.getAffineMapArrayAttr({AffineMap::get(3, 0, {d0, d2}, c),
                                    AffineMap::get(3, 0, {d1, d2}, c),
                                    AffineMap::get(3, 0, {d0, d1}, c)});
    auto par = vector::IteratorTypeAttr::get(c, vector::IteratorType::parallel);
    auto red =
        vector::IteratorTypeAttr::get(c, vector::IteratorType::reduction);
    iterators = b.getArrayAttr({par, par, red});
    transposed = AffineMap::get(2, 0, {d1, d0}, c);
  }

  Value zero(OpBuilder &b) const {
    return arith::ConstantOp::create(
        b, loc, cT, DenseElementsAttr::get(cT, b.getF32FloatAttr(0)));
  }

  /// A fragment of type `t` at logical (row, col) of `x`, read transposed
  /// or not. A tile stored transposed holds it at (col, row): the read
  /// swaps its indices and its transposition (ldmatrix without `.trans`
  /// where the logical read needs it, and the reverse).
  Value read(OpBuilder &b, VectorType t, const MmaOperand &x, Value row,
             Value col, bool transposedRead) const {
    if (x.swapped) {
      // A fragment never straddles batch entries (its rows and columns
      // are multiples of the MMA's within one entry).
      MLIRContext *c = b.getContext();
      AffineExpr r = getAffineDimExpr(0, c), k = getAffineDimExpr(1, c);
      auto at = [&](AffineExpr e) {
        return affine::AffineApplyOp::create(b, loc, AffineMap::get(2, 0, e),
                                             ValueRange{row, col})
            .getResult();
      };
      Value storedRow = at(r.floorDiv(x.rows) * x.cols + k);
      col = at(r % x.rows);
      row = storedRow;
      transposedRead = !transposedRead;
    }
    AffineMap perm = transposedRead ? transposed : b.getMultiDimIdentityMap(2);
    return vector::TransferReadOp::create(b, loc, t, x.mem, {row, col},
                                          std::nullopt, perm,
                                          ArrayRef<bool>{true, true});
  }

  /// A's 16x16 fragment at (aRow, aCol).
  Value readA(OpBuilder &b, const MmaOperand &A, Value aRow, Value aCol) const {
    return read(b, aT, A, aRow, aCol, /*transposedRead=*/false);
  }

  /// B's 16x8 block at (bRow, bCol), K along its rows, read transposed.
  Value readB(OpBuilder &b, const MmaOperand &B, Value bRow, Value bCol) const {
    return read(b, bT, B, bRow, bCol, /*transposedRead=*/true);
  }

  /// acc + a · b on fragments read by readA and readB.
  Value contract(OpBuilder &b, Value a, Value bv, Value acc) const {
    return vector::ContractionOp::create(b, loc, a, bv, acc, maps, iterators);
  }

  /// acc + A[aRow.., aCol..] · B[bRow.., bCol..] (B's 16x8 block at
  /// (bRow, bCol), K along its rows).
  Value step(OpBuilder &b, const MmaOperand &A, const MmaOperand &B, Value aRow,
             Value aCol, Value bRow, Value bCol, Value acc) const {
    return contract(b, readA(b, A, aRow, aCol), readB(b, B, bRow, bCol), acc);
  }

  /// acc + (W[kRow.., col..])ᵀ · (X[0.., kRow..])ᵀ: a fragment of Cᵀ for
  /// C = X · W (TransposedDecodeMma.md), W's 16 columns from `col` as the
  /// MMA's rows (read transposed: ldmatrix.trans of an A operand on the
  /// GPU), X's 8 (padded) rows as its columns, as stored.
  /// A weight stored transposed (N x K, OperandLayouts.md) gives its
  /// fragment without `.trans`.
  Value stepTransposed(OpBuilder &b, const MmaOperand &W, const MmaOperand &X,
                       Value kRow, Value col, Value acc) const {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value av = read(b, aT, W, kRow, col, /*transposedRead=*/true);
    Value bv = read(b, bT, X, zero, kRow, /*transposedRead=*/false);
    return vector::ContractionOp::create(b, loc, av, bv, acc, maps, iterators);
  }
};
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
    MmaOperand A = mmaOperand(a), B = mmaOperand(bv);
    if (mp->usesScratch()) {
      emitSplitMma(op, *mp, A, B, batch, k, n);
      return true;
    }
    Value C = collapse2D(b, loc, mem[c]);
    NativeMma mma(b, loc, toMLIRType(ctx(), at));
    int64_t tilesM = m / kMmaM, tilesN = n / kMmaN;
    AffineExpr t = getAffineDimExpr(0, ctx()), kk = getAffineDimExpr(1, ctx());
    AffineExpr bIdx = t.floorDiv(tilesM * tilesN);
    AffineExpr i = t.floorDiv(tilesN) % tilesM, j = t % tilesN;
    AffineExpr rowC = bIdx * m + i * kMmaM, colC = j * kMmaN;
    int64_t warps = plan.warps;
    warpGroupPhase(batch * tilesM * tilesN, [&](OpBuilder &ob,
                                                ArrayRef<WarpItem> items) {
      // Per item: the fragment's row, column and batch entry, and the keys
      // of the A and B fragments it reads (items of one warp with equal
      // keys read the same fragment). Unrolled over W warps that divide a
      // row of fragments, item = w + offset has column tile w + offset mod
      // tilesN and a constant row: indices that the warp alone moves, which
      // the GPU stage needs to tell the fragments of a warp apart and carry
      // them in registers across the for-loop (MmaChains.md, "Partials in
      // registers across the loop").
      struct Fragment {
        Value row, col, entry;
        int64_t aKey, bKey;
      };
      // Keys of the A and B fragments of the item at distance d = j·W from
      // the first of G items (w + c·W·G + j·W, c the chunk; c = 0 when
      // unrolled). When W divides a row of fragments and the G items tile
      // whole rows or lie in one (W·G a multiple or a divisor of tilesN),
      // the first item's column is w in every chunk, or its row holds the
      // whole chunk: item j is floor(d / tilesN) rows and d mod tilesN
      // columns after it, in the same batch entry when the chunk does not
      // cross one (tilesM·tilesN a multiple of W·G). When W is a multiple
      // of tilesN, every item has the first one's column (one batch entry).
      // Otherwise each item reads its own fragments.
      auto sharedReads = [&](int64_t d,
                             int64_t ordinal) -> std::pair<int64_t, int64_t> {
        int64_t span = warps * static_cast<int64_t>(items.size());
        bool rowsAligned = tilesN % warps == 0 &&
                           (span % tilesN == 0 || tilesN % span == 0) &&
                           (batch == 1 || (tilesM * tilesN) % span == 0);
        if (rowsAligned)
          return {d / tilesN, d % tilesN};
        if (batch == 1 && warps % tilesN == 0)
          return {ordinal, -1};
        return {ordinal, -1 - ordinal};
      };
      SmallVector<Fragment, kMaxUnrolledWarpItems> frags;
      for (const WarpItem &wi : items) {
        int64_t ordinal = static_cast<int64_t>(frags.size());
        if (wi.offset >= 0 && tilesN % warps == 0) {
          int64_t t0 = wi.offset / tilesN;
          int64_t b0 = t0 / tilesM, i0 = t0 % tilesM;
          frags.push_back({index(ob, b0 * m + i0 * kMmaM),
                           apply(ob, (t + wi.offset % tilesN) * kMmaN, wi.warp),
                           index(ob, b0), t0,
                           b0 * tilesN + wi.offset % tilesN});
          continue;
        }
        // Indices of the item alone; which fragments it shares with the
        // warp's other items follows from their distance (sharedReads).
        auto [aKey, bKey] = sharedReads(wi.inChunk, ordinal);
        frags.push_back({apply(ob, rowC, wi.item), apply(ob, colC, wi.item),
                         apply(ob, bIdx, wi.item), aKey, bKey});
      }
      SmallVector<Value, kMaxUnrolledWarpItems> inits;
      for (const Fragment &f : frags)
        inits.push_back(accumulate
                            ? (Value)vector::TransferReadOp::create(
                                  ob, loc, mma.cT, C, {f.row, f.col},
                                  std::nullopt, ArrayRef<bool>{true, true})
                            : mma.zero(ob));
      // One K loop for all of them (MmaChains.md, "A warp's fragments in
      // one K loop"): each step reads a shared fragment once, and the
      // fragments' mma.sync are independent of each other.
      auto loop = scf::ForOp::create(ob, loc, index(ob, 0),
                                     index(ob, k / kMmaK), index(ob, 1), inits);
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value step = loop.getInductionVar();
      llvm::SmallDenseMap<int64_t, Value> aReads, bReads;
      SmallVector<Value, kMaxUnrolledWarpItems> next;
      for (auto [u, f] : llvm::enumerate(frags)) {
        Value &av = aReads[f.aKey];
        if (!av)
          av = mma.readA(lb, A, f.row, apply(lb, kk * kMmaK, {f.entry, step}));
        Value &bvRead = bReads[f.bKey];
        if (!bvRead)
          bvRead = mma.readB(
              lb, B, apply(lb, t * k + kk * kMmaK, {f.entry, step}), f.col);
        next.push_back(mma.contract(lb, av, bvRead, loop.getRegionIterArg(u)));
      }
      scf::YieldOp::create(lb, loc, next);
      for (auto [u, f] : llvm::enumerate(frags))
        vector::TransferWriteOp::create(ob, loc, loop.getResult(u), C,
                                        {f.row, f.col},
                                        ArrayRef<bool>{true, true});
    });
    return true;
  }

  emitFmaMatmul(op, mp, intoAccum);
  return true;
}

void BlockEmitter::emitFmaMatmul(const UOp &op, const MatmulPlan *mp,
                                 int32_t intoAccum) {
  // FmaMicroTiles.md: item = ((batch entry) * rowGroups + rowGroup) *
  // colGroups + colGroup; its rows rowGroup * R + i (clamped to M - 1, the
  // clamped ones not stored), its columns colGroup + j * colGroups.
  int32_t a = op.operands[0], bv = op.operands[1];
  bool accumulate = intoAccum >= 0;
  int32_t c = accumulate ? g.ops[intoAccum].results[0] : op.results[0];
  const Shape &as = g.values[a].shape, &cs = g.values[c].shape;
  size_t r = as.size();
  int64_t m = as[r - 2], k = as[r - 1], n = cs[r - 1];
  int64_t rowsPer = mp ? mp->microRows : 1, colsPer = mp ? mp->microCols : 1;
  int64_t rowGroups = llvm::divideCeil(m, rowsPer), colGroups = n / colsPer;
  Shape items(cs.begin(), cs.end());
  items[r - 2] = rowGroups;
  items[r - 1] = colGroups;
  bool clamped = rowGroups * rowsPer != m;
  threadPhase(numElements(items), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, items);
    AffineExpr d = getAffineDimExpr(0, ctx());
    SmallVector<Value> rowIdx, colIdx;
    for (int64_t i = 0; i < rowsPer; ++i) {
      Value row = apply(ob, d * rowsPer + i, idx[r - 2]);
      if (clamped && i > 0)
        row = arith::MinSIOp::create(ob, loc, row, index(ob, m - 1));
      rowIdx.push_back(row);
    }
    for (int64_t j = 0; j < colsPer; ++j)
      colIdx.push_back(apply(ob, d + j * colGroups, idx[r - 1]));
    auto at = [&](Value row, Value col) {
      SmallVector<Value> pos(idx.begin(), idx.end());
      pos[r - 2] = row;
      pos[r - 1] = col;
      return pos;
    };
    SmallVector<Value> inits;
    for (Value row : rowIdx)
      for (Value col : colIdx)
        inits.push_back(accumulate ? load(ob, c, at(row, col))
                                   : constF(ob, 0.0));
    auto loop = scf::ForOp::create(ob, loc, index(ob, 0), index(ob, k),
                                   index(ob, 1), inits);
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value kv = loop.getInductionVar();
    SmallVector<Value> aVals, bVals, next;
    for (Value row : rowIdx)
      aVals.push_back(load(lb, a, at(row, kv)));
    for (Value col : colIdx)
      bVals.push_back(load(lb, bv, at(kv, col)));
    for (int64_t i = 0; i < rowsPer; ++i)
      for (int64_t j = 0; j < colsPer; ++j)
        next.push_back(
            math::FmaOp::create(lb, loc, aVals[i], bVals[j],
                                loop.getRegionIterArg(i * colsPer + j)));
    scf::YieldOp::create(lb, loc, next);
    for (int64_t i = 0; i < rowsPer; ++i) {
      OpBuilder sb(ob.getInsertionBlock(), ob.getInsertionPoint());
      if (clamped && i > 0) {
        // A clamped row duplicates row M - 1: only the real one stores.
        Value real = arith::CmpIOp::create(
            ob, loc, arith::CmpIPredicate::slt,
            apply(ob, d * rowsPer + i, idx[r - 2]), index(ob, m));
        auto guard = scf::IfOp::create(ob, loc, real, /*withElse=*/false);
        sb = OpBuilder::atBlockTerminator(guard.thenBlock());
      }
      for (int64_t j = 0; j < colsPer; ++j)
        store(sb, loop.getResult(i * colsPer + j), c, at(rowIdx[i], colIdx[j]));
    }
  });
}

MmaOperand BlockEmitter::mmaOperand(int32_t v) {
  Value s = stored.lookup(v);
  if (!s)
    return {collapse2D(b, loc, mem[v]), false};
  ArrayRef<int64_t> shape = cast<MemRefType>(s.getType()).getShape();
  return {collapse2D(b, loc, s), true, shape.back(), shape[shape.size() - 2]};
}

void BlockEmitter::emitSplitMma(const UOp &op, const MatmulPlan &mp,
                                const MmaOperand &A, const MmaOperand &B,
                                int64_t batch, int64_t k, int64_t n) {
  // MmaChains.md: item = fragment * slices + slice; chain u of slice s sums
  // K steps [p * len, (p + 1) * len) for partial p = s * chains + u into
  // rows p * rowsOfC + row of the scratch tile: from a zero fragment, or,
  // into an accumulator, from what the partial held after the previous
  // iteration. Transposed (TransposedDecodeMma.md), a fragment is Cᵀ's 16
  // columns from fragment * 16 by the tokens, at row p * N + column of the
  // scratch (partialSumsShape, KernelPlan.cpp).
  int64_t m = mp.paddedRows, slices = mp.slices, chains = mp.chains;
  int64_t partials = mp.partials(), len = k / kMmaK / partials;
  int64_t rowsOfC = batch * m;
  int64_t tilesM = m / kMmaM, tilesN = n / kMmaN;
  int64_t fragments = mp.fragments(batch, n, kMmaM, kMmaN);
  Value partialSums = scratch.lookup(opIndex(op));
  NativeMma mma(b, loc, cast<MemRefType>(A.mem.getType()).getElementType());
  MLIRContext *c0 = ctx();
  AffineExpr item = getAffineDimExpr(0, c0), j = getAffineDimExpr(1, c0);
  AffineExpr tile = item.floorDiv(slices), slice = item % slices;
  AffineExpr bIdx = mp.transposed ? getAffineConstantExpr(0, c0)
                                  : tile.floorDiv(tilesM * tilesN);
  AffineExpr i = tile.floorDiv(tilesN) % tilesM, jn = tile % tilesN;
  AffineExpr rowC = bIdx * m + i * kMmaM, colC = jn * kMmaN;
  AffineExpr colT = tile * kMmaM; // transposed: the fragment's first column
  bool accumulate = mp.accumulator >= 0;
  auto slot = [&](OpBuilder &ob, Value it, int64_t u) {
    AffineExpr p = slice * chains + u;
    if (mp.transposed)
      return std::make_pair(apply(ob, p * n + colT, {it}), index(ob, 0));
    return std::make_pair(apply(ob, p * rowsOfC + rowC, {it}),
                          apply(ob, colC, {it}));
  };
  warpPhase(fragments * slices, [&](OpBuilder &ob, const WarpItem &wi) {
    Value it = wi.item;
    SmallVector<Value> inits;
    for (int64_t u = 0; u < chains; ++u) {
      if (!accumulate) {
        inits.push_back(mma.zero(ob));
        continue;
      }
      auto [row, col] = slot(ob, it, u);
      inits.push_back(vector::TransferReadOp::create(
          ob, loc, mma.cT, partialSums, {row, col}, std::nullopt,
          ArrayRef<bool>{true, true}));
    }
    auto loop = scf::ForOp::create(ob, loc, index(ob, 0), index(ob, len),
                                   index(ob, 1), inits);
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value step = loop.getInductionVar();
    SmallVector<Value> next;
    for (int64_t u = 0; u < chains; ++u) {
      AffineExpr kStep = (slice * chains + u) * len + j;
      if (mp.transposed) {
        next.push_back(mma.stepTransposed(
            lb, B, A, apply(lb, kStep * kMmaK, {it, step}),
            apply(lb, colT, {it, step}), loop.getRegionIterArg(u)));
        continue;
      }
      next.push_back(mma.step(lb, A, B, apply(lb, rowC, {it, step}),
                              apply(lb, kStep * kMmaK, {it, step}),
                              apply(lb, bIdx * k + kStep * kMmaK, {it, step}),
                              apply(lb, colC, {it, step}),
                              loop.getRegionIterArg(u)));
    }
    scf::YieldOp::create(lb, loc, next);
    for (int64_t u = 0; u < chains; ++u) {
      auto [row, col] = slot(ob, it, u);
      vector::TransferWriteOp::create(ob, loc, loop.getResult(u), partialSums,
                                      {row, col}, ArrayRef<bool>{true, true});
    }
  });
  // Into an accumulator, the partials stay in the scratch across the loop
  // and join it when it finishes (AccumPhases.cpp); else now.
  if (!accumulate)
    addPartials(op, mp);
}

void BlockEmitter::addPartials(const UOp &op, const MatmulPlan &mp) {
  int32_t c =
      mp.accumulator >= 0 ? g.ops[mp.accumulator].results[0] : op.results[0];
  Value C = collapse2D(b, loc, mem[c]), partialSums = scratch.lookup(mp.op);
  const Shape &as = g.values[op.operands[0]].shape, &cs = g.values[c].shape;
  int64_t n = cs.back();
  int64_t batch = numElements(cs) / (as[as.size() - 2] * n);
  int64_t rowsOfC = batch * mp.paddedRows, partials = mp.partials();
  bool accumulate = mp.accumulator >= 0;
  // C's real rows: M of a single tile (padded rows are never read as
  // results), all of a batch (never padded, KernelPlan.cpp).
  int64_t realRows = batch * as[as.size() - 2];
  threadPhase(realRows * n, [&](OpBuilder &ob, Value e) {
    AffineExpr d = getAffineDimExpr(0, ctx());
    // Transposed, a thread's row varies fastest: neighbouring threads read
    // neighbouring words of a scratch row (Cᵀ's column).
    AffineExpr row = mp.transposed ? d % realRows : d.floorDiv(n);
    AffineExpr column = mp.transposed ? d.floorDiv(realRows) : d % n;
    Value r = apply(ob, row, e), col = apply(ob, column, e);
    Value sum =
        accumulate
            ? (Value)memref::LoadOp::create(ob, loc, C, ValueRange{r, col})
            : (Value)arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(0));
    for (int64_t p = 0; p < partials; ++p) {
      SmallVector<Value, 2> at;
      if (mp.transposed)
        at = {apply(ob, column + p * n, e), r};
      else
        at = {apply(ob, row + p * rowsOfC, e), col};
      sum = arith::AddFOp::create(
          ob, loc, sum, memref::LoadOp::create(ob, loc, partialSums, at));
    }
    memref::StoreOp::create(ob, loc, sum, C, ValueRange{r, col});
  });
}
