//===- UGraph.cpp - The compact in-memory μGraph --------------------------===//
//
// The builders are the single statement of the μGraph construction rules:
// shapes (through ShapeRules) and phases. Phases turn the paper's path rule
// into a local check: only iterators read device tensors and produce in-loop
// tiles; accumulators turn in-loop into after-loop tiles; savers take
// after-loop tiles; every other operator takes operands of one phase and
// keeps it. So every input→output path crosses exactly one iterator, one
// accumulator and one saver.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/UGraph.h"
#include "Mirage/Semantics/OpKinds.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mirage;

llvm::StringRef mirage::elemTypeName(ElemType t) {
  switch (t) {
  case ElemType::F16:
    return "f16";
  case ElemType::BF16:
    return "bf16";
  case ElemType::F32:
    return "f32";
  case ElemType::F64:
    return "f64";
  }
  return "?";
}

int64_t mirage::elemTypeBytes(ElemType t) {
  switch (t) {
  case ElemType::F16:
  case ElemType::BF16:
    return 2;
  case ElemType::F32:
    return 4;
  case ElemType::F64:
    return 8;
  }
  return 4;
}

double mirage::bytesOf(const UValue &v) {
  return static_cast<double>(numElements(v.shape)) *
         static_cast<double>(elemTypeBytes(v.type));
}

llvm::StringRef mirage::phaseDescription(Phase p) {
  switch (p) {
  case Phase::Device: return "a device tensor";
  case Phase::InLoop: return "an in-loop value";
  case Phase::AfterLoop: return "an after-loop value";
  case Phase::Saved: return "a saved output";
  case Phase::Scalar: return "a scalar";
  }
  return "?";
}

int32_t UGraph::fail(std::string msg) {
  error = std::move(msg);
  return -1;
}

int32_t UGraph::addInput(Shape shape, ElemType type, bool transposed) {
  if (level != Level::Thread) {
    ShapeResult r = checkTensorShape(shape);
    if (!r.ok())
      return fail(r.error);
  }
  UValue v;
  v.shape = std::move(shape);
  v.type = type;
  v.transposed = transposed;
  v.phase = level == Level::Thread ? Phase::Scalar : Phase::Device;
  values.push_back(std::move(v));
  inputs.push_back(values.size() - 1);
  return values.size() - 1;
}

int32_t UGraph::addInputLike(const UValue &like) {
  return addInput(like.shape, like.type, like.transposed);
}

