// mirage-gpu-warp-reductions (WarpReductions.md): the levels of a row
// reduction's tree, tagged by mirage-lower-kernels-to-loops, become one phase
// of xor shuffles that folds with the level's own combine, in the tree's
// order; trees that are not whole f32 trees back to back keep their phases.
// The levels below are written as BlockEmitter::rowReduction emits them.

// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-gpu-warp-reductions))' | FileCheck %s

// The generated PTX of a graph with row reductions (ntrans' unfused
// reference: rms_norm's trees of 32 lanes): the butterflies with the full
// mask, and no shuffle at all with the stage off.
// RUN: rm -rf %t && mkdir -p %t/on %t/off
// RUN: mirage-opt %mirage_src_root/test/Workloads/ntrans.mlir --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t/on" -o /dev/null
// RUN: mirage-opt %mirage_src_root/test/Workloads/ntrans.mlir --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t/off warp-reductions=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/on/ntrans_ref.sm_90.ptx
// RUN: FileCheck %s --check-prefix=OFF < %t/off/ntrans_ref.sm_90.ptx
// PTX-COUNT-5: shfl.sync.bfly.b32 {{.*}}, {{16|8|4|2|1}}, 31, -1;
// OFF-NOT: shfl.sync

#out4 = affine_map<(d0) -> (d0 floordiv 4)>
#lane4 = affine_map<(d0) -> (d0 mod 4)>
#out2 = affine_map<(d0) -> (d0 floordiv 2)>
#lane2 = affine_map<(d0) -> (d0 mod 2)>
#other2 = affine_map<(d0) -> (d0 mod 2 + 2)>
#out1 = affine_map<(d0) -> (d0)>
#lane1 = affine_map<(d0) -> (0)>
#other1 = affine_map<(d0) -> (1)>

