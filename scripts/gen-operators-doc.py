#!/usr/bin/env python3
"""Writes docs/operators.md: every ONNX op of the node tests with kiln's support.

Reads the CPU node-test results (scripts/onnx-node-tests.sh --json FILE; by
default build/test-logs/node.json as scripts/test.sh writes it), the GPU
results when given (results.json of the GPU bundle's run.sh), the node-test
data (dtypes of the passing tests, inputs that are sequences/optionals/strings)
and the kiln dialect's op mnemonics (include/kiln/Dialect/Kiln/IR/*.td).

    scripts/gen-operators-doc.py [--cpu-json FILE] [--gpu-json FILE] [-o docs/operators.md]

Support: `yes` when every node test of the op passes (on the CPU, and on the
GPU once GPU results exist), `partial` when some do, `no` when none does,
`n/a` when the op's tests cannot apply to inference (training-only optimizer
ops, random outputs, sequences/optionals/strings); those still count in the
totals.
"""

import argparse
import collections
import glob
import json
import os
import re
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Ops whose node tests cannot apply to an inference compiler, with the reason.
NOT_APPLICABLE_OPS = {
    "Adagrad": "optimizer op: training only",
    "Adam": "optimizer op: training only",
    "Momentum": "optimizer op: training only",
    "Gradient": "training only",
    "Bernoulli": "random output",
    "RandomNormal": "random output",
    "RandomNormalLike": "random output",
    "RandomUniform": "random output",
    "RandomUniformLike": "random output",
    "Multinomial": "random output",
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu-json", default=os.path.join(REPO_ROOT, "build", "test-logs",
                                                           "node.json"))
    parser.add_argument("--gpu-json", help="results.json of the GPU node-test bundle")
    parser.add_argument("--data-dir", default="/usr/share/libonnx-testdata/data/node")
    parser.add_argument("-o", "--output", default=os.path.join(REPO_ROOT, "docs", "operators.md"))
    return parser.parse_args()


def snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def dialect_ops():
    """kiln op mnemonics from the ODS files."""
    names = set()
    for path in glob.glob(os.path.join(REPO_ROOT, "include", "kiln", "Dialect", "Kiln", "IR",
                                       "*.td")):
        with open(path) as file:
            text = file.read()
        names.update(re.findall(r'^def Kiln_\w+\s*:\s*Kiln_\w+<\s*"(\w+)"', text, re.M))
    return names


def kiln_op_for(onnx_op, mnemonics):
    for candidate in (snake(onnx_op), onnx_op.lower()):
        if candidate in mnemonics:
            return "kiln." + candidate
    return None


def test_facts(data_dir, name):
    """(dtypes of the test's tensors, reason it cannot apply or None)."""
    try:
        import onnx
    except ImportError:
        return set(), None
    try:
        model = onnx.load(os.path.join(data_dir, name, "model.onnx"), load_external_data=False)
    except Exception:
        return set(), None
    dtypes, reason = set(), None
    for value in list(model.graph.input) + list(model.graph.output):
        kind = value.type.WhichOneof("value")
        if kind in ("sequence_type", "optional_type", "map_type"):
            reason = "%s values (no tensors-only equivalent)" % kind.split("_")[0]
        elif kind == "tensor_type":
            elem = value.type.tensor_type.elem_type
            if elem == onnx.TensorProto.STRING:
                reason = "string tensors"
            elif elem:
                dtypes.add(onnx.helper.tensor_dtype_to_np_dtype(elem).name
                           if elem != onnx.TensorProto.BFLOAT16 else "bfloat16")
    if name.startswith("test_training_dropout") and "zero_ratio" not in name:
        reason = "random output (training-mode Dropout)"
    return {"float64" if d == "double" else d for d in dtypes}, reason


