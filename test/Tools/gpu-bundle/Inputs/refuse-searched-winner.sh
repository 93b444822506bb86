#!/bin/sh
# A stand-in for mirage-run that refuses, as mirage-run --dry-run refuses a
# kernel that cannot launch on the chip, every manifest of a searched winner
# (<w>/searched/<w>_ref_opt.*) and accepts everything else.
case "$1" in
  */searched/*_opt.*.manifest.json)
    echo "mirage-run: $1: kernel k0: 300000 bytes of shared memory per block, the chip allows 232448" >&2
    exit 2 ;;
esac
exit 0
