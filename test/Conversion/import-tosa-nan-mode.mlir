// RUN: mirage-opt %s --mirage-import -split-input-file -verify-diagnostics | FileCheck %s

// Regression (issue 11): `nan_mode` written as a string, as upstream's own
// tosa-to-linalg tests write it. MLIR 22.1.8 parses and verifies the op but
// leaves the property empty; the importer called getNanMode() on it and
// crashed (segmentation fault). Attributes are now read through
// UpstreamAttrs: the absent nan_mode takes the TOSA specification's default,
// PROPAGATE, which is also how upstream tosa-to-linalg lowers this op.

// CHECK-LABEL: func.func @reduce_max_nan_mode_string_ignore
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.reduce max %{{.*}} dim 1 : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NOT: tosa.reduce_max
func.func @reduce_max_nan_mode_string_ignore(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = tosa.reduce_max %x {axis = 1 : i32, nan_mode = "IGNORE"} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_nan_mode_string_propagate
// CHECK: mirage_kernel.reduce max %{{.*}} dim 0 : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NOT: tosa.reduce_max
func.func @reduce_max_nan_mode_string_propagate(%x: tensor<2x3xf32>) -> tensor<1x3xf32> {
  %r = tosa.reduce_max %x {axis = 0 : i32, nan_mode = "PROPAGATE"} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

// -----

// The enum form keeps its meaning: IGNORE has no kernel form and stays.
// CHECK-LABEL: func.func @reduce_max_nan_mode_enum_ignore
// CHECK-NOT: mirage_kernel.graph
// CHECK: tosa.reduce_max
func.func @reduce_max_nan_mode_enum_ignore(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-remark @+1 {{not imported: reduce_max with nan_mode IGNORE}}
  %r = tosa.reduce_max %x {axis = 1 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

// The other ops with a nan_mode: the string form parses the same way and
// imports as the default form does.
// CHECK-LABEL: func.func @clamp_and_maximum_nan_mode_string
// CHECK: mirage_kernel.graph
// CHECK-COUNT-2: mirage_kernel.unary relu
// CHECK-NOT: tosa.
func.func @clamp_and_maximum_nan_mode_string(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %c = tosa.clamp %x {min_val = 0.0 : f32, max_val = 3.4028235e38 : f32, nan_mode = "IGNORE"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = tosa.maximum %c, %z {nan_mode = "PROPAGATE"} : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}
