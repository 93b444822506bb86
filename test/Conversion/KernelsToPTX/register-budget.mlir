// The launch plan's register budget reaches ptxas. The Llama-3-8B GQA
// decode winner (bench/models/attention/llama3_8b_gqa_decode.mlir, as the
// search finds it): a flash-decoding kernel of 222 KiB of shared memory,
// one block per SM, and its combine of 6 KiB, eight blocks per SM under the
// 64-register floor. Each entry states its plan's occupancy as
// `.minnctapersm` (docs/Rationale/LaunchPlan.md, "Registers"); with only
// `.maxntid 128` ptxas capped the first at 64 registers and spilled.

// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/decode.sm_90.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/decode.sm_90.manifest.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t/decode.sm_90.ptx -o %t/decode.cubin 2> %t/ptxas.log %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTXAS --input-file=%t/ptxas.log %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=NOSPILL --input-file=%t/ptxas.log %}

// PTX: .visible .entry decode_k0(
// PTX: .maxntid 128, 1, 1
// PTX-NEXT: .minnctapersm 1
// PTX: .visible .entry decode_k1(
// PTX: .maxntid 128, 1, 1
// PTX-NEXT: .minnctapersm 8

// MANIFEST: "name":"decode_k0",{{.*}}"min_blocks_per_sm":1,"registers_per_thread":255,"resident_blocks_per_sm":1,
// MANIFEST: "name":"decode_k1",{{.*}}"min_blocks_per_sm":8,"registers_per_thread":64,"resident_blocks_per_sm":

// PTXAS-DAG: Compiling entry function 'decode_k0'
// PTXAS-DAG: Compiling entry function 'decode_k1'
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill

