"""The Tensor class: a thin Python object over one reference to a C ``pt_tensor``.

A Tensor holds exactly one reference to its ``pt_tensor``; the C base class ``_TensorBase`` keeps
it as a pointer, releases it when the object goes (no ``__del__`` frame), and makes ``t._h``, the
``pt_tensor *`` cdata the wrappers pass to cffi, on first read (Note [Python fast paths] in
csrc/python/pt_python.c; the base class also holds the number slots of + - *). Attribute reads
(shape, dtype, device, strides) go straight to the C query functions, which return their value
without an out-parameter, so that reading ``t.shape`` costs no cffi allocation. Everything that
creates a tensor (views, copies, conversions) is one C call whose new reference ``_wrap`` adopts.
A C tensor has at most one live Tensor object, which ``_wrap`` gives back whenever the tensor
returns from C, so ``v._base is x`` and attributes set on a tensor stay with it (Note [one Python
object per tensor] in csrc/python/pt_python.c).

The methods stay thin: argument conversion lives in _args, indexing in _indexing, printing in
_tensor_str, lists/NumPy/DLPack in _exchange and the legacy typed classes in _legacy.
"""

from __future__ import annotations

from typing import Optional, Tuple

from . import _C, _device, _dtype
from ._C import _core
from ._args import (_dim_arg, _dtype_id, _generator_ptr, _int64s, _memory_format_id,
                    _random_bounds, _scalar, _size_args, _wrap_dim)
from ._C import ffi, lib

_raise = _C._raise
_TensorBase = _C._TensorBase
# Adopts a new reference to a ``pt_tensor`` (a cdata; no retain) as a Tensor: the tensor's live
# object when it has one (the reference is dropped then), else a new one.
_wrap = _core._wrap
_NULL = ffi.NULL
_dtype_cls = _dtype.dtype
_dtypes_by_id = _dtype._dtypes_by_id

# Filled by _build, once the package has it.
_storage = None


def _call(fn, *args) -> "Tensor":
    """Calls a C function whose last parameter is ``pt_tensor **out`` and wraps the result."""
    out = ffi.new("pt_tensor **")
    st = fn(*args, out)
    if st:
        _raise(st)
    return _wrap(out[0])


def _fail():
    _raise(lib.pt_error_code() or lib.PT_ERR_RUNTIME)


def _ret(ptr) -> "Tensor":
    """Wraps the new reference an operator's entry point returned (NULL: raises its error).

    The methods below call the dispatcher's unboxed entry points ``lib.pt_call_<op>`` (Note
    [unboxed calling convention] in tools/gen_ops.py), so every kernel registered for these
    operators, Python ones included, sees the call."""
    if ptr == _NULL:
        _fail()
    return _wrap(ptr)


def _done(self: "Tensor", ptr) -> "Tensor":
    """The result of an in-place operator: self (the entry point's reference is dropped)."""
    if ptr == _NULL:
        _fail()
    lib.pt_tensor_release(ptr)
    return self


def _int64_ptr(value):
    return ffi.new("int64_t *", value)


