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
    ("gelu", lambda L, a: L.nn.functional.gelu(a) if L is torch else L.gelu(a), [((4,), "any")]),
    ("gelu_tanh", lambda L, a: (L.nn.functional.gelu(a, approximate="tanh") if L is torch
                                else L.gelu(a, approximate="tanh")), [((4,), "any")]),
    ("silu", lambda L, a: (L.nn.functional.silu(a) if L is torch else L.silu(a)),
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
          "mean", "abs", "clamp", "relu", "sqrt"]


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
            "chain", "sqrt", "std", "norm", "logsumexp", "gelu", "silu", "permute", "expand"]


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


@requires_torch
@pytest.mark.parametrize("name", ["add", "mul", "mm", "sum", "relu", "exp", "view", "t",
                                  "expand", "select", "mean", "div", "sub", "neg",
                                  "sum_dim", "mean_dim", "max_dim", "permute", "unsqueeze",
                                  "softmax", "log_softmax", "bmm", "addmm", "clone", "sigmoid",
                                  "tanh", "clamp_min"])
def test_node_names_match_torch(name):
    case = next(c for c in CASES if c[0] == name)
    _, arrays = _inputs(case, "contig")
    ours = case[1](pytensor, *[pytensor.tensor(a, requires_grad=True) for a in arrays])
    ref = case[1](torch, *[torch.tensor(a, requires_grad=True) for a in arrays])
    assert ours.grad_fn.name() == ref.grad_fn.name()


@requires_torch
def test_expanded_leaf_gradient_matches_torch():
    base = np.arange(3.0)
    x = pytensor.tensor(base).expand(2, 3).requires_grad_()
    tx = torch.tensor(base).expand(2, 3).requires_grad_()
    (x * pytensor.tensor([[1.0], [2.0]])).sum().backward()
    (tx * torch.tensor([[1.0], [2.0]])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
