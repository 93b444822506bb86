#!/usr/bin/env python3
"""Writes the calibration probes of the GPU bundle as kernel graphs.

    make_probes.py OUT.mlir [--block-kib N] [--l2-loops A,B,C]

docs/Rationale/CalibrationProbes.md: single-purpose μGraphs, each isolating
one term of the cost model, lowered like every graph by
mirage-kernels-to-ptx (make_bundle.sh) and timed by run.sh; calibrate.py
reads the terms back from their times.

* stream_g{G}_t{T}: one kernel of G blocks; each streams N KiB (--block-kib,
  512) of X in a for-loop of [1, T, 128] f16 tiles into an accumulator and
  writes one summed row. Grids 1..264 at T = 64 (128 among them: the
  winners' one-wave grids, 4 SMs idle), and T = 8..128 at G = 132.
* launch_n{N}: N one-block element-wise kernels in a chain (N = 1, 2, 4, 8).
* l2_{MB}mb: an element-wise kernel writing Y (132 x 64F x 128 f16, F from
  --l2-loops) and a 132-block stream kernel reading it.
* gemv_w{W}: one kernel of 132 blocks multiplying x (4 x K) by a K x 132W
  weight, each block its strip of W columns (2W contiguous bytes a row), in
  a for-loop of 16 KiB of weight per iteration, N KiB (--gemv-kib, 1024)
  per block; W = 16..256.

Standard library only. Every graph is a func of its own, named as its graph.
"""
import argparse
import sys

COLS = 128          # f16 columns: a 256-byte row, 16-byte vector copies
SMS = 132           # H100 SXM; the grids around it
GRIDS = [1, 8, 33, 66, 128, 132, 264]   # 128: one wave that leaves 4 SMs idle
TILE_ROWS = [8, 16, 32, 64, 128]
CHAIN = [1, 2, 4, 8]
GEMV_WIDTHS = [16, 32, 64, 128, 256]   # columns of a block's weight strip
GEMV_ROWS = 4                          # decode tokens
GEMV_STAGE_BYTES = 16 * 1024           # weight bytes per for-loop iteration


def t(*dims):
    return "tensor<%sxf16>" % "x".join(str(d) for d in dims)


def stream_kernel(arg, grid, loops, rows, indent):
    """A custom kernel reading arg (grid x loops*rows x COLS) into grid x 1 x COLS."""
    x, y = t(grid, loops * rows, COLS), t(grid, 1, COLS)
    tile, row = t(1, rows, COLS), t(1, 1, COLS)
    p = " " * indent
    return "\n".join([
        "%s%%k = mirage_kernel.custom(%s) grid = [%d, 1, 1] forloop = %d : (%s) -> %s {"
        % (p, arg, grid, loops, x, y),
        "%s^bb0(%%b: %s):" % (p, x),
        "%s  %%t = mirage_block.input_iterator %%b imap = [0, -1, -1] fmap = 1 : %s -> %s"
        % (p, x, tile),
        "%s  %%s = mirage_block.accum sum %%t : %s -> %s" % (p, tile, tile),
        "%s  %%r = mirage_block.reduce sum %%s dim 1 : %s -> %s" % (p, tile, row),
        "%s  %%o = mirage_block.output_saver %%r omap = [0, -1, -1] : %s -> %s"
        % (p, row, y),
        "%s  mirage_block.yield %%o : %s" % (p, y),
        "%s}" % p,
    ])


def graph(name, inputs, result, body):
    """A func holding one kernel graph of the given body lines."""
    args = ", ".join("%%x%d: %s" % (i, ty) for i, ty in enumerate(inputs))
    types = ", ".join(inputs)
    blocks = ", ".join("%%a%d: %s" % (i, ty) for i, ty in enumerate(inputs))
    operands = ", ".join("%%x%d" % i for i in range(len(inputs)))
    return "\n".join([
        "  func.func @%s(%s) -> %s {" % (name, args, result),
        '    %%g = mirage_kernel.graph "%s"(%s) : (%s) -> %s {' % (name, operands, types, result),
        "    ^bb0(%s):" % blocks,
        body,
        "    }",
        "    return %%g : %s" % result,
        "  }",
    ])


