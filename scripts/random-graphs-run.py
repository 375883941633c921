#!/usr/bin/env python3
"""GPU machine: runs the random-graph bundle of `random-graphs.py --gpu-bundle`.

Usage: python3 BUNDLE/run.py BUNDLE [--results FILE]

Each artifact holds a batch of independent random graphs of one element type
and precision. kiln-run runs it on the bundled inputs and saves every output
(--save-outputs); each graph passes when all its outputs match the CPU
evaluator's (kiln-interpret on the build machine) within its tolerance:
relative L2 error, an elementwise bound and an absolute floor
(tensor_compare.compare): float32 at fp32 (1e-4, 1e-3, 1e-5; the GPU
accumulates in float, the evaluator in double), float16 data or fp16 compute
(1e-2, 1e-2, 1e-3), bfloat16 (4e-2, 4e-2, 1e-2); NaN and inf only where the
reference has them. A graph whose artifact fails to load or run fails as a
whole.
Prints a line per failing graph and `N passed, M failed, K skipped` (skipped:
left out of the bundle on the build machine, or no CUDA device); writes
results.json.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle_files  # noqa: E402
import tensor_compare  # noqa: E402


def tolerance(dtype, precision):
    """(relative L2, elementwise factor, absolute) for tensor_compare.compare."""
    if dtype == "bf16" or precision == "bf16":
        return 4e-2, 4e-2, 1e-2
    if dtype == "f16" or precision == "fp16":
        return 1e-2, 1e-2, 1e-3
    return 1e-4, 1e-3, 1e-5


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("--results")
    args = parser.parse_args()
    bundle = os.path.abspath(args.bundle)
    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    kiln_run = os.path.join(bundle, "bin", "kiln-run")
    passed = failed = 0
    skipped = len(manifest["left_out"])
    results = [dict(seed=e["seed"], status="skipped", detail=e["reason"])
               for e in manifest["left_out"]]
    start = time.time()
    for batch in manifest["batches"]:
        folder = os.path.join(bundle, batch["dir"])
        saved = os.path.join(folder, "actual")
        shutil.rmtree(saved, ignore_errors=True)
        os.makedirs(saved)
        run = subprocess.run([kiln_run, os.path.join(folder, "model.kiln"), "--inputs",
                              os.path.join(folder, "inputs"), "--save-outputs", saved],
                             capture_output=True, text=True)
        text = (run.stdout + run.stderr).strip()
        if run.returncode == 3:
            print(f"no CUDA device: {text.splitlines()[-1] if text else ''}")
            skipped += sum(len(g) for g in [batch["graphs"]])
            continue
        rtol = tolerance(batch["dtype"], batch["precision"])
        index = 0
        for graph in batch["graphs"]:
            failure, worst = None, 0.0
            if run.returncode != 0:
                failure = "kiln-run: " + " | ".join(text.splitlines()[-2:])[-300:]
            for name in graph["outputs"]:
                expected = np.load(os.path.join(folder, "expected", f"output_{index}.npy"))
                index += 1
                if failure:
                    continue
                path = os.path.join(saved, name + ".npy")
                if not os.path.exists(path):
                    failure = f"output {name} not saved"
                    continue
                error, why = tensor_compare.compare(np.load(path), expected, *rtol)
                worst = max(worst, error)
                if why:
                    failure = f"output {name}: {why}"
            status = "pass" if failure is None else "FAIL"
            passed += failure is None
            failed += failure is not None
            if failure:
                print(f"FAIL seed {graph['seed']} ({batch['dtype']} at {batch['precision']}: "
                      f"{' '.join(graph['nodes'])}): {failure}", flush=True)
            results.append(dict(seed=graph["seed"], dtype=batch["dtype"],
                                precision=batch["precision"], status=status,
                                rel_l2=worst, detail=failure))
        shutil.rmtree(saved, ignore_errors=True)
    machine = bundle_files.gpu_machine()
    summary = dict(machine=machine, host=platform.node(),
                   date=time.strftime("%Y-%m-%d %H:%M:%S"), seconds=time.time() - start,
                   passed=passed, failed=failed, skipped=skipped,
                   results=sorted(results, key=lambda r: r["seed"]))
    with open(args.results or os.path.join(bundle, "results.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"random graphs on the GPU: {len(results)} graphs in {time.time() - start:.0f} s")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
