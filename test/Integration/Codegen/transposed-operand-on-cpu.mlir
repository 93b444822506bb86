// The decode GEMV of transposed-mma-on-cpu.mlir with the weight as
// nn.Linear stores it, N x K, and the graph reading it as it lies
// (docs/Rationale/OperandLayouts.md): `transposed_inputs = [1]`, the body
// computing with its K x N transpose. The kernel function takes the stored
// 64 x 256 tensor and views it transposed; the weight's tile is stored as
// the tensor is (16 x 128 of N x K, its rows padded to 136), copied in
// 16-byte steps along the tensor's rows; the MMA reads the weight's
// fragments from the stored rows without `.trans` (and, being a plain A
// operand read, without the transposed read's register swap). The CPU
// check fills the weight's buffer in stored order; the manifest asks for
// the N x K tensor.
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=MANIFEST --input-file=%t/graph0_opt.sm_90.manifest.json %}

// VERIFY: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
// CPU: remark: graph 'graph0' on the CPU matches the evaluator
// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator
// CPU-NOT: error:

// LOOPS-LABEL: func.func @graph0_opt_k0(
// LOOPS-SAME: %[[X:.*]]: memref<1x3x256xf16>, %[[W:.*]]: memref<1x64x256xf16>
// LOOPS: memref.transpose %[[W]] (d0, d1, d2) -> (d0, d2, d1)
// LOOPS: %[[T:.*]] = memref.alloc() : memref<2x1x16x136xf16, #gpu.address_space<workgroup>>
// The weight's copy: 16-byte vectors along the stored rows.
// LOOPS: vector.transfer_read %[[W]]{{.*}} : memref<1x64x256xf16>, vector<8xf16>
// The MMA reads the weight's fragment from the stored tile as it lies.
// LOOPS: vector.transfer_read {{.*}} {in_bounds = [true, true]} : memref<16x128xf16, {{.*}}>, vector<16x16xf16>
// LOOPS: vector.contract

// PTX: .entry graph0_opt_k0
// PTX-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[A0:%r[0-9]+]], [[A1:%r[0-9]+]], [[A2:%r[0-9]+]], [[A3:%r[0-9]+]]}
// PTX: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NEXT: {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}},
// PTX-NEXT: {[[A0]], [[A1]], [[A2]], [[A3]]},

// MANIFEST: "name":"in1","role":"input","shape":[1,64,256]
// MANIFEST: "tensor_core_matmuls":1,"transposed_matmuls":1

module {
  func.func @f(%x: tensor<1x3x256xf16>, %w: tensor<1x64x256xf16>) -> tensor<1x3x64xf16> {
    %0 = mirage_kernel.graph "graph0"(%x, %w) attributes {transposed_inputs = array<i64: 1>} : (tensor<1x3x256xf16>, tensor<1x64x256xf16>) -> tensor<1x3x64xf16> {
    ^bb0(%a: tensor<1x3x256xf16>, %b: tensor<1x256x64xf16>):
      %m = mirage_kernel.matmul %a, %b : tensor<1x3x256xf16>, tensor<1x256x64xf16> -> tensor<1x3x64xf16>
      mirage_kernel.yield %m : tensor<1x3x64xf16>
    }
    %1 = mirage_kernel.graph "graph0_opt" reference "graph0"(%x, %w) attributes {transposed_inputs = array<i64: 1>} : (tensor<1x3x256xf16>, tensor<1x64x256xf16>) -> tensor<1x3x64xf16> {
    ^bb0(%a: tensor<1x3x256xf16>, %b: tensor<1x256x64xf16>):
      %2 = mirage_kernel.custom(%a, %b) grid = [4, 1, 1] forloop = 2 : (tensor<1x3x256xf16>, tensor<1x256x64xf16>) -> tensor<1x3x64xf16> {
      ^bb0(%xa: tensor<1x3x256xf16>, %wb: tensor<1x256x64xf16>):
        %xt = mirage_block.input_iterator %xa imap = [-1, -1, -1] fmap = 2 : tensor<1x3x256xf16> -> tensor<1x3x128xf16>
        %wt = mirage_block.input_iterator %wb imap = [2, -1, -1] fmap = 1 : tensor<1x256x64xf16> -> tensor<1x128x16xf16>
        %m = mirage_block.matmul %xt, %wt : tensor<1x3x128xf16>, tensor<1x128x16xf16> -> tensor<1x3x16xf16>
        %acc = mirage_block.accum sum %m : tensor<1x3x16xf16> -> tensor<1x3x16xf16>
        %o = mirage_block.output_saver %acc omap = [2, -1, -1] : tensor<1x3x16xf16> -> tensor<1x3x64xf16>
        mirage_block.yield %o : tensor<1x3x64xf16>
      }
      mirage_kernel.yield %2 : tensor<1x3x64xf16>
    }
    return %1 : tensor<1x3x64xf16>
  }
}
