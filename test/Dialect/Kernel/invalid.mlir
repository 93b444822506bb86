// RUN: mirage-opt %s -split-input-file -verify-diagnostics

// One case per kernel-graph rule. The shape rules of the pre-defined kernels
// report through type inference: the rule's message, then the generic
// "failed to infer returned types".

//===----------------------------------------------------------------------===//
// mirage_kernel.graph
//===----------------------------------------------------------------------===//

func.func @non_kernel_op(%x: tensor<8x64xf32>) {
  %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    // expected-error @+1 {{'mirage_block.unary' op is not a kernel-graph operator}}
    %e = mirage_block.unary exp %a : tensor<8x64xf32>
    mirage_kernel.yield %e : tensor<8x64xf32>
  }
  return
}

// -----

func.func @nested_graph(%x: tensor<8x64xf32>) {
  %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    // expected-error @+1 {{'mirage_kernel.graph' op is not a kernel-graph operator}}
    %i = mirage_kernel.graph (%a) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%b: tensor<8x64xf32>):
      mirage_kernel.yield %b : tensor<8x64xf32>
    }
    mirage_kernel.yield %i : tensor<8x64xf32>
  }
  return
}

// -----

func.func @yield_count(%x: tensor<8x64xf32>) {
  %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    // expected-error @+1 {{yields 2 values for 1 graph results}}
    mirage_kernel.yield %a, %a : tensor<8x64xf32>, tensor<8x64xf32>
  }
  return
}

// -----

func.func @yield_type(%x: tensor<8x64xf32>) {
  %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x1xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    // expected-error @+1 {{operand #0 must have the type of graph result #0}}
    mirage_kernel.yield %a : tensor<8x64xf32>
  }
  return
}

// -----

func.func @body_argument_count(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{body has 2 arguments but the graph has 1 inputs}}
  %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>):
    mirage_kernel.yield %a : tensor<8x64xf32>
  }
  return
}

// -----

// An input stored transposed: its body argument is its transpose.
func.func @transposed_input_type(%w: tensor<32x64xf16>) {
  // expected-error @+1 {{body argument #0 must have the type of transposed input #0 with its last two dims swapped}}
  %o = mirage_kernel.graph (%w) attributes {transposed_inputs = array<i64: 0>} : (tensor<32x64xf16>) -> tensor<32x64xf16> {
  ^bb0(%a: tensor<32x64xf16>):
    mirage_kernel.yield %a : tensor<32x64xf16>
  }
  return
}

// -----

func.func @transposed_input_missing(%w: tensor<32x64xf16>) {
  // expected-error @+1 {{transposed input #1 does not exist}}
  %o = mirage_kernel.graph (%w) attributes {transposed_inputs = array<i64: 1>} : (tensor<32x64xf16>) -> tensor<32x64xf16> {
  ^bb0(%a: tensor<32x64xf16>):
    mirage_kernel.yield %a : tensor<32x64xf16>
  }
  return
}

// -----

func.func @transposed_inputs_order(%w: tensor<32x64xf16>, %v: tensor<32x64xf16>) {
  // expected-error @+1 {{transposed inputs must be listed in increasing order, once each}}
  %o = mirage_kernel.graph (%w, %v) attributes {transposed_inputs = array<i64: 1, 0>} : (tensor<32x64xf16>, tensor<32x64xf16>) -> tensor<64x32xf16> {
  ^bb0(%a: tensor<64x32xf16>, %b: tensor<64x32xf16>):
    mirage_kernel.yield %a : tensor<64x32xf16>
  }
  return
}

// -----

