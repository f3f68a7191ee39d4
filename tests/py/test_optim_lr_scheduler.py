"""pytensor.optim.lr_scheduler: every schedule stepped beside torch's (lr and momentum sequences
equal to 1e-12), closed forms without torch, state_dict round trips, compositions, warnings and
the messages of bad input."""
import math
import pickle
import warnings

import pytest
from _torch_oracle import requires_torch, torch

import pytensor
from pytensor.optim import lr_scheduler as L
from pytensor.optim.optimizer import Optimizer

pytestmark = pytest.mark.capability_independent


class _SGDLike(Optimizer):
    """A do-nothing optimizer with SGD's hyper-parameter names (the schedules only read and write
    param_groups)."""

    def __init__(self, params, lr=0.1, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=0, weight_decay=0,
                                      nesterov=False))

    def step(self, closure=None):
        return None


class _AdamLike(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999)):
        super().__init__(params, dict(lr=lr, betas=betas, eps=1e-8, weight_decay=0))

    def step(self, closure=None):
        return None


def _pt_opt(lrs=(0.1,), kind="sgd"):
    groups = [{"params": [pytensor.zeros(2, requires_grad=True)], "lr": lr} for lr in lrs]
    return _AdamLike(groups) if kind == "adam" else _SGDLike(groups)


def _torch_opt(lrs=(0.1,), kind="sgd"):
    groups = [{"params": [torch.zeros(2, requires_grad=True)], "lr": lr} for lr in lrs]
    if kind == "adam":
        return torch.optim.Adam(groups)
    return torch.optim.SGD(groups, momentum=0.9)


def _momenta(opt):
    out = []
    for g in opt.param_groups:
        out.append(g["betas"][0] if "betas" in g else g.get("momentum"))
    return out


def _run(sched, opt, n, metrics=None):
    """lr and momentum of every group after construction and after each of n steps."""
    seq = [(list(map(float, sched.get_last_lr())), _momenta(opt))]
    for i in range(n):
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[i])
        seq.append((list(map(float, sched.get_last_lr())), _momenta(opt)))
    return seq


def _close(a, b, tol=1e-12):
    assert len(a) == len(b)
    for i, ((lr_a, m_a), (lr_b, m_b)) in enumerate(zip(a, b)):
        assert lr_a == pytest.approx(lr_b, abs=tol, rel=0), f"lr at step {i}: {lr_a} vs {lr_b}"
        for x, y in zip(m_a, m_b):
            if x is not None or y is not None:
                assert float(x) == pytest.approx(float(y), abs=tol, rel=0), f"momentum at {i}"


