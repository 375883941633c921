#!/usr/bin/env python3
"""Writes one tensor file for kiln-interpret's lit tests, without numpy.

    make_tensor.py OUT.npy|OUT.pb DTYPE SHAPE VALUES [--name NAME]

DTYPE is a numpy-style name (float32, float16, float64, int8, ..., uint64,
bool); SHAPE is "2x3" (or "scalar"); VALUES is a comma-separated list (nan,
inf, -inf, true, false allowed) with one value per element, or "range" for
0, 1, 2, ... .pb files are onnx.TensorProto with raw_data, hand-encoded.
Missing parent folders are created (lit's PATH may lack mkdir).
"""
import argparse
import math
import os
import struct
import sys

# dtype -> (struct code, npy descr, ONNX data_type)
DTYPES = {
    "float32": ("f", "<f4", 1), "uint8": ("B", "|u1", 2), "int8": ("b", "|i1", 3),
    "uint16": ("H", "<u2", 4), "int16": ("h", "<i2", 5), "int32": ("i", "<i4", 6),
    "int64": ("q", "<i8", 7), "bool": ("?", "|b1", 9), "float16": ("e", "<f2", 10),
    "float64": ("d", "<f8", 11), "uint32": ("I", "<u4", 12), "uint64": ("Q", "<u8", 13),
}


def parse_value(text, dtype):
    text = text.strip().lower()
    if dtype == "bool":
        return text in ("1", "true")
    if dtype.startswith("float"):
        return float(text)  # Accepts nan, inf, -inf.
    return int(text)


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, wire_type):
    return varint((number << 3) | wire_type)


def main():
    # Parsed by hand so that values such as "-1,2" are not taken for options.
    argv = sys.argv[1:]
    name = ""
    if "--name" in argv:
        at = argv.index("--name")
        name = argv[at + 1]
        del argv[at:at + 2]
    if len(argv) != 4 or argv[1] not in DTYPES:
        sys.exit(__doc__)
    args = argparse.Namespace(out=argv[0], dtype=argv[1], shape=argv[2],
                              values=argv[3], name=name)

    shape = [] if args.shape == "scalar" else [int(d) for d in args.shape.split("x")]
    count = math.prod(shape)
    if args.values == "range":
        values = [parse_value(str(i), args.dtype) for i in range(count)]
    else:
        values = [parse_value(v, args.dtype) for v in args.values.split(",") if v.strip()]
    if len(values) != count:
        sys.exit(f"{len(values)} values for shape {shape} ({count} elements)")
    code, descr, onnx_type = DTYPES[args.dtype]
    data = struct.pack("<" + code * count, *values)

    if args.out.endswith(".npy"):
        dims = "(" + "".join(f"{d}, " for d in shape).rstrip(" ")
        dims = (dims[:-1] if len(shape) > 1 else dims) + ")"
        header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        blob = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data
    else:
        blob = b"".join(field(1, 0) + varint(d) for d in shape)
        blob += field(2, 0) + varint(onnx_type)
        if args.name:
            blob += field(8, 2) + varint(len(args.name)) + args.name.encode()
        blob += field(9, 2) + varint(len(data)) + data
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(blob)


if __name__ == "__main__":
    main()
