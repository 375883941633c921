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
JSON line with the two files' sha256s and sizes. A CNN's BatchNorms get
running statistics from two seeded images first (calibrate_batch_norms), so
that its activations keep unit scale as a trained network's do.

The benchmark runs every architecture at a standard size, not the zoo's
small test configurations (hidden size 128, 2 layers): STANDARD_SIZES, the
one table of them, gives per model a size name and the overrides of its
builder's configuration in scripts/export-zoo.py (torchvision's networks as
they are; the vision transformers as vit_b_16, swin_t and swin_v2_t; the
encoders at their base configurations; the decoders at GPT-2 small's size,
about 100M parameters; T5 v1.1 small and BART-base), and the inputs that
change with it (image resolution, the encoder states' width, the key/value
cache's layers and heads). BENCHMARK_SHAPES is the benchmark's shapes: batch
8; CNNs at 224x224; 128 tokens (a decoder step: 1 new token after 127; the
T5/BART decoders: 128 target tokens over 128 encoder positions).
"""
import hashlib
import importlib.util
import json
import os
import sys

import numpy as np

# MKL's GEMM (under the BatchNorm calibration's convolutions) picks its code
# by CPU; like ATEN_CPU_CAPABILITY=avx2, this keeps both machines on one path.
os.environ.setdefault("MKL_CBWR", "AVX2")

HERE = os.path.dirname(os.path.abspath(__file__))
# In a bundle the scripts are copied beside this file; in the repository
# they are in scripts/.
SCRIPTS = HERE if os.path.exists(os.path.join(HERE, "zoo_common.py")) \
    else os.path.join(os.path.dirname(HERE), "scripts")
sys.path.insert(0, SCRIPTS)
import zoo_common  # noqa: E402

EXPORTER = "torchscript"
BENCHMARK_SHAPES = dict(zoo_common.GPU_SIZES, batch=8, height=224, width=224, seq=128,
                        target=128, past=127, total=128)


def standard(size, config=None, image=None, encoder_width=None, cache=None):
    """A row of STANDARD_SIZES: the size's name, the builder's overrides, the
    square image side, the encoder states' width and the key/value cache
    (layers, key/value heads, head size) where they differ from the zoo's."""
    return dict(size=size, config=config or {}, image=image, encoder_width=encoder_width,
                cache=cache)


TORCHVISION = standard("torchvision")  # the zoo builds torchvision's networks as they are
BERT_BASE = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                 intermediate_size=3072, vocab_size=30522, max_position_embeddings=512)
# About 100M parameters, GPT-2 small's width and depth, SwiGLU at 8/3 the width.
DECODER_100M = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                    intermediate_size=2048, vocab_size=32000, max_position_embeddings=2048)
GPT2_SMALL = dict(n_embd=768, n_layer=12, n_head=12, vocab_size=50257, n_positions=1024)
T5_V1_1_SMALL = dict(d_model=512, d_kv=64, d_ff=1024, num_layers=8, num_decoder_layers=8,
                     num_heads=6, vocab_size=32128)
BART_BASE = dict(d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12,
                 decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072,
                 vocab_size=50265, max_position_embeddings=1024)
SWIN_T = dict(embed_dim=96, depths=[2, 2, 6, 2], num_heads=[3, 6, 12, 24], num_classes=1000)

