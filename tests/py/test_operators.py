"""Tensor's Python operators (+ - * / // % ** @ & | ^ << >> ~, unary -, abs(), == != < <= > >=),
their reflected and in-place forms, against torch's; the C number slots and the Python fallback
give the same results; dunders whose operators are not declared raise TypeError."""
import operator

import numpy as np
import pytest

import pytensor
from pytensor import _tensor

from _torch_oracle import requires_torch, torch

pytestmark = requires_torch

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.and_, operator.or_, operator.xor, operator.lshift,
          operator.rshift, operator.eq, operator.ne, operator.lt, operator.le, operator.gt,
          operator.ge]
INPLACE = {operator.add: operator.iadd, operator.sub: operator.isub, operator.mul: operator.imul,
           operator.truediv: operator.itruediv, operator.floordiv: operator.ifloordiv,
           operator.mod: operator.imod, operator.pow: operator.ipow, operator.and_: operator.iand,
           operator.or_: operator.ior, operator.xor: operator.ixor,
           operator.lshift: operator.ilshift, operator.rshift: operator.irshift}
INT_ONLY = {operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift}


def _pair(dtype):
    if dtype.is_floating_point:
        return torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -7.5]], dtype=dtype)
    return torch.tensor([[1, -2, 3], [5, 4, -7]], dtype=dtype)


def _pt(x):
    return pytensor.tensor(x.tolist(), dtype=getattr(pytensor, str(x.dtype).split(".")[1]))


def _same(got, want):
    if isinstance(want, torch.Tensor):
        assert isinstance(got, pytensor.Tensor)
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
        np.testing.assert_allclose(np.asarray(got.tolist(), dtype=np.float64),
                                   np.asarray(want.tolist(), dtype=np.float64), rtol=1e-6)
    else:
        assert got == want


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return None, e


def _compare(fn_pt, fn_torch):
    want, werr = _outcome(fn_torch)
    got, gerr = _outcome(fn_pt)
    if werr is not None:
        assert gerr is not None, f"torch raised {werr!r}, pytensor returned {got!r}"
        assert isinstance(gerr, (RuntimeError, TypeError)) and type(werr).__name__ in (
            type(gerr).__name__, "NotImplementedError", "RuntimeError")
        return
    assert gerr is None, gerr
    _same(got, want)


@pytest.mark.parametrize("op", BINARY, ids=lambda o: o.__name__)
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.float32,
                                   torch.float64])
@pytest.mark.parametrize("other", ["tensor", 2, 3.5, True, "row"])
def test_binary_operators_match_torch(op, dtype, other):
    a = _pair(dtype)
    if dtype == torch.uint8:
        a = a.abs()
    b = {"tensor": _pair(dtype).flip(1).abs() + 1, "row": torch.tensor([1, 2, 3], dtype=dtype)
         }.get(other, other)
    pa = _pt(a)
    pb = _pt(b) if isinstance(b, torch.Tensor) else b
    _compare(lambda: op(pa, pb), lambda: op(a, b))
    _compare(lambda: op(pb, pa), lambda: op(b, a))          # reflected


@pytest.mark.parametrize("op", sorted(INPLACE, key=lambda o: o.__name__), ids=lambda o: o.__name__)
@pytest.mark.parametrize("dtype", [torch.int32, torch.float32])
def test_inplace_operators_write_self(op, dtype):
    a, b = _pair(dtype), _pair(dtype).abs() + 1
    pa = _pt(a)
    before = pa
    want, werr = _outcome(lambda: INPLACE[op](a.clone(), b))
    if werr is not None:
        with pytest.raises((RuntimeError, TypeError)):
            INPLACE[op](pa, _pt(b))
        return
    pa = INPLACE[op](pa, _pt(b))
    assert pa is before
    _same(pa, want)


def test_unary_operators():
    i = torch.tensor([-3, 0, 5])
    b = torch.tensor([True, False])
    _same(~_pt(i), ~i)
    _same(~_pt(b), ~b)
    with pytest.raises(TypeError, match=r"~ \(operator.invert\) is only implemented on integer "
                                        "and Boolean-type tensors"):
        ~pytensor.ones(2)
    for name, op in (("__neg__", operator.neg), ("__abs__", abs)):
        if _declared(_tensor._OPERATOR_DUNDERS[name][0]):
            _same(op(_pt(i)), op(i))
        else:
            with pytest.raises(TypeError, match="bad operand type"):
                op(_pt(i))


def _declared(name):
    from pytensor._C import ffi, lib
    found = lib.pt_dispatch_find(f"aten::{name}".encode(), b"", ffi.new("pt_op **")) == 0
    lib.pt_error_clear()
    return found


def test_matmul_dunder_without_its_operator_is_a_type_error():
    a = pytensor.ones(2, 2)
    if _declared("matmul"):
        assert (a @ a).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    else:
        with pytest.raises(TypeError, match="unsupported operand type"):
            a @ a


def test_comparisons_return_tensors_and_hash_stays_by_identity():
    a, b = pytensor.tensor([1, 2]), pytensor.tensor([1, 2])
    assert (a == b).tolist() == [True, True] and (a != b).tolist() == [False, False]
    assert (2 < a).tolist() == [False, False] and (2 >= a).tolist() == [True, True]
    assert hash(a) != hash(b) and hash(a) == hash(a) and len({a, b}) == 2
    assert (a == None) is False and (a != None) is True  # noqa: E711 - torch's result
    assert (a == "x") is False
    with pytest.raises(TypeError, match="'<' not supported"):
        a < None  # noqa: B015


def test_numpy_scalars_and_unknown_operands_take_the_python_path():
    a = pytensor.tensor([7, -7])
    assert (a // np.int64(2)).tolist() == [3, -4]
    assert (np.int64(9) // pytensor.tensor([2, 4])).tolist() == [4, 2]
    assert (a % np.float64(3)).tolist() == [1.0, 2.0]
    with pytest.raises(TypeError):
        a // "x"
    with pytest.raises(TypeError):
        a & object()
    assert pow(pytensor.tensor([2]), 3).tolist() == [8]
    with pytest.raises(TypeError):
        pow(pytensor.tensor([2]), 3, 5)


@pytest.mark.parametrize("dunder", sorted(_tensor._OPERATOR_DUNDERS))
def test_python_fallback_agrees_with_the_slot(dunder):
    """The Python forms the slots fall back to give the slot's result."""
    name, overload = _tensor._OPERATOR_DUNDERS[dunder]
    if not _declared(name) and overload == "":
        assert _tensor._operator_fallback(dunder, pytensor.ones(2, 2), pytensor.ones(2, 2)) \
            is NotImplemented
        return
    a = pytensor.tensor([[6, 3], [-4, 5]])
    other = pytensor.tensor([[2, 1], [3, 2]])
    unary = dunder in ("__neg__", "__invert__", "__abs__")
    if dunder in ("__imatmul__", "__rmatmul__", "__matmul__") or (unary and not _declared(name)):
        return
    if unary:
        want = getattr(a.clone(), dunder)()
        got = _tensor._operator_fallback(dunder, a.clone())
    else:
        want = _outcome(lambda: getattr(a.clone(), dunder)(other))
        got = _outcome(lambda: _tensor._operator_fallback(dunder, a.clone(), other))
        if want[1] is not None:
            assert got[1] is not None and str(got[1]) == str(want[1])
            return
        want, got = want[0], got[0]
    assert got.tolist() == want.tolist() and got.dtype == want.dtype
