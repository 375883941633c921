"""Turning feeds into the runtime's kiln_tensor_t bindings: numpy arrays (and
anything numpy can view) as host memory, CUDA tensors of any DLPack producer
(torch, CuPy, JAX) as device memory without a copy; and allocating outputs."""

import ctypes
from dataclasses import dataclass

import numpy

from . import _library
from .errors import InvalidArgumentError

# kiln dtype name -> numpy dtype name ("bfloat16" needs ml_dtypes).
NUMPY_DTYPES = {
    "bool": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
}

# DLPack's (type code, bits) -> kiln dtype name. Codes: 0 int, 1 uint,
# 2 float, 4 bfloat, 6 bool.
_DLPACK_DTYPES = {
    (0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
    (1, 8): "u8", (1, 16): "u16", (1, 32): "u32", (1, 64): "u64",
    (2, 16): "f16", (2, 32): "f32", (2, 64): "f64", (4, 16): "bf16",
    (6, 8): "bool",
}
_DLPACK_CUDA = 2
_DLPACK_CUDA_HOST = 3  # Pinned host memory.
_DLPACK_CUDA_MANAGED = 13


def numpy_dtype(kiln_dtype):
    """The numpy dtype of a kiln dtype name; bfloat16 through ml_dtypes."""
    name = NUMPY_DTYPES[kiln_dtype]
    if name == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("kiln: a bf16 tensor as a numpy array needs the "
                            "ml_dtypes package; or pass and ask for torch "
                            "tensors (as_torch=True)") from None
        return numpy.dtype(ml_dtypes.bfloat16)
    return numpy.dtype(name)


def torch_dtype(kiln_dtype):
    import torch
    return {
        "bool": torch.bool, "i8": torch.int8, "i16": torch.int16,
        "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
        "u16": torch.uint16, "u32": torch.uint32, "u64": torch.uint64,
        "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
        "f64": torch.float64,
    }[kiln_dtype]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


@dataclass
class Binding:
    """One kiln_tensor_t and the Python objects that keep its memory alive
    until the run that reads or writes it completes."""

    tensor: _library.Tensor
    keepalive: tuple
    on_device: bool


def _describe(value):
    return f"{type(value).__module__}.{type(value).__name__}"


def _check(name, what, expected, got):
    if expected != got:
        raise InvalidArgumentError(
            1, f"'{name}': the model's {what} is {expected}, the tensor's is {got}")


def _is_cuda(value):
    """Whether |value| is a DLPack tensor in CUDA device memory."""
    device = getattr(value, "__dlpack_device__", None)
    if device is None or isinstance(value, numpy.ndarray):
        return False
    return device()[0] in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED)


def bind_device(name, value, info, stream_handle, device):
    """A device binding of |value|'s memory (no copy), after DLPack's stream
    handshake: the producer orders its pending writes before |stream_handle|."""
    # DLPack: 1 is the legacy default stream (0 is ambiguous for CUDA).
    capsule = value.__dlpack__(stream=stream_handle or 1)
    pointer = _capsule_pointer(capsule, b"dltensor")
    # DLManagedTensor starts with its DLTensor.
    tensor = _DLTensor.from_address(pointer)
    if tensor.device.device_id != device:
        raise InvalidArgumentError(
            1, f"'{name}': the tensor is on CUDA device {tensor.device.device_id}, "
               f"the session on device {device}")
    if tensor.dtype.lanes != 1:
        raise InvalidArgumentError(1, f"'{name}': vector dtypes are not supported")
    dtype = _DLPACK_DTYPES.get((tensor.dtype.code, tensor.dtype.bits))
    _check(name, "dtype", info.kiln_dtype, dtype or
           f"DLPack code {tensor.dtype.code} with {tensor.dtype.bits} bits")
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    _check(name, "shape", info.shape, shape)
    if tensor.strides:
        expected = 1
        for axis in reversed(range(tensor.ndim)):
            if shape[axis] != 1 and tensor.strides[axis] != expected:
                raise InvalidArgumentError(
                    1, f"'{name}': the tensor is not contiguous (strides "
                       f"{[tensor.strides[i] for i in range(tensor.ndim)]}); "
                       "pass tensor.contiguous()")
            expected *= shape[axis]
    data = (tensor.data or 0) + tensor.byte_offset
    binding = _library.Tensor(data, info.bytes, _library.MEMORY_DEVICE, 0, None, 0)
    # The capsule keeps the producer's memory (its DLManagedTensor) alive.
    return Binding(binding, (value, capsule), True)


def bind_host(name, value, info):
    """A host binding of |value| as a C-contiguous numpy array (a copy only
    when it is not one already); the runtime stages it through pinned memory."""
    try:
        array = numpy.asarray(value)
    except Exception as error:
        raise InvalidArgumentError(
            1, f"'{name}': cannot read a {_describe(value)} as an array: {error}") from error
    _check(name, "dtype", numpy_dtype(info.kiln_dtype), array.dtype)
    _check(name, "shape", info.shape, tuple(array.shape))
    array = numpy.ascontiguousarray(array)
    binding = _library.Tensor(array.ctypes.data, info.bytes, _library.MEMORY_HOST,
                              0, None, 0)
    return Binding(binding, (array,), False)


def bind(name, value, info, stream_handle, device):
    if _is_cuda(value):
        return bind_device(name, value, info, stream_handle, device)
    return bind_host(name, value, info)


def wants_torch_stream(value):
    """Whether |value| is a torch tensor on a CUDA device."""
    return type(value).__module__.startswith("torch") and _is_cuda(value)


def allocate(info, as_torch, device, torch_stream):
    """An output for |info|: a torch CUDA tensor allocated on |torch_stream|,
    or a numpy array."""
    if as_torch:
        import torch
        with torch.cuda.stream(torch_stream):
            return torch.empty(info.shape, dtype=torch_dtype(info.kiln_dtype),
                               device=f"cuda:{device}")
    return numpy.empty(info.shape, dtype=numpy_dtype(info.kiln_dtype))