# The size each zoo model is benchmarked at (every TorchScript model of
# test/zoo has a row: the bench suite checks it).
STANDARD_SIZES = {
    **{name: TORCHVISION for name in (
        "resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "shufflenet_v2",
        "resnext50", "regnet_y_400mf", "convnext_tiny", "densenet121", "squeezenet", "mnasnet",
        "deeplabv3", "lraspp")},
    "vit": standard("vit_b_16", dict(image_size=224, patch_size=16, num_layers=12,
                                     num_heads=12, hidden_dim=768, mlp_dim=3072,
                                     num_classes=1000), image=224),
    "swin": standard("swin_t", dict(SWIN_T, window_size=[7, 7]), image=224),
    # torchvision's swin_v2_t is made for 256x256 (its weights' transforms).
    "swin_v2": standard("swin_v2_t", dict(SWIN_T, window_size=[8, 8]), image=256),
    "bert": standard("base", BERT_BASE),
    "roberta": standard("base", dict(BERT_BASE, vocab_size=50265, max_position_embeddings=514,
                                     type_vocab_size=1, layer_norm_eps=1e-5)),
    "deberta_v2": standard("base (deberta-v3-base)", dict(
        BERT_BASE, vocab_size=128100, relative_attention=True, position_buckets=256,
        pos_att_type=["p2c", "c2p"], norm_rel_ebd="layer_norm", share_att_key=True,
        max_relative_positions=-1, position_biased_input=False, type_vocab_size=0)),
    "roformer": standard("base", dict(BERT_BASE, vocab_size=50000, embedding_size=768,
                                      max_position_embeddings=1536)),
    "albert": standard("base", dict(BERT_BASE, vocab_size=30000, embedding_size=128)),
    "distilbert": standard("base", dict(dim=768, n_layers=6, n_heads=12, hidden_dim=3072,
                                        vocab_size=30522, max_position_embeddings=512)),
    "gpt2": standard("small (124M)", GPT2_SMALL),
    "gpt2_past": standard("small (124M)", GPT2_SMALL, cache=(12, 12, 64)),
    "llama": standard("100M", dict(DECODER_100M, num_key_value_heads=12)),
    "llama_gqa": standard("100M, GQA 4 of 12", dict(DECODER_100M, num_key_value_heads=4)),
    "llama_past": standard("100M, GQA 4 of 12", dict(DECODER_100M, num_key_value_heads=4),
                           cache=(12, 4, 64)),
    "qwen2": standard("100M, GQA 2 of 12", dict(DECODER_100M, num_key_value_heads=2)),
    "t5_encoder": standard("small (t5-v1_1-small)", T5_V1_1_SMALL),
    "t5_decoder": standard("small (t5-v1_1-small)", T5_V1_1_SMALL, encoder_width=512),
    "bart_encoder": standard("base", BART_BASE),
    "bart_decoder": standard("base", BART_BASE, encoder_width=768),
}


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


def standard_size(name):
    """STANDARD_SIZES' row for NAME, for the JSONs: the size's name and config."""
    row = STANDARD_SIZES[name]
    return dict(size=row["size"], model_config=row["config"])


def cache_names(kind, layers):
    """The key/value cache's inputs (kind past) or outputs (present), in the
    zoo's order: key then value, layer by layer."""
    return [f"{kind}_{which}_{layer}" for layer in range(layers) for which in ("key", "value")]


def resize_inputs(name, inputs):
    """The zoo's input specs of NAME at its standard size: the image side,
    the encoder states' width and the cache's layers and heads replaced."""
    row = STANDARD_SIZES[name]
    resized = []
    for spec in inputs:
        spec = dict(spec, dims=list(spec["dims"]))
        if row["image"] and spec["dtype"] == "float32" and len(spec["dims"]) == 4:
            spec["dims"][2:] = [row["image"], row["image"]]
        if row["encoder_width"] and spec["name"] == "encoder_hidden_states":
            spec["dims"][-1] = row["encoder_width"]
        if row["cache"] and spec["name"].startswith("past_"):
            continue
        resized.append(spec)
    if row["cache"]:
        layers, heads, head_size = row["cache"]
        resized += [dict(name=cache_name, dims=["batch", heads, "past", head_size],
                         dtype="float32") for cache_name in cache_names("past", layers)]
    return resized


def resize_outputs(name, outputs):
    row = STANDARD_SIZES[name]
    if not row["cache"]:
        return list(outputs)
    return [o for o in outputs if not o.startswith("present_")] + \
        cache_names("present", row["cache"][0])


def benchmark_record(name, zoo_dir=zoo_common.ZOO_DIR):
    """zoo_record(NAME) at its standard size: the inputs and outputs that
    change with it, plus its size and config (standard_size)."""
    record = zoo_record(name, zoo_dir)
    return dict(record, inputs=resize_inputs(name, record["inputs"]),
                outputs=resize_outputs(name, record["outputs"]), **standard_size(name))


