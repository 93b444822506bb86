// ViT-B/16's first MLP projection with its bias for 197 tokens (196 patches
// and the class token), in f32 as frontends emit it by default: x 1x197x768,
// W 768x3072 (stored as the matmul's right operand), b 3072. 197 is prime:
// no tile of rows divides it but 1 and 197. Its matmul runs on FMA (f32
// operands), on the plan's register micro-tiles
// (docs/Rationale/FmaMicroTiles.md); PyTorch runs it on cuBLAS's f32 GEMM
// (TF32 is off for matmuls by default). The GELU that follows in the model
// is left out: the search does not fuse erf (non-LAX), so it would only add
// a kernel to both sides.
func.func @vit_b_fc1_f32(%x: tensor<1x197x768xf32>, %w: tensor<1x768x3072xf32>, %b: tensor<1x1x3072xf32>) -> tensor<1x197x3072xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<1x197x768xf32>, tensor<1x768x3072xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x197x3072xf32>
  %y = tosa.add %m, %b : (tensor<1x197x3072xf32>, tensor<1x1x3072xf32>) -> tensor<1x197x3072xf32>
  return %y : tensor<1x197x3072xf32>
}
