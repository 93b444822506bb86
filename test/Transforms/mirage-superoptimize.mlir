// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2" 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// The winner verifies against the kept reference in a separate pass.
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2" --mirage-verify-equivalence="dtype-check=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// A second run with the same cache file skips the search.
// RUN: rm -f %t.sqlite
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2 report=%t.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: mirage-opt %s --mirage-superoptimize="cache=%t.sqlite threads=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HIT

// RMSNorm followed by a matmul (paper §3), small shapes.
func.func @rmsnorm_matmul(%x: tensor<8x256xf16>, %w: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %r = mirage_kernel.graph "rms" (%x, %w) : (tensor<8x256xf16>, tensor<256x512xf16>) -> tensor<8x512xf16> {
  ^bb0(%a: tensor<8x256xf16>, %b: tensor<256x512xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<8x256xf16> -> tensor<8x256xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<8x256xf16>, tensor<256x512xf16> -> tensor<8x512xf16>
    mirage_kernel.yield %m : tensor<8x512xf16>
  }
  return %r : tensor<8x512xf16>
}

// CHECK-LABEL: func.func @rmsnorm_matmul
// CHECK: mirage_kernel.graph "rms"(
// CHECK: %[[OPT:.*]] = mirage_kernel.graph "rms_opt" reference "rms"(
// CHECK: mirage_kernel.custom
// CHECK-DAG: mirage_block.matmul
// CHECK-DAG: mirage_block.accum
// CHECK: return %[[OPT]]

// REMARK: remark: superoptimized 'rms': 2 kernel(s) -> 1, estimated {{.*}} us -> {{.*}} us ({{.*}}x) on h100 (the reference as library kernels: {{[0-9.]+}} us); verified with {{[0-9]+ tests?}}, false-acceptance bound 2^-{{[0-9]+}}; cache disabled

// VERIFY: remark: graph 'rms_opt' is equivalent to reference 'rms'

// MISS: cache miss
// HIT: cache hit

// JSON: "graph": "rms"
// JSON: "kernels_in_winner": 1
