#!/usr/bin/env python3
# Exports the model zoo of test/zoo: small configurations of common CNN,
# vision-transformer, encoder, decoder and encoder-decoder architectures, with
# both torch.onnx exporters, as graph-only ONNX files.
"""Usage: export-zoo.py OUTDIR [--only NAME ...] [--exporters torchscript dynamo]

Runs where torch, torchvision, transformers and onnxscript are installed
(export runs on the CPU). Each model is built from its config with random
initialisation (no downloads) and keeps its architecture's real structure:
torchvision CNNs are the real networks (the input resolution is symbolic, so
CI can run them small); transformer families use few layers and a small
hidden size. TorchScript exports use opset 17, dynamo exports opset 18.
Weights are stripped as scripts/export-real-models.py does (float
initializers of more than 16 elements keep name, type and dims only);
scripts/fill-weights.py regenerates them. The dynamo exporter's per-node
metadata (stack traces) is dropped too.

Writes OUTDIR/<model>-<exporter>.onnx and OUTDIR/zoo.json: per file its
inputs (name, dims with symbolic names, dtype, value range for integer
inputs), outputs, exporter, opset, node count and the op types; prints one
line per export, and the reason for each one that fails.
"""
import argparse
import importlib.util
import inspect
import json
import os
import time
import traceback
import warnings

import onnx
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "export_real_models", os.path.join(HERE, "export-real-models.py"))
export_real_models = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export_real_models)
strip_weights = export_real_models.strip_weights


def strip_metadata(model):
    """Drops the dynamo exporter's per-node metadata (stack traces with this
    machine's paths, FX node text): most of a small model's bytes."""
    for node in model.graph.node:
        del node.metadata_props[:]

VOCAB = 1000


# --- Wrappers: plain tensors in, plain tensors out --------------------------------

class Outputs(torch.nn.Module):
    """Calls |model| with keyword inputs (positional when |output_fields| is
    None) and returns the named outputs. A decoder without a mask input gets an
    all-ones mask built inside: without one, transformers 5 looks for packed
    sequences with torch.diff, which opset 17 cannot express."""

    def __init__(self, model, input_names, output_fields, ones_mask=False):
        super().__init__()
        self.model = model
        self.input_names = input_names
        self.output_fields = output_fields
        self.ones_mask = ones_mask

    def forward(self, *args):
        if self.output_fields is None:
            out = self.model(*args)
        else:
            kwargs = dict(zip(self.input_names, args))
            if self.ones_mask:
                kwargs["attention_mask"] = torch.ones_like(args[0])
            out = self.model(**kwargs)
        if isinstance(out, torch.Tensor):
            return out
        if isinstance(out, dict) and "out" in out:  # torchvision segmentation models
            return out["out"]
        return tuple(getattr(out, field) for field in self.output_fields)


def cache_tensors(cache, layers):
    """(key, value) per layer of a transformers Cache, across versions."""
    result = []
    for layer in range(layers):
        if hasattr(cache, "layers"):
            result += [cache.layers[layer].keys, cache.layers[layer].values]
        else:
            result += [cache.key_cache[layer], cache.value_cache[layer]]
    return result


class DecoderWithPast(torch.nn.Module):
    """A decoder step: new tokens plus every layer's past key and value in,
    hidden states plus the present keys and values out."""

    def __init__(self, model, layers):
        super().__init__()
        self.model = model
        self.layers = layers

    def forward(self, input_ids, attention_mask, *past):
        import transformers
        cache = transformers.DynamicCache()
        for layer in range(self.layers):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         past_key_values=cache, use_cache=True)
        return (out.last_hidden_state, *cache_tensors(out.past_key_values, self.layers))


class T5Decoder(torch.nn.Module):
    """T5's decoder stack alone, reading the encoder's hidden states."""

    def __init__(self, model):
        super().__init__()
        self.decoder = model.decoder

    def forward(self, decoder_input_ids, encoder_hidden_states, encoder_attention_mask):
        return self.decoder(input_ids=decoder_input_ids,
                            encoder_hidden_states=encoder_hidden_states,
                            encoder_attention_mask=encoder_attention_mask,
                            use_cache=False).last_hidden_state


# --- The zoo ---------------------------------------------------------------------

