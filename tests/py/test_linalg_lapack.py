"""torch.linalg's LAPACK functions: inv, det, slogdet, logdet, solve, cholesky, lu_factor,
solve_triangular, eigh, eigvalsh, svd, svdvals, torch.svd, qr, and the matrix norms that need
singular values.

Each is checked against NumPy's np.linalg (decompositions whose factors are not unique are checked
by rebuilding A from them and by the factors' own properties), against torch where it is
installed, over the four LAPACK dtypes, batches (empty ones and 0 x 0 matrices too), transposed,
sliced and flipped inputs; singular and non-positive-definite inputs give torch's messages and
the _ex forms' info; gradients pass gradcheck in float64 and complex128 and match torch's with
torch's node names. A start-up with PYTENSOR_LAPACK=0 keeps the argument checks and refuses the
work with a message naming LAPACK.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch
from pytensor.autograd import gradcheck

pytestmark = pytest.mark.skipif(not pytensor.has_lapack, reason="built without LAPACK")

L = pytensor.linalg
DTYPES = [pytensor.float32, pytensor.float64, pytensor.complex64, pytensor.complex128]
NP = {pytensor.float32: np.float32, pytensor.float64: np.float64,
      pytensor.complex64: np.complex64, pytensor.complex128: np.complex128}
TOL = {pytensor.float32: 1e-4, pytensor.float64: 1e-10, pytensor.complex64: 1e-4,
       pytensor.complex128: 1e-10}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if NP[dtype] in (np.complex64, np.complex128):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(NP[dtype])


def hpd(shape, dtype, seed=0):
    """A batch of Hermitian positive-definite matrices."""
    a = rand(shape, dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(NP[dtype])


def close(x, expected, dtype, scale=1.0):
    got = x.resolve_conj().numpy() if hasattr(x, "resolve_conj") else np.asarray(x)
    np.testing.assert_allclose(got, expected, rtol=TOL[dtype] * 10 * scale,
                               atol=TOL[dtype] * 10 * scale)


def mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


LAYOUTS = ["contiguous", "transposed", "sliced", "flipped"]


def layout(a, how):
    """A pytensor tensor with a's values in the given memory layout."""
    if how == "contiguous":
        return pytensor.tensor(a)
    if how == "transposed":
        return pytensor.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT
    if how == "sliced":
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        return pytensor.tensor(wide)[..., ::2]
    return pytensor.tensor(np.ascontiguousarray(np.flip(a, -1))).flip(-1)


# ---------------------------------------------------------------- against NumPy
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("how", LAYOUTS)
def test_inv_det_slogdet_match_numpy(dtype, how):
    a = rand((2, 3, 4, 4), dtype)
    t = layout(a, how)
    close(L.inv(t), np.linalg.inv(a), dtype)
    close(pytensor.inverse(t), np.linalg.inv(a), dtype)
    close(t.inverse(), np.linalg.inv(a), dtype)
    close(L.det(t), np.linalg.det(a), dtype)
    close(pytensor.det(t), np.linalg.det(a), dtype)
    sign, logabs = np.linalg.slogdet(a)
    r = L.slogdet(t)
    assert type(r).__name__ == "linalg_slogdet"
    close(r.sign, sign, dtype)
    close(r.logabsdet, logabs, dtype)
    s2 = pytensor.slogdet(t)
    close(s2[1], logabs, dtype)
    assert r.logabsdet.dtype == (pytensor.float32 if dtype in (pytensor.float32, pytensor.complex64)
                                 else pytensor.float64)


