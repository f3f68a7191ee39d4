"""The backward formulas of csrc/ops/derivatives.yaml: gradcheck (float64 central differences)
for every differentiable operator over 0-d, broadcast, non-contiguous and negatively strided
inputs, gradgradcheck for a subset, and the gradients compared with torch's (values, dtype,
None-ness) when torch is installed."""
import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch

F64 = pytensor.float64


def _data(shape, domain, rng):
    x = rng.standard_normal(shape)
    if domain == "pos":
        x = np.abs(x) + 0.5
    elif domain == "unit":
        x = np.clip(x * 0.3, -0.8, 0.8)
    elif domain == "distinct":
        n = int(np.prod(shape)) if shape else 1
        x = (rng.permutation(n).astype(np.float64) * 0.37 - n * 0.1).reshape(shape)
    elif domain == "nonzero":
        x = np.where(np.abs(x) < 0.3, 0.5, x)
    elif domain == "zeros":  # zeros at flat positions 1, 2 and 5: one alone, two in a row
        flat = x.reshape(-1)
        flat[[i for i in (1, 2, 5) if i < flat.size]] = 0.0
    return x


# id, function of (lib, *inputs), input specs (shape, domain)
CASES = [
    ("add", lambda L, a, b: a + b, [((3, 4), "any"), ((4,), "any")]),
    ("add_alpha", lambda L, a, b: L.add(a, b, alpha=2.5), [((3, 4), "any"), ((3, 1), "any")]),
    ("add_scalar", lambda L, a: a + 2.0, [((3,), "any")]),
    ("sub", lambda L, a, b: a - b, [((2, 3), "any"), ((2, 3), "any")]),
    ("sub_alpha", lambda L, a, b: L.sub(a, b, alpha=-1.5), [((2, 3), "any"), ((3,), "any")]),
    ("rsub_number", lambda L, a: 1.0 - a, [((4,), "any")]),
    ("mul", lambda L, a, b: a * b, [((2, 3), "any"), ((1, 3), "any")]),
    ("mul_scalar", lambda L, a: a * 3.0, [((2, 2), "any")]),
    ("div", lambda L, a, b: a / b, [((2, 3), "any"), ((2, 3), "nonzero")]),
    ("div_scalar", lambda L, a: a / 4.0, [((5,), "any")]),
    ("rdiv_number", lambda L, a: 2.0 / a, [((3,), "nonzero")]),
    ("neg", lambda L, a: -a, [((3,), "any")]),
    ("pow_scalar", lambda L, a: a.pow(3), [((4,), "any")]),
    ("pow_frac", lambda L, a: a.pow(2.5), [((4,), "pos")]),
    ("pow_zero", lambda L, a: a.pow(0), [((3,), "any")]),
    ("pow_tensor", lambda L, a, b: a.pow(b), [((3,), "pos"), ((3,), "any")]),
    ("pow_scalar_base", lambda L, b: L.pow(2.0, b), [((3,), "any")]),
    ("reciprocal", lambda L, a: a.reciprocal(), [((3,), "nonzero")]),
    ("maximum", lambda L, a, b: L.maximum(a, b), [((4,), "distinct"), ((4,), "any")]),
    ("minimum", lambda L, a, b: L.minimum(a, b), [((2, 3), "distinct"), ((3,), "any")]),
    ("atan2", lambda L, a, b: L.atan2(a, b), [((3,), "nonzero"), ((3,), "nonzero")]),
    ("abs", lambda L, a: a.abs(), [((4,), "nonzero")]),
    ("exp", lambda L, a: a.exp(), [((3,), "any")]),
    ("exp2", lambda L, a: L.exp2(a), [((3,), "any")]),
    ("expm1", lambda L, a: a.expm1(), [((3,), "any")]),
    ("log", lambda L, a: a.log(), [((3,), "pos")]),
    ("log2", lambda L, a: a.log2(), [((3,), "pos")]),
    ("log10", lambda L, a: a.log10(), [((3,), "pos")]),
    ("log1p", lambda L, a: a.log1p(), [((3,), "pos")]),
    ("sqrt", lambda L, a: a.sqrt(), [((3,), "pos")]),
    ("rsqrt", lambda L, a: a.rsqrt(), [((3,), "pos")]),
    ("sin", lambda L, a: a.sin(), [((3,), "any")]),
    ("cos", lambda L, a: a.cos(), [((3,), "any")]),
    ("tan", lambda L, a: a.tan(), [((3,), "unit")]),
    ("asin", lambda L, a: a.asin(), [((3,), "unit")]),
    ("acos", lambda L, a: a.acos(), [((3,), "unit")]),
    ("atan", lambda L, a: a.atan(), [((3,), "any")]),
    ("sinh", lambda L, a: a.sinh(), [((3,), "any")]),
    ("cosh", lambda L, a: a.cosh(), [((3,), "any")]),
    ("tanh", lambda L, a: a.tanh(), [((3,), "any")]),
    ("sigmoid", lambda L, a: a.sigmoid(), [((3,), "any")]),
    ("erf", lambda L, a: a.erf(), [((3,), "any")]),
    ("erfc", lambda L, a: a.erfc(), [((3,), "any")]),
    ("floor", lambda L, a: a.floor() * a, [((3,), "any")]),
    ("frac", lambda L, a: a.frac(), [((3,), "nonzero")]),
    ("relu", lambda L, a: a.relu(), [((2, 3), "nonzero")]),
    ("threshold", lambda L, a: L.threshold(a, 0.1, -2.0), [((5,), "distinct")]),
    ("gelu", lambda L, a: L.nn.functional.gelu(a) if L is torch else L._C._nn.gelu(a),
     [((4,), "any")]),
    ("gelu_tanh", lambda L, a: (L.nn.functional.gelu(a, approximate="tanh") if L is torch
                                else L._C._nn.gelu(a, approximate="tanh")), [((4,), "any")]),
    ("silu", lambda L, a: (L.nn.functional.silu(a) if L is torch else L._C._nn.silu(a)),
     [((4,), "any")]),
    ("clamp", lambda L, a: a.clamp(-0.5, 0.5), [((6,), "distinct")]),
    ("clamp_min", lambda L, a: a.clamp(min=0.1), [((6,), "distinct")]),
    ("clamp_max_only", lambda L, a: a.clamp(max=0.1), [((6,), "distinct")]),
    ("clamp_tensor", lambda L, a, lo, hi: a.clamp(lo, hi),
     [((5,), "distinct"), ((5,), "any"), ((5,), "pos")]),
    ("where", lambda L, a, b: L.where(a > 0, a, b), [((2, 3), "nonzero"), ((3,), "any")]),
    ("masked_fill", lambda L, a: a.masked_fill(a > 0, 2.0), [((2, 3), "nonzero")]),
    ("softmax", lambda L, a: L.softmax(a, 1), [((2, 4), "any")]),
    ("log_softmax", lambda L, a: L.log_softmax(a, -1), [((3, 4), "any")]),
    ("sum", lambda L, a: a.sum(), [((2, 3), "any")]),
    ("sum_dim", lambda L, a: a.sum(1), [((2, 3, 2), "any")]),
    ("sum_dims_keepdim", lambda L, a: a.sum((0, 2), keepdim=True), [((2, 3, 2), "any")]),
    ("mean", lambda L, a: a.mean(), [((2, 3), "any")]),
    ("mean_dim", lambda L, a: a.mean(-1), [((2, 3), "any")]),
    ("prod", lambda L, a: a.prod(), [((2, 3), "nonzero")]),
    ("prod_dim", lambda L, a: a.prod(1), [((2, 3), "nonzero")]),
    ("max", lambda L, a: a.max(), [((2, 3), "distinct")]),
    ("max_dim", lambda L, a: a.max(1)[0], [((3, 4), "distinct")]),
    ("min_dim_keepdim", lambda L, a: a.min(0, keepdim=True)[0], [((3, 4), "distinct")]),
    ("amax", lambda L, a: a.amax(1), [((3, 4), "distinct")]),
    ("amin", lambda L, a: a.amin((0, 1)), [((3, 4), "distinct")]),
    ("logsumexp", lambda L, a: a.logsumexp(1), [((3, 4), "any")]),
    ("var", lambda L, a: a.var(), [((2, 3), "any")]),
    ("var_dim", lambda L, a: a.var(1, keepdim=True), [((2, 3), "any")]),
    ("std", lambda L, a: a.std(), [((2, 3), "any")]),
    ("std_dim", lambda L, a: a.std(0), [((3, 2), "any")]),
    ("norm", lambda L, a: a.norm(), [((2, 3), "any")]),
    ("norm_p1", lambda L, a: a.norm(1), [((2, 3), "nonzero")]),
    ("norm_p3_dim", lambda L, a: a.norm(3, dim=1), [((2, 3), "nonzero")]),
    ("cumsum", lambda L, a: a.cumsum(1), [((2, 3), "any")]),
    ("cumprod", lambda L, a: a.cumprod(0), [((3, 2), "nonzero")]),
    ("mm", lambda L, a, b: a.mm(b), [((2, 3), "any"), ((3, 4), "any")]),
    ("bmm", lambda L, a, b: a.bmm(b), [((2, 2, 3), "any"), ((2, 3, 2), "any")]),
    ("addmm", lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2.0),
     [((2, 4), "any"), ((2, 3), "any"), ((3, 4), "any")]),
    ("mv", lambda L, a, v: a.mv(v), [((2, 3), "any"), ((3,), "any")]),
    ("dot", lambda L, a, b: a.dot(b), [((3,), "any"), ((3,), "any")]),
    ("matmul_2d", lambda L, a, b: a @ b, [((2, 3), "any"), ((3, 2), "any")]),
    ("matmul_batched_broadcast", lambda L, a, b: a @ b, [((2, 2, 3), "any"), ((3, 2), "any")]),
    ("matmul_vec_mat", lambda L, a, b: a @ b, [((3,), "any"), ((2, 3, 2), "any")]),
    ("matmul_mat_vec", lambda L, a, b: a @ b, [((2, 3), "any"), ((3,), "any")]),
    ("matmul_dot", lambda L, a, b: a @ b, [((3,), "any"), ((3,), "any")]),
    ("outer", lambda L, a, b: L.outer(a, b), [((3,), "any"), ((2,), "any")]),
    ("view", lambda L, a: a.reshape(6).view(3, 2) * 2, [((2, 3), "any")]),
    ("reshape", lambda L, a: a.reshape(3, 2), [((2, 3), "any")]),
    ("flatten", lambda L, a: a.flatten(), [((2, 3), "any")]),
    ("t", lambda L, a: a.t() * L.arange(2.0, dtype=a.dtype), [((2, 3), "any")]),
    ("transpose", lambda L, a: a.transpose(0, 2).sum(0), [((2, 3, 2), "any")]),
    ("permute", lambda L, a: a.permute(2, 0, 1) * 2, [((2, 3, 2), "any")]),
    ("expand", lambda L, a: a.expand(3, 2, 4), [((2, 1), "any")]),
    ("squeeze", lambda L, a: a.squeeze(), [((2, 1, 3), "any")]),
    ("squeeze_dim", lambda L, a: a.squeeze(1), [((2, 1, 3), "any")]),
    ("unsqueeze", lambda L, a: a.unsqueeze(1), [((2, 3), "any")]),
    ("select", lambda L, a: a.select(1, 2), [((2, 3), "any")]),
    ("index_int", lambda L, a: a[1], [((2, 3), "any")]),
    ("slice", lambda L, a: a[:, 1:3], [((2, 4), "any")]),
    ("slice_step", lambda L, a: a[::2, 1:], [((4, 3), "any")]),
    ("narrow", lambda L, a: a.narrow(0, 1, 2), [((4, 2), "any")]),
    # as_strided reads the storage as it lies: contiguous() gives every layout one to read
    ("as_strided", lambda L, a: a.contiguous().as_strided((2, 3), (1, 2), 1), [((8,), "any")]),
    ("as_strided_overlap", lambda L, a: a.contiguous().as_strided((3, 2), (1, 1)),
     [((4,), "any")]),
    ("as_strided_expand", lambda L, a: a.contiguous().as_strided((2, 3), (0, 1)),
     [((3,), "any")]),
    ("flip", lambda L, a: a.flip(0), [((3, 2), "any")]),
    ("tril", lambda L, a: a.tril(), [((3, 3), "any")]),
    ("triu", lambda L, a: a.triu(1), [((3, 3), "any")]),
    ("clone", lambda L, a: a.clone() * a, [((3,), "any")]),
    ("contiguous", lambda L, a: a.t().contiguous(), [((2, 3), "any")]),
    ("to_dtype", lambda L, a: a.to(L.float32).to(L.float64) * a, [((3,), "any")]),
    ("index_select", lambda L, a: a.index_select(0, L.tensor([2, 0, 2])), [((3, 2), "any")]),
    ("gather", lambda L, a: a.gather(1, L.tensor([[0, 0], [1, 0]])), [((2, 3), "any")]),
    ("sort", lambda L, a: a.sort(1)[0], [((2, 4), "distinct")]),
    ("topk", lambda L, a: a.topk(2)[0], [((2, 4), "distinct")]),
    ("chain", lambda L, a, b: ((a * b).sin() + a.exp() / (b * b + 1)).sum(0),
     [((3, 2), "any"), ((2,), "any")]),
    ("div_floor", lambda L, a, b: L.div(a, b, rounding_mode="floor") + a * b,
     [((2, 3), "any"), ((2, 3), "pos")]),
    ("div_trunc_scalar", lambda L, a: L.div(a, 0.7, rounding_mode="trunc") + a, [((4,), "any")]),
    ("div_mode_none", lambda L, a, b: L.div(a, b, rounding_mode=None),
     [((2, 3), "any"), ((3,), "nonzero")]),
    ("divide", lambda L, a, b: L.divide(a, b), [((2, 3), "any"), ((2, 3), "nonzero")]),
    ("divide_scalar_mode", lambda L, a: L.divide(a, 2.0, rounding_mode=None), [((3,), "any")]),
    ("true_divide", lambda L, a, b: L.true_divide(a, b), [((2, 3), "any"), ((3,), "nonzero")]),
    ("remainder", lambda L, a, b: L.remainder(a, b), [((2, 3), "any"), ((2, 3), "pos")]),
    ("fmod", lambda L, a, b: L.fmod(a, b), [((2, 3), "any"), ((3,), "pos")]),
    ("arctan2", lambda L, a, b: L.arctan2(a, b), [((3,), "nonzero"), ((3,), "nonzero")]),
    ("pow_inplace", lambda L, a: (a * 1).pow_(3), [((3,), "any")]),
    ("pow_inplace_tensor", lambda L, a, b: (a * 1).pow_(b), [((3,), "pos"), ((3,), "any")]),
    ("vdot", lambda L, a, b: L.vdot(a, b), [((3,), "any"), ((3,), "any")]),
    ("linalg_cross", lambda L, a, b: (L.linalg.cross(a, b) if L is torch
                                      else L.linalg_cross(a, b)),
     [((2, 3), "any"), ((2, 3), "any")]),
    ("cross_dim", lambda L, a, b: L.cross(a, b, dim=0), [((3, 2), "any"), ((3, 2), "any")]),
    ("std_mean", lambda L, a: (lambda r: r[0] * 2 + r[1])(L.std_mean(a, 1)), [((2, 3), "any")]),
    ("std_mean_std_only", lambda L, a: L.std_mean(a, 1)[0], [((2, 3), "any")]),
    ("std_mean_mean_only", lambda L, a: L.std_mean(a)[1], [((2, 3), "any")]),
    ("var_mean_correction", lambda L, a: (lambda r: r[0] + r[1] * 3)(
        L.var_mean(a, 0, correction=0, keepdim=True)), [((2, 3), "any")]),
    ("var_mean_var_only", lambda L, a: L.var_mean(a, 1)[0], [((2, 3), "any")]),
    ("sort_stable", lambda L, a: a.sort(dim=1, stable=True)[0], [((2, 4), "distinct")]),
    ("narrow_tensor", lambda L, a: a.narrow(0, L.tensor(1), 2), [((4, 2), "any")]),
    ("unfold", lambda L, a: a.unfold(1, 2, 1), [((2, 4), "any")]),
    ("unfold_step", lambda L, a: a.unfold(0, 2, 3), [((7, 2), "any")]),
    ("roll", lambda L, a: a.roll((1, -2), (0, 1)), [((2, 3), "any")]),
    ("roll_flat", lambda L, a: a.roll(2), [((2, 3), "any")]),
    ("repeat", lambda L, a: a.repeat(2, 1, 3), [((2, 3), "any")]),
    ("tile", lambda L, a: a.tile((2,)), [((2, 3), "any")]),
    ("scatter", lambda L, a, b: a.scatter(1, L.tensor([[0, 2], [1, 0]]), b),
     [((2, 3), "any"), ((2, 2), "any")]),
    ("scatter_value", lambda L, a: a.scatter(1, L.tensor([[0, 2], [1, 0]]), 2.0),
     [((2, 3), "any")]),
    ("scatter_add", lambda L, a, b: a.scatter_add(1, L.tensor([[0, 0], [1, 2]]), b),
     [((2, 3), "any"), ((2, 2), "any")]),
    ("take", lambda L, a: a.take(L.tensor([[0, 5], [5, 3]])), [((2, 3), "any")]),
    ("masked_select", lambda L, a: a.masked_select(L.tensor([True, False, True])),
     [((2, 3), "any")]),
    ("masked_select_broadcast", lambda L, a: a.masked_select(L.tensor([[[True], [False]]])),
     [((2, 3), "any")]),
    ("fill_tensor", lambda L, a, b: (a * 1).fill_(b) * a, [((2, 3), "any"), ((), "any")]),
    ("cumprod_zeros", lambda L, a: a.cumprod(1), [((2, 4), "zeros")]),
    ("cumprod_zeros_1d", lambda L, a: a.cumprod(0), [((6,), "zeros")]),
    ("prod_zeros", lambda L, a: a.prod(), [((2, 4), "zeros")]),
    ("prod_dim_zeros", lambda L, a: a.prod(1), [((2, 4), "zeros")]),
    ("norm_dtype_dim", lambda L, a: L.norm(a, 2, dim=[1], keepdim=False, dtype=L.float64),
     [((2, 3), "any")]),
    ("norm_dtype", lambda L, a: L.norm(a, 3, dtype=L.float64), [((2, 3), "nonzero")]),
    ("cat", lambda L, a, b: L.cat([a, b], 1), [((2, 3), "any"), ((2, 2), "any")]),
    ("cat_three_neg_dim", lambda L, a, b, c: L.cat([a, b, c, a], -2),
     [((2, 3), "any"), ((1, 3), "any"), ((3, 3), "any")]),
    ("cat_with_constant", lambda L, a: L.cat([L.ones(1, 3, dtype=a.dtype), a]),
     [((2, 3), "any")]),
    ("cat_legacy_empty", lambda L, a, b: L.cat([a, L.zeros(0, dtype=a.dtype), b]),
     [((2, 3), "any"), ((1, 3), "any")]),
    ("index", lambda L, a: a[L.tensor([0, 2, 0])], [((3, 4), "any")]),
    ("index_two", lambda L, a: a[L.tensor([0, 2, 0]), L.tensor([1, 1, 3])], [((3, 4), "any")]),
    ("index_after_slice", lambda L, a: a[:, L.tensor([3, 0, 3])], [((3, 4), "any")]),
    ("index_mask", lambda L, a: a[a > 0], [((3, 4), "nonzero")]),
    ("index_put", lambda L, a, b: L.index_put(a, (L.tensor([0, 2]),), b.unsqueeze(1)),
     [((3, 4), "any"), ((2,), "any")]),
    ("index_put_accumulate", lambda L, a, b: L.index_put(
        a, (L.tensor([0, 0, 1]), L.tensor([1, 1, 2])), b, True),
     [((3, 4), "any"), ((3,), "any")]),
    ("index_put_inplace", lambda L, a, b: (a * 1).index_put_((L.tensor([0, 2]),), b),
     [((3, 4), "any"), ((4,), "any")]),
    ("setitem_tensor_index", lambda L, a, b: (
        lambda c: (c.__setitem__((L.tensor([0, 1]),), b.unsqueeze(1)), c)[1])(a * 1),
     [((3, 4), "any"), ((2,), "any")]),
    ("stack", lambda L, a, b: L.stack([a, b], 1), [((2, 3), "any"), ((2, 3), "any")]),
    ("stack_last", lambda L, a, b, c: L.stack([a, b, c], -1),
     [((3,), "any"), ((3,), "any"), ((3,), "any")]),
    # Tensor[] results: piece 1 unused, so its gradient reaches the formula undefined
    ("split", lambda L, a: (lambda p: p[0] * 2 + p[2])(a.split(1)), [((3, 4), "any")]),
    ("split_uneven_dim1", lambda L, a: (lambda p: p[2].sum(1) + p[0][:, 1])(a.split(2, 1)),
     [((2, 5), "any")]),
    ("split_sizes", lambda L, a: (lambda p: p[1] * p[1].sum())(a.split([1, 3], -1)),
     [((2, 4), "any")]),
    ("split_with_sizes", lambda L, a: (lambda p: p[2] * 3)(a.split_with_sizes([1, 0, 2])),
     [((3, 2), "any")]),
    ("chunk", lambda L, a: (lambda p: p[0] - p[1].flip(0))(a.chunk(2)), [((4, 3), "any")]),
    ("chunk_uneven", lambda L, a: a.chunk(3, 1)[1] * 2, [((2, 5), "any")]),
    ("unbind", lambda L, a: (lambda p: p[0] * p[2])(a.unbind(1)), [((2, 3), "any")]),
    ("unbind_one_used", lambda L, a: a.unbind(0)[1], [((3, 2), "any")]),
    ("unbind_1d", lambda L, a: (lambda p: p[0] * p[1])(a.unbind()), [((3,), "any")]),
    ("reshape_copy", lambda L, a: a.t().reshape(6), [((2, 3), "any")]),
    ("pow_number", lambda L, a: a ** 3, [((4,), "any")]),
    ("rpow_number", lambda L, a: 2.0 ** a, [((3,), "any")]),
    ("mod_number", lambda L, a: a % 0.7 + a, [((4,), "any")]),
    ("native_dropout_eval", lambda L, a: L.native_dropout(a, 0.3, False)[0] * a,
     [((2, 3), "any")]),
    ("std_mean_one_element_mean", lambda L, a: L.std_mean(a, 1)[1], [((2, 1), "any")]),
    ("cdist", lambda L, a, b: L.cdist(a, b), [((3, 2), "any"), ((4, 2), "any")]),
    ("cdist_p0", lambda L, a, b: L.cdist(a, b, p=0.0) + a.sum(), [((3, 2), "any"),
                                                                  ((2, 2), "any")]),
    ("cdist_p1", lambda L, a, b: L.cdist(a, b, p=1.0), [((3, 2), "any"), ((2, 2), "any")]),
    ("cdist_p_frac", lambda L, a, b: L.cdist(a, b, p=0.7), [((3, 2), "any"), ((2, 2), "any")]),
    ("cdist_p1_5", lambda L, a, b: L.cdist(a, b, p=1.5), [((3, 2), "any"), ((2, 2), "any")]),
    ("cdist_p3_batched", lambda L, a, b: L.cdist(a, b, p=3.0),
     [((2, 3, 2), "any"), ((1, 4, 2), "any")]),
    ("cdist_inf", lambda L, a, b: L.cdist(a, b, p=float("inf")),
     [((3, 3), "distinct"), ((2, 3), "any")]),
    ("cdist_mm_mode", lambda L, a, b: L.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
     [((3, 2), "any"), ((4, 2), "any")]),
    ("pdist", lambda L, a: L.pdist(a), [((4, 3), "any")]),
    ("pdist_p1", lambda L, a: L.pdist(a, 1.0), [((4, 3), "any")]),
    ("pdist_p_frac", lambda L, a: L.pdist(a, 0.5), [((4, 2), "any")]),
    ("pdist_p3", lambda L, a: L.pdist(a, 3.0), [((3, 2), "any")]),
    ("pdist_inf", lambda L, a: L.pdist(a, float("inf")), [((4, 2), "distinct")]),
]
IDS = [c[0] for c in CASES]


