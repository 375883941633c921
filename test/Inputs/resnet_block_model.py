# Writes a small ResNet-like model (Conv, Relu, MaxPool, a residual block with Add, GlobalAveragePool) and onnxruntime's outputs for it.
"""Usage: resnet_block_model.py MODEL.onnx DATA_DIR

x: [2, 4, 8, 8]; stem Conv 3x3 pad 1 to 8 channels with a bias, Relu,
MaxPool 2x2 stride 2; a basic block to 16 channels (Conv, Relu, Conv, Add
of the 1x1 Conv of the block's input, Relu); GlobalAveragePool. DATA_DIR gets input_0.pb and output_0.pb.
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
    rng = np.random.RandomState(3)
    f = lambda name, *shape: numpy_helper.from_array(  # noqa: E731
        rng.uniform(-0.5, 0.5, shape).astype(np.float32), name)
    inits = [f("w0", 8, 4, 3, 3), f("b0", 8), f("w1", 8, 8, 3, 3), f("b1", 8),
             f("w2", 16, 8, 3, 3), f("w3", 16, 8, 1, 1), f("b3", 16)]
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w0", "b0"], ["c0"], name="stem", pads=[1, 1, 1, 1]),
        n("Relu", ["c0"], ["r0"], name="relu0"),
        n("MaxPool", ["r0"], ["p"], name="pool", kernel_shape=[2, 2],
          strides=[2, 2]),
        n("Conv", ["p", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        n("Relu", ["c1"], ["r1"], name="relu1"),
        n("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        n("Conv", ["p", "w3", "b3"], ["c3"], name="downsample"),
        n("Add", ["c2", "c3"], ["a"], name="add"),
        n("Relu", ["a"], ["r2"], name="relu2"),
        n("GlobalAveragePool", ["r2"], ["y"], name="gap"),
    ]
    x = rng.uniform(-1, 1, (2, 4, 8, 8)).astype(np.float32)
    save_with_reference(nodes, inits, "resnet_block", x, args.model, args.data)


if __name__ == "__main__":
    main()