def test_logdet_of_negative_and_zero_determinants():
    a = np.array([[[2.0, 0.0], [0.0, 3.0]], [[-1.0, 0.0], [0.0, 2.0]], [[1.0, 2.0], [2.0, 4.0]]])
    r = pytensor.logdet(pytensor.tensor(a)).numpy()
    assert np.isclose(r[0], np.log(6.0)) and np.isnan(r[1]) and r[2] == -np.inf
    assert L.det(pytensor.tensor(a[2])).item() == 0.0


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("how", LAYOUTS)
def test_solve_matches_numpy(dtype, how):
    a = rand((2, 4, 4), dtype, 1) + 4 * np.eye(4, dtype=NP[dtype])
    b = rand((2, 4, 3), dtype, 2)
    ta, tb = layout(a, how), layout(b, how)
    close(L.solve(ta, tb), np.linalg.solve(a, b), dtype)
    # a vector right-hand side, one per matrix of the batch, and one broadcast over the batch
    close(L.solve(ta, tb[..., 0]), np.linalg.solve(a, b[..., :1])[..., 0], dtype)
    close(L.solve(ta, pytensor.tensor(b[0, :, 0])),
          np.linalg.solve(a, np.broadcast_to(b[0, :, :1], (2, 4, 1)))[..., 0], dtype)
    # X A = B
    bt = np.swapaxes(b, -1, -2)
    close(L.solve(ta, pytensor.tensor(bt), left=False), mh(np.linalg.solve(mh(a), mh(bt))), dtype)
    # the batch of A broadcast against B's
    close(L.solve(ta[0], tb), np.linalg.solve(a[0], b), dtype)
    x, info = L.solve_ex(ta, tb)
    assert info.dtype == pytensor.int32 and info.tolist() == [0, 0]
    close(x, np.linalg.solve(a, b), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_matches_numpy(dtype, upper):
    a = hpd((3, 4, 4), dtype)
    lower = np.linalg.cholesky(a)
    expected = mh(lower) if upper else lower
    for how in LAYOUTS:
        close(L.cholesky(layout(a, how), upper=upper), expected, dtype)
    close(pytensor.cholesky(pytensor.tensor(a), upper), expected, dtype)
    c, info = L.cholesky_ex(pytensor.tensor(a), upper=upper)
    close(c, expected, dtype)
    assert info.tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (2, 3, 5)])
def test_lu_factor_rebuilds_a(dtype, shape):
    a = rand(shape, dtype)
    lu, piv = L.lu_factor(pytensor.tensor(a))
    lu, piv = lu.numpy(), piv.numpy()
    m, n = shape[-2:]
    k = min(m, n)
    assert piv.dtype == np.int32 and piv.shape == shape[:-2] + (k,)
    for idx in np.ndindex(*shape[:-2]):
        f = lu[idx]
        lower = np.tril(f[:, :k], -1) + np.eye(m, k)
        upper = np.triu(f[:k, :])
        rows = np.arange(m)
        for i, p in enumerate(piv[idx]):  # LAPACK's row exchanges, 1-based, in order
            rows[[i, p - 1]] = rows[[p - 1, i]]
        np.testing.assert_allclose(lower @ upper, a[idx][rows], rtol=TOL[dtype] * 100,
                                   atol=TOL[dtype] * 100)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_matches_numpy(dtype, upper, left, unit):
    a = rand((2, 4, 4), dtype) + 4 * np.eye(4, dtype=NP[dtype])
    tri = np.triu(a) if upper else np.tril(a)
    eff = tri.copy()
    if unit:  # the diagonal A holds is not read: it counts as ones
        eff[..., np.arange(4), np.arange(4)] = 1
    b = rand((2, 4, 3) if left else (2, 3, 4), dtype, 5)
    x = L.solve_triangular(pytensor.tensor(a), pytensor.tensor(b), upper=upper, left=left,
                           unitriangular=unit)
    expected = np.linalg.solve(eff, b) if left else mh(np.linalg.solve(mh(eff), mh(b)))
    close(x, expected, dtype, 10)


