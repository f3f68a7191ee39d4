"""Results and argument forms of torch's Python layer, against torch as the oracle: the
return_types named tuples (types, fields, repr, construction, pickling; functions and methods
give them, operator objects plain tuples), out= tuples of several outputs with torch's errors,
nonzero(as_tuple=True), torch.norm with a string p and the linalg namespace (vector_norm, cross,
matrix_norm, norm) with torch's messages."""
import copy
import math
import pickle

import numpy as np
import pytest

import pytensor as pt

from _torch_oracle import requires_torch, torch

pytestmark = requires_torch


def to_pt(x: torch.Tensor) -> pt.Tensor:
    return pt.from_numpy(x.numpy().copy()).clone()


def same(p, t, exact=True):
    assert isinstance(p, pt.Tensor) and isinstance(t, torch.Tensor)
    assert str(p.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    assert tuple(p.shape) == tuple(t.shape)
    if exact:
        assert p.tolist() == t.tolist()
    else:
        np.testing.assert_allclose(np.array(p.tolist()), np.array(t.tolist()), rtol=1e-5,
                                   atol=1e-6)


# No ties within a row or column: topk may order equal values either way.
X = torch.tensor([[1., 5, 3, 0], [4, 2, 6, -1], [8, -2, 7, 2]])


# ---------------------------------------------------------------- named tuples
CALLS = [  # (name, torch call, pytensor call) on X
    ("max", lambda m, x: m.max(x, 1), None),
    ("max", lambda m, x: x.max(dim=0, keepdim=True), None),
    ("min", lambda m, x: m.min(x, -1), None),
    ("min", lambda m, x: x.min(1, True), None),
    ("sort", lambda m, x: m.sort(x, 1, True), None),
    ("sort", lambda m, x: x.sort(stable=True, dim=0), None),
    ("topk", lambda m, x: m.topk(x, 2), None),
    ("topk", lambda m, x: x.topk(3, dim=1, largest=False), None),
]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_functions_and_methods_give_the_named_tuple_of_their_base_name(i):
    name, call, _ = CALLS[i]
    want = call(torch, X)
    got = call(pt, to_pt(X))
    assert type(want).__name__ == type(got).__name__ == name
    assert type(got) is getattr(pt.return_types, name)
    assert type(got).__module__ == "pytensor.return_types"
    assert isinstance(got, tuple) and len(got) == len(want) == 2
    assert type(got).__match_args__ == type(want).__match_args__
    for field in type(want).__match_args__:
        same(getattr(got, field), getattr(want, field))
    v, ix = got
    assert v is got.values and ix is got.indices and got[-1] is got.indices


def test_structseq_protocol_matches_torchs():
    T, W = pt.return_types.max, torch.return_types.max
    assert T.__mro__[1:] == W.__mro__[1:] == (tuple, object)
    for attr in ("n_fields", "n_sequence_fields", "n_unnamed_fields", "__match_args__"):
        assert getattr(T, attr) == getattr(W, attr)
    for seq in [(1, 2), [1, 2], iter((1, 2))]:
        r = T(seq)
        assert tuple(r) == (1, 2) and r.values == 1 and r.indices == 2
    assert T(sequence=(1, 2)) == (1, 2)
    assert T((1, 2))[:1] == (1,) and type(T((1, 2))[:1]) is tuple
    assert hash(T((1, 2))) == hash((1, 2)) and T((1, 2)) == (1, 2)
    for bad, n in [((1,), 1), ((1, 2, 3), 3)]:
        msg = f"takes a 2-sequence \\({n}-sequence given\\)"
        with pytest.raises(TypeError, match="torch.return_types.max\\(\\) " + msg):
            W(bad)
        with pytest.raises(TypeError, match="pytensor.return_types.max\\(\\) " + msg):
            T(bad)
    for cls in (T, W):
        with pytest.raises(TypeError, match="constructor requires a sequence"):
            cls(1)
        with pytest.raises(AttributeError):
            cls((1, 2)).values = 3
    assert not hasattr(T((1, 2)), "__dict__")


def test_repr_puts_one_field_per_line_like_torch():
    want = repr(torch.sort(X[:2, :3]))
    got = repr(pt.sort(to_pt(X[:2, :3])))
    assert want.startswith("torch.return_types.sort(\nvalues=tensor(")
    assert got == want.replace("torch.return_types", "pytensor.return_types")
    assert str(pt.max(to_pt(X), 1)) == repr(pt.max(to_pt(X), 1))
    assert repr(pt.return_types.topk((1, "a"))) == "pytensor.return_types.topk(\nvalues=1,\n" \
        "indices='a')"


def test_pickle_and_copy_keep_the_type():
    r = pt.max(to_pt(X), 1)
    for back in (pickle.loads(pickle.dumps(r)), copy.copy(r), copy.deepcopy(r)):
        assert type(back) is pt.return_types.max
        assert back.values.tolist() == r.values.tolist()
        assert back.indices.tolist() == r.indices.tolist()
    assert r.__reduce__()[0] is pt.return_types.max and r.__reduce__()[1][1] == {}


def test_module_lists_the_types_made_from_the_schemas():
    names = set(pt.return_types.__all__)
    assert {"max", "max_out", "min", "min_out", "sort", "sort_out", "topk", "topk_out"} <= names
    assert names <= set(torch.return_types.__all__)
    for name in names - {"all_return_types"}:
        t = getattr(pt.return_types, name)
        assert t in pt.return_types.all_return_types
        assert t.__match_args__ == getattr(torch.return_types, name).__match_args__
    assert "max" in dir(pt.return_types)
    # a private operator's type is an attribute but not exported, as torch's
    assert pt.return_types._scaled_dot_product_flash_attention_for_cpu.__match_args__ == \
        ("output", "logsumexp")
    assert "_scaled_dot_product_flash_attention_for_cpu" not in names
    with pytest.raises(AttributeError):
        pt.return_types.std_mean
    ns = {}
    exec("from pytensor.return_types import *", ns)
    assert ns["sort_out"] is pt.return_types.sort_out


def test_operator_objects_and_unnamed_returns_give_plain_tuples():
    x = to_pt(X)
    for r, w in [(pt.ops.aten.max.dim(x, 1), torch.ops.aten.max.dim(X, 1)),
                 (pt.ops.aten.max(x, 1), torch.ops.aten.max(X, 1)),
                 (pt.ops.aten.sort.default(x), torch.ops.aten.sort.default(X)),
                 (pt.ops.aten.topk(x, 2), torch.ops.aten.topk(X, 2)),
                 (pt.std_mean(x), torch.std_mean(X)), (pt.var_mean(x, 1), torch.var_mean(X, 1)),
                 (pt.unique(x, return_counts=True), torch.unique(X, return_counts=True))]:
        assert type(r) is type(w) is tuple
    v, i = pt.empty(0), pt.empty(0, dtype=pt.int64)
    r = pt.ops.aten.max.dim_max(x, 1, max=v, max_values=i)
    assert type(r) is tuple and r[0] is v and r[1] is i


def test_meta_tensors_give_named_tuples_too():
    r = pt.sort(pt.empty(3, 4, device="meta"), 0)
    assert type(r) is pt.return_types.sort and r.indices.dtype == pt.int64
    assert r.values.device.type == "meta"


# ---------------------------------------------------------------- out= tuples
OUT_CALLS = [  # (name, call(module, x, out)) and the outputs' dtypes
    ("max", lambda m, x, out: m.max(x, 1, out=out), ("float32", "int64")),
    ("max", lambda m, x, out: m.max(x, 0, True, out=out), ("float32", "int64")),
    ("min", lambda m, x, out: m.min(x, dim=1, out=out), ("float32", "int64")),
    ("sort", lambda m, x, out: m.sort(x, out=out), ("float32", "int64")),
    ("sort", lambda m, x, out: m.sort(x, 0, True, out=out), ("float32", "int64")),
    ("sort", lambda m, x, out: m.sort(x, stable=True, dim=0, out=out), ("float32", "int64")),
    ("topk", lambda m, x, out: m.topk(x, 2, out=out), ("float32", "int64")),
    ("topk", lambda m, x, out: m.topk(x, 3, 0, False, True, out=out), ("float32", "int64")),
]


@pytest.mark.parametrize("i", range(len(OUT_CALLS)))
@pytest.mark.parametrize("seq", [tuple, list])
def test_out_takes_a_tuple_writes_it_and_returns_those_objects(i, seq):
    name, call, dts = OUT_CALLS[i]
    touts = seq(torch.empty(0, dtype=getattr(torch, d)) for d in dts)
    pouts = seq(pt.empty(0, dtype=getattr(pt, d)) for d in dts)
    want = call(torch, X, touts)
    got = call(pt, to_pt(X), pouts)
    assert type(want).__name__ == type(got).__name__ == name + "_out"
    assert type(got) is getattr(pt.return_types, name + "_out")
    assert got[0] is pouts[0] and got[1] is pouts[1]
    assert got.values is pouts[0] and got.indices is pouts[1]
    same(pouts[0], touts[0])
    same(pouts[1], touts[1])


def test_out_none_is_the_plain_call():
    assert type(pt.max(to_pt(X), 1, out=None)) is pt.return_types.max
    assert type(torch.max(X, 1, out=None)) is torch.return_types.max


BAD_OUTS = [
    ("max", lambda m, x, v, i: m.max(x, 1, out=(v,)), "expected tuple of 2 elements but got 1"),
    ("max", lambda m, x, v, i: m.max(x, 1, out=[v, i, v]),
     "expected tuple of 2 elements but got 3"),
    ("max", lambda m, x, v, i: m.max(x, 1, out=(v, 1)),
     "expected Tensor as element 1 in argument 3, but got int"),
    ("min", lambda m, x, v, i: m.min(x, 1, out=(None, i)),
     "expected Tensor as element 0 in argument 3, but got NoneType"),
    ("sort", lambda m, x, v, i: m.sort(x, out=(v, 1.5)),
     "expected Tensor as element 1 in argument 3, but got float"),
    ("sort", lambda m, x, v, i: m.sort(x, stable=True, out=(v, 1)),
     "expected Tensor as element 1 in argument 4, but got int"),
    ("topk", lambda m, x, v, i: m.topk(x, 2, out=(v, "a")),
     "expected Tensor as element 1 in argument 5, but got str"),
    ("topk", lambda m, x, v, i: m.topk(x, 2, out=()), "expected tuple of 2 elements but got 0"),
]


@pytest.mark.parametrize("i", range(len(BAD_OUTS)))
def test_bad_out_tuples_raise_torchs_errors(i):
    _, call, msg = BAD_OUTS[i]
    with pytest.raises(TypeError, match=msg):
        call(torch, X, torch.empty(0), torch.empty(0, dtype=torch.int64))
    with pytest.raises(TypeError, match=msg):
        call(pt, to_pt(X), pt.empty(0), pt.empty(0, dtype=pt.int64))


def test_out_of_the_wrong_form_or_dtype():
    x, v = to_pt(X), pt.empty(0)
    for call in (lambda m, o: m.max(x if m is pt else X, 1, out=o),
                 lambda m, o: m.sort(x if m is pt else X, out=o)):
        with pytest.raises(TypeError, match="invalid combination of arguments"):
            call(torch, torch.empty(0))
        with pytest.raises(TypeError, match="out"):
            call(pt, v)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got "
                       "float instead"):
        torch.max(X, 1, out=(torch.empty(0), torch.empty(0)))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        pt.max(x, 1, out=(pt.empty(0), pt.empty(0)))


