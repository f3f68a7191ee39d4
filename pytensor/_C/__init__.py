"""The bridge to the compiled core.

Importing this package loads the cffi module ``_core`` (the C core plus its ``ffi``/``lib``), runs
the core's start-up (``pt_init``: registries, CPU capability, kernels, generators, backends) once,
and provides the few helpers every wrapper shares: ``_raise``/``_check`` turn a C status plus the
thread-local message into the matching Python exception, ``_keepalive`` holds the Python owners of
memory lent to C storages until C lets go of them, and ``_initExtension`` builds the ``pytensor``
module's objects from the C tables in a fixed order.
"""

from __future__ import annotations

import os
import threading
import time

# Note [OpenMP wait policy]
# libgomp reads its settings once, when it is loaded with _core. Its default keeps a thread that
# waits for work spinning for about 300 000 iterations; pytensor's parallel regions and BLIS's
# (the same OpenMP runtime) follow one another closely, and on a machine whose cores are all
# busy a spinning thread takes the core from the one that has work. Measured on 2 cores, an MLP
# training step on 2 threads: 15.8 ms with the default, 5.9 ms with a spin count of 1000 (12.8 ms
# at 100 000, 7.2 ms with no spinning); torch took 5.7 ms. So unless the user chose a policy
# (OMP_WAIT_POLICY or GOMP_SPINCOUNT), threads spin 1000 iterations before they sleep; the
# environment is left as it was after the load.
_SPIN_DEFAULT = "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ
if _SPIN_DEFAULT:
    os.environ["GOMP_SPINCOUNT"] = "1000"
_t_load = time.perf_counter()
try:
    from ._core import ffi, lib  # noqa: E402
finally:
    if _SPIN_DEFAULT:
        os.environ.pop("GOMP_SPINCOUNT", None)
_t_loaded = time.perf_counter()

__all__ = ["ffi", "lib", "_TensorBase"]

# C status -> Python exception class. The C core names the status; Python picks the class.
_EXCEPTIONS = {
    lib.PT_ERR_VALUE: ValueError,
    lib.PT_ERR_TYPE: TypeError,
    lib.PT_ERR_INDEX: IndexError,
    lib.PT_ERR_MEMORY: MemoryError,
    lib.PT_ERR_NOT_IMPLEMENTED: NotImplementedError,
    lib.PT_ERR_RUNTIME: RuntimeError,
}

# Owners of memory lent to C (ffi.new_handle objects), keyed by the handle's address. C gives the
# handle back through pt_py_release_handle when the last reference to the storage goes.
_keepalive: dict[int, object] = {}


@ffi.def_extern()
def pt_py_release_handle(ctx):
    # C may call this while the interpreter tears the module down; an exception here could only
    # be printed, so a missing table is simply nothing left to release.
    keep = globals().get("_keepalive")
    if keep is not None:
        keep.pop(int(ffi.cast("uintptr_t", ctx)), None)


def _keep(owner: object):
    """Returns a ``void *`` handle for ``owner`` that stays valid until C releases it."""
    handle = ffi.new_handle(owner)
    _keepalive[int(ffi.cast("uintptr_t", handle))] = handle
    return handle


def _str(cstr) -> str:
    """A borrowed C string as str (``""`` for NULL)."""
    return ffi.string(cstr).decode("utf-8", "replace") if cstr != ffi.NULL else ""


def _raise(status: int):
    """Raises the exception for a failed C call: ``if st: _C._raise(st)``."""
    pending = getattr(_pending, "exc", None)
    if pending is not None:
        _pending.exc = None
        if _pending.text in ffi.string(lib.pt_error_message()):
            lib.pt_error_clear()
            raise pending
    exc = _EXCEPTIONS.get(status, RuntimeError)(_str(lib.pt_error_message()))
    exc.c_location = f"{_str(lib.pt_error_file())}:{lib.pt_error_line()}"
    lib.pt_error_clear()
    raise exc


# Note [Python kernel exceptions]
# A Python kernel (pytensor.library) runs inside a C call. Its exception cannot cross C, so the
# kernel's trampoline keeps the exception object for the thread, records a C error naming it and
# returns the matching status; C passes the status up as any other failure, and _raise, seeing
# the error it recorded, raises the same object (traceback included) instead of a new one. The
# message check drops a kept exception that C handled and replaced with an error of its own.
_pending = threading.local()
_PY_KERNEL_FILE = b"<Python kernel>"
_STATUS_OF = ((NotImplementedError, lib.PT_ERR_NOT_IMPLEMENTED), (ValueError, lib.PT_ERR_VALUE),
              (TypeError, lib.PT_ERR_TYPE), (IndexError, lib.PT_ERR_INDEX),
              (MemoryError, lib.PT_ERR_MEMORY))


def _stash_exception(exc: BaseException) -> int:
    """Keeps exc for _raise on this thread and records it as the C error; returns the status."""
    status = next((st for cls, st in _STATUS_OF if isinstance(exc, cls)), lib.PT_ERR_RUNTIME)
    try:
        text = f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")[:200]
    except Exception:  # a __str__ that raises
        text = type(exc).__name__.encode()
    lib.pt_error_raise(status, _PY_KERNEL_FILE, 0, text)
    _pending.exc = exc
    _pending.text = text
    return status


def _check(status: int) -> None:
    """Raises the mapped exception when ``status`` is not PT_OK."""
    if status:
        _raise(status)


