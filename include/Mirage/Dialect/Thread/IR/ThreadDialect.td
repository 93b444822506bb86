//===- ThreadDialect.td - The thread-level μGraph dialect --*- tablegen -*-===//
#ifndef MIRAGE_THREAD_DIALECT_TD
#define MIRAGE_THREAD_DIALECT_TD

include "mlir/IR/OpBase.td"

def Thread_Dialect : Dialect {
  let name = "mirage_thread";
  let cppNamespace = "::mirage::thread";
  let summary = "thread graphs: fused element-wise code in registers";
  let description = [{
    The innermost level of a μGraph: scalar element-wise operators in the body
    of a `mirage_block.thread_graph`. Each thread applies the body to the
    elements it owns; nothing is written to shared memory in between.

    ```mlir
    %q = mirage_thread.binary div %x, %s : f32
    ```
  }];
}

class Thread_Op<string mnemonic, list<Trait> traits = []>
    : Op<Thread_Dialect, mnemonic, traits>;

#endif // MIRAGE_THREAD_DIALECT_TD
