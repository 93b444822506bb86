//===- EmitterSupport.cpp - Loops, indices and scalar code ----------------===//
#include "BlockEmitter.h"
#include "Mirage/Semantics/ScalarFormulas.h"
#include "Mirage/Semantics/TileCopy.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

using namespace mlir;
using namespace mirage;
using namespace mirage::loops;

FloatType BlockEmitter::computeType() const {
  for (const UValue &v : g.values)
    if (v.type == ElemType::F64)
      return Float64Type::get(b.getContext());
  return Float32Type::get(b.getContext());
}

Value BlockEmitter::index(OpBuilder &ob, int64_t v) {
  return arith::ConstantIndexOp::create(ob, loc, v);
}

Value BlockEmitter::apply(OpBuilder &ob, AffineExpr expr, ValueRange operands) {
  auto map = AffineMap::get(operands.size(), 0, expr);
  return affine::AffineApplyOp::create(ob, loc, map, operands);
}

void BlockEmitter::rowReduction(
    const UOp &op, int64_t width,
    function_ref<SmallVector<Value>(OpBuilder &, Value, Value, int64_t)> elem,
    function_ref<Value(OpBuilder &, Value, Value)> combine,
    function_ref<void(OpBuilder &, Value, Value)> finish) {
  // Every reduction op has a plan (KernelPlan.cpp, reductionShape).
  const ReductionPlan *r = plan.reductionOf(opIndex(op));
  assert(r && "a row reduction without its plan");
  int64_t lanes = r->lanes, outputs = r->outputs, chunks = r->chunks;
  assert(chunks % (lanes * width) == 0 || width == 1);
  // Lane l folds the vectors of `width` chunks v = l, l + lanes, ... (chunks
  // v·width, v·width + 1, ... in order; VectorElementPhases.md); lane 0
  // alone: all chunks, in order.
  AffineExpr l = getAffineDimExpr(0, ctx()), j = getAffineDimExpr(1, ctx());
  auto foldLane = [&](OpBuilder &ob, Value out, Value lane) {
    auto fold = [&](OpBuilder &fb, Value acc, Value chunk) {
      for (Value v : elem(fb, out, chunk, width))
        acc = acc ? combine(fb, acc, v) : v;
      return acc;
    };
    Value first =
        fold(ob, Value(), width == 1 ? lane : apply(ob, l * width, lane));
    int64_t perLane = (chunks / width + lanes - 1) / lanes;
    if (perLane <= 1)
      return first;
    auto loop = scf::ForOp::create(ob, loc, index(ob, 1), index(ob, perLane),
                                   index(ob, 1), ValueRange{first});
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value c =
        apply(lb, (l + j * lanes) * width, {lane, loop.getInductionVar()});
    scf::YieldOp::create(lb, loc, fold(lb, loop.getRegionIterArg(0), c));
    return (Value)loop.getResult(0);
  };
  if (lanes == 1) {
    threadPhase(outputs, [&](OpBuilder &ob, Value out) {
      finish(ob, out, foldLane(ob, out, index(ob, 0)));
    });
    return;
  }
  // The plan's lanes divide the chunks: every lane folds as many. Tagged
  // as the tree's fold: element e = out·lanes + lane, by the thread the
  // tree's levels give it too (WarpReductions.md).
  Value buf = scratch.lookup(opIndex(op));
  Type t = cast<MemRefType>(buf.getType()).getElementType();
  threadPhase(outputs * lanes, [&](OpBuilder &ob, Value e) {
    AffineExpr d = getAffineDimExpr(0, ctx());
    Value out = apply(ob, d.floorDiv(lanes), e);
    Value lane = apply(ob, d % lanes, e);
    memref::StoreOp::create(ob, loc, convert(ob, foldLane(ob, out, lane), t),
                            buf, ValueRange{out, lane});
  })->setAttr(kernel::kReductionFoldAttr,
              b.getDenseI64ArrayAttr({opIndex(op), lanes, outputs}));
  auto at = [&](OpBuilder &lb, Value out, Value l) {
    return convert(lb, memref::LoadOp::create(lb, loc, buf, ValueRange{out, l}),
                   computeType());
  };
  // A tree over the lanes, one phase (and barrier) per level: lane l folds
  // lane l + half into itself, so lane 0 ends with the whole row in
  // log2(lanes) steps instead of `lanes`. Each level is tagged
  // [tree, half, lanes, outputs]: the GPU path folds the levels of one warp
  // with shuffles instead (mirage-gpu-warp-reductions, WarpReductions.md).
  for (int64_t half = lanes / 2; half >= 1; half /= 2)
    threadPhase(outputs * half, [&](OpBuilder &ob, Value e) {
      AffineExpr d = getAffineDimExpr(0, ctx());
      Value out = apply(ob, d.floorDiv(half), e);
      Value lane = apply(ob, d % half, e);
      Value other = apply(ob, d % half + half, e);
      Value sum = combine(ob, at(ob, out, lane), at(ob, out, other));
      memref::StoreOp::create(ob, loc, convert(ob, sum, t), buf,
                              ValueRange{out, lane});
    })->setAttr(kernel::kReductionTreeAttr,
                b.getDenseI64ArrayAttr({opIndex(op), half, lanes, outputs}));
  // Tagged as the tree's finish: output `out` by thread `out`, from lane 0.
  threadPhase(outputs, [&](OpBuilder &ob, Value out) {
    finish(ob, out, at(ob, out, index(ob, 0)));
  })->setAttr(kernel::kReductionFinishAttr,
              b.getDenseI64ArrayAttr({opIndex(op), outputs}));
}

