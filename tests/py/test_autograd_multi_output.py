"""Nodes with several outputs, and the names nodes show: the gradients of outputs nobody used
reach the formulas undefined (no zeros made by the engine, so std_mean of one element stays
finite), the pieces of split / chunk / unbind share one node, the nodes torch records for
`x ** 3`, `x % 2` and reshape, AccumulateGrad's name, and a custom Function's saved tensors freed
by the backward that ends them. Each behaviour is checked by exact values here and against torch
where it is installed."""
import gc
import weakref

import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch

F64 = pytensor.float64


def _leaf(L, values, dtype=None):
    return L.tensor(values, dtype=dtype or L.float64, requires_grad=True)


def _grad_of(L, fn, values):
    x = _leaf(L, values)
    fn(L, x).sum().backward()
    return x.grad


# ---------------------------------------------------------------- undefined gradients
# fn(L, x) uses one output of a multi-output operator; the others' gradients stay undefined.
ONE_OUTPUT_USED = [
    ("std_mean_mean_of_one_element", lambda L, x: L.std_mean(x)[1], [[3.0]]),
    ("std_mean_dim_mean_of_one", lambda L, x: L.std_mean(x, 1)[1], [[1.0], [2.0]]),
    ("std_mean_std_only", lambda L, x: L.std_mean(x, 0)[0], [[1.0, 4.0], [2.0, -1.0]]),
    ("var_mean_mean_only", lambda L, x: L.var_mean(x)[1], [[1.0, 2.0, 5.0]]),
    ("var_mean_var_only", lambda L, x: L.var_mean(x, 1, correction=0)[0], [[1.0, 2.0, 5.0]]),
    ("max_dim_values", lambda L, x: x.max(1)[0], [[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]]),
    ("min_dim_values", lambda L, x: x.min(0, keepdim=True)[0], [[1.0, 5.0], [0.0, 7.0]]),
    ("sort_values", lambda L, x: x.sort(descending=True)[0] * L.arange(3.0, dtype=x.dtype),
     [[2.0, 9.0, 4.0]]),
    ("topk_values", lambda L, x: x.topk(2)[0], [[2.0, 9.0, 4.0, 1.0]]),
    ("split_first_piece", lambda L, x: x.split(2)[0] * 3, [1.0, 2.0, 3.0, 4.0, 5.0]),
    ("chunk_last_piece", lambda L, x: x.chunk(3)[2], [1.0, 2.0, 3.0, 4.0, 5.0]),
    ("unbind_middle", lambda L, x: x.unbind(1)[1] * 2, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
]
EXPECTED = {
    "std_mean_mean_of_one_element": [[1.0]],
    "std_mean_dim_mean_of_one": [[1.0], [1.0]],
    "var_mean_mean_only": [[1 / 3, 1 / 3, 1 / 3]],
    "max_dim_values": [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
    "min_dim_values": [[0.0, 1.0], [1.0, 0.0]],
    "sort_values": [[2.0, 0.0, 1.0]],
    "topk_values": [[0.0, 1.0, 1.0, 0.0]],
    "split_first_piece": [3.0, 3.0, 0.0, 0.0, 0.0],
    "chunk_last_piece": [0.0, 0.0, 0.0, 0.0, 1.0],
    "unbind_middle": [[0.0, 2.0, 0.0], [0.0, 2.0, 0.0]],
}


@pytest.mark.parametrize("case", ONE_OUTPUT_USED, ids=[c[0] for c in ONE_OUTPUT_USED])
def test_one_output_used_gives_finite_exact_gradients(case):
    name, fn, values = case
    g = _grad_of(pytensor, fn, values).numpy()
    assert np.isfinite(g).all()
    if name in EXPECTED:
        np.testing.assert_allclose(g, np.array(EXPECTED[name]), rtol=1e-12, atol=1e-12)


class _quiet:
    """Silences torch's degrees-of-freedom warning for one-element std_mean."""

    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


@requires_torch
@pytest.mark.parametrize("case", ONE_OUTPUT_USED, ids=[c[0] for c in ONE_OUTPUT_USED])
def test_one_output_used_matches_torch(case):
    _, fn, values = case
    with _quiet():
        ours, theirs = _grad_of(pytensor, fn, values), _grad_of(torch, fn, values)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


def test_both_outputs_used_sum_their_terms():
    x = _leaf(pytensor, [1.0, 2.0, 6.0])
    s, m = pytensor.std_mean(x)
    (s * 0 + m * 3).backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0, 1.0], rtol=1e-12)


def _pair_function(materialize):
    class Pair(pytensor.autograd.Function):
        seen = []

        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            Pair.seen.append((g1 is None, g2 is None))
            return (g1 if g1 is not None else 0) * 2 + (g2 if g2 is not None else 0) * 3
    return Pair


@pytest.mark.parametrize("materialize", [True, False])
def test_custom_function_gets_zeros_unless_materialize_grads_is_off(materialize):
    Pair = _pair_function(materialize)
    x = _leaf(pytensor, [1.0, 2.0])
    _, b = Pair.apply(x)
    b.sum().backward()
    assert Pair.seen == [(not materialize, False)]
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


