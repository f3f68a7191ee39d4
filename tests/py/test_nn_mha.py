"""pytensor.nn.functional.multi_head_attention_forward: a NumPy reference (always) and torch (when
installed) for values, attention weights, gradients of every input and parameter and autograd's
node names, over the in-projection forms (packed self-attention, encoder-decoder, separate
weights), masks of every kind (bool and float attn_mask in 2-d and 3-d, bool and float
key_padding_mask, both merged, is_causal), bias_k/bias_v, add_zero_attn, static_k/static_v,
unbatched inputs, need_weights both ways and average_attn_weights; gradcheck in float64 on both
paths; dropout; bad input with torch's exceptions and messages."""
import warnings

import numpy as np
import pytest

import pytensor
import pytensor.nn.functional as F
from _torch_oracle import requires_torch, torch

RNG = np.random.default_rng(5)
L, S, N, E, H = 5, 6, 3, 8, 2


def _params(e=E, rng=RNG):
    return {"in_w": rng.standard_normal((3 * e, e)) * 0.3, "in_b": rng.standard_normal(3 * e) * 0.1,
            "out_w": rng.standard_normal((e, e)) * 0.3, "out_b": rng.standard_normal(e) * 0.1}


# ---------------------------------------------------------------- NumPy reference
def _softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


def _reference(q, k, v, p, heads, mask=None):
    """Self- or cross-attention of (L, N, E) inputs with packed weights; mask (L, S) additive."""
    e = q.shape[-1]
    w_q, w_k, w_v = np.split(p["in_w"], 3)
    b_q, b_k, b_v = np.split(p["in_b"], 3)
    qp, kp, vp = q @ w_q.T + b_q, k @ w_k.T + b_k, v @ w_v.T + b_v
    lq, n, _ = qp.shape
    d = e // heads

    def split(x):  # (T, N, E) -> (N, H, T, d)
        return x.reshape(x.shape[0], n, heads, d).transpose(1, 2, 0, 3)

    scores = split(qp) @ split(kp).transpose(0, 1, 3, 2) / np.sqrt(d)
    if mask is not None:
        scores = scores + mask
    w = _softmax(scores)
    o = (w @ split(vp)).transpose(2, 0, 1, 3).reshape(lq, n, e)
    return o @ p["out_w"].T + p["out_b"], w


def _call(lib_f, lib, q, k, v, p, need_weights, **kw):
    t = {n: lib.tensor(a) for n, a in p.items()}
    return lib_f.multi_head_attention_forward(q, k, v, E, H, t["in_w"], t["in_b"], None, None,
                                              False, 0.0, t["out_w"], t["out_b"],
                                              need_weights=need_weights, **kw)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("cross", [False, True], ids=["self", "cross"])
def test_matches_numpy(need_weights, cross):
    p = _params()
    q = RNG.standard_normal((L, N, E))
    k = RNG.standard_normal((S, N, E)) if cross else q
    v = RNG.standard_normal((S, N, E)) if cross else q
    mask = np.where(np.triu(np.ones((L, k.shape[0]), bool), 1), -np.inf, 0.0)
    pq = pytensor.tensor(q)
    pk, pv = (pytensor.tensor(k), pytensor.tensor(v)) if cross else (pq, pq)
    o, w = _call(F, pytensor, pq, pk, pv, p, need_weights, attn_mask=pytensor.tensor(mask),
                 average_attn_weights=False)
    ro, rw = _reference(q, k, v, p, H, mask)
    np.testing.assert_allclose(o.numpy(), ro, rtol=1e-10, atol=1e-10)
    if need_weights:
        np.testing.assert_allclose(w.numpy(), rw, rtol=1e-10, atol=1e-10)
    else:
        assert w is None


