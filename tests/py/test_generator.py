"""Generators: seeding, state round trips, the default generator and the module functions."""

import struct

import pytest

import pytensor
from pytensor._C import lib


def _state_bytes(g) -> bytes:
    return bytes(g.get_state().tolist())


def test_new_generator_is_on_the_cpu():
    g = pytensor.Generator()
    assert g.device == pytensor.device("cpu")
    assert pytensor.Generator("cpu").device == pytensor.Generator(pytensor.device("cpu")).device
    assert "pytensor.Generator" in repr(g)


def test_manual_seed_returns_self_and_sets_the_initial_seed():
    g = pytensor.Generator()
    assert g.manual_seed(1234) is g
    assert g.initial_seed() == 1234 and g.get_offset() == 0


@pytest.mark.parametrize("seed, stored", [(-1, 2 ** 64 - 1), (-(2 ** 63), 2 ** 63),
                                          (2 ** 64 - 1, 2 ** 64 - 1), (0, 0)])
def test_seeds_wrap_like_torch(seed, stored):
    assert pytensor.Generator().manual_seed(seed).initial_seed() == stored


def test_seeds_match_torch_wrapping():
    torch = pytest.importorskip("torch")
    for seed in (-1, -(2 ** 63), 2 ** 64 - 1, 12345):
        assert pytensor.Generator().manual_seed(seed).initial_seed() == \
            torch.Generator().manual_seed(seed).initial_seed()


def test_seed_errors_name_the_argument():
    g = pytensor.Generator()
    with pytest.raises(RuntimeError, match=r"seed: 18446744073709551616 is out of range"):
        g.manual_seed(2 ** 64)
    with pytest.raises(RuntimeError, match=r"seed: .* is out of range"):
        g.manual_seed(-(2 ** 63) - 1)
    with pytest.raises(TypeError, match="seed: expected an int, got float"):
        g.manual_seed(1.5)
    with pytest.raises(TypeError, match="seed: expected an int, got bool"):
        g.manual_seed(True)
    with pytest.raises(TypeError, match="offset: expected an int, got str"):
        g.set_offset("1")


def test_seed_from_entropy_returns_the_seed():
    g = pytensor.Generator()
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 64 and g.initial_seed() == s
    assert g.seed() != s or g.seed() != s  # two 64-bit draws colliding twice is not chance


def test_state_is_seed_and_offset_little_endian():
    g = pytensor.Generator().manual_seed(0x0102030405060708)
    g.set_offset(5)
    state = g.get_state()
    assert state.dtype is pytensor.uint8 and state.shape == (lib.PT_GENERATOR_STATE_BYTES,)
    assert state.device == pytensor.device("cpu")
    assert _state_bytes(g) == struct.pack("<QQ", 0x0102030405060708, 5)


def test_set_state_restores_seed_and_offset():
    g = pytensor.Generator().manual_seed(7)
    g.set_offset(11)
    saved = g.get_state()
    g.manual_seed(99)
    assert g.set_state(saved) is g
    assert (g.initial_seed(), g.get_offset()) == (7, 11)


def test_state_restores_the_random_stream():
    g = pytensor.Generator().manual_seed(3)
    saved = g.get_state()
    first = pytensor.rand(8, generator=g).tolist()
    assert g.get_offset() > 0
    g.set_state(saved)
    assert pytensor.rand(8, generator=g).tolist() == first


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = pytensor.rand(16, generator=pytensor.Generator().manual_seed(42)).tolist()
    b = pytensor.rand(16, generator=pytensor.Generator().manual_seed(42)).tolist()
    c = pytensor.rand(16, generator=pytensor.Generator().manual_seed(43)).tolist()
    assert a == b and a != c


def test_set_state_errors():
    g = pytensor.Generator()
    with pytest.raises(TypeError, match="new_state: expected a pytensor.ByteTensor, got bytes"):
        g.set_state(b"\x00" * 16)
    with pytest.raises(TypeError, match="new_state"):
        g.set_state(pytensor.zeros(16, dtype=pytensor.float32))
    with pytest.raises(ValueError, match="new_state"):
        g.set_state(pytensor.zeros(3, dtype=pytensor.uint8))


def test_generator_on_a_missing_device_raises():
    if pytensor.cuda.is_available():
        pytest.skip("needs a machine without CUDA")
    with pytest.raises(RuntimeError):
        pytensor.Generator("cuda")
    with pytest.raises(RuntimeError):
        pytensor.Generator("bogus")


# ---------------------------------------------------------------- module functions
def test_default_generator_is_the_cpu_one():
    g = pytensor.default_generator
    assert isinstance(g, pytensor.Generator) and g.device == pytensor.device("cpu")


def test_module_manual_seed_returns_the_default_generator():
    g = pytensor.manual_seed(2024)
    assert g is pytensor.default_generator
    assert pytensor.initial_seed() == 2024 and g.get_offset() == 0


def test_module_manual_seed_makes_default_draws_repeatable():
    pytensor.manual_seed(5)
    a = pytensor.rand(6).tolist()
    pytensor.manual_seed(5)
    assert pytensor.rand(6).tolist() == a


def test_module_seed_and_rng_state():
    s = pytensor.seed()
    assert pytensor.initial_seed() == s
    state = pytensor.get_rng_state()
    a = pytensor.rand(4).tolist()
    pytensor.set_rng_state(state)
    assert pytensor.rand(4).tolist() == a
    assert bytes(pytensor.get_rng_state().tolist())[:8] == struct.pack("<Q", s)


def test_module_manual_seed_errors():
    with pytest.raises(TypeError, match="seed: expected an int"):
        pytensor.manual_seed("1")
    with pytest.raises(TypeError, match="new_state"):
        pytensor.set_rng_state([0] * 16)
