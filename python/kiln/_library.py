"""ctypes declarations of libkiln_python.so: the runtime's C API
(runtime/include/kiln/runtime.h) and kiln_python_describe_artifact. ctypes
needs no compiled Python extension, so the runtime half of the package runs on
any Python 3 the library's platform has (docs/python.md says why)."""

import ctypes
import os
import threading

from .errors import CudaError, error_for_status

c_status = ctypes.c_void_p  # kiln_status_t: NULL on success.
c_model = ctypes.c_void_p
c_session = ctypes.c_void_p
c_stream = ctypes.c_void_p  # cudaStream_t


class TensorInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_size_t),
        ("dims", ctypes.POINTER(ctypes.c_int64)),
        ("bytes", ctypes.c_size_t),
    ]


class Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("bytes", ctypes.c_size_t),
        ("memory", ctypes.c_int),
        ("dtype", ctypes.c_int),
        ("dims", ctypes.POINTER(ctypes.c_int64)),
        ("rank", ctypes.c_size_t),
    ]


# The option structs as runtime.h declares them (API version 1), then spare
# bytes: a newer runtime whose structs grew writes its defaults
# (kiln_*_options_init) into those, not past them, and reads only the first
# struct_size bytes that its _init set.
_SPARE = ("_spare", ctypes.c_uint64 * 32)


class LoadOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),  # Set by kiln_load_options_init.
        ("device_ordinal", ctypes.c_int),
        ("external_data_dir", ctypes.c_char_p),
        _SPARE,
    ]


class SessionOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),  # Set by kiln_session_options_init.
        ("entry_point", ctypes.c_char_p),
        ("device_ordinal", ctypes.c_int),
        ("debug", ctypes.c_int),
        ("check_nan_inf", ctypes.c_int),
        ("profile", ctypes.c_int),
        ("algorithm_cache_path", ctypes.c_char_p),
        _SPARE,
    ]


class StepProfile(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_char_p),
        ("onnx_nodes", ctypes.c_char_p),
        ("start_ms", ctypes.c_float),
        ("duration_ms", ctypes.c_float),
        ("bytes", ctypes.c_uint64),
        ("flops", ctypes.c_uint64),
        ("algorithm", ctypes.c_char_p),
        ("kernel_ms", ctypes.c_float),
        ("kernel_count", ctypes.c_int32),
        ("kernel_span_ms", ctypes.c_float),
    ]


MEMORY_DEVICE = 0
MEMORY_HOST = 1

# kiln_dtype_t values, by the runtime's names (kiln_dtype_name).
DTYPES = ["unspecified", "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
          "u64", "f16", "bf16", "f32", "f64"]

