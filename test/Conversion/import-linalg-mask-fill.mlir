// RUN: mirage-opt %s --mirage-import -split-input-file -verify-diagnostics | FileCheck %s

// masked_fill(s, m, -inf) as torch-mlir writes it in linalg
// (aten.where.self): the -inf is a rank-0 tensor (a truncation of an f64
// constant) read through `() `, the mask an i1 tensor broadcast over the
// batch. The fill becomes a mask generic over the mask's dims (left outside,
// remarked for its i1 input) and s + mask, imported with the exp after it;
// the rank-0 -inf dies with the fill.
// CHECK-LABEL: func.func @where_self
// CHECK-NOT: arith.truncf
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x16xf16>
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<8x16xi1>) outs(%[[E]] : tensor<1x8x16xf16>)
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %{{.*}}: f16):
// CHECK-NEXT: %[[NINF:.*]] = arith.constant 0xFC00 : f16
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[C]], %[[NINF]], %[[ZERO]] : f16
// CHECK-NEXT: linalg.yield %[[SEL]] : f16
// CHECK: mirage_kernel.graph
// CHECK-SAME: (%arg0, %[[MASK]])
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.unary exp
// CHECK-NOT: arith.select
// CHECK: return
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m = affine_map<(d0, d1, d2) -> (d1, d2)>
#sc = affine_map<(d0, d1, d2) -> ()>
#z = affine_map<() -> ()>
func.func @where_self(%s: tensor<2x8x16xf16>, %mask: tensor<8x16xi1>) -> tensor<2x8x16xf16> {
  %cst = arith.constant dense<0xFFF0000000000000> : tensor<f64>
  %e0 = tensor.empty() : tensor<f16>
  %ninf = linalg.generic {indexing_maps = [#z, #z], iterator_types = []} ins(%cst : tensor<f64>) outs(%e0 : tensor<f16>) {
  ^bb0(%in: f64, %out: f16):
    %t = arith.truncf %in : f64 to f16
    linalg.yield %t : f16
  } -> tensor<f16>
  %e = tensor.empty() : tensor<2x8x16xf16>
  // expected-remark @+1 {{not imported: operand: element type i1 (only f16, bf16, f32, f64)}}
  %f = linalg.generic {indexing_maps = [#m, #sc, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %ninf, %s : tensor<8x16xi1>, tensor<f16>, tensor<2x8x16xf16>) outs(%e : tensor<2x8x16xf16>) {
  ^bb0(%c: i1, %n: f16, %x: f16, %out: f16):
    %r = arith.select %c, %n, %x : f16
    linalg.yield %r : f16
  } -> tensor<2x8x16xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%f : tensor<2x8x16xf16>) outs(%e : tensor<2x8x16xf16>) {
  ^bb0(%in: f16, %out: f16):
    %r = math.exp %in : f16
    linalg.yield %r : f16
  } -> tensor<2x8x16xf16>
  return %x : tensor<2x8x16xf16>
}

// -----

// The branches swapped (keep s where the condition holds, -inf elsewhere)
// and the -inf a body constant: the mask keeps the fill on the false side.
// CHECK-LABEL: func.func @fill_on_false
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4x8xi1>)
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %{{.*}}: f32):
// CHECK-NEXT: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[C]], %[[ZERO]], %[[NINF]] : f32
// CHECK-NEXT: linalg.yield %[[SEL]] : f32
// CHECK: mirage_kernel.graph
// CHECK-SAME: (%arg0, %[[MASK]])
// CHECK: mirage_kernel.binary add
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @fill_on_false(%s: tensor<4x8xf32>, %keep: tensor<4x8xi1>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{not imported: operand: element type i1 (only f16, bf16, f32, f64)}}
  %f = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%keep, %s : tensor<4x8xi1>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%c: i1, %x: f32, %out: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %c, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

