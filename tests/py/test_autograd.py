"""The autograd API seen from Python: requires_grad and leaves, versions, backward and
autograd.grad, in-place checks, hooks, grad modes, custom Functions, anomaly mode, gradcheck,
autograd.functional, Node objects, and memory and threads.

Each scenario is written once as a function of the library (`L` is pytensor or torch). It runs on
pytensor with the values or messages written here, and, where torch is installed, on torch too,
so the expected exception types and message texts are checked to be torch's own."""
import gc
import sys
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


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
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


# ================================================================ 4. in-place and versions
def test_saved_tensor_modified_in_place():
    def fn(L):
        x = _leaf(L)
        y = x * 2
        z = y * y  # saves y (version 0)
        y.add_(1)
        z.sum().backward()
    # the saved input is named by its history now (the in-place add); torch 2.13 shortens
    # that node's name to "Add"
    msgs = _error(fn, RuntimeError, "one of the variables needed for gradient computation has "
                  "been modified by an inplace operation: [", "DoubleTensor [3]], which is "
                  "output 0 of Add", ", is at version 1; expected version 0 instead. Hint: "
                  "enable anomaly detection to find the operation that failed to compute its "
                  "gradient, with ")
    assert msgs[0].startswith("one of the variables needed for gradient computation has been "
                              "modified by an inplace operation: [pytensor.DoubleTensor [3]], "
                              "which is output 0 of AddBackward0, is at version 1;")


def test_saved_leaf_modified_in_place_under_no_grad():
    def fn(L):
        x = _leaf(L)
        y = x.exp()  # saves its output
        z = x * x    # saves x
        with L.no_grad():
            x.mul_(2)
        z.sum().backward()
    _error(fn, RuntimeError, "one of the variables needed for gradient computation has been "
           "modified by an inplace operation: [", "DoubleTensor [3]] is at version 1; expected "
           "version 0 instead.")


def test_in_place_on_a_leaf_requiring_grad_is_refused():
    _error(lambda L: _leaf(L).add_(1), RuntimeError,
           "a leaf Variable that requires grad is being used in an in-place operation.")


def test_in_place_on_a_view_of_a_leaf_requiring_grad_is_refused():
    _error(lambda L: _leaf(L).view(3).add_(1), RuntimeError,
           "a view of a leaf Variable that requires grad is being used in an in-place operation.")
    _error(lambda L: _leaf(L)[1:].mul_(2), RuntimeError,
           "a view of a leaf Variable that requires grad is being used in an in-place operation.")


def test_in_place_on_a_non_leaf_is_recorded():
    def fn(L):
        x = _leaf(L)
        y = x * 2
        y.add_(1)
        name = y.grad_fn.name()
        y.exp_()  # saves its result
        (y.sum()).backward()
        return name, y.grad_fn.name(), y._version, x.grad
    name, name2, version, g = _same(fn)
    assert name == "AddBackward0" and name2 == "ExpBackward0" and version == 2
    np.testing.assert_allclose(_np(g), 2 * np.exp(2 * np.array([1.0, 2.0, 3.0]) + 1))

    def self_mul(L):  # mul_(y) saves y for the other operand, which it then modifies
        y = _leaf(L) * 2
        y.mul_(y)
        y.sum().backward()
    _error(self_mul, RuntimeError, "is at version 1; expected version 0 instead.")


def test_in_place_under_no_grad_on_a_leaf_is_allowed():
    def fn(L):
        x = _leaf(L)
        with L.no_grad():
            x.add_(1)
        (x * x).sum().backward()
        return x._version, x.requires_grad, x.is_leaf, x.grad
    version, rg, leaf, g = _same(fn)
    assert (version, rg, leaf) == (1, True, True) and g.tolist() == [4.0, 6.0, 8.0]


