// RUN: mirage-opt %s --mirage-verify-equivalence="seed=1" -split-input-file -verify-diagnostics

// Issue 23, item 2: the verifier compares a graph with its reference input by
// input, so both must read the same SSA values in the same order. Each case
// below is a mutant of the first one's binding with identical bodies; only
// the first (the program as written) may be accepted.

func.func @same_binding(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  // expected-remark @+1 {{graph 'cand' is equivalent to reference 'ref'}}
  %c = mirage_kernel.graph "cand" reference "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  return %c : tensor<4x8xf32>
}

// -----

// Swapped operands: the program computes y - x.
func.func @swapped(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'cand' reads %arg1 as operand #0 where its reference 'ref' reads %arg0: a graph must read the values its reference reads, in the same order}}
  %c = mirage_kernel.graph "cand" reference "ref" (%y, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  return %c : tensor<4x8xf32>
}

// -----

// Another value of the same type, defined inside the function.
func.func @other_value(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'cand' reads %0 as operand #1 where its reference 'ref' reads %arg1}}
  %c = mirage_kernel.graph "cand" reference "ref" (%x, %r) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  return %c : tensor<4x8xf32>
}

// -----

// One operand read twice: x - x.
func.func @repeated(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'cand' reads %arg0 as operand #1 where its reference 'ref' reads %arg1}}
  %c = mirage_kernel.graph "cand" reference "ref" (%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  return %c : tensor<4x8xf32>
}

// -----

// Fewer operands: the candidate ignores y.
func.func @fewer(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'cand' reads 1 value where its reference 'ref' reads 2 values}}
  %c = mirage_kernel.graph "cand" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    mirage_kernel.yield %a : tensor<4x8xf32>
  }
  return %c : tensor<4x8xf32>
}

// -----

// The same argument positions of another function are other values.
func.func @ref_here(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

func.func @cand_there(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{graph 'cand' and its reference 'ref' are in different functions: a graph must read the values its reference reads}}
  %c = mirage_kernel.graph "cand" reference "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %d : tensor<4x8xf32>
  }
  return %c : tensor<4x8xf32>
}

// -----

// The same square tensor read as it lies by one graph and transposed by the
// other (transposed_inputs, OperandLayouts.md): identical bodies, different
// programs (x - wᵀ against x - w).
func.func @layout(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    mirage_kernel.yield %d : tensor<8x8xf32>
  }
  // expected-error @+1 {{graph 'cand' reads operand #1 stored transposed where its reference 'ref' reads it as it is stored: a graph must read the values its reference reads, in the same order}}
  %c = mirage_kernel.graph "cand" reference "ref" (%x, %w) attributes {transposed_inputs = array<i64: 1>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>):
    %d = mirage_kernel.binary sub %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    mirage_kernel.yield %d : tensor<8x8xf32>
  }
  return %c : tensor<8x8xf32>
}
