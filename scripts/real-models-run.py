#!/usr/bin/env python3
"""GPU machine: runs the real-model bundle of scripts/real-models-bundle.sh.

Usage: python3 BUNDLE/run.py BUNDLE --models-dir test/models [--kiln-run PATH]
                             [--bench N] [--sessions N] [--results FILE]

For each model in the bundle:
  1. fills the graph-only file's weights with scripts/fill-weights.py
     --external (the same bytes as on the build machine; the artifacts check
     them by hash at load) next to the artifacts;
  2. draws inputs (seeded) for each artifact's shape (PRECISION-bsN.kiln,
     or PRECISION-bsN-seqL.kiln for a sequence length other than 128):
     images in [-1, 1) for ResNet-50; token ids for BERT and GPT-2, and for
     BERT an attention mask with real padding (row b keeps
     L - 16*(b+1)%(L-16) tokens, so every row but none entirely is padded);
  3. computes the reference with onnxruntime (CPU) on the filled model;
  4. runs every artifact with kiln-run --expect --rel-l2 (fp32: 1e-4, fp16:
     5e-3, bf16: 2e-2), --bench and --sessions (N fresh sessions, 2 by
     default, must give bit-identical outputs: a check of its own,
     NAME/repeatable);
  5. checks that a modified weight file is rejected at load with a clear
     error.
Prints a line per check and `N passed, M failed`; writes JSON results.
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

TOLERANCE = {"fp32": 1e-4, "tf32": 1e-3, "fp16": 5e-3, "bf16": 2e-2}


def make_inputs(model, batch, seq=128, seed=7):
    rng = np.random.RandomState(seed + batch)
    if model.startswith("resnet50"):
        return {"input": rng.uniform(-1, 1, (batch, 3, 224, 224)).astype(np.float32)}
    vocab = 30522 if model.startswith("bert") else 50257
    ids = rng.randint(0, vocab, (batch, seq)).astype(np.int64)
    if model.startswith("gpt2"):
        return {"input_ids": ids}
    mask = np.ones((batch, seq), dtype=np.int64)
    for b in range(batch):
        keep = seq - (16 * (b + 1)) % (seq - 16)
        mask[b, keep:] = 0
    return {"input_ids": ids, "attention_mask": mask}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("--models-dir", default="test/models")
    parser.add_argument("--kiln-run", default=None)
    parser.add_argument("--fill", default="scripts/fill-weights.py")
    parser.add_argument("--bench", type=int, default=50)
    parser.add_argument("--sessions", type=int, default=2,
                        help="fresh sessions whose outputs must be "
                             "bit-identical (0: no check)")
    parser.add_argument("--results", default=None)
    parser.add_argument("--profile-dir", default=None,
                        help="also write a kiln-run --profile trace per artifact")
    args = parser.parse_args()
    import onnxruntime as ort

    bundle = os.path.abspath(args.bundle)
    kiln_run = args.kiln_run or os.path.join(bundle, "bin", "kiln-run")
    compiled = {}
    compile_json = os.path.join(bundle, "compile.json")
    if os.path.exists(compile_json):
        for record in json.load(open(compile_json)):
            compiled[(record["model"], record["artifact"])] = record
    results, passed, failed = [], 0, 0

    def note(name, ok, detail, **extra):
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(f"{name:44s} {'pass' if ok else 'FAIL'}  {detail}", flush=True)
        results.append(dict(name=name, status="pass" if ok else "FAIL",
                            detail=detail, **extra))

    models = sorted(d for d in os.listdir(bundle)
                    if os.path.isdir(os.path.join(bundle, d)) and
                    any(f.endswith(".kiln") for f in os.listdir(os.path.join(bundle, d))))
    for model in models:
        folder = os.path.join(bundle, model)
        filled = os.path.join(folder, model + ".onnx")
        start = time.time()
        fill = subprocess.run(
            [sys.executable, args.fill, os.path.join(args.models_dir, model + ".onnx"),
             filled, "--external"], capture_output=True, text=True)
        digests = re.compile(r"sha256 ([0-9a-f]{64})")
        expected_fill = digests.findall(open(os.path.join(folder, "fill.txt")).read())
        same = fill.returncode == 0 and digests.findall(fill.stdout) == expected_fill
        note(f"{model}/fill", same,
             f"{time.time() - start:.1f}s; sha256 {'match' if same else 'DIFFER'} "
             f"the build machine's" + ("" if fill.returncode == 0 else fill.stderr[-300:]))
        session = ort.InferenceSession(filled, providers=["CPUExecutionProvider"])
        artifacts = sorted(f for f in os.listdir(folder) if f.endswith(".kiln"))
        references = {}
        for artifact in artifacts:
            match = re.match(r"(\w+)-bs(\d+)(?:-seq(\d+))?\.kiln", artifact)
            precision, batch = match.group(1), int(match.group(2))
            seq = int(match.group(3) or 128)
            shape = f"bs{batch}" + (f"-seq{seq}" if seq != 128 else "")
            data = os.path.join(folder, f"data-{shape}")
            if shape not in references:
                os.makedirs(os.path.join(data, "inputs"), exist_ok=True)
                os.makedirs(os.path.join(data, "expected"), exist_ok=True)
                inputs = make_inputs(model, batch, seq)
                names = [i.name for i in session.get_inputs()]
                feed = {name: inputs[name] for name in names}
                for name, value in feed.items():
                    np.save(os.path.join(data, "inputs", name + ".npy"), value)
                start = time.time()
                outputs = session.run(None, feed)
                ort_ms = (time.time() - start) * 1e3
                for info, value in zip(session.get_outputs(), outputs):
                    np.save(os.path.join(data, "expected", info.name + ".npy"), value)
                references[shape] = ort_ms
            name = f"{model}/{precision}-{shape}"
            command = [kiln_run, os.path.join(folder, artifact),
                       "--inputs", os.path.join(data, "inputs"),
                       "--expect", os.path.join(data, "expected"),
                       "--rel-l2", str(TOLERANCE[precision]),
                       "--bench", str(args.bench)]
            if args.sessions > 0:
                command += ["--sessions", str(args.sessions)]
            run = subprocess.run(command, capture_output=True, text=True)
            text = run.stdout + run.stderr
            repeatability = [line for line in text.splitlines()
                             if line.startswith("repeatability:")]
            # Exit 1 for a repeatability mismatch alone leaves the accuracy
            # check passed: each is reported on its own.
            accurate = run.returncode == 0 or (
                run.returncode == 1 and "[MISMATCH" not in text and
                any("MISMATCH" in line for line in repeatability))
            errors = [float(x) for x in re.findall(r", rel-L2 ([0-9.e+-]+|nan|inf)", text)]
            bench = re.search(r"median ([0-9.]+) ms, p90 ([0-9.]+) ms", text)
            record = compiled.get((model, f"{precision}-{shape}"), {})
            detail = (f"rel-L2 {max(errors) if errors else float('nan'):.3g} "
                      f"(tol {TOLERANCE[precision]:g})"
                      + (f", median {bench.group(1)} ms" if bench else "")
                      + (f", compile {record['compile_s']}s, artifact "
                         f"{record['artifact_bytes']} B, arena "
                         f"{record['activation_arena_bytes']} B" if record else ""))
            if run.returncode != 0:
                detail += " | " + " ".join(text.strip().splitlines()[-3:])[-400:]
            if args.profile_dir:
                os.makedirs(args.profile_dir, exist_ok=True)
                subprocess.run(
                    [kiln_run, os.path.join(folder, artifact), "--inputs",
                     os.path.join(data, "inputs"), "--profile",
                     os.path.join(args.profile_dir,
                                  f"{model}-{precision}-{shape}.json")],
                    capture_output=True)
            note(name, accurate, detail, rel_l2=errors,
                 median_ms=float(bench.group(1)) if bench else None,
                 p90_ms=float(bench.group(2)) if bench else None,
                 onnxruntime_cpu_ms=references[shape], compile=record)
            if args.sessions > 0:
                note(f"{name}/repeatable",
                     any("bit-identical" in line for line in repeatability),
                     repeatability[-1][len("repeatability: "):][:400]
                     if repeatability else "no repeatability line (the run "
                     "failed first)")

        # A weight file that differs from the one compiled against.
        artifact = os.path.join(folder, artifacts[0])
        corrupt = os.path.join(folder, "corrupt")
        os.makedirs(corrupt, exist_ok=True)
        shutil.copy(artifact, corrupt)
        data_file = filled + ".data"
        shutil.copy(data_file, corrupt)
        # One byte per MiB: every weight of 1 MiB or more changes.
        with open(os.path.join(corrupt, os.path.basename(data_file)), "r+b") as f:
            size = os.path.getsize(data_file)
            for offset in range(4096, size, 1 << 20):
                f.seek(offset)
                byte = f.read(1)
                f.seek(offset)
                f.write(bytes([byte[0] ^ 0x40]))
        shape = re.match(r"\w+-(bs\d+(?:-seq\d+)?)\.kiln", artifacts[0]).group(1)
        run = subprocess.run(
            [kiln_run, os.path.join(corrupt, artifacts[0]), "--inputs",
             os.path.join(folder, f"data-{shape}", "inputs")],
            capture_output=True, text=True)
        message = (run.stdout + run.stderr).strip().splitlines()
        ok = run.returncode != 0 and "does not match the artifact" in run.stderr
        note(f"{model}/mismatched-weights", ok, message[-1][:300] if message else "")
        shutil.rmtree(corrupt)
        os.remove(data_file)

    print(f"{passed} passed, {failed} failed")
    machine = ""
    if shutil.which("nvidia-smi"):
        machine = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                                  "--format=csv,noheader"], capture_output=True,
                                 text=True).stdout.strip()
    summary = dict(machine=machine, host=platform.node(),
                   onnxruntime=ort.__version__, numpy=np.__version__,
                   date=time.strftime("%Y-%m-%d %H:%M:%S"), passed=passed,
                   failed=failed, results=results)
    with open(args.results or os.path.join(bundle, "results.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
