//===- MemoryLimit.cpp - What an evaluation may hold in memory ------------===//
#include "Mirage/Semantics/MemoryLimit.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"

#include "llvm/Support/FormatVariadic.h"

#include <unistd.h>

using namespace mirage;

uint64_t mirage::defaultMemoryLimitBytes() {
  static const uint64_t limit = [] {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0)
      return (uint64_t)pages * (uint64_t)size / 2;
#endif
    return uint64_t(8) << 30;
  }();
  return limit;
}

uint64_t mirage::float64RunBytes(llvm::ArrayRef<const UGraph *> graphs) {
  if (graphs.empty())
    return 0;
  uint64_t elements = 0;
  const UGraph &first = *graphs.front();
  for (int32_t v : first.inputs)
    elements += numElements(first.values[v].shape);
  for (const UGraph *g : graphs)
    elements += Evaluator<Float64Semantics>::storedElementsBound(*g, {});
  return elements * sizeof(double);
}

std::string mirage::memoryOverLimit(uint64_t bytes, llvm::StringRef what,
                                    uint64_t limit) {
  if (!limit)
    limit = defaultMemoryLimitBytes();
  if (bytes <= limit)
    return "";
  return llvm::formatv("would hold {0:F1} GiB of {1}, over the limit of "
                       "{2:F1} GiB",
                       bytes / 1073741824.0, what, limit / 1073741824.0)
      .str();
}
