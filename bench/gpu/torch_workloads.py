#!/usr/bin/env python3
"""PyTorch baselines for the six paper workloads (bench/workloads/*.mlir).

Each function below is the unfused reference graph `<name>_ref` of
bench/workloads/<name>.mlir, op by op, in the manifest's dtype (f16) on
CUDA. PyTorch eager runs them as one kernel (or library call) per op, which
is what the fused Mirage kernels are compared with; torch.compile (default
mode) is the compiler baseline.

    torch_workloads.py [--manifest REF_MANIFEST]... [--workload NAME]...
                       [--as NAME] [--warmup N] [--iters N] [--no-compile]
                       [--no-flush-l2]

With --manifest (a `<name>_ref` manifest written by mirage-kernels-to-ptx),
the workload is named by the manifest's graph and the shapes are its input
buffers' (by input_index); with --workload, the paper's shapes below; with
neither, all six at the paper's shapes. --as NAME names the function for
manifests whose graph is no workload's (the bench/models layers, whose
imported graph is `graph0`: decode_attention, gated_mlp). Prints one JSON
line per workload.

Timing matches mirage-run: warm-up runs, then each timed run between two
CUDA events, recorded back to back and read after one synchronisation; the
median is reported. By default a memset of a buffer four times the L2 size
(at least 64 MiB) precedes every run, outside its events, as in mirage-run.
"""
import argparse
import json
import math
import statistics
import sys


def rms_norm(x, eps):
    # mirage_kernel.rms_norm: x / sqrt(mean(x^2, last dim) + eps), no weight.
    return x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps)


def rmsnorm_matmul(x, w):
    # %n = rms_norm %a (eps 0); %m = matmul %n, %b
    return torch.matmul(rms_norm(x, 0.0), w)


def gated_mlp(x, w1, w2):
    # %m1 = matmul %a, %b1; %m2 = matmul %a, %b2; %s = silu %m1; mul %s, %m2
    m1 = torch.matmul(x, w1)
    m2 = torch.matmul(x, w2)
    return torch.nn.functional.silu(m1) * m2


def gated_mlp_linear(x, w1, w2):
    # bench/models/qwen2_5_7b_gated_mlp_linear.mlir: the weights as
    # nn.Linear holds them (out x in), F.linear as a PyTorch model calls it.
    # The manifest's buffers view them with the matmul's unit batch dim.
    m1 = torch.nn.functional.linear(x, w1.reshape(-1, w1.shape[-1]))
    m2 = torch.nn.functional.linear(x, w2.reshape(-1, w2.shape[-1]))
    return torch.nn.functional.silu(m1) * m2


def lora(x, w, a, b):
    # %xw = X@W; %xa = X@A; %xab = xa@B; add %xw, %xab
    xw = torch.matmul(x, w)
    xa = torch.matmul(x, a)
    xab = torch.matmul(xa, b)
    return xw + xab


def attention_no_max(q, k, v):
    # matmul -> exp -> reduce sum dim 2 (kept) -> div -> matmul; the paper's
    # softmax has no max subtraction, so neither does this one.
    s = torch.matmul(q, k)
    e = torch.exp(s)
    d = torch.sum(e, dim=2, keepdim=True)
    p = e / d
    return torch.matmul(p, v)


def gqa(q, k, v):
    return attention_no_max(q, k, v)


def qknorm(q, k, v):
    # rms_norm eps 1e-6 on Q and on V (as Mirage's qknorm_gqa.py), not on K.
    return attention_no_max(rms_norm(q, 1e-6), k, rms_norm(v, 1e-6))


def decode_attention(q, k, v):
    # The bench/models/attention decode layers (TOSA, fp16): scores scaled
    # by 1/sqrt(head dim), softmax with max subtraction (reduce_max, sub,
    # exp, reduce_sum, reciprocal, mul), then P·V; K is stored
    # head-dim-first (heads × d × keys), so Q·K needs no transpose.
    s = torch.matmul(q, k) * (1.0 / math.sqrt(q.shape[-1]))
    m = torch.amax(s, dim=-1, keepdim=True)
    e = torch.exp(s - m)
    p = e * torch.reciprocal(torch.sum(e, dim=-1, keepdim=True))
    return torch.matmul(p, v)


def decode_attention_kcache(q, k, v):
    # bench/models/attention/llama3_8b_gqa_decode_kcache.mlir: K as a KV
    # cache stores it (heads × keys × d), the scores Q·Kᵀ.
    return decode_attention(q, k.transpose(-1, -2), v)


def linear_bias(x, w, b):
    # bench/models/vit_b_fc1_f32.mlir: tosa.matmul then tosa.add of the bias
    # (f32: cuBLAS's f32 GEMM, TF32 off for matmuls by PyTorch's default).
    return torch.matmul(x, w) + b


def ntrans(h, x, alpha):
    # %hn = rms_norm %H; %s = hn + X; %u = A * s; %v = X + u; rms_norm %v
    hn = rms_norm(h, 0.0)
    s = hn + x
    u = alpha * s
    v = x + u
    return rms_norm(v, 0.0)


