// Progress lines on stderr: with progress-after=0 every round ends with one
// (round, states, pruned, candidates, verified, best cost so far, elapsed);
// progress=false silences them. (The counters are also pass statistics, but
// the distribution's release LLVM compiles statistics out, so they are not
// checked here.)
// Without the cost bound every round enumerates:
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2 max-block-ops=2 progress-after=0 cost-bound=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROGRESS
// With it, the plain fusion found in round 0 (a pipelined GEMV with its
// SiLU epilogue) reaches the memory-time floor of its pattern and beats the
// other patterns' floors: round 1 builds no state (round 2 only for the
// patterns of lower floors, half of those the unbounded search builds).
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2 max-block-ops=2 progress-after=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2 max-block-ops=2 progress-after=0 progress=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET

func.func @matmul_silu(%x: tensor<8x256xf16>, %w: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %r = mirage_kernel.graph "rms" (%x, %w) : (tensor<8x256xf16>, tensor<256x512xf16>) -> tensor<8x512xf16> {
  ^bb0(%a: tensor<8x256xf16>, %b: tensor<256x512xf16>):
    %m = mirage_kernel.matmul %a, %b : tensor<8x256xf16>, tensor<256x512xf16> -> tensor<8x512xf16>
    %n = mirage_kernel.unary silu %m : tensor<8x512xf16>
    mirage_kernel.yield %n : tensor<8x512xf16>
  }
  return %r : tensor<8x512xf16>
}

// PROGRESS: [mirage-search] {{[0-9.]+}}s round 0/2 done states {{[0-9]+}} pruned {{[0-9]+}} candidates {{[0-9]+}} verified {{[0-9]+}} best {{[0-9.]+}} us
// PROGRESS: [mirage-search] {{[0-9.]+}}s round 1/2 done
// PROGRESS: [mirage-search] {{[0-9.]+}}s round 2/2 done states {{[1-9][0-9]*}} pruned {{[1-9][0-9]*}}
// PROGRESS: remark: superoptimized 'rms'

// BOUND: [mirage-search] {{[0-9.]+}}s round 0/2 done states [[STATES:[0-9]+]] pruned
// BOUND: [mirage-search] {{[0-9.]+}}s round 1/2 done states [[STATES]] pruned
// BOUND: [mirage-search] {{[0-9.]+}}s round 2/2 done states {{[0-9]+}} pruned
// BOUND: remark: superoptimized 'rms': 2 kernel(s) -> 1

// QUIET-NOT: [mirage-search]
// QUIET: remark: superoptimized 'rms'
// QUIET-NOT: [mirage-search]

