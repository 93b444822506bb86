// A matmul with few outputs and a long K, expanded by this project's code
// generator (KernelExpansion.cpp): 13 x 64 outputs of f32 over K = 4096 are
// too few to fill the machine with FMA micro-tiles, so the tilings offered
// include split-K stacked over grid y (a batch dim of 1 indexes the
// partials, [S, M, N]), with column tiles on x; the model picks 16 splits
// of 8-column tiles, and a second kernel sums the partials over dim 0
// (docs/Rationale/FmaMicroTiles.md, Lowering.md "Large matmuls"). The CPU
// runs both kernels and compares the result with the evaluator.
//
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=MANIFEST --input-file=%t/graph0.sm_90.manifest.json %}

// CPU: remark: graph 'graph0' on the CPU matches the evaluator: {{.*}} 2 kernels
// CPU-NOT: error:

// LOOPS: func.func @graph0_k0(%{{.*}}: memref<1x13x4096xf32>, %{{.*}}: memref<1x4096x64xf32>, %{{.*}}: memref<16x13x64xf32>) attributes {{.*}}mirage_kernel.grid = array<i64: 8, 16, 1>
// LOOPS: math.fma
// LOOPS: func.func @graph0_k1(%{{.*}}: memref<16x13x64xf32>, %{{.*}}: memref<1x13x64xf32>)

// MANIFEST: "grid":[8,16,1],"name":"graph0_k0","plan":{{.*}}"fma_micro_tiles":{{\[\[[1-8],[1-8]\]\]}}
// MANIFEST: "name":"graph0_k1"

module {
  func.func @f(%x: tensor<1x13x4096xf32>, %w: tensor<1x4096x64xf32>) -> tensor<1x13x64xf32> {
    %0 = mirage_kernel.graph "graph0"(%x, %w) : (tensor<1x13x4096xf32>, tensor<1x4096x64xf32>) -> tensor<1x13x64xf32> {
    ^bb0(%a: tensor<1x13x4096xf32>, %b: tensor<1x4096x64xf32>):
      %m = mirage_kernel.matmul %a, %b : tensor<1x13x4096xf32>, tensor<1x4096x64xf32> -> tensor<1x13x64xf32>
      mirage_kernel.yield %m : tensor<1x13x64xf32>
    }
    return %0 : tensor<1x13x64xf32>
  }
}
