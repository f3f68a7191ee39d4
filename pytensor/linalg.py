"""``pytensor.linalg``: the norms and products of torch.linalg that pytensor can compute.

``vector_norm``, ``cross`` and the LAPACK functions (``inv``, ``det``, ``slogdet``, ``solve``,
``cholesky``, ``lu_factor``, ``eigh``, ``svd``, ``qr``, ... and their ``_ex`` forms) are the
operators linalg_<name> (their functions, made on first use, with torch's names and messages;
the operators are in csrc/ops/linalg_lapack.yaml). ``matrix_norm`` and ``norm`` are
composed here from those operators as torch's C++ composes them (LinearAlgebra.cpp): the
Frobenius norm is the vector 2-norm over two dims, the 1 and inf norms (and -1, -inf) a vector
1-norm over one dim followed by a max (min) over the other. The nuclear and spectral norms
(``"nuc"``, 2, -2) are the sum, max and min of the singular values (svdvals over the two dims
moved last), as torch computes them.

``torch.norm`` and ``Tensor.norm`` are Python functions in torch (torch.functional.norm): p may
be a string and defaults to "fro". ``_functional_norm`` and ``_tensor_norm`` are they, reached
from the operator's function and method (Note [Python-level forms] in _ops).

>>> import pytensor
>>> a = pytensor.tensor([[3., 0.], [0., -4.]])
>>> pytensor.linalg.matrix_norm(a, 1).item(), pytensor.norm(a, "fro").item()
(4.0, 5.0)
"""

from __future__ import annotations

import math
import operator

from . import _dtype, _opargs, _opsgen

# pytensor.linalg.<name> -> the aten operator whose function it is.
_OPERATORS = {"vector_norm": "linalg_vector_norm", "cross": "linalg_cross"}
_OPERATORS.update({name: "linalg_" + name for name in (
    "inv", "inv_ex", "det", "slogdet", "solve", "solve_ex", "cholesky", "cholesky_ex",
    "lu_factor", "lu_factor_ex", "solve_triangular", "eigh", "eigvalsh", "svd", "svdvals", "qr")})

__all__ = sorted(["matrix_norm", "norm", *_OPERATORS])


def __getattr__(name: str):
    target = _OPERATORS.get(name)
    if target is None:
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    fn = _opsgen.make_binding("aten::" + target, 1)
    globals()[name] = fn
    return fn


def __dir__() -> list:
    return sorted(set(globals()) | set(_OPERATORS))


# ---------------------------------------------------------------- argument checks
class _Spec:
    """One parameter of a signature written here: name, accepted kind, default, keyword-only."""

    __slots__ = ("name", "kind", "default", "kwarg_only", "required")

    def __init__(self, name, kind, default=None, kwarg_only=False, required=False):
        self.name, self.kind, self.default = name, kind, default
        self.kwarg_only, self.required = kwarg_only, required


def _accepts(kind: str, v) -> bool:
    from ._tensor import Tensor
    if kind == "Tensor":
        return isinstance(v, Tensor)
    if kind == "Tensor?":
        return v is None or isinstance(v, Tensor)
    if kind == "Number":
        return _opargs._is_number(v) or (isinstance(v, Tensor) and v.dim() == 0)
    if kind == "Number?":
        return v is None or _accepts("Number", v)
    if kind == "str":
        return isinstance(v, str)
    if kind in ("int[]", "int[1]?"):
        if v is None:
            return kind.endswith("?")
        if kind == "int[1]?" and _opargs._is_index(v):
            return True
        return isinstance(v, (list, tuple)) and all(_opargs._is_index(x) for x in v)
    if kind == "bool":
        return type(v) is bool
    if kind == "dtype?":
        return v is None or type(v) is _dtype.dtype
    raise AssertionError(kind)


def _bind(fname: str, signatures: list, args: tuple, kwargs: dict) -> dict:
    """{name: value} for the first signature (a list of _Spec, with its text) that takes the
    arguments; otherwise torch's "invalid combination of arguments" TypeError."""
    for specs, _ in signatures:
        got = _try_bind(specs, args, kwargs)
        if got is not None:
            return got
    types = [_typename(a) for a in args] + [f"{k}={_typename(v)}" for k, v in kwargs.items()]
    lines = [f"{fname}() received an invalid combination of arguments - got "
             f"({', '.join(types)}), but expected one of:"]
    lines += [f" * {text}" for _, text in signatures]
    raise TypeError("\n".join(lines) + "\n")


