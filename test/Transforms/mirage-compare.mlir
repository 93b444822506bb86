// RUN: mirage-opt %s -split-input-file --mirage-compare -verify-diagnostics -o /dev/null

// Split-K over the grid and the for-loop computes the same matmul.
func.func @splitk(%x: tensor<4x32xf32>, %w: tensor<32x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x32xf32>, %b: tensor<32x8xf32>):
    %m = mirage_kernel.matmul %a, %b : tensor<4x32xf32>, tensor<32x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %m : tensor<4x8xf32>
  }
  // expected-remark @+1 {{graph 'splitk' matches reference 'ref'}}
  %o = mirage_kernel.graph "splitk" reference "ref" (%x, %w) : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x32xf32>, %b: tensor<32x8xf32>):
    %p = mirage_kernel.custom (%a, %b) grid = [2, 2, 1] forloop = 4 : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<8x8xf32> {
    ^bb0(%X: tensor<4x32xf32>, %W: tensor<32x8xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, 1, -1] fmap = 1 : tensor<4x32xf32> -> tensor<4x4xf32>
      %wt = mirage_block.input_iterator %W imap = [1, 0, -1] fmap = 0 : tensor<32x8xf32> -> tensor<4x4xf32>
      %mm = mirage_block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
      %acc = mirage_block.accum sum %mm : tensor<4x4xf32> -> tensor<4x4xf32>
      %s = mirage_block.output_saver %acc omap = [1, 0, -1] : tensor<4x4xf32> -> tensor<8x8xf32>
      mirage_block.yield %s : tensor<8x8xf32>
    } 
    %k = mirage_kernel.reduce sum %p dim 0 to 4 : tensor<8x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %k : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Walking the wrong dim with the for-loop computes something else.
func.func @wrong_fmap(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x16xf32>, %b: tensor<16x16xf32>):
    %m = mirage_kernel.matmul %a, %b : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
    mirage_kernel.yield %m : tensor<4x16xf32>
  }
  // expected-error @+1 {{graph 'bad' differs from reference 'ref'}}
  %o = mirage_kernel.graph "bad" reference "ref" (%x, %w) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x16xf32>, %b: tensor<16x16xf32>):
    %p = mirage_kernel.custom (%a, %b) grid = [1, 1, 1] forloop = 2 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32> {
    ^bb0(%X: tensor<4x16xf32>, %W: tensor<16x16xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
      %wt = mirage_block.input_iterator %W imap = [-1, -1, -1] fmap = 1 : tensor<16x16xf32> -> tensor<16x8xf32>
      %wt2 = mirage_block.reduce sum %wt dim 0 to 8 : tensor<16x8xf32> -> tensor<8x8xf32>
      %mm = mirage_block.matmul %xt, %wt2 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
      %acc = mirage_block.accum sum %mm : tensor<4x8xf32> -> tensor<4x8xf32>
      %c = mirage_block.concat %acc, %acc dim 1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
      %s = mirage_block.output_saver %c omap = [-1, -1, -1] : tensor<4x16xf32> -> tensor<4x16xf32>
      mirage_block.yield %s : tensor<4x16xf32>
    }
    mirage_kernel.yield %p : tensor<4x16xf32>
  }
  return %r, %o : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

func.func @missing_reference(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{reference graph 'nowhere' not found}}
  %o = mirage_kernel.graph "g" reference "nowhere" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    mirage_kernel.yield %a : tensor<4xf32>
  }
  return %o : tensor<4xf32>
}

// -----

func.func @signature(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    mirage_kernel.yield %a : tensor<4xf32>
  }
  // expected-error @+1 {{signature differs from reference 'ref'}}
  %o:2 = mirage_kernel.graph "g" reference "ref" (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    mirage_kernel.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %r, %o#0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Issue 23: a graph compared with a reference that reads other values.
func.func @other_values(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    mirage_kernel.yield %a : tensor<4xf32>
  }
  // expected-error @+1 {{graph 'g' reads %arg1 as operand #0 where its reference 'ref' reads %arg0: a graph must read the values its reference reads, in the same order}}
  %o = mirage_kernel.graph "g" reference "ref" (%y) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    mirage_kernel.yield %a : tensor<4xf32>
  }
  return %r, %o : tensor<4xf32>, tensor<4xf32>
}

// -----

// Issue 11, class 7: NaN is never ignored. sqrt(-(x·x) - 1) is NaN for every
// input, where the reference is finite; this used to "match, error 0".
func.func @nan_everywhere(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary square %a : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'nan' differs from reference 'ref': non-finite values (NaN or inf) where the reference differs}}
  %o = mirage_kernel.graph "nan" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary square %a : tensor<4x8xf32>
    %n = mirage_kernel.unary mul_scalar %s scalar(-1.0) : tensor<4x8xf32>
    %m = mirage_kernel.unary add_scalar %n scalar(-1.0) : tensor<4x8xf32>
    %q = mirage_kernel.unary sqrt %m : tensor<4x8xf32>
    mirage_kernel.yield %q : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}
