// Issue 21: decode attention with an attention mask added to the scores
// before the row max, as exported models pass it. The mask is a graph
// input (one row over the keys, broadcast over heads and query rows), one
// more block operator than the unmasked softmax: the winner is found in
// round 7, a kernel whose for-loop walks the keys with a running max of
// the masked scores (no row-max kernel), and its generated code on the
// host matches the float64 evaluator.
//
// RUN: mirage-opt %s --mirage-import --mirage-superoptimize="cache=off threads=2 progress=false" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s < %t.mlir
// RUN: mirage-opt %t.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

// CHECK: mirage_kernel.graph "graph0_opt" reference "graph0"
// CHECK-NOT: mirage_kernel.reduce
// CHECK: mirage_kernel.custom
// CHECK: mirage_block.binary add
// CHECK: mirage_block.running_max
// CHECK: mirage_block.unary exp
// CHECK: mirage_kernel.yield

// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator

func.func @masked_decode(%q: tensor<2x4x64xf16>, %mask: tensor<1x1x512xf16>, %k: tensor<2x64x512xf16>, %v: tensor<2x512x64xf16>) -> tensor<2x4x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x4x64xf16>, tensor<2x64x512xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x512xf16>
  %c = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<2x4x512xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x4x512xf16>
  %sm = tosa.add %ss, %mask : (tensor<2x4x512xf16>, tensor<1x1x512xf16>) -> tensor<2x4x512xf16>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<2x4x512xf16>) -> tensor<2x4x1xf16>
  %d = tosa.sub %sm, %m : (tensor<2x4x512xf16>, tensor<2x4x1xf16>) -> tensor<2x4x512xf16>
  %e = tosa.exp %d : (tensor<2x4x512xf16>) -> tensor<2x4x512xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x512xf16>) -> tensor<2x4x1xf16>
  %r = tosa.reciprocal %sum : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x4x512xf16>, tensor<2x4x1xf16>, tensor<1xi8>) -> tensor<2x4x512xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x512xf16>, tensor<2x512x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x64xf16>
  return %o : tensor<2x4x64xf16>
}
