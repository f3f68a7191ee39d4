"""Convolution layers (pytensor.nn.Conv*, ConvTranspose*, LazyConv*): parameter shapes and
names, default initialization bounds, extra_repr, padding modes and 'same'/'valid', output_size
of the transposed forms, forward and backward against torch, and torch's error messages."""
import math

import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from _torch_oracle import requires_torch, torch
from test_nn_layers_util import compare, layer_pair, np_of, rand, raises_like, same_repr, \
    same_state_keys

CONV_CASES = [
    ("Conv1d", (2, 4, 3), {}, (2, 2, 7)),
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=1, groups=2, bias=False), (2, 4, 9)),
    ("Conv1d", (2, 3, 3), dict(padding="same", dilation=2), (1, 2, 8)),
    ("Conv1d", (2, 3, 4), dict(padding="same", padding_mode="reflect"), (1, 2, 8)),
    ("Conv1d", (2, 3, 3), dict(padding=2, padding_mode="circular"), (1, 2, 6)),
    ("Conv1d", (2, 3, 3), dict(padding="valid"), (2, 6)),
    ("Conv2d", (3, 4, 3), dict(padding=1), (2, 3, 5, 6)),
    ("Conv2d", (3, 4, (2, 3)), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2)), (1, 3, 6, 7)),
    ("Conv2d", (2, 2, 3), dict(padding=1, padding_mode="replicate"), (2, 2, 4, 4)),
    ("Conv2d", (2, 2, 3), dict(padding=(1, 2), padding_mode="reflect"), (1, 2, 5, 5)),
    ("Conv2d", (4, 4, 3), dict(groups=4, padding="same"), (1, 4, 5, 5)),
    ("Conv2d", (2, 3, 3), dict(padding=1, padding_mode="circular"), (2, 5, 5)),
    ("Conv3d", (2, 3, 2), {}, (1, 2, 3, 4, 4)),
    ("Conv3d", (2, 2, 3), dict(padding=1, padding_mode="replicate", bias=False), (1, 2, 3, 3, 3)),
    ("ConvTranspose1d", (2, 3, 3), {}, (2, 2, 5)),
    ("ConvTranspose1d", (4, 2, 3), dict(stride=2, padding=1, output_padding=1, groups=2),
     (1, 4, 5)),
    ("ConvTranspose2d", (3, 2, 3), dict(stride=2, dilation=2, bias=False), (1, 3, 3, 4)),
    ("ConvTranspose2d", (2, 2, (2, 3)), dict(stride=(2, 1), padding=(0, 1)), (2, 3, 3)),
    ("ConvTranspose3d", (2, 2, 2), dict(stride=2), (1, 2, 2, 3, 2)),
]


@requires_torch
@pytest.mark.parametrize("name,args,kwargs,shape", CONV_CASES)
def test_conv_layers_match_torch(name, args, kwargs, shape):
    tm, pm = layer_pair(name, *args, **kwargs)
    same_repr(tm, pm)
    same_state_keys(tm, pm)
    compare(tm, pm, [rand(*shape)], atol=1e-4)


@requires_torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("ConvTranspose1d", (2, 3, 3), dict(stride=2)),
    ("ConvTranspose2d", (2, 3, 3), dict(stride=3, padding=1)),
    ("ConvTranspose3d", (1, 2, 2), dict(stride=2)),
])
def test_conv_transpose_output_size_matches_torch(name, args, kwargs):
    tm, pm = layer_pair(name, *args, **kwargs)
    n = int(name[-2])
    x = rand(1, args[0], *([3] * n))
    low = [(3 - 1) * tm.stride[d] - 2 * tm.padding[d] + (tm.kernel_size[d] - 1) + 1
           for d in range(n)]
    for extra in range(tm.stride[0]):
        size = [v + extra for v in low]
        compare(tm, pm, [x], kwargs=dict(output_size=size), atol=1e-4)
        compare(tm, pm, [x], kwargs=dict(output_size=[1, args[1]] + size), atol=1e-4)
    bad = [v + tm.stride[0] for v in low]
    raises_like(ValueError, lambda: tm(torch.from_numpy(x), output_size=bad),
                lambda: pm(pytensor.from_numpy(x), output_size=bad))
    raises_like(ValueError, lambda: tm(torch.from_numpy(x), output_size=[4] * (n + 1)),
                lambda: pm(pytensor.from_numpy(x), output_size=[4] * (n + 1)))


def test_conv_parameter_shapes_and_names():
    c = nn.Conv2d(4, 6, (3, 2), groups=2)
    assert tuple(c.weight.shape) == (6, 2, 3, 2) and tuple(c.bias.shape) == (6,)
    assert [n for n, _ in c.named_parameters()] == ["weight", "bias"]
    t = nn.ConvTranspose2d(4, 6, 3, groups=2, bias=False)
    assert tuple(t.weight.shape) == (4, 3, 3, 3) and t.bias is None
    assert list(t.state_dict()) == ["weight"]
    assert c.kernel_size == (3, 2) and c.stride == (1, 1) and c.padding == (0, 0)
    assert t.output_padding == (0, 0) and t.transposed and not c.transposed


