// RUN: rm -rf %t && mkdir -p %t/sm90 %t/sm80
// RUN: mirage-opt %mirage_src_root/test/Workloads/gqa.mlir --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t/sm90 tail-combine=false" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/sm90/gqa_best.sm_90.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/sm90/gqa_best.sm_90.manifest.json
// RUN: FileCheck %s --check-prefix=REF --input-file=%t/sm90/gqa_ref.sm_90.manifest.json
// RUN: mirage-run %t/sm90/gqa_best.sm_90.manifest.json --dry-run | FileCheck %s --check-prefix=DRY
// RUN: mirage-opt %mirage_src_root/test/Workloads/gqa.mlir --mirage-kernels-to-ptx="chip=sm_80 output-dir=%t/sm80" -o /dev/null 2>/dev/null
// RUN: cat %t/sm80/gqa_best.sm_80.ptx %t/sm80/gqa_best.sm_80.manifest.json | FileCheck %s --check-prefix=SM80
//
// Programmatic dependent launch (docs/Rationale/Lowering.md): on sm_90 the
// kernels of a graph are chained. The first kernel lets the next launch and
// does not wait; the last waits, before anything but its parameters, and
// triggers nothing; the manifest marks every kernel but the first, which
// mirage-run launches as programmatic dependents. sm_80 has no grid
// dependency control: neither instruction nor mark. (With its tail combine
// on, gqa_best is one launch on sm_90, TailCombine.md; it is off here to
// keep a pair to chain.)

// PTX:      .visible .entry gqa_best_k0(
// PTX-NOT:  griddepcontrol.wait
// PTX:      griddepcontrol.launch_dependents;
// PTX-NOT:  griddepcontrol
// PTX:      .visible .entry gqa_best_k1(
// PTX-NOT:  {{ld.global|ld.shared|st.global|st.shared|cp.async|bar.sync}}
// PTX:      griddepcontrol.wait;
// PTX-NOT:  griddepcontrol

// MANIFEST:     "name":"gqa_best_k0"
// MANIFEST-NOT: waits_on_previous
// MANIFEST:     "name":"gqa_best_k1",{{.*}}"waits_on_previous":true}

// The unfused reference: five kernels, the last four waiting.
// REF-COUNT-4: "waits_on_previous":true}
// REF-NOT:     waits_on_previous

// DRY: gqa_best_k0 {{.*}}args (in0, in1, in2, t4, t5){{$}}
// DRY: gqa_best_k1 {{.*}}args (t4, t5, out0)  waits on the previous kernel

// SM80-NOT: griddepcontrol
// SM80-NOT: waits_on_previous
