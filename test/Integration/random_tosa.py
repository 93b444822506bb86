#!/usr/bin/env python3
"""Property-based robustness test of `--mirage-import` on seeded random TOSA
programs.

Each program is a function over `tosa.const` inputs (f32, ranks 1-4, shapes
with broadcast unit dims) built from add/sub/mul/maximum/pow, negate, clamp,
exp, sigmoid, tanh, reciprocal, rsqrt, reduce_sum/reduce_max, matmul (rank
3), plus the composite forms frontends emit (softmax, rms_norm with weight,
silu, tanh-GELU, 1/(1+exp(-x))). The generator evaluates every program in
Python (float64 and per-op float32 rounding) and keeps only programs whose
result is finite, of moderate size and well conditioned, so that any
disagreement below is the importer's fault.

Softmax and RMS normalisation run over any non-unit axis. Each program is
imported three ways: `--mirage-import`, `--mirage-import=strict-lax=true`,
and `--mirage-import` on what upstream tosa-to-linalg makes of it (variant
`linalg`; numbers are compared there only when every graph operand is a
constant or a graph result).

Two kinds of programs:

  numeric     reshape / transpose pairs / wide clamps occur only after the
              last computation (numerically transparent); for each program
              (a) `mirage-opt --mirage-import[=strict-lax=true]` succeeds and
              its output parses and verifies again, and (b) the meaning is
              unchanged: the upstream lowering + mlir-runner output equals the
              `--mirage-evaluate=print-all` value of the last graph output
              (norm-wise relative error <= 1e-4, as compare_outputs.py).
  structural  reshapes, transposes and non-relu clamps anywhere, including
              layout changes the rest of the program works in; checks (a)
              and that every live non-relu clamp is left untouched
              (reshapes and transposes may be absorbed into graphs, issue
              22), and (b) where every graph operand is a constant, a graph
              result or a reshape/transpose of one (the evaluator gives any
              other graph operand random values).

All numeric programs of a batch run in one mlir-runner invocation.

  python3 test/Integration/random_tosa.py --count 500 --seed 7 \\
      --mirage-opt build/bin/mirage-opt
  python3 test/Integration/random_tosa.py --emit 3 --seed 7   # print program 3

Exit status 0 iff every program passed. Failing programs are kept under
--workdir (default: a temporary directory) with the commands to reproduce.
"""
import argparse
import concurrent.futures
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_outputs  # noqa: E402

F32_MAX = 3.4028235e38
RTOL = 1e-4
UPSTREAM_PIPELINE = (
    "builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,"
    "tosa-to-arith,tosa-to-tensor))")
LOWERING = [
    "--one-shot-bufferize=bufferize-function-boundaries",
    "--convert-linalg-to-loops", "--convert-scf-to-cf",
    "--expand-strided-metadata", "--lower-affine", "--convert-math-to-llvm",
    "--convert-to-llvm", "--reconcile-unrealized-casts"]


# ----------------------------------------------------------------------------
# Tensors and their semantics (float64, optionally rounded to f32 per op)
# ----------------------------------------------------------------------------
def f32(x):
    if math.isnan(x) or math.isinf(x) or abs(x) > F32_MAX:
        return x
    return struct.unpack("f", struct.pack("f", x))[0]


def ident(x):
    return x


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def strides(shape):
    s, acc = [], 1
    for d in reversed(shape):
        s.append(acc)
        acc *= d
    return list(reversed(s))


def index_iter(shape):
    idx = [0] * len(shape)
    for _ in range(numel(shape)):
        yield tuple(idx)
        for i in reversed(range(len(shape))):
            idx[i] += 1
            if idx[i] < shape[i]:
                break
            idx[i] = 0


def bshape(a, b):
    if len(a) != len(b):
        return None
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(max(x, y))
    return out


def bcast(shape, data, out):
    st = strides(shape)
    res = []
    for idx in index_iter(out):
        res.append(data[sum((i if d != 1 else 0) * s
                            for i, d, s in zip(idx, shape, st))])
    return res


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


UNARY = {
    "exp": math.exp,
    "sigmoid": sigmoid,
    "tanh": math.tanh,
    "reciprocal": lambda x: 1.0 / x,
    "rsqrt": lambda x: 1.0 / math.sqrt(x),
    "negate": lambda x: -x,
}
BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "maximum": max,
    "pow": lambda x, y: x ** y,
}


