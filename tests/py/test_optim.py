"""pytensor.optim: every optimizer step by step against torch's for the same gradients (every
option, each of the single-tensor, foreach and fused paths), the paths against each other and
against NumPy without torch, state_dict layout and round trips (loading torch's), bad input."""
import itertools
import math

import numpy as np
import pytest

import pytensor
import pytensor.optim as optim
from _torch_oracle import requires_torch, torch

SHAPES = [(4, 3), (5,), (2, 2, 2)]
STEPS = 5


def _data(dtype, seed=0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(STEPS)]
    return params, grads


def _np_dtype(name):
    return np.float32 if name == "float32" else np.float64


def _run_pt(cls_name, kwargs, dtype, impl, steps=STEPS):
    params, grads = _data(_np_dtype(dtype))
    ps = [pytensor.tensor(p).requires_grad_() for p in params]
    kw = dict(kwargs)
    if "lr_tensor" in kw:
        kw["lr"] = pytensor.tensor(kw.pop("lr_tensor"))
    if impl == "single":
        kw["foreach"] = False
    elif impl == "foreach":
        kw["foreach"] = True
    elif impl == "fused":
        kw["fused"] = True
    opt = getattr(optim, cls_name)(ps, **kw)
    for g in grads[:steps]:
        for p, gi in zip(ps, g):
            p.grad = pytensor.tensor(gi)
        opt.step()
    return ps, opt


def _run_torch(cls_name, kwargs, dtype, impl):
    params, grads = _data(_np_dtype(dtype))
    ps = [torch.tensor(p).requires_grad_() for p in params]
    kw = dict(kwargs)
    if "lr_tensor" in kw:
        kw["lr"] = torch.tensor(kw.pop("lr_tensor"))
    if impl == "single":
        kw["foreach"] = False
    elif impl == "foreach":
        kw["foreach"] = True
    elif impl == "fused":
        kw["fused"] = True
    opt = getattr(torch.optim, cls_name)(ps, **kw)
    for g in grads:
        for p, gi in zip(ps, g):
            p.grad = torch.tensor(gi)
        opt.step()
    return ps, opt


def _combos(**options):
    keys = list(options)
    return [dict(zip(keys, vals)) for vals in itertools.product(*options.values())]


CONFIGS = {
    "SGD": [dict(lr=0.1, **c) for c in _combos(momentum=[0, 0.9], dampening=[0, 0.2],
                                                weight_decay=[0, 0.1], maximize=[False, True])]
           + [dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=w, maximize=m)
              for w in (0, 0.1) for m in (False, True)] + [dict(lr_tensor=0.05, momentum=0.5)],
    "Adam": [dict(lr=0.01, **c) for c in _combos(weight_decay=[0, 0.1], amsgrad=[False, True],
                                                  maximize=[False, True],
                                                  decoupled_weight_decay=[False, True])]
            + [dict(lr_tensor=0.02, betas=(0.8, 0.99))],
    "AdamW": [dict(lr=0.01, **c) for c in _combos(weight_decay=[0, 0.1], amsgrad=[False, True],
                                                   maximize=[False, True])],
    "Adamax": [dict(lr=0.01, **c) for c in _combos(weight_decay=[0, 0.1],
                                                    maximize=[False, True])],
    "NAdam": [dict(lr=0.01, **c) for c in _combos(weight_decay=[0, 0.1],
                                                   decoupled_weight_decay=[False, True],
                                                   momentum_decay=[4e-3, 0.1],
                                                   maximize=[False, True])],
    "RAdam": [dict(lr=0.01, **c) for c in _combos(weight_decay=[0, 0.1],
                                                   decoupled_weight_decay=[False, True],
                                                   maximize=[False, True])]
             + [dict(lr=0.01, betas=(0.9, 0.5))],  # rho_t > 5 from step 1 on
    "RMSprop": [dict(lr=0.01, **c) for c in _combos(centered=[False, True], momentum=[0, 0.9],
                                                     weight_decay=[0, 0.1],
                                                     maximize=[False, True])],
    "Adagrad": [dict(lr=0.1, **c) for c in _combos(lr_decay=[0, 0.1], weight_decay=[0, 0.1],
                                                    initial_accumulator_value=[0, 0.5],
                                                    maximize=[False, True])],
    "Adadelta": [dict(**c) for c in _combos(lr=[1.0, 0.5], rho=[0.9, 0.5],
                                             weight_decay=[0, 0.1], maximize=[False, True])],
}
FUSED = {"SGD", "Adam", "AdamW", "Adagrad"}
CASES = [(name, i, impl) for name, cfgs in CONFIGS.items() for i in range(len(cfgs))
         for impl in (["single", "foreach", "default"] + (["fused"] if name in FUSED else []))
         if not ("lr_tensor" in cfgs[i] and impl == "foreach")]


