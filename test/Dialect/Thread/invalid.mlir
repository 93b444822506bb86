// RUN: mirage-opt %s -split-input-file -verify-diagnostics

// One case per thread-level rule: the thread_graph op that holds a thread
// graph, and the scalar operators in its body. Each thread graph sits in an
// otherwise valid custom kernel.

//===----------------------------------------------------------------------===//
// Scalar operators
//===----------------------------------------------------------------------===//

func.func @mul_scalar_without_scalar(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32):
      // expected-error @+1 {{'mirage_thread.unary' op 'mul_scalar' requires a scalar}}
      %q = mirage_thread.unary mul_scalar %p : f32
      mirage_thread.yield %q : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @exp_with_scalar(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32):
      // expected-error @+1 {{'mirage_thread.unary' op 'exp' takes no scalar}}
      %q = mirage_thread.unary exp %p scalar(3.0) : f32
      mirage_thread.yield %q : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @binary_mixed_types(%a: f32, %b: f16) {
  // expected-error @+1 {{'mirage_thread.binary' op requires the same type for all operands and results}}
  %c = "mirage_thread.binary"(%a, %b) <{kind = 0 : i32}> : (f32, f16) -> f32
  return
}

// -----

func.func @unary_on_tensor(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mirage_thread.unary' op operand #0 must be 16-bit float or bfloat16 type or 32-bit float or 64-bit float, but got 'tensor<4xf32>'}}
  %c = mirage_thread.unary exp %a : tensor<4xf32>
  return
}

// -----

func.func @unary_operand_count(%a: f32) {
  // expected-error @+1 {{'mirage_thread.unary' op requires a single operand}}
  %c = "mirage_thread.unary"(%a, %a) <{kind = 0 : i32}> : (f32, f32) -> f32
  return
}

//===----------------------------------------------------------------------===//
// mirage_block.thread_graph
//===----------------------------------------------------------------------===//

// -----

func.func @body_argument_type(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{body argument #0 must be the element type 'f32' of input #0}}
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f16):
      mirage_thread.yield %p : f16
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @body_argument_count(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{body has 2 arguments but the op has 1 inputs}}
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32, %q: f32):
      mirage_thread.yield %p : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @result_not_broadcast_shape(%x: tensor<8x64xf32>, %r: tensor<8x1xf32>) {
  %k = mirage_kernel.custom (%x, %r) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x1xf32> {
  ^bb0(%X: tensor<8x64xf32>, %R: tensor<8x1xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %v = mirage_block.input_iterator %R imap = [-1, -1, -1] fmap = -1 : tensor<8x1xf32> -> tensor<8x1xf32>
    // expected-error @+1 {{result #0 must have the broadcast shape of the inputs [8, 64]}}
    %u = mirage_block.thread_graph (%t, %v) : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x1xf32> {
    ^bb0(%p: f32, %q: f32):
      %d = mirage_thread.binary div %p, %q : f32
      mirage_thread.yield %d : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x1xf32> -> tensor<8x1xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x1xf32> -> tensor<8x1xf32>
    mirage_block.yield %s : tensor<8x1xf32>
  }
  return
}

// -----

func.func @inputs_do_not_broadcast(%x: tensor<8x64xf32>, %r: tensor<8x32xf32>) {
  %k = mirage_kernel.custom (%x, %r) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>, tensor<8x32xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>, %R: tensor<8x32xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %v = mirage_block.input_iterator %R imap = [-1, -1, -1] fmap = -1 : tensor<8x32xf32> -> tensor<8x32xf32>
    // expected-error @+1 {{inputs: shapes [8, 64] and [8, 32] do not broadcast}}
    %u = mirage_block.thread_graph (%t, %v) : (tensor<8x64xf32>, tensor<8x32xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32, %q: f32):
      %d = mirage_thread.binary add %p, %q : f32
      mirage_thread.yield %d : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @inputs_element_types(%x: tensor<8x64xf32>, %r: tensor<8x1xf16>) {
  %k = mirage_kernel.custom (%x, %r) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>, tensor<8x1xf16>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>, %R: tensor<8x1xf16>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %v = mirage_block.input_iterator %R imap = [-1, -1, -1] fmap = -1 : tensor<8x1xf16> -> tensor<8x1xf16>
    // expected-error @+1 {{input #1 must have the element type 'f32' of input #0}}
    %u = mirage_block.thread_graph (%t, %v) : (tensor<8x64xf32>, tensor<8x1xf16>) -> tensor<8x64xf32> {
    ^bb0(%p: f32, %q: f16):
      mirage_thread.yield %p : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @non_thread_op(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32):
      // expected-error @+1 {{'tensor.empty' op is not a thread-graph operator}}
      %n = tensor.empty() : tensor<8x64xf32>
      mirage_thread.yield %p : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @yield_count(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{yields 2 values for 1 results}}
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32):
      mirage_thread.yield %p, %p : f32, f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @result_element_type(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf16> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{result #0 must have the element type 'f32' of the inputs}}
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf16> {
    ^bb0(%p: f32):
      mirage_thread.yield %p : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf16> -> tensor<8x64xf16>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf16> -> tensor<8x64xf16>
    mirage_block.yield %s : tensor<8x64xf16>
  }
  return
}

// -----

func.func @no_inputs() {
  mirage_kernel.custom () grid = [1, 1, 1] forloop = 1 : () -> () {
    // expected-error @+1 {{must have at least one input}}
    %u = mirage_block.thread_graph () : () -> tensor<8x64xf32> {
      mirage_thread.yield
    }
    mirage_block.yield
  }
  return
}

// -----

func.func @no_results(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    // expected-error @+1 {{must have at least one result}}
    mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> () {
    ^bb0(%p: f32):
      mirage_thread.yield
    }
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @dynamic_input(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %c = tensor.cast %t : tensor<8x64xf32> to tensor<?x64xf32>
    // expected-error @+1 {{input #0 must be statically shaped}}
    %u = mirage_block.thread_graph (%c) : (tensor<?x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32):
      mirage_thread.yield %p : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @reads_device_tensor(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    // expected-error @+1 {{operand must be loaded through an input iterator, not read from device memory}}
    %u = mirage_block.thread_graph (%X) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32):
      mirage_thread.yield %p : f32
    }
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %a = mirage_block.accum sum %t : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}

// -----

func.func @body_use_before_definition(%x: tensor<8x64xf32>) {
  %k = mirage_kernel.custom (%x) grid = [1, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%X: tensor<8x64xf32>):
    %t = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<8x64xf32>
    %u = mirage_block.thread_graph (%t) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%p: f32):
      // expected-error @+1 {{operand #0 does not dominate this use}}
      %q = mirage_thread.unary exp %r : f32
      // expected-note @+1 {{operand defined here}}
      %r = mirage_thread.unary exp %p : f32
      mirage_thread.yield %q : f32
    }
    %a = mirage_block.accum sum %u : tensor<8x64xf32> -> tensor<8x64xf32>
    %s = mirage_block.output_saver %a omap = [-1, -1, -1] : tensor<8x64xf32> -> tensor<8x64xf32>
    mirage_block.yield %s : tensor<8x64xf32>
  }
  return
}
