"""The layers of ``pytensor.nn``, one torch file name each; ``pytensor.nn`` re-exports them.

Each layer file adds one block of ``from .X import ...`` lines here; ``__all__`` is built from
what the blocks imported, so blocks merge without touching each other.
"""

from .module import Module  # noqa: F401
from .container import (Container, ModuleDict, ModuleList, ParameterDict,  # noqa: F401
                        ParameterList, Sequential)

__all__ = [name for name in dir() if not name.startswith("_") and name[0].isupper()]
