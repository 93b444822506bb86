//===- SharedRaces.cpp - No shared byte is raced between barriers ---------===//
//
// docs/Rationale/SharedMemoryRaces.md. The kernel's index arithmetic runs
// once per thread of the block, concretely; every access to workgroup
// memory is recorded with its byte range and the barrier interval it falls
// in (cp.async destinations: every interval from issue to the wait that
// retires them). Two threads touching a byte in one interval, one of them
// writing, is a race.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Semantics/KernelPlan.h"
#include "SharedTiles.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace {

/// A memref as the check sees it: a root buffer, a byte offset into it and
/// byte strides per dim.
struct View {
  int root = -1; // -1: not workgroup memory (not checked)
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 4> strides;
  int64_t elemBytes = 1;
};

/// A value of the run: unknown (data), an integer, or a view.
struct Val {
  enum Kind { Unknown, Int, Mem } kind = Unknown;
  int64_t i = 0;
  View view;
  static Val integer(int64_t v) {
    Val r;
    r.kind = Int;
    r.i = v;
    return r;
  }
  static Val mem(View v) {
    Val r;
    r.kind = Mem;
    r.view = std::move(v);
    return r;
  }
};

/// One access to workgroup memory: bytes [lo, hi) of a root, by a thread,
/// in barrier intervals [first, last].
struct Access {
  int thread;
  int root;
  int64_t lo, hi;
  int64_t first, last;
  bool write;
  Operation *op;
};

/// Why a kernel could not be checked (an address from data, an op the run
/// does not know); empty when it could.
struct Unchecked {
  Operation *op = nullptr;
  std::string why;
};

