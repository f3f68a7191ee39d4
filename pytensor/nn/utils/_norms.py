"""The two reductions weight normalization is made of, as torch's ``norm_except_dim`` and
``_weight_norm``, written with differentiable tensor operators."""

from __future__ import annotations


def norm_except_dim(v, pow: float = 2, dim: int = 0):
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (kept, the others size 1);
    ``dim=-1`` means over all of ``v`` (a 0-dim result)."""
    if dim == -1:
        return v.norm(pow)
    dim %= v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    if not others:
        return v.abs() if pow != 0 else (v != 0).to(v.dtype)
    return v.norm(pow, dim=others, keepdim=True)


def weight_norm(v, g, dim: int = 0):
    """``v * (g / ||v||)``, the norm over every dim but ``dim``."""
    return v * (g / norm_except_dim(v, 2, dim))
