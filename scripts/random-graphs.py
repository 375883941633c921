#!/usr/bin/env python3
"""The random-graph property test: seeded random ONNX graphs through kiln.

Usage:
  random-graphs.py [--count 2000] [--first-seed 0] [--jobs 2]   # the CI suite
  random-graphs.py --seeds 17,905 [--keep DIR]                  # some graphs alone
  random-graphs.py --update-list                                 # accept today's failures
  random-graphs.py --gpu-bundle DIR --count 300                  # for the GPU machine

Graphs come from scripts/graph_generator.py: seed N always gives the same
graph (float32, float16 or bfloat16; chains and DAGs of pointwise, broadcast,
transpose, reshape, slice, concat, gather, reduction, softmax, layernorm and
matmul nodes). Each graph is compiled under a precision drawn from its seed
(float32 graphs: fp32 mostly, sometimes fp16 or bf16). Graphs of one
(type, precision) go in batches of --batch side by side in one ONNX model,
since a process per graph would cost more than the compile:

  1. compile: `kiln-compile batch.onnx --precision P -o batch.kiln`, the
     whole pipeline down to NVRTC's cubins and the artifact;
  2. numerics (float32 graphs at fp32): `kiln-interpret` (the CPU evaluator)
     on random inputs in [-2, 2) against onnxruntime, twice: on the model
     ("graph": import and graph passes) and on the fused, tiled kernels of
     `kiln-compile --emit tiled` ("kernels", the evaluator runs kiln.kernel
     regions; a graph whose kernels read weights of the init program,
     which kiln-interpret does not run, is checked on the graph only). The
     graph's outputs must match onnxruntime's within a relative L2 error of
     1e-3 and no element off by more than 1e-2 * (|expected| + max
     |expected|) + 1e-4 (onnxruntime computes in float and not always
     carefully; this checks semantics), the kernels' outputs the graph's
     within 1e-5 and 1e-4 * (...) + 1e-6 (the same arithmetic); NaN/inf only
     where the reference has them.

When a batch fails, each of its graphs is compiled (or interpreted) alone,
so every failure is one seed with its own error. A failing graph's model and
inputs are written to --keep (default build/test-logs/random-graphs/) as
seed-N.onnx and seed-N/input_K.pb, with a line to reproduce it.

test/random-graphs/expected-failures.txt lists the seeds that fail today
(`SEED STAGE: error`). Like lit's XFAIL: a listed seed that fails is an
expected failure (counted as skipped, and printed), a listed seed that passes
is a failure (the bug is fixed: take it off the list with --update-list), an
unlisted seed that fails is a failure. The list only holds for the generator
as it is; a change to scripts/graph_generator.py redraws every graph, so the
list must be rewritten with --update-list in the same change.

Last line: `N passed, M failed, K skipped`. Exit 0 when M is 0.

--gpu-bundle DIR compiles the graphs into DIR with inputs and the CPU
evaluator's outputs (`kiln-interpret --output-dir`) as the expectation, plus
kiln-run and run.py (= scripts/random-graphs-run.py); on the GPU machine:
`python3 DIR/run.py DIR`.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expected_failures  # noqa: E402
import graph_generator  # noqa: E402
import tensor_compare  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(REPO_ROOT, "test", "random-graphs", "expected-failures.txt")
# (relative L2, elementwise factor, absolute) for tensor_compare.compare.
# The evaluator on the graph against onnxruntime: the evaluator computes in
# double, onnxruntime in float and not always carefully (LayerNorm over two
# elements is off by 3e-3 there, exactly right in the evaluator), so this
# check is for semantics (a wrong index, axis or broadcast is off by O(1)).
ORT_TOLERANCE = (1e-3, 1e-2, 1e-4)
# The evaluator on the fused kernels against the evaluator on the graph: the
# same arithmetic, so any difference beyond rounding is a fusion bug.
KERNEL_TOLERANCE = (1e-5, 1e-4, 1e-6)


def precision_of(seed, dtype):
    """The --precision graph |seed| is compiled at."""
    if dtype != "f32":
        return "fp32"  # a float16/bfloat16 model keeps its type
    draw = np.random.RandomState(seed ^ 0xC0FFEE).rand()
    return "fp32" if draw < 0.7 else ("fp16" if draw < 0.85 else "bf16")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    build = os.environ.get("KILN_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
    parser.add_argument("--build-dir", default=build)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--seeds", help="comma-separated seeds instead of a range")
    parser.add_argument("--batch", type=int, default=40, help="graphs per compile")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--gpu-arch", default=os.environ.get("KILN_GPU_ARCH", "sm_90"))
    parser.add_argument("--no-numerics", action="store_true",
                        help="compile only; skip kiln-interpret against onnxruntime")
    parser.add_argument("--no-nvrtc", action="store_true",
                        help="compile up to the CUDA emitter only (--emit cuda): a quick look")
    parser.add_argument("--keep", default=os.path.join(build, "test-logs", "random-graphs"),
                        help="where failing graphs are written")
    parser.add_argument("--list", default=LIST, help="expected failures")
    parser.add_argument("--no-list", action="store_true",
                        help="every failing graph is a failure")
    parser.add_argument("--update-list", action="store_true",
                        help="rewrite the list with the graphs that fail now")
    parser.add_argument("--json", help="write per-graph results here")
    parser.add_argument("--gpu-bundle", metavar="DIR",
                        help="write compiled graphs with CPU-evaluator outputs here")
    parser.add_argument("--timeout", type=float, default=600)
    return parser.parse_args()


# --- Files ------------------------------------------------------------------------

def onnxruntime_outputs(model_path, feeds):
    import onnxruntime
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(model_path, options,
                                           providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


# --- Running ------------------------------------------------------------------------

def run(command, timeout):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        return -1, f"timeout after {timeout:.0f} s"


def first_error(text):
    """The first error line of a kiln tool's output, shortened."""
    for line in text.splitlines():
        if "error" in line.lower() or "mismatch" in line.lower():
            line = re.sub(r"^kiln-(compile|interpret): (error: )?", "", line.strip())
            return re.sub(r"\bg\d+_", "", line)[:300]
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return (lines[-1] if lines else "no output")[:300]


