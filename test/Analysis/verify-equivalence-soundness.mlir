// RUN: mirage-opt %s --mirage-verify-equivalence="seed=42" -split-input-file -verify-diagnostics
// RUN: not mirage-opt %s --mirage-verify-equivalence -split-input-file 2>&1 | FileCheck %s --check-prefix=RANDOM

// Issue 11, class 5: without `seed` the seed is drawn at random; every
// verdict names the seed it used, so a run can be reproduced with seed=N.
// RANDOM: remark: graph 'fine' is equivalent to reference 'ref': {{.*}} (seed {{[0-9]+}})

func.func @seed_is_reported(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary mul_scalar %a scalar(2.0) : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  // expected-remark @+1 {{graph 'fine' is equivalent to reference 'ref': 1 test, false-acceptance bound 2^-}}
  %o = mirage_kernel.graph "fine" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.binary add %a, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Issue 11, class 6: (x + 2^60) − 2^60 is x over the reals, so the field
// accepts it, but it is 0 in float64: an error, not a warning.
// RANDOM: error: graph 'cancels' is not equivalent to reference 'ref': accepted in the finite field, but the float64 outputs differ

func.func @float64_disagreement(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary mul_scalar %a scalar(1.0) : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'cancels' is not equivalent to reference 'ref': accepted in the finite field, but the float64 outputs differ by 1 (relative; tolerance 1e-06): an assumption of the field argument failed (seed 42)}}
  %o = mirage_kernel.graph "cancels" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary add_scalar %a scalar(1152921504606846976.0) : tensor<4x8xf32>
    %t = mirage_kernel.unary add_scalar %s scalar(-1152921504606846976.0) : tensor<4x8xf32>
    mirage_kernel.yield %t : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}
