# Writes a small transformer block in the decomposed forms PyTorch exporters use (erf GELU, tanh GELU, attention as MatMul/Mul/Add/Softmax/MatMul, plus an opset-20 Gelu node) and onnxruntime's outputs for it.
"""Usage: gelu_attention_model.py MODEL.onnx DATA_DIR [--batch 2] [--seq 7]

Input `hidden` is [batch, seq, 16] and `mask` an additive padding mask
[batch, 1, 1, seq]. Two heads of 8: Q and V are split with Reshape +
Transpose [0, 2, 1, 3], K^T with Transpose [0, 2, 3, 1] (BERT's layout);
scores are scaled by Mul 1/sqrt(8), masked by Add, normalised by Softmax and
multiplied by V. Outputs: the BERT-style erf GELU of the merged heads'
projection, GPT-2's tanh GELU (Pow) of the same, and ONNX Gelu (tanh).
DATA_DIR gets input_<i>.pb and output_<i>.pb (onnxruntime's results).
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import hidden_mask_case

HIDDEN, HEADS = 16, 2
HEAD_DIM = HIDDEN // HEADS


def const(name, values, dtype=np.float32):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def build_model():
    rng = np.random.RandomState(0)
    weights = [numpy_helper.from_array(
        (rng.randn(HIDDEN, HIDDEN) / np.sqrt(HIDDEN)).astype(np.float32), name)
        for name in ("w_q", "w_k", "w_v", "w_o")]
    initializers = weights + [
        const("heads_shape", [0, 0, HEADS, HEAD_DIM], np.int64),
        const("merge_shape", [0, 0, HIDDEN], np.int64),
        const("scale", 1.0 / np.sqrt(HEAD_DIM)),
        const("sqrt2", 1.4142135381698608), const("one", 1.0),
        const("half", 0.5), const("three", 3.0), const("cube_coef", 0.044715),
        const("tanh_scale", 0.7978845608028654),
    ]
    n = helper.make_node
    nodes = [
        n("MatMul", ["hidden", "w_q"], ["q_flat"]),
        n("MatMul", ["hidden", "w_k"], ["k_flat"]),
        n("MatMul", ["hidden", "w_v"], ["v_flat"]),
        n("Reshape", ["q_flat", "heads_shape"], ["q_split"]),
        n("Reshape", ["k_flat", "heads_shape"], ["k_split"]),
        n("Reshape", ["v_flat", "heads_shape"], ["v_split"]),
        n("Transpose", ["q_split"], ["q"], perm=[0, 2, 1, 3]),
        n("Transpose", ["k_split"], ["k_t"], perm=[0, 2, 3, 1]),
        n("Transpose", ["v_split"], ["v"], perm=[0, 2, 1, 3]),
        n("MatMul", ["q", "k_t"], ["scores"]),
        n("Mul", ["scores", "scale"], ["scaled"]),
        n("Add", ["scaled", "mask"], ["masked"]),
        n("Softmax", ["masked"], ["probs"], axis=-1),
        n("MatMul", ["probs", "v"], ["context"]),
        n("Transpose", ["context"], ["context_t"], perm=[0, 2, 1, 3]),
        n("Reshape", ["context_t", "merge_shape"], ["merged"]),
        n("MatMul", ["merged", "w_o"], ["x"]),
        # erf GELU as BERT's TorchScript export writes it.
        n("Div", ["x", "sqrt2"], ["e_div"]),
        n("Erf", ["e_div"], ["e_erf"]),
        n("Add", ["e_erf", "one"], ["e_add"]),
        n("Mul", ["x", "e_add"], ["e_mul"]),
        n("Mul", ["e_mul", "half"], ["gelu_erf"]),
        # tanh GELU as GPT-2's export writes it.
        n("Mul", ["x", "half"], ["t_half"]),
        n("Pow", ["x", "three"], ["t_cube"]),
        n("Mul", ["t_cube", "cube_coef"], ["t_scaled_cube"]),
        n("Add", ["x", "t_scaled_cube"], ["t_inner"]),
        n("Mul", ["t_inner", "tanh_scale"], ["t_arg"]),
        n("Tanh", ["t_arg"], ["t_tanh"]),
        n("Add", ["t_tanh", "one"], ["t_add"]),
        n("Mul", ["t_half", "t_add"], ["gelu_tanh"]),
        n("Gelu", ["x"], ["gelu_onnx"], approximate="tanh"),
    ]
    dims = ["batch", "seq", HIDDEN]
    graph = helper.make_graph(
        nodes, "gelu_attention",
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, dims),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT,
                                       ["batch", 1, 1, "seq"])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
         for name in ("gelu_erf", "gelu_tanh", "gelu_onnx")],
        initializers)
    return helper.make_model(graph, producer_name="kiln-tests",
                             opset_imports=[helper.make_opsetid("", 20)],
                             ir_version=9)


if __name__ == "__main__":
    hidden_mask_case.main(build_model, HIDDEN, __doc__)
