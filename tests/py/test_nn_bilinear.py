"""pytensor.nn.functional.bilinear over _trilinear, _trilinear itself, and F.pdist: values and
gradients against NumPy (einsum) and torch, batch dims, 1-D and empty inputs, torch's autograd
nodes, gradcheck and gradgradcheck in float64, and torch's messages."""
from __future__ import annotations

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(5)


def _np(t):
    return np.asarray(t.detach().double().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def _t(shape, grad=False, dtype=pytensor.float64):
    return pytensor.tensor(RNG.standard_normal(shape), dtype=dtype, requires_grad=grad)


@pytest.mark.parametrize("batch", [(5,), (2, 3), ()])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_einsum(batch, bias):
    x1, x2, w = _t(batch + (4,), True), _t(batch + (6,), True), _t((3, 4, 6), True)
    b = _t((3,), True) if bias else None
    y = F.bilinear(x1, x2, w, b)
    ref = np.einsum("...i,oij,...j->...o", _np(x1), _np(w), _np(x2))
    if bias:
        ref = ref + _np(b)
    assert tuple(y.shape) == batch + (3,)
    np.testing.assert_allclose(_np(y), ref, rtol=1e-12, atol=1e-12)
    g = RNG.standard_normal(batch + (3,))
    y.backward(pytensor.tensor(g))
    np.testing.assert_allclose(_np(x1.grad), np.einsum("...o,oij,...j->...i", g, _np(w), _np(x2)),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(x2.grad), np.einsum("...o,oij,...i->...j", g, _np(w), _np(x1)),
                               rtol=1e-12, atol=1e-12)
    g2, a1, a2 = g.reshape(-1, 3), _np(x1).reshape(-1, 4), _np(x2).reshape(-1, 6)
    np.testing.assert_allclose(_np(w.grad), np.einsum("bo,bi,bj->oij", g2, a1, a2),
                               rtol=1e-12, atol=1e-12)
    if bias:
        np.testing.assert_allclose(_np(b.grad), g.reshape(-1, 3).sum(0), rtol=1e-12)


def test_bilinear_nodes_are_torchs():
    x1, x2, w, b = _t((2, 4), True), _t((2, 6), True), _t((3, 4, 6), True), _t((3,), True)
    y = F.bilinear(x1, x2, w, b)
    assert y.grad_fn.name() == "AddBackward0"
    view = y.grad_fn.next_functions[0][0]
    assert view.name() == "ViewBackward0"
    assert view.next_functions[0][0].name() == "TrilinearBackward0"
    assert F.bilinear(x1, x2, w).grad_fn.name() == "ViewBackward0"


def test_bilinear_empty_batch_and_float32():
    x1, x2, w = _t((0, 4), True), _t((0, 6), True), _t((3, 4, 6), True)
    y = F.bilinear(x1, x2, w)
    assert tuple(y.shape) == (0, 3)
    y.sum().backward()
    assert _np(w.grad).tolist() == np.zeros((3, 4, 6)).tolist()
    x1, x2, w = (_t(s, dtype=pytensor.float32) for s in ((7, 4), (7, 6), (3, 4, 6)))
    y = F.bilinear(x1, x2, w)
    assert y.dtype == pytensor.float32
    np.testing.assert_allclose(_np(y), np.einsum("bi,oij,bj->bo", _np(x1), _np(w), _np(x2)),
                               rtol=1e-5, atol=1e-5)


def test_bilinear_non_contiguous_inputs():
    x1 = _t((4, 5)).t()  # (5, 4)
    x2 = _t((6, 5)).t()
    w = _t((4, 3, 6)).permute(1, 0, 2)  # (3, 4, 6)
    ref = np.einsum("bi,oij,bj->bo", _np(x1), _np(w), _np(x2))
    np.testing.assert_allclose(_np(F.bilinear(x1, x2, w)), ref, rtol=1e-12, atol=1e-12)


def test_bilinear_gradcheck_and_gradgradcheck():
    x1, x2, w, b = _t((3, 2), True), _t((3, 4), True), _t((2, 2, 4), True), _t((2,), True)
    assert pytensor.autograd.gradcheck(F.bilinear, (x1, x2, w, b))
    assert pytensor.autograd.gradgradcheck(F.bilinear, (x1, x2, w, b))


def test_trilinear_general_and_its_gradient():
    a, b, c = _t((2, 3), True), _t((3, 4), True), _t((2, 4), True)
    # sum_j,k a[i,j] b[j,k] c[i,k]: rank 3 (i, j, k), sum over j and k
    y = pytensor._trilinear(a, b, c, [2], [0], [1], [1, 2])
    ref = np.einsum("ij,jk,ik->i", _np(a), _np(b), _np(c))
    np.testing.assert_allclose(_np(y), ref, rtol=1e-12)
    assert y.grad_fn.name() == "TrilinearBackward0"
    assert pytensor.autograd.gradcheck(
        lambda a, b, c: pytensor._trilinear(a, b, c, [2], [0], [1], [1, 2], 0), (a, b, c))
    # nothing summed: the outer product
    y = pytensor._trilinear(_t((2,)), _t((3,)), _t((4,)), [1, 2], [0, 2], [0, 1], [])
    assert tuple(y.shape) == (2, 3, 4)


BILINEAR_MESSAGES = [
    (lambda m: m.bilinear(m.ones(2, 3), m.ones(2, 4).double(), m.ones(5, 3, 4)), RuntimeError,
     "All tensors must have the same dtype, got input1: float, input2: double, weight: float"),
    (lambda m: m.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(5, 3, 4), m.ones(5).double()),
     RuntimeError, "All tensors must have the same dtype, got input1: float, input2: float, "
     "weight: float, bias: double"),
    (lambda m: m.bilinear(m.ones(2, 3), m.ones(2, 1, 4), m.ones(5, 3, 4)), RuntimeError,
     "bilinear(): input dimensions do not match: got 2 and 3"),
    (lambda m: m.bilinear(m.ones(2, 3), m.ones(3, 4), m.ones(5, 3, 4)), RuntimeError,
     "bilinear(): input batch dimensions do not match at dim 0: got 2 and 3"),
    (lambda m: m.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(5, 4, 4)), RuntimeError,
     "bilinear(): input1 size does not match weight size: got 3 but expected 4"),
    (lambda m: m.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(5, 3, 3)), RuntimeError,
     "bilinear(): input2 size does not match weight size: got 4 but expected 3"),
    (lambda m: m.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(5, 3, 4), m.ones(2, 5)),
     RuntimeError, "bilinear(): bias size does not match weight size: got 2 but expected 5"),
    (lambda m: m.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(3, 3)), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda m: m._trilinear(m.ones(2, 3), m.ones(5, 3, 4), m.ones(2, 4), [1, 3], [0], [1, 2],
                            [2, 3], 4), RuntimeError, "unroll_dim must be in [0,3]"),
]


