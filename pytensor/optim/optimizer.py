"""``pytensor.optim.Optimizer``: the base class of every optimizer, torch's layout and rules.

An optimizer holds ``param_groups`` (a list of dicts: ``"params"`` plus every hyper-parameter,
defaults filled in from ``defaults``) and ``state`` (a ``defaultdict(dict)`` keyed by the
parameter tensor). ``state_dict()`` replaces each parameter by an integer id (its position
counting through the groups) so that a checkpoint holds no parameters, exactly torch's format;
``load_state_dict`` zips those ids back onto this optimizer's parameters and casts state tensors
to each parameter's dtype (``step`` counters excepted).

``step`` of each subclass runs through hooks (global and per instance, pre and post) the way
torch's ``profile_hook_step`` wrapper does; the update itself runs in C, over all parameters of a
group at once (see ``_functional.py``).

>>> import pytensor
>>> w = pytensor.zeros(3, requires_grad=True)
>>> opt = pytensor.optim.SGD([w], lr=0.1)
>>> opt.state_dict()["param_groups"][0]["params"]
[0]
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Iterable

from .._tensor import Tensor

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a hyper-parameter that every group must give (no default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_optimizer_post_hooks: "OrderedDict[int, Callable]" = OrderedDict()


class RemovableHandle:
    """Takes a hook out of the dict it was registered in: ``remove()`` or leaving a ``with``."""

    _next_id = 0

    def __init__(self, hooks_dict: dict) -> None:
        import weakref
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        d = self.hooks_dict_ref()
        if d is not None and self.id in d:
            del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    if hasattr(obj, "__qualname__"):
        module, qual = getattr(obj, "__module__", "") or "", obj.__qualname__
    else:
        module, qual = type(obj).__module__ or "", type(obj).__qualname__
    return qual if module in ("", "builtins") else f"{module}.{qual}"


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """A hook ``hook(optimizer, args, kwargs)`` run before every optimizer's ``step``; it may
    return ``(new_args, new_kwargs)``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """A hook ``hook(optimizer, args, kwargs)`` run after every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _use_grad_for_differentiable(func):
    """Runs ``step`` with grad mode on only when the group asks for ``differentiable``."""

    @functools.wraps(func)
    def step(self, *args, **kwargs):
        from ..autograd.grad_mode import is_grad_enabled, set_grad_enabled
        prev = is_grad_enabled()
        try:
            set_grad_enabled(bool(self.defaults.get("differentiable", False)))
            return func(self, *args, **kwargs)
        finally:
            set_grad_enabled(prev)

    return step


def _run_step_hooks(func):
    @functools.wraps(func)
    def step(*args, **kwargs):
        self = args[0]
        for pre in chain(_global_optimizer_pre_hooks.values(),
                         self._optimizer_step_pre_hooks.values()):
            result = pre(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
        out = func(*args, **kwargs)
        self._optimizer_step_code()
        for post in chain(self._optimizer_step_post_hooks.values(),
                          _global_optimizer_post_hooks.values()):
            post(self, args, kwargs)
        return out

    step.hooked = True
    return step


def _add_hook(hooks: "OrderedDict", hook, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class Optimizer:
    """Base class of all optimizers.

    ``Optimizer(params, defaults)``: ``params`` is an iterable of Tensors, of
    ``(name, Tensor)`` pairs, or of dicts (parameter groups); ``defaults`` holds the
    hyper-parameters a group does not set.
    """

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def _patch_step_function(self) -> None:
        cls = self.__class__
        if not getattr(cls.step, "hooked", False):
            cls.step = _run_step_hooks(cls.step)

    @staticmethod
    def _optimizer_step_code() -> None:
        """Runs after every ``step`` (a place for profilers to hook onto)."""

    # ---------------------------------------------------------------- hooks
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before ``step``; may return new args and kwargs."""
        return _add_hook(self._optimizer_step_pre_hooks, hook, False)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after ``step``."""
        return _add_hook(self._optimizer_step_post_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook: Callable,
                                     prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict`` builds its dict."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable,
                                      prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` after; may return a replacement dict."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable,
                                          prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` before loading; may return a replacement dict."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable,
                                           prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` after loading."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---------------------------------------------------------------- state dict
    def state_dict(self) -> dict:
        """``{"state": {id: {...}}, "param_groups": [{..., "params": [ids]}]}``, ids counting
        the parameters through the groups in order (torch's layout)."""
        for pre in self._optimizer_state_dict_pre_hooks.values():
            pre(self)
        ids: dict = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                ids.setdefault(id(p), i)
            packed["params"] = [ids[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(ids[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        out = {"state": state, "param_groups": groups}
        for post in self._optimizer_state_dict_post_hooks.values():
            result = post(self, out)
            if result is not None:
                out = result
        return out

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups,
                                                 key=None):
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                from .. import float32
                return value.to(dtype=float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict) -> None:
        """Loads what ``state_dict()`` (this class's or torch's, tensors converted) returned."""
        state_dict = state_dict.copy()
        for pre in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, state_dict["param_groups"], key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, k)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state,
                           "param_groups": [update_group(g, n)
                                            for g, n in zip(groups, saved_groups)]})
        for post in self._optimizer_load_state_dict_post_hooks.values():
            post(self)

    # ---------------------------------------------------------------- grads and groups
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Sets every parameter's ``grad`` to None (default), or to zeros in place."""
        grads = []
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                grads.append(g)
        if grads:
            from ._functional import zero_grads
            zero_grads(grads)

    def step(self, closure=None):
        """One update of every parameter; ``closure`` re-evaluates the loss (LBFGS needs it)."""
        raise NotImplementedError

    def add_param_group(self, param_group: dict) -> None:
        """Adds a group of parameters (a dict with ``"params"`` and any hyper-parameters)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf
                                                                      or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
