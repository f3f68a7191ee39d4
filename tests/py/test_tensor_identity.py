"""One Python object per C tensor (Note [one Python object per tensor] in csrc/python/pt_python.c).

A C tensor handed back to Python (a saved variable, a view's base, .grad, an operator returning
its input, a hook's argument) comes back as the Tensor object that already wraps it, so identity
checks give torch's answers, attributes set on a tensor and the class of a subclass instance
survive the trip through C, and a Tensor is still freed by reference counting alone.

Each identity is written once as a function of the library (`L` is pytensor or torch); the
expected answers are torch's, written here so the checks run without torch, and compared with
torch where it is installed."""
import gc
import sys
import threading
import weakref

import pytest

import pytensor
from _torch_oracle import requires_torch, torch

pytestmark = pytest.mark.capability_independent


def _leaves(L, n=2):
    return [L.randn(3, requires_grad=True) for _ in range(n)]


def saved_self_is_input(L):
    x, w = _leaves(L)
    y = x * w
    return y.grad_fn._saved_self is x and y.grad_fn._saved_other is w


def saved_self_twice(L):
    x, w = _leaves(L)
    y = x * w
    return y.grad_fn._saved_self is y.grad_fn._saved_self


def saved_result_is_output(L):
    x = L.randn(3, requires_grad=True)
    y = x.exp()
    return y.grad_fn._saved_result is y


def accumulate_grad_variable(L):
    x, w = _leaves(L)
    y = x * w
    return y.grad_fn.next_functions[0][0].variable is x


def view_base_is_input(L):
    x = L.randn(3, 4)
    return x[0]._base is x


def view_of_view_base_is_root(L):
    x = L.randn(3, 4)
    return x[0][1:]._base is x


def base_twice(L):
    x = L.randn(3, 4)
    v = x[0]
    del x
    return v._base is v._base


def grad_is_grad(L):
    x = L.randn(3, requires_grad=True)
    (x * 2).sum().backward()
    return x.grad is x.grad


def contiguous_is_self(L):
    x = L.randn(3, 4)
    return x.contiguous() is x


def to_same_dtype_is_self(L):
    x = L.randn(3)
    return x.to(x.dtype) is x and x.float() is x and x.cpu() is x


def to_other_dtype_is_new(L):
    x = L.randn(3)
    return x.to(L.float64) is x


def detach_is_new(L):
    x = L.randn(3)
    return x.detach() is x


def view_as_is_new(L):
    x = L.randn(3)
    return x.view_as(x) is x


def requires_grad_is_self(L):
    x = L.randn(3)
    return x.requires_grad_() is x


def inplace_is_self(L):
    x = L.randn(3)
    return x.add_(1) is x and x.mul_(2) is x


def hook_grad_is_later_grad(L):
    x = L.randn(3, requires_grad=True)
    seen = []
    x.register_hook(seen.append)
    x.sum().backward()
    return seen[0] is x.grad


def post_accumulate_hook_gets_leaf(L):
    x, w = _leaves(L)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t is x))
    (x * w).sum().backward()
    return seen == [True]


def pack_hook_gets_inputs(L):
    x, w = _leaves(L)
    seen = []

    def pack(t):
        seen.append(t)
        return t
    with L.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
        x * w
    return len(seen) == 2 and {id(t) for t in seen} == {id(x), id(w)}


def attribute_through_saved(L):
    x = L.randn(3, requires_grad=True)
    x.foo = 5
    y = x.sin()
    return getattr(y.grad_fn._saved_self, "foo", None) == 5


def attribute_through_base(L):
    x = L.randn(3, 4)
    x.foo = "bar"
    return getattr(x[1]._base, "foo", None) == "bar"