def stream(grid, rows, block_bytes):
    loops = max(1, block_bytes // (rows * COLS * 2))
    x, y = t(grid, loops * rows, COLS), t(grid, 1, COLS)
    body = stream_kernel("%a0", grid, loops, rows, 6) + \
        "\n      mirage_kernel.yield %%k : %s" % y
    return graph("stream_g%d_t%d" % (grid, rows), [x], y, body)


def launch(n):
    v = t(8, COLS)
    lines, prev = [], "%a0"
    for i in range(n):
        lines.append("      %%c%d = mirage_kernel.unary mul_scalar %s scalar(0.5) : %s"
                     % (i, prev, v))
        prev = "%%c%d" % i
    lines.append("      mirage_kernel.yield %s : %s" % (prev, v))
    return graph("launch_n%d" % n, [v], v, "\n".join(lines))


def l2(loops):
    rows = 64
    x, y = t(SMS, loops * rows, COLS), t(SMS, 1, COLS)
    mb = round(SMS * loops * rows * COLS * 2 / 1e6)
    body = "\n".join([
        "      %%w = mirage_kernel.unary mul_scalar %%a0 scalar(0.5) : %s" % x,
        stream_kernel("%w", SMS, loops, rows, 6),
        "      mirage_kernel.yield %%k : %s" % y,
    ])
    return graph("l2_%dmb" % mb, [x], y, body)


def gemv(width, block_bytes):
    """x (4 x K) @ W (K x 132 width): 132 blocks, each its strip of `width`
    columns, K = block_bytes / (2 width), 16 KiB of the strip per iteration."""
    k = block_bytes // (2 * width)
    rows = GEMV_STAGE_BYTES // (2 * width)
    loops = k // rows
    n = SMS * width
    x, w, y = t(GEMV_ROWS, k), t(k, n), t(GEMV_ROWS, n)
    xt, wt, yt = t(GEMV_ROWS, rows), t(rows, width), t(GEMV_ROWS, width)
    body = "\n".join([
        "      %%k = mirage_kernel.custom(%%a0, %%a1) grid = [%d, 1, 1] forloop = %d : (%s, %s) -> %s {"
        % (SMS, loops, x, w, y),
        "      ^bb0(%%x: %s, %%w: %s):" % (x, w),
        "        %%xt = mirage_block.input_iterator %%x imap = [-1, -1, -1] fmap = 1 : %s -> %s" % (x, xt),
        "        %%wt = mirage_block.input_iterator %%w imap = [1, -1, -1] fmap = 0 : %s -> %s" % (w, wt),
        "        %%m = mirage_block.matmul %%xt, %%wt : %s, %s -> %s" % (xt, wt, yt),
        "        %%s = mirage_block.accum sum %%m : %s -> %s" % (yt, yt),
        "        %%o = mirage_block.output_saver %%s omap = [1, -1, -1] : %s -> %s" % (yt, y),
        "        mirage_block.yield %%o : %s" % y,
        "      }",
        "      mirage_kernel.yield %%k : %s" % y,
    ])
    return graph("gemv_w%d" % width, [x, w], y, body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--block-kib", type=int, default=512,
                    help="bytes each stream block reads, in KiB (512)")
    ap.add_argument("--gemv-kib", type=int, default=1024,
                    help="weight bytes each gemv block reads, in KiB (1024)")
    ap.add_argument("--l2-loops", default="2,8,48",
                    help="for-loop lengths of the l2 probes' reader (2,8,48: 4, 17, 104 MB)")
    a = ap.parse_args()
    block = a.block_kib * 1024
    graphs = [stream(g, 64, block) for g in GRIDS]
    graphs += [stream(SMS, r, block) for r in TILE_ROWS if r != 64]
    graphs += [launch(n) for n in CHAIN]
    graphs += [l2(int(f)) for f in a.l2_loops.split(",")]
    graphs += [gemv(w, a.gemv_kib * 1024) for w in GEMV_WIDTHS]
    with open(a.out, "w") as f:
        f.write("// Calibration probes: bench/gpu/make_probes.py "
                "(docs/Rationale/CalibrationProbes.md).\nmodule {\n")
        f.write("\n".join(graphs))
        f.write("\n}\n")
    print("make_probes.py: %d probe graphs in %s" % (len(graphs), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
