//===- BlockOps.td - Block-level μGraph operators ----------*- tablegen -*-===//
#ifndef MIRAGE_BLOCK_OPS_TD
#define MIRAGE_BLOCK_OPS_TD

include "Mirage/Dialect/Block/IR/BlockDialect.td"
include "Mirage/Dialect/Common/MirageOpBases.td"

def Block_InputIteratorOp : Block_Op<"input_iterator", [Pure]> {
  let summary = "loads one tile of a device tensor per for-loop iteration";
  let description = [{
    The operand is an entry block argument of the enclosing
    `mirage_kernel.custom` (a device tensor). `imap` has one entry per grid
    axis (x, y, z): a tensor dim that axis partitions, or -1 to give every
    block along that axis the whole extent (replication). `fmap` is the dim
    the for-loop walks, or -1 to load the same tile in every iteration. Along
    a dim partitioned by both, the block index is the outer and the iteration
    the inner index. The result type is the tile; the verifier checks it
    against the grid, the for-loop range and exact divisibility.

    ```mlir
    // X: [16, 4096], grid [128, 1, 1], forloop 64: each block walks X's
    // columns in 64 steps of 64; every block sees all rows.
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1
         : tensor<16x4096xf16> -> tensor<16x64xf16>
    ```
  }];
  let arguments = (ins Mirage_Tensor:$input, DenseI64ArrayAttr:$imap,
                       I64Attr:$fmap);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $input `imap` `=` $imap `fmap` `=` $fmap attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mirage::AxisMap getAxisMap();
  }];
}

def Block_MatmulOp : Mirage_MatmulBase<Block_Dialect> {
  let description = [{
    Matrix multiplication of two tiles in shared memory.

    ```mlir
    %m = mirage_block.matmul %xt, %wt
         : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf16>
    ```
  }];
}

def Block_UnaryOp : Mirage_UnaryBase<Block_Dialect> {
  let description = [{
    Element-wise unary operator on a tile (same kinds as
    `mirage_kernel.unary`).

    ```mlir
    %e = mirage_block.unary exp %s : tensor<16x128xf16>
    ```
  }];
}

def Block_BinaryOp : Mirage_BinaryBase<Block_Dialect> {
  let description = [{
    Element-wise binary operator on tiles, with the kernel level's
    broadcasting rule.

    ```mlir
    %d = mirage_block.binary div %a, %r
         : tensor<16x32xf16>, tensor<16x1xf16> -> tensor<16x32xf16>
    ```
  }];
}

def Block_ReduceOp : Mirage_ReduceBase<Block_Dialect> {
  let description = [{
    Sum or max of one tile dim to size 1 or to `size` (strided chunks, as
    `mirage_kernel.reduce`).

    ```mlir
    %s = mirage_block.reduce sum %e dim 1 : tensor<16x128xf16> -> tensor<16x1xf16>
    ```
  }];
}

def Block_RmsNormOp : Mirage_RmsNormBase<Block_Dialect> {
  let description = [{
    RMS normalisation of a tile over its last dim (as `mirage_kernel.rms_norm`).

    ```mlir
    %n = mirage_block.rms_norm %t : tensor<1x4096xf16> -> tensor<1x4096xf16>
    ```
  }];
}

def Block_ConcatOp : Mirage_ConcatBase<Block_Dialect> {
  let description = [{
    Concatenation of two tiles (in shared memory this is pointer arithmetic).

    ```mlir
    %c = mirage_block.concat %a, %b dim 1
         : tensor<16x64xf16>, tensor<16x16xf16> -> tensor<16x80xf16>
    ```
  }];
}

