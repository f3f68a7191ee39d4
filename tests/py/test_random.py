"""Random factories and in-place random fills: ranges, dtypes, statistics, reproducibility through
generators, and argument errors."""

import math

import numpy as np
import pytest

import pytensor

FLOATS = [pytensor.float16, pytensor.bfloat16, pytensor.float32, pytensor.float64]
INTS = [pytensor.uint8, pytensor.int8, pytensor.int16, pytensor.int32, pytensor.int64]


def gen(seed=0):
    return pytensor.Generator().manual_seed(seed)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_rand_is_in_the_unit_interval_with_the_right_mean(dtype):
    t = pytensor.rand(20000, dtype=dtype, generator=gen(1))
    assert t.dtype is dtype and t.shape == (20000,)
    v = np.array(t.float().tolist())
    assert v.min() >= 0.0 and v.max() <= 1.0
    assert abs(v.mean() - 0.5) < 0.02 and abs(v.var() - 1 / 12) < 0.01


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_randn_has_mean_0_and_std_1(dtype):
    v = np.array(pytensor.randn(20000, dtype=dtype, generator=gen(2)).float().tolist())
    assert abs(v.mean()) < 0.05 and abs(v.std() - 1.0) < 0.05


def test_rand_and_randn_with_size_forms_and_default_dtype():
    assert pytensor.rand(2, 3).shape == (2, 3) and pytensor.rand(2, 3).dtype is pytensor.float32
    assert pytensor.randn((4,)).shape == (4,)
    assert pytensor.rand([]).shape == ()
    assert pytensor.rand(0).shape == (0,)


def test_same_seed_gives_the_same_numbers_and_different_seeds_differ():
    a = pytensor.rand(100, generator=gen(7)).tolist()
    b = pytensor.rand(100, generator=gen(7)).tolist()
    c = pytensor.rand(100, generator=gen(8)).tolist()
    assert a == b and a != c
    g = gen(7)
    first = pytensor.randn(10, generator=g).tolist()
    second = pytensor.randn(10, generator=g).tolist()
    assert first != second


def test_manual_seed_makes_the_default_generator_reproducible():
    pytensor.manual_seed(123)
    a = pytensor.rand(5).tolist()
    pytensor.manual_seed(123)
    assert pytensor.rand(5).tolist() == a


def test_generator_state_restores_the_sequence():
    g = gen(3)
    state = g.get_state()
    a = pytensor.rand(5, generator=g).tolist()
    g.set_state(state)
    assert pytensor.rand(5, generator=g).tolist() == a


@pytest.mark.parametrize("dtype", INTS, ids=str)
def test_randint_stays_in_range_and_covers_it(dtype):
    t = pytensor.randint(-3 if dtype is not pytensor.uint8 else 0, 5, (5000,), dtype=dtype,
                         generator=gen(4))
    assert t.dtype is dtype
    v = set(t.tolist())
    assert v == set(range(-3 if dtype is not pytensor.uint8 else 0, 5))


def test_randint_forms_and_default_dtype():
    t = pytensor.randint(10, (3, 4))
    assert t.shape == (3, 4) and t.dtype is pytensor.int64
    assert all(0 <= x < 10 for row in t.tolist() for x in row)
    assert pytensor.randint(2, 3, size=(2,)).tolist() == [2, 2]
    assert pytensor.randint(low=5, high=6, size=(1,)).tolist() == [5]
    f = pytensor.randint(0, 4, (100,), dtype=pytensor.float32)
    assert f.dtype is pytensor.float32 and set(f.tolist()) <= {0.0, 1.0, 2.0, 3.0}


def test_randint_argument_errors():
    with pytest.raises(ValueError, match="from"):
        pytensor.randint(5, 3, (3,))
    with pytest.raises(TypeError, match="size"):
        pytensor.randint(5)
    with pytest.raises(TypeError, match="size"):
        pytensor.randint(0, 5, (2.5,))


def test_randperm_is_a_permutation():
    for n in (0, 1, 10, 1000):
        p = pytensor.randperm(n, generator=gen(5))
        assert p.dtype is pytensor.int64 and sorted(p.tolist()) == list(range(n))
    assert pytensor.randperm(5, dtype=pytensor.int32).dtype is pytensor.int32
    assert pytensor.randperm(1000, generator=gen(5)).tolist() != list(range(1000))


def test_randperm_with_a_negative_n_raises():
    with pytest.raises((ValueError, RuntimeError), match="n"):
        pytensor.randperm(-1)


def test_normal_with_number_mean_and_std():
    v = np.array(pytensor.normal(3.0, 0.5, (20000,), generator=gen(6)).tolist())
    assert abs(v.mean() - 3.0) < 0.02 and abs(v.std() - 0.5) < 0.02
    assert pytensor.normal(0.0, 1.0, size=(2, 2), dtype=pytensor.float64).dtype is pytensor.float64


