#!/usr/bin/env python3
"""Build machine: writes the GPU bundle of ONNX node tests (issue 5).

For every node test that kiln-interpret passes on the CPU (from a results JSON
of scripts/onnx-node-tests.py, or a fresh CPU run), this compiles the test's
model to OUTDIR/tests/NAME/model.kiln with static input shapes taken from its
test_data_set_0, binding with --bind-input only the graph inputs that feed
shape positions (and only when compiling without them fails), and writes two
data sets:

  data_0/  test_data_set_0 without the bound inputs (ONNX's reference outputs)
  data_1/  a freshly drawn input set: float inputs drawn uniformly between the
           original tensor's min and max (never exactly 0), integer and bool
           inputs kept from set 0 (they are often indices); expected outputs
           from kiln-interpret on the same inputs, bound ones included

Inputs are renumbered input_K in the artifact's order, so kiln-run binds them
by position. Each artifact is checked with kiln-inspect: an output that is not
a compile-time constant must be written by a kernel launch or a GEMM; a test
where one is only copied from an input is kept but marked `no_kernel` (the GPU
runner counts it as failed). Tests that cannot be bundled are listed in
OUTDIR/manifest.json with a one-line reason. OUTDIR also gets bin/kiln-run and
run.sh / run.py (scripts/gpu-node-run.*), which need only python3's stdlib.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA_DIR = "/usr/share/libonnx-testdata/data/node"
SIZE_LIMIT = 64 * 1024 * 1024
# Compile errors after which binding shape-like inputs may help.
SHAPE_ERROR = re.compile(r"not static|dynamic dim|static shape|require-static|unknown|needs a constant|"
                         r"not known at compile time",
                         re.IGNORECASE)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    build_dir = os.environ.get("KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
    parser.add_argument("outdir")
    parser.add_argument("--build-dir", default=build_dir)
    parser.add_argument("--data-dir", default=DEFAULT_DATA_DIR)
    parser.add_argument("--cpu-json", metavar="FILE",
                        help="results of scripts/onnx-node-tests.py --json (default: run it)")
    parser.add_argument("--filter", metavar="REGEX", help="only tests matching REGEX")
    parser.add_argument("--gpu-arch", default=os.environ.get("KILN_GPU_ARCH", "sm_90"))
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds per kiln-compile / kiln-interpret call")
    parser.add_argument("--seed", type=int, default=20240605)
    return parser.parse_args()


def run(command, timeout):
    """(returncode, stdout, stderr); a timeout gives returncode None."""
    try:
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                                text=True, errors="replace", timeout=timeout)
        return result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout after %g s" % timeout


def error_line(returncode, stderr):
    """The first `kiln-...: error:` line of |stderr|, or another one-line reason."""
    if returncode is None:
        return stderr.strip()
    for line in stderr.splitlines():
        if ": error:" in line:
            return line.split(": error:", 1)[1].strip()[:300]
    if returncode < 0:
        return "crash (signal %d)" % -returncode
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return ("exit code %d: %s" % (returncode, lines[-1] if lines else ""))[:300]


# --- Reading a test -----------------------------------------------------------------

def graph_inputs(model):
    initializers = {init.name for init in model.graph.initializer}
    return [value.name for value in model.graph.input if value.name not in initializers]


def read_tensors(folder, prefix):
    """[(file name, numpy array)] of prefix_N.pb in N order."""
    files = [f for f in os.listdir(folder) if re.fullmatch(prefix + r"_\d+\.pb", f)]
    files.sort(key=lambda f: int(re.search(r"\d+", f).group()))
    tensors = []
    for name in files:
        proto = onnx.TensorProto()
        with open(os.path.join(folder, name), "rb") as file:
            proto.ParseFromString(file.read())
        tensors.append((name, numpy_helper.to_array(proto)))
    return tensors


def draw_like(array, rng):
    """A fresh float tensor of |array|'s shape and dtype, uniform in its range,
    never exactly zero; other dtypes are returned unchanged."""
    if array.dtype.kind != "f" or array.size == 0:
        return array
    finite = array[np.isfinite(array)].astype(np.float64)
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if low == high:
        if low == 0.0:
            low, high = 0.1, 1.0
        else:  # a constant tensor (a scale, a threshold): keep it
            return array
    fresh = rng.uniform(low, high, array.shape)
    fresh[fresh == 0] = (high - low) / 7 + low or 0.5
    fresh = fresh.astype(array.dtype)
    fresh[~np.isfinite(array)] = array[~np.isfinite(array)]  # keep inf/NaN where set 0 has them
    return fresh


# --- Artifact checks ----------------------------------------------------------------

def kernel_coverage(inspect_text):
    """Outputs not written by a launch or a GEMM, as (name, 'constant'|'copy')."""
    buffers, outputs, steps = {}, [], []
    for line in inspect_text.splitlines():
        line = line.strip()
        match = re.match(r"buffer (\d+): (\w+) .*?(?: of (\d+))?$", line)
        if match:
            buffers[int(match.group(1))] = (match.group(2),
                                            int(match.group(3)) if match.group(3) else None)
            continue
        match = re.match(r"output \d+ '(.*)': .* buffer (\d+)$", line)
        if match:
            outputs.append((match.group(1), int(match.group(2))))
            continue
        match = re.match(r"step \d+: (Launch|Gemm|Copy) .*?(?:args \[([\d, ]*)\]|out (\d+))", line)
        if match:
            if match.group(2) is not None:
                args = [int(a) for a in match.group(2).split(",") if a.strip()]
            else:
                args = [int(match.group(3))]
            steps.append((match.group(1), args))

    def root(buffer):
        seen = set()
        while buffer in buffers and buffers[buffer][0] == "Alias" and buffer not in seen:
            seen.add(buffer)
            buffer = buffers[buffer][1]
        return buffer

    kernel_written = {root(a) for kind, args in steps if kind != "Copy" for a in args}
    problems = []
    for name, buffer in outputs:
        target = root(buffer)
        if target in kernel_written:
            continue
        sources = [root(args[0]) for kind, args in steps
                   if kind == "Copy" and len(args) == 2 and root(args[1]) == target]
        kinds = {buffers.get(s, ("?",))[0] for s in sources}
        if sources and kinds <= {"Weight"}:
            problems.append((name, "constant"))
        elif sources and all(s in kernel_written for s in sources):
            continue
        else:
            problems.append((name, "copy"))
    return problems


# --- Bundling one test --------------------------------------------------------------

def bundle_test(name, args, outdir, bin_dir, seed):
    """Returns the manifest entry of one test; 'reason' is set when it is left out."""
    test_dir = os.path.join(args.data_dir, name)
    model_path = os.path.join(test_dir, "model.onnx")
    set0 = os.path.join(test_dir, "test_data_set_0")
    entry = {"name": name}
    try:
        model = onnx.load(model_path)
    except Exception as error:  # pragma: no cover - the CPU run read it
        entry["reason"] = "cannot read model: %s" % error
        return entry
    input_names = graph_inputs(model)
    output_names = [value.name for value in model.graph.output]
    inputs = read_tensors(set0, "input")
    outputs = read_tensors(set0, "output")
    if len(inputs) != len(input_names):
        entry["reason"] = "test_data_set_0 has %d inputs, the graph %d" % (
            len(inputs), len(input_names))
        return entry

    work = tempfile.mkdtemp(prefix="kiln-node-")
    try:
        test_out = os.path.join(outdir, "tests", name)
        os.makedirs(test_out, exist_ok=True)
        artifact = os.path.join(test_out, "model.kiln")
        compile_cmd = [os.path.join(bin_dir, "kiln-compile"), model_path, "--quiet",
                       "--gpu-arch", args.gpu_arch, "-o", artifact]

        def shapes(skip):
            flags = []
            for input_name, (_, array) in zip(input_names, inputs):
                if input_name not in skip and array.ndim > 0:
                    flags += ["--input-shape",
                              "%s=%s" % (input_name, "x".join(str(d) for d in array.shape))]
            return flags

        bound = []
        code, _, err = run(compile_cmd + shapes(()), args.timeout)
        reason = error_line(code, err) if code != 0 else None
        if reason and code is not None and SHAPE_ERROR.search(err):
            _, listed, _ = run([os.path.join(bin_dir, "kiln-compile"), model_path,
                                "--print-shape-inputs"], args.timeout)
            bound = [n for n in listed.split() if n in input_names]
            if not bound:
                reason += " (no input feeds only shape positions)"
            else:
                binds = []
                for input_name in bound:
                    path = os.path.join(set0, inputs[input_names.index(input_name)][0])
                    binds += ["--bind-input", "%s=%s" % (input_name, path)]
                code, _, err = run(compile_cmd + shapes(bound) + binds, args.timeout)
                reason = None if code == 0 else "with --bind-input %s: %s" % (
                    ",".join(bound), error_line(code, err))
        if reason:
            entry["reason"] = ("compile: " + reason)[:300]
            shutil.rmtree(test_out, ignore_errors=True)
            return entry
        entry["bound_inputs"] = bound

        # Which outputs a kernel writes.
        code, inspect_text, err = run([os.path.join(bin_dir, "kiln-inspect"), artifact],
                                      args.timeout)
        if code != 0:
            entry["reason"] = "kiln-inspect: " + error_line(code, err)
            shutil.rmtree(test_out, ignore_errors=True)
            return entry
        problems = kernel_coverage(inspect_text)
        entry["launches"] = len(re.findall(r"step \d+: (?:Launch|Gemm)", inspect_text))
        entry["constant_outputs"] = [n for n, kind in problems if kind == "constant"]
        entry["no_kernel"] = [n for n, kind in problems if kind == "copy"]

        # Data set 0: the reference data without the bound inputs.
        kept = [i for i, n in enumerate(input_names) if n not in bound]
        data0 = os.path.join(test_out, "data_0")
        os.makedirs(data0)
        for position, index in enumerate(kept):
            shutil.copy(os.path.join(set0, inputs[index][0]),
                        os.path.join(data0, "input_%d.pb" % position))
        for file_name, _ in outputs:
            shutil.copy(os.path.join(set0, file_name), os.path.join(data0, file_name))
        entry["outputs"] = [{"name": n, "dtype": str(a.dtype)}
                            for n, (_, a) in zip(output_names, outputs)]
        entry["rtol"] = 1e-2 if any(a.dtype == np.float16 for _, a in outputs) else 1e-3
        entry["atol"] = 1e-7
        entry["data_sets"] = ["data_0"]

        # Data set 1: fresh floats, kiln-interpret's outputs.
        rng = np.random.RandomState(seed)
        # Bound inputs are compiled into the artifact: they keep their values.
        fresh = [array if input_name in bound else draw_like(array, rng)
                 for input_name, (_, array) in zip(input_names, inputs)]
        if not any(f is not a for f, (_, a) in zip(fresh, inputs)):
            entry["note_data_1"] = "no float input to redraw"
            return entry
        interpret_in = os.path.join(work, "in")
        interpret_out = os.path.join(work, "out")
        os.makedirs(interpret_in)
        for index, array in enumerate(fresh):
            np.save(os.path.join(interpret_in, "input_%d.npy" % index), array)
        code, _, err = run([os.path.join(bin_dir, "kiln-interpret"), model_path,
                            "--inputs", interpret_in, "--output-dir", interpret_out],
                           args.timeout)
        if code != 0:
            entry["note_data_1"] = "kiln-interpret: " + error_line(code, err)
            return entry
        new_outputs = [np.load(os.path.join(interpret_out, "output_%d.npy" % i))
                       for i in range(len(outputs))]
        for (_, old), new in zip(outputs, new_outputs):
            if new.dtype.kind == "f" and np.isnan(new).any() and not np.isnan(old).any():
                entry["note_data_1"] = "fresh inputs give NaN outputs (domain); set 1 left out"
                return entry
        data1 = os.path.join(test_out, "data_1")
        os.makedirs(data1)
        for position, index in enumerate(kept):
            np.save(os.path.join(data1, "input_%d.npy" % position), fresh[index])
        for index, array in enumerate(new_outputs):
            np.save(os.path.join(data1, "output_%d.npy" % index), array)
        entry["data_sets"].append("data_1")
        return entry
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- Main ---------------------------------------------------------------------------

def cpu_results(args):
    if args.cpu_json:
        with open(args.cpu_json) as file:
            return json.load(file)
    path = os.path.join(args.outdir, "cpu-results.json")
    command = [sys.executable, os.path.join(REPO_ROOT, "scripts", "onnx-node-tests.py"),
               "--kiln-interpret", os.path.join(args.build_dir, "bin", "kiln-interpret"),
               "--data-dir", args.data_dir, "--json", path, "--table", "none"]
    if args.filter:
        command += ["--filter", args.filter]
    print("== CPU run: " + " ".join(command), flush=True)
    subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    with open(path) as file:
        return json.load(file)


def main():
    args = parse_args()
    bin_dir = os.path.join(args.build_dir, "bin")
    for tool in ("kiln-compile", "kiln-interpret", "kiln-inspect", "kiln-run"):
        if not os.access(os.path.join(bin_dir, tool), os.X_OK):
            print("gpu-node-bundle: error: %s/%s is not built" % (bin_dir, tool), file=sys.stderr)
            return 2
    if os.path.exists(args.outdir):
        shutil.rmtree(args.outdir)
    os.makedirs(os.path.join(args.outdir, "bin"))
    start = time.monotonic()

    cpu = cpu_results(args)
    ops = {t["name"]: t["op"] for t in cpu["tests"]}
    names = [t["name"] for t in cpu["tests"] if t["passed"]
             and (not args.filter or re.search(args.filter, t["name"]))]
    print("== bundling %d CPU-passing tests (of %d)" % (len(names), len(cpu["tests"])), flush=True)
    entries = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(bundle_test, name, args, args.outdir, bin_dir,
                               args.seed + index): name
                   for index, name in enumerate(names)}
        for future in concurrent.futures.as_completed(futures):
            name = futures[future]
            try:
                entries[name] = future.result()
            except Exception as error:  # a bug here must not lose the other tests
                entries[name] = {"name": name, "reason": "bundler error: %r" % error}
                shutil.rmtree(os.path.join(args.outdir, "tests", name), ignore_errors=True)
    tests = []
    for name in names:
        entry = entries[name]
        entry["op"] = ops[name]
        tests.append(entry)

    shutil.copy(os.path.join(bin_dir, "kiln-run"), os.path.join(args.outdir, "bin"))
    for source, target in (("gpu-node-run.sh", "run.sh"), ("gpu-node-run.py", "run.py")):
        shutil.copy(os.path.join(REPO_ROOT, "scripts", source), os.path.join(args.outdir, target))
        os.chmod(os.path.join(args.outdir, target), 0o755)
    bundled = [t for t in tests if "reason" not in t]
    left_out = [t for t in tests if "reason" in t]
    manifest = {"gpu_arch": args.gpu_arch, "data_dir": args.data_dir,
                "cpu_summary": cpu.get("summary"), "cpu_passing": len(names),
                "bundled": len(bundled), "left_out": len(left_out), "tests": tests}
    with open(os.path.join(args.outdir, "manifest.json"), "w") as file:
        json.dump(manifest, file, indent=1)

    size = sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(args.outdir) for f in files)
    groups = {}
    for test in left_out:
        key = re.sub(r"'[^']*'", "'…'", re.sub(r"\d+", "#", test["reason"]))[:110]
        groups.setdefault(key, []).append(test["name"])
    print("left out of the bundle: %d" % len(left_out))
    for key, members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print("  %4d  %s  (e.g. %s)" % (len(members), key, members[0]))
    marked = [t["name"] for t in bundled if t["no_kernel"]]
    if marked:
        print("bundled but marked no_kernel (an output only copied): %s" % ", ".join(marked))
    print("bundle: %s, %d tests (%d with a second data set), %.1f MiB, %.0f s" % (
        args.outdir, len(bundled), sum(1 for t in bundled if "data_1" in t["data_sets"]),
        size / 2**20, time.monotonic() - start))
    if size >= SIZE_LIMIT:
        print("gpu-node-bundle: error: %d bytes, over the 64 MiB limit" % size, file=sys.stderr)
        return 1
    print("on the GPU machine: %s/run.sh   (prints N passed, M failed, K skipped; "
          "writes results.json)" % args.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
