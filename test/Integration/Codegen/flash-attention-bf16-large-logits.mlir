// Issue 21 item 4 in bf16: the decode attention of
// flash-decoding-large-logits.mlir with bf16 inputs (scores 4·q·k over a
// head dim of 64, q, k in [-1, 1): maxima about 35, past where an unshifted
// exp overflows f16, though not bf16). The winner is one kernel whose loop
// walks the keys with a running max; its generated code on the host matches
// the float64 evaluator within bf16's tolerance, and the dtype check (bf16
// values, f32 matmul sums) agrees.
//
// RUN: mirage-opt %s --mirage-import --mirage-superoptimize="cache=off threads=2 progress=false max-block-ops=6" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s < %t.mlir
// RUN: mirage-opt %t.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %t.mlir --mirage-check-numerics --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NUMERICS

// CHECK: mirage_kernel.graph "graph0_opt" reference "graph0"
// CHECK-NOT: mirage_kernel.reduce
// CHECK: mirage_kernel.custom
// CHECK: mirage_block.running_max
// CHECK: mirage_block.unary exp
// CHECK: mirage_kernel.yield

// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator: {{.*}}(bf16 tolerance
// NUMERICS: remark: graph 'graph0_opt' in bf16: max relative error {{.*}} within the threshold
// NUMERICS-NOT: warning

func.func @decode(%q: tensor<2x4x64xbf16>, %k: tensor<2x64x1024xbf16>, %v: tensor<2x1024x64xbf16>) -> tensor<2x4x64xbf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x4x64xbf16>, tensor<2x64x1024xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x4x1024xbf16>
  %c = "tosa.const"() <{values = dense<4.000000e+00> : tensor<1x1x1xbf16>}> : () -> tensor<1x1x1xbf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<2x4x1024xbf16>, tensor<1x1x1xbf16>, tensor<1xi8>) -> tensor<2x4x1024xbf16>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<2x4x1024xbf16>) -> tensor<2x4x1xbf16>
  %d = tosa.sub %ss, %m : (tensor<2x4x1024xbf16>, tensor<2x4x1xbf16>) -> tensor<2x4x1024xbf16>
  %e = tosa.exp %d : (tensor<2x4x1024xbf16>) -> tensor<2x4x1024xbf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x1024xbf16>) -> tensor<2x4x1xbf16>
  %r = tosa.reciprocal %sum : (tensor<2x4x1xbf16>) -> tensor<2x4x1xbf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x4x1024xbf16>, tensor<2x4x1xbf16>, tensor<1xi8>) -> tensor<2x4x1024xbf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x1024xbf16>, tensor<2x1024x64xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x4x64xbf16>
  return %o : tensor<2x4x64xbf16>
}
