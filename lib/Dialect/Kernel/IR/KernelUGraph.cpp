//===- KernelUGraph.cpp - Kernel graphs as compact μGraphs ----------------===//
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Dialect/Block/IR/BlockDialect.h"
#include "Mirage/Dialect/Block/IR/BlockUGraph.h"
#include "Mirage/Dialect/Common/SharedOpsUGraph.h"
#include "Mirage/Dialect/Thread/IR/ThreadDialect.h"
#include "Mirage/Semantics/Target.h"
#include "Mirage/Semantics/UOpVisitor.h"

#include "mlir/IR/AsmState.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::kernel;

static Shape shapeOf(Type t) {
  auto r = cast<RankedTensorType>(t);
  return Shape(r.getShape().begin(), r.getShape().end());
}

FailureOr<UGraph> mirage::kernel::importKernelGraph(GraphOp graph) {
  UGraph g(Level::Kernel);
  if (graph.getSymName())
    g.name = graph.getSymName()->str();
  if (graph.getReference())
    g.reference = graph.getReference()->str();
  llvm::DenseMap<Value, int32_t> ids;
  Block &body = graph.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    std::optional<ElemType> et = toElemType(arg.getType());
    if (!et)
      return graph.emitOpError("unsupported element type");
    int32_t id = g.addInput(shapeOf(arg.getType()), *et,
                            graph.isTransposedInput(arg.getArgNumber()));
    if (id < 0)
      return graph.emitOpError(g.error);
    ids[arg] = id;
  }
  auto get = [&](Value v) { return ids.lookup(v); };
  for (Operation &op : body) {
    if (auto y = dyn_cast<YieldOp>(op)) {
      for (Value v : y.getValues())
        g.markOutput(get(v));
      continue;
    }
    std::optional<int32_t> shared = importSharedOp<SharedOps>(g, &op, get);
    int32_t id =
        shared ? *shared
        : llvm::TypeSwitch<Operation *, int32_t>(&op)
            .Case([&](CustomOp c) {
              FailureOr<UGraph> b = block::importBlockGraph(
                  c, c.getBody(), c.getGridDims(), c.getForloopRange(),
                  c.getTarget() ? *c.getTarget() : StringRef(kDefaultTarget));
              if (failed(b))
                return -3;
              SmallVector<int32_t> operands;
              for (Value v : c.getInputs())
                operands.push_back(get(v));
              return g.addCustom(operands, std::move(*b));
            })
            .Default([](Operation *) { return -4; });
    if (id == -3)
      return failure();
    if (id == -4)
      return op.emitOpError("is not a kernel-graph operator");
    if (id < 0)
      return op.emitOpError(g.error);
    for (auto [i, r] : llvm::enumerate(op.getResults()))
      ids[r] = id + i;
  }
  return g;
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

namespace {
/// Emits the ops of one UGraph level into the current block of `b`, one
/// visit per op kind (UOpVisitor.h: a new kind does not compile until it
/// says how it is exported).
struct Exporter : UOpVisitor<Exporter, SmallVector<Value, 2>> {
  using Results = SmallVector<Value, 2>;
  OpBuilder &b;
  Location loc;
  /// The level being emitted and its values so far (set by emitBody).
  const UGraph *g = nullptr;
  ArrayRef<Value> vals;

  Exporter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Type tensorType(const UGraph &graph, int32_t v) {
    const UValue &val = graph.values[v];
    Type et = toMLIRType(b.getContext(), val.type);
    if (graph.level == Level::Thread)
      return et;
    return RankedTensorType::get(val.shape, et);
  }

