#!/usr/bin/env python3
"""Static audit of the kernels of PTX bundles (no GPU needed).

Usage:
  kernel_audit.py [--json] [--main-loop] [--chip sm_XX] [--ptxas PATH | --no-ptxas] DIR...

A bundle is any directory holding `<graph>.<chip>.ptx` and
`<graph>.<chip>.manifest.json` pairs, as the `mirage-kernels-to-ptx` and
`mirage-superoptimize-to-ptx` pipelines write them; DIRs are searched
recursively for `*.manifest.json`. For every kernel of every manifest it
prints one markdown table row, then a summary line with the number of
kernels and of each flag. The checks follow
../shared/reference/kernel-roofline.md ("Targets"); every figure comes from
the PTX text, `ptxas -v` and the manifest, so it is a reading of what the
code generator emitted, not a measurement.

--main-loop adds a second table: for every kernel with a main loop (the
widest loop that issues cp.async and waits for it), what one trip issues
per thread (so per warp): its PTX statements and, of those, `ld.shared`
and `st.shared` (any width), `ldmatrix`, `mma.sync`, `ex2` and `bar.sync`.
A statement inside a phase loop counts as many times as that loop runs:
its trips averaged over the block's threads where its counter starts at
%tid.x (a thread phase), or (bound - start) / step where it starts at a
constant; a loop whose trips the PTX does not say counts once, and the
last column counts those loops (the figures are then lower bounds). The
--json records carry the same as "main_loop" (null without a main loop).

Where each column comes from:
  grid, threads      manifest `grid` (x×y×z = blocks) and `block`.
  smem B             ptxas -v "N bytes smem" (static) + manifest
                     `dynamic_shared_bytes`. Without ptxas the static part is
                     the manifest's optional `static_shared_bytes`, else the
                     sum of the PTX `.shared` declarations the kernel names.
  regs, spill B      ptxas -arch=<chip> -v: "Used N registers", "N bytes spill
                     stores, N bytes spill loads" (printed stores/loads).
  resident/SM        min over four limits, the limiting one in brackets:
                       smem:    smem_per_SM // (smem + 1,024 B reserve)
                       regs:    (65,536 // per_warp) // warps_per_block, where
                                per_warp = ceil(regs × 32 / 256) × 256
                       threads: 2,048 // (warps_per_block × 32)
                       blocks:  32
  waves              ceil(blocks / (SMs × resident)).
  wait depths        the distinct N of `cp.async.wait_group N` in the kernel
                     body, largest first (`wait_all` counts as 0).
  copies/group       number of cp.async / number of commit_group; "per-copy
                     waits (N)" instead when every commit group holds one copy
                     and is followed at once by `wait_group 0`, and these N
                     groups repeat (N >= 2, or the group is in a loop): a
                     kernel whose single copy runs once has nothing to batch.
  flight/SM B        bytes in flight per SM, the Little's-law input:
                       group_bytes × max(max_wait_depth, 1) × blocks_per_SM
                     group_bytes = (sum of the cp.async sizes in the body /
                     number of commit groups) × threads; blocks_per_SM =
                     min(resident, ceil(blocks / SMs)): the blocks an SM
                     holds in the first wave, so a grid smaller than the
                     machine is not credited with blocks it does not have. A
                     depth-N wait leaves N groups outstanding; depth 0 counts
                     one group (the one being waited for). The counts are
                     static (PTX text), with one exception: a copy in a
                     loop that issues copies without waiting (a copy loop
                     not unrolled, its commit after it) counts once per
                     trip, on average over the block's threads, where the
                     trip count can be read off the PTX: a counter that
                     starts at a constant or at %tid.x plus a constant
                     (directly, through mov/cvt/add, or as `or.b64 tid,
                     -S`, i.e. tid - S, upstream's rotated loop), adds a
                     constant each trip, and is compared `setp.lt` with a
                     constant before the backward branch (ViT fc1's combine:
                     591 copies a stage over 128 threads, 4.6 per thread).
                     Any other copy loop counts one trip, and its flight is
                     understated.
  mma / fma          `mma.sync` and `fma.rn[.ftz].f32` instructions in the body.
  bar.sync (loop)    `bar.sync` statements in the body, and in parentheses
                     those inside a loop that copies and waits (the main
                     loop: each runs once per trip; WarpReductions.md).
  bytes moved        sum over the kernel's `args` of the buffer sizes
                     (product of `shape` × dtype size): reads + writes, each
                     buffer once.
  floor µs           bytes moved / device copy bandwidth (3.0 TB/s sm_90,
                     1.5 TB/s sm_80): the time at copy speed.
  model µs, model/floor, plan smem B, stages, tc/mm, model flight B
                     the cost model's optional kernel fields `estimate_us`
                     (and its ratio to floor µs), `plan_shared_bytes`,
                     `stages`, `tensor_core_matmuls`/`matmuls`,
                     `bytes_in_flight_per_sm`; "-" where absent. The same
                     figures are also read from a nested `plan` object
                     (`shared_bytes` for plan_shared_bytes, and
                     `bytes_in_flight_per_block` × `resident_blocks_per_sm`
                     for the flight when it has no per-SM figure).

Flags (last column):
  NO-LAUNCH           smem > the per-block maximum (232,448 B sm_90,
                      166,912 B sm_80), threads > 1,024 or regs × threads >
                      65,536: the launch fails.
  SPILLS              ptxas reports spill stores or loads.
  UNPIPELINED         a loop of the body (a backward branch) contains cp.async
                      and a wait, and every wait is `wait_group 0`: each
                      trip fetches and waits, no copy overlaps compute. (A
                      loop that only issues one group's copies, waited for
                      after it, is one round trip: no finding.)
  PER-COPY-WAITS      every commit group is one copy waited for at once, and
                      the groups repeat (see copies/group).
  UNDERFILLED         bytes moved >= 1 MB (10^6 B) and the grid does not
                      fill the machine (kernel-roofline.md, target 2): fewer
                      blocks than SMs (132 on sm_90, 108 on sm_80), or more
                      than 10 % of the SM-time idle when the busiest SM runs
                      ceil(blocks / SMs) of them (the tail, counted in
                      blocks: blocks resident together share their SM's
                      bandwidth, so a memory-bound grid ends with the SMs
                      that hold the most, one wave or not).
  FLIGHT<16KB         a memory-bound cp.async kernel with < 16 KB (16,384 B)
                      in flight per SM: below what copy bandwidth needs at
                      DRAM latency. Memory-bound: it moves at least one DRAM
                      latency's worth of copy bandwidth (Little's law:
                      3.0 TB/s × 700 ns = 2.1 MB on sm_90, 1.05 MB on
                      sm_80). A smaller kernel is latency-bound: the whole
                      machine keeping 16 KB per SM in flight would move more
                      than it has in one round trip, and no amount in flight
                      brings it below one. Nor is a kernel flagged whose
                      busiest SM has all its loads in flight at once (the
                      manifest's `loaded_bytes` over the blocks, times the
                      busiest SM's blocks, at most what is in flight): it
                      has no more to put in flight. Nor is a kernel the
                      cost model prices compute-bound (the manifest's
                      `compute_us` above its `memory_us`: an FMA matmul on
                      register micro-tiles), whose time bytes in flight
                      do not set.
  PLAN-SMEM-MISMATCH  the manifest's `plan_shared_bytes` differs from smem B.
  PTXAS-FAILED        ptxas rejected the PTX file (its columns show "-").

Exit status: 0 when the audit ran, flags or not; 2 on bad input (no
manifests, unreadable or malformed manifest, missing PTX file or entry,
unknown chip).
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Chip:
    sms: int
    smem_per_sm: int      # shared memory an SM has for blocks, bytes
    smem_per_block: int   # the most one block may have (static + dynamic)
    copy_bytes_per_s: float


CHIPS = {
    "sm_90": Chip(sms=132, smem_per_sm=233472, smem_per_block=232448,
                  copy_bytes_per_s=3.0e12),
    "sm_80": Chip(sms=108, smem_per_sm=167936, smem_per_block=166912,
                  copy_bytes_per_s=1.5e12),
}

# Limits common to sm_80 and sm_90.
SMEM_RESERVE_PER_BLOCK = 1024    # the driver's reserve, charged per block
REGS_PER_SM = 65536
REG_ALLOC_UNIT_PER_WARP = 256
THREADS_PER_SM = 2048
BLOCKS_PER_SM = 32
MAX_THREADS_PER_BLOCK = 1024
MAX_REGS_PER_BLOCK = 65536

UNDERFILLED_BYTES = 10**6
MAX_IDLE_FRACTION = 0.10      # kernel-roofline.md, target 2: "tail <= 10 %"


def fills_machine(chip, blocks):
    """Target 2: a block on every SM and at most 10 % of the SM-time idle
    when the busiest SM runs ceil(blocks / SMs) blocks."""
    if blocks < chip.sms:
        return False
    busiest = -(-blocks // chip.sms)
    return 1 - blocks / (chip.sms * busiest) <= MAX_IDLE_FRACTION


MIN_FLIGHT_PER_SM = 16 * 1024
DRAM_LATENCY_S = 700e-9          # kernel-roofline.md: 600-800 ns


def memory_bound(chip, moved):
    """Moves at least bandwidth × latency: more than one round trip of the
    whole machine (Little's law), so bytes in flight set its time."""
    return moved >= chip.copy_bytes_per_s * DRAM_LATENCY_S


def compute_bound(model):
    """The cost model prices the kernel's compute above its memory term."""
    c, m = model.get("compute_us"), model.get("memory_us")
    return is_number(c) and is_number(m) and c > m

DTYPE_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8,
               "i8": 1, "i16": 2, "i32": 4, "i64": 8}

