#!/usr/bin/env python3
"""Build machine: the zoo benchmark's bundle (run by benchmarks/make_zoo_bundle.sh).

    ATEN_CPU_CAPABILITY=avx2 TORCH_PYTHON benchmarks/zoo_bundle.py OUTDIR
        [--models REGEX] [--build-dir build] [--gpu-arch sm_90]
        [--variant NAME=KILN_COMPILE ...]

For each zoo model whose name matches REGEX in full (`resnet18|bert`; default:
every model with a TorchScript export in test/zoo/zoo.json): exports it at
its standard size with its weights (benchmarks/zoo_export.py, in a process of
its own so that the memory of one model is given back before the next),
compiles it with `kiln-compile --precision fp16 --external-weights` at
zoo_export.benchmark_sizes (the compile is timed: kiln_compile_s) into
OUTDIR/NAME/fp16.kiln and writes OUTDIR/NAME/meta.json (the size and its
config, the export's sha256s and time, the compile command and time, wall
and CPU, this machine, the expected seconds of the GPU run). The weights stay here:
the GPU machine exports them again. A CNN's BatchNorm statistics, calibrated
here by the export, go with the artifact (OUTDIR/NAME/batch_norm_stats.npz,
named by meta.json's batch_norm_stats): the GPU machine's export uses them,
so that its BatchNorms' statistics are these bytes. OUTDIR also gets
bin/kiln-run and the scripts the GPU machine runs (zoo.py and what it imports, test/zoo/zoo.json),
so it runs from any checkout. Prints the command to run there. Each
--variant also compiles OUTDIR/NAME/fp16-NAME.kiln from the same export with
another kiln-compile (a build of another commit): zoo.py checks and times it
beside fp16.kiln, the A/B of a compiler change on the same weights.
"""
import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import zoo_export  # noqa: E402  (puts scripts/ on the path)
import bundle_files  # noqa: E402
import zoo_common  # noqa: E402

# What zoo.py needs on the GPU machine, copied beside it.
BUNDLED = ["benchmarks/zoo.py", "benchmarks/zoo_export.py", "benchmarks/compare_torch.py",
           "benchmarks/profile_log.py", "benchmarks/zoo_step_dump.sh", "scripts/zoo_common.py",
           "scripts/bundle_files.py", "scripts/export-zoo.py", "scripts/export-real-models.py", "scripts/fill-weights.py",
           "test/zoo/zoo.json"]
RESULTS = os.path.join(REPO_ROOT, "benchmarks", "results", "zoo")


def expected_seconds(name, results):
    """The GPU run's expected seconds with max-autotune: the last completed
    run's at the same size that ran max-autotune, with a margin, else
    zoo.DEFAULT_EXPECTED_S. A run without it (`--skip-max-autotune`, or
    stopped before it) says nothing about its compile, which dominates:
    SqueezeNet's eager-only 6 s gave an expected 22 s, and its max-autotune
    run then took 300 s of a call's budget."""
    import zoo
    path = os.path.join(results, name + ".json")
    if os.path.exists(path):
        with open(path) as f:
            last = json.load(f)
        same_size = all(last.get(key) == value
                        for key, value in zoo_export.standard_size(name).items())
        ran_max_autotune = last.get("torch_max_autotune_ms") is not None
        if (same_size and last.get("status") == "ok" and ran_max_autotune
                and last.get("seconds")):
            return round(last["seconds"] * 1.2 + 15)
    return zoo.DEFAULT_EXPECTED_S


def timed_run(command):
    """Runs |command|; returns (the completed process, wall seconds, CPU
    seconds: its user and system time, which the build machine's load from
    other work does not inflate the way it does the wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    completed = subprocess.run(command, capture_output=True, text=True)
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return completed, wall, cpu


def compile_flags(name, gpu_arch):
    """kiln-compile's flags for NAME's standard-size export, without the model
    and -o: fp16 at the benchmark's shapes, the weights external, --quiet."""
    record = zoo_export.benchmark_record(name)
    shape = zoo_common.input_shape_flag(record, zoo_export.benchmark_sizes(record))
    return ["--input-shape", shape, "--precision", "fp16", "--external-weights",
            "--gpu-arch", gpu_arch, "--quiet"]


