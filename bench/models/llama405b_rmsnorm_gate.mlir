// A 405B-class (Llama-3.1-405B shapes) RMSNorm (eps 1e-5, gamma) followed by the MLP gate projection for a
// batch of 8 tokens, in fp16, as a TOSA frontend emits it: x 8x16384, gamma 16384,
// W_gate 16384x53248. The constants are stored in fp16: 1/16384 = 6.103515625e-05 exactly,
// eps 1e-5 rounds to the subnormal 1.0013580322265625e-05. Used by
// bench/verify_scale.sh.
func.func @llama405b_rmsnorm_gate(%x: tensor<1x8x16384xf16>, %gamma: tensor<1x1x16384xf16>, %w_gate: tensor<1x16384x53248xf16>) -> tensor<1x8x53248xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sq = tosa.mul %x, %x, %shift : (tensor<1x8x16384xf16>, tensor<1x8x16384xf16>, tensor<1xi8>) -> tensor<1x8x16384xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x8x16384xf16>) -> tensor<1x8x1xf16>
  %inv_n = "tosa.const"() <{values = dense<6.103515625e-05> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x8x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x8x1xf16>
  %eps = "tosa.const"() <{values = dense<1.0013580322265625e-05> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %var = tosa.add %mean, %eps : (tensor<1x8x1xf16>, tensor<1x1x1xf16>) -> tensor<1x8x1xf16>
  %r = tosa.rsqrt %var : (tensor<1x8x1xf16>) -> tensor<1x8x1xf16>
  %xn = tosa.mul %x, %r, %shift : (tensor<1x8x16384xf16>, tensor<1x8x1xf16>, tensor<1xi8>) -> tensor<1x8x16384xf16>
  %xg = tosa.mul %xn, %gamma, %shift : (tensor<1x8x16384xf16>, tensor<1x1x16384xf16>, tensor<1xi8>) -> tensor<1x8x16384xf16>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %o = tosa.matmul %xg, %w_gate, %zp, %zp : (tensor<1x8x16384xf16>, tensor<1x16384x53248xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x53248xf16>
  return %o : tensor<1x8x53248xf16>
}
