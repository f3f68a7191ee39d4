"""Hooks in autograd: saved-tensor hooks (autograd.graph.saved_tensors_hooks, save_on_cpu,
disable_saved_tensors_hooks), hooks on graph nodes (grad_fn.register_hook / register_prehook)
and post-accumulate-grad hooks on leaves: when they run, in which order, what they may replace,
their errors, threads, and that what they hold is freed with the graph.

Each scenario is written once as a function of the library (`L` is pytensor or torch) and run on
both where torch is installed (values, call logs, exception types and texts compared); the
expected values written here keep the checks alive without torch."""
import gc
import threading
import weakref

import numpy as np
import pytest

import pytensor
from _torch_oracle import HAVE_TORCH, torch

LIBS = [pytensor, torch] if HAVE_TORCH else [pytensor]


def _graph(L):
    return L.autograd.graph


def _plain(v):
    """Nested tensors/tuples as lists of floats, for comparing across libraries."""
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if hasattr(v, "tolist"):
        return v.detach().tolist()
    return v


def _same(fn, expected=None):
    got = [_plain(fn(L)) for L in LIBS]
    for other in got[1:]:
        assert other == got[0], (got[0], other)
    if expected is not None:
        assert got[0] == _plain(expected), got[0]
    return got[0]


def _raises(fn, exc, text):
    for L in LIBS:
        with pytest.raises(exc) as info:
            fn(L)
        assert str(info.value) == text, (L.__name__, str(info.value))


def _xw(L):
    return (L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True),
            L.tensor([4.0, 5.0, 6.0], dtype=L.float64, requires_grad=True))


# ================================================================ saved-tensor hooks
def test_pack_runs_at_save_and_unpack_in_backward_with_grad_mode_off():
    def fn(L):
        log = []
        x, w = _xw(L)

        def pack(t):
            log.append(("pack", tuple(t.shape), t.requires_grad, L.is_grad_enabled()))
            return ("box", t.detach())

        def unpack(p):
            log.append(("unpack", L.is_grad_enabled()))
            return p[1]
        with _graph(L).saved_tensors_hooks(pack, unpack):
            y = x.exp()          # saves its result
            z = (y * w).sum()    # saves y and w
        packs = list(log)
        log.clear()
        z.backward()
        return packs, log, x.grad, w.grad
    e = np.exp([1.0, 2.0, 3.0])
    _same(fn, ([("pack", (3,), True, False)] * 3, [("unpack", False)] * 3,
               (e * [4.0, 5.0, 6.0]).tolist(), e.tolist()))


def test_unpack_result_is_what_backward_reads():
    def fn(L):
        x, w = _xw(L)
        with _graph(L).saved_tensors_hooks(lambda t: t.detach() * 2, lambda p: p):
            (x * w).sum().backward()
        return x.grad, w.grad
    _same(fn, ([8.0, 10.0, 12.0], [2.0, 4.0, 6.0]))


def test_innermost_pair_wins_and_leaving_restores_the_outer():
    def fn(L):
        log = []
        x, w = _xw(L)
        g = _graph(L)
        with g.saved_tensors_hooks(lambda t: log.append("outer") or t.detach(), lambda t: t):
            with g.saved_tensors_hooks(lambda t: log.append("inner") or t.detach(), lambda t: t):
                x * w
            x * w
        x * w
        return log
    _same(fn, ["inner", "inner", "outer", "outer"])


def test_no_version_check_through_hooks():
    def fn(L):
        x, w = _xw(L)
        a = x * 1
        with _graph(L).saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            b = a * w
        with L.no_grad():
            a.add_(10)
        b.sum().backward()
        return w.grad
    _same(fn, [1.0, 2.0, 3.0])


