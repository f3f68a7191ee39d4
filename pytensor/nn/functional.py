"""``pytensor.nn.functional``: torch.nn.functional's functions, with its argument names, defaults,
checks and messages.

Each family lives in a module of its own (``_f_<family>.py``); this module gathers their public
names. The functions are thin: argument checks and the choice of operator happen here, the
arithmetic in the operators' C kernels (declared in csrc/ops/nn_*.yaml, kernels in
csrc/kernels/nn/), whose derivatives are in csrc/ops/derivatives.yaml.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> F.relu(pytensor.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

from . import (
    _f_activation, _f_attention, _f_bag, _f_conv, _f_ctc, _f_loss, _f_lrn, _f_mha, _f_norm,
    _f_pool, _f_sample,
)
from . import grad  # noqa: F401  (torch.nn.functional.grad is the module torch.nn.grad)
from ._f_activation import *  # noqa: F401,F403
from ._f_attention import *  # noqa: F401,F403
from ._f_bag import *  # noqa: F401,F403
from ._f_conv import *  # noqa: F401,F403
from ._f_ctc import *  # noqa: F401,F403
from ._f_loss import *  # noqa: F401,F403
from ._f_lrn import *  # noqa: F401,F403
from ._f_mha import *  # noqa: F401,F403
from ._f_norm import *  # noqa: F401,F403
from ._f_pool import *  # noqa: F401,F403
from ._f_sample import *  # noqa: F401,F403

_FAMILIES = (_f_activation, _f_attention, _f_bag, _f_conv, _f_ctc, _f_loss, _f_lrn, _f_mha,
             _f_norm, _f_pool, _f_sample)
__all__ = sorted({name for family in _FAMILIES for name in family.__all__})
