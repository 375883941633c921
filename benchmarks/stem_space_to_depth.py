#!/usr/bin/env python3
"""Probe (GPU machine, torch): is a small-channel strided stem convolution
faster through cuDNN as a stride-1 convolution over its space-to-depth
input? ResNet-50's 7x7 stride-2 stem (3 -> 64 channels) at batch 32 and 8,
MobileNet-V2's 3x3 stride-2 and ConvNeXt's 4x4 stride-4 at batch 8, fp16
channels_last, each with its ReLU: cuDNN on the convolution as it is
(direct_us) and on the space-to-depth form (input channels C*s*s padded to
a multiple of 8, window ceil(k/s), stride 1; s2d_us), both checked against
the fp32 convolution (cuDNN without TF32) first (direct_err, s2d_err:
rel-L2, at most 1e-2 or the probe stops), plus torch's
cost of the transform itself (transform_torch_us). Times: median of 30
replays of a CUDA graph of 20 calls, per call.

    python3 benchmarks/stem_space_to_depth.py OUT.json
"""
import json
import platform
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

# (name, batch, input channels, size, output channels, window, stride, pad)
STEMS = [("resnet50_bs32", 32, 3, 224, 64, 7, 2, 3),
         ("resnet50_bs8", 8, 3, 224, 64, 7, 2, 3),
         ("mobilenet_bs8", 8, 3, 224, 32, 3, 2, 1),
         ("convnext_bs8", 8, 3, 224, 96, 4, 4, 0)]


def bench_us(fn, reps=20):
    """Median time per call of |reps| calls replayed from a CUDA graph."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(reps):
            fn()
    times = []
    for _ in range(30):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / reps * 1000)
    return sorted(times)[len(times) // 2]


def rel_l2(out, ref):
    return ((out.float() - ref).norm() / ref.norm()).item()


def space_to_depth(x, s):
    """[N, C, H, W] (H, W multiples of s) -> [N, C*s*s, H/s, W/s]: channel
    (c, r1, r2) of block (j1, j2) holds x[c, s*j1 + r1, s*j2 + r2]."""
    n, c, h, w = x.shape
    x = x.reshape(n, c, h // s, s, w // s, s).permute(0, 1, 3, 5, 2, 4)
    return x.reshape(n, c * s * s, h // s, w // s)


def probe(n, c, size, k_out, k, s, p):
    torch.manual_seed(0)
    x = torch.randn(n, c, size, size, device="cuda", dtype=torch.float16)
    x = x.to(memory_format=torch.channels_last)
    w = torch.randn(k_out, c, k, k, device="cuda", dtype=torch.float16) * 0.1
    ref = F.conv2d(x.float(), w.float(), stride=s, padding=p).relu()
    row = {}

    def direct():
        return F.relu(F.conv2d(x, w, stride=s, padding=p))
    row["direct_err"] = rel_l2(direct(), ref)
    row["direct_us"] = bench_us(direct)

    # Output o reads padded inputs s*o + t, t in [0, k): block o + t // s,
    # phase t % s. Pad to a multiple of s, zero the window to ceil(k/s)*s.
    padded = -(-(size + 2 * p) // s) * s
    after = padded - size - p
    window = -(-k // s)
    xs = space_to_depth(F.pad(x, (p, after, p, after)), s)
    ws = space_to_depth(F.pad(w, (0, window * s - k, 0, window * s - k)), s)
    channels = c * s * s
    channels_padded = -(-channels // 8) * 8
    extra = (0, 0, 0, 0, 0, channels_padded - channels)
    xs = F.pad(xs, extra).contiguous(memory_format=torch.channels_last)
    ws = F.pad(ws, extra).contiguous()
    size_out = (size + 2 * p - k) // s + 1

    def s2d():
        return F.relu(F.conv2d(xs, ws))[:, :, :size_out, :size_out]
    out = s2d()
    row.update({"s2d_channels": channels_padded, "s2d_window": window,
                "s2d_err": rel_l2(out, ref), "s2d_shape": list(out.shape)})
    for form in ("direct", "s2d"):
        if not row[form + "_err"] < 1e-2:
            raise SystemExit(f"{form} form off the fp32 convolution: "
                             f"rel-L2 {row[form + '_err']}")
    row["s2d_us"] = bench_us(s2d)

    # The transform from the model's NCHW fp32 input, as torch does it.
    x32 = torch.randn(n, c, size, size, device="cuda")

    def transform():
        xp = F.pad(x32, (p, after, p, after))
        xp = xp.reshape(n, c, padded // s, s, padded // s, s)
        xp = xp.permute(0, 2, 4, 1, 3, 5).reshape(n, padded // s, padded // s,
                                                  channels)
        return F.pad(xp.half(), (0, channels_padded - channels))
    row["transform_torch_us"] = bench_us(transform)
    return row


def main():
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False  # the fp32 reference is fp32
    results = {}
    for name, *shape in STEMS:
        results[name] = probe(*shape)
        print(name, json.dumps(results[name]), flush=True)
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                          "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip()
    command = " ".join(["benchmarks/stem_space_to_depth.py"] + sys.argv[1:])
    with open(sys.argv[1], "w") as out:
        json.dump({"command": command,
                   "date": time.strftime("%Y-%m-%d %H:%M:%S"),
                   "machine": gpu, "host": platform.node(),
                   "torch": torch.__version__, "cuda": torch.version.cuda,
                   "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
