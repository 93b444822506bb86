// Transposes of the last two dims that feed a graph operand are read as
// they lie (docs/Rationale/OperandLayouts.md, OperandTransposes.cpp).
// RUN: mirage-opt %s --mirage-import="remarks=false" --split-input-file | FileCheck %s
// RUN: mirage-opt %s --mirage-import --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mirage-opt %s --mirage-import="remarks=false strict-lax=true" --split-input-file | FileCheck %s --check-prefix=STRICT

// A transpose something else reads too stays for that reader (with its
// remark: it is the function's result); the graph reads its source.
// CHECK-LABEL: func.func @also_returned
// CHECK: %[[T:.*]] = tosa.transpose %arg1
// CHECK: mirage_kernel.graph(%arg0, %arg1) attributes {transposed_inputs = array<i64: 1>}
// CHECK: return %{{.*}}, %[[T]]
func.func @also_returned(%x: tensor<1x4x64xf32>, %w: tensor<1x32x64xf32>) -> (tensor<1x4x32xf32>, tensor<1x64x32xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // REMARK: :[[@LINE+1]]:9: remark: not imported: layout change with no imported op on both sides
  %wt = tosa.transpose %w {perms = array<i32: 0, 2, 1>} : (tensor<1x32x64xf32>) -> tensor<1x64x32xf32>
  %y = tosa.matmul %x, %wt, %zp, %zp : (tensor<1x4x64xf32>, tensor<1x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x32xf32>
  %e = tosa.exp %y : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  return %e, %wt : tensor<1x4x32xf32>, tensor<1x64x32xf32>
}

// -----

// A permutation that moves a leading dim is not a stored layout the
// kernels read: it stays the graph's operand, with its remark.
// CHECK-LABEL: func.func @leading_permutation
// CHECK: tosa.transpose %arg0
// CHECK: mirage_kernel.graph(%{{.*}}) :
// CHECK-NOT: transposed_inputs
func.func @leading_permutation(%x: tensor<4x2x8xf32>) -> tensor<2x4x8xf32> {
  // REMARK: :[[@LINE+1]]:8: remark: not imported: layout change with no imported op on both sides
  %t = tosa.transpose %x {perms = array<i32: 1, 0, 2>} : (tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
  %e = tosa.exp %t : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %e : tensor<2x4x8xf32>
}

// -----

// One transpose read by two graphs (the LAX split in strict mode): each
// reads the source as it lies, and the transpose goes.
// CHECK-LABEL: func.func @two_readers
// CHECK: mirage_kernel.graph(%arg0) attributes {{.*}}transposed_inputs = array<i64: 0>
// STRICT-LABEL: func.func @two_readers
// STRICT-NOT: tosa.transpose
// STRICT: mirage_kernel.graph(%arg0) attributes {{.*}}transposed_inputs = array<i64: 0>
// STRICT: mirage_kernel.graph({{.*}}%arg0{{.*}}) attributes {{.*}}transposed_inputs = array<i64: {{[0-9]}}>
func.func @two_readers(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %t = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %e = tosa.tanh %t : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.add %e, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
