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


def test_an_int_parameter_takes_a_0dim_integer_tensor_but_not_a_bool_one():
    t = pytensor.arange(4.0)
    assert pytensor.cumsum(t, pytensor.tensor(0)).tolist() == [0.0, 1.0, 3.0, 6.0]
    with pytest.raises(TypeError, match=r"cumsum\(\): argument 'dim' \(position 2\) must be int, "
                       "not Tensor"):
        pytensor.cumsum(t, pytensor.tensor(True))
    with pytest.raises(TypeError, match="must be int, not Tensor"):
        pytensor.cumsum(t, pytensor.tensor([0]))
    if torch is not None:
        with pytest.raises(TypeError, match="must be int, not Tensor"):
            torch.cumsum(torch.arange(4.0), torch.tensor(True))


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


# ---------------------------------------------------------------- cdist's compute_mode
CDIST_X1 = [[0.0, 1.0], [2.0, 3.0]]
CDIST_X2 = [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "use_mm_for_euclid_dist_if_necessary",
                                  "donot_use_mm_for_euclid_dist"])
def test_cdist_takes_torchs_compute_mode_strings(mode):
    x1, x2 = pytensor.tensor(CDIST_X1), pytensor.tensor(CDIST_X2)
    want = pytensor.cdist(x1, x2)
    assert pytensor.cdist(x1, x2, compute_mode=mode).tolist() == want.tolist()
    assert pytensor.cdist(x1, x2, 2.0, mode).tolist() == want.tolist()
    assert pytensor.cdist(x1, x2, p=1.0, compute_mode=mode).tolist() == \
        [[1.0, 1.0, 3.0], [3.0, 5.0, 1.0]]
    if torch is not None:
        got = torch.cdist(torch.tensor(CDIST_X1), torch.tensor(CDIST_X2), compute_mode=mode)
        mine = pytensor.cdist(x1, x2, compute_mode=mode).tolist()
        for row, want_row in zip(mine, got.tolist()):
            assert row == pytest.approx(want_row, rel=1e-6)


@pytest.mark.parametrize("mode", ["bad", None, 1, 0])
def test_cdist_refuses_other_compute_modes_as_torch(mode):
    def call(m):
        return m.cdist(m.tensor(CDIST_X1), m.tensor(CDIST_X2), compute_mode=mode)

    want = ("ValueError", f"{mode} is not a valid value for compute_mode")
    assert outcome(lambda: call(pytensor)) == want
    if torch is not None:
        assert outcome(lambda: call(torch)) == want


def test_cdist_argument_errors():
    x = pytensor.ones(2, 2)
    with pytest.raises(TypeError, match=r"cdist\(\) takes from 2 to 4 positional arguments but 5 "
                       "were given"):
        pytensor.cdist(x, x, 2.0, "use_mm_for_euclid_dist", 1)
    with pytest.raises(TypeError, match="got multiple values for argument 'compute_mode'"):
        pytensor.cdist(x, x, 2.0, "use_mm_for_euclid_dist", compute_mode="use_mm_for_euclid_dist")
    with pytest.raises(TypeError, match=r"cdist\(\): argument 'x1' \(position 1\) must be Tensor, "
                       "not int"):
        pytensor.cdist(1, x)