def test_out_argument_refused_when_an_input_requires_grad():
    def fn(L):
        x = _leaf(L)
        L.add(x, 1, out=L.zeros(3, dtype=L.float64))
    _error(fn, RuntimeError, "add(): functions with out=... arguments don't support automatic "
           "differentiation, but one of the arguments requires grad.")
    for L in LIBS:  # fine without grad
        o = L.zeros(3, dtype=L.float64)
        with L.no_grad():
            L.add(_leaf(L), 1, out=o)
        assert o.tolist() == [2.0, 3.0, 4.0]


def test_op_without_formula_fails_at_backward_not_forward():
    from pytensor.library import Library
    lib = Library("ag_fallback", "DEF")
    lib.define("twice(Tensor self) -> Tensor")
    lib.impl("twice", lambda t: t * 2, "CPU")
    x = _leaf(pytensor)
    y = pytensor.ops.ag_fallback.twice(x)  # no entry in derivatives.yaml
    assert y.requires_grad and y.grad_fn is not None
    z = y * 2
    with pytest.raises(NotImplementedError, match=r"the derivative for 'ag_fallback::twice' is not "
                       r"implemented\."):
        z.sum().backward()
    # a graph that does not reach it is fine
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_in_place_on_a_recorded_view_is_refused_not_wrong():
    x = _leaf(pytensor)
    y = x * 2
    v = y[1:]
    try:
        v.mul_(3)
    except NotImplementedError:
        return  # refused: fine
    # if accepted it must be right
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 6.0, 6.0]


# ================================================================ 5. hooks
def test_hooks_on_leaf_and_non_leaf():
    def fn(L):
        x = _leaf(L)
        y = x * 2
        seen = []
        y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: seen.append(g.clone()))  # returns None: observes only
        (y * y).sum().backward()
        return seen[0], x.grad
    seen, g = _same(fn)
    assert seen.tolist() == g.tolist() == [80.0, 160.0, 240.0]


def test_hook_handle_remove():
    def fn(L):
        x = _leaf(L)
        h = x.register_hook(lambda g: g * 100)
        h.remove()
        (x * 2).sum().backward()
        return x.grad
    assert _same(fn).tolist() == [2.0, 2.0, 2.0]


def test_hook_changing_the_size_is_refused():
    def fn(L):
        x = _leaf(L)
        y = x * 2

        def shrink(g):
            return g[:2]
        y.register_hook(shrink)
        y.sum().backward()
    _error(fn, RuntimeError, "hook 'shrink' has changed the size of value")


def test_hook_on_tensor_not_requiring_grad():
    _error(lambda L: L.ones(2).register_hook(lambda g: g), RuntimeError,
           "cannot register a hook on a tensor that doesn't require gradient")


def test_hooks_run_in_registration_order_and_see_each_others_result():
    def fn(L):
        x = _leaf(L)
        x.register_hook(lambda g: g + 1)
        x.register_hook(lambda g: g * 3)
        x.sum().backward()
        return x.grad
    assert _same(fn).tolist() == [6.0, 6.0, 6.0]


def test_hook_exception_propagates():
    class Boom(Exception):
        pass

    for L in LIBS:
        x = _leaf(L)

        def hook(g):
            raise Boom("from hook")
        x.register_hook(hook)
        with pytest.raises(Boom, match="from hook"):
            (x * 2).sum().backward()


# ================================================================ 6. grad modes
def test_grad_modes_as_context_managers_nested():
    def fn(L):
        x = _leaf(L)
        out = []
        with L.no_grad():
            out.append((x * 2).requires_grad)
            with L.enable_grad():
                out.append((x * 2).requires_grad)
                out.append(L.is_grad_enabled())
            out.append(L.is_grad_enabled())
            with L.set_grad_enabled(True):
                out.append((x * 2).requires_grad)
        with L.set_grad_enabled(False):
            out.append((x * 2).requires_grad)
        out.append(L.is_grad_enabled())
        return out
    assert _same(fn) == [False, True, True, False, True, False, True]


