// RUN: mirage-opt %s -split-input-file -verify-diagnostics

// One case per block-graph rule. Each starts from the same valid kernel
// (8x64 input, grid [2, 1, 1], one iteration) and breaks one thing.

//===----------------------------------------------------------------------===//
// Input iterators: tile shapes, imap, fmap
//===----------------------------------------------------------------------===//

func.func @tile_ignores_imap(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{result shape [8, 64] does not match the shape [4, 64] implied by the grid, for-loop range, imap and fmap}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<8x64xf32> -> tensor<16x64xf32>
    mirage_block.yield %s : tensor<16x64xf32>
  }
  return
}

// -----

func.func @tile_ignores_fmap(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 4 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{result shape [4, 64] does not match the shape [4, 16] implied by the grid, for-loop range, imap and fmap}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @tile_ignores_grid(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 4, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{result shape [4, 64] does not match the shape [4, 16] implied by the grid, for-loop range, imap and fmap}}
    %t = mirage_block.input_iterator %X imap = [0, 1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, 1, -1] : tensor<4x64xf32> -> tensor<8x256xf32>
    mirage_block.yield %s : tensor<8x256xf32>
  }
  return
}

// -----

func.func @tile_element_type(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf16> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{result element type 'f16' does not match the operand element type 'f32'}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf16>
    %a = mirage_block.accum sum %t : tensor<4x64xf16> -> tensor<4x64xf16>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf16> -> tensor<8x64xf16>
    mirage_block.yield %s : tensor<8x64xf16>
  }
  return
}

// -----

func.func @tile_rank(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{tile rank must equal the input rank}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<1x4x64xf32>
    %a = mirage_block.accum sum %t : tensor<1x4x64xf32> -> tensor<1x4x64xf32>
    %s = mirage_block.output_saver %a omap = [1, -1, -1] : tensor<1x4x64xf32> -> tensor<1x8x64xf32>
    mirage_block.yield %s : tensor<1x8x64xf32>
  }
  return
}

// -----

func.func @imap_grid_does_not_divide(%x: tensor<6x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [4, 1, 1] forloop = 1 : (tensor<6x64xf32>) -> tensor<6x64xf32> {
  ^bb0(%X: tensor<6x64xf32>):
    // expected-error @+1 {{imap: grid axis x of extent 4 does not divide dim 0 of extent 6}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<6x64xf32> -> tensor<1x64xf32>
    %a = mirage_block.accum sum %t : tensor<1x64xf32> -> tensor<1x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<1x64xf32> -> tensor<4x64xf32>
    mirage_block.yield %s : tensor<4x64xf32>
  }
  return
}

// -----

func.func @fmap_range_does_not_divide(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 3 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{fmap: for-loop range 3 does not divide dim 1 of per-block extent 64}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<4x21xf32>
    %a = mirage_block.accum sum %t : tensor<4x21xf32> -> tensor<4x21xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x21xf32> -> tensor<8x21xf32>
    mirage_block.yield %s : tensor<8x21xf32>
  }
  return
}

// -----

func.func @fmap_divides_total_not_per_block(%x: tensor<8x64xf32>) {
  // Grid x splits dim 1 into 32 columns per block; a range of 64 does not
  // divide that even though it divides the full extent.
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 64 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{fmap: for-loop range 64 does not divide dim 1 of per-block extent 32}}
    %t = mirage_block.input_iterator %X imap = [1, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<8x1xf32>
    %a = mirage_block.accum sum %t : tensor<8x1xf32> -> tensor<8x1xf32>
    %s = mirage_block.output_saver %a omap = [1, -1, -1] : tensor<8x1xf32> -> tensor<8x2xf32>
    mirage_block.yield %s : tensor<8x2xf32>
  }
  return
}

// -----

