// Llama-3-8B grouped-query decode attention with an additive attention mask: 32 query heads over 8 KV heads, one token, 8192 cached keys.
// Decode attention as a TOSA frontend emits it, in fp16: the 8 KV heads each
// serve a group of 4 query rows (query heads per KV head × tokens), head dim
// 128, 8192 cached keys stored head-dim-first (K is heads×d×keys), scores scaled
// by 1/sqrt(128) (stored in fp16: 8.837890625e-02), softmax with max subtraction
// (reduce_max, sub, exp, reduce_sum, reciprocal, mul). Used by
// bench/search_workloads.sh (MODELS=1) and docs/Rationale/FusionSearch.md.
// The mask (one row over the keys, broadcast over heads and query rows) is
// added to the scaled scores before the row max, as exported models pass
// their attention mask: 0 where a key is visible, a large negative value
// (torch.finfo(float16).min) where it is not.
func.func @llama3_8b_gqa_decode_masked(%q: tensor<8x4x128xf16>, %mask: tensor<1x1x8192xf16>, %k: tensor<8x128x8192xf16>, %v: tensor<8x8192x128xf16>) -> tensor<8x4x128xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<8x4x128xf16>, tensor<8x128x8192xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<8x4x8192xf16>
  %c = "tosa.const"() <{values = dense<8.837890625e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<8x4x8192xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<8x4x8192xf16>
  %sm = tosa.add %ss, %mask : (tensor<8x4x8192xf16>, tensor<1x1x8192xf16>) -> tensor<8x4x8192xf16>
  %m = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<8x4x8192xf16>) -> tensor<8x4x1xf16>
  %d = tosa.sub %sm, %m : (tensor<8x4x8192xf16>, tensor<8x4x1xf16>) -> tensor<8x4x8192xf16>
  %e = tosa.exp %d : (tensor<8x4x8192xf16>) -> tensor<8x4x8192xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<8x4x8192xf16>) -> tensor<8x4x1xf16>
  %r = tosa.reciprocal %sum : (tensor<8x4x1xf16>) -> tensor<8x4x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<8x4x8192xf16>, tensor<8x4x1xf16>, tensor<1xi8>) -> tensor<8x4x8192xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<8x4x8192xf16>, tensor<8x8192x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<8x4x128xf16>
  return %o : tensor<8x4x128xf16>
}
