// No two threads touch a shared byte between barriers unless both read
// (SharedRaces.cpp, docs/Rationale/SharedMemoryRaces.md). The check runs
// each thread's index arithmetic and changes nothing.

// RUN: mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-gpu-check-shared-races))' -verify-diagnostics | FileCheck %s

// Accepted: each thread writes its element, a barrier, then every thread
// reads its neighbour's; a tile copied with cp.async (4 floats per thread),
// waited for and a barrier before it is read; reads of one element by all
// threads; a pipeline of two slots that copies into the slot the loop does
// not read in the same interval (the loop runs its first and last 8 of 40
// iterations).
// CHECK-LABEL: func.func @race_free
// CHECK: nvgpu.device_async_copy
module {
  builtin.module @mirage_kernels {
    func.func @race_free(%g: memref<4096xf32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %c0 = arith.constant 0 : index
        %c2 = arith.constant 2 : index
        %c40 = arith.constant 40 : index
        %v = arith.constant 1.0 : f32
        %s = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %t = memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
        %p = memref.alloc() : memref<2x128xf32, #gpu.address_space<workgroup>>
        memref.store %v, %s[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %n = affine.apply affine_map<()[s0] -> ((s0 + 1) mod 128)>()[%tx]
        %x = memref.load %s[%n] : memref<128xf32, #gpu.address_space<workgroup>>
        %y = memref.load %s[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
        %i4 = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%tx]
        %tok = nvgpu.device_async_copy %g[%i4], %t[%i4], 4 : memref<4096xf32> to memref<512xf32, #gpu.address_space<workgroup>>
        nvvm.cp.async.commit.group
        nvvm.cp.async.wait.group 0
        gpu.barrier
        %z = memref.load %t[%n] : memref<512xf32, #gpu.address_space<workgroup>>
        // Group 0: every thread copies; group 1: only threads 0-15. A thread
        // with no copy in group 1 still commits it (empty), so its
        // wait_group 1 retires group 0 as every other thread's does.
        %q = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %r16 = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
        %tq = nvgpu.device_async_copy %g[%tx], %q[%tx], 1 : memref<4096xf32> to memref<128xf32, #gpu.address_space<workgroup>>
        nvvm.cp.async.commit.group
        %c16 = arith.constant 16 : index
        %lt16 = arith.cmpi ult, %tx, %c16 : index
        scf.if %lt16 {
          %tr = nvgpu.device_async_copy %g[%tx], %r16[%tx], 1 : memref<4096xf32> to memref<16xf32, #gpu.address_space<workgroup>>
        }
        nvvm.cp.async.commit.group
        nvvm.cp.async.wait.group 1
        gpu.barrier
        %qn = memref.load %q[%n] : memref<128xf32, #gpu.address_space<workgroup>>
        nvvm.cp.async.wait.group 0
        gpu.barrier
        scf.for %k = %c0 to %c40 step %c1 {
          %cur = affine.apply affine_map<(d0) -> (d0 mod 2)>(%k)
          %nxt = affine.apply affine_map<(d0) -> ((d0 + 1) mod 2)>(%k)
          %gi = affine.apply affine_map<(d0)[s0] -> (d0 * 128 + s0)>(%k)[%tx]
          %tok2 = nvgpu.device_async_copy %g[%gi], %p[%nxt, %tx], 1 : memref<4096xf32> to memref<2x128xf32, #gpu.address_space<workgroup>>
          nvvm.cp.async.commit.group
          %r = memref.load %p[%cur, %n] : memref<2x128xf32, #gpu.address_space<workgroup>>
          nvvm.cp.async.wait.group 0
          gpu.barrier
        }
        gpu.terminator
      }
      return
    }
  }
}

// -----

// Thread t writes element t + 1 while thread t + 1 reads it: no barrier.
module {
  builtin.module @mirage_kernels {
    func.func @neighbour_race(%o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %v = arith.constant 1.0 : f32
        %s = memref.alloc() : memref<129xf32, #gpu.address_space<workgroup>>
        // expected-error @below {{shared-memory race: thread 1 reads byte 4 of a shared buffer that thread 0 writes with no barrier between}}
        %x = memref.load %s[%tx] : memref<129xf32, #gpu.address_space<workgroup>>
        %n = affine.apply affine_map<()[s0] -> (s0 + 1)>()[%tx]
        // expected-note @below {{the other access}}
        memref.store %v, %s[%n] : memref<129xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        gpu.terminator
      }
      return
    }
  }
}

// -----

// Write after read across a pipeline: the loop copies the next tile into
// the slot other threads still read, with no barrier between the read and
// the copy (the copy may land at once).
module {
  builtin.module @mirage_kernels {
    func.func @copy_over_a_read(%g: memref<4096xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %c0 = arith.constant 0 : index
        %c4 = arith.constant 4 : index
        %p = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        scf.for %k = %c0 to %c4 step %c1 {
          %n = affine.apply affine_map<()[s0] -> ((s0 + 1) mod 128)>()[%tx]
          // expected-note @below {{the other access}}
          %r = memref.load %p[%n] : memref<128xf32, #gpu.address_space<workgroup>>
          %gi = affine.apply affine_map<(d0)[s0] -> (d0 * 128 + s0)>(%k)[%tx]
          // expected-error @below {{shared-memory race: thread 1 writes byte 4 of a shared buffer that thread 0 reads with no barrier between}}
          %tok = nvgpu.device_async_copy %g[%gi], %p[%tx], 1 : memref<4096xf32> to memref<128xf32, #gpu.address_space<workgroup>>
          nvvm.cp.async.commit.group
          nvvm.cp.async.wait.group 0
          gpu.barrier
        }
        gpu.terminator
      }
      return
    }
  }
}

// -----

// A copy still in flight across a barrier: thread t's cp.async lands at
// some point before its wait, which comes after the barrier, so thread
// t + 1 may read the element before it lands.
module {
  builtin.module @mirage_kernels {
    func.func @read_before_the_wait(%g: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %p = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        // expected-error @below {{shared-memory race: thread 1 writes byte 4 of a shared buffer that thread 0 reads with no barrier between}}
        %tok = nvgpu.device_async_copy %g[%tx], %p[%tx], 1 : memref<128xf32> to memref<128xf32, #gpu.address_space<workgroup>>
        nvvm.cp.async.commit.group
        gpu.barrier
        %n = affine.apply affine_map<()[s0] -> ((s0 + 1) mod 128)>()[%tx]
        // expected-note @below {{the other access}}
        %r = memref.load %p[%n] : memref<128xf32, #gpu.address_space<workgroup>>
        nvvm.cp.async.wait.group 0
        gpu.barrier
        gpu.terminator
      }
      return
    }
  }
}

// -----

// An address loaded from memory: the run cannot follow it, and says so.
module {
  builtin.module @mirage_kernels {
    func.func @address_from_data(%idx: memref<128xindex>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %v = arith.constant 1.0 : f32
        %s = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
        %i = memref.load %idx[%tx] : memref<128xindex>
        // expected-remark @below {{shared-memory race check skipped: an index computed from data}}
        memref.store %v, %s[%i] : memref<128xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        gpu.terminator
      }
      return
    }
  }
}

// mirage-loops-to-gpu runs the check after the convergence check.
// RUN: mirage-opt /dev/null --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=smem}))' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: mirage-gpu-check-convergence
// PIPELINE-NEXT: mirage-gpu-check-shared-races
