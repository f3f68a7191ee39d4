"""The random operators of csrc/ops/random.yaml: bernoulli, multinomial, normal with tensor mean
or std, exponential_, cauchy_, log_normal_, geometric_, dropout and the *_like generator forms.

Values are checked exactly where the Philox stream fixes them (Note [Philox stream] in
csrc/kernels/random.c and Note [distributions] in random_draws.c: element i of a call uses the call's i-th block, so a
bernoulli draw is `rand(float64) < p` of the same seed), statistically elsewhere with tolerances of
6 standard errors of the sample size, and every argument error against torch's text."""

import os
import subprocess
import sys

import numpy as np
import pytest

import pytensor

A = pytensor.ops.aten
FLOATS = [pytensor.float16, pytensor.bfloat16, pytensor.float32, pytensor.float64]
REALS = [pytensor.bool, pytensor.uint8, pytensor.int8, pytensor.int16, pytensor.int32,
         pytensor.int64] + FLOATS


def gen(seed=0):
    return pytensor.Generator().manual_seed(seed)


def arr(t):
    return np.array(t.double().tolist() if t.dtype in (pytensor.float16, pytensor.bfloat16)
                    else t.tolist())


def u53(n, seed, shape=None):
    """The uniform numbers in [0, 1) that elements 0..n-1 of a call draw (53 bits)."""
    return arr(pytensor.rand(n, dtype=pytensor.float64, generator=gen(seed)))


def within(value, expected, se):
    assert abs(value - expected) <= 6 * se, (value, expected, se)


# ---------------------------------------------------------------- bernoulli
@pytest.mark.parametrize("pdtype", FLOATS, ids=str)
def test_bernoulli_of_a_probability_tensor_is_u_below_p(pdtype):
    p = pytensor.rand(2000, generator=gen(1)).to(pdtype)
    r = pytensor.bernoulli(p, generator=gen(9))
    assert r.dtype is pdtype and r.shape == (2000,)
    np.testing.assert_array_equal(arr(r), (u53(2000, 9) < arr(p)).astype(float))


@pytest.mark.parametrize("dtype", REALS, ids=str)
def test_bernoulli_float_fills_every_real_dtype_with_zeros_and_ones(dtype):
    t = pytensor.empty(3000, dtype=dtype)
    assert t.bernoulli_(0.3, generator=gen(4)) is t
    np.testing.assert_array_equal(arr(t).astype(float), (u53(3000, 4) < 0.3).astype(float))
    r = pytensor.bernoulli(pytensor.zeros(5, dtype=dtype), 0.5)
    assert r.dtype is dtype


def test_bernoulli_forms_agree_and_honour_the_generator():
    p = pytensor.rand(4, 5, generator=gen(2))
    a = pytensor.bernoulli(p, generator=gen(3))
    b = p.bernoulli(generator=gen(3))
    c = pytensor.zeros(4, 5, dtype=pytensor.int64).bernoulli_(p, generator=gen(3))
    d = pytensor.bernoulli(pytensor.zeros(4, 5), p, generator=gen(3))
    out = pytensor.empty(0, dtype=pytensor.bool)
    e = pytensor.bernoulli(p, generator=gen(3), out=out)
    assert e is out and out.shape == (4, 5)
    for x in (b, c, d, e):
        assert arr(x).astype(float).tolist() == arr(a).tolist()
    f = pytensor.bernoulli(pytensor.zeros(3), 0.5, generator=gen(3))
    g = pytensor.empty(3, dtype=pytensor.int8)
    assert A.bernoulli.float_out(pytensor.zeros(3), 0.5, generator=gen(3), out=g) is g
    assert arr(g).tolist() == arr(f).tolist()
    h = pytensor.empty(4, 5)
    assert A.bernoulli.Tensor_out(pytensor.zeros(4, 5), p, generator=gen(3), out=h) is h
    assert arr(h).tolist() == arr(a).tolist()


def test_bernoulli_default_generator_follows_manual_seed():
    pytensor.manual_seed(77)
    a = pytensor.bernoulli(pytensor.full((100,), 0.5)).tolist()
    pytensor.manual_seed(77)
    assert pytensor.bernoulli(pytensor.full((100,), 0.5)).tolist() == a
    g = gen(5)
    off = pytensor.default_generator.get_offset() if hasattr(pytensor, "default_generator") \
        else None
    pytensor.bernoulli(pytensor.full((10,), 0.5), generator=g)
    assert g.get_offset() == 10
    if off is not None:
        assert pytensor.default_generator.get_offset() == off


