#!/usr/bin/env python3
"""Runs ONNX's backend node tests through kiln-interpret (the CPU evaluator).

Each test folder (…/data/node/test_*/) holds model.onnx and test_data_set_N/
with input_K.pb and output_K.pb. A test passes when

    kiln-interpret DIR/model.onnx --inputs DIR/test_data_set_N --expect DIR/test_data_set_N

exits 0 for every data set (kiln-interpret: 0 match, 1 mismatch, 2 error with
`kiln-interpret: error: ...` on stderr; rtol 1e-3 and atol 1e-7 are its
defaults, as in ONNX's own backend runner).

With --expect-list FILE the run checks for regressions instead of demanding
that everything passes: a listed test that fails is a regression (the only kind
of failure), a passing test that is not listed is reported as newly passing,
and an unlisted test that fails is counted as skipped. --update-list rewrites
FILE with the tests that pass now.

The last line printed is `N passed, M failed, K skipped`. Exit status: 0 when
M is 0, 1 when it is not, 2 when the tests could not run at all.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA_DIR = "/usr/share/libonnx-testdata/data/node"
ERROR_PREFIX = "kiln-interpret: error:"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    build_dir = os.environ.get("KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
    parser.add_argument("--kiln-interpret",
                        default=os.path.join(build_dir, "bin", "kiln-interpret"),
                        help="the kiln-interpret binary (default: %(default)s)")
    parser.add_argument("--data-dir", default=DEFAULT_DATA_DIR,
                        help="folder of test_* node tests (default: %(default)s)")
    parser.add_argument("--filter", default=None, metavar="REGEX",
                        help="run only tests whose name matches REGEX (re.search)")
    parser.add_argument("-j", "--jobs", type=int, default=2,
                        help="tests run in parallel (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per test before it counts as failed")
    parser.add_argument("--json", metavar="FILE", help="write results as JSON")
    parser.add_argument("--expect-list", metavar="FILE",
                        help="tests expected to pass; only their failures fail the run")
    parser.add_argument("--update-list", action="store_true",
                        help="rewrite --expect-list with the tests that pass now")
    parser.add_argument("--force", action="store_true",
                        help="let --update-list drop more than half of the list")
    parser.add_argument("--table", choices=["all", "failing", "none"], default="all",
                        help="per-op table rows to print (default: %(default)s)")
    parser.add_argument("--show-failures", type=int, default=0, metavar="N",
                        help="also list up to N failing tests with their reasons")
    parser.add_argument("extra", nargs="*",
                        help="extra kiln-interpret flags, after --")
    args = parser.parse_args()
    if args.update_list and not args.expect_list:
        parser.error("--update-list needs --expect-list FILE")
    return args


# --- Op types ---------------------------------------------------------------------

def normalise(name):
    return re.sub(r"[^a-z0-9]", "", name.lower())


def load_schema_names():
    """All ONNX op type names known to the onnx package (empty without onnx)."""
    try:
        import onnx.defs
        return sorted({schema.name for schema in onnx.defs.get_all_schemas_with_history()})
    except Exception:  # onnx missing or broken: fall back to graph/test names
        return []


def longest_prefix_op(test_name, candidates):
    """The candidate op whose normalised name is the longest prefix of the test name."""
    stem = normalise(test_name[len("test_"):] if test_name.startswith("test_") else test_name)
    best = None
    for op in candidates:
        key = normalise(op)
        if key and stem.startswith(key) and (best is None or len(key) > len(normalise(best))):
            best = op
    return best


def graph_op_types(model_path):
    """Op types of the model graph's nodes in order, or None if unreadable."""
    try:
        import onnx
        model = onnx.load(model_path, load_external_data=False)
        return [node.op_type for node in model.graph.node]
    except Exception:
        return None


# Test-name prefixes that do not spell their op's name.
NAME_ALIASES = {
    "greater_equal": "GreaterOrEqual",
    "less_equal": "LessOrEqual",
    "mvn": "MeanVarianceNormalization",
    "nllloss": "NegativeLogLikelihoodLoss",
    "sce": "SoftmaxCrossEntropyLoss",
}


def test_op_type(test_name, node_ops, schema_names):
    """The op a node test is about: its graph's only op type, else the op named
    by the test (expanded tests hold the function body of the op they test)."""
    distinct = sorted(set(node_ops or []))
    if len(distinct) == 1:
        return distinct[0]
    stem = test_name[len("test_"):]
    for prefix, op in NAME_ALIASES.items():
        if stem == prefix or stem.startswith(prefix + "_"):
            return op
    for candidates in (schema_names, distinct):
        op = longest_prefix_op(test_name, candidates)
        if op:
            return op
    if node_ops:
        return node_ops[0]
    return stem.split("_")[0] or test_name


