"""Complex numbers: the complex views and functions (conj, real, imag, view_as_real,
view_as_complex, angle, polar, complex) against NumPy and torch (values, dtypes, view relations,
errors), and autograd in torch's conjugate Wirtinger convention: complex gradcheck of every
formula that accepts complex inputs (the case table of test_autograd_formulas.py), gradients
compared with torch in complex64 and complex128, and gradients from complex results into real
inputs."""
import math
import sys

import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch
from test_autograd_formulas import CASES

C64, C128, F32, F64 = pytensor.complex64, pytensor.complex128, pytensor.float32, pytensor.float64
gradcheck = pytensor.autograd.gradcheck
gradgradcheck = pytensor.autograd.gradgradcheck


def _c(shape, rng, domain="any"):
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    if domain == "pos":  # away from the branch cuts of log, sqrt and non-integer powers
        z = np.abs(z.real) + 0.5 + 0.5j * z.imag
    elif domain == "unit":
        z = z * 0.3
    elif domain == "nonzero":
        z = np.where(np.abs(z) < 0.3, 0.5 + 0.5j, z)
    elif domain == "zeros":
        flat = z.reshape(-1)
        flat[[i for i in (1, 2, 5) if i < flat.size]] = 0.0
    return z


def _leaf(a, dtype=C128):
    return pytensor.tensor(a, dtype=dtype).requires_grad_()


def _np(t):
    return np.array(t.tolist()) if t.ndim else np.array(t.item())


# ================================================================ the operators
def test_view_as_real_is_a_view_with_doubled_strides():
    z = pytensor.tensor([[1 + 2j, 3 - 4j, 5j], [-1, 2 + 0.5j, 0]], dtype=C64)[:, 1:]
    v = pytensor.view_as_real(z)
    assert v.dtype == F32 and tuple(v.shape) == (2, 2, 2)
    assert v.stride() == (6, 2, 1) and v.storage_offset() == 2
    assert v.tolist() == [[[3, -4], [0, 5]], [[2, 0.5], [0, 0]]]
    v[0, 0, 1] = 7  # writes reach the complex tensor
    assert z[0, 0].item() == 3 + 7j
    assert v._version == z._version


def test_view_as_real_of_zero_dim_and_empty():
    assert pytensor.view_as_real(pytensor.tensor(1 + 2j)).tolist() == [1.0, 2.0]
    e = pytensor.view_as_real(pytensor.zeros(0, 3, dtype=C128))
    assert tuple(e.shape) == (0, 3, 2) and e.dtype == F64


def test_view_as_complex_round_trip_and_view():
    x = pytensor.arange(12, dtype=F64).reshape(3, 2, 2)
    z = pytensor.view_as_complex(x)
    assert z.dtype == C128 and tuple(z.shape) == (3, 2) and z.stride() == (2, 1)
    assert z[1, 1].item() == 6 + 7j
    z[0, 0] = 10 - 1j
    assert x[0, 0].tolist() == [10.0, -1.0]
    assert pytensor.view_as_complex(pytensor.tensor([1.0, 2.0])).item() == 1 + 2j
    assert tuple(pytensor.view_as_complex(pytensor.zeros(0, 2)).shape) == (0,)
    # a view with an even offset and even strides
    w = pytensor.view_as_complex(pytensor.arange(16.0)[2:14].view(3, 2, 2)[:, 1])
    assert w.tolist() == [4 + 5j, 8 + 9j, 12 + 13j]