# The paper's shapes, as in bench/workloads/*.mlir.
WORKLOADS = {
    "rmsnorm_matmul": (rmsnorm_matmul, [[16, 4096], [4096, 6144]]),
    "gated_mlp": (gated_mlp, [[8, 4096], [4096, 4096], [4096, 4096]]),
    "lora": (lora, [[16, 256], [256, 4096], [256, 16], [16, 4096]]),
    "gqa": (gqa, [[2, 256, 64], [2, 64, 4096], [2, 4096, 64]]),
    "qknorm": (qknorm, [[2, 256, 64], [2, 64, 4096], [2, 4096, 64]]),
    "ntrans": (ntrans, [[8, 4096], [8, 4096], [8, 4096]]),
    # Llama-3-8B decode (bench/models/attention/llama3_8b_gqa_decode.mlir).
    "decode_attention": (decode_attention, [[8, 4, 128], [8, 128, 8192], [8, 8192, 128]]),
    # Llama-3-8B decode with K as a KV cache stores it
    # (bench/models/attention/llama3_8b_gqa_decode_kcache.mlir).
    "decode_attention_kcache": (decode_attention_kcache, [[8, 4, 128], [8, 8192, 128], [8, 8192, 128]]),
    # Qwen2.5-7B gated MLP with nn.Linear weights
    # (bench/models/qwen2_5_7b_gated_mlp_linear.mlir).
    "gated_mlp_linear": (gated_mlp_linear, [[1, 4, 3584], [18944, 3584], [18944, 3584]]),
    # ViT-B/16 fc1 in f32 (bench/models/vit_b_fc1_f32.mlir).
    "linear_bias": (linear_bias, [[1, 197, 768], [1, 768, 3072], [1, 1, 3072]]),
}


def from_manifest(path, as_name=None):
    """(workload, shapes, dtype) from a mirage-run manifest's input buffers."""
    with open(path) as f:
        m = json.load(f)
    graph = m["graph"]
    name = as_name or graph
    for suffix in ("_ref", "_best"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name not in WORKLOADS:
        raise SystemExit("%s: graph %r is none of %s" % (path, graph, ", ".join(WORKLOADS)))
    inputs = sorted((b for b in m["buffers"] if b["role"] == "input"),
                    key=lambda b: b["input_index"])
    dtypes = {b["dtype"] for b in inputs}
    if len(dtypes) != 1:
        raise SystemExit("%s: inputs of mixed dtypes %s" % (path, sorted(dtypes)))
    return name, [b["shape"] for b in inputs], dtypes.pop()


def time_runs(fn, args, warmup, iters, flush):
    """Median and min microseconds of fn(*args), timed like mirage-run."""
    for i in range(warmup):
        if flush is not None:
            flush.fill_(i & 0x7F)
        fn(*args)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        if flush is not None:
            flush.fill_(i & 0x7F)
        starts[i].record()
        fn(*args)
        stops[i].record()
    torch.cuda.synchronize()
    us = [s.elapsed_time(e) * 1000.0 for s, e in zip(starts, stops)]
    return statistics.median(us), min(us)


def max_rel_diff(got, want):
    got, want = got.double(), want.double()
    scale = max(want.abs().max().item(), 1e-30)
    return (got - want).abs().max().item() / scale


def run_workload(name, shapes, dtype, args):
    fn = WORKLOADS[name][0]
    torch_dtype = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dtype]
    gen = torch.Generator(device="cuda").manual_seed(1)
    # Uniform in [-0.25, 0.25), the range of SeededValues.h: keeps the
    # max-free softmax of GQA and QKNorm inside f16.
    inputs = [torch.rand(s, generator=gen, device="cuda", dtype=torch.float32)
              .sub_(0.5).mul_(0.5).to(torch_dtype) for s in shapes]
    flush = None
    if not args.no_flush_l2:
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 50 << 20)
        flush = torch.empty(max(4 * l2, 64 << 20), dtype=torch.int8, device="cuda")

    result = {"workload": name, "shapes": shapes, "dtype": dtype,
              "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "warmup": args.warmup, "iters": args.iters, "l2_flush": flush is not None}
    with torch.no_grad():
        try:
            eager_out = fn(*inputs)
            result["eager_us"], result["eager_min_us"] = time_runs(
                fn, inputs, args.warmup, args.iters, flush)
        except Exception as e:  # keep going: report it in the table
            result["error"] = "eager: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            return result
        if args.no_compile:
            return result
        try:
            torch._dynamo.reset()
            compiled = torch.compile(fn)
            compiled_out = compiled(*inputs)  # compiles
            result["compile_vs_eager_max_rel_diff"] = max_rel_diff(compiled_out, eager_out)
            result["compile_us"], result["compile_min_us"] = time_runs(
                compiled, inputs, args.warmup, args.iters, flush)
        except Exception as e:
            msg = str(e).strip().splitlines()
            result["compile_us"] = None
            result["compile_error"] = "%s: %s" % (type(e).__name__, msg[0] if msg else "")
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--manifest", action="append", default=[],
                   help="a <name>_ref manifest: workload and shapes from it")
    p.add_argument("--workload", action="append", default=[], choices=sorted(WORKLOADS),
                   help="a workload at the paper's shapes")
    p.add_argument("--as", dest="as_name", choices=sorted(WORKLOADS),
                   help="the function for the --manifest graphs (bench/models layers)")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--no-flush-l2", action="store_true",
                   help="do not evict L2 between timed runs")
    args = p.parse_args()
    if args.iters < 1 or args.warmup < 0:
        p.error("--iters must be at least 1 and --warmup at least 0")

    jobs = [from_manifest(m, args.as_name) for m in args.manifest]
    jobs += [(w, WORKLOADS[w][1], "f16") for w in args.workload]
    if not jobs:
        jobs = [(w, s, "f16") for w, (_, s) in WORKLOADS.items()]

    global torch
    try:
        import torch
    except ImportError as e:
        for name, shapes, dtype in jobs:
            print(json.dumps({"workload": name, "error": "no PyTorch: %s" % e}), flush=True)
        return 1
    if not torch.cuda.is_available():
        for name, shapes, dtype in jobs:
            print(json.dumps({"workload": name, "error": "PyTorch sees no CUDA device"}), flush=True)
        return 1

    failed = False
    for name, shapes, dtype in jobs:
        r = run_workload(name, shapes, dtype, args)
        failed |= "error" in r
        print(json.dumps(r), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
