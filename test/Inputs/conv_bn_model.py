# Writes Conv -> BatchNormalization -> Relu (as unfused training-style exports have it) and onnxruntime's outputs for it.
"""Usage: conv_bn_model.py MODEL.onnx DATA_DIR

x: [2, 3, 8, 8]; Conv 3x3 pad 1 to 16 channels (weights large enough,
16x3x3x3, to be a resource), with and without a bias; BatchNormalization
with random positive variances; Relu. DATA_DIR gets input_0.pb and
output_<i>.pb (onnxruntime's results).
"""
import argparse
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import save_with_reference  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("data")
    args = parser.parse_args()
    rng = np.random.RandomState(1)
    f = lambda name, *shape, low=-1.0, high=1.0: numpy_helper.from_array(  # noqa: E731
        rng.uniform(low, high, shape).astype(np.float32), name)
    inits = [f("w", 16, 3, 3, 3), f("b", 16), f("w2", 16, 16, 1, 1),
             f("scale", 16), f("shift", 16), f("mean", 16),
             f("var", 16, low=0.5, high=2.0),
             f("scale2", 16), f("shift2", 16), f("mean2", 16),
             f("var2", 16, low=0.5, high=2.0)]
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        n("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["bn"],
          name="bn", epsilon=1e-3),
        n("Relu", ["bn"], ["r"], name="relu"),
        n("Conv", ["r", "w2"], ["c2"], name="conv2"),
        n("BatchNormalization", ["c2", "scale2", "shift2", "mean2", "var2"],
          ["y"], name="bn2"),
    ]
    x = rng.uniform(-1, 1, (2, 3, 8, 8)).astype(np.float32)
    save_with_reference(nodes, inits, "conv_bn", x, args.model, args.data)


if __name__ == "__main__":
    main()
