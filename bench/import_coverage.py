#!/usr/bin/env python3
"""Op counter for bench/import_coverage.sh (python3 stdlib only).

  import_coverage.py count FILE.generic.mlir   -> JSON {compute, compute_outside,
                                                  layout, layout_outside, graphs,
                                                  outside_by_op}
  import_coverage.py table ROWS.jsonl          -> the markdown table + totals

FILE must be printed with --mlir-print-op-generic (one op per line, the op
name quoted, a region opened by a line ending in "({" and closed by a line
starting with "})"). Only ops whose parent is a func.func body or a
mirage_kernel.graph body are classified; scalar ops inside linalg bodies
and kernel ops are not. See the header of import_coverage.sh for the
definitions of "compute" and "layout" ops.
"""
import json
import re
import sys

OP = re.compile(r'^\s*(?:(%[^=]+?)\s*=\s*)?"([A-Za-z_][\w$.]*)"\(')

LAYOUT = {
    "tosa.reshape", "tosa.transpose", "tosa.slice", "tosa.identity", "tosa.concat", "tosa.tile",
    "tosa.pad", "tosa.reverse",
    "tensor.expand_shape", "tensor.collapse_shape", "tensor.extract_slice", "tensor.insert_slice",
    "tensor.concat", "tensor.pad", "tensor.cast", "tensor.reshape",
    "linalg.transpose", "linalg.broadcast", "linalg.copy",
}
NOT_COUNTED_TOSA = {"tosa.const", "tosa.const_shape"}
NOT_COUNTED_LINALG = {"linalg.fill", "linalg.yield", "linalg.index"}


def classify(name, line, body):
    """'compute', 'layout' or None."""
    if name in LAYOUT:
        return "layout"
    dialect = name.split(".", 1)[0]
    if dialect == "tosa":
        return None if name in NOT_COUNTED_TOSA else "compute"
    if dialect == "linalg":
        if name in NOT_COUNTED_LINALG:
            return None
        if name == "linalg.generic" and body is not None and is_copy(body):
            return "layout"
        return "compute"
    if dialect in ("arith", "math"):
        if name == "arith.constant":
            return None
        # result type after the last "->" (generic form: ": (operands) -> result")
        tail = line.rsplit("->", 1)[-1] if "->" in line else line.rsplit(":", 1)[-1]
        return "compute" if "tensor<" in tail else None
    return None


def is_copy(body):
    """A generic whose body is only linalg.yield of block arguments."""
    ops = [b for b in body if b[0] != "^"]
    if len(ops) != 1 or ops[0][0] != "linalg.yield":
        return False
    args = re.findall(r"%[\w$.#]+", ops[0][1].split("(", 1)[1].split(")", 1)[0])
    return all(a in body_args(body) for a in args)


def body_args(body):
    out = set()
    for name, line in body:
        if name == "^":
            out.update(re.findall(r"(%[\w$.]+):", line))
    return out


def count(path):
    stack = []  # entries: [name, line, body(list of (name, line)), is_top_candidate]
    ops = []  # (name, line, body, parent_name, inside_graph)
    for line in open(path):
        s = line.strip()
        if s.startswith("})"):
            if stack:
                e = stack.pop()
                # a region-holding op: classify at close, with its whole first line
                ops.append((e[0], e[1] + " " + s, e[2], e[3], e[4]))
            continue
        if s.startswith("^"):
            if stack:
                stack[-1][2].append(("^", s))
            continue
        m = OP.match(line)
        if not m:
            continue
        name = m.group(2)
        parent = stack[-1][0] if stack else None
        inside = any(e[0] == "mirage_kernel.graph" for e in stack)
        if stack:
            stack[-1][2].append((name, s))
        if s.endswith("({"):
            stack.append([name, s, [], parent, inside])
        else:
            ops.append((name, s, None, parent, inside))
    res = {"compute": 0, "compute_outside": 0, "layout": 0, "layout_outside": 0, "graphs": 0,
           "outside_by_op": {}}
    for name, line, body, parent, inside in ops:
        if name == "mirage_kernel.graph":
            res["graphs"] += 1
            continue
        if parent not in ("func.func", "mirage_kernel.graph"):
            continue
        c = classify(name, line, body)
        if c is None:
            continue
        res[c] += 1
        if not inside:
            res[c + "_outside"] += 1
            if c == "compute":
                key = name
                if name == "linalg.generic":
                    inner = sorted({b[0] for b in body if b[0] not in ("^", "linalg.yield")})
                    key = "linalg.generic{%s}" % ",".join(inner)
                res["outside_by_op"][key] = res["outside_by_op"].get(key, 0) + 1
    return res