@pytest.mark.parametrize("make, msg", [
    (lambda: pytensor.view_as_complex(pytensor.zeros(3, 3)),
     "Tensor must have a last dimension of size 2"),
    (lambda: pytensor.view_as_complex(pytensor.tensor(1.0)),
     "Input tensor must have one or more dimensions"),
    (lambda: pytensor.view_as_complex(pytensor.zeros(2, 4)[:, ::2]),
     "Tensor must have a last dimension with stride 1"),
    (lambda: pytensor.view_as_complex(pytensor.zeros(10)[1:].view(3, 3)[:, :2]),
     "Tensor must have a stride divisible by 2 for all but last dimension"),
    (lambda: pytensor.view_as_complex(pytensor.zeros(9)[1:7].view(3, 2)),
     "Tensor must have a storage_offset divisible by 2"),
    (lambda: pytensor.view_as_complex(pytensor.zeros(2, dtype=pytensor.int64)),
     "view_as_complex is only supported for half, float and double tensors, but got a tensor "
     "of scalar type: Long"),
    (lambda: pytensor.view_as_real(pytensor.zeros(2)),
     "view_as_real is only supported for complex tensors"),
    (lambda: pytensor.zeros(2).imag, "imag is not implemented for tensors with non-complex dtypes."),
    (lambda: pytensor.complex(pytensor.zeros(2), pytensor.zeros(2, dtype=F64)),
     "Expected object of scalar type Float but got scalar type Double for second argument"),
    (lambda: pytensor.complex(pytensor.tensor([1]), pytensor.tensor([1])),
     "Expected both inputs to be Half, Float or Double tensors but got Long and Long"),
    (lambda: pytensor.polar(pytensor.zeros(2, dtype=C64), pytensor.zeros(2)),
     "Expected both inputs to be Half, Float or Double tensors but got ComplexFloat and Float"),
    (lambda: pytensor.complex(pytensor.zeros(2), pytensor.zeros(2), out=pytensor.zeros(2)),
     "Expected object of scalar type ComplexFloat but got scalar type Float for argument 'out'"),
    (lambda: pytensor.polar(pytensor.zeros(2), pytensor.zeros(2), out=pytensor.zeros(2, dtype=C128)),
     "Expected object of scalar type ComplexFloat but got scalar type ComplexDouble for argument "
     "'out'"),
    (lambda: pytensor.conj_physical(pytensor.zeros(2, dtype=C64), out=pytensor.zeros(2, dtype=C128)),
     "Found dtype ComplexDouble but expected ComplexFloat"),
    (lambda: pytensor.angle(pytensor.tensor([1.0]), out=pytensor.zeros(1, dtype=pytensor.int64)),
     "result type Float can't be cast to the desired output type Long"),
])
def test_errors_as_torch(make, msg):
    with pytest.raises(RuntimeError) as info:
        make()
    assert msg in str(info.value)


@requires_torch
@pytest.mark.parametrize("name", ["view_as_complex_odd", "view_as_complex_stride",
                                  "view_as_complex_offset", "view_as_real_real", "imag_real",
                                  "complex_mixed", "complex_long", "polar_out"])
def test_error_texts_are_torchs(name):
    def run(L):
        cases = {
            "view_as_complex_odd": lambda: L.view_as_complex(L.zeros(3, 3)),
            "view_as_complex_stride": lambda: L.view_as_complex(L.zeros(2, 4)[:, ::2]),
            "view_as_complex_offset": lambda: L.view_as_complex(L.zeros(9)[1:7].view(3, 2)),
            "view_as_real_real": lambda: L.view_as_real(L.zeros(2)),
            "imag_real": lambda: L.zeros(2).imag,
            "complex_mixed": lambda: L.complex(L.zeros(2), L.zeros(2, dtype=L.float64)),
            "complex_long": lambda: L.complex(L.tensor([1]), L.tensor([1])),
            "polar_out": lambda: L.polar(L.zeros(2), L.zeros(2), out=L.zeros(2)),
        }
        with pytest.raises(RuntimeError) as info:
            cases[name]()
        return str(info.value)
    assert run(pytensor).split("\n")[0] == run(torch).split("\n")[0]


def test_real_and_imag_are_views():
    z = pytensor.tensor([[1 + 2j, 3 - 4j], [5 + 6j, -7j]], dtype=C128).t()
    re, im = z.real, z.imag
    assert re.dtype == F64 and im.dtype == F64
    assert re.stride() == (2, 4) and im.stride() == (2, 4)
    assert re.storage_offset() == 0 and im.storage_offset() == 1
    assert re.tolist() == [[1, 5], [3, 0]] and im.tolist() == [[2, 6], [-4, -7]]
    im[0, 1] = 9.0
    assert z[0, 1].item() == 5 + 9j
    z.real = pytensor.tensor([[0.5, 0.5], [0.5, 0.5]])
    assert z.tolist() == [[0.5 + 2j, 0.5 + 9j], [0.5 - 4j, 0.5 - 7j]]
    assert pytensor.real(z).tolist() == z.real.tolist()


