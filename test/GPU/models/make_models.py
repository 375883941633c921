#!/usr/bin/env python3
# Writes the GPU bundle's end-to-end test models with onnxruntime reference data.
"""Usage: make_models.py OUTDIR

For each model: OUTDIR/<name>/model.onnx, OUTDIR/<name>/data/input_N.pb and
onnxruntime's OUTDIR/<name>/data/output_N.pb, plus OUTDIR/<name>/shape (the
--input-shape for kiln-compile). Inputs are random, never zero, fixed seeds.
A model compiled with a range has several data sets, data_<size>/, each run
with the one artifact.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "Inputs"))
from example_io import save_model, write_reference_data  # noqa: E402
import slice_views_model  # noqa: E402
import symbolic_dims_models  # noqa: E402


def value(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def finish(name, nodes, inputs, outputs, initializers, feeds, outdir, shape):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    write_model(name, model, feeds, outdir, shape)


def write_model(name, model, feeds, outdir, shape):
    """OUTDIR/NAME/model.onnx, its data/ (onnxruntime's outputs for |feeds|)
    and its shape file."""
    folder = os.path.join(outdir, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    save_model(model, path)
    write_reference_data(path, feeds, os.path.join(folder, "data"))
    with open(os.path.join(folder, "shape"), "w") as f:
        f.write(shape + "\n")


def nonzero(rng, shape, scale=1.0):
    x = rng.uniform(0.1, 1.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return (x * scale).astype(np.float32)


def pointwise_chain(outdir):
    """Broadcasting over a 4097-wide tail: ((x + b) * s - x) / (1 + |y|), tanh, sigmoid."""
    rng = np.random.RandomState(11)
    nodes = [
        helper.make_node("Add", ["x", "b"], ["t0"], name="add_bias"),
        helper.make_node("Mul", ["t0", "s"], ["t1"], name="scale"),
        helper.make_node("Sub", ["t1", "x"], ["t2"], name="sub_x"),
        helper.make_node("Abs", ["y"], ["t3"], name="abs_y"),
        helper.make_node("Add", ["t3", "one"], ["t4"], name="one_plus"),
        helper.make_node("Div", ["t2", "t4"], ["t5"], name="div"),
        helper.make_node("Tanh", ["t5"], ["t6"], name="tanh"),
        helper.make_node("Sigmoid", ["t6"], ["out"], name="sigmoid"),
    ]
    inits = [numpy_helper.from_array(np.array(1.0, np.float32), "one"),
             numpy_helper.from_array(np.array([0.75], np.float32), "s")]
    feeds = [nonzero(rng, (3, 4097)), nonzero(rng, (4097,)), nonzero(rng, (3, 1))]
    finish("pointwise_chain", nodes,
           [value("x", TensorProto.FLOAT, [3, 4097]),
            value("b", TensorProto.FLOAT, [4097]),
            value("y", TensorProto.FLOAT, [3, 1])],
           [value("out", TensorProto.FLOAT, [3, 4097])], inits, feeds, outdir, "")


def reductions(outdir):
    """Softmax over rows of 50257 and 128, and a LayerNorm-style normalisation."""
    rng = np.random.RandomState(12)
    nodes = [
        helper.make_node("Softmax", ["logits"], ["probs"], axis=-1, name="softmax_vocab"),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"], name="scale_scores"),
        helper.make_node("Softmax", ["scaled"], ["attn"], axis=-1, name="softmax_attn"),
        helper.make_node("ReduceMean", ["h"], ["mean"], axes=[-1], name="mean"),
        helper.make_node("Sub", ["h", "mean"], ["centered"], name="center"),
        helper.make_node("Mul", ["centered", "centered"], ["sq"], name="square"),
        helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1], name="variance"),
        helper.make_node("Add", ["var", "eps"], ["var_eps"], name="add_eps"),
        helper.make_node("Sqrt", ["var_eps"], ["std"], name="std"),
        helper.make_node("Div", ["centered", "std"], ["normed"], name="normalize"),
        helper.make_node("Mul", ["normed", "gamma"], ["g"], name="gamma"),
        helper.make_node("Add", ["g", "beta"], ["ln"], name="beta"),
        helper.make_node("ReduceSum", ["h", "last"], ["rowsum"], keepdims=0, name="rowsum"),
        helper.make_node("ReduceMax", ["h"], ["rowmax"], axes=[-1], keepdims=0, name="rowmax"),
    ]
    inits = [numpy_helper.from_array(np.array(0.125, np.float32), "scale"),
             numpy_helper.from_array(np.array(1e-5, np.float32), "eps"),
             numpy_helper.from_array(np.array([-1], np.int64), "last"),
             numpy_helper.from_array(nonzero(rng, (768,)), "gamma"),
             numpy_helper.from_array(nonzero(rng, (768,), 0.1), "beta")]
    feeds = [nonzero(rng, (2, 50257), 4.0), nonzero(rng, (4, 12, 128), 8.0),
             nonzero(rng, (16, 768), 2.0)]
    finish("reductions", nodes,
           [value("logits", TensorProto.FLOAT, [2, 50257]),
            value("scores", TensorProto.FLOAT, [4, 12, 128]),
            value("h", TensorProto.FLOAT, [16, 768])],
           [value("probs", TensorProto.FLOAT, [2, 50257]),
            value("attn", TensorProto.FLOAT, [4, 12, 128]),
            value("ln", TensorProto.FLOAT, [16, 768]),
            value("rowsum", TensorProto.FLOAT, [16]),
            value("rowmax", TensorProto.FLOAT, [16])], inits, feeds, outdir, "")


def branches(outdir):
    """Two independent branches from one input, joined at the end."""
    rng = np.random.RandomState(13)
    w1 = nonzero(rng, (256, 512), 0.1)
    w2 = nonzero(rng, (256, 512), 0.1)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["a0"], name="left_matmul"),
        helper.make_node("Relu", ["a0"], ["a1"], name="left_relu"),
        helper.make_node("Exp", ["a1"], ["a2"], name="left_exp"),
        helper.make_node("MatMul", ["x", "w2"], ["b0"], name="right_matmul"),
        helper.make_node("Sigmoid", ["b0"], ["b1"], name="right_sigmoid"),
        helper.make_node("Transpose", ["b1"], ["b2"], perm=[1, 0], name="right_transpose"),
        helper.make_node("Neg", ["b2"], ["b2n"], name="right_neg"),
        helper.make_node("Transpose", ["b2n"], ["b3"], perm=[1, 0], name="right_back"),
        helper.make_node("Add", ["a2", "b3"], ["out"], name="join"),
    ]
    inits = [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")]
    feeds = [nonzero(rng, (64, 256))]
    finish("branches", nodes, [value("x", TensorProto.FLOAT, [64, 256])],
           [value("out", TensorProto.FLOAT, [64, 512])], inits, feeds, outdir, "")


def data_movement(outdir):
    """Shape-arithmetic-free data movement: transpose, concat, slice, gather, expand."""
    rng = np.random.RandomState(14)
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1], name="transpose"),
        helper.make_node("Concat", ["xt", "xt"], ["cat"], axis=1, name="concat"),
        helper.make_node("Slice", ["cat", "starts", "ends", "axes", "steps"], ["sl"], name="slice"),
        helper.make_node("Gather", ["table", "ids"], ["emb"], axis=0, name="gather"),
        helper.make_node("Expand", ["row", "shape"], ["ex"], name="expand"),
        helper.make_node("Add", ["emb", "ex"], ["emb_row"], name="add_row"),
    ]
    inits = [numpy_helper.from_array(np.array([1], np.int64), "starts"),
             numpy_helper.from_array(np.array([130], np.int64), "ends"),
             numpy_helper.from_array(np.array([1], np.int64), "axes"),
             numpy_helper.from_array(np.array([3], np.int64), "steps"),
             numpy_helper.from_array(nonzero(rng, (1000, 64)), "table"),
             numpy_helper.from_array(np.array([7, 64], np.int64), "shape")]
    feeds = [nonzero(rng, (3, 33, 65)),
             rng.randint(-1000, 1000, size=(7,)).astype(np.int64),
             nonzero(rng, (1, 64))]
    finish("data_movement", nodes,
           [value("x", TensorProto.FLOAT, [3, 33, 65]),
            value("ids", TensorProto.INT64, [7]),
            value("row", TensorProto.FLOAT, [1, 64])],
           [value("sl", TensorProto.FLOAT, [3, 43, 33]),
            value("emb_row", TensorProto.FLOAT, [7, 64])], inits, feeds, outdir, "")


def conv_block(outdir):
    """ResNet-style f32 NCHW: a 7x7 stride-2 pad-3 stem, then two 3x3 pad-1
    convs with bias, ReLU and a residual add (cuDNN Conv steps)."""
    rng = np.random.RandomState(15)
    nodes = [
        helper.make_node("Conv", ["x", "w0", "b0"], ["s"], kernel_shape=[7, 7],
                         strides=[2, 2], pads=[3, 3, 3, 3], name="stem"),
        helper.make_node("Relu", ["s"], ["h"], name="stem_relu"),
        helper.make_node("Conv", ["h", "w1", "b1"], ["c1"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Add", ["c2", "h"], ["sum"], name="residual"),
        helper.make_node("Relu", ["sum"], ["out"], name="relu2"),
    ]
    inits = [numpy_helper.from_array(nonzero(rng, (16, 3, 7, 7), 0.15), "w0"),
             numpy_helper.from_array(nonzero(rng, (16,), 0.1), "b0"),
             numpy_helper.from_array(nonzero(rng, (16, 16, 3, 3), 0.08), "w1"),
             numpy_helper.from_array(nonzero(rng, (16,), 0.1), "b1"),
             numpy_helper.from_array(nonzero(rng, (16, 16, 3, 3), 0.08), "w2"),
             numpy_helper.from_array(nonzero(rng, (16,), 0.1), "b2")]
    feeds = [nonzero(rng, (2, 3, 32, 30))]
    finish("conv_block", nodes, [value("x", TensorProto.FLOAT, [2, 3, 32, 30])],
           [value("out", TensorProto.FLOAT, [2, 16, 16, 15])], inits, feeds,
           outdir, "")


def conv_grouped(outdir):
    """Grouped (dilated) and depthwise (stride 2) convs, then a 1x1 conv."""
    rng = np.random.RandomState(16)
    nodes = [
        helper.make_node("Conv", ["x", "wg", "bg"], ["g"], kernel_shape=[3, 3],
                         group=4, dilations=[2, 2], pads=[2, 2, 2, 2],
                         name="grouped"),
        helper.make_node("Conv", ["g", "wd", "bd"], ["d"], kernel_shape=[3, 3],
                         group=32, strides=[2, 2], pads=[1, 1, 1, 1],
                         name="depthwise"),
        helper.make_node("Conv", ["d", "wp"], ["out"], kernel_shape=[1, 1],
                         name="pointwise"),
    ]
    inits = [numpy_helper.from_array(nonzero(rng, (32, 4, 3, 3), 0.2), "wg"),
             numpy_helper.from_array(nonzero(rng, (32,), 0.1), "bg"),
             numpy_helper.from_array(nonzero(rng, (32, 1, 3, 3), 0.3), "wd"),
             numpy_helper.from_array(nonzero(rng, (32,), 0.1), "bd"),
             numpy_helper.from_array(nonzero(rng, (24, 32, 1, 1), 0.2), "wp")]
    feeds = [nonzero(rng, (2, 16, 13, 12))]
    finish("conv_grouped", nodes, [value("x", TensorProto.FLOAT, [2, 16, 13, 12])],
           [value("out", TensorProto.FLOAT, [2, 24, 7, 6])], inits, feeds,
           outdir, "")


def gemm_cast(outdir):
    """f16 MatMuls whose results are cast to f32: relu(x @ w + b) and y @ v,
    each one cuBLASLt call writing f32 (the cast fused; C/D 32F). Values
    are multiples of 1/8 (products of 1/64) and sums stay below 2^11/64, so
    onnxruntime's f16 arithmetic is exact and the f32 bounds hold."""
    rng = np.random.RandomState(17)

    def eighths(shape, scale):
        return (np.round(nonzero(rng, shape, scale) * 8) / 8).astype(np.float16)

    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["p"], name="fc"),
        helper.make_node("Add", ["p", "b"], ["pb"], name="bias"),
        helper.make_node("Relu", ["pb"], ["h"], name="relu"),
        helper.make_node("Cast", ["h"], ["out"], to=TensorProto.FLOAT,
                         name="cast"),
        helper.make_node("MatMul", ["y", "v"], ["q"], name="logits"),
        helper.make_node("Cast", ["q"], ["logits_f32"], to=TensorProto.FLOAT,
                         name="cast_logits"),
    ]
    inits = [numpy_helper.from_array(eighths((32, 24), 0.5), "w"),
             numpy_helper.from_array(eighths((24,), 1.0), "b"),
             numpy_helper.from_array(eighths((32, 40), 0.5), "v")]
    feeds = [eighths((8, 32), 1.0), eighths((8, 32), 1.0)]
    finish("gemm_cast", nodes, [value("x", TensorProto.FLOAT16, [8, 32]),
                                value("y", TensorProto.FLOAT16, [8, 32])],
           [value("out", TensorProto.FLOAT, [8, 24]),
            value("logits_f32", TensorProto.FLOAT, [8, 40])], inits, feeds,
           outdir, "")