FLAGS = ["NO-LAUNCH", "SPILLS", "UNPIPELINED", "PER-COPY-WAITS",
         "UNDERFILLED", "FLIGHT<16KB", "PLAN-SMEM-MISMATCH", "PTXAS-FAILED"]

# The cost model's optional per-kernel figures, as top-level kernel fields,
# and their names inside a nested "plan" object (the form the manifest
# writer is moving to; either is read).
MODEL_FIELDS = {"estimate_us": "estimate_us", "plan_shared_bytes": "shared_bytes",
                "stages": "stages", "tensor_core_matmuls": "tensor_core_matmuls",
                "matmuls": "matmuls", "bytes_in_flight_per_sm": "bytes_in_flight_per_sm",
                "l2_bytes": "l2_bytes", "dram_bytes": "dram_bytes",
                "loaded_bytes": "loaded_bytes", "memory_us": "memory_us",
                "compute_us": "compute_us"}


class AuditError(Exception):
    """Bad input: reported with exit status 2."""


# --------------------------------------------------------------------------
# Finding and reading the bundles

def find_manifests(dirs):
    """All *.manifest.json under dirs, recursively, in a stable order."""
    found, seen = [], set()
    for d in dirs:
        if not os.path.isdir(d):
            raise AuditError("%s is not a directory" % d)
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            for f in sorted(files):
                path = os.path.join(root, f)
                # A directory given twice, or inside another, counts once.
                if f.endswith(".manifest.json") and os.path.realpath(path) not in seen:
                    seen.add(os.path.realpath(path))
                    found.append(path)
    if not found:
        raise AuditError("no *.manifest.json under %s" % " ".join(dirs))
    return found


