"""kiln.compile: an ONNX file, an onnx.ModelProto or a torch.nn.Module (exported
with torch.onnx) to a kiln.Artifact, through kiln._compiler (the compiler's
library functions; needs the compiler half of the package)."""

import importlib.util
import os
import shutil
import tempfile
import warnings

from . import cache
from .artifact import Artifact
from .errors import CompileError, CompileWarning, CompilerUnavailableError

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")


def compiler_available():
    """Whether this installation has the compiler (kiln._compiler)."""
    try:
        from . import _compiler  # noqa: F401
    except ImportError:
        return False
    return True


def _compiler_module():
    try:
        from . import _compiler
    except ImportError as error:
        if importlib.util.find_spec(f"{__package__}._compiler") is not None:
            raise CompilerUnavailableError(
                f"kiln._compiler is installed but does not load: {error}") from error
        raise CompilerUnavailableError(
            "kiln.compile needs the compiler half of the package (kiln._compiler, "
            "which links MLIR), and this installation has only the runtime (a "
            f"runtime-only wheel, or a build without KILN_BUILD_COMPILER): {error}. "
            "Compile where kiln's compiler is installed and kiln.load the .kiln "
            "file here.") from error
    return _compiler


def _shape_options(input_shapes):
    """kiln-compile's --input-shape strings from {"x": (8, 3, 224, 224),
    "batch": 8, "seq": "16..512"} (a graph input, a dimension name, or a
    dimension's range lo..hi[:opt], which kiln-compile checks)."""
    options = []
    for name, shape in (input_shapes or {}).items():
        if isinstance(shape, str) and ".." in shape:
            options.append(f"{name}={shape}")
            continue
        dims = (shape,) if isinstance(shape, int) else tuple(shape)
        if not dims or not all(isinstance(d, int) and d >= 0 for d in dims):
            raise ValueError(f"kiln.compile: input_shapes[{name!r}] must be a size, "
                             f"a sequence of sizes or a range 'lo..hi', not {shape!r}")
        options.append(f"{name}=" + "x".join(str(d) for d in dims))
    return options


def export_torch(module, example_inputs, path, *, input_names=None,
                 output_names=None, opset_version=17):
    """Exports |module| called on |example_inputs| (a tensor or a tuple) to
    the ONNX file |path| with torch.onnx's TorchScript exporter (opset 17, as
    the models kiln is tested with), in eval mode and without gradients.
    Inputs are named input_0... (or |input_names|), outputs output_0...
    (a tensor or a flat tuple of them); shapes are the example's."""
    import torch

    if example_inputs is None:
        raise ValueError("kiln.compile: a torch.nn.Module needs example_inputs")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    if input_names is None:
        input_names = [f"input_{i}" for i in range(len(example_inputs))]
    was_training = module.training
    module.eval()
    try:
        with torch.no_grad():
            if output_names is None:
                outputs = module(*example_inputs)
                count = len(outputs) if isinstance(outputs, (tuple, list)) else 1
                output_names = [f"output_{i}" for i in range(count)]
            torch.onnx.export(module, example_inputs, path, dynamo=False,
                              opset_version=opset_version,
                              input_names=list(input_names),
                              output_names=list(output_names))
    finally:
        module.train(was_training)
    return path


def _is_torch_module(model):
    return any(cls.__module__.startswith("torch.nn") and cls.__name__ == "Module"
               for cls in type(model).__mro__)