/// Row-major byte strides of a static shape.
llvm::SmallVector<int64_t, 4> rowMajor(ArrayRef<int64_t> shape,
                                       int64_t elemBytes) {
  llvm::SmallVector<int64_t, 4> s(shape.size(), elemBytes);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

bool isWorkgroup(Type t) { return mirage::detail::isSharedMemRef(t); }

int64_t elemBytesOf(Type t) {
  Type e = getElementTypeOrSelf(t);
  if (e.isIndex())
    return 8;
  return std::max<int64_t>(1, (e.getIntOrFloatBitWidth() + 7) / 8);
}

/// Iterations of a loop run in full up to this many; longer loops without
/// integer loop-carried values run their first and last kLoopEnds or a few
/// more: the iterations skipped are a multiple of kLoopPeriod, so that the
/// stage buffers of a pipeline of up to four stages are where they would be.
constexpr int64_t kLoopEnds = 8;
/// lcm(1, 2, 3, 4): the slot a stage buffer's loop index picks repeats with
/// the pipeline's depth. Skipping 16 iterations of a 3-stage loop left the
/// next one reading the slot of a copy still in flight (a false race, found
/// by the code-generation campaign: Sanitizers.md).
constexpr int64_t kLoopPeriod = 12;
static_assert(mirage::kMaxPipelineStages <= 4,
              "kLoopPeriod must be a multiple of every pipeline depth");

struct ThreadRun {
  std::array<int64_t, 3> tid;
  std::array<int64_t, 3> block;
  int thread;
  std::vector<Access> &accesses;
  llvm::DenseMap<const void *, int> &roots;
  Unchecked &unchecked;

  llvm::DenseMap<Value, Val> env;
  int64_t interval = 0;
  /// Indices (into `accesses`) of this thread's cp.async copies: the open
  /// group, and the committed groups not yet retired, oldest first.
  std::vector<size_t> openGroup;
  std::vector<std::vector<size_t>> committed;

  ThreadRun(std::array<int64_t, 3> tid,
            std::array<int64_t, 3> block, int thread,
            std::vector<Access> &accesses,
            llvm::DenseMap<const void *, int> &roots, Unchecked &unchecked)
      : tid(tid), block(block), thread(thread),
        accesses(accesses), roots(roots), unchecked(unchecked) {}

  Val get(Value v) {
    auto it = env.find(v);
    if (it != env.end())
      return it->second;
    // Constants defined above the launch.
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return Val::integer(i.getInt());
    return Val();
  }
  std::optional<int64_t> intOf(Value v) {
    Val x = get(v);
    if (x.kind == Val::Int)
      return x.i;
    return std::nullopt;
  }
  std::optional<int64_t> intOf(OpFoldResult f) {
    if (auto a = dyn_cast<Attribute>(f))
      return cast<IntegerAttr>(a).getInt();
    return intOf(cast<Value>(f));
  }

  bool fail(Operation *op, const std::string &why) {
    if (!unchecked.op) {
      unchecked.op = op;
      unchecked.why = why;
    }
    return false;
  }

  /// One root per global symbol (whichever op names it), one for dynamic
  /// shared memory, one per alloc.
  int rootOf(Operation *op) {
    static const char dynamicShared = 0;
    const void *key = op;
    if (auto g = dyn_cast<memref::GetGlobalOp>(op))
      key = g.getNameAttr().getAsOpaquePointer();
    else if (isa<gpu::DynamicSharedMemoryOp>(op))
      key = &dynamicShared;
    auto it = roots.find(key);
    if (it != roots.end())
      return it->second;
    int id = static_cast<int>(roots.size());
    roots[key] = id;
    return id;
  }

  std::optional<int64_t> evalExpr(AffineExpr e, ArrayRef<int64_t> dims,
                                  ArrayRef<int64_t> syms) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return c.getValue();
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return dims[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(e))
      return syms[s.getPosition()];
    auto bin = cast<AffineBinaryOpExpr>(e);
    std::optional<int64_t> l = evalExpr(bin.getLHS(), dims, syms);
    std::optional<int64_t> r = evalExpr(bin.getRHS(), dims, syms);
    if (!l || !r)
      return std::nullopt;
    switch (bin.getKind()) {
    case AffineExprKind::Add:
      return *l + *r;
    case AffineExprKind::Mul:
      return *l * *r;
    case AffineExprKind::FloorDiv:
      return *r == 0 ? std::nullopt : std::optional<int64_t>(llvm::divideFloorSigned(*l, *r));
    case AffineExprKind::CeilDiv:
      return *r == 0 ? std::nullopt : std::optional<int64_t>(llvm::divideCeilSigned(*l, *r));
    case AffineExprKind::Mod:
      return *r == 0 ? std::nullopt : std::optional<int64_t>(llvm::mod(*l, *r));
    case AffineExprKind::Constant:
    case AffineExprKind::DimId:
    case AffineExprKind::SymbolId:
      break;
    }
    return std::nullopt;
  }

  /// The map's results on the operands, or nothing if one is unknown.
  std::optional<llvm::SmallVector<int64_t, 4>> evalMap(AffineMap map,
                                                       ValueRange operands) {
    llvm::SmallVector<int64_t, 8> vals;
    for (Value v : operands) {
      std::optional<int64_t> x = intOf(v);
      if (!x)
        return std::nullopt;
      vals.push_back(*x);
    }
    ArrayRef<int64_t> all(vals);
    llvm::SmallVector<int64_t, 4> out;
    for (AffineExpr e : map.getResults()) {
      std::optional<int64_t> r = evalExpr(e, all.take_front(map.getNumDims()),
                                          all.drop_front(map.getNumDims()));
      if (!r)
        return std::nullopt;
      out.push_back(*r);
    }
    return out;
  }

  /// Records bytes [addr, addr + bytes) of `view`'s root.
  void record(Operation *op, const View &view, int64_t addr, int64_t bytes,
              bool write, bool async = false) {
    accesses.push_back(Access{thread, view.root, addr, addr + bytes, interval,
                              async ? std::numeric_limits<int64_t>::max()
                                    : interval,
                              write, op});
    if (async)
      openGroup.push_back(accesses.size() - 1);
  }

  /// The byte address of element `indices` of `memref` (a workgroup view),
  /// or nothing (with the reason recorded) if it is not known.
  std::optional<std::pair<View, int64_t>> address(Operation *op, Value memref,
                                                  ValueRange indices) {
    Val m = get(memref);
    if (m.kind != Val::Mem)
      return fail(op, "a shared buffer the run cannot follow"), std::nullopt;
    int64_t addr = m.view.offset;
    for (auto [d, idx] : llvm::enumerate(indices)) {
      std::optional<int64_t> x = intOf(idx);
      if (!x)
        return fail(op, "an index computed from data"), std::nullopt;
      addr += *x * m.view.strides[d];
    }
    return std::make_pair(m.view, addr);
  }

  /// A vector access: element e of the vector at memref index
  /// indices + perm(e) (perm: vector dims to memref dims; broadcast dims
  /// read one element).
  void vectorAccess(Operation *op, Value memref, ValueRange indices,
                    VectorType type, AffineMap perm, bool write) {
    if (!isWorkgroup(memref.getType()))
      return;
    std::optional<std::pair<View, int64_t>> base =
        address(op, memref, indices);
    if (!base)
      return;
    const View &v = base->first;
    ArrayRef<int64_t> shape = type.getShape();
    if (shape.empty())
      return record(op, v, base->second, v.elemBytes, write);
    // The byte stride of each vector dim (0: broadcast).
    llvm::SmallVector<int64_t, 4> stride(shape.size(), 0);
    for (auto [j, expr] : llvm::enumerate(perm.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        stride[j] = v.strides[dim.getPosition()];
    // The innermost dim as one run when it is contiguous.
    const int64_t inner = shape.back();
    const bool run = stride.back() == v.elemBytes;
    llvm::SmallVector<int64_t, 4> e(shape.size(), 0);
    const int64_t rows = type.getNumElements() / inner;
    for (int64_t k = 0; k < rows; ++k) {
      int64_t rem = k;
      for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) {
        e[d] = rem % shape[d];
        rem /= shape[d];
      }
      int64_t addr = base->second;
      for (size_t d = 0; d + 1 < shape.size(); ++d)
        addr += e[d] * stride[d];
      if (run) {
        record(op, v, addr, inner * v.elemBytes, write);
        continue;
      }
      for (int64_t i = 0; i < inner; ++i)
        record(op, v, addr + i * stride.back(), v.elemBytes, write);
    }
  }

  void retire(size_t keep) {
    while (committed.size() > keep) {
      for (size_t a : committed.front())
        accesses[a].last = interval;
      committed.erase(committed.begin());
    }
  }

  bool runOp(Operation *op);

  /// Runs `b` with `args` bound; the values its terminator yields go to
  /// `yielded`.
  bool runBlock(Block &b, ArrayRef<Val> args, llvm::SmallVectorImpl<Val> *yielded) {
    for (auto [a, v] : llvm::zip(b.getArguments(), args))
      env[a] = v;
    for (Operation &op : b) {
      if (isa<scf::YieldOp>(op)) {
        if (yielded)
          for (Value v : op.getOperands())
            yielded->push_back(get(v));
        return true;
      }
      if (!runOp(&op))
        return false;
    }
    return true;
  }

  bool runFor(scf::ForOp f) {
    std::optional<int64_t> lb = intOf(f.getLowerBound()),
                           ub = intOf(f.getUpperBound()),
                           step = intOf(f.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return fail(f, "a loop whose bounds come from data");
    llvm::SmallVector<Val> carried;
    bool intCarried = false;
    for (Value init : f.getInitArgs()) {
      carried.push_back(get(init));
      intCarried |= carried.back().kind != Val::Unknown;
    }
    const int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
    // Long loops without integer loop-carried values: their ends, the
    // iterations between skipped by whole periods.
    const int64_t skipped =
        !intCarried && trips > 2 * kLoopEnds
            ? (trips - 2 * kLoopEnds) / kLoopPeriod * kLoopPeriod
            : 0;
    for (int64_t k = 0; k < trips; ++k) {
      if (skipped > 0 && k == kLoopEnds)
        k += skipped;
      llvm::SmallVector<Val> args{Val::integer(*lb + k * *step)};
      args.append(carried.begin(), carried.end());
      llvm::SmallVector<Val> next;
      if (!runBlock(*f.getBody(), args, &next))
        return false;
      carried = std::move(next);
    }
    for (auto [r, v] : llvm::zip(f.getResults(), carried))
      env[r] = v;
    return true;
  }

  bool runIf(scf::IfOp i) {
    std::optional<int64_t> c = intOf(i.getCondition());
    llvm::SmallVector<Val> out;
    if (c) {
      Region &r = *c ? i.getThenRegion() : i.getElseRegion();
      if (!r.empty() && !runBlock(r.front(), {}, &out))
        return false;
    } else {
      // Data decides (uniformly: ConvergentOps.md): both branches, a
      // superset of the accesses.
      for (Region *r : {&i.getThenRegion(), &i.getElseRegion()})
        if (!r->empty() && !runBlock(r->front(), {}, nullptr))
          return false;
    }
    for (auto [n, r] : llvm::enumerate(i.getResults()))
      env[r] = n < out.size() ? out[n] : Val();
    return true;
  }

  bool runIntOp(Operation *op) {
    auto bin = [&](auto fn) {
      std::optional<int64_t> a = intOf(op->getOperand(0)),
                             b = intOf(op->getOperand(1));
      env[op->getResult(0)] = a && b ? fn(*a, *b) : Val();
      return true;
    };
    auto guardDiv = [](int64_t a, int64_t b, auto fn) {
      return b == 0 ? Val() : Val::integer(fn(a, b));
    };
    using I = int64_t;
    return llvm::TypeSwitch<Operation *, bool>(op)
        .Case([&](arith::AddIOp) {
          return bin([](I a, I b) { return Val::integer(a + b); });
        })
        .Case([&](arith::SubIOp) {
          return bin([](I a, I b) { return Val::integer(a - b); });
        })
        .Case([&](arith::MulIOp) {
          return bin([](I a, I b) { return Val::integer(a * b); });
        })
        .Case<arith::DivSIOp, arith::DivUIOp>([&](Operation *) {
          return bin([&](I a, I b) {
            return guardDiv(a, b, [](I x, I y) { return x / y; });
          });
        })
        .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *) {
          return bin([&](I a, I b) {
            return guardDiv(a, b, [](I x, I y) { return x % y; });
          });
        })
        .Case([&](arith::FloorDivSIOp) {
          return bin([&](I a, I b) {
            return guardDiv(a, b, llvm::divideFloorSigned<I, I>);
          });
        })
        .Case([&](arith::CeilDivSIOp) {
          return bin([&](I a, I b) {
            return guardDiv(a, b, llvm::divideCeilSigned<I, I>);
          });
        })
        .Case([&](arith::AndIOp) {
          return bin([](I a, I b) { return Val::integer(a & b); });
        })
        .Case([&](arith::OrIOp) {
          return bin([](I a, I b) { return Val::integer(a | b); });
        })
        .Case([&](arith::XOrIOp) {
          return bin([](I a, I b) { return Val::integer(a ^ b); });
        })
        .Case([&](arith::ShLIOp) {
          return bin([](I a, I b) { return Val::integer(a << b); });
        })
        .Case<arith::ShRUIOp, arith::ShRSIOp>([&](Operation *) {
          return bin([](I a, I b) { return Val::integer(a >> b); });
        })
        .Case<arith::MaxSIOp, arith::MaxUIOp>([&](Operation *) {
          return bin([](I a, I b) { return Val::integer(std::max(a, b)); });
        })
        .Case<arith::MinSIOp, arith::MinUIOp>([&](Operation *) {
          return bin([](I a, I b) { return Val::integer(std::min(a, b)); });
        })
        .Case([&](arith::CmpIOp c) {
          using P = arith::CmpIPredicate;
          P p = c.getPredicate();
          return bin([&](I a, I b) {
            bool r = false;
            switch (p) {
            case P::eq: r = a == b; break;
            case P::ne: r = a != b; break;
            case P::slt: case P::ult: r = a < b; break;
            case P::sle: case P::ule: r = a <= b; break;
            case P::sgt: case P::ugt: r = a > b; break;
            case P::sge: case P::uge: r = a >= b; break;
            }
            return Val::integer(r);
          });
        })
        .Case([&](arith::SelectOp s) {
          std::optional<int64_t> c = intOf(s.getCondition());
          env[s] = c ? get(*c ? s.getTrueValue() : s.getFalseValue()) : Val();
          return true;
        })
        .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
              arith::ExtSIOp, arith::TruncIOp>([&](Operation *) {
          env[op->getResult(0)] = get(op->getOperand(0));
          return true;
        })
        .Default([](Operation *) { return false; });
  }

  /// Views of workgroup memory.
  bool runViewOp(Operation *op) {
    return llvm::TypeSwitch<Operation *, bool>(op)
        .Case([&](memref::ViewOp v) {
          Val src = get(v.getSource());
          std::optional<int64_t> shift = intOf(v.getByteShift());
          auto type = v.getType();
          if (src.kind != Val::Mem || !shift || !type.hasStaticShape()) {
            env[v] = Val();
            return true;
          }
          View out = src.view;
          out.offset += *shift;
          out.elemBytes = elemBytesOf(type);
          out.strides = rowMajor(type.getShape(), out.elemBytes);
          env[v] = Val::mem(out);
          return true;
        })
        .Case([&](memref::SubViewOp s) {
          Val src = get(s.getSource());
          if (src.kind != Val::Mem) {
            env[s] = Val();
            return true;
          }
          View out = src.view;
          llvm::SmallBitVector dropped = s.getDroppedDims();
          out.strides.clear();
          for (auto [d, off, stride] :
               llvm::enumerate(s.getMixedOffsets(), s.getMixedStrides())) {
            std::optional<int64_t> o = intOf(off), st = intOf(stride);
            if (!o || !st) {
              env[s] = Val();
              return true;
            }
            out.offset += *o * src.view.strides[d];
            if (!dropped.test(d))
              out.strides.push_back(src.view.strides[d] * *st);
          }
          env[s] = Val::mem(out);
          return true;
        })
        .Case([&](memref::CollapseShapeOp c) {
          Val src = get(c.getSrc());
          if (src.kind != Val::Mem) {
            env[c] = Val();
            return true;
          }
          View out = src.view;
          out.strides.clear();
          // A collapsed group is contiguous: its innermost dim's stride.
          for (const ReassociationIndices &g : c.getReassociationIndices())
            out.strides.push_back(src.view.strides[g.back()]);
          env[c] = Val::mem(out);
          return true;
        })
        .Case([&](memref::ExpandShapeOp e) {
          Val src = get(e.getSrc());
          auto shape = e.getResultType().getShape();
          if (src.kind != Val::Mem || ShapedType::isDynamicShape(shape)) {
            env[e] = Val();
            return true;
          }
          View out = src.view;
          out.strides.assign(shape.size(), 0);
          for (auto [d, g] : llvm::enumerate(e.getReassociationIndices())) {
            int64_t stride = src.view.strides[d];
            for (int64_t k = static_cast<int64_t>(g.size()) - 1; k >= 0; --k) {
              out.strides[g[k]] = stride;
              stride *= shape[g[k]];
            }
          }
          env[e] = Val::mem(out);
          return true;
        })
        .Case([&](memref::CastOp c) {
          env[c] = get(c.getSource());
          return true;
        })
        .Case([&](memref::TransposeOp t) {
          // A tile stored transposed (OperandLayouts.md): result dim d is
          // source dim perm(d).
          Val src = get(t.getIn());
          AffineMap perm = t.getPermutation();
          if (src.kind != Val::Mem || !perm.isPermutation()) {
            env[t] = Val();
            return true;
          }
          View out = src.view;
          for (unsigned d = 0; d < perm.getNumResults(); ++d)
            out.strides[d] = src.view.strides[perm.getDimPosition(d)];
          env[t] = Val::mem(out);
          return true;
        })
        .Default([](Operation *) { return false; });
  }
};

