"""The shape family's functions that torch writes in Python (torch/functional.py and
torch/_tensor.py): einsum's sublist form, tensordot's dims forms, atleast_*d of several tensors,
block_diag, cartesian_prod and chain_matmul of separate arguments, broadcast_shapes,
broadcast_tensors and meshgrid, the tensor_split family, and the Tensor properties H and mH.

Each reads its Python-level arguments and calls the operators of csrc/ops/shape_more.yaml (and
the core's view operators); none computes tensor values itself.

>>> import pytensor
>>> pytensor.einsum("ij,jk->ik", pytensor.ones(2, 3), pytensor.ones(3, 4)).shape
pytensor.Size([2, 4])
"""
from __future__ import annotations

import builtins
import operator

from . import _opsgen
from ._tensor import Tensor

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "broadcast_tensors", "cartesian_prod", "chain_matmul", "dsplit", "einsum", "hsplit",
           "meshgrid", "tensor_split", "tensordot", "vsplit"]

_BINDINGS: dict = {}


def _op(name: str):
    """The function binding of the aten operator `name` (made once)."""
    fn = _BINDINGS.get(name)
    if fn is None:
        fn = _BINDINGS[name] = _opsgen.make_binding("aten::" + name, 1)
    return fn


# ---------------------------------------------------------------- einsum, tensordot
def _subscript(n) -> str:
    if n is Ellipsis:
        return "..."
    if isinstance(n, builtins.int) and not isinstance(n, builtins.bool):
        if 0 <= n < 26:
            return chr(ord("A") + n)
        if 26 <= n < 52:
            return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args) -> Tensor:
    """Sums of products over named dims, as torch.einsum: ``einsum(equation, *operands)`` or the
    sublist form ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])``.

    >>> pytensor.einsum("ii", pytensor.eye(3)).item()
    3.0
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation = ",".join("".join(_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _op("einsum")(equation, list(operands))


def _dims_list(d) -> list:
    return [d] if isinstance(d, builtins.int) else list(d)


def tensordot(a, b, dims=2, out=None) -> Tensor:
    """Contracts dims of a with dims of b, as torch.tensordot: dims is a count (the last dims of
    a with the first of b), a pair of lists, or a tensor of either.

    >>> pytensor.tensordot(pytensor.ones(2, 3), pytensor.ones(3, 4), dims=1).shape
    pytensor.Size([2, 4])
    """
    if not isinstance(dims, (tuple, list, Tensor, builtins.int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    dims_a: list = []
    dims_b: list = []
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
        dims_a, dims_b = _dims_list(dims_a), _dims_list(dims_b)
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            assert dims.size()[0] == 2
            dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
        else:
            count = builtins.int(dims.item())
            if count < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-count, 0)), list(range(count))
    if isinstance(dims, builtins.int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    if out is None:
        return _op("tensordot")(a, b, dims_a, dims_b)
    return _op("tensordot")(a, b, dims_a, dims_b, out=out)


# ---------------------------------------------------------------- atleast_*d
def _atleast(name: str, tensors: tuple):
    fn = _op(name)
    if len(tensors) == 1:
        tensors = tensors[0]
    if isinstance(tensors, Tensor):
        return fn(tensors)
    return tuple(fn(t) for t in tensors)


def atleast_1d(*tensors):
    """Each tensor with at least one dim (a 0-d one reshaped to [1]); one tensor in, one out.

    >>> pytensor.atleast_1d(pytensor.tensor(1.0)).shape
    pytensor.Size([1])
    """
    return _atleast("atleast_1d", tensors)


def atleast_2d(*tensors):
    """Each tensor with at least two dims (size-1 dims added in front).

    >>> pytensor.atleast_2d(pytensor.ones(3)).shape
    pytensor.Size([1, 3])
    """
    return _atleast("atleast_2d", tensors)


def atleast_3d(*tensors):
    """Each tensor with at least three dims, as numpy.atleast_3d places them.

    >>> pytensor.atleast_3d(pytensor.ones(2, 3)).shape
    pytensor.Size([2, 3, 1])
    """
    return _atleast("atleast_3d", tensors)


# ---------------------------------------------------------------- broadcasting, meshgrid
def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, as torch.broadcast_shapes.

    >>> pytensor.broadcast_shapes((2, 1), (3,))
    pytensor.Size([2, 3])
    """
    from ._device import Size
    max_len = 0
    for shape in shapes:
        if isinstance(shape, builtins.int):
            max_len = max(max_len, 1)
        elif isinstance(shape, (tuple, list)):
            max_len = max(max_len, len(shape))
    result = [1] * max_len
    for shape in shapes:
        if isinstance(shape, builtins.int):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list of "
                               "ints, got ", shape)
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension "
                                   f"({shape[i]}): ({shape[i]})")
            if shape[i] == 1 or shape[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape")
            result[i] = shape[i]
    return Size(result)


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common broadcast shape (views; a tensor already of that
    shape is returned as it is, as torch does).

    >>> [t.shape for t in pytensor.broadcast_tensors(pytensor.ones(2, 1), pytensor.ones(3))]
    [pytensor.Size([2, 3]), pytensor.Size([2, 3])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"broadcast_tensors(): argument 'tensors' (position 1) must be tuple "
                            f"of Tensors, not {type(t).__name__}")
    shape = broadcast_shapes(*[tuple(t.shape) for t in tensors]) if tensors else ()
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors)


