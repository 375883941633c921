"""Sessions on a CUDA device: numpy and torch (DLPack, zero-copy) inputs and
outputs against onnxruntime, the caller's stream, profiles and run errors.
Skipped without a device; the GPU bundle runs them (scripts/python-bundle.sh)."""

import numpy
import pytest

import kiln
from cases import MODELS, miss

pytestmark = pytest.mark.gpu


def _check(case, outputs):
    assert list(outputs) == list(case.expected)
    for name, expected in case.expected.items():
        actual = outputs[name]
        if hasattr(actual, "cpu"):
            actual = actual.cpu().numpy()
        assert actual.shape == expected.shape and actual.dtype == expected.dtype
        error = miss(actual, expected, case.rel_l2)
        assert error is None, f"{case.name} '{name}': {error}"


@pytest.mark.parametrize("name", sorted(name for name, case in MODELS.items()
                                         if "batches" not in case))
def test_numpy_against_onnxruntime(compiled_cases, name):
    case = compiled_cases(name)
    with kiln.load(case.artifact_path) as model:
        assert [s.name for s in model.inputs] == list(case.inputs)
        assert model.inputs == list(kiln.inspect(case.artifact_path).inputs)
        assert model.outputs == list(kiln.inspect(case.artifact_path).outputs)
        session = model.session()
        _check(case, session.run(case.inputs))
        # Feeds in input order work too, and a second run rebinds.
        _check(case, session.run(list(case.inputs.values())))


def test_ranged_batch_against_onnxruntime(compiled_cases):
    # One artifact for batch 1..16: each run takes its shapes from its inputs
    # and returns outputs of the shapes they give.
    case = compiled_cases("embedding_ranged")
    with kiln.load(case.artifact_path) as model:
        # The signature gives the range's largest shape.
        assert [s.shape for s in model.inputs] == [(16, 7)]
        session = model.session()
        for batch in (5, 1, 16, 5):
            inputs, expected = case.batches[batch]
            outputs = session.run(inputs)
            assert session.shape("ids") == (batch, 7)
            assert session.shape("embedded") == (batch, 7, 16)
            assert outputs["embedded"].shape == (batch, 7, 16)
            error = miss(outputs["embedded"], expected["embedded"], case.rel_l2)
            assert error is None, f"batch {batch}: {error}"
        # Outside the range: an error naming the input, the dim and the range,
        # and the session keeps its last shapes.
        with pytest.raises(kiln.InvalidArgumentError,
                           match=r"'ids'.*\(17, 7\).*'batch'.*outside its range 1\.\.16"):
            session.run({"ids": numpy.ones((17, 7), numpy.int64)})
        with pytest.raises(kiln.InvalidArgumentError, match=r"dim 1 .*7"):
            session.run({"ids": numpy.ones((4, 8), numpy.int64)})
        assert session.shape("ids") == (5, 7)
        inputs, expected = case.batches[1]
        assert miss(session.run(inputs)["embedded"], expected["embedded"], case.rel_l2) is None


def test_outputs_written_in_place(compiled_cases):
    case = compiled_cases("pointwise_fp32")
    session = kiln.load(case.artifact_path).session()
    # Poisoned, so that a run that writes nothing fails.
    y = numpy.full((3, 4097), numpy.nan, numpy.float32)
    outputs = session.run(case.inputs, outputs={"y": y})
    assert outputs["y"] is y
    _check(case, outputs)


def test_feed_errors(compiled_cases):
    case = compiled_cases("mlp_fp32")
    session = kiln.load(case.artifact_path).session()
    x = case.inputs["x"]
    with pytest.raises(kiln.InvalidArgumentError, match="missing"):
        session.run({})
    with pytest.raises(kiln.InvalidArgumentError, match="unknown"):
        session.run({"x": x, "y": x})
    with pytest.raises(kiln.InvalidArgumentError, match="shape"):
        session.run({"x": x[:2]})
    with pytest.raises(kiln.InvalidArgumentError, match="dtype"):
        session.run({"x": x.astype(numpy.float64)})
    with pytest.raises(kiln.InvalidArgumentError, match="unknown outputs"):
        session.run({"x": x}, outputs={"logits": x})
    with pytest.raises(kiln.InvalidArgumentError, match="entry point"):
        kiln.load(case.artifact_path).session("decode")
    # Still usable after the errors.
    _check(case, session.run({"x": x}))