def test_bernoulli_p_tensor_broadcasts_to_self():
    p = pytensor.tensor([[1.0], [0.0], [1.0]])
    t = pytensor.empty(3, 4).bernoulli_(p)
    assert t.tolist() == [[1.0] * 4, [0.0] * 4, [1.0] * 4]
    t = pytensor.empty(2, 3).bernoulli_(pytensor.tensor(0.0))
    assert t.tolist() == [[0.0] * 3] * 2


def test_bernoulli_statistics():
    n, p = 200000, 0.3
    v = arr(pytensor.empty(n).bernoulli_(p, generator=gen(11)))
    within(v.mean(), p, (p * (1 - p) / n) ** 0.5)


def test_bernoulli_reading_its_own_output_or_an_overlapping_view():
    p = pytensor.rand(6, generator=gen(1), dtype=pytensor.float64)
    expected = (u53(6, 8) < arr(p)).astype(float)
    q = p.clone()
    assert q.bernoulli_(q, generator=gen(8)).tolist() == expected.tolist()
    base = pytensor.rand(7, generator=gen(1), dtype=pytensor.float64)
    before = arr(base)[1:].copy()
    base[:6].bernoulli_(base[1:], generator=gen(8))  # reads what it writes, shifted by one
    assert arr(base)[:6].tolist() == (u53(6, 8) < before).astype(float).tolist()


def test_bernoulli_errors():
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5"):
        pytensor.bernoulli(pytensor.ones(3), 1.5)
    with pytest.raises(RuntimeError, match="but got p=-0.5"):
        pytensor.ones(3).bernoulli_(-0.5)
    with pytest.raises(RuntimeError, match="but got p=nan"):
        pytensor.ones(3).bernoulli_(float("nan"))
    for bad in (1.5, -0.5, float("nan")):
        with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1 to be true"):
            pytensor.bernoulli(pytensor.tensor([0.5, bad]))
    with pytest.raises(NotImplementedError, match="\"bernoulli_tensor_cpu_p_\" not implemented "
                       "for 'Long'"):
        pytensor.bernoulli(pytensor.tensor([1, 0]))
    with pytest.raises(NotImplementedError, match="\"bernoulli_tensor_cpu_p_\" not implemented "
                       "for 'Bool'"):
        pytensor.ones(3).bernoulli_(pytensor.tensor([True, False, True]))
    with pytest.raises(NotImplementedError, match="\"bernoulli_tensor_cpu_self_\" not implemented "
                       "for 'ComplexFloat'"):
        pytensor.bernoulli(pytensor.zeros(2, dtype=pytensor.complex64))
    with pytest.raises(NotImplementedError, match="\"bernoulli_scalar_cpu_\" not implemented for "
                       "'ComplexDouble'"):
        pytensor.zeros(2, dtype=pytensor.complex128).bernoulli_(0.5)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(3\) must match the "
                       r"existing size \(2\)"):
        pytensor.ones(3).bernoulli_(pytensor.tensor([1.0, 0.0]))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        pytensor.ones(3).expand(2, 3).bernoulli_(0.5)
    with pytest.raises(RuntimeError, match=r"out with shape \[2\] doesn't match the result's "
                       r"shape \[3\]"):
        pytensor.bernoulli(pytensor.ones(3), out=pytensor.empty(2))


def test_bernoulli_p_errors_leave_the_output_untouched():
    t = pytensor.full((3,), 7.0)
    with pytest.raises(RuntimeError, match="p_in"):
        t.bernoulli_(pytensor.tensor([0.5, 0.5, 2.0]))
    assert t.tolist() == [7.0] * 3


# ---------------------------------------------------------------- the other fills
def test_exponential_is_minus_log1p_of_minus_u_over_lambda():
    t = pytensor.empty(1000, dtype=pytensor.float64).exponential_(2.5, generator=gen(6))
    np.testing.assert_allclose(arr(t), -np.log1p(-u53(1000, 6)) / 2.5, rtol=1e-14, atol=0)
    f = pytensor.empty(1000).exponential_(generator=gen(6))
    u24 = arr(pytensor.rand(1000, generator=gen(6))).astype(np.float64)
    np.testing.assert_allclose(arr(f), (-np.log1p(-u24)).astype(np.float32), rtol=1e-6)
    assert arr(pytensor.empty(5).exponential_(float("inf"))).tolist() == [0.0] * 5


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_continuous_distributions_statistics(dtype):
    n = 40000
    e = arr(pytensor.empty(n, dtype=dtype).exponential_(2.0, generator=gen(1)))
    assert (e >= 0).all()
    rel = 0.01 if dtype in (pytensor.float16, pytensor.bfloat16) else 0.0  # rounding of 16 bits
    within(e.mean(), 0.5, 0.5 / n ** 0.5 + rel * 0.5)
    c = arr(pytensor.empty(n, dtype=dtype).cauchy_(3.0, 2.0, generator=gen(2)))
    inside = np.mean(np.abs(c - 3.0) < 2.0)  # P(|X - median| < sigma) = 1/2
    within(inside, 0.5, (0.25 / n) ** 0.5 + rel)
    ln = arr(pytensor.empty(n, dtype=dtype).log_normal_(0.5, 0.25, generator=gen(3)))
    assert (ln > 0).all()
    logs = np.log(ln)
    within(logs.mean(), 0.5, 0.25 / n ** 0.5 + rel)
    within(logs.std(), 0.25, 0.25 / (2 * n) ** 0.5 + rel)


