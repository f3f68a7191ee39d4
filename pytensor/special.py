"""``pytensor.special``: torch.special's functions.

torch declares its own special operators with ``python_module: special`` (special_entr, ...,
named without the prefix here); pytensor declares them in csrc/ops/special.yaml, out of the top
namespace, and binds them here on first use. The rest of torch.special are other names for
operators of the top namespace (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is
``digamma``, ...): torch makes them composites that call those operators, so they compute the same
values and record the same autograd nodes; here they are those operators' functions.

>>> import pytensor
>>> pytensor.special.gammaln(pytensor.tensor([4.0])).item()  # log(3!)
1.7917594909667969
"""

from __future__ import annotations

from . import _opsgen

# pytensor.special.<name> -> the operator whose function it is
_OWN = {name: "special_" + name for name in (
    "entr", "erfcx", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "xlog1py", "zeta")}
_ALIASES = {
    "expit": "sigmoid", "exp2": "exp2", "expm1": "expm1", "log1p": "log1p", "erf": "erf",
    "erfc": "erfc", "erfinv": "erfinv", "gammaln": "lgamma", "digamma": "digamma",
    "psi": "digamma", "polygamma": "polygamma", "multigammaln": "mvlgamma", "i0": "i0",
    "logit": "logit", "xlogy": "xlogy", "sinc": "sinc", "round": "round", "softmax": "softmax",
    "log_softmax": "log_softmax", "logsumexp": "logsumexp", "gammainc": "igamma",
    "gammaincc": "igammac",
}

__all__ = sorted(set(_OWN) | set(_ALIASES))


def __getattr__(name: str):
    if name in _OWN:
        fn = _opsgen.make_binding("aten::" + _OWN[name], 1)
    elif name in _ALIASES:
        import pytensor
        fn = getattr(pytensor, _ALIASES[name])
    else:
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    globals()[name] = fn
    return fn


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
