#!/usr/bin/env bash
# Static audit of the kernels of PTX bundles (no GPU needed):
#
#   bench/kernel_audit.sh [--json] [--main-loop] [--chip sm_80|sm_90] [--ptxas PATH | --no-ptxas] DIR...
#
# One markdown row per kernel of every <graph>.<chip>.manifest.json found
# under DIR (recursively): grid, threads, shared memory, registers, spills,
# occupancy, waves, cp.async pipelining, bytes in flight, tensor-core use,
# bytes moved against copy bandwidth, the cost model's estimate, and flags.
# --main-loop adds a table of what one trip of each kernel's main loop
# issues per thread (statements, shared loads and stores, ldmatrix,
# mma.sync, ex2, bar.sync).
# The columns, formulas and flags are documented in kernel_audit.py, which
# does the work (python3, standard library only). Exit status 0 when the
# audit ran (flags are findings, not failures), 2 on bad input.
exec python3 "$(dirname "$0")/kernel_audit.py" "$@"
