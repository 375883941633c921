#!/usr/bin/env python3
"""Build machine: kiln-compile's time on every standard-size zoo model (issue 17).

    benchmarks/compile_time.py [--bundle zoo-bench-bundle-std]
        [--exports build/zoo-std-exports] [--models REGEX] [--limit-s 10]
        [--out FILE.json]

Issue 17 asks for a compile time of at most 10 s per zoo model on the 2-core
build machine. For each standard-size zoo model (zoo_export.STANDARD_SIZES;
with --bundle, each model of that benchmark bundle, benchmarks/
make_zoo_bundle.sh, whose NAME/meta.json records the compile command) this
compiles the standard-size export EXPORTS/NAME/model.onnx
(benchmarks/zoo_export.py NAME EXPORTS/NAME, made here when missing with
KILN_TORCH_PYTHON, as the bundle's) with the bundle's kiln-compile flags
(zoo_bundle.compile_flags: fp16 at the benchmark's shapes,
--external-weights, --gpu-arch; with --bundle, the flags its meta.json
records) and records per model:
the wall and CPU seconds (user + system, all threads), kiln-compile's phase
lines (wall and CPU milliseconds each), the kernel count, and the idle
estimate.

The build machine is shared, so a wall time measures its load as much as
kiln. The CPU seconds do not depend on the load (much), and the idle estimate
turns them into the wall time an otherwise idle machine would take: every
phase runs on one thread except nvrtc, whose pool uses min(cores, NVRTC
compiles) threads (a compile is one program of up to --kernels-per-program
kernels for one arch; kiln-compile prints the programs), so its CPU time is
divided by that, but never below the slowest program's time (which
kiln-compile prints too: one compile runs on one thread), and the spill
retries, which kiln-compile also prints, are added after it (they run after
the pool, one at a time). `over_limit` compares
that estimate with --limit-s; `over_limit_wall` the measured wall time.
Writes FILE.json (the command, machine, load before and after each compile,
versions, per-model results) and prints a table.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import zoo_bundle  # noqa: E402
import zoo_export  # noqa: E402
from zoo_bundle import timed_run  # noqa: E402
# A phase line; kiln-compile before its phase CPU times printed the wall only.
PHASE = re.compile(r"^kiln-compile: ([a-z-]+) ([0-9.]+) ms(?: \(([0-9.]+) ms CPU\))?$")
# (A ranged artifact's adds ", N bucket(s)" after the launches.)
SUMMARY = re.compile(r"^kiln-compile: ([0-9]+) kernels \(([0-9]+) launches(?:, [0-9]+ buckets?)?\), "
                     r"([0-9]+) library calls")
# NVRTC's programs (several kernels each); kiln-compile before them printed none.
PROGRAMS = re.compile(r"^kiln-compile: nvrtc: ([0-9]+) kernels in ([0-9]+) programs "
                      r"for ([0-9]+) arch\(s\)(?:, [0-9]+ threads)?"
                      r"(?:; the slowest program ([0-9.]+) ms \([0-9]+ kernels\))?"
                      r"(?:; [0-9]+ spill retries ([0-9.]+) ms)?")


def compile_flags(meta):
    """The bundle's kiln-compile flags for a model, without the model, -o
    and --quiet (the phase lines are what this measures)."""
    words = shlex.split(meta["kiln_compile_command"])[2:]
    flags = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "-o":
            skip = True
        elif word != "--quiet":
            flags.append(word)
    return flags


def model_meta(args, name):
    """The bundle's NAME/meta.json, or what it would record: the size, the
    input shape and the compile command."""
    if args.bundle:
        with open(os.path.join(args.bundle, name, "meta.json")) as f:
            return json.load(f)
    flags = zoo_bundle.compile_flags(name, args.gpu_arch)
    return dict(zoo_export.standard_size(name),
                input_shape=flags[flags.index("--input-shape") + 1],
                kiln_compile_command=" ".join(["kiln-compile", "model.onnx"] + flags +
                                              ["-o", "fp16.kiln"]))


def export_model(name, exports, torch_python):
    """Exports NAME at its standard size into EXPORTS/NAME; returns an error
    line or None."""
    target = os.path.join(exports, name)
    work = target + ".partial"
    env = dict(os.environ, ATEN_CPU_CAPABILITY="avx2")
    done = subprocess.run([torch_python, os.path.join(HERE, "zoo_export.py"), name, work],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return f"export failed: {lines[-1][:300] if lines else done.returncode}"
    os.rename(work, target)
    return None


def idle_estimate(phases, cores, nvrtc_compiles, slowest_program_ms=None,
                  spill_retry_ms=0.0):
    """Seconds an idle machine with |cores| would take: every phase's CPU
    time on one thread; nvrtc's pool (its time less the spill retries)
    spread over the pool's threads but never less than its slowest program
    (one compile runs on one thread), then the spill retries, which run
    after the pool one at a time; None without the phases' CPU times."""
    if not phases or any(phase["cpu_ms"] is None for phase in phases.values()):
        return None
    total = 0.0
    for name, phase in phases.items():
        if name != "nvrtc":
            total += phase["cpu_ms"]
            continue
        threads = min(cores, max(1, nvrtc_compiles))
        pool = max(phase["cpu_ms"] - spill_retry_ms, 0.0) / threads
        if slowest_program_ms is not None:
            pool = max(pool, slowest_program_ms)
        total += pool + spill_retry_ms
    return total / 1000


