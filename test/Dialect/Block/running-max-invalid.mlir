// RUN: mirage-opt %s -split-input-file -verify-diagnostics

// running_max's own rules (dim, result shapes, placement) and the phase rule
// the block graph's import checks (an in-loop operand only).

func.func @dim_out_of_range(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 4 : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<8x16xf32>
    // expected-error @+1 {{dim 2 out of range for rank 2}}
    %p, %c = mirage_block.running_max %t dim 2 : tensor<8x16xf32> -> tensor<8x1xf32>
    %a = mirage_block.accum max %c : tensor<8x1xf32> -> tensor<8x1xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}

// -----

func.func @wrong_result_shape(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 4 : (tensor<8x64xf32>) -> tensor<1x16xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<8x16xf32>
    // expected-error @+1 {{results must have the operand's shape with dim 1 reduced to 1, [8, 1], not 'tensor<1x16xf32>'}}
    %p, %c = mirage_block.running_max %t dim 1 : tensor<8x16xf32> -> tensor<1x16xf32>
    %a = mirage_block.accum max %c : tensor<1x16xf32> -> tensor<1x16xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<1x16xf32> -> tensor<1x16xf32>
    mirage_block.yield %s : tensor<1x16xf32>
  }
  return
}

// -----

func.func @outside_a_block_graph(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{must be nested directly in a 'mirage_kernel.custom' body}}
  %p, %c = mirage_block.running_max %x dim 1 : tensor<8x16xf32> -> tensor<8x1xf32>
  return
}

// -----

func.func @reads_device_tensor(%x: tensor<8x16xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x16xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x16xf32>):
    // expected-error @+1 {{running_max operand must be an in-loop value, not a device tensor}}
    %p, %c = mirage_block.running_max %X dim 1 : tensor<8x16xf32> -> tensor<8x1xf32>
    %a = mirage_block.accum max %c : tensor<8x1xf32> -> tensor<8x1xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}

// -----

func.func @after_the_loop(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 4 : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<8x16xf32>
    %a = mirage_block.accum sum %t : tensor<8x16xf32> -> tensor<8x16xf32>
    // expected-error @+1 {{running_max operand must be an in-loop value, not an after-loop value}}
    %p, %c = mirage_block.running_max %a dim 1 : tensor<8x16xf32> -> tensor<8x1xf32>
    %s = mirage_block.output_saver %c omap = [-1, -1, -1] : tensor<8x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}

// -----

func.func @results_of_two_types(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 4 : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<8x16xf32>
    // expected-error @+1 {{all of {prev, cur} have same type}}
    %p, %c = "mirage_block.running_max"(%t) <{dim = 1 : i64}> : (tensor<8x16xf32>) -> (tensor<8x1xf32>, tensor<8x1xf16>)
    %a = mirage_block.accum max %p : tensor<8x1xf32> -> tensor<8x1xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}