# (id, builder(module, optimizer), steps, optimizer kind, lrs of the groups)
CASES = [
    ("step", lambda M, o: M.StepLR(o, step_size=3, gamma=0.5), 40, "sgd", (0.1, 0.03)),
    ("step_default_gamma", lambda M, o: M.StepLR(o, 7), 30, "sgd", (1.0,)),
    ("multistep", lambda M, o: M.MultiStepLR(o, [5, 9, 9, 20], 0.3), 35, "sgd", (0.1, 0.2)),
    ("constant", lambda M, o: M.ConstantLR(o), 30, "sgd", (0.1,)),
    ("constant_f", lambda M, o: M.ConstantLR(o, factor=0.25, total_iters=8), 30, "sgd",
     (0.1, 0.5)),
    ("linear", lambda M, o: M.LinearLR(o), 30, "sgd", (0.1,)),
    ("linear_down", lambda M, o: M.LinearLR(o, 1.0, 0.05, total_iters=17), 40, "sgd",
     (0.3, 0.07)),
    ("exponential", lambda M, o: M.ExponentialLR(o, 0.93), 60, "sgd", (0.1, 1.0)),
    ("polynomial", lambda M, o: M.PolynomialLR(o, total_iters=20, power=2.0), 40, "sgd",
     (0.1,)),
    ("polynomial_default", lambda M, o: M.PolynomialLR(o), 30, "sgd", (0.05,)),
    ("cosine", lambda M, o: M.CosineAnnealingLR(o, T_max=10, eta_min=0.001), 100, "sgd",
     (0.1, 0.02)),
    ("cosine_zero_min", lambda M, o: M.CosineAnnealingLR(o, T_max=7), 50, "sgd", (1.0,)),
    ("warm_restarts", lambda M, o: M.CosineAnnealingWarmRestarts(o, T_0=5), 50, "sgd",
     (0.1,)),
    ("warm_restarts_mult", lambda M, o: M.CosineAnnealingWarmRestarts(o, 3, T_mult=2,
                                                                      eta_min=0.01),
     80, "sgd", (0.1, 0.3)),
    ("lambda", lambda M, o: M.LambdaLR(o, lambda e: 0.95 ** e + 0.01 * (e % 3)), 40, "sgd",
     (0.1,)),
    ("lambda_list", lambda M, o: M.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.9 ** e]),
     30, "sgd", (0.1, 0.2)),
    ("multiplicative", lambda M, o: M.MultiplicativeLR(o, lambda e: 0.97), 50, "sgd", (0.1,)),
    ("onecycle", lambda M, o: M.OneCycleLR(o, max_lr=0.5, total_steps=60), 60, "sgd", (0.1,)),
    ("onecycle_adam_linear", lambda M, o: M.OneCycleLR(
        o, max_lr=[0.01, 0.02], epochs=4, steps_per_epoch=10, pct_start=0.25,
        anneal_strategy="linear"), 40, "adam", (0.1, 0.1)),
    ("onecycle_three_phase", lambda M, o: M.OneCycleLR(
        o, 1.0, total_steps=50, three_phase=True, div_factor=10.0, final_div_factor=100.0,
        base_momentum=0.8, max_momentum=0.9), 50, "sgd", (0.1,)),
    ("onecycle_no_momentum", lambda M, o: M.OneCycleLR(o, 0.3, total_steps=33,
                                                       cycle_momentum=False), 33, "sgd",
     (0.1,)),
    ("cyclic", lambda M, o: M.CyclicLR(o, 0.01, 0.1, step_size_up=4), 60, "sgd", (0.1,)),
    ("cyclic_tri2", lambda M, o: M.CyclicLR(o, [0.01, 0.02], [0.1, 0.3], 3, 5,
                                            mode="triangular2"), 70, "sgd", (0.1, 0.1)),
    ("cyclic_exp", lambda M, o: M.CyclicLR(o, 0.001, 0.01, 5, mode="exp_range", gamma=0.97),
     60, "sgd", (0.1,)),
    ("cyclic_scale_fn", lambda M, o: M.CyclicLR(o, 0.001, 0.01, 4,
                                                scale_fn=lambda x: 1.0 / (1 + x),
                                                scale_mode="iterations"), 40, "sgd", (0.1,)),
    ("cyclic_adam", lambda M, o: M.CyclicLR(o, 1e-4, 1e-3, 6, base_momentum=0.85,
                                            max_momentum=0.95), 50, "adam", (0.1,)),
    ("cyclic_no_momentum", lambda M, o: M.CyclicLR(o, 1e-4, 1e-3, 6, cycle_momentum=False),
     30, "sgd", (0.1,)),
    ("chained", lambda M, o: M.ChainedScheduler([M.ConstantLR(o, 0.1, 4),
                                                 M.ExponentialLR(o, 0.9)]), 40, "sgd",
     (1.0, 0.5)),
    ("chained_opt", lambda M, o: M.ChainedScheduler([M.LinearLR(o, 0.2, total_iters=6),
                                                     M.StepLR(o, 4, 0.5),
                                                     M.CosineAnnealingLR(o, 12)], o), 50,
     "sgd", (0.1,)),
    ("sequential", lambda M, o: M.SequentialLR(o, [M.LinearLR(o, 0.1, total_iters=5),
                                                   M.CosineAnnealingLR(o, 20, 1e-4)], [5]),
     60, "sgd", (0.1,)),
    ("sequential_three", lambda M, o: M.SequentialLR(
        o, [M.ConstantLR(o, 0.5, 3), M.ExponentialLR(o, 0.8), M.StepLR(o, 4, 0.3)], [3, 10]),
     40, "sgd", (0.1, 0.7)),
    ("chained_sequential", lambda M, o: M.ChainedScheduler([M.SequentialLR(
        o, [M.ExponentialLR(o, 0.9), M.StepLR(o, 3, 0.5)], [8]), M.ExponentialLR(o, 0.95)]),
     40, "sgd", (0.1,)),
]