class Tensor(_TensorBase):
    """A strided n-dimensional array over a storage, with PyTorch's semantics.

    >>> import pytensor
    >>> t = pytensor.Tensor(2, 3)          # uninitialized, default dtype
    >>> t.shape
    pytensor.Size([2, 3])
    """

    __slots__ = ("__dict__",)  # attributes set by users (Note [one Python object per tensor])
    __hash__ = object.__hash__
    # NumPy scalars and arrays defer binary operators to Tensor (as they do to torch's).
    __array_priority__ = 1000

    def __new__(cls, *args, device=None):
        return _legacy.legacy_new(_dtype.get_default_dtype()._id, args, device, "Tensor")

    # Operator methods are placeholders until first use (_LazyMethod, Note [no Tensor.__getattr__]).

    # ------------------------------------------------------------ metadata
    # shape, dtype, device and ndim (properties) and dim(), numel() come from _TensorBase (C).

    def size(self, dim: Optional[int] = None):
        """The shape, or the size of one dimension.

        >>> pytensor.zeros(2, 3).size(-1)
        3
        """
        if dim is None:
            return self.shape
        h = self._h
        return lib.pt_tensor_sizes(h)[_wrap_dim(_dim_arg(dim, "size"), lib.pt_tensor_ndim(h))]

    def stride(self, dim: Optional[int] = None):
        """Strides in elements, as a tuple or for one dimension.

        >>> pytensor.zeros(2, 3).stride()
        (3, 1)
        """
        h = self._h
        n = lib.pt_tensor_ndim(h)
        if dim is None:
            return tuple(ffi.unpack(lib.pt_tensor_strides(h), n)) if n else ()
        return lib.pt_tensor_strides(h)[_wrap_dim(_dim_arg(dim, "stride"), n)]

    def storage_offset(self) -> int:
        """The offset of the first element in the storage, in elements.

        >>> pytensor.arange(6)[2:].storage_offset()
        2
        """
        return lib.pt_tensor_offset(self._h)

    @property
    def layout(self):
        return _device._layouts[lib.pt_tensor_layout(self._h)]

    ndimension = _TensorBase.dim

    nelement = _TensorBase.numel

    def element_size(self) -> int:
        """Bytes per element.

        >>> pytensor.zeros(1, dtype=pytensor.float64).element_size()
        8
        """
        return _dtypes_by_id[lib.pt_tensor_dtype(self._h)].itemsize

    @property
    def itemsize(self) -> int:
        return _dtypes_by_id[lib.pt_tensor_dtype(self._h)].itemsize

    @property
    def nbytes(self) -> int:
        h = self._h
        return lib.pt_tensor_numel(h) * _dtypes_by_id[lib.pt_tensor_dtype(h)].itemsize

    def data_ptr(self) -> int:
        """The address of the first element.

        >>> t = pytensor.zeros(4)
        >>> t[1:].data_ptr() - t.data_ptr()
        4
        """
        return int(ffi.cast("uintptr_t", lib.pt_tensor_data(self._h)))

    def is_contiguous(self, memory_format=None) -> bool:
        """Whether the strides are row-major (or those of memory_format) for this shape.

        >>> pytensor.zeros(2, 3).t().is_contiguous()
        False
        """
        mf = lib.PT_MEMORY_FORMAT_CONTIGUOUS if memory_format is None else _memory_format_id(
            memory_format
        )
        return bool(lib.pt_tensor_is_contiguous(self._h, mf))

    def is_floating_point(self) -> bool:
        return _dtypes_by_id[lib.pt_tensor_dtype(self._h)].is_floating_point

    def is_complex(self) -> bool:
        return _dtypes_by_id[lib.pt_tensor_dtype(self._h)].is_complex

    def is_conj(self) -> bool:
        """Whether this tensor is a lazily conjugated view (its conjugate bit: Note [math bits]
        in csrc/include/pytensor.h).

        >>> pytensor.tensor([1j]).conj().is_conj()
        True
        """
        return bool(lib.pt_tensor_math_bits(self._h) & lib.PT_MATH_BIT_CONJ)

    def is_neg(self) -> bool:
        """Whether this tensor is a lazily negated view (its negative bit), as the imaginary part
        of a conjugated view is.

        >>> pytensor.tensor([1j]).conj().imag.is_neg()
        True
        """
        return bool(lib.pt_tensor_math_bits(self._h) & lib.PT_MATH_BIT_NEG)

    @property
    def real(self) -> "Tensor":
        """The real parts: for a complex tensor a view with the real dtype and doubled strides
        (writes reach this tensor), for any other tensor the tensor itself.

        >>> pytensor.tensor([1 + 2j]).real.tolist()
        [1.0]
        """
        return _ret(lib.pt_call_real(self._h))

    @real.setter
    def real(self, value) -> None:
        self.real.copy_(value)

    @property
    def imag(self) -> "Tensor":
        """The imaginary parts of a complex tensor, a view as for real; RuntimeError otherwise.

        >>> pytensor.tensor([1 + 2j]).imag.tolist()
        [2.0]
        """
        return _ret(lib.pt_call_imag(self._h))

    @imag.setter
    def imag(self, value) -> None:
        self.imag.copy_(value)

    @property
    def is_cuda(self) -> bool:
        return lib.pt_tensor_device(self._h).type == lib.PT_DEV_CUDA

    @property
    def is_cpu(self) -> bool:
        return lib.pt_tensor_device(self._h).type == lib.PT_DEV_CPU

    @property
    def is_meta(self) -> bool:
        return lib.pt_tensor_device(self._h).type == lib.PT_DEV_META

    @property
    def is_sparse(self) -> bool:
        return lib.pt_tensor_layout(self._h) == lib.PT_LAYOUT_SPARSE_COO

    def untyped_storage(self):
        """The UntypedStorage under this tensor (shared, not copied)."""
        s = lib.pt_tensor_storage(self._h)
        lib.pt_storage_retain(s)
        return _storage.UntypedStorage._new_wrapping(s)

    def storage(self):
        """The typed storage of this tensor's dtype (shared, not copied)."""
        s = lib.pt_tensor_storage(self._h)
        lib.pt_storage_retain(s)
        return _storage.TypedStorage._new_wrapping(s, self.dtype)

    # ------------------------------------------------------------ shared memory
    def share_memory_(self) -> "Tensor":
        """Moves the storage into shared memory (pytensor.multiprocessing's strategy) in place;
        returns self. A no-op for CUDA tensors and tensors already shared.

        >>> pytensor.ones(2).share_memory_().is_shared()
        True
        """
        s = lib.pt_tensor_storage(self._h)
        lib.pt_storage_retain(s)
        _storage.UntypedStorage._new_wrapping(s).share_memory_()
        return self

    def is_shared(self) -> bool:
        """Whether the storage is in shared memory (or a file mapped shared); CUDA memory always
        is."""
        s = lib.pt_tensor_storage(self._h)
        return lib.pt_storage_device(s).type == lib.PT_DEV_CUDA or bool(lib.pt_storage_is_shared(s))

    # ------------------------------------------------------------ Python scalars
    def item(self):
        """The value of a one-element tensor as a Python number.

        >>> pytensor.tensor([2.5]).item()
        2.5
        """
        s = ffi.new("pt_scalar *")
        st = lib.pt_call_item(self._h, s)
        if st:
            _raise(st)
        k = s.kind
        if k == lib.PT_SCALAR_FLOAT:
            return s.re
        if k == lib.PT_SCALAR_INT:
            return s.i
        if k == lib.PT_SCALAR_BOOL:
            return bool(s.i)
        return complex(s.re, s.im)

    def tolist(self):
        """Nested Python lists (a Python number for a 0-d tensor).

        >>> pytensor.tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        """
        return _exchange.tolist(self)

    def _scalar_value(self):
        if lib.pt_tensor_numel(self._h) != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __bool__(self) -> bool:
        n = lib.pt_tensor_numel(self._h)
        if n != 1:
            what = "no values" if n == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(self.item())

    def __int__(self) -> int:
        v = self._scalar_value()
        if isinstance(v, complex):
            raise TypeError("int(): can't convert a complex tensor to int")
        return int(v)

    def __float__(self) -> float:
        v = self._scalar_value()
        if isinstance(v, complex):
            raise TypeError("float(): can't convert a complex tensor to float")
        return float(v)

    def __complex__(self) -> complex:
        return complex(self._scalar_value())

    def __index__(self) -> int:
        info = _dtypes_by_id[lib.pt_tensor_dtype(self._h)]
        if lib.pt_tensor_numel(self._h) != 1 or info.is_floating_point or info.is_complex:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __len__(self) -> int:
        h = self._h
        if lib.pt_tensor_ndim(h) == 0:
            raise TypeError("len() of a 0-d tensor")
        return lib.pt_tensor_sizes(h)[0]

    def __iter__(self):
        h = self._h
        if lib.pt_tensor_ndim(h) == 0:
            raise TypeError("iteration over a 0-d tensor")
        n = lib.pt_tensor_sizes(h)[0]
        return (_ret(lib.pt_call_select_int(h, 0, i)) for i in range(n))

    def __repr__(self) -> str:
        return _tensor_str._str(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if lib.pt_tensor_ndim(self._h) == 0 and not self.is_meta:
            return self.item().__format__(spec)
        return object.__format__(self, spec) if spec else self.__repr__()

    def __reduce_ex__(self, protocol):
        # torch's scheme: storage + rebuild function (pytensor/_utils.py)
        return _utils.reduce_tensor(self)

    def __deepcopy__(self, memo) -> "Tensor":
        return _utils.deepcopy_tensor(self, memo)

    # `t[index]` and `t[index] = value` are _TensorBase's mapping slots: the common forms in C,
    # the others through _getitem and _indexing.setitem (Note [indexing in C] in
    # csrc/python/pt_python_index.c).

    # ------------------------------------------------------------ views
    def view(self, *shape) -> "Tensor":
        """A view with another shape (one size may be -1).

        >>> pytensor.arange(6).view(2, 3).shape
        pytensor.Size([2, 3])
        """
        sizes = _size_args(shape, "view")
        return _ret(lib.pt_call_view(self._h, len(sizes), _int64s(sizes)))

    def view_as(self, other: "Tensor") -> "Tensor":
        _check_other(other, "view_as")
        return self.view(other.shape)

    def as_subclass(self, cls) -> "Tensor":
        """A ``cls`` instance over self's data: a view of self, attached to its graph. A C tensor
        comes back to Python as its one object (Note [one Python object per tensor] in
        csrc/python/pt_python.c), so the instance stays of its class through saved variables,
        hooks and operators that return their input.

        >>> class Sub(pytensor.Tensor): pass
        >>> type(pytensor.zeros(2).as_subclass(Sub)).__name__
        'Sub'
        """
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                            "Tensor is not possible. Make sure your class inherits from Tensor.")
        sizes = tuple(self.shape)
        r = lib.pt_call_view(self._h, len(sizes), _int64s(sizes))
        if r == _NULL:
            _fail()
        out = _TensorBase.__new__(cls)
        out._h = r  # adopts the new reference and takes the tensor's slot
        return out

    def reshape(self, *shape) -> "Tensor":
        """A view when the strides allow it, else a contiguous copy.

        >>> pytensor.arange(6).reshape(3, -1).shape
        pytensor.Size([3, 2])
        """
        sizes = _size_args(shape, "reshape", "shape")
        return _ret(lib.pt_call_reshape(self._h, len(sizes), _int64s(sizes)))

    def reshape_as(self, other: "Tensor") -> "Tensor":
        _check_other(other, "reshape_as")
        return self.reshape(other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        """Merges dims start_dim..end_dim into one (a view when the strides allow it).

        >>> pytensor.zeros(2, 3, 4).flatten(1).shape
        pytensor.Size([2, 12])
        """
        return _ret(lib.pt_call_flatten_using_ints(
            self._h,
            _dim_arg(start_dim, "flatten", "start_dim"),
            _dim_arg(end_dim, "flatten", "end_dim"),
        ))

    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        """A view with two dims swapped.

        >>> pytensor.zeros(2, 3).transpose(0, 1).shape
        pytensor.Size([3, 2])
        """
        return _ret(lib.pt_call_transpose_int(
            self._h,
            _dim_arg(dim0, "transpose", "dim0"),
            _dim_arg(dim1, "transpose", "dim1"),
        ))

    swapaxes = swapdims = transpose

    def permute(self, *dims) -> "Tensor":
        """A view with the dims reordered.

        >>> pytensor.zeros(2, 3, 4).permute(2, 0, 1).shape
        pytensor.Size([4, 2, 3])
        """
        d = _size_args(dims, "permute", "dims")
        return _ret(lib.pt_call_permute(self._h, len(d), _int64s(d)))

    def _alias(self) -> "Tensor":
        # A view of the same shape (view keeps the autograd history; as_strided has no formula).
        h = self._h
        return _ret(lib.pt_call_view(h, lib.pt_tensor_ndim(h), lib.pt_tensor_sizes(h)))

    def t(self) -> "Tensor":
        """Transpose of a tensor with at most 2 dimensions."""
        n = lib.pt_tensor_ndim(self._h)
        if n > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
        return _ret(lib.pt_call_t(self._h))

    @property
    def T(self) -> "Tensor":
        n = lib.pt_tensor_ndim(self._h)
        return self.permute(list(range(n - 1, -1, -1))) if n else self._alias()

    @property
    def mT(self) -> "Tensor":
        n = lib.pt_tensor_ndim(self._h)
        if n < 2:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. "
                f"Got {n}-D tensor."
            )
        return self.transpose(-2, -1)

    def expand(self, *sizes) -> "Tensor":
        """A view broadcasting size-1 dims (stride 0); -1 keeps a size.

        >>> pytensor.tensor([[1], [2]]).expand(2, 3).tolist()
        [[1, 1, 1], [2, 2, 2]]
        """
        s = _size_args(sizes, "expand")
        return _ret(lib.pt_call_expand(self._h, len(s), _int64s(s), 0))

    def expand_as(self, other: "Tensor") -> "Tensor":
        _check_other(other, "expand_as")
        return self.expand(other.shape)

    def squeeze(self, dim=None) -> "Tensor":
        """A view without size-1 dims (all of them, or those in dim).

        >>> pytensor.zeros(1, 3, 1).squeeze().shape
        pytensor.Size([3])
        """
        if dim is None:
            return _ret(lib.pt_call_squeeze(self._h))
        if type(dim) is int and -(1 << 63) <= dim < (1 << 63):  # squeeze.dim, as torch resolves it
            return _ret(lib.pt_call_squeeze_dim(self._h, dim))
        dims = _size_args((dim,), "squeeze", "dim")
        if not dims:
            return self._alias()
        return _ret(lib.pt_call_squeeze_dims(self._h, len(dims), _int64s(dims)))

    def unsqueeze(self, dim: int) -> "Tensor":
        """A view with a size-1 dim inserted at dim.

        >>> pytensor.zeros(3).unsqueeze(0).shape
        pytensor.Size([1, 3])
        """
        return _ret(lib.pt_call_unsqueeze(self._h, _dim_arg(dim, "unsqueeze")))

    def select(self, dim: int, index: int) -> "Tensor":
        """A view at one index of dim, without that dim.

        >>> pytensor.tensor([[1, 2], [3, 4]]).select(1, 0).tolist()
        [1, 3]
        """
        return _ret(lib.pt_call_select_int(
            self._h,
            _dim_arg(dim, "select"),
            _dim_arg(index, "select", "index"),
        ))

    def unfold(self, dimension: int, size: int, step: int) -> "Tensor":
        """A view of the windows of size elements along dimension, step apart (a new last dim).

        >>> pytensor.arange(5).unfold(0, 2, 2).tolist()
        [[0, 1], [2, 3]]
        """
        return _ret(lib.pt_call_unfold(
            self._h,
            _dim_arg(dimension, "unfold", "dimension"),
            _dim_arg(size, "unfold", "size"),
            _dim_arg(step, "unfold", "step"),
        ))

    def as_strided(self, size, stride, storage_offset: Optional[int] = None) -> "Tensor":
        """A view of the same storage with the given sizes, strides and offset (elements).

        >>> pytensor.arange(4).as_strided((2, 2), (1, 1)).tolist()
        [[0, 1], [1, 2]]
        """
        sz = _size_args((size,), "as_strided", "size")
        st = _size_args((stride,), "as_strided", "stride")
        if len(sz) != len(st):
            raise RuntimeError(
                f"mismatch in length of strides and shape: size has {len(sz)} entries, "
                f"stride has {len(st)}"
            )
        off = lib.pt_tensor_offset(self._h) if storage_offset is None else _dim_arg(
            storage_offset, "as_strided", "storage_offset"
        )
        return _ret(lib.pt_call_as_strided(self._h, len(sz), _int64s(sz), len(st), _int64s(st),
                                           _int64_ptr(off)))

    # ------------------------------------------------------------ copies and conversions
    def clone(self, *, memory_format=None) -> "Tensor":
        """A copy with its own storage (strides kept for dense tensors by default).

        >>> pytensor.tensor([1, 2]).clone().tolist()
        [1, 2]
        """
        mf = lib.PT_MEMORY_FORMAT_PRESERVE if memory_format is None else _memory_format_id(
            memory_format
        )
        return _ret(lib.pt_call_clone(self._h, mf))

    def contiguous(self, memory_format=None) -> "Tensor":
        """This tensor when it is row-major contiguous, else a contiguous copy."""
        if memory_format is not None:
            mf = _memory_format_id(memory_format)
            if mf not in (lib.PT_MEMORY_FORMAT_CONTIGUOUS, lib.PT_MEMORY_FORMAT_PRESERVE):
                if lib.pt_tensor_is_contiguous(self._h, mf):
                    return self
                return _ret(lib.pt_call_contiguous(self._h, mf))
        if lib.pt_tensor_is_contiguous(self._h, lib.PT_MEMORY_FORMAT_CONTIGUOUS):
            return self
        return _ret(lib.pt_call_contiguous(self._h, lib.PT_MEMORY_FORMAT_CONTIGUOUS))

    def copy_(self, src, non_blocking: bool = False) -> "Tensor":
        """Copies src into self, casting and broadcasting; src may be a number or nested list.

        >>> pytensor.zeros(2, 2).copy_([1, 2]).tolist()
        [[1.0, 2.0], [1.0, 2.0]]
        """
        if not isinstance(src, Tensor):
            if isinstance(src, (list, tuple)) or hasattr(src, "__array_interface__"):
                src = _factory.tensor(src, device=self.device)
            else:
                return self.fill_(src)
        return _done(self, lib.pt_call_copy_(self._h, src._h, 1 if non_blocking else 0))

    def fill_(self, value) -> "Tensor":
        """Fills with one value (converted to the dtype).

        >>> pytensor.empty(2).fill_(3).tolist()
        [3.0, 3.0]
        """
        if isinstance(value, Tensor):
            return _done(self, lib.pt_call_fill__Tensor(self._h, value._h))
        return _done(self, lib.pt_call_fill__Scalar(self._h, _scalar(value)))

    def zero_(self) -> "Tensor":
        """Fills with zeros.

        >>> pytensor.ones(2).zero_().tolist()
        [0.0, 0.0]
        """
        return _done(self, lib.pt_call_zero_(self._h))

    def to(self, *args, dtype=None, device=None, non_blocking: bool = False, copy: bool = False,
           memory_format=None) -> "Tensor":
        """Converts dtype and/or device; returns self when nothing changes and copy is False.

        >>> pytensor.tensor([1, 2]).to(pytensor.float64).dtype
        pytensor.float64
        """
        flags = []
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype if dtype is None else dtype
                device = a.device if device is None else device
            elif isinstance(a, _dtype_cls):
                dtype = a
            elif isinstance(a, bool):
                flags.append(a)
            elif a is None:
                continue
            else:
                device = a
        if len(flags) > 1:
            copy = flags[1]
        h = self._h
        dt = -1 if dtype is None else _dtype_id(dtype)
        dev = _NULL if device is None else ffi.new("pt_device *", _device._to_cdevice(device))
        out = _ret(lib.pt_call_to_dtype_layout(h, dt, -1, dev, -1, 1 if non_blocking else 0,
                                               1 if copy else 0, -1))
        if memory_format is not None:
            mf = _memory_format_id(memory_format)
            if mf != lib.PT_MEMORY_FORMAT_PRESERVE:
                out = out.contiguous(memory_format)
        if not copy and out._h == h:
            return self
        return out

    def cpu(self) -> "Tensor":
        """This tensor on the CPU (self when it already is).

        >>> t = pytensor.zeros(1)
        >>> t.cpu() is t
        True
        """
        return self.to("cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> "Tensor":
        """A copy on a CUDA device (the current one by default); self when already there."""
        return self.to("cuda" if device is None else device)

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """Without an argument, the legacy type name ("pytensor.FloatTensor"); else a conversion.

        >>> pytensor.zeros(1).type()
        'pytensor.FloatTensor'
        """
        h = self._h
        if dtype is None:
            return _legacy.type_name(lib.pt_tensor_dtype(h), lib.pt_tensor_device(h).type)
        if isinstance(dtype, str):
            dtype = _legacy.from_name(dtype)
        if _legacy.is_legacy_class(dtype):
            target = _dtypes_by_id[dtype._dtype_id]
            if lib.pt_tensor_device(h).type == dtype._device_type:
                return self.to(target)
            return self.to("cuda" if dtype._device_type == lib.PT_DEV_CUDA else "cpu", target)
        return self.to(_dtype._to_dtype(dtype, "dtype"))

    def type_as(self, other: "Tensor") -> "Tensor":
        """This tensor converted to other's dtype and device.

        >>> pytensor.zeros(1).type_as(pytensor.zeros(1, dtype=pytensor.int8)).dtype
        pytensor.int8
        """
        _check_other(other, "type_as")
        return self.to(other.device, other.dtype)

    # ------------------------------------------------------------ random fills
    def uniform_(self, from_: float = 0.0, to: float = 1.0, *, generator=None) -> "Tensor":
        """Fills with uniform samples from [from_, to).

        >>> t = pytensor.empty(3).uniform_(2, 3)
        """
        return _done(self, lib.pt_call_uniform_(self._h, float(from_), float(to),
                                                _generator_ptr(generator)))

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None) -> "Tensor":
        """Fills with normal samples.

        >>> t = pytensor.empty(3).normal_(0, 2)
        """
        return _done(self, lib.pt_call_normal_(self._h, float(mean), float(std),
                                               _generator_ptr(generator)))

    def random_(self, *args, generator=None, **kwargs) -> "Tensor":
        """Fills with integers from [from, to); ``random_(to)`` means [0, to); no bounds means
        the dtype's range (for floating dtypes, the integers exactly representable).

        >>> pytensor.empty(4, dtype=pytensor.int64).random_(0, 10).shape
        pytensor.Size([4])
        """
        lo, hi = _random_bounds(self, args, kwargs)
        return _done(self, lib.pt_call_random__from(self._h, lo, _int64_ptr(hi),
                                                    _generator_ptr(generator)))

    # ------------------------------------------------------------ new_* factories
    def _like_args(self, dtype, device):
        dt = _dtypes_by_id[lib.pt_tensor_dtype(self._h)] if dtype is None else dtype
        return dt, (self.device if device is None else device)

    def new_empty(self, *size, dtype=None, device=None, requires_grad: bool = False) -> "Tensor":
        """An uninitialized tensor with this tensor's dtype and device by default.

        >>> pytensor.zeros(1, dtype=pytensor.int8).new_empty(2).dtype
        pytensor.int8
        """
        dt, dev = self._like_args(dtype, device)
        return _factory.empty(*size, dtype=dt, device=dev, requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad: bool = False) -> "Tensor":
        """Zeros with this tensor's dtype and device by default.

        >>> pytensor.zeros(1, dtype=pytensor.int8).new_zeros(2).tolist()
        [0, 0]
        """
        dt, dev = self._like_args(dtype, device)
        return _factory.zeros(*size, dtype=dt, device=dev, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad: bool = False) -> "Tensor":
        """Ones with this tensor's dtype and device by default.

        >>> pytensor.zeros(1).new_ones(2).tolist()
        [1.0, 1.0]
        """
        dt, dev = self._like_args(dtype, device)
        return _factory.ones(*size, dtype=dt, device=dev, requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None,
                 requires_grad: bool = False) -> "Tensor":
        """fill_value with this tensor's dtype and device by default.

        >>> pytensor.zeros(1, dtype=pytensor.int32).new_full((2,), 7).tolist()
        [7, 7]
        """
        dt, dev = self._like_args(dtype, device)
        return _factory.full(size, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad: bool = False) -> "Tensor":
        """A copy of data with this tensor's dtype and device by default.

        >>> pytensor.zeros(1, dtype=pytensor.int16).new_tensor([1.5]).tolist()
        [1]
        """
        dt, dev = self._like_args(dtype, device)
        return _factory.tensor(data, dtype=dt, device=dev, requires_grad=requires_grad)

    # ------------------------------------------------------------ NumPy and DLPack
    def numpy(self, *, force: bool = False):
        """An ndarray sharing this tensor's memory (CPU tensors; force=True copies to CPU).

        >>> pytensor.tensor([1, 2]).numpy()
        array([1, 2])
        """
        return _exchange.to_numpy(self, force)

    @property
    def __array_interface__(self) -> dict:
        return _exchange.array_interface(self)

    def __array__(self, dtype=None, copy=None):
        return _exchange.to_array(self, dtype, copy)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return _exchange.to_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> Tuple[int, int]:
        return _exchange.dlpack_device(self)


