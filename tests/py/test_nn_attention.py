"""scaled_dot_product_attention: the fused CPU kernel (_scaled_dot_product_flash_attention_for_cpu
and its backward) and the math composition, against a NumPy reference (always) and torch (when
installed): values, gradients, masks (bool, float, broadcast, rows masked throughout), is_causal,
grouped-query heads, dtypes, strided inputs, block edges (128 query rows, 128 keys), the path
each call takes, node names and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _pt(a, grad=False):
    x = pytensor.from_numpy(np.ascontiguousarray(a))
    if grad:
        x.requires_grad_(True)
    return x


def reference(q, k, v, mask=None, causal=False, scale=None, gqa=False):
    """softmax(q k^T * scale + mask) v in float64, rows masked throughout giving 0."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if gqa and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, rep, axis=-3), np.repeat(v, rep, axis=-3)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    L, S = s.shape[-2:]
    if causal:
        s = np.where(np.tril(np.ones((L, S), dtype=bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    m = s.max(-1, keepdims=True)
    full = np.isneginf(m)
    e = np.exp(s - np.where(full, 0, m))
    p = np.where(full, 0, e / np.where(full, 1, e.sum(-1, keepdims=True)))
    return p @ v


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


CASES = [  # B, Hq, Hk, L, S, E, causal, mask kind, gqa
    (2, 3, 3, 5, 7, 8, False, None, False),
    (1, 2, 2, 128, 128, 16, False, None, False),       # exactly one block each way
    (2, 4, 2, 70, 150, 16, True, None, True),          # block edges, causal, grouped heads
    (1, 2, 2, 130, 129, 32, False, "bool", False),     # a row masked throughout
    (2, 2, 2, 64, 200, 8, False, "float", False),
    (2, 2, 2, 9, 5, 8, False, "bool4", False),         # (B, 1, L, S) mask
    (1, 1, 1, 3, 200, 4, True, None, False),           # causal with S > L
    (1, 1, 1, 200, 3, 4, True, None, False),           # causal with L > S
]


def _mask(kind, B, L, S, seed):
    rng = np.random.default_rng(seed)
    if kind == "bool":
        m = rng.random((L, S)) > 0.3
        m[3] = False
        return m
    if kind == "float":
        return rng.standard_normal((L, S)).astype(np.float32)
    if kind == "bool4":
        return rng.random((B, 1, L, S)) > 0.5
    return None


@pytest.mark.parametrize("case", CASES, ids=[str(c[:9]) for c in CASES])
def test_fused_forward_matches_the_reference(case):
    B, Hq, Hk, L, S, E, causal, mk, gqa = case
    q, k, v = rand(B, Hq, L, E, seed=1), rand(B, Hk, S, E, seed=2), rand(B, Hk, S, E, seed=3)
    m = _mask(mk, B, L, S, 4)
    out = F.scaled_dot_product_attention(_pt(q), _pt(k), _pt(v), None if m is None else _pt(m),
                                         is_causal=causal, enable_gqa=gqa)
    np.testing.assert_allclose(_np(out), reference(q, k, v, m, causal, gqa=gqa), atol=2e-5,
                               rtol=1e-4)


@requires_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[str(c[:9]) for c in CASES])
def test_fused_forward_and_backward_match_torch(case, dtype):
    B, Hq, Hk, L, S, E, causal, mk, gqa = case
    arrs = [rand(B, Hq, L, E, seed=1, dtype=dtype), rand(B, Hk, S, E, seed=2, dtype=dtype),
            rand(B, Hk, S, E, seed=3, dtype=dtype)]
    m = _mask(mk, B, L, S, 4)
    if m is not None and m.dtype != bool:
        m = m.astype(dtype)
    tq = [torch.tensor(a, requires_grad=True) for a in arrs]
    tm = None if m is None else torch.tensor(m)
    to = torch.nn.functional.scaled_dot_product_attention(*tq, attn_mask=tm, is_causal=causal,
                                                          enable_gqa=gqa)
    go = rand(*to.shape, seed=5, dtype=dtype)
    to.backward(torch.tensor(go))
    pq = [_pt(a, True) for a in arrs]
    po = F.scaled_dot_product_attention(*pq, attn_mask=None if m is None else _pt(m),
                                        is_causal=causal, enable_gqa=gqa)
    assert po.grad_fn.name() == to.grad_fn.name() == \
        "ScaledDotProductFlashAttentionForCpuBackward0"
    po.backward(_pt(go))
    tol = 1e-5 if dtype == "float32" else 1e-11
    np.testing.assert_allclose(_np(po), _np(to), atol=tol, rtol=tol * 10)
    for p, t in zip(pq, tq):
        np.testing.assert_allclose(_np(p.grad), _np(t.grad), atol=tol * 10, rtol=tol * 100)


@requires_torch
def test_fused_operator_gives_torchs_layouts_and_logsumexp():
    q, k, v = (rand(2, 3, 70, 8, seed=s) for s in (1, 2, 3))
    fm = np.zeros((70, 70), dtype=np.float32)
    fm[5] = -np.inf
    to, tl = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        *(torch.tensor(a) for a in (q, k, v)), attn_mask=torch.tensor(fm))
    po, pl = pytensor._scaled_dot_product_flash_attention_for_cpu(_pt(q), _pt(k), _pt(v),
                                                                   attn_mask=_pt(fm))
    assert po.stride() == to.stride() and pl.stride() == tl.stride()
    assert pl.dtype == pytensor.float32
    np.testing.assert_allclose(_np(po), _np(to), atol=1e-5)
    np.testing.assert_allclose(_np(pl), _np(tl), atol=1e-5)
    assert (_np(po)[:, :, 5] == 0).all() and (_np(pl)[:, :, 5] == 0).all()


def test_fused_kernel_applies_a_mask_and_is_causal_together():
    q, k, v = (rand(1, 2, 6, 8, seed=s) for s in (1, 2, 3))
    m = rand(6, 6, seed=4)
    out = F.scaled_dot_product_attention(_pt(q), _pt(k), _pt(v), attn_mask=_pt(m), is_causal=True)
    want = reference(q, k, v, m + np.where(np.tril(np.ones((6, 6))), 0, -np.inf))
    np.testing.assert_allclose(_np(out), want, atol=2e-5)


def test_rows_masked_throughout_give_zeros_and_zero_gradients():
    q, k, v = (_pt(rand(1, 1, n, 8, seed=s), True) for s, n in ((1, 4), (2, 6), (3, 6)))
    m = np.ones((4, 6), dtype=bool)
    m[2] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=_pt(m))
    assert (_np(out)[0, 0, 2] == 0).all()
    out.sum().backward()
    assert (_np(q.grad)[0, 0, 2] == 0).all()
    assert np.isfinite(_np(k.grad)).all() and np.isfinite(_np(v.grad)).all()