def test_out_tuple_and_output_keywords_together_are_refused():
    with pytest.raises(TypeError, match="sort\\(\\) received an invalid combination"):
        pt.sort(to_pt(X), out=(pt.empty(0), pt.empty(0, dtype=pt.int64)), values=pt.empty(0))


# ---------------------------------------------------------------- nonzero(as_tuple=True)
NONZERO_INPUTS = [X, X.t(), torch.tensor(5.), torch.tensor(0.), torch.zeros(0, 3),
                  torch.tensor([True, False, True]), torch.arange(24).reshape(2, 3, 4) % 3,
                  torch.ones(3, 1).expand(3, 4), torch.tensor([0j, 1j])]


@pytest.mark.parametrize("i", range(len(NONZERO_INPUTS)))
def test_nonzero_as_tuple_gives_one_index_tensor_per_dim(i):
    t = NONZERO_INPUTS[i]
    p = to_pt(t)
    for want, got in [(torch.nonzero(t, as_tuple=True), pt.nonzero(p, as_tuple=True)),
                      (t.nonzero(as_tuple=True), p.nonzero(as_tuple=True))]:
        assert type(got) is type(want) is tuple and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    same(pt.nonzero(p, as_tuple=False), torch.nonzero(t, as_tuple=False))
    same(p.nonzero(as_tuple=False), t.nonzero(as_tuple=False))