def evaluate(ops, rnd):
    """ops: list of (name, operand ids, attrs, result shape)."""
    env = {}
    for k, (name, args, at, shape) in enumerate(ops):
        try:
            if name == "const":
                d = [rnd(v) for v in at["data"]]
            elif name in UNARY:
                d = [rnd(UNARY[name](x)) for x in env[args[0]]]
            elif name == "clamp":
                d = [min(max(x, at["lo"]), at["hi"]) for x in env[args[0]]]
            elif name in BINARY:
                sa, sb = ops[args[0]][3], ops[args[1]][3]
                xa = bcast(sa, env[args[0]], shape)
                xb = bcast(sb, env[args[1]], shape)
                d = [rnd(BINARY[name](x, y)) for x, y in zip(xa, xb)]
            elif name in ("reduce_sum", "reduce_max"):
                sa, ax = ops[args[0]][3], at["axis"]
                x, st = env[args[0]], strides(sa)
                d = []
                for idx in index_iter(shape):
                    acc = 0.0 if name == "reduce_sum" else -math.inf
                    for j in range(sa[ax]):
                        i2 = list(idx)
                        i2[ax] = j
                        v = x[sum(i * s for i, s in zip(i2, st))]
                        acc = rnd(acc + v) if name == "reduce_sum" else max(acc, v)
                    d.append(acc)
            elif name == "matmul":
                sa, sb = ops[args[0]][3], ops[args[1]][3]
                a, b = env[args[0]], env[args[1]]
                B, M, K = sa
                N = sb[2]
                d = []
                for bb in range(B):
                    for m in range(M):
                        for n in range(N):
                            acc = 0.0
                            for kk in range(K):
                                acc = rnd(acc + rnd(a[(bb * M + m) * K + kk] *
                                                    b[(bb * K + kk) * N + n]))
                            d.append(acc)
            elif name == "reshape":
                d = list(env[args[0]])
            elif name == "transpose":
                sa, perm = ops[args[0]][3], at["perm"]
                x, st = env[args[0]], strides(sa)
                d = []
                for idx in index_iter(shape):
                    src = [0] * len(sa)
                    for i, p in enumerate(perm):
                        src[p] = idx[i]
                    d.append(x[sum(i * s for i, s in zip(src, st))])
            else:
                raise ValueError(name)
        except (OverflowError, ValueError, ZeroDivisionError):
            return None
        env[k] = d
    return env


# ----------------------------------------------------------------------------
# Program generator
# ----------------------------------------------------------------------------
def fl(x):
    return "%.9e" % x