def _tol(dtype, loose=False):
    if loose:  # centered RMSprop: sqrt of a difference near 0 magnifies one rounding
        return dict(rtol=1e-5, atol=1e-5)
    return dict(rtol=1e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)


@requires_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,i,impl", CASES)
def test_steps_match_torch(name, i, impl, dtype):
    kw = CONFIGS[name][i]
    ps, opt = _run_pt(name, kw, dtype, impl)
    timpl = impl if impl != "default" else "single"
    ts, topt = _run_torch(name, kw, dtype, timpl)
    loose = name == "RMSprop" and kw.get("centered") and dtype == "float32"
    for p, t in zip(ps, ts):
        assert p.dtype.itemsize == t.dtype.itemsize
        np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(),
                                   **_tol(dtype, loose))
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert list(sd["state"]) == list(tsd["state"])
    for k in tsd["state"]:
        assert list(sd["state"][k]) == list(tsd["state"][k])
        for key, tv in tsd["state"][k].items():
            v = sd["state"][k][key]
            if isinstance(tv, torch.Tensor):
                assert str(v.dtype).split(".")[1] == str(tv.dtype).split(".")[1], key
                np.testing.assert_allclose(v.numpy(), tv.numpy(), **_tol(dtype, loose))
            else:
                assert v == tv
    pg, tpg = sd["param_groups"][0], tsd["param_groups"][0]
    assert list(pg) == list(tpg)
    skip = {"lr", "foreach", "fused"} if impl == "default" else {"lr"}
    for key in tpg:
        if key not in skip:
            assert pg[key] == tpg[key], key


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_paths_agree(name, dtype):
    """single-tensor, foreach and fused paths give the same numbers (no torch needed)."""
    for kw in CONFIGS[name]:
        ref, _ = _run_pt(name, kw, dtype, "single")
        impls = ["default"] + (["foreach"] if "lr_tensor" not in kw else [])
        impls += ["fused"] if name in FUSED else []
        for impl in impls:
            got, _ = _run_pt(name, kw, dtype, impl)
            for a, b in zip(ref, got):
                # a Tensor lr: torch's per-parameter path rounds the step size to lr's float32
                loose = dtype == "float32" or "lr_tensor" in kw
                tol = dict(rtol=1e-5, atol=1e-6) if loose else _tol(dtype)
                np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)


def _np_adam(p, grads, lr, b1, b2, eps, wd, amsgrad):
    m, v, vmax = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        denom = np.sqrt(vmax if amsgrad else v) / math.sqrt(1 - b2 ** t) + eps
        p = p - lr / (1 - b1 ** t) * m / denom
    return p