def test_nonzero_as_tuple_errors_match_torch():
    p = to_pt(X)
    for m, x in ((torch, X), (pt, p)):
        with pytest.raises(RuntimeError, match="nonzero does not support the out kwarg when "
                           "as_tuple is True"):
            m.nonzero(x, as_tuple=True, out=m.empty(0, dtype=m.int64))
        for bad, kind in ((1, "int"), (None, "NoneType")):
            with pytest.raises(TypeError, match=f"nonzero\\(\\): argument 'as_tuple' must be "
                               f"bool, not {kind}"):
                m.nonzero(x, as_tuple=bad)
        with pytest.raises(TypeError, match="nonzero\\(\\) takes 1 positional argument but 2 "
                           "were given"):
            m.nonzero(x, True)
    o = pt.empty(0, dtype=pt.int64)
    assert pt.nonzero(p, as_tuple=False, out=o) is o
    same(o, torch.nonzero(X))


# ---------------------------------------------------------------- torch.norm with a string p
NORM_CALLS = [
    lambda m, x: m.norm(x), lambda m, x: m.norm(x, "fro"), lambda m, x: x.norm("fro"),
    lambda m, x: x.norm(), lambda m, x: m.norm(x, "fro", 1), lambda m, x: m.norm(x, "fro", 1, True),
    lambda m, x: m.norm(x, "fro", (0, 1)), lambda m, x: m.norm(x, "fro", dtype=m.float64),
    lambda m, x: m.norm(x, p="fro", dim=[0], keepdim=True), lambda m, x: m.norm(x, dim=1),
    lambda m, x: x.norm(dim=0, keepdim=True), lambda m, x: m.norm(x, None),
    lambda m, x: m.norm(x, 3, 0), lambda m, x: m.norm(x, 1), lambda m, x: x.norm(math.inf, 1),
    lambda m, x: m.norm(x, 0.5, [0, 1]), lambda m, x: x.norm(p=-math.inf),
    lambda m, x: m.norm(x.reshape(3, 2, 2), "fro"), lambda m, x: m.norm(x.t(), "fro", (1, 0)),
    lambda m, x: m.norm(x.reshape(3, 2, 2), "fro", dim=(0, 2)),
]


