"""The update math of the optimizers, once per algorithm, over lists of tensors.

Each algorithm is written against the list operators below. With ``foreach`` a group's lists go
to the C list operators (``_foreach_*``, csrc/kernels/foreach.c) in one call each; without it the
same function runs once per parameter on lists of one tensor, so the two paths compute the same
numbers. Lists the C operators do not take (tensors that are not contiguous float32/float64 of
one dtype) run per tensor through the ordinary Tensor methods. ``fused`` paths (Adam, AdamW, SGD,
Adagrad) call the one-pass ``_fused_*`` kernels instead.

The formulas and their order of operations are torch 2.13's (torch/optim/*.py), so results agree
with torch's for the same gradients to rounding.
"""

from __future__ import annotations

import math

from .. import _C  # noqa: F401  (the operators below are made by the op generator)
from .._tensor import Tensor

_FLOATS = None


def _fast(*lists) -> bool:
    """Whether the C list operators take these lists."""
    global _FLOATS
    if _FLOATS is None:
        import pytensor
        _FLOATS = (pytensor.float32, pytensor.float64)
    first = lists[0]
    if not first:
        return False
    dt = first[0].dtype
    if dt not in _FLOATS:
        return False
    for ts in lists:
        for t in ts:
            if t.dtype != dt or t.device.type != "cpu" or not t.is_contiguous():
                return False
    return True


def _ops():
    import pytensor
    return pytensor


# ---------------------------------------------------------------- list operators
def add_(xs, ys, alpha=1.0):
    """xs[i] += alpha * ys[i] (ys a list) or xs[i] += ys (a number)."""
    if isinstance(ys, list):
        if _fast(xs, ys):
            _ops()._foreach_add_(xs, ys, alpha=alpha)
        else:
            for x, y in zip(xs, ys):
                x.add_(y, alpha=alpha)
    elif _fast(xs):
        _ops()._foreach_add_(xs, ys)
    else:
        for x in xs:
            x.add_(ys)


def _binary_(name: str, xs, s):
    """xs[i] <name>= s[i] (s a list) or xs[i] <name>= s (a number): one list call when it can."""
    is_list = isinstance(s, list)
    if _fast(xs, s) if is_list else _fast(xs):
        getattr(_ops(), f"_foreach_{name}_")(xs, s)
        return
    for x, y in (zip(xs, s) if is_list else ((x, s) for x in xs)):
        getattr(x, f"{name}_")(y)


def mul_(xs, s):
    _binary_("mul", xs, s)


def div_(xs, s):
    _binary_("div", xs, s)


def div_scalars_(xs, values):
    """xs[i] /= values[i]: one call when the values agree (the usual case: equal steps)."""
    if len(set(values)) == 1:
        div_(xs, values[0])
    else:
        for x, v in zip(xs, values):
            div_([x], v)


def lerp_(xs, ys, w):
    if _fast(xs, ys):
        _ops()._foreach_lerp_(xs, ys, w)
    else:
        for x, y in zip(xs, ys):
            x.lerp_(y, w)


def addcmul_(xs, ys, zs, value=1.0):
    if _fast(xs, ys, zs):
        _ops()._foreach_addcmul_(xs, ys, zs, value)
    else:
        for x, y, z in zip(xs, ys, zs):
            x.addcmul_(y, z, value=value)


def addcdiv_(xs, ys, zs, value=1.0):
    """value: a number, or a list of numbers (one per tensor)."""
    if isinstance(value, list):
        if _fast(xs, ys, zs):
            import pytensor
            _ops()._foreach_addcdiv_(xs, ys, zs, pytensor.tensor(value, dtype=pytensor.float64))
        else:
            for x, y, z, v in zip(xs, ys, zs, value):
                x.addcdiv_(y, z, value=v)
    elif _fast(xs, ys, zs):
        _ops()._foreach_addcdiv_(xs, ys, zs, value)
    else:
        for x, y, z in zip(xs, ys, zs):
            x.addcdiv_(y, z, value=value)


def maximum_(xs, ys):
    if _fast(xs, ys):
        _ops()._foreach_maximum_(xs, ys)
    else:
        for x, y in zip(xs, ys):
            x.copy_(_ops().maximum(x, y))


def sqrt_(xs):
    if _fast(xs):
        _ops()._foreach_sqrt_(xs)
    else:
        for x in xs:
            x.sqrt_()


def abs_(xs):
    if _fast(xs):
        _ops()._foreach_abs_(xs)
    else:
        for x in xs:
            x.abs_()


def neg_(xs):
    if _fast(xs):
        _ops()._foreach_neg_(xs)
    else:
        for x in xs:
            x.neg_()


def clone(xs):
    return [x.clone() for x in xs]


def zero_grads(grads: list) -> None:
    """Zeroes every tensor of ``grads`` in place (one C call per dtype where it can)."""
    by_dtype: dict = {}
    for g in grads:
        by_dtype.setdefault(g.dtype, []).append(g)
    for gs in by_dtype.values():
        if _fast(gs):
            _ops()._foreach_zero_(gs)
        else:
            for g in gs:
                g.zero_()