def measure(args, name, meta, kiln_compile, out_dir):
    model = os.path.join(args.exports, name, "model.onnx")
    result = dict(model=name, size=meta.get("size"), input_shape=meta.get("input_shape"))
    if not os.path.exists(model):
        if not args.export:
            return dict(result, status="NOT_EXPORTED",
                        error="no export (run without --no-export, or benchmarks/zoo_export.py)")
        error = export_model(name, args.exports, args.torch_python)
        if error:
            return dict(result, status="ERROR", error=error)
    flags = compile_flags(meta) + args.compile_flag
    command = [kiln_compile, model] + flags + ["-o", os.path.join(out_dir, name + ".kiln")]
    load_before = os.getloadavg()[0]
    completed, wall, cpu = timed_run(command)
    load_after = os.getloadavg()[0]
    if os.path.exists(command[-1]):
        os.remove(command[-1])
    result.update(command=" ".join(["kiln-compile", "model.onnx"] + flags + ["-o", "fp16.kiln"]),
                  wall_s=round(wall, 2), cpu_s=round(cpu, 2),
                  load_before=round(load_before, 2), load_after=round(load_after, 2))
    if completed.returncode != 0:
        lines = (completed.stdout + completed.stderr).strip().splitlines()
        return dict(result, status="ERROR", error=lines[-1][:300] if lines else "")
    phases = {}
    slowest_bound_ms = None
    for line in completed.stderr.splitlines():
        if match := PHASE.match(line):
            phases[match[1]] = dict(wall_ms=float(match[2]),
                                    cpu_ms=float(match[3]) if match[3] else None)
        elif match := SUMMARY.match(line):
            result.update(kernels=int(match[1]), launches=int(match[2]),
                          library_calls=int(match[3]))
        elif match := PROGRAMS.match(line):
            result.update(nvrtc_programs=int(match[2]), nvrtc_compiles=int(match[2]) * int(match[3]))
            if match[4]:
                result["nvrtc_slowest_program_ms"] = float(match[4])
                # Its time sums its compiles for every arch, which the pool
                # may run on different threads: the bound is one arch's share.
                slowest_bound_ms = float(match[4]) / max(1, int(match[3]))
            if match[5]:
                result["nvrtc_spill_retry_ms"] = float(match[5])
    if "nvrtc_compiles" not in result:  # A program per kernel and arch.
        archs = max(1, flags.count("--gpu-arch") and len(
            flags[flags.index("--gpu-arch") + 1].split(",")))
        result["nvrtc_compiles"] = result.get("kernels", 0) * archs
    estimate = idle_estimate(phases, args.cores, result["nvrtc_compiles"],
                             slowest_bound_ms, result.get("nvrtc_spill_retry_ms", 0.0))
    result.update(status="ok", phases=phases,
                  idle_estimate_s=None if estimate is None else round(estimate, 2),
                  over_limit=None if estimate is None else estimate > args.limit_s,
                  over_limit_wall=wall > args.limit_s)
    return result


