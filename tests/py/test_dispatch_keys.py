"""Dispatch keys from Python: the priority order (checked against torch's), the dump of one
operator, the thread-local included/excluded sets and the guards that change them, seen both
from Python and in the key sets the C dispatcher computes."""

import threading

import pytest

import pytensor
from pytensor import _C, _dispatch
from pytensor._C import ffi, lib

KEYS = ["AutogradMeta", "AutogradCUDA", "AutogradCPU", "Negative", "Conjugate", "Python",
        "BackendSelect", "Meta", "CUDA", "CPU"]


def test_keys_are_listed_highest_priority_first():
    assert _dispatch._dispatch_keys() == KEYS


def test_key_order_matches_torch():
    torch = pytest.importorskip("torch")
    ks = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
    for name in KEYS:
        ks = ks | torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, name))
    # torch prints a key set lowest priority first.
    printed = repr(ks)[len("DispatchKeySet("):-1].split(", ")
    assert printed == KEYS[::-1]


class _Op:
    """An operator defined through the ABI for one test, with no kernels of its own: its backend
    slots are missing (so their keys stay in key sets) and BackendSelect, Python and the autograd
    keys are fallthroughs (so they drop out)."""

    def __init__(self, schema: str):
        reg = ffi.new("pt_registration **")
        _C._check(lib.pt_dispatch_def(schema.encode(), b"tests/py/test_dispatch_keys.py", reg))
        self.reg = reg[0]
        name = schema.split("(")[0]
        out = ffi.new("pt_op **")
        _C._check(lib.pt_dispatch_find(name.encode(), ffi.NULL, out))
        self.op = out[0]

    def keyset(self, *tensors) -> list:
        items = ffi.new("pt_ivalue[]", max(len(tensors), 1))
        for i, t in enumerate(tensors):
            items[i].tag = lib.PT_IV_TENSOR
            items[i].t = t._h
        stack = ffi.new("pt_stack *", {"items": items, "size": len(tensors),
                                       "capacity": max(len(tensors), 1)})
        out = ffi.new("uint64_t *")
        _C._check(lib.pt_dispatch_keyset(self.op, stack, out))
        return _dispatch._keyset_names(out[0])

    def call(self, *tensors):
        items = ffi.new("pt_ivalue[]", 4)
        for i, t in enumerate(tensors):
            items[i].tag = lib.PT_IV_TENSOR
            items[i].t = t._h
        stack = ffi.new("pt_stack *", {"items": items, "size": len(tensors), "capacity": 4})
        _C._check(lib.pt_dispatch_call(self.op, stack))

    def release(self):
        lib.pt_registration_release(self.reg)


@pytest.fixture
def op(request):
    o = _Op(f"test_dk::{request.node.name}(Tensor a, Tensor b) -> Tensor")
    yield o
    o.release()


def test_dump_shows_schema_and_table(op):
    name = lib.pt_op_name(op.op)
    text = _dispatch._dispatch_dump(_C._str(name))
    assert "schema: test_dk::test_dump_shows_schema_and_table(Tensor a, Tensor b) -> Tensor" in text
    assert "CPU: missing" in text
    assert "BackendSelect: fallthrough" in text


def test_dump_of_an_unknown_operator_is_empty():
    assert _dispatch._dispatch_dump("test_dk::never_registered") == ""
    torch = pytest.importorskip("torch")
    assert torch._C._dispatch_dump("test_dk::never_registered") == ""


def test_dump_refuses_a_malformed_name():
    with pytest.raises(ValueError, match="not an operator name|malformed"):
        _dispatch._dispatch_dump("test_dk::bad name")


def test_default_sets_match_torch():
    assert _dispatch._dispatch_tls_local_include_set() == ["BackendSelect"]
    assert _dispatch._dispatch_tls_local_exclude_set() == []


def test_include_guard_adds_keys_for_the_block_only(op):
    a = pytensor.empty(2)
    assert op.keyset(a, a) == ["CPU"]
    with _dispatch._IncludeDispatchKeyGuard("Meta") as g:
        assert isinstance(g, _dispatch._IncludeDispatchKeyGuard)
        assert _dispatch._dispatch_tls_local_include_set() == ["BackendSelect", "Meta"]
        assert op.keyset(a, a) == ["Meta", "CPU"]
        # Python is included but is a fallthrough for an op without a Python kernel.
        with _dispatch._IncludeDispatchKeyGuard(["Python", "Meta"]):
            assert _dispatch._dispatch_tls_local_include_set() == ["Python", "BackendSelect",
                                                                   "Meta"]
            assert op.keyset(a, a) == ["Meta", "CPU"]
        # The inner guard took back Python only: Meta was the outer guard's.
        assert _dispatch._dispatch_tls_local_include_set() == ["BackendSelect", "Meta"]
    assert _dispatch._dispatch_tls_local_include_set() == ["BackendSelect"]
    assert op.keyset(a, a) == ["CPU"]