# ---------------------------------------------------------------- Tensor[] results
def test_pieces_share_one_node_with_one_input_each():
    x = _leaf(pytensor, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    pieces = x.split([1, 2])
    assert pieces[0].grad_fn == pieces[1].grad_fn
    assert [p.output_nr for p in pieces] == [0, 1]
    assert pieces[0].grad_fn.name() == "SplitWithSizesBackward0"
    assert pieces[0].data_ptr() == x.data_ptr()  # views of x
    assert pieces[1].data_ptr() == x.data_ptr() + 2 * 8


def test_pieces_without_grad_have_no_history():
    x = _leaf(pytensor, [1.0, 2.0, 3.0])
    with pytensor.no_grad():
        assert all(p.grad_fn is None for p in x.split(1))
    assert all(p.grad_fn is None for p in pytensor.arange(4.0).unbind())


def test_empty_and_zero_sized_pieces():
    x = pytensor.zeros(0, 3, dtype=F64, requires_grad=True)
    pieces = x.chunk(3)  # chunks of an empty dim: split_with_sizes, as torch
    assert len(pieces) == 3 and pieces[0].grad_fn.name() == "SplitWithSizesBackward0"
    sum(p.sum() for p in pieces).backward()
    assert tuple(x.grad.shape) == (0, 3)
    y = pytensor.zeros(0, 3, dtype=F64, requires_grad=True)
    cols = y.unbind(1)
    assert [tuple(c.shape) for c in cols] == [(0,)] * 3
    (cols[0].sum() + cols[2].sum()).backward()
    assert tuple(y.grad.shape) == (0, 3)
    z = pytensor.zeros(3, 0, dtype=F64, requires_grad=True)
    assert z.unbind(1) == ()
    w = _leaf(pytensor, [[1.0, 2.0, 3.0]])
    a, b = w.split_with_sizes([0, 3], 1)
    b.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[1.0, 1.0, 1.0]])


def test_unbind_of_a_zero_dim_tensor_is_refused_as_torch():
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        pytensor.tensor(1.0).unbind(0)


def test_piece_gradients_double_backward():
    x = _leaf(pytensor, [1.0, 2.0, 3.0, 4.0])
    a, b = x.split(2)
    (gx,) = pytensor.autograd.grad((a * a).sum() + (b ** 3).sum(), x, create_graph=True)
    np.testing.assert_allclose(gx.numpy(), [2.0, 4.0, 27.0, 48.0])
    gx.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 18.0, 24.0])


@requires_torch
@pytest.mark.parametrize("make", [
    lambda L, x: x.split(2), lambda L, x: x.split([1, 3]), lambda L, x: x.chunk(2),
    lambda L, x: L.chunk(x, 4), lambda L, x: x.unbind(), lambda L, x: L.unbind(x),
    lambda L, x: x.split_with_sizes([3, 1]), lambda L, x: L.split(x, 3),
], ids=["split", "split_sizes", "chunk", "chunk_fn", "unbind", "unbind_fn", "split_with_sizes",
        "split_fn"])
def test_piece_node_names_and_gradients_match_torch(make):
    def run(L):
        x = _leaf(L, [1.0, 2.0, 3.0, 4.0])
        pieces = make(L, x)
        names = [p.grad_fn.name() for p in pieces]
        (pieces[-1] * 5).sum().backward()
        return names, x.grad.tolist()
    assert run(pytensor) == run(torch)


# ---------------------------------------------------------------- node names
@requires_torch
@pytest.mark.parametrize("expr", [
    "x ** 3", "x ** 2.5", "x ** True", "2 ** x", "x ** x", "x % 2", "x % 0.5",
    "x.reshape(3, 1)", "x.reshape(-1)", "x.expand(2, 3).reshape(6)", "x.view(1, 3).reshape(3)",
    "(x * 1).pow_(2)", "torch.pow(x, 2)", "x.pow(x)", "x.flatten()", "x.view(1, 3).flatten()",
    "x.expand(2, 3).flatten()", "x.expand(2, 3).flatten(1)", "x[0].flatten()",
])
def test_node_names_match_torch(expr):
    def run(L):
        x = _leaf(L, [1.0, 2.0, 3.0])
        y = eval(expr, {"torch": L, "x": x})
        node = y.grad_fn
        if node is None:  # the input itself (flatten of a 1-d tensor)
            return None
        return node.name(), [n.name() if n else None for n, _ in node.next_functions]
    assert run(pytensor) == run(torch)


