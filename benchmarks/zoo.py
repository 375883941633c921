#!/usr/bin/env python3
"""The zoo benchmark: kiln against torch eager and torch.compile max-autotune.

GPU machine (torch, torchvision, transformers, onnx, onnxruntime, numpy), from
the folder above the bundle that benchmarks/make_zoo_bundle.sh wrote:

    python3 BUNDLE/zoo.py --bundle BUNDLE --out DIR [--models a,b] [--budget-s 540]
        [--model-timeout-s 400] [--runs 50] [--skip-max-autotune]

Runs each of the bundle's models (or --models, in that order) in a process of
its own (`zoo.py --model NAME`) and writes DIR/NAME.json and DIR/NAME.log.
Device calls are short and max-autotune takes minutes a model, so a model is
started only while the budget left covers its expected cost (its last
measured run's seconds from benchmarks/results/zoo when the bundle was built,
else a default), and is stopped at min(--model-timeout-s, the budget left).
The results accumulate across calls: benchmarks/zoo_summary.py merges the
per-model JSONs under benchmarks/results/zoo/.

Every model runs at its standard size (zoo_export.STANDARD_SIZES: torchvision's
networks, the encoders at their base configurations, the decoders at about
100M parameters), not the zoo's small test configuration; the JSON records
the size's name and config (size, model_config).

For one model (all in one process, same weights, same input):
  1. exports the module again at its standard size with its weights beside
     the artifact (benchmarks/zoo_export.py: parameters redrawn
     reproducibly, a CNN's BatchNorm statistics from the bundle's
     batch_norm_stats.npz, its BatchNorms not folded: kiln folds them);
     the sha256s must be the build machine's
     (WEIGHTS_DIFFER otherwise, with differing_tensors), and the runtime
     checks them again at load;
  2. onnxruntime (CPU, fp32) computes the reference on the seeded input
     (zoo_common.make_inputs at zoo_export.benchmark_sizes);
  3. kiln-run runs fp16.kiln with --expect (relative L2 <= 5e-3 on every
     output, and every element within 10 times that of the output's peak,
     max |kiln - ort| <= 0.05 max |ort|), then --bench; judge() accepts the
     outputs within 5e-3 or within torch eager fp16's own error (step 4),
     whichever is larger, and their peak error within 10 times that limit
     or torch's own peak error, whichever is larger; beyond either the
     model is MISMATCH and gets no kiln time, no ratio and no
     max-autotune run;
  4. torch runs the same module in fp16 (`.half()`, channels_last for CNNs,
     SDPA attention for transformers models), eager and under
     torch.compile(mode="max-autotune"): CUDA events around each forward,
     the median of --runs after warm-up. Their outputs' relative L2 and peak
     errors against onnxruntime are recorded too (the check that torch runs
     the same model).
A model folder may hold other artifacts of the model beside fp16.kiln,
fp16-VARIANT.kiln, compiled by another rule (an A/B of a compiler change):
each is checked and timed the same way under variants.VARIANT, with its
ratios to the same torch times. --skip-max-autotune measures kiln against
eager only, for such comparisons (zoo_summary.py counts no ratio from it).

Keys: size, model_config, kiln_ms, torch_eager_ms, torch_max_autotune_ms (medians, ms),
kiln_over_eager_ratio, kiln_over_max_autotune_ratio, kiln_compile_s (on the
build machine), torch_max_autotune_compile_s (the first call; a cold compile's
only when torch_max_autotune_cache is "cold", see --inductor-cache), status (ok,
MISMATCH, WEIGHTS_DIFFER, ERROR, TIMEOUT); from the same kiln-run's --profile:
kiln_profile (the kernel-time and step-replay sums) and kiln_top_kernels (the
ten slowest steps with GB/s, TFLOP/s and ceiling_fraction, the larger of
their fractions of the copy bandwidth and the fp16 peak) and kiln_profile_steps
(every step: kernel time, bytes, flops, ONNX nodes).
"""
import argparse
import getpass
import json
import math
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_export  # noqa: E402  (puts zoo_common on the path)
import bundle_files  # noqa: E402
import zoo_common  # noqa: E402
from profile_log import parse_profile, table_rows  # noqa: E402
from compare_torch import PEAK_ERROR_PER_REL_L2, peak_error, rel_l2  # noqa: E402