@pytest.mark.parametrize("dtype", [pytensor.uint8, pytensor.int16, pytensor.int64,
                                   pytensor.float32, pytensor.float64], ids=str)
def test_geometric_counts_trials_from_one(dtype):
    n, p = 40000, 0.2
    v = arr(pytensor.empty(n, dtype=dtype).geometric_(p, generator=gen(4)))
    assert v.min() >= 1 and (v == np.floor(v)).all()
    within(v.mean(), 1 / p, ((1 - p) / p ** 2 / n) ** 0.5)
    within(np.mean(v == 1), p, (p * (1 - p) / n) ** 0.5)


def test_geometric_saturates_small_integer_dtypes():
    v = pytensor.empty(100, dtype=pytensor.uint8).geometric_(1e-9, generator=gen(1))
    assert set(v.tolist()) == {255}


def test_fills_errors():
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0, but found lambda=0"):
        pytensor.empty(3).exponential_(0)
    with pytest.raises(RuntimeError, match="lambda=nan"):
        pytensor.empty(3).exponential_(float("nan"))
    with pytest.raises(RuntimeError, match="Exponential distribution is a continuous probability "
                       "distribution. dtype must be a floating point but you specified Long"):
        pytensor.empty(3, dtype=pytensor.int64).exponential_()
    with pytest.raises(RuntimeError, match="specified ComplexFloat"):
        pytensor.empty(3, dtype=pytensor.complex64).exponential_()
    with pytest.raises(RuntimeError, match="cauchy_ expects sigma > 0.0, but found sigma=-1"):
        pytensor.empty(3).cauchy_(0, -1)
    with pytest.raises(RuntimeError, match="Cauchy distribution is a continuous"):
        pytensor.empty(3, dtype=pytensor.int32).cauchy_()
    with pytest.raises(RuntimeError, match="log_normal_ expects std > 0.0, but found std=0"):
        pytensor.empty(3).log_normal_(1, 0)
    with pytest.raises(NotImplementedError, match="\"log_normal_cpu\" not implemented for 'Long'"):
        pytensor.empty(3, dtype=pytensor.int64).log_normal_()
    for p in (0, 1, 1.5):
        with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\), but got "
                           f"p={p}"):
            pytensor.empty(3).geometric_(p)
    with pytest.raises(NotImplementedError, match="\"geometric_cpu\" not implemented for 'Bool'"):
        pytensor.empty(3, dtype=pytensor.bool).geometric_(0.5)
    with pytest.raises(RuntimeError, match="more than one element"):
        pytensor.empty(3).expand(2, 3).exponential_()


@pytest.mark.parametrize("fill", [
    lambda t, g: t.exponential_(generator=g), lambda t, g: t.cauchy_(generator=g),
    lambda t, g: t.log_normal_(generator=g), lambda t, g: t.geometric_(0.3, generator=g),
    lambda t, g: t.bernoulli_(0.4, generator=g),
    lambda t, g: t.bernoulli_(pytensor.full((4,), 0.4, dtype=pytensor.float64), generator=g),
], ids=["exponential_", "cauchy_", "log_normal_", "geometric_", "bernoulli_float",
        "bernoulli_tensor"])
def test_fills_of_strided_views_get_what_contiguous_tensors_get(fill):
    ref = fill(pytensor.zeros(3, 4, dtype=pytensor.float64), gen(12)).tolist()
    v = pytensor.zeros(4, 3, dtype=pytensor.float64).t()
    assert fill(v, gen(12)).tolist() == ref
    base = pytensor.full((3, 8), -5.0, dtype=pytensor.float64)
    fill(base[:, ::2], gen(12))
    rows = base.tolist()
    assert [r[::2] for r in rows] == ref and all(r[1::2] == [-5.0] * 4 for r in rows)


