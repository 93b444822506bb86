// Prefill attention at model scale: 32 heads (Llama-2-7B's), 2048 queries
// against 2048 keys, head dim 128, fp16, as a TOSA frontend emits it: the
// layer of bench/models/attention/prefill_attention.mlir with 32 heads for
// one. Its scaled scores are 134 M elements: the expansion tiles them for
// more than 4096 blocks (docs/Rationale/GridLimits.md), and the search's
// flash-attention winner is verified at full shapes in a few GiB
// (docs/Rationale/Verification.md, "Memory"). Not in the scripts' globs:
// one run takes about 14 minutes on 2 cores, most of it verification
// (bench/README.md, "Calibration probes, grids past 4096 blocks,
// verification memory by liveness").
func.func @prefill_attention_32h(%q: tensor<32x2048x128xf16>, %k: tensor<32x128x2048xf16>, %v: tensor<32x2048x128xf16>) -> tensor<32x2048x128xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<32x2048x128xf16>, tensor<32x128x2048xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<32x2048x2048xf16>
  %c = "tosa.const"() <{values = dense<8.837890625e-02> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %ss = tosa.mul %s, %c, %shift : (tensor<32x2048x2048xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<32x2048x2048xf16>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<32x2048x2048xf16>) -> tensor<32x2048x1xf16>
  %d = tosa.sub %ss, %m : (tensor<32x2048x2048xf16>, tensor<32x2048x1xf16>) -> tensor<32x2048x2048xf16>
  %e = tosa.exp %d : (tensor<32x2048x2048xf16>) -> tensor<32x2048x2048xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<32x2048x2048xf16>) -> tensor<32x2048x1xf16>
  %r = tosa.reciprocal %sum : (tensor<32x2048x1xf16>) -> tensor<32x2048x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<32x2048x2048xf16>, tensor<32x2048x1xf16>, tensor<1xi8>) -> tensor<32x2048x2048xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<32x2048x2048xf16>, tensor<32x2048x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<32x2048x128xf16>
  return %o : tensor<32x2048x128xf16>
}