FP16_REL_L2 = zoo_common.TOLERANCE["fp16"]
# A model's expected seconds when it has no earlier run (max-autotune's
# compile dominates: 1-4 minutes for the zoo's models).
DEFAULT_EXPECTED_S = 180
# Without max-autotune: the export, onnxruntime, kiln and torch eager.
SKIP_MAX_AUTOTUNE_EXPECTED_S = 45


def save(result, path):
    with open(path + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def versions():
    import onnxruntime
    import torch
    return dict(zoo_export.torch_versions(), cuda=torch.version.cuda,
                onnxruntime=onnxruntime.__version__, python=platform.python_version())


def version_differences(built):
    """'; versions differ: transformers 5.17.0 here, 5.24.0 on the build
    machine' for each exporting package whose version differs (a different
    transformers exports a different graph, its initializers numbered
    differently), or ''."""
    here = zoo_export.torch_versions()
    differ = [f"{name} {here.get(name)} here, {version} on the build machine"
              for name, version in sorted(built.items()) if here.get(name) != version]
    return "; versions differ: " + ", ".join(differ) if differ else ""


def reference(folder, inputs):
    """onnxruntime's outputs (CPU, fp32) on the exported model, by name."""
    import onnxruntime
    session = onnxruntime.InferenceSession(os.path.join(folder, "model.onnx"),
                                           providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, {i.name: inputs[i.name]
                                              for i in session.get_inputs()})))


def run_kiln(folder, runs, result, artifact="fp16.kiln"):
    """kiln-run with the check and the benchmark; fills |result|."""
    report = os.path.join(folder, artifact + ".run.json")
    command = [os.path.join(os.path.dirname(folder), "bin", "kiln-run"),
               os.path.join(folder, artifact), "--inputs", os.path.join(folder, "inputs"),
               "--expect", os.path.join(folder, "expected"), "--rel-l2", str(FP16_REL_L2),
               "--bench", str(runs), "--json", report,
               "--profile", os.path.join(folder, artifact + ".profile.json")]
    run = subprocess.run(command, capture_output=True, text=True)
    print(run.stdout + run.stderr, flush=True)
    if run.returncode not in (0, 1) or not os.path.exists(report):
        result["status"] = "ERROR"
        result["error"] = f"kiln-run exited {run.returncode}: " + \
            (run.stdout + run.stderr).strip()[-600:]
        return
    with open(report) as f:
        kiln = json.load(f)
    result["kiln_run_command"] = " ".join(command)
    result["versions"]["kiln"] = kiln["versions"]["kiln"]
    # kiln-run writes null for a NaN error; one from before the peak bound
    # writes no peak_error, and the judge then has none to apply (and says
    # so by its absence).
    def figures(key):
        return {o["name"]: float("inf") if o[key] is None else o[key]
                for o in kiln["outputs"] if key in o}
    errors = figures("rel_l2")
    result["kiln_rel_l2_per_output"] = errors
    result["kiln_rel_l2_vs_onnxruntime"] = max(errors.values())
    peaks = figures("peak_error")
    if peaks:
        result["kiln_peak_error_per_output"] = peaks
        result["kiln_peak_error_vs_onnxruntime"] = max(peaks.values())
    if "latency_ms" not in kiln:
        result["status"] = "MISMATCH"
        return
    # The time counts once judge() has accepted the outputs (after torch
    # eager has given its own fp16 error).
    result["kiln_checked_ms"] = kiln["latency_ms"]["median"]
    result["kiln_latency_ms"] = kiln["latency_ms"]
    # Where the time goes: the profile's sums and its slowest kernels, each
    # with its fraction of the nearest ceiling (copy bandwidth or fp16 peak).
    text = run.stdout + run.stderr
    profile = parse_profile(text)
    if profile:
        result["kiln_profile"] = profile
        result["kiln_top_kernels"] = table_rows(text)
    trace = os.path.join(folder, artifact + ".profile.json")
    if os.path.exists(trace):
        result["kiln_profile_steps"] = profile_steps(trace)


