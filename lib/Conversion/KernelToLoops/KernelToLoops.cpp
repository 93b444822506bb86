//===- KernelToLoops.cpp - Kernel graphs to loop-level functions ----------===//
//
// The driver: expand pre-defined kernels, emit one function per kernel and a
// host function that allocates temporaries and calls the kernels in order,
// and record the launch plan. A failure leaves the module unchanged.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/KernelToLoops.h"
#include "Mirage/Conversion/CodegenPasses.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/TileCopy.h"

#include "BlockEmitter.h"
#include "KernelEmitter.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGELOWERKERNELSTOLOOPS
#include "Mirage/Conversion/CodegenPasses.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

static constexpr llvm::StringLiteral kKernelModuleName = "mirage_kernels";

ModuleOp mirage::getOrCreateKernelModule(ModuleOp top) {
  for (auto m : top.getBody()->getOps<ModuleOp>())
    if (m.getSymName() == kKernelModuleName)
      return m;
  OpBuilder b = OpBuilder::atBlockEnd(top.getBody());
  return ModuleOp::create(b, top.getLoc(), kKernelModuleName);
}

std::string mirage::graphSymbolName(StringRef name, unsigned ordinal) {
  std::string s = name.empty() ? "graph" + std::to_string(ordinal) : name.str();
  for (char &c : s)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  if (llvm::isDigit(s[0]))
    s = "g_" + s;
  return s;
}

LogicalResult mirage::forEachKernelGraph(
    Operation *root,
    function_ref<LogicalResult(Operation *, StringRef)> fn) {
  SmallVector<kernel::GraphOp> graphs;
  root->walk([&](kernel::GraphOp g) { graphs.push_back(g); });
  // The names become symbols and file names (G.sm_90.ptx), so two graphs
  // must never share one: "a/b" and "a_b", or "A" and "a" on a file system
  // that ignores case, would overwrite each other's files. A name that is
  // already a valid symbol is kept; the others take the first free
  // "<name>_<n>".
  SmallVector<std::string> names(graphs.size());
  llvm::StringSet<> taken; // lower-case
  for (auto [i, g] : llvm::enumerate(graphs)) {
    std::string base = graphSymbolName(g.getSymName().value_or(""), i);
    if (g.getSymName() && base == *g.getSymName() &&
        taken.insert(StringRef(base).lower()).second)
      names[i] = base;
  }
  for (auto [i, g] : llvm::enumerate(graphs)) {
    if (!names[i].empty())
      continue;
    std::string base = graphSymbolName(g.getSymName().value_or(""), i);
    if (taken.insert(StringRef(base).lower()).second) {
      names[i] = base;
      continue;
    }
    unsigned suffix = 1;
    names[i] = SymbolTable::generateSymbolName<64>(
                   base,
                   [&](StringRef n) { return !taken.insert(n.lower()).second; },
                   suffix)
                   .str()
                   .str();
  }
  bool ok = true;
  for (auto [g, name] : llvm::zip(graphs, names))
    ok &= succeeded(fn(g, name));
  return success(ok);
}

std::string mirage::describeKernels(const LaunchPlan &plan) {
  size_t n = plan.kernels.size();
  return std::to_string(n) + (n == 1 ? " kernel" : " kernels");
}

double mirage::loweredCodeTolerance(ElemType t) {
  switch (t) {
  case ElemType::F16:
    return 1e-2;
  case ElemType::BF16:
    return 6e-2;
  case ElemType::F32:
    return 1e-5;
  case ElemType::F64:
    return 1e-12;
  }
  return 1e-5;
}