@pytest.mark.parametrize("i", range(len(NORM_CALLS)))
def test_norm_follows_torch_functional_norm(i):
    same(NORM_CALLS[i](pt, to_pt(X)), NORM_CALLS[i](torch, X), exact=False)


def test_norm_out_and_complex_input():
    o, to = pt.empty(0), torch.empty(0)
    assert pt.norm(to_pt(X), "fro", 1, out=o) is o
    same(o, torch.norm(X, "fro", 1, out=to), exact=False)
    c = torch.tensor([[1 + 2j, 3j], [0j, -1 + 0j]])
    same(pt.norm(to_pt(c), "fro"), torch.norm(c, "fro"), exact=False)
    same(to_pt(c).norm(1, 0), c.norm(1, 0), exact=False)


def test_norm_errors_match_torch():
    p = to_pt(X)
    cube, tcube = pt.ones(2, 2, 2), torch.ones(2, 2, 2)
    cases = [
        (lambda m, x, c: m.norm(x, "abc"), RuntimeError, "linalg.matrix_norm: Order abc not "
         "supported."),
        (lambda m, x, c: m.norm(x, "abc", dim=(0, 1)), RuntimeError, "Order abc not supported"),
        (lambda m, x, c: m.norm(c, "fro", dim=(0, 1, 2)), RuntimeError,
         "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"),
        (lambda m, x, c: m.norm(x, "nuc", dim=(0,)), RuntimeError,
         "linalg.matrix_norm: dim must be a 2-tuple. Got 0"),
        (lambda m, x, c: m.norm(m.arange(3)), RuntimeError, "linalg.vector_norm: Expected a "
         "floating point or complex tensor as input. Got Long"),
        (lambda m, x, c: m.norm(m.arange(3), "fro"), RuntimeError, "Got Long"),
        (lambda m, x, c: m.norm(x, p=[1]), TypeError, "linalg_vector_norm\\(\\): argument 'ord' "
         "\\(position 2\\) must be Number, not list"),
        (lambda m, x, c: x.norm(2, out=x), TypeError, "Tensor.norm\\(\\) got an unexpected "
         "keyword argument 'out'"),
        (lambda m, x, c: m.norm(x, 2, bad=1), TypeError, "norm\\(\\) got an unexpected keyword "
         "argument 'bad'"),
    ]
    for call, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            call(torch, X, tcube)
        with pytest.raises(exc, match=msg):
            call(pt, p, cube)