module {
module @mirage_kernels {

// 40 outputs of 4 lanes, folded by max: 160 lanes, two passes of the 128
// threads, so that every thread runs every shuffle; lane 0 stores. The fold
// phase before the tree (each thread stores the lanes it then loads) joins
// the phase, and so does the finish after it (output out, by the lane that
// holds its value): one forall where there were four.
// CHECK-LABEL: func.func @tree_max
// CHECK-SAME:  (%[[X:.*]]: memref<40x4xf32>)
// CHECK:       %[[BUF:.*]] = memref.alloc() : memref<40x4xf32
// CHECK:       scf.forall (%[[T:.*]]) in (128) {
// CHECK:         scf.for %[[F:.*]] = %[[T]] to %c160 step %c128
// CHECK:           memref.store %{{.*}}, %[[BUF]]
// CHECK-NOT:     scf.forall
// CHECK:         scf.for %[[E:.*]] = %[[T]] to %c256 step %c128{{.*}} {
// CHECK:           %[[VALID:.*]] = arith.cmpi ult, %[[E]], %c160
// CHECK:           %[[OUT:.*]] = arith.divui %[[E]], %c4
// CHECK:           %[[LANE:.*]] = arith.remui %[[E]], %c4
// CHECK:           %[[V:.*]] = scf.if %[[VALID]] -> (f32) {
// CHECK-NEXT:        memref.load %[[BUF]][%[[OUT]], %[[LANE]]]
// CHECK:           %[[P2:.*]], %{{.*}} = gpu.shuffle xor %[[V]], %c2_i32, %c32_i32 : f32
// CHECK-NEXT:      %[[M2:.*]] = arith.maximumf %[[V]], %[[P2]] : f32
// CHECK:           %[[P1:.*]], %{{.*}} = gpu.shuffle xor %[[M2]], %c1_i32, %c32_i32{{.*}} : f32
// CHECK-NEXT:      %[[M1:.*]] = arith.maximumf %[[M2]], %[[P1]] : f32
// CHECK:           %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK:           %[[STORE:.*]] = arith.andi %[[VALID]], %[[LANE0]]
// CHECK:           scf.if %[[STORE]] {
// CHECK-NOT:         memref.store {{.*}}%[[BUF]]
// CHECK:             %[[OLD:.*]] = memref.load %[[X]][%[[OUT]], %c0{{.*}}] : memref<40x4xf32>
// CHECK-NEXT:        %[[NEW:.*]] = arith.maximumf %[[OLD]], %[[M1]] : f32
// CHECK-NEXT:        memref.store %[[NEW]], %[[X]][%[[OUT]], %c0{{.*}}] : memref<40x4xf32>
// CHECK:       } {mapping = [#gpu.thread<x>]}
// CHECK-NOT:   scf.forall
// CHECK-NOT:   reduction_
// CHECK:       return
func.func @tree_max(%x: memref<40x4xf32>) attributes {mirage_kernel.kernel,
    mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
  scf.forall (%bx, %by, %bz) in (1, 1, 1) {
    %buf = memref.alloc() : memref<40x4xf32, #gpu.address_space<workgroup>>
    scf.forall (%t) in (128) {
      %c160 = arith.constant 160 : index
      %c128 = arith.constant 128 : index
      scf.for %e = %t to %c160 step %c128 {
        %o = affine.apply #out4(%e)
        %l = affine.apply #lane4(%e)
        %v = memref.load %x[%o, %l] : memref<40x4xf32>
        memref.store %v, %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_fold = array<i64: 7, 4, 40>}
    scf.forall (%t) in (128) {
      %c80 = arith.constant 80 : index
      %in = arith.cmpi ult, %t, %c80 : index
      scf.if %in {
        %o = affine.apply #out2(%t)
        %l = affine.apply #lane2(%t)
        %p = affine.apply #other2(%t)
        %a = memref.load %buf[%o, %p] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %m = arith.maximumf %b, %a : f32
        memref.store %m, %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 7, 2, 4, 40>}
    scf.forall (%t) in (128) {
      %c40 = arith.constant 40 : index
      %in = arith.cmpi ult, %t, %c40 : index
      scf.if %in {
        %o = affine.apply #out1(%t)
        %l = affine.apply #lane1(%t)
        %p = affine.apply #other1(%t)
        %a = memref.load %buf[%o, %p] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %m = arith.maximumf %b, %a : f32
        memref.store %m, %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 7, 1, 4, 40>}
    scf.forall (%t) in (128) {
      %c40 = arith.constant 40 : index
      %in = arith.cmpi ult, %t, %c40 : index
      scf.if %in {
        %c0 = arith.constant 0 : index
        %v = memref.load %buf[%t, %c0] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %old = memref.load %x[%t, %c0] : memref<40x4xf32>
        %m = arith.maximumf %old, %v : f32
        memref.store %m, %x[%t, %c0] : memref<40x4xf32>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_finish = array<i64: 7, 40>}
  } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
  return
}

// f16 scratch: shuffled values would not be the tree's 32-bit words; kept.
// CHECK-LABEL: func.func @tree_f16
// CHECK-NOT:   gpu.shuffle
// CHECK:       mirage_kernel.reduction_tree = array<i64: 0, 1, 2, 8>
func.func @tree_f16() attributes {mirage_kernel.kernel,
    mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
  scf.forall (%bx, %by, %bz) in (1, 1, 1) {
    %buf = memref.alloc() : memref<8x2xf16, #gpu.address_space<workgroup>>
    scf.forall (%t) in (128) {
      %c8 = arith.constant 8 : index
      %in = arith.cmpi ult, %t, %c8 : index
      scf.if %in {
        %o = affine.apply #out1(%t)
        %l = affine.apply #lane1(%t)
        %p = affine.apply #other1(%t)
        %a = memref.load %buf[%o, %p] : memref<8x2xf16, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o, %l] : memref<8x2xf16, #gpu.address_space<workgroup>>
        %m = arith.addf %b, %a : f16
        memref.store %m, %buf[%o, %l] : memref<8x2xf16, #gpu.address_space<workgroup>>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 0, 1, 2, 8>}
  } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
  return
}

// A phase between two levels (not as rowReduction emits a tree): kept.
// CHECK-LABEL: func.func @tree_apart
// CHECK-NOT:   gpu.shuffle
// CHECK:       mirage_kernel.reduction_tree = array<i64: 3, 2, 4, 40>
// CHECK:       mirage_kernel.reduction_tree = array<i64: 3, 1, 4, 40>
func.func @tree_apart() attributes {mirage_kernel.kernel,
    mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
  scf.forall (%bx, %by, %bz) in (1, 1, 1) {
    %buf = memref.alloc() : memref<40x4xf32, #gpu.address_space<workgroup>>
    scf.forall (%t) in (128) {
      %c80 = arith.constant 80 : index
      %in = arith.cmpi ult, %t, %c80 : index
      scf.if %in {
        %o = affine.apply #out2(%t)
        %l = affine.apply #lane2(%t)
        %p = affine.apply #other2(%t)
        %a = memref.load %buf[%o, %p] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %m = arith.addf %b, %a : f32
        memref.store %m, %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 3, 2, 4, 40>}
    scf.forall (%t) in (128) {
    } {mapping = [#gpu.thread<x>]}
    scf.forall (%t) in (128) {
      %c40 = arith.constant 40 : index
      %in = arith.cmpi ult, %t, %c40 : index
      scf.if %in {
        %o = affine.apply #out1(%t)
        %l = affine.apply #lane1(%t)
        %p = affine.apply #other1(%t)
        %a = memref.load %buf[%o, %p] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %m = arith.addf %b, %a : f32
        memref.store %m, %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 3, 1, 4, 40>}
  } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
  return
}

// Adjacent levels that fold with different ops (addf, then maximumf): the
// shuffles would apply one of them at both levels; kept.
// CHECK-LABEL: func.func @tree_mixed_ops
// CHECK-NOT:   gpu.shuffle
// CHECK:       mirage_kernel.reduction_tree = array<i64: 5, 2, 4, 40>
// CHECK:       mirage_kernel.reduction_tree = array<i64: 5, 1, 4, 40>
func.func @tree_mixed_ops() attributes {mirage_kernel.kernel,
    mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
  scf.forall (%bx, %by, %bz) in (1, 1, 1) {
    %buf = memref.alloc() : memref<40x4xf32, #gpu.address_space<workgroup>>
    scf.forall (%t) in (128) {
      %c80 = arith.constant 80 : index
      %in = arith.cmpi ult, %t, %c80 : index
      scf.if %in {
        %o = affine.apply #out2(%t)
        %l = affine.apply #lane2(%t)
        %p = affine.apply #other2(%t)
        %a = memref.load %buf[%o, %p] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %m = arith.addf %b, %a : f32
        memref.store %m, %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 5, 2, 4, 40>}
    scf.forall (%t) in (128) {
      %c40 = arith.constant 40 : index
      %in = arith.cmpi ult, %t, %c40 : index
      scf.if %in {
        %o = affine.apply #out1(%t)
        %l = affine.apply #lane1(%t)
        %p = affine.apply #other1(%t)
        %a = memref.load %buf[%o, %p] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
        %m = arith.maximumf %b, %a : f32
        memref.store %m, %buf[%o, %l] : memref<40x4xf32, #gpu.address_space<workgroup>>
      }
    } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: 5, 1, 4, 40>}
  } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
  return
}

}
}
