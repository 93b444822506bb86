//===- BF16MmaSync.cpp - bf16 nvgpu.mma.sync -> nvvm.mma.sync -------------===//
//
// LLVM 22's NVGPUToNVVM rejects bf16 nvgpu.mma.sync ("failed to deduce
// operand PTX types") although the op verifies and PTX has the instruction
// (mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32). The operands of
// nvvm.mma.sync for b16 multiplicands are i32 registers holding two
// elements, in the same fragment order nvgpu uses for f16 (gpu-lowering.md
// 3.3). This rewrite runs before the LLVM conversion, so the glue is vector
// extract/from_elements plus llvm.bitcast/extractvalue, which the later
// conversions handle.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {
struct BF16MmaSyncToNVVM : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    VectorType aTy = op.getMatrixA().getType(), bTy = op.getMatrixB().getType(),
               cTy = op.getMatrixC().getType();
    if (!aTy.getElementType().isBF16() || !bTy.getElementType().isBF16())
      return rewriter.notifyMatchFailure(op, "not bf16");
    SmallVector<int64_t> shape = llvm::to_vector(llvm::map_range(
        op.getMmaShape(),
        [](Attribute a) { return cast<IntegerAttr>(a).getInt(); }));
    // m16n8k16 bf16: A is 4 x vector<2xbf16>, B 2 x vector<2xbf16>, C/D
    // 2 x vector<2xf32> per lane.
    if (shape != ArrayRef<int64_t>{16, 8, 16} ||
        aTy.getShape() != ArrayRef<int64_t>{4, 2} ||
        bTy.getShape() != ArrayRef<int64_t>{2, 2} ||
        cTy.getShape() != ArrayRef<int64_t>{2, 2} ||
        !cTy.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not the m16n8k16 f32 form");

    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    auto packRows = [&](Value frag, int64_t rows) {
      SmallVector<Value> regs;
      for (int64_t r = 0; r < rows; ++r) {
        Value pair = vector::ExtractOp::create(rewriter, loc, frag, r);
        regs.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, pair));
      }
      return regs;
    };
    SmallVector<Value> a = packRows(op.getMatrixA(), 4);
    SmallVector<Value> b = packRows(op.getMatrixB(), 2);
    SmallVector<Value> c;
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t col = 0; col < 2; ++col)
        c.push_back(vector::ExtractOp::create(
            rewriter, loc, op.getMatrixC(), ArrayRef<int64_t>{r, col}));

    auto structTy =
        LLVM::LLVMStructType::getLiteral(getContext(), {f32, f32, f32, f32});
    auto mma = NVVM::MmaOp::create(
        rewriter, loc, structTy, a, b, c, shape, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t i = 0; i < 4; ++i)
      d.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma, i));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, cTy, d);
    return success();
  }
};
} // namespace

void mirage::populateBF16MmaSyncToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<BF16MmaSyncToNVVM>(patterns.getContext());
}
