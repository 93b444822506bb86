//===- Mutation.h - Single-change mutants of a μGraph -----------*- C++ -*-===//
//
// A mutation generator for testing the verifier: it replays a graph's ops
// through the UGraph builders with exactly one change (another imap, omap or
// fmap, another for-loop range or grid, swapped operands, another operand of
// the same shape, another operator or reduction dim, another accumulator
// kind or no rescale, a changed constant, ...). Mutants the builders reject
// or that change the graph's signature are skipped. Some mutants are
// equivalent to the original (e.g. another for-loop range of a plain sum);
// callers classify them with an independent oracle.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_MUTATION_H
#define MIRAGE_ANALYSIS_MUTATION_H

#include "Mirage/Semantics/UGraph.h"

#include <string>
#include <vector>

namespace mirage {

struct Mutant {
  UGraph graph;
  std::string description;
};

/// All valid single-change mutants of the kernel graph `g` (at most `limit`).
std::vector<Mutant> generateMutants(const UGraph &g, size_t limit = 100000);

} // namespace mirage

#endif // MIRAGE_ANALYSIS_MUTATION_H
