#!/usr/bin/env python3
"""The model zoo in CI: every graph-only model of test/zoo through kiln.

Usage: zoo-tests.py [--filter REGEX] [--jobs 2] [--no-numerics] [--update-list]

For each file listed in test/zoo/zoo.json (written by scripts/export-zoo.py):
  1. scripts/fill-weights.py fills its weights (deterministic, as on the GPU);
  2. compile, at fp32 and at fp16: `kiln-compile --input-shape ... --precision
     P -o model.kiln`, the whole pipeline down to NVRTC's cubins and the
     artifact, at the small CI sizes of zoo_common.CPU_SIZES (batch 1; CNNs
     64x64; sequences of 16); a kernel left with a stack frame (kiln-compile's
     warning: spilled registers or a local array) fails the step;
  3. numerics (fp32): kiln-interpret (the CPU evaluator) against onnxruntime on
     seeded inputs (zoo_common.make_inputs), relative L2 error <= 1e-5 per
     output.
Each step of each file is one test. test/zoo/expected-failures.txt lists the
tests that fail today (`FILE STEP: error`); as in lit's XFAIL, a listed test
that fails is skipped (and printed), a listed test that passes is a failure
(take it off with --update-list), an unlisted failure is a failure.
Last line: `N passed, M failed, K skipped`.

--gpu-bundle DIR compiles every file at fp32 and fp16 at the GPU sizes
(zoo_common.GPU_SIZES: batch 2, CNNs 224x224, sequences of 64) with its
weights external (scripts/fill-weights.py --external; the GPU machine writes
the same file), and copies kiln-run and scripts/zoo-run.py as DIR/run.py.
On the GPU machine, in the repository: `python3 DIR/run.py DIR`.
"""
import argparse
import collections
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle_files  # noqa: E402
import expected_failures  # noqa: E402
import tensor_compare  # noqa: E402
import zoo_common  # noqa: E402

