"""The first-order optimizers: SGD, Adam, AdamW, Adamax, NAdam, RAdam, RMSprop, Adagrad, Adadelta.

Each class has torch 2.13's arguments, defaults, validation messages, group keys and state keys;
its ``step`` gathers the parameters that have a gradient (and their state, made on first use)
into lists and runs the algorithm of ``_functional.py`` over them: per parameter with
``foreach=False``, over the group's lists in one C call per operation otherwise, and for Adam,
AdamW, SGD and Adagrad in one fused C pass with ``fused=True`` — the default here when every
parameter is a contiguous float32/float64 tensor (torch's CPU default is the per-parameter loop;
the numbers agree to rounding).

Complex parameters are updated as their real views (torch's ``view_as_real``).
``capturable=True`` (graph capture) and ``differentiable=True`` are refused.

>>> import pytensor
>>> w = pytensor.tensor([1.0, -1.0], requires_grad=True)
>>> opt = pytensor.optim.Adam([w], lr=0.1)
>>> (w * w).sum().backward()
>>> opt.step()
>>> [round(v, 4) for v in w.tolist()]
[0.9, -0.9]
"""

from __future__ import annotations

from .._tensor import Tensor
from . import _functional as F
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta"]


def _pt():
    import pytensor
    return pytensor


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check(name: str, value, low=0.0, high=None, high_open=True) -> None:
    ok = low <= value and (high is None or (value < high if high_open else value <= high))
    if not ok:
        raise ValueError(f"Invalid {name}: {value}")


def _check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def _refuse_unsupported(capturable: bool, differentiable: bool) -> None:
    if capturable:
        raise RuntimeError("pytensor.optim: capturable=True (graph capture) is not supported; "
                           "pytensor has no graph capture")
    if differentiable:
        raise RuntimeError("pytensor.optim: differentiable=True is not supported")


def _check_fused(params_groups, foreach, differentiable) -> None:
    if differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    if foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    for group in params_groups:
        for p in group["params"]:
            if not (p.device.type == "cpu" and p.is_floating_point()):
                raise RuntimeError("`fused=True` requires all the params to be floating point "
                                   "Tensors of supported devices: ['cpu'] but "
                                   f"{p.dtype} and {p.device.type}")


def _scalar_dtype(is_fused=None):
    pt = _pt()
    if is_fused:
        return pt.float32
    return pt.float64 if pt.get_default_dtype() == pt.float64 else pt.float32


def _zero_step(is_fused=None):
    return _pt().tensor(0.0, dtype=_scalar_dtype(is_fused))


def _zeros(p):
    pt = _pt()
    return pt.zeros_like(p, memory_format=pt.preserve_format)


def _real(ts):
    """Complex tensors as their real views (state and params share memory with them)."""
    pt = _pt()
    return [pt.view_as_real(t) if t is not None and t.is_complex() else t for t in ts]


def _mode(group, lists) -> str:
    """'fused', 'foreach' or 'single' for this group's step."""
    fused, foreach = group.get("fused"), group.get("foreach")
    if fused:
        return "fused"
    if (fused is None and foreach is None and not isinstance(group.get("lr"), Tensor)
            and F._fast(*lists)):
        return "fused" if group.get("_has_fused") else "foreach"
    return "single" if foreach is False else "foreach"


class _Base(Optimizer):
    """Gathers a group's parameters with gradients and their state lists."""

    _state_keys: tuple = ()
    _has_fused = False

    def _init_state(self, p, state, group) -> None:
        raise NotImplementedError

    def _gather(self, group):
        params, grads = [], []
        states = {k: [] for k in self._state_keys}
        for p in group["params"]:
            if p.grad is None:
                continue
            if getattr(p.grad, "is_sparse", False):
                raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                self._init_state(p, state, group)
            for k in self._state_keys:
                states[k].append(state.get(k))
        return params, grads, states

    def _run(self, group, fn, fused_fn, params, grads, lists, kwargs):
        """fn over the lists (all at once, or one parameter at a time)."""
        params, grads = _real(params), _real(grads)
        lists = [_real(ls) if ls and ls[0] is not None else ls for ls in lists]
        # the last list is the step counters: 0-dim float32 whatever the parameters' dtype
        dense = [ls for ls in lists[:-1] if ls and all(t is not None for t in ls)]
        tensors_ok = F._fast(params, grads, *dense)
        mode = _mode(dict(group, _has_fused=fused_fn is not None), [params, grads] + dense)
        if mode == "fused":
            if fused_fn is None or not tensors_ok:
                mode = "foreach"
            else:
                fused_fn(params, grads, *lists, **kwargs)
                return
        if mode == "foreach":
            fn(params, grads, *lists, **kwargs)
            return
        for i in range(len(params)):
            fn([params[i]], [grads[i]], *[[ls[i]] if ls else ls for ls in lists], **kwargs)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)


def _closure_loss(closure):
    if closure is None:
        return None
    from ..autograd.grad_mode import enable_grad
    with enable_grad():
        return closure()


