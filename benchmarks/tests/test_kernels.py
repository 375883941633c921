"""benchmarks/kernels.py: the attention cases' graphs compile to the one
flash kernel they are meant to time, and the seeded inputs and reference
are what the GPU run checks against."""
import os
import subprocess
import sys

import numpy as np
import pytest

BENCHMARKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(BENCHMARKS)
sys.path.insert(0, BENCHMARKS)
import kernels  # noqa: E402

BUILD = os.environ.get("KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build"))


def test_attention_cases_count_the_keys_each_row_attends():
    table = kernels.cases()
    inputs, moved, flops = table["attention_bert"]
    assert inputs == {"q": [8, 12, 128, 64], "k": [8, 12, 128, 64],
                      "v": [8, 12, 128, 64], "mask": [8, 1, 1, 128]}
    assert flops == 4 * 8 * 12 * 128 * 128 * 64
    inputs, moved, flops = table["attention_gpt2"]
    assert "mask" not in inputs  # a constant of the graph
    assert flops == 4 * 12 * (1024 * 1025 // 2) * 64
    assert moved == 2 * 4 * 12 * 1024 * 64


def test_attention_inputs_mask_the_last_keys_of_odd_batch_rows():
    tensors = kernels.attention_inputs("attention_bert", np.random.RandomState(1))
    mask = tensors["mask"]
    assert mask.shape == (8, 1, 1, 128) and mask.dtype == np.float16
    assert (mask[0::2] == 0).all()
    assert (mask[1::2, ..., :112] == 0).all()
    assert (mask[1::2, ..., 112:] == kernels.MASKED).all()
    causal = kernels.causal_mask(4)[0, 0]
    assert (causal[np.tril_indices(4)] == 0).all()
    assert (causal[np.triu_indices(4, 1)] == kernels.MASKED).all()


@pytest.mark.skipif(not os.path.exists(os.path.join(BUILD, "bin", "kiln-compile")),
                    reason="kiln-compile is not built")
def test_attention_cases_compile_to_one_flash_kernel(tmp_path):
    kernels.make(str(tmp_path), prefixes=["attention"], build=BUILD)
    for name, mask in [("attention_bert", "F16[8x1x1x128]"), ("attention_gpt2", None)]:
        listing = subprocess.run(
            [os.path.join(BUILD, "bin", "kiln-inspect"), str(tmp_path / (name + ".kiln"))],
            capture_output=True, text=True, check=True).stdout
        steps = [line for line in listing.splitlines() if line.strip().startswith("step ")]
        assert len(steps) == 1 and "'attention_0'" in steps[0], listing
        if mask:
            assert f"input 3 'mask': {mask}" in listing
        else:  # the causal mask is known at compile time: not an input
            assert "'mask'" not in listing


@pytest.mark.skipif(not os.path.exists(os.path.join(BUILD, "bin", "kiln-interpret")),
                    reason="kiln-interpret is not built")
@pytest.mark.parametrize("case", ["gelu_bert", "layernorm_bert", "gemm_proj",
                                  "dwconv3_c96_s2", "dwconv5_c240_s2"])
def test_reference_agrees_with_the_cpu_evaluator(case, tmp_path):
    # `run` checks kiln's GPU output against reference_output before timing
    # it: the reference must compute what the case's graph does. kiln's CPU
    # evaluator (the ONNX node tests' interpreter) runs the same model.
    from onnx import numpy_helper
    import onnx
    inputs, _, _ = kernels.cases()[case]
    model = kernels.case_model(case, inputs, np.random.RandomState(0))
    onnx.save(model, str(tmp_path / "model.onnx"))
    rng = np.random.RandomState(3)
    tensors = {i: rng.uniform(-1, 1, shape).astype(np.float16)
               for i, shape in inputs.items()}
    files = []
    for name, tensor in tensors.items():
        files.append(str(tmp_path / (name + ".npy")))
        np.save(files[-1], tensor)
    subprocess.run([os.path.join(BUILD, "bin", "kiln-interpret"),
                    str(tmp_path / "model.onnx"), "--inputs", ",".join(files),
                    "--output-dir", str(tmp_path)], check=True,
                   capture_output=True)
    evaluated = np.load(tmp_path / "output_0.npy").astype(np.float32)
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    reference = kernels.reference_output(case, tensors, inits)
    assert reference.shape == evaluated.shape
    error = np.linalg.norm(reference - evaluated) / np.linalg.norm(reference)
    assert error < 2e-3, error


def test_check_output_fails_a_few_wrong_elements_that_rel_l2_lets_through():
    rng = np.random.RandomState(2)
    reference = rng.uniform(-1, 1, (16384, 64)).astype(np.float32)
    close = (reference + rng.uniform(-1e-3, 1e-3, reference.shape)).astype(np.float16)
    assert "error" not in kernels.check_output(close, reference)
    wrong = close.copy()
    wrong[-1] = 0  # one row of 16384 not written: rel-L2 1 / 128
    checked = kernels.check_output(wrong, reference)
    assert checked["kiln_rel_l2"] < 1e-2
    assert checked["kiln_elements_outside_tolerance"] > 50 and "error" in checked
    nan = close.copy()
    nan[7, 7] = np.nan
    assert "error" in kernels.check_output(nan, reference)
    assert "error" in kernels.check_output(close[:-1], reference)


@pytest.mark.skipif(not os.path.exists(os.path.join(BUILD, "bin", "kiln-compile")),
                    reason="kiln-compile is not built")
def test_initializers_do_not_depend_on_the_cases_selected(tmp_path):
    # A variant's make may select fewer cases than the base's; the weights
    # run checks the base's artifact against must be the same either way.
    kernels.make(str(tmp_path / "all"), prefixes=["gemm"], build=BUILD)
    kernels.make(str(tmp_path / "one"), prefixes=["gemm_fc2"], build=BUILD)
    both = [np.load(tmp_path / d / "gemm_fc2-inits.npz")["w"] for d in ("all", "one")]
    assert both[0].shape == (3072, 768)
    np.testing.assert_array_equal(both[0], both[1])
