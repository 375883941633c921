# Whole-model builders for gen_model.py: initializer encodings, Constant forms, broken files, external data, a large model.
import os

import numpy as np
import onnx
from onnx import TensorProto, external_data_helper, helper, numpy_helper

MODELS = {}


def model(function):
    MODELS[function.__name__.replace("_", "-")] = function
    return function


def _model(nodes, inputs, outputs, initializers=(), opset=17, ir_version=8):
    graph = helper.make_graph(
        nodes, "test", inputs,
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        list(initializers))
    return helper.make_model(graph, ir_version=ir_version,
                             opset_imports=[helper.make_opsetid("", opset)])


# Every supported element type; values include negatives and non-integers.
_TYPED_VALUES = [
    ("f32", TensorProto.FLOAT, [1.5, -2.0, 0.25, 3.0]),
    ("f16", TensorProto.FLOAT16, [1.5, -2.0, 0.25, 3.0]),
    ("bf16", TensorProto.BFLOAT16, [1.5, -2.0, 0.25, 3.0]),
    ("f64", TensorProto.DOUBLE, [1.5, -2.0, 0.25, 3.0]),
    ("i64", TensorProto.INT64, [1, -2, 3, -4]),
    ("i32", TensorProto.INT32, [1, -2, 3, -4]),
    ("i16", TensorProto.INT16, [1, -2, 3, -4]),
    ("i8", TensorProto.INT8, [1, -2, 3, -4]),
    ("u8", TensorProto.UINT8, [1, 2, 3, 250]),
    ("u16", TensorProto.UINT16, [1, 2, 3, 65000]),
    ("u32", TensorProto.UINT32, [1, 2, 3, 4000000000]),
    ("u64", TensorProto.UINT64, [1, 2, 3, 2**63 + 5]),
    ("bool", TensorProto.BOOL, [True, False, False, True]),
]


@model
def initializers(args):
    """Initializers of every element type returned as graph outputs.
    --variant typed (typed fields: float_data, int32_data, ...), raw
    (raw_data) or large (raw, 100 elements: dense_resource blobs)."""
    tensors = []
    for name, data_type, values in _TYPED_VALUES:
        if args.variant == "typed":
            tensors.append(helper.make_tensor(name, data_type, [2, 2], values))
            continue
        count = 100 if args.variant == "large" else 4
        shape = [count] if args.variant == "large" else [2, 2]
        if data_type == TensorProto.BFLOAT16:
            # No numpy bfloat16: take make_tensor's bit patterns as raw bytes.
            typed = helper.make_tensor(name, data_type, [count],
                                       np.resize(values, count).tolist())
            bits = np.array(typed.int32_data, dtype=np.uint16)
            tensor = helper.make_tensor(name, data_type, shape, bits.tobytes(),
                                        raw=True)
        else:
            np_type = helper.tensor_dtype_to_np_dtype(data_type)
            data = np.resize(np.array(values, dtype=np_type), count)
            tensor = numpy_helper.from_array(data.reshape(shape), name)
        tensors.append(tensor)
    return _model([], [], [t.name for t in tensors], tensors)


@model
def constants(args):
    """Constant nodes in every form; --variant sparse or string adds an
    unsupported one."""
    nodes = [
        helper.make_node("Constant", [], ["c_float"], name="c_float",
                         value_float=2.5),
        helper.make_node("Constant", [], ["c_floats"], name="c_floats",
                         value_floats=[1.0, 2.0]),
        helper.make_node("Constant", [], ["c_int"], name="c_int", value_int=7),
        helper.make_node("Constant", [], ["c_ints"], name="c_ints",
                         value_ints=[3, -1]),
        helper.make_node("Constant", [], ["c_tensor"], name="c_tensor",
                         value=numpy_helper.from_array(
                             np.array([[1, 2], [3, 4]], dtype=np.int32))),
        helper.make_node("Constant", [], ["c_big"], name="c_big",
                         value=numpy_helper.from_array(
                             np.arange(100, dtype=np.float32))),
    ]
    if args.variant == "sparse":
        sparse = helper.make_sparse_tensor(
            numpy_helper.from_array(np.array([1.0], dtype=np.float32)),
            numpy_helper.from_array(np.array([0], dtype=np.int64)), [4])
        nodes.append(helper.make_node("Constant", [], ["c_sparse"],
                                      name="c_sparse", sparse_value=sparse))
    if args.variant == "string":
        nodes.append(helper.make_node("Constant", [], ["c_string"],
                                      name="c_string", value_string="hi"))
    return _model(nodes, [], [n.output[0] for n in nodes])