def _export_torch_to_cache(module, example_inputs, cache_dir):
    """Exports |module| into cache_dir/exports/<content hash>/model.onnx with
    its weights in model.onnx.data beside it (so that artifacts can leave
    them there, and the next export of the same module is found by its
    content), and returns the path."""
    import onnx

    exports = os.path.join(cache_dir, "exports")
    os.makedirs(exports, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="export-", dir=exports)
    try:
        path = export_torch(module, example_inputs, os.path.join(folder, "model.onnx"))
        proto = onnx.load(path)
        _move_weights_to_external_data(proto, path + ".data")
        with open(path, "wb") as file:
            file.write(proto.SerializeToString())
        digest = cache.file_digest([path, path + ".data"])
        final = os.path.join(exports, digest[:32])
        if os.path.isdir(final):
            shutil.rmtree(folder)
        else:
            os.replace(folder, final)
        return os.path.join(final, "model.onnx")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _move_weights_to_external_data(proto, data_path, threshold=1024, alignment=64):
    """Moves every initializer of |threshold| bytes or more (raw_data) into the
    file |data_path|, each at a multiple of |alignment|. kiln's own layout
    (not onnx.save's, whose defaults change between onnx versions), so that
    the same model gives the same bytes wherever it is exported."""
    import onnx

    offset = 0
    with open(data_path, "wb") as data:
        for tensor in proto.graph.initializer:
            if tensor.data_location == onnx.TensorProto.EXTERNAL or \
                    len(tensor.raw_data) < threshold:
                continue
            padding = -offset % alignment
            data.write(b"\0" * padding)
            offset += padding
            data.write(tensor.raw_data)
            del tensor.external_data[:]
            for key, value in (("location", os.path.basename(data_path)),
                               ("offset", str(offset)), ("length", str(len(tensor.raw_data)))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
            offset += len(tensor.raw_data)
            tensor.ClearField("raw_data")
            tensor.data_location = onnx.TensorProto.EXTERNAL


def _read_model(model):
    """(ModelProto bytes, source path) of a path, ModelProto or bytes."""
    if isinstance(model, (bytes, bytearray)):
        return bytes(model), os.path.join(os.getcwd(), "model.onnx")
    if hasattr(model, "SerializeToString"):  # onnx.ModelProto
        # External data is looked up in the working directory.
        return model.SerializeToString(), os.path.join(os.getcwd(), "model.onnx")
    source = os.path.abspath(os.fspath(model))
    with open(source, "rb") as file:
        return file.read(), source


def compile(model, *, input_shapes=None, precision="fp16", gpu_arch="sm_90",
            external_weights=None, example_inputs=None, max_streams=4,
            bounds_checks=False, cache_dir=None):
    """Compiles |model| into a kiln.Artifact.

    model: an ONNX file path, an onnx.ModelProto, serialized ModelProto bytes,
    or a torch.nn.Module with |example_inputs| (exported by export_torch at
    the examples' shapes).
    input_shapes: {graph input: shape} or {dimension name: size or "lo..hi"} for the
    symbolic dims (kiln-compile's --input-shape). precision: fp32, tf32, fp16
    or bf16 (fp32 accumulation). gpu_arch: "sm_90" or a list / comma list.
    external_weights: True leaves weights from the ONNX model's external-data
    file there (the artifact references them by hash), False copies them in;
    None decides by size (over 64 MiB stay external).
    bounds_checks: kernels check every data-dependent index (Gather,
    GatherElements, GatherND, ScatterElements, ScatterND) on the device, and a
    run with an index out of range fails naming the step, its ONNX nodes, the
    index, the bound and the axis (kiln-compile --bounds-checks).
    cache_dir (default: $KILN_CACHE_DIR): keep artifacts by the model's
    content and these options, and return a kept one instead of compiling,
    also where this installation has no compiler (docs/python.md). Torch
    exports are kept there too, with their weights as external data.

    Raises CompileError with the compiler's messages, and
    CompilerUnavailableError without a compiler (and no cached artifact)."""
    if precision not in PRECISIONS:
        raise ValueError(f"kiln.compile: precision must be one of {PRECISIONS}, "
                         f"not {precision!r}")
    archs = gpu_arch if isinstance(gpu_arch, str) else ",".join(gpu_arch)
    shapes = _shape_options(input_shapes)
    cache_dir = cache_dir or os.environ.get("KILN_CACHE_DIR") or None
    options = dict(input_shapes=shapes, precision=precision, gpu_arch=archs,
                   external_weights=external_weights, max_streams=int(max_streams),
                   bounds_checks=bool(bounds_checks))

    if not cache_dir:
        _compiler_module()  # Before reading or exporting what could not be compiled.
    if _is_torch_module(model):
        if cache_dir:
            model = _export_torch_to_cache(model, example_inputs, cache_dir)
        else:
            with tempfile.TemporaryDirectory(prefix="kiln-export-") as folder:
                path = export_torch(model, example_inputs,
                                    os.path.join(folder, "model.onnx"))
                # The export's folder goes away: copy its weights in.
                options["external_weights"] = False
                return _compile_bytes(*_read_model(path), options, None)
    elif example_inputs is not None:
        raise ValueError("kiln.compile: example_inputs are for a torch.nn.Module")
    return _compile_bytes(*_read_model(model), options, cache_dir)


def _compile_bytes(data, source, options, cache_dir):
    key = None
    if cache_dir:
        key = cache.key(data, source, options)
        cached = cache.load(cache_dir, key, source)
        if cached is not None:
            return cached
    try:
        compiler = _compiler_module()
    except CompilerUnavailableError as error:
        if key:
            raise CompilerUnavailableError(
                f"{error} The cache {cache_dir} has no artifact for this model and "
                f"these options (key {key}).") from None
        raise
    result = compiler.compile_onnx(data, source, options["input_shapes"],
                                   options["precision"], options["gpu_arch"],
                                   options["external_weights"], options["max_streams"],
                                   options["bounds_checks"])
    if not result["ok"]:
        raise CompileError(result["errors"], os.path.basename(source))
    for warning in result["warnings"]:
        warnings.warn(f"{os.path.basename(source)}: {warning}", CompileWarning,
                      stacklevel=3)
    artifact = Artifact(
        data=result["artifact"],
        compiler_version=result["compiler_version"],
        cuda_version=result["cuda_version"],
        summary=dict(result["summary"]),
        phases_ms=dict(result["phases"]))
    if artifact.summary.get("external_weights"):
        artifact.external_data_dir = os.path.dirname(source)
    if key:
        cache.store(cache_dir, key, artifact)
    return artifact
