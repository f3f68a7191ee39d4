"""Inference mode and inference tensors (torch.inference_mode, Tensor.is_inference): the mode as
context manager and decorator, which tensors are inference tensors, and torch's errors when one
meets autograd outside inference mode.

Each scenario is written once as a function of the library (`L` is pytensor or torch) and run on
both where torch is installed, so values, exception types and message texts are torch's; the
expected values written here keep the checks alive without torch."""
import threading

import numpy as np
import pytest

import pytensor
from _torch_oracle import HAVE_TORCH, torch

LIBS = [pytensor, torch] if HAVE_TORCH else [pytensor]

INPLACE_MSG = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can "
               "make a clone to get a normal tensor before doing inplace update.See "
               "https://github.com/pytorch/rfcs/pull/17 for more details.")
SAVE_MSG = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in "
            "inference mode in computation tracked by autograd. To work around this, you can make "
            "a clone to get a normal tensor and use it in autograd, or use `{L}.no_grad()` "
            "instead of `{L}.inference_mode()`.")
VERSION_MSG = "Inference tensors do not track version counter."
REQUIRES_GRAD_MSG = ("Setting requires_grad=True on inference tensor outside InferenceMode is not "
                     "allowed.")


def _name(L):
    return L.__name__


def _same(fn, expected=None):
    """fn(L) gives equal values on every library (and `expected` when given)."""
    got = [fn(L) for L in LIBS]
    for other in got[1:]:
        assert other == got[0], (got[0], other)
    if expected is not None:
        assert got[0] == expected
    return got[0]


def _raises(fn, exc, text):
    """fn(L) raises exc with exactly `text` (formatted with L's name) on every library."""
    for L in LIBS:
        with pytest.raises(exc) as info:
            fn(L)
        assert str(info.value) == text.format(L=_name(L)), (_name(L), str(info.value))


@pytest.fixture(autouse=True)
def _modes_restored():
    yield
    assert not pytensor.is_inference_mode_enabled() and pytensor.is_grad_enabled()


# ================================================================ the mode
def test_context_manager_turns_grad_off_and_restores_both_modes():
    def fn(L):
        seen = [(L.is_inference_mode_enabled(), L.is_grad_enabled())]
        with L.inference_mode():
            seen.append((L.is_inference_mode_enabled(), L.is_grad_enabled()))
            with L.inference_mode(False):
                seen.append((L.is_inference_mode_enabled(), L.is_grad_enabled()))
            seen.append((L.is_inference_mode_enabled(), L.is_grad_enabled()))
        with L.no_grad():
            with L.inference_mode(False):  # off means grad mode on, as c10's guard
                seen.append((L.is_inference_mode_enabled(), L.is_grad_enabled()))
            seen.append((L.is_inference_mode_enabled(), L.is_grad_enabled()))
        seen.append((L.is_inference_mode_enabled(), L.is_grad_enabled()))
        return seen
    _same(fn, [(False, True), (True, False), (False, True), (True, False), (False, True),
               (False, False), (False, True)])


def test_decorators_with_and_without_parentheses_and_on_generators():
    def fn(L):
        @L.inference_mode
        def bare():
            return L.is_inference_mode_enabled(), L.ones(1).is_inference()

        @L.inference_mode()
        def called():
            return L.is_inference_mode_enabled(), L.ones(1).is_inference()

        @L.inference_mode(False)
        def off():
            return L.is_inference_mode_enabled(), L.is_grad_enabled(), L.ones(1).is_inference()

        @L.inference_mode()
        def gen():
            yield L.is_inference_mode_enabled()
            yield L.ones(1).is_inference()

        with L.inference_mode():
            inner_off = off()
        return bare(), called(), inner_off, list(gen()), L.is_inference_mode_enabled()
    _same(fn, ((True, True), (True, True), (False, True, False), [True, True], False))


def test_an_exception_inside_restores_the_modes():
    def fn(L):
        with pytest.raises(KeyError):
            with L.inference_mode():
                raise KeyError("inside")
        return L.is_inference_mode_enabled(), L.is_grad_enabled()
    _same(fn, (False, True))


