//===- ThreadDialect.cpp - The thread-level μGraph dialect ----------------===//
#include "Mirage/Dialect/Thread/IR/ThreadDialect.h"
#include "Mirage/Dialect/Common/OpShapeInference.h"

using namespace mlir;
using namespace mirage::thread;

#include "Mirage/Dialect/Thread/IR/ThreadOpsDialect.cpp.inc"

void ThreadDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Mirage/Dialect/Thread/IR/ThreadOps.cpp.inc"
      >();
}

LogicalResult UnaryOp::verify() {
  return ::mirage::verifyUnaryScalar(getOperation(), getKind(),
                                     getScalar().has_value());
}

#define GET_OP_CLASSES
#include "Mirage/Dialect/Thread/IR/ThreadOps.cpp.inc"
