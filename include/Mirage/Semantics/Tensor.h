//===- Tensor.h - Dense row-major tensors for the evaluators ----*- C++ -*-===//
#ifndef MIRAGE_SEMANTICS_TENSOR_H
#define MIRAGE_SEMANTICS_TENSOR_H

#include "Mirage/Semantics/ShapeRules.h"

#include <algorithm>

#include <functional>
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

/// `x` with its last two dims swapped (a copy below rank 2).
template <typename T> Tensor<T> transposeLastTwo(const Tensor<T> &x) {
  size_t r = x.shape.size();
  if (r < 2)
    return x;
  Shape s = x.shape;
  std::swap(s[r - 1], s[r - 2]);
  Tensor<T> out(s, T());
  const int64_t rows = x.shape[r - 2], cols = x.shape[r - 1];
  const int64_t mat = rows * cols;
  for (int64_t base = 0; base < x.size(); base += mat)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        out.data[base + j * rows + i] = x.data[base + i * cols + j];
  return out;
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

/// A graph input as an evaluator reads it, without copying it: a stored
/// tensor, or a generated one whose elements are produced where they are
/// consumed and never stored (a weight far larger than memory).
/// `generate(begin, count, out)` writes the row-major elements
/// [begin, begin + count) to out; it must be a pure function of the index
/// and safe to call from several threads at once.
template <typename T> struct TensorSource {
  using Generator = std::function<void(int64_t, int64_t, T *)>;
  Shape shape;
  const Tensor<T> *stored = nullptr;
  Generator generate;

  TensorSource() = default;
  explicit TensorSource(const Tensor<T> &t) : shape(t.shape), stored(&t) {}
  TensorSource(Shape s, Generator g)
      : shape(std::move(s)), generate(std::move(g)) {}
  bool isGenerated() const { return stored == nullptr; }
  /// Elements [begin, begin + count) into out.
  void read(int64_t begin, int64_t count, T *out) const {
    if (stored)
      std::copy(stored->data.begin() + begin,
                stored->data.begin() + begin + count, out);
    else
      generate(begin, count, out);
  }
};

/// Copies the box of `tile.shape` at `offset` out of `src`, one contiguous
/// innermost row at a time.
template <typename T>
void extractTile(const TensorSource<T> &src, llvm::ArrayRef<int64_t> offset,
                 Tensor<T> &tile) {
  if (tile.shape.empty()) {
    src.read(0, 1, tile.data.data());
    return;
  }
  Shape st = rowMajorStrides(src.shape);
  int64_t w = tile.shape.back();
  Shape rows(tile.shape.begin(), tile.shape.end() - 1);
  forEachIndex(rows, [&](int64_t r, llvm::ArrayRef<int64_t> idx) {
    int64_t off = offset.back() * st.back();
    for (size_t d = 0; d < idx.size(); ++d)
      off += (idx[d] + offset[d]) * st[d];
    src.read(off, w, tile.data.data() + r * w);
  });
}
template <typename T>
void extractTile(const Tensor<T> &src, llvm::ArrayRef<int64_t> offset,
                 Tensor<T> &tile) {
  extractTile(TensorSource<T>(src), offset, tile);
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