def main():
    args = parse_args()
    if not os.path.exists(args.cpu_json):
        print("gen-operators-doc: error: no %s (scripts/onnx-node-tests.sh --json FILE)"
              % args.cpu_json, file=sys.stderr)
        return 2
    with open(args.cpu_json) as file:
        cpu = json.load(file)
    gpu = None
    if args.gpu_json:
        with open(args.gpu_json) as file:
            gpu = {t["name"]: t for t in json.load(file)["tests"]}
    mnemonics = dialect_ops()

    ops = collections.OrderedDict()
    not_applicable = []
    for test in sorted(cpu["tests"], key=lambda t: (t["op"].lower(), t["name"])):
        dtypes, reason = test_facts(args.data_dir, test["name"])
        reason = NOT_APPLICABLE_OPS.get(test["op"], reason)
        entry = ops.setdefault(test["op"], {"tests": 0, "cpu": 0, "gpu": 0, "gpu_run": 0,
                                            "dtypes": set(), "reasons": collections.Counter(),
                                            "na": 0})
        entry["tests"] += 1
        if reason:
            entry["na"] += 1
            not_applicable.append((test["name"], test["op"], reason))
        if test["passed"]:
            entry["cpu"] += 1
            entry["dtypes"] |= dtypes
        else:
            entry["reasons"][re.sub(r"node '[^']*' ", "", test["reason"])[:120]] += 1
        if gpu and test["name"] in gpu:
            result = gpu[test["name"]]
            if result["status"] != "skip":
                entry["gpu_run"] += 1
            if result["status"] == "pass":
                entry["gpu"] += 1
            elif result["status"] == "fail" and test["passed"]:
                entry["reasons"]["GPU: " + result["reason"][:110]] += 1

    total = len(cpu["tests"])
    cpu_passed = sum(e["cpu"] for e in ops.values())
    lines = [
        "# ONNX operators in kiln",
        "",
        "Generated by `scripts/gen-operators-doc.py` from the ONNX backend node tests",
        "(Debian's `libonnx-testdata`, %d tests, %d op types), the CPU results of" % (total, len(ops)),
        "`scripts/onnx-node-tests.sh`%s and the kiln dialect's ODS files. Do not edit by hand." % (
            ", the GPU results of the node-test bundle" if gpu else ""),
        "",
        "- CPU (`kiln-interpret`): **%d of %d** node tests pass (%.1f%%)." % (
            cpu_passed, total, 100.0 * cpu_passed / max(1, total)),
    ]
    if gpu:
        gpu_passed = sum(e["gpu"] for e in ops.values())
        lines.append("- GPU (`kiln-compile` + `kiln-run`): **%d** pass, %.1f%% of the tests that "
                     "pass on the CPU." % (gpu_passed, 100.0 * gpu_passed / max(1, cpu_passed)))
    else:
        lines.append("- GPU: not run yet.")
    lines += [
        "- Support: `yes` every node test of the op passes%s; `partial` some; `no` none;" % (
            " on the CPU and the GPU" if gpu else " (CPU)"),
        "  `n/a` its tests cannot apply to inference (listed at the end; they count in the totals).",
        "- Dtypes: the tensor types of the passing tests' graph inputs and outputs.",
        "",
        "| ONNX op | kiln op | support | dtypes (passing) | CPU pass | GPU pass | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for op, entry in sorted(ops.items(), key=lambda kv: kv[0].lower()):
        applicable = entry["tests"] - entry["na"]
        passed = min(entry["cpu"], entry["gpu"]) if gpu else entry["cpu"]
        if applicable == 0:
            support = "n/a"
        elif passed >= applicable:
            support = "yes"
        elif passed > 0 or entry["cpu"] > 0:
            support = "partial"
        else:
            support = "no"
        note = ""
        if entry["na"]:
            note = NOT_APPLICABLE_OPS.get(op) or "%d not applicable" % entry["na"]
        if entry["reasons"]:
            reason, count = entry["reasons"].most_common(1)[0]
            note = (note + "; " if note else "") + "%d× %s" % (count, reason)
        gpu_cell = "%d/%d" % (entry["gpu"], entry["tests"]) if gpu else "not run yet"
        lines.append("| %s | %s | %s | %s | %d/%d | %s | %s |" % (
            op, "`%s`" % kiln_op_for(op, mnemonics) if kiln_op_for(op, mnemonics) else "—",
            support, ", ".join(sorted(entry["dtypes"])) or "—", entry["cpu"], entry["tests"],
            gpu_cell, note.replace("|", "\\|")))
    lines += ["", "## Tests that cannot apply to inference", "",
              "They count in the %d; none of them is expected to pass." % total, "",
              "| test | op | reason |", "|---|---|---|"]
    for name, op, reason in not_applicable:
        lines.append("| %s | %s | %s |" % (name, op, reason))
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as file:
        file.write("\n".join(lines) + "\n")
    print("wrote %s: %d ops, %d tests, CPU %d passing%s" % (
        args.output, len(ops), total, cpu_passed,
        ", GPU %d passing" % sum(e["gpu"] for e in ops.values()) if gpu else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
