"""Build and start-up facts of the core (``pytensor.__config__.show()``)."""

from __future__ import annotations

from . import _C


def _text() -> str:
    facts = _C._config()
    width = max((len(k) for k in facts), default=0)
    lines = ["pytensor built with:"]
    lines += [f"  - {key.ljust(width)} : {value}" for key, value in facts.items()]
    return "\n".join(lines)


def show() -> None:
    """Prints the build and start-up facts (version, compiler, CPU capability, BLIS, OpenMP,
    CUDA).

    >>> pytensor.__config__.show()  # doctest: +ELLIPSIS
    pytensor built with:
    ...
    """
    print(_text())