func.func @transposed_input_rank(%g: tensor<64xf16>) {
  // expected-error @+1 {{transposed input #0 must have at least two dims}}
  %o = mirage_kernel.graph (%g) attributes {transposed_inputs = array<i64: 0>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    mirage_kernel.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @body_argument_type(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{body argument #0 must have the type of input #0}}
  %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x64xf16> {
  ^bb0(%a: tensor<8x64xf16>):
    mirage_kernel.yield %a : tensor<8x64xf16>
  }
  return
}

// -----

func.func @yield_outside_graph(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.yield' op expects parent op 'mirage_kernel.graph'}}
  mirage_kernel.yield %x : tensor<8x64xf32>
}

// -----

func.func @rank_above_four(%x: tensor<1x2x2x2x8xf32>) {
  // expected-error @+1 {{tensor rank 5 exceeds the maximum rank 4}}
  %o = mirage_kernel.graph (%x) : (tensor<1x2x2x2x8xf32>) -> tensor<1x2x2x2x8xf32> {
  ^bb0(%a: tensor<1x2x2x2x8xf32>):
    %e = mirage_kernel.unary exp %a : tensor<1x2x2x2x8xf32>
    mirage_kernel.yield %e : tensor<1x2x2x2x8xf32>
  }
  return
}

// -----

// Issue 23: a tensor of 2^63 - 1 rows verified, then aborted the evaluators
// (std::length_error) and hung the lowering.
func.func @rows_2_63(%x: tensor<9223372036854775807x4xf32>) {
  // expected-error @+1 {{tensor [9223372036854775807, 4] has more than 2^40 elements, the limit}}
  %o = mirage_kernel.graph (%x) : (tensor<9223372036854775807x4xf32>) -> tensor<9223372036854775807x4xf32> {
  ^bb0(%a: tensor<9223372036854775807x4xf32>):
    %e = mirage_kernel.unary exp %a : tensor<9223372036854775807x4xf32>
    mirage_kernel.yield %e : tensor<9223372036854775807x4xf32>
  }
  return
}

// -----

func.func @dynamic_input(%x: tensor<?x64xf32>) {
  // expected-error @+1 {{tensors must be statically shaped}}
  %o = mirage_kernel.graph (%x) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a: tensor<?x64xf32>):
    %e = mirage_kernel.unary exp %a : tensor<?x64xf32>
    mirage_kernel.yield %e : tensor<?x64xf32>
  }
  return
}

// -----

func.func @dynamic_operand(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>) {
  // expected-error @+2 {{operands must be statically shaped tensors}}
  // expected-error @+1 {{failed to infer returned types}}
  %m = mirage_kernel.matmul %x, %w : tensor<?x64xf32>, tensor<64x32xf32> -> tensor<?x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

// -----

func.func @mul_scalar_without_scalar(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.unary' op 'mul_scalar' requires a scalar}}
  %u = mirage_kernel.unary mul_scalar %x : tensor<8x64xf32>
  return
}

// -----

func.func @add_scalar_without_scalar(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.unary' op 'add_scalar' requires a scalar}}
  %u = mirage_kernel.unary add_scalar %x : tensor<8x64xf32>
  return
}

// -----

func.func @exp_with_scalar(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.unary' op 'exp' takes no scalar}}
  %u = mirage_kernel.unary exp %x scalar(1.0) : tensor<8x64xf32>
  return
}

// -----

func.func @unary_result_type(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.unary' op requires the same type for all operands and results}}
  %u = "mirage_kernel.unary"(%x) <{kind = 0 : i32}> : (tensor<8x64xf32>) -> tensor<8x64xf16>
  return
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_contraction(%a: tensor<8x64xf32>, %b: tensor<32x16xf32>) {
  // expected-error @+2 {{matmul contraction dims differ: 64 vs 32}}
  // expected-error @+1 {{failed to infer returned types}}
  %m = mirage_kernel.matmul %a, %b : tensor<8x64xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x8x64xf32>, %b: tensor<3x64x16xf32>) {
  // expected-error @+2 {{matmul batch dims differ: [2, 8, 64] vs [3, 64, 16]}}
  // expected-error @+1 {{failed to infer returned types}}
  %m = mirage_kernel.matmul %a, %b : tensor<2x8x64xf32>, tensor<3x64x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @matmul_rank_mismatch(%a: tensor<2x8x64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{matmul operands must have the same rank, got 3 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %m = mirage_kernel.matmul %a, %b : tensor<2x8x64xf32>, tensor<64x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @matmul_rank_one(%a: tensor<64xf32>, %b: tensor<64xf32>) {
  // expected-error @+2 {{matmul operands must have rank >= 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %m = mirage_kernel.matmul %a, %b : tensor<64xf32>, tensor<64xf32> -> tensor<1xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>) {
  // expected-error @+2 {{'mirage_kernel.matmul' op inferred type(s) 'tensor<8x16xf32>' are incompatible with return type(s) of operation 'tensor<8x32xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %m = mirage_kernel.matmul %a, %b : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x32xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<8x64xf32>, %b: tensor<64x16xf16>) {
  // expected-error @+1 {{'mirage_kernel.matmul' op failed to verify that all of {lhs, rhs, result} have same element type}}
  %m = mirage_kernel.matmul %a, %b : tensor<8x64xf32>, tensor<64x16xf16> -> tensor<8x16xf32>
  return
}

// -----

func.func @matmul_operand_count(%a: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.matmul' op expected 2 operands, but found 1}}
  %m = "mirage_kernel.matmul"(%a) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

// -----

func.func @binary_broadcast(%a: tensor<8x64xf32>, %b: tensor<8x32xf32>) {
  // expected-error @+2 {{shapes [8, 64] and [8, 32] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = mirage_kernel.binary add %a, %b : tensor<8x64xf32>, tensor<8x32xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @binary_rank(%a: tensor<8x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+2 {{operands of an element-wise op must have the same rank, got 2 and 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = mirage_kernel.binary mul %a, %b : tensor<8x64xf32>, tensor<64xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @binary_operand_count(%a: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.binary' op expected 2 operands, but found 3}}
  %c = "mirage_kernel.binary"(%a, %a, %a) <{kind = 0 : i32}> : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_size_does_not_divide(%x: tensor<8x100xf32>) {
  // expected-error @+2 {{reduction size 64 does not divide extent 100}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = mirage_kernel.reduce sum %x dim 1 to 64 : tensor<8x100xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @reduce_size_not_positive(%x: tensor<8x64xf32>) {
  // expected-error @+2 {{reduction size 0 must be positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = mirage_kernel.reduce sum %x dim 1 to 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @reduce_dim_out_of_range(%x: tensor<8x64xf32>) {
  // expected-error @+2 {{reduction dim 2 out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = mirage_kernel.reduce max %x dim 2 : tensor<8x64xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @reduce_dim_negative(%x: tensor<8x64xf32>) {
  // expected-error @+2 {{reduction dim -1 out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = mirage_kernel.reduce sum %x dim -1 : tensor<8x64xf32> -> tensor<8x1xf32>
  return
}

// -----

func.func @reduce_missing_dim(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.reduce' op requires attribute 'dim'}}
  %r = "mirage_kernel.reduce"(%x) <{kind = 0 : i32}> : (tensor<8x64xf32>) -> tensor<8x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// Concat
//===----------------------------------------------------------------------===//

// -----

func.func @concat_other_dim_differs(%a: tensor<8x16xf32>, %b: tensor<4x32xf32>) {
  // expected-error @+2 {{concat operands differ in dim 0: [8, 16] vs [4, 32]}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = mirage_kernel.concat %a, %b dim 1 : tensor<8x16xf32>, tensor<4x32xf32> -> tensor<8x48xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<8x16xf32>, %b: tensor<1x8x16xf32>) {
  // expected-error @+2 {{concat operands must have the same rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = mirage_kernel.concat %a, %b dim 1 : tensor<8x16xf32>, tensor<1x8x16xf32> -> tensor<8x32xf32>
  return
}

// -----

func.func @concat_dim_out_of_range(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+2 {{concat dim 2 out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = mirage_kernel.concat %a, %b dim 2 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// RMS norm
//===----------------------------------------------------------------------===//

// -----

func.func @rms_norm_weight_does_not_broadcast(%x: tensor<8x64xf32>, %g: tensor<1x32xf32>) {
  // expected-error @+2 {{rms_norm weight: shapes [8, 64] and [1, 32] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %n = mirage_kernel.rms_norm %x weight %g : tensor<8x64xf32>, tensor<1x32xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @rms_norm_weight_larger_than_operand(%x: tensor<1x64xf32>, %g: tensor<8x64xf32>) {
  // expected-error @+2 {{rms_norm weight [8, 64] must broadcast to the operand shape [1, 64]}}
  // expected-error @+1 {{failed to infer returned types}}
  %n = mirage_kernel.rms_norm %x weight %g : tensor<1x64xf32>, tensor<8x64xf32> -> tensor<1x64xf32>
  return
}

// -----

func.func @rms_norm_weight_element_type(%x: tensor<8x64xf32>, %g: tensor<1x64xf16>) {
  %o = mirage_kernel.graph (%x, %g) : (tensor<8x64xf32>, tensor<1x64xf16>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>, %b: tensor<1x64xf16>):
    // expected-error @+1 {{'mirage_kernel.rms_norm' op weight must have the element type 'f32' of the operand}}
    %n = mirage_kernel.rms_norm %a weight %b : tensor<8x64xf32>, tensor<1x64xf16> -> tensor<8x64xf32>
    mirage_kernel.yield %n : tensor<8x64xf32>
  }
  return
}

// -----

func.func @rms_norm_scalar_operand(%x: tensor<f32>) {
  // expected-error @+2 {{rms_norm needs an operand of rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %n = mirage_kernel.rms_norm %x : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @rms_norm_operand_count(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.rms_norm' op operand group starting at #1 requires 0 or 1 element, but found 2}}
  %n = "mirage_kernel.rms_norm"(%x, %x, %x) : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Custom kernels in a kernel graph
//===----------------------------------------------------------------------===//

// -----

func.func @custom_body_in_graph(%x: tensor<8x64xf32>) {
  %o = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    %k = mirage_kernel.custom (%a) grid = [2, 1, 1] forloop = 1 : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    ^bb0(%X: tensor<8x64xf32>):
      %t = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf32> -> tensor<4x64xf32>
      %acc = mirage_block.accum sum %t : tensor<4x64xf32> -> tensor<4x64xf32>
      // expected-error @+1 {{omap replicates grid axis x of extent 2: blocks would write overlapping regions}}
      %s = mirage_block.output_saver %acc omap = [-1, -1, -1] : tensor<4x64xf32> -> tensor<4x64xf32>
      mirage_block.yield %s : tensor<4x64xf32>
    }
    mirage_kernel.yield %a : tensor<8x64xf32>
  }
  return
}

// -----

func.func @custom_missing_forloop(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.custom' op requires attribute 'forloop_range'}}
  "mirage_kernel.custom"(%x) <{grid = array<i64: 1, 1, 1>}> ({
  ^bb0(%X: tensor<8x64xf32>):
    "mirage_block.yield"() : () -> ()
  }) : (tensor<8x64xf32>) -> ()
  return
}

// -----

func.func @custom_two_blocks(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mirage_kernel.custom' op expects region #0 to have 0 or 1 blocks}}
  "mirage_kernel.custom"(%x) <{grid = array<i64: 1, 1, 1>, forloop_range = 1 : i64}> ({
  ^bb0(%X: tensor<8x64xf32>):
    "mirage_block.yield"() : () -> ()
  ^bb1:
    "mirage_block.yield"() : () -> ()
  }) : (tensor<8x64xf32>) -> ()
  return
}