bool ThreadRun::runOp(Operation *op) {
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      env[c] = Val::integer(i.getInt());
    return true;
  }
  if (auto t = dyn_cast<gpu::ThreadIdOp>(op)) {
    env[t] = Val::integer(tid[static_cast<int>(t.getDimension())]);
    return true;
  }
  if (isa<gpu::BlockIdOp>(op)) {
    env[op->getResult(0)] = Val::integer(0); // shared addresses do not
    return true;                             // depend on the block
  }
  if (auto l = dyn_cast<gpu::LaneIdOp>(op)) {
    env[l] = Val::integer(tid[0] % 32);
    return true;
  }
  if (auto d = dyn_cast<gpu::BlockDimOp>(op)) {
    env[d] = Val::integer(block[static_cast<int>(d.getDimension())]);
    return true;
  }
  if (auto a = dyn_cast<affine::AffineApplyOp>(op)) {
    auto r = evalMap(a.getAffineMap(), a.getMapOperands());
    env[a] = r ? Val::integer(r->front()) : Val();
    return true;
  }
  if (auto m = dyn_cast<affine::AffineMinOp>(op)) {
    auto r = evalMap(m.getAffineMap(), m.getMapOperands());
    env[m] = r ? Val::integer(*llvm::min_element(*r)) : Val();
    return true;
  }
  if (auto m = dyn_cast<affine::AffineMaxOp>(op)) {
    auto r = evalMap(m.getAffineMap(), m.getMapOperands());
    env[m] = r ? Val::integer(*llvm::max_element(*r)) : Val();
    return true;
  }
  if (runIntOp(op) || runViewOp(op))
    return true;
  if (auto f = dyn_cast<scf::ForOp>(op))
    return runFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return runIf(i);
  if (isa<gpu::BarrierOp>(op)) {
    ++interval;
    return true;
  }
  // A thread that issued no copies since its last commit still commits a
  // group, empty, and wait_group counts it (nvgpu's group op is the same
  // commit).
  if (isa<NVVM::CpAsyncCommitGroupOp, nvgpu::DeviceAsyncCreateGroupOp>(op)) {
    committed.push_back(std::move(openGroup));
    openGroup.clear();
    return true;
  }
  if (auto w = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op)) {
    retire(w.getN());
    return true;
  }
  // nvgpu's wait: all but `numGroups` of them.
  if (auto w = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op)) {
    retire(w.getNumGroups().value_or(0));
    return true;
  }
  // Roots of workgroup memory.
  if (isa<memref::GetGlobalOp, gpu::DynamicSharedMemoryOp, memref::AllocOp,
          memref::AllocaOp>(op) &&
      isWorkgroup(op->getResult(0).getType())) {
    auto type = cast<MemRefType>(op->getResult(0).getType());
    View v;
    v.root = rootOf(op);
    v.elemBytes = elemBytesOf(type);
    v.strides = type.hasStaticShape() || type.getRank() == 1
                    ? rowMajor(type.getShape(), v.elemBytes)
                    : llvm::SmallVector<int64_t, 4>(type.getRank(), 0);
    env[op->getResult(0)] = Val::mem(v);
    return true;
  }
  // Accesses.
  if (auto l = dyn_cast<memref::LoadOp>(op)) {
    if (isWorkgroup(l.getMemRefType()))
      if (auto a = address(op, l.getMemRef(), l.getIndices()))
        record(op, a->first, a->second, a->first.elemBytes, false);
    return true;
  }
  if (auto s = dyn_cast<memref::StoreOp>(op)) {
    if (isWorkgroup(s.getMemRefType()))
      if (auto a = address(op, s.getMemRef(), s.getIndices()))
        record(op, a->first, a->second, a->first.elemBytes, true);
    return true;
  }
  if (auto a = dyn_cast<memref::AtomicRMWOp>(op)) {
    if (isWorkgroup(a.getMemRefType()))
      if (auto x = address(op, a.getMemref(), a.getIndices())) {
        record(op, x->first, x->second, x->first.elemBytes, true);
      }
    return true;
  }
  auto minorIdentity = [](Value memref, VectorType t) {
    return AffineMap::getMinorIdentityMap(
        cast<MemRefType>(memref.getType()).getRank(), t.getRank(),
        memref.getContext());
  };
  if (auto l = dyn_cast<vector::LoadOp>(op)) {
    vectorAccess(op, l.getBase(), l.getIndices(), l.getVectorType(),
                 minorIdentity(l.getBase(), l.getVectorType()), false);
    return true;
  }
  if (auto s = dyn_cast<vector::StoreOp>(op)) {
    vectorAccess(op, s.getBase(), s.getIndices(), s.getVectorType(),
                 minorIdentity(s.getBase(), s.getVectorType()), true);
    return true;
  }
  if (auto r = dyn_cast<vector::TransferReadOp>(op)) {
    vectorAccess(op, r.getBase(), r.getIndices(), r.getVectorType(),
                 r.getPermutationMap(), false);
    return true;
  }
  if (auto w = dyn_cast<vector::TransferWriteOp>(op)) {
    vectorAccess(op, w.getBase(), w.getIndices(), w.getVectorType(),
                 w.getPermutationMap(), true);
    return true;
  }
  if (auto m = dyn_cast<nvgpu::LdMatrixOp>(op)) {
    // Lane l gives the address of row l % 8 of matrix l / 8: 16 bytes.
    if (isWorkgroup(m.getSrcMemref().getType()) &&
        tid[0] % 32 < 8 * static_cast<int64_t>(m.getNumTiles()))
      if (auto a = address(op, m.getSrcMemref(), m.getIndices()))
        record(op, a->first, a->second, 16, false);
    return true;
  }
  if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
    if (isWorkgroup(c.getDst().getType()))
      if (auto a = address(op, c.getDst(), c.getDstIndices()))
        record(op, a->first, a->second,
               a->first.elemBytes * c.getDstElements().getSExtValue(), true,
               /*async=*/true);
    return true;
  }
  if (op->getNumRegions() != 0)
    return fail(op, "an op with regions the run does not know");
  // Any other op: its results are data. It must not touch workgroup
  // memory the run cannot see.
  if (!isa<memref::DeallocOp>(op))
    for (Value v : op->getOperands())
      if (isWorkgroup(v.getType()))
        return fail(op, "an op on shared memory the run does not know");
  return true;
}

