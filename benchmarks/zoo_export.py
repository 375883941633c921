#!/usr/bin/env python3
"""A zoo model with its weights, the same bytes on the build and the GPU machine.

    ATEN_CPU_CAPABILITY=avx2 python3 benchmarks/zoo_export.py NAME OUTDIR
        [--batch-norm-stats FILE]

The zoo's files (test/zoo) are graph-only; a comparison with PyTorch needs
kiln and torch to run one module with one set of weights. So the module is
built as scripts/export-zoo.py builds it (seed 0, on the CPU), exported with
the TorchScript exporter as the zoo's NAME-torchscript.onnx was, and its
weights written to OUTDIR/model.onnx.data in scripts/fill-weights.py's layout
(graph order, 64-byte offsets: independent of the onnx version), the rest to
OUTDIR/model.onnx. The weights never travel: the build machine compiles the
artifact with --external-weights, the GPU machine exports again beside it,
and the runtime checks every external weight by hash at load. So the export
must write the same bytes on two CPUs, by construction:

  1. torch's own initialisation goes through the CPU's math (normal_'s
     Box-Muller in Sleef or glibc by ATEN_CPU_CAPABILITY, trunc_normal_'s
     erfinv in glibc's logf): redraw_parameters draws every parameter torch
     drew at random again from numpy's PCG64 bit stream with integer and
     exact float64 arithmetic (reproducible_uniform);
  2. a CNN's BatchNorm statistics come from a forward pass
     (calibrate_batch_norms), whose last bits differ between CPUs: the build
     machine calibrates once and writes OUTDIR/batch_norm_stats.npz, the
     bundle ships it, and the GPU machine's export loads it
     (--batch-norm-stats) instead of calibrating;
  3. the TorchScript exporter folds each BatchNorm into the Conv before it
     with ATen's arithmetic on the CPU at hand, and the H200 host's torch
     rounded it differently (DenseNet-121's folded convs): the export keeps
     the BatchNorms (export_with_weights' fold_batch_norms=False), so every
     float initializer is the bytes of a parameter or buffer of the module
     (the bench suite checks it), onnxruntime computes the module's own
     graph, and kiln folds them itself (kiln-fold-batch-norm, in fp32 before
     the fp16 cast; DenseNet-121's run-time steps are those of the folded
     graph, the fold of the large weights moves to the load-time init).
What is left to torch are constants (zeros, ones, ConvNeXt's layer scale,
buffers such as rotary frequencies) and the exporter's other constant
folding: ATEN_CPU_CAPABILITY=avx2 on both machines keeps those on one code
path.
Prints a JSON line with the two files' sha256s and sizes and a short sha256
per initializer (zoo.py names the tensors that differ).

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
import argparse
import hashlib
import importlib.util
import json
import math
import os
import sys

import numpy as np

# MKL's GEMM picks its code by CPU; like ATEN_CPU_CAPABILITY=avx2, this keeps
# whatever GEMM the export runs (a constant the exporter folds) on one path.
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


# Values drawn per call of numpy's bit generator (32 MiB of uint64).
REDRAW_CHUNK = 1 << 22
# The std torchvision gives its position and relative-position bias tables
# (ViT, Swin): the scale of a parameter that is neither a layer's weight nor
# its bias.
TABLE_STD = 0.02
BATCH_NORM_STATS = "batch_norm_stats.npz"


def reproducible_uniform(count, bound, key):
    """|count| float32 values uniform in (-bound, bound), the same bytes on any
    CPU: numpy's PCG64, seeded from the sha256 of the text |key|, gives each
    value 64 random bits (XSL-RR 128/64 seeded through SeedSequence: integer
    algorithms, unchanged since numpy 1.17; the bench suite pins known
    values); their top 24 bits k make the odd multiple (2k + 1 - 2^24) of
    2^-24, exact in float64, times |bound| (one IEEE rounding), then one
    rounding to float32. No transcendental function, no fused multiply-add,
    nothing a CPU's math library or vector width can change."""
    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:16], "little")
    generator = np.random.PCG64(seed)
    values = np.empty(count, dtype=np.float32)
    step = bound / (1 << 24)
    for start in range(0, count, REDRAW_CHUNK):
        raw = generator.random_raw(min(REDRAW_CHUNK, count - start))
        odd = (raw >> np.uint64(40)).astype(np.int64) * 2 + (1 - (1 << 24))
        values[start:start + len(raw)] = (odd.astype(np.float64) * step).astype(np.float32)
    return values


