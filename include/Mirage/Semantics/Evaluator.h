//===- Evaluator.h - Executable semantics of μGraphs ------------*- C++ -*-===//
//
// One evaluator for kernel, block and thread graphs, generic over a scalar
// domain `Sem` (Float64Semantics, the finite-field domain of the verifier, a
// rounding domain for dtype checks). The domain supplies:
//
//   Value; zero(); fromInt(int64_t); fromDouble(double);
//   add, sub, mul, div, pow, max (Value, Value) -> Value;
//   unary(UnaryKind, Value, double scalar) -> Value.
//
// Everything structural lives here once: broadcasting, matmul, strided
// reductions, rms_norm, concat, the block-graph loop (grid, iterators with
// imap/fmap, accumulators, savers with omap) and thread graphs. A block
// graph runs literally block by block and iteration by iteration, so the
// evaluator checks the tiling semantics, not just the algebra.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_EVALUATOR_H
#define MIRAGE_SEMANTICS_EVALUATOR_H

#include "Mirage/Semantics/Tensor.h"
#include "Mirage/Semantics/UGraph.h"

#include <cassert>
#include <optional>

namespace mirage {

template <class Sem> class Evaluator {
public:
  using V = typename Sem::Value;
  using T = Tensor<V>;

  explicit Evaluator(const Sem &sem) : sem(sem) {}

  /// Evaluates `g` (kernel or block level) on `inputs`, in graph-input order;
  /// returns the outputs in order.
  std::vector<T> run(const UGraph &g, llvm::ArrayRef<T> inputs) const {
    assert(inputs.size() == g.inputs.size() && "wrong number of inputs");
    std::vector<T> vals(g.values.size());
    for (size_t i = 0; i < inputs.size(); ++i)
      vals[g.inputs[i]] = inputs[i];
    for (const UOp &op : g.ops) {
      if (op.kind == OpKind::Custom) {
        std::vector<T> ins;
        for (int32_t v : op.operands)
          ins.push_back(vals[v]);
        std::vector<T> outs = runBlockGraph(g.bodies[op.body], ins);
        for (size_t i = 0; i < outs.size(); ++i)
          vals[op.results[i]] = std::move(outs[i]);
        continue;
      }
      runTensorOp(g, op, vals);
    }
    std::vector<T> outs;
    for (int32_t o : g.outputs)
      outs.push_back(vals[o]);
    return outs;
  }

  /// Runs a block graph over the whole grid; `inputs` are device tensors.
  std::vector<T> runBlockGraph(const UGraph &b, llvm::ArrayRef<T> inputs) const {
    std::vector<T> outputs;
    for (int32_t o : b.outputs)
      outputs.emplace_back(b.values[o].shape, sem.zero());
    // Map saver result value -> output position.
    std::vector<int> outputIndex(b.values.size(), -1);
    for (size_t i = 0; i < b.outputs.size(); ++i)
      outputIndex[b.outputs[i]] = i;

    GridDims idx{0, 0, 0};
    for (idx[2] = 0; idx[2] < b.grid[2]; ++idx[2])
      for (idx[1] = 0; idx[1] < b.grid[1]; ++idx[1])
        for (idx[0] = 0; idx[0] < b.grid[0]; ++idx[0])
          runBlock(b, inputs, idx, outputIndex, outputs);
    return outputs;
  }

private:
  const Sem &sem;

  V binary(BinaryKind k, V a, V b) const {
    switch (k) {
    case BinaryKind::add:
      return sem.add(a, b);
    case BinaryKind::sub:
      return sem.sub(a, b);
    case BinaryKind::mul:
      return sem.mul(a, b);
    case BinaryKind::div:
      return sem.div(a, b);
    case BinaryKind::pow:
      return sem.pow(a, b);
    }
    return a;
  }

  void runBlock(const UGraph &b, llvm::ArrayRef<T> inputs,
                const GridDims &blockIdx, const std::vector<int> &outputIndex,
                std::vector<T> &outputs) const {
    std::vector<T> vals(b.values.size());
    // Accumulator state, indexed by op; valid once the first iteration ran.
    std::vector<std::optional<T>> acc(b.ops.size());
    for (int64_t it = 0; it < b.forloopRange; ++it) {
      for (size_t i = 0; i < b.ops.size(); ++i) {
        const UOp &op = b.ops[i];
        switch (op.kind) {
        case OpKind::InputIterator: {
          int inputPos = 0;
          for (size_t k = 0; k < b.inputs.size(); ++k)
            if (b.inputs[k] == op.operands[0])
              inputPos = k;
          T &tile = vals[op.results[0]];
          tile = T(b.values[op.results[0]].shape, sem.zero());
          Shape off = iteratorTileOffset(tile.shape, blockIdx, it,
                                         b.forloopRange, op.map, op.fmap);
          extractTile(inputs[inputPos], off, tile);
          break;
        }
        case OpKind::Accum:
          accumulate(b, op, vals, acc[i]);
          break;
        default:
          if (b.values[op.results[0]].phase == Phase::InLoop)
            runTensorOp(b, op, vals);
          break;
        }
      }
    }
    // After the loop: finish accumulators, run after-loop ops, save tiles.
    for (size_t i = 0; i < b.ops.size(); ++i) {
      const UOp &op = b.ops[i];
      if (op.kind == OpKind::Accum) {
        vals[op.results[0]] = finishAccum(b, op, std::move(*acc[i]));
      } else if (op.kind == OpKind::OutputSaver) {
        const T &tile = vals[op.operands[0]];
        Shape off = saverTileOffset(tile.shape, blockIdx, op.map);
        insertTile(tile, off, outputs[outputIndex[op.results[0]]]);
      } else if (b.values[op.results[0]].phase == Phase::AfterLoop) {
        runTensorOp(b, op, vals);
      }
    }
  }

  /// One iteration's contribution of an accumulator operand.
  T accumContribution(const UOp &op, const T &x) const {
    AccumKind k = op.accumKind();
    if (k == AccumKind::sum || k == AccumKind::max)
      return x;
    T in = x;
    if (k == AccumKind::rms_last)
      for (V &v : in.data)
        v = sem.mul(v, v);
    return reduce(ReduceKind::sum, in, in.shape.size() - 1,
                  op.size == 0 ? 1 : op.size);
  }

  void accumulate(const UGraph &b, const UOp &op, std::vector<T> &vals,
                  std::optional<T> &state) const {
    T c = accumContribution(op, vals[op.operands[0]]);
    if (!state) {
      state = std::move(c);
      return;
    }
    if (op.accumKind() == AccumKind::max) {
      for (int64_t i = 0; i < c.size(); ++i)
        state->data[i] = sem.max(state->data[i], c.data[i]);
      return;
    }
    if (op.operands.size() > 1) {
      // Rescaled form: acc <- acc * r + c, with r broadcast to acc's shape.
      const T &r = vals[op.operands[1]];
      Shape rs = rowMajorStrides(r.shape);
      forEachIndex(state->shape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
        V scale = r.data[broadcastOffset(r.shape, rs, idx)];
        state->data[i] = sem.add(sem.mul(state->data[i], scale), c.data[i]);
      });
      return;
    }
    for (int64_t i = 0; i < c.size(); ++i)
      state->data[i] = sem.add(state->data[i], c.data[i]);
  }

