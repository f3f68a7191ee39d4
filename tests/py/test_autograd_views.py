"""In-place operations on views under autograd: views know their root base, a write into a view
gives the base a CopySlices node, a view read after its base (or a sibling) changed regenerates
its history as AsStridedBackward0, and torch's errors for views that may not be written in place.

Each scenario is written once as a function of the library (`L` is pytensor or torch). It runs on
pytensor against the exact values written here, and, where torch is installed, on torch too, so
that gradients, node names and message texts are torch's own."""
import gc
import weakref

import numpy as np
import pytest

import pytensor
from _torch_oracle import HAVE_TORCH, torch

LIBS = [pytensor, torch] if HAVE_TORCH else [pytensor]


def _np(t):
    return np.array(t.detach().tolist())


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
        assert a == b, (a, b)
    elif hasattr(a, "tolist"):
        assert hasattr(b, "tolist"), (a, b)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def _error(fn, *parts):
    """fn(L) raises RuntimeError with every one of `parts` in its message, on both libraries."""
    for L in LIBS:
        with pytest.raises(RuntimeError) as info:
            fn(L)
        for p in parts:
            assert p in str(info.value), f"{L.__name__}: {p!r} not in {str(info.value)!r}"


W = [[1.0, -2.0, 0.5, 3.0], [0.25, 4.0, -1.0, 2.0], [-3.0, 1.5, 2.0, -0.5]]


def _w(L, values=W):
    return L.tensor(values, dtype=L.float64, requires_grad=True)


def _node(n):
    return n.name().rsplit("::", 1)[-1]  # torch writes torch::autograd::CopySlices


def _name(t):
    return _node(t.grad_fn)


# ================================================================ 1. tracking
def test_views_know_their_root_base_and_detach_is_no_view():
    def fn(L):
        x = _w(L).clone()
        v = x[1:]
        vv = v[:, 2]
        d = x.detach()
        return (v._is_view(), vv._is_view(), vv._base.data_ptr() == x.data_ptr(),
                vv._base.shape == x.shape, x._is_view(), x._base is None, d._is_view(),
                d._base is None, x.t()._base.shape == x.shape)
    assert _same(fn) == (True, True, True, True, False, True, False, True, True)


def test_a_copying_reshape_is_no_view():
    def fn(L):
        x = L.arange(6.0).reshape(2, 3)
        return x.t().reshape(-1)._is_view(), x.reshape(3, 2)._is_view()
    assert _same(fn) == (False, True)


def test_a_view_of_a_base_that_requires_grad_requires_grad_even_under_no_grad():
    def fn(L):
        w = _w(L)
        with L.no_grad():
            v = w[0]
        return v.requires_grad, v.grad_fn is None, v.is_leaf, v._is_view()
    assert _same(fn) == (True, True, True, True)


def test_a_view_of_a_plain_tensor_needs_no_grad_until_its_base_gets_a_history():
    def fn(L):
        x = L.zeros(3, dtype=L.float64)
        v = x[1:]
        before = v.requires_grad
        x.add_(L.tensor(1.0, dtype=L.float64, requires_grad=True))
        return before, v.requires_grad, _name(v), _name(x)
    assert _same(fn) == (False, True, "AsStridedBackward0", "AddBackward0")


# ================================================================ 2. CopySlices
@pytest.mark.parametrize("write", ["setitem_row", "col_mul", "narrow_copy", "t_add", "zero",
                                   "fill_number", "index_put", "mask", "view_reshape",
                                   "diagonal_zero", "diagonal_offset"])
