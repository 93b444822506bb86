//===- KernelEmitter.cpp - One kernel function per block graph ------------===//
//
// The driver over the stages of BlockSchedule.h: tiles are allocated in
// workgroup memory, accumulators start before the for-loop, the loop body
// runs iterators, in-loop ops and accumulator combines in program order, and
// after the loop accumulators finish, after-loop ops run and savers write,
// again in program order — the order the evaluator runs.
//
//===----------------------------------------------------------------------===//
#include "BlockEmitter.h"
#include "KernelEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::loops;

static MemRefType memrefOf(MLIRContext *ctx, const Shape &shape, ElemType t,
                           Attribute space = {}) {
  return MemRefType::get(shape, toMLIRType(ctx, t), MemRefLayoutAttrInterface(),
                         space);
}

/// Emits a tensor operator (in-loop or after-loop) of the block.
static bool emitOperator(BlockEmitter &em, const UOp &op, int32_t into) {
  switch (op.kind) {
  case OpKind::Matmul:
    return em.emitMatmul(op, into);
  case OpKind::Unary:
  case OpKind::Binary:
  case OpKind::ThreadGraph:
    return em.emitElementwise(op);
  case OpKind::Reduce:
    return em.emitReduce(op);
  case OpKind::RmsNorm:
    return em.emitRmsNorm(op);
  case OpKind::Concat:
    return em.emitConcat(op);
  case OpKind::RunningMax:
    return em.emitRunningMax(op);
  case OpKind::Custom:
  case OpKind::InputIterator:
  case OpKind::Accum:
  case OpKind::OutputSaver:
    return em.fail(op, "not a block-level operator");
  }
  return false;
}

