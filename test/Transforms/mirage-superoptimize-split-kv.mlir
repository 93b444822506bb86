// Split-KV flash-decoding (docs/Rationale/MultiKernel.md): GQA decode
// attention over 2 KV heads × 64 query rows and 32768 keys. The one-kernel
// form (grid: heads × row tiles, for-loop over the keys) leaves most SMs
// idle while each block streams its head's K and V; the search also builds
// the split pair from the same block graph and the cost model prefers it.
// (At 4096 keys the pipelined one-kernel form wins by the launch it saves:
// its few blocks keep enough in flight; at 32768 they cannot.)
// Checked: two kernels; kernel 1 splits the keys on grid z (K and V by both
// the split axis and the for-loop, Q replicated), accumulates the exp-sum
// and the exp-weighted V sum and saves them without dividing; kernel 2 has
// kernel 1's heads axis, its rows split at least as finely ("Refined
// rows"), and loads every split's partials at once (one iteration), folds
// them by a strided reduce to one split's extent, sums both and divides
// (MultiKernel.md, "One round trip for the combine").
// The search needs its 6-operator round (seconds on two cores).
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2 max-block-ops=6 progress=false report=%t.json" -o %t.mlir 2>%t.err
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// The pair verifies with a real bound and runs on the host (generated code
// against the float64 evaluator), the reference beside it.
// RUN: mirage-opt %t.mlir --mirage-verify-equivalence="dtype-check=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %t.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

func.func @gqa(%q: tensor<2x64x64xf16>, %k: tensor<2x64x32768xf16>, %v: tensor<2x32768x64xf16>) -> tensor<2x64x64xf16> {
  %r = mirage_kernel.graph "gqa" (%q, %k, %v) : (tensor<2x64x64xf16>, tensor<2x64x32768xf16>, tensor<2x32768x64xf16>) -> tensor<2x64x64xf16> {
  ^bb0(%Q: tensor<2x64x64xf16>, %K: tensor<2x64x32768xf16>, %V: tensor<2x32768x64xf16>):
    %s = mirage_kernel.matmul %Q, %K : tensor<2x64x64xf16>, tensor<2x64x32768xf16> -> tensor<2x64x32768xf16>
    %e = mirage_kernel.unary exp %s : tensor<2x64x32768xf16>
    %d = mirage_kernel.reduce sum %e dim 2 : tensor<2x64x32768xf16> -> tensor<2x64x1xf16>
    %p = mirage_kernel.binary div %e, %d : tensor<2x64x32768xf16>, tensor<2x64x1xf16> -> tensor<2x64x32768xf16>
    %o = mirage_kernel.matmul %p, %V : tensor<2x64x32768xf16>, tensor<2x32768x64xf16> -> tensor<2x64x64xf16>
    mirage_kernel.yield %o : tensor<2x64x64xf16>
  }
  return %r : tensor<2x64x64xf16>
}

// CHECK: mirage_kernel.graph "gqa_opt" reference "gqa"
// CHECK: %[[P:.*]]:2 = mirage_kernel.custom({{.*}}) grid = [2, {{[0-9]+}}, [[S:[0-9]+]]] forloop = {{[0-9]+}} : ({{.*}}) -> (tensor<2x64x[[S]]xf16>, tensor<2x64x{{[0-9]+}}xf16>)
// CHECK: mirage_block.input_iterator {{.*}} imap = [0, 1, -1] fmap = -1 : tensor<2x64x64xf16>
// CHECK: mirage_block.input_iterator {{.*}} imap = [0, -1, 2] fmap = 2 : tensor<2x64x32768xf16>
// CHECK: mirage_block.input_iterator {{.*}} imap = [0, -1, 1] fmap = 1 : tensor<2x32768x64xf16>
// CHECK-NOT: mirage_block.binary div
// CHECK-DAG: mirage_block.accum sum_last
// CHECK-DAG: mirage_block.accum sum %
// CHECK-NOT: mirage_block.binary div
// CHECK: mirage_block.output_saver {{.*}} omap = [0, 1, 2]
// CHECK: mirage_block.output_saver {{.*}} omap = [0, 1, 2]
// CHECK: mirage_kernel.custom(%[[P]]#0, %[[P]]#1) grid = [2, {{[0-9]+}}, 1] forloop = 1 :
// CHECK: mirage_block.input_iterator {{.*}} imap = [0, 1, -1] fmap = -1 : tensor<2x64x[[S]]xf16> -> tensor<1x{{[0-9]+}}x[[S]]xf16>
// CHECK-NEXT: mirage_block.reduce sum {{.*}} dim 2 :
// CHECK-NEXT: mirage_block.accum sum
// CHECK: mirage_block.input_iterator {{.*}} imap = [0, 1, -1] fmap = -1
// CHECK-NEXT: mirage_block.reduce sum {{.*}} dim 2 to 64 :
// CHECK-NEXT: mirage_block.accum sum
// CHECK: mirage_block.binary div
// CHECK: mirage_block.output_saver {{.*}} omap = [0, 1, -1] : {{.*}} -> tensor<2x64x64xf16>

// REMARK: remark: superoptimized 'gqa': 5 kernel(s) -> 2,
// REMARK-SAME: false-acceptance bound 2^-{{(6[4-9]|[7-9][0-9]|[1-9][0-9][0-9])}};

// JSON: "kernels_in_winner": 2

// VERIFY: remark: graph 'gqa_opt' is equivalent to reference 'gqa'

// The reference's P @ V is a split-K pair (Lowering.md, "Large matmuls").
// CPU: remark: graph 'gqa' on the CPU matches the evaluator: {{.*}} 6 kernels, ran in
// CPU: remark: graph 'gqa_opt' on the CPU matches the evaluator: {{.*}} 2 kernels, ran in
// CPU-NOT: error:
