// Issue 23: the lowering looked for a tile size by scanning every candidate
// divisor of an extent down from the limit, up to the extent itself: a prime
// extent near kMaxTensorElements (2^40) never finished. The divisor search
// takes √extent steps now, and such a graph is refused at once with the
// reason. `timeout` turns a hang into a failure (no error text to match).

// RUN: not timeout 60 mirage-opt %s --mirage-lower-kernels-to-loops --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: cannot lower graph 'prime': cannot expand binary into a block graph: its tiles need {{[0-9]+}} bytes of shared memory, more than {{[0-9]+}}

func.func @f(%x: tensor<1099511627689xf32>) -> tensor<1099511627689xf32> {
  %o = mirage_kernel.graph "prime" (%x) : (tensor<1099511627689xf32>) -> tensor<1099511627689xf32> {
  ^bb0(%a: tensor<1099511627689xf32>):
    %s = mirage_kernel.binary add %a, %a : tensor<1099511627689xf32>, tensor<1099511627689xf32> -> tensor<1099511627689xf32>
    mirage_kernel.yield %s : tensor<1099511627689xf32>
  }
  return %o : tensor<1099511627689xf32>
}
