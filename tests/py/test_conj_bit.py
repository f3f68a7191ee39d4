"""The conjugate and negative bits (Note [math bits] in csrc/include/pytensor.h): conj() of a
complex tensor is a view with the conjugate bit, imag of it a view with the negative bit; every
operator sees values (the Conjugate / Negative fallback), writes through such views reach the base
conjugated, export refuses them with torch's texts, and autograd records ConjBackward0. Values
are checked against np.conj everywhere and against torch where it is installed."""
import copy
import pickle

import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch

CDTYPES = [pytensor.complex64, pytensor.complex128]
NP = {pytensor.complex64: np.complex64, pytensor.complex128: np.complex128}


def _z(shape, dtype=pytensor.complex128, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(NP[dtype])
    return a, pytensor.tensor(a, dtype=dtype)


def _vals(t):
    """The values of t as an ndarray, read through the public path (tolist)."""
    dt = np.complex128 if t.is_complex() else np.float64
    return np.array(t.tolist(), dtype=dt).reshape(tuple(t.shape))


# ---------------------------------------------------------------- the bits
@pytest.mark.parametrize("dtype", CDTYPES)
def test_conj_is_a_view_with_the_bit(dtype):
    a, x = _z((3, 4), dtype)
    c = x.conj()
    assert c.is_conj() and not x.is_conj() and pytensor.is_conj(c)
    assert c.data_ptr() == x.data_ptr() and c._is_view() and not c._base.is_conj()
    assert c.dtype == dtype and c.shape == x.shape
    np.testing.assert_array_equal(_vals(c), np.conj(a))
    assert not c.conj().is_conj()  # the bit flips back
    np.testing.assert_array_equal(_vals(c.conj()), a)


@pytest.mark.parametrize("dtype", [pytensor.float32, pytensor.float64, pytensor.int64,
                                   pytensor.bool])
def test_conj_of_real_is_the_input(dtype):
    x = pytensor.ones(3, dtype=dtype)
    assert x.conj() is x or x.conj().data_ptr() == x.data_ptr()
    assert not x.conj().is_conj()
    assert not x._conj().is_conj()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_resolve_conj_and_conj_physical(dtype):
    a, x = _z((5,), dtype)
    c = x.conj()
    r = c.resolve_conj()
    assert not r.is_conj() and r.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(r.numpy(), np.conj(a))
    assert x.resolve_conj() is x or x.resolve_conj().data_ptr() == x.data_ptr()
    p = x.conj_physical()
    assert not p.is_conj() and p.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(p.numpy(), np.conj(a))
    pc = c.conj_physical()  # the conjugate of the values: the base's values
    assert not pc.is_conj()
    np.testing.assert_array_equal(pc.numpy(), a)
    np.testing.assert_array_equal(pytensor.conj_physical(c).numpy(), a)


def test_neg_view_and_resolve_neg():
    x = pytensor.tensor([1.0, -2.0, 3.0])
    n = x._neg_view()
    assert n.is_neg() and pytensor.is_neg(n) and not x.is_neg()
    assert n.data_ptr() == x.data_ptr()
    assert n.tolist() == [-1.0, 2.0, -3.0]
    r = n.resolve_neg()
    assert not r.is_neg() and r.tolist() == [-1.0, 2.0, -3.0]
    assert not n._neg_view().is_neg()
    assert (n + 1).tolist() == [0.0, 3.0, -2.0]
    n[0] = 10.0  # stored negated
    assert x.tolist() == [-10.0, -2.0, 3.0]


@pytest.mark.parametrize("dtype", CDTYPES)
def test_real_and_imag_of_conj_are_views(dtype):
    a, x = _z((4,), dtype)
    c = x.conj()
    re, im = c.real, c.imag
    assert not re.is_conj() and not re.is_neg() and im.is_neg() and not im.is_conj()
    np.testing.assert_array_equal(_vals(re), a.real)
    np.testing.assert_array_equal(_vals(im), -a.imag)
    im[1] = 5.0  # conj(x)[1] has imag 5: x[1] has imag -5
    assert x[1].item().imag == -5.0
    re[0] = 7.0
    assert x[0].item().real == 7.0
    c.imag = pytensor.zeros(4, dtype=re.dtype)
    assert np.all(_vals(x).imag == 0)


def test_view_as_real_refuses_conj():
    c = pytensor.tensor([1 + 2j]).conj()
    with pytest.raises(RuntimeError, match="view_as_real doesn't work on unresolved conjugated "
                       "tensors.  To resolve the conjugate tensor so you can view it as real, "
                       "use self.resolve_conj\\(\\); however, be warned that the resulting "
                       "tensor will NOT alias the original."):
        pytensor.view_as_real(c)
    assert pytensor.view_as_real(c.resolve_conj()).tolist() == [[1.0, -2.0]]


# ---------------------------------------------------------------- values through operators
def _layouts(dtype):
    a, x = _z((4, 6), dtype, seed=1)
    yield "contiguous", a, x
    yield "transposed", a.T, x.t()
    yield "strided", a[::2, 1::3], x[::2, 1::3]
    yield "negative-stride", a[::-1], pytensor.from_numpy(a[::-1])
    yield "0-d", a[1, 2], x[1, 2]
    yield "empty", a[:0], x[:0]


@pytest.mark.parametrize("dtype", CDTYPES)
def test_values_through_operators(dtype):
    for name, a, x in _layouts(dtype):
        c = x.conj()
        assert c.is_conj(), name
        ca = np.conj(a)
        np.testing.assert_allclose(_vals(c), ca, err_msg=name)
        np.testing.assert_allclose(_vals(c + 1), ca + 1, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(_vals(c * x), ca * a, rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(_vals(c.exp()), np.exp(ca), rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(_vals(c.abs()), np.abs(ca), rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(complex(c.sum().item()), ca.sum(), rtol=1e-5, err_msg=name)
        assert bool((c == x.conj_physical()).all()), name
        np.testing.assert_allclose(_vals(c.clone()), ca, err_msg=name)
        assert not c.clone().is_conj()
        np.testing.assert_allclose(_vals(c.contiguous()), ca, err_msg=name)
        np.testing.assert_allclose(_vals(c.to(pytensor.complex128)), ca, rtol=1e-6,
                                   err_msg=name)
        np.testing.assert_allclose(_vals(c.reshape(-1)), ca.reshape(-1), err_msg=name)


def test_views_keep_the_bit():
    a, x = _z((2, 3, 4))
    c = x.conj()
    for v, ref in [(c[0], a[0]), (c.view(6, 4), a.reshape(6, 4)), (c.transpose(0, 2), a.T),
                   (c[:, 1], a[:, 1]), (c.expand(2, 2, 3, 4), np.broadcast_to(a, (2, 2, 3, 4))),
                   (c.unsqueeze(0), a[None]), (c.permute(2, 0, 1), a.transpose(2, 0, 1)),
                   (c.select(1, 2), a[:, 2]), (c.narrow(2, 1, 2), a[:, :, 1:3]),
                   (c.diagonal(0, 1, 2), np.diagonal(a, 0, 1, 2))]:
        assert v.is_conj() and v.data_ptr() != 0
        np.testing.assert_array_equal(_vals(v), np.conj(ref))
    assert c.detach().is_conj()


def test_matmul_family():
    a, x = _z((3, 4), seed=2)
    b, y = _z((4, 2), seed=3)
    np.testing.assert_allclose(_vals(x.conj() @ y), np.conj(a) @ b, rtol=1e-10)
    np.testing.assert_allclose(_vals(x @ y.conj()), a @ np.conj(b), rtol=1e-10)
    np.testing.assert_allclose(_vals(pytensor.mm(x.conj(), y.conj())), np.conj(a) @ np.conj(b),
                               rtol=1e-10)
    v, vt = _z((4,), seed=4)
    np.testing.assert_allclose(_vals(x.conj().mv(vt)), np.conj(a) @ v, rtol=1e-10)
    np.testing.assert_allclose(_vals(x.t().conj() @ x), np.conj(a).T @ a, rtol=1e-10)
    np.testing.assert_allclose(complex(pytensor.vdot(vt.conj(), vt).item()), v @ v, rtol=1e-10)
    np.testing.assert_allclose(complex(pytensor.dot(vt.conj(), vt).item()), np.conj(v) @ v,
                               rtol=1e-10)
    bias, tb = _z((3, 2), seed=6)
    np.testing.assert_allclose(_vals(pytensor.addmm(tb.conj(), x.conj(), y, alpha=2, beta=1j)),
                               1j * np.conj(bias) + 2 * (np.conj(a) @ b), rtol=1e-10)
    batch, tbatch = _z((2, 3, 4), seed=7)
    np.testing.assert_allclose(_vals(pytensor.bmm(tbatch.conj(), y.expand(2, 4, 2))),
                               np.conj(batch) @ b, rtol=1e-10)
    o = pytensor.zeros(3, 2, dtype=pytensor.complex128)
    r = pytensor.mm(x.conj(), y, out=o.conj())
    assert r.is_conj()
    np.testing.assert_allclose(o.numpy(), a @ np.conj(b), rtol=1e-10)  # stored conjugated
    s = pytensor.zeros(3, 2, dtype=pytensor.complex128)
    s.conj().addmm_(x, y)
    np.testing.assert_allclose(s.numpy(), np.conj(a @ b), rtol=1e-10)


def test_comparisons_reductions_indexing():
    a, x = _z((5,))
    c = x.conj()
    np.testing.assert_array_equal(_vals(c[pytensor.tensor([0, 3])]), np.conj(a[[0, 3]]))
    assert bool((c != x).any())
    assert c.eq(x.conj_physical()).all().item()
    np.testing.assert_allclose(complex(c.mean().item()), np.conj(a).mean(), rtol=1e-12)
    assert complex(c[2].item()) == np.conj(a[2])
    assert bool((c - x.conj_physical()).abs().max() == 0)


# ---------------------------------------------------------------- writes through conj views
@pytest.mark.parametrize("dtype", CDTYPES)
def test_setitem_through_conj(dtype):
    a, x = _z((4,), dtype)
    c = x.conj()
    c[0] = 1 + 2j
    assert complex(x[0].item()) == 1 - 2j
    c[1:3] = pytensor.tensor([3 + 4j, 5 - 6j], dtype=dtype)
    assert x[1:3].tolist() == [3 - 4j, 5 + 6j]
    assert c.is_conj()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_inplace_on_conj(dtype):
    a, x = _z((2, 3), dtype)
    c = x.conj()
    r = c.add_(1 + 1j)
    assert r is c or (r.is_conj() and r.data_ptr() == c.data_ptr())
    np.testing.assert_allclose(_vals(x), np.conj(np.conj(a) + (1 + 1j)), rtol=1e-6)
    c.mul_(2)
    np.testing.assert_allclose(_vals(x), np.conj((np.conj(a) + (1 + 1j)) * 2), rtol=1e-6)
    c.zero_()
    assert not bool(x.abs().sum())
    c.fill_(1j)
    assert x.tolist() == [[-1j] * 3] * 2
    c.copy_(pytensor.full((2, 3), 2 + 3j, dtype=dtype))
    assert x.tolist() == [[2 - 3j] * 3] * 2


def test_out_into_conj():
    x = pytensor.zeros(2, dtype=pytensor.complex64)
    o = x.conj()
    src = pytensor.tensor([1 + 1j, 2 - 3j], dtype=pytensor.complex64)
    r = pytensor.add(src, 1, out=o)
    assert r.data_ptr() == x.data_ptr() and r.is_conj()
    assert o.tolist() == [2 + 1j, 3 - 3j]
    assert x.tolist() == [2 - 1j, 3 + 3j]


def test_copy_between_bits():
    a, x = _z((3,))
    y = pytensor.zeros(3, dtype=pytensor.complex128)
    y.copy_(x.conj())
    np.testing.assert_array_equal(y.numpy(), np.conj(a))
    y.conj().copy_(x.conj())  # both conjugated: the stored elements copy as they are
    np.testing.assert_array_equal(y.numpy(), a)
    z = pytensor.zeros(3, dtype=pytensor.complex64)
    z.copy_(x.conj())  # with a cast
    np.testing.assert_allclose(z.numpy(), np.conj(a).astype(np.complex64))
    x.conj().copy_(x)  # onto itself, conjugating
    np.testing.assert_array_equal(x.numpy(), np.conj(a))


# ---------------------------------------------------------------- export and Python values
CONJ_NUMPY = ("Can't call numpy() on Tensor that has conjugate bit set. Use "
              "tensor.resolve_conj().numpy() instead.")
NEG_NUMPY = ("Can't call numpy() on Tensor that has negative bit set. Use "
             "tensor.resolve_neg().numpy() instead.")


def test_export_refuses_bits():
    a, x = _z((3,))
    c = x.conj()
    with pytest.raises(RuntimeError) as e:
        c.numpy()
    assert str(e.value) == CONJ_NUMPY
    with pytest.raises(RuntimeError) as e:
        np.asarray(c)
    assert str(e.value) == CONJ_NUMPY
    with pytest.raises(RuntimeError) as e:
        c.imag.numpy()
    assert str(e.value) == NEG_NUMPY
    with pytest.raises(BufferError, match="^Can't export tensors with the conjugate bit set$"):
        c.__dlpack__()
    with pytest.raises(BufferError):
        pytensor.from_dlpack(c)
    with pytest.raises(TypeError):
        memoryview(c)
    np.testing.assert_array_equal(c.numpy(force=True), np.conj(a))
    np.testing.assert_array_equal(c.resolve_conj().numpy(), np.conj(a))


def test_python_values():
    a, x = _z((2, 2))
    c = x.conj()
    assert c.tolist() == np.conj(a).tolist()
    assert c[0, 1].item() == np.conj(a[0, 1])
    assert complex(c[1, 0]) == np.conj(a[1, 0])
    for back in (pickle.loads(pickle.dumps(c)), copy.deepcopy(c)):
        assert back.tolist() == np.conj(a).tolist()
    r = repr(pytensor.tensor([1 + 2j, 3 - 4j]).conj())
    assert r == repr(pytensor.tensor([1 - 2j, 3 + 4j]))
    assert repr(pytensor.tensor([1 + 2j]).conj().imag) == repr(pytensor.tensor([-2.0]))


def test_comparison_helpers_see_values():
    a, x = _z((3,))
    c = x.conj()
    assert bool((c == pytensor.tensor(np.conj(a))).all())
    assert not bool((c == x).all())
    np.testing.assert_array_equal(np.array(c.tolist()), np.conj(a))


def test_dispatch_keys_of_a_conj_tensor():
    from pytensor import _dispatch
    names = [_dispatch._key_name(k) for k in range(pytensor._C.lib.PT_KEY_COUNT)]
    assert names.index("Conjugate") < names.index("Negative") < names.index("AutogradCPU")
    assert names.index("Python") < names.index("Conjugate")


# ---------------------------------------------------------------- autograd
def test_conj_autograd_node_and_gradient():
    a, _ = _z((3,))
    x = pytensor.tensor(a).requires_grad_()
    c = x.conj()
    assert c.grad_fn.name() == "ConjBackward0" and c.is_conj() and c._is_view()
    (c * pytensor.tensor([1j, 2.0, 3.0])).abs().sum().backward()
    g = _vals(x.grad)
    x.grad = None
    (x.conj_physical() * pytensor.tensor([1j, 2.0, 3.0])).abs().sum().backward()
    np.testing.assert_allclose(g, _vals(x.grad), rtol=1e-12)
    n = pytensor.tensor([1.0, 2.0]).requires_grad_()
    assert n._neg_view().grad_fn.name() == "NegViewBackward0"


def test_conj_gradcheck():
    a, _ = _z((3,))
    x = pytensor.tensor(a).requires_grad_()
    w = pytensor.tensor([1 + 2j, -1j, 0.5])
    assert pytensor.autograd.gradcheck(lambda t: (t.conj() * w).sum().abs(), (x,))
    assert pytensor.autograd.gradcheck(lambda t: t.conj().imag * 2, (x,))
    assert pytensor.autograd.gradcheck(lambda t: (t.conj() @ t), (x,))
    assert pytensor.autograd.gradgradcheck(lambda t: (t.conj() * t * w).sum(), (x,))


def test_inplace_through_conj_view_history():
    a, _ = _z((3,))
    x = pytensor.tensor(a).requires_grad_()
    y = x * 1
    c = y.conj()
    c.mul_(pytensor.tensor([2.0, 1j, 1.0]))
    assert y.grad_fn.name() == "CopySlices"
    np.testing.assert_allclose(_vals(y.detach()), np.conj(np.conj(a) * [2, 1j, 1]), rtol=1e-12)
    w = pytensor.tensor([1.0, 2j, -1.0])
    (y * w).sum().abs().backward()
    g = _vals(x.grad)
    x2 = pytensor.tensor(a).requires_grad_()
    y2 = (x2.conj() * pytensor.tensor([2.0, 1j, 1.0])).conj()
    (y2 * w).sum().abs().backward()
    np.testing.assert_allclose(g, _vals(x2.grad), rtol=1e-10)


# ---------------------------------------------------------------- against torch
@requires_torch
@pytest.mark.parametrize("dtype", CDTYPES)
def test_against_torch(dtype):
    tdt = {pytensor.complex64: torch.complex64, pytensor.complex128: torch.complex128}[dtype]
    a, x = _z((3, 4), dtype, seed=5)
    tx = torch.tensor(a, dtype=tdt)
    c, tc = x.conj(), tx.conj()
    assert c.is_conj() == tc.is_conj()
    assert c.imag.is_neg() == tc.imag.is_neg()
    assert c.real.is_neg() == tc.real.is_neg()
    for f in [lambda t: t + 1, lambda t: t * t, lambda t: t.sum(0), lambda t: t.t() @ t,
              lambda t: t[1], lambda t: t.imag, lambda t: t.real, lambda t: t.exp(),
              lambda t: t.conj_physical(), lambda t: t.resolve_conj()]:
        np.testing.assert_allclose(_vals(f(c)), f(tc).resolve_conj().resolve_neg().numpy(), rtol=1e-5)
        assert f(c).is_conj() == f(tc).is_conj()
    for f in [lambda t: t.clone(), lambda t: t.contiguous(), lambda t: t.t().contiguous(),
              lambda t: t.view(12), lambda t: t[0]]:
        assert f(c).is_conj() == f(tc).is_conj()
    with pytest.raises(RuntimeError) as e:
        c.numpy()
    with pytest.raises(RuntimeError) as te:
        tc.numpy()
    assert str(e.value) == str(te.value)
    with pytest.raises(BufferError) as e:
        c.__dlpack__()
    with pytest.raises(BufferError) as te:
        tc.__dlpack__()
    assert str(e.value) == str(te.value)


@requires_torch
def test_autograd_names_against_torch():
    a, _ = _z((2,))
    x = pytensor.tensor(a).requires_grad_()
    tx = torch.tensor(a).requires_grad_()
    assert x.conj().grad_fn.name() == tx.conj().grad_fn.name()
    assert x.conj().imag.grad_fn.name() == tx.conj().imag.grad_fn.name()
    w = np.array([1 + 1j, 2 - 1j])
    (x.conj() * pytensor.tensor(w)).sum().abs().backward()
    (tx.conj() * torch.tensor(w)).sum().abs().backward()
    np.testing.assert_allclose(_vals(x.grad), tx.grad.resolve_conj().numpy(), rtol=1e-12)


def test_version_counter_through_conj_view():
    x = pytensor.tensor([1 + 1j, 2j])
    c = x.conj()
    v = x._version
    c.add_(1)
    assert x._version == c._version == v + 1  # one write, one bump, as in torch
    c[0] = 3j
    assert x._version == v + 2


def test_stale_conj_view_regenerates_a_conjugating_history():
    a, _ = _z((2,))
    w = pytensor.tensor([1j, 2.0])
    x = pytensor.tensor(a).requires_grad_()
    y = x * 1
    c = y.conj()
    y.mul_(2)  # c's history goes stale and is regenerated from y's
    (c * w).sum().abs().backward()
    x2 = pytensor.tensor(a).requires_grad_()
    ((x2 * 2).conj() * w).sum().abs().backward()
    np.testing.assert_allclose(_vals(x.grad), _vals(x2.grad), rtol=1e-12)