@pytest.mark.parametrize("fill", [
    lambda t, g: t.exponential_(generator=g), lambda t, g: t.bernoulli_(0.5, generator=g),
    lambda t, g: t.bernoulli_(pytensor.full((2, 3), 0.5, device="meta"), generator=g),
    lambda t, g: t.geometric_(0.5, generator=g),
])
def test_fills_of_meta_tensors_draw_nothing(fill):
    g = gen(1)
    t = pytensor.empty(2, 3, device="meta")
    assert fill(t, g) is t and g.get_offset() == 0


def test_zero_dim_and_empty_fills():
    g = gen(2)
    t = pytensor.tensor(0.0).exponential_(generator=g)
    assert t.shape == () and g.get_offset() == 1 and t.item() >= 0
    e = pytensor.empty(0, 3).bernoulli_(0.5, generator=g)
    assert e.shape == (0, 3) and g.get_offset() == 1
    assert pytensor.bernoulli(pytensor.tensor(1.0)).item() == 1.0


# ---------------------------------------------------------------- multinomial
def chi_square(counts, p):
    expected = np.asarray(p) / np.sum(p) * np.sum(counts)
    return float(np.sum((np.asarray(counts) - expected) ** 2 / expected))


# Chi-square with 3 degrees of freedom exceeds 35 with probability ~1e-7: a fixed seed passes or
# fails for good, and a wrong sampler fails by orders of magnitude more.
CHI2_3DF = 35.0


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_multinomial_with_replacement_follows_the_probabilities(dtype):
    p = [0.1, 0.2, 0.3, 0.4]
    s = pytensor.multinomial(pytensor.tensor(p, dtype=dtype), 50000, True, generator=gen(3))
    assert s.dtype is pytensor.int64 and s.shape == (50000,)
    counts = np.bincount(arr(s).astype(int), minlength=4)
    pe = arr(pytensor.tensor(p, dtype=dtype))
    assert chi_square(counts, pe) < CHI2_3DF


def test_multinomial_first_draw_without_replacement_follows_the_probabilities():
    p = pytensor.tensor([1.0, 2.0, 3.0, 4.0]).expand(20000, 4)
    s = pytensor.multinomial(p, 2, generator=gen(4))
    first, second = arr(s[:, 0]).astype(int), arr(s[:, 1]).astype(int)
    assert (first != second).all()
    assert chi_square(np.bincount(first, minlength=4), [1, 2, 3, 4]) < CHI2_3DF
    # P(second = j) = sum_i p_i p_j / (1 - p_i)
    pn = np.array([0.1, 0.2, 0.3, 0.4])
    second_p = [sum(pn[i] * pn[j] / (1 - pn[i]) for i in range(4) if i != j) for j in range(4)]
    assert chi_square(np.bincount(second, minlength=4), second_p) < CHI2_3DF


def test_multinomial_without_replacement_gives_distinct_categories():
    p = pytensor.rand(50, 30, generator=gen(1))
    s = arr(p.multinomial(30, generator=gen(2))).astype(int)
    assert all(sorted(row) == list(range(30)) for row in s)
    zero = pytensor.tensor([0.0, 1.0, 0.0, 2.0])
    s = arr(pytensor.multinomial(zero, 4, generator=gen(3))).astype(int)
    assert sorted(s[:2]) == [1, 3] and sorted(s[2:]) == [0, 2]  # zeros only once the rest is out
    assert set(arr(pytensor.multinomial(zero, 3000, True, generator=gen(3)))) == {1.0, 3.0}


def test_multinomial_is_reproducible_and_advances_the_generator():
    p = pytensor.rand(3, 5, generator=gen(1))
    g = gen(9)
    a = pytensor.multinomial(p, 2, generator=g)
    assert g.get_offset() == 15  # one block per category and row
    b = pytensor.multinomial(p, 7, True, generator=g)
    assert g.get_offset() == 15 + 21  # one block per sample
    assert pytensor.multinomial(p, 2, generator=gen(9)).tolist() == a.tolist()
    g2 = gen(9)
    g2.set_offset(15)
    assert pytensor.multinomial(p, 7, True, generator=g2).tolist() == b.tolist()
    nc = pytensor.rand(5, 3, generator=gen(1)).t()  # non-contiguous rows
    assert pytensor.multinomial(nc, 2, generator=gen(9)).tolist() == \
        pytensor.multinomial(nc.contiguous(), 2, generator=gen(9)).tolist()


def test_multinomial_shapes_out_and_meta():
    assert pytensor.multinomial(pytensor.ones(0, 3), 2).shape == (0, 2)
    out = pytensor.empty(5, dtype=pytensor.int64)
    assert pytensor.multinomial(pytensor.ones(3), 2, out=out) is out and out.shape == (2,)
    g = gen(1)
    m = pytensor.multinomial(pytensor.ones(4, 3, device="meta"), 2, generator=g)
    assert m.shape == (4, 2) and m.dtype is pytensor.int64 and m.device.type == "meta"
    assert g.get_offset() == 0
    strided = pytensor.zeros(3, 2, dtype=pytensor.int64).t()
    pytensor.multinomial(pytensor.full((2, 3), 1.0), 3, out=strided, generator=gen(5))
    assert strided.tolist() == pytensor.multinomial(pytensor.full((2, 3), 1.0), 3,
                                                    generator=gen(5)).tolist()


