//===- KernelsToPTX.cpp - PTX, manifests and expected outputs per graph ---===//
//
// The end of the GPU code generator for a user: each kernel graph becomes a
// PTX file and a manifest that `mirage-run` executes on a GPU machine that
// has no MLIR, plus the host evaluator's outputs for small graphs. Each graph
// is lowered in a module of its own; the user's IR is not changed.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/CodegenPasses.h"
#include "Mirage/Conversion/KernelToLoops.h"
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include "Manifest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEKERNELSTOPTX
#include "Mirage/Conversion/CodegenPasses.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {

/// Writes `bytes` to `path`; an error message on failure.
std::string writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return "cannot write '" + path.str() + "': " + ec.message();
  os << bytes;
  os.close();
  if (os.has_error())
    return "cannot write '" + path.str() + "'";
  return "";
}

struct KernelsToPTX : mirage::impl::MirageKernelsToPTXBase<KernelsToPTX> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registry.insert<func::FuncDialect, scf::SCFDialect, memref::MemRefDialect,
                    arith::ArithDialect, math::MathDialect,
                    vector::VectorDialect, affine::AffineDialect,
                    gpu::GPUDialect, LLVM::LLVMDialect>();
    registerLoopsToGPUDependentDialects(registry);
  }

  /// The target record and chip of `graph`'s code (the pass's options, else
  /// the graph's target): one choice, so a chip never pairs with another
  /// target's cost model. The options were checked once for the module
  /// (checkOptions).
  FailureOr<std::pair<TargetInfo, std::string>>
  resolveTarget(kernel::GraphOp graph, const UGraph &g) {
    if (!chip.empty())
      return std::make_pair(*lookupTargetByChip(chip), std::string(chip));
    StringRef name = !target.empty()    ? StringRef(target)
                     : g.target.empty() ? StringRef(kDefaultTarget)
                                        : StringRef(g.target);
    std::optional<TargetInfo> t = lookupTarget(name);
    if (!t)
      return graph.emitError() << "unknown target '" << g.target << "'";
    return std::make_pair(*t, t->chip.str());
  }

  LogicalResult emitGraph(kernel::GraphOp graph, const std::string &name) {
    FailureOr<UGraph> g = kernel::importKernelGraph(graph);
    if (failed(g))
      return failure();
    auto resolved = resolveTarget(graph, *g);
    if (failed(resolved))
      return failure();
    const TargetInfo &tgt = resolved->first;
    const std::string &chip = resolved->second;
    for (int32_t v : g->inputs)
      if (g->values[v].type == ElemType::F64)
        return graph.emitError()
               << "graph '" << name
               << "': f64 tensors have no GPU path (f16, bf16 and f32 do)";
    OwningOpRef<ModuleOp> module = ModuleOp::create(graph.getLoc());
    std::string error;
    LoopLoweringOptions lo;
    lo.target = tgt.name.str();
    lo.tailCombine = tailCombine;
    std::optional<LaunchPlan> plan =
        lowerGraphToLoops(*g, name, *module, graph.getLoc(), lo, error);
    if (!plan)
      return graph.emitError() << "cannot lower graph '" << name
                               << "': " << error;
    // A graph whose outputs are its inputs (an identity or a pure
    // forwarding left by the importer) runs nothing on the GPU: nothing to
    // write, and nothing wrong with the program.
    if (plan->kernels.empty()) {
      graph.emitRemark() << "graph '" << name
                         << "' computes no kernel (its outputs are its "
                            "inputs): no PTX written";
      return success();
    }
    for (const KernelLaunch &k : plan->kernels)
      if (!k.plan.launchable)
        return graph.emitError() << "graph '" << name << "': kernel '"
                                 << k.name << "' cannot launch on " << chip
                                 << ": " << k.plan.whyNotLaunchable;
    // Programmatic dependent launch (Lowering.md): every kernel but the
    // graph's first waits for the one before it, every kernel but the last
    // lets the next one launch once all its blocks have started.
    llvm::StringSet<> waitsOnPrevious;
    if (tgt.gridDependencyControl)
      for (size_t i = 0; i < plan->kernels.size(); ++i) {
        const std::string &kname = plan->kernels[i].name;
        auto fn = module->lookupSymbol<func::FuncOp>(kname);
        if (!fn)
          return graph.emitError() << "graph '" << name << "': no loop-level "
                                   << "function for kernel '" << kname
                                   << "' (internal error)";
        UnitAttr unit = UnitAttr::get(fn.getContext());
        if (i > 0) {
          fn->setAttr(kWaitsOnPreviousAttr, unit);
          waitsOnPrevious.insert(kname);
        }
        if (i + 1 < plan->kernels.size())
          fn->setAttr(kLaunchesDependentsAttr, unit);
      }
    GpuCodegenOptions opts;
    opts.chip = chip;
    opts.features = tgt.ptxFeatures.str();
    opts.maxStaticSharedBytes = tgt.maxStaticSmemBytes;
    opts.dynamicSharedReserve = tgt.dynamicSmemReserve;
    opts.asyncCopies = asyncCopies;
    opts.swizzleSharedMemory = swizzle;
    opts.warpReductions = warpReductions;
    opts.eliminateBarriers = eliminateBarriers;
    opts.tf32 = tf32;
    FailureOr<PtxModule> ptx = lowerLoopsToPTX(*module, opts);
    if (failed(ptx))
      return graph.emitError() << "graph '" << name
                               << "': the GPU lowering failed (see above)";
    // The lowering must have allocated what the plan priced.
    for (auto [k, info] : llvm::zip(plan->kernels, ptx->kernels)) {
      int64_t actual = info.dynamicSharedBytes + info.staticSharedBytes;
      if (actual != k.plan.sharedBytes)
        return graph.emitError()
               << "graph '" << name << "': kernel '" << k.name
               << "' allocated " << actual
               << " bytes of shared memory, its launch plan "
               << k.plan.sharedBytes << " (internal error)";
    }

    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return graph.emitError() << "cannot create '" << outputDir
                               << "': " << ec.message();
    auto path = [&](const std::string &file) {
      SmallString<256> p(outputDir);
      llvm::sys::path::append(p, file);
      return std::string(p);
    };
    ManifestInfo info;
    info.chip = chip;
    info.waitsOnPrevious = std::move(waitsOnPrevious);
    info.seed = seed;
    info.ptxFile = name + "." + chip + ".ptx";
    for (const PtxKernelInfo &k : ptx->kernels) {
      info.dynamicSharedBytes[k.name] = k.dynamicSharedBytes;
      info.staticSharedBytes[k.name] = k.staticSharedBytes;
    }
    for (const KernelLaunch &k : plan->kernels) {
      KernelCost c = estimateKernel(k.block, k.plan, tgt);
      priceLaunchAt(c, &k == &plan->kernels.front(), tgt);
      std::vector<double> loads = c.inputLoadBytes;
      loads.resize(k.args.size(), 0); // the outputs are stored, not loaded
      // A tail combine runs in this launch (TailCombine.md): its seconds
      // and its traffic are this kernel's too, its loads on the arguments
      // it reads (this kernel's outputs, or its own inputs after them).
      double tailSeconds = 0;
      if (k.tail) {
        KernelCost t = estimateKernel(k.tailBlock, k.tailPlan, tgt);
        tailSeconds = tailCombineSeconds(*k.tail, k.tailPlan,
                                         k.tailBlock.forloopRange, tgt);
        c.seconds += tailSeconds;
        c.l2Bytes += t.l2Bytes;
        c.dramBytes += t.dramBytes;
        size_t ins = k.block.inputs.size();
        size_t extra = ins + k.block.outputs.size();
        for (size_t i = 0; i < k.tailInputFromProducer.size(); ++i) {
          int32_t from = k.tailInputFromProducer[i];
          size_t at = from >= 0 ? ins + from : extra++;
          if (at < loads.size() && i < t.inputLoadBytes.size())
            loads[at] += t.inputLoadBytes[i];
        }
      }
      ManifestInfo::Estimate &e = info.estimates[k.name];
      e.seconds = c.seconds;
      e.memorySeconds = c.memorySeconds;
      e.computeSeconds = c.computeSeconds;
      e.launchSeconds = c.launchSeconds;
      e.tailSeconds = tailSeconds;
      e.tileBytes = c.l2Bytes;
      e.dramBytes = c.dramBytes;
      e.argLoadBytes = std::move(loads);
    }
    for (int32_t o : g->outputs)
      info.tolerance = std::max(info.tolerance,
                                loweredCodeTolerance(g->values[o].type));

    // Expected outputs from the float64 evaluator, for graphs small enough
    // to evaluate here in moments.
    int64_t elements = 0;
    for (int32_t v : g->inputs)
      elements += numElements(g->values[v].shape);
    for (int32_t v : g->outputs)
      elements += numElements(g->values[v].shape);
    if (expectedMaxElements > 0 && elements <= expectedMaxElements) {
      Float64Semantics sem;
      Evaluator<Float64Semantics> eval(sem);
      std::vector<Tensor<double>> outs = eval.run(*g, seededInputs(*g, seed));
      for (size_t i = 0; i < outs.size(); ++i) {
        std::string file = name + ".out" + std::to_string(i) + ".f32";
        std::vector<float> values(outs[i].data.begin(), outs[i].data.end());
        std::string err = writeFile(
            path(file), StringRef(reinterpret_cast<const char *>(values.data()),
                                  values.size() * sizeof(float)));
        if (!err.empty())
          return graph.emitError() << err;
        info.expectedFiles.push_back(file);
      }
    }
    std::string manifestFile = name + "." + chip + ".manifest.json";
    for (auto [file, text] :
         {std::pair<std::string, std::string>{info.ptxFile, ptx->ptx},
          {manifestFile, writeManifest(*plan, info)}}) {
      std::string err = writeFile(path(file), text);
      if (!err.empty())
        return graph.emitError() << err;
    }
    int64_t matmuls = 0, onTensorCores = 0;
    for (const KernelLaunch &k : plan->kernels) {
      matmuls += static_cast<int64_t>(k.plan.matmuls.size());
      onTensorCores += k.plan.tensorCoreMatmuls();
      numPipelinedKernels += k.plan.stages > 1;
      if (asyncCopies)
        for (const CopyPlan &c : k.plan.copies)
          numAsyncCopies += c.grouped;
    }
    ++numGraphsWritten;
    numKernels += plan->kernels.size();
    numDependentLaunches += info.waitsOnPrevious.size();
    numMatmuls += matmuls;
    numTensorCoreMatmuls += onTensorCores;
    graph.emitRemark() << "graph '" << name << "': wrote "
                       << path(info.ptxFile) << " and " << path(manifestFile)
                       << " (" << describeKernels(*plan) << ", "
                       << onTensorCores << " of " << matmuls
                       << " matmuls on tensor cores)";
    return success();
  }

  /// The target and chip options, checked once for the module: a wrong
  /// configuration fails the pass even with keep-going.
  LogicalResult checkOptions() {
    if (!target.empty() && !lookupTarget(target))
      return getOperation()->emitError()
             << "unknown target '" << target << "' (h100, a100)";
    if (chip.empty())
      return success();
    std::optional<TargetInfo> byChip = lookupTargetByChip(chip);
    if (!byChip)
      return getOperation()->emitError() << unsupportedChipMessage(chip);
    if (!target.empty() && byChip->name != target)
      return getOperation()->emitError()
             << "chip '" << chip << "' is not the chip of target '" << target
             << "' (" << lookupTarget(target)->chip
             << "); name one of them, or target=" << byChip->name;
    return success();
  }

  /// With keep-going, a graph whose lowering fails is reported in warnings
  /// (its errors, reworded) and the pass goes on (issue 22: a whole program
  /// never fails for one graph).
  LogicalResult emitGraphOrWarn(kernel::GraphOp graph, const std::string &name) {
    if (!keepGoing)
      return emitGraph(graph, name);
    SmallVector<std::pair<Location, std::string>> errors;
    LogicalResult r = failure();
    {
      ScopedDiagnosticHandler collect(&getContext(), [&](Diagnostic &d) {
        if (d.getSeverity() != DiagnosticSeverity::Error)
          return failure(); // remarks and warnings go on to the caller
        errors.push_back({d.getLocation(), d.str()});
        return success();
      });
      r = emitGraph(graph, name);
    }
    if (succeeded(r))
      return success();
    for (auto &[loc, message] : errors)
      emitWarning(loc) << message << " (graph '" << name
                       << "' left without PTX; the other graphs are written)";
    return success();
  }

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    auto emit = [&](Operation *g, StringRef name) {
      return emitGraphOrWarn(cast<kernel::GraphOp>(g), name.str());
    };
    if (failed(forEachKernelGraph(getOperation(), emit)))
      signalPassFailure();
  }
};
} // namespace
