# Builds small ONNX models for kiln's importer tests: `gen_model.py NAME OUT.onnx [args]`.
"""Model generator for lit tests.

`node` builds a one-node model from flags, e.g.

    gen_model.py node out.onnx --op Softmax --opset 11 --in x:float:batch,3,4 \
        --attr axis=1

  --in NAME:TYPE:DIMS     graph input; DIMS are comma-separated ints, symbolic
                          names or '?' (unknown); empty for a scalar, '*'
                          for no shape (unranked)
  --init NAME:TYPE:DIMS=V initializer; V is comma-separated values (repeated
                          cyclically), 'range' or omitted (ones)
  --attr NAME=VALUE       node attribute (a Python literal: 1, 1.5, [1, 2], 'x')
  --inputs a,,b           node inputs in order (default: every --in, --init)
  --outputs y,mask        node outputs (default: y); graph outputs likewise
  --graph-outputs y       graph outputs (default: node outputs)

The other names build whole models; see `onnx_models.py` (`--help` lists them).
"""
import argparse
import ast
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_models  # noqa: E402

DTYPES = {
    "float": TensorProto.FLOAT, "f32": TensorProto.FLOAT,
    "float16": TensorProto.FLOAT16, "f16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16, "bf16": TensorProto.BFLOAT16,
    "double": TensorProto.DOUBLE, "f64": TensorProto.DOUBLE,
    "int64": TensorProto.INT64, "i64": TensorProto.INT64,
    "int32": TensorProto.INT32, "i32": TensorProto.INT32,
    "int16": TensorProto.INT16, "int8": TensorProto.INT8,
    "uint8": TensorProto.UINT8, "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64,
    "bool": TensorProto.BOOL, "string": TensorProto.STRING,
}


def parse_dims(text):
    """'batch,3' -> ['batch', 3]; '?' -> None (unknown); '' -> [] (scalar)."""
    dims = []
    for dim in filter(None, text.split(",")):
        if dim == "?":
            dims.append(None)
        elif dim.lstrip("-").isdigit():
            dims.append(int(dim))
        else:
            dims.append(dim)
    return dims


def parse_input(spec):
    name, dtype, dims = (spec.split(":") + ["", ""])[:3]
    shape = None if dims == "*" else parse_dims(dims)
    return helper.make_tensor_value_info(name, DTYPES[dtype], shape)


def parse_initializer(spec):
    head, _, values = spec.partition("=")
    name, dtype, dims = (head.split(":") + ["", ""])[:3]
    shape = [int(d) for d in filter(None, dims.split(","))]
    count = int(np.prod(shape)) if shape else 1
    np_type = helper.tensor_dtype_to_np_dtype(DTYPES[dtype])
    if values == "range":
        data = np.arange(count)
    elif values:
        data = np.resize(np.array(ast.literal_eval("[" + values + "]")), count)
    else:
        data = np.ones(count)
    return onnx.numpy_helper.from_array(
        data.astype(np_type).reshape(shape), name)


def build_node_model(args):
    inputs = [parse_input(s) for s in args.input]
    initializers = [parse_initializer(s) for s in args.init]
    node_inputs = (args.inputs.split(",") if args.inputs is not None else
                   [i.name for i in inputs] + [i.name for i in initializers])
    node_outputs = args.outputs.split(",")
    attributes = {}
    for spec in args.attr:
        key, _, value = spec.partition("=")
        attributes[key] = ast.literal_eval(value)
    node = helper.make_node(args.op, node_inputs, node_outputs,
                            name=args.name, domain=args.domain, **attributes)
    graph_outputs = (args.graph_outputs or args.outputs).split(",")
    graph = helper.make_graph(
        [node], "node_test", inputs,
        [helper.make_empty_tensor_value_info(o) for o in graph_outputs if o],
        initializers)
    opsets = [helper.make_opsetid("", args.opset)]
    if args.domain:
        opsets.append(helper.make_opsetid(args.domain, 1))
    return helper.make_model(graph, opset_imports=opsets,
                             ir_version=args.ir_version)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="node or one of: " +
                        ", ".join(sorted(onnx_models.MODELS)))
    parser.add_argument("output")
    parser.add_argument("--op")
    parser.add_argument("--name", default="node")
    parser.add_argument("--domain", default="")
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--ir-version", type=int, default=8)
    parser.add_argument("--in", dest="input", action="append", default=[])
    parser.add_argument("--init", action="append", default=[])
    parser.add_argument("--attr", action="append", default=[])
    parser.add_argument("--inputs")
    parser.add_argument("--outputs", default="y")
    parser.add_argument("--graph-outputs")
    parser.add_argument("--size-mb", type=float, default=1.0,
                        help="size of the 'large' model's initializer")
    parser.add_argument("--layers", type=int, default=2,
                        help="layer-chain: number of layers")
    parser.add_argument("--variant", default="",
                        help="model-specific variant (see onnx_models.py)")
    args = parser.parse_args()

    if args.model == "node":
        model = build_node_model(args)
    elif args.model in onnx_models.MODELS:
        model = onnx_models.MODELS[args.model](args)
    else:
        parser.error(f"unknown model '{args.model}'")
    if model is not None:  # None: the builder wrote the file itself.
        onnx.save(model, args.output)


if __name__ == "__main__":
    main()
