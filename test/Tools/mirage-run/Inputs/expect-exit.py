"""Runs a command and fails unless it exits with the given status.

    expect-exit.py STATUS COMMAND [ARGS...]

The command's stdout and stderr are passed through, so a test can both pin
mirage-run's exit status (lit's `not` only knows zero from nonzero) and
FileCheck its message.
"""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    sys.stderr.write("expect-exit.py: exit status %d, expected %d\n" % (got, want))
    sys.exit(1)