  /// Emits the body of `graph` into `blk`, whose arguments are its inputs.
  void emitBody(const UGraph &graph, Block &blk) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&blk);
    SmallVector<Value> values(graph.values.size());
    for (auto [i, in] : llvm::enumerate(graph.inputs))
      values[in] = blk.getArgument(i);
    const UGraph *outerGraph = g;
    ArrayRef<Value> outerVals = vals;
    g = &graph;
    vals = values;
    for (const UOp &op : graph.ops) {
      Results results = dispatchUOpVisitor(op);
      for (auto [i, r] : llvm::enumerate(op.results))
        values[r] = results[i];
    }
    g = outerGraph;
    vals = outerVals;
    SmallVector<Value> outs;
    for (int32_t o : graph.outputs)
      outs.push_back(values[o]);
    switch (graph.level) {
    case Level::Kernel:
      kernel::YieldOp::create(b, loc, outs);
      break;
    case Level::Block:
      block::YieldOp::create(b, loc, outs);
      break;
    case Level::Thread:
      thread::YieldOp::create(b, loc, outs);
      break;
    }
  }

  Value in(const UOp &op, unsigned i) const { return vals[op.operands[i]]; }
  Type resultType(const UOp &op) { return tensorType(*g, op.results[0]); }
  auto inFn(const UOp &op) {
    return [this, &op](unsigned i) { return in(op, i); };
  }

  /// An op of the classes the kernel and block dialects share.
  Results shared(const UOp &op) {
    Type t = resultType(op);
    return {g->level == Level::Kernel
                ? exportSharedOp<kernel::SharedOps>(b, loc, op, t, inFn(op))
                : exportSharedOp<block::SharedOps>(b, loc, op, t, inFn(op))};
  }

  /// A custom kernel or a thread graph: the op, then its body.
  Results nested(const UOp &op) {
    const UGraph &body = g->bodies[op.body];
    SmallVector<Value> operands;
    SmallVector<Type> types;
    for (int32_t v : op.operands)
      operands.push_back(vals[v]);
    for (int32_t r : op.results)
      types.push_back(tensorType(*g, r));
    Operation *created;
    Region *region;
    if (op.kind == OpKind::Custom) {
      auto c = kernel::CustomOp::create(
          b, loc, types, operands,
          b.getDenseI64ArrayAttr({body.grid[0], body.grid[1], body.grid[2]}),
          b.getI64IntegerAttr(body.forloopRange),
          body.target.empty() || body.target == StringRef(kDefaultTarget)
              ? StringAttr()
              : b.getStringAttr(body.target));
      created = c;
      region = &c.getBody();
    } else {
      auto t = block::ThreadGraphOp::create(b, loc, types, operands);
      created = t;
      region = &t.getBody();
    }
    Block *inner = new Block();
    region->push_back(inner);
    for (int32_t v : body.inputs)
      inner->addArgument(tensorType(body, v), loc);
    emitBody(body, *inner);
    return Results(created->getResults().begin(), created->getResults().end());
  }

  Results visitMatmul(const UOp &op) { return shared(op); }
  Results visitUnary(const UOp &op) {
    if (g->level != Level::Thread)
      return shared(op);
    return {thread::UnaryOp::create(b, loc, resultType(op), op.unaryKind(),
                                    in(op, 0), unaryScalarAttr(b, op))
                .getResult()};
  }
  Results visitBinary(const UOp &op) {
    if (g->level != Level::Thread)
      return shared(op);
    return {thread::BinaryOp::create(b, loc, resultType(op), op.binaryKind(),
                                     in(op, 0), in(op, 1))
                .getResult()};
  }
  Results visitReduce(const UOp &op) { return shared(op); }
  Results visitRmsNorm(const UOp &op) { return shared(op); }
  Results visitConcat(const UOp &op) { return shared(op); }
  Results visitCustom(const UOp &op) { return nested(op); }
  Results visitThreadGraph(const UOp &op) { return nested(op); }
  Results visitInputIterator(const UOp &op) {
    return {block::InputIteratorOp::create(
                b, loc, resultType(op), in(op, 0),
                b.getDenseI64ArrayAttr({op.map[0], op.map[1], op.map[2]}),
                b.getI64IntegerAttr(op.fmap))
                .getResult()};
  }
  Results visitAccum(const UOp &op) {
    return {block::AccumOp::create(
                b, loc, resultType(op), op.accumKind(), in(op, 0),
                op.operands.size() > 1 ? in(op, 1) : Value(),
                op.size ? b.getI64IntegerAttr(op.size) : IntegerAttr(),
                llvm::APFloat(op.scalar))
                .getResult()};
  }
  Results visitRunningMax(const UOp &op) {
    auto r = block::RunningMaxOp::create(b, loc, resultType(op),
                                         tensorType(*g, op.results[1]),
                                         in(op, 0), op.dim);
    return {r.getPrev(), r.getCur()};
  }
  Results visitOutputSaver(const UOp &op) {
    return {block::OutputSaverOp::create(
                b, loc, resultType(op), in(op, 0),
                b.getDenseI64ArrayAttr({op.map[0], op.map[1], op.map[2]}))
                .getResult()};
  }
};
} // namespace

