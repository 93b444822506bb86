// Pins the upstream behaviour behind reorderTransposedALdMatrix
// (UpstreamWorkarounds.h, TransposedDecodeMma.md): LLVM 22's vector-to-nvgpu
// conversion reads a transposed A operand (16x16 f16 from a K-major tile)
// with ldmatrix.x4.trans, lane l addressing stored row l mod 16 (K) and
// column block (l floordiv 16) * 8 (M). ldmatrix hands out the matrices in
// the order of the lanes that address them, so the fragment's registers are
// (M 0-7, K 0-7), (M 0-7, K 8-15), (M 8-15, K 0-7), (M 8-15, K 8-15); the
// mma.sync A fragment wants (M 8-15, K 0-7) second. When these lines start
// failing, upstream has changed its lane mapping: the workaround must go.

// RUN: mlir-opt %s --convert-vector-to-gpu="use-nvgpu=true" | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM-DAG: #[[COLS:.+]] = affine_map<()[s0] -> ((s0 floordiv 16) * 8)>
// UPSTREAM-DAG: #[[ROWS:.+]] = affine_map<()[s0] -> (s0 mod 16)>
// UPSTREAM: %[[LANE:.+]] = gpu.lane_id
// UPSTREAM: %[[C:.+]] = affine.apply #[[COLS]]()[%[[LANE]]]
// UPSTREAM: %[[R:.+]] = affine.apply #[[ROWS]]()[%[[LANE]]]
// UPSTREAM: %[[A:.+]] = nvgpu.ldmatrix %{{.*}}[%[[R]], %[[C]]] {numTiles = 4 : i32, transpose = true}
// UPSTREAM-NOT: vector.shuffle
// UPSTREAM: nvgpu.mma.sync(%[[A]],

// Our tensor-core stage swaps the middle registers between the load and the
// mma.sync; a transposed B (two registers) is left as it is.
// RUN: mirage-opt %s --pass-pipeline='builtin.module(mirage-gpu-tensor-cores)' | FileCheck %s --check-prefix=FIXED
// FIXED: %[[A:.+]] = nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// FIXED: %[[S:.+]] = vector.shuffle %[[A]], %[[A]] [0, 2, 1, 3] : vector<4x2xf16>, vector<4x2xf16>
// FIXED: nvgpu.mma.sync(%[[S]],
// FIXED: %[[B:.+]] = nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// FIXED-NOT: vector.shuffle
// FIXED: nvgpu.mma.sync(%{{.*}}, %[[B]],

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @transposed_a(%W: memref<16x16xf16, #gpu.address_space<workgroup>>, %X: memref<8x16xf16, #gpu.address_space<workgroup>>, %C: memref<16x8xf32, #gpu.address_space<workgroup>>) attributes {mirage_kernel.kernel} {
  %c0 = arith.constant 0 : index
  %pf = arith.constant 0.0 : f16
  %z = arith.constant dense<0.0> : vector<16x8xf32>
  %a = vector.transfer_read %W[%c0, %c0], %pf {in_bounds = [true, true], permutation_map = #t} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
  %b = vector.transfer_read %X[%c0, %c0], %pf {in_bounds = [true, true]} : memref<8x16xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
  %d = vector.contract {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %z : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
  vector.transfer_write %d, %C[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}

func.func @transposed_b(%A: memref<16x16xf16, #gpu.address_space<workgroup>>, %B: memref<16x8xf16, #gpu.address_space<workgroup>>, %C: memref<16x8xf32, #gpu.address_space<workgroup>>) attributes {mirage_kernel.kernel} {
  %c0 = arith.constant 0 : index
  %pf = arith.constant 0.0 : f16
  %z = arith.constant dense<0.0> : vector<16x8xf32>
  %a = vector.transfer_read %A[%c0, %c0], %pf {in_bounds = [true, true]} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
  %b = vector.transfer_read %B[%c0, %c0], %pf {in_bounds = [true, true], permutation_map = #t} : memref<16x8xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
  %d = vector.contract {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %z : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
  vector.transfer_write %d, %C[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}
