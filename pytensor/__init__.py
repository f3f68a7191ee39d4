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


# Note: from here on the module's globals hold pytensor.bool, pytensor.int and pytensor.float
# (dtypes), which shadow the builtins of those names in this file.
has_blis = _C._config_flag("blis")
has_openmp = _C._config_flag("openmp")
# Built with the CUDA backend library (like torch.backends.cuda.is_built()); whether a device
# answers is pytensor.cuda.is_available().
has_cuda = _C._config().get("cuda_library", "") != ""


def memory_stats(device="cpu") -> dict:
    """The allocator counters of a device type: bytes_in_use, peak_bytes, allocations, frees.

    >>> sorted(pytensor.memory_stats())
    ['allocations', 'bytes_in_use', 'frees', 'peak_bytes']
    """
    from . import _device
    cdev = _device._to_cdevice(device)
    out = _C.ffi.new("pt_memory_stats *")
    _C._check(_C.lib.pt_allocator_stats(cdev.type, out))
    return {name: getattr(out, name) for name, _ in _C.ffi.typeof("pt_memory_stats").fields}


def reset_peak_memory_stats(device="cpu") -> None:
    """Sets the peak counter of a device type's allocator to the bytes now in use."""
    from . import _device
    _C._check(_C.lib.pt_allocator_reset_peak(_device._to_cdevice(device).type))