@requires_torch
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_schedule_matches_torch(case):
    _, build, n, kind, lrs = case
    o1, o2 = _pt_opt(lrs, kind), _torch_opt(lrs, kind)
    s1, s2 = build(L, o1), build(torch.optim.lr_scheduler, o2)
    _close(_run(s1, o1, n), _run(s2, o2, n))
    assert getattr(s1, "last_epoch", None) == getattr(s2, "last_epoch", None)
    assert list(s1.state_dict()) == list(s2.state_dict())


PLATEAU = [
    ("min_rel", dict()),
    ("min_abs", dict(threshold_mode="abs", threshold=0.05, patience=2)),
    ("max_rel", dict(mode="max", patience=1, factor=0.5)),
    ("max_abs_cooldown", dict(mode="max", threshold_mode="abs", patience=0, cooldown=3,
                              factor=0.3, min_lr=[1e-3, 1e-4])),
    ("min_lr_eps", dict(patience=1, factor=0.5, min_lr=0.02, eps=1e-3)),
]
METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.5, 0.5, 0.49999, 0.7, 0.8, 0.9, 1.0, 1.2, 1.1,
           1.1, 1.1, 0.3, 0.3, 0.3, 0.3, 0.31, 0.2, 0.25, 0.25, 0.25, 0.25, 0.25, 0.1, 0.1,
           2.0, 2.0, 2.5, 2.4, 2.4, 2.4, 2.4, 2.4, 2.4, 2.4]


@requires_torch
@pytest.mark.parametrize("kwargs", [p[1] for p in PLATEAU], ids=[p[0] for p in PLATEAU])
def test_reduce_on_plateau_matches_torch(kwargs):
    o1, o2 = _pt_opt((0.1, 0.05)), _torch_opt((0.1, 0.05))
    s1 = L.ReduceLROnPlateau(o1, **kwargs)
    s2 = torch.optim.lr_scheduler.ReduceLROnPlateau(o2, **kwargs)
    _close(_run(s1, o1, len(METRICS), METRICS), _run(s2, o2, len(METRICS), METRICS))
    assert s1.state_dict() == s2.state_dict()


@requires_torch
@pytest.mark.parametrize("name,build", [
    ("step", lambda M, o: M.StepLR(o, 3, 0.5)),
    ("multistep", lambda M, o: M.MultiStepLR(o, [2, 4, 4, 9], 0.5)),
    ("exponential", lambda M, o: M.ExponentialLR(o, 0.9)),
    ("linear", lambda M, o: M.LinearLR(o, 0.2, 0.9, 6)),
    ("constant", lambda M, o: M.ConstantLR(o, 0.3, 4)),
    ("polynomial", lambda M, o: M.PolynomialLR(o, 8, 1.5)),
    ("cosine", lambda M, o: M.CosineAnnealingLR(o, 6, 0.01)),
    ("warm_restarts", lambda M, o: M.CosineAnnealingWarmRestarts(o, 3, 2, 0.01)),
    ("lambda", lambda M, o: M.LambdaLR(o, lambda e: 1 / (1 + e))),
])
def test_epoch_argument_uses_closed_form_as_torch(name, build):
    o1, o2 = _pt_opt((0.1, 0.4)), _torch_opt((0.1, 0.4))
    s1, s2 = build(L, o1), build(torch.optim.lr_scheduler, o2)
    epochs = [3, 7, 1, 12, 0.5, 2.25, 20] if name == "warm_restarts" else [3, 7, 1, 12, 0, 20]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e in epochs:
            o1.step(), o2.step()
            s1.step(e), s2.step(e)
            for a, b in zip(s1.get_last_lr(), s2.get_last_lr()):
                assert a == pytest.approx(b, abs=1e-12, rel=0)


