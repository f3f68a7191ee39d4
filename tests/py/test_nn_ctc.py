"""pytensor.nn.functional.ctc_loss and its operators (_ctc_loss, _ctc_loss_backward, both
overloads each): a brute-force NumPy reference over every alignment of tiny inputs and a
plain-Python alpha recursion (these run without torch), torch's values and gradients (reductions,
zero_infinity, padded and concatenated targets, repeated labels, blank != 0, lengths as lists and
as tensors, unbatched and strided inputs), torch's autograd nodes, gradcheck in float64 and the
messages of bad input.
"""
import itertools
import math

import numpy as np
import pytest

import pytensor as pt
import pytensor.nn.functional as F
from pytensor.autograd import gradcheck

from _torch_oracle import requires_torch, torch

RED = ["none", "mean", "sum"]


def P(a, dtype="float64", grad=False):
    t = pt.from_numpy(np.array(a, dtype=dtype)).clone()
    return t.requires_grad_() if grad else t


def N(t):
    return np.array(t.detach().numpy())


def log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def brute_nll(lp, target, blank):
    """-log of the summed probability of every path over lp ([T, C]) that collapses to target."""
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        if collapse(path, blank) == list(target):
            total += math.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -math.log(total) if total > 0 else math.inf


def alpha_nll(lp, target, blank):
    """The textbook alpha recursion in probability space (plain Python floats)."""
    T = lp.shape[0]
    ext = [blank]
    for c in target:
        ext += [c, blank]
    S = len(ext)
    p = np.exp(lp)
    a = [0.0] * S
    a[0] = p[0, blank]
    if S > 1:
        a[1] = p[0, ext[1]]
    for t in range(1, T):
        b = [0.0] * S
        for s in range(S):
            v = a[s] + (a[s - 1] if s > 0 else 0.0)
            if s > 1 and ext[s] != ext[s - 2]:
                v += a[s - 2]
            b[s] = v * p[t, ext[s]]
        a = b
    total = a[-1] + (a[-2] if S > 1 else 0.0)
    return -math.log(total) if total > 0 else math.inf


RNG = np.random.default_rng(0)


def sample(T, Nb, C, seed=0):
    r = np.random.default_rng(seed)
    return log_softmax(r.standard_normal((T, Nb, C)))


# ---------------------------------------------------------------- NumPy references
@pytest.mark.parametrize("blank", [0, 2])
def test_loss_matches_brute_force_over_alignments(blank):
    lp = sample(4, 3, 3, seed=1)
    targets = [[1, 0], [1, 1], [0]] if blank == 2 else [[1, 2], [2, 2], [1]]
    il, tl = [4, 4, 3], [len(t) for t in targets]
    padded = np.zeros((3, 2), dtype=np.int64)
    for b, t in enumerate(targets):
        padded[b, :len(t)] = t
    got = F.ctc_loss(P(lp), P(padded, "int64"), il, tl, blank=blank, reduction="none")
    want = [brute_nll(lp[:il[b], b], targets[b], blank) for b in range(3)]
    np.testing.assert_allclose(N(got), want, rtol=1e-12)


@pytest.mark.parametrize("reduction", RED)
def test_loss_matches_alpha_recursion(reduction):
    lp = sample(12, 4, 6, seed=2)
    targets = [[1, 2, 2, 3], [5, 1], [4, 4, 4], []]
    il, tl = [12, 9, 7, 5], [len(t) for t in targets]
    flat = np.array(sum(targets, []), dtype=np.int64)
    per = np.array([alpha_nll(lp[:il[b], b], targets[b], 0) for b in range(4)])
    want = {"none": per, "sum": per.sum(),
            "mean": (per / np.maximum(np.array(tl), 1)).mean()}[reduction]
    got = F.ctc_loss(P(lp), P(flat, "int64"), il, tl, reduction=reduction)
    np.testing.assert_allclose(N(got), want, rtol=1e-10)
    got32 = F.ctc_loss(P(lp, "float32"), P(flat, "int64"), il, tl, reduction=reduction)
    assert got32.dtype == pt.float32
    np.testing.assert_allclose(N(got32), want, rtol=1e-5)


