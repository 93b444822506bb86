//===- AbstractExpr.cpp - Abstract expressions of μGraphs -----------------===//
//
// Hash-consed terms with A_eq-canonicalising constructors, and the abstract
// semantics of every UGraph operator (docs/Rationale/SearchSpace.md).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Search/AbstractExpr.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

using namespace mirage;
using namespace mirage::search;

//===----------------------------------------------------------------------===//
// Arena
//===----------------------------------------------------------------------===//

namespace {
/// The interning hash of a node: everything its equality compares.
uint64_t hashOf(const ExprNode &n) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  mix(static_cast<uint64_t>(n.kind));
  mix(n.sym);
  mix(static_cast<uint64_t>(n.dim));
  mix(static_cast<uint64_t>(n.value));
  for (ExprId o : n.ops)
    mix(static_cast<uint64_t>(o));
  // Final avalanche: the shard is taken from the high bits and the slot
  // from the low ones.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

bool sameNode(const ExprNode &a, const ExprNode &b) {
  if (a.kind != b.kind || a.sym != b.sym || a.dim != b.dim ||
      a.value != b.value || a.ops.size() != b.ops.size())
    return false;
  for (size_t i = 0; i < a.ops.size(); ++i)
    if (a.ops[i] != b.ops[i])
      return false;
  return true;
}
} // namespace

/// One shard of the interning table: open addressing over (hash, id)
/// slots; a slot's node is read from the arena itself (no second copy of
/// the key, no allocation per entry). Guarded by `mutex`.
struct ExprArena::Shard {
  struct Slot {
    uint64_t hash = 0;
    ExprId id = -1; // -1: empty
  };
  std::mutex mutex;
  std::vector<Slot> slots = std::vector<Slot>(64);
  size_t used = 0;

  /// Doubles the table (load factor stays at most one half).
  void grow() {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    const size_t mask = slots.size() - 1;
    for (const Slot &s : old)
      if (s.id >= 0) {
        size_t i = s.hash & mask;
        while (slots[i].id >= 0)
          i = (i + 1) & mask;
        slots[i] = s;
      }
  }
};

ExprArena::ExprArena()
    : chunks(new std::atomic<ExprNode *>[kMaxChunks]), shards(new Shard[kShards]) {
  for (int i = 0; i < kMaxChunks; ++i)
    chunks[i].store(nullptr, std::memory_order_relaxed);
  ExprNode one;
  one.kind = ExprKind::One;
  oneId = intern(one);
  ExprNode unk;
  unk.kind = ExprKind::Unknown;
  unknownId = intern(unk);
}

ExprArena::~ExprArena() {
  for (int i = 0; i < kMaxChunks; ++i)
    delete[] chunks[i].load(std::memory_order_relaxed);
}

const ExprNode &ExprArena::node(ExprId id) const {
  assert(id >= 0 && id < (ExprId)size() && "invalid ExprId");
  ExprNode *chunk = chunks[id >> kChunkBits].load(std::memory_order_acquire);
  return chunk[id & ((1 << kChunkBits) - 1)];
}

ExprId ExprArena::intern(ExprNode n) {
  const uint64_t hash = hashOf(n);
  // The shard from the high bits, the slot from the low ones.
  Shard &shard = shards[(hash >> 56) % kShards];
  std::lock_guard<std::mutex> lock(shard.mutex);
  size_t mask = shard.slots.size() - 1;
  size_t i = hash & mask;
  for (; shard.slots[i].id >= 0; i = (i + 1) & mask)
    if (shard.slots[i].hash == hash && sameNode(node(shard.slots[i].id), n))
      return shard.slots[i].id;
  // Reserve a slot; the node is written before its id is published through
  // the shard table (under the shard lock) or returned.
  int32_t id = next.fetch_add(1, std::memory_order_acq_rel);
  int chunkIdx = id >> kChunkBits;
  assert(chunkIdx < kMaxChunks && "expression arena full");
  ExprNode *chunk = chunks[chunkIdx].load(std::memory_order_acquire);
  if (!chunk) {
    std::lock_guard<std::mutex> clock(chunkMutex);
    chunk = chunks[chunkIdx].load(std::memory_order_acquire);
    if (!chunk) {
      chunk = new ExprNode[1 << kChunkBits];
      chunks[chunkIdx].store(chunk, std::memory_order_release);
    }
  }
  chunk[id & ((1 << kChunkBits) - 1)] = std::move(n);
  shard.slots[i] = {hash, id};
  if (2 * ++shard.used > shard.slots.size())
    shard.grow();
  return id;
}

