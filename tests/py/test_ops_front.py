"""The Python front of the dispatcher: functions and Tensor methods made from the registered
schemas, their argument handling (PyTorch's PythonArgParser rules and error texts), overload
resolution, the Tensor operators, ``pytensor.ops`` objects, and that every foundation operation
really goes through the dispatcher."""

import itertools
import threading

import numpy as np
import pytest

import pytensor
import pytensor.library as L
from pytensor import _C, _opsgen
from pytensor._C import lib

_ids = itertools.count()


def t(*values, dtype=None):
    return pytensor.tensor(list(values), dtype=dtype)


# ---------------------------------------------------------------- bindings per variant
def test_functions_and_methods_follow_the_declared_variants():
    a = t(1.0, 2.0)
    assert pytensor.add(a, a).tolist() == [2.0, 4.0]  # function, method
    assert a.add(a).tolist() == [2.0, 4.0]
    assert pytensor.Tensor.add is type(a).add
    assert a.add_(a) is a  # method only
    with pytest.raises(AttributeError, match="module 'pytensor' has no attribute 'add_'"):
        pytensor.add_
    with pytest.raises(AttributeError, match="has no attribute 'view'"):
        pytensor.view  # method only
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'zeros'"):
        a.zeros  # function only
    with pytest.raises(AttributeError, match="no_such_op"):
        a.no_such_op
    assert "add" in dir(pytensor)


def test_bindings_are_made_once_and_cached():
    f = pytensor.mul
    assert pytensor.mul is f
    assert "mul" in vars(pytensor)
    assert f.__name__ == "mul" and "aten::mul.Tensor" in f.__doc__
    m = pytensor.Tensor.sub
    assert pytensor.Tensor.sub is m and m.__qualname__ == "Tensor.sub"


def test_generated_source_has_a_fast_path_for_the_first_overload():
    src = pytensor.add._source
    assert "if not kwargs and len(args) == 2:" in src
    assert "_e(" in src and "_slow(None, args, kwargs)" in src


def test_operators_phase_is_reported():
    from pytensor import _ops
    phases = {p["name"]: p for p in _C._init_report()["python_phases"]}
    builtin = sum(len(ops) for name, ops in _ops.table().items() if name.startswith("aten::"))
    assert phases["operators"]["count"] == builtin > 50


# ---------------------------------------------------------------- argument handling
def test_positional_keyword_and_default_arguments():
    x = pytensor.arange(24).view(2, 3, 4)
    assert pytensor.flatten(x).shape == (24,)
    assert pytensor.flatten(x, 1).shape == (2, 12)
    assert pytensor.flatten(x, end_dim=1).shape == (6, 4)
    assert pytensor.flatten(input=x, start_dim=1).shape == (2, 12)
    assert pytensor.transpose(x, 0, 2).shape == (4, 3, 2)
    assert pytensor.transpose(x, dim1=2, dim0=0).shape == (4, 3, 2)


def test_keyword_only_arguments():
    a, b = t(1.0, 2.0), t(10.0, 20.0)
    assert pytensor.add(a, b, alpha=2).tolist() == [21.0, 42.0]
    assert pytensor.sub(b, a, alpha=2).tolist() == [8.0, 16.0]
    assert a.add(b, alpha=0.5).tolist() == [6.0, 12.0]
    with pytest.raises(TypeError, match="add\\(\\) received an invalid combination"):
        pytensor.add(a, b, 2)


def test_optional_arguments_take_none():
    x = pytensor.arange(6)
    assert pytensor.slice(x, 0, None, None, 2).tolist() == [0, 2, 4]
    assert pytensor.slice(x, 0, 1, None).tolist() == [1, 2, 3, 4, 5]
    assert x.slice(0, None, 3).tolist() == [0, 1, 2]
    assert pytensor.clone(x, memory_format=None).tolist() == x.tolist()


