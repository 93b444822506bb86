#!/usr/bin/env bash
# Times the final equivalence check of superoptimized winners with two
# mirage-opt binaries (before and after a change), on the same files, and
# prints a table: workload, verification seconds (wall, and CPU = user + sys)
# and peak MB for each binary. Each file is a mirage-superoptimize output
# (a graph and its "_opt" winner with a reference link); the check is the
# verify pass with a fixed seed and without the dtype check, i.e. what
# verifyEquivalence does for the winner (field tests, float64 cross-check,
# definedness check, wide float64 trials).
#
#   bench/verify_winners.sh BEFORE-BIN AFTER-BIN FILE.mlir...
#
# Make the files once with the search, e.g.
#   build/bin/mirage-opt bench/models/attention/prefill_attention.mlir \
#     --mirage-import --mirage-superoptimize="cache=off time-budget=120" \
#     -o /tmp/prefill_attention.mlir
set -uo pipefail
BEFORE=$1 AFTER=$2
shift 2
tmp=$(mktemp -d)
echo "| workload | before s (CPU s) | after s (CPU s) | before peak MB | after peak MB | verdict (both) |"
echo "|---|---|---|---|---|---|"
measure() { # binary, file -> "wall cpu peak-MB"; stderr kept in $tmp/err
  /usr/bin/time -v -o "$tmp/time" "$1" "$2" \
    --mirage-verify-equivalence="dtype-check=false seed=1" -o /dev/null \
    2>"$tmp/err"
  local wall cpu peak
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time" |
         awk -F: '{ s = 0; for (i = 1; i <= NF; ++i) s = s * 60 + $i; printf "%.1f", s }')
  cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.1f", s }' "$tmp/time")
  peak=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tmp/time")
  echo "$wall $cpu $peak"
}
verdict() { # the verify pass's verdict in $tmp/err, without names
  grep -o "is equivalent to reference '[^']*': [0-9]* tests*, false-acceptance bound 2^-[0-9]*\|is not [a-z ]*" "$tmp/err" |
    head -1 | sed "s/ to reference '[^']*'//"
}
for f in "$@"; do
  read -r wb cb pb < <(measure "$BEFORE" "$f")
  vb=$(verdict)
  read -r wa ca pa < <(measure "$AFTER" "$f")
  va=$(verdict)
  [ "$vb" = "$va" ] || va="CHANGED: before '$vb', after '$va'"
  echo "| $(basename "$f" .mlir) | $wb ($cb) | $wa ($ca) | $pb | $pa | ${va:-see stderr} |"
done
rm -rf "$tmp"
