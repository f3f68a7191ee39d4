"""The autograd API seen from Python: requires_grad and leaves, versions, backward and
autograd.grad, in-place checks, hooks, grad modes, custom Functions, anomaly mode, gradcheck,
autograd.functional, Node objects, and memory and threads.

Each scenario is written once as a function of the library (`L` is pytensor or torch). It runs on
pytensor with the values or messages written here, and, where torch is installed, on torch too,
so the expected exception types and message texts are checked to be torch's own."""
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest

import pytensor
from _torch_oracle import HAVE_TORCH, requires_torch, torch

LIBS = [pytensor, torch] if HAVE_TORCH else [pytensor]


def _np(t):
    return np.array(t.detach().tolist())


def _error(fn, exc, *parts):
    """fn(L) raises `exc` with every one of `parts` in its message, on pytensor and on torch."""
    msgs = []
    for L in LIBS:
        with pytest.raises(exc) as info:
            fn(L)
        msg = str(info.value)
        for p in parts:
            assert p in msg, f"{L.__name__}: {p!r} not in {msg!r}"
        msgs.append(msg)
    return msgs


def _same(fn):
    """fn(L) gives the same nested values on pytensor and torch; returns pytensor's."""
    got = [fn(L) for L in LIBS]
    for other in got[1:]:
        _assert_close(got[0], other)
    return got[0]


def _assert_close(a, b):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _assert_close(x, y)
    elif a is None or isinstance(a, (bool, str)):
        assert a == b
    elif hasattr(a, "tolist"):
        assert hasattr(b, "tolist"), (a, b)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=1e-9)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


def _leaf(L, values=(1.0, 2.0, 3.0), dtype=None):
    return L.tensor(list(values), dtype=dtype or L.float64, requires_grad=True)


# ================================================================ 1. leaves, versions, data
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_requires_grad_refused_on_integer_and_bool_tensors(dtype):
    def setter(L):
        t = L.zeros(2, dtype=getattr(L, dtype))
        t.requires_grad = True
    _error(setter, RuntimeError, "only Tensors of floating point and complex dtype can require "
           "gradients")
    # torch's requires_grad_() words it without "and complex"
    _error(lambda L: L.zeros(2, dtype=getattr(L, dtype)).requires_grad_(), RuntimeError,
           "only Tensors of floating point dtype can require gradients")
    _error(lambda L: L.zeros(2, dtype=getattr(L, dtype), requires_grad=True), RuntimeError,
           "Only Tensors of floating point and complex dtype can require gradients")
    _error(lambda L: L.tensor([1, 2], dtype=getattr(L, dtype), requires_grad=True),
           RuntimeError, "Only Tensors of floating point and complex dtype can require gradients")


def test_requires_grad_false_on_non_leaf_is_refused():
    def fn(L):
        y = _leaf(L) * 2
        y.requires_grad = False
    _error(fn, RuntimeError, "you can only change requires_grad flags of leaf variables.")
    # True on a non-leaf that already requires grad is fine
    for L in LIBS:
        y = _leaf(L) * 2
        y.requires_grad_(True)
        assert y.requires_grad and not y.is_leaf


def test_requires_grad_underscore_returns_self_and_sets_flag():
    for L in LIBS:
        t = L.zeros(3)
        assert t.requires_grad_() is t and t.requires_grad and t.is_leaf and t.grad_fn is None
        assert t.requires_grad_(False) is t and not t.requires_grad


def test_is_leaf_and_grad_fn_none_ness():
    def fn(L):
        x = _leaf(L)
        c = L.ones(3, dtype=L.float64)
        y = x * 2
        z = c * 2
        with L.no_grad():
            w = x * 2
        return [x.is_leaf, x.grad_fn is None, c.is_leaf, c.grad_fn is None, y.is_leaf,
                y.grad_fn is None, y.requires_grad, z.is_leaf, z.requires_grad, w.is_leaf,
                w.requires_grad, y.detach().is_leaf, y.detach().requires_grad]
    assert _same(fn) == [True, True, True, True, False, False, True, True, False, True, False,
                         True, False]