# ---------------------------------------------------------------- masked_fill, narrow, roll
def _argument_calls():
    return {
        "masked_fill_complex_into_int": lambda m: m.tensor([1, 2, 3]).masked_fill(
            m.tensor([True, False, True]), 1 + 2j),
        "masked_fill_complex_tensor_into_int": lambda m: m.tensor([1, 2, 3]).masked_fill(
            m.tensor([True, False, True]), m.tensor(1 + 2j)),
        "masked_fill__complex_into_int": lambda m: m.tensor([1, 2, 3]).masked_fill_(
            m.tensor([True, False, True]), 1 + 2j),
        "masked_fill_complex_into_float": lambda m: m.tensor([1.0, 2.0]).masked_fill(
            m.tensor([True, False]), 1 + 2j),
        "masked_fill_big_into_int8": lambda m: m.tensor([1, 2], dtype=m.int8).masked_fill(
            m.tensor([True, False]), m.tensor(300)),
        "masked_fill_real_complex_into_int": lambda m: m.tensor([1, 2, 3]).masked_fill(
            m.tensor([True, False, True]), 0j),
        "masked_fill_float_into_int": lambda m: m.tensor([1, 2, 3]).masked_fill(
            m.tensor([True, False, True]), m.tensor(2.5)),
        "narrow_bool_start": lambda m: m.narrow(m.tensor([1, 2, 3]), 0, True, 1),
        "narrow_bool_tensor_start": lambda m: m.narrow(m.tensor([1, 2, 3]), 0, m.tensor(True), 1),
        "narrow_float_tensor_start": lambda m: m.tensor([1, 2, 3]).narrow(0, m.tensor(1.0), 1),
        "narrow_tensor_start": lambda m: m.narrow(m.tensor([1, 2, 3]), 0, m.tensor(1), 2),
        "narrow_1d_tensor_start": lambda m: m.narrow(m.tensor([1, 2, 3]), 0, m.tensor([1]), 2),
        "roll_0d_dim0": lambda m: m.roll(m.tensor(5.0), 1, 0),
        "roll_0d_dim_minus1": lambda m: m.roll(m.tensor(5.0), 1, -1),
        "roll_0d_dims": lambda m: m.roll(m.tensor(5.0), (1, 1), (0, 0)),
        "roll_0d_no_dim": lambda m: m.roll(m.tensor(5.0), 1),
        "roll_empty_bad_dim": lambda m: m.roll(m.ones(0), 1, 3),
    }


ARGUMENT_EXPECTED = {
    "masked_fill_complex_into_int": (
        "RuntimeError", "value cannot be converted to type int64_t without overflow"),
    "masked_fill_complex_tensor_into_int": (
        "RuntimeError", "value cannot be converted to type int64_t without overflow"),
    "masked_fill__complex_into_int": (
        "RuntimeError", "value cannot be converted to type int64_t without overflow"),
    "masked_fill_complex_into_float": (
        "RuntimeError", "value cannot be converted to type float without overflow"),
    "masked_fill_big_into_int8": (
        "RuntimeError", "value cannot be converted to type int8_t without overflow"),
    "masked_fill_real_complex_into_int": ("ok", [0, 2, 0]),
    "masked_fill_float_into_int": ("ok", [2, 2, 2]),
    "narrow_bool_start": (
        "TypeError",
        "narrow() received an invalid combination of arguments - got (Tensor, int, bool, int), "
        "but expected one of:\n"
        " * (Tensor input, int dim, Tensor start, int length)\n"
        "      didn't match because some of the arguments have invalid types: "
        "(Tensor, int, !bool!, int)\n"
        " * (Tensor input, int dim, int start, int length)\n"
        "      didn't match because some of the arguments have invalid types: "
        "(Tensor, int, !bool!, int)\n"),
    "narrow_bool_tensor_start": ("RuntimeError", "start must be an 0-dim integral Tensor."),
    "narrow_float_tensor_start": ("RuntimeError", "start must be an 0-dim integral Tensor."),
    "narrow_tensor_start": ("ok", [2, 3]),
    "narrow_1d_tensor_start": ("RuntimeError", "start must be an 0-dim integral Tensor."),
    "roll_0d_dim0": ("IndexError", "Dimension specified as 0 but tensor has no dimensions"),
    "roll_0d_dim_minus1": ("IndexError", "Dimension specified as -1 but tensor has no dimensions"),
    "roll_0d_dims": ("IndexError", "Dimension specified as 0 but tensor has no dimensions"),
    "roll_0d_no_dim": ("ok", 5.0),
    "roll_empty_bad_dim": ("ok", []),
}


@pytest.mark.parametrize("name", sorted(ARGUMENT_EXPECTED))
def test_argument_checks(name):
    assert outcome(lambda: _argument_calls()[name](pytensor)) == ARGUMENT_EXPECTED[name]


