"""Oxide kernels from Python: load a library built with ``oxcc build --shared`` and call its
exported kernels on PyTorch tensors, CuPy and JAX arrays (DLPack, ``__cuda_array_interface__``)
on the GPU, or on NumPy arrays and CPU tensors on Oxide's CPU simulator.

    import oxide, torch
    lib = oxide.load("libkernels.so")
    x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
    out = torch.empty_like(x)
    lib.add(x, y, out)               # on torch.cuda.current_stream(), no synchronisation

Calls go through the library's C ABI (include/oxide/c_api.h): by the compiled extension
``oxide._fastcall`` when it is built (python/fastcall, one .abi3.so for every CPython 3.8+), else
by ctypes, in pure Python; both give the same results and the same errors. docs/interop.md is the
guide.
"""

import ctypes
import numbers
import os
import pkgutil
import re
import struct
import sys
import threading

# The build tree keeps the extension in <build>/python/oxide: with that folder's parent on
# sys.path beside python/, this package finds it.
__path__ = pkgutil.extend_path(__path__, __name__)

__all__ = [
    "load",
    "fill",
    "Library",
    "Kernel",
    "Param",
    "OxideError",
    "ContractError",
    "AliasingError",
    "ArgumentError",
    "KernelFault",
    "DeviceError",
    "SIMULATOR",
    "HAVE_EXTENSION",
    "EXTENSION_ERROR",
]


def _load_extension():
    """(oxide._fastcall, None), or (None, why not). OXIDE_EXTENSION=0 leaves it out, =1 makes a
    failure to load it an ImportError."""
    setting = os.environ.get("OXIDE_EXTENSION", "")
    if setting == "0":
        return None, "disabled by OXIDE_EXTENSION=0"
    try:
        import importlib
        _fastcall = importlib.import_module(__name__ + "._fastcall")
    except ImportError as e:
        why = str(e)
        if isinstance(e, ModuleNotFoundError):
            why += " (it is <build>/python/oxide/_fastcall.abi3.so: put <build>/python on PYTHONPATH)"
        if setting == "1":
            raise ImportError("oxide: OXIDE_EXTENSION=1 but the compiled extension oxide._fastcall does "
                              "not load: %s" % why) from e
        return None, "oxide._fastcall does not load: %s" % why
    if _fastcall.C_API_VERSION != 1:
        return None, "oxide._fastcall speaks C ABI version %d; this package speaks 1" % _fastcall.C_API_VERSION
    return _fastcall, None


_fastcall, EXTENSION_ERROR = _load_extension()
#: Whether kernels are called through the compiled extension (by default; ``load(path,
#: extension=False)`` takes the ctypes path all the same). EXTENSION_ERROR says why not.
HAVE_EXTENSION = _fastcall is not None

#: The device of host memory: kernels on NumPy arrays and CPU tensors run on the CPU simulator.
SIMULATOR = -1

_ARG_TENSOR = 0
_ARG_SCALAR = 1
_MAX_DIMS = 4


def _dtype(code, bits):
    return (code << 8) | bits


_I64, _U64, _F64, _BOOL = _dtype(0, 64), _dtype(1, 64), _dtype(2, 64), _dtype(6, 8)

_DTYPE_NAMES = {
    _dtype(0, 8): "int8", _dtype(0, 16): "int16", _dtype(0, 32): "int32", _dtype(0, 64): "int64",
    _dtype(1, 8): "uint8", _dtype(1, 16): "uint16", _dtype(1, 32): "uint32", _dtype(1, 64): "uint64",
    _dtype(2, 16): "float16", _dtype(2, 32): "float32", _dtype(2, 64): "float64",
    _dtype(4, 16): "bfloat16", _BOOL: "bool",
}

# NumPy / __cuda_array_interface__ type strings: kind letter -> DLPack type code.
_TYPESTR_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}

_KINDS = {
    "i": "input span", "m": "mutable span", "o": "output span", "2": "2-D output span",
    "3": "3-D output span", "a": "atomic span", "u": "unsigned integer", "s": "signed integer",
    "x": "scalar",
}

# ---------------------------------------------------------------------------------------------
# Errors: the kind names are the runtime's (oxide::ErrorKind), read from the library.


class OxideError(RuntimeError):
    """A failed launch. ``kind`` is the runtime's name for the failure (``"RequiresViolated"``),
    ``kernel`` the kernel's name; ``str()`` the runtime's message."""

    def __init__(self, message, kind="Other", kernel=None):
        super().__init__(message)
        self.kind = kind
        self.kernel = kernel


class ContractError(OxideError, ValueError):
    """The arguments or launch settings break the kernel's launch contract (a ``requires``
    relation, a scalar out of its parameter's range, a negative size, a block, domain or dynamic
    shared memory the contract does not allow)."""


class AliasingError(OxideError, ValueError):
    """Memory the kernel writes is also passed through another argument."""


class ArgumentError(OxideError, TypeError):
    """An argument that cannot be the parameter: wrong dtype, rank, strides, alignment, count."""


