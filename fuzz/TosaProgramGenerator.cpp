//===- TosaProgramGenerator.cpp - TOSA programs from fuzzer bytes ---------===//
#include "TosaProgramGenerator.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

using Shape = std::vector<int64_t>;

namespace {
struct Value {
  std::string name;
  Shape shape;
};

/// `c` exactly (17 significant digits), always with a '.' or an exponent.
std::string floatLiteral(double c) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", c);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

int64_t elements(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

class Generator {
public:
  Generator(const uint8_t *data, size_t size,
            const mirage::fuzz::TosaGenOptions &options)
      : fdp(data, size), options(options) {}

  std::string run() {
    newArg(randomShape(fdp.ConsumeIntegralInRange<int>(1, 4)));
    int steps = fdp.ConsumeIntegralInRange<int>(1, 10);
    for (int i = 0; i < steps && fdp.remaining_bytes() > 0; ++i)
      step();
    // One or two results: the last value, and sometimes an earlier one.
    std::vector<Value> results{values.back()};
    if (values.size() > 1 && fdp.ConsumeBool())
      results.push_back(pick());
    std::string s = "func.func @fuzz(";
    for (size_t i = 0; i < args.size(); ++i)
      s += (i ? ", " : "") + args[i].name + ": " + tensorType(args[i].shape);
    s += ") -> (";
    for (size_t i = 0; i < results.size(); ++i)
      s += (i ? ", " : "") + tensorType(results[i].shape);
    s += ") {\n";
    s += "  %shift = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : "
         "() -> tensor<1xi8>\n";
    s += "  %zp = \"tosa.const\"() <{values = dense<0.0> : tensor<1x" +
         options.elementType + ">}> : () -> tensor<1x" + options.elementType +
         ">\n";
    s += body + "  return ";
    for (size_t i = 0; i < results.size(); ++i)
      s += (i ? ", " : "") + results[i].name;
    s += " : ";
    for (size_t i = 0; i < results.size(); ++i)
      s += (i ? ", " : "") + tensorType(results[i].shape);
    return s + "\n}\n";
  }

private:
  FuzzedDataProvider fdp;
  const mirage::fuzz::TosaGenOptions &options;
  std::vector<Value> args, values;
  std::string body;
  int next = 0;

  std::string tensorType(const Shape &s) const {
    std::string t = "tensor<";
    for (int64_t d : s)
      t += std::to_string(d) + "x";
    return t + options.elementType + ">";
  }
  bool fits(const Shape &s) const {
    return options.maxElements <= 0 || elements(s) <= options.maxElements;
  }
  int64_t randomDim() {
    return options
        .dims[fdp.ConsumeIntegralInRange<size_t>(0, options.dims.size() - 1)];
  }
  /// A shape within the element bound: while it is over, its largest dim
  /// becomes the smallest of the list.
  Shape randomShape(int rank) {
    Shape s;
    for (int i = 0; i < rank; ++i)
      s.push_back(randomDim());
    int64_t smallest =
        *std::min_element(options.dims.begin(), options.dims.end());
    while (!fits(s) && *std::max_element(s.begin(), s.end()) > smallest)
      *std::max_element(s.begin(), s.end()) = smallest;
    return s;
  }
  Value newArg(Shape s) {
    Value v{"%arg" + std::to_string(args.size()), std::move(s)};
    args.push_back(v);
    values.push_back(v);
    return v;
  }
  const Value &pick() {
    return values[fdp.ConsumeIntegralInRange<size_t>(0, values.size() - 1)];
  }
  Value emit(const std::string &op, const std::vector<Value> &operands,
             const std::string &extraOperands, const std::string &extraTypes,
             const std::string &attrs, Shape result) {
    Value v{"%v" + std::to_string(next++), std::move(result)};
    body += "  " + v.name + " = " + op + " ";
    for (size_t i = 0; i < operands.size(); ++i)
      body += (i ? ", " : "") + operands[i].name;
    body += extraOperands + attrs + " : (";
    for (size_t i = 0; i < operands.size(); ++i)
      body += (i ? ", " : "") + tensorType(operands[i].shape);
    body += extraTypes + ") -> " + tensorType(v.shape) + "\n";
    values.push_back(v);
    return v;
  }
  Value constant(double c, int rank) {
    Shape ones(rank, 1);
    Value v{"%c" + std::to_string(next++), ones};
    body += "  " + v.name + " = \"tosa.const\"() <{values = dense<" +
            floatLiteral(c) + "> : " + tensorType(ones) + "}> : () -> " +
            tensorType(ones) + "\n";
    return v;
  }
  Value binary(const std::string &op, const Value &a, const Value &b) {
    Shape out(a.shape.size());
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = std::max(a.shape[i], b.shape[i]);
    if (op == "tosa.mul")
      return emit(op, {a, b}, ", %shift", ", tensor<1xi8>", "", out);
    return emit(op, {a, b}, "", "", "", out);
  }
  Value reduce(const std::string &op, const Value &a, int axis) {
    Shape out = a.shape;
    out[axis] = 1;
    return emit(op, {a}, "", "",
                " {axis = " + std::to_string(axis) + " : i32}", out);
  }
  /// A value that broadcasts against `a`: an existing one if one fits, or a
  /// new argument with some of `a`'s dims set to 1.
  Value broadcastPartner(const Value &a) {
    if (fdp.ConsumeBool()) {
      const Value &b = pick();
      bool fits = b.shape.size() == a.shape.size();
      Shape out = a.shape;
      for (size_t i = 0; fits && i < a.shape.size(); ++i) {
        fits = a.shape[i] == b.shape[i] || a.shape[i] == 1 || b.shape[i] == 1;
        out[i] = std::max(a.shape[i], b.shape[i]);
      }
      if (fits && this->fits(out))
        return b;
    }
    Shape s = a.shape;
    for (int64_t &d : s)
      if (fdp.ConsumeIntegralInRange<int>(0, 3) == 0)
        d = 1;
    return newArg(s);
  }

  void step() {
    Value a = pick();
    int rank = (int)a.shape.size();
    int axis = fdp.ConsumeIntegralInRange<int>(0, rank - 1);
    switch (fdp.ConsumeIntegralInRange<int>(0, options.attention ? 10 : 9)) {
    case 0: {
      static const char *ops[] = {"tosa.exp",  "tosa.reciprocal",
                                  "tosa.rsqrt", "tosa.sigmoid",
                                  "tosa.tanh", "tosa.abs",
                                  "tosa.log",  "tosa.erf"};
      emit(ops[fdp.ConsumeIntegralInRange<size_t>(0, 7)], {a}, "", "", "",
           a.shape);
      return;
    }
    case 1: {
      static const char *ops[] = {"tosa.add",     "tosa.sub",
                                  "tosa.mul",     "tosa.maximum",
                                  "tosa.minimum", "tosa.pow"};
      // Sequenced: a call's arguments are evaluated in an unspecified
      // order (g++ and clang differ), and a seed must name one program.
      const char *op = ops[fdp.ConsumeIntegralInRange<size_t>(0, 5)];
      Value b = broadcastPartner(a);
      binary(op, a, b);
      return;
    }
    case 2:
      reduce(fdp.ConsumeBool() ? "tosa.reduce_sum" : "tosa.reduce_max", a,
             axis);
      return;
    case 3: {
      if (rank != 3)
        a = newArg(randomShape(3));
      int64_t n = randomDim();
      Shape bShape{a.shape[0], a.shape[2], n}, out{a.shape[0], a.shape[1], n};
      if (!fits(bShape) || !fits(out))
        return;
      Value b = newArg(bShape);
      std::string zp = ", tensor<1x" + options.elementType + ">";
      emit("tosa.matmul", {a, b}, ", %zp, %zp", zp + zp, "", out);
      return;
    }
    case 4: {
      std::vector<int> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      for (int i = rank - 1; i > 0; --i)
        std::swap(perm[i], perm[fdp.ConsumeIntegralInRange<int>(0, i)]);
      Shape out;
      std::string attr = " {perms = array<i32: ";
      for (int i = 0; i < rank; ++i) {
        out.push_back(a.shape[perm[i]]);
        attr += (i ? ", " : "") + std::to_string(perm[i]);
      }
      emit("tosa.transpose", {a}, "", "", attr + ">}", out);
      return;
    }
    case 5: {
      // Merge two adjacent dims, split one, or add a leading 1.
      Shape out = a.shape;
      int how = fdp.ConsumeIntegralInRange<int>(0, 2);
      if (how == 0 && rank > 1 && axis + 1 < rank) {
        out[axis] *= out[axis + 1];
        out.erase(out.begin() + axis + 1);
      } else if (how == 1 && rank < 4 && out[axis] % 2 == 0) {
        out[axis] /= 2;
        out.insert(out.begin() + axis, 2);
      } else if (rank < 4) {
        out.insert(out.begin(), 1);
      } else {
        return;
      }
      std::string shapeName = "%s" + std::to_string(next);
      std::string n = std::to_string(out.size());
      body += "  " + shapeName + " = tosa.const_shape {values = dense<[";
      for (size_t i = 0; i < out.size(); ++i)
        body += (i ? ", " : "") + std::to_string(out[i]);
      body += "]> : tensor<" + n + "xindex>} : () -> !tosa.shape<" + n + ">\n";
      emit("tosa.reshape", {a}, ", " + shapeName, ", !tosa.shape<" + n + ">",
           "", out);
      return;
    }
    case 6: {
      static const double cs[] = {0.5, 2.0, -1.0, 1e-5, 0.125, 3.0};
      Value c = constant(cs[fdp.ConsumeIntegralInRange<size_t>(0, 5)], rank);
      static const char *ops[] = {"tosa.mul", "tosa.add", "tosa.sub"};
      binary(ops[fdp.ConsumeIntegralInRange<size_t>(0, 2)], a, c);
      return;
    }
    case 7: { // x * rsqrt(mean(x²) + eps) over `axis`
      Value sq = binary("tosa.mul", a, a);
      Value s = reduce("tosa.reduce_sum", sq, axis);
      Value m = binary("tosa.mul", s, constant(1.0 / a.shape[axis], rank));
      Value e = binary("tosa.add", m, constant(1e-5, rank));
      Value r = emit("tosa.rsqrt", {e}, "", "", "", e.shape);
      Value y = binary("tosa.mul", a, r);
      if (fdp.ConsumeBool()) { // a gamma over the normalised axis
        Shape g(rank, 1);
        g[axis] = a.shape[axis];
        binary("tosa.mul", y, newArg(g));
      }
      return;
    }
    case 8: { // softmax over `axis`, with or without the max subtraction
      Value x = a;
      if (fdp.ConsumeBool())
        x = binary("tosa.sub", a, reduce("tosa.reduce_max", a, axis));
      Value e = emit("tosa.exp", {x}, "", "", "", x.shape);
      Value s = reduce("tosa.reduce_sum", e, axis);
      Value r = emit("tosa.reciprocal", {s}, "", "", "", s.shape);
      binary("tosa.mul", e, r);
      return;
    }
    case 9: { // x * sigmoid(x)
      Value s = emit("tosa.sigmoid", {a}, "", "", "", a.shape);
      binary("tosa.mul", a, s);
      return;
    }
    case 10: { // softmax(Q·K·c)·V over the keys, Q of rank 3
      if (rank != 3)
        a = newArg(randomShape(3));
      // Keys and value width from the larger half of the dims: a layer's
      // sizes, not the rows of one.
      auto large = [&] {
        size_t n = options.dims.size();
        return options.dims[fdp.ConsumeIntegralInRange<size_t>(n / 2, n - 1)];
      };
      int64_t keys = large();
      int64_t dv = large();
      Shape kShape{a.shape[0], a.shape[2], keys},
          sShape{a.shape[0], a.shape[1], keys}, vShape{a.shape[0], keys, dv},
          oShape{a.shape[0], a.shape[1], dv};
      if (!fits(kShape) || !fits(sShape) || !fits(vShape) || !fits(oShape))
        return;
      bool stable = fdp.ConsumeBool();
      std::string zp = ", tensor<1x" + options.elementType + ">";
      Value k = newArg(kShape);
      Value s = emit("tosa.matmul", {a, k}, ", %zp, %zp", zp + zp, "", sShape);
      Value x = binary("tosa.mul", s,
                       constant(1.0 / std::sqrt((double)a.shape[2]), 3));
      if (stable)
        x = binary("tosa.sub", x, reduce("tosa.reduce_max", x, 2));
      Value e = emit("tosa.exp", {x}, "", "", "", x.shape);
      Value sum = reduce("tosa.reduce_sum", e, 2);
      Value r = emit("tosa.reciprocal", {sum}, "", "", "", sum.shape);
      Value p = binary("tosa.mul", e, r);
      Value v = newArg(vShape);
      emit("tosa.matmul", {p, v}, ", %zp, %zp", zp + zp, "", oShape);
      return;
    }
    }
  }
};
} // namespace

std::string mirage::fuzz::generateTosaProgram(const uint8_t *data, size_t size,
                                              const TosaGenOptions &options) {
  return Generator(data, size, options).run();
}
