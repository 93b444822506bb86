// Flash-decoding's form of decode attention (issue 21; Verification.md §2a,
// MultiKernel.md): kernel 1 splits the keys over the grid and shifts each
// split's scores by the split's own row max, saving that max beside the
// exp-sum and P·V partials; kernel 2 takes the max M of the saved maxima and
// scales each split's partials by exp(m_b − M) before summing them. No
// scores kernel and no row-max kernel: K and V are read once.
// The graph below is what the search builds (localizeSplitMax) for a
// frontend's decode attention (2 KV heads, 4 query rows, 1024 keys, scores
// scaled by 1/8, softmax with the row max subtracted), written out by
// mirage-superoptimize. Its maxima are not the reference's, so only mode S
// verifies it; the generated code runs on the host and matches the float64
// evaluator. Kernel 2 (one block per query row) reads only what the 16
// splits of its row wrote, so it runs in kernel 1's tail (TailCombine.md):
// one launch.
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s -o - | FileCheck %s

// VERIFY: remark: graph 'graph0_opt' is equivalent to reference 'graph0': {{.*}}mode S
// CPU: remark: graph 'graph0' on the CPU matches the evaluator
// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator: {{.*}} 1 kernel,

// CHECK-LABEL: mirage_kernel.graph "graph0_opt"
// CHECK: mirage_kernel.custom
// CHECK: %[[S:.*]] = mirage_block.matmul
// CHECK: %[[M:.*]] = mirage_block.reduce max %[[S]] dim 2
// CHECK: %[[D:.*]] = mirage_block.binary sub %[[S]], %[[M]]
// CHECK: mirage_block.unary exp %[[D]]
// CHECK: mirage_block.accum max %[[M]]
// CHECK: mirage_kernel.custom{{.*}}forloop = 1
// CHECK: mirage_block.input_iterator {{.*}} fmap = -1
// CHECK: %[[BIG:.*]] = mirage_block.reduce max %[[ALL:[0-9]+]] dim 0 to 2
// CHECK: mirage_block.concat %[[BIG]], %[[BIG]]
// CHECK: %[[DIFF:.*]] = mirage_block.binary sub %[[ALL]], %{{[0-9]+}} : tensor<32x1x1xf16>, tensor<32x1x1xf16>
// CHECK: %[[W:.*]] = mirage_block.unary exp %[[DIFF]]
// CHECK: mirage_block.binary mul {{.*}}, %[[W]]
// CHECK: mirage_block.reduce sum {{.*}} dim 0 to 2
// CHECK-NOT: mirage_kernel.custom
// CHECK: mirage_kernel.yield

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
      %2:3 = mirage_kernel.custom(%arg3, %arg4, %arg5) grid = [4, 16, 1] forloop = 1 : (tensor<2x4x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<32x4x1xf16>, tensor<32x4x64xf16>, tensor<32x4x1xf16>) {
      ^bb0(%arg6: tensor<2x4x64xf16>, %arg7: tensor<2x64x1024xf16>, %arg8: tensor<2x1024x64xf16>):
        %4 = mirage_block.input_iterator %arg6 imap = [1, -1, -1] fmap = -1 : tensor<2x4x64xf16> -> tensor<2x1x64xf16>
        %5 = mirage_block.input_iterator %arg7 imap = [-1, 2, -1] fmap = 2 : tensor<2x64x1024xf16> -> tensor<2x64x64xf16>
        %6 = mirage_block.input_iterator %arg8 imap = [-1, 1, -1] fmap = 1 : tensor<2x1024x64xf16> -> tensor<2x64x64xf16>
        %7 = mirage_block.unary mul_scalar %4 scalar(1.250000e-01) : tensor<2x1x64xf16>
        %8 = mirage_block.matmul %7, %5 : tensor<2x1x64xf16>, tensor<2x64x64xf16> -> tensor<2x1x64xf16>
        %9 = mirage_block.reduce max %8 dim 2 : tensor<2x1x64xf16> -> tensor<2x1x1xf16>
        %10 = mirage_block.binary sub %8, %9 : tensor<2x1x64xf16>, tensor<2x1x1xf16> -> tensor<2x1x64xf16>
        %11 = mirage_block.unary exp %10 : tensor<2x1x64xf16>
        %12 = mirage_block.matmul %11, %6 : tensor<2x1x64xf16>, tensor<2x64x64xf16> -> tensor<2x1x64xf16>
        %13 = mirage_block.accum sum_last %11 : tensor<2x1x64xf16> -> tensor<2x1x1xf16>
        %14 = mirage_block.accum sum %12 : tensor<2x1x64xf16> -> tensor<2x1x64xf16>
        %15 = mirage_block.output_saver %13 omap = [1, 0, -1] : tensor<2x1x1xf16> -> tensor<32x4x1xf16>
        %16 = mirage_block.output_saver %14 omap = [1, 0, -1] : tensor<2x1x64xf16> -> tensor<32x4x64xf16>
        %17 = mirage_block.accum max %9 : tensor<2x1x1xf16> -> tensor<2x1x1xf16>
        %18 = mirage_block.output_saver %17 omap = [1, 0, -1] : tensor<2x1x1xf16> -> tensor<32x4x1xf16>
        mirage_block.yield %15, %16, %18 : tensor<32x4x1xf16>, tensor<32x4x64xf16>, tensor<32x4x1xf16>
      }
      %3 = mirage_kernel.custom(%2#0, %2#1, %2#2) grid = [4, 1, 1] forloop = 1 : (tensor<32x4x1xf16>, tensor<32x4x64xf16>, tensor<32x4x1xf16>) -> tensor<2x4x64xf16> {
      ^bb0(%arg6: tensor<32x4x1xf16>, %arg7: tensor<32x4x64xf16>, %arg8: tensor<32x4x1xf16>):
        %4 = mirage_block.input_iterator %arg6 imap = [1, -1, -1] fmap = -1 : tensor<32x4x1xf16> -> tensor<32x1x1xf16>
        %5 = mirage_block.input_iterator %arg8 imap = [1, -1, -1] fmap = -1 : tensor<32x4x1xf16> -> tensor<32x1x1xf16>
        %6 = mirage_block.reduce max %5 dim 0 to 2 : tensor<32x1x1xf16> -> tensor<2x1x1xf16>
        %7 = mirage_block.concat %6, %6 dim 0 : tensor<2x1x1xf16>, tensor<2x1x1xf16> -> tensor<4x1x1xf16>
        %8 = mirage_block.concat %7, %7 dim 0 : tensor<4x1x1xf16>, tensor<4x1x1xf16> -> tensor<8x1x1xf16>
        %9 = mirage_block.concat %8, %8 dim 0 : tensor<8x1x1xf16>, tensor<8x1x1xf16> -> tensor<16x1x1xf16>
        %10 = mirage_block.concat %9, %9 dim 0 : tensor<16x1x1xf16>, tensor<16x1x1xf16> -> tensor<32x1x1xf16>
        %11 = mirage_block.binary sub %5, %10 : tensor<32x1x1xf16>, tensor<32x1x1xf16> -> tensor<32x1x1xf16>
        %12 = mirage_block.unary exp %11 : tensor<32x1x1xf16>
        %13 = mirage_block.binary mul %4, %12 : tensor<32x1x1xf16>, tensor<32x1x1xf16> -> tensor<32x1x1xf16>
        %14 = mirage_block.reduce sum %13 dim 0 to 2 : tensor<32x1x1xf16> -> tensor<2x1x1xf16>
        %15 = mirage_block.accum sum %14 : tensor<2x1x1xf16> -> tensor<2x1x1xf16>
        %16 = mirage_block.input_iterator %arg7 imap = [1, -1, -1] fmap = -1 : tensor<32x4x64xf16> -> tensor<32x1x64xf16>
        %17 = mirage_block.binary mul %16, %12 : tensor<32x1x64xf16>, tensor<32x1x1xf16> -> tensor<32x1x64xf16>
        %18 = mirage_block.reduce sum %17 dim 0 to 2 : tensor<32x1x64xf16> -> tensor<2x1x64xf16>
        %19 = mirage_block.accum sum %18 : tensor<2x1x64xf16> -> tensor<2x1x64xf16>
        %20 = mirage_block.binary div %19, %15 : tensor<2x1x64xf16>, tensor<2x1x1xf16> -> tensor<2x1x64xf16>
        %21 = mirage_block.output_saver %20 omap = [1, -1, -1] : tensor<2x1x64xf16> -> tensor<2x4x64xf16>
        mirage_block.yield %21 : tensor<2x4x64xf16>
      }
      mirage_kernel.yield %3 : tensor<2x4x64xf16>
    }
    return %1 : tensor<2x4x64xf16>
  }
}

