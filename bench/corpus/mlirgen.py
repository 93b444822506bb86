"""Tiny text emitters for the frontend corpus (python3 stdlib only).

`Fn` collects the lines of one func.func; `Linalg` writes ops the way
torch-mlir's TorchToLinalg does (tensor.empty + linalg.fill inits,
linalg.generic bodies with captured scalar constants, arith.truncf of f64
Python scalars, arith.sitofp of integer scalars, size-1 input dims read
through the constant 0, keepdim reductions writing the reduced dim as 0,
tensor.expand_shape/collapse_shape for views); `Tosa` writes TOSA 1.0 ops
the way TorchToTosa and the dynamo-based importers do (tosa.const_shape +
tosa.reshape around every rank-3 tosa.matmul, tosa.transpose with perms,
equal-rank constants, shift operands of tosa.mul). Output is deterministic:
names come from counters, nothing depends on hashing or time.
"""
import os
import sys


def tty(shape, dt):
    if not shape:
        return "tensor<%s>" % dt
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), dt)


def fmt_float(v):
    r = repr(float(v))
    if "e" in r or "E" in r:
        m, e = r.lower().split("e")
        if "." not in m:
            m += ".0"
        return "%se%s" % (m, e)
    return r


class Module:
    def __init__(self, comment=""):
        self.maps = {}  # text -> name
        self.funcs = []
        self.comment = comment

    def amap(self, text):
        if text not in self.maps:
            self.maps[text] = "#map%d" % len(self.maps) if self.maps else "#map"
        return self.maps[text]

    def text(self):
        out = []
        for line in self.comment.strip("\n").splitlines():
            out.append("// " + line if line else "//")
        for t, n in self.maps.items():
            out.append("%s = affine_map<%s>" % (n, t))
        out.append("module {")
        for f in self.funcs:
            out.extend("  " + l if l else "" for l in f.text())
        out.append("}")
        return "\n".join(out) + "\n"


class Fn:
    def __init__(self, mod, name, args, results_ty=None):
        self.mod = mod
        self.name = name
        self.args = args  # list of (name, type-text)
        self.lines = []
        self.n = 0
        self.consts = {}
        self.ret = None
        mod.funcs.append(self)

    def fresh(self, hint=""):
        self.n += 1
        return "%" + (hint if hint else "") + str(self.n)

    def emit(self, line):
        self.lines.append(line)

    def scalar(self, value, ty):
        """A function-level scalar constant (deduplicated, emitted at first use)."""
        key = (repr(value), ty)
        if key not in self.consts:
            if ty.startswith("i"):
                name = "%%c%d_%s" % (int(value), ty) if value >= 0 else "%%cm%d_%s" % (-int(value), ty)
                if name in self.consts.values():
                    name = self.fresh("c")
                self.emit("%s = arith.constant %d : %s" % (name, int(value), ty))
            else:
                name = self.fresh("cst")
                self.emit("%s = arith.constant %s : %s" % (name, fmt_float(value), ty))
            self.consts[key] = name
        return self.consts[key]

    def returns(self, vals_tys):
        self.ret = vals_tys

    def text(self):
        args = ", ".join("%s: %s" % a for a in self.args)
        rtys = ", ".join(t for _, t in self.ret)
        if len(self.ret) > 1:
            rtys = "(%s)" % rtys
        out = ["func.func @%s(%s) -> %s {" % (self.name, args, rtys)]
        out.extend("  " + l for l in self.lines)
        out.append("  return %s : %s" % (", ".join(v for v, _ in self.ret),
                                          ", ".join(t for _, t in self.ret)))
        out.append("}")
        return out


class Body:
    """Emits scalar ops inside a linalg.generic region."""

    def __init__(self, fn, dt):
        self.fn = fn
        self.dt = dt
        self.lines = []

    def op(self, name, *operands, ty=None):
        r = self.fn.fresh()
        self.lines.append("%s = %s %s : %s" % (r, name, ", ".join(operands), ty or self.dt))
        return r

    def raw(self, fmt, *operands):
        r = self.fn.fresh()
        self.lines.append(("%s = " % r) + fmt.format(*operands))
        return r


def dims(n):
    return ["d%d" % i for i in range(n)]