_SIGNATURES = {
    "kiln_status_code": (ctypes.c_int, [c_status]),
    "kiln_status_message": (ctypes.c_char_p, [c_status]),
    "kiln_status_free": (None, [c_status]),
    "kiln_load_options_init": (None, [ctypes.POINTER(LoadOptions)]),
    "kiln_model_load": (c_status, [ctypes.c_char_p, ctypes.POINTER(LoadOptions),
                                   ctypes.POINTER(c_model)]),
    "kiln_model_load_from_memory": (c_status, [ctypes.c_void_p, ctypes.c_size_t,
                                               ctypes.POINTER(LoadOptions),
                                               ctypes.POINTER(c_model)]),
    "kiln_model_release": (None, [c_model]),
    "kiln_model_entry_point_count": (ctypes.c_size_t, [c_model]),
    "kiln_model_entry_point_name": (ctypes.c_char_p, [c_model, ctypes.c_size_t]),
    "kiln_model_input_count": (ctypes.c_size_t, [c_model, ctypes.c_size_t]),
    "kiln_model_output_count": (ctypes.c_size_t, [c_model, ctypes.c_size_t]),
    "kiln_model_input_info": (c_status, [c_model, ctypes.c_size_t, ctypes.c_size_t,
                                         ctypes.POINTER(TensorInfo)]),
    "kiln_model_output_info": (c_status, [c_model, ctypes.c_size_t, ctypes.c_size_t,
                                          ctypes.POINTER(TensorInfo)]),
    "kiln_model_source": (ctypes.c_char_p, [c_model]),
    "kiln_model_cuda_version": (ctypes.c_char_p, [c_model]),
    "kiln_session_options_init": (None, [ctypes.POINTER(SessionOptions)]),
    "kiln_session_create": (c_status, [c_model, ctypes.POINTER(SessionOptions),
                                       ctypes.POINTER(c_session)]),
    "kiln_session_release": (None, [c_session]),
    "kiln_session_algorithm_log": (c_status, [c_session,
                                              ctypes.POINTER(ctypes.c_char_p)]),
    "kiln_session_bind_input": (c_status, [c_session, ctypes.c_char_p,
                                           ctypes.POINTER(Tensor)]),
    "kiln_session_bind_output": (c_status, [c_session, ctypes.c_char_p,
                                            ctypes.POINTER(Tensor)]),
    "kiln_session_set_input_shape": (c_status, [c_session, ctypes.c_char_p,
                                                ctypes.POINTER(ctypes.c_int64),
                                                ctypes.c_size_t]),
    "kiln_session_tensor_shape": (c_status, [c_session, ctypes.c_char_p,
                                             ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                                             ctypes.POINTER(ctypes.c_size_t)]),
    "kiln_session_run": (c_status, [c_session, c_stream]),
    "kiln_session_step_count": (ctypes.c_size_t, [c_session]),
    "kiln_session_step_profile": (c_status, [c_session, ctypes.c_size_t,
                                             ctypes.POINTER(StepProfile)]),
    "kiln_session_profile_source": (c_status, [c_session,
                                               ctypes.POINTER(ctypes.c_char_p)]),
    "kiln_python_describe_artifact": (c_status, [ctypes.c_void_p, ctypes.c_size_t,
                                                 ctypes.c_char_p,
                                                 ctypes.POINTER(ctypes.c_void_p)]),
    "kiln_python_free": (None, [ctypes.c_void_p]),
    # The CUDA runtime the library links (found through its dependencies):
    # numpy outputs are read after the run's stream completes.
    "cudaStreamSynchronize": (ctypes.c_int, [c_stream]),
    "cudaGetErrorString": (ctypes.c_char_p, [ctypes.c_int]),
    "cudaGetDeviceCount": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int)]),
}

LIBRARY_NAME = "libkiln_python.so"
_lock = threading.Lock()
_library = None


def library():
    """libkiln_python.so from this package's folder, loaded once, with every
    function's prototype set. KILN_PYTHON_LIBRARY overrides the path."""
    global _library
    with _lock:
        if _library is None:
            path = os.environ.get("KILN_PYTHON_LIBRARY") or os.path.join(
                os.path.dirname(os.path.abspath(__file__)), LIBRARY_NAME)
            try:
                loaded = ctypes.CDLL(path)
            except OSError as error:
                raise ImportError(
                    f"kiln: cannot load the runtime library {path}: {error}. It needs "
                    "the CUDA 13 runtime and cuBLASLt (libcudart.so.13, "
                    "libcublasLt.so.13 in /usr/local/cuda/lib64 or on the library "
                    "path) and cuDNN 9 (libcudnn.so.9).") from error
            for name, (restype, argtypes) in _SIGNATURES.items():
                function = getattr(loaded, name)
                function.restype = restype
                function.argtypes = argtypes
            _library = loaded
        return _library


def check(status):
    """Raises the KilnError subclass for a non-NULL status (freeing it)."""
    if not status:
        return
    lib = library()
    code = lib.kiln_status_code(status)
    message = (lib.kiln_status_message(status) or b"").decode("utf-8", "replace")
    lib.kiln_status_free(status)
    raise error_for_status(code, message)


def text(value):
    """A C string from the library as str ("" for NULL)."""
    return value.decode("utf-8", "replace") if value else ""


def cuda_error(error, what):
    """A CudaError for a failed CUDA runtime call of the package's own."""
    name = text(library().cudaGetErrorString(error))
    return CudaError(8, f"{what}: {name} (cudaError {error})")


def cuda_device_count():
    """CUDA devices the runtime sees (0 without a device or driver)."""
    count = ctypes.c_int(0)
    return count.value if library().cudaGetDeviceCount(ctypes.byref(count)) == 0 else 0