@requires_torch
def test_tensor_lr_matches_torch():
    for build in (lambda M, o: M.ExponentialLR(o, 0.9), lambda M, o: M.CosineAnnealingLR(o, 8),
                  lambda M, o: M.StepLR(o, 2), lambda M, o: M.CyclicLR(o, 0.01, 0.1, 3)):
        w1 = pytensor.zeros(2, requires_grad=True)
        w2 = torch.zeros(2, requires_grad=True)
        o1 = _SGDLike([w1], lr=pytensor.tensor(0.1, dtype=pytensor.float64))
        o2 = torch.optim.SGD([w2], lr=torch.tensor(0.1, dtype=torch.float64), momentum=0.9)
        lr1, lr2 = o1.param_groups[0]["lr"], o2.param_groups[0]["lr"]
        s1, s2 = build(L, o1), build(torch.optim.lr_scheduler, o2)
        for _ in range(12):
            o1.step(), o2.step()
            s1.step(), s2.step()
            assert o1.param_groups[0]["lr"] is lr1 and o2.param_groups[0]["lr"] is lr2
            assert float(lr1) == pytest.approx(float(lr2), abs=1e-12, rel=0)
            assert isinstance(s1.get_last_lr()[0], pytensor.Tensor)
            assert s1.get_last_lr()[0] is not lr1
        assert isinstance(o1.param_groups[0]["initial_lr"], pytensor.Tensor)
        assert float(o1.param_groups[0]["initial_lr"]) == float(
            o2.param_groups[0]["initial_lr"])


@requires_torch
def test_tensor_lr_plateau_and_onecycle_match_torch():
    for build in (lambda M, o: M.ReduceLROnPlateau(o, patience=1, factor=0.5),
                  lambda M, o: M.OneCycleLR(o, 0.5, total_steps=20)):
        o1 = _SGDLike([pytensor.zeros(2, requires_grad=True)],
                      lr=pytensor.tensor(0.1, dtype=pytensor.float64))
        o2 = torch.optim.SGD([torch.zeros(2, requires_grad=True)],
                             lr=torch.tensor(0.1, dtype=torch.float64), momentum=0.9)
        s1, s2 = build(L, o1), build(torch.optim.lr_scheduler, o2)
        plateau = isinstance(s1, L.ReduceLROnPlateau)
        for i in range(19):
            o1.step(), o2.step()
            if plateau:
                s1.step(1.0), s2.step(1.0)
            else:
                s1.step(), s2.step()
            a, b = s1.get_last_lr()[0], s2.get_last_lr()[0]
            assert isinstance(a, pytensor.Tensor) == isinstance(b, torch.Tensor)
            assert float(a) == pytest.approx(float(b), abs=1e-12, rel=0)


@requires_torch
def test_public_names_and_classes_as_torch():
    T = torch.optim.lr_scheduler
    assert sorted(L.__all__) == sorted(T.__all__)
    assert issubclass(L._LRScheduler, L.LRScheduler)
    for name in T.__all__:
        assert issubclass(getattr(L, name), L.LRScheduler) == issubclass(getattr(T, name),
                                                                          T.LRScheduler)
    assert L.EPOCH_DEPRECATION_WARNING == T.EPOCH_DEPRECATION_WARNING


def test_scheduler_pickles_without_its_optimizer_wrapper():
    import copy
    opt = _pt_opt((0.1, 0.2))
    s = L.MultiStepLR(opt, [2, 4], 0.5)
    _run(s, opt, 3)
    clone = pickle.loads(pickle.dumps(s))
    assert clone.get_last_lr() == s.get_last_lr() and clone.milestones == s.milestones
    assert copy.deepcopy(s).state_dict() == s.state_dict()


# ---------------------------------------------------------------- without torch: closed forms
def _lrs(sched, opt, n):
    return [r[0] for r in _run(sched, opt, n)]


