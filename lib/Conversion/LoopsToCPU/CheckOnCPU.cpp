//===- CheckOnCPU.cpp - Run lowered graphs and compare with the evaluator -===//
//
// For each kernel graph: lower it to loops in a module of its own, compile
// that module for the host, run it on seeded inputs and compare every output
// with the float64 evaluator on the same inputs. The user's IR is not
// changed; the outcome is a remark per graph or an error.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/CodegenPasses.h"
#include "Mirage/Conversion/LoopsToCPU.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include "Mirage/Conversion/HostBuffers.h"

#include "llvm/Support/Format.h"

#include <chrono>
#include <cstdio>

#include <cmath>

namespace mirage {
#define GEN_PASS_DEF_MIRAGECHECKONCPU
#include "Mirage/Conversion/CodegenPasses.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {

std::string sci(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*e", digits, v);
  return buf;
}

/// The normwise error of `got` against `ref`, or a negative value when got
/// has a NaN or infinity where ref is finite.
double normwiseError(const HostBuffer &got, const Tensor<double> &ref) {
  double num = 0, den = 1e-300;
  for (int64_t i = 0; i < ref.size(); ++i) {
    double g = got.get(i), r = ref.data[i];
    if (!std::isfinite(g) && std::isfinite(r))
      return -1;
    num = std::max(num, std::abs(g - r));
    den = std::max(den, std::abs(r));
  }
  return num / den;
}

struct CheckOnCPU : mirage::impl::MirageCheckOnCPUBase<CheckOnCPU> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<func::FuncDialect, scf::SCFDialect, memref::MemRefDialect,
                    arith::ArithDialect, math::MathDialect,
                    vector::VectorDialect, affine::AffineDialect,
                    gpu::GPUDialect, LLVM::LLVMDialect, cf::ControlFlowDialect,
                    ub::UBDialect>();
  }

  LogicalResult checkGraph(kernel::GraphOp graph, const std::string &name) {
    FailureOr<UGraph> g = kernel::importKernelGraph(graph);
    if (failed(g))
      return failure();
    OwningOpRef<ModuleOp> module = ModuleOp::create(graph.getLoc());
    std::string error;
    LoopLoweringOptions lo;
    lo.tailCombine = tailCombine;
    std::optional<LaunchPlan> plan =
        lowerGraphToLoops(*g, name, *module, graph.getLoc(), lo, error);
    if (!plan)
      return graph.emitError() << "cannot lower graph '" << name
                               << "': " << error;
    auto exe = CpuExecutable::compile(*module, error);
    if (!exe)
      return graph.emitError() << "graph '" << name << "': " << error;

    std::vector<Tensor<double>> inputs = seededInputs(*g, seed);
    std::vector<HostBuffer> buffers;
    SmallVector<void *> args;
    std::vector<size_t> outputBuffer;
    for (const LaunchBuffer &buf : plan->buffers) {
      if (buf.role == LaunchBuffer::Role::Temp)
        continue;
      buffers.emplace_back(buf.type, numElements(buf.shape));
      if (buf.role == LaunchBuffer::Role::Input) {
        Tensor<double> in =
            storedOrder(*g, g->inputs[buf.position], inputs[buf.position]);
        for (int64_t i = 0; i < in.size(); ++i)
          buffers.back().set(i, in.data[i]);
      } else {
        outputBuffer.push_back(buffers.size() - 1);
      }
    }
    for (HostBuffer &b : buffers)
      args.push_back(b.data());
    auto start = std::chrono::steady_clock::now();
    if (!exe->run(name, args, error))
      return graph.emitError() << "graph '" << name << "': " << error;
    double runMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();

    // The reference sees the inputs as the kernels saw them: rounded to the
    // input dtype (exact for the seeded values, which are multiples of 2^-7).
    Float64Semantics sem;
    Evaluator<Float64Semantics> eval(sem);
    std::vector<Tensor<double>> ref = eval.run(*g, inputs);
    double worst = 0, worstTol = 0;
    ElemType worstType = ElemType::F32;
    for (size_t o = 0; o < ref.size(); ++o) {
      const HostBuffer &got = buffers[outputBuffer[o]];
      double tol = tolerance > 0 ? (double)tolerance : loweredCodeTolerance(got.type);
      double err = normwiseError(got, ref[o]);
      if (err < 0)
        return graph.emitError()
               << "graph '" << name << "' on the CPU: output " << o
               << " has a NaN or infinity where the evaluator is finite";
      if (!(err <= tol))
        return graph.emitError()
               << "graph '" << name << "' on the CPU differs from the "
               << "evaluator: output " << o << " max relative error "
               << sci(err, 2) << " > tolerance "
               << sci(tol, 1);
      if (err >= worst) {
        worst = err;
        worstTol = tol;
        worstType = got.type;
      }
    }
    graph.emitRemark() << "graph '" << name
                       << "' on the CPU matches the evaluator: max relative "
                       << "error " << sci(worst, 1) << " ("
                       << elemTypeName(worstType) << " tolerance "
                       << sci(worstTol, 0) << ", "
                       << describeKernels(*plan) << ", ran in "
                       << sci(runMs, 2) << " ms)";
    return success();
  }

  void runOnOperation() override {
    auto check = [&](Operation *g, StringRef name) {
      return checkGraph(cast<kernel::GraphOp>(g), name.str());
    };
    if (failed(forEachKernelGraph(getOperation(), check)))
      signalPassFailure();
  }
};
} // namespace