void BlockEmitter::bind(OpBuilder &ob, int32_t v, Value m) {
  if (!storedTransposed(g, v)) {
    mem[v] = m;
    return;
  }
  stored[v] = m;
  int64_t r = cast<MemRefType>(m.getType()).getRank();
  SmallVector<unsigned> perm;
  for (int64_t d = 0; d < r; ++d)
    perm.push_back(static_cast<unsigned>(d));
  std::swap(perm[r - 1], perm[r - 2]);
  mem[v] = memref::TransposeOp::create(
      ob, loc, m,
      AffineMapAttr::get(AffineMap::getPermutationMap(perm, ctx())));
}

Value BlockEmitter::stageView(OpBuilder &ob, Value buffers, Value slot,
                              int64_t cols) {
  auto t = cast<MemRefType>(buffers.getType());
  SmallVector<OpFoldResult> offsets(t.getRank(), ob.getIndexAttr(0));
  offsets[0] = slot;
  // The logical tile: its rows may be padded (TilePlan::pitch).
  SmallVector<int64_t> shape(t.getShape().drop_front());
  shape.back() = cols;
  SmallVector<OpFoldResult> sizes{ob.getIndexAttr(1)};
  for (int64_t d : shape)
    sizes.push_back(ob.getIndexAttr(d));
  SmallVector<OpFoldResult> strides(t.getRank(), ob.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      shape, t, offsets, sizes, strides);
  return memref::SubViewOp::create(ob, loc, cast<MemRefType>(viewType),
                                   buffers, offsets, sizes, strides);
}

scf::ForallOp BlockEmitter::threadPhase(
    int64_t n, function_ref<void(OpBuilder &, Value)> body) {
  auto mapping = b.getArrayAttr(
      {gpu::GPUThreadMappingAttr::get(ctx(), gpu::MappingId::DimX)});
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(plan.threads)},
      ValueRange{}, mapping);
  OpBuilder ob = OpBuilder::atBlockTerminator(forall.getBody());
  Value t = forall.getInductionVar(0);
  if (n <= plan.threads) {
    // One element per thread at most: a guard instead of a loop.
    Value inRange = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                          t, index(ob, n));
    auto ifOp = scf::IfOp::create(ob, loc, inRange, /*withElse=*/false);
    OpBuilder ib = OpBuilder::atBlockTerminator(ifOp.thenBlock());
    body(ib, t);
    return forall;
  }
  auto loop =
      scf::ForOp::create(ob, loc, t, index(ob, n), index(ob, plan.threads));
  OpBuilder lb = OpBuilder::atBlockTerminator(loop.getBody());
  body(lb, loop.getInductionVar());
  return forall;
}