def test_real_of_a_real_tensor_is_the_tensor():
    x = pytensor.tensor([1.0, -2.0])
    assert x.real.data_ptr() == x.data_ptr() and x.real.stride() == x.stride()
    x.real = pytensor.tensor([3.0, 4.0])
    assert x.tolist() == [3.0, 4.0]
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        x.imag = pytensor.tensor([0.0, 0.0])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_conj_values_lazy_and_physical(dtype):
    a = np.array([1 + 2j, -3 - 4j, 0j, complex(math.inf, -1), complex(math.nan, 2)])
    z = pytensor.tensor(a, dtype=dtype)
    for r in (z.conj(), pytensor.conj(z), z.conj_physical(), pytensor.conj_physical(z)):
        assert r.dtype == dtype
        np.testing.assert_array_equal(_np(r.resolve_conj()),
                                      np.conj(a).astype(np.complex64 if dtype == C64
                                                        else np.complex128))
        lazy = r.data_ptr() == z.data_ptr()  # conj: a view with the conjugate bit
        assert r.is_conj() == lazy and pytensor.is_conj(r) == lazy
    assert z.conj().is_conj() and not z.conj_physical().is_conj()
    assert z.resolve_conj().data_ptr() == z.data_ptr()
    w = z.clone()
    assert w.conj_physical_().data_ptr() == w.data_ptr()
    np.testing.assert_array_equal(_np(w), np.conj(a))
    out = pytensor.empty(5, dtype=dtype)
    pytensor.conj_physical(z, out=out)
    np.testing.assert_array_equal(_np(out), np.conj(a))


def test_conj_of_real_tensors_is_free():
    for dt in (F32, F64, pytensor.int64, pytensor.bool):
        x = pytensor.tensor([1, 0, 1], dtype=dt)
        for r in (x.conj(), x.conj_physical(), x.resolve_conj()):
            assert r.data_ptr() == x.data_ptr() and r.dtype == dt
        assert x.conj_physical_().data_ptr() == x.data_ptr()
    # non-contiguous and 0-d inputs too
    y = pytensor.arange(6.0).view(2, 3).t()
    assert y.conj().data_ptr() == y.data_ptr() and y.conj().stride() == y.stride()
    s = pytensor.tensor(2.5)
    assert s.conj().item() == 2.5


def test_conj_non_contiguous_and_zero_dim():
    z = pytensor.tensor([[1 + 1j, 2 - 2j, 3j], [4, 5 + 5j, -6j]], dtype=C64).t()[::2]
    assert z.conj().tolist() == [[1 - 1j, 4], [-3j, 6j]]
    assert pytensor.tensor(1 + 2j).conj().item() == 1 - 2j
    assert tuple(pytensor.zeros(0, 2, dtype=C128).conj().shape) == (0, 2)


@pytest.mark.parametrize("dtype", [F32, F64, C64, C128, pytensor.int32, pytensor.bool])
def test_angle_against_numpy(dtype):
    if dtype in (C64, C128):
        a = np.array([1 + 1j, -1 + 0j, -1 - 0.0j, 0j, -2j, complex(math.nan, 1), 3 - 4j])
    elif dtype == pytensor.bool:
        a = np.array([True, False])
    elif dtype == pytensor.int32:
        a = np.array([-3, 0, 5])
    else:
        a = np.array([1.5, -2.0, 0.0, -0.0, math.nan, -math.inf])
    r = pytensor.angle(pytensor.tensor(a, dtype=dtype))
    want_dtype = {C64: F32, C128: F64, F64: F64}.get(dtype, F32)
    assert r.dtype == want_dtype
    if dtype in (C64, C128):
        want = np.angle(a)
    else:  # torch's angle of a real number: pi for negative numbers, NaN stays NaN
        want = np.where(np.isnan(a.astype(float)), np.nan, np.where(a < 0, np.pi, 0.0))
    np.testing.assert_allclose(_np(r), want, rtol=1e-6, equal_nan=True)