def load_manifest(path):
    """The manifest as a dict, with the fields the audit reads checked."""
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        raise AuditError("cannot read %s: %s" % (path, e))

    def need(cond, what):
        if not cond:
            raise AuditError("%s: %s" % (path, what))

    need(isinstance(m, dict), "not a JSON object")
    for key in ("graph", "chip", "ptx"):
        need(isinstance(m.get(key), str) and m[key], "no '%s' string" % key)
    need(isinstance(m.get("buffers"), list) and m["buffers"], "no 'buffers' list")
    need(isinstance(m.get("kernels"), list) and m["kernels"], "no 'kernels' list")
    for b in m["buffers"]:
        need(isinstance(b, dict) and b.get("dtype") in DTYPE_BYTES,
             "buffer %r: dtype not one of %s" % (b, ", ".join(DTYPE_BYTES)))
        need(isinstance(b.get("shape"), list)
             and all(isinstance(d, int) and d > 0 for d in b["shape"]),
             "buffer %r: bad shape" % b.get("name"))
    for k in m["kernels"]:
        need(isinstance(k, dict) and isinstance(k.get("name"), str),
             "kernel without a name")
        for key in ("grid", "block"):
            need(isinstance(k.get(key), list) and len(k[key]) == 3
                 and all(isinstance(d, int) and d > 0 for d in k[key]),
                 "kernel %s: '%s' is not three positive integers" % (k["name"], key))
        need(isinstance(k.get("args"), list)
             and all(isinstance(a, int) and 0 <= a < len(m["buffers"]) for a in k["args"]),
             "kernel %s: 'args' are not buffer indices" % k["name"])
        need(is_number(k.get("dynamic_shared_bytes", 0))
             and k.get("dynamic_shared_bytes", 0) >= 0,
             "kernel %s: 'dynamic_shared_bytes' is not a number >= 0" % k["name"])
        need(k.get("static_shared_bytes") is None
             or (is_number(k["static_shared_bytes"]) and k["static_shared_bytes"] >= 0),
             "kernel %s: 'static_shared_bytes' is not a number >= 0" % k["name"])
        need("plan" not in k or isinstance(k["plan"], dict),
             "kernel %s: 'plan' is not an object" % k["name"])
        for field, value in model_fields(k).items():
            if field == "loaded_bytes":  # one number per argument
                need(value is None or (isinstance(value, list)
                                       and len(value) == len(k["args"])
                                       and all(is_number(v) for v in value)),
                     "kernel %s: 'loaded_bytes' is not one number per argument"
                     % k["name"])
                continue
            need(value is None or is_number(value),
                 "kernel %s: '%s' is not a number" % (k["name"], field))
    return m


def model_fields(kernel):
    """The cost model's figures for a kernel (MODEL_FIELDS), None where the
    manifest has none. From a nested plan, bytes in flight per SM is its
    bytes_in_flight_per_block × resident_blocks_per_sm."""
    plan = kernel.get("plan") if isinstance(kernel.get("plan"), dict) else {}
    fields = {f: kernel.get(f, plan.get(name)) for f, name in MODEL_FIELDS.items()}
    per_block, resident = (plan.get("bytes_in_flight_per_block"),
                           plan.get("resident_blocks_per_sm"))
    if (fields["bytes_in_flight_per_sm"] is None
            and is_number(per_block) and is_number(resident)):
        fields["bytes_in_flight_per_sm"] = per_block * resident
    return fields


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def buffer_bytes(buf):
    return math.prod(buf["shape"]) * DTYPE_BYTES[buf["dtype"]]


# --------------------------------------------------------------------------
# PTX text

ENTRY_RE = re.compile(r"\.entry\s+([\w$.]+)\s*\(")
SHARED_DECL_RE = re.compile(
    r"(\.extern\s+)?\.shared\s+(?:\.align\s+\d+\s+)?\.([busf])(\d+)\s+"
    r"([\w$.]+)((?:\s*\[\d*\])*)\s*;")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def matching_brace(text, open_at):
    """Index of the `}` closing the `{` at open_at (operand vectors such as
    `{%r1, %r2}` and nested scopes are balanced, so counting suffices)."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced braces")


def split_entries(text):
    """(entry name -> body text, module text outside the entry bodies)."""
    bodies, outside, pos = {}, [], 0
    for m in ENTRY_RE.finditer(text):
        if m.start() < pos:     # an `.entry` mentioned inside a body
            continue
        params_end = text.index(")", m.end())
        open_at = text.index("{", params_end)
        close_at = matching_brace(text, open_at)
        bodies[m.group(1)] = text[open_at + 1:close_at]
        outside.append(text[pos:m.start()])
        pos = close_at + 1
    outside.append(text[pos:])
    return bodies, "".join(outside)


def shared_decls(text):
    """name -> bytes of the `.shared` variables declared in text (extern
    arrays, the dynamic region, count 0: the manifest gives that size)."""
    decls = {}
    for extern, _kind, bits, name, dims in SHARED_DECL_RE.findall(text):
        sizes = [int(d) for d in re.findall(r"\[(\d*)\]", dims) if d]
        decls[name] = 0 if extern else int(bits) // 8 * math.prod(sizes)
    return decls


def declared_static_smem(body, module_text):
    """Static shared bytes of one kernel from the declarations: its own and
    the module-scope ones it names (ptxas allocates only those)."""
    own = sum(shared_decls(body).values())
    used = sum(size for name, size in shared_decls(module_text).items()
               if re.search(r"(?<![\w$.])%s(?![\w$.])" % re.escape(name), body))
    return own + used


LABEL_RE = re.compile(r"^([\w$]+):\s*")
PRED_RE = re.compile(r"^@!?%\w+\s+")


def statements(body):
    """The body as an ordered list of ("label", name) and ("instr", text)
    events; predicates are dropped from instructions."""
    events = []
    for piece in body.split(";"):
        s = piece.strip()
        while True:
            s = s.lstrip("{} \t\r\n")
            m = LABEL_RE.match(s)
            if not m:
                break
            events.append(("label", m.group(1)))
            s = s[m.end():]
        if s:
            events.append(("instr", " ".join(PRED_RE.sub("", s).split())))
    return events


BRANCH_RE = re.compile(r"^bra(?:\.uni)?\s+([\w$]+)$")
COPY_RE = re.compile(r"^cp\.async\.(?:ca|cg)\.shared\S*\s+\[[^\]]*\]\s*,\s*\[[^\]]*\]\s*,\s*(\d+)")
COMMIT_RE = re.compile(r"^cp\.async\.commit_group$")
BARRIER_RE = re.compile(r"^bar\.sync\b")
WAIT_RE = re.compile(r"^cp\.async\.wait_(?:group\s+(\d+)|all)$")
MMA_RE = re.compile(r"^mma\.sync\b")
FMA_RE = re.compile(r"^fma\.rn(?:\.ftz)?\.f32\b")


def loops(events):
    """(first, last) event index of every backward branch's range."""
    at = {name: i for i, (kind, name) in enumerate(events) if kind == "label"}
    found = []
    for i, (kind, text) in enumerate(events):
        m = BRANCH_RE.match(text) if kind == "instr" else None
        if m and m.group(1) in at and at[m.group(1)] <= i:
            found.append((at[m.group(1)], i))
    return found