@pytest.mark.parametrize("dtype", [pytensor.bfloat16, pytensor.float16])
def test_half_inputs_compute_in_float32(dtype):
    q, k, v = (rand(1, 2, 33, 16, seed=s) for s in (1, 2, 3))
    pq, pk, pv = (_pt(a).to(dtype) for a in (q, k, v))
    out = F.scaled_dot_product_attention(pq, pk, pv)
    assert out.dtype == dtype
    want = reference(*(_np(t.float()) for t in (pq, pk, pv)))
    np.testing.assert_allclose(_np(out.float()), want, atol=2e-2, rtol=2e-2)


def test_strided_inputs_take_the_fused_path_and_agree():
    # (B, L, H, E) memory seen as (B, H, L, E), as attention layers hand it over
    q, k, v = (rand(2, 40, 3, 8, seed=s) for s in (1, 2, 3))
    pq, pk, pv = (_pt(a, True) for a in (q, k, v))
    out = F.scaled_dot_product_attention(*(t.transpose(1, 2) for t in (pq, pk, pv)))
    assert out.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    want = reference(*(np.swapaxes(a, 1, 2) for a in (q, k, v)))
    np.testing.assert_allclose(_np(out), want, atol=2e-5)
    out.sum().backward()
    assert pq.grad.shape == pq.shape


def test_gradcheck_fused_and_math_paths():
    rng = np.random.default_rng(0)
    for shape_q, shape_kv, kw in [((1, 2, 5, 4), (1, 2, 6, 4), {}),
                                  ((1, 2, 5, 4), (1, 2, 6, 4), {"is_causal": True}),
                                  ((1, 4, 3, 4), (1, 2, 3, 4), {"enable_gqa": True}),
                                  ((2, 5, 4), (2, 6, 4), {}),                   # math: 3-D
                                  ((1, 1, 5, 4), (1, 1, 6, 4), {"scale": 0.3})]:
        ins = [pytensor.from_numpy(rng.standard_normal(s)).requires_grad_(True)
               for s in (shape_q, shape_kv, shape_kv)]
        assert pytensor.autograd.gradcheck(
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw), ins)


def test_math_path_serves_what_the_fused_kernel_does_not():
    q, k = rand(2, 5, 8, seed=1), rand(2, 6, 8, seed=2)
    v = rand(2, 6, 3, seed=3)                       # value's last dim differs: math
    pq, pk, pv = (_pt(a, True) for a in (q, k, v))
    out = F.scaled_dot_product_attention(pq, pk, pv)
    assert out.grad_fn.name() == "UnsafeViewBackward0"
    np.testing.assert_allclose(_np(out), reference(q, k, v), atol=2e-5)


def test_dropout_goes_through_the_math_path_and_the_generator():
    q = _pt(rand(1, 2, 16, 8, seed=1))
    pytensor.manual_seed(3)
    a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    pytensor.manual_seed(3)
    b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert (_np(a) == _np(b)).all()
    assert not np.allclose(_np(a), reference(_np(q), _np(q), _np(q)), atol=1e-3)
    assert (_np(F.scaled_dot_product_attention(q, q, q, dropout_p=1.0)) == 0).all()


