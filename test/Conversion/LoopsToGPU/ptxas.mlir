// REQUIRES: ptxas
// ptxas accepts the PTX of the other tests of this directory for sm_80 and
// sm_90: no spills, and the planned shared memory (24 KiB static for the
// 64x64 GEMMs, none static for the 56 KiB one, which uses dynamic smem).

// RUN: mirage-opt %S/gemm-f16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 ptx-file=%t.f16.sm_80.ptx}))' -o /dev/null
// RUN: mirage-opt %S/gemm-f16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 ptx-file=%t.f16.sm_90.ptx}))' -o /dev/null
// RUN: %ptxas -arch=sm_80 -v %t.f16.sm_80.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: %ptxas -arch=sm_90 -v %t.f16.sm_90.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=STATIC

// RUN: mirage-opt %S/gemm-bf16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 ptx-file=%t.bf16.sm_80.ptx}))' -o /dev/null
// RUN: mirage-opt %S/gemm-bf16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 ptx-file=%t.bf16.sm_90.ptx}))' -o /dev/null
// RUN: %ptxas -arch=sm_80 -v %t.bf16.sm_80.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: %ptxas -arch=sm_90 -v %t.bf16.sm_90.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: Compiling entry function 'G_k0'
// STATIC: 0 bytes spill stores, 0 bytes spill loads
// STATIC: Used {{[0-9]+}} registers, used 1 barriers, 24576 bytes smem

// RUN: mirage-opt %S/big-tiles.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 ptx-file=%t.big.sm_80.ptx}))' -o /dev/null
// RUN: mirage-opt %S/big-tiles.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 ptx-file=%t.big.sm_90.ptx}))' -o /dev/null
// RUN: %ptxas -arch=sm_80 -v %t.big.sm_80.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: %ptxas -arch=sm_90 -v %t.big.sm_90.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: 0 bytes spill stores, 0 bytes spill loads
// DYNAMIC-NOT: bytes smem

// RUN: mirage-opt %S/elementwise-f32.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 ptx-file=%t.ew.sm_80.ptx}))' -o /dev/null
// RUN: mirage-opt %S/elementwise-f32.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 ptx-file=%t.ew.sm_90.ptx}))' -o /dev/null
// RUN: %ptxas -arch=sm_80 -v %t.ew.sm_80.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=EW
// RUN: %ptxas -arch=sm_90 -v %t.ew.sm_90.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=EW
// EW: 0 bytes spill stores, 0 bytes spill loads
// EW: Used {{[0-9]+}} registers, used 1 barriers, 16384 bytes smem

// The tf32 GEMM and the f16 GEMM without cp.async.
// RUN: mirage-opt %S/gemm-tf32.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 tf32=true ptx-file=%t.tf32.ptx}))' -o /dev/null
// RUN: %ptxas -arch=sm_80 -v %t.tf32.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=TF32
// TF32: 0 bytes spill stores, 0 bytes spill loads
// TF32: Used {{[0-9]+}} registers, used 1 barriers, 32768 bytes smem
// RUN: mirage-opt %S/gemm-f16.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 async-copies=false ptx-file=%t.sync.ptx}))' -o /dev/null
// RUN: %ptxas -arch=sm_90 -v %t.sync.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=STATIC
