// Element phases in vectors of consecutive elements
// (docs/Rationale/VectorElementPhases.md). Per iteration the kernel scales
// a 64x128 f16 tile of x by a row factor s (broadcast along the last dim),
// takes exp and sums the two iterations in an f32 accumulator; beside it, a
// 64x6 f32 tile of z gets a sigmoid and a 64x3 one stays scalar.
//
// * x·s, exp (as exp2, its result being f16) and the accumulator's start
//   and combine: 4 elements per step (8192 elements, 2048 steps for 128
//   threads): one vector.load per tile operand, one memref.load of s per
//   step, one vector.store.
// * 64x6: 4 does not divide the rows, 2 does and leaves 192 steps: pairs.
// * 64x3: neither does: one element per step, as before.
// * The row max of exp(x·s) and `accum sum_last` of x (64 rows of 128, two
//   lanes per row): each lane folds 16 vectors of 4 consecutive elements,
//   lane l the vectors l, l + 2, ... (VectorElementPhases.md, "Reduction
//   lanes in vectors too").
//
// The CPU runs the lowered loops (the vector accesses, aligned as stated,
// on 16-byte aligned stack tiles) and compares them with the evaluator.
//
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=RED
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0.sm_90.ptx %}

// CPU: remark: graph 'graph0' on the CPU matches the evaluator
// CPU-NOT: error:

