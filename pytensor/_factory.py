"""Tensor factories: pytensor.tensor and friends, empty/zeros/ones/full, ranges, the *_like forms
and the random factories.

``tensor(data)`` infers the shape from the first element of each nesting level, flattens the
nested sequences in one pass (checking every length against that shape), infers the dtype from the
set of element types with torch's rules (bool < int64 < default float < default complex, NumPy
scalars by their own dtype) and packs the flat list with ``array``/``struct`` straight into the
new tensor's memory: one C allocation and one memmove, no call per element. When the requested
dtype cannot be packed from the values directly (floats into an integer dtype, bfloat16, ...), the
values are packed in the inferred dtype and cast by the C core, which rounds as torch does.
"""

from __future__ import annotations

import array
import functools
import inspect
import struct
from typing import Optional, Sequence

from . import _device, _dtype
from ._args import (_check_requires_grad, _dim_arg, _dtype_id, _generator_ptr, _int64s, _number,
                    _scalar, _set_requires_grad, _size_args)
from ._C import _core, _raise, ffi, lib
from ._exchange import _is_ndarray, from_array_like, from_dlpack, from_numpy
from ._tensor import Tensor, _call, _ret

_SEQUENCES = (list, tuple)
_PLAIN = frozenset((bool, int, float, complex))
# Element kinds in promotion order; a pack is direct when the target's kind is not below the data's.
_BOOL, _INT, _FLOAT, _COMPLEX = range(4)


def _default_dtype_id() -> int:
    return _dtype.get_default_dtype()._id


def _kind_of(dt_id: int) -> int:
    kind = _dtype._dtypes_by_id[dt_id]._kind
    if kind & lib.PT_KIND_COMPLEX:
        return _COMPLEX
    if kind & lib.PT_KIND_FLOAT:
        return _FLOAT
    if kind & lib.PT_KIND_INTEGER:
        return _INT
    return _BOOL


def _infer_shape(data) -> list:
    shape = []
    x = data
    while isinstance(x, _SEQUENCES):
        shape.append(len(x))
        if len(shape) > lib.PT_MAX_DIMS:
            raise ValueError(f"tensor(): data: more than {lib.PT_MAX_DIMS} nested dimensions")
        if not x:
            break
        x = x[0]
    return shape


def _flatten(seq, shape: list, dim: int, out: list) -> None:
    n = shape[dim]
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    if dim == len(shape) - 1:
        out.extend(seq)
        return
    inner = shape[dim + 1]
    for x in seq:
        if not isinstance(x, _SEQUENCES):
            raise ValueError(
                f"expected sequence of length {inner} at dim {dim + 1} (got {type(x).__name__})"
            )
        _flatten(x, shape, dim + 1, out)


def _element_dtype(t: type, sample, depth: int) -> int:
    """The dtype an element type stands for in inference (torch's infer_scalar_type)."""
    if t.__module__ == "numpy" and hasattr(sample, "dtype"):
        return _dtype._to_dtype(sample.dtype, "data")._id
    if issubclass(t, bool):
        return lib.PT_BOOL
    if issubclass(t, int):
        return lib.PT_INT64
    if issubclass(t, float):
        return _default_dtype_id()
    if issubclass(t, complex):
        return _dtype._default_complex_dtype()._id
    if issubclass(t, Tensor):
        if sample.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return sample.dtype._id
    if issubclass(t, (str, bytes)):
        raise TypeError(f"tensor(): invalid data type '{t.__name__}'")
    if issubclass(t, _SEQUENCES):
        raise ValueError(
            f"expected a number at dim {depth} (got a {t.__name__} of length {len(sample)})"
        )
    return _element_dtype(type(_number(sample, "data")), None, depth)