def test_target_longer_than_input_is_inf_and_zero_infinity_zeroes_it():
    lp = sample(3, 2, 4)
    t = P([[1, 2, 3], [1, 1, 0]], "int64")
    got = F.ctc_loss(P(lp), t, [2, 2], [3, 2], reduction="none")
    assert math.isinf(N(got)[0]) and math.isinf(N(got)[1])  # "1 1" needs 3 frames
    x = P(lp, grad=True)
    loss = F.ctc_loss(x, t, [2, 3], [3, 1], reduction="sum", zero_infinity=True)
    assert N(loss) == pytest.approx(alpha_nll(lp[:3, 1], [1], 0))
    loss.backward()
    g = N(x.grad)
    assert np.all(g[:, 0] == 0) and np.all(np.isfinite(g))


def test_zero_lengths():
    lp = sample(5, 3, 4)
    got = F.ctc_loss(P(lp), P([[1], [2], [3]], "int64"), [0, 0, 5], [0, 1, 0], reduction="none")
    v = N(got)
    assert v[0] == 0 and math.isinf(v[1])
    assert v[2] == pytest.approx(-lp[:, 2, 0].sum())


def test_gradient_sums_to_zero_over_classes_and_vanishes_past_the_input_length():
    x = P(sample(6, 2, 5), grad=True)
    F.ctc_loss(x, P([[1, 2], [3, 3]], "int64"), [6, 4], [2, 2], reduction="sum").backward()
    g = N(x.grad)
    np.testing.assert_allclose(g.sum(axis=2)[:4], 0, atol=1e-12)
    assert np.all(g[4:, 1] == 0)


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_gradcheck(reduction, zero_infinity):
    x = P(sample(5, 3, 4, seed=3), grad=True)
    t = P([[1, 2], [3, 3], [2, 0]], "int64")

    # the backward kernel's gradient is the one through a log_softmax (torch's): its terms that
    # sum to zero over the classes are left out, so gradcheck differentiates the composition
    def f(v):
        return F.ctc_loss(v.log_softmax(2), t, [5, 5, 3], [2, 2, 1], reduction=reduction,
                          zero_infinity=zero_infinity)

    assert gradcheck(f, (x,))


def test_gradcheck_concatenated_tensor_lengths_blank_last():
    x = P(sample(6, 2, 4, seed=4), grad=True)
    t = P([0, 1, 1, 2], "int64")
    il, tl = P([6, 5], "int64"), P([3, 1], "int32")
    assert gradcheck(lambda v: F.ctc_loss(v.log_softmax(2), t, il, tl, blank=3,
                                          reduction="sum"), (x,))


def test_unbatched_input_with_0d_lengths():
    lp = sample(5, 1, 4)[:, 0]
    t = P([1, 2], "int64")
    got = F.ctc_loss(P(lp), t, P(5, "int64"), P(2, "int64"), reduction="none")
    assert got.shape == ()
    assert N(got) == pytest.approx(alpha_nll(lp, [1, 2], 0))
    m = F.ctc_loss(P(lp), t, [5], [2])
    assert N(m) == pytest.approx(alpha_nll(lp, [1, 2], 0) / 2)


def test_strided_log_probs():
    base = sample(6, 5, 3)
    lp = P(base).permute(1, 0, 2).contiguous().permute(1, 0, 2)[:, ::2]
    assert not lp.is_contiguous()
    got = F.ctc_loss(lp, P([[1, 2], [2, 1], [1, 1]], "int64"), [6, 6, 6], [2, 2, 2],
                     reduction="none")
    want = [alpha_nll(base[:, b], t, 0) for b, t in zip((0, 2, 4), ([1, 2], [2, 1], [1, 1]))]
    np.testing.assert_allclose(N(got), want, rtol=1e-12)


def test_operators_return_the_loss_and_log_alpha():
    lp = sample(4, 2, 3)
    nll, alpha = pt._ctc_loss(P(lp), P([[1, 2], [2, 0]], "int64"), [4, 3], [2, 1])
    assert nll.shape == (2,) and alpha.shape == (2, 4, 5)
    nll2, alpha2 = pt._ctc_loss(P(lp), P([[1, 2], [2, 0]], "int32"), P([4, 3], "int64"),
                                P([2, 1], "int16"))
    np.testing.assert_array_equal(N(nll), N(nll2))
    assert N(alpha)[0, 0, 0] == lp[0, 0, 0]
    g = pt._C._nn._ctc_loss_backward(P([1.0, 2.0]), P(lp), P([[1, 2], [2, 0]], "int64"),
                                     [4, 3], [2, 1], nll, alpha, 0)
    g2 = pt._C._nn._ctc_loss_backward(P([1.0, 2.0]), P(lp), P([[1, 2], [2, 0]], "int64"),
                                      P([4, 3], "int64"), P([2, 1], "int64"), nll, alpha, 0)
    assert g.shape == (4, 2, 3)
    np.testing.assert_array_equal(N(g), N(g2))
    x = P(lp, grad=True)
    (pt._ctc_loss(x, P([[1, 2], [2, 0]], "int64"), [4, 3], [2, 1])[0] * P([1.0, 2.0])).sum() \
        .backward()
    np.testing.assert_allclose(N(x.grad), N(g), rtol=1e-12)


