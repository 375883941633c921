#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from ONNX's node tests (Debian's
libonnx-testdata), so that no corpus files live in the repository:

  OUT/onnx-import/    small node-test models (model.onnx, at most 4 KiB each)
  OUT/tensor-file/    small input_N.pb / output_N.pb files, and .npy versions
                      of some of them (format 1.0 and 2.0, C and Fortran order)

The artifact reader's seeds come from build-sanitize/fuzz/kiln-fuzz-artifact-seeds
(scripts/fuzz.sh runs it). Deterministic: the same testdata gives the same files.
"""
import argparse
import hashlib
import os
import sys
from pathlib import Path

MAX_BYTES = 4096


def unique_small_files(paths, limit):
    """Distinct files of at most MAX_BYTES, in sorted order, every k-th one
    when there are more than |limit|."""
    seen, chosen = set(), []
    for path in sorted(paths):
        data = path.read_bytes()
        if len(data) > MAX_BYTES:
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        chosen.append((path, data))
    step = max(1, -(-len(chosen) // limit))
    return chosen[::step]


def write(folder, name, data):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--testdata", default="/usr/share/libonnx-testdata/data",
                        help="libonnx-testdata's data folder")
    parser.add_argument("--out", required=True, help="where to write the corpora")
    parser.add_argument("--max-models", type=int, default=400)
    parser.add_argument("--max-tensors", type=int, default=300)
    args = parser.parse_args()
    node = Path(args.testdata) / "node"
    if not node.is_dir():
        sys.exit(f"fuzz-seeds: no ONNX node tests in {node} (install libonnx-testdata)")
    out = Path(args.out)

    # Expanded tests repeat their op as a function body: the plain ones suffice.
    models = [p for p in node.glob("test_*/model.onnx") if "_expanded" not in p.parent.name]
    chosen = unique_small_files(models, args.max_models)
    for path, data in chosen:
        write(out / "onnx-import", path.parent.name + ".onnx", data)
    print(f"fuzz-seeds: {len(chosen)} models in {out / 'onnx-import'}")

    tensors = unique_small_files(node.glob("test_*/test_data_set_0/*.pb"), args.max_tensors)
    for path, data in tensors:
        write(out / "tensor-file", f"{path.parent.parent.name}-{path.name}", data)
    npy = 0
    try:
        import numpy as np
        from onnx import TensorProto, numpy_helper
    except ImportError:
        print("fuzz-seeds: no numpy/onnx in this python: no .npy seeds (use .venv/bin/python)")
    else:
        for index, (path, data) in enumerate(tensors[:120]):
            proto = TensorProto()
            proto.ParseFromString(data)
            try:
                array = numpy_helper.to_array(proto)
            except Exception:
                continue
            if array.dtype == object:
                continue
            stem = f"{path.parent.parent.name}-{path.stem}"
            version = (2, 0) if index % 3 == 2 else (1, 0)
            if index % 4 == 3 and array.ndim >= 2:
                array = np.asfortranarray(array)
            target = out / "tensor-file" / f"{stem}.npy"
            with open(target, "wb") as f:
                np.lib.format.write_array(f, array, version=version)
            npy += 1
    print(f"fuzz-seeds: {len(tensors)} TensorProto and {npy} .npy files in {out / 'tensor-file'}")


if __name__ == "__main__":
    main()
