// Qwen3-8B decode attention with QK-norm: 32 query heads over 8 KV heads,
// one token, 4096 cached keys, head dim 128, as a TOSA frontend emits it in
// fp16. Q (8x4x128: KV heads × the 4 query heads of each group) and K get
// an RMS normalisation with a learned gamma over the head dim (eps 1e-6,
// stored in fp16 as 1.0132789611816406e-06); K is stored head-dim-first
// (8x128x4096), so its normalisation runs over axis 1, not the last. Scores
// scaled by 1/sqrt(128) (fp16 8.837890625e-02); softmax with max
// subtraction. Used by bench/search_workloads.sh (MODELS=1).
func.func @qwen3_8b_qknorm_decode(%q: tensor<8x4x128xf16>, %k: tensor<8x128x4096xf16>, %v: tensor<8x4096x128xf16>, %gq: tensor<1x1x128xf16>, %gk: tensor<1x128x1xf16>) -> tensor<8x4x128xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_d = "tosa.const"() <{values = dense<7.8125e-03> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %eps = "tosa.const"() <{values = dense<1.0132789611816406e-06> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  // Q: RMS norm over the last axis, times gamma_q.
  %q2 = tosa.mul %q, %q, %shift : (tensor<8x4x128xf16>, tensor<8x4x128xf16>, tensor<1xi8>) -> tensor<8x4x128xf16>
  %qs = tosa.reduce_sum %q2 {axis = 2 : i32} : (tensor<8x4x128xf16>) -> tensor<8x4x1xf16>
  %qm = tosa.mul %qs, %inv_d, %shift : (tensor<8x4x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<8x4x1xf16>
  %qv = tosa.add %qm, %eps : (tensor<8x4x1xf16>, tensor<1x1x1xf16>) -> tensor<8x4x1xf16>
  %qr = tosa.rsqrt %qv : (tensor<8x4x1xf16>) -> tensor<8x4x1xf16>
  %qn = tosa.mul %q, %qr, %shift : (tensor<8x4x128xf16>, tensor<8x4x1xf16>, tensor<1xi8>) -> tensor<8x4x128xf16>
  %qg = tosa.mul %qn, %gq, %shift : (tensor<8x4x128xf16>, tensor<1x1x128xf16>, tensor<1xi8>) -> tensor<8x4x128xf16>
  // K: RMS norm over axis 1 (the head dim of a head-dim-first key cache).
  %k2 = tosa.mul %k, %k, %shift : (tensor<8x128x4096xf16>, tensor<8x128x4096xf16>, tensor<1xi8>) -> tensor<8x128x4096xf16>
  %ks = tosa.reduce_sum %k2 {axis = 1 : i32} : (tensor<8x128x4096xf16>) -> tensor<8x1x4096xf16>
  %km = tosa.mul %ks, %inv_d, %shift : (tensor<8x1x4096xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<8x1x4096xf16>
  %kv = tosa.add %km, %eps : (tensor<8x1x4096xf16>, tensor<1x1x1xf16>) -> tensor<8x1x4096xf16>
  %kr = tosa.rsqrt %kv : (tensor<8x1x4096xf16>) -> tensor<8x1x4096xf16>
  %kn = tosa.mul %k, %kr, %shift : (tensor<8x128x4096xf16>, tensor<8x1x4096xf16>, tensor<1xi8>) -> tensor<8x128x4096xf16>
  %kg = tosa.mul %kn, %gk, %shift : (tensor<8x128x4096xf16>, tensor<1x128x1xf16>, tensor<1xi8>) -> tensor<8x128x4096xf16>
  // Attention.
  %s = tosa.matmul %qg, %kg, %zp, %zp : (tensor<8x4x128xf16>, tensor<8x128x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<8x4x4096xf16>
  %c = "tosa.const"() <{values = dense<8.837890625e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<8x4x4096xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<8x4x4096xf16>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<8x4x4096xf16>) -> tensor<8x4x1xf16>
  %d = tosa.sub %ss, %m : (tensor<8x4x4096xf16>, tensor<8x4x1xf16>) -> tensor<8x4x4096xf16>
  %e = tosa.exp %d : (tensor<8x4x4096xf16>) -> tensor<8x4x4096xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<8x4x4096xf16>) -> tensor<8x4x1xf16>
  %r = tosa.reciprocal %sum : (tensor<8x4x1xf16>) -> tensor<8x4x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<8x4x4096xf16>, tensor<8x4x1xf16>, tensor<1xi8>) -> tensor<8x4x4096xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<8x4x4096xf16>, tensor<8x4096x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<8x4x128xf16>
  return %o : tensor<8x4x128xf16>
}