// The accumulators start at 0: x's 4 elements per step, z's in pairs, u's
// one by one.
// LOOPS-LABEL: func.func @graph0_k0(
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c2048 step %c128 {
// LOOPS: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c192 step %c128 {
// LOOPS: vector.store %{{.*}} {alignment = 8 : i64} : memref<64x6xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c192 step %c128 {
// LOOPS: memref.store %{{.*}} : memref<64x3xf32, #gpu.address_space<workgroup>>
// The sigmoids of the loop-invariant tiles, before the loop: pairs for
// 64x6, single elements for 64x3.
// Their results are f32: exp stays math.exp (HalfPrecisionExp.md).
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c192 step %c128 {
// LOOPS: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x6xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// LOOPS-COUNT-2: math.exp %
// LOOPS: vector.store %{{.*}} {alignment = 8 : i64} : memref<64x6xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c192 step %c128 {
// LOOPS-NOT: vector.load
// LOOPS: memref.load %{{.*}} : memref<64x3xf32, #gpu.address_space<workgroup>>
// LOOPS-NOT: vector.load
// LOOPS: memref.store %{{.*}} : memref<64x3xf32, #gpu.address_space<workgroup>>
// In the loop, x·s: x's 4 elements in one load from the stage buffer, s
// once per step, 4 products, one store.
// LOOPS: scf.for %{{.*}} = %c0{{.*}} to %c2 step %c1 {
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c2048 step %c128 {
// LOOPS: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<4xf16>
// LOOPS: memref.load %{{.*}} : memref<64x1xf16, #gpu.address_space<workgroup>>
// LOOPS-COUNT-4: arith.mulf
// LOOPS: vector.store %{{.*}} {alignment = 8 : i64} : memref<64x128xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// exp, 4 per step, stored in f16: as exp2(x·log2 e) (HalfPrecisionExp.md).
// LOOPS: vector.load %{{.*}} : memref<64x128xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// LOOPS-NOT: math.exp %
// LOOPS-COUNT-4: math.exp2
// LOOPS: vector.store
// The combine: the contribution and the state, 4 each.
// LOOPS: vector.load %{{.*}} : memref<64x128xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// LOOPS: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// LOOPS-COUNT-4: arith.addf
// LOOPS: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// LOOPS: vector.load %{{.*}} : memref<64x6xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// LOOPS: vector.store %{{.*}} : memref<64x6xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c192 step %c128 {
// LOOPS-NOT: vector.load
// LOOPS: memref.store %{{.*}} : memref<64x3xf32, #gpu.address_space<workgroup>>

// RED-LABEL: func.func @graph0_k0(
// RED: scf.forall
// RED: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x128xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// RED-COUNT-3: arith.maximumf
// RED: scf.for %{{.*}} = %{{.*}} to %c16 step %{{.*}} iter_args
// RED: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x128xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// RED-COUNT-4: arith.maximumf
// RED: memref.store %{{.*}} : memref<64x2xf32, #gpu.address_space<workgroup>>
// RED: mirage_kernel.reduction_fold
// RED: scf.forall
// RED: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<4xf16>
// RED-COUNT-3: arith.addf
// RED: scf.for %{{.*}} = %{{.*}} to %c16 step %{{.*}} iter_args
// RED: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<4xf16>
// RED-COUNT-4: arith.addf
// RED: mirage_kernel.reduction_fold

// The GPU path keeps the widths: 16-byte f32 and 8-byte f16 accesses.
// PTX: .entry graph0_k0
// PTX-DAG: ld.shared.v4.b16
// PTX-DAG: ld.shared.v4.b32
// PTX-DAG: st.shared.v4.b32
// PTX-DAG: ld.shared.v2.b32
// PTX-DAG: ex2.approx.f32

module {
  func.func @f(%x: tensor<64x256xf16>, %s: tensor<64x1xf16>, %z: tensor<64x6xf32>, %u: tensor<64x3xf32>) -> (tensor<64x128xf16>, tensor<64x6xf32>, tensor<64x3xf32>, tensor<64x1xf16>, tensor<64x1xf16>) {
    %0:5 = mirage_kernel.graph "graph0"(%x, %s, %z, %u) : (tensor<64x256xf16>, tensor<64x1xf16>, tensor<64x6xf32>, tensor<64x3xf32>) -> (tensor<64x128xf16>, tensor<64x6xf32>, tensor<64x3xf32>, tensor<64x1xf16>, tensor<64x1xf16>) {
    ^bb0(%a: tensor<64x256xf16>, %b: tensor<64x1xf16>, %c: tensor<64x6xf32>, %d: tensor<64x3xf32>):
      %1:5 = mirage_kernel.custom(%a, %b, %c, %d) grid = [1, 1, 1] forloop = 2 : (tensor<64x256xf16>, tensor<64x1xf16>, tensor<64x6xf32>, tensor<64x3xf32>) -> (tensor<64x128xf16>, tensor<64x6xf32>, tensor<64x3xf32>, tensor<64x1xf16>, tensor<64x1xf16>) {
      ^bb0(%xa: tensor<64x256xf16>, %sa: tensor<64x1xf16>, %za: tensor<64x6xf32>, %ua: tensor<64x3xf32>):
        %xt = mirage_block.input_iterator %xa imap = [-1, -1, -1] fmap = 1 : tensor<64x256xf16> -> tensor<64x128xf16>
        %st = mirage_block.input_iterator %sa imap = [-1, -1, -1] fmap = -1 : tensor<64x1xf16> -> tensor<64x1xf16>
        %p = mirage_block.binary mul %xt, %st : tensor<64x128xf16>, tensor<64x1xf16> -> tensor<64x128xf16>
        %e = mirage_block.unary exp %p : tensor<64x128xf16>
        %acc = mirage_block.accum sum %e : tensor<64x128xf16> -> tensor<64x128xf16>
        %o = mirage_block.output_saver %acc omap = [-1, -1, -1] : tensor<64x128xf16> -> tensor<64x128xf16>
        %m = mirage_block.reduce max %e dim 1 to 1 : tensor<64x128xf16> -> tensor<64x1xf16>
        %macc = mirage_block.accum sum %m : tensor<64x1xf16> -> tensor<64x1xf16>
        %mo = mirage_block.output_saver %macc omap = [-1, -1, -1] : tensor<64x1xf16> -> tensor<64x1xf16>
        %sq = mirage_block.accum sum_last %xt : tensor<64x128xf16> -> tensor<64x1xf16>
        %sqo = mirage_block.output_saver %sq omap = [-1, -1, -1] : tensor<64x1xf16> -> tensor<64x1xf16>
        %zt = mirage_block.input_iterator %za imap = [-1, -1, -1] fmap = -1 : tensor<64x6xf32> -> tensor<64x6xf32>
        %zs = mirage_block.unary sigmoid %zt : tensor<64x6xf32>
        %zacc = mirage_block.accum sum %zs : tensor<64x6xf32> -> tensor<64x6xf32>
        %zo = mirage_block.output_saver %zacc omap = [-1, -1, -1] : tensor<64x6xf32> -> tensor<64x6xf32>
        %ut = mirage_block.input_iterator %ua imap = [-1, -1, -1] fmap = -1 : tensor<64x3xf32> -> tensor<64x3xf32>
        %us = mirage_block.unary sigmoid %ut : tensor<64x3xf32>
        %uacc = mirage_block.accum sum %us : tensor<64x3xf32> -> tensor<64x3xf32>
        %uo = mirage_block.output_saver %uacc omap = [-1, -1, -1] : tensor<64x3xf32> -> tensor<64x3xf32>
        mirage_block.yield %o, %zo, %uo, %mo, %sqo : tensor<64x128xf16>, tensor<64x6xf32>, tensor<64x3xf32>, tensor<64x1xf16>, tensor<64x1xf16>
      }
      mirage_kernel.yield %1#0, %1#1, %1#2, %1#3, %1#4 : tensor<64x128xf16>, tensor<64x6xf32>, tensor<64x3xf32>, tensor<64x1xf16>, tensor<64x1xf16>
    }
    return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<64x128xf16>, tensor<64x6xf32>, tensor<64x3xf32>, tensor<64x1xf16>, tensor<64x1xf16>
  }
}
