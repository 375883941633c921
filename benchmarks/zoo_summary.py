#!/usr/bin/env python3
"""Merges the zoo benchmark's per-model results into one JSON and a bar plot.

    benchmarks/zoo_summary.py [--results benchmarks/results/zoo] [--out FILE.json]
        [--plot FILE.png] [--date YYYY-MM-DD]

Reads every NAME.json that benchmarks/zoo.py wrote (one per model, from any
number of device calls: a later run of a model replaces its file). Every one
must be at its model's standard size, as benchmarks/zoo_export.py's
STANDARD_SIZES says now (its size and model_config keys): the summary refuses
a folder that holds another size (the zoo's small configurations of the
first results, kept apart in results/zoo-small, or a table since changed) and
names the files. Writes benchmarks/results/<date>-<gpus>-zoo-standard.json
(date: the newest result's, or --date; gpus: the GPUs the results ran on,
`h200` or `h200-h100`: each ratio is of one run on one machine) with each model's row and size,
kiln_over_max_autotune_ratio for the models whose status is ok, the
geometric mean of those ratios, the models whose kiln outputs did not match
(MISMATCH: no ratio), and every TorchScript model of test/zoo/zoo.json not
measured yet with the reason; and beside it a PNG bar plot of the ratios
(matplotlib, from scripts/requirements.txt).
"""
import argparse
import glob
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_export  # noqa: E402  (puts scripts/ on the path)
import zoo_common  # noqa: E402

RATIO = "kiln_over_max_autotune_ratio"
# Issue 17's targets: every model and the geometric mean.
TARGET_EACH, TARGET_GEOMEAN = 0.8, 0.6
# The summary lists the slowest models (by ratio) with their slowest steps.
SLOWEST, SLOWEST_KERNELS = 5, 5
ROW_KEYS = ["model", "family", "size", "status", "input_shapes", "kiln_rel_l2_vs_onnxruntime",
            "kiln_ms", "torch_eager_ms", "torch_max_autotune_ms", RATIO,
            "kiln_over_eager_ratio", "kiln_compile_s", "kiln_compile_cpu_s",
            "torch_max_autotune_compile_s",
            "torch_eager_rel_l2_vs_onnxruntime", "torch_max_autotune_rel_l2_vs_onnxruntime",
            "kiln_peak_error_vs_onnxruntime", "torch_eager_peak_error_vs_onnxruntime",
            "layout", "attention", "date", "machine", "error"]


def load_results(folder):
    results = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            result = json.load(f)
        results[result["model"]] = dict(result, source=os.path.basename(path))
    return results


def other_sizes(results):
    """The results not at their model's size in zoo_export.STANDARD_SIZES:
    {source file: why}."""
    others = {}
    for name, result in results.items():
        if name not in zoo_export.STANDARD_SIZES:
            others[result["source"]] = "no standard size for this model"
        elif "size" not in result:
            others[result["source"]] = "no size (the zoo's small configuration)"
        elif {key: result.get(key) for key in ("size", "model_config")} != \
                zoo_export.standard_size(name):
            others[result["source"]] = (f"size {result['size']!r}, not the table's "
                                        f"{zoo_export.STANDARD_SIZES[name]['size']!r} "
                                        "with its config")
    return others


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarise(results, zoo_models):
    """The merged summary of |results| (model -> per-model JSON) over the zoo."""
    rows, measured, mismatched, not_measured = [], {}, [], {}
    for name in sorted(results):
        result = results[name]
        row = {key: result[key] for key in ROW_KEYS + ["source"] if key in result}
        if result.get("status") == "ok" and RATIO in result:
            measured[name] = result[RATIO]
        else:
            # Only a complete, checked run has a ratio.
            row.pop(RATIO, None)
            row.pop("kiln_over_eager_ratio", None)
            if result.get("status") == "MISMATCH":
                mismatched.append(name)
            not_measured[name] = result.get("status", "no status")
        rows.append(row)
    for name in zoo_models:
        if name not in results:
            not_measured[name] = "not run"
    machines = sorted({r["machine"] for r in results.values() if r.get("machine")})
    dates = sorted(r["date"] for r in results.values() if r.get("date"))
    geomean = geometric_mean(list(measured.values()))
    return dict(
        what="kiln against torch.compile(mode='max-autotune') and torch eager on the zoo, "
             "fp16, one process per model (benchmarks/zoo.py)",
        size="standard: every model at its size in benchmarks/zoo_export.py STANDARD_SIZES "
             "(not the zoo's small test configurations)",
        shapes=zoo_export.BENCHMARK_SHAPES,
        machines=machines, first_run=dates[0] if dates else None,
        last_run=dates[-1] if dates else None, measured=len(measured),
        zoo_models=len(zoo_models),
        ratios={name: measured[name] for name in sorted(measured)},
        geomean_kiln_over_max_autotune_ratio=geomean,
        targets=dict(each=TARGET_EACH, geomean=TARGET_GEOMEAN,
                     over_each=sorted(n for n, r in measured.items() if r > TARGET_EACH),
                     # Met only over the whole zoo: a subset says nothing.
                     geomean_met=(geomean <= TARGET_GEOMEAN
                                  if geomean is not None and len(measured) == len(zoo_models)
                                  else None),
                     complete=len(measured) == len(zoo_models)),
        mismatched=mismatched,
        not_measured=dict(sorted(not_measured.items())),
        slowest=slowest(results, measured),
        models=rows)


