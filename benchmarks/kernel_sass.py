#!/usr/bin/env python3
"""Build machine: compares the machine code of every kernel of two artifacts.

    benchmarks/kernel_sass.py A.kiln B.kiln [--arch sm_90] [--kiln-inspect PATH]

The check that grouping kernels into NVRTC programs (kiln-compile
--kernels-per-program) leaves each kernel's code as it was: the cubin
sections of both artifacts (kiln-inspect gives their offsets) are
disassembled with cuobjdump -sass, split per function, and each kernel's
SASS in A is compared with its SASS in B, wherever each artifact keeps it.
Prints a line per kernel that differs or is missing and a summary; exits 0
when every kernel of either artifact has the same SASS in the other.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SECTION = re.compile(r"^section [0-9]+: '(cubin:([^:]+):[^']*)' at ([0-9]+), ([0-9]+) bytes")
FUNCTION = re.compile(r"^\s*Function : (\S+)")


def kernel_sass(artifact, arch, kiln_inspect, cuobjdump):
    """{function: SASS text} over every cubin section of |arch| in |artifact|."""
    listing = subprocess.run([kiln_inspect, artifact], capture_output=True, text=True,
                             check=True).stdout
    with open(artifact, "rb") as f:
        data = f.read()
    functions = {}
    sections = 0
    with tempfile.TemporaryDirectory(prefix="kiln-sass-") as work:
        for line in listing.splitlines():
            match = SECTION.match(line)
            if not match or match[2] != arch:
                continue
            sections += 1
            path = os.path.join(work, f"{sections}.cubin")
            with open(path, "wb") as f:
                f.write(data[int(match[3]):int(match[3]) + int(match[4])])
            sass = subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True,
                                  check=True).stdout
            name = None
            for text in sass.splitlines():
                if found := FUNCTION.match(text):
                    name = found[1]
                    functions[name] = []
                elif name is not None:
                    # cuobjdump aligns columns to the widest instruction of
                    # the whole cubin: spacing is not the code.
                    functions[name].append(" ".join(text.split()))
    return {name: "\n".join(lines).strip() for name, lines in functions.items()}, sections


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--arch", default="sm_90")
    build = os.environ.get("KILN_BUILD_DIR", "build")
    parser.add_argument("--kiln-inspect", default=os.path.join(build, "bin", "kiln-inspect")
                        if os.path.exists(os.path.join(build, "bin", "kiln-inspect"))
                        else shutil.which("kiln-inspect"))
    parser.add_argument("--cuobjdump", default="/usr/local/cuda/bin/cuobjdump")
    args = parser.parse_args()
    inspect = args.kiln_inspect
    first, first_sections = kernel_sass(args.first, args.arch, inspect, args.cuobjdump)
    second, second_sections = kernel_sass(args.second, args.arch, inspect, args.cuobjdump)
    differ = 0
    for name in sorted(set(first) | set(second)):
        if name not in first or name not in second:
            print(f"{name}: only in {args.first if name in first else args.second}")
            differ += 1
        elif first[name] != second[name]:
            print(f"{name}: SASS differs")
            differ += 1
    print(f"{len(first)} kernels in {first_sections} {args.arch} cubin sections, "
          f"{len(second)} in {second_sections}; {differ} differ")
    return 1 if differ or not first else 0


if __name__ == "__main__":
    sys.exit(main())