Shape mirage::swapLastTwo(llvm::ArrayRef<int64_t> shape) {
  Shape s(shape.begin(), shape.end());
  if (s.size() >= 2)
    std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

bool mirage::storedTransposed(const UGraph &g, int32_t v) {
  const UValue &val = g.values[v];
  if (val.transposed)
    return true;
  if (val.def < 0)
    return false;
  const UOp &op = g.ops[val.def];
  return op.kind == OpKind::InputIterator &&
         g.values[op.operands[0]].transposed;
}

Shape mirage::storedShape(const UGraph &g, int32_t v) {
  return storedTransposed(g, v) ? swapLastTwo(g.values[v].shape)
                                : g.values[v].shape;
}

/// The phase the results of an ordinary operator get from its operands, or
/// an error: at the kernel level everything is a device tensor; at the block
/// level operands must be tiles of one phase, except that after-loop code
/// may read loop-invariant in-loop tiles (AfterLoopInvariants.md).
/// False with the reason in `why` (when g.explainFailures).
static bool operandPhase(const UGraph &g, llvm::ArrayRef<int32_t> ops,
                         Phase &out, std::string &why) {
  if (g.level == Level::Kernel) {
    out = Phase::Device;
    return true;
  }
  if (g.level == Level::Thread) {
    out = Phase::Scalar;
    return true;
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    Phase p = g.values[ops[i]].phase;
    if (p == Phase::Device) {
      if (g.explainFailures)
        why = "operand must be loaded through an input iterator, not read "
              "from device memory";
      return false;
    }
    if (p == Phase::Saved) {
      if (g.explainFailures)
        why = "operand is a saved output, which only the block graph's "
              "outputs may use";
      return false;
    }
  }
  if (ops.empty())
    return true;
  // One phase gives that phase; a mix is after the loop when every in-loop
  // operand is the same in every iteration.
  out = g.values[ops.front()].phase;
  bool afterLoop = false;
  for (int32_t v : ops)
    afterLoop |= g.values[v].phase == Phase::AfterLoop;
  for (int32_t v : ops) {
    const UValue &x = g.values[v];
    if (!afterLoop || x.phase != Phase::InLoop)
      continue;
    if (!x.loopInvariant) {
      if (g.explainFailures)
        why = ("mixes " + phaseDescription(out) + " with " +
               phaseDescription(out == Phase::InLoop ? Phase::AfterLoop
                                                     : Phase::InLoop) +
               "; in-loop values reach after-loop code only through an "
               "accumulator, unless they are the same in every iteration "
               "(an fmap -1 tile)")
                  .str();
      return false;
    }
  }
  if (afterLoop)
    out = Phase::AfterLoop;
  return true;
}

std::optional<Phase> mirage::combinedPhase(const UGraph &g,
                                           llvm::ArrayRef<int32_t> operands) {
  Phase p;
  std::string why;
  if (!operandPhase(g, operands, p, why))
    return std::nullopt;
  return p;
}

int32_t UGraph::addOp(UOp op, llvm::ArrayRef<Shape> resultShapes,
                      ElemType type) {
  Phase phase = Phase::Device;
  switch (opKindFacts(op.kind).phase) {
  case PhaseRule::InLoop:
    phase = Phase::InLoop;
    break;
  case PhaseRule::AfterLoop:
    phase = Phase::AfterLoop;
    break;
  case PhaseRule::Saved:
    phase = Phase::Saved;
    break;
  case PhaseRule::FromOperands: {
    std::string why;
    if (!operandPhase(*this, op.operands, phase, why))
      return fail(std::move(why));
    break;
  }
  }
  // Loop-invariant (AfterLoopInvariants.md): an fmap -1 tile, or a
  // stateless operator's result over such tiles alone.
  bool invariant = false;
  if (op.kind == OpKind::InputIterator)
    invariant = op.fmap < 0;
  else if (opKindFacts(op.kind).phase == PhaseRule::FromOperands &&
           phase == Phase::InLoop && !op.operands.empty())
    invariant = llvm::all_of(
        op.operands, [&](int32_t v) { return values[v].loopInvariant; });
  int32_t opIdx = ops.size();
  int32_t first = values.size();
  for (const Shape &s : resultShapes) {
    UValue v;
    v.shape = s;
    v.type = type;
    v.phase = phase;
    v.loopInvariant = invariant;
    v.def = opIdx;
    values.push_back(std::move(v));
    op.results.push_back(values.size() - 1);
  }
  ops.push_back(std::move(op));
  return first;
}

static bool validId(const UGraph &g, int32_t v) {
  return v >= 0 && v < (int32_t)g.values.size();
}

int32_t UGraph::addMatmul(int32_t a, int32_t b) {
  if (level == Level::Thread)
    return fail("matmul is not a thread-level operator");
  if (!validId(*this, a) || !validId(*this, b))
    return fail("invalid operand");
  ShapeResult r = matmulShape(values[a].shape, values[b].shape, explainFailures);
  if (!r.ok())
    return fail(r.error);
  UOp op;
  op.kind = OpKind::Matmul;
  op.operands = {a, b};
  return addOp(std::move(op), {r.shape}, values[a].type);
}

int32_t UGraph::addUnary(UnaryKind kind, int32_t x, double scalar) {
  if (!validId(*this, x))
    return fail("invalid operand");
  UOp op;
  op.kind = OpKind::Unary;
  op.sub = static_cast<int32_t>(kind);
  op.operands = {x};
  op.scalar = scalar;
  Shape s = values[x].shape;
  return addOp(std::move(op), {s}, values[x].type);
}

int32_t UGraph::addBinary(BinaryKind kind, int32_t a, int32_t b) {
  if (!validId(*this, a) || !validId(*this, b))
    return fail("invalid operand");
  ShapeResult r =
      broadcastShape(values[a].shape, values[b].shape, explainFailures);
  if (!r.ok())
    return fail(r.error);
  UOp op;
  op.kind = OpKind::Binary;
  op.sub = static_cast<int32_t>(kind);
  op.operands = {a, b};
  return addOp(std::move(op), {r.shape}, values[a].type);
}

int32_t UGraph::addReduce(ReduceKind kind, int32_t x, int64_t dim,
                          int64_t size) {
  if (level == Level::Thread)
    return fail("reduce is not a thread-level operator");
  if (!validId(*this, x))
    return fail("invalid operand");
  ShapeResult r = reduceShape(values[x].shape, dim, size);
  if (!r.ok())
    return fail(r.error);
  UOp op;
  op.kind = OpKind::Reduce;
  op.sub = static_cast<int32_t>(kind);
  op.operands = {x};
  op.dim = dim;
  op.size = size;
  return addOp(std::move(op), {r.shape}, values[x].type);
}

int32_t UGraph::addRmsNorm(int32_t x, int32_t weight, double eps) {
  if (level == Level::Thread)
    return fail("rms_norm is not a thread-level operator");
  if (!validId(*this, x) || (weight != -1 && !validId(*this, weight)))
    return fail("invalid operand");
  Shape w = weight >= 0 ? values[weight].shape : Shape();
  ShapeResult r = rmsNormShape(values[x].shape, w, weight >= 0, explainFailures);
  if (!r.ok())
    return fail(r.error);
  UOp op;
  op.kind = OpKind::RmsNorm;
  op.operands = {x};
  if (weight >= 0)
    op.operands.push_back(weight);
  op.scalar = eps;
  return addOp(std::move(op), {r.shape}, values[x].type);
}

int32_t UGraph::addConcat(int32_t a, int32_t b, int64_t dim) {
  if (level == Level::Thread)
    return fail("concat is not a thread-level operator");
  if (!validId(*this, a) || !validId(*this, b))
    return fail("invalid operand");
  ShapeResult r = concatShape(values[a].shape, values[b].shape, dim);
  if (!r.ok())
    return fail(r.error);
  UOp op;
  op.kind = OpKind::Concat;
  op.operands = {a, b};
  op.dim = dim;
  return addOp(std::move(op), {r.shape}, values[a].type);
}

int32_t UGraph::addInputIterator(int32_t in, AxisMap imap, int64_t fmap) {
  if (level != Level::Block)
    return fail("input iterators exist only in block graphs");
  if (!validId(*this, in) || values[in].def != -1)
    return fail("operand must be an input of the enclosing custom kernel");
  ShapeResult r =
      iteratorTileShape(values[in].shape, grid, forloopRange, imap, fmap);
  if (!r.ok())
    return fail(r.error);
  UOp op;
  op.kind = OpKind::InputIterator;
  op.operands = {in};
  op.map = imap;
  op.fmap = fmap;
  return addOp(std::move(op), {r.shape}, values[in].type);
}

int32_t UGraph::addAccum(AccumKind kind, int32_t x, int32_t rescale,
                         int64_t size, double eps) {
  if (level != Level::Block)
    return fail("accumulators exist only in block graphs");
  if (!validId(*this, x) || (rescale != -1 && !validId(*this, rescale)))
    return fail("invalid operand");
  for (int32_t v : {x, rescale})
    if (v >= 0 && values[v].phase != Phase::InLoop)
      return fail("operand must be an in-loop value, not " +
                  phaseDescription(values[v].phase).str() +
                  "; every path crosses exactly one accumulator");
  Shape rs = rescale >= 0 ? values[rescale].shape : Shape();
  ShapeResult r = accumShape(kind, values[x].shape, size, rescale >= 0, rs);
  if (!r.ok())
    return fail(r.error);
  if (eps != 0 && !accumFacts(kind).usesScalar())
    return fail("eps is only valid for the rms_last accumulator");
  UOp op;
  op.kind = OpKind::Accum;
  op.sub = static_cast<int32_t>(kind);
  op.operands = {x};
  if (rescale >= 0)
    op.operands.push_back(rescale);
  op.size = size;
  op.scalar = eps;
  return addOp(std::move(op), {r.shape}, values[x].type);
}

int32_t UGraph::addRunningMax(int32_t x, int64_t dim) {
  if (level != Level::Block)
    return fail("running_max exists only in block graphs");
  if (!validId(*this, x))
    return fail("invalid operand");
  // Its state lives across the for-loop's iterations: a tile loaded once
  // (after the loop, or from device memory) has no iterations to walk.
  if (values[x].phase != Phase::InLoop)
    return fail("running_max operand must be an in-loop value, not " +
                phaseDescription(values[x].phase).str());
  ShapeResult r = reduceShape(values[x].shape, dim, 1);
  if (!r.ok())
    return fail("running_max: " + r.error);
  UOp op;
  op.kind = OpKind::RunningMax;
  op.operands = {x};
  op.dim = dim;
  return addOp(std::move(op), {r.shape, r.shape}, values[x].type);
}

int32_t UGraph::addOutputSaver(int32_t tile, AxisMap omap) {
  if (level != Level::Block)
    return fail("output savers exist only in block graphs");
  if (!validId(*this, tile))
    return fail("invalid operand");
  if (values[tile].phase != Phase::AfterLoop)
    return fail("operand must be an after-loop value, not " +
                phaseDescription(values[tile].phase).str() +
                ": every path to an output crosses an accumulator");
  ShapeResult r = saverOutputShape(values[tile].shape, grid, omap);
  if (!r.ok())
    return fail(r.error);
  UOp op;
  op.kind = OpKind::OutputSaver;
  op.operands = {tile};
  op.map = omap;
  return addOp(std::move(op), {r.shape}, values[tile].type);
}

int32_t UGraph::addThreadGraph(llvm::ArrayRef<int32_t> operands, UGraph body) {
  if (level != Level::Block)
    return fail("thread graphs exist only in block graphs");
  if (body.level != Level::Thread)
    return fail("a thread graph's body must be a thread-level graph");
  if (operands.empty() || body.inputs.size() != operands.size())
    return fail("thread graph body takes " + std::to_string(body.inputs.size()) +
                " inputs for " + std::to_string(operands.size()) + " operands");
  Shape shape;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!validId(*this, operands[i]))
      return fail("invalid operand");
    const Shape &s = values[operands[i]].shape;
    if (i == 0) {
      shape = s;
      continue;
    }
    ShapeResult r = broadcastShape(shape, s);
    if (!r.ok())
      return fail("thread graph inputs: " + r.error);
    shape = r.shape;
  }
  if (body.outputs.empty())
    return fail("a thread graph must have at least one output");
  UOp op;
  op.kind = OpKind::ThreadGraph;
  op.operands.assign(operands.begin(), operands.end());
  op.body = bodies.size();
  llvm::SmallVector<Shape, 2> shapes(body.outputs.size(), shape);
  ElemType type = values[operands[0]].type;
  bodies.push_back(std::move(body));
  int32_t r = addOp(std::move(op), shapes, type);
  if (r < 0)
    bodies.pop_back();
  return r;
}

