// RUN: not mirage-opt %s --mirage-kernels-to-ptx="output-dir=%t" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
//
// f64 has no GPU path: a clear error naming the graph, and no files.

func.func @f(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %o = mirage_kernel.graph "double" (%x) : (tensor<4x8xf64>) -> tensor<4x8xf64> {
  ^bb0(%a: tensor<4x8xf64>):
    %e = mirage_kernel.unary exp %a : tensor<4x8xf64>
    mirage_kernel.yield %e : tensor<4x8xf64>
  }
  return %o : tensor<4x8xf64>
}

// CHECK: error: graph 'double': f64 tensors have no GPU path (f16, bf16 and f32 do)
