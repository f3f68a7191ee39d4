"""The C fast paths of the operators (Note [Python fast paths] in csrc/python/pt_python.c).

A thunk must give exactly what the Python binding it speeds up gives: the same values, dtype,
shape and strides, the same object for in-place results, the same exceptions. Each generated
thunk is called here through its C caller and through the binding (``__wrapped__``); calls the
thunk declines (keywords, other types, ints beyond int64) must reach the binding. The Tensor base
type's number slots, handle and metadata reads are pinned down too.
"""
import gc
import glob
import importlib
import os
import sys
import threading
import weakref

import pytest

import pytensor
from pytensor._C import _core, ffi, lib


def _fast(fn):
    """The C caller of a binding, asserting it is one."""
    assert isinstance(fn, (_core._FastFunction, _core._FastMethod)), fn
    return fn


def _same(x, y):
    if isinstance(x, pytensor.Tensor):
        assert isinstance(y, pytensor.Tensor)
        assert x.dtype == y.dtype and x.shape == y.shape and x.stride() == y.stride()
        assert x.tolist() == y.tolist()
    else:
        assert x == y


def _t(*shape, dtype=pytensor.float32):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=dtype).reshape(shape)


# ident -> (argument maker, mode): fresh arguments for each of the two calls; mode says whether
# the result is the first argument (in place) and whether the call draws random numbers.
CASES = {
    "eye": (lambda: (3,), ""),
    "eye_m": (lambda: (2, 4), ""),
    "empty_like": (lambda: (_t(2, 3),), "uninitialized"),
    "zeros_like": (lambda: (_t(2, 3),), ""),
    "ones_like": (lambda: (_t(2, 3, dtype=pytensor.int16),), ""),
    "rand_like": (lambda: (_t(5),), "seeded"),
    "randn_like": (lambda: (_t(5),), "seeded"),
    "randint_like": (lambda: (_t(5), 7), "seeded"),
    "randint_like_low_dtype": (lambda: (_t(5), -3, 7), "seeded"),
    "uniform_": (lambda: (_t(5),), "seeded inplace"),
    "normal_": (lambda: (_t(5),), "seeded inplace"),
    "random__to": (lambda: (_t(5), 9), "seeded inplace"),
    "random_": (lambda: (_t(5),), "seeded inplace"),
    "flatten_using_ints": (lambda: (_t(2, 3, 4),), ""),
    "transpose_int": (lambda: (_t(2, 3, 4), 0, -1), ""),
    "t": (lambda: (_t(2, 3),), ""),
    "squeeze": (lambda: (_t(1, 3, 1),), ""),
    "squeeze_dim": (lambda: (_t(1, 3, 1), 2), ""),
    "unsqueeze": (lambda: (_t(2, 3), -1), ""),
    "narrow": (lambda: (_t(4, 5), 1, 1, 3), ""),
    "narrow_Tensor": (lambda: (_t(4, 5), 1, pytensor.tensor(1), 3), ""),
    "select_int": (lambda: (_t(4, 5), 1, -2), ""),
    "slice_Tensor": (lambda: (_t(4, 5),), ""),
    "unfold": (lambda: (_t(8), 0, 3, 2), ""),
    "copy_": (lambda: (_t(2, 3), _t(3) + 10), "inplace"),
    "fill__Tensor": (lambda: (_t(2, 3), pytensor.tensor(4.5)), "inplace"),
    "zero_": (lambda: (_t(2, 3),), "inplace"),
    "clone": (lambda: (_t(2, 3).t(),), ""),
    "to_dtype_layout": (lambda: (_t(2, 3),), ""),
    "to_other": (lambda: (_t(2, 3), pytensor.zeros(1, dtype=pytensor.float64)), ""),
    "_to_copy": (lambda: (_t(2, 3),), ""),
    "add_Tensor": (lambda: (_t(2, 3), _t(3)), ""),
    "add__Tensor": (lambda: (_t(2, 3), _t(3)), "inplace"),
    "sub_Tensor": (lambda: (_t(2, 3), _t(2, 1)), ""),
    "sub__Tensor": (lambda: (_t(2, 3), _t(3)), "inplace"),
    "mul_Tensor": (lambda: (_t(2, 3, dtype=pytensor.int32), _t(3)), ""),
    "mul__Tensor": (lambda: (_t(2, 3), _t(3)), "inplace"),
}
# Operator families keep their cases beside their own tests: tests/py/fast_cases_<family>.py,
# each with a CASES dict of the same form.
for _path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "fast_cases_*.py"))):
    _family = importlib.import_module(os.path.basename(_path)[:-3])
    assert not set(_family.CASES) & set(CASES), f"{_path} repeats a case"
    CASES.update(_family.CASES)
THUNKS = {ident: (name, n, self_first) for ident, name, n, self_first, out_kw
          in _core._fast_thunks() if not out_kw}
OUT_THUNKS = {ident: (name, n) for ident, name, n, _, out_kw in _core._fast_thunks() if out_kw}


def _caller(name: str):
    """The C caller the bindings make for one overload ("aten::add.Tensor")."""
    from pytensor import _ops, _opsgen
    qual, _, overload = name.partition(".")
    return _opsgen.make_overload_caller(_ops.sig_of(_ops.find(qual, overload)))