def _value(x):
    return x.item() if isinstance(x, Tensor) else x


def _grads(grads, maximize):
    """The gradients as the update reads them: negated copies under ``maximize``."""
    if not maximize:
        return list(grads)
    gs = clone(grads)
    neg_(gs)
    return gs


def _weight_decay(params, grads, weight_decay, decoupled, lr):
    """L2 (grad += wd * param, into fresh tensors) or decoupled (param *= 1 - lr * wd)."""
    if weight_decay == 0:
        return grads
    if decoupled:
        mul_(params, 1 - lr * weight_decay)
        return grads
    out = clone(grads)
    add_(out, params, alpha=weight_decay)
    return out


def _steps_inc(steps):
    for s in steps:
        s.add_(1)
    return [s.item() for s in steps]


# ---------------------------------------------------------------- algorithms
def sgd(params, grads, bufs, *, weight_decay, momentum, lr, dampening, nesterov, maximize):
    """bufs: the momentum buffers (None where there is none yet); filled in place."""
    lr = _value(lr)
    grads = _grads(grads, maximize)
    grads = _weight_decay(params, grads, weight_decay, False, lr)
    if momentum != 0:
        fresh = [i for i, b in enumerate(bufs) if b is None]
        for i in fresh:
            bufs[i] = grads[i].clone().detach()
        old = [i for i, b in enumerate(bufs) if i not in set(fresh)]
        if old:
            ob = [bufs[i] for i in old]
            mul_(ob, momentum)
            add_(ob, [grads[i] for i in old], alpha=1 - dampening)
        if nesterov:
            grads = clone(grads)
            add_(grads, bufs, alpha=momentum)
        else:
            grads = list(bufs)
    add_(params, grads, alpha=-lr)


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, *, amsgrad, beta1, beta2,
         lr, weight_decay, eps, maximize, decoupled_weight_decay):
    lr_t = lr
    lr, beta1, beta2 = _value(lr), _value(beta1), _value(beta2)
    grads = _grads(grads, maximize)
    step = _steps_inc(steps)
    grads = _weight_decay(params, grads, weight_decay, decoupled_weight_decay, lr)
    lerp_(exp_avgs, grads, 1 - beta1)
    mul_(exp_avg_sqs, beta2)
    addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
    bc2_sqrt = [(1 - beta2 ** s) ** 0.5 for s in step]
    # a Tensor lr makes torch compute the step size as a tensor of lr's dtype
    step_size = [-((lr_t / (1 - beta1 ** s)).item() if isinstance(lr_t, Tensor)
                   else lr / (1 - beta1 ** s)) for s in step]
    if amsgrad:
        maximum_(max_exp_avg_sqs, exp_avg_sqs)
        denom = clone(max_exp_avg_sqs)
    else:
        denom = clone(exp_avg_sqs)
    sqrt_(denom)
    div_scalars_(denom, bc2_sqrt)
    add_(denom, eps)
    addcdiv_(params, exp_avgs, denom, step_size)


def adamax(params, grads, exp_avgs, exp_infs, steps, *, eps, beta1, beta2, lr, weight_decay,
           maximize):
    lr = _value(lr)
    grads = _grads(grads, maximize)
    step = _steps_inc(steps)
    grads = _weight_decay(params, grads, weight_decay, False, lr)
    lerp_(exp_avgs, grads, 1 - beta1)
    mul_(exp_infs, beta2)
    norm = clone(grads)
    abs_(norm)
    add_(norm, eps)
    maximum_(exp_infs, norm)
    addcdiv_(params, exp_avgs, exp_infs, [-(lr / (1 - beta1 ** s)) for s in step])


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, steps, *, beta1, beta2, lr,
          weight_decay, momentum_decay, eps, decoupled_weight_decay, maximize):
    lr = _value(lr)
    grads = _grads(grads, maximize)
    step = _steps_inc(steps)
    grads = _weight_decay(params, grads, weight_decay, decoupled_weight_decay, lr)
    mus, mu_nexts = [], []
    for s, mp in zip(step, mu_products):
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (s * momentum_decay)))
        mu_nexts.append(beta1 * (1.0 - 0.5 * (0.96 ** ((s + 1) * momentum_decay))))
        mp.mul_(mu)
        mus.append(mu)
    lerp_(exp_avgs, grads, 1 - beta1)
    mul_(exp_avg_sqs, beta2)
    addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
    denom = clone(exp_avg_sqs)
    div_scalars_(denom, [1 - beta2 ** s for s in step])
    sqrt_(denom)
    add_(denom, eps)
    mp = [m.item() for m in mu_products]
    addcdiv_(params, grads, denom, [-lr * (1.0 - mu) / (1.0 - p) for mu, p in zip(mus, mp)])
    addcdiv_(params, exp_avgs, denom,
             [(-lr * mn) / (1.0 - p * mn) for mn, p in zip(mu_nexts, mp)])