ExprId ExprArena::var(int64_t index) {
  ExprNode n;
  n.kind = ExprKind::Var;
  n.value = index;
  return intern(std::move(n));
}

ExprId ExprArena::one() { return oneId; }
ExprId ExprArena::unknown() { return unknownId; }

namespace {
/// Applies `f` through concatenations: a concat of parts maps part-wise; two
/// concats must agree on dim and split. Returns -1 when neither operand is a
/// concat (the caller builds the term itself).
ExprId liftCat(ExprArena &A, ExprId a, ExprId b,
               const std::function<ExprId(ExprId, ExprId)> &f) {
  const ExprNode &na = A.node(a);
  bool ca = na.kind == ExprKind::Cat;
  bool cb = b >= 0 && A.node(b).kind == ExprKind::Cat;
  if (!ca && !cb)
    return -1;
  if (ca && cb) {
    const ExprNode &nb = A.node(b);
    if (na.dim != nb.dim || na.value != nb.value)
      return A.unknown();
    return A.cat(f(na.ops[0], nb.ops[0]), f(na.ops[1], nb.ops[1]), na.dim,
                 na.value);
  }
  if (ca)
    return A.cat(f(na.ops[0], b), f(na.ops[1], b), na.dim, na.value);
  const ExprNode &nb = A.node(b);
  return A.cat(f(a, nb.ops[0]), f(a, nb.ops[1]), nb.dim, nb.value);
}
} // namespace

ExprId ExprArena::add(ExprId a, ExprId b) { return add({a, b}); }
ExprId ExprArena::mul(ExprId a, ExprId b) { return mul({a, b}); }

namespace {
/// The shared first steps of the associative-commutative constructors (add,
/// mul): Unknown absorbs, a concat operand lifts the operation over its
/// parts, and nested nodes of the same kind are flattened (dropping `unit`
/// operands). Returns the finished term, or -1 with `flat` filled.
ExprId prepareAC(ExprArena &A, ExprKind kind, llvm::ArrayRef<ExprId> xs,
                 std::optional<ExprKind> unit,
                 ExprId (ExprArena::*nary)(llvm::ArrayRef<ExprId>),
                 llvm::SmallVectorImpl<ExprId> &flat) {
  for (ExprId x : xs)
    if (A.kind(x) == ExprKind::Unknown)
      return A.unknown();
  for (size_t i = 0; i < xs.size(); ++i)
    if (A.kind(xs[i]) == ExprKind::Cat) {
      // Fold the others into one operand, then lift.
      llvm::SmallVector<ExprId, 4> rest;
      for (size_t j = 0; j < xs.size(); ++j)
        if (j != i)
          rest.push_back(xs[j]);
      if (rest.empty())
        return xs[i];
      ExprId r = (A.*nary)(rest);
      return liftCat(A, xs[i], r, [&](ExprId p, ExprId q) {
        return (A.*nary)(llvm::ArrayRef<ExprId>{p, q});
      });
    }
  for (ExprId x : xs) {
    const ExprNode &n = A.node(x);
    if (n.kind == kind)
      flat.append(n.ops.begin(), n.ops.end());
    else if (!unit || n.kind != *unit)
      flat.push_back(x);
  }
  return -1;
}
} // namespace

