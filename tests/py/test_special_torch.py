"""The special family against torch (skipped where torch is not installed): values over ranges
in float32 and float64, the Scalar overloads and broadcasting, the poles and edges, the gradients
and node names, and the refusal messages. The torch-free checks are test_special.py's, whose
tables (GRAD_CASES, UNARY, COMPLEX_REFUSALS) these tests reuse.
"""
import math

import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch
from test_special import COMPLEX_REFUSALS, GRAD_CASES, UNARY, L, _grad_inputs

INF, NAN = math.inf, math.nan

pytestmark = requires_torch


def _pair(values, dtype):
    tname = str(dtype).split(".")[1]
    return (pytensor.tensor(values, dtype=getattr(pytensor, tname)),
            torch.tensor(values, dtype=dtype))


TORCH_UNARY = [
    ("lgamma", lambda m, x: m.lgamma(x), (-7.3, 9.1)),
    ("digamma", lambda m, x: m.digamma(x), (-7.3, 9.1)),
    ("polygamma2", lambda m, x: m.polygamma(2, x), (0.05, 9.1)),
    ("polygamma3", lambda m, x: m.polygamma(3, x), (0.05, 9.1)),
    ("mvlgamma", lambda m, x: m.mvlgamma(x, 3), (1.01, 9.1)),
    ("erfinv", lambda m, x: m.erfinv(x), (-0.9999, 0.9999)),
    ("i0", lambda m, x: m.i0(x), (-50.0, 50.0)),
    ("sinc", lambda m, x: m.sinc(x), (-7.3, 9.1)),
    ("logit", lambda m, x: m.logit(x), (0.001, 0.999)),
    ("logit_eps", lambda m, x: m.logit(x, 0.1), (-0.1, 1.1)),
    ("entr", lambda m, x: m.special.entr(x), (-1.0, 9.1)),
    ("erfcx", lambda m, x: m.special.erfcx(x), (-5.0, 40.0)),
    ("i0e", lambda m, x: m.special.i0e(x), (-50.0, 50.0)),
    ("i1", lambda m, x: m.special.i1(x), (-50.0, 50.0)),
    ("i1e", lambda m, x: m.special.i1e(x), (-50.0, 50.0)),
    ("ndtr", lambda m, x: m.special.ndtr(x), (-7.0, 7.0)),
    ("ndtri", lambda m, x: m.special.ndtri(x), (0.001, 0.999)),
    ("log_ndtr", lambda m, x: m.special.log_ndtr(x), (-20.0, 7.0)),
    ("gammaln", lambda m, x: m.special.gammaln(x), (0.1, 9.1)),
    ("multigammaln", lambda m, x: m.special.multigammaln(x, 2), (0.6, 9.1)),
    ("expit", lambda m, x: m.special.expit(x), (-5.0, 5.0)),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", TORCH_UNARY, ids=[c[0] for c in TORCH_UNARY])
def test_unary_matches_torch(case, dtype):
    _, fn, (lo, hi) = case
    values = np.linspace(lo, hi, 257).tolist() + [0.0, -0.0]
    p, t = _pair(values, dtype)
    got, want = L(fn(pytensor, p)), fn(torch, t).double().numpy()
    # torch's float32 kernels compute in float32 (a few float32 ulp), its trigamma is good to
    # ~1e-9; the float64 ones are Cephes' (~1e-15)
    rtol = 2e-6 if dtype == torch.float32 else 1e-8
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6 if dtype == torch.float32 else
                               1e-12, equal_nan=True)
    assert fn(pytensor, p).dtype == getattr(pytensor, str(dtype).split(".")[1])


TORCH_BINARY = [
    ("xlogy", lambda m, x, y: m.xlogy(x, y), (-3.0, 3.0), (0.0, 5.0)),
    ("xlog1py", lambda m, x, y: m.special.xlog1py(x, y), (-3.0, 3.0), (-1.0, 5.0)),
    ("igamma", lambda m, x, y: m.igamma(x, y), (0.01, 30.0), (0.0, 40.0)),
    ("igammac", lambda m, x, y: m.igammac(x, y), (0.01, 30.0), (0.0, 40.0)),
    ("gammainc", lambda m, x, y: m.special.gammainc(x, y), (0.5, 5.0), (0.1, 9.0)),
    ("zeta", lambda m, x, y: m.special.zeta(x, y), (1.1, 12.0), (0.1, 9.0)),
]