def test_angle_zero_dim_and_out():
    assert pytensor.tensor(-1 + 0j).angle().item() == pytest.approx(math.pi)
    out = pytensor.empty(2, dtype=C64)  # a float result may be written to a complex out
    pytensor.angle(pytensor.tensor([1j, -1j]), out=out)
    np.testing.assert_allclose(_np(out), [math.pi / 2, -math.pi / 2], rtol=1e-6)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_complex_and_polar_against_numpy(dtype):
    rng = np.random.default_rng(0)
    re, im = rng.standard_normal((2, 3)), rng.standard_normal((3,))  # broadcast
    cdt = C64 if dtype == F32 else C128
    z = pytensor.complex(pytensor.tensor(re, dtype=dtype), pytensor.tensor(im, dtype=dtype))
    assert z.dtype == cdt and tuple(z.shape) == (2, 3)
    np.testing.assert_allclose(_np(z), re + 1j * im, rtol=1e-6)
    r, th = np.abs(re), im
    p = pytensor.polar(pytensor.tensor(r, dtype=dtype), pytensor.tensor(th, dtype=dtype))
    assert p.dtype == cdt
    np.testing.assert_allclose(_np(p), r * np.exp(1j * th), rtol=1e-5, atol=1e-6)
    # exact parts: inf and nan are kept, not mixed
    special = pytensor.complex(pytensor.tensor([math.inf, 0.0], dtype=dtype),
                               pytensor.tensor([0.0, math.nan], dtype=dtype))
    assert special[0].item() == complex(math.inf, 0)
    assert special[1].item().real == 0 and math.isnan(special[1].item().imag)
    # non-contiguous inputs, 0-d and empty, and out=
    t = pytensor.tensor(re, dtype=dtype).t()
    np.testing.assert_allclose(_np(pytensor.complex(t, t)), re.T + 1j * re.T, rtol=1e-6)
    assert pytensor.complex(pytensor.tensor(1.0, dtype=dtype),
                            pytensor.tensor(2.0, dtype=dtype)).item() == 1 + 2j
    e = pytensor.polar(pytensor.zeros(0, dtype=dtype), pytensor.zeros(0, dtype=dtype))
    assert tuple(e.shape) == (0,) and e.dtype == cdt
    out = pytensor.empty(3, dtype=cdt)
    pytensor.complex(pytensor.tensor(im, dtype=dtype), pytensor.tensor(im, dtype=dtype), out=out)
    np.testing.assert_allclose(_np(out), im + 1j * im, rtol=1e-6)


def test_abs_and_sgn_of_complex():
    z = pytensor.tensor([3 + 4j, 0j, -2j], dtype=C64)
    assert z.abs().dtype == F32 and z.abs().tolist() == [5.0, 0.0, 2.0]
    np.testing.assert_allclose(_np(z.sgn()), [0.6 + 0.8j, 0, -1j], rtol=1e-6)


def test_absolute_is_abs():
    z = pytensor.tensor([3 + 4j, -1j], dtype=C128, requires_grad=True)
    r = pytensor.absolute(z)
    assert r.dtype == F64 and r.tolist() == [5.0, 1.0] and r.grad_fn.name() == "AbsBackward0"
    x = pytensor.tensor([-1.5, 2.0])
    assert x.absolute_().tolist() == [1.5, 2.0] and x.tolist() == [1.5, 2.0]
    out = pytensor.empty(2, dtype=F64)
    assert pytensor.absolute(z.detach(), out=out).tolist() == [5.0, 1.0]
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors."):
        pytensor.tensor([1j]).absolute_()


def test_meta_tensors_give_shapes_and_dtypes():
    m = pytensor.empty(2, 3, dtype=C64, device="meta")
    assert pytensor.view_as_real(m).shape == (2, 3, 2)
    assert m.angle().dtype == F32 and m.conj().device.type == "meta"
    p = pytensor.polar(pytensor.empty(3, device="meta"), pytensor.empty(2, 1, device="meta"))
    assert tuple(p.shape) == (2, 3) and p.dtype == C64


