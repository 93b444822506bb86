#!/usr/bin/env bash
# Runs mirage-opt's importer over a corpus of .mlir files that we did not
# write (upstream MLIR's TOSA and linalg tests), to find crashes and invalid
# IR. Usage:
#
#   scripts/import-robustness.sh DIR [MIRAGE_OPT] [MLIR_OPT]
#
# DIR holds the corpus (searched recursively for *.mlir); keep it outside the
# repository. Every file is split on `// -----` like -split-input-file.
# A chunk that stock MLIR_OPT (default /usr/lib/llvm-22/bin/mlir-opt) cannot
# parse and verify is skipped and counted (upstream's expected-error tests).
# Each other chunk is imported as written and, if it holds TOSA ops, also
# after upstream's TOSA-to-linalg conversion (what a real frontend gives):
#   builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,
#                            tosa-to-arith,tosa-to-tensor))
# with each importer option set in $IMPORT_OPTIONS (';'-separated; default
# "--mirage-import"; add "--mirage-import=strict-lax=true" for the split of
# non-LAX ops). Every run is classified:
#   imported        at least one mirage_kernel.graph created
#   remark          nothing imported, with a remark saying why
#   nothing         nothing imported, no remark (no TOSA/linalg compute op)
#   pass-error      the pass failed with a diagnostic; its output verifies
#   unparsed        mirage-opt does not register a dialect the input uses
#   crash           signal, LLVM ERROR, assertion or stack dump
#   invalid-ir      the pass's output fails to verify (mirage-opt's verifier
#                   after the pass, or re-verifying it with VERIFY_OUTPUT=1)
#   timeout         ran past $TIMEOUT seconds (default 60)
# Prints a table of counts and lists every crash, invalid output, timeout
# and pass error with a reproducer under $KEEP (default
# /tmp/import-robustness): the input chunk, the command and its stderr.
# $JOBS runs in parallel (default: number of cores). Exit status 1 if any
# run crashed, produced invalid IR or timed out.
set -u
DIR=${1:?usage: import-robustness.sh DIR [MIRAGE_OPT] [MLIR_OPT]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export MIRAGE_OPT=${2:-$ROOT/build/bin/mirage-opt}
export MLIR_OPT=${3:-/usr/lib/llvm-22/bin/mlir-opt}
export KEEP=${KEEP:-/tmp/import-robustness}
export TIMEOUT=${TIMEOUT:-60}
export JOBS=${JOBS:-$(nproc)}
export IMPORT_OPTIONS=${IMPORT_OPTIONS:---mirage-import}
export VERIFY_OUTPUT=${VERIFY_OUTPUT:-0}
exec python3 - "$DIR" <<'EOF'
import concurrent.futures, os, re, shutil, subprocess, sys, tempfile

src = os.path.abspath(sys.argv[1])
mirage, mlir = os.environ["MIRAGE_OPT"], os.environ["MLIR_OPT"]
keep, timeout = os.environ["KEEP"], float(os.environ["TIMEOUT"])
jobs = max(1, int(os.environ["JOBS"]))
options = [o for o in os.environ["IMPORT_OPTIONS"].split(";") if o]
reverify = os.environ["VERIFY_OUTPUT"] == "1"
tosa_to_linalg = ("--pass-pipeline=builtin.module(func.func(tosa-to-linalg-named,"
                  "tosa-to-linalg,tosa-to-arith,tosa-to-tensor))")
for tool in (mirage, mlir):
    if not os.access(tool, os.X_OK):
        sys.exit(f"import-robustness: {tool} is not executable")
if not os.path.isdir(src):
    sys.exit(f"import-robustness: {src} is not a directory")
shutil.rmtree(keep, ignore_errors=True)
os.makedirs(keep)
work = tempfile.mkdtemp(prefix="import-robustness-")

CRASH_MARKERS = ("PLEASE submit", "Stack dump", "LLVM ERROR", "Assertion",
                 "UNREACHABLE executed", "Segmentation fault", "AddressSanitizer")

def run(args, out=None):
    """(status, stderr): status is 'ok', 'error', 'crash' or 'timeout'."""
    try:
        p = subprocess.run(args + ["-o", out or os.devnull], capture_output=True,
                           text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    if p.returncode < 0 or p.returncode >= 128 or any(m in p.stderr for m in CRASH_MARKERS):
        return "crash", p.stderr
    return ("ok" if p.returncode == 0 else "error"), p.stderr

def verifies(path):
    return run([mirage, path])[0] == "ok"

def import_once(path, opt, tag):
    """Classifies one importer run on `path`; returns (outcome, detail)."""
    out = path + tag + ".out.mlir"
    status, err = run([mirage, path, opt], out)
    if status in ("crash", "timeout"):
        return status, err
    if status == "error":
        if run([mirage, path])[0] != "ok":
            return "unparsed", err
        # Did the pass emit invalid IR (caught by the verifier that runs
        # after it), or did it fail with a diagnostic? Look at its output.
        status2, err2 = run([mirage, path, opt, "--verify-each=false"], out)
        if status2 in ("crash", "timeout"):
            return status2, err2
        if status2 == "ok" and not verifies(out):
            return "invalid-ir", err
        return "pass-error", err
    # mirage-opt verified the output after the pass; optionally check that
    # the printed form parses and verifies again.
    if reverify and not verifies(out):
        return "invalid-ir", "printed output does not parse/verify again"
    with open(out, errors="replace") as f:
        graphs = len(re.findall(r"mirage_kernel\.graph\b", f.read()))
    if graphs:
        return "imported", ""
    return ("remark" if "remark:" in err else "nothing"), ""

def process(job):
    n, rel, idx, chunk = job
    path = os.path.join(work, f"{n}.mlir")
    with open(path, "w") as f:
        f.write(chunk)
    status, err = run([mlir, path])
    res = {"n": n, "origin": f"{rel} (chunk {idx})", "runs": []}
    if status != "ok":
        res["upstream"] = "crash" if status in ("crash", "timeout") else "rejected"
        res["expected_error"] = "expected-error" in chunk
        return res
    inputs = [("as written", path)]
    if re.search(r"\btosa\.", chunk):
        lin = os.path.join(work, f"{n}.linalg.mlir")
        st, _ = run([mlir, path, tosa_to_linalg], lin)
        if st == "ok":
            inputs.append(("after tosa-to-linalg", lin))
        else:
            res["conversion_rejected"] = True
    for kind, p in inputs:
        for i, opt in enumerate(options):
            outcome, detail = import_once(p, opt, f".{i}")
            res["runs"].append((kind, opt, outcome, detail))
            if outcome in ("crash", "invalid-ir", "timeout", "pass-error"):
                base = re.sub(r"[^A-Za-z0-9_.-]", "_", rel) + f".chunk{idx}"
                if kind != "as written":
                    base += ".linalg"
                repro = os.path.join(keep, base + ".mlir")
                shutil.copy(p, repro)
                with open(os.path.join(keep, base + f".{i}.txt"), "w") as f:
                    f.write(f"{mirage} {repro} '{opt}'\n\n{detail}")
                res.setdefault("findings", []).append((kind, opt, outcome, repro))
    return res

jobs_list, files, n = [], 0, 0
for dp, dns, fs in os.walk(src):
    dns.sort()
    for name in sorted(fs):
        if not name.endswith(".mlir"):
            continue
        files += 1
        full = os.path.join(dp, name)
        rel = os.path.relpath(full, src)
        text = open(full, errors="replace").read()
        for idx, chunk in enumerate(re.split(r"^// -----.*$", text, flags=re.M)):
            if chunk.strip():
                jobs_list.append((n, rel, idx, chunk))
                n += 1

with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    results = list(pool.map(process, jobs_list))
shutil.rmtree(work, ignore_errors=True)

rejected = [r for r in results if r.get("upstream") == "rejected"]
upstream_crash = [r for r in results if r.get("upstream") == "crash"]
accepted = [r for r in results if "upstream" not in r]
print(f"corpus: {src}")
print(f"files: {files}")
print(f"chunks: {len(results)}")
print(f"  rejected by upstream mlir-opt: {len(rejected)} "
      f"({sum(r['expected_error'] for r in rejected)} of them expected-error tests)")
print(f"  upstream mlir-opt crashed or timed out: {len(upstream_crash)}")
print(f"  accepted by upstream mlir-opt: {len(accepted)}")
print(f"    with TOSA ops that tosa-to-linalg rejects: "
      f"{sum(1 for r in accepted if r.get('conversion_rejected'))}")

outcomes = ["imported", "remark", "nothing", "unparsed", "pass-error",
            "crash", "invalid-ir", "timeout"]
rows = {}
for r in accepted:
    for kind, opt, outcome, _ in r["runs"]:
        key = (kind, opt or "(any)")
        rows.setdefault(key, dict.fromkeys(outcomes, 0))[outcome] += 1
head = f"{'input':22} {'importer option':34}" + "".join(f"{o:>11}" for o in outcomes)
print()
print(head)
print("-" * len(head))
for (kind, opt), c in sorted(rows.items()):
    print(f"{kind:22} {opt:34}" + "".join(f"{c[o]:>11}" for o in outcomes))
print("(unparsed: mirage-opt does not register a dialect the chunk uses)")

findings = [(r["origin"], f) for r in accepted for f in r.get("findings", [])]
bad = 0
for cls in ("crash", "invalid-ir", "timeout", "pass-error"):
    hits = [(o, f) for o, f in findings if f[2] == cls]
    if cls != "pass-error":
        bad += len(hits)
    if hits:
        print(f"\n{cls} ({len(hits)}):")
        for origin, (kind, opt, _, repro) in hits:
            print(f"  {origin}, {kind}, {opt}: {repro}")
for r in upstream_crash:
    print(f"upstream mlir-opt crash/timeout (not ours): {r['origin']}")
print(f"\ncrashes + invalid outputs + timeouts: {bad}")
sys.exit(1 if bad else 0)
EOF