def test_closed_forms():
    base = 0.1
    cases = [
        (lambda o: L.StepLR(o, 3, 0.5), lambda e: base * 0.5 ** (e // 3)),
        (lambda o: L.MultiStepLR(o, [4, 7, 7], 0.1),
         lambda e: base * 0.1 ** sum(e >= m for m in (4, 7, 7))),
        (lambda o: L.ExponentialLR(o, 0.9), lambda e: base * 0.9 ** e),
        (lambda o: L.ConstantLR(o, 0.5, 4), lambda e: base * (0.5 if e < 4 else 1.0)),
        (lambda o: L.LinearLR(o, 0.25, 1.0, 8), lambda e: base * (0.25 + 0.75 * min(e, 8) / 8)),
        (lambda o: L.PolynomialLR(o, 10, 2.0), lambda e: base * (1 - min(e, 10) / 10) ** 2),
        (lambda o: L.CosineAnnealingLR(o, 10, 0.01),
         lambda e: 0.01 + (base - 0.01) * (1 + math.cos(math.pi * e / 10)) / 2),
        (lambda o: L.CosineAnnealingWarmRestarts(o, 4, 2),
         lambda e: base * (1 + math.cos(math.pi * _tcur(e, 4, 2)[0] / _tcur(e, 4, 2)[1])) / 2),
        (lambda o: L.LambdaLR(o, lambda e: 1 / (e + 1)), lambda e: base / (e + 1)),
        (lambda o: L.MultiplicativeLR(o, lambda e: 0.9), lambda e: base * 0.9 ** e),
        (lambda o: L.CyclicLR(o, 0.01, 0.05, 4, cycle_momentum=False),
         lambda e: 0.01 + 0.04 * (1 - abs(e % 8 - 4) / 4)),
    ]
    for build, want in cases:
        opt = _pt_opt((base,))
        got = _lrs(build(opt), opt, 30)
        for e, lr in enumerate(got):
            assert lr[0] == pytest.approx(want(e), abs=1e-12, rel=1e-12), (build, e)


def _tcur(e, t0, mult):
    period = t0
    while e >= period:
        e -= period
        period *= mult
    return e, period


def test_onecycle_closed_form_and_momentum():
    opt = _pt_opt((0.1,))
    s = L.OneCycleLR(opt, max_lr=1.0, total_steps=20, pct_start=0.25)
    seq = _run(s, opt, 19)
    lo, hi, end = 1.0 / 25, 1.0, 1.0 / 25 / 1e4
    up = 0.25 * 20 - 1

    def cos(a, b, p):
        return b + (a - b) / 2 * (math.cos(math.pi * p) + 1)
    for e, (lr, mom) in enumerate(seq):
        if e <= up:
            want, want_m = cos(lo, hi, e / up), cos(0.95, 0.85, e / up)
        else:
            p = (e - up) / (19 - up)
            want, want_m = cos(hi, end, p), cos(0.85, 0.95, p)
        assert lr[0] == pytest.approx(want, abs=1e-12) and mom[0] == pytest.approx(want_m)
    assert opt.param_groups[0]["initial_lr"] == lo
    assert opt.param_groups[0]["max_lr"] == hi and opt.param_groups[0]["min_lr"] == end
    opt.step()
    s.step()  # step 20 is allowed, 21 is not
    with pytest.raises(ValueError, match="^Tried to step 21 times. The specified number of "
                                         "total steps is 20$"):
        s.step()


def test_cyclic_momentum_betas_and_group_keys():
    opt = _pt_opt((0.1,), "adam")
    s = L.CyclicLR(opt, 0.01, 0.1, 2, base_momentum=0.8, max_momentum=0.9)
    g = opt.param_groups[0]
    assert g["betas"] == (0.9, 0.999) and g["lr"] == 0.01
    assert g["max_momentum"] == 0.9 and g["base_momentum"] == 0.8
    opt.step()
    s.step()
    assert g["betas"][0] == pytest.approx(0.85) and g["lr"] == pytest.approx(0.055)
    opt.step()
    s.step()
    assert g["betas"] == (pytest.approx(0.8), 0.999) and g["lr"] == pytest.approx(0.1)


def test_initial_lr_and_base_lrs():
    opt = _pt_opt((0.1, 0.2))
    s = L.ExponentialLR(opt, 0.5)
    assert s.base_lrs == [0.1, 0.2] and s.last_epoch == 0 and s._step_count == 1
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.2]
    for _ in range(2):
        opt.step()
        s.step()
    # a second scheduler keeps the initial_lr already set
    s2 = L.StepLR(opt, 1)
    assert s2.base_lrs == [0.1, 0.2] and s2.get_last_lr() == [0.025, 0.05]
    # resuming with last_epoch needs initial_lr
    fresh = _pt_opt((0.1,))
    with pytest.raises(KeyError, match=r"param 'initial_lr' is not specified in "
                                       r"param_groups\[0\] when resuming scheduler"):
        L.StepLR(fresh, 2, last_epoch=3)
    resumed = L.StepLR(opt, 2, 0.1, last_epoch=5)
    assert resumed.last_epoch == 6


def test_reduce_on_plateau_closed_sequence():
    opt = _pt_opt((1.0,))
    s = L.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1, min_lr=0.2)
    lrs = [s.get_last_lr()[0]]
    for m in [5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]:
        s.step(m)
        lrs.append(s.get_last_lr()[0])
    assert lrs == [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25]
    assert s.best == 4 and s.last_epoch == 12
    s.step(pytensor.tensor(3.0))
    assert s.best == 3.0
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["mode"] == "min"
    s2 = L.ReduceLROnPlateau(_pt_opt((1.0,)), mode="max")
    s2.load_state_dict(sd)
    assert s2.mode == "min" and s2.mode_worse == math.inf and s2.best == 3.0