void BlockEmitter::warpPhase(
    int64_t n, function_ref<void(OpBuilder &, const WarpItem &)> body) {
  warpGroupPhase(
      n,
      [&](OpBuilder &ob, ArrayRef<WarpItem> items) {
        for (const WarpItem &wi : items)
          body(ob, wi);
      },
      /*maxChunk=*/1);
}

void BlockEmitter::warpGroupPhase(
    int64_t n, function_ref<void(OpBuilder &, ArrayRef<WarpItem>)> body,
    int64_t maxChunk) {
  auto mapping = b.getArrayAttr(
      {gpu::GPUWarpMappingAttr::get(ctx(), gpu::MappingId::LinearDim0)});
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(plan.warps)}, ValueRange{},
      mapping);
  OpBuilder ob = OpBuilder::atBlockTerminator(forall.getBody());
  Value w = forall.getInductionVar(0);
  // Unrolled: all of a warp's items from w, no loop. Else a loop over
  // chunks of `chunk` items from its induction variable.
  bool unrolled =
      n % plan.warps == 0 && n / plan.warps <= kMaxUnrolledWarpItems;
  int64_t chunk = unrolled ? n / plan.warps : 1;
  if (!unrolled && n % plan.warps == 0)
    for (int64_t g = std::min(maxChunk, n / plan.warps); g > 1; --g)
      if ((n / plan.warps) % g == 0) {
        chunk = g;
        break;
      }
  OpBuilder ib = ob;
  Value first = w;
  if (!unrolled) {
    auto loop = scf::ForOp::create(ob, loc, w, index(ob, n),
                                   index(ob, plan.warps * chunk));
    ib = OpBuilder::atBlockTerminator(loop.getBody());
    first = loop.getInductionVar();
  }
  SmallVector<WarpItem, kMaxUnrolledWarpItems> items;
  for (int64_t j = 0; j < chunk; ++j) {
    int64_t inChunk = j * plan.warps;
    Value item =
        j == 0 ? first : apply(ib, getAffineDimExpr(0, ctx()) + inChunk, first);
    items.push_back(WarpItem{item, w, unrolled ? inChunk : -1, inChunk});
  }
  body(ib, items);
}

SmallVector<Value> BlockEmitter::delinearize(OpBuilder &ob, Value e,
                                             ArrayRef<int64_t> shape) {
  SmallVector<Value> idx;
  AffineExpr d0 = getAffineDimExpr(0, ctx());
  int64_t stride = numElements(shape);
  for (int64_t extent : shape) {
    stride /= extent;
    if (extent == 1) {
      idx.push_back(index(ob, 0));
      continue;
    }
    idx.push_back(apply(ob, d0.floorDiv(stride) % extent, e));
  }
  return idx;
}

Value BlockEmitter::convert(OpBuilder &ob, Value x, Type t) {
  auto from = cast<FloatType>(x.getType());
  auto to = cast<FloatType>(t);
  if (from == to)
    return x;
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(ob, loc, to, x);
  return arith::TruncFOp::create(ob, loc, to, x);
}

/// `idx` as an index into value `v`: a dim of extent 1 is read at 0
/// (broadcasting, Tensor.h broadcastOffset).
static SmallVector<Value> broadcastIndex(BlockEmitter &em, OpBuilder &ob,
                                         int32_t v, ArrayRef<Value> idx) {
  const Shape &shape = em.g.values[v].shape;
  SmallVector<Value> at;
  for (size_t d = 0; d < shape.size(); ++d)
    at.push_back(shape[d] == 1 ? em.index(ob, 0) : idx[d]);
  return at;
}

Value BlockEmitter::load(OpBuilder &ob, int32_t v, ArrayRef<Value> idx) {
  if (readInPlace(v))
    return loadLanes(ob, v, idx, 1).front();
  Value x = memref::LoadOp::create(ob, loc, mem[v],
                                   broadcastIndex(*this, ob, v, idx));
  return convert(ob, x, computeType());
}