def profile_steps(trace):
    """Every step of kiln-run's --profile trace, in plan order: name, kind,
    kernel_us (CUPTI; the replay time for library steps it does not see),
    bytes, flops and ONNX nodes, so that a result shows where all of the
    time goes, not only the slowest steps."""
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    steps = []
    for event in events:
        args = event["args"]
        steps.append(dict(name=event["name"], kind=event["cat"],
                          kernel_us=round(args.get("kernel_us", args["replay_us"]), 2),
                          bytes=args["bytes"], flops=args["flops"],
                          algorithm=args["algorithm"], nodes=args["onnx_nodes"]))
    return steps


def use_sdpa(module):
    """Switches the transformers model inside |module| to SDPA attention;
    returns the attention the torch runs use."""
    import torch
    import transformers
    for sub in module.modules():
        if isinstance(sub, transformers.PreTrainedModel):
            try:
                sub.set_attn_implementation("sdpa")
            except (ValueError, NotImplementedError) as error:
                print(f"no SDPA: {error}", flush=True)
            # Some models (DeBERTa-v2) only warn that they keep their own.
            actual = sub.config._attn_implementation
            return actual if actual == "sdpa" else f"{actual} (the model has no SDPA)"
    if any(isinstance(sub, torch.nn.MultiheadAttention) for sub in module.modules()):
        return "nn.MultiheadAttention (its fused fast path or SDPA)"
    return "none"


def torch_inputs(inputs, names, channels_last):
    import torch
    values = []
    for name in names:
        value = torch.from_numpy(inputs[name]).cuda()
        if value.is_floating_point():
            value = value.half()
            if channels_last and value.dim() == 4:
                value = value.to(memory_format=torch.channels_last)
        values.append(value)
    return tuple(values)


def torch_outputs(model, args):
    import torch
    with torch.inference_mode():
        out = model(*args)
    out = out if isinstance(out, (tuple, list)) else (out,)
    return [o.float().cpu().numpy() for o in out]


def run_variants(folder, runs, result):
    """The bundle's other artifacts of this model (fp16-VARIANT.kiln, compiled
    with another rule to compare: benchmarks/README.md), checked and timed
    like fp16.kiln on the same inputs in the same process, under
    result["variants"][VARIANT]."""
    variants = {}
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("fp16-") and name.endswith(".kiln")):
            continue
        variant = dict(versions={})
        run_kiln(folder, runs, variant, artifact=name)
        variant.pop("versions")
        variants[name[len("fp16-"):-len(".kiln")]] = variant
    if variants:
        result["variants"] = variants


def judge(result, torch_rel_l2, torch_peak_error=None):
    """Accepts kiln's outputs when their relative L2 against onnxruntime is
    within FP16_REL_L2 or within torch eager's own fp16 error on the same
    input (|torch_rel_l2|), whichever is larger: a deep CNN with unit-scale
    activations is beyond 5e-3 in fp16 in torch too (8e-3 to 1.1e-2 on the
    H200), and kiln must be no less accurate than the fp16 run it is timed
    against. Its worst element must be as close: the peak error (max
    |kiln - ort| / max |ort|) within PEAK_ERROR_PER_REL_L2 times that
    limit or torch's own peak error (|torch_peak_error|), whichever is
    larger, as kiln-run --rel-l2 checks. Then the checked time becomes
    kiln_ms; else MISMATCH."""
    # A torch run that overflowed (NaN, inf) widens nothing.
    def usable(value):
        return value if value is not None and math.isfinite(value) else 0.0
    limit = max(FP16_REL_L2, usable(torch_rel_l2))
    peak_limit = max(PEAK_ERROR_PER_REL_L2 * limit, usable(torch_peak_error))
    result["kiln_rel_l2_limit"] = limit
    result["kiln_peak_error_limit"] = peak_limit
    checked = result.pop("kiln_checked_ms", None)
    if (checked is not None and result.get("kiln_rel_l2_vs_onnxruntime", math.inf) <= limit
            and result.get("kiln_peak_error_vs_onnxruntime", 0.0) <= peak_limit):
        result["kiln_ms"] = checked
    elif result.get("status") != "ERROR":
        result["status"] = "MISMATCH"


def variant_ratios(result, key):
    """Each checked variant's kiln time over torch's |key| time."""
    for variant in result.get("variants", {}).values():
        if "kiln_ms" in variant and f"torch_{key}_ms" in result:
            variant[f"kiln_over_{key}_ratio"] = \
                variant["kiln_ms"] / result[f"torch_{key}_ms"]


