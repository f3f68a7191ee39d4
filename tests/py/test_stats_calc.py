"""diff, trapezoid / trapz / cumulative_trapezoid, cov, corrcoef and dist against NumPy (np.diff,
np.trapezoid, the cumulative sums of the trapezoids, np.cov with fweights / aweights / ddof,
np.corrcoef, np.linalg.norm) and torch (values, dtypes, errors, node names, gradients), with
gradcheck in float64."""
import numpy as np
import pytest

import pytensor as pt

from _torch_oracle import requires_torch, torch

trapezoid_np = getattr(np, "trapezoid", None) or np.trapz


def P(a, dtype=None):
    t = pt.from_numpy(np.ascontiguousarray(a).copy()).clone()
    return t.to(getattr(pt, dtype)) if dtype else t


def N(t):
    return t.detach().contiguous().numpy()


# ---------------------------------------------------------------- diff
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "bool"])
def test_diff_matches_numpy(dtype):
    a = np.random.default_rng(0).integers(-9, 9, (4, 7)).astype(dtype)
    x = P(a)
    for n in (0, 1, 2, 3, 9):
        for dim in (0, 1, -1):
            got = pt.diff(x, n, dim)
            want = np.diff(a, n, axis=dim)
            assert got.dtype == x.dtype and tuple(got.shape) == want.shape
            np.testing.assert_array_equal(N(got), want)
    pre, app = a[:, :2], a[:, -1:]
    np.testing.assert_array_equal(N(x.diff(prepend=P(pre), append=P(app))),
                                  np.diff(a, prepend=pre, append=app))
    np.testing.assert_array_equal(N(pt.diff(x.t(), dim=0)), np.diff(a.T, axis=0))
    np.testing.assert_array_equal(N(pt.diff(x.flip(1))), np.diff(a[:, ::-1]))
    o = pt.empty(0, dtype=x.dtype)
    assert pt.diff(x, out=o) is o and o.shape == (4, 6)