def _inputs(case, layout, seed=0):
    """float64 leaves of pytensor (and the same values as numpy arrays) in the given layout."""
    rng = np.random.default_rng(seed)
    arrays = [_data(shape, domain, rng) for shape, domain in case[2]]
    out = []
    for a in arrays:
        if layout == "strided" and a.ndim >= 1:
            wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],))
            wide[..., ::2] = a
            t = pytensor.from_numpy(wide)[..., ::2]
            assert not t.is_contiguous()
        elif layout == "negstride" and a.ndim >= 1:
            rev = np.ascontiguousarray(a[..., ::-1])[..., ::-1]
            t = pytensor.from_numpy(rev)
            assert t.stride()[-1] < 0 or a.shape[-1] <= 1
        else:
            t = pytensor.tensor(a, dtype=F64)
        out.append(t.requires_grad_())
    return out, arrays


@pytest.mark.parametrize("layout", ["contig", "strided", "negstride"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck(case, layout):
    ins, _ = _inputs(case, layout)
    fn = case[1]
    # a float32 round trip leaves finite differences float32's precision
    tol = dict(eps=1e-3, atol=1e-4, rtol=1e-3) if case[0] == "to_dtype" else {}
    assert pytensor.autograd.gradcheck(lambda *xs: fn(pytensor, *xs), tuple(ins), **tol)


ZERO_D = ["add", "mul", "div", "exp", "log", "sin", "tanh", "sigmoid", "pow_scalar", "sum",
          "mean", "abs", "clamp", "relu", "sqrt", "div_floor", "div_mode_none", "divide",
          "remainder", "fmod", "arctan2", "pow_inplace", "pow_inplace_tensor",
          "cumprod_zeros_1d", "roll_flat", "tile", "fill_tensor", "stack_last"]


@pytest.mark.parametrize("name", ZERO_D)
def test_gradcheck_zero_dim(name):
    case = next(c for c in CASES if c[0] == name)
    zero_d = (name, case[1], [((), domain) for _, domain in case[2]])
    ins, _ = _inputs(zero_d, "contig")
    assert pytensor.autograd.gradcheck(lambda *xs: case[1](pytensor, *xs), tuple(ins))


@pytest.mark.parametrize("name", ["add", "mul", "sum", "mean", "exp", "mm", "relu", "reshape"])
def test_empty_inputs_get_empty_gradients(name):
    case = next(c for c in CASES if c[0] == name)
    shapes = {"mm": [(0, 3), (3, 2)]}.get(name, [(0, 3)] * len(case[2]))
    ins = [pytensor.zeros(s, dtype=F64, requires_grad=True) for s in shapes]
    if name == "reshape":
        out = ins[0].reshape(3, 0)
    else:
        out = case[1](pytensor, *ins)
    out.sum().backward()
    for x in ins:
        assert x.grad is not None and tuple(x.grad.shape) == tuple(x.shape)


GRADGRAD = ["mul", "div", "pow_scalar", "pow_tensor", "exp", "log", "sin", "tanh", "sigmoid",
            "sum_dim", "mean", "mm", "matmul_batched_broadcast", "softmax", "log_softmax",
            "chain", "sqrt", "std", "norm", "logsumexp", "gelu", "silu", "permute", "expand",
            "divide", "remainder", "fmod", "arctan2", "pow_inplace_tensor", "vdot",
            "linalg_cross", "cross_dim", "std_mean", "var_mean_correction", "roll", "repeat",
            "tile", "scatter", "scatter_add", "div_mode_none", "cat", "stack", "index",
            "index_two", "index_put", "index_put_accumulate", "split", "split_sizes",
            "chunk", "unbind", "reshape_copy", "pow_number", "native_dropout_eval", "select",
            "slice", "slice_step", "narrow", "as_strided", "as_strided_overlap"]


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name):
    case = next(c for c in CASES if c[0] == name)
    ins, _ = _inputs(case, "contig", seed=1)
    assert pytensor.autograd.gradgradcheck(lambda *xs: case[1](pytensor, *xs), tuple(ins))


@requires_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradients_match_torch(case, dtype):
    _, arrays = _inputs(case, "contig", seed=2)
    ours = [pytensor.tensor(a, dtype=getattr(pytensor, dtype), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True) for a in arrays]
    out = case[1](pytensor, *ours)
    ref = case[1](torch, *theirs)
    assert out.grad_fn is not None
    g = np.random.default_rng(3).standard_normal(tuple(ref.shape))
    out.backward(pytensor.tensor(g, dtype=out.dtype))
    ref.backward(torch.tensor(g, dtype=ref.dtype))
    tol = 1e-4 if dtype == "float32" else 1e-10
    for x, y in zip(ours, theirs):
        assert (x.grad is None) == (y.grad is None)
        assert str(x.grad.dtype).split(".")[-1] == str(y.grad.dtype).split(".")[-1]
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=tol, atol=tol)