def test_int_list_sugar_as_torch():
    view = _opsgen.make_binding("aten::view", 2)
    x = pytensor.arange(6)
    for args in ((2, 3), ((2, 3),), ([2, 3],), (pytensor.Size([2, 3]),), (np.int64(2), 3)):
        assert view(x, *args).shape == (2, 3)
    assert view(x, size=(3, 2)).shape == (3, 2)
    assert view(x, 6).shape == (6,)
    with pytest.raises(TypeError, match="argument 'size' failed to unpack the object at pos 2 "
                                        "with error \"type must be tuple of ints,but got str\""):
        view(x, 2, "a")
    with pytest.raises(TypeError, match="argument 'size' must be tuple of ints, not int"):
        view(x, size=6)
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type str "
                                        "at pos 1"):
        view(x, (2, "a"))
    # Only when the int list is the one positional parameter.
    with pytest.raises(TypeError, match="permute\\(\\) takes 2 positional arguments but 3 were "
                                        "given"):
        pytensor.permute(pytensor.zeros(2, 3), 1, 0)
    assert pytensor.permute(pytensor.zeros(2, 3), (1, 0)).shape == (3, 2)


def test_int_list_sugar_of_the_function_forms():
    assert pytensor.zeros(2, 3).shape == (2, 3)
    assert pytensor.zeros((2, 3)).shape == (2, 3)
    zeros = _opsgen.make_binding("aten::zeros", 1)
    assert zeros(2, 3, dtype=pytensor.float64).dtype == pytensor.float64
    assert zeros((2, 3)).shape == (2, 3)


def test_single_signature_errors_name_the_argument():
    x = pytensor.zeros(2, 3)
    cases = [
        (lambda: pytensor.transpose(x, 0), 'transpose() missing 1 required positional argument: '
                                           '"dim1"'),
        (lambda: pytensor.transpose(x, 0, 1, 2), "transpose() takes 3 positional arguments but "
                                                 "4 were given"),
        (lambda: pytensor.transpose(x, 0, dim1="a"), "transpose(): argument 'dim1' must be int, "
                                                     "not str"),
        (lambda: pytensor.transpose(x, 0, "a"), "transpose(): argument 'dim1' (position 3) must "
                                                "be int, not str"),
        (lambda: pytensor.transpose(x, 0, 1, foo=1), "transpose() got an unexpected keyword "
                                                     "argument 'foo'"),
        (lambda: pytensor.transpose(x, 0, 1, dim0=1), "transpose() got multiple values for "
                                                      "argument 'dim0'"),
        (lambda: pytensor.unsqueeze(x, True), "unsqueeze(): argument 'dim' (position 2) must be "
                                              "int, not bool"),
        (lambda: pytensor.unsqueeze(x, 1.0), "must be int, not float"),
        (lambda: x.unsqueeze(dim=None), "unsqueeze(): argument 'dim' must be int, not NoneType"),
        (lambda: pytensor.transpose(1, 0, 1), "argument 'input' (position 1) must be Tensor, "
                                              "not int"),
    ]
    for fn, text in cases:
        with pytest.raises(TypeError) as info:
            fn()
        assert text in str(info.value)


def test_overload_resolution_and_its_error():
    a = t(1.0, 2.0)
    with pytest.raises(TypeError) as info:
        pytensor.add(a, "x")
    msg = str(info.value)
    assert msg.startswith("add() received an invalid combination of arguments - got (Tensor, "
                          "str), but expected one of:\n")
    assert " * (Tensor input, Tensor other, *, Number alpha = 1)\n" in msg
    assert "didn't match because some of the arguments have invalid types: (Tensor, !str!)" in msg
    assert " * (Tensor input, Number other, Number alpha = 1)" in msg
    with pytest.raises(TypeError, match=r"got \(Tensor, alpha=str\)"):
        pytensor.add(a, alpha="x")
    # squeeze: (), (int dim), (tuple of ints dim), as torch picks them
    x = pytensor.zeros(1, 2, 1)
    assert x.squeeze().shape == (2,)
    squeeze = _opsgen.make_binding("aten::squeeze", 2)
    assert squeeze(x).shape == (2,)
    assert squeeze(x, 0).shape == (2, 1)
    assert squeeze(x, (0, 2)).shape == (2,)
    with pytest.raises(TypeError, match="squeeze\\(\\) received an invalid combination"):
        squeeze(x, "a")


