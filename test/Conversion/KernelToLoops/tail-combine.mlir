// A split pair in one launch (docs/Rationale/TailCombine.md): flash-decoding
// over 8 KV heads of 1,024 keys in 8 splits, and its combine on one block
// per head. The producer's x axis (the head) is the consumer's, so each head
// is a group of the 8 split blocks, and the last of them to finish runs the
// head's combine block. The pair is one kernel function with the groups'
// counters as its last argument; the host function zeroes them and makes one
// call. On the host the lowered code matches the evaluator; the PTX counts
// with a relaxed atom between two device-scope fences, and the manifest
// names the counters as an i32 temp buffer. The splits take their 128 keys
// 32 per iteration: with 64 the producer's padded tiles (TilePlan::pitch)
// leave no room for the combine's at its occupancy.

// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/decode.sm_90.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/decode.sm_90.manifest.json
// RUN: FileCheck %s --check-prefix=SPREAD --input-file=%t/spread.sm_90.manifest.json
// RUN: mirage-run --dry-run %t/decode.sm_90.manifest.json | FileCheck %s --check-prefix=DRY
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t/decode.sm_90.ptx -o %t/decode.cubin 2> %t/ptxas.log %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTXAS --input-file=%t/ptxas.log %}

// LOOPS-LABEL: func.func @decode_k0(
// LOOPS-SAME: %{{[a-z0-9]+}}: memref<8x4x128xf16>, %[[N:[a-z0-9]+]]: memref<8xi32>)
// LOOPS-SAME: mirage_kernel.grid = array<i64: 8, 8, 1>
// LOOPS: %[[FLAG:.*]] = memref.alloc() : memref<1xi32, #gpu.address_space<workgroup>>
// LOOPS: llvm.fence syncscope("device") release
// LOOPS-NEXT: %[[OLD:.*]] = memref.atomic_rmw addi %{{.*}}, %[[N]][%[[G:[a-z0-9_]+]]] : (i32, memref<8xi32>) -> i32
// LOOPS-NEXT: llvm.fence syncscope("device") acquire
// LOOPS: %[[LAST:.*]] = arith.cmpi eq, %[[OLD]], %c7_i32
// LOOPS-NEXT: scf.if %[[LAST]] {
// LOOPS: memref.store %{{.*}}, %[[N]][%[[G]]]
// LOOPS: memref.store %{{.*}}, %[[FLAG]]
// LOOPS: memref.load %[[FLAG]]
// The head's combine block runs inside the last block's branch: its tiles
// (the 32 splits' saved sums and maxima) are allocated there.
// LOOPS: scf.if
// LOOPS-NOT: func.func
// LOOPS: memref.alloc() : memref<1x32x1xf16, #gpu.address_space<workgroup>>
// LOOPS-NOT: func.func @decode_k1(
// LOOPS-LABEL: func.func @decode(
// LOOPS: %[[C:.*]] = memref.alloc() {alignment = 16 : i64} : memref<8xi32>
// LOOPS: scf.for
// LOOPS-NEXT: memref.store %c0_i32, %[[C]]
// LOOPS: call @decode_k0({{.*}}, %[[C]])
// LOOPS-NOT: call @decode_k1

// CPU: remark: graph 'decode' on the CPU matches the evaluator: {{.*}}1 kernel,
// CPU: remark: graph 'spread' on the CPU matches the evaluator: {{.*}}2 kernels,

// PTX: .visible .entry decode_k0(
// PTX: fence.acq_rel.gpu;
// PTX: atom.global.add.u32
// PTX-NEXT: fence.acq_rel.gpu;
// PTX-NOT: .entry decode_k1(

// MANIFEST: {"dtype":"i32","name":"t{{[0-9]+}}","role":"temp","shape":[8]}
// MANIFEST: {"args":[0,1,2,4,5,6,3,7],{{.*}}"name":"decode_k0"
// MANIFEST-NOT: decode_k1

// mirage-run allocates the counters with the other temporaries, zeroed.
// DRY: t{{[0-9]+}} temp i32 [8] 32 bytes
// DRY: decode_k0 grid [8, 8, 1]{{.*}}args (in0, in1, in2, t{{[0-9]+}}, t{{[0-9]+}}, t{{[0-9]+}}, out0, t{{[0-9]+}})

// The same pair with a combine of 8 blocks per head (each with 16 of the
// 128 columns): in a tail they would run one after another on one SM, a
// round trip each, so they keep their own launch.
// SPREAD: "name":"spread_k0"
// SPREAD: "name":"spread_k1"
// SPREAD-NOT: "dtype":"i32"

