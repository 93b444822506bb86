//===- TestGraphs.cpp - Shared fixtures of the unit tests -----------------===//
#include "TestGraphs.h"

#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/InitAllDialects.h"

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
#include "mlir/IR/Builders.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mirage;

namespace {
/// Checks a block graph and wraps it as the kernel graph's one custom op over
/// kernel inputs of the block graph's input shapes.
UGraph wrapCustom(UGraph b) {
  EXPECT_TRUE(b.error.empty()) << b.error;
  UGraph g;
  llvm::SmallVector<int32_t> ins;
  for (int32_t in : b.inputs)
    ins.push_back(g.addInput(b.values[in].shape, b.values[in].type));
  int32_t o = g.addCustom(ins, std::move(b));
  EXPECT_GE(o, 0) << g.error;
  g.markOutput(o);
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}
} // namespace

UGraph test::rmsMatmulReference(int64_t m, int64_t k, int64_t n,
                                ElemType type) {
  UGraph g;
  int32_t x = g.addInput({m, k}, type);
  int32_t w = g.addInput({k, n}, type);
  g.markOutput(g.addMatmul(g.addRmsNorm(x, -1), w));
  return g;
}

UGraph test::rmsMatmulFused(int64_t m, int64_t k, int64_t n, int64_t gx,
                            int64_t loop, AccumKind norm, int64_t wImapX,
                            ElemType type) {
  UGraph b(Level::Block);
  b.grid = {gx, 1, 1};
  b.forloopRange = loop;
  int32_t X = b.addInput({m, k}, type);
  int32_t W = b.addInput({k, n}, type);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(W, {wImapX, -1, -1}, 0);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  int32_t rms = b.addAccum(norm, xt, -1, 0);
  b.markOutput(b.addOutputSaver(b.addBinary(BinaryKind::div, acc, rms),
                                {1, -1, -1}));
  return wrapCustom(std::move(b));
}

UGraph test::rmsEpsMatmulReference(int64_t m, int64_t k, int64_t n,
                                   double eps, ElemType type) {
  UGraph g;
  int32_t x = g.addInput({m, k}, type);
  int32_t gamma = g.addInput({1, k}, type);
  int32_t w = g.addInput({k, n}, type);
  g.markOutput(g.addMatmul(g.addRmsNorm(x, gamma, eps), w));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}

UGraph test::rmsEpsMatmulFused(int64_t m, int64_t k, int64_t n, int64_t gx,
                               int64_t loop, double eps) {
  UGraph b(Level::Block);
  b.grid = {gx, 1, 1};
  b.forloopRange = loop;
  int32_t X = b.addInput({m, k}, ElemType::F32);
  int32_t G = b.addInput({1, k}, ElemType::F32);
  int32_t W = b.addInput({k, n}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t gt = b.addInputIterator(G, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(W, {1, -1, -1}, 0);
  int32_t xg = b.addBinary(BinaryKind::mul, xt, gt);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xg, wt), -1, 0);
  int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0, eps);
  b.markOutput(b.addOutputSaver(b.addBinary(BinaryKind::div, acc, rms),
                                {1, -1, -1}));
  return wrapCustom(std::move(b));
}

UGraph test::gqaReference(int64_t heads, int64_t rows, int64_t d, int64_t keys) {
  UGraph g(Level::Kernel);
  int32_t q = g.addInput({heads, rows, d}, ElemType::F16);
  int32_t k = g.addInput({heads, d, keys}, ElemType::F16);
  int32_t v = g.addInput({heads, keys, d}, ElemType::F16);
  int32_t s = g.addMatmul(q, k);
  int32_t e = g.addUnary(UnaryKind::exp, s);
  int32_t den = g.addReduce(ReduceKind::sum, e, 2);
  int32_t p = g.addBinary(BinaryKind::div, e, den);
  g.markOutput(g.addMatmul(p, v));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}

