// Pins the upstream behaviour behind populateBF16MmaSyncToNVVMPatterns
// (UpstreamWorkarounds.h): LLVM 22's convert-nvgpu-to-nvvm cannot lower an
// nvgpu.mma.sync with bf16 multiplicands: it reports an error, leaves the
// op in place and still succeeds. When this test starts failing, upstream
// lowers it: drop the workaround and use the upstream path.

// RUN: mlir-opt %s --convert-nvgpu-to-nvvm 2>&1 | FileCheck %s
// CHECK: error: 'nvgpu.mma.sync' op failed to deduce operand PTX types
// CHECK: func.func @bf16
// CHECK-NEXT: nvgpu.mma.sync

func.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}