func.func @llama3_8b_gqa_decode(%arg0: tensor<8x4x128xf16>, %arg1: tensor<8x128x8192xf16>, %arg2: tensor<8x8192x128xf16>) -> tensor<8x4x128xf16> {
%1 = mirage_kernel.graph "decode"(%arg0, %arg1, %arg2) : (tensor<8x4x128xf16>, tensor<8x128x8192xf16>, tensor<8x8192x128xf16>) -> tensor<8x4x128xf16> {
^bb0(%arg3: tensor<8x4x128xf16>, %arg4: tensor<8x128x8192xf16>, %arg5: tensor<8x8192x128xf16>):
  %2:3 = mirage_kernel.custom(%arg3, %arg4, %arg5) grid = [8, 16, 1] forloop = 4 : (tensor<8x4x128xf16>, tensor<8x128x8192xf16>, tensor<8x8192x128xf16>) -> (tensor<8x64x1xf16>, tensor<8x64x128xf16>, tensor<8x64x1xf16>) {
  ^bb0(%arg6: tensor<8x4x128xf16>, %arg7: tensor<8x128x8192xf16>, %arg8: tensor<8x8192x128xf16>):
    %4 = mirage_block.input_iterator %arg6 imap = [0, -1, -1] fmap = -1 : tensor<8x4x128xf16> -> tensor<1x4x128xf16>
    %5 = mirage_block.input_iterator %arg7 imap = [0, 2, -1] fmap = 2 : tensor<8x128x8192xf16> -> tensor<1x128x128xf16>
    %6 = mirage_block.input_iterator %arg8 imap = [0, 1, -1] fmap = 1 : tensor<8x8192x128xf16> -> tensor<1x128x128xf16>
    %7 = mirage_block.unary mul_scalar %4 scalar(0.08837890625) : tensor<1x4x128xf16>
    %8 = mirage_block.matmul %7, %5 : tensor<1x4x128xf16>, tensor<1x128x128xf16> -> tensor<1x4x128xf16>
    %prev, %cur = mirage_block.running_max %8 dim 2 : tensor<1x4x128xf16> -> tensor<1x4x1xf16>
    %9 = mirage_block.thread_graph(%8, %cur) : (tensor<1x4x128xf16>, tensor<1x4x1xf16>) -> tensor<1x4x128xf16> {
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
    %11 = mirage_block.matmul %9, %6 : tensor<1x4x128xf16>, tensor<1x128x128xf16> -> tensor<1x4x128xf16>
    %12 = mirage_block.accum sum_last %9 rescale %10 : tensor<1x4x128xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
    %13 = mirage_block.accum sum %11 rescale %10 : tensor<1x4x128xf16>, tensor<1x4x1xf16> -> tensor<1x4x128xf16>
    %14 = mirage_block.output_saver %12 omap = [0, 1, -1] : tensor<1x4x1xf16> -> tensor<8x64x1xf16>
    %15 = mirage_block.output_saver %13 omap = [0, 1, -1] : tensor<1x4x128xf16> -> tensor<8x64x128xf16>
    %16 = mirage_block.binary sub %prev, %prev : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
    %17 = mirage_block.accum sum %cur rescale %16 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
    %18 = mirage_block.output_saver %17 omap = [0, 1, -1] : tensor<1x4x1xf16> -> tensor<8x64x1xf16>
    mirage_block.yield %14, %15, %18 : tensor<8x64x1xf16>, tensor<8x64x128xf16>, tensor<8x64x1xf16>
  }
  %3 = mirage_kernel.custom(%2#0, %2#1, %2#2) grid = [8, 8, 1] forloop = 1 : (tensor<8x64x1xf16>, tensor<8x64x128xf16>, tensor<8x64x1xf16>) -> tensor<8x4x128xf16> {
  ^bb0(%arg6: tensor<8x64x1xf16>, %arg7: tensor<8x64x128xf16>, %arg8: tensor<8x64x1xf16>):
    %4 = mirage_block.input_iterator %arg6 imap = [0, -1, -1] fmap = -1 : tensor<8x64x1xf16> -> tensor<1x64x1xf16>
    %5 = mirage_block.input_iterator %arg8 imap = [0, -1, -1] fmap = -1 : tensor<8x64x1xf16> -> tensor<1x64x1xf16>
    %6 = mirage_block.reduce max %5 dim 1 to 4 : tensor<1x64x1xf16> -> tensor<1x4x1xf16>
    %7 = mirage_block.concat %6, %6 dim 1 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x8x1xf16>
    %8 = mirage_block.concat %7, %7 dim 1 : tensor<1x8x1xf16>, tensor<1x8x1xf16> -> tensor<1x16x1xf16>
    %9 = mirage_block.concat %8, %8 dim 1 : tensor<1x16x1xf16>, tensor<1x16x1xf16> -> tensor<1x32x1xf16>
    %10 = mirage_block.concat %9, %9 dim 1 : tensor<1x32x1xf16>, tensor<1x32x1xf16> -> tensor<1x64x1xf16>
    %11:2 = mirage_block.thread_graph(%5, %10, %4) : (tensor<1x64x1xf16>, tensor<1x64x1xf16>, tensor<1x64x1xf16>) -> (tensor<1x64x1xf16>, tensor<1x64x1xf16>) {
    ^bb0(%arg9: f16, %arg10: f16, %arg11: f16):
      %20 = mirage_thread.binary sub %arg9, %arg10 : f16
      %21 = mirage_thread.unary exp %20 : f16
      %22 = mirage_thread.binary mul %arg11, %21 : f16
      mirage_thread.yield %21, %22 : f16, f16
    }
    %12 = mirage_block.reduce sum %11#1 dim 1 to 4 : tensor<1x64x1xf16> -> tensor<1x4x1xf16>
    %13 = mirage_block.accum sum %12 : tensor<1x4x1xf16> -> tensor<1x4x1xf16>
    %14 = mirage_block.input_iterator %arg7 imap = [0, 2, -1] fmap = -1 : tensor<8x64x128xf16> -> tensor<1x64x16xf16>
    %15 = mirage_block.binary mul %14, %11#0 : tensor<1x64x16xf16>, tensor<1x64x1xf16> -> tensor<1x64x16xf16>
    %16 = mirage_block.reduce sum %15 dim 1 to 4 : tensor<1x64x16xf16> -> tensor<1x4x16xf16>
    %17 = mirage_block.accum sum %16 : tensor<1x4x16xf16> -> tensor<1x4x16xf16>
    %18 = mirage_block.binary div %17, %13 : tensor<1x4x16xf16>, tensor<1x4x1xf16> -> tensor<1x4x16xf16>
    %19 = mirage_block.output_saver %18 omap = [0, 2, -1] : tensor<1x4x16xf16> -> tensor<8x4x128xf16>
    mirage_block.yield %19 : tensor<8x4x128xf16>
  }
  mirage_kernel.yield %3 : tensor<8x4x128xf16>
}
return %1 : tensor<8x4x128xf16>
}