def test_repr_shows_requires_grad_and_grad_fn():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        return [repr(x), repr(x + 1), repr(x * x), repr((x + 1).sum()), repr(x.detach())]
    got = _same(fn)
    assert got == ["tensor([1., 2.], requires_grad=True)",
                   "tensor([2., 3.], grad_fn=<AddBackward0>)",
                   "tensor([1., 4.], grad_fn=<MulBackward0>)",
                   "tensor(5., grad_fn=<SumBackward0>)",
                   "tensor([1., 2.])"]


def test_version_counts_in_place_ops_and_is_shared_with_views():
    def fn(L):
        t = L.zeros(4)
        v = t[1:3]
        out = [t._version]
        t.add_(1)
        out.append(t._version)
        t.mul_(2)
        t[0] = 5.0
        out += [t._version, v._version]
        v.zero_()
        out += [t._version, v._version]
        r = t.view(2, 2)
        r.fill_(1.0)
        out += [t._version, r._version]
        L.add(t, 1, out=t)
        out.append(t._version)
        t + 1  # out-of-place ops leave it alone
        out.append(t._version)
        return out
    got = _same(fn)
    assert got[0] == 0 and got[1] == 1 and got[2] == got[3] == 3
    assert got[4] == got[5] == 4 and got[6] == got[7] == 5 and got[8] == got[9] == 6


def test_data_shares_storage_has_own_version_counter_and_no_grad():
    def fn(L):
        x = _leaf(L)
        d = x.data
        flags = [d.requires_grad, d.is_leaf, d.grad_fn is None]
        d.add_(1)  # allowed: .data is out of the graph
        flags += [x._version, d._version]
        return flags, x.detach()
    flags, x = _same(fn)
    assert flags[:3] == [False, True, True] and flags[3] == 0 and flags[4] == 1
    assert x.tolist() == [2.0, 3.0, 4.0]


def test_data_setter_replaces_the_tensor_contents():
    for L in LIBS:
        x = _leaf(L)
        x.data = L.zeros(2, dtype=L.float64)
        assert x.tolist() == [0.0, 0.0] and x.requires_grad and x.is_leaf
        (x * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]


def test_detach_shares_storage_and_version_counter():
    def fn(L):
        x = _leaf(L)
        y = x * 2
        d = y.detach()
        before = y._version
        d.add_(1)
        return [before, y._version, d._version, d.requires_grad, y.tolist()]
    assert _same(fn) == [0, 1, 1, False, [3.0, 5.0, 7.0]]


def test_detach_breaks_gradient_flow():
    def fn(L):
        x = _leaf(L)
        (x.detach() * x).sum().backward()
        return x.grad
    assert _same(fn).tolist() == [1.0, 2.0, 3.0]


def test_detach_in_place_makes_a_leaf():
    def fn(L):
        x = _leaf(L)
        y = x * 2
        r = y.detach_()
        return [r is y, y.requires_grad, y.is_leaf, y.grad_fn is None]
    assert _same(fn) == [True, False, True, True]


def test_detach_in_place_refused_on_a_view():
    def fn(L):
        x = _leaf(L)
        (x * 2)[1:].detach_()
    _error(fn, RuntimeError, "Can't detach views in-place. Use detach() instead.")


# ================================================================ 2. backward
def test_backward_on_non_scalar_needs_a_gradient():
    _error(lambda L: (_leaf(L) * 2).backward(), RuntimeError,
           "grad can be implicitly created only for scalar outputs")


def test_backward_gradient_of_wrong_shape():
    msgs = _error(lambda L: (_leaf(L) * 2).backward(L.ones(2, dtype=L.float64)), RuntimeError,
                  "Mismatch in shape: grad_output[0] has a shape of ",
                  "and output[0] has a shape of ")
    assert msgs[0] == ("Mismatch in shape: grad_output[0] has a shape of pytensor.Size([2]) and "
                       "output[0] has a shape of pytensor.Size([3]).")
    if HAVE_TORCH:
        assert msgs[1] == msgs[0].replace("pytensor.", "torch.")