def test_writes_into_views_give_torchs_gradients(write):
    def fn(L):
        w = _w(L)
        y = L.tensor([0.5, -1.0, 2.0, 1.5], dtype=L.float64, requires_grad=True)
        x = w.clone()
        if write == "setitem_row":
            x[0] = y * y
        elif write == "col_mul":
            x[:, 1] *= 2
        elif write == "narrow_copy":
            x.narrow(1, 1, 2).copy_(y.reshape(2, 2)[0].unsqueeze(0).expand(3, 2) * 3)
        elif write == "t_add":
            x.t().add_(y.unsqueeze(1) * x.t().detach().clone())
        elif write == "zero":
            x[:, 1:3].zero_()
        elif write == "fill_number":
            x[1, 2] = 5.0
        elif write == "index_put":
            x[1:, L.tensor([0, 3])] = y[:2]
        elif write == "mask":
            x[x > 0] = 0
        elif write == "view_reshape":
            x.view(2, 6)[1, ::2].mul_(y[:3])
        elif write == "diagonal_zero":
            x.diagonal().zero_()
        elif write == "diagonal_offset":
            x.diagonal(1).add_(y[:3] * y[1:])
        out = (x * x * L.arange(12, dtype=L.float64).reshape(3, 4)).sum()
        out.backward()
        return _name(x), w.grad, y.grad, x
    name, gw, gy, x = _same(fn)
    assert name == ("IndexPutBackward0" if write == "mask" else "CopySlices")
    k = np.arange(12.0).reshape(3, 4)
    w = np.array(W)
    if write == "col_mul":  # exact: x = w with column 1 doubled
        scale = np.ones((3, 4))
        scale[:, 1] = 2
        np.testing.assert_array_equal(_np(gw), 2 * w * scale * scale * k)
        assert gy is None
    if write == "diagonal_zero":
        want = 2 * w * k
        want[[0, 1, 2], [0, 1, 2]] = 0
        np.testing.assert_array_equal(_np(gw), want)
    if write == "zero":
        want = 2 * w * k
        want[:, 1:3] = 0
        np.testing.assert_array_equal(_np(gw), want)


def test_diagonal_is_a_view_with_torchs_geometry_gradient_and_errors():
    def fn(L):
        x = L.arange(24.0, dtype=L.float64).reshape(2, 3, 4).requires_grad_()
        out = []
        for args in [(0, 0, 1), (1, 2, 0), (-1, 1, 2), (5, 0, 1), (-5, 1, 2), (2, -1, -2)]:
            d = x.diagonal(*args)
            out.append((tuple(d.shape), d.stride(), d.storage_offset(), d.tolist(), _name(d),
                        d._is_view()))
        d = L.diagonal(x, 1, 2, 0)
        (d * d).sum().backward()
        e = L.zeros(0, 3).diagonal()
        return out, x.grad, tuple(e.shape)
    out, g, e = _same(fn)
    assert out[0][:3] == ((4, 2), (1, 16), 0) and out[0][4] == "DiagonalBackward0"
    assert e == (0,)
    for L in LIBS:
        with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 1, -1"):
            L.zeros(2, 3).diagonal(0, 1, -1)
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range "
                           r"of \[-2, 1\], but got 2\)"):
            L.zeros(2, 3).diagonal(0, 0, 2)


def test_a_plain_base_written_through_a_view_gets_the_history():
    def fn(L):
        y = L.tensor([1.0, 2.0, 3.0, 4.0], dtype=L.float64, requires_grad=True)
        x = L.zeros(3, 4, dtype=L.float64)
        x[1] = y
        (x * x).sum().backward()
        return _name(x), x.requires_grad, x.is_leaf, y.grad
    name, rg, leaf, gy = _same(fn)
    assert (name, rg, leaf) == ("CopySlices", True, False)
    assert gy.tolist() == [2.0, 4.0, 6.0, 8.0]


def test_node_names_and_edges_match_torch():
    def fn(L):
        x = _w(L).clone()
        v = x[0]
        v.mul_(2)
        cs = x.grad_fn
        first = cs.next_functions[0][0]
        x2 = _w(L).clone()
        s = x2[1:3]
        s.add_(1)
        return (_name(v), _node(v.grad_fn.next_functions[0][0]), _node(cs), _node(first),
                len(cs.next_functions), _name(s), _name(x2))
    assert _same(fn) == ("AsStridedBackward0", "CopySlices", "CopySlices", "CloneBackward0", 2,
                         "AsStridedBackward0", "CopySlices")