def test_no_history_is_recorded_inside():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with L.inference_mode():
            y = x * 2
            z = x.exp()
        return y.requires_grad, y.grad_fn is None, z.requires_grad, y.is_inference()
    _same(fn, (False, True, False, True))


def test_mode_is_thread_local():
    seen = {}

    def other():
        seen["mode"] = pytensor.is_inference_mode_enabled()
        seen["tensor"] = pytensor.ones(2).is_inference()
        with pytensor.inference_mode():
            seen["inside"] = pytensor.ones(2).is_inference()

    with pytensor.inference_mode():
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert pytensor.ones(1).is_inference()
    assert seen == {"mode": False, "tensor": False, "inside": True}
    assert not pytensor.ones(1).is_inference()


# ================================================================ inference tensors
@pytest.mark.parametrize("make", ["ones", "zeros0d", "empty", "arange", "tensor", "int",
                                  "from_op"])
def test_tensors_made_inside_are_inference_tensors(make):
    def fn(L):
        base = L.arange(6.0).reshape(2, 3)

        def build():
            return {"ones": lambda: L.ones(2, 3), "zeros0d": lambda: L.zeros(()),
                    "empty": lambda: L.empty(0, 4), "arange": lambda: L.arange(5),
                    "tensor": lambda: L.tensor([[1.0, 2.0]]),
                    "int": lambda: L.ones(3, dtype=L.int32),
                    "from_op": lambda: base.t() + 1}[make]()
        with L.inference_mode():
            inside = build()
        outside = build()
        return inside.is_inference(), outside.is_inference(), tuple(inside.shape)
    _same(fn)
    assert _same(fn)[:2] == (True, False)


def test_views_take_their_base_flag_whatever_the_mode():
    def fn(L):
        normal = L.arange(6.0).reshape(2, 3)
        with L.inference_mode():
            inf = L.arange(6.0).reshape(2, 3)
            inside = [inf.t().is_inference(), inf[1:].is_inference(), inf.detach().is_inference(),
                      normal.t().is_inference(), normal[0].is_inference(),
                      normal.detach().is_inference(), normal.view(6).is_inference()]
        outside = [inf.t().is_inference(), inf[:, ::2].is_inference(), inf.data.is_inference(),
                   inf.detach().is_inference(), inf.clone().is_inference(),
                   (inf + 1).is_inference(), normal.data.is_inference()]
        return inside, outside
    _same(fn, ([True, True, True, False, False, False, False],
               [True, True, True, True, False, False, False]))


def test_version_of_an_inference_tensor_is_an_error_and_normal_tensors_still_count():
    def fn(L):
        with L.inference_mode():
            inf = L.ones(3)
        inf.t()  # views work
        with pytest.raises(RuntimeError) as info:
            inf._version
        normal = L.ones(3)
        view = normal[1:]
        with L.inference_mode():
            normal.add_(1)
            view.mul_(2)
            inf.add_(1)  # inside: allowed, nothing to count
            inf[0] = 7.0
        return str(info.value), normal._version, view._version, normal.tolist(), inf.tolist()
    _same(fn, (VERSION_MSG, 2, 2, [2.0, 4.0, 4.0], [7.0, 2.0, 2.0]))


@pytest.mark.parametrize("write", ["add_", "zero_", "copy_", "setitem", "out", "view_add_",
                                   "noncontig"])
def test_in_place_update_outside_inference_mode_is_refused(write):
    def fn(L):
        with L.inference_mode():
            inf = L.arange(6.0).reshape(2, 3)
        normal = L.ones(2, 3)
        {"add_": lambda: inf.add_(1), "zero_": lambda: inf.zero_(),
         "copy_": lambda: inf.copy_(normal), "setitem": lambda: inf.__setitem__(0, 5.0),
         "out": lambda: L.add(normal, 1, out=inf), "view_add_": lambda: inf[0].add_(1),
         "noncontig": lambda: inf.t().mul_(2)}[write]()
    _raises(fn, RuntimeError, INPLACE_MSG)


