# Saves a one-input, one-output ONNX graph and onnxruntime's output for it as test data.
"""save_with_reference(nodes, inits, name, x, out_model, data_dir): builds
the opset-17 model with input 'x' (x's shape, float) and output 'y', saves
it, and writes DATA_DIR/input_0.pb and output_0.pb (onnxruntime, CPU)."""
import os

import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper


def save_with_reference(nodes, inits, name, x, out_model, data_dir):
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, out_model)
    os.makedirs(data_dir, exist_ok=True)
    session = onnxruntime.InferenceSession(out_model,
                                           providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": x})
    for file, value in (("input_0", numpy_helper.from_array(x, "x")),
                        ("output_0", numpy_helper.from_array(y, "y"))):
        with open(os.path.join(data_dir, file + ".pb"), "wb") as out:
            out.write(value.SerializeToString())