Tensor.__module__ = "pytensor"

# torch's dtype conversion methods: t.float() is t.to(pytensor.float32), and so on.
_CONVERSIONS = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
    "long": "int64", "int": "int32", "short": "int16", "char": "int8", "byte": "uint8",
    "bool": "bool", "cfloat": "complex64", "cdouble": "complex128",
}


def _conversion(method: str, dtype_name: str):
    def conversion(self, memory_format=None) -> Tensor:
        return self.to(_dtype._to_dtype(dtype_name), memory_format=memory_format)

    conversion.__name__ = conversion.__qualname__ = method
    conversion.__doc__ = f"``self.to(pytensor.{dtype_name})``: self when it already is one."
    return conversion


for _method, _name in _CONVERSIONS.items():
    setattr(Tensor, _method, _conversion(_method, _name))


def _operator_fallback(dunder: str, self, *other):
    """The Python form of a Tensor operator dunder, which the number slots of _TensorBase call
    for what their C path does not take (other operand types, errors)."""
    written = _PYTHON_DUNDERS.get(dunder)
    if written is not None:
        return written(self, *other)
    from . import _opsgen
    name, overload = _OPERATOR_DUNDERS[dunder]
    if other and (not overload or dunder == "__rshift__"):
        return _binary_fallback(dunder, name, self, other[0])
    return _opsgen.operator_fallback(dunder, self, *other)