def bundle_model(args, name, out, kiln_version):
    """Exports and compiles NAME into out/NAME; returns a line to print."""
    record = zoo_export.benchmark_record(name)
    flags = compile_flags(name, args.gpu_arch)
    shape = flags[flags.index("--input-shape") + 1]
    work = tempfile.mkdtemp(prefix="kiln-zoo-bench-")
    try:
        exported, export_s, export_cpu_s = timed_run(
            [sys.executable, os.path.join(HERE, "zoo_export.py"), name, work])
        if exported.returncode != 0:
            lines = exported.stderr.strip().splitlines()
            return f"{name}: not bundled: the export failed: {lines[-1][:300] if lines else ''}"
        digests = json.loads(exported.stdout.strip().splitlines()[-1])
        artifact = os.path.join(out, name, "fp16.kiln")
        os.makedirs(os.path.dirname(artifact))
        stats = os.path.join(work, zoo_export.BATCH_NORM_STATS)
        if os.path.exists(stats):
            shutil.copy(stats, os.path.join(out, name))
        compiled, seconds, cpu_seconds = timed_run(
            [os.path.join(args.build_dir, "bin", "kiln-compile"),
             os.path.join(work, "model.onnx")] + flags + ["-o", artifact])
        if compiled.returncode != 0:
            shutil.rmtree(os.path.dirname(artifact))
            lines = (compiled.stdout + compiled.stderr).strip().splitlines()
            return f"{name}: not bundled: kiln-compile failed: {lines[-1][:300] if lines else ''}"
        variants = {}
        for variant, compiler in args.variant:
            compiled_variant = subprocess.run(
                [compiler, os.path.join(work, "model.onnx")] + flags +
                ["-o", os.path.join(out, name, f"fp16-{variant}.kiln")],
                capture_output=True, text=True)
            if compiled_variant.returncode != 0:
                lines = (compiled_variant.stdout + compiled_variant.stderr).strip().splitlines()
                print(f"{name}: variant {variant} not bundled: "
                      f"{lines[-1][:300] if lines else ''}", flush=True)
                continue
            variants[variant] = subprocess.run([compiler, "--version"], capture_output=True,
                                               text=True).stdout.strip()
        meta = dict(model=name, zoo_file=record["file"], **zoo_export.standard_size(name),
                    export=digests, export_s=round(export_s, 1),
                    batch_norm_stats=zoo_export.BATCH_NORM_STATS
                    if os.path.exists(stats) else None,
                    export_cpu_s=round(export_cpu_s, 1), input_shape=shape,
                    kiln_compile_s=round(seconds, 2), kiln_compile_cpu_s=round(cpu_seconds, 2),
                    kiln_compile_command=" ".join(["kiln-compile", "model.onnx"] + flags +
                                                  ["-o", "fp16.kiln"]),
                    build_machine=dict(host=platform.node(), cpus=os.cpu_count(),
                                       load=os.getloadavg()[0], kiln=kiln_version,
                                       versions=zoo_export.torch_versions()),
                    expected_s=expected_seconds(name, args.results),
                    variants=variants)
        with open(os.path.join(out, name, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
        return (f"{name} ({record['size']}): {shape}, exported in {export_s:.0f} s "
                f"({export_cpu_s:.0f} s CPU), compiled in {seconds:.1f} s "
                f"({cpu_seconds:.1f} s CPU), "
                f"{os.path.getsize(artifact) // 1024} KiB, weights "
                f"{digests['data_bytes'] >> 20} MiB (exported again there), "
                f"expected {meta['expected_s']} s there")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--models", default=".*", help="a regex matching model names in full")
    parser.add_argument("--build-dir", default=os.environ.get(
        "KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build")))
    parser.add_argument("--gpu-arch", default=os.environ.get("KILN_GPU_ARCH", "sm_90"))
    parser.add_argument("--gpu-python", default="/opt/torch/.venv/bin/python",
                        help="the GPU machine's Python with torch")
    parser.add_argument("--results", default=RESULTS,
                        help="earlier per-model results, for the expected seconds")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=KILN_COMPILE",
                        type=lambda text: tuple(text.split("=", 1)),
                        help="also compile fp16-NAME.kiln from the same export with that "
                             "kiln-compile (an A/B of a compiler change; zoo.py times it "
                             "beside fp16.kiln)")
    args = parser.parse_args()
    names = sorted(r["model"] for r in zoo_common.load_index()["models"]
                   if r["exporter"] == zoo_export.EXPORTER and re.fullmatch(args.models,
                                                                            r["model"]))
    if not names:
        print(f"zoo_bundle: no zoo model matches '{args.models}'")
        return 2
    out = os.path.abspath(args.outdir)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "bin"))
    kiln_version = subprocess.run([os.path.join(args.build_dir, "bin", "kiln-compile"),
                                   "--version"], capture_output=True, text=True).stdout.strip()
    bundled = []
    for name in names:
        line = bundle_model(args, name, out, kiln_version)
        print(line, flush=True)
        if os.path.isdir(os.path.join(out, name)):
            bundled.append(name)
    shutil.copy(os.path.join(args.build_dir, "bin", "kiln-run"), os.path.join(out, "bin"))
    for path in BUNDLED:
        shutil.copy(os.path.join(REPO_ROOT, path), out)
    if not bundle_files.check_size(out) or not bundled:
        return 1
    folder = os.path.relpath(out, REPO_ROOT)
    print(f"{len(bundled)} of {len(names)} models bundled. On the GPU machine, from the "
          "repository root:")
    # A device call stops at 600 s: the runner's budget leaves room to pack.
    print(f"  {args.gpu_python} {folder}/zoo.py --bundle {folder} --out /tmp/zoo-results "
          f"--budget-s 520; tar -czf \"$OUT/zoo-results.tgz\" -C /tmp zoo-results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
