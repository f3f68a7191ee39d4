"""Layers against NumPy references, so that a machine without torch still checks what the
layers compute: convolutions (direct sums), transposed convolution as the adjoint of
convolution, padding modes, the norms (batch, instance with running statistics, layer, group,
RMS), and a few losses and activations with their reductions."""
import math

import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from test_nn_layers_util import np_of, rand, to_pt


def _conv2d_ref(x, w, b, stride=1, pad=0, dil=1, groups=1):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - dil * (kh - 1) - 1) // stride + 1
    ow = (wd - dil * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dil:i * dil + stride * oh:stride,
                           j * dil:j * dil + stride * ow:stride][:, :, :oh, :ow]
                out[:, g * og:(g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    return out + (0 if b is None else b[None, :, None, None])


@pytest.mark.parametrize("kwargs", [dict(), dict(stride=2, padding=1), dict(dilation=2),
                                    dict(groups=2, bias=False), dict(padding=1, stride=(1, 1))])
def test_conv2d_matches_direct_sum(kwargs):
    m = nn.Conv2d(4, 6, 3, **kwargs)
    x = rand(2, 4, 7, 6)
    ref = _conv2d_ref(x.astype(np.float64), np_of(m.weight).astype(np.float64),
                      None if m.bias is None else np_of(m.bias), m.stride[0], m.padding[0],
                      m.dilation[0], m.groups)
    np.testing.assert_allclose(np_of(m(to_pt(x))), ref, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
def test_conv_padding_modes_match_numpy_pad(mode, np_mode):
    m = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode)
    x = rand(1, 2, 5, 5)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), mode=np_mode)
    ref = _conv2d_ref(xp.astype(np.float64), np_of(m.weight).astype(np.float64), np_of(m.bias))
    np.testing.assert_allclose(np_of(m(to_pt(x))), ref, atol=1e-4, rtol=1e-4)


def test_conv_transpose_is_the_adjoint_of_conv():
    conv = nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False)
    x, y = rand(1, 3, 8, 8), rand(1, 4, 4, 4)
    # <conv(x), y> == <x, conv^T(y)>; conv^T is ConvTranspose2d(4 -> 3) with conv's weight
    adj = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, bias=False)
    with pytensor.no_grad():
        adj.weight.copy_(conv.weight)
    lhs = float((np_of(conv(to_pt(x))).astype(np.float64) * y).sum())
    rhs = float((x.astype(np.float64) * np_of(adj(to_pt(y), output_size=[8, 8]))).sum())
    assert abs(lhs - rhs) < 1e-4 * max(1.0, abs(lhs))


def test_instance_norm_running_stats_numpy_reference():
    m = nn.InstanceNorm1d(2, momentum=0.5, track_running_stats=True)
    x = rand(3, 2, 5)
    y = np_of(m(to_pt(x)))
    mean, var = x.mean(-1), x.var(-1)
    np.testing.assert_allclose(y, (x - mean[..., None]) / np.sqrt(var[..., None] + 1e-5),
                               atol=1e-4)
    np.testing.assert_allclose(np_of(m.running_mean), 0.5 * mean.mean(0), rtol=1e-5, atol=1e-6)
    unbiased = x.var(-1, ddof=1).mean(0)
    np.testing.assert_allclose(np_of(m.running_var), 0.5 + 0.5 * unbiased, rtol=1e-5)
    m.eval()
    y = np_of(m(to_pt(x)))
    ref = (x - np_of(m.running_mean)[None, :, None]) / np.sqrt(
        np_of(m.running_var)[None, :, None] + 1e-5)
    np.testing.assert_allclose(y, ref, atol=1e-4)


def test_feature_norms_numpy_reference():
    x = rand(2, 4, 3)
    ln = np_of(nn.LayerNorm(3)(to_pt(x)))
    np.testing.assert_allclose(ln, (x - x.mean(-1, keepdims=True)) / np.sqrt(
        x.var(-1, keepdims=True) + 1e-5), atol=1e-4)
    gn = np_of(nn.GroupNorm(2, 4)(to_pt(x)))
    g = x.reshape(2, 2, 6)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    np.testing.assert_allclose(gn, ref.reshape(2, 4, 3), atol=1e-4)
    rms = np_of(nn.RMSNorm(3, eps=1e-6)(to_pt(x)))
    np.testing.assert_allclose(rms, x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6),
                               atol=1e-4)
    bn = nn.BatchNorm1d(4, affine=False, track_running_stats=False)
    bn.eval()  # without running statistics eval mode uses the batch's
    out = np_of(bn(to_pt(x)))
    mean, var = x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), atol=1e-4)


def test_losses_numpy_reference():
    x, y = rand(4, 3), rand(4, 3)
    d = x - y
    assert math.isclose(nn.SmoothL1Loss(beta=0.5)(to_pt(x), to_pt(y)).item(), float(np.where(
        np.abs(d) < 0.5, 0.5 * d * d / 0.5, np.abs(d) - 0.25).mean()), rel_tol=1e-5)
    assert math.isclose(nn.HuberLoss(reduction="sum", delta=0.3)(to_pt(x), to_pt(y)).item(),
                        float(np.where(np.abs(d) < 0.3, 0.5 * d * d,
                                       0.3 * (np.abs(d) - 0.15)).sum()), rel_tol=1e-5)
    p = np.clip(rand(4, 3, low=0.1, high=0.9), 0.1, 0.9)
    t = (rand(4, 3) > 0).astype(np.float32)
    bce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    np.testing.assert_allclose(np_of(nn.BCELoss(reduction="none")(to_pt(p), to_pt(t))), bce,
                               rtol=1e-5)
    logits = rand(4, 3)
    labels = np.array([0, 2, 1, 2])
    w = np.array([1.0, 2.0, 0.5], np.float32)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    picked = -logp[np.arange(4), labels] * w[labels]
    ce = nn.CrossEntropyLoss(weight=to_pt(w))(to_pt(logits), to_pt(labels))
    assert math.isclose(ce.item(), float(picked.sum() / w[labels].sum()), rel_tol=1e-5)
    nll = nn.NLLLoss(ignore_index=2, reduction="sum")(to_pt(logp), to_pt(labels))
    assert math.isclose(nll.item(), float(-logp[[0, 2], [0, 1]].sum()), rel_tol=1e-5)


def test_activations_numpy_reference():
    x = rand(3, 4, low=-3.0, high=3.0)
    cases = {
        nn.ELU(0.5): np.where(x > 0, x, 0.5 * (np.exp(x) - 1)),
        nn.Softplus(2.0): np.log1p(np.exp(2 * x)) / 2,
        nn.Hardsigmoid(): np.clip(x / 6 + 0.5, 0, 1),
        nn.Softsign(): x / (1 + np.abs(x)),
        nn.Tanhshrink(): x - np.tanh(x),
        nn.LogSigmoid(): -np.log1p(np.exp(-x)),
        nn.Softmin(1): np.exp(-x) / np.exp(-x).sum(1, keepdims=True),
        nn.GLU(): x[:, :2] / (1 + np.exp(-x[:, 2:])),
    }
    for layer, ref in cases.items():
        np.testing.assert_allclose(np_of(layer(to_pt(x))), ref, rtol=1e-5, atol=1e-6,
                                   err_msg=repr(layer))
