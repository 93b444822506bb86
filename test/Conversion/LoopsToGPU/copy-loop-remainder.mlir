// A tile's copies dealt to 128 threads when their count is not a multiple
// of 128 (docs/Rationale/LaunchPlan.md, "Pipelines"): 448 16-byte copies
// are 3 whole trips for every thread and a fourth for threads 0-63. The
// thread-strided loop (`scf.for %i = %tid to 448 step 128`, trips that
// depend on the thread) becomes the guarded remainder and a loop of
// constant trip count 3, unrolled here like every copy loop of at most
// kMaxGroupedCopiesPerThread trips, cp.async ones included (AsyncCopies.cpp;
// left to LLVM, a loop whose addresses divide stayed a loop), all in the
// one group that the wait retires. @no_copies: a loop that copies nothing
// keeps its form.

// RUN: mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=copies}))' | FileCheck %s

// CHECK-LABEL: func.func @remainder
// CHECK-NOT: scf.for {{.*}} = %thread_id_x
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[REST:.*]] = arith.cmpi ult, %thread_id_x, %[[C64]] : index
// CHECK: scf.if %[[REST]] {
// CHECK: nvgpu.device_async_copy {{.*}}{{$}}
// CHECK-NEXT: }
// CHECK-NOT: scf.for
// CHECK-COUNT-3: nvgpu.device_async_copy {{.*}}{{$}}
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
module {
  builtin.module @mirage_kernels {
    func.func @remainder(%a: memref<1792xf32>, %o: memref<1792xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %SA = memref.alloc() : memref<1792xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %c448 = arith.constant 448 : index
          scf.for %k = %t to %c448 step %c128 {
            %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%k)
            %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<1792xf32>, vector<4xf32>
            vector.transfer_write %x, %SA[%i] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 1 : i64} : vector<4xf32>, memref<1792xf32, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %c1792 = arith.constant 1792 : index
          scf.for %k = %t to %c1792 step %c128 {
            %v = memref.load %SA[%k] : memref<1792xf32, #gpu.address_space<workgroup>>
            memref.store %v, %o[%k] : memref<1792xf32>
          }
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// CHECK-LABEL: func.func @no_copies
// CHECK: scf.for %{{.*}} = %thread_id_x to %c448 step %c128
module {
  builtin.module @mirage_kernels {
    func.func @no_copies(%o: memref<448xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %zero = arith.constant 0.000000e+00 : f32
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %SA = memref.alloc() : memref<448xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %c448 = arith.constant 448 : index
          scf.for %k = %t to %c448 step %c128 {
            memref.store %zero, %SA[%k] : memref<448xf32, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %c448 = arith.constant 448 : index
          scf.for %k = %t to %c448 step %c128 {
            %v = memref.load %SA[%k] : memref<448xf32, #gpu.address_space<workgroup>>
            memref.store %v, %o[%k] : memref<448xf32>
          }
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}
