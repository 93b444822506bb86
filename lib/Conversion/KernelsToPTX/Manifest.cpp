//===- Manifest.cpp - The launch manifest mirage-run reads ----------------===//
#include "Manifest.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mirage;
using llvm::StringRef;

static llvm::json::Array shapeArray(llvm::ArrayRef<int64_t> s) {
  llvm::json::Array a;
  for (int64_t d : s)
    a.push_back(d);
  return a;
}

std::string mirage::writeManifest(const LaunchPlan &plan,
                                  const ManifestInfo &info) {
  llvm::json::Array buffers;
  for (const LaunchBuffer &b : plan.buffers) {
    llvm::json::Object o{{"name", b.name},
                         {"dtype", b.counters ? StringRef("i32")
                                              : elemTypeName(b.type)},
                         {"shape", shapeArray(b.shape)}};
    switch (b.role) {
    case LaunchBuffer::Role::Input:
      o["role"] = "input";
      o["input_index"] = b.position;
      break;
    case LaunchBuffer::Role::Output:
      o["role"] = "output";
      o["output_index"] = b.position;
      if (b.position < (int32_t)info.expectedFiles.size() &&
          !info.expectedFiles[b.position].empty())
        o["expected"] = info.expectedFiles[b.position];
      break;
    case LaunchBuffer::Role::Temp:
      o["role"] = "temp";
      break;
    }
    buffers.push_back(std::move(o));
  }
  llvm::json::Array kernels;
  for (const KernelLaunch &k : plan.kernels) {
    llvm::json::Array args;
    for (int32_t a : k.args)
      args.push_back(a);
    const KernelPlan &p = k.plan;
    const ManifestInfo::Estimate e = info.estimates.lookup(k.name);
    llvm::json::Array loaded;
    for (double b : e.argLoadBytes)
      loaded.push_back(b);
    // Per FMA matmul, its register micro-tile [rows, columns]
    // (FmaMicroTiles.md).
    llvm::json::Array microTiles;
    int64_t transposed = 0;
    for (const MatmulPlan &m : p.matmuls) {
      if (!m.tensorCores)
        microTiles.push_back(llvm::json::Array{m.microRows, m.microCols});
      transposed += m.transposed;
    }
    llvm::json::Object kernel{
        {"name", k.name},
        {"grid", shapeArray(k.grid)},
        {"block", llvm::json::Array{k.threads, 1, 1}},
        {"dynamic_shared_bytes", info.dynamicSharedBytes.lookup(k.name)},
        {"static_shared_bytes", info.staticSharedBytes.lookup(k.name)},
        {"args", std::move(args)},
        {"plan", llvm::json::Object{
                     {"shared_bytes", p.sharedBytes},
                     {"stages", p.stages},
                     {"matmuls", static_cast<int64_t>(p.matmuls.size())},
                     {"tensor_core_matmuls", p.tensorCoreMatmuls()},
                     // of which computed transposed (TransposedDecodeMma.md)
                     {"transposed_matmuls", transposed},
                     {"fma_micro_tiles", std::move(microTiles)},
                     {"resident_blocks_per_sm", p.residentBlocksPerSM},
                     {"min_blocks_per_sm", p.minBlocksPerSM},
                     {"registers_per_thread", p.registersPerThread},
                     {"bytes_in_flight_per_block", p.bytesInFlightPerBlock},
                     {"estimate_us", e.seconds * 1e6},
                     {"memory_us", e.memorySeconds * 1e6},
                     {"compute_us", e.computeSeconds * 1e6},
                     {"launch_us", e.launchSeconds * 1e6},
                     {"tail_us", e.tailSeconds * 1e6},
                     {"l2_bytes", e.tileBytes},
                     {"loaded_bytes", std::move(loaded)},
                     {"dram_bytes", e.dramBytes}}}};
    if (info.waitsOnPrevious.contains(k.name))
      kernel["waits_on_previous"] = true;
    kernels.push_back(std::move(kernel));
  }
  // One buffer and one kernel per line: readable and diffable.
  std::string out;
  llvm::raw_string_ostream os(out);
  auto field = [&](StringRef key, llvm::json::Value v, bool last = false) {
    os << "  " << llvm::json::Value(key) << ": " << v << (last ? "\n" : ",\n");
  };
  auto list = [&](StringRef key, llvm::json::Array &items, bool last) {
    os << "  " << llvm::json::Value(key) << ": [\n";
    for (size_t i = 0; i < items.size(); ++i)
      os << "    " << items[i] << (i + 1 < items.size() ? ",\n" : "\n");
    os << "  ]" << (last ? "\n" : ",\n");
  };
  os << "{\n";
  field("format", "mirage-run-manifest-1");
  field("graph", plan.graph);
  if (!plan.reference.empty())
    field("reference", plan.reference);
  field("chip", info.chip);
  field("ptx", info.ptxFile);
  field("seed", (int64_t)info.seed);
  field("tolerance", info.tolerance);
  list("buffers", buffers, false);
  list("kernels", kernels, true);
  os << "}\n";
  return out;
}