// A causal mask computed in the fill's body from the loop indices (key
// beyond query): the mask generic runs over the two loops the condition
// reads, the batch and head dims are unit dims of the mask read through the
// constant 0, and it is remarked as built from indices.
// CHECK-DAG: #[[$QK:.*]] = affine_map<(d0, d1) -> (0, 0, d0, d1)>
// CHECK-LABEL: func.func @causal_in_body
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x1x8x8xf16>
// CHECK: %[[MASK:.*]] = linalg.generic {indexing_maps = [#[[$QK]]], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<1x1x8x8xf16>)
// CHECK-NEXT: ^bb0(%{{.*}}: f16):
// CHECK-NEXT: %[[Q:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[K:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[C:.*]] = arith.cmpi ugt, %[[K]], %[[Q]] : index
// CHECK-NEXT: %[[NINF:.*]] = arith.constant 0xFC00 : f16
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: arith.select %[[C]], %[[NINF]], %[[ZERO]] : f16
// CHECK: mirage_kernel.graph
// CHECK-SAME: (%arg0, %[[MASK]])
// CHECK: mirage_kernel.binary add
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @causal_in_body(%s: tensor<1x2x8x8xf16>) -> tensor<1x2x8x8xf16> {
  %ninf = arith.constant 0xFC00 : f16
  %e = tensor.empty() : tensor<1x2x8x8xf16>
  // expected-remark @+1 {{not imported: computed from loop indices only (an index-built mask is materialised outside the graphs and enters them as an operand)}}
  %f = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x2x8x8xf16>) outs(%e : tensor<1x2x8x8xf16>) {
  ^bb0(%x: f16, %out: f16):
    %q = linalg.index 2 : index
    %k = linalg.index 3 : index
    %c = arith.cmpi ugt, %k, %q : index
    %r = arith.select %c, %ninf, %x : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  return %f : tensor<1x2x8x8xf16>
}

// -----

// A causal boolean mask built from indices by its own generic (no inputs,
// only an init), then filled into the scores: the i1 generic stays as it
// was, the fill splits as for any mask tensor.
// CHECK-LABEL: func.func @causal_generic
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8x8xi1>)
// CHECK: arith.cmpi sgt
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<8x8xi1>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: mirage_kernel.graph
// CHECK-SAME: (%arg0, %[[MASK]])
// CHECK: mirage_kernel.binary add
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @causal_generic(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %eb = tensor.empty() : tensor<8x8xi1>
  // expected-remark @+1 {{not imported: result: element type i1 (only f16, bf16, f32, f64)}}
  %b = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%eb : tensor<8x8xi1>) {
  ^bb0(%out: i1):
    %q = linalg.index 0 : index
    %k = linalg.index 1 : index
    %qi = arith.index_cast %q : index to i64
    %ki = arith.index_cast %k : index to i64
    %c = arith.cmpi sgt, %ki, %qi : i64
    linalg.yield %c : i1
  } -> tensor<8x8xi1>
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark @+1 {{not imported: operand: element type i1 (only f16, bf16, f32, f64)}}
  %f = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b, %s : tensor<8x8xi1>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%c: i1, %x: f32, %out: f32):
    %r = arith.select %c, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %f : tensor<8x8xf32>
}

// -----

// A finite fill (f16's lowest value, torch.where(m, s, finfo.min)) is not
// -inf, s + c is not c: it becomes s * keep + fill, the two masks generics
// over the condition (each left outside, remarked for its i1 input), the
// product and sum imported.
// CHECK-LABEL: func.func @finite_fill
// CHECK: %[[KEEP:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4x8xi1>)
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %{{.*}}: f16):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f16
// CHECK-NEXT: arith.select %[[C]], %[[Z]], %[[ONE]] : f16
// CHECK: %[[FILL:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4x8xi1>)
// CHECK-NEXT: ^bb0(%[[C2:.*]]: i1, %{{.*}}: f16):
// CHECK-NEXT: %[[LO:.*]] = arith.constant -6.550400e+04 : f16
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: arith.select %[[C2]], %[[LO]], %[[Z2]] : f16
// CHECK: mirage_kernel.graph(%arg0, %[[KEEP]], %[[FILL]])
// CHECK: mirage_kernel.binary mul
// CHECK: mirage_kernel.binary add
// CHECK-NOT: arith.select
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @finite_fill(%s: tensor<4x8xf16>, %m: tensor<4x8xi1>) -> tensor<4x8xf16> {
  %lo = arith.constant -6.550400e+04 : f16
  %e = tensor.empty() : tensor<4x8xf16>
  // Two masks, one remark each (the verifier matches both to one line).
  // expected-remark @+1 {{not imported: operand: element type i1 (only f16, bf16, f32, f64)}}
  %f = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %s : tensor<4x8xi1>, tensor<4x8xf16>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%c: i1, %x: f16, %out: f16):
    %r = arith.select %c, %lo, %x : f16
    linalg.yield %r : f16
  } -> tensor<4x8xf16>
  return %f : tensor<4x8xf16>
}