# Every case: the node a user reads from grad_fn is the one torch records (test_autograd_names.py
# checks whole graphs of the operators torch writes as compositions).
@requires_torch
@pytest.mark.parametrize("name", IDS)
def test_node_names_match_torch(name):
    case = next(c for c in CASES if c[0] == name)
    _, arrays = _inputs(case, "contig")
    ours = case[1](pytensor, *[pytensor.tensor(a, requires_grad=True) for a in arrays])
    ref = case[1](torch, *[torch.tensor(a, requires_grad=True) for a in arrays])
    assert ref.grad_fn is not None
    assert ours.grad_fn.name() == ref.grad_fn.name()


@requires_torch
def test_expanded_leaf_gradient_matches_torch():
    base = np.arange(3.0)
    x = pytensor.tensor(base).expand(2, 3).requires_grad_()
    tx = torch.tensor(base).expand(2, 3).requires_grad_()
    (x * pytensor.tensor([[1.0], [2.0]])).sum().backward()
    (tx * torch.tensor([[1.0], [2.0]])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


# Random samples do not depend on their parameters differentiably: PyTorch gives them a node
# whose gradients are zeros (randint_like: no history at all).
RANDOM = [
    ("bernoulli", lambda L, a, p: L.bernoulli(p)),
    ("bernoulli_tensor_", lambda L, a, p: (a * 1).bernoulli_(p)),
    ("bernoulli_float_", lambda L, a, p: (a * 1).bernoulli_(0.5)),
    ("normal_tensor_float", lambda L, a, p: L.normal(a, 1.0)),
    ("normal_float_tensor", lambda L, a, p: L.normal(1.0, p)),
    ("normal_tensor_tensor", lambda L, a, p: L.normal(a, p)),
    ("normal_", lambda L, a, p: (a * 1).normal_()),
    ("uniform_", lambda L, a, p: (a * 1).uniform_()),
    ("random_from", lambda L, a, p: (a * 1).random_(2, 5)),
    ("exponential_", lambda L, a, p: (a * 1).exponential_()),
    ("cauchy_", lambda L, a, p: (a * 1).cauchy_()),
    ("log_normal_", lambda L, a, p: (a * 1).log_normal_()),
    ("geometric_", lambda L, a, p: (a * 1).geometric_(0.5)),
]


@requires_torch
@pytest.mark.parametrize("case", RANDOM, ids=[c[0] for c in RANDOM])
def test_random_ops_have_zero_gradients_as_torch(case):
    rng = np.random.default_rng(4)
    a, p = rng.standard_normal((2, 3)), rng.uniform(0.2, 0.8, (2, 3))
    ours = [pytensor.tensor(x, requires_grad=True) for x in (a, p)]
    theirs = [torch.tensor(x, requires_grad=True) for x in (a, p)]
    out, ref = case[1](pytensor, *ours), case[1](torch, *theirs)
    assert out.grad_fn.name() == ref.grad_fn.name()
    (out.sum() + ours[0].sum() + ours[1].sum()).backward()
    (ref.sum() + theirs[0].sum() + theirs[1].sum()).backward()
    for x, y in zip(ours, theirs):
        np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())