def gemm_bias_residual(outdir):
    """A pre-LayerNorm block's projections from MatMul + Add exports over
    x: [2, 24, 64]: y = x + (Relu(x @ w1 + b1) @ w2 + b2) and
    z = Relu(y @ w3 + b3 + y). Each bias row and residual is one cuBLASLt
    call (the bias epilogue and C with beta 1, D = act(A B + C + bias)); m =
    48 rows, n = 64 and 96."""
    rng = np.random.RandomState(19)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["p1"], name="fc1"),
        helper.make_node("Add", ["p1", "b1"], ["g1"], name="fc1_bias"),
        helper.make_node("Relu", ["g1"], ["h"], name="relu"),
        helper.make_node("MatMul", ["h", "w2"], ["p2"], name="fc2"),
        helper.make_node("Add", ["p2", "b2"], ["g2"], name="fc2_bias"),
        helper.make_node("Add", ["x", "g2"], ["y"], name="residual"),
        helper.make_node("MatMul", ["y", "w3"], ["p3"], name="fc3"),
        helper.make_node("Add", ["b3", "p3"], ["g3"], name="fc3_bias"),
        helper.make_node("Add", ["g3", "y"], ["s3"], name="residual3"),
        helper.make_node("Relu", ["s3"], ["out"], name="relu3"),
    ]
    inits = [numpy_helper.from_array(nonzero(rng, (64, 96), 0.1), "w1"),
             numpy_helper.from_array(nonzero(rng, (96,), 0.5), "b1"),
             numpy_helper.from_array(nonzero(rng, (96, 64), 0.1), "w2"),
             numpy_helper.from_array(nonzero(rng, (64,), 0.5), "b2"),
             numpy_helper.from_array(nonzero(rng, (64, 64), 0.1), "w3"),
             numpy_helper.from_array(nonzero(rng, (64,), 0.5), "b3")]
    feeds = [nonzero(rng, (2, 24, 64))]
    finish("gemm_bias_residual", nodes,
           [value("x", TensorProto.FLOAT, [2, 24, 64])],
           [value("out", TensorProto.FLOAT, [2, 24, 64])], inits, feeds,
           outdir, "")


