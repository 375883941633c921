#!/usr/bin/env python3
"""Runs a command, passes its output through and prints `exit status: N`
(to stdout, after the command's output); always exits 0."""
import subprocess
import sys

result = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(result.stdout.decode(errors="replace"))
print(f"exit status: {result.returncode}")
