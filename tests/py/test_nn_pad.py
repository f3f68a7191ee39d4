"""Padding: F.pad (constant, reflect, replicate, circular), constant_pad_nd and the
reflection/replication operators with their backward kernels. NumPy's np.pad is the reference
that runs everywhere; torch, where installed, pins values, gradients, memory formats, node names
and messages. gradcheck runs in float64 for every operator, and gradgradcheck for the backward
operators' own derivatives."""
import numpy as np
import pytest

import pytensor as pt
import pytensor.nn.functional as F
from pytensor._C import _nn
from pytensor.autograd import gradcheck, gradgradcheck

from _torch_oracle import requires_torch, torch

NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap", "constant": "constant"}


def np_pad(a: np.ndarray, pad, mode: str, value: float = 0.0) -> np.ndarray:
    """F.pad's result through np.pad (positive pads only)."""
    width = [(0, 0)] * (a.ndim - len(pad) // 2)
    width += [(pad[2 * k], pad[2 * k + 1]) for k in reversed(range(len(pad) // 2))]
    if mode == "constant":
        return np.pad(a, width, mode="constant", constant_values=value)
    return np.pad(a, width, mode=NP_MODE[mode])


def t(a):
    return pt.from_numpy(np.ascontiguousarray(a))


CASES = [((2, 3, 5), (2, 1)), ((3, 5), (1, 3)), ((2, 3, 4, 5), (1, 2, 3, 0)),
         ((3, 4, 5), (2, 2, 1, 1)), ((1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2)),
         ((2, 3, 4, 5), (0, 1, 2, 1, 1, 1))]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("shape,pad", CASES)
def test_pad_matches_numpy(mode, shape, pad):
    a = np.random.default_rng(0).standard_normal(shape)
    got = F.pad(t(a), pad, mode=mode, **({"value": 1.5} if mode == "constant" else {}))
    np.testing.assert_array_equal(got.numpy(), np_pad(a, pad, mode, 1.5))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float32, np.complex64])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_pad_any_dtype_forward(mode, dtype):
    a = (np.arange(2 * 3 * 4) % 7).reshape(2, 3, 4).astype(dtype)
    got = F.pad(t(a), (2, 1, 1, 1), mode=mode)
    np.testing.assert_array_equal(got.numpy(), np_pad(a, (2, 1, 1, 1), mode))


def test_constant_negative_pads_crop():
    a = np.arange(20.0).reshape(4, 5)
    np.testing.assert_array_equal(F.pad(t(a), (-1, 2, -2, 0)).numpy(),
                                  np.pad(a[2:, 1:], [(0, 0), (0, 2)]))
    np.testing.assert_array_equal(F.pad(t(a), (-1, -2)).numpy(), a[:, 1:3])
    x = t(a).requires_grad_()
    y = F.pad(x, (-1, -2))
    y.sum().backward()
    want = np.zeros_like(a)
    want[:, 1:3] = 1
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_constant_value_cast_to_integer_dtype():
    a = np.zeros((1, 2), dtype=np.int32)
    assert F.pad(t(a), (1, 1), value=2.5).tolist() == [[2, 0, 0, 2]]


def test_reflect_and_replicate_negative_pads():
    a = np.arange(24.0).reshape(1, 2, 3, 4)
    np.testing.assert_array_equal(_nn.reflection_pad2d(t(a), [-1, 2, 1, -1]).numpy(),
                                  _reference_map(a, [-1, 2, 1, -1], "reflect"))
    np.testing.assert_array_equal(_nn.replication_pad2d(t(a), [2, -3, -2, 1]).numpy(),
                                  _reference_map(a, [2, -3, -2, 1], "replicate"))


def _reference_map(a, pad, mode):
    """Output index o of a padded dim reads input index o - left, reflected or clamped."""
    out = a
    nd = len(pad) // 2
    for k in range(nd):
        d = a.ndim - 1 - k
        left, right = pad[2 * k], pad[2 * k + 1]
        n = out.shape[d]
        idx = np.arange(n + left + right) - left
        if mode == "reflect":
            idx = np.abs(idx)
            idx = np.where(idx >= n, 2 * (n - 1) - idx, idx)
        else:
            idx = np.clip(idx, 0, n - 1)
        out = np.take(out, idx, axis=d)
    return out


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 5), (2, 1)), ((1, 2, 4, 5), (1, 2, 3, 0)),
                                       ((1, 1, 3, 3, 4), (1, 1, 2, 0, 1, 2))])
def test_pad_gradcheck(mode, shape, pad):
    x = t(np.random.default_rng(1).standard_normal(shape)).requires_grad_()
    assert gradcheck(lambda v: F.pad(v, pad, mode=mode), (x,))


