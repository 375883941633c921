"""benchmarks/compile_time.py: the bundle's flags, the idle estimate and a real
kiln-compile of the example MLP through a one-model stand-in bundle."""
import json
import os
import shutil
import subprocess
import sys

import pytest

BENCHMARKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(BENCHMARKS)
sys.path.insert(0, BENCHMARKS)
import compile_time  # noqa: E402

BUILD = os.environ.get("KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
COMMAND = ("kiln-compile model.onnx --input-shape batch=4 --precision fp16 "
           "--external-weights --gpu-arch sm_90 --quiet -o fp16.kiln")


def test_flags_are_the_bundles_without_output_and_quiet():
    assert compile_time.compile_flags(dict(kiln_compile_command=COMMAND)) == [
        "--input-shape", "batch=4", "--precision", "fp16", "--external-weights",
        "--gpu-arch", "sm_90"]


def test_idle_estimate_spreads_only_nvrtc_over_the_cores():
    phases = dict(graph=dict(wall_ms=900, cpu_ms=1000),
                  nvrtc=dict(wall_ms=9000, cpu_ms=8000))
    assert compile_time.idle_estimate(phases, cores=2, nvrtc_compiles=40) == 5.0
    # One NVRTC compile runs on one thread however many cores there are.
    assert compile_time.idle_estimate(phases, cores=2, nvrtc_compiles=1) == 9.0
    # The slowest program runs on one thread: the pool cannot finish before
    # it. Spill retries run after the pool, one at a time.
    assert compile_time.idle_estimate(phases, cores=2, nvrtc_compiles=40,
                                      slowest_program_ms=6000) == 7.0
    assert compile_time.idle_estimate(phases, cores=2, nvrtc_compiles=40,
                                      slowest_program_ms=1000) == 5.0
    assert compile_time.idle_estimate(phases, cores=2, nvrtc_compiles=40,
                                      slowest_program_ms=1000,
                                      spill_retry_ms=2000) == 1.0 + 3.0 + 2.0
    phases["graph"]["cpu_ms"] = None  # an older kiln-compile: wall times only
    assert compile_time.idle_estimate(phases, cores=2, nvrtc_compiles=40) is None


@pytest.mark.skipif(not os.path.exists(os.path.join(BUILD, "bin", "kiln-compile")),
                    reason="kiln-compile is not built")
def test_measures_a_compile(tmp_path):
    bundle, exports = tmp_path / "bundle", tmp_path / "exports"
    (bundle / "mlp").mkdir(parents=True)
    (bundle / "mlp" / "meta.json").write_text(json.dumps(dict(
        model="mlp", size="example", input_shape="batch=4", kiln_compile_command=COMMAND)))
    (exports / "mlp").mkdir(parents=True)
    shutil.copy(os.path.join(REPO_ROOT, "examples", "mlp.onnx"), exports / "mlp" / "model.onnx")
    (bundle / "other").mkdir()
    (bundle / "other" / "meta.json").write_text(json.dumps(dict(
        model="other", kiln_compile_command=COMMAND)))
    out = tmp_path / "result.json"
    done = subprocess.run(
        [sys.executable, os.path.join(BENCHMARKS, "compile_time.py"), "--bundle", str(bundle),
         "--exports", str(exports), "--no-export", "--build-dir", BUILD, "--cores", "2",
         "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    mlp, other = report["models"]
    assert other["status"] == "NOT_EXPORTED"
    assert mlp["status"] == "ok", mlp
    assert mlp["kernels"] >= 1 and mlp["library_calls"] == 3
    assert {"import", "graph", "fuse", "tile", "cuda-emit", "nvrtc", "package"} <= set(
        mlp["phases"])
    assert all(phase["cpu_ms"] is not None for phase in mlp["phases"].values())
    assert mlp["cpu_s"] > 0 and mlp["idle_estimate_s"] > 0
    assert 0 < mlp["nvrtc_slowest_program_ms"] <= mlp["phases"]["nvrtc"]["cpu_ms"] * 1.5
    assert mlp["over_limit"] is False and report["over_limit"] == []
    assert mlp["command"].startswith("kiln-compile model.onnx --input-shape batch=4")
    assert "--quiet" not in mlp["command"]


def test_without_a_bundle_the_flags_are_the_bundles():
    import zoo_bundle
    flags = zoo_bundle.compile_flags("resnet18", "sm_90")
    assert flags == ["--input-shape", "input=8x3x224x224", "--precision", "fp16",
                     "--external-weights", "--gpu-arch", "sm_90", "--quiet"]


def test_reads_the_slowest_program_and_the_spill_retries():
    line = ("kiln-compile: nvrtc: 98 kernels in 13 programs for 1 arch(s), 2 threads; "
            "the slowest program 3204.5 ms (7 kernels); 1 spill retries 3195.2 ms")
    match = compile_time.PROGRAMS.match(line)
    assert match and match[2] == "13" and match[4] == "3204.5" and match[5] == "3195.2"
    match = compile_time.PROGRAMS.match(line[:line.index("; 1 spill")])
    assert match and match[4] == "3204.5" and match[5] is None
    # A kiln-compile before these parts.
    match = compile_time.PROGRAMS.match(
        "kiln-compile: nvrtc: 5 kernels in 3 programs for 1 arch(s), 2 threads")
    assert match and match[2] == "3" and match[4] is None
