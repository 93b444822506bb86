//===- OpKinds.cpp - Names of op kinds ------------------------------------===//
//
// OpKind names come from its facts table; sub-kind names from TableGen, the
// assembly syntax (docs/Rationale/OpKinds.md, Decision 2).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/OpKinds.h"

using namespace mirage;

llvm::StringRef mirage::opKindName(OpKind k) {
  const char *name = opKindFacts(k).name;
  return name ? name : "?";
}

llvm::StringRef mirage::subKindName(const UOp &op) {
  switch (opKindFacts(op.kind).sub) {
  case SubKind::None:
    return "";
  case SubKind::Unary:
    return stringifyUnaryKind(op.unaryKind());
  case SubKind::Binary:
    return stringifyBinaryKind(op.binaryKind());
  case SubKind::Reduce:
    return stringifyReduceKind(op.reduceKind());
  case SubKind::Accum:
    return stringifyAccumKind(op.accumKind());
  }
  return "";
}
