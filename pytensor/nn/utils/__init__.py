"""``pytensor.nn.utils``: gradient clipping, parameter/vector conversion, parametrizations and
the hooks-based weight and spectral normalization, as torch's."""

from . import hooks  # noqa: F401
