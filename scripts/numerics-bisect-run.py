#!/usr/bin/env python3
"""GPU machine: the numerics bisect of issue 13 on ResNet-50 fp16.

Usage: python3 BUNDLE/run.py BUNDLE --models-dir test/models --out DIR
                             [--attempts 4] [--rows 0]

For the artifact of scripts/numerics-bisect-bundle.sh:
  0. runs the runtime's GPU tests of debug mode and the step callback
     (KilnRuntimeGPUTests --gtest_filter=*StepCallback*:*DebugMode*);
  1. fills the weights (scripts/fill-weights.py --external; sha256 checked
     against the build machine's), draws the inputs real-models-run.py
     draws and computes onnxruntime's reference on the CPU;
  2. repeatability: kiln-run --sessions 3 with the default conv candidates
     and with KILN_CONV_PATH=graph (the suspect path), each also checked
     against onnxruntime (rel-L2 1e-2);
  3. the dump: KILN_CONV_PATH=graph kiln-run --dump-steps --dump-rows ROWS
     --save-outputs, up to --attempts fresh sessions, until the run's own
     output misses onnxruntime in one of the dumped rows (per image rel-L2
     above 1e-2); when the bad images are other rows, the next attempt
     dumps the worst one. One image of ResNet-50 is about 30 MB of fp16
     activations (the CPU then evaluates batch 1). The last attempt's dump
     is kept;
  4. writes DIR/dump.tar.gz split into parts of 15 MiB
     (DIR/dump.tar.gz.part-aa, ...), DIR/summary.json and each command's log.
On the build machine: scripts/numerics-bisect-compare.sh DIR.
"""
import argparse
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

import numpy as np

MODEL = "resnet50-torchscript"
PART_BYTES = 15 << 20


