// The six paper workloads, fused and unfused, lowered to loops, compiled for
// the host and run on seeded inputs; every output is compared with the
// float64 evaluator within the f16 tolerance (docs/Rationale/Lowering.md).
// A kernel that qualifies runs in its predecessor's launch (TailCombine.md):
// the counts are launches, and the tails run here too.
//
// RUN: mirage-opt %mirage_src_root/test/Workloads/rmsnorm_matmul.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=RMS
// RUN: mirage-opt %mirage_src_root/test/Workloads/gated_mlp.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=MLP
// RUN: mirage-opt %mirage_src_root/test/Workloads/lora.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LORA
// RUN: mirage-opt %mirage_src_root/test/Workloads/gqa.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=GQA
// RUN: mirage-opt %mirage_src_root/test/Workloads/qknorm.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=QKN
// RUN: mirage-opt %mirage_src_root/test/Workloads/ntrans.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NTR

// RMS: remark: graph 'rmsnorm_matmul_ref' on the CPU matches the evaluator: max relative error {{.*}} (f16 tolerance 1e-02, 1 kernel, ran in
// RMS: remark: graph 'rmsnorm_matmul_best' on the CPU matches the evaluator: {{.*}} 1 kernel, ran in
// RMS-NOT: error:
// MLP: remark: graph 'gated_mlp_ref' on the CPU matches the evaluator: {{.*}} 3 kernels, ran in
// MLP: remark: graph 'gated_mlp_best' on the CPU matches the evaluator: {{.*}} 1 kernel, ran in
// MLP-NOT: error:
// LORA: remark: graph 'lora_ref' on the CPU matches the evaluator: {{.*}} 3 kernels, ran in
// LORA: remark: graph 'lora_best' on the CPU matches the evaluator: {{.*}} 1 kernel, ran in
// LORA: remark: graph 'lora_three_matmul' on the CPU matches the evaluator
// LORA-NOT: error:
// GQA: remark: graph 'gqa_ref' on the CPU matches the evaluator: {{.*}} 3 kernels, ran in
// GQA: remark: graph 'gqa_best' on the CPU matches the evaluator: {{.*}} 1 kernel, ran in
// GQA-NOT: error:
// QKN: remark: graph 'qknorm_ref' on the CPU matches the evaluator: {{.*}} 5 kernels, ran in
// QKN: remark: graph 'qknorm_best' on the CPU matches the evaluator: {{.*}} 1 kernel, ran in
// QKN-NOT: error:
// NTR: remark: graph 'ntrans_ref' on the CPU matches the evaluator: {{.*}} 3 kernels, ran in
// NTR: remark: graph 'ntrans_best' on the CPU matches the evaluator: {{.*}} 1 kernel, ran in
// NTR-NOT: error:
