"""Calls the hostile-argument fuzzer found to crash or hang the process, each pinned to torch's
answer (exact values or errors, without torch; compared with torch where installed)."""
import math

import pytest

import pytensor

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def test_group_norm_of_an_empty_group_is_mean_0_rstd_nan():
    y, mean, rstd = pytensor.native_group_norm(pytensor.empty(3, 0, 2), None, None, 3, 0, 2, 64,
                                               0.0)
    assert y.shape == (3, 0, 2)
    assert mean.shape == (3, 64) and mean.eq(0).all().item()
    assert rstd.shape == (3, 64) and rstd.isnan().all().item()
    assert pytensor.group_norm(pytensor.empty(3, 0, 2), 64, eps=0).shape == (3, 0, 2)
    _, mean, rstd = pytensor.native_group_norm(pytensor.empty(3, 4, 0, dtype=pytensor.float64),
                                               None, None, 3, 4, 0, 2, 1e-5)
    assert mean.eq(0).all().item() and rstd.isnan().all().item()


def test_group_norm_of_an_empty_input_has_an_empty_gradient():
    x = pytensor.empty(3, 0, 2, requires_grad=True)
    pytensor.group_norm(x, 64).sum().backward()
    assert x.grad.shape == (3, 0, 2)


@needs_torch
def test_group_norm_of_an_empty_group_matches_torch():
    ours = pytensor.native_group_norm(pytensor.empty(2, 4, 0), None, None, 2, 4, 0, 2, 1e-5)
    theirs = torch.native_group_norm(torch.empty(2, 4, 0), None, None, 2, 4, 0, 2, 1e-5)
    for a, b in zip(ours, theirs):
        assert a.shape == tuple(b.shape)
        assert [math.isnan(v) for v in a.flatten().tolist()] == \
            [math.isnan(v) for v in b.flatten().tolist()]


def test_pointwise_loss_refuses_operands_on_another_device():
    meta, cpu = pytensor.ones(2, 3, device="meta"), pytensor.ones(2, 3)
    with pytest.raises(RuntimeError, match="Tensor on device meta is not on the expected device "
                       "cpu!"):
        pytensor.binary_cross_entropy_with_logits(meta, cpu)
    with pytest.raises(RuntimeError, match="Tensor on device cpu is not on the expected device "
                       "meta!"):
        pytensor.binary_cross_entropy_with_logits(cpu, meta)


def test_pointwise_loss_on_meta_gives_the_shape():
    meta = pytensor.ones(2, 3, device="meta")
    r = pytensor.nn.functional.binary_cross_entropy_with_logits(meta, meta, reduction="none")
    assert r.device.type == "meta" and r.shape == (2, 3)
    r = pytensor.nn.functional.binary_cross_entropy_with_logits(meta, meta)
    assert r.device.type == "meta" and r.shape == ()


def test_mvlgamma_with_a_huge_p_raises_instead_of_running_for_hours():
    x = pytensor.tensor([1e20])
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with "
                       r"sizes=\[4611686018427387904\]"):
        pytensor.mvlgamma(x, 2**62)
    with pytest.raises(MemoryError, match="mvlgamma: p = 2147483648 over 1 elements"):
        pytensor.mvlgamma(x, 2**31)
    with pytest.raises(MemoryError, match="mvlgamma: p = 33554432 over 16 elements"):
        pytensor.randn(4, 4).mvlgamma_(2**25)
    assert pytensor.mvlgamma(pytensor.empty(0), 2**31).shape == (0,)


@needs_torch
def test_mvlgamma_overflow_message_is_torchs():
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.mvlgamma(torch.tensor([1e20]), 2**62)


@pytest.mark.parametrize("name", ["hsplit", "vsplit", "dsplit", "tensor_split"])
@pytest.mark.parametrize("bad", [2, (1, 0), "cpu"])
def test_split_functions_refuse_a_non_tensor_with_a_type_error(name, bad):
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'input' \(position 1\) must be "
                       rf"Tensor, not {type(bad).__name__}"):
        getattr(pytensor, name)(bad, 1)
    if torch is not None:
        with pytest.raises(TypeError):
            getattr(torch, name)(bad, 1)


@pytest.mark.parametrize("n", [16, 32, 64])
def test_small_batched_products_split_over_threads_are_exact(n):
    # 8 x 32^3 and up take a thread per matrix (SMALL_BATCH_GRAIN); each matrix is the one product
    a = pytensor.randn(8, n, n, dtype=pytensor.float64)
    b = pytensor.randn(8, n, n, dtype=pytensor.float64)
    old = pytensor.get_num_threads()
    pytensor.set_num_threads(2)
    try:
        c = pytensor.bmm(a, b)
        ct = pytensor.bmm(a, b.transpose(1, 2))
    finally:
        pytensor.set_num_threads(old)
    for i in range(8):
        assert pytensor.allclose(c[i], a[i].mm(b[i]), rtol=1e-12, atol=1e-12)
        assert pytensor.allclose(ct[i], a[i].mm(b[i].t()), rtol=1e-12, atol=1e-12)
