# Writes BERT's self-attention as its PyTorch export does it (Q, K and V each a MatMul plus an Add of a bias) and onnxruntime's outputs for it.
"""Usage: qkv_bias_model.py MODEL.onnx DATA_DIR [--batch 2] [--seq 7]

Input `hidden` is [batch, seq, 16] and `mask` an additive padding mask
[batch, 1, 1, seq]. Q = Add(b_q, MatMul(hidden, w_q)) (the bias first, as
TorchScript writes it), K = Add(MatMul(hidden, w_k), b_k), and V's bias is
a [1, 1, 16] row, so kiln-merge-projections joins rows of two ranks. Two
heads of 8 are split with Reshape + Transpose [0, 2, 1, 3] (K^T with
[0, 2, 3, 1]); scores are scaled by Mul 1/sqrt(8), masked by Add and
normalised by Softmax, and the merged heads go through the output
projection. Output: `context` [batch, seq, 16]. DATA_DIR gets input_<i>.pb
and output_<i>.pb (onnxruntime's results).
"""
import numpy as np
from onnx import helper

import hidden_mask_case as case
from hidden_mask_case import HIDDEN, const


def build_model():
    rng = np.random.RandomState(0)
    weights = case.projection_weights(rng)
    biases = [
        const("b_q", rng.uniform(-1, 1, HIDDEN)),
        const("b_k", rng.uniform(-1, 1, HIDDEN)),
        const("b_v", rng.uniform(-1, 1, (1, 1, HIDDEN))),
    ]
    initializers = weights + biases + case.attention_constants()
    n = helper.make_node
    nodes = [
        n("MatMul", ["hidden", "w_q"], ["q_product"]),
        n("Add", ["b_q", "q_product"], ["q_flat"]),
        n("MatMul", ["hidden", "w_k"], ["k_product"]),
        n("Add", ["k_product", "b_k"], ["k_flat"]),
        n("MatMul", ["hidden", "w_v"], ["v_product"]),
        n("Add", ["v_product", "b_v"], ["v_flat"]),
    ] + case.attention_nodes("q_flat", "k_flat", "v_flat", "context")
    return case.make_model(nodes, "qkv_bias", ["context"], initializers,
                           opset=17, ir_version=8)


if __name__ == "__main__":
    case.main(build_model, __doc__)
