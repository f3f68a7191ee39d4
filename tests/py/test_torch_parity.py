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