def test_multinomial_errors():
    p = pytensor.tensor([0.2, 0.3, 0.5])
    cases = [
        (lambda: pytensor.multinomial(p, 4), "cannot sample n_sample > prob_dist.size\\(-1\\) "
         "samples without replacement"),
        (lambda: pytensor.multinomial(p, 0), "cannot sample n_sample <= 0 samples"),
        (lambda: pytensor.multinomial(p, -1, True), "cannot sample n_sample <= 0 samples"),
        (lambda: pytensor.multinomial(pytensor.tensor([0.2, -0.3]), 1),
         "probability tensor contains either `inf`, `nan` or element < 0"),
        (lambda: pytensor.multinomial(pytensor.tensor([0.2, float("inf")]), 1), "`inf`, `nan`"),
        (lambda: pytensor.multinomial(pytensor.tensor([0.2, float("nan")]), 1), "`inf`, `nan`"),
        (lambda: pytensor.multinomial(pytensor.tensor([0.2, -0.3]), 2, True),
         "invalid multinomial distribution \\(encountering probability entry < 0\\)"),
        (lambda: pytensor.multinomial(pytensor.tensor([0.2, float("nan")]), 2, True),
         "encountering probability entry < 0"),
        (lambda: pytensor.multinomial(pytensor.tensor([0.2, float("inf")]), 2, True),
         "encountering probability entry = infinity or NaN"),
        (lambda: pytensor.multinomial(pytensor.tensor([[0.2, 0.5], [0.0, 0.0]]), 1),
         "invalid multinomial distribution \\(sum of probabilities <= 0\\)"),
        (lambda: pytensor.multinomial(pytensor.tensor([[0.2, 0.5], [0.0, 0.0]]), 2, True),
         "sum of probabilities <= 0"),
        (lambda: pytensor.multinomial(pytensor.tensor(1.0), 1), "prob_dist must be 1 or 2 dim"),
        (lambda: pytensor.multinomial(pytensor.ones(2, 2, 2), 1), "prob_dist must be 1 or 2 dim"),
        (lambda: pytensor.multinomial(pytensor.ones(0), 1), "without replacement"),
        (lambda: pytensor.multinomial(pytensor.ones(3, dtype=pytensor.int64), 1),
         "multinomial only supports floating-point dtypes for input, got: Long"),
        (lambda: pytensor.multinomial(pytensor.ones(3, dtype=pytensor.complex64), 1),
         "got: ComplexFloat"),
        (lambda: pytensor.multinomial(p, 1, out=pytensor.empty(1, dtype=pytensor.int32)),
         "multinomial expects Long tensor out, got: Int"),
        (lambda: pytensor.multinomial(pytensor.ones(2 ** 24 + 1, device="meta"), 1),
         "number of categories cannot exceed 2\\^24"),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError, match=message):
            call()


def test_multinomial_messages_match_torch():
    torch = pytest.importorskip("torch")
    for probs, n, repl in [([0.2, -0.3, 0.5], 2, False), ([0.2, -0.3, 0.5], 2, True),
                           ([0.2, float("inf")], 2, True), ([0.0, 0.0], 1, False),
                           ([0.2, 0.3], 3, False)]:
        with pytest.raises(RuntimeError) as ours:
            pytensor.multinomial(pytensor.tensor(probs), n, repl)
        with pytest.raises(RuntimeError) as theirs:
            torch.multinomial(torch.tensor(probs), n, repl)
        assert str(ours.value).splitlines()[0].startswith(str(theirs.value).splitlines()[0])


# ---------------------------------------------------------------- normal with tensors
def test_normal_tensor_mean_is_normal_std_plus_mean():
    mean = pytensor.rand(3, 4, generator=gen(1)) * 10
    z = np.array(pytensor.randn(12, generator=gen(5)).tolist(), dtype=np.float32).reshape(3, 4)
    r = A.normal(mean, 2.5, generator=gen(5))
    expected = np.float32(2.5) * z + np.array(mean.tolist(), dtype=np.float32)
    assert r.dtype is pytensor.float32 and r.shape == (3, 4)
    np.testing.assert_array_equal(np.array(r.tolist(), dtype=np.float32), expected)
    assert A.normal(mean, 0.0).tolist() == mean.tolist()


