// Pins the upstream behaviour behind alignVectorAccesses
// (UpstreamWorkarounds.h): LLVM 22 lowers a vector.load without an
// alignment attribute to an llvm.load aligned to its element, so NVPTX
// splits a 16-byte vector<8xf16> into scalar 2-byte loads. When this test
// starts failing, upstream aligns vector accesses to their size: drop the
// workaround.

// RUN: mlir-opt %s --convert-vector-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm | FileCheck %s
// CHECK: llvm.load {{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<8xf16>

func.func @load(%m: memref<64xf16>, %i: index) -> vector<8xf16> {
  %v = vector.load %m[%i] : memref<64xf16>, vector<8xf16>
  return %v : vector<8xf16>
}
