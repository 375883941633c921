"""kiln.load, Model and Session: the runtime's C API (model load, session,
bind, run, step profiles) as Python objects. Needs a CUDA device."""

import ctypes
import dataclasses
import math
import os
from dataclasses import dataclass

from . import _library, tensors
from ._library import check, library, text
from .errors import InvalidArgumentError

_INIT_ENTRY_POINT = "kiln_init"


@dataclass(frozen=True)
class TensorSpec:
    """An input or output of an entry point. ``dtype`` is numpy's name
    ("float32", "bfloat16"), ``kiln_dtype`` the runtime's ("f32")."""

    name: str
    dtype: str
    shape: tuple
    bytes: int
    kiln_dtype: str

    @classmethod
    def from_kiln(cls, name, kiln_dtype, shape, size):
        return cls(name, tensors.NUMPY_DTYPES[kiln_dtype], tuple(shape), int(size),
                   kiln_dtype)


def _spec(info):
    return TensorSpec.from_kiln(text(info.name), _library.DTYPES[info.dtype],
                                [info.dims[i] for i in range(info.rank)], info.bytes)


def _stream_handle(stream):
    """A cudaStream_t from an int, a torch.cuda.Stream (.cuda_stream) or a
    CuPy stream (.ptr)."""
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    raise TypeError(f"kiln: stream must be an int (cudaStream_t), a torch.cuda.Stream "
                    f"or have .cuda_stream/.ptr, not {type(stream).__name__}")


class _OwnedHandle:
    """A runtime handle this object owns: released by close(), at the end of a
    with block, or when the object is collected."""

    _what = "handle"

    def _require(self):
        if not self._handle:
            raise ValueError(f"kiln: the {self._what} was closed")
        return self._handle

    def close(self):
        if self._handle:
            self._release(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None):
            self.close()


class Model(_OwnedHandle):
    """A loaded artifact: its kernels and weights on one device. Make sessions
    with session(); the model stays loaded while any of them lives (close()
    drops this object's reference)."""

    _what = "model"

    def __init__(self, handle, device):
        self._handle = handle
        self.device = device
        lib = library()
        self.entry_points = [text(lib.kiln_model_entry_point_name(handle, i))
                             for i in range(lib.kiln_model_entry_point_count(handle))]
        self.source = text(lib.kiln_model_source(handle))
        self.cuda_version = text(lib.kiln_model_cuda_version(handle))
        self._default_entry = next(
            (name for name in self.entry_points if name != _INIT_ENTRY_POINT),
            self.entry_points[0] if self.entry_points else "main")

    def _entry_index(self, entry_point):
        name = entry_point or self._default_entry
        if name not in self.entry_points:
            raise InvalidArgumentError(
                1, f"no entry point '{name}' (the artifact has {self.entry_points})")
        return self.entry_points.index(name)

    def signature(self, entry_point=None):
        """(inputs, outputs) of |entry_point| (default: "main"), as TensorSpecs."""
        lib = library()
        index = self._entry_index(entry_point)
        specs = []
        for count, get in ((lib.kiln_model_input_count, lib.kiln_model_input_info),
                           (lib.kiln_model_output_count, lib.kiln_model_output_info)):
            infos = []
            for i in range(count(self._require(), index)):
                info = _library.TensorInfo()
                check(get(self._handle, index, i, ctypes.byref(info)))
                infos.append(_spec(info))
            specs.append(infos)
        return specs[0], specs[1]

    @property
    def inputs(self):
        return self.signature()[0]

    @property
    def outputs(self):
        return self.signature()[1]

    def session(self, entry_point=None, *, debug=False, check_nan_inf=False,
                profile=False, algorithm_cache=None):
        """A Session of |entry_point| (default "main"). debug: synchronise after
        each step and name the failing one; check_nan_inf: in debug mode, fail on
        NaN/Inf; profile: time each step (Session.profile()); algorithm_cache:
        the file of cuBLASLt/cuDNN algorithm choices to reuse and extend
        (default $KILN_ALGO_CACHE, else none). Creating a session checks every
        library candidate against a reference first (Session.algorithm_log)."""
        lib = library()
        options = _library.SessionOptions()
        lib.kiln_session_options_init(ctypes.byref(options))
        name = entry_point or self._default_entry
        self._entry_index(name)
        options.entry_point = name.encode()
        options.debug = int(bool(debug))
        options.check_nan_inf = int(bool(check_nan_inf))
        options.profile = int(bool(profile))
        if algorithm_cache is not None:
            options.algorithm_cache_path = os.fsencode(algorithm_cache)
        handle = _library.c_session()
        check(lib.kiln_session_create(self._require(), ctypes.byref(options),
                                      ctypes.byref(handle)))
        inputs, outputs = self.signature(name)
        return Session(handle, self, name, inputs, outputs, bool(profile))

    @staticmethod
    def _release(handle):
        library().kiln_model_release(handle)

    def __repr__(self):
        return (f"kiln.Model({self.source!r}, device={self.device}, "
                f"inputs={[(s.name, s.dtype, s.shape) for s in self.inputs]}, "
                f"outputs={[(s.name, s.dtype, s.shape) for s in self.outputs]})")