REPO_ROOT = zoo_common.REPO_ROOT
LIST = os.path.join(zoo_common.ZOO_DIR, "expected-failures.txt")
STEPS = ["compile-fp32", "compile-fp16", "numerics-fp32"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    build = os.environ.get("KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
    parser.add_argument("--build-dir", default=build)
    parser.add_argument("--filter", help="only files matching this regex")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--no-numerics", action="store_true")
    parser.add_argument("--no-nvrtc", action="store_true",
                        help="compile up to the CUDA emitter only (--emit cuda): a quick look")
    parser.add_argument("--gpu-arch", default=os.environ.get("KILN_GPU_ARCH", "sm_90"))
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--list", default=LIST)
    parser.add_argument("--update-list", action="store_true")
    parser.add_argument("--json", help="write per-test results here")
    parser.add_argument("--gpu-bundle", metavar="DIR",
                        help="compile every model at the GPU sizes into DIR instead")
    return parser.parse_args()


def run(command, timeout):
    start = time.time()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout + done.stderr, time.time() - start
    except subprocess.TimeoutExpired:
        return -1, f"timeout after {timeout:.0f} s", time.time() - start


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return re.sub(r"^kiln-(compile|interpret): (error: )?", "", line.strip())[:300]
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return (lines[-1] if lines else "no output")[:300]


def check_model(args, record):
    """{step: (ok, detail, seconds)} for one zoo file."""
    bin_dir = os.path.join(args.build_dir, "bin")
    work = tempfile.mkdtemp(prefix="kiln-zoo-")
    results = {}
    try:
        filled = os.path.join(work, record["file"])
        status, text, _ = run([sys.executable, os.path.join(REPO_ROOT, "scripts", "fill-weights.py"),
                               os.path.join(zoo_common.ZOO_DIR, record["file"]), filled],
                              args.timeout)
        if status != 0:
            return {step: (False, "fill-weights: " + first_error(text), 0) for step in STEPS}
        shape = zoo_common.input_shape_flag(record, zoo_common.CPU_SIZES)
        for precision in ("fp32", "fp16"):
            target = ["--emit", "cuda", "-o", os.devnull] if args.no_nvrtc else \
                ["-o", os.path.join(work, f"{precision}.kiln")]
            status, text, seconds = run(
                [os.path.join(bin_dir, "kiln-compile"), filled, "--input-shape", shape,
                 "--precision", precision, "--gpu-arch", args.gpu_arch, "--quiet"] + target,
                args.timeout)
            # A kernel that keeps a stack frame after NVRTC's retries with a
            # residency bound (kiln-compile warns, even with --quiet) fails
            # the step: the zoo's kernels keep their values in registers.
            spill = next((line for line in text.splitlines()
                          if "kiln-compile: warning: kernel " in line), None)
            results[f"compile-{precision}"] = (
                status == 0 and spill is None,
                first_error(text) if status != 0 else (spill or "")[:300], seconds)
        if not args.no_numerics:
            results["numerics-fp32"] = numerics(args, record, filled, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results


def numerics(args, record, filled, work):
    import onnxruntime
    inputs = zoo_common.make_inputs(record, zoo_common.CPU_SIZES)
    folder = os.path.join(work, "inputs")
    os.makedirs(folder)
    model_inputs = [i.name for i in onnx.load(filled, load_external_data=False).graph.input]
    for index, name in enumerate(model_inputs):
        tensor = numpy_helper.from_array(inputs[name], name)
        with open(os.path.join(folder, f"input_{index}.pb"), "wb") as f:
            f.write(tensor.SerializeToString())
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(filled, options,
                                               providers=["CPUExecutionProvider"])
        expected = session.run(None, {name: inputs[name] for name in model_inputs})
    except Exception as error:  # the reference itself fails: the test cannot pass
        return False, f"onnxruntime: {str(error).splitlines()[0][:200]}", 0
    out = os.path.join(work, "interpreted")
    status, text, seconds = run([os.path.join(args.build_dir, "bin", "kiln-interpret"), filled,
                                 "--inputs", folder, "--output-dir", out], args.timeout)
    if status != 0:
        return False, "interpret: " + first_error(text), seconds
    worst, failure = 0.0, None
    for index, (info, reference) in enumerate(zip(session.get_outputs(), expected)):
        error, why = tensor_compare.compare(np.load(os.path.join(out, f"output_{index}.npy")),
                                            reference, zoo_common.TOLERANCE["fp32"])
        worst = max(worst, error)
        if why and not failure:
            failure = f"output {info.name}: {why}"
    return failure is None, failure or f"rel-L2 {worst:.2g}", seconds


def bundle_model(args, record, out):
    """Fills, then compiles |record| at fp32 and fp16 into out/<stem>/."""
    stem = record["file"][:-len(".onnx")]
    folder = os.path.join(out, stem)
    os.makedirs(folder, exist_ok=True)
    work = tempfile.mkdtemp(prefix="kiln-zoo-")
    lines = []
    try:
        filled = os.path.join(work, record["file"])
        status, text, _ = run([sys.executable, os.path.join(REPO_ROOT, "scripts", "fill-weights.py"),
                               os.path.join(zoo_common.ZOO_DIR, record["file"]), filled,
                               "--external"], args.timeout)
        if status != 0:
            return [f"{stem}: fill-weights failed: {first_error(text)}"]
        with open(os.path.join(folder, "fill.txt"), "w") as f:
            f.write(text)
        shape = zoo_common.input_shape_flag(record, zoo_common.GPU_SIZES)
        for precision in ("fp32", "fp16"):
            status, text, seconds = run(
                [os.path.join(args.build_dir, "bin", "kiln-compile"), filled, "--input-shape",
                 shape, "--precision", precision, "--gpu-arch", args.gpu_arch, "--ptx=false",
                 "--external-weights", "--quiet", "-o",
                 os.path.join(folder, f"{precision}.kiln")], args.timeout)
            lines.append(f"{stem} {precision}: " + (f"{seconds:.0f} s" if status == 0 else
                                                    "compile failed: " + first_error(text)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return lines


def write_bundle(args, records):
    out = os.path.abspath(args.gpu_bundle)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "bin"))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for lines in pool.map(lambda r: bundle_model(args, r, out), records):
            print("\n".join(lines), flush=True)
    shutil.copy(os.path.join(args.build_dir, "bin", "kiln-run"), os.path.join(out, "bin"))
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.copy(os.path.join(here, "zoo-run.py"), os.path.join(out, "run.py"))
    for module in ("zoo_common.py", "tensor_compare.py", "bundle_files.py"):
        shutil.copy(os.path.join(here, module), out)
    if not bundle_files.check_size(out):
        return 1
    print(f"on the GPU machine, in the repository: python3 {out}/run.py {out}")
    return 0


def main():
    args = parse_args()
    for tool in ("kiln-compile", "kiln-interpret"):
        if not os.access(os.path.join(args.build_dir, "bin", tool), os.X_OK):
            print(f"zoo-tests: no {tool} in {args.build_dir}/bin (build first)")
            return 2
    index = zoo_common.load_index()
    records = [r for r in index["models"]
               if not args.filter or re.search(args.filter, r["file"])]
    if args.gpu_bundle:
        return write_bundle(args, records)
    start = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(check_model, args, r): r for r in records}
        for future in concurrent.futures.as_completed(futures):
            record = futures[future]
            for step, outcome in future.result().items():
                results[f"{record['file']}:{step}"] = outcome
            print(f"  {record['file']}: " + ", ".join(
                f"{step} {'ok' if ok else 'FAIL'} {seconds:.0f}s"
                for step, (ok, _, seconds) in future.result().items()), flush=True)

    if args.update_list:
        with open(args.list, "w") as f:
            f.write("# Zoo tests (scripts/zoo-tests.py) that fail today: FILE:STEP error.\n"
                    "# Written by --update-list. Each line is a bug to fix, not a pass.\n")
            for test in sorted(results):
                ok, detail, _ = results[test]
                if not ok:
                    f.write(f"{test} {detail}\n")
    listed = expected_failures.read(args.list)
    statuses = []
    for test in sorted(results):
        ok, detail, seconds = results[test]
        status = expected_failures.status(not ok, test in listed)
        statuses.append(status)
        if status == "FIXED":
            print(f"FIXED {test}: listed as failing but passes; take it off "
                  f"{os.path.relpath(args.list, REPO_ROOT)} (--update-list)")
        elif status != "pass":
            print(f"{status} {test}: {detail}")
    passed, failed, skipped = expected_failures.tally(statuses)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({test: dict(ok=ok, detail=detail, seconds=round(seconds, 2))
                       for test, (ok, detail, seconds) in sorted(results.items())}, f, indent=1)
    print(f"zoo: {len(records)} files, {len(results)} tests in {time.time() - start:.0f} s; "
          f"skipped = listed in {os.path.relpath(args.list, REPO_ROOT)} (expected failures)")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