REMARK = re.compile(r":\d+:\d+: remark: not imported: (.*)$")
SRC_OP = re.compile(r'(?:=\s*|^\s*)"?([a-z_]+\.[a-z_.]+)')


def remarks(path):
    """'not imported' remarks of an import stderr: {reason: {op: count}}."""
    out = {}
    lines = open(path, errors="replace").read().splitlines()
    for i, l in enumerate(lines):
        m = REMARK.search(l)
        if not m:
            continue
        reason = re.sub(r"\s+", " ", m.group(1)).strip()
        op = "?"
        if i + 1 < len(lines):
            mm = SRC_OP.search(lines[i + 1])
            if mm:
                op = mm.group(1)
        out.setdefault(reason, {})
        out[reason][op] = out[reason].get(op, 0) + 1
    return out


def table(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    print("| file | compute ops | imported | coverage | layout ops: input → outside graphs | graphs | kernels before → after "
          "| import | superoptimize | to PTX (PTX files) | search s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    tot = {"c": 0, "i": 0, "lo": 0, "l": 0, "g": 0, "kb": 0, "ka": 0, "s": 0.0, "ptx": 0}
    bad = {"import": 0, "superoptimize": 0, "ptx": 0}
    for r in rows:
        c, i = r["compute"], r["imported"]
        cov = "%.0f%%" % (100.0 * i / c) if c else "-"
        kb = "%s → %s" % (r.get("kernels_in", "-"), r.get("kernels_out", "-"))
        print("| %s | %d | %d | %s | %d → %d | %d | %s | %s | %s | %s (%s) | %s |" % (
            r["file"], c, i, cov, r["layout"], r["layout_outside"], r["graphs"], kb, r["st_import"],
            r["st_super"], r["st_ptx"], r.get("ptx_files", 0),
            "%.2f" % r["search_s"] if r.get("search_s") is not None else "-"))
        tot["c"] += c
        tot["i"] += i
        tot["lo"] += r["layout_outside"]
        tot["l"] += r["layout"]
        tot["g"] += r["graphs"]
        tot["kb"] += r.get("kernels_in") or 0
        tot["ka"] += r.get("kernels_out") or 0
        tot["s"] += r.get("search_s") or 0.0
        tot["ptx"] += r.get("ptx_files", 0)
        for k, st in (("import", "st_import"), ("superoptimize", "st_super"), ("ptx", "st_ptx")):
            if not r[st].startswith("ok"):
                bad[k] += 1
    cov = "%.1f%%" % (100.0 * tot["i"] / tot["c"]) if tot["c"] else "-"
    print("| **total (%d files)** | %d | %d | %s | %d → %d | %d | %d → %d | %d not ok | %d not ok | %d not ok (%d) | %.2f |" % (
        len(rows), tot["c"], tot["i"], cov, tot["l"], tot["lo"], tot["g"], tot["kb"], tot["ka"],
        bad["import"], bad["superoptimize"], bad["ptx"], tot["ptx"], tot["s"]))
    agg = {}
    for r in rows:
        for k, v in r.get("outside_by_op", {}).items():
            agg[k] = agg.get(k, 0) + v
    if agg:
        print()
        print("Compute ops left outside graphs, by op (all files):")
        print()
        print("| op (linalg.generic: its body ops) | count |")
        print("|---|---|")
        for k, v in sorted(agg.items(), key=lambda kv: (-kv[1], kv[0])):
            print("| `%s` | %d |" % (k, v))
    rem = {}
    for r in rows:
        for reason, ops in r.get("remarks", {}).items():
            d = rem.setdefault(reason, {})
            for op, n in ops.items():
                d[op] = d.get(op, 0) + n
    if rem:
        print()
        print("Import remarks `not imported: ...`, by reason (all files; layout ops included):")
        print()
        print("| count | reason | ops |")
        print("|---|---|---|")
        for reason, ops in sorted(rem.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])):
            print("| %d | %s | %s |" % (sum(ops.values()), reason.replace("|", "\\|"),
                                        ", ".join("`%s` %d" % (o, n) for o, n in sorted(ops.items(), key=lambda x: (-x[1], x[0])))))


if __name__ == "__main__":
    if sys.argv[1] == "count":
        print(json.dumps(count(sys.argv[2])))
    elif sys.argv[1] == "remarks":
        print(json.dumps(remarks(sys.argv[2])))
    elif sys.argv[1] == "table":
        table(sys.argv[2])
    else:
        sys.exit("usage: import_coverage.py count FILE | table ROWS.jsonl")