def test_every_thunk_has_a_case():
    assert THUNKS, "the generator made no thunk"
    assert sorted(set(THUNKS) - set(CASES)) == []
    assert THUNKS["add_Tensor"] == ("aten::add.Tensor", 2, 1)


@pytest.mark.parametrize("ident", sorted(CASES))
def test_thunk_matches_the_python_binding(ident):
    if ident not in THUNKS:
        pytest.skip(f"{ident} has no thunk in this build")
    make, mode = CASES[ident]
    fast_fn = _fast(_caller(THUNKS[ident][0]))
    slow_fn = fast_fn.__wrapped__
    assert not isinstance(slow_fn, (_core._FastFunction, _core._FastMethod))
    args_fast, args_slow = make(), make()
    assert len(args_fast) == THUNKS[ident][1]
    if "raises" in mode:  # a call torch refuses: both paths refuse it alike
        with pytest.raises(Exception) as fast:
            fast_fn(*args_fast)
        with pytest.raises(type(fast.value)) as slow:
            slow_fn(*args_slow)
        assert str(fast.value) == str(slow.value)
        return
    if "seeded" in mode:
        pytensor.manual_seed(1234)
    r_fast = fast_fn(*args_fast)
    if "seeded" in mode:
        pytensor.manual_seed(1234)
    r_slow = slow_fn(*args_slow)
    if mode == "uninitialized":
        assert (r_fast.shape, r_fast.dtype, r_fast.stride()) == \
            (r_slow.shape, r_slow.dtype, r_slow.stride())
    else:
        _same(r_fast, r_slow)
    if "inplace" in mode:
        assert r_fast is args_fast[0] and r_slow is args_slow[0]
        _same(args_fast[0], args_slow[0])


# ---------------------------------------------------------------- out= thunks
def _u(*shape, dtype=pytensor.float32):
    """Values in (0.1, 0.9): inside every unary op's domain."""
    n = int(pytensor.Size(shape).numel())
    return (pytensor.arange(n, dtype=pytensor.float64).reshape(shape) * (0.8 / max(n, 1)) + 0.1
            ).to(dtype)


def _i(*shape):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=pytensor.int32).reshape(shape)


_MASK = lambda: pytensor.tensor([[True, False, True], [False, True, True]])  # noqa: E731
# Arguments for out= thunks whose ops do not take (2, 3) float32 tensors; the rest get those.
OUT_ARGS = {
    "mm_out": lambda: (_u(2, 3), _u(3, 4)),
    "matmul_out": lambda: (_u(2, 3), _u(3, 4)),
    "bmm_out": lambda: (_u(2, 2, 3), _u(2, 3, 4)),
    "addmm_out": lambda: (_u(2, 4), _u(2, 3), _u(3, 4)),
    "baddbmm_out": lambda: (_u(2, 2, 4), _u(2, 2, 3), _u(2, 3, 4)),
    "addmv_out": lambda: (_u(2), _u(2, 3), _u(3)),
    "mv_out": lambda: (_u(2, 3), _u(3)),
    "dot_out": lambda: (_u(3), _u(3)),
    "vdot_out": lambda: (_u(3), _u(3)),
    "outer_out": lambda: (_u(2), _u(3)),
    "ger_out": lambda: (_u(2), _u(3)),
    "take_out": lambda: (_u(2, 3), pytensor.tensor([0, 5, -1, 2])),
    "masked_select_out": lambda: (_u(2, 3), _MASK()),
    "where_self_out": lambda: (_MASK(), _u(2, 3), _u(3) + 1),
    "_pdist_forward_out": lambda: (_u(4, 3),),
    "bitwise_not_out": lambda: (_i(2, 3),),
    "nonzero_out": lambda: (_i(2, 3) % 2,),
    "sign_out": lambda: (_u(2, 3) - 0.5,),
}
for _op in ("and", "or", "xor", "left_shift", "right_shift"):
    OUT_ARGS[f"bitwise_{_op}_Tensor_out"] = lambda: (_i(2, 3), _i(3) % 4)
# A family's fast_cases file may add OUT_ARGS of its own, for ops with a narrower domain.
for _path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "fast_cases_*.py"))):
    OUT_ARGS.update(getattr(importlib.import_module(os.path.basename(_path)[:-3]), "OUT_ARGS", {}))


def _result_or_error(fn, args, out):
    try:
        return fn(*args, out=out), None
    except Exception as e:  # noqa: BLE001 - both paths must raise alike
        return None, e


