//===- ThreadOps.td - Thread-level μGraph operators --------*- tablegen -*-===//
#ifndef MIRAGE_THREAD_OPS_TD
#define MIRAGE_THREAD_OPS_TD

include "Mirage/Dialect/Thread/IR/ThreadDialect.td"
include "Mirage/Dialect/Common/MirageOpBases.td"

def Thread_UnaryOp : Thread_Op<"unary", [Pure, SameOperandsAndResultType]> {
  let summary = "scalar element-wise unary operator";
  let description = [{
    The scalar form of `mirage_kernel.unary` (same kinds and scalars).

    ```mlir
    %e = mirage_thread.unary exp %x : f32
    ```
  }];
  let arguments = (ins Mirage_UnaryKind:$kind, Mirage_FloatType:$input,
                       OptionalAttr<F64Attr>:$scalar);
  let results = (outs Mirage_FloatType:$result);
  let assemblyFormat = [{
    $kind $input (`scalar` `(` $scalar^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Thread_BinaryOp : Thread_Op<"binary", [Pure, SameOperandsAndResultType]> {
  let summary = "scalar element-wise binary operator";
  let description = [{
    The scalar form of `mirage_kernel.binary`.

    ```mlir
    %p = mirage_thread.binary mul %x, %y : f32
    ```
  }];
  let arguments = (ins Mirage_BinaryKind:$kind, Mirage_FloatType:$lhs,
                       Mirage_FloatType:$rhs);
  let results = (outs Mirage_FloatType:$result);
  let assemblyFormat = "$kind $lhs `,` $rhs attr-dict `:` type($result)";
}

def Thread_YieldOp : Thread_Op<"yield", [Pure, Terminator]> {
  let summary = "the per-element results of a thread graph";
  let description = [{
    Terminates a `mirage_block.thread_graph`; one scalar per result.

    ```mlir
    mirage_thread.yield %e : f32
    ```
  }];
  let arguments = (ins Variadic<Mirage_FloatType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // MIRAGE_THREAD_OPS_TD
