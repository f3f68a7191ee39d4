"""index_add, index_copy, index_fill and put against NumPy (np.add.at for the accumulating
writes, fancy-index assignment for the others) and torch (values, dtypes, messages, node names,
gradients): every dim, repeated indices, negative indices where torch wraps them, int32 indices,
0-d tensors, non-contiguous selves written in place, out= forms, gradcheck in float64."""
import numpy as np
import pytest

import pytensor as pt

from _torch_oracle import requires_torch, torch

DTYPES = ["uint8", "int16", "int32", "int64", "float32", "float64", "complex64"]


def P(a, dtype=None):
    t = pt.from_numpy(np.ascontiguousarray(a).copy()).clone()
    return t.to(getattr(pt, dtype)) if dtype else t


def N(t):
    return t.detach().contiguous().numpy()


def data(shape, dtype, seed=0):
    a = np.random.default_rng(seed).integers(0, 9, shape)
    return a.astype(dtype)


# ---------------------------------------------------------------- index_add
@pytest.mark.parametrize("dtype", DTYPES)
def test_index_add_matches_add_at(dtype):
    a = data((4, 5, 3), dtype, seed=1)
    for dim in (0, 1, 2, -1):
        m = 6
        idx = np.random.default_rng(dim + 5).integers(0, a.shape[dim], m)
        shape = list(a.shape)
        shape[dim] = m
        src = data(shape, dtype, seed=2)
        want = a.copy()
        sl = [slice(None)] * 3
        sl[dim] = idx
        np.add.at(want, tuple(sl), src)
        got = pt.index_add(P(a), dim, P(idx), P(src))
        assert got.dtype == P(a).dtype
        np.testing.assert_array_equal(N(got), want)
        want2 = a.copy()
        np.add.at(want2, tuple(sl), src * 2)
        np.testing.assert_array_equal(N(P(a).index_add(dim, P(idx.astype(np.int32)), P(src),
                                                       alpha=2)), want2)


def test_index_add_in_place_views_out_and_zero_dim():
    a = np.arange(12.0).reshape(3, 4)
    x = P(a).t()                       # non-contiguous self, written in place
    r = x.index_add_(0, pt.tensor([3, 0, 3]), pt.ones(3, 3, dtype=pt.float64))
    assert r is x
    want = a.T.copy()
    np.add.at(want, [3, 0, 3], np.ones((3, 3)))
    np.testing.assert_array_equal(N(x), want)
    o = pt.empty(0, dtype=pt.float64)
    assert pt.index_add(P(a), 1, pt.tensor([1]), pt.ones(3, 1, dtype=pt.float64), out=o) is o
    assert pt.index_add(pt.tensor(5.0), 0, pt.tensor([0]), pt.tensor(2.0)).item() == 7.0