def test_conv_reprs():
    assert repr(nn.Conv1d(2, 3, 3)) == "Conv1d(2, 3, kernel_size=(3,), stride=(1,))"
    assert repr(nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False,
                          padding_mode="reflect")) == (
        "Conv2d(2, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
        "groups=2, bias=False, padding_mode=reflect)")
    assert repr(nn.Conv3d(1, 1, 1, padding="same")) == (
        "Conv3d(1, 1, kernel_size=(1, 1, 1), stride=(1, 1, 1), padding=same)")
    assert repr(nn.ConvTranspose2d(2, 2, 3, stride=2, output_padding=1)) == (
        "ConvTranspose2d(2, 2, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))")


def test_conv_init_within_kaiming_bounds():
    c = nn.Conv2d(8, 16, 3)
    fan_in = 8 * 9
    w, b = np_of(c.weight), np_of(c.bias)
    wb = math.sqrt(6 / ((1 + 5) * fan_in))  # kaiming_uniform_(a=sqrt(5))
    assert np.abs(w).max() <= wb and np.abs(w).max() > 0.8 * wb
    assert abs(w.std() - wb / math.sqrt(3)) < 0.15 * wb
    assert np.abs(b).max() <= 1 / math.sqrt(fan_in)
    t = nn.ConvTranspose1d(4, 6, 3)  # fan_in of the transposed weight is out/groups * k
    assert np.abs(np_of(t.bias)).max() <= 1 / math.sqrt(6 * 3)


def test_conv_same_padding_matches_manual_pad():
    c = nn.Conv1d(1, 1, 4, padding="same", bias=False)
    x = pytensor.from_numpy(rand(1, 1, 6))
    ref = nn.functional.conv1d(nn.functional.pad(x, (1, 2)), c.weight)
    np.testing.assert_allclose(np_of(c(x)), np_of(ref), atol=1e-6)
    assert tuple(c(x).shape) == (1, 1, 6)


def test_conv_circular_padding_wraps():
    c = nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular", bias=False)
    with pytensor.no_grad():
        c.weight.copy_(pytensor.tensor([[[1.0, 0.0, 0.0]]]))
    out = c(pytensor.tensor([[[1.0, 2.0, 3.0]]]))
    assert out.flatten().tolist() == [3.0, 1.0, 2.0]


@pytest.mark.parametrize("make,msg", [
    (lambda m: m.Conv2d(4, 4, 3, groups=0), "groups must be a positive integer"),
    (lambda m: m.Conv2d(3, 4, 3, groups=2), "in_channels must be divisible by groups"),
    (lambda m: m.Conv2d(4, 3, 3, groups=2), "out_channels must be divisible by groups"),
    (lambda m: m.Conv2d(2, 2, 3, padding="full"),
     "Invalid padding string 'full', should be one of {'same', 'valid'}"),
    (lambda m: m.Conv2d(2, 2, 3, padding="same", stride=2),
     "padding='same' is not supported for strided convolutions"),
    (lambda m: m.ConvTranspose2d(2, 2, 3, padding_mode="reflect"),
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
])
def test_conv_constructor_errors(make, msg):
    with pytest.raises(ValueError) as e:
        make(nn)
    if "{" not in msg:
        assert str(e.value) == msg
    else:  # a set's order is the hash seed's
        assert str(e.value).startswith(msg.split("{")[0])


@requires_torch
def test_conv_padding_mode_error_matches_torch():
    with pytest.raises(ValueError) as e:
        nn.Conv1d(1, 1, 1, padding_mode="wrap")
    assert str(e.value).endswith("but got padding_mode='wrap'")
    assert str(e.value).startswith("padding_mode must be one of {")


def test_lazy_conv_infers_in_channels():
    m = nn.LazyConv2d(5, 3, padding=1)
    out = m(pytensor.zeros(2, 3, 4, 4))
    assert type(m) is nn.Conv2d and m.in_channels == 3
    assert tuple(m.weight.shape) == (5, 3, 3, 3) and tuple(m.bias.shape) == (5,)
    assert tuple(out.shape) == (2, 5, 4, 4)
    t = nn.LazyConvTranspose1d(4, 2, stride=2, bias=False)
    out = t(pytensor.zeros(3, 6))  # unbatched
    assert type(t) is nn.ConvTranspose1d and tuple(t.weight.shape) == (3, 4, 2)
    assert t.bias is None and tuple(out.shape) == (4, 12)
    w = np_of(m.weight)
    assert np.abs(w).max() <= math.sqrt(6 / (6 * 27)) and w.std() > 0


def test_lazy_conv_bad_input_rank():
    m = nn.LazyConv1d(2, 3)
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input "
                                           r"to LazyConv1d, but got input of size: "):
        m(pytensor.zeros(1, 2, 3, 4))

