//===- MirageEnums.td - Operator kinds shared by all μGraph levels -*- tablegen -*-===//
//
// The kernel, block and thread dialects use the same element-wise, reduction
// and accumulator kinds. They are defined once here so that the shape rules,
// the evaluators and the lowerings dispatch on a single enumeration.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_DIALECT_COMMON_MIRAGEENUMS_TD
#define MIRAGE_DIALECT_COMMON_MIRAGEENUMS_TD

include "mlir/IR/EnumAttr.td"

def Mirage_UnaryKind : I32EnumAttr<"UnaryKind",
    "element-wise unary operator", [
  I32EnumAttrCase<"exp", 0>,
  I32EnumAttrCase<"square", 1>,
  I32EnumAttrCase<"sqrt", 2>,
  I32EnumAttrCase<"rsqrt", 3>,
  I32EnumAttrCase<"reciprocal", 4>,
  I32EnumAttrCase<"silu", 5>,
  I32EnumAttrCase<"gelu", 6>,
  I32EnumAttrCase<"relu", 7>,
  I32EnumAttrCase<"sigmoid", 8>,
  I32EnumAttrCase<"tanh", 9>,
  I32EnumAttrCase<"mul_scalar", 10>,
  I32EnumAttrCase<"add_scalar", 11>,
  I32EnumAttrCase<"erf", 12>
]> {
  let cppNamespace = "::mirage";
}

def Mirage_BinaryKind : I32EnumAttr<"BinaryKind",
    "element-wise binary operator with broadcasting", [
  I32EnumAttrCase<"add", 0>,
  I32EnumAttrCase<"sub", 1>,
  I32EnumAttrCase<"mul", 2>,
  I32EnumAttrCase<"div", 3>,
  I32EnumAttrCase<"pow", 4>
]> {
  let cppNamespace = "::mirage";
}

def Mirage_ReduceKind : I32EnumAttr<"ReduceKind",
    "reduction operator", [
  I32EnumAttrCase<"sum", 0>,
  I32EnumAttrCase<"max", 1>
]> {
  let cppNamespace = "::mirage";
}

def Mirage_AccumKind : I32EnumAttr<"AccumKind",
    "for-loop accumulator of a block graph", [
  // acc = Σ_i x_i (shape unchanged)
  I32EnumAttrCase<"sum", 0>,
  // acc = Σ_i reduce_last(x_i) with the last dim summed to `size` (default 1)
  I32EnumAttrCase<"sum_last", 1>,
  // sum_last divided by (forloop_range × reduced extent)
  I32EnumAttrCase<"mean_last", 2>,
  // sqrt(mean_last(x²))
  I32EnumAttrCase<"rms_last", 3>,
  // acc = max_i x_i (element-wise over iterations)
  I32EnumAttrCase<"max", 4>
]> {
  let cppNamespace = "::mirage";
}

#endif // MIRAGE_DIALECT_COMMON_MIRAGEENUMS_TD
