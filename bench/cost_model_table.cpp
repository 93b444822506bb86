//===- cost_model_table.cpp - Cost-model estimates of the paper workloads -===//
//
// Parses bench/workloads/*.mlir (or the files given), imports every kernel
// graph, and prints a markdown table of the cost model's estimates for each
// reference graph and each graph that names it as its reference, on the H100
// and the A100, with the estimated speedup over the reference. `--describe`
// adds each graph's per-kernel breakdown.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/InitAllDialects.h"
#include "Mirage/Semantics/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace mirage;

int main(int argc, char **argv) {
  bool describe = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if (a == "--describe")
      describe = true;
    else
      files.push_back(a.str());
  }
  if (files.empty()) {
    std::error_code ec;
    llvm::SmallString<256> dir(MIRAGE_SOURCE_DIR);
    llvm::sys::path::append(dir, "bench", "workloads");
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::path::extension(it->path()) == ".mlir")
        files.push_back(it->path());
    std::sort(files.begin(), files.end());
  }

  mlir::DialectRegistry registry;
  registerAllMirageDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  const char *targets[] = {"h100", "a100"};
  llvm::outs() << "| workload | graph | kernels | DRAM MB | blocks | max smem "
                  "KiB | H100 µs | H100 speedup | A100 µs | A100 speedup |\n"
               << "|---|---|---|---|---|---|---|---|---|---|\n";
  std::string details;
  llvm::raw_string_ostream dos(details);
  int status = 0;
  for (const std::string &file : files) {
    auto module = mlir::parseSourceFile<mlir::ModuleOp>(file, &ctx);
    if (!module) {
      llvm::errs() << "error: cannot parse " << file << "\n";
      status = 1;
      continue;
    }
    std::string workload = llvm::sys::path::stem(file).str();
    struct Row {
      std::string name, reference;
      UGraph g;
    };
    std::vector<Row> rows;
    bool ok = true;
    module->walk([&](kernel::GraphOp op) {
      auto g = kernel::importKernelGraph(op);
      if (failed(g)) {
        ok = false;
        return;
      }
      rows.push_back({op.getSymName().value_or("<unnamed>").str(),
                      op.getReference().value_or("").str(), std::move(*g)});
    });
    if (!ok) {
      status = 1;
      continue;
    }
    llvm::StringMap<size_t> byName;
    for (size_t i = 0; i < rows.size(); ++i)
      byName[rows[i].name] = i;
    // References first, then the graphs that name them.
    std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
      return a.reference.empty() && !b.reference.empty();
    });
    byName.clear();
    for (size_t i = 0; i < rows.size(); ++i)
      byName[rows[i].name] = i;
    std::vector<std::vector<GraphCost>> costs(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
      for (const char *t : targets)
        costs[i].push_back(estimateCost(rows[i].g, t));
    for (size_t i = 0; i < rows.size(); ++i) {
      const GraphCost &h = costs[i][0];
      llvm::outs() << "| " << workload << " | " << rows[i].name << " | "
                   << h.numKernels() << " | "
                   << llvm::format("%.2f", h.dramBytes / 1e6) << " | "
                   << h.blocks << " | "
                   << llvm::format("%.1f", h.maxSmemBytes / 1024.0);
      for (size_t t = 0; t < 2; ++t) {
        const GraphCost &c = costs[i][t];
        llvm::outs() << " | " << llvm::format("%.2f", c.micros())
                     << (c.fits ? "" : " (does not fit)") << " | ";
        auto it = byName.find(rows[i].reference);
        if (rows[i].reference.empty() || it == byName.end())
          llvm::outs() << "reference";
        else
          llvm::outs() << llvm::format(
              "%.2fx", costs[it->second][t].seconds / c.seconds);
      }
      llvm::outs() << " |\n";
      if (describe)
        for (const GraphCost &c : costs[i])
          dos << workload << " / " << rows[i].name << ": " << c.describe();
    }
  }
  if (describe)
    llvm::outs() << "\n```\n" << details << "```\n";
  return status;
}
