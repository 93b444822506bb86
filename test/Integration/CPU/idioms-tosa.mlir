// Issue 22 item 3, ground truth for the TOSA forms (TorchToTosa): RMSNorm
// with tosa.pow x, 2 and the mean as reduce_sum times a reciprocal constant,
// the weight reshaped to [1, 1, h]; GELU (tanh form, the formula's
// constants) with the cube as tosa.pow x, 3; SiLU with the sigmoid spelled
// 1/(1+exp(-x)). Chained in one program; the import must compute what
// upstream's lowering computes.
// RUN: mlir-opt %s --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor))" | mlir-opt --one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so > %t.upstream
// RUN: mirage-opt %s --mirage-import --mirage-evaluate=print-all -o %t.imported.mlir 2> %t.mirage
// RUN: python3 %S/../compare_outputs.py %t.upstream %t.mirage
// RUN: FileCheck %s --input-file=%t.imported.mlir

// CHECK-LABEL: func.func @main
// CHECK: mirage_kernel.rms_norm
// CHECK: mirage_kernel.unary gelu
// CHECK: mirage_kernel.unary silu
// CHECK-NOT: tosa.
// CHECK: call @printMemrefF32
func.func @main() {
  %x = "tosa.const"() <{values = dense<[[[-1.4286e-01, 1.7932e-01, 1.2726e+00, -1.0305e-01, 2.3524e-02, 2.6215e-01, -9.4602e-01, 3.5726e-02], [3.8965e-01, 8.7893e-01, -1.2176e+00, -5.8980e-01, -1.2280e+00, 9.2893e-01, 5.8032e-01, -1.3744e+00], [1.4466e+00, 1.3943e+00, 4.6177e-01, 3.4669e-01, -1.0275e+00, -1.4550e+00, 8.5144e-02, -1.3213e+00], [-9.2938e-01, -7.7417e-01, -1.4098e+00, -1.0820e-01, -1.7841e-01, 1.0273e+00, 5.7372e-02, 4.2088e-01]], [[-6.8054e-04, 4.8735e-01, -1.2801e-01, -6.6551e-01, 1.4930e+00, 1.4871e+00, 1.0206e+00, 6.2343e-01], [-5.5417e-01, -8.1100e-01, -6.3288e-01, -1.2893e+00, 7.9886e-01, -2.9880e-01, 1.0398e+00, -3.4046e-01], [1.3741e+00, 1.0419e+00, -1.4984e+00, -8.7085e-01, 1.2308e+00, -9.0038e-02, 1.4411e+00, -3.0773e-01], [-1.2809e+00, 3.8836e-01, 8.3553e-01, -6.9067e-01, -1.2386e+00, -5.0224e-01, 1.3922e+00, 7.7412e-01]]]> : tensor<2x4x8xf32>}> : () -> tensor<2x4x8xf32>
  %g = "tosa.const"() <{values = dense<[-1.1460e+00, -7.6084e-01, -1.1969e+00, -1.3203e+00, 8.9106e-01, -9.6697e-01, 1.7789e-01, -1.5773e-01]> : tensor<8xf32>}> : () -> tensor<8xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %three = "tosa.const"() <{values = dense<3.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %inv = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-05> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %k = "tosa.const"() <{values = dense<0.797884583> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %c = "tosa.const"() <{values = dense<0.044715> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s = tosa.const_shape {values = dense<[1, 1, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sq = tosa.pow %x, %two : (tensor<2x4x8xf32>, tensor<1x1x1xf32>) -> tensor<2x4x8xf32>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %mean = tosa.mul %sum, %inv, %shift : (tensor<2x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x1xf32>
  %a = tosa.add %mean, %eps : (tensor<2x4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x1xf32>
  %r = tosa.rsqrt %a : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %nx = tosa.mul %x, %r, %shift : (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  %g3 = tosa.reshape %g, %s : (tensor<8xf32>, !tosa.shape<3>) -> tensor<1x1x8xf32>
  %n = tosa.mul %g3, %nx, %shift : (tensor<1x1x8xf32>, tensor<2x4x8xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  %n3 = tosa.pow %n, %three : (tensor<2x4x8xf32>, tensor<1x1x1xf32>) -> tensor<2x4x8xf32>
  %cn3 = tosa.mul %n3, %c, %shift : (tensor<2x4x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  %in = tosa.add %n, %cn3 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %sin = tosa.mul %in, %k, %shift : (tensor<2x4x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  %t = tosa.tanh %sin : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %u = tosa.add %t, %one : (tensor<2x4x8xf32>, tensor<1x1x1xf32>) -> tensor<2x4x8xf32>
  %hn = tosa.mul %n, %half, %shift : (tensor<2x4x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  %ge = tosa.mul %hn, %u, %shift : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  %ng = tosa.negate %ge, %zp, %zp : (tensor<2x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x8xf32>
  %e = tosa.exp %ng : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %ea = tosa.add %e, %one : (tensor<2x4x8xf32>, tensor<1x1x1xf32>) -> tensor<2x4x8xf32>
  %sg = tosa.reciprocal %ea : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %y = tosa.mul %sg, %ge, %shift : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  %printed = tensor.cast %y : tensor<2x4x8xf32> to tensor<*xf32>
  call @printMemrefF32(%printed) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
