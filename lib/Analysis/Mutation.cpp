//===- Mutation.cpp - Single-change mutants of a μGraph -------------------===//
#include "Mirage/Analysis/Mutation.h"
#include "Mirage/Semantics/OpKinds.h"
#include "Mirage/Semantics/Replay.h"

using namespace mirage;

namespace {
struct Variant {
  UOp op;
  std::string what;
};

struct Ctx {
  int target = 0, variant = 0, counter = 0;
  bool reached = false, exhausted = false;
  std::string desc;
  /// Picks the variant at the target site; false when the list is used up.
  template <class F> bool pick(F makeVariants, UOp &op) {
    if (counter++ != target)
      return true;
    reached = true;
    std::vector<Variant> vs = makeVariants();
    if (variant >= (int)vs.size()) {
      exhausted = true;
      return false;
    }
    op = vs[variant].op;
    desc = vs[variant].what;
    return true;
  }
};

std::string binName(BinaryKind k) { return stringifyBinaryKind(k).str(); }
std::string unName(UnaryKind k) { return stringifyUnaryKind(k).str(); }

std::string mapStr(const AxisMap &m) {
  return "[" + std::to_string(m[0]) + ", " + std::to_string(m[1]) + ", " +
         std::to_string(m[2]) + "]";
}

std::vector<Variant> opVariants(const UGraph &g, const UOp &op, size_t idx) {
  std::vector<Variant> vs;
  std::string at = " (op #" + std::to_string(idx) + ")";
  auto add = [&](UOp v, std::string what) {
    vs.push_back({std::move(v), what + at});
  };
  // Another operand of the same shape and phase, defined earlier.
  auto wrongOperand = [&](unsigned k) {
    int32_t cur = op.operands[k];
    for (int32_t v = 0; v < (int32_t)g.values.size(); ++v) {
      if (v == cur || g.values[v].shape != g.values[cur].shape ||
          g.values[v].phase != g.values[cur].phase)
        continue;
      if (g.values[v].def >= (int32_t)idx)
        continue;
      UOp m = op;
      m.operands[k] = v;
      add(m, "operand #" + std::to_string(k) + " replaced by value " +
                 std::to_string(v));
      return;
    }
  };
  switch (op.kind) {
  case OpKind::Matmul: {
    UOp m = op;
    std::swap(m.operands[0], m.operands[1]);
    add(m, "matmul operands swapped");
    wrongOperand(0);
    wrongOperand(1);
    break;
  }
  case OpKind::Unary: {
    UnaryKind cur = op.unaryKind();
    if (cur == UnaryKind::mul_scalar || cur == UnaryKind::add_scalar) {
      UOp m = op;
      m.scalar = op.scalar * 2 + 1;
      add(m, "scalar changed");
      m = op;
      m.sub = (int)(cur == UnaryKind::mul_scalar ? UnaryKind::add_scalar
                                                 : UnaryKind::mul_scalar);
      add(m, "mul_scalar/add_scalar exchanged");
      break;
    }
    for (UnaryKind k : {UnaryKind::exp, UnaryKind::square, UnaryKind::sqrt,
                        UnaryKind::rsqrt, UnaryKind::silu}) {
      if (k == cur)
        continue;
      UOp m = op;
      m.sub = (int)k;
      add(m, unName(cur) + " replaced by " + unName(k));
    }
    break;
  }
  case OpKind::Binary: {
    BinaryKind cur = op.binaryKind();
    if (!binaryFacts(cur).isCommutative()) {
      UOp m = op;
      std::swap(m.operands[0], m.operands[1]);
      add(m, binName(cur) + " operands swapped");
    }
    for (BinaryKind k : {BinaryKind::add, BinaryKind::sub, BinaryKind::mul,
                         BinaryKind::div}) {
      if (k == cur)
        continue;
      UOp m = op;
      m.sub = (int)k;
      add(m, binName(cur) + " replaced by " + binName(k));
    }
    wrongOperand(0);
    wrongOperand(1);
    break;
  }
  case OpKind::Reduce: {
    UOp m = op;
    m.sub = (int)(op.reduceKind() == ReduceKind::sum ? ReduceKind::max
                                                      : ReduceKind::sum);
    add(m, "reduction kind changed");
    int64_t rank = g.values[op.operands[0]].shape.size();
    for (int64_t d = 0; d < rank; ++d) {
      if (d == op.dim)
        continue;
      m = op;
      m.dim = d;
      add(m, "reduction dim " + std::to_string(op.dim) + " -> " +
                 std::to_string(d));
    }
    break;
  }
  case OpKind::RmsNorm: {
    UOp m = op;
    if (op.operands.size() > 1) {
      m.operands.pop_back();
      add(m, "rms_norm weight dropped");
      m = op;
    }
    m.scalar = op.scalar == 0 ? 0.25 : op.scalar * 2;
    add(m, "rms_norm eps changed");
    break;
  }
  case OpKind::Concat: {
    UOp m = op;
    std::swap(m.operands[0], m.operands[1]);
    add(m, "concat operands swapped");
    break;
  }
  case OpKind::InputIterator:
  case OpKind::OutputSaver: {
    int64_t rank = g.values[op.kind == OpKind::InputIterator
                                ? op.operands[0]
                                : op.operands[0]]
                       .shape.size();
    const char *name = op.kind == OpKind::InputIterator ? "imap" : "omap";
    for (int a = 0; a < 3; ++a)
      for (int64_t d = -1; d < rank; ++d) {
        if (d == op.map[a])
          continue;
        UOp m = op;
        m.map[a] = d;
        add(m, std::string(name) + " " + mapStr(op.map) + " -> " +
                   mapStr(m.map));
      }
    if (op.kind == OpKind::InputIterator)
      for (int64_t d = -1; d < rank; ++d) {
        if (d == op.fmap)
          continue;
        UOp m = op;
        m.fmap = d;
        add(m, "fmap " + std::to_string(op.fmap) + " -> " + std::to_string(d));
      }
    break;
  }
  case OpKind::Accum: {
    for (int k = 0; k <= (int)getMaxEnumValForAccumKind(); ++k) {
      if (k == op.sub)
        continue;
      UOp m = op;
      m.sub = k;
      if (!accumFacts(m.accumKind()).usesScalar())
        m.scalar = 0; // eps belongs to rms_last only
      add(m, "accumulator " + subKindName(op).str() + " -> " +
                 subKindName(m).str());
    }
    if (op.accumKind() == AccumKind::rms_last) {
      UOp m = op;
      m.scalar = op.scalar == 0 ? 0.25 : op.scalar * 2;
      add(m, "rms_last eps changed");
    }
    if (op.operands.size() > 1) {
      UOp m = op;
      m.operands.pop_back();
      add(m, "accumulator rescale removed");
    }
    break;
  }
  case OpKind::RunningMax: {
    int64_t rank = g.values[op.operands[0]].shape.size();
    for (int64_t d = 0; d < rank; ++d) {
      if (d == op.dim)
        continue;
      UOp m = op;
      m.dim = d;
      add(m, "running_max dim " + std::to_string(op.dim) + " -> " +
                 std::to_string(d));
    }
    break;
  }
  case OpKind::Custom:
  case OpKind::ThreadGraph:
    break; // their bodies are replayed op by op, each a mutation site
  }
  return vs;
}

bool replay(const UGraph &src, UGraph &dst, Ctx &ctx) {
  dst.grid = src.grid;
  dst.forloopRange = src.forloopRange;
  dst.target = src.target;
  if (src.level == Level::Block) {
    // The launch configuration is a site of its own.
    if (ctx.counter++ == ctx.target) {
      ctx.reached = true;
      std::vector<std::pair<std::pair<GridDims, int64_t>, std::string>> vs;
      GridDims gd = src.grid;
      int64_t f = src.forloopRange;
      vs.push_back({{gd, f * 2}, "forloop range doubled"});
      if (f % 2 == 0)
        vs.push_back({{gd, f / 2}, "forloop range halved"});
      for (int a = 0; a < 2; ++a) {
        GridDims g2 = gd;
        g2[a] *= 2;
        vs.push_back({{g2, f}, "grid axis " + std::to_string(a) + " doubled"});
        if (gd[a] % 2 == 0) {
          g2 = gd;
          g2[a] /= 2;
          vs.push_back(
              {{g2, f}, "grid axis " + std::to_string(a) + " halved"});
        }
      }
      if (ctx.variant >= (int)vs.size()) {
        ctx.exhausted = true;
        return false;
      }
      dst.grid = vs[ctx.variant].first.first;
      dst.forloopRange = vs[ctx.variant].first.second;
      ctx.desc = vs[ctx.variant].second;
    }
  }
  std::vector<int32_t> map(src.values.size(), -1);
  for (int32_t in : src.inputs)
    map[in] = dst.addInput(src.values[in].shape, src.values[in].type);
  for (size_t i = 0; i < src.ops.size(); ++i) {
    UOp op = src.ops[i];
    if (!ctx.pick([&] { return opVariants(src, op, i); }, op))
      return false;
    for (int32_t o : op.operands)
      if (o < 0 || map[o] < 0)
        return false;
    // Nested bodies are replayed too: a mutation site may lie inside them.
    UGraph body(op.kind == OpKind::Custom ? Level::Block : Level::Thread);
    if (op.body >= 0 && !replay(src.bodies[op.body], body, ctx))
      return false;
    if (!replayOp(dst, op, map, std::move(body)))
      return false;
  }
  for (int32_t o : src.outputs)
    dst.markOutput(map[o]);
  return true;
}
} // namespace

std::vector<Mutant> mirage::generateMutants(const UGraph &g, size_t limit) {
  std::vector<Mutant> out;
  for (int target = 0;; ++target) {
    bool reached = false;
    for (int variant = 0; out.size() < limit; ++variant) {
      Ctx ctx;
      ctx.target = target;
      ctx.variant = variant;
      UGraph m(g.level);
      m.name = g.name;
      m.reference = g.reference;
      bool ok = replay(g, m, ctx);
      reached |= ctx.reached;
      if (!ctx.reached || ctx.exhausted)
        break;
      if (!ok || !verifyUGraphOutputs(m).empty() ||
          m.outputs.size() != g.outputs.size())
        continue;
      bool same = true;
      for (size_t i = 0; i < g.outputs.size() && same; ++i)
        same = m.values[m.outputs[i]].shape == g.values[g.outputs[i]].shape;
      if (same)
        out.push_back({std::move(m), ctx.desc});
    }
    if (!reached || out.size() >= limit)
      break;
  }
  return out;
}
