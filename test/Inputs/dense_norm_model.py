# Writes a DenseNet layer's pre-activation norm (Concat of convolutions -> BatchNormalization -> Relu) with small variances and onnxruntime's outputs for it.
"""Usage: dense_norm_model.py MODEL.onnx DATA_DIR

x: float [2, 8, 6, 6], exact in fp16. Two 1x1 convolutions of x are
concatenated (16 channels, channels-last in fp16), normalised by a
BatchNormalization that no convolution absorbs and passed through a Relu:
DenseNet's pre-activation norm. The variances (2e-5 to 5e-5, the activations'
own) plus epsilon lie below fp16's smallest normal, 6.1e-5, so a factor
scale / sqrt(variance + epsilon) folded in fp16 loses bits where one
computed in f32 does not; kiln-convert-precision keeps such a norm's
parameters f32. DATA_DIR gets input_0.pb and output_0.pb (onnxruntime's
results).
"""
import argparse
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import save_with_reference  # noqa: E402

CHANNELS = 8


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("data")
    args = parser.parse_args()
    rng = np.random.RandomState(5)

    def tensor(name, value):
        return numpy_helper.from_array(np.asarray(value, dtype=np.float32), name)

    x = rng.standard_normal((2, CHANNELS, 6, 6)).astype(np.float16).astype(np.float32)
    # Each 1x1 convolution's outputs have variance |w|^2: about 3e-5.
    scale = np.sqrt(3e-5 / CHANNELS)
    inits = [tensor("wa", rng.standard_normal((CHANNELS, CHANNELS, 1, 1)) * scale),
             tensor("wb", rng.standard_normal((CHANNELS, CHANNELS, 1, 1)) * scale),
             tensor("scale", rng.uniform(0.5, 1.5, 2 * CHANNELS)),
             tensor("bias", rng.uniform(-0.5, 0.5, 2 * CHANNELS)),
             tensor("mean", rng.uniform(-1e-3, 1e-3, 2 * CHANNELS)),
             tensor("var", rng.uniform(2e-5, 5e-5, 2 * CHANNELS))]
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "wa"], ["a"]),
        n("Conv", ["x", "wb"], ["b"]),
        n("Concat", ["a", "b"], ["cat"], axis=1),
        n("BatchNormalization", ["cat", "scale", "bias", "mean", "var"], ["norm"],
          epsilon=1e-5),
        n("Relu", ["norm"], ["y"]),
    ]
    save_with_reference(nodes, inits, "dense_norm", x, args.model, args.data)


if __name__ == "__main__":
    main()
