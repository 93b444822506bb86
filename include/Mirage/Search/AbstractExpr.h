//===- AbstractExpr.h - Abstract expressions of μGraphs ---------*- C++ -*-===//
//
// Abstract expressions (Mirage, OSDI'25, §4 and Table 1): first-order terms
// over the graph inputs that keep which inputs an output combines, through
// which operators and over how many summed terms, and drop all index
// information. The search prunes a prefix whose new value's expression is not
// a subexpression of the reference output's expression (SubexprOracle.h).
//
// Terms are hash-consed in an ExprArena: equal terms have equal ExprIds, so
// ids are cache keys. Constructors apply a fixed set of A_eq rewrites, so a
// term is stored in a canonical orientation (see docs/Rationale/
// SearchSpace.md): add/mul are n-ary, flattened and sorted (axioms 1-4);
// sum(1,x)=x and sum(i,sum(j,x))=sum(i·j,x) (9, 10); sums are pulled out of
// products (12), pushed into numerators (13) and over additions (11);
// divisions are pulled out of products (7) and merged (8); `one` is the unit
// of mul. Every rewrite is an A_eq equality, so canonicalisation never
// changes the answer of the subexpression test.
//
// Two extra node kinds are not terms of the paper: Cat (a concatenation,
// kept as the pair of its parts so that a later contraction or reduction
// over the concatenated dim can split into an add of two sums, as Mirage's
// concat-then-matmul does) and Unknown (a value with no sound abstract
// expression, e.g. a rescaled accumulator; the oracle never prunes it).
//
// Thread safety: interning is sharded and lock-protected; node() reads are
// lock-free. An ExprId obtained by one thread may be used by another after
// ordinary synchronisation (e.g. a task queue).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_ABSTRACTEXPR_H
#define MIRAGE_SEARCH_ABSTRACTEXPR_H

#include "Mirage/Semantics/UGraph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace mirage::search {

using ExprId = int32_t;

enum class ExprKind : uint8_t {
  Var,     // input `index`
  One,     // the constant 1 (unit of mul); every other constant is dropped
  Add,     // n-ary, sorted
  Mul,     // n-ary, sorted
  Div,     // (numerator, denominator)
  Exp,
  Sqrt,
  Sum,     // sum(degree, x): `degree` summed terms
  Fn1,     // uninterpreted unary symbol `sym` (Fn1Kind)
  Fn2,     // uninterpreted binary symbol `sym` (Fn2Kind)
  Cat,     // concatenation (a, b) along `dim`, `a` has extent `split` there
  Unknown, // no abstract expression; never pruned
};

enum class Fn1Kind : uint8_t { Sigmoid, Tanh, Gelu, Relu, ReduceMax, Erf };
constexpr int kNumFn1 = 6;
enum class Fn2Kind : uint8_t { Pow, Max };
constexpr int kNumFn2 = 2;

struct ExprNode {
  ExprKind kind = ExprKind::Unknown;
  uint8_t sym = 0;     // Fn1Kind / Fn2Kind
  int32_t dim = 0;     // Cat
  int64_t value = 0;   // Var: input index; Sum: degree; Cat: split
  llvm::SmallVector<ExprId, 2> ops;
};

class ExprArena {
public:
  ExprArena();
  ~ExprArena();
  ExprArena(const ExprArena &) = delete;
  ExprArena &operator=(const ExprArena &) = delete;

  ExprId var(int64_t index);
  ExprId one();
  ExprId unknown();
  ExprId add(ExprId a, ExprId b);
  ExprId add(llvm::ArrayRef<ExprId> xs);
  ExprId mul(ExprId a, ExprId b);
  ExprId mul(llvm::ArrayRef<ExprId> xs);
  ExprId div(ExprId num, ExprId den);
  ExprId exp(ExprId x);
  ExprId sqrt(ExprId x);
  /// sum(degree, x); degree >= 1.
  ExprId sum(int64_t degree, ExprId x);
  ExprId fn1(Fn1Kind k, ExprId x);
  ExprId fn2(Fn2Kind k, ExprId a, ExprId b);
  /// Concatenation along `dim` (absolute, of the value's rank); `split` is
  /// a's extent along `dim`.
  ExprId cat(ExprId a, ExprId b, int32_t dim, int64_t split);

  const ExprNode &node(ExprId id) const;
  ExprKind kind(ExprId id) const { return node(id).kind; }
  size_t size() const { return next.load(std::memory_order_acquire); }
  /// Whether `id` contains an Unknown node anywhere.
  bool containsUnknown(ExprId id) const;
  /// s-expression, e.g. "div(sum(64, mul(v0, v1)), sqrt(sum(64, mul(v0, v0))))".
  std::string toString(ExprId id) const;

private:
  struct Shard;
  ExprId intern(ExprNode n);

  static constexpr int kChunkBits = 12;
  static constexpr int kMaxChunks = 1 << 16;
  static constexpr int kShards = 16;
  std::unique_ptr<std::atomic<ExprNode *>[]> chunks;
  std::mutex chunkMutex;
  std::atomic<int32_t> next{0};
  std::unique_ptr<Shard[]> shards;
  ExprId oneId = -1, unknownId = -1;
};

/// The abstract expression of every value of `g` (kernel or block level;
/// nested block and thread graphs are inlined). `inputExprs` gives the graph
/// inputs' expressions in `g.inputs` order; empty means var(i) for input i.
/// Values not computed (none in a valid graph) are Unknown.
std::vector<ExprId> abstractExprs(const UGraph &g, ExprArena &arena,
                                  llvm::ArrayRef<ExprId> inputExprs = {});

/// As abstractExprs, and also appends the expressions of every value of
/// every nested graph (block values of Custom ops, thread values of thread
/// graphs) to `nested`: all values a search builds on the way to `g`.
std::vector<ExprId> abstractExprsDeep(const UGraph &g, ExprArena &arena,
                                      llvm::ArrayRef<ExprId> inputExprs,
                                      std::vector<ExprId> &nested);

/// Incremental form for a search that appends one op at a time: the
/// expressions of `op`'s results (one per result), given `exprs`, the
/// expressions of `g`'s existing values indexed by value id. `op` must be an
/// op of `g` (shapes and the for-loop range are read from `g`; Custom and
/// ThreadGraph bodies from `g.bodies`).
llvm::SmallVector<ExprId, 2> applyOp(ExprArena &arena, const UGraph &g,
                                     const UOp &op,
                                     llvm::ArrayRef<ExprId> exprs);

} // namespace mirage::search

#endif // MIRAGE_SEARCH_ABSTRACTEXPR_H
