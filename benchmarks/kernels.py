#!/usr/bin/env python3
"""Kernel microbenchmarks at the performance issue's sizes.

Build machine (the repo's .venv; kiln-compile built):
    .venv/bin/python benchmarks/kernels.py make OUTDIR
GPU machine (numpy, torch):
    python3 benchmarks/kernels.py run OUTDIR [--out FILE]

`make` writes one fp16 ONNX model per case and compiles it with kiln:
  layernorm  y = LayerNorm(x + r) over [16384, 4096] (scale, bias [4096])
  softmax    y = Softmax(x, axis=-1) over [4096, 4096]
  pointwise  y = Sigmoid(x * 1.5 + 0.25) * x over 2^28 elements ([16384, 16384])
  gemm_*     y = x @ w at the BERT-base bs8 seq128 and GPT-2 bs1 seq1024
             shapes: [1024, 768] @ [768, 768 | 2304 | 3072], [1024, 3072] @ [3072, 768]
`run` draws the inputs on the GPU machine (they are too large to carry),
times each artifact with `kiln-run --bench` (CUDA events, median) and
`--profile` (the per-kernel table), and measures the ceilings in the same
process: device-to-device copy bandwidth (torch clone of 1 GiB) and cuBLAS
through torch.matmul at each GEMM shape (20 replayed from a CUDA graph).
Prints each case's achieved bandwidth or TFLOP/s and its fraction of the
ceiling, and the end-to-end figure of the `--bench` replay (which adds a
graph launch); writes JSON with the machine and versions.

Which time is which (benchmarks/profile_log.py reads the profile):
  kiln_kernel_ms       the kernels' GPU time from CUPTI (the profile's
                       "kernel time (cupti)"); None when kiln-run had no
                       CUPTI (kiln_profile_source says why)
  kiln_step_replay_ms  each step's graph replayed alone between two events,
                       behind a held stream: the kernel plus the graph
                       launch's device-side overhead (a few microseconds)
  gbs, tflops          from kiln_kernel_ms (from the replay without CUPTI;
                       *_from names which); fraction_of_copy divides gbs by
                       the 1 GiB copy's bandwidth
  fraction_of_same_size_copy, fraction_of_cublas
                       replay against replay: the copy of the same bytes and
                       cuBLAS are timed the way kiln-run replays a step
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

from profile_log import parse_profile, step_ms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEMMS = {"gemm_qkv": (1024, 768, 2304), "gemm_proj": (1024, 768, 768),
         "gemm_fc1": (1024, 768, 3072), "gemm_fc2": (1024, 3072, 768)}


def cases():
    """name -> (inputs {name: shape}, bytes moved, flops)."""
    table = {
        "layernorm": ({"x": [16384, 4096], "r": [16384, 4096]},
                      3 * 16384 * 4096 * 2, 0),
        "softmax": ({"x": [4096, 4096]}, 2 * 4096 * 4096 * 2, 0),
        "pointwise": ({"x": [16384, 16384]}, 2 * 2**28 * 2, 0),
    }
    for name, (m, k, n) in GEMMS.items():
        table[name] = ({"x": [m, k]}, 2 * (m * k + k * n + m * n), 2 * m * n * k)
    return table


def make(out):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import shutil
    os.makedirs(os.path.join(out, "bin"), exist_ok=True)
    shutil.copy(os.path.join(ROOT, "build", "bin", "kiln-run"),
                os.path.join(out, "bin"))
    half = TensorProto.FLOAT16
    rng = np.random.RandomState(0)

    def f16(name, *shape):
        return numpy_helper.from_array(
            (rng.uniform(-1, 1, shape) / np.sqrt(shape[0])).astype(np.float16), name)

    def scalar(name, value):
        return numpy_helper.from_array(np.array(value, dtype=np.float16), name)

    for name, (inputs, _, _) in cases().items():
        n = helper.make_node
        if name == "layernorm":
            nodes = [n("Add", ["x", "r"], ["s"]),
                     n("LayerNormalization", ["s", "scale", "bias"], ["y"], axis=-1)]
            inits = [f16("scale", 4096), f16("bias", 4096)]
        elif name == "softmax":
            nodes, inits = [n("Softmax", ["x"], ["y"], axis=-1)], []
        elif name == "pointwise":
            nodes = [n("Mul", ["x", "a"], ["t0"]), n("Add", ["t0", "b"], ["t1"]),
                     n("Sigmoid", ["t1"], ["t2"]), n("Mul", ["t2", "x"], ["y"])]
            inits = [scalar("a", 1.5), scalar("b", 0.25)]
        else:
            m, k, width = GEMMS[name]
            nodes, inits = [n("MatMul", ["x", "w"], ["y"])], [f16("w", k, width)]
        graph = helper.make_graph(
            nodes, name,
            [helper.make_tensor_value_info(i, half, s) for i, s in inputs.items()],
            [helper.make_tensor_value_info("y", half, None)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        path = os.path.join(out, name + ".onnx")
        onnx.save(model, path)
        log = subprocess.run(
            [os.path.join(ROOT, "build", "bin", "kiln-compile"), path,
             "-o", os.path.join(out, name + ".kiln")],
            capture_output=True, text=True)
        if log.returncode:
            sys.exit(f"{name}: {log.stderr}")
        os.remove(path)
        print(f"{name}: {log.stderr.strip().splitlines()[-1]}")


def median_ms(function, runs=50, warmup=5):
    import torch
    for _ in range(warmup):
        function()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        function()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times))


def single_replay_ms(function, runs=50):
    """One call of |function| replayed from a CUDA graph of its own, queued
    behind a sleeping stream so the events time the GPU work alone: the way
    `kiln-run --profile` replays each step (its replay(us) column; median of
    |runs|)."""
    import torch
    function()  # libraries initialise outside the capture
    graph = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    with torch.cuda.graph(graph):
        function()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(100000)  # ~50 us of GPU time: the launches queue
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times))


def run(out, result_path):
    import torch
    kiln_run = os.path.join(out, "bin", "kiln-run")
    if not os.path.exists(kiln_run):
        kiln_run = os.path.join(ROOT, "build", "bin", "kiln-run")
    big = torch.empty(1 << 29, dtype=torch.float16, device="cuda")  # 1 GiB
    copy_ms = median_ms(lambda: big.clone())
    copy_gbs = 2 * big.numel() * 2 / (copy_ms * 1e-3) / 1e9
    del big
    torch.cuda.empty_cache()
    print(f"copy ceiling: {copy_gbs:.0f} GB/s (torch clone of 1 GiB)")
    rows = []
    rng = np.random.RandomState(1)
    variants = sorted(f[:-5] for f in os.listdir(out)
                      if f.startswith("softmax-") and f.endswith(".kiln"))
    table = cases()
    for variant in variants:  # Tuning experiments: other tilings, same case.
        table[variant] = table["softmax"]
    for name, (inputs, moved, flops) in table.items():
        folder = os.path.join(out, name + "-inputs")
        os.makedirs(folder, exist_ok=True)
        for input_name, shape in inputs.items():
            np.save(os.path.join(folder, input_name + ".npy"),
                    rng.uniform(-1, 1, shape).astype(np.float16))
        command = [kiln_run, os.path.join(out, name + ".kiln"), "--inputs",
                   folder, "--bench", "50", "--profile",
                   os.path.join(out, name + "-profile.json")]
        log = subprocess.run(command, capture_output=True, text=True)
        text = log.stdout + log.stderr
        match = re.search(r"median ([0-9.]+) ms", text)
        row = dict(case=name, bytes=moved, flops=flops,
                   kiln_ms=float(match.group(1)) if match else None,
                   profile=[l for l in text.splitlines() if l.startswith("  ")][:6])
        if log.returncode or not match:
            row["error"] = text[-600:]
        elif flops:
            # Kernel against kernel: kiln's GEMM step from its profile table,
            # cuBLAS as one of 20 matmuls replayed from a CUDA graph (a lone
            # a @ b between events would time Python's launch, not the GEMM).
            m, k, n = GEMMS[name]
            a = torch.randn(m, k, dtype=torch.float16, device="cuda")
            b = torch.randn(k, n, dtype=torch.float16, device="cuda")
            a @ b  # cuBLAS initialises its handle and workspace outside capture
            graph = torch.cuda.CUDAGraph()
            torch.cuda.synchronize()
            with torch.cuda.graph(graph):
                for _ in range(20):
                    a @ b
            # Back to back (20 in one graph: throughput, tails overlapped)
            # and alone as kiln's step is timed (the ratio's reference).
            row["cublas_back_to_back_ms"] = median_ms(graph.replay) / 20
            row["cublas_ms"] = single_replay_ms(lambda: a @ b)
            # kiln's GEMM step: CUPTI's kernel time for the rate, its replay
            # (timed as cuBLAS is) for the ratio.
            profile = parse_profile(text) or {}
            step = step_ms(text, "gemm")
            row["kiln_profile_source"] = profile.get("source")
            row["kiln_gemm_ms"], row["kiln_gemm_replay_ms"] = step or (None, None)
            row["tflops_from"] = ("cupti kernel time" if profile.get("kernel_ms")
                                  is not None else "step replay")
            if row["kiln_gemm_ms"]:
                row["tflops"] = flops / (row["kiln_gemm_ms"] * 1e-3) / 1e12
                row["fraction_of_cublas"] = (row["cublas_ms"] /
                                             row["kiln_gemm_replay_ms"])
        else:
            # The kernels' GPU time from the profile (CUPTI; without it the
            # steps' event-timed replays), and the end-to-end replay of the
            # whole artifact (bench: one graph launch, a few microseconds,
            # counts too).
            profile = parse_profile(text) or {}
            row["kiln_profile_source"] = profile.get("source")
            row["kiln_kernel_ms"] = profile.get("kernel_ms")
            row["kiln_step_replay_ms"] = profile.get("replay_ms")
            row["gbs_end_to_end"] = moved / (row["kiln_ms"] * 1e-3) / 1e9
            row["fraction_of_copy_end_to_end"] = row["gbs_end_to_end"] / copy_gbs
            timed_ms = row["kiln_kernel_ms"] or row["kiln_step_replay_ms"]
            if timed_ms:
                row["gbs"] = moved / (timed_ms * 1e-3) / 1e9
                row["gbs_from"] = ("cupti kernel time" if row["kiln_kernel_ms"]
                                   else "step replays")
                row["fraction_of_copy"] = row["gbs"] / copy_gbs
                # A copy of the same bytes, replayed as kiln-run replays a
                # step: what a kernel of this size can reach (launch and
                # tail included), against kiln's replay.
                src = torch.empty(moved // 4, dtype=torch.float16, device="cuda")
                same_ms = single_replay_ms(lambda: src.clone())
                row["copy_same_size_gbs"] = moved / (same_ms * 1e-3) / 1e9
                row["gbs_replay"] = (
                    moved / (row["kiln_step_replay_ms"] * 1e-3) / 1e9)
                row["fraction_of_same_size_copy"] = (
                    row["gbs_replay"] / row["copy_same_size_gbs"])
                del src
        rows.append(row)
        print(name, {k: (round(v, 4) if isinstance(v, float) else v)
                     for k, v in row.items() if k not in ("profile", "error")},
              row.get("error", ""), flush=True)
        shutil_rm(folder)
    machine = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader"], capture_output=True,
                             text=True).stdout.strip()
    result = dict(command=" ".join(sys.argv), date=time.strftime("%Y-%m-%d %H:%M:%S"),
                  machine=machine, torch=torch.__version__, cuda=torch.version.cuda,
                  copy_gbs=copy_gbs, results=rows)
    path = result_path or os.path.join(
        ROOT, "benchmarks", "results", time.strftime("%Y-%m-%d") + "-h200-kernels.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {path}")


def shutil_rm(folder):
    import shutil
    shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["make", "run"])
    parser.add_argument("outdir")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.action == "make":
        make(args.outdir)
    else:
        run(args.outdir, args.out)


if __name__ == "__main__":
    main()