def _binary_fallback(dunder: str, name: str, self, other):
    """The Python form of the binary dunders that _opsgen._form would misread: those whose
    operator has no overload name (floor_divide, matmul), read as unary, and __rshift__, read as
    a reflected dunder. The operator's method with the operands in the dunder's order
    (NotImplemented when the operator is not declared or other is not a Tensor or a number)."""
    from . import _opargs
    out = ffi.new("pt_op **")
    if lib.pt_dispatch_find(f"aten::{name}".encode(), _OPERATOR_DUNDERS[dunder][1].encode(),
                            out) != 0:
        lib.pt_error_clear()
        return NotImplemented
    if not isinstance(other, Tensor):
        if not _opargs._is_number(other):
            return NotImplemented
        other = _opargs.wrapped_number(other)
    fn = getattr(Tensor, name)
    if dunder.startswith("__r") and dunder != "__rshift__":
        return fn(other, self)
    return fn(self, other)


def _dunders(name: str, op: str, inplace_overload: str = "Tensor", overload: str = "Tensor",
             reflected: bool = True) -> dict:
    """The forward, reflected and in-place dunders of a binary Python operator."""
    d = {f"__{name}__": (op, overload), f"__i{name}__": (op + "_", inplace_overload)}
    if reflected:
        d[f"__r{name}__"] = (op, overload)
    return d


