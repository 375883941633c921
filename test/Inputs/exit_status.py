#!/usr/bin/env python3
"""Runs a command for a lit test of exit codes (tools/common/ExitCodes.h).

  exit_status.py COMMAND...            passes the command's output through,
                                       prints `exit status: N` after it and
                                       exits 0 (check N with FileCheck)
  exit_status.py --expect N COMMAND... passes the output through and exits 0
                                       when the command exited N, else 1 with
                                       a line saying what it exited with
"""
import subprocess
import sys

args = sys.argv[1:]
expected = None
if args[:1] == ["--expect"]:
    expected, args = int(args[1]), args[2:]
result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(result.stdout.decode(errors="replace"))
if expected is None:
    print(f"exit status: {result.returncode}")
elif result.returncode != expected:
    print(f"exit_status.py: exit status {result.returncode}, expected {expected}")
    sys.exit(1)