def test_backward_on_tensor_without_grad():
    _error(lambda L: L.ones(2).sum().backward(), RuntimeError,
           "element 0 of tensors does not require grad and does not have a grad_fn")
    _error(lambda L: L.autograd.backward([_leaf(L).sum(), L.ones(2).sum()]), RuntimeError,
           "element 1 of tensors does not require grad and does not have a grad_fn")


def test_backward_twice_without_retain_graph():
    def fn(L):
        x = _leaf(L)
        y = (x * x).sum()
        y.backward()
        y.backward()
    _error(fn, RuntimeError, "Trying to backward through the graph a second time (or directly "
           "access saved tensors after they have already been freed). Saved intermediate values "
           "of the graph are freed when you call .backward() or autograd.grad(). Specify "
           "retain_graph=True if you need to backward through the graph a second time or if you "
           "need to access saved tensors after calling backward.")


def test_backward_twice_through_a_graph_without_saved_tensors_works():
    def fn(L):
        x = _leaf(L)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad
    assert _same(fn).tolist() == [2.0, 2.0, 2.0]


def test_retain_graph_allows_a_second_backward_and_accumulates():
    def fn(L):
        x = _leaf(L)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        first = x.grad.clone()
        y.backward()
        return first, x.grad
    first, second = _same(fn)
    assert first.tolist() == [2.0, 4.0, 6.0] and second.tolist() == [4.0, 8.0, 12.0]


def test_create_graph_gives_a_differentiable_grad():
    def fn(L):
        x = _leaf(L)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        flags = [g.requires_grad, g.grad_fn is not None]
        x.grad = None
        g.sum().backward()
        return flags, x.grad
    flags, g2 = _same(fn)
    assert flags == [True, True] and g2.tolist() == [6.0, 12.0, 18.0]


def test_backward_inputs_accumulates_only_into_those():
    def fn(L):
        a, b = _leaf(L), _leaf(L, (4.0, 5.0, 6.0))
        y = a * b
        h = y * 1.0
        h.retain_grad()
        (h * 2).sum().backward(inputs=[a, h])
        return a.grad, b.grad, h.grad
    ga, gb, gh = _same(fn)
    assert ga.tolist() == [8.0, 10.0, 12.0] and gb is None and gh.tolist() == [2.0, 2.0, 2.0]
    _error(lambda L: _leaf(L).sum().backward(inputs=[]), RuntimeError,
           "`inputs` argument to `backward()` cannot be empty.")


def test_grads_accumulate_across_backward_calls():
    def fn(L):
        x = _leaf(L)
        for k in range(3):
            (x * (k + 1)).sum().backward()
        return x.grad
    assert _same(fn).tolist() == [6.0, 6.0, 6.0]


def test_grad_setter_checks():
    def wrong_size(L):
        _leaf(L).grad = L.zeros(2, dtype=L.float64)

    def wrong_dtype(L):
        _leaf(L).grad = L.zeros(3, dtype=L.float32)

    def wrong_type(L):
        _leaf(L).grad = [0.0, 0.0, 0.0]
    _error(wrong_size, RuntimeError, "attempting to assign a gradient of size '[2]' to a tensor "
           "of size '[3]'. Please ensure that the gradient and the tensor are the same size")
    _error(wrong_dtype, RuntimeError, "attempting to assign a gradient with dtype 'float' to a "
           "tensor with grad_dtype 'Double'. The gradient must match the tensor's grad_dtype")

    def wrong_device(L):
        _leaf(L).grad = L.zeros(3, dtype=L.float64, device="meta")
    _error(wrong_device, RuntimeError, "attempting to assign a gradient with device type 'meta' "
           "to a tensor with device type 'cpu'. Please ensure that the gradient and the tensor "
           "are on the same device")
    _error(wrong_type, TypeError, "assigned grad expected to be a Tensor or None but got grad "
           "of type list")

    def fn(L):
        x = _leaf(L)
        x.grad = L.ones(3, dtype=L.float64)
        (x * 2).sum().backward()
        out = x.grad.clone()
        del x.grad
        return out, x.grad
    g, after = _same(fn)
    assert g.tolist() == [3.0, 3.0, 3.0] and after is None


