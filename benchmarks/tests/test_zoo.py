"""The zoo benchmark's build-machine half: the bundle builder, the per-model
kiln step's accuracy gate and the summary merger (no GPU: kiln-run is a stand-in
where one is needed; the GPU half runs in the device call)."""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import time

import numpy as np
import pytest

BENCHMARKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(BENCHMARKS)
sys.path.insert(0, BENCHMARKS)
import zoo  # noqa: E402
import zoo_export  # noqa: E402
import zoo_summary  # noqa: E402
import zoo_common  # noqa: E402

BUILD = os.environ.get("KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
TORCH_PYTHON = os.environ.get("KILN_TORCH_PYTHON", "/work/torchenv/bin/python")


def torch_python_works():
    return os.access(TORCH_PYTHON, os.X_OK) and subprocess.run(
        [TORCH_PYTHON, "-c", "import torch, torchvision, transformers, onnx"],
        capture_output=True).returncode == 0


def per_model(name, status, kiln_ms=None, max_autotune_ms=None, date="2026-12-01 10:00:00"):
    """A per-model result as benchmarks/zoo.py writes it, at the standard size."""
    result = dict(model=name, family="cnn", status=status, date=date, machine="H200, 580",
                  **zoo_export.standard_size(name),
                  kiln_rel_l2_vs_onnxruntime=1e-3 if status != "MISMATCH" else 2e-2,
                  torch_eager_ms=3.0)
    if kiln_ms is not None:
        result["kiln_ms"] = kiln_ms
    if max_autotune_ms is not None:
        result["torch_max_autotune_ms"] = max_autotune_ms
        if kiln_ms is not None:
            result["kiln_over_max_autotune_ratio"] = kiln_ms / max_autotune_ms
    return result


def test_summary_merges_per_model_results(tmp_path):
    results = tmp_path / "zoo"
    results.mkdir()
    for result in (per_model("resnet18", "ok", 0.5, 1.0),
                   dict(per_model("bert", "ok", 0.8, 0.4, date="2026-12-02 09:00:00"),
                        kiln_top_kernels=[dict(kernel="matmul_2", time_us=9.0,
                                               ceiling_fraction=0.55)]),
                   per_model("mobilenet_v2", "MISMATCH", max_autotune_ms=1.0),
                   # Stopped after its ratio was written: not a measured model.
                   per_model("gpt2", "TIMEOUT", 0.2, 1.0)):
        (results / f"{result['model']}.json").write_text(json.dumps(result))
    out = tmp_path / "summary.json"
    run = subprocess.run([sys.executable, os.path.join(BENCHMARKS, "zoo_summary.py"),
                          "--results", str(results), "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = json.loads(out.read_text())
    assert summary["ratios"] == {"bert": 2.0, "resnet18": 0.5}
    assert math.isclose(summary["geomean_kiln_over_max_autotune_ratio"], 1.0)
    assert summary["measured"] == 2 and summary["last_run"].startswith("2026-12-02")
    assert summary["mismatched"] == ["mobilenet_v2"]
    assert summary["targets"]["over_each"] == ["bert"]
    # 2 of the zoo's models: whether the geometric mean meets the target is
    # not known until every model is measured.
    assert summary["targets"]["geomean_met"] is None
    assert summary["targets"]["complete"] is False
    # The slowest measured models first, each with its slowest steps.
    assert [(e["model"], e["ratio"]) for e in summary["slowest"]] == [("bert", 2.0),
                                                                     ("resnet18", 0.5)]
    assert summary["slowest"][0]["top_kernels"] == [
        dict(kernel="matmul_2", time_us=9.0, ceiling_fraction=0.55)]
    rows = {row["model"]: row for row in summary["models"]}
    assert rows["bert"]["size"] == "base" and rows["resnet18"]["size"] == "torchvision"
    for name in ("mobilenet_v2", "gpt2"):
        assert not any("ratio" in key for key in rows[name]), rows[name]
    assert rows["resnet18"]["kiln_over_max_autotune_ratio"] == 0.5
    # Every TorchScript model of the zoo is either measured or listed.
    assert summary["not_measured"]["mobilenet_v2"] == "MISMATCH"
    assert summary["not_measured"]["gpt2"] == "TIMEOUT"
    assert summary["not_measured"]["squeezenet"] == "not run"
    assert summary["measured"] + len(summary["not_measured"]) == summary["zoo_models"]
    png = (tmp_path / "summary.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width > 300 and height > 100


def test_summary_names_the_gpus_it_ran_on():
    import zoo_summary
    assert zoo_summary.machine_tag(["NVIDIA H200, 580.159.04"]) == "h200"
    # Models measured on two machines (each ratio within one run).
    assert zoo_summary.machine_tag(["NVIDIA H100 80GB HBM3, 580.159.04",
                                    "NVIDIA H200, 580.159.04"]) == "h200-h100"
    assert zoo_summary.machine_tag([]) == "gpu"


def zoo_models():
    return sorted(r["model"] for r in zoo_common.load_index()["models"]
                  if r["exporter"] == zoo_export.EXPORTER)


def test_every_zoo_model_has_a_standard_size():
    assert sorted(zoo_export.STANDARD_SIZES) == zoo_models()
    families = {r["model"]: r["family"] for r in zoo_common.load_index()["models"]}
    for name, row in zoo_export.STANDARD_SIZES.items():
        assert row["size"], name
        # Only torchvision's CNNs are full-size in the zoo; every other
        # architecture's small configuration is overridden.
        assert (row["size"] == "torchvision") == (families[name] == "cnn"), name
        assert bool(row["config"]) == (families[name] != "cnn"), name


def config_width(config):
    for key in ("hidden_size", "n_embd", "d_model", "dim", "hidden_dim", "embed_dim"):
        if key in config:
            return config[key]
    raise KeyError(f"no width in {config}")


@pytest.mark.parametrize("name", sorted(n for n, r in zoo_export.STANDARD_SIZES.items()
                                        if r["config"]))
def test_standard_inputs_follow_the_config(name):
    """The inputs that change with the size (image side, encoder states,
    key/value cache) agree with the config the module is built from, and the
    architectures are at their standard widths, not the zoo's 128."""
    row = zoo_export.STANDARD_SIZES[name]
    config = row["config"]
    # swin_t's embedding is 96 wide; every other standard size is 512 or more
    # (the zoo's small configurations: 128, Swin's 32).
    assert config_width(config) >= (96 if "embed_dim" in config else 512)
    record = zoo_export.benchmark_record(name)
    assert (record["size"], record["model_config"]) == (row["size"], config)
    shapes = {spec["name"]: zoo_common.dims_of(record, spec, zoo_export.benchmark_sizes(record))
              for spec in record["inputs"]}
    if row["image"]:
        assert shapes["input"] == [8, 3, row["image"], row["image"]]
        assert config.get("image_size", row["image"]) == row["image"]
    if "encoder_hidden_states" in shapes:
        assert shapes["encoder_hidden_states"] == [8, 128, config["d_model"]]
    past = [n for n in shapes if n.startswith("past_")]
    if row["cache"]:
        layers = config.get("n_layer", config.get("num_hidden_layers"))
        heads = config.get("num_key_value_heads", config.get("n_head"))
        head_size = config_width(config) // config.get("num_attention_heads",
                                                       config.get("n_head"))
        assert len(past) == 2 * layers
        assert shapes[past[-1]] == [8, heads, 127, head_size] and shapes["input_ids"] == [8, 1]
        assert record["outputs"][1:] == zoo_export.cache_names("present", layers)
    else:
        assert not past and record["outputs"] == zoo_export.zoo_record(name)["outputs"]


def write_results(folder, results):
    folder.mkdir()
    for result in results:
        (folder / f"{result['model']}.json").write_text(json.dumps(result))


@pytest.mark.parametrize("other", [
    # A result of the first zoo runs: the zoo's small configuration, no size.
    {"size": None},
    {"size": "small"},
    # The table's size name with another config (a table since changed).
    {"model_config": dict(zoo_export.STANDARD_SIZES["bert"]["config"], num_hidden_layers=2)},
])
def test_summary_refuses_to_mix_sizes(tmp_path, other):
    bert = dict(per_model("bert", "ok", 0.8, 1.0), **other)
    if bert["size"] is None:
        del bert["size"], bert["model_config"]
    write_results(tmp_path / "zoo", [per_model("resnet18", "ok", 0.5, 1.0), bert])
    out = tmp_path / "summary.json"
    run = subprocess.run([sys.executable, os.path.join(BENCHMARKS, "zoo_summary.py"),
                          "--results", str(tmp_path / "zoo"), "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "mixes sizes" in run.stdout and "bert.json" in run.stdout
    assert "resnet18.json" not in run.stdout
    assert not out.exists()


def fake_kiln_run(bundle, rel_l2, passed, peak_error=1e-3):
    """bin/kiln-run standing in for the real one: writes the --json report
    with one output's check and a latency median, exits as kiln-run does."""
    os.makedirs(bundle / "bin")
    report = dict(versions=dict(kiln="test"), outputs=[
        dict(name="logits", rel_l2=rel_l2, peak_error=peak_error,
             **{"pass": passed})],
        latency_ms=dict(median=0.25, runs=50))
    script = bundle / "bin" / "kiln-run"
    script.write_text("#!/bin/sh\nwhile [ \"$1\" != --json ]; do shift; done\n"
                      f"cat > \"$2\" <<'EOF'\n{json.dumps(report)}\nEOF\n"
                      f"exit {0 if passed else 1}\n")
    script.chmod(0o755)


# kiln's error against torch eager fp16's own on the same input: kiln's time
# counts only within max(5e-3, torch's error).
@pytest.mark.parametrize("rel_l2,passed,torch_rel_l2,accepted", [
    (1e-3, True, 2e-3, True),      # within 5e-3
    (6e-3, False, 2e-3, False),    # beyond 5e-3 and beyond torch's error
    (9e-3, False, 1.1e-2, True),   # beyond 5e-3, within torch's (a deep CNN)
    (1.2e-2, False, 1.1e-2, False),
])
def test_kiln_step_gives_no_time_to_a_mismatch(tmp_path, rel_l2, passed, torch_rel_l2,
                                               accepted):
    fake_kiln_run(tmp_path, rel_l2, passed)
    folder = tmp_path / "resnet18"
    folder.mkdir()
    result = dict(status="running", versions={})
    zoo.run_kiln(str(folder), 50, result)
    assert result["kiln_rel_l2_vs_onnxruntime"] == rel_l2
    assert "kiln_ms" not in result  # not before torch eager's error is known
    zoo.judge(result, torch_rel_l2)
    assert result["kiln_rel_l2_limit"] == max(5e-3, torch_rel_l2)
    if accepted:
        assert result["status"] == "running" and result["kiln_ms"] == 0.25
    else:
        assert result["status"] == "MISMATCH" and "kiln_ms" not in result


# The worst element too: rel-L2 within its limit does not let a few elements
# far off through; the peak error must be within 10 times the rel-L2 limit
# or torch eager's own peak error.
@pytest.mark.parametrize("peak_error,torch_peak_error,accepted", [
    (1e-2, 2e-2, True),       # within 10 x 5e-3
    (8e-2, 2e-2, False),      # rel-L2 fine, one element far off
    (8e-2, 9e-2, True),       # within torch's own worst element
    (None, None, False),      # kiln-run wrote null: a NaN
    (8e-2, float("inf"), False),  # torch overflowed: no wider limit
])
def test_judge_bounds_the_worst_element(tmp_path, peak_error, torch_peak_error, accepted):
    fake_kiln_run(tmp_path, 1e-3, True, peak_error)
    folder = tmp_path / "resnet18"
    folder.mkdir()
    result = dict(status="running", versions={})
    zoo.run_kiln(str(folder), 50, result)
    zoo.judge(result, 2e-3, torch_peak_error)
    finite_torch = torch_peak_error if torch_peak_error and math.isfinite(torch_peak_error) else 0
    assert result["kiln_peak_error_limit"] == max(5e-2, finite_torch)
    assert ("kiln_ms" in result) == accepted
    assert result["status"] == ("running" if accepted else "MISMATCH")


def test_peak_error_is_the_worst_element_over_the_peak():
    from compare_torch import peak_error
    expected = np.array([[1.0, -4.0], [0.5, 2.0]])
    assert peak_error(expected, expected) == 0.0
    assert peak_error(expected + [[0, 0], [0.2, 0]], expected) == pytest.approx(0.05)
    assert peak_error(np.array([np.nan, 1.0]), np.array([1.0, 1.0])) == float("inf")
    assert peak_error(np.array([np.nan, 1.0]), np.array([np.nan, 1.0])) == 0.0
    assert peak_error(np.array([0.0, 1e-6]), np.zeros(2)) == float("inf")
    # Infinities count only where the reference has the same one; the peak
    # is over the reference's finite elements (as kiln-run takes it).
    assert peak_error(np.array([-np.inf, 1.5, 2.0]), np.array([-np.inf, 1.0, 2.0])) == 0.25
    assert peak_error(np.array([np.inf, 1.0]), np.array([1.0, 1.0])) == float("inf")
    assert peak_error(np.array([np.inf, 1.0]), np.array([-np.inf, 1.0])) == float("inf")


def test_weights_differ_names_the_versions_that_differ(monkeypatch):
    """The H200's transformers 5.17 exported Llama's graph with other
    initializer names than the build machine's 5.24: the error says so."""
    monkeypatch.setattr(zoo_export, "torch_versions", lambda: dict(
        torch="2.11.0", torchvision="0.26.0", transformers="5.17.0", onnx="1.23.1"))
    built = dict(torch="2.11.0", torchvision="0.26.0", transformers="5.24.0", onnx="1.23.1")
    assert zoo.version_differences(built) == (
        "; versions differ: transformers 5.17.0 here, 5.24.0 on the build machine")
    assert zoo.version_differences(dict(built, transformers="5.17.0")) == ""


@pytest.mark.skipif(not torch_python_works(), reason=f"no torch at {TORCH_PYTHON}")
@pytest.mark.skipif(not os.access(os.path.join(BUILD, "bin", "kiln-compile"), os.X_OK),
                    reason="no kiln-compile (build first)")
def test_bundle_builder_one_model(tmp_path):
    bundle = tmp_path / "bundle"
    run = subprocess.run([os.path.join(BENCHMARKS, "make_zoo_bundle.sh"), str(bundle),
                          "squeezenet"], capture_output=True, text=True,
                         env=dict(os.environ, KILN_TORCH_PYTHON=TORCH_PYTHON,
                                  KILN_BUILD_DIR=BUILD))
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(os.listdir(bundle / "bin")) == ["kiln-run"]
    assert (bundle / "squeezenet" / "fp16.kiln").stat().st_size > 0
    assert sorted(d for d in os.listdir(bundle) if (bundle / d / "meta.json").exists()) \
        == ["squeezenet"]
    meta = json.loads((bundle / "squeezenet" / "meta.json").read_text())
    assert meta["input_shape"] == "input=8x3x224x224"
    assert (meta["size"], meta["model_config"]) == ("torchvision", {})
    assert meta["export_cpu_s"] > 0 and meta["kiln_compile_cpu_s"] > 0
    assert "--external-weights" in meta["kiln_compile_command"]
    assert meta["batch_norm_stats"] is None  # SqueezeNet has no BatchNorm
    assert meta["kiln_compile_s"] > 0 and meta["expected_s"] > 0
    # The GPU machine re-exports (16 threads there, one here): the same bytes.
    export = tmp_path / "again"
    again = subprocess.run([TORCH_PYTHON, str(bundle / "zoo_export.py"), "squeezenet",
                            str(export)], capture_output=True, text=True,
                           env=dict(os.environ, ATEN_CPU_CAPABILITY="avx2",
                                    OMP_NUM_THREADS="1"))
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout.splitlines()[-1]) == meta["export"]
    # The artifact reads its weights from the file the GPU machine writes.
    with open(bundle / "squeezenet" / "fp16.kiln", "rb") as f:
        assert b"model.onnx.data" in f.read()
    # The command it prints runs the bundled copy of zoo.py.
    command = run.stdout.strip().splitlines()[-1]
    assert "zoo.py --bundle" in command and "$OUT/zoo-results.tgz" in command
    for script in zoo_bundle_files():
        assert (bundle / script).exists(), script
    shutil.rmtree(bundle)


def zoo_bundle_files():
    import zoo_bundle
    return [os.path.basename(path) for path in zoo_bundle.BUNDLED]


def test_expected_seconds_come_from_a_max_autotune_run(tmp_path):
    import zoo
    import zoo_bundle
    size = zoo_export.standard_size("squeezenet")

    def last_run(**fields):
        (tmp_path / "squeezenet.json").write_text(json.dumps(dict(size, status="ok", **fields)))
        return zoo_bundle.expected_seconds("squeezenet", str(tmp_path))

    # An eager-only run's 6 s says nothing of max-autotune's compile.
    assert last_run(seconds=6, max_autotune_skipped=True) == zoo.DEFAULT_EXPECTED_S
    assert last_run(seconds=100, torch_max_autotune_ms=0.4) == 135
    assert last_run(seconds=100, torch_max_autotune_ms=0.4,
                    size="another") == zoo.DEFAULT_EXPECTED_S


def test_profile_steps_keep_every_step_in_plan_order(tmp_path):
    # kiln-run --profile's trace: a launch CUPTI timed and a library step it
    # did not (no kernel_us: its replay time stands in).
    trace = tmp_path / "fp16.kiln.profile.json"
    events = [
        {"name": "conv_sigmoid_mul_3", "cat": "launch", "ph": "X", "pid": 0, "tid": 0,
         "ts": 0.0, "dur": 23.9, "args": {"step": 0, "replay_us": 23.9, "kernel_us": 19.8,
                                          "kernels": 1, "kernel_span_us": 19.8,
                                          "bytes": 12845056, "flops": 57802752,
                                          "algorithm": "-", "onnx_nodes": "/a/Conv, /a/Sigmoid"}},
        {"name": "conv_103", "cat": "conv", "ph": "X", "pid": 0, "tid": 0, "ts": 23.9,
         "dur": 10.7, "args": {"step": 1, "replay_us": 10.7, "bytes": 49152, "flops": 294912,
                               "algorithm": "implicit_gemm", "onnx_nodes": "/b/Conv"}},
    ]
    trace.write_text(json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}))
    steps = zoo.profile_steps(str(trace))
    assert [s["name"] for s in steps] == ["conv_sigmoid_mul_3", "conv_103"]
    assert steps[0]["kernel_us"] == 19.8 and steps[1]["kernel_us"] == 10.7
    assert steps[1]["algorithm"] == "implicit_gemm"
    assert steps[0]["nodes"] == "/a/Conv, /a/Sigmoid" and steps[0]["bytes"] == 12845056


def test_reproducible_uniform_is_numpy_bit_stream_arithmetic(monkeypatch):
    """The redrawn weights are PCG64's raw bits through exact arithmetic:
    known values for a key, the same whatever the chunking, odd multiples
    of bound * 2^-24 inside (-bound, bound) with unit-uniform moments."""
    bound = 0.5  # a power of two: every value is exact, checkable below
    values = zoo_export.reproducible_uniform(10_000, bound, "model.features.0.0.weight")
    assert values.dtype.name == "float32" and values.shape == (10_000,)
    # The first values pin the draw: a change to it changes every bundle's weights.
    assert [float(v) for v in values[:3]] == [float.fromhex(h) for h in (
        "-0x1.69c0fcp-3", "-0x1.83a7d8p-4", "0x1.0c02e0p-6")]
    steps = values.astype("float64") / (bound * 2.0 ** -24)
    assert all(step == round(step) and round(step) % 2 == 1 for step in steps[:1000])
    assert abs(values).max() < bound and abs(values).max() > 0.99 * bound
    assert abs(values.mean()) < 0.02 * bound
    assert abs(values.std() - bound / math.sqrt(3)) < 0.02 * bound
    monkeypatch.setattr(zoo_export, "REDRAW_CHUNK", 777)
    assert (zoo_export.reproducible_uniform(10_000, bound, "model.features.0.0.weight")
            == values).all()
    assert not (zoo_export.reproducible_uniform(10_000, bound, "model.features.0.1.weight")
                == values).all()


# Builds mobilenet_v3_small as zoo_export does (torch's kaiming_normal_ and
# normal_ init, which ATEN_CPU_CAPABILITY changes), then redraws it; prints
# the sha256 of its parameters before and after, and the redraw's rules on a
# module made to show each of them.
REDRAW_PROBE = r"""
import hashlib, json, math, sys
sys.path.insert(0, sys.argv[1])
import torch, zoo_export
def digest(module):
    return hashlib.sha256(b"".join(p.detach().numpy().tobytes()
                                   for p in module.parameters())).hexdigest()
export_zoo = zoo_export.load_script("export-zoo.py")
module = export_zoo.build_module("mobilenet_v3_small")
before = digest(module)
drawn = zoo_export.redraw_parameters(module)
rules = torch.nn.Module()
rules.conv = torch.nn.Conv2d(4, 8, 3)
rules.head = torch.nn.Linear(16, 10)
torch.nn.init.zeros_(rules.head.weight)
rules.embedding = torch.nn.Embedding(100, 32, padding_idx=1)
rules.norm = torch.nn.LayerNorm(32)
rules.layer_scale = torch.nn.Parameter(torch.full((8, 1, 1), 1e-6))
rules.table = torch.nn.Parameter(torch.randn(49, 3))
zoo_export.redraw_parameters(rules)
peak = {name: float(p.detach().abs().max()) for name, p in rules.named_parameters()}
print(json.dumps(dict(capability=torch.backends.cpu.get_cpu_capability(),
                      threads=torch.get_num_threads(), torch_init=before,
                      redrawn=digest(module), drawn=drawn, peak=peak,
                      padding_row=float(rules.embedding.weight[1].abs().max()),
                      layer_scale=float(rules.layer_scale.max()))))
"""


@pytest.mark.skipif(not torch_python_works(), reason=f"no torch at {TORCH_PYTHON}")
def test_redrawn_weights_are_the_same_bytes_under_other_cpu_settings():
    """The closest this machine gets to another CPU: ATen's default and AVX2
    kernels, one thread and two. torch's own initialisation of MobileNet-V3
    differs between them (its normal_ is Sleef's Box-Muller under AVX2,
    glibc's otherwise); the redrawn parameters must not."""
    runs = []
    for capability, threads in (("default", "1"), ("avx2", "2")):
        run = subprocess.run([TORCH_PYTHON, "-c", REDRAW_PROBE, BENCHMARKS],
                             capture_output=True, text=True,
                             env=dict(os.environ, ATEN_CPU_CAPABILITY=capability,
                                      OMP_NUM_THREADS=threads))
        assert run.returncode == 0, run.stderr[-2000:]
        runs.append(json.loads(run.stdout.splitlines()[-1]))
    assert [(r["capability"], r["threads"]) for r in runs] == [("DEFAULT", 1), ("AVX2", 2)]
    assert runs[0]["torch_init"] != runs[1]["torch_init"], \
        "the two settings no longer change torch's init: the test needs another pair"
    assert runs[0]["redrawn"] == runs[1]["redrawn"]
    assert runs[0]["redrawn"] != runs[0]["torch_init"]
    # Every conv and linear weight (52 + 2) of MobileNet-V3-small; the
    # BatchNorms' ones and zeros and the zero biases are kept.
    assert runs[0]["drawn"] == 54
    peak = runs[0]["peak"]
    assert 0.9 < peak["conv.weight"] / math.sqrt(6 / 36) < 1        # He's bound
    assert 0 < peak["conv.bias"] < math.sqrt(1 / 36)                # torch's bias bound
    assert 0.9 < peak["head.weight"] / math.sqrt(1 / 16) < 1        # zeros redrawn
    assert 0 < peak["head.bias"] < math.sqrt(1 / 16)
    assert 0.9 < peak["embedding.weight"] / math.sqrt(1 / 32) < 1
    assert runs[0]["padding_row"] == 0
    assert peak["norm.weight"] == 1 and peak["norm.bias"] == 0       # constants kept
    assert runs[0]["layer_scale"] == peak["layer_scale"] == float(np.float32(1e-6))
    assert 0.9 < peak["table"] / (zoo_export.TABLE_STD * math.sqrt(3)) < 1


def stand_in_build(folder):
    """A build folder whose kiln-compile writes its -o file and a version,
    and whose kiln-run is a stub: the bundle without compiling."""
    os.makedirs(folder / "bin")
    compile_script = folder / "bin" / "kiln-compile"
    compile_script.write_text(
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo kiln stand-in; exit 0; }\n"
        "while [ \"$1\" != -o ]; do shift; done\necho artifact > \"$2\"\n")
    (folder / "bin" / "kiln-run").write_text("#!/bin/sh\nexit 2\n")
    for script in ("kiln-compile", "kiln-run"):
        (folder / "bin" / script).chmod(0o755)


def export_digests(run):
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.skipif(not torch_python_works(), reason=f"no torch at {TORCH_PYTHON}")
def test_bundle_ships_batch_norm_stats_and_the_gpu_export_uses_them(tmp_path):
    """The bundle carries MobileNet-V3's calibrated statistics; an export
    with them (two threads, as the GPU machine's) is the build machine's
    bytes; zoo.py exports with the bundle's file: a statistic changed in it
    changes exactly that initializer (the BatchNorms are not folded)."""
    build, bundle = tmp_path / "build", tmp_path / "bundle"
    stand_in_build(build)
    avx2 = dict(os.environ, ATEN_CPU_CAPABILITY="avx2", OMP_NUM_THREADS="2")
    run = subprocess.run([os.path.join(BENCHMARKS, "make_zoo_bundle.sh"), str(bundle),
                          "mobilenet_v3_small"], capture_output=True, text=True,
                         env=dict(os.environ, KILN_TORCH_PYTHON=TORCH_PYTHON,
                                  KILN_BUILD_DIR=str(build)))
    assert run.returncode == 0, run.stdout + run.stderr
    folder = bundle / "mobilenet_v3_small"
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["batch_norm_stats"] == zoo_export.BATCH_NORM_STATS
    stats_path = folder / zoo_export.BATCH_NORM_STATS
    with np.load(stats_path) as stats:
        stats = dict(stats)
    assert len(stats) == 2 * 34 and "model.features.0.1.running_var" in stats
    assert all(value.dtype == np.float32 for value in stats.values())
    # As zoo.py exports: the bundled script, the bundled statistics.
    again = export_digests(subprocess.run(
        [TORCH_PYTHON, str(bundle / "zoo_export.py"), "mobilenet_v3_small",
         str(tmp_path / "again"), "--batch-norm-stats", str(stats_path)],
        capture_output=True, text=True, env=avx2))
    assert again == meta["export"]
    assert not (tmp_path / "again" / zoo_export.BATCH_NORM_STATS).exists()
    # Another machine's statistics in the bundle: zoo.py's export must take
    # them, so the weights differ, in that statistic only.
    stats["model.features.0.1.running_var"] = stats["model.features.0.1.running_var"] * 4
    np.savez(stats_path, **stats)
    out = tmp_path / "results"
    out.mkdir()  # zoo.py's runner makes it before it starts a model
    zoo_run = subprocess.run([TORCH_PYTHON, str(bundle / "zoo.py"), "--bundle", str(bundle),
                              "--out", str(out), "--model", "mobilenet_v3_small"],
                             capture_output=True, text=True, env=avx2)
    result = json.loads((out / "mobilenet_v3_small.json").read_text())
    assert result["status"] == "WEIGHTS_DIFFER", zoo_run.stdout[-2000:]
    assert result["differing_tensors"] == ["model.features.0.1.running_var"]
    # A bundle without the file meta.json names stops before exporting.
    stats_path.unlink()
    zoo_run = subprocess.run([TORCH_PYTHON, str(bundle / "zoo.py"), "--bundle", str(bundle),
                              "--out", str(out), "--model", "mobilenet_v3_small"],
                             capture_output=True, text=True, env=avx2)
    result = json.loads((out / "mobilenet_v3_small.json").read_text())
    assert result["status"] == "ERROR" and "lacks" in result["error"], result
    # Statistics of another model do not fit.
    np.savez(stats_path, **{"model.features.0.1.running_mean": np.zeros(16, np.float32)})
    wrong = subprocess.run([TORCH_PYTHON, str(bundle / "zoo_export.py"), "mobilenet_v3_small",
                            str(tmp_path / "wrong"), "--batch-norm-stats", str(stats_path)],
                           capture_output=True, text=True, env=avx2)
    assert wrong.returncode != 0 and "does not fit the module" in wrong.stderr


# Exports NAME with zoo_export.export as zoo.py does (ATen's capability read
# from ATEN_CPU_CAPABILITY before zoo_export's check that it says avx2) and
# prints the export's digests, the initializers that are not the bytes of a
# parameter or buffer of the module (computed by the exporter), and the
# BatchNormalization nodes and BatchNorm modules.
EXPORT_PROBE = r"""
import json, os, sys
import torch
capability = torch.backends.cpu.get_cpu_capability()  # ATen reads the variable once
os.environ["ATEN_CPU_CAPABILITY"] = "avx2"
sys.path.insert(0, sys.argv[1])
import onnx, onnx.numpy_helper, zoo_export
name, out, stats = sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None
module, digests = zoo_export.export(name, out, batch_norm_stats=stats)
state = {t.detach().numpy().tobytes() for t in module.state_dict().values()}
proto = onnx.load(os.path.join(out, "model.onnx"))
computed = [t.name for t in proto.graph.initializer
            if onnx.numpy_helper.to_array(t).dtype.kind == "f"
            and onnx.numpy_helper.to_array(t).tobytes() not in state]
print(json.dumps(dict(capability=capability, threads=torch.get_num_threads(),
                      digests=digests, computed=computed,
                      batch_norm_nodes=sum(n.op_type == "BatchNormalization"
                                           for n in proto.graph.node),
                      batch_norms=len(zoo_export.batch_norms(module)))))
"""


@pytest.mark.skipif(not torch_python_works(), reason=f"no torch at {TORCH_PYTHON}")
def test_export_computes_no_weight(tmp_path):
    """Every float initializer of MobileNet-V3's export is the bytes of one of
    the module's parameters or buffers: the TorchScript exporter folds no
    BatchNorm into its convolution (it would, in eval mode, with ATen's
    arithmetic on the CPU at hand: DenseNet-121's folded convs differed on
    the H200 host), so the export is the same bytes under ATen's default
    kernels on one thread and AVX2 on two, and kiln folds the BatchNorms."""
    runs = []
    stats = tmp_path / "avx2" / zoo_export.BATCH_NORM_STATS
    for capability, threads in (("avx2", "2"), ("default", "1")):
        command = [TORCH_PYTHON, "-c", EXPORT_PROBE, BENCHMARKS, "mobilenet_v3_small",
                   str(tmp_path / capability)] + ([str(stats)] if runs else [])
        runs.append(export_digests(subprocess.run(
            command, capture_output=True, text=True,
            env=dict(os.environ, ATEN_CPU_CAPABILITY=capability, OMP_NUM_THREADS=threads))))
    assert [(r["capability"], r["threads"]) for r in runs] == [("AVX2", 2), ("DEFAULT", 1)]
    for run in runs:
        assert run["computed"] == []
        assert run["batch_norm_nodes"] == run["batch_norms"] == 34
    assert runs[0]["digests"] == runs[1]["digests"]


def test_inductor_cache_state_says_whether_autotuning_was_carried(tmp_path, monkeypatch):
    # A compile time measured with a carried cache is marked so: it is not a
    # cold compile's.
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    assert zoo.inductor_cache_state() == "cold"
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    assert zoo.inductor_cache_state() == "cold"
    (tmp_path / "cache").mkdir()
    assert zoo.inductor_cache_state() == "cold"
    (tmp_path / "cache" / "0123abcd").write_text('{"system": {}, "cache": {}}')
    assert zoo.inductor_cache_state() == "carried"


def test_a_stop_marks_only_a_run_stopped_part_way(tmp_path):
    # Stopped while measuring: TIMEOUT, with what it had measured kept.
    running = tmp_path / "swin.json"
    running.write_text(json.dumps(dict(model="swin", status="running", kiln_ms=1.0)))
    zoo.mark_stopped(str(running), "swin", 163)
    result = json.loads(running.read_text())
    assert result["status"] == "TIMEOUT" and result["kiln_ms"] == 1.0
    assert result["error"] == "stopped after 163 s"
    # Finished (its status final, its seconds written), only the process
    # lingered: the status stays, the stop is recorded.
    finished = tmp_path / "llama.json"
    finished.write_text(json.dumps(dict(model="llama", status="ok", seconds=105.0,
                                        kiln_over_max_autotune_ratio=0.6)))
    zoo.mark_stopped(str(finished), "llama", 120)
    result = json.loads(finished.read_text())
    assert result["status"] == "ok" and "error" not in result
    assert result["stopped_after_finishing_s"] == 120
    # No JSON at all (stopped before its first save): TIMEOUT.
    missing = tmp_path / "t5.json"
    zoo.mark_stopped(str(missing), "t5", 60)
    assert json.loads(missing.read_text())["status"] == "TIMEOUT"


def test_runner_stops_a_process_that_outlives_its_finished_run(tmp_path):
    # The child writes a finished result, then lingers (as inductor's workers
    # do): the runner stops it after the grace period, not at the timeout,
    # and the run keeps its status with the stop recorded.
    path = tmp_path / "m.json"
    script = ("import json, sys, time; json.dump(dict(status='ok', seconds=1.0), "
              f"open({str(path)!r}, 'w')); time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    stopped_s = zoo.wait_for_model(child, str(path), timeout=50, grace_s=1.0, poll_s=0.1)
    assert stopped_s is not None and stopped_s < 20 and child.returncode is not None
    zoo.mark_stopped(str(path), "m", stopped_s)
    result = json.loads(path.read_text())
    assert result["status"] == "ok" and result["stopped_after_finishing_s"] < 20
    # A child stopped part-way (its status still running) times out.
    path.write_text(json.dumps(dict(status="running")))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                             start_new_session=True)
    stopped_s = zoo.wait_for_model(child, str(path), timeout=1.0, poll_s=0.1)
    assert stopped_s is not None and child.returncode is not None
    zoo.mark_stopped(str(path), "m", stopped_s)
    assert json.loads(path.read_text())["status"] == "TIMEOUT"
    # One that exits by itself is not stopped, whatever it wrote.
    child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    assert zoo.wait_for_model(child, str(path), timeout=30, poll_s=0.1) is None