def test_in_place_on_a_view_of_a_view_and_chains_of_views():
    def fn(L):
        w = _w(L)
        y = L.tensor([2.0, -1.0, 3.0], dtype=L.float64, requires_grad=True)
        x = w.clone()
        v = x[1:]
        vv = v[:, 2]
        vv.mul_(y[1:])
        x.t()[1:3, ::2].add_(y[:2].unsqueeze(1))
        (x * x).sum().backward()
        return _name(x), _name(vv), _name(v), w.grad, y.grad
    name, n_vv, n_v, gw, gy = _same(fn)
    assert (name, n_vv, n_v) == ("CopySlices", "AsStridedBackward0", "AsStridedBackward0")


def test_several_in_place_ops_on_different_views_of_one_base():
    def fn(L):
        w = _w(L)
        y = L.tensor([0.5, 1.0, -2.0, 3.0], dtype=L.float64, requires_grad=True)
        z = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        x = w.clone()
        x[0].mul_(y)
        x[1].add_(x[0] * 2)
        x[:, 2].copy_(z * z)
        x[2, 1:3] *= 4
        (x * x).sum().backward()
        return w.grad, y.grad, z.grad
    gw, gy, gz = _same(fn)
    # x[:, 2] = z * z is all of column 2: w's column 2 gets nothing, z gets 4 z^3
    assert _np(gw)[:, 2].tolist() == [0.0, 0.0, 0.0]
    assert gz.tolist()[:2] == [4.0, 32.0]


def test_views_read_after_their_base_or_a_sibling_changed_get_a_new_history():
    def fn(L):
        w = _w(L)
        x = w.clone()
        v = x[0]
        sib1, sib2 = x[0:2], x[1:3]
        x.mul_(2)
        n1 = _name(v)
        sib1.mul_(w[0:2].detach())
        n2 = _name(sib2)
        (v * 3).sum().backward(retain_graph=True)
        g1 = w.grad.clone()
        w.grad = None
        (sib2 * sib2).sum().backward()
        return n1, n2, g1, w.grad
    n1, n2, g1, g2 = _same(fn)
    assert (n1, n2) == ("AsStridedBackward0", "AsStridedBackward0")
    # v = 2 * w[0] * w[0] (the second factor detached)
    assert _np(g1).tolist() == [[6.0, -12.0, 3.0, 18.0], [0.0] * 4, [0.0] * 4]


def test_expanded_and_overlapping_geometries_sum_their_gradients():
    def fn(L):
        w = L.tensor([1.0, 2.0, 3.0, 4.0], dtype=L.float64, requires_grad=True)
        x = w.clone()
        v = x.unsqueeze(0).expand(3, 4)
        u = x.unfold(0, 2, 1)  # windows overlap: each inner element is in two
        x.mul_(2)
        k = L.arange(12, dtype=L.float64).reshape(3, 4)
        (v * k).sum().backward(retain_graph=True)
        g1 = w.grad.clone()
        w.grad = None
        (u * u).sum().backward()
        return _name(v), _name(u), g1, w.grad
    nv, nu, g1, g2 = _same(fn)
    assert (nv, nu) == ("AsStridedBackward0", "AsStridedBackward0")
    assert g1.tolist() == [24.0, 30.0, 36.0, 42.0]  # 2 * column sums of k
    assert g2.tolist() == [8.0, 32.0, 48.0, 32.0]  # 8 w, twice for the shared ones


def test_double_backward_through_copy_slices():
    def fn(L):
        w = _w(L)
        y = L.tensor([0.5, -1.0, 2.0, 1.5], dtype=L.float64, requires_grad=True)
        x = w.clone()
        x[0] = y * y
        x[1:, 1:3] *= 3
        gw, gy = L.autograd.grad((x ** 3).sum(), (w, y), create_graph=True)
        ((gw * gw).sum() + (gy * gy).sum()).backward()
        return gw, gy, w.grad, y.grad
    gw, gy, gww, gyy = _same(fn)
    y = np.array([0.5, -1.0, 2.0, 1.5])
    np.testing.assert_allclose(_np(gy), 6 * y ** 5)  # d/dy (y^2)^3


