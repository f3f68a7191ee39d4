"""Helpers that the layer tests (tests/py/test_nn_layers_*.py) share: build one layer in torch
and in pytensor from the same arguments, give pytensor's torch's weights through
``load_state_dict`` (via NumPy), and compare forward results, input and parameter gradients,
state_dict keys and reprs. The tests of this file pin the helpers down without torch."""
import warnings

import numpy as np
import pytest

import pytensor
from _torch_oracle import HAVE_TORCH, torch

RNG = np.random.default_rng(2026)


def rand(*shape, dtype=np.float32, low=-1.0, high=1.0):
    return np.asarray(RNG.uniform(low, high, shape), dtype=dtype).reshape(shape)


def to_pt(a, grad=False):
    t = pytensor.from_numpy(np.array(a, copy=True))
    return t.requires_grad_(True) if grad else t


def to_th(a, grad=False):
    t = torch.from_numpy(np.array(a, copy=True))
    return t.requires_grad_(True) if grad else t


def np_of(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def layer_pair(name: str, *args, **kwargs):
    """(torch layer, pytensor layer) of class ``name`` from the same arguments, pytensor's
    holding torch's parameters and buffers (its state_dict loaded, strict)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = getattr(torch.nn, name)(*args, **kwargs)
        pm = getattr(pytensor.nn, name)(*args, **kwargs)
    copy_state(tm, pm)
    return tm, pm


def copy_state(tm, pm):
    sd = {k: pytensor.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
    result = pm.load_state_dict(sd)
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []


def same_repr(tm, pm):
    assert repr(pm) == repr(tm).replace("torch.", "pytensor.")


def same_state_keys(tm, pm):
    assert list(pm.state_dict().keys()) == list(tm.state_dict().keys())
    for k, v in tm.state_dict().items():
        p = pm.state_dict()[k]
        assert tuple(p.shape) == tuple(v.shape), k
        assert str(p.dtype).split(".")[1] == str(v.dtype).split(".")[1], k


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare(tm, pm, inputs, *, grad=True, atol=1e-5, rtol=1e-4, extra=(), kwargs=None,
            needs_grad=None):
    """Run both layers on ``inputs`` (NumPy arrays; float ones get gradients unless
    ``needs_grad`` says which), then backward with one random cotangent per float output;
    compare outputs and all gradients."""
    kwargs = kwargs or {}
    floating = [np.issubdtype(a.dtype, np.floating) and grad for a in inputs]
    if needs_grad is not None:
        floating = [f and n for f, n in zip(floating, needs_grad)]
    ti = [to_th(a, g) for a, g in zip(inputs, floating)]
    pi = [to_pt(a, g) for a, g in zip(inputs, floating)]
    to = _flat(tm(*ti, *extra, **kwargs))
    po = _flat(pm(*pi, *extra, **kwargs))
    assert len(to) == len(po)
    for t, p in zip(to, po):
        assert tuple(p.shape) == tuple(t.shape)
        assert str(p.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        np.testing.assert_allclose(np_of(p), np_of(t), atol=atol, rtol=rtol)
    if not grad:
        return to, po
    diff = [(t, p) for t, p in zip(to, po) if t.requires_grad]
    if not diff:
        return to, po
    cots = [rand(*t.shape, dtype=np_of(t).dtype) for t, _ in diff]
    torch.autograd.backward([t for t, _ in diff], [to_th(c) for c in cots])
    pytensor.autograd.backward([p for _, p in diff], [to_pt(c) for c in cots])
    for t, p, g in zip(ti, pi, floating):
        if g:
            np.testing.assert_allclose(np_of(p.grad), np_of(t.grad), atol=atol, rtol=rtol)
    tp = dict(tm.named_parameters())
    for name, p in pm.named_parameters():
        if tp[name].grad is None:
            assert p.grad is None, name
        else:
            np.testing.assert_allclose(np_of(p.grad), np_of(tp[name].grad), atol=atol,
                                       rtol=rtol, err_msg=name)
    return to, po


def raises_like(exc, fn_th, fn_pt):
    """Both calls raise ``exc``; pytensor's message is torch's (torch. -> pytensor.)."""
    with pytest.raises(exc) as et:
        fn_th()
    with pytest.raises(exc) as ep:
        fn_pt()
    assert str(ep.value) == str(et.value).replace("torch.", "pytensor.")


def test_rand_is_reproducible_per_shape_and_dtype():
    a = rand(2, 3, dtype=np.float64)
    assert a.shape == (2, 3) and a.dtype == np.float64 and np.all(np.abs(a) <= 1)


def test_to_pt_round_trips_and_sets_grad():
    a = rand(3)
    t = to_pt(a, grad=True)
    assert t.requires_grad and np.array_equal(np_of(t), a)


@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
def test_layer_pair_copies_weights():
    tm, pm = layer_pair("Conv1d", 2, 3, 2)
    np.testing.assert_array_equal(np_of(pm.weight), np_of(tm.weight))
    compare(tm, pm, [rand(1, 2, 5)])
