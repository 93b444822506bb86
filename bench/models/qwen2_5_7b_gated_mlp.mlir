// Qwen2.5-7B gated MLP (gate and up projections, SiLU, product) for a batch of
// 4 tokens, in fp16, as a TOSA frontend emits it: x 4x3584, W_gate and W_up
// 3584x18944 (hidden 3584, intermediate 18944). SiLU is sigmoid times its
// argument. The down projection is a separate layer. Used by
// bench/verify_scale.sh.
func.func @qwen2_5_7b_gated_mlp(%x: tensor<1x4x3584xf16>, %w_gate: tensor<1x3584x18944xf16>, %w_up: tensor<1x3584x18944xf16>) -> tensor<1x4x18944xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %g = tosa.matmul %x, %w_gate, %zp, %zp : (tensor<1x4x3584xf16>, tensor<1x3584x18944xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x18944xf16>
  %u = tosa.matmul %x, %w_up, %zp, %zp : (tensor<1x4x3584xf16>, tensor<1x3584x18944xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x18944xf16>
  %sg = tosa.sigmoid %g : (tensor<1x4x18944xf16>) -> tensor<1x4x18944xf16>
  %silu = tosa.mul %g, %sg, %shift : (tensor<1x4x18944xf16>, tensor<1x4x18944xf16>, tensor<1xi8>) -> tensor<1x4x18944xf16>
  %o = tosa.mul %silu, %u, %shift : (tensor<1x4x18944xf16>, tensor<1x4x18944xf16>, tensor<1xi8>) -> tensor<1x4x18944xf16>
  return %o : tensor<1x4x18944xf16>
}
