"""``pytensor._C._nn``: the functions of the operators declared with ``python_module: nn`` (the
seeds' THNN module, torch._C._nn), made on first use like the top namespace's.

>>> import pytensor
>>> pytensor._C._nn.gelu(pytensor.tensor([0.0])).tolist()
[0.0]
"""

from __future__ import annotations


def __getattr__(name: str):
    from .. import _opsgen
    from . import lib
    if not name.startswith("__") and _opsgen.has_variant(name, lib.PT_VARIANT_NN):
        fn = _opsgen.make_binding("aten::" + name, 1)
        globals()[name] = fn
        return fn
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__() -> list:
    from .. import _ops, _opsgen
    from . import lib
    names = set(globals())
    for qual in _ops.table():
        ns, _, name = qual.partition("::")
        if ns == "aten" and _opsgen.has_variant(name, lib.PT_VARIANT_NN):
            names.add(name)
    return sorted(names)