class KernelFault(OxideError):
    """The kernel trapped, failed an assert or indexed out of bounds (reported at once on the
    simulator; on a GPU by the next synchronisation, as a CUDA error of the framework)."""


class DeviceError(OxideError):
    """No such device, arguments on different devices, a stream of another device."""


_ERROR_CLASSES = {
    "RequiresViolated": ContractError,
    "RequiresOverflow": ContractError,
    "NegativeArgument": ContractError,
    "ArgumentOutOfRange": ContractError,
    "BlockMismatch": ContractError,
    "DomainMismatch": ContractError,
    "DynamicSharedOutOfRange": ContractError,
    "OverlappingArguments": AliasingError,
    "ArgumentMismatch": ArgumentError,
    "DtypeMismatch": ArgumentError,
    "UnsupportedStrides": ArgumentError,
    "MisalignedArgument": ArgumentError,
    "LayoutMismatch": ArgumentError,
    "KernelFault": KernelFault,
    "NoDevice": DeviceError,
    "WrongStreamContext": DeviceError,
    "WrongContext": DeviceError,
    "UnsupportedOnSimulator": DeviceError,
}

# ---------------------------------------------------------------------------------------------
# The C ABI's structs (include/oxide/c_api.h).


class _ParamInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_uint32),
        ("elem_size", ctypes.c_uint32),
        ("writable", ctypes.c_int32),
    ]


# oxide_arg: type, dtype, data, ndim, reserved, shape[4], strides[4]
_ARG = struct.Struct("<iiQii4q4q")
# oxide_launch_config: device, dynamic_shared_bytes, stream, grid[3], block[3], threads[3]
_CONFIG = struct.Struct("<iIQ3I3I3Q")
assert _ARG.size == 88 and _CONFIG.size == 64


class Param:
    """One parameter of a kernel: ``name``, ``kind`` (the letter of oxide/c_api.h's
    OXIDE_PARAM_*), ``dtype`` (``"float32"``...), ``rank`` (0 for scalars), ``writable``."""

    __slots__ = ("name", "kind", "dtype", "dtype_code", "rank", "elem_size", "writable")

    def __init__(self, info):
        self.name = info.name.decode()
        self.kind = chr(info.kind)
        self.dtype_code = info.dtype
        self.dtype = _DTYPE_NAMES.get(info.dtype, "unsupported")
        self.rank = info.rank
        self.elem_size = info.elem_size
        self.writable = bool(info.writable)

    def __repr__(self):
        return "Param(%s: %s of %s%s)" % (self.name, _KINDS.get(self.kind, self.kind), self.dtype,
                                          ", written" if self.writable else "")


# ---------------------------------------------------------------------------------------------
# Arguments: each object becomes an oxide_arg and the device it lives on.


def _contiguous_strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


class _Torch:
    """PyTorch tensors, read without DLPack (the fastest path: a few attribute reads)."""

    def __init__(self, torch):
        self.torch = torch
        self.tensor_type = torch.Tensor
        d = torch
        self.dtypes = {
            d.float32: _dtype(2, 32), d.float64: _dtype(2, 64), d.float16: _dtype(2, 16),
            d.bfloat16: _dtype(4, 16), d.int8: _dtype(0, 8), d.int16: _dtype(0, 16),
            d.int32: _dtype(0, 32), d.int64: _dtype(0, 64), d.uint8: _dtype(1, 8), d.bool: _BOOL,
        }
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.current_stream = raw if raw is not None else (
            lambda index: torch.cuda.current_stream(index).cuda_stream)

    def stream(self, device):
        return self.current_stream(device)


_torch = None


class _NoType:
    """Stands for torch.Tensor before torch is imported: nothing is an instance of it."""



def _torch_module():
    """The torch helper once torch is imported (by anyone), else None."""
    global _torch
    torch = sys.modules.get("torch")
    if torch is not None:
        _torch = _Torch(torch)
        if _fastcall is not None:  # the extension reads torch tensors from now on
            _fastcall.configure(tensor_type=_torch.tensor_type, dtype_codes=_torch.dtypes,
                                current_stream=_torch.current_stream, sample=torch.empty(0))
    return _torch


def _typestr_dtype(typestr):
    code = _TYPESTR_CODES.get(typestr[1])
    if code is None or typestr[0] == ">":
        raise TypeError("elements of type %r" % typestr)
    return _dtype(code, 8 * int(typestr[2:]))