def benchmark_sizes(record):
    """The symbolic dims' sizes the benchmark runs |record| at."""
    return zoo_common.sizes_for(record, BENCHMARK_SHAPES)


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


def calibrate_batch_norms(module, side):
    """Gives every BatchNorm of |module| the running statistics of its
    activations on two seeded images, as training would, rounded (variance to
    a power of two, mean to a quarter of the standard deviation's) so that
    both machines keep the same bytes. Returns how many there are.

    torch's initialisation with the identity statistics of eval mode lets a
    deep network's activations shrink layer by layer: MobileNet-V2's logits
    came out near 1e-10, below fp16's smallest subnormal, so kiln's and
    torch's fp16 outputs were all zeros and no comparison with onnxruntime
    meant anything (relative L2 1). With its own statistics every BatchNorm
    gives activations of unit scale, as trained weights do."""
    import torch
    norms = [m for m in module.modules()
             if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return 0
    threads, mkldnn = torch.get_num_threads(), torch.backends.mkldnn.enabled
    # One thread and ATen's own kernels: the same arithmetic on both CPUs.
    torch.set_num_threads(1)
    torch.backends.mkldnn.enabled = False
    try:
        for norm in norms:
            norm.reset_running_stats()
            norm.momentum = None  # a cumulative average over the batches
        module.train()
        rng = np.random.RandomState(7)
        with torch.no_grad():
            for _ in range(2):
                image = rng.uniform(-1, 1, (2, 3, side, side)).astype(np.float32)
                module(torch.from_numpy(image))
        module.eval()
        with torch.no_grad():
            for norm in norms:
                exponent = torch.round(torch.log2(norm.running_var.clamp_min(1e-12)))
                norm.running_var.copy_(torch.pow(2.0, exponent))
                step = torch.pow(2.0, torch.floor(exponent / 2) - 2)
                norm.running_mean.copy_(torch.round(norm.running_mean / step) * step)
                norm.momentum = 0.1
    finally:
        torch.set_num_threads(threads)
        torch.backends.mkldnn.enabled = mkldnn
    return len(norms)


def export(name, outdir):
    """Builds NAME's module at its standard size, writes OUTDIR/model.onnx and
    model.onnx.data; returns (module, {file: sha256, ...})."""
    import onnx
    import onnx.numpy_helper
    if os.environ.get("ATEN_CPU_CAPABILITY") != "avx2":
        raise RuntimeError("set ATEN_CPU_CAPABILITY=avx2 before torch is imported: the "
                           "weights must be the other machine's bytes")
    export_zoo = load_script("export-zoo.py")
    fill_weights = load_script("fill-weights.py")
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "model.onnx")
    entry = export_zoo.ZOO[name]
    entry = dict(entry, inputs=resize_inputs(name, entry["inputs"]),
                 outputs=resize_outputs(name, entry["outputs"]))
    module = export_zoo.build_module(name, entry, STANDARD_SIZES[name]["config"])
    if entry["family"] == "cnn":
        calibrate_batch_norms(module, STANDARD_SIZES[name]["image"] or 224)
    export_zoo.export_with_weights(name, EXPORTER, module, path, entry)
    proto = onnx.load(path)
    # Per initializer, so that a WEIGHTS_DIFFER names the tensors that differ
    # (those a BatchNorm folded into, a constant the exporter computed...).
    tensors = {tensor.name: hashlib.sha256(
        onnx.numpy_helper.to_array(tensor).tobytes()).hexdigest()[:16]
        for tensor in proto.graph.initializer}
    fill_weights.write_external(proto, path)
    onnx.save_model(proto, path)
    digests = dict(onnx_sha256=sha256(path), onnx_bytes=os.path.getsize(path),
                   data_sha256=sha256(path + ".data"),
                   data_bytes=os.path.getsize(path + ".data"), tensors=tensors)
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