def ty(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


class Program:
    def __init__(self, rng, structural):
        self.rng = rng
        self.structural = structural
        self.ops = []        # (name, args, attrs, shape)
        self.vals = {}       # id -> float64 data (evaluated eagerly)
        self.rank = rng.choice([1, 2, 3, 3, 3, 4])
        while True:
            s = [rng.choice([1, 2, 3, 4, 4, 5, 8]) for _ in range(self.rank)]
            if 4 <= numel(s) <= 128 and max(s) > 1:
                break
        self.full = s
        self.stays = 0       # ops that must stay (structural checks)

    # -- building ---------------------------------------------------------
    def add(self, name, args, attrs, shape):
        """Appends an op if it is well defined on the values so far."""
        if shape is None or any(a is None for a in args):
            return None
        if name == "const":
            d = list(attrs["data"])
        else:
            fake = [("const", [], {"data": self.vals[a]}, self.ops[a][3]) for a in args]
            fake.append((name, list(range(len(args))), attrs, shape))
            env = evaluate(fake, ident)
            if env is None:
                return None
            d = env[len(args)]
            if any(math.isnan(x) or math.isinf(x) or abs(x) > 1e6 for x in d):
                return None
        self.ops.append((name, list(args), attrs, list(shape)))
        k = len(self.ops) - 1
        self.vals[k] = d
        return k

    def shape(self, v):
        return self.ops[v][3]

    def const(self, shape=None, lo=-1.0, hi=1.0, splat=None):
        if shape is None:
            shape = [d if self.rng.random() < 0.75 else 1 for d in self.full]
        if splat is not None:
            data = [splat] * numel(shape)
        else:
            data = [round(self.rng.uniform(lo, hi), 4) for _ in range(numel(shape))]
        return self.add("const", [], {"data": data, "splat": splat is not None}, shape)

    def scalar(self, value, like=None):
        """A splat of `value` with the rank of `like` (default: the layout's)."""
        rank = self.rank if like is None else len(self.shape(like))
        return self.const([1] * rank, splat=value)

    def binop(self, name, a, b):
        if a is None or b is None:
            return None
        s = bshape(self.shape(a), self.shape(b))
        return self.add(name, [a, b], {}, s) if s is not None else None

    def unop(self, name, a):
        if a is None:
            return None
        return self.add(name, [a], {}, self.shape(a))

    def reduce(self, name, a, axis):
        if a is None:
            return None
        s = list(self.shape(a))
        s[axis] = 1
        return self.add(name, [a], {"axis": axis}, s)

    def maxabs(self, v):
        return max(abs(x) for x in self.vals[v])

    def normalize(self, v):
        """Keeps magnitudes moderate by an exact power-of-two scaling."""
        if v is None:
            return None
        m = self.maxabs(v)
        if m > 16:
            return self.binop("mul", v, self.scalar(2.0 ** -math.ceil(math.log2(m / 2)), v))
        return v

    def positive(self, v):
        """A strictly positive (>= 0.25) value derived from v."""
        if v is None or min(self.vals[v]) >= 0.25:
            return v
        c = self.rng.random()
        if c < 0.4:
            return self.binop("add", self.binop("mul", v, v), self.scalar(self.rng.choice([0.5, 1.0]), v))
        if c < 0.7:
            return self.binop("add", self.unop("sigmoid", v), self.scalar(0.5, v))
        return self.unop("exp", self.unop("tanh", v))

    def pick(self):
        """An operand, biased towards recent values."""
        live = [k for k in self.vals
                if (self.ops[k][0] != "const" or self.rng.random() < 0.3) and
                bshape(self.shape(k), self.full) == self.full]
        if not live or self.rng.random() < 0.15:
            return self.const()
        i = len(live) - 1 - min(int(self.rng.expovariate(0.6)), len(live) - 1)
        return live[i]

    # -- composite forms ----------------------------------------------------
    def norm_axis(self, x):
        """The axis a softmax/normalisation of x runs over: any non-unit axis
        (the last one half of the time, as most frontends write it; the
        others are layouts such as a key tensor stored head-dim first)."""
        s = self.shape(x)
        axes = [i for i, d in enumerate(s) if d > 1]
        if not axes:
            return None
        if s[-1] > 1 and self.rng.random() < 0.5:
            return len(s) - 1
        return self.rng.choice(axes)

    def softmax(self, x):
        ax = self.norm_axis(x)
        if ax is None:
            return None
        mx = self.reduce("reduce_max", x, ax)
        e = self.unop("exp", self.binop("sub", x, mx))
        s = self.reduce("reduce_sum", e, ax)
        return self.binop("mul", e, self.unop("reciprocal", s))

    def rms_norm(self, x):
        ax = self.norm_axis(x)
        if ax is None:
            return None
        rank = len(self.shape(x))
        n = self.shape(x)[ax]
        s = self.reduce("reduce_sum", self.binop("mul", x, x), ax)
        m = self.binop("mul", s, self.scalar(1.0 / n, x))
        y = self.binop("mul", x, self.unop("rsqrt", self.binop("add", m, self.scalar(1e-5, x))))
        if self.rng.random() < 0.6:
            g = [1] * rank
            g[ax] = n
            y = self.binop("mul", y, self.const(g, 0.5, 1.5))
        return y

    def gelu(self, x):
        x3 = self.binop("mul", self.binop("mul", x, x), x)
        inner = self.binop("add", x, self.binop("mul", x3, self.scalar(0.044715, x)))
        t = self.unop("tanh", self.binop("mul", inner, self.scalar(math.sqrt(2 / math.pi), x)))
        return self.binop("mul", self.binop("mul", x, self.scalar(0.5, x)),
                          self.binop("add", t, self.scalar(1.0, x)))

    def sigmoid_spelled(self, x):
        return self.unop("reciprocal",
                         self.binop("add", self.unop("exp", self.unop("negate", x)),
                                    self.scalar(1.0, x)))

    # -- one random step ----------------------------------------------------
    def step(self):
        r = self.rng
        x = self.pick()
        kind = r.choice(["bin"] * 6 + ["un"] * 5 + ["reduce"] * 2 +
                        (["matmul"] * 3 if self.rank == 3 else []) +
                        ["relu", "pow", "composite", "composite"] +
                        (["stay"] * 2 if self.structural else []))
        if kind == "bin":
            op = r.choice(["add", "sub", "mul", "mul", "add", "sub"])
            y = self.scalar(round(r.uniform(-2, 2), 3), x) if r.random() < 0.2 else self.pick()
            if r.random() < 0.5:
                x, y = y, x
            return self.binop(op, x, y)
        if kind == "un":
            op = r.choice(["exp", "sigmoid", "tanh", "reciprocal", "rsqrt", "negate"])
            if op == "exp" and self.maxabs(x) > 8:
                x = self.unop("tanh", x)
            if op in ("reciprocal", "rsqrt"):
                x = self.positive(x)
            return self.unop(op, x)
        if kind == "reduce":
            axes = [i for i, d in enumerate(self.shape(x)) if d > 1]
            if not axes:
                return None
            return self.reduce(r.choice(["reduce_sum", "reduce_max"]), x, r.choice(axes))
        if kind == "matmul":
            B, M, N = self.full
            if r.random() < 0.5 and self.shape(x) == self.full:
                return self.add("matmul", [x, self.const([B, N, N])], {}, [B, M, N])
            K = r.choice([1, 2, 4, 8])
            a = self.const([B, M, K])
            b = self.const([B, K, N])
            if r.random() < 0.5:
                a = self.unop(r.choice(["tanh", "sigmoid", "exp"]), a)
            return self.add("matmul", [a, b], {}, [B, M, N])
        if kind == "relu":
            if r.random() < 0.7:
                return self.add("clamp", [x], {"lo": 0.0, "hi": F32_MAX}, self.shape(x))
            return self.binop("maximum", x, self.scalar(0.0, x))
        if kind == "pow":
            p = self.positive(x)
            if r.random() < 0.7:
                e = self.scalar(r.choice([2.0, 0.5, -0.5, -1.0, 1.0, 3.0, 1.5]), p)
            else:
                e = self.const(lo=0.5, hi=2.0)
            return self.binop("pow", p, e)
        if kind == "composite":
            f = r.choice([self.softmax, self.rms_norm, self.gelu, self.sigmoid_spelled,
                          lambda v: self.binop("mul", v, self.unop("sigmoid", v))])
            return f(x)
        if kind == "stay":
            return self.stay(x)
        return None

    def stay(self, x):
        """Structural mode: ops the importer must leave untouched."""
        r = self.rng
        c = r.random()
        s = self.shape(x)
        if c < 0.3:
            return self.relayout(x)
        c = r.random()
        if c < 0.15:
            return self.binop("maximum", x, self.pick())
        if c < 0.4:
            y = self.reshape(x, self.other_shape(s))
            return self.reshape(y, s) if y is not None else None
        if c < 0.8 and len(s) > 1:
            perm = list(range(len(s)))
            while perm == sorted(perm):
                r.shuffle(perm)
            t = self.transpose(x, perm)
            inv = [perm.index(i) for i in range(len(s))]
            return self.transpose(t, inv) if t is not None else None
        self.stays += 1
        return self.add("clamp", [x], {"lo": -0.5, "hi": 0.75}, s)

    def relayout(self, x):
        """A transpose or reshape that stays: the rest of the program works in
        the new layout (its shape becomes the one operands broadcast to), so
        reductions and normalisations follow over axes that moved."""
        s = self.shape(x)
        if len(s) > 1 and self.rng.random() < 0.6:
            perm = list(range(len(s)))
            while perm == sorted(perm):
                self.rng.shuffle(perm)
            y = self.transpose(x, perm)
        else:
            y = self.reshape(x, self.other_shape(s))
        if y is not None:
            self.full = list(self.shape(y))
            self.rank = len(self.full)
        return y

    def other_shape(self, s):
        n = numel(s)
        divs = [d for d in range(1, n + 1) if n % d == 0]
        for _ in range(20):
            rank = self.rng.randint(1, 4)
            out = []
            rest = n
            for _ in range(rank - 1):
                d = self.rng.choice([d for d in divs if rest % d == 0])
                out.append(d)
                rest //= d
            out.append(rest)
            if out != list(s):
                return out
        return [n] if [n] != list(s) else [1, n]

    def reshape(self, x, shape):
        self.stays += 1
        return self.add("reshape", [x], {}, shape)

    def transpose(self, x, perm):
        s = self.shape(x)
        self.stays += 1
        return self.add("transpose", [x], {"perm": perm}, [s[p] for p in perm])

    # -- whole program --------------------------------------------------------
    def build(self, nsteps):
        for _ in range(3):
            self.const()
        last = None
        for _ in range(nsteps):
            v = self.normalize(self.step())
            if v is not None and self.ops[v][0] != "const":
                last = v
        if last is None:
            return None
        # Fold in dangling non-constant values so that they are observable.
        used = {a for (_, args, _, _) in self.ops for a in args}
        for k in list(self.vals):
            if k != last and k not in used and self.ops[k][0] != "const" and \
                    self.rng.random() < 0.5:
                v = self.binop("add", last, k)
                if v is not None and bshape(self.shape(v), self.shape(last)) == self.shape(v):
                    last = self.normalize(v)
        if last is None or self.ops[last][0] in ("reshape", "transpose", "clamp"):
            return None
        self.sink = last
        # Numerically transparent tails (both modes).
        c = self.rng.random()
        out = last
        if c < 0.2:
            out = self.reshape(out, self.other_shape(self.shape(out)))
        elif c < 0.35 and len(self.shape(out)) > 1:
            rank = len(self.shape(out))
            perm = list(range(rank))
            self.rng.shuffle(perm)
            t = self.transpose(out, perm)
            out = self.transpose(t, [perm.index(i) for i in range(rank)])
        elif c < 0.45:
            self.stays += 1
            out = self.add("clamp", [out], {"lo": -1e6, "hi": 1e6}, self.shape(out))
        self.out = out
        return self

    def well_conditioned(self):
        exact = evaluate(self.ops, ident)
        rounded = evaluate(self.ops, f32)
        if exact is None or rounded is None:
            return False
        a, b = exact[self.out], rounded[self.out]
        scale = max(abs(x) for x in a)
        if not (1e-3 < scale < 1e4):
            return False
        return max(abs(x - y) for x, y in zip(a, b)) <= 1e-6 * scale

    def stay_counts(self, kinds=("reshape", "transpose", "clamp"), upstream_folds=False):
        """(live, total) ops of `kinds` that stay (clamps: other than relu;
        with `upstream_folds`, transposes other than the identity, which
        upstream tosa-to-linalg folds away)."""
        live = {self.out}
        for k in range(len(self.ops) - 1, -1, -1):
            if k in live:
                live.update(self.ops[k][1])

        def is_stay(op):
            if op[0] not in kinds:
                return False
            if op[0] == "transpose" and upstream_folds:
                return op[2]["perm"] != sorted(op[2]["perm"])
            return op[0] != "clamp" or not (op[2]["lo"] == 0.0 and op[2]["hi"] >= 3e38)
        total = [k for k, op in enumerate(self.ops) if is_stay(op)]
        return len([k for k in total if k in live]), len(total)

    # -- printing -----------------------------------------------------------
    def text(self, fname):
        live, total = self.stay_counts()
        tlive, ttotal = self.stay_counts(("transpose",), upstream_folds=True)
        clive, ctotal = self.stay_counts(("clamp",))
        L = [f"// stays: live={live} total={total}",
             f"// transposes: live={tlive} total={ttotal}",
             f"// clamps: live={clive} total={ctotal}", f"func.func @{fname}() {{"]
        names = {}
        need_shift = need_zp = False
        body = []
        for k, (name, args, at, shape) in enumerate(self.ops):
            v = f"%v{k}"
            names[k] = v
            a = [names[i] for i in args]
            ta = [ty(self.ops[i][3]) for i in args]
            t = ty(shape)
            if name == "const":
                if at["splat"]:
                    lit = fl(at["data"][0])
                else:
                    lit = nested(at["data"], shape)
                body.append(f'{v} = "tosa.const"() <{{values = dense<{lit}> : {t}}}> : () -> {t}')
            elif name == "mul":
                need_shift = True
                body.append(f"{v} = tosa.mul {a[0]}, {a[1]}, %shift : ({ta[0]}, {ta[1]}, tensor<1xi8>) -> {t}")
            elif name in BINARY:
                body.append(f"{v} = tosa.{name} {a[0]}, {a[1]} : ({ta[0]}, {ta[1]}) -> {t}")
            elif name == "negate":
                need_zp = True
                body.append(f"{v} = tosa.negate {a[0]}, %zp, %zp : ({ta[0]}, tensor<1xf32>, tensor<1xf32>) -> {t}")
            elif name in UNARY:
                body.append(f"{v} = tosa.{name} {a[0]} : ({ta[0]}) -> {t}")
            elif name == "clamp":
                body.append(f"{v} = tosa.clamp {a[0]} {{min_val = {fl(at['lo'])} : f32, max_val = {fl(at['hi'])} : f32}} : ({ta[0]}) -> {t}")
            elif name in ("reduce_sum", "reduce_max"):
                body.append(f"{v} = tosa.{name} {a[0]} {{axis = {at['axis']} : i32}} : ({ta[0]}) -> {t}")
            elif name == "matmul":
                need_zp = True
                body.append(f"{v} = tosa.matmul {a[0]}, {a[1]}, %zp, %zp : ({ta[0]}, {ta[1]}, tensor<1xf32>, tensor<1xf32>) -> {t}")
            elif name == "reshape":
                n = len(shape)
                body.append(f"{v}s = tosa.const_shape {{values = dense<[{', '.join(map(str, shape))}]> : tensor<{n}xindex>}} : () -> !tosa.shape<{n}>")
                body.append(f"{v} = tosa.reshape {a[0]}, {v}s : ({ta[0]}, !tosa.shape<{n}>) -> {t}")
            elif name == "transpose":
                body.append(f"{v} = tosa.transpose {a[0]} {{perms = array<i32: {', '.join(map(str, at['perm']))}>}} : ({ta[0]}) -> {t}")
        if need_shift:
            L.append('  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
        if need_zp:
            L.append('  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>')
        # Only ops that reach the output (dead ones would just be dropped).
        L += ["  " + s for s in body]
        L.append(f"  %printed = tensor.cast {names[self.out]} : {ty(self.ops[self.out][3])} to tensor<*xf32>")
        L.append("  call @printMemrefF32(%printed) : (tensor<*xf32>) -> ()")
        L.append("  return")
        L.append("}")
        return "\n".join(L) + "\n"


def nested(data, shape):
    if not shape:
        return fl(data[0])
    if len(shape) == 1:
        return "[" + ", ".join(fl(x) for x in data) + "]"
    step = numel(shape[1:])
    return "[" + ", ".join(nested(data[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def generate(seed, index, structural):
    """Program `index` of the run seeded `seed`; retried until well formed."""
    for attempt in range(100):
        rng = random.Random(f"{seed}/{index}/{structural}/{attempt}")
        p = Program(rng, structural).build(rng.randint(3, 10))
        if p is not None and p.well_conditioned():
            p.attempts = attempt + 1
            return p
    raise RuntimeError(f"could not generate program {index}")


# ----------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------
DECL = "func.func private @printMemrefF32(tensor<*xf32>)\n"
STAY_RE = re.compile(r"\btosa\.(clamp)\b")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


CLAMP_RE = re.compile(r"(min_val|max_val) = ([-+0-9.eE]+)")


def count_stays(text):
    """Clamps other than relu."""
    n = 0
    for line in text.splitlines():
        m = STAY_RE.search(line)
        if not m:
            continue
        if m.group(1) == "clamp":
            b = dict((k, float(v)) for k, v in CLAMP_RE.findall(line))
            if b.get("min_val") == 0.0 and b.get("max_val", 0.0) >= 3e38:
                continue
        n += 1
    return n


def check_import(args, path, variant, structural):
    """(a): import succeeds, the output parses and verifies; for structural
    programs the stay-ops are untouched. Variant `linalg` imports the
    program upstream's tosa-to-linalg made of it. Returns (error, imported
    path)."""
    src_path = path
    if variant == "linalg":
        src_path = path[:-5] + ".upstream-linalg.mlir"
        r = run([args.mlir_opt, path, "--pass-pipeline=" + UPSTREAM_PIPELINE,
                 "-o", src_path])
        if r.returncode != 0:
            return f"upstream tosa-to-linalg failed: {r.stderr[-2000:]}", None
        opt = "--mirage-import"
    else:
        opt = "--mirage-import=" + variant if variant else "--mirage-import"
    out = path[:-5] + "." + (variant.replace("=", "_") or "default") + ".mlir"
    # mirage-opt verifies the IR after every pass: a pass that emits invalid
    # IR makes it exit non-zero, and so does a crash.
    r = run([args.mirage_opt, src_path, opt, "-o", out])
    if r.returncode != 0:
        return f"mirage-opt {opt} failed (rc {r.returncode}): {r.stderr[-2000:]}", None
    if "left this function unchanged" in r.stderr:
        # The pass's last line of defence fired: it would have emitted
        # invalid IR.
        return f"mirage-opt {opt} rolled the import back: {r.stderr[-2000:]}", None
    # The printed output parses and verifies again, and round-trips.
    r = run([args.mirage_opt, out, "--verify-roundtrip", "-o", os.devnull])
    if r.returncode != 0:
        return f"imported output does not parse/verify/round-trip: {r.stderr[-2000:]}", None
    src, dst = open(path).read(), open(out).read()
    # Non-relu clamps have no kernel form: every live one stays. Reshapes
    # and transposes are layout changes the importer absorbs where the
    # kernel ops can express them (issue 22), so they are not counted.
    if variant != "linalg":
        live, total = map(int, re.search(r"clamps: live=(\d+) total=(\d+)", src).groups())
        if not live <= count_stays(dst) <= total:
            return (f"non-relu clamp ops not left untouched: "
                    f"{live} live, {total} in all, {count_stays(dst)} after import"), None
    # (Upstream's linalg form may leave nothing importable: a computation
    # that hangs off a generic over splat constants only.)
    if "mirage_kernel.graph" not in dst and variant != "linalg":
        return "no graph created", None
    return None, out


DEF_RE = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)? = \"?([\w.]+)")
GRAPH_RE = re.compile(r"mirage_kernel\.graph(?: \"[^\"]*\")?(?: reference \"[^\"]*\")?\s*\(([^)]*)\)")


VIEW_OPS = ("tensor.expand_shape", "tensor.collapse_shape", "tosa.reshape",
            "linalg.transpose", "tosa.transpose")
FIRST_OPERAND_RE = re.compile(r"(%[\w.$-]+(?:#\d+)?)")


def graphs_closed(text):
    """Whether every operand of every graph is a constant or a graph result,
    or a reshape or transpose of one: only then does `--mirage-evaluate`
    compute what the program computes (it gives any other graph operand
    random values)."""
    defs = {}
    for line in text.splitlines():
        m = DEF_RE.match(line)
        if m:
            rest = line[m.end():]
            src = FIRST_OPERAND_RE.search(rest)
            defs.setdefault(m.group(1), (m.group(2), src.group(1) if src else None))
    for m in GRAPH_RE.finditer(text):
        for operand in filter(None, (o.strip() for o in m.group(1).split(","))):
            name = operand.split("#")[0]
            for _ in range(64):
                d, src = defs.get(name, (None, None))
                if d not in VIEW_OPS or src is None:
                    break
                name = src.split("#")[0]
            if d not in ("arith.constant", "tosa.const", "mirage_kernel.graph"):
                return False
    return True


CAST_RE = re.compile(r"tensor\.cast (%[\w.$-]+(?:#\d+)?)")


def output_from_graph(text):
    """Whether the printed value is a graph result, seen through reshapes,
    transposes and tosa clamps (the numerically transparent tails): only
    then is a graph output the program's value."""
    return printed_graph_output(text) is not None


GRAPH_DEF_RE = re.compile(r"^\s*(%[\w.$-]+)(?::(\d+))? = \"?mirage_kernel\.graph\b",
                          re.M)


def printed_graph_output(text):
    """The position, among the graph outputs `--mirage-evaluate=print-all`
    prints (graphs in textual order, each output in order), of the graph
    result the program prints, seen through the tails above; None when it
    is not a graph result. (Not simply the last output: a graph the program
    computes and never reads may come after it.)"""
    defs = {}
    for line in text.splitlines():
        m = DEF_RE.match(line)
        if m:
            src = FIRST_OPERAND_RE.search(line[m.end():])
            defs.setdefault(m.group(1), (m.group(2), src.group(1) if src else None))
    m = CAST_RE.search(text)
    if not m:
        return False
    full = m.group(1)
    for _ in range(64):
        d, src = defs.get(full.split("#")[0], (None, None))
        if d not in VIEW_OPS + ("tosa.clamp",) or src is None:
            break
        full = src
    if d != "mirage_kernel.graph":
        return None
    name, _, res = full.partition("#")
    position = 0
    for g in GRAPH_DEF_RE.finditer(text):
        if g.group(1) == name:
            return position + (int(res) if res else 0)
        position += int(g.group(2) or 1)
    return None


def mirage_value(args, imported):
    r = run([args.mirage_opt, imported, "--mirage-evaluate=print-all", "-o", os.devnull])
    if r.returncode != 0:
        return None, f"mirage-evaluate failed: {r.stderr[-2000:]}"
    vals = compare_outputs.mirage_tensors(r.stderr)
    if not vals:
        return None, "no graph output printed"
    k = printed_graph_output(open(imported).read())
    if k is None:
        return vals[-1], None  # numeric programs: the output is the last
    if k >= len(vals):
        return None, f"graph output {k} not printed ({len(vals)} printed)"
    return vals[k], None


def upstream_values(args, names, texts, path):
    with open(path, "w") as f:
        for t in texts:
            f.write(t + "\n")
        f.write("func.func @main() {\n")
        for n in names:
            f.write(f"  call @{n}() : () -> ()\n")
        f.write("  return\n}\n" + DECL)
    libs = ",".join(os.path.join(args.lib_dir, l) for l in
                    ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    p1 = run([args.mlir_opt, path, "--pass-pipeline=" + UPSTREAM_PIPELINE])
    if p1.returncode != 0:
        return None, "upstream tosa lowering failed: " + p1.stderr[-2000:]
    p2 = run([args.mlir_opt] + LOWERING, input=p1.stdout)
    if p2.returncode != 0:
        return None, "upstream lowering failed: " + p2.stderr[-2000:]
    p3 = run([args.mlir_runner, "-e", "main", "-entry-point-result=void",
              "-shared-libs=" + libs], input=p2.stdout)
    if p3.returncode != 0:
        return None, "mlir-runner failed: " + p3.stderr[-2000:]
    vals = compare_outputs.upstream_tensors(p3.stdout)
    if len(vals) != len(names):
        return None, f"{len(vals)} printed tensors for {len(names)} programs"
    return vals, None


def rel_error(a, b):
    if len(a) != len(b):
        return math.inf
    scale = max([abs(x) for x in b] + [1e-30])
    return max(abs(x - y) for x, y in zip(a, b)) / scale


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=30, help="numeric programs")
    ap.add_argument("--structural", type=int, default=10, help="structural programs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=40, help="programs per mlir-runner call")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--variants", default=",strict-lax=true,linalg",
                    help="comma-separated --mirage-import options ('' = default; "
                    "'linalg' = default import of upstream tosa-to-linalg's output)")
    ap.add_argument("--mirage-opt", default="mirage-opt")
    ap.add_argument("--mlir-opt", default="mlir-opt")
    ap.add_argument("--mlir-runner", default="mlir-runner")
    ap.add_argument("--lib-dir", default="/usr/lib/llvm-22/lib")
    ap.add_argument("--workdir")
    ap.add_argument("--emit", type=int, help="print numeric program N and exit")
    ap.add_argument("--emit-structural", type=int, help="print structural program N and exit")
    args = ap.parse_args()

    if args.emit is not None or args.emit_structural is not None:
        structural = args.emit is None
        n = args.emit if not structural else args.emit_structural
        sys.stdout.write(generate(args.seed, n, structural).text("main") + DECL)
        return 0

    work = args.workdir or tempfile.mkdtemp(prefix="random-tosa-")
    os.makedirs(work, exist_ok=True)
    variants = args.variants.split(",")
    failures = []
    stats = {"ops": 0, "attempts": 0, "graphs": 0, "incomparable": 0}

    def write(kind, i, p):
        name = f"{kind}{i}"
        path = os.path.join(work, name + ".mlir")
        with open(path, "w") as f:
            f.write(p.text(name) + DECL)
        stats["ops"] += len(p.ops)
        stats["attempts"] += p.attempts
        return name, path

    def check_one(kind, i, path, structural, upstream):
        errs = []
        for var in variants:
            err, imported = check_import(args, path, var, structural)
            if err:
                errs.append(f"[{var or 'default'}] {err}")
                continue
            stats["graphs"] += open(imported).read().count("mirage_kernel.graph")
            if upstream is None:
                continue
            text = open(imported).read()
            if (var == "linalg" or structural) and (
                    "mirage_kernel.graph" not in text or not graphs_closed(text)
                    or not output_from_graph(text)):
                # An op with no kernel form (a clamp, a reshape that merges
                # dims, upstream's linalg form of a clamp) sits between
                # graphs or computes the output: numbers are not
                # comparable, the checks above still apply.
                stats["incomparable"] += 1
                continue
            val, err = mirage_value(args, imported)
            if err:
                errs.append(f"[{var or 'default'}] {err}")
                continue
            e = rel_error(val, upstream)
            if not e <= RTOL:
                errs.append(f"[{var or 'default'}] output differs from upstream: "
                            f"relative error {e:.3g} > {RTOL} "
                            f"({len(val)} vs {len(upstream)} values)")
        return [(f"{kind}{i}", path, e) for e in errs]

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)

    def run_kind(kind, count, structural):
        """Programs of one kind in batches sharing one mlir-runner
        invocation; returns the names of those that failed."""
        failed = set()
        for start in range(0, count, args.batch):
            idx = range(start, min(start + args.batch, count))
            progs = [generate(args.seed, i, structural) for i in idx]
            named = [write(kind, i, p) for i, p in zip(idx, progs)]
            texts = [p.text(n) for p, (n, _) in zip(progs, named)]
            ups, err = upstream_values(args, [n for n, _ in named], texts,
                                       os.path.join(work, f"upstream-{kind}{start}.mlir"))
            if err:
                for n, path in named:
                    failures.append((n, path, "upstream batch: " + err))
                    failed.add(n)
                continue
            futs = [pool.submit(check_one, kind, i, path, structural, up)
                    for i, (n, path), up in zip(idx, named, ups)]
            for f in futs:
                for fail in f.result():
                    failures.append(fail)
                    failed.add(fail[0])
        return failed

    numeric_failed = run_kind("p", args.count, False)
    # Structural programs the same way: with layout changes absorbed into
    # graphs (issue 22), their numbers compare wherever every graph operand
    # is known (see graphs_closed).
    structural_failed = run_kind("s", args.structural, True)

    total = args.count + args.structural
    print(f"seed {args.seed}: {args.count} numeric programs: "
          f"{args.count - len(numeric_failed)} passed, {len(numeric_failed)} failed")
    print(f"seed {args.seed}: {args.structural} structural programs: "
          f"{args.structural - len(structural_failed)} passed, {len(structural_failed)} failed")
    print(f"{stats['ops']} TOSA ops in {total} programs "
          f"({stats['attempts'] - total} rejected drafts), "
          f"{stats['graphs']} graphs over {len(variants)} import variants; "
          f"{stats['incomparable']} imports with an op between graphs "
          f"(numbers not compared: linalg variant, structural programs)")
    for n, path, e in failures:
        print(f"FAIL {n} ({path}): {e}")
    if not failures and not args.workdir:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
