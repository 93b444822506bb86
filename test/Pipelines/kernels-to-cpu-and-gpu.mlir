// RUN: mirage-opt %s --pass-pipeline='builtin.module(mirage-kernels-to-cpu)' | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --pass-pipeline='builtin.module(mirage-kernels-to-gpu{chip=sm_90})' | FileCheck %s --check-prefix=GPU
//
// The two registered code-generation pipelines on one graph: the host one
// leaves LLVM functions taking bare pointers in @mirage_kernels; the GPU one
// a gpu.binary whose PTX holds the kernel with tensor cores.

func.func @f(%a: tensor<32x64xf16>, %b: tensor<64x64xf16>) -> tensor<32x64xf16> {
  %o = mirage_kernel.graph "mm" (%a, %b) : (tensor<32x64xf16>, tensor<64x64xf16>) -> tensor<32x64xf16> {
  ^bb0(%x: tensor<32x64xf16>, %y: tensor<64x64xf16>):
    %m = mirage_kernel.matmul %x, %y : tensor<32x64xf16>, tensor<64x64xf16> -> tensor<32x64xf16>
    mirage_kernel.yield %m : tensor<32x64xf16>
  }
  return %o : tensor<32x64xf16>
}

// CPU: mirage_kernel.graph "mm"
// CPU: module @mirage_kernels
// CPU: llvm.func @mm_k0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CPU-NOT: scf.forall
// CPU: llvm.func @mm(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CPU: llvm.call @mm_k0

// GPU: module @mirage_kernels
// GPU: gpu.binary @mirage_kernels_ptx
// GPU-SAME: .target sm_90
// GPU-SAME: .visible .entry mm_k0(
// GPU-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// GPU-SAME: cp.async.cg.shared.global