@model
def passthrough(args):
    """IR-3 style: an initializer also listed as a graph input; graph outputs
    that are directly an input and an initializer; unnamed nodes."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    w = numpy_helper.from_array(np.full([4], 2.0, dtype=np.float32), "w")
    w_input = helper.make_tensor_value_info("w", TensorProto.FLOAT, [4])
    nodes = [helper.make_node("Add", ["x", "w"], ["s"]),
             helper.make_node("Relu", ["s"], ["r"])]
    return _model(nodes, [x, w_input], ["r", "x", "w"], [w], ir_version=3)


@model
def dropout(args):
    """Dropout (opset 13) whose mask output is named; --variant mask-used
    also returns the mask."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    ratio = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "ratio")
    node = helper.make_node("Dropout", ["x", "ratio"], ["y", "mask"],
                            name="drop")
    outputs = ["y", "mask"] if args.variant == "mask-used" else ["y"]
    return _model([node], [x], outputs, [ratio], opset=13)


@model
def unsorted(args):
    """Two nodes listed in the wrong order."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    nodes = [helper.make_node("Relu", ["t"], ["y"], name="second"),
             helper.make_node("Neg", ["x"], ["t"], name="first")]
    return _model(nodes, [x], ["y"])


def _small_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 16])
    w = numpy_helper.from_array(
        np.arange(256, dtype=np.float32).reshape(16, 16), "w")
    return _model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                  [x], ["y"], [w])


@model
def truncated(args):
    """A valid model cut off in the middle of its weights."""
    data = _small_model().SerializeToString()
    with open(args.output, "wb") as f:
        f.write(data[: len(data) // 2])


@model
def garbage(args):
    """A file that is not a protobuf message."""
    with open(args.output, "wb") as f:
        f.write(b"this is not an onnx model\n")


@model
def no_graph(args):
    """A ModelProto without a graph."""
    return onnx.ModelProto(ir_version=8)


@model
def external(args):
    """MatMul with its 16x16 weight in external data 'OUT.data' (at an offset
    behind 64 bytes of padding); --variant missing deletes the data file,
    short truncates it, unaligned puts the weight at offset 68 (not a multiple
    of 64: the importer copies it), mapped makes it y = x + w with w 8192
    floats at offset 4160 (large enough for the file slice to be
    memory-mapped, 64-byte aligned inside a page: the importer keeps it
    mapped)."""
    if args.variant == "mapped":
        w = numpy_helper.from_array(np.arange(8192, dtype=np.float32), "w")
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8192])
        m = _model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                   [x], ["y"], [w])
    else:
        m = _small_model()
    offset = {"unaligned": 68, "mapped": 4160}.get(args.variant, 64)
    location = os.path.basename(args.output) + ".data"
    data_path = os.path.join(os.path.dirname(os.path.abspath(args.output)),
                             location)
    weight = m.graph.initializer[0]
    raw = weight.raw_data
    with open(data_path, "wb") as f:
        f.write(b"\0" * offset + raw)
    external_data_helper.set_external_data(weight, location, offset=offset,
                                           length=len(raw))
    weight.ClearField("raw_data")
    weight.data_location = TensorProto.EXTERNAL
    if args.variant == "missing":
        os.remove(data_path)
    elif args.variant == "short":
        with open(data_path, "r+b") as f:
            f.truncate(64 + len(raw) // 2)
    return m


@model
def large(args):
    """y = x + w with one float initializer of --size-mb megabytes."""
    count = int(args.size_mb * 1024 * 1024 / 4)
    w = numpy_helper.from_array(
        (np.arange(count, dtype=np.float32) % 1000.0) * 0.001, "w")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [count])
    m = _model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
               [x], ["y"], [w])
    # onnx.save runs the checker on nothing here; write the bytes directly.
    with open(args.output, "wb") as f:
        f.write(m.SerializeToString())


def _write_external(m, output, names):
    """Moves the initializers |names| to OUT.data, 64-byte aligned."""
    location = os.path.basename(output) + ".data"
    path = os.path.join(os.path.dirname(os.path.abspath(output)), location)
    offset = 0
    with open(path, "wb") as f:
        for tensor in m.graph.initializer:
            if tensor.name not in names:
                continue
            raw = tensor.raw_data
            padding = (-offset) % 64
            f.write(b"\0" * padding)
            offset += padding
            f.write(raw)
            external_data_helper.set_external_data(tensor, location,
                                                   offset=offset,
                                                   length=len(raw))
            tensor.ClearField("raw_data")
            tensor.data_location = TensorProto.EXTERNAL
            offset += len(raw)


@model
def weight_transforms(args):
    """y = relu(x @ transpose(w1) + b1) @ (w2 * 0.5), x: [batch, 128]; w1
    [256, 128] and w2 [256, 96] are larger than constant folding's 64 KiB
    cap, so the transpose and the scaling are weight transforms for the init
    program. --variant external keeps w1 and w2 in 'OUT.data'."""
    w1 = numpy_helper.from_array(
        ((np.arange(256 * 128) % 17 - 8) / 64.0).astype(np.float32)
        .reshape(256, 128), "w1")
    b1 = numpy_helper.from_array(
        (np.arange(256) % 5 / 8.0).astype(np.float32), "b1")
    w2 = numpy_helper.from_array(
        ((np.arange(256 * 96) % 13 - 6) / 32.0).astype(np.float32)
        .reshape(256, 96), "w2")
    half = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 128])
    nodes = [
        helper.make_node("Transpose", ["w1"], ["w1t"], name="w1_t",
                         perm=[1, 0]),
        helper.make_node("MatMul", ["x", "w1t"], ["h"], name="fc1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="bias1"),
        helper.make_node("Relu", ["hb"], ["r"], name="relu1"),
        helper.make_node("Mul", ["w2", "half"], ["w2s"], name="scale_w2"),
        helper.make_node("MatMul", ["r", "w2s"], ["y"], name="fc2"),
    ]
    m = _model(nodes, [x], ["y"], [w1, b1, w2, half])
    if args.variant == "external":
        _write_external(m, args.output, {"w1", "w2"})
    return m


@model
def layer_chain(args):
    """--layers N identical layers y = relu(y @ w_i + b_i) over x: [8, 256],
    for the test that the activation arena does not grow with N."""
    layers = int(args.layers)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 256])
    nodes, inits, value = [], [], "x"
    for i in range(layers):
        inits.append(numpy_helper.from_array(
            ((np.arange(256 * 256) % 7 - 3) / 256.0).astype(np.float32)
            .reshape(256, 256), f"w{i}"))
        inits.append(numpy_helper.from_array(
            np.full(256, 0.01 * (i + 1), dtype=np.float32), f"b{i}"))
        nodes += [
            helper.make_node("MatMul", [value, f"w{i}"], [f"m{i}"],
                             name=f"fc{i}"),
            helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"],
                             name=f"bias{i}"),
            helper.make_node("Relu", [f"a{i}"], [f"y{i}"], name=f"relu{i}"),
        ]
        value = f"y{i}"
    return _model(nodes, [x], [value], inits)


@model
def conv_residual(args):
    """A bottleneck's end over x: [batch, 8, 6, 6]: r = relu(conv1(x) + b1),
    y = relu(conv2(r) + b2 + shortcut(x) + bs) where shortcut is a 1x1 conv
    with a bias, then z = conv3(y) (3x3, no bias) and out = relu(z)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                      ["batch", 8, 6, 6])

    def weight(name, *shape):
        values = (np.arange(np.prod(shape)) % 5 - 2) / 8.0
        return numpy_helper.from_array(
            values.astype(np.float32).reshape(shape), name)

    inits = [weight("w1", 8, 8, 3, 3), weight("b1", 8),
             weight("w2", 16, 8, 3, 3), weight("b2", 16),
             weight("ws", 16, 8, 1, 1), weight("bs", 16),
             weight("w3", 16, 16, 3, 3)]
    pads = [1, 1, 1, 1]
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=pads),
        n("Relu", ["c1"], ["r1"], name="relu1"),
        n("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", pads=pads),
        n("Conv", ["x", "ws", "bs"], ["s"], name="shortcut"),
        n("Add", ["c2", "s"], ["a"], name="add"),
        n("Relu", ["a"], ["y"], name="relu2"),
        n("Conv", ["y", "w3"], ["z"], name="conv3", pads=pads),
        n("Relu", ["z"], ["out"], name="relu3"),
    ]
    return _model(nodes, [x], ["out"], inits)