def test_saved_field_access_unpacks_and_has_the_history():
    def fn(L):
        log = []
        x, _ = _xw(L)
        with _graph(L).saved_tensors_hooks(lambda t: t.detach(),
                                            lambda t: log.append("unpack") or t):
            y = x.exp()
        r = y.grad_fn._saved_result
        return r.grad_fn.name(), log, r
    _same(fn, ("ExpBackward0", ["unpack"], np.exp([1.0, 2.0, 3.0]).tolist()))


def test_create_graph_through_hooks_gives_second_derivatives():
    def fn(L):
        x, w = _xw(L)
        with _graph(L).saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = (x * x * w).sum()
            gx, = L.autograd.grad(y, x, create_graph=True)
        gx.sum().backward()
        return gx, x.grad, w.grad
    _same(fn, ([8.0, 20.0, 36.0], [8.0, 10.0, 12.0], [2.0, 4.0, 6.0]))


def test_retain_graph_unpacks_again_and_a_second_backward_without_it_fails():
    def fn(L):
        count = [0]
        x, w = _xw(L)

        def unpack(t):
            count[0] += 1
            return t
        with _graph(L).saved_tensors_hooks(lambda t: t.detach(), unpack):
            z = (x * w).sum()
        z.backward(retain_graph=True)
        z.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            z.backward()
        return count[0], x.grad
    _same(fn, (4, [8.0, 10.0, 12.0]))


@pytest.mark.parametrize("result", [1, None, "t"])
def test_unpack_must_return_a_tensor(result):
    def fn(L):
        x, w = _xw(L)
        with _graph(L).saved_tensors_hooks(lambda t: 0, lambda p: result):
            z = (x * w).sum()
        z.backward()
    _raises(fn, TypeError, "Output of saved tensor unpack_hook expected to be a Tensor but got "
            f"result of type {type(result).__name__}")


def test_errors_raised_by_the_hooks_come_out_unchanged():
    def boom(t):
        raise ValueError("pack failed")

    def pack_fails(L):
        x, w = _xw(L)
        with _graph(L).saved_tensors_hooks(boom, lambda p: p):
            x * w
    _raises(pack_fails, ValueError, "pack failed")

    def unpack_fails(L):
        x, w = _xw(L)
        with _graph(L).saved_tensors_hooks(lambda t: t.detach(), lambda p: {}["missing"]):
            z = (x * w).sum()
        z.backward()
    _raises(unpack_fails, KeyError, "'missing'")


def test_disable_saved_tensors_hooks():
    def fn(L):
        g = _graph(L)
        out = []
        with g.disable_saved_tensors_hooks("not with this feature"):
            with pytest.raises(RuntimeError) as info:
                with g.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            out.append(str(info.value))
            with g.disable_saved_tensors_hooks("inner message"):
                with pytest.raises(RuntimeError) as info:
                    g.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
                out.append(str(info.value))
            with pytest.raises(RuntimeError) as info:  # the outer message is back
                g.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
            out.append(str(info.value))
        with g.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            with pytest.raises(RuntimeError) as info:
                with g.disable_saved_tensors_hooks("hooks already set"):
                    pass
            out.append(str(info.value))
        x, w = _xw(L)
        with g.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):  # enabled again
            (x * w).sum().backward()
        return out, x.grad
    _same(fn, (["not with this feature", "inner message", "not with this feature",
                "hooks already set"], [4.0, 5.0, 6.0]))


@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu_gives_the_same_gradients(pin_memory):
    def fn(L):
        x, w = _xw(L)
        with _graph(L).save_on_cpu(pin_memory=pin_memory):
            z = (x.exp() * w).sum()
        z.backward()
        return x.grad, w.grad
    e = np.exp([1.0, 2.0, 3.0])
    _same(fn, ((e * [4.0, 5.0, 6.0]).tolist(), e.tolist()))


