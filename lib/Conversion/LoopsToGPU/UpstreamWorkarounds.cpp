//===- UpstreamWorkarounds.cpp - Where upstream MLIR 22 falls short -------===//
//
// One place for the GPU lowering's workarounds of upstream defects; the list,
// and the test pinning each upstream behaviour, is in UpstreamWorkarounds.h.
//
//===----------------------------------------------------------------------===//
#include "UpstreamWorkarounds.h"
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

//===----------------------------------------------------------------------===//
// Scalar seeds of the mma.sync conversion
//===----------------------------------------------------------------------===//

// LLVM 22's convertVectorToNVVMCompatibleMMASync seeds its op slices not only
// at contractions but at every op of its elementwise list, scalar ones
// included, and then fails on them in nvgpu mode ("unhandled vector to mma
// type: arith.negf"): one scalar addf/mulf/extf in a thread phase, or an
// arith.muli in index math, breaks the whole kernel.
static constexpr StringLiteral kHiddenName = "mirage.hidden_op";
static constexpr StringLiteral kHiddenProps = "mirage.hidden_props";

static bool isScalarElementwiseSeed(Operation *op) {
  if (!isa<arith::AddFOp, arith::MulFOp, arith::SubFOp, arith::MaximumFOp,
           arith::MinimumFOp, arith::DivFOp, arith::AddIOp, arith::MulIOp,
           arith::SubIOp, arith::DivSIOp, arith::DivUIOp, arith::NegFOp,
           arith::ExtFOp>(op))
    return false;
  auto isVec = [](Type t) { return isa<VectorType>(t); };
  return llvm::none_of(op->getOperandTypes(), isVec) &&
         llvm::none_of(op->getResultTypes(), isVec);
}

SmallVector<UnrealizedConversionCastOp>
mirage::detail::hideScalarMmaSeeds(func::FuncOp kernel) {
  SmallVector<Operation *> seeds;
  kernel.walk([&](Operation *op) {
    if (isScalarElementwiseSeed(op))
      seeds.push_back(op);
  });
  SmallVector<UnrealizedConversionCastOp> hidden;
  for (Operation *op : seeds) {
    OpBuilder b(op);
    auto cast = UnrealizedConversionCastOp::create(
        b, op->getLoc(), op->getResultTypes(), op->getOperands());
    cast->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    cast->setAttr(kHiddenName, b.getStringAttr(op->getName().getStringRef()));
    if (Attribute props = op->getPropertiesAsAttribute())
      cast->setAttr(kHiddenProps, props);
    op->replaceAllUsesWith(cast->getResults());
    op->erase();
    hidden.push_back(cast);
  }
  return hidden;
}

