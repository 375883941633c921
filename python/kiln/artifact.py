"""kiln.Artifact (what kiln.compile returns) and kiln.inspect: an artifact's
signature, entry points and steps, read and checked by the runtime's own
reader and validator, with no GPU needed."""

import ctypes
import functools
import json
import os
from dataclasses import dataclass, field

from ._library import check, library
from .model import TensorSpec


@dataclass(frozen=True)
class EntryPointInfo:
    name: str
    inputs: tuple
    outputs: tuple
    steps: tuple  # ({"name", "kind", "stream", "onnx_nodes", "flops"}, ...)
    streams: int
    events: int
    activation_arena_bytes: int
    workspace_bytes: int


@dataclass(frozen=True)
class ArtifactInfo:
    """What kiln.inspect reads from an artifact."""

    format_version: int
    bounds_checks: bool  # Compiled with bounds_checks=True (format 2).
    compiler_version: str
    cuda_version: str
    source_model: str
    archs: tuple
    kernels: int
    weights: int
    weight_arena_bytes: int
    external_files: tuple
    entry_points: tuple

    def entry_point(self, name=None):
        """The entry point |name| (default: the first that is not kiln_init)."""
        for entry in self.entry_points:
            if (entry.name == name) if name else entry.name != "kiln_init":
                return entry
        raise KeyError(f"no entry point {name!r} in "
                       f"{[entry.name for entry in self.entry_points]}")

    @property
    def inputs(self):
        return self.entry_point().inputs

    @property
    def outputs(self):
        return self.entry_point().outputs


def _specs(items):
    return tuple(TensorSpec.from_kiln(item["name"], item["dtype"], item["shape"],
                                      item["bytes"]) for item in items)


def describe_bytes(data, what="artifact"):
    """ArtifactInfo for the artifact |data| (bytes); raises the runtime's
    KilnError (DATA_LOSS for a damaged file, ...) when it does not check."""
    lib = library()
    out = ctypes.c_void_p()
    check(lib.kiln_python_describe_artifact(data, len(data), what.encode(),
                                            ctypes.byref(out)))
    try:
        raw = json.loads(ctypes.string_at(out.value).decode("utf-8", "replace"))
    finally:
        lib.kiln_python_free(out)
    entries = tuple(EntryPointInfo(
        name=entry["name"], inputs=_specs(entry["inputs"]),
        outputs=_specs(entry["outputs"]), steps=tuple(entry["steps"]),
        streams=entry["streams"], events=entry["events"],
        activation_arena_bytes=entry["activation_arena_bytes"],
        workspace_bytes=entry["workspace_bytes"]) for entry in raw["entry_points"])
    return ArtifactInfo(
        format_version=raw["format_version"], bounds_checks=raw["bounds_checks"],
        compiler_version=raw["compiler_version"],
        cuda_version=raw["cuda_version"], source_model=raw["source_model"],
        archs=tuple(raw["archs"]), kernels=raw["kernels"], weights=raw["weights"],
        weight_arena_bytes=raw["weight_arena_bytes"],
        external_files=tuple(raw["external_files"]), entry_points=entries)


def inspect(artifact):
    """ArtifactInfo of |artifact|: a path, bytes or a kiln.Artifact."""
    if isinstance(artifact, Artifact):
        return artifact.info
    if isinstance(artifact, (bytes, bytearray, memoryview)):
        return describe_bytes(bytes(artifact))
    path = os.fspath(artifact)
    with open(path, "rb") as file:
        return describe_bytes(file.read(), f"'{path}'")


@dataclass
class Artifact:
    """A compiled model: the .kiln bytes and what the compiler reported.
    kiln.load takes it as it is; save() writes the file."""

    data: bytes
    # Where its external weights are (the ONNX model's folder); None if none.
    external_data_dir: str = None
    compiler_version: str = ""
    cuda_version: str = ""
    summary: dict = field(default_factory=dict)
    phases_ms: dict = field(default_factory=dict)
    # Read from kiln.compile's cache (no summary or phases then).
    cached: bool = False

    @functools.cached_property
    def info(self):
        """ArtifactInfo (kiln.inspect) of these bytes."""
        return describe_bytes(self.data)

    @property
    def inputs(self):
        return self.info.inputs

    @property
    def outputs(self):
        return self.info.outputs

    def save(self, path):
        """Writes the artifact to |path|. An artifact with external weights
        finds them beside |path| or in load()'s external_data_dir."""
        with open(path, "wb") as file:
            file.write(self.data)
        return path

    def __repr__(self):
        steps = self.info.entry_point().steps
        library_calls = sum(step["kind"] in ("gemm", "conv") for step in steps)
        return (f"kiln.Artifact({len(self.data)} bytes, {self.info.kernels} kernels, "
                f"{library_calls} library calls{', from the cache' if self.cached else ''})")
