// The stock mlir-opt knows nothing of the Mirage dialects ...
// RUN: not mlir-opt %mirage_src_root/examples/rmsnorm_matmul.mlir 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: Dialect `mirage_kernel' not found

// ... until the plugin registers them: round-trip, custom and generic forms.
// RUN: mlir-opt --load-dialect-plugin=%mirage_plugin %mirage_src_root/examples/rmsnorm_matmul.mlir \
// RUN:   | mlir-opt --load-dialect-plugin=%mirage_plugin | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%mirage_plugin -mlir-print-op-generic %mirage_src_root/examples/rmsnorm_matmul.mlir \
// RUN:   | mlir-opt --load-dialect-plugin=%mirage_plugin | FileCheck %s

// The passes come from the same module. They are named in --pass-pipeline:
// the per-pass flags (--mirage-compare) of mlir-opt are made before a pass
// plugin loads, so they do not exist for plugin passes.
// RUN: mlir-opt --load-dialect-plugin=%mirage_plugin --load-pass-plugin=%mirage_plugin \
// RUN:   %mirage_src_root/examples/rmsnorm_matmul.mlir --pass-pipeline='builtin.module(mirage-compare)' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
// RUN: mlir-opt --load-dialect-plugin=%mirage_plugin --load-pass-plugin=%mirage_plugin \
// RUN:   %mirage_src_root/examples/rmsnorm_matmul.mlir \
// RUN:   --pass-pipeline='builtin.module(mirage-verify-equivalence)' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VERIFY

// CHECK-LABEL: func.func @rmsnorm_matmul
// CHECK: %[[REF:.*]] = mirage_kernel.graph "ref"
// CHECK: mirage_kernel.rms_norm
// CHECK: mirage_kernel.matmul
// CHECK: %[[BEST:.*]] = mirage_kernel.graph "best" reference "ref"
// CHECK: mirage_kernel.custom
// CHECK-SAME: grid = [4, 1, 1] forloop = 4
// CHECK: mirage_block.input_iterator %{{.*}} imap = [-1, -1, -1] fmap = 1
// CHECK: mirage_block.input_iterator %{{.*}} imap = [1, -1, -1] fmap = 0
// CHECK: mirage_block.accum sum
// CHECK: mirage_block.accum rms_last
// CHECK: mirage_block.thread_graph
// CHECK: mirage_thread.binary div
// CHECK: mirage_block.output_saver %{{.*}} omap = [1, -1, -1]
// CHECK: return %[[REF]], %[[BEST]]

// CMP: remark: graph 'best' matches reference 'ref'
// VERIFY: remark: graph 'best' is equivalent to reference 'ref'
