"""kiln.compile's artifact cache: <cache_dir>/<key>.kiln, where the key is a
sha256 of the package version, the compile options, the ONNX model's bytes
and the bytes of every external-data file it references. A machine without
the compiler (a runtime-only installation) compiles from a cache that one
with the compiler filled; the runtime still checks each artifact completely,
and external weights by hash, when it loads it."""

import hashlib
import json
import os
import tempfile

from . import __version__
from .artifact import Artifact, describe_bytes


def file_digest(paths):
    """sha256 hex of the files' bytes, in order."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def external_files(data, source):
    """The external-data files the ModelProto |data| references, as paths
    beside |source|, each once."""
    try:
        import onnx
    except ImportError:
        raise ImportError("kiln.compile's cache_dir needs the onnx package, to find "
                          "the model's external-data files") from None
    proto = onnx.load_model_from_string(data)
    folder = os.path.dirname(source)
    files = []
    tensors = list(proto.graph.initializer)
    tensors += [attribute.t for node in proto.graph.node for attribute in node.attribute
                if attribute.HasField("t")]
    for tensor in tensors:
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            continue
        for entry in tensor.external_data:
            path = os.path.join(folder, entry.value)
            if entry.key == "location" and path not in files:
                files.append(path)
    return files


def key(data, source, options):
    """The cache key of compiling |data| (from |source|) with |options|."""
    digest = hashlib.sha256()
    digest.update(json.dumps({"kiln": __version__, **options}, sort_keys=True).encode())
    digest.update(hashlib.sha256(data).digest())
    for path in external_files(data, source):
        digest.update(os.path.basename(path).encode())
        digest.update(bytes.fromhex(file_digest([path])))
    return digest.hexdigest()[:40]


def load(cache_dir, cache_key, source):
    """The cached Artifact for |cache_key|, or None. Its external weights are
    looked up beside |source| (where the key's external files are)."""
    path = os.path.join(cache_dir, f"{cache_key}.kiln")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as file:
        data = file.read()
    info = describe_bytes(data, f"'{path}'")  # Checked as the runtime does.
    return Artifact(data=data,
                    external_data_dir=os.path.dirname(source) if info.external_files else None,
                    compiler_version=info.compiler_version, cuda_version=info.cuda_version,
                    cached=True)


def store(cache_dir, cache_key, artifact):
    """Writes |artifact| as <cache_dir>/<cache_key>.kiln (atomically)."""
    os.makedirs(cache_dir, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=cache_dir, suffix=".partial")
    with os.fdopen(handle, "wb") as file:
        file.write(artifact.data)
    os.chmod(temporary, 0o644)  # mkstemp's 0600 would keep others out.
    os.replace(temporary, os.path.join(cache_dir, f"{cache_key}.kiln"))