def test_normal_tensor_std_is_randn_times_std_plus_mean():
    std = pytensor.rand(5, generator=gen(2), dtype=pytensor.float64)
    z = np.array(pytensor.randn(5, generator=gen(6), dtype=pytensor.float64).tolist())
    r = A.normal(1.5, std, generator=gen(6))
    assert r.dtype is pytensor.float64
    np.testing.assert_array_equal(arr(r), z * arr(std) + 1.5)
    mean = pytensor.tensor([[10.0], [20.0]], dtype=pytensor.float64)
    rr = A.normal(mean, std, generator=gen(6))
    z2 = np.array(pytensor.randn(2, 5, generator=gen(6), dtype=pytensor.float64).tolist())
    assert rr.shape == (2, 5)
    np.testing.assert_array_equal(arr(rr), z2 * arr(std) + arr(mean))


def test_normal_tensor_forms_out_and_dtypes():
    mean, std = pytensor.zeros(3), pytensor.ones(3)
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert A.normal(mean, std, generator=gen(1), out=out) is out and out.shape == (3,)
    assert A.normal(mean, 1.0, generator=gen(1), out=pytensor.empty(3)).shape == (3,)
    assert A.normal(0.0, std, generator=gen(1), out=pytensor.empty(3)).shape == (3,)
    assert A.normal(pytensor.zeros(2, dtype=pytensor.float16),
                    pytensor.ones(2, dtype=pytensor.float64)).dtype is pytensor.float16
    assert A.normal(mean, pytensor.ones(3, dtype=pytensor.int64)).dtype is pytensor.float32
    assert A.normal(pytensor.tensor(1.0), 1.0).shape == ()
    assert A.normal(pytensor.zeros(0, 2), 1.0).shape == (0, 2)
    m = A.normal(pytensor.zeros(2, 3, device="meta"), pytensor.ones(3, device="meta"))
    assert m.shape == (2, 3) and m.device.type == "meta"


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_normal_tensor_statistics(dtype):
    n = 40000
    mean = pytensor.full((n,), 3.0, dtype=dtype)
    std = pytensor.full((n,), 0.5, dtype=dtype)
    v = arr(A.normal(mean, std, generator=gen(8)))
    rel = 0.01 if dtype in (pytensor.float16, pytensor.bfloat16) else 0.0
    within(v.mean(), 3.0, 0.5 / n ** 0.5 + 3 * rel)
    within(v.std(), 0.5, 0.5 / (2 * n) ** 0.5 + rel)


def test_normal_tensor_errors():
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        A.normal(pytensor.zeros(3), -1.0)
    with pytest.raises(RuntimeError, match="found std nan"):
        A.normal(pytensor.zeros(3), float("nan"))
    for std in ([1.0, -1.0], [1.0, float("nan")]):
        with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
            A.normal(0.0, pytensor.tensor(std))
        with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
            A.normal(pytensor.zeros(2), pytensor.tensor(std))
    with pytest.raises(RuntimeError, match="normal expects standard deviation to be non-complex"):
        A.normal(pytensor.zeros(2), pytensor.ones(2, dtype=pytensor.complex64))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                       r"tensor b \(2\) at non-singleton dimension 0"):
        A.normal(pytensor.zeros(3), pytensor.ones(2))
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for "
                       "'Long'"):
        A.normal(pytensor.zeros(3, dtype=pytensor.int64), 1.0)
    with pytest.raises(NotImplementedError, match="'Int'"):
        A.normal(0.0, pytensor.ones(3, dtype=pytensor.int32))
    with pytest.raises(NotImplementedError, match="'Long'"):
        A.normal(pytensor.zeros(3), 1.0, out=pytensor.empty(3, dtype=pytensor.int64))
    with pytest.raises(RuntimeError, match=r"out with shape \[5\] doesn't match"):
        A.normal(pytensor.zeros(3), pytensor.ones(3), out=pytensor.empty(5))


# ---------------------------------------------------------------- dropout
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_dropout_is_the_bernoulli_mask_scaled_as_torch_scales_it(dtype):
    p = 0.3
    x = (pytensor.rand(500, generator=gen(1), dtype=pytensor.float64) * 4 - 2).to(dtype)
    pytensor.manual_seed(21)
    y = pytensor.dropout(x, p, True)
    pytensor.manual_seed(21)
    mask = arr(pytensor.empty(500).bernoulli_(1 - p))
    assert y.dtype is dtype and y.shape == x.shape
    if dtype is pytensor.float64:
        expected = arr(x) * (mask * (1.0 / (1 - p)))
    else:
        scale = np.float32(1.0) / np.float32(1 - p)
        ref = pytensor.tensor(float(scale), dtype=dtype).item()  # the scale in the dtype
        expected = arr((x.float() * pytensor.tensor(ref)).to(dtype)) * mask
    np.testing.assert_array_equal(arr(y), expected)
    x2 = x.clone()
    pytensor.manual_seed(21)
    assert pytensor.dropout_(x2, p, True) is x2
    np.testing.assert_array_equal(arr(x2), expected)