def test_solve_triangular_with_a_zero_on_the_diagonal_divides_by_it():
    a = pytensor.tensor([[1.0, 0.0], [1.0, 0.0]])
    x = L.solve_triangular(a, pytensor.tensor([[1.0], [2.0]]), upper=False).numpy()
    assert x[0, 0] == 1.0 and np.isinf(x[1, 0])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_matches_numpy(dtype, uplo):
    a = hpd((2, 5, 5), dtype)
    w, v = L.eigh(pytensor.tensor(a), UPLO=uplo)
    ew = np.linalg.eigvalsh(a, UPLO=uplo)
    close(w, ew, dtype, 10)
    v = v.numpy()
    close(pytensor.tensor(v @ (ew[..., None] * mh(v))), a, dtype, 10)  # A = V diag(w) V^H
    close(L.eigvalsh(layout(a, "transposed"), uplo), ew, dtype, 10)
    # only the named triangle is read
    junk = a.copy()
    iu = np.triu_indices(5, 1)
    if uplo == "L":
        junk[:, iu[0], iu[1]] = 99
    else:
        junk[:, iu[1], iu[0]] = 99
    close(L.eigvalsh(pytensor.tensor(junk), uplo), ew, dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_matches_numpy(dtype, shape, full):
    a = rand(shape, dtype)
    u, s, vh = L.svd(pytensor.tensor(a), full_matrices=full)
    es = np.linalg.svd(a, compute_uv=False)
    close(s, es, dtype, 10)
    u, vh = u.numpy(), vh.numpy()
    m, n = shape[-2:]
    k = min(m, n)
    assert u.shape[-2:] == ((m, m) if full else (m, k))
    assert vh.shape[-2:] == ((n, n) if full else (k, n))
    rebuilt = (u[..., :, :k] * es[..., None, :]) @ vh[..., :k, :]
    close(pytensor.tensor(rebuilt), a, dtype, 10)
    close(pytensor.tensor(mh(u) @ u), np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] +
                                                       (u.shape[-1],) * 2), dtype, 10)
    close(L.svdvals(layout(a, "flipped")), es, dtype, 10)
    U, S, V = pytensor.svd(pytensor.tensor(a), some=not full)
    close(pytensor.tensor((U.numpy()[..., :, :k] * es[..., None, :]) @ mh(V.resolve_conj().numpy())[..., :k, :]),
          a, dtype, 10)


def test_torch_svd_without_uv_returns_zeros():
    U, S, V = pytensor.svd(pytensor.tensor(rand((4, 3), pytensor.float64)), compute_uv=False)
    assert U.shape == (4, 3) and V.shape == (3, 3)
    assert not U.numpy().any() and not V.numpy().any()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_numpy(dtype, shape, mode):
    a = rand(shape, dtype)
    q, r = L.qr(layout(a, "transposed"), mode)
    eq, er = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    # Q and R are unique up to the signs (phases) of R's diagonal; LAPACK's agree with NumPy's
    close(r, er, dtype, 10)
    if mode == "r":
        assert q.numel() == 0
        return
    close(q, eq, dtype, 10)
    close(pytensor.tensor(q.numpy() @ r.numpy()), a, dtype, 10)


def test_matrix_norms_through_singular_values():
    a = rand((3, 4, 5), pytensor.float64)
    t = pytensor.tensor(a)
    for ord in ["nuc", 2, -2]:
        for dim in [(-2, -1), (0, 2), (2, 0)]:
            expected = np.linalg.norm(np.moveaxis(a, dim, (-2, -1)), ord, axis=(-2, -1))
            close(L.matrix_norm(t, ord, dim), expected, pytensor.float64)
            kd = L.matrix_norm(t, ord, dim, keepdim=True)
            assert kd.dim() == 3 and kd.shape[min(dim) % 3] == 1 and kd.shape[max(dim) % 3] == 1
    close(L.norm(t[0], "nuc"), np.linalg.norm(a[0], "nuc"), pytensor.float64)
    close(L.norm(t[0], 2), np.linalg.norm(a[0], 2), pytensor.float64)
    close(pytensor.norm(t[0], "nuc"), np.linalg.norm(a[0], "nuc"), pytensor.float64)


# ---------------------------------------------------------------- empty batches, 0 x 0 matrices
@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_empty_square_inputs(shape):
    z = pytensor.zeros(*shape, dtype=pytensor.float64)
    batch = shape[:-2]
    assert L.inv(z).shape == shape
    assert L.det(z).shape == batch and (L.det(z).numpy() == 1).all()
    assert L.slogdet(z).logabsdet.shape == batch
    assert L.cholesky(z).shape == shape
    assert L.eigh(z)[0].shape == batch + (shape[-1],)
    assert L.svd(z)[1].shape == batch + (shape[-1],)
    assert L.solve(z, pytensor.zeros(*shape[:-1], 2, dtype=pytensor.float64)).shape == \
        shape[:-1] + (2,)


