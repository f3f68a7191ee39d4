"""pytensor.nn.init: bounds and sample statistics against the analytic values of each scheme,
exact fills, generator reproducibility, in-place under no_grad on leaves that require grad,
and torch's gains, fans and error messages."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pytensor
from pytensor.nn import init
from _torch_oracle import requires_torch, torch


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def _leaf(*shape):
    return pytensor.empty(*shape, requires_grad=True)


GAINS = [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
         ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None),
         ("conv_transpose3d", None)]


def test_calculate_gain_values():
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


@requires_torch
def test_calculate_gain_and_fans_match_torch():
    for name, param in GAINS:
        assert init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)
    for shape in [(3, 4), (5, 2, 3), (6, 4, 3, 2), (2, 1, 1, 1, 7)]:
        assert (init._calculate_fan_in_and_fan_out(pytensor.empty(*shape))
                == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape)))


def _errors(lib, I):
    return [lambda: I._calculate_fan_in_and_fan_out(lib.empty(3)),
            lambda: I.xavier_uniform_(lib.empty(3)), lambda: I.kaiming_normal_(lib.empty(3)),
            lambda: I.kaiming_uniform_(lib.empty(3, 3), mode="fan_avg"),
            lambda: I.eye_(lib.empty(2, 2, 2)), lambda: I.dirac_(lib.empty(2, 2)),
            lambda: I.dirac_(lib.empty(3, 2, 2), groups=2), lambda: I.orthogonal_(lib.empty(3)),
            lambda: I.sparse_(lib.empty(3), 0.5), lambda: I.calculate_gain("foo")]


@requires_torch
def test_errors_match_torch():
    for ours, theirs in zip(_errors(pytensor, init), _errors(torch, torch.nn.init)):
        with pytest.raises(Exception) as ea:
            ours()
        with pytest.raises(Exception) as eb:
            theirs()
        assert (type(ea.value), str(ea.value)) == (type(eb.value), str(eb.value))


def test_uniform_normal_constant():
    t = _leaf(200, 200)
    assert init.uniform_(t, -2.0, 3.0) is t and t.requires_grad and t.grad_fn is None
    v = _np(t)
    assert v.min() >= -2.0 and v.max() < 3.0 and abs(v.mean() - 0.5) < 0.05
    init.normal_(t, 1.0, 2.0)
    v = _np(t)
    assert abs(v.mean() - 1.0) < 0.05 and abs(v.std() - 2.0) < 0.05
    init.constant_(t, 0.5)
    assert (v := _np(t)).min() == v.max() == 0.5
    init.ones_(t)
    assert _np(t).sum() == 40000
    init.zeros_(t)
    assert not _np(t).any()


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.0, 1.0, 2.0, 3.0),
                                          (1.0, 0.5, -1.0, 1.2), (0.0, 0.02, -0.04, 0.04)])
def test_trunc_normal_moments(mean, std, a, b):
    t = init.trunc_normal_(_leaf(300, 200), mean, std, a, b)
    v = _np(t)
    # the bounds as the float32 tensor holds them (clamp writes float32(b), e.g. 1.2000000477)
    assert v.min() >= np.float32(a) and v.max() <= np.float32(b)
    # analytic moments of the truncated normal
    alpha, beta = (a - mean) / std, (b - mean) / std
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    Phi = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    Z = Phi(beta) - Phi(alpha)
    m = mean + std * (phi(alpha) - phi(beta)) / Z
    var = std ** 2 * (1 + (alpha * phi(alpha) - beta * phi(beta)) / Z
                      - ((phi(alpha) - phi(beta)) / Z) ** 2)
    assert abs(v.mean() - m) < 0.02 * std + 1e-3 * abs(m)
    assert abs(v.std() - math.sqrt(var)) < 0.02 * std


def test_trunc_normal_warns_far_mean():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(pytensor.empty(10), mean=10.0)


@pytest.mark.parametrize("shape", [(256, 128), (64, 32, 3, 3)])
def test_xavier_and_kaiming_statistics(shape):
    t = _leaf(*shape)
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(t)
    bound = 2.0 * math.sqrt(6.0 / (fan_in + fan_out))
    v = _np(init.xavier_uniform_(t, gain=2.0))
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.95 * bound
    v = _np(init.xavier_normal_(t))
    assert abs(v.std() - math.sqrt(2.0 / (fan_in + fan_out))) < 0.03 * v.std()
    bound = math.sqrt(2.0) * math.sqrt(3.0 / fan_in)
    v = _np(init.kaiming_uniform_(t, nonlinearity="relu"))
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.95 * bound
    v = _np(init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"))
    assert abs(v.std() - math.sqrt(2.0 / fan_out)) < 0.03 * v.std()
    gain = math.sqrt(2.0 / (1 + 5))  # leaky_relu with a = sqrt(5): Linear's default
    v = _np(init.kaiming_uniform_(t, a=math.sqrt(5)))
    assert np.abs(v).max() <= gain * math.sqrt(3.0 / fan_in)


def test_kaiming_zero_element_warns():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(pytensor.empty(0, 3))


def test_eye_and_dirac():
    assert _np(init.eye_(_leaf(2, 3))).tolist() == [[1, 0, 0], [0, 1, 0]]
    w = init.dirac_(_leaf(6, 4, 3, 3), groups=2)
    v = _np(w)
    assert v.sum() == 6
    for g in range(2):
        for d in range(3):
            assert v[g * 3 + d, d, 1, 1] == 1
    x = pytensor.randn(1, 4, 5, 5)
    w = init.dirac_(pytensor.empty(4, 4, 3, 3))
    y = pytensor.nn.functional.conv2d(x, w, padding=1)
    np.testing.assert_allclose(_np(y), _np(x), atol=1e-6)
    assert _np(init.dirac_(pytensor.empty(2, 3, 3))).sum() == 2
    assert _np(init.dirac_(pytensor.empty(2, 2, 3, 3, 3))).sum() == 2


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (6, 2, 2), (1, 7)])
def test_orthogonal(shape):
    t = init.orthogonal_(_leaf(*shape), gain=1.5)
    m = _np(t).reshape(shape[0], -1) / 1.5
    rows, cols = m.shape
    gram = m.T @ m if rows >= cols else m @ m.T
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)


def test_sparse_zeroes_each_column():
    t = init.sparse_(_leaf(10, 6), sparsity=0.3, std=0.5)
    v = _np(t)
    assert ((v == 0).sum(axis=0) == 3).all()
    assert abs(v[v != 0].std() - 0.5) < 0.3


def test_generator_reproducible():
    for fn in (lambda t, g: init.uniform_(t, generator=g),
               lambda t, g: init.normal_(t, generator=g),
               lambda t, g: init.trunc_normal_(t, generator=g),
               lambda t, g: init.xavier_uniform_(t, generator=g),
               lambda t, g: init.xavier_normal_(t, generator=g),
               lambda t, g: init.kaiming_uniform_(t, generator=g),
               lambda t, g: init.kaiming_normal_(t, generator=g),
               lambda t, g: init.orthogonal_(t, generator=g),
               lambda t, g: init.sparse_(t, 0.5, generator=g)):
        a = fn(pytensor.empty(8, 6), pytensor.Generator().manual_seed(7))
        b = fn(pytensor.empty(8, 6), pytensor.Generator().manual_seed(7))
        assert _np(a).tolist() == _np(b).tolist()


def test_deprecated_names_warn():
    with pytest.warns(FutureWarning, match=r"`nn.init.normal` is now deprecated in favor of "
                                           r"`nn.init.normal_`."):
        init.normal(pytensor.empty(2))
