"""pytensor.optim.swa_utils: SWALR beside torch's and in closed form, AveragedModel's SWA and
EMA averages beside torch's and NumPy's, update_bn, state_dicts and bad input."""
import math
import warnings

import numpy as np
import pytest
from _torch_oracle import requires_torch, torch

import pytensor
from pytensor.optim import lr_scheduler as L
from pytensor.optim import swa_utils as S
from pytensor.optim.optimizer import Optimizer

pytestmark = pytest.mark.capability_independent


class _SGDLike(Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr, momentum=0.9))

    def step(self, closure=None):
        return None


def _pt_opt(lrs):
    return _SGDLike([{"params": [pytensor.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs])


def _torch_opt(lrs):
    return torch.optim.SGD([{"params": [torch.zeros(1, requires_grad=True)], "lr": lr}
                            for lr in lrs], momentum=0.9)


def _lrs(sched, opt, n, then=None):
    out = [list(sched.get_last_lr())]
    for _ in range(n):
        opt.step()
        sched.step()
        out.append(list(sched.get_last_lr()))
    return out


SWALR_CASES = [
    dict(swa_lr=0.05),
    dict(swa_lr=[0.01, 0.2], anneal_epochs=5, anneal_strategy="linear"),
    dict(swa_lr=0.02, anneal_epochs=0),
    dict(swa_lr=0.3, anneal_epochs=1, anneal_strategy="cos"),
]


@requires_torch
@pytest.mark.parametrize("kw", SWALR_CASES)
def test_swalr_matches_torch(kw):
    o1, o2 = _pt_opt((0.1, 0.5)), _torch_opt((0.1, 0.5))
    s1 = S.SWALR(o1, **kw)
    s2 = torch.optim.swa_utils.SWALR(o2, **kw)
    for a, b in zip(_lrs(s1, o1, 30), _lrs(s2, o2, 30)):
        assert a == pytest.approx(b, abs=1e-12, rel=0)
    assert s1.state_dict() == s2.state_dict()


@requires_torch
def test_swalr_after_another_schedule_matches_torch():
    res = []
    for M, opt in ((L, _pt_opt((0.1,))), (torch.optim.lr_scheduler, _torch_opt((0.1,)))):
        swa_mod = S if M is L else torch.optim.swa_utils
        cos = M.CosineAnnealingLR(opt, 20)
        seq = []
        for epoch in range(30):
            opt.step()
            if epoch < 10:
                cos.step()
            else:
                if epoch == 10:
                    swa = swa_mod.SWALR(opt, swa_lr=0.01, anneal_epochs=4)
                swa.step()
            seq.append(opt.param_groups[0]["lr"])
        res.append(seq)
    assert res[0] == pytest.approx(res[1], abs=1e-12, rel=0)


def test_swalr_closed_form():
    opt = _pt_opt((0.1,))
    s = S.SWALR(opt, swa_lr=0.02, anneal_epochs=4, anneal_strategy="linear")
    got = [r[0] for r in _lrs(s, opt, 10)]
    want = [0.02 * min(e / 4, 1) + 0.1 * (1 - min(e / 4, 1)) for e in range(11)]
    assert got == pytest.approx(want, abs=1e-12)
    opt = _pt_opt((0.1,))
    s = S.SWALR(opt, swa_lr=0.02, anneal_epochs=3)
    got = [r[0] for r in _lrs(s, opt, 6)]
    alpha = [(1 - math.cos(math.pi * min(e / 3, 1))) / 2 for e in range(7)]
    assert got == pytest.approx([0.02 * a + 0.1 * (1 - a) for a in alpha], abs=1e-12)
    assert opt.param_groups[0]["swa_lr"] == 0.02


def test_swalr_state_dict_round_trip():
    opt = _pt_opt((0.1,))
    s = S.SWALR(opt, 0.05, anneal_epochs=6, anneal_strategy="linear")
    _lrs(s, opt, 2)
    sd = s.state_dict()
    assert "anneal_func" not in sd and sd["_anneal_strategy"] == "linear"
    opt2 = _pt_opt((0.1,))
    s2 = S.SWALR(opt2, 0.05)
    opt2.load_state_dict(opt.state_dict())
    s2.load_state_dict(sd)
    assert s2.anneal_func is S.SWALR._linear_anneal
    assert _lrs(s2, opt2, 6) == _lrs(s, opt, 6)


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: S.SWALR(_pt_opt((0.1,)), 0.1, anneal_strategy="exp"), ValueError,
     "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    (lambda: S.SWALR(_pt_opt((0.1,)), 0.1, anneal_epochs=-1), ValueError,
     "anneal_epochs must be equal or greater than 0, got -1"),
    (lambda: S.SWALR(_pt_opt((0.1,)), 0.1, anneal_epochs=2.0), ValueError,
     "anneal_epochs must be equal or greater than 0, got 2.0"),
    (lambda: S.SWALR(_pt_opt((0.1,)), [0.1, 0.2]), ValueError,
     "swa_lr must have the same length as optimizer.param_groups. swa_lr has 2 values, "
     "param_groups has 1."),
    (lambda: S.get_ema_avg_fn(1.5), ValueError,
     "Invalid decay value 1.5 provided. Please provide a value in [0,1] range."),
    (lambda: S.get_ema_multi_avg_fn(-0.1), ValueError,
     "Invalid decay value -0.1 provided. Please provide a value in [0,1] range."),
    (lambda: S.AveragedModel(pytensor.nn.Linear(2, 2), avg_fn=S.get_swa_avg_fn(),
                             multi_avg_fn=S.get_swa_multi_avg_fn()), AssertionError,
     "Only one of avg_fn and multi_avg_fn should be provided"),
])
def test_bad_input(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == msg


# ---------------------------------------------------------------- AveragedModel
def _states(n, seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal((3, 4)).astype(np.float32),
             rng.standard_normal(3).astype(np.float32)] for _ in range(n)]


