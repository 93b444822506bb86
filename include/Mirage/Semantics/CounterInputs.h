//===- CounterInputs.h - Random inputs drawn where they are consumed -*- C++ -*-===//
//
// Element i of input t under a key is a pure function of (key, t, i): a
// counter-based generator, as SeededValues.h is for the float inputs of the
// code generator. Nothing has to be stored: an evaluator reading a weight
// tile asks for exactly those elements (TensorSource in Tensor.h), both
// graphs of a check read the same values, and any thread may produce any
// element, so the values do not depend on how work is split.
//
// The generator gives each element a stream of 64-bit words; turning words
// into a domain value is the domain's step (for the finite field: one word
// per residue in mode U, two in mode I), so the stream follows whatever
// moduli the domain holds. Word n of a tensor is SplitMix64's output at
// state tensorKey + n·γ (mix64: the golden-ratio Weyl sequence through
// SplitMix64's finaliser; it passes BigCrush as the sequential generator it
// is, and a counter-based generator is that sequence read at any position).
// Element i owns the counters 4i … 4i + 3; a domain that needs more than
// four words gets them from a second mixing of the fourth. A word costs two
// 64-bit products, which vector units do eight at a time (AVX-512's
// vpmullq): a domain may draw a whole range of elements in one call
// (`fill`, see fillCounterElements), compiled for wide vectors
// (Support/VectorClones.h). wyrand, used before, takes one 128-bit product
// per word, which no vector unit has: faster one word at a time, three
// times slower per element than the vectorized loop (bench/README.md).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_COUNTERINPUTS_H
#define MIRAGE_SEMANTICS_COUNTERINPUTS_H

#include "Mirage/Semantics/Tensor.h"
#include "Mirage/Semantics/UGraph.h"
#include "Mirage/Support/SeededValues.h"

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace mirage {

/// Inputs with more elements than this are generated where they are read
/// (never stored); smaller ones are drawn once and shared.
constexpr int64_t kStoredInputElements = 1 << 20;

/// The key of input tensor `tensor` under `key`.
inline uint64_t counterTensorKey(uint64_t key, uint64_t tensor) {
  return mix64(key ^ mix64(tensor ^ 0xc0117e5ULL));
}

/// SplitMix64's Weyl increment.
constexpr uint64_t kCounterGamma = 0x9e3779b97f4a7c15ULL;

/// The counter state of element `index`: its word j < 4 is
/// mix64(state + j·γ), and element index + 1's state is state +
/// kCounterElementStep (a range fill keeps a running state instead of a
/// 64-bit product per element, which AVX2 has no instruction for).
inline uint64_t counterState(uint64_t tensorKey, uint64_t index) {
  return tensorKey + (index << 2) * kCounterGamma;
}
constexpr uint64_t kCounterElementStep = 4 * kCounterGamma;

/// Word j < 4 of element `index` of the tensor keyed `tensorKey`.
inline uint64_t counterWord(uint64_t tensorKey, uint64_t index, uint64_t j) {
  return mix64(counterState(tensorKey, index) + j * kCounterGamma);
}

/// The words of one element, in order; a callable like a random engine
/// (`words()` is the next word), for a domain's draw step.
class CounterWords {
public:
  CounterWords(uint64_t tensorKey, uint64_t index)
      : state(counterState(tensorKey, index)), key(tensorKey),
        elementIndex(index) {}
  /// The tensor's key and the element's index, for a draw step that shares
  /// one word among several elements (the float64 check's 16-bit units).
  uint64_t tensorKey() const { return key; }
  uint64_t index() const { return elementIndex; }
  uint64_t operator()() {
    uint64_t j = next++;
    if (j < 4)
      return mix64(state + j * kCounterGamma);
    return mix64(mix64(state + 3 * kCounterGamma) + j * kCounterGamma);
  }

private:
  uint64_t state;
  uint64_t key, elementIndex;
  uint64_t next = 0;
};

namespace detail {
/// A draw step that can also fill a range of elements in one call:
/// `draw.fill(tensorKey, begin, count, out)`, with the same values as the
/// element-by-element step.
template <class Draw, class V, class = void>
struct HasRangeFill : std::false_type {};
template <class Draw, class V>
struct HasRangeFill<Draw, V,
                    std::void_t<decltype(std::declval<const Draw &>().fill(
                        uint64_t{}, int64_t{}, int64_t{},
                        static_cast<V *>(nullptr)))>> : std::true_type {};
} // namespace detail

/// The elements [begin, begin + count) of input `tensor`: out[e] =
/// draw(words of element begin + e). `draw(CounterWords &)` returns a value;
/// a draw with a range fill does the whole range at once.
template <class V, class Draw>
void fillCounterElements(uint64_t key, uint64_t tensor, int64_t begin,
                         int64_t count, V *out, const Draw &draw) {
  uint64_t tk = counterTensorKey(key, tensor);
  if constexpr (detail::HasRangeFill<Draw, V>::value) {
    draw.fill(tk, begin, count, out);
    return;
  }
  for (int64_t e = 0; e < count; ++e) {
    CounterWords words(tk, (uint64_t)(begin + e));
    out[e] = draw(words);
  }
}

/// The inputs of `g` under `key` as evaluator sources: inputs with at most
/// `storeLimit` elements are drawn once into `storage` (shared by every run
/// that reads these sources), larger ones are generated where they are
/// read. `storage` must outlive the sources and is not resized afterwards.
template <class V, class Draw>
std::vector<TensorSource<V>>
counterInputs(const UGraph &g, uint64_t key, int64_t storeLimit,
              std::vector<Tensor<V>> &storage, const Draw &draw) {
  storage.clear();
  storage.reserve(g.inputs.size());
  std::vector<TensorSource<V>> srcs;
  for (size_t t = 0; t < g.inputs.size(); ++t) {
    const Shape &shape = g.values[g.inputs[t]].shape;
    if (numElements(shape) <= storeLimit) {
      storage.emplace_back(shape, V{});
      Tensor<V> &x = storage.back();
      fillCounterElements(key, t, 0, x.size(), x.data.data(), draw);
      srcs.emplace_back(x);
    } else {
      srcs.emplace_back(shape, [key, t, draw](int64_t b, int64_t n, V *out) {
        fillCounterElements(key, t, b, n, out, draw);
      });
    }
  }
  return srcs;
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_COUNTERINPUTS_H
