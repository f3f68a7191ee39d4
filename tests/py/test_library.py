"""Operators defined and implemented from Python (pytensor.library), called through the same
dispatcher as the built-in ones: define/impl and the decorator forms, kernels per dispatch key,
exceptions reaching the caller unchanged, deregistration when a Library goes, overriding a
built-in operator for one key, and the thread-local guards steering calls to a Python-key kernel.
"""

import gc
import itertools
import threading

import pytest

import pytensor
import pytensor.library as L
from pytensor import _C

_ids = itertools.count()


def fresh_ns() -> str:
    """A namespace no other test uses (registrations live for the process)."""
    return f"tlib{next(_ids)}"


@pytest.fixture
def ns():
    return fresh_ns()


def op(ns, name):
    return getattr(getattr(pytensor.ops, ns), name)


# ---------------------------------------------------------------- define / impl
def test_define_returns_the_name_and_impl_makes_it_callable(ns):
    lib = L.Library(ns, "DEF")
    assert lib.define("twice(Tensor x) -> Tensor") == "twice"
    assert lib.define(f"{ns}::thrice.over(Tensor x) -> Tensor") == f"{ns}::thrice"
    lib.impl("twice", lambda x: x * 2, "CPU")
    out = op(ns, "twice")(pytensor.tensor([1.0, 2.0]))
    assert out.tolist() == [2.0, 4.0]
    assert op(ns, "thrice").overloads() == ["over"]
    assert str(op(ns, "twice").default._schema) == f"{ns}::twice(Tensor x) -> Tensor"