def test_non_leaf_grad_access_warns():
    for L in LIBS:
        y = _leaf(L) * 2
        with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf "
                          "Tensor is being accessed"):
            assert y.grad is None
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert y.grad is None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert _leaf(L).grad is None


def test_retain_grad_keeps_non_leaf_gradients():
    def fn(L):
        x = _leaf(L)
        y = x * 2
        y.retain_grad()
        y.retain_grad()  # twice is harmless
        (y * y).sum().backward()
        return [y.retains_grad, x.retains_grad], y.grad, x.grad
    flags, gy, gx = _same(fn)
    assert flags == [True, False] and gy.tolist() == [4.0, 8.0, 12.0]
    assert gx.tolist() == [8.0, 16.0, 24.0]
    _error(lambda L: L.ones(2).retain_grad(), RuntimeError,
           "can't retain_grad on Tensor that has requires_grad=False")


# ================================================================ 3. autograd.grad
def test_grad_allow_unused():
    def fn(L):
        a, b = _leaf(L), _leaf(L)
        return L.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)
    ga, gb = _same(fn)
    assert ga.tolist() == [2.0, 2.0, 2.0] and gb is None

    def unused(L):
        a, b = _leaf(L), _leaf(L)
        L.autograd.grad((a * 2).sum(), [a, b])
    _error(unused, RuntimeError, "The differentiated Tensor at index 1 appears to not have been "
           "used in the graph. Set allow_unused=True if this is the desired behavior.")


def test_grad_input_not_requiring_grad():
    def fn(L):
        a = _leaf(L)
        L.autograd.grad((a * 2).sum(), [a, L.ones(3)])
    _error(fn, RuntimeError, "One of the differentiated Tensors does not require grad")


def test_grad_materialize_grads():
    def fn(L):
        a, b = _leaf(L), _leaf(L)
        return L.autograd.grad((a * 2).sum(), [a, b], materialize_grads=True)
    ga, gb = _same(fn)
    assert ga.tolist() == [2.0, 2.0, 2.0] and gb.tolist() == [0.0, 0.0, 0.0]

    def conflict(L):
        a = _leaf(L)
        L.autograd.grad(a.sum(), [a], materialize_grads=True, allow_unused=False)
    _error(conflict, ValueError, "Expected allow_unused to be True or not passed when "
           "materialize_grads=True, but got: allow_unused=False.")


def test_grad_outputs_and_multiple_outputs():
    def fn(L):
        a = _leaf(L)
        y1, y2 = a * 2, a * a
        g1 = L.autograd.grad(y1, a, grad_outputs=L.tensor([1.0, 0.5, 0.0], dtype=L.float64),
                             retain_graph=True)
        g2 = L.autograd.grad([y1.sum(), y2.sum()], a)
        return g1, g2, a.grad
    g1, g2, untouched = _same(fn)
    assert g1[0].tolist() == [2.0, 1.0, 0.0] and g2[0].tolist() == [4.0, 6.0, 8.0]
    assert untouched is None


def test_grad_create_graph_second_derivative():
    def fn(L):
        a = _leaf(L)
        g, = L.autograd.grad((a ** 3).sum(), a, create_graph=True)
        h, = L.autograd.grad(g.sum(), a)
        return g, h, a.grad
    g, h, untouched = _same(fn)
    assert g.tolist() == [3.0, 12.0, 27.0] and h.tolist() == [6.0, 12.0, 18.0]
    assert untouched is None


def test_grad_leaves_leaf_grads_alone_but_fills_retained_ones():
    def fn(L):
        a = _leaf(L)
        y = a * 3
        y.retain_grad()
        L.autograd.grad((y * y).sum(), a)
        return a.grad, y.grad
    ga, gy = _same(fn)
    assert ga is None and gy.tolist() == [6.0, 12.0, 18.0]


def test_grad_of_non_scalar_needs_grad_outputs():
    _error(lambda L: L.autograd.grad(_leaf(L) * 2, _leaf(L)), RuntimeError,
           "grad can be implicitly created only for scalar outputs")
