"""Pooling layers (pytensor.nn.MaxPool*, AvgPool*, AdaptiveAvg/MaxPool*, FractionalMaxPool*,
LPPool*, MaxUnpool*): stored attributes, extra_repr, forward and backward against torch
(indices included), fractional pooling with fixed samples, and torch's constructor errors."""
import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from _torch_oracle import requires_torch, torch
from test_nn_layers_util import compare, layer_pair, np_of, rand, same_repr, to_pt, to_th

POOL_CASES = [
    ("MaxPool1d", (3,), {}, (2, 3, 8)),
    ("MaxPool1d", (3, 2, 1, 2), dict(ceil_mode=True), (3, 9)),
    ("MaxPool1d", (2,), dict(return_indices=True), (1, 2, 6)),
    ("MaxPool2d", (2,), {}, (2, 3, 4, 6)),
    ("MaxPool2d", ((3, 2), (2, 1), (1, 0)), dict(return_indices=True, ceil_mode=True),
     (1, 2, 7, 5)),
    ("MaxPool3d", (2,), dict(stride=1, padding=1, dilation=2), (1, 2, 4, 4, 4)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 8)),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (1, 2, 7, 7)),
    ("AvgPool2d", (2,), dict(divisor_override=3), (2, 4, 4)),
    ("AvgPool3d", ((2, 2, 1),), dict(padding=(1, 0, 0)), (1, 2, 3, 4, 4)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 8)),
    ("AdaptiveAvgPool2d", ((2, None),), {}, (1, 2, 5, 7)),
    ("AdaptiveAvgPool3d", (2,), {}, (1, 2, 5, 4, 3)),
    ("AdaptiveMaxPool1d", (3,), dict(return_indices=True), (2, 3, 8)),
    ("AdaptiveMaxPool2d", ((3, 2),), {}, (1, 2, 5, 7)),
    ("AdaptiveMaxPool3d", (2,), dict(return_indices=True), (1, 2, 5, 4, 3)),
    ("LPPool1d", (2, 3), {}, (2, 3, 9)),
    ("LPPool2d", (1.5, 2), dict(stride=1, ceil_mode=True), (1, 2, 5, 5)),
    ("LPPool3d", (2, 2), {}, (1, 2, 4, 4, 4)),
]


@requires_torch
@pytest.mark.parametrize("name,args,kwargs,shape", POOL_CASES)
def test_pool_layers_match_torch(name, args, kwargs, shape):
    tm, pm = layer_pair(name, *args, **kwargs)
    same_repr(tm, pm)
    x = rand(*shape, low=0.1, high=2.0) if name.startswith("LP") else rand(*shape)
    compare(tm, pm, [x], atol=1e-5)
    for attr in ("kernel_size", "stride", "padding", "dilation", "output_size", "norm_type"):
        if hasattr(tm, attr):
            assert getattr(pm, attr) == getattr(tm, attr), attr


@requires_torch
@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_inverts_max_pool_like_torch(n):
    tpool, ppool = layer_pair(f"MaxPool{n}d", 2, return_indices=True)
    tun, pun = layer_pair(f"MaxUnpool{n}d", 2)
    same_repr(tun, pun)
    x = rand(1, 2, *([4] * n))
    tv, ti = tpool(to_th(x))
    pv, pi = ppool(to_pt(x))
    np.testing.assert_array_equal(np_of(pi), ti.numpy())
    compare(tun, pun, [tv.detach().numpy(), ti.numpy()])
    size = [5] * n
    out_t = tun(tv, ti, output_size=size)
    out_p = pun(pv, pi, output_size=size)
    np.testing.assert_allclose(np_of(out_p), out_t.detach().numpy())


@requires_torch
@pytest.mark.parametrize("n,kwargs", [(2, dict(output_size=3)), (2, dict(output_ratio=0.5)),
                                      (3, dict(output_size=(2, 3, 2), return_indices=True))])