def test_custom_function_save_for_backward_goes_through_the_hooks():
    def fn(L):
        log = []

        class Cube(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * x * x
                ctx.save_for_backward(x, y)
                return y

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return g * 3 * y / x
        x, _ = _xw(L)
        with _graph(L).saved_tensors_hooks(lambda t: log.append(("pack", t.tolist())) or
                                           t.detach(),
                                           lambda t: log.append("unpack") or t):
            out = Cube.apply(x)
        out.sum().backward()
        return log, x.grad
    _same(fn, ([("pack", [1.0, 2.0, 3.0]), ("pack", [1.0, 8.0, 27.0]), "unpack", "unpack"],
               [3.0, 12.0, 27.0]))


def test_custom_function_saved_inputs_keep_their_identity_without_hooks():
    class Same(pytensor.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            seen.append(x is leaf)
            return g * 2
    seen = []
    leaf = pytensor.ones(2, requires_grad=True)
    Same.apply(leaf).sum().backward()
    assert seen == [True] and leaf.grad.tolist() == [2.0, 2.0]


def test_saved_tensor_hooks_are_thread_local():
    packs = []
    seen = {}

    def other():
        x = pytensor.ones(2, requires_grad=True)
        (x * x).sum().backward()
        seen["grad"] = x.grad.tolist()

    with pytensor.autograd.graph.saved_tensors_hooks(lambda t: packs.append(1) or t.detach(),
                                                     lambda t: t):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert packs == [] and seen == {"grad": [2.0, 2.0]}


def test_packed_objects_die_with_backward_or_with_the_graph():
    alive = set()

    class Packed:
        def __init__(self, t):
            self.t = t.detach()
            alive.add(id(self))

        def __del__(self):
            alive.discard(id(self))
    g = pytensor.autograd.graph
    x = pytensor.ones(3, requires_grad=True)
    for _ in range(200):
        with g.saved_tensors_hooks(Packed, lambda p: p.t):
            z = (x.exp() * x).sum()
        assert len(alive) == 3
        z.backward()
        assert not alive  # freed by the backward that did not retain the graph
    for _ in range(200):
        with g.saved_tensors_hooks(Packed, lambda p: p.t):
            z = (x.exp() * x).sum()
        del z  # the graph goes without a backward
        assert not alive
    ref = weakref.ref(g.saved_tensors_hooks(Packed, lambda p: p.t))
    gc.collect()
    assert ref() is None


# ================================================================ graph-node hooks
def _fmt(gs):
    return [None if g is None else g.tolist() for g in gs]


def test_order_tensor_hook_retain_grad_prehooks_node_post_hooks():
    def fn(L):
        log = []
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y * 3
        y.grad_fn.register_prehook(lambda go: log.append(("pre1", _fmt(go))))
        y.register_hook(lambda g: log.append(("tensor", g.tolist())) or g * 2)
        y.retain_grad()
        y.grad_fn.register_prehook(lambda go: log.append(("pre2", _fmt(go))) or (go[0] + 1,))
        y.grad_fn.register_hook(lambda gi, go: log.append(("post", _fmt(gi), _fmt(go))))
        z.sum().backward()
        return log, y.grad, x.grad
    _same(fn, ([("tensor", [3.0, 3.0]), ("pre1", [[6.0, 6.0]]), ("pre2", [[6.0, 6.0]]),
                ("post", [[14.0, 14.0], None], [[7.0, 7.0]])], [6.0, 6.0], [14.0, 14.0]))


def test_hooks_replace_gradients():
    def fn(L):
        x, w = _xw(L)
        y = x * w
        y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2, None))
        y.sum().backward()
        return x.grad, w.grad  # None replaces w's gradient by none at all
    _same(fn, ([80.0, 100.0, 120.0], None))


def test_post_hook_sees_none_where_no_gradient_flows():
    def fn(L):
        log = []
        p = L.tensor([1.0, 2.0], requires_grad=True)
        q = p * L.tensor([3.0, 4.0])
        q.grad_fn.register_hook(lambda gi, go: log.append(_fmt(gi)))
        q.sum().backward()
        return log
    _same(fn, [[[3.0, 4.0], None]])


