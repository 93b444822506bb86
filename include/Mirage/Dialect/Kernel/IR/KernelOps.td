//===- KernelOps.td - Kernel-level μGraph operators --------*- tablegen -*-===//
#ifndef MIRAGE_KERNEL_OPS_TD
#define MIRAGE_KERNEL_OPS_TD

include "Mirage/Dialect/Kernel/IR/KernelDialect.td"
include "Mirage/Dialect/Common/MirageOpBases.td"
include "mlir/IR/RegionKindInterface.td"

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Kernel_GraphOp : Kernel_Op<"graph", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "a kernel graph: a DAG of kernels over device tensors";
  let description = [{
    A kernel graph takes device tensors as operands, binds them to the entry
    block arguments of its body and returns the values of its
    `mirage_kernel.yield` terminator. The body is isolated from above, so a
    graph is a self-contained unit for verification, evaluation and search.
    The operands are the graph's inputs in order; the yielded values are its
    outputs in order.

    Optional names: `sym_name` names the graph (unique within the module), and
    `reference` names another graph of the module that this one must be
    equivalent to; the comparison and verification passes check such pairs.

    `transposed_inputs` lists inputs stored with their last two dims swapped
    (docs/Rationale/OperandLayouts.md): such an operand has the stored type
    and its body argument the logical one, the operand's transpose, which
    the body computes with. Kernels read the stored tensor as it lies, e.g.
    an `nn.Linear` weight (N x K) multiplied as K x N:

    ```mlir
    %y = mirage_kernel.graph (%x, %w) attributes {transposed_inputs = array<i64: 1>}
        : (tensor<4x64xf16>, tensor<32x64xf16>) -> tensor<4x32xf16> {
    ^bb0(%a: tensor<4x64xf16>, %b: tensor<64x32xf16>):
      %m = mirage_kernel.matmul %a, %b
           : tensor<4x64xf16>, tensor<64x32xf16> -> tensor<4x32xf16>
      mirage_kernel.yield %m : tensor<4x32xf16>
    }
    ```

    ```mlir
    %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%a: tensor<8x64xf32>):
      %e = mirage_kernel.unary exp %a : tensor<8x64xf32>
      mirage_kernel.yield %e : tensor<8x64xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Mirage_Tensor>:$inputs,
                       OptionalAttr<StrAttr>:$sym_name,
                       OptionalAttr<StrAttr>:$reference,
                       OptionalAttr<DenseI64ArrayAttr>:$transposed_inputs);
  let results = (outs Variadic<Mirage_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    ($sym_name^)? (`reference` $reference^)? `(` $inputs `)` attr-dict-with-keyword `:`
    functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether input `i` is stored with its last two dims swapped.
    bool isTransposedInput(unsigned i) {
      return getTransposedInputs() &&
             llvm::is_contained(*getTransposedInputs(), int64_t(i));
    }
  }];
}

def Kernel_YieldOp : Kernel_Op<"yield", [Pure, Terminator,
    HasParent<"GraphOp">]> {
  let summary = "the outputs of a kernel graph";
  let description = [{
    Terminates a `mirage_kernel.graph`; its operands are the graph's outputs
    and must match the graph's result types.

    ```mlir
    mirage_kernel.yield %a, %b : tensor<8x64xf32>, tensor<8x1xf32>
    ```
  }];
  let arguments = (ins Variadic<Mirage_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Pre-defined kernels
//===----------------------------------------------------------------------===//

def Kernel_MatmulOp : Mirage_MatmulBase<Kernel_Dialect> {
  let description = [{
    `A[..., m, k] × B[..., k, n] -> [..., m, n]` over device tensors. Both
    operands have the same rank (2 to 4) and equal leading (batch) dims.

    ```mlir
    %c = mirage_kernel.matmul %a, %b
         : tensor<2x16x64xf16>, tensor<2x64x32xf16> -> tensor<2x16x32xf16>
    ```
  }];
}

def Kernel_UnaryOp : Mirage_UnaryBase<Kernel_Dialect> {
  let description = [{
    Applies `kind` to every element: exp, square, sqrt, rsqrt, reciprocal,
    silu, gelu (tanh form), relu, sigmoid, tanh, erf, and `mul_scalar` /
    `add_scalar`, which take their constant as `scalar(...)`.

    ```mlir
    %y = mirage_kernel.unary silu %x : tensor<8x64xf16>
    %z = mirage_kernel.unary mul_scalar %x scalar(1.250000e-01) : tensor<8x64xf16>
    ```
  }];
}

def Kernel_BinaryOp : Mirage_BinaryBase<Kernel_Dialect> {
  let description = [{
    add, sub, mul, div or pow, element-wise. Operands have equal rank; in each
    dim their extents are equal or one of them is 1 (broadcast).

    ```mlir
    %q = mirage_kernel.binary div %x, %s
         : tensor<8x64xf32>, tensor<8x1xf32> -> tensor<8x64xf32>
    ```
  }];
}

def Kernel_ReduceOp : Mirage_ReduceBase<Kernel_Dialect> {
  let description = [{
    Sums (or maxes) dim `dim` down to `size` (default 1). With size s < n,
    element j of the result combines the strided elements j, j+s, j+2s, ...
    of the input, so reducing to s undoes a concatenation of n/s chunks.

    ```mlir
    %s = mirage_kernel.reduce sum %x dim 1 : tensor<8x64xf32> -> tensor<8x1xf32>
    %t = mirage_kernel.reduce sum %y dim 1 to 64 : tensor<8x512xf32> -> tensor<8x64xf32>
    ```
  }];
}

def Kernel_RmsNormOp : Mirage_RmsNormBase<Kernel_Dialect> {
  let description = [{
    `y = x / sqrt(mean(x², last dim) + eps) * weight`. The weight is optional
    and must broadcast to the operand; eps defaults to 0.

    ```mlir
    %y = mirage_kernel.rms_norm %x weight %g eps(1.000000e-05)
         : tensor<8x64xf32>, tensor<1x64xf32> -> tensor<8x64xf32>
    ```
  }];
}

def Kernel_ConcatOp : Mirage_ConcatBase<Kernel_Dialect> {
  let description = [{
    Concatenates two device tensors along `dim`.

    ```mlir
    %c = mirage_kernel.concat %a, %b dim 1
         : tensor<8x16xf32>, tensor<8x32xf32> -> tensor<8x48xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Graph-defined kernel
//===----------------------------------------------------------------------===//

def Kernel_CustomOp : Kernel_Op<"custom", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "a graph-defined kernel whose body is a block graph";
  let description = [{
    Launches `grid` = [x, y, z] thread blocks. Each block runs the block graph
    in the body: `forloop_range` iterations in which input iterators load one
    tile of each input and in-loop operators and accumulators run, then the
    after-loop operators and the output savers, which write the block's tile of
    each output. The body's entry block arguments are the device tensors passed
    as operands; the `mirage_block.yield` terminator lists the output savers'
    results, which become this op's results.

    The verifier enforces the μGraph rules: tile shapes follow from
    imap/fmap/omap with exact divisibility; every path from an input to an
    output crosses exactly one iterator, one accumulator and one saver, with
    in-loop and after-loop operators kept apart (a path from a loop-invariant
    `fmap = -1` tile may skip the accumulator); savers write disjoint regions;
    rank ≤ 4; at most 2^20 blocks and 65535 along an axis; and the tiles fit the shared memory of
    `target` (default "h100"; also "a100").

    ```mlir
    %o = mirage_kernel.custom (%x, %w) grid = [4, 1, 1] forloop = 2
         : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32> {
    ^bb0(%X: tensor<8x64xf32>, %W: tensor<64x32xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1
            : tensor<8x64xf32> -> tensor<8x32xf32>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0
            : tensor<64x32xf32> -> tensor<32x8xf32>
      %m = mirage_block.matmul %xt, %wt
           : tensor<8x32xf32>, tensor<32x8xf32> -> tensor<8x8xf32>
      %a = mirage_block.accum sum %m : tensor<8x8xf32> -> tensor<8x8xf32>
      %s = mirage_block.output_saver %a omap = [1, -1, -1]
           : tensor<8x8xf32> -> tensor<8x32xf32>
      mirage_block.yield %s : tensor<8x32xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Mirage_Tensor>:$inputs,
                       DenseI64ArrayAttr:$grid,
                       I64Attr:$forloop_range,
                       OptionalAttr<StrAttr>:$target);
  let results = (outs Variadic<Mirage_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` `grid` `=` $grid `forloop` `=` $forloop_range
    attr-dict-with-keyword `:` functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mirage::GridDims getGridDims();
  }];
}

#endif // MIRAGE_KERNEL_OPS_TD