# ---------------------------------------------------------------- state_dict
def test_state_dict_round_trip_continues_the_schedule():
    builds = [lambda o: L.StepLR(o, 3, 0.5), lambda o: L.CosineAnnealingLR(o, 9, 0.01),
              lambda o: L.CyclicLR(o, 0.01, 0.1, 3, mode="triangular2"),
              lambda o: L.OneCycleLR(o, 0.5, total_steps=30),
              lambda o: L.CosineAnnealingWarmRestarts(o, 3, 2),
              lambda o: L.SequentialLR(o, [L.ConstantLR(o, 0.5, 2), L.ExponentialLR(o, 0.9)],
                                       [4]),
              lambda o: L.ChainedScheduler([L.ExponentialLR(o, 0.9), L.StepLR(o, 3, 0.5)]),
              lambda o: L.LambdaLR(o, lambda e: 0.9 ** e)]
    for build in builds:
        o1 = _pt_opt((0.1, 0.2))
        s1 = build(o1)
        _run(s1, o1, 7)
        saved_opt, saved = o1.state_dict(), pickle.loads(pickle.dumps(s1.state_dict()))
        o2 = _pt_opt((0.1, 0.2))
        s2 = build(o2)
        o2.load_state_dict(saved_opt)
        s2.load_state_dict(saved)
        _close(_run(s2, o2, 15)[1:], _run(s1, o1, 15)[1:])


def test_lambda_state_dict_keeps_callable_objects_only():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, e):
            return self.rate ** e

    opt = _pt_opt((0.1, 0.1))
    s = L.LambdaLR(opt, [lambda e: 1.0, Decay(0.5)])
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [None, {"rate": 0.5}]
    sd["lr_lambdas"][1]["rate"] = 0.25
    s.load_state_dict(sd)
    assert s.lr_lambdas[1].rate == 0.25 and "lr_lambdas" in sd
    c = L.CyclicLR(_pt_opt(), 0.01, 0.1, scale_fn=Decay(0.9))
    assert c.state_dict()["_scale_fn_custom"] == {"rate": 0.9}
    assert "_scale_fn_ref" not in L.CyclicLR(_pt_opt(), 0.01, 0.1).state_dict()


@requires_torch
def test_state_dict_contents_match_torch():
    for build in (lambda M, o: M.StepLR(o, 3), lambda M, o: M.MultiStepLR(o, [2, 3]),
                  lambda M, o: M.OneCycleLR(o, 0.1, 10),
                  lambda M, o: M.CosineAnnealingWarmRestarts(o, 2),
                  lambda M, o: M.SequentialLR(o, [M.ConstantLR(o), M.ExponentialLR(o, 0.5)],
                                              [2])):
        o1, o2 = _pt_opt(), _torch_opt()
        s1, s2 = build(L, o1), build(torch.optim.lr_scheduler, o2)
        _run(s1, o1, 3), _run(s2, o2, 3)
        assert s1.state_dict() == s2.state_dict()
    o1, o2 = _pt_opt(), _torch_opt()
    c1 = L.CyclicLR(o1, 0.01, 0.1)
    c2 = torch.optim.lr_scheduler.CyclicLR(o2, 0.01, 0.1)
    assert list(c1.state_dict()) == list(c2.state_dict())


