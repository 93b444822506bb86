// The main pipeline, run by the stock mlir-opt from the plugin: the input of
// test/Pipelines/superoptimize-pipeline.mlir, imported from TOSA,
// superoptimized into one fused kernel and re-verified.
// RUN: mlir-opt --load-dialect-plugin=%mirage_plugin --load-pass-plugin=%mirage_plugin %s \
// RUN:   --pass-pipeline='builtin.module(mirage-superoptimize-pipeline{cache=off threads=2 time-budget=20})' \
// RUN:   2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.err

// TOSA as a frontend emits it: x * rsqrt(mean(x²)) feeding a matmul.
func.func @rms_matmul(%x: tensor<1x8x64xf32>, %w: tensor<1x64x32xf32>) -> tensor<1x8x32xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sq = tosa.mul %x, %x, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %s = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x8x64xf32>) -> tensor<1x8x1xf32>
  %inv = "tosa.const"() <{values = dense<1.562500e-02> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %m = tosa.mul %s, %inv, %shift : (tensor<1x8x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x1xf32>
  %r = tosa.rsqrt %m : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %n = tosa.mul %x, %r, %shift : (tensor<1x8x64xf32>, tensor<1x8x1xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %o = tosa.matmul %n, %w, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x32xf32>
  return %o : tensor<1x8x32xf32>
}

// CHECK-LABEL: func.func @rms_matmul
// CHECK-NOT: tosa.matmul
// CHECK: %[[OPT:.*]] = mirage_kernel.graph "graph0_opt" reference "graph0"
// CHECK: mirage_kernel.custom
// CHECK: return %[[OPT]]

// REMARK: remark: superoptimized 'graph0': 2 kernel(s) -> 1
// REMARK: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
