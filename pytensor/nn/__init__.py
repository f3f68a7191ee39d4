"""``pytensor.nn``: neural-network functions (``pytensor.nn.functional``) over the operators of
``pytensor._C._nn`` and the top namespace, each with its own forward and backward kernels in C.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> F.relu(pytensor.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

from . import functional  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401

# Module, the containers and the layers (pytensor.nn.modules), init and utils
from .modules import *  # noqa: F401,F403,E402
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: F401,E402
from . import init, utils  # noqa: F401,E402