// -----

// A condition that reads s (a NaN filter): s + (-inf) is NaN where s is
// NaN, the select gives -inf; it stays.
// CHECK-LABEL: func.func @nan_filter
// CHECK-NOT: mirage_kernel.graph
// CHECK: arith.cmpf uno
// CHECK: arith.select
// CHECK-NOT: arith.addf
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @nan_filter(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{not imported: a select with no kernel equivalent, not split into masks: its condition reads the filled value (the split is exact for finite values only; where s is NaN, s + -inf is NaN, the select gives the fill)}}
  %f = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %c = arith.cmpf uno, %x, %x : f32
    %r = arith.select %c, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

// The same NaN filter one level up: the mask tensor is computed from s's
// tensor by another generic. The condition reads s through it; it stays.
// CHECK-LABEL: func.func @mask_from_s
// CHECK-NOT: mirage_kernel.graph
// CHECK: arith.cmpf uno
// CHECK: arith.select
// CHECK-NOT: arith.addf
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @mask_from_s(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %eb = tensor.empty() : tensor<4x8xi1>
  // expected-remark @+1 {{not imported: result: element type i1 (only f16, bf16, f32, f64)}}
  %nan = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x8xf32>) outs(%eb : tensor<4x8xi1>) {
  ^bb0(%x: f32, %out: i1):
    %c = arith.cmpf uno, %x, %x : f32
    linalg.yield %c : i1
  } -> tensor<4x8xi1>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{not imported: a select with no kernel equivalent, not split into masks: its condition reads the filled value (the split is exact for finite values only; where s is NaN, s + -inf is NaN, the select gives the fill)}}
  %f = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%nan, %s : tensor<4x8xi1>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%c: i1, %x: f32, %out: f32):
    %r = arith.select %c, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

// A select of 0 is no fill (relu written with cmpf): no mask, and the
// remark is the plain one.
// CHECK-LABEL: func.func @relu_select
// CHECK-NOT: mirage_kernel.graph
// CHECK: arith.select
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_select(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{not imported: body op 'arith.cmpf' has no kernel equivalent}}
  %f = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %c = arith.cmpf ugt, %x, %zero : f32
    %r = arith.select %c, %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

// An index-built causal mask that selects -inf/0 itself (no tensor input,
// only an init), added to the scores: it is the additive mask already, so
// it stays as written, outside, remarked as built from indices; the add
// imports with the mask as an operand. The same select of -inf and a
// zeros tensor (PyTorch's reference attention bias) is left as it is too.
// CHECK-LABEL: func.func @causal_additive
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: arith.cmpi sgt
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x8xi1>, tensor<8x8xf32>)
// CHECK: mirage_kernel.graph
// CHECK-SAME: %[[MASK]]
// CHECK-SAME: %[[BIAS]]
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.binary add
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @causal_additive(%s: tensor<8x8xf32>, %m: tensor<8x8xi1>) -> tensor<8x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %zeros = arith.constant dense<0.000000e+00> : tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark @+1 {{not imported: computed from loop indices only (an index-built mask is materialised outside the graphs and enters them as an operand)}}
  %mask = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %q = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c = arith.cmpi sgt, %k, %q : index
    %r = arith.select %c, %ninf, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  // expected-remark @+1 {{not imported: operand: element type i1 (only f16, bf16, f32, f64)}}
  %bias = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %zeros : tensor<8x8xi1>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%c: i1, %z: f32, %out: f32):
    %r = arith.select %c, %ninf, %z : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %b = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a, %bias : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

// The filled value computed in the body (the scale fused into the fill):
// only a block argument is split, so the select stays, saying so.
// CHECK-LABEL: func.func @fused_scale
// CHECK-NOT: mirage_kernel.graph
// CHECK: arith.mulf
// CHECK: arith.select
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @fused_scale(%s: tensor<4x8xf32>, %m: tensor<4x8xi1>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 2.500000e-01 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{not imported: a select with no kernel equivalent, not split into masks: the filled value is computed in the body (only a block argument is split)}}
  %f = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %s : tensor<4x8xi1>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%c: i1, %x: f32, %out: f32):
    %y = arith.mulf %x, %scale : f32
    %r = arith.select %c, %ninf, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}
