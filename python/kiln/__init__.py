"""kiln: compile ONNX models (or torch modules) ahead of time to CUDA and run
them. kiln.compile needs the compiler half (kiln._compiler); kiln.load,
Model, Session and kiln.inspect need only the runtime (libkiln_python.so).
See docs/python.md."""

__version__ = "0.1.0"  # Also the wheel's (python/pyproject.toml reads it).

from .artifact import Artifact, ArtifactInfo, EntryPointInfo, inspect
from .compiler import compile, compiler_available, export_torch
from .errors import (CompileError, CompileWarning, CompilerUnavailableError, CudaError,
                     DataLossError, DeviceFaultError, FailedPreconditionError, IncompatibleError,
                     InternalError, InvalidArgumentError, KilnError, NotFoundError,
                     NumericError, ResourceExhaustedError, UnavailableError)
from .model import Model, Profile, Session, StepProfile, TensorSpec, load

__all__ = [
    "Artifact", "ArtifactInfo", "CompileError", "CompileWarning", "CompilerUnavailableError",
    "CudaError", "DataLossError", "DeviceFaultError", "EntryPointInfo", "FailedPreconditionError",
    "IncompatibleError", "InternalError", "InvalidArgumentError", "KilnError",
    "Model", "NotFoundError", "NumericError", "Profile", "ResourceExhaustedError",
    "Session", "StepProfile", "TensorSpec", "UnavailableError", "compile",
    "compiler_available", "export_torch", "inspect", "load",
]
