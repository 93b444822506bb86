// Barriers only where phases conflict (BarrierElimination.md): after the
// thread mapping, upstream's gpu-eliminate-barriers drops the barriers
// between phases whose memory effects do not conflict. On the unfused
// reference of test/Workloads/gqa.mlir (pipelined tensor-core matmuls,
// exp, a reduction, a division): fewer bar.sync than with the option off
// (24 against 34 when written), and the same pipeline (wait depths, commit
// groups) and tensor-core code.

// RUN: rm -rf %t && mkdir -p %t/on %t/off
// RUN: mirage-opt %mirage_src_root/test/Workloads/gqa.mlir --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t/on" -o /dev/null
// RUN: mirage-opt %mirage_src_root/test/Workloads/gqa.mlir --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t/off eliminate-barriers=false" -o /dev/null
// RUN: %python %S/Inputs/barrier-counts.py %t/off/gqa_ref.sm_90.ptx %t/on/gqa_ref.sm_90.ptx | FileCheck %s
// CHECK: bar.sync: fewer
// CHECK: cp.async.wait_group: same
// CHECK: cp.async.commit_group: same
// CHECK: mma.sync: same