def test_profile(compiled_cases):
    case = compiled_cases("mlp_fp32")
    model = kiln.load(case.artifact_path)
    session = model.session(profile=True)
    _check(case, session.run(case.inputs))
    profile = session.profile()
    assert profile.source == "cupti" or profile.source.startswith("events")
    assert len(profile.steps) >= 4
    gemms = [step for step in profile.steps if step.kind == "gemm"]
    assert len(gemms) == 3 and all(step.flops > 0 for step in gemms)
    assert all(step.duration_ms > 0 for step in profile.steps)
    assert profile.total_ms > 0
    assert "matmul_0" in profile.table()
    # Outside profile mode: the steps, without times.
    plain = model.session()
    plain.run(case.inputs)
    unprofiled = plain.profile()
    assert unprofiled.source is None
    assert [s.name for s in unprofiled.steps] == [s.name for s in profile.steps]
    assert all(step.duration_ms is None for step in unprofiled.steps)


def test_algorithm_cache_and_log(compiled_cases, tmp_path):
    case = compiled_cases("mlp_fp32")
    model = kiln.load(case.artifact_path)
    cache = tmp_path / "algorithms.cache"
    first = model.session(algorithm_cache=str(cache))
    _check(case, first.run(case.inputs))
    assert "matmul_add_relu_0" in first.algorithm_log
    assert cache.exists() and cache.stat().st_size > 0
    # A second session takes the choices from the cache: the same algorithms.
    second = model.session(algorithm_cache=str(cache))
    _check(case, second.run(case.inputs))
    first.run(case.inputs)
    assert [s.algorithm for s in second.profile().steps] == \
        [s.algorithm for s in first.profile().steps]


def test_debug_session(compiled_cases):
    case = compiled_cases("pointwise_fp32")
    session = kiln.load(case.artifact_path).session(debug=True, check_nan_inf=True)
    _check(case, session.run(case.inputs))


@pytest.mark.torch
def test_torch_tensors_zero_copy_on_the_current_stream(compiled_cases):
    import torch

    case = compiled_cases("mlp_fp16")
    session = kiln.load(case.artifact_path).session()
    x = torch.from_numpy(case.inputs["x"]).cuda()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        # Written on the side stream just before: DLPack orders it.
        y = torch.empty_like(x).copy_(x)
        outputs = session.run({"x": y}, as_torch=True)
    out = outputs["probabilities"]
    assert isinstance(out, torch.Tensor) and out.is_cuda
    assert out.dtype == torch.float32 and tuple(out.shape) == (8, 10)
    side.synchronize()
    _check(case, {"probabilities": out})


@pytest.mark.torch
def test_torch_outputs_in_place_on_a_given_stream(compiled_cases):
    import torch

    case = compiled_cases("pointwise_fp32")
    session = kiln.load(case.artifact_path).session()
    stream = torch.cuda.Stream()
    feeds = {name: torch.from_numpy(value).cuda() for name, value in case.inputs.items()}
    torch.cuda.synchronize()
    y = torch.full((3, 4097), float("nan"), device="cuda")
    z = torch.full((3, 4097), float("nan"), device="cuda")
    pointer = y.data_ptr()
    for given in (stream, stream.cuda_stream):
        outputs = session.run(feeds, stream=given, outputs={"y": y, "z": z})
        assert outputs["y"] is y and y.data_ptr() == pointer
        stream.synchronize()
        _check(case, outputs)
        y.fill_(float("nan"))


@pytest.mark.torch
def test_torch_integer_inputs(compiled_cases):
    import torch

    case = compiled_cases("embedding_fp32")
    session = kiln.load(case.artifact_path).session()
    ids = torch.from_numpy(case.inputs["ids"]).cuda()
    outputs = session.run({"ids": ids}, as_torch=True)
    torch.cuda.current_stream().synchronize()
    _check(case, outputs)


@pytest.mark.torch
def test_torch_errors(compiled_cases):
    import torch

    case = compiled_cases("mlp_fp32")
    session = kiln.load(case.artifact_path).session()
    x = torch.from_numpy(case.inputs["x"]).cuda()
    with pytest.raises(kiln.InvalidArgumentError, match="contiguous"):
        session.run({"x": torch.randn(64, 4, device="cuda").t()})
    with pytest.raises(kiln.InvalidArgumentError, match="dtype"):
        session.run({"x": x.half()})
    with pytest.raises(kiln.InvalidArgumentError, match="shape"):
        session.run({"x": x[:3]})
    # A CPU tensor is host memory, read like a numpy array.
    _check(case, session.run({"x": x.cpu()}))
