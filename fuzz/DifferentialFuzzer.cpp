//===- DifferentialFuzzer.cpp - Verifier verdicts against float64 ---------===//
//
// Input: bytes that pick a reference pair (every candidate of
// test/Workloads/*.mlir and examples/rmsnorm_matmul.mlir with its
// reference), one to three rounds of single-change mutations of the
// candidate (lib/Analysis/Mutation.cpp, so a mutant of a mutant is
// reachable) and the verifier's seed. Whenever the finite-field verifier
// says "equivalent", the candidate and the reference must also agree in
// float64 on random inputs, within rounding; a pair it accepts that float64
// tells apart is a finding (an unsound verdict).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "Mirage/Analysis/Mutation.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/InitAllDialects.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>

using namespace mlir;
using namespace mirage;

namespace {
struct Pair {
  std::string name;
  UGraph cand, ref;
};

std::vector<Pair> loadPairs() {
  DialectRegistry registry;
  registerAllMirageDialects(registry);
  registry.insert<func::FuncDialect, arith::ArithDialect>();
  std::unique_ptr<MLIRContext> ctx = fuzz::makeQuietContext(registry);
  std::vector<Pair> pairs;
  std::string src = MIRAGE_SOURCE_DIR;
  for (const char *file :
       {"/examples/rmsnorm_matmul.mlir", "/test/Workloads/gated_mlp.mlir",
        "/test/Workloads/gqa.mlir", "/test/Workloads/lora.mlir",
        "/test/Workloads/ntrans.mlir", "/test/Workloads/qknorm.mlir",
        "/test/Workloads/rmsnorm_matmul.mlir"}) {
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(src + file, ParserConfig(ctx.get()));
    if (!module)
      fuzz::finding("a workload file does not parse", src + file);
    llvm::SmallVector<std::pair<kernel::GraphOp, kernel::GraphOp>> refs;
    if (failed(kernel::collectReferencePairs(*module, refs)))
      fuzz::finding("a workload file names a missing reference", file);
    for (auto [c, r] : refs) {
      FailureOr<UGraph> cand = kernel::importKernelGraph(c);
      FailureOr<UGraph> ref = kernel::importKernelGraph(r);
      if (failed(cand) || failed(ref))
        fuzz::finding("a workload graph does not import", file);
      pairs.push_back({std::string(file) + ":" +
                           c.getSymName().value_or("?").str(),
                       std::move(*cand), std::move(*ref)});
    }
  }
  return pairs;
}

/// Whether two float64 results agree within rounding: relative to the
/// largest magnitude of the reference output; NaN only where the other side
/// is NaN too, infinities only where they are equal.
bool agree(const Tensor<double> &x, const Tensor<double> &y, double &worst) {
  if (x.shape != y.shape)
    return false;
  double scale = 1e-300;
  for (double v : y.data)
    if (std::isfinite(v))
      scale = std::max(scale, std::fabs(v));
  for (int64_t e = 0; e < x.size(); ++e) {
    double a = x.data[e], b = y.data[e];
    if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) {
      if (!(std::isnan(a) && std::isnan(b)) && a != b)
        return false;
      continue;
    }
    worst = std::max(worst, std::fabs(a - b) / scale);
  }
  return worst <= 1e-6;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::vector<Pair> pairs = loadPairs();
  FuzzedDataProvider fdp(data, size);
  const Pair &base =
      pairs[fdp.ConsumeIntegralInRange<size_t>(0, pairs.size() - 1)];
  UGraph cand = base.cand;
  std::string how = base.name;
  int rounds = fdp.ConsumeIntegralInRange<int>(1, 3);
  for (int r = 0; r < rounds; ++r) {
    // Mutants come in a fixed order; the first `limit` are enough to choose
    // from and keep one round cheap.
    std::vector<Mutant> ms = generateMutants(cand, 512);
    if (ms.empty())
      break;
    Mutant &m = ms[fdp.ConsumeIntegralInRange<size_t>(0, ms.size() - 1)];
    how += "\n  then " + m.description;
    cand = std::move(m.graph);
  }

  VerifyOptions opts;
  opts.threads = 1;
  opts.seed = fdp.ConsumeIntegral<uint64_t>();
  VerificationResult v = verifyEquivalence(cand, base.ref, opts);
  if (v.status != VerifyStatus::Equivalent)
    return 0;

  Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem, /*threads=*/1);
  for (uint64_t s : {1u, 2u}) {
    std::vector<Tensor<double>> ins = randomInputs(base.ref, s);
    std::vector<Tensor<double>> x = eval.run(cand, ins);
    std::vector<Tensor<double>> y = eval.run(base.ref, ins);
    if (x.size() != y.size())
      fuzz::finding("an accepted pair has different output counts", how);
    for (size_t i = 0; i < x.size(); ++i) {
      double worst = 0;
      if (!agree(x[i], y[i], worst)) {
        std::string detail;
        llvm::raw_string_ostream os(detail);
        os << how << "\nverifier: " << v.message << " (seed " << opts.seed
           << ")\noutput " << i << ": float64 relative error " << worst;
        fuzz::finding("the verifier accepted a pair float64 tells apart",
                      detail);
      }
    }
  }
  return 0;
}
