//===- MemoryLimit.h - What an evaluation may hold in memory ----*- C++ -*-===//
//
// The one memory budget of the evaluators and the verifier: a run whose
// stored values would exceed it is refused with a diagnostic before anything
// is allocated, instead of aborting in the allocator (std::length_error,
// std::bad_alloc) or being killed by the system. Tensor sizes themselves are
// bounded by kMaxTensorElements (ShapeRules.h), so the byte counts below
// cannot overflow.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_MEMORYLIMIT_H
#define MIRAGE_SEMANTICS_MEMORYLIMIT_H

#include "Mirage/Semantics/UGraph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mirage {

/// The memory budget of one evaluation and where it comes from. It is the
/// smallest of: half the physical memory (8 GiB where unknown); half of
/// what the address-space limit (RLIMIT_AS, `ulimit -v`) leaves after the
/// process's size at the first call; half the data-segment limit
/// (RLIMIT_DATA, `ulimit -d`); half the cgroup v2 memory.max. Computed once
/// per process; `source` names the one that decided, for diagnostics.
struct MemoryBudget {
  uint64_t bytes;
  std::string source; // e.g. "half the physical memory"
};
const MemoryBudget &memoryBudget();

/// memoryBudget().bytes.
uint64_t defaultMemoryLimitBytes();

/// The bytes that float64 runs of `graphs`, one after the other on one set
/// of stored random inputs (RandomInputs.h), hold at most at once: the
/// inputs, the live values of the graph running (each released after its
/// last reader, Evaluator::storedElements) and the outputs of the graphs
/// before it (kept until all graphs ran, for the comparison).
uint64_t float64RunBytes(llvm::ArrayRef<const UGraph *> graphs);

/// The same for runs on counter-based inputs (CounterInputs.h: the float64
/// cross-check and the dtype check): inputs over kStoredInputElements are
/// generated where they are read and count only where an operator reads
/// them whole.
uint64_t float64CheckBytes(llvm::ArrayRef<const UGraph *> graphs);

/// "" when `bytes` fit in `limit` (0: defaultMemoryLimitBytes()), else
/// "would hold <x> GiB of <what>, over the limit of <y> GiB", followed by
/// " (<source>)" for the default budget, for a diagnostic that names the
/// run first.
std::string memoryOverLimit(uint64_t bytes, llvm::StringRef what,
                            uint64_t limit = 0);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_MEMORYLIMIT_H
