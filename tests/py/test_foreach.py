"""The _foreach_* list operators and the _fused_* optimizer steps: each against a per-tensor
NumPy reference (and torch's when installed), in place and out of place, float32 and float64,
with lists big enough to be split across threads; versions bumped; bad input refused."""
import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch

SHAPES = [(3, 4), (7,), (), (2, 3, 5), (0,)]
DTYPES = ["float32", "float64"]


def _arrays(dtype, seed, positive=False, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    out = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return [np.abs(a) + 0.5 for a in out] if positive else out


def _pt(arrays):
    return [pytensor.tensor(a) for a in arrays]


def _np(ts):
    return [t.numpy() for t in ts]


def _close(got, want, dtype):
    tol = 1e-6 if dtype == "float32" else 1e-14
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def _lerp(a, b, w):
    return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


# name, number of list operands, scalar (or None), NumPy reference, needs positive operands
BINARY = [
    ("add", 2, None, lambda a, b: a + b, False),
    ("sub", 2, None, lambda a, b: a - b, False),
    ("mul", 2, None, lambda a, b: a * b, False),
    ("div", 2, None, lambda a, b: a / b, True),
    ("maximum", 2, None, np.maximum, False),
    ("clamp_min", 2, None, np.maximum, False),
    ("clamp_max", 2, None, np.minimum, False),
    ("add", 1, 1.5, lambda a, s: a + s, False),
    ("sub", 1, 1.5, lambda a, s: a - s, False),
    ("mul", 1, -2.0, lambda a, s: a * s, False),
    ("div", 1, 4.0, lambda a, s: a / s, False),
    ("maximum", 1, 0.25, np.maximum, False),
    ("clamp_min", 1, 0.25, np.maximum, False),
    ("clamp_max", 1, 0.25, np.minimum, False),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,nl,scalar,ref,pos", BINARY)
def test_binary(name, nl, scalar, ref, pos, dtype):
    a, b = _arrays(dtype, 1, pos), _arrays(dtype, 2, pos)
    other = scalar if nl == 1 else _pt(b)
    want = [ref(x, scalar if nl == 1 else y) for x, y in zip(a, b)]
    out = getattr(pytensor, f"_foreach_{name}")(_pt(a), other)
    _close(_np(out), want, dtype)
    xs = _pt(a)
    assert getattr(pytensor, f"_foreach_{name}_")(xs, other) is None
    _close(_np(xs), want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_add_sub_alpha(dtype):
    a, b = _arrays(dtype, 1), _arrays(dtype, 2)
    xs = _pt(a)
    pytensor._foreach_add_(xs, _pt(b), alpha=0.5)
    _close(_np(xs), [x + 0.5 * y for x, y in zip(a, b)], dtype)
    out = pytensor._foreach_sub(_pt(a), _pt(b), alpha=2)
    _close(_np(out), [x - 2 * y for x, y in zip(a, b)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mul_div_tensor(dtype):
    a = _arrays(dtype, 1)
    xs = _pt(a)
    pytensor._foreach_mul_(xs, pytensor.tensor(3.0))
    pytensor._foreach_div_(xs, pytensor.tensor(2.0))
    _close(_np(xs), [x * np.asarray(3, dtype) / np.asarray(2, dtype) for x in a], dtype)
    with pytest.raises(RuntimeError, match="scalar tensor expected to be 0 dim but it has 1 "
                       "dimensions and 1 elements."):
        pytensor._foreach_mul_(xs, pytensor.tensor([3.0]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv(name, dtype):
    a, b, c = _arrays(dtype, 1), _arrays(dtype, 2), _arrays(dtype, 3, True)
    op = (lambda x, y, z, s: x + s * y * z) if name == "addcmul" else (
        lambda x, y, z, s: x + s * y / z)
    xs = _pt(a)
    getattr(pytensor, f"_foreach_{name}_")(xs, _pt(b), _pt(c), 0.5)
    _close(_np(xs), [op(x, y, z, 0.5) for x, y, z in zip(a, b, c)], dtype)
    scalars = [0.5, -1.0, 2.0, 0.25, 3.0]
    out = getattr(pytensor, f"_foreach_{name}")(_pt(a), _pt(b), _pt(c),
                                                 pytensor.tensor(scalars, dtype=pytensor.float64))
    _close(_np(out), [op(x, y, z, s) for x, y, z, s in zip(a, b, c, scalars)], dtype)
    with pytest.raises(RuntimeError, match="Tensor list must have same number of elements as "
                       "scalar list."):
        getattr(pytensor, f"_foreach_{name}_")(xs, _pt(b), _pt(c), pytensor.tensor([1.0]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_lerp(dtype):
    a, b = _arrays(dtype, 1), _arrays(dtype, 2)
    w = [np.asarray(x, dtype) for x in np.linspace(-0.2, 1.2, 5)]
    ws = [np.full(s, v, dtype) for s, v in zip(SHAPES, w)]
    xs = _pt(a)
    pytensor._foreach_lerp_(xs, _pt(b), 0.75)
    _close(_np(xs), [_lerp(x, y, np.asarray(0.75, dtype)) for x, y in zip(a, b)], dtype)
    out = pytensor._foreach_lerp(_pt(a), _pt(b), _pt(ws))
    _close(_np(out), [_lerp(x, y, z) for x, y, z in zip(a, b, ws)], dtype)


UNARY = [("sqrt", np.sqrt, True), ("neg", np.negative, False), ("abs", np.abs, False),
         ("sign", np.sign, False), ("reciprocal", np.reciprocal, True), ("exp", np.exp, False)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,ref,pos", UNARY)
def test_unary(name, ref, pos, dtype):
    a = _arrays(dtype, 4, pos)
    out = getattr(pytensor, f"_foreach_{name}")(_pt(a))
    _close(_np(out), [ref(x) for x in a], dtype)
    xs = _pt(a)
    getattr(pytensor, f"_foreach_{name}_")(xs)
    _close(_np(xs), [ref(x) for x in a], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_copy_norm(dtype):
    a, b = _arrays(dtype, 1), _arrays(dtype, 2)
    xs = _pt(a)
    pytensor._foreach_copy_(xs, _pt(b))
    _close(_np(xs), b, dtype)
    pytensor._foreach_zero_(xs)
    _close(_np(xs), [np.zeros_like(x) for x in a], dtype)
    for ord_ in (2, 1, 3, float("inf")):
        out = pytensor._foreach_norm(_pt(a), ord_)
        want = [np.asarray(np.linalg.norm(x.reshape(-1).astype(np.float64), ord_), dtype)
                for x in a]
        _close(_np(out), want, dtype)
        assert all(t.dim() == 0 for t in out)


def test_large_lists_split_across_threads():
    rng = np.random.default_rng(0)
    a = [rng.standard_normal(n).astype(np.float32) for n in (100_000, 3, 70_000, 1, 200_001)]
    b = [rng.standard_normal(x.shape).astype(np.float32) for x in a]
    xs = _pt(a)
    pytensor._foreach_addcmul_(xs, _pt(b), _pt(b), 0.5)
    _close(_np(xs), [x + np.float32(0.5) * y * y for x, y in zip(a, b)], "float32")


def test_versions_bumped():
    xs = _pt(_arrays("float32", 1))
    before = [x._version for x in xs]
    pytensor._foreach_add_(xs, 1.0)
    assert [x._version for x in xs] == [v + 1 for v in before]


def test_bad_input():
    a = _pt(_arrays("float32", 1))
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, "
                       "got 5 and 2"):
        pytensor._foreach_add_(a, a[:2])
    with pytest.raises(RuntimeError, match="There were no tensor arguments to this function"):
        pytensor._foreach_add_([], 1.0)
    with pytest.raises(RuntimeError, match="same sizes"):
        pytensor._foreach_mul_([pytensor.ones(3)], [pytensor.ones(4)])
    with pytest.raises(RuntimeError, match="contiguous"):
        pytensor._foreach_mul_([pytensor.ones(3, 2).t()], 2.0)
    with pytest.raises(NotImplementedError, match="float32 and float64"):
        pytensor._foreach_mul_([pytensor.ones(3, dtype=pytensor.int64)], 2)
    with pytest.raises(RuntimeError, match="dtype"):
        pytensor._foreach_add_([pytensor.ones(3)], [pytensor.ones(3, dtype=pytensor.float64)])


# ---------------------------------------------------------------- fused steps
def _adam_ref(p, g, m, v, vmax, step, lr, b1, b2, wd, eps, amsgrad, maximize, adamw):
    g = -g if maximize else g
    if adamw:
        p = p * (1 - lr * wd)
    else:
        g = g + wd * p
    m = m + (1 - b1) * (g - m)
    v = b2 * v + (1 - b2) * g * g
    vmax = np.maximum(vmax, v)
    d = np.sqrt(vmax if amsgrad else v) / np.sqrt(1 - b2 ** step) + eps
    return p - lr / (1 - b1 ** step) * m / d, m, v, vmax


@pytest.mark.parametrize("adamw", [False, True])
@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("maximize", [False, True])
def test_fused_adam_matches_reference(adamw, amsgrad, maximize):
    shapes = [(3, 4), (7,), (5,)]
    p, g, m = (_arrays("float64", k, shapes=shapes) for k in (1, 2, 3))
    v, vmax = (_arrays("float64", k, True, shapes=shapes) for k in (4, 5))
    steps = [pytensor.tensor(float(s)) for s in (1, 2, 7)]
    ts = [_pt(x) for x in (p, g, m, v, vmax)]
    fn = pytensor._fused_adamw_ if adamw else pytensor._fused_adam_
    fn(*ts, steps, lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.1, eps=1e-8,
       amsgrad=amsgrad, maximize=maximize)
    for i, s in enumerate((1, 2, 7)):
        want = _adam_ref(p[i], g[i], m[i], v[i], vmax[i], s, 0.01, 0.9, 0.99, 0.1, 1e-8,
                         amsgrad, maximize, adamw)
        for t, w in zip((ts[0], ts[2], ts[3]), want[:3]):
            np.testing.assert_allclose(t[i].numpy(), w, rtol=1e-13, atol=1e-13)


def test_fused_grad_scale_and_found_inf():
    p = [pytensor.ones(4)]
    g = [pytensor.full((4,), 2.0)]
    buf = [pytensor.zeros(4)]
    pytensor._fused_sgd_(p, g, buf, weight_decay=0.0, momentum=0.0, lr=0.5, dampening=0.0,
                         nesterov=False, maximize=False, is_first_step=True,
                         grad_scale=pytensor.tensor(4.0), found_inf=pytensor.tensor(1.0))
    assert p[0].tolist() == [1.0] * 4
    pytensor._fused_sgd_(p, g, buf, weight_decay=0.0, momentum=0.0, lr=0.5, dampening=0.0,
                         nesterov=False, maximize=False, is_first_step=True,
                         grad_scale=pytensor.tensor(4.0), found_inf=pytensor.tensor(0.0))
    assert p[0].tolist() == [0.75] * 4 and g[0].tolist() == [0.5] * 4


def test_fused_adagrad():
    p, g = [pytensor.ones(3, dtype=pytensor.float64)], [pytensor.full((3,), 2.0,
                                                                      dtype=pytensor.float64)]
    s = [pytensor.zeros(3, dtype=pytensor.float64)]
    pytensor._fused_adagrad_(p, g, s, [pytensor.tensor(2.0)], lr=0.1, lr_decay=0.5,
                             weight_decay=0.0, eps=1e-10, maximize=False)
    clr = 0.1 / (1 + 0.5)
    np.testing.assert_allclose(p[0].numpy(), 1 - clr * 2 / (2 + 1e-10), rtol=1e-15)
    assert s[0].tolist() == [4.0] * 3


@requires_torch
@pytest.mark.parametrize("dtype", DTYPES)
def test_ops_match_torch(dtype):
    a, b, c = _arrays(dtype, 1), _arrays(dtype, 2), _arrays(dtype, 3, True)
    tl = lambda xs: [torch.tensor(x) for x in xs]  # noqa: E731
    checks = [
        ("_foreach_add", (b,), dict(alpha=0.3)), ("_foreach_mul", (2.5,), {}),
        ("_foreach_div", (c,), {}), ("_foreach_addcdiv", (b, c, 0.7), {}),
        ("_foreach_addcmul", (b, c, -0.3), {}), ("_foreach_lerp", (b, 0.3), {}),
        ("_foreach_lerp", (b, 0.8), {}), ("_foreach_maximum", (b,), {}),
        ("_foreach_sqrt", (), {}), ("_foreach_sign", (), {}), ("_foreach_norm", (), {}),
    ]
    for name, args, kw in checks:
        first = c if name == "_foreach_sqrt" else a
        pa = [_pt(x) if isinstance(x, list) else x for x in args]
        ta = [tl(x) if isinstance(x, list) else x for x in args]
        got = getattr(pytensor, name)(_pt(first), *pa, **kw)
        want = getattr(torch, name)(tl(first), *ta, **kw)
        _close(_np(got), [w.numpy() for w in want], dtype)
