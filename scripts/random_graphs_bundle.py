# The GPU bundle of the random-graph property test (random-graphs.py
# --gpu-bundle DIR): compiled batches of random graphs with inputs and the CPU
# evaluator's outputs, kiln-run and the runner (scripts/random-graphs-run.py).
import json
import os
import shutil
import subprocess
import tempfile

import onnx

import bundle_files
import graph_generator


def prepare(runner_bin, graphs, precision, folder, arch, timeout):
    """Compiles |graphs| into |folder| with inputs and kiln-interpret's outputs;
    returns None or the error."""
    os.makedirs(folder, exist_ok=True)
    model = os.path.join(folder, "model.onnx")
    onnx.save(graph_generator.make_model(graphs), model)
    # Reduced-precision compiles take inputs on their precision's grid.
    grid = {"fp16": "f16", "bf16": "bf16"}.get(precision)
    graph_generator.write_inputs(graphs, os.path.join(folder, "inputs"), grid=grid)
    for command in (
            [os.path.join(runner_bin, "kiln-compile"), model, "--quiet", "--precision",
             precision, "--gpu-arch", arch, "-o", os.path.join(folder, "model.kiln")],
            [os.path.join(runner_bin, "kiln-interpret"), model, "--inputs",
             os.path.join(folder, "inputs"), "--output-dir", os.path.join(folder, "expected")]):
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"{os.path.basename(command[0])}: timeout"
        if done.returncode != 0:
            lines = [l for l in (done.stdout + done.stderr).splitlines() if "error" in l]
            return f"{os.path.basename(command[0])}: " + (lines[0] if lines else "failed")[:300]
    os.remove(model)
    return None


def write_bundle(args, graphs, precision_of):
    out = os.path.abspath(args.gpu_bundle)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "bin"))
    runner_bin = os.path.join(args.build_dir, "bin")
    groups = {}
    for graph in graphs:
        groups.setdefault((graph.dtype, precision_of(graph.seed, graph.dtype)), []).append(graph)
    manifest = dict(arch=args.gpu_arch, batches=[], left_out=[])
    for (dtype, precision), group in sorted(groups.items()):
        for start in range(0, len(group), args.batch):
            batch = group[start:start + args.batch]
            name = f"{dtype}-{precision}-{start // args.batch}"
            error = prepare(runner_bin, batch, precision, os.path.join(out, name),
                            args.gpu_arch, args.timeout)
            if error:  # one graph per batch, leaving out those that fail here
                shutil.rmtree(os.path.join(out, name))
                parts = []
                for graph in batch:
                    single = f"{name}-seed{graph.seed}"
                    why = prepare(runner_bin, [graph], precision, os.path.join(out, single),
                                  args.gpu_arch, args.timeout)
                    if why:
                        shutil.rmtree(os.path.join(out, single))
                        manifest["left_out"].append(dict(seed=graph.seed, reason=why))
                    else:
                        parts.append((single, [graph]))
            else:
                parts = [(name, batch)]
            for folder, members in parts:
                manifest["batches"].append(dict(
                    dir=folder, dtype=dtype, precision=precision,
                    graphs=[dict(seed=g.seed, nodes=[n.op_type for n in g.nodes],
                                 outputs=[o.name for o in g.outputs]) for g in members]))
            print(f"  {name}: {len(batch)} graphs", flush=True)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.copy(os.path.join(args.build_dir, "bin", "kiln-run"), os.path.join(out, "bin"))
    shutil.copy(os.path.join(here, "random-graphs-run.py"), os.path.join(out, "run.py"))
    for module in ("tensor_compare.py", "bundle_files.py"):
        shutil.copy(os.path.join(here, module), out)
    graphs_in = sum(len(b["graphs"]) for b in manifest["batches"])
    print(f"{graphs_in} graphs in {len(manifest['batches'])} artifacts, "
          f"{len(manifest['left_out'])} left out")
    for entry in manifest["left_out"]:
        print(f"  left out: seed {entry['seed']}: {entry['reason']}")
    if not bundle_files.check_size(out):
        return 1
    print(f"on the GPU machine: python3 {out}/run.py {out}")
    return 0