std::optional<LaunchPlan>
mirage::lowerGraphToLoops(const UGraph &graph, StringRef name, ModuleOp into,
                          Location loc, const LoopLoweringOptions &options,
                          std::string &error) {
  std::optional<UGraph> expanded =
      expandPredefinedKernels(graph, options.expansion, error);
  if (!expanded)
    return std::nullopt;
  const UGraph &g = *expanded;
  MLIRContext *ctx = into.getContext();
  StringRef targetName = !options.target.empty() ? StringRef(options.target)
                         : !graph.target.empty() ? StringRef(graph.target)
                                                 : StringRef(kDefaultTarget);
  std::optional<TargetInfo> targetInfo = lookupTarget(targetName);
  if (!targetInfo) {
    error = "unknown target '" + targetName.str() + "'";
    return std::nullopt;
  }
  const TargetInfo &target = *targetInfo;
  LaunchPlan plan;
  plan.graph = name.str();
  plan.reference = graph.reference;

  // Buffers: inputs, outputs, then one temporary per other kernel result.
  std::vector<int32_t> bufferOf(g.values.size(), -1);
  auto addBuffer = [&](int32_t v, LaunchBuffer::Role role, int32_t pos,
                       std::string bname) {
    LaunchBuffer buf;
    buf.name = std::move(bname);
    buf.role = role;
    buf.position = pos;
    buf.shape = storedShape(g, v); // as it lies (OperandLayouts.md)
    buf.type = g.values[v].type;
    plan.buffers.push_back(buf);
    return (int32_t)plan.buffers.size() - 1;
  };
  for (size_t i = 0; i < g.inputs.size(); ++i)
    bufferOf[g.inputs[i]] = addBuffer(g.inputs[i], LaunchBuffer::Role::Input, i,
                                      "in" + std::to_string(i));
  // An output that is an input or repeats an earlier output gets its own
  // buffer and a copy (copies[i] = source buffer of output buffer i).
  std::vector<std::pair<int32_t, int32_t>> copies;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    int32_t v = g.outputs[i];
    int32_t ob = addBuffer(v, LaunchBuffer::Role::Output, i,
                           "out" + std::to_string(i));
    if (bufferOf[v] >= 0)
      copies.push_back({bufferOf[v], ob});
    else
      bufferOf[v] = ob;
  }
  for (const UOp &op : g.ops)
    for (int32_t r : op.results)
      if (bufferOf[r] < 0)
        bufferOf[r] = addBuffer(r, LaunchBuffer::Role::Temp, -1,
                                "t" + std::to_string(plan.buffers.size()));

  // Kernels, appended to `into`; erased again on failure.
  SmallVector<Operation *> emitted;
  auto rollback = [&] {
    for (Operation *op : llvm::reverse(emitted))
      op->erase();
    return std::nullopt;
  };
  PlanOptions po;
  po.tensorCores = options.tensorCores;
  std::vector<KernelPlan> plans;
  for (const UOp &op : g.ops)
    plans.push_back(planKernel(g.bodies[op.body], target, po));
  // Kernels that run in their predecessor's launch (TailCombine.md), as
  // the cost model prices them.
  std::vector<std::optional<TailCombine>> tailOf(g.ops.size());
  if (options.tailCombine) {
    std::vector<const KernelPlan *> planned;
    for (const KernelPlan &p : plans)
      planned.push_back(&p);
    tailOf = planTails(g, planned, target);
  }
  OpBuilder mb = OpBuilder::atBlockEnd(into.getBody());
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (tailOf[k])
      continue; // emitted in kernel k - 1's tail
    const UOp &op = g.ops[k];
    KernelLaunch launch;
    launch.name = name.str() + "_k" + std::to_string(k);
    const UGraph &body = g.bodies[op.body];
    launch.grid = body.grid;
    for (int32_t v : op.operands)
      launch.args.push_back(bufferOf[v]);
    for (int32_t v : op.results)
      launch.args.push_back(bufferOf[v]);
    launch.plan = plans[k];
    launch.threads = launch.plan.threads;
    launch.block = body;
    std::optional<loops::TailSpec> spec;
    if (k + 1 < g.ops.size() && tailOf[k + 1]) {
      const UOp &cop = g.ops[k + 1];
      launch.tail = tailOf[k + 1];
      launch.tailBlock = g.bodies[cop.body];
      launch.tailPlan = plans[k + 1];
      launch.plan =
          fusedProducerPlan(*launch.tail, plans[k], plans[k + 1], target);
      spec.emplace();
      spec->combine = &*launch.tail;
      spec->block = &launch.tailBlock;
      spec->plan = &launch.tailPlan;
      for (int32_t v : cop.operands) {
        auto it = llvm::find(op.results, v);
        launch.tailInputFromProducer.push_back(
            it == op.results.end() ? -1
                                   : static_cast<int32_t>(it - op.results.begin()));
        if (it == op.results.end())
          launch.args.push_back(bufferOf[v]);
      }
      spec->inputFromProducer = launch.tailInputFromProducer;
      for (int32_t v : cop.results)
        launch.args.push_back(bufferOf[v]);
      LaunchBuffer counters;
      counters.name = "t" + std::to_string(plan.buffers.size());
      counters.shape = {launch.tail->groups};
      counters.counters = true;
      plan.buffers.push_back(counters);
      launch.args.push_back(static_cast<int32_t>(plan.buffers.size()) - 1);
    }
    std::string why;
    auto fn = loops::emitKernel(mb, loc, launch.name, body, launch.plan, why,
                                spec ? &*spec : nullptr);
    if (!fn) {
      error = "kernel " + std::to_string(k) + ": " + why;
      return rollback();
    }
    emitted.push_back(*fn);
    plan.kernels.push_back(std::move(launch));
  }

  // The host function: graph inputs, then outputs.
  SmallVector<Type> argTypes;
  auto typeOf = [&](const LaunchBuffer &buf) {
    return MemRefType::get(buf.shape, buf.counters
                                          ? (Type)IntegerType::get(ctx, 32)
                                          : toMLIRType(ctx, buf.type));
  };
  for (const LaunchBuffer &buf : plan.buffers)
    if (buf.role != LaunchBuffer::Role::Temp)
      argTypes.push_back(typeOf(buf));
  auto host =
      func::FuncOp::create(mb, loc, name, mb.getFunctionType(argTypes, {}));
  emitted.push_back(host);
  host->setAttr(kernel::kHostGraphAttr, mb.getStringAttr(name));
  if (!graph.reference.empty())
    host->setAttr(kernel::kHostReferenceAttr, mb.getStringAttr(graph.reference));
  OpBuilder hb = OpBuilder::atBlockEnd(host.addEntryBlock());
  SmallVector<Value> bufs;
  unsigned arg = 0;
  for (const LaunchBuffer &buf : plan.buffers) {
    // Temporaries 16-byte aligned, as the driver's allocations are: vector
    // stores to device tensors carry their vector's alignment.
    bufs.push_back(
        buf.role == LaunchBuffer::Role::Temp
            ? (Value)memref::AllocOp::create(
                  hb, loc, typeOf(buf), hb.getI64IntegerAttr(kCopyVectorBytes))
            : host.getArgument(arg++));
    if (!buf.counters)
      continue;
    // Counters start at zero (each launch leaves them so).
    Value zero = arith::ConstantIntOp::create(hb, loc, 0, 32);
    auto fill = scf::ForOp::create(
        hb, loc, arith::ConstantIndexOp::create(hb, loc, 0),
        arith::ConstantIndexOp::create(hb, loc, buf.shape[0]),
        arith::ConstantIndexOp::create(hb, loc, 1));
    OpBuilder fb = OpBuilder::atBlockTerminator(fill.getBody());
    memref::StoreOp::create(fb, loc, zero, bufs.back(),
                            ValueRange{fill.getInductionVar()});
  }
  for (const KernelLaunch &launch : plan.kernels) {
    SmallVector<Value> operands;
    for (int32_t a : launch.args)
      operands.push_back(bufs[a]);
    func::CallOp::create(hb, loc, launch.name, TypeRange{}, operands);
  }
  for (auto [from, to] : copies)
    memref::CopyOp::create(hb, loc, bufs[from], bufs[to]);
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].role == LaunchBuffer::Role::Temp)
      memref::DeallocOp::create(hb, loc, bufs[i]);
  func::ReturnOp::create(hb, loc);
  return plan;
}

namespace {
struct LowerKernelsToLoops
    : mirage::impl::MirageLowerKernelsToLoopsBase<LowerKernelsToLoops> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp top = getOperation();
    bool any = false;
    top.walk([&](kernel::GraphOp) { any = true; });
    if (!any)
      return;
    ModuleOp into = getOrCreateKernelModule(top);
    LoopLoweringOptions options;
    options.tensorCores = tensorCores;
    options.tailCombine = tailCombine;
    auto lower = [&](Operation *op, StringRef name) -> LogicalResult {
      auto graph = cast<kernel::GraphOp>(op);
      if (SymbolTable::lookupSymbolIn(into, name))
        return graph.emitError()
               << "a lowered function named '" << name << "' already exists";
      FailureOr<UGraph> g = kernel::importKernelGraph(graph);
      if (failed(g))
        return failure();
      std::string error;
      if (!lowerGraphToLoops(*g, name, into, graph.getLoc(), options, error))
        return graph.emitError()
               << "cannot lower graph '" << name << "': " << error;
      return success();
    };
    if (failed(forEachKernelGraph(top, lower)))
      signalPassFailure();
  }
};
} // namespace