def load(artifact, device=0, *, external_data_dir=None):
    """Loads an artifact (a path, or a kiln.Artifact from kiln.compile) onto
    CUDA device |device|. External weights are looked up in
    |external_data_dir|, else beside the artifact file (for a kiln.Artifact:
    beside the ONNX model it was compiled from)."""
    from .artifact import Artifact

    lib = library()
    options = _library.LoadOptions()
    lib.kiln_load_options_init(ctypes.byref(options))
    options.device_ordinal = int(device)
    handle = _library.c_model()
    if isinstance(artifact, Artifact):
        directory = external_data_dir or artifact.external_data_dir
        if directory:
            options.external_data_dir = os.fsencode(directory)
        # The bytes need only live during the call.
        check(lib.kiln_model_load_from_memory(artifact.data, len(artifact.data),
                                              ctypes.byref(options),
                                              ctypes.byref(handle)))
    else:
        if external_data_dir:
            options.external_data_dir = os.fsencode(external_data_dir)
        check(lib.kiln_model_load(os.fsencode(os.fspath(artifact)),
                                  ctypes.byref(options), ctypes.byref(handle)))
    return Model(handle, int(device))


@dataclass(frozen=True)
class StepProfile:
    """One plan step of the last run. Times are None when not measured."""

    name: str
    kind: str
    onnx_nodes: tuple
    start_ms: float
    duration_ms: float
    kernel_ms: float
    kernel_count: int
    bytes: int
    flops: int
    algorithm: str


@dataclass(frozen=True)
class Profile:
    """The last run's steps; ``source`` says where kernel times come from
    ("cupti", or "events: <why not>"); None outside profile mode."""

    source: str
    steps: tuple

    @property
    def total_ms(self):
        """The sum of the steps' event-timed durations (None unprofiled)."""
        times = [s.duration_ms for s in self.steps if s.duration_ms is not None]
        return sum(times) if times else None

    def table(self, top=None):
        """The steps as text, slowest first (all of them unless |top|)."""
        rows = sorted(self.steps, key=lambda s: -(s.duration_ms or 0))[:top]
        lines = [f"{'ms':>9} {'kernel ms':>9}  {'kind':<8} step (ONNX nodes)"]
        for step in rows:
            duration = "-" if step.duration_ms is None else f"{step.duration_ms:.4f}"
            kernel = "-" if step.kernel_ms is None else f"{step.kernel_ms:.4f}"
            nodes = ", ".join(step.onnx_nodes)
            lines.append(f"{duration:>9} {kernel:>9}  {step.kind:<8} {step.name}"
                         + (f" ({nodes})" if nodes else ""))
        return "\n".join(lines)


def _measured(value):
    return None if value < 0 else float(value)


