# Writes the small BERT-like, CNN-like and movement-only ONNX models with symbolic dims that the lit tests compile with ranged --input-shape values.
"""Usage: symbolic_dims_models.py bert|cnn|movement|encoder|heads|attention MODEL.onnx

bert: ids [batch, seq] (int64) and mask [batch, seq] (float). Token
embedding Gather plus a position table sliced to seq by Shape -> Gather ->
Unsqueeze -> Slice, LayerNormalization, two heads of 8 (Q, K, V MatMul + Add,
heads split by a Reshape whose shape is built by Shape -> Gather -> Concat,
Transposes), scores scaled by Div, masked by Add of the Unsqueezed mask,
Softmax, heads merged by Reshape [0, 0, -1]. Outputs: `pooled` (Reshape
[-1, 16] -> Gemm to 4 -> ReduceMean over axis 1: [batch*seq]) and `doubled`
(Concat of the hidden state with itself on the seq axis: [batch, seq*2, 16]).

cnn: x [batch, 3, 16, 16]. Conv 8 3x3 pad 1, Relu, MaxPool 2x2 stride 2,
then `logits` (Flatten -> Gemm to 10 -> Softmax: [batch, 10]) and `features`
(GlobalAveragePool, Reshape to Concat(Shape(x)[0:1], [-1]): [batch, 8]).

movement: x [batch, 4, 8] (float) and ids [batch, 6] (int64), pointwise and
data-movement ops only: Add of a bias row [8], Mul by a column [4, 1], Relu,
Where(x > 0.25, y, -y), Cast to f16 and back, Transpose [0, 2, 1], Reshape
[-1, 32]; Gather of a table [50, 8] by ids, Reshape [0, 48]; Concat on axis
1, Slice [4:76] of axis 1, Sigmoid. Outputs: `y` [batch, 72] and `t`
(the transposed [batch, 8, 4]).

encoder: ids [batch, seq] (int64), the part of a BERT layer whose tensors
are [batch, seq, ...] with static trailing dims: token embedding Gather,
LayerNormalization, MatMul 16 -> 32 + bias, Relu, MatMul 32 -> 16 + bias,
residual Add, LayerNormalization (`hidden`, [batch, seq, 16]); the hidden
state's two heads of 8 Reshaped to [0, 0, 2, 8], Transposed [0, 1, 3, 2]
and Reshaped back, scaled by its ReduceSum over the last axis (keepdims) and
Sliced to its first 8 features (`mixed`, [batch, seq, 8]).

heads: ids and mask [batch, seq] (int64), the parts of a BERT layer whose
run-time extents are not a leading prefix (issue 18): the token embedding
plus a position table sliced to seq (`[1, seq, 16]` added to `[batch, seq,
16]`), heads of 4 split by a Reshape whose shape is built from Shape(ids)
and Transposed [0, 2, 1, 3] to [batch, 4, seq, 4], an additive mask
[batch, 1, seq, 1] from the mask input and a position term [batch, 1, seq,
1] from Range(0, seq) Expanded to Shape(ids), heads merged back
(`hidden`, [batch, seq, 16]) and the pooler's x[:, 0] (Gather of index 0
on the seq axis) through Tanh (`pooled`, [batch, 16]).

attention: x [batch, seq, 64] (float) and mask [batch, seq] (int64), a BERT
self-attention block as the dynamo exporter writes it: Q, K and V MatMul +
bias, heads of 16 split by a Reshape whose shape is built from Shape(x) and
Transposed (q and v [0, 2, 1, 3], k [0, 2, 3, 1]), scores scaled by Mul,
masked by Add of (1 - mask) * -10000 Unsqueezed to [batch, 1, 1, seq],
Softmax, the context Transposed back [0, 2, 1, 3], heads merged by a
Reshape to [batch, seq, 64] and the output projection MatMul + bias
(`hidden`, [batch, seq, 64]).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def weight(rng, name, *shape):
    return numpy_helper.from_array(
        rng.uniform(-0.5, 0.5, shape).astype(np.float32), name)


def qkv_heads(rng, source, width, inits, nodes):
    """q, k and v of |source| ([batch, seq, width]): a projection with bias
    each, split by "split_shape" into heads and transposed (k to [b, h, d,
    s], q and v to [b, h, s, d]); appends the weights and nodes."""
    n = helper.make_node
    for head, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]),
                       ("v", [0, 2, 1, 3])):
        inits += [weight(rng, f"w_{head}", width, width),
                  weight(rng, f"b_{head}", width)]
        nodes += [
            n("MatMul", [source, f"w_{head}"], [f"{head}_mm"], name=f"{head}_mm"),
            n("Add", [f"{head}_mm", f"b_{head}"], [f"{head}_flat"],
              name=f"{head}_bias"),
            n("Reshape", [f"{head}_flat", "split_shape"], [f"{head}_split"],
              name=f"{head}_split"),
            n("Transpose", [f"{head}_split"], [f"{head}_t"], name=f"{head}_t",
              perm=perm),
        ]


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def bert():
    rng = np.random.RandomState(0)
    n = helper.make_node
    inits = [weight(rng, "tokens", 100, 16), weight(rng, "positions", 512, 16),
             weight(rng, "ln_scale", 16), weight(rng, "ln_bias", 16),
             weight(rng, "w_pool", 16, 4), numpy_helper.from_array(
                 np.array(np.sqrt(8.0), dtype=np.float32), "sqrt_head"),
             ints("zero", [0]), ints("i0", 0), ints("i1", 1),
             ints("heads", [2, 8]), ints("merge", [0, 0, -1]),
             ints("flat", [-1, 16]), ints("mask_axes", [1, 2]),
             ints("mean_axes", [1])]
    nodes = [
        n("Gather", ["tokens", "ids"], ["embedded"], name="embed"),
        n("Shape", ["ids"], ["ids_shape"], name="ids_shape"),
        n("Gather", ["ids_shape", "i1"], ["seq"], name="seq_of"),
        n("Unsqueeze", ["seq", "zero"], ["seq_1d"], name="seq_1d"),
        n("Slice", ["positions", "zero", "seq_1d", "zero"], ["pos"],
          name="pos_slice"),
        n("Add", ["embedded", "pos"], ["summed"], name="add_pos"),
        n("LayerNormalization", ["summed", "ln_scale", "ln_bias"], ["h"],
          name="ln", axis=-1),
        n("Shape", ["h"], ["h_shape"], name="h_shape"),
        n("Gather", ["h_shape", "i0"], ["b"], name="batch_of"),
        n("Unsqueeze", ["b", "zero"], ["b_1d"], name="b_1d"),
        n("Concat", ["b_1d", "seq_1d", "heads"], ["split_shape"],
          name="split_shape", axis=0),
    ]
    qkv_heads(rng, "h", 16, inits, nodes)
    nodes += [
        n("MatMul", ["q_t", "k_t"], ["scores"], name="scores"),
        n("Div", ["scores", "sqrt_head"], ["scaled"], name="scale"),
        n("Unsqueeze", ["mask", "mask_axes"], ["mask_4d"], name="mask_4d"),
        n("Add", ["scaled", "mask_4d"], ["masked"], name="mask_add"),
        n("Softmax", ["masked"], ["probs"], name="softmax", axis=-1),
        n("MatMul", ["probs", "v_t"], ["context"], name="context"),
        n("Transpose", ["context"], ["context_t"], name="context_t",
          perm=[0, 2, 1, 3]),
        n("Reshape", ["context_t", "merge"], ["merged"], name="merge_heads"),
        n("Reshape", ["merged", "flat"], ["rows"], name="rows"),
        n("Gemm", ["rows", "w_pool"], ["projected"], name="pool_gemm"),
        n("ReduceMean", ["projected", "mean_axes"], ["pooled"],
          name="pool_mean", keepdims=0),
        n("Concat", ["merged", "merged"], ["doubled"], name="double_seq",
          axis=1),
    ]
    inputs = [
        helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "seq"]),
    ]
    outputs = [
        helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["rows"]),
        helper.make_tensor_value_info("doubled", TensorProto.FLOAT, ["batch", "seq2", 16]),
    ]
    return helper.make_graph(nodes, "bert_like", inputs, outputs, inits)


def cnn():
    rng = np.random.RandomState(1)
    n = helper.make_node
    inits = [weight(rng, "w_conv", 8, 3, 3, 3), weight(rng, "b_conv", 8),
             weight(rng, "w_fc", 512, 10), ints("minus_one", [-1])]
    nodes = [
        n("Conv", ["x", "w_conv", "b_conv"], ["c"], name="conv",
          pads=[1, 1, 1, 1]),
        n("Relu", ["c"], ["r"], name="relu"),
        n("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2],
          strides=[2, 2]),
        n("Flatten", ["p"], ["flat"], name="flatten", axis=1),
        n("Gemm", ["flat", "w_fc"], ["fc"], name="fc"),
        n("Softmax", ["fc"], ["logits"], name="softmax", axis=-1),
        n("GlobalAveragePool", ["p"], ["gap"], name="gap"),
        n("Shape", ["x"], ["batch_1d"], name="batch_of", start=0, end=1),
        n("Concat", ["batch_1d", "minus_one"], ["feature_shape"],
          name="feature_shape", axis=0),
        n("Reshape", ["gap", "feature_shape"], ["features"], name="features"),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            ["batch", 3, 16, 16])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10]),
               helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 8])]
    return helper.make_graph(nodes, "cnn_like", inputs, outputs, inits)


def movement():
    rng = np.random.RandomState(0)
    n = helper.make_node
    inits = [weight(rng, "bias", 8), weight(rng, "column", 4, 1),
             weight(rng, "table", 50, 8),
             numpy_helper.from_array(np.array(0.25, dtype=np.float32), "q"),
             ints("flat", [-1, 32]), ints("rows", [0, 48]), ints("start", [4]),
             ints("end", [76]), ints("axis1", [1])]
    nodes = [
        n("Add", ["x", "bias"], ["biased"], name="add"),
        n("Mul", ["biased", "column"], ["scaled"], name="mul"),
        n("Relu", ["scaled"], ["relu"], name="relu"),
        n("Greater", ["relu", "q"], ["big"], name="greater"),
        n("Neg", ["relu"], ["negated"], name="neg"),
        n("Where", ["big", "relu", "negated"], ["chosen"], name="where"),
        n("Cast", ["chosen"], ["half"], to=TensorProto.FLOAT16, name="to_half"),
        n("Cast", ["half"], ["rounded"], to=TensorProto.FLOAT, name="to_float"),
        n("Transpose", ["rounded"], ["t"], perm=[0, 2, 1], name="transpose"),
        n("Reshape", ["t", "flat"], ["flat_t"], name="flatten_t"),
        n("Gather", ["table", "ids"], ["embedded"], axis=0, name="gather"),
        n("Reshape", ["embedded", "rows"], ["flat_e"], name="flatten_e"),
        n("Concat", ["flat_t", "flat_e"], ["joined"], axis=1, name="concat"),
        n("Slice", ["joined", "start", "end", "axis1"], ["sliced"],
          name="slice"),
        n("Sigmoid", ["sliced"], ["y"], name="sigmoid"),
    ]
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 8]),
        helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", 6]),
    ]
    outputs = [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 72]),
        helper.make_tensor_value_info("t", TensorProto.FLOAT, ["batch", 8, 4]),
    ]
    return helper.make_graph(nodes, "movement", inputs, outputs, inits)


def encoder():
    rng = np.random.RandomState(0)
    n = helper.make_node
    inits = [weight(rng, "tokens", 100, 16), weight(rng, "ln_scale", 16),
             weight(rng, "ln_bias", 16), weight(rng, "w_in", 16, 32),
             weight(rng, "b_in", 32), weight(rng, "w_out", 32, 16),
             weight(rng, "b_out", 16), ints("heads", [0, 0, 2, 8]),
             ints("merge", [0, 0, 16]), ints("last", [-1]), ints("zero", [0]),
             ints("eight", [8]), ints("axis2", [2])]
    nodes = [
        n("Gather", ["tokens", "ids"], ["embedded"], name="embed"),
        n("LayerNormalization", ["embedded", "ln_scale", "ln_bias"], ["h"],
          name="ln_in", axis=-1),
        n("MatMul", ["h", "w_in"], ["up_mm"], name="up_mm"),
        n("Add", ["up_mm", "b_in"], ["up"], name="up_bias"),
        n("Relu", ["up"], ["act"], name="act"),
        n("MatMul", ["act", "w_out"], ["down_mm"], name="down_mm"),
        n("Add", ["down_mm", "b_out"], ["down"], name="down_bias"),
        n("Add", ["down", "h"], ["residual"], name="residual"),
        n("LayerNormalization", ["residual", "ln_scale", "ln_bias"],
          ["hidden"], name="ln_out", axis=-1),
        n("Reshape", ["hidden", "heads"], ["split"], name="split_heads"),
        n("Transpose", ["split"], ["swapped"], perm=[0, 1, 3, 2],
          name="swap_in_head"),
        n("Reshape", ["swapped", "merge"], ["merged"], name="merge_heads"),
        n("ReduceSum", ["hidden", "last"], ["total"], keepdims=1,
          name="row_total"),
        n("Mul", ["merged", "total"], ["scaled"], name="scale_rows"),
        n("Slice", ["scaled", "zero", "eight", "axis2"], ["mixed"],
          name="first_eight"),
    ]
    inputs = [
        helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"]),
    ]
    outputs = [
        helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "seq", 16]),
        helper.make_tensor_value_info("mixed", TensorProto.FLOAT, ["batch", "seq", 8]),
    ]
    return helper.make_graph(nodes, "encoder", inputs, outputs, inits)


def heads():
    rng = np.random.RandomState(0)
    n = helper.make_node
    inits = [weight(rng, "tokens", 100, 16), weight(rng, "positions", 512, 16),
             numpy_helper.from_array(np.arange(512, dtype=np.int64)[None, :],
                                     "position_ids"),
             ints("zero", [0]), ints("one", [1]), ints("two", [2]),
             ints("last", [-1]), ints("four", [4]), ints("sixteen", [16]),
             ints("mask_axes", [1, 3]), ints("row_axis", [0]),
             numpy_helper.from_array(np.array(0, dtype=np.int64), "start"),
             numpy_helper.from_array(np.array(1, dtype=np.int64), "step"),
             numpy_helper.from_array(np.array(0, dtype=np.int64), "first"),
             numpy_helper.from_array(np.array(1.0, dtype=np.float32), "unit"),
             numpy_helper.from_array(np.array(-8.0, dtype=np.float32),
                                     "masked"),
             numpy_helper.from_array(np.array(0.125, dtype=np.float32),
                                     "per_position")]
    nodes = [
        n("Shape", ["ids"], ["ids_shape"], name="ids_shape"),
        n("Slice", ["ids_shape", "zero", "one"], ["batch_dim"], name="batch_dim"),
        n("Slice", ["ids_shape", "one", "two"], ["seq_dim"], name="seq_dim"),
        n("Slice", ["position_ids", "zero", "seq_dim", "one"], ["pos_ids"],
          name="position_slice"),
        n("Gather", ["tokens", "ids"], ["embedded"], name="embed"),
        n("Gather", ["positions", "pos_ids"], ["positioned"],
          name="position_embed"),
        n("Add", ["embedded", "positioned"], ["x"], name="add_positions"),
        n("Concat", ["batch_dim", "seq_dim", "last", "four"], ["split_shape"],
          axis=0, name="split_shape"),
        n("Reshape", ["x", "split_shape"], ["split"], name="split_heads"),
        n("Transpose", ["split"], ["by_head"], perm=[0, 2, 1, 3],
          name="head_split"),
        n("Cast", ["mask"], ["mask_f"], to=TensorProto.FLOAT, name="mask_f"),
        n("Sub", ["unit", "mask_f"], ["inverted"], name="invert_mask"),
        n("Mul", ["inverted", "masked"], ["mask_bias"], name="mask_bias"),
        n("Unsqueeze", ["mask_bias", "mask_axes"], ["mask4"], name="mask4"),
        n("Squeeze", ["seq_dim", "row_axis"], ["seq_scalar"], name="seq_scalar"),
        n("Range", ["start", "seq_scalar", "step"], ["steps"], name="steps"),
        n("Unsqueeze", ["steps", "row_axis"], ["step_row"], name="step_row"),
        n("Expand", ["step_row", "ids_shape"], ["step_grid"], name="step_grid"),
        n("Cast", ["step_grid"], ["step_f"], to=TensorProto.FLOAT,
          name="step_f"),
        n("Mul", ["step_f", "per_position"], ["step_term"], name="step_term"),
        n("Unsqueeze", ["step_term", "mask_axes"], ["step4"], name="step4"),
        n("Add", ["by_head", "mask4"], ["masked_heads"], name="apply_mask"),
        n("Add", ["masked_heads", "step4"], ["shifted"], name="apply_steps"),
        n("Transpose", ["shifted"], ["by_position"], perm=[0, 2, 1, 3],
          name="head_merge"),
        n("Concat", ["batch_dim", "seq_dim", "sixteen"], ["merge_shape"],
          axis=0, name="merge_shape"),
        n("Reshape", ["by_position", "merge_shape"], ["hidden"],
          name="merge_heads"),
        n("Gather", ["hidden", "first"], ["first_token"], axis=1,
          name="select_first"),
        n("Tanh", ["first_token"], ["pooled"], name="pool"),
    ]
    inputs = [
        helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "seq"]),
    ]
    outputs = [
        helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "seq", 16]),
        helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", 16]),
    ]
    return helper.make_graph(nodes, "heads", inputs, outputs, inits)


def attention():
    rng = np.random.RandomState(0)
    n = helper.make_node
    inits = [ints("zero", [0]), ints("one", [1]), ints("two", [2]),
             ints("heads", [4, 16]), ints("width", [64]),
             ints("mask_axes", [1, 2]),
             numpy_helper.from_array(np.array(0.25, dtype=np.float32),
                                     "scale"),
             numpy_helper.from_array(np.array(1.0, dtype=np.float32), "unit"),
             numpy_helper.from_array(np.array(-10000.0, dtype=np.float32),
                                     "masked")]
    nodes = [
        n("Shape", ["x"], ["x_shape"], name="x_shape"),
        n("Slice", ["x_shape", "zero", "one"], ["batch_dim"], name="batch_dim"),
        n("Slice", ["x_shape", "one", "two"], ["seq_dim"], name="seq_dim"),
        n("Concat", ["batch_dim", "seq_dim", "heads"], ["split_shape"],
          axis=0, name="split_shape"),
        n("Concat", ["batch_dim", "seq_dim", "width"], ["merge_shape"],
          axis=0, name="merge_shape"),
    ]
    qkv_heads(rng, "x", 64, inits, nodes)
    inits += [weight(rng, "w_o", 64, 64), weight(rng, "b_o", 64)]
    nodes += [
        n("MatMul", ["q_t", "k_t"], ["scores"], name="scores"),
        n("Mul", ["scores", "scale"], ["scaled"], name="scale_scores"),
        n("Cast", ["mask"], ["mask_f"], to=TensorProto.FLOAT, name="mask_f"),
        n("Sub", ["unit", "mask_f"], ["inverted"], name="invert_mask"),
        n("Mul", ["inverted", "masked"], ["mask_bias"], name="mask_bias"),
        n("Unsqueeze", ["mask_bias", "mask_axes"], ["mask4"], name="mask4"),
        n("Add", ["scaled", "mask4"], ["masked_scores"], name="apply_mask"),
        n("Softmax", ["masked_scores"], ["probs"], name="softmax", axis=-1),
        n("MatMul", ["probs", "v_t"], ["context"], name="context"),
        n("Transpose", ["context"], ["context_t"], name="head_merge",
          perm=[0, 2, 1, 3]),
        n("Reshape", ["context_t", "merge_shape"], ["merged"],
          name="merge_heads"),
        n("MatMul", ["merged", "w_o"], ["out_mm"], name="out_mm"),
        n("Add", ["out_mm", "b_o"], ["hidden"], name="out_bias"),
    ]
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                      ["batch", "seq", 64]),
        helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "seq"]),
    ]
    outputs = [
        helper.make_tensor_value_info("hidden", TensorProto.FLOAT,
                                      ["batch", "seq", 64]),
    ]
    return helper.make_graph(nodes, "attention", inputs, outputs, inits)


def main():
    builders = {"bert": bert, "cnn": cnn, "movement": movement,
                "encoder": encoder, "heads": heads, "attention": attention}
    if len(sys.argv) != 3 or sys.argv[1] not in builders:
        sys.exit(__doc__)
    graph = builders[sys.argv[1]]()
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[2])


if __name__ == "__main__":
    main()