def test_empty_rectangular_inputs():
    u, s, vh = L.svd(pytensor.zeros(0, 3))
    assert u.shape == (0, 0) and s.shape == (0,)
    np.testing.assert_array_equal(vh.numpy(), np.eye(3))
    q, r = L.qr(pytensor.zeros(3, 0), "complete")
    np.testing.assert_array_equal(q.numpy(), np.eye(3))
    assert r.shape == (3, 0)


# ---------------------------------------------------------------- singular input, info, messages
SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


def test_singular_messages_match_torch_texts():
    s = pytensor.tensor(SINGULAR)
    batch = pytensor.stack([pytensor.eye(2), s])
    with pytest.raises(RuntimeError, match=r"^linalg.inv: The diagonal element 2 is zero, the "
                       r"inversion could not be completed because the input matrix is singular.$"):
        L.inv(s)
    with pytest.raises(RuntimeError, match=r"^linalg.inv: \(Batch element 1\): The diagonal "
                       r"element 2 is zero"):
        pytensor.inverse(batch)
    with pytest.raises(RuntimeError, match=r"^torch.linalg.solve: The solver failed because the "
                       r"input matrix is singular.$"):
        L.solve(s, pytensor.ones(2))
    with pytest.raises(RuntimeError, match=r"^linalg.cholesky: \(Batch element 1\): The "
                       r"factorization could not be completed because the input is not "
                       r"positive-definite \(the leading minor of order 2 is not "
                       r"positive-definite\).$"):
        L.cholesky(batch)
    with pytest.raises(RuntimeError, match=r"^torch.linalg.lu_factor: U\[2,2\] is zero"):
        L.lu_factor(s)


def test_ex_forms_report_info_instead():
    s = pytensor.tensor(SINGULAR)
    batch = pytensor.stack([pytensor.eye(2), s, -pytensor.eye(2)])
    assert L.inv_ex(batch).info.tolist() == [0, 2, 0]
    assert L.cholesky_ex(batch).info.tolist() == [0, 2, 1]
    assert L.solve_ex(batch, pytensor.ones(3, 2)).info.tolist() == [0, 2, 0]
    assert L.lu_factor_ex(batch).info.tolist() == [0, 2, 0]
    with pytest.raises(RuntimeError, match="leading minor of order 2"):
        L.cholesky_ex(s, check_errors=True)
    with pytest.raises(RuntimeError, match="singular"):
        L.inv_ex(s, check_errors=True)


def test_argument_errors_match_torch_texts():
    with pytest.raises(RuntimeError, match=r"^linalg.inv: The input tensor A must have at least "
                       r"2 dimensions.$"):
        L.inv(pytensor.ones(3))
    with pytest.raises(RuntimeError, match=r"^linalg.det: A must be batches of square matrices, "
                       r"but they are 2 by 3 matrices$"):
        L.det(pytensor.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"^linalg.inv: Expected a floating point or complex "
                       r"tensor as input. Got Long$"):
        L.inv(pytensor.ones(2, 2, dtype=pytensor.int64))
    with pytest.raises(RuntimeError, match=r"^linalg.slogdet: Low precision dtypes not "
                       r"supported. Got Half$"):
        L.slogdet(pytensor.ones(2, 2, dtype=pytensor.float16))
    with pytest.raises(NotImplementedError, match=r"^\"linalg_eigh_cpu\" not implemented for "
                       r"'Long'$"):
        L.eigh(pytensor.ones(2, 2, dtype=pytensor.int64))
    with pytest.raises(NotImplementedError, match=r"^\"lu_cpu\" not implemented for 'Int'$"):
        L.lu_factor(pytensor.ones(2, 2, dtype=pytensor.int32))
    with pytest.raises(RuntimeError, match=r"^Expected UPLO argument to be 'L' or 'U', but got "
                       r"X$"):
        L.eigh(pytensor.eye(2), "X")
    with pytest.raises(RuntimeError, match=r"^qr received unrecognized mode 'x'"):
        L.qr(pytensor.eye(2), "x")
    with pytest.raises(RuntimeError, match=r"^linalg.solve: Incompatible shapes of A and B for "
                       r"the equation AX = B \(3x3 and 2x2\)$"):
        L.solve(pytensor.eye(3), pytensor.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"^linalg.solve: Expected A and B to have the same "
                       r"dtype, but found A of type Float and B of type Double instead$"):
        L.solve(pytensor.eye(3), pytensor.ones(3, 2, dtype=pytensor.float64))
    with pytest.raises(RuntimeError, match=r"^linalg.lu_factor: LU without pivoting is not "
                       r"implemented on the CPU$"):
        L.lu_factor(pytensor.eye(2), pivot=False)
    with pytest.raises(RuntimeError, match=r"^torch.lu_factor: Expected tensor with 2 or more "
                       r"dimensions. Got size: \[3\] instead$"):
        L.lu_factor(pytensor.ones(3))
    with pytest.raises(RuntimeError, match="driver="):
        L.svd(pytensor.eye(2), driver="gesvd")