def test_nodes():
    x = P(sample(4, 2, 3), grad=True)
    t = P([[1, 2], [2, 0]], "int64")

    def chain(r):
        names, fn = [], r.grad_fn
        while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
            names.append(fn.name())
            fn = next(f for f, _ in fn.next_functions if f is not None)
        return names

    assert chain(F.ctc_loss(x, t, [4, 3], [2, 1])) == ["MeanBackward0", "DivBackward0",
                                                        "CtcLossBackward0"]
    assert chain(F.ctc_loss(x, t, [4, 3], [2, 1], zero_infinity=True, reduction="sum")) == [
        "SumBackward0", "WhereBackward0", "CtcLossBackward0"]
    assert chain(F.ctc_loss(x, t, P([4, 3], "int64"), P([2, 1], "int64"), reduction="none")) \
        == ["CtcLossBackward0"]
    nll, alpha = pt._ctc_loss(x, t, P([4, 3], "int64"), P([2, 1], "int64"))
    assert nll.grad_fn.name() == "CtcLossBackward1" and not alpha.requires_grad
    u = F.ctc_loss(x[:, 0], t[0], [4], [2], reduction="none")
    assert u.grad_fn.name() == "SqueezeBackward1"


def test_double_backward_is_not_implemented():
    x = P(sample(4, 2, 3), grad=True)
    loss = F.ctc_loss(x, P([[1, 2], [2, 0]], "int64"), [4, 3], [2, 1])
    (g,) = pt.autograd.grad(loss, x, create_graph=True)
    with pytest.raises(NotImplementedError, match="_ctc_loss_backward"):
        g.sum().backward()


# ---------------------------------------------------------------- bad input
LP = sample(6, 2, 5)
TG = [[1, 2, 3], [1, 1, 0]]
ALLOC = r" \(while checking arguments for ctc_loss_allocate_outputs\)"


@pytest.mark.parametrize("args,kw,exc,msg", [
    ((TG, [6], [3, 2]), {}, RuntimeError, "input_lengths must be of size batch_size"),
    ((TG, [6, 6], [3]), {}, RuntimeError, "target_lengths must be of size batch_size"),
    ((TG, [6, 6], [3, 2]), {"blank": 5}, RuntimeError, "blank must be in label range"),
    ((TG, [6, 6], [3, 2]), {"blank": -1}, RuntimeError, "blank must be in label range"),
    ((TG, [-1, 6], [3, 2]), {}, RuntimeError,
     "Expected input_lengths to have value at least 0, but got value -1" + ALLOC),
    ((TG, [7, 6], [3, 2]), {}, RuntimeError,
     "Expected input_lengths to have value at most 6, but got value 7" + ALLOC),
    ((TG, [6, 6], [-1, 2]), {}, RuntimeError,
     "Expected target_lengths to have value at least 0, but got value -1" + ALLOC),
    ((TG, [6, 6], [4, 2]), {}, RuntimeError,
     "Expected tensor to have size at least 4 at dimension 1, but got size 3 for argument #2 "
     "'targets'" + ALLOC),
    (([[1, 2, 3]], [6, 6], [3, 2]), {}, RuntimeError,
     "Expected tensor to have size 2 at dimension 0, but got size 1 for argument #2 'targets'"
     + ALLOC),
    (([1, 2, 3, 4], [6, 6], [3, 2]), {}, RuntimeError,
     "Expected tensor to have size 5 at dimension 0, but got size 4 for argument #2 'targets'"
     + ALLOC),
    (([[[1]]], [6, 6], [1, 1]), {}, RuntimeError,
     "Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument #2 'targets'" + ALLOC),
    (([[1, 7, 3], [1, 1, 0]], [6, 6], [3, 2]), {}, RuntimeError,
     r"Expected targets to have values in \[0, 5\), but got value 7" + ALLOC),
    (([[1, -2, 3], [1, 1, 0]], [6, 6], [3, 2]), {}, RuntimeError,
     r"Expected targets to have values in \[0, 5\), but got value -2" + ALLOC),
])
def test_bad_input_messages(args, kw, exc, msg):
    tg, il, tl = args
    with pytest.raises(exc, match="^" + msg + "$"):
        F.ctc_loss(P(LP), P(tg, "int64"), il, tl, **kw)


