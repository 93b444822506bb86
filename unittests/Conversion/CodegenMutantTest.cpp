//===- CodegenMutantTest.cpp - Generated code on many μGraphs -------------===//
//
// The lowering must compute what the evaluator computes for every μGraph,
// not only the six workloads. The mutation generator of the verifier tests
// supplies many valid graphs the workloads' authors never wrote (other
// imap/fmap/omap, grids, for-loop ranges, accumulator kinds, operators,
// operand orders): each is lowered to loops, JIT-compiled for the host, run
// on seeded inputs and compared with the float64 evaluator of the same
// graph. Once with every tensor in f32 (a tolerance that exposes any
// indexing, phase or accumulator error) and once in the graph's own dtype
// (f16: the tensor-core forms and padding where shapes allow).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/Mutation.h"
#include "Mirage/Conversion/KernelToLoops.h"
#include "Mirage/Conversion/LoopsToCPU.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include "Mirage/Conversion/HostBuffers.h"

#include "TestGraphs.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mirage;

namespace {

/// Every tensor of `g` (and its nested graphs) in f32.
void toF32(UGraph &g) {
  for (UValue &v : g.values)
    v.type = ElemType::F32;
  for (UGraph &b : g.bodies)
    toF32(b);
}

enum class Outcome { Match, Skipped, Mismatch };

/// Lowers, runs and compares `g`; `why` explains a mismatch.
Outcome runOnCpu(mlir::MLIRContext &ctx, const UGraph &g, double tolerance,
                 std::string &why) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  std::optional<LaunchPlan> plan =
      lowerGraphToLoops(g, "g", *module, module->getLoc(),
                        LoopLoweringOptions(), why);
  if (!plan) {
    // A graph beyond the shared-memory budget is a clear error, not a
    // wrong result.
    return why.find("shared memory") != std::string::npos ? Outcome::Skipped
                                                          : Outcome::Mismatch;
  }
  auto exe = CpuExecutable::compile(*module, why);
  if (!exe)
    return Outcome::Mismatch;
  std::vector<Tensor<double>> inputs = seededInputs(g, 3);
  std::vector<HostBuffer> buffers;
  std::vector<size_t> outputs;
  for (const LaunchBuffer &b : plan->buffers) {
    if (b.role == LaunchBuffer::Role::Temp)
      continue;
    buffers.emplace_back(b.type, numElements(b.shape));
    if (b.role == LaunchBuffer::Role::Input)
      for (int64_t i = 0; i < inputs[b.position].size(); ++i)
        buffers.back().set(i, inputs[b.position].data[i]);
    else
      outputs.push_back(buffers.size() - 1);
  }
  llvm::SmallVector<void *> args;
  for (HostBuffer &b : buffers)
    args.push_back(b.data());
  if (!exe->run("g", args, why))
    return Outcome::Mismatch;
  Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem, 1);
  std::vector<Tensor<double>> ref = eval.run(g, inputs);
  for (size_t o = 0; o < ref.size(); ++o) {
    double num = 0, den = 1e-300;
    for (int64_t i = 0; i < ref[o].size(); ++i) {
      double r = ref[o].data[i], x = buffers[outputs[o]].get(i);
      if (!std::isfinite(r) || std::abs(r) > 1e4)
        return Outcome::Skipped; // outside what f16 can hold: not a test
      if (!std::isfinite(x)) {
        why = "output " + std::to_string(o) + " is not finite";
        return Outcome::Mismatch;
      }
      num = std::max(num, std::abs(x - r));
      den = std::max(den, std::abs(r));
    }
    if (num / den > tolerance) {
      why = "output " + std::to_string(o) + " relative error " +
            std::to_string(num / den);
      return Outcome::Mismatch;
    }
  }
  return Outcome::Match;
}

void checkWorkloadMutants(const char *workload, size_t limit) {
  auto mirageCtx = test::makeMirageContext(/*quiet=*/true);
  auto module = test::parseMlirFile(
      test::sourceFile("test/Workloads", workload), *mirageCtx);
  ASSERT_TRUE(module) << workload;
  std::vector<test::GraphPair> pairs;
  ASSERT_TRUE(test::importReferencePairs(*module, pairs));
  auto ctx = test::makeCodegenContext();
  int matched = 0, skipped = 0;
  for (const test::GraphPair &p : pairs) {
    std::vector<Mutant> mutants = generateMutants(p.cand, limit);
    mutants.push_back({p.cand, "unmutated"});
    for (const Mutant &m : mutants) {
      for (bool f32 : {false, true}) {
        UGraph g = m.graph;
        if (f32)
          toF32(g);
        // In f32 a wrong index, phase or accumulator step shows at once:
        // 1e-4. In f16 the unmutated graph must meet the dtype's tolerance;
        // a mutant may be ill-conditioned (a division swapped to divide by
        // near-cancelling sums amplifies f16 rounding to a few percent), so
        // there only gross errors count: what a wrong tensor-core fragment,
        // padding or conversion would produce.
        bool unmutated = m.description == "unmutated";
        double tol = f32 ? 1e-4
                         : unmutated ? loweredCodeTolerance(g.values[g.outputs[0]].type)
                                     : 0.25;
        std::string why;
        Outcome o = runOnCpu(*ctx, g, tol, why);
        EXPECT_NE(o, Outcome::Mismatch)
            << p.name << " mutant '" << m.description << "' ("
            << (f32 ? "f32" : "own dtype") << "): " << why;
        matched += o == Outcome::Match;
        skipped += o == Outcome::Skipped;
      }
    }
  }
  std::printf("%s: %d runs matched the evaluator, %d skipped\n", workload,
              matched, skipped);
  EXPECT_GT(matched, 0);
}

} // namespace

TEST(CodegenMutants, RmsNormMatmul) { checkWorkloadMutants("rmsnorm_matmul", 40); }
TEST(CodegenMutants, GatedMlp) { checkWorkloadMutants("gated_mlp", 40); }
TEST(CodegenMutants, Lora) { checkWorkloadMutants("lora", 40); }
TEST(CodegenMutants, Gqa) { checkWorkloadMutants("gqa", 40); }
TEST(CodegenMutants, QkNorm) { checkWorkloadMutants("qknorm", 40); }
TEST(CodegenMutants, NTrans) { checkWorkloadMutants("ntrans", 40); }