def test_retain_graph_runs_copy_slices_twice_and_without_it_refuses():
    def fn(L):
        w = _w(L)
        x = w.clone()
        x[1] *= 3
        s = (x * x).sum()
        s.backward(retain_graph=True)
        s.backward()
        twice = w.grad
        w2 = _w(L)
        x2 = w2.clone()
        x2[1] *= 3
        s2 = (x2 * x2).sum()
        s2.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                           "time"):
            s2.backward()
        return twice, w2.grad
    twice, once = _same(fn)
    np.testing.assert_array_equal(_np(twice), 2 * _np(once))
    assert _np(once)[1].tolist() == [4.5, 72.0, -18.0, 36.0]  # 2 * 9 * w[1]


def test_an_op_that_only_the_other_input_makes_differentiable():
    def fn(L):
        x = L.ones(2, 3, dtype=L.float64)
        y = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        x[1].mul_(y)
        x[0].add_(x[1])
        (x * x).sum().backward()
        return x, y.grad
    x, gy = _same(fn)
    assert gy.tolist() == [6.0, 10.0, 14.0]  # x = [[1 + y], [y]]: 2(1 + y) + 2y


def test_zero_d_and_empty_views():
    def fn(L):
        w = _w(L)
        x = w.clone()
        x[1, 2].mul_(10)  # a 0-d view
        e = x[:, 4:]      # an empty one
        e.mul_(2)
        (x * x).sum().backward()
        return _name(x), w.grad
    name, g = _same(fn)
    assert name == "CopySlices" and _np(g)[1, 2] == 2 * 100 * -1.0


# ================================================================ 3. errors
def test_in_place_on_a_view_of_a_leaf_is_refused():
    _error(lambda L: _w(L)[0].mul_(2), "a view of a leaf Variable that requires grad is being "
           "used in an in-place operation.")
    _error(lambda L: _w(L).mul_(2), "a leaf Variable that requires grad is being used in an "
           "in-place operation.")


NO_GRAD_TAIL = (" Given that this use case is ambiguous and error-prone, it is forbidden. You can "
                "clarify your code by moving both the view and the inplace either both inside the "
                "no_grad block (if you don't want the inplace to be tracked) or both outside (if "
                "you want the inplace to be tracked).")


def test_a_view_made_under_no_grad_may_not_be_written_with_grad_on():
    def direct(L):
        x = _w(L).clone()
        with L.no_grad():
            v = x[0]
        v.mul_(2)

    def indirect(L):
        x = _w(L).clone()
        with L.no_grad():
            v = x[0]
        x.mul_(2)
        v.grad_fn
    _error(direct, "A view was created in no_grad mode and is being modified inplace with grad "
           "mode enabled." + NO_GRAD_TAIL)
    _error(indirect, "A view was created in no_grad mode and its base or another view of its base "
           "has been modified inplace with grad mode enabled." + NO_GRAD_TAIL)

    def both_inside(L):
        x = _w(L).clone()
        with L.no_grad():
            v = x[0]
            v.mul_(2)
        return _name(x), x.requires_grad
    assert _same(both_inside) == ("CloneBackward0", True)


MULTI_TAIL = (" This view is the output of a function that returns multiple views. Such functions "
              "do not allow the output views to be modified inplace. You should replace the "
              "inplace operation by an out-of-place one.")


@pytest.mark.parametrize("how", ["split", "chunk", "split_sizes"])
def test_views_from_a_function_returning_several_may_not_be_written(how):
    def pieces(L):
        x = _w(L).clone()
        return x, (x.split(2) if how == "split" else x.chunk(2) if how == "chunk"
                   else x.split([1, 2]))

    def direct(L):
        pieces(L)[1][1].mul_(2)

    def indirect(L):
        x, p = pieces(L)
        x.mul_(2)
        p[0].grad_fn
    node = "SplitWithSizes" if how == "split_sizes" else "Split"
    _error(direct, f"Output 1 of {node} is a view and is being modified inplace." + MULTI_TAIL)
    _error(indirect, f"Output 0 of {node} is a view and its base or another view of its base has "
           "been modified inplace." + MULTI_TAIL)


def test_a_view_made_in_inference_mode_may_not_be_written_in_normal_mode():
    def write(L):
        x = _w(L).clone()
        with L.inference_mode():
            v = x[0]
        v.mul_(2)
    _error(write, "A view was created in inference mode and is being modified inplace in normal "
           "mode. Given that this use case is ambiguous and error-prone, it is forbidden.")