class Runner:
    def __init__(self, args):
        self.args = args
        self.bin = os.path.join(args.build_dir, "bin")
        self.work = tempfile.mkdtemp(prefix="kiln-random-graphs-")
        self.init_only = []  # seeds whose kernels need @kiln_init: graph check only

    def compile(self, graphs, precision, folder, emit=None):
        """kiln-compile of |graphs| side by side: to the artifact (through
        NVRTC), or only to |emit|."""
        model = os.path.join(folder, "model.onnx")
        onnx.save(graph_generator.make_model(graphs), model)
        target = ["--emit", emit, "-o", os.devnull] if emit else \
            ["-o", os.path.join(folder, "model.kiln")]
        return run([os.path.join(self.bin, "kiln-compile"), model, "--quiet",
                    "--precision", precision, "--gpu-arch", self.args.gpu_arch] + target,
                   self.args.timeout)

    def compile_batch(self, graphs, precision):
        """{seed: error} of the graphs that do not compile. The batch goes
        through the phases up to the CUDA emitter first (cheap); when that
        fails, each graph does alone. The graphs left then go through NVRTC
        and packaging together, bisected when that fails, so each kernel is
        compiled by NVRTC about once."""
        failing = {}
        folder = tempfile.mkdtemp(dir=self.work)
        status, _ = self.compile(graphs, precision, folder, emit="cuda")
        if status != 0:
            for graph in graphs:
                status, text = self.compile([graph], precision, folder, emit="cuda")
                if status != 0:
                    failing[graph.seed] = first_error(text)

        def bisect(group):
            status, text = self.compile(group, precision, folder,
                                        emit="cuda" if self.args.no_nvrtc else None)
            if status == 0:
                return
            if len(group) == 1:
                failing[group[0].seed] = first_error(text)
                return
            bisect(group[:len(group) // 2])
            bisect(group[len(group) // 2:])

        rest = [g for g in graphs if g.seed not in failing]
        if rest and (status != 0 or not self.args.no_nvrtc):
            bisect(rest)
        shutil.rmtree(folder, ignore_errors=True)
        return failing

    def interpret(self, graphs, folder, kernels):
        """{output name: values} from kiln-interpret on |graphs| side by side
        (on the fused, tiled kernels when |kernels|), or an error string.
        Kernels whose weights come from the init program (@kiln_init, which
        kiln-interpret does not run) give None."""
        os.makedirs(folder, exist_ok=True)
        model = os.path.join(folder, "model.onnx")
        onnx.save(graph_generator.make_model(graphs), model)
        graph_generator.write_inputs(graphs, os.path.join(folder, "inputs"))
        path = model
        if kernels:
            path = os.path.join(folder, "tiled.mlir")
            status, text = run([os.path.join(self.bin, "kiln-compile"), model, "--quiet",
                                "--emit", "tiled", "--print-weights",
                                "--print-element-limit", str(1 << 40), "-o", path],
                               self.args.timeout)
            if status != 0:
                return "tiled: " + first_error(text)
            if "@kiln_init" in open(path).read():
                return None
        out = os.path.join(folder, "out")
        status, text = run([os.path.join(self.bin, "kiln-interpret"), path, "--inputs",
                            os.path.join(folder, "inputs"), "--output-dir", out],
                           self.args.timeout)
        if status != 0:
            return "interpret: " + first_error(text)
        names = [o.name for g in graphs for o in g.outputs]
        return {name: np.load(os.path.join(out, f"output_{i}.npy"))
                for i, name in enumerate(names)}

    def evaluated(self, graphs, kernels):
        """{seed: {output: values} | error | None}, halving |graphs| until
        each part runs (an error or an init program then names one graph)."""
        folder = tempfile.mkdtemp(dir=self.work)
        result = self.interpret(graphs, folder, kernels)
        shutil.rmtree(folder, ignore_errors=True)
        if isinstance(result, dict):
            return {g.seed: result for g in graphs}
        if len(graphs) == 1:
            return {graphs[0].seed: result}
        half = len(graphs) // 2
        return {**self.evaluated(graphs[:half], kernels),
                **self.evaluated(graphs[half:], kernels)}

    def numerics(self, graphs, folder):
        """{seed: failure or None}: the CPU evaluator against onnxruntime, on
        the imported graph ("graph") and on the fused and tiled kernels
        ("kernels": `kiln-compile --emit tiled`, which kiln-interpret runs
        too). A graph whose kernels read init-program weights is checked on
        the graph only (counted in self.init_only)."""
        model = os.path.join(folder, "model.onnx")
        onnx.save(graph_generator.make_model(graphs), model)
        feeds = {name: values for g in graphs for name, values in graph_generator.random_inputs(g)}
        try:
            expected = onnxruntime_outputs(model, feeds)
        except Exception as error:  # the generator wrote something onnxruntime rejects
            return {g.seed: f"onnxruntime: {str(error).splitlines()[0][:200]}" for g in graphs}
        runs = {what: self.evaluated(graphs, what == "kernels") for what in ("graph", "kernels")}
        results = {}
        for graph in graphs:
            failure = None
            for what, by_seed in runs.items():
                actual = by_seed[graph.seed]
                if actual is None:
                    self.init_only.append(graph.seed)
                    continue
                if isinstance(actual, str):
                    failure = failure or f"{what}: {actual}"
                    continue
                reference, tolerance, against = expected, ORT_TOLERANCE, "onnxruntime"
                if what == "kernels" and isinstance(runs["graph"][graph.seed], dict):
                    reference, tolerance, against = runs["graph"][graph.seed], \
                        KERNEL_TOLERANCE, "the graph's"
                for output in graph.outputs:
                    _, why = tensor_compare.compare(actual[output.name], reference[output.name],
                                                    *tolerance)
                    if why and not failure:
                        failure = (f"{what} mismatch against {against}: output "
                                   f"{output.name[len(graph.prefix):]}: {why}")
            results[graph.seed] = failure
        return results

    def check_batch(self, key, graphs):
        """{seed: (stage, error) or None} for one batch of one (dtype, precision)."""
        dtype, precision = key
        folder = tempfile.mkdtemp(dir=self.work)
        results = {g.seed: None for g in graphs}
        for seed, error in self.compile_batch(graphs, precision).items():
            results[seed] = ("compile", error)
        if dtype == "f32" and precision == "fp32" and not self.args.no_numerics:
            healthy = [g for g in graphs if results[g.seed] is None]
            numeric = self.numerics(healthy, folder) if healthy else {}
            for seed, failure in numeric.items():
                if failure:
                    results[seed] = ("numerics", failure)
        shutil.rmtree(folder, ignore_errors=True)
        return results

    def keep(self, graph, precision):
        os.makedirs(self.args.keep, exist_ok=True)
        path = os.path.join(self.args.keep, f"seed-{graph.seed}.onnx")
        onnx.save(graph.model(), path)
        graph_generator.write_inputs([graph], os.path.join(self.args.keep, f"seed-{graph.seed}"))
        return (f"build/bin/kiln-compile {path} --precision {precision} -o /tmp/seed.kiln; "
                f"build/bin/kiln-interpret {path} --inputs "
                f"{os.path.join(self.args.keep, f'seed-{graph.seed}')}")


def batches(graphs, size):
    groups = collections.defaultdict(list)
    for graph in graphs:
        groups[(graph.dtype, precision_of(graph.seed, graph.dtype))].append(graph)
    for key in sorted(groups):
        group = groups[key]
        for start in range(0, len(group), size):
            yield key, group[start:start + size]


def read_list(path):
    return {int(seed): reason for seed, reason in expected_failures.read(path).items()}


def write_list(path, failures, generator_hash):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("# Random graphs (scripts/graph_generator.py) that fail today: SEED STAGE: error.\n"
                "# Written by scripts/random-graphs.py --update-list; valid for the generator\n"
                f"# whose sha256 starts {generator_hash}. Each line is a bug to fix, not a pass.\n")
        for seed in sorted(failures):
            stage, error = failures[seed]
            f.write(f"{seed} {stage}: {error}\n")


def generator_hash():
    import hashlib
    path = os.path.join(REPO_ROOT, "scripts", "graph_generator.py")
    return hashlib.sha256(open(path, "rb").read()).hexdigest()[:16]


def main():
    args = parse_args()
    for tool in ("kiln-compile", "kiln-interpret"):
        if not os.access(os.path.join(args.build_dir, "bin", tool), os.X_OK):
            print(f"random-graphs: no {tool} in {args.build_dir}/bin (build first)")
            return 2
    seeds = ([int(s) for s in args.seeds.split(",")] if args.seeds else
             list(range(args.first_seed, args.first_seed + args.count)))
    start = time.time()
    graphs = [graph_generator.generate(seed) for seed in seeds]
    by_seed = {g.seed: g for g in graphs}
    print(f"random-graphs: {len(graphs)} graphs (seeds {seeds[0]}..{seeds[-1]}), "
          f"{sum(len(g.nodes) for g in graphs)} nodes, "
          f"{collections.Counter(g.dtype for g in graphs)}; generated in "
          f"{time.time() - start:.1f} s", flush=True)
    if args.gpu_bundle:
        import random_graphs_bundle
        return random_graphs_bundle.write_bundle(args, graphs, precision_of)

    runner = Runner(args)
    results = {}
    work = list(batches(graphs, args.batch))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(runner.check_batch, key, group): key for key, group in work}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            results.update(future.result())
            key = futures[future]
            print(f"  {done}/{len(work)} batches ({key[0]} at {key[1]}), "
                  f"{sum(r is not None for r in results.values())} failing graphs, "
                  f"{time.time() - start:.0f} s", flush=True)
    shutil.rmtree(runner.work, ignore_errors=True)

    failures = {seed: r for seed, r in results.items() if r is not None}
    listed = {} if args.no_list else read_list(args.list)
    if args.update_list:
        if args.seeds or args.first_seed != 0:
            print("random-graphs: --update-list needs the default seed range")
            return 2
        write_list(args.list, failures, generator_hash())
        print(f"random-graphs: wrote {len(failures)} seeds to {args.list}")
        listed = read_list(args.list)
    stage_counts = collections.Counter()
    records, statuses = [], []
    for seed in seeds:
        graph, result = by_seed[seed], results[seed]
        precision = precision_of(seed, graph.dtype)
        status = expected_failures.status(result is not None, seed in listed)
        statuses.append(status)
        if status == "FIXED":
            print(f"FIXED seed {seed}: listed as failing ({listed[seed][:120]}) but passes; "
                  f"take it off the list (--update-list)")
        elif result is not None:
            stage_counts[result[0]] += 1
            repro = runner.keep(graph, precision)
            print(f"{status} {graph.describe()} at {precision}: {result[0]}: {result[1]}\n"
                  f"   repro: {repro}")
        records.append(dict(seed=seed, dtype=graph.dtype, precision=precision,
                            nodes=[n.op_type for n in graph.nodes], status=status,
                            stage=result[0] if result else None,
                            error=result[1] if result else None))
    if runner.init_only:
        print(f"random-graphs: {len(set(runner.init_only))} graphs checked on the graph only: "
              f"their kernels read init-program weights (@kiln_init), which kiln-interpret "
              f"does not run")
    passed, failed, skipped = expected_failures.tally(statuses)
    errors = collections.Counter(r[1] for r in failures.values())
    if errors:
        print("failures by error:")
        for error, count in errors.most_common(15):
            print(f"  {count:4d}  {error[:200]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(summary=dict(passed=passed, failed=failed, skipped=skipped,
                                        graphs=len(seeds), seconds=time.time() - start,
                                        failing_by_stage=stage_counts),
                           results=records), f, indent=1)
    print(f"random-graphs: {len(seeds)} graphs in {time.time() - start:.0f} s; "
          f"skipped = listed in {os.path.relpath(args.list, REPO_ROOT)} (expected failures)")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