func.func @imap_out_of_range(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{imap maps grid axis x to dim 2, out of range for rank 2}}
    %t = mirage_block.input_iterator %X imap = [2, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @imap_below_minus_one(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{imap maps grid axis z to dim -2, out of range for rank 2}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -2] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @imap_axes_share_a_dim(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 2, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{imap maps grid axes x and y to the same dim 0}}
    %t = mirage_block.input_iterator %X imap = [0, 0, -1] fmap = -1 : tensor<8x64xf32> -> tensor<2x64xf32>
    %a = mirage_block.accum sum %t : tensor<2x64xf32> -> tensor<2x64xf32>
    %s = mirage_block.output_saver %a omap = [0, 1, -1] : tensor<2x64xf32> -> tensor<4x128xf32>
    mirage_block.yield %s : tensor<4x128xf32>
  }
  return
}

// -----

func.func @imap_size(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{imap must have one entry per grid axis (3), got 2}}
    %t = mirage_block.input_iterator %X imap = [0, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @fmap_out_of_range(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{fmap dim 2 out of range for rank 2}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = 2 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @iterator_of_a_tile(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{operand must be an input of the enclosing custom kernel}}
    %u = mirage_block.input_iterator %t imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %u : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Phases: device tensor -> iterator -> in-loop -> accum -> after-loop -> saver
//===----------------------------------------------------------------------===//

// -----

func.func @op_reads_device_tensor(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{operand must be loaded through an input iterator, not read from device memory}}
    %e = mirage_block.unary exp %X : tensor<8x64xf32>
    %a = mirage_block.accum sum %e : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @accum_reads_device_tensor(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{operand must be an in-loop value, not a device tensor}}
    %a = mirage_block.accum sum %X : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @two_accumulators_on_a_path(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{operand must be an in-loop value, not an after-loop value; every path crosses exactly one accumulator}}
    %b = mirage_block.accum sum %a : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %b omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @rescale_after_loop(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %m = mirage_block.accum max %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{operand must be an in-loop value, not an after-loop value}}
    %a = mirage_block.accum sum %t rescale %m : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @saver_of_in_loop_value(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{operand must be an after-loop value, not an in-loop value: every path to an output crosses an accumulator}}
    %s = mirage_block.output_saver %t omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @op_mixes_phases(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{mixes an after-loop value with an in-loop value; in-loop values reach after-loop code only through an accumulator}}
    %b = mirage_block.binary add %a, %t : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %b omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @thread_graph_mixes_phases(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{mixes an in-loop value with an after-loop value}}
    %b = mirage_block.thread_graph (%t, %a) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32> {
    ^bb0(%p: f32, %q: f32):
      %r = mirage_thread.binary mul %p, %q : f32
      mirage_thread.yield %r : f32
    }
    %s = mirage_block.output_saver %b omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @saver_result_used_by_op(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{operand is a saved output, which only the block graph's outputs may use}}
    %e = mirage_block.unary exp %s : tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @use_before_definition(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{operand #0 is used before it is defined}}
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Outputs: savers, omap, yield
//===----------------------------------------------------------------------===//

// -----

func.func @yield_of_non_saver(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{block graph output must be an output_saver result, not an after-loop value}}
    mirage_block.yield %a : tensor<4x64xf32>
  }
  return
}

// -----

func.func @yield_of_device_tensor(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{block graph output must be an output_saver result, not a device tensor}}
    mirage_block.yield %X : tensor<8x64xf32>
  }
  return
}

// -----

func.func @saver_not_yielded(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{result must be yielded by the block graph's 'mirage_block.yield'}}
    %s2 = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @saver_yielded_twice(%x: tensor<8x64xf32>) {
  %k:2 = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{block graph outputs the same saver twice}}
    mirage_block.yield %s, %s : tensor<8x64xf32>, tensor<8x64xf32>
  }
  return
}

// -----

func.func @omap_overlapping_writes(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{omap replicates grid axis x of extent 2: blocks would write overlapping regions}}
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<4x64xf32> -> tensor<4x64xf32>
    mirage_block.yield %s : tensor<4x64xf32>
  }
  return
}