// PTXAS: Compiling entry function 'decode_k0'

func.func @decode(%q: tensor<8x4x128xf16>, %k: tensor<8x128x1024xf16>, %v: tensor<8x1024x128xf16>) -> tensor<8x4x128xf16> {
  %0 = mirage_kernel.graph "decode"(%q, %k, %v) : (tensor<8x4x128xf16>, tensor<8x128x1024xf16>, tensor<8x1024x128xf16>) -> tensor<8x4x128xf16> {
  ^bb0(%arg3: tensor<8x4x128xf16>, %arg4: tensor<8x128x1024xf16>, %arg5: tensor<8x1024x128xf16>):
    %2:3 = mirage_kernel.custom(%arg3, %arg4, %arg5) grid = [8, 8, 1] forloop = 4 : (tensor<8x4x128xf16>, tensor<8x128x1024xf16>, tensor<8x1024x128xf16>) -> (tensor<8x32x1xf16>, tensor<8x32x128xf16>, tensor<8x32x1xf16>) {
    ^bb0(%arg6: tensor<8x4x128xf16>, %arg7: tensor<8x128x1024xf16>, %arg8: tensor<8x1024x128xf16>):
      %4 = mirage_block.input_iterator %arg6 imap = [0, -1, -1] fmap = -1 : tensor<8x4x128xf16> -> tensor<1x4x128xf16>
      %5 = mirage_block.input_iterator %arg7 imap = [0, 2, -1] fmap = 2 : tensor<8x128x1024xf16> -> tensor<1x128x32xf16>
      %6 = mirage_block.input_iterator %arg8 imap = [0, 1, -1] fmap = 1 : tensor<8x1024x128xf16> -> tensor<1x32x128xf16>
      %7 = mirage_block.unary mul_scalar %4 scalar(0.08837890625) : tensor<1x4x128xf16>
      %8 = mirage_block.matmul %7, %5 : tensor<1x4x128xf16>, tensor<1x128x32xf16> -> tensor<1x4x32xf16>
      %prev, %cur = mirage_block.running_max %8 dim 2 : tensor<1x4x32xf16> -> tensor<1x4x1xf16>
      %9 = mirage_block.binary sub %8, %cur : tensor<1x4x32xf16>, tensor<1x4x1xf16> -> tensor<1x4x32xf16>
      %10 = mirage_block.unary exp %9 : tensor<1x4x32xf16>
      %11 = mirage_block.binary sub %prev, %cur : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %12 = mirage_block.unary exp %11 : tensor<1x4x1xf16>
      %13 = mirage_block.matmul %10, %6 : tensor<1x4x32xf16>, tensor<1x32x128xf16> -> tensor<1x4x128xf16>
      %14 = mirage_block.accum sum_last %10 rescale %12 : tensor<1x4x32xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %15 = mirage_block.accum sum %13 rescale %12 : tensor<1x4x128xf16>, tensor<1x4x1xf16> -> tensor<1x4x128xf16>
      %16 = mirage_block.output_saver %14 omap = [0, 1, -1] : tensor<1x4x1xf16> -> tensor<8x32x1xf16>
      %17 = mirage_block.output_saver %15 omap = [0, 1, -1] : tensor<1x4x128xf16> -> tensor<8x32x128xf16>
      %18 = mirage_block.binary sub %prev, %prev : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %19 = mirage_block.accum sum %cur rescale %18 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %20 = mirage_block.output_saver %19 omap = [0, 1, -1] : tensor<1x4x1xf16> -> tensor<8x32x1xf16>
      mirage_block.yield %16, %17, %20 : tensor<8x32x1xf16>, tensor<8x32x128xf16>, tensor<8x32x1xf16>
    }
    %3 = mirage_kernel.custom(%2#0, %2#1, %2#2) grid = [8, 1, 1] forloop = 1 : (tensor<8x32x1xf16>, tensor<8x32x128xf16>, tensor<8x32x1xf16>) -> tensor<8x4x128xf16> {
    ^bb0(%arg6: tensor<8x32x1xf16>, %arg7: tensor<8x32x128xf16>, %arg8: tensor<8x32x1xf16>):
      %4 = mirage_block.input_iterator %arg6 imap = [0, -1, -1] fmap = -1 : tensor<8x32x1xf16> -> tensor<1x32x1xf16>
      %5 = mirage_block.input_iterator %arg8 imap = [0, -1, -1] fmap = -1 : tensor<8x32x1xf16> -> tensor<1x32x1xf16>
      %6 = mirage_block.reduce max %5 dim 1 to 4 : tensor<1x32x1xf16> -> tensor<1x4x1xf16>
      %7 = mirage_block.concat %6, %6 dim 1 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x8x1xf16>
      %8 = mirage_block.concat %7, %7 dim 1 : tensor<1x8x1xf16>, tensor<1x8x1xf16> -> tensor<1x16x1xf16>
      %9 = mirage_block.concat %8, %8 dim 1 : tensor<1x16x1xf16>, tensor<1x16x1xf16> -> tensor<1x32x1xf16>
      %12 = mirage_block.binary sub %5, %9 : tensor<1x32x1xf16>, tensor<1x32x1xf16> -> tensor<1x32x1xf16>
      %13 = mirage_block.unary exp %12 : tensor<1x32x1xf16>
      %14 = mirage_block.binary mul %4, %13 : tensor<1x32x1xf16>, tensor<1x32x1xf16> -> tensor<1x32x1xf16>
      %15 = mirage_block.reduce sum %14 dim 1 to 4 : tensor<1x32x1xf16> -> tensor<1x4x1xf16>
      %16 = mirage_block.accum sum %15 : tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %17 = mirage_block.input_iterator %arg7 imap = [0, -1, -1] fmap = -1 : tensor<8x32x128xf16> -> tensor<1x32x128xf16>
      %18 = mirage_block.binary mul %17, %13 : tensor<1x32x128xf16>, tensor<1x32x1xf16> -> tensor<1x32x128xf16>
      %19 = mirage_block.reduce sum %18 dim 1 to 4 : tensor<1x32x128xf16> -> tensor<1x4x128xf16>
      %20 = mirage_block.accum sum %19 : tensor<1x4x128xf16> -> tensor<1x4x128xf16>
      %21 = mirage_block.binary div %20, %16 : tensor<1x4x128xf16>, tensor<1x4x1xf16> -> tensor<1x4x128xf16>
      %22 = mirage_block.output_saver %21 omap = [0, -1, -1] : tensor<1x4x128xf16> -> tensor<8x4x128xf16>
      mirage_block.yield %22 : tensor<8x4x128xf16>
    }
    mirage_kernel.yield %3 : tensor<8x4x128xf16>
  }
  return %0 : tensor<8x4x128xf16>
}