CUSTOM_TAIL = (" This view was created inside a custom Function (or because an input was returned "
               "as-is) and the autograd logic to handle view+inplace would override the custom "
               "backward associated with the custom Function, leading to incorrect gradients. "
               "This behavior is forbidden. You can fix this by cloning the output of the custom "
               "Function.")


def test_views_returned_by_a_custom_function_may_not_be_written():
    def make(L, as_is):
        class Pick(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x if as_is else x[0]

            @staticmethod
            def backward(ctx, g):
                return g if as_is else None
        return Pick

    def run(L, as_is):
        x = _w(L).clone()
        out = make(L, as_is).apply(x)
        assert out._is_view() and out._base.data_ptr() == x.data_ptr()
        out.mul_(2)
    _error(lambda L: run(L, False), "Output 0 of Pick is a view and is being modified inplace."
           + CUSTOM_TAIL)
    _error(lambda L: run(L, True), "Output 0 of Pick is a view and is being modified inplace."
           + CUSTOM_TAIL)


def test_a_custom_function_writing_a_view_in_place_rebases_the_base():
    def fn(L):
        class Double(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        w = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
        x = w.clone()
        v = x[0]
        r = Double.apply(v)
        (x * x).sum().backward()
        return r is v, _name(v), _name(x), w.grad
    same, nv, nx, g = _same(fn)
    assert (same, nv, nx) == (True, "AsStridedBackward0", "CopySlices")
    assert g.tolist() == [[8.0, 16.0], [6.0, 8.0]]


def test_hooks_and_retain_grad_stay_with_the_history_a_write_replaced():
    def fn(L):
        w = _w(L)
        x = w.clone()
        v = x[0]
        v.retain_grad()
        seen = []
        v.register_hook(lambda g: seen.append(1))
        v.mul_(3)
        (x * x).sum().backward()
        return v.grad is None, seen, w.grad
    none, seen, g = _same(fn)
    assert none and seen == []


def test_detach_results_may_be_written_and_saved_variables_see_it():
    def allowed(L):
        w = _w(L)
        x = w.clone()
        y = x * 2  # saves nothing of x
        d = x.detach()
        d.add_(1)
        y.sum().backward()
        return d._is_view(), x._version, w.grad
    assert _same(allowed)[:2] == (False, 1)

    def refused(L):
        x = _w(L).clone()
        y = x * x
        x.detach().add_(1)
        y.sum().backward()
    _error(refused, "one of the variables needed for gradient computation has been modified by an "
           "inplace operation", "is at version 1; expected version 0 instead.")


# ================================================================ 4. memory
def _bytes_in_use():
    return pytensor._C._allocator_stats("cpu")["bytes_in_use"] \
        if hasattr(pytensor._C, "_allocator_stats") else None


def test_base_view_links_and_copy_slices_make_no_cycle():
    gc.collect()
    gc.disable()
    try:
        w = pytensor.ones(1000, dtype=pytensor.float64, requires_grad=True)
        x = w.clone()
        v = x[100:200]
        v.mul_(3)
        x[0] = w[1] * 2
        out = (x * x).sum()
        node = weakref.ref(x.grad_fn)
        xr, vr, outr = weakref.ref(x), weakref.ref(v), weakref.ref(out)
        del x, v, out
        assert xr() is None and vr() is None and outr() is None
        assert node() is None
        # with a backward in between
        x = w.clone()
        v = x[3:]
        v.add_(w[:-3])
        s = x.sum()
        s.backward()
        node = weakref.ref(x.grad_fn)
        xr = weakref.ref(x)
        del x, v, s
        assert xr() is None and node() is None
        assert w.grad[:4].tolist() == [2.0] * 4 and w.grad[-3:].tolist() == [1.0] * 3
        wr = weakref.ref(w)
        del w
        assert wr() is None
    finally:
        gc.enable()


def test_the_base_lives_as_long_as_its_views():
    gc.collect()
    gc.disable()
    try:
        x = pytensor.arange(6.0)
        v = x[2:]
        del x
        b = v._base
        assert b.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        b[3] = 30.0
        assert v.tolist() == [2.0, 30.0, 4.0, 5.0]
    finally:
        gc.enable()