def test_python_numbers_become_wrapped_tensors_only_for_arithmetic():
    a = t(1, 2, dtype=pytensor.int32)
    assert pytensor.add(a, 1).dtype == pytensor.int32
    assert pytensor.add(1, a).tolist() == [2, 3]
    assert pytensor.mul(a, 2.5).dtype == pytensor.float32
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        pytensor.flatten(3)


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
SCALARS = [True, 3, -2, 2.5, 1 + 2j, np.float64(1.5), np.int64(4)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_wrapped_numbers_promote_as_torch(dtype):
    torch = pytest.importorskip("torch")

    def name(d):
        # pytensor has no complex32: half with a complex number gives complex64.
        return str(d).rpartition(".")[2].replace("complex32", "complex64")

    for s in SCALARS:
        tt = torch.ones(2, dtype=getattr(torch, dtype))
        pt = pytensor.ones(2, dtype=getattr(pytensor, dtype))
        want = name(torch.result_type(tt, s.item() if isinstance(s, np.generic) else s))
        assert name(pytensor.add(pt, s).dtype) == want
        assert name(pytensor.mul(pt, s).dtype) == want
        assert name((pt + s).dtype) == want and name((s * pt).dtype) == want


# ---------------------------------------------------------------- out=
def test_out_overloads_write_into_and_return_out():
    a, b = t(1.0, 2.0), t(3.0, 4.0)
    o = pytensor.empty(2)
    assert pytensor.add(a, b, out=o) is o and o.tolist() == [4.0, 6.0]
    assert pytensor.sub(a, b, alpha=2, out=o) is o and o.tolist() == [-5.0, -6.0]
    assert pytensor.mul(a, b, out=o) is o and o.tolist() == [3.0, 8.0]
    with pytest.raises(TypeError, match=r"got \(Tensor, out=Tensor\)"):
        a.add(b, out=o)  # the out overload is a function only, as in torch


# ---------------------------------------------------------------- operators
NP_DTYPES = ["int8", "int32", "int64", "float32", "float64", "complex64"]


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_operators_match_numpy(dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4)) * 5).astype(dtype)
    y = (rng.standard_normal((4,)) * 5).astype(dtype)
    tx, ty = pytensor.tensor(x), pytensor.tensor(y)
    for got, want in ((tx + ty, x + y), (tx - ty, x - y), (tx * ty, x * y), (ty + tx, y + x)):
        assert got.dtype == pytensor.tensor(want).dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    z = tx.clone()
    before = z
    z += ty
    z -= ty
    z *= ty
    assert z is before
    np.testing.assert_allclose(z.numpy(), x * y, rtol=1e-6)


def test_reflected_operators_with_numbers():
    a = t(1.0, 2.0)
    assert (1 - a).tolist() == [0.0, -1.0]
    assert (a - 1).tolist() == [0.0, 1.0]
    assert (3 * a).tolist() == [3.0, 6.0]
    assert (0.5 + a).tolist() == [1.5, 2.5]
    i = t(1, 2)
    assert (i + 1).dtype == pytensor.int64 and (i * 1.5).dtype == pytensor.float32
    with pytest.raises(TypeError, match="unsupported operand type"):
        a + "x"
    with pytest.raises(TypeError, match="unsupported operand type"):
        "x" - a
    assert a.__radd__("x") is NotImplemented


def test_operator_errors_come_from_the_kernel():
    with pytest.raises(RuntimeError, match="must match the size"):
        pytensor.zeros(3) + pytensor.zeros(4)


