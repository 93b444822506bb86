// A flash-decoding pair whose combine is spread over the head dim
// (MultiKernel.md, "Combining kernels that fill the machine"): kernel 2
// runs 2 × 4 blocks, each folding 16 of the 64 columns of every split's
// partial output, with the per-row maxima and exp-sums ([1, 32, 1] tiles,
// read whole by every block). The graph is what the search builds for
// Mistral-7B decode (bench/models/attention), scaled down: 2 KV heads, 4
// query rows, head dim 64, 1024 keys, 8 splits of 2 iterations.
//
// The [1, 32, 1] tiles have last dim 1 but are 64 contiguous bytes of their
// tensors: they are copied as 16-byte vectors through collapsed views
// (TileCopy.h), not one 2-byte load per element, and on the GPU as cp.async.
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}

// VERIFY: remark: graph 'graph0_opt' is equivalent to reference 'graph0': {{.*}}mode S
// CPU: remark: graph 'graph0' on the CPU matches the evaluator
// Four combine blocks per head would run one after another in a tail
// (TailCombine.md): the combine keeps its own launch.
// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator: {{.*}} 2 kernels

// The combine: the two [1, 32, 1] partial tiles are whole in their tensors
// but for the head: copied through flat views, 8 f16 per copy.
// LOOPS: func.func @graph0_opt_k1(
// LOOPS: memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<2x32x1xf16> into memref<64xf16>
// LOOPS: memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<1x32x1xf16, #gpu.address_space<workgroup>> into memref<32xf16, #gpu.address_space<workgroup>>
// LOOPS: vector.transfer_read {{.*}} : memref<64xf16>, vector<8xf16>
// LOOPS: memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<2x32x1xf16> into memref<64xf16>
// LOOPS: vector.transfer_read {{.*}} : memref<64xf16>, vector<8xf16>

// The combine's loads on sm_90: every tile one cp.async group (the two
// 64-byte partials and the 16-column slice), no 2-byte global loads.
// PTX: .visible .entry graph0_opt_k1(
// PTX-NOT: ld.global.u16
// PTX-NOT: ld.global.b16
// PTX: cp.async.cg.shared.global
// PTX-NOT: ld.global.u16
// PTX-NOT: ld.global.b16
// PTX: ret;

