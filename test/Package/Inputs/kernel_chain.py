"""Writes kernel_chain.onnx: five MatMuls, each followed by a different
activation that no library epilogue takes, so that the artifact has five
unique generated kernels (one per activation) between cuBLASLt calls.

  x -> MatMul(w0) -> Tanh -> MatMul(w1) -> Sigmoid -> MatMul(w2) -> Exp
    -> MatMul(w3) -> Neg -> MatMul(w4) -> Abs -> y
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(5)
activations = ["Tanh", "Sigmoid", "Exp", "Neg", "Abs"]
nodes, weights = [], []
value = "x"
for number, activation in enumerate(activations):
    weights.append(numpy_helper.from_array(
        (rng.standard_normal((16, 16)) * 0.2).astype(np.float32), f"w{number}"))
    nodes.append(helper.make_node("MatMul", [value, f"w{number}"], [f"m{number}"],
                                  name=f"mm{number}"))
    value = "y" if number == len(activations) - 1 else f"a{number}"
    nodes.append(helper.make_node(activation, [f"m{number}"], [value],
                                  name=activation.lower()))
graph = helper.make_graph(
    nodes, "kernel_chain",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])], weights)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