/// Whether every vector of `width` elements of `m` that starts at a last
/// index multiple of `width` is `width` elements aligned: a workgroup tile
/// (16-byte aligned allocations) or a view of one whose last dim has unit
/// stride and whose other strides and offset are multiples of `width`.
static bool rowsAligned(Value m, int64_t width) {
  auto t = cast<MemRefType>(m.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return false;
  for (int64_t s : ArrayRef<int64_t>(strides).drop_back())
    if (ShapedType::isDynamic(s) || s % width != 0)
      return false;
  if (m.getDefiningOp<memref::AllocOp>())
    return offset == 0;
  // A view (a padded tile's logical rows, a pipelined tile's stage): its
  // offset is Σ offset_d · stride_d of its source, a multiple of `width`
  // when the source's rows are aligned and the last dim's offset is.
  auto view = m.getDefiningOp<memref::SubViewOp>();
  if (!view || !rowsAligned(view.getSource(), width))
    return false;
  int64_t last = view.getStaticOffsets().back();
  return !ShapedType::isDynamic(last) && last % width == 0;
}

/// The widths a vector step tries, widest first (VectorElementPhases.md).
static constexpr int64_t kVectorWidths[] = {4, 2};

/// Whether vectors of `width` elements of tile `m` are one access each: at
/// most 16 bytes, in workgroup memory, on aligned rows.
static bool vectorFits(Value m, int64_t width) {
  auto t = cast<MemRefType>(m.getType());
  return width * t.getElementTypeBitWidth() <= 8 * kCopyVectorBytes &&
         gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(t) &&
         rowsAligned(m, width);
}

const UOp *BlockEmitter::readInPlace(int32_t v) const {
  int32_t d = g.values[v].def;
  if (d < 0)
    return nullptr;
  return sched.computedIn[d] >= 0 || sched.concatInPlace[d] ? &g.ops[d]
                                                            : nullptr;
}

bool BlockEmitter::lanesFit(int32_t v, int64_t width) {
  const UOp *op = readInPlace(v);
  if (!op)
    return vectorFits(mem[v], width);
  auto fits = [&](int32_t a) {
    return g.values[a].shape.back() == 1 || lanesFit(a, width);
  };
  if (op->kind == OpKind::Concat) {
    // Along the last dim, a vector must lie in one operand: x repeated
    // (x, x) with x's extent a multiple of it; two operands, never.
    int32_t a = op->operands[0], b = op->operands[1];
    bool last = op->dim + 1 == static_cast<int64_t>(g.values[v].shape.size());
    if (last && (a != b || g.values[a].shape.back() % width != 0))
      return false;
    return fits(a) && fits(b);
  }
  // A computed op's operands have tiles or are read in place themselves.
  return llvm::all_of(op->operands, fits);
}

int64_t BlockEmitter::reductionWidth(const UOp &op, int32_t x) {
  const ReductionPlan *r = plan.reductionOf(opIndex(op));
  if (!r)
    return 1;
  for (int64_t width : kVectorWidths)
    if (r->chunks % (r->lanes * width) == 0 && lanesFit(x, width))
      return width;
  return 1;
}

int64_t BlockEmitter::vectorWidth(ArrayRef<int64_t> shape,
                                  ArrayRef<int32_t> values) {
  if (shape.empty())
    return 1;
  for (int64_t width : kVectorWidths) {
    if (shape.back() % width != 0 || numElements(shape) / width < plan.threads)
      continue;
    // A value broadcast along the last dim is read as one scalar per step.
    if (llvm::all_of(values, [&](int32_t v) {
          return g.values[v].shape.back() == 1 || lanesFit(v, width);
        }))
      return width;
  }
  return 1;
}

void BlockEmitter::vectorPhase(
    ArrayRef<int64_t> shape, int64_t width,
    function_ref<void(OpBuilder &, ArrayRef<Value>)> body) {
  Shape steps(shape.begin(), shape.end());
  steps.back() /= width;
  threadPhase(numElements(steps), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, steps);
    if (width > 1)
      idx.back() = apply(ob, getAffineDimExpr(0, ctx()) * width, idx.back());
    body(ob, idx);
  });
}

/// The alignment of a vector of `width` elements of `m` (vectorWidth's
/// rule guarantees it).
static llvm::MaybeAlign vectorAlign(Value m, int64_t width) {
  auto t = cast<MemRefType>(m.getType());
  return llvm::Align(width * t.getElementTypeBitWidth() / 8);
}

