#!/usr/bin/env python3
# Writes examples/mlp.onnx: a 64-128-96-10 MLP (MatMul+Add, Relu, Softmax) with a symbolic batch dim, and optionally onnxruntime reference data.
"""Usage: mlp.py [--model mlp.onnx] [--data-dir DIR] [--batch 4] [--seed 1]

The weights are deterministic (numpy RandomState(0)), so the committed
mlp.onnx can be regenerated bit for bit. With --data-dir, random non-zero
inputs (input_0.pb) and onnxruntime's outputs (output_0.pb) are written there.
"""
import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from example_io import save_model, write_reference_data

LAYERS = [64, 128, 96, 10]


def build_model():
    rng = np.random.RandomState(0)
    nodes, initializers = [], []
    current = "x"
    for index, (fan_in, fan_out) in enumerate(zip(LAYERS, LAYERS[1:])):
        weight = (rng.randn(fan_in, fan_out) / np.sqrt(fan_in)).astype(np.float32)
        bias = (rng.randn(fan_out) * 0.1).astype(np.float32)
        initializers += [numpy_helper.from_array(weight, f"w{index}"),
                         numpy_helper.from_array(bias, f"b{index}")]
        nodes += [
            helper.make_node("MatMul", [current, f"w{index}"], [f"mm{index}"],
                             name=f"matmul_{index}"),
            helper.make_node("Add", [f"mm{index}", f"b{index}"], [f"z{index}"],
                             name=f"bias_{index}"),
        ]
        current = f"z{index}"
        if index < len(LAYERS) - 2:
            nodes.append(helper.make_node("Relu", [current], [f"h{index}"],
                                          name=f"relu_{index}"))
            current = f"h{index}"
    nodes.append(helper.make_node("Softmax", [current], ["probabilities"],
                                  name="softmax", axis=-1))
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT,
                                       ["batch", 10])],
        initializers)
    return helper.make_model(graph, producer_name="kiln-examples",
                             opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--model", default=os.path.join(here, "mlp.onnx"))
    parser.add_argument("--data-dir")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    save_model(build_model(), args.model)
    if args.data_dir:
        rng = np.random.RandomState(args.seed)
        # Uniform in [0.5, 1.5) with random signs: never zero.
        x = (rng.uniform(0.5, 1.5, (args.batch, 64)) *
             rng.choice([-1.0, 1.0], (args.batch, 64))).astype(np.float32)
        write_reference_data(args.model, [x], args.data_dir)


if __name__ == "__main__":
    main()
