"""``pytensor.nn.utils``: gradient clipping, parameter/vector conversion, parametrizations and
the hooks-based weight and spectral normalization, as torch's ``torch.nn.utils``.

Names load on first use (PEP 562): ``nn.modules.module`` imports ``nn.utils.hooks`` while the
layers this package's functions act on are still being defined.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "clip_grad_norm": "clip_grad", "clip_grad_norm_": "clip_grad",
    "clip_grad_value_": "clip_grad", "clip_grads_with_norm_": "clip_grad",
    "get_total_norm": "clip_grad",
    "parameters_to_vector": "convert_parameters", "vector_to_parameters": "convert_parameters",
    "spectral_norm": "spectral_norm", "remove_spectral_norm": "spectral_norm",
    "weight_norm": "weight_norm", "remove_weight_norm": "weight_norm",
}
_SUBMODULES = ("clip_grad", "convert_parameters", "hooks", "parametrizations", "parametrize",
               "spectral_norm", "weight_norm", "rnn")

__all__ = sorted(_WHERE) + ["parametrize", "parametrizations"]


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    elif name in _SUBMODULES:
        # rnn (packed sequences) is its own part of nn: a missing one is just absent
        try:
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from e
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_WHERE) | set(_SUBMODULES))
