//===- MemoryLimit.cpp - What an evaluation may hold in memory ------------===//
#include "Mirage/Semantics/MemoryLimit.h"
#include "Mirage/Semantics/CounterInputs.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <sys/resource.h>

#include <unistd.h>

using namespace mirage;

namespace {
/// A soft resource limit in bytes; 0 when unlimited or unknown.
uint64_t softLimit(int resource) {
  struct rlimit rl;
  if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return 0;
  return (uint64_t)rl.rlim_cur;
}

/// The cgroup v2 memory.max of this process's cgroup; 0 when there is none,
/// it is "max", or it cannot be read (cgroup v1 is not looked at).
uint64_t cgroupMemoryMax() {
  std::string rel;
  if (auto buf = llvm::MemoryBuffer::getFileAsStream("/proc/self/cgroup")) {
    // cgroup v2: one line "0::/path".
    llvm::SmallVector<llvm::StringRef> lines;
    (*buf)->getBuffer().split(lines, '\n');
    for (llvm::StringRef line : lines)
      if (line.consume_front("0::"))
        rel = line.trim().str();
  }
  for (std::string dir : {"/sys/fs/cgroup" + rel, std::string("/sys/fs/cgroup")}) {
    auto buf = llvm::MemoryBuffer::getFileAsStream(dir + "/memory.max");
    if (!buf)
      continue;
    uint64_t v = 0;
    if (!(*buf)->getBuffer().trim().getAsInteger(10, v))
      return v;
    return 0; // "max"
  }
  return 0;
}

/// The process's virtual size now (code, libraries, heap), which counts
/// against an address-space limit before any evaluation runs; 0 if unknown.
uint64_t currentVirtualBytes() {
  auto buf = llvm::MemoryBuffer::getFileAsStream("/proc/self/status");
  if (!buf)
    return 0;
  llvm::StringRef text = (*buf)->getBuffer();
  size_t at = text.find("VmSize:");
  if (at == llvm::StringRef::npos)
    return 0;
  llvm::StringRef rest = text.drop_front(at + 7).ltrim();
  uint64_t kb = 0;
  if (rest.take_while([](char c) { return c >= '0' && c <= '9'; })
          .getAsInteger(10, kb))
    return 0;
  return kb * 1024;
}

MemoryBudget computeBudget() {
  MemoryBudget b{uint64_t(8) << 30, "half of 16 GiB, the physical memory "
                                    "being unknown"};
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && size > 0)
    b = {(uint64_t)pages * (uint64_t)size / 2, "half the physical memory"};
#endif
  // Each limit leaves half of what is left to the rest of the process:
  // allocator arenas, thread stacks, the IR, transient buffers.
  auto consider = [&](uint64_t limit, uint64_t inUse, const char *what) {
    if (!limit)
      return;
    uint64_t half = limit > inUse ? (limit - inUse) / 2 : 0;
    if (half < b.bytes)
      b = {half, what};
  };
  uint64_t vm = currentVirtualBytes();
  consider(softLimit(RLIMIT_AS), vm,
           "half of what the address-space limit (RLIMIT_AS, ulimit -v) "
           "leaves");
  consider(softLimit(RLIMIT_DATA), 0,
           "half the data-segment limit (RLIMIT_DATA, ulimit -d)");
  consider(cgroupMemoryMax(), 0, "half the cgroup's memory.max");
  return b;
}
} // namespace

const MemoryBudget &mirage::memoryBudget() {
  static const MemoryBudget budget = computeBudget();
  return budget;
}

uint64_t mirage::defaultMemoryLimitBytes() { return memoryBudget().bytes; }

uint64_t mirage::float64RunBytes(llvm::ArrayRef<const UGraph *> graphs) {
  if (graphs.empty())
    return 0;
  uint64_t elements = 0;
  const UGraph &first = *graphs.front();
  for (int32_t v : first.inputs)
    elements += numElements(first.values[v].shape);
  elements += Evaluator<Float64Semantics>::storedElementsOfRuns(graphs, {});
  return elements * sizeof(double);
}

uint64_t mirage::float64CheckBytes(llvm::ArrayRef<const UGraph *> graphs) {
  if (graphs.empty())
    return 0;
  const UGraph &first = *graphs.front();
  llvm::SmallVector<bool, 8> gen;
  uint64_t elements = 0;
  for (int32_t v : first.inputs) {
    int64_t n = numElements(first.values[v].shape);
    gen.push_back(n > kStoredInputElements);
    if (n <= kStoredInputElements)
      elements += n;
  }
  elements += Evaluator<Float64Semantics>::storedElementsOfRuns(graphs, gen);
  return elements * sizeof(double);
}

std::string mirage::memoryOverLimit(uint64_t bytes, llvm::StringRef what,
                                    uint64_t limit) {
  bool byDefault = !limit;
  if (byDefault)
    limit = defaultMemoryLimitBytes();
  if (bytes <= limit)
    return "";
  std::string s = llvm::formatv("would hold {0:F1} GiB of {1}, over the "
                                "limit of {2:F1} GiB",
                                bytes / 1073741824.0, what,
                                limit / 1073741824.0)
                      .str();
  if (byDefault)
    s += " (" + memoryBudget().source + ")";
  return s;
}