def image(name="input", size=None):
    return dict(name=name, dims=["batch", 3, "height", "width"] if size is None
                else ["batch", 3, size, size], dtype="float32")


def tokens(name="input_ids", seq="seq", high=VOCAB):
    return dict(name=name, dims=["batch", seq], dtype="int64", low=0, high=high)


def mask(name="attention_mask", seq="seq"):
    return dict(name=name, dims=["batch", seq], dtype="int64", low=1, high=2)


# Every builder takes keyword overrides of its configuration (none for the
# zoo's files; benchmarks/zoo_export.py's standard sizes pass them).

def torchvision_model(factory, **kwargs):
    def build(**overrides):
        import torchvision
        return getattr(torchvision.models, factory)(weights=None, **dict(kwargs, **overrides))
    return build


def segmentation_model(factory, **kwargs):
    def build(**overrides):
        import torchvision
        return getattr(torchvision.models.segmentation, factory)(
            weights=None, weights_backbone=None, aux_loss=False, **dict(kwargs, **overrides))
    return build


def small_vit(**overrides):
    from torchvision.models.vision_transformer import VisionTransformer
    config = dict(image_size=64, patch_size=16, num_layers=2, num_heads=4, hidden_dim=128,
                  mlp_dim=256, num_classes=10)
    return VisionTransformer(**dict(config, **overrides))


SMALL_SWIN = dict(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4],
                  window_size=[4, 4], num_classes=10)


def small_swin(**overrides):
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(**dict(SMALL_SWIN, **overrides))


def small_swin_v2(**overrides):
    from torchvision.models.swin_transformer import SwinTransformer, SwinTransformerBlockV2, \
        PatchMergingV2
    return SwinTransformer(block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2,
                           **dict(SMALL_SWIN, **overrides))


def transformers_model(cls, config_cls, **config):
    def build(**overrides):
        import transformers
        settings = dict(attn_implementation="eager")
        settings.update(config)
        settings.update(overrides)
        return getattr(transformers, cls)(getattr(transformers, config_cls)(**settings))
    return build


ENCODER = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
               intermediate_size=256, vocab_size=VOCAB, max_position_embeddings=128)
DECODER = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
               intermediate_size=256, vocab_size=VOCAB, max_position_embeddings=256)


def llama(kv_heads):
    return transformers_model("LlamaModel", "LlamaConfig", num_key_value_heads=kv_heads,
                              use_cache=False, **DECODER)


def gpt2_config():
    return dict(n_embd=128, n_layer=2, n_head=4, vocab_size=VOCAB, n_positions=256)


def gpt2_with_past(**overrides):
    import transformers
    config = transformers.GPT2Config(attn_implementation="eager", use_cache=True,
                                     **dict(gpt2_config(), **overrides))
    return DecoderWithPast(transformers.GPT2Model(config).eval(), config.n_layer)


def llama_with_past(**overrides):
    import transformers
    config = transformers.LlamaConfig(attn_implementation="eager", use_cache=True,
                                      **(dict(DECODER, num_key_value_heads=2) | overrides))
    return DecoderWithPast(transformers.LlamaModel(config).eval(), config.num_hidden_layers)


def t5_config():
    return dict(d_model=128, d_kv=32, d_ff=256, num_layers=2, num_decoder_layers=2,
                num_heads=4, vocab_size=VOCAB, feed_forward_proj="gated-gelu",
                attn_implementation="eager")


def t5_encoder(**overrides):
    import transformers
    return transformers.T5EncoderModel(transformers.T5Config(**dict(t5_config(), **overrides)))


def t5_decoder(**overrides):
    import transformers
    config = transformers.T5Config(**dict(t5_config(), **overrides))
    return T5Decoder(transformers.T5Model(config).eval())


def bart_part(which):
    def build(**overrides):
        import transformers
        config = transformers.BartConfig(**dict(dict(
            d_model=128, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256,
            vocab_size=VOCAB, max_position_embeddings=128, attn_implementation="eager"),
            **overrides))
        model = transformers.BartModel(config).eval()
        return model.get_encoder() if which == "encoder" else BartDecoder(model)
    return build