@pytest.mark.parametrize("kind", ["reflection", "replication"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_pad_backward_double_backward(kind, nd):
    shape = (2, 3, 4, 3, 5)[: nd + 2]
    pad = [1, 2, 2, 1, 0, 1][: 2 * nd]
    x = t(np.random.default_rng(2).standard_normal(shape)).requires_grad_()
    fn = getattr(_nn, f"{kind}_pad{nd}d")
    assert gradcheck(lambda v: fn(v, pad), (x,))
    assert gradgradcheck(lambda v: fn(v, pad), (x,))


def test_pad_channels_last_keeps_format():
    x = pt.randn(2, 3, 4, 5).contiguous(memory_format=pt.channels_last)
    for mode in ("reflect", "replicate", "constant"):
        y = F.pad(x, (1, 2, 1, 1), mode=mode)
        assert y.is_contiguous(memory_format=pt.channels_last), mode
        np.testing.assert_array_equal(y.numpy(), np_pad(x.numpy(), (1, 2, 1, 1), mode))


def test_pad_noncontiguous_input():
    base = np.random.default_rng(3).standard_normal((3, 4, 6))
    x = t(base).transpose(1, 2)[:, ::2]
    a = base.transpose(0, 2, 1)[:, ::2]
    for mode in ("reflect", "replicate", "circular"):
        np.testing.assert_array_equal(F.pad(x, (1, 2), mode=mode).numpy(), np_pad(a, (1, 2), mode))


def test_batch_of_zero():
    x = pt.zeros(0, 3, 4)
    assert F.pad(x, (1, 2), mode="reflect").shape == (0, 3, 7)
    assert F.pad(x, (1, 2), mode="replicate").shape == (0, 3, 7)


def test_zero_sized_results():
    x = pt.zeros(2, 1, 4, 3)
    assert pt.constant_pad_nd(x, [0, 0, 0, 0, -1, 0]).shape == (2, 0, 4, 3)
    assert pt.constant_pad_nd(x, [1, 0, 0, 0, -1, 0]).shape == (2, 0, 4, 4)
    # 2-d and 3-d reflection/replication refuse only outputs empty in every padded dim
    assert _nn.replication_pad2d(pt.zeros(1, 2, 6), [4, 2, -2, 0]).shape == (1, 0, 12)
    assert _nn.reflection_pad2d(pt.zeros(1, 2, 6), [1, 1, -2, 0]).shape == (1, 0, 8)
    with pytest.raises(RuntimeError, match=r"input \(H: 2, W: 6 \) is too small. Calculated "
                       r"output H: 0 W: 0"):
        _nn.replication_pad2d(pt.zeros(1, 2, 6), [-6, 0, -2, 0])
    with pytest.raises(RuntimeError, match=r"input \(D: 6 H: 1, W: 6\) is too small. "
                       r"Calculated output D: 0 H: 0 W: 0"):
        _nn.replication_pad3d(pt.zeros(1, 1, 6, 1, 6), [-6, 0, -1, 0, -6, 0])
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: "
                       r"\[1, 4, -1\]"):
        _nn.replication_pad2d(pt.zeros(1, 2, 6), [-4, -3, 1, 1])


def test_circular_pad_wider_than_what_negative_pads_keep():
    # torch would read elements it has not written yet (uninitialized memory); refused here
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once"):
        F.pad(pt.zeros(2, 2, 5), (-2, 4), mode="circular")
    a = np.arange(10.0).reshape(1, 2, 5)
    np.testing.assert_array_equal(F.pad(t(a), (3, -2), mode="circular").numpy(),
                                  np_pad(a[..., :3], (3, 0), "circular"))


def test_pad_messages():
    x = pt.zeros(2, 3, 4, 5)
    with pytest.raises(RuntimeError, match=r"Argument #4: Padding size should be less than the "
                       r"corresponding input dimension, but got: padding \(5, 1\) at dimension 3 "
                       r"of input \[2, 3, 4, 5\]"):
        F.pad(x, (5, 1, 1, 1), mode="reflect")
    with pytest.raises(RuntimeError, match=r"Argument #6: .*padding \(4, 1\) at dimension 2"):
        F.pad(x, (1, 1, 4, 1), mode="reflect")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1, 1, 1), mode="reflect")
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 1D input"):
        F.pad(pt.zeros(4), (1, 1), mode="reflect")
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode foo"):
        F.pad(x, (1, 1), mode="foo")
    with pytest.raises(RuntimeError, match='Padding mode "reflect" doesn\'t take in value'):
        F.pad(x, (1, 1), mode="reflect", value=1.0)
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once"):
        F.pad(pt.zeros(2, 3, 4), (5, 1), mode="circular")
    with pytest.raises(RuntimeError, match="Length of pad must be even but instead it equals 5"):
        pt.constant_pad_nd(pt.zeros(3, 4), [1, 1, 1, 1, 1])
    with pytest.raises(RuntimeError, match="Length of pad should be no more than twice"):
        pt.constant_pad_nd(pt.zeros(3, 4), [1, 1, 1, 1, 1, 1])
    with pytest.raises(RuntimeError, match="padding size is expected to be 2, but got: 3"):
        _nn.reflection_pad1d(pt.zeros(2, 3, 4), [1, 1, 1])
    with pytest.raises(RuntimeError, match=r"Expected 2D or 3D \(batch mode\) tensor with "
                       r"possibly 0 batch size and other non-zero dimensions for input, but got: "
                       r"\[2, 3, 0\]"):
        _nn.reflection_pad1d(pt.zeros(2, 3, 0), [1, 1])
    with pytest.raises(RuntimeError, match=r"input \(W: 4\) is too small. Calculated output W: "
                       r"-2"):
        _nn.replication_pad1d(pt.zeros(2, 3, 4), [-3, -3])
    with pytest.raises(NotImplementedError, match="\"reflection_pad1d\" not implemented for "
                       "'Bool'"):
        _nn.reflection_pad1d(pt.zeros(2, 3, 4, dtype=pt.bool), [1, 1])
    with pytest.raises(NotImplementedError, match="\"replication_pad1d_backward\" not "
                       "implemented for 'Int'"):
        _nn.replication_pad1d_backward(pt.zeros(2, 3, 6, dtype=pt.int32),
                                       pt.zeros(2, 3, 4, dtype=pt.int32), [1, 1])
    with pytest.raises(RuntimeError, match="grad_output width unexpected. Expected: 6, Got: 5"):
        _nn.reflection_pad1d_backward(pt.zeros(2, 3, 5), pt.zeros(2, 3, 4), [1, 1])


