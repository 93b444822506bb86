//===- KernelDialect.td - The kernel-level μGraph dialect --*- tablegen -*-===//
#ifndef MIRAGE_KERNEL_DIALECT_TD
#define MIRAGE_KERNEL_DIALECT_TD

include "mlir/IR/OpBase.td"

def Kernel_Dialect : Dialect {
  let name = "mirage_kernel";
  let cppNamespace = "::mirage::kernel";
  let summary = "kernel graphs: device-level tensor programs of a μGraph";
  let description = [{
    The outermost level of a μGraph (Mirage, OSDI'25). A `mirage_kernel.graph`
    is a DAG of operators over device-memory tensors. Each operator is either a
    pre-defined kernel (matmul, element-wise, reduction, rms_norm, concat) or a
    graph-defined kernel, `mirage_kernel.custom`, whose body is a block graph
    in the `mirage_block` dialect.

    ```mlir
    %y = mirage_kernel.graph (%x, %w) : (tensor<16x64xf32>, tensor<64x32xf32>)
                                      -> tensor<16x32xf32> {
    ^bb0(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>):
      %0 = mirage_kernel.matmul %a, %b
           : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
      mirage_kernel.yield %0 : tensor<16x32xf32>
    }
    ```
  }];
  let dependentDialects = ["::mirage::block::BlockDialect"];

  // The launch configuration a kernel carries below this level, from the
  // loop IR of mirage-lower-kernels-to-loops to the PTX: declared here, so
  // that the levels agree on one spelling and the dialect verifies them
  // (verifyOperationAttribute).
  //   kernel               (func) a kernel's loop-level function
  //   grid, block          (func) blocks of the launch and threads per block
  //   min_blocks_per_sm    (func) the plan's occupancy promise (.minnctapersm)
  //   dynamic_shared_bytes (func) dynamic shared memory the launch requests
  //   static_shared_bytes  (func) its static .shared data
  //   prefetch_stages, prefetch_group
  //                        (copy into shared memory) the plan's pipeline
  //   prefetch_wait        (copy into shared memory) when its group is
  //                        committed, wait until at most this many groups
  //                        are pending (a wait the pipeline's own rule,
  //                        group stages-1 waits stages-1, does not give:
  //                        LoopInvariantOps.md)
  //   host_graph, host_reference
  //                        (func) the host function of a graph's launches,
  //                        and the graph it is checked against
  //   ptx_kernels          (gpu.binary) kernel -> [dynamic, static] shared
  //                        bytes
  //   waits_on_previous, launches_dependents
  //                        (func) programmatic dependent launch: wait for
  //                        the previous grid of the graph, let the next
  //                        one launch (Lowering.md)
  //   reduction_tree       (scf.forall) a level of a row reduction's tree:
  //                        [id, half, lanes, outputs], lane l of each
  //                        output folds lane l + half into itself
  //                        (WarpReductions.md)
  //   reduction_fold       (scf.forall) the phase before the tree that
  //                        writes every lane: [id, lanes, outputs], element
  //                        e = out·lanes + lane by thread e mod the block
  //                        size
  //   reduction_finish     (scf.forall) the phase after the tree that reads
  //                        lane 0 of each output: [id, outputs]
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$kernel,
    "::mlir::DenseI64ArrayAttr":$grid,
    "::mlir::DenseI64ArrayAttr":$block,
    "::mlir::IntegerAttr":$min_blocks_per_sm,
    "::mlir::IntegerAttr":$dynamic_shared_bytes,
    "::mlir::IntegerAttr":$static_shared_bytes,
    "::mlir::IntegerAttr":$prefetch_stages,
    "::mlir::IntegerAttr":$prefetch_group,
    "::mlir::IntegerAttr":$prefetch_wait,
    "::mlir::StringAttr":$host_graph,
    "::mlir::StringAttr":$host_reference,
    "::mlir::DictionaryAttr":$ptx_kernels,
    "::mlir::UnitAttr":$waits_on_previous,
    "::mlir::UnitAttr":$launches_dependents,
    "::mlir::DenseI64ArrayAttr":$reduction_tree,
    "::mlir::DenseI64ArrayAttr":$reduction_fold,
    "::mlir::DenseI64ArrayAttr":$reduction_finish
  );
  let hasOperationAttrVerify = 1;
}

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

#endif // MIRAGE_KERNEL_DIALECT_TD
