// The rank-2 form of stacked-split-k-on-cpu.mlir (torch-mlir's `aten.mm`
// after a collapse has no batch dim to index the partials): 13 x 512
// outputs of f32 over K = 2048 split K stacked over grid y with all 13
// rows in a tile, so each split's partials are a whole row block of
// [S * 13, 512]; a second kernel sums rows m, m + 13, ... (a reduce
// strided to 13). It reads only what the splits of its column tile wrote,
// one block per column tile, so it runs in the split kernel's tail
// (TailCombine.md; the fused launch holds fewer blocks per SM, which costs
// this latency-bound split kernel nothing by the model): one launch, with
// a counter per column tile. The CPU runs it and compares the result with
// the evaluator (KernelExpansion.cpp, Lowering.md "Large matmuls").
//
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS

// CPU: remark: graph 'graph0' on the CPU matches the evaluator: {{.*}} 1 kernel
// CPU-NOT: error:

// LOOPS: func.func @graph0_k0(%{{.*}}: memref<13x2048xf32>, %{{.*}}: memref<2048x512xf32>, %{{.*}}: memref<[[ROWS:[0-9]+]]x512xf32>, %{{.*}}: memref<13x512xf32>, %{{.*}}: memref<[[TILES:[0-9]+]]xi32>) attributes {{.*}}mirage_kernel.grid = array<i64: [[TILES]], [[SPLITS:[0-9]+]], 1>
// LOOPS: math.fma
// LOOPS-NOT: func.func @graph0_k1(

module {
  func.func @f(%x: tensor<13x2048xf32>, %w: tensor<2048x512xf32>) -> tensor<13x512xf32> {
    %0 = mirage_kernel.graph "graph0"(%x, %w) : (tensor<13x2048xf32>, tensor<2048x512xf32>) -> tensor<13x512xf32> {
    ^bb0(%a: tensor<13x2048xf32>, %b: tensor<2048x512xf32>):
      %m = mirage_kernel.matmul %a, %b : tensor<13x2048xf32>, tensor<2048x512xf32> -> tensor<13x512xf32>
      mirage_kernel.yield %m : tensor<13x512xf32>
    }
    return %0 : tensor<13x512xf32>
  }
}
