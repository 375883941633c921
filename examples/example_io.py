# Shared helpers of the example model scripts: saving a model and writing onnxruntime reference data.
import os

import numpy as np
import onnx
from onnx import numpy_helper


def save_model(model, path):
    """Checks (full_check runs ONNX shape inference) and writes |model|."""
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def write_reference_data(model_path, inputs, data_dir):
    """Writes input_<i>.pb and onnxruntime's output_<i>.pb into |data_dir|
    (the layout of ONNX's test_data_set_N folders)."""
    import onnxruntime

    os.makedirs(data_dir, exist_ok=True)
    session = onnxruntime.InferenceSession(
        model_path, providers=["CPUExecutionProvider"])
    feeds = {i.name: value for i, value in zip(session.get_inputs(), inputs)}
    outputs = session.run(None, feeds)
    for kind, names, values in (
            ("input", [i.name for i in session.get_inputs()], inputs),
            ("output", [o.name for o in session.get_outputs()], outputs)):
        for index, (name, value) in enumerate(zip(names, values)):
            assert np.all(np.isfinite(value)), f"{kind} {name} is not finite"
            path = os.path.join(data_dir, f"{kind}_{index}.pb")
            with open(path, "wb") as f:
                f.write(numpy_helper.from_array(value, name).SerializeToString())
            print(f"wrote {path} {name} {list(value.shape)}")
    return outputs