def in_any_loop(index, loop_ranges):
    return any(first <= index <= last for first, last in loop_ranges)


INSTR_OPERANDS_RE = re.compile(r"^(\S+)\s+(.*)$")
SETP_LT_RE = re.compile(r"^setp\.lt\.[us](?:32|64)\s+%\w+\s*,\s*(%\w+)\s*,\s*(-?\d+)$")


def operands(text):
    """An instruction's opcode and its comma-separated operands."""
    m = INSTR_OPERANDS_RE.match(text)
    if not m:
        return text, []
    return m.group(1), [o.strip() for o in m.group(2).split(",")]


def tid_relative(reg, defs, seen=()):
    """reg as ("tid", c) (%tid.x + c) or ("const", c), following the moves,
    conversions, additions of constants and `or.b64 x, -S` (x - S when the
    value x, a thread index, is below S) that `defs` (register -> its one
    defining instruction) records; None otherwise."""
    if reg in seen or reg not in defs:
        return None
    op, args = operands(defs[reg])
    src = args[1:] if len(args) >= 2 else []
    def const(a):
        return int(a) if re.fullmatch(r"-?\d+", a) else None
    if op.startswith("mov.") and len(src) == 1:
        if src[0] == "%tid.x":
            return ("tid", 0)
        if const(src[0]) is not None:
            return ("const", const(src[0]))
        return tid_relative(src[0], defs, seen + (reg,))
    if op.startswith("cvt.") and len(src) == 1:
        return tid_relative(src[0], defs, seen + (reg,))
    if op.startswith("add.") and len(src) == 2 and const(src[1]) is not None:
        base = tid_relative(src[0], defs, seen + (reg,))
        return (base[0], base[1] + const(src[1])) if base else None
    if op == "or.b64" and len(src) == 2 and const(src[1]) is not None:
        s = -const(src[1])
        base = tid_relative(src[0], defs, seen + (reg,))
        # x | -S == x - S for 0 <= x < S, S a power of two.
        if base == ("tid", 0) and s > 0 and s & (s - 1) == 0:
            return ("tid", -s)
    return None


def loop_counter(events, rng, compare_re, step_re):
    """The counter of the loop `rng` as (start, step, bound): the register
    the last `compare_re` of the body compares with a constant bound,
    stepped by exactly one `add` of a constant matching `step_re`, and its
    value on entry (tid_relative of its last definition before the loop);
    None where the PTX does not say."""
    first, last = rng
    body = [text for kind, text in events[first:last + 1] if kind == "instr"]
    compare = next((compare_re.match(t) for t in reversed(body)
                    if compare_re.match(t)), None)
    if not compare:
        return None
    counter, bound = compare.group(1), int(compare.group(2))
    steps = [operands(t)[1] for t in body if operands(t)[0].startswith("add.")]
    steps = [int(a[2]) for a in steps
             if len(a) == 3 and a[0] == counter and a[1] == counter
             and re.fullmatch(step_re, a[2])]
    if len(steps) != 1:
        return None
    # Each register's last definition before the loop: its value on entry.
    defs = {}
    for kind, text in events[:first]:
        if kind == "instr":
            op, args = operands(text)
            if args and args[0].startswith("%") and not op.startswith(("st.", "cp.", "bar.", "bra")):
                defs[args[0]] = text
    start = tid_relative(counter, defs)
    return None if start is None else (start, steps[0], bound)


def average_trips(events, rng, threads):
    """The trips of the loop `rng` (a do-while: the body runs, the counter
    steps, `setp.lt` against a bound, the backward branch), averaged over
    the block's `threads`; None where the PTX does not say."""
    counter = loop_counter(events, rng, SETP_LT_RE, r"\d+")
    if counter is None:
        return None
    start, step, bound = counter
    if step <= 0 or (start[0] == "tid" and start[1] < -step):
        return None
    total = 0
    for tid in range(threads if start[0] == "tid" else 1):
        value = (tid if start[0] == "tid" else 0) + start[1]
        trips = 1
        while value + trips * step < bound:
            trips += 1
        total += trips
    return total / (threads if start[0] == "tid" else 1)


def copy_weights(events, loop_ranges, threads):
    """Per event index, how many times a cp.async there runs per thread
    before its commit: the product of the average trips of the copy loops
    (loops without a wait) around it, 1 outside them."""
    weights = {}
    copy_loops = [rng for rng in loop_ranges
                  if not any(kind == "instr" and WAIT_RE.match(text)
                             for kind, text in events[rng[0]:rng[1] + 1])]
    trips = {rng: average_trips(events, rng, threads) or 1 for rng in copy_loops}
    for i, (kind, text) in enumerate(events):
        if kind == "instr" and COPY_RE.match(text):
            w = 1.0
            for rng in copy_loops:
                if rng[0] <= i <= rng[1]:
                    w *= trips[rng]
            weights[i] = w
    return weights


@dataclass
class CommitGroup:
    copies: float         # cp.async since the previous commit_group (per thread)
    waited_at_once: bool  # the next instruction is `wait_group 0`
    in_loop: bool         # the commit lies in a loop: it runs repeatedly
    after_barrier: bool   # a bar.sync lies between it and the group before