@pytest.mark.parametrize("ident", sorted(OUT_THUNKS))
def test_out_thunk_matches_the_python_binding(ident):
    name = OUT_THUNKS[ident][0].split("::")[1].split(".")[0]
    fn = getattr(pytensor, name, None)
    if not isinstance(fn, _core._FastFunction) or not fn._has_out_thunk:
        pytest.skip(f"no public function {name} pairs with {ident}")
    make = OUT_ARGS.get(ident, lambda: tuple(_u(2, 3) for _ in range(OUT_THUNKS[ident][1])))
    try:
        dtype = fn.__wrapped__(*make()).dtype
    except Exception:  # noqa: BLE001 - no plain form: the out= call decides
        dtype = pytensor.float32
    seeded = "bernoulli" in ident or "normal" in ident
    results = []
    for path in (fn, fn.__wrapped__):
        args, out = make(), pytensor.empty(0, dtype=dtype)
        if seeded:
            pytensor.manual_seed(99)
        r, err = _result_or_error(path, args, out)
        results.append((r, err, out))
    (r_fast, e_fast, o_fast), (r_slow, e_slow, o_slow) = results
    if e_slow is not None:
        assert type(e_fast) is type(e_slow) and str(e_fast) == str(e_slow)
        return
    assert e_fast is None, e_fast
    assert r_fast is o_fast and r_slow is o_slow
    _same(o_fast, o_slow)


def test_out_calls_of_common_functions_take_their_thunks():
    for name in ("add", "sub", "mul", "div", "exp", "tanh", "sigmoid", "maximum", "eq", "mm",
                 "matmul", "sum", "where", "clamp", "abs", "sqrt"):
        assert getattr(pytensor, name)._has_out_thunk, name
    x, o = _u(2, 3), pytensor.empty(0)
    assert pytensor.add(x, x, out=o) is o and o.shape == (2, 3)         # resized from empty
    with pytest.raises(TypeError):
        pytensor.add(x, x, out=x.tolist())                              # declined, then refused
    assert pytensor.add(x, x, out=None).shape == (2, 3)                 # out=None: a new tensor
    assert pytensor.add(x, 1, out=o) is o                               # a number: the binding


def test_public_bindings_use_the_thunks():
    assert isinstance(pytensor.add, _core._FastFunction)
    for name in ("add", "sub", "mul", "add_", "sub_", "mul_"):
        getattr(pytensor.Tensor, name)  # made on first use
        assert isinstance(pytensor.Tensor.__dict__[name], _core._FastMethod), name
    assert isinstance(pytensor.unsqueeze, _core._FastFunction)


def test_thunk_errors_are_the_bindings():
    x = _t(2, 3)
    for call in (lambda f: f(x, 5), lambda f: f(x, -4)):
        with pytest.raises(IndexError) as fast:
            call(_fast(pytensor.unsqueeze))
        with pytest.raises(IndexError) as slow:
            call(pytensor.unsqueeze.__wrapped__)
        assert str(fast.value) == str(slow.value)
    with pytest.raises(RuntimeError) as fast:
        pytensor.add(_t(2, 3), _t(4))
    with pytest.raises(RuntimeError) as slow:
        pytensor.add.__wrapped__(_t(2, 3), _t(4))
    assert str(fast.value) == str(slow.value)
    assert "must match the size" in str(fast.value)


def test_declined_calls_reach_the_binding():
    x, y = _t(2, 3), _t(3)
    assert pytensor.add(x, y, alpha=2).tolist() == [[0, 3, 6], [3, 6, 9]]
    assert pytensor.add(x, 2).tolist() == [[2, 3, 4], [5, 6, 7]]      # a number for a Tensor
    assert x.unsqueeze(dim=0).shape == (1, 2, 3)                       # a keyword
    with pytest.raises(TypeError, match="unsqueeze"):
        x.unsqueeze(1.0)                                                # a float for an int
    with pytest.raises(TypeError, match="must be int, not bool"):
        pytensor.unsqueeze(x, True)                                     # bool is not an int here

    class Dim(int):
        pass

    assert pytensor.unsqueeze(x, Dim(1)).shape == (2, 1, 3)            # an int subclass
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        pytensor.unsqueeze(x, 2 ** 70)                                  # beyond int64
    with pytest.raises(TypeError):
        pytensor.add(x)                                                 # too few arguments


def test_methods_bind_like_functions():
    x, y = _t(3), _t(3)
    m = x.add
    assert m.__self__ is x and m(y).tolist() == [0, 2, 4]
    assert pytensor.Tensor.add(x, y).tolist() == [0, 2, 4]
    assert isinstance(pytensor.Tensor.__dict__["add"], _core._FastMethod)
    assert pytensor.add.__name__ == "add" and pytensor.Tensor.add.__qualname__ == "Tensor.add"
    assert "Schemas:" in pytensor.add.__doc__ and pytensor.add.__module__ == "pytensor"
    assert "add" in repr(pytensor.add)
    assert callable(pytensor.add.__wrapped__)


# ---------------------------------------------------------------- number slots
def test_tensor_operators_with_numbers():
    x = _t(3)
    i8 = pytensor.tensor([1, 2, 3], dtype=pytensor.int8)
    h = pytensor.tensor([1.0, 2.0], dtype=pytensor.float16)
    assert (x + 1).tolist() == [1, 2, 3] and (x + 1).dtype == pytensor.float32
    assert (1 + x).tolist() == [1, 2, 3]
    assert (x - 1.5).tolist() == [-1.5, -0.5, 0.5]
    assert (10 - x).tolist() == [10, 9, 8]
    assert (2 * x).tolist() == [0, 2, 4] and (x * 2).tolist() == [0, 2, 4]
    assert (i8 + 1000).dtype == pytensor.int8           # a wrapped number keeps the dtype
    assert (i8 + 1.5).dtype == pytensor.float32          # ...until the kind changes
    assert (h + 0.5).dtype == pytensor.float16
    assert (i8 * True).tolist() == [1, 2, 3] and (i8 * True).dtype == pytensor.int8
    b = pytensor.tensor([True, False])
    assert (b + True).dtype == pytensor.bool
    c = x + 1j
    assert c.dtype == pytensor.complex64 and c.tolist() == [1j, 1 + 1j, 2 + 1j]


