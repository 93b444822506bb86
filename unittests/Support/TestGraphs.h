//===- TestGraphs.h - Shared fixtures of the unit tests ---------*- C++ -*-===//
//
// Reference graphs several tests build (RMSNorm+MatMul and its fused μGraph)
// and the boilerplate of reading the workload .mlir files into UGraphs.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_UNITTESTS_SUPPORT_TESTGRAPHS_H
#define MIRAGE_UNITTESTS_SUPPORT_TESTGRAPHS_H

#include "Mirage/Semantics/UGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace mirage::test {

/// rms_norm(X) @ W as a kernel graph; X [m, k], W [k, n].
UGraph rmsMatmulReference(int64_t m, int64_t k, int64_t n,
                          ElemType type = ElemType::F32);

/// The paper's fused μGraph of it: one custom kernel on grid [gx, 1, 1]
/// whose for-loop (`loop` iterations) walks k; the division by the `norm`
/// accumulator moves after the matmul. `wImapX` is W's iterator imap on
/// grid x. Records a test failure if a builder refuses an op.
UGraph rmsMatmulFused(int64_t m, int64_t k, int64_t n, int64_t gx,
                      int64_t loop, AccumKind norm = AccumKind::rms_last,
                      int64_t wImapX = 1, ElemType type = ElemType::F32);

/// rms_norm(X, weight g, eps) @ W; g [1, k].
UGraph rmsEpsMatmulReference(int64_t m, int64_t k, int64_t n, double eps,
                             ElemType type = ElemType::F32);

/// Its fused form: ((X·g) @ W) / rms_last(X, eps), one for-loop over k.
UGraph rmsEpsMatmulFused(int64_t m, int64_t k, int64_t n, int64_t gx,
                         int64_t loop, double eps);

/// O = (exp(Q@K) / Σ_keys exp(Q@K)) @ V over `heads` KV heads (GQA decode
/// attention): Q [heads, rows, d], K [heads, d, keys], V [heads, keys, d].
UGraph gqaReference(int64_t heads, int64_t rows, int64_t d, int64_t keys);
/// QKNorm attention (reference §6.2): softmax(rms_norm(Q) @ K) @ rms_norm(V)
/// with eps 1e-6, Q heads×rows×d, K heads×d×keys, V heads×keys×d, f16.
UGraph qknormReference(int64_t heads, int64_t rows, int64_t d, int64_t keys);

/// A context with the Mirage dialects and `func` loaded; with `quiet`,
/// diagnostics are dropped instead of printed.
std::unique_ptr<mlir::MLIRContext> makeMirageContext(bool quiet = false);

/// A context with the dialects the loop-level code generator emits and the
/// CPU path lowers to (func, scf, memref, arith, math, vector, affine, gpu,
/// llvm, cf, ub), diagnostics dropped.
std::unique_ptr<mlir::MLIRContext> makeCodegenContext();

/// Parses the .mlir file at `path`; null when it does not parse.
mlir::OwningOpRef<mlir::ModuleOp> parseMlirFile(const std::string &path,
                                                mlir::MLIRContext &ctx);

/// `MIRAGE_SOURCE_DIR/<dir>/<name>.mlir`.
std::string sourceFile(const std::string &dir, const std::string &name);

/// A graph with a `reference` and that reference, imported.
struct GraphPair {
  std::string name; ///< the candidate's symbol name ("?" when unnamed)
  UGraph cand, ref;
};

/// Imports every graph of `module` that names a reference, with that
/// reference, into `out` (walk order). Pairs that fail to import are left
/// out; the result says whether any reference was missing or failed.
::testing::AssertionResult importReferencePairs(mlir::ModuleOp module,
                                                std::vector<GraphPair> &out);

/// The MLIR text of a module holding `func @<funcName>(inputs) { graph }`,
/// `g` exported as the graph with f16 tensors at its interface.
std::string printAsFunc(mlir::MLIRContext &ctx, const UGraph &g,
                        llvm::StringRef funcName);

/// Parses MLIR `text` and imports its (last) kernel graph into `out`.
::testing::AssertionResult importGraphFromText(const std::string &text,
                                               mlir::MLIRContext &ctx,
                                               UGraph &out);

} // namespace mirage::test

#endif // MIRAGE_UNITTESTS_SUPPORT_TESTGRAPHS_H
