"""Fixtures of the kiln package's tests: the models they compile, the
artifacts the GPU tests run (compiled now where the compiler is, else read
from KILN_PYTHON_TEST_DATA, which scripts/python-bundle.sh fills), and the
markers that skip what this machine cannot run (no GPU, no compiler, no
torch)."""

import os

import numpy
import pytest

import kiln
from kiln import _library
from cases import MODELS, build_model, write_case

DATA_DIR = os.environ.get("KILN_PYTHON_TEST_DATA")


HAS_GPU = _library.cuda_device_count() > 0


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device")
    config.addinivalue_line("markers", "compiler: needs kiln's compiler (kiln._compiler)")
    config.addinivalue_line("markers", "torch: needs torch")


def pytest_collection_modifyitems(config, items):
    skips = {
        "gpu": (not HAS_GPU, "no CUDA device (runs in the GPU bundle)"),
        "compiler": (not kiln.compiler_available(),
                     "no compiler in this installation (runtime-only wheel)"),
        "torch": (not _torch_importable(), "torch is not installed"),
    }
    for item in items:
        for marker, (skip, reason) in skips.items():
            if skip and marker in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))


def _torch_importable():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="session")
def model_path(tmp_path_factory):
    """name -> the path of ONNX test model |name|, written on first use."""
    folder = str(tmp_path_factory.mktemp("models"))
    return lambda name: build_model(name, folder)


class CompiledCase:
    """One GPU test case: an artifact, its inputs, onnxruntime's outputs and
    the rel-L2 bound between them."""

    def __init__(self, name, artifact_path, inputs, expected, batches=None):
        self.name = name
        self.artifact_path = artifact_path
        self.inputs = inputs
        self.expected = expected
        # A ranged case: {batch: (inputs, expected)}.
        self.batches = batches or {}
        self.rel_l2 = MODELS[name]["rel_l2"]


@pytest.fixture(scope="session")
def compiled_cases(tmp_path_factory):
    """name -> CompiledCase, from KILN_PYTHON_TEST_DATA or compiled now."""
    cache = {}

    def get(name):
        if name in cache:
            return cache[name]
        if DATA_DIR and os.path.exists(os.path.join(DATA_DIR, f"{name}.kiln")):
            folder = DATA_DIR
        elif kiln.compiler_available():
            folder = str(tmp_path_factory.mktemp(name))
            write_case(name, folder)
        else:
            pytest.skip(f"no artifact for '{name}' in KILN_PYTHON_TEST_DATA and no compiler")
        data = numpy.load(os.path.join(folder, f"{name}.npz"))

        def arrays(prefix):
            return {key[len(prefix):]: data[key] for key in data.files
                    if key.startswith(prefix)}

        batches = {batch: (arrays(f"input@{batch}:"), arrays(f"output@{batch}:"))
                   for batch in MODELS[name].get("batches", [])}
        cache[name] = CompiledCase(name, os.path.join(folder, f"{name}.kiln"),
                                   arrays("input:"), arrays("output:"), batches)
        return cache[name]

    return get
