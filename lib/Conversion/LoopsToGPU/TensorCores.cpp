//===- TensorCores.cpp - Stage 2: vector.contract to mma.sync -------------===//
//
// Warp contractions of the loop IR are native m16n8k16 tiles (A (m,k), B read
// transposed as (n,k), f32 accumulator). Upstream convert-vector-to-gpu
// (nvgpu mode) turns them into nvgpu.ldmatrix + nvgpu.mma.sync for f16 but
// (gpu-lowering.md 3.2) silently leaves a contract alone when it does not
// understand its surroundings, and fails on bf16 (no bf16 fragment type in
// MMAUtils). So:
//   * every f16/bf16 contract is checked for the native form first, with a
//     clear error otherwise;
//   * bf16 operands are read through an f16 view of the same bits
//     (unrealized cast) so the upstream conversion builds the ldmatrix
//     fragments; afterwards the loads go back to the bf16 buffer and the
//     mma.syncs fed by them become bf16 nvgpu.mma.sync, lowered by
//     UpstreamWorkarounds.cpp (ldmatrix moves b16 bits, so the view is
//     exact);
//   * after the conversion no f16/bf16 contract may survive (checked);
//   * short K loops of contracts are unrolled first, so that ptxas sees a
//     step's ldmatrix beside the previous step's mma.sync (MmaChains.md,
//     "A warp's fragments in one K loop").
// f32 contracts become tf32 mma.sync only when asked (lower precision).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include "Simplify.h"
#include "UpstreamWorkarounds.h"

#define DEBUG_TYPE "mirage-loops-to-gpu"

using namespace mlir;

namespace {
/// Most steps of a loop of warp contractions that stage 2 unrolls: a loop
/// of a GEMM tile's K (128 columns: 8 steps) or of a split chain's range
/// (MmaChains.md: at least 4 steps). Longer loops stay loops (the code
/// would grow past what scheduling across steps gains).
constexpr int64_t kMaxUnrolledMmaSteps = 8;

/// Whether `loop` is a K loop of warp contractions: straight-line reads
/// and arithmetic, nothing written, no barrier. The block's for-loop may
/// also directly hold contracts (a K of one step folds its loop away), and
/// it must stay a loop: the pipeline of stage 3 is built on it.
bool isMmaStepLoop(scf::ForOp loop) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0 || isa<gpu::BarrierOp>(op))
      return false;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || effects.hasEffect<MemoryEffects::Write>())
      return false;
  }
  return true;
}

/// Unrolls the K loops of warp contractions (isMmaStepLoop) that run at
/// most kMaxUnrolledMmaSteps times. Rolled, each step's first mma.sync
/// waits on its own ldmatrix; unrolled, ptxas issues the next step's
/// ldmatrix while the previous step's independent chains are in flight.
void unrollShortMmaLoops(func::FuncOp kernel) {
  SmallVector<scf::ForOp> loops;
  kernel.walk([&](vector::ContractionOp c) {
    auto loop = dyn_cast<scf::ForOp>(c->getParentOp());
    if (!loop || llvm::is_contained(loops, loop) || !isMmaStepLoop(loop))
      return;
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (trips && trips->getSExtValue() <= kMaxUnrolledMmaSteps)
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops)
    if (failed(loopUnrollFull(loop)))
      LLVM_DEBUG(llvm::dbgs()
                 << "[loops-to-gpu] could not unroll " << loop << "\n");
}

/// Element type classes with a tensor-core path. Switches over it list every
/// value so that adding one is a compile error where it needs handling.
enum class MmaKind { F16, BF16, TF32, None };

MmaKind classify(vector::ContractionOp c) {
  Type a = getElementTypeOrSelf(c.getLhsType());
  if (a.isF16())
    return MmaKind::F16;
  if (a.isBF16())
    return MmaKind::BF16;
  if (a.isF32())
    return MmaKind::TF32;
  return MmaKind::None;
}

/// Checks the native warp-MMA form; returns an explanation when it is not.
std::optional<std::string> whyNotNative(vector::ContractionOp c, MmaKind kind) {
  MLIRContext *ctx = c.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  using MapList = ArrayRef<ArrayRef<AffineExpr>>;
  auto maps = AffineMap::inferFromExprList(MapList{{m, k}, {n, k}, {m, n}}, ctx);
  if (c.getIndexingMapsArray() != ArrayRef<AffineMap>(maps))
    return std::string("indexing maps must be (m,k), (n,k) -> (m,n): A "
                       "row-major, B read transposed");
  if (c.getKind() != vector::CombiningKind::ADD)
    return std::string("combining kind must be add");
  auto acc = dyn_cast<VectorType>(c.getAccType());
  if (!acc || !acc.getElementType().isF32())
    return std::string("the accumulator must be a vector of f32");
  auto lhs = c.getLhsType(), rhs = c.getRhsType();
  int64_t nativeK = 16;
  switch (kind) {
  case MmaKind::F16:
  case MmaKind::BF16:
    nativeK = 16;
    break;
  case MmaKind::TF32:
    nativeK = 8;
    break;
  case MmaKind::None:
    return std::string("no tensor-core path for this element type");
  }
  if (lhs.getShape() != ArrayRef<int64_t>{16, nativeK} ||
      rhs.getShape() != ArrayRef<int64_t>{8, nativeK} ||
      acc.getShape() != ArrayRef<int64_t>{16, 8})
    return "shape must be the native m16n8k" + std::to_string(nativeK) +
           " tile (A 16x" + std::to_string(nativeK) + ", B 8x" +
           std::to_string(nativeK) + ", C 16x8)";
  return std::nullopt;
}

std::string shapeString(vector::ContractionOp c) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << c.getLhsType() << " x " << c.getRhsType() << " -> " << c.getAccType();
  return s;
}

