"""``pytensor.nn.Module``: the base class of every layer, as torch's.

A Module keeps its state in three ordered dicts, ``_parameters`` (Parameter or None),
``_buffers`` (Tensor or None) and ``_modules`` (Module or None); ``__setattr__`` routes an
assigned value to the right one by its type and ``__getattr__`` finds it there, so attribute
access to ordinary attributes never pays for the lookup. Walks over the tree
(``named_modules``, ``named_parameters``, ``state_dict``, ``_apply``) recurse through
``_modules`` in insertion order, which is what gives state_dict keys their order.

The state_dict half (``state_dict``, ``load_state_dict``, their hooks) is ``_StateDictMixin``
in _module_state.py.

``__call__`` goes to ``forward`` directly when neither this module nor the global registry holds
a hook (the common case); otherwise ``_call_impl`` runs forward pre-hooks, forward, forward
hooks and sets up full backward hooks (Note [module backward hooks] in nn/utils/hooks.py).

>>> import pytensor
>>> class Affine(Module):
...     def __init__(self):
...         super().__init__()
...         self.w = pytensor.nn.Parameter(pytensor.ones(2))
...     def forward(self, x):
...         return x * self.w
>>> list(Affine().state_dict())
['w']
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict
from typing import Any, Callable, Iterator

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter
from ._module_state import (_IncompatibleKeys, _StateDictMixin, _handle_cls,  # noqa: F401
                            _new_hook)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]

_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()
_global_buffer_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()


def _addindent(s_: str, num_spaces: int) -> str:
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    pad = " " * num_spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def typename(obj) -> str:
    """``torch.typename``: ``pytensor.FloatTensor`` for a tensor, else the qualified class."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _register_global(d: dict, hook, extra=None):
    handle = _handle_cls()(d, extra_dict=extra)
    d[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook):
    """Global ``hook(module, name, buffer) -> None or Tensor`` run by ``register_buffer``."""
    return _register_global(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """Global ``hook(module, name, submodule) -> None or Module`` run by ``add_module``."""
    return _register_global(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """Global ``hook(module, name, param) -> None or Parameter`` run by
    ``register_parameter``."""
    return _register_global(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook):
    """Global forward pre-hook, run before every module's own ones."""
    return _register_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False,
                                 always_call: bool = False):
    """Global forward hook, run before every module's own ones."""
    handle = _register_global(_global_forward_hooks, hook,
                              extra=_global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """Global full backward pre-hook."""
    return _register_global(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """Global full backward hook."""
    return _register_global(_global_backward_hooks, hook)


def _old_backward_hook(hook, module, grad_inputs, grad_outputs):
    return hook(module, grad_inputs, grad_outputs)


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module(_StateDictMixin):
    """Base class for all neural network modules (``torch.nn.Module``)."""

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False
    _compiled_call_impl = None

    forward: Callable[..., Any] = _forward_unimplemented

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        s = super().__setattr__
        s("training", True)
        s("_parameters", {})
        s("_buffers", {})
        s("_non_persistent_buffers_set", set())
        s("_backward_pre_hooks", OrderedDict())
        s("_backward_hooks", OrderedDict())
        s("_is_full_backward_hook", None)
        s("_forward_hooks", OrderedDict())
        s("_forward_hooks_with_kwargs", OrderedDict())
        s("_forward_hooks_always_called", OrderedDict())
        s("_forward_pre_hooks", OrderedDict())
        s("_forward_pre_hooks_with_kwargs", OrderedDict())
        s("_state_dict_hooks", OrderedDict())
        s("_state_dict_pre_hooks", OrderedDict())
        s("_load_state_dict_pre_hooks", OrderedDict())
        s("_load_state_dict_post_hooks", OrderedDict())
        s("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ---- registration ----------------------------------------------------------------------

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Adds a buffer (a Tensor that is state but not a parameter); ``persistent=False``
        keeps it out of ``state_dict``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(pytensor Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            out = hook(self, name, tensor)
            if out is not None:
                tensor = out
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        """Adds a parameter (a Parameter or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(pytensor.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            out = hook(self, name, param)
            if out is not None:
                param = out
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        """Adds a child module (or None) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            out = hook(self, name, module)
            if out is not None:
                module = out
        self._modules[name] = module

    def register_module(self, name: str, module) -> None:
        """Alias of ``add_module``."""
        self.add_module(name, module)

    def _lookup(self, target: str):
        mod = self
        for item in target.split(".") if target else ():
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_submodule(self, target: str) -> "Module":
        """The submodule at the dotted path ``target`` (``""`` is self)."""
        if target == "":
            return self
        return self._lookup(target)

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Sets the submodule at the dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        mod = self._lookup(".".join(atoms[:-1]))
        if strict and not hasattr(mod, atoms[-1]):
            raise AttributeError(mod._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(mod, atoms[-1]) and not isinstance(getattr(mod, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(mod, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    # ---- conversion ------------------------------------------------------------------------

    def _apply(self, fn, recurse: bool = True):
        """Applies ``fn`` to every parameter, gradient and buffer (children first); parameters
        keep their Parameter object, whose data becomes ``fn(param)``."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            # the Parameter object stays (optimizers hold it): only its data changes
            param.data = param_applied
            grad = param.grad
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                param.grad = None
                grad.data = grad_applied
                param.grad = grad
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Calls ``fn`` on every submodule (children first) and on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def cuda(self, device=None) -> "Module":
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> "Module":
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type) -> "Module":
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> "Module":
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> "Module":
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> "Module":
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> "Module":
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse: bool = True) -> "Module":
        from ... import _factory
        return self._apply(lambda t: _factory.empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs) -> "Module":
        """``to(device=None, dtype=None, non_blocking=False)``, ``to(dtype)``, ``to(tensor)``:
        moves and/or casts the floating point and complex parameters and buffers."""
        device, dtype, non_blocking, memory_format = _parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex "
                            f"dtypes, but got desired dtype={dtype}")

        def convert(t):
            if t.is_floating_point() or t.is_complex():
                return t.to(device, dtype, non_blocking)
            return t.to(device, None, non_blocking)

        return self._apply(convert)

    def share_memory(self) -> "Module":
        """Moves the parameters and buffers to shared memory (``Tensor.share_memory_``)."""
        return self._apply(lambda t: t.share_memory_())

    # ---- hooks -----------------------------------------------------------------------------

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_output) -> tuple or None``, run when the gradients of the
        module's outputs are known; its result replaces grad_output."""
        return _new_hook(self._backward_pre_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated (use ``register_full_backward_hook``): ``hook(module, grad_input,
        grad_output)`` runs as a hook of the autograd node that made the forward's (first)
        output, so grad_input are that node's input gradients, as torch's."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        return _new_hook(self._backward_hooks, hook, False)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_input, grad_output) -> tuple or None``, run when the gradients
        of the module's inputs are known; its result replaces grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        return _new_hook(self._backward_hooks, hook, prepend)

    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False):
        """``hook(module, args) -> None or new args`` (``hook(module, args, kwargs) -> None or
        (args, kwargs)`` with ``with_kwargs``), run before forward."""
        handle = _new_hook(self._forward_pre_hooks, hook, prepend,
                           extra=self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """``hook(module, args, output) -> None or new output`` (``hook(module, args, kwargs,
        output)`` with ``with_kwargs``), run after forward; ``always_call`` runs it even when
        forward raised."""
        handle = _new_hook(self._forward_hooks, hook, prepend,
                           extra=[self._forward_hooks_with_kwargs,
                                  self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def _backward_hook_lists(self):
        pre = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        full = []
        if _global_backward_hooks:
            full += list(_global_backward_hooks.values())
        if self._is_full_backward_hook:
            full += list(self._backward_hooks.values())
        old = list(self._backward_hooks.values()) if self._is_full_backward_hook is False else []
        return full, old, pre

    def _register_old_backward_hooks(self, result, hooks) -> None:
        var = result
        while not isinstance(var, Tensor):
            if isinstance(var, dict):
                var = next(v for v in var.values() if isinstance(v, Tensor))
            else:
                var = var[0]
        node = var.grad_fn
        if node is None:
            return
        for hook in hooks:
            node.register_hook(functools.partial(_old_backward_hook, hook, self))

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks
                or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        called_always = set()
        result = None
        try:
            full_hooks, old_hooks, pre_hooks = [], [], []
            if (self._backward_hooks or self._backward_pre_hooks or _global_backward_hooks
                    or _global_backward_pre_hooks):
                full_hooks, old_hooks, pre_hooks = self._backward_hook_lists()
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if isinstance(res, tuple) and len(res) == 2:
                            args, kwargs = res
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple "
                                               f"of (new_args, new_kwargs), but got {res}.")
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
            bw_hook = None
            if full_hooks or pre_hooks:
                from ..utils.hooks import BackwardHook
                bw_hook = BackwardHook(self, full_hooks, pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = forward_call(*args, **kwargs)
            if _global_forward_hooks or self._forward_hooks:
                for hook_id, hook in (*_global_forward_hooks.items(),
                                      *self._forward_hooks.items()):
                    if (hook_id in self._forward_hooks_always_called
                            or hook_id in _global_forward_hooks_always_called):
                        called_always.add(hook_id)
                    if (hook_id in self._forward_hooks_with_kwargs
                            or hook_id in _global_forward_hooks_with_kwargs):
                        res = hook(self, args, kwargs, result)
                    else:
                        res = hook(self, args, result)
                    if res is not None:
                        result = res
            if bw_hook is not None:
                result = bw_hook.setup_output_hook(result)
            if old_hooks:
                self._register_old_backward_hooks(result, old_hooks)
            return result
        except Exception:
            for hook_id, hook in (*_global_forward_hooks.items(),
                                  *self._forward_hooks.items()):
                if ((hook_id in self._forward_hooks_always_called
                     or hook_id in _global_forward_hooks_always_called)
                        and hook_id not in called_always):
                    try:
                        if (hook_id in self._forward_hooks_with_kwargs
                                or hook_id in _global_forward_hooks_with_kwargs):
                            res = hook(self, args, kwargs, result)
                        else:
                            res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:
                        warnings.warn("forward hook with ``always_call=True`` raised an "
                                      f"exception that was silenced as another error was "
                                      f"raised in forward: {str(e)}")
                        continue
            raise

    def __call__(self, *args, **kwargs):
        # Note: the fast path of _call_impl, inlined: a module without hooks pays one call.
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks
                or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    # ---- attributes ------------------------------------------------------------------------

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_state_dict_hooks", "_state_dict_pre_hooks",
                     "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     "_backward_pre_hooks"):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        if "_non_persistent_buffers_set" not in self.__dict__:
            self._non_persistent_buffers_set = set()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None

    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parameters" in d:
            if name in d["_parameters"]:
                return d["_parameters"][name]
        if "_buffers" in d:
            if name in d["_buffers"]:
                return d["_buffers"][name]
        if "_modules" in d:
            if name in d["_modules"]:
                return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(pytensor.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                for hook in _global_module_registration_hooks.values():
                    out = hook(self, name, value)
                    if out is not None:
                        value = out
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{typename(value)}' as child module "
                                    f"'{name}' (pytensor.nn.Module or None expected)")
                for hook in _global_module_registration_hooks.values():
                    out = hook(self, name, value)
                    if out is not None:
                        value = out
                modules[name] = value
            elif isinstance(value, Buffer) or (self.__dict__.get("_buffers") is not None
                                               and name in self._buffers):
                buffers = self.__dict__.get("_buffers")
                if value is not None and not isinstance(value, Tensor):
                    raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                    "(pytensor.nn.Buffer, pytensor.Tensor or None expected)")
                if isinstance(value, Buffer):
                    persistent = value.persistent
                else:
                    persistent = name not in self._non_persistent_buffers_set
                if buffers is None:
                    raise AttributeError("cannot assign buffer before Module.__init__() call")
                self.register_buffer(name, value, persistent)
            else:
                super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        keys = (module_attrs + attrs + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # ---- walks -----------------------------------------------------------------------------

    def _named_members(self, get_members_fn, prefix="", recurse=True,
                       remove_duplicate: bool = True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ---- modes -----------------------------------------------------------------------------

    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    # ---- repr ------------------------------------------------------------------------------

    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def _replicate_for_data_parallel(self):
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = dict()
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        return replica

    def compile(self, *args, **kwargs) -> None:
        raise RuntimeError("pytensor has no compiler: Module.compile is not supported")


def _parse_to(args, kwargs):
    """``Tensor.to``'s argument forms as (device, dtype, non_blocking, memory_format)."""
    from ... import _dtype
    from ..._device import device as _device_cls

    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    copy_ = kwargs.pop("copy", False)  # accepted, as torch's parser does
    del copy_
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got "
                        f"unexpected keyword argument '{next(iter(kwargs))}'")
    args = list(args)
    if args and isinstance(args[0], Tensor):
        t = args.pop(0)
        device, dtype = t.device, t.dtype
    elif args and isinstance(args[0], _dtype.dtype):
        dtype = args.pop(0)
    elif args and (isinstance(args[0], (str, int, _device_cls)) or args[0] is None):
        device = args.pop(0)
        if args and isinstance(args[0], _dtype.dtype):
            dtype = args.pop(0)
    if args and isinstance(args[0], bool):
        non_blocking = args.pop(0)
    if args:
        raise TypeError(f"to() received an invalid combination of arguments - got "
                        f"{tuple(type(a).__name__ for a in args)}")
    if device is not None and not isinstance(device, _device_cls):
        device = _device_cls(device)
    return device, dtype, non_blocking, memory_format