def test_random_integers_in_place_have_zero_gradients():
    # the method reaches random_.from for every form, so only the gradients are compared
    x = pytensor.ones((2, 3), dtype=F64, requires_grad=True)
    for fill in (lambda t: t.random_(), lambda t: t.random_(5), lambda t: t.random_(2, 5)):
        x.grad = None
        out = fill(x * 1)
        assert out.grad_fn.name().startswith("RandomBackward")
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))


def test_randint_like_output_has_no_history():
    x = pytensor.ones(3, dtype=F64, requires_grad=True)
    for out in (pytensor.randint_like(x, 5), pytensor.randint_like(x, 1, 5)):
        assert out.grad_fn is None and not out.requires_grad


@requires_torch
def test_div_with_rounding_mode_has_zero_gradients_as_torch():
    a, b = np.array([1.5, -2.5, 3.0]), np.array([0.7, 2.0, -1.1])
    for mode in ("floor", "trunc"):
        x, y = (pytensor.tensor(v, requires_grad=True) for v in (a, b))
        tx, ty = (torch.tensor(v, requires_grad=True) for v in (a, b))
        out, ref = pytensor.div(x, y, rounding_mode=mode), torch.div(tx, ty, rounding_mode=mode)
        assert out.grad_fn.name() == ref.grad_fn.name()
        out.sum().backward()
        ref.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
        np.testing.assert_array_equal(y.grad.numpy(), ty.grad.numpy())