@requires_torch
@pytest.mark.parametrize("op", ["conj", "conj_physical", "real", "imag", "view_as_real",
                                "angle", "abs", "sgn"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_values_match_torch(op, dtype):
    a = _c((2, 3), np.random.default_rng(5))
    ours = getattr(pytensor, op)(pytensor.tensor(a, dtype=getattr(pytensor, dtype)))
    ref = getattr(torch, op)(torch.tensor(a, dtype=getattr(torch, dtype))).resolve_conj()
    assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(ref.shape)
    if op in ("real", "imag", "view_as_real"):
        assert ours.stride() == ref.stride() and ours.storage_offset() == ref.storage_offset()
    np.testing.assert_allclose(_np(ours), ref.numpy(), rtol=1e-6)


# ================================================================ autograd
def _domain_for(name, domain):
    # complex powers and logs have branch cuts on the negative real axis
    if domain == "any" and name in ("pow_frac", "pow_tensor", "pow_inplace_tensor"):
        return "pos"
    return domain


# cases of test_autograd_formulas.py whose operators take complex tensors (in torch too)
COMPLEX_CASES = [
    "add", "add_alpha", "add_scalar", "sub", "sub_alpha", "rsub_number", "mul", "mul_scalar",
    "div", "div_scalar", "rdiv_number", "neg", "pow_scalar", "pow_frac", "pow_zero",
    "pow_tensor", "pow_scalar_base", "reciprocal", "abs", "exp", "exp2", "expm1", "log", "log2",
    "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "tanh", "sigmoid", "sum", "sum_dim", "sum_dims_keepdim", "mean", "mean_dim", "prod",
    "prod_dim", "logsumexp", "var", "var_dim", "std", "std_dim", "norm", "norm_p1",
    "norm_p3_dim", "cumsum", "cumprod", "mm", "bmm", "addmm", "mv", "dot", "matmul_2d",
    "matmul_batched_broadcast", "matmul_vec_mat", "matmul_mat_vec", "matmul_dot", "outer",
    "view", "reshape", "flatten", "transpose", "permute", "expand", "squeeze", "unsqueeze",
    "select", "slice_step", "narrow", "flip", "tril", "triu", "clone", "contiguous",
    "index_select", "gather", "chain", "divide", "true_divide", "vdot", "linalg_cross",
    "cross_dim", "std_mean", "var_mean_correction", "unfold", "roll", "repeat", "tile",
    "scatter", "scatter_add", "take", "masked_select", "fill_tensor", "cumprod_zeros",
    "prod_zeros", "prod_dim_zeros", "cat", "stack", "index", "index_put", "index_put_accumulate",
    "pow_inplace", "pow_inplace_tensor",
]
_BY_NAME = {c[0]: c for c in CASES}


def _complex_inputs(name, seed=0, layout="contig"):
    case = _BY_NAME[name]
    rng = np.random.default_rng(seed)
    arrays = [_c(shape, rng, _domain_for(name, domain)) for shape, domain in case[2]]
    out = []
    for a in arrays:
        if layout == "strided" and a.ndim >= 1:
            wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=np.complex128)
            wide[..., ::2] = a
            t = pytensor.tensor(wide)[..., ::2]
            assert not t.is_contiguous()
        else:
            t = pytensor.tensor(a, dtype=C128)
        out.append(t.requires_grad_())
    return out, arrays


@pytest.mark.parametrize("name", COMPLEX_CASES)
def test_complex_gradcheck(name):
    ins, _ = _complex_inputs(name)
    fn = _BY_NAME[name][1]
    assert gradcheck(lambda *xs: fn(pytensor, *xs), tuple(ins))


@pytest.mark.parametrize("name", ["mul", "div", "exp", "mm", "sum_dim", "abs", "cumprod",
                                  "matmul_mat_vec", "select", "transpose"])
def test_complex_gradcheck_non_contiguous(name):
    ins, _ = _complex_inputs(name, layout="strided")
    fn = _BY_NAME[name][1]
    assert gradcheck(lambda *xs: fn(pytensor, *xs), tuple(ins))


@pytest.mark.parametrize("name", ["mul", "div", "exp", "log", "sqrt", "abs", "sum", "prod"])
def test_complex_gradcheck_zero_dim(name):
    case = _BY_NAME[name]
    rng = np.random.default_rng(4)
    ins = [_leaf(_c((), rng, _domain_for(name, d))) for _, d in case[2]]
    assert gradcheck(lambda *xs: case[1](pytensor, *xs), tuple(ins))


@pytest.mark.parametrize("name", ["mul", "div", "pow_tensor", "exp", "log", "sin", "tanh",
                                  "sigmoid", "mm", "vdot", "abs", "prod", "cumprod", "norm"])
def test_complex_gradgradcheck(name):
    ins, _ = _complex_inputs(name, seed=1)
    fn = _BY_NAME[name][1]
    assert gradgradcheck(lambda *xs: fn(pytensor, *xs), tuple(ins))


# the operators of complex.yaml: (id, function of (lib, *inputs), input makers)
def _pos(shape, rng):
    return np.abs(rng.standard_normal(shape)) + 0.5


def _real(shape, rng):
    return rng.standard_normal(shape)


NEW_OPS = [
    ("conj", lambda L, z: z.conj() * z, [((3,), _c)]),
    ("conj_physical", lambda L, z: L.conj_physical(z), [((2, 3), _c)]),
    ("conj_physical_", lambda L, z: (z * 1).conj_physical_(), [((3,), _c)]),
    ("real", lambda L, z: z.real, [((2, 3), _c)]),
    ("imag", lambda L, z: z.imag, [((2, 3), _c)]),
    ("real_imag_mix", lambda L, z: z.real * z.imag, [((4,), _c)]),
    ("view_as_real", lambda L, z: L.view_as_real(z), [((2, 3), _c)]),
    ("view_as_complex", lambda L, x: L.view_as_complex(x), [((3, 2), _real)]),
    ("view_as_complex_expanded_grad", lambda L, x: L.view_as_complex(x).sum(),
     [((3, 2), _real)]),
    ("angle", lambda L, z: z.angle(), [((4,), _c)]),
    ("angle_real", lambda L, x: x.angle() * x, [((4,), _real)]),
    ("sgn", lambda L, z: z.sgn(), [((4,), _c)]),
    ("abs", lambda L, z: z.abs(), [((4,), _c)]),
    ("polar", lambda L, r, t: L.polar(r, t), [((3,), _pos), ((3,), _real)]),
    ("polar_broadcast", lambda L, r, t: L.polar(r, t), [((2, 1), _pos), ((3,), _real)]),
    ("complex", lambda L, a, b: L.complex(a, b), [((3,), _real), ((2, 3), _real)]),
]
NEW_IDS = [c[0] for c in NEW_OPS]


def _new_inputs(case, seed=0):
    rng = np.random.default_rng(seed)
    return [mk(shape, rng) for shape, mk in case[2]]


@pytest.mark.parametrize("case", NEW_OPS, ids=NEW_IDS)
def test_new_ops_gradcheck(case):
    arrays = _new_inputs(case)
    ins = [_leaf(a, C128 if np.iscomplexobj(a) else F64) for a in arrays]
    assert gradcheck(lambda *xs: case[1](pytensor, *xs), tuple(ins))


# abs and sgn: sgn's own test below
NO_GRADGRAD = ("abs", "sgn")


@pytest.mark.parametrize("case", [c for c in NEW_OPS if c[0] not in NO_GRADGRAD],
                         ids=[i for i in NEW_IDS if i not in NO_GRADGRAD])
def test_new_ops_gradgradcheck(case):
    arrays = _new_inputs(case, seed=1)
    ins = [_leaf(a, C128 if np.iscomplexobj(a) else F64) for a in arrays]
    assert gradgradcheck(lambda *xs: case[1](pytensor, *xs), tuple(ins))


def test_sgn_gradgradcheck():
    z = _leaf(_c((3,), np.random.default_rng(2), "nonzero"))
    assert gradgradcheck(lambda a: a.sgn(), (z,))


def _random_grad(shape, is_complex, seed):
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(shape)
    return g + 1j * rng.standard_normal(shape) if is_complex else g


@requires_torch
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", COMPLEX_CASES)
def test_gradients_match_torch(name, dtype):
    _, arrays = _complex_inputs(name, seed=2)
    ours = [pytensor.tensor(a, dtype=getattr(pytensor, dtype), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True) for a in arrays]
    fn = _BY_NAME[name][1]
    out, ref = fn(pytensor, *ours), fn(torch, *theirs)
    g = _random_grad(tuple(ref.shape), ref.is_complex(), 3)
    out.backward(pytensor.tensor(g, dtype=out.dtype))
    ref.backward(torch.tensor(g, dtype=ref.dtype))
    tol = 2e-4 if dtype == "complex64" else 1e-10
    for x, y in zip(ours, theirs):
        assert str(x.grad.dtype).split(".")[-1] == str(y.grad.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(x.grad), y.grad.resolve_conj().numpy(), rtol=tol,
                                   atol=tol)


@requires_torch
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("case", NEW_OPS, ids=NEW_IDS)
def test_new_op_gradients_match_torch(case, dtype):
    arrays = _new_inputs(case, seed=2)
    real = {"complex64": "float32", "complex128": "float64"}[dtype]

    def dt(lib, a):
        return getattr(lib, dtype if np.iscomplexobj(a) else real)
    ours = [pytensor.tensor(a, dtype=dt(pytensor, a), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=dt(torch, a), requires_grad=True) for a in arrays]
    out, ref = case[1](pytensor, *ours), case[1](torch, *theirs)
    g = _random_grad(tuple(ref.shape), ref.is_complex(), 3)
    out.backward(pytensor.tensor(g, dtype=out.dtype))
    ref.backward(torch.tensor(g, dtype=ref.dtype))
    tol = 2e-4 if dtype == "complex64" else 1e-10
    for x, y in zip(ours, theirs):
        assert str(x.grad.dtype).split(".")[-1] == str(y.grad.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(x.grad), y.grad.resolve_conj().numpy(), rtol=tol,
                                   atol=tol)


@requires_torch
@pytest.mark.parametrize("name", ["real", "imag", "view_as_real", "view_as_complex", "angle",
                                  "sgn", "abs", "polar", "complex", "conj_physical"])
def test_node_names_match_torch(name):
    case = next(c for c in NEW_OPS if c[0] == name)
    arrays = _new_inputs(case)
    ours = case[1](pytensor, *[_leaf(a, C128 if np.iscomplexobj(a) else F64) for a in arrays])
    ref = case[1](torch, *[torch.tensor(a, requires_grad=True) for a in arrays])
    assert ours.grad_fn.name() == ref.grad_fn.name()


def test_conj_grad_fn_is_conj():
    # conj is lazy (Note [math bits]): a view recorded as ConjBackward0, as in torch
    z = _leaf(np.array([1 + 1j]))
    assert z.conj().grad_fn.name() == "ConjBackward0" and z.conj().is_conj()
    assert z.conj_physical().grad_fn.name() == "ConjPhysicalBackward0"
    x = pytensor.tensor([1.0], requires_grad=True)
    assert x.conj().grad_fn is None and x.conj().requires_grad  # the leaf itself


# ================================================================ real and complex mixed
def test_real_input_gets_the_real_part():
    x = pytensor.tensor([1.0, 2.0], dtype=F64, requires_grad=True)
    z = pytensor.tensor([1 + 2j, 3 - 4j], dtype=C128)
    (x * z).sum().backward(pytensor.tensor(1 + 1j, dtype=C128))
    # d/dx of sum(x z) against grad g = 1 + i: Re(g * conj(z))
    assert x.grad.dtype == F64
    np.testing.assert_allclose(_np(x.grad), np.real((1 + 1j) * np.conj([1 + 2j, 3 - 4j])))


@requires_torch
@pytest.mark.parametrize("fn", [
    lambda L, x, z: (x * z).exp(),
    lambda L, x, z: x.to(z.dtype) / z,
    lambda L, x, z: L.mm(x.reshape(2, 2).to(z.dtype), z.reshape(2, 2)),
    lambda L, x, z: (z * x).abs() + x,
    lambda L, x, z: L.complex(x, x * 2) * z,
    lambda L, x, z: L.view_as_real(z * x).sum(-1) * x,
], ids=["mul_exp", "to_div", "mm", "abs", "complex", "view_as_real"])
def test_real_complex_mixing_matches_torch(fn):
    rng = np.random.default_rng(7)
    xa, za = rng.standard_normal(4), _c((4,), rng)
    x, xt = _leaf(xa, F64), torch.tensor(xa, requires_grad=True)
    z, zt = _leaf(za), torch.tensor(za, requires_grad=True)
    out, ref = fn(pytensor, x, z), fn(torch, xt, zt)
    g = _random_grad(tuple(ref.shape), ref.is_complex(), 8)
    out.backward(pytensor.tensor(g, dtype=out.dtype))
    ref.backward(torch.tensor(g, dtype=ref.dtype))
    assert x.grad.dtype == F64 and z.grad.dtype == C128
    np.testing.assert_allclose(_np(x.grad), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(z.grad), zt.grad.resolve_conj().numpy(), rtol=1e-10,
                               atol=1e-12)


def test_real_to_complex_gradcheck():
    x = _leaf(np.array([0.3, -1.2, 2.0]), F64)
    z = _leaf(_c((3,), np.random.default_rng(9)))
    assert gradcheck(lambda a, b: (a * b).exp() + pytensor.complex(a, a), (x, z))
    assert gradcheck(lambda a, b: (a * b).abs(), (x, z))


def test_complex_scalar_backward_needs_a_gradient():
    z = _leaf(np.array([1 + 1j, 2]))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real scalar "
                                           "outputs"):
        (z * z).sum().backward()
    (z * z).sum().abs().backward()  # a real scalar is fine
    assert z.grad.dtype == C128


