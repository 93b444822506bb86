//===- verify_floor.cpp - Full-shape verification against its arithmetic ---===//
//
// For every kernel graph of the given .mlir files that names a reference,
// runs the finite-field verifier at full shapes on all cores and, in the
// same process right after, a plain modular dot-product loop of the same
// number of multiply-adds on the same number of threads: the floor a
// verifier whose cost is its arithmetic approaches. Prints one
// tab-separated line per pair (bench/verify_scale.sh makes the table):
//
//   file graph multiply-adds/test tests verify-s field-MAC/s floor-s ratio
//        verify-cpu-s floor-cpu-s cpu-ratio verdict
//
// The CPU columns are the process's CPU seconds over each part: on a
// machine shared with other work (two cores and a build) the wall-clock
// ratio depends on what else ran meanwhile, the CPU ratio much less.
//
// One "field multiply-add" is one product of the evaluator in Z_p × Z_q
// (two residues); the floor does one 62-bit modular multiply-add for it,
// as the issue that asked for this table measured.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/InitAllDialects.h"
#include "Mirage/Support/SeededValues.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <ctime>
#include <string>
#include <vector>

using namespace mirage;

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
/// CPU seconds of the whole process (every thread) so far.
double processCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// The largest prime below 2^62.
constexpr uint64_t kFloorPrime = (1ULL << 62) - 57;

/// Σ a_i·b_i mod kFloorPrime over `len` products: 16 products (each below
/// 2^124) summed in 128 bits, then folded into a 192-bit total, reduced
/// once at the end -- the plain loop the verifier is compared with.
uint64_t modularDot(const uint64_t *a, const uint64_t *b, int64_t len) {
  unsigned __int128 lo = 0;
  uint64_t carry = 0;
  for (int64_t i = 0; i < len; i += 16) {
    unsigned __int128 t = 0;
    for (int64_t j = 0; j < 16; ++j)
      t += (unsigned __int128)a[i + j] * b[i + j];
    lo += t;
    carry += lo < t;
  }
  unsigned __int128 two64 = ((unsigned __int128)1 << 64) % kFloorPrime;
  uint64_t c = (uint64_t)((unsigned __int128)carry * (two64 * two64 % kFloorPrime) %
                          kFloorPrime);
  return (uint64_t)((lo % kFloorPrime + c) % kFloorPrime);
}

/// Seconds the floor loop takes for `macs` multiply-adds on `threads`
/// threads: dot products of 4096 cached operands, split over the workers.
double floorSeconds(double macs, unsigned threads) {
  constexpr int64_t kLen = 4096;
  std::vector<uint64_t> a(kLen), b(kLen);
  for (int64_t i = 0; i < kLen; ++i) {
    a[i] = mix64(2 * i) % kFloorPrime;
    b[i] = mix64(2 * i + 1) % kFloorPrime;
  }
  int64_t dots = (int64_t)(macs / kLen) + 1;
  std::atomic<int64_t> next{0};
  std::atomic<uint64_t> sink{0};
  auto worker = [&] {
    uint64_t s = 0;
    // Read through a volatile pointer: the compiler may not hoist the dot.
    const uint64_t *volatile pa = a.data();
    for (int64_t d; (d = next.fetch_add(64)) < dots;)
      for (int64_t e = d; e < std::min(dots, d + 64); ++e)
        s += modularDot(pa, b.data(), kLen);
    sink += s;
  };
  auto start = Clock::now();
  llvm::StdThreadPool pool(llvm::hardware_concurrency(threads));
  for (unsigned t = 0; t < threads; ++t)
    pool.async(worker);
  pool.wait();
  double s = since(start);
  if (sink.load() == 42)
    llvm::errs() << ""; // use the result
  return s;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: verify_floor file.mlir...\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  registerAllMirageDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  unsigned threads = llvm::hardware_concurrency().compute_thread_count();
  int status = 0;
  for (int f = 1; f < argc; ++f) {
    auto module = mlir::parseSourceFile<mlir::ModuleOp>(argv[f], &ctx);
    if (!module) {
      llvm::errs() << "error: cannot parse " << argv[f] << "\n";
      status = 1;
      continue;
    }
    llvm::StringMap<UGraph> graphs;
    std::vector<std::pair<std::string, std::string>> pairs;
    module->walk([&](kernel::GraphOp op) {
      auto g = kernel::importKernelGraph(op);
      if (failed(g))
        return;
      std::string name = op.getSymName().value_or("").str();
      if (op.getReference())
        pairs.push_back({name, op.getReference()->str()});
      graphs[name] = std::move(*g);
    });
    for (auto &[cand, ref] : pairs) {
      if (!graphs.count(ref))
        continue;
      const UGraph &c = graphs[cand], &r = graphs[ref];
      double macs = multiplyAdds(c) + multiplyAdds(r);
      VerifyOptions vo;
      vo.progressSeconds = 10;
      double cpu0 = processCpuSeconds();
      VerificationResult vr = verifyEquivalence(c, r, vo);
      double cpu1 = processCpuSeconds();
      double fl = floorSeconds(macs * std::max(1u, vr.tests), threads);
      double cpu2 = processCpuSeconds();
      llvm::outs() << llvm::sys::path::stem(argv[f]) << "\t" << cand << "\t"
                   << llvm::format("%.0f", macs) << "\t" << vr.tests << "\t"
                   << llvm::format("%.3f", vr.seconds) << "\t"
                   << llvm::format("%.3g", macs * vr.tests / vr.seconds)
                   << "\t" << llvm::format("%.3f", fl) << "\t"
                   << llvm::format("%.1f", vr.seconds / fl) << "\t"
                   << llvm::format("%.3f", cpu1 - cpu0) << "\t"
                   << llvm::format("%.3f", cpu2 - cpu1) << "\t"
                   << llvm::format("%.1f", (cpu1 - cpu0) / (cpu2 - cpu1))
                   << "\t" << (vr.equivalent() ? "verified" : vr.message)
                   << "\n";
      llvm::outs().flush();
      if (!vr.equivalent())
        status = 1;
    }
  }
  return status;
}