def test_math_operator_with_a_dropout_mask_is_exact():
    q, k, v = (rand(1, 1, 4, 8, seed=s) for s in (1, 2, 3))
    keep = np.random.default_rng(0).random((1, 1, 4, 4)) > 0.5
    out, attn = pytensor._scaled_dot_product_attention_math(
        _pt(q), _pt(k), _pt(v), dropout_p=0.25, dropout_mask=_pt(keep))
    s = q.astype(np.float64) @ np.swapaxes(k, -1, -2) / math.sqrt(8)
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True) * keep / 0.75
    np.testing.assert_allclose(_np(attn), p, atol=1e-5)
    np.testing.assert_allclose(_np(out), p @ v, atol=1e-5)


def test_safe_softmax_gives_zero_rows_where_softmax_gives_nan():
    x = _pt(np.array([[1.0, 2.0], [-np.inf, -np.inf], [np.nan, 0.0]], dtype=np.float32))
    y = _np(pytensor._safe_softmax(x, -1))
    np.testing.assert_allclose(y[0], np.exp([1, 2]) / np.exp([1, 2]).sum(), rtol=1e-6)
    assert (y[1] == 0).all() and np.isnan(y[2]).all()


def test_bad_input_is_refused_with_torchs_messages():
    q = _pt(rand(1, 2, 4, 8))
    with pytest.raises(RuntimeError, match="Expected query, key, and value to have the same "
                                           "dtype, but got query.dtype: float key.dtype: double "
                                           "and value.dtype: float instead."):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(RuntimeError, match="but got attn_mask.dtype: long int and  query.dtype: "
                                           "float instead."):
        F.scaled_dot_product_attention(q, q, q, attn_mask=pytensor.ones(4, 4, dtype=pytensor.int64))
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when "
                                           "is_causal=True"):
        F.scaled_dot_product_attention(q[0], q[0], q[0], attn_mask=pytensor.ones(4, 4),
                                       is_causal=True)  # the math path's check
    with pytest.raises(RuntimeError, match="at least 2 dimensional"):
        F.scaled_dot_product_attention(_pt(rand(4)), _pt(rand(4)), _pt(rand(4)))
    with pytest.raises(RuntimeError):  # heads that differ without enable_gqa: matmul refuses
        F.scaled_dot_product_attention(q, _pt(rand(1, 3, 4, 8)), _pt(rand(1, 3, 4, 8)))
    with pytest.raises(RuntimeError, match="does not broadcast"):
        pytensor._scaled_dot_product_flash_attention_for_cpu(q, q, q, attn_mask=pytensor.ones(3, 4))
    with pytest.raises(RuntimeError, match="dropout is not supported"):
        pytensor._scaled_dot_product_flash_attention_for_cpu(q, q, q, 0.5)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but "
                                           "got 1.5"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)


def test_fused_operators_refuse_what_they_cannot_compute():
    flash = pytensor._scaled_dot_product_flash_attention_for_cpu
    q = _pt(rand(1, 2, 4, 8))
    with pytest.raises(RuntimeError, match="Expected query to be a 4-dimensional tensor"):
        flash(q[0], q, q)
    with pytest.raises(RuntimeError, match="must have the same last dimension"):
        flash(q, q, _pt(rand(1, 2, 4, 3)))
    with pytest.raises(RuntimeError, match=r"number of query heads \(3\) must be a multiple"):
        kv = _pt(rand(1, 2, 4, 8))
        flash(_pt(rand(1, 3, 4, 8)), kv, kv)
    with pytest.raises(RuntimeError, match="of 5 dimensions does not broadcast"):
        flash(q, q, q, attn_mask=pytensor.zeros(1, 1, 1, 4, 4))
    with pytest.raises(RuntimeError, match="expected query of dtype float, double, half or "
                                           "bfloat16, but got"):
        i = pytensor.ones(1, 2, 4, 8, dtype=pytensor.int64)
        flash(i, i, i)
    out, lse = flash(q, q, q)
    back = pytensor._scaled_dot_product_flash_attention_for_cpu_backward
    with pytest.raises(RuntimeError, match="logsumexp has the wrong shape"):
        back(out, q, q, q, out, lse[0], 0.0, False)
    with pytest.raises(RuntimeError, match="grad_out has the wrong shape"):
        back(out[0], q, q, q, out, lse, 0.0, False)
    with pytest.raises(RuntimeError, match="dropout is not supported"):
        back(out, q, q, q, out, lse, 0.5, False)


def test_functional_names_follow_torch():
    assert F.scaled_dot_product_attention is pytensor._C._nn.scaled_dot_product_attention
    assert not hasattr(pytensor, "scaled_dot_product_attention")
