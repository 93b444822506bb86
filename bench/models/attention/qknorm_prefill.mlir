// Prefill attention with QK-norm as a TOSA frontend emits it in fp16: 2 heads,
// a chunk of 256 queries against 4096 keys, head dim 64, K stored
// head-dim-first (2x64x4096, normalised over axis 1), RMS norms with eps
// 1e-6 (fp16 1.0132789611816406e-06), scores scaled by 1/8, softmax with
// max subtraction. The case of issue 21 ("prefill attention with QK-norm"):
// it took 65 s of search before. Used by bench/search_workloads.sh (MODELS=1).
func.func @qknorm_prefill(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_d = "tosa.const"() <{values = dense<1.5625e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %eps = "tosa.const"() <{values = dense<1.0132789611816406e-06> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %q2 = tosa.mul %q, %q, %shift : (tensor<2x256x64xf16>, tensor<2x256x64xf16>, tensor<1xi8>) -> tensor<2x256x64xf16>
  %qs = tosa.reduce_sum %q2 {axis = 2 : i32} : (tensor<2x256x64xf16>) -> tensor<2x256x1xf16>
  %qm = tosa.mul %qs, %inv_d, %shift : (tensor<2x256x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x256x1xf16>
  %qv = tosa.add %qm, %eps : (tensor<2x256x1xf16>, tensor<1x1x1xf16>) -> tensor<2x256x1xf16>
  %qr = tosa.rsqrt %qv : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
  %qn = tosa.mul %q, %qr, %shift : (tensor<2x256x64xf16>, tensor<2x256x1xf16>, tensor<1xi8>) -> tensor<2x256x64xf16>
  %k2 = tosa.mul %k, %k, %shift : (tensor<2x64x4096xf16>, tensor<2x64x4096xf16>, tensor<1xi8>) -> tensor<2x64x4096xf16>
  %ks = tosa.reduce_sum %k2 {axis = 1 : i32} : (tensor<2x64x4096xf16>) -> tensor<2x1x4096xf16>
  %km = tosa.mul %ks, %inv_d, %shift : (tensor<2x1x4096xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x1x4096xf16>
  %kv = tosa.add %km, %eps : (tensor<2x1x4096xf16>, tensor<1x1x1xf16>) -> tensor<2x1x4096xf16>
  %kr = tosa.rsqrt %kv : (tensor<2x1x4096xf16>) -> tensor<2x1x4096xf16>
  %kn = tosa.mul %k, %kr, %shift : (tensor<2x64x4096xf16>, tensor<2x1x4096xf16>, tensor<1xi8>) -> tensor<2x64x4096xf16>
  %s = tosa.matmul %qn, %kn, %zp, %zp : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x256x4096xf16>
  %c = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<2x256x4096xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<2x256x4096xf16>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf16>
  %d = tosa.sub %ss, %m : (tensor<2x256x4096xf16>, tensor<2x256x1xf16>) -> tensor<2x256x4096xf16>
  %e = tosa.exp %d : (tensor<2x256x4096xf16>) -> tensor<2x256x4096xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x256x4096xf16>) -> tensor<2x256x1xf16>
  %r = tosa.reciprocal %sum : (tensor<2x256x1xf16>) -> tensor<2x256x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x256x4096xf16>, tensor<2x256x1xf16>, tensor<1xi8>) -> tensor<2x256x4096xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x256x4096xf16>, tensor<2x4096x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}