def test_tensor_operators_fall_back_for_other_operands():
    np = pytest.importorskip("numpy")
    x = _t(3)
    assert (x + np.float32(2)).tolist() == [2, 3, 4]
    r = np.float64(1) + x
    assert isinstance(r, pytensor.Tensor) and r.tolist() == [1, 2, 3]
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        "a" - x
    with pytest.raises(TypeError):
        x + None
    with pytest.raises(OverflowError, match="int too big"):
        x + 2 ** 70
    with pytest.raises(OverflowError, match="int too big"):
        2 ** 64 - x
    with pytest.raises(RuntimeError, match="must match"):
        x + _t(4)


def test_in_place_operators_return_the_same_object():
    x = _t(3)
    y = x
    before = sys.getrefcount(x)
    for _ in range(50):
        x += 1
        x -= _t(3)
        x *= 1
    assert x is y and sys.getrefcount(x) == before
    i = pytensor.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i += 1.5


def test_operators_without_an_operator_raise_type_errors():
    x = _t(3)
    if not hasattr(pytensor, "div"):
        with pytest.raises(TypeError):
            x / 2
    if not hasattr(pytensor, "neg"):
        with pytest.raises(TypeError, match="unary -"):
            -x


def test_subclass_instances_take_the_fast_paths():
    class Mine(pytensor.Tensor):
        pass

    x = pytensor.ones(3)
    m = pytensor.Tensor._make_subclass(Mine, x) if hasattr(pytensor.Tensor, "_make_subclass") \
        else None
    if m is None:
        m = pytensor._C._core._TensorBase.__new__(Mine)
        m._h = lib.pt_call_clone(x._h, -1)
    m.extra = 1                                        # a subclass has a __dict__
    r = m + x
    assert type(r) is pytensor.Tensor and r.tolist() == [2, 2, 2]
    assert pytensor.add(m, x).tolist() == [2, 2, 2]
    ref = weakref.ref(m)
    del m
    gc.collect()
    assert ref() is None


# ---------------------------------------------------------------- the base type
def test_handle_rules():
    base = _core._TensorBase
    shell = base.__new__(pytensor.Tensor)
    with pytest.raises(AttributeError):
        shell._h
    with pytest.raises(RuntimeError, match="holds no tensor"):
        shell.shape
    with pytest.raises(TypeError):
        shell._h = 3
    with pytest.raises(ValueError, match="non-NULL"):
        shell._h = ffi.NULL
    x = pytensor.ones(2)
    p = x._h
    lib.pt_tensor_retain(p)
    shell._h = p
    assert shell.tolist() == [1.0, 1.0] and lib.pt_tensor_refcount(p) == 2
    q = lib.pt_call_clone(p, -1)
    shell._h = q                                       # adopting another releases the first
    assert lib.pt_tensor_refcount(p) == 1
    with pytest.raises(AttributeError):
        del shell._h
    assert shell._h is shell._h                        # one cdata, kept


def test_metadata_reads():
    x = _t(2, 3, 4)
    assert type(x.shape) is pytensor.Size and x.shape == (2, 3, 4)
    assert x.size() == x.shape and x.size(-1) == 4
    assert pytensor.tensor(1.0).shape == ()
    assert x.dtype is pytensor.float32 and x.ndim == 3 and x.dim() == 3
    assert x.numel() == 24 and x.nelement() == 24 and x.ndimension() == 3
    assert x.device == pytensor.device("cpu") and x.device is pytensor.zeros(1).device
    assert pytensor.empty(2, device="meta").device.type == "meta"


def test_weak_references_and_collection():
    x = pytensor.ones(2)
    r = weakref.ref(x)
    assert r() is x
    del x
    assert r() is None


def test_fast_paths_leak_nothing():
    x, y = _t(64), _t(64)
    for _ in range(10):
        x + y
    gc.collect()
    stats = pytensor.memory_stats()
    refs = sys.getrefcount(x), sys.getrefcount(y)
    for _ in range(2000):
        x + y
        x + 1.5
        2 - x
        pytensor.add(x, y)
        x.unsqueeze(0)
        x.add_(y)
        x.mul_(0)
        x.t()
        try:
            pytensor.add(x, _t(3))
        except RuntimeError:
            pass
    gc.collect()
    after = pytensor.memory_stats()
    assert after["bytes_in_use"] == stats["bytes_in_use"]
    assert (sys.getrefcount(x), sys.getrefcount(y)) == refs


