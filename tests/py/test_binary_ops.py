"""The binary operators beyond add/sub/mul (div and its aliases, floor_divide, remainder, fmod,
pow, maximum, minimum, atan2), the comparisons, the logical and bitwise operators and the shifts,
checked against torch as the oracle over dtypes, layouts, out= and in-place rules, Meta tensors,
error messages and every CPU capability's loops."""
import contextlib

import numpy as np
import pytest

import pytensor
from pytensor._C import lib

from _torch_oracle import requires_torch, torch

pytestmark = requires_torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]


def _pt(x: torch.Tensor) -> pytensor.Tensor:
    """A pytensor copy of a torch tensor with the same dtype and shape (strides rebuilt)."""
    name = str(x.dtype).split(".")[1]
    if x.dtype == torch.bfloat16:  # bfloat16 values are exact in float32
        return pytensor.tensor(x.float().numpy().tolist(), dtype=pytensor.bfloat16).reshape(
            tuple(x.shape))
    return pytensor.tensor(x.numpy().tolist(), dtype=getattr(pytensor, name)).reshape(
        tuple(x.shape))


def _np(t):
    if t.dtype == pytensor.bfloat16:
        return t.to(pytensor.float32).numpy()
    return t.numpy()


def _close(got, want: torch.Tensor, exact=False):
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    w = want.float().numpy() if want.dtype in (torch.bfloat16,) else want.numpy()
    g = _np(got)
    if exact or not np.issubdtype(w.dtype, np.inexact):
        np.testing.assert_array_equal(g, w)
    else:
        tol = {np.float16: 1e-3, np.float32: 2e-6, np.complex64: 2e-6}.get(w.dtype.type, 1e-13)
        if want.dtype == torch.bfloat16:
            tol = 8e-3
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * 1e-3, equal_nan=True)


def _sample(dtype: str, shape, seed=0, nonzero=False, small=False):
    g = torch.Generator().manual_seed(seed)
    td = getattr(torch, dtype)
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype in ("uint8",):
        lo, hi = (1 if nonzero else 0), (8 if small else 256)
        return torch.randint(lo, hi, shape, generator=g, dtype=td)
    if not td.is_floating_point and not td.is_complex:
        hi = 6 if small else 100
        x = torch.randint(-hi, hi, shape, generator=g, dtype=td)
        return torch.where(x == 0, torch.ones_like(x), x) if nonzero else x
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 4
    if td.is_complex:
        x = torch.complex(x, torch.randn(shape, generator=g, dtype=torch.float64))
    return x.to(td)


@contextlib.contextmanager
def _capability(cap):
    detected = lib.pt_cpu_capability_detected()
    lib.pt_cpu_capability_select(cap)
    try:
        yield
    finally:
        lib.pt_cpu_capability_select(lib.pt_cpu_capability())  # the capability in use at start-up


BINARY = {  # name -> (torch function, dtypes torch supports, needs a nonzero divisor, exact)
    "div": (torch.div, DTYPES, False, False),
    "true_divide": (torch.true_divide, DTYPES, False, False),
    "floor_divide": (torch.floor_divide, DTYPES[1:10], True, False),
    "remainder": (torch.remainder, DTYPES[1:10], True, False),
    "fmod": (torch.fmod, DTYPES[1:10], True, False),
    "pow": (torch.pow, DTYPES[1:], False, False),
    "maximum": (torch.maximum, DTYPES[:10], False, True),
    "minimum": (torch.minimum, DTYPES[:10], False, True),
    "atan2": (torch.atan2, DTYPES[:10], False, False),
    "eq": (torch.eq, DTYPES, False, True), "ne": (torch.ne, DTYPES, False, True),
    "lt": (torch.lt, DTYPES[:10], False, True), "le": (torch.le, DTYPES[:10], False, True),
    "gt": (torch.gt, DTYPES[:10], False, True), "ge": (torch.ge, DTYPES[:10], False, True),
    "logical_and": (torch.logical_and, DTYPES, False, True),
    "logical_or": (torch.logical_or, DTYPES, False, True),
    "logical_xor": (torch.logical_xor, DTYPES, False, True),
    "bitwise_and": (torch.bitwise_and, DTYPES[:6], False, True),
    "bitwise_or": (torch.bitwise_or, DTYPES[:6], False, True),
    "bitwise_xor": (torch.bitwise_xor, DTYPES[:6], False, True),
    "bitwise_left_shift": (torch.bitwise_left_shift, DTYPES[1:6], False, True),
    "bitwise_right_shift": (torch.bitwise_right_shift, DTYPES[1:6], False, True),
}