/// bf16 operands: read the same bits as f16 (see file comment). Returns the
/// unrealized casts created, so that their users can be moved back.
FailureOr<SmallVector<UnrealizedConversionCastOp>>
retypeBF16Operands(ArrayRef<vector::ContractionOp> contracts) {
  SmallVector<UnrealizedConversionCastOp> casts;
  DenseMap<Operation *, Value> f16Read; // old bf16 read -> f16 read
  // One view per bf16 buffer: several contracts read one buffer (the K
  // chains of MmaChains.md), and identical casts would be merged by CSE,
  // leaving restoreBF16 a cast that no longer exists.
  DenseMap<Value, Value> f16View;
  for (vector::ContractionOp c : contracts) {
    IRRewriter rewriter(c);
    SmallVector<Value> operands(c->getOperands());
    for (unsigned i = 0; i < 2; ++i) {
      auto read = operands[i].getDefiningOp<vector::TransferReadOp>();
      if (!read || !isa<MemRefType>(read.getBase().getType()))
        return c.emitError("bf16 vector.contract operand #")
               << i << " must be a vector.transfer_read of a memref "
               << "(the warp-phase form), got "
               << (operands[i].getDefiningOp()
                       ? operands[i].getDefiningOp()->getName().getStringRef()
                       : StringRef("a block argument"));
      auto it = f16Read.find(read);
      if (it == f16Read.end()) {
        Type f16 = rewriter.getF16Type();
        Value base = read.getBase();
        auto view = f16View.find(base);
        if (view == f16View.end()) {
          // Right after the buffer is defined, where every read sees it.
          if (Operation *def = base.getDefiningOp())
            rewriter.setInsertionPointAfter(def);
          else
            rewriter.setInsertionPointToStart(
                cast<BlockArgument>(base).getOwner());
          auto srcTy = cast<MemRefType>(base.getType());
          auto viewTy = MemRefType::get(
              srcTy.getShape(), f16, srcTy.getLayout(), srcTy.getMemorySpace());
          auto castOp = UnrealizedConversionCastOp::create(
              rewriter, read.getLoc(), TypeRange{viewTy}, ValueRange{base});
          casts.push_back(castOp);
          view = f16View.try_emplace(base, castOp.getResult(0)).first;
        }
        rewriter.setInsertionPoint(read);
        Value pad = arith::ConstantOp::create(rewriter, read.getLoc(),
                                              rewriter.getZeroAttr(f16));
        auto vecTy = VectorType::get(read.getVectorType().getShape(), f16);
        auto newRead = vector::TransferReadOp::create(
            rewriter, read.getLoc(), vecTy, view->second, read.getIndices(),
            read.getPermutationMapAttr(), pad, read.getMask(),
            read.getInBoundsAttr());
        it = f16Read.try_emplace(read, newRead.getResult()).first;
      }
      operands[i] = it->second;
    }
    rewriter.setInsertionPoint(c);
    auto newC = vector::ContractionOp::create(
        rewriter, c.getLoc(), operands[0], operands[1], operands[2],
        c.getIndexingMaps(), c.getIteratorTypes(), c.getKind());
    rewriter.replaceOp(c, newC.getResult());
  }
  for (auto [oldRead, unused] : f16Read)
    if (oldRead->use_empty())
      oldRead->erase();
  return casts;
}

