// Issue 22, ground truth for the indexing-map analysis (linalg, the way
// TorchToLinalg writes a linear layer and LayerNorm once generalized): a
// contraction reading the weight transposed, a bias through (d2), LayerNorm
// statistics reduced to [b, s] and read back through projected maps. One
// graph; it must compute what upstream's lowering computes.
// RUN: mlir-opt %s --one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so > %t.upstream
// RUN: mirage-opt %s --mirage-import --mirage-evaluate=print-all -o %t.imported.mlir 2> %t.mirage
// RUN: python3 %S/../compare_outputs.py %t.upstream %t.mirage
// RUN: FileCheck %s --input-file=%t.imported.mlir

// CHECK-LABEL: func.func @main
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK-NOT: linalg.generic
// CHECK: call @printMemrefF32
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#wt = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#i3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#w3 = affine_map<(d0, d1, d2) -> (d2)>
func.func @main() {
  %x = arith.constant dense<[[[-1.7470e-01, 4.8810e-01, 5.2110e-01, 4.8800e-01, -1.4400e-02, 9.9790e-01, 5.6150e-01, -5.2990e-01, -1.3850e-01, -8.2170e-01, -2.5070e-01, 6.3460e-01, -2.7500e-02, 4.8500e-02, 5.5800e-01, -8.2550e-01], [-2.9260e-01, -3.3200e-02, -1.2300e-02, 3.6950e-01, 8.7390e-01, 6.0300e-01, 9.1000e-02, 3.6790e-01, 7.7000e-02, 9.7250e-01, 1.9300e-01, 1.8810e-01, -2.0810e-01, -1.6140e-01, 5.2800e-01, -2.5420e-01], [8.0760e-01, 4.5560e-01, 9.1030e-01, 4.1330e-01, 1.4000e-01, -2.6630e-01, -9.6400e-01, 3.2300e-01, 5.0270e-01, 4.4630e-01, 5.1820e-01, -9.2840e-01, 3.6820e-01, -4.4040e-01, -2.2290e-01, 7.3710e-01], [-1.9010e-01, -6.6200e-02, -8.9860e-01, -6.3710e-01, -5.7960e-01, -5.6980e-01, 4.5200e-02, -9.0490e-01, -8.2190e-01, -8.2760e-01, 4.6710e-01, 9.4090e-01, 5.0010e-01, 2.9800e-02, -7.3900e-01, 5.6790e-01], [-7.4100e-01, -8.4650e-01, 2.3000e-02, 7.2480e-01, -3.7870e-01, 7.2670e-01, -3.3570e-01, 9.3280e-01, 4.7730e-01, 7.2980e-01, 9.6900e-01, 6.3370e-01, -6.0750e-01, 3.1900e-02, 8.9400e-02, 4.4470e-01], [-5.4070e-01, 1.5400e-01, -4.3170e-01, -6.3160e-01, -1.0070e-01, 6.0710e-01, 1.0770e-01, -2.9080e-01, -5.4840e-01, -2.8220e-01, -2.0200e-01, -4.5660e-01, -3.7800e-01, -5.4560e-01, -4.1180e-01, 3.4660e-01], [2.5030e-01, 2.5320e-01, 8.4780e-01, 3.3170e-01, -7.3990e-01, -1.9260e-01, 4.8400e-02, 4.9270e-01, 6.0500e-02, -8.1430e-01, -4.8000e-02, 3.1020e-01, 5.7050e-01, -1.0810e-01, -5.7230e-01, -9.3240e-01], [6.2000e-03, 4.9980e-01, -7.7920e-01, 4.5900e-02, 1.9370e-01, 1.1990e-01, -5.3680e-01, -8.1600e-01, -9.5690e-01, -3.8950e-01, 7.9360e-01, -1.6140e-01, 9.7380e-01, 6.4890e-01, 1.6770e-01, -1.2020e-01]]]> : tensor<1x8x16xf32>
  %w = arith.constant dense<[[1.2470e-01, 6.7970e-01, -3.3140e-01, -6.8770e-01, 7.9740e-01, 2.6200e-01, -2.4440e-01, -2.0030e-01, -7.9770e-01, 1.3450e-01, 5.7220e-01, -2.7000e-03, 3.9470e-01, 4.7700e-01, -3.3810e-01, 2.7560e-01], [9.4430e-01, 4.3100e-01, -6.3400e-01, 3.2510e-01, 2.8930e-01, 5.5110e-01, 4.0390e-01, 8.2510e-01, 9.5240e-01, -5.8100e-01, -4.0900e-02, -9.0900e-01, 9.7240e-01, -7.8680e-01, -1.4730e-01, 2.3280e-01], [-1.4170e-01, -6.5690e-01, 4.8000e-03, -5.5330e-01, -2.0100e-02, 4.3020e-01, -4.0180e-01, -1.0680e-01, 2.6380e-01, 6.3700e-02, 6.0180e-01, 7.8280e-01, 9.3390e-01, -6.6980e-01, -3.4900e-02, -7.6380e-01], [3.9680e-01, -2.0780e-01, 6.9900e-01, -3.3200e-02, 5.9640e-01, -9.3840e-01, 2.2610e-01, -1.7320e-01, 6.6560e-01, -7.9370e-01, -8.2210e-01, 3.7530e-01, -3.4750e-01, -1.3020e-01, -1.9180e-01, 9.7090e-01], [2.4760e-01, 6.6530e-01, 6.7830e-01, 7.1550e-01, -1.0570e-01, -4.1980e-01, 3.0200e-02, 7.8870e-01, 7.6650e-01, -4.3800e-02, 8.1360e-01, 5.2500e-01, -9.1920e-01, 2.6720e-01, 5.8750e-01, -9.1270e-01], [-2.4500e-01, 2.9070e-01, 1.4100e-02, 6.0000e-02, -8.1970e-01, -4.7670e-01, 7.3740e-01, -3.0160e-01, -4.1800e-02, 1.8070e-01, -4.3480e-01, -1.7130e-01, 1.1200e-02, 7.3780e-01, 6.8490e-01, -6.4620e-01], [6.5000e-03, 5.0390e-01, 7.9310e-01, 6.1500e-02, 2.6310e-01, 2.9120e-01, 3.3510e-01, 7.8690e-01, 9.7100e-01, 9.8280e-01, -7.5090e-01, 4.3340e-01, -2.2410e-01, -4.4050e-01, -8.0040e-01, 8.2140e-01], [7.8740e-01, 5.7400e-02, -4.7000e-03, -5.8960e-01, 8.5450e-01, 5.1470e-01, -6.6550e-01, 1.4790e-01, 9.9170e-01, -4.7350e-01, -2.5370e-01, -2.7340e-01, -2.5660e-01, -7.6500e-01, 2.5650e-01, -5.1050e-01], [3.6090e-01, -6.4100e-02, 6.8570e-01, 4.9330e-01, 7.1660e-01, -6.8970e-01, 5.8920e-01, 5.4910e-01, -4.1620e-01, -9.9820e-01, -8.0150e-01, 5.4450e-01, 9.3620e-01, -8.6530e-01, -5.1360e-01, -1.9560e-01], [-8.6350e-01, 2.8230e-01, 7.1570e-01, 6.8420e-01, -6.4270e-01, 8.2100e-01, 5.7110e-01, -6.8800e-01, 7.0670e-01, 8.6110e-01, 7.5830e-01, 5.0220e-01, 6.3350e-01, 6.9100e-02, -9.8260e-01, 3.5760e-01], [-9.0000e-04, -7.0340e-01, -7.3320e-01, 7.6970e-01, 8.0840e-01, -8.9770e-01, -9.6250e-01, 3.9550e-01, -4.1680e-01, 7.3970e-01, -7.5500e-02, 4.2430e-01, -9.0670e-01, 5.5310e-01, -6.0100e-01, -1.4110e-01], [-2.8100e-02, -3.5040e-01, -5.1350e-01, -1.0460e-01, -8.9680e-01, -6.8520e-01, -7.3950e-01, 7.0810e-01, -3.7640e-01, 9.6780e-01, 8.0090e-01, -6.6960e-01, 7.1180e-01, 9.7370e-01, -1.1460e-01, -3.3700e-02]]> : tensor<12x16xf32>
  %b = arith.constant dense<[3.4840e-01, -1.9300e-02, -4.7410e-01, 4.6510e-01, -5.6050e-01, -2.3130e-01, -9.5470e-01, -3.5260e-01, 6.1230e-01, -7.2400e-01, -6.2020e-01, -2.0920e-01]> : tensor<12xf32>
  %g = arith.constant dense<[-4.0490e-01, -9.8690e-01, -8.9120e-01, -5.9790e-01, 5.8560e-01, 5.5280e-01, 6.1250e-01, 3.9040e-01, 9.9630e-01, -4.8420e-01, 4.1550e-01, -1.0100e-01]> : tensor<12xf32>
  %beta = arith.constant dense<[9.2110e-01, -1.1450e-01, 4.4760e-01, 5.5160e-01, 9.2770e-01, 5.2990e-01, -3.4500e-01, 2.9850e-01, 5.9330e-01, 8.7910e-01, -5.0620e-01, 4.6060e-01]> : tensor<12xf32>
  %z = arith.constant 0.0 : f32
  %n = arith.constant 8.3333333e-02 : f32
  %eps = arith.constant 1.0e-05 : f32
  %e = tensor.empty() : tensor<1x8x12xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x12xf32>) -> tensor<1x8x12xf32>
  %m = linalg.generic {indexing_maps = [#x, #wt, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x8x16xf32>, tensor<12x16xf32>) outs(%f : tensor<1x8x12xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x8x12xf32>
  %h = linalg.generic {indexing_maps = [#i3, #w3, #i3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m, %b : tensor<1x8x12xf32>, tensor<12xf32>) outs(%e : tensor<1x8x12xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<1x8x12xf32>
  %e2 = tensor.empty() : tensor<1x8xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %sum = linalg.generic {indexing_maps = [#i3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h : tensor<1x8x12xf32>) outs(%f2 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<1x8xf32>
  %c = linalg.generic {indexing_maps = [#i3, #r3, #i3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h, %sum : tensor<1x8x12xf32>, tensor<1x8xf32>) outs(%e : tensor<1x8x12xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in_0, %n : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x8x12xf32>
  %var = linalg.generic {indexing_maps = [#i3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c : tensor<1x8x12xf32>) outs(%f2 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %out : f32
    linalg.yield %1 : f32
  } -> tensor<1x8xf32>
  %y = linalg.generic {indexing_maps = [#i3, #r3, #w3, #w3, #i3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c, %var, %g, %beta : tensor<1x8x12xf32>, tensor<1x8xf32>, tensor<12xf32>, tensor<12xf32>) outs(%e : tensor<1x8x12xf32>) {
  ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %out: f32):
    %0 = arith.mulf %in_0, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %in, %2 : f32
    %4 = arith.mulf %3, %in_1 : f32
    %5 = arith.addf %4, %in_2 : f32
    linalg.yield %5 : f32
  } -> tensor<1x8x12xf32>
  %printed = tensor.cast %y : tensor<1x8x12xf32> to tensor<*xf32>
  call @printMemrefF32(%printed) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