int32_t UGraph::addCustom(llvm::ArrayRef<int32_t> operands, UGraph body) {
  if (level != Level::Kernel)
    return fail("graph-defined kernels exist only in kernel graphs");
  if (body.level != Level::Block)
    return fail("a custom kernel's body must be a block graph");
  if (body.inputs.size() != operands.size())
    return fail("block graph takes " + std::to_string(body.inputs.size()) +
                " inputs for " + std::to_string(operands.size()) + " operands");
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!validId(*this, operands[i]))
      return fail("invalid operand");
    if (values[operands[i]].shape != body.values[body.inputs[i]].shape)
      return fail("operand #" + std::to_string(i) +
                  " does not match the block graph's input shape");
    if (values[operands[i]].type != body.values[body.inputs[i]].type)
      return fail("operand #" + std::to_string(i) +
                  " does not match the block graph's input element type");
  }
  std::string err = verifyUGraphOutputs(body);
  if (!err.empty())
    return fail(err);
  // The body reads its operands as they are stored (OperandLayouts.md).
  for (size_t i = 0; i < operands.size(); ++i)
    body.values[body.inputs[i]].transposed = values[operands[i]].transposed;
  UOp op;
  op.kind = OpKind::Custom;
  op.operands.assign(operands.begin(), operands.end());
  op.body = bodies.size();
  llvm::SmallVector<Shape, 2> shapes;
  for (int32_t o : body.outputs)
    shapes.push_back(body.values[o].shape);
  ElemType type = operands.empty() ? ElemType::F32 : values[operands[0]].type;
  bodies.push_back(std::move(body));
  int32_t first = addOp(std::move(op), shapes, type);
  if (first < 0) {
    bodies.pop_back();
    return first;
  }
  // Result element types follow the block graph's outputs.
  const UGraph &b = bodies.back();
  for (size_t i = 0; i < b.outputs.size(); ++i)
    values[first + i].type = b.values[b.outputs[i]].type;
  return first;
}

