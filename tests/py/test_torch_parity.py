"""Behaviours where pytensor used to differ from torch: overload resolution (max/min of two
tensors, numbers in Tensor positions), index dtypes, cdist's compute_mode, out= overlap, a few
argument checks, where(cond), and the alias annotations of list types in schemas. Each case has
exact expected values or errors that run without torch, and a comparison with torch where it is
installed."""
import pytest

import pytensor

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def outcome(fn):
    """("ok", value as a list) or (exception type name, message) of a call."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return type(e).__name__, str(e)
    if isinstance(r, tuple):
        return "ok", [x.tolist() for x in r]
    return "ok", r.tolist() if hasattr(r, "tolist") else r


def both(fn):
    """fn(pytensor) and fn(torch) outcomes."""
    return outcome(lambda: fn(pytensor)), outcome(lambda: fn(torch))


# ---------------------------------------------------------------- max / min of two tensors
def test_max_min_of_two_tensors_are_elementwise():
    a, b = pytensor.tensor([1.0, 5.0]), pytensor.tensor([3.0, 2.0])
    assert pytensor.max(a, b).tolist() == [3.0, 5.0]
    assert a.max(b).tolist() == [3.0, 5.0]
    assert pytensor.min(a, b).tolist() == [1.0, 2.0]
    assert a.min(b).tolist() == [1.0, 2.0]
    out = pytensor.empty(2)
    assert pytensor.max(a, b, out=out) is out and out.tolist() == [3.0, 5.0]
    assert pytensor.min(a, b, out=out) is out and out.tolist() == [1.0, 2.0]


def test_max_of_a_0dim_integer_tensor_is_the_tensor_overload():
    # An int parameter also takes a 0-dim integer tensor, but the Tensor overload comes first.
    a = pytensor.tensor([1.0, 5.0])
    assert pytensor.max(a, pytensor.tensor(0)).tolist() == [1.0, 5.0]
    assert pytensor.min(a, pytensor.tensor(0)).tolist() == [0.0, 0.0]
    assert pytensor.max(a, pytensor.tensor(True)).tolist() == [1.0, 5.0]
    assert pytensor.min(a, pytensor.tensor([1])).tolist() == [1.0, 1.0]
    values, indices = pytensor.max(a, 0)
    assert values.item() == 5.0 and indices.item() == 1


def test_max_with_a_float_names_every_signature():
    with pytest.raises(TypeError) as e:
        pytensor.max(pytensor.tensor([1.0]), 0.5)
    text = str(e.value)
    assert text.startswith("max() received an invalid combination of arguments - got "
                           "(Tensor, float), but expected one of:")
    assert " * (Tensor input, Tensor other)\n" in text
    assert " * (Tensor input, int dim, bool keepdim = False)\n" in text


@needs_torch
@pytest.mark.parametrize("other", [lambda m: m.tensor(0), lambda m: m.tensor([1]),
                                   lambda m: m.tensor(True), lambda m: m.tensor(0.5),
                                   lambda m: m.tensor([3.0, 2.0]), lambda m: 0,
                                   lambda m: -1])
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_overloads_match_torch(name, other):
    def fn(m):
        return getattr(m, name)(m.tensor([1.0, 5.0]), other(m))

    def method(m):
        return getattr(m.tensor([1.0, 5.0]), name)(other(m))

    mine, theirs = both(fn)
    assert mine == theirs
    mine, theirs = both(method)
    assert mine == theirs


@needs_torch
@pytest.mark.parametrize("name", ["max", "min", "where", "clamp", "pow", "remainder",
                                  "scatter", "div", "narrow", "sub"])
def test_overloads_are_tried_in_torchs_order(name):
    from pytensor import _ops
    views = [v for v in _ops.group("aten::" + name, 1).refresh() if not v.sig.has_out]
    mine = [v.describe() for v in views]
    try:
        getattr(torch, name)(*[object()] * 7)
    except TypeError as e:
        lines = [line[3:] for line in str(e).splitlines() if line.startswith(" * ")]
    if not lines:
        pytest.skip("torch names one signature only")
    # torch merges out= into the signature it writes; pytensor lists them apart.
    theirs = [line.replace(", *, Tensor out = None", "").replace(", Tensor out = None", "")
              .replace(", *, tuple of Tensors out = None", "")
              for line in lines]
    mine = [d.replace("pytensor.", "") for d in mine]
    assert [d for d in mine if d in theirs] == [d for d in theirs if d in mine]


# ---------------------------------------------------------------- index dtypes
def _index_calls():
    x = [[1.0, 2.0], [3.0, 4.0]]
    pairs = [[0, 1], [1, 0]]
    return {
        "gather": lambda m, d: m.gather(m.tensor(x), 1, m.tensor(pairs, dtype=d)),
        "scatter": lambda m, d: m.scatter(m.tensor(x), 1, m.tensor(pairs, dtype=d), m.tensor(x)),
        "scatter_value": lambda m, d: m.scatter(m.tensor(x), 1, m.tensor(pairs, dtype=d), 5.0),
        "scatter_": lambda m, d: m.tensor(x).scatter_(1, m.tensor(pairs, dtype=d), m.tensor(x)),
        "scatter_add": lambda m, d: m.scatter_add(m.tensor(x), 1, m.tensor(pairs, dtype=d),
                                                  m.tensor(x)),
        "index_select": lambda m, d: m.index_select(m.tensor(x), 0, m.tensor([1, 0], dtype=d)),
        "take": lambda m, d: m.take(m.tensor(x), m.tensor(pairs, dtype=d)),
        "index_put_": lambda m, d: m.tensor(x).index_put_((m.tensor([1], dtype=d),),
                                                          m.tensor(9.0)),
        "getitem": lambda m, d: m.tensor(x)[m.tensor([1, 0], dtype=d)],
        "getitem2": lambda m, d: m.tensor(x)[m.tensor([1, 0], dtype=d), m.tensor([0, 0], dtype=d)],
    }


INDEX_EXPECTED = {
    "gather": ("ok", [[1.0, 2.0], [4.0, 3.0]]),
    "scatter": ("ok", [[1.0, 2.0], [4.0, 3.0]]),
    "scatter_value": ("ok", [[5.0, 5.0], [5.0, 5.0]]),
    "scatter_": ("ok", [[1.0, 2.0], [4.0, 3.0]]),
    "scatter_add": ("ok", [[2.0, 4.0], [7.0, 7.0]]),
    "index_select": ("ok", [[3.0, 4.0], [1.0, 2.0]]),
    "take": ("RuntimeError", "take(): Expected a long tensor for index, but got Int"),
    "index_put_": ("ok", [[1.0, 2.0], [9.0, 9.0]]),
    "getitem": ("ok", [[3.0, 4.0], [1.0, 2.0]]),
    "getitem2": ("ok", [3.0, 1.0]),
}

INT16_EXPECTED = {
    "gather": ("RuntimeError", "gather(): Expected dtype int32/int64 for index"),
    "scatter": ("RuntimeError", "scatter(): Expected dtype int32/int64 for index"),
    "scatter_value": ("RuntimeError", "scatter(): Expected dtype int32/int64 for index"),
    "scatter_": ("RuntimeError", "scatter(): Expected dtype int32/int64 for index"),
    "scatter_add": ("RuntimeError", "scatter(): Expected dtype int32/int64 for index"),
    "index_select": ("RuntimeError", "index_select(): Expected dtype int32 or int64 for index"),
    "take": ("RuntimeError", "take(): Expected a long tensor for index, but got Short"),
    "index_put_": ("IndexError", "tensors used as indices must be long, int, byte or bool "
                                 "tensors"),
    "getitem": ("IndexError", "tensors used as indices must be long, int, byte or bool tensors"),
    "getitem2": ("IndexError", "tensors used as indices must be long, int, byte or bool tensors"),
}


@pytest.mark.parametrize("name", sorted(INDEX_EXPECTED))
def test_int32_indices_are_taken_where_torch_takes_them(name):
    assert outcome(lambda: _index_calls()[name](pytensor, pytensor.int32)) == INDEX_EXPECTED[name]
    assert outcome(lambda: _index_calls()[name](pytensor, pytensor.int16)) == INT16_EXPECTED[name]


@needs_torch
@pytest.mark.parametrize("dtype", ["int32", "int16", "int64"])
@pytest.mark.parametrize("name", sorted(INDEX_EXPECTED))
def test_index_dtypes_match_torch(name, dtype):
    call = _index_calls()[name]
    mine, theirs = both(lambda m: call(m, getattr(m, dtype)))
    assert mine == theirs


# ---------------------------------------------------------------- out= overlapping an input
OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor "
           "refer to a single memory location. Please clone() the tensor before performing the "
           "operation.")


def _overlap_calls():
    def take(m, part):
        a = m.arange(10.0)
        return m.take(a, m.tensor([0, 1, 2]), out=a[part])

    def masked_select(m, part):
        a = m.arange(10.0)
        return m.masked_select(a, m.tensor([True, False] * 5), out=a[part])

    def masked_select_mask(m, part):
        mask = m.tensor([True, False] * 5)
        return m.masked_select(mask, mask, out=mask[part])

    return {"take": take, "masked_select": masked_select, "masked_select_mask": masked_select_mask}


@pytest.mark.parametrize("part", [slice(0, 3), slice(1, 4), slice(2, 7), slice(None)])
@pytest.mark.parametrize("name", ["take", "masked_select", "masked_select_mask"])
def test_out_overlapping_an_input_is_refused(name, part):
    assert outcome(lambda: _overlap_calls()[name](pytensor, part)) == ("RuntimeError", OVERLAP)
    if torch is not None:
        assert outcome(lambda: _overlap_calls()[name](torch, part)) == ("RuntimeError", OVERLAP)


def test_out_apart_from_the_inputs_still_works():
    a = pytensor.arange(10.0)
    assert pytensor.take(a, pytensor.tensor([0, 9]), out=pytensor.empty(2)).tolist() == [0.0, 9.0]
    out = pytensor.empty(5)
    pytensor.masked_select(a, pytensor.tensor([True, False] * 5), out=out)
    assert out.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        pytensor.take(a, pytensor.tensor([0, 1]), out=pytensor.empty(1).expand(2))
