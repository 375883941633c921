# Writes T5's relative-position bucket (as the TorchScript exporter emits it) over distances 0..255 and onnxruntime's outputs for it.
"""Usage: position_bucket_model.py MODEL.onnx DATA_DIR

n: int64 [256], the distances 0..255. The bucket of a unidirectional T5
attention with 64 buckets and a maximum distance of 256 (max_exact 32):
where(n < 32, n, min(32 + int(log(n / 32) / log(8) * 32), 63)), float math
on an integer that ends in an integer, then the bucket's entry of a table
(bucket b holds b + 0.25, exact in fp16). In fp16, rounding after each op,
the distance 110 falls one bucket low (log(110 / 32) / log(8) * 32 is
19.0006); kiln-convert-precision keeps such index arithmetic in f32.
DATA_DIR gets input_0.pb and output_0.pb (onnxruntime's results).
"""
import argparse
import math
import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

BUCKETS, MAX_DISTANCE = 64, 256


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("data")
    args = parser.parse_args()
    max_exact = BUCKETS // 2
    scalar = lambda name, value, dtype: numpy_helper.from_array(  # noqa: E731
        np.array(value, dtype=dtype), name)
    inits = [
        scalar("max_exact", max_exact, np.int64),
        scalar("max_exact_f", max_exact, np.float32),
        scalar("log_ratio", math.log(MAX_DISTANCE / max_exact), np.float32),
        scalar("large_buckets", BUCKETS - max_exact, np.float32),
        scalar("last_bucket", BUCKETS - 1, np.int64),
        numpy_helper.from_array(np.arange(BUCKETS, dtype=np.float32) + 0.25, "table"),
    ]
    n = helper.make_node
    nodes = [
        n("Less", ["n", "max_exact"], ["is_small"]),
        n("Cast", ["n"], ["n_f"], to=TensorProto.FLOAT),
        n("Div", ["n_f", "max_exact_f"], ["ratio"]),
        n("Log", ["ratio"], ["log"]),
        n("Div", ["log", "log_ratio"], ["fraction"]),
        n("Mul", ["fraction", "large_buckets"], ["scaled"]),
        n("Cast", ["scaled"], ["offset"], to=TensorProto.INT64),
        n("Add", ["offset", "max_exact"], ["large"]),
        n("Min", ["large", "last_bucket"], ["clamped"]),
        n("Where", ["is_small", "n", "clamped"], ["bucket"]),
        n("Gather", ["table", "bucket"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "position_bucket",
        [helper.make_tensor_value_info("n", TensorProto.INT64, [MAX_DISTANCE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, args.model)
    distances = np.arange(MAX_DISTANCE, dtype=np.int64)
    session = onnxruntime.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"n": distances})
    os.makedirs(args.data, exist_ok=True)
    for file, value in (("input_0", numpy_helper.from_array(distances, "n")),
                        ("output_0", numpy_helper.from_array(y, "y"))):
        with open(os.path.join(args.data, file + ".pb"), "wb") as out:
            out.write(value.SerializeToString())


if __name__ == "__main__":
    main()
