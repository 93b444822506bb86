//===- EmitterSupport.cpp - Loops, indices and scalar code ----------------===//
#include "BlockEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

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

void BlockEmitter::threadPhase(
    int64_t n, function_ref<void(OpBuilder &, Value)> body) {
  auto mapping = b.getArrayAttr(
      {gpu::GPUThreadMappingAttr::get(ctx(), gpu::MappingId::DimX)});
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(kThreadsPerBlock)},
      ValueRange{}, mapping);
  OpBuilder ob = OpBuilder::atBlockTerminator(forall.getBody());
  Value t = forall.getInductionVar(0);
  if (n <= kThreadsPerBlock) {
    // One element per thread at most: a guard instead of a loop.
    Value inRange = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                          t, index(ob, n));
    auto ifOp = scf::IfOp::create(ob, loc, inRange, /*withElse=*/false);
    OpBuilder ib = OpBuilder::atBlockTerminator(ifOp.thenBlock());
    body(ib, t);
    return;
  }
  auto loop = scf::ForOp::create(ob, loc, t, index(ob, n),
                                 index(ob, kThreadsPerBlock));
  OpBuilder lb = OpBuilder::atBlockTerminator(loop.getBody());
  body(lb, loop.getInductionVar());
}

void BlockEmitter::warpPhase(int64_t n,
                             function_ref<void(OpBuilder &, Value)> body) {
  auto mapping = b.getArrayAttr(
      {gpu::GPUWarpMappingAttr::get(ctx(), gpu::MappingId::LinearDim0)});
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(kWarpsPerBlock)},
      ValueRange{}, mapping);
  OpBuilder ob = OpBuilder::atBlockTerminator(forall.getBody());
  Value w = forall.getInductionVar(0);
  auto loop =
      scf::ForOp::create(ob, loc, w, index(ob, n), index(ob, kWarpsPerBlock));
  OpBuilder lb = OpBuilder::atBlockTerminator(loop.getBody());
  body(lb, loop.getInductionVar());
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

Value BlockEmitter::load(OpBuilder &ob, int32_t v, ArrayRef<Value> idx) {
  Value m = mem[v];
  const Shape &shape = g.values[v].shape;
  // Broadcasting: a dim of extent 1 is read at 0 (Tensor.h, broadcastOffset).
  SmallVector<Value> at;
  for (size_t d = 0; d < shape.size(); ++d)
    at.push_back(shape[d] == 1 ? index(ob, 0) : idx[d]);
  Value x = memref::LoadOp::create(ob, loc, m, at);
  return convert(ob, x, computeType());
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

// The same formulas as FloatSemantics.h's unary(), in the compute type.
Value BlockEmitter::unary(OpBuilder &ob, UnaryKind k, Value x, double scalar) {
  auto one = [&] { return constF(ob, 1.0); };
  auto sigmoid = [&](Value v) {
    Value e = math::ExpOp::create(ob, loc, arith::NegFOp::create(ob, loc, v));
    return arith::DivFOp::create(ob, loc, one(),
                                 arith::AddFOp::create(ob, loc, one(), e));
  };
  switch (k) {
  case UnaryKind::exp:
    return math::ExpOp::create(ob, loc, x);
  case UnaryKind::square:
    return arith::MulFOp::create(ob, loc, x, x);
  case UnaryKind::sqrt:
    return math::SqrtOp::create(ob, loc, x);
  case UnaryKind::rsqrt:
    return arith::DivFOp::create(ob, loc, one(),
                                 math::SqrtOp::create(ob, loc, x));
  case UnaryKind::reciprocal:
    return arith::DivFOp::create(ob, loc, one(), x);
  case UnaryKind::silu:
    return arith::MulFOp::create(ob, loc, x, sigmoid(x));
  case UnaryKind::gelu: {
    // 0.5·x·(1 + tanh(c·(x + 0.044715·x³))), c = sqrt(2/π).
    Value x3 = arith::MulFOp::create(ob, loc, x,
                                     arith::MulFOp::create(ob, loc, x, x));
    Value inner = arith::AddFOp::create(
        ob, loc, x, arith::MulFOp::create(ob, loc, constF(ob, 0.044715), x3));
    Value t = math::TanhOp::create(
        ob, loc,
        arith::MulFOp::create(ob, loc, constF(ob, std::sqrt(2.0 / M_PI)),
                              inner));
    Value half = arith::MulFOp::create(ob, loc, constF(ob, 0.5), x);
    return arith::MulFOp::create(ob, loc, half,
                                 arith::AddFOp::create(ob, loc, one(), t));
  }
  case UnaryKind::relu: {
    // x > 0 ? x : 0, as the evaluator (NaN maps to 0 there too).
    Value zero = constF(ob, 0.0);
    Value pos = arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OGT, x,
                                      zero);
    return arith::SelectOp::create(ob, loc, pos, x, zero);
  }
  case UnaryKind::sigmoid:
    return sigmoid(x);
  case UnaryKind::tanh:
    return math::TanhOp::create(ob, loc, x);
  case UnaryKind::mul_scalar:
    return arith::MulFOp::create(ob, loc, x, constF(ob, scalar));
  case UnaryKind::add_scalar:
    return arith::AddFOp::create(ob, loc, x, constF(ob, scalar));
  }
  return x;
}

Value BlockEmitter::binary(OpBuilder &ob, BinaryKind k, Value x, Value y) {
  switch (k) {
  case BinaryKind::add:
    return arith::AddFOp::create(ob, loc, x, y);
  case BinaryKind::sub:
    return arith::SubFOp::create(ob, loc, x, y);
  case BinaryKind::mul:
    return arith::MulFOp::create(ob, loc, x, y);
  case BinaryKind::div:
    return arith::DivFOp::create(ob, loc, x, y);
  case BinaryKind::pow:
    return math::PowFOp::create(ob, loc, x, y);
  }
  return x;
}

bool BlockEmitter::fail(const UOp &op, const std::string &why) {
  if (error.empty())
    error = "cannot lower block op '" + opKindName(op.kind).str() + "': " + why;
  return false;
}
