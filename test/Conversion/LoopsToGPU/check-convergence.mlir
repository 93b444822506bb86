// Barriers only where every thread of the block arrives, shuffles and
// mma.sync only where every lane of the warp does (ConvergentOps.cpp,
// docs/Rationale/ConvergentOps.md). The check changes nothing: the kernels
// that pass come out as they went in.

// RUN: mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-gpu-check-convergence))' -verify-diagnostics | FileCheck %s

// Accepted: a barrier under a condition on the block id and under a flag
// that thread 0 stored and every thread loads after a barrier (the tail
// combine's protocol); shuffles under `tid < 64` (whole warps) and in a
// loop over warps (`tid floordiv 32`); a barrier under `tid < 128` in a
// block of 128 threads (always true).
// CHECK-LABEL: func.func @uniform
// CHECK-COUNT-3: gpu.barrier
// CHECK-COUNT-2: gpu.shuffle
// CHECK: gpu.barrier
module {
  builtin.module @mirage_kernels {
    func.func @uniform(%flags: memref<4xi32>, %o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 4, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %c0 = arith.constant 0 : index
        %c2 = arith.constant 2 : index
        %c64 = arith.constant 64 : index
        %c0_i32 = arith.constant 0 : i32
        %c1_i32 = arith.constant 1 : i32
        %c16_i32 = arith.constant 16 : i32
        %c32_i32 = arith.constant 32 : i32
        %flag = memref.alloc() : memref<1xi32, #gpu.address_space<workgroup>>
        %first = arith.cmpi eq, %bx, %c0 : index
        scf.if %first {
          gpu.barrier
        }
        %t0 = arith.cmpi ult, %tx, %c1 : index
        scf.if %t0 {
          %old = memref.atomic_rmw addi %c1_i32, %flags[%bx] : (i32, memref<4xi32>) -> i32
          %last = arith.cmpi eq, %old, %c1_i32 : i32
          %l = arith.extui %last : i1 to i32
          memref.store %l, %flag[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %f = memref.load %flag[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
        %go = arith.cmpi ne, %f, %c0_i32 : i32
        scf.if %go {
          gpu.barrier
        }
        %x = arith.index_cast %tx : index to i32
        %v = arith.sitofp %x : i32 to f32
        %two = arith.cmpi ult, %tx, %c64 : index
        scf.if %two {
          %s, %ok = gpu.shuffle xor %v, %c16_i32, %c32_i32 : f32
          memref.store %s, %o[%tx] : memref<128xf32>
        }
        %warp = affine.apply affine_map<()[s0] -> (s0 floordiv 32)>()[%tx]
        scf.for %w = %warp to %c4 step %c2 {
          %s, %ok = gpu.shuffle xor %v, %c16_i32, %c32_i32 : f32
          memref.store %s, %o[%w] : memref<128xf32>
        }
        %all = arith.cmpi ult, %tx, %c128 : index
        scf.if %all {
          gpu.barrier
        }
        gpu.terminator
      }
      return
    }
  }
}

// -----

// A barrier that threads 16-127 never reach.
module {
  builtin.module @mirage_kernels {
    func.func @barrier_under_thread_guard(%o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %c16 = arith.constant 16 : index
        %lt = arith.cmpi ult, %tx, %c16 : index
        // expected-note @below {{this condition differs between the threads}}
        scf.if %lt {
          // expected-error @below {{barrier under control that differs between the threads of a block}}
          gpu.barrier
        }
        gpu.terminator
      }
      return
    }
  }
}

// -----

// Whole warps, but not the whole block: a barrier under `tid < 64` hangs.
module {
  builtin.module @mirage_kernels {
    func.func @barrier_under_warp_guard(%o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %c64 = arith.constant 64 : index
        %lt = arith.cmpi ult, %tx, %c64 : index
        // expected-note @below {{this condition differs between the threads}}
        scf.if %lt {
          // expected-error @below {{barrier under control that differs between the threads of a block}}
          gpu.barrier
        }
        gpu.terminator
      }
      return
    }
  }
}

// -----

// A loop whose trip count depends on the lane: a barrier in it is reached a
// different number of times by different threads.
module {
  builtin.module @mirage_kernels {
    func.func @barrier_in_thread_loop(%o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %c0 = arith.constant 0 : index
        %c8 = arith.constant 8 : index
        %lane = affine.apply affine_map<()[s0] -> (s0 mod 8)>()[%tx]
        // expected-note @below {{these loop bounds differ between the threads}}
        scf.for %i = %c0 to %lane step %c1 {
          // expected-error @below {{barrier under control that differs between the threads of a block}}
          gpu.barrier
        }
        gpu.terminator
      }
      return
    }
  }
}

// -----

// A shuffle that lanes 16-31 of warp 0 skip; the condition is computed
// through an scf.if result, which takes its condition's spread.
module {
  builtin.module @mirage_kernels {
    func.func @shuffle_under_lane_guard(%o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %c16 = arith.constant 16 : index
        %true = arith.constant true
        %false = arith.constant false
        %c1_i32 = arith.constant 1 : i32
        %c32_i32 = arith.constant 32 : i32
        %v = arith.constant 1.0 : f32
        %lt = arith.cmpi ult, %tx, %c16 : index
        %sel = scf.if %lt -> (i1) {
          scf.yield %true : i1
        } else {
          scf.yield %false : i1
        }
        // expected-note @below {{this condition differs between the threads}}
        scf.if %sel {
          // expected-error @below {{warp collective under control that differs between the lanes of a warp}}
          %s, %ok = gpu.shuffle xor %v, %c1_i32, %c32_i32 : f32
          memref.store %s, %o[%tx] : memref<128xf32>
        }
        gpu.terminator
      }
      return
    }
  }
}

// -----

// A loop-carried value that becomes per-thread in the loop decides a later
// guard around mma.sync.
module {
  builtin.module @mirage_kernels {
    func.func @mma_under_carried_guard(%o: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
        %c0 = arith.constant 0 : index
        %c4 = arith.constant 4 : index
        %a = arith.constant dense<1.0> : vector<4x2xf16>
        %b = arith.constant dense<1.0> : vector<2x2xf16>
        %acc = arith.constant dense<0.0> : vector<2x2xf32>
        %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %c0) -> (index) {
          %n = arith.addi %s, %tx : index
          scf.yield %n : index
        }
        %odd = arith.cmpi ult, %sum, %c4 : index
        // expected-note @below {{this condition differs between the threads}}
        scf.if %odd {
          // expected-error @below {{warp collective under control that differs between the lanes of a warp}}
          %d = nvgpu.mma.sync(%a, %b, %acc) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        }
        gpu.terminator
      }
      return
    }
  }
}


// mirage-loops-to-gpu runs the check after the last stage that rewrites
// kernels.
// RUN: mirage-opt /dev/null --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=smem}))' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: mirage-workgroup-alloc-to-global
// PIPELINE-NEXT: mirage-gpu-check-convergence