# dunder -> the operator whose declaration it needs ("aten::name", overload). _TensorBase's number
# slots and comparisons call that operator's thunk (Note [Tensor number slots]); the Python form
# (_opsgen._form says how each calls it) is made on first use by _operator_fallback. Each dunder
# here has a slot in csrc/python/pt_python.c; one whose operator is not declared raises
# TypeError ("unsupported operand type(s)"), as Python does for a type without the operator.
_OPERATOR_DUNDERS = {
    **_dunders("add", "add"), **_dunders("sub", "sub"), **_dunders("mul", "mul"),
    **_dunders("truediv", "div"),
    **_dunders("floordiv", "floor_divide", overload=""),
    **_dunders("mod", "remainder"),
    **_dunders("pow", "pow", overload="Tensor_Tensor"),
    "__matmul__": ("matmul", ""), "__rmatmul__": ("matmul", ""), "__imatmul__": ("matmul_", ""),
    **_dunders("and", "bitwise_and"), **_dunders("or", "bitwise_or"),
    **_dunders("xor", "bitwise_xor"),
    **_dunders("lshift", "bitwise_left_shift"), **_dunders("rshift", "bitwise_right_shift"),
    "__neg__": ("neg", ""), "__invert__": ("bitwise_not", ""), "__abs__": ("abs", ""),
    "__eq__": ("eq", "Tensor"), "__ne__": ("ne", "Tensor"), "__lt__": ("lt", "Tensor"),
    "__le__": ("le", "Tensor"), "__gt__": ("gt", "Tensor"), "__ge__": ("ge", "Tensor"),
    "__rsub__": ("rsub", "Tensor"),
}