def commit_groups(events, loop_ranges, weights):
    groups, pending, barrier = [], 0, True
    instrs = [(i, text) for i, (kind, text) in enumerate(events) if kind == "instr"]
    for n, (index, text) in enumerate(instrs):
        if BARRIER_RE.match(text):
            barrier = True
        elif COPY_RE.match(text):
            pending += weights.get(index, 1.0)
        elif COMMIT_RE.match(text):
            nxt = WAIT_RE.match(instrs[n + 1][1]) if n + 1 < len(instrs) else None
            groups.append(CommitGroup(
                copies=pending,
                waited_at_once=bool(nxt) and int(nxt.group(1) or 0) == 0,
                in_loop=in_any_loop(index, loop_ranges),
                after_barrier=barrier))
            pending, barrier = 0, False
    return groups


def per_copy_waits(groups):
    """How many commit groups are one copy waited for at once, when every
    group is; 0 otherwise. A kernel whose only copy runs once is no finding
    (there is nothing to batch), so the groups must repeat: in a loop, or
    back to back (no bar.sync between them). Single copies of phases that a
    barrier separates are tiles of different phases (a kernel and the
    tail it runs, TailCombine.md), not one tile copied piece by piece."""
    single = [g for g in groups if g.copies == 1 and g.waited_at_once]
    if not single or len(single) != len(groups):
        return 0
    repeats = any(g.in_loop for g in single) or any(
        not g.after_barrier for g in single[1:])
    return len(single) if repeats else 0


@dataclass
class BodyStats:
    copies: float            # cp.async per thread (copy loops by their trips)
    copy_bytes: float        # sum of the cp.async sizes (per thread)
    commits: int
    wait_depths: list        # distinct, largest first
    per_copy_waits: int      # see per_copy_waits()
    copy_in_loop: bool
    mma: int
    fma: int
    barriers: int            # bar.sync statements
    loop_barriers: int       # of which in a loop that copies and waits


def analyse_body(body, threads):
    events = statements(body)
    loop_ranges = loops(events)
    instrs = [text for kind, text in events if kind == "instr"]
    weights = copy_weights(events, loop_ranges, threads)
    copy_sizes = [int(COPY_RE.match(text).group(1)) * weights[i]
                  for i, (kind, text) in enumerate(events)
                  if kind == "instr" and COPY_RE.match(text)]
    depths = {int(m.group(1) or 0) for m in map(WAIT_RE.match, instrs) if m}
    groups = commit_groups(events, loop_ranges, weights)
    # A loop that copies and waits: a tile fetched and waited for on every
    # trip. A loop that only issues the copies of one group (a copy loop
    # not unrolled, its commit and wait after it) is one round trip.
    def in_loop_with(rng, pattern):
        return any(kind == "instr" and pattern.match(text)
                   and in_any_loop(i, [rng])
                   for i, (kind, text) in enumerate(events))
    main_loops = [rng for rng in loop_ranges
                  if in_loop_with(rng, COPY_RE) and in_loop_with(rng, WAIT_RE)]
    copy_in_loop = bool(main_loops)
    barrier_at = [i for i, (kind, text) in enumerate(events)
                  if kind == "instr" and BARRIER_RE.match(text)]
    return BodyStats(
        copies=sum(weights.values()), copy_bytes=sum(copy_sizes), commits=len(groups),
        wait_depths=sorted(depths, reverse=True),
        per_copy_waits=per_copy_waits(groups), copy_in_loop=copy_in_loop,
        mma=sum(1 for t in instrs if MMA_RE.match(t)),
        fma=sum(1 for t in instrs if FMA_RE.match(t)),
        barriers=len(barrier_at),
        loop_barriers=sum(1 for i in barrier_at if in_any_loop(i, main_loops)))


SETP_NE_RE = re.compile(r"^setp\.ne\.[bsu](?:32|64)\s+%\w+\s*,\s*(%\w+)\s*,\s*(-?\d+)$")
ISSUE_KINDS = [("ld.shared", re.compile(r"^ld\.shared\b")),
               ("st.shared", re.compile(r"^st\.shared\b")),
               ("ldmatrix", re.compile(r"^ldmatrix\b")),
               ("mma.sync", MMA_RE),
               ("ex2", re.compile(r"^ex2\.")),
               ("bar.sync", BARRIER_RE)]


def counted_trips(events, rng):
    """The trips of the loop `rng` when its counter starts at a constant,
    steps by a constant and is compared with `setp.ne` against a bound
    (LLVM's form of a loop the same for every thread); None otherwise."""
    counter = loop_counter(events, rng, SETP_NE_RE, r"-?\d+")
    if counter is None:
        return None
    start, step, bound = counter
    if step == 0 or start[0] != "const":
        return None
    span = bound - start[1]
    if span % step != 0 or span // step <= 0:
        return None
    return span // step


def main_loop_counts(body, threads):
    """Per trip of the kernel's main loop (the widest loop that copies and
    waits) and per thread: its statements and the issue kinds of
    ISSUE_KINDS, each weighted by the trips of the loops around it inside
    the main loop (average_trips, else counted_trips; a loop of unknown
    trips counts once and is counted in `unknown_loops`). None without a
    main loop."""
    events = statements(body)
    ranges = loops(events)

    def holds(rng, pattern):
        return any(kind == "instr" and pattern.match(text)
                   for kind, text in events[rng[0]:rng[1] + 1])
    mains = [r for r in ranges if holds(r, COPY_RE) and holds(r, WAIT_RE)]
    if not mains:
        return None
    first, last = max(mains, key=lambda r: r[1] - r[0])
    inner = [r for r in ranges if first < r[0] and r[1] < last]
    weight = [1.0] * len(events)
    unknown = 0
    for rng in inner:
        trips = average_trips(events, rng, threads) or counted_trips(events, rng)
        if trips is None:
            unknown += 1
            continue
        for i in range(rng[0], rng[1] + 1):
            weight[i] *= trips
    counts = {"instructions": 0.0}
    counts.update({name: 0.0 for name, _ in ISSUE_KINDS})
    for i in range(first, last + 1):
        kind, text = events[i]
        if kind != "instr":
            continue
        counts["instructions"] += weight[i]
        for name, pattern in ISSUE_KINDS:
            if pattern.match(text):
                counts[name] += weight[i]
    counts = {k: (int(v) if float(v).is_integer() else round(v, 1))
              for k, v in counts.items()}
    counts["unknown_loops"] = unknown
    return counts