def _operands(name, dtype, shape_a, shape_b, seed=0):
    _, _, nonzero, _ = BINARY[name]
    small = name in ("pow", "bitwise_left_shift", "bitwise_right_shift")
    a = _sample(dtype, shape_a, seed, small=small)
    b = _sample(dtype, shape_b, seed + 1, nonzero=nonzero, small=small)
    if name == "pow" and not (dtype.startswith("float") or dtype.startswith("complex")
                              or dtype == "bfloat16"):
        b = b % 4 if dtype == "uint8" else b if dtype == "bool" else b.abs()
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", DTYPES)
def test_matches_torch_over_dtypes(name, dtype):
    fn, supported, _, exact = BINARY[name]
    a, b = _operands(name, dtype, (3, 5), (5,))
    if dtype not in supported:
        with pytest.raises(Exception) as want:
            fn(a, b)
        with pytest.raises(RuntimeError) as got:
            getattr(pytensor, name)(_pt(a), _pt(b))
        assert str(got.value) == str(want.value)
        return
    _close(getattr(pytensor, name)(_pt(a), _pt(b)), fn(a, b), exact)


LAYOUTS = {
    "transposed": lambda x: x.t(),
    "strided": lambda x: x[:, ::2],
    "expanded": lambda x: x[:, :1].expand(x.shape[0], 3),
}


@pytest.mark.parametrize("name", ["div", "floor_divide", "remainder", "pow", "maximum", "atan2",
                                  "lt", "eq", "logical_xor", "bitwise_xor",
                                  "bitwise_right_shift"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_any_layout(name, layout):
    dtype = "int32" if name.startswith("bitwise") else "float64"
    a, b = _operands(name, dtype, (4, 6), (4, 6), seed=3)
    pa = LAYOUTS[layout](_pt(a))           # the same view of the same values on both sides
    a, b = LAYOUTS[layout](a), LAYOUTS[layout](b)
    got = getattr(pytensor, name)(pa, LAYOUTS[layout](_pt(_operands(name, dtype, (4, 6), (4, 6),
                                                                    seed=3)[1])))
    want = BINARY[name][0](a, b)
    _close(got, want, BINARY[name][3])
    assert got.stride() == want.stride()


@pytest.mark.parametrize("name", ["div", "remainder", "pow", "minimum", "le", "logical_and",
                                  "bitwise_or", "bitwise_left_shift"])
@pytest.mark.parametrize("shapes", [((), ()), ((0,), (1,)), ((2, 0, 3), (3,)), ((), (4,)),
                                    ((1, 3), (2, 1))])
def test_zero_dim_empty_and_broadcast(name, shapes):
    dtype = "int64" if name.startswith("bitwise") else "float32"
    a, b = _operands(name, dtype, *shapes)
    _close(getattr(pytensor, name)(_pt(a), _pt(b)), BINARY[name][0](a, b), BINARY[name][3])


@pytest.mark.capability_independent  # selects every capability itself
@pytest.mark.parametrize("n", [1, 31, 65537, 200003])
@pytest.mark.parametrize("name", ["div", "floor_divide", "remainder", "fmod", "pow", "maximum",
                                  "atan2", "lt", "ne", "logical_or", "bitwise_and",
                                  "bitwise_left_shift"])
def test_every_capability_agrees_with_the_default(name, n):
    """Sizes cross the fast-path limit and the thread split; the default build is the reference."""
    for dtype in ("float32", "float64", "int32", "int8", "uint8"):
        if dtype not in BINARY[name][1]:
            continue
        a, b = _operands(name, dtype, (n,), (n,), seed=n)
        pa, pb = _pt(a), _pt(b)
        with _capability(0):
            ref = _np(getattr(pytensor, name)(pa, pb))
        for cap in range(lib.pt_cpu_capability_detected() + 1):
            with _capability(cap):
                got = getattr(pytensor, name)(pa, pb)
                scal = getattr(pytensor, name)(pa, pb[:1].reshape(()))
            np.testing.assert_array_equal(_np(got), ref)
            with _capability(0):
                np.testing.assert_array_equal(
                    _np(scal), _np(getattr(pytensor, name)(pa, pb[:1].reshape(()))))
        _close(pytensor.tensor(ref) if ref.dtype != np.bool_ else pytensor.from_numpy(ref),
               BINARY[name][0](a, b).to(torch.from_numpy(ref).dtype), BINARY[name][3])


# ---------------------------------------------------------------- Scalars and wrapped numbers
SCALARS = [2, -3, 0.5, 2.5, True, 1 + 2j]


@pytest.mark.parametrize("name", ["div", "remainder", "fmod", "floor_divide", "pow", "eq", "lt",
                                  "bitwise_and", "bitwise_left_shift"])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "float16", "float32", "float64",
                                   "complex64", "bool"])