def test_exclude_guard_removes_keys_and_beats_include(op):
    a, m = pytensor.empty(2), pytensor.empty(2, device="meta")
    assert op.keyset(a, m) == ["Meta", "CPU"]
    with _dispatch._ExcludeDispatchKeyGuard(lib.PT_KEY_META):
        assert _dispatch._dispatch_tls_local_exclude_set() == ["Meta"]
        assert op.keyset(a, m) == ["CPU"]
        with _dispatch._IncludeDispatchKeyGuard("Meta"):
            assert op.keyset(a, a) == ["CPU"]
    assert _dispatch._dispatch_tls_local_exclude_set() == []
    with _dispatch._ExcludeDispatchKeyGuard(["CPU", "Meta"]):
        assert _dispatch._dispatch_tls_local_exclude_set() == ["Meta", "CPU"]
        assert op.keyset(a, m) == []


def test_calls_follow_the_guards(op):
    a, m = pytensor.empty(2), pytensor.empty(2, device="meta")
    name = _C._str(lib.pt_op_name(op.op))
    with pytest.raises(NotImplementedError, match=f"Could not run '{name}' with arguments from "
                                                  "the 'Meta' backend"):
        op.call(a, m)
    with _dispatch._ExcludeDispatchKeyGuard("Meta"):
        with pytest.raises(NotImplementedError, match="from the 'CPU' backend"):
            op.call(a, m)
        with _dispatch._ExcludeDispatchKeyGuard("CPU"):
            with pytest.raises(NotImplementedError, match="There were no tensor arguments"):
                op.call(a, m)


def test_guards_restore_on_exceptions():
    with pytest.raises(KeyError):
        with _dispatch._IncludeDispatchKeyGuard("Python"), \
                _dispatch._ExcludeDispatchKeyGuard("CPU"):
            raise KeyError("inside")
    assert _dispatch._dispatch_tls_local_include_set() == ["BackendSelect"]
    assert _dispatch._dispatch_tls_local_exclude_set() == []


def test_guard_keeps_keys_that_were_already_there():
    with _dispatch._IncludeDispatchKeyGuard("Python"):
        with _dispatch._IncludeDispatchKeyGuard("Python"):
            pass
        assert "Python" in _dispatch._dispatch_tls_local_include_set()
    assert "Python" not in _dispatch._dispatch_tls_local_include_set()


def test_guard_does_nothing_until_entered():
    g = _dispatch._IncludeDispatchKeyGuard("Python")
    assert "Python" not in _dispatch._dispatch_tls_local_include_set()
    with g:
        assert "Python" in _dispatch._dispatch_tls_local_include_set()
    with g:  # reusable, as torch's
        assert "Python" in _dispatch._dispatch_tls_local_include_set()
    assert "Python" not in _dispatch._dispatch_tls_local_include_set()


def test_sets_belong_to_their_thread():
    seen = {}

    def other():
        seen["include"] = _dispatch._dispatch_tls_local_include_set()
        seen["exclude"] = _dispatch._dispatch_tls_local_exclude_set()

    with _dispatch._IncludeDispatchKeyGuard("Python"), _dispatch._ExcludeDispatchKeyGuard("Meta"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == {"include": ["BackendSelect"], "exclude": []}


def test_bad_keys_are_refused():
    with pytest.raises(ValueError, match="unknown dispatch key 'XLA'|unknown name 'XLA'"):
        _dispatch._IncludeDispatchKeyGuard("XLA")
    with pytest.raises(ValueError, match="'Autograd' is not a runtime dispatch key"):
        _dispatch._ExcludeDispatchKeyGuard("Autograd")
    with pytest.raises(ValueError, match="10 is not a runtime dispatch key"):
        _dispatch._ExcludeDispatchKeyGuard(10)
    with pytest.raises(TypeError, match="got float"):
        _dispatch._IncludeDispatchKeyGuard(["CPU", 1.5])
    with pytest.raises(TypeError, match="got bool"):
        _dispatch._IncludeDispatchKeyGuard(True)


def test_torch_c_names_are_on_pytensor_C():
    for name in ["_dispatch_keys", "_dispatch_dump", "_IncludeDispatchKeyGuard",
                 "_ExcludeDispatchKeyGuard", "_dispatch_tls_local_include_set",
                 "_dispatch_tls_local_exclude_set"]:
        assert getattr(_C, name) is getattr(_dispatch, name)
    assert _C._dispatch_keys() == KEYS


def test_dump_of_a_declared_operator_shows_its_kernels_and_table():
    text = _C._dispatch_dump("aten::add.Tensor")
    assert text.startswith("name: aten::add.Tensor\nschema: aten::add.Tensor(Tensor self, Tensor "
                           "other, *, Scalar alpha=1) -> Tensor\n")
    assert "\nCPU: " in text and "[kernel]" in text
    assert "\nCUDA: " in text  # the table names every runtime key
    assert "fallthrough keys: [BackendSelect, Python" in text


def test_guards_reach_operator_calls():
    a, b = pytensor.ones(2), pytensor.ones(2)
    with _C._ExcludeDispatchKeyGuard("CPU"):
        with pytest.raises(NotImplementedError, match="There were no tensor arguments"):
            pytensor.add(a, b)
        with pytest.raises(NotImplementedError, match="There were no tensor arguments"):
            a + b
    assert (a + b).tolist() == [2.0, 2.0]