def Block_AccumOp : Block_Op<"accum", [Pure, InferTypeOpAdaptor,
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "for-loop accumulator";
  let description = [{
    Folds an in-loop value over the for-loop iterations; the result is an
    after-loop value. Kinds:

    * `sum`: Σ_i x_i, shape unchanged;
    * `sum_last`: Σ_i of x_i with its last dim summed to `size` (default 1);
    * `mean_last`: `sum_last` divided by forloop_range × (last extent / size);
    * `rms_last`: sqrt(`mean_last` of x² + `eps`), where the optional `eps`
      (default 0, printed only when non-zero) is the epsilon of the
      `rms_norm` it fuses: the result is exactly the divisor
      sqrt(mean(x²) + eps) of `rms_norm x eps(e)`;
    * `max`: element-wise max over iterations.

    With a `rescale` operand r (in-loop, broadcast to the accumulator shape),
    `sum` and `sum_last` compute acc ← acc · r_i + x_i: the rescaled form that
    online softmax uses to correct earlier partial sums when the running max
    grows.

    ```mlir
    %acc = mirage_block.accum sum %m : tensor<16x32xf16> -> tensor<16x32xf16>
    %rms = mirage_block.accum rms_last %xt : tensor<16x64xf16> -> tensor<16x1xf16>
    %rme = mirage_block.accum rms_last %xt eps(1.0e-05) : tensor<16x64xf16> -> tensor<16x1xf16>
    %den = mirage_block.accum sum_last %e to 64 : tensor<16x512xf16> -> tensor<16x64xf16>
    ```
  }];
  let arguments = (ins Mirage_AccumKind:$kind, Mirage_Tensor:$input,
                       Optional<Mirage_Tensor>:$rescale,
                       OptionalAttr<I64Attr>:$size,
                       DefaultValuedAttr<F64Attr, "0.0">:$eps);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $kind $input (`rescale` $rescale^)? (`to` $size^)? (`eps` `(` $eps^ `)`)?
    attr-dict `:` type($input)
    (`,` type($rescale)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Block_RunningMaxOp : Block_Op<"running_max", [Pure,
    AllTypesMatch<["prev", "cur"]>, AllElementTypesMatch<["input", "prev"]>]> {
  let summary = "running max of one dim over the for-loop, and its previous value";
  let description = [{
    Online softmax's running max (docs/Rationale/OnlineSoftmax.md). In
    for-loop iteration t, with m_t the max of the in-loop tile `input` along
    `dim` (reduced to 1):

    * `cur` = max(`prev`, m_t): the max over iterations 0..t;
    * `prev` = `cur` of iteration t - 1, and m_0 in iteration 0 (so the first
      rescale exp(prev - cur) is exp(0) = 1, with no -inf).

    Both results are in-loop values of the input's shape with `dim` reduced
    to 1. The rescale of a running sum and the shift of the tile are ordinary
    ops: `exp(prev - cur)` as an accumulator's `rescale`, `exp(x - cur)` for
    the tile.

    ```mlir
    %prev, %cur = mirage_block.running_max %s dim 1
                  : tensor<16x64xf32> -> tensor<16x1xf32>
    %d = mirage_block.binary sub %prev, %cur
         : tensor<16x1xf32>, tensor<16x1xf32> -> tensor<16x1xf32>
    %r = mirage_block.unary exp %d : tensor<16x1xf32>
    ```
  }];
  let arguments = (ins Mirage_Tensor:$input, I64Attr:$dim);
  let results = (outs Mirage_Tensor:$prev, Mirage_Tensor:$cur);
  let assemblyFormat = [{
    $input `dim` $dim attr-dict `:` type($input) `->` type($prev)
  }];
  let hasVerifier = 1;
}

def Block_OutputSaverOp : Block_Op<"output_saver", [Pure]> {
  let summary = "writes each block's tile of an output device tensor";
  let description = [{
    Takes an after-loop tile and produces the device tensor that all blocks'
    tiles form together. `omap` maps each grid axis to the output dim it
    concatenates along; every grid axis with more than one block must map to a
    dim, so that blocks write disjoint regions. The result must be yielded by
    the block graph's terminator.

    ```mlir
    %o = mirage_block.output_saver %acc omap = [1, -1, -1]
         : tensor<16x32xf16> -> tensor<16x4096xf16>
    ```
  }];
  let arguments = (ins Mirage_Tensor:$input, DenseI64ArrayAttr:$omap);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $input `omap` `=` $omap attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mirage::AxisMap getAxisMap();
  }];
}

def Block_ThreadGraphOp : Block_Op<"thread_graph", [IsolatedFromAbove,
    SingleBlock, RecursiveMemoryEffects]> {
  let summary = "fused element-wise code that runs in registers";
  let description = [{
    A thread graph applies its body to every element of the broadcast shape
    of its operands (of one phase, or after-loop values with loop-invariant
    tiles). The body's block arguments are scalars
    of the operands' element types; its `mirage_thread.yield` gives one scalar
    per result. Intermediate values never touch shared memory.

    ```mlir
    %y = mirage_block.thread_graph (%a, %r)
         : (tensor<16x32xf32>, tensor<16x1xf32>) -> tensor<16x32xf32> {
    ^bb0(%x: f32, %s: f32):
      %q = mirage_thread.binary div %x, %s : f32
      %e = mirage_thread.unary silu %q : f32
      mirage_thread.yield %e : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Mirage_Tensor>:$inputs);
  let results = (outs Variadic<Mirage_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict-with-keyword `:` functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
}

def Block_YieldOp : Block_Op<"yield", [Pure, Terminator]> {
  let summary = "the outputs of a block graph";
  let description = [{
    Terminates the body of a `mirage_kernel.custom`; every operand is the
    result of an `output_saver`, each saver is yielded exactly once, and the
    order gives the custom kernel's results.

    ```mlir
    mirage_block.yield %o1, %o2 : tensor<2x256x1024xf16>, tensor<2x256x512xf16>
    ```
  }];
  let arguments = (ins Variadic<Mirage_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let hasVerifier = 1;
}

#endif // MIRAGE_BLOCK_OPS_TD