def conv_stem_fp16(outdir):
    """An f16 RGB stem (Conv 7x7 stride 2 pad 3, C = 3, bias, Relu) in NHWC
    through cuDNN with 3 channels. Inputs are multiples of
    1/4 up to 1, weights +-1/32, biases multiples of 1/8: every product and
    partial sum is exact in f16, so any summation order gives onnxruntime's
    result."""
    rng = np.random.RandomState(18)
    x = (rng.randint(1, 5, size=(2, 3, 40, 36)) / 4.0 *
         rng.choice([-1.0, 1.0], size=(2, 3, 40, 36))).astype(np.float16)
    w = (rng.choice([-1.0, 1.0], size=(16, 3, 7, 7)) / 32).astype(np.float16)
    b = (rng.randint(-4, 5, size=(16,)) / 8.0).astype(np.float16)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["s"], kernel_shape=[7, 7],
                         strides=[2, 2], pads=[3, 3, 3, 3], name="stem"),
        helper.make_node("Relu", ["s"], ["out"], name="stem_relu"),
    ]
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    finish("conv_stem_fp16", nodes,
           [value("x", TensorProto.FLOAT16, [2, 3, 40, 36])],
           [value("out", TensorProto.FLOAT16, [2, 16, 20, 18])], inits, [x],
           outdir, "")