def _infer_dtype(flat: list, depth: int):
    """(dtype id, values converted to Python numbers) for a flat element list."""
    types = set(map(type, flat))
    if types <= _PLAIN:
        if complex in types:
            return _dtype._default_complex_dtype()._id, flat
        if float in types or not types:
            return _default_dtype_id(), flat
        return (lib.PT_INT64 if int in types else lib.PT_BOOL), flat
    samples = {}
    for x in flat:
        if type(x) not in samples:
            samples[type(x)] = x
            if len(samples) == len(types):
                break
    result = None
    for t, x in samples.items():
        d = _element_dtype(t, x, depth)
        if result is None:
            result = d
        elif d != result:
            out = ffi.new("int32_t *")
            st = lib.pt_dtype_promote(result, d, out)
            if st:
                _raise(st)
            result = out[0]
    return result, [_to_python(x) for x in flat]


def _to_python(x):
    t = type(x)
    if t is bool or t is int or t is float or t is complex:
        return x
    if isinstance(x, Tensor):
        return x.item()
    if t.__module__ == "numpy" and hasattr(x, "item"):
        return x.item()
    return _number(x, "data")


_array_codes: dict = {}


def _array_code(dt_id: int) -> Optional[str]:
    """The ``array`` typecode that packs a dtype (its real part for complex), or None."""
    try:
        return _array_codes[dt_id]
    except KeyError:
        pass
    dt = _dtype._dtypes_by_id[dt_id]
    if dt_id == lib.PT_BOOL:
        code = "B"
    elif dt._kind & lib.PT_KIND_OPAQUE:
        code = None
    elif dt.is_floating_point or dt.is_complex:
        code = {4: "f", 8: "d"}.get(dt.itemsize // 2 if dt.is_complex else dt.itemsize)
    else:
        codes = "bhiq" if dt.is_signed else "BHIQ"
        code = next((c for c in codes if array.array(c).itemsize == dt.itemsize), None)
    _array_codes[dt_id] = code
    return code


def _pack(flat: list, dt_id: int) -> Optional[bytes]:
    """Packs Python numbers into dt's native representation; None when dt has no direct packer."""
    if dt_id == lib.PT_FLOAT16:
        return struct.pack(f"={len(flat)}e", *flat)
    code = _array_code(dt_id)
    if code is None:
        return None
    if _kind_of(dt_id) == _COMPLEX:
        flat = [v for c in flat for v in (c.real, c.imag)]
    return array.array(code, flat).tobytes()


def _wide_dtype(kind: int) -> int:
    return (lib.PT_BOOL, lib.PT_INT64, lib.PT_FLOAT64, lib.PT_COMPLEX128)[kind]


def _flat_elements(data, shape: list, iter_only: bool = False) -> list:
    """The elements of nested sequences in row-major order, checked against the shape their
    len() claims: a sequence whose len() lies (claims 2**62 items, or fewer than it yields) is an
    error, never a buffer sized by the claim."""
    try:
        if iter_only or len(shape) == 1:
            flat = list(data)
        else:
            flat = []
            _flatten(data, shape, 0, flat)
    except MemoryError:
        raise MemoryError(f"tensor(): data claims the shape {shape}, more elements than memory "
                          "can hold") from None
    numel = 1
    for n in shape[1:] if iter_only else shape:
        numel *= n
    if not iter_only and len(flat) != numel or iter_only and len(flat) != shape[0]:
        raise ValueError(f"tensor(): data claims the shape {shape} through len() but holds "
                         f"{len(flat)} elements")
    return flat


def _from_flat(flat: list, shape: list, inferred: int, target: int, explicit: bool,
               cdev) -> Tensor:
    data_kind = _kind_of(inferred)
    packed, pack_dt = None, target
    if target == inferred or (data_kind <= _kind_of(target) and target != lib.PT_BOOL):
        try:
            packed = _pack(flat, target)
        except (OverflowError, struct.error):
            # Out of range for the target: integers are an error (torch's rule), floats go
            # through float64 and the C cast, which saturates to infinity as torch does.
            if _kind_of(target) == _INT and explicit:
                # torch's rule: an unsigned dtype takes integers down to -max and wraps them.
                info = _dtype.iinfo(_dtype._dtypes_by_id[target])
                if info.min == 0 and data_kind == _INT and all(-info.max <= v <= info.max
                                                               for v in flat):
                    return _from_flat([v % (info.max + 1) for v in flat], shape, inferred,
                                      target, explicit, cdev)
                raise RuntimeError(
                    f"value cannot be converted to type {_dtype._dtypes_by_id[target]._name} "
                    "without overflow"
                ) from None
    if packed is None:
        if explicit and data_kind == _FLOAT and _kind_of(target) == _INT:
            # torch checks every float bound for an integer dtype: NaN, infinities and values
            # outside [min, max] (so -1.0 for uint8) are errors, never wrapped.
            info = _dtype.iinfo(_dtype._dtypes_by_id[target])
            lo, hi = info.min, info.max
            if not all(lo <= v <= hi for v in flat):
                raise RuntimeError(
                    f"value cannot be converted to type {_dtype._dtypes_by_id[target]._name} "
                    "without overflow")
        pack_dt = _wide_dtype(data_kind)
        try:
            packed = _pack(flat, pack_dt)
        except OverflowError:
            raise ValueError(
                "tensor(): data: an integer does not fit in int64 (Overflow when unpacking long "
                "long)"
            ) from None
    cpu = _device._to_cdevice("cpu")
    t = _call(lib.pt_tensor_empty, len(shape), _int64s(shape), pack_dt, cpu)
    if packed:
        ffi.memmove(lib.pt_tensor_data(t._h), packed, len(packed))
    if pack_dt != target or cdev.type != lib.PT_DEV_CPU:
        t = _call(lib.pt_tensor_to, t._h, target, cdev, 0)
    return t


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of data (nested lists/tuples of numbers, a number, a NumPy
    array or scalar, a Tensor, or anything with __array_interface__ or __dlpack__).

    >>> pytensor.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> pytensor.tensor([1, 2.5]).dtype
    pytensor.float32
    """
    _check_requires_grad(requires_grad)
    dt = None if dtype is None else _dtype_id(dtype)
    t = type(data)
    if t is list or t is tuple or t is bool or t is int or t is float or t is complex:
        cdev = _device._to_cdevice(device)
        if t is list or t is tuple:
            shape = _infer_shape(data)
            flat = _flat_elements(data, shape)
        else:
            shape, flat = [], [data]
        inferred, flat = _infer_dtype(flat, len(shape))
        target = inferred if dt is None else dt
        return _from_flat(flat, shape, inferred, target, dt is not None, cdev)
    if isinstance(data, Tensor):
        src = data
    elif hasattr(data, "__array_interface__"):
        src = from_array_like(data, "tensor")
    elif hasattr(data, "__dlpack__") or type(data).__name__ == "PyCapsule":
        src = from_dlpack(data)
    elif isinstance(data, (str, bytes)):
        raise TypeError(f"tensor(): invalid data type '{t.__name__}'")
    elif isinstance(data, (list, tuple, range)):
        return tensor(_flat_elements(data, [len(data)], iter_only=True), dtype=dtype,
                      device=device)
    else:
        return tensor(_number(data, "data"), dtype=dtype, device=device)
    copy = _call(lib.pt_tensor_clone, src._h, lib.PT_MEMORY_FORMAT_CONTIGUOUS)
    h = copy._h
    target = lib.pt_tensor_dtype(h) if dt is None else dt
    cdev = lib.pt_tensor_device(h) if device is None else _device._to_cdevice(device)
    return _call(lib.pt_tensor_to, h, target, cdev, 0)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like tensor(), but shares memory when data already is a suitable Tensor or ndarray.

    >>> t = pytensor.tensor([1, 2])
    >>> pytensor.as_tensor(t) is t
    True
    """
    if isinstance(data, Tensor):
        if dtype is None and device is None:
            return data
        return data.to(dtype=dtype, device=device)
    if _is_ndarray(data):
        try:
            src = from_numpy(data)
        except (TypeError, ValueError):
            return tensor(data, dtype=dtype, device=device)
        return src.to(dtype=dtype, device=device)
    return tensor(data, dtype=dtype, device=device)


def is_tensor(obj) -> bool:
    """True when obj is a pytensor Tensor.

    >>> pytensor.is_tensor(pytensor.zeros(1))
    True
    """
    return isinstance(obj, Tensor)


# ---------------------------------------------------------------- shaped factories
# The factories below call the operators' unboxed entry points (lib.pt_call_*), so they go
# through the dispatcher (its BackendSelect kernels pick the backend from the device argument).
def _device_ptr(device):
    """A ``const pt_device *`` for a device argument (None: the CPU, torch's default)."""
    return ffi.new("pt_device *", _device._to_cdevice(device))


def _options(dtype, device, layout, fname: str, default_dtype=None):
    """(dtype id, device pointer) of a factory's options; layouts other than strided refused."""
    if layout is not None and layout is not _strided:
        raise NotImplementedError(f"{fname}(): layout={layout} is not supported yet")
    if dtype is None:
        dt = _default_dtype_id() if default_dtype is None else default_dtype
    else:
        dt = _dtype_id(dtype)
    return dt, _device_ptr(device)


def _empty(sizes: list, dtype, device, fname: str, layout=None, memory_format=None) -> Tensor:
    dt, dev = _options(dtype, device, layout, fname)
    t = _ret(lib.pt_call_empty_memory_format(len(sizes), _int64s(sizes), dt, -1, dev, -1, -1))
    if memory_format is not None:
        t = t.contiguous(memory_format)
    return t


def empty(*size, dtype=None, device=None, layout=None, requires_grad: bool = False,
          pin_memory: bool = False, memory_format=None) -> Tensor:
    """An uninitialized tensor.

    >>> pytensor.empty(2, 3).shape
    pytensor.Size([2, 3])
    """
    _check_requires_grad(requires_grad)
    return _empty(_size_args(size, "empty"), dtype, device, "empty", layout, memory_format)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """An uninitialized tensor with the given strides.

    >>> pytensor.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    _check_requires_grad(requires_grad)
    sz = _size_args((size,), "empty_strided", "size")
    st = _size_args((stride,), "empty_strided", "stride")
    if len(sz) != len(st):
        raise RuntimeError(
            f"empty_strided(): mismatch in length of strides and shape: size has {len(sz)} "
            f"entries, stride has {len(st)}"
        )
    dt, dev = _options(dtype, device, None, "empty_strided")
    return _ret(lib.pt_call_empty_strided(len(sz), _int64s(sz), len(st), _int64s(st), dt, -1, dev,
                                          -1))


def zeros(*size, dtype=None, device=None, layout=None, requires_grad: bool = False,
          pin_memory: bool = False) -> Tensor:
    """A tensor of zeros.

    >>> pytensor.zeros(2)
    tensor([0., 0.])
    """
    _check_requires_grad(requires_grad)
    sizes = _size_args(size, "zeros")
    dt, dev = _options(dtype, device, layout, "zeros")
    return _ret(lib.pt_call_zeros(len(sizes), _int64s(sizes), dt, -1, dev, -1))


def ones(*size, dtype=None, device=None, layout=None, requires_grad: bool = False,
         pin_memory: bool = False) -> Tensor:
    """A tensor of ones.

    >>> pytensor.ones(2, dtype=pytensor.int32)
    tensor([1, 1], dtype=pytensor.int32)
    """
    _check_requires_grad(requires_grad)
    sizes = _size_args(size, "ones")
    dt, dev = _options(dtype, device, layout, "ones")
    return _ret(lib.pt_call_ones(len(sizes), _int64s(sizes), dt, -1, dev, -1))


def _fill_dtype(value):
    """torch.full's dtype for a fill value: bool, int64, the default float or its complex."""
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, bool):
        return _dtype._dtypes_by_id[lib.PT_BOOL]
    if isinstance(value, int):
        return _dtype._dtypes_by_id[lib.PT_INT64]
    if isinstance(value, complex):
        return _dtype._default_complex_dtype()
    if isinstance(value, float):
        return _dtype.get_default_dtype()
    return _dtype._dtypes_by_id[_element_dtype(type(value), value, 0)]