/// Element type of `t` (or of its elements) replaced f16 -> bf16.
Type toBF16(Type t) {
  Builder b(t.getContext());
  if (auto v = dyn_cast<VectorType>(t))
    return v.getElementType().isF16() ? v.clone(b.getBF16Type()) : t;
  return t.isF16() ? b.getBF16Type() : t;
}

Value bitcastTo(OpBuilder &b, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  if (isa<VectorType>(t))
    return vector::BitCastOp::create(b, loc, t, v);
  return arith::BitcastOp::create(b, loc, t, v);
}

/// Moves every load through an f16 view back to the bf16 buffer (loading
/// bf16 and bitcasting to the f16 the users expect), erases the views, and
/// turns the nvgpu.mma.syncs whose A operand comes from such loads into bf16
/// mma.syncs.
LogicalResult restoreBF16(func::FuncOp kernel,
                          ArrayRef<UnrealizedConversionCastOp> casts) {
  llvm::SmallPtrSet<Operation *, 16> bf16Loads;
  for (UnrealizedConversionCastOp cast : casts) {
    Value bf16Buf = cast.getOperand(0), view = cast.getResult(0);
    for (OpOperand &use : llvm::make_early_inc_range(view.getUses())) {
      Operation *user = use.getOwner();
      if (!isa<nvgpu::LdMatrixOp, vector::LoadOp, memref::LoadOp,
               vector::TransferReadOp>(user))
        return user->emitError("internal: unexpected use of a bf16 "
                               "operand view: ")
               << user->getName();
      OpBuilder b(user);
      IRMapping map;
      map.map(view, bf16Buf);
      Operation *clone = b.clone(*user, map);
      for (OpResult r : clone->getResults())
        r.setType(toBF16(r.getType()));
      // A transfer_read's padding value must have the element type.
      if (auto tr = dyn_cast<vector::TransferReadOp>(clone)) {
        Value pad = arith::ConstantOp::create(
            b, tr.getLoc(), b.getZeroAttr(b.getBF16Type()));
        tr.getPaddingMutable().assign(pad);
      }
      SmallVector<Value> back;
      for (auto [oldR, newR] :
           llvm::zip(user->getResults(), clone->getResults())) {
        Value c = bitcastTo(b, user->getLoc(), newR, oldR.getType());
        if (c != newR)
          bf16Loads.insert(c.getDefiningOp());
        back.push_back(c);
      }
      user->replaceAllUsesWith(back);
      user->erase();
    }
    cast->erase();
  }

  // Does `v` derive (through register shuffles) from a bf16 load?
  auto fromBF16 = [&](Value v) {
    SmallVector<Value> work{v};
    llvm::SmallPtrSet<Operation *, 32> seen;
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || !seen.insert(def).second)
        continue;
      if (bf16Loads.contains(def))
        return true;
      llvm::append_range(work, def->getOperands());
    }
    return false;
  };
  SmallVector<nvgpu::MmaSyncOp> mmas;
  kernel.walk([&](nvgpu::MmaSyncOp m) { mmas.push_back(m); });
  for (nvgpu::MmaSyncOp m : mmas) {
    bool a = fromBF16(m.getMatrixA()), b = fromBF16(m.getMatrixB());
    if (a != b)
      return m.emitError("mixed f16/bf16 multiplicands are not supported");
    if (!a)
      continue;
    OpBuilder builder(m);
    Value newA = bitcastTo(builder, m.getLoc(), m.getMatrixA(),
                           toBF16(m.getMatrixA().getType()));
    Value newB = bitcastTo(builder, m.getLoc(), m.getMatrixB(),
                           toBF16(m.getMatrixB().getType()));
    m.getMatrixAMutable().assign(newA);
    m.getMatrixBMutable().assign(newB);
  }
  return success();
}
} // namespace

/// Without `contract`, arith.mulf + arith.addf lower to mul.rn + add.rn and
/// ptxas may not fuse them (gpu-lowering.md 2.2); nvcc fuses by default
/// (-fmad=true), and so do we, for the f32 thread-phase loops.
static void allowFMAContraction(func::FuncOp kernel) {
  kernel.walk([](Operation *op) {
    if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op))
      return;
    auto fm = cast<arith::ArithFastMathInterface>(op);
    arith::FastMathFlags flags = fm.getFastMathFlagsAttr().getValue();
    op->setAttr(fm.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(
                    op->getContext(), flags | arith::FastMathFlags::contract));
  });
}

