#!/usr/bin/env python3
"""Transformer layers in torch-mlir's linalg-on-tensors form (TorchToLinalg,
after torch-mlir's decompositions, before any linalg fusion).

  python3 bench/corpus/gen_linalg.py [OUT_DIR]     (default: this directory)

Writes gpt2_block_linalg.mlir, gpt2_small_12l_linalg.mlir,
llama_decoder_linalg.mlir, bert_encoder_linalg.mlir, vit_mlp_linalg.mlir.
Shapes are parameters of each builder (small defaults keep the files small);
the output is deterministic. See README.md for the forms and sources.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mlirgen import Module, Fn, Linalg, tty, write_corpus  # noqa: E402

# torch-mlir's tanh-GELU constant (not exactly sqrt(2/pi)); see docs/Rationale/Import.md.
TORCH_GELU_BETA = 0.7977240352174656


def layer_norm(L, x, shape, w, b, eps, f64_stats=False):
    """aten.native_layer_norm over the last dim, decomposed as torch-mlir does:
    mean = sum/n, var = sum((x-mean)^2)/n (fpowi 2), rstd = rsqrt(var+eps).
    f64_stats: the var_mean decomposition's upcast (arith.extf to f64, the
    statistics in f64, arith.truncf back)."""
    n = shape[-1]
    if f64_stats:
        x64 = L.generic([(x, shape, "f32", None)], shape,
                        lambda bb, a, o: [bb.raw("arith.extf %s : f32 to f64" % a[0])], out_dt="f64")
        s, ss = L.sum_keepdim(x64, shape, len(shape) - 1, "f64")
        mean64 = L.div_int(s, ss, n, "f64")
        c64 = L.generic([(x64, shape, "f64", None), (mean64, ss, "f64", None)], shape,
                        lambda bb, a, o: [bb.op("arith.subf", a[0], a[1], ty="f64")], out_dt="f64")
        sq = L.generic([(c64, shape, "f64", None)], shape,
                       lambda bb, a, o: [bb.op("arith.mulf", a[0], a[0], ty="f64")], out_dt="f64")
        v, vs = L.sum_keepdim(sq, shape, len(shape) - 1, "f64")
        var64 = L.div_int(v, vs, n, "f64")
        var = L.generic([(var64, vs, "f64", None)], vs,
                        lambda bb, a, o: [bb.raw("arith.truncf %s : f64 to f32" % a[0])])
        mean = L.generic([(mean64, ss, "f64", None)], ss,
                         lambda bb, a, o: [bb.raw("arith.truncf %s : f64 to f32" % a[0])])
    else:
        s, ss = L.sum_keepdim(x, shape, len(shape) - 1)
        mean = L.div_int(s, ss, n)
        c0 = L.sub_tensor(x, shape, mean, ss, shape)
        sq = L.fpowi(c0, shape, 2)
        v, vs = L.sum_keepdim(sq, shape, len(shape) - 1)
        var = L.div_int(v, vs, n)
    c = L.sub_tensor(x, shape, mean, ss, shape)
    ve = L.add_float(var, vs, eps)
    rstd = L.unary(ve, vs, lambda bb, a: bb.op("math.rsqrt", a))
    y = L.mul_tensor(c, shape, rstd, vs, shape)
    y = L.mul_tensor(y, shape, w, [n], shape)
    return L.add_tensor(y, shape, b, [n], shape)


def rms_norm(L, x, shape, w, eps):
    """HF LlamaRMSNorm: x.pow(2).mean(-1, keepdim) -> rsqrt(+eps) -> x * . -> weight * ."""
    n = shape[-1]
    sq = L.fpowi(x, shape, 2)
    s, ss = L.sum_keepdim(sq, shape, len(shape) - 1)
    mean = L.div_int(s, ss, n)
    ve = L.add_float(mean, ss, eps)
    r = L.unary(ve, ss, lambda bb, a: bb.op("math.rsqrt", a))
    y = L.mul_tensor(x, shape, r, ss, shape)
    return L.mul_tensor(w, [n], y, shape, shape)


def gelu_tanh(L, x, shape):
    """aten.gelu(approximate="tanh") as TorchToLinalg writes the body."""
    dt = L.dt
    c3 = L.fn.scalar(3, "i64")
    kappa = L.fn.scalar(0.044715, dt)
    beta = L.fn.scalar(TORCH_GELU_BETA, dt)
    one = L.fn.scalar(1.0, dt)
    half = L.fn.scalar(0.5, dt)

    def f(b, a):
        cube = b.raw("math.fpowi %s, %s : %s, i64" % (a, c3, dt))
        t = b.op("arith.mulf", cube, kappa)
        t = b.op("arith.addf", a, t)
        t = b.op("arith.mulf", t, beta)
        t = b.op("math.tanh", t)
        t = b.op("arith.addf", t, one)
        t = b.op("arith.mulf", a, t)
        return b.op("arith.mulf", t, half)
    return L.unary(x, shape, f)


def gelu_erf(L, x, shape):
    """aten.gelu(approximate="none"): 0.5 * x * (1 + erf(x / sqrt(2)))."""
    dt = L.dt
    two = L.fn.scalar(2.0, dt)
    one = L.fn.scalar(1.0, dt)
    half = L.fn.scalar(0.5, dt)

    def f(b, a):
        s = b.op("math.sqrt", two)
        t = b.op("arith.divf", a, s)
        t = b.op("math.erf", t)
        t = b.op("arith.addf", t, one)
        t = b.op("arith.mulf", t, half)
        return b.op("arith.mulf", a, t)
    return L.unary(x, shape, f)


def silu(L, x, shape):
    """aten.silu: x * sigmoid(x), sigmoid as 1 / (1 + exp(-x))."""
    one = L.fn.scalar(1.0, L.dt)

    def f(b, a):
        t = b.op("arith.negf", a)
        t = b.op("math.exp", t)
        t = b.op("arith.addf", t, one)
        t = b.op("arith.divf", one, t)
        return b.op("arith.mulf", a, t)
    return L.unary(x, shape, f)


def addmm_view(L, x, s, h, w, b, n):
    """HF Conv1D at batch 1: view(-1, h) -> addmm(bias, x, w) -> view back."""
    x2 = L.collapse(x, [1, s, h], "[[0, 1], [2]]", [s, h])
    m = L.matmul2d(x2, w, s, h, n)
    y = L.add_tensor(m, [s, n], b, [n], [s, n])
    return L.expand(y, [s, n], "[[0, 1], [2]]", [1, s, n])


def linear_t(L, x, bsz, s, k, w, n, bias=None):
    """aten.linear decomposed: aten.t(w) (linalg.transpose) then aten.matmul
    of [b, s, k] by [k, n] as a generic contraction, then the bias."""
    wt, _ = L.transpose(w, [n, k], [1, 0])
    y = L.matmul_3d2d(x, bsz, s, k, wt, n)
    if bias is not None:
        y = L.add_tensor(y, [bsz, s, n], bias, [n], [bsz, s, n])
    return y


def heads(L, x, bsz, s, nh, hd, generic_permute=False):
    """view(b, s, nh, hd).transpose(1, 2)."""
    x4 = L.expand(x, [bsz, s, nh * hd], "[[0], [1], [2, 3]]", [bsz, s, nh, hd])
    if generic_permute:
        t, _ = L.transpose_generic(x4, [bsz, s, nh, hd], [0, 2, 1, 3])
    else:
        t, _ = L.transpose(x4, [bsz, s, nh, hd], [0, 2, 1, 3])
    return t


def merge_heads(L, x, bsz, nh, s, hd):
    t, _ = L.transpose(x, [bsz, nh, s, hd], [0, 2, 1, 3])
    return L.collapse(t, [bsz, s, nh, hd], "[[0], [1], [2, 3]]", [bsz, s, nh * hd])


def bmm4(L, a, b_, bsz, nh, m, k, n, b_is_kt=False):
    """aten.matmul of rank-4 tensors: the batch dims collapsed, batch_matmul,
    expanded back (kt: b_ is [b, nh, n, k], transposed first)."""
    if b_is_kt:
        b_, _ = L.transpose(b_, [bsz, nh, n, k], [0, 1, 3, 2])
    a3 = L.collapse(a, [bsz, nh, m, k], "[[0, 1], [2], [3]]", [bsz * nh, m, k])
    b3 = L.collapse(b_, [bsz, nh, k, n], "[[0, 1], [2], [3]]", [bsz * nh, k, n])
    o = L.batch_matmul(a3, b3, bsz * nh, m, k, n)
    return L.expand(o, [bsz * nh, m, n], "[[0, 1], [2], [3]]", [bsz, nh, m, n])


def gpt2_block(L, x, s, h, nh, p, eps=1e-5):
    """One HF GPT2Block (eager attention, batch 1). p: dict of weight names."""
    hd = h // nh
    sh = [1, s, h]
    a = layer_norm(L, x, sh, p["ln1_w"], p["ln1_b"], eps)
    qkv = addmm_view(L, a, s, h, p["attn_w"], p["attn_b"], 3 * h)
    q, _ = L.slice_last(qkv, [1, s, 3 * h], 0, h)
    k, _ = L.slice_last(qkv, [1, s, 3 * h], h, h)
    v, _ = L.slice_last(qkv, [1, s, 3 * h], 2 * h, h)
    q4 = heads(L, q, 1, s, nh, hd)
    k4 = heads(L, k, 1, s, nh, hd)
    v4 = heads(L, v, 1, s, nh, hd)
    sc = bmm4(L, q4, k4, 1, nh, s, hd, s, b_is_kt=True)
    ssh = [1, nh, s, s]
    sc = L.div_float(sc, ssh, math.sqrt(hd))
    # torch.where(causal_mask, w, finfo.min): the mask a bool buffer slice.
    fmin = L.fn.scalar(-3.4028234663852886e38, L.dt)
    sc = L.generic([(p["mask"], [1, 1, s, s], "i1", None), (sc, ssh, L.dt, None)], ssh,
                   lambda bb, a_, o: [bb.raw("arith.select %s, %s, %s : %s" % (a_[0], a_[1], fmin, L.dt))])
    pr = L.softmax(sc, ssh)
    o4 = bmm4(L, pr, v4, 1, nh, s, s, hd)
    o = merge_heads(L, o4, 1, nh, s, hd)
    o = addmm_view(L, o, s, h, p["proj_w"], p["proj_b"], h)
    x = L.add_tensor(o, sh, x, sh, sh)
    a = layer_norm(L, x, sh, p["ln2_w"], p["ln2_b"], eps)
    f = addmm_view(L, a, s, h, p["fc_w"], p["fc_b"], 4 * h)
    f = gelu_tanh(L, f, [1, s, 4 * h])
    f = addmm_view(L, f, s, 4 * h, p["fcp_w"], p["fcp_b"], h)
    return L.add_tensor(f, sh, x, sh, sh)


def gpt2_args(prefix, s, h):
    t = lambda *d: tty(list(d), "f32")
    names = [("ln1_w", t(h)), ("ln1_b", t(h)), ("attn_w", t(h, 3 * h)), ("attn_b", t(3 * h)),
             ("proj_w", t(h, h)), ("proj_b", t(h)), ("ln2_w", t(h)), ("ln2_b", t(h)),
             ("fc_w", t(h, 4 * h)), ("fc_b", t(4 * h)), ("fcp_w", t(4 * h, h)), ("fcp_b", t(h))]
    return [("%%%s%s" % (prefix, n), ty) for n, ty in names], {n: "%%%s%s" % (prefix, n) for n, _ in names}


def gen_gpt2(layers, s, h, nh, name, comment):
    m = Module(comment)
    args = [("%x", tty([1, s, h], "f32")), ("%mask", tty([1, 1, s, s], "i1"))]
    params = []
    for i in range(layers):
        a, p = gpt2_args("l%d_" % i if layers > 1 else "", s, h)
        p["mask"] = "%mask"
        args += a
        params.append(p)
    if layers > 1:
        args += [("%lnf_w", tty([h], "f32")), ("%lnf_b", tty([h], "f32"))]
    fn = Fn(m, name, args)
    L = Linalg(fn)
    x = "%x"
    for p in params:
        x = gpt2_block(L, x, s, h, nh, p)
    if layers > 1:
        x = layer_norm(L, x, [1, s, h], "%lnf_w", "%lnf_b", 1e-5)
    fn.returns([(x, tty([1, s, h], "f32"))])
    return m.text()


def gen_llama(s, h, nh, nkv, inter, name, comment, eps=1e-6):
    hd = h // nh
    rep = nh // nkv
    t = lambda *d: tty(list(d), "f32")
    m = Module(comment)
    args = [("%x", t(1, s, h)), ("%cos", t(1, 1, s, hd)), ("%sin", t(1, 1, s, hd)), ("%mask", t(1, 1, s, s)),
            ("%ln1_w", t(h)), ("%wq", t(h, h)), ("%wk", t(nkv * hd, h)), ("%wv", t(nkv * hd, h)),
            ("%wo", t(h, h)), ("%ln2_w", t(h)), ("%wg", t(inter, h)), ("%wu", t(inter, h)), ("%wd", t(h, inter))]
    fn = Fn(m, name, args)
    L = Linalg(fn)
    sh = [1, s, h]
    a = rms_norm(L, "%x", sh, "%ln1_w", eps)
    q = linear_t(L, a, 1, s, h, "%wq", h)
    k = linear_t(L, a, 1, s, h, "%wk", nkv * hd)
    v = linear_t(L, a, 1, s, h, "%wv", nkv * hd)
    q4 = heads(L, q, 1, s, nh, hd)
    k4 = heads(L, k, 1, s, nkv, hd)
    v4 = heads(L, v, 1, s, nkv, hd)

    def rope(x4, n):
        shp = [1, n, s, hd]
        xc = L.mul_tensor(x4, shp, "%cos", [1, 1, s, hd], shp)
        x1, s1 = L.slice_last(x4, shp, 0, hd // 2)
        x2, _ = L.slice_last(x4, shp, hd // 2, hd // 2)
        nx2 = L.unary(x2, s1, lambda bb, a_: bb.op("arith.negf", a_))
        e = L.empty(shp)
        r = L.insert_last(nx2, s1, e, shp, 0)
        r = L.insert_last(x1, s1, r, shp, hd // 2)
        rs = L.mul_tensor(r, shp, "%sin", [1, 1, s, hd], shp)
        return L.add_tensor(xc, shp, rs, shp, shp)
    q4 = rope(q4, nh)
    k4 = rope(k4, nkv)

    def repeat_kv(x4):
        # x[:, :, None].expand(b, nkv, rep, s, hd).reshape(b, nh, s, hd)
        if rep == 1:
            return x4
        x5 = L.expand(x4, [1, nkv, s, hd], "[[0], [1, 2], [3], [4]]", [1, nkv, 1, s, hd])
        b5 = L.generic([(x5, [1, nkv, 1, s, hd], L.dt,
                         "(d0, d1, d2, d3, d4) -> (0, d1, 0, d3, d4)")], [1, nkv, rep, s, hd],
                       lambda bb, a_, o: [a_[0]])
        return L.collapse(b5, [1, nkv, rep, s, hd], "[[0], [1, 2], [3], [4]]", [1, nh, s, hd])
    k4 = repeat_kv(k4)
    v4 = repeat_kv(v4)
    sc = bmm4(L, q4, k4, 1, nh, s, hd, s, b_is_kt=True)
    ssh = [1, nh, s, s]
    sc = L.div_float(sc, ssh, math.sqrt(hd))
    sc = L.add_tensor(sc, ssh, "%mask", [1, 1, s, s], ssh)
    pr = L.softmax(sc, ssh)
    o4 = bmm4(L, pr, v4, 1, nh, s, s, hd)
    o = merge_heads(L, o4, 1, nh, s, hd)
    o = linear_t(L, o, 1, s, h, "%wo", h)
    x = L.add_tensor("%x", sh, o, sh, sh)
    a = rms_norm(L, x, sh, "%ln2_w", eps)
    g = linear_t(L, a, 1, s, h, "%wg", inter)
    u = linear_t(L, a, 1, s, h, "%wu", inter)
    ish = [1, s, inter]
    g = silu(L, g, ish)
    gu = L.mul_tensor(g, ish, u, ish, ish)
    d = linear_t(L, gu, 1, s, inter, "%wd", h)
    y = L.add_tensor(x, sh, d, sh, sh)
    fn.returns([(y, tty(sh, "f32"))])
    return m.text()


def gen_bert(bsz, s, h, nh, inter, name, comment, eps=1e-12):
    hd = h // nh
    t = lambda *d: tty(list(d), "f32")
    m = Module(comment)
    args = [("%x", t(bsz, s, h)), ("%mask", t(bsz, 1, 1, s)),
            ("%wq", t(h, h)), ("%bq", t(h)), ("%wk", t(h, h)), ("%bk", t(h)), ("%wv", t(h, h)), ("%bv", t(h)),
            ("%wo", t(h, h)), ("%bo", t(h)), ("%ln1_w", t(h)), ("%ln1_b", t(h)),
            ("%wi", t(inter, h)), ("%bi", t(inter)), ("%wo2", t(h, inter)), ("%bo2", t(h)),
            ("%ln2_w", t(h)), ("%ln2_b", t(h))]
    fn = Fn(m, name, args)
    L = Linalg(fn)
    sh = [bsz, s, h]
    q = linear_t(L, "%x", bsz, s, h, "%wq", h, "%bq")
    k = linear_t(L, "%x", bsz, s, h, "%wk", h, "%bk")
    v = linear_t(L, "%x", bsz, s, h, "%wv", h, "%bv")
    q4 = heads(L, q, bsz, s, nh, hd, generic_permute=True)
    k4 = heads(L, k, bsz, s, nh, hd, generic_permute=True)
    v4 = heads(L, v, bsz, s, nh, hd, generic_permute=True)
    sc = bmm4(L, q4, k4, bsz, nh, s, hd, s, b_is_kt=True)
    ssh = [bsz, nh, s, s]
    sc = L.div_float(sc, ssh, math.sqrt(hd))
    sc = L.add_tensor(sc, ssh, "%mask", [bsz, 1, 1, s], ssh)
    pr = L.softmax(sc, ssh)
    o4 = bmm4(L, pr, v4, bsz, nh, s, s, hd)
    o = merge_heads(L, o4, bsz, nh, s, hd)
    o = linear_t(L, o, bsz, s, h, "%wo", h, "%bo")
    x = L.add_tensor(o, sh, "%x", sh, sh)
    x = layer_norm(L, x, sh, "%ln1_w", "%ln1_b", eps, f64_stats=True)
    f = linear_t(L, x, bsz, s, h, "%wi", inter, "%bi")
    f = gelu_erf(L, f, [bsz, s, inter])
    f = linear_t(L, f, bsz, s, inter, "%wo2", h, "%bo2")
    y = L.add_tensor(f, sh, x, sh, sh)
    y = layer_norm(L, y, sh, "%ln2_w", "%ln2_b", eps, f64_stats=True)
    fn.returns([(y, tty(sh, "f32"))])
    return m.text()


def gen_vit_mlp(t_, h, inter, name, comment, eps=1e-6):
    t = lambda *d: tty(list(d), "f32")
    m = Module(comment)
    args = [("%x", t(1, t_, h)), ("%ln_w", t(h)), ("%ln_b", t(h)), ("%w1", t(inter, h)), ("%b1", t(inter)),
            ("%w2", t(h, inter)), ("%b2", t(h))]
    fn = Fn(m, name, args)
    L = Linalg(fn)
    sh = [1, t_, h]
    a = layer_norm(L, "%x", sh, "%ln_w", "%ln_b", eps)
    f = linear_t(L, a, 1, t_, h, "%w1", inter, "%b1")
    f = gelu_erf(L, f, [1, t_, inter])
    f = linear_t(L, f, 1, t_, inter, "%w2", h, "%b2")
    y = L.add_tensor("%x", sh, f, sh, sh)
    fn.returns([(y, tty(sh, "f32"))])
    return m.text()


HEADER = ("Generated by bench/corpus/gen_linalg.py (do not edit; regenerate).\n"
          "Form: torch-mlir linalg-on-tensors (TorchToLinalg after decompositions).\n")


def main():
    files = {
        "gpt2_block_linalg.mlir": gen_gpt2(1, 16, 64, 4, "gpt2_block",
                                           HEADER + "HF GPT2Block, batch 1, seq 16, hidden 64, 4 heads, f32."),
        "gpt2_small_12l_linalg.mlir": gen_gpt2(12, 8, 64, 4, "gpt2_small_12l",
                                               HEADER + "GPT-2 small structure: 12 GPT2Blocks + ln_f, batch 1, seq 8,\n"
                                               "hidden 64 (768 in the real model), 4 heads, f32."),
        "llama_decoder_linalg.mlir": gen_llama(16, 64, 4, 2, 176, "llama_decoder",
                                               HEADER + "HF LlamaDecoderLayer (eager), batch 1, seq 16, hidden 64, 4 query\n"
                                               "heads, 2 KV heads (GQA via repeat_kv), SiLU MLP 176, RoPE, f32."),
        "bert_encoder_linalg.mlir": gen_bert(2, 16, 64, 4, 256, "bert_encoder",
                                             HEADER + "HF BertLayer, batch 2, seq 16, hidden 64, 4 heads, erf GELU,\n"
                                             "LayerNorm with the f64 var_mean statistics, f32."),
        "vit_mlp_linalg.mlir": gen_vit_mlp(17, 64, 256, "vit_mlp",
                                           HEADER + "ViT block MLP half (LayerNorm, fc1, erf GELU, fc2, residual),\n"
                                           "batch 1, 17 tokens (16 patches + CLS), hidden 64, f32."),
    }
    write_corpus(files)


if __name__ == "__main__":
    main()