def _interface(desc, device):
    shape = tuple(desc["shape"])
    dtype = _typestr_dtype(desc["typestr"])
    itemsize = int(desc["typestr"][2:])
    strides = desc.get("strides")
    if strides is None:
        strides = _contiguous_strides(shape)
    else:
        if any(s % itemsize for s in strides):
            raise TypeError("strides that are not whole elements")
        strides = tuple(s // itemsize for s in strides)
    ptr, readonly = desc["data"]
    return ptr or 0, dtype, shape, strides, device, bool(readonly)


# DLPack, parsed with ctypes: DLManagedTensor starts with its DLTensor.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_kDLCPU, _kDLCUDA, _kDLCUDAHost, _kDLCUDAManaged = 1, 2, 3, 13


def _dlpack(obj, stream):
    """(descriptor, capsule): the capsule must outlive the launch (it owns the export)."""
    try:
        kind, index = obj.__dlpack_device__()
    except AttributeError:
        kind, index = _kDLCUDA, 0
    if kind in (_kDLCUDA, _kDLCUDAManaged):
        # The producer orders its pending work before `stream` (the DLPack protocol); 1 is the
        # legacy default stream, which a null CUstream is.
        capsule = obj.__dlpack__(stream=stream if stream else 1)
        device = index
    elif kind in (_kDLCPU, _kDLCUDAHost):
        capsule = obj.__dlpack__()
        device = SIMULATOR
    else:
        raise TypeError("a DLPack tensor on device type %d (Oxide takes CUDA and CPU memory)" % kind)
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if t.dtype.lanes != 1:
        raise TypeError("a vector dtype (%d lanes)" % t.dtype.lanes)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else _contiguous_strides(shape)
    dtype = _dtype(t.dtype.code, t.dtype.bits)
    data = (t.data or 0) + t.byte_offset
    return (data, dtype, shape, strides, device, False), capsule


def _stream_handle(stream):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr", "handle"):  # torch, CuPy, cuda-python
        value = getattr(stream, attribute, None)
        if value is not None:
            return int(value)
    return int(stream)


# ---------------------------------------------------------------------------------------------
# Kernels and libraries.


class Kernel:
    """An exported kernel. Call it with one argument per parameter (positionally or by the
    contract's parameter names) and optional launch settings:

    - ``grid``, ``block``: the launch shape (ints or tuples); by default the contract's block
      and enough blocks to cover ``threads``;
    - ``threads``: the threads to cover (default: the extents of the first output);
    - ``stream``: a torch/CuPy stream or a raw CUstream; by default the framework's current
      stream of the arguments' device (the legacy default stream for JAX and raw pointers);
    - ``dynamic_shared_bytes``.

    Tensors: anything with ``__cuda_array_interface__``, ``__dlpack__`` or
    ``__array_interface__`` (NumPy) and torch tensors; host memory runs on the simulator.
    Scalars: ints, floats, bools (checked against the parameter's type).

    ``binding`` is ``"extension"`` when calls go through the compiled extension (torch tensors
    and numbers read in C; anything else, and every error, by the Python path), else
    ``"ctypes"``."""

    binding = "ctypes"

    def __init__(self, library, handle):
        self._library = library
        self._handle = handle
        dll = library._dll
        self.name = dll.oxide_kernel_name(handle).decode()
        contract = dll.oxide_kernel_contract(handle).decode()
        domain = ctypes.c_uint32()
        block = (ctypes.c_uint32 * 3)()
        library._check(dll.oxide_kernel_shape(handle, ctypes.byref(domain), block), self.name)
        self.domain = domain.value
        self.block = tuple(block) if any(block) else None
        params = []
        for i in range(dll.oxide_kernel_param_count(handle)):
            info = _ParamInfo()
            library._check(dll.oxide_kernel_param(handle, i, ctypes.byref(info)), self.name)
            params.append(Param(info))
        self.params = tuple(params)
        # The canonical contract names parameters by position ($0); show them by name.
        self.contract = re.sub(r"\$(\d+)", lambda m: params[int(m.group(1))].name
                               if int(m.group(1)) < len(params) else m.group(0), contract)
        self._names = {p.name: i for i, p in enumerate(self.params)}
        self._local = threading.local()
        self._launch = dll.oxide_launch
        # GPU launches return within microseconds (they enqueue), so they keep the GIL, as
        # PyTorch's own launches do: releasing and retaking it costs a futex round trip whenever
        # another thread waits for it. Simulator launches run the kernel, and release it.
        self._launch_gpu = library._gil_dll.oxide_launch
        if _fastcall is not None and isinstance(self, _fastcall.KernelBase):
            self._bind_extension()
            return
        fast = _torch_fast_path(self)
        if fast is not None:
            # A class of its own whose __call__ is the generated fast path (special methods are
            # looked up on the type).
            self.__class__ = type("Kernel", (Kernel,), {"__call__": fast, "__doc__": Kernel.__doc__})

    def __repr__(self):
        return "<oxide kernel %s(%s)%s>" % (
            self.name, ", ".join(p.name for p in self.params),
            " [%s]" % self.contract if self.contract else "")

    def _bind_extension(self, launch=None, simulator_keeps_gil=False):
        """Has the extension's calls go through the oxide_launch at address `launch` (by default
        the library's; the benchmark gives a no-op to time the Python side alone)."""
        if launch is None:
            launch = ctypes.cast(self._library._dll.oxide_launch, ctypes.c_void_p).value
        self._fast_setup(self._handle, launch, [p.rank > 0 for p in self.params], simulator_keeps_gil)

    def _raise_status(self, status):
        """Raises the exception of a failed launch's status (the extension's calls come here)."""
        self._library._raise(status, self.name)

    def _fail(self, param_index, message, cls=ArgumentError, kind="ArgumentMismatch"):
        p = self.params[param_index]
        raise cls("oxide: kernel '%s': parameter %d (%s) %s" % (self.name, param_index + 1, p.name, message),
                  kind, self.name)

    def __call__(self, *args, grid=None, block=None, threads=None, stream=None, dynamic_shared_bytes=0,
                 **named):
        # The hot path of every launch: kept flat (no helper calls for torch tensors and plain
        # numbers), since its cost is most of the per-call overhead (benchmarks/python).
        params = self.params
        if named:
            args = self._bind_names(args, named)
        count = len(args)
        if count != len(params):
            raise ArgumentError(
                "oxide: kernel '%s' takes %d arguments (%s) but was given %d" % (
                    self.name, len(params), ", ".join(p.name for p in params), count),
                "ArgumentMismatch", self.name)
        local = self._local
        try:
            arg_buffer, config_buffer, arg_address, config_address = local.buffers
        except AttributeError:
            arg_buffer, config_buffer, arg_address, config_address = local.buffers = self._new_buffers()
        torch = _torch or _torch_module()
        if torch is not None:
            torch_tensor, torch_dtypes = torch.tensor_type, torch.dtypes
        else:
            torch_tensor = _NoType
        device = None
        framework_stream = None
        keep = None  # DLPack capsules: alive until the launch returns
        explicit_stream = None if stream is None else _stream_handle(stream)
        pack = _ARG.pack_into
        offset = -_ARG.size
        for i in range(count):
            offset += _ARG.size
            p = params[i]
            a = args[i]
            if not p.rank:
                self._pack_scalar(i, p, a, arg_buffer, offset)
                continue
            readonly = False
            if isinstance(a, torch_tensor):
                dtype = torch_dtypes.get(a.dtype)
                if dtype is None:
                    self._fail(i, "is a span of %s but gets a tensor of %s" % (p.dtype, a.dtype))
                where = a.get_device()  # -1 (SIMULATOR) for a CPU tensor
                if where >= 0 and framework_stream is None:
                    framework_stream = torch
                data = a.data_ptr()
                shape = a.shape
                strides = a.stride()
            else:
                try:
                    if hasattr(a, "__cuda_array_interface__"):
                        desc = _interface(a.__cuda_array_interface__, self._cupy_device(a))
                        if framework_stream is None:
                            framework_stream = _Cupy.get(a)
                    elif hasattr(a, "__array_interface__"):
                        desc = _interface(a.__array_interface__, SIMULATOR)
                    elif hasattr(a, "__dlpack__"):
                        desc, capsule = _dlpack(a, explicit_stream or 0)
                        keep = (keep or []) + [capsule]
                    else:
                        raise TypeError("a %s, which is not an array (it has no __dlpack__, "
                                        "__cuda_array_interface__ or __array_interface__)" % type(a).__name__)
                except TypeError as e:
                    self._fail(i, "is a span of %s but gets %s" % (p.dtype, e))
                data, dtype, shape, strides, where, readonly = desc
            if where != device:
                if device is None:
                    device = where
                else:
                    self._fail(i, "is on %s but an earlier argument is on %s" % (_where(where), _where(device)),
                               DeviceError, "WrongContext")
            if readonly and p.writable:
                self._fail(i, "is written by the kernel but gets a read-only array")
            ndim = len(shape)
            if ndim == 1:
                pack(arg_buffer, offset, 0, dtype, data, 1, 0, shape[0], 0, 0, 0, strides[0], 0, 0, 0)
            elif ndim == 2:
                pack(arg_buffer, offset, 0, dtype, data, 2, 0, shape[0], shape[1], 0, 0, strides[0], strides[1], 0, 0)
            else:
                self._pack_tensor(i, arg_buffer, offset, dtype, data, tuple(shape), tuple(strides))
        if device is None:
            device = SIMULATOR
        if explicit_stream is not None:
            cu_stream = explicit_stream
        elif framework_stream is not None and device != SIMULATOR:
            cu_stream = framework_stream.stream(device)
        else:
            cu_stream = 0
        if grid is None and block is None and threads is None:
            _CONFIG.pack_into(config_buffer, 0, device, dynamic_shared_bytes, cu_stream, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        else:
            _CONFIG.pack_into(config_buffer, 0, device, dynamic_shared_bytes, cu_stream,
                              *_dims(grid, "grid"), *_dims(block, "block"), *_dims(threads, "threads"))
        launch = self._launch if device == SIMULATOR else self._launch_gpu
        status = launch(self._handle, config_address, arg_address, count)
        if status:
            self._library._raise(status, self.name)

    def _new_buffers(self):
        args = ctypes.create_string_buffer(_ARG.size * max(len(self.params), 1))
        config = ctypes.create_string_buffer(_CONFIG.size)
        return args, config, ctypes.addressof(args), ctypes.addressof(config)

    def _buffers(self):
        """This thread's argument and configuration buffers and their addresses."""
        try:
            return self._local.buffers
        except AttributeError:
            self._local.buffers = self._new_buffers()
            return self._local.buffers

    def _pack_tensor(self, i, buffer, offset, dtype, data, shape, strides):
        ndim = len(shape)
        if ndim > _MAX_DIMS:  # a contiguous tensor of many dimensions is a 1-D span all the same
            if strides != _contiguous_strides(shape):
                self._fail(i, "gets a tensor of %d dimensions; Oxide takes at most %d" % (ndim, _MAX_DIMS))
            elements = 1
            for extent in shape:
                elements *= extent
            shape, strides, ndim = (elements,), (1,), 1
        shape = shape + (0,) * (_MAX_DIMS - ndim)
        strides = strides + (0,) * (_MAX_DIMS - ndim)
        _ARG.pack_into(buffer, offset, _ARG_TENSOR, dtype, data, ndim, 0, *shape, *strides)

    def _bind_names(self, args, named):
        values = list(args) + [_MISSING] * (len(self.params) - len(args))
        for key, value in named.items():
            index = self._names.get(key)
            if index is None:
                raise ArgumentError("oxide: kernel '%s' has no parameter '%s' (it has %s)" % (
                    self.name, key, ", ".join(p.name for p in self.params)), "ArgumentMismatch", self.name)
            if index < len(args):
                raise ArgumentError("oxide: kernel '%s': parameter '%s' given twice" % (self.name, key),
                                    "ArgumentMismatch", self.name)
            values[index] = value
        missing = [p.name for p, v in zip(self.params, values) if v is _MISSING]
        if missing:
            raise ArgumentError("oxide: kernel '%s': missing arguments %s" % (self.name, ", ".join(missing)),
                                "ArgumentMismatch", self.name)
        return values

    def _pack_scalar(self, i, p, a, buffer, offset):
        if isinstance(a, bool):
            dtype, bits = _BOOL, int(a)
        elif isinstance(a, int):
            if a < 0:
                if a < -(1 << 63):
                    self._fail(i, "gets %d, beyond 64 bits" % a, ContractError, "ArgumentOutOfRange")
                dtype, bits = _I64, a & 0xFFFFFFFFFFFFFFFF
            elif a < (1 << 63):
                dtype, bits = _I64, a
            elif a < (1 << 64):
                dtype, bits = _U64, a
            else:
                self._fail(i, "gets %d, beyond 64 bits" % a, ContractError, "ArgumentOutOfRange")
        elif isinstance(a, float):
            dtype, bits = _F64, struct.unpack("<Q", struct.pack("<d", a))[0]
        elif isinstance(a, numbers.Number) and not hasattr(a, "__cuda_array_interface__"):
            # NumPy scalars and other numbers; never a tensor (that would read device memory).
            if isinstance(a, numbers.Integral):
                value = int(a)
            elif isinstance(a, numbers.Real):
                value = float(a)
            else:
                self._fail(i, "is a scalar (%s) but gets the complex number %r" % (p.dtype, a))
            return self._pack_scalar(i, p, value, buffer, offset)
        else:
            self._fail(i, "is a scalar (%s): pass a number, not a %s" % (p.dtype, type(a).__name__))
        _ARG.pack_into(buffer, offset, _ARG_SCALAR, dtype, bits, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    @staticmethod
    def _cupy_device(a):
        device = getattr(a, "device", None)
        index = getattr(device, "id", None)
        if index is None:
            index = getattr(device, "index", None)
        return int(index) if index is not None else 0


def _torch_fast_path(kernel):
    """A __call__ for `kernel` generated for its parameters, for the common call: torch tensors
    (contiguous, on one device) and Python numbers, no launch settings. One struct.pack_into
    writes the configuration and every argument into this thread's buffer, then one ctypes call
    launches; anything else (another array type, a setting, a value the packing refuses) goes to
    the general path, which also reports every error. None when a parameter's kind has no fast
    form."""
    fmt = ["<iIQ3I3I3Q"]
    names = ["a%d" % i for i in range(len(kernel.params))]
    guards, values, checks = [], [], []
    for name, p in zip(names, kernel.params):
        if p.rank == 0:
            if p.dtype.startswith(("float", "bfloat")):
                fmt.append("iidii4q4q")
                values.append("1, %d, %s, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0" % (_F64, name))
            else:
                fmt.append("iiqii4q4q")
                values.append("1, %d, %s, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0" % (_I64, name))
                guards.append("type(%s) is int" % name)
            continue
        guards.append("isinstance(%s, T)" % name)
        checks.append("%s.get_device() == d and %s.is_contiguous()" % (name, name))
        fmt.append("iiQii4q4q")
        if p.rank == 1:
            values.append("0, dt[%s.dtype], %s.data_ptr(), 1, 0, %s.numel(), 0, 0, 0, 1, 0, 0, 0" % ((name,) * 3))
        elif p.rank == 2:
            checks.append("%s.dim() == 2" % name)
            values.append("0, dt[{0}.dtype], {0}.data_ptr(), 2, 0, {0}.shape[0], {0}.shape[1], 0, 0, "
                          "{0}.shape[1], 1, 0, 0".format(name))
        else:
            return None
    tensors = [n for n, p in zip(names, kernel.params) if p.rank]
    if not tensors:
        return None
    body = "\n    ".join([
        "def __call__(self, *args, **settings):",
        "    torch = _torch or _torch_module()",
        "    if torch is None or settings or len(args) != %d:" % len(names),
        "        return _general(self, *args, **settings)",
        "    %s, = args" % ", ".join(names),
        "    T = torch.tensor_type",
        "    if not (%s):" % " and ".join(guards),
        "        return _general(self, *args)",
        "    d = %s.get_device()" % tensors[0],
        "    if not (%s):" % " and ".join(checks),
        "        return _general(self, *args)",
        "    try:",
        "        buffer, address = self._local.fast",
        "    except AttributeError:",
        "        buffer = ctypes.create_string_buffer(%d)" % struct.calcsize("".join(fmt)),
        "        address = ctypes.addressof(buffer)",
        "        self._local.fast = buffer, address",
        "    dt = torch.dtypes",
        "    try:",
        "        pack(buffer, 0, d, 0, torch.current_stream(d) if d >= 0 else 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,",
        "             %s)" % ",\n             ".join(values),
        "    except (KeyError, struct.error, OverflowError):",
        "        return _general(self, *args)",
        "    status = (self._launch_gpu if d >= 0 else self._launch)(self._handle, address, address + %d, %d)"
        % (_CONFIG.size, len(names)),
        "    if status:",
        "        self._library._raise(status, self.name)",
    ])
    # A factory, so that each kernel's function has its own `pack` and the module's globals
    # (_torch is set there once torch is seen).
    source = "def make(pack, _general):\n    %s\n    return __call__\n" % body
    factory = {}
    exec(compile(source, "<oxide fast path of %s>" % kernel.name, "exec"), globals(), factory)
    return factory["make"](struct.Struct("".join(fmt)).pack_into, Kernel.__call__)


if _fastcall is not None:
    class _CompiledKernel(_fastcall.KernelBase, Kernel):
        """A Kernel called through the extension: the base's C call takes torch tensors and
        numbers and hands everything else to Kernel.__call__."""

        __doc__ = Kernel.__doc__
        binding = "extension"

    _fastcall.configure(python_call=Kernel.__call__)


class _Cupy:
    """The current stream of CuPy (or another framework with __cuda_array_interface__)."""

    _instance = None

    @classmethod
    def get(cls, a):
        module = type(a).__module__.split(".")[0]
        if module != "cupy":
            return None
        if cls._instance is None:
            import cupy
            cls._instance = cls()
            cls._instance.cupy = cupy
        return cls._instance

    def stream(self, device):
        return self.cupy.cuda.get_current_stream().ptr


_MISSING = object()


def _where(device):
    return "the host (the CPU simulator)" if device == SIMULATOR else "CUDA device %d" % device


def _dims(value, what):
    if value is None:
        return 0, 0, 0
    if isinstance(value, int):
        return value, 0, 0
    value = tuple(int(v) for v in value)
    if not 1 <= len(value) <= 3:
        raise ValueError("oxide: %s takes 1 to 3 extents, not %d" % (what, len(value)))
    return value + (0,) * (3 - len(value))


class Library:
    """A shared library built with ``oxcc build --shared``: each exported kernel is an
    attribute (``lib.rmsnorm``) and an item (``lib["axpy_f32"]``); ``kernels`` lists them.
    ``extension``: call through the compiled extension (None: when it loads; True: it must;
    False: the ctypes path)."""

    def __init__(self, path, extension=None):
        if extension and _fastcall is None:
            raise OxideError("oxide: the compiled extension is not available: %s" % EXTENSION_ERROR, "Other")
        kernel_type = _CompiledKernel if _fastcall is not None and extension is not False else Kernel
        if _torch is None:
            _torch_module()  # torch imported already: the extension reads its tensors from the first call
        self.path = os.fspath(path)
        if os.path.exists(self.path):  # ctypes would search the library path for a bare name
            self.path = os.path.abspath(self.path)
        try:
            dll = ctypes.CDLL(self.path)
        except OSError as e:
            raise OxideError("oxide: cannot load '%s': %s" % (self.path, e), "NotAKernel") from None
        if not hasattr(dll, "oxide_launch"):
            raise OxideError("oxide: '%s' is not an Oxide library (it has no oxide_launch); build it with "
                             "'oxcc build --shared'" % self.path, "NotAKernel")
        self._dll = dll
        dll.oxide_c_api_version.restype = ctypes.c_int
        version = dll.oxide_c_api_version()
        if version != 1:
            raise OxideError("oxide: '%s' has C ABI version %d; this package speaks version 1" % (
                self.path, version), "LayoutMismatch")
        dll.oxide_kernel_count.restype = ctypes.c_size_t
        dll.oxide_kernel_at.restype = ctypes.c_void_p
        dll.oxide_kernel_at.argtypes = [ctypes.c_size_t]
        dll.oxide_find_kernel.restype = ctypes.c_void_p
        dll.oxide_find_kernel.argtypes = [ctypes.c_char_p]
        dll.oxide_kernel_name.restype = ctypes.c_char_p
        dll.oxide_kernel_name.argtypes = [ctypes.c_void_p]
        dll.oxide_kernel_contract.restype = ctypes.c_char_p
        dll.oxide_kernel_contract.argtypes = [ctypes.c_void_p]
        dll.oxide_kernel_shape.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        dll.oxide_kernel_param_count.restype = ctypes.c_size_t
        dll.oxide_kernel_param_count.argtypes = [ctypes.c_void_p]
        dll.oxide_kernel_param.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        dll.oxide_launch.restype = ctypes.c_int
        dll.oxide_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self._gil_dll = ctypes.PyDLL(self.path)  # the same loaded library; its calls keep the GIL
        self._gil_dll.oxide_launch.restype = ctypes.c_int
        self._gil_dll.oxide_launch.argtypes = dll.oxide_launch.argtypes
        # oxide_fill came after version 1's first libraries: looked up, not required.
        self._fill = getattr(dll, "oxide_fill", None)
        if self._fill is not None:
            self._fill.restype = ctypes.c_int
            self._fill.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
                                   ctypes.c_uint32, ctypes.c_void_p]
        dll.oxide_last_error.restype = ctypes.c_char_p
        dll.oxide_status_name.restype = ctypes.c_char_p
        dll.oxide_status_name.argtypes = [ctypes.c_int]
        global _last_library
        _last_library = self
        self._kernels = {}
        for i in range(dll.oxide_kernel_count()):
            kernel = kernel_type(self, dll.oxide_kernel_at(i))
            self._kernels[kernel.name] = kernel
        # Kernels as instance attributes: `lib.add` is a dictionary read, not a __getattr__ call.
        for name, kernel in self._kernels.items():
            if name.isidentifier() and not name.startswith("_") and not hasattr(type(self), name) \
                    and name not in self.__dict__:
                self.__dict__[name] = kernel

    @property
    def kernels(self):
        return dict(self._kernels)

    def __getitem__(self, name):
        kernel = self._kernels.get(name)
        if kernel is None:
            handle = self._dll.oxide_find_kernel(name.encode())
            message = self._dll.oxide_last_error().decode(errors="replace")
            raise OxideError(message, "NotAKernel") if not handle else OxideError(
                "oxide: '%s' is exported after the library was loaded" % name, "NotAKernel")
        return kernel

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except OxideError as e:
            raise AttributeError(str(e)) from None

    def __dir__(self):
        return list(super().__dir__()) + list(self._kernels)

    def __repr__(self):
        return "<oxide library %s: %s>" % (self.path, ", ".join(self._kernels))

    def fill(self, tensor, value, stream=None):
        """Sets every element of ``tensor`` to ``value`` through this library's C ABI
        (``oxide_fill``): see :func:`oxide.fill`."""
        if self._fill is None:
            raise OxideError("oxide: '%s' was built before oxide_fill was part of the C ABI; rebuild it with "
                             "this oxcc" % self.path, "NotAKernel")
        data, dtype, shape, strides, device, readonly, keep = _fill_target(tensor, stream)
        what = "oxide.fill: a tensor of %s, shape %s" % (_DTYPE_NAMES.get(dtype, dtype), tuple(shape))
        if readonly:
            raise ArgumentError("%s is read-only" % what, "ArgumentMismatch")
        count = 1
        for extent in shape:
            count *= extent
        if count > 1 and any(st != c for st, c, n in zip(strides, _contiguous_strides(shape), shape) if n > 1):
            raise ArgumentError("%s has strides %s: fill takes a contiguous tensor (call it on "
                                "tensor.contiguous() and copy back, or fill the tensor it views)" % (
                                    what, tuple(strides)), "UnsupportedStrides")
        raw = _fill_bytes(dtype, value, what)
        if stream is not None:
            cu_stream = _stream_handle(stream)
        elif device != SIMULATOR:
            cu_stream = _current_stream(tensor, device)
        else:
            cu_stream = 0
        status = self._fill(device, cu_stream, data, count, len(raw), raw)
        del keep
        if status:
            self._raise(status, None)

    def _check(self, status, kernel):
        if status:
            self._raise(status, kernel)

    def _raise(self, status, kernel):
        kind = self._dll.oxide_status_name(status).decode()
        message = self._dll.oxide_last_error().decode(errors="replace")
        raise _ERROR_CLASSES.get(kind, OxideError)(message, kind, kernel)


_last_library = None


def fill(tensor, value, stream=None, library=None):
    """Sets every element of ``tensor`` to ``value`` in stream order, like
    ``oxide::DeviceBuffer<T>::fill``: a torch tensor, a CuPy or JAX array (DLPack,
    ``__cuda_array_interface__``) on the GPU, on the framework's current stream of its device
    unless ``stream`` is given; a NumPy array or CPU tensor on the simulator (filled when it
    returns). The tensor must be contiguous and writable. ``value`` is converted to the tensor's
    dtype with a range check (an int for integer tensors, a number for floating ones, a bool or
    0/1 for bool): a value the dtype cannot hold raises ContractError (ArgumentOutOfRange). The
    call goes through the C ABI (``oxide_fill``) of ``library``, by default the library loaded
    last. It never synchronises, so a CUDA graph capture records it."""
    library = library or _last_library
    if library is None:
        raise OxideError("oxide.fill: no Oxide library is loaded; fill goes through a library's C ABI: call "
                         "oxide.load(path) first, or pass library=", "Other")
    library.fill(tensor, value, stream)


def _fill_target(tensor, stream):
    """(data, dtype, shape, strides, device, readonly, keep) of the tensor to fill; `keep` holds a
    DLPack capsule alive."""
    torch = _torch or _torch_module()
    if torch is not None and isinstance(tensor, torch.tensor_type):
        dtype = torch.dtypes.get(tensor.dtype)
        if dtype is None:
            raise ArgumentError("oxide.fill: a tensor of %s, which Oxide has no element type for" % tensor.dtype,
                                "DtypeMismatch")
        return (tensor.data_ptr(), dtype, tuple(tensor.shape), tuple(tensor.stride()), tensor.get_device(),
                False, None)
    try:
        if hasattr(tensor, "__cuda_array_interface__"):
            return _interface(tensor.__cuda_array_interface__, Kernel._cupy_device(tensor)) + (None,)
        if hasattr(tensor, "__array_interface__"):
            return _interface(tensor.__array_interface__, SIMULATOR) + (None,)
        if hasattr(tensor, "__dlpack__"):
            desc, capsule = _dlpack(tensor, _stream_handle(stream) or 0)
            return desc + (capsule,)
    except TypeError as e:
        raise ArgumentError("oxide.fill: a tensor of %s" % e, "DtypeMismatch") from None
    raise ArgumentError("oxide.fill: a %s, which is not an array (it has no __dlpack__, "
                        "__cuda_array_interface__ or __array_interface__)" % type(tensor).__name__,
                        "ArgumentMismatch")


def _current_stream(tensor, device):
    torch = _torch
    if torch is not None and isinstance(tensor, torch.tensor_type):
        return torch.stream(device)
    cupy = _Cupy.get(tensor)
    return cupy.stream(device) if cupy is not None else 0


def _out_of_range(what, value, dtype):
    return ContractError("%s cannot hold %r (%s); pass a value in its range" % (
        what, value, _DTYPE_NAMES.get(dtype, dtype)), "ArgumentOutOfRange")


def _fill_bytes(dtype, value, what):
    """The bytes of `value` as one element of `dtype` (little-endian, as the GPU stores it)."""
    code, bits = dtype >> 8, dtype & 0xFF
    if hasattr(value, "item") and not isinstance(value, (int, float, bool)):
        value = value.item()  # a NumPy scalar or a one-element tensor
    if code == 6:  # bool
        if isinstance(value, bool) or (isinstance(value, numbers.Integral) and value in (0, 1)):
            return bytes([int(value)])
        raise _out_of_range(what, value, dtype)
    if code in (0, 1):  # signed, unsigned integers
        if isinstance(value, numbers.Integral):
            integer = int(value)
        elif isinstance(value, numbers.Real) and float(value).is_integer():
            integer = int(value)
        else:
            raise _out_of_range(what, value, dtype)
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if code == 0 else (0, (1 << bits) - 1)
        if not low <= integer <= high:
            raise _out_of_range(what, value, dtype)
        return integer.to_bytes(bits // 8, "little", signed=code == 0)
    if not isinstance(value, numbers.Real):
        raise _out_of_range(what, value, dtype)
    number = float(value)
    try:
        if code == 2 and bits in (16, 32, 64):
            return struct.pack({16: "<e", 32: "<f", 64: "<d"}[bits], number)
        if code == 4 and bits == 16:  # bfloat16: float32's upper half, rounded to nearest even
            word = struct.unpack("<I", struct.pack("<f", number))[0]
            if number == number:  # not a NaN
                word = (word + 0x7FFF + ((word >> 16) & 1)) & 0xFFFFFFFF
                if (word >> 16) & 0x7F80 == 0x7F80 and abs(number) != float("inf"):
                    raise OverflowError
            return struct.pack("<H", (word >> 16) & 0xFFFF if number == number else 0x7FC0)
    except OverflowError:
        raise _out_of_range(what, value, dtype) from None
    raise ArgumentError("%s: fill has no conversion to this element type" % what, "DtypeMismatch")


def load(path, extension=None):
    """Loads the Oxide library at ``path`` (a ``.so`` from ``oxcc build --shared``). Its kernels
    are called through the compiled extension when it loads (``extension=False``: through ctypes;
    ``True``: the extension or an error)."""
    return Library(path, extension)
