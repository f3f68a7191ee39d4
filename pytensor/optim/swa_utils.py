"""``pytensor.optim.swa_utils``: stochastic weight averaging and exponential moving averages of
a model's weights, as torch's.

``AveragedModel`` keeps a deep copy of a model and folds the model's current parameters into
it at each ``update_parameters`` call: an equal-weight running mean by default (SWA), or any
``avg_fn`` (one tensor at a time) / ``multi_avg_fn`` (lists of tensors), such as the EMA of
``get_ema_multi_avg_fn``. ``SWALR`` anneals each group's lr to a constant ``swa_lr``;
``update_bn`` recomputes batch-norm running statistics for the averaged weights with one pass
over the data.

The default SWA update is ``avg + (p - avg) / (n + 1)`` with ``n`` the long tensor
``n_averaged``, in that order of operations, which is what torch runs on the CPU; the list
forms use ``lerp`` (``avg + w * (p - avg)``, or ``p - (p - avg) * (1 - w)`` for ``w >= 0.5``),
written as the tensor operations torch's lerp kernel performs element by element.

>>> import pytensor
>>> model = pytensor.nn.Linear(2, 1)
>>> swa = pytensor.optim.swa_utils.AveragedModel(model)
>>> swa.update_parameters(model)
>>> int(swa.n_averaged)
1
"""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy
from typing import Any, Callable, Iterable

from .._tensor import Tensor
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _no_grad(fn):
    from .. import no_grad
    return no_grad()(fn)


def _inexact(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def _lerp_(starts: list, ends: list, weight: float) -> None:
    """``start += weight * (end - start)`` in place for each pair, the two-sided form of torch's
    lerp (which keeps ``weight == 1`` exact)."""
    for s, e in zip(starts, ends, strict=True):
        diff = e - s
        if weight < 0.5:
            s.copy_(s + diff * weight)
        else:
            s.copy_(e - diff * (1 - weight))


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] "
                         "range.")


def get_ema_multi_avg_fn(decay=0.999):
    """The EMA update over lists of tensors: ``ema = decay * ema + (1 - decay) * p``."""
    _check_decay(decay)

    @_no_grad
    def ema_update(ema_param_list, current_param_list, _) -> None:
        if _inexact(ema_param_list[0]):
            _lerp_(list(ema_param_list), list(current_param_list), 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The equal-weight running mean over lists of tensors."""

    @_no_grad
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        if _inexact(averaged_param_list[0]):
            _lerp_(list(averaged_param_list), list(current_param_list),
                   float(1 / (num_averaged + 1)))
            return
        for avg, cur in zip(averaged_param_list, current_param_list, strict=True):
            diff = cur - avg
            if isinstance(num_averaged, Tensor):
                avg.copy_(avg + diff / (num_averaged + 1))
            else:
                avg.copy_(avg + diff * (1.0 / (num_averaged + 1)))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The EMA update of one tensor: returns ``decay * ema + (1 - decay) * p``."""
    _check_decay(decay)

    @_no_grad
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The equal-weight running mean of one tensor: ``avg + (p - avg) / (n + 1)``."""

    @_no_grad
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(first: list, second: list) -> dict:
    groups: dict = {}
    for a, b in zip(first, second, strict=True):
        lists = groups.setdefault((a.device, a.dtype), ([], []))
        lists[0].append(a)
        lists[1].append(b)
    return groups


class AveragedModel(Module):
    """A deep copy of ``model`` (moved to ``device`` if given) whose parameters, and buffers too
    with ``use_buffers=True``, are the average of the models given to ``update_parameters``;
    ``n_averaged`` (a long buffer) counts them. ``forward`` runs the copy."""

    def __init__(self, model: Module, device=None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers=False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        from .. import long, tensor
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Folds ``model``'s current parameters (and buffers, see ``use_buffers``) into the
        average; the first call copies them."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        mine_d, theirs_d = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(mine, theirs):
            p = p_model.detach().to(p_avg.device)
            mine_d.append(p_avg.detach())
            theirs_d.append(p)
            if first:
                p_avg.detach().copy_(p)
        if self.n_averaged > 0:
            self._fold(mine_d, theirs_d)
        if not self.use_buffers:
            # the buffers (batch-norm statistics) follow the model: update_bn recomputes them
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1

    def _fold(self, mine: list, theirs: list) -> None:
        if self.avg_fn is not None and self.multi_avg_fn is None:
            for p_avg, p_model in zip(mine, theirs, strict=True):
                n = self.n_averaged.to(p_avg.device)
                p_avg.detach().copy_(self.avg_fn(p_avg.detach(), p_model, n))
            return
        avg_fn = get_swa_avg_fn()
        for (device, _), (avgs, models) in _group_by_device_and_dtype(mine, theirs).items():
            n = self.n_averaged.to(device)
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(avgs, models, n)
            elif getattr(device, "type", "cpu") == "cuda":
                get_swa_multi_avg_fn()(avgs, models, n)
            else:
                for p_avg, p_model in zip(avgs, models, strict=True):
                    p_avg.copy_(avg_fn(p_avg, p_model, n))


def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Recomputes the running statistics of every batch-norm layer of ``model`` with one pass
    over ``loader`` (the first element of each list or tuple batch is the input), as cumulative
    averages; the layers' momenta and the model's training mode are restored."""
    from .. import no_grad
    with no_grad():
        _update_bn(loader, model, device)


def _batch_norm_class():
    try:
        from ..nn.modules.batchnorm import _BatchNorm
    except ImportError:  # a build without the batch-norm layers holds none to update
        return None
    return _BatchNorm


def _update_bn(loader, model: Module, device) -> None:
    bn = _batch_norm_class()
    momenta = {}
    for module in model.modules():
        if bn is not None and isinstance(module, bn):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr from its current value to ``swa_lr`` over ``anneal_epochs``
    epochs (``cos`` or ``linear``), then keeps it there."""

    def __init__(self, optimizer: Optimizer, swa_lr: float, anneal_epochs=10,
                 anneal_strategy: str = "cos", last_epoch=-1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        # the lr before annealing is recovered from the current one, so that the schedule
        # composes with a change of lr made by someone else
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        groups = self.optimizer.param_groups
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev, strict=True)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        """As the base class, without the anneal function (restored from its name)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