@pytest.mark.parametrize("case", TORCH_BINARY, ids=[c[0] for c in TORCH_BINARY])
def test_binary_matches_torch(case):
    _, fn, (lo1, hi1), (lo2, hi2) = case
    a = np.linspace(lo1, hi1, 41).tolist()
    b = np.linspace(lo2, hi2, 41).tolist()[::-1]
    pa, ta = _pair(a, torch.float64)
    pb, tb = _pair(b, torch.float64)
    np.testing.assert_allclose(L(fn(pytensor, pa, pb)), fn(torch, ta, tb).numpy(), rtol=1e-9,
                               atol=1e-13, equal_nan=True)
    # broadcast, and a Python scalar on either side
    np.testing.assert_allclose(L(fn(pytensor, pa.reshape(41, 1)[:5], pb)),
                               fn(torch, ta.reshape(41, 1)[:5], tb).numpy(), rtol=1e-9,
                               atol=1e-13, equal_nan=True)
    for p_args, t_args in (((pa, 2.5), (ta, 2.5)), ((2.5, pb), (2.5, tb))):
        try:
            want = fn(torch, *t_args)
        except Exception as e:  # noqa: BLE001 - torch refuses the Scalar form: so must we
            with pytest.raises(type(e)):
                fn(pytensor, *p_args)
            continue
        got = fn(pytensor, *p_args)
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
        np.testing.assert_allclose(L(got), want.numpy(), rtol=1e-9, atol=1e-13, equal_nan=True)


def test_poles_match_torch():
    values = [0.0, -0.0, -1.0, -2.0, INF, -INF, NAN]
    for name in ("lgamma", "digamma", "erfinv", "i0"):
        p, t = _pair(values, torch.float64)
        np.testing.assert_allclose(L(getattr(pytensor, name)(p)), getattr(torch, name)(t).numpy(),
                                   rtol=1e-14, err_msg=name)
    # sinc: torch's sin(pi x) leaves 4e-17 at the integers, which sin(pi x) reduced exactly does not
    p, t = _pair(values, torch.float64)
    np.testing.assert_allclose(L(pytensor.sinc(p)), torch.sinc(t).numpy(), rtol=0, atol=1e-16)
    for name in ("entr", "erfcx", "i0e", "i1", "i1e", "ndtri", "log_ndtr"):
        p, t = _pair(values, torch.float64)
        np.testing.assert_allclose(L(getattr(pytensor.special, name)(p)),
                                   getattr(torch.special, name)(t).numpy(), rtol=1e-14,
                                   err_msg=name)
    p, t = _pair(values, torch.float64)
    np.testing.assert_allclose(L(pytensor.polygamma(2, p)), torch.polygamma(2, t).numpy(),
                               rtol=1e-14)


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_and_node_names_match_torch(case):
    name, fn, domains, _ = case
    ins = _grad_inputs(domains)
    t_ins = tuple(torch.tensor(i.tolist(), dtype=torch.float64, requires_grad=True) for i in ins)
    torch_fn = {
        "igamma_x": lambda x: torch.igamma(torch.tensor([0.7, 2.0, 3.5], dtype=torch.float64), x),
        "igammac_x": lambda x: torch.igammac(torch.tensor([0.7, 2.0, 3.5], dtype=torch.float64), x),
        "zeta_q": lambda q: torch.special.zeta(
            torch.tensor([2.0, 3.5, 5.0], dtype=torch.float64), q),
    }.get(name)
    if torch_fn is None:
        src = {"xlogy_scalar_self": lambda y: torch.xlogy(1.5, y),
               "xlogy_scalar_other": lambda x: torch.xlogy(x, 2.5),
               "logit_eps": lambda x: torch.logit(x, 0.2),
               "polygamma": lambda x: torch.polygamma(2, x),
               "mvlgamma": lambda x: torch.mvlgamma(x, 3),
               "xlog1py_scalar_self": lambda y: torch.special.xlog1py(2.0, y),
               "xlog1py_scalar_other": lambda x: torch.special.xlog1py(x, 1.5),
               "zeta_scalar_self": lambda q: torch.special.zeta(2.5, q)}
        torch_fn = src.get(name) or (getattr(torch, name, None) if name in (
            "lgamma", "digamma", "erfinv", "i0", "sinc", "logit", "xlogy") else
            getattr(torch.special, name))
    y, ty = fn(*ins), torch_fn(*t_ins)
    assert y.grad_fn.name() == ty.grad_fn.name()
    y.sum().backward()
    ty.sum().backward()
    for i, ti in zip(ins, t_ins):
        np.testing.assert_allclose(L(i.grad), ti.grad.numpy(), rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("name", sorted(COMPLEX_REFUSALS))
def test_refusal_messages_match_torch(name):
    tfn = {"lgamma": torch.lgamma, "digamma": torch.digamma, "erfinv": torch.erfinv,
           "i0": torch.i0, "logit": torch.logit, "polygamma": lambda t: torch.polygamma(2, t),
           "mvlgamma": lambda t: torch.mvlgamma(t, 2)}.get(name) or getattr(torch.special, name)
    with pytest.raises(Exception) as te:
        tfn(torch.tensor([1 + 1j]))
    with pytest.raises(type(te.value)) as pe:
        UNARY[name](pytensor.tensor([1 + 1j]))
    assert str(pe.value) == str(te.value)
