"""Dispatch keys from Python: the keys in priority order, the dispatcher's dump of one operator,
and the thread-local included/excluded key sets with the guards that change them for a ``with``
block, as ``torch._C`` offers them.

Every name comes from the C core (``pt_dispatch_key_name`` over the runtime keys, whose bit index
is their priority); nothing here lists the keys a second time. The thread-local sets live in C
(``pt_dispatch_tls_*``), so a guard affects the calls its own thread makes, including calls C
makes on its behalf.
"""

from __future__ import annotations

from typing import Iterable, List, Union

from . import _C
from ._C import ffi, lib

KeySpec = Union[str, int, Iterable[Union[str, int]]]

# BackendSelect is always included (PyTorch's default included set); torch reports it as part of
# the thread's included set, and so does _dispatch_tls_local_include_set.
_ALWAYS_INCLUDED = 1 << lib.PT_KEY_BACKEND_SELECT


def _key_name(key: int) -> str:
    name = lib.pt_dispatch_key_name(key)
    return _C._str(name) if name != ffi.NULL else str(key)


def _runtime_key(key) -> int:
    """A runtime key's number from its name ("CPU") or number; alias keys are refused."""
    if isinstance(key, str):
        out = ffi.new("int32_t *")
        _C._check(lib.pt_dispatch_key_from_name(key.encode(), out))
        number = out[0]
    elif isinstance(key, int) and not isinstance(key, bool):
        number = key
    else:
        raise TypeError(f"dispatch key: expected a key name (str) or number (int), got "
                        f"{type(key).__name__}")
    if not 0 <= number < lib.PT_KEY_COUNT:
        raise ValueError(f"dispatch key: {key!r} is not a runtime dispatch key; the guards take "
                         f"runtime keys ({', '.join(_dispatch_keys()[::-1])})")
    return number


def _keyset_bits(keys: KeySpec) -> int:
    """The bit set of one key or an iterable of keys."""
    if isinstance(keys, (str, int)):
        keys = (keys,)
    bits = 0
    for key in keys:
        bits |= 1 << _runtime_key(key)
    return bits


def _keyset_names(bits: int) -> List[str]:
    """The names of the keys in a bit set, highest priority first."""
    return [_key_name(k) for k in reversed(range(lib.PT_KEY_COUNT)) if bits >> k & 1]


def _dispatch_keys() -> List[str]:
    """The runtime dispatch keys, highest priority first.

    >>> pytensor._C._dispatch_keys()[-1]
    'CPU'
    """
    return _keyset_names((1 << lib.PT_KEY_COUNT) - 1)


def _dispatch_dump(name: str) -> str:
    """The dispatcher's state for one operator ("ns::name.overload"; "aten" by default): its
    schema, the kernels registered per key (newest first) with their debug strings, and the
    computed table. An operator nobody registered gives "" (as torch._C._dispatch_dump does).

    >>> "schema:" in pytensor._C._dispatch_dump("aten::add.Tensor")
    True
    """
    out = ffi.new("const char **")
    st = lib.pt_dispatch_dump(name.encode(), out)
    if st == lib.PT_ERR_RUNTIME:
        lib.pt_error_clear()
        return ""
    _C._check(st)
    return _C._str(out[0])


def _dispatch_tls_local_include_set() -> List[str]:
    """The keys this thread adds to every call's key set (BackendSelect always among them),
    highest priority first."""
    return _keyset_names(lib.pt_dispatch_tls_included() | _ALWAYS_INCLUDED)


def _dispatch_tls_local_exclude_set() -> List[str]:
    """The keys this thread removes from every call's key set, highest priority first."""
    return _keyset_names(lib.pt_dispatch_tls_excluded())


class _IncludeDispatchKeyGuard:
    """Adds keys to this thread's included set for a ``with`` block, then removes exactly the
    ones it added (keys already included stay).

    >>> with pytensor._C._IncludeDispatchKeyGuard("Python"):
    ...     "Python" in pytensor._C._dispatch_tls_local_include_set()
    True
    """

    __slots__ = ("_bits", "_added")

    def __init__(self, keys: KeySpec):
        self._bits = _keyset_bits(keys)
        self._added = 0

    def __enter__(self):
        included = lib.pt_dispatch_tls_included()
        self._added = self._bits & ~included
        lib.pt_dispatch_tls_set(included | self._added, lib.pt_dispatch_tls_excluded())
        return self

    def __exit__(self, *exc) -> None:
        lib.pt_dispatch_tls_set(lib.pt_dispatch_tls_included() & ~self._added,
                                lib.pt_dispatch_tls_excluded())
        self._added = 0


class _ExcludeDispatchKeyGuard:
    """Adds keys to this thread's excluded set for a ``with`` block, then removes exactly the
    ones it added.

    >>> with pytensor._C._ExcludeDispatchKeyGuard(["CPU", "Meta"]):
    ...     pytensor._C._dispatch_tls_local_exclude_set()
    ['Meta', 'CPU']
    """

    __slots__ = ("_bits", "_added")

    def __init__(self, keys: KeySpec):
        self._bits = _keyset_bits(keys)
        self._added = 0

    def __enter__(self):
        excluded = lib.pt_dispatch_tls_excluded()
        self._added = self._bits & ~excluded
        lib.pt_dispatch_tls_set(lib.pt_dispatch_tls_included(), excluded | self._added)
        return self

    def __exit__(self, *exc) -> None:
        lib.pt_dispatch_tls_set(lib.pt_dispatch_tls_included(),
                                lib.pt_dispatch_tls_excluded() & ~self._added)
        self._added = 0