@pytest.mark.parametrize("scalar", SCALARS)
def test_scalar_overloads_match_torch(name, dtype, scalar):
    fn = BINARY[name][0]
    if dtype == "float16" and isinstance(scalar, complex):
        pytest.skip("torch gives complex32, which pytensor does not have (complex64 instead)")
    a = _sample(dtype, (2, 3), 7, small=True)
    try:
        want = fn(a, scalar)
    except Exception as e:  # noqa: BLE001 - torch's refusal is the expectation
        with pytest.raises(Exception) as got:
            getattr(pytensor, name)(_pt(a), scalar)
        assert str(got.value) == str(e) or type(e).__name__ in str(got.value)
        return
    _close(getattr(pytensor, name)(_pt(a), scalar), want, BINARY[name][3])


@pytest.mark.parametrize("name", ["remainder", "pow", "bitwise_and", "bitwise_or",
                                  "bitwise_left_shift", "bitwise_right_shift"])
def test_scalar_self_overloads(name):
    a = torch.tensor([1, 2, 3, 7], dtype=torch.int32)
    _close(getattr(pytensor, name)(3, _pt(a)), BINARY[name][0](3, a), True)
    out = pytensor.empty(4, dtype=pytensor.int64)
    assert getattr(pytensor, name)(3, _pt(a), out=out) is out
    _close(out, BINARY[name][0](3, a).long(), True)


def test_pow_scalar_special_exponents_follow_torch():
    x = torch.tensor([-0.0, float("-inf"), 4.0, -2.0, float("nan"), 0.0, 3.0])
    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.complex64):
        for e in (0, 1, 0.5, -0.5, -1, 2, 3, -2, 0.3, -1.5, 1j):
            xd = x.to(dtype)
            if e == 1j and not dtype.is_complex:
                continue
            _close(pytensor.pow(_pt(xd), e), torch.pow(xd, e))
    i = torch.tensor([-3, 2, 0, 5])
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        pytensor.pow(_pt(i), -1)
    _close(pytensor.pow(_pt(i), torch.tensor([-1, -2, 0, 1]).numpy().tolist() and
                        _pt(torch.tensor([-1, -2, 0, 1]))),
           torch.pow(i, torch.tensor([-1, -2, 0, 1])), True)
    _close(pytensor.pow(1, _pt(x)), torch.pow(1, x), True)          # a base of 1: all ones
    _close(pytensor.pow(_pt(i.to(torch.int8)), 3), torch.pow(i.to(torch.int8), 3), True)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8"):
        pytensor.pow(_pt(i.to(torch.int8)), 300)


