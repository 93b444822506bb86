#!/usr/bin/env python3
"""Writes the six paper workloads (Mirage OSDI'25, §8) as TOSA and linalg
programs, and the CPU ground-truth integration tests.

  examples/workloads/tosa/<name>.mlir    functions over arguments
  examples/workloads/linalg/<name>.mlir  same computation in linalg on tensors
  test/Integration/CPU/<name>-{tosa,linalg}.mlir
      `main` with seeded constant inputs, run once through the upstream
      lowering and mlir-runner and once through mirage-import +
      mirage-evaluate; compare_outputs.py checks that they agree.

Shapes are small versions of the paper's (reference §6). Run from the
repository root: python3 examples/workloads/gen_workloads.py
"""
import os
import random

F = "f32"


def fl(x):
    return "%.9e" % x


def ty(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + F + ">"


class Prog:
    def __init__(self):
        self.lines = []
        self.n = 0

    def fresh(self, hint="v"):
        self.n += 1
        return f"%{hint}{self.n}"

    def emit(self, s):
        self.lines.append("  " + s)


# ----------------------------------------------------------------------------
# TOSA builder
# ----------------------------------------------------------------------------
class Tosa(Prog):
    def __init__(self):
        super().__init__()
        self.shapes = {}
        self.consts = {}

    def const(self, shape, value):
        key = (tuple(shape), value)
        if key in self.consts:
            return self.consts[key]
        v = self.fresh("c")
        self.emit(f'{v} = "tosa.const"() <{{values = dense<{fl(value)}> : {ty(shape)}}}> : () -> {ty(shape)}')
        self.shapes[v] = shape
        self.consts[key] = v
        return v

    def shift(self):
        if "shift" not in self.consts:
            self.emit('%shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
            self.consts["shift"] = "%shift"
        return "%shift"

    def zp(self):
        if "zp" not in self.consts:
            self.emit(f'%zp = "tosa.const"() <{{values = dense<0.0> : tensor<1x{F}>}}> : () -> tensor<1x{F}>')
            self.consts["zp"] = "%zp"
        return "%zp"

    def bcast(self, a, b):
        return [max(x, y) for x, y in zip(self.shapes[a], self.shapes[b])]

    def binop(self, name, a, b):
        out = self.bcast(a, b)
        v = self.fresh()
        if name == "mul":
            s = self.shift()
            self.emit(f"{v} = tosa.mul {a}, {b}, {s} : ({ty(self.shapes[a])}, {ty(self.shapes[b])}, tensor<1xi8>) -> {ty(out)}")
        else:
            self.emit(f"{v} = tosa.{name} {a}, {b} : ({ty(self.shapes[a])}, {ty(self.shapes[b])}) -> {ty(out)}")
        self.shapes[v] = out
        return v

    def unop(self, name, a):
        v = self.fresh()
        self.emit(f"{v} = tosa.{name} {a} : ({ty(self.shapes[a])}) -> {ty(self.shapes[a])}")
        self.shapes[v] = self.shapes[a]
        return v

    def reduce(self, name, a, axis):
        out = list(self.shapes[a])
        out[axis] = 1
        v = self.fresh()
        self.emit(f"{v} = tosa.reduce_{name} {a} {{axis = {axis} : i32}} : ({ty(self.shapes[a])}) -> {ty(out)}")
        self.shapes[v] = out
        return v

    def matmul(self, a, b):
        sa, sb = self.shapes[a], self.shapes[b]
        out = [sa[0], sa[1], sb[2]]
        z = self.zp()
        v = self.fresh()
        self.emit(f"{v} = tosa.matmul {a}, {b}, {z}, {z} : ({ty(sa)}, {ty(sb)}, tensor<1x{F}>, tensor<1x{F}>) -> {ty(out)}")
        self.shapes[v] = out
        return v

    # Compound forms, written the way frontends decompose them.
    def scalar(self, like, value):
        return self.const([1] * len(self.shapes[like]), value)

    def rms_norm(self, x, eps=1e-5, gamma=None):
        r = len(self.shapes[x])
        n = self.shapes[x][-1]
        sq = self.binop("mul", x, x)
        s = self.reduce("sum", sq, r - 1)
        m = self.binop("mul", s, self.scalar(x, 1.0 / n))
        me = self.binop("add", m, self.scalar(x, eps))
        rs = self.unop("rsqrt", me)
        y = self.binop("mul", x, rs)
        if gamma is not None:
            y = self.binop("mul", y, gamma)
        return y

    def silu(self, x):
        return self.binop("mul", x, self.unop("sigmoid", x))

    def softmax_last(self, x):
        r = len(self.shapes[x])
        mx = self.reduce("max", x, r - 1)
        e = self.unop("exp", self.binop("sub", x, mx))
        s = self.reduce("sum", e, r - 1)
        return self.binop("mul", e, self.unop("reciprocal", s))


# ----------------------------------------------------------------------------
# linalg builder (linalg.generic with keep-dim reductions, named matmuls)
# ----------------------------------------------------------------------------
class Linalg(Prog):
    def __init__(self):
        super().__init__()
        self.shapes = {}

    def dims(self, r):
        return ", ".join(f"d{i}" for i in range(r))

    def in_map(self, shape, out):
        es = []
        for i, (a, b) in enumerate(zip(shape, out)):
            es.append(f"d{i}" if a == b else "0")
        return f"affine_map<({self.dims(len(out))}) -> ({', '.join(es)})>"

    def empty(self, shape):
        v = self.fresh("e")
        self.emit(f"{v} = tensor.empty() : {ty(shape)}")
        return v

    def fill(self, shape, value):
        e = self.empty(shape)
        c = self.fresh("cst")
        self.emit(f"{c} = arith.constant {fl(value)} : {F}")
        v = self.fresh("f")
        self.emit(f"{v} = linalg.fill ins({c} : {F}) outs({e} : {ty(shape)}) -> {ty(shape)}")
        return v

    def generic(self, ins, out_shape, body, consts=()):
        """body(args) -> list of body lines using block args %a0.. and
        returning the yielded value name."""
        r = len(out_shape)
        e = self.empty(out_shape)
        maps = [self.in_map(self.shapes[i], out_shape) for i in ins]
        maps.append(f"affine_map<({self.dims(r)}) -> ({self.dims(r)})>")
        its = ", ".join(['"parallel"'] * r)
        v = self.fresh()
        ins_s = ", ".join(ins)
        ins_t = ", ".join(ty(self.shapes[i]) for i in ins)
        self.emit(f"{v} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{its}]}} ins({ins_s} : {ins_t}) outs({e} : {ty(out_shape)}) {{")
        args = ", ".join(f"%a{i}: {F}" for i in range(len(ins) + 1))
        self.emit(f"^bb0({args}):")
        lines, res = body([f"%a{i}" for i in range(len(ins))])
        for l in lines:
            self.emit("  " + l)
        self.emit(f"  linalg.yield {res} : {F}")
        self.emit(f"}} -> {ty(out_shape)}")
        self.shapes[v] = out_shape
        return v

    def bin(self, op, a, b):
        out = [max(x, y) for x, y in zip(self.shapes[a], self.shapes[b])]
        return self.generic([a, b], out, lambda A: ([f"%r = arith.{op} {A[0]}, {A[1]} : {F}"], "%r"))

    def un(self, op, a):
        return self.generic([a], self.shapes[a], lambda A: ([f"%r = math.{op} {A[0]} : {F}"], "%r"))

    def scal(self, op, a, c):
        return self.generic([a], self.shapes[a], lambda A: ([f"%k = arith.constant {fl(c)} : {F}", f"%r = arith.{op} {A[0]}, %k : {F}"], "%r"))

    def reduce(self, kind, x, dim):
        shape = self.shapes[x]
        r = len(shape)
        out = list(shape)
        out[dim] = 1
        init = self.fill(out, 0.0 if kind == "sum" else -3.0e38)
        omap = ", ".join("0" if i == dim else f"d{i}" for i in range(r))
        its = ", ".join('"reduction"' if i == dim else '"parallel"' for i in range(r))
        v = self.fresh()
        comb = "arith.addf" if kind == "sum" else "arith.maximumf"
        self.emit(f"{v} = linalg.generic {{indexing_maps = [affine_map<({self.dims(r)}) -> ({self.dims(r)})>, affine_map<({self.dims(r)}) -> ({omap})>], iterator_types = [{its}]}} ins({x} : {ty(shape)}) outs({init} : {ty(out)}) {{")
        self.emit(f"^bb0(%in: {F}, %acc: {F}):")
        self.emit(f"  %r = {comb} %in, %acc : {F}")
        self.emit(f"  linalg.yield %r : {F}")
        self.emit(f"}} -> {ty(out)}")
        self.shapes[v] = out
        return v

    def matmul(self, a, b):
        sa, sb = self.shapes[a], self.shapes[b]
        if len(sa) == 2:
            out = [sa[0], sb[1]]
            name = "linalg.matmul"
        else:
            out = [sa[0], sa[1], sb[2]]
            name = "linalg.batch_matmul"
        init = self.fill(out, 0.0)
        v = self.fresh()
        self.emit(f"{v} = {name} ins({a}, {b} : {ty(sa)}, {ty(sb)}) outs({init} : {ty(out)}) -> {ty(out)}")
        self.shapes[v] = out
        return v

    def rms_norm(self, x, eps=1e-5, gamma=None):
        r = len(self.shapes[x])
        n = self.shapes[x][-1]
        sq = self.bin("mulf", x, x)
        s = self.reduce("sum", sq, r - 1)
        m = self.scal("mulf", s, 1.0 / n)
        me = self.scal("addf", m, eps)
        rs = self.un("rsqrt", me)
        y = self.bin("mulf", x, rs)
        if gamma is not None:
            y = self.bin("mulf", y, gamma)
        return y

    def silu(self, x):
        # x / (1 + exp(-x)) written as x * (1 / (1 + exp(-x))), one body.
        return self.generic([x], self.shapes[x], lambda A: ([
            f"%n = arith.negf {A[0]} : {F}", f"%e = math.exp %n : {F}",
            f"%one = arith.constant 1.0 : {F}", f"%d = arith.addf %one, %e : {F}",
            f"%s = arith.divf %one, %d : {F}", f"%r = arith.mulf {A[0]}, %s : {F}"], "%r"))

    def softmax_last(self, x):
        r = len(self.shapes[x])
        mx = self.reduce("max", x, r - 1)
        e = self.un("exp", self.bin("subf", x, mx))
        s = self.reduce("sum", e, r - 1)
        return self.bin("divf", e, s)


# ----------------------------------------------------------------------------
# The six workloads: (inputs with shapes, body(builder, ins) -> output)
# ----------------------------------------------------------------------------
def rmsnorm_matmul(p, x, g, w):
    return p.matmul(p.rms_norm(x, 1e-5, g), w)


def gated_mlp(p, x, w1, w2):
    return p.binop("mul", p.silu(p.matmul(x, w1)), p.matmul(x, w2)) if isinstance(p, Tosa) \
        else p.bin("mulf", p.silu(p.matmul(x, w1)), p.matmul(x, w2))


def lora(p, x, w, a, b):
    add = (lambda u, v: p.binop("add", u, v)) if isinstance(p, Tosa) else (lambda u, v: p.bin("addf", u, v))
    return add(p.matmul(x, w), p.matmul(p.matmul(x, a), b))


def attention(p, q, k, v, scale):
    s = p.matmul(q, k)
    s = p.binop("mul", s, p.scalar(s, scale)) if isinstance(p, Tosa) else p.scal("mulf", s, scale)
    return p.matmul(p.softmax_last(s), v)


def gqa(p, q, k, v):
    return attention(p, q, k, v, 0.25)


def qknorm(p, q, k, v):
    return attention(p, p.rms_norm(q, 1e-6), k, p.rms_norm(v, 1e-6), 0.25)


def ntrans(p, h, x, alpha):
    if isinstance(p, Tosa):
        t = p.binop("add", p.rms_norm(h, 1e-5), x)
        return p.rms_norm(p.binop("add", x, p.binop("mul", alpha, t)), 1e-5)
    t = p.bin("addf", p.rms_norm(h, 1e-5), x)
    return p.rms_norm(p.bin("addf", x, p.bin("mulf", alpha, t)), 1e-5)


# name: (fn, [(arg, tosa shape, linalg shape)])
WORKLOADS = {
    "rmsnorm_matmul": (rmsnorm_matmul, [("x", [1, 4, 32], [4, 32]), ("g", [1, 1, 32], [1, 32]), ("w", [1, 32, 16], [32, 16])]),
    "gated_mlp": (gated_mlp, [("x", [1, 4, 32], [4, 32]), ("w1", [1, 32, 16], [32, 16]), ("w2", [1, 32, 16], [32, 16])]),
    "lora": (lora, [("x", [1, 4, 32], [4, 32]), ("w", [1, 32, 16], [32, 16]), ("a", [1, 32, 4], [32, 4]), ("b", [1, 4, 16], [4, 16])]),
    "gqa": (gqa, [("q", [2, 8, 16], [2, 8, 16]), ("k", [2, 16, 32], [2, 16, 32]), ("v", [2, 32, 16], [2, 32, 16])]),
    "qknorm": (qknorm, [("q", [2, 8, 16], [2, 8, 16]), ("k", [2, 16, 32], [2, 16, 32]), ("v", [2, 32, 16], [2, 32, 16])]),
    "ntrans": (ntrans, [("h", [4, 32], [4, 32]), ("x", [4, 32], [4, 32]), ("alpha", [4, 32], [4, 32])]),
}

HEADER = """// {name}: the {title} workload of the Mirage paper (§8), small shapes, as {dialect}.
// Generated by examples/workloads/gen_workloads.py; see docs/Rationale/Import.md.
"""

TITLES = {"rmsnorm_matmul": "RMSNorm+MatMul", "gated_mlp": "GatedMLP", "lora": "LoRA",
          "gqa": "GQA", "qknorm": "QKNorm", "ntrans": "nTrans"}


def build(kind, name, const_inputs):
    fn, args = WORKLOADS[name]
    p = Tosa() if kind == "tosa" else Linalg()
    shapes = [a[1] if kind == "tosa" else a[2] for a in args]
    names = []
    rng = random.Random(sum(map(ord, name)) + (0 if kind == "tosa" else 7))
    for (a, _, _), s in zip(args, shapes):
        v = "%in_" + a
        if const_inputs:
            n = 1
            for d in s:
                n *= d
            vals = [round(rng.uniform(-1, 1), 4) for _ in range(n)]
            if name == "ntrans" and a == "alpha":
                vals = [abs(x) for x in vals]
            lit = nest(vals, s)
            if kind == "tosa":
                p.emit(f'{v} = "tosa.const"() <{{values = dense<{lit}> : {ty(s)}}}> : () -> {ty(s)}')
            else:
                p.emit(f"{v} = arith.constant dense<{lit}> : {ty(s)}")
        p.shapes[v] = s
        names.append(v)
    out = fn(p, *names)
    return p, shapes, names, out


def nest(vals, shape):
    if len(shape) == 1:
        return "[" + ", ".join(fl(x) for x in vals) + "]"
    step = len(vals) // shape[0]
    return "[" + ", ".join(nest(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def write_example(root, kind, name):
    p, shapes, names, out = build(kind, name, False)
    sig = ", ".join(f"{n}: {ty(s)}" for n, s in zip(names, shapes))
    text = HEADER.format(name=name, title=TITLES[name], dialect=kind.upper() if kind == "tosa" else "linalg on tensors")
    text += f"func.func @{name}({sig}) -> {ty(p.shapes[out])} {{\n"
    text += "\n".join(p.lines) + "\n"
    text += f"  return {out} : {ty(p.shapes[out])}\n}}\n"
    path = os.path.join(root, "examples/workloads", kind, name + ".mlir")
    open(path, "w").write(text)


UPSTREAM = {
    "tosa": 'mlir-opt %s --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor))" | ',
    "linalg": "",
}


def write_integration(root, kind, name):
    p, shapes, names, out = build(kind, name, True)
    s = p.shapes[out]
    lower = ("mlir-opt --one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops "
             "--convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm "
             "--convert-to-llvm --reconcile-unrealized-casts")
    if kind == "linalg":
        first = f"mlir-opt %s --one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-to-llvm --reconcile-unrealized-casts"
    else:
        first = UPSTREAM["tosa"] + lower
    text = f"""// Ground truth for the {TITLES[name]} workload ({kind}): the same program on
// constant inputs runs (a) through the upstream lowering on the CPU and
// (b) through mirage-import + mirage-evaluate; the outputs must agree.
// Generated by examples/workloads/gen_workloads.py.
// RUN: {first} \\
// RUN:   | mlir-runner -e main -entry-point-result=void \\
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so > %t.upstream
// RUN: mirage-opt %s --mirage-import --mirage-evaluate=print-all -o %t.imported.mlir 2> %t.mirage
// RUN: python3 %S/../compare_outputs.py %t.upstream %t.mirage
// RUN: FileCheck %s --input-file=%t.imported.mlir

// CHECK-LABEL: func.func @main
// CHECK: mirage_kernel.graph
func.func @main() {{
"""
    text += "\n".join(p.lines) + "\n"
    text += f"  %printed = tensor.cast {out} : {ty(s)} to tensor<*x{F}>\n"
    text += f"  call @printMemrefF32(%printed) : (tensor<*x{F}>) -> ()\n  return\n}}\n"
    text += f"func.func private @printMemrefF32(tensor<*x{F}>)\n"
    path = os.path.join(root, "test/Integration/CPU", f"{name}-{kind}.mlir")
    open(path, "w").write(text)


if __name__ == "__main__":
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    for name in WORKLOADS:
        for kind in ("tosa", "linalg"):
            write_example(root, kind, name)
            write_integration(root, kind, name)