ExprId ExprArena::add(llvm::ArrayRef<ExprId> xs) {
  assert(!xs.empty());
  llvm::SmallVector<ExprId, 4> flat;
  if (ExprId done = prepareAC(*this, ExprKind::Add, xs, std::nullopt,
                              &ExprArena::add, flat);
      done >= 0)
    return done;
  if (flat.size() == 1)
    return flat[0];
  std::sort(flat.begin(), flat.end());
  ExprNode n;
  n.kind = ExprKind::Add;
  n.ops.assign(flat.begin(), flat.end());
  return intern(std::move(n));
}

ExprId ExprArena::mul(llvm::ArrayRef<ExprId> xs) {
  if (xs.empty())
    return one();
  llvm::SmallVector<ExprId, 4> flat;
  if (ExprId done = prepareAC(*this, ExprKind::Mul, xs, ExprKind::One,
                              &ExprArena::mul, flat);
      done >= 0)
    return done;
  // Axiom 12: sum(i, x)·y = sum(i, x·y); pull sums out of products.
  for (size_t i = 0; i < flat.size(); ++i) {
    const ExprNode &n = node(flat[i]);
    if (n.kind == ExprKind::Sum) {
      int64_t deg = n.value;
      llvm::SmallVector<ExprId, 4> inner(flat.begin(), flat.end());
      inner[i] = n.ops[0];
      return sum(deg, mul(inner));
    }
  }
  // Axiom 7: x·(y/z) = (x·y)/z; pull divisions out of products.
  for (size_t i = 0; i < flat.size(); ++i) {
    const ExprNode &n = node(flat[i]);
    if (n.kind == ExprKind::Div) {
      ExprId den = n.ops[1];
      llvm::SmallVector<ExprId, 4> inner(flat.begin(), flat.end());
      inner[i] = n.ops[0];
      return div(mul(inner), den);
    }
  }
  if (flat.empty())
    return one();
  if (flat.size() == 1)
    return flat[0];
  std::sort(flat.begin(), flat.end());
  ExprNode n;
  n.kind = ExprKind::Mul;
  n.ops.assign(flat.begin(), flat.end());
  return intern(std::move(n));
}

ExprId ExprArena::div(ExprId num, ExprId den) {
  if (kind(num) == ExprKind::Unknown || kind(den) == ExprKind::Unknown)
    return unknown();
  if (ExprId r = liftCat(*this, num, den,
                         [&](ExprId p, ExprId q) { return div(p, q); });
      r >= 0)
    return r;
  if (kind(den) == ExprKind::One)
    return num;
  // Axiom 8: (x/y)/z = x/(y·z).
  const ExprNode &nn = node(num);
  if (nn.kind == ExprKind::Div) {
    ExprId x = nn.ops[0], y = nn.ops[1];
    return div(x, mul(y, den));
  }
  ExprNode n;
  n.kind = ExprKind::Div;
  n.ops = {num, den};
  return intern(std::move(n));
}

namespace {
ExprId unaryNode(ExprArena &A, ExprKind k, uint8_t sym, ExprId x,
                 const std::function<ExprId(ExprId)> &self,
                 const std::function<ExprId(ExprNode)> &intern) {
  if (A.kind(x) == ExprKind::Unknown)
    return A.unknown();
  const ExprNode &n = A.node(x);
  if (n.kind == ExprKind::Cat)
    return A.cat(self(n.ops[0]), self(n.ops[1]), n.dim, n.value);
  ExprNode r;
  r.kind = k;
  r.sym = sym;
  r.ops = {x};
  return intern(std::move(r));
}
} // namespace

ExprId ExprArena::exp(ExprId x) {
  return unaryNode(*this, ExprKind::Exp, 0, x,
                   [&](ExprId y) { return exp(y); },
                   [&](ExprNode n) { return intern(std::move(n)); });
}

ExprId ExprArena::sqrt(ExprId x) {
  return unaryNode(*this, ExprKind::Sqrt, 0, x,
                   [&](ExprId y) { return sqrt(y); },
                   [&](ExprNode n) { return intern(std::move(n)); });
}