def test_complex_leaf_grad_is_complex_and_accumulates():
    z = pytensor.tensor([1 + 2j], dtype=C64, requires_grad=True)
    assert z.requires_grad and z.is_leaf
    (z * (2 - 1j)).sum().backward(pytensor.tensor(1 + 0j, dtype=C64))
    assert z.grad.dtype == C64 and z.grad.tolist() == [2 + 1j]
    (z * 1j).sum().backward(pytensor.tensor(1 + 0j, dtype=C64))
    assert z.grad.tolist() == [2 + 0j]


@pytest.mark.parametrize("make", [
    lambda z: z.nan_to_num(),
    lambda z: pytensor._C._nn.silu(z),
    lambda z: (z * 1).nan_to_num_(),
], ids=["nan_to_num", "silu", "nan_to_num_"])
def test_operators_without_complex_formulas_refuse(make):
    z = _leaf(np.array([1 + 1j, 2 - 1j]))
    with pytest.raises(RuntimeError, match="does not support automatic differentiation for "
                                           "outputs with complex dtype."):
        make(z)
    with pytensor.no_grad():  # without autograd the kernels run
        make(z.detach())


@requires_torch
def test_refusal_text_is_torchs():
    msgs = []
    for L in (pytensor, torch):
        z = L.tensor([1 + 1j], dtype=L.complex128, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            z.nan_to_num()
        msgs.append(str(info.value).split("\n")[0])
    assert msgs[0] == msgs[1]


def test_real_gradients_unchanged_by_conj():
    # real inputs take the same path as before: conj() of a real tensor is that tensor
    x = pytensor.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=F64, requires_grad=True)
    w = pytensor.tensor([[1.5, 0.5], [-0.5, 2.0]], dtype=F64, requires_grad=True)
    (x.mm(w) * x).sin().sum().backward()
    xa, wa = np.array(x.tolist()), np.array(w.tolist())
    y = xa @ wa
    g = np.cos(y * xa)
    gx = g * y + (g * xa) @ wa.T
    gw = xa.T @ (g * xa)
    np.testing.assert_allclose(_np(x.grad), gx, rtol=1e-12)
    np.testing.assert_allclose(_np(w.grad), gw, rtol=1e-12)


def test_to_same_dtype_keeps_the_leaf():
    x = pytensor.tensor([1.0, 2.0], dtype=F64, requires_grad=True)
    y = pytensor.ops.aten.to(x, F64)
    assert x.is_leaf and x.grad_fn is None and y.grad_fn is None
    pytensor.ops.aten.contiguous(x)
    assert x.is_leaf and x.grad_fn is None


# ================================================================ gradcheck itself
def test_gradcheck_catches_a_wrong_complex_gradient():
    class Unconjugated(pytensor.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 2 * a  # torch's convention needs conj(2a)

    z = _leaf(_c((2,), np.random.default_rng(3)))
    error = sys.modules["pytensor.autograd.gradcheck"].GradcheckError
    with pytest.raises(error,
                       match="While considering the imaginary part of complex outputs only, "
                             "Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(Unconjugated.apply, (z,))
    assert gradcheck(Unconjugated.apply, (z,), raise_exception=False) is False


def test_gradcheck_warns_for_complex64():
    z = pytensor.tensor([1 + 1j], dtype=C64, requires_grad=True)
    with pytest.warns(UserWarning, match="not of double precision floating point or complex"):
        gradcheck(lambda a: a * 2, (z,), atol=1e-2, rtol=1e-2, eps=1e-3)