# ---------------------------------------------------------------- pytensor.ops
def test_op_objects():
    add = pytensor.ops.aten.add
    assert repr(add) == "<OpOverloadPacket(op='aten.add')>"
    assert {"Tensor", "Scalar", "out"} <= set(add.overloads())
    assert repr(add.Tensor) == "<OpOverload(op='aten.add', overload='Tensor')>"
    assert add.Tensor.name() == "aten::add.Tensor"
    assert add.Tensor is add.Tensor
    assert pytensor.ops.aten.view.default.name() == "aten::view"
    a = t(1.0, 2.0)
    assert add(a, a).tolist() == [2.0, 4.0]
    assert add(a, 1).tolist() == [2.0, 3.0]
    assert add.Tensor(a, a, alpha=2).tolist() == [3.0, 6.0]
    assert add.Scalar(a, 2).tolist() == [3.0, 4.0]
    assert pytensor.ops.aten.view.default(pytensor.arange(6), [2, 3]).shape == (2, 3)
    assert "schema: aten::add.Tensor" in add.Tensor._dispatch_dump() or \
        "aten::add.Tensor" in add.Tensor._dispatch_dump()
    with pytest.raises(AttributeError, match="'_OpNamespace' 'aten' object has no attribute "
                                             "'no_such_op'"):
        pytensor.ops.aten.no_such_op
    with pytest.raises(AttributeError, match="The underlying op of 'aten.add' has no overload "
                                             "name 'Foo'"):
        add.Foo
    with pytest.raises(TypeError, match="must be Tensor"):
        add.Tensor(a, "s")


def test_op_schema_objects():
    pytest.importorskip("pytensor._schema")
    s = pytensor.ops.aten.add.Tensor._schema
    assert str(s) == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert [a.name for a in s.arguments] == ["self", "other", "alpha"]


def test_op_objects_of_user_namespaces_see_new_overloads():
    ns = f"front{next(_ids)}"
    lib = L.Library(ns, "FRAGMENT")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x * 2, "CPU")
    packet = getattr(pytensor.ops, ns).f
    assert packet.overloads() == ["default"]
    lib.define("f.twice(Tensor x, Tensor y) -> Tensor")
    lib.impl("f.twice", lambda x, y: x + y, "CPU")
    assert packet.overloads() == ["default", "twice"]
    a = t(1.0)
    assert packet(a).tolist() == [2.0]
    assert packet(a, a).tolist() == [2.0]
    assert packet.twice(a, y=a).tolist() == [2.0]


# ---------------------------------------------------------------- through the dispatcher
FOUNDATION = [
    ("aten::view", lambda x: x.view(4)),
    ("aten::reshape", lambda x: x.reshape(4)),
    ("aten::flatten.using_ints", lambda x: x.flatten()),
    ("aten::transpose.int", lambda x: x.transpose(0, 1)),
    ("aten::permute", lambda x: x.permute(1, 0)),
    ("aten::t", lambda x: x.t()),
    ("aten::expand", lambda x: x[:1].expand(3, 2)),
    ("aten::squeeze", lambda x: x[:1].squeeze()),
    ("aten::squeeze.dim", lambda x: x[:1].squeeze(0)),
    ("aten::squeeze.dims", lambda x: x[:1].squeeze((0,))),
    ("aten::unsqueeze", lambda x: x.unsqueeze(0)),
    ("aten::narrow", lambda x: x.narrow(0, 0, 1)),
    ("aten::select.int", lambda x: x.select(0, 1)),
    ("aten::unfold", lambda x: x.unfold(1, 1, 1)),
    ("aten::as_strided", lambda x: x.as_strided((2,), (1,))),
    ("aten::copy_", lambda x: x.clone().copy_(x)),
    ("aten::fill_.Scalar", lambda x: x.clone().fill_(1)),
    ("aten::zero_", lambda x: x.clone().zero_()),
    ("aten::clone", lambda x: x.clone()),
    ("aten::contiguous", lambda x: x.t().contiguous()),
    ("aten::to.dtype_layout", lambda x: x.to(pytensor.float64)),
    ("aten::item", lambda x: x[0, 0].item()),
    ("aten::uniform_", lambda x: x.clone().uniform_()),
    ("aten::normal_", lambda x: x.clone().normal_()),
    ("aten::random_.from", lambda x: x.clone().random_(0, 5)),
    ("aten::zeros", lambda x: pytensor.zeros(2)),
    ("aten::ones", lambda x: pytensor.ones(2)),
    ("aten::full", lambda x: pytensor.full((2,), 3.0)),
    ("aten::empty.memory_format", lambda x: pytensor.empty(2)),
    ("aten::empty_strided", lambda x: pytensor.empty_strided((2,), (1,))),
    ("aten::arange", lambda x: pytensor.arange(3)),                   # torch: aten.arange.default
    ("aten::linspace", lambda x: pytensor.linspace(0, 1, 3)),
    ("aten::eye.m", lambda x: pytensor.eye(2)),
    ("aten::rand", lambda x: pytensor.rand(2)),
    ("aten::randn", lambda x: pytensor.randn(2)),
    ("aten::randint.low_generator", lambda x: pytensor.randint(0, 5, (2,))),
    ("aten::randperm.generator", lambda x: pytensor.randperm(3)),
    ("aten::normal.float_float", lambda x: pytensor.normal(0.0, 1.0, (2,))),
    ("aten::add.Tensor", lambda x: x + x),
    ("aten::sub.Tensor", lambda x: x - x),
    ("aten::mul.Tensor", lambda x: x * x),
    ("aten::add_.Tensor", lambda x: x.clone().__iadd__(x)),
]