def test_hooks_run_in_autograd_grad_and_on_0d_and_broadcast_graphs():
    def fn(L):
        log = []
        a = L.tensor(2.0, requires_grad=True)
        b = L.tensor([[1.0], [2.0]], requires_grad=True)
        c = a * b + L.zeros(2, 3)
        node = c.grad_fn
        node.register_prehook(lambda go: log.append(tuple(go[0].shape)))
        node.register_hook(lambda gi, go: log.append([g if g is None else tuple(g.shape)
                                                      for g in gi]))
        ga, gb = L.autograd.grad(c.sum(), (a, b))
        return log, ga, gb
    _same(fn, ([(2, 3), [(2, 1), None]], 9.0, [[6.0], [6.0]]))


def test_handles_remove_hooks():
    def fn(L):
        log = []
        x, w = _xw(L)
        y = x * w
        h1 = y.grad_fn.register_hook(lambda gi, go: log.append("post"))
        h2 = y.grad_fn.register_prehook(lambda go: log.append("pre"))
        with y.grad_fn.register_prehook(lambda go: log.append("scoped")):
            pass
        h1.remove()
        h2.remove()
        h2.remove()  # twice is fine
        y.sum().backward()
        return log
    _same(fn, [])


def test_hooks_on_accumulate_grad_nodes():
    def fn(L):
        log = []
        x, w = _xw(L)
        y = x * w
        acc = y.grad_fn.next_functions[0][0]
        x.register_hook(lambda g: log.append(("tensor", g.tolist())) or g + 1)
        acc.register_prehook(lambda go: log.append(("pre", _fmt(go))))
        acc.register_hook(lambda gi, go: log.append(("post", _fmt(gi), _fmt(go), _fmt([x.grad]))))
        y.sum().backward()
        return log
    _same(fn, [("tensor", [4.0, 5.0, 6.0]), ("pre", [[5.0, 6.0, 7.0]]),
               ("post", [], [[5.0, 6.0, 7.0]], [[5.0, 6.0, 7.0]])])


@pytest.mark.parametrize("case", ["post_count", "pre_count", "not_tuple", "list", "non_tensor",
                                  "size", "dtype"])
def test_wrong_hook_results(case):
    def fn(L):
        x, w = _xw(L)
        y = x * w
        f = y.grad_fn
        {"post_count": lambda: f.register_hook(lambda gi, go: (gi[0],)),
         "pre_count": lambda: f.register_prehook(lambda go: (go[0], go[0])),
         "not_tuple": lambda: f.register_prehook(lambda go: 5),
         "list": lambda: f.register_hook(lambda gi, go: [gi[0], gi[1]]),
         "non_tensor": lambda: f.register_hook(lambda gi, go: (1, 2)),
         "size": lambda: f.register_hook(lambda gi, go: (L.ones(4, dtype=L.float64), None)),
         "dtype": lambda: f.register_hook(lambda gi, go: (gi[0].float(), None))}[case]()
        y.sum().backward()
    expected = {
        "post_count": (RuntimeError, "hook '<lambda>' has returned an incorrect number of values "
                       "(got 1, but expected 2)"),
        "pre_count": (RuntimeError, "hook '<lambda>' has returned an incorrect number of values "
                      "(got 2, but expected 1)"),
        "not_tuple": (TypeError, "expected tuple, but hook returned 'int'"),
        "list": (TypeError, "expected tuple, but hook returned 'list'"),
        "non_tensor": (TypeError, "expected Variable, but hook returned 'int'"),
        "size": (RuntimeError, "hook '<lambda>' has changed the size of value"),
        "dtype": (RuntimeError, "hook '<lambda>' has changed the type of value (was "
                  "{L}.DoubleTensor got {L}.FloatTensor)"),
    }[case]
    for L in LIBS:
        with pytest.raises(expected[0]) as info:
            fn(L)
        assert str(info.value) == expected[1].format(L=L.__name__)