def test_nan_input_gives_nan_not_an_error():
    a = pytensor.tensor([[float("nan"), 1.0], [1.0, 2.0]])
    assert np.isnan(L.det(a).item())
    assert np.isnan(L.inv_ex(a).inverse.numpy()).any()
    with pytest.raises(RuntimeError, match=r"^linalg.svd: The algorithm failed to converge "
                       r"because the input matrix contained non-finite values.$"):
        L.svdvals(a)


# ---------------------------------------------------------------- gradients
def _sym(f):
    """f of the Hermitian part of A: gradcheck perturbs every entry, and these functions read
    one triangle only."""
    return lambda a: f(a + _mH(a))


def _mH(t):
    return t.transpose(-2, -1).conj()


GRAD_CASES = {
    "inv": (lambda a: L.inv(a), (3, 3), False),
    "det": (lambda a: L.det(a), (2, 3, 3), False),
    "slogdet": (lambda a: L.slogdet(a).logabsdet, (3, 3), False),
    "logdet": (lambda a: pytensor.logdet(a @ _mH(a)), (3, 3), False),
    "solve": (lambda a: L.solve(a, a[..., :2] * 2.0), (2, 3, 3), False),
    "cholesky": (_sym(lambda s: L.cholesky(s + 6.0 * pytensor.eye(3, dtype=s.dtype))), (3, 3),
                 False),
    "cholesky_upper": (_sym(lambda s: L.cholesky(s + 6.0 * pytensor.eye(3, dtype=s.dtype),
                                                 upper=True)), (3, 3), False),
    "eigvalsh": (_sym(L.eigvalsh), (2, 3, 3), False),
    "eigh_vectors": (_sym(lambda s: L.eigh(s).eigenvectors.abs()), (3, 3), False),
    "svdvals": (L.svdvals, (4, 3), False),
    "svd_uv": (lambda a: (lambda r: (r.U.abs(), r.Vh.abs(), r.S))(L.svd(a, False)), (3, 4),
               False),
    "svd_full": (lambda a: (lambda r: r.U[..., :3].abs())(L.svd(a, True)), (4, 3), False),
    "solve_triangular": (lambda a: L.solve_triangular(a + 4.0 * pytensor.eye(3, dtype=a.dtype),
                                                      a[..., :2], upper=True), (3, 3), False),
}


@pytest.mark.parametrize("dtype", [pytensor.float64, pytensor.complex128], ids=str)
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck(name, dtype):
    fn, shape, _ = GRAD_CASES[name]
    a = pytensor.tensor(rand(shape, dtype, 3), requires_grad=True)
    assert gradcheck(fn, [a])


def test_double_backward_of_inv():
    a = pytensor.tensor(rand((3, 3), pytensor.float64) + 3 * np.eye(3), requires_grad=True)
    assert pytensor.autograd.gradgradcheck(lambda x: L.inv(x), [a])