/// Per byte of one interval: its last writer, and up to two readers of
/// different threads (-1: none), with their accesses.
struct ByteUse {
  int32_t interval = -1; // the interval the fields below are of
  int32_t writer = -1;
  uint32_t writeAccess = 0;
  std::array<int32_t, 2> reader{-1, -1};
  std::array<uint32_t, 2> readAccess{0, 0};
  /// A reader other than `thread`, if any.
  std::optional<size_t> otherReader(int thread) const {
    for (int k = 0; k < 2; ++k)
      if (reader[k] != -1 && reader[k] != thread)
        return readAccess[k];
    return std::nullopt;
  }
};

} // namespace

LogicalResult mirage::verifySharedMemoryRaceFree(func::FuncOp kernel,
                                                 SharedRaceCounts *counts) {
  bool ok = true;
  kernel.walk([&](gpu::LaunchOp launch) {
    gpu::KernelDim3 sizes = launch.getBlockSizeOperandValues();
    std::array<int64_t, 3> block;
    int i = 0;
    for (Value s : {sizes.x, sizes.y, sizes.z}) {
      std::optional<int64_t> c = getConstantIntValue(s);
      block[i++] = c ? *c : -1;
    }
    if (block[0] < 1 || block[1] < 1 || block[2] < 1) {
      launch.emitRemark("shared-memory race check skipped: the block size "
                        "is not constant");
      return;
    }
    std::vector<Access> accesses;
    llvm::DenseMap<const void *, int> roots;
    Unchecked unchecked;
    gpu::KernelDim3 tids = launch.getThreadIds(), bids = launch.getBlockIds();
    gpu::KernelDim3 grid = launch.getGridSize(), blk = launch.getBlockSize();
    int thread = 0;
    for (int64_t z = 0; z < block[2] && !unchecked.op; ++z)
      for (int64_t y = 0; y < block[1] && !unchecked.op; ++y)
        for (int64_t x = 0; x < block[0] && !unchecked.op; ++x, ++thread) {
          ThreadRun run({x, y, z}, block, thread, accesses, roots, unchecked);
          const std::array<Value, 3> tidArgs{tids.x, tids.y, tids.z};
          const std::array<Value, 3> blockArgs{blk.x, blk.y, blk.z};
          for (int d = 0; d < 3; ++d) {
            run.env[tidArgs[d]] = Val::integer(run.tid[d]);
            run.env[blockArgs[d]] = Val::integer(block[d]);
          }
          for (Value v : {bids.x, bids.y, bids.z})
            run.env[v] = Val::integer(0);
          for (Value v : {grid.x, grid.y, grid.z})
            if (std::optional<int64_t> c = getConstantIntValue(v))
              run.env[v] = Val::integer(*c);
          if (!run.runBlock(launch.getBody().front(), {}, nullptr))
            break;
          // Copies never waited for land by the end of the kernel.
          run.retire(0);
          for (size_t a : run.openGroup)
            accesses[a].last = run.interval;
        }
    if (unchecked.op) {
      unchecked.op->emitRemark("shared-memory race check skipped: ")
          << unchecked.why;
      if (counts)
        ++counts->skipped;
      return;
    }
    if (counts) {
      ++counts->checked;
      counts->accesses += accesses.size();
    }
    // Intervals in order; within one, every byte's users.
    std::vector<std::vector<size_t>> byInterval;
    for (size_t a = 0; a < accesses.size(); ++a)
      for (int64_t k = accesses[a].first; k <= accesses[a].last; ++k) {
        if (static_cast<size_t>(k) >= byInterval.size())
          byInterval.resize(k + 1);
        byInterval[k].push_back(a);
      }
    // One flat array of bytes per root (up to the highest byte touched);
    // an entry of an earlier interval counts as empty.
    std::vector<std::vector<ByteUse>> bytes(roots.size());
    for (const Access &x : accesses)
      if (x.lo >= 0 && static_cast<size_t>(x.hi) > bytes[x.root].size())
        bytes[x.root].resize(x.hi);
    for (auto [k, list] : llvm::enumerate(byInterval)) {
      const int32_t current = static_cast<int32_t>(k);
      for (size_t a : list) {
        const Access &x = accesses[a];
        if (x.lo < 0) {
          x.op->emitError("shared-memory access before the start of its "
                          "buffer (byte ")
              << x.lo << ")";
          ok = false;
          return;
        }
        for (int64_t b = x.lo; b < x.hi; ++b) {
          ByteUse &u = bytes[x.root][b];
          if (u.interval != current)
            u = ByteUse{current};
          std::optional<size_t> other;
          if (u.writer >= 0 && u.writer != x.thread)
            other = u.writeAccess;
          else if (x.write)
            other = u.otherReader(x.thread);
          if (other) {
            const Access &y = accesses[*other];
            InFlightDiagnostic d = x.op->emitError()
                                   << "shared-memory race: thread " << x.thread
                                   << (x.write ? " writes" : " reads")
                                   << " byte " << b << " of a shared buffer "
                                   << "that thread " << y.thread
                                   << (y.write ? " writes" : " reads")
                                   << " with no barrier between";
            d.attachNote(y.op->getLoc()) << "the other access";
            ok = false;
            return;
          }
          if (x.write) {
            u.writer = x.thread;
            u.writeAccess = static_cast<uint32_t>(a);
          } else if (u.reader[0] == -1 || u.reader[0] == x.thread) {
            u.reader[0] = x.thread;
            u.readAccess[0] = static_cast<uint32_t>(a);
          } else if (u.reader[1] == -1) {
            u.reader[1] = x.thread;
            u.readAccess[1] = static_cast<uint32_t>(a);
          }
        }
      }
    }
  });
  return success(ok);
}