def test_a_hook_that_raises_stops_backward_with_its_exception():
    def fn(L):
        x, w = _xw(L)
        y = x * w
        y.grad_fn.register_hook(lambda gi, go: 1 / 0)
        y.sum().backward()
    _raises(fn, ZeroDivisionError, "division by zero")


def test_node_hooks_are_freed_with_the_graph():
    class Big:
        pass
    refs = []
    x = pytensor.ones(3, requires_grad=True)
    for _ in range(100):
        big = Big()
        refs.append(weakref.ref(big))
        y = x * 2
        y.grad_fn.register_hook(lambda gi, go, big=big: None)
        y.grad_fn.register_prehook(lambda go, big=big: None)
        del big, y
    gc.collect()
    assert all(r() is None for r in refs)


# ================================================================ post-accumulate-grad hooks
def test_post_accumulate_grad_hook_sees_the_leaf_after_accumulation():
    def fn(L):
        log = []
        x, w = _xw(L)
        x.grad = L.ones(3, dtype=L.float64)
        h = x.register_post_accumulate_grad_hook(lambda t: log.append((t is x, t.grad.tolist())))
        (x * w).sum().backward()
        h.remove()
        (x * w).sum().backward()
        return log, x.grad
    _same(fn, ([(True, [5.0, 6.0, 7.0])], [9.0, 11.0, 13.0]))


def test_post_accumulate_grad_hook_errors():
    def non_leaf(L):
        x, w = _xw(L)
        (x * w).register_post_accumulate_grad_hook(lambda t: None)
    _raises(non_leaf, RuntimeError, "post accumulate grad hooks cannot be registered on non-leaf "
            "tensors")

    def no_grad(L):
        L.ones(2).register_post_accumulate_grad_hook(lambda t: None)
    _raises(no_grad, RuntimeError, "cannot register a hook on a tensor that doesn't require "
            "gradient")

    def returns(L):
        x, w = _xw(L)
        x.register_post_accumulate_grad_hook(lambda t: 5)
        (x * w).sum().backward()
    _raises(returns, TypeError, "expected Variable, but hook returned 'int'")


def test_post_accumulate_grad_hook_can_update_the_leaf_in_place():
    # the optimizer-in-backward pattern torch documents for these hooks
    def fn(L):
        x, w = _xw(L)

        def step(t):
            with L.no_grad():
                t.sub_(0.5 * t.grad)
            t.grad = None
        x.register_post_accumulate_grad_hook(step)
        (x * w).sum().backward()
        return x, x.grad
    _same(fn, ([-1.0, -0.5, 0.0], None))


