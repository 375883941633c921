#!/usr/bin/env python3
# Fills the stripped float initializers of a graph-only ONNX model with
# deterministic values derived from each initializer's name, so every machine
# writes the same bytes; prints the sha256 of the weight data.
"""Usage: fill-weights.py GRAPH_ONLY.onnx OUT.onnx [--external]

Each element is splitmix64(fnv1a64(name) + index) reduced with integer
arithmetic to a multiple of a power of two, so the float32 values are exact
and independent of the numpy version and the machine:
  - tensors of rank >= 2 (weights): uniform in [-2^-s, 2^-s) with
    s = bit_length(fan_in) // 2, fan_in = product of all dims but the first
    (about 1/sqrt(fan_in), which keeps deep networks' activations bounded);
  - rank 0/1 tensors (biases, norm scales): uniform in [0.5, 1.5), positive, so
    BatchNormalization variances (reached also through Identity chains) and
    LayerNorm scales are valid.
Initializers that already hold data are left alone. With --external every
initializer of 1 KiB or more goes to OUT.onnx.data (ONNX external data, in
graph order at 64-byte offsets, the same bytes on every machine) instead of
inside the file; its sha256 is printed too.
"""
import argparse
import hashlib
import os

import numpy as np
import onnx
from onnx import numpy_helper

MASK64 = (1 << 64) - 1


def fnv1a64(text):
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x100000001B3) & MASK64
    return value


def splitmix64(x):
    """Vectorised splitmix64 on uint64 arrays (numpy wraps modulo 2^64)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def fill(name, dims):
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    with np.errstate(over="ignore"):
        index = np.arange(count, dtype=np.uint64) + np.uint64(fnv1a64(name))
        bits = splitmix64(index)
    top24 = (bits >> np.uint64(40)).astype(np.int64)  # uniform in [0, 2^24)
    if len(dims) >= 2:
        fan_in = int(np.prod(dims[1:], dtype=np.int64))
        shift = max(fan_in.bit_length() // 2, 0)
        # (top24 - 2^23) * 2^-(23 + shift): exact in float32.
        values = np.ldexp((top24 - (1 << 23)).astype(np.float64), -(23 + shift))
    else:
        values = 0.5 + np.ldexp(top24.astype(np.float64), -24)
    return values.astype(np.float32).reshape(dims)


def has_data(tensor):
    return (len(tensor.raw_data) > 0 or len(tensor.float_data) > 0 or
            len(tensor.double_data) > 0 or len(tensor.int32_data) > 0 or
            tensor.data_location == onnx.TensorProto.EXTERNAL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--external", action="store_true")
    args = parser.parse_args()
    model = onnx.load(args.model, load_external_data=False)
    digest = hashlib.sha256()
    filled = 0
    for tensor in model.graph.initializer:
        if has_data(tensor):
            continue
        if tensor.data_type != onnx.TensorProto.FLOAT:
            raise SystemExit(f"initializer '{tensor.name}' without data has type "
                             f"{tensor.data_type}; only float is filled")
        values = fill(tensor.name, list(tensor.dims))
        tensor.CopyFrom(numpy_helper.from_array(values, tensor.name))
        digest.update(tensor.name.encode("utf-8"))
        digest.update(values.tobytes())
        filled += 1
    if args.external:
        data_digest = write_external(model, args.out)
        onnx.save_model(model, args.out)
        print(f"{args.out}.data: sha256 {data_digest}")
    else:
        onnx.save_model(model, args.out)
    print(f"{args.out}: filled {filled} initializers; sha256 {digest.hexdigest()}")


def write_external(model, out, threshold=1024, align=64):
    """Moves every initializer of at least |threshold| bytes to OUT.data, in
    graph order at |align|-byte offsets. The layout is written here rather
    than by onnx.save_model, whose alignment differs between onnx versions,
    so that both machines write the same file (kiln artifacts reference it by
    offset and hash). Returns the file's sha256."""
    location = os.path.basename(out) + ".data"
    digest = hashlib.sha256()
    offset = 0
    with open(out + ".data", "wb") as data:
        for tensor in model.graph.initializer:
            if tensor.data_location == onnx.TensorProto.EXTERNAL:
                continue
            raw = numpy_helper.to_array(tensor).tobytes()
            if len(raw) < threshold:
                continue
            padding = (-offset) % align
            data.write(b"\0" * padding)
            digest.update(b"\0" * padding)
            offset += padding
            data.write(raw)
            digest.update(raw)
            name, dims, dtype = tensor.name, list(tensor.dims), tensor.data_type
            tensor.Clear()
            tensor.name, tensor.data_type = name, dtype
            tensor.dims.extend(dims)
            tensor.data_location = onnx.TensorProto.EXTERNAL
            for key, value in (("location", location), ("offset", str(offset)),
                               ("length", str(len(raw)))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
            offset += len(raw)
    return digest.hexdigest()


if __name__ == "__main__":
    main()
