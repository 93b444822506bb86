//===- Passes.td - Mirage passes ----------------------------*- tablegen -*-===//
#ifndef MIRAGE_TRANSFORMS_PASSES_TD
#define MIRAGE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MirageEvaluate : Pass<"mirage-evaluate", "::mlir::ModuleOp"> {
  let summary = "evaluate every kernel graph on seeded random inputs";
  let description = [{
    Runs each `mirage_kernel.graph` of the module through the float64
    reference evaluator (the executable semantics of kernel, block and thread
    graphs) on inputs drawn uniformly from [-1, 1) with a seeded generator, and
    reports each output's shape, sum and first elements as a remark on the
    graph. An operand defined by a dense floating-point constant
    (`arith.constant`, `tosa.const`) takes the constant's values instead of
    random ones; with `print-all` every output's values are printed too.
    Changes no IR.

    ```mlir
    // mirage-opt --mirage-evaluate="seed=7" x.mlir
    // remark: graph 'g' output #0 tensor<8x32xf32>: sum = 1.25, first = [...]
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "1", "seed of the input generator">,
    Option<"printCount", "print-count", "unsigned", "4",
           "how many leading elements of each output to print">,
    Option<"printAll", "print-all", "bool", "false",
           "also print all values of each output (one remark per output)">
  ];
}

def MirageCompare : Pass<"mirage-compare", "::mlir::ModuleOp"> {
  let summary = "compare each graph with its reference on random inputs";
  let description = [{
    For every `mirage_kernel.graph` that names a `reference` graph of the
    module, evaluates both in float64 on the same seeded random inputs
    (several trials) and compares their outputs in order. Reports the largest
    relative error as a remark, or an error on the graph when it exceeds
    `tolerance` or the signatures differ. Changes no IR.

    ```mlir
    %r = mirage_kernel.graph "ref" (...) ...
    %b = mirage_kernel.graph "best" reference "ref" (...) ...
    // mirage-opt --mirage-compare x.mlir
    // remark: graph 'best' matches reference 'ref': max relative error 3.1e-16
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "1", "seed of the input generator">,
    Option<"trials", "trials", "unsigned", "3", "independent random trials">,
    Option<"tolerance", "tolerance", "double", "1e-9",
           "largest accepted relative error (float64 evaluation)">
  ];
}

#endif // MIRAGE_TRANSFORMS_PASSES_TD
