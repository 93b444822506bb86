#!/usr/bin/env python3
"""Transformer layers in TOSA form: torch-mlir's TorchToTosa, and the
dynamo-based TOSA importer form (TOSA ops mixed with the linalg ops the
importer writes for what TOSA lacks: math.fpowi generics, linalg.matmul on
2-d views with a dense-zero init, tensor.extract_slice/insert_slice for
rotate_half).

  python3 bench/corpus/gen_tosa.py [OUT_DIR]     (default: this directory)

Writes gpt2_block_tosa.mlir, llama_decoder_tosa.mlir, bert_encoder_tosa.mlir,
vit_mlp_tosa_f16.mlir. TOSA 1.0 syntax as MLIR 22 parses it
(tosa.const_shape operands, matmul zero points, mul shift operands).
Deterministic output; see README.md for the forms and sources.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mlirgen import Module, Fn, Tosa, Linalg, tty, fmt_float, write_corpus  # noqa: E402


def layer_norm(T, x, shape, w, b, eps):
    """TorchToTosa native_layer_norm: sum * (1/n), x - mean, square by mul,
    sum * (1/n), + eps, rsqrt, *, weight and bias reshaped to [1, 1, h]."""
    n = shape[-1]
    r = len(shape)
    one = [1] * r
    inv_n = T.const(1.0 / n, one)
    s, ss = T.reduce("sum", x, shape, r - 1)
    mean, _ = T.binary("mul", s, ss, inv_n, one)
    c, _ = T.binary("sub", x, shape, mean, ss)
    sq, _ = T.binary("mul", c, shape, c, shape)
    v, vs = T.reduce("sum", sq, shape, r - 1)
    var, _ = T.binary("mul", v, vs, inv_n, one)
    e = T.const(eps, one)
    ve, _ = T.binary("add", var, vs, e, one)
    rs = T.unary("rsqrt", ve, vs)
    y, _ = T.binary("mul", c, shape, rs, vs)
    wr = T.reshape(w, [n], [1] * (r - 1) + [n])
    br = T.reshape(b, [n], [1] * (r - 1) + [n])
    y, _ = T.binary("mul", y, shape, wr, [1] * (r - 1) + [n])
    y, _ = T.binary("add", y, shape, br, [1] * (r - 1) + [n])
    return y


def linear(T, x, bsz, s, k, w, n, bias=None, w_is_out_in=True):
    """TorchToTosa aten.linear: weight transposed to [k, n], both operands
    reshaped to rank 3 (the activation to [1, b*s, k]), tosa.matmul,
    reshape back, bias reshaped to [1, 1, n] and added."""
    if w_is_out_in:
        wt, _ = T.transpose(w, [n, k], [1, 0])
    else:
        wt = w
    w3 = T.reshape(wt, [k, n], [1, k, n])
    x3 = T.reshape(x, [bsz, s, k], [1, bsz * s, k])
    m, ms = T.matmul(x3, [1, bsz * s, k], w3, [1, k, n])
    y = T.reshape(m, ms, [bsz, s, n])
    if bias is not None:
        br = T.reshape(bias, [n], [1, 1, n])
        y, _ = T.binary("add", y, [bsz, s, n], br, [1, 1, n])
    return y


def softmax(T, x, shape):
    ax = len(shape) - 1
    mx, ms = T.reduce("max", x, shape, ax)
    d, _ = T.binary("sub", x, shape, mx, ms)
    e = T.unary("exp", d, shape)
    s, ss = T.reduce("sum", e, shape, ax)
    r = T.unary("reciprocal", s, ss)
    y, _ = T.binary("mul", e, shape, r, ss)
    return y


def attention_tosa(T, q, k, v, bsz, s, nh, hd, mask=None, mask_shape=None, select_mask=None):
    """view + permute heads, QK^T via a transposed K, scaled by a reciprocal
    constant, masked, softmax, PV, permute back and view."""
    h = nh * hd

    def split(x):
        x4 = T.reshape(x, [bsz, s, h], [bsz, s, nh, hd])
        t, _ = T.transpose(x4, [bsz, s, nh, hd], [0, 2, 1, 3])
        return t
    q4, k4, v4 = split(q), split(k), split(v)
    kt, _ = T.transpose(k4, [bsz, nh, s, hd], [0, 1, 3, 2])
    q3 = T.reshape(q4, [bsz, nh, s, hd], [bsz * nh, s, hd])
    k3 = T.reshape(kt, [bsz, nh, hd, s], [bsz * nh, hd, s])
    sc, _ = T.matmul(q3, [bsz * nh, s, hd], k3, [bsz * nh, hd, s])
    ssh = [bsz, nh, s, s]
    sc = T.reshape(sc, [bsz * nh, s, s], ssh)
    one4 = [1, 1, 1, 1]
    scale = T.const(math.sqrt(hd), one4)
    rscale = T.unary("reciprocal", scale, one4)
    sc, _ = T.binary("mul", sc, ssh, rscale, one4)
    if select_mask is not None:
        fmin = T.const(select_mask[1], one4)
        sc, _ = T.select(select_mask[0], [1, 1, s, s], sc, ssh, fmin, one4)
    if mask is not None:
        sc, _ = T.binary("add", sc, ssh, mask, mask_shape)
    p = softmax(T, sc, ssh)
    p3 = T.reshape(p, ssh, [bsz * nh, s, s])
    v3 = T.reshape(v4, [bsz, nh, s, hd], [bsz * nh, s, hd])
    o, _ = T.matmul(p3, [bsz * nh, s, s], v3, [bsz * nh, s, hd])
    o4 = T.reshape(o, [bsz * nh, s, hd], [bsz, nh, s, hd])
    ot, _ = T.transpose(o4, [bsz, nh, s, hd], [0, 2, 1, 3])
    return T.reshape(ot, [bsz, s, nh, hd], [bsz, s, h])


def gelu_tanh_tosa(T, x, shape):
    """TorchToTosa approximate="tanh": 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))."""
    one = [1] * len(shape)
    three = T.const(3.0, one)
    cube, _ = T.binary("pow", x, shape, three, one)
    k = T.const(0.044715, one)
    t, _ = T.binary("mul", cube, shape, k, one)
    t, _ = T.binary("add", x, shape, t, shape)
    b = T.const(math.sqrt(2.0 / math.pi), one)
    t, _ = T.binary("mul", t, shape, b, one)
    t = T.unary("tanh", t, shape)
    c1 = T.const(1.0, one)
    t, _ = T.binary("add", t, shape, c1, one)
    c05 = T.const(0.5, one)
    h, _ = T.binary("mul", x, shape, c05, one)
    y, _ = T.binary("mul", h, shape, t, shape)
    return y


def gelu_erf_tosa(T, x, shape):
    """TorchToTosa approximate="none": 0.5*x*(1+erf(x*rsqrt(2)))."""
    one = [1] * len(shape)
    r2 = T.const(1.0 / math.sqrt(2.0), one)
    t, _ = T.binary("mul", x, shape, r2, one)
    t = T.unary("erf", t, shape)
    c1 = T.const(1.0, one)
    t, _ = T.binary("add", t, shape, c1, one)
    c05 = T.const(0.5, one)
    t, _ = T.binary("mul", t, shape, c05, one)
    y, _ = T.binary("mul", x, shape, t, shape)
    return y


def gen_gpt2_tosa(s, h, nh, comment):
    hd = h // nh
    t = lambda *d: tty(list(d), "f32")
    m = Module(comment)
    args = [("%x", t(1, s, h)), ("%mask", tty([1, 1, s, s], "i1")), ("%ln1_w", t(h)), ("%ln1_b", t(h)),
            ("%attn_w", t(h, 3 * h)), ("%attn_b", t(3 * h)), ("%proj_w", t(h, h)), ("%proj_b", t(h)),
            ("%ln2_w", t(h)), ("%ln2_b", t(h)), ("%fc_w", t(h, 4 * h)), ("%fc_b", t(4 * h)),
            ("%fcp_w", t(4 * h, h)), ("%fcp_b", t(h))]
    fn = Fn(m, "gpt2_block", args)
    T = Tosa(fn)
    sh = [1, s, h]
    a = layer_norm(T, "%x", sh, "%ln1_w", "%ln1_b", 1e-5)
    # HF Conv1D: addmm on the [in, out] weight (no transpose).
    qkv = linear(T, a, 1, s, h, "%attn_w", 3 * h, "%attn_b", w_is_out_in=False)
    q = T.slice(qkv, [1, s, 3 * h], [0, 0, 0], [1, s, h])
    k = T.slice(qkv, [1, s, 3 * h], [0, 0, h], [1, s, h])
    v = T.slice(qkv, [1, s, 3 * h], [0, 0, 2 * h], [1, s, h])
    o = attention_tosa(T, q, k, v, 1, s, nh, hd, select_mask=("%mask", -3.4028234663852886e38))
    o = linear(T, o, 1, s, h, "%proj_w", h, "%proj_b", w_is_out_in=False)
    x, _ = T.binary("add", o, sh, "%x", sh)
    a = layer_norm(T, x, sh, "%ln2_w", "%ln2_b", 1e-5)
    f = linear(T, a, 1, s, h, "%fc_w", 4 * h, "%fc_b", w_is_out_in=False)
    f = gelu_tanh_tosa(T, f, [1, s, 4 * h])
    f = linear(T, f, 1, s, 4 * h, "%fcp_w", h, "%fcp_b", w_is_out_in=False)
    y, _ = T.binary("add", f, sh, x, sh)
    fn.returns([(y, tty(sh, "f32"))])
    return m.text()


def gen_bert_tosa(bsz, s, h, nh, inter, comment, eps=1e-12):
    hd = h // nh
    t = lambda *d: tty(list(d), "f32")
    m = Module(comment)
    args = [("%x", t(bsz, s, h)), ("%mask", t(bsz, 1, 1, s)),
            ("%wq", t(h, h)), ("%bq", t(h)), ("%wk", t(h, h)), ("%bk", t(h)), ("%wv", t(h, h)), ("%bv", t(h)),
            ("%wo", t(h, h)), ("%bo", t(h)), ("%ln1_w", t(h)), ("%ln1_b", t(h)),
            ("%wi", t(inter, h)), ("%bi", t(inter)), ("%wo2", t(h, inter)), ("%bo2", t(h)),
            ("%ln2_w", t(h)), ("%ln2_b", t(h))]
    fn = Fn(m, "bert_encoder", args)
    T = Tosa(fn)
    sh = [bsz, s, h]
    q = linear(T, "%x", bsz, s, h, "%wq", h, "%bq")
    k = linear(T, "%x", bsz, s, h, "%wk", h, "%bk")
    v = linear(T, "%x", bsz, s, h, "%wv", h, "%bv")
    o = attention_tosa(T, q, k, v, bsz, s, nh, hd, mask="%mask", mask_shape=[bsz, 1, 1, s])
    o = linear(T, o, bsz, s, h, "%wo", h, "%bo")
    x, _ = T.binary("add", o, sh, "%x", sh)
    x = layer_norm(T, x, sh, "%ln1_w", "%ln1_b", eps)
    f = linear(T, x, bsz, s, h, "%wi", inter, "%bi")
    f = gelu_erf_tosa(T, f, [bsz, s, inter])
    f = linear(T, f, bsz, s, inter, "%wo2", h, "%bo2")
    y, _ = T.binary("add", f, sh, x, sh)
    y = layer_norm(T, y, sh, "%ln2_w", "%ln2_b", eps)
    fn.returns([(y, tty(sh, "f32"))])
    return m.text()


def gen_vit_mlp_tosa(t_, h, inter, comment, eps=1e-6):
    dt = "f16"
    t = lambda *d: tty(list(d), dt)
    m = Module(comment)
    args = [("%x", t(1, t_, h)), ("%ln_w", t(h)), ("%ln_b", t(h)), ("%w1", t(inter, h)), ("%b1", t(inter)),
            ("%w2", t(h, inter)), ("%b2", t(h))]
    fn = Fn(m, "vit_mlp", args)
    T = Tosa(fn, dt)
    sh = [1, t_, h]
    a = layer_norm(T, "%x", sh, "%ln_w", "%ln_b", eps)
    f = linear(T, a, 1, t_, h, "%w1", inter, "%b1")
    f = gelu_erf_tosa(T, f, [1, t_, inter])
    f = linear(T, f, 1, t_, inter, "%w2", h, "%b2")
    y, _ = T.binary("add", "%x", sh, f, sh)
    fn.returns([(y, tty(sh, dt))])
    return m.text()


def gen_llama_tosa(s, h, nh, inter, comment, eps=1e-6):
    """The dynamo-based importer's form (TOSA plus linalg where it writes linalg)."""
    hd = h // nh
    t = lambda *d: tty(list(d), "f32")
    m = Module(comment)
    args = [("%x", t(1, s, h)), ("%cos", t(1, 1, s, hd)), ("%sin", t(1, 1, s, hd)), ("%mask", t(1, 1, s, s)),
            ("%ln1_w", t(h)), ("%wq", t(h, h)), ("%wk", t(h, h)), ("%wv", t(h, h)), ("%wo", t(h, h)),
            ("%ln2_w", t(h)), ("%wg", t(inter, h)), ("%wu", t(inter, h)), ("%wd", t(h, inter))]
    fn = Fn(m, "llama_decoder", args)
    T = Tosa(fn)
    L = Linalg(fn)
    sh = [1, s, h]

    def rms(x, w):
        c2 = fn.scalar(2, "i32")
        sq = L.generic([(x, sh, "f32", "(d0, d1, d2) -> (d0, d1, d2)")], sh,
                       lambda b, a, o: [b.raw("math.fpowi %s, %s : f32, i32" % (a[0], c2))])
        su, ss = T.reduce("sum", sq, sh, 2)
        n = T.const(float(h), [1, 1, 1])
        rn = T.unary("reciprocal", n, [1, 1, 1])
        mean, _ = T.binary("mul", rn, [1, 1, 1], su, ss)
        e = T.const(eps, ss)
        ve, _ = T.binary("add", mean, ss, e, ss)
        r = T.unary("rsqrt", ve, ss)
        y, _ = T.binary("mul", x, sh, r, ss)
        wr = T.reshape(w, [h], [1, 1, h])
        y, _ = T.binary("mul", wr, [1, 1, h], y, sh)
        return y

    def lin(x, k, w, n):
        wt, _ = T.transpose(w, [n, k], [1, 0])
        x2 = T.reshape(x, [1, s, k], [s, k])
        z = fn.fresh("cst")
        fn.emit("%s = arith.constant dense<0.0> : %s" % (z, tty([s, n], "f32")))
        mm = fn.fresh()
        fn.emit("%s = linalg.matmul {cast = #linalg.type_fn<cast_signed>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            mm, x2, wt, tty([s, k], "f32"), tty([k, n], "f32"), z, tty([s, n], "f32"), tty([s, n], "f32")))
        return T.reshape(mm, [s, n], [1, s, n])

    a = rms("%x", "%ln1_w")
    q, k, v = lin(a, h, "%wq", h), lin(a, h, "%wk", h), lin(a, h, "%wv", h)
    hs = [1, nh, s, hd]

    def split(x):
        x4 = T.reshape(x, sh, [1, s, nh, hd])
        tr, _ = T.transpose(x4, [1, s, nh, hd], [0, 2, 1, 3])
        return tr

    def rope(x4):
        c = [1, 1, s, hd]
        xc, _ = T.binary("mul", x4, hs, "%cos", c)
        x1, s1 = L.slice_last(x4, hs, 0, hd // 2)
        x2, _ = L.slice_last(x4, hs, hd // 2, hd // 2)
        e = L.empty(s1)
        nx2 = fn.fresh()
        fn.emit("%s = linalg.negf ins(%s : %s) outs(%s : %s) -> %s" % (nx2, x2, tty(s1, "f32"), e, tty(s1, "f32"), tty(s1, "f32")))
        e2 = L.empty(hs)
        r = L.insert_last(nx2, s1, e2, hs, 0)
        r = L.insert_last(x1, s1, r, hs, hd // 2)
        rs, _ = T.binary("mul", r, hs, "%sin", c)
        y, _ = T.binary("add", xc, hs, rs, hs)
        return y
    q4, k4, v4 = rope(split(q)), rope(split(k)), split(v)
    kt, kts = T.transpose(k4, hs, [0, 1, 3, 2])
    # contiguous(): the importer's add of a zero constant before each view.
    zq = T.const(0.0, hs)
    q4c, _ = T.binary("add", q4, hs, zq, hs)
    q3 = T.reshape(q4c, hs, [nh, s, hd])
    zk = T.const(0.0, kts)
    ktc, _ = T.binary("add", kt, kts, zk, kts)
    k3 = T.reshape(ktc, kts, [nh, hd, s])
    sc, _ = T.matmul(q3, [nh, s, hd], k3, [nh, hd, s])
    ssh = [1, nh, s, s]
    sc = T.reshape(sc, [nh, s, s], ssh)
    scale = T.const(math.sqrt(hd), ssh)
    rscale = T.unary("reciprocal", scale, ssh)
    sc, _ = T.binary("mul", sc, ssh, rscale, ssh)
    sc, _ = T.binary("add", sc, ssh, "%mask", [1, 1, s, s])
    p = softmax(T, sc, ssh)
    zp_ = T.const(0.0, ssh)
    pc, _ = T.binary("add", p, ssh, zp_, ssh)
    p3 = T.reshape(pc, ssh, [nh, s, s])
    zv = T.const(0.0, hs)
    vc, _ = T.binary("add", v4, hs, zv, hs)
    v3 = T.reshape(vc, hs, [nh, s, hd])
    o, _ = T.matmul(p3, [nh, s, s], v3, [nh, s, hd])
    o4 = T.reshape(o, [nh, s, hd], hs)
    ot, ots = T.transpose(o4, hs, [0, 2, 1, 3])
    oi = T.unary("identity", ot, ots)
    o = T.reshape(oi, ots, sh)
    o = lin(o, h, "%wo", h)
    x, _ = T.binary("add", "%x", sh, o, sh)
    a = rms(x, "%ln2_w")
    ish = [1, s, inter]
    g = lin(a, h, "%wg", inter)
    sg = T.unary("sigmoid", g, ish)
    g, _ = T.binary("mul", g, ish, sg, ish)
    u = lin(a, h, "%wu", inter)
    gu, _ = T.binary("mul", g, ish, u, ish)
    d = lin(gu, inter, "%wd", h)
    y, _ = T.binary("add", x, sh, d, sh)
    fn.returns([(y, tty(sh, "f32"))])
    return m.text()


def main():
    hdr = "Generated by bench/corpus/gen_tosa.py (do not edit; regenerate).\n"
    files = {
        "gpt2_block_tosa.mlir": gen_gpt2_tosa(16, 64, 4, hdr + "Form: torch-mlir TorchToTosa.\n"
                                              "HF GPT2Block, batch 1, seq 16, hidden 64, 4 heads, f32, tanh GELU."),
        "bert_encoder_tosa.mlir": gen_bert_tosa(2, 16, 64, 4, 256, hdr + "Form: torch-mlir TorchToTosa.\n"
                                                "HF BertLayer, batch 2, seq 16, hidden 64, 4 heads, erf GELU, f32."),
        "vit_mlp_tosa_f16.mlir": gen_vit_mlp_tosa(17, 64, 256, hdr + "Form: torch-mlir TorchToTosa.\n"
                                                  "ViT block MLP half, batch 1, 17 tokens, hidden 64, f16, erf GELU."),
        "llama_decoder_tosa.mlir": gen_llama_tosa(16, 64, 4, 176, hdr + "Form: dynamo-based TOSA importer (TOSA + linalg).\n"
                                                  "Llama decoder layer, batch 1, seq 16, hidden 64, 4 heads (MHA), f32."),
    }
    write_corpus(files)


if __name__ == "__main__":
    main()
