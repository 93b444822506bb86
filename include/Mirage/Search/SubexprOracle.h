//===- SubexprOracle.h - subexpr(E, E_O) under A_eq ∪ A_sub -----*- C++ -*-===//
//
// Decides the pruning test of the search (Mirage §4.2): is the abstract
// expression E of a new value a subexpression of the reference output's
// expression E_O under the axioms A_eq ∪ A_sub (paper Table 2)? A prefix is
// pruned only when the answer is a definite No; Unknown always keeps it.
//
// Each query runs three stages, cheapest first (docs/Rationale/
// SearchSpace.md):
//   1. a structural prover: sound derivations modulo the canonical forms of
//      ExprArena (sub-multisets of add/mul, sum degrees that divide,
//      factors of denominators, ...) -> Yes;
//   2. model refutation: a fixed interpretation of the term algebra that
//      satisfies every axiom of A_eq ∪ A_sub (per-input polynomial degree,
//      per-prime exponent of the summed-term count, per-symbol nesting); if
//      E is not below E_O in it, the axioms cannot entail subexpr -> No;
//   3. Z3 on the quantified axioms (Mirage's §3.4 encoding, degrees as
//      integers with a divisibility lemma), with a resource limit:
//      unsat(¬subexpr) -> Yes, sat -> No, unknown or limit -> Unknown.
// Answers are cached per (E, E_O) pair; the oracle is thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_SUBEXPRORACLE_H
#define MIRAGE_SEARCH_SUBEXPRORACLE_H

#include "Mirage/Search/AbstractExpr.h"
#include "Mirage/Search/SearchDefaults.h"

#include <atomic>
#include <memory>

namespace mirage::search {

enum class SubexprAnswer : uint8_t { Yes, No, Unknown };
const char *subexprAnswerName(SubexprAnswer a);

struct SubexprOracleOptions {
  /// Run stage 3 (Z3) when stages 1-2 do not decide.
  bool useZ3 = true;
  /// Z3 resource limit per query (deterministic) and wall-clock cap (ms).
  unsigned z3ResourceLimit = 40000;
  unsigned z3TimeoutMs = 100;
  /// Use the model refutation of stage 2 (disable only to test Z3 alone).
  bool useModels = true;
  /// Use the structural prover of stage 1.
  bool useStructural = true;
  /// Stage 2 also refutes by exp nesting depth (a model of its own, in
  /// which exp is not forced to infinity; off only for ablation).
  bool useExpDepth = defaults::kPruneExpDepth;
};

struct SubexprOracleStats {
  uint64_t queries = 0, cacheHits = 0;
  uint64_t structuralYes = 0, modelNo = 0;
  uint64_t z3Yes = 0, z3No = 0, z3Unknown = 0;
  uint64_t unknownExpr = 0; // E contained an Unknown node
  double z3Seconds = 0, totalSeconds = 0;
  double hitRate() const { return queries ? double(cacheHits) / queries : 0; }
};

class SubexprOracle {
public:
  explicit SubexprOracle(const ExprArena &arena,
                         SubexprOracleOptions opts = {});
  ~SubexprOracle();

  /// subexpr(e, target). A concat is a subexpression when both parts are;
  /// an expression containing Unknown is Unknown.
  SubexprAnswer query(ExprId e, ExprId target);
  /// The pruning decision: false only when `e` is definitely not a
  /// subexpression of any of `targets` (the reference's outputs).
  bool keep(ExprId e, llvm::ArrayRef<ExprId> targets);

  SubexprOracleStats stats() const;
  const SubexprOracleOptions &options() const { return opts; }

  /// Stage functions, exposed for tests.
  bool structurallyBelow(ExprId e, ExprId target) const;
  bool modelRefutes(ExprId e, ExprId target);
  SubexprAnswer z3Query(ExprId e, ExprId target);

private:
  struct Impl;
  const ExprArena &arena;
  SubexprOracleOptions opts;
  std::unique_ptr<Impl> impl;
  SubexprAnswer decide(ExprId e, ExprId target);
};

} // namespace mirage::search

#endif // MIRAGE_SEARCH_SUBEXPRORACLE_H