def slowest(results, measured, count=SLOWEST, kernels=SLOWEST_KERNELS):
    """The |count| measured models with the largest ratios, slowest first,
    each with its |kernels| slowest kiln steps (kiln_top_kernels: time,
    GB/s, TFLOP/s and the fraction of the nearest ceiling), where the
    kernel work to do shows."""
    worst = sorted(measured, key=lambda name: -measured[name])[:count]
    return [dict(model=name, ratio=measured[name],
                 top_kernels=results[name].get("kiln_top_kernels", [])[:kernels])
            for name in worst]


def plot(summary, path):
    """A horizontal bar per measured model: kiln / max-autotune."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    ratios = sorted(summary["ratios"].items(), key=lambda item: item[1])
    figure, axes = pyplot.subplots(figsize=(7, 1.2 + 0.35 * max(len(ratios), 1)))
    names = [name for name, _ in ratios]
    values = [value for _, value in ratios]
    colours = ["tab:green" if v <= TARGET_EACH else "tab:orange" if v <= 1 else "tab:red"
               for v in values]
    axes.barh(names, values, color=colours)
    for index, value in enumerate(values):
        axes.text(value, index, f" {value:.2f}", va="center", fontsize=8)
    axes.axvline(1.0, color="black", linewidth=0.8)
    axes.axvline(TARGET_EACH, color="tab:green", linestyle="--", linewidth=0.8,
                 label=f"target {TARGET_EACH}")
    if summary["geomean_kiln_over_max_autotune_ratio"]:
        axes.axvline(summary["geomean_kiln_over_max_autotune_ratio"], color="tab:blue",
                     linestyle=":", linewidth=0.8, label="geometric mean")
    axes.set_xlabel("kiln time / torch.compile max-autotune time (fp16; lower is faster)")
    geomean = summary["geomean_kiln_over_max_autotune_ratio"]
    axes.set_title(f"zoo at standard sizes: {summary['measured']} of "
                   f"{summary['zoo_models']} models measured"
                   + (f", geometric mean {geomean:.2f}" if geomean else ""), fontsize=10)
    axes.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    pyplot.close(figure)


def machine_tag(machines):
    """The GPUs of |machines| (`NVIDIA H100 80GB HBM3, 580.159.04`) for a file
    name: their model numbers, lower case, newest first (`h200-h100`)."""
    tags = []
    for machine in machines:
        words = machine.split(",")[0].split()
        tag = (words[1] if len(words) > 1 and words[0] == "NVIDIA" else words[0]).lower()
        if tag not in tags:
            tags.append(tag)
    return "-".join(sorted(tags, reverse=True)) or "gpu"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.path.join(HERE, "results", "zoo"))
    parser.add_argument("--zoo-dir", default=zoo_common.ZOO_DIR)
    parser.add_argument("--out",
                        help="default: benchmarks/results/<date>-<gpus>-zoo-standard.json")
    parser.add_argument("--plot", help="default: the JSON's name with .png")
    parser.add_argument("--date", help="default: the newest result's date")
    args = parser.parse_args()
    results = load_results(args.results)
    if not results:
        print(f"zoo_summary: no per-model results in {args.results}")
        return 2
    others = other_sizes(results)
    if others:
        print(f"zoo_summary: {args.results} mixes sizes: these results are not at the "
              "standard sizes of benchmarks/zoo_export.py; move them out:")
        for source, why in sorted(others.items()):
            print(f"  {source}: {why}")
        return 2
    zoo_models = sorted(r["model"] for r in zoo_common.load_index(args.zoo_dir)["models"]
                        if r["exporter"] == zoo_export.EXPORTER)
    summary = summarise(results, zoo_models)
    date = args.date or summary["last_run"][:10]
    tag = machine_tag(summary["machines"])
    out = args.out or os.path.join(HERE, "results", f"{date}-{tag}-zoo-standard.json")
    with open(out, "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    for name, ratio in summary["ratios"].items():
        print(f"  {name:20s} kiln/max-autotune {ratio:.2f}")
    geomean = summary["geomean_kiln_over_max_autotune_ratio"]
    print(f"{summary['measured']} of {summary['zoo_models']} models measured"
          + (f", geometric mean {geomean:.3f}" if geomean else "")
          + (f"; MISMATCH: {', '.join(summary['mismatched'])}" if summary["mismatched"] else ""))
    for entry in summary["slowest"]:
        print(f"  slowest: {entry['model']} {entry['ratio']:.2f}: " + "; ".join(
            f"{k['kernel']} {k['time_us']:.1f} us ({k['ceiling_fraction']:.2f} of its ceiling)"
            for k in entry["top_kernels"]))
    print(f"wrote {out}")
    if summary["ratios"]:
        png = args.plot or os.path.splitext(out)[0] + ".png"
        plot(summary, png)
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