@model
def gemm_epilogues(args):
    """y = Gemm(Relu(Gemm(x, w1, b1)), w2, b2) + x over x: [batch, 16]: the
    relu and the residual add are cuBLASLt epilogues of the two Gemms."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])

    def weight(name, *shape):
        values = (np.arange(np.prod(shape)) % 7 - 3) / 16.0
        return numpy_helper.from_array(
            values.astype(np.float32).reshape(shape), name)

    n = helper.make_node
    nodes = [
        n("Gemm", ["x", "w1", "b1"], ["g1"], name="fc1"),
        n("Relu", ["g1"], ["h"], name="relu"),
        n("Gemm", ["h", "w2", "b2"], ["g2"], name="fc2"),
        n("Add", ["g2", "x"], ["y"], name="residual"),
    ]
    return _model(nodes, [x], ["y"], [weight("w1", 16, 16), weight("b1", 16),
                                      weight("w2", 16, 16), weight("b2", 16)])


@model
def bias_residual(args):
    """A pre-LayerNorm MLP over x: [batch, 4, 16] from MatMul + Add exports:
    y = x + (Relu(x @ w1 + b1) @ w2 + b2), z = Relu(y @ w3 + b3 + y). Each
    bias row and residual is one cuBLASLt call's bias and C (beta 1)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 16])

    def weight(name, *shape):
        values = (np.arange(np.prod(shape)) % 7 - 3) / 16.0
        return numpy_helper.from_array(
            values.astype(np.float32).reshape(shape), name)

    n = helper.make_node
    nodes = [
        n("MatMul", ["x", "w1"], ["p1"], name="fc1"),
        n("Add", ["p1", "b1"], ["g1"], name="fc1_bias"),
        n("Relu", ["g1"], ["h"], name="relu"),
        n("MatMul", ["h", "w2"], ["p2"], name="fc2"),
        n("Add", ["p2", "b2"], ["g2"], name="fc2_bias"),
        n("Add", ["x", "g2"], ["y"], name="residual"),
        n("MatMul", ["y", "w3"], ["p3"], name="fc3"),
        n("Add", ["b3", "p3"], ["g3"], name="fc3_bias"),
        n("Add", ["g3", "y"], ["s3"], name="residual3"),
        n("Relu", ["s3"], ["z"], name="relu3"),
    ]
    return _model(nodes, [x], ["z"], [weight("w1", 16, 32), weight("b1", 32),
                                      weight("w2", 32, 16), weight("b2", 16),
                                      weight("w3", 16, 16), weight("b3", 16)])