@pytest.mark.parametrize("name,call", FOUNDATION, ids=[n for n, _ in FOUNDATION])
def test_foundation_operations_go_through_the_dispatcher(name, call):
    x = pytensor.arange(4, dtype=pytensor.float32).view(2, 2)
    plain = call(x)
    seen = []

    def python_key(op, *args, **kwargs):
        seen.append(op.name())
        with _C._ExcludeDispatchKeyGuard("Python"):
            return op(*args, **kwargs)

    lib = L.Library("aten", "IMPL")
    lib.fallback(python_key, "Python")
    try:
        with _C._IncludeDispatchKeyGuard("Python"):
            traced = call(x)
    finally:
        lib._destroy()
    assert name in seen
    if isinstance(plain, pytensor.Tensor) and name.partition("::")[2].split(".")[0] not in (
            "empty", "empty_strided", "uniform_", "normal_", "random_", "rand", "randn",
            "randint", "randperm", "normal"):
        assert traced.tolist() == plain.tolist() and traced.dtype == plain.dtype


def test_a_python_kernel_on_a_builtin_sees_tensor_methods():
    lib = L.Library("aten", "IMPL")
    calls = []

    def view_kernel(x, size):
        calls.append(list(size))
        with _C._ExcludeDispatchKeyGuard("Python"):
            return pytensor.ops.aten.view.default(x, size)

    lib.impl("view", view_kernel, "Python")
    try:
        x = pytensor.arange(6)
        with _C._IncludeDispatchKeyGuard("Python"):
            assert x.view(2, 3).shape == (2, 3)
        assert x.view(3, 2).shape == (3, 2)
    finally:
        lib._destroy()
    assert calls == [[2, 3]]


# ---------------------------------------------------------------- threads
def test_bindings_from_many_threads():
    a = pytensor.ones(16)
    errors = []

    def worker(k):
        try:
            for i in range(300):
                r = pytensor.add(a, a, alpha=k) if i % 2 else a * k
                if r.tolist()[0] != (1 + k if i % 2 else k):
                    errors.append((k, i))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(1, 5)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


# ---------------------------------------------------------------- _C wiring
def test_introspection_is_wired_on_C():
    assert _C._dispatch_keys()[-1] == "CPU"
    assert "aten::add.Tensor" in _C._dispatch_dump("aten::add.Tensor")
    with _C._IncludeDispatchKeyGuard("Python"):
        assert "Python" in _C._dispatch_tls_local_include_set()
    with _C._ExcludeDispatchKeyGuard("Meta"):
        assert "Meta" in _C._dispatch_tls_local_exclude_set()


def test_parse_schema_is_wired_on_C():
    pytest.importorskip("pytensor._schema")
    s = _C.parse_schema("foo.bar(Tensor x, int y=1) -> Tensor")
    assert s.name == "foo" and s.overload_name == "bar"
