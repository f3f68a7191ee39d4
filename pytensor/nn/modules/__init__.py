"""The layers of ``pytensor.nn``, one torch file name each; ``pytensor.nn`` re-exports them.

Each layer file adds one block of ``from .X import ...`` lines here; ``__all__`` is built from
what the blocks imported, so blocks merge without touching each other.
"""

from .module import Module  # noqa: F401
from .container import (Container, ModuleDict, ModuleList, ParameterDict,  # noqa: F401
                        ParameterList, Sequential)
from .lazy import LazyModuleMixin  # noqa: F401
from .linear import Bilinear, Identity, LazyLinear, Linear  # noqa: F401
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from .dropout import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,  # noqa: F401
                      FeatureAlphaDropout)
from .flatten import Flatten, Unflatten  # noqa: F401

__all__ = [name for name in dir() if not name.startswith("_") and name[0].isupper()]