def test_integer_division_by_zero_raises_like_torch():
    a, z = torch.tensor([5, -5]), torch.tensor([1, 0])
    for call in (lambda m, x, y: m.div(x, y, rounding_mode="trunc"),
                 lambda m, x, y: m.div(x, y, rounding_mode="floor"),
                 lambda m, x, y: m.remainder(x, y), lambda m, x, y: m.fmod(x, y),
                 lambda m, x, y: m.floor_divide(x, y)):
        with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
            call(pytensor, _pt(a), _pt(z))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            call(torch, a, z)
    _close(pytensor.div(_pt(a), _pt(z)), torch.div(a, z))            # true division: inf
    big = pytensor.zeros(100000, dtype=pytensor.int32)                 # threaded loops flag too
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        pytensor.remainder(big + 1, big)


def test_integer_min_by_minus_one_wraps():
    for dtype in (torch.int8, torch.int16, torch.int32, torch.int64):
        m = torch.tensor([torch.iinfo(dtype).min, 7], dtype=dtype)
        p = _pt(m)
        assert pytensor.div(p, -1, rounding_mode="trunc").tolist() == [torch.iinfo(dtype).min, -7]
        assert pytensor.div(p, -1, rounding_mode="floor").tolist() == [torch.iinfo(dtype).min, -7]
        assert pytensor.remainder(p, -1).tolist() == [0, 0]
        assert pytensor.fmod(p, -1).tolist() == [0, 0]


def test_float_floor_division_and_remainder_edge_values():
    a = torch.tensor([-0.0, 0.0, 1.0, -1.0, 5.5, -5.5, float("inf"), 1.0])
    b = torch.tensor([1.0, -1.0, float("inf"), float("inf"), -2.0, 2.0, 2.0, 0.0])
    for name in ("floor_divide", "remainder", "fmod"):
        got = _np(getattr(pytensor, name)(_pt(a), _pt(b)))
        want = BINARY[name][0](a, b).numpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_div_rounding_mode_spelling():
    a = _pt(torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, "
                                           "'trunc', or 'floor' but found 'round'"):
        pytensor.div(a, a, rounding_mode="round")
    assert pytensor.div(a, 2, rounding_mode=None).tolist() == [0.5]
    assert a.div(2, rounding_mode="floor").tolist() == [0.0]


def test_reduced_float_divisor_read_as_torch_reads_it():
    h = torch.tensor([1.0, 7.0], dtype=torch.float16)
    for mode in (None, "trunc", "floor"):
        _close(pytensor.div(_pt(h), 0.1, rounding_mode=mode), torch.div(h, 0.1, rounding_mode=mode),
               True)
    _close(pytensor.remainder(_pt(h), 0.1), torch.remainder(h, 0.1), True)


# ---------------------------------------------------------------- out= and in place
@pytest.mark.parametrize("name", ["eq", "lt", "ge", "logical_and", "logical_xor"])
@pytest.mark.parametrize("out_dtype", ["bool", "uint8", "float32", "int64", "complex64"])
def test_comparisons_write_any_out_dtype(name, out_dtype):
    a, b = torch.tensor([1.0, 2.0, 0.0]), torch.tensor([2.0, 2.0, 0.0])
    want = BINARY[name][0](a, b, out=torch.empty(3, dtype=getattr(torch, out_dtype)))
    out = pytensor.empty(3, dtype=getattr(pytensor, out_dtype))
    assert getattr(pytensor, name)(_pt(a), _pt(b), out=out) is out
    _close(out, want, True)
    if out_dtype == "complex64" and name not in ("eq", "logical_and", "logical_xor"):
        return  # complex has no order: in place refuses it (test_refused_dtypes_name_the_op)
    x = _pt(a.to(getattr(torch, out_dtype)))
    assert getattr(x, name + "_")(_pt(b)) is x                       # in place keeps self's dtype
    _close(x, getattr(a.to(getattr(torch, out_dtype)), name + "_")(b), True)


