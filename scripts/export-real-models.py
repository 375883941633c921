#!/usr/bin/env python3
# Exports ResNet-50, BERT-base and GPT-2 with torch.onnx.export (TorchScript at
# opset 17 and dynamo at opset 18) and writes graph-only copies: float
# initializers of more than 16 elements lose their data (dims kept); scalars,
# small float constants and integer/bool initializers stay whole.
"""Usage: export-real-models.py OUTDIR [--only NAME ...]

Runs where torch, torchvision, transformers and onnxscript are installed (the
GPU machine; export itself runs on the CPU). Models are built from their
configs with random initialisation (no downloads): torchvision resnet50,
transformers BertModel(BertConfig()) and GPT2Model(GPT2Config()), with eager
attention so attention appears as MatMul/Softmax/MatMul. Symbolic dims:
`batch` (all three) and `seq` (BERT, GPT-2). Writes OUTDIR/<model>-<exporter>.onnx
and prints one line per file with its node count, opset and size.
"""
import argparse
import os
import time

import onnx
import torch

MAX_KEPT_FLOAT_ELEMENTS = 16
FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16,
               onnx.TensorProto.BFLOAT16, onnx.TensorProto.DOUBLE}


def strip_weights(model):
    """Removes the data of large float initializers, keeping name, type and dims."""
    stripped = 0
    for tensor in model.graph.initializer:
        count = 1
        for dim in tensor.dims:
            count *= dim
        if tensor.data_type in FLOAT_TYPES and count > MAX_KEPT_FLOAT_ELEMENTS:
            for field in ("raw_data", "float_data", "double_data", "int32_data"):
                tensor.ClearField(field)
            del tensor.external_data[:]
            tensor.data_location = onnx.TensorProto.DEFAULT
            stripped += 1
    return stripped


def build(name):
    torch.manual_seed(0)
    if name == "resnet50":
        import torchvision
        model = torchvision.models.resnet50(weights=None).eval()
        args = (torch.randn(2, 3, 224, 224),)
        names = (["input"], ["logits"])
        axes = {"input": {0: "batch"}, "logits": {0: "batch"}}
        return model, args, names, axes
    import transformers
    if name == "bert":
        config = transformers.BertConfig(attn_implementation="eager")
        model = transformers.BertModel(config).eval()
        ids = torch.randint(0, config.vocab_size, (2, 16))
        mask = torch.ones(2, 16, dtype=torch.int64)
        args = (ids, mask)
        names = (["input_ids", "attention_mask"], ["last_hidden_state", "pooler_output"])
        axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                "last_hidden_state": {0: "batch", 1: "seq"}, "pooler_output": {0: "batch"}}
        return model, args, names, axes
    if name == "gpt2":
        config = transformers.GPT2Config(attn_implementation="eager", use_cache=False)
        model = transformers.GPT2Model(config).eval()
        ids = torch.randint(0, config.vocab_size, (2, 16))
        args = (ids,)
        names = (["input_ids"], ["last_hidden_state"])
        axes = {"input_ids": {0: "batch", 1: "seq"}, "last_hidden_state": {0: "batch", 1: "seq"}}
        return model, args, names, axes
    raise SystemExit(f"unknown model {name}")


class ResNetOutputs(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input):
        return self.model(input)


class BertOutputs(torch.nn.Module):
    """Returns plain tensors (transformers return ModelOutput objects)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        return out.last_hidden_state, out.pooler_output


class GPT2Outputs(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        # An explicit all-ones mask: without one, transformers 5 looks for
        # packed sequences with torch.diff, which opset 17 cannot express.
        mask = torch.ones_like(input_ids)
        return self.model(input_ids=input_ids, attention_mask=mask).last_hidden_state


WRAPPERS = {"resnet50": ResNetOutputs, "bert": BertOutputs, "gpt2": GPT2Outputs}


def export(name, exporter, outdir):
    model, args, (inputs, outputs), axes = build(name)
    wrapped = WRAPPERS[name](model).eval()
    path = os.path.join(outdir, f"{name}-{exporter}.onnx")
    full = path + ".full"
    start = time.time()
    with torch.no_grad():
        if exporter == "torchscript":
            torch.onnx.export(wrapped, args, full, opset_version=17, dynamo=False,
                              input_names=inputs, output_names=outputs,
                              dynamic_axes=axes)
        else:
            batch = torch.export.Dim("batch", min=1, max=1024)
            seq = torch.export.Dim("seq", min=2, max=1024)
            shapes = {arg: ({0: batch} if name == "resnet50" else {0: batch, 1: seq})
                      for arg in inputs}
            program = torch.onnx.export(wrapped, args, dynamo=True, opset_version=18,
                                        input_names=inputs, output_names=outputs,
                                        dynamic_shapes=shapes)
            program.save(full)
    proto = onnx.load(full, load_external_data=True)
    stripped = strip_weights(proto)
    onnx.save(proto, path)
    for leftover in (full, full + ".data"):
        if os.path.exists(leftover):
            os.remove(leftover)
    opset = [o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")]
    print(f"{os.path.basename(path)}: {len(proto.graph.node)} nodes, opset {opset}, "
          f"{stripped} initializers stripped, {os.path.getsize(path)} bytes, "
          f"{time.time() - start:.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--only", nargs="*", default=["resnet50", "bert", "gpt2"])
    parser.add_argument("--exporters", nargs="*", default=["torchscript", "dynamo"])
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    print(f"torch {torch.__version__}, onnx {onnx.__version__}")
    for name in args.only:
        for exporter in args.exporters:
            try:
                export(name, exporter, args.outdir)
            except Exception as error:  # Report and go on with the others.
                print(f"{name}-{exporter}: export failed: {type(error).__name__}: "
                      f"{str(error).splitlines()[0] if str(error) else ''}")


if __name__ == "__main__":
    main()