def test_nuclear_norm_is_the_sum_of_singular_values():
    expected = np.linalg.norm(X.numpy(), "nuc")
    assert math.isclose(pt.norm(to_pt(X), "nuc").item(), expected, rel_tol=1e-5)
    assert math.isclose(to_pt(X).norm("nuc").item(), expected, rel_tol=1e-5)
    # torch's argument checks come first, as in torch
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
        pt.norm(pt.ones(2, 2, dtype=pt.float16), "nuc")


# ---------------------------------------------------------------- pytensor.linalg
def test_linalg_vector_norm_and_cross_are_the_operators():
    L, TL = pt.linalg, torch.linalg
    assert L.vector_norm.__name__ == TL.vector_norm.__name__ == "linalg_vector_norm"
    assert L.cross.__name__ == TL.cross.__name__ == "linalg_cross"
    same(L.vector_norm(to_pt(X), 3, 1, keepdim=True), TL.vector_norm(X, 3, 1, keepdim=True),
         exact=False)
    a, b = torch.randn(4, 3), torch.randn(4, 3)
    same(L.cross(to_pt(a), to_pt(b)), TL.cross(a, b), exact=False)
    o = pt.empty(0)
    assert L.cross(to_pt(a), to_pt(b), dim=1, out=o) is o
    for m in (torch, pt):
        with pytest.raises(RuntimeError, match="linalg.cross: inputs dimension -1 must have "
                           "length 3"):
            m.linalg.cross(m.ones(2, 2), m.ones(2, 2))
    assert {"vector_norm", "cross", "matrix_norm", "norm"} <= set(dir(L))


MATRIX = [X, X.t(), X.reshape(2, 2, 3), torch.randn(2, 3, 4, dtype=torch.float64),
          torch.tensor([[1 + 1j, 2], [0, -3j]])]


@pytest.mark.parametrize("i", range(len(MATRIX)))
@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_matches_torch(i, ord, keepdim):
    a = MATRIX[i]
    for dim in [(-2, -1), (-1, -2), (0, -1)]:
        same(pt.linalg.matrix_norm(to_pt(a), ord, dim, keepdim),
             torch.linalg.matrix_norm(a, ord, dim, keepdim), exact=False)
    if a.dim() == 2:
        same(pt.linalg.norm(to_pt(a), ord, keepdim=keepdim),
             torch.linalg.norm(a, ord, keepdim=keepdim), exact=False)


def test_matrix_norm_dtype_and_out():
    o = pt.empty(0, dtype=pt.float64)
    r = pt.linalg.matrix_norm(to_pt(X), 1, dtype=pt.float64, out=o)
    assert r is o
    same(o, torch.linalg.matrix_norm(X, 1, dtype=torch.float64), exact=False)
    h = X.half()
    same(pt.linalg.matrix_norm(to_pt(h), math.inf), torch.linalg.matrix_norm(h, math.inf),
         exact=False)


def test_linalg_norm_vector_and_matrix_cases_match_torch():
    L, TL = pt.linalg, torch.linalg
    p = to_pt(X)
    for args, kwargs in [((), {}), ((1, 0), {}), ((None, (0, 1)), {}),
                         ((1, (1, 0)), {"keepdim": True}), ((3,), {"dim": 1}),
                         (("fro",), {}), ((-math.inf,), {})]:
        same(L.norm(p, *args, **kwargs), TL.norm(X, *args, **kwargs), exact=False)
    same(L.norm(pt.ones(2, 2, 2)), TL.norm(torch.ones(2, 2, 2)), exact=False)