func.func @spread(%q: tensor<8x4x128xf16>, %k: tensor<8x128x1024xf16>, %v: tensor<8x1024x128xf16>) -> tensor<8x4x128xf16> {
  %0 = mirage_kernel.graph "spread"(%q, %k, %v) : (tensor<8x4x128xf16>, tensor<8x128x1024xf16>, tensor<8x1024x128xf16>) -> tensor<8x4x128xf16> {
  ^bb0(%arg3: tensor<8x4x128xf16>, %arg4: tensor<8x128x1024xf16>, %arg5: tensor<8x1024x128xf16>):
    %2:3 = mirage_kernel.custom(%arg3, %arg4, %arg5) grid = [8, 8, 1] forloop = 2 : (tensor<8x4x128xf16>, tensor<8x128x1024xf16>, tensor<8x1024x128xf16>) -> (tensor<8x32x1xf16>, tensor<8x32x128xf16>, tensor<8x32x1xf16>) {
    ^bb0(%arg6: tensor<8x4x128xf16>, %arg7: tensor<8x128x1024xf16>, %arg8: tensor<8x1024x128xf16>):
      %4 = mirage_block.input_iterator %arg6 imap = [0, -1, -1] fmap = -1 : tensor<8x4x128xf16> -> tensor<1x4x128xf16>
      %5 = mirage_block.input_iterator %arg7 imap = [0, 2, -1] fmap = 2 : tensor<8x128x1024xf16> -> tensor<1x128x64xf16>
      %6 = mirage_block.input_iterator %arg8 imap = [0, 1, -1] fmap = 1 : tensor<8x1024x128xf16> -> tensor<1x64x128xf16>
      %7 = mirage_block.unary mul_scalar %4 scalar(0.08837890625) : tensor<1x4x128xf16>
      %8 = mirage_block.matmul %7, %5 : tensor<1x4x128xf16>, tensor<1x128x64xf16> -> tensor<1x4x64xf16>
      %prev, %cur = mirage_block.running_max %8 dim 2 : tensor<1x4x64xf16> -> tensor<1x4x1xf16>
      %9 = mirage_block.binary sub %8, %cur : tensor<1x4x64xf16>, tensor<1x4x1xf16> -> tensor<1x4x64xf16>
      %10 = mirage_block.unary exp %9 : tensor<1x4x64xf16>
      %11 = mirage_block.binary sub %prev, %cur : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %12 = mirage_block.unary exp %11 : tensor<1x4x1xf16>
      %13 = mirage_block.matmul %10, %6 : tensor<1x4x64xf16>, tensor<1x64x128xf16> -> tensor<1x4x128xf16>
      %14 = mirage_block.accum sum_last %10 rescale %12 : tensor<1x4x64xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %15 = mirage_block.accum sum %13 rescale %12 : tensor<1x4x128xf16>, tensor<1x4x1xf16> -> tensor<1x4x128xf16>
      %16 = mirage_block.output_saver %14 omap = [0, 1, -1] : tensor<1x4x1xf16> -> tensor<8x32x1xf16>
      %17 = mirage_block.output_saver %15 omap = [0, 1, -1] : tensor<1x4x128xf16> -> tensor<8x32x128xf16>
      %18 = mirage_block.binary sub %prev, %prev : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %19 = mirage_block.accum sum %cur rescale %18 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %20 = mirage_block.output_saver %19 omap = [0, 1, -1] : tensor<1x4x1xf16> -> tensor<8x32x1xf16>
      mirage_block.yield %16, %17, %20 : tensor<8x32x1xf16>, tensor<8x32x128xf16>, tensor<8x32x1xf16>
    }
    %3 = mirage_kernel.custom(%2#0, %2#1, %2#2) grid = [8, 8, 1] forloop = 1 : (tensor<8x32x1xf16>, tensor<8x32x128xf16>, tensor<8x32x1xf16>) -> tensor<8x4x128xf16> {
    ^bb0(%arg6: tensor<8x32x1xf16>, %arg7: tensor<8x32x128xf16>, %arg8: tensor<8x32x1xf16>):
      %4 = mirage_block.input_iterator %arg6 imap = [0, -1, -1] fmap = -1 : tensor<8x32x1xf16> -> tensor<1x32x1xf16>
      %5 = mirage_block.input_iterator %arg8 imap = [0, -1, -1] fmap = -1 : tensor<8x32x1xf16> -> tensor<1x32x1xf16>
      %6 = mirage_block.reduce max %5 dim 1 to 4 : tensor<1x32x1xf16> -> tensor<1x4x1xf16>
      %7 = mirage_block.concat %6, %6 dim 1 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x8x1xf16>
      %8 = mirage_block.concat %7, %7 dim 1 : tensor<1x8x1xf16>, tensor<1x8x1xf16> -> tensor<1x16x1xf16>
      %9 = mirage_block.concat %8, %8 dim 1 : tensor<1x16x1xf16>, tensor<1x16x1xf16> -> tensor<1x32x1xf16>
      %12 = mirage_block.binary sub %5, %9 : tensor<1x32x1xf16>, tensor<1x32x1xf16> -> tensor<1x32x1xf16>
      %13 = mirage_block.unary exp %12 : tensor<1x32x1xf16>
      %14 = mirage_block.binary mul %4, %13 : tensor<1x32x1xf16>, tensor<1x32x1xf16> -> tensor<1x32x1xf16>
      %15 = mirage_block.reduce sum %14 dim 1 to 4 : tensor<1x32x1xf16> -> tensor<1x4x1xf16>
      %16 = mirage_block.accum sum %15 : tensor<1x4x1xf16> -> tensor<1x4x1xf16>
      %17 = mirage_block.input_iterator %arg7 imap = [0, 2, -1] fmap = -1 : tensor<8x32x128xf16> -> tensor<1x32x16xf16>
      %18 = mirage_block.binary mul %17, %13 : tensor<1x32x16xf16>, tensor<1x32x1xf16> -> tensor<1x32x16xf16>
      %19 = mirage_block.reduce sum %18 dim 1 to 4 : tensor<1x32x16xf16> -> tensor<1x4x16xf16>
      %20 = mirage_block.accum sum %19 : tensor<1x4x16xf16> -> tensor<1x4x16xf16>
      %21 = mirage_block.binary div %20, %16 : tensor<1x4x16xf16>, tensor<1x4x1xf16> -> tensor<1x4x16xf16>
      %22 = mirage_block.output_saver %21 omap = [0, 2, -1] : tensor<1x4x16xf16> -> tensor<8x4x128xf16>
      mirage_block.yield %22 : tensor<8x4x128xf16>
    }
    mirage_kernel.yield %3 : tensor<8x4x128xf16>
  }
  return %0 : tensor<8x4x128xf16>
}