# ---------------------------------------------------------------- SGD
class SGD(_Base):
    """Stochastic gradient descent (optionally with momentum and Nesterov momentum)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _check_lr(lr)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True
            _check_fused(self.param_groups, foreach, differentiable)
        _refuse_unsupported(False, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("fused", False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One SGD step; returns the closure's loss when one is given."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, bufs = [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                grads.append(p.grad)
                if group["momentum"] != 0:
                    bufs.append(self.state[p].get("momentum_buffer"))
            kw = dict(weight_decay=group["weight_decay"], momentum=group["momentum"],
                      lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"],
                      maximize=group["maximize"])
            if not params:
                continue
            mode = _mode(dict(group, _has_fused=True),
                         [params, grads] + ([[b for b in bufs if b is not None]]
                                            if any(b is not None for b in bufs) else []))
            first_mixed = bufs and any(b is None for b in bufs) and any(
                b is not None for b in bufs)
            if mode == "fused" and not first_mixed and F._fast(params, grads):
                kw["lr"] = F._value(kw["lr"])
                F.fused_sgd(params, grads, bufs, **kw)
            elif mode == "single":
                for i in range(len(params)):
                    one = [bufs[i]] if bufs else []
                    F.sgd([params[i]], [grads[i]], one, **kw)
                    if bufs:
                        bufs[i] = one[0]
            else:
                F.sgd(params, grads, bufs, **kw)
            if group["momentum"] != 0:
                for p, b in zip(params, bufs):
                    self.state[p]["momentum_buffer"] = b
        return loss


# ---------------------------------------------------------------- Adam, AdamW
class Adam(_Base):
    """Adam; with ``decoupled_weight_decay=True`` it is AdamW."""

    _state_keys = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and "
                                 "foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        _check_lr(lr)
        _check("epsilon value", eps)
        _check_betas(betas)
        _check("weight_decay value", weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                     "capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b
                      for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            self._step_supports_amp_scaling = True
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            _check_fused(self.param_groups, foreach, differentiable)
        _refuse_unsupported(capturable, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("capturable", False)
            group.setdefault("fused", None)
            group.setdefault("decoupled_weight_decay", False)

    def _init_state(self, p, state, group):
        state["step"] = _zero_step(group["fused"])
        state["exp_avg"] = _zeros(p)
        state["exp_avg_sq"] = _zeros(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _zeros(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adam step; returns the closure's loss when one is given."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, st = self._gather(group)
            if not params:
                continue
            beta1, beta2 = group["betas"]
            kw = dict(amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                      weight_decay=group["weight_decay"], eps=group["eps"],
                      maximize=group["maximize"],
                      decoupled_weight_decay=group["decoupled_weight_decay"])
            maxs = st["max_exp_avg_sq"] if group["amsgrad"] else []
            self._run(group, F.adam, _fused_adam_lr, params, grads,
                      [st["exp_avg"], st["exp_avg_sq"], maxs, st["step"]], kw)
        return loss


def _fused_adam_lr(*args, **kw):
    kw["lr"] = F._value(kw["lr"])
    F.fused_adam(*args, **kw)


class AdamW(Adam):
    """Adam with decoupled weight decay (default weight_decay 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
        self.defaults["decoupled_weight_decay"] = True

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


# ---------------------------------------------------------------- Adamax, NAdam, RAdam
class Adamax(_Base):
    """Adamax (Adam with the infinity norm)."""

    _state_keys = ("exp_avg", "exp_inf", "step")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check("epsilon value", eps)
        _check_betas(betas)
        _check("weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))
        _refuse_unsupported(capturable, differentiable)

    def _init_state(self, p, state, group):
        state["step"] = _zero_step()
        state["exp_avg"] = _zeros(p)
        state["exp_inf"] = _zeros(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adamax step; returns the closure's loss when one is given."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, st = self._gather(group)
            if not params:
                continue
            beta1, beta2 = group["betas"]
            kw = dict(eps=group["eps"], beta1=beta1, beta2=beta2, lr=group["lr"],
                      weight_decay=group["weight_decay"], maximize=group["maximize"])
            self._run(group, F.adamax, None, params, grads,
                      [st["exp_avg"], st["exp_inf"], st["step"]], kw)
        return loss


class NAdam(_Base):
    """NAdam (Adam with Nesterov momentum)."""

    _state_keys = ("exp_avg", "exp_avg_sq", "mu_product", "step")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        _check("epsilon value", eps)
        _check_betas(betas)
        _check("weight_decay value", weight_decay)
        _check("momentum_decay value", momentum_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable))
        _refuse_unsupported(capturable, differentiable)

    def _init_state(self, p, state, group):
        state["step"] = _zero_step()
        state["mu_product"] = _pt().tensor(1.0, dtype=_scalar_dtype())
        state["exp_avg"] = _zeros(p)
        state["exp_avg_sq"] = _zeros(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One NAdam step; returns the closure's loss when one is given."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, st = self._gather(group)
            if not params:
                continue
            beta1, beta2 = group["betas"]
            kw = dict(beta1=beta1, beta2=beta2, lr=group["lr"],
                      weight_decay=group["weight_decay"],
                      momentum_decay=group["momentum_decay"], eps=group["eps"],
                      decoupled_weight_decay=group["decoupled_weight_decay"],
                      maximize=group["maximize"])
            self._run(group, F.nadam, None, params, grads,
                      [st["exp_avg"], st["exp_avg_sq"], st["mu_product"], st["step"]], kw)
        return loss


class RAdam(_Base):
    """RAdam (Adam with a rectified adaptive learning rate)."""

    _state_keys = ("exp_avg", "exp_avg_sq", "step")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_lr(lr)
        _check("epsilon value", eps)
        _check_betas(betas)
        _check("weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))
        _refuse_unsupported(capturable, differentiable)

    def _init_state(self, p, state, group):
        state["step"] = _zero_step()
        state["exp_avg"] = _zeros(p)
        state["exp_avg_sq"] = _zeros(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One RAdam step; returns the closure's loss when one is given."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, st = self._gather(group)
            if not params:
                continue
            beta1, beta2 = group["betas"]
            kw = dict(beta1=beta1, beta2=beta2, lr=group["lr"],
                      weight_decay=group["weight_decay"], eps=group["eps"],
                      decoupled_weight_decay=group["decoupled_weight_decay"],
                      maximize=group["maximize"])
            self._run(group, F.radam, None, params, grads,
                      [st["exp_avg"], st["exp_avg_sq"], st["step"]], kw)
        return loss


# ---------------------------------------------------------------- RMSprop, Adagrad, Adadelta
class RMSprop(_Base):
    """RMSprop (optionally centered, with momentum)."""

    _state_keys = ("square_avg", "grad_avg", "momentum_buffer", "step")

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        _check("epsilon value", eps)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        _check("alpha value", alpha)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))
        _refuse_unsupported(capturable, differentiable)

    def _init_state(self, p, state, group):
        state["step"] = _zero_step()
        state["square_avg"] = _zeros(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _zeros(p)
        if group["centered"]:
            state["grad_avg"] = _zeros(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One RMSprop step; returns the closure's loss when one is given."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, st = self._gather(group)
            if not params:
                continue
            kw = dict(lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                      weight_decay=group["weight_decay"], momentum=group["momentum"],
                      centered=group["centered"], maximize=group["maximize"])
            gavg = st["grad_avg"] if group["centered"] else []
            bufs = st["momentum_buffer"] if group["momentum"] > 0 else []
            self._run(group, F.rmsprop, None, params, grads,
                      [st["square_avg"], gavg, bufs, st["step"]], kw)
        return loss


class Adagrad(_Base):
    """Adagrad (state made at construction, as torch's)."""

    _state_keys = ("sum", "step")

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        _check("lr_decay value", lr_decay)
        _check("weight_decay value", weight_decay)
        _check("initial_accumulator_value value", initial_accumulator_value)
        _check("epsilon value", eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            self._need_device_dtype_check_for_fused = True
        _refuse_unsupported(False, differentiable)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("fused", None)

    def _init_state(self, p, state, group):
        pt = _pt()
        init = group["initial_accumulator_value"]
        state["step"] = pt.tensor(0.0, dtype=_scalar_dtype(group["fused"]))
        state["sum"] = pt.full_like(p, complex(init, init) if p.is_complex() else init,
                                    memory_format=pt.preserve_format)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adagrad step; returns the closure's loss when one is given."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            if group.get("fused"):
                _check_fused([group], False, False)
            params, grads, st = self._gather(group)
            if not params:
                continue
            kw = dict(lr=group["lr"], weight_decay=group["weight_decay"],
                      lr_decay=group["lr_decay"], eps=group["eps"], maximize=group["maximize"])
            self._run(group, F.adagrad, _fused_adagrad_lr, params, grads,
                      [st["sum"], st["step"]], kw)
        return loss


def _fused_adagrad_lr(*args, **kw):
    kw["lr"] = F._value(kw["lr"])
    F.fused_adagrad(*args, **kw)


class Adadelta(_Base):
    """Adadelta."""

    _state_keys = ("square_avg", "acc_delta", "step")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        _check("rho value", rho, 0.0, 1.0, high_open=False)
        _check("epsilon value", eps)
        _check("weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable,
                                      foreach=foreach, differentiable=differentiable))
        _refuse_unsupported(capturable, differentiable)

    def _init_state(self, p, state, group):
        state["step"] = _zero_step()
        state["square_avg"] = _zeros(p)
        state["acc_delta"] = _zeros(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adadelta step; returns the closure's loss when one is given."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, st = self._gather(group)
            if not params:
                continue
            kw = dict(lr=group["lr"], rho=group["rho"], eps=group["eps"],
                      weight_decay=group["weight_decay"], maximize=group["maximize"])
            self._run(group, F.adadelta, None, params, grads,
                      [st["square_avg"], st["acc_delta"], st["step"]], kw)
        return loss
