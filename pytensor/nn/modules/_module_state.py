"""The state_dict half of ``pytensor.nn.Module`` (split from module.py along that seam):
``state_dict`` / ``load_state_dict`` and their hooks, ``_save_to_state_dict`` /
``_load_from_state_dict`` (which subclasses override, as torch's), and the extra-state
protocol. ``Module`` inherits it; nothing here is public on its own.

Note [load_state_dict is all or nothing]: torch copies every tensor that matches and then
raises for the rest. Here ``_load_from_state_dict`` (when called by ``load_state_dict``) queues
its copies; they run only once no size mismatch or bad value was found. Missing or unexpected
keys can still be forgiven by a load_state_dict post-hook, so when there are some, the old
values are kept aside and put back if the load fails after all. A subclass's own
``_load_from_state_dict`` that copies by itself is not covered.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from typing import Any, Mapping

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, is_lazy

class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _handle_cls():
    # nn.utils imports this module's layers: its hooks file is reached at call time
    from ..utils.hooks import RemovableHandle
    return RemovableHandle


def _new_hook(d: dict, hook, prepend: bool, extra=None):
    handle = _handle_cls()(d, extra_dict=extra)
    d[handle.id] = hook
    if prepend:
        d.move_to_end(handle.id, last=False)
    return handle



class _StateDictMixin:
    """state_dict, load_state_dict and their hooks, for Module."""

    def get_extra_state(self) -> Any:
        raise RuntimeError(
            "Reached a code path in _StateDictMixin.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError(
            "Reached a code path in _StateDictMixin.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    def _register_state_dict_hook(self, hook):
        return _new_hook(self._state_dict_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata) -> None``, run after
        ``state_dict`` filled its part; it may edit ``state_dict`` in place."""
        hook._from_public_api = True
        return _new_hook(self._state_dict_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars) -> None``, run before ``state_dict``."""
        return _new_hook(self._state_dict_pre_hooks, hook, False)

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not _StateDictMixin.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of every parameter and persistent buffer by dotted name (detached
        unless ``keep_vars``), with ``_metadata`` holding each module's ``version``."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if res is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif res is not None:
                destination = res
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        if with_module:
            hook = functools.partial(hook, self)
        return _new_hook(self._load_state_dict_pre_hooks, hook, False)

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) -> None``, run before this module loads its part."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys) -> None``, run after ``load_state_dict``
        visited this module; it may edit the key lists in place."""
        return _new_hook(self._load_state_dict_post_hooks, hook, False)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs) -> None:
        """Loads this module's own parameters and persistent buffers from ``state_dict``
        (keys ``prefix + name``); records what is missing, unexpected or wrong."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                         persistent.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        pending = local_metadata.get("_pending")
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "pytensor.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(input_param)}")
                continue
            lazy = is_lazy(param)
            if (not lazy and param.dim() == 0 and input_param.dim() == 1
                    and input_param.shape[0] == 1):
                input_param = input_param[0]
            if not lazy and input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{input_param.shape} from checkpoint, the shape in current "
                                  f"model is {param.shape}.")
                continue
            job = functools.partial(self._load_one, name, key, param, input_param, assign,
                                    error_msgs)
            if pending is None:
                job()
            else:
                pending.append(job)
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not _StateDictMixin.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    # a dotted rest names something of a child module
                    owner = self._modules if len(input_name) > 1 else local_state
                    if input_name[0] not in owner:
                        unexpected_keys.append(key)

    def _load_one(self, name, key, param, input_param, assign, error_msgs) -> None:
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param,
                                                    requires_grad=param.requires_grad)
                        else:
                            input_param.requires_grad_(param.requires_grad)
                    setattr(self, name, input_param)
                else:
                    param.copy_(input_param)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                              f"in the model are {param.size()} and whose dimensions in the "
                              f"checkpoint are {input_param.size()}, an exception occurred : "
                              f"{ex.args}.")

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False):
        """Copies ``state_dict`` into the parameters and buffers (or assigns its tensors with
        ``assign=True``); returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``.
        Raises torch's RuntimeError listing every problem; as a whole, nothing of the
        default loading is copied when anything is wrong."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        pending: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        post_hooks = []

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            local_metadata["_pending"] = pending
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            post_hooks.append(module)

        load(self, state_dict)
        # Note [load_state_dict is all or nothing] (top of this file)
        undo = []
        if not error_msgs:
            if strict and (missing_keys or unexpected_keys):
                undo = [_undo_of(job) for job in pending]
            for job in pending:
                job()
        incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
        for module in post_hooks:
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            for restore in reversed(undo):
                restore()
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return incompatible

def _undo_of(job):
    """What puts back the tensor a pending load job (``Module._load_one``) will change."""
    module = job.func.__self__
    name, _, param, _, assign, _ = job.args
    if assign:
        return functools.partial(setattr, module, name, param)
    with no_grad():
        saved = param.detach().clone()

    def restore():
        with no_grad():
            param.copy_(saved)

    return restore
