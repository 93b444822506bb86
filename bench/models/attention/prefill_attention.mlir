// Prefill attention as a TOSA frontend emits it in fp16, without QK-norm:
// one head group, a chunk of 2048 queries against 2048 keys, head dim 128,
// K stored head-dim-first (1x128x2048), scores scaled by 1/sqrt(128)
// (fp16 0.08837890625), softmax with max subtraction. The flash-attention
// case of issue 21 (docs/Rationale/OnlineSoftmax.md): one kernel whose
// for-loop walks the keys with a running max. Used by
// bench/search_workloads.sh (MODELS=1).
func.func @prefill_attention(%q: tensor<1x2048x128xf16>, %k: tensor<1x128x2048xf16>, %v: tensor<1x2048x128xf16>) -> tensor<1x2048x128xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<1x2048x128xf16>, tensor<1x128x2048xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2048x2048xf16>
  %c = "tosa.const"() <{values = dense<8.837890625e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<1x2048x2048xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2048x2048xf16>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<1x2048x2048xf16>) -> tensor<1x2048x1xf16>
  %d = tosa.sub %ss, %m : (tensor<1x2048x2048xf16>, tensor<1x2048x1xf16>) -> tensor<1x2048x2048xf16>
  %e = tosa.exp %d : (tensor<1x2048x2048xf16>) -> tensor<1x2048x2048xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x2048x2048xf16>) -> tensor<1x2048x1xf16>
  %r = tosa.reciprocal %sum : (tensor<1x2048x1xf16>) -> tensor<1x2048x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<1x2048x2048xf16>, tensor<1x2048x1xf16>, tensor<1xi8>) -> tensor<1x2048x2048xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1x2048x2048xf16>, tensor<1x2048x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2048x128xf16>
  return %o : tensor<1x2048x128xf16>
}
