//===- MirageEnums.cpp - Operator kinds shared by all μGraph levels -------===//
#include "Mirage/Dialect/Common/MirageEnums.h"

#include "Mirage/Dialect/Common/MirageEnums.cpp.inc"