def meshgrid(*tensors, indexing=None) -> tuple:
    """Coordinate grids of 0-d or 1-d tensors, as torch.meshgrid: indexing "ij" (matrix, the
    default, with torch's warning when it is not given) or "xy" (Cartesian).

    >>> [g.shape for g in pytensor.meshgrid(pytensor.ones(2), pytensor.ones(3), indexing="xy")]
    [pytensor.Size([3, 2]), pytensor.Size([3, 2])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    tensors = list(tensors)
    if indexing is None:
        import warnings
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid(): argument 'tensors' must be tuple of Tensors, not "
                            f"{type(t).__name__}")
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have "
                               "the same dtype.")
        if t.device != tensors[0].device:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have "
                               "the same device.")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = -1
        grids.append(t.view(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# ---------------------------------------------------------------- tensor_split and friends
def _wrap(dim: int, ndim: int) -> int:
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but "
                         f"got {dim})")
    return dim + max(ndim, 1) if dim < 0 else dim


# One Python Tensor object per section takes ~200 bytes: 2^28 of them (~50 GiB) is past what a
# machine can hold, where a count only just below int64's limit would loop until memory ran out.
_MAX_SECTIONS = 1 << 28


def _check_int64(value: int) -> None:
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError("Overflow when unpacking long long")


def _need_tensor(name: str, input) -> None:
    """The TypeError of torch's bound function for an input that is not a tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def tensor_split(input, indices_or_sections, dim=0) -> tuple:
    """Views of input split along dim into `sections` nearly equal parts, or at the given
    indices, as torch.tensor_split.

    >>> [t.tolist() for t in pytensor.tensor_split(pytensor.arange(5), 2)]
    [[0, 1, 2], [3, 4]]
    """
    _need_tensor("tensor_split", input)
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    dim = _wrap(operator.index(dim), input.dim())
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        if spec.device.type != "cpu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, "
                               f"but it's on {spec.device}")
        if spec.dtype.is_floating_point or spec.dtype.is_complex or spec.dtype.itemsize != 8:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {_legacy(spec.dtype)}")
        if spec.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {spec.dim()} dims")
        spec = spec.item() if spec.dim() == 0 else spec.tolist()
    size = input.shape[dim]
    pieces = []
    if isinstance(spec, builtins.int):
        _check_int64(spec)
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        if spec > _MAX_SECTIONS:
            # torch would build them one by one until memory runs out
            raise MemoryError(f"tensor_split: {spec} sections would be {spec} tensors, more than "
                              f"memory can hold")
        base, extra = divmod(size, spec)
        start = 0
        for i in range(spec):
            length = base + (1 if i < extra else 0)
            pieces.append(_slice(input, dim, start, start + length))
            start += length
        return tuple(pieces)
    start = 0
    for index in spec:
        index = operator.index(index)
        _check_int64(index)
        pieces.append(_slice(input, dim, start, index))
        start = index
    pieces.append(_slice(input, dim, start, size))
    return tuple(pieces)


