# Builds the hostile models of the reliability tests: `hostile_models.py NAME OUT [--count N] [--variant V]`.
"""Hostile-model generator for kiln's reliability regression tests.

Each builder writes one small model (or tensor file) that once crashed kiln,
made it slow, or was accepted silently. `--help` lists them; `--count` sets
the size of the repeated ones (chains, many-input Max) and `--variant` picks
a form where a builder has several.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BUILDERS = {}
INT64_MAX = 2**63 - 1


def builder(function):
    BUILDERS[function.__name__.replace("_", "-")] = function
    return function


def _tensor(name, dims, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, dims)


def _model(nodes, inputs, outputs, initializers=(), opset=17, ir_version=8):
    graph = helper.make_graph(nodes, "hostile", inputs, outputs,
                              list(initializers))
    return helper.make_model(graph, ir_version=ir_version,
                             opset_imports=[helper.make_opsetid("", opset)])


@builder
def reshape_huge_rank(args):
    """Reshape whose shape input has the static length 2^62 (--variant N:
    2^N)."""
    length = 2**int(args.variant or 62)
    return _model([helper.make_node("Reshape", ["x", "shape"], ["y"],
                                    name="reshape")],
                  [_tensor("x", [2, 3]),
                   _tensor("shape", [length], TensorProto.INT64)],
                  [_tensor("y", None)])


@builder
def gru_huge_sequence(args):
    """GRU whose X dimension 0 (the sequence) is INT64_MAX (--variant N: N)."""
    length = int(args.variant or INT64_MAX)
    hidden, features = 2, 3
    weights = [
        numpy_helper.from_array(np.ones([1, 3 * hidden, features], np.float32), "W"),
        numpy_helper.from_array(np.ones([1, 3 * hidden, hidden], np.float32), "R"),
    ]
    return _model([helper.make_node("GRU", ["X", "W", "R"], ["Y", "Y_h"],
                                    name="gru", hidden_size=hidden)],
                  [_tensor("X", [length, 1, features])],
                  [_tensor("Y", None), _tensor("Y_h", None)], weights)


@builder
def scatternd_huge_indices(args):
    """ScatterND whose indices have shape [2^40, 2^40] (--variant one:
    [1, 2^40])."""
    rows = 1 if args.variant == "one" else 2**40
    return _model([helper.make_node("ScatterND", ["data", "indices", "updates"],
                                    ["y"], name="scatter")],
                  [_tensor("data", [4, 4]),
                   _tensor("indices", [rows, 2**40], TensorProto.INT64),
                   _tensor("updates", [rows])],
                  [_tensor("y", [4, 4])])


@builder
def unary_chain(args):
    """A chain of --count unary ops (Sin, Cos alternating) on x[4].
    --variant squeeze: x[?,4] goes through a Squeeze of a non-static axes
    input first, so no type after it is static."""
    nodes, inputs, previous = [], [_tensor("x", [4])], "x"
    if args.variant == "squeeze":
        inputs = [_tensor("x", ["n", 4]),
                  _tensor("axes", [1], TensorProto.INT64)]
        nodes.append(helper.make_node("Squeeze", ["x", "axes"], ["s"],
                                      name="squeeze"))
        previous = "s"
    for i in range(args.count):
        output = f"t{i}" if i + 1 < args.count else "y"
        nodes.append(helper.make_node("Sin" if i % 2 == 0 else "Cos",
                                      [previous], [output], name=f"op{i}"))
        previous = output
    return _model(nodes, inputs, [_tensor("y", None)])


@builder
def many_input_max(args):
    """Max of --count inputs x0..x{count-1}, each float[64]; --variant
    symbolic: each float[n<i>], a symbolic dim of its own."""
    names = [f"x{i}" for i in range(args.count)]
    dims = ([[f"n{i}"] for i in range(args.count)]
            if args.variant == "symbolic" else [[64]] * args.count)
    return _model([helper.make_node("Max", names, ["y"], name="max")],
                  [_tensor(name, d) for name, d in zip(names, dims)],
                  [_tensor("y", None)])


@builder
def tensor_file(args):
    """A TensorProto (.pb, not a model). --variant oversized (default):
    claims dims [2^31] of float32 but holds 16 bytes of raw data; typed: the
    same claim in float_data with 4 values; float4: a valid float32[4]."""
    tensor = TensorProto()
    tensor.name = "x"
    tensor.data_type = TensorProto.FLOAT
    if args.variant == "float4":
        tensor.dims.extend([4])
        tensor.float_data.extend([1.0, -2.0, 3.0, -4.0])
        return tensor
    tensor.dims.extend([2**31])
    if args.variant == "typed":
        tensor.float_data.extend([0.0] * 4)
    else:
        tensor.raw_data = bytes(16)
    return tensor


@builder
def oversized_unary(args):
    """One unary op on a huge input. --variant sigmoid: Sigmoid on
    [2^62,4,5]; acos: Acos on [INT64_MAX]."""
    op, dims = {"sigmoid": ("Sigmoid", [2**62, 4, 5]),
                "acos": ("Acos", [INT64_MAX])}[args.variant]
    return _model([helper.make_node(op, ["x"], ["y"], name=op.lower())],
                  [_tensor("x", dims)], [_tensor("y", None)])


@builder
def no_outputs(args):
    """A graph with a node and no graph outputs."""
    return _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                  [_tensor("x", [4])], [])


@builder
def duplicate_inputs(args):
    """Two graph inputs named X."""
    return _model([helper.make_node("Add", ["X", "X"], ["y"], name="add")],
                  [_tensor("X", [4]), _tensor("X", [4])], [_tensor("y", [4])])


@builder
def relu_versions(args):
    """A Relu model with --variant 'opset=N' or 'ir=N' (any integer)."""
    key, _, value = args.variant.partition("=")
    model = _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                   [_tensor("x", [4])], [_tensor("y", [4])])
    if key == "opset":
        model.opset_import[0].version = int(value)
    elif key == "ir":
        model.ir_version = int(value)
    else:
        raise SystemExit(f"relu-versions: unknown variant '{args.variant}'")
    return model


@builder
def unknown_attribute(args):
    """Relu with an attribute ONNX does not define ('alpha')."""
    return _model([helper.make_node("Relu", ["x"], ["y"], name="relu",
                                    alpha=0.5)],
                  [_tensor("x", [4])], [_tensor("y", [4])])


@builder
def weird_dim_name(args):
    """Relu on x['weird name!', 4] (--variant NAME: that dim name)."""
    return _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                  [_tensor("x", [args.variant or "weird name!", 4])], [_tensor("y", None)])


@builder
def corrupt_names(args):
    """Node, input and output names with non-printable bytes; the node's
    input names a value nobody produces, so the importer reports it."""
    return _model([helper.make_node("Add", ["x\x01", "gone\x7f\x1b"],
                                     ["y\x02"], name="node\x00\x07")],
                  [_tensor("x\x01", [4])], [_tensor("y\x02", [4])])


@builder
def pad_int32_pads(args):
    """Pad whose pads input is int32 instead of int64."""
    pads = numpy_helper.from_array(np.array([1, 1], np.int32), "pads")
    return _model([helper.make_node("Pad", ["x", "pads"], ["y"], name="pad")],
                  [_tensor("x", [4])], [_tensor("y", None)], [pads])


@builder
def two_inputs(args):
    """Add of graph inputs a and b."""
    return _model([helper.make_node("Add", ["a", "b"], ["y"], name="add")],
                  [_tensor("a", [4]), _tensor("b", [4])], [_tensor("y", [4])])


@builder
def newline_names(args):
    """Relu whose input 'in<newline>put<0xff>', output 'out<0xff>' and node
    'relu<newline><0xff>' hold a newline and a byte that is not UTF-8 (the
    bytes, not a ModelProto: protobuf's Python API takes only valid UTF-8)."""
    model = _model([helper.make_node("Relu", ["in\nput#"], ["out#"],
                                     name="relu\n#")],
                   [_tensor("in\nput#", [4])], [_tensor("out#", [4])])
    data = model.SerializeToString()
    assert data.count(b"#") == 5  # The placeholders, 1 byte like 0xff.
    return data.replace(b"#", b"\xff")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=sorted(BUILDERS))
    parser.add_argument("output")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--variant", default="")
    args = parser.parse_args()
    result = BUILDERS[args.model](args)
    with open(args.output, "wb") as out:
        out.write(result if isinstance(result, bytes)
                  else result.SerializeToString())


if __name__ == "__main__":
    sys.exit(main())
