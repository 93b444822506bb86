// Input of tail-hoisted-accumulators.mlir: graph0_k7 of the reference of
// test/Integration/Codegen/widened-combine-on-cpu.mlir lowered to loops with a
// matmul consumer (P · V) run in the tail of the element-wise kernel before it.
#map = affine_map<(d0) -> ((d0 floordiv 32) mod 4)>
#map1 = affine_map<(d0) -> (d0 mod 32)>
#map2 = affine_map<(d0) -> (d0 * 2)>
#map3 = affine_map<(d0) -> (d0 floordiv 8)>
#map4 = affine_map<(d0) -> (d0 mod 8)>
#map5 = affine_map<(d0, d1, d2, d3, d4) -> (d3)>
#map6 = affine_map<(d0, d1, d2, d3, d4) -> (0)>
#map7 = affine_map<(d0, d1, d2, d3, d4) -> (d2 * 4 + (d0 floordiv 4) mod 4)>
#map8 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 floordiv 4) mod 4)>
#map9 = affine_map<(d0, d1, d2, d3, d4) -> (d4 * 32 + (d0 mod 4) * 8)>
#map10 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 mod 4) * 8)>
#map11 = affine_map<(d0, d1, d2, d3, d4) -> (d4 * 32 + (d0 floordiv 8) mod 32)>
#map12 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 floordiv 8) mod 32)>
#map13 = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 64 + (d0 mod 8) * 8)>
#map14 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 mod 8) * 8)>
#map15 = affine_map<(d0) -> (d0 + 1, 1)>
#map16 = affine_map<(d0) -> ((d0 + 1) mod 2)>
#map17 = affine_map<(d0) -> (d0 mod 2)>
#map18 = affine_map<(d0) -> (d0 * 16)>
#map19 = affine_map<(d0, d1) -> (d0 * 16)>
#map20 = affine_map<(d0, d1) -> (d1 * 16)>
#map21 = affine_map<(d0, d1) -> (d1, d0)>
#map22 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map23 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map24 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map25 = affine_map<(d0) -> (d0 mod 4)>
#map26 = affine_map<(d0) -> (d0 floordiv 4)>
#map27 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 floordiv 16) mod 4)>
#map28 = affine_map<(d0, d1, d2, d3, d4) -> (d2 * 4 + (d0 floordiv 16) mod 4)>
#map29 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 mod 16) * 4)>
#map30 = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 64 + (d0 mod 16) * 4)>
#map31 = affine_map<(d0) -> ((d0 floordiv 64) mod 4)>
#map32 = affine_map<(d0) -> (d0 mod 64)>
#map33 = affine_map<(d0) -> (d0 * 4)>
#map34 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 floordiv 32) mod 4)>
#map35 = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 256 + (d0 mod 32) * 8)>
#map36 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 mod 32) * 8)>
#map37 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 floordiv 64) mod 4)>
#map38 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 mod 64) * 4)>
#map39 = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 256 + (d0 mod 64) * 4)>
#map40 = affine_map<(d0, d1, d2) -> (d2)>
#map41 = affine_map<(d0, d1, d2, d3, d4) -> (d2)>
#map42 = affine_map<(d0, d1, d2, d3, d4) -> (d4 * 512 + (d0 mod 64) * 8)>
#map43 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 mod 64) * 8)>
#map44 = affine_map<(d0) -> (d0 floordiv 32)>
#map45 = affine_map<(d0, d1) -> (d0 + d1)>
#map46 = affine_map<(d0, d1) -> ((d0 + d1 * 32) * 4)>
#map47 = affine_map<(d0) -> (d0 floordiv 16)>
#map48 = affine_map<(d0) -> (d0 mod 16)>
#map49 = affine_map<(d0) -> (d0 mod 16 + 16)>
#map50 = affine_map<(d0) -> (d0 mod 8 + 8)>
#map51 = affine_map<(d0) -> (d0 mod 4 + 4)>
#map52 = affine_map<(d0) -> (d0 floordiv 2)>
#map53 = affine_map<(d0) -> (d0 mod 2 + 2)>
#map54 = affine_map<(d0) -> (d0)>
#map55 = affine_map<(d0) -> (0)>
#map56 = affine_map<(d0) -> (1)>
#map57 = affine_map<(d0, d1, d2, d3, d4) -> (d2 * 4)>
#map58 = affine_map<(d0, d1, d2, d3, d4) -> (d0 mod 4)>
#map59 = affine_map<(d0, d1, d2) -> (d0 + d2 * 4)>
#map60 = affine_map<(d0, d1, d2) -> (d1)>
#map61 = affine_map<(d0, d1, d2, d3, d4) -> (d3 * 4)>
#map62 = affine_map<(d0) -> (d0 + 3, 31)>
#map63 = affine_map<(d0) -> ((d0 + 3) mod 4)>
#map64 = affine_map<(d0, d1, d2, d3, d4) -> (d1)>
#map65 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 floordiv 8) mod 4)>
#map66 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 floordiv 8) mod 64)>
#map67 = affine_map<(d0, d1, d2, d3, d4) -> ((d2 * 2 + d4) * 64 + (d0 mod 8) * 8)>
#map68 = affine_map<(d0, d1, d2, d3, d4) -> ((d2 * 2 + d4) * 64 + (d0 floordiv 8) mod 64)>
#map69 = affine_map<(d0) -> (d0 + 4)>
#map70 = affine_map<(d0) -> (d0 * 8)>
#map71 = affine_map<(d0) -> ((d0 + 4) * 8)>
#map72 = affine_map<(d0, d1) -> (d0 * 64 + d1 * 16)>
#map73 = affine_map<(d0) -> ((d0 floordiv 16) mod 4)>
#map74 = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 32 + (d0 mod 4) * 8)>
#map75 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 floordiv 2) mod 32)>
#map76 = affine_map<(d0, d1, d2, d3, d4) -> (d2 * 16 + (d0 mod 2) * 8)>
#map77 = affine_map<(d0, d1, d2, d3, d4) -> ((d0 mod 2) * 8)>
#map78 = affine_map<(d0, d1) -> (d0 * 4 + d1)>
#map79 = affine_map<(d0, d1) -> (d0 + d1 * 2)>
#map80 = affine_map<(d0, d1, d2, d3, d4) -> (d0 + d1)>
#map81 = affine_map<(d0, d1, d2, d3, d4) -> (d0)>
#map82 = affine_map<(d0, d1, d2, d3, d4) -> (d0 + d2 * 16)>
module {
  module @mirage_kernels {
    func.func @graph0_k7(%arg0: memref<2x4x1024xf16>, %arg1: memref<2x4x1xf16>, %arg2: memref<2x4x1024xf16>, %arg3: memref<2x1024x64xf16>, %arg4: memref<2x4x64xf16>, %arg5: memref<2xi32>) attributes {mirage_kernel.block = array<i64: 128, 1, 1>, mirage_kernel.grid = array<i64: 4, 1, 2>, mirage_kernel.kernel, mirage_kernel.min_blocks_per_sm = 8 : i64} {
      scf.forall (%arg6, %arg7, %arg8) in (4, 1, 2) {
        %alloc = memref.alloc() : memref<1x4x256xf16, #gpu.address_space<workgroup>>
        %alloc_0 = memref.alloc() : memref<1x4x1xf16, #gpu.address_space<workgroup>>
        %alloc_1 = memref.alloc() : memref<1x4x256xf16, #gpu.address_space<workgroup>>
        %alloc_2 = memref.alloc() : memref<1x4x256xf32, #gpu.address_space<workgroup>>
        scf.forall (%arg9) in (128) {
          %c128 = arith.constant 128 : index
          %c256 = arith.constant 256 : index
          scf.for %arg10 = %arg9 to %c256 step %c128 {
            %c0_7 = arith.constant 0 : index
            %3 = affine.apply #map31(%arg10)
            %4 = affine.apply #map32(%arg10)
            %5 = affine.apply #map33(%4)
            %cst = arith.constant 0.000000e+00 : f32
            %6 = vector.from_elements %cst, %cst, %cst, %cst : vector<4xf32>
            vector.store %6, %alloc_2[%c0_7, %3, %5] {alignment = 16 : i64} : memref<1x4x256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
          }
        } {mapping = [#gpu.thread<x>]}
        %c0 = arith.constant 0 : index
        scf.forall (%arg9) in (128) {
          %c128 = arith.constant 128 : index
          %3 = arith.cmpi ult, %arg9, %c128 : index
          scf.if %3 {
            %4 = affine.apply #map5(%arg9, %arg6, %arg7, %arg8, %c0)
            %5 = affine.apply #map6(%arg9, %arg6, %arg7, %arg8, %c0)
            %6 = affine.apply #map34(%arg9, %arg6, %arg7, %arg8, %c0)
            %7 = affine.apply #map34(%arg9, %arg6, %arg7, %arg8, %c0)
            %8 = affine.apply #map35(%arg9, %arg6, %arg7, %arg8, %c0)
            %9 = affine.apply #map36(%arg9, %arg6, %arg7, %arg8, %c0)
            %10 = ub.poison : f16
            %11 = vector.transfer_read %arg0[%4, %6, %8], %10 {in_bounds = [true]} : memref<2x4x1024xf16>, vector<8xf16>
            vector.transfer_write %11, %alloc[%5, %7, %9] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 1 : i64} : vector<8xf16>, memref<1x4x256xf16, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        %c0_3 = arith.constant 0 : index
        scf.forall (%arg9) in (128) {
          %c4 = arith.constant 4 : index
          %3 = arith.cmpi ult, %arg9, %c4 : index
          scf.if %3 {
            %4 = affine.apply #map5(%arg9, %arg6, %arg7, %arg8, %c0_3)
            %5 = affine.apply #map6(%arg9, %arg6, %arg7, %arg8, %c0_3)
            %6 = affine.apply #map58(%arg9, %arg6, %arg7, %arg8, %c0_3)
            %7 = affine.apply #map58(%arg9, %arg6, %arg7, %arg8, %c0_3)
            %8 = affine.apply #map6(%arg9, %arg6, %arg7, %arg8, %c0_3)
            %9 = affine.apply #map6(%arg9, %arg6, %arg7, %arg8, %c0_3)
            %10 = memref.load %arg1[%4, %6, %8] : memref<2x4x1xf16>
            memref.store %10, %alloc_0[%5, %7, %9] {mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 1 : i64} : memref<1x4x1xf16, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%arg9) in (128) {
          %c128 = arith.constant 128 : index
          %c256 = arith.constant 256 : index
          scf.for %arg10 = %arg9 to %c256 step %c128 {
            %c0_7 = arith.constant 0 : index
            %3 = affine.apply #map31(%arg10)
            %4 = affine.apply #map32(%arg10)
            %5 = affine.apply #map33(%4)
            %c0_8 = arith.constant 0 : index
            %6 = vector.load %alloc[%c0_8, %3, %5] {alignment = 8 : i64} : memref<1x4x256xf16, #gpu.address_space<workgroup>>, vector<4xf16>
            %7 = vector.extract %6[0] : f16 from vector<4xf16>
            %8 = arith.extf %7 : f16 to f32
            %9 = vector.extract %6[1] : f16 from vector<4xf16>
            %10 = arith.extf %9 : f16 to f32
            %11 = vector.extract %6[2] : f16 from vector<4xf16>
            %12 = arith.extf %11 : f16 to f32
            %13 = vector.extract %6[3] : f16 from vector<4xf16>
            %14 = arith.extf %13 : f16 to f32
            %c0_9 = arith.constant 0 : index
            %c0_10 = arith.constant 0 : index
            %15 = memref.load %alloc_0[%c0_9, %3, %c0_10] : memref<1x4x1xf16, #gpu.address_space<workgroup>>
            %16 = arith.extf %15 : f16 to f32
            %17 = arith.mulf %8, %16 : f32
            %18 = arith.mulf %10, %16 : f32
            %19 = arith.mulf %12, %16 : f32
            %20 = arith.mulf %14, %16 : f32
            %21 = arith.truncf %17 : f32 to f16
            %22 = arith.truncf %18 : f32 to f16
            %23 = arith.truncf %19 : f32 to f16
            %24 = arith.truncf %20 : f32 to f16
            %25 = vector.from_elements %21, %22, %23, %24 : vector<4xf16>
            vector.store %25, %alloc_1[%c0_7, %3, %5] {alignment = 8 : i64} : memref<1x4x256xf16, #gpu.address_space<workgroup>>, vector<4xf16>
          }
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%arg9) in (128) {
          %c128 = arith.constant 128 : index
          %c256 = arith.constant 256 : index
          scf.for %arg10 = %arg9 to %c256 step %c128 {
            %c0_7 = arith.constant 0 : index
            %3 = affine.apply #map31(%arg10)
            %4 = affine.apply #map32(%arg10)
            %5 = affine.apply #map33(%4)
            %c0_8 = arith.constant 0 : index
            %6 = vector.load %alloc_1[%c0_8, %3, %5] {alignment = 8 : i64} : memref<1x4x256xf16, #gpu.address_space<workgroup>>, vector<4xf16>
            %7 = vector.extract %6[0] : f16 from vector<4xf16>
            %8 = arith.extf %7 : f16 to f32
            %9 = vector.extract %6[1] : f16 from vector<4xf16>
            %10 = arith.extf %9 : f16 to f32
            %11 = vector.extract %6[2] : f16 from vector<4xf16>
            %12 = arith.extf %11 : f16 to f32
            %13 = vector.extract %6[3] : f16 from vector<4xf16>
            %14 = arith.extf %13 : f16 to f32
            %c0_9 = arith.constant 0 : index
            %15 = vector.load %alloc_2[%c0_9, %3, %5] {alignment = 16 : i64} : memref<1x4x256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
            %16 = vector.extract %15[0] : f32 from vector<4xf32>
            %17 = vector.extract %15[1] : f32 from vector<4xf32>
            %18 = vector.extract %15[2] : f32 from vector<4xf32>
            %19 = vector.extract %15[3] : f32 from vector<4xf32>
            %20 = arith.addf %16, %8 : f32
            %21 = arith.addf %17, %10 : f32
            %22 = arith.addf %18, %12 : f32
            %23 = arith.addf %19, %14 : f32
            %24 = vector.from_elements %20, %21, %22, %23 : vector<4xf32>
            vector.store %24, %alloc_2[%c0_7, %3, %5] {alignment = 16 : i64} : memref<1x4x256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
          }
        } {mapping = [#gpu.thread<x>]}
        %c0_4 = arith.constant 0 : index
        scf.forall (%arg9) in (128) {
          %c128 = arith.constant 128 : index
          %c256 = arith.constant 256 : index
          scf.for %arg10 = %arg9 to %c256 step %c128 {
            %3 = affine.apply #map6(%arg10, %arg6, %arg7, %arg8, %c0_4)
            %4 = affine.apply #map5(%arg10, %arg6, %arg7, %arg8, %c0_4)
            %5 = affine.apply #map37(%arg10, %arg6, %arg7, %arg8, %c0_4)
            %6 = affine.apply #map37(%arg10, %arg6, %arg7, %arg8, %c0_4)
            %7 = affine.apply #map38(%arg10, %arg6, %arg7, %arg8, %c0_4)
            %8 = affine.apply #map39(%arg10, %arg6, %arg7, %arg8, %c0_4)
            %9 = ub.poison : f32
            %10 = vector.transfer_read %alloc_2[%3, %5, %7], %9 {in_bounds = [true]} : memref<1x4x256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
            %11 = arith.truncf %10 : vector<4xf32> to vector<4xf16>
            vector.transfer_write %11, %arg2[%4, %6, %8] {in_bounds = [true]} : vector<4xf16>, memref<2x4x1024xf16>
          }
        } {mapping = [#gpu.thread<x>]}
        %alloc_5 = memref.alloc() : memref<1xi32, #gpu.address_space<workgroup>>
        %0 = affine.apply #map40(%arg6, %arg7, %arg8)
        scf.forall (%arg9) in (128) {
          %c1 = arith.constant 1 : index
          %3 = arith.cmpi ult, %arg9, %c1 : index
          scf.if %3 {
            %c1_i32 = arith.constant 1 : i32
            llvm.fence syncscope("device") release
            %4 = memref.atomic_rmw addi %c1_i32, %arg5[%0] : (i32, memref<2xi32>) -> i32
            llvm.fence syncscope("device") acquire
            %c3_i32 = arith.constant 3 : i32
            %5 = arith.cmpi eq, %4, %c3_i32 : i32
            scf.if %5 {
              %c0_i32_8 = arith.constant 0 : i32
              memref.store %c0_i32_8, %arg5[%0] : memref<2xi32>
            }
            %c0_7 = arith.constant 0 : index
            %6 = arith.extui %5 : i1 to i32
            memref.store %6, %alloc_5[%c0_7] : memref<1xi32, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        %c0_6 = arith.constant 0 : index
        %1 = memref.load %alloc_5[%c0_6] : memref<1xi32, #gpu.address_space<workgroup>>
        %c0_i32 = arith.constant 0 : i32
        %2 = arith.cmpi ne, %1, %c0_i32 : i32
        scf.if %2 {
          %c0_7 = arith.constant 0 : index
          %c0_8 = arith.constant 0 : index
          %alloc_9 = memref.alloc() : memref<4x1x8x32xf16, #gpu.address_space<workgroup>>
          %alloc_10 = memref.alloc() : memref<4x1x32x72xf16, #gpu.address_space<workgroup>>
          %alloc_11 = memref.alloc() : memref<1x4x64xf32, #gpu.address_space<workgroup>>
          %alloc_12 = memref.alloc() : memref<64x8xf32, #gpu.address_space<workgroup>>
          scf.forall (%arg9) in (128) {
            %c128 = arith.constant 128 : index
            %3 = arith.cmpi ult, %arg9, %c128 : index
            scf.if %3 {
              %c0_31 = arith.constant 0 : index
              %4 = affine.apply #map(%arg9)
              %5 = affine.apply #map1(%arg9)
              %6 = affine.apply #map2(%5)
              %cst = arith.constant 0.000000e+00 : f32
              %7 = vector.from_elements %cst, %cst : vector<2xf32>
              vector.store %7, %alloc_11[%c0_31, %4, %6] {alignment = 8 : i64} : memref<1x4x64xf32, #gpu.address_space<workgroup>>, vector<2xf32>
            }
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%arg9) in (128) {
            %c128 = arith.constant 128 : index
            %c512 = arith.constant 512 : index
            scf.for %arg10 = %arg9 to %c512 step %c128 {
              %3 = affine.apply #map3(%arg10)
              %4 = affine.apply #map4(%arg10)
              %cst = arith.constant 0.000000e+00 : f32
              memref.store %cst, %alloc_12[%3, %4] : memref<64x8xf32, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          %c0_13 = arith.constant 0 : index
          %c0_14 = arith.constant 0 : index
          %subview = memref.subview %alloc_9[%c0_13, 0, 0, 0] [1, 1, 8, 32] [1, 1, 1, 1] : memref<4x1x8x32xf16, #gpu.address_space<workgroup>> to memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
          %c0_15 = arith.constant 0 : index
          scf.forall (%arg9) in (128) {
            %c16 = arith.constant 16 : index
            %3 = arith.cmpi ult, %arg9, %c16 : index
            scf.if %3 {
              %4 = affine.apply #map5(%arg9, %c0_7, %c0_8, %arg8, %c0_14)
              %5 = affine.apply #map6(%arg9, %c0_7, %c0_8, %arg8, %c0_14)
              %6 = affine.apply #map7(%arg9, %c0_7, %c0_8, %arg8, %c0_14)
              %7 = affine.apply #map8(%arg9, %c0_7, %c0_8, %arg8, %c0_14)
              %8 = affine.apply #map9(%arg9, %c0_7, %c0_8, %arg8, %c0_14)
              %9 = affine.apply #map10(%arg9, %c0_7, %c0_8, %arg8, %c0_14)
              %10 = ub.poison : f16
              %11 = vector.transfer_read %arg2[%4, %6, %8], %10 {in_bounds = [true]} : memref<2x4x1024xf16>, vector<8xf16>
              vector.transfer_write %11, %subview[%5, %7, %9] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 4 : i64} : vector<8xf16>, memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          %subview_16 = memref.subview %alloc_10[%c0_13, 0, 0, 0] [1, 1, 32, 64] [1, 1, 1, 1] : memref<4x1x32x72xf16, #gpu.address_space<workgroup>> to memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
          %c0_17 = arith.constant 0 : index
          scf.forall (%arg9) in (128) {
            %c128 = arith.constant 128 : index
            %c256 = arith.constant 256 : index
            scf.for %arg10 = %arg9 to %c256 step %c128 {
              %3 = affine.apply #map5(%arg10, %c0_7, %c0_8, %arg8, %c0_14)
              %4 = affine.apply #map6(%arg10, %c0_7, %c0_8, %arg8, %c0_14)
              %5 = affine.apply #map11(%arg10, %c0_7, %c0_8, %arg8, %c0_14)
              %6 = affine.apply #map12(%arg10, %c0_7, %c0_8, %arg8, %c0_14)
              %7 = affine.apply #map13(%arg10, %c0_7, %c0_8, %arg8, %c0_14)
              %8 = affine.apply #map14(%arg10, %c0_7, %c0_8, %arg8, %c0_14)
              %9 = ub.poison : f16
              %10 = vector.transfer_read %arg3[%3, %5, %7], %9 {in_bounds = [true]} : memref<2x1024x64xf16>, vector<8xf16>
              vector.transfer_write %10, %subview_16[%4, %6, %8] {in_bounds = [true], mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 4 : i64} : vector<8xf16>, memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          %c1 = arith.constant 1 : index
          %c1_18 = arith.constant 1 : index
          %subview_19 = memref.subview %alloc_9[%c1, 0, 0, 0] [1, 1, 8, 32] [1, 1, 1, 1] : memref<4x1x8x32xf16, #gpu.address_space<workgroup>> to memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
          %c0_20 = arith.constant 0 : index
          scf.forall (%arg9) in (128) {
            %c16 = arith.constant 16 : index
            %3 = arith.cmpi ult, %arg9, %c16 : index
            scf.if %3 {
              %4 = affine.apply #map5(%arg9, %c0_7, %c0_8, %arg8, %c1_18)
              %5 = affine.apply #map6(%arg9, %c0_7, %c0_8, %arg8, %c1_18)
              %6 = affine.apply #map7(%arg9, %c0_7, %c0_8, %arg8, %c1_18)
              %7 = affine.apply #map8(%arg9, %c0_7, %c0_8, %arg8, %c1_18)
              %8 = affine.apply #map9(%arg9, %c0_7, %c0_8, %arg8, %c1_18)
              %9 = affine.apply #map10(%arg9, %c0_7, %c0_8, %arg8, %c1_18)
              %10 = ub.poison : f16
              %11 = vector.transfer_read %arg2[%4, %6, %8], %10 {in_bounds = [true]} : memref<2x4x1024xf16>, vector<8xf16>
              vector.transfer_write %11, %subview_19[%5, %7, %9] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 4 : i64} : vector<8xf16>, memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          %subview_21 = memref.subview %alloc_10[%c1, 0, 0, 0] [1, 1, 32, 64] [1, 1, 1, 1] : memref<4x1x32x72xf16, #gpu.address_space<workgroup>> to memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
          %c0_22 = arith.constant 0 : index
          scf.forall (%arg9) in (128) {
            %c128 = arith.constant 128 : index
            %c256 = arith.constant 256 : index
            scf.for %arg10 = %arg9 to %c256 step %c128 {
              %3 = affine.apply #map5(%arg10, %c0_7, %c0_8, %arg8, %c1_18)
              %4 = affine.apply #map6(%arg10, %c0_7, %c0_8, %arg8, %c1_18)
              %5 = affine.apply #map11(%arg10, %c0_7, %c0_8, %arg8, %c1_18)
              %6 = affine.apply #map12(%arg10, %c0_7, %c0_8, %arg8, %c1_18)
              %7 = affine.apply #map13(%arg10, %c0_7, %c0_8, %arg8, %c1_18)
              %8 = affine.apply #map14(%arg10, %c0_7, %c0_8, %arg8, %c1_18)
              %9 = ub.poison : f16
              %10 = vector.transfer_read %arg3[%3, %5, %7], %9 {in_bounds = [true]} : memref<2x1024x64xf16>, vector<8xf16>
              vector.transfer_write %10, %subview_21[%4, %6, %8] {in_bounds = [true], mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 4 : i64} : vector<8xf16>, memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          %c2 = arith.constant 2 : index
          %c2_23 = arith.constant 2 : index
          %subview_24 = memref.subview %alloc_9[%c2, 0, 0, 0] [1, 1, 8, 32] [1, 1, 1, 1] : memref<4x1x8x32xf16, #gpu.address_space<workgroup>> to memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
          %c0_25 = arith.constant 0 : index
          scf.forall (%arg9) in (128) {
            %c16 = arith.constant 16 : index
            %3 = arith.cmpi ult, %arg9, %c16 : index
            scf.if %3 {
              %4 = affine.apply #map5(%arg9, %c0_7, %c0_8, %arg8, %c2_23)
              %5 = affine.apply #map6(%arg9, %c0_7, %c0_8, %arg8, %c2_23)
              %6 = affine.apply #map7(%arg9, %c0_7, %c0_8, %arg8, %c2_23)
              %7 = affine.apply #map8(%arg9, %c0_7, %c0_8, %arg8, %c2_23)
              %8 = affine.apply #map9(%arg9, %c0_7, %c0_8, %arg8, %c2_23)
              %9 = affine.apply #map10(%arg9, %c0_7, %c0_8, %arg8, %c2_23)
              %10 = ub.poison : f16
              %11 = vector.transfer_read %arg2[%4, %6, %8], %10 {in_bounds = [true]} : memref<2x4x1024xf16>, vector<8xf16>
              vector.transfer_write %11, %subview_24[%5, %7, %9] {in_bounds = [true], mirage_kernel.prefetch_group = 2 : i64, mirage_kernel.prefetch_stages = 4 : i64} : vector<8xf16>, memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          %subview_26 = memref.subview %alloc_10[%c2, 0, 0, 0] [1, 1, 32, 64] [1, 1, 1, 1] : memref<4x1x32x72xf16, #gpu.address_space<workgroup>> to memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
          %c0_27 = arith.constant 0 : index
          scf.forall (%arg9) in (128) {
            %c128 = arith.constant 128 : index
            %c256 = arith.constant 256 : index
            scf.for %arg10 = %arg9 to %c256 step %c128 {
              %3 = affine.apply #map5(%arg10, %c0_7, %c0_8, %arg8, %c2_23)
              %4 = affine.apply #map6(%arg10, %c0_7, %c0_8, %arg8, %c2_23)
              %5 = affine.apply #map11(%arg10, %c0_7, %c0_8, %arg8, %c2_23)
              %6 = affine.apply #map12(%arg10, %c0_7, %c0_8, %arg8, %c2_23)
              %7 = affine.apply #map13(%arg10, %c0_7, %c0_8, %arg8, %c2_23)
              %8 = affine.apply #map14(%arg10, %c0_7, %c0_8, %arg8, %c2_23)
              %9 = ub.poison : f16
              %10 = vector.transfer_read %arg3[%3, %5, %7], %9 {in_bounds = [true]} : memref<2x1024x64xf16>, vector<8xf16>
              vector.transfer_write %10, %subview_26[%4, %6, %8] {in_bounds = [true], mirage_kernel.prefetch_group = 2 : i64, mirage_kernel.prefetch_stages = 4 : i64} : vector<8xf16>, memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          %c1_28 = arith.constant 1 : index
          %c32 = arith.constant 32 : index
          %c0_29 = arith.constant 0 : index
          scf.for %arg9 = %c0_29 to %c32 step %c1_28 {
            %3 = affine.min #map62(%arg9)
            %4 = affine.apply #map63(%arg9)
            %subview_31 = memref.subview %alloc_9[%4, 0, 0, 0] [1, 1, 8, 32] [1, 1, 1, 1] : memref<4x1x8x32xf16, #gpu.address_space<workgroup>> to memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
            %c0_32 = arith.constant 0 : index
            scf.forall (%arg10) in (128) {
              %c16 = arith.constant 16 : index
              %6 = arith.cmpi ult, %arg10, %c16 : index
              scf.if %6 {
                %7 = affine.apply #map5(%arg10, %c0_7, %c0_8, %arg8, %3)
                %8 = affine.apply #map6(%arg10, %c0_7, %c0_8, %arg8, %3)
                %9 = affine.apply #map7(%arg10, %c0_7, %c0_8, %arg8, %3)
                %10 = affine.apply #map8(%arg10, %c0_7, %c0_8, %arg8, %3)
                %11 = affine.apply #map9(%arg10, %c0_7, %c0_8, %arg8, %3)
                %12 = affine.apply #map10(%arg10, %c0_7, %c0_8, %arg8, %3)
                %13 = ub.poison : f16
                %14 = vector.transfer_read %arg2[%7, %9, %11], %13 {in_bounds = [true]} : memref<2x4x1024xf16>, vector<8xf16>
                vector.transfer_write %14, %subview_31[%8, %10, %12] {in_bounds = [true], mirage_kernel.prefetch_group = 3 : i64, mirage_kernel.prefetch_stages = 4 : i64} : vector<8xf16>, memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
              }
            } {mapping = [#gpu.thread<x>]}
            %subview_33 = memref.subview %alloc_10[%4, 0, 0, 0] [1, 1, 32, 64] [1, 1, 1, 1] : memref<4x1x32x72xf16, #gpu.address_space<workgroup>> to memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
            %c0_34 = arith.constant 0 : index
            scf.forall (%arg10) in (128) {
              %c128 = arith.constant 128 : index
              %c256 = arith.constant 256 : index
              scf.for %arg11 = %arg10 to %c256 step %c128 {
                %6 = affine.apply #map5(%arg11, %c0_7, %c0_8, %arg8, %3)
                %7 = affine.apply #map6(%arg11, %c0_7, %c0_8, %arg8, %3)
                %8 = affine.apply #map11(%arg11, %c0_7, %c0_8, %arg8, %3)
                %9 = affine.apply #map12(%arg11, %c0_7, %c0_8, %arg8, %3)
                %10 = affine.apply #map13(%arg11, %c0_7, %c0_8, %arg8, %3)
                %11 = affine.apply #map14(%arg11, %c0_7, %c0_8, %arg8, %3)
                %12 = ub.poison : f16
                %13 = vector.transfer_read %arg3[%6, %8, %10], %12 {in_bounds = [true]} : memref<2x1024x64xf16>, vector<8xf16>
                vector.transfer_write %13, %subview_33[%7, %9, %11] {in_bounds = [true], mirage_kernel.prefetch_group = 3 : i64, mirage_kernel.prefetch_stages = 4 : i64} : vector<8xf16>, memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
              }
            } {mapping = [#gpu.thread<x>]}
            %5 = affine.apply #map25(%arg9)
            %subview_35 = memref.subview %alloc_9[%5, 0, 0, 0] [1, 1, 8, 32] [1, 1, 1, 1] : memref<4x1x8x32xf16, #gpu.address_space<workgroup>> to memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>>
            %subview_36 = memref.subview %alloc_10[%5, 0, 0, 0] [1, 1, 32, 64] [1, 1, 1, 1] : memref<4x1x32x72xf16, #gpu.address_space<workgroup>> to memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>>
            %collapse_shape_37 = memref.collapse_shape %subview_35 [[0, 1], [2]] : memref<1x8x32xf16, strided<[256, 32, 1], offset: ?>, #gpu.address_space<workgroup>> into memref<8x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
            %collapse_shape_38 = memref.collapse_shape %subview_36 [[0, 1], [2]] : memref<1x32x64xf16, strided<[2304, 72, 1], offset: ?>, #gpu.address_space<workgroup>> into memref<32x64xf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>
            scf.forall (%arg10) in (4) {
              %c0_39 = arith.constant 0 : index
              %6 = affine.apply #map18(%arg10)
              %7 = ub.poison : f32
              %8 = vector.transfer_read %alloc_12[%6, %c0_39], %7 {in_bounds = [true, true]} : memref<64x8xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %c1_40 = arith.constant 1 : index
              %c2_41 = arith.constant 2 : index
              %c0_42 = arith.constant 0 : index
              %9 = scf.for %arg11 = %c0_42 to %c2_41 step %c1_40 iter_args(%arg12 = %8) -> (vector<16x8xf32>) {
                %11 = affine.apply #map19(%arg10, %arg11)
                %12 = affine.apply #map20(%arg10, %arg11)
                %c0_44 = arith.constant 0 : index
                %13 = ub.poison : f16
                %14 = vector.transfer_read %collapse_shape_38[%12, %11], %13 {in_bounds = [true, true], permutation_map = #map21} : memref<32x64xf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<16x16xf16>
                %15 = ub.poison : f16
                %16 = vector.transfer_read %collapse_shape_37[%c0_44, %12], %15 {in_bounds = [true, true]} : memref<8x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<8x16xf16>
                %17 = vector.contract {indexing_maps = [#map22, #map23, #map24], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %14, %16, %arg12 : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
                scf.yield %17 : vector<16x8xf32>
              }
              %c0_43 = arith.constant 0 : index
              %10 = affine.apply #map18(%arg10)
              vector.transfer_write %9, %alloc_12[%10, %c0_43] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x8xf32, #gpu.address_space<workgroup>>
            } {mapping = [#gpu.warp<linear_dim_0>]}
          }
          %collapse_shape = memref.collapse_shape %alloc_11 [[0, 1], [2]] : memref<1x4x64xf32, #gpu.address_space<workgroup>> into memref<4x64xf32, #gpu.address_space<workgroup>>
          scf.forall (%arg9) in (128) {
            %c128 = arith.constant 128 : index
            %c256 = arith.constant 256 : index
            scf.for %arg10 = %arg9 to %c256 step %c128 {
              %3 = affine.apply #map25(%arg10)
              %4 = affine.apply #map26(%arg10)
              %5 = memref.load %collapse_shape[%3, %4] : memref<4x64xf32, #gpu.address_space<workgroup>>
              %6 = affine.apply #map26(%arg10)
              %7 = memref.load %alloc_12[%6, %3] : memref<64x8xf32, #gpu.address_space<workgroup>>
              %8 = arith.addf %5, %7 : f32
              memref.store %8, %collapse_shape[%3, %4] : memref<4x64xf32, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          %c0_30 = arith.constant 0 : index
          scf.forall (%arg9) in (128) {
            %c64 = arith.constant 64 : index
            %3 = arith.cmpi ult, %arg9, %c64 : index
            scf.if %3 {
              %4 = affine.apply #map6(%arg9, %c0_7, %c0_8, %arg8, %c0_30)
              %5 = affine.apply #map5(%arg9, %c0_7, %c0_8, %arg8, %c0_30)
              %6 = affine.apply #map27(%arg9, %c0_7, %c0_8, %arg8, %c0_30)
              %7 = affine.apply #map28(%arg9, %c0_7, %c0_8, %arg8, %c0_30)
              %8 = affine.apply #map29(%arg9, %c0_7, %c0_8, %arg8, %c0_30)
              %9 = affine.apply #map30(%arg9, %c0_7, %c0_8, %arg8, %c0_30)
              %10 = ub.poison : f32
              %11 = vector.transfer_read %alloc_11[%4, %6, %8], %10 {in_bounds = [true]} : memref<1x4x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
              %12 = arith.truncf %11 : vector<4xf32> to vector<4xf16>
              vector.transfer_write %12, %arg4[%5, %7, %9] {in_bounds = [true]} : vector<4xf16>, memref<2x4x64xf16>
            }
          } {mapping = [#gpu.thread<x>]}
        }
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}
