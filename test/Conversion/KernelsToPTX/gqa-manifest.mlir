// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt %mirage_src_root/test/Workloads/gqa.mlir --mirage-kernels-to-ptx="chip=sm_80 output-dir=%t tail-combine=false" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/gqa_best.sm_80.manifest.json
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/gqa_best.sm_80.ptx
// RUN: wc -c < %t/gqa_best.out0.f32 | FileCheck %s --check-prefix=SIZE
// RUN: mirage-run %t/gqa_best.sm_80.manifest.json --reference %t/gqa_ref.sm_80.manifest.json --dry-run | FileCheck %s --check-prefix=LAUNCH
//
// The split-KV GQA μGraph and its unfused reference become PTX, a manifest
// that mirage-run accepts (two kernels, a temporary pair between them, the
// seed and the f16 tolerance) and the float64 evaluator's expected output
// (2·16·8 f32 values). With its tail combine on, gqa_best at these toy
// shapes is one launch (TailCombine.md, test/Conversion/KernelToLoops/
// tail-combine.mlir); it is off here to keep the pair and its temporaries.

// REMARK: remark: graph 'gqa_ref': wrote {{.*}}gqa_ref.sm_80.ptx and {{.*}}gqa_ref.sm_80.manifest.json (5 kernels, {{[0-9]+}} of 2 matmuls on tensor cores)
// REMARK: remark: graph 'gqa_best': wrote {{.*}}gqa_best.sm_80.ptx and {{.*}}gqa_best.sm_80.manifest.json (2 kernels, {{[0-9]+}} of 2 matmuls on tensor cores)

// MANIFEST: "format": "mirage-run-manifest-1",
// MANIFEST: "graph": "gqa_best",
// MANIFEST: "reference": "gqa_ref",
// MANIFEST: "chip": "sm_80",
// MANIFEST: "ptx": "gqa_best.sm_80.ptx",
// MANIFEST: "seed": 1,
// MANIFEST: "tolerance": 0.01,
// MANIFEST: {"dtype":"f16","input_index":0,"name":"in0","role":"input","shape":[2,16,8]},
// MANIFEST: {"dtype":"f16","expected":"gqa_best.out0.f32","name":"out0","output_index":0,"role":"output","shape":[2,16,8]},
// MANIFEST: {"dtype":"f16","name":"t4","role":"temp","shape":[2,16,32]},
// Each kernel carries its launch plan; the shared memory the lowering
// allocated (static here) equals the plan's. The model's tile traffic
// (l2_bytes: every block's loads and stores, so tiles that several blocks
// read count for each) is at least its DRAM bytes; loaded_bytes splits the
// loads by argument (0 for the outputs): at these toy shapes the inputs are
// re-read (the 2048 bytes of K as 8192 bytes of loads), the combine reads each
// 2048-byte partial once.
// MANIFEST: {"args":[0,1,2,4,5],"block":[128,1,1],"dynamic_shared_bytes":0,"grid":[2,4,2],"name":"gqa_best_k0","plan":{"bytes_in_flight_per_block":{{[0-9.]+}},"compute_us":{{[0-9.e+-]+}},"dram_bytes":8704,"estimate_us":{{[0-9.e+-]+}},"fma_micro_tiles":{{\[\[[1-8],[1-8]\],\[[1-8],[1-8]\]\]}},"l2_bytes":18432,"launch_us":2,"loaded_bytes":[2048,8192,4096,0,0],"matmuls":2,"memory_us":{{[0-9.e+-]+}},"min_blocks_per_sm":8,"registers_per_thread":64,"resident_blocks_per_sm":16,"shared_bytes":1536,"stages":2,"tail_us":0,"tensor_core_matmuls":0,"transposed_matmuls":0},"static_shared_bytes":1536},
// MANIFEST: {"args":[4,5,3],"block":[128,1,1],"dynamic_shared_bytes":0,"grid":[2,2,1],"name":"gqa_best_k1","plan":{"bytes_in_flight_per_block":512,"compute_us":{{[0-9.e+-]+}},"dram_bytes":4608,"estimate_us":{{[0-9.e+-]+}},"fma_micro_tiles":[],"l2_bytes":4608,"launch_us":2,"loaded_bytes":[2048,2048,0],"matmuls":0,"memory_us":{{[0-9.e+-]+}},"min_blocks_per_sm":8,"registers_per_thread":64,"resident_blocks_per_sm":16,"shared_bytes":2336,"stages":2,"tail_us":0,"tensor_core_matmuls":0,"transposed_matmuls":0},"static_shared_bytes":2336}

// PTX: .version 8.0
// PTX: .target sm_80
// PTX: .visible .entry gqa_best_k0(
// PTX-COUNT-5: .param .u64
// PTX: .visible .entry gqa_best_k1(
// PTX-NOT: malloc

// SIZE: 1024

// LAUNCH: gqa_best_k0  grid [2, 4, 2]  block [128, 1, 1]  dynamic_shared_bytes 0  args (in0, in1, in2, t4, t5)
// LAUNCH: reference matches: 3 inputs, 1 outputs