def run_torch(module, record, inputs, expected, runs, result, save_now,
              max_autotune=True):
    """torch eager and max-autotune in fp16 on the same module and input."""
    import torch
    from compare_torch import time_torch
    channels_last = record["family"] == "cnn"
    result["layout"] = "channels_last" if channels_last else "contiguous"
    result["attention"] = use_sdpa(module)
    model = module.half().eval().cuda()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    args = torch_inputs(inputs, [spec["name"] for spec in record["inputs"]], channels_last)
    names = list(expected)
    for mode in ("eager", "max-autotune"):
        # A model kiln does not match gets no ratio: its minutes of
        # max-autotune are better spent on the next model.
        if mode == "max-autotune" and not ("kiln_ms" in result and max_autotune):
            break
        key = mode.replace("-", "_")
        if mode == "eager":
            timed = model
        else:
            torch._dynamo.reset()
            timed = torch.compile(model, mode=mode)
        if mode != "eager":
            result["torch_max_autotune_cache"] = inductor_cache_state()
        start = time.time()
        outputs = torch_outputs(timed, args)  # compiles under max-autotune
        torch.cuda.synchronize()
        if mode != "eager":
            result[f"torch_{key}_compile_s"] = round(time.time() - start, 1)
        result[f"torch_{key}_rel_l2_vs_onnxruntime"] = max(
            rel_l2(o, expected[n]) for o, n in zip(outputs, names))
        result[f"torch_{key}_peak_error_vs_onnxruntime"] = max(
            peak_error(o, expected[n]) for o, n in zip(outputs, names))
        if mode == "eager":
            for judged in [result] + list(result.get("variants", {}).values()):
                judge(judged, result["torch_eager_rel_l2_vs_onnxruntime"],
                      result["torch_eager_peak_error_vs_onnxruntime"])
        result[f"torch_{key}_ms"] = time_torch(timed, args, runs)
        if "kiln_ms" in result:
            result[f"kiln_over_{key}_ratio"] = result["kiln_ms"] / result[f"torch_{key}_ms"]
        variant_ratios(result, key)
        save_now()


def inductor_cache_state():
    """'carried' when inductor's cache folder (TORCHINDUCTOR_CACHE_DIR, or
    its default) already holds autotuning results (the compile time is then
    not a cold compile's), else 'cold'."""
    # Inductor's default when the variable is unset (torch/_inductor/runtime/
    # cache_dir_utils.py): the temporary directory's torchinductor_<user>,
    # the user name's path characters replaced as torch does.
    folder = os.environ.get("TORCHINDUCTOR_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(),
        "torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", getpass.getuser()))
    if os.path.isdir(os.path.join(folder, "cache")) and os.listdir(
            os.path.join(folder, "cache")):
        return "carried"
    return "cold"