def _typename(v) -> str:
    """A type as torch's "got (...)" lists it: Tensor, or the Python type's name."""
    from ._tensor import Tensor
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _try_bind(specs: list, args: tuple, kwargs: dict):
    positional = [s for s in specs if not s.kwarg_only]
    if len(args) > len(positional) or any(k not in {s.name for s in specs} for k in kwargs):
        return None
    out = {}
    for i, s in enumerate(specs):
        if not s.kwarg_only and i < len(args):
            if s.name in kwargs:
                return None
            v = args[i]
        elif s.name in kwargs:
            v = kwargs[s.name]
        elif s.required:
            return None
        else:
            out[s.name] = s.default
            continue
        if not _accepts(s.kind, v):
            return None
        out[s.name] = v
    return out


def _number(v):
    """A Number argument as a Python float (a 0-dim tensor's value, bools as 0 and 1)."""
    from ._tensor import Tensor
    if isinstance(v, Tensor):
        v = v.item()
    return float(_opargs._plain_number(v))


def _dims(dim) -> list:
    return [operator.index(dim)] if _opargs._is_index(dim) else [operator.index(d) for d in dim]


def _wrap_dim(d: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d + n if d < 0 else d


def _check_norm_dtype(dtype, input_dtype, name: str) -> None:
    """torch's check_linalg_norm_dtype."""
    if dtype is None:
        return
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{dtype._legacy_name}")
    if input_dtype.is_complex != dtype.is_complex:
        kind = "complex" if input_dtype.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got "
                           f"{dtype._legacy_name}")
    if _dtype.promote_types(input_dtype, dtype) != dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({input_dtype._legacy_name}) should "
                           "be convertible without narrowing to the specified dtype "
                           f"({dtype._legacy_name})")


_LOW_PRECISION_OK = ("Float", "Double", "ComplexFloat", "ComplexDouble")


def _matrix_checks(A, dim, dtype, low_precision: bool) -> list:
    """torch's _linalg_matrix_norm_checks: A a floating or complex matrix (batch), dim two
    different dims, dtype one the result may take; returns dim wrapped."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {A.dtype._legacy_name}")
    if not low_precision and A.dtype._legacy_name not in _LOW_PRECISION_OK:
        raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got "
                           f"{A.dtype._legacy_name}")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dim)}")
    dim = [_wrap_dim(d, A.dim()) for d in dim]
    if dim[0] == dim[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    _check_norm_dtype(dtype, A.dtype, "linalg.matrix_norm")
    return dim


def _svd_norm(A, ord, dim: list, keepdim: bool, dtype, out):
    """torch's spectral and nuclear norms: the singular values of A with dims ``dim`` moved
    last, then their sum ("nuc"), max (2) or min (-2)."""
    from . import _ops
    if dtype is not None:
        A = A.to(dtype)
    perm = [d for d in range(A.dim()) if d not in dim] + list(dim)
    s = __getattr__("svdvals")(A.permute(perm))
    out_kw = {} if out is None else {"out": out}
    name = "aten::sum" if ord == "nuc" else ("aten::amax" if ord > 0 else "aten::amin")
    reduce = _ops.group(name, 1)
    r = reduce(None, (s, [-1], False), {})
    if keepdim:
        lo, hi = sorted(dim)
        r = r.unsqueeze(lo).unsqueeze(hi)
    if out is not None:
        out.resize_(r.shape).copy_(r)
        return out
    return r


# ---------------------------------------------------------------- matrix_norm
_MATRIX_NORM_SIGS = [
    ([_Spec("input", "Tensor", required=True), _Spec("ord", "Number", required=True),
      _Spec("dim", "int[]", [-2, -1]), _Spec("keepdim", "bool", False),
      _Spec("dtype", "dtype?", None, True), _Spec("out", "Tensor?", None, True)],
     "(Tensor input, Number ord, tuple of ints dim = [-2, -1], bool keepdim = False, *, "
     "pytensor.dtype dtype = None, Tensor out = None)"),
    ([_Spec("input", "Tensor", required=True), _Spec("ord", "str", "fro"),
      _Spec("dim", "int[]", [-2, -1]), _Spec("keepdim", "bool", False),
      _Spec("dtype", "dtype?", None, True), _Spec("out", "Tensor?", None, True)],
     "(Tensor input, str ord = \"fro\", tuple of ints dim = [-2, -1], bool keepdim = False, *, "
     "pytensor.dtype dtype = None, Tensor out = None)"),
]


def matrix_norm(*args, **kwargs):
    """matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None): the
    Frobenius, nuclear, 1, -1, 2, -2, inf or -inf norm of the matrices over dims ``dim`` (as
    torch.linalg.matrix_norm).

    >>> pytensor.linalg.matrix_norm(pytensor.tensor([[1., -2.], [3., 4.]]), float("inf")).item()
    7.0
    """
    a = _bind("linalg_matrix_norm", _MATRIX_NORM_SIGS, args, kwargs)
    return _matrix_norm(a["input"], a["ord"], _dims(a["dim"]), a["keepdim"], a["dtype"],
                        a["out"])


def _matrix_norm(A, ord, dim: list, keepdim: bool, dtype, out):
    out_kw = {} if out is None else {"out": out}
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        dim = _matrix_checks(A, dim, dtype, ord != "nuc")
        if ord == "nuc":
            return _svd_norm(A, "nuc", dim, keepdim, dtype, out)
        return __getattr__("vector_norm")(A, 2, dim, keepdim, dtype=dtype, **out_kw)
    value = _number(ord)
    magnitude = abs(value)
    if magnitude not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_order_text(value)} not supported.")
    dim = _matrix_checks(A, dim, dtype, magnitude != 2.0)
    if magnitude == 2.0:
        return _svd_norm(A, value, dim, keepdim, dtype, out)
    # The inf norm is the 1 norm of the transpose: sum over the columns' dim, max over the rows'.
    d0, d1 = (dim[1], dim[0]) if magnitude == math.inf else (dim[0], dim[1])
    if not keepdim and d0 < d1:
        d1 -= 1  # the first reduction removed a dim in front of d1
    from . import _ops
    sums = __getattr__("vector_norm")(A, 1.0, [d0], keepdim, dtype=dtype)
    pick = _ops.group("aten::amax" if value > 0 else "aten::amin", 1)
    return pick(None, (sums, d1, keepdim), out_kw)


def _order_text(v: float) -> str:
    """A double as torch's messages print it (3 for 3.0, inf, 0.5)."""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(int(v)) if v == int(v) else repr(v)