def test_normal_argument_errors():
    with pytest.raises(TypeError, match="size"):
        pytensor.normal(0.0, 1.0)
    with pytest.raises(TypeError, match="must not be given"):
        pytensor.normal(pytensor.zeros(2), 1.0, (2,))


def test_normal_with_tensor_mean_or_std_follows_the_overloads():
    mean = pytensor.arange(4, dtype=pytensor.float64) * 100
    std = pytensor.full((4,), 0.5, dtype=pytensor.float64)
    a = pytensor.normal(mean, 1.0, generator=gen(3))
    b = pytensor.normal(mean, std, generator=gen(3))
    c = pytensor.normal(0.0, std, generator=gen(3))
    z = pytensor.randn(4, generator=gen(3), dtype=pytensor.float64)
    assert a.tolist() == pytest.approx([m + v for m, v in zip(mean.tolist(), z.tolist())])
    assert b.tolist() == pytest.approx([m + 0.5 * v for m, v in zip(mean.tolist(), z.tolist())])
    assert c.tolist() == pytest.approx([0.5 * v for v in z.tolist()])
    out = pytensor.empty(4, dtype=pytensor.float64)
    r = pytensor.normal(mean, std, generator=gen(3), out=out)
    assert r is out and out.tolist() == b.tolist()


def test_like_forms_follow_the_input():
    base = pytensor.zeros(3, 2, dtype=pytensor.float64)
    r = pytensor.rand_like(base, generator=gen(1))
    assert r.shape == (3, 2) and r.dtype is pytensor.float64
    n = pytensor.randn_like(base)
    assert n.shape == (3, 2)
    i = pytensor.randint_like(base, 3)
    assert i.dtype is pytensor.float64 and set(sum(i.tolist(), [])) <= {0.0, 1.0, 2.0}
    j = pytensor.randint_like(pytensor.zeros(50, dtype=pytensor.int32), 5, 7)
    assert set(j.tolist()) <= {5, 6}


def test_in_place_fills_return_self_and_respect_bounds():
    t = pytensor.empty(1000)
    assert t.uniform_(-2, -1, generator=gen(1)) is t
    assert all(-2 <= x <= -1 for x in t.tolist())
    assert t.normal_(10, 0.1) is t
    assert abs(np.mean(t.tolist()) - 10) < 0.05
    i = pytensor.empty(1000, dtype=pytensor.int64)
    assert i.random_(3, 6) is i and set(i.tolist()) == {3, 4, 5}
    assert set(i.random_(2).tolist()) == {0, 1}
    assert set(i.random_(to=2).tolist()) == {0, 1}
    assert min(i.random_().tolist()) >= 0


def test_random_without_bounds_uses_the_dtype_range():
    b = pytensor.empty(200, dtype=pytensor.bool).random_()
    assert set(b.tolist()) == {False, True}
    u = pytensor.empty(5000, dtype=pytensor.uint8).random_()
    assert max(u.tolist()) > 200
    h = pytensor.empty(1000, dtype=pytensor.float16).random_()
    assert all(0 <= x <= 2 ** 11 and x == math.floor(x) for x in h.tolist())


def test_random_fills_on_non_contiguous_views_only_touch_the_view():
    t = pytensor.zeros(4, 6)
    t[:, ::2].uniform_(1, 2)
    rows = t.tolist()
    assert all(r[1::2] == [0.0] * 3 for r in rows)
    assert all(1 <= x <= 2 for r in rows for x in r[::2])


def test_uniform_and_normal_refuse_integer_tensors():
    with pytest.raises(TypeError, match="float"):
        pytensor.empty(2, dtype=pytensor.int64).uniform_()
    with pytest.raises(TypeError, match="float"):
        pytensor.rand(2, dtype=pytensor.int32)
    with pytest.raises(TypeError, match="float"):
        pytensor.randn(2, dtype=pytensor.int32)


def test_generator_argument_must_be_a_generator():
    with pytest.raises(TypeError, match="generator: expected a pytensor.Generator, got int"):
        pytensor.rand(2, generator=3)
    with pytest.raises(TypeError, match="generator"):
        pytensor.zeros(2).normal_(generator="g")


def test_random_factories_make_leaves_that_require_grad():
    t = pytensor.rand(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        pytensor.randint(0, 3, (2,), requires_grad=True)


def test_random_numbers_are_philox_and_match_torch_shapes_only():
    torch = pytest.importorskip("torch")
    assert pytensor.rand(3, 4).shape == tuple(torch.rand(3, 4).shape)
    assert pytensor.randint(0, 3, (2, 5)).dtype.itemsize == torch.randint(0, 3, (2, 5)).element_size()