def test_linalg_errors_match_torch():
    p = to_pt(X)
    cases = [
        (lambda m, x: m.linalg.matrix_norm(x, 3), RuntimeError,
         "linalg.matrix_norm: Order 3 not supported."),
        (lambda m, x: m.linalg.matrix_norm(x, "abc"), RuntimeError, "Order abc not supported."),
        (lambda m, x: m.linalg.matrix_norm(m.ones(3)), RuntimeError,
         "The input tensor A must have at least 2 dimensions."),
        (lambda m, x: m.linalg.matrix_norm(m.ones(3), 3), RuntimeError, "Order 3 not supported"),
        (lambda m, x: m.linalg.matrix_norm(m.arange(4).reshape(2, 2)), RuntimeError,
         "Expected a floating point or complex tensor as input. Got Long"),
        (lambda m, x: m.linalg.matrix_norm(x, dim=(0,)), RuntimeError,
         "dim must be a 2-tuple. Got 0"),
        (lambda m, x: m.linalg.matrix_norm(x, dim=(0, -2)), RuntimeError,
         "dims must be different. Got \\(0, 0\\)"),
        (lambda m, x: m.linalg.matrix_norm(x, dim=(0, 2)), IndexError,
         "Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got 2\\)"),
        (lambda m, x: m.linalg.matrix_norm(x, dtype=m.int64), RuntimeError,
         "dtype should be floating point or complex, but got Long"),
        (lambda m, x: m.linalg.matrix_norm(x, dtype=m.complex64), RuntimeError,
         "dtype should be real for real inputs, but got ComplexFloat"),
        (lambda m, x: m.linalg.matrix_norm(x.double(), dtype=m.float32), RuntimeError,
         "the dtype of the input \\(Double\\) should be convertible without narrowing to the "
         "specified dtype \\(Float\\)"),
        (lambda m, x: m.linalg.matrix_norm(x, [1]), TypeError,
         "linalg_matrix_norm\\(\\) received an invalid combination of arguments - got "
         "\\(Tensor, list\\)"),
        (lambda m, x: m.linalg.matrix_norm(x, 1, keepdim=1), TypeError,
         "got \\(Tensor, int, keepdim=int\\)"),
        (lambda m, x: m.linalg.norm(m.ones(2, 2, 2), 1), RuntimeError,
         "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
        (lambda m, x: m.linalg.norm(x, 1, dim=(0, 1, 1)), RuntimeError,
         "linalg.norm: If dim is specified, it must be of length 1 or 2. Got \\[0, 1, 1\\]"),
    ]
    for call, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            call(torch, X)
        with pytest.raises(exc, match=msg):
            call(pt, p)
    for ord in ("nuc", 2, -2):
        assert math.isclose(pt.linalg.matrix_norm(p, ord).item(),
                            np.linalg.norm(X.numpy(), ord), rel_tol=1e-5)


# ---------------------------------------------------------------- unique_consecutive
@pytest.mark.parametrize("kw", [{}, {"return_inverse": True}, {"return_counts": True},
                                {"return_inverse": True, "return_counts": True},
                                {"dim": 0, "return_counts": True}])
def test_unique_consecutive_returns_what_was_asked_for(kw):
    t = torch.tensor([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]])
    want = torch.unique_consecutive(t, **kw)
    got = pt.unique_consecutive(to_pt(t), **kw)
    if isinstance(want, torch.Tensor):
        same(got, want)
        return
    assert type(got) is type(want) is tuple and len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
    same(pt.unique_consecutive(to_pt(t), kw.get("return_inverse", False),
                               kw.get("return_counts", False), kw.get("dim"))[-1], want[-1])


def test_argwhere_is_nonzero_as_a_matrix_like_torch():
    cases = [torch.tensor([[0, 2, 0], [1, 0, 3]]), torch.tensor(5), torch.tensor(0.0),
             torch.zeros(0, 3), torch.tensor([True, False, True]),
             torch.tensor([[float("nan"), 0.0], [-0.0, 1.0]]).t(),
             torch.arange(24).reshape(2, 3, 4)[:, ::2, 1:] % 3]
    for t in cases:
        want = torch.argwhere(t)
        for got in (pt.argwhere(to_pt(t)),
                    to_pt(t).argwhere()):
            assert got.dtype == pt.int64 and tuple(got.shape) == tuple(want.shape)
            assert got.tolist() == want.tolist()


def test_unique_consecutive_method_returns_what_was_asked_like_torch():
    t = torch.tensor([1, 1, 2, 2, 3, 1, 1])
    p = to_pt(t)
    assert p.unique_consecutive().tolist() == t.unique_consecutive().tolist()
    for kw in ({"return_inverse": True}, {"return_counts": True},
               {"return_inverse": True, "return_counts": True}):
        got, want = p.unique_consecutive(**kw), t.unique_consecutive(**kw)
        assert isinstance(got, tuple) and len(got) == len(want)
        assert [g.tolist() for g in got] == [w.tolist() for w in want]