def full(size, fill_value, *, dtype=None, device=None, layout=None,
         requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor filled with one value; the dtype follows the value when not given.

    >>> pytensor.full((2,), 7)
    tensor([7, 7])
    """
    _check_requires_grad(requires_grad)
    sizes = _size_args((size,), "full")
    dt = _fill_dtype(fill_value) if dtype is None else dtype
    if isinstance(fill_value, Tensor):  # fill_ checks it is 0-dim, as torch does
        return _empty(sizes, dt, device, "full", layout).fill_(fill_value)
    dt, dev = _options(dt, device, layout, "full")
    return _ret(lib.pt_call_full(len(sizes), _int64s(sizes), _scalar(fill_value, "fill_value"),
                                 dt, -1, dev, -1))


def _range_dtype(values, dtype):
    if dtype is not None:
        return _dtype_id(dtype)
    if any(isinstance(v, complex) or (isinstance(v, Tensor) and v.is_complex()) for v in values):
        return _dtype._default_complex_dtype()._id
    if all(isinstance(v, int) or (isinstance(v, Tensor) and not v.is_floating_point()
                                  and not v.is_complex()) for v in values):
        return lib.PT_INT64
    return _default_dtype_id()


def arange(start, end=None, step=1, *, dtype=None, device=None, layout=None,
           requires_grad: bool = False) -> Tensor:
    """Values from start (inclusive) to end (exclusive) by step; int64 for integer arguments.

    >>> pytensor.arange(5)
    tensor([0, 1, 2, 3, 4])
    >>> pytensor.arange(0, 1, 0.25)
    tensor([0.0000, 0.2500, 0.5000, 0.7500])
    """
    _check_requires_grad(requires_grad)
    if end is None:
        start, end = 0, start
    dt = _range_dtype((start, end, step), dtype)
    return _ret(lib.pt_call_arange_start_step(_scalar(start, "start"), _scalar(end, "end"),
                                              _scalar(step, "step"), dt, -1,
                                              _device_ptr(device), -1))


def linspace(start, end, steps: int, *, dtype=None, device=None, layout=None,
             requires_grad: bool = False) -> Tensor:
    """steps values evenly spaced from start to end (both included).

    >>> pytensor.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    _check_requires_grad(requires_grad)
    if dtype is not None:
        dt = _dtype_id(dtype)
    elif isinstance(start, complex) or isinstance(end, complex):
        dt = _dtype._default_complex_dtype()._id
    else:
        dt = _default_dtype_id()
    n = _size_args((steps,), "linspace", "steps")
    if len(n) != 1:
        raise TypeError("linspace(): argument 'steps' must be int")
    return _ret(lib.pt_call_linspace(_scalar(start, "start"), _scalar(end, "end"), n[0], dt, -1,
                                     _device_ptr(device), -1))


def eye(n: int, m: Optional[int] = None, *, dtype=None, device=None, layout=None,
        requires_grad: bool = False) -> Tensor:
    """An n x m matrix with ones on the diagonal.

    >>> pytensor.eye(2)
    tensor([[1., 0.],
            [0., 1.]])
    """
    _check_requires_grad(requires_grad)
    nn = _size_args((n,), "eye", "n")[0]
    mm = nn if m is None else _size_args((m,), "eye", "m")[0]
    dt, dev = _options(dtype, device, layout, "eye")
    return _ret(lib.pt_call_eye_m(nn, mm, dt, -1, dev, -1))


# ---------------------------------------------------------------- *_like
def _dense_strides(sizes: Sequence[int], strides: Sequence[int]) -> list:
    """Strides that keep the input's memory order (torch's empty_like with preserve_format):
    the input's own strides when it is non-overlapping and dense, else contiguous strides in
    the order of the input's strides (dims with stride 0 keep their place)."""
    ndim = len(sizes)
    order = sorted(range(ndim), key=lambda d: (sizes[d] < 2, strides[d]))
    expected, dense = 1, True
    for d in order:
        if sizes[d] < 2:
            break
        if strides[d] != expected:
            dense = False
            break
        expected *= sizes[d]
    if dense:
        return list(strides)

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if sizes[d0] > sizes[d1] else 0

    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out, acc = [0] * ndim, 1
    for d in perm:
        out[d] = acc
        if sizes[d] > 1:
            acc *= sizes[d]
    return out


def empty_like(input: Tensor, *, dtype=None, device=None, layout=None,
               requires_grad: bool = False, memory_format=None) -> Tensor:
    """An uninitialized tensor with input's shape (and, by default, its dtype, device and
    memory order).

    >>> pytensor.empty_like(pytensor.zeros(2, 3).t()).stride()
    (1, 3)
    """
    _check_requires_grad(requires_grad)
    if not isinstance(input, Tensor):
        raise TypeError(f"empty_like(): argument 'input' must be Tensor, not {type(input).__name__}")
    dt = input.dtype if dtype is None else dtype
    dev = input.device if device is None else device
    sizes = list(input.shape)
    if memory_format is None or memory_format is _preserve:
        strides = _dense_strides(sizes, input.stride())
        return _ret(lib.pt_call_empty_strided(len(sizes), _int64s(sizes), len(strides),
                                              _int64s(strides), _dtype_id(dt), -1,
                                              _device_ptr(dev), -1))
    return _empty(sizes, dt, dev, "empty_like", layout, memory_format)


def zeros_like(input: Tensor, *, dtype=None, device=None, layout=None,
               requires_grad: bool = False, memory_format=None) -> Tensor:
    """Zeros with input's shape, dtype and device.

    >>> pytensor.zeros_like(pytensor.ones(2))
    tensor([0., 0.])
    """
    return empty_like(input, dtype=dtype, device=device, layout=layout,
                      requires_grad=requires_grad, memory_format=memory_format).fill_(0)


def ones_like(input: Tensor, *, dtype=None, device=None, layout=None,
              requires_grad: bool = False, memory_format=None) -> Tensor:
    """Ones with input's shape, dtype and device.

    >>> pytensor.ones_like(pytensor.zeros(2, dtype=pytensor.int64))
    tensor([1, 1])
    """
    return empty_like(input, dtype=dtype, device=device, layout=layout,
                      requires_grad=requires_grad, memory_format=memory_format).fill_(1)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, layout=None,
              requires_grad: bool = False, memory_format=None) -> Tensor:
    """fill_value with input's shape, dtype and device.

    >>> pytensor.full_like(pytensor.zeros(2), 3)
    tensor([3., 3.])
    """
    return empty_like(input, dtype=dtype, device=device, layout=layout,
                      requires_grad=requires_grad, memory_format=memory_format).fill_(fill_value)


