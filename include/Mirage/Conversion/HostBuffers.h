//===- HostBuffers.h - Typed host buffers for the CPU runner ----*- C++ -*-===//
#ifndef MIRAGE_CONVERSION_HOSTBUFFERS_H
#define MIRAGE_CONVERSION_HOSTBUFFERS_H

#include "Mirage/Semantics/UGraph.h"

#include <vector>

namespace mirage {

/// A device-layout (row-major, packed) buffer of `type` on the host.
struct HostBuffer {
  ElemType type = ElemType::F32;
  std::vector<uint8_t> bytes;

  HostBuffer(ElemType type, int64_t elements)
      : type(type), bytes(elements * elemTypeBytes(type), 0) {}
  int64_t size() const { return bytes.size() / elemTypeBytes(type); }
  void *data() { return bytes.data(); }
  /// Element i, rounded to the buffer's type on the way in.
  void set(int64_t i, double v);
  double get(int64_t i) const;
};

} // namespace mirage

#endif // MIRAGE_CONVERSION_HOSTBUFFERS_H
