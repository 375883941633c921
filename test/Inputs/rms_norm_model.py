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
import sys

import numpy as np
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import save_with_reference  # noqa: E402

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
    inits = [scalar("two", 2.0), scalar("eps", 1e-6), scalar("one", 1.0),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, WIDTH).astype(np.float32), "weight")]
    n = helper.make_node
    nodes = [
        n("Pow", ["x", "two"], ["square"]),
        n("ReduceMean", ["square"], ["variance"], axes=[-1], keepdims=1),
        n("Add", ["variance", "eps"], ["shifted"]),
        n("Sqrt", ["shifted"], ["rms"]),
        n("Div", ["one", "rms"], ["inverse"]),
        n("Mul", ["x", "inverse"], ["normalized"]),
        n("Mul", ["weight", "normalized"], ["y"]),
    ]
    x = rng.standard_normal((len(ROW_SCALES), WIDTH))
    x *= np.array(ROW_SCALES)[:, None] / np.sqrt((x * x).mean(axis=1, keepdims=True))
    x = x.astype(np.float16).astype(np.float32)  # exact in fp16: only kiln's rounding differs
    save_with_reference(nodes, inits, "rms_norm", x, args.model, args.data)


if __name__ == "__main__":
    main()
