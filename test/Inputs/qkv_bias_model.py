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
    biases = [
        const("b_q", rng.uniform(-1, 1, HIDDEN)),
        const("b_k", rng.uniform(-1, 1, HIDDEN)),
        const("b_v", rng.uniform(-1, 1, (1, 1, HIDDEN))),
    ]
    initializers = weights + biases + [
        const("heads_shape", [0, 0, HEADS, HEAD_DIM], np.int64),
        const("merge_shape", [0, 0, HIDDEN], np.int64),
        const("scale", 1.0 / np.sqrt(HEAD_DIM)),
    ]
    n = helper.make_node
    nodes = [
        n("MatMul", ["hidden", "w_q"], ["q_product"]),
        n("Add", ["b_q", "q_product"], ["q_flat"]),
        n("MatMul", ["hidden", "w_k"], ["k_product"]),
        n("Add", ["k_product", "b_k"], ["k_flat"]),
        n("MatMul", ["hidden", "w_v"], ["v_product"]),
        n("Add", ["v_product", "b_v"], ["v_flat"]),
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
        n("MatMul", ["probs", "v"], ["heads"]),
        n("Transpose", ["heads"], ["heads_t"], perm=[0, 2, 1, 3]),
        n("Reshape", ["heads_t", "merge_shape"], ["merged"]),
        n("MatMul", ["merged", "w_o"], ["context"]),
    ]
    dims = ["batch", "seq", HIDDEN]
    graph = helper.make_graph(
        nodes, "qkv_bias",
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, dims),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT,
                                       ["batch", 1, 1, "seq"])],
        [helper.make_tensor_value_info("context", TensorProto.FLOAT, dims)],
        initializers)
    return helper.make_model(graph, producer_name="kiln-tests",
                             opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8)


if __name__ == "__main__":
    hidden_mask_case.main(build_model, HIDDEN, __doc__)