def test_dropout_statistics_and_special_probabilities():
    x = pytensor.ones(100000)
    pytensor.manual_seed(3)
    y = arr(pytensor.dropout(x, 0.25, True))
    within(np.mean(y == 0), 0.25, (0.25 * 0.75 / y.size) ** 0.5)
    assert set(np.unique(y)) == {0.0, np.float32(1) / np.float32(0.75)}
    assert pytensor.dropout(x, 0.5, False).tolist() == x.tolist()
    assert pytensor.dropout(x, 0.0, True).tolist() == x.tolist()
    special = pytensor.tensor([float("nan"), float("inf"), 2.0])
    assert np.isnan(arr(pytensor.dropout(special, 1.0, True))[:2]).all()
    assert pytensor.dropout(special, 1.0, True).tolist()[2] == 0.0
    assert pytensor.dropout(pytensor.ones(3, dtype=pytensor.int64), 1.0, True).tolist() == [0] * 3
    t = pytensor.ones(4)
    assert pytensor.dropout_(t, 0.5, False) is t and t.tolist() == [1.0] * 4
    assert pytensor.dropout(pytensor.empty(0), 0.5, True).shape == (0,)
    m = pytensor.dropout(pytensor.ones(2, 3, device="meta"), 0.5, True)
    assert m.shape == (2, 3) and m.device.type == "meta"


def test_dropout_of_a_transposed_input_keeps_its_layout_and_values():
    x = pytensor.rand(4, 3, generator=gen(2)).t()
    pytensor.manual_seed(5)
    y = pytensor.dropout(x, 0.5, True)
    pytensor.manual_seed(5)
    z = pytensor.dropout(x.contiguous(), 0.5, True)
    assert y.stride() == x.stride()
    assert sorted(sum(y.tolist(), [])) == sorted(sum(z.tolist(), []))


def test_dropout_errors():
    x = pytensor.ones(3)
    for p in (1.5, -0.5, float("nan")):
        for train in (True, False):
            with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, "
                               f"but got {p}"):
                pytensor.dropout(x, p, train)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output "
                       "type Long"):
        pytensor.dropout(pytensor.ones(3, dtype=pytensor.int64), 0.5, True)
    with pytest.raises(RuntimeError, match="output type Bool"):
        pytensor.dropout_(pytensor.ones(3, dtype=pytensor.bool), 0.5, True)
    with pytest.raises(NotImplementedError, match="\"bernoulli_scalar_cpu_\" not implemented for "
                       "'ComplexFloat'"):
        pytensor.dropout(pytensor.ones(3, dtype=pytensor.complex64), 0.5, True)


# ---------------------------------------------------------------- *_like with a generator
def test_like_generator_overloads_draw_from_the_generator():
    x = pytensor.zeros(2, 3, dtype=pytensor.float64)
    assert A.rand_like(x, generator=gen(4)).tolist() == \
        pytensor.rand(2, 3, dtype=pytensor.float64, generator=gen(4)).tolist()
    assert A.randn_like(x, generator=gen(4)).tolist() == \
        pytensor.randn(2, 3, dtype=pytensor.float64, generator=gen(4)).tolist()
    assert A.randint_like(x, 9, generator=gen(4)).tolist() == \
        pytensor.randint(0, 9, (2, 3), dtype=pytensor.float64, generator=gen(4)).tolist()
    r = A.randint_like(x, -3, 9, generator=gen(4), dtype=pytensor.int16)
    assert r.dtype is pytensor.int16 and r.tolist() == \
        pytensor.randint(-3, 9, (2, 3), dtype=pytensor.int16, generator=gen(4)).tolist()


def test_like_dtype_errors_match_torch():
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for "
                       "'Long'"):
        A.rand_like(pytensor.zeros(3, dtype=pytensor.int64))
    with pytest.raises(NotImplementedError, match="'Long'"):
        A.rand_like(pytensor.zeros(3), dtype=pytensor.int64)
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Int'"):
        A.randn_like(pytensor.zeros(3, dtype=pytensor.int32), generator=gen())
    with pytest.raises(RuntimeError, match="check_random_bounds handles only integral, "
                       "floating-point and boolean types"):
        A.randint_like(pytensor.zeros(3, dtype=pytensor.complex64), 3)