def test_inplace_power_of_a_number_records_the_scalar_overload():
    x = _leaf(pytensor, [1.0, 2.0, 3.0])
    y = x * 1
    y **= 2
    assert y.grad_fn.name() == "PowBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_number_power_keeps_torch_promotion_and_errors():
    assert (pytensor.tensor([2, 3]) ** 2).tolist() == [4, 9]
    assert (pytensor.tensor([2, 3]) ** 0.5).dtype == pytensor.float32
    assert (2 ** pytensor.tensor([1, 3])).tolist() == [2, 8]
    assert (pytensor.tensor([5, 7]) % 3).tolist() == [2, 1]
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        pytensor.tensor([2, 3]) ** -1


def test_reshape_is_a_view_or_a_copy_as_torch():
    x = _leaf(pytensor, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v = x.reshape(3, 2)
    assert v.grad_fn.name() == "ViewBackward0" and v.data_ptr() == x.data_ptr()
    c = x.t().reshape(6)
    assert c.grad_fn.name() == "UnsafeViewBackward0"
    assert c.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    assert c.data_ptr() != x.data_ptr() and c.tolist() == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    (v.sum() + (c * pytensor.arange(6.0, dtype=F64)).sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    with pytest.raises(RuntimeError, match=r"shape '\[4\]' is invalid for input of size 6"):
        x.reshape(4)
    plain = pytensor.arange(6.0).reshape(2, 3).t().reshape(6)
    assert plain.grad_fn is None and plain.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_accumulate_grad_prints_torch_name():
    x = _leaf(pytensor, [1.0])
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad"
    assert repr(acc).startswith("<AccumulateGrad object at 0x")
    assert acc.variable.data_ptr() == x.data_ptr()


@requires_torch
def test_accumulate_grad_name_matches_torch():
    t = _leaf(torch, [1.0])
    assert (t * 2).grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"


# ---------------------------------------------------------------- dropout
def test_native_dropout_mask_scale_and_gradient():
    pytensor.manual_seed(7)
    x = pytensor.randn(4, 5, dtype=F64, requires_grad=True)
    out, mask = pytensor.native_dropout(x, 0.25, True)
    assert out.grad_fn.name() == "NativeDropoutBackward0"
    assert mask.dtype == pytensor.bool and not mask.requires_grad
    keep = mask.numpy()
    np.testing.assert_allclose(out.detach().numpy(), x.detach().numpy() * keep / 0.75)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), keep / 0.75)
    out, mask = pytensor.native_dropout(x, 0.25, False)
    assert mask.numpy().all() and out.tolist() == x.tolist()
    out, mask = pytensor.native_dropout(x, 1.0, True)
    assert not mask.numpy().any() and not out.detach().numpy().any()


def test_dropout_draws_the_mask_native_dropout_draws():
    x = pytensor.ones(64, dtype=pytensor.float32)
    pytensor.manual_seed(3)
    a = pytensor.dropout(x, 0.3, True)
    pytensor.manual_seed(3)
    b, mask = pytensor.native_dropout(x, 0.3, True)
    assert a.tolist() == b.tolist()
    assert ((a != 0).numpy() == mask.numpy()).all()


def test_native_dropout_backward_is_linear_in_grad():
    g = pytensor.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    m = pytensor.tensor([True, False, True])
    r = pytensor.native_dropout_backward(g, m, 2.0)
    assert r.tolist() == [2.0, 0.0, 6.0]
    r.sum().backward()
    assert g.grad.tolist() == [2.0, 0.0, 2.0]


@requires_torch
def test_dropout_node_names_match_torch():
    def run(L):
        x = _leaf(L, [1.0, 2.0, 3.0])
        return [L.dropout(x, 0.5, True).grad_fn.name(), L.dropout(x, 1.0, True).grad_fn.name(),
                L.native_dropout(x, 0.5, True)[0].grad_fn.name(),
                L.dropout(x, 0.0, True).grad_fn, L.dropout(x, 0.5, False).grad_fn]
    assert run(pytensor) == run(torch)


# ---------------------------------------------------------------- custom Function saved tensors
class _SavesATemporary(pytensor.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x * 2)  # a temporary only the saved variable holds
        return x * 3

    @staticmethod
    def backward(ctx, g):
        (tmp,) = ctx.saved_tensors
        return g * tmp


def test_custom_function_saved_tensors_freed_by_backward():
    # the saved temporary's memory (1 MiB) is what shows whether it is held
    n = 1 << 18
    x = pytensor.ones(n, requires_grad=True)
    gc.collect()
    base = pytensor.memory_stats()["bytes_in_use"]
    y = _SavesATemporary.apply(x)
    held = pytensor.memory_stats()["bytes_in_use"] - base
    assert held >= 2 * 4 * n  # y and the saved temporary
    y.sum().backward(retain_graph=True)
    gc.collect()
    # retained: a second backward may need the temporary (x.grad adds n floats)
    assert pytensor.memory_stats()["bytes_in_use"] - base >= held + 4 * n
    y.sum().backward()
    gc.collect()
    after = pytensor.memory_stats()["bytes_in_use"] - base
    # y and x.grad stay; the temporary went while the node lives on
    assert after <= held and y.grad_fn is not None
    np.testing.assert_array_equal(x.grad.numpy()[:2], [4.0, 4.0])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
