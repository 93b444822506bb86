// REQUIRES: ptxas
// (math.exp lowers to libdevice, which comes with the CUDA toolkit that
// provides ptxas.)

// Two f32 element-wise kernels in one module, both end up in one PTX module.
// G_k0 (z = silu(x) * y + x): no warp phase, 16-byte copies of f32 tiles
// (vector<4xf32>) to shared memory, then a thread phase with scalar f32 math.
// Scalar addf/mulf/negf must not disturb the tensor-core stage (upstream's
// vector-to-nvgpu seeds on them and fails). G_k1 (z = 2x + y) works on
// global memory directly; its multiply-add becomes one fma.rn.

// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 ptx-file=%t.ptx}))' | FileCheck %s --check-prefix=BIN
// BIN: gpu.binary @mirage_kernels_ptx {mirage_kernel.ptx_kernels = {G_k0 = array<i64: 0, 16384>, G_k1 = array<i64: 0, 0>}}
// BIN-SAME: .visible .entry G_k0(
// BIN-SAME: .visible .entry G_k1(

// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PTX
// RUN: not grep -q malloc %t.ptx
// Both tiles (8 KiB each) in one .shared buffer at the plan's offsets.
// PTX: .shared .align 16 .b8 __mirage_smem[16384];
// PTX-NOT: .shared .align
// PTX-COUNT-8: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.wait_group 0;
// PTX: bar.sync 0;
// PTX: ld.shared.b32
// PTX: ex2.approx
// PTX: st.global.b32
// PTX-NOT: mma.sync
// PTX: .visible .entry G_k1(
// PTX: ld.global.b32
// PTX: ld.global.b32
// PTX: fma.rn.f32 {{.*}}, 0f40000000,
// PTX: st.global.b32
// PTX-NOT: mma.sync

module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<512x512xf32>, %a1: memref<512x512xf32>, %a2: memref<512x512xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 16, 8, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %pad = arith.constant 0.000000e+00 : f32
      scf.forall (%bx, %by, %bz) in (16, 8, 1) {
        %Xs = memref.alloc() : memref<32x64xf32, #gpu.address_space<workgroup>>
        %Ys = memref.alloc() : memref<32x64xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %c512 = arith.constant 512 : index
          scf.for %v = %t to %c512 step %c128 {
            %r = affine.apply affine_map<(d0) -> (d0 floordiv 16)>(%v)
            %c = affine.apply affine_map<(d0) -> ((d0 mod 16) * 4)>(%v)
            %gr = affine.apply affine_map<(d0, d1) -> (d0 * 32 + d1)>(%bx, %r)
            %gc = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%by, %c)
            %x = vector.transfer_read %a0[%gr, %gc], %pad {in_bounds = [true]} : memref<512x512xf32>, vector<4xf32>
            vector.transfer_write %x, %Xs[%r, %c] {in_bounds = [true]} : vector<4xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
            %y = vector.transfer_read %a1[%gr, %gc], %pad {in_bounds = [true]} : memref<512x512xf32>, vector<4xf32>
            vector.transfer_write %y, %Ys[%r, %c] {in_bounds = [true]} : vector<4xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %c2048 = arith.constant 2048 : index
          %one = arith.constant 1.000000e+00 : f32
          scf.for %i = %t to %c2048 step %c128 {
            %r = affine.apply affine_map<(d0) -> (d0 floordiv 64)>(%i)
            %c = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
            %gr = affine.apply affine_map<(d0, d1) -> (d0 * 32 + d1)>(%bx, %r)
            %gc = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%by, %c)
            %x = memref.load %Xs[%r, %c] : memref<32x64xf32, #gpu.address_space<workgroup>>
            %y = memref.load %Ys[%r, %c] : memref<32x64xf32, #gpu.address_space<workgroup>>
            %nx = arith.negf %x : f32
            %e = math.exp %nx : f32
            %d = arith.addf %e, %one : f32
            %s = arith.divf %x, %d : f32
            %m = arith.mulf %s, %y : f32
            %z = arith.addf %m, %x : f32
            memref.store %z, %a2[%gr, %gc] : memref<512x512xf32>
          }
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
    func.func @G_k1(%a0: memref<512x512xf32>, %a1: memref<512x512xf32>, %a2: memref<512x512xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 512, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (512, 1, 1) {
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %c512 = arith.constant 512 : index
          %two = arith.constant 2.000000e+00 : f32
          scf.for %i = %t to %c512 step %c128 {
            %x = memref.load %a0[%bx, %i] : memref<512x512xf32>
            %y = memref.load %a1[%bx, %i] : memref<512x512xf32>
            %m = arith.mulf %x, %two : f32
            %z = arith.addf %m, %y : f32
            memref.store %z, %a2[%bx, %i] : memref<512x512xf32>
          }
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
    func.func @G(%a0: memref<512x512xf32>, %a1: memref<512x512xf32>) -> memref<512x512xf32> {
      %t = memref.alloc() : memref<512x512xf32>
      %o = memref.alloc() : memref<512x512xf32>
      call @G_k0(%a0, %a1, %t) : (memref<512x512xf32>, memref<512x512xf32>, memref<512x512xf32>) -> ()
      call @G_k1(%t, %a1, %o) : (memref<512x512xf32>, memref<512x512xf32>, memref<512x512xf32>) -> ()
      return %o : memref<512x512xf32>
    }
  }
}