def test_out_and_inplace_rules():
    i = pytensor.tensor([5, 6], dtype=pytensor.int32)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output "
                                           "type Int"):
        i.div_(2)
    assert i.div_(2, rounding_mode="trunc").tolist() == [2, 3]
    with pytest.raises(RuntimeError, match="output with shape \\[2\\] doesn't match the broadcast"):
        i.remainder_(pytensor.ones(3, 2, dtype=pytensor.int32))
    out = pytensor.empty(0)
    assert pytensor.atan2(i, i, out=out) is out and out.shape == (2,)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        pytensor.maximum(pytensor.ones(2), i, out=pytensor.empty(2, dtype=pytensor.int64))
    x = pytensor.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="unsupported operation"):
        pytensor.bitwise_and(x[:2], x[1:], out=x[1:])


# ---------------------------------------------------------------- refusals and devices
@pytest.mark.parametrize("call,message", [
    (lambda: pytensor.maximum(pytensor.ones(1, dtype=pytensor.complex64), pytensor.ones(1)),
     "maximum not implemented for complex tensors."),
    (lambda: pytensor.lt(pytensor.ones(1, dtype=pytensor.complex64), 1),
     "\"lt_cpu\" not implemented for 'ComplexFloat'"),
    (lambda: pytensor.bitwise_and(pytensor.ones(1), 1),
     "\"bitwise_and_cpu\" not implemented for 'Float'"),
    (lambda: pytensor.bitwise_not(pytensor.ones(1, dtype=pytensor.float16)),
     "\"bitwise_not_cpu\" not implemented for 'Half'"),
    (lambda: pytensor.bitwise_left_shift(pytensor.ones(1, dtype=pytensor.bool), 1 > 0),
     "\"lshift_cpu\" not implemented for 'Bool'"),
    (lambda: pytensor.remainder(pytensor.ones(1, dtype=pytensor.bool), True),
     "\"remainder_cpu\" not implemented for 'Bool'"),
    (lambda: pytensor.pow(pytensor.ones(1, dtype=pytensor.bool),
                          pytensor.ones(1, dtype=pytensor.bool)),
     "\"pow\" not implemented for 'Bool'"),
    (lambda: pytensor.atan2(pytensor.ones(1, dtype=pytensor.complex128), pytensor.ones(1)),
     "\"atan2_cpu\" not implemented for 'ComplexDouble'"),
])
def test_refused_dtypes_name_the_op(call, message):
    with pytest.raises(NotImplementedError if "not implemented for '" in message else RuntimeError,
                       match=message.replace("(", "\\(").replace(")", "\\)")):
        call()


@pytest.mark.parametrize("name", ["div", "remainder", "pow", "atan2", "eq", "logical_or",
                                  "bitwise_and", "maximum"])
def test_meta_tensors_get_shapes_and_dtypes(name):
    dtype = pytensor.int32
    a = pytensor.empty(3, 1, dtype=dtype, device="meta")
    b = pytensor.empty(4, dtype=dtype, device="meta")
    r = getattr(pytensor, name)(a, b)
    want = BINARY[name][0](torch.empty(3, 1, dtype=torch.int32, device="meta"),
                           torch.empty(4, dtype=torch.int32, device="meta"))
    assert r.device.type == "meta" and tuple(r.shape) == tuple(want.shape)
    assert str(r.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    # A Python number fits only where torch has a Scalar overload (atan2, logical_or and
    # maximum take Tensors only); a 0-dim tensor fits everywhere.
    other = 2 if name not in ("atan2", "logical_or", "maximum") else \
        pytensor.empty((), dtype=dtype, device="meta")
    assert getattr(pytensor, name)(a, other).shape == (3, 1)


def test_aliases_share_the_kernels():
    a, b = pytensor.tensor([7, -7]), pytensor.tensor([2, 2])
    assert pytensor.divide(a, b).tolist() == pytensor.div(a, b).tolist() == [3.5, -3.5]
    assert pytensor.divide(a, b, rounding_mode="floor").tolist() == [3, -4]
    assert pytensor.true_divide(a, 2).tolist() == [3.5, -3.5]
    assert pytensor.arctan2(a, b).tolist() == pytensor.atan2(a, b).tolist()
