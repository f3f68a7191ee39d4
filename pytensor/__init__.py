"""pytensor: tensors with a C core, in PyTorch's image.

Importing the package loads the core and runs its start-up (``pytensor._C``), then builds the
module's objects from the C tables: dtypes, devices, layouts and memory formats, storages,
generators, the Tensor class and the factories (``_C._initExtension``). NumPy is not imported
here; the functions that exchange data with it import it when called.

>>> import pytensor
>>> pytensor.float32.itemsize
4
"""

from __future__ import annotations

import sys

from . import _C
from ._version import __version__
from . import cuda, __config__

_C._initExtension(sys.modules[__name__])
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: E402
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from .autograd.anomaly_mode import (is_anomaly_check_nan_enabled,  # noqa: E402
                                   is_anomaly_enabled)


# Note: from here on the module's globals hold pytensor.bool, pytensor.int and pytensor.float
# (dtypes), which shadow the builtins of those names in this file.
has_blis = _C._config_flag("blis")
has_onednn = _C._config_flag("onednn")
has_lapack = _C._config_flag("lapack")
has_openmp = _C._config_flag("openmp")
# Built with the CUDA backend library (like torch.backends.cuda.is_built()); whether a device
# answers is pytensor.cuda.is_available().
has_cuda = _C._config().get("cuda_library", "") != ""


_SUBMODULES = None


def __getattr__(name: str):
    # The operators' functions (pytensor.add, ...) and the submodules ops and library are made on
    # first use (PEP 562), so that import does no per-operator work. A private submodule not
    # imported yet is left to the import system (``from . import _x`` asks here first).
    global _SUBMODULES
    if _SUBMODULES is None:
        import os
        here = os.path.dirname(__file__)
        _SUBMODULES = {f[:-3] if f.endswith(".py") else f for f in os.listdir(here)}
    if name in _SUBMODULES:
        if name.startswith("_"):
            raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    import importlib
    return importlib.import_module(f"{__name__}._opsgen").module_getattr(sys.modules[__name__],
                                                                         name)


def __dir__() -> list:
    import importlib
    return importlib.import_module(f"{__name__}._opsgen").module_dir(sys.modules[__name__])


def memory_stats(device="cpu") -> dict:
    """The allocator counters of a device type: bytes_in_use, peak_bytes, allocations, frees, and
    bytes_cached (freed memory kept for reuse; empty_cache() gives it back).

    >>> sorted(pytensor.memory_stats())
    ['allocations', 'bytes_cached', 'bytes_in_use', 'frees', 'peak_bytes']
    """
    from . import _device
    cdev = _device._to_cdevice(device)
    out = _C.ffi.new("pt_memory_stats *")
    _C._check(_C.lib.pt_allocator_stats(cdev.type, out))
    return {name: getattr(out, name) for name, _ in _C.ffi.typeof("pt_memory_stats").fields}


def empty_cache(device="cpu") -> None:
    """Gives the memory a device type's allocator keeps for reuse back to the system (on CPU the
    calling thread's small blocks and the large-block pool; see memory_stats()["bytes_cached"])."""
    from . import _device
    _C._check(_C.lib.pt_allocator_empty_cache(_device._to_cdevice(device).type))


def reset_peak_memory_stats(device="cpu") -> None:
    """Sets the peak counter of a device type's allocator to the bytes now in use."""
    from . import _device
    _C._check(_C.lib.pt_allocator_reset_peak(_device._to_cdevice(device).type))


def set_num_threads(n: int) -> None:
    """Sets how many threads the CPU kernels split large work across (process-wide, as
    torch.set_num_threads). The default is OpenMP's: OMP_NUM_THREADS or the cores.

    >>> pytensor.set_num_threads(1); pytensor.get_num_threads()
    1
    """
    import builtins
    import operator
    if isinstance(n, builtins.bool):
        raise TypeError("set_num_threads(): argument 'int' must be int, not bool")
    try:
        value = operator.index(n)
    except TypeError:
        raise TypeError(f"set_num_threads(): argument 'int' must be int, not "
                        f"{type(n).__name__}") from None
    if not -(1 << 31) <= value < (1 << 31):
        raise RuntimeError(f"set_num_threads expects a positive integer, got {value}")
    _C._check(_C.lib.pt_set_num_threads(value))


def get_num_threads() -> int:
    """The number of threads the CPU kernels use (see set_num_threads)."""
    return _C.lib.pt_get_num_threads()  # cffi gives a Python int


def is_conj(input) -> bool:
    """Whether input is a lazily conjugated view (conj() of a complex tensor), as torch.is_conj.

    >>> pytensor.is_conj(pytensor.tensor([1j]).conj())
    True
    """
    from ._tensor import Tensor
    if not isinstance(input, Tensor):
        raise TypeError(f"is_conj(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_conj()


def is_neg(input) -> bool:
    """Whether input is a lazily negated view, as torch.is_neg.

    >>> pytensor.is_neg(pytensor.tensor([1j]).conj().imag)
    True
    """
    from ._tensor import Tensor
    if not isinstance(input, Tensor):
        raise TypeError(f"is_neg(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_neg()


# save and load (torch's checkpoint format, pytensor/serialization.py) are imported on first use,
# so that import pytensor does not load pickle.
_getattr_before_serialization = __getattr__


def __getattr__(name: str):  # noqa: F811
    if name in ("save", "load"):
        from . import serialization
        return getattr(serialization, name)
    return _getattr_before_serialization(name)

from ._functional_stats import unravel_index  # noqa: E402,F401  (torch's is Python too)

# The shape family's functions that torch writes in Python (torch/functional.py).
from ._functional_shape import (atleast_1d, atleast_2d, atleast_3d, block_diag,  # noqa: E402,F401
                                broadcast_shapes, broadcast_tensors, cartesian_prod, chain_matmul,
                                dsplit, einsum, hsplit, meshgrid, tensor_split, tensordot, vsplit)