SmallVector<Value> BlockEmitter::concatLanes(OpBuilder &ob, const UOp &op,
                                             ArrayRef<Value> idx,
                                             int64_t width) {
  int32_t v = op.results[0], a = op.operands[0], b = op.operands[1];
  int64_t split = g.values[a].shape[op.dim];
  SmallVector<Value> at = broadcastIndex(*this, ob, v, idx);
  AffineExpr d0 = getAffineDimExpr(0, ctx());
  if (a == b) {
    // x repeated: element i of the concat dim is x's element i mod extent.
    at[op.dim] = apply(ob, d0 % split, at[op.dim]);
    return loadLanes(ob, a, at, width);
  }
  // The operand that holds it: a before the split, b after.
  Value inA = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                    at[op.dim], index(ob, split));
  SmallVector<Type> types(width, computeType());
  auto ifOp = scf::IfOp::create(ob, loc, types, inA, /*withElse=*/true);
  OpBuilder tb = OpBuilder::atBlockEnd(ifOp.thenBlock());
  scf::YieldOp::create(tb, loc, loadLanes(tb, a, at, width));
  OpBuilder eb = OpBuilder::atBlockEnd(ifOp.elseBlock());
  SmallVector<Value> bi(at.begin(), at.end());
  bi[op.dim] = apply(eb, d0 - split, at[op.dim]);
  scf::YieldOp::create(eb, loc, loadLanes(eb, b, bi, width));
  return SmallVector<Value>(ifOp.getResults().begin(), ifOp.getResults().end());
}

SmallVector<Value> BlockEmitter::loadLanes(OpBuilder &ob, int32_t v,
                                           ArrayRef<Value> idx, int64_t width) {
  if (const UOp *op = readInPlace(v)) {
    int64_t lanes = g.values[v].shape.back() == 1 ? 1 : width;
    if (op->kind == OpKind::Concat) {
      SmallVector<Value> xs = concatLanes(ob, *op, idx, lanes);
      if (lanes != width)
        xs.assign(width, xs.front());
      return xs;
    }
    // The element the op's phase would have stored, at the same index of
    // the same operands: its arithmetic, then its tile's rounding.
    SmallVector<SmallVector<Value>> ins;
    for (int32_t a : op->operands)
      ins.push_back(loadLanes(ob, a, idx, lanes));
    Type stored = toMLIRType(ctx(), sched.storage[v]);
    // The op's lanes held here: a range-for over an element of the
    // returned temporary would outlive it.
    SmallVector<SmallVector<Value>> outs =
        elementwiseLanes(ob, *op, ins, lanes, expFormFor(op->results));
    SmallVector<Value> xs;
    for (Value x : outs.front())
      xs.push_back(convert(ob, convert(ob, x, stored), computeType()));
    if (lanes != width)
      xs.assign(width, xs.front());
    return xs;
  }
  if (width == 1 || g.values[v].shape.back() == 1)
    return SmallVector<Value>(width, load(ob, v, idx));
  Value m = mem[v];
  auto vt =
      VectorType::get({width}, cast<MemRefType>(m.getType()).getElementType());
  Value x =
      vector::LoadOp::create(ob, loc, vt, m, broadcastIndex(*this, ob, v, idx),
                             /*nontemporal=*/false, vectorAlign(m, width));
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < width; ++i)
    lanes.push_back(
        convert(ob, vector::ExtractOp::create(ob, loc, x, i), computeType()));
  return lanes;
}

void BlockEmitter::storeLanes(OpBuilder &ob, ArrayRef<Value> xs, int32_t v,
                              ArrayRef<Value> idx) {
  if (xs.size() == 1)
    return store(ob, xs[0], v, idx);
  Value m = mem[v];
  Type t = cast<MemRefType>(m.getType()).getElementType();
  SmallVector<Value> stored;
  for (Value x : xs)
    stored.push_back(convert(ob, x, t));
  auto vt = VectorType::get({static_cast<int64_t>(xs.size())}, t);
  Value x = vector::FromElementsOp::create(ob, loc, vt, stored);
  vector::StoreOp::create(ob, loc, x, m, idx, /*nontemporal=*/false,
                          vectorAlign(m, static_cast<int64_t>(xs.size())));
}