class Linalg:
    """torch-mlir TorchToLinalg forms."""

    def __init__(self, fn, dt="f32"):
        self.fn = fn
        self.dt = dt

    def empty(self, shape, dt=None):
        v = self.fn.fresh()
        self.fn.emit("%s = tensor.empty() : %s" % (v, tty(shape, dt or self.dt)))
        return v

    def fill(self, shape, value, dt=None):
        dt = dt or self.dt
        c = self.fn.scalar(value, dt)
        e = self.empty(shape, dt)
        v = self.fn.fresh()
        t = tty(shape, dt)
        self.fn.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (v, c, dt, e, t, t))
        return v

    def bcast_map(self, in_shape, out_rank, dim_of=None):
        """Map of an input read element-wise against an out_rank loop nest:
        trailing alignment (torch broadcasting), size-1 dims as 0."""
        d = dims(out_rank)
        if dim_of is None:
            off = out_rank - len(in_shape)
            dim_of = [off + i for i in range(len(in_shape))]
        exprs = ["0" if s == 1 else d[j] for s, j in zip(in_shape, dim_of)]
        return "(%s) -> (%s)" % (", ".join(d), ", ".join(exprs))

    def generic(self, ins, out_shape, body, iters=None, out_map=None, init=None,
                out_dt=None, extra_outs=()):
        """ins: list of (value, shape, dt, map-text or None for broadcast map).
        body(b, args, out) -> list of yielded values."""
        rank = len(out_shape) if iters is None else len(iters)
        iters = iters or ["parallel"] * rank
        out_dt = out_dt or self.dt
        if init is None:
            init = self.empty(out_shape, out_dt)
        omap = out_map or "(%s) -> (%s)" % (", ".join(dims(rank)), ", ".join(dims(rank)))
        maps = []
        for v, s, dt, m in ins:
            maps.append(self.fn.mod.amap(m or self.bcast_map(s, rank)))
        outs = [(init, out_shape, out_dt, omap)] + list(extra_outs)
        for _, _, _, m in outs:
            maps.append(self.fn.mod.amap(m))
        b = Body(self.fn, out_dt)
        args = []
        for i, (_, _, dt, _) in enumerate(ins):
            args.append(("%in" if i == 0 else "%%in_%d" % (i - 1), dt))
        oargs = []
        for i, (_, _, dt, _) in enumerate(outs):
            oargs.append(("%out" if i == 0 else "%%out_%d" % (i - 1), dt))
        ys = body(b, [a for a, _ in args], [a for a, _ in oargs])
        res = self.fn.fresh()
        rtys = [tty(s, dt) for _, s, dt, _ in outs]
        if len(outs) > 1:
            resname = "%s:%d" % (res, len(outs))
        else:
            resname = res
        ins_txt = ""
        if ins:
            ins_txt = " ins(%s : %s)" % (", ".join(v for v, _, _, _ in ins),
                                         ", ".join(tty(s, dt) for _, s, dt, _ in ins))
        self.fn.emit('%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}%s outs(%s : %s) {'
                     % (resname, ", ".join(maps), ", ".join('"%s"' % i for i in iters), ins_txt,
                        ", ".join(v for v, _, _, _ in outs), ", ".join(rtys)))
        self.fn.emit("^bb0(%s):" % ", ".join("%s: %s" % a for a in args + oargs))
        for l in b.lines:
            self.fn.emit("  " + l)
        self.fn.emit("  linalg.yield %s : %s" % (", ".join(ys), ", ".join(dt for _, dt in oargs)))
        self.fn.emit("} -> %s" % (", ".join(rtys) if len(rtys) == 1 else "(%s)" % ", ".join(rtys)))
        if len(outs) > 1:
            return ["%s#%d" % (res, i) for i in range(len(outs))]
        return res

    # ---- element-wise helpers -------------------------------------------
    def unary(self, x, shape, fbody):
        return self.generic([(x, shape, self.dt, None)], shape, lambda b, a, o: [fbody(b, a[0])])

    def binary(self, x, xs, y, ys, out_shape, fbody, ydt=None):
        return self.generic([(x, xs, self.dt, None), (y, ys, ydt or self.dt, None)], out_shape,
                            lambda b, a, o: [fbody(b, a[0], a[1])])

    def add_tensor(self, x, xs, y, ys, out_shape):
        """aten.add.Tensor with alpha = 1: b * sitofp(1) + a."""
        one = self.fn.scalar(1, "i64")

        def f(b, p, q):
            al = b.raw("arith.sitofp %s : i64 to %s" % (one, self.dt))
            m = b.op("arith.mulf", q, al)
            return b.op("arith.addf", p, m)
        return self.binary(x, xs, y, ys, out_shape, f)

    def mul_tensor(self, x, xs, y, ys, out_shape):
        return self.binary(x, xs, y, ys, out_shape, lambda b, p, q: b.op("arith.mulf", p, q))

    def sub_tensor(self, x, xs, y, ys, out_shape):
        one = self.fn.scalar(1, "i64")

        def f(b, p, q):
            al = b.raw("arith.sitofp %s : i64 to %s" % (one, self.dt))
            m = b.op("arith.mulf", q, al)
            return b.op("arith.subf", p, m)
        return self.binary(x, xs, y, ys, out_shape, f)

    def div_int(self, x, shape, n, dt=None):
        """aten.div.Scalar by a Python int (mean's divide)."""
        dt = dt or self.dt
        c = self.fn.scalar(n, "i64")
        return self.generic([(x, shape, dt, None)], shape,
                            lambda b, a, o: [b.op("arith.divf", a[0], b.raw("arith.sitofp %s : i64 to %s" % (c, dt)), ty=dt)],
                            out_dt=dt)

    def div_float(self, x, shape, v):
        """aten.div.Scalar by a Python float: an f64 constant truncated in the body."""
        c = self.fn.scalar(v, "f64")
        return self.unary(x, shape, lambda b, a: b.op("arith.divf", a, b.raw("arith.truncf %s : f64 to %s" % (c, self.dt))))

    def add_float(self, x, shape, v):
        """aten.add.Scalar(x, eps) with alpha 1."""
        c = self.fn.scalar(v, "f64")
        one = self.fn.scalar(1, "i64")

        def f(b, a):
            t = b.raw("arith.truncf %s : f64 to %s" % (c, self.dt))
            al = b.raw("arith.sitofp %s : i64 to %s" % (one, self.dt))
            m = b.op("arith.mulf", t, al)
            return b.op("arith.addf", a, m)
        return self.unary(x, shape, f)

    def fpowi(self, x, shape, k):
        c = self.fn.scalar(k, "i64")
        return self.unary(x, shape, lambda b, a: b.raw("math.fpowi %s, %s : %s, i64" % (a, c, self.dt)))

    def sum_keepdim(self, x, shape, axis, dt=None):
        dt = dt or self.dt
        rank = len(shape)
        oshape = list(shape)
        oshape[axis] = 1
        init = self.fill(oshape, 0.0, dt)
        d = dims(rank)
        omap = "(%s) -> (%s)" % (", ".join(d), ", ".join("0" if i == axis else d[i] for i in range(rank)))
        imap = "(%s) -> (%s)" % (", ".join(d), ", ".join(d))
        iters = ["reduction" if i == axis else "parallel" for i in range(rank)]
        return self.generic([(x, shape, dt, imap)], oshape, lambda b, a, o: [b.op("arith.addf", a[0], o[0], ty=dt)],
                            iters=iters, out_map=omap, init=init, out_dt=dt), oshape

    def max_dim(self, x, shape, axis):
        """aten.max.dim (keepdim): a two-result generic, value and index."""
        rank = len(shape)
        oshape = list(shape)
        oshape[axis] = 1
        vinit = self.fill(oshape, -3.4028234663852886e38)
        iinit = self.fill(oshape, 0, "i64")
        d = dims(rank)
        omap = "(%s) -> (%s)" % (", ".join(d), ", ".join("0" if i == axis else d[i] for i in range(rank)))
        imap = "(%s) -> (%s)" % (", ".join(d), ", ".join(d))
        iters = ["reduction" if i == axis else "parallel" for i in range(rank)]

        def body(b, a, o):
            ix = b.raw("linalg.index %d : index" % axis)
            ic = b.raw("arith.index_cast %s : index to i64" % ix)
            mx = b.op("arith.maximumf", a[0], o[0])
            gt = b.raw("arith.cmpf ogt, %s, %s : %s" % (a[0], o[0], self.dt))
            sel = b.raw("arith.select %s, %s, %s : i64" % (gt, ic, o[1]))
            return [mx, sel]
        r = self.generic([(x, shape, self.dt, imap)], oshape, body, iters=iters, out_map=omap, init=vinit,
                         extra_outs=[(iinit, oshape, "i64", omap)])
        return r[0], oshape

    def softmax(self, x, shape):
        """aten._softmax decomposed: max.dim, sub, exp, sum, div."""
        ax = len(shape) - 1
        mx, ms = self.max_dim(x, shape, ax)
        d = self.sub_tensor(x, shape, mx, ms, shape)
        e = self.unary(d, shape, lambda b, a: b.op("math.exp", a))
        s, ss = self.sum_keepdim(e, shape, ax)
        return self.binary(e, shape, s, ss, shape, lambda b, p, q: b.op("arith.divf", p, q))

    # ---- layout ------------------------------------------------------------
    def expand(self, x, shape, reassoc, out_shape, dt=None):
        v = self.fn.fresh("expanded")
        self.fn.emit("%s = tensor.expand_shape %s %s output_shape [%s] : %s into %s" % (
            v, x, reassoc, ", ".join(map(str, out_shape)), tty(shape, dt or self.dt), tty(out_shape, dt or self.dt)))
        return v

    def collapse(self, x, shape, reassoc, out_shape, dt=None):
        v = self.fn.fresh("collapsed")
        self.fn.emit("%s = tensor.collapse_shape %s %s : %s into %s" % (
            v, x, reassoc, tty(shape, dt or self.dt), tty(out_shape, dt or self.dt)))
        return v

    def transpose(self, x, shape, perm):
        oshape = [shape[p] for p in perm]
        e = self.empty(oshape)
        v = self.fn.fresh("transposed")
        self.fn.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]" % (
            v, x, tty(shape, self.dt), e, tty(oshape, self.dt), ", ".join(map(str, perm))))
        return v, oshape

    def transpose_generic(self, x, shape, perm):
        """The older torch-mlir permute: a copy generic reading through a permuted map."""
        oshape = [shape[p] for p in perm]
        r = len(shape)
        d = dims(r)
        # out[i] = in[perm^-1 ...]: input dim k is read by loop j where perm[j] == k
        inv = [perm.index(k) for k in range(r)]
        imap = "(%s) -> (%s)" % (", ".join(d), ", ".join(d[inv[k]] for k in range(r)))
        return self.generic([(x, shape, self.dt, imap)], oshape, lambda b, a, o: [a[0]]), oshape

    def slice_last(self, x, shape, start, size):
        v = self.fn.fresh("extracted_slice")
        off = [0] * (len(shape) - 1) + [start]
        sz = list(shape[:-1]) + [size]
        self.fn.emit("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            v, x, ", ".join(map(str, off)), ", ".join(map(str, sz)), ", ".join("1" for _ in shape),
            tty(shape, self.dt), tty(sz, self.dt)))
        return v, sz

    def insert_last(self, x, xs, into, shape, start):
        v = self.fn.fresh("inserted_slice")
        off = [0] * (len(shape) - 1) + [start]
        self.fn.emit("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
            v, x, into, ", ".join(map(str, off)), ", ".join(map(str, xs)), ", ".join("1" for _ in shape),
            tty(xs, self.dt), tty(shape, self.dt)))
        return v

    # ---- contractions ----------------------------------------------------
    def matmul2d(self, a, b, m, k, n):
        init = self.fill([m, n], 0.0)
        v = self.fn.fresh()
        self.fn.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            v, a, b, tty([m, k], self.dt), tty([k, n], self.dt), init, tty([m, n], self.dt), tty([m, n], self.dt)))
        return v

    def batch_matmul(self, a, b, bt, m, k, n):
        init = self.fill([bt, m, n], 0.0)
        v = self.fn.fresh()
        self.fn.emit("%s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            v, a, b, tty([bt, m, k], self.dt), tty([bt, k, n], self.dt), init, tty([bt, m, n], self.dt),
            tty([bt, m, n], self.dt)))
        return v

    def matmul_3d2d(self, x, b, s, k, w, n, w_transposed=False):
        """aten.matmul of [b, s, k] by [k, n] as one generic contraction
        (d0, d1, d3), (d3, d2) -> (d0, d1, d2); w_transposed reads a [n, k]
        weight through (d2, d3)."""
        init = self.fill([b, s, n], 0.0)
        wmap = "(d0, d1, d2, d3) -> (d2, d3)" if w_transposed else "(d0, d1, d2, d3) -> (d3, d2)"
        wshape = [n, k] if w_transposed else [k, n]
        return self.generic([(x, [b, s, k], self.dt, "(d0, d1, d2, d3) -> (d0, d1, d3)"),
                             (w, wshape, self.dt, wmap)], [b, s, n],
                            lambda bb, a, o: [bb.op("arith.addf", o[0], bb.op("arith.mulf", a[0], a[1]))],
                            iters=["parallel", "parallel", "parallel", "reduction"],
                            out_map="(d0, d1, d2, d3) -> (d0, d1, d2)", init=init)


