"""The composite shape and product operators of csrc/ops/shape_more.yaml and their Python forms
(pytensor/_functional_shape.py): einsum, tensordot, kron, inner, trace, the diagonals, the
scatters, the index factories, vander, the numpy-style stacking, moving and splitting helpers,
take_along_dim, repeat_interleave and the *_copy forms of the views.

Each operator is checked against NumPy (or itertools / exact arithmetic), which runs everywhere,
and against torch where it is installed: values, dtype, shape, strides and view-ness, grad_fn
names and error messages. Gradients are checked by gradcheck in float64.
"""
import itertools
import warnings

import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(7)


def P(a, requires_grad=False):
    return pytensor.tensor(np.asarray(a), requires_grad=requires_grad)


def T(a, requires_grad=False):
    return torch.tensor(np.asarray(a), requires_grad=requires_grad)


def rand(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def close(p, expected, tol=1e-6):
    got = p.detach().resolve_conj().numpy() if isinstance(p, pytensor.Tensor) else np.asarray(p)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def gradcheck(fn, *arrays):
    inputs = tuple(P(a, requires_grad=True) for a in arrays)
    assert pytensor.autograd.gradcheck(fn, inputs)


def node(t):
    return _name(t.grad_fn) if t.grad_fn is not None else None


def chain(t):
    """The first-input path of node names from t's grad_fn down to the leaves."""
    names, f = [], t.grad_fn
    while f is not None:
        names.append(_name(f))
        nxt = [n for n, _ in f.next_functions if n is not None and _name(n) != "AccumulateGrad"]
        f = nxt[0] if nxt else None
    return names


def _name(f):
    return (f.name() if hasattr(f, "name") else type(f).__name__).split("::")[-1]


def same_as_torch(fn, *arrays, grad=True, check_strides=True, tol=1e-6):
    """fn(L, *tensors) run with pytensor and torch on the same data: same values, dtype, shape,
    strides, and (when the inputs require grad) the same node chain."""
    want_grad = grad and all(np.asarray(a).dtype == np.float64 for a in arrays)
    p = fn(pytensor, *[P(a, want_grad) for a in arrays])
    t = fn(torch, *[T(a, want_grad) for a in arrays])
    ps, ts = (list(p), list(t)) if isinstance(p, (tuple, list)) else ([p], [t])
    assert len(ps) == len(ts)
    for a, b in zip(ps, ts):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        if check_strides and b.numel() > 1:
            assert a.stride() == b.stride(), (a.stride(), b.stride())
        close(a, b.detach().numpy(), tol)
        if want_grad:
            assert chain(a) == chain(b), (chain(a), chain(b))
    return ps


def raises_like_torch(fn, *arrays):
    with pytest.raises(Exception) as theirs:
        fn(torch, *[T(a) for a in arrays])
    with pytest.raises(type(theirs.value)) as ours:
        fn(pytensor, *[P(a) for a in arrays])
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


# ================================================================ einsum
EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->j", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ba", [(2, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("i...->...", [(2, 3, 4)]),
    ("...,...->...", [(2, 1), (3,)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ab,bc,cd,de->ae", [(2, 2), (2, 3), (3, 2), (2, 4)]),
    ("Ab,bA", [(2, 3), (3, 2)]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
    ("ij,kl->", [(2, 3), (4, 1)]),
    ("ij,j->i", [(3, 1), (4,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_numpy(eq, shapes):
    arrays = [rand(*s) for s in shapes]
    got = pytensor.einsum(eq, *[P(a) for a in arrays])
    close(got, np.einsum(eq.replace(" ", ""), *arrays))


@requires_torch
@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_torch_and_its_graph(eq, shapes):
    arrays = [rand(*s) for s in shapes]
    same_as_torch(lambda L, *xs: L.einsum(eq, *xs), *arrays, check_strides=False)


@pytest.mark.parametrize("eq,shapes", [e for e in EINSUM if len(e[1]) <= 3][:14])
def test_einsum_gradcheck(eq, shapes):
    gradcheck(lambda *xs: pytensor.einsum(eq, *xs), *[rand(*s) for s in shapes])


def test_einsum_sublist_and_list_forms():
    a, b = rand(2, 3), rand(3, 4)
    want = a @ b
    close(pytensor.einsum(P(a), [0, 1], P(b), [1, 2], [0, 2]), want)
    close(pytensor.einsum(P(a), [0, 1], P(b), [1, 2]), want)
    c = rand(2, 3, 4)
    close(pytensor.einsum(P(c), [..., 1], [1]), c.sum((0, 1)))
    close(pytensor.einsum(P(c), [0, Ellipsis, 1], [Ellipsis, 0]),
          np.einsum("a...b->...a", c))
    close(pytensor.einsum("ij,jk", [P(a), P(b)]), want)
    with pytest.raises(ValueError, match="subscript in subscript list is not within the valid"):
        pytensor.einsum(P(a), [0, 60])
    with pytest.raises(ValueError, match="must specify the equation string and at least one"):
        pytensor.einsum("ij")


def test_einsum_integers_empty_and_noncontiguous():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    close(pytensor.einsum("ij,kj->ik", P(a), P(a)), np.einsum("ij,kj->ik", a, a))
    close(pytensor.einsum("ij->", P(a)), a.sum())
    e = pytensor.einsum("ij,jk->ik", pytensor.ones(2, 0), pytensor.ones(0, 3))
    close(e, np.zeros((2, 3)))
    x = rand(4, 5)
    close(pytensor.einsum("ij,jk->ik", P(x).t(), P(x).flip(0)), x.T @ x[::-1])


EINSUM_ERRORS = [
    ("i.j,jk", [(2, 3), (3, 4)]), ("i...j...,jk", [(2, 3), (3, 4)]),
    ("ij,jk->ik->", [(2, 3), (3, 4)]), ("i1,jk", [(2, 3), (3, 4)]),
    ("ijk,jk", [(2, 3), (3, 4)]), ("ii,jk", [(2, 3), (3, 4)]),
    ("ij,jk->ii", [(2, 3), (3, 4)]), ("ij,jk->m", [(2, 3), (3, 4)]),
    ("ij,jk->..", [(2, 3), (3, 4)]), ("...,jk->......", [(2, 3), (3, 4)]),
    ("ij", [(2, 3), (3, 4)]), ("ij,jk,kl", [(2, 3), (3, 4)]),
    ("ij,ij->i", [(2, 3), (4, 3)]), ("...ij,...jk->...ik", [(2, 2, 3), (3, 3, 4)]),
    ("ijk...,jk", [(2, 3), (3, 4)]),
]


@requires_torch
@pytest.mark.parametrize("eq,shapes", EINSUM_ERRORS, ids=[e for e, _ in EINSUM_ERRORS])
def test_einsum_errors_are_torchs(eq, shapes):
    raises_like_torch(lambda L, *xs: L.einsum(eq, *xs), *[rand(*s) for s in shapes])


# ================================================================ tensordot, inner, kron
@pytest.mark.parametrize("dims", [2, 1, 0, ([1, 2], [0, 1]), ([2], [1]), (1, 0)])
def test_tensordot_matches_numpy(dims):
    a, b = rand(2, 3, 4), rand(3, 4, 5)
    if dims == ([2], [1]):
        b = rand(3, 4, 5)
        want = np.tensordot(a, b, axes=([2], [1]))
    elif dims == (1, 0):
        b = rand(3, 5)
        a = rand(2, 3)
        want = np.tensordot(a, b, axes=(1, 0))
    else:
        if dims == 1:
            b = rand(4, 5)
        if dims == 0:
            b = rand(5)
        want = np.tensordot(a, b, axes=dims)
    close(pytensor.tensordot(P(a), P(b), dims=dims), want)


def test_tensordot_tensor_dims_out_and_grad():
    a, b = rand(2, 3, 4), rand(3, 4, 5)
    close(pytensor.tensordot(P(a), P(b), dims=pytensor.tensor(2)), np.tensordot(a, b, 2))
    close(pytensor.tensordot(P(a), P(b), dims=pytensor.tensor([[1, 2], [0, 1]])),
          np.tensordot(a, b, ([1, 2], [0, 1])))
    out = pytensor.empty(0, dtype=pytensor.float64)
    r = pytensor.tensordot(P(a), P(b), dims=2, out=out)
    assert r is out
    close(out, np.tensordot(a, b, 2))
    gradcheck(lambda x, y: pytensor.tensordot(x, y, dims=([1], [0])), a, b)
    # a size-1 contracted dim is summed on the other side
    c, d = rand(2, 1), rand(3, 4)
    close(pytensor.tensordot(P(c), P(d), dims=([1], [0])),
          np.tensordot(c, d.sum(0, keepdims=True), ([1], [0])))


@requires_torch
def test_tensordot_inner_kron_match_torch():
    same_as_torch(lambda L, a, b: L.tensordot(a, b, dims=([1, 0], [0, 1])), rand(3, 2, 4),
                  rand(2, 3, 5))
    same_as_torch(lambda L, a, b: L.inner(a, b), rand(2, 3), rand(4, 3))
    same_as_torch(lambda L, a, b: L.inner(a, b), rand(3), rand(3))
    same_as_torch(lambda L, a, b: L.inner(a, b), np.array(2.0), rand(3))
    same_as_torch(lambda L, a, b: L.kron(a, b), rand(2, 3), rand(3, 2))
    same_as_torch(lambda L, a, b: a.kron(b), rand(2), rand(2, 3, 1))
    same_as_torch(lambda L, a, b: L.tensordot(a, b, 1), rand(3), rand(3))
    same_as_torch(lambda L, a, b: L.tensordot(a, b, 2), rand(2, 3), rand(2, 3))
    same_as_torch(lambda L, a, b: L.tensordot(a, b, 1), rand(1, 3), rand(3))
    raises_like_torch(lambda L, a, b: L.kron(a.t(), b), rand(2, 3), rand(2))
    for fn, shapes in [(lambda L, a, b: L.tensordot(a, b, ([0], [1])), [(3, 4), (3, 4)]),
                       (lambda L, a, b: L.tensordot(a, b, ([0, 1], [1])), [(3, 4), (3, 4)]),
                       (lambda L, a, b: L.tensordot(a, b, dims=-1), [(3, 4), (3, 4)]),
                       (lambda L, a, b: L.tensordot(a, b, dims=3), [(3, 4), (3, 4)]),
                       (lambda L, a, b: L.inner(a, b), [(3, 4), (3,)])]:
        raises_like_torch(fn, *[rand(*s) for s in shapes])


def test_inner_kron_match_numpy_and_gradcheck():
    a, b = rand(2, 3), rand(4, 3)
    close(pytensor.inner(P(a), P(b)), np.inner(a, b))
    close(P(a).inner(P(b)), np.inner(a, b))
    close(pytensor.kron(P(a), P(b)), np.kron(a, b))
    ia = np.arange(6, dtype=np.int32).reshape(2, 3)
    k = pytensor.kron(P(ia), P(ia))
    assert k.dtype == pytensor.int32
    close(k, np.kron(ia, ia))
    close(pytensor.kron(P(a)[:, ::2], P(rand(2)).flip(0)).shape, np.zeros(2) + [2, 4])
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert pytensor.kron(P(a), P(b), out=out) is out
    close(out, np.kron(a, b))
    gradcheck(pytensor.kron, rand(2, 2), rand(2, 3))
    gradcheck(pytensor.inner, a, b)


# ================================================================ trace and the diagonals
def test_trace_matches_numpy_dtypes_and_grad():
    for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8):
        a = (rand(3, 4) * 10).astype(dt)
        t = pytensor.trace(P(a))
        close(t, np.trace(a).astype(t.numpy().dtype))
    assert pytensor.trace(P(np.ones((2, 2), np.int16))).dtype == pytensor.int64
    m = rand(4, 3)
    close(P(m).t().trace(), np.trace(m.T))
    close(P(m).flip(0).trace(), np.trace(m[::-1]))
    gradcheck(pytensor.trace, rand(3, 5))
    assert pytensor.autograd.gradgradcheck(pytensor.trace, (P(rand(3, 3), True),))
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 1"):
        pytensor.trace(pytensor.ones(3))


@requires_torch
def test_trace_diag_match_torch():
    same_as_torch(lambda L, a: L.trace(a), rand(3, 4))
    same_as_torch(lambda L, a: L.trace(a), np.arange(6).reshape(2, 3))
    for k in (-2, 0, 1, 5):
        same_as_torch(lambda L, a: L.diag(a, k), rand(3))
        same_as_torch(lambda L, a: L.diag(a, k), rand(3, 4))
        same_as_torch(lambda L, a: a.diagflat(k), rand(2, 2))
    same_as_torch(lambda L, a: L.diag_embed(a), rand(2, 3))
    same_as_torch(lambda L, a: L.diag_embed(a, 1, 0, 2), rand(2, 3))
    same_as_torch(lambda L, a: L.diag_embed(a, -1, -1, 0), rand(2, 3))
    for fn, shapes in [(lambda L, a: L.trace(a), [(3,)]),
                       (lambda L, a: L.diag(a), [(2, 2, 2)]),
                       (lambda L, a: L.diag_embed(a, 0, 1, 1), [(2, 3)]),
                       (lambda L, a: L.trace(a), [(2, 2)])]:
        arrays = [rand(*s) for s in shapes]
        if shapes == [(2, 2)]:
            arrays = [np.ones((2, 2), dtype=bool)]
        raises_like_torch(fn, *arrays)


def test_diag_family_matches_numpy_and_gradcheck():
    v, m = rand(4), rand(3, 5)
    for k in (-3, -1, 0, 2, 7):
        close(pytensor.diag(P(v), k), np.diag(v, k))
        close(pytensor.diag(P(m), k), np.diag(m, k))
        close(pytensor.diagflat(P(m), k), np.diagflat(m, k))
    close(pytensor.diag(P(m).t()), np.diag(m.T))
    e = pytensor.diag_embed(P(m))
    want = np.zeros((3, 5, 5))
    for i in range(3):
        want[i] = np.diag(m[i])
    close(e, want)
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert pytensor.diag(P(v), 1, out=out) is out
    close(out, np.diag(v, 1))
    gradcheck(lambda x: pytensor.diag_embed(x, 1, 0, 2), rand(2, 3))
    gradcheck(lambda x: pytensor.diag(x, -1), m)
    gradcheck(lambda x: pytensor.diagflat(x, 1), rand(2, 2))
    b = pytensor.diag(P(np.array([True, False])))
    assert b.dtype == pytensor.bool and b.tolist() == [[True, False], [False, False]]


# ================================================================ the scatters
SCATTERS = [
    (lambda L, a, s: L.diagonal_scatter(a, s), [(3, 4), (3,)]),
    (lambda L, a, s: L.diagonal_scatter(a, s, 1), [(3, 4), (3,)]),
    (lambda L, a, s: a.diagonal_scatter(s, -1, 1, 0), [(3, 4), (3,)]),
    (lambda L, a, s: L.select_scatter(a, s, 0, 1), [(3, 4), (4,)]),
    (lambda L, a, s: L.select_scatter(a, s, 1, -1), [(3, 4), (3,)]),
    (lambda L, a, s: L.slice_scatter(a, s, 0, 0, 2), [(4, 3), (2, 3)]),
    (lambda L, a, s: L.slice_scatter(a, s, 1, 1, None, 2), [(4, 5), (4, 2)]),
    (lambda L, a, s: a.slice_scatter(s), [(4, 3), (4, 3)]),
    (lambda L, a, s: L.as_strided_scatter(a, s, (2, 2), (1, 2)), [(3, 3), (2, 2)]),
    (lambda L, a, s: L.as_strided_scatter(a, s, (3,), (4,), 0), [(3, 3), (3,)]),
]


def test_scatters_match_numpy():
    a = rand(4, 5)
    s = rand(4)
    want = a.copy()
    np.fill_diagonal(want, s)
    close(pytensor.diagonal_scatter(P(a), P(s)), want)
    want = a.copy()
    want[:, 2] = s
    close(pytensor.select_scatter(P(a), P(s), 1, 2), want)
    src = rand(2, 5)
    want = a.copy()
    want[1:4:2] = src
    close(pytensor.slice_scatter(P(a), P(src), 0, 1, 4, 2), want)
    src = rand(4)
    want = a.copy().reshape(-1)
    want[[0, 6, 12, 18]] = src
    close(pytensor.as_strided_scatter(P(a), P(src), (4,), (6,)), want.reshape(4, 5))
    x = P(a)
    pytensor.diagonal_scatter(x, P(s))
    close(x, a)  # self is not written
    i = np.arange(12, dtype=np.int32).reshape(3, 4)
    r = pytensor.select_scatter(P(i), pytensor.zeros(4, dtype=pytensor.int32), 0, 0)
    assert r.dtype == pytensor.int32 and r[0].tolist() == [0, 0, 0, 0]
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert pytensor.select_scatter(P(a), P(rand(5)), 0, 0, out=out) is out


@requires_torch
@pytest.mark.parametrize("k", range(len(SCATTERS)))
def test_scatters_match_torch(k):
    fn, shapes = SCATTERS[k]
    same_as_torch(fn, *[rand(*s) for s in shapes])


@pytest.mark.parametrize("k", range(len(SCATTERS)))
def test_scatters_gradcheck(k):
    fn, shapes = SCATTERS[k]
    gradcheck(lambda a, s: fn(pytensor, a, s), *[rand(*s) for s in shapes])


@requires_torch
def test_scatter_errors_are_torchs():
    for fn, shapes in [(lambda L, a, s: L.diagonal_scatter(a, s), [(3, 4), (4,)]),
                       (lambda L, a, s: L.select_scatter(a, s, 0, 0), [(3, 4), (3,)]),
                       (lambda L, a, s: L.slice_scatter(a, s, 0, 0, 1), [(3, 4), (2, 4)]),
                       (lambda L, a, s: L.as_strided_scatter(a, s, (3,), (1,)), [(3, 4), (2,)])]:
        raises_like_torch(fn, *[rand(*s) for s in shapes])


# ================================================================ factories
@pytest.mark.parametrize("row,col,off", [(3, 3, 0), (4, 3, 1), (3, 5, -1), (0, 3, 0),
                                         (3, 4, 10), (3, 4, -10), (1, 1, 0)])
def test_tri_indices_match_numpy(row, col, off):
    lo = pytensor.tril_indices(row, col, off)
    hi = pytensor.triu_indices(row, col, off)
    assert lo.dtype == pytensor.int64 and lo.shape[0] == 2
    close(lo, np.array(np.tril_indices(row, off, col)).reshape(2, -1))
    close(hi, np.array(np.triu_indices(row, off, col)).reshape(2, -1))
    i32 = pytensor.tril_indices(row, col, off, dtype=pytensor.int32)
    assert i32.dtype == pytensor.int32 and i32.tolist() == lo.tolist()


@requires_torch
def test_tri_indices_match_torch():
    for args in [(3, 3), (4, 3, 1), (3, 5, -2), (0, 0), (5, 2, 3)]:
        for name in ("tril_indices", "triu_indices"):
            assert getattr(pytensor, name)(*args).tolist() == getattr(torch, name)(*args).tolist()
    for fn in [lambda L: L.tril_indices(-1, 3), lambda L: L.triu_indices(3, -2),
               lambda L: L.tril_indices(3, 3, dtype=L.float32)]:
        raises_like_torch(fn)
    out = pytensor.empty(0, dtype=pytensor.int64)
    assert pytensor.triu_indices(3, 3, out=out) is out
    assert out.tolist() == torch.triu_indices(3, 3).tolist()


@pytest.mark.parametrize("n,inc", [(None, False), (2, False), (5, True), (0, False), (1, True)])
def test_vander_matches_numpy(n, inc):
    x = np.array([1.5, -2.0, 3.0])
    close(pytensor.vander(P(x), n, inc), np.vander(x, n, inc))
    xi = np.array([1, 2, 3], dtype=np.int32)
    v = pytensor.vander(P(xi), n, increasing=inc)
    assert v.dtype == pytensor.int64
    close(v, np.vander(xi, n, inc))


def test_vander_gradcheck_and_errors():
    gradcheck(lambda x: pytensor.vander(x, 4), rand(3))
    gradcheck(lambda x: pytensor.vander(x, 3, True), rand(4))
    with pytest.raises(RuntimeError, match="x must be a one-dimensional tensor."):
        pytensor.vander(pytensor.ones(2, 2))
    with pytest.raises(RuntimeError, match="N must be non-negative."):
        pytensor.vander(pytensor.ones(2), -1)


# ================================================================ stacking and atleast
def test_atleast_match_numpy_and_return_self():
    for a in (np.array(1.5), rand(3), rand(2, 3), rand(2, 3, 4), rand(1, 2, 3, 4)):
        for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
            got = getattr(pytensor, name)(P(a))
            assert tuple(got.shape) == getattr(np, name)(a).shape
            close(got, getattr(np, name)(a))
    x = P(rand(2, 3, 4))
    assert pytensor.atleast_3d(x) is x
    pair = pytensor.atleast_2d(P(rand(3)), P(np.array(1.0)))
    assert isinstance(pair, tuple) and [tuple(t.shape) for t in pair] == [(1, 3), (1, 1)]
    assert [tuple(t.shape) for t in pytensor.atleast_1d([P(rand(2)), P(np.array(2.0))])] == \
        [(2,), (1,)]


@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (2, 3)], [(2, 3, 1), (2, 3, 2)],
                                    [(), ()]])
def test_stacks_match_numpy(name, shapes):
    if name == "dstack" and shapes[0] == (2, 3, 1):
        shapes = [(2, 3, 1), (2, 3, 2)]
    if name in ("vstack", "row_stack") and shapes[0] == (2, 3, 1):
        shapes = [(2, 3, 2), (1, 3, 2)]
    if name == "hstack" and shapes[0] == (2, 3, 1):
        shapes = [(2, 3, 1), (2, 1, 1)]
    if name == "column_stack" and shapes[0] == (2, 3, 1):
        shapes = [(2, 3, 1), (2, 2, 1)]
    arrays = [rand(*s) for s in shapes]
    npname = "vstack" if name == "row_stack" else name
    want = getattr(np, npname)(arrays)
    got = getattr(pytensor, name)([P(a) for a in arrays])
    close(got, want)
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert getattr(pytensor, name)([P(a) for a in arrays], out=out) is out
    close(out, want)


@requires_torch
def test_stacks_and_concat_match_torch():
    for name in ("hstack", "vstack", "row_stack", "dstack", "column_stack"):
        same_as_torch(lambda L, a, b: getattr(L, name)([a, b]), rand(3), rand(3))
        same_as_torch(lambda L, a, b: getattr(L, name)((a, b)), rand(2, 3), rand(2, 3))
        raises_like_torch(lambda L: getattr(L, name)([]))
    for name in ("concat", "concatenate"):
        same_as_torch(lambda L, a, b: getattr(L, name)([a, b], 1), rand(2, 3), rand(2, 1))
        same_as_torch(lambda L, a, b: getattr(L, name)([a, b], dim=-2), rand(2, 3), rand(1, 3))
    same_as_torch(lambda L, a: L.atleast_3d(a), rand(3))
    same_as_torch(lambda L, a: L.atleast_2d(a), np.array(3.0))
    gradcheck(lambda a, b: pytensor.column_stack([a, b]), rand(3), rand(3, 2))


# ================================================================ moving and reshaping views
def _is_view_of(v, base):
    return v._base is base or v.data_ptr() == base.data_ptr() and v._base is not None


def test_movedim_family_matches_numpy_and_views():
    a = rand(2, 3, 4, 5)
    x = P(a)
    for src, dst in [(0, -1), ([0, 1], [2, 0]), ([3], [0]), ((1, 2), (3, 0)), (-1, 1)]:
        want = np.moveaxis(a, src, dst)
        for fn in (pytensor.movedim, pytensor.moveaxis, x.movedim, x.moveaxis):
            got = fn(x, src, dst) if fn in (pytensor.movedim, pytensor.moveaxis) else fn(src, dst)
            close(got, want)
            assert got._base is x
    close(pytensor.swapaxes(x, 0, 2), np.swapaxes(a, 0, 2))
    close(pytensor.swapdims(x, 1, -1), np.swapaxes(a, 1, -1))
    close(x.ravel(), a.ravel())
    assert x.ravel()._base is x
    flat = x.transpose(0, 1).ravel()
    assert flat._base is not x and flat.data_ptr() != x.data_ptr()
    close(P(a).transpose(0, 1).ravel(), a.transpose(1, 0, 2, 3).ravel())
    close(x.unflatten(1, (3, 1)), a.reshape(2, 3, 1, 4, 5))
    close(pytensor.unflatten(x, -1, (-1, 5)), a.reshape(2, 3, 4, 1, 5))
    close(x.broadcast_to((3, 2, 3, 4, 5)), np.broadcast_to(a, (3, 2, 3, 4, 5)))
    close(pytensor.broadcast_to(P(rand(3, 1)), (2, 3, 4)).shape, np.array([2, 3, 4]))
    m = rand(3, 4)
    close(pytensor.flipud(P(m)), np.flipud(m))
    close(pytensor.fliplr(P(m)), np.fliplr(m))
    for k in range(-5, 6):
        close(pytensor.rot90(P(m), k), np.rot90(m, k))
        close(P(a).rot90(k, [1, 3]), np.rot90(a, k, (1, 3)))
    c = np.array([[1 + 2j, 3 - 1j]])
    close(P(c).adjoint(), c.conj().T)
    close(P(c).mH, c.conj().T)
    close(P(c).H, c.conj().T)
    close(P(m).mH, m.T)


@requires_torch
def test_moving_views_match_torch():
    same_as_torch(lambda L, a: a.movedim([0, 1], [2, 0]), rand(2, 3, 4))
    same_as_torch(lambda L, a: L.moveaxis(a, -1, 0), rand(2, 3, 4))
    same_as_torch(lambda L, a: L.swapaxes(a, 0, 1), rand(2, 3))
    same_as_torch(lambda L, a: a.ravel(), rand(2, 3))
    same_as_torch(lambda L, a: a.t().ravel(), rand(2, 3))
    same_as_torch(lambda L, a: a.unflatten(1, (2, -1)), rand(2, 6))
    same_as_torch(lambda L, a: a.broadcast_to((4, 2, 3)), rand(2, 3))
    same_as_torch(lambda L, a: L.flipud(a), rand(2, 3))
    same_as_torch(lambda L, a: a.fliplr(), rand(2, 3))
    for k in (-1, 0, 1, 2, 3):
        same_as_torch(lambda L, a: L.rot90(a, k), rand(2, 3))
        same_as_torch(lambda L, a: a.rot90(k, [2, 0]), rand(2, 3, 4))
    same_as_torch(lambda L, a: a.adjoint(), rand(2, 3, 4))
    c = np.array([[1 + 2j, 3 - 1j], [0.5j, 2]])
    p, t = P(c).adjoint(), T(c).adjoint()
    assert p.is_conj() == t.is_conj() and p.stride() == t.stride()
    assert P(c).mH.is_conj() == T(c).mH.is_conj()
    for fn, shapes in [(lambda L, a: a.movedim([0, 1], [0]), [(3, 4)]),
                       (lambda L, a: a.movedim([0, 0], [0, 1]), [(3, 4)]),
                       (lambda L, a: a.movedim([0, 1], [1, 1]), [(3, 4)]),
                       (lambda L, a: a.movedim(2, 0), [(3, 4)]),
                       (lambda L, a: a.adjoint(), [(3,)]), (lambda L, a: a.mH, [(3,)]),
                       (lambda L, a: a.unflatten(1, (3, 2)), [(3, 4)]),
                       (lambda L, a: a.unflatten(1, ()), [(3, 4)]),
                       (lambda L, a: a.flipud(), [()]), (lambda L, a: a.fliplr(), [(3,)]),
                       (lambda L, a: a.rot90(1, [0]), [(3, 4)]),
                       (lambda L, a: a.rot90(1, [0, 0]), [(3, 4)]),
                       (lambda L, a: a.rot90(1, [0, -2]), [(3, 4)]),
                       (lambda L, a: a.rot90(), [(3,)]),
                       (lambda L, a: a.broadcast_to((2, 4)), [(3, 4)])]:
        raises_like_torch(fn, *[rand(*s) for s in shapes])


def test_moving_gradcheck():
    gradcheck(lambda x: pytensor.rot90(x, 1, [0, 2]), rand(2, 3, 4))
    gradcheck(lambda x: pytensor.rot90(x, -1), rand(2, 3))
    gradcheck(lambda x: x.movedim([0, 2], [1, 0]), rand(2, 3, 4))
    gradcheck(lambda x: x.t().ravel(), rand(2, 3))
    gradcheck(lambda x: pytensor.fliplr(x), rand(2, 3))
    gradcheck(lambda x: x.broadcast_to((2, 3, 3)), rand(3, 1))


# ================================================================ splitting
@pytest.mark.parametrize("spec", [3, 1, 7, [1, 4], [2, 2, 9], [], [-2], (0, 3)])
def test_tensor_split_matches_numpy(spec):
    a = rand(6, 4)
    want = np.array_split(a, spec, axis=0) if isinstance(spec, int) else np.split(a, spec, 0)
    got = pytensor.tensor_split(P(a), spec)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w)
    x = P(a)
    for g in x.tensor_split(spec, dim=0):
        assert g._base is x
    t_spec = pytensor.tensor(spec if not isinstance(spec, tuple) else list(spec),
                             dtype=pytensor.int64)
    if isinstance(spec, list) and not spec:
        return
    for g, w in zip(pytensor.tensor_split(P(a), t_spec), want):
        close(g, w)


def test_hsplit_vsplit_dsplit_match_numpy():
    a = rand(4, 6, 2)
    for name in ("hsplit", "vsplit", "dsplit"):
        for spec in (2, [1, 3]):
            want = getattr(np, name)(a, spec)
            got = getattr(pytensor, name)(P(a), spec)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                close(g, w)
    for g, w in zip(pytensor.hsplit(P(rand(6)), 3), np.hsplit(np.arange(6), 3)):
        assert tuple(g.shape) == w.shape


@requires_torch
def test_splits_match_torch():
    for spec in (3, [1, 4], pytensor.tensor([1, 2]), pytensor.tensor(2)):
        tspec = torch.tensor(spec.tolist()) if isinstance(spec, pytensor.Tensor) else spec
        ps = pytensor.tensor_split(P(rand(5, 2)), spec, 0)
        ts = torch.tensor_split(T(rand(5, 2)), tspec, 0)
        assert [tuple(p.shape) for p in ps] == [tuple(t.shape) for t in ts]
    same_as_torch(lambda L, a: L.tensor_split(a, 2, 1), rand(2, 5))
    same_as_torch(lambda L, a: a.hsplit([1]), rand(2, 5))
    for fn, shapes in [(lambda L, a: L.tensor_split(a, 0), [(3,)]),
                       (lambda L, a: L.tensor_split(a, 2), [()]),
                       (lambda L, a: L.hsplit(a, 3), [(2, 4)]),
                       (lambda L, a: L.vsplit(a, 2), [(4,)]),
                       (lambda L, a: L.dsplit(a, 2), [(4, 2)]),
                       (lambda L, a: L.tensor_split(a, L.tensor([[1]])), [(4,)]),
                       (lambda L, a: L.tensor_split(a, L.tensor([1.0])), [(4,)])]:
        raises_like_torch(fn, *[rand(*s) for s in shapes])


# ================================================================ broadcasting and meshgrid
def test_broadcast_family_matches_numpy():
    assert pytensor.broadcast_shapes((2, 1), (3,), (4, 1, 1)) == np.broadcast_shapes(
        (2, 1), (3,), (4, 1, 1))
    assert pytensor.broadcast_shapes(2, (3, 1)) == (3, 2)
    assert pytensor.broadcast_shapes() == ()
    with pytest.raises(RuntimeError, match="Shape mismatch: objects cannot be broadcast"):
        pytensor.broadcast_shapes((2,), (3,))
    a, b = rand(2, 1), rand(3)
    x, y = pytensor.broadcast_tensors(P(a), P(b))
    wx, wy = np.broadcast_arrays(a, b)
    close(x, wx)
    close(y, wy)
    assert y.stride() == (0, 1)
    z = P(rand(2, 3))
    assert pytensor.broadcast_tensors(z, P(b))[0] is z


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = rand(2), rand(3), rand(4)
    got = pytensor.meshgrid(P(a), P(b), P(c), indexing=indexing)
    want = np.meshgrid(a, b, c, indexing=indexing)
    for g, w in zip(got, want):
        close(g, w)
    got = pytensor.meshgrid([P(a), P(b)], indexing=indexing)
    for g, w in zip(got, np.meshgrid(a, b, indexing=indexing)):
        close(g, w)
    assert pytensor.meshgrid(P(np.array(1.0)), indexing=indexing)[0].shape == (1,)


@requires_torch
def test_meshgrid_warning_and_errors_match_torch():
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        grids = pytensor.meshgrid(P(rand(2)), P(rand(3)))
    assert tuple(grids[0].shape) == (2, 3)
    assert any("it will be required to pass the indexing argument" in str(w.message)
               and w.category is UserWarning for w in ours)
    same_as_torch(lambda L, a, b: L.meshgrid(a, b, indexing="xy"), rand(2), rand(3))
    same_as_torch(lambda L, a, b: L.broadcast_tensors(a, b), rand(2, 1), rand(3))
    for fn, shapes in [(lambda L, a: L.meshgrid(a, a, indexing="foo"), [(2,)]),
                       (lambda L: L.meshgrid(indexing="ij"), [])]:
        raises_like_torch(fn, *[rand(*s) for s in shapes])


# ================================================================ take_along_dim, repeat_interleave
def test_take_along_dim_matches_numpy():
    a = rand(3, 4)
    idx = np.argsort(a, axis=1)
    close(pytensor.take_along_dim(P(a), P(idx), 1), np.take_along_axis(a, idx, 1))
    close(P(a).take_along_dim(P(idx[:, :2]), dim=-1), np.take_along_axis(a, idx[:, :2], 1))
    idx0 = np.array([[2, 0, 1, 1]])
    close(pytensor.take_along_dim(P(a), P(idx0), 0), np.take_along_axis(a, idx0, 0))
    flat = np.array([0, 5, 11])
    close(pytensor.take_along_dim(P(a), P(flat)), np.take_along_axis(a.ravel(), flat, 0))
    # indices broadcast against self outside dim
    close(pytensor.take_along_dim(P(rand(3, 1)), P(np.zeros((3, 4), np.int64)), 1).shape,
          np.array([3, 4]))
    gradcheck(lambda x: pytensor.take_along_dim(x, P(idx), 1), a)
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert pytensor.take_along_dim(P(a), P(idx), 1, out=out) is out


@requires_torch
def test_take_along_dim_matches_torch():
    idx = np.array([[0], [1], [2]])
    same_as_torch(lambda L, a: L.take_along_dim(a, L.tensor(idx), 1), rand(3, 4))
    same_as_torch(lambda L, a: L.take_along_dim(a, L.tensor([0, 3])), rand(3, 4))
    for fn in [lambda L, a: L.take_along_dim(a, L.tensor([0]), 1),
               lambda L, a: L.take_along_dim(a, L.tensor([[0.0]]), 1)]:
        raises_like_torch(fn, rand(3, 4))


def test_repeat_interleave_matches_numpy():
    a = rand(2, 3)
    close(pytensor.repeat_interleave(P(a), 2), np.repeat(a, 2))
    close(P(a).repeat_interleave(3, dim=1), np.repeat(a, 3, axis=1))
    close(P(a).repeat_interleave(0, dim=0), np.repeat(a, 0, axis=0))
    r = np.array([1, 0, 2])
    close(P(a).repeat_interleave(P(r), dim=1), np.repeat(a, r, axis=1))
    close(P(a).repeat_interleave(P(np.array(2)), dim=0), np.repeat(a, 2, axis=0))
    close(pytensor.repeat_interleave(P(r)), np.repeat(np.arange(3), r))
    r32 = pytensor.repeat_interleave(P(r.astype(np.int32)))
    assert r32.dtype == pytensor.int32
    close(pytensor.repeat_interleave(P(r), output_size=3), np.repeat(np.arange(3), r))
    close(pytensor.repeat_interleave(P(np.array(2.5)), 3), np.repeat(2.5, 3))
    big = np.arange(40000.0)
    close(pytensor.repeat_interleave(P(big), 2), np.repeat(big, 2))
    gradcheck(lambda x: x.repeat_interleave(2, dim=1), a)
    gradcheck(lambda x: x.repeat_interleave(P(r), dim=1), a)


@requires_torch
def test_repeat_interleave_matches_torch():
    same_as_torch(lambda L, a: a.repeat_interleave(2), rand(3))
    same_as_torch(lambda L, a: a.repeat_interleave(2, dim=0), rand(2, 3))
    same_as_torch(lambda L, a: a.repeat_interleave(L.tensor([1, 2, 0]), dim=1), rand(2, 3))
    same_as_torch(lambda L: L.repeat_interleave(L.tensor([1, 2, 0])))
    for fn in [lambda L: L.repeat_interleave(L.tensor([[1]])),
               lambda L: L.repeat_interleave(L.tensor([1.0])),
               lambda L: L.repeat_interleave(L.tensor([1, -1])),
               lambda L: L.ones(3).repeat_interleave(L.tensor([1, 2]), dim=0),
               lambda L: L.ones(3).repeat_interleave(-1),
               lambda L: L.repeat_interleave(L.tensor([1, 2]), output_size=5),
               lambda L: L.ones(3).repeat_interleave(L.ones(2, 2, dtype=L.long))]:
        raises_like_torch(fn)


# ================================================================ the *_copy forms
COPIES = [
    ("alias_copy", lambda L, a: L.alias_copy(a), (2, 3)),
    ("as_strided_copy", lambda L, a: L.as_strided_copy(a, (2, 2), (1, 3)), (3, 3)),
    ("diagonal_copy", lambda L, a: L.diagonal_copy(a, 1), (3, 4)),
    ("expand_copy", lambda L, a: L.expand_copy(a, (2, 3, 4)), (3, 1)),
    ("permute_copy", lambda L, a: L.permute_copy(a, (2, 0, 1)), (2, 3, 4)),
    ("select_copy", lambda L, a: L.select_copy(a, 1, -1), (2, 3)),
    ("slice_copy", lambda L, a: L.slice_copy(a, 0, 1, 4, 2), (5, 2)),
    ("squeeze_copy", lambda L, a: L.squeeze_copy(a), (1, 3, 1)),
    ("squeeze_copy.dim", lambda L, a: L.squeeze_copy(a, 2), (1, 3, 1)),
    ("squeeze_copy.dims", lambda L, a: L.squeeze_copy(a, [0, 2]), (1, 3, 1)),
    ("t_copy", lambda L, a: L.t_copy(a), (2, 3)),
    ("transpose_copy", lambda L, a: L.transpose_copy(a, 0, 2), (2, 3, 4)),
    ("unfold_copy", lambda L, a: L.unfold_copy(a, 0, 3, 2), (7,)),
    ("unsqueeze_copy", lambda L, a: L.unsqueeze_copy(a, 1), (2, 3)),
    ("view_copy", lambda L, a: L.view_copy(a, (3, 2)), (2, 3)),
    ("narrow_copy", lambda L, a: L.narrow_copy(a, 1, 1, 2), (2, 4)),
    ("narrow_copy.method", lambda L, a: a.narrow_copy(0, 0, 1), (2, 4)),
    ("view_as_complex_copy", lambda L, a: L.view_as_complex_copy(a), (3, 2)),
    ("view_as_real_copy", lambda L, a: L.view_as_real_copy(L.complex(a, a)), (3,)),
]


@pytest.mark.parametrize("name,fn,shape", COPIES, ids=[c[0] for c in COPIES])
def test_copies_are_contiguous_copies_of_the_view(name, fn, shape):
    a = rand(*shape)
    x = P(a)
    got = fn(pytensor, x)
    assert got.is_contiguous()
    assert got._base is None and got.data_ptr() != x.data_ptr()
    if name == "detach_copy":
        return
    base = name.split(".")[0].replace("_copy", "")
    if name == "narrow_copy.method":
        close(got, x.narrow(0, 0, 1).detach().numpy())
    elif base not in ("view_as_complex", "view_as_real"):
        close(got, fn(_ViewsOf(pytensor), x))
    if not base.startswith("view_as"):
        gradcheck(lambda t: fn(pytensor, t), a)


class _ViewsOf:
    """pytensor with each <view>_copy read as the view method itself (the oracle of the
    copies)."""

    def __init__(self, lib):
        self.lib = lib

    def __getattr__(self, name):
        if name == "slice_copy":
            return lambda t, dim, start, end, step: t[start:end:step]
        if name == "alias_copy":
            return lambda t: t.view(t.shape)
        if name.endswith("_copy"):
            view = name[:-5]
            return lambda t, *args: getattr(t, view)(*args)
        return getattr(self.lib, name)


@requires_torch
@pytest.mark.parametrize("name,fn,shape", COPIES, ids=[c[0] for c in COPIES])
def test_copies_match_torch(name, fn, shape):
    grad = not name.startswith("view_as")
    same_as_torch(fn, rand(*shape), grad=grad)


def test_detach_copy_and_out_forms():
    x = P(rand(2, 3), requires_grad=True)
    d = pytensor.detach_copy(x)
    assert d.data_ptr() != x.data_ptr() and d.is_contiguous()
    close(d, x.detach().numpy())
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert pytensor.transpose_copy(P(rand(2, 3)), 0, 1, out=out) is out
    assert tuple(out.shape) == (3, 2)


# ================================================================ combinatorics oracles
def test_tril_indices_against_itertools():
    n = 5
    want = [(i, j) for i, j in itertools.product(range(n), range(n)) if j <= i]
    lo = pytensor.tril_indices(n, n)
    assert list(zip(*lo.tolist())) == want


# ================================================================ block_diag, cartesian_prod,
# combinations, chain_matmul
def _block_diag_oracle(*arrays):
    mats = [np.atleast_2d(a) if a.ndim else a.reshape(1, 1) for a in arrays]
    rows, cols = sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)
    out = np.zeros((rows, cols), dtype=np.result_type(*arrays))
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def test_block_diag_matches_numpy_and_grad():
    arrays = [rand(2, 3), rand(4), np.array(5.0), rand(0, 2), rand(2, 1)]
    close(pytensor.block_diag(*[P(a) for a in arrays]), _block_diag_oracle(*arrays))
    mixed = pytensor.block_diag(P(np.array([1, 2], np.int32)), P(rand(1, 1)))
    assert mixed.dtype == pytensor.float64
    close(pytensor.block_diag(P(rand(3, 2)).t()).shape, np.array([2, 3]))
    assert tuple(pytensor.block_diag().shape) == (1, 0)
    gradcheck(lambda a, b, c: pytensor.block_diag(a, b, c), rand(2, 3), rand(3), np.array(1.5))
    x = P(rand(2, 2), True)
    assert node(pytensor.block_diag(x, x)) == "BlockDiagBackward0"
    with pytest.raises(RuntimeError, match="Input tensors must have 2 or fewer dimensions. "
                       "Input 0 has 3 dimensions"):
        pytensor.block_diag(pytensor.ones(2, 2, 2))


def test_cartesian_prod_and_combinations_match_itertools():
    a, b, c = [1, 2, 3], [4, 5], [6, 7]
    got = pytensor.cartesian_prod(P(a), P(b), P(c)).tolist()
    assert got == [list(t) for t in itertools.product(a, b, c)]
    assert pytensor.cartesian_prod(P(a)).tolist() == a
    v = [3, 1, 4, 1, 5]
    for r in (1, 2, 3, 5, 6):
        got = pytensor.combinations(P(v), r).tolist()
        assert got == [list(t) for t in itertools.combinations(v, r)] or \
            (not got and not list(itertools.combinations(v, r)))
        got = pytensor.combinations(P(v), r, with_replacement=True).tolist()
        assert got == [list(t) for t in itertools.combinations_with_replacement(v, r)]
    assert tuple(pytensor.combinations(P(v), 0).shape) == (0,)
    gradcheck(lambda x, y: pytensor.cartesian_prod(x, y), rand(3), rand(2))
    gradcheck(lambda x: pytensor.combinations(x, 2), rand(4))
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        pytensor.cartesian_prod(pytensor.ones(2, 2))
    with pytest.raises(RuntimeError, match="Expect a non-negative number, but got -1"):
        pytensor.combinations(pytensor.ones(2), -1)


def test_chain_matmul_matches_numpy():
    ms = [rand(2, 5), rand(5, 3), rand(3, 4), rand(4, 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(pytensor.chain_matmul(*[P(m) for m in ms]), np.linalg.multi_dot(ms))
        close(pytensor.chain_matmul(P(ms[0])), ms[0])
        out = pytensor.empty(0, dtype=pytensor.float64)
        assert pytensor.chain_matmul(P(ms[0]), P(ms[1]), out=out) is out
        close(out, ms[0] @ ms[1])
        gradcheck(lambda a, b, c: pytensor.chain_matmul(a, b, c), ms[0], ms[1], ms[2])
        with pytest.raises(RuntimeError, match="Expected one or more matrices"):
            pytensor.chain_matmul()


@requires_torch
def test_products_match_torch():
    same_as_torch(lambda L, a, b: L.block_diag(a, b), rand(2, 3), rand(3))
    same_as_torch(lambda L, a, b: L.cartesian_prod(a, b), rand(3), rand(2))
    same_as_torch(lambda L, a: L.combinations(a, 3), rand(5))
    same_as_torch(lambda L, a: L.combinations(a, 2, True), rand(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_as_torch(lambda L, a, b, c: L.chain_matmul(a, b, c), rand(3, 4), rand(4, 3),
                      rand(3, 4))
        same_as_torch(lambda L, a, b, c: L.chain_matmul(a, b, c), rand(1, 4), rand(4, 3),
                      rand(3, 5))
        for fn, shapes in [(lambda L, a, b: L.chain_matmul(a, b), [(2, 2), (2,)]),
                           (lambda L, a, b: L.chain_matmul(a, b), [(2, 2), (3, 2)])]:
            raises_like_torch(fn, *[rand(*s) for s in shapes])


# ================================================================ unsafe splits, split copies
@requires_torch
def test_unsafe_splits_and_split_copies_match_torch():
    same_as_torch(lambda L, a: a.unsafe_split(2), rand(5, 3))
    same_as_torch(lambda L, a: L.unsafe_split_with_sizes(a, [1, 2], 1), rand(2, 3))
    same_as_torch(lambda L, a: a.unsafe_chunk(3, -1), rand(2, 7))
    same_as_torch(lambda L, a: L.split_copy(a, 2), rand(5, 3))
    same_as_torch(lambda L, a: L.split_with_sizes_copy(a, [3, 2]), rand(5, 3))
    same_as_torch(lambda L, a: L.unbind_copy(a, 1), rand(2, 3))


def test_unsafe_splits_and_split_copies():
    a = rand(5, 4)
    x = P(a)
    for pieces, want in [(x.unsafe_split(2), np.split(a, [2, 4])),
                         (pytensor.unsafe_chunk(x, 2, 1), np.split(a, 2, 1)),
                         (x.unsafe_split_with_sizes([1, 4]), np.split(a, [1])),
                         (pytensor.split_copy(x, 3), np.split(a, [3])),
                         (pytensor.split_with_sizes_copy(x, [2, 3]), np.split(a, [2])),
                         (pytensor.unbind_copy(x, 1), [a[:, i] for i in range(4)])]:
        assert len(pieces) == len(want)
        for p, w in zip(pieces, want):
            close(p, w)
    for p in pytensor.split_copy(x, 2):
        assert p.data_ptr() != x.data_ptr() or p.numel() == 0
    y = P(a, True)
    parts = y.unsafe_split(2)
    (parts[0].sum() * 2 + parts[2].sum()).backward()
    close(y.grad, np.concatenate([np.full((2, 4), 2.0), np.zeros((2, 4)), np.ones((1, 4))]))
    gradcheck(lambda t: pytensor.unbind_copy(t)[1], a)
    gradcheck(lambda t: pytensor.split_with_sizes_copy(t, [2, 3])[1], a)


def test_in_place_restriding():
    x = pytensor.arange(6.0).reshape(2, 3)
    assert x.swapaxes_(0, 1) is x and x.tolist() == np.arange(6.0).reshape(2, 3).T.tolist()
    assert x.swapdims_(-1, 0) is x and tuple(x.shape) == (2, 3)
    y = pytensor.arange(9.0)
    assert y.as_strided_((2, 2), (3, 1), 1) is y
    assert y.tolist() == [[1.0, 2.0], [4.0, 5.0]]
    assert pytensor.as_strided_(y, (3,), (4,), 0).tolist() == [0.0, 4.0, 8.0]


@requires_torch
def test_results_that_are_not_views_match_torch():
    """Operators whose schema returns no alias give tensors of their own, even where their
    kernel builds the result as a view of a private temporary."""
    for fn in [lambda L, a: L.rot90(a, 1), lambda L, a: L.rot90(a, -3, [1, 0]),
               lambda L, a: L.as_strided_scatter(a[1:], L.ones(2, dtype=a.dtype), (2,), (1,), 4),
               lambda L, a: L.view_copy(a.t(), (6,)), lambda L, a: L.diag_embed(a),
               lambda L, a: L.diagonal_scatter(a, a.diagonal())]:
        p, t = fn(pytensor, P(rand(2, 3))), fn(torch, T(rand(2, 3)))
        assert (p._base is None) == (t._base is None)
        assert tuple(p.shape) == tuple(t.shape) and p.stride() == t.stride()


def test_tensor_split_refuses_counts_past_int64_and_past_memory():
    # torch's ValueError for a count past int64; a valid count too large to hold as tensors fails
    # at once, where building the pieces would loop until memory ran out
    y = pytensor.arange(8)
    for bad in (2**64, 2**63, [2**64], [1, -2**63 - 1]):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            pytensor.tensor_split(y, bad)
    with pytest.raises(MemoryError, match="sections"):
        pytensor.tensor_split(y, 2**62)
    assert [t.tolist() for t in pytensor.tensor_split(y, 3)] == [[0, 1, 2], [3, 4, 5], [6, 7]]
