//===- KernelEmitter.cpp - One kernel function per block graph ------------===//
//
// The driver over the stages of BlockSchedule.h: tiles are allocated in
// workgroup memory, accumulators start before the for-loop, loop-invariant
// tiles are loaded and the operators over them run before it, the loop body
// runs iterators, in-loop ops and accumulator combines in program order, and
// after the loop accumulators finish, after-loop ops run and savers write,
// again in program order — the order the evaluator runs.
//
//===----------------------------------------------------------------------===//
#include "BlockEmitter.h"
#include "KernelEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

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

/// Emits one block of `block` at `b`'s insertion point (inside the grid
/// forall, or in a tail): its tiles, its loop and its phases, as `plan`
/// says, with block ids `ids` and device tensors `inputs` and `outputs`.
static bool emitBlockBody(OpBuilder &b, Location loc, const UGraph &block,
                          const KernelPlan &plan,
                          const std::array<Value, 3> &ids,
                          ArrayRef<Value> inputs, ArrayRef<Value> outputs,
                          std::string &error) {
  MLIRContext *ctx = b.getContext();
  BlockSchedule sched = scheduleBlock(block);
  BlockEmitter em(b, loc, block, sched, plan);
  em.blockIds = ids;
  for (size_t i = 0; i < block.inputs.size(); ++i)
    em.bind(b, block.inputs[i], inputs[i]);
  for (size_t i = 0; i < block.outputs.size(); ++i)
    em.mem[block.outputs[i]] = outputs[i];

  // Tiles in workgroup memory, as the plan allocates them; a pipelined
  // tile's buffers are one allocation with a leading stage dimension.
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  // Padded rows (TilePlan::pitch) are allocated, and the phases see the
  // logical tile through a view.
  llvm::DenseMap<int32_t, Value> stageBuffers;
  llvm::DenseMap<int32_t, int64_t> tileCols;
  for (const TilePlan &t : plan.tiles) {
    Shape shape = t.shape;
    shape.back() = t.pitch;
    if (t.buffers > 1)
      shape.insert(shape.begin(), t.buffers);
    Value a = memref::AllocOp::create(b, loc, memrefOf(ctx, shape, t.storage, wg));
    if (t.pitch != t.shape.back() && t.buffers == 1) {
      SmallVector<OpFoldResult> zeros(t.shape.size(), b.getIndexAttr(0));
      SmallVector<OpFoldResult> ones(t.shape.size(), b.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes;
      for (int64_t d : t.shape)
        sizes.push_back(b.getIndexAttr(d));
      a = memref::SubViewOp::create(b, loc, a, zeros, sizes, ones);
    }
    if (t.scratchFor >= 0)
      em.scratch[t.scratchFor] = a;
    else if (t.buffers > 1)
      stageBuffers[t.value] = a;
    else
      em.bind(b, t.value, a);
    if (t.value >= 0)
      tileCols[t.value] = t.shape.back();
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
  // loop, one group for all of them (a single round trip); with a pipeline
  // they join its first group, so that they arrive with iteration 0's.
  const int64_t stages = plan.stages, range = block.forloopRange;
  for (size_t i = 0; i < block.ops.size() && ok; ++i)
    if (once(i))
      ok = em.emitGroupedIterator(block.ops[i], stages, 0);
  // Operators over those tiles alone (the schedule's beforeLoop,
  // LoopInvariantOps.md) run after the pipeline's prologue is issued. They
  // read the first group's tiles: the prologue's last group waits for all
  // but itself and the ones between (S - 2 pending) before they run.
  auto operatorBeforeLoop = [&](size_t i) {
    return sched.beforeLoop[i] && sched.stage[i] == BlockStage::InLoop;
  };
  bool hoisted = false;
  for (size_t i = 0; i < block.ops.size(); ++i)
    hoisted |= operatorBeforeLoop(i);

  // Pipelined copies (the plan's stages > 1): iteration j's tiles go to
  // buffer j mod S. Before the loop, iterations 0 .. S-2 are copied (one
  // group each); iteration i copies iteration min(i + S - 1, R - 1) and
  // then computes on buffer i mod S. The clamp re-copies the last tile in
  // the final S - 1 iterations, into a buffer no later iteration reads, so
  // that every iteration commits exactly one group (the GPU stage waits
  // with wait_group S - 1; docs/Rationale/LaunchPlan.md).
  auto prefetch = [&](Value iteration, Value slot, int64_t group,
                      std::optional<int64_t> wait = std::nullopt) {
    for (size_t i = 0; i < block.ops.size() && ok; ++i) {
      if (!prefetched(i))
        continue;
      int32_t tile = block.ops[i].results[0];
      em.bind(b, tile,
              em.stageView(b, stageBuffers.lookup(tile), slot,
                           tileCols.lookup(tile)));
      Value saved = em.iter;
      em.iter = iteration;
      ok = em.emitGroupedIterator(block.ops[i], stages, group, wait);
      em.iter = saved;
    }
  };
  if (ok && stages > 1)
    for (int64_t s = 0; s + 1 < stages; ++s)
      prefetch(em.index(b, std::min(s, range - 1)), em.index(b, s), s,
               hoisted && s + 2 == stages ? std::optional<int64_t>(s)
                                          : std::nullopt);
  for (size_t i = 0; i < block.ops.size() && ok; ++i)
    if (operatorBeforeLoop(i))
      ok = emitOperator(em, block.ops[i], -1);

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
      em.bind(b, tile, em.stageView(b, buffer, slot, tileCols.lookup(tile)));
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
      if (!sched.beforeLoop[i])
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
  if (!ok)
    error = em.error;
  return ok;
}

/// The tail (TailCombine.md): thread 0 counts this block into its group
/// and tells the others, through a shared word, whether it was the last;
/// the last block resets the count and runs the group's consumer block.
static bool emitTail(OpBuilder &b, Location loc, const UGraph &producer,
                     const KernelPlan &producerPlan, const TailSpec &tail,
                     const std::array<Value, 3> &ids, Value counters,
                     ArrayRef<Value> inputs, ArrayRef<Value> outputs,
                     std::string &error) {
  MLIRContext *ctx = b.getContext();
  const TailCombine &t = *tail.combine;
  BlockSchedule sched = scheduleBlock(producer);
  BlockEmitter em(b, loc, producer, sched, producerPlan);
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value flag = memref::AllocOp::create(
      b, loc, MemRefType::get({1}, b.getI32Type(), MemRefLayoutAttrInterface(), wg));
  // The group: the tied axes' coordinates by their strides (groupOf).
  std::array<int64_t, 3> strides = t.groupStrides(producer.grid);
  AffineExpr group = getAffineDimExpr(0, ctx) * strides[0] +
                     getAffineDimExpr(1, ctx) * strides[1] +
                     getAffineDimExpr(2, ctx) * strides[2];
  Value groupId = em.apply(b, group, ValueRange{ids[0], ids[1], ids[2]});
  em.threadPhase(1, [&](OpBuilder &ob, Value) {
    Value one = arith::ConstantIntOp::create(ob, loc, 1, 32);
    // Release, count, acquire, at device scope (`fence.acq_rel.gpu` on
    // NVPTX, whose atom is relaxed): this block's stores, ordered before
    // the release by the barrier that ends the savers' phase, are visible
    // to the block that counts the group full, and the other blocks'
    // stores to it (TailCombine.md, "Ordering").
    LLVM::FenceOp::create(ob, loc, LLVM::AtomicOrdering::release, "device");
    Value before = memref::AtomicRMWOp::create(
        ob, loc, arith::AtomicRMWKind::addi, one, counters,
        ValueRange{groupId});
    LLVM::FenceOp::create(ob, loc, LLVM::AtomicOrdering::acquire, "device");
    Value lastCount = arith::ConstantIntOp::create(
        ob, loc, t.producerBlocksPerGroup - 1, 32);
    Value last = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq,
                                       before, lastCount);
    auto reset = scf::IfOp::create(ob, loc, last, /*withElse=*/false);
    OpBuilder rb = OpBuilder::atBlockTerminator(reset.thenBlock());
    memref::StoreOp::create(rb, loc,
                            arith::ConstantIntOp::create(rb, loc, 0, 32),
                            counters, ValueRange{groupId});
    memref::StoreOp::create(
        ob, loc, arith::ExtUIOp::create(ob, loc, ob.getI32Type(), last),
        flag, ValueRange{em.index(ob, 0)});
  });
  Value word = memref::LoadOp::create(b, loc, flag, ValueRange{em.index(b, 0)});
  Value isLast = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, word,
      arith::ConstantIntOp::create(b, loc, 0, 32));
  auto ifLast = scf::IfOp::create(b, loc, isLast, /*withElse=*/false);
  OpBuilder ib = OpBuilder::atBlockTerminator(ifLast.thenBlock());
  // The group's consumer block: the tied axes from this block, the others
  // (extent 1) 0 (consumerBlock).
  std::array<Value, 3> cids;
  for (int a = 0; a < 3; ++a)
    if (!t.consumerAxisTied(a))
      cids[a] = em.index(ib, 0);
  for (int a = 0; a < 3; ++a)
    if (t.tiedTo[a] >= 0)
      cids[t.tiedTo[a]] = ids[a];
  return emitBlockBody(ib, loc, *tail.block, *tail.plan, cids, inputs,
                       outputs, error);
}