def test_threads_share_the_fast_paths():
    # Large operands release the GIL inside the thunk; every thread must still get its results.
    a = pytensor.ones(1 << 17)
    b = pytensor.full((1 << 17,), 2.0)
    errors = []

    def work(k):
        try:
            for _ in range(20):
                r = a * k + b
                assert r[0].item() == k + 2.0 and r[-1].item() == k + 2.0
                s = pytensor.ones(1) + k
                assert s.item() == k + 1
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_python_kernel_exceptions_cross_the_thunks():
    import pytensor.library as L

    class Boom(Exception):
        pass

    def python_fallback(op, *args, **kwargs):
        raise Boom(op.name())

    fb = L.Library("aten", "IMPL")
    fb.fallback(python_fallback, "Python")
    x = pytensor.ones(1)
    try:
        with pytensor._C._IncludeDispatchKeyGuard("Python"):
            with pytest.raises(Boom, match="aten::add.Tensor"):
                x + x
            with pytest.raises(Boom, match="aten::unsqueeze"):
                x.unsqueeze(0)
    finally:
        fb._destroy()
    assert (x + x).tolist() == [2.0]


# ---------------------------------------------------------------- Python kernels (Note [Python kernels in C])
@pytest.fixture
def plain_op():
    import pytensor.library as L
    ns = f"fastk{next(_counter)}"
    lib = L.Library(ns, "FRAGMENT")
    lib.define("two(Tensor x, Tensor y) -> Tensor")
    yield lib, getattr(pytensor.ops, ns).two
    lib._destroy()


_counter = __import__("itertools").count()


def test_plain_python_kernels_run_through_c(plain_op):
    lib, op = plain_op
    seen = []

    def kernel(x, y):
        seen.append((type(x), x.tolist(), y.tolist()))
        return x * 2 + y

    lib.impl("two", kernel, "CPU")
    x, y = pytensor.ones(2), pytensor.full((2,), 3.0)
    assert op(x, y).tolist() == [5.0, 5.0]
    assert op.default(x, y).tolist() == [5.0, 5.0]
    assert seen == [(pytensor.Tensor, [1.0, 1.0], [3.0, 3.0])] * 2


def test_python_kernel_results_are_checked(plain_op):
    lib, op = plain_op
    lib.impl("two", lambda x, y: 3, "CPU")
    with pytest.raises(TypeError, match="Unable to cast 3 to Tensor"):
        op(pytensor.ones(1), pytensor.ones(1))


def test_python_kernel_exceptions_keep_their_identity(plain_op):
    lib, op = plain_op
    boom = KeyError("mine")

    def kernel(x, y):
        raise boom

    lib.impl("two", kernel, "CPU")
    with pytest.raises(KeyError) as info:
        op(pytensor.ones(1), pytensor.ones(1))
    assert info.value is boom and info.traceback[-1].name == "kernel"


def test_python_kernels_returning_an_argument_or_a_subclass(plain_op):
    defs, op = plain_op

    class Mine(pytensor.Tensor):
        pass

    x = pytensor.ones(2)
    defs.impl("two", lambda a, b: a, "CPU")
    r = op(x, x)
    assert r.tolist() == [1.0, 1.0] and r is x  # one object per C tensor
    import pytensor.library as L
    lib2 = L.Library(op._ns, "IMPL")
    try:
        def sub(a, b):
            m = _core._TensorBase.__new__(Mine)
            m._h = lib.pt_call_clone(a._h, -1)
            return m

        lib2.impl("two", sub, "CPU")
        assert type(op(x, x)) is pytensor.Tensor and op(x, x).tolist() == [1.0, 1.0]
    finally:
        lib2._destroy()


def test_python_kernels_leak_nothing_and_serve_threads(plain_op):
    lib, op = plain_op
    lib.impl("two", lambda x, y: x + y, "CPU")
    x = pytensor.ones(16)
    for _ in range(5):
        op(x, x)
    gc.collect()
    before = pytensor.memory_stats()["bytes_in_use"], sys.getrefcount(x)
    errors = []

    def work():
        try:
            for _ in range(300):
                assert op(x, x)[0].item() == 2.0
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    work()
    for t in threads:
        t.join()
    gc.collect()
    assert errors == []
    assert (pytensor.memory_stats()["bytes_in_use"], sys.getrefcount(x)) == before


def test_deregistered_python_kernel_says_so(plain_op):
    lib, op = plain_op
    import pytensor.library as L
    impl = L.Library(op._ns, "IMPL")
    impl.impl("two", lambda x, y: x, "CPU")
    cells = list(impl._cells)
    impl._destroy()
    assert cells and cells[0].fn is None
    with pytest.raises(NotImplementedError):
        op(pytensor.ones(1), pytensor.ones(1))


