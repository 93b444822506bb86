// GELU's erf form, 0.5·x·(1 + erf(x/√2)), as TorchToLinalg writes it
// (approximate="none") between the two matmuls of an MLP, in f16: imported
// around the `erf` unary (Import.md, "Idioms as frontends write them"),
// superoptimized and verified like any other non-LAX op (erf is an
// uninterpreted oracle in the verifiers), and the generated code runs on
// the CPU (libm's erff) matching the float64 evaluator (std::erf). With
// ptxas, the PTX links libdevice's erf and calls nothing external.
//
// RUN: mirage-opt %s --mirage-import -o - | FileCheck %s --check-prefix=IMPORT
// RUN: mirage-opt %s --pass-pipeline="builtin.module(mirage-superoptimize-pipeline{cache=off progress=false}, mirage-check-on-cpu)" -o /dev/null 2>&1 | FileCheck %s
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{chip=sm_90 output-dir=%t cache=off progress=false})" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}

// IMPORT: mirage_kernel.graph
// IMPORT: mirage_kernel.matmul
// IMPORT: mirage_kernel.unary erf
// IMPORT: mirage_kernel.matmul
// IMPORT-NOT: math.erf
// IMPORT-NOT: linalg.

// CHECK: remark: superoptimized 'graph0'
// CHECK: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
// CHECK: remark: graph 'graph0_opt' on the CPU matches the evaluator
// CHECK-NOT: : error:

// PTX: .visible .entry graph0_opt_k0(
// PTX-NOT: .extern .func
// PTX: ret;

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mlp(%x: tensor<16x64xf16>, %w1: tensor<64x128xf16>, %w2: tensor<128x64xf16>) -> tensor<16x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e1 = tensor.empty() : tensor<16x128xf16>
  %f1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<16x128xf16>) -> tensor<16x128xf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x64xf16>, tensor<64x128xf16>) outs(%f1 : tensor<16x128xf16>) -> tensor<16x128xf16>
  %e2 = tensor.empty() : tensor<16x128xf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x128xf16>) outs(%e2 : tensor<16x128xf16>) {
  ^bb0(%in: f16, %out: f16):
    %cst = arith.constant 7.070310e-01 : f16
    %0 = arith.mulf %in, %cst : f16
    %1 = math.erf %0 : f16
    %cst_0 = arith.constant 1.000000e+00 : f16
    %2 = arith.addf %cst_0, %1 : f16
    %cst_1 = arith.constant 5.000000e-01 : f16
    %3 = arith.mulf %2, %cst_1 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<16x128xf16>
  %e3 = tensor.empty() : tensor<16x64xf16>
  %f3 = linalg.fill ins(%zero : f16) outs(%e3 : tensor<16x64xf16>) -> tensor<16x64xf16>
  %o = linalg.matmul ins(%g, %w2 : tensor<16x128xf16>, tensor<128x64xf16>) outs(%f3 : tensor<16x64xf16>) -> tensor<16x64xf16>
  return %o : tensor<16x64xf16>
}
