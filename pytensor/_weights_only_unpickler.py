"""The unpickler ``pytensor.load(..., weights_only=True)`` uses: only an allow-list of globals.

A pickle can only call what its GLOBAL opcodes name, so refusing every global outside a fixed
list (tensors, storages, rebuild functions, OrderedDict, dtypes, devices, Size, the few builtins
torch allows) bounds what loading can run, whatever the other opcodes do. The names are torch's
(files come from ``torch.save``) and resolve to pytensor's objects; ``add_safe_globals`` extends
the list with the user's own classes and functions (keyed by ``module.qualname``, and for
pytensor's objects by their torch name as well).

>>> import io, pytensor
>>> buf = io.BytesIO(); pytensor.save({"w": pytensor.ones(2)}, buf); _ = buf.seek(0)
>>> pytensor.load(buf)["w"].tolist()
[1.0, 1.0]
"""

from __future__ import annotations

import _compat_pickle
import functools
import pickle
from collections import Counter, OrderedDict
from pickle import UnpicklingError

__all__ = ["Unpickler", "UnpicklingError"]

_blocklisted_modules = ("sys", "os", "posix", "nt")

_marked_safe_globals_set: set = set()


def _add_safe_globals(safe_globals) -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set.union(set(safe_globals))


def _get_safe_globals() -> list:
    return list(_marked_safe_globals_set)


def _clear_safe_globals() -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = set()


def _remove_safe_globals(globals_to_remove) -> None:
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set - set(globals_to_remove)


class _safe_globals:
    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        _add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _remove_safe_globals(self.safe_globals)


def _get_user_allowed_globals() -> dict:
    from .serialization import _torch_name
    rc: dict = {}
    for f in _marked_safe_globals_set:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(f[1])}")
            f, name = f
            rc[name] = f
        else:
            module, name = f.__module__, f.__qualname__
            rc[f"{module}.{name}"] = f
            tmodule, tname = _torch_name(module, name)
            rc[f"{tmodule}.{tname}"] = f
    return rc


@functools.lru_cache(maxsize=1)
def _get_allowed_globals() -> dict:
    import pytensor
    from . import _storage, _utils
    from .nn.parameter import Parameter
    from .serialization import _get_layout
    import _codecs
    rc: dict = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": _get_layout,
        "torch.Size": pytensor.Size,
        "torch.Tensor": pytensor.Tensor,
        "torch.device": pytensor.device,
        "_codecs.encode": _codecs.encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch.storage.UntypedStorage": _storage.UntypedStorage,
        "torch.storage.TypedStorage": _storage.TypedStorage,
        "torch._tensor._rebuild_from_type_v2": _utils._rebuild_from_type_v2,
    }
    for cls in _storage._typed_classes.values():
        rc[f"torch.{cls.__name__}"] = cls
        rc[f"torch.{cls._fixed_dtype._name}"] = cls._fixed_dtype
    for name in ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3",
                 "_rebuild_parameter", "_rebuild_parameter_with_state"):
        rc[f"torch._utils.{name}"] = getattr(_utils, name)
    return rc


def _unsupported(full_path: str) -> UnpicklingError:
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins"):]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return UnpicklingError(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this "
        "global if you trust this class/function.")


class Unpickler(pickle.Unpickler):
    """``pickle.Unpickler`` whose globals come from the allow-list only."""

    def find_class(self, module, name):
        # protocol 0-2 pickles name Python 2's modules (__builtin__, copy_reg, ...)
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        if module.split(".")[0] == "pytensor":  # written by a pickle module of the user's
            from .serialization import _torch_name
            module, name = _torch_name(module, name)
        full_path = f"{module}.{name}"
        if module in _blocklisted_modules:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module "
                                  f"{module} is blocked.")
        allowed = _get_allowed_globals()
        if full_path in allowed:
            return allowed[full_path]
        user = _get_user_allowed_globals()
        if full_path in user:
            return user[full_path]
        raise _unsupported(full_path)

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")


def load(file, *, encoding: str = "ASCII"):
    return Unpickler(file, encoding=encoding).load()