# ---------------------------------------------------------------- norm
_NORM_SIGS = [
    ([_Spec("input", "Tensor", required=True), _Spec("ord", "Number?", None),
      _Spec("dim", "int[1]?", None), _Spec("keepdim", "bool", False),
      _Spec("out", "Tensor?", None, True), _Spec("dtype", "dtype?", None, True)],
     "(Tensor input, Number ord = None, tuple of ints dim = None, bool keepdim = False, *, "
     "Tensor out = None, pytensor.dtype dtype = None)"),
    ([_Spec("input", "Tensor", required=True), _Spec("ord", "str", required=True),
      _Spec("dim", "int[1]?", None), _Spec("keepdim", "bool", False),
      _Spec("out", "Tensor?", None, True), _Spec("dtype", "dtype?", None, True)],
     "(Tensor input, str ord, tuple of ints dim = None, bool keepdim = False, *, "
     "Tensor out = None, pytensor.dtype dtype = None)"),
]


def norm(*args, **kwargs):
    """norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None): a vector norm, or a
    matrix norm when ord is given and the reduction is over two dims (as torch.linalg.norm).

    >>> pytensor.linalg.norm(pytensor.tensor([3., 4.])).item()
    5.0
    """
    a = _bind("linalg_norm", _NORM_SIGS, args, kwargs)
    X, ord, dim, keepdim = a["input"], a["ord"], a["dim"], a["keepdim"]
    dtype, out = a["dtype"], a["out"]
    dims = None if dim is None else _dims(dim)
    if dims is not None:
        if len(dims) not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got [{', '.join(str(d) for d in dims)}]")
    elif ord is not None and X.dim() not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {X.dim()}D.")
    if ord is not None and ((dims is not None and len(dims) == 2) or
                            (dims is None and X.dim() == 2)):
        return _matrix_norm(X, ord, dims if dims is not None else [0, 1], keepdim, dtype, out)
    out_kw = {} if out is None else {"out": out}
    return __getattr__("vector_norm")(X, 2.0 if ord is None else ord, dims, keepdim,
                                      dtype=dtype, **out_kw)


# ---------------------------------------------------------------- torch.norm and Tensor.norm
def _functional_norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.functional.norm on strided tensors: a string p ("fro" over all elements or one or
    two dims, otherwise a matrix norm), a number (or None, 2) a vector norm."""
    from ._tensor import Tensor
    if not isinstance(input, Tensor):  # torch lets an AttributeError out here
        raise TypeError(f"norm(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if dim is not None:
        _dim = [dim] if _opargs._is_index(dim) else dim
    else:
        _dim = None
    out_kw = {} if out is None else {"out": out}
    vector_norm = __getattr__("vector_norm")
    if isinstance(p, str):
        if p == "fro" and (dim is None or _opargs._is_index(dim) or len(dim) <= 2):
            return vector_norm(input, 2, _dim, keepdim, dtype=dtype, **out_kw)
        if _dim is None:
            _dim = list(range(input.ndim))
        return matrix_norm(input, p, _dim, keepdim, dtype=dtype, **out_kw)
    return vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype=dtype, **out_kw)


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    return _functional_norm(self, p, dim, keepdim, dtype=dtype)


# Python's own argument errors name a function by its qualified name: torch's say "norm()" and
# "Tensor.norm()".
_functional_norm.__qualname__ = "norm"
_tensor_norm.__qualname__ = "Tensor.norm"
