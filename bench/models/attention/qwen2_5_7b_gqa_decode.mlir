// Qwen2.5-7B grouped-query decode attention: 28 query heads over 4 KV heads, one token, 4096 cached keys.
// Decode attention as a TOSA frontend emits it, in fp16: the 4 KV heads each
// serve a group of 14 query rows (query heads per KV head × tokens), head dim
// 128, 4096 cached keys stored head-dim-first (K is heads×d×keys), scores scaled
// by 1/sqrt(128) (stored in fp16: 8.837890625e-02), softmax with max subtraction
// (reduce_max, sub, exp, reduce_sum, reciprocal, mul). Used by
// bench/search_workloads.sh (MODELS=1) and docs/Rationale/StableSoftmax.md.
func.func @qwen2_5_7b_gqa_decode(%q: tensor<4x14x128xf16>, %k: tensor<4x128x4096xf16>, %v: tensor<4x4096x128xf16>) -> tensor<4x14x128xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<4x14x128xf16>, tensor<4x128x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<4x14x4096xf16>
  %c = "tosa.const"() <{values = dense<8.837890625e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<4x14x4096xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<4x14x4096xf16>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<4x14x4096xf16>) -> tensor<4x14x1xf16>
  %d = tosa.sub %ss, %m : (tensor<4x14x4096xf16>, tensor<4x14x1xf16>) -> tensor<4x14x4096xf16>
  %e = tosa.exp %d : (tensor<4x14x4096xf16>) -> tensor<4x14x4096xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<4x14x4096xf16>) -> tensor<4x14x1xf16>
  %r = tosa.reciprocal %sum : (tensor<4x14x1xf16>) -> tensor<4x14x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<4x14x4096xf16>, tensor<4x14x1xf16>, tensor<1xi8>) -> tensor<4x14x4096xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<4x14x4096xf16>, tensor<4x4096x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<4x14x128xf16>
  return %o : tensor<4x14x128xf16>
}