def _load(model, arrays, lib):
    with (torch.no_grad() if lib == "torch" else pytensor.no_grad()):
        for p, a in zip(model.parameters(), arrays):
            p.copy_(torch.from_numpy(a) if lib == "torch" else pytensor.tensor(a))


def _numpy(t):
    return np.array(t.detach().tolist(), dtype=np.float32)


def test_swa_average_numpy():
    states = _states(5)
    model = pytensor.nn.Linear(4, 3)
    swa = S.AveragedModel(model)
    for st in states:
        _load(model, st, "pt")
        swa.update_parameters(model)
    assert int(swa.n_averaged) == 5 and swa.n_averaged.dtype == pytensor.int64
    for i, p in enumerate(swa.module.parameters()):
        want = np.mean([st[i].astype(np.float64) for st in states], axis=0)
        np.testing.assert_allclose(_numpy(p), want, rtol=1e-5, atol=1e-6)
    x = pytensor.tensor(np.ones((2, 4), np.float32))
    assert swa(x).tolist() == swa.module(x).tolist()
    assert [k for k, _ in swa.named_buffers()] == ["n_averaged"]
    assert list(swa.state_dict()) == ["n_averaged", "module.weight", "module.bias"]


def test_ema_numpy():
    states = _states(4, 1)
    model = pytensor.nn.Linear(4, 3)
    for fn in (S.get_ema_multi_avg_fn(0.9), None):
        ema = (S.AveragedModel(model, multi_avg_fn=fn) if fn else
               S.AveragedModel(model, avg_fn=S.get_ema_avg_fn(0.9)))
        want = None
        for st in states:
            _load(model, st, "pt")
            ema.update_parameters(model)
            want = ([a.astype(np.float64) for a in st] if want is None else
                    [0.9 * w + 0.1 * a for w, a in zip(want, st)])
        for p, w in zip(ema.module.parameters(), want):
            np.testing.assert_allclose(_numpy(p), w, rtol=1e-5, atol=1e-6)


