"""The ONNX models and compiled cases of the package's tests (not a test file
itself: pytest collects no test_ functions here). Inputs are seeded and never
zero; references come from onnxruntime, never from kiln."""

import os

import sys

import numpy
import onnx
from onnx import TensorProto, helper, numpy_helper

import kiln

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MLP_PATH = os.path.join(REPO, "examples", "mlp.onnx")


def _pointwise():
    """y = relu(a * b + a), z = sigmoid(b): two inputs and two outputs, 4097
    columns (a tail for vectorised kernels)."""
    shape = [3, 4097]
    nodes = [
        helper.make_node("Mul", ["a", "b"], ["ab"], name="mul"),
        helper.make_node("Add", ["ab", "a"], ["sum"], name="add"),
        helper.make_node("Relu", ["sum"], ["y"], name="relu"),
        helper.make_node("Sigmoid", ["b"], ["z"], name="sigmoid"),
    ]
    graph = helper.make_graph(
        nodes, "pointwise",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in "ab"],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in "yz"])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _embedding():
    """An int64 ids input gathered from a table, then scaled: i64 in, f32 out."""
    rng = numpy.random.RandomState(3)
    table = rng.randn(50, 16).astype(numpy.float32)
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["rows"], name="gather", axis=0),
        helper.make_node("Mul", ["rows", "scale"], ["embedded"], name="scale"),
    ]
    graph = helper.make_graph(
        nodes, "embedding",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", 7])],
        [helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["batch", 7, 16])],
        initializer=[numpy_helper.from_array(table, "table"),
                     numpy_helper.from_array(numpy.array(2.0, numpy.float32), "scale")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


BUILDERS = {"pointwise": _pointwise, "embedding": _embedding}

# Compiled cases: the model, kiln.compile's options, and the rel-L2 bound
# against onnxruntime (docs/testing.md: fp32 1e-4, fp16 1e-2).
MODELS = {
    "mlp_fp32": {"model": "mlp", "input_shapes": {"batch": 4}, "precision": "fp32",
                 "rel_l2": 1e-4},
    "mlp_fp16": {"model": "mlp", "input_shapes": {"x": (8, 64)}, "precision": "fp16",
                 "rel_l2": 1e-2},
    "pointwise_fp32": {"model": "pointwise", "precision": "fp32", "rel_l2": 1e-5},
    "embedding_fp32": {"model": "embedding", "input_shapes": {"batch": 2},
                       "precision": "fp32", "rel_l2": 1e-6},
    # One artifact for batch 1..16 (issue 18), run at each of "batches":
    # its references are per batch (the ranged dim is the inputs' first).
    "embedding_ranged": {"model": "embedding", "input_shapes": {"batch": "1..16"},
                         "precision": "fp32", "rel_l2": 1e-6, "batches": [1, 5, 16]},
}


def build_model(name, folder):
    """Writes ONNX model |name| ("mlp" is examples/mlp.onnx) into |folder|
    and returns its path."""
    path = os.path.join(folder, f"{name}.onnx")
    if name == "mlp":
        with open(MLP_PATH, "rb") as source, open(path, "wb") as target:
            target.write(source.read())
    elif not os.path.exists(path):
        onnx.save(BUILDERS[name](), path)
    return path


def make_inputs(specs, seed=1):
    """Seeded, non-zero inputs for TensorSpecs: floats ~ N(0, 1) away from 0,
    integers in [1, 49] (the embedding table has 50 rows)."""
    rng = numpy.random.RandomState(seed)
    inputs = {}
    for spec in specs:
        if spec.dtype.startswith("float"):
            values = rng.randn(*spec.shape)
            values[numpy.abs(values) < 1e-3] = 0.5
            inputs[spec.name] = values.astype(spec.dtype)
        else:
            inputs[spec.name] = rng.randint(1, 50, size=spec.shape).astype(spec.dtype)
    return inputs


def reference_outputs(model_path, options, info, batch=None):
    """(inputs, onnxruntime's outputs) for the artifact signature |info|, at
    |batch| in the inputs' first dim when given (a ranged artifact's
    signature has the range's largest)."""
    import dataclasses

    import onnxruntime

    specs = info.inputs
    if batch is not None:
        specs = [dataclasses.replace(spec, shape=(batch,) + tuple(spec.shape[1:]))
                 for spec in specs]
    inputs = make_inputs(specs, seed=1 if batch is None else batch)
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    values = session.run(names, inputs)
    return inputs, dict(zip(names, values))


def rel_l2(actual, expected):
    """||actual - expected|| / ||expected|| in float64; inf for NaN."""
    actual = numpy.asarray(actual, dtype=numpy.float64)
    expected = numpy.asarray(expected, dtype=numpy.float64)
    if not numpy.all(numpy.isfinite(actual)):
        return float("inf")
    return float(numpy.linalg.norm(actual - expected) / numpy.linalg.norm(expected))


def miss(actual, expected, limit):
    """Why |actual| is not within |limit| of |expected|, or None: its rel-L2
    at most |limit| and, as kiln-run --rel-l2 checks, every element within
    10 |limit| of the reference's peak (rel-L2 alone passes a large output
    with a few elements far off)."""
    error = rel_l2(actual, expected)
    if not error <= limit:
        return f"rel-L2 {error:.3g} > {limit:.3g}"
    difference = numpy.abs(numpy.asarray(actual, numpy.float64) - expected)
    peak = float(numpy.max(numpy.abs(expected))) if expected.size else 0.0
    worst = int(numpy.argmax(difference)) if difference.size else 0
    if difference.size and not difference.flat[worst] <= 10 * limit * peak:
        return (f"element {worst} off by {difference.flat[worst]:.3g}, "
                f"over 10 x {limit:.3g} of the peak {peak:.3g}")
    return None


def write_case(name, folder):
    """Compiles test model |name| into folder/name.kiln and writes
    folder/name.npz: its inputs and onnxruntime's outputs (the references)."""
    options = MODELS[name]
    model_path = build_model(options["model"], folder)
    artifact = kiln.compile(model_path, input_shapes=options.get("input_shapes"),
                            precision=options["precision"])
    artifact.save(os.path.join(folder, f"{name}.kiln"))
    arrays = {}
    # A ranged case's references per batch ("input@5:ids"), else one set.
    for batch in options.get("batches", [None]):
        inputs, outputs = reference_outputs(model_path, options, artifact.info, batch)
        at = "" if batch is None else f"@{batch}"
        arrays.update({f"input{at}:{k}": v for k, v in inputs.items()})
        arrays.update({f"output{at}:{k}": v for k, v in outputs.items()})
    numpy.savez(os.path.join(folder, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    # cases.py OUTDIR: every case compiled, with inputs and references (the
    # GPU bundle's KILN_PYTHON_TEST_DATA).
    for case in sorted(MODELS):
        write_case(case, sys.argv[1])
        print(f"{case}: {MODELS[case]}")