# ---------------------------------------------------------------- against torch

def to_pt(x):
    return pt.from_numpy(x.detach().numpy().copy())


def close(got, want, **kw):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), **kw)


@requires_torch
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("shape,pad", CASES + [((2, 3, 4), (-1, 2)),
                                               ((2, 3, 4, 5), (-1, 1, 2, -2))])
def test_pad_matches_torch_with_grad(mode, shape, pad):
    if mode == "circular" and len(shape) - len(pad) // 2 not in (1, 2):
        pytest.skip("not a circular case")
    xt = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    yt = torch.nn.functional.pad(xt, pad, mode=mode)
    g = torch.randn_like(yt)
    yt.backward(g)
    x = to_pt(xt).requires_grad_()
    y = F.pad(x, pad, mode=mode)
    y.backward(to_pt(g))
    close(y, yt)
    close(x.grad, xt.grad, rtol=1e-12, atol=1e-12)
    if mode in ("reflect", "replicate", "constant"):
        assert y.grad_fn.name() == yt.grad_fn.name()


@requires_torch
def test_pad_node_names_and_formats_match_torch():
    xt = torch.randn(1, 3, 4, 5).to(memory_format=torch.channels_last)
    x = to_pt(xt.contiguous()).contiguous(memory_format=pt.channels_last)
    for mode in ("reflect", "replicate", "constant"):
        want = torch.nn.functional.pad(xt, (1, 1, 2, 2), mode=mode)
        got = F.pad(x, (1, 1, 2, 2), mode=mode)
        assert got.is_contiguous(memory_format=pt.channels_last) == \
            want.is_contiguous(memory_format=torch.channels_last)
        close(got, want)


@requires_torch
def test_pad_messages_match_torch():
    cases = [
        (lambda m, x: m(x, [1, 1, 1]), "reflection_pad2d", (2, 3, 4, 4)),
        (lambda m, x: m(x, [1, 5]), "reflection_pad1d", (2, 3, 4)),
        (lambda m, x: m(x, [1, 1, 1, 1, 5, 1]), "reflection_pad3d", (2, 3, 4, 4, 4)),
        (lambda m, x: m(x, [1, 1, 1, 1]), "replication_pad2d", (3, 4)),
        (lambda m, x: m(x, [-3, -3]), "replication_pad1d", (2, 3, 4)),
    ]
    for call, name, shape in cases:
        with pytest.raises(Exception) as want:
            call(getattr(torch._C._nn, name), torch.zeros(shape))
        with pytest.raises(type(want.value)) as got:
            call(getattr(_nn, name), pt.zeros(*shape))
        assert str(want.value) == str(got.value)