@pytest.mark.parametrize("size", [5, 2])
def test_resize_of_an_inference_tensor_outside_inference_mode(size):
    # torch 2.13 resizes first and raises at the version bump that follows, as for every other
    # in-place write: the tensor keeps its new size
    def fn(L):
        with L.inference_mode():
            inf = L.ones(3)
        with pytest.raises(RuntimeError) as info:
            inf.resize_(size)
        return str(info.value), list(inf.shape), inf[:2].tolist(), inf.is_inference()
    _same(fn, (INPLACE_MSG, [size], [1.0, 1.0], True))

    def inside(L):
        with L.inference_mode():
            inf = L.ones(3)
            inf.resize_(size)
        return list(inf.shape)
    _same(inside, [size])


def test_requires_grad_on_an_inference_tensor():
    def fn(L):
        with L.inference_mode():
            inf = L.ones(2)
        inf.requires_grad_(False)  # allowed
        inf.requires_grad_()
    _raises(fn, RuntimeError, REQUIRES_GRAD_MSG)

    def by_property(L):
        with L.inference_mode():
            inf = L.ones(2)
        inf.requires_grad = True
    _raises(by_property, RuntimeError, REQUIRES_GRAD_MSG)

    def inside(L):
        with L.inference_mode():
            inf = L.ones(2).requires_grad_()
            return inf.requires_grad, inf.is_leaf, inf.is_inference()
    _same(inside, (True, True, True))


@pytest.mark.parametrize("case", ["mul_leaf", "mul_0d", "exp_of_sum", "matmul"])
def test_saving_an_inference_tensor_for_backward_is_refused(case):
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with L.inference_mode():
            inf = L.tensor([3.0, 4.0])
            scalar = L.tensor(2.0)
            mat = L.ones(2, 2)
        {"mul_leaf": lambda: x * inf, "mul_0d": lambda: x * scalar,
         "exp_of_sum": lambda: (x + inf).exp() * inf,
         "matmul": lambda: x @ mat}[case]()
    _raises(fn, RuntimeError, SAVE_MSG)


def test_inference_tensors_used_without_being_saved_still_get_gradients():
    def fn(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with L.inference_mode():
            inf = L.tensor([3.0, 4.0])
        y = x + inf
        (y * y).sum().backward()
        return y.is_inference(), x.grad.tolist(), inf.clone().is_inference()
    _same(fn, (False, [8.0, 12.0], False))


def test_custom_function_saving_an_inference_tensor_is_refused():
    def fn(L):
        class Scale(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(k)
                return x * k

            @staticmethod
            def backward(ctx, g):
                k, = ctx.saved_tensors
                return g * k, None
        with L.inference_mode():
            k = L.tensor([2.0, 3.0])
        Scale.apply(L.ones(2, requires_grad=True), k)
    _raises(fn, RuntimeError, SAVE_MSG)


def test_a_clone_is_a_normal_tensor_that_autograd_accepts():
    def fn(L):
        with L.inference_mode():
            inf = L.tensor([3.0, 4.0])
        normal = inf.clone()
        # torch's clone of an inference tensor starts at version 1 (its copy_ counts), pytensor's
        # at 0: the step is what both count
        before = normal._version
        normal.add_(1)
        x = L.tensor([1.0, 2.0], requires_grad=True)
        (x * normal).sum().backward()
        return normal.is_inference(), normal._version - before, x.grad.tolist()
    _same(fn, (False, 1, [4.0, 5.0]))


def test_inference_tensors_free_their_memory():
    import gc
    import weakref

    with pytensor.inference_mode():
        t = pytensor.ones(1000)
        v = t[10:]
    ref = weakref.ref(t)
    del t, v
    gc.collect()
    assert ref() is None


def test_numpy_values_unchanged_through_inference_mode():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4))
    with pytensor.inference_mode():
        t = pytensor.tensor(a)
        r = (t * 2 + 1).sum(0)
    np.testing.assert_array_equal(np.array(r.tolist()), (a * 2 + 1).sum(0))
    assert r.is_inference()