LogicalResult mirage::detail::restoreScalarMmaSeeds(
    ArrayRef<UnrealizedConversionCastOp> hidden) {
  for (UnrealizedConversionCastOp cast : hidden) {
    auto name = cast->getAttrOfType<StringAttr>(kHiddenName);
    OperationState state(cast.getLoc(), name.getValue());
    state.addOperands(cast.getOperands());
    state.addTypes(cast.getResultTypes());
    state.propertiesAttr = cast->getAttr(kHiddenProps);
    for (NamedAttribute a : cast->getDiscardableAttrs())
      if (a.getName() != kHiddenName && a.getName() != kHiddenProps)
        state.addAttribute(a.getName(), a.getValue());
    OpBuilder b(cast);
    Operation *op = b.create(state);
    if (!op)
      return cast.emitError("internal: could not restore ") << name;
    cast->replaceAllUsesWith(op->getResults());
    cast->erase();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// bf16 nvgpu.mma.sync -> nvvm.mma.sync
//===----------------------------------------------------------------------===//

// LLVM 22's NVGPUToNVVM rejects bf16 nvgpu.mma.sync ("failed to deduce
// operand PTX types") although the op verifies and PTX has the instruction
// (mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32). The operands of
// nvvm.mma.sync for b16 multiplicands are i32 registers holding two
// elements, in the same fragment order nvgpu uses for f16 (gpu-lowering.md
// 3.3). This rewrite runs before the LLVM conversion, so the glue is vector
// extract/from_elements plus llvm.bitcast/extractvalue, which the later
// conversions handle.
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

//===----------------------------------------------------------------------===//
// After the NVVM conversion
//===----------------------------------------------------------------------===//

void mirage::detail::externalizeDynamicSharedMemory(gpu::GPUModuleOp module) {
  // gpu.dynamic_shared_memory lowers to an *internal* zero-length .shared
  // global, which NVPTX prints as a 1-byte static variable
  // (`.shared .align 16 .b8 __dynamic_shmem__0;`, gpu-lowering.md 7.3), so
  // the kernel would address past a static symbol.
  module.walk([](LLVM::GlobalOp g) {
    auto arr = dyn_cast<LLVM::LLVMArrayType>(g.getGlobalType());
    if (arr && arr.getNumElements() == 0 &&
        g.getAddrSpace() ==
            static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared))
      g.setLinkage(LLVM::Linkage::External);
  });
}

void mirage::detail::alignVectorAccesses(
    gpu::GPUModuleOp module, const SmallPtrSetImpl<Operation *> &keep) {
  // Upstream gives a vector.load/store without `alignment` its element's,
  // and NVPTX then splits it into scalar accesses.
  MLIRContext *ctx = module.getContext();
  module.walk([&](Operation *op) {
    if (!isa<vector::LoadOp, vector::StoreOp>(op) || keep.contains(op))
      return;
    VectorType vt = isa<vector::LoadOp>(op)
                        ? cast<vector::LoadOp>(op).getVectorType()
                        : cast<vector::StoreOp>(op).getVectorType();
    int64_t bytes = vt.getNumElements() * vt.getElementTypeBitWidth() / 8;
    if (vt.getRank() == 1 && bytes >= 4 && llvm::isPowerOf2_64(bytes))
      op->setAttr("alignment", IntegerAttr::get(IntegerType::get(ctx, 64),
                                                std::min<int64_t>(bytes, 16)));
  });
}

LogicalResult mirage::detail::rejectKernelMallocs(gpu::GPUModuleOp module) {
  // A memref.alloc left in a kernel becomes a per-thread malloc without any
  // error from the conversion (gpu-lowering.md 2.2; memref.alloca,
  // per-thread local memory, is fine).
  WalkResult alloc = module.walk([](memref::AllocOp op) {
    op->emitError("memref.alloc inside a GPU kernel would become a "
                  "per-thread malloc; workgroup buffers must be placed by "
                  "mirage-workgroup-alloc-to-global");
    return WalkResult::interrupt();
  });
  return failure(alloc.wasInterrupted());
}

bool mirage::detail::swizzlePermutesRows(MemRefType t) {
  // Upstream xors bits [n, floor(log2(last dim))) of the last index; with a
  // last dim that is not a power of two the xor leaves the row
  // (upstream-swizzle-non-power-of-two.mlir). The shared-memory race check
  // (SharedRaces.cpp) found it: two threads storing to one address.
  if (t.getRank() < 2 || !t.hasStaticShape())
    return false;
  return llvm::isPowerOf2_64(static_cast<uint64_t>(t.getShape().back()));
}

namespace {
/// The memref operand and the indices of an access upstream's XOR swizzle
/// rewrites (nvgpu::optimizeSharedMemoryReadsAndWrites), or nullptr.
std::pair<OpOperand *, MutableOperandRange *>
swizzledAccess(Operation *op, std::optional<MutableOperandRange> &indices) {
  if (auto l = dyn_cast<memref::LoadOp>(op))
    return {&l.getMemrefMutable(), &indices.emplace(l.getIndicesMutable())};
  if (auto s = dyn_cast<memref::StoreOp>(op))
    return {&s.getMemrefMutable(), &indices.emplace(s.getIndicesMutable())};
  if (auto l = dyn_cast<vector::LoadOp>(op))
    return {&l.getBaseMutable(), &indices.emplace(l.getIndicesMutable())};
  if (auto s = dyn_cast<vector::StoreOp>(op))
    return {&s.getBaseMutable(), &indices.emplace(s.getIndicesMutable())};
  if (auto m = dyn_cast<nvgpu::LdMatrixOp>(op))
    return {&m.getSrcMemrefMutable(), &indices.emplace(m.getIndicesMutable())};
  if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
    return {&c.getDstMutable(), &indices.emplace(c.getDstIndicesMutable())};
  return {nullptr, nullptr};
}

/// The bits a vector access of `op` covers, 0 for a scalar one.
int64_t accessBits(Operation *op) {
  VectorType v;
  if (auto l = dyn_cast<vector::LoadOp>(op))
    v = l.getVectorType();
  else if (auto s = dyn_cast<vector::StoreOp>(op))
    v = s.getVectorType();
  return v ? v.getNumElements() * v.getElementTypeBitWidth() : 0;
}
} // namespace

void mirage::detail::foldWorkgroupCollapseViews(func::FuncOp kernel) {
  SmallVector<memref::CollapseShapeOp> views;
  kernel.walk([&](memref::CollapseShapeOp v) {
    if (v.getSrc().getDefiningOp<memref::AllocOp>() &&
        gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(v.getSrcType()))
      views.push_back(v);
  });
  for (memref::CollapseShapeOp view : views) {
    ArrayRef<int64_t> src = view.getSrcType().getShape();
    // Each collapsed dim comes from one source dim, the others of its group
    // being 1: its index goes there and the others get 0.
    SmallVector<int64_t> from;
    bool foldable = view.getSrcType().hasStaticShape();
    for (ReassociationIndices group : view.getReassociationIndices()) {
      int64_t dim = group.back(), nonUnit = 0;
      for (int64_t d : group)
        if (src[d] != 1) {
          dim = d;
          ++nonUnit;
        }
      foldable &= nonUnit <= 1;
      from.push_back(dim);
    }
    // A vector access runs along the last dim: it must stay the last.
    foldable &= from.back() == static_cast<int64_t>(src.size()) - 1;
    if (!foldable)
      continue;
    for (OpOperand &use : llvm::make_early_inc_range(view->getUses())) {
      Operation *op = use.getOwner();
      std::optional<MutableOperandRange> indices;
      auto [memref, idx] = swizzledAccess(op, indices);
      if (memref != &use)
        continue;
      OpBuilder b(op);
      Value zero = arith::ConstantIndexOp::create(b, op->getLoc(), 0);
      SmallVector<Value> next(src.size(), zero);
      for (auto [i, v] : llvm::enumerate(idx->getAsOperandRange()))
        next[from[i]] = v;
      memref->set(view.getSrc());
      idx->assign(next);
    }
    if (view->use_empty())
      view->erase();
  }
}

bool mirage::detail::swizzleSeesEveryAccess(memref::AllocOp a) {
  return llvm::all_of(a->getUses(), [](OpOperand &use) {
    Operation *op = use.getOwner();
    if (isa<memref::DeallocOp>(op))
      return true;
    std::optional<MutableOperandRange> indices;
    auto [memref, idx] = swizzledAccess(op, indices);
    // Upstream permutes 16-byte chunks from the index of each access: a
    // wider vector would keep its second chunk in place.
    return memref == &use && accessBits(op) <= 128;
  });
}

//===----------------------------------------------------------------------===//
// Transposed A fragments (TransposedDecodeMma.md)
//===----------------------------------------------------------------------===//

// Upstream's ldmatrix for a transposed A read addresses, from lane l, stored
// row l mod 16 (K) and column block l / 16 (M): the four 8x8 matrices come
// out as (M 0-7, K 0-7), (M 0-7, K 8-15), (M 8-15, K 0-7), (M 8-15, K 8-15),
// where mma.sync's A fragment wants the middle two the other way round.
// Swapping them is a register renaming.
void mirage::detail::reorderTransposedALdMatrix(func::FuncOp kernel) {
  SmallVector<nvgpu::LdMatrixOp> loads;
  kernel.walk([&](nvgpu::LdMatrixOp l) {
    auto t = cast<VectorType>(l.getRes().getType());
    // Only an A fragment of 16-bit elements is four 32-bit registers
    // (vector<4x2x...>); a transposed B is two.
    if (l.getTranspose() && l.getNumTiles() == 4 &&
        t.getShape() == ArrayRef<int64_t>{4, 2} &&
        t.getElementType().getIntOrFloatBitWidth() == 16)
      loads.push_back(l);
  });
  for (nvgpu::LdMatrixOp l : loads) {
    OpBuilder b(l->getContext());
    b.setInsertionPointAfter(l);
    Value v = l.getRes();
    auto shuffle = vector::ShuffleOp::create(b, l.getLoc(), v, v,
                                             ArrayRef<int64_t>{0, 2, 1, 3});
    v.replaceAllUsesExcept(shuffle.getResult(), shuffle);
  }
}
