// Asynchronous copies land before their tiles are read (AsyncCopies.cpp,
// AsyncCopyOrder.cpp).
//
// @two_tiles: A's, B's and C's tiles are copied in one group (by 32, 16 and
// 8 threads: three phases), then phases read A, B and C. The group's commit
// and wait go before the first reader (of A), with a barrier between them
// and it. They used to go at the first barrier after the group's last copy
// phase, which gpu-eliminate-barriers (seeing synchronous copies) may drop
// when the next phase reads only tiles copied earlier: operators run before
// the loop read the first tiles right after the copies
// (LoopInvariantOps.md; test/Conversion/KernelsToPTX/running-max-unused-
// prev.mlir is such a kernel).
//
// @explicit_wait: the copies of A form group 0 and those of B group 1, whose
// explicit wait (mirage_kernel.prefetch_wait = 1) leaves group 1 pending
// and retires group 0, then A is read: the wait and a barrier go right
// after B's copies. @too_shallow: with a wait of 2, group 0 would still be
// pending when A is read: the check after the stage refuses the kernel.
// (B's phase has its own thread guard; two groups' copies in one phase
// would be one group.)

// RUN: mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=copies}))' -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @two_tiles
// CHECK-COUNT-3: nvgpu.device_async_copy
// CHECK-NOT: nvvm.cp.async
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load {{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
module {
  builtin.module @mirage_kernels {
    func.func @two_tiles(%a: memref<128xf32>, %b: memref<64xf32>, %c: memref<32xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %As = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %Bs = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
        %Cs = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (32) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<128xf32>, vector<4xf32>
          vector.transfer_write %x, %As[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 1 : i64} : vector<4xf32>, memref<128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (16) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %y = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<4xf32>
          vector.transfer_write %y, %Bs[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 1 : i64} : vector<4xf32>, memref<64xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (8) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %z = vector.transfer_read %c[%i], %pad {in_bounds = [true]} : memref<32xf32>, vector<4xf32>
          vector.transfer_write %z, %Cs[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 1 : i64} : vector<4xf32>, memref<32xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          %v = memref.load %As[%t] : memref<128xf32, #gpu.address_space<workgroup>>
          memref.store %v, %o[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (64) {
          %w = memref.load %Bs[%t] : memref<64xf32, #gpu.address_space<workgroup>>
          memref.store %w, %o[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (32) {
          %w = memref.load %Cs[%t] : memref<32xf32, #gpu.address_space<workgroup>>
          memref.store %w, %o[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// CHECK-LABEL: func.func @explicit_wait
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load {{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
module {
  builtin.module @mirage_kernels {
    func.func @explicit_wait(%a: memref<128xf32>, %b: memref<64xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %As = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %Bs = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (32) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<128xf32>, vector<4xf32>
          vector.transfer_write %x, %As[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 3 : i64} : vector<4xf32>, memref<128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (16) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %y = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<4xf32>
          vector.transfer_write %y, %Bs[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 3 : i64, mirage_kernel.prefetch_wait = 1 : i64} : vector<4xf32>, memref<64xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          %v = memref.load %As[%t] : memref<128xf32, #gpu.address_space<workgroup>>
          memref.store %v, %o[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

module {
  builtin.module @mirage_kernels {
    func.func @too_shallow(%a: memref<128xf32>, %b: memref<64xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %As = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %Bs = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (32) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<128xf32>, vector<4xf32>
          vector.transfer_write %x, %As[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 3 : i64} : vector<4xf32>, memref<128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (16) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %y = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<4xf32>
          vector.transfer_write %y, %Bs[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 3 : i64, mirage_kernel.prefetch_wait = 2 : i64} : vector<4xf32>, memref<64xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          // expected-error @+1 {{reads a shared tile before its asynchronous copies are complete and visible: no cp.async.wait_group has retired its copies}}
          %v = memref.load %As[%t] : memref<128xf32, #gpu.address_space<workgroup>>
          memref.store %v, %o[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// @stage_read_in_prologue: a two-stage pipeline whose buffer (two slots of
// one tile, written by the prologue's group and the loop's) is read before
// the loop, where no wait has retired any of its groups: refused. (In the
// loop the stage's wait comes before the read.)
module {
  builtin.module @mirage_kernels {
    func.func @stage_read_in_prologue(%a: memref<256xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %S = memref.alloc() : memref<2x128xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (32) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<256xf32>, vector<4xf32>
          vector.transfer_write %x, %S[%c0, %i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          // expected-error @+1 {{reads a shared tile before its asynchronous copies are complete and visible: no cp.async.wait_group has retired any of its copies}}
          %v = memref.load %S[%c0, %t] : memref<2x128xf32, #gpu.address_space<workgroup>>
          memref.store %v, %o[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
        scf.for %it = %c0 to %c2 step %c1 {
          %slot = affine.apply affine_map<(d0) -> ((d0 + 1) mod 2)>(%it)
          scf.forall (%t) in (32) {
            %i = affine.apply affine_map<(d0) -> (d0 * 4 + 128)>(%t)
            %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<256xf32>, vector<4xf32>
            vector.transfer_write %x, %S[%slot, %i] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x128xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.thread<x>]}
          %cur = affine.apply affine_map<(d0) -> (d0 mod 2)>(%it)
          scf.forall (%t) in (128) {
            %v = memref.load %S[%cur, %t] : memref<2x128xf32, #gpu.address_space<workgroup>>
            memref.store %v, %o[%t] : memref<128xf32>
          } {mapping = [#gpu.thread<x>]}
        }
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// @invariant_tile_read_first: the prologue's group 0 copies a loop-invariant
// tile Q and the first slot of a two-stage buffer S; each iteration copies
// the next slot (group 1) and then reads Q before S, as an unrolled K loop
// does (its first ldmatrix reads the invariant A tile: MmaChains.md, "A
// warp's fragments in one K loop"). The stage's wait retires group 0 too,
// so it goes before the read of Q, not before the first read of its own
// tiles, which would leave Q read while group 0 may still be pending.
// CHECK-LABEL: func.func @invariant_tile_read_first
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load {{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
module {
  builtin.module @mirage_kernels {
    func.func @invariant_tile_read_first(%q: memref<128xf32>, %a: memref<256xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %Q = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %S = memref.alloc() : memref<2x128xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (32) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %x = vector.transfer_read %q[%i], %pad {in_bounds = [true]} : memref<128xf32>, vector<4xf32>
          vector.transfer_write %x, %Q[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<128xf32, #gpu.address_space<workgroup>>
          %y = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<256xf32>, vector<4xf32>
          vector.transfer_write %y, %S[%c0, %i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.for %it = %c0 to %c2 step %c1 {
          %slot = affine.apply affine_map<(d0) -> ((d0 + 1) mod 2)>(%it)
          scf.forall (%t) in (32) {
            %i = affine.apply affine_map<(d0) -> (d0 * 4 + 128)>(%t)
            %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<256xf32>, vector<4xf32>
            vector.transfer_write %x, %S[%slot, %i] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x128xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%t) in (128) {
            %v = memref.load %Q[%t] : memref<128xf32, #gpu.address_space<workgroup>>
            memref.store %v, %o[%t] : memref<128xf32>
          } {mapping = [#gpu.thread<x>]}
          %cur = affine.apply affine_map<(d0) -> (d0 mod 2)>(%it)
          scf.forall (%t) in (128) {
            %v = memref.load %S[%cur, %t] : memref<2x128xf32, #gpu.address_space<workgroup>>
            memref.store %v, %o[%t] : memref<128xf32>
          } {mapping = [#gpu.thread<x>]}
        }
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}