def test_internal_set_up_functions_refuse_bad_arguments():
    with pytest.raises(ValueError, match="has no number slot"):
        _core._set_operator("__divmod__", None)
    with pytest.raises(ValueError, match="no thunk for nope"):
        _core._set_operator("__add__", "nope")
    assert (_t(2) + _t(2)).tolist() == [0, 2]           # the slot kept its thunk
    with pytest.raises(TypeError, match="slow: not callable"):
        _core._fast_function("add_Tensor", 3, False)
    assert _core._fast_function("no_such_op", print, False) is None
    assert _core._fast_function("eye", print, True) is None   # eye's first argument is no self
    with pytest.raises(TypeError):
        _core._dispatch_tensors(1, (), 1)
    with pytest.raises(ValueError, match="bad operator or capacity"):
        _core._dispatch_tensors(0, [], 1)
    with pytest.raises(TypeError, match="Tensor: must subclass _TensorBase"):
        _core._python_setup(int, None, None, None, tuple, [], None)
    assert _core._wrapped_number("1") is None
    with pytest.raises(OverflowError, match="int too big"):
        _core._wrapped_number(-2 ** 63 - 1)
    w = _core._wrapped_number(-2 ** 63)
    assert w.dtype == pytensor.int64 and w.item() == -2 ** 63 and w.shape == ()
    assert isinstance(_core._FastMethod.__mro__[1], type) and \
        issubclass(_core._FastMethod, _core._FastFunction)


