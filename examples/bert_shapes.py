#!/usr/bin/env python3
# Writes examples/bert_shapes.onnx: BERT-style self-attention whose reshapes are computed from the dynamic `seq` dim (Shape->Gather->Unsqueeze->Concat->Reshape), and optionally onnxruntime reference data.
"""Usage: bert_shapes.py [--model bert_shapes.onnx] [--data-dir DIR] [--batch 2] [--seq 7]

Input `hidden` is [batch, seq, 64]. The model splits it into 4 heads of 16
with a shape built at run time from Shape(hidden), attends (scaled
dot-product softmax), merges the heads back with another computed shape,
adds a projection, and also returns the mean over `seq` computed as
ReduceSum / Cast(seq) - so every output depends on the shape arithmetic.
"""
import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from example_io import save_model, write_reference_data

HIDDEN, HEADS = 64, 4
HEAD_DIM = HIDDEN // HEADS


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def build_model():
    rng = np.random.RandomState(0)
    initializers = [
        const("zero", [0]), const("idx0", 0),
        const("idx1", 1), const("heads_dims", [HEADS, HEAD_DIM]),
        const("hidden_dim", [HIDDEN]), const("perm_axes", [1]),
        const("scale", 1.0 / np.sqrt(HEAD_DIM), np.float32),
        numpy_helper.from_array(
            (rng.randn(HIDDEN, HIDDEN) / np.sqrt(HIDDEN)).astype(np.float32),
            "w_out"),
    ]
    n = helper.make_node
    nodes = [
        # shape = [batch, seq, 64]; batch and seq as 1-element tensors.
        n("Shape", ["hidden"], ["shape"], name="shape"),
        n("Gather", ["shape", "idx0"], ["batch"], name="gather_batch", axis=0),
        n("Gather", ["shape", "idx1"], ["seq"], name="gather_seq", axis=0),
        n("Unsqueeze", ["batch", "zero"], ["batch_1"], name="unsqueeze_batch"),
        n("Unsqueeze", ["seq", "zero"], ["seq_1"], name="unsqueeze_seq"),
        # [batch, seq, 4, 16] -> [batch, 4, seq, 16]
        n("Concat", ["batch_1", "seq_1", "heads_dims"], ["split_shape"],
          name="concat_split", axis=0),
        n("Reshape", ["hidden", "split_shape"], ["split"], name="split_heads"),
        n("Transpose", ["split"], ["heads"], name="to_heads",
          perm=[0, 2, 1, 3]),
        n("Transpose", ["heads"], ["heads_t"], name="keys_t",
          perm=[0, 1, 3, 2]),
        n("MatMul", ["heads", "heads_t"], ["scores"], name="scores"),
        n("Mul", ["scores", "scale"], ["scaled"], name="scale"),
        n("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
        n("MatMul", ["probs", "heads"], ["context"], name="context"),
        n("Transpose", ["context"], ["merged_t"], name="from_heads",
          perm=[0, 2, 1, 3]),
        n("Concat", ["batch_1", "seq_1", "hidden_dim"], ["merge_shape"],
          name="concat_merge", axis=0),
        n("Reshape", ["merged_t", "merge_shape"], ["merged"],
          name="merge_heads"),
        n("MatMul", ["merged", "w_out"], ["projected"], name="projection"),
        n("Add", ["projected", "hidden"], ["output"], name="residual"),
        # Mean over seq with the divisor taken from the shape.
        n("ReduceSum", ["output", "perm_axes"], ["sum"], name="sum_seq",
          keepdims=1),
        n("Cast", ["seq"], ["seq_f"], name="seq_to_float",
          to=TensorProto.FLOAT),
        n("Div", ["sum", "seq_f"], ["pooled"], name="mean_seq"),
    ]
    graph = helper.make_graph(
        nodes, "bert_shapes",
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT,
                                       ["batch", "seq", HIDDEN])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT,
                                       ["batch", "seq", HIDDEN]),
         helper.make_tensor_value_info("pooled", TensorProto.FLOAT,
                                       ["batch", 1, HIDDEN])],
        initializers)
    return helper.make_model(graph, producer_name="kiln-examples",
                             opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--model", default=os.path.join(here, "bert_shapes.onnx"))
    parser.add_argument("--data-dir")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    save_model(build_model(), args.model)
    if args.data_dir:
        rng = np.random.RandomState(args.seed)
        shape = (args.batch, args.seq, HIDDEN)
        hidden = (rng.uniform(0.5, 1.5, shape) *
                  rng.choice([-1.0, 1.0], shape)).astype(np.float32)
        write_reference_data(args.model, [hidden], args.data_dir)


if __name__ == "__main__":
    main()