def test_padding_past_the_target_length_is_not_checked():
    got = F.ctc_loss(P(LP), P([[1, 2, -1], [1, 99, 99]], "int64"), [6, 6], [2, 1],
                     reduction="none")
    assert np.all(np.isfinite(N(got)))


def test_bad_dtypes_and_shapes():
    t = P(TG, "int64")
    with pytest.raises(RuntimeError, match="^input_lengths must be integral$"):
        F.ctc_loss(P(LP), t, P([6.0, 6.0]), P([3, 2], "int64"))
    with pytest.raises(RuntimeError, match="^target_lengths must be integral$"):
        F.ctc_loss(P(LP), t, P([6, 6], "int64"), P([True, True], "bool"))
    with pytest.raises(RuntimeError, match="^input_lengths must be of size batch_size$"):
        F.ctc_loss(P(LP), t, P([6], "int64"), P([3, 2], "int64"))
    for dt, name in (("float16", "Half"), ("int64", "Long")):
        with pytest.raises(NotImplementedError,
                           match=f"^\"ctc_loss_cpu\" not implemented for '{name}'$"):
            F.ctc_loss(P(LP).to(getattr(pt, dt)), t, [6, 6], [3, 2])
    with pytest.raises(NotImplementedError, match="'BFloat16'"):
        F.ctc_loss(P(LP).to(pt.bfloat16), t, [6, 6], [3, 2])
    with pytest.raises(RuntimeError, match="^log_probs tensor must not be empty$"):
        F.ctc_loss(P(LP)[:, :0], t[:0], [], [])
    with pytest.raises(RuntimeError, match="^Expected 3-dimensional tensor, but got 5-dimensional "
                       "tensor for argument #1 'log_probs'" + ALLOC + "$"):
        F.ctc_loss(P(LP)[None], t, [6, 6], [3, 2])
    with pytest.raises(RuntimeError, match="^Expected tensor for argument #2 'targets' to have "
                       "scalar type Int; but got torch.FloatTensor instead" + ALLOC + "$"):
        pt._ctc_loss(P(LP), P(TG, "float32"), [6, 6], [3, 2])
    with pytest.raises(ValueError, match="^bad is not a valid value for reduction$"):
        F.ctc_loss(P(LP), t, [6, 6], [3, 2], reduction="bad")


def test_backward_operator_checks_its_saved_tensors():
    t = P(TG, "int64")
    nll, alpha = pt._ctc_loss(P(LP), t, [6, 6], [3, 2])
    bwd = pt._C._nn._ctc_loss_backward
    with pytest.raises(RuntimeError, match="expected grad of shape \\[2\\]"):
        bwd(P([1.0, 1.0, 1.0]), P(LP), t, [6, 6], [3, 2], nll, alpha, 0)
    with pytest.raises(RuntimeError, match="^expected scalar type Double but found Float$"):
        bwd(P([1.0, 1.0], "float32"), P(LP), t, [6, 6], [3, 2], nll, alpha, 0)
    with pytest.raises(RuntimeError, match="expected log_alpha of shape \\[2, 6, 7\\]"):
        bwd(P([1.0, 1.0]), P(LP), t, [6, 6], [3, 2], nll, alpha[:, :3], 0)
    with pytest.raises(NotImplementedError,
                       match="^\"ctc_loss_backward_cpu\" not implemented for 'Long'$"):
        bwd(P([1.0, 1.0]), P(LP).long(), t, [6, 6], [3, 2], nll, alpha, 0)


# ---------------------------------------------------------------- torch
def _pair(lp, grad=True):
    return (P(lp, grad=grad), torch.tensor(lp).requires_grad_(grad))


