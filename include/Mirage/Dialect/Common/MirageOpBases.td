//===- MirageOpBases.td - Op classes shared by kernel and block -*- tablegen -*-===//
//
// Matmul, element-wise, reduction, rms_norm and concat exist at the kernel
// level (device tensors) and at the block level (shared-memory tiles) with the
// same semantics. Each dialect instantiates these classes; the result types
// come from the shared shape rules (Mirage/Semantics/ShapeRules.h) through
// InferTypeOpInterface, so neither dialect restates a rule.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_DIALECT_COMMON_MIRAGEOPBASES_TD
#define MIRAGE_DIALECT_COMMON_MIRAGEOPBASES_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "Mirage/Dialect/Common/MirageEnums.td"

def Mirage_FloatType : AnyTypeOf<[F16, BF16, F32, F64]>;
def Mirage_Tensor : RankedTensorOf<[F16, BF16, F32, F64]>;

class Mirage_MatmulBase<Dialect d, list<Trait> traits = []>
    : Op<d, "matmul", !listconcat(traits, [Pure, InferTypeOpAdaptor,
          AllElementTypesMatch<["lhs", "rhs", "result"]>])> {
  let summary = "batched matrix multiplication";
  let arguments = (ins Mirage_Tensor:$lhs, Mirage_Tensor:$rhs);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

class Mirage_UnaryBase<Dialect d, list<Trait> traits = []>
    : Op<d, "unary", !listconcat(traits, [Pure, SameOperandsAndResultType])> {
  let summary = "element-wise unary operator";
  let arguments = (ins Mirage_UnaryKind:$kind, Mirage_Tensor:$input,
                       OptionalAttr<F64Attr>:$scalar);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $kind $input (`scalar` `(` $scalar^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

class Mirage_BinaryBase<Dialect d, list<Trait> traits = []>
    : Op<d, "binary", !listconcat(traits, [Pure, InferTypeOpAdaptor,
          AllElementTypesMatch<["lhs", "rhs", "result"]>])> {
  let summary = "element-wise binary operator with broadcasting";
  let arguments = (ins Mirage_BinaryKind:$kind, Mirage_Tensor:$lhs,
                       Mirage_Tensor:$rhs);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

class Mirage_ReduceBase<Dialect d, list<Trait> traits = []>
    : Op<d, "reduce", !listconcat(traits, [Pure, InferTypeOpAdaptor,
          AllElementTypesMatch<["input", "result"]>])> {
  let summary = "sum or max along one dim, to size 1 or to a given size";
  let arguments = (ins Mirage_ReduceKind:$kind, Mirage_Tensor:$input,
                       I64Attr:$dim, DefaultValuedAttr<I64Attr, "1">:$size);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $kind $input `dim` $dim (`to` $size^)? attr-dict `:` type($input) `->` type($result)
  }];
}

class Mirage_RmsNormBase<Dialect d, list<Trait> traits = []>
    : Op<d, "rms_norm", !listconcat(traits, [Pure, InferTypeOpAdaptor,
          AllElementTypesMatch<["input", "result"]>])> {
  let summary = "RMS normalisation over the last dim, with optional weight";
  let arguments = (ins Mirage_Tensor:$input, Optional<Mirage_Tensor>:$weight,
                       DefaultValuedAttr<F64Attr, "0.0">:$eps);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`eps` `(` $eps^ `)`)? attr-dict `:` type($input)
    (`,` type($weight)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

class Mirage_ConcatBase<Dialect d, list<Trait> traits = []>
    : Op<d, "concat", !listconcat(traits, [Pure, InferTypeOpAdaptor,
          AllElementTypesMatch<["lhs", "rhs", "result"]>])> {
  let summary = "concatenation of two tensors along one dim";
  let arguments = (ins Mirage_Tensor:$lhs, Mirage_Tensor:$rhs, I64Attr:$dim);
  let results = (outs Mirage_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `dim` $dim attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

#endif // MIRAGE_DIALECT_COMMON_MIRAGEOPBASES_TD