int32_t UGraph::addLike(const UOp &op, llvm::ArrayRef<int32_t> in,
                        UGraph body) {
  auto arg = [&](size_t i) { return i < in.size() ? in[i] : -1; };
  switch (op.kind) {
  case OpKind::Matmul:
    return addMatmul(arg(0), arg(1));
  case OpKind::Unary:
    return addUnary(op.unaryKind(), arg(0), op.scalar);
  case OpKind::Binary:
    return addBinary(op.binaryKind(), arg(0), arg(1));
  case OpKind::Reduce:
    return addReduce(op.reduceKind(), arg(0), op.dim, op.size);
  case OpKind::RmsNorm:
    return addRmsNorm(arg(0), arg(1), op.scalar);
  case OpKind::Concat:
    return addConcat(arg(0), arg(1), op.dim);
  case OpKind::InputIterator:
    return addInputIterator(arg(0), op.map, op.fmap);
  case OpKind::Accum:
    return addAccum(op.accumKind(), arg(0), arg(1), op.size, op.scalar);
  case OpKind::OutputSaver:
    return addOutputSaver(arg(0), op.map);
  case OpKind::RunningMax:
    return addRunningMax(arg(0), op.dim);
  case OpKind::ThreadGraph:
    return addThreadGraph(in, std::move(body));
  case OpKind::Custom:
    return addCustom(in, std::move(body));
  }
  return fail("unknown operator kind");
}

