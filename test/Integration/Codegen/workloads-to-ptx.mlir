// REQUIRES: ptxas
// The six paper workloads at the paper's full shapes, fused and unfused,
// through the whole GPU path to PTX for sm_80 and sm_90; ptxas assembles
// every kernel without spills, no kernel calls malloc (no workgroup buffer
// became a per-thread allocation), tiles arrive by cp.async, and the f16
// matmuls of tensor-core shape run on mma.sync with ldmatrix. The manifests
// validate in mirage-run (no GPU needed for --dry-run).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: for w in rmsnorm_matmul gated_mlp lora gqa qknorm ntrans; do \
// RUN:   for c in sm_80 sm_90; do \
// RUN:     mirage-opt %mirage_src_root/bench/workloads/$w.mlir --mirage-kernels-to-ptx="chip=$c output-dir=%t expected-max-elements=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2>> %t/remarks || exit 1; \
// RUN:   done; done
// RUN: %python %S/check_ptx.py %ptxas sm_80 %t | FileCheck %s
// RUN: %python %S/check_ptx.py %ptxas sm_90 %t | FileCheck %s
// (No spills: every kernel states its plan's register budget,
// `.minnctapersm`; without it ptxas capped 128-thread kernels at 64
// registers and spilled 12 bytes of the fused gated MLP for sm_90.)
// RUN: FileCheck %s --check-prefix=TC --input-file=%t/remarks
// RUN: for m in %t/*.manifest.json; do mirage-run $m --dry-run > /dev/null || exit 1; done

// CHECK: gated_mlp_best.{{sm_[89]0}}.ptx: ptxas ok, 1 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, ldmatrix {{[1-9][0-9]*}}, cp.async {{[1-9][0-9]*}}, malloc 0
// CHECK: gated_mlp_ref.{{sm_[89]0}}.ptx: ptxas ok, 3 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0
// gqa_best's combine runs in its split kernel's tail on sm_90 (one entry);
// on sm_80 the two kernels' shared memory together (123 + 56 KiB) exceeds a
// block's 163 KiB, so it keeps its own launch (TailCombine.md).
// CHECK: gqa_best.{{sm_[89]0}}.ptx: ptxas ok, {{1|2}} entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, ldmatrix {{[1-9][0-9]*}}, cp.async {{[1-9][0-9]*}}, malloc 0
// CHECK: gqa_ref.{{sm_[89]0}}.ptx: ptxas ok, 6 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0
// CHECK: lora_best.{{sm_[89]0}}.ptx: ptxas ok, 1 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0
// CHECK: lora_ref.{{sm_[89]0}}.ptx: ptxas ok, 4 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0
// CHECK: lora_three_matmul.{{sm_[89]0}}.ptx: ptxas ok, 1 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0
// CHECK: ntrans_best.{{sm_[89]0}}.ptx: ptxas ok, 1 entries, {{.*}} spills 0, {{.*}} malloc 0
// CHECK: ntrans_ref.{{sm_[89]0}}.ptx: ptxas ok, 4 entries, {{.*}} spills 0, {{.*}} malloc 0
// CHECK: qknorm_best.{{sm_[89]0}}.ptx: ptxas ok, 1 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0
// CHECK: qknorm_ref.{{sm_[89]0}}.ptx: ptxas ok, 8 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0
// CHECK: rmsnorm_matmul_best.{{sm_[89]0}}.ptx: ptxas ok, 1 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0
// CHECK: rmsnorm_matmul_ref.{{sm_[89]0}}.ptx: ptxas ok, 2 entries, {{.*}} spills 0, mma.sync {{[1-9][0-9]*}}, {{.*}} malloc 0

// Every matmul of the references and best graphs takes the tensor-core form
// (the remark counts block matmuls per graph), for sm_80 then sm_90.
// TC: graph 'rmsnorm_matmul_ref': {{.*}}, 1 of 1 matmuls on tensor cores)
// TC: graph 'rmsnorm_matmul_best': {{.*}}, 1 of 1 matmuls on tensor cores)
// TC: graph 'rmsnorm_matmul_ref': {{.*}}, 1 of 1 matmuls on tensor cores)
// TC: graph 'rmsnorm_matmul_best': {{.*}}, 1 of 1 matmuls on tensor cores)
// TC: graph 'gated_mlp_ref': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'gated_mlp_best': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'gated_mlp_ref': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'gated_mlp_best': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'lora_ref': {{.*}}, 3 of 3 matmuls on tensor cores)
// TC: graph 'lora_best': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'lora_ref': {{.*}}, 3 of 3 matmuls on tensor cores)
// TC: graph 'lora_best': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'gqa_ref': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'gqa_best': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'gqa_ref': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'gqa_best': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'qknorm_ref': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'qknorm_best': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'qknorm_ref': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'qknorm_best': {{.*}}, 2 of 2 matmuls on tensor cores)
// TC: graph 'ntrans_ref': {{.*}}, 0 of 0 matmuls on tensor cores)
// TC: graph 'ntrans_best': {{.*}}, 0 of 0 matmuls on tensor cores)
// TC: graph 'ntrans_ref': {{.*}}, 0 of 0 matmuls on tensor cores)
// TC: graph 'ntrans_best': {{.*}}, 0 of 0 matmuls on tensor cores)
