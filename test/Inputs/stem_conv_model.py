# Writes an RGB stem (Conv 7x7 stride 2 pad 3 with a bias, Relu) and onnxruntime's outputs for it.
"""Usage: stem_conv_model.py MODEL.onnx DATA_DIR

x: [2, 3, 16, 16] float; Conv 7x7 stride 2 pad 3 to 16 channels with a
bias, Relu: y [2, 16, 8, 8]. DATA_DIR gets input_0.pb and output_0.pb.
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
    rng = np.random.RandomState(7)
    inits = [numpy_helper.from_array(
                 rng.uniform(-0.2, 0.2, (16, 3, 7, 7)).astype(np.float32), "w"),
             numpy_helper.from_array(
                 rng.uniform(-0.5, 0.5, (16,)).astype(np.float32), "b")]
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w", "b"], ["c"], name="stem", kernel_shape=[7, 7],
          strides=[2, 2], pads=[3, 3, 3, 3]),
        n("Relu", ["c"], ["y"], name="relu"),
    ]
    x = rng.uniform(-1, 1, (2, 3, 16, 16)).astype(np.float32)
    save_with_reference(nodes, inits, "stem", x, args.model, args.data)


if __name__ == "__main__":
    main()
