# Writes T5's RMSNorm (as the TorchScript exporter emits it) over rows of growing scale and onnxruntime's outputs for it.
"""Usage: rms_norm_model.py MODEL.onnx DATA_DIR

x: float [4, 512], rows of root mean square 0.5, 30, 300 and 3000 (every
value finite in fp16, whose largest is 65504). y = w * (x / sqrt(mean(x^2)
+ 1e-6)), the decomposed form (Pow, ReduceMean, Add, Sqrt, Div, Mul, Mul).
In fp16 with the statistic stored in fp16, x^2 overflows beyond 256 and the
rows of RMS 300 and 3000 came out zero; kiln-convert-precision computes a
reduction's statistics in f32. DATA_DIR gets input_0.pb and output_0.pb
(onnxruntime's results).
"""
import argparse
import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

ROW_SCALES = (0.5, 30.0, 300.0, 3000.0)
WIDTH = 512


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("data")
    args = parser.parse_args()
    rng = np.random.RandomState(3)
    scalar = lambda name, value: numpy_helper.from_array(  # noqa: E731
        np.array(value, dtype=np.float32), name)
    inits = [
        scalar("two", 2.0), scalar("eps", 1e-6), scalar("one", 1.0),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "axes"),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, WIDTH).astype(np.float32), "weight"),
    ]
    n = helper.make_node
    nodes = [
        n("Pow", ["x", "two"], ["square"]),
        n("ReduceMean", ["square", "axes"], ["variance"], keepdims=1),
        n("Add", ["variance", "eps"], ["shifted"]),
        n("Sqrt", ["shifted"], ["rms"]),
        n("Div", ["one", "rms"], ["inverse"]),
        n("Mul", ["x", "inverse"], ["normalized"]),
        n("Mul", ["weight", "normalized"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "rms_norm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(ROW_SCALES), WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save(model, args.model)
    x = rng.standard_normal((len(ROW_SCALES), WIDTH))
    x *= np.array(ROW_SCALES)[:, None] / np.sqrt((x * x).mean(axis=1, keepdims=True))
    x = x.astype(np.float16).astype(np.float32)  # exact in fp16: only kiln's rounding differs
    session = onnxruntime.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": x})
    os.makedirs(args.data, exist_ok=True)
    for file, value in (("input_0", numpy_helper.from_array(x, "x")),
                        ("output_0", numpy_helper.from_array(y, "y"))):
        with open(os.path.join(args.data, file + ".pb"), "wb") as out:
            out.write(value.SerializeToString())


if __name__ == "__main__":
    main()