@model
def gemm_logits(args):
    """y = Relu(Gemm(x, w, b)) over x: [batch, 16], f32, n = 24: at
    --precision fp16 the cast of the result back to f32 joins the Gemm's
    cuBLASLt call (an f32 out and bias)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])
    w = numpy_helper.from_array(
        ((np.arange(16 * 24) % 5 - 2) / 8.0).astype(np.float32).reshape(16, 24),
        "w")
    b = numpy_helper.from_array(
        ((np.arange(24) % 3 - 1) / 4.0).astype(np.float32), "b")
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["g"], name="fc"),
             helper.make_node("Relu", ["g"], ["y"], name="relu")]
    return _model(nodes, [x], ["y"], [w, b])


@model
def transpose_relu_transpose(args):
    """y = Transpose(Relu(Transpose(x, perm 1,0,2)), perm 2,1,0) over x:
    [4, 8, 16]: a tiled transpose (it moves the innermost dim) whose producers
    include another transpose (issue 14's first repro)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8, 16])
    n = helper.make_node
    nodes = [n("Transpose", ["x"], ["t"], perm=[1, 0, 2], name="swap_outer"),
             n("Relu", ["t"], ["r"], name="relu"),
             n("Transpose", ["r"], ["y"], perm=[2, 1, 0], name="reverse")]
    return _model(nodes, [x], ["y"])


@model
def reduce_sum_max(args):
    """y = ReduceMax(ReduceSum(x, axes [2], keepdims), axes [0]) over x:
    [1, 4, 8]: a row reduction feeding a reduction over another axis of its
    result's shape (issue 14's second repro)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8])
    n = helper.make_node
    nodes = [n("ReduceSum", ["x", "sum_axes"], ["s"], keepdims=1, name="sum"),
             n("ReduceMax", ["s", "max_axes"], ["y"], keepdims=1, name="max")]
    return _model(nodes, [x], ["y"],
                  [numpy_helper.from_array(np.array([2], np.int64), "sum_axes"),
                   numpy_helper.from_array(np.array([0], np.int64), "max_axes")],
                  opset=18)