@requires_torch
@pytest.mark.parametrize("kind", ["swa", "swa_multi", "ema", "ema_multi", "use_buffers"])
def test_averaged_model_matches_torch(kind):
    def fns(mod):
        return {"swa": {}, "swa_multi": {"multi_avg_fn": mod.get_swa_multi_avg_fn()},
                "ema": {"avg_fn": mod.get_ema_avg_fn(0.95)},
                "ema_multi": {"multi_avg_fn": mod.get_ema_multi_avg_fn(0.95)},
                "use_buffers": {"use_buffers": True}}[kind]
    states = _states(6, 2)
    m1, m2 = pytensor.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    a1 = S.AveragedModel(m1, **fns(S))
    a2 = torch.optim.swa_utils.AveragedModel(m2, **fns(torch.optim.swa_utils))
    for st in states:
        _load(m1, st, "pt")
        _load(m2, st, "torch")
        a1.update_parameters(m1)
        a2.update_parameters(m2)
        for p1, p2 in zip(a1.parameters(), a2.parameters()):
            np.testing.assert_allclose(_numpy(p1), p2.detach().numpy(), rtol=0, atol=2e-7)
    assert int(a1.n_averaged) == int(a2.n_averaged)
    assert repr(a1) == repr(a2)
    assert list(a1.state_dict()) == list(a2.state_dict())


def test_buffers_follow_the_model():
    class WithBuffer(pytensor.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = pytensor.nn.Linear(2, 2)
            self.register_buffer("count", pytensor.zeros(2))

    model = WithBuffer()
    swa = S.AveragedModel(model)
    for v in (1.0, 5.0):
        model.count.fill_(v)
        swa.update_parameters(model)
    assert swa.module.count.tolist() == [5.0, 5.0]
    avg = S.AveragedModel(model, use_buffers=True)
    for v in (1.0, 5.0):
        model.count.fill_(v)
        avg.update_parameters(model)
    assert avg.module.count.tolist() == [3.0, 3.0]


def test_update_bn_without_batch_norm_leaves_model_alone():
    model = pytensor.nn.Linear(2, 2)
    calls = []

    class Loader:
        def __iter__(self):
            calls.append(1)
            return iter([])

    S.update_bn(Loader(), model)
    assert calls == [] and model.training


def _batch_norm_1d():
    bn = getattr(pytensor.nn, "BatchNorm1d", None)
    if bn is None:
        pytest.skip("this build has no batch-norm layers")
    return bn


def test_update_bn_recomputes_statistics():
    bn_cls = _batch_norm_1d()
    rng = np.random.default_rng(3)
    data = [rng.standard_normal((8, 3)).astype(np.float32) * 2 + 1 for _ in range(4)]
    model = pytensor.nn.Sequential(pytensor.nn.Linear(3, 3), bn_cls(3))
    with pytensor.no_grad():
        model[0].weight.copy_(pytensor.eye(3))
        model[0].bias.zero_()
    model.eval()
    loader = [(pytensor.tensor(d), 0) for d in data]
    S.update_bn(loader, model)
    assert not model.training and model[1].momentum == 0.1
    allx = np.concatenate(data).astype(np.float64)
    np.testing.assert_allclose(_numpy(model[1].running_mean), allx.mean(0), rtol=1e-5,
                               atol=1e-5)
    # a cumulative average of the unbiased per-batch variances
    want_var = np.mean([d.astype(np.float64).var(0, ddof=1) for d in data], axis=0)
    np.testing.assert_allclose(_numpy(model[1].running_var), want_var, rtol=1e-5, atol=1e-5)
    assert int(model[1].num_batches_tracked) == 4


@requires_torch
def test_update_bn_matches_torch():
    bn_cls = _batch_norm_1d()
    rng = np.random.default_rng(4)
    data = [rng.standard_normal((5, 3)).astype(np.float32) for _ in range(3)]
    m1, m2 = bn_cls(3, momentum=0.3), torch.nn.BatchNorm1d(3, momentum=0.3)
    S.update_bn([pytensor.tensor(d) for d in data], m1)
    torch.optim.swa_utils.update_bn([torch.from_numpy(d) for d in data], m2)
    np.testing.assert_allclose(_numpy(m1.running_mean), m2.running_mean.numpy(), atol=1e-6)
    np.testing.assert_allclose(_numpy(m1.running_var), m2.running_var.numpy(), atol=1e-6)
    assert m1.momentum == m2.momentum == 0.3


def test_swalr_get_lr_warns_outside_step():
    opt = _pt_opt((0.1,))
    s = S.SWALR(opt, 0.05)
    with pytest.warns(UserWarning, match="^To get the last learning rate"):
        s.get_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        s.step()
