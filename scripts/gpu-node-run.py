#!/usr/bin/env python3
"""GPU machine: runs the ONNX node-test bundle of scripts/gpu-node-bundle.sh.

Needs only python3's standard library and the bundle (bin/kiln-run, the CUDA
runtime and cuBLASLt of /usr/local/cuda). For every bundled test, every data
set (data_0: ONNX's reference outputs; data_1: fresh inputs, kiln-interpret's
outputs) runs through

    bin/kiln-run tests/NAME/model.kiln --inputs DATA --expect DATA --rtol R --atol 1e-7

with R = 1e-3 (1e-2 when an output is float16), ONNX's backend tolerances. A
test passes when every data set matches; a test whose artifact copies an
output without any kernel (marked `no_kernel` at bundle time) fails; a test
the bundle left out (compile error) and any run without a CUDA device (exit
3) are skipped, with their reason. Prints a table per op, the failures and,
last, `N passed, M failed, K skipped`; writes OUTDIR/results.json.
--update-list writes the passing tests as test/onnx-node/gpu-expected-pass.txt
content (to OUTDIR/gpu-expected-pass.txt, or the file given).
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

LIST_HEADER = """\
# ONNX node tests (/usr/share/libonnx-testdata/data/node) that pass on the GPU:
# compiled by kiln-compile, run by kiln-run against ONNX's outputs and a second,
# fresh input set checked against kiln-interpret. Written by the GPU runner of
# scripts/gpu-node-bundle.sh (run.sh --update-list); see docs/testing.md.
"""


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", nargs="?", default=here,
                        help="the bundle (default: this script's folder)")
    parser.add_argument("--results", help="results JSON (default: OUTDIR/results.json)")
    parser.add_argument("--filter", metavar="REGEX", help="only tests matching REGEX")
    parser.add_argument("-j", "--jobs", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--update-list", nargs="?", const="", metavar="FILE",
                        help="write the passing tests (default OUTDIR/gpu-expected-pass.txt)")
    parser.add_argument("--show-failures", type=int, default=50, metavar="N")
    return parser.parse_args()


def one_line(text, limit=300):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    interesting = [line for line in lines
                   if re.search(r"error|mismatch|max abs|fail|nan|cannot|no file", line, re.I)]
    return " | ".join(interesting[:2] or lines[-1:])[:limit]


def run_test(outdir, test, timeout):
    """(status, reason, seconds): status pass, fail or skip."""
    start = time.monotonic()
    if "reason" in test:
        return "skip", "not bundled: " + test["reason"], 0.0
    folder = os.path.join(outdir, "tests", test["name"])
    for data_set in test["data_sets"]:
        data = os.path.join(folder, data_set)
        command = [os.path.join(outdir, "bin", "kiln-run"), os.path.join(folder, "model.kiln"),
                   "--inputs", data, "--expect", data,
                   "--rtol", repr(test["rtol"]), "--atol", repr(test["atol"])]
        try:
            result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                                    text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            return "fail", "%s: timeout after %g s" % (data_set, timeout), time.monotonic() - start
        output = result.stdout + "\n" + result.stderr
        if result.returncode == 3:
            return "skip", "no CUDA device", time.monotonic() - start
        if result.returncode < 0:
            return "fail", "%s: crash (signal %d) %s" % (
                data_set, -result.returncode, one_line(output)), time.monotonic() - start
        if result.returncode != 0:
            return "fail", "%s: %s" % (data_set, one_line(output)), time.monotonic() - start
    if test.get("no_kernel"):
        return "fail", "no kernel launch writes output %s (only a copy)" % ", ".join(
            "'%s'" % n for n in test["no_kernel"]), time.monotonic() - start
    note = ""
    if test.get("constant_outputs"):
        note = "constant output %s (folded at compile time)" % ", ".join(test["constant_outputs"])
    return "pass", note, time.monotonic() - start


def main():
    args = parse_args()
    outdir = os.path.abspath(args.outdir)
    manifest_path = os.path.join(outdir, "manifest.json")
    if not os.path.exists(manifest_path):
        print("gpu-node-run: error: no %s (write the bundle with scripts/gpu-node-bundle.sh)"
              % manifest_path, file=sys.stderr)
        return 2
    with open(manifest_path) as file:
        manifest = json.load(file)
    tests = [t for t in manifest["tests"]
             if not args.filter or re.search(args.filter, t["name"])]
    try:
        device = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                                 "--format=csv,noheader"], capture_output=True, text=True,
                                timeout=30).stdout.strip().splitlines()
    except (OSError, subprocess.TimeoutExpired):
        device = []
    print("gpu-node-run: %d tests (%d bundled), device: %s" % (
        len(tests), sum(1 for t in tests if "reason" not in t),
        device[0] if device else "none found"), flush=True)

    start = time.monotonic()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_test, outdir, test, args.timeout): test["name"]
                   for test in tests}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    elapsed = time.monotonic() - start

    rows = []
    per_op = collections.OrderedDict()
    for test in sorted(tests, key=lambda t: (t["op"].lower(), t["name"])):
        status, reason, seconds = results[test["name"]]
        rows.append({"name": test["name"], "op": test["op"], "status": status,
                     "reason": reason, "seconds": round(seconds, 3),
                     "data_sets": test.get("data_sets", []),
                     "bound_inputs": test.get("bound_inputs", [])})
        entry = per_op.setdefault(test["op"], {"tests": 0, "passed": 0, "failed": 0,
                                               "skipped": 0})
        entry["tests"] += 1
        entry[{"pass": "passed", "fail": "failed", "skip": "skipped"}[status]] += 1

    width = max([len("op")] + [len(op) for op in per_op])
    print("%-*s %6s %6s %6s %7s" % (width, "op", "tests", "passed", "failed", "skipped"))
    for op, entry in per_op.items():
        mark = "" if entry["passed"] == entry["tests"] else "  *"
        print("%-*s %6d %6d %6d %7d%s" % (width, op, entry["tests"], entry["passed"],
                                         entry["failed"], entry["skipped"], mark))
    failures = [r for r in rows if r["status"] == "fail"]
    groups = collections.Counter(re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", r["reason"])[:150]
                                 for r in failures)
    if groups:
        print("most common failure reasons:")
        for reason, count in groups.most_common(12):
            print("  %4d  %s" % (count, reason))
    for row in failures[:args.show_failures]:
        print("FAIL %s [%s]: %s" % (row["name"], row["op"], row["reason"]))

    passed = sum(1 for r in rows if r["status"] == "pass")
    failed = len(failures)
    skipped = sum(1 for r in rows if r["status"] == "skip")
    results_path = args.results or os.path.join(outdir, "results.json")
    summary = {"passed": passed, "failed": failed, "skipped": skipped, "total": len(rows),
               "cpu_passing": manifest.get("cpu_passing"), "device": device[0] if device else "",
               "seconds": round(elapsed, 1)}
    with open(results_path, "w") as file:
        json.dump({"summary": summary, "ops": per_op, "tests": rows}, file, indent=1)
    print("results: %s" % results_path)

    if args.update_list is not None:
        path = args.update_list or os.path.join(outdir, "gpu-expected-pass.txt")
        with open(path, "w") as file:
            file.write(LIST_HEADER)
            for row in sorted(rows, key=lambda r: r["name"]):
                if row["status"] == "pass":
                    file.write(row["name"] + "\n")
        print("wrote %s: %d tests (copy it to test/onnx-node/gpu-expected-pass.txt)"
              % (path, passed))
    print("time: %.1f s; %d of %d CPU-passing tests pass on the GPU" % (
        elapsed, passed, len(rows)))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
