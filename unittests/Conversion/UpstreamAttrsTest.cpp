//===- UpstreamAttrsTest.cpp - Importer recipes on ops missing attributes -===//
//
// A verified upstream op may lack an attribute (MLIR 22.1.8 leaves
// `nan_mode = "IGNORE"` as an empty property), and a pass may hand the
// importer ops that no parser made. Every recipe reads attributes through
// UpstreamAttrs: an absent attribute takes the TOSA specification's default
// where there is one, else the op gets no recipe and a reason; nothing
// dereferences a null attribute. The ops here are parsed valid and then
// stripped of an attribute, which no textual test can express.
//
//===----------------------------------------------------------------------===//
#include "ImportCommon.h"
#include "UpstreamAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mirage::import;

namespace {

class UpstreamAttrsTest : public ::testing::Test {
protected:
  UpstreamAttrsTest() {
    ctx.loadDialect<func::FuncDialect, tosa::TosaDialect, linalg::LinalgDialect,
                    arith::ArithDialect, tensor::TensorDialect,
                    mirage::kernel::KernelDialect>();
  }

  /// The first op named `name` in `source` (which must parse and verify).
  Operation *parseAndFind(const char *source, StringRef name) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module) << source;
    Operation *found = nullptr;
    if (module)
      module->walk([&](Operation *op) {
        if (!found && op->getName().getStringRef() == name)
          found = op;
      });
    EXPECT_TRUE(found) << name.str();
    return found;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

const char *kReduceMax = R"mlir(
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = tosa.reduce_max %x {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
})mlir";

const char *kReduceSum = R"mlir(
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
})mlir";

const char *kClamp = R"mlir(
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tosa.clamp %x {min_val = 0.0 : f32, max_val = 3.4028235e38 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
})mlir";

const char *kMatmul = R"mlir(
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
})mlir";

const char *kExpandOfReduce = R"mlir(
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %z = arith.constant 0.0 : f32
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%i : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %k = tensor.expand_shape %r [[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
  return %k : tensor<2x1xf32>
})mlir";

TEST_F(UpstreamAttrsTest, PresentAttributesAreRead) {
  Operation *op = parseAndFind(kReduceMax, "tosa.reduce_max");
  ASSERT_TRUE(op);
  UpstreamAttrs attrs(op);
  EXPECT_EQ(attrs.integer("axis"), 1);
  EXPECT_TRUE(attrs.ok());
  EXPECT_TRUE(analyzeOp(op).recipe);
}

TEST_F(UpstreamAttrsTest, AbsentNanModeTakesTheSpecificationDefault) {
  // What the parser leaves for `nan_mode = "IGNORE"`: an empty property.
  Operation *op = parseAndFind(kReduceMax, "tosa.reduce_max");
  ASSERT_TRUE(op);
  op->removeAttr("nan_mode");
  ASSERT_FALSE(op->getAttr("nan_mode"));
  UpstreamAttrs attrs(op);
  auto nan = attrs.get<tosa::NanPropagationModeAttr>("nan_mode");
  ASSERT_TRUE(attrs.ok()) << attrs.why();
  EXPECT_EQ(nan.getValue(), tosa::NanPropagationMode::PROPAGATE);
  EXPECT_TRUE(analyzeOp(op).recipe);
}

TEST_F(UpstreamAttrsTest, AbsentAxisLeavesTheOpWithAReason) {
  for (auto [src, name] : {std::pair{kReduceSum, "tosa.reduce_sum"},
                           std::pair{kReduceMax, "tosa.reduce_max"}}) {
    Operation *op = parseAndFind(src, name);
    ASSERT_TRUE(op);
    op->removeAttr("axis");
    Analysis a = analyzeOp(op);
    EXPECT_FALSE(a.recipe) << name;
    EXPECT_EQ(a.why,
              "attribute 'axis' is absent and has no default in the "
              "specification")
        << name;
  }
}

TEST_F(UpstreamAttrsTest, ClampBoundOfAnotherKindLeavesTheOp) {
  Operation *op = parseAndFind(kClamp, "tosa.clamp");
  ASSERT_TRUE(op);
  EXPECT_TRUE(analyzeOp(op).recipe);
  op->setAttr("min_val", StringAttr::get(&ctx, "0"));
  Analysis a = analyzeOp(op);
  EXPECT_FALSE(a.recipe);
  EXPECT_EQ(a.why, "attribute 'min_val' has an unexpected kind (\"0\")");
  op->removeAttr("max_val");
  EXPECT_FALSE(analyzeOp(op).recipe);
}

TEST_F(UpstreamAttrsTest, LinalgMatmulWithoutItsMaps) {
  Operation *op = parseAndFind(kMatmul, "linalg.matmul");
  ASSERT_TRUE(op);
  EXPECT_TRUE(analyzeOp(op).recipe);
  op->removeAttr("indexing_maps");
  Analysis a = analyzeOp(op);
  EXPECT_FALSE(a.recipe);
  EXPECT_EQ(a.why, "attribute 'indexing_maps' is absent and has no default "
                   "in the specification");
}

TEST_F(UpstreamAttrsTest, AttributesAnOpDoesNotDeclareAreNotRequired) {
  // linalg.fill computes its maps; it declares no `indexing_maps`.
  Operation *op = parseAndFind(kExpandOfReduce, "linalg.fill");
  ASSERT_TRUE(op);
  UpstreamAttrs attrs(op);
  EXPECT_FALSE(attrs.getIfDeclared<ArrayAttr>("indexing_maps"));
  EXPECT_TRUE(attrs.ok());
}

TEST_F(UpstreamAttrsTest, ReduceWithoutDimensionsUnderExpandShape) {
  // Since issue 22 the linalg.reduce is imported through its indexing maps,
  // which the interface derives from `dimensions`, and the expand_shape is
  // a unit-dim reshape of its own: the reduce is the op that must refuse.
  Operation *ex = parseAndFind(kExpandOfReduce, "tensor.expand_shape");
  ASSERT_TRUE(ex);
  EXPECT_TRUE(analyzeOp(ex).recipe);
  Operation *red = ex->getOperand(0).getDefiningOp();
  EXPECT_TRUE(analyzeOp(red).recipe);
  red->removeAttr("dimensions");
  Analysis a = analyzeOp(red);
  EXPECT_FALSE(a.recipe);
  EXPECT_EQ(a.why, "attribute 'dimensions' is absent and has no default in "
                   "the specification");
  EXPECT_TRUE(analyzeOp(ex).recipe);
}

} // namespace