# ---------------------------------------------------------------- warnings
def test_step_order_and_deprecation_warnings():
    opt = _pt_opt()
    s = L.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"^Detected call of `lr_scheduler.step\(\)` before "
                                         r"`optimizer.step\(\)`"):
        s.step()
    opt = _pt_opt()
    s = L.StepLR(opt, 2)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.step()
    with pytest.warns(UserWarning, match="^The epoch parameter in `scheduler.step\\(\\)` was "
                                         "not necessary"):
        s.step(4)
    with pytest.warns(UserWarning, match="^To get the last learning rate computed by the "
                                         "scheduler, please use `get_last_lr\\(\\)`.$"):
        s.get_lr()
    opt = _pt_opt()
    s = L.StepLR(opt, 2)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match=r"^Seems like `optimizer.step\(\)` has been overridden"):
        s.step()
    opt = _pt_opt()
    s = L.ReduceLROnPlateau(opt)
    with pytest.warns(UserWarning, match="^The epoch parameter"):
        s.step(1.0, 5)
    assert s.last_epoch == 5


def test_optimizer_step_wrapped_once():
    opt = _pt_opt()
    L.StepLR(opt, 2)
    first = opt.step
    L.ExponentialLR(opt, 0.9)
    assert opt.step is first and first._wrapped_by_lr_sched
    assert not getattr(opt, "_opt_called", False)
    opt.step()
    assert opt._opt_called


