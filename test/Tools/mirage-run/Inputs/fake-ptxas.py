#!/usr/bin/env python3
"""A stand-in for ptxas in the mirage-run tests (PTXAS=.../fake-ptxas.py).

Checks that it is called as `ptxas -arch=sm_NN -v PTX -o /dev/null`, prints
the `-v` report in the file $FAKE_PTXAS_REPORT to stderr, where ptxas prints
it, and exits with $FAKE_PTXAS_STATUS (0 if unset). The reports are in
ptxas-reports/, in the format of CUDA 13's ptxas.
"""
import os
import sys

args = sys.argv[1:]
if (len(args) != 5 or not args[0].startswith("-arch=sm_") or args[1] != "-v"
        or not os.path.isfile(args[2]) or args[3:] != ["-o", "/dev/null"]):
    sys.stderr.write("fake-ptxas: unexpected arguments %r\n" % args)
    sys.exit(3)
with open(os.environ["FAKE_PTXAS_REPORT"]) as report:
    sys.stderr.write(report.read())
sys.exit(int(os.environ.get("FAKE_PTXAS_STATUS", "0")))