@pytest.mark.parametrize("case", range(len(BILINEAR_MESSAGES)))
def test_bilinear_messages(case):
    call, exc, msg = BILINEAR_MESSAGES[case]
    with pytest.raises(exc) as e:
        call(pytensor)
    assert str(e.value).startswith(msg), str(e.value)


@requires_torch
@pytest.mark.parametrize("case", range(len(BILINEAR_MESSAGES)))
def test_bilinear_messages_are_torchs(case):
    call, exc, msg = BILINEAR_MESSAGES[case]
    with pytest.raises(exc) as e:
        call(torch)
    assert str(e.value).startswith(msg), str(e.value)


@requires_torch
@pytest.mark.parametrize("shapes", [((5, 4), (5, 6)), ((2, 3, 4), (2, 3, 6)), ((4,), (6,)),
                                    ((0, 4), (0, 6))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bilinear_matches_torch(shapes, dtype):
    s1, s2 = shapes
    arrs = [RNG.standard_normal(s).astype(dtype) for s in (s1, s2, (3, 4, 6), (3,))]
    p = [pytensor.tensor(a, requires_grad=True) for a in arrs]
    t = [torch.tensor(a, requires_grad=True) for a in arrs]
    py, ty = F.bilinear(*p), torch.nn.functional.bilinear(*t)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(_np(py), ty.detach().double().numpy(), rtol=tol, atol=tol)
    assert py.grad_fn.name() == type(ty.grad_fn).__name__
    g = RNG.standard_normal(tuple(ty.shape)).astype(dtype)
    py.backward(pytensor.tensor(g))
    ty.backward(torch.tensor(g))
    for a, b in zip(p, t):
        np.testing.assert_allclose(_np(a.grad), b.grad.double().numpy(), rtol=tol, atol=tol)


@requires_torch
def test_trilinear_matches_torch():
    a, b, c = (RNG.standard_normal(s) for s in ((2, 3), (3, 4), (2, 4)))
    args = ([2], [0], [1], [1, 2])
    py = pytensor._trilinear(*(pytensor.tensor(x) for x in (a, b, c)), *args)
    ty = torch._trilinear(*(torch.tensor(x) for x in (a, b, c)), *args)
    np.testing.assert_allclose(_np(py), ty.numpy(), rtol=1e-12)


# ---------------------------------------------------------------- pdist

def test_pdist_matches_numpy_and_gradcheck():
    x = _t((5, 3), True)
    xn = _np(x)
    ref = [np.linalg.norm(xn[i] - xn[j]) for i in range(5) for j in range(i + 1, 5)]
    np.testing.assert_allclose(_np(F.pdist(x)), ref, rtol=1e-12)
    ref1 = [np.abs(xn[i] - xn[j]).sum() for i in range(5) for j in range(i + 1, 5)]
    np.testing.assert_allclose(_np(F.pdist(x, 1)), ref1, rtol=1e-12)
    assert F.pdist(x).grad_fn.name() == "PdistBackward0"
    for p in (1.0, 2.0, 3.0, float("inf")):
        assert pytensor.autograd.gradcheck(lambda x: F.pdist(x, p), (x,))


@requires_torch
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
def test_pdist_matches_torch(p):
    a = RNG.standard_normal((6, 4))
    px, tx = pytensor.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    py, ty = F.pdist(px, p), torch.nn.functional.pdist(tx, p)
    np.testing.assert_allclose(_np(py), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert py.grad_fn.name() == type(ty.grad_fn).__name__
    py.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(_np(px.grad), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


PDIST_MESSAGES = [
    (lambda m: m.nn.functional.pdist(m.ones(3)), RuntimeError,
     "pdist only supports 2D tensors, got: 1D"),
    (lambda m: m.nn.functional.pdist(m.ones(3, 2), -1.0), RuntimeError,
     "pdist only supports non-negative p values"),
    (lambda m: m.nn.functional.pdist(m.ones(3, 2).int()), RuntimeError,
     "pdist only supports floating-point dtypes"),
]


@pytest.mark.parametrize("case", range(len(PDIST_MESSAGES)))
def test_pdist_messages(case):
    call, exc, msg = PDIST_MESSAGES[case]
    with pytest.raises(exc) as e:
        call(pytensor)
    assert str(e.value).startswith(msg), str(e.value)


@requires_torch
@pytest.mark.parametrize("case", range(len(PDIST_MESSAGES)))
def test_pdist_messages_are_torchs(case):
    call, exc, msg = PDIST_MESSAGES[case]
    with pytest.raises(exc) as e:
        call(torch)
    assert str(e.value).startswith(msg), str(e.value)


def test_meta_shapes():
    m = [pytensor.empty(s, device="meta") for s in ((4, 3), (4, 5), (2, 3, 5), (2,))]
    assert tuple(F.bilinear(*m).shape) == (4, 2)
    assert tuple(pytensor._trilinear(m[0], m[2], m[1], [1, 3], [0], [1, 2], [2, 3]).shape) == (4, 2)