@needs_torch
@pytest.mark.parametrize("name", sorted(ARGUMENT_EXPECTED))
def test_argument_checks_match_torch(name):
    mine, theirs = both(_argument_calls()[name])
    assert mine[0] == theirs[0]
    if theirs[0] != "TypeError":
        assert mine == theirs


# ---------------------------------------------------------------- where(condition)
def test_where_with_one_argument_is_nonzero_as_tuple():
    c = pytensor.tensor([[1, 0], [0, 2]])
    rows, cols = pytensor.where(c)
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]
    assert isinstance(pytensor.where(c), tuple)
    assert [t.tolist() for t in pytensor.where(pytensor.tensor(3))] == [[0]]
    assert [t.tolist() for t in pytensor.where(condition=pytensor.tensor([0.0, 1.5]))] == [[1]]
    assert pytensor.where(pytensor.zeros(2, 0))[0].shape == (0,)
    # the three-argument forms are untouched
    assert pytensor.where(pytensor.tensor([True, False]), 1.0, 0).tolist() == [1.0, 0.0]


@needs_torch
@pytest.mark.parametrize("value", [[[1, 0], [0, 2]], 3, 0, [0.0, 1.5, -2.0], [True, False]])
def test_where_with_one_argument_matches_torch(value):
    mine, theirs = both(lambda m: m.where(m.tensor(value)))
    assert mine == theirs
    assert type(pytensor.where(pytensor.tensor(value))) is type(torch.where(torch.tensor(value)))


# ---------------------------------------------------------------- alias annotations of lists
def _alias(info):
    """(is_write, before, after, [contained as the same triple]) of an AliasInfo, or None."""
    if info is None:
        return None
    return (info.is_write, sorted(info.before_set), sorted(info.after_set),
            [_alias(c) for c in getattr(info, "contained_types", [])])


# (text, printed text, per argument then return: (is_write, before, after, contained))
LIST_ALIASES = [
    ("foo(Tensor(a!)[] self) -> ()", "foo(Tensor(a!)[] self) -> ()",
     [(True, [], [], [(True, ["a"], ["a"], [])])]),
    ("foo(Tensor(a) self) -> Tensor(a)[]", "foo(Tensor(a) self) -> Tensor(a)[]",
     [(False, ["a"], ["a"], []), (False, [], [], [(False, ["a"], ["a"], [])])]),
    ("foo(Tensor(a -> *) self) -> Tensor(a)[]", "foo(Tensor(a -> *) self) -> Tensor(a)[]",
     [(False, ["a"], ["*"], []), (False, [], [], [(False, ["a"], ["a"], [])])]),
    ("foo(Tensor(c!)?[] y) -> ()", "foo(Tensor?(c!)[] y) -> ()",
     [(True, [], [], [(True, ["c"], ["c"], [])])]),
    ("foo(Tensor(a)[]? x) -> ()", "foo(Tensor(a)[]? x) -> ()",
     [(False, [], [], [(False, ["a"], ["a"], [])])]),
    ("foo(Tensor[](a) x) -> ()", "foo(Tensor[](a) x) -> ()", [(False, ["a"], ["a"], [])]),
    ("foo(Tensor(a)[](b!) x) -> ()", "foo(Tensor(a)[](b!) x) -> ()",
     [(True, ["b"], ["b"], [(False, ["a"], ["a"], [])])]),
    ("foo(Tensor(a!)[](b) x) -> ()", "foo(Tensor(a!)[](b) x) -> ()",
     [(False, ["b"], ["b"], [(True, ["a"], ["a"], [])])]),
    ("foo(Tensor(a!)[2] x) -> ()", "foo(Tensor(a!)[2] x) -> ()",
     [(True, [], [], [(True, ["a"], ["a"], [])])]),
    ("foo(Tensor(a -> *)[] x) -> ()", "foo(Tensor(a -> *)[] x) -> ()",
     [(False, [], [], [(False, ["a"], ["*"], [])])]),
    ("aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
     "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
     [(True, [], [], [(True, ["a"], ["a"], [])]), None, None]),
    ("foo(Tensor(a!)[] self, Tensor(b)? x) -> (Tensor(a!)[], Tensor[])",
     "foo(Tensor(a!)[] self, Tensor(b)? x) -> (Tensor(a!)[], Tensor[])",
     [(True, [], [], [(True, ["a"], ["a"], [])]), (False, ["b"], ["b"], []),
      (True, [], [], [(True, ["a"], ["a"], [])]), None]),
]


