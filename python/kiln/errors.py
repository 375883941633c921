"""kiln's exceptions: runtime statuses (KilnError, one subclass per status code)
and compiler errors (CompileError, CompilerUnavailableError)."""

# The runtime's kiln_status_code_t (runtime/include/kiln/runtime.h).
STATUS_CODES = {
    1: "INVALID_ARGUMENT",
    2: "NOT_FOUND",
    3: "DATA_LOSS",
    4: "INCOMPATIBLE",
    5: "UNAVAILABLE",
    6: "RESOURCE_EXHAUSTED",
    7: "FAILED_PRECONDITION",
    8: "CUDA_ERROR",
    9: "NUMERIC_ERROR",
    10: "INTERNAL",
    11: "DEVICE_FAULT",
}


class CompileWarning(UserWarning):
    """What kiln-compile warns of, through Python's warnings: a kernel whose
    cubin keeps a stack frame (spilled registers or a local array), naming
    the kernel, its ONNX nodes, the arch and the bytes."""


class KilnError(RuntimeError):
    """A failed runtime call: ``code`` is the kiln_status_code_t value,
    ``code_name`` its name ("DATA_LOSS"), ``message`` the runtime's message."""

    def __init__(self, code, message):
        self.code = int(code)
        self.code_name = STATUS_CODES.get(self.code, f"UNKNOWN_{self.code}")
        self.message = message
        super().__init__(f"{self.code_name}: {message}")


class InvalidArgumentError(KilnError, ValueError):
    """A bad argument: an unknown name, a wrong shape, dtype or alignment."""


class NotFoundError(KilnError, FileNotFoundError):
    """A file or named entity that does not exist."""


class DataLossError(KilnError):
    """A truncated or corrupted artifact or weight file."""


class IncompatibleError(KilnError):
    """A format version, driver or GPU arch mismatch."""


class UnavailableError(KilnError):
    """No CUDA device, or no usable driver."""


class ResourceExhaustedError(KilnError, MemoryError):
    """Out of device or host memory."""


class FailedPreconditionError(KilnError):
    """A call in the wrong order or mode (e.g. a profile of an unprofiled session)."""


class CudaError(KilnError):
    """A CUDA, cuBLAS or cuDNN call failed; the message names it."""


class NumericError(KilnError):
    """Debug mode found NaN or Inf in a step's output."""


class InternalError(KilnError):
    """A bug in kiln."""


class DeviceFaultError(KilnError):
    """A kernel faulted (illegal address, trap): the CUDA context is lost."""


_ERROR_CLASSES = {
    1: InvalidArgumentError,
    2: NotFoundError,
    3: DataLossError,
    4: IncompatibleError,
    5: UnavailableError,
    6: ResourceExhaustedError,
    7: FailedPreconditionError,
    8: CudaError,
    9: NumericError,
    10: InternalError,
    11: DeviceFaultError,
}


def error_for_status(code, message):
    """The exception for a runtime status: its code's subclass of KilnError."""
    return _ERROR_CLASSES.get(int(code), KilnError)(code, message)


class CompileError(Exception):
    """The compiler rejected the model. ``errors`` holds one message per line,
    each naming its ONNX node where it has one."""

    def __init__(self, errors, source=None):
        self.errors = [line for line in errors.splitlines() if line] or [errors]
        self.source = source
        where = f" {source}" if source else ""
        super().__init__(f"kiln could not compile{where}:\n  " + "\n  ".join(self.errors))


class CompilerUnavailableError(ImportError):
    """This installation has only the runtime half (no kiln._compiler)."""
