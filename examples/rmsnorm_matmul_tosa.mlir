// RMSNorm (eps, gamma) + MatMul at the paper shapes (LLaMA-2-7B: X 16x4096, W 4096x6144), as TOSA,
// in f16 as the model runs (the matmul on tensor cores). The input of scripts/demo.sh.
func.func @rmsnorm_matmul(%in_x: tensor<1x16x4096xf16>, %in_g: tensor<1x1x4096xf16>, %in_w: tensor<1x4096x6144xf16>) -> tensor<1x16x6144xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %v1 = tosa.mul %in_x, %in_x, %shift : (tensor<1x16x4096xf16>, tensor<1x16x4096xf16>, tensor<1xi8>) -> tensor<1x16x4096xf16>
  %v2 = tosa.reduce_sum %v1 {axis = 2 : i32} : (tensor<1x16x4096xf16>) -> tensor<1x16x1xf16>
  %c3 = "tosa.const"() <{values = dense<2.441406250e-04> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %v4 = tosa.mul %v2, %c3, %shift : (tensor<1x16x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x16x1xf16>
  %c5 = "tosa.const"() <{values = dense<1.000000000e-05> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %v6 = tosa.add %v4, %c5 : (tensor<1x16x1xf16>, tensor<1x1x1xf16>) -> tensor<1x16x1xf16>
  %v7 = tosa.rsqrt %v6 : (tensor<1x16x1xf16>) -> tensor<1x16x1xf16>
  %v8 = tosa.mul %in_x, %v7, %shift : (tensor<1x16x4096xf16>, tensor<1x16x1xf16>, tensor<1xi8>) -> tensor<1x16x4096xf16>
  %v9 = tosa.mul %v8, %in_g, %shift : (tensor<1x16x4096xf16>, tensor<1x1x4096xf16>, tensor<1xi8>) -> tensor<1x16x4096xf16>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %v10 = tosa.matmul %v9, %in_w, %zp, %zp : (tensor<1x16x4096xf16>, tensor<1x4096x6144xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x6144xf16>
  return %v10 : tensor<1x16x6144xf16>
}
