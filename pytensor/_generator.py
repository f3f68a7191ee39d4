"""Random number generators: ``pytensor.Generator`` over the C ``pt_generator`` (Philox4x32-10:
a seed and an offset, the same stream on every device) and the module-level seeding functions
that act on the default generators, as ``torch.manual_seed`` and friends do.
"""

from __future__ import annotations

from . import _C, _device
from ._C import ffi, lib

_SEED_MIN = -(1 << 63)
_SEED_MAX = (1 << 64) - 1

default_generator = None


def _seed_value(seed, argname: str = "seed") -> int:
    """A seed as the uint64 C wants: negative seeds wrap around as in PyTorch."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise TypeError(f"{argname}: expected an int, got {type(seed).__name__}")
    seed = seed.__index__()
    if not _SEED_MIN <= seed <= _SEED_MAX:
        raise RuntimeError(f"{argname}: {seed} is out of range; expected a value in "
                           f"[{_SEED_MIN}, {_SEED_MAX}]")
    return seed & _SEED_MAX


class Generator:
    """A random number generator for one device.

    >>> g = pytensor.Generator().manual_seed(42)
    >>> g.initial_seed()
    42
    """

    __slots__ = ("_h", "__weakref__")

    def __init__(self, device="cpu"):
        out = ffi.new("pt_generator **")
        st = lib.pt_generator_new(_device._to_cdevice(device), out)
        if st:
            _C._raise(st)
        self._h = out[0]

    @classmethod
    def _new_wrapping(cls, handle) -> "Generator":
        """Wraps a new reference to a ``pt_generator`` (no retain)."""
        self = object.__new__(cls)
        self._h = handle
        return self

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None:
            self._h = None
            lib.pt_generator_release(h)

    @property
    def device(self):
        return _device._from_cdevice(lib.pt_generator_device(self._h))

    def manual_seed(self, seed: int) -> "Generator":
        """Seeds the generator and resets its offset; returns self."""
        lib.pt_generator_manual_seed(self._h, _seed_value(seed))
        return self

    def seed(self) -> int:
        """Seeds from the OS entropy source and returns the seed."""
        out = ffi.new("uint64_t *")
        st = lib.pt_generator_seed(self._h, out)
        if st:
            _C._raise(st)
        return out[0]

    def initial_seed(self) -> int:
        return lib.pt_generator_initial_seed(self._h)

    def get_offset(self) -> int:
        """The number of 128-bit Philox blocks handed out since seeding."""
        return lib.pt_generator_offset(self._h)

    def set_offset(self, offset: int) -> "Generator":
        lib.pt_generator_set_offset(self._h, _seed_value(offset, "offset"))
        return self

    def get_state(self):
        """The state (seed and offset) as a CPU uint8 tensor.

        >>> g = pytensor.Generator(); s = g.get_state(); g.set_state(s) is g
        True
        """
        from . import _tensor
        out = ffi.new("pt_tensor **")
        st = lib.pt_generator_get_state(self._h, out)
        if st:
            _C._raise(st)
        return _tensor._wrap(out[0])

    def set_state(self, new_state) -> "Generator":
        """Restores a state returned by ``get_state``; returns self."""
        from . import _tensor
        if not isinstance(new_state, _tensor.Tensor):
            raise TypeError(f"new_state: expected a pytensor.ByteTensor, got "
                            f"{type(new_state).__name__}")
        st = lib.pt_generator_set_state(self._h, new_state._h)
        if st:
            _C._raise(st)
        return self

    def __repr__(self) -> str:
        return f"<pytensor.Generator object on {self.device}>"


Generator.__module__ = "pytensor"


def _default(device) -> Generator:
    out = ffi.new("pt_generator **")
    st = lib.pt_generator_default(_device._to_cdevice(device), out)
    if st:
        _C._raise(st)
    return Generator._new_wrapping(out[0])


def _cuda_defaults() -> list:
    from . import cuda
    return list(cuda.default_generators) if cuda.is_available() else []


def manual_seed(seed: int) -> Generator:
    """Seeds the default generators of every device; returns the CPU one.

    >>> pytensor.manual_seed(0).initial_seed()
    0
    """
    value = _seed_value(seed)
    for g in _cuda_defaults():
        g.manual_seed(value)
    return default_generator.manual_seed(value)


def seed() -> int:
    """Seeds the default generators from the OS entropy source; returns the seed."""
    value = default_generator.seed()
    for g in _cuda_defaults():
        g.manual_seed(value)
    return value


def initial_seed() -> int:
    """The seed of the default CPU generator."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default CPU generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restores the default CPU generator's state from ``get_rng_state``."""
    default_generator.set_state(new_state)


def _build(module) -> None:
    global default_generator
    default_generator = _default("cpu")
    module.Generator = Generator
    module.default_generator = default_generator
    for fn in (manual_seed, seed, initial_seed, get_rng_state, set_rng_state):
        setattr(module, fn.__name__, fn)