UGraph test::qknormReference(int64_t heads, int64_t rows, int64_t d,
                             int64_t keys) {
  UGraph g(Level::Kernel);
  int32_t q = g.addInput({heads, rows, d}, ElemType::F16);
  int32_t k = g.addInput({heads, d, keys}, ElemType::F16);
  int32_t v = g.addInput({heads, keys, d}, ElemType::F16);
  int32_t qn = g.addRmsNorm(q, -1, 1e-6);
  int32_t vn = g.addRmsNorm(v, -1, 1e-6);
  int32_t s = g.addMatmul(qn, k);
  int32_t e = g.addUnary(UnaryKind::exp, s);
  int32_t den = g.addReduce(ReduceKind::sum, e, 2);
  int32_t p = g.addBinary(BinaryKind::div, e, den);
  g.markOutput(g.addMatmul(p, vn));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}

std::unique_ptr<mlir::MLIRContext> test::makeMirageContext(bool quiet) {
  mlir::DialectRegistry registry;
  registerAllMirageDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  if (quiet)
    ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  return ctx;
}

std::unique_ptr<mlir::MLIRContext> test::makeCodegenContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::scf::SCFDialect,
                  mlir::memref::MemRefDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::vector::VectorDialect,
                  mlir::affine::AffineDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::cf::ControlFlowDialect,
                  mlir::ub::UBDialect>();
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  return ctx;
}

mlir::OwningOpRef<mlir::ModuleOp>
test::parseMlirFile(const std::string &path, mlir::MLIRContext &ctx) {
  return mlir::parseSourceFile<mlir::ModuleOp>(path, &ctx);
}

std::string test::sourceFile(const std::string &dir, const std::string &name) {
  return std::string(MIRAGE_SOURCE_DIR) + "/" + dir + "/" + name + ".mlir";
}

::testing::AssertionResult
test::importReferencePairs(mlir::ModuleOp module, std::vector<GraphPair> &out) {
  llvm::SmallVector<std::pair<kernel::GraphOp, kernel::GraphOp>> pairs;
  bool ok = succeeded(kernel::collectReferencePairs(module, pairs));
  for (auto [c, r] : pairs) {
    auto cand = kernel::importKernelGraph(c);
    auto ref = kernel::importKernelGraph(r);
    if (failed(cand) || failed(ref)) {
      ok = false;
      continue;
    }
    out.push_back({c.getSymName().value_or("?").str(), std::move(*cand),
                   std::move(*ref)});
  }
  if (ok)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "a reference is missing or a graph does not import";
}

std::string test::printAsFunc(mlir::MLIRContext &ctx, const UGraph &g,
                              llvm::StringRef funcName) {
  mlir::OpBuilder builder(&ctx);
  mlir::Location loc = builder.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  llvm::SmallVector<mlir::Type> argTypes;
  for (int32_t v : g.inputs)
    argTypes.push_back(mlir::RankedTensorType::get(g.value(v).shape,
                                                   builder.getF16Type()));
  llvm::SmallVector<mlir::Type> resTypes{mlir::RankedTensorType::get(
      g.value(g.outputs[0]).shape, builder.getF16Type())};
  auto func = mlir::func::FuncOp::create(
      builder, loc, funcName, builder.getFunctionType(argTypes, resTypes));
  mlir::Block *entry = func.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  kernel::GraphOp graphOp =
      kernel::exportKernelGraph(builder, loc, g, entry->getArguments());
  mlir::func::ReturnOp::create(builder, loc, graphOp->getResults());
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

::testing::AssertionResult test::importGraphFromText(const std::string &text,
                                                     mlir::MLIRContext &ctx,
                                                     UGraph &out) {
  auto parsed = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!parsed)
    return ::testing::AssertionFailure() << "does not parse:\n" << text;
  kernel::GraphOp back;
  parsed->walk([&](kernel::GraphOp op) { back = op; });
  if (!back)
    return ::testing::AssertionFailure() << "no kernel graph:\n" << text;
  auto imported = kernel::importKernelGraph(back);
  if (failed(imported))
    return ::testing::AssertionFailure() << "does not import:\n" << text;
  out = std::move(*imported);
  return ::testing::AssertionSuccess();
}