class Session(_OwnedHandle):
    """One entry point ready to run: its arena, streams and CUDA graph. Use
    it from one thread at a time; runs are ordered on the device. close()
    waits for the last run and frees it."""

    _what = "session"

    def __init__(self, handle, model, entry_point, inputs, outputs, profiled):
        self._handle = handle
        self.model = model
        self.entry_point = entry_point
        self.inputs = inputs
        self.outputs = outputs
        self.profiled = profiled
        # The memory bound in the last run, alive until the next binds
        # (which wait for that run where host memory is involved) or close().
        self._bound = ()
        # Each input's shape in the runtime: the signature's (a ranged dim's
        # largest value) until a run feeds another.
        self._shapes = {spec.name: spec.shape for spec in inputs}

    def run(self, feeds, *, stream=None, as_torch=False, outputs=None):
        """Runs once and returns {output name: array}.

        feeds: {input name: tensor} or a list in input order. numpy arrays (and
        CPU tensors) are copied in through pinned staging; CUDA tensors of any
        DLPack producer (torch, CuPy) are bound zero-copy. as_torch: return
        torch CUDA tensors (allocated on the run's stream) instead of numpy
        arrays. outputs: {output name: CUDA tensor or numpy array} to write
        into instead of allocating.

        stream: the CUDA stream to run on (an int cudaStream_t or a
        torch.cuda.Stream); by default torch.cuda.current_stream() when torch
        tensors are involved, else the legacy default stream. Runs whose
        tensors are all on the device return without waiting; any host array
        makes the run synchronous (outputs are complete when it returns)."""
        handle = self._require()
        outputs = dict(outputs or {})
        feeds = self._feeds_by_name(feeds)
        unknown = sorted(set(outputs) - {spec.name for spec in self.outputs})
        if unknown:
            raise InvalidArgumentError(
                1, f"unknown outputs {unknown}; the outputs are "
                   f"{[spec.name for spec in self.outputs]}")
        uses_torch = as_torch or any(tensors.wants_torch_stream(value)
                                     for value in list(feeds.values()) + list(outputs.values()))
        torch_stream = self._torch_stream(stream) if uses_torch else None
        if stream is not None:
            stream_handle = _stream_handle(stream)
        else:
            stream_handle = torch_stream.cuda_stream if torch_stream is not None else 0

        device = self.model.device
        results = {}
        bindings = []
        lib = library()
        input_specs = [self._shaped(spec, feeds[spec.name]) for spec in self.inputs]
        resized = any(spec.shape != signature.shape
                      for spec, signature in zip(input_specs, self.inputs))
        output_specs = [self._at_shape(spec, self.shape(spec.name)) if resized else spec
                        for spec in self.outputs]
        for spec in input_specs:
            binding = tensors.bind(spec.name, feeds[spec.name], spec, stream_handle, device)
            check(lib.kiln_session_bind_input(handle, spec.name.encode(),
                                              ctypes.byref(binding.tensor)))
            bindings.append(binding)
        for spec in output_specs:
            value = outputs.get(spec.name)
            if value is None:
                value = tensors.allocate(spec, as_torch, device, torch_stream)
            results[spec.name] = value
            binding = tensors.bind(spec.name, value, spec, stream_handle, device)
            check(lib.kiln_session_bind_output(handle, spec.name.encode(),
                                               ctypes.byref(binding.tensor)))
            bindings.append(binding)
        # The previous run's memory may go now: the binds above replaced it.
        self._bound = tuple(bindings)
        if torch_stream is not None:
            # Tell torch's caching allocator that the run uses these tensors
            # on its stream, so memory freed meanwhile is not reused early.
            for binding in bindings:
                record = getattr(binding.keepalive[0], "record_stream", None)
                if binding.on_device and record is not None:
                    record(torch_stream)
        check(lib.kiln_session_run(handle, stream_handle))
        if not all(binding.on_device for binding in bindings):
            error = lib.cudaStreamSynchronize(stream_handle)
            if error:
                raise _library.cuda_error(error, "cudaStreamSynchronize after the run")
        return results

    def shape(self, name):
        """The current shape of input or output |name|: the signature's until
        a run feeds an input of another shape (an artifact compiled with a
        ranged dim, ``input_shapes={"batch": "1..64"}``), then the shapes
        that run's inputs give."""
        dims = (ctypes.c_int64 * 16)()
        rank = ctypes.c_size_t()
        check(library().kiln_session_tensor_shape(self._require(), name.encode(), dims,
                                                  len(dims), ctypes.byref(rank)))
        return tuple(dims[i] for i in range(rank.value))

    def _shaped(self, spec, value):
        """|spec| at the shape of the tensor fed for it, set in the runtime
        when it is not the current one: the runtime checks it against the
        artifact (a ranged dim's range, a static dim's size) and names the
        input, the dim and the range when it does not fit."""
        shape = getattr(value, "shape", None)
        if shape is None:
            return spec  # Not array-like: binding names what is wrong.
        shape = tuple(int(d) for d in shape)
        if shape == self._shapes[spec.name]:
            return self._at_shape(spec, shape)
        dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        try:
            check(library().kiln_session_set_input_shape(
                self._require(), spec.name.encode(), dims, len(shape)))
        except InvalidArgumentError as error:
            raise InvalidArgumentError(
                1, f"'{spec.name}': the tensor's shape {shape} does not fit the "
                   f"model's {spec.shape}: {error.message}") from None
        self._shapes[spec.name] = shape
        return self._at_shape(spec, shape)

    @staticmethod
    def _at_shape(spec, shape):
        """|spec| with |shape| and its bytes (the signature's bytes per
        element)."""
        shape = tuple(shape)
        if shape == spec.shape:
            return spec
        elements = math.prod(spec.shape)
        size = spec.bytes // elements * math.prod(shape) if elements else 0
        return dataclasses.replace(spec, shape=shape, bytes=size)

    def _feeds_by_name(self, feeds):
        names = [spec.name for spec in self.inputs]
        if not hasattr(feeds, "keys"):
            feeds = list(feeds)
            if len(feeds) != len(names):
                raise InvalidArgumentError(
                    1, f"{len(feeds)} inputs given, the entry point takes "
                       f"{len(names)}: {names}")
            return dict(zip(names, feeds))
        unknown = sorted(set(feeds) - set(names))
        missing = [name for name in names if name not in feeds]
        if unknown or missing:
            raise InvalidArgumentError(
                1, f"the inputs are {names}; "
                   + (f"missing {missing}" if missing else "")
                   + ("; " if unknown and missing else "")
                   + (f"unknown {unknown}" if unknown else ""))
        return dict(feeds)

    def _torch_stream(self, stream):
        import torch
        device = self.model.device
        if stream is None:
            return torch.cuda.current_stream(device)
        if isinstance(stream, torch.cuda.Stream):
            return stream
        handle = _stream_handle(stream)
        if handle == 0:
            return torch.cuda.default_stream(device)
        return torch.cuda.ExternalStream(handle, device=device)

    @property
    def algorithm_log(self):
        """Session creation's log of the library candidates it checked and the
        algorithm each Conv/Gemm step chose."""
        log = ctypes.c_char_p()
        check(library().kiln_session_algorithm_log(self._require(), ctypes.byref(log)))
        return text(log.value)

    def profile(self):
        """The last run's steps: name, kind, ONNX nodes, bytes, flops and, in a
        profile session (model.session(profile=True)), event-timed durations
        and CUPTI kernel times. Waits for the run in profile mode."""
        handle = self._require()
        lib = library()
        source = None
        if self.profiled:
            text_pointer = ctypes.c_char_p()
            check(lib.kiln_session_profile_source(handle, ctypes.byref(text_pointer)))
            source = text(text_pointer.value)
        steps = []
        for index in range(lib.kiln_session_step_count(handle)):
            step = _library.StepProfile()
            check(lib.kiln_session_step_profile(handle, index, ctypes.byref(step)))
            steps.append(StepProfile(
                name=text(step.name), kind=text(step.kind),
                onnx_nodes=tuple(n for n in text(step.onnx_nodes).split(", ") if n),
                start_ms=_measured(step.start_ms), duration_ms=_measured(step.duration_ms),
                kernel_ms=_measured(step.kernel_ms),
                kernel_count=None if step.kernel_count < 0 else step.kernel_count,
                bytes=step.bytes, flops=step.flops, algorithm=text(step.algorithm)))
        return Profile(source, tuple(steps))

    def _release(self, handle):
        library().kiln_session_release(handle)  # Waits for the last run.
        self._bound = ()