# ---------------------------------------------------------------- random
def rand(*size, generator=None, dtype=None, device=None, layout=None,
         requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Uniform samples from [0, 1).

    >>> g = pytensor.Generator().manual_seed(0)
    >>> pytensor.rand(2, 3, generator=g).shape
    pytensor.Size([2, 3])
    """
    _check_requires_grad(requires_grad)
    sizes = _size_args(size, "rand")
    dt, dev = _options(dtype, device, layout, "rand")
    return _ret(lib.pt_call_rand_generator(len(sizes), _int64s(sizes), _generator_ptr(generator),
                                           dt, -1, dev, -1))


def randn(*size, generator=None, dtype=None, device=None, layout=None,
          requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Standard normal samples.

    >>> pytensor.randn(4).shape
    pytensor.Size([4])
    """
    _check_requires_grad(requires_grad)
    sizes = _size_args(size, "randn")
    dt, dev = _options(dtype, device, layout, "randn")
    return _ret(lib.pt_call_randn_generator(len(sizes), _int64s(sizes), _generator_ptr(generator),
                                            dt, -1, dev, -1))


def randint(*args, size=None, low=None, high=None, generator=None, dtype=None, device=None,
            layout=None, requires_grad: bool = False) -> Tensor:
    """Integers from [low, high): randint(high, size) or randint(low, high, size); int64.

    >>> pytensor.randint(3, 10, (5,)).dtype
    pytensor.int64
    """
    _check_requires_grad(requires_grad)
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    elif args:
        raise TypeError(f"randint(): expected (high, size) or (low, high, size), got {len(args)} "
                        "positional arguments before size")
    if high is None:
        raise TypeError("randint(): missing the required argument 'high'")
    if size is None:
        raise TypeError("randint(): missing the required argument 'size' (a tuple of ints)")
    sizes = _size_args((size,), "randint")
    lo = 0 if low is None else _dim_arg(low, "randint", "low")
    hi = _dim_arg(high, "randint", "high")
    dt, dev = _options(dtype, device, layout, "randint", lib.PT_INT64)
    return _ret(lib.pt_call_randint_low_generator(lo, hi, len(sizes), _int64s(sizes),
                                                  _generator_ptr(generator), dt, -1, dev, -1))


def randperm(n: int, *, generator=None, dtype=None, device=None, layout=None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of 0..n-1 (int64 by default).

    >>> sorted(pytensor.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    _check_requires_grad(requires_grad)
    nn = _size_args((n,), "randperm", "n")
    if len(nn) != 1:
        raise TypeError("randperm(): argument 'n' must be int")
    dt, dev = _options(dtype, device, layout, "randperm", lib.PT_INT64)
    return _ret(lib.pt_call_randperm_generator(nn[0], _generator_ptr(generator), dt, -1, dev, -1))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           layout=None, requires_grad: bool = False) -> Tensor:
    """Normal samples: of the given size with a number mean and std, or elementwise with a tensor
    mean and/or std (the overloads normal.Tensor_float, .float_Tensor, .Tensor_Tensor).

    >>> pytensor.normal(2.0, 0.5, (3,)).shape
    pytensor.Size([3])
    >>> pytensor.normal(pytensor.zeros(2), 1.0).shape
    pytensor.Size([2])
    """
    _check_requires_grad(requires_grad)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None or dtype is not None or device is not None or layout is not None:
            raise TypeError("normal(): with a tensor mean or std, size, dtype, device and layout "
                            "come from the tensors and must not be given")
        from . import ops
        kwargs = {"generator": generator}
        if out is not None:
            kwargs["out"] = out
        return ops.aten.normal(mean, std, **kwargs)
    if out is not None:
        raise TypeError("normal(): out= is only accepted with a tensor mean or std")
    if size is None:
        raise TypeError("normal(): with number mean and std, the argument 'size' is required")
    sizes = _size_args((size,), "normal")
    dt, dev = _options(dtype, device, layout, "normal")
    return _ret(lib.pt_call_normal_float_float(float(mean), float(std), len(sizes),
                                               _int64s(sizes), _generator_ptr(generator), dt, -1,
                                               dev, -1))


def _like_random(input: Tensor, dtype, device, memory_format, fname: str) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' must be Tensor, not {type(input).__name__}")
    return empty_like(input, dtype=dtype, device=device, memory_format=memory_format)


def rand_like(input: Tensor, *, generator=None, dtype=None, device=None, layout=None,
              requires_grad: bool = False, memory_format=None) -> Tensor:
    """Uniform samples from [0, 1) with input's shape, dtype and device.

    >>> pytensor.rand_like(pytensor.zeros(2)).shape
    pytensor.Size([2])
    """
    _check_requires_grad(requires_grad)
    t = _like_random(input, dtype, device, memory_format, "rand_like")
    return t.uniform_(0.0, 1.0, generator=generator)


def randn_like(input: Tensor, *, generator=None, dtype=None, device=None, layout=None,
               requires_grad: bool = False, memory_format=None) -> Tensor:
    """Standard normal samples with input's shape, dtype and device.

    >>> pytensor.randn_like(pytensor.zeros(2)).shape
    pytensor.Size([2])
    """
    _check_requires_grad(requires_grad)
    t = _like_random(input, dtype, device, memory_format, "randn_like")
    return t.normal_(0.0, 1.0, generator=generator)


def randint_like(input: Tensor, low=0, high=None, *, generator=None, dtype=None, device=None,
                 layout=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    """Integers from [low, high) with input's shape; randint_like(input, high) means low = 0.

    >>> pytensor.randint_like(pytensor.zeros(3), 5).shape
    pytensor.Size([3])
    """
    _check_requires_grad(requires_grad)
    if high is None:
        low, high = 0, low
    t = _like_random(input, dtype, device, memory_format, "randint_like")
    return t.random_(low, high, generator=generator)


_strided = None
_preserve = None
def _grad_factory(fn):
    """fn with its requires_grad keyword applied to the result (after fn made it)."""

    @functools.wraps(fn)
    def factory(*args, requires_grad=False, **kwargs):
        _check_requires_grad(requires_grad)
        return _set_requires_grad(fn(*args, **kwargs), requires_grad)
    return factory


for _name in ("tensor", "empty", "empty_strided", "zeros", "ones", "full", "arange", "linspace",
              "eye", "empty_like", "zeros_like", "ones_like", "full_like", "rand", "randn",
              "randint", "randperm", "normal", "rand_like", "randn_like", "randint_like"):
    if "requires_grad" in inspect.signature(globals()[_name]).parameters:
        globals()[_name] = _grad_factory(globals()[_name])

_PUBLIC = (
    tensor, as_tensor, from_numpy, from_dlpack, is_tensor, empty, empty_strided, zeros, ones,
    full, arange, linspace, eye, empty_like, zeros_like, ones_like, full_like, rand, randn,
    randint, randperm, normal, rand_like, randn_like, randint_like,
)


# The factories whose common calls the operators' thunks serve (Note [overload chains] in
# csrc/python/pt_python_callers.c): name -> the keywords the factory names that the thunks read
# as it does (device, layout, memory_format and pin_memory are left to the factory).
_WRITTEN = {name: ("dtype",) for name in (
    "empty", "zeros", "ones", "full", "arange", "linspace", "zeros_like", "ones_like",
    "empty_like", "full_like", "rand", "randn", "rand_like", "randn_like")}


def _build(module) -> None:
    """Installs the factories (and set_printoptions) on the package."""
    global _strided, _preserve
    from ._tensor_str import set_printoptions

    _strided = module.strided
    _preserve = module.preserve_format
    from . import _opsgen
    for fn in _PUBLIC:
        keywords = _WRITTEN.get(fn.__name__)
        if keywords is not None:
            fn = _opsgen.wrap_written(fn, "aten::" + fn.__name__, 1, keywords)
        setattr(module, fn.__name__, fn)
    # tensor(data) of a flat list of numbers: a thunk written in C (ptpy_thunk_tensor_list) that
    # takes it positionally, with no keyword.
    module.tensor = _core._fast_caller(tensor, False, (
        ("tensor_list", ("\0data",), (0,), (True,), 1, -1, False, False),), True)
    module.set_printoptions = set_printoptions
