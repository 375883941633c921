#!/usr/bin/env python3
"""Kernel microbenchmarks at the performance issue's sizes.

Build machine (the repo's .venv; kiln-compile built):
    .venv/bin/python benchmarks/kernels.py make OUTDIR [--cases PREFIX ...]
        [--build BUILD_DIR --variant NAME]
GPU machine (numpy, torch):
    python3 benchmarks/kernels.py run OUTDIR [--out FILE]

--cases keeps the cases whose names start with one of the prefixes
(`--cases dwconv`). --build compiles with another build's kiln-compile
(default: this checkout's build/); --variant NAME writes CASE-NAME.kiln, which
`run` times as one more row of CASE, in the same process: an A/B of two
compilers (`make OUT --cases dwconv --build /work/main/build --variant main`
beside `make OUT --cases dwconv`), or of two tilings.

`make` writes one fp16 ONNX model per case and compiles it with kiln:
  layernorm  y = LayerNorm(x + r) over [16384, 4096] (scale, bias [4096])
  layernorm_bert  the same at BERT-base bs8 seq128's [1024, 768]
  gelu_bert  y = GELU(x + bias), the exact (erf) form as BERT's export
             writes it, at BERT-base bs8 seq128's [1024, 3072] (bias [3072]):
             at the anchors' sizes a kernel is a few microseconds, where
             launch and tail count; fraction_of_same_size_copy is then the
             ceiling to read
  softmax    y = Softmax(x, axis=-1) over [4096, 4096]
  pointwise  y = Sigmoid(x * 1.5 + 0.25) * x over 2^28 elements ([16384, 16384])
  gemm_*     y = x @ w at the BERT-base bs8 seq128 and GPT-2 bs1 seq1024
             shapes: [1024, 768] @ [768, 768 | 2304 | 3072], [1024, 3072] @ [3072, 768]
  dwconv*    a depthwise conv (ONNX Conv, group = C, fp16) with bias at the
             zoo models' shapes, batch 8, its input and output NHWC (a
             Transpose on either side, which kiln folds: one channels-last
             kernel, as inside the models): ConvNeXt-T's 7x7 pad 3 of its
             four stages (dwconv7_c96 [8,56,56,96] ... dwconv7_c768
             [8,7,7,768]); MobileNet-V2's 3x3 with ReLU6 at stride 2
             (dwconv3_c96_s2, [8,112,112,96] -> [8,56,56,96]) and stride 1
             (dwconv3_c144, [8,56,56,144]); EfficientNet-B0's 5x5 stride 2
             with SiLU (dwconv5_c240_s2, [8,28,28,240] -> [8,14,14,240])
  attention_* softmax(q k^T / 8 + mask) v as the exporters write it (MatMul,
             Transpose, Mul, Add, Softmax, MatMul; kiln's flash kernel),
             fp16, q, k, v [B, 12, S, 64] inputs: attention_bert at BERT-base
             bs8 seq128 with an additive padding mask input [8, 1, 1, 128]
             (the last 16 keys of odd rows masked with -65504), and
             attention_gpt2 at GPT-2 bs1 seq1024 with the causal mask as a
             constant (-65504 above the diagonal, as GPT-2's export
             computes it). Correct before fast: kiln's output is checked
             against torch's fp32 attention on the same inputs (rel-L2 1e-2,
             `kiln-run --expect`) before its time counts; torch's
             scaled_dot_product_attention in fp16 (its flash backend for
             the causal case, is_causal=True; the padding mask as attn_mask)
             is timed as kiln's step is. flops are those of the keys each
             row attends (the causal case's upper triangle is not counted).
`run` draws the inputs on the GPU machine (they are too large to carry),
checks each artifact's output against fp32 on the same inputs and
initializers (torch's attention; numpy for the rest, from the initializers
make saves as CASE-inits.npz, drawn from a seed of the case's own name):
rel-L2 at most 1e-2 (`kiln-run --expect`) and every element within
1e-2 + 1e-2 |expected| (check_output, on `--save-outputs`), before its time
counts,
times each artifact with `kiln-run --bench` (CUDA events, median) and
`--profile` (the per-kernel table), and measures the ceilings in the same
process: device-to-device copy bandwidth (torch clone of 1 GiB), cuBLAS
through torch.matmul at each GEMM shape (20 replayed from a CUDA graph) and
torch's depthwise conv (torch.nn.functional.conv2d, fp16, channels_last,
groups = C, its epilogue too) at each dwconv shape, timed as cuBLAS is.
Prints each case's achieved bandwidth or TFLOP/s and its fraction of the
ceiling, and the end-to-end figure of the `--bench` replay (which adds a
graph launch); writes JSON with the machine and versions.

A dwconv row has bytes (input, output, weights and bias once) and flops
(2 x output elements x window), kiln's conv kernel from the profile table
(kiln_conv_us: CUPTI's kernel time, kiln_conv_replay_us: its step replayed
alone), gbs / tflops / fraction_of_copy from the kernel time, and torch's
conv: torch_us (alone, replayed from a CUDA graph as kiln's step is: the
ratio torch_over_kiln = torch_us / kiln_conv_replay_us) and
torch_back_to_back_us (20 in one graph), and torch_conv_only_us (the conv
without its epilogue's kernel).

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
import zlib

import numpy as np

from profile_log import parse_profile, step_ms, table_rows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEMMS = {"gemm_qkv": (1024, 768, 2304), "gemm_proj": (1024, 768, 768),
         "gemm_fc1": (1024, 768, 3072), "gemm_fc2": (1024, 3072, 768)}
# Attention: name -> (batch, heads, seq, head size, causal); the non-causal
# one takes a padding mask input.
ATTENTIONS = {"attention_bert": (8, 12, 128, 64, False),
              "attention_gpt2": (1, 12, 1024, 64, True)}
MASKED = -65504.0
# Depthwise convs: name -> (N, H, W, C, window, stride, epilogue), NHWC input.
DWCONVS = {"dwconv7_c96": (8, 56, 56, 96, 7, 1, None),
           "dwconv7_c192": (8, 28, 28, 192, 7, 1, None),
           "dwconv7_c384": (8, 14, 14, 384, 7, 1, None),
           "dwconv7_c768": (8, 7, 7, 768, 7, 1, None),
           "dwconv3_c96_s2": (8, 112, 112, 96, 3, 2, "relu6"),
           "dwconv3_c144": (8, 56, 56, 144, 3, 1, "relu6"),
           "dwconv5_c240_s2": (8, 28, 28, 240, 5, 2, "silu")}


def dwconv_output(name):
    """The output [N, OH, OW, C] of depthwise conv |name| (pad k // 2)."""
    n, h, w, c, k, stride, _ = DWCONVS[name]
    return [n, (h - 1) // stride + 1, (w - 1) // stride + 1, c]


def cases():
    """name -> (inputs {name: shape}, bytes moved, flops)."""
    table = {
        "layernorm": ({"x": [16384, 4096], "r": [16384, 4096]},
                      3 * 16384 * 4096 * 2, 0),
        "layernorm_bert": ({"x": [1024, 768], "r": [1024, 768]},
                           3 * 1024 * 768 * 2 + 2 * 768 * 2, 0),
        "gelu_bert": ({"x": [1024, 3072]}, 2 * 1024 * 3072 * 2 + 3072 * 2, 0),
        "softmax": ({"x": [4096, 4096]}, 2 * 4096 * 4096 * 2, 0),
        "pointwise": ({"x": [16384, 16384]}, 2 * 2**28 * 2, 0),
    }
    for name, (m, k, n) in GEMMS.items():
        table[name] = ({"x": [m, k]}, 2 * (m * k + k * n + m * n), 2 * m * n * k)
    for name, (n, h, w, c, k, _, _) in DWCONVS.items():
        out = np.prod(dwconv_output(name))
        table[name] = ({"x": [n, h, w, c]},
                       2 * (n * h * w * c + out + k * k * c + c), 2 * out * k * k)
    for name, (b, h, sq, d, causal) in ATTENTIONS.items():
        inputs = {x: [b, h, sq, d] for x in "qkv"}
        if not causal:
            inputs["mask"] = [b, 1, 1, sq]
        # q, k, v read and the output written once; QK^T and PV per attended key.
        pairs = b * h * (sq * (sq + 1) // 2 if causal else sq * sq)
        table[name] = (inputs, 2 * 4 * b * h * sq * d, 4 * pairs * d)
    return table


def attention_inputs(name, rng):
    """Seeded q, k, v (and a padding mask) of attention case |name|."""
    b, h, sq, d, causal = ATTENTIONS[name]
    tensors = {x: rng.uniform(-1, 1, (b, h, sq, d)).astype(np.float16) for x in "qkv"}
    if not causal:
        mask = np.zeros((b, 1, 1, sq), np.float16)
        mask[1::2, ..., sq - 16:] = MASKED
        tensors["mask"] = mask
    return tensors


def causal_mask(sq):
    return np.triu(np.full((1, 1, sq, sq), MASKED, np.float16), 1)


def case_model(name, inputs, rng):
    """The fp16 ONNX model of case |name| with graph inputs |inputs|, its
    initializers drawn from |rng|."""
    from onnx import TensorProto, helper, numpy_helper

    def f16(init, *shape):
        return numpy_helper.from_array(
            (rng.uniform(-1, 1, shape) / np.sqrt(shape[0])).astype(np.float16), init)

    def scalar(init, value):
        return numpy_helper.from_array(np.array(value, dtype=np.float16), init)

    n = helper.make_node
    if name.startswith("layernorm"):
        width = inputs["x"][1]
        nodes = [n("Add", ["x", "r"], ["s"]),
                 n("LayerNormalization", ["s", "scale", "bias"], ["y"], axis=-1)]
        inits = [f16("scale", width), f16("bias", width)]
    elif name == "gelu_bert":
        nodes = [n("Add", ["x", "bias"], ["h"]),
                 n("Div", ["h", "sqrt2"], ["t0"]), n("Erf", ["t0"], ["t1"]),
                 n("Add", ["t1", "one"], ["t2"]), n("Mul", ["h", "t2"], ["t3"]),
                 n("Mul", ["t3", "half"], ["y"])]
        inits = [f16("bias", 3072), scalar("sqrt2", np.sqrt(2.0)),
                 scalar("one", 1.0), scalar("half", 0.5)]
    elif name == "softmax":
        nodes, inits = [n("Softmax", ["x"], ["y"], axis=-1)], []
    elif name == "pointwise":
        nodes = [n("Mul", ["x", "a"], ["t0"]), n("Add", ["t0", "b"], ["t1"]),
                 n("Sigmoid", ["t1"], ["t2"]), n("Mul", ["t2", "x"], ["y"])]
        inits = [scalar("a", 1.5), scalar("b", 0.25)]
    elif name in DWCONVS:
        _, _, _, c, k, stride, epilogue = DWCONVS[name]
        nodes = [n("Transpose", ["x"], ["xt"], perm=[0, 3, 1, 2]),
                 n("Conv", ["xt", "w", "b"], ["c"], group=c,
                   kernel_shape=[k, k], pads=[k // 2] * 4,
                   strides=[stride, stride])]
        inits = [f16("w", c, 1, k, k), f16("b", c)]
        if epilogue == "relu6":
            nodes.append(n("Clip", ["c", "lo", "hi"], ["e"]))
            inits += [scalar("lo", 0.0), scalar("hi", 6.0)]
        elif epilogue == "silu":
            nodes += [n("Sigmoid", ["c"], ["s"]), n("Mul", ["c", "s"], ["e"])]
        nodes.append(n("Transpose", ["e" if epilogue else "c"], ["y"],
                       perm=[0, 2, 3, 1]))
    elif name in ATTENTIONS:
        _, _, sq, d, causal = ATTENTIONS[name]
        nodes = [n("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
                 n("MatMul", ["q", "kt"], ["s"]),
                 n("Mul", ["s", "scale"], ["ss"]),
                 n("Add", ["ss", "mask"], ["sm"]),
                 n("Softmax", ["sm"], ["p"], axis=-1),
                 n("MatMul", ["p", "v"], ["y"])]
        inits = [scalar("scale", 1.0 / np.sqrt(d))]
        if causal:
            inits.append(numpy_helper.from_array(causal_mask(sq), "mask"))
    else:
        m, k, width = GEMMS[name]
        nodes, inits = [n("MatMul", ["x", "w"], ["y"])], [f16("w", k, width)]
    half = TensorProto.FLOAT16
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(i, half, s) for i, s in inputs.items()],
        [helper.make_tensor_value_info("y", half, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def make(out, prefixes=None, build=None, variant=None):
    import onnx
    from onnx import numpy_helper
    import shutil
    build = build or os.path.join(ROOT, "build")
    os.makedirs(os.path.join(out, "bin"), exist_ok=True)
    # A variant's bundle keeps the kiln-run already there (the runtime runs
    # either compiler's artifacts).
    if not variant or not os.path.exists(os.path.join(out, "bin", "kiln-run")):
        shutil.copy(os.path.join(build, "bin", "kiln-run"),
                    os.path.join(out, "bin"))
    for name, (inputs, _, _) in cases().items():
        if prefixes and not any(name.startswith(p) for p in prefixes):
            continue
        # A seed of the case's own: its initializers do not depend on which
        # other cases a make selects (a variant's make may select fewer).
        model = case_model(name, inputs, np.random.RandomState(zlib.crc32(name.encode())))
        # The initializers, for the reference `run` checks kiln's output
        # against (one file per case: a variant made with the same --cases
        # draws the same ones).
        np.savez(os.path.join(out, name + "-inits.npz"),
                 **{i.name: numpy_helper.to_array(i)
                    for i in model.graph.initializer})
        path = os.path.join(out, name + ".onnx")
        onnx.save(model, path)
        artifact = name + ("-" + variant if variant else "") + ".kiln"
        log = subprocess.run(
            [os.path.join(build, "bin", "kiln-compile"), path,
             "-o", os.path.join(out, artifact)],
            capture_output=True, text=True)
        if log.returncode:
            sys.exit(f"{name}: {log.stderr}")
        os.remove(path)
        print(f"{artifact}: {log.stderr.strip().splitlines()[-1]}")


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


def profiled_step(text, word, prefix, moved, flops):
    """The first step of kiln-run's profile table whose kernel name holds
    |word|, and the row's fields from it: PREFIX_kernel, PREFIX_us (the
    kernel time, CUPTI's when it loaded), PREFIX_replay_us (the step
    replayed alone), gbs and tflops from the kernel time, and the profile's
    source."""
    row = {"kiln_profile_source": (parse_profile(text) or {}).get("source")}
    step = next((r for r in table_rows(text, limit=50) if word in r["kernel"]), None)
    if step:
        row[prefix + "_kernel"] = step["kernel"]
        row[prefix + "_us"], row[prefix + "_replay_us"] = (step["time_us"],
                                                           step["replay_us"])
        row["gbs"] = moved / (step["time_us"] * 1e-6) / 1e9
        row["tflops"] = flops / (step["time_us"] * 1e-6) / 1e12
    return row, step


def dwconv_row(name, text, moved, flops, copy_gbs):
    """kiln's conv kernel from the profile table against torch's
    depthwise conv of the same shape, epilogue and layout."""
    import torch
    import torch.nn.functional as F
    n, h, w, c, k, stride, epilogue = DWCONVS[name]
    row, conv = profiled_step(text, "conv", "kiln_conv", moved, flops)
    if conv:
        row["fraction_of_copy"] = row["gbs"] / copy_gbs
    x = torch.randn(n, c, h, w, dtype=torch.float16, device="cuda").to(
        memory_format=torch.channels_last)
    weight = (torch.randn(c, 1, k, k, dtype=torch.float16, device="cuda") /
              k).to(memory_format=torch.channels_last)
    bias = torch.randn(c, dtype=torch.float16, device="cuda")

    def conv_only():
        return F.conv2d(x, weight, bias, stride=stride, padding=k // 2, groups=c)

    def torch_conv():  # Eager: the epilogue is a kernel of its own.
        y = conv_only()
        if epilogue == "relu6":
            y = y.clamp_(0.0, 6.0)
        elif epilogue == "silu":
            y = F.silu(y, inplace=True)
        return y

    assert torch_conv().is_contiguous(memory_format=torch.channels_last)
    graph = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    with torch.cuda.graph(graph):
        for _ in range(20):
            torch_conv()
    row["torch_back_to_back_us"] = median_ms(graph.replay) / 20 * 1e3
    row["torch_us"] = single_replay_ms(torch_conv) * 1e3
    row["torch_conv_only_us"] = single_replay_ms(conv_only) * 1e3
    if conv:
        row["torch_over_kiln"] = row["torch_us"] / conv["replay_us"]
    return row


def attention_reference(name, tensors):
    """softmax(q k^T / sqrt(d) + mask) v in fp32 (torch, on the GPU), the
    fp16 inputs as they are: the output kiln's must match."""
    import torch
    _, _, sq, d, causal = ATTENTIONS[name]
    q, k, v = (torch.from_numpy(tensors[x]).cuda().float() for x in "qkv")
    mask = torch.from_numpy(causal_mask(sq) if causal else tensors["mask"]).cuda().float()
    p = torch.softmax(q @ k.transpose(-1, -2) / np.sqrt(d) + mask, dim=-1)
    return (p @ v).cpu().numpy().astype(np.float16)


def attention_row(name, tensors, reference, text, moved, flops):
    """kiln's attention kernel from the profile table against torch's
    scaled_dot_product_attention in fp16 on the same inputs (|reference|:
    attention_reference's output, which kiln's was checked against)."""
    import torch
    import torch.nn.functional as F
    _, _, sq, d, causal = ATTENTIONS[name]
    row, step = profiled_step(text, "attention", "kiln_attention", moved, flops)
    if step:
        row["fraction_of_fp16_peak"] = row["tflops"] / 740.0
    q, k, v = (torch.from_numpy(tensors[x]).cuda() for x in "qkv")
    mask = None if causal else torch.from_numpy(tensors["mask"]).cuda()

    def sdpa():
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)

    reference = reference.astype(np.float32)
    row["torch_rel_l2"] = float(np.linalg.norm(sdpa().float().cpu().numpy() - reference) /
                                np.linalg.norm(reference))
    row["torch_us"] = single_replay_ms(sdpa) * 1e3
    row["torch_tflops"] = flops / (row["torch_us"] * 1e-6) / 1e12
    if step:
        row["torch_over_kiln"] = row["torch_us"] / step["replay_us"]
    return row


def reference_output(case, tensors, inits):
    """The fp32 output of case |case| (not an attention one) on |tensors|
    and the initializers |inits| make drew (numpy, from the fp16 values)."""
    t = {k: np.asarray(v, np.float32) for k, v in {**tensors, **inits}.items()}
    if case.startswith("layernorm"):
        s = t["x"] + t["r"]
        mean = s.mean(-1, keepdims=True)
        var = ((s - mean) ** 2).mean(-1, keepdims=True)
        return (s - mean) / np.sqrt(var + 1e-5) * t["scale"] + t["bias"]
    if case == "softmax":
        e = np.exp(t["x"] - t["x"].max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    if case == "pointwise":
        return t["x"] / (1 + np.exp(-(t["x"] * 1.5 + 0.25)))
    if case == "gelu_bert":
        import math
        h = t["x"] + t["bias"]
        erf = np.frompyfunc(math.erf, 1, 1)
        return h * (erf(h / np.sqrt(2.0)).astype(np.float32) + 1) * 0.5
    if case in GEMMS:
        return t["x"] @ t["w"]
    if case in DWCONVS:
        _, _, _, c, k, stride, epilogue = DWCONVS[case]
        pad = k // 2
        x = np.pad(t["x"], ((0, 0), (pad, pad), (pad, pad), (0, 0)))
        out = dwconv_output(case)
        y = np.broadcast_to(t["b"], out).copy()
        for i in range(k):  # y[n, p, q, c] += x[n, s p + i, s q + j, c] w[c, i, j]
            for j in range(k):
                y += x[:, i:i + stride * (out[1] - 1) + 1:stride,
                       j:j + stride * (out[2] - 1) + 1:stride, :] * t["w"][:, 0, i, j]
        if epilogue == "relu6":
            y = np.clip(y, 0.0, 6.0)
        elif epilogue == "silu":
            y = y / (1 + np.exp(-y))
        return y
    raise ValueError(f"no reference for {case}")


def check_output(actual, reference, rtol=1e-2, atol=1e-2):
    """Correctness figures of kiln's output |actual| against the fp32
    |reference|, and what fails: the rel-L2 (at most rtol) and each element
    within atol + rtol |reference| (rel-L2 alone lets a few wrong elements of
    a large output through: one zeroed row of [16384, 4096] is 8e-3)."""
    actual = np.asarray(actual, np.float32)
    if actual.shape != reference.shape:
        return {"error": f"output shape {list(actual.shape)}, expected "
                         f"{list(reference.shape)}"}
    difference = np.abs(actual - reference)
    outside = ~(difference <= atol + rtol * np.abs(reference))  # NaN: outside
    result = {"kiln_rel_l2": float(np.linalg.norm(actual - reference) /
                                   max(np.linalg.norm(reference), 1e-30)),
              "kiln_max_abs_error": float(np.nanmax(difference)) if difference.size else 0.0,
              "kiln_elements_outside_tolerance": int(outside.sum())}
    if result["kiln_elements_outside_tolerance"] or not result["kiln_rel_l2"] <= rtol:
        result["error"] = (f"output outside tolerance: rel-L2 {result['kiln_rel_l2']:.3g}, "
                           f"{result['kiln_elements_outside_tolerance']} elements outside "
                           f"{atol} + {rtol} |expected|")
    return result


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
    # CASE.kiln, and CASE-VARIANT.kiln (make --variant: another compiler or
    # tiling of the same case) after it; cases without an artifact are not
    # in this bundle (make --cases).
    artifacts = {f[:-5] for f in os.listdir(out) if f.endswith(".kiln")}
    table = {}
    for case, entry in cases().items():
        for name in sorted(artifacts):
            if name == case or name.startswith(case + "-"):
                table[name] = entry
    for name, (inputs, moved, flops) in table.items():
        case = name.partition("-")[0]
        folder = os.path.join(out, name + "-inputs")
        os.makedirs(folder, exist_ok=True)
        tensors = (attention_inputs(case, rng) if case in ATTENTIONS else
                   {i: rng.uniform(-1, 1, shape).astype(np.float16)
                    for i, shape in inputs.items()})
        for input_name, tensor in tensors.items():
            np.save(os.path.join(folder, input_name + ".npy"), tensor)
        command = [kiln_run, os.path.join(out, name + ".kiln"), "--inputs",
                   folder, "--bench", "50", "--profile",
                   os.path.join(out, name + "-profile.json")]
        # Correct before fast: the same run checks the output first, against
        # fp32 on the same inputs (and initializers, which make saved).
        inits_path = os.path.join(out, case + "-inits.npz")
        if case in ATTENTIONS:
            reference = attention_reference(case, tensors)
        elif os.path.exists(inits_path):
            reference = reference_output(case, tensors, dict(np.load(inits_path)))
        else:
            reference = None
        expected = os.path.join(out, name + "-expected")
        saved = os.path.join(out, name + "-outputs")
        if reference is None:
            row = dict(case=name, bytes=moved, flops=flops,
                       error=f"no {inits_path} (made before make saved the "
                             "initializers: make the bundle again)")
        else:
            os.makedirs(expected, exist_ok=True)
            np.save(os.path.join(expected, "y.npy"), reference)
            command += ["--expect", expected, "--rel-l2", "1e-2", "--save-outputs", saved]
            log = subprocess.run(command, capture_output=True, text=True)
            text = log.stdout + log.stderr
            match = re.search(r"median ([0-9.]+) ms", text)
            row = dict(case=name, bytes=moved, flops=flops,
                       kiln_ms=float(match.group(1)) if match else None,
                       profile=[l for l in text.splitlines() if l.startswith("  ")][:6])
            if log.returncode or not match:
                row["error"] = text[-600:]
            else:  # kiln-run's rel-L2 passed; every element too?
                row.update(check_output(np.load(os.path.join(saved, "y.npy")), reference))
        if "error" in row:
            pass  # Not run or not right: none of its times count.
        elif case in DWCONVS:
            row.update(dwconv_row(case, text, moved, flops, copy_gbs))
        elif case in ATTENTIONS:
            row.update(attention_row(case, tensors, reference, text, moved, flops))
        elif flops:
            # Kernel against kernel: kiln's GEMM step from its profile table,
            # cuBLAS as one of 20 matmuls replayed from a CUDA graph (a lone
            # a @ b between events would time Python's launch, not the GEMM).
            m, k, n = GEMMS[case]
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
        shutil_rm(os.path.join(out, name + "-expected"))
        shutil_rm(os.path.join(out, name + "-outputs"))
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
    parser.add_argument("--cases", nargs="+", default=None,
                        help="make: only the cases whose names start so")
    parser.add_argument("--build", default=None,
                        help="make: the build folder whose kiln-compile runs")
    parser.add_argument("--variant", default=None,
                        help="make: write CASE-VARIANT.kiln")
    args = parser.parse_args()
    if args.action == "make":
        make(args.outdir, args.cases, args.build, args.variant)
    else:
        run(args.outdir, args.out)


if __name__ == "__main__":
    main()
