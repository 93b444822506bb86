// RUN: mirage-opt %mirage_src_root/examples/rmsnorm_matmul.mlir --mirage-print-graphs="format=summary" -o /dev/null | FileCheck %s --check-prefix=SUM
// RUN: mirage-opt %mirage_src_root/examples/rmsnorm_matmul.mlir --mirage-print-graphs -o /dev/null | FileCheck %s --check-prefix=DOT
// RUN: not mirage-opt %mirage_src_root/examples/rmsnorm_matmul.mlir --mirage-print-graphs="format=png" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// SUM: graph 'ref': 2 inputs, 2 kernels, 1 outputs
// SUM-NEXT:   rms_norm -> [4, 64] f32
// SUM-NEXT:   matmul -> [4, 32] f32
// SUM: graph 'best' (reference 'ref'): 2 inputs, 1 kernels, 1 outputs
// SUM-NEXT:   custom grid [4,1,1] forloop 4: 2 iterators, 2 ops, 2 accumulators, 1 savers, 2 KiB shared memory
// SUM-NEXT:     iterator imap [-1,-1,-1] fmap 1 -> [4, 16] f32
// SUM-NEXT:     iterator imap [1,-1,-1] fmap 0 -> [16, 8] f32

// DOT: digraph "ref" {
// DOT: digraph "best" {
// DOT: subgraph cluster_0 {
// DOT-NEXT: label="custom grid [4,1,1] forloop 4"
// DOT: subgraph cluster_1 {
// DOT-NEXT: label="thread graph"
// DOT: [shape=box, label="div\nf32"]
// DOT: -> g1_out0;

// BAD: unknown format 'png' (dot or summary)
