// RUN: mirage-opt %s --mirage-import -split-input-file -verify-diagnostics | FileCheck %s

// masked_fill(s, m, -inf) as TorchToTosa writes it: tosa.select of a
// boolean mask, a -inf splat and the scores. It becomes the scores plus an
// additive mask (select of -inf and 0, left outside the graph), so QKᵀ and
// the softmax stay one graph.
// CHECK-LABEL: func.func @masked_fill_attention
// CHECK: %[[MASK:.*]] = tosa.select %arg1, %{{.*}}, %{{.*}} : (tensor<1x1x64xi1>, tensor<1x1x1xf16>, tensor<1x1x1xf16>) -> tensor<1x1x64xf16>
// CHECK: mirage_kernel.graph
// CHECK-SAME: %[[MASK]]
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.reduce max
// CHECK: mirage_kernel.unary exp
// CHECK: mirage_kernel.matmul
// CHECK-NOT: mirage_kernel.graph
func.func @masked_fill_attention(%q: tensor<2x4x32xf16>, %m: tensor<1x1x64xi1>, %k: tensor<2x32x64xf16>, %v: tensor<2x64x32xf16>) -> tensor<2x4x32xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ninf = "tosa.const"() <{values = dense<0xFC00> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %s = tosa.matmul %q, %k, %zp, %zp : (tensor<2x4x32xf16>, tensor<2x32x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x64xf16>
  // The mask select stays outside the graph.
  // expected-remark @+1 {{not imported: no kernel equivalent for 'tosa.select'}}
  %f = tosa.select %m, %ninf, %s : (tensor<1x1x64xi1>, tensor<1x1x1xf16>, tensor<2x4x64xf16>) -> tensor<2x4x64xf16>
  %mx = tosa.reduce_max %f {axis = 2 : i32} : (tensor<2x4x64xf16>) -> tensor<2x4x1xf16>
  %d = tosa.sub %f, %mx : (tensor<2x4x64xf16>, tensor<2x4x1xf16>) -> tensor<2x4x64xf16>
  %e = tosa.exp %d : (tensor<2x4x64xf16>) -> tensor<2x4x64xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x4x64xf16>) -> tensor<2x4x1xf16>
  %r = tosa.reciprocal %sum : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
  %p = tosa.mul %e, %r, %shift : (tensor<2x4x64xf16>, tensor<2x4x1xf16>, tensor<1xi8>) -> tensor<2x4x64xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x4x64xf16>, tensor<2x64x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x32xf16>
  return %o : tensor<2x4x32xf16>
}

// -----

// A condition computed from the filled value (a NaN filter) is left alone:
// s + (-inf) would be NaN where s is NaN, the select gives -inf.
// CHECK-LABEL: func.func @nan_filter
// CHECK: tosa.select %{{.*}}, %{{.*}}, %arg0 : (tensor<4x8xi1>, tensor<1x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NOT: tosa.add
func.func @nan_filter(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  // expected-remark @+1 {{not imported: result: element type i1 (only f16, bf16, f32, f64)}}
  %c = tosa.equal %s, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // expected-remark @+1 {{not imported: result: element type i1 (only f16, bf16, f32, f64)}}
  %n = tosa.logical_not %c : (tensor<4x8xi1>) -> tensor<4x8xi1>
  // expected-remark @+1 {{not imported: a select with no kernel equivalent, not split into masks: its condition reads the filled value (the split is exact for finite values only; where s is NaN, s + -inf is NaN, the select gives the fill)}}
  %f = tosa.select %n, %ninf, %s : (tensor<4x8xi1>, tensor<1x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

// A finite fill (the dtype's lowest value, torch.where(m, s, finfo.min)
// as GPT-2 masks): s + c is not c, so it becomes s * keep + fill with two
// masks selected from the condition alone (left outside the graph): exact
// for every finite s (s*1 + 0 = s, s*0 + c = c).
// CHECK-LABEL: func.func @finite_fill
// CHECK-DAG: %[[LO:.*]] = "tosa.const"() <{values = dense<-6.550400e+04> : tensor<1x1xf16>}>
// CHECK-DAG: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1xf16>}>
// CHECK-DAG: %[[ONE:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1xf16>}>
// CHECK: %[[KEEP:.*]] = tosa.select %arg1, %[[ZERO]], %[[ONE]] : (tensor<4x8xi1>, tensor<1x1xf16>, tensor<1x1xf16>) -> tensor<4x8xf16>
// CHECK: %[[FILL:.*]] = tosa.select %arg1, %[[LO]], %[[ZERO]] : (tensor<4x8xi1>, tensor<1x1xf16>, tensor<1x1xf16>) -> tensor<4x8xf16>
// CHECK: mirage_kernel.graph(%arg0, %[[KEEP]], %[[FILL]])
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<4x8xf16>, %[[K:.*]]: tensor<4x8xf16>, %[[F:.*]]: tensor<4x8xf16>):
// CHECK-NEXT: %[[P:.*]] = mirage_kernel.binary mul %[[S]], %[[K]]
// CHECK-NEXT: %[[R:.*]] = mirage_kernel.binary add %[[P]], %[[F]]
// CHECK-NEXT: mirage_kernel.yield %[[R]]
// CHECK-NOT: tosa.select
func.func @finite_fill(%s: tensor<4x8xf16>, %m: tensor<4x8xi1>) -> tensor<4x8xf16> {
  %lo = "tosa.const"() <{values = dense<-6.550400e+04> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  // Two masks, one remark each (the verifier matches both to one line).
  // expected-remark @+1 {{not imported: no kernel equivalent for 'tosa.select'}}
  %f = tosa.select %m, %lo, %s : (tensor<4x8xi1>, tensor<1x1xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  return %f : tensor<4x8xf16>
}

// -----

// A fill of 0 on the false side (where(m, s, 0)): s * keep alone, no add.
// CHECK-LABEL: func.func @zero_fill
// CHECK: %[[KEEP:.*]] = tosa.select %arg1, %{{.*}}, %{{.*}} : (tensor<4x8xi1>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
// CHECK: mirage_kernel.graph(%arg0, %[[KEEP]])
// CHECK: mirage_kernel.binary mul
// CHECK-NOT: mirage_kernel.binary add
// CHECK: mirage_kernel.yield
func.func @zero_fill(%s: tensor<4x8xf32>, %m: tensor<4x8xi1>) -> tensor<4x8xf32> {
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  // expected-remark @+1 {{not imported: no kernel equivalent for 'tosa.select'}}
  %f = tosa.select %m, %s, %zero : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}
