//===- CanonicalHash.h - Canonical 128-bit hash of a μGraph -----*- C++ -*-===//
//
// A hash of a UGraph's structure that is the same for two graphs with the
// same structure however their values are numbered or their independent ops
// are ordered, and that is stable across runs, builds and platforms (no
// std::hash, no pointers, explicit little-endian encoding, xxh3-128). It
// keys the search's result cache (with the target and the search options)
// and can deduplicate candidates.
//
// What is hashed: the level; the grid and for-loop range (block graphs); the
// target (normalised: empty means the default target); the inputs in order
// (shape, dtype); every op (kind, sub-kind, the attributes that kind uses,
// operands by canonical position, result shapes and dtypes, nested graphs
// by their own canonical hash); the outputs in order. Not hashed: the
// graph's `name` and `reference` (labels), the `error` string, attributes an
// op kind does not use (e.g. `scalar` of a binary op).
//
// Canonical order: each value gets a Merkle hash of the computation that
// produces it; ops are then emitted in a topological order that breaks ties
// by that hash, and operands are encoded by their position in that order.
// Two structurally identical graphs therefore encode identically. (Graphs
// with two identical sub-computations that are consumed asymmetrically may
// still hash differently under different op orders; that is a missed
// duplicate, never a collision.)
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_CANONICALHASH_H
#define MIRAGE_SEARCH_CANONICALHASH_H

#include "Mirage/Semantics/UGraph.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mirage {

struct Hash128 {
  uint64_t hi = 0, lo = 0;
  bool operator==(const Hash128 &o) const { return hi == o.hi && lo == o.lo; }
  bool operator!=(const Hash128 &o) const { return !(*this == o); }
  bool operator<(const Hash128 &o) const {
    return hi != o.hi ? hi < o.hi : lo < o.lo;
  }
  /// 32 lower-case hex digits, `hi` first.
  std::string toHex() const;
  /// Parses toHex()'s form; false if `s` is not 32 hex digits.
  static bool fromHex(llvm::StringRef s, Hash128 &out);
};

/// Version of the canonical encoding; part of every hash, bumped whenever
/// the encoding changes so old cache entries can never match.
constexpr uint32_t kCanonicalHashVersion = 1;

/// The canonical hash of `g` (any level; nested graphs included).
Hash128 canonicalHash(const UGraph &g);

/// The result-cache key: the graph's canonical hash combined with the target
/// name (empty means the default target) and a string of the search options
/// that can change the result (the caller's canonical rendering, e.g.
/// "max_kernel_ops=5;max_block_ops=11"). Stable like canonicalHash.
Hash128 cacheKeyHash(const Hash128 &graph, llvm::StringRef target,
                     llvm::StringRef searchOptions);
/// cacheKeyHash(canonicalHash(g), ...).toHex().
std::string cacheKey(const UGraph &g, llvm::StringRef target,
                     llvm::StringRef searchOptions);

} // namespace mirage

#endif // MIRAGE_SEARCH_CANONICALHASH_H
