// RUN: mirage-opt %s | FileCheck %s
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s -mlir-print-op-generic | mirage-opt | FileCheck %s

// Thread graphs live in block graphs; each test wraps one in a custom kernel.

// Every unary and binary kind, three broadcast operands, and three results.

// CHECK-LABEL: func.func @all_kinds
func.func @all_kinds(%x: tensor<8x64xf32>, %r: tensor<8x1xf32>, %c: tensor<1x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %o:3 = mirage_kernel.graph (%x, %r, %c) : (tensor<8x64xf32>, tensor<8x1xf32>, tensor<1x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  ^bb0(%a: tensor<8x64xf32>, %b: tensor<8x1xf32>, %d: tensor<1x64xf32>):
    %k:3 = mirage_kernel.custom (%a, %b, %d) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>, tensor<8x1xf32>, tensor<1x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
    ^bb0(%X: tensor<8x64xf32>, %R: tensor<8x1xf32>, %C: tensor<1x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
      %rt = mirage_block.input_iterator %R imap = [0, -1, -1] fmap = -1 : tensor<8x1xf32> -> tensor<4x1xf32>
      %ct = mirage_block.input_iterator %C imap = [-1, -1, -1] fmap = -1 : tensor<1x64xf32> -> tensor<1x64xf32>
      // CHECK: %[[T:.*]]:3 = mirage_block.thread_graph(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x64xf32>, tensor<4x1xf32>, tensor<1x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
      // CHECK-NEXT: ^bb0(%[[P:.*]]: f32, %[[Q:.*]]: f32, %[[S:.*]]: f32):
      %t:3 = mirage_block.thread_graph (%xt, %rt, %ct) : (tensor<4x64xf32>, tensor<4x1xf32>, tensor<1x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
      ^bb0(%p: f32, %q: f32, %s: f32):
        // CHECK-NEXT: %[[EXP:.*]] = mirage_thread.unary exp %[[P]] : f32
        %exp = mirage_thread.unary exp %p : f32
        // CHECK-NEXT: %[[SQUARE:.*]] = mirage_thread.unary square %[[EXP]] : f32
        %square = mirage_thread.unary square %exp : f32
        // CHECK-NEXT: %[[SQRT:.*]] = mirage_thread.unary sqrt %[[SQUARE]] : f32
        %sqrt = mirage_thread.unary sqrt %square : f32
        // CHECK-NEXT: %[[RSQRT:.*]] = mirage_thread.unary rsqrt %[[SQRT]] : f32
        %rsqrt = mirage_thread.unary rsqrt %sqrt : f32
        // CHECK-NEXT: %[[RECIPROCAL:.*]] = mirage_thread.unary reciprocal %[[RSQRT]] : f32
        %reciprocal = mirage_thread.unary reciprocal %rsqrt : f32
        // CHECK-NEXT: %[[SILU:.*]] = mirage_thread.unary silu %[[RECIPROCAL]] : f32
        %silu = mirage_thread.unary silu %reciprocal : f32
        // CHECK-NEXT: %[[GELU:.*]] = mirage_thread.unary gelu %[[SILU]] : f32
        %gelu = mirage_thread.unary gelu %silu : f32
        // CHECK-NEXT: %[[RELU:.*]] = mirage_thread.unary relu %[[GELU]] : f32
        %relu = mirage_thread.unary relu %gelu : f32
        // CHECK-NEXT: %[[SIGMOID:.*]] = mirage_thread.unary sigmoid %[[RELU]] : f32
        %sigmoid = mirage_thread.unary sigmoid %relu : f32
        // CHECK-NEXT: %[[TANH:.*]] = mirage_thread.unary tanh %[[SIGMOID]] : f32
        %tanh = mirage_thread.unary tanh %sigmoid : f32
        // CHECK-NEXT: %[[MS:.*]] = mirage_thread.unary mul_scalar %[[TANH]] scalar(2.500000e-01) : f32
        %ms = mirage_thread.unary mul_scalar %tanh scalar(0.25) : f32
        // CHECK-NEXT: %[[AS:.*]] = mirage_thread.unary add_scalar %[[MS]] scalar(-1.000000e+00) : f32
        %as = mirage_thread.unary add_scalar %ms scalar(-1.0) : f32
        // CHECK-NEXT: %[[BADD:.*]] = mirage_thread.binary add %[[AS]], %[[Q]] : f32
        %badd = mirage_thread.binary add %as, %q : f32
        // CHECK-NEXT: %[[BSUB:.*]] = mirage_thread.binary sub %[[BADD]], %[[Q]] : f32
        %bsub = mirage_thread.binary sub %badd, %q : f32
        // CHECK-NEXT: %[[BMUL:.*]] = mirage_thread.binary mul %[[BSUB]], %[[Q]] : f32
        %bmul = mirage_thread.binary mul %bsub, %q : f32
        // CHECK-NEXT: %[[BDIV:.*]] = mirage_thread.binary div %[[BMUL]], %[[Q]] : f32
        %bdiv = mirage_thread.binary div %bmul, %q : f32
        // CHECK-NEXT: %[[BPOW:.*]] = mirage_thread.binary pow %[[BDIV]], %[[Q]] : f32
        %bpow = mirage_thread.binary pow %bdiv, %q : f32
        // CHECK-NEXT: %[[LAST:.*]] = mirage_thread.binary mul %[[BPOW]], %[[S]] : f32
        %last = mirage_thread.binary mul %bpow, %s : f32
        // CHECK-NEXT: mirage_thread.yield %[[LAST]], %[[P]], %[[EXP]] : f32, f32, f32
        mirage_thread.yield %last, %p, %exp : f32, f32, f32
      }
      %a0 = mirage_block.accum sum %t#0 : tensor<4x64xf32> -> tensor<4x64xf32>
      %a1 = mirage_block.accum sum %t#1 : tensor<4x64xf32> -> tensor<4x64xf32>
      %a2 = mirage_block.accum max %t#2 : tensor<4x64xf32> -> tensor<4x64xf32>
      %s0 = mirage_block.output_saver %a0 omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
      %s1 = mirage_block.output_saver %a1 omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
      %s2 = mirage_block.output_saver %a2 omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
      mirage_block.yield %s0, %s1, %s2 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
    }
    mirage_kernel.yield %k#0, %k#1, %k#2 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
  }
  return %o#0, %o#1, %o#2 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// Scalar ops on f16; the body forwards one argument unchanged.

// CHECK-LABEL: func.func @elem_f16
func.func @elem_f16(%x: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %o = mirage_kernel.graph (%x) : (tensor<4x16xf16>) -> tensor<4x16xf16> {
  ^bb0(%a: tensor<4x16xf16>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<4x16xf16>) -> tensor<4x16xf16> {
    ^bb0(%X: tensor<4x16xf16>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 0 : tensor<4x16xf16> -> tensor<2x16xf16>
      %acc = mirage_block.accum sum %xt : tensor<2x16xf16> -> tensor<2x16xf16>
      // CHECK: mirage_block.thread_graph(%{{.*}}) : (tensor<2x16xf16>) -> (tensor<2x16xf16>, tensor<2x16xf16>) {
      // CHECK-NEXT: ^bb0(%[[V:.*]]: f16):
      // CHECK-NEXT: %[[G:.*]] = mirage_thread.unary gelu %[[V]] : f16
      // CHECK-NEXT: %[[D:.*]] = mirage_thread.binary div %[[G]], %[[V]] : f16
      // CHECK-NEXT: mirage_thread.yield %[[D]], %[[V]] : f16, f16
      %t:2 = mirage_block.thread_graph (%acc) : (tensor<2x16xf16>) -> (tensor<2x16xf16>, tensor<2x16xf16>) {
      ^bb0(%v: f16):
        %g = mirage_thread.unary gelu %v : f16
        %d = mirage_thread.binary div %g, %v : f16
        mirage_thread.yield %d, %v : f16, f16
      }
      %c = mirage_block.concat %t#0, %t#1 dim 0 : tensor<2x16xf16>, tensor<2x16xf16> -> tensor<4x16xf16>
      %s = mirage_block.output_saver %c omap = [-1, -1, -1] : tensor<4x16xf16> -> tensor<4x16xf16>
      mirage_block.yield %s : tensor<4x16xf16>
    }
    mirage_kernel.yield %k : tensor<4x16xf16>
  }
  return %o : tensor<4x16xf16>
}

// Scalar ops on bf16; the body forwards one argument unchanged.

// CHECK-LABEL: func.func @elem_bf16
func.func @elem_bf16(%x: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %o = mirage_kernel.graph (%x) : (tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  ^bb0(%a: tensor<4x16xbf16>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<4x16xbf16>) -> tensor<4x16xbf16> {
    ^bb0(%X: tensor<4x16xbf16>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 0 : tensor<4x16xbf16> -> tensor<2x16xbf16>
      %acc = mirage_block.accum sum %xt : tensor<2x16xbf16> -> tensor<2x16xbf16>
      // CHECK: mirage_block.thread_graph(%{{.*}}) : (tensor<2x16xbf16>) -> (tensor<2x16xbf16>, tensor<2x16xbf16>) {
      // CHECK-NEXT: ^bb0(%[[V:.*]]: bf16):
      // CHECK-NEXT: %[[G:.*]] = mirage_thread.unary gelu %[[V]] : bf16
      // CHECK-NEXT: %[[D:.*]] = mirage_thread.binary div %[[G]], %[[V]] : bf16
      // CHECK-NEXT: mirage_thread.yield %[[D]], %[[V]] : bf16, bf16
      %t:2 = mirage_block.thread_graph (%acc) : (tensor<2x16xbf16>) -> (tensor<2x16xbf16>, tensor<2x16xbf16>) {
      ^bb0(%v: bf16):
        %g = mirage_thread.unary gelu %v : bf16
        %d = mirage_thread.binary div %g, %v : bf16
        mirage_thread.yield %d, %v : bf16, bf16
      }
      %c = mirage_block.concat %t#0, %t#1 dim 0 : tensor<2x16xbf16>, tensor<2x16xbf16> -> tensor<4x16xbf16>
      %s = mirage_block.output_saver %c omap = [-1, -1, -1] : tensor<4x16xbf16> -> tensor<4x16xbf16>
      mirage_block.yield %s : tensor<4x16xbf16>
    }
    mirage_kernel.yield %k : tensor<4x16xbf16>
  }
  return %o : tensor<4x16xbf16>
}

// Scalar ops on f64; the body forwards one argument unchanged.

// CHECK-LABEL: func.func @elem_f64
func.func @elem_f64(%x: tensor<4x16xf64>) -> tensor<4x16xf64> {
  %o = mirage_kernel.graph (%x) : (tensor<4x16xf64>) -> tensor<4x16xf64> {
  ^bb0(%a: tensor<4x16xf64>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<4x16xf64>) -> tensor<4x16xf64> {
    ^bb0(%X: tensor<4x16xf64>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 0 : tensor<4x16xf64> -> tensor<2x16xf64>
      %acc = mirage_block.accum sum %xt : tensor<2x16xf64> -> tensor<2x16xf64>
      // CHECK: mirage_block.thread_graph(%{{.*}}) : (tensor<2x16xf64>) -> (tensor<2x16xf64>, tensor<2x16xf64>) {
      // CHECK-NEXT: ^bb0(%[[V:.*]]: f64):
      // CHECK-NEXT: %[[G:.*]] = mirage_thread.unary gelu %[[V]] : f64
      // CHECK-NEXT: %[[D:.*]] = mirage_thread.binary div %[[G]], %[[V]] : f64
      // CHECK-NEXT: mirage_thread.yield %[[D]], %[[V]] : f64, f64
      %t:2 = mirage_block.thread_graph (%acc) : (tensor<2x16xf64>) -> (tensor<2x16xf64>, tensor<2x16xf64>) {
      ^bb0(%v: f64):
        %g = mirage_thread.unary gelu %v : f64
        %d = mirage_thread.binary div %g, %v : f64
        mirage_thread.yield %d, %v : f64, f64
      }
      %c = mirage_block.concat %t#0, %t#1 dim 0 : tensor<2x16xf64>, tensor<2x16xf64> -> tensor<4x16xf64>
      %s = mirage_block.output_saver %c omap = [-1, -1, -1] : tensor<4x16xf64> -> tensor<4x16xf64>
      mirage_block.yield %s : tensor<4x16xf64>
    }
    mirage_kernel.yield %k : tensor<4x16xf64>
  }
  return %o : tensor<4x16xf64>
}