def bench_model(args):
    """One model, in this process; writes OUT/NAME.json as it goes."""
    name, bundle = args.model, os.path.abspath(args.bundle)
    folder = os.path.join(bundle, name)
    out = os.path.join(args.out, name + ".json")
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    record = zoo_export.benchmark_record(name, bundle)
    sizes = zoo_export.benchmark_sizes(record)
    result = dict(model=name, zoo_file=record["file"], family=record["family"],
                  covers=record["covers"], size=record["size"],
                  model_config=record["model_config"],
                  command=" ".join([sys.executable] + sys.argv),
                  date=time.strftime("%Y-%m-%d %H:%M:%S"), machine=bundle_files.gpu_machine(),
                  host=platform.node(), versions=versions(), dtype="fp16",
                  input_shapes={spec["name"]: zoo_common.dims_of(record, spec, sizes)
                                for spec in record["inputs"]},
                  runs=args.runs, status="running",
                  kiln_compile_s=meta["kiln_compile_s"],
                  kiln_compile_cpu_s=meta.get("kiln_compile_cpu_s"),
                  kiln_compile_command=meta["kiln_compile_command"],
                  build_machine=meta["build_machine"])
    save(result, out)
    start = time.time()
    try:
        if (meta.get("size"), meta.get("model_config")) != (record["size"],
                                                            record["model_config"]):
            result["status"] = "ERROR"
            result["error"] = (f"the artifact was compiled at size {meta.get('size')!r}, "
                               f"the table says {record['size']!r}: build the bundle again")
            return 1
        # The build machine's BatchNorm statistics: calibrated here, a
        # forward pass on another CPU, they would differ in the last bits.
        stats = meta.get("batch_norm_stats")
        if stats and not os.path.exists(os.path.join(folder, stats)):
            result["status"] = "ERROR"
            result["error"] = f"the bundle lacks {name}/{stats}: build the bundle again"
            return 1
        module, digests = zoo_export.export(
            name, folder, batch_norm_stats=os.path.join(folder, stats) if stats else None)
        result["weights_sha256"] = digests["data_sha256"]
        if digests != meta["export"]:
            result["status"] = "WEIGHTS_DIFFER"
            here, there = digests.get("tensors", {}), meta["export"].get("tensors", {})
            differing = sorted(n for n in set(here) | set(there) if here.get(n) != there.get(n))
            result["differing_tensors"] = differing
            summary = {k: v for k, v in digests.items() if k != "tensors"}
            built = {k: v for k, v in meta["export"].items() if k != "tensors"}
            result["error"] = (f"the export here {summary} differs from the build machine's "
                               f"{built}; {len(differing)} of {len(here)} initializers differ"
                               + (f": {', '.join(differing[:12])}" if differing else "")
                               + version_differences(meta["build_machine"].get("versions", {})))
            return 1
        inputs = zoo_common.make_inputs(record, sizes)
        for kind in ("inputs", "expected"):
            os.makedirs(os.path.join(folder, kind), exist_ok=True)
        for input_name, value in inputs.items():
            np.save(os.path.join(folder, "inputs", input_name + ".npy"), value)
        expected = reference(folder, inputs)
        for output_name, value in expected.items():
            np.save(os.path.join(folder, "expected", output_name + ".npy"), value)
        run_kiln(folder, args.runs, result)
        run_variants(folder, args.runs, result)
        save(result, out)
        if result["status"] == "ERROR":
            return 1
        if args.skip_max_autotune:
            result["max_autotune_skipped"] = True
        run_torch(module, record, inputs, expected, args.runs, result,
                  lambda: save(result, out), max_autotune=not args.skip_max_autotune)
        if result["status"] == "running":
            result["status"] = "ok"
        return 0 if result["status"] == "ok" else 1
    except Exception:
        result["status"] = "ERROR"
        result["error"] = traceback.format_exc()[-1500:]
        print(result["error"], flush=True)
        return 1
    finally:
        result["seconds"] = round(time.time() - start, 1)
        save(result, out)
        print(f"{name}: {summary_line(result)}", flush=True)


def summary_line(result):
    parts = [result["status"]]
    if "kiln_rel_l2_vs_onnxruntime" in result:
        parts.append(f"rel-L2 {result['kiln_rel_l2_vs_onnxruntime']:.3g}")
    if "kiln_peak_error_vs_onnxruntime" in result:
        parts.append(f"peak error {result['kiln_peak_error_vs_onnxruntime']:.3g}")
    for key in ("kiln_ms", "torch_eager_ms", "torch_max_autotune_ms"):
        if key in result:
            parts.append(f"{key[:-3]} {result[key]:.3f} ms")
    if "kiln_over_max_autotune_ratio" in result:
        parts.append(f"kiln/max-autotune {result['kiln_over_max_autotune_ratio']:.2f}")
    return ", ".join(parts)


