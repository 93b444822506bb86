// Whole modules (issue 22, item 5): a graph repeated in the module (a
// decoder block twice) is searched once; the repeat reuses the answer, is
// rewritten the same way, and the module gets one remark with the totals.
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2 progress=false report=%t.json" 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// The repeat's winner verifies against its own reference.
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2 progress=false" --mirage-verify-equivalence="dtype-check=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// module-time-budget=0: nothing is searched, every graph stays with a remark,
// and the module still compiles.
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2 progress=false module-time-budget=0" 2>%t.zero | FileCheck %s --check-prefix=ZERO
// RUN: FileCheck %s --check-prefix=ZERO-REMARK < %t.zero
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off module-time-budget=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

func.func @two_blocks(%x: tensor<8x256xf16>, %w: tensor<256x256xf16>, %v: tensor<256x256xf16>) -> tensor<8x256xf16> {
  %a = mirage_kernel.graph "block0" (%x, %w) : (tensor<8x256xf16>, tensor<256x256xf16>) -> tensor<8x256xf16> {
  ^bb0(%p: tensor<8x256xf16>, %q: tensor<256x256xf16>):
    %n = mirage_kernel.rms_norm %p : tensor<8x256xf16> -> tensor<8x256xf16>
    %m = mirage_kernel.matmul %n, %q : tensor<8x256xf16>, tensor<256x256xf16> -> tensor<8x256xf16>
    mirage_kernel.yield %m : tensor<8x256xf16>
  }
  %b = mirage_kernel.graph "block1" (%a, %v) : (tensor<8x256xf16>, tensor<256x256xf16>) -> tensor<8x256xf16> {
  ^bb0(%p: tensor<8x256xf16>, %q: tensor<256x256xf16>):
    %n = mirage_kernel.rms_norm %p : tensor<8x256xf16> -> tensor<8x256xf16>
    %m = mirage_kernel.matmul %n, %q : tensor<8x256xf16>, tensor<256x256xf16> -> tensor<8x256xf16>
    mirage_kernel.yield %m : tensor<8x256xf16>
  }
  return %b : tensor<8x256xf16>
}

// CHECK-LABEL: func.func @two_blocks
// CHECK: %[[A:.*]] = mirage_kernel.graph "block0_opt" reference "block0"(
// CHECK: mirage_kernel.custom
// CHECK: %[[B:.*]] = mirage_kernel.graph "block1_opt" reference "block1"(%[[A]],
// CHECK: mirage_kernel.custom
// CHECK: return %[[B]]

// REMARK-DAG: remark: superoptimized 'block0': 2 kernel(s) -> 1
// REMARK-DAG: remark: superoptimized 'block1': 2 kernel(s) -> 1
// REMARK-DAG: remark: superoptimized 2 graph(s): 1 searched, 0 cache hit(s), 1 repeat(s) of an earlier graph; 2 improved, kernels 4 -> 2

// JSON: "graph": "block0"
// JSON-NOT: "repeat_of"
// JSON: "graph": "block1"
// JSON: "repeat_of": "block0"
// JSON: "states_explored": 0
// JSON: "totals":
// JSON: "graphs": 2
// JSON: "improved": 2
// JSON: "repeats": 1
// JSON: "searched": 1

// VERIFY-DAG: remark: graph 'block0_opt' is equivalent to reference 'block0'
// VERIFY-DAG: remark: graph 'block1_opt' is equivalent to reference 'block1'

// ZERO-NOT: _opt
// ZERO-REMARK-DAG: remark: graph 'block0' left unchanged: the module's search budget (0 s, module-time-budget) is spent
// ZERO-REMARK-DAG: remark: graph 'block1' left unchanged: the module's search budget (0 s, module-time-budget) is spent
// ZERO-REMARK-DAG: 0 searched, 0 cache hit(s), 0 repeat(s) of an earlier graph, 2 left unsearched (module budget of 0 s spent); 0 improved, kernels 4 -> 4

// BAD: module-time-budget must be a finite number of seconds >= 0, got -1
