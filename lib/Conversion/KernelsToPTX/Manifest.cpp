//===- Manifest.cpp - The launch manifest mirage-run reads ----------------===//
#include "Manifest.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mirage;

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
                         {"dtype", elemTypeName(b.type)},
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
    auto it = info.dynamicSharedBytes.find(k.name);
    kernels.push_back(llvm::json::Object{
        {"name", k.name},
        {"grid", shapeArray(k.grid)},
        {"block", llvm::json::Array{k.threads, 1, 1}},
        {"dynamic_shared_bytes",
         it == info.dynamicSharedBytes.end() ? 0 : it->second},
        {"args", std::move(args)}});
  }
  llvm::json::Object m{{"format", "mirage-run-manifest-1"},
                       {"graph", plan.graph},
                       {"chip", info.chip},
                       {"ptx", info.ptxFile},
                       {"seed", (int64_t)info.seed},
                       {"tolerance", info.tolerance},
                       {"buffers", std::move(buffers)},
                       {"kernels", std::move(kernels)}};
  if (!plan.reference.empty())
    m["reference"] = plan.reference;
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(m))) << "\n";
  return out;
}