  T finishAccum(const UGraph &b, const UOp &op, T state) const {
    AccumKind k = op.accumKind();
    if (k != AccumKind::mean_last && k != AccumKind::rms_last)
      return state;
    const Shape &inShape = b.values[op.operands[0]].shape;
    int64_t size = op.size == 0 ? 1 : op.size;
    V count = sem.fromInt(b.forloopRange * (inShape.back() / size));
    for (V &v : state.data) {
      v = sem.div(v, count);
      if (k == AccumKind::rms_last)
        v = sem.unary(UnaryKind::sqrt, v, 0.0);
    }
    return state;
  }

  /// Strided reduction of `dim` to `size`: out[.., j, ..] combines
  /// x[.., c·size + j, ..] over c.
  T reduce(ReduceKind k, const T &x, int64_t dim, int64_t size) const {
    Shape outShape = x.shape;
    outShape[dim] = size;
    T out(outShape, sem.zero());
    Shape xs = rowMajorStrides(x.shape);
    int64_t chunks = x.shape[dim] / size;
    forEachIndex(outShape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
      int64_t base = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        base += idx[d] * xs[d];
      V a = x.data[base];
      for (int64_t c = 1; c < chunks; ++c) {
        V v = x.data[base + c * size * xs[dim]];
        a = k == ReduceKind::sum ? sem.add(a, v) : sem.max(a, v);
      }
      out.data[i] = a;
    });
    return out;
  }

  T broadcastBinary(BinaryKind k, const T &a, const T &b,
                    const Shape &outShape) const {
    T out(outShape, sem.zero());
    Shape as = rowMajorStrides(a.shape), bs = rowMajorStrides(b.shape);
    forEachIndex(outShape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
      out.data[i] = binary(k, a.data[broadcastOffset(a.shape, as, idx)],
                           b.data[broadcastOffset(b.shape, bs, idx)]);
    });
    return out;
  }

  T matmul(const T &a, const T &b, const Shape &outShape) const {
    size_t r = a.shape.size();
    int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
    int64_t batch = numElements(outShape) / (m * n);
    T out(outShape, sem.zero());
    for (int64_t bt = 0; bt < batch; ++bt) {
      const V *pa = a.data.data() + bt * m * k;
      const V *pb = b.data.data() + bt * k * n;
      V *pc = out.data.data() + bt * m * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t kk = 0; kk < k; ++kk) {
          V av = pa[i * k + kk];
          for (int64_t j = 0; j < n; ++j)
            pc[i * n + j] = sem.add(pc[i * n + j], sem.mul(av, pb[kk * n + j]));
        }
    }
    return out;
  }

  T rmsNorm(const T &x, const T *w, double eps) const {
    int64_t n = x.shape.back();
    int64_t rows = x.size() / n;
    T out(x.shape, sem.zero());
    V count = sem.fromInt(n);
    for (int64_t r = 0; r < rows; ++r) {
      V s = sem.zero();
      for (int64_t j = 0; j < n; ++j) {
        V v = x.data[r * n + j];
        s = sem.add(s, sem.mul(v, v));
      }
      V mean = sem.div(s, count);
      if (eps != 0.0)
        mean = sem.add(mean, sem.fromDouble(eps));
      V rms = sem.unary(UnaryKind::sqrt, mean, 0.0);
      for (int64_t j = 0; j < n; ++j)
        out.data[r * n + j] = sem.div(x.data[r * n + j], rms);
    }
    if (w)
      return broadcastBinary(BinaryKind::mul, out, *w, x.shape);
    return out;
  }

  T concat(const T &a, const T &b, int64_t dim, const Shape &outShape) const {
    T out(outShape, sem.zero());
    Shape off(outShape.size(), 0);
    insertTile(a, off, out);
    off[dim] = a.shape[dim];
    insertTile(b, off, out);
    return out;
  }

  T threadGraph(const UGraph &body, llvm::ArrayRef<const T *> ins,
                const Shape &outShape, size_t numResults,
                std::vector<T> &results) const {
    results.assign(numResults, T(outShape, sem.zero()));
    std::vector<Shape> strides;
    for (const T *t : ins)
      strides.push_back(rowMajorStrides(t->shape));
    std::vector<V> scalars(body.values.size(), sem.zero());
    forEachIndex(outShape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
      for (size_t k = 0; k < ins.size(); ++k)
        scalars[body.inputs[k]] =
            ins[k]->data[broadcastOffset(ins[k]->shape, strides[k], idx)];
      for (const UOp &op : body.ops) {
        if (op.kind == OpKind::Unary)
          scalars[op.results[0]] =
              sem.unary(op.unaryKind(), scalars[op.operands[0]], op.scalar);
        else
          scalars[op.results[0]] =
              binary(op.binaryKind(), scalars[op.operands[0]],
                     scalars[op.operands[1]]);
      }
      for (size_t r = 0; r < numResults; ++r)
        results[r].data[i] = scalars[body.outputs[r]];
    });
    return T();
  }

  /// Runs a tensor operator (kernel or block level) whose operands are in
  /// `vals`, storing its results there.
  void runTensorOp(const UGraph &g, const UOp &op, std::vector<T> &vals) const {
    auto in = [&](unsigned i) -> const T & { return vals[op.operands[i]]; };
    const Shape &outShape = g.values[op.results[0]].shape;
    T &out = vals[op.results[0]];
    switch (op.kind) {
    case OpKind::Matmul:
      out = matmul(in(0), in(1), outShape);
      return;
    case OpKind::Unary: {
      T r = in(0);
      for (V &v : r.data)
        v = sem.unary(op.unaryKind(), v, op.scalar);
      out = std::move(r);
      return;
    }
    case OpKind::Binary:
      out = broadcastBinary(op.binaryKind(), in(0), in(1), outShape);
      return;
    case OpKind::Reduce:
      out = reduce(op.reduceKind(), in(0), op.dim, op.size);
      return;
    case OpKind::RmsNorm:
      out = rmsNorm(in(0), op.operands.size() > 1 ? &in(1) : nullptr,
                    op.scalar);
      return;
    case OpKind::Concat:
      out = concat(in(0), in(1), op.dim, outShape);
      return;
    case OpKind::ThreadGraph: {
      llvm::SmallVector<const T *> ins;
      for (int32_t v : op.operands)
        ins.push_back(&vals[v]);
      std::vector<T> results;
      threadGraph(g.bodies[op.body], ins, outShape, op.results.size(), results);
      for (size_t r = 0; r < results.size(); ++r)
        vals[op.results[r]] = std::move(results[r]);
      return;
    }
    default:
      assert(false && "not a tensor operator");
    }
  }
};

} // namespace mirage

#endif // MIRAGE_SEMANTICS_EVALUATOR_H