def _rsub(self, other):
    """``other - self``: torch's rsub (``2 - x`` records RsubBackward1, rsub.Scalar; a Tensor
    other RsubBackward0, rsub.Tensor)."""
    if not isinstance(other, Tensor):
        if not _opargs._is_number(other):
            return NotImplemented
        if type(other) is int and not -(1 << 63) <= other < (1 << 63):
            raise OverflowError("int too big to convert")
    return _rsub_op(self, other)


def _rtruediv(self, other):
    """``other / self``: torch's ``self.reciprocal() * other`` (MulBackward0 over
    ReciprocalBackward0), whose promotion gives ``2 / int_tensor`` a floating result."""
    if not isinstance(other, Tensor) and not _opargs._is_number(other):
        return NotImplemented
    return self.reciprocal() * other


def _rsub_op(self, other):
    global _rsub_op
    from . import _opsgen
    _rsub_op = _opsgen.make_binding("aten::rsub", 1)
    return _rsub_op(self, other)


# The reflected dunders whose Python form is written here rather than read from the operator's
# schema: rsub takes the operands in the dunder's own order (the number slot calls rsub.Scalar or
# rsub.Tensor in C, and this serves what that path leaves), and `other / self` is torch's
# `self.reciprocal() * other`, two operators, which the number slot hands here every time.
_PYTHON_DUNDERS = {"__rsub__": _rsub, "__rtruediv__": _rtruediv}
_PYTHON_ONLY_DUNDERS = frozenset({"__rtruediv__"})

