// Barriers that order nothing once the copies are cp.async are dropped
// (stage 3, AsyncBarriers.cpp; docs/Rationale/BarrierElimination.md,
// "Barriers once the copies are asynchronous").
//
// @two_tiles: a two-stage pipeline of two tiles, A (copied by 32 threads)
// and B (by 16: a phase of its own), each with two slots. In the loop, the
// copies of iteration it + 1 go to slot (it + 1) mod 2, which the reads of
// iteration it - 1 used: gpu-eliminate-barriers cannot tell the slots
// apart and keeps the barrier after each copy phase. After A's copies the
// barrier orders nothing (a cp.async writes when its group is waited for),
// so A's and B's copies are issued back to back; the commit, the wait and
// the barrier before the reads stay, as do the barrier ending the body (the
// back edge) and the one before the loop.
//
// @independent_reads: the same pipeline; after the wait, phase P reads A's
// slot into C and phase Q reads B's slot into D, then C and D are summed.
// gpu-eliminate-barriers, seeing B's copy as a synchronous write of B's
// buffer in P's span (the barrier between them ordered nothing it could
// see), keeps the barrier between P and Q, which reads B. Once B's copy is
// a cp.async whose tiles the wait before P retires, P and Q touch
// different buffers: the barrier goes. The one before the sum (C and D
// written, then read) and the loop's last (the WAR barrier before the next
// iteration's copies) stay.
//
// @stored_first: the phase before the copies stores to shared memory: the
// barrier after it orders that store, and stays.

// RUN: mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=copies}))' | FileCheck %s

// eliminate-barriers=false keeps every barrier of the mapping, for a GPU
// run that times both: a barrier between A's and B's copies.
// RUN: mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=copies eliminate-barriers=false}))' | FileCheck %s --check-prefix=OFF
// OFF-LABEL: func.func @two_tiles
// OFF: scf.for
// OFF: nvgpu.device_async_copy
// OFF: gpu.barrier
// OFF: nvgpu.device_async_copy

// CHECK-LABEL: func.func @two_tiles
// The prologue: both tiles' copies, then one barrier before the loop.
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load {{.*}} : memref<2x128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load {{.*}} : memref<2x64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NEXT: }
module {
  builtin.module @mirage_kernels {
    func.func @two_tiles(%a: memref<1024xf32>, %b: memref<512xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %SA = memref.alloc() : memref<2x128xf32, #gpu.address_space<workgroup>>
        %SB = memref.alloc() : memref<2x64xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (32) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<1024xf32>, vector<4xf32>
          vector.transfer_write %x, %SA[%c0, %i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (16) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %y = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<512xf32>, vector<4xf32>
          vector.transfer_write %y, %SB[%c0, %i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x64xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.for %it = %c0 to %c4 step %c1 {
          %slot = affine.apply affine_map<(d0) -> ((d0 + 1) mod 2)>(%it)
          scf.forall (%t) in (32) {
            %i = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1 * 128 + 128)>(%t, %it)
            %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
            %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<1024xf32>, vector<4xf32>
            vector.transfer_write %x, %SA[%slot, %j] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x128xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%t) in (16) {
            %i = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1 * 64 + 64)>(%t, %it)
            %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
            %y = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<512xf32>, vector<4xf32>
            vector.transfer_write %y, %SB[%slot, %j] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x64xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.thread<x>]}
          %cur = affine.apply affine_map<(d0) -> (d0 mod 2)>(%it)
          scf.forall (%t) in (128) {
            %h = affine.apply affine_map<(d0) -> (d0 mod 64)>(%t)
            %v = memref.load %SA[%cur, %t] : memref<2x128xf32, #gpu.address_space<workgroup>>
            %w = memref.load %SB[%cur, %h] : memref<2x64xf32, #gpu.address_space<workgroup>>
            %s = arith.addf %v, %w : f32
            %p = memref.load %o[%t] : memref<128xf32>
            %q = arith.addf %p, %s : f32
            memref.store %q, %o[%t] : memref<128xf32>
          } {mapping = [#gpu.thread<x>]}
        }
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// CHECK-LABEL: func.func @independent_reads
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.load {{.*}} : memref<2x128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: memref.load {{.*}} : memref<2x64xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load {{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load {{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NEXT: }
module {
  builtin.module @mirage_kernels {
    func.func @independent_reads(%a: memref<1024xf32>, %b: memref<512xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %SA = memref.alloc() : memref<2x128xf32, #gpu.address_space<workgroup>>
        %SB = memref.alloc() : memref<2x64xf32, #gpu.address_space<workgroup>>
        %SC = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %SD = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (32) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<1024xf32>, vector<4xf32>
          vector.transfer_write %x, %SA[%c0, %i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (16) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %y = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<512xf32>, vector<4xf32>
          vector.transfer_write %y, %SB[%c0, %i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x64xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.for %it = %c0 to %c4 step %c1 {
          %slot = affine.apply affine_map<(d0) -> ((d0 + 1) mod 2)>(%it)
          scf.forall (%t) in (32) {
            %i = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1 * 128 + 128)>(%t, %it)
            %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
            %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<1024xf32>, vector<4xf32>
            vector.transfer_write %x, %SA[%slot, %j] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x128xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%t) in (16) {
            %i = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1 * 64 + 64)>(%t, %it)
            %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
            %y = vector.transfer_read %b[%i], %pad {in_bounds = [true]} : memref<512xf32>, vector<4xf32>
            vector.transfer_write %y, %SB[%slot, %j] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 2 : i64} : vector<4xf32>, memref<2x64xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.thread<x>]}
          %cur = affine.apply affine_map<(d0) -> (d0 mod 2)>(%it)
          scf.forall (%t) in (128) {
            %v = memref.load %SA[%cur, %t] : memref<2x128xf32, #gpu.address_space<workgroup>>
            memref.store %v, %SC[%t] : memref<128xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%t) in (64) {
            %w = memref.load %SB[%cur, %t] : memref<2x64xf32, #gpu.address_space<workgroup>>
            memref.store %w, %SD[%t] : memref<64xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%t) in (128) {
            %h = affine.apply affine_map<(d0) -> (d0 mod 64)>(%t)
            %v = memref.load %SC[%t] : memref<128xf32, #gpu.address_space<workgroup>>
            %w = memref.load %SD[%h] : memref<64xf32, #gpu.address_space<workgroup>>
            %s = arith.addf %v, %w : f32
            %p = memref.load %o[%t] : memref<128xf32>
            %q = arith.addf %p, %s : f32
            memref.store %q, %o[%t] : memref<128xf32>
          } {mapping = [#gpu.thread<x>]}
        }
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// CHECK-LABEL: func.func @stored_first
// CHECK: memref.store {{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy
module {
  builtin.module @mirage_kernels {
    func.func @stored_first(%a: memref<128xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      %zero = arith.constant 0.000000e+00 : f32
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %SA = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %SC = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (128) {
          memref.store %zero, %SA[%t] : memref<128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          %v = memref.load %SA[%t] : memref<128xf32, #gpu.address_space<workgroup>>
          memref.store %v, %SC[%t] : memref<128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (32) {
          %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
          %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<128xf32>, vector<4xf32>
          vector.transfer_write %x, %SA[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 1 : i64} : vector<4xf32>, memref<128xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          %v = memref.load %SA[%t] : memref<128xf32, #gpu.address_space<workgroup>>
          %w = memref.load %SC[%t] : memref<128xf32, #gpu.address_space<workgroup>>
          %s = arith.addf %v, %w : f32
          memref.store %s, %o[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}