def test_grad_modes_as_decorators_also_on_generators():
    def fn(L):
        x = _leaf(L)

        @L.no_grad()
        def f():
            return (x * 2).requires_grad

        @L.no_grad
        def f_bare():
            return (x * 2).requires_grad

        @L.no_grad()
        def gen():
            for _ in range(2):
                yield (x * 2).requires_grad, L.is_grad_enabled()

        @L.enable_grad()
        def g():
            return (x * 2).requires_grad

        @L.set_grad_enabled(False)
        def h():
            return L.is_grad_enabled()

        out = [f(), f_bare()]
        it = gen()
        out.append(next(it))
        out.append(L.is_grad_enabled())  # the generator's mode does not leak between yields
        out.append(next(it))
        with L.no_grad():
            out.append(g())
        out.append(h())
        out.append(L.is_grad_enabled())
        return out
    assert _same(fn) == [False, False, (False, False), True, (False, False), True, False, True]


def test_set_grad_enabled_as_a_plain_call():
    for L in LIBS:
        try:
            L.set_grad_enabled(False)
            assert not L.is_grad_enabled() and not (_leaf(L) * 2).requires_grad
            L.set_grad_enabled(True)
            assert L.is_grad_enabled() and (_leaf(L) * 2).requires_grad
        finally:
            L.set_grad_enabled(True)


def test_grad_mode_is_thread_local():
    results = {}
    ready, done = threading.Event(), threading.Event()

    def other():
        ready.wait()
        x = _leaf(pytensor)
        results["enabled"] = pytensor.is_grad_enabled()
        results["requires_grad"] = (x * 2).requires_grad
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with pytensor.no_grad():
        ready.set()
        done.wait(10)
        results["main"] = pytensor.is_grad_enabled()
    t.join()
    assert results == {"enabled": True, "requires_grad": True, "main": False}

    def in_thread():
        with pytensor.no_grad():
            results["thread"] = pytensor.is_grad_enabled()
    t = threading.Thread(target=in_thread)
    t.start()
    t.join()
    assert results["thread"] is False and pytensor.is_grad_enabled()


def test_inference_mode():
    def fn(L):
        x = _leaf(L)
        with L.inference_mode():
            y = x * 2
            inside = [L.is_grad_enabled(), L.is_inference_mode_enabled(), y.requires_grad]

        @L.inference_mode()
        def f():
            return (x * 2).requires_grad, L.is_inference_mode_enabled()

        @L.inference_mode
        def f_bare():
            return L.is_inference_mode_enabled()

        with L.inference_mode(False):
            off = L.is_inference_mode_enabled()
        return inside, f(), f_bare(), off, L.is_inference_mode_enabled()
    assert _same(fn) == ([False, True, False], (False, True), True, False, False)


def test_inference_tensor_cannot_be_saved_for_backward():
    def fn(L):
        with L.inference_mode():
            t = L.ones(3, dtype=L.float64)
        (_leaf(L) * t).sum().backward()
    _error(fn, RuntimeError, "Inference tensors cannot be saved for backward.")


def test_grad_modes_exist_at_the_top_level():
    for name in ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
                 "is_grad_enabled", "is_inference_mode_enabled"):
        assert getattr(pytensor, name) is getattr(pytensor.autograd, name)


# ================================================================ 7. custom Functions
def _square_fn(L):
    class Square(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            ctx.flags = ctx.needs_input_grad
            return x * x * scale

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g * ctx.scale, None
    return Square


def test_function_save_for_backward_and_non_tensor_args():
    def fn(L):
        x = _leaf(L)
        y = _square_fn(L).apply(x, 3.0)
        y.sum().backward()
        return y, y.grad_fn.name(), x.grad
    y, name, g = _same(fn)
    assert name == "SquareBackward" and y.tolist() == [3.0, 12.0, 27.0]
    assert g.tolist() == [6.0, 12.0, 18.0]


def test_function_needs_input_grad():
    def fn(L):
        seen = []

        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k):
                seen.append(ctx.needs_input_grad)
                return a * b * k

            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.needs_input_grad)
                return g, g, None
        F.apply(_leaf(L), L.ones(3, dtype=L.float64), 2).sum().backward()
        return seen
    assert _same(fn) == [(True, False, False), (True, False, False)]