# ---------------------------------------------------------------- thread counts
_SCRIPT = """
import hashlib, pytensor
A = pytensor.ops.aten
def g(s): return pytensor.Generator().manual_seed(s)
n = 300000
x = pytensor.rand(n, generator=g(1))
parts = [
    pytensor.empty(n).exponential_(generator=g(2)),
    pytensor.empty(n, dtype=pytensor.float64).cauchy_(generator=g(3)),
    pytensor.empty(n, dtype=pytensor.int32).geometric_(0.1, generator=g(4)),
    pytensor.empty(n).bernoulli_(x, generator=g(5)),
    pytensor.empty(600, 500).t().bernoulli_(0.5, generator=g(6)),
    A.normal(x, 2.0, generator=g(7)),
]
pytensor.manual_seed(8)
parts.append(pytensor.dropout(x, 0.4, True))
print(hashlib.sha256(repr([p.tolist() for p in parts]).encode()).hexdigest())
"""


def test_results_do_not_depend_on_the_thread_count():
    # The child imports the pytensor this process imported (installed or built in place).
    home = os.path.dirname(os.path.dirname(os.path.abspath(pytensor.__file__)))
    path = home + os.pathsep + os.environ.get("PYTHONPATH", "")
    digests = set()
    for threads in ("1", "2", "3"):
        env = dict(os.environ, OMP_NUM_THREADS=threads, PYTHONPATH=path)
        out = subprocess.run([sys.executable, "-P", "-c", _SCRIPT], env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        digests.add(out.stdout.strip())
    assert len(digests) == 1


# ---------------------------------------------------------------- complex dtypes
@pytest.mark.parametrize("dtype,real", [(pytensor.complex64, pytensor.float32),
                                        (pytensor.complex128, pytensor.float64)], ids=str)
def test_complex_tensors_draw_through_their_real_view(dtype, real):
    """As torch: uniform_ fills the real and imaginary parts alike, normal_ both with std / sqrt(2)
    (so E|z - mean|^2 = std^2), and the factories, *_like and normal with tensors take complex."""
    c = pytensor.empty(5, 3, dtype=dtype).normal_(1.0, 2.0, generator=gen(11))
    r = pytensor.empty(5, 3, 2, dtype=real).normal_(1.0, 2.0 / np.sqrt(2.0), generator=gen(11))
    got = c.numpy().view(np.float32 if dtype is pytensor.complex64 else np.float64)
    assert np.array_equal(got.reshape(5, 3, 2), r.numpy())
    u = pytensor.empty(4, 6, dtype=dtype).t().uniform_(-2.0, 3.0, generator=gen(12))
    ur = u.numpy()
    assert ur.shape == (6, 4) and np.all((ur.real >= -2) & (ur.real < 3) & (ur.imag >= -2)
                                         & (ur.imag < 3))
    assert len(set(ur.real.ravel().tolist()) | set(ur.imag.ravel().tolist())) == 48
    z = pytensor.randn(200_000, dtype=dtype, generator=gen(13)).numpy()
    assert abs(z.real.var() - 0.5) < 0.01 and abs(z.imag.var() - 0.5) < 0.01
    assert abs(np.mean(np.abs(z) ** 2) - 1.0) < 0.02
    n = A.normal(pytensor.full((200_000,), 1 + 2j, dtype=dtype), 2.0, generator=gen(14)).numpy()
    assert n.dtype.kind == "c" and n.dtype.itemsize == 2 * got.dtype.itemsize
    assert abs(n.mean() - (1 + 2j)) < 0.02 and abs(np.mean(np.abs(n - (1 + 2j)) ** 2) - 4) < 0.1
    for f in (A.rand_like, A.randn_like):
        assert f(pytensor.zeros(3, dtype=dtype), generator=gen(15)).dtype is dtype
    assert pytensor.rand(3, dtype=dtype, generator=gen(16)).dtype is dtype


def test_complex_draws_of_many_dims_and_empty_tensors():
    """The real view leaves out size-1 dims, so 64-dim complex tensors draw (as in torch), and an
    empty one draws nothing but still checks its arguments."""
    t = pytensor.empty([1] * 63 + [3], dtype=pytensor.complex64)
    t.normal_(generator=gen(21))
    flat = pytensor.empty(3, dtype=pytensor.complex64).normal_(generator=gen(21))
    assert t.reshape(3).tolist() == flat.tolist()
    e = pytensor.empty([1] * 33 + [0] + [3] * 30, dtype=pytensor.complex128)
    assert e.uniform_(0, 1).numel() == 0 and e.normal_().numel() == 0
    with pytest.raises(ValueError, match="uniform_ expects to return values in"):
        e.uniform_(2.0, 1.0)