def run_all(args):
    """The runner: one process per model within the time budget."""
    bundle = os.path.abspath(args.bundle)
    names = args.models.split(",") if args.models else sorted(
        d for d in os.listdir(bundle) if os.path.exists(os.path.join(bundle, d, "meta.json")))
    os.makedirs(args.out, exist_ok=True)
    environment = dict(os.environ, ATEN_CPU_CAPABILITY="avx2")
    if args.inductor_cache:
        # A cache carried from an earlier call holds max-autotune's measured
        # choices, so a model stopped part-way resumes where it was.
        environment["TORCHINDUCTOR_CACHE_DIR"] = os.path.abspath(args.inductor_cache)
        os.makedirs(environment["TORCHINDUCTOR_CACHE_DIR"], exist_ok=True)
    start = time.time()
    not_started = []
    for name in names:
        meta = os.path.join(bundle, name, "meta.json")
        if not os.path.exists(meta):
            not_started.append(name)
            print(f"{name}: not in the bundle", flush=True)
            continue
        with open(meta) as f:
            expected_s = json.load(f)["expected_s"]
        left = args.budget_s - (time.time() - start)
        if args.skip_max_autotune:
            expected_s = SKIP_MAX_AUTOTUNE_EXPECTED_S
        if left < expected_s:
            not_started.append(name)
            print(f"{name}: not started: {left:.0f} s of the budget left, expected "
                  f"{expected_s:.0f} s", flush=True)
            continue
        timeout = min(args.model_timeout_s, left)
        print(f"== {name} (expected {expected_s:.0f} s, stopped after {timeout:.0f} s)",
              flush=True)
        with open(os.path.join(args.out, name + ".log"), "w") as log:
            child = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--bundle", bundle, "--out",
                 args.out, "--model", name, "--runs", str(args.runs)] +
                (["--skip-max-autotune"] if args.skip_max_autotune else []),
                stdout=log, stderr=subprocess.STDOUT, env=environment,
                start_new_session=True)  # its own group: inductor's workers stop with it
            stopped_s = wait_for_model(child, os.path.join(args.out, name + ".json"), timeout)
            if stopped_s is not None:
                mark_stopped(os.path.join(args.out, name + ".json"), name, stopped_s)
        path = os.path.join(args.out, name + ".json")
        if os.path.exists(path):
            with open(path) as f:
                print(f"{name}: {summary_line(json.load(f))}", flush=True)
    print(f"zoo: {len(names) - len(not_started)} of {len(names)} models run in "
          f"{time.time() - start:.0f} s" + (f"; not started: {', '.join(not_started)}"
                                            if not_started else ""))
    return 0


def finished(path):
    """Whether the model's JSON at |path| holds a finished run: a final status
    (not "running") and the seconds bench_model's `finally` writes."""
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError):  # not written yet, or being written
        return False
    return result.get("status", "running") != "running" and "seconds" in result


def wait_for_model(child, path, timeout, grace_s=10.0, poll_s=1.0):
    """Waits for the model's process |child| (its own process group) at most
    |timeout| seconds; once its JSON says it finished, at most |grace_s| more
    for the process to exit (inductor's compile workers and CUDA's teardown
    took Llama's past the runner's limit, seconds of a device call spent on
    nothing), then stops its group. Returns the seconds after which it
    stopped the process, or None when the process exited by itself."""
    start = time.time()
    done_at = None
    while child.poll() is None:
        now = time.time()
        if done_at is None and finished(path):
            done_at = now
        if now - start >= timeout or (done_at is not None and now - done_at >= grace_s):
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            return now - start
        time.sleep(poll_s)
    return None


def mark_stopped(path, name, seconds):
    """Records that the runner stopped the model's process after |seconds|. A
    run that had finished (finished(): bench_model's `finally` wrote its final
    status and seconds) keeps its status, with stopped_after_finishing_s: only
    its process outlived its result (Llama, H200, 2026-12-02: finished in
    105 s, stopped at 120 s and, before this rule, marked TIMEOUT with its
    ratio measured). Else it is TIMEOUT, keeping what it measured (the
    summary counts only models whose status is ok)."""
    result = dict(model=name)
    if os.path.exists(path):
        with open(path) as f:
            result = json.load(f)
    if finished(path):
        result["stopped_after_finishing_s"] = round(seconds)
    else:
        result["status"] = "TIMEOUT"
        result["error"] = f"stopped after {seconds:.0f} s"
    save(result, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--out", required=True, help="folder for NAME.json and NAME.log")
    parser.add_argument("--models", help="comma-separated (default: every model bundled)")
    parser.add_argument("--model", help=argparse.SUPPRESS)  # one model, in this process
    parser.add_argument("--budget-s", type=float, default=540)
    parser.add_argument("--model-timeout-s", type=float, default=400)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--inductor-cache",
                        help="TORCHINDUCTOR_CACHE_DIR for every model (carry it between "
                             "calls: max-autotune then reuses its measured choices)")
    parser.add_argument("--skip-max-autotune", action="store_true",
                        help="kiln against torch eager only (minutes less a model; "
                             "the summary counts no such result)")
    args = parser.parse_args()
    if args.model:
        return bench_model(args)
    return run_all(args)


if __name__ == "__main__":
    sys.exit(main())