# --- Running one test ---------------------------------------------------------------

def first_matching_line(text, pattern):
    for line in text.splitlines():
        if re.search(pattern, line, re.IGNORECASE):
            return line.strip()
    return None


def last_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else None


def failure_reason(returncode, stdout, stderr):
    """A one-line reason for a failed kiln-interpret run."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        # LLVM prints a stack dump after a crash; the line before it that
        # names an assertion or error is the useful one.
        detail = first_matching_line(stderr, r"assert|error|terminate|what\(\)|unreachable")
        return "crash (%s)%s" % (name, ": " + detail[:200] if detail else "")
    error = first_matching_line(stderr, re.escape(ERROR_PREFIX))
    if error:
        return error[error.lower().index(ERROR_PREFIX) + len(ERROR_PREFIX):].strip()
    if returncode == 1:
        line = first_matching_line(stdout + "\n" + stderr, r"mismatch")
        if line:
            return line
        first_error = first_matching_line(stderr, r"\S")
        return "exit code 1 without a mismatch line%s" % (
            ": " + first_error if first_error else "")
    line = last_line(stderr) or last_line(stdout)
    return "exit code %d%s" % (returncode, ": " + line if line else "")


def reason_key(reason):
    """|reason| with node names and numbers masked, so that similar ones group."""
    reason = re.sub(r"node '[^']*' ", "", reason)
    return re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", reason)


def run_test(tool, test_dir, timeout, extra):
    """Runs every data set of one test; returns (passed, reason, seconds)."""
    start = time.monotonic()
    model = os.path.join(test_dir, "model.onnx")
    data_sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    if not data_sets:
        return False, "no test_data_set_* folder", 0.0
    for data_set in data_sets:
        data = os.path.join(test_dir, data_set)
        command = [tool, model, "--inputs", data, "--expect", data] + extra
        try:
            result = subprocess.run(command, stdin=subprocess.DEVNULL,
                                    capture_output=True, text=True,
                                    errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, "timeout after %g s" % timeout, time.monotonic() - start
        except OSError as error:
            return False, "could not run kiln-interpret: %s" % error, time.monotonic() - start
        if result.returncode != 0:
            reason = failure_reason(result.returncode, result.stdout, result.stderr)
            if len(data_sets) > 1:
                reason = "%s: %s" % (data_set, reason)
            return False, reason[:300], time.monotonic() - start
    return True, "", time.monotonic() - start


# --- Expectation list -------------------------------------------------------------

LIST_HEADER = """\
# ONNX node tests (/usr/share/libonnx-testdata/data/node) that kiln-interpret
# passes on the CPU. scripts/onnx-node-tests.py --expect-list fails only when one
# of these fails; regenerate with scripts/onnx-node-tests.sh --update-list
# (see docs/testing.md). One test name per line.
"""


def read_list(path):
    if not os.path.exists(path):
        return set()
    with open(path) as file:
        return {line.split("#")[0].strip() for line in file} - {""}


def write_list(path, names):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as file:
        file.write(LIST_HEADER)
        for name in sorted(names):
            file.write(name + "\n")


# --- Main ---------------------------------------------------------------------------

def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    args = parse_args()
    extra = [flag for flag in args.extra if flag != "--"]

    if not os.path.isdir(args.data_dir):
        print("onnx-node-tests: error: no node tests at %s (apt package libonnx-testdata)"
              % args.data_dir, file=sys.stderr)
        return 2
    if not (os.path.isfile(args.kiln_interpret) and os.access(args.kiln_interpret, os.X_OK)):
        print("onnx-node-tests: error: %s is not built (scripts/build.sh kiln-interpret)"
              % args.kiln_interpret, file=sys.stderr)
        return 2

    names = sorted(d for d in os.listdir(args.data_dir)
                   if d.startswith("test_") and os.path.isdir(os.path.join(args.data_dir, d)))
    if args.filter:
        names = [name for name in names if re.search(args.filter, name)]
    if not names:
        print("onnx-node-tests: error: no tests selected", file=sys.stderr)
        return 2

    schema_names = load_schema_names()
    ops = {}
    node_ops = {}
    for name in names:
        node_ops[name] = graph_op_types(os.path.join(args.data_dir, name, "model.onnx"))
        ops[name] = test_op_type(name, node_ops[name], schema_names)

    print("onnx-node-tests: %d tests, %d workers, %s" % (len(names), args.jobs, args.kiln_interpret),
          flush=True)
    start = time.monotonic()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_test, args.kiln_interpret,
                               os.path.join(args.data_dir, name), args.timeout, extra): name
                   for name in names}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    elapsed = time.monotonic() - start

    expected = read_list(args.expect_list) if args.expect_list else None
    if args.expect_list and not os.path.exists(args.expect_list) and not args.update_list:
        print("onnx-node-tests: note: %s does not exist yet: every failure counts as "
              "skipped" % args.expect_list)

    tests = []
    for name in names:
        passed, reason, seconds = results[name]
        if expected is None:
            kind = "pass" if passed else "fail"
        elif name in expected:
            kind = "pass" if passed else "regression"
        else:
            kind = "newly-passing" if passed else "expected-failure"
        tests.append({"name": name, "op": ops[name], "node_ops": node_ops[name],
                      "passed": passed, "reason": reason, "result": kind,
                      "seconds": round(seconds, 3)})

    # Listed (and selected) tests that have no test folder: a stale list.
    missing = sorted(n for n in (expected or set()) - set(names)
                     if not args.filter or re.search(args.filter, n))

    # Per-op table.
    per_op = collections.OrderedDict()
    for test in sorted(tests, key=lambda t: t["op"].lower()):
        entry = per_op.setdefault(test["op"], {"tests": 0, "passed": 0})
        entry["tests"] += 1
        entry["passed"] += int(test["passed"])
    rows = [(op, e) for op, e in per_op.items()
            if args.table == "all" or (args.table == "failing" and e["passed"] < e["tests"])]
    if rows:
        width = max(len("op"), max(len(op) for op, _ in rows))
        print("%-*s %6s %6s" % (width, "op", "tests", "passed"))
        for op, entry in rows:
            mark = "" if entry["passed"] == entry["tests"] else "  *"
            print("%-*s %6d %6d%s" % (width, op, entry["tests"], entry["passed"], mark))
    complete = sum(1 for e in per_op.values() if e["passed"] == e["tests"])
    print("ops: %d, all tests passing for %d, some for %d (* = not all pass)" % (
        len(per_op), complete,
        sum(1 for e in per_op.values() if 0 < e["passed"] < e["tests"])))

    # Most common failure reasons.
    failures = [t for t in tests if not t["passed"]]
    if failures:
        groups = collections.Counter(reason_key(t["reason"]) for t in failures)
        print("most common failure reasons:")
        for reason, count in groups.most_common(12):
            print("  %4d  %s" % (count, reason[:150]))
    for test in failures[:args.show_failures]:
        print("FAIL %s [%s]: %s" % (test["name"], test["op"], test["reason"]))

    newly = [t for t in tests if t["result"] == "newly-passing"]
    regressions = [t for t in tests if t["result"] == "regression"]
    if newly:
        print("newly passing (not in %s; add with --update-list): %d" % (args.expect_list, len(newly)))
        for test in newly[:50]:
            print("  NEW %s" % test["name"])
        if len(newly) > 50:
            print("  ... and %d more" % (len(newly) - 50))
    for test in regressions:
        print("REGRESSION %s [%s]: %s" % (test["name"], test["op"], test["reason"]))
    for name in missing:
        print("MISSING %s: listed in %s but not in %s" % (name, args.expect_list, args.data_dir))

    passed = sum(1 for t in tests if t["passed"])
    if expected is None:
        failed, skipped = len(failures), 0
    else:
        failed = len(regressions) + len(missing)
        skipped = sum(1 for t in tests if t["result"] == "expected-failure")

    if args.update_list:
        keep = {n for n in expected if args.filter and not re.search(args.filter, n)}
        now = keep | {t["name"] for t in tests if t["passed"]}
        dropped = expected - now
        if len(dropped) * 2 > len(expected) and not args.force:
            print("onnx-node-tests: error: --update-list would drop %d of %d listed tests; "
                  "is kiln-interpret broken? (--force to do it anyway)"
                  % (len(dropped), len(expected)), file=sys.stderr)
            return 2
        write_list(args.expect_list, now)
        print("updated %s: %d tests (+%d, -%d)" % (
            args.expect_list, len(now), len(now - expected), len(dropped)))

    summary = {"passed": passed, "failed": failed, "skipped": skipped, "total": len(tests),
               "failing_tests": len(failures), "regressions": len(regressions),
               "newly_passing": len(newly), "listed_but_missing": missing,
               "expect_list": args.expect_list, "seconds": round(elapsed, 1),
               "kiln_interpret": args.kiln_interpret, "data_dir": args.data_dir}
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"summary": summary, "ops": per_op, "tests": tests}, file, indent=1)

    print("time: %.1f s; %d of %d tests pass; %d regressions, %d newly passing"
          % (elapsed, passed, len(tests), len(regressions), len(newly))
          if expected is not None else "time: %.1f s" % elapsed)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