def test_index_add_errors():
    x = pt.zeros(3, 4)
    cases = [
        (lambda: x.index_add(0, pt.tensor([0.0, 2.0]), pt.ones(2, 4)), RuntimeError,
         "index_add_(): Expected dtype int32/int64 for index but got: Float"),
        (lambda: x.index_add(0, pt.tensor([[0, 2]]), pt.ones(2, 4)), IndexError,
         "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and "
         "size: [1, 2]"),
        (lambda: x.index_add(0, pt.tensor([0, 5]), pt.ones(2, 4)), RuntimeError,
         "index 5 is out of bounds for dimension 0 with size 3"),
        (lambda: x.index_add(0, pt.tensor([0, -1]), pt.ones(2, 4)), RuntimeError,
         "index -1 is out of bounds for dimension 0 with size 3"),
        (lambda: x.index_add(0, pt.tensor([0, 2, 1]), pt.ones(2, 4)), RuntimeError,
         "index_add_(): Number of indices (3) should be equal to source.size(dim): (2), for dim: 0"),
        (lambda: x.index_add(0, pt.tensor([0, 2]), pt.ones(2, 4, dtype=pt.float64)), RuntimeError,
         "index_add_(): self (Float) and source (Double) must have the same scalar type"),
        (lambda: x.index_add(0, pt.tensor([0, 2]), pt.ones(2, 3)), RuntimeError,
         "source tensor shape must match self tensor shape, excluding the specified dimension. "
         "Got self.shape = [3, 4] source.shape = [2, 3]"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as e:
            call()
        assert str(e.value) == message


# ---------------------------------------------------------------- index_copy, index_fill
@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
def test_index_copy_and_fill(dtype):
    a = data((4, 5), dtype, seed=3)
    for dim in (0, 1):
        idx = np.array([2, 0, 3]) if dim == 0 else np.array([4, 1, 0])
        shape = [4, 5]
        shape[dim] = 3
        src = data(shape, dtype, seed=4)
        want = a.copy()
        if dim == 0:
            want[idx] = src
        else:
            want[:, idx] = src
        np.testing.assert_array_equal(N(pt.index_copy(P(a), dim, P(idx), P(src))), want)
        filled = a.copy()
        fill = 1 if dtype != "bool" else True
        if dim == 0:
            filled[idx] = fill
        else:
            filled[:, idx] = fill
        np.testing.assert_array_equal(N(P(a).index_fill(dim, P(idx), fill)), filled)
        np.testing.assert_array_equal(N(P(a).index_fill(dim, P(idx - 4 if dim == 0 else idx - 5),
                                                        pt.tensor(fill))), filled)


def test_index_copy_fill_in_place_and_errors():
    a = np.arange(12.0).reshape(3, 4)
    x = P(a)[:, ::2]
    assert x.index_fill_(1, pt.tensor([1]), -2.0) is x
    assert N(x)[:, 1].tolist() == [-2.0, -2.0, -2.0]
    y = P(a).t()
    assert y.index_copy_(0, pt.tensor([3, 0]), pt.full((2, 3), 7.0, dtype=pt.float64)) is y
    assert N(y)[3].tolist() == [7.0] * 3 and N(y)[0].tolist() == [7.0] * 3
    assert pt.index_fill(pt.tensor(5.0), 0, pt.tensor(0), 2.0).item() == 2.0
    o = pt.empty(0, dtype=pt.float64)
    assert pt.index_fill(P(a), 0, pt.tensor([1]), 0.5, out=o) is o
    x = pt.zeros(3, 4)
    cases = [
        (lambda: x.index_copy(0, pt.tensor([0, 5]), pt.ones(2, 4)), IndexError,
         "index_copy_(): index 5 is out of bounds for dimension 0 with size 3"),
        (lambda: x.index_copy(0, pt.tensor([0, 2], dtype=pt.int32), pt.ones(2, 4)), RuntimeError,
         "index_copy_(): Expected a long tensor for index, but got Int"),
        (lambda: x.index_copy(0, pt.tensor([0, 2]), pt.ones(2, 4, dtype=pt.float64)), RuntimeError,
         "index_copy_(): self and source expected to have the same dtype, but got (self) Float "
         "and (source) Double"),
        (lambda: x.index_copy(0, pt.tensor([0, 2, 1]), pt.ones(2, 4)), IndexError,
         "index_copy_(): Number of indices (3) should be equal to source.size(dim) (2)"),
        (lambda: x.index_fill(0, pt.tensor([0, 5]), 1), IndexError,
         "index 5 is out of bounds for dimension 0 with size 3"),
        (lambda: x.index_fill(0, pt.tensor([0.0, 2.0]), 1), IndexError,
         "index_fill_(): Expected dtype int64 for index."),
        (lambda: x.index_fill(0, pt.tensor([0, 2]), pt.tensor([1.0, 2.0])), RuntimeError,
         "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
         "dimension(s)."),
        (lambda: x.index_fill(0, pt.tensor([[0, 2]]), 1), RuntimeError,
         "Index has to be a vector/scalar"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as e:
            call()
        assert str(e.value) == message


# ---------------------------------------------------------------- put
@pytest.mark.parametrize("dtype", DTYPES)
def test_put_matches_numpy(dtype):
    a = data((3, 4), dtype, seed=5)
    idx = np.array([0, 11, -1, 5, 5])
    src = data((5,), dtype, seed=6)
    acc = a.copy().reshape(-1)
    np.add.at(acc, idx, src)
    np.testing.assert_array_equal(N(pt.put(P(a), P(idx), P(src), accumulate=True)),
                                  acc.reshape(3, 4))
    u = np.array([0, 11, -2, 5])
    want = a.copy().reshape(-1)
    want[u] = src[:4]
    np.testing.assert_array_equal(N(P(a).put(P(u), P(src[:4]))), want.reshape(3, 4))
    np.testing.assert_array_equal(N(P(a).put(P(u.reshape(2, 2)), P(src[:4].reshape(2, 2)))),
                                  want.reshape(3, 4))


def test_put_in_place_on_a_view_and_errors():
    a = np.arange(6.0).reshape(2, 3)
    x = P(a).t()
    assert x.put_(pt.tensor([0, 5]), pt.tensor([9.0, 8.0], dtype=pt.float64)) is x
    want = a.T.copy().reshape(-1)
    want[[0, 5]] = [9.0, 8.0]
    np.testing.assert_array_equal(N(x), want.reshape(3, 2))
    o = pt.empty(0, dtype=pt.float64)
    assert pt.put(P(a), pt.tensor([1]), pt.tensor([3.0], dtype=pt.float64), out=o) is o
    z = pt.zeros(2, 3)
    cases = [
        (lambda: z.put(pt.tensor([0, 6]), pt.tensor([1.0, 2.0])), IndexError,
         "out of range: tried to access index 6 on a tensor of 6 elements."),
        (lambda: z.put(pt.tensor([0, 5]), pt.tensor([1.0, 2.0, 3.0])), IndexError,
         "put_(): Expected source and index to have the same number of elements, but got "
         "source.numel() = 3, index.numel() = 2"),
        (lambda: z.put(pt.tensor([0.0, 5.0]), pt.tensor([1.0, 2.0])), RuntimeError,
         "put_(): Expected a long tensor for index, but got Float"),
        (lambda: z.put(pt.tensor([0, 5]), pt.tensor([1.0, 2.0], dtype=pt.float64)), RuntimeError,
         "put_(): self and source expected to have the same dtype, but got self.dtype = Float and "
         "source.dtype = Double"),
        (lambda: pt.zeros(0).put(pt.tensor([0]), pt.tensor([1.0])), IndexError,
         "put_(): Tried to put elements into an empty tensor"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as e:
            call()
        assert str(e.value) == message


# ---------------------------------------------------------------- gradients
def _src(shape, seed):
    return P(np.random.default_rng(seed).standard_normal(shape)).requires_grad_()


GRADS = {
    "index_add": (lambda a, s: pt.index_add(a, 0, pt.tensor([0, 2, 0]), s, alpha=-1.5),
                  "IndexAddBackward0"),
    "index_copy": (lambda a, s: a.index_copy(0, pt.tensor([2, 0, 1]), s), "IndexCopyBackward0"),
    "index_fill": (lambda a, s: a.index_fill(1, pt.tensor([1, 3]), 3.0) * s,
                   "MulBackward0"),
    "index_fill_tensor": (lambda a, s: a.index_fill(1, pt.tensor([1, 3]), s[0, 0]),
                          "IndexFillBackward1"),
    "put_acc": (lambda a, s: a.put(pt.tensor([1, 5, 5]), s[0, :3], accumulate=True),
                "PutBackward0"),
    "put": (lambda a, s: a.put(pt.tensor([1, 5, 7]), s[0, :3]), "PutBackward0"),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(name):
    fn, node = GRADS[name]
    a, s = _src((3, 4), 1), _src((3, 4), 2)
    assert fn(a, s).grad_fn.name() == node
    assert pt.autograd.gradcheck(fn, (a, s))
    assert pt.index_fill(a, 0, pt.tensor([1]), 0.0).grad_fn.name() == "IndexFillBackward0"


@requires_torch
@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_match_torch(name):
    fn, _ = GRADS[name]
    ra, rs = np.random.default_rng(3).standard_normal((3, 4)), \
        np.random.default_rng(4).standard_normal((3, 4))

    ap, sp = P(ra).requires_grad_(), P(rs).requires_grad_()
    at = torch.from_numpy(ra.copy()).requires_grad_()
    st = torch.from_numpy(rs.copy()).requires_grad_()
    tfn = {
        "index_add": lambda a, s: torch.index_add(a, 0, torch.tensor([0, 2, 0]), s, alpha=-1.5),
        "index_copy": lambda a, s: a.index_copy(0, torch.tensor([2, 0, 1]), s),
        "index_fill": lambda a, s: a.index_fill(1, torch.tensor([1, 3]), 3.0) * s,
        "index_fill_tensor": lambda a, s: a.index_fill(1, torch.tensor([1, 3]), s[0, 0]),
        "put_acc": lambda a, s: a.put(torch.tensor([1, 5, 5]), s[0, :3], accumulate=True),
        "put": lambda a, s: a.put(torch.tensor([1, 5, 7]), s[0, :3]),
    }[name]
    yp, yt = fn(ap, sp), tfn(at, st)
    assert yp.grad_fn.name() == yt.grad_fn.name()
    np.testing.assert_allclose(N(yp), yt.detach().numpy(), rtol=1e-14)
    w = np.random.default_rng(5).standard_normal(tuple(yt.shape))
    (yp * P(w)).sum().backward()
    (yt * torch.from_numpy(w)).sum().backward()
    for gp, gt in ((ap.grad, at.grad), (sp.grad, st.grad)):
        if gt is None:
            assert gp is None or not N(gp).any()
        else:
            np.testing.assert_allclose(N(gp), gt.numpy(), rtol=1e-12)