std::optional<func::FuncOp>
mirage::loops::emitKernel(OpBuilder &mb, Location loc, StringRef name,
                          const UGraph &block, const KernelPlan &plan,
                          std::string &error) {
  MLIRContext *ctx = mb.getContext();
  BlockSchedule sched = scheduleBlock(block);
  SmallVector<Type> args;
  for (int32_t in : block.inputs)
    args.push_back(memrefOf(ctx, block.values[in].shape, block.values[in].type));
  for (int32_t out : block.outputs)
    args.push_back(
        memrefOf(ctx, block.values[out].shape, block.values[out].type));
  auto fn = func::FuncOp::create(mb, loc, name, mb.getFunctionType(args, {}));
  fn->setAttr(kernel::kKernelAttr, mb.getUnitAttr());
  fn->setAttr(kernel::kGridAttr, mb.getDenseI64ArrayAttr(
                                 {block.grid[0], block.grid[1], block.grid[2]}));
  fn->setAttr(kernel::kBlockAttr,
              mb.getDenseI64ArrayAttr({plan.threads, 1, 1}));
  fn->setAttr(kMinBlocksPerSMAttr, mb.getI64IntegerAttr(plan.minBlocksPerSM));
  Block *entry = fn.addEntryBlock();
  OpBuilder fb = OpBuilder::atBlockEnd(entry);
  auto blockMap = fb.getArrayAttr(
      {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimY),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimZ)});
  auto grid = scf::ForallOp::create(
      fb, loc,
      ArrayRef<OpFoldResult>{fb.getIndexAttr(block.grid[0]),
                             fb.getIndexAttr(block.grid[1]),
                             fb.getIndexAttr(block.grid[2])},
      ValueRange{}, blockMap);
  func::ReturnOp::create(fb, loc);

  OpBuilder b = OpBuilder::atBlockTerminator(grid.getBody());
  BlockEmitter em(b, loc, block, sched, plan);
  for (int i = 0; i < 3; ++i)
    em.blockIds[i] = grid.getInductionVar(i);
  for (size_t i = 0; i < block.inputs.size(); ++i)
    em.mem[block.inputs[i]] = entry->getArgument(i);
  for (size_t i = 0; i < block.outputs.size(); ++i)
    em.mem[block.outputs[i]] = entry->getArgument(block.inputs.size() + i);

  // Tiles in workgroup memory, as the plan allocates them; a pipelined
  // tile's buffers are one allocation with a leading stage dimension.
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  llvm::DenseMap<int32_t, Value> stageBuffers;
  for (const TilePlan &t : plan.tiles) {
    Shape shape = t.shape;
    if (t.buffers > 1)
      shape.insert(shape.begin(), t.buffers);
    Value a = memref::AllocOp::create(b, loc, memrefOf(ctx, shape, t.storage, wg));
    if (t.scratchFor >= 0)
      em.scratch[t.scratchFor] = a;
    else if (t.buffers > 1)
      stageBuffers[t.value] = a;
    else
      em.mem[t.value] = a;
  }
  // How each input iterator is copied is the plan's (CopyPlan).
  auto copyOf = [&](size_t i) { return plan.copyOf(static_cast<int32_t>(i)); };
  auto prefetched = [&](size_t i) {
    const CopyPlan *c = copyOf(i);
    return c && c->prefetched;
  };
  auto once = [&](size_t i) {
    const CopyPlan *c = copyOf(i);
    return c && !c->inLoop;
  };

  llvm::SmallVector<bool> fusedAccum(block.ops.size(), false);
  for (int32_t into : sched.matmulInto)
    if (into >= 0)
      fusedAccum[into] = true;

  bool ok = true;
  for (size_t i = 0; i < block.ops.size() && ok; ++i)
    if (block.ops[i].kind == OpKind::Accum)
      ok = em.emitAccumStart(block.ops[i]);

  // Tiles fetched once (loop-invariant, or no loop) are fetched before the
  // loop, one group for all of them (a single round trip).
  for (size_t i = 0; i < block.ops.size() && ok; ++i)
    if (once(i))
      ok = em.emitGroupedIterator(block.ops[i], 1, 0);

  // Pipelined copies (the plan's stages > 1): iteration j's tiles go to
  // buffer j mod S. Before the loop, iterations 0 .. S-2 are copied (one
  // group each); iteration i copies iteration min(i + S - 1, R - 1) and
  // then computes on buffer i mod S. The clamp re-copies the last tile in
  // the final S - 1 iterations, into a buffer no later iteration reads, so
  // that every iteration commits exactly one group (the GPU stage waits
  // with wait_group S - 1; docs/Rationale/LaunchPlan.md).
  const int64_t stages = plan.stages, range = block.forloopRange;
  auto prefetch = [&](Value iteration, Value slot, int64_t group) {
    for (size_t i = 0; i < block.ops.size() && ok; ++i) {
      if (!prefetched(i))
        continue;
      int32_t tile = block.ops[i].results[0];
      em.mem[tile] = em.stageView(b, stageBuffers.lookup(tile), slot);
      Value saved = em.iter;
      em.iter = iteration;
      ok = em.emitGroupedIterator(block.ops[i], stages, group);
      em.iter = saved;
    }
  };
  if (ok && stages > 1)
    for (int64_t s = 0; s + 1 < stages; ++s)
      prefetch(em.index(b, std::min(s, range - 1)), em.index(b, s), s);

  // The for-loop (a single iteration needs no loop).
  std::optional<OpBuilder::InsertionGuard> guard;
  if (ok && block.forloopRange > 1) {
    auto loop = scf::ForOp::create(b, loc, em.index(b, 0),
                                   em.index(b, block.forloopRange),
                                   em.index(b, 1));
    guard.emplace(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    em.iter = loop.getInductionVar();
  }
  if (ok && stages > 1) {
    AffineExpr i = getAffineDimExpr(0, ctx);
    Value next = affine::AffineMinOp::create(
        b, loc, AffineMap::get(1, 0, {i + (stages - 1), getAffineConstantExpr(range - 1, ctx)}, ctx),
        ValueRange{em.iter});
    prefetch(next, em.apply(b, (i + (stages - 1)) % stages, em.iter), stages - 1);
    Value slot = em.apply(b, i % stages, em.iter);
    for (auto [tile, buffer] : stageBuffers)
      em.mem[tile] = em.stageView(b, buffer, slot);
  }
  for (size_t i = 0; i < block.ops.size() && ok; ++i) {
    const UOp &op = block.ops[i];
    switch (sched.stage[i]) {
    case BlockStage::Iterator:
      // Unpipelined loop copies: one group per iteration.
      if (!once(i) && !prefetched(i))
        ok = em.emitGroupedIterator(op, 1, 0);
      break;
    case BlockStage::InLoop:
      ok = emitOperator(em, op, sched.matmulInto[i]);
      break;
    case BlockStage::Accumulate:
      ok = fusedAccum[i] || em.emitAccumCombine(op);
      break;
    case BlockStage::AfterLoop:
    case BlockStage::Save:
      break;
    }
  }
  guard.reset();
  em.iter = Value();
  for (size_t i = 0; i < block.ops.size() && ok; ++i) {
    const UOp &op = block.ops[i];
    switch (sched.stage[i]) {
    case BlockStage::Accumulate:
      ok = em.emitAccumFinish(op);
      break;
    case BlockStage::AfterLoop:
      ok = emitOperator(em, op, -1);
      break;
    case BlockStage::Save:
      ok = em.emitSaver(op);
      break;
    case BlockStage::Iterator:
    case BlockStage::InLoop:
      break;
    }
  }
  if (!ok) {
    error = em.error;
    fn.erase();
    return std::nullopt;
  }
  return fn;
}
