"""kiln.inspect and the runtime's errors as exceptions: both need no GPU (the
runtime checks a file completely before it looks for a device)."""

import pytest

import kiln
from kiln import _library


def _bytes(case):
    with open(case.artifact_path, "rb") as file:
        return file.read()


def test_signature_entry_points_and_steps(compiled_cases):
    case = compiled_cases("mlp_fp32")
    info = kiln.inspect(case.artifact_path)
    assert info == kiln.inspect(_bytes(case))
    assert info.format_version == 1
    assert info.archs == ("sm_90",)
    assert info.source_model == "mlp.onnx"
    assert info.compiler_version.startswith("kiln ")
    assert [(s.name, s.dtype, s.shape, s.bytes) for s in info.inputs] == [
        ("x", "float32", (4, 64), 4 * 64 * 4)]
    assert [(s.name, s.shape) for s in info.outputs] == [("probabilities", (4, 10))]
    main = info.entry_point("main")
    assert main is info.entry_point()
    kinds = [step["kind"] for step in main.steps]
    assert kinds.count("gemm") == 3
    # Each step names the ONNX nodes it computes: all nine are there.
    nodes = {node for step in main.steps for node in step["onnx_nodes"]}
    assert {"matmul_0", "bias_0", "relu_0", "matmul_2", "softmax"} <= nodes
    assert info.weights > 0 and info.weight_arena_bytes > 0
    assert info.external_files == ()
    with pytest.raises(KeyError):
        info.entry_point("decode")


def test_several_inputs_and_outputs(compiled_cases):
    info = kiln.inspect(compiled_cases("pointwise_fp32").artifact_path)
    assert [s.name for s in info.inputs] == ["a", "b"]
    assert [s.name for s in info.outputs] == ["y", "z"]


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_damaged_artifact_is_data_loss(compiled_cases, tmp_path, damage):
    data = bytearray(_bytes(compiled_cases("mlp_fp32")))
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        del data[len(data) - 100:]
    path = tmp_path / "damaged.kiln"
    path.write_bytes(bytes(data))
    for call in (kiln.inspect, kiln.load):
        with pytest.raises(kiln.DataLossError) as raised:
            call(str(path))
        error = raised.value
        assert error.code == 3 and error.code_name == "DATA_LOSS"
        assert isinstance(error, kiln.KilnError)
        assert str(error).startswith("DATA_LOSS: ")
        assert error.message


def test_not_an_artifact(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"\x08\x07" + b"not a kiln artifact" * 10)
    with pytest.raises(kiln.KilnError) as raised:
        kiln.inspect(str(path))
    assert raised.value.code_name in ("DATA_LOSS", "INVALID_ARGUMENT")
    assert "magic" in raised.value.message or "artifact" in raised.value.message


def test_missing_artifact(tmp_path):
    with pytest.raises(kiln.NotFoundError) as raised:
        kiln.load(str(tmp_path / "absent.kiln"))
    assert raised.value.code == 2
    assert "absent.kiln" in raised.value.message
    assert isinstance(raised.value, FileNotFoundError)


def test_status_codes_map_to_classes():
    classes = set()
    for code, name in kiln.errors.STATUS_CODES.items():
        error = kiln.errors.error_for_status(code, "message")
        assert error.code == code and error.code_name == name
        assert isinstance(error, kiln.KilnError) and type(error) is not kiln.KilnError
        classes.add(type(error))
    assert len(classes) == len(kiln.errors.STATUS_CODES)
    assert isinstance(kiln.errors.error_for_status(1, "x"), ValueError)
    assert isinstance(kiln.errors.error_for_status(2, "x"), FileNotFoundError)
    assert isinstance(kiln.errors.error_for_status(6, "x"), MemoryError)
    assert type(kiln.errors.error_for_status(99, "x")) is kiln.KilnError


@pytest.mark.skipif(_library.cuda_device_count() > 0, reason="a CUDA device is present")
def test_load_without_a_device_is_unavailable(compiled_cases):
    with pytest.raises(kiln.UnavailableError) as raised:
        kiln.load(compiled_cases("mlp_fp32").artifact_path)
    assert raised.value.code == 5
    assert raised.value.message
