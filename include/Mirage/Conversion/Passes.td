//===- Passes.td - Conversions into the Mirage dialects -----*- tablegen -*-===//
#ifndef MIRAGE_CONVERSION_PASSES_TD
#define MIRAGE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def MirageImport : Pass<"mirage-import", "::mlir::func::FuncOp"> {
  let summary = "import linalg and TOSA tensor programs into kernel graphs";
  let description = [{
    Finds the tensor computation of a function written in TOSA or linalg on
    tensors (plus arith/math element-wise bodies) and replaces maximal convex
    groups of importable ops by `mirage_kernel.graph` ops. A group's operands
    are its external inputs (function arguments, constants, results of ops
    that stay); its results replace the group's external uses. Splat
    constants feeding add/sub/mul become `mul_scalar`/`add_scalar`; other
    constants stay outside the graph and become operands.

    After building a graph the pass recognises what frontends emit:
    `x * rsqrt(mean(x²) + eps) [* gamma]` becomes `rms_norm [weight] eps`,
    `x * sigmoid(x)` becomes `silu`, the tanh form of GELU becomes `gelu`,
    `1 / (1 + exp(-x))` becomes `sigmoid`. It then splits each graph into
    LAX sub-programs: no input→output path crosses more than one `exp`
    (with `strict-lax`, non-LAX ops also get graphs of their own; otherwise
    a graph holding them is tagged `mirage.non_lax`). See
    docs/Rationale/Import.md.

    Only static shapes of rank 1 to 4 and f16/bf16/f32/f64 elements are
    imported. Everything else stays as it was; with `remarks` (default) each
    TOSA or linalg op left behind gets a remark `not imported: <reason>`.
    The function's meaning never changes, with one exception that has its
    own remark and option: f64 statistics of an f32/f16 program, which
    torch-mlir's LayerNorm decomposition computes in f64 and PyTorch in
    f32, are computed in the program's type (`narrow-f64-statistics`).

    Before:
    ```mlir
    func.func @f(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>) -> tensor<1x4x16xf32> {
      %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
      %m = tosa.matmul %a, %b, %zp, %zp : (...) -> tensor<1x4x16xf32>
      %e = tosa.exp %m : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
      return %e : tensor<1x4x16xf32>
    }
    ```
    After `mirage-opt --mirage-import`:
    ```mlir
    func.func @f(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>) -> tensor<1x4x16xf32> {
      %0 = mirage_kernel.graph (%a, %b) : (...) -> tensor<1x4x16xf32> {
      ^bb0(%x: tensor<1x4x8xf32>, %y: tensor<1x8x16xf32>):
        %m = mirage_kernel.matmul %x, %y : ... -> tensor<1x4x16xf32>
        %e = mirage_kernel.unary exp %m : tensor<1x4x16xf32>
        mirage_kernel.yield %e : tensor<1x4x16xf32>
      }
      return %0 : tensor<1x4x16xf32>
    }
    ```
  }];
  let dependentDialects = ["::mirage::kernel::KernelDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"strictLax", "strict-lax", "bool", "false",
           "also split graphs around non-LAX ops (silu, gelu, relu, sigmoid, "
           "tanh, pow, reduce max), each in a graph of its own">,
    Option<"recognize", "recognize", "bool", "true",
           "recognise rms_norm, silu, gelu and sigmoid patterns">,
    Option<"remarks", "remarks", "bool", "true",
           "emit a remark on each TOSA/linalg op that is not imported">,
    Option<"narrowF64Statistics", "narrow-f64-statistics", "bool", "true",
           "compute f64 statistics of an f32/f16 program (torch-mlir's "
           "var_mean: an extf upcast, f64 mean and variance, truncf back) in "
           "the program's type, with a remark, as PyTorch does; false keeps "
           "them in f64, outside every graph">
  ];
}

#endif // MIRAGE_CONVERSION_PASSES_TD
