//===- AbstractPrune.h - Abstract-expression pruning for the search -*- C++ -*-===//
//
// Connects the fused-kernel search (FusionSearch.h) to the abstract
// expressions (AbstractExpr.h) and the subexpression oracle
// (SubexprOracle.h): a block-graph prefix is kept unless the expression of
// its newest value is definitely not a subexpression of a reference output's
// expression. Theorem 1 of the paper: a graph equivalent to the reference
// whose expression equals the reference's under the axioms is never pruned.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_ABSTRACTPRUNE_H
#define MIRAGE_SEARCH_ABSTRACTPRUNE_H

#include "Mirage/Search/FusionSearch.h"
#include "Mirage/Search/SubexprOracle.h"

namespace mirage::search {

/// The pruning test for a probe-shaped reference; thread-safe.
PruneFactory abstractExprPruneFactory(SubexprOracleOptions opts = {});

} // namespace mirage::search

#endif // MIRAGE_SEARCH_ABSTRACTPRUNE_H
