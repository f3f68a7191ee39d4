"""Schema parsing from Python: the corpus round-trips, its fields match PyTorch's parser, malformed
schemas raise RuntimeError at their column, defaults come back as pytensor's objects."""

import os
import pickle
import re

import pytest

import pytensor
from pytensor import _C
from pytensor._schema import AliasInfo, FunctionSchema

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def _corpus():
    """(schema, torch_reads_it) for every line of tests/data/schemas.txt."""
    out, torch_section = [], True
    with open(os.path.join(DATA, "schemas.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! torch: no"):
                torch_section = False
            if line.strip() and not line.lstrip().startswith("#"):
                out.append((line, torch_section))
    return out


def _bad_corpus():
    out = []
    with open(os.path.join(DATA, "bad_schemas.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                column, what, schema = line.split("\t", 2)
                out.append((int(column), what, schema))
    return out


CORPUS = _corpus()
TORCH_CORPUS = [s for s, ok in CORPUS if ok]
BAD = _bad_corpus()


def test_corpus_is_large_and_exposed_as_torch_c_is():
    assert len(CORPUS) >= 150
    assert _C.parse_schema is pytensor._schema.parse_schema
    assert isinstance(_C.parse_schema("f() -> ()"), _C.FunctionSchema)


@pytest.mark.parametrize("text", [s for s, _ in CORPUS])
def test_corpus_round_trips_through_its_canonical_text(text):
    s = _C.parse_schema(text)
    again = _C.parse_schema(str(s))
    assert again == s and str(again) == str(s) and hash(again) == hash(s)
    assert pickle.loads(pickle.dumps(s)) == s
    # Each argument prints as it appears in the canonical text.
    printed = str(s)
    for a in s.arguments + s.returns:
        assert str(a) in printed


@pytest.mark.parametrize("column, what, text", BAD)
def test_malformed_schemas_raise_runtime_error_at_their_column(column, what, text):
    with pytest.raises(RuntimeError) as info:
        _C.parse_schema(text)
    msg = str(info.value)
    assert msg.startswith(f"schema: expected {what}")
    assert f" at column {column}: {text}" in msg


# ---------------------------------------------------------------- PyTorch as the oracle

_TORCH_SCALAR_TYPES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16",
                       6: "float32", 7: "float64", 9: "complex64", 10: "complex128", 11: "bool",
                       15: "bfloat16"}
_TORCH_TYPE_NAMES = {"SymInt": "int", "ScalarType": "int", "Layout": "int", "MemoryFormat": "int",
                     "Scalar": "number"}


def _torch_type(text: str) -> str:
    """How PyTorch prints the type of a schema type text: "int[]?" -> "Optional[List[int]]"."""
    base = re.match(r"\w+", text).group(0)
    t = _TORCH_TYPE_NAMES.get(base, base)
    for suffix in re.findall(r"\?|\[\d*\]", text[len(base):]):
        t = f"Optional[{t}]" if suffix == "?" else f"List[{t}]"
    return t


def _same_default(ours, arg, theirs):
    base = re.match(r"\w+", arg.type).group(0)
    if base == "ScalarType" and theirs is not None:
        return ours is getattr(pytensor, _TORCH_SCALAR_TYPES[theirs])
    if base == "Layout" and theirs is not None:
        return ours is (pytensor.strided, pytensor.sparse_coo)[theirs]
    if base == "MemoryFormat" and theirs is not None:
        return ours is pytensor.contiguous_format and theirs == 0
    if base == "Device" and theirs is not None:
        return str(ours) == str(theirs)
    if arg.N is not None and not isinstance(theirs, list) and theirs is not None:
        theirs = [theirs] * arg.N  # PyTorch leaves some repeated scalars unexpanded
    return type(ours) is type(theirs) and ours == theirs and \
        (not isinstance(ours, list) or all(type(a) is type(b) for a, b in zip(ours, theirs)))


def _compare_argument(ours, theirs, where):
    assert ours.name == theirs.name, where
    assert _torch_type(ours.type) == str(theirs.type), where
    assert ours.N == theirs.N, where
    assert ours.kwarg_only == theirs.kwarg_only, where
    assert ours.has_default_value() == theirs.has_default_value(), where
    if ours.has_default_value():
        assert _same_default(ours.default_value, ours, theirs.default_value), \
            (where, ours.default_value, theirs.default_value)
    a, b = ours.alias_info, theirs.alias_info
    assert ours.is_write == theirs.is_write, where
    if a is None:
        assert b is None or (not b.is_write and not b.before_set and not b.after_set), where
    else:
        # A list's elements' annotation is a contained type in both (torch's Python binding does
        # not show it; the list's own annotation copies its is_write, with empty sets).
        assert (b.is_write, b.before_set, b.after_set) == \
            (a.is_write, a.before_set, a.after_set), where


@pytest.mark.parametrize("text", TORCH_CORPUS)
def test_corpus_fields_match_pytorchs_parser(text):
    torch = pytest.importorskip("torch")
    theirs = torch._C.parse_schema(text)
    ours = _C.parse_schema(text)
    assert ours.name == theirs.name
    assert ours.overload_name == theirs.overload_name
    assert len(ours.arguments) == len(theirs.arguments)
    assert len(ours.returns) == len(theirs.returns)
    for i, (a, b) in enumerate(zip(ours.arguments, theirs.arguments)):
        _compare_argument(a, b, f"argument {i} of {text}")
    for i, (a, b) in enumerate(zip(ours.returns, theirs.returns)):
        _compare_argument(a, b, f"return {i} of {text}")
    # PyTorch's FunctionSchema has no is_vararg in Python; its printed form shows it.
    assert ours.is_vararg == ("..." in str(theirs).split(" -> ")[0])
    assert ours.is_varret == str(theirs).split(" -> ", 1)[1].rstrip(")").endswith("...")


def test_every_declaration_of_pytorchs_native_functions_parses_and_round_trips():
    torchgen = pytest.importorskip("torchgen")
    yaml = pytest.importorskip("yaml")
    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                        "native_functions.yaml")
    if not os.path.exists(path):
        pytest.skip("torchgen without its packaged native_functions.yaml")
    with open(path, encoding="utf-8") as f:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        funcs = [entry["func"] for entry in yaml.load(f, Loader=loader)]
    assert len(funcs) > 2000
    for text in funcs:
        s = _C.parse_schema(text)
        assert _C.parse_schema(str(s)) == s, text


# ---------------------------------------------------------------- the Python objects

def test_fields_of_a_declaration():
    s = _C.parse_schema("aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, "
                        "Tensor(a!) max, Tensor(b!) max_values) -> "
                        "(Tensor(a!) values, Tensor(b!) indices)")
    assert (s.name, s.overload_name) == ("aten::max", "dim_max")
    assert not s.is_vararg and not s.is_varret
    self, dim, keepdim, out1, out2 = s.arguments
    assert (self.name, self.type, self.N, self.kwarg_only, self.alias_info) == \
        ("self", "Tensor", None, False, None)
    assert keepdim.has_default_value() and keepdim.default_value is False
    assert not dim.has_default_value() and dim.default_value is None
    assert out1.kwarg_only and out1.is_out and out1.alias_info == AliasInfo(True, {"a"}, {"a"})
    assert [r.name for r in s.returns] == ["values", "indices"] and s.returns[1].is_write
    assert s.is_mutable
    assert repr(s) == f"FunctionSchema({str(s)!r})"


def test_types_keep_their_text_and_fixed_sizes():
    s = _C.parse_schema("f(Tensor?[] a, int[]? b, SymInt[2] c, int[1]? d, Tensor?[]? e, "
                        "DeviceIndex f) -> ()")
    assert [(a.type, a.N) for a in s.arguments] == [
        ("Tensor?[]", None), ("int[]?", None), ("SymInt[2]", 2), ("int[1]?", 1),
        ("Tensor?[]?", None), ("int", None)]


def test_defaults_are_python_values_and_pytensor_objects():
    s = _C.parse_schema(
        "f(ScalarType a=long, ScalarType? b=float, Layout c=strided, MemoryFormat d=channels_last, "
        "MemoryFormat? e=preserve_format, Device f=\"cuda:1\", Device g='cpu', int[2] h=1, "
        "float[] i=[1, 2.5], bool[2] j=True, complex k=-2j, str l='a\\tb', Scalar m=0.5, "
        "Scalar n=True, int o=Mean, int p=-9223372036854775808, float q=1e-05, Tensor? r=None, "
        "int s=None) -> ()")
    d = {a.name: a.default_value for a in s.arguments}
    assert d["a"] is pytensor.int64 and d["b"] is pytensor.float32
    assert d["c"] is pytensor.strided
    assert d["d"] is pytensor.channels_last and d["e"] is pytensor.preserve_format
    assert d["f"] == pytensor.device("cuda", 1) and d["g"] == pytensor.device("cpu")
    assert d["h"] == [1, 1] and d["i"] == [1.0, 2.5] and all(type(x) is float for x in d["i"])
    assert d["j"] == [True, True] and all(type(x) is bool for x in d["j"])
    assert d["k"] == -2j and type(d["k"]) is complex
    assert d["l"] == "a\tb"
    assert type(d["m"]) is float and d["n"] is True
    assert d["o"] == 1 and d["p"] == -2**63 and d["q"] == 1e-05
    assert d["r"] is None and d["s"] == 0  # at::Reduction::None for a non-optional int


def test_alias_info_sets_and_places():
    s = _C.parse_schema("f(Tensor(b|a -> *) x, Tensor! y, Tensor(c!)[] z, Tensor[](d) w) -> ()")
    x, y, z, w = (a.alias_info for a in s.arguments)
    assert (x.is_write, x.before_set, x.after_set) == (False, {"a", "b"}, {"*"})
    assert (y.is_write, y.before_set, y.after_set) == (True, {"$0"}, set())
    assert (z.is_write, z.before_set, z.after_set) == (True, set(), set())
    assert z.contained_types == [AliasInfo(True, {"c"}, {"c"})]
    assert s.arguments[2].element_alias_info == z.contained_types[0]
    assert not w.contained_types and w.before_set == {"d"} and not w.is_write
    assert str(s) == "f(Tensor(a|b -> *) x, Tensor! y, Tensor(c!)[] z, Tensor[](d) w) -> ()"


def test_parse_errors_carry_the_c_message_and_location():
    with pytest.raises(RuntimeError,
                       match=r"expected '->' but found 'end of input' at column 12") as info:
        _C.parse_schema("f(Tensor x)")
    assert info.value.c_location.startswith("csrc/core/schema")
    with pytest.raises(TypeError, match="must be str, not bytes"):
        _C.parse_schema(b"f() -> ()")
    with pytest.raises(ValueError, match="NUL"):
        _C.parse_schema("f() -> ()\0")
    with pytest.raises(TypeError):
        FunctionSchema()


def test_schema_owned_by_the_dispatcher_outlives_its_registration():
    ffi, lib = _C.ffi, _C.lib
    reg = ffi.new("pt_registration **")
    _C._check(lib.pt_dispatch_def(b"test_schema::held(Tensor x, *, int n=2) -> Tensor",
                                  b"test_schema.py", reg))
    try:
        op = ffi.new("pt_op **")
        _C._check(lib.pt_dispatch_find(b"test_schema::held", b"", op))
        s = FunctionSchema._from_handle(lib.pt_op_schema(op[0]))
    finally:
        lib.pt_registration_release(reg[0])
    # Our own reference keeps the text and the defaults alive after the def is gone.
    assert str(s) == "test_schema::held(Tensor x, *, int n=2) -> Tensor"
    assert s.arguments[1].default_value == 2
    with pytest.raises(RuntimeError, match="no schema"):
        FunctionSchema._from_handle(ffi.NULL)
