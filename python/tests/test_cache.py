"""kiln.compile's cache_dir: a second compile of the same model and options is
read back, also without a compiler; anything else that changes misses."""

import os

import numpy
import onnx
import pytest

import kiln
from kiln import compiler

pytestmark = pytest.mark.compiler


def _unavailable():
    """kiln.compiler._compiler_module of a runtime-only installation."""
    raise kiln.CompilerUnavailableError("kiln._compiler is not installed")


def test_hit_without_a_compiler(model_path, tmp_path, monkeypatch):
    first = kiln.compile(model_path("mlp"), input_shapes={"batch": 2}, cache_dir=str(tmp_path))
    assert not first.cached
    assert len(list(tmp_path.glob("*.kiln"))) == 1
    monkeypatch.setattr(compiler, "_compiler_module", lambda: pytest.fail("compiled again"))
    again = kiln.compile(model_path("mlp"), input_shapes={"batch": 2}, cache_dir=str(tmp_path))
    assert again.cached and again.data == first.data
    assert again.inputs == first.inputs
    # KILN_CACHE_DIR is the default cache.
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    assert kiln.compile(model_path("mlp"), input_shapes={"batch": 2}).data == first.data


def test_other_options_or_model_miss(model_path, tmp_path, monkeypatch):
    kiln.compile(model_path("mlp"), input_shapes={"batch": 2}, cache_dir=str(tmp_path))
    monkeypatch.setattr(compiler, "_compiler_module", _unavailable)
    for options in ({"input_shapes": {"batch": 3}},
                    {"input_shapes": {"batch": 2}, "precision": "fp32"},
                    {"input_shapes": {"batch": 2}, "gpu_arch": "sm_80"}):
        with pytest.raises(kiln.CompilerUnavailableError, match="no artifact for this model"):
            kiln.compile(model_path("mlp"), cache_dir=str(tmp_path), **options)
    proto = onnx.load(model_path("mlp"))
    proto.graph.initializer[0].raw_data = numpy.ones(64 * 128, numpy.float32).tobytes()
    with pytest.raises(kiln.CompilerUnavailableError):
        kiln.compile(proto, input_shapes={"batch": 2}, cache_dir=str(tmp_path))


def test_external_data_is_part_of_the_key(tmp_path, monkeypatch):
    weight = numpy.random.RandomState(0).randn(16, 8).astype(numpy.float32)
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")], "external",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 16])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 8])],
        initializer=[onnx.numpy_helper.from_array(weight, "w")])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path, save_as_external_data=True, location="m.onnx.data",
              size_threshold=0)
    cache = str(tmp_path / "cache")
    artifact = kiln.compile(path, precision="fp32", external_weights=True, cache_dir=cache)
    cached = kiln.compile(path, precision="fp32", external_weights=True, cache_dir=cache)
    assert cached.cached and cached.external_data_dir == str(tmp_path)
    assert cached.data == artifact.data
    # The same graph bytes with other weights in the data file: a miss.
    with open(path + ".data", "r+b") as file:
        file.write(numpy.zeros(4, numpy.float32).tobytes())
    monkeypatch.setattr(compiler, "_compiler_module", _unavailable)
    with pytest.raises(kiln.CompilerUnavailableError):
        kiln.compile(path, precision="fp32", external_weights=True, cache_dir=cache)
    assert len([name for name in os.listdir(cache) if name.endswith(".kiln")]) == 1


@pytest.mark.torch
def test_torch_export_is_kept_with_external_weights(tmp_path):
    import torch

    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.ReLU())
    x = torch.randn(3, 32)
    first = kiln.compile(module, example_inputs=(x,), precision="fp32",
                         external_weights=True, cache_dir=str(tmp_path))
    exports = list((tmp_path / "exports").iterdir())
    assert len(exports) == 1
    assert sorted(p.name for p in exports[0].iterdir()) == ["model.onnx", "model.onnx.data"]
    assert first.external_data_dir == str(exports[0])
    again = kiln.compile(module, example_inputs=(x,), precision="fp32",
                         external_weights=True, cache_dir=str(tmp_path))
    assert again.cached and again.data == first.data
    assert again.external_data_dir == str(exports[0])
