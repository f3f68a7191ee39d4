"""What a node saves for backward: only the tensors that a formula which will run reads (Note
[saving only what backward will use] in tools/gen_autograd_kernels.py). `a * b` with only `a`
requiring grad keeps `b` and not `a`; the `_saved_*` accessor of a tensor that was not saved
gives None, before and after backward, as torch's does.

Each scenario is written once as a function of the library (`L` is pytensor or torch) and run on
both where torch is installed; the expected values written here keep the checks alive without
torch."""
import gc

import numpy as np
import pytest

import pytensor
from _torch_oracle import HAVE_TORCH, torch

LIBS = [pytensor, torch] if HAVE_TORCH else [pytensor]


def _same(fn, expected):
    for L in LIBS:
        assert fn(L) == expected, L.__name__


def _val(t):
    return None if t is None else t.tolist()


@pytest.mark.parametrize("which, expected", [
    ("self", (None, [3.0, 4.0])),
    ("other", ([1.0, 2.0], None)),
    ("both", ([1.0, 2.0], [3.0, 4.0])),
])
def test_mul_saves_the_tensor_only_the_other_inputs_gradient_reads(which, expected):
    def fn(L):
        a = L.tensor([1.0, 2.0], requires_grad=which in ("self", "both"))
        b = L.tensor([3.0, 4.0], requires_grad=which in ("other", "both"))
        y = a * b
        return _val(y.grad_fn._saved_self), _val(y.grad_fn._saved_other)
    _same(fn, expected)


def test_in_place_mul_saves_the_original_only_when_the_other_input_needs_it():
    def fn(L):
        w = L.tensor([3.0, 4.0], requires_grad=True)
        a = L.tensor([1.0, 2.0], requires_grad=True).clone()  # non-leaf, written in place
        a.mul_(L.tensor([5.0, 6.0]))
        b = L.tensor([1.0, 2.0]).clone()
        b.mul_(w)  # w's gradient needs b's value before the write: a copy is saved
        return (_val(a.grad_fn._saved_self), _val(a.grad_fn._saved_other),
                _val(b.grad_fn._saved_self), _val(b.grad_fn._saved_other))
    _same(fn, (None, [5.0, 6.0], [1.0, 2.0], None))


@pytest.mark.parametrize("which, expected", [
    ("self", (None, [[3.0], [4.0]])),
    ("mat2", ([[1.0, 2.0]], None)),
])
def test_mm_saves_each_operand_for_the_other_ones_gradient(which, expected):
    def fn(L):
        a = L.tensor([[1.0, 2.0]], requires_grad=which == "self")
        b = L.tensor([[3.0], [4.0]], requires_grad=which == "mat2")
        y = a.mm(b)
        return _val(y.grad_fn._saved_self), _val(y.grad_fn._saved_mat2)
    _same(fn, expected)


def test_div_keeps_the_divisor_that_both_gradients_read():
    def fn(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        b = L.tensor([4.0, 8.0])
        y = a / b
        z = b / a
        return (_val(y.grad_fn._saved_self), _val(y.grad_fn._saved_other),
                _val(z.grad_fn._saved_self), _val(z.grad_fn._saved_other))
    _same(fn, (None, [4.0, 8.0], [4.0, 8.0], [1.0, 2.0]))


def test_an_unsaved_tensor_reads_none_after_backward_and_a_saved_one_is_freed():
    def fn(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        y = a * L.tensor([3.0, 4.0])
        y.sum().backward()
        unsaved = y.grad_fn._saved_self
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.grad_fn._saved_other
        return unsaved, a.grad.tolist()
    _same(fn, (None, [3.0, 4.0]))


def test_gradients_are_unchanged_whichever_inputs_require_grad():
    rng = np.random.default_rng(0)
    an, bn = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    g = np.ones((3, 2))
    for ra, rb in [(True, False), (False, True), (True, True)]:
        a = pytensor.tensor(an, requires_grad=ra)
        b = pytensor.tensor(bn, requires_grad=rb)
        (a.mm(b) * b.sum(0)).sum().backward()
        if ra:
            np.testing.assert_allclose(np.array(a.grad.tolist()), (g * bn.sum(0)) @ bn.T,
                                       rtol=1e-12)
        else:
            assert a.grad is None
        if rb:
            gb = an.T @ (g * bn.sum(0)) + (an @ bn).sum(0)
            np.testing.assert_allclose(np.array(b.grad.tolist()), gb, rtol=1e-12)
        else:
            assert b.grad is None


def _in_use():
    gc.collect()
    return pytensor.memory_stats()["bytes_in_use"]


def test_mlp_chain_with_frozen_input_frees_what_only_the_inputs_gradient_needs():
    """Weights that require grad, an input that does not: the first layer's weight (computed
    here, as a weight-normalized or scaled weight would be) is read only by the input's
    gradient, so the graph does not keep it; the second layer's is kept for h's gradient."""
    x = pytensor.randn(64, 256)
    w1 = pytensor.randn(256, 512, requires_grad=True)
    w2 = pytensor.randn(512, 16, requires_grad=True)
    nbytes_w1 = 256 * 512 * 4

    def step(x):
        base = _in_use()
        W1 = w1 * 0.5
        W2 = w2 * 0.5
        h = x.mm(W1).relu()
        out = h.mm(W2).sum()
        held = h.grad_fn, out.grad_fn
        del W1, W2, h
        return out, held, _in_use() - base

    out, held, kept = step(x)
    # what stays: h (64x512, saved by relu and by the second mm), out and W2 (512x16)
    assert kept < nbytes_w1, kept
    out.backward()
    xn, w1n, w2n = (np.array(t.tolist()) for t in (x, w1, w2))
    pre = xn @ (w1n * 0.5)
    dpre = np.ones((64, 16)) @ (w2n * 0.5).T * (pre > 0)
    np.testing.assert_allclose(np.array(w1.grad.tolist()), xn.T @ dpre * 0.5, rtol=1e-4,
                               atol=1e-4)

    # the same chain with an input that requires grad keeps the first weight for it
    xg = x.detach().requires_grad_()
    out, held, kept = step(xg)
    assert kept >= nbytes_w1, kept
    del out, held


def test_inference_tensor_read_only_by_an_unneeded_formula_takes_part():
    def fn(L):
        x = L.tensor([5.0, 7.0], requires_grad=True)
        with L.inference_mode():
            t = L.tensor([2.0, 3.0])
            idx = L.tensor([0, 0])
        y = L.remainder(x, t) + L.fmod(x, t) + L.scatter_add(x, 0, idx, L.ones(2))
        y.sum().backward()
        return x.grad.tolist()
    _same(fn, [3.0, 3.0])


@pytest.mark.parametrize("case", ["mul", "mul_reversed", "mm_other_operand", "div_numerator"])
def test_inference_tensor_that_a_needed_formula_reads_is_still_refused(case):
    for L in LIBS:
        x = L.tensor([5.0, 7.0], requires_grad=True)
        with L.inference_mode():
            t = L.tensor([2.0, 3.0])
        f = {"mul": lambda: x * t, "mul_reversed": lambda: t * x,
             "mm_other_operand": lambda: t.view(1, 2).mm(x.view(2, 1)),
             "div_numerator": lambda: t / x}[case]
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            f()


def test_double_backward_through_mul_with_one_input_requiring_grad():
    def fn(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        b = L.tensor([3.0, 4.0])
        y = (a * b * a).sum()
        g, = L.autograd.grad(y, a, create_graph=True)
        gg, = L.autograd.grad(g.sum(), a)
        return g.tolist(), gg.tolist()
    _same(fn, ([6.0, 16.0], [6.0, 8.0]))
