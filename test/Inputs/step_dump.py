# Edits and checks step dumps (kiln-run / kiln-interpret --dump-steps) for
# the lit tests of kiln-interpret --compare-steps.
"""Usage:
  step_dump.py names INSPECT.txt DUMP_DIR   the dump's kernel steps are the
                                            artifact's (kiln-inspect output)
  step_dump.py corrupt DUMP_DIR NODE        perturbs the output of the kernel
                                            step that computes ONNX node NODE
  step_dump.py rows DUMP_DIR OUT_DIR R,R    keeps rows R of every tensor whose
                                            dim 0 is the batch, as
                                            kiln-run --dump-rows writes them
"""
import json
import os
import re
import shutil
import sys

import numpy as np


def load(folder):
    with open(os.path.join(folder, "steps.json")) as f:
        return json.load(f)


def names(inspect, folder):
    text = open(inspect).read()
    main = text.split("entry 'main'")[1].split("entry '")[0]
    artifact = re.findall(r"step \d+: (?:Launch|Gemm|Conv) stream \d+ '([^']*)'", main)
    dumped = [s["name"] for s in load(folder)["steps"]
              if s["kind"] in ("launch", "gemm", "conv")]
    if artifact != dumped:
        sys.exit(f"artifact kernels {artifact}\n  differ from the dump's {dumped}")
    print(f"{len(dumped)} kernels, the same names in the same order")


def corrupt(folder, node):
    for step in load(folder)["steps"]:
        if node in step["onnx_nodes"]:
            path = os.path.join(folder, step["outputs"][0]["file"])
            values = np.load(path)
            flat = values.reshape(-1)
            flat[::7] += np.asarray(0.5 * np.abs(flat).max() + 0.5, flat.dtype)
            np.save(path, values)
            print(f"corrupted step {step['index']} '{step['name']}'")
            return
    sys.exit(f"no step computes {node}")


def rows(folder, out, spec):
    selected = [int(r) for r in spec.split(",")]
    index = load(folder)
    batch = index["batch"]
    shutil.rmtree(out, ignore_errors=True)
    for tensor in index["inputs"] + [o for s in index["steps"] for o in s["outputs"]]:
        values = np.load(os.path.join(folder, tensor["file"]))
        if values.ndim and values.shape[0] == batch:
            values = values[selected]
        os.makedirs(os.path.dirname(os.path.join(out, tensor["file"])), exist_ok=True)
        np.save(os.path.join(out, tensor["file"]), values)
        tensor["shape"] = list(values.shape)
    index["rows"] = selected
    with open(os.path.join(out, "steps.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"rows {spec} of batch {batch}")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"names": names, "corrupt": corrupt, "rows": rows}[command](*args)
