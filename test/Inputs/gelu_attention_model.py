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
from onnx import helper

import hidden_mask_case as case
from hidden_mask_case import const


def build_model():
    rng = np.random.RandomState(0)
    initializers = case.projection_weights(rng) + case.attention_constants() + [
        const("sqrt2", 1.4142135381698608), const("one", 1.0),
        const("half", 0.5), const("three", 3.0), const("cube_coef", 0.044715),
        const("tanh_scale", 0.7978845608028654),
    ]
    n = helper.make_node
    nodes = [
        n("MatMul", ["hidden", "w_q"], ["q_flat"]),
        n("MatMul", ["hidden", "w_k"], ["k_flat"]),
        n("MatMul", ["hidden", "w_v"], ["v_flat"]),
    ] + case.attention_nodes("q_flat", "k_flat", "v_flat", "x") + [
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
    return case.make_model(nodes, "gelu_attention",
                           ["gelu_erf", "gelu_tanh", "gelu_onnx"],
                           initializers, opset=20, ir_version=9)


if __name__ == "__main__":
    case.main(build_model, __doc__)
