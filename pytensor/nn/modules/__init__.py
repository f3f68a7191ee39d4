"""The layers of ``pytensor.nn``, one torch file name each; ``pytensor.nn`` re-exports them.

Each layer file adds one block of ``from .X import ...`` lines at the end of this file;
``__all__`` is computed from what the blocks imported (every class), so blocks merge without
touching each other.
"""


def __getattr__(name: str):
    if name == "__all__":
        return sorted(n for n, v in globals().items()
                      if not n.startswith("_") and isinstance(v, type))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from .module import Module  # noqa: E402,F401
from .container import (Container, ModuleDict, ModuleList, ParameterDict,  # noqa: E402,F401
                        ParameterList, Sequential)
from .lazy import LazyModuleMixin  # noqa: E402,F401
from .linear import Bilinear, Identity, LazyLinear, Linear  # noqa: E402,F401
from .sparse import Embedding, EmbeddingBag  # noqa: E402,F401
from .dropout import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,  # noqa: E402,F401
                      FeatureAlphaDropout)
from .flatten import Flatten, Unflatten  # noqa: E402,F401
