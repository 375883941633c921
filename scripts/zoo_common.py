# What the zoo's CI suite (scripts/zoo-tests.py) and its GPU runner
# (scripts/zoo-run.py) share: the index of test/zoo, input shapes, seeded
# inputs and the output comparison. Needs only numpy and onnx's protobufs.
import json
import os

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO_DIR = os.path.join(REPO_ROOT, "test", "zoo")

# Sizes of the symbolic dims: small ones for the CPU evaluator in CI, the
# GPU run's larger ones. A model's own "sample" sizes (the ones it was traced
# at) fill in what these do not name.
CPU_SIZES = {"batch": 1, "height": 64, "width": 64, "seq": 16, "target": 8,
             "past": 12, "total": 16}
GPU_SIZES = {"batch": 2, "height": 224, "width": 224, "seq": 64, "target": 32,
             "past": 48, "total": 64}
# Relative L2 error each precision must meet against onnxruntime (fp32).
TOLERANCE = {"fp32": 1e-5, "fp16": 5e-3}


def load_index(zoo_dir=ZOO_DIR):
    with open(os.path.join(zoo_dir, "zoo.json")) as f:
        return json.load(f)


def sizes_for(record, sizes):
    """|sizes| for one model: a decoder step with a key/value cache takes
    `seq` new tokens after `past` ones, so its `seq` is `total - past`."""
    names = {d for spec in record["inputs"] for d in spec["dims"] if isinstance(d, str)}
    sizes = dict(sizes)
    if "past" in names:
        sizes["seq"] = sizes["total"] - sizes["past"]
    return sizes


def dims_of(record, spec, sizes):
    sizes = sizes_for(record, sizes)
    return [int(sizes.get(d, record["sample"].get(d))) if isinstance(d, str) else int(d)
            for d in spec["dims"]]


def input_shape_flag(record, sizes):
    """kiln-compile's --input-shape value: every input with its full dims."""
    return ",".join(f"{spec['name']}=" + "x".join(str(d) for d in dims_of(record, spec, sizes))
                    for spec in record["inputs"])


def make_inputs(record, sizes, seed=11):
    """Seeded inputs by name: floats uniform in [-1, 1) (never 0), token ids in
    [low, high), masks of ones with the last quarter of all but the first row
    padded (a mask's low is 1: the padding zeros are set here)."""
    rng = np.random.RandomState(seed)
    values = {}
    for spec in record["inputs"]:
        dims = dims_of(record, spec, sizes)
        if spec["dtype"] == "int64":
            value = rng.randint(spec["low"], spec["high"], dims).astype(np.int64)
            if spec["name"].endswith("attention_mask") and len(dims) == 2:
                for row in range(1, dims[0]):
                    value[row, dims[1] - max(dims[1] // 4, 1):] = 0
        else:
            value = rng.uniform(-1, 1, dims).astype(np.float32)
            value[value == 0] = 0.25
        values[spec["name"]] = value
    return values