@requires_torch
def test_cumprod_with_zeros_matches_torch_double_backward_free_path():
    a = np.array([[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 1.5, -2.0, 4.0, 0.5]])
    x = pytensor.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    g = np.random.default_rng(5).standard_normal(a.shape)
    x.cumprod(1).backward(pytensor.tensor(g))
    tx.cumprod(1).backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


HALF = ["add", "mul", "div", "sub_alpha", "mm", "matmul_batched_broadcast", "sum_dim", "mean",
        "softmax", "log_softmax", "exp", "log", "tanh", "sigmoid", "sqrt", "pow_number", "relu",
        "var", "std", "max_dim", "norm", "cumsum", "prod_dim", "gather", "cat", "stack", "where",
        "clamp", "logsumexp", "amax", "std_mean", "sort", "topk", "split", "unbind", "chunk",
        "reshape_copy", "index", "gelu", "silu", "atan2", "maximum"]


@requires_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", HALF)
def test_half_gradients_match_torch(name, dtype):
    # the gradients keep the 16-bit dtype; values agree to a few units of its last place
    case = next(c for c in CASES if c[0] == name)
    _, arrays = _inputs(case, "contig", seed=6)
    ours = [pytensor.tensor(a, dtype=getattr(pytensor, dtype), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True) for a in arrays]
    out, ref = case[1](pytensor, *ours), case[1](torch, *theirs)
    assert str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    g = np.random.default_rng(7).standard_normal(tuple(ref.shape))
    out.backward(pytensor.tensor(g, dtype=out.dtype))
    ref.backward(torch.tensor(g, dtype=ref.dtype))
    tol = 4e-2 if dtype == "bfloat16" else 5e-3
    for x, y in zip(ours, theirs):
        assert str(x.grad.dtype).split(".")[-1] == dtype
        np.testing.assert_allclose(x.grad.float().numpy(), y.grad.float().numpy(), rtol=tol,
                                   atol=tol)
