"""Writes branches.onnx: two independent MatMul branches joined by an Add, a
Gemm with a bias row, and a second output that is the input itself.

  x -> MatMul(w0) -> Relu -> MatMul(w1) --\
                                           Add -> Gemm(g, gb) -> y
  x -> Gemm(w2, transB) -> Tanh -> MatMul(w3) --/
  x -> Identity -> x_copy

(Branch b starts with a Gemm so that kiln-merge-projections, which merges
matmuls of one activation, keeps the branches apart.)
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(3)


def weight(name, *shape):
    values = (rng.standard_normal(shape) * 0.2).astype(np.float32)
    return numpy_helper.from_array(values, name)


nodes = [
    helper.make_node("MatMul", ["x", "w0"], ["a0"], name="a_mm0"),
    helper.make_node("Relu", ["a0"], ["a1"], name="a_relu"),
    helper.make_node("MatMul", ["a1", "w1"], ["a2"], name="a_mm1"),
    helper.make_node("Gemm", ["x", "w2"], ["b0"], name="b_mm0", transB=1),
    helper.make_node("Tanh", ["b0"], ["b1"], name="b_tanh"),
    helper.make_node("MatMul", ["b1", "w3"], ["b2"], name="b_mm1"),
    helper.make_node("Add", ["a2", "b2"], ["s"], name="join"),
    helper.make_node("Gemm", ["s", "g", "gb"], ["y"], name="gemm"),
    helper.make_node("Identity", ["x"], ["x_copy"], name="ident"),
]
graph = helper.make_graph(
    nodes, "branches",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 32])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 16]),
     helper.make_tensor_value_info("x_copy", TensorProto.FLOAT, [8, 32])],
    [weight("w0", 32, 64), weight("w1", 64, 48), weight("w2", 64, 32),
     weight("w3", 64, 48), weight("g", 48, 16), weight("gb", 16)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