@pytest.mark.parametrize("impl", ["single", "foreach", "fused"])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_matches_numpy(impl, amsgrad):
    ps, _ = _run_pt("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=amsgrad), "float64", impl)
    params, grads = _data(np.float64)
    for k in range(len(SHAPES)):
        ref = _np_adam(params[k], [g[k] for g in grads], 0.01, 0.9, 0.999, 1e-8, 0.1, amsgrad)
        np.testing.assert_allclose(ps[k].detach().numpy(), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("impl", ["single", "foreach", "fused"])
def test_sgd_matches_numpy(impl):
    ps, _ = _run_pt("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
                    "float64", impl)
    params, grads = _data(np.float64)
    for k in range(len(SHAPES)):
        p, buf = params[k], None
        for g in grads:
            g = g[k] + 0.01 * p
            buf = g.copy() if buf is None else 0.9 * buf + g
            p = p - 0.1 * (g + 0.9 * buf)
        np.testing.assert_allclose(ps[k].detach().numpy(), p, rtol=1e-12, atol=1e-12)


def test_params_without_grad_are_skipped_and_zero_grad():
    a = pytensor.ones(3, requires_grad=True)
    b = pytensor.ones(2, requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = pytensor.ones(3)
    opt.step()
    assert b.tolist() == [1.0, 1.0] and len(opt.state) == 1
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None


def test_complex_params_update_as_real_views():
    z = pytensor.tensor([1 + 2j, -1 + 0.5j], dtype=pytensor.complex64).requires_grad_()
    opt = optim.SGD([z], lr=0.5)
    z.grad = pytensor.tensor([2 + 2j, 1 - 1j], dtype=pytensor.complex64)
    opt.step()
    assert z.detach().tolist() == [0 + 1j, -1.5 + 1j]


def test_state_dict_round_trip():
    ps, opt = _run_pt("Adam", dict(lr=0.01, amsgrad=True), "float32", "default", steps=2)
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0, 1, 2]
    assert list(sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    opt2 = optim.Adam([pytensor.zeros(s, requires_grad=True) for s in SHAPES], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.01
    for k in range(3):
        p2 = opt2.param_groups[0]["params"][k]
        assert opt2.state[p2]["exp_avg"].tolist() == opt.state[ps[k]]["exp_avg"].tolist()


@requires_torch
def test_loads_torch_state_dict():
    ts, topt = _run_torch("Adam", dict(lr=0.01, amsgrad=True), "float32", "single")
    tsd = topt.state_dict()
    sd = {"state": {k: {n: pytensor.tensor(v.numpy()) for n, v in st.items()}
                    for k, st in tsd["state"].items()},
          "param_groups": tsd["param_groups"]}
    params, grads = _data(np.float32)
    ps = [pytensor.tensor(t.detach().numpy()).requires_grad_() for t in ts]
    opt = optim.Adam(ps, lr=0.5, amsgrad=True)
    opt.load_state_dict(sd)
    g = [np.ones(s, np.float32) for s in SHAPES]
    for p, gi in zip(ps, g):
        p.grad = pytensor.tensor(gi)
    for t, gi in zip(ts, g):
        t.grad = torch.tensor(gi)
    opt.step()
    topt.step()
    for p, t in zip(ps, ts):
        np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_param_groups_and_repr():
    a, b = pytensor.ones(2, requires_grad=True), pytensor.ones(3, requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n    dampening: 0\n")
    assert "Parameter Group 1\n" in text and text.endswith(")")


@requires_torch
def test_repr_matches_torch():
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad"):
        p = pytensor.ones(2, requires_grad=True)
        t = torch.ones(2, requires_grad=True)
        assert repr(getattr(optim, name)([p])) == repr(getattr(torch.optim, name)([t]))


def test_hooks():
    a = pytensor.ones(2, requires_grad=True)
    opt = optim.SGD([a], lr=0.1)
    seen = []
    h1 = opt.register_step_pre_hook(lambda o, args, kw: seen.append("pre"))
    opt.register_step_post_hook(lambda o, args, kw: seen.append("post"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    a.grad = pytensor.ones(2)
    opt.step()
    h1.remove()
    opt.step()
    assert seen == ["pre", "post", "post"]
    assert opt.state_dict()["extra"] == 1
    g = optim.optimizer.register_optimizer_step_pre_hook(lambda o, args, kw: seen.append("g"))
    opt.step()
    g.remove()
    assert seen[-2:] == ["g", "post"]


def test_closure_loss_returned():
    a = pytensor.tensor([3.0], requires_grad=True)
    opt = optim.SGD([a], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 9.0 and a.tolist() == [1.5]


# ---------------------------------------------------------------- LBFGS
def _rosen_pt(x):
    return ((1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_minimizes_rosenbrock(line_search):
    x = pytensor.tensor([-1.5, 2.0], dtype=pytensor.float64, requires_grad=True)
    opt = optim.LBFGS([x], lr=1, max_iter=200, line_search_fn=line_search, history_size=10)

    def closure():
        opt.zero_grad()
        loss = _rosen_pt(x)
        loss.backward()
        return loss

    for _ in range(5 if line_search else 30):
        opt.step(closure)
    if line_search:
        np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-3)
    assert set(opt.state[x]) >= {"func_evals", "n_iter", "d", "t", "old_dirs", "old_stps",
                                 "ro", "H_diag", "prev_flat_grad", "prev_loss"}


@requires_torch
@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_matches_torch(line_search):
    out = []
    for lib in (pytensor, torch):
        x = lib.tensor([-1.5, 2.0], dtype=lib.float64, requires_grad=True)
        opt = (optim if lib is pytensor else torch.optim).LBFGS(
            [x], lr=0.5, max_iter=15, line_search_fn=line_search, history_size=5)

        def closure():
            opt.zero_grad()
            loss = _rosen_pt(x)
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        out.append((x.detach().numpy().copy(), opt.state[x]["func_evals"],
                    opt.state[x]["n_iter"]))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-9, atol=1e-9)
    assert out[0][1:] == out[1][1:]


# ---------------------------------------------------------------- bad input
BAD = [
    ("SGD", dict(lr=-1.0)), ("SGD", dict(momentum=-0.5)), ("SGD", dict(weight_decay=-1)),
    ("SGD", dict(nesterov=True)), ("Adam", dict(lr=-0.1)), ("Adam", dict(eps=-1.0)),
    ("Adam", dict(betas=(1.0, 0.9))), ("Adam", dict(betas=(0.9, -0.1))),
    ("Adam", dict(weight_decay=-1)), ("AdamW", dict(betas=(0.9, 1.5))),
    ("Adamax", dict(eps=-1.0)), ("NAdam", dict(momentum_decay=-1.0)),
    ("RAdam", dict(betas=(-0.1, 0.9))), ("RMSprop", dict(alpha=-0.5)),
    ("RMSprop", dict(momentum=-1.0)), ("Adagrad", dict(lr_decay=-1.0)),
    ("Adagrad", dict(initial_accumulator_value=-1.0)), ("Adadelta", dict(rho=1.5)),
    ("LBFGS", dict(lr=-1.0)), ("Adam", dict(fused=True, foreach=True)),
    ("SGD", dict(fused=True, differentiable=True)),
]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e)
    return None


@requires_torch
@pytest.mark.parametrize("name,kw", BAD)
def test_bad_hyperparameters_match_torch(name, kw):
    got = _error(lambda: getattr(optim, name)([pytensor.ones(2, requires_grad=True)], **kw))
    want = _error(lambda: getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **kw))
    assert want is not None and got == want


def test_bad_params_messages():
    a = pytensor.ones(2, requires_grad=True)
    cases = [
        (lambda: optim.SGD(a), TypeError, "params argument given to the optimizer should be an "
         "iterable of Tensors or dicts, but got pytensor.FloatTensor"),
        (lambda: optim.SGD([]), ValueError, "optimizer got an empty parameter list"),
        (lambda: optim.SGD([a * 2]), ValueError, "can't optimize a non-leaf Tensor"),
        (lambda: optim.SGD([1.0]), TypeError, "optimizer can only optimize Tensors, but one of "
         "the params is float"),
        (lambda: optim.SGD([{"params": [a]}, {"params": [a]}]), ValueError,
         "some parameters appear in more than one parameter group"),
        (lambda: optim.SGD([{"params": {a}}]), TypeError, "optimizer parameters need to be organized in "
         "ordered collections, but the ordering of tensors in sets will change between runs. "
         "Please use a list instead."),
        (lambda: optim.LBFGS([{"params": [a]}, {"params": [pytensor.ones(1,
                                                                       requires_grad=True)]}]),
         ValueError, "LBFGS doesn't support per-parameter options (parameter groups)"),
        (lambda: optim.Adam([a], capturable=True), RuntimeError, None),
        (lambda: optim.Adam([a], differentiable=True), RuntimeError, None),
    ]
    for fn, exc, text in cases:
        with pytest.raises(exc) as info:
            fn()
        if text is not None:
            assert str(info.value) == text
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([a, a])
    opt = optim.SGD([a])
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]}]})


@requires_torch
def test_bad_params_messages_match_torch():
    for make in (lambda lib: lib.ones(2, requires_grad=True) * 2, lambda lib: 1.0):
        got = _error(lambda: optim.SGD([make(pytensor)]))
        want = _error(lambda: torch.optim.SGD([make(torch)]))
        assert got == want
    a, t = pytensor.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    assert (_error(lambda: optim.SGD([{"params": [a]}, {"params": [a]}]))
            == _error(lambda: torch.optim.SGD([{"params": [t]}, {"params": [t]}])))
