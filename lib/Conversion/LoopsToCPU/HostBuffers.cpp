//===- HostBuffers.cpp - Typed host buffers for the CPU runner ------------===//
#include "Mirage/Conversion/HostBuffers.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>

using namespace mirage;

static const llvm::fltSemantics &semanticsOf(ElemType t) {
  switch (t) {
  case ElemType::F16:
    return llvm::APFloat::IEEEhalf();
  case ElemType::BF16:
    return llvm::APFloat::BFloat();
  case ElemType::F32:
    return llvm::APFloat::IEEEsingle();
  case ElemType::F64:
    return llvm::APFloat::IEEEdouble();
  }
  return llvm::APFloat::IEEEdouble();
}

void HostBuffer::set(int64_t i, double v) {
  llvm::APFloat f(v);
  bool lost = false;
  f.convert(semanticsOf(type), llvm::APFloat::rmNearestTiesToEven, &lost);
  uint64_t bits = f.bitcastToAPInt().getZExtValue();
  int64_t n = elemTypeBytes(type);
  std::memcpy(bytes.data() + i * n, &bits, n); // little-endian host
}

double HostBuffer::get(int64_t i) const {
  int64_t n = elemTypeBytes(type);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + i * n, n);
  llvm::APFloat f(semanticsOf(type), llvm::APInt(n * 8, bits));
  bool lost = false;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}
