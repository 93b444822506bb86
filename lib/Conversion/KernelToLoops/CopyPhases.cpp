//===- CopyPhases.cpp - Input iterators and output savers -----------------===//
//
// A copy phase moves one tile between a device tensor and workgroup memory.
// Offsets come from TileOffsets.h, instantiated with affine expressions over
// (element, block x, block y, block z, iteration): the evaluator's offsets,
// as index code. All index math is affine.apply (the tensor-core conversion
// and async-copy rewrites downstream rely on it). Copies move 16 bytes per
// thread and step along the tile's contiguous run (TileCopy.h) when it
// allows, so that the GPU path can turn them into cp.async.
//
//===----------------------------------------------------------------------===//
#include "BlockEmitter.h"

#include "Mirage/Semantics/TileCopy.h"
#include "Mirage/Semantics/TileOffsets.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::loops;

namespace {

/// Copies the box `shape` from `src` at offsets `srcOff` to `dst` at
/// `dstOff`; offsets are affine in dims 1..4 (bx, by, bz, it), and dim 0 is
/// the element index. Converts element types when they differ.
void copyBox(BlockEmitter &em, Value src, ArrayRef<AffineExpr> srcOff,
             Value dst, ArrayRef<AffineExpr> dstOff, ArrayRef<int64_t> shape) {
  MLIRContext *ctx = em.ctx();
  auto srcM = cast<MemRefType>(src.getType());
  auto dstM = cast<MemRefType>(dst.getType());
  Type srcT = srcM.getElementType();
  Type dstT = dstM.getElementType();
  int64_t bytes = std::max(srcT.getIntOrFloatBitWidth(),
                           dstT.getIntOrFloatBitWidth()) / 8;
  CopyRun run = copyRun(shape, srcM.getShape(), dstM.getShape(), bytes);
  int64_t vec = run.vec;
  int64_t last = shape.back();
  if (vec > 1 && last % vec != 0) {
    // The run spans trailing dims (a tile of [.., rows, 1] partials):
    // copy it through views with those dims collapsed into one, the
    // offsets linearized along them.
    SmallVector<ReassociationIndices> groups;
    for (size_t d = 0; d < run.from; ++d)
      groups.push_back({static_cast<int64_t>(d)});
    ReassociationIndices tail;
    for (size_t d = run.from; d < shape.size(); ++d)
      tail.push_back(static_cast<int64_t>(d));
    groups.push_back(tail);
    auto linearize = [&](ArrayRef<AffineExpr> off, ArrayRef<int64_t> dims) {
      SmallVector<AffineExpr> out(off.begin(), off.begin() + run.from);
      AffineExpr lin = getAffineConstantExpr(0, ctx);
      for (size_t d = run.from; d < dims.size(); ++d)
        lin = lin * dims[d] + off[d];
      out.push_back(lin);
      return out;
    };
    SmallVector<int64_t> box(shape.begin(), shape.begin() + run.from);
    box.push_back(run.elements);
    Value srcC = memref::CollapseShapeOp::create(em.b, em.loc, src, groups);
    Value dstC = memref::CollapseShapeOp::create(em.b, em.loc, dst, groups);
    copyBox(em, srcC, linearize(srcOff, srcM.getShape()), dstC,
            linearize(dstOff, dstM.getShape()), box);
    return;
  }
  Shape vshape(shape.begin(), shape.end());
  vshape.back() = last / vec;
  Value zero = em.index(em.b, 0);
  Value it = em.iter ? em.iter : zero;
  SmallVector<Value> dims{Value(), em.blockIds[0], em.blockIds[1],
                          em.blockIds[2], it};
  AffineExpr e = getAffineDimExpr(0, ctx);
  em.threadPhase(numElements(vshape), [&](OpBuilder &ob, Value lin) {
    dims[0] = lin;
    SmallVector<Value> si, di;
    int64_t stride = numElements(vshape);
    for (size_t d = 0; d < shape.size(); ++d) {
      stride /= vshape[d];
      AffineExpr local = e.floorDiv(stride) % vshape[d];
      if (d + 1 == shape.size())
        local = local * vec;
      si.push_back(em.apply(ob, srcOff[d] + local, dims));
      di.push_back(em.apply(ob, dstOff[d] + local, dims));
    }
    auto mark = [&](Operation *copy) {
      if (!em.prefetch)
        return;
      copy->setAttr(kPrefetchStagesAttr,
                    ob.getI64IntegerAttr(em.prefetch->stages));
      copy->setAttr(kPrefetchGroupAttr,
                    ob.getI64IntegerAttr(em.prefetch->group));
      if (em.prefetch->wait)
        copy->setAttr(kPrefetchWaitAttr,
                      ob.getI64IntegerAttr(*em.prefetch->wait));
    };
    if (vec == 1) {
      Value x = memref::LoadOp::create(ob, em.loc, src, si);
      mark(memref::StoreOp::create(ob, em.loc, em.convert(ob, x, dstT), dst, di));
      return;
    }
    auto srcV = VectorType::get({vec}, srcT);
    Value v = vector::TransferReadOp::create(
        ob, em.loc, srcV, src, si,
        /*padding=*/std::nullopt, ArrayRef<bool>{true});
    if (srcT != dstT) {
      auto dstV = VectorType::get({vec}, dstT);
      v = srcT.getIntOrFloatBitWidth() < dstT.getIntOrFloatBitWidth()
              ? (Value)arith::ExtFOp::create(ob, em.loc, dstV, v)
              : (Value)arith::TruncFOp::create(ob, em.loc, dstV, v);
    }
    mark(vector::TransferWriteOp::create(ob, em.loc, v, dst, di,
                                         ArrayRef<bool>{true}));
  });
}

std::array<AffineExpr, 3> blockDims(MLIRContext *ctx) {
  return {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx),
          getAffineDimExpr(3, ctx)};
}

} // namespace