# name -> (scenario, torch's answer)
CASES = {
    "saved_self_is_input": (saved_self_is_input, True),
    "saved_self_twice": (saved_self_twice, True),
    "saved_result_is_output": (saved_result_is_output, False),  # saved without its node
    "accumulate_grad_variable": (accumulate_grad_variable, True),
    "view_base_is_input": (view_base_is_input, True),
    "view_of_view_base_is_root": (view_of_view_base_is_root, True),
    "base_twice": (base_twice, True),
    "grad_is_grad": (grad_is_grad, True),
    "contiguous_is_self": (contiguous_is_self, True),
    "to_same_dtype_is_self": (to_same_dtype_is_self, True),
    "to_other_dtype_is_new": (to_other_dtype_is_new, False),
    "detach_is_new": (detach_is_new, False),
    "view_as_is_new": (view_as_is_new, False),
    "requires_grad_is_self": (requires_grad_is_self, True),
    "inplace_is_self": (inplace_is_self, True),
    "hook_grad_is_later_grad": (hook_grad_is_later_grad, False),
    "post_accumulate_hook_gets_leaf": (post_accumulate_hook_gets_leaf, True),
    "pack_hook_gets_inputs": (pack_hook_gets_inputs, True),
    "attribute_through_saved": (attribute_through_saved, True),
    "attribute_through_base": (attribute_through_base, True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_identity(name):
    fn, expected = CASES[name]
    assert fn(pytensor) is expected


@requires_torch
@pytest.mark.parametrize("name", list(CASES))
def test_identity_matches_torch(name):
    fn, expected = CASES[name]
    assert fn(torch) is expected


# ---------------------------------------------------------------- subclasses
def _subclass(L):
    class Sub(L.Tensor):
        pass
    disabled = getattr(L._C, "_disabled_torch_function_impl", None)
    if disabled is not None:  # torch: operators on Sub give plain tensors, as in pytensor
        Sub.__torch_function__ = disabled
    return Sub


def subclass_scenario(L):
    Sub = _subclass(L)
    s = L.randn(3).as_subclass(Sub)
    s.requires_grad_()
    s.tag = 7
    y = s.sin()
    saved = y.grad_fn._saved_self
    return (type(s).__name__, s.is_leaf, saved is s, type(saved).__name__, saved.tag,
            s.contiguous() is s, s.requires_grad_() is s, s.detach() is s)


SUBCLASS_EXPECTED = ("Sub", True, True, "Sub", 7, True, True, False)


def test_subclass_instance_comes_back():
    assert subclass_scenario(pytensor) == SUBCLASS_EXPECTED


@requires_torch
def test_subclass_instance_comes_back_torch():
    assert subclass_scenario(torch) == SUBCLASS_EXPECTED


def as_subclass_scenario(L):
    Sub = _subclass(L)
    x = L.randn(3, requires_grad=True)
    s = x.as_subclass(Sub)
    return (type(s).__name__, s is x, s._base is x, s.is_leaf, s.requires_grad,
            s.data_ptr() == x.data_ptr())


def test_as_subclass():
    assert as_subclass_scenario(pytensor) == ("Sub", False, True, False, True, True)
    with pytest.raises(TypeError, match="Creating a Tensor subclass from a class that does not "
                                        "inherit from Tensor is not possible"):
        pytensor.randn(2).as_subclass(int)


@requires_torch
def test_as_subclass_torch():
    assert as_subclass_scenario(torch) == ("Sub", False, True, False, True, True)
    with pytest.raises(TypeError, match="Creating a Tensor subclass from a class that does not "
                                        "inherit from Tensor is not possible"):
        torch.randn(2).as_subclass(int)


# ---------------------------------------------------------------- freeing
@pytest.fixture
def no_gc():
    """Reference counting alone must free what these tests drop."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _dies_on_del(make):
    fired = []
    obj = make()
    ref = weakref.ref(obj, lambda r: fired.append(True))
    del obj
    return fired == [True] and ref() is None


def test_freed_by_refcount(no_gc):
    assert _dies_on_del(lambda: pytensor.randn(4))

    def with_attribute():
        x = pytensor.randn(4)
        x.foo = [1, 2]
        return x
    assert _dies_on_del(with_attribute)

    def after_round_trips():
        x = pytensor.randn(4, requires_grad=True)
        y = x * x
        assert y.grad_fn._saved_self is x and x[0]._base is x and x.contiguous() is x
        return x
    assert _dies_on_del(after_round_trips)

    def subclass_instance():
        s = pytensor.randn(4).as_subclass(_subclass(pytensor))
        s.tag = 1
        return s
    assert _dies_on_del(subclass_instance)


def test_graph_and_grad_freed(no_gc):
    x = pytensor.randn(4, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    g = weakref.ref(x.grad)
    rx = weakref.ref(x)
    ry = weakref.ref(y)
    del x, y
    assert rx() is None and ry() is None and g() is None


def test_memory_flat_in_loop(no_gc):
    def step():
        x = pytensor.randn(64, requires_grad=True)
        x.note = "kept with the object"
        w = pytensor.randn(64, requires_grad=True)
        y = x * w
        assert y.grad_fn._saved_self is x
        v = x.detach()[1:]
        assert v._base is not x and v._base is v._base
        assert x.contiguous() is x and x.to(x.dtype) is x
        y.sum().backward()
        assert x.grad is x.grad
    for _ in range(50):  # warm the caches
        step()
    before = pytensor.memory_stats()["bytes_in_use"]
    objects = len(gc.get_objects())
    for _ in range(2000):
        step()
    assert pytensor.memory_stats()["bytes_in_use"] == before
    assert len(gc.get_objects()) <= objects + 10


# ---------------------------------------------------------------- threads
def test_threads_wrap_the_same_tensor():
    x = pytensor.randn(8, 8)
    v = x[1]
    w = pytensor.randn(8, 8, requires_grad=True)
    y = w * 2.0 * w
    del x  # the base's next wrapper is made by whichever thread comes first
    n = 8
    barrier = threading.Barrier(n)
    results = [None] * n

    def run(i):
        barrier.wait()
        got = []
        for _ in range(300):
            got.append(v._base)
            got.append(y.grad_fn._saved_self)
        results[i] = got
    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns between most bytecodes
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    bases = {id(r) for got in results for r in got[0::2]}
    saved = {id(r) for got in results for r in got[1::2]}
    assert len(bases) == 1 and len(saved) == 1
    assert results[0][1].tolist() == (w * 2.0).tolist()  # made by the first thread


# ---------------------------------------------------------------- a wrapper dying mid-way
def test_wrapped_again_while_its_object_dies(no_gc):
    # The dying object's weak reference callback and its attributes' destructors run while it is
    # being deallocated and reach the same C tensor (the view's base): they get a new object.
    for _ in range(20):
        x = pytensor.arange(6.0)
        v = x[2:]
        got = []

        class Probe:
            def __del__(self):
                got.append(v._base)

        x.probe = Probe()
        ref = weakref.ref(x, lambda r: got.append(v._base))
        del x
        assert ref() is None and len(got) == 2
        assert got[0] is got[1]
        assert got[0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        assert v._base is got[0]
        assert not hasattr(got[0], "probe")
        del got
        assert v._base.sum().item() == 15.0


def test_handle_setter_moves_the_slot(no_gc):
    from pytensor._C import lib
    Sub = _subclass(pytensor)
    s = pytensor.arange(4.0).as_subclass(Sub)
    h = s._h
    lib.pt_tensor_retain(h)
    s._h = h  # the same tensor again: s keeps its slot
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0]
    y = s.requires_grad_().sin()
    assert y.grad_fn._saved_self is s
    c = pytensor.zeros(2)
    c_h = c._h
    lib.pt_tensor_retain(c_h)
    s._h = c_h  # another tensor: c holds that one's slot, s gives up its old one
    assert c[1:]._base is c and s[1:]._base is c
    assert s.tolist() == [0.0, 0.0]
