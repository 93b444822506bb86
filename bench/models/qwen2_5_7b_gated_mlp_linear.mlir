// The Qwen2.5-7B gated MLP of qwen2_5_7b_gated_mlp.mlir with its weights as
// nn.Linear stores them and TorchToTosa writes F.linear: W_gate and W_up
// 18944x3584 (out x in features), each transposed and viewed with a unit
// batch dim before a rank-3 tosa.matmul. mirage-import reads the weights as
// they lie (transposed_inputs, docs/Rationale/OperandLayouts.md): the
// manifest asks for the 18944x3584 tensors a PyTorch model holds, and the
// kernels copy whole K-tile rows of them. Batch of 4 tokens, fp16.
func.func @qwen2_5_7b_gated_mlp_linear(%x: tensor<1x4x3584xf16>, %w_gate: tensor<18944x3584xf16>, %w_up: tensor<18944x3584xf16>) -> tensor<1x4x18944xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %s3 = tosa.const_shape {values = dense<[1, 3584, 18944]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %wgt = tosa.transpose %w_gate {perms = array<i32: 1, 0>} : (tensor<18944x3584xf16>) -> tensor<3584x18944xf16>
  %wg = tosa.reshape %wgt, %s3 : (tensor<3584x18944xf16>, !tosa.shape<3>) -> tensor<1x3584x18944xf16>
  %wut = tosa.transpose %w_up {perms = array<i32: 1, 0>} : (tensor<18944x3584xf16>) -> tensor<3584x18944xf16>
  %wu = tosa.reshape %wut, %s3 : (tensor<3584x18944xf16>, !tosa.shape<3>) -> tensor<1x3584x18944xf16>
  %g = tosa.matmul %x, %wg, %zp, %zp : (tensor<1x4x3584xf16>, tensor<1x3584x18944xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x18944xf16>
  %u = tosa.matmul %x, %wu, %zp, %zp : (tensor<1x4x3584xf16>, tensor<1x3584x18944xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x18944xf16>
  %sg = tosa.sigmoid %g : (tensor<1x4x18944xf16>) -> tensor<1x4x18944xf16>
  %silu = tosa.mul %g, %sg, %shift : (tensor<1x4x18944xf16>, tensor<1x4x18944xf16>, tensor<1xi8>) -> tensor<1x4x18944xf16>
  %o = tosa.mul %silu, %u, %shift : (tensor<1x4x18944xf16>, tensor<1x4x18944xf16>, tensor<1xi8>) -> tensor<1x4x18944xf16>
  return %o : tensor<1x4x18944xf16>
}
