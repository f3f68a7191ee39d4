"""Parametrizations built on ``parametrize`` (torch's nn/utils/parametrizations.py):
``weight_norm`` (``weight = g * v / ||v||``, originals ``original0 = g``, ``original1 = v``)
and ``spectral_norm`` (``weight / sigma``, sigma the largest singular value estimated by power
iteration with the buffers ``_u`` and ``_v``, advanced once per forward in training).

``orthogonal`` maps an unconstrained matrix to an orthogonal one by the matrix exponential of
its skew-symmetric part (square) or a product of Householder reflections (tall or wide), both
written with matmuls so that autograd differentiates them; the Cayley map needs a linear solve,
which pytensor's linalg does not have yet, and is refused.

>>> import pytensor
>>> from pytensor import nn
>>> m = weight_norm(nn.Linear(3, 2))
>>> sorted(m.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""

from __future__ import annotations

import math
from enum import Enum, auto

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from ._norms import norm_except_dim, weight_norm as _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _eye_like(X, n: int, k: int):
    import pytensor
    eye = pytensor.eye(n, k, dtype=X.dtype, device=X.device)
    return eye.expand(*X.shape[:-2], n, k)


def _matrix_exp(A):
    """exp(A) by scaling and squaring: a Taylor polynomial of degree 18 on A / 2**s, whose
    1-norm is at most 1/2 (truncation below 1e-20), then s squarings."""
    norm = float(A.detach().abs().sum(-2).amax().item()) if A.numel() else 0.0
    s = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    X = A / (2.0 ** s)
    n = A.size(-1)
    eye = _eye_like(A, n, n)
    result, term = eye, eye
    for i in range(1, 19):
        term = term @ X / i
        result = result + term
    for _ in range(s):
        result = result @ result
    return result


def _householder_product(A, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i = (0.., 1, A[i+1:, i])
    (torch.linalg.householder_product), one rank-1 update per reflection."""
    import pytensor
    n, k = A.size(-2), A.size(-1)
    rows = pytensor.arange(n, device=A.device)
    Q = _eye_like(A, n, k)
    for i in reversed(range(k)):
        below = (rows > i).to(A.dtype)
        unit = (rows == i).to(A.dtype)
        v = A[..., :, i] * below + unit
        w = v.unsqueeze(-2).conj() @ Q
        Q = Q - tau[..., i, None, None] * (v.unsqueeze(-1) @ w)
    return Q


def _make_orthogonal(A):
    """Q of A = QR with R's diagonal positive (torch's sign-corrected Householder QR), by
    Gram-Schmidt applied twice per column."""
    Q = A.clone()
    for j in range(Q.size(-1)):
        v = Q[..., :, j]
        if j:
            basis = Q[..., :, :j]
            for _ in range(2):
                v = v - (basis @ (basis.mT.conj() @ v.unsqueeze(-1))).squeeze(-1)
        Q[..., :, j] = v / v.norm(dim=-1, keepdim=True)
    return Q


def _is_orthogonal(Q) -> bool:
    import pytensor
    n, k = Q.size(-2), Q.size(-1)
    eps = 10.0 * n * pytensor.finfo(Q.dtype).eps
    gram = Q.mT.conj() @ Q
    eye = _eye_like(Q, k, k)
    return bool(((gram - eye).abs() <= eps + 1e-5 * eye.abs()).all())


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            X = X.tril()
            if n != k:
                X = _cat_zeros(X, n - k)
            Q = _matrix_exp(X - X.mT.conj())
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        with no_grad():
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map == _OrthMaps.matrix_exp:
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                # torch inverts the Householder map by a QR decomposition (geqrf)
                raise NotImplementedError(
                    "It is not possible to assign to the householder parametrization when "
                    "use_trivialization=False: pytensor.linalg has no geqrf yet.")
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = Q.new_empty(*Q.shape[:-2], n, n - k).normal_()
                Q = _make_orthogonal(_cat(Q, N))
            self.base = Q
            neg_Id = Q_init.new_zeros(Q_init.shape)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def _cat(a, b):
    import pytensor
    return pytensor.cat([a, b], dim=-1)


def _cat_zeros(X, cols: int):
    return _cat(X, X.new_zeros(X.size(-2), cols).expand(*X.shape[:-2], -1, -1))


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrains ``module.<name>`` (a matrix or batch of matrices) to be orthogonal (or to
    have orthonormal rows or columns). ``orthogonal_map``: ``"matrix_exp"`` (default for
    square or complex) or ``"householder"`` (default otherwise); ``"cayley"`` is refused."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    if orth_enum == _OrthMaps.cayley:
        raise NotImplementedError("orthogonal_map='cayley' needs a linear solve, which "
                                  "pytensor.linalg does not have yet")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Reparametrizes ``module.<name>`` as magnitude ``g`` times direction ``v / ||v||``
    (norms over every dim but ``dim``; ``dim=None`` over all). A state_dict of the
    hooks-based ``weight_norm`` (``<name>_g``, ``<name>_v``) still loads."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got "
                                 f"{weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        # the buffers are updated in place: optimizers and state_dicts keep the same tensors
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.mT.conj().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def _default_spectral_dim(module) -> int:
    return 1 if type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d",
                                          "ConvTranspose3d") else 0


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Reparametrizes ``module.<name>`` as itself divided by its spectral norm (estimated by
    ``n_power_iterations`` of power iteration per training forward; ``dim`` is the output
    dim, 1 for transposed convolutions)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _default_spectral_dim(module)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