module {
  func.func @decode(%arg0: tensor<2x4x64xf16>, %arg1: tensor<2x64x1024xf16>, %arg2: tensor<2x1024x64xf16>) -> tensor<2x4x64xf16> {
    %0 = mirage_kernel.graph "graph0"(%arg0, %arg1, %arg2) attributes {mirage.non_lax = ["reduce_max"]} : (tensor<2x4x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> tensor<2x4x64xf16> {
    ^bb0(%arg3: tensor<2x4x64xf16>, %arg4: tensor<2x64x1024xf16>, %arg5: tensor<2x1024x64xf16>):
      %2 = mirage_kernel.matmul %arg3, %arg4 : tensor<2x4x64xf16>, tensor<2x64x1024xf16> -> tensor<2x4x1024xf16>
      %3 = mirage_kernel.unary mul_scalar %2 scalar(1.250000e-01) : tensor<2x4x1024xf16>
      %4 = mirage_kernel.reduce max %3 dim 2 : tensor<2x4x1024xf16> -> tensor<2x4x1xf16>
      %5 = mirage_kernel.binary sub %3, %4 : tensor<2x4x1024xf16>, tensor<2x4x1xf16> -> tensor<2x4x1024xf16>
      %6 = mirage_kernel.unary exp %5 : tensor<2x4x1024xf16>
      %7 = mirage_kernel.reduce sum %6 dim 2 : tensor<2x4x1024xf16> -> tensor<2x4x1xf16>
      %8 = mirage_kernel.unary reciprocal %7 : tensor<2x4x1xf16>
      %9 = mirage_kernel.binary mul %6, %8 : tensor<2x4x1024xf16>, tensor<2x4x1xf16> -> tensor<2x4x1024xf16>
      %10 = mirage_kernel.matmul %9, %arg5 : tensor<2x4x1024xf16>, tensor<2x1024x64xf16> -> tensor<2x4x64xf16>
      mirage_kernel.yield %10 : tensor<2x4x64xf16>
    }
    %1 = mirage_kernel.graph "graph0_opt" reference "graph0"(%arg0, %arg1, %arg2) : (tensor<2x4x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> tensor<2x4x64xf16> {
    ^bb0(%arg3: tensor<2x4x64xf16>, %arg4: tensor<2x64x1024xf16>, %arg5: tensor<2x1024x64xf16>):
      %2:3 = mirage_kernel.custom(%arg3, %arg4, %arg5) grid = [2, 8, 1] forloop = 2 : (tensor<2x4x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x32x1xf16>, tensor<2x32x64xf16>, tensor<2x32x1xf16>) {
      ^bb0(%arg6: tensor<2x4x64xf16>, %arg7: tensor<2x64x1024xf16>, %arg8: tensor<2x1024x64xf16>):
        %4 = mirage_block.input_iterator %arg6 imap = [0, -1, -1] fmap = -1 : tensor<2x4x64xf16> -> tensor<1x4x64xf16>
        %5 = mirage_block.input_iterator %arg7 imap = [0, 2, -1] fmap = 2 : tensor<2x64x1024xf16> -> tensor<1x64x64xf16>
        %6 = mirage_block.input_iterator %arg8 imap = [0, 1, -1] fmap = 1 : tensor<2x1024x64xf16> -> tensor<1x64x64xf16>
        %7 = mirage_block.unary mul_scalar %4 scalar(1.250000e-01) : tensor<1x4x64xf16>
        %8 = mirage_block.matmul %7, %5 : tensor<1x4x64xf16>, tensor<1x64x64xf16> -> tensor<1x4x64xf16>
        %prev, %cur = mirage_block.running_max %8 dim 2 : tensor<1x4x64xf16> -> tensor<1x4x1xf16>
        %9 = mirage_block.thread_graph(%8, %cur) : (tensor<1x4x64xf16>, tensor<1x4x1xf16>) -> tensor<1x4x64xf16> {
        ^bb0(%arg9: f16, %arg10: f16):
          %19 = mirage_thread.binary sub %arg9, %arg10 : f16
          %20 = mirage_thread.unary exp %19 : f16
          mirage_thread.yield %20 : f16
        }
        %10 = mirage_block.thread_graph(%prev, %cur) : (tensor<1x4x1xf16>, tensor<1x4x1xf16>) -> tensor<1x4x1xf16> {
        ^bb0(%arg9: f16, %arg10: f16):
          %19 = mirage_thread.binary sub %arg9, %arg10 : f16
          %20 = mirage_thread.unary exp %19 : f16
          mirage_thread.yield %20 : f16
        }
        %11 = mirage_block.matmul %9, %6 : tensor<1x4x64xf16>, tensor<1x64x64xf16> -> tensor<1x4x64xf16>
        %12 = mirage_block.accum sum_last %9 rescale %10 : tensor<1x4x64xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
        %13 = mirage_block.accum sum %11 rescale %10 : tensor<1x4x64xf16>, tensor<1x4x1xf16> -> tensor<1x4x64xf16>
        %14 = mirage_block.output_saver %12 omap = [0, 1, -1] : tensor<1x4x1xf16> -> tensor<2x32x1xf16>
        %15 = mirage_block.output_saver %13 omap = [0, 1, -1] : tensor<1x4x64xf16> -> tensor<2x32x64xf16>
        %16 = mirage_block.binary sub %prev, %prev : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
        %17 = mirage_block.accum sum %cur rescale %16 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
        %18 = mirage_block.output_saver %17 omap = [0, 1, -1] : tensor<1x4x1xf16> -> tensor<2x32x1xf16>
        mirage_block.yield %14, %15, %18 : tensor<2x32x1xf16>, tensor<2x32x64xf16>, tensor<2x32x1xf16>
      }
      %3 = mirage_kernel.custom(%2#0, %2#1, %2#2) grid = [2, 4, 1] forloop = 1 : (tensor<2x32x1xf16>, tensor<2x32x64xf16>, tensor<2x32x1xf16>) -> tensor<2x4x64xf16> {
      ^bb0(%arg6: tensor<2x32x1xf16>, %arg7: tensor<2x32x64xf16>, %arg8: tensor<2x32x1xf16>):
        %4 = mirage_block.input_iterator %arg6 imap = [0, -1, -1] fmap = -1 : tensor<2x32x1xf16> -> tensor<1x32x1xf16>
        %5 = mirage_block.input_iterator %arg8 imap = [0, -1, -1] fmap = -1 : tensor<2x32x1xf16> -> tensor<1x32x1xf16>
        %6 = mirage_block.reduce max %5 dim 1 to 4 : tensor<1x32x1xf16> -> tensor<1x4x1xf16>
        %7 = mirage_block.concat %6, %6 dim 1 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x8x1xf16>
        %8 = mirage_block.concat %7, %7 dim 1 : tensor<1x8x1xf16>, tensor<1x8x1xf16> -> tensor<1x16x1xf16>
        %9 = mirage_block.concat %8, %8 dim 1 : tensor<1x16x1xf16>, tensor<1x16x1xf16> -> tensor<1x32x1xf16>
        %11:2 = mirage_block.thread_graph(%5, %9, %4) : (tensor<1x32x1xf16>, tensor<1x32x1xf16>, tensor<1x32x1xf16>) -> (tensor<1x32x1xf16>, tensor<1x32x1xf16>) {
        ^bb0(%arg9: f16, %arg10: f16, %arg11: f16):
          %20 = mirage_thread.binary sub %arg9, %arg10 : f16
          %21 = mirage_thread.unary exp %20 : f16
          %22 = mirage_thread.binary mul %arg11, %21 : f16
          mirage_thread.yield %21, %22 : f16, f16
        }
        %12 = mirage_block.reduce sum %11#1 dim 1 to 4 : tensor<1x32x1xf16> -> tensor<1x4x1xf16>
        %13 = mirage_block.accum sum %12 : tensor<1x4x1xf16> -> tensor<1x4x1xf16>
        %14 = mirage_block.input_iterator %arg7 imap = [0, 2, -1] fmap = -1 : tensor<2x32x64xf16> -> tensor<1x32x16xf16>
        %15 = mirage_block.binary mul %14, %11#0 : tensor<1x32x16xf16>, tensor<1x32x1xf16> -> tensor<1x32x16xf16>
        %16 = mirage_block.reduce sum %15 dim 1 to 4 : tensor<1x32x16xf16> -> tensor<1x4x16xf16>
        %17 = mirage_block.accum sum %16 : tensor<1x4x16xf16> -> tensor<1x4x16xf16>
        %18 = mirage_block.binary div %17, %13 : tensor<1x4x16xf16>, tensor<1x4x1xf16> -> tensor<1x4x16xf16>
        %19 = mirage_block.output_saver %18 omap = [0, 2, -1] : tensor<1x4x16xf16> -> tensor<2x4x64xf16>
        mirage_block.yield %19 : tensor<2x4x64xf16>
      }
      mirage_kernel.yield %3 : tensor<2x4x64xf16>
    }
    return %1 : tensor<2x4x64xf16>
  }
}
