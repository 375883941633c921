#!/usr/bin/env python3
"""GPU machine: runs the zoo bundle of `scripts/zoo-tests.py --gpu-bundle DIR`.

Usage (in the repository, for test/zoo and scripts/fill-weights.py):
  python3 DIR/run.py DIR [--zoo-dir test/zoo] [--fill scripts/fill-weights.py]
                         [--results FILE]

For each model folder of the bundle:
  1. fills the graph-only file's weights with fill-weights.py --external next
     to the artifacts; the sha256s must be the build machine's (the artifacts
     also check the bytes by hash at load);
  2. draws seeded inputs at the GPU sizes (zoo_common.make_inputs: batch 2,
     CNNs 224x224, sequences of 64, padded attention masks);
  3. computes the reference with onnxruntime on the CPU;
  4. runs fp32.kiln and fp16.kiln with kiln-run --save-outputs and checks each
     output's relative L2 error: fp32 <= 1e-5, fp16 <= 5e-3 (NaN/inf only
     where the reference has them).
Prints a line per artifact and `N passed, M failed, K skipped`; writes
results.json with each artifact's errors and timing.
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle_files  # noqa: E402
import tensor_compare  # noqa: E402
import zoo_common  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("--zoo-dir", default="test/zoo")
    parser.add_argument("--fill", default="scripts/fill-weights.py")
    parser.add_argument("--results")
    args = parser.parse_args()
    import onnxruntime as ort

    bundle = os.path.abspath(args.bundle)
    kiln_run = os.path.join(bundle, "bin", "kiln-run")
    index = zoo_common.load_index(args.zoo_dir)
    records = {r["file"][:-len(".onnx")]: r for r in index["models"]}
    passed = failed = skipped = 0
    results = []

    def note(name, status, detail, **extra):
        nonlocal passed, failed, skipped
        passed += status == "pass"
        failed += status == "FAIL"
        skipped += status == "skipped"
        print(f"{name:40s} {status:7s} {detail}", flush=True)
        results.append(dict(name=name, status=status, detail=detail, **extra))

    start_all = time.time()
    for stem in sorted(d for d in os.listdir(bundle) if d in records):
        record, folder = records[stem], os.path.join(bundle, stem)
        artifacts = sorted(f for f in os.listdir(folder) if f.endswith(".kiln"))
        filled = os.path.join(folder, record["file"])
        fill = subprocess.run([sys.executable, args.fill,
                               os.path.join(args.zoo_dir, record["file"]), filled, "--external"],
                              capture_output=True, text=True)
        digests = re.compile(r"sha256 ([0-9a-f]{64})")
        same = fill.returncode == 0 and digests.findall(fill.stdout) == \
            digests.findall(open(os.path.join(folder, "fill.txt")).read())
        if not same:
            note(f"{stem}/fill", "FAIL", "weights differ from the build machine's "
                 + fill.stderr[-200:])
            continue
        inputs = zoo_common.make_inputs(record, zoo_common.GPU_SIZES)
        data = os.path.join(folder, "inputs")
        os.makedirs(data, exist_ok=True)
        for name, value in inputs.items():
            np.save(os.path.join(data, name + ".npy"), value)
        options = ort.SessionOptions()
        session = ort.InferenceSession(filled, options, providers=["CPUExecutionProvider"])
        begin = time.time()
        expected = dict(zip([o.name for o in session.get_outputs()],
                            session.run(None, {i.name: inputs[i.name]
                                               for i in session.get_inputs()})))
        ort_ms = (time.time() - begin) * 1e3
        for precision in ("fp32", "fp16"):
            name = f"{stem}/{precision}"
            if f"{precision}.kiln" not in artifacts:
                note(name, "skipped", "not compiled on the build machine")
                continue
            saved = os.path.join(folder, f"out-{precision}")
            shutil.rmtree(saved, ignore_errors=True)
            os.makedirs(saved)
            begin = time.time()
            run = subprocess.run([kiln_run, os.path.join(folder, f"{precision}.kiln"),
                                  "--inputs", data, "--save-outputs", saved, "--bench", "20"],
                                 capture_output=True, text=True)
            text = (run.stdout + run.stderr).strip()
            if run.returncode == 3:
                note(name, "skipped", "no CUDA device")
                continue
            if run.returncode != 0:
                note(name, "FAIL", "kiln-run: " + " | ".join(text.splitlines()[-2:])[-300:])
                continue
            bench = re.search(r"median ([0-9.]+) ms", text)
            errors, failure = {}, None
            for output, reference in expected.items():
                path = os.path.join(saved, output + ".npy")
                if not os.path.exists(path):
                    failure = failure or f"output {output} not saved"
                    continue
                # Every element too, within 10 times the rel-L2 tolerance of
                # |expected| + max |expected| (tensor_compare's elementwise
                # form; kiln-run --rel-l2's bound, 10 L max |expected|, is up
                # to twice as tight): rel-L2 alone passes a few elements far
                # off.
                tolerance = zoo_common.TOLERANCE[precision]
                error, why = tensor_compare.compare(np.load(path), reference, tolerance,
                                                    elementwise=10 * tolerance)
                errors[output] = error
                if why and not failure:
                    failure = f"output {output}: {why}"
            worst = max(errors.values()) if errors else float("nan")
            detail = failure or (f"rel-L2 {worst:.3g} (tol {zoo_common.TOLERANCE[precision]:g})"
                                 + (f", median {bench.group(1)} ms" if bench else ""))
            note(name, "pass" if failure is None else "FAIL", detail, rel_l2=errors,
                 median_ms=float(bench.group(1)) if bench else None,
                 onnxruntime_cpu_ms=ort_ms, seconds=time.time() - begin)
            shutil.rmtree(saved, ignore_errors=True)
        os.remove(filled + ".data")
    machine = bundle_files.gpu_machine()
    with open(args.results or os.path.join(bundle, "results.json"), "w") as f:
        json.dump(dict(machine=machine, host=platform.node(), onnxruntime=ort.__version__,
                       date=time.strftime("%Y-%m-%d %H:%M:%S"),
                       seconds=time.time() - start_all, passed=passed, failed=failed,
                       skipped=skipped, results=results), f, indent=1)
    print(f"zoo on the GPU: {len(results)} checks in {time.time() - start_all:.0f} s")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