def _cmp_with_torch(lp, targets, il, tl, tol=1e-10, **kw):
    x, tx = _pair(lp)
    got = F.ctc_loss(x, P(targets, "int64"), P(il, "int64") if isinstance(il, np.ndarray) else il,
                     P(tl, "int64") if isinstance(tl, np.ndarray) else tl, **kw)
    til = torch.tensor(il) if isinstance(il, np.ndarray) else il
    ttl = torch.tensor(tl) if isinstance(tl, np.ndarray) else tl
    want = torch.nn.functional.ctc_loss(tx, torch.tensor(np.array(targets, dtype=np.int64)),
                                        til, ttl, **kw)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(N(got), want.detach().numpy(), rtol=tol, atol=tol)
    w = np.random.default_rng(5).random(tuple(want.shape))
    (got * P(w)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(N(x.grad), tx.grad.numpy(), rtol=tol, atol=tol)


@requires_torch
@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_matches_torch_padded(reduction, zero_infinity):
    lp = sample(20, 5, 7, seed=6)
    r = np.random.default_rng(7)
    targets = r.integers(1, 7, size=(5, 8))
    targets[1, :4] = 3  # repeated labels
    il, tl = [20, 18, 5, 11, 20], [8, 6, 8, 0, 3]  # the third cannot fit
    _cmp_with_torch(lp, targets, il, tl, reduction=reduction, zero_infinity=zero_infinity)


@requires_torch
@pytest.mark.parametrize("reduction", RED)
def test_matches_torch_concatenated_tensor_lengths_blank_nonzero(reduction):
    lp = sample(15, 3, 6, seed=8)
    targets = np.array([0, 1, 1, 2, 4, 4, 4, 3, 0], dtype=np.int64)
    _cmp_with_torch(lp, targets, np.array([15, 12, 9]), np.array([4, 3, 2]), blank=5,
                    reduction=reduction)


@requires_torch
def test_matches_torch_float32_and_unbatched():
    lp = sample(30, 4, 10, seed=9).astype(np.float32)
    r = np.random.default_rng(10)
    targets = r.integers(1, 10, size=(4, 12))
    _cmp_with_torch(lp, targets, [30, 25, 30, 14], [12, 9, 1, 7], tol=2e-5)
    _cmp_with_torch(lp[:, 0], targets[0], [30], [12], tol=2e-5, reduction="none")
    x, tx = _pair(lp[:, 0])
    got = F.ctc_loss(x, P(targets[0], "int64"), P(30, "int64"), P(12, "int64"))
    want = torch.nn.functional.ctc_loss(tx, torch.tensor(targets[0]), torch.tensor(30),
                                        torch.tensor(12))
    assert N(got) == pytest.approx(want.item(), rel=1e-5)


@requires_torch
def test_log_alpha_matches_torch_where_torch_writes_it():
    lp = sample(6, 2, 5, seed=11)
    t = [[1, 2, 3], [1, 1, 0]]
    _, alpha = pt._ctc_loss(P(lp), P(t, "int64"), [6, 4], [3, 2])
    _, talpha = torch._ctc_loss(torch.tensor(lp), torch.tensor(t), [6, 4], [3, 2])
    a, ta = N(alpha), talpha.numpy()
    np.testing.assert_allclose(a[0], ta[0], rtol=1e-12)
    np.testing.assert_allclose(a[1, :4, :5], ta[1, :4, :5], rtol=1e-12)


# ---------------------------------------------------------------- capabilities and threads
def _loss_and_grad(dtype):
    x = P(sample(40, 24, 12, seed=12), dtype, grad=True)
    r = np.random.default_rng(13)
    t = P(r.integers(1, 12, size=(24, 15)), "int64")
    tl = [int(v) for v in r.integers(0, 16, size=24)]
    loss = F.ctc_loss(x, t, [40] * 12 + [30] * 12, tl, reduction="sum")
    loss.backward()
    return N(loss).tobytes() + N(x.grad).tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_capability_computes_the_same_bits(dtype):
    from pytensor._C import lib
    start = lib.pt_cpu_capability()
    try:
        results = []
        for cap in range(lib.pt_cpu_capability_detected() + 1):
            assert lib.pt_cpu_capability_select(cap) == 0
            results.append(_loss_and_grad(dtype))
    finally:
        assert lib.pt_cpu_capability_select(start) == 0
    assert all(r == results[0] for r in results[1:])


def test_results_do_not_depend_on_the_thread_count():
    n = pt.get_num_threads()
    try:
        pt.set_num_threads(1)
        one = _loss_and_grad("float32")
        pt.set_num_threads(2)
        two = _loss_and_grad("float32")
    finally:
        pt.set_num_threads(n)
    assert one == two