GraphOp mirage::kernel::exportKernelGraph(OpBuilder &builder, Location loc,
                                          const UGraph &g, ValueRange inputs) {
  Exporter ex{builder, loc};
  SmallVector<Type> types;
  for (int32_t o : g.outputs)
    types.push_back(ex.tensorType(g, o));
  SmallVector<int64_t> transposed;
  for (auto [i, v] : llvm::enumerate(g.inputs))
    if (g.values[v].transposed)
      transposed.push_back(static_cast<int64_t>(i));
  auto graph = GraphOp::create(
      builder, loc, types, inputs,
      g.name.empty() ? StringAttr() : builder.getStringAttr(g.name),
      g.reference.empty() ? StringAttr() : builder.getStringAttr(g.reference),
      transposed.empty() ? DenseI64ArrayAttr()
                         : builder.getDenseI64ArrayAttr(transposed));
  Block *blk = new Block();
  graph.getBody().push_back(blk);
  for (int32_t v : g.inputs)
    blk->addArgument(ex.tensorType(g, v), loc);
  ex.emitBody(g, *blk);
  return graph;
}

/// Why `cand` does not read what its reference reads, or "" when it does.
/// The verifiers compare the two bodies input by input, so a graph bound to
/// other values, or to the same ones in another order, would be verified
/// as a different program from the one the module runs.
static std::string bindingMismatch(GraphOp cand, GraphOp ref) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "graph '" << cand.getSymName().value_or("<unnamed>") << "' ";
  const std::string rule =
      ": a graph must read the values its reference reads, in the same order";
  Operation *scope = cand->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (scope != ref->getParentWithTrait<OpTrait::IsIsolatedFromAbove>()) {
    os << "and its reference '" << *cand.getReference()
       << "' are in different functions" << rule;
    return out;
  }
  OperandRange a = cand.getInputs(), b = ref.getInputs();
  if (a.size() != b.size()) {
    auto values = [](size_t n) {
      return std::to_string(n) + (n == 1 ? " value" : " values");
    };
    os << "reads " << values(a.size()) << " where its reference '"
       << *cand.getReference() << "' reads " << values(b.size()) << rule;
    return out;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] && cand.isTransposedInput(i) != ref.isTransposedInput(i)) {
      // The same tensor read as it lies by one and transposed by the other
      // (OperandLayouts.md): different programs even when the bodies, and
      // a square tensor's shapes, agree.
      os << "reads operand #" << i
         << (cand.isTransposedInput(i) ? " stored transposed"
                                       : " as it is stored")
         << " where its reference '" << *cand.getReference() << "' reads it "
         << (ref.isTransposedInput(i) ? "stored transposed" : "as it is stored")
         << rule;
      return out;
    }
    if (a[i] == b[i])
      continue;
    // Names as the enclosing function prints them (%arg0, %0, ...).
    AsmState state(scope);
    os << "reads ";
    a[i].printAsOperand(os, state);
    os << " as operand #" << i << " where its reference '"
       << *cand.getReference() << "' reads ";
    b[i].printAsOperand(os, state);
    os << rule;
    return out;
  }
  return "";
}

LogicalResult kernel::collectReferencePairs(
    Operation *root, SmallVectorImpl<std::pair<GraphOp, GraphOp>> &pairs) {
  llvm::StringMap<GraphOp> byName;
  SmallVector<GraphOp> withReference;
  bool ok = true;
  root->walk([&](GraphOp op) {
    if (op.getSymName() && !byName.try_emplace(*op.getSymName(), op).second) {
      op.emitError("duplicate graph name '") << *op.getSymName() << "'";
      ok = false;
    }
    if (op.getReference())
      withReference.push_back(op);
  });
  for (GraphOp op : withReference) {
    auto it = byName.find(*op.getReference());
    if (it == byName.end()) {
      op.emitError("reference graph '") << *op.getReference() << "' not found";
      ok = false;
      continue;
    }
    if (std::string why = bindingMismatch(op, it->second); !why.empty()) {
      op.emitError(why);
      ok = false;
      continue;
    }
    pairs.push_back({op, it->second});
  }
  return success(ok);
}
