"""RNN, LSTM, GRU and their cells: parameter names and shapes, init statistics, a NumPy
reference of each cell, and torch's outputs, hidden states and every gradient (float64 and
float32; padded, batch_first, unbatched and packed input; bidirectional, stacked, projected),
bad-input messages."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from pytensor.nn.utils import rnn as R
from _torch_oracle import requires_torch, torch


def _np(t):
    return np.asarray(t.detach().tolist())


def _sig(x):
    return 1 / (1 + np.exp(-x))


# ---- without torch: names, shapes, init, NumPy references

def test_parameter_names_and_shapes_follow_torch_order():
    m = nn.LSTM(4, 3, 2, proj_size=2, bidirectional=True)
    names = [(n, tuple(p.shape)) for n, p in m.named_parameters()]
    assert names[:5] == [("weight_ih_l0", (12, 4)), ("weight_hh_l0", (12, 2)),
                         ("bias_ih_l0", (12,)), ("bias_hh_l0", (12,)),
                         ("weight_hr_l0", (2, 3))]
    assert names[5][0] == "weight_ih_l0_reverse" and names[10] == ("weight_ih_l1", (12, 4))
    assert len(names) == 20
    g = nn.GRU(5, 4, 2, bias=False)
    assert list(g.state_dict()) == ["weight_ih_l0", "weight_hh_l0", "weight_ih_l1",
                                    "weight_hh_l1"]
    assert g._flat_weights_names == list(g.state_dict())
    assert [[tuple(w.shape) for w in ws] for ws in g.all_weights] == [[(12, 5), (12, 4)],
                                                                      [(12, 4), (12, 4)]]
    c = nn.LSTMCell(3, 5)
    assert [(n, tuple(p.shape)) for n, p in c.named_parameters()] == [
        ("weight_ih", (20, 3)), ("weight_hh", (20, 5)), ("bias_ih", (20,)), ("bias_hh", (20,))]
    assert nn.RNNCell(3, 2, bias=False).bias_ih is None


def test_init_is_uniform_in_inverse_sqrt_hidden():
    m = nn.GRU(64, 100, 2)
    bound = 1 / math.sqrt(100)
    vals = np.concatenate([_np(p).ravel() for p in m.parameters()])
    assert np.abs(vals).max() <= bound
    assert abs(vals.mean()) < 0.01 * bound * 10
    assert abs(vals.std() - bound / math.sqrt(3)) < 0.02 * bound


def test_reprs():
    assert repr(nn.LSTM(4, 3)) == "LSTM(4, 3)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(nn.LSTM(4, 3, 2, proj_size=2, bidirectional=True, batch_first=True,
                            dropout=0.1, bias=False)) == (
            "LSTM(4, 3, proj_size=2, num_layers=2, bias=False, batch_first=True, dropout=0.1, "
            "bidirectional=True)")
    assert repr(nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4)"
    assert repr(nn.RNNCell(4, 3, nonlinearity="relu")) == "RNNCell(4, 3, nonlinearity=relu)"
    assert repr(nn.GRUCell(4, 3, bias=False)) == "GRUCell(4, 3, bias=False)"


def _lstm_ref(x, h, c, wi, wh, bi, bh):
    out = []
    for t in range(x.shape[0]):
        g = x[t] @ wi.T + bi + h @ wh.T + bh
        i, f, gg, o = np.split(g, 4, 1)
        c = _sig(f) * c + _sig(i) * np.tanh(gg)
        h = _sig(o) * np.tanh(c)
        out.append(h)
    return np.stack(out), h, c


def _gru_ref(x, h, wi, wh, bi, bh):
    out = []
    for t in range(x.shape[0]):
        gi, gh = x[t] @ wi.T + bi, h @ wh.T + bh
        H = h.shape[1]
        r = _sig(gi[:, :H] + gh[:, :H])
        z = _sig(gi[:, H:2 * H] + gh[:, H:2 * H])
        n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
        h = (1 - z) * n + z * h
        out.append(h)
    return np.stack(out), h


def test_lstm_and_gru_match_numpy_reference():
    x = pytensor.randn(6, 2, 3, dtype=pytensor.float64)
    m = nn.LSTM(3, 4, dtype=pytensor.float64)
    h0 = pytensor.randn(1, 2, 4, dtype=pytensor.float64)
    c0 = pytensor.randn(1, 2, 4, dtype=pytensor.float64)
    out, (h, c) = m(x, (h0, c0))
    ref = _lstm_ref(_np(x), _np(h0[0]), _np(c0[0]), *[_np(p) for p in m.parameters()])
    np.testing.assert_allclose(_np(out), ref[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(h[0]), ref[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(c[0]), ref[2], rtol=1e-12, atol=1e-12)
    g = nn.GRU(3, 4, dtype=pytensor.float64)
    out, h = g(x, h0)
    ref = _gru_ref(_np(x), _np(h0[0]), *[_np(p) for p in g.parameters()])
    np.testing.assert_allclose(_np(out), ref[0], rtol=1e-12, atol=1e-12)
    # the reverse direction is the forward one over the flipped sequence
    b = nn.GRU(3, 4, bidirectional=True, dtype=pytensor.float64)
    out, h = b(x)
    ref = _gru_ref(_np(x)[::-1], np.zeros((2, 4)), *[_np(p) for p in list(b.parameters())[4:]])
    np.testing.assert_allclose(_np(out[:, :, 4:]), ref[0][::-1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(h[1]), ref[1], rtol=1e-12, atol=1e-12)


def test_packed_equals_per_sequence_runs():
    m = nn.LSTM(3, 4, bidirectional=True, dtype=pytensor.float64)
    seqs = [pytensor.randn(n, 3, dtype=pytensor.float64) for n in (2, 5, 3)]
    out, (h, c) = m(R.pack_sequence(seqs, enforce_sorted=False))
    padded, lengths = R.pad_packed_sequence(out, batch_first=True)
    assert lengths.tolist() == [2, 5, 3]
    for b, s in enumerate(seqs):
        o1, (h1, c1) = m(s)
        np.testing.assert_allclose(_np(padded[b, :s.shape[0]]), _np(o1), atol=1e-12)
        np.testing.assert_allclose(_np(h[:, b]), _np(h1), atol=1e-12)
        np.testing.assert_allclose(_np(c[:, b]), _np(c1), atol=1e-12)


def test_dropout_between_layers_only_in_training():
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = pytensor.randn(5, 2, 3)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    assert (a - b).abs().max().item() == 0
    m.train()
    pytensor.manual_seed(1)
    c, _ = m(x)
    assert (a - c).abs().max().item() > 0


def test_flatten_parameters_is_a_noop_and_replaced_weights_are_used():
    m = nn.RNN(2, 3)
    m.flatten_parameters()
    x = pytensor.randn(4, 1, 2)
    m.weight_ih_l0 = nn.Parameter(pytensor.zeros(3, 2))
    m.weight_hh_l0 = nn.Parameter(pytensor.zeros(3, 3))
    out, _ = m(x)
    expect = np.tanh(_np(m.bias_ih_l0) + _np(m.bias_hh_l0))
    np.testing.assert_allclose(_np(out[:, 0]), np.broadcast_to(expect, (4, 3)), rtol=1e-6)


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: nn.RNN(4, 3, nonlinearity="x"), ValueError,
     "Unknown nonlinearity 'x'. Select from 'tanh' or 'relu'."),
    (lambda: nn.GRU(4, 3, proj_size=1), ValueError,
     "proj_size argument is only supported for LSTM, not RNN or GRU"),
    (lambda: nn.LSTM(4, 3, proj_size=3), ValueError,
     "proj_size has to be smaller than hidden_size"),
    (lambda: nn.LSTM(4, 3, dropout=2), ValueError,
     "dropout should be a number in range [0, 1] representing the probability of an element "
     "being zeroed"),
    (lambda: nn.LSTM(4, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.LSTM(4, 3, bias=1), TypeError, "bias should be of type bool, got: int"),
    (lambda: nn.LSTM(4, 3)(pytensor.ones(5, 2, 4, dtype=pytensor.float64)), ValueError,
     "RNN input dtype (pytensor.float64) does not match weight dtype (pytensor.float32). Convert "
     "input: input.to(pytensor.float32), or convert model: model.to(pytensor.float64)"),
    (lambda: nn.LSTM(4, 3)(pytensor.ones(5, 2, 3)), RuntimeError,
     "input.size(-1) must be equal to input_size. Expected 4, got 3"),
    (lambda: nn.LSTM(4, 3)(pytensor.ones(5)), ValueError,
     "LSTM: Expected input to be 2D or 3D, got 1D instead"),
    (lambda: nn.RNN(4, 3)(pytensor.ones(5, 2, 2, 4)), ValueError,
     "RNN: Expected input to be 2D or 3D, got 4D tensor instead"),
    (lambda: nn.LSTM(4, 3)(pytensor.ones(5, 2, 4), (pytensor.ones(1, 3, 3),
                                                    pytensor.ones(1, 2, 3))),
     RuntimeError, "Expected hidden[0] size (1, 2, 3), got [1, 3, 3]"),
    (lambda: nn.LSTM(4, 3)(pytensor.ones(5, 2, 4), (pytensor.ones(1, 2, 3),
                                                    pytensor.ones(1, 2, 2))),
     RuntimeError, "Expected hidden[1] size (1, 2, 3), got [1, 2, 2]"),
    (lambda: nn.LSTM(4, 3)(pytensor.ones(5, 2, 4), (pytensor.ones(2, 3), pytensor.ones(1, 2, 2))),
     RuntimeError, "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 3-D) "
     "tensors"),
    (lambda: nn.RNN(4, 3)(pytensor.ones(5, 2, 4), pytensor.ones(1, 3, 3)), RuntimeError,
     "Expected hidden size (1, 2, 3), got [1, 3, 3]"),
    (lambda: nn.RNN(4, 3)(pytensor.ones(5, 4), pytensor.ones(1, 2, 3)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: nn.GRU(4, 3)(pytensor.ones(5, 2, 4), pytensor.ones(1, 2, 3, 4)), RuntimeError,
     "For batched 3-D input, hx should also be 3-D but got 4-D tensor"),
    (lambda: nn.LSTMCell(4, 3)(pytensor.ones(2, 5)), RuntimeError,
     "input has inconsistent input_size: got 5 expected 4"),
    (lambda: nn.LSTMCell(4, 3)(pytensor.ones(2, 4), (pytensor.ones(3, 3), pytensor.ones(2, 3))),
     RuntimeError, "Input batch size 2 doesn't match hidden0 batch size 3"),
    (lambda: nn.LSTMCell(4, 3)(pytensor.ones(2, 4), (pytensor.ones(2, 3), pytensor.ones(2, 2))),
     RuntimeError, "hidden1 has inconsistent hidden_size: got 2, expected 3"),
    (lambda: nn.GRUCell(4, 3)(pytensor.ones(2, 4), pytensor.ones(2, 2)), RuntimeError,
     "hidden0 has inconsistent hidden_size: got 2, expected 3"),
    (lambda: nn.RNNCell(4, 3, nonlinearity="x")(pytensor.ones(4)), RuntimeError,
     "Unknown nonlinearity: x"),
    (lambda: nn.RNNCell(4, 3)(pytensor.ones(5, 2, 4)), ValueError,
     "RNNCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda: nn.GRUCell(4, 3)(pytensor.ones(4), pytensor.ones(1, 1, 3)), ValueError,
     "GRUCell: Expected hidden to be 1D or 2D, got 3D instead"),
    (lambda: nn.LSTMCell(4, 3)(pytensor.ones(4), (pytensor.ones(5, 2, 4), pytensor.ones(3))),
     ValueError, "LSTMCell: Expected hx[0] to be 1D or 2D, got 3D instead"),
])
def test_bad_input_messages(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == msg


def test_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(4, 3, dropout=0.5)


# ---- against torch

def _copy(tm, pm):
    pm.load_state_dict({k: pytensor.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})


def _close(a, b, dtype):
    tol = 1e-10 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=tol, atol=tol)


CONFIGS = [
    ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2)),
    ("LSTM", dict(batch_first=True, bias=False)),
    ("GRU", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(batch_first=True)),
    ("RNN", dict(num_layers=2, nonlinearity="relu")),
    ("RNN", dict(bidirectional=True, bias=False)),
]


@requires_torch
@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kind, kw", CONFIGS, ids=[f"{k}-{i}" for i, (k, _) in
                                                    enumerate(CONFIGS)])
def test_module_matches_torch_values_and_gradients(kind, kw, dtype):
    tdt, pdt = getattr(torch, dtype), getattr(pytensor, dtype)
    torch.manual_seed(0)
    tm = getattr(torch.nn, kind)(4, 3, dtype=tdt, **kw)
    pm = getattr(nn, kind)(4, 3, dtype=pdt, **kw)
    assert list(pm.state_dict()) == list(tm.state_dict())
    _copy(tm, pm)
    x = torch.randn(5, 3, 4, dtype=tdt, requires_grad=True)
    xp = pytensor.tensor(x.detach().numpy()).requires_grad_()
    D = 2 if kw.get("bidirectional") else 1
    L = kw.get("num_layers", 1)
    hs = kw.get("proj_size") or 3
    B = 5 if kw.get("batch_first") else 3
    h0 = torch.randn(L * D, B, hs, dtype=tdt, requires_grad=True)
    h0p = pytensor.tensor(h0.detach().numpy()).requires_grad_()
    if kind == "LSTM":
        c0 = torch.randn(L * D, B, 3, dtype=tdt)
        hx, hxp = (h0, c0), (h0p, pytensor.tensor(c0.numpy()))
    else:
        hx, hxp = h0, h0p
    ot, ht = tm(x, hx)
    op, hp = pm(xp, hxp)
    _close(op, ot, dtype)
    ht = ht if isinstance(ht, tuple) else (ht,)
    hp = hp if isinstance(hp, tuple) else (hp,)
    for a, b in zip(hp, ht):
        _close(a, b, dtype)
    (ot.pow(2).sum() + sum(h.pow(3).sum() for h in ht)).backward()
    (op.pow(2).sum() + sum(h.pow(3).sum() for h in hp)).backward()
    _close(xp.grad, x.grad, dtype)
    _close(h0p.grad, h0.grad, dtype)
    for (n, a), (_, b) in zip(pm.named_parameters(), tm.named_parameters()):
        _close(a.grad, b.grad, dtype)


@requires_torch
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_packed_input_matches_torch(kind):
    from torch.nn.utils import rnn as TR
    torch.manual_seed(1)
    tm = getattr(torch.nn, kind)(4, 3, num_layers=2, bidirectional=True, dtype=torch.float64)
    pm = getattr(nn, kind)(4, 3, num_layers=2, bidirectional=True, dtype=pytensor.float64)
    _copy(tm, pm)
    x = torch.randn(6, 4, 4, dtype=torch.float64, requires_grad=True)
    xp = pytensor.tensor(x.detach().numpy()).requires_grad_()
    lengths = [3, 6, 1, 4]
    ot, ht = tm(TR.pack_padded_sequence(x, lengths, enforce_sorted=False))
    op, hp = pm(R.pack_padded_sequence(xp, lengths, enforce_sorted=False))
    assert isinstance(op, R.PackedSequence)
    _close(op.data, ot.data, "float64")
    assert op.unsorted_indices.tolist() == ot.unsorted_indices.tolist()
    ht = ht if isinstance(ht, tuple) else (ht,)
    hp = hp if isinstance(hp, tuple) else (hp,)
    for a, b in zip(hp, ht):
        _close(a, b, "float64")
    (ot.data.pow(2).sum() + ht[0].sum()).backward()
    (op.data.pow(2).sum() + hp[0].sum()).backward()
    _close(xp.grad, x.grad, "float64")
    for (n, a), (_, b) in zip(pm.named_parameters(), tm.named_parameters()):
        _close(a.grad, b.grad, "float64")


@requires_torch
def test_unbatched_and_cells_match_torch():
    torch.manual_seed(2)
    for kind in ("LSTM", "GRU", "RNN"):
        tm = getattr(torch.nn, kind)(4, 3, batch_first=True, dtype=torch.float64)
        pm = getattr(nn, kind)(4, 3, batch_first=True, dtype=pytensor.float64)
        _copy(tm, pm)
        x = torch.randn(5, 4, dtype=torch.float64)
        ot, ht = tm(x)
        op, hp = pm(pytensor.tensor(x.numpy()))
        _close(op, ot, "float64")
        _close(hp[0] if kind == "LSTM" else hp, ht[0] if kind == "LSTM" else ht, "float64")
    for kind in ("LSTMCell", "GRUCell", "RNNCell"):
        tm = getattr(torch.nn, kind)(4, 3, dtype=torch.float64)
        pm = getattr(nn, kind)(4, 3, dtype=pytensor.float64)
        _copy(tm, pm)
        for shape in ((2, 4), (4,)):
            x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
            xp = pytensor.tensor(x.detach().numpy()).requires_grad_()
            ot, op = tm(x), pm(xp)
            ot = ot if isinstance(ot, tuple) else (ot,)
            op = op if isinstance(op, tuple) else (op,)
            for a, b in zip(op, ot):
                _close(a, b, "float64")
            sum(o.pow(2).sum() for o in ot).backward()
            sum(o.pow(2).sum() for o in op).backward()
            _close(xp.grad, x.grad, "float64")
            _close(pm.weight_hh.grad, tm.weight_hh.grad, "float64")


def _grads(m, x, hx):
    for p in m.parameters():
        p.grad = None
    x = x.detach().requires_grad_()
    hx = tuple(h.detach().requires_grad_() for h in hx)
    out, (h, c) = m(x, hx)
    (out.pow(2).sum() + h.pow(3).sum() + (c * 0.5).sum()).backward()
    return [_np(out), _np(h), _np(c), _np(x.grad)] + [_np(t.grad) for t in hx] + \
        [_np(p.grad) for p in m.parameters()]


def test_whole_sequence_lstm_backward_equals_step_by_step_graph(monkeypatch):
    import pytensor.nn.modules.rnn as rnn_mod
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=pytensor.float64)
    x = pytensor.randn(6, 2, 3, dtype=pytensor.float64)
    hx = (pytensor.randn(4, 2, 4, dtype=pytensor.float64),
          pytensor.randn(4, 2, 4, dtype=pytensor.float64))
    used = []
    real = rnn_mod._fused_lstm_ok
    monkeypatch.setattr(rnn_mod, "_fused_lstm_ok", lambda *a: used.append(real(*a)) or used[-1])
    fused = _grads(m, x, hx)
    assert used and all(used)
    monkeypatch.setattr(rnn_mod, "_fused_lstm_ok", lambda *a: False)
    graph = _grads(m, x, hx)
    for a, b in zip(fused, graph):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_whole_sequence_lstm_double_backward_equals_graph(monkeypatch):
    import pytensor.nn.modules.rnn as rnn_mod
    m = nn.LSTM(2, 3, bidirectional=True, dtype=pytensor.float64)
    x0 = pytensor.randn(4, 2, 2, dtype=pytensor.float64)

    def second():
        for p in m.parameters():
            p.grad = None
        x = x0.clone().requires_grad_()
        (g,) = pytensor.autograd.grad(m(x)[0].pow(2).sum(), x, create_graph=True)
        g.pow(2).sum().backward()
        return [_np(x.grad)] + [_np(p.grad) for p in m.parameters()]

    fused = second()
    monkeypatch.setattr(rnn_mod, "_fused_lstm_ok", lambda *a: False)
    for a, b in zip(fused, second()):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_conversion_copy_pickle_and_assign_keep_weights_in_use():
    import copy
    import pickle
    m = nn.LSTM(3, 4, bidirectional=True)
    x = pytensor.randn(5, 2, 3, dtype=pytensor.float64)
    assert m.double() is m and m._flat_weights[0].dtype == pytensor.float64
    ref = _np(m(x)[0])
    for other in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert other._flat_weights[0] is other.weight_ih_l0
        assert other.weight_ih_l0 is not m.weight_ih_l0
        np.testing.assert_array_equal(_np(other(x)[0]), ref)
    m.load_state_dict({k: v * 0 for k, v in m.state_dict().items()}, assign=True)
    assert m._flat_weights[0] is m.weight_ih_l0
    assert np.abs(_np(m(x)[0])).max() == 0