def test_decorator_forms(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("inc(Tensor x) -> Tensor")

    @L.impl(lib, "inc", "CPU")
    def inc(x):
        return x + 1

    assert inc(pytensor.zeros(1)).tolist() == [1.0]  # the decorator returns the function
    assert op(ns, "inc")(pytensor.zeros(2)).tolist() == [1.0, 1.0]

    assert L.define(f"{ns}::dec", "(Tensor x) -> Tensor") == "dec"

    @L.impl(f"{ns}::dec", "cpu")
    def dec(x):
        return x - 1

    assert op(ns, "dec")(pytensor.zeros(1)).tolist() == [-1.0]


def test_impl_without_key_is_composite_implicit(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x * 3)
    dump = op(ns, "f").default._dispatch_dump()
    assert "CompositeImplicitAutograd" in dump
    assert op(ns, "f")(pytensor.ones(1)).tolist() == [3.0]
    assert op(ns, "f")(pytensor.ones(1, device="meta")).device.type == "meta"


def test_kernels_per_key_are_chosen_by_device(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("which(Tensor x) -> Tensor")
    calls = []

    def cpu(x):
        calls.append("cpu")
        return x.clone()

    def meta(x):
        calls.append("meta")
        return pytensor.empty(x.shape, device="meta")

    lib.impl("which", cpu, "CPU")
    lib.impl("which", meta, "Meta")
    r = op(ns, "which")(pytensor.ones(3))
    assert r.device.type == "cpu" and calls == ["cpu"]
    r = op(ns, "which")(pytensor.ones(3, device="meta"))
    assert r.device.type == "meta" and r.shape == (3,) and calls == ["cpu", "meta"]


def test_kernel_arguments_follow_torch(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("kw(Tensor x, int y=3, *, Scalar alpha=1, ScalarType? dtype=None) -> Tensor")
    seen = []

    def kernel(*args, **kwargs):
        seen.append((args, kwargs))
        return args[0]

    lib.impl("kw", kernel, "CPU")
    x = pytensor.ones(1)
    f = op(ns, "kw")
    assert f(x) is x  # the same C tensor comes back as the same object, as in torch
    assert seen[-1][0][1:] == () and seen[-1][1] == {}  # defaults left out, as torch does
    f(x, 5, alpha=2.5, dtype=pytensor.float64)
    args, kwargs = seen[-1]
    assert args[1] == 5 and kwargs == {"alpha": 2.5, "dtype": pytensor.float64}
    assert isinstance(args[0], pytensor.Tensor) and args[0].data_ptr() == x.data_ptr()


def test_torch_passes_the_same_arguments(ns):
    torch = pytest.importorskip("torch")
    tl = torch.library.Library(ns + "_t", "FRAGMENT")
    tl.define("kw(Tensor x, int y=3, *, Scalar alpha=1) -> Tensor")
    seen_t, seen_p = [], []
    tl.impl("kw", lambda *a, **k: seen_t.append((len(a), sorted(k))) or a[0], "CPU")
    pl = L.Library(ns, "FRAGMENT")
    pl.define("kw(Tensor x, int y=3, *, Scalar alpha=1) -> Tensor")
    pl.impl("kw", lambda *a, **k: seen_p.append((len(a), sorted(k))) or a[0], "CPU")
    for args, kwargs in (((), {}), ((5,), {}), ((3,), {"alpha": 2})):
        getattr(torch.ops, ns + "_t").kw(torch.ones(1), *args, **kwargs)
        op(ns, "kw")(pytensor.ones(1), *args, **kwargs)
    assert seen_p == seen_t


def test_results_of_every_shape(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("pair(Tensor x) -> (Tensor, Tensor)")
    lib.define("count(Tensor x) -> int")
    lib.define("nothing(Tensor x) -> ()")
    lib.define("many(Tensor x) -> Tensor[]")
    lib.define("sizes(Tensor x) -> int[]")
    lib.define("name(Tensor x) -> str")
    lib.impl("pair", lambda x: (x, x * 2), "CPU")
    lib.impl("count", lambda x: x.numel(), "CPU")
    lib.impl("nothing", lambda x: None, "CPU")
    lib.impl("many", lambda x: [x, x + 1, x + 2], "CPU")
    lib.impl("sizes", lambda x: list(x.shape), "CPU")
    lib.impl("name", lambda x: "tensor of " + str(x.numel()), "CPU")
    x = pytensor.ones(3)
    a, b = op(ns, "pair")(x)
    assert a.tolist() == [1.0] * 3 and b.tolist() == [2.0] * 3
    assert op(ns, "count")(x) == 3
    assert op(ns, "nothing")(x) is None
    assert [t.tolist()[0] for t in op(ns, "many")(x)] == [1.0, 2.0, 3.0]
    assert op(ns, "sizes")(pytensor.ones(2, 5)) == [2, 5]
    assert op(ns, "name")(x) == "tensor of 3"


def test_a_wrong_result_is_a_type_error(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("wrong(Tensor x) -> Tensor")
    lib.define("short(Tensor x) -> (Tensor, Tensor)")
    lib.impl("wrong", lambda x: 3, "CPU")
    lib.impl("short", lambda x: x, "CPU")
    with pytest.raises(TypeError, match="Unable to cast 3 to Tensor"):
        op(ns, "wrong")(pytensor.ones(1))
    with pytest.raises(TypeError, match="tuple of 2 values"):
        op(ns, "short")(pytensor.ones(1))


# ---------------------------------------------------------------- exceptions
class KernelError(Exception):
    pass


def test_exceptions_reach_the_caller_unchanged(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("bad(Tensor x) -> Tensor")
    err = KernelError("boom", 42)

    def bad(x):
        raise err

    lib.impl("bad", bad, "CPU")
    with pytest.raises(KernelError) as info:
        op(ns, "bad")(pytensor.ones(1))
    assert info.value is err
    # The C error slot is clean afterwards and the next failure is C's own.
    with pytest.raises(TypeError, match="must be Tensor"):
        op(ns, "bad")("not a tensor")
    for cls in (ValueError, IndexError, NotImplementedError, KeyboardInterrupt):
        e = cls("x")
        lib2 = L.Library(ns, "FRAGMENT")
        name = f"raise_{cls.__name__}"
        lib2.define(f"{name}(Tensor x) -> Tensor")
        lib2.impl(name, lambda x, e=e: (_ for _ in ()).throw(e), "CPU")
        with pytest.raises(cls) as info:
            op(ns, name)(pytensor.ones(1))
        assert info.value is e


def test_exceptions_pass_through_nested_python_kernels(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("inner(Tensor x) -> Tensor")
    lib.define("outer(Tensor x) -> Tensor")
    err = KernelError("deep")
    lib.impl("inner", lambda x: (_ for _ in ()).throw(err), "CPU")
    lib.impl("outer", lambda x: op(ns, "inner")(x), "CPU")
    with pytest.raises(KernelError) as info:
        op(ns, "outer")(pytensor.ones(1))
    assert info.value is err


def test_exceptions_stay_on_their_thread(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("maybe(Tensor x, int i) -> Tensor")

    def maybe(x, i):
        if i % 2:
            raise KernelError(i)
        return x

    lib.impl("maybe", maybe, "CPU")
    errors = []

    def worker(start):
        for i in range(start, start + 200, 2):
            try:
                op(ns, "maybe")(pytensor.ones(1), i)
                if i % 2:
                    errors.append(f"{i} did not raise")
            except KernelError as e:
                if e.args != (i,):
                    errors.append(f"{i} got {e.args}")

    threads = [threading.Thread(target=worker, args=(s,)) for s in (0, 1, 1000, 1001)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# ---------------------------------------------------------------- deregistration
def test_deleting_a_library_restores_the_previous_table(ns):
    base = L.Library(ns, "FRAGMENT")
    base.define("layered(Tensor x) -> Tensor")
    f = op(ns, "layered")
    with pytest.raises(NotImplementedError, match="Could not run"):
        f(pytensor.ones(1))
    first = L.Library(ns, "IMPL")
    first.impl("layered", lambda x: pytensor.full((1,), 1.0), "CPU")
    second = L.Library(ns, "IMPL")
    second.impl("layered", lambda x: pytensor.full((1,), 2.0), "CPU")
    assert f(pytensor.ones(1)).tolist() == [2.0]
    del second
    gc.collect()
    assert f(pytensor.ones(1)).tolist() == [1.0]
    first._destroy()
    with pytest.raises(NotImplementedError, match="Could not run"):
        f(pytensor.ones(1))
    first._destroy()  # idempotent


def test_deleting_the_def_removes_the_operator(ns):
    lib = L.Library(ns, "DEF")
    lib.define("gone(Tensor x) -> Tensor")
    lib.impl("gone", lambda x: x, "CPU")
    assert f"{ns}::gone" in _C._dispatch_dump(f"{ns}::gone")
    del lib
    gc.collect()
    assert "(no schema)" in _C._dispatch_dump(f"{ns}::gone") or \
        _C._dispatch_dump(f"{ns}::gone") == ""
    # The namespace can have a DEF library again.
    lib2 = L.Library(ns, "DEF")
    lib2.define("gone(Tensor x, int k) -> Tensor")
    lib2.impl("gone", lambda x, k: x * k, "CPU")
    assert op(ns, "gone")(pytensor.ones(1), 4).tolist() == [4.0]


def test_python_kernel_overrides_a_builtin_for_one_key_and_release_restores_it():
    a = pytensor.tensor([1.0, 2.0])
    assert (a + a).tolist() == [2.0, 4.0]
    lib = L.Library("aten", "IMPL")
    calls = []

    def fake_add(x, y, alpha=1):
        calls.append(alpha)
        return pytensor.full(x.shape, -1.0)

    lib.impl("add.Tensor", fake_add, "CPU")
    assert (a + a).tolist() == [-1.0, -1.0]  # the unboxed entry boxes into the Python kernel
    assert pytensor.add(a, a, alpha=3).tolist() == [-1.0, -1.0]
    assert calls == [1, 3]
    meta = pytensor.ones(2, device="meta")
    assert (meta + meta).device.type == "meta"  # other keys untouched
    assert "fake_add" in _C._dispatch_dump("aten::add.Tensor")
    lib._destroy()
    assert (a + a).tolist() == [2.0, 4.0]
    assert "fake_add" not in _C._dispatch_dump("aten::add.Tensor")


# ---------------------------------------------------------------- errors of the library API
def test_def_twice_in_one_namespace_is_refused(ns):
    lib = L.Library(ns, "DEF")
    with pytest.raises(RuntimeError, match=f"Only a single TORCH_LIBRARY can be used to register "
                                           f"the namespace {ns}"):
        L.Library(ns, "DEF")
    with pytest.raises(RuntimeError, match="the namespace aten"):
        L.Library("aten", "DEF")
    L.Library(ns, "FRAGMENT")  # fragments and impls are fine
    L.Library(ns, "IMPL")
    del lib


def test_library_api_errors(ns):
    with pytest.raises(ValueError, match="Unsupported kind: FOO"):
        L.Library(ns, "FOO")
    impl = L.Library(ns, "IMPL")
    with pytest.raises(RuntimeError, match="Cannot define an operator inside of a "
                                           "TORCH_LIBRARY_IMPL block"):
        impl.define("x(Tensor a) -> Tensor")
    frag = L.Library(ns, "FRAGMENT")
    with pytest.raises(RuntimeError, match=r"Explicitly provided namespace \(other\)"):
        frag.define("other::x(Tensor a) -> Tensor")
    with pytest.raises(RuntimeError, match="could not parse dispatch key: NotAKey"):
        frag.impl("x", lambda a: a, "NotAKey")
    frag.define("dup(Tensor a) -> Tensor")
    with pytest.raises(RuntimeError, match="multiple times"):
        frag.define("dup(Tensor a) -> Tensor")
    with pytest.raises(RuntimeError, match="schema"):
        frag.define("broken(Tensor a -> Tensor")
    with pytest.raises(TypeError, match="callable"):
        frag.impl("dup", 3, "CPU")


def test_impl_may_come_before_define(ns):
    impl = L.Library(ns, "IMPL")
    impl.impl("later", lambda x: x * 5, "CPU")
    frag = L.Library(ns, "FRAGMENT")
    frag.define("later(Tensor x) -> Tensor")
    assert op(ns, "later")(pytensor.ones(1)).tolist() == [5.0]


def test_fallthrough_kernel_skips_a_key(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("ft(Tensor x) -> Tensor")
    lib.impl("ft", lambda x: pytensor.full((1,), 7.0), "CPU")
    lib.impl("ft", lambda x: pytensor.full((1,), 8.0), "Python")
    with _C._IncludeDispatchKeyGuard("Python"):
        assert op(ns, "ft")(pytensor.ones(1)).tolist() == [8.0]
        lib.impl("ft", L.fallthrough_kernel, "Python")
        assert op(ns, "ft")(pytensor.ones(1)).tolist() == [7.0]


# ---------------------------------------------------------------- the Python key and TLS guards
def test_tls_guards_steer_calls_to_a_python_key_kernel(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("steer(Tensor x) -> Tensor")
    calls = []

    def on_cpu(x):
        calls.append("CPU")
        return x.clone()

    def on_python(x):
        calls.append("Python")
        with _C._ExcludeDispatchKeyGuard("Python"):
            return op(ns, "steer")(x)  # redispatch below the Python key

    lib.impl("steer", on_cpu, "CPU")
    lib.impl("steer", on_python, "Python")
    f = op(ns, "steer")
    f(pytensor.ones(1))
    assert calls == ["CPU"]  # tensors do not carry the Python key
    with _C._IncludeDispatchKeyGuard("Python"):
        f(pytensor.ones(1))
    assert calls == ["CPU", "Python", "CPU"]
    with _C._IncludeDispatchKeyGuard("Python"), _C._ExcludeDispatchKeyGuard("Python"):
        f(pytensor.ones(1))
    assert calls[-1] == "CPU" and len(calls) == 4
    x = pytensor.ones(1)
    with _C._ExcludeDispatchKeyGuard("CPU"):
        with pytest.raises(NotImplementedError):
            f(x)


def test_with_keyset_gives_the_kernel_the_key_set(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("ks(Tensor x) -> Tensor")
    seen = []
    lib.impl("ks", lambda keyset, x: seen.append(keyset) or x, "CPU", with_keyset=True)
    op(ns, "ks")(pytensor.ones(1))
    assert seen and seen[0] & 1  # the CPU bit


def test_fallback_for_a_key_serves_every_operator(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("fb(Tensor x) -> Tensor")
    lib.impl("fb", lambda x: pytensor.full((1,), 1.0), "CPU")
    seen = []

    def python_fallback(op, *args, **kwargs):
        seen.append(op.name())
        with _C._ExcludeDispatchKeyGuard("Python"):
            return op(*args, **kwargs)

    fb = L.Library(ns, "IMPL")
    fb.fallback(python_fallback, "Python")
    x = pytensor.ones(1)
    try:
        with _C._IncludeDispatchKeyGuard("Python"):
            assert op(ns, "fb")(x).tolist() == [1.0]
            assert (x + x).tolist() == [2.0]
            assert pytensor.zeros(2).tolist() == [0.0, 0.0]
        assert seen == [f"{ns}::fb", "aten::add.Tensor", "aten::zeros"]
    finally:
        fb._destroy()
    x + x
    assert len(seen) == 3


def test_impl_library_default_key(ns):
    frag = L.Library(ns, "FRAGMENT")
    frag.define("dk(Tensor x) -> Tensor")
    cpu = L.Library(ns, "IMPL", "CPU")
    cpu.impl("dk", lambda x: x * 4)
    assert "CPU: registered at" in op(ns, "dk").default._dispatch_dump()
    assert op(ns, "dk")(pytensor.ones(1)).tolist() == [4.0]


def test_python_kernels_leak_no_tensors(ns):
    lib = L.Library(ns, "FRAGMENT")
    lib.define("pair(Tensor x, Tensor[] xs) -> (Tensor, Tensor[])")
    lib.impl("pair", lambda x, xs: (x + 1, [t * 2 for t in xs]), "CPU")
    f = op(ns, "pair")
    x = pytensor.ones(64)
    for _ in range(3):
        f(x, [x, x])
    gc.collect()
    before = pytensor.memory_stats()["bytes_in_use"]
    for _ in range(200):
        a, bs = f(x, [x, x])
        assert len(bs) == 2
    del a, bs
    gc.collect()
    assert pytensor.memory_stats()["bytes_in_use"] == before


def test_exceptions_cross_the_unboxed_entry_points_unchanged():
    err = KernelError("from a built-in override")
    lib = L.Library("aten", "IMPL")
    lib.impl("mul.Tensor", lambda x, y: (_ for _ in ()).throw(err), "CPU")
    a = pytensor.ones(2)
    try:
        with pytest.raises(KernelError) as info:
            a * a  # the generated operator calls pt_call_mul_Tensor, which boxes
        assert info.value is err
        with pytest.raises(KernelError):
            pytensor.mul(a, a)
    finally:
        lib._destroy()
    assert (a * a).tolist() == [1.0, 1.0]