# ================================================================ threads
def test_hooks_on_graphs_of_several_threads():
    results = {}
    errors = []

    def work(k):
        try:
            for _ in range(20):
                x = pytensor.full((4,), float(k), requires_grad=True)
                with pytensor.autograd.graph.saved_tensors_hooks(lambda t: t.detach(),
                                                                 lambda t: t):
                    y = x * x
                y.grad_fn.register_prehook(lambda go: (go[0] * k,))
                y.sum().backward()
            results[k] = x.grad.tolist()
        except BaseException as e:  # noqa: B036 - reported by the main thread
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in (1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == {k: [2.0 * k * k] * 4 for k in (1, 2, 3)}


def test_hooks_of_a_multi_output_node_see_undefined_gradients_as_none():
    def fn(L):
        log = []

        class Two(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                log.append(("backward", _fmt([ga, gb])))  # materialized: zeros for gb
                return ga * 2 + gb * 3
        x = L.tensor([1.0, 2.0], requires_grad=True)
        a, b = Two.apply(x)
        a.grad_fn.register_prehook(lambda go: log.append(("pre", _fmt(go))))
        a.grad_fn.register_hook(lambda gi, go: log.append(("post", _fmt(gi), _fmt(go))))
        a.sum().backward()
        return log, x.grad
    _same(fn, ([("pre", [[1.0, 1.0], None]), ("backward", [[1.0, 1.0], [0.0, 0.0]]),
                ("post", [[2.0, 2.0]], [[1.0, 1.0], None])], [2.0, 2.0]))


# ---------------------------------------------------------------- autograd.grad and tensor hooks
# Note [hooks of captured gradients] in csrc/autograd/engine.c.
def test_grad_of_a_leaf_applies_its_hooks_in_order_each_seeing_the_last_result():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: g * 2)
        x.register_hook(lambda g: seen.append(g.tolist()))  # None keeps the gradient
        x.register_hook(lambda g: g + 1)
        g, = L.autograd.grad((x * 3).sum(), x)
        return g, seen, x.grad is None
    _same(fn, ([7.0, 7.0], [[6.0, 6.0]], True))


def test_grad_of_a_leaf_runs_its_hooks_once_on_the_summed_gradient():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        seen = []

        def hook(g):
            seen.append(g.tolist())
            return g * 2
        x.register_hook(hook)
        g, = L.autograd.grad((x * 3).sum() + (x * 4).sum(), x)
        return g, seen
    _same(fn, ([14.0, 14.0], [[7.0, 7.0]]))


def test_grad_leaves_accumulation_and_post_accumulate_hooks_alone():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        calls = []
        x.register_post_accumulate_grad_hook(lambda t: calls.append("post"))
        x.register_hook(lambda g: g * 2)
        g, = L.autograd.grad((x * 3).sum(), x)
        return g, calls, x.grad is None
    _same(fn, ([6.0, 6.0], [], True))


def test_grad_applies_hooks_per_input_and_removed_hooks_do_not_run():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([1.0, 1.0], requires_grad=True)
        x.register_hook(lambda g: g * 2)
        w.register_hook(lambda g: g * 10).remove()
        gx, gw = L.autograd.grad((x * w * 3).sum(), [x, w])
        gx2, gx3 = L.autograd.grad((x * 3).sum(), [x, x])
        out, = L.autograd.grad(x, x, grad_outputs=L.ones(2))
        return gx, gw, gx2, gx3, out
    _same(fn, ([6.0, 6.0], [3.0, 6.0], [6.0, 6.0], [6.0, 6.0], [2.0, 2.0]))


def test_grad_with_create_graph_returns_the_hooked_gradient_with_history():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 2)
        g, = L.autograd.grad((x * x).sum(), x, create_graph=True)
        gg, = L.autograd.grad(g.sum(), x)
        return g, g.grad_fn is not None, gg
    _same(fn, ([4.0, 8.0], True, [8.0, 8.0]))  # the second grad goes through the hook too


def test_grad_of_a_non_leaf_applies_its_hooks_and_retain_grad_unless_its_node_runs():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        h = x * 2
        h.retain_grad()
        h.register_hook(lambda g: g * 5)
        g, = L.autograd.grad((h * 3).sum(), h)
        retained = h.grad
        # h's node runs to reach x: h's gradient comes as it arrived, x's through the hook
        k = x * 2
        k.register_hook(lambda g: g * 5)
        gk, gx = L.autograd.grad((k * 3).sum(), [k, x])
        return g, retained, gk, gx
    _same(fn, ([15.0, 15.0], [15.0, 15.0], [3.0, 3.0], [30.0, 30.0]))


def test_backward_with_inputs_fills_the_hooked_gradient_and_retains_non_leaf_inputs():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        h = x * 2
        h.register_hook(lambda g: g * 5)
        (h * 3).sum().backward(inputs=[h])
        leaf = L.tensor([1.0, 2.0], requires_grad=True)
        leaf.register_hook(lambda g: g * 5)
        (leaf * 3).sum().backward(inputs=[leaf])
        k = x * 2
        k.retain_grad()
        k.register_hook(lambda g: g * 5)
        (k * 3).sum().backward(inputs=[k])
        return h.grad, h.retains_grad, x.grad is None, leaf.grad, k.grad
    _same(fn, ([15.0, 15.0], True, True, [15.0, 15.0], [15.0, 15.0]))