def transformers_conv1d():
    """transformers' Conv1D (GPT-2's linear layer, its weight stored (in,
    out)) when transformers is loaded, as it is for any module that has one;
    else None (a torchvision model does not pay for importing it)."""
    utils = sys.modules.get("transformers.pytorch_utils")
    return utils.Conv1D if utils else None


def fan_in(module, weight):
    """The inputs that each output of |module|'s |weight| sums: torch's fan-in,
    except for transformers' Conv1D, whose weight is (in, out)."""
    import torch
    conv1d = transformers_conv1d()
    if conv1d and isinstance(module, conv1d):
        return weight.shape[0]
    return torch.nn.init._calculate_fan_in_and_fan_out(weight)[0]


def layer_weights(module):
    """The weights of |module| that are a layer's linear map (convolution,
    linear, embedding, attention projection), by parameter name."""
    import torch
    layers = (torch.nn.modules.conv._ConvNd, torch.nn.Linear, torch.nn.Embedding)
    conv1d = transformers_conv1d()
    if isinstance(module, layers + ((conv1d,) if conv1d else ())):
        return {"weight": module.weight}
    if isinstance(module, torch.nn.MultiheadAttention):
        return {name: parameter for name, parameter in module.named_parameters(recurse=False)
                if name.endswith("proj_weight")}
    return {}


def redraw_bound(module, name, parameter):
    """The bound of reproducible_uniform for |module|'s parameter |name|, or
    None to keep torch's value. The scale comes from the shape only:
      - a convolution's weight: He's uniform bound sqrt(6 / fan-in), what
        torchvision's ReLU CNNs intend (SqueezeNet has no BatchNorm to undo a
        smaller one);
      - any other layer's weight (linear, embedding, attention projection):
        torch's nn.Linear bound 1 / sqrt(fan-in), a std of 0.021 at width 768
        (transformers' 0.02), even where the model sets it to zeros (ViT's
        head, whose logits would be zeros);
      - a parameter torch left constant (zeros, ones, ConvNeXt's layer scale
        1e-6, Swin-V2's logit scale log 10): kept, none of it random;
      - the bias of a layer: torch's bias bound 1 / sqrt(fan-in);
      - anything else (ViT's position embedding, Swin's relative-position
        bias tables): a std of TABLE_STD."""
    import torch
    if not parameter.is_floating_point():
        return None
    weights = layer_weights(module)
    if name in weights:
        conv = isinstance(module, torch.nn.modules.conv._ConvNd)
        return math.sqrt((6.0 if conv else 1.0) / fan_in(module, parameter))
    flat = parameter.detach().reshape(-1)
    if flat.numel() == 0 or bool((flat == flat[0]).all()):
        return None
    if name == "bias" and "weight" in weights:
        return 1.0 / math.sqrt(fan_in(module, weights["weight"]))
    return TABLE_STD * math.sqrt(3.0)


def redraw_parameters(module):
    """Draws every parameter of |module| that torch drew at random (and every
    layer weight) again with reproducible_uniform, keyed by its name, so that
    the weights are the same bytes on every CPU however torch drew them; an
    embedding's padding row stays zeros. Returns how many were drawn."""
    import torch
    drawn = set()
    for module_name, sub in module.named_modules():
        for name, parameter in sub.named_parameters(recurse=False):
            bound = redraw_bound(sub, name, parameter)
            if bound is None or id(parameter) in drawn:
                continue
            drawn.add(id(parameter))
            key = f"{module_name}.{name}" if module_name else name
            values = reproducible_uniform(parameter.numel(), bound, key)
            with torch.no_grad():
                parameter.copy_(torch.from_numpy(values).view(parameter.shape))
                if isinstance(sub, torch.nn.Embedding) and sub.padding_idx is not None:
                    parameter[sub.padding_idx] = 0
    return len(drawn)


def batch_norms(module):
    """|module|'s BatchNorms by name."""
    import torch
    return {name: sub for name, sub in module.named_modules()
            if isinstance(sub, torch.nn.modules.batchnorm._BatchNorm)}


