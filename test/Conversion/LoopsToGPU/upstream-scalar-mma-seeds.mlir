// Pins the upstream behaviour behind hideScalarMmaSeeds
// (UpstreamWorkarounds.h): LLVM 22's convertVectorToNVVMCompatibleMMASync
// (here through convert-vector-to-gpu in nvgpu mode) seeds its slices at
// scalar element-wise ops too and fails the whole function on one of them,
// although the contraction alone converts. When the first RUN line starts
// failing, upstream skips scalar ops: drop the workaround.

// RUN: not mlir-opt %s --convert-vector-to-gpu="use-nvgpu=true" 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: error: unhandled vector to mma type: {{.*}}arith.negf

// Without the scalar op the same contraction becomes mma.sync.
// RUN: grep -v '%n\b' %s | mlir-opt --convert-vector-to-gpu="use-nvgpu=true" | FileCheck %s --check-prefix=ALONE
// ALONE: nvgpu.mma.sync

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @contract_and_negf(%A: memref<16x16xf16, #gpu.address_space<workgroup>>, %B: memref<8x16xf16, #gpu.address_space<workgroup>>, %C: memref<16x8xf32, #gpu.address_space<workgroup>>, %s: f32, %o: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %pf = arith.constant 0.0 : f16
  %p32 = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0], %pf {in_bounds = [true, true]} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
  %b = vector.transfer_read %B[%c0, %c0], %pf {in_bounds = [true, true]} : memref<8x16xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
  %c = vector.transfer_read %C[%c0, %c0], %p32 {in_bounds = [true, true]} : memref<16x8xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
  %d = vector.contract {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
  vector.transfer_write %d, %C[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32, #gpu.address_space<workgroup>>
  %n = arith.negf %s : f32
  memref.store %n, %o[%c0] : memref<1xf32>
  return
}