// -----

func.func @omap_out_of_range(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{omap maps grid axis x to dim 3, out of range for rank 2}}
    %s = mirage_block.output_saver %a omap = [3, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @omap_axes_share_a_dim(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 2, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, 1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x32xf32>
    %a = mirage_block.accum sum %t : tensor<4x32xf32> -> tensor<4x32xf32>
    // expected-error @+1 {{omap maps grid axes x and y to the same dim 1}}
    %s = mirage_block.output_saver %a omap = [1, 1, -1] : tensor<4x32xf32> -> tensor<4x128xf32>
    mirage_block.yield %s : tensor<4x128xf32>
  }
  return
}

// -----

func.func @omap_size(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{omap must have one entry per grid axis (3), got 4}}
    %s = mirage_block.output_saver %a omap = [0, -1, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @output_shape_mismatch(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<4x128xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{result shape [4, 128] does not match the shape [8, 64] implied by the grid and omap}}
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<4x128xf32>
    mirage_block.yield %s : tensor<4x128xf32>
  }
  return
}

// -----

func.func @output_element_type(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf16> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{result element type 'f16' does not match the operand element type 'f32'}}
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf16>
    mirage_block.yield %s : tensor<8x64xf16>
  }
  return
}

// -----

func.func @yield_count(%x: tensor<8x64xf32>) {
  %k:2 = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %a = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{yields 1 values for 2 kernel results}}
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @yield_type(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x32xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{operand #0 must have the type of kernel result #0}}
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Launch configuration and limits
//===----------------------------------------------------------------------===//

// -----

func.func @rank_above_four(%x: tensor<1x2x2x2x8xf32>) {
  // expected-error @+1 {{input #0: tensor rank 5 exceeds the maximum rank 4}}
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<1x2x2x2x8xf32>) -> tensor<1x2x2x2x8xf32> {
  ^bb0(%X: tensor<1x2x2x2x8xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<1x2x2x2x8xf32> -> tensor<1x2x2x2x8xf32>
    %a = mirage_block.accum sum %t : tensor<1x2x2x2x8xf32> -> tensor<1x2x2x2x8xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<1x2x2x2x8xf32> -> tensor<1x2x2x2x8xf32>
    mirage_block.yield %s : tensor<1x2x2x2x8xf32>
  }
  return
}

// -----

func.func @too_many_blocks(%x: tensor<1024x1024x2xf32>) {
  // expected-error @+1 {{grid [1024, 1024, 2] has more than the maximum 1048576 blocks}}
  %k = mirage_kernel.custom (%x) grid = [1024, 1024, 2] forloop = 1 : (tensor<1024x1024x2xf32>) -> tensor<1024x1024x2xf32> {
  ^bb0(%X: tensor<1024x1024x2xf32>):
    %t = mirage_block.input_iterator %X imap = [0, 1, 2] fmap = -1 : tensor<1024x1024x2xf32> -> tensor<1x1x1xf32>
    %a = mirage_block.accum sum %t : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %s = mirage_block.output_saver %a omap = [0, 1, 2] : tensor<1x1x1xf32> -> tensor<1024x1024x2xf32>
    mirage_block.yield %s : tensor<1024x1024x2xf32>
  }
  return
}

// -----

// CUDA launches at most 65535 blocks along y and z; the rule holds every
// axis to it (docs/Rationale/GridLimits.md).
func.func @axis_too_long(%x: tensor<65536x2xf32>) {
  // expected-error @+1 {{grid [65536, 1, 1] has an axis of more than 65535 blocks}}
  %k = mirage_kernel.custom (%x) grid = [65536, 1, 1] forloop = 1 : (tensor<65536x2xf32>) -> tensor<65536x2xf32> {
  ^bb0(%X: tensor<65536x2xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<65536x2xf32> -> tensor<1x2xf32>
    %a = mirage_block.accum sum %t : tensor<1x2xf32> -> tensor<1x2xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<1x2xf32> -> tensor<65536x2xf32>
    mirage_block.yield %s : tensor<65536x2xf32>
  }
  return
}

// -----

func.func @block_count_overflow(%x: tensor<8x64xf32>) {
  // 2^32 × 2^32 wraps to 0 in 64-bit arithmetic; it must still be rejected.
  // expected-error @+1 {{grid [4294967296, 4294967296, 1] has an axis of more than 65535 blocks}}
  %k = mirage_kernel.custom (%x) grid = [4294967296, 4294967296, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @grid_not_positive(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{grid dims must be positive, got [0, 1, 1]}}
  %k = mirage_kernel.custom (%x) grid = [0, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @forloop_not_positive(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{for-loop range must be positive, got -1}}
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = -1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @grid_size(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{grid must have three dims (x, y, z), got 2}}
  %k = mirage_kernel.custom (%x) grid = [1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @shared_memory_h100(%x: tensor<32x1024xf32>) {
  // Two 32x1024 f32 tiles (iterator and accumulator): 256 KiB > 227 KiB.
  // expected-error @+1 {{block graph needs 262144 bytes of shared memory, more than the 232448 bytes of target 'h100'}}
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<32x1024xf32>) -> tensor<32x1024xf32> {
  ^bb0(%X: tensor<32x1024xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<32x1024xf32> -> tensor<32x1024xf32>
    %a = mirage_block.accum sum %t : tensor<32x1024xf32> -> tensor<32x1024xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<32x1024xf32> -> tensor<32x1024xf32>
    mirage_block.yield %s : tensor<32x1024xf32>
  }
  return
}

// -----

func.func @shared_memory_a100(%x: tensor<24x1024xf32>) {
  // 192 KiB fits an h100 block (first kernel) but not an a100 block (163 KiB).
  %ok = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<24x1024xf32>) -> tensor<24x1024xf32> {
  ^bb0(%X: tensor<24x1024xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<24x1024xf32> -> tensor<24x1024xf32>
    %a = mirage_block.accum sum %t : tensor<24x1024xf32> -> tensor<24x1024xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<24x1024xf32> -> tensor<24x1024xf32>
    mirage_block.yield %s : tensor<24x1024xf32>
  }
  // expected-error @+1 {{block graph needs 196608 bytes of shared memory, more than the 166912 bytes of target 'a100'}}
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 attributes {target = "a100"} : (tensor<24x1024xf32>) -> tensor<24x1024xf32> {
  ^bb0(%X: tensor<24x1024xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<24x1024xf32> -> tensor<24x1024xf32>
    %a = mirage_block.accum sum %t : tensor<24x1024xf32> -> tensor<24x1024xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<24x1024xf32> -> tensor<24x1024xf32>
    mirage_block.yield %s : tensor<24x1024xf32>
  }
  return
}

// -----

func.func @unknown_target(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{unknown target 'v100'}}
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 attributes {target = "v100"} : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @empty_dim(%x: tensor<8x0xf32>) {
  // expected-error @+1 {{input #0: tensor dims must be static and positive, got [8, 0]}}
  mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x0xf32>) -> () {
  ^bb0(%X: tensor<8x0xf32>):
    mirage_block.yield
  }
  return
}

//===----------------------------------------------------------------------===//
// Structure of a custom kernel's body
//===----------------------------------------------------------------------===//

// -----

func.func @kernel_op_in_block_graph(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{'mirage_kernel.unary' op is not a block-graph operator}}
    %e = mirage_kernel.unary exp %X : tensor<8x64xf32>
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @thread_op_in_block_graph(%x: tensor<8x64xf32>, %f: f32) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{'mirage_thread.yield' op is not a block-graph operator}}
    mirage_thread.yield
  }
  return
}

// -----

func.func @body_argument_count(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{body has 2 arguments but the op has 1 inputs}}
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>, %Y: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @body_argument_type(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{body argument #0 must have the type of input #0}}
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<64x8xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<64x8xf32> -> tensor<64x8xf32>
    %a = mirage_block.accum sum %t : tensor<64x8xf32> -> tensor<64x8xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<64x8xf32> -> tensor<64x8xf32>
    mirage_block.yield %s : tensor<64x8xf32>
  }
  return
}

// -----

func.func @dynamic_input(%x: tensor<?x64xf32>) {
  // expected-error @+1 {{input #0: tensor dims must be static and positive, got [?, 64]}}
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<?x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<?x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<?x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @dynamic_tile(%x: tensor<8x64xf32>) {
  mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> () {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{result shape [?, 64] does not match the shape [4, 64] implied by the grid, for-loop range, imap and fmap}}
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<?x64xf32>
    mirage_block.yield
  }
  return
}

// -----

func.func @dynamic_operand(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %c = tensor.cast %t : tensor<4x64xf32> to tensor<?x64xf32>
    // expected-error @+2 {{operand must be a statically shaped tensor}}
    // expected-error @+1 {{failed to infer returned types}}
    %a = mirage_block.accum sum %c : tensor<?x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Accumulators
//===----------------------------------------------------------------------===//

// -----

func.func @accum_sum_with_size(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+2 {{accumulator 'sum' does not reduce, so it takes no size}}
    // expected-error @+1 {{failed to infer returned types}}
    %a = mirage_block.accum sum %t to 4 : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @accum_max_with_size(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+2 {{accumulator 'max' does not reduce, so it takes no size}}
    // expected-error @+1 {{failed to infer returned types}}
    %a = mirage_block.accum max %t to 1 : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @accum_size_not_positive(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{size must be positive, got 0}}
    %a = mirage_block.accum sum %t to 0 : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @accum_eps_on_mean_last(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{eps is only valid for the rms_last kind, not mean_last}}
    %a = mirage_block.accum mean_last %t eps(1.0e-05) : tensor<4x64xf32> -> tensor<4x1xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}

// -----

func.func @accum_eps_on_sum(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+1 {{eps is only valid for the rms_last kind, not sum}}
    %a = mirage_block.accum sum %t eps(2.0) : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @accum_size_does_not_divide(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+2 {{accumulator: reduction size 24 does not divide extent 64}}
    // expected-error @+1 {{failed to infer returned types}}
    %a = mirage_block.accum sum_last %t to 24 : tensor<4x64xf32> -> tensor<4x24xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x24xf32> -> tensor<8x24xf32>
    mirage_block.yield %s : tensor<8x24xf32>
  }
  return
}

// -----

func.func @accum_result_shape(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+2 {{'mirage_block.accum' op inferred type(s) 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4x64xf32>'}}
    // expected-error @+1 {{failed to infer returned types}}
    %a = mirage_block.accum mean_last %t : tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @rescale_on_max(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+2 {{only 'sum' and 'sum_last' accumulators take a rescale operand}}
    // expected-error @+1 {{failed to infer returned types}}
    %a = mirage_block.accum max %t rescale %t : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @rescale_on_mean_last(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %r = mirage_block.reduce max %t dim 1 : tensor<4x64xf32> -> tensor<4x1xf32>
    // expected-error @+2 {{only 'sum' and 'sum_last' accumulators take a rescale operand}}
    // expected-error @+1 {{failed to infer returned types}}
    %a = mirage_block.accum mean_last %t rescale %r : tensor<4x64xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}

// -----

func.func @rescale_does_not_broadcast(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    // expected-error @+2 {{rescale operand [4, 64] must broadcast to the accumulator shape [4, 1]}}
    // expected-error @+1 {{failed to infer returned types}}
    %a = mirage_block.accum sum_last %t rescale %t : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x1xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}

// -----

func.func @rescale_element_type(%x: tensor<8x64xf32>, %y: tensor<8x1xf16>) {
  %k = mirage_kernel.custom (%x, %y) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>, tensor<8x1xf16>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>, %Y: tensor<8x1xf16>):
    %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
    %r = mirage_block.input_iterator %Y imap = [0, -1, -1] fmap = -1 : tensor<8x1xf16> -> tensor<4x1xf16>
    // expected-error @+1 {{rescale must have the element type 'f32' of the operand}}
    %a = mirage_block.accum sum %t rescale %r : tensor<4x64xf32>, tensor<4x1xf16> -> tensor<4x64xf32>
    %s = mirage_block.output_saver %a omap = [0, -1, -1] : tensor<4x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Block operators: the shared shape rules at the block level
//===----------------------------------------------------------------------===//

// -----

func.func @block_matmul_contraction(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x8xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+2 {{matmul contraction dims differ: 64 vs 8}}
    // expected-error @+1 {{failed to infer returned types}}
    %m = mirage_block.matmul %t, %t : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x8xf32>
    %a = mirage_block.accum sum %m : tensor<8x8xf32> -> tensor<8x8xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x8xf32> -> tensor<8x8xf32>
    mirage_block.yield %s : tensor<8x8xf32>
  }
  return
}

// -----

func.func @block_unary_scalar_missing(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{'mirage_block.unary' op 'mul_scalar' requires a scalar}}
    %u = mirage_block.unary mul_scalar %t : tensor<8x64xf32>
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @block_unary_scalar_given(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{'mirage_block.unary' op 'exp' takes no scalar}}
    %u = mirage_block.unary exp %t scalar(2.0) : tensor<8x64xf32>
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @block_reduce_dim(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+2 {{reduction dim 2 out of range for rank 2}}
    // expected-error @+1 {{failed to infer returned types}}
    %r = mirage_block.reduce sum %t dim 2 : tensor<8x64xf32> -> tensor<8x1xf32>
    %a = mirage_block.accum sum %r : tensor<8x1xf32> -> tensor<8x1xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}

// -----

func.func @block_rms_norm_weight_type(%x: tensor<8x64xf32>, %g: tensor<1x64xf16>) {
  %k = mirage_kernel.custom (%x, %g) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>, tensor<1x64xf16>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>, %G: tensor<1x64xf16>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %w = mirage_block.input_iterator %G imap = [-1, -1, -1] fmap = -1 : tensor<1x64xf16> -> tensor<1x64xf16>
    // expected-error @+1 {{'mirage_block.rms_norm' op weight must have the element type 'f32' of the operand}}
    %n = mirage_block.rms_norm %t weight %w : tensor<8x64xf32>, tensor<1x64xf16> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %n : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Block-graph-only ops outside a custom kernel's body
//===----------------------------------------------------------------------===//

// -----

func.func @iterator_outside_custom(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_block.input_iterator' op must be nested directly in a 'mirage_kernel.custom' body}}
  %t = mirage_block.input_iterator %x imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @accum_outside_custom(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_block.accum' op must be nested directly in a 'mirage_kernel.custom' body}}
  %a = mirage_block.accum sum %x : tensor<8x64xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @saver_outside_custom(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_block.output_saver' op must be nested directly in a 'mirage_kernel.custom' body}}
  %s = mirage_block.output_saver %x omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @yield_outside_custom(%x: tensor<8x64xf32>) {
  %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    // expected-error @+1 {{'mirage_block.yield' op must be nested directly in a 'mirage_kernel.custom' body}}
    mirage_block.yield %a : tensor<8x64xf32>
  }
  return
}

// -----

func.func @yield_inside_thread_graph(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32):
      // expected-error @+1 {{'mirage_block.yield' op must be nested directly in a 'mirage_kernel.custom' body}}
      mirage_block.yield
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}
