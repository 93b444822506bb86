//===- BlockDialect.td - The block-level μGraph dialect ----*- tablegen -*-===//
#ifndef MIRAGE_BLOCK_DIALECT_TD
#define MIRAGE_BLOCK_DIALECT_TD

include "mlir/IR/OpBase.td"

def Block_Dialect : Dialect {
  let name = "mirage_block";
  let cppNamespace = "::mirage::block";
  let summary = "block graphs: the program one thread block runs";
  let description = [{
    The middle level of a μGraph. Block-graph operators live in the body of a
    graph-defined kernel (`mirage_kernel.custom`) and work on tiles held in
    shared memory. Input iterators (`input_iterator`) cut tiles out of device
    tensors with an imap (grid axis → tensor dim) and an fmap (the dim the
    for-loop walks); for-loop accumulators (`accum`) fold per-iteration values;
    output savers (`output_saver`) write tiles back with an omap. Element-wise
    chains may be fused into a `thread_graph`, whose body is in the
    `mirage_thread` dialect.

    Values are in one of two phases: *in-loop* (produced from iterator
    outputs, recomputed every iteration) and *after-loop* (produced from
    accumulator outputs, computed once). Every operator takes operands of a
    single phase, except that after-loop operators may also read in-loop
    tiles that are the same in every iteration (an `fmap = -1` tile, or an
    operator's result over such tiles alone); accumulators take in-loop
    values and produce after-loop values; savers take after-loop values.

    ```mlir
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = 1
         : tensor<64x4096xf16> -> tensor<16x64xf16>
    ```
  }];
  let dependentDialects = ["::mirage::thread::ThreadDialect"];
}

class Block_Op<string mnemonic, list<Trait> traits = []>
    : Op<Block_Dialect, mnemonic, traits>;

#endif // MIRAGE_BLOCK_DIALECT_TD