ExprId ExprArena::fn1(Fn1Kind k, ExprId x) {
  return unaryNode(*this, ExprKind::Fn1, static_cast<uint8_t>(k), x,
                   [&](ExprId y) { return fn1(k, y); },
                   [&](ExprNode n) { return intern(std::move(n)); });
}

ExprId ExprArena::fn2(Fn2Kind k, ExprId a, ExprId b) {
  if (kind(a) == ExprKind::Unknown || kind(b) == ExprKind::Unknown)
    return unknown();
  if (ExprId r = liftCat(*this, a, b,
                         [&](ExprId p, ExprId q) { return fn2(k, p, q); });
      r >= 0)
    return r;
  if (k == Fn2Kind::Max && b < a)
    std::swap(a, b); // max is commutative
  ExprNode n;
  n.kind = ExprKind::Fn2;
  n.sym = static_cast<uint8_t>(k);
  n.ops = {a, b};
  return intern(std::move(n));
}

ExprId ExprArena::sum(int64_t degree, ExprId x) {
  assert(degree >= 1 && "a sum has at least one term");
  const ExprNode &n = node(x);
  switch (n.kind) {
  case ExprKind::Unknown:
    return x;
  case ExprKind::Cat: // a sum over another dim: part-wise
    return cat(sum(degree, n.ops[0]), sum(degree, n.ops[1]), n.dim, n.value);
  case ExprKind::Var:
  case ExprKind::One:
  case ExprKind::Add:
  case ExprKind::Mul:
  case ExprKind::Div:
  case ExprKind::Exp:
  case ExprKind::Sqrt:
  case ExprKind::Sum:
  case ExprKind::Fn1:
  case ExprKind::Fn2:
    break;
  }
  if (degree == 1) // axiom 9
    return x;
  switch (n.kind) {
  case ExprKind::Sum: { // axiom 10
    int64_t d = n.value;
    ExprId y = n.ops[0];
    if (d > (int64_t(1) << 50) / degree)
      return unknown(); // absurd degree; never prune
    return sum(degree * d, y);
  }
  case ExprKind::Div: { // axiom 13
    ExprId a = n.ops[0], b = n.ops[1];
    return div(sum(degree, a), b);
  }
  case ExprKind::Add: { // axiom 11
    llvm::SmallVector<ExprId, 4> ops(n.ops.begin(), n.ops.end());
    for (ExprId &o : ops)
      o = sum(degree, o);
    return add(ops);
  }
  case ExprKind::Var:
  case ExprKind::One:
  case ExprKind::Mul:
  case ExprKind::Exp:
  case ExprKind::Sqrt:
  case ExprKind::Fn1:
  case ExprKind::Fn2:
  case ExprKind::Cat:
  case ExprKind::Unknown:
    break; // no axiom: sum(degree, x) stays a node
  }
  ExprNode r;
  r.kind = ExprKind::Sum;
  r.value = degree;
  r.ops = {x};
  return intern(std::move(r));
}

ExprId ExprArena::cat(ExprId a, ExprId b, int32_t dim, int64_t split) {
  if (kind(a) == ExprKind::Unknown || kind(b) == ExprKind::Unknown)
    return unknown();
  ExprNode n;
  n.kind = ExprKind::Cat;
  n.dim = dim;
  n.value = split;
  n.ops = {a, b};
  return intern(std::move(n));
}

bool ExprArena::containsUnknown(ExprId id) const {
  const ExprNode &n = node(id);
  if (n.kind == ExprKind::Unknown)
    return true;
  for (ExprId o : n.ops)
    if (containsUnknown(o))
      return true;
  return false;
}

static const char *fn1Name(Fn1Kind k) {
  switch (k) {
  case Fn1Kind::Sigmoid:
    return "sigmoid";
  case Fn1Kind::Tanh:
    return "tanh";
  case Fn1Kind::Gelu:
    return "gelu";
  case Fn1Kind::Relu:
    return "relu";
  case Fn1Kind::ReduceMax:
    return "rmax";
  case Fn1Kind::Erf:
    return "erf";
  }
  return "?";
}

