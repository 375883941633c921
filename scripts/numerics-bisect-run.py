#!/usr/bin/env python3
"""GPU machine: the numerics bisect of issue 13 on ResNet-50 fp16.

Usage: python3 BUNDLE/run.py BUNDLE --models-dir test/models --out DIR
                             [--attempts 300] [--parts sessions,dump-private,dump-plan]

For the artifact of scripts/numerics-bisect-bundle.sh:
  0. runs the runtime's GPU tests of debug mode and the step callback
     (KilnRuntimeGPUTests --gtest_filter=*StepCallback*:*DebugMode*:*KeepStepOutputs*);
  1. fills the weights (scripts/fill-weights.py --external; sha256 checked
     against the build machine's), draws the inputs real-models-run.py
     draws and computes onnxruntime's reference on the CPU;
  2. repeatability: kiln-run --sessions 5 with the default conv candidates
     (5 fresh sessions, bit-identical, each checked against onnxruntime at
     rel-L2 5e-3) and its --bench time, against the legacy path's;
  3. the dump of the race (issue 13's fault, put back with
     KILN_CONV_GRAPH_FENCE=0 on the graph path): kiln-run --dump-steps
     --dump-after-run N --dump-rows worst runs a session whose activations
     keep their own memory, as a normal run (CUDA graph, streams; a
     debug-mode dump synchronises after each step, which hides the race),
     up to N times, and dumps the first run whose logits miss onnxruntime
     (rel-L2 2e-3; a good fp16 run is 3.4e-4), one image: the worst one;
     then the same with --dump-plan-memory (the memory plan's reuse kept:
     outputs a later step overwrites are not dumped);
  4. writes each dump as DIR/dump-private.tar.gz and DIR/dump-plan.tar.gz
     split into parts of 15 MiB (...tar.gz.part-aa, ...), DIR/summary.json
     and each command's log.  --parts picks the steps (default: all).
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
    parser.add_argument("--attempts", type=int, default=300)
    parser.add_argument("--parts", default="sessions,dump-private,dump-plan",
                        help="which of sessions, dump-private, dump-plan to run")
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
        result = subprocess.run([tests, "--gtest_filter=*StepCallback*:*DebugMode*:*KeepStepOutputs*"],
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

    def run(label, extra, env_path, limit="5e-3", env_extra=None):
        env = dict(os.environ)
        if env_path:
            env["KILN_CONV_PATH"] = env_path
        env.update(env_extra or {})
        command = [kiln_run, artifact, "--inputs", os.path.join(data, "inputs"),
                   "--expect", os.path.join(data, "expected"),
                   "--rel-l2", limit] + extra
        start = time.time()
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        text = result.stdout + result.stderr
        settings = " ".join(f"{k}={v}" for k, v in (env_extra or {}).items())
        with open(os.path.join(out, label + ".log"), "w") as f:
            f.write(f"$ {settings} KILN_CONV_PATH={env_path or 'auto'} "
                    f"{' '.join(command)}\nexit {result.returncode}\n{text}")
        errors = re.findall(r", rel-L2 ([0-9.e+-]+|nan|inf)", text)
        record = dict(label=label, conv_path=env_path or "auto", env=env_extra or {},
                      exit=result.returncode, seconds=round(time.time() - start, 1),
                      rel_l2=[float(e) for e in errors],
                      lines=[l for l in text.splitlines()
                             if l.startswith(("repeatability", "bench:", "dump"))],
                      tail=text.strip().splitlines()[-4:])
        summary["runs"].append(record)
        log(f"{label}: exit {result.returncode}, rel-L2 {errors[:6]}, "
            f"{' | '.join(record['lines'])[:400]}")
        return record

    # 2. Repeatability of the default path (5 fresh sessions) and its time
    # against the legacy-only path's, in the same process order.
    if "sessions" in args.parts:
        run("sessions-auto", ["--sessions", "5", "--bench", "300"], None)
        run("legacy", ["--bench", "300"], "legacy")
        run("auto-again", ["--bench", "300"], None)

    # 3. Dumps of runs with the race put back, read after the run: with
    # every activation in memory of its own (keep_step_outputs), and with
    # the memory plan's reuse (--dump-plan-memory: only outputs that no
    # later step overwrites survive the run).
    outputs = os.path.join(data, "outputs")
    for part, extra in (("dump-private", []), ("dump-plan", ["--dump-plan-memory"])):
        if part not in args.parts:
            continue
        dump = os.path.join(out, part)
        shutil.rmtree(dump, ignore_errors=True)
        record = run(part + "-unfenced",
                     ["--dump-steps", dump, "--dump-after-run", str(args.attempts),
                      "--dump-rows", "worst", "--save-outputs", outputs] + extra,
                     "graph", limit="2e-3", env_extra={"KILN_CONV_GRAPH_FENCE": "0"})
        saved = os.path.join(outputs, output_name + ".npy")
        if os.path.exists(saved):
            errors = per_image_rel_l2(np.load(saved), expected[0])
            record["per_image_rel_l2"] = [float(e) for e in errors]
            record["bad_images"] = [i for i, e in enumerate(errors) if e > 1e-2]
            log(f"{part}: images above 1e-2: {record['bad_images']}")
        # 4. Pack the dump: DIR/PART.tar.gz.part-aa, -ab, ...
        archive = os.path.join(out, part + ".tar.gz")
        if os.path.isdir(dump):
            with tarfile.open(archive, "w:gz") as tar:
                tar.add(dump, arcname="dump")
            shutil.rmtree(dump)
            with open(archive, "rb") as f:
                index = 0
                while chunk := f.read(PART_BYTES):
                    with open(f"{archive}.part-{chr(97 + index // 26)}"
                              f"{chr(97 + index % 26)}", "wb") as piece:
                        piece.write(chunk)
                    index += 1
            record["dump_bytes"] = os.path.getsize(archive)
            record["dump_parts"] = index
            os.remove(archive)
            log(f"{part}: {index} parts, {record['dump_bytes'] / 1048576:.1f} MiB "
                f"compressed; compare here with scripts/numerics-bisect-compare.sh "
                f"{args.out} {part}")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