def _registries() -> dict[str, list[dict]]:
    """Every registry and its entries: ``{name: [dict(key, help, file, line), ...]}``.

    >>> "registry" in pytensor._C._registries()
    True
    """
    name = ffi.new("const char **")
    size = ffi.new("int32_t *")
    info = ffi.new("pt_registry_entry_info *")
    out = {}
    for i in range(lib.pt_registry_count()):
        _check(lib.pt_registry_name(i, name))
        reg = ffi.string(name[0])
        _check(lib.pt_registry_size(reg, size))
        entries = []
        for j in range(size[0]):
            _check(lib.pt_registry_entry(reg, j, info))
            entries.append(dict(key=_str(info.key), help=_str(info.help),
                                file=_str(info.file), line=info.line))
        out[reg.decode()] = entries
    return out


def _config() -> dict[str, str]:
    key = ffi.new("const char **")
    value = ffi.new("const char **")
    out = {}
    for i in range(lib.pt_config_count()):
        _check(lib.pt_config_entry(i, key, value))
        out[_str(key[0])] = _str(value[0])
    return out


def _config_flag(key: str) -> bool:
    """Whether the build/start-up fact ``key`` says the feature is there ("no ..." says not)."""
    value = _config().get(key, "")
    return value != "" and not value.startswith("no")


def _init_report() -> dict:
    """The start-up phases with their timings and the build facts.

    >>> sorted(pytensor._C._init_report())
    ['config', 'phases', 'python_phases']
    """
    info = ffi.new("pt_init_phase_info *")
    phases = []
    for i in range(lib.pt_init_phase_count()):
        _check(lib.pt_init_phase(i, info))
        phases.append(dict(name=_str(info.name), us=info.microseconds, count=info.count,
                           detail=_str(info.detail)))
    return dict(phases=phases, python_phases=list(_py_phases), config=_config())


# The Python side of start-up, timed like pt_init's phases: (name, microseconds, count, detail).
_py_phases: list[dict] = []


def _timed(name: str, detail: str, fn, *args) -> None:
    t0 = time.perf_counter()
    count = fn(*args)
    _py_phases.append(dict(name=name, us=(time.perf_counter() - t0) * 1e6,
                           count=count if isinstance(count, int) else 0, detail=detail))


def _initExtension(module) -> None:
    """Builds the module's Python objects from the C tables, in dependency order."""
    t0 = time.perf_counter()
    from .. import _device, _dtype, _factory, _generator, _storage, _tensor
    _py_phases.append(dict(name="import submodules", us=(time.perf_counter() - t0) * 1e6,
                           count=6, detail="_dtype, _device, _storage, _generator, _tensor, _factory"))
    before = set(vars(module))
    _timed("dtypes", "dtype objects, aliases, iinfo/finfo", _dtype._build, module)
    _timed("devices", "device, layouts, memory formats, Size", _device._build, module)
    _timed("storages", "UntypedStorage and the typed Storage classes", _storage._build, module)
    _timed("generators", "Generator and default_generator", _generator._build, module)
    _timed("tensor", "Tensor and the legacy typed classes", _tensor._build, module)
    _timed("factories", "tensor, zeros, arange, rand, ...", _factory._build, module)
    _timed("operators", "operators registered (bindings made on first use)",
           _tensor._build_operators, module)
    _py_phases.append(dict(name="total", us=sum(p["us"] for p in _py_phases),
                           count=len(set(vars(module)) - before), detail="names added to pytensor"))


# Dispatcher and schema introspection, as torch._C has them; imported on first use.
_LAZY = {
    "_dispatch_dump": "_dispatch", "_dispatch_keys": "_dispatch",
    "_IncludeDispatchKeyGuard": "_dispatch", "_ExcludeDispatchKeyGuard": "_dispatch",
    "_dispatch_tls_local_include_set": "_dispatch", "_dispatch_tls_local_exclude_set": "_dispatch",
    "parse_schema": "_schema", "FunctionSchema": "_schema",
}


def __getattr__(name: str):
    import importlib
    if name == "_nn":  # the submodule pytensor._C._nn (THNN's functions), imported on first use
        return importlib.import_module(f"{__name__}._nn")
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    value = getattr(importlib.import_module(f"pytensor.{where}"), name)
    globals()[name] = value
    return value


# Kept for the life of the process: the core may read the path after pt_init returns.
_LIBDIR = os.fsencode(os.path.dirname(os.path.abspath(__file__)))
_check(lib.pt_init(_LIBDIR))
_py_phases.append(dict(name="load _core", us=(_t_loaded - _t_load) * 1e6, count=1,
                       detail="dlopen of the cffi module (pt_init runs after it)"))


def _check_version() -> None:
    # A stale build beside newer Python files would misread the C tables: refuse it at import.
    from .._version import __version__
    out = ffi.new("const char **")
    _check(lib.pt_config_get(b"version", out))
    if _str(out[0]) != __version__:
        raise ImportError(f"pytensor's compiled core is version {_str(out[0])} but the package is "
                          f"{__version__}: rebuild it (pip install .)")


_check_version()

# Note [Python fast paths] (csrc/python/pt_python.c): the Tensor base type and the operators' C
# callers join the module here; pytensor._tensor finishes their set-up once Tensor exists.
if lib.pt_py_install() != 0:
    raise ImportError("pytensor._C: the Python types of the compiled core could not be set up "
                      "(the error is printed above)")
from ._core import _TensorBase  # noqa: E402
