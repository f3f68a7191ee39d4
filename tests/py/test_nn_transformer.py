"""MultiheadAttention and the Transformer modules: parameter names, init, the causal mask,
reprs and messages without torch; outputs and every gradient against torch's (float64 and
float32; masks, key padding, batch_first, norm_first, gelu, bias=False, kdim/vdim,
add_bias_kv, add_zero_attn)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch


def _np(t):
    return np.asarray(t.detach().tolist())


# ---- without torch

def test_mha_parameter_names_and_init():
    m = nn.MultiheadAttention(8, 2)
    assert list(m.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                    "out_proj.bias"]
    assert m.in_proj_bias.abs().max().item() == 0 and m.out_proj.bias.abs().max().item() == 0
    bound = math.sqrt(6 / (8 + 24))
    assert m.in_proj_weight.abs().max().item() <= bound
    s = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    assert [(n, tuple(p.shape)) for n, p in s.named_parameters()] == [
        ("q_proj_weight", (8, 8)), ("k_proj_weight", (8, 3)), ("v_proj_weight", (8, 5)),
        ("bias_k", (1, 1, 8)), ("bias_v", (1, 1, 8)), ("out_proj.weight", (8, 8))]
    assert s.in_proj_weight is None and s.in_proj_bias is None
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                       "in_features=8, out_features=8, bias=True)\n)")


def test_mha_shapes_and_weights():
    m = nn.MultiheadAttention(8, 2, batch_first=True)
    q, k = pytensor.randn(3, 4, 8), pytensor.randn(3, 6, 8)
    out, w = m(q, k, k)
    assert out.shape == (3, 4, 8) and w.shape == (3, 4, 6)
    np.testing.assert_allclose(_np(w.sum(-1)), np.ones((3, 4)), rtol=1e-5)
    out, w = m(q, k, k, average_attn_weights=False)
    assert w.shape == (3, 2, 4, 6)
    out, w = m(q, k, k, need_weights=False)
    assert w is None
    out, w = m(q[0], k[0], k[0])
    assert out.shape == (4, 8) and w.shape == (4, 6)
    kpm = pytensor.tensor([[False] * 5 + [True]] * 3)
    _, w = m(q, k, k, key_padding_mask=kpm)
    assert w[..., 5].abs().max().item() == 0


def test_square_subsequent_mask_is_exact():
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    inf = float("-inf")
    assert mask.tolist() == [[0.0, inf, inf], [0.0, 0.0, inf], [0.0, 0.0, 0.0]]
    assert mask.dtype == pytensor.float32
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=pytensor.float64).dtype == \
        pytensor.float64


def test_layer_names_and_residual_structure():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    assert list(layer.state_dict()) == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
        "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
        "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"]
    assert layer.activation is F.relu and layer.activation_relu_or_gelu == 1
    x = pytensor.randn(5, 2, 8)
    sa = layer.self_attn(x, x, x, need_weights=False)[0]
    h = F.layer_norm(x + sa, (8,), layer.norm1.weight, layer.norm1.bias)
    ff = layer.linear2(F.relu(layer.linear1(h)))
    expect = F.layer_norm(h + ff, (8,), layer.norm2.weight, layer.norm2.bias)
    np.testing.assert_allclose(_np(layer(x)), _np(expect), rtol=1e-5, atol=1e-6)
    dec = nn.TransformerDecoderLayer(8, 2, 16, activation="gelu")
    assert dec.activation is F.gelu
    assert "multihead_attn.in_proj_weight" in dec.state_dict() and "norm3.bias" in dec.state_dict()


def test_stacks_and_transformer():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = nn.Transformer(8, 2, 2, 1, 16, dropout=0.0)
    keys = list(t.state_dict())
    assert keys[0] == "encoder.layers.0.self_attn.in_proj_weight"
    assert "encoder.layers.1.norm2.bias" in keys and "encoder.norm.weight" in keys
    assert "decoder.layers.0.multihead_attn.out_proj.bias" in keys
    assert keys[-1] == "decoder.norm.bias"
    layers = t.encoder.layers
    assert layers[0].linear1.weight is not layers[1].linear1.weight
    src, tgt = pytensor.randn(6, 2, 8), pytensor.randn(4, 2, 8)
    out = t(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4))
    assert out.shape == (4, 2, 8)


def test_encoder_nested_tensor_warning_and_flag():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    with pytest.warns(UserWarning, match="enable_nested_tensor is True, but "
                      "self.use_nested_tensor is False because encoder_layer.self_attn."
                      "batch_first was not True"):
        enc = nn.TransformerEncoder(layer, 2)
    assert enc.use_nested_tensor is False and enc.enable_nested_tensor is True
    ok = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1)
    assert ok.use_nested_tensor is True


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: nn.MultiheadAttention(0, 2), ValueError,
     "embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=2 instead"),
    (lambda: nn.MultiheadAttention(7, 2), AssertionError,
     "embed_dim must be divisible by num_heads"),
    (lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"), RuntimeError,
     "activation should be relu/gelu, not tanh"),
    (lambda: nn.Transformer(8, 2, 1, 1, 16)(pytensor.randn(3, 2, 8), pytensor.randn(3, 3, 8)),
     RuntimeError, "the batch number of src and tgt must be equal"),
    (lambda: nn.Transformer(8, 2, 1, 1, 16)(pytensor.randn(3, 2, 8), pytensor.randn(3, 2, 4)),
     RuntimeError, "the feature number of src and tgt must be equal to d_model"),
])
def test_bad_input_messages(call, exc, msg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as info:
            call()
    assert str(info.value) == msg


# ---- against torch

def _copy(tm, pm):
    pm.load_state_dict({k: pytensor.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})


def _close(a, b, dtype):
    tol = 1e-10 if dtype == "float64" else 3e-5
    np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=tol, atol=tol)


def _grads_match(pm, tm, dtype):
    for (n, a), (m, b) in zip(pm.named_parameters(), tm.named_parameters()):
        assert n == m
        _close(a.grad, b.grad, dtype)


MHA_CONFIGS = [dict(), dict(kdim=3, vdim=5), dict(add_bias_kv=True, add_zero_attn=True),
               dict(batch_first=True, bias=False)]


@requires_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kw", MHA_CONFIGS, ids=["packed", "kvdim", "bias_kv_zero", "bf_nobias"])
def test_mha_matches_torch(kw, dtype):
    tdt, pdt = getattr(torch, dtype), getattr(pytensor, dtype)
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2, dtype=tdt, **kw)
    pm = nn.MultiheadAttention(8, 2, dtype=pdt, **kw)
    assert list(pm.state_dict()) == list(tm.state_dict())
    _copy(tm, pm)
    bf = kw.get("batch_first", False)
    q = torch.randn(4, 3, 8, dtype=tdt, requires_grad=True)
    k = torch.randn(6, 3, kw.get("kdim", 8), dtype=tdt)
    v = torch.randn(6, 3, kw.get("vdim", 8), dtype=tdt)
    if bf:
        q, k, v = (t.detach().transpose(0, 1).contiguous().requires_grad_(t is q)
                   for t in (q, k, v))
    qp, kp, vp = (pytensor.tensor(t.detach().numpy()) for t in (q, k, v))
    qp.requires_grad_()
    kpm = torch.zeros(3, 6, dtype=tdt)
    kpm[0, 4:] = float("-inf")
    attn = torch.randn(4, 6, dtype=tdt)
    for avg in (True, False):
        ot, wt = tm(q, k, v, key_padding_mask=kpm, attn_mask=attn, average_attn_weights=avg)
        op, wp = pm(qp, kp, vp, key_padding_mask=pytensor.tensor(kpm.numpy()),
                    attn_mask=pytensor.tensor(attn.numpy()), average_attn_weights=avg)
        _close(op, ot, dtype)
        _close(wp, wt, dtype)
    ot.pow(2).sum().backward()
    op.pow(2).sum().backward()
    _close(qp.grad, q.grad, dtype)
    _grads_match(pm, tm, dtype)


ENC_CONFIGS = [dict(), dict(batch_first=True, norm_first=True, activation="gelu"),
               dict(bias=False)]


@requires_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kw", ENC_CONFIGS, ids=["post", "pre_gelu_bf", "nobias"])
def test_encoder_and_decoder_layers_match_torch(kw, dtype):
    tdt, pdt = getattr(torch, dtype), getattr(pytensor, dtype)
    torch.manual_seed(1)
    for kind in ("TransformerEncoderLayer", "TransformerDecoderLayer"):
        tm = getattr(torch.nn, kind)(8, 2, 16, dropout=0.0, dtype=tdt, **kw)
        pm = getattr(nn, kind)(8, 2, 16, dropout=0.0, dtype=pdt, **kw)
        assert list(pm.state_dict()) == list(tm.state_dict())
        _copy(tm, pm)
        x = torch.randn(5, 3, 8, dtype=tdt, requires_grad=True)
        xp = pytensor.tensor(x.detach().numpy()).requires_grad_()
        L = 3 if kw.get("batch_first") else 5
        mask = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=tdt)
        maskp = pytensor.tensor(mask.numpy())
        if kind == "TransformerEncoderLayer":
            ot, op = tm(x, src_mask=mask), pm(xp, src_mask=maskp)
        else:
            mem = torch.randn(5, 3, 8, dtype=tdt)
            ot = tm(x, mem, tgt_mask=mask, tgt_is_causal=True)
            op = pm(xp, pytensor.tensor(mem.numpy()), tgt_mask=maskp, tgt_is_causal=True)
        _close(op, ot, dtype)
        ot.pow(2).sum().backward()
        op.pow(2).sum().backward()
        _close(xp.grad, x.grad, dtype)
        _grads_match(pm, tm, dtype)


@requires_torch
def test_transformer_matches_torch():
    torch.manual_seed(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, dtype=torch.float64)
        pm = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, dtype=pytensor.float64)
    assert list(pm.state_dict()) == list(tm.state_dict())
    _copy(tm, pm)
    src = torch.randn(6, 2, 8, dtype=torch.float64, requires_grad=True)
    tgt = torch.randn(4, 2, 8, dtype=torch.float64)
    srcp = pytensor.tensor(src.detach().numpy()).requires_grad_()
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    kpm = torch.tensor([[False] * 5 + [True], [False] * 6])
    ot = tm(src, tgt, tgt_mask=tmask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
    op = pm(srcp, pytensor.tensor(tgt.numpy()), tgt_mask=pytensor.tensor(tmask.numpy()),
            src_key_padding_mask=pytensor.tensor(kpm.numpy()),
            memory_key_padding_mask=pytensor.tensor(kpm.numpy()))
    _close(op, ot, "float64")
    ot.sum().backward()
    op.sum().backward()
    _close(srcp.grad, src.grad, "float64")
    _grads_match(pm, tm, "float64")
    assert str(pm) == str(tm)


def test_activation_module_is_recognized_as_torch_does():
    layer = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU())
    assert layer.activation_relu_or_gelu == 2
    assert nn.TransformerEncoderLayer(8, 2, 16, activation=nn.ReLU()).activation_relu_or_gelu == 1
    assert nn.TransformerEncoderLayer(8, 2, 16, activation=F.silu).activation_relu_or_gelu == 0


@pytest.mark.parametrize("name", ["pytensor.nn.modules.rnn", "pytensor.nn.modules.mha",
                                  "pytensor.nn.modules.transformer", "pytensor.nn.utils.rnn"])
def test_docstring_examples_run(name):
    import doctest
    import importlib
    m = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in doctest.DocTestFinder().find(m, name, globs={"pytensor": pytensor})
             if t.examples and t.filename == m.__file__]
    assert tests
    for t in tests:
        runner.run(t)
    assert runner.summarize(verbose=False).failed == 0