def test_diff_errors():
    with pytest.raises(RuntimeError, match="diff expects input to be at least one-dimensional"):
        pt.diff(pt.tensor(3.0))
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        pt.diff(pt.ones(3), -1)
    with pytest.raises(RuntimeError, match="diff expects prepend or append to be the same "
                       "dimension as input"):
        pt.diff(pt.ones(2, 2), prepend=pt.ones(2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        pt.diff(pt.ones(2, 2), dim=2)
    assert pt.diff(pt.ones(2, 0)).shape == (2, 0)


# ---------------------------------------------------------------- trapezoid family
def cumulative_oracle(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    terms = (y[..., 1:] + y[..., :-1]) / 2
    if x is not None:
        terms = terms * np.diff(x)
    else:
        terms = terms * dx
    return np.moveaxis(np.cumsum(terms, -1), -1, axis)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_trapezoid_matches_numpy(dtype):
    rng = np.random.default_rng(1)
    y = (rng.standard_normal((5, 8)) * 4).astype(dtype) if dtype != "int64" else \
        rng.integers(-5, 5, (5, 8))
    xs = np.cumsum(rng.random(8))
    tol = 1e-5 if dtype == "float32" else 1e-12
    for dim in (0, 1, -1):
        np.testing.assert_allclose(N(pt.trapezoid(P(y), dim=dim)), trapezoid_np(y, axis=dim),
                                   rtol=tol)
        np.testing.assert_allclose(N(pt.trapezoid(P(y), dx=0.25, dim=dim)),
                                   trapezoid_np(y, dx=0.25, axis=dim), rtol=tol)
        np.testing.assert_allclose(N(pt.trapz(P(y), dx=2.0, dim=dim)),
                                   trapezoid_np(y, dx=2.0, axis=dim), rtol=tol)
        np.testing.assert_allclose(N(pt.cumulative_trapezoid(P(y), dim=dim)),
                                   cumulative_oracle(y.astype(np.float64), axis=dim), rtol=tol)
    np.testing.assert_allclose(N(pt.trapezoid(P(y), P(xs))), trapezoid_np(y, xs), rtol=tol)
    np.testing.assert_allclose(N(pt.trapz(P(y), P(xs))), trapezoid_np(y, xs), rtol=tol)
    x2 = np.cumsum(rng.random((5, 8)), axis=1)
    np.testing.assert_allclose(N(pt.trapezoid(P(y), P(x2))), trapezoid_np(y, x2), rtol=tol)
    np.testing.assert_allclose(N(pt.cumulative_trapezoid(P(y), P(xs))),
                               cumulative_oracle(y.astype(np.float64), xs), rtol=tol)
    np.testing.assert_allclose(N(pt.cumulative_trapezoid(P(y), dx=3)),
                               cumulative_oracle(y.astype(np.float64), dx=3), rtol=tol)
    np.testing.assert_allclose(N(pt.trapezoid(P(y).t(), P(xs), dim=0)), trapezoid_np(y, xs),
                               rtol=tol)


def test_trapezoid_edges_and_errors():
    assert pt.trapezoid(pt.empty(0)).item() == 0.0
    assert N(pt.trapezoid(pt.ones(2, 0), dx=3)).tolist() == [0.0, 0.0]
    assert N(pt.trapezoid(pt.ones(2, 1))).tolist() == [0.0, 0.0]
    assert pt.cumulative_trapezoid(pt.ones(2, 1)).shape == (2, 0)
    assert pt.cumulative_trapezoid(pt.empty(2, 0)).shape == (2, 0)
    cases = [
        (lambda: pt.trapezoid(pt.tensor([1.0, 2.0]), pt.tensor([1.0, 2.0, 3.0])), RuntimeError,
         "trapezoid: There must be one `x` value for each sample point"),
        (lambda: pt.trapezoid(pt.tensor([True, False])), RuntimeError,
         "trapezoid: received a bool input for `y`, but bool is not supported"),
        (lambda: pt.trapezoid(pt.ones(3), dx=1j), RuntimeError,
         "trapezoid: Currently, we only support dx as a real number."),
        (lambda: pt.trapezoid(pt.tensor(3.0)), IndexError,
         "Dimension specified as -1 but tensor has no dimensions"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as e:
            call()
        assert str(e.value) == message


# ---------------------------------------------------------------- cov, corrcoef, dist
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_cov_matches_numpy(dtype):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((3, 10)) * 3).astype(dtype) if dtype != "int64" else \
        rng.integers(-5, 5, (3, 10))
    f = rng.integers(0, 4, 10)
    w = rng.random(10)
    tol = 1e-12 if dtype == "float64" else 1e-5  # integers divide into the default float32
    for correction in (0, 1, 2):
        np.testing.assert_allclose(N(pt.cov(P(a), correction=correction)),
                                   np.cov(a, ddof=correction), rtol=tol)
        np.testing.assert_allclose(
            N(pt.cov(P(a), correction=correction, fweights=P(f), aweights=P(w.astype(dtype if dtype != "int64" else "float64")))),
            np.cov(a, ddof=correction, fweights=f, aweights=w), rtol=max(tol, 1e-5))
    np.testing.assert_allclose(N(P(a).cov(fweights=P(f))), np.cov(a, fweights=f), rtol=tol)
    np.testing.assert_allclose(N(pt.cov(P(a[0]))), np.cov(a[0]), rtol=tol)
    np.testing.assert_allclose(N(pt.cov(P(a).t().t())), np.cov(a), rtol=tol)
    np.testing.assert_allclose(N(pt.corrcoef(P(a))), np.corrcoef(a), rtol=max(tol, 1e-6))
    assert pt.corrcoef(P(a[0])).item() == 1.0


def test_cov_errors():
    x = pt.tensor([1.0, 2.0])
    cases = [
        (lambda: pt.cov(pt.ones(1, 1, 1)), "cov(): expected input to have two or fewer "
         "dimensions but got an input with 3 dimensions"),
        (lambda: pt.cov(x, fweights=pt.tensor([1.0, 2.0])), "cov(): expected fweights to have "
         "integral dtype but got fweights with Float dtype"),
        (lambda: pt.cov(x, fweights=pt.tensor([1, -2])), "cov(): fweights cannot be negative"),
        (lambda: pt.cov(x, fweights=pt.tensor([1, 2, 3])), "cov(): expected fweights to have "
         "the same numel as there are observations in the input but got 3 != 2"),
        (lambda: pt.cov(x, fweights=pt.tensor([[1, 2]])), "cov(): expected fweights to have one "
         "or fewer dimensions but got fweights with 2 dimensions"),
        (lambda: pt.cov(x, aweights=pt.tensor([1, 2])), "cov(): expected aweights to have "
         "floating point dtype but got aweights with Long dtype"),
        (lambda: pt.cov(x, aweights=pt.tensor([1.0, -2.0])), "cov(): aweights cannot be negative"),
        (lambda: pt.cov(x, fweights=pt.tensor([0, 0])), "cov(): weights sum to zero, can't be "
         "normalized"),
        (lambda: pt.corrcoef(pt.ones(1, 1, 1)), "corrcoef(): expected input to have two or fewer "
         "dimensions but got an input with 3 dimensions"),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == message
    assert np.isnan(pt.cov(pt.tensor([1.0])).item())  # no degrees of freedom left


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, float("inf"), -float("inf")])
def test_dist_matches_numpy(p):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal(5)
    d = (a - b).reshape(-1)
    want = np.count_nonzero(d) if p == 0 else np.linalg.norm(d, p)
    np.testing.assert_allclose(pt.dist(P(a), P(b), p).item(), want, rtol=1e-12)
    np.testing.assert_allclose(P(a).dist(P(b), p).item(), want, rtol=1e-12)
    with pytest.raises(RuntimeError, match="norm\\(\\): input dtype should be either floating "
                       "point or complex. Got Long instead."):
        pt.dist(pt.tensor([1, 2]), pt.tensor([3, 1]))
    o = pt.empty(0, dtype=pt.float64)
    assert pt.dist(P(a), P(b), out=o) is o and o.shape == ()


# ---------------------------------------------------------------- gradients
GRADS = {
    "diff": (lambda t: pt.diff(t), "SubBackward0"),
    "diff2": (lambda t: pt.diff(t, 2, 0, append=t[:1] * 2), "SubBackward0"),
    "trapezoid": (lambda t: pt.trapezoid(t), "MulBackward1"),
    "trapezoid_x": (lambda t: pt.trapezoid(t, P(np.array([0.0, 1.0, 3.0, 3.5, 6.0]))),
                    "DivBackward1"),
    "cumulative_trapezoid": (lambda t: pt.cumulative_trapezoid(t, dim=0), "CumsumBackward0"),
    "cumulative_trapezoid_x": (lambda t: pt.cumulative_trapezoid(
        t, P(np.array([0.0, 1.0, 3.0, 3.5, 6.0]))), "DivBackward1"),
    "cov": (lambda t: pt.cov(t, aweights=P(np.array([0.5, 1.0, 2.0, 1.0, 0.1]))),
            "SqueezeBackward0"),
    "corrcoef": (lambda t: pt.corrcoef(t), "ClampBackward1"),
    "dist": (lambda t: pt.dist(t, t[0] * 0.5, 3), "DistBackward0"),
    "dist_inf": (lambda t: pt.dist(t, P(np.zeros(5)), float("inf")), "DistBackward0"),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(name):
    fn, node = GRADS[name]
    x = P(np.random.default_rng(len(name)).standard_normal((3, 5))).requires_grad_()
    assert fn(x).grad_fn.name() == node
    assert pt.autograd.gradcheck(fn, (x,))


@requires_torch
@pytest.mark.parametrize("name", sorted(GRADS))
def test_values_gradients_and_nodes_match_torch(name):
    fn, _ = GRADS[name]
    a = np.random.default_rng(len(name) + 1).standard_normal((3, 5))
    xp = P(a).requires_grad_()
    xt = torch.from_numpy(a.copy()).requires_grad_()
    # the same call written for torch: the lambdas above use pt, so rebuild through names
    tfn = {
        "diff": lambda t: torch.diff(t),
        "diff2": lambda t: torch.diff(t, 2, 0, append=t[:1] * 2),
        "trapezoid": lambda t: torch.trapezoid(t),
        "trapezoid_x": lambda t: torch.trapezoid(t, torch.tensor([0.0, 1.0, 3.0, 3.5, 6.0],
                                                                 dtype=torch.float64)),
        "cumulative_trapezoid": lambda t: torch.cumulative_trapezoid(t, dim=0),
        "cumulative_trapezoid_x": lambda t: torch.cumulative_trapezoid(
            t, torch.tensor([0.0, 1.0, 3.0, 3.5, 6.0], dtype=torch.float64)),
        "cov": lambda t: torch.cov(t, aweights=torch.tensor([0.5, 1.0, 2.0, 1.0, 0.1],
                                                            dtype=torch.float64)),
        "corrcoef": lambda t: torch.corrcoef(t),
        "dist": lambda t: torch.dist(t, t[0] * 0.5, 3),
        "dist_inf": lambda t: torch.dist(t, torch.zeros(5, dtype=torch.float64), float("inf")),
    }[name]
    yp, yt = fn(xp), tfn(xt)
    assert yp.grad_fn.name() == yt.grad_fn.name()
    np.testing.assert_allclose(N(yp), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    w = np.random.default_rng(9).standard_normal(tuple(yt.shape))
    (yp * P(w)).sum().backward()
    (yt * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(N(xp.grad), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