def load_real_models_run(bundle):
    spec = importlib.util.spec_from_file_location(
        "real_models_run", os.path.join(bundle, "real_models_run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def per_image_rel_l2(actual, expected):
    a = actual.reshape(actual.shape[0], -1).astype(np.float64)
    e = expected.reshape(expected.shape[0], -1).astype(np.float64)
    return np.sqrt(((a - e) ** 2).sum(1) / np.maximum((e ** 2).sum(1), 1e-300))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("--models-dir", default="test/models")
    parser.add_argument("--fill", default="scripts/fill-weights.py")
    parser.add_argument("--out", required=True)
    parser.add_argument("--attempts", type=int, default=4)
    parser.add_argument("--rows", default="0")
    args = parser.parse_args()
    import onnxruntime as ort

    bundle = os.path.abspath(args.bundle)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    kiln_run = os.path.join(bundle, "bin", "kiln-run")
    folder = os.path.join(bundle, MODEL)
    artifact = sorted(glob.glob(os.path.join(folder, "fp16-bs*.kiln")))[0]
    batch = int(re.search(r"bs(\d+)", artifact).group(1))
    summary = dict(artifact=os.path.basename(artifact), batch=batch, runs=[])

    def log(text):
        print(text, flush=True)

    # 0. The step callback on the GPU.
    tests = os.path.join(bundle, "bin", "KilnRuntimeGPUTests")
    if os.path.exists(tests):
        result = subprocess.run([tests, "--gtest_filter=*StepCallback*:*DebugMode*"],
                                capture_output=True, text=True)
        with open(os.path.join(out, "runtime-gpu-tests.log"), "w") as f:
            f.write(result.stdout + result.stderr)
        summary["runtime_gpu_tests"] = dict(
            exit=result.returncode,
            lines=[l for l in result.stdout.splitlines()
                   if l.startswith(("[  PASSED", "[  FAILED", "[  SKIPPED"))])
        log(f"runtime GPU tests: exit {result.returncode} "
            f"{summary['runtime_gpu_tests']['lines']}")

    # 1. Weights, inputs, reference.
    filled = os.path.join(folder, MODEL + ".onnx")
    fill = subprocess.run([sys.executable, args.fill,
                           os.path.join(args.models_dir, MODEL + ".onnx"),
                           filled, "--external"], capture_output=True, text=True)
    digests = re.compile(r"sha256 ([0-9a-f]{64})")
    same = fill.returncode == 0 and digests.findall(fill.stdout) == digests.findall(
        open(os.path.join(folder, "fill.txt")).read())
    summary["weights_match"] = same
    log(f"weights: sha256 {'match' if same else 'DIFFER'}")
    real = load_real_models_run(bundle)
    inputs = real.make_inputs(MODEL, batch)
    data = os.path.join(folder, "data")
    for sub in ("inputs", "expected", "outputs"):
        os.makedirs(os.path.join(data, sub), exist_ok=True)
    for name, value in inputs.items():
        np.save(os.path.join(data, "inputs", name + ".npy"), value)
    session = ort.InferenceSession(filled, providers=["CPUExecutionProvider"])
    expected = session.run(None, inputs)
    output_name = session.get_outputs()[0].name
    for info, value in zip(session.get_outputs(), expected):
        np.save(os.path.join(data, "expected", info.name + ".npy"), value)
    np.save(os.path.join(out, "onnxruntime-output.npy"), expected[0])

    def run(label, extra, env_path):
        env = dict(os.environ)
        if env_path:
            env["KILN_CONV_PATH"] = env_path
        command = [kiln_run, artifact, "--inputs", os.path.join(data, "inputs"),
                   "--expect", os.path.join(data, "expected"),
                   "--rel-l2", "1e-2"] + extra
        start = time.time()
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        text = result.stdout + result.stderr
        with open(os.path.join(out, label + ".log"), "w") as f:
            f.write(f"$ KILN_CONV_PATH={env_path or 'auto'} {' '.join(command)}\n"
                    f"exit {result.returncode}\n{text}")
        errors = re.findall(r"rel-L2 ([0-9.e+-]+|nan|inf)", text)
        record = dict(label=label, conv_path=env_path or "auto",
                      exit=result.returncode, seconds=round(time.time() - start, 1),
                      rel_l2=[float(e) for e in errors],
                      repeatability=[l for l in text.splitlines()
                                     if l.startswith("repeatability")],
                      tail=text.strip().splitlines()[-4:])
        summary["runs"].append(record)
        log(f"{label}: exit {result.returncode}, rel-L2 {errors}, "
            f"{' '.join(record['repeatability'])[:300]}")
        return record

    # 2. Repeatability, both candidate sets.
    run("sessions-auto", ["--sessions", "3"], None)
    run("sessions-graph", ["--sessions", "3"], "graph")

    # 3. The dump of a failing graph-path session.
    rows = args.rows
    dump = os.path.join(out, "dump")
    for attempt in range(1, args.attempts + 1):
        shutil.rmtree(dump, ignore_errors=True)
        outputs = os.path.join(data, "outputs")
        record = run(f"dump-{attempt}", ["--dump-steps", dump, "--dump-rows", rows,
                                         "--save-outputs", outputs], "graph")
        saved = os.path.join(outputs, output_name + ".npy")
        if not os.path.exists(saved):
            record["note"] = "no output saved"
            continue
        errors = per_image_rel_l2(np.load(saved), expected[0])
        record["per_image_rel_l2"] = [float(e) for e in errors]
        dumped = [int(r) for r in rows.split(",")]
        bad = [i for i, e in enumerate(errors) if e > 1e-2]
        record["rows"] = rows
        record["bad_images"] = bad
        log(f"dump-{attempt}: rows {rows}; images above 1e-2: {bad}")
        if any(i in bad for i in dumped):
            break
        if bad:
            rows = str(int(np.argmax(errors)))
    summary["dump_rows"] = rows

    # 4. Pack the dump.
    archive = os.path.join(out, "dump.tar.gz")
    if os.path.isdir(dump):
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(dump, arcname="dump")
        shutil.rmtree(dump)
        with open(archive, "rb") as f:
            index = 0
            while chunk := f.read(PART_BYTES):
                with open(f"{archive}.part-{chr(97 + index // 26)}{chr(97 + index % 26)}",
                          "wb") as part:
                    part.write(chunk)
                index += 1
        summary["dump_bytes"] = os.path.getsize(archive)
        summary["dump_parts"] = index
        os.remove(archive)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    log(f"dump: {summary.get('dump_parts', 0)} parts, "
        f"{summary.get('dump_bytes', 0) / 1048576:.1f} MiB compressed; "
        f"compare on the build machine with scripts/numerics-bisect-compare.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
