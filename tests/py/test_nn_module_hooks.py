"""Module hooks: forward pre-hooks and forward hooks (order, prepend, with_kwargs, always_call,
replaced arguments and outputs, removal), the global hooks, and full backward (pre-)hooks,
whose gradients and call order are compared with torch's."""
from __future__ import annotations

import numpy as np
import pytest

import pytensor
from pytensor import nn
from pytensor.nn.modules import module as module_mod
from _torch_oracle import requires_torch, torch


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


class Add(nn.Module):
    def forward(self, x, y=0):
        return x + y


def test_forward_hook_order_and_prepend():
    m = Add()
    log = []
    m.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
    m.register_forward_hook(lambda mod, args, out: log.append("post1"))
    m.register_forward_hook(lambda mod, args, out: log.append("post0"), prepend=True)
    m(pytensor.ones(1))
    assert log == ["pre0", "pre1", "post0", "post1"]


def test_hooks_replace_arguments_and_output():
    m = Add()
    m.register_forward_pre_hook(lambda mod, args: args[0] * 2)  # a non-tuple is wrapped
    h = m.register_forward_hook(lambda mod, args, out: out + 100)
    assert m(pytensor.ones(1)).item() == 102
    h.remove()
    assert m(pytensor.ones(1)).item() == 2


def test_hooks_with_kwargs():
    m = Add()
    seen = []

    def pre(mod, args, kwargs):
        seen.append(dict(kwargs))
        return args, {"y": kwargs["y"] + 1}

    m.register_forward_pre_hook(pre, with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: seen.append(kwargs) or out * 10,
                            with_kwargs=True)
    assert m(pytensor.ones(1), y=pytensor.ones(1)).item() == 30
    assert seen[0]["y"].item() == 1 and seen[1]["y"].item() == 2
    m2 = Add()
    m2.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"forward pre-hook must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 5\."):
        m2(pytensor.ones(1))


def test_always_call_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    log = []
    m.register_forward_hook(lambda mod, args, out: log.append(("always", out)), always_call=True)
    m.register_forward_hook(lambda mod, args, out: log.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(pytensor.ones(1))
    assert log == [("always", None)]


def test_handle_context_manager_and_ids():
    m = Add()
    with m.register_forward_hook(lambda mod, a, o: o * 0) as h:
        assert m(pytensor.ones(1)).item() == 0
    assert m(pytensor.ones(1)).item() == 1
    h2 = m.register_forward_hook(lambda mod, a, o: None, with_kwargs=True)
    assert h2.id in m._forward_hooks_with_kwargs
    h2.remove()
    assert h2.id not in m._forward_hooks_with_kwargs and not m._forward_hooks


def test_global_hooks_run_before_module_hooks():
    m = Add()
    log = []
    m.register_forward_pre_hook(lambda mod, args: log.append("local pre"))
    m.register_forward_hook(lambda mod, args, out: log.append("local"))
    h1 = module_mod.register_module_forward_pre_hook(lambda mod, args: log.append("global pre"))
    h2 = module_mod.register_module_forward_hook(lambda mod, args, out: log.append("global"))
    try:
        m(pytensor.ones(1))
    finally:
        h1.remove()
        h2.remove()
    assert log == ["global pre", "local pre", "global", "local"]
    log.clear()
    nn.Identity()(1)
    assert log == []


def test_registration_hooks():
    seen = []
    hs = [module_mod.register_module_parameter_registration_hook(
              lambda m, n, p: seen.append(("p", n))),
          module_mod.register_module_buffer_registration_hook(
              lambda m, n, b: seen.append(("b", n))),
          module_mod.register_module_module_registration_hook(
              lambda m, n, c: seen.append(("m", n)))]
    try:
        m = nn.Module()
        m.w = nn.Parameter(pytensor.zeros(1))
        m.register_buffer("r", pytensor.zeros(1))
        m.c = nn.Identity()
    finally:
        for h in hs:
            h.remove()
    assert seen == [("p", "w"), ("b", "r"), ("m", "c")]


def _backward_log(lib, nn_, x_requires_grad=True):
    lin = nn_.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]))
        lin.bias.fill_(0.25)
    log = []

    def pre(mod, gout):
        log.append(("pre", [g.tolist() for g in gout]))
        return (gout[0] * 2,)

    def full(mod, gin, gout):
        log.append(("full", [None if g is None else g.tolist() for g in gin],
                    [g.tolist() for g in gout]))

    lin.register_full_backward_pre_hook(pre)
    lin.register_full_backward_hook(full)
    x = lib.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 1.0]], requires_grad=x_requires_grad)
    y = lin(x)
    (y * lib.tensor([1.0, 3.0])).sum().backward()
    return log, (x.grad.tolist() if x_requires_grad else None), lin.weight.grad.tolist()


@requires_torch
@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_full_backward_hooks_match_torch(x_requires_grad):
    assert _backward_log(pytensor, nn, x_requires_grad) == _backward_log(
        torch, torch.nn, x_requires_grad)


def test_full_backward_hooks_without_torch():
    log, xgrad, wgrad = _backward_log(pytensor, nn)
    assert [e[0] for e in log] == ["pre", "full"]
    assert log[0][1] == [[[1.0, 3.0], [1.0, 3.0]]]
    assert log[1][2] == [[[2.0, 6.0], [2.0, 6.0]]]
    w = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    np.testing.assert_allclose(xgrad, np.array([[2.0, 6.0]] * 2) @ w)


def test_full_backward_hook_replaces_grad_input():
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 0,))
    x = pytensor.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    assert _np(x.grad).tolist() == [[0.0, 0.0]]
    bad = nn.Linear(2, 2)
    bad.register_full_backward_hook(lambda mod, gin, gout: (gin[0], gin[0]))
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of "
                                           "grad_input, got 2, but expected 1"):
        bad(x).sum().backward()


def test_global_backward_hook():
    log = []
    h = module_mod.register_module_full_backward_hook(lambda m, gi, go: log.append(type(m)))
    try:
        nn.Linear(2, 1)(pytensor.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        h.remove()
    assert log == [nn.Linear]


def _old_hook_log(lib):
    lin = lib.nn.Linear(3, 2)
    log = []
    lin.register_backward_hook(lambda m, gi, go: log.append(
        ([None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
    lin(lib.ones(4, 3, requires_grad=True)).sum().backward()
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full "
                                           "backward hooks on a single Module"):
        lin.register_full_backward_hook(lambda *a: None)
    return log


@pytest.mark.filterwarnings("ignore")
def test_old_backward_hook_sees_the_output_node():
    assert _old_hook_log(pytensor) == [([(2,), (4, 3), (3, 2)], [(4, 2)])]


@requires_torch
@pytest.mark.filterwarnings("ignore")
def test_old_backward_hook_matches_torch():
    assert _old_hook_log(pytensor) == _old_hook_log(torch)
