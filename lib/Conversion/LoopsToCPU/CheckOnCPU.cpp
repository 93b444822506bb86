//===- CheckOnCPU.cpp - Run lowered graphs and compare with the evaluator -===//
//
// For each kernel graph: lower it to loops in a module of its own, compile
// that module for the host, run it on seeded inputs and compare every output
// with the float64 evaluator on the same inputs. The user's IR is not
// changed; the outcome is a remark per graph or an error.
//
// An output the graph's own element type cannot compute (f16 overflow, a
// pow with a large exponent) differs from float64 however right the code
// is. Such a difference is explained, with a warning, only where the
// evaluator rounding every value to that type (RoundingSemantics.h) misses
// float64 by more than the type's tolerance: the lowered code may then miss
// it by the tolerance plus twice what the rounded evaluator misses, and be
// non-finite only where the rounded evaluator is (docs/Rationale/
// Sanitizers.md, "The code-generation campaign").
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/CodegenPasses.h"
#include "Mirage/Conversion/LoopsToCPU.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"
#include "Mirage/Semantics/RoundingSemantics.h"

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

/// How an output compares with a reference.
struct OutputError {
  /// max |got − ref| / max |ref| over the elements both hold finite.
  double normwise = 0;
  /// Elements where got is NaN or infinite and ref is finite.
  int64_t nonFinite = 0;
  bool within(double tol) const { return nonFinite == 0 && normwise <= tol; }
};

/// `got(i)` against `ref`, leaving out the elements where `excused` (if
/// given) is not finite.
template <class Got>
OutputError compareOutput(Got got, const Tensor<double> &ref,
                          const Tensor<double> *excused) {
  OutputError e;
  double num = 0, den = 1e-300;
  for (int64_t i = 0; i < ref.size(); ++i) {
    double g = got(i), r = ref.data[i];
    if (!std::isfinite(r) || (excused && !std::isfinite(excused->data[i])))
      continue;
    if (!std::isfinite(g)) {
      ++e.nonFinite;
      continue;
    }
    num = std::max(num, std::abs(g - r));
    den = std::max(den, std::abs(r));
  }
  e.normwise = num / den;
  return e;
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
    // The graph in its own precision, evaluated only if an output misses.
    std::optional<std::vector<Tensor<double>>> rounded;
    ElemType roundedType = narrowestType(*g);
    double worst = 0, worstTol = 0;
    ElemType worstType = ElemType::F32;
    unsigned explained = 0;
    for (size_t o = 0; o < ref.size(); ++o) {
      const HostBuffer &got = buffers[outputBuffer[o]];
      auto gotAt = [&](int64_t i) { return got.get(i); };
      double tol = tolerance > 0 ? (double)tolerance : loweredCodeTolerance(got.type);
      OutputError err = compareOutput(gotAt, ref[o], nullptr);
      if (!err.within(tol)) {
        if (!rounded) {
          RoundingSemantics rs{roundedType, {}};
          rounded = Evaluator<RoundingSemantics>(rs).run(*g, inputs);
        }
        const Tensor<double> &low = (*rounded)[o];
        OutputError own = compareOutput([&](int64_t i) { return low.data[i]; },
                                        ref[o], nullptr);
        OutputError excused = compareOutput(gotAt, ref[o], &low);
        // Explained only where the rounded evaluator misses by more than
        // the type's own tolerance: a tighter tolerance asked for is no
        // ill-conditioning.
        bool illConditioned = !own.within(loweredCodeTolerance(got.type));
        if (!illConditioned || !excused.within(tol + 2 * own.normwise)) {
          if (err.nonFinite)
            return graph.emitError()
                   << "graph '" << name << "' on the CPU: output " << o
                   << " has a NaN or infinity where the evaluator is finite";
          return graph.emitError()
                 << "graph '" << name << "' on the CPU differs from the "
                 << "evaluator: output " << o << " max relative error "
                 << sci(err.normwise, 2) << " > tolerance " << sci(tol, 1);
        }
        graph.emitWarning()
            << "graph '" << name << "' on the CPU: output " << o
            << " differs from the float64 evaluator (max relative error "
            << sci(err.normwise, 2) << ", " << err.nonFinite
            << " non-finite elements) as the evaluator rounding every value "
            << "to " << elemTypeName(roundedType) << " does ("
            << sci(own.normwise, 2) << ", " << own.nonFinite
            << " non-finite): the output is ill-conditioned or overflows in "
            << elemTypeName(roundedType)
            << "; checked only within that (max relative error "
            << sci(excused.normwise, 2) << " where the rounded evaluator is "
            << "finite, allowed " << sci(tol + 2 * own.normwise, 1) << ")";
        ++explained;
        continue;
      }
      if (err.normwise >= worst) {
        worst = err.normwise;
        worstTol = tol;
        worstType = got.type;
      }
    }
    if (explained == ref.size())
      return success();
    graph.emitRemark() << "graph '" << name
                       << "' on the CPU matches the evaluator: max relative "
                       << "error " << sci(worst, 1) << " ("
                       << elemTypeName(worstType) << " tolerance "
                       << sci(worstTol, 0) << ", " << describeKernels(*plan)
                       << ", ran in " << sci(runMs, 2) << " ms)"
                       << (explained ? "; " + std::to_string(explained) +
                                           " output(s) only within the "
                                           "graph's precision, as warned"
                                     : std::string());
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
