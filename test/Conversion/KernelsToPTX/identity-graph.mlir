// Issue 22: a graph whose outputs are its inputs runs no kernel. It is not
// an error of the program: the pass says so in a remark, writes nothing for
// it, and the module's other graphs are written as usual.
// RUN: rm -rf %t && mirage-opt %s --pass-pipeline="builtin.module(mirage-kernels-to-ptx{output-dir=%t})" -o /dev/null 2>&1 | FileCheck %s
// RUN: ls %t | FileCheck %s --check-prefix=FILES

func.func @f(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>) -> (tensor<8x64xf16>, tensor<8x32xf16>) {
  %id = mirage_kernel.graph "ident" (%x) : (tensor<8x64xf16>) -> tensor<8x64xf16> {
  ^bb0(%a: tensor<8x64xf16>):
    mirage_kernel.yield %a : tensor<8x64xf16>
  }
  %m = mirage_kernel.graph "mm" (%x, %w) : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf16> {
  ^bb0(%a: tensor<8x64xf16>, %b: tensor<64x32xf16>):
    %y = mirage_kernel.matmul %a, %b : tensor<8x64xf16>, tensor<64x32xf16> -> tensor<8x32xf16>
    %z = mirage_kernel.unary exp %y : tensor<8x32xf16>
    mirage_kernel.yield %z : tensor<8x32xf16>
  }
  return %id, %m : tensor<8x64xf16>, tensor<8x32xf16>
}

// CHECK: remark: graph 'ident' computes no kernel (its outputs are its inputs): no PTX written
// CHECK: remark: graph 'mm': wrote {{.*}}mm.sm_90.ptx
// CHECK-NOT: error

// FILES-NOT: ident
// FILES: mm.sm_90.manifest.json
// FILES: mm.sm_90.ptx
// FILES-NOT: ident