LogicalResult mirage::convertContractsToTensorCores(func::FuncOp kernel,
                                                    bool tf32,
                                                    bool fmaContraction) {
  // Before the contracts are collected: unrolling clones them.
  unrollShortMmaLoops(kernel);
  SmallVector<vector::ContractionOp> contracts, bf16;
  kernel.walk([&](vector::ContractionOp c) { contracts.push_back(c); });
  bool failed = false;
  for (vector::ContractionOp c : contracts) {
    MmaKind kind = classify(c);
    bool wantTensorCores = false;
    switch (kind) {
    case MmaKind::F16:
    case MmaKind::BF16:
      wantTensorCores = true;
      break;
    case MmaKind::TF32:
      wantTensorCores = tf32;
      break;
    case MmaKind::None:
      break;
    }
    if (!wantTensorCores) {
      // f32 warp contractions have no FMA lowering here yet; the loop IR
      // does not emit them (f32 graphs use thread-phase FMA loops).
      c.emitError("vector.contract ")
          << shapeString(c)
          << " cannot be lowered: only f16/bf16 (and f32 with tf32=true) "
             "warp contractions map to tensor cores";
      failed = true;
      continue;
    }
    if (auto why = whyNotNative(c, kind)) {
      c.emitError("vector.contract ")
          << shapeString(c) << " cannot map to tensor cores (mma.sync): "
          << *why;
      failed = true;
      continue;
    }
    if (kind == MmaKind::BF16)
      bf16.push_back(c);
  }
  if (failed)
    return failure();

  SmallVector<UnrealizedConversionCastOp> casts;
  if (!bf16.empty()) {
    auto c = retypeBF16Operands(bf16);
    if (mlir::failed(c))
      return failure();
    casts = std::move(*c);
  }

  MLIRContext *ctx = kernel.getContext();
  RewritePatternSet prepare(ctx);
  populatePrepareVectorToMMAPatterns(prepare, /*useNvGpu=*/true);
  if (mlir::failed(applyPatternsGreedily(kernel, std::move(prepare))))
    return kernel.emitError("preparing contractions for mma.sync failed");
  SmallVector<UnrealizedConversionCastOp> hidden = mirage::detail::hideScalarMmaSeeds(kernel);
  IRRewriter rewriter(ctx);
  LogicalResult converted =
      convertVectorToNVVMCompatibleMMASync(rewriter, kernel);
  if (mlir::failed(mirage::detail::restoreScalarMmaSeeds(hidden)))
    return failure();
  if (mlir::failed(converted))
    return kernel.emitError("vector.contract -> nvgpu.mma.sync failed");

  // The conversion leaves the replaced chains dead (contracts included);
  // drop them before looking for contracts it skipped.
  detail::simplify(kernel);
  // The silent-skip trap: a chain the upstream conversion did not understand
  // keeps its vector.contract (it would become scalar code, no tensor cores).
  WalkResult left = kernel.walk([&](vector::ContractionOp c) {
    c.emitError("vector.contract ")
        << shapeString(c)
        << " was not converted to mma.sync; its accumulator chain contains "
           "an op the vector-to-nvgpu conversion does not handle (index math "
           "must be affine.apply, accumulators must end in a "
           "vector.transfer_write of f32)";
    return WalkResult::interrupt();
  });
  if (left.wasInterrupted())
    return failure();

  if (!casts.empty() && mlir::failed(restoreBF16(kernel, casts)))
    return failure();

  // tf32: the nvgpu lowering needs the attribute to accept f32 operands.
  if (tf32)
    kernel.walk([&](nvgpu::MmaSyncOp m) {
      if (getElementTypeOrSelf(m.getMatrixA().getType()).isF32())
        m.setTf32EnabledAttr(UnitAttr::get(ctx));
    });

  // After the bf16 loads are back on their buffers: a register shuffle
  // between an f16 view's bitcasts would keep them from cancelling.
  mirage::detail::reorderTransposedALdMatrix(kernel);

  RewritePatternSet bf16Lowering(ctx);
  populateBF16MmaSyncToNVVMPatterns(bf16Lowering);
  if (mlir::failed(applyPatternsGreedily(kernel, std::move(bf16Lowering))))
    return kernel.emitError("lowering bf16 mma.sync failed");
  detail::simplify(kernel);
  if (fmaContraction)
    allowFMAContraction(kernel);
  LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] " << contracts.size()
                          << " contractions on tensor cores ("
                          << bf16.size() << " bf16) in " << kernel.getName()
                          << "\n");
  return success();
}