# ---------------------------------------------------------------- bad input
def _bad(L=L, o=_pt_opt):
    """(call, exception type, message); the same calls run on torch's module and optimizer."""
    return [
        (lambda: L.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
        (lambda: L.ConstantLR(o(), factor=1.5), ValueError,
         "Constant multiplicative factor expected to be between 0 and 1."),
        (lambda: L.LinearLR(o(), start_factor=0), ValueError,
         "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."),
        (lambda: L.LinearLR(o(), end_factor=-0.5), ValueError,
         "Ending multiplicative factor expected to be between 0 and 1."),
        (lambda: L.LambdaLR(o((0.1, 0.2)), [lambda e: 1.0]), ValueError,
         "Expected 2 lr_lambdas, but got 1"),
        (lambda: L.MultiplicativeLR(o(), 0.5), TypeError,
         "lr_lambda should be a function, but got float"),
        (lambda: L.CosineAnnealingWarmRestarts(o(), 0), ValueError,
         "Expected positive integer T_0, but got 0"),
        (lambda: L.CosineAnnealingWarmRestarts(o(), 2, T_mult=1.5), ValueError,
         "Expected integer T_mult >= 1, but got 1.5"),
        (lambda: L.CosineAnnealingWarmRestarts(o(), 2, eta_min="0"), ValueError,
         "Expected float or int eta_min, but got 0 of type <class 'str'>"),
        (lambda: L.CosineAnnealingWarmRestarts(o(), 2).step(-1), ValueError,
         "Expected non-negative epoch, but got -1"),
        (lambda: L.CyclicLR(o(), 0.1, 1.0, mode="square"), ValueError,
         "mode is invalid and scale_fn is None"),
        (lambda: L.CyclicLR(o(), [0.1, 0.2], 1.0), ValueError,
         "base_lr must have the same length as optimizer.param_groups. base_lr has 2 values, "
         "param_groups has 1."),
        (lambda: L.OneCycleLR(o(), 0.1), ValueError,
         "You must define either total_steps OR (epochs AND steps_per_epoch)"),
        (lambda: L.OneCycleLR(o(), 0.1, total_steps=0), ValueError,
         "Expected positive integer total_steps, but got 0"),
        (lambda: L.OneCycleLR(o(), 0.1, epochs=2.0, steps_per_epoch=3), ValueError,
         "Expected positive integer epochs, but got 2.0"),
        (lambda: L.OneCycleLR(o(), 0.1, epochs=2, steps_per_epoch=-3), ValueError,
         "Expected positive integer steps_per_epoch, but got -3"),
        (lambda: L.OneCycleLR(o(), 0.1, 10, pct_start=1), ValueError,
         "Expected float between 0 and 1 pct_start, but got 1"),
        (lambda: L.OneCycleLR(o(), 0.1, 10, anneal_strategy="exp"), ValueError,
         "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
        (lambda: L.OneCycleLR(o(), 0.1, 10, max_momentum=[0.9, 0.9]), ValueError,
         "max_momentum must have the same length as optimizer.param_groups. max_momentum has "
         "2 values, param_groups has 1."),
        (lambda: L.ReduceLROnPlateau(o(), factor=1.0), ValueError, "Factor should be < 1.0."),
        (lambda: L.ReduceLROnPlateau(o(), mode="low"), ValueError, "mode low is unknown!"),
        (lambda: L.ReduceLROnPlateau(o(), threshold_mode="x"), ValueError,
         "threshold mode x is unknown!"),
        (lambda: L.ReduceLROnPlateau(o(), min_lr=[0.1, 0.2]), ValueError,
         "expected 1 min_lrs, got 2"),
        (lambda: L.ReduceLROnPlateau([], factor=2), ValueError, "Factor should be < 1.0."),
        (lambda: L.ReduceLROnPlateau([]), TypeError, "list is not an Optimizer"),
        (lambda: L.CyclicLR(0, 0.1, 1.0), TypeError, "int is not an Optimizer"),
        (lambda: L.OneCycleLR(0, 0.1, 1), TypeError, "int is not an Optimizer"),
        (lambda: L.SequentialLR(o(), [], []), ValueError,
         "SequentialLR expects at least one scheduler, but got no scheduler."),
        (lambda: L.ChainedScheduler([]), ValueError,
         "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler."),
        (lambda: L.SequentialLR(o(), [object()], []), TypeError,
         "SequentialLR at index 0 should have `optimizer` as its attribute."),
        (lambda: (lambda p: L.SequentialLR(p, [L.ReduceLROnPlateau(p)], []))(o()), ValueError,
         "SequentialLR does not support `ReduceLROnPlateau` scheduler as it requires additional "
         "kwargs to be specified when calling `step`, but got one at index 0 in the given "
         "schedulers sequence."),
        (lambda: (lambda p: L.SequentialLR(p, [L.StepLR(p, 2), L.StepLR(p, 3)], []))(o()),
         ValueError, "Sequential Schedulers expects number of schedulers provided to be one "
         "more than the number of milestone points, but got number of schedulers 2 and the "
         "number of milestones to be equal to 0"),
    ]


@pytest.mark.parametrize("i", range(len(_bad())))
def test_bad_input_messages(i):
    build, exc, msg = _bad()[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as info:
            build()
    if msg is not None:
        assert str(info.value) == msg


def test_cycle_momentum_needs_momentum():
    class Plain(Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=0.1))

        def step(self, closure=None):
            return None
    msg = "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
    for build in (lambda o: L.CyclicLR(o, 0.1, 1.0), lambda o: L.OneCycleLR(o, 1.0, 10)):
        with pytest.raises(ValueError) as info:
            build(Plain([pytensor.zeros(1, requires_grad=True)]))
        assert str(info.value) == msg


def test_composite_with_other_optimizer():
    a, b = _pt_opt(), _pt_opt()
    sa, sb = L.StepLR(a, 2), L.StepLR(b, 2)
    with pytest.raises(ValueError) as info:
        L.ChainedScheduler([sa, sb])
    assert str(info.value) == ("ChainedScheduler expects all schedulers to belong to the same "
                               f"optimizer, but got scheduler StepLR at index 1 has {b}, which "
                               "is different from _SGDLike.")


def test_plateau_min_lrs_after_new_group():
    opt = _pt_opt()
    s = L.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0])
    s.step(1.0)
    opt.add_param_group({"params": [pytensor.zeros(1, requires_grad=True)], "lr": 0.3})
    with pytest.raises(RuntimeError, match=r"^The number of param groups in the `optimizer` "
                                           r"\(2\) differs from when `ReduceLROnPlateau` was "
                                           r"initialized \(1\)"):
        s.step(2.0)
    opt = _pt_opt()
    s = L.ReduceLROnPlateau(opt, patience=0, min_lr=0.001)
    s.step(1.0)
    opt.add_param_group({"params": [pytensor.zeros(1, requires_grad=True)], "lr": 0.3})
    s.step(2.0)
    assert s.min_lrs == [0.001, 0.001]
    assert s.get_last_lr() == [pytest.approx(0.01), pytest.approx(0.03)]


@requires_torch
@pytest.mark.parametrize("i", range(len(_bad())))
def test_bad_input_messages_match_torch(i):
    """The same calls on torch's classes raise the same exception types and messages."""
    build, exc, msg = _bad(torch.optim.lr_scheduler, _torch_opt)[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as info:
            build()
    assert str(info.value) == msg
