"""``pytensor.nn.utils``: gradient clipping, parameter/vector conversion, parametrizations and
the hooks-based weight and spectral normalization, as torch's ``torch.nn.utils``."""

from . import hooks, parametrizations, parametrize  # noqa: F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401

try:  # rnn (packed sequences) is its own part of nn: utils works without it
    from . import rnn  # noqa: F401
except ImportError:
    pass

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters", "parametrize",
           "parametrizations", "remove_spectral_norm", "remove_weight_norm", "spectral_norm",
           "weight_norm"]
