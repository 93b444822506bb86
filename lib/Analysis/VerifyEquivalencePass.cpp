//===- VerifyEquivalencePass.cpp - Equivalence and numerics passes --------===//
#include "Mirage/Analysis/FormalCheck.h"
#include "Mirage/Analysis/Passes.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/MemoryLimit.h"

#include "llvm/Support/Format.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEVERIFYEQUIVALENCE
#define GEN_PASS_DEF_MIRAGECHECKNUMERICS
#include "Mirage/Analysis/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {
std::string graphName(kernel::GraphOp op) {
  return op.getSymName() ? op.getSymName()->str() : "<unnamed>";
}

void reportNumerics(kernel::GraphOp op, const NumericsResult &n,
                    bool remarkWhenFine) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  os << "graph '" << graphName(op) << "' in " << elemTypeName(n.type) << ": ";
  if (n.nonFinite)
    os << "produces non-finite values (overflow) where the float64 reference "
          "does not";
  else
    os << "max relative error " << llvm::format("%.3g", n.maxRelError)
       << (n.exceeds() ? " exceeds" : " within") << " the threshold "
       << llvm::format("%.3g", n.threshold);
  if (n.exceeds())
    op.emitWarning(msg);
  else if (remarkWhenFine)
    op.emitRemark(msg);
}

LogicalResult verifyFormally(kernel::GraphOp candOp, const UGraph &cand,
                             const UGraph &ref, int64_t maxElements,
                             unsigned timeoutMs);

struct VerifyEquivalencePass
    : mirage::impl::MirageVerifyEquivalenceBase<VerifyEquivalencePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<kernel::GraphOp, kernel::GraphOp>> pairs;
    bool ok = succeeded(kernel::collectReferencePairs(getOperation(), pairs));
    for (auto [cand, ref] : pairs)
      ok &= succeeded(verify(cand, ref));
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult verify(kernel::GraphOp candOp, kernel::GraphOp refOp) {
    std::string head = "graph '" + graphName(candOp) + "' ";
    std::string refName = candOp.getReference()->str();
    // The inputs are the reference's (collectReferencePairs).
    if (candOp.getNumResults() != refOp.getNumResults())
      return candOp.emitError(head + "is not equivalent to reference '" +
                              refName + "': the signatures differ");
    FailureOr<UGraph> cand = kernel::importKernelGraph(candOp);
    FailureOr<UGraph> ref = kernel::importKernelGraph(refOp);
    if (failed(cand) || failed(ref))
      return failure();
    VerifyOptions opts;
    opts.targetBits = targetBits;
    if (seed != 0)
      opts.seed = seed; // else drawn at random and named in the verdict
    VerificationResult r = verifyEquivalence(*cand, *ref, opts);
    LogicalResult verdict = report(candOp, *cand, *ref, r, head, refName);
    // The Z3 check reports on its own; a counterexample fails the pass.
    if (formal && failed(verifyFormally(candOp, *cand, *ref, formalMaxElements,
                                        formalTimeoutMs)))
      return failure();
    return verdict;
  }

  LogicalResult report(kernel::GraphOp candOp, const UGraph &cand,
                       const UGraph &ref, const VerificationResult &r,
                       const std::string &head, const std::string &refName) {
    switch (r.status) {
    case VerifyStatus::Equivalent:
      candOp.emitRemark(head + "is equivalent to reference '" + refName +
                        "': " + r.message);
      if (dtypeCheck) {
        // Large inputs are generated where read, as in the field check;
        // the stored values (outputs, intermediate tensors) may still not
        // fit where the field check did.
        if (std::string over = memoryOverLimit(
                float64CheckBytes({&cand, &ref}), "float64 values");
            !over.empty())
          candOp.emitWarning(head + "dtype check skipped: the runs " + over);
        else
          reportNumerics(candOp, checkNumerics(cand, ref, r.seed), false);
      }
      return success();
    case VerifyStatus::EquivalentUpToPermutation:
    case VerifyStatus::NotEquivalent:
      return candOp.emitError(head + "is not equivalent to reference '" +
                              refName + "': " + r.message);
    case VerifyStatus::Inconclusive:
      return candOp.emitError(head + "could not be verified against "
                                     "reference '" +
                              refName + "': " + r.message);
    case VerifyStatus::NotVerified:
      return candOp.emitError(head + "is not verified against reference '" +
                              refName + "': " + r.message);
    }
    return failure();
  }
};

/// The Z3 check; fails only on a counterexample.
LogicalResult verifyFormally(kernel::GraphOp candOp, const UGraph &cand,
                             const UGraph &ref, int64_t maxElements,
                             unsigned timeoutMs) {
  FormalOptions fo;
  fo.maxElements = maxElements;
  fo.timeoutMs = timeoutMs;
  FormalResult f = checkEquivalenceFormally(cand, ref, fo);
  std::string head = "graph '" + graphName(candOp) + "' ";
  std::string refName = candOp.getReference()->str();
  switch (f.status) {
  case FormalStatus::Equivalent:
    candOp.emitRemark(head + "is formally equivalent to reference '" +
                      refName + "' at these shapes (Z3: " + f.message + ")");
    return success();
  case FormalStatus::NotEquivalent:
    return candOp.emitError(head + "formal check: counterexample to "
                                   "equivalence with reference '" +
                            refName + "': " + f.message);
  case FormalStatus::Inconclusive:
    candOp.emitWarning(head + "formal check inconclusive: " + f.message);
    return success();
  case FormalStatus::TooLarge:
    candOp.emitRemark(head + "formal check skipped: " + f.message);
    return success();
  }
  return success();
}

struct CheckNumericsPass
    : mirage::impl::MirageCheckNumericsBase<CheckNumericsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<kernel::GraphOp, kernel::GraphOp>> pairs;
    (void)kernel::collectReferencePairs(getOperation(), pairs);
    for (auto [candOp, refOp] : pairs) {
      if (candOp.getNumResults() != refOp.getNumResults())
        continue;
      FailureOr<UGraph> cand = kernel::importKernelGraph(candOp);
      FailureOr<UGraph> ref = kernel::importKernelGraph(refOp);
      if (failed(cand) || failed(ref))
        continue;
      // The pass never fails: a pair too large to run is reported and
      // skipped.
      if (std::string over = memoryOverLimit(
              float64CheckBytes({&*cand, &*ref}), "float64 values");
          !over.empty()) {
        candOp.emitWarning("graph '")
            << graphName(candOp) << "' numerics not checked: the runs "
            << over;
        continue;
      }
      reportNumerics(candOp, checkNumerics(*cand, *ref, seed, trials), true);
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