std::string mirage::verifyUGraphOutputs(const UGraph &g) {
  for (int32_t o : g.outputs)
    if (o < 0 || o >= (int32_t)g.values.size())
      return "invalid output value";
  if (g.level != Level::Block)
    return "";
  std::string gridErr = checkGrid(g.grid, g.forloopRange);
  if (!gridErr.empty())
    return gridErr;
  llvm::DenseSet<int32_t> seen;
  for (int32_t o : g.outputs) {
    if (g.values[o].phase != Phase::Saved)
      return "block graph output must be an output_saver result, not " +
             phaseDescription(g.values[o].phase).str();
    if (!seen.insert(o).second)
      return "block graph outputs the same saver twice";
  }
  for (const UOp &op : g.ops) {
    if (op.kind == OpKind::OutputSaver && !seen.count(op.results[0]))
      return "output saver result must be a block graph output";
    for (int32_t v : op.operands)
      if (g.values[v].phase == Phase::Saved)
        return "saved output used by an operator";
  }
  return "";
}

int64_t mirage::sharedMemoryBytes(const UGraph &block) {
  int64_t bytes = 0;
  for (const UOp &op : block.ops) {
    if (op.kind == OpKind::OutputSaver)
      continue;
    for (int32_t r : op.results) {
      // Saturate: an absurd tile must read as too large, never wrap around.
      int64_t tile;
      if (llvm::MulOverflow(numElements(block.values[r].shape),
                            elemTypeBytes(block.values[r].type), tile) ||
          llvm::AddOverflow(bytes, tile, bytes))
        return std::numeric_limits<int64_t>::max();
    }
  }
  return bytes;
}
