// Llama-3-8B grouped-query decode attention (llama3_8b_gqa_decode.mlir) with
// K as a KV cache stores it, keys × head dim (K is heads×keys×d: 8×8192×128),
// and the scores computed as Q·Kᵀ through a tosa.transpose, as frontends
// write it. mirage-import reads K as it lies (transposed_inputs,
// docs/Rationale/OperandLayouts.md): the kernels copy whole 256-byte key
// rows and read Kᵀ's MMA fragments without .trans. fp16, scores scaled by
// 1/sqrt(128) (8.837890625e-02 in fp16), softmax with max subtraction.
func.func @llama3_8b_gqa_decode_kcache(%q: tensor<8x4x128xf16>, %kc: tensor<8x8192x128xf16>, %v: tensor<8x8192x128xf16>) -> tensor<8x4x128xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %k = tosa.transpose %kc {perms = array<i32: 0, 2, 1>} : (tensor<8x8192x128xf16>) -> tensor<8x128x8192xf16>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<8x4x128xf16>, tensor<8x128x8192xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<8x4x8192xf16>
  %c = "tosa.const"() <{values = dense<8.837890625e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<8x4x8192xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<8x4x8192xf16>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<8x4x8192xf16>) -> tensor<8x4x1xf16>
  %d = tosa.sub %ss, %m : (tensor<8x4x8192xf16>, tensor<8x4x1xf16>) -> tensor<8x4x8192xf16>
  %e = tosa.exp %d : (tensor<8x4x8192xf16>) -> tensor<8x4x8192xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<8x4x8192xf16>) -> tensor<8x4x1xf16>
  %r = tosa.reciprocal %sum : (tensor<8x4x1xf16>) -> tensor<8x4x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<8x4x8192xf16>, tensor<8x4x1xf16>, tensor<1xi8>) -> tensor<8x4x8192xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<8x4x8192xf16>, tensor<8x8192x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<8x4x128xf16>
  return %o : tensor<8x4x128xf16>
}