def test_fractional_max_pool_with_fixed_samples_matches_torch(n, kwargs):
    samples = rand(1, 2, n, low=0.0, high=1.0)
    with torch.no_grad():
        tm = getattr(torch.nn, f"FractionalMaxPool{n}d")(2, _random_samples=to_th(samples),
                                                         **kwargs)
    pm = getattr(nn, f"FractionalMaxPool{n}d")(2, _random_samples=to_pt(samples), **kwargs)
    same_repr(tm, pm)
    assert list(pm.state_dict()) == list(tm.state_dict()) == ["_random_samples"]
    compare(tm, pm, [rand(1, 2, *([6] * n))])
    assert pm.kernel_size == tm.kernel_size and pm.output_size == tm.output_size
    assert pm.output_ratio == tm.output_ratio


def test_fractional_max_pool_random_regions_pick_maxima():
    m = nn.FractionalMaxPool2d(2, output_size=3)
    x = pytensor.from_numpy(rand(1, 1, 7, 7))
    out = m(x)
    assert tuple(out.shape) == (1, 1, 3, 3) and list(m.state_dict()) == []
    assert set(np_of(out).ravel()) <= set(np_of(x).ravel())


def test_pool_reprs_and_attributes():
    assert repr(nn.MaxPool2d(3)) == (
        "MaxPool2d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)")
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(nn.AvgPool2d(3, 1)) == "AvgPool2d(kernel_size=3, stride=1, padding=0)"
    assert repr(nn.AdaptiveAvgPool2d((2, None))) == "AdaptiveAvgPool2d(output_size=(2, None))"
    assert repr(nn.AdaptiveMaxPool1d(4)) == "AdaptiveMaxPool1d(output_size=4)"
    assert repr(nn.LPPool2d(2, 3)) == (
        "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)")
    assert repr(nn.MaxUnpool2d(2)) == (
        "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))")
    assert repr(nn.FractionalMaxPool3d(2, output_ratio=0.5)) == "FractionalMaxPool3d()"
    p = nn.AvgPool3d(2)
    assert p.divisor_override is None and p.count_include_pad and not p.ceil_mode


def test_max_pool_values_without_torch():
    x = pytensor.arange(16.0).reshape(1, 1, 4, 4)
    assert nn.MaxPool2d(2)(x).flatten().tolist() == [5.0, 7.0, 13.0, 15.0]
    assert nn.AvgPool2d(2)(x).flatten().tolist() == [2.5, 4.5, 10.5, 12.5]
    assert nn.AdaptiveMaxPool2d(1)(x).flatten().tolist() == [15.0]
    v, i = nn.MaxPool1d(2, return_indices=True)(pytensor.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
    assert v.flatten().tolist() == [3.0, 2.0] and i.flatten().tolist() == [1, 2]
    un = nn.MaxUnpool1d(2)(v, i)
    assert un.flatten().tolist() == [0.0, 3.0, 2.0, 0.0]
    lp = nn.LPPool1d(2, 2)(pytensor.tensor([[[3.0, 4.0]]]))
    assert abs(lp.item() - 5.0) < 1e-5


@pytest.mark.parametrize("make,msg", [
    (lambda: nn.FractionalMaxPool2d(2),
     "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"),
    (lambda: nn.FractionalMaxPool3d(2),
     "FractionalMaxPool3d requires specifying either an output size, or a pooling ratio"),
    (lambda: nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
     "only one of output_size and output_ratio may be specified"),
    (lambda: nn.FractionalMaxPool2d(2, output_ratio=1.5),
     "output_ratio must be between 0 and 1 (got 1.5)"),
    (lambda: nn.FractionalMaxPool3d(0, output_size=2),
     "kernel_size must be greater than 0, but got 0"),
    (lambda: nn.FractionalMaxPool3d((2, 0, 1), output_size=2),
     "kernel_size must be greater than 0, but got (2, 0, 1)"),
])
def test_fractional_constructor_errors(make, msg):
    with pytest.raises(ValueError) as e:
        make()
    assert str(e.value) == msg