def test_function_mark_non_differentiable():
    def fn(L):
        class SortWithIndex(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                v = x * 2
                idx = x > 1.5
                ctx.mark_non_differentiable(idx)
                return v, idx

            @staticmethod
            def backward(ctx, gv, gidx):
                return gv * 2
        x = _leaf(L)
        v, idx = SortWithIndex.apply(x)
        v.sum().backward()
        return v.requires_grad, idx.requires_grad, x.grad
    rv, ri, g = _same(fn)
    assert rv and not ri and g.tolist() == [2.0, 2.0, 2.0]


def test_function_mark_dirty():
    def fn(L):
        class AddOneInPlace(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 5
        a = _leaf(L)
        y = a * 1.0
        v0 = y._version
        z = AddOneInPlace.apply(y)
        z.sum().backward()
        return z is y, y._version - v0, y.grad_fn.name(), z.tolist(), a.grad
    same_obj, dv, name, vals, g = _same(fn)
    assert same_obj and dv == 2 and name == "AddOneInPlaceBackward"  # add_, then mark_dirty
    assert vals == [2.0, 3.0, 4.0] and g.tolist() == [5.0, 5.0, 5.0]


def test_function_returning_an_input_as_is():
    def fn(L):
        class Identity(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 7
        x = _leaf(L)
        y = Identity.apply(x)
        y.sum().backward()
        return y is x, y.grad_fn is not None, x.grad
    is_x, has_fn, g = _same(fn)
    assert not is_x and has_fn and g.tolist() == [7.0, 7.0, 7.0]


def test_function_wrong_number_of_gradients():
    def fn(L):
        class Bad(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g
        Bad.apply(_leaf(L), _leaf(L)).sum().backward()
    _error(fn, RuntimeError, "function BadBackward returned an incorrect number of gradients "
           "(expected 2, got 1)")


def test_once_differentiable_refuses_double_backward():
    def fn(L):
        class Cube(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            @L.autograd.function.once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 3 * x * x * g
        x = _leaf(L)
        v = L.ones(3, dtype=L.float64, requires_grad=True)  # a gradient that requires grad
        g, = L.autograd.grad(Cube.apply(x), x, grad_outputs=v, create_graph=True)
        assert g.requires_grad
        g.sum().backward()
    _error(fn, RuntimeError, "trying to differentiate twice a function that was marked with "
           "@once_differentiable")

    def first_only(L):
        class Cube(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            @L.autograd.function.once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 3 * x * x * g
        x = _leaf(L)
        Cube.apply(x).sum().backward()
        return x.grad
    assert _same(first_only).tolist() == [3.0, 12.0, 27.0]


def test_function_with_differentiable_backward_double_backward():
    def fn(L):
        class Cube(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 3 * x * x * g
        x = _leaf(L)
        g, = L.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        h, = L.autograd.grad(g.sum(), x)
        return g, h
    g, h = _same(fn)
    assert g.tolist() == [3.0, 12.0, 27.0] and h.tolist() == [6.0, 12.0, 18.0]


def test_function_backward_exception_propagates_with_its_type():
    class Oops(ValueError):
        pass

    for L in LIBS:
        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise Oops("bad backward")
        with pytest.raises(Oops, match="bad backward"):
            F.apply(_leaf(L)).sum().backward()


def test_function_saved_tensors_after_backward_are_freed():
    def fn(L):
        x = _leaf(L)
        y = _square_fn(L).apply(x, 1.0)
        y.sum().backward()
        y.sum().backward()
    _error(fn, RuntimeError, "Trying to backward through the graph a second time")


def test_function_without_grad_inputs_records_nothing():
    def fn(L):
        y = _square_fn(L).apply(L.ones(2, dtype=L.float64), 2.0)
        return y.requires_grad, y.grad_fn is None
    assert _same(fn) == (False, True)


# ================================================================ 8. anomaly mode
def test_detect_anomaly_names_the_node_that_made_nan():
    def fn(L):
        x = L.tensor([0.0, 1.0], dtype=L.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with L.autograd.detect_anomaly():
                y = x.sqrt() * 0.0  # sqrt's backward at 0 gives inf * 0 = nan
                y.sum().backward()
    _error(fn, RuntimeError, "Function 'SqrtBackward0' returned nan values in its 0th output.")


def test_set_detect_anomaly_and_nan_without_it():
    for L in LIBS:
        x = L.tensor([0.0, 1.0], dtype=L.float64, requires_grad=True)
        (x.sqrt() * 0.0).sum().backward()  # no anomaly mode: nan passes
        assert np.isnan(x.grad.tolist()[0])
        assert not L.is_anomaly_enabled()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with L.autograd.set_detect_anomaly(True):
                assert L.is_anomaly_enabled()
                x.grad = None
                with pytest.raises(RuntimeError, match="returned nan values"):
                    (x.sqrt() * 0.0).sum().backward()
        assert not L.is_anomaly_enabled()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with L.autograd.detect_anomaly(check_nan=False):
                (x.sqrt() * 0.0).sum().backward()


# ================================================================ 9. gradcheck
def _bad_fn(L):
    class WrongGrad(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x * g  # should be 2x
    return WrongGrad


def test_gradcheck_catches_a_wrong_backward():
    for L in LIBS:
        x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
        error = sys.modules[f"{L.__name__}.autograd.gradcheck"].GradcheckError
        with pytest.raises(error, match="Jacobian mismatch for output 0 "
                           "with respect to input 0"):
            L.autograd.gradcheck(_bad_fn(L).apply, (x,))
        assert L.autograd.gradcheck(_bad_fn(L).apply, (x,), raise_exception=False) is False
        assert L.autograd.gradcheck(lambda t: t * t, (x,)) is True
        assert L.autograd.gradgradcheck(lambda t: t * t * t, (x,)) is True


def test_gradcheck_warns_on_float32_and_needs_an_input_requiring_grad():
    for L in LIBS:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double "
                          "precision floating point or complex"):
            L.autograd.gradcheck(lambda t: t * 2, (x,), eps=1e-2, atol=1e-2,
                                 raise_exception=False)
    _error(lambda L: L.autograd.gradcheck(lambda t: t * 2, (L.ones(2, dtype=L.float64),)),
           ValueError, "gradcheck expects at least one input tensor to require gradient, but "
           "none of them have requires_grad=True.")


# ================================================================ 10. autograd.functional
def _f_two(L):
    return lambda a, b: (a * a * b).sum() + (b ** 3).sum()


def test_functional_vjp_jvp_jacobian_hessian_match_torch():
    def fn(L):
        F = L.autograd.functional
        a = L.tensor([1.0, 2.0, 3.0], dtype=L.float64)
        b = L.tensor([0.5, -1.0, 2.0], dtype=L.float64)
        v = L.tensor([1.0, 0.0, -2.0], dtype=L.float64)
        out = []
        out.append(F.vjp(lambda x: x * x * 2, a, v))
        out.append(F.jvp(lambda x: x.exp(), a, v))
        out.append(F.jacobian(lambda x: x * x, a))
        out.append(F.jacobian(lambda x, y: x * y, (a, b)))
        out.append(F.hessian(lambda x: (x ** 3).sum(), a))
        out.append(F.hessian(_f_two(L), (a, b)))
        out.append(F.vjp(_f_two(L), (a, b)))
        return out
    got = _same(fn)
    vjp_out, vjp_g = got[0]
    assert vjp_out.tolist() == [2.0, 8.0, 18.0] and vjp_g.tolist() == [4.0, 0.0, -24.0]
    np.testing.assert_allclose(_np(got[2]), np.diag([2.0, 4.0, 6.0]))
    np.testing.assert_allclose(_np(got[4]), np.diag([6.0, 12.0, 18.0]))
    h = got[5]
    assert len(h) == 2 and len(h[0]) == 2


def test_functional_results_do_not_require_grad_without_create_graph():
    for L in LIBS:
        a = L.tensor([1.0, 2.0], dtype=L.float64)
        J = L.autograd.functional.jacobian(lambda x: x * x, a)
        assert not J.requires_grad and not a.requires_grad
        J = L.autograd.functional.jacobian(lambda x: x * x, a.requires_grad_(), create_graph=True)
        assert J.requires_grad


# ================================================================ 11. memory and threads
def _bytes_in_use():
    return pytensor.memory_stats()["bytes_in_use"]


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_many_forward_backward_iterations_keep_memory_flat():
    w = pytensor.tensor([0.5, -1.0, 2.0, 3.0], requires_grad=True)
    x = pytensor.tensor([1.0, 2.0, 3.0, 4.0])

    def step():
        y = ((w * x).exp() + w).sum()
        y.backward()
        w.grad = None

    for _ in range(2000):  # warm-up: caches, allocator pools, interned objects
        step()
    gc.collect()
    mem0, rss0 = _bytes_in_use(), _rss_bytes()
    for _ in range(100_000):
        step()
    gc.collect()
    mem1, rss1 = _bytes_in_use(), _rss_bytes()
    assert mem1 - mem0 <= 4096, (mem0, mem1)
    # 10^5 leaked nodes of even 64 bytes would be 6.4 MB
    assert rss1 - rss0 < 4 * 2**20, (rss0, rss1)


def test_dropping_the_output_frees_the_graph_without_gc():
    gc.collect()
    gc.disable()
    try:
        base = _bytes_in_use()
        x = pytensor.ones(1000, requires_grad=True)
        y = (x * 2).exp()  # ExpBackward0 saves its 8 KB result, MulBackward0 nothing big
        z = y * y
        node = weakref.ref(z.grad_fn)
        held = _bytes_in_use()
        assert held - base >= 3 * 4000
        del y, z
        assert node() is None
        assert _bytes_in_use() - base == 4000  # only x is left
        # after backward: saved tensors freed at once; .grad holds no graph
        y = (x * 2).exp()
        y.sum().backward()
        g = x.grad
        assert g.grad_fn is None and not g.requires_grad
        del y
        assert _bytes_in_use() - base == 8000  # x and x.grad
        del g
        x.grad = None
        assert _bytes_in_use() - base == 4000
        # create_graph: x.grad's graph holds x, a cycle (torch warns) that resetting .grad breaks
        with pytest.warns(UserWarning, match="Using backward\\(\\) with create_graph=True will "
                          "create a reference cycle between the parameter and its gradient"):
            (x * x).sum().backward(create_graph=True)
        assert x.grad.grad_fn is not None
        x.grad = None
        xr = weakref.ref(x)
        del x
        assert xr() is None
        assert _bytes_in_use() == base
        # autograd.grad makes no cycle
        x = pytensor.ones(1000, requires_grad=True)
        g, = pytensor.autograd.grad((x * x).sum(), x, create_graph=True)
        xr = weakref.ref(x)
        del x, g
        assert xr() is None
        assert _bytes_in_use() == base
    finally:
        gc.enable()


def test_saved_tensors_are_freed_by_backward():
    gc.collect()
    gc.disable()
    try:
        x = pytensor.ones(1000, requires_grad=True)
        y = (x * 2).exp()
        z = (y * y).sum()  # MulBackward0 holds y (4 KB) twice, ExpBackward0 its result
        del y
        before = _bytes_in_use()
        z.backward()
        freed = before + 4000 - _bytes_in_use()  # x.grad (4 KB) is new
        assert freed >= 4000, freed  # y's storage, held only by the saved values, is gone
        y = (x * 2).exp()
        z = (y * y).sum()
        del y
        x.grad = None
        before = _bytes_in_use()
        z.backward(retain_graph=True)
        freed = before + 4000 - _bytes_in_use()
        assert freed < 4000, freed  # retain_graph keeps it
    finally:
        gc.enable()


def test_backward_from_several_threads_at_once():
    n_threads, n_iters = 4, 300
    errors, results = [], {}
    barrier = threading.Barrier(n_threads)

    def work(k):
        try:
            barrier.wait()
            for i in range(n_iters):
                x = pytensor.tensor([1.0, 2.0, 3.0], dtype=pytensor.float64, requires_grad=True)
                c = float(k + 1)
                y = (x * x * c + x.exp()).sum()
                if i % 2:
                    y.backward()
                    g = x.grad
                else:
                    g, = pytensor.autograd.grad(y, x)
                expect = 2 * c * np.array([1.0, 2.0, 3.0]) + np.exp([1.0, 2.0, 3.0])
                np.testing.assert_allclose(_np(g), expect, rtol=1e-12)
            results[k] = True
        except BaseException as e:  # noqa: B036 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == n_threads


def test_shared_leaf_accumulation_from_threads():
    x = pytensor.tensor([1.0, 2.0], dtype=pytensor.float64, requires_grad=True)
    n_threads, n_iters = 4, 200
    barrier = threading.Barrier(n_threads)

    def work():
        barrier.wait()
        for _ in range(n_iters):
            (x * 3).sum().backward()

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert x.grad.tolist() == [3.0 * n_threads * n_iters] * 2


# ================================================================ 12. Node objects
def _structure(node, seen=None):
    """(name, [(child structure or None, input_nr)]) with AccumulateGrad named as pytensor
    names it."""
    if node is None:
        return None
    name = node.name().replace("torch::autograd::", "")
    return (name, [(_structure(n), nr) for n, nr in node.next_functions])


def test_next_functions_structure_matches_torch():
    def fn(L):
        x = _leaf(L)
        w = _leaf(L, (4.0, 5.0, 6.0))
        y = (x * w).sum() + x.exp().mean() + (x * 2)[1] - L.ones(3, dtype=L.float64).sum()
        z = (x.view(1, 3) * w.view(3, 1)).t().unsqueeze(0).expand(2, 3, 3)
        return [_structure(y.grad_fn), _structure(z.grad_fn), _structure(x.grad_fn)]
    got = _same(fn)
    assert got[0] == ("SubBackward0", [
        (("AddBackward0", [
            (("AddBackward0", [
                (("SumBackward0", [(("MulBackward0", [(("AccumulateGrad", []), 0),
                                                      (("AccumulateGrad", []), 0)]), 0)]), 0),
                (("MeanBackward0", [(("ExpBackward0", [(("AccumulateGrad", []), 0)]), 0)]), 0)]),
             0),
            (("SelectBackward0", [(("MulBackward0", [(("AccumulateGrad", []), 0), (None, 0)]),
                                   0)]), 0)]), 0),
        (None, 0)])
    assert got[2] is None


def test_cat_stack_and_advanced_index_gradients():
    def fn(L):
        x = _leaf(L)
        y = L.cat([x, x * 2]).sum() + L.stack([x, x]).sum() + x[[0, 2, 2]].sum()
        y.backward()
        return x.grad
    assert _same(fn).tolist() == [6.0, 5.0, 7.0]


def test_reshape_records_a_view_node_as_torch():
    def fn(L):
        return _leaf(L).reshape(3, 1).grad_fn.name()
    assert _same(fn) == "ViewBackward0"


def test_operator_without_formula_returning_a_list_records_history():
    from pytensor.library import Library
    lib = Library("ag_list_fallback", "DEF")
    lib.define("halves(Tensor self) -> Tensor[]")
    lib.impl("halves", lambda t: [t[:1].clone(), t[1:].clone()], "CPU")
    x = _leaf(pytensor)
    a, b = pytensor.ops.ag_list_fallback.halves(x)  # no formula: the outputs still carry the graph
    assert a.requires_grad and b.requires_grad and a.grad_fn is b.grad_fn or a.grad_fn == b.grad_fn
    assert a.output_nr == 0 and b.output_nr == 1
    with pytest.raises(NotImplementedError, match="the derivative for 'ag_list_fallback::halves"):
        (a.sum() + b.sum()).backward()


def test_split_and_chunk_gradients():
    def fn(L):
        x = _leaf(L)
        a, b = x.split([1, 2])
        c = x.chunk(3)[2]
        (a * 2 + b.sum() + c * 5).sum().backward()
        return x.grad
    assert _same(fn).tolist() == [2.0, 1.0, 6.0]


def test_node_names_and_accumulate_grad_variable():
    for L in LIBS:
        x = _leaf(L)
        y = x * 2
        acc, nr = y.grad_fn.next_functions[0]
        assert acc.name().endswith("AccumulateGrad") and nr == 0
        assert acc.variable.data_ptr() == x.data_ptr()
        assert acc.next_functions == ()
        assert (x + x).grad_fn.name() == "AddBackward0"
        assert x.sum().grad_fn.name() == "SumBackward0"


def test_saved_values_on_nodes():
    def fn(L):
        x = _leaf(L)
        w = _leaf(L, (4.0, 5.0, 6.0))
        m = (x * w).grad_fn
        s = (x * w).sum().grad_fn
        e = x.exp().grad_fn
        mean = x.reshape(3, 1).mean(0).grad_fn
        return [m._saved_self, m._saved_other, s._saved_self_sym_sizes, e._saved_result,
                mean._saved_self_sym_sizes, m._saved_self.requires_grad]
    got = _same(fn)
    assert got[0].tolist() == [1.0, 2.0, 3.0] and got[2] == (3,) and got[4] == (3, 1)
    assert got[5] is True
    x = _leaf(pytensor)
    m = (x * 2.0).grad_fn
    assert m._saved_self is None or m._saved_self.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(AttributeError):
        m._saved_nothing_like_this


def test_saved_value_shares_storage_with_the_tensor():
    for L in LIBS:
        x = _leaf(L)
        m = (x * x).grad_fn
        assert m._saved_self.data_ptr() == x.data_ptr()


def test_saved_values_after_backward_are_freed():
    def fn(L):
        x = _leaf(L)
        y = x * x
        node = y.grad_fn
        y.sum().backward()
        node._saved_self
    _error(fn, RuntimeError, "Trying to backward through the graph a second time (or directly "
           "access saved tensors after they have already been freed).")


def test_node_equality_and_hash():
    for L in LIBS:
        x = _leaf(L)
        y = x * 2
        a, b = y.grad_fn, y.grad_fn
        assert a == b and hash(a) == hash(b) and len({a, b}) == 1
        assert a != (x * 2).grad_fn
        assert y.grad_fn.next_functions[0][0] == (x * 3).grad_fn.next_functions[0][0]
        assert "MulBackward0" in repr(a)


def test_node_keeps_its_graph_alive_not_the_output():
    gc.collect()
    gc.disable()
    try:
        x = pytensor.ones(10, requires_grad=True)
        y = (x * 2).exp()
        node = y.grad_fn
        yr = weakref.ref(y)
        del y
        assert yr() is None  # the node holds an alias of its saved result, not the tensor
        nxt = node.next_functions[0][0]
        assert nxt.name() == "MulBackward0"
    finally:
        gc.enable()
