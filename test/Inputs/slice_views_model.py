# Writes the slice-views model: q, k and v taken out of one projection by Gathers on its leading axis, which kiln reads in place (alias buffers at byte offsets) instead of copying.
"""Usage: slice_views_model.py MODEL.onnx
       slice_views_model.py --weight-slice MODEL.onnx

x [4, 64, 96] (f32) -> MatMul [96, 288] -> Reshape [4, 64, 3, 3, 32] ->
Transpose [2, 0, 3, 1, 4] -> qkv [3, 4, 3, 64, 32]; q, k, v = Gather 0, 1, 2
on axis 0 (each one contiguous range of qkv, 98304 bytes apart). Swin-V2's
cosine attention on them: q / max(ReduceL2(q), 1e-12) (two readers of q),
q @ Transpose(k), times a per-head logit scale [3, 1, 1], Softmax, @ v (one
attention kernel reading k and v in place). Outputs: `o`
[4, 3, 64, 32], `k` itself [4, 3, 64, 32] (a slice view returned), `rows`
= x2[1:3] @ w2 for x2 [5, 7] (its slice starts 28 bytes in, off the arena's
256-byte alignment, so it stays a kernel) and `qkv_t` [3, 4, 3, 64, 32], the
transposed projection itself: with a user that is not a slice the
transpose is written out and q, k and v are views of it (a transpose whose
every user is a slice would be split per piece instead).

--weight-slice: x [batch, 256] @ Gather(w [3, 256, 256], 1, axis 0), for a
ranged batch: the weight's slice is a view at an offset in an artifact with
run-time extents.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def build(rng):
    """The model and its inputs (uniform, never zero)."""
    def nonzero(shape, scale=1.0):
        x = rng.uniform(0.1, 1.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        return (x * scale).astype(np.float32)

    def const(name, values):
        return numpy_helper.from_array(np.asarray(values), name)

    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["proj"], name="qkv"),
        helper.make_node("Reshape", ["proj", "heads"], ["split"], name="split_heads"),
        helper.make_node("Transpose", ["split"], ["qkv_t"], perm=[2, 0, 3, 1, 4],
                         name="qkv_first"),
        helper.make_node("Gather", ["qkv_t", "i0"], ["q"], axis=0, name="take_q"),
        helper.make_node("Gather", ["qkv_t", "i1"], ["k"], axis=0, name="take_k"),
        helper.make_node("Gather", ["qkv_t", "i2"], ["v"], axis=0, name="take_v"),
        helper.make_node("ReduceL2", ["q"], ["q_norm"], axes=[-1], keepdims=1,
                         name="q_l2"),
        helper.make_node("Clip", ["q_norm", "eps"], ["q_norm_c"], name="q_clip"),
        helper.make_node("Div", ["q", "q_norm_c"], ["q_unit"], name="q_div"),
        helper.make_node("Transpose", ["k"], ["k_t"], perm=[0, 1, 3, 2], name="k_t"),
        helper.make_node("MatMul", ["q_unit", "k_t"], ["scores"], name="scores"),
        helper.make_node("Mul", ["scores", "logit_scale"], ["scaled"],
                         name="logit_scale"),
        helper.make_node("Softmax", ["scaled"], ["p"], axis=-1, name="softmax"),
        helper.make_node("MatMul", ["p", "v"], ["o"], name="attn_v"),
        helper.make_node("Slice", ["x2", "s0", "s1", "s_axes"], ["x2_rows"],
                         name="rows_1_to_3"),
        helper.make_node("MatMul", ["x2_rows", "w2"], ["rows"], name="rows_mm"),
    ]
    inits = [
        numpy_helper.from_array(nonzero((96, 288), 0.2), "w"),
        const("heads", np.array([4, 64, 3, 3, 32], np.int64)),
        const("i0", np.array(0, np.int64)),
        const("i1", np.array(1, np.int64)),
        const("i2", np.array(2, np.int64)),
        const("eps", np.array(1e-12, np.float32)),
        const("logit_scale", np.array([[[4.0]], [[7.0]], [[10.0]]], np.float32)),
        const("s0", np.array([1], np.int64)),
        const("s1", np.array([3], np.int64)),
        const("s_axes", np.array([0], np.int64)),
        numpy_helper.from_array(nonzero((7, 8)), "w2"),
    ]
    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "slice_views",
        [helper.make_tensor_value_info("x", f32, [4, 64, 96]),
         helper.make_tensor_value_info("x2", f32, [5, 7])],
        [helper.make_tensor_value_info("o", f32, [4, 3, 64, 32]),
         helper.make_tensor_value_info("k", f32, [4, 3, 64, 32]),
         helper.make_tensor_value_info("rows", f32, [2, 8]),
         helper.make_tensor_value_info("qkv_t", f32, [3, 4, 3, 64, 32])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, [nonzero((4, 64, 96)), nonzero((5, 7))]


def build_weight_slice(rng):
    """The --weight-slice model."""
    f32 = TensorProto.FLOAT
    nodes = [helper.make_node("Gather", ["w", "i1"], ["wk"], axis=0, name="take_w"),
             helper.make_node("MatMul", ["x", "wk"], ["o"], name="mm")]
    inits = [numpy_helper.from_array(np.array(1, np.int64), "i1"),
             numpy_helper.from_array(
                 rng.uniform(-1, 1, (3, 256, 256)).astype(np.float32), "w")]
    graph = helper.make_graph(
        nodes, "weight_slice",
        [helper.make_tensor_value_info("x", f32, ["batch", 256])],
        [helper.make_tensor_value_info("o", f32, ["batch", 256])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and
                                       sys.argv[1] != "--weight-slice"):
        sys.exit(__doc__)
    import onnx
    if len(sys.argv) == 3:
        onnx.save(build_weight_slice(np.random.RandomState(5)), sys.argv[2])
        sys.exit(0)
    model, _ = build(np.random.RandomState(23))
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, sys.argv[1])
