"""What the self-attention test models share (gelu_attention_model.py,
qkv_bias_model.py): inputs `hidden` [batch, seq, HIDDEN] and an additive
padding mask `mask` [batch, 1, 1, seq], the attention core as PyTorch's
exports write it, and the command line that writes the model and
onnxruntime's outputs for one random input as DATA_DIR/input_<i>.pb and
output_<i>.pb."""
import argparse
import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

HIDDEN, HEADS = 16, 2
HEAD_DIM = HIDDEN // HEADS


def const(name, values, dtype=np.float32):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def projection_weights(rng):
    """w_q, w_k, w_v and the output projection w_o, [HIDDEN, HIDDEN]."""
    return [numpy_helper.from_array(
        (rng.randn(HIDDEN, HIDDEN) / np.sqrt(HIDDEN)).astype(np.float32), name)
        for name in ("w_q", "w_k", "w_v", "w_o")]


def attention_constants():
    return [const("heads_shape", [0, 0, HEADS, HEAD_DIM], np.int64),
            const("merge_shape", [0, 0, HIDDEN], np.int64),
            const("scale", 1.0 / np.sqrt(HEAD_DIM))]


def attention_nodes(q_flat, k_flat, v_flat, output):
    """Heads split by Reshape + Transpose [0, 2, 1, 3] (K^T: [0, 2, 3, 1]),
    scores scaled by Mul 1/sqrt(HEAD_DIM), masked by Add, Softmax, the heads
    merged back and the output projection w_o into |output|."""
    n = helper.make_node
    return [
        n("Reshape", [q_flat, "heads_shape"], ["q_split"]),
        n("Reshape", [k_flat, "heads_shape"], ["k_split"]),
        n("Reshape", [v_flat, "heads_shape"], ["v_split"]),
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
        n("MatMul", ["merged", "w_o"], [output]),
    ]


def make_model(nodes, name, outputs, initializers, opset, ir_version):
    """The graph with inputs hidden and mask and the f32 |outputs|, all
    [batch, seq, HIDDEN]."""
    dims = ["batch", "seq", HIDDEN]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, dims),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT,
                                       ["batch", 1, 1, "seq"])],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, dims)
         for output in outputs],
        initializers)
    return helper.make_model(graph, producer_name="kiln-tests",
                             opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=ir_version)


def main(build_model, description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("model")
    parser.add_argument("data_dir")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=7)
    args = parser.parse_args()
    model = build_model()
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, args.model)

    rng = np.random.RandomState(1)
    hidden = rng.uniform(-2, 2, (args.batch, args.seq, HIDDEN)).astype(
        np.float32)
    # Padding: the last two positions of the second sequence are masked.
    mask = np.zeros((args.batch, 1, 1, args.seq), np.float32)
    mask[-1, ..., -2:] = np.finfo(np.float32).min
    session = onnxruntime.InferenceSession(
        args.model, providers=["CPUExecutionProvider"])
    inputs = [hidden, mask]
    outputs = session.run(None, {"hidden": hidden, "mask": mask})
    os.makedirs(args.data_dir, exist_ok=True)
    for kind, infos, values in (("input", session.get_inputs(), inputs),
                                ("output", session.get_outputs(), outputs)):
        for index, (info, value) in enumerate(zip(infos, values)):
            path = os.path.join(args.data_dir, f"{kind}_{index}.pb")
            with open(path, "wb") as f:
                f.write(numpy_helper.from_array(value, info.name)
                        .SerializeToString())
