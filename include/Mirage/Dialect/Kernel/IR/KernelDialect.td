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
}

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

#endif // MIRAGE_KERNEL_DIALECT_TD