class BartDecoder(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.decoder = model.get_decoder()

    def forward(self, decoder_input_ids, encoder_hidden_states, encoder_attention_mask):
        return self.decoder(input_ids=decoder_input_ids,
                            encoder_hidden_states=encoder_hidden_states,
                            encoder_attention_mask=encoder_attention_mask,
                            use_cache=False).last_hidden_state


def past(layers, heads, head_dim):
    entries = []
    for layer in range(layers):
        for kind in ("key", "value"):
            entries.append(dict(name=f"past_{kind}_{layer}",
                                dims=["batch", heads, "past", head_dim], dtype="float32"))
    return entries


def present(layers):
    return [f"present_{kind}_{layer}" for layer in range(layers) for kind in ("key", "value")]


HIDDEN = ["last_hidden_state"]
CNN = dict(inputs=[image()], outputs=["logits"], fields=None,
           sample={"batch": 2, "height": 224, "width": 224}, family="cnn")

# name -> how to build it, its inputs and outputs, the sizes it is traced at,
# and what it covers.
ZOO = {
    "resnet18": dict(CNN, build=torchvision_model("resnet18"), covers="residual baseline"),
    "mobilenet_v2": dict(CNN, build=torchvision_model("mobilenet_v2"),
                         covers="depthwise convolutions, inverted residuals, ReLU6 (Clip)"),
    "mobilenet_v3_small": dict(CNN, build=torchvision_model("mobilenet_v3_small"),
                               covers="depthwise, squeeze-excite, hardswish"),
    "efficientnet_b0": dict(CNN, build=torchvision_model("efficientnet_b0"),
                            covers="depthwise, squeeze-excite, SiLU"),
    "shufflenet_v2": dict(CNN, build=torchvision_model("shufflenet_v2_x0_5"),
                          covers="channel shuffle (reshape-transpose-reshape), split"),
    "resnext50": dict(CNN, build=torchvision_model("resnext50_32x4d"),
                      covers="grouped convolutions (32 groups)"),
    "regnet_y_400mf": dict(CNN, build=torchvision_model("regnet_y_400mf"),
                           covers="grouped convolutions, squeeze-excite"),
    "convnext_tiny": dict(CNN, build=torchvision_model("convnext_tiny"),
                          covers="7x7 depthwise + LayerNorm (channels-last permutes), GELU"),
    "densenet121": dict(CNN, build=torchvision_model("densenet121"),
                        covers="dense concatenation, BatchNorm before conv"),
    "squeezenet": dict(CNN, build=torchvision_model("squeezenet1_1"),
                       covers="fire modules: 1x1/3x3 branches concatenated"),
    "mnasnet": dict(CNN, build=torchvision_model("mnasnet0_5"),
                    covers="depthwise 5x5, inverted residuals"),
    "deeplabv3": dict(CNN, build=segmentation_model("deeplabv3_mobilenet_v3_large"),
                      outputs=["out"], covers="dilated convolutions, ASPP, bilinear Resize "
                      "segmentation head"),
    "lraspp": dict(CNN, build=segmentation_model("lraspp_mobilenet_v3_large"),
                   outputs=["out"], covers="segmentation head, dilated depthwise"),
    "vit": dict(inputs=[image(size=64)], outputs=["logits"], fields=None,
                sample={"batch": 2}, family="vision transformer", build=small_vit,
                covers="patch embedding, class token, plain self-attention"),
    "swin": dict(inputs=[image(size=64)], outputs=["logits"], fields=None,
                 sample={"batch": 2}, family="vision transformer", build=small_swin,
                 covers="windowed and shifted attention (roll), relative position bias, "
                 "patch merging"),
    "swin_v2": dict(inputs=[image(size=64)], outputs=["logits"], fields=None,
                    sample={"batch": 2}, family="vision transformer", build=small_swin_v2,
                    covers="cosine attention, continuous position bias MLP"),
    "bert": dict(inputs=[tokens(), mask()], outputs=HIDDEN, fields=["last_hidden_state"],
                 sample={"batch": 2, "seq": 16}, family="encoder",
                 build=transformers_model("BertModel", "BertConfig", **ENCODER),
                 covers="absolute positions, padding mask"),
    "roberta": dict(inputs=[tokens(), mask()], outputs=HIDDEN, fields=["last_hidden_state"],
                    sample={"batch": 2, "seq": 16}, family="encoder",
                    build=transformers_model("RobertaModel", "RobertaConfig",
                                             **dict(ENCODER, max_position_embeddings=130)),
                    covers="positions from a CumSum of the padding mask"),
    "deberta_v2": dict(inputs=[tokens(), mask()], outputs=HIDDEN, fields=["last_hidden_state"],
                       sample={"batch": 2, "seq": 16}, family="encoder",
                       build=transformers_model("DebertaV2Model", "DebertaV2Config",
                                                **dict(ENCODER, relative_attention=True,
                                                       position_buckets=32,
                                                       pos_att_type=["p2c", "c2p"])),
                       covers="relative positions (disentangled attention)"),
    "roformer": dict(inputs=[tokens(), mask()], outputs=HIDDEN, fields=["last_hidden_state"],
                     sample={"batch": 2, "seq": 16}, family="encoder",
                     build=transformers_model("RoFormerModel", "RoFormerConfig",
                                              **dict(ENCODER, embedding_size=128)),
                     covers="rotary positions in an encoder"),
    "albert": dict(inputs=[tokens(), mask()], outputs=HIDDEN, fields=["last_hidden_state"],
                   sample={"batch": 2, "seq": 16}, family="encoder",
                   build=transformers_model("AlbertModel", "AlbertConfig",
                                            **dict(ENCODER, embedding_size=64)),
                   covers="factorised embedding, one layer shared"),
    "distilbert": dict(inputs=[tokens(), mask()], outputs=HIDDEN, fields=["last_hidden_state"],
                       sample={"batch": 2, "seq": 16}, family="encoder",
                       build=transformers_model("DistilBertModel", "DistilBertConfig",
                                                dim=128, n_layers=2, n_heads=4,
                                                hidden_dim=256, vocab_size=VOCAB,
                                                max_position_embeddings=128),
                       covers="absolute positions, no token types"),
    "gpt2": dict(inputs=[tokens()], outputs=HIDDEN, fields=["last_hidden_state"],
                 sample={"batch": 2, "seq": 16}, family="decoder",
                 build=transformers_model("GPT2Model", "GPT2Config", use_cache=False,
                                          **gpt2_config()),
                 covers="causal attention, tanh GELU, Conv1D projections"),
    "gpt2_past": dict(inputs=[tokens(), mask(seq="total")] + past(2, 4, 32),
                      outputs=HIDDEN + present(2), fields=None,
                      sample={"batch": 2, "seq": 4, "past": 12, "total": 16},
                      family="decoder", build=gpt2_with_past,
                      covers="past key/values in, present out (Concat along the sequence)"),
    "llama": dict(inputs=[tokens()], outputs=HIDDEN, fields=["last_hidden_state"],
                  sample={"batch": 2, "seq": 16}, family="decoder", build=llama(4),
                  covers="RMSNorm, rotary embedding, SiLU-gated MLP, multi-head attention"),
    "llama_gqa": dict(inputs=[tokens()], outputs=HIDDEN, fields=["last_hidden_state"],
                      sample={"batch": 2, "seq": 16}, family="decoder", build=llama(2),
                      covers="grouped-query attention (2 KV heads for 4 query heads)"),
    "llama_past": dict(inputs=[tokens(), mask(seq="total")] + past(2, 2, 32),
                       outputs=HIDDEN + present(2), fields=None,
                       sample={"batch": 2, "seq": 4, "past": 12, "total": 16},
                       family="decoder", build=llama_with_past,
                       covers="GQA decoder step with a key/value cache"),
    "qwen2": dict(inputs=[tokens()], outputs=HIDDEN, fields=["last_hidden_state"],
                  sample={"batch": 2, "seq": 16}, family="decoder",
                  build=transformers_model("Qwen2Model", "Qwen2Config", num_key_value_heads=2,
                                           use_cache=False, **DECODER),
                  covers="GQA with biased Q/K/V projections"),
    "t5_encoder": dict(inputs=[tokens(), mask()], outputs=HIDDEN, fields=["last_hidden_state"],
                       sample={"batch": 2, "seq": 16}, family="encoder-decoder",
                       build=t5_encoder,
                       covers="relative position buckets, RMS LayerNorm, gated GELU"),
    "t5_decoder": dict(inputs=[tokens("decoder_input_ids", "target"),
                               dict(name="encoder_hidden_states", dims=["batch", "seq", 128],
                                    dtype="float32"), mask("encoder_attention_mask")],
                       outputs=HIDDEN, fields=None,
                       sample={"batch": 2, "seq": 16, "target": 8},
                       family="encoder-decoder", build=t5_decoder,
                       covers="causal self-attention with relative bias, cross-attention"),
    "bart_encoder": dict(inputs=[tokens(), mask()], outputs=HIDDEN,
                         fields=["last_hidden_state"], sample={"batch": 2, "seq": 16},
                         family="encoder-decoder", build=bart_part("encoder"),
                         covers="learned positions with offset, post-LayerNorm"),
    "bart_decoder": dict(inputs=[tokens("decoder_input_ids", "target"),
                                 dict(name="encoder_hidden_states", dims=["batch", "seq", 128],
                                      dtype="float32"), mask("encoder_attention_mask")],
                         outputs=HIDDEN, fields=None,
                         sample={"batch": 2, "seq": 16, "target": 8},
                         family="encoder-decoder", build=bart_part("decoder"),
                         covers="causal self-attention and cross-attention"),
}


def sample_inputs(entry):
    torch.manual_seed(1)
    values = []
    for spec in entry["inputs"]:
        dims = [entry["sample"][d] if isinstance(d, str) else d for d in spec["dims"]]
        if spec["dtype"] == "int64":
            values.append(torch.randint(spec["low"], spec["high"], dims))
        else:
            values.append(torch.randn(*dims))
    return tuple(values)


def by_parameter(model, shapes):
    """torch.export's dynamic_shapes for forward's parameters: one entry per
    named parameter, a tuple for *args."""
    result, rest = {}, list(shapes)
    for parameter in inspect.signature(model.forward).parameters.values():
        if parameter.kind == inspect.Parameter.VAR_POSITIONAL:
            result[parameter.name] = tuple(rest)
            rest = []
        else:
            result[parameter.name] = rest.pop(0)
    return result


def build_module(name, entry=None, config=None):
    """The zoo's module |name| (its builder given the overrides |config|),
    initialised from seed 0 on the CPU, in eval mode, taking and returning
    plain tensors (the inputs and outputs of |entry|, default ZOO[name])."""
    entry = entry or ZOO[name]
    torch.manual_seed(0)
    model = entry["build"](**(config or {})).eval()
    names = [spec["name"] for spec in entry["inputs"]]
    if not isinstance(model, (DecoderWithPast, T5Decoder, BartDecoder)):
        model = Outputs(model, names, entry["fields"],
                        ones_mask=entry["family"] == "decoder")
    return model


def export(name, exporter, outdir):
    model = build_module(name)
    path = os.path.join(outdir, f"{name}-{exporter}.onnx")
    full = path + ".full"
    start = time.time()
    export_with_weights(name, exporter, model, full)
    proto = onnx.load(full, load_external_data=True)
    stripped = strip_weights(proto)
    strip_metadata(proto)
    onnx.save(proto, path)
    for leftover in (full, full + ".data"):
        if os.path.exists(leftover):
            os.remove(leftover)
    record = make_record(name, exporter, path, proto)
    print(f"{record['file']}: {record['nodes']} nodes, opset {record['opset']}, {stripped} "
          f"initializers stripped, {record['bytes']} bytes, {time.time() - start:.1f} s",
          flush=True)
    return record


def export_with_weights(name, exporter, model, path, entry=None, fold_batch_norms=True):
    """Exports |model| (build_module(name, entry)) to |path| as the zoo's files
    are exported: traced at |entry|'s (default ZOO[name]'s) sample sizes with
    its symbolic dims dynamic, weights kept (the dynamo exporter may put them
    in |path|.data). The TorchScript exporter folds each BatchNorm into the
    convolution before it (its eval-mode peephole pass, computing the new
    weights with ATen on this CPU); with |fold_batch_norms| False it exports
    in TrainingMode.PRESERVE instead, which of a module in eval mode changes
    only that: the BatchNorms stay BatchNormalization nodes in inference
    mode (the dynamo exporter never folds them)."""
    entry = entry or ZOO[name]
    names = [spec["name"] for spec in entry["inputs"]]
    args = sample_inputs(entry)
    # nn.MultiheadAttention's inference fast path is one fused aten op that
    # neither exporter knows; the regular path is MatMul/Softmax/MatMul.
    fastpath = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    training = model.training
    try:
        with torch.no_grad():
            model(*args)  # the eager model must run before it is exported
            if exporter == "torchscript":
                axes = {spec["name"]: {i: d for i, d in enumerate(spec["dims"])
                                       if isinstance(d, str)}
                        for spec in entry["inputs"]}
                # PRESERVE exports the mode the module is in: eval, as EVAL sets
                # it (build_module's wrapper itself is left in training mode).
                mode = torch.onnx.TrainingMode.EVAL if fold_batch_norms \
                    else torch.onnx.TrainingMode.PRESERVE
                model.eval()
                with warnings.catch_warnings():
                    # Its advice is for a module in training mode.
                    warnings.filterwarnings("ignore", "It is recommended that constant "
                                            "folding be turned off")
                    torch.onnx.export(model, args, path, opset_version=17, dynamo=False,
                                      input_names=names, output_names=entry["outputs"],
                                      dynamic_axes=axes, training=mode)
            else:
                dims = {}
                shapes = []
                for spec in entry["inputs"]:
                    shape = {}
                    for i, d in enumerate(spec["dims"]):
                        if isinstance(d, str):
                            dims.setdefault(d, torch.export.Dim(d, min=1, max=4096))
                            shape[i] = dims[d]
                    shapes.append(shape)
                program = torch.onnx.export(model, args, dynamo=True, opset_version=18,
                                            input_names=names, output_names=entry["outputs"],
                                            dynamic_shapes=by_parameter(model, shapes))
                program.save(path)
    finally:
        torch.backends.mha.set_fastpath_enabled(fastpath)
        model.train(training)


def make_record(name, exporter, path, proto):
    """zoo.json's entry for the graph-only file |path|."""
    entry = ZOO[name]
    stripped = sum(1 for t in proto.graph.initializer
                   if not (t.raw_data or t.float_data or t.int32_data or t.int64_data or
                           t.double_data or t.external_data))
    opset = max(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx"))
    return dict(file=os.path.basename(path), model=name, exporter=exporter,
                family=entry["family"], covers=entry["covers"], opset=opset,
                nodes=len(proto.graph.node), bytes=os.path.getsize(path),
                stripped=stripped, inputs=entry["inputs"],
                outputs=[o.name for o in proto.graph.output], sample=entry["sample"],
                op_types=sorted({n.op_type for n in proto.graph.node}))


def write_index(path, records, failures):
    import torchvision
    import transformers
    with open(path, "w") as f:
        json.dump(dict(torch=torch.__version__, transformers=transformers.__version__,
                       torchvision=torchvision.__version__, onnx=onnx.__version__,
                       models=[records[k] for k in sorted(records)],
                       export_failures=dict(sorted(failures.items()))), f, indent=1)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--only", nargs="*", default=list(ZOO))
    parser.add_argument("--exporters", nargs="*", default=["torchscript", "dynamo"])
    parser.add_argument("--reindex", action="store_true",
                        help="only (re)write zoo.json entries of the files in OUTDIR")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    import transformers
    import torchvision
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, "
          f"transformers {transformers.__version__}, onnx {onnx.__version__}")
    index = os.path.join(args.outdir, "zoo.json")
    records = {r["file"]: r for r in json.load(open(index))["models"]} \
        if os.path.exists(index) else {}
    failures = json.load(open(index)).get("export_failures", {}) if os.path.exists(index) else {}
    for name in args.only:
        for exporter in args.exporters:
            key = f"{name}-{exporter}"
            path = os.path.join(args.outdir, key + ".onnx")
            try:
                if args.reindex:
                    if not os.path.exists(path):
                        continue
                    proto = onnx.load(path)
                    strip_metadata(proto)
                    onnx.save(proto, path)
                    record = make_record(name, exporter, path, proto)
                else:
                    record = export(name, exporter, args.outdir)
                records[record["file"]] = record
                failures.pop(key, None)
            except Exception as error:  # Report and go on with the others.
                lines = [l for l in str(error).splitlines() if l.strip()]
                reason = f"{type(error).__name__}: {lines[0][:300] if lines else ''}"
                failures[key] = reason
                print(f"{key}: export failed: {reason}", flush=True)
                if os.environ.get("ZOO_TRACEBACK"):
                    traceback.print_exc()
            write_index(index, records, failures)  # after each: an interrupted run keeps it


if __name__ == "__main__":
    main()