def kiln_version(kiln_compile):
    done = subprocess.run([kiln_compile, "--version"], capture_output=True, text=True)
    return (done.stdout + done.stderr).strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", help="a benchmark bundle whose models and flags to use "
                        "(default: every standard-size model with zoo_bundle's flags)")
    parser.add_argument("--gpu-arch", default=os.environ.get("KILN_GPU_ARCH", "sm_90"),
                        help="the arch to compile for without --bundle")
    parser.add_argument("--exports", default=os.path.join(REPO_ROOT, "build", "zoo-std-exports"))
    parser.add_argument("--no-export", dest="export", action="store_false",
                        help="skip models without an export instead of exporting them")
    parser.add_argument("--torch-python", default=os.environ.get(
        "KILN_TORCH_PYTHON", "/work/torchenv/bin/python"))
    parser.add_argument("--build-dir", default=os.environ.get(
        "KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build")))
    parser.add_argument("--models", default=".*", help="a regex matching model names in full")
    parser.add_argument("--cores", type=int, default=os.cpu_count(),
                        help="the idle machine's cores for the estimate (default: this one's)")
    parser.add_argument("--limit-s", type=float, default=10.0)
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="an extra kiln-compile flag (repeatable), e.g. "
                             "--compile-flag=--kernels-per-program=4")
    parser.add_argument("--out", default=None, help="the JSON file (default: print only)")
    args = parser.parse_args()
    kiln_compile = os.path.join(args.build_dir, "bin", "kiln-compile")
    if args.bundle:
        names = sorted(entry for entry in os.listdir(args.bundle)
                       if os.path.exists(os.path.join(args.bundle, entry, "meta.json"))
                       and re.fullmatch(args.models, entry))
    else:
        names = sorted(name for name in zoo_export.STANDARD_SIZES
                       if re.fullmatch(args.models, name))
    if not names:
        print(f"compile_time: no model of {args.bundle or 'the standard sizes'} "
              f"matches '{args.models}'")
        return 2
    os.makedirs(args.exports, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="kiln-compile-time-") as out_dir:
        for name in names:
            meta = model_meta(args, name)
            result = measure(args, name, meta, kiln_compile, out_dir)
            results.append(result)
            if result["status"] == "ok":
                print(f"{name:20s} wall {result['wall_s']:6.1f} s  CPU {result['cpu_s']:6.1f} s  "
                      f"idle estimate {result['idle_estimate_s'] or float('nan'):5.1f} s  "
                      f"{result.get('kernels', 0):4d} kernels in {result['nvrtc_compiles']:3d} compiles  nvrtc "
                      f"{(result['phases'].get('nvrtc', {}).get('cpu_ms') or 0) / 1000:5.1f} "
                      f"CPU-s  load {result['load_before']:.1f}"
                      f"{'  OVER' if result['over_limit'] else ''}", flush=True)
            else:
                print(f"{name:20s} {result['status']}: {result['error']}", flush=True)
    ok = [r for r in results if r["status"] == "ok"]
    over = [r["model"] for r in ok if r["over_limit"]]
    report = dict(
        command=" ".join([os.path.relpath(sys.argv[0], REPO_ROOT)] + sys.argv[1:]),
        date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        machine=dict(host=platform.node(), cpus=os.cpu_count(), cores_for_estimate=args.cores,
                     processor=platform.processor() or platform.machine(),
                     load_at_end=os.getloadavg()),
        versions=dict(kiln=kiln_version(kiln_compile), python=platform.python_version()),
        limit_s=args.limit_s,
        estimate="idle_estimate_s: each phase's CPU time on one thread, nvrtc's divided by "
                 "min(cores, NVRTC compiles); the wall times carry the shared machine's load",
        models=results,
        over_limit=over,
        max_idle_estimate_s=max((r["idle_estimate_s"] for r in ok if r["idle_estimate_s"] is not None),
                               default=None),
        total_cpu_s=round(sum(r["cpu_s"] for r in ok), 1))
    print(f"{len(ok)} of {len(results)} compiled; over {args.limit_s:g} s (idle estimate): "
          f"{', '.join(over) if over else 'none'}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    return 0 if all(r["status"] in ("ok", "NOT_EXPORTED") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