# dunder -> the overload its number slot calls when the other operand is a Python number: torch's
# dunders call these (`x ** 3` is pow.Tensor_Scalar and records PowBackward0, `2 ** x` PowBackward2,
# `x % 2` RemainderBackward0), where the others take the number as a wrapped 0-dim tensor.
_NUMBER_OVERLOADS = {
    "__pow__": ("pow", "Tensor_Scalar"), "__rpow__": ("pow", "Scalar"),
    "__ipow__": ("pow_", "Scalar"), "__mod__": ("remainder", "Scalar"),
    "__imod__": ("remainder_", "Scalar"), "__rsub__": ("rsub", "Scalar"),
}


# Note [no Tensor.__getattr__]
# Tensor has no __getattr__, and nothing else may give it one: CPython calls a method descriptor
# found on the class with self as its first argument (LOAD_METHOD, no bound-method object) only
# when attribute lookup is the generic one, and a class with __getattr__ has its own. With it,
# `t.item()` took 67 ns; without, 31 ns (the C caller called directly: 29 ns). Methods that are
# not made yet are therefore placeholders on the class from import on, one per operator name
# that the declarations give a method variant (only the C tables are read, not the schemas).
class _LazyMethod:
    """A Tensor method of an operator, made on first access (from the class or an instance) and
    then stored on the class in place of this placeholder."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, cls=None):
        from . import _opsgen
        fn = _opsgen.make_binding("aten::" + self.name, 2)
        setattr(Tensor, self.name, fn)
        return fn if obj is None else fn.__get__(obj, cls)


def _build_operators(module) -> int:
    """Puts on Tensor a placeholder for every operator declared as a method that the class does
    not define by hand, and the operator dunders whose operators are declared; returns the number
    of registered operators. Only names are read here: bindings are made on first use."""
    out = ffi.new("pt_op **")
    n = lib.pt_dispatch_op_count()
    seen = set()
    for i in range(n):
        if lib.pt_dispatch_op_at(i, out) or not lib.pt_op_variants(out[0]) & lib.PT_VARIANT_METHOD:
            continue
        full = ffi.string(lib.pt_op_name(out[0])).decode()
        if full.startswith("aten::"):
            name = full[6:].partition(".")[0]
            # hasattr before the placeholder is there: on one, it would make the binding.
            if name not in seen and not hasattr(Tensor, name):
                setattr(Tensor, name, _LazyMethod(name))
            seen.add(name)
    def declared(name: str, overload: str):
        if lib.pt_dispatch_find(f"aten::{name}".encode(), overload.encode(), out) == 0:
            return f"{name}_{overload}" if overload else name
        lib.pt_error_clear()
        return None

    for dunder, (name, overload) in _OPERATOR_DUNDERS.items():
        if dunder in _PYTHON_ONLY_DUNDERS:
            _core._set_operator(dunder, None)
            continue
        ident = declared(name, overload)
        number = declared(*_NUMBER_OVERLOADS[dunder]) if dunder in _NUMBER_OVERLOADS else None
        try:
            _core._set_operator(dunder, ident, number)
        except ValueError:  # declared, but without a thunk: the Python form serves it
            _core._set_operator(dunder, None)
    return n


def _getitem(self: "Tensor", index) -> "Tensor":
    """``t[index]`` for what the mapping slot of _TensorBase leaves to Python (every form on
    subclasses of Tensor)."""
    # `t[i]` with an int in range is select(0, i): its C caller (the bounds message of an
    # index out of range is _indexing's, torch's words for indexing rather than select's).
    if type(index) is int:
        shape = self.shape
        if shape and -shape[0] <= index < shape[0]:
            return self.select(0, index)
    return _indexing.getitem(self, index)


def _build(module) -> None:
    """Installs Tensor and the legacy typed classes on the package."""
    global _storage
    from . import _storage as stor

    _storage = stor
    _core._python_setup(Tensor, ffi.typeof("pt_tensor *"), _fail, _operator_fallback,
                        module.Size, _dtypes_by_id, _device._from_pair)
    _core._indexing_setup(_getitem, _indexing.setitem)
    module.Tensor = Tensor
    from . import _autograd
    _autograd._install(Tensor, _wrap)
    _legacy._build(module)
    from . import _opsgen
    for name, (qualname, keywords, same_self) in _WRITTEN_METHODS.items():
        setattr(Tensor, name, _opsgen.wrap_written(Tensor.__dict__[name], qualname, 2, keywords,
                                                   same_self))
    # to() calls to.dtype_layout whatever it is given; its common call `t.to(dtype)` reads the
    # dtype positionally.
    Tensor.to = _opsgen.wrap_written(Tensor.__dict__["to"], "aten::to", 2,
                                     ("dtype", "non_blocking", "copy"), True, "dtype_layout", 1)


# The methods written here whose common calls the operators' thunks serve (Note [overload chains]
# in csrc/python/pt_python_callers.c): name -> (operator, the keywords the method names,
# whether a result holding self's tensor is self).
_WRITTEN_METHODS = {
    "view": ("aten::view", (), False),
    "reshape": ("aten::reshape", (), False),
    "permute": ("aten::permute", (), False),
    "expand": ("aten::expand", (), False),
    "t": ("aten::t", (), False),
    "transpose": ("aten::transpose", ("dim0", "dim1"), False),
    "flatten": ("aten::flatten", ("start_dim", "end_dim"), False),
    "unsqueeze": ("aten::unsqueeze", ("dim",), False),
    "select": ("aten::select", ("dim", "index"), False),
    "unfold": ("aten::unfold", ("dimension", "size", "step"), False),
    "item": ("aten::item", (), False),
    "clone": ("aten::clone", ("memory_format",), False),
}


# These modules import Tensor and the helpers above.


def _check_other(other, fname: str) -> None:
    if not isinstance(other, Tensor):
        raise TypeError(f"{fname}(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")


from . import _exchange, _factory, _indexing, _legacy, _opargs, _tensor_str  # noqa: E402
from . import _utils  # noqa: E402