@pytest.mark.parametrize("text, printed, aliases", LIST_ALIASES)
def test_list_alias_annotations_belong_to_the_elements(text, printed, aliases):
    s = pytensor._C.parse_schema(text)
    assert str(s) == printed
    assert [_alias(a.alias_info) for a in s.arguments + s.returns] == aliases
    for a, want in zip(s.arguments + s.returns, aliases):
        elem = a.element_alias_info
        assert _alias(elem) == (want[3][0] if want and want[3] else None)
        assert str(a) in printed
    assert pytensor._C.parse_schema(printed) == s


@needs_torch
@pytest.mark.parametrize("text, printed, aliases", LIST_ALIASES)
def test_list_alias_annotations_match_torchs_parser(text, printed, aliases):
    theirs = torch._C.parse_schema(text)
    assert str(theirs) == printed
    ours = pytensor._C.parse_schema(text)
    for a, b in zip(ours.arguments + ours.returns, theirs.arguments + theirs.returns):
        x, y = a.alias_info, b.alias_info
        if x is None:
            assert y is None
            continue
        # torch's Python binding does not show contained types; the list's own fields match.
        assert (x.is_write, x.before_set, x.after_set) == (y.is_write, y.before_set, y.after_set)


def test_element_annotation_after_the_element_question_mark_only_for_lists():
    with pytest.raises(RuntimeError, match="expected an argument name but found '\\('"):
        pytensor._C.parse_schema("f(Tensor?(a) x) -> ()")


# ---------------------------------------------------------------- numbers in Tensor positions
def _typeerror_or_not(fn):
    try:
        fn()
    except TypeError:
        return "TypeError"
    except Exception:  # noqa: BLE001 - a kernel's refusal means the arguments were taken
        return "taken"
    return "taken"


NUMBER_CALLS = {
    "maximum(t, 2)": (lambda m, t: m.maximum(t, 2),
                      "maximum(): argument 'other' (position 2) must be Tensor, not int"),
    "atan2(t, 2.5)": (lambda m, t: m.atan2(t, 2.5),
                      "atan2(): argument 'other' (position 2) must be Tensor, not float"),
    "logical_and(2, t)": (lambda m, t: m.logical_and(2, t),
                          "logical_and(): argument 'input' (position 1) must be Tensor, not int"),
    "t.maximum(2)": (lambda m, t: t.maximum(2),
                     "maximum(): argument 'other' (position 1) must be Tensor, not int"),
    "minimum(t, True)": (lambda m, t: m.minimum(t, True),
                         "minimum(): argument 'other' (position 2) must be Tensor, not bool"),
    "eq(2, 3)": (lambda m, t: m.eq(2, 3), "eq() received an invalid combination of arguments - "
                 "got (int, int), but expected one of:"),
    "lt(2, t)": (lambda m, t: m.lt(2, t), "lt() received an invalid combination of arguments - "
                 "got (int, Tensor), but expected one of:"),
    "clamp_min(2, t)": (lambda m, t: m.clamp_min(2, t), "clamp_min() received an invalid "
                        "combination of arguments - got (int, Tensor), but expected one of:"),
    "bitwise_and(2, 3)": (lambda m, t: m.bitwise_and(2, 3), "bitwise_and() received an invalid "
                          "combination of arguments - got (int, int), but expected one of:"),
    "fmod(2, t)": (lambda m, t: m.fmod(2, t), "fmod() received an invalid combination of "
                   "arguments - got (int, Tensor), but expected one of:"),
    "eq(t, 2)": (lambda m, t: m.eq(t, 2), [False, True]),
    "clamp_min(t, 2)": (lambda m, t: m.clamp_min(t, 2), [2.0, 2.0]),
    "add(2, 3)": (lambda m, t: m.add(2, 3), 5),
    "mul(2, t)": (lambda m, t: m.mul(2, t), [2.0, 4.0]),
    "sub(t, 1)": (lambda m, t: m.sub(t, 1), [0.0, 1.0]),
    "div(1, t)": (lambda m, t: m.div(1, t), [1.0, 0.5]),
    "true_divide(t, 2)": (lambda m, t: m.true_divide(t, 2), [0.5, 1.0]),
    "floor_divide(3, t)": (lambda m, t: m.floor_divide(3, t), [3.0, 1.0]),
    "pow(2, t)": (lambda m, t: m.pow(2, t), [2.0, 4.0]),
    "remainder(2, t)": (lambda m, t: m.remainder(2, t), [0.0, 0.0]),
    "where(t > 1, t, 2)": (lambda m, t: m.where(t > 1, t, 2), [2.0, 2.0]),
}


