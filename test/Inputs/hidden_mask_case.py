"""The command line of the test models that take `hidden` [batch, seq, H]
and an additive padding mask `mask` [batch, 1, 1, seq]
(gelu_attention_model.py, qkv_bias_model.py): writes the model and
onnxruntime's outputs for one random input as DATA_DIR/input_<i>.pb and
output_<i>.pb."""
import argparse
import os

import numpy as np
import onnx
import onnxruntime
from onnx import numpy_helper


def main(build_model, hidden_size, description):
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
    hidden = rng.uniform(-2, 2, (args.batch, args.seq, hidden_size)).astype(
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