bool BlockEmitter::emitIterator(const UOp &op) {
  int32_t tile = op.results[0];
  const Shape &shape = g.values[tile].shape;
  AffineExpr zero = getAffineConstantExpr(0, ctx());
  SmallVector<AffineExpr, 4> src = iteratorTileOffsetsOf<AffineExpr>(
      shape, blockDims(ctx()), getAffineDimExpr(4, ctx()), g.forloopRange,
      op.map, op.fmap, zero);
  SmallVector<AffineExpr, 4> dst(shape.size(), zero);
  if (storedTransposed(g, tile)) {
    // Stored rows into stored rows: the tile lies as its tensor does
    // (OperandLayouts.md), so the box and its offsets swap their last two
    // dims and the run is the tensor's own.
    std::swap(src[src.size() - 1], src[src.size() - 2]);
    copyBox(*this, stored.lookup(op.operands[0]), src, stored.lookup(tile), dst,
            swapLastTwo(shape));
    return true;
  }
  copyBox(*this, mem[op.operands[0]], src, mem[tile], dst, shape);
  return true;
}

bool BlockEmitter::emitGroupedIterator(const UOp &op, int64_t stages,
                                       int64_t group,
                                       std::optional<int64_t> wait) {
  prefetch = PrefetchGroup{stages, group, wait};
  bool ok = emitIterator(op);
  prefetch.reset();
  return ok;
}

bool BlockEmitter::emitSaver(const UOp &op) {
  int32_t tile = op.operands[0];
  const Shape &shape = g.values[tile].shape;
  AffineExpr zero = getAffineConstantExpr(0, ctx());
  SmallVector<AffineExpr, 4> dst =
      saverTileOffsetsOf<AffineExpr>(shape, blockDims(ctx()), op.map, zero);
  if (readInPlace(tile))
    return emitComputedSaver(op, dst);
  SmallVector<AffineExpr, 4> src(shape.size(), zero);
  copyBox(*this, mem[tile], src, mem[op.results[0]], dst, shape);
  return true;
}

bool BlockEmitter::emitComputedSaver(const UOp &op,
                                     ArrayRef<AffineExpr> dstOff) {
  // The element-wise op the saver reads has no tile
  // (ElementsInReductions.md): each step computes its elements and writes
  // them to the device tensor, in vectors where its operands' rows and the
  // device tensor's allow.
  int32_t tile = op.operands[0];
  const Shape &shape = g.values[tile].shape;
  Value out = mem[op.results[0]];
  auto outT = cast<MemRefType>(out.getType());
  int64_t width = vectorWidth(shape, {tile});
  if (outT.getShape().back() % width != 0)
    width = 1;
  Value it = iter ? iter : index(b, 0);
  vectorPhase(shape, width, [&](OpBuilder &ob, ArrayRef<Value> idx) {
    SmallVector<Value> xs = loadLanes(ob, tile, idx, width);
    SmallVector<Value> at;
    for (size_t d = 0; d < shape.size(); ++d)
      at.push_back(apply(ob, getAffineDimExpr(0, ctx()) + dstOff[d],
                         {idx[d], blockIds[0], blockIds[1], blockIds[2], it}));
    Type t = outT.getElementType();
    if (width == 1) {
      memref::StoreOp::create(ob, loc, convert(ob, xs[0], t), out, at);
      return;
    }
    SmallVector<Value> stored;
    for (Value x : xs)
      stored.push_back(convert(ob, x, t));
    Value v = vector::FromElementsOp::create(
        ob, loc, VectorType::get({width}, t), stored);
    // Aligned as a vector: device tensors start 16-byte aligned (the
    // driver's allocations; the CPU path's buffers and temporaries), the
    // tile's offset along the last dim is a multiple of its extent and its
    // rows of the device tensor's last dim, both multiples of `width`.
    vector::StoreOp::create(ob, loc, v, out, at, /*nontemporal=*/false,
                            llvm::Align(width * t.getIntOrFloatBitWidth() / 8));
  });
  return true;
}