@pytest.mark.parametrize("name", sorted(NUMBER_CALLS))
def test_numbers_for_tensors_only_where_torch_takes_them(name):
    call, want = NUMBER_CALLS[name]
    t = pytensor.tensor([1.0, 2.0])
    if isinstance(want, str):
        with pytest.raises(TypeError) as e:
            call(pytensor, t)
        assert str(e.value).startswith(want)
    else:
        r = call(pytensor, t)
        assert (r.tolist() if hasattr(r, "tolist") else r) == want
    if torch is not None:
        assert _typeerror_or_not(lambda: call(torch, torch.tensor([1.0, 2.0]))) == \
            ("TypeError" if isinstance(want, str) else "taken")


def _base_value(p, m):
    if p.list:
        if p.code == "int":
            return [0] * (p.N or 1)
        if p.code == "Tensor":
            return [m.tensor([[1.0, 2.0], [3.0, 4.0]])] * 2
        raise LookupError
    make = {"Tensor": lambda: m.tensor([[1.0, 2.0], [3.0, 4.0]]), "int": lambda: 0,
            "float": lambda: 1.0, "bool": lambda: False, "Scalar": lambda: 1,
            "dtype": lambda: m.float32}.get(p.code)
    if make is None:
        raise LookupError
    return make()


# torch writes these in Python, where a number for the tensor fails with another exception.
_PYTHON_FUNCTIONS_IN_TORCH = {"norm", "split", "stft"}


@needs_torch
def test_every_function_and_method_takes_numbers_for_tensors_as_torch_does():
    """For every overload of every function and method that torch has too, a Python number in
    each Tensor position (and in all of them at once) is refused with TypeError exactly when
    torch refuses it."""
    from pytensor import _ops, _opsgen
    in_torch, methods = set(dir(torch)), set(dir(torch.Tensor))
    names = [n for n in _opsgen.module_dir(pytensor)
             if n in in_torch and not n.startswith("_") and n not in _PYTHON_FUNCTIONS_IN_TORCH]
    differences = []
    for kind in (1, 2):
        for name in names:
            if kind == 2 and name not in methods:
                continue
            for view in _ops.group("aten::" + name, kind).refresh():
                req = [p for p in view.params if not p.has_default]
                if view.sig.has_out or any(p.kwarg_only for p in req):
                    continue
                tensors = [i for i, p in enumerate(req) if p.code == "Tensor" and not p.list]
                for sub in [[i] for i in tensors] + ([tensors] if len(tensors) > 1 else []):
                    for number in (2, 2.5):
                        try:
                            args = {m: [number if i in sub else _base_value(p, m)
                                        for i, p in enumerate(req)] for m in (pytensor, torch)}
                        except LookupError:
                            continue
                        outcomes = []
                        for m in (pytensor, torch):
                            if kind == 1:
                                fn = getattr(m, name)
                            else:
                                fn = getattr(m.tensor([[1.0, 2.0], [3.0, 4.0]]), name)
                            outcomes.append(_typeerror_or_not(lambda: fn(*args[m])))
                        if outcomes[0] != outcomes[1]:
                            differences.append((kind, name, view.sig.overload, sub, number,
                                                outcomes))
    assert differences == []