def test_unbatched_matches_numpy():
    p = _params()
    q = RNG.standard_normal((L, E))
    o, w = _call(F, pytensor, pytensor.tensor(q), pytensor.tensor(q), pytensor.tensor(q), p, True)
    ro, rw = _reference(q[:, None], q[:, None], q[:, None], p, H)
    np.testing.assert_allclose(o.numpy(), ro[:, 0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(w.numpy(), rw[0].mean(0), rtol=1e-10, atol=1e-10)
    assert tuple(o.shape) == (L, E) and tuple(w.shape) == (L, L)


def test_key_padding_mask_hides_keys():
    """A padded key gets zero weight, whichever path computes the attention."""
    p = _params()
    q = pytensor.tensor(RNG.standard_normal((L, N, E)))
    kpm = np.zeros((N, L), bool)
    kpm[:, -2:] = True
    _, w = _call(F, pytensor, q, q, q, p, True, key_padding_mask=pytensor.tensor(kpm))
    assert np.all(w.numpy()[:, :, -2:] == 0)
    o1, _ = _call(F, pytensor, q, q, q, p, False, key_padding_mask=pytensor.tensor(kpm))
    o2, _ = _call(F, pytensor, q, q, q, p, True, key_padding_mask=pytensor.tensor(kpm))
    np.testing.assert_allclose(o1.numpy(), o2.numpy(), rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------- against torch
def _causal(n, m):
    return np.triu(np.ones((n, m), bool), 1)


CASES = {
    "plain": {},
    "cross": {"cross": True},
    "separate": {"cross": True, "separate": True},
    "separate_kdim": {"cross": True, "separate": True, "kdim": 5, "vdim": 7},
    "heads_unaveraged": {"average_attn_weights": False},
    "mask_bool_2d": {"attn_mask": lambda: _causal(L, L)},
    "mask_float_2d": {"attn_mask": lambda: np.where(_causal(L, L), -1e4, 0.5)},
    "mask_bool_3d": {"attn_mask": lambda: RNG.random((N * H, L, L)) < 0.3},
    "mask_float_3d": {"attn_mask": lambda: RNG.standard_normal((N * H, L, L))},
    "causal": {"attn_mask": lambda: np.where(_causal(L, L), -np.inf, 0.0), "is_causal": True},
    "kpm_bool": {"key_padding_mask": lambda: np.arange(L)[None, :] >= np.array([[5], [3], [4]])},
    "kpm_float": {"key_padding_mask": lambda: RNG.standard_normal((N, L))},
    "kpm_and_mask": {"key_padding_mask": lambda: np.arange(L)[None, :] >= np.array([[5], [3], [4]]),
                     "attn_mask": lambda: _causal(L, L)},
    "kpm_and_causal": {"key_padding_mask": lambda: np.arange(L)[None, :] >= np.array([[5], [3],
                                                                                       [4]]),
                       "attn_mask": lambda: np.where(_causal(L, L), -np.inf, 0.0),
                       "is_causal": True},
    "bias_kv": {"bias_kv": True, "attn_mask": lambda: _causal(L, L),
                "key_padding_mask": lambda: RNG.random((N, L)) < 0.3},
    "zero_attn": {"add_zero_attn": True, "attn_mask": lambda: RNG.standard_normal((L, L)),
                  "key_padding_mask": lambda: RNG.random((N, L)) < 0.3},
    "bias_kv_zero_attn": {"bias_kv": True, "add_zero_attn": True},
    "static_kv": {"static": True},
    "unbatched": {"unbatched": True, "attn_mask": lambda: RNG.standard_normal((H, L, L)),
                  "key_padding_mask": lambda: np.arange(L) >= 4},
    "no_bias": {"no_bias": True},
}


def _run(lib, F_, case, arrays, need_weights, dtype):
    def T(a, grad=True):
        t = lib.tensor(np.asarray(a, dtype=dtype) if a.dtype != bool else a)
        return t.requires_grad_(True) if grad and t.dtype != lib.bool else t

    leaves = {n: T(a) for n, a in arrays.items() if n in ("q", "k", "v", "in_w", "in_b", "out_w",
                                                           "out_b", "q_w", "k_w", "v_w", "bias_k",
                                                           "bias_v", "static_k", "static_v")}
    q = leaves["q"]
    k = leaves.get("k", q)
    v = leaves.get("v", k if "k" not in leaves else leaves["v"])
    kw = {}
    for n in ("attn_mask", "key_padding_mask"):
        if n in arrays:
            kw[n] = T(arrays[n], grad=False)
    if case.get("separate"):
        kw.update(use_separate_proj_weight=True, q_proj_weight=leaves["q_w"],
                  k_proj_weight=leaves["k_w"], v_proj_weight=leaves["v_w"])
    if case.get("static"):
        kw.update(static_k=leaves["static_k"], static_v=leaves["static_v"])
    out, w = F_.multi_head_attention_forward(
        q, k, v, E, H, leaves.get("in_w"), leaves.get("in_b"), leaves.get("bias_k"),
        leaves.get("bias_v"), case.get("add_zero_attn", False), 0.0, leaves["out_w"],
        leaves.get("out_b"), need_weights=need_weights, is_causal=case.get("is_causal", False),
        average_attn_weights=case.get("average_attn_weights", True), **kw)
    loss = (out * lib.tensor(arrays["g_out"].astype(dtype))).sum()
    if w is not None:
        loss = loss + (w * lib.tensor(arrays["g_w"][:w.numel()].reshape(tuple(w.shape))
                                      .astype(dtype))).sum()
    loss.backward()
    grads = {n: t.grad.numpy() for n, t in leaves.items() if t.grad is not None}
    name = out.grad_fn.name() if lib is pytensor else type(out.grad_fn).__name__
    wname = None if w is None else (w.grad_fn.name() if lib is pytensor
                                    else type(w.grad_fn).__name__)
    return out.detach().numpy(), None if w is None else w.detach().numpy(), grads, name, wname


def _arrays(case):
    unb = case.get("unbatched", False)
    batch = () if unb else (N,)

    def seq(n, e=E):
        return RNG.standard_normal((n,) + batch + (e,)) if not unb else RNG.standard_normal((n, e))

    a = {"q": seq(L), "out_w": RNG.standard_normal((E, E)) * 0.3}
    if not case.get("no_bias"):
        a["out_b"] = RNG.standard_normal(E) * 0.1
        a["in_b"] = RNG.standard_normal(3 * E) * 0.1
    if case.get("cross"):
        a["k"] = seq(S, case.get("kdim", E))
        a["v"] = seq(S, case.get("vdim", case.get("kdim", E)))
        if case.get("separate"):
            a["q_w"] = RNG.standard_normal((E, E)) * 0.3
            a["k_w"] = RNG.standard_normal((E, a["k"].shape[-1])) * 0.3
            a["v_w"] = RNG.standard_normal((E, a["v"].shape[-1])) * 0.3
    if not case.get("separate"):
        a["in_w"] = RNG.standard_normal((3 * E, E)) * 0.3
    if case.get("bias_kv"):
        a["bias_k"] = RNG.standard_normal((1, 1, E))
        a["bias_v"] = RNG.standard_normal((1, 1, E))
    if case.get("static"):
        a["static_k"] = RNG.standard_normal((N * H, 4, E // H))
        a["static_v"] = RNG.standard_normal((N * H, 4, E // H))
    for n in ("attn_mask", "key_padding_mask"):
        if n in case:
            a[n] = case[n]()
    a["g_out"] = RNG.standard_normal((L,) + batch + (E,))
    a["g_w"] = RNG.standard_normal(N * H * L * (S + 2) + 64)
    return a


@requires_torch
@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "sdpa"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matches_torch(name, need_weights, dtype):
    case = CASES[name]
    arrays = _arrays(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        po, pw, pg, pname, pwname = _run(pytensor, F, case, arrays, need_weights, dtype)
        to, tw, tg, tname, twname = _run(torch, torch.nn.functional, case, arrays, need_weights,
                                         dtype)
    tol = 1e-9 if dtype == np.float64 else 2e-5
    assert po.dtype == to.dtype and po.shape == to.shape
    np.testing.assert_allclose(po, to, rtol=tol, atol=tol)
    assert (pw is None) == (tw is None)
    if pw is not None:
        assert pw.shape == tw.shape
        np.testing.assert_allclose(pw, tw, rtol=tol, atol=tol)
    assert sorted(pg) == sorted(tg)
    for n in pg:
        np.testing.assert_allclose(pg[n], tg[n], rtol=tol * 10, atol=tol * 10, err_msg=n)
    assert pname == tname and pwname == twname


@requires_torch
def test_dropout_matches_torch_when_not_training():
    arrays = _arrays({})
    for need_weights in (True, False):
        res = []
        for lib, F_ in ((pytensor, F), (torch, torch.nn.functional)):
            t = {n: lib.tensor(arrays[n]) for n in ("q", "in_w", "in_b", "out_w", "out_b")}
            o, _ = F_.multi_head_attention_forward(t["q"], t["q"], t["q"], E, H, t["in_w"],
                                                   t["in_b"], None, None, False, 0.9, t["out_w"],
                                                   t["out_b"], training=False,
                                                   need_weights=need_weights)
            res.append(o.numpy())
        np.testing.assert_allclose(res[0], res[1], rtol=1e-10, atol=1e-10)


def test_dropout_in_training():
    p = _params()
    q = pytensor.tensor(RNG.standard_normal((L, N, E)))
    for need_weights in (True, False):
        o1, _ = _call(F, pytensor, q, q, q, p, need_weights)
        t = {n: pytensor.tensor(a) for n, a in p.items()}
        o2, w = F.multi_head_attention_forward(q, q, q, E, H, t["in_w"], t["in_b"], None, None,
                                               False, 0.5, t["out_w"], t["out_b"],
                                               need_weights=need_weights)
        assert tuple(o2.shape) == tuple(o1.shape)
        assert not np.allclose(o1.numpy(), o2.numpy())
        if need_weights:  # dropped weights are zero, the rest scaled by 2
            wn = w.numpy()
            assert np.all(wn >= 0) and np.any(wn == 0)


# ---------------------------------------------------------------- gradcheck
@pytest.mark.parametrize("need_weights", [True, False])
def test_gradcheck(need_weights):
    e, h, n, l, s = 4, 2, 2, 3, 4
    rng = np.random.default_rng(1)
    q = pytensor.tensor(rng.standard_normal((l, n, e)), requires_grad=True)
    k = pytensor.tensor(rng.standard_normal((s, n, e)), requires_grad=True)
    v = pytensor.tensor(rng.standard_normal((s, n, e)), requires_grad=True)
    w = pytensor.tensor(rng.standard_normal((3 * e, e)) * 0.5, requires_grad=True)
    b = pytensor.tensor(rng.standard_normal(3 * e) * 0.1, requires_grad=True)
    wo = pytensor.tensor(rng.standard_normal((e, e)) * 0.5, requires_grad=True)
    bk = pytensor.tensor(rng.standard_normal((1, 1, e)), requires_grad=True)
    bv = pytensor.tensor(rng.standard_normal((1, 1, e)), requires_grad=True)
    mask = pytensor.tensor(rng.standard_normal((l, s)))
    kpm = pytensor.tensor(np.array([[False] * s, [False] * (s - 1) + [True]]))

    def fn(q, k, v, w, b, wo, bk, bv):
        o, a = F.multi_head_attention_forward(q, k, v, e, h, w, b, bk, bv, True, 0.0, wo, None,
                                              attn_mask=mask, key_padding_mask=kpm,
                                              need_weights=need_weights)
        return (o, a) if need_weights else o

    assert pytensor.autograd.gradcheck(fn, (q, k, v, w, b, wo, bk, bv))


# ---------------------------------------------------------------- bad input
def _bad_cases():
    q3, q2 = RNG.standard_normal((L, N, E)), RNG.standard_normal((L, E))
    w, wo = RNG.standard_normal((3 * E, E)), RNG.standard_normal((E, E))
    return [
        ("query_4d", dict(q=q3[None])),
        ("key_2d_for_3d", dict(q=q3, k=q2, v=q2)),
        ("kpm_3d", dict(q=q3, key_padding_mask=np.zeros((N, L, 1), bool))),
        ("mask_4d", dict(q=q3, attn_mask=np.zeros((1, 1, L, L)))),
        ("unbatched_key_3d", dict(q=q2, k=q3, v=q3)),
        ("unbatched_kpm_2d", dict(q=q2, key_padding_mask=np.zeros((1, L), bool))),
        ("unbatched_mask_4d", dict(q=q2, attn_mask=np.zeros((1, 1, L, L)))),
        ("unbatched_mask_3d_shape", dict(q=q2, attn_mask=np.zeros((H + 1, L, L)))),
        ("int_mask", dict(q=q3, attn_mask=np.zeros((L, L), np.int64))),
        ("int_kpm", dict(q=q3, key_padding_mask=np.zeros((N, L), np.int64))),
        ("causal_without_mask", dict(q=q3, is_causal=True)),
        ("embed_dim", dict(q=q3, embed_dim=E + 1)),
        ("heads", dict(q=q3, heads=3)),
        ("key_value_shape", dict(q=q3, k=q3, v=q3[:, :, :4].copy())),
        ("no_in_proj", dict(q=q3, in_w=None)),
        ("separate_missing", dict(q=q3, separate=True)),
        ("mask_2d_shape", dict(q=q3, attn_mask=np.zeros((L, L + 1)))),
        ("mask_3d_shape", dict(q=q3, attn_mask=np.zeros((N, L, L)))),
        ("bias_k_alone", dict(q=q3, bias_k=np.zeros((1, 1, E)))),
        ("bias_v_alone", dict(q=q3, bias_v=np.zeros((1, 1, E)))),
        ("bias_with_static", dict(q=q3, bias_k=np.zeros((1, 1, E)), bias_v=np.zeros((1, 1, E)),
                                  static_k=np.zeros((N * H, 2, E // H)))),
        ("static_k_rows", dict(q=q3, static_k=np.zeros((N, 2, E // H)))),
        ("static_v_dim", dict(q=q3, static_v=np.zeros((N * H, 2, 3)))),
        ("kpm_shape", dict(q=q3, key_padding_mask=np.zeros((N, L + 1), bool))),
        ("kpm_batch", dict(q=q3, key_padding_mask=np.zeros((N + 1, L), bool))),
        ("weights_causal_no_mask", dict(q=q3, is_causal=True, attn_mask=_causal(L, L),
                                        need_weights=False, sdpa_ok=True)),
    ], w, wo


def _call_bad(lib, F_, spec, w, wo):
    def T(a):
        return None if a is None else lib.tensor(a)

    q = T(spec["q"])
    k = T(spec["k"]) if "k" in spec else q
    v = T(spec["v"]) if "v" in spec else (k if "k" not in spec else T(spec["v"]))
    kw = {n: T(spec[n]) for n in ("attn_mask", "key_padding_mask", "static_k", "static_v")
          if n in spec}
    if spec.get("separate"):
        kw["use_separate_proj_weight"] = True
    return F_.multi_head_attention_forward(
        q, k, v, spec.get("embed_dim", E), spec.get("heads", H), T(spec.get("in_w", w)), None,
        T(spec.get("bias_k")), T(spec.get("bias_v")), False, 0.0, T(wo), None,
        need_weights=spec.get("need_weights", True), is_causal=spec.get("is_causal", False), **kw)


def _message(e):
    return str(e).replace("torch.Size", "Size").replace("pytensor.Size", "Size").replace(
        "torch.Tensor", "Tensor").replace("pytensor.Tensor", "Tensor")


@requires_torch
def test_bad_input_matches_torch():
    cases, w, wo = _bad_cases()
    for name, spec in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                _call_bad(torch, torch.nn.functional, spec, w, wo)
                expected = None
            except Exception as e:  # noqa: BLE001 - torch's exception is the oracle
                expected = e
            try:
                _call_bad(pytensor, F, spec, w, wo)
                got = None
            except Exception as e:  # noqa: BLE001
                got = e
        if expected is None:
            assert got is None, (name, got)
            continue
        assert got is not None, name
        assert type(got) is type(expected), (name, got, expected)
        assert _message(got) == _message(expected), name


def test_bad_input_messages():
    cases, w, wo = _bad_cases()
    want = {
        "query_4d": (AssertionError, "query should be unbatched 2D or batched 3D tensor but "
                     "received 4-D query tensor"),
        "int_mask": (AssertionError, "only bool and floating types of attn_mask are supported"),
        "causal_without_mask": (RuntimeError, "Need attn_mask if specifying the is_causal hint."),
        "heads": (AssertionError, "embed_dim 8 not divisible by num_heads 3"),
        "bias_k_alone": (AssertionError, "bias_k is set but bias_v is None"),
        "kpm_shape": (AssertionError, "Expected key_padded_mask.shape[1] to be 5, but got 6"),
    }
    for name, spec in cases:
        if name in want:
            exc, msg = want[name]
            with pytest.raises(exc) as info:
                _call_bad(pytensor, F, spec, w, wo)
            assert msg in str(info.value)


def test_mismatched_mask_types_warn():
    q = pytensor.tensor(RNG.standard_normal((L, N, E)))
    p = _params()
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask"):
        _call(F, pytensor, q, q, q, p, True, attn_mask=pytensor.zeros(L, L, dtype=pytensor.float64),
              key_padding_mask=pytensor.zeros(N, L, dtype=pytensor.bool))


@requires_torch
@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "sdpa"])
def test_non_contiguous_inputs_match_torch(need_weights):
    """batch_first callers hand in (N, L, E) tensors transposed to (L, N, E)."""
    p = _params()
    q = RNG.standard_normal((N, L, E))
    k = RNG.standard_normal((N, S, E))
    res = []
    for lib, F_ in ((pytensor, F), (torch, torch.nn.functional)):
        tq = lib.tensor(q).requires_grad_(True)
        tk = lib.tensor(k).requires_grad_(True)
        o, w = _call(F_, lib, tq.transpose(0, 1), tk.transpose(0, 1), tk.transpose(0, 1), p,
                     need_weights)
        o.sum().backward()
        res.append((o.detach().numpy(), tq.grad.numpy(), tk.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
