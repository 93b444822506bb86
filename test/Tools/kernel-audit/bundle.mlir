// REQUIRES: ptxas
// bench/kernel_audit.sh on a bundle that mirage-kernels-to-ptx writes for the
// kernel graph below: a tensor-core matmul whose for-loop (16 iterations,
// too many to unroll) copies an X tile and a W tile by cp.async each
// iteration. The row must show what the manifest says (grid, threads, bytes
// of the three buffers), what ptxas says (registers, no spills, static shared
// memory) and what the PTX body holds (mma.sync, the wait depth).
//
// RUN: rm -rf %t && mkdir -p %t/sub
// RUN: mirage-opt %s --pass-pipeline='builtin.module(mirage-kernels-to-ptx{chip=sm_90 output-dir=%t/sub})' --mlir-print-op-on-diagnostic=false -o /dev/null
// The audit finds the bundle in a subdirectory.
// RUN: %mirage_src_root/bench/kernel_audit.sh %t | FileCheck %s

// CHECK:      Static kernel audit of {{.*}} (no GPU; ptxas: {{.*}}ptxas)
// CHECK-EMPTY:
// CHECK-NEXT: | graph | chip | kernel | grid | threads | smem B | regs | spill B st/ld | resident/SM | waves | wait depths | copies/group | flight/SM B | mma / fma | bar.sync (loop) | bytes moved | floor µs | model µs | model/floor | plan smem B | stages | tc/mm | model flight B | flags |
// CHECK-NEXT: |---|
// Bytes moved: X 16x1024 + W 1024x64 + O 16x64 f16 = 165,888 B, 0.06 µs at
// 3.0 TB/s. The loop is pipelined: 4 stages, wait_group 3 in the loop. The
// cost model's columns are numbers where the manifest carries its plan and
// "-" where not.
// CHECK-NEXT: | audit_matmul | sm_90 | audit_matmul_k0 | 2×1×1 = 2 | 128 | {{[1-9][0-9,]*}} | {{[1-9][0-9]*}} | 0/0 | {{[1-9][0-9]*}} ({{smem|regs|threads|blocks}}) | 1 | 3 | {{[0-9.]+}} | {{[1-9][0-9,]*}} | mma {{[1-9][0-9]*}} / fma {{[0-9]+}} | {{[1-9][0-9]*}} ({{[1-9][0-9]*}}) | 165.89 KB | 0.06 | {{[0-9.]+|-}} | {{[0-9.]+|-}} | {{[0-9,]+|-}} | 4 | 1/1 | {{[0-9,]+|-}} | ok |
// CHECK-EMPTY:
// CHECK-NEXT: kernels: 1; NO-LAUNCH 0, SPILLS 0, UNPIPELINED 0, PER-COPY-WAITS 0,

// The JSON record carries the same numbers, raw.
// RUN: %mirage_src_root/bench/kernel_audit.sh --json %t | FileCheck %s --check-prefix=JSON
// JSON: {"graph": "audit_matmul", "chip": "sm_90", "kernel": "audit_matmul_k0", "grid": [2, 1, 1], "blocks": 2, "threads": 128, {{.*}}"static_shared_from": "ptxas", "registers": {{[1-9][0-9]*}}, "spill_stores": 0, "spill_loads": 0, {{.*}}"wait_depths": [3], {{.*}}"bytes_moved": 165888,

// Without ptxas, the static shared memory summed from the PTX declarations
// is what ptxas allocates.
// RUN: %mirage_src_root/bench/kernel_audit.sh %t | grep audit_matmul_k0 | cut -d'|' -f7 > %t.smem-ptxas
// RUN: %mirage_src_root/bench/kernel_audit.sh --no-ptxas %t | grep audit_matmul_k0 | cut -d'|' -f7 > %t.smem-decl
// RUN: diff %t.smem-ptxas %t.smem-decl

func.func @f(%x: tensor<16x1024xf16>, %w: tensor<1024x64xf16>) -> tensor<16x64xf16> {
  %o = mirage_kernel.graph "audit_matmul" (%x, %w)
      : (tensor<16x1024xf16>, tensor<1024x64xf16>) -> tensor<16x64xf16> {
  ^bb0(%a: tensor<16x1024xf16>, %b: tensor<1024x64xf16>):
    %k = mirage_kernel.custom (%a, %b) grid = [2, 1, 1] forloop = 16
        : (tensor<16x1024xf16>, tensor<1024x64xf16>) -> tensor<16x64xf16> {
    ^bb0(%X: tensor<16x1024xf16>, %W: tensor<1024x64xf16>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x1024xf16> -> tensor<16x64xf16>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<1024x64xf16> -> tensor<64x32xf16>
      %mm = mirage_block.matmul %xt, %wt : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf16>
      %acc = mirage_block.accum sum %mm : tensor<16x32xf16> -> tensor<16x32xf16>
      %s = mirage_block.output_saver %acc omap = [1, -1, -1] : tensor<16x32xf16> -> tensor<16x64xf16>
      mirage_block.yield %s : tensor<16x64xf16>
    }
    mirage_kernel.yield %k : tensor<16x64xf16>
  }
  return %o : tensor<16x64xf16>
}