void BlockEmitter::store(OpBuilder &ob, Value x, int32_t v,
                         ArrayRef<Value> idx) {
  Value m = mem[v];
  Type t = cast<MemRefType>(m.getType()).getElementType();
  memref::StoreOp::create(ob, loc, convert(ob, x, t), m, idx);
}

Value BlockEmitter::constF(OpBuilder &ob, double v) {
  return arith::ConstantOp::create(ob, loc, computeType(),
                                   ob.getFloatAttr(computeType(), v));
}

namespace {
/// The emitter as a domain of ScalarFormulas.h: values are SSA values of the
/// compute type, each operation creates its arith or math op, so the code
/// computes the formulas the float64 evaluator computes, in the same order.
struct ArithDomain {
  using Value = mlir::Value;
  BlockEmitter &em;
  OpBuilder &ob;
  Location loc;
  BlockEmitter::ExpForm expForm = BlockEmitter::ExpForm::Exact;

  Value fromInt(int64_t v) const { return em.constF(ob, (double)v); }
  Value fromDouble(double v) const { return em.constF(ob, v); }
  Value add(Value a, Value b) const { return arith::AddFOp::create(ob, loc, a, b); }
  Value sub(Value a, Value b) const { return arith::SubFOp::create(ob, loc, a, b); }
  Value mul(Value a, Value b) const { return arith::MulFOp::create(ob, loc, a, b); }
  Value div(Value a, Value b) const { return arith::DivFOp::create(ob, loc, a, b); }
  Value pow(Value a, Value b) const { return math::PowFOp::create(ob, loc, a, b); }
  Value neg(Value x) const { return arith::NegFOp::create(ob, loc, x); }
  Value exp(Value x) const {
    if (expForm == BlockEmitter::ExpForm::Exact)
      return math::ExpOp::create(ob, loc, x);
    // e^x = 2^(x·log2 e): ex2.approx on the GPU (HalfPrecisionExp.md).
    return math::Exp2Op::create(ob, loc, mul(x, fromDouble(M_LOG2E)));
  }
  Value sqrt(Value x) const { return math::SqrtOp::create(ob, loc, x); }
  Value tanh(Value x) const { return math::TanhOp::create(ob, loc, x); }
  Value erf(Value x) const { return math::ErfOp::create(ob, loc, x); }
  Value sigmoid(Value x) const { return realSigmoid(*this, x); }
  Value gelu(Value x) const { return realGelu(*this, x); }
  /// x > 0 ? x : 0, as Float64Semantics::relu (NaN maps to 0 there too).
  Value relu(Value x) const {
    Value zero = fromDouble(0.0);
    Value pos = arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OGT, x,
                                      zero);
    return arith::SelectOp::create(ob, loc, pos, x, zero);
  }
};
} // namespace

Value BlockEmitter::unary(OpBuilder &ob, UnaryKind k, Value x, double scalar,
                          ExpForm exp) {
  return applyUnary(ArithDomain{*this, ob, loc, exp}, k, x, scalar);
}

BlockEmitter::ExpForm BlockEmitter::expFormFor(ArrayRef<int32_t> results) {
  // The type each result is stored in: its tile's, or for a value computed
  // in its reduce the type it is rounded to (the same, by the schedule).
  bool narrow = llvm::all_of(results, [&](int32_t r) {
    return toMLIRType(ctx(), sched.storage[r]).getIntOrFloatBitWidth() <= 16;
  });
  return narrow && !results.empty() ? ExpForm::Exp2 : ExpForm::Exact;
}

Value BlockEmitter::binary(OpBuilder &ob, BinaryKind k, Value x, Value y) {
  return applyBinary(ArithDomain{*this, ob, loc}, k, x, y);
}

bool BlockEmitter::fail(const UOp &op, const std::string &why) {
  if (error.empty())
    error = "cannot lower block op '" + opKindName(op.kind).str() + "': " + why;
  return false;
}
