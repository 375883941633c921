#!/usr/bin/env python3
"""A zoo model with its weights, the same bytes on the build and the GPU machine.

    ATEN_CPU_CAPABILITY=avx2 python3 benchmarks/zoo_export.py NAME OUTDIR

The zoo's files (test/zoo) are graph-only; a comparison with PyTorch needs
kiln and torch to run one module with one set of weights. So the module is
built as scripts/export-zoo.py builds it (seed 0, on the CPU), exported with
the TorchScript exporter as the zoo's NAME-torchscript.onnx was, and its
weights written to OUTDIR/model.onnx.data in scripts/fill-weights.py's layout
(graph order, 64-byte offsets: independent of the onnx version), the rest to
OUTDIR/model.onnx. Run with ATEN_CPU_CAPABILITY=avx2 on both machines, the
initialisation and the exporter's constant folding (BatchNorm into Conv) take
the same kernels, so both write the same bytes: the build machine compiles
the artifact with --external-weights, the GPU machine exports again beside
it, and the runtime checks every external weight by hash at load. Prints a
JSON line with the two files' sha256s and sizes.

benchmark_sizes() is the benchmark's shapes: images at batch 8 (CNNs at
224x224, the vision transformers at their native 64x64), everything else at
the zoo's GPU sizes (zoo_common.GPU_SIZES: batch 2, 64 tokens).
"""
import hashlib
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# In a bundle the scripts are copied beside this file; in the repository
# they are in scripts/.
SCRIPTS = HERE if os.path.exists(os.path.join(HERE, "zoo_common.py")) \
    else os.path.join(os.path.dirname(HERE), "scripts")
sys.path.insert(0, SCRIPTS)
import zoo_common  # noqa: E402

EXPORTER = "torchscript"
IMAGE_FAMILIES = ("cnn", "vision transformer")
IMAGE_BATCH = 8


def load_script(file_name):
    """A script of scripts/ with a dash in its name, as a module."""
    spec = importlib.util.spec_from_file_location(
        file_name.replace("-", "_")[:-3], os.path.join(SCRIPTS, file_name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def zoo_record(name, zoo_dir=zoo_common.ZOO_DIR):
    """test/zoo/zoo.json's entry for NAME's TorchScript export."""
    file_name = f"{name}-{EXPORTER}.onnx"
    for record in zoo_common.load_index(zoo_dir)["models"]:
        if record["file"] == file_name:
            return record
    raise KeyError(f"no {file_name} in {zoo_dir}/zoo.json")


def benchmark_sizes(record):
    """The symbolic dims' sizes the benchmark runs |record| at."""
    sizes = dict(zoo_common.GPU_SIZES)
    if record["family"] in IMAGE_FAMILIES:
        sizes["batch"] = IMAGE_BATCH
    return zoo_common.sizes_for(record, sizes)


def torch_versions():
    """The versions an export depends on."""
    import onnx
    import torch
    import torchvision
    import transformers
    return dict(torch=torch.__version__, torchvision=torchvision.__version__,
                transformers=transformers.__version__, onnx=onnx.__version__)


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export(name, outdir):
    """Builds NAME's module, writes OUTDIR/model.onnx and model.onnx.data;
    returns (module, {file: sha256, ...})."""
    import onnx
    if os.environ.get("ATEN_CPU_CAPABILITY") != "avx2":
        raise RuntimeError("set ATEN_CPU_CAPABILITY=avx2 before torch is imported: the "
                           "weights must be the other machine's bytes")
    export_zoo = load_script("export-zoo.py")
    fill_weights = load_script("fill-weights.py")
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "model.onnx")
    module = export_zoo.build_module(name)
    export_zoo.export_with_weights(name, EXPORTER, module, path)
    proto = onnx.load(path)
    fill_weights.write_external(proto, path)
    onnx.save_model(proto, path)
    digests = dict(onnx_sha256=sha256(path), onnx_bytes=os.path.getsize(path),
                   data_sha256=sha256(path + ".data"),
                   data_bytes=os.path.getsize(path + ".data"))
    return module, digests


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[0] + "\nusage: zoo_export.py NAME OUTDIR", file=sys.stderr)
        return 2
    _, digests = export(sys.argv[1], sys.argv[2])
    print(json.dumps(digests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