def _legacy(dtype) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
            "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(
                str(dtype).rpartition(".")[2], str(dtype))


def _slice(t, dim, start, end):
    return _op("slice")(t, dim, start, end, 1)


def _split_family(name: str, input, spec, need: int, dim: int) -> tuple:
    _need_tensor(name, input)
    if input.dim() < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but "
                           f"got a tensor with {input.dim()} dimensions!")
    if isinstance(spec, builtins.int) and not isinstance(spec, builtins.bool):
        size = input.shape[dim]
        if spec == 0 or size % spec != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the split_size "
                               f"{spec}!")
        return tensor_split(input, spec, dim)
    return tensor_split(input, list(spec), dim)


def hsplit(input, indices_or_sections) -> tuple:
    """tensor_split along dim 1 (dim 0 of a 1-d tensor); an int must divide that dim.

    >>> [t.shape for t in pytensor.hsplit(pytensor.ones(2, 4), 2)]
    [pytensor.Size([2, 2]), pytensor.Size([2, 2])]
    """
    _need_tensor("hsplit", input)
    dim = 0 if input.dim() == 1 else 1
    return _split_family("hsplit", input, indices_or_sections, 1, dim)


def vsplit(input, indices_or_sections) -> tuple:
    """tensor_split along dim 0 of a tensor of at least 2 dims."""
    return _split_family("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input, indices_or_sections) -> tuple:
    """tensor_split along dim 2 of a tensor of at least 3 dims."""
    return _split_family("dsplit", input, indices_or_sections, 3, 2)


# ---------------------------------------------------------------- Tensor methods and properties
def _mH(self) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return _op("adjoint")(self)


def _H(self) -> Tensor:
    if self.dim() > 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.")
    return _op("adjoint")(self) if self.dim() == 2 else self._alias()


Tensor.mH = property(_mH)
Tensor.H = property(_H)
Tensor.tensor_split = tensor_split
Tensor.hsplit = hsplit
Tensor.vsplit = vsplit
Tensor.dsplit = dsplit


# ---------------------------------------------------------------- block_diag, cartesian_prod,
# chain_matmul: torch's take their tensors as separate arguments
def block_diag(*tensors) -> Tensor:
    """The tensors as blocks on the diagonal of a zero matrix (0-d and 1-d ones as one row).

    >>> pytensor.block_diag(pytensor.ones(1, 2), pytensor.tensor(3.0)).tolist()
    [[1.0, 1.0, 0.0], [0.0, 0.0, 3.0]]
    """
    return _op("block_diag")(list(tensors))


def cartesian_prod(*tensors) -> Tensor:
    """The Cartesian product of 1-d tensors, one row per tuple (itertools.product's order).

    >>> pytensor.cartesian_prod(pytensor.tensor([1, 2]), pytensor.tensor([3])).tolist()
    [[1, 3], [2, 3]]
    """
    return _op("cartesian_prod")(list(tensors))


_CHAIN_MATMUL_WARNED = False


def chain_matmul(*matrices, out=None) -> Tensor:
    """The product of the matrices, multiplied in the cheapest order (deprecated in torch for
    linalg.multi_dot, with the same warning, once).

    >>> pytensor.chain_matmul(pytensor.ones(2, 3), pytensor.ones(3, 4)).shape
    pytensor.Size([2, 4])
    """
    global _CHAIN_MATMUL_WARNED
    if not _CHAIN_MATMUL_WARNED:
        import warnings
        _CHAIN_MATMUL_WARNED = True
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                      "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                      "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if out is None:
        return _op("chain_matmul")(list(matrices))
    return _op("chain_matmul")(list(matrices), out=out)