def radam(params, grads, exp_avgs, exp_avg_sqs, steps, *, beta1, beta2, lr, weight_decay, eps,
          decoupled_weight_decay, maximize):
    lr = _value(lr)
    grads = _grads(grads, maximize)
    step = _steps_inc(steps)
    grads = _weight_decay(params, grads, weight_decay, decoupled_weight_decay, lr)
    lerp_(exp_avgs, grads, 1 - beta1)
    mul_(exp_avg_sqs, beta2)
    addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
    rho_inf = 2 / (1 - beta2) - 1
    for i, s in enumerate(step):
        bc1, bc2 = 1 - beta1 ** s, 1 - beta2 ** s
        rho_t = rho_inf - 2 * s * (beta2 ** s) / bc2
        upd = exp_avgs[i] / bc1
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bc2 ** 0.5) / exp_avg_sqs[i].sqrt().add_(eps)
            upd = upd.mul_(lr).mul_(adaptive).mul_(rect)
        else:
            upd = upd.mul_(lr)
        params[i].add_(upd, alpha=-1.0)


def rmsprop(params, grads, square_avgs, grad_avgs, bufs, steps, *, lr, alpha, eps, weight_decay,
            momentum, centered, maximize):
    lr = _value(lr)
    grads = _grads(grads, maximize)
    _steps_inc(steps)
    grads = _weight_decay(params, grads, weight_decay, False, lr)
    mul_(square_avgs, alpha)
    addcmul_(square_avgs, grads, grads, 1 - alpha)
    if centered:
        lerp_(grad_avgs, grads, 1 - alpha)
        avg = clone(square_avgs)
        addcmul_(avg, grad_avgs, grad_avgs, -1)
    else:
        avg = clone(square_avgs)
    sqrt_(avg)
    add_(avg, eps)
    if momentum > 0:
        mul_(bufs, momentum)
        addcdiv_(bufs, grads, avg)
        add_(params, bufs, alpha=-lr)
    else:
        addcdiv_(params, grads, avg, -lr)


def adagrad(params, grads, state_sums, steps, *, lr, weight_decay, lr_decay, eps, maximize):
    lr = _value(lr)
    grads = _grads(grads, maximize)
    step = _steps_inc(steps)
    grads = _weight_decay(params, grads, weight_decay, False, lr)
    addcmul_(state_sums, grads, grads, 1)
    std = clone(state_sums)
    sqrt_(std)
    add_(std, eps)
    addcdiv_(params, grads, std, [-(lr / (1 + (s - 1) * lr_decay)) for s in step])


def adadelta(params, grads, square_avgs, acc_deltas, steps, *, lr, rho, eps, weight_decay,
             maximize):
    lr = _value(lr)
    grads = _grads(grads, maximize)
    _steps_inc(steps)
    grads = _weight_decay(params, grads, weight_decay, False, lr)
    mul_(square_avgs, rho)
    addcmul_(square_avgs, grads, grads, 1 - rho)
    std = clone(square_avgs)
    add_(std, eps)
    sqrt_(std)
    delta = clone(acc_deltas)
    add_(delta, eps)
    sqrt_(delta)
    div_(delta, std)
    mul_(delta, grads)
    mul_(acc_deltas, rho)
    addcmul_(acc_deltas, delta, delta, 1 - rho)
    add_(params, delta, alpha=-lr)


# ---------------------------------------------------------------- fused
def fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, *, amsgrad, beta1,
               beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay, grad_scale=None,
               found_inf=None):
    import pytensor
    for s in steps:
        s.add_(1)
    fn = pytensor._fused_adamw_ if decoupled_weight_decay else pytensor._fused_adam_
    fn(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs if amsgrad else [], steps, lr=lr,
       beta1=_value(beta1), beta2=_value(beta2), weight_decay=weight_decay, eps=eps,
       amsgrad=amsgrad, maximize=maximize, grad_scale=grad_scale, found_inf=found_inf)


def fused_sgd(params, grads, bufs, *, weight_decay, momentum, lr, dampening, nesterov, maximize,
              grad_scale=None, found_inf=None):
    """bufs: as in sgd(); the missing ones are made (zeros) and filled on this first step."""
    import pytensor
    first = momentum != 0 and any(b is None for b in bufs)
    if momentum != 0:
        for i, b in enumerate(bufs):
            if b is None:
                bufs[i] = pytensor.empty_like(grads[i])
    pytensor._fused_sgd_(params, grads, bufs if momentum != 0 else [],
                         weight_decay=weight_decay, momentum=momentum, lr=lr,
                         dampening=dampening, nesterov=nesterov, maximize=maximize,
                         is_first_step=first, grad_scale=grad_scale, found_inf=found_inf)


def fused_adagrad(params, grads, state_sums, steps, *, lr, weight_decay, lr_decay, eps, maximize,
                  grad_scale=None, found_inf=None):
    import pytensor
    for s in steps:
        s.add_(1)
    pytensor._fused_adagrad_(params, grads, state_sums, steps, lr=lr, lr_decay=lr_decay,
                             weight_decay=weight_decay, eps=eps, maximize=maximize,
                             grad_scale=grad_scale, found_inf=found_inf)


__all__ = ["sgd", "adam", "adamax", "nadam", "radam", "rmsprop", "adagrad", "adadelta",
           "fused_adam", "fused_sgd", "fused_adagrad", "math"]