def slice_views(outdir):
    """q, k and v read in place out of one projection (alias buffers at byte
    offsets of the transposed projection, itself an output,
    test/Inputs/slice_views_model.py): the norm, the attention and the copy
    into an output read them there."""
    model, feeds = slice_views_model.build(np.random.RandomState(23))
    write_model("slice_views", model, feeds, outdir, "")


def save_ranged_model(graph, outdir, name):
    """|graph| (a model of test/Inputs/symbolic_dims_models.py, opset 18) as
    OUTDIR/NAME/model.onnx; returns (the folder, the model's path)."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    folder = os.path.join(outdir, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    save_model(model, path)
    return folder, path


def ranged_movement(outdir):
    """Issue 18: the pointwise and data-movement model of
    test/Inputs/symbolic_dims_models.py (Add/Mul/Relu/Where/Cast/Transpose/
    Reshape/Gather/Concat/Slice/Sigmoid over [batch, ...]) compiled once with
    batch=1..64 and run at batch 1, 7, 32 and 64."""
    folder, path = save_ranged_model(symbolic_dims_models.movement(),
                                     outdir, "ranged_movement")
    rng = np.random.RandomState(18)
    for batch in (1, 7, 32, 64):
        feeds = [nonzero(rng, (batch, 4, 8)),
                 rng.randint(0, 50, size=(batch, 6)).astype(np.int64)]
        write_reference_data(path, feeds,
                             os.path.join(folder, "data_%d" % batch))
    with open(os.path.join(folder, "shape"), "w") as f:
        f.write("batch=1..64\n")


def ranged_encoder(outdir):
    """Issue 18: the encoder model of test/Inputs/symbolic_dims_models.py
    (the [batch, seq, ...] part of a BERT layer: embedding Gather,
    LayerNorms, the FFN's GEMMs, a transpose within the heads, a row sum and
    a slice) compiled once with batch=1..32,seq=16..512 and run at the
    issue's (batch, seq) pairs (1, 16), (1, 128), (8, 128), (8, 77) and
    (32, 512)."""
    folder, path = save_ranged_model(symbolic_dims_models.encoder(),
                                     outdir, "ranged_encoder")
    rng = np.random.RandomState(18)
    for batch, seq in ((1, 16), (1, 128), (8, 128), (8, 77), (32, 512)):
        feeds = [rng.randint(0, 100, size=(batch, seq)).astype(np.int64)]
        write_reference_data(path, feeds,
                             os.path.join(folder, "data_%dx%d" % (batch, seq)))
    with open(os.path.join(folder, "shape"), "w") as f:
        f.write("batch=1..32,seq=16..512\n")


def ranged_heads(outdir):
    """Issue 18: the heads model of test/Inputs/symbolic_dims_models.py (the
    parts of a BERT layer whose run-time extents are not a leading prefix:
    a [1, seq, 16] position table added to [batch, seq, 16], the head split
    and merge transposes [batch, seq, 4, 4] <-> [batch, 4, seq, 4], an
    additive mask and a Range(0, seq) term Expanded to Shape(ids), the
    pooler's x[:, 0]) compiled once with batch=1..32,seq=16..512, its
    kernels indexing seq by value, and run at the issue's (batch, seq)
    pairs; each mask has a different number of trailing zeros per row."""
    folder, path = save_ranged_model(symbolic_dims_models.heads(),
                                     outdir, "ranged_heads")
    rng = np.random.RandomState(18)
    for batch, seq in ((1, 16), (1, 128), (8, 128), (8, 77), (32, 512)):
        ids = rng.randint(0, 100, size=(batch, seq)).astype(np.int64)
        lengths = rng.randint(1, seq + 1, size=(batch, 1))
        mask = (np.arange(seq)[None, :] < lengths).astype(np.int64)
        write_reference_data(path, [ids, mask],
                             os.path.join(folder, "data_%dx%d" % (batch, seq)))
    with open(os.path.join(folder, "shape"), "w") as f:
        f.write("batch=1..32,seq=16..512\n")


def ranged_attention(outdir):
    """Issue 18: the attention model of test/Inputs/symbolic_dims_models.py
    (a BERT self-attention block: the merged Q/K/V projection, heads split
    by Reshape and Transposes, a padding mask, heads merged back, the output
    projection) compiled once with batch=1..32,seq=16..512, its attention
    kernel reading q, k and v and writing the merged heads by strides that
    are expressions of seq, and run at the issue's (batch, seq) pairs; each
    mask has a different number of trailing zeros per row."""
    folder, path = save_ranged_model(symbolic_dims_models.attention(),
                                     outdir, "ranged_attention")
    rng = np.random.RandomState(18)
    for batch, seq in ((1, 16), (1, 128), (8, 128), (8, 77), (32, 512)):
        x = rng.uniform(-1, 1, size=(batch, seq, 64)).astype(np.float32)
        lengths = rng.randint(1, seq + 1, size=(batch, 1))
        mask = (np.arange(seq)[None, :] < lengths).astype(np.int64)
        write_reference_data(path, [x, mask],
                             os.path.join(folder, "data_%dx%d" % (batch, seq)))
    with open(os.path.join(folder, "shape"), "w") as f:
        f.write("batch=1..32,seq=16..512\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    pointwise_chain(outdir)
    reductions(outdir)
    branches(outdir)
    data_movement(outdir)
    conv_block(outdir)
    conv_grouped(outdir)
    gemm_cast(outdir)
    gemm_bias_residual(outdir)
    conv_stem_fp16(outdir)
    slice_views(outdir)
    ranged_movement(outdir)
    ranged_encoder(outdir)
    ranged_heads(outdir)
    ranged_attention(outdir)


if __name__ == "__main__":
    main()