# --------------------------------------------------------------------------
# ptxas

def find_ptxas(option, disabled):
    """The ptxas to run, or None: --ptxas (which must exist), else $PTXAS,
    PATH, the default CUDA location."""
    if disabled:
        return None
    if option:
        if not os.access(option, os.X_OK):
            raise AuditError("--ptxas %s is not an executable" % option)
        return option
    for candidate in (os.environ.get("PTXAS"), shutil.which("ptxas"),
                      "/usr/local/cuda/bin/ptxas"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass
class PtxasEntry:
    regs: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    static_smem: int = 0


def parse_ptxas_log(log):
    """entry name -> PtxasEntry from `ptxas -v` output. The spill line
    follows "Function properties for NAME" (also printed for non-entry
    functions, whose figures are not the entry's); the "Used" line follows
    "Compiling entry function 'NAME'"."""
    entries, current, properties_of = {}, None, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = properties_of = m.group(1)
            entries[current] = PtxasEntry()
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            properties_of = m.group(1)
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and properties_of in entries:
            entries[properties_of].spill_stores = int(m.group(1))
            entries[properties_of].spill_loads = int(m.group(2))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current in entries:
            entries[current].regs = int(m.group(1))
            smem = re.search(r"(\d+) bytes smem", line)
            entries[current].static_smem = int(smem.group(1)) if smem else 0
    return entries


def run_ptxas(ptxas, chip, ptx_path):
    """(entry -> PtxasEntry, None) or (None, ptxas's last error line)."""
    run = subprocess.run([ptxas, "-arch=" + chip, "-v", ptx_path, "-o", os.devnull],
                         capture_output=True, text=True)
    log = run.stdout + run.stderr
    if run.returncode != 0:
        errors = [l for l in log.splitlines() if "error" in l.lower()] or log.splitlines()
        return None, (errors[-1].strip() if errors else "exit %d" % run.returncode)
    return parse_ptxas_log(log), None


# --------------------------------------------------------------------------
# The hardware model

def resident_blocks(chip, threads, smem, regs):
    """(blocks per SM, the limiting resource); regs None when unknown."""
    warps = -(-threads // 32)
    limits = [("smem", chip.smem_per_sm // (smem + SMEM_RESERVE_PER_BLOCK))]
    if regs:
        per_warp = -(-regs * 32 // REG_ALLOC_UNIT_PER_WARP) * REG_ALLOC_UNIT_PER_WARP
        limits.append(("regs", REGS_PER_SM // per_warp // warps))
    limits.append(("threads", THREADS_PER_SM // (warps * 32)))
    limits.append(("blocks", BLOCKS_PER_SM))
    return min(limits, key=lambda kv: kv[1])[::-1]


def cannot_launch(chip, threads, smem, regs):
    return (smem > chip.smem_per_block or threads > MAX_THREADS_PER_BLOCK
            or (regs or 0) * threads > MAX_REGS_PER_BLOCK)


def blocks_on_busy_sm(chip, blocks, resident):
    """Blocks an SM actually holds in the first wave: the occupancy limit,
    unless the grid is too small to give every SM that many."""
    return min(resident, -(-blocks // chip.sms))


def bytes_in_flight_per_sm(stats, threads, blocks_per_sm):
    """group_bytes × max(max wait depth, 1) × blocks_per_sm (see the header)."""
    if not stats.copies or not stats.commits or not blocks_per_sm:
        return None
    group_bytes = stats.copy_bytes * threads / stats.commits
    depth = max(stats.wait_depths or [0])
    return int(group_bytes * max(depth, 1) * blocks_per_sm)


# --------------------------------------------------------------------------
# One kernel's record

@dataclass
class Launch:
    """What the hardware model makes of one kernel's launch."""
    blocks: int
    threads: int
    static_smem: int
    static_from: str          # "ptxas", "manifest" or "ptx-declarations"
    smem: int
    regs: object              # int, or None without ptxas
    no_launch: bool
    resident: int             # blocks per SM; 0 when it cannot launch
    limiter: object           # the resource that sets `resident`, or None
    waves: object             # int, or None when it cannot launch


def static_smem(kernel, body, module_text, ptxas_entry):
    """(static shared bytes, where from): what ptxas allocates, else what
    the manifest says, else the sum of the PTX declarations."""
    if ptxas_entry:
        return ptxas_entry.static_smem, "ptxas"
    if kernel.get("static_shared_bytes") is not None:
        return int(kernel["static_shared_bytes"]), "manifest"
    return declared_static_smem(body, module_text), "ptx-declarations"


def model_launch(chip, kernel, body, module_text, ptxas_entry):
    """Shared memory, launchability, occupancy and waves of one kernel."""
    blocks, threads = math.prod(kernel["grid"]), math.prod(kernel["block"])
    static, static_from = static_smem(kernel, body, module_text, ptxas_entry)
    smem = static + int(kernel.get("dynamic_shared_bytes", 0))
    regs = ptxas_entry.regs if ptxas_entry else None
    no_launch = cannot_launch(chip, threads, smem, regs)
    resident, limiter = (0, None) if no_launch else resident_blocks(chip, threads, smem, regs)
    waves = -(-blocks // (chip.sms * resident)) if resident else None
    return Launch(blocks, threads, static, static_from, smem, regs, no_launch,
                  resident, limiter, waves)


def sm_loads(chip, launch, model):
    """Bytes the busiest SM loads, by the manifest's `loaded_bytes`, or None."""
    loads = model.get("loaded_bytes")
    if not isinstance(loads, list) or not launch.blocks:
        return None
    # Every block the busiest SM runs, over all its waves.
    return sum(loads) / launch.blocks * -(-launch.blocks // chip.sms)


def kernel_flags(chip, launch, stats, ptxas_entry, ptxas_ok, moved, flight, model):
    """The flags of the header, in its order."""
    sm_load = sm_loads(chip, launch, model)
    checks = [
        ("NO-LAUNCH", launch.no_launch),
        ("SPILLS", bool(ptxas_entry)
         and ptxas_entry.spill_stores + ptxas_entry.spill_loads > 0),
        ("UNPIPELINED", stats.copy_in_loop and bool(stats.wait_depths)
         and max(stats.wait_depths) == 0),
        ("PER-COPY-WAITS", stats.per_copy_waits > 0),
        ("UNDERFILLED", moved >= UNDERFILLED_BYTES
         and not fills_machine(chip, launch.blocks)),
        ("FLIGHT<16KB", flight is not None and flight < MIN_FLIGHT_PER_SM
         and memory_bound(chip, moved) and not compute_bound(model)
         and (sm_load is None or flight < sm_load)),
        ("PLAN-SMEM-MISMATCH", model["plan_shared_bytes"] is not None
         and model["plan_shared_bytes"] != launch.smem),
        ("PTXAS-FAILED", not ptxas_ok),
    ]
    return [name for name, hit in checks if hit]


def audit_kernel(manifest, kernel, chip_name, body, ptxas_entry, ptxas_ok, module_text):
    """One kernel's record: the row of the table, raw (the --json form)."""
    chip = CHIPS[chip_name]
    launch = model_launch(chip, kernel, body, module_text, ptxas_entry)
    stats = analyse_body(body, launch.threads)
    flight = bytes_in_flight_per_sm(stats, launch.threads,
                                    blocks_on_busy_sm(chip, launch.blocks, launch.resident))
    moved = sum(buffer_bytes(manifest["buffers"][a]) for a in kernel["args"])
    floor_us = moved / chip.copy_bytes_per_s * 1e6
    model = model_fields(kernel)
    return {
        "graph": manifest["graph"], "chip": chip_name, "kernel": kernel["name"],
        "grid": kernel["grid"], "blocks": launch.blocks, "threads": launch.threads,
        "static_shared_bytes": launch.static_smem,
        "dynamic_shared_bytes": launch.smem - launch.static_smem,
        "shared_bytes": launch.smem,
        "static_shared_from": launch.static_from,
        "registers": launch.regs,
        "spill_stores": ptxas_entry.spill_stores if ptxas_entry else None,
        "spill_loads": ptxas_entry.spill_loads if ptxas_entry else None,
        "resident_blocks_per_sm": launch.resident, "resident_limit": launch.limiter,
        "waves": launch.waves,
        "cp_async": (int(stats.copies) if float(stats.copies).is_integer()
                     else round(stats.copies, 2)),
        "commit_groups": stats.commits,
        "wait_depths": stats.wait_depths, "per_copy_waits": stats.per_copy_waits,
        "bytes_in_flight_per_sm": flight,
        "mma_sync": stats.mma, "fma_f32": stats.fma,
        "barriers": stats.barriers, "loop_barriers": stats.loop_barriers,
        "bytes_moved": moved, "floor_us": floor_us,
        "main_loop": main_loop_counts(body, launch.threads),
        "model": model,
        "model_ratio": (model["estimate_us"] / floor_us
                        if model["estimate_us"] is not None and floor_us else None),
        "flags": kernel_flags(chip, launch, stats, ptxas_entry, ptxas_ok, moved,
                              flight, model),
    }


def audit_manifest(path, chip_override, ptxas, ptxas_cache, notes):
    manifest = load_manifest(path)
    chip = chip_override or manifest["chip"]
    if chip not in CHIPS:
        raise AuditError("%s: chip %s is not modelled (known: %s; see --chip)"
                         % (path, chip, ", ".join(sorted(CHIPS))))
    ptx_path = os.path.join(os.path.dirname(path), manifest["ptx"])
    try:
        with open(ptx_path) as f:
            text = strip_comments(f.read())
    except OSError as e:
        raise AuditError("%s: cannot read its PTX: %s" % (path, e))
    try:
        bodies, module_text = split_entries(text)
    except ValueError as e:
        raise AuditError("%s: %s" % (ptx_path, e))

    ptxas_entries, ptxas_ok = None, True
    if ptxas:
        key = (ptx_path, chip)
        if key not in ptxas_cache:
            ptxas_cache[key] = run_ptxas(ptxas, chip, ptx_path)
        ptxas_entries, error = ptxas_cache[key]
        if error:
            ptxas_ok = False
            notes.append("ptxas failed on %s (static shared memory from its "
                         ".shared declarations): %s" % (ptx_path, error))

    rows = []
    for kernel in manifest["kernels"]:
        if kernel["name"] not in bodies:
            raise AuditError("%s: kernel %s has no .entry in %s"
                             % (path, kernel["name"], ptx_path))
        entry = (ptxas_entries or {}).get(kernel["name"])
        rows.append(audit_kernel(manifest, kernel, chip, bodies[kernel["name"]],
                                 entry, ptxas_ok, module_text))
    return rows


# --------------------------------------------------------------------------
# Output

def fmt_int(n):
    """Thousands separated; model figures may be fractional, so round."""
    return "-" if n is None else "{:,}".format(int(round(n)))


def fmt_bytes(n):
    if n is None:
        return "-"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return "%.2f %s" % (n / scale, unit)
    return "%d B" % n


def fmt_num(x, digits):
    return "-" if x is None else "%.*f" % (digits, x)


def copies_cell(r):
    if not r["commit_groups"]:
        return "-" if not r["cp_async"] else "%g, no commit" % r["cp_async"]
    if r["per_copy_waits"]:
        return "per-copy waits (%d)" % r["per_copy_waits"]
    return "%.1f" % (r["cp_async"] / r["commit_groups"])


def model_cells(r):
    m = r["model"]
    tc = ("-" if m["tensor_core_matmuls"] is None and m["matmuls"] is None
          else "%s/%s" % tuple("-" if v is None else v
                               for v in (m["tensor_core_matmuls"], m["matmuls"])))
    return [fmt_num(m["estimate_us"], 2),
            "-" if r["model_ratio"] is None else "%.2f" % r["model_ratio"],
            fmt_int(m["plan_shared_bytes"]), fmt_int(m["stages"]), tc,
            fmt_int(m["bytes_in_flight_per_sm"])]


COLUMNS = ["graph", "chip", "kernel", "grid", "threads", "smem B", "regs",
           "spill B st/ld", "resident/SM", "waves", "wait depths", "copies/group",
           "flight/SM B", "mma / fma", "bar.sync (loop)", "bytes moved", "floor µs", "model µs",
           "model/floor", "plan smem B", "stages", "tc/mm", "model flight B", "flags"]


def row_cells(r):
    spills = ("-" if r["spill_stores"] is None
              else "%d/%d" % (r["spill_stores"], r["spill_loads"]))
    resident = ("0" if not r["resident_blocks_per_sm"]
                else "%d (%s)" % (r["resident_blocks_per_sm"], r["resident_limit"]))
    return ([r["graph"], r["chip"], r["kernel"],
             "%s = %d" % ("×".join(map(str, r["grid"])), r["blocks"]),
             str(r["threads"]), fmt_int(r["shared_bytes"]), fmt_int(r["registers"]),
             spills, resident, fmt_int(r["waves"]),
             ",".join(map(str, r["wait_depths"])) or "-", copies_cell(r),
             fmt_int(r["bytes_in_flight_per_sm"]),
             "mma %d / fma %d" % (r["mma_sync"], r["fma_f32"]),
             "%d (%d)" % (r["barriers"], r["loop_barriers"]),
             fmt_bytes(r["bytes_moved"]), fmt_num(r["floor_us"], 2)]
            + model_cells(r) + [" ".join(r["flags"]) or "ok"])


def flag_counts(rows):
    return {f: sum(1 for r in rows if f in r["flags"]) for f in FLAGS}


def print_markdown(rows, ptxas, notes, dirs):
    print("Static kernel audit of %s (no GPU; ptxas: %s)"
          % (" ".join(dirs), ptxas or "not found"))
    if not ptxas:
        print("ptxas not available: registers and spills are '-', static shared "
              "memory is the manifest's static_shared_bytes or the sum of the PTX "
              ".shared declarations, and the register limit is left out of "
              "resident/SM.")
    for note in notes:
        print(note)
    print()
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(row_cells(r)) + " |")
    print()
    counts = flag_counts(rows)
    print("kernels: %d; %s" % (len(rows), ", ".join("%s %d" % kv for kv in counts.items())))


MAIN_LOOP_COLUMNS = ["graph", "chip", "kernel", "instructions"] + [
    name for name, _ in ISSUE_KINDS] + ["loops of unknown trips"]


def print_main_loops(rows):
    """--main-loop: per thread and main-loop trip, what the loop issues."""
    print()
    print("Main loops, per thread (and so per warp) and trip:")
    print()
    print("| " + " | ".join(MAIN_LOOP_COLUMNS) + " |")
    print("|" + "---|" * len(MAIN_LOOP_COLUMNS))
    for r in rows:
        m = r["main_loop"]
        if m is None:
            continue
        count = lambda v: "%d" % v if float(v).is_integer() else "%.1f" % v
        cells = [r["graph"], r["chip"], r["kernel"], count(m["instructions"])]
        cells += [count(m[name]) for name, _ in ISSUE_KINDS]
        cells.append(str(m["unknown_loops"]))
        print("| " + " | ".join(cells) + " |")


def print_json(rows, ptxas, notes):
    """One JSON object; one kernel per line, so that it also greps well."""
    summary = {"kernels": len(rows), "flags": flag_counts(rows)}
    print("{")
    print(' "ptxas": %s,' % json.dumps(ptxas))
    print(' "notes": %s,' % json.dumps(notes, ensure_ascii=False))
    print(' "kernels": [')
    print(",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in rows))
    print(" ],")
    print(' "summary": %s' % json.dumps(summary, ensure_ascii=False))
    print("}")


def main(argv):
    parser = argparse.ArgumentParser(
        description="Static audit of the kernels of PTX bundles (see the header "
                    "of this script for the columns and formulas).")
    parser.add_argument("dirs", nargs="+", metavar="DIR")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--chip", choices=sorted(CHIPS),
                        help="audit for this chip instead of each manifest's")
    parser.add_argument("--ptxas", help="ptxas to run (default: $PTXAS, PATH, "
                                        "/usr/local/cuda/bin/ptxas)")
    parser.add_argument("--no-ptxas", action="store_true",
                        help="do not run ptxas (as if it were missing)")
    parser.add_argument("--main-loop", action="store_true",
                        help="also print, per kernel with a main loop, what "
                             "one trip issues per thread")
    args = parser.parse_args(argv)
    # The table uses × and µ: write UTF-8 whatever the locale says.
    sys.stdout.reconfigure(encoding="utf-8")

    notes, cache, rows = [], {}, []
    try:
        ptxas = find_ptxas(args.ptxas, args.no_ptxas)
        for path in find_manifests(args.dirs):
            rows += audit_manifest(path, args.chip, ptxas, cache, notes)
    except AuditError as e:
        print("kernel_audit: error: %s" % e, file=sys.stderr)
        return 2
    if args.json:
        print_json(rows, ptxas, notes)
    else:
        print_markdown(rows, ptxas, notes, args.dirs)
        if args.main_loop:
            print_main_loops(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