def calibrate_batch_norms(module, side):
    """Gives every BatchNorm of |module| the running statistics of its
    activations on two seeded images of |side| x |side|, as training would.
    Returns how many there are.

    torch's initialisation with the identity statistics of eval mode lets a
    deep network's activations shrink layer by layer: MobileNet-V2's logits
    came out near 1e-10, below fp16's smallest subnormal, so kiln's and
    torch's fp16 outputs were all zeros and no comparison with onnxruntime
    meant anything (relative L2 1). With its own statistics every BatchNorm
    gives activations of unit scale, as trained weights do. The forward pass
    runs on one thread with ATen's own kernels, so that a second export on
    this machine gets the same statistics; another CPU's would differ in the
    last bits, which is why the bundle ships them (save_batch_norm_stats)."""
    import torch
    norms = list(batch_norms(module).values())
    if not norms:
        return 0
    threads, mkldnn = torch.get_num_threads(), torch.backends.mkldnn.enabled
    # Restored after: the exported BatchNormalization nodes carry it.
    momenta = [norm.momentum for norm in norms]
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
    finally:
        for norm, momentum in zip(norms, momenta):
            norm.momentum = momentum
        torch.set_num_threads(threads)
        torch.backends.mkldnn.enabled = mkldnn
    return len(norms)


def save_batch_norm_stats(module, path):
    """Writes every BatchNorm's running mean and variance (float32, keys
    NAME.running_mean and NAME.running_var) to the .npz file |path|."""
    np.savez(path, **{f"{name}.{stat}": getattr(norm, stat).numpy()
                      for name, norm in batch_norms(module).items()
                      for stat in ("running_mean", "running_var")})


def load_batch_norm_stats(module, path):
    """Sets every BatchNorm's running mean and variance from |path|
    (save_batch_norm_stats' file); a BatchNorm missing from it, a statistic
    of another shape or one the module does not have is an error."""
    import torch
    with np.load(path) as stats:
        expected = {f"{name}.{stat}": getattr(norm, stat)
                    for name, norm in batch_norms(module).items()
                    for stat in ("running_mean", "running_var")}
        if set(stats.files) != set(expected):
            missing, extra = sorted(set(expected) - set(stats.files)), \
                sorted(set(stats.files) - set(expected))
            raise ValueError(f"{path} does not fit the module: missing {missing[:4]}, "
                             f"not in the module {extra[:4]}")
        for key, buffer in expected.items():
            value = stats[key]
            if value.shape != tuple(buffer.shape) or value.dtype != np.float32:
                raise ValueError(f"{path}: {key} is {value.dtype} {value.shape}, the module's "
                                 f"is float32 {tuple(buffer.shape)}")
            with torch.no_grad():
                buffer.copy_(torch.from_numpy(value))
    return len(expected) // 2


def export(name, outdir, batch_norm_stats=None):
    """Builds NAME's module at its standard size with redrawn parameters,
    writes OUTDIR/model.onnx and model.onnx.data; returns (module, {file:
    sha256, ...}). A CNN's BatchNorms take their statistics from the file
    |batch_norm_stats| (the build machine's, shipped in the bundle) when
    given, else are calibrated here and written to OUTDIR/batch_norm_stats.npz;
    they are exported as BatchNormalization nodes, not folded."""
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
    redraw_parameters(module)
    if batch_norms(module):
        if batch_norm_stats:
            load_batch_norm_stats(module, batch_norm_stats)
        else:
            calibrate_batch_norms(module, STANDARD_SIZES[name]["image"] or 224)
            save_batch_norm_stats(module, os.path.join(outdir, BATCH_NORM_STATS))
    export_zoo.export_with_weights(name, EXPORTER, module, path, entry, fold_batch_norms=False)
    proto = onnx.load(path)
    # Per initializer, so that a WEIGHTS_DIFFER names the tensors that differ
    # (a BatchNorm's statistics, a constant the exporter computed...).
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("outdir")
    parser.add_argument("--batch-norm-stats", help="the BatchNorms' statistics to use "
                        "(a bundle's NAME/batch_norm_stats.npz) instead of calibrating")
    args = parser.parse_args()
    _, digests = export(args.name, args.outdir, args.batch_norm_stats)
    print(json.dumps(digests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