# ---------------------------------------------------------------- start-up without LAPACK
def test_lapack_turned_off_checks_then_refuses():
    code = (
        "import pytensor\n"
        "L = pytensor.linalg\n"
        "assert not pytensor.has_lapack\n"
        "for f in (lambda: L.inv(pytensor.ones(3)), lambda: L.det(pytensor.ones(2, 3))):\n"
        "    try: f()\n"
        "    except RuntimeError as e: print('CHECK', e)\n"
        "for f in (L.inv, L.det, L.cholesky, L.eigvalsh, L.svdvals, L.qr, L.lu_factor):\n"
        "    try: f(pytensor.eye(2))\n"
        "    except RuntimeError as e: print('OFF', e)\n")
    env = dict(os.environ, PYTENSOR_LAPACK="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "CHECK linalg.inv: The input tensor A must have at least 2 dimensions."
    assert lines[1].startswith("CHECK linalg.det: A must be batches of square matrices")
    offs = [ln for ln in lines if ln.startswith("OFF")]
    assert len(offs) == 7 and all("LAPACK" in ln and "PYTENSOR_LAPACK=0" in ln for ln in offs)


def test_init_report_names_lapack():
    # the pytensor this process imported (installed or built in place), not the source tree
    home = os.path.dirname(os.path.dirname(os.path.abspath(pytensor.__file__)))
    out = subprocess.run([sys.executable, "-m", "pytensor"], capture_output=True, text=True,
                         timeout=120, cwd=os.path.dirname(home),
                         env=dict(os.environ, PYTHONPATH=home + os.pathsep +
                                  os.environ.get("PYTHONPATH", "")))
    assert out.returncode == 0, out.stderr
    assert any(ln.startswith("lapack: LAPACKE over LAPACK") for ln in out.stdout.splitlines())


# ---------------------------------------------------------------- against torch
TORCH_FNS = {
    "inv": lambda m, a: m.linalg.inv(a),
    "det": lambda m, a: m.linalg.det(a),
    "slogdet": lambda m, a: m.linalg.slogdet(a)[1],
    "solve": lambda m, a: m.linalg.solve(a, a[..., :2]),
    "cholesky": lambda m, a: m.linalg.cholesky(a @ _mH(a) + 3 * m.eye(a.shape[-1], dtype=a.dtype)),
    "eigvalsh": lambda m, a: m.linalg.eigvalsh(a + _mH(a)),
    "svdvals": lambda m, a: m.linalg.svdvals(a),
    "qr_r": lambda m, a: m.linalg.qr(a).R,
}


@requires_torch
@pytest.mark.parametrize("name", sorted(TORCH_FNS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_values_and_gradients_match_torch(name, dtype):
    pdt = getattr(pytensor, dtype)
    a = rand((2, 4, 4), pdt, 7) + 2 * np.eye(4, dtype=NP[pdt])
    x = pytensor.tensor(a, requires_grad=True)
    y = torch.tensor(a, requires_grad=True)
    rx, ry = TORCH_FNS[name](pytensor, x), TORCH_FNS[name](torch, y)
    close(rx.detach(), ry.detach().resolve_conj().numpy(), pdt, 10)
    if name == "qr_r":
        return
    assert rx.grad_fn.name() == ry.grad_fn.name()
    gx, = pytensor.autograd.grad(rx.abs().sum(), [x])
    gy, = torch.autograd.grad(ry.abs().sum(), [y])
    close(gx, gy.resolve_conj().numpy(), pdt, 100)


@requires_torch
def test_node_names_match_torch():
    a = rand((3, 3), pytensor.float64) + 3 * np.eye(3)
    x = pytensor.tensor(a, requires_grad=True)
    y = torch.tensor(a, requires_grad=True)
    pairs = [(L.inv(x), torch.linalg.inv(y)), (L.det(x), torch.linalg.det(y)),
             (L.slogdet(x)[1], torch.linalg.slogdet(y)[1]),
             (L.solve(x, x), torch.linalg.solve(y, y)),
             (L.cholesky(x @ x.mT), torch.linalg.cholesky(y @ y.mT)),
             (L.eigh(x)[0], torch.linalg.eigh(y)[0]), (L.svd(x)[1], torch.linalg.svd(y)[1]),
             (L.solve_triangular(x, x, upper=True), torch.linalg.solve_triangular(y, y, upper=True))]
    for p, t in pairs:
        assert p.grad_fn.name() == t.grad_fn.name()