# ---------------------------------------------------------------- keywords, int-list sugar, chains
def _taken_by_a_thunk(fn, args, kwargs) -> bool:
    """Whether a C caller serves the call without its binding: the same chain (_chain) is made
    again with a binding that records being called."""
    binding, spec, keywords, same_self = fn._chain
    seen = []

    def record(*a, **k):
        seen.append(1)
        return binding(*a, **k)

    probe = _core._fast_caller(record, isinstance(fn, _core._FastMethod), spec, keywords,
                               same_self)
    try:
        probe(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a refused call: who refused it is what counts
        pass
    return not seen


def _same_or_same_error(fast, slow, args_fast, args_slow, kwargs, mode=""):
    results = []
    for fn, args in ((fast, args_fast), (slow, args_slow)):
        if "seeded" in mode:
            pytensor.manual_seed(7)
        try:
            results.append((fn(*args, **kwargs), None))
        except Exception as e:  # noqa: BLE001 - both paths must raise alike
            results.append((None, e))
    (r_fast, e_fast), (r_slow, e_slow) = results
    if e_slow is not None or e_fast is not None:
        assert type(e_fast) is type(e_slow) and str(e_fast) == str(e_slow), (e_fast, e_slow)
        return
    if "uninitialized" in mode:
        assert (r_fast.shape, r_fast.dtype, r_fast.stride()) == \
            (r_slow.shape, r_slow.dtype, r_slow.stride())
    else:
        _same(r_fast, r_slow)
    if "self" in mode:
        assert (r_fast is args_fast[0]) == (r_slow is args_slow[0])


def _f(name):
    return lambda: getattr(pytensor, name)


def _m(name):
    def get():
        getattr(pytensor.Tensor, name)  # a method made on first use replaces its placeholder
        return pytensor.Tensor.__dict__[name]
    return get


_F64 = pytensor.float64
# (caller, argument maker, keywords, mode): "fast" says the call must be a thunk's. Each is called
# through its C caller and through the binding (its __wrapped__): same results or same errors.
CALL_FORMS = [
    # keywords of optional and keyword-only parameters, and the overload chain
    (_f("add"), lambda: (_t(2, 3), _t(3)), {"alpha": 2}, "fast"),
    (_f("add"), lambda: (_t(2, 3), 2), {"alpha": 1.5}, "fast"),
    (_f("sub"), lambda: (_t(2, 3), _t(3)), {"alpha": True}, "fast"),
    (_m("clamp"), lambda: (_t(2, 3) - 2,), {"min": 0}, "fast"),
    (_m("clamp"), lambda: (_t(2, 3) - 2,), {"min": 0, "max": 1.5}, "fast"),
    (_m("clamp"), lambda: (_t(2, 3) - 2,), {"max": _t(3)}, "fast"),
    (_m("clamp"), lambda: (_t(2, 3),), {"min": None}, "fast"),        # refused alike
    (_m("sum"), lambda: (_t(2, 3),), {"dim": 1}, "fast"),
    (_m("sum"), lambda: (_t(2, 3), 1), {"keepdim": True}, "fast"),
    (_m("sum"), lambda: (_t(2, 3), (0, 1)), {}, "fast"),
    (_m("sum"), lambda: (_t(2, 3), [-1]), {"dtype": _F64}, "fast"),
    (_m("sum"), lambda: (_t(2, 3),), {"dtype": _F64}, "fast"),
    (_m("sum"), lambda: (_t(2, 3),), {"axis": 0}, ""),                # NumPy's name: the binding
    (_m("sum"), lambda: (_t(2, 3),), {"dim": 1, "keepdims": True}, ""),
    (_m("sum"), lambda: (_t(2, 3),), {"dim": 1.5}, ""),
    (_m("sum"), lambda: (_t(2, 3), 1), {"dim": 1}, ""),               # given twice: refused
    (_m("sum"), lambda: (_t(2, 3),), {"dims": 1}, ""),                # unknown: refused
    (_m("mean"), lambda: (_t(2, 3),), {"dim": -1}, "fast"),
    (_m("mean"), lambda: (_t(2, 3, dtype=pytensor.int32),), {"dim": -1}, "fast"),
    (_f("softmax"), lambda: (_t(2, 3),), {"dim": -1}, "fast"),
    (_f("softmax"), lambda: (_t(2, 3), 0), {"dtype": _F64}, "fast"),
    (_m("pow"), lambda: (_t(2, 3),), {}, ""),
    (_m("pow"), lambda: (_t(2, 3), 2), {}, "fast"),
    (_m("pow"), lambda: (_t(2, 3), 2 ** 70), {}, ""),
    (_m("lt"), lambda: (_t(2, 3), 0), {}, "fast"),
    (_m("mm"), lambda: (_t(2, 3), _t(3, 2)), {}, "fast"),
    (_f("add"), lambda: (_t(2, 3), _t(3)), {"out": None}, ""),
    (_f("add"), lambda: (_t(2, 3), _t(3)), {"out": pytensor.empty(0), "alpha": 3}, "fast"),
    (_f("add"), lambda: (_t(2, 3),), {"other": _t(3)}, "fast"),
    (_f("add"), lambda: (), {"input": _t(2, 3), "other": _t(3)}, "fast"),
    (_f("unsqueeze"), lambda: (_t(2, 3),), {"dim": True}, ""),
    # int-list sugar and the methods and factories written in Python
    (_m("view"), lambda: (_t(2, 3), 3, 2), {}, "fast"),
    (_m("view"), lambda: (_t(2, 3), -1), {}, "fast"),
    (_m("view"), lambda: (_t(2, 3), (6,)), {}, "fast"),
    (_m("view"), lambda: (_t(2, 3), [1, 6]), {}, "fast"),
    (_m("view"), lambda: (_t(2, 3), pytensor.Size([3, 2])), {}, "fast"),
    (_m("view"), lambda: (_t(2, 3), 4), {}, "fast"),                  # refused alike
    (_m("view"), lambda: (_t(2, 3), 3, 2.0), {}, ""),
    (_m("view"), lambda: (_t(2, 3), (3, True)), {}, ""),
    (_m("view"), lambda: (_t(2, 3), _F64), {}, ""),
    (_m("view"), lambda: (_t(2, 3),), {"size": (6,)}, ""),
    (_m("view"), lambda: (_t(2, 3),), {}, ""),
    (_m("reshape"), lambda: (_t(2, 3).t(), 6), {}, "fast"),
    (_m("permute"), lambda: (_t(2, 3, 4), 2, 0, 1), {}, "fast"),
    (_m("permute"), lambda: (_t(2, 3), (1, 0)), {}, "fast"),
    (_m("expand"), lambda: (_t(3, 1), 2, 3, -1), {}, "fast"),
    (_m("t"), lambda: (_t(2, 3),), {}, "fast"),
    (_m("t"), lambda: (_t(2, 3, 4),), {}, "fast"),                    # refused alike
    (_m("transpose"), lambda: (_t(2, 3, 4),), {"dim0": 0, "dim1": 2}, "fast"),
    (_m("flatten"), lambda: (_t(2, 3, 4), 1), {}, "fast"),
    (_m("flatten"), lambda: (_t(2, 3, 4),), {"end_dim": 1}, "fast"),
    (_m("unsqueeze"), lambda: (_t(2, 3), -1), {}, "fast"),
    (_m("narrow"), lambda: (_t(4, 5), 1, 1, 3), {}, "fast"),
    (_m("select"), lambda: (_t(4, 5), 0, -1), {}, "fast"),
    (_m("unfold"), lambda: (_t(8), 0, 3, 2), {}, "fast"),
    (_m("to"), lambda: (_t(2, 3), _F64), {}, "fast self"),
    (_m("to"), lambda: (_t(2, 3), pytensor.float32), {}, "fast self"),
    (_m("to"), lambda: (_t(2, 3),), {"dtype": pytensor.float32, "copy": True}, "fast self"),
    (_m("to"), lambda: (_t(2, 3), "cpu"), {}, "self"),
    (_m("to"), lambda: (_t(2, 3), _t(1, dtype=_F64)), {}, "self"),
    (_m("clone"), lambda: (_t(2, 3).t(),), {}, "fast"),
    (_m("clone"), lambda: (_t(2, 3).t(),), {"memory_format": pytensor.contiguous_format}, ""),
    (_m("clone"), lambda: (_t(2, 3),), {"memory_format": 3}, ""),     # refused by the binding
    (_m("item"), lambda: (_t(1) + 2.5,), {}, "fast"),
    (_m("item"), lambda: (pytensor.tensor([[-3]]),), {}, "fast"),
    (_m("item"), lambda: (pytensor.tensor(True),), {}, ""),
    (_m("item"), lambda: (pytensor.tensor(1 + 2j),), {}, ""),
    (_m("item"), lambda: (_t(2),), {}, ""),                           # refused by the binding
    (_f("tensor"), lambda: ([1.0, 2.5, -0.0, float("inf"), 1e300, 2 ** 53 + 1],), {}, "fast"),
    (_f("tensor"), lambda: ((1, -2, 2 ** 63 - 1),), {}, "fast"),
    (_f("tensor"), lambda: ([True, False],), {}, "fast"),
    (_f("tensor"), lambda: ([1, 2.5],), {}, "fast"),
    (_f("tensor"), lambda: ([1, 2 ** 64],), {}, ""),
    (_f("tensor"), lambda: ([True, 2.5],), {}, ""),
    (_f("tensor"), lambda: ([],), {}, ""),
    (_f("tensor"), lambda: ([[1.0], [2.0]],), {}, ""),
    (_f("tensor"), lambda: ([1j],), {}, ""),
    (_f("tensor"), lambda: ([1.0],), {"dtype": _F64}, ""),
    (_f("tensor"), lambda: (), {"data": [1.0]}, ""),
    (_f("zeros"), lambda: (2, 3), {}, "fast"),
    (_f("zeros"), lambda: ((2, 3),), {"dtype": _F64}, "fast"),
    (_f("zeros"), lambda: ([],), {}, "fast"),
    (_f("zeros"), lambda: (), {}, ""),
    (_f("zeros"), lambda: (2, -3), {}, "fast"),                       # refused alike
    (_f("zeros"), lambda: (2,), {"requires_grad": False}, ""),
    (_f("zeros"), lambda: (2,), {"size": (3,)}, ""),
    (_f("ones"), lambda: (4,), {"dtype": pytensor.int8}, "fast"),
    (_f("empty"), lambda: (2, 3), {}, "fast uninitialized"),
    (_f("full"), lambda: ((2, 3), 1.5), {}, "fast"),
    (_f("full"), lambda: ((2,), 7), {}, "fast"),
    (_f("full"), lambda: ((2,), True), {}, "fast"),
    (_f("full"), lambda: ((2,), 1j), {}, "fast"),
    (_f("full"), lambda: ((2,), 7), {"dtype": _F64}, "fast"),
    (_f("arange"), lambda: (10,), {}, "fast"),
    (_f("arange"), lambda: (2.5,), {}, "fast"),
    (_f("arange"), lambda: (1, 4), {}, "fast"),
    (_f("arange"), lambda: (0, 1, 0.25), {}, "fast"),
    (_f("arange"), lambda: (5,), {"dtype": _F64}, "fast"),
    (_f("arange"), lambda: (0, 10, 0), {}, "fast"),                    # refused alike
    (_f("linspace"), lambda: (0, 1, 5), {}, "fast"),
    (_f("zeros_like"), lambda: (_t(2, 3).t(),), {}, "fast"),
    (_f("ones_like"), lambda: (_t(2, 3),), {"dtype": pytensor.int32}, "fast"),
    (_f("empty_like"), lambda: (_t(2, 3).t(),), {}, "fast uninitialized"),
    (_f("full_like"), lambda: (_t(2, 3), 2), {}, "fast"),
    (_f("randn"), lambda: (4, 5), {}, "fast seeded"),
    (_f("rand"), lambda: ((3,),), {"dtype": _F64}, "fast seeded"),
    (_f("randn_like"), lambda: (_t(2, 3),), {}, "fast seeded"),
]


@pytest.mark.parametrize("i", range(len(CALL_FORMS)))
def test_call_forms_match_their_bindings(i):
    get, make, kwargs, mode = CALL_FORMS[i]
    fn = get()
    assert isinstance(fn, (_core._FastFunction, _core._FastMethod)), fn
    _same_or_same_error(fn, fn.__wrapped__, make(), make(), kwargs, mode)
    assert _taken_by_a_thunk(fn, make(), kwargs) == ("fast" in mode), (i, kwargs)


def test_factories_follow_the_default_dtype():
    old = pytensor.get_default_dtype()
    pytensor.set_default_dtype(pytensor.float64)
    try:
        for fn, args in ((pytensor.zeros, (2,)), (pytensor.arange, (2.5,)),
                         (pytensor.tensor, ([1, 0.5],)),
                         (pytensor.full, ((2,), 0.5)), (pytensor.randn, (3,)),
                         (pytensor.empty, (1,))):
            assert fn(*args).dtype == fn.__wrapped__(*args).dtype == pytensor.float64
    finally:
        pytensor.set_default_dtype(old)


def test_tensor_methods_take_the_method_call_path():
    # Note [no Tensor.__getattr__]: a __getattr__ anywhere in Tensor's MRO makes every method
    # call build a bound method first.
    assert all("__getattr__" not in vars(c) and "__getattribute__" not in vars(c)
               for c in pytensor.Tensor.__mro__ if c is not object)
    t = pytensor.tensor([2.5])
    assert type(vars(pytensor.Tensor)["item"]).__name__ == "_FastMethod"
    assert t.item() == 2.5
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_name'"):
        t.no_such_name
    # A method nobody has read yet is a placeholder that the first read replaces, from an
    # instance or from the class.
    lazy = [n for n, v in vars(pytensor.Tensor).items() if type(v).__name__ == "_LazyMethod"]
    assert len(lazy) >= 2
    getattr(t, lazy[0])
    getattr(pytensor.Tensor, lazy[1])
    assert type(vars(pytensor.Tensor)[lazy[0]]).__name__ != "_LazyMethod"
    assert type(vars(pytensor.Tensor)[lazy[1]]).__name__ != "_LazyMethod"
