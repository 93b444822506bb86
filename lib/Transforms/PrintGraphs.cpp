//===- PrintGraphs.cpp - Graphviz and text views of μGraphs ---------------===//
//
// Works on the compact UGraph (one import per graph), so the views show what
// the evaluator, the verifier and the search see: kernel ops, each custom
// kernel as a cluster with its grid and for-loop, iterators with imap/fmap,
// accumulators, savers with omap, and thread graphs as nested clusters.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/OpKinds.h"
#include "Mirage/Semantics/UGraph.h"
#include "Mirage/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEPRINTGRAPHS
#include "Mirage/Transforms/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {

std::string mapString(const AxisMap &m) {
  std::string s = "[";
  for (int a = 0; a < 3; ++a)
    s += (a ? "," : "") + std::to_string(m[a]);
  return s + "]";
}

std::string shapeOf(const UGraph &g, int32_t v) {
  if (g.level == Level::Thread) // scalars in registers
    return elemTypeName(g.values[v].type).str();
  return shapeToString(g.values[v].shape) + " " +
         elemTypeName(g.values[v].type).str();
}

/// A one-line label of an op.
std::string opLabel(const UOp &op) {
  switch (op.kind) {
  case OpKind::Unary:
  case OpKind::Binary:
    return subKindName(op).str();
  case OpKind::Reduce:
    return "reduce " + subKindName(op).str() + " dim " +
           std::to_string(op.dim) +
           (op.size > 1 ? " to " + std::to_string(op.size) : "");
  case OpKind::Concat:
    return "concat dim " + std::to_string(op.dim);
  case OpKind::RunningMax:
    return "running_max dim " + std::to_string(op.dim);
  case OpKind::InputIterator:
    return "iterator imap " + mapString(op.map) + " fmap " +
           std::to_string(op.fmap);
  case OpKind::Accum:
    return "accum " + subKindName(op).str();
  case OpKind::OutputSaver:
    return "saver omap " + mapString(op.map);
  case OpKind::Matmul:
  case OpKind::RmsNorm:
  case OpKind::Custom:
  case OpKind::ThreadGraph:
    return opKindName(op.kind).str();
  }
  return opKindName(op.kind).str();
}

/// Emits one graph level into a dot stream; value ids are prefixed so nested
/// graphs do not clash. `inputNodes` names the node that produces each input.
void emitDot(llvm::raw_ostream &os, const UGraph &g, const std::string &prefix,
             const std::vector<std::string> &inputNodes,
             std::vector<std::string> &outputNodes, int &clusters) {
  std::vector<std::string> producer(g.values.size());
  for (size_t i = 0; i < g.inputs.size(); ++i)
    producer[g.inputs[i]] = inputNodes[i];
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const UOp &op = g.ops[k];
    std::string node = prefix + "op" + std::to_string(k);
    if (op.body >= 0) {
      const UGraph &body = g.bodies[op.body];
      std::string label =
          op.kind == OpKind::Custom
              ? "custom grid " + mapString(body.grid) + " forloop " +
                    std::to_string(body.forloopRange)
              : std::string("thread graph");
      os << "subgraph cluster_" << clusters++ << " {\n  label=\"" << label
         << "\"; style=rounded;\n";
      std::vector<std::string> ins, outs;
      for (int32_t v : op.operands)
        ins.push_back(producer[v]);
      emitDot(os, body, node + "_", ins, outs, clusters);
      os << "}\n";
      for (size_t r = 0; r < op.results.size(); ++r)
        producer[op.results[r]] = outs[r];
      continue;
    }
    os << "  " << node << " [shape=box, label=\"" << opLabel(op) << "\\n"
       << shapeOf(g, op.results[0]) << "\"];\n";
    for (int32_t v : op.operands)
      if (!producer[v].empty())
        os << "  " << producer[v] << " -> " << node << ";\n";
    for (int32_t r : op.results)
      producer[r] = node;
  }
  for (int32_t o : g.outputs)
    outputNodes.push_back(producer[o]);
}

/// A compact text summary of a kernel graph.
void emitSummary(llvm::raw_ostream &os, const UGraph &g) {
  os << "graph '" << (g.name.empty() ? "<unnamed>" : g.name) << "'";
  if (!g.reference.empty())
    os << " (reference '" << g.reference << "')";
  os << ": " << g.inputs.size() << " inputs, " << g.ops.size()
     << " kernels, " << g.outputs.size() << " outputs\n";
  for (const UOp &op : g.ops) {
    if (op.kind != OpKind::Custom) {
      os << "  " << opLabel(op) << " -> " << shapeOf(g, op.results[0]) << "\n";
      continue;
    }
    const UGraph &b = g.bodies[op.body];
    unsigned counts[4] = {0, 0, 0, 0}; // iterators, ops, accumulators, savers
    for (const UOp &bop : b.ops)
      ++counts[bop.kind == OpKind::InputIterator ? 0
               : bop.kind == OpKind::Accum       ? 2
               : bop.kind == OpKind::OutputSaver ? 3
                                                 : 1];
    os << "  custom grid " << mapString(b.grid) << " forloop "
       << b.forloopRange << ": " << counts[0] << " iterators, " << counts[1]
       << " ops, " << counts[2] << " accumulators, " << counts[3]
       << " savers, " << (sharedMemoryBytes(b) + 1023) / 1024
       << " KiB shared memory\n";
    for (const UOp &bop : b.ops)
      os << "    " << opLabel(bop) << " -> " << shapeOf(b, bop.results[0])
         << "\n";
  }
}

struct PrintGraphsPass : mirage::impl::MiragePrintGraphsBase<PrintGraphsPass> {
  using Base::Base;
  void runOnOperation() override {
    std::error_code ec;
    std::unique_ptr<llvm::raw_fd_ostream> file;
    if (output != "-") {
      file = std::make_unique<llvm::raw_fd_ostream>(output, ec,
                                                    llvm::sys::fs::OF_Text);
      if (ec) {
        getOperation().emitError("cannot write '")
            << output << "': " << ec.message();
        return signalPassFailure();
      }
    }
    llvm::raw_ostream &os = file ? *file : llvm::outs();
    if (format != "dot" && format != "summary") {
      getOperation().emitError("unknown format '") << format
                                                   << "' (dot or summary)";
      return signalPassFailure();
    }
    bool ok = true;
    int graphIndex = 0;
    getOperation().walk([&](kernel::GraphOp op) {
      FailureOr<UGraph> g = kernel::importKernelGraph(op);
      if (failed(g)) {
        ok = false;
        return;
      }
      if (format == "summary")
        return emitSummary(os, *g);
      std::string prefix = "g" + std::to_string(graphIndex++) + "_";
      os << "digraph \"" << (g->name.empty() ? prefix : g->name)
         << "\" {\n  rankdir=TB; node [fontname=\"monospace\"];\n";
      std::vector<std::string> ins, outs;
      for (size_t i = 0; i < g->inputs.size(); ++i) {
        std::string n = prefix + "in" + std::to_string(i);
        os << "  " << n << " [shape=ellipse, label=\"input " << i << "\\n"
           << shapeOf(*g, g->inputs[i]) << "\"];\n";
        ins.push_back(n);
      }
      int clusters = 0;
      emitDot(os, *g, prefix, ins, outs, clusters);
      for (size_t o = 0; o < outs.size(); ++o)
        os << "  " << prefix << "out" << o << " [shape=ellipse, label=\"output "
           << o << "\"];\n  " << outs[o] << " -> " << prefix << "out" << o
           << ";\n";
      os << "}\n";
    });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
