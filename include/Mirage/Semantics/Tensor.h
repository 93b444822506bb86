//===- Tensor.h - Dense row-major tensors for the evaluators ----*- C++ -*-===//
#ifndef MIRAGE_SEMANTICS_TENSOR_H
#define MIRAGE_SEMANTICS_TENSOR_H

#include "Mirage/Semantics/ShapeRules.h"

#include <vector>

namespace mirage {

/// Row-major strides of a shape.
inline Shape rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  Shape s(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// A dense tensor of values of one semantic domain (double, a finite field).
template <typename T> struct Tensor {
  Shape shape;
  std::vector<T> data;

  Tensor() = default;
  Tensor(Shape s, T fill) : shape(std::move(s)), data(numElements(shape), fill) {}
  int64_t size() const { return data.size(); }
};

/// Calls f(outIndex, multiIndex) for every element of `shape` in row-major
/// order, maintaining the multi-index incrementally.
template <typename F> void forEachIndex(llvm::ArrayRef<int64_t> shape, F f) {
  int64_t n = numElements(shape);
  Shape idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(i, llvm::ArrayRef<int64_t>(idx));
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// Offset of `idx` in a tensor of shape `shape` read with broadcasting: dims of
/// extent 1 are read at index 0.
inline int64_t broadcastOffset(llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<int64_t> strides,
                               llvm::ArrayRef<int64_t> idx) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    off += (shape[d] == 1 ? 0 : idx[d]) * strides[d];
  return off;
}

/// Copies the box of `tile.shape` at `offset` out of `src`.
template <typename T>
void extractTile(const Tensor<T> &src, llvm::ArrayRef<int64_t> offset,
                 Tensor<T> &tile) {
  Shape st = rowMajorStrides(src.shape);
  forEachIndex(tile.shape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      off += (idx[d] + offset[d]) * st[d];
    tile.data[i] = src.data[off];
  });
}

/// Writes `tile` into the box at `offset` of `dst`.
template <typename T>
void insertTile(const Tensor<T> &tile, llvm::ArrayRef<int64_t> offset,
                Tensor<T> &dst) {
  Shape st = rowMajorStrides(dst.shape);
  forEachIndex(tile.shape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      off += (idx[d] + offset[d]) * st[d];
    dst.data[off] = tile.data[i];
  });
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_TENSOR_H