std::optional<func::FuncOp>
mirage::loops::emitKernel(OpBuilder &mb, Location loc, StringRef name,
                          const UGraph &block, const KernelPlan &plan,
                          std::string &error, const TailSpec *tail) {
  MLIRContext *ctx = mb.getContext();
  SmallVector<Type> args;
  // Inputs as they lie (a transposed one's view is made inside).
  for (int32_t in : block.inputs)
    args.push_back(
        memrefOf(ctx, storedShape(block, in), block.values[in].type));
  for (int32_t out : block.outputs)
    args.push_back(
        memrefOf(ctx, block.values[out].shape, block.values[out].type));
  // A tail's consumer: its inputs the producer does not write, its
  // outputs, then the groups' counters.
  if (tail) {
    const UGraph &cb = *tail->block;
    for (size_t i = 0; i < cb.inputs.size(); ++i)
      if (tail->inputFromProducer[i] < 0)
        args.push_back(memrefOf(ctx, storedShape(cb, cb.inputs[i]),
                                cb.values[cb.inputs[i]].type));
    for (int32_t out : cb.outputs)
      args.push_back(memrefOf(ctx, cb.values[out].shape, cb.values[out].type));
    args.push_back(MemRefType::get({tail->combine->groups}, mb.getI32Type()));
  }
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
  std::array<Value, 3> ids{grid.getInductionVar(0), grid.getInductionVar(1),
                           grid.getInductionVar(2)};
  auto arg = [&](size_t i) -> Value { return entry->getArgument(i); };
  SmallVector<Value> ins, outs;
  size_t next = 0;
  for (size_t i = 0; i < block.inputs.size(); ++i)
    ins.push_back(arg(next++));
  for (size_t i = 0; i < block.outputs.size(); ++i)
    outs.push_back(arg(next++));
  bool ok = emitBlockBody(b, loc, block, plan, ids, ins, outs, error);
  if (ok && tail) {
    const UGraph &cb = *tail->block;
    SmallVector<Value> cins, couts;
    for (size_t i = 0; i < cb.inputs.size(); ++i)
      cins.push_back(tail->inputFromProducer[i] >= 0
                         ? outs[tail->inputFromProducer[i]]
                         : arg(next++));
    for (size_t i = 0; i < cb.outputs.size(); ++i)
      couts.push_back(arg(next++));
    Value counters = arg(next++);
    ok = emitTail(b, loc, block, plan, *tail, ids, counters, cins, couts,
                  error);
  }
  if (!ok) {
    fn.erase();
    return std::nullopt;
  }
  return fn;
}
