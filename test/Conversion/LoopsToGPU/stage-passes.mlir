// The stages of mirage-loops-to-gpu are passes of their own: spelled out one
// by one they give the pipeline's PTX byte for byte, and the IR after any
// stage can be printed (--mlir-print-ir-after) as after any upstream pass.
// Input: the f16 GEMM of gemm-f16.mlir.

// RUN: mirage-opt %S/gemm-f16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 ptx-file=%t.pipeline.ptx}))' -o /dev/null
// RUN: mirage-opt %S/gemm-f16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-gpu-warp-reductions,mirage-gpu-map-foralls,func.func(gpu-eliminate-barriers),mirage-gpu-tensor-cores,mirage-gpu-async-copies,mirage-workgroup-alloc-to-global,mirage-gpu-serialize-to-ptx{chip=sm_80 ptx-file=%t.stages.ptx}))' -o /dev/null
// RUN: diff %t.pipeline.ptx %t.stages.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.stages.ptx
// PTX: .visible .entry G_k0(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// RUN: mirage-opt %S/gemm-f16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80}))' --mlir-print-ir-after=mirage-gpu-map-foralls -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER-MAP
// AFTER-MAP: IR Dump After MirageGPUMapForalls (mirage-gpu-map-foralls)
// AFTER-MAP: gpu.launch blocks
// AFTER-MAP: gpu.block_id
// AFTER-MAP-NOT: scf.forall
// AFTER-MAP: vector.contract

// RUN: mirage-opt %S/gemm-f16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80}))' --mlir-print-ir-after=mirage-gpu-tensor-cores -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER-MMA
// AFTER-MMA: IR Dump After MirageGPUTensorCores (mirage-gpu-tensor-cores)
// AFTER-MMA: nvgpu.ldmatrix
// AFTER-MMA: nvgpu.mma.sync

// A stage name that is none is refused when the pipeline is built.
// RUN: not mirage-opt %S/gemm-f16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=ptxas}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: Cannot find option named 'ptxas'