class Tosa:
    """TOSA 1.0 forms as TorchToTosa and dynamo-based importers write them."""

    def __init__(self, fn, dt="f32"):
        self.fn = fn
        self.dt = dt
        self._zp = None
        self._shift = None

    def t(self, shape, dt=None):
        return tty(shape, dt or self.dt)

    def const(self, value, shape, dt=None):
        dt = dt or self.dt
        v = self.fn.fresh()
        val = fmt_float(value) if not dt.startswith("i") else str(int(value))
        self.fn.emit('%s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s' % (v, val, self.t(shape, dt), self.t(shape, dt)))
        return v

    def zp(self):
        if self._zp is None:
            self._zp = self.const(0.0, [1])
        return self._zp

    def shift(self):
        if self._shift is None:
            self._shift = self.const(0, [1], "i8")
        return self._shift

    def shape(self, dims_):
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>" % (
            v, ", ".join(map(str, dims_)), len(dims_), len(dims_)))
        return v

    def reshape(self, x, shape, new):
        s = self.shape(new)
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.reshape %s, %s : (%s, !tosa.shape<%d>) -> %s" % (v, x, s, self.t(shape), len(new), self.t(new)))
        return v

    def transpose(self, x, shape, perm):
        o = [shape[p] for p in perm]
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.transpose %s {perms = array<i32: %s>} : (%s) -> %s" % (
            v, x, ", ".join(map(str, perm)), self.t(shape), self.t(o)))
        return v, o

    def unary(self, op, x, shape):
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.%s %s : (%s) -> %s" % (v, op, x, self.t(shape), self.t(shape)))
        return v

    def binary(self, op, x, xs, y, ys):
        o = [max(a, b) for a, b in zip(xs, ys)]
        v = self.fn.fresh()
        if op == "mul":
            self.fn.emit("%s = tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s" % (
                v, x, y, self.shift(), self.t(xs), self.t(ys), self.t(o)))
        else:
            self.fn.emit("%s = tosa.%s %s, %s : (%s, %s) -> %s" % (v, op, x, y, self.t(xs), self.t(ys), self.t(o)))
        return v, o

    def reduce(self, op, x, shape, axis):
        o = list(shape)
        o[axis] = 1
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.reduce_%s %s {axis = %d : i32} : (%s) -> %s" % (v, op, x, axis, self.t(shape), self.t(o)))
        return v, o

    def matmul(self, a, as_, b, bs):
        o = [as_[0], as_[1], bs[2]]
        v = self.fn.fresh()
        z = self.zp()
        self.fn.emit("%s = tosa.matmul %s, %s, %s, %s : (%s, %s, tensor<1x%s>, tensor<1x%s>) -> %s" % (
            v, a, b, z, z, self.t(as_), self.t(bs), self.dt, self.dt, self.t(o)))
        return v, o

    def slice(self, x, shape, start, size):
        s0 = self.shape(start)
        s1 = self.shape(size)
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.slice %s, %s, %s : (%s, !tosa.shape<%d>, !tosa.shape<%d>) -> %s" % (
            v, x, s0, s1, self.t(shape), len(shape), len(shape), self.t(size)))
        return v

    def select(self, c, cs, x, xs, y, ys):
        o = [max(a, b, d) for a, b, d in zip(cs, xs, ys)]
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.select %s, %s, %s : (%s, %s, %s) -> %s" % (
            v, c, x, y, self.t(cs, "i1"), self.t(xs), self.t(ys), self.t(o)))
        return v, o

    def cast(self, x, shape, dt_from, dt_to):
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.cast %s : (%s) -> %s" % (v, x, tty(shape, dt_from), tty(shape, dt_to)))
        return v

    def negate(self, x, shape):
        z = self.zp()
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.negate %s, %s, %s : (%s, tensor<1x%s>, tensor<1x%s>) -> %s" % (
            v, x, z, z, self.t(shape), self.dt, self.dt, self.t(shape)))
        return v

    def concat(self, xs, shapes, axis):
        o = list(shapes[0])
        o[axis] = sum(s[axis] for s in shapes)
        v = self.fn.fresh()
        self.fn.emit("%s = tosa.concat %s {axis = %d : i32} : (%s) -> %s" % (
            v, ", ".join(xs), axis, ", ".join(self.t(s) for s in shapes), self.t(o)))
        return v, o


def write_corpus(files):
    """Writes `files` (name -> text) into the directory given as the only
    argument (default: the generator's own directory). An argument that
    looks like an option is refused: `--help` is not a directory."""
    args = sys.argv[1:]
    if len(args) > 1 or (args and args[0].startswith("-")):
        sys.exit("usage: %s [OUT_DIR]   (default: %s)"
                 % (os.path.basename(sys.argv[0]),
                    os.path.dirname(os.path.abspath(sys.argv[0]))))
    out = args[0] if args else os.path.dirname(os.path.abspath(sys.argv[0]))
    os.makedirs(out, exist_ok=True)
    for n, text in files.items():
        with open(os.path.join(out, n), "w") as f:
            f.write(text)