std::string ExprArena::toString(ExprId id) const {
  const ExprNode &n = node(id);
  auto args = [&](std::string head) {
    std::string s = head + "(";
    for (size_t i = 0; i < n.ops.size(); ++i) {
      if (i)
        s += ", ";
      s += toString(n.ops[i]);
    }
    return s + ")";
  };
  switch (n.kind) {
  case ExprKind::Var:
    return "v" + std::to_string(n.value);
  case ExprKind::One:
    return "1";
  case ExprKind::Unknown:
    return "?";
  case ExprKind::Add:
    return args("add");
  case ExprKind::Mul:
    return args("mul");
  case ExprKind::Div:
    return args("div");
  case ExprKind::Exp:
    return args("exp");
  case ExprKind::Sqrt:
    return args("sqrt");
  case ExprKind::Sum:
    return "sum(" + std::to_string(n.value) + ", " + toString(n.ops[0]) + ")";
  case ExprKind::Fn1:
    return args(fn1Name(static_cast<Fn1Kind>(n.sym)));
  case ExprKind::Fn2:
    return args(static_cast<Fn2Kind>(n.sym) == Fn2Kind::Pow ? "pow" : "max");
  case ExprKind::Cat:
    return "cat" + std::to_string(n.dim) + "@" + std::to_string(n.value) + "(" +
           toString(n.ops[0]) + ", " + toString(n.ops[1]) + ")";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Abstract semantics of UGraph operators
//===----------------------------------------------------------------------===//

namespace {

/// Reduction of `x` along `dim` (extent n) to `size`: each result element
/// combines n/size terms. A concat along `dim` splits into its two parts when
/// both parts' extents are multiples of `size` (the strided chunks then stay
/// within parts); otherwise the value has no sound expression.
ExprId reduceAlong(ExprArena &A, bool isMax, ExprId x, int64_t dim, int64_t n,
                   int64_t size, int64_t extraDegree = 1) {
  const ExprNode &nx = A.node(x);
  if (nx.kind == ExprKind::Cat && nx.dim == dim) {
    int64_t s1 = nx.value, s2 = n - nx.value;
    if (size <= 0 || s1 % size || s2 % size)
      return A.unknown();
    ExprId a = nx.ops[0], b = nx.ops[1];
    ExprId ra = reduceAlong(A, isMax, a, dim, s1, size, extraDegree);
    ExprId rb = reduceAlong(A, isMax, b, dim, s2, size, extraDegree);
    return isMax ? A.fn2(Fn2Kind::Max, ra, rb) : A.add(ra, rb);
  }
  int64_t chunks = (size > 0 ? n / size : n) * extraDegree;
  if (isMax)
    return chunks == 1 ? x : A.fn1(Fn1Kind::ReduceMax, x);
  return A.sum(chunks, x);
}

ExprId unaryExpr(ExprArena &A, UnaryKind k, ExprId x) {
  switch (k) {
  case UnaryKind::exp:
    return A.exp(x);
  case UnaryKind::square:
    return A.mul(x, x);
  case UnaryKind::sqrt:
    return A.sqrt(x);
  case UnaryKind::rsqrt:
    return A.div(A.one(), A.sqrt(x));
  case UnaryKind::reciprocal:
    return A.div(A.one(), x);
  case UnaryKind::silu:
    return A.mul(x, A.fn1(Fn1Kind::Sigmoid, x));
  case UnaryKind::gelu:
    return A.fn1(Fn1Kind::Gelu, x);
  case UnaryKind::relu:
    return A.fn1(Fn1Kind::Relu, x);
  case UnaryKind::sigmoid:
    return A.fn1(Fn1Kind::Sigmoid, x);
  case UnaryKind::tanh:
    return A.fn1(Fn1Kind::Tanh, x);
  case UnaryKind::erf:
    return A.fn1(Fn1Kind::Erf, x);
  case UnaryKind::mul_scalar:
  case UnaryKind::add_scalar:
    // Constants are dropped (see SearchSpace.md: erasing constants commutes
    // with every operator, so Theorem 1 still holds).
    return x;
  }
  return A.unknown();
}

ExprId binaryExpr(ExprArena &A, BinaryKind k, ExprId a, ExprId b) {
  switch (k) {
  case BinaryKind::add:
  case BinaryKind::sub: // sign is a constant factor: dropped
    return A.add(a, b);
  case BinaryKind::mul:
    return A.mul(a, b);
  case BinaryKind::div:
    return A.div(a, b);
  case BinaryKind::pow:
    return A.fn2(Fn2Kind::Pow, a, b);
  }
  return A.unknown();
}

ExprId matmulExpr(ExprArena &A, const Shape &sa, const Shape &sb, ExprId a,
                  ExprId b) {
  int64_t r = sa.size();
  int64_t k = sa[r - 1];
  const ExprNode &na = A.node(a);
  const ExprNode &nb = A.node(b);
  bool lhsSplit = na.kind == ExprKind::Cat && na.dim == r - 1;
  bool rhsSplit = nb.kind == ExprKind::Cat && nb.dim == r - 2;
  if (lhsSplit || rhsSplit) {
    // Concat-then-matmul (paper §8.1): (A1‖A2)×(B1;B2) = A1×B1 + A2×B2.
    int64_t split = lhsSplit ? na.value : nb.value;
    if (lhsSplit && rhsSplit && na.value != nb.value)
      return A.unknown();
    ExprId a1 = lhsSplit ? na.ops[0] : a, a2 = lhsSplit ? na.ops[1] : a;
    ExprId b1 = rhsSplit ? nb.ops[0] : b, b2 = rhsSplit ? nb.ops[1] : b;
    ExprId p1 = A.sum(split, A.mul(a1, b1));
    ExprId p2 = A.sum(k - split, A.mul(a2, b2));
    return A.add(p1, p2);
  }
  // Concats along other dims map part-wise (mul lifts them).
  return A.sum(k, A.mul(a, b));
}

ExprId rmsNormExpr(ExprArena &A, const Shape &sx, ExprId x, ExprId w) {
  int64_t r = sx.size();
  const ExprNode &nx = A.node(x);
  if (nx.kind == ExprKind::Cat && nx.dim == r - 1)
    return A.unknown(); // the norm mixes both parts
  ExprId n = A.div(x, A.sqrt(A.sum(sx[r - 1], A.mul(x, x))));
  return w >= 0 ? A.mul(n, w) : n;
}

void runGraph(ExprArena &A, const UGraph &g, llvm::ArrayRef<ExprId> inputs,
              std::vector<ExprId> &vals, std::vector<ExprId> *nested);

llvm::SmallVector<ExprId, 2> applyOpImpl(ExprArena &A, const UGraph &g,
                                         const UOp &op,
                                         llvm::ArrayRef<ExprId> exprs,
                                         std::vector<ExprId> *nested) {
  auto in = [&](unsigned i) { return exprs[op.operands[i]]; };
  auto shape = [&](unsigned i) -> const Shape & {
    return g.values[op.operands[i]].shape;
  };
  switch (op.kind) {
  case OpKind::Matmul:
    return {matmulExpr(A, shape(0), shape(1), in(0), in(1))};
  case OpKind::Unary:
    return {unaryExpr(A, op.unaryKind(), in(0))};
  case OpKind::Binary:
    return {binaryExpr(A, op.binaryKind(), in(0), in(1))};
  case OpKind::Reduce:
    return {reduceAlong(A, op.reduceKind() == ReduceKind::max, in(0), op.dim,
                        shape(0)[op.dim], op.size)};
  case OpKind::RmsNorm:
    return {rmsNormExpr(A, shape(0), in(0),
                        op.operands.size() > 1 ? in(1) : -1)};
  case OpKind::Concat:
    return {A.cat(in(0), in(1), op.dim, shape(0)[op.dim])};
  case OpKind::InputIterator:
  case OpKind::OutputSaver:
    return {in(0)};
  case OpKind::RunningMax: // online softmax's state: not modelled, as the
                           // rescaled accumulator it feeds
    return {A.unknown(), A.unknown()};
  case OpKind::Accum: {
    if (op.operands.size() > 1)
      return {A.unknown()}; // rescaled (online-softmax) form: not modelled
    int64_t F = g.forloopRange;
    const Shape &s = shape(0);
    int64_t last = s.size() - 1;
    int64_t size = op.size == 0 ? 1 : op.size;
    switch (op.accumKind()) {
    case AccumKind::sum:
      return {A.sum(F, in(0))};
    case AccumKind::max:
      return {F == 1 ? in(0) : A.fn1(Fn1Kind::ReduceMax, in(0))};
    case AccumKind::sum_last:
    case AccumKind::mean_last: // the division by the count is a constant
      return {reduceAlong(A, false, in(0), last, s[last], size, F)};
    case AccumKind::rms_last: // the count and eps are constants, as in
                              // rmsNormExpr
      return {A.sqrt(
          reduceAlong(A, false, A.mul(in(0), in(0)), last, s[last], size, F))};
    }
    return {A.unknown()};
  }
  case OpKind::ThreadGraph:
  case OpKind::Custom: {
    const UGraph &body = g.bodies[op.body];
    llvm::SmallVector<ExprId, 4> ins;
    for (int32_t v : op.operands)
      ins.push_back(exprs[v]);
    std::vector<ExprId> vals;
    runGraph(A, body, ins, vals, nested);
    llvm::SmallVector<ExprId, 2> outs;
    for (int32_t o : body.outputs)
      outs.push_back(vals[o]);
    return outs;
  }
  }
  return {A.unknown()};
}

void runGraph(ExprArena &A, const UGraph &g, llvm::ArrayRef<ExprId> inputs,
              std::vector<ExprId> &vals, std::vector<ExprId> *nested) {
  vals.assign(g.values.size(), A.unknown());
  for (size_t i = 0; i < g.inputs.size(); ++i)
    vals[g.inputs[i]] = i < inputs.size() ? inputs[i] : A.var(i);
  for (const UOp &op : g.ops) {
    llvm::SmallVector<ExprId, 2> rs = applyOpImpl(A, g, op, vals, nested);
    for (size_t i = 0; i < op.results.size() && i < rs.size(); ++i)
      vals[op.results[i]] = rs[i];
  }
  if (nested)
    nested->insert(nested->end(), vals.begin(), vals.end());
}

} // namespace

llvm::SmallVector<ExprId, 2> mirage::search::applyOp(
    ExprArena &arena, const UGraph &g, const UOp &op,
    llvm::ArrayRef<ExprId> exprs) {
  return applyOpImpl(arena, g, op, exprs, nullptr);
}

std::vector<ExprId> mirage::search::abstractExprs(const UGraph &g,
                                                  ExprArena &arena,
                                                  llvm::ArrayRef<ExprId> inputs) {
  std::vector<ExprId> vals;
  runGraph(arena, g, inputs, vals, nullptr);
  return vals;
}

std::vector<ExprId> mirage::search::abstractExprsDeep(
    const UGraph &g, ExprArena &arena, llvm::ArrayRef<ExprId> inputs,
    std::vector<ExprId> &nested) {
  std::vector<ExprId> vals;
  runGraph(arena, g, inputs, vals, nullptr);
  // Re-run the nested graphs, collecting their values.
  for (const UOp &op : g.ops)
    if (op.kind == OpKind::Custom || op.kind == OpKind::ThreadGraph)
      applyOpImpl(arena, g, op, vals, &nested);
  return vals;
}
