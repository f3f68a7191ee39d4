"""Normalization layers (BatchNorm*, InstanceNorm*, LayerNorm, GroupNorm, RMSNorm,
LocalResponseNorm, CrossMapLRN2d and the Lazy forms): parameters and buffers with torch's
names, initial values, running statistics over several training steps (exponential and
cumulative), eval mode, extra_repr, forward/backward against torch, NumPy references, and
torch's messages for inputs of the wrong rank."""
import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from _torch_oracle import requires_torch, torch
from test_nn_layers_util import compare, layer_pair, np_of, rand, raises_like, same_repr, \
    same_state_keys

BN_CASES = [
    ("BatchNorm1d", (3,), {}, (4, 3)),
    ("BatchNorm1d", (3,), dict(momentum=None), (4, 3, 5)),
    ("BatchNorm1d", (3,), dict(affine=False, eps=1e-3), (4, 3)),
    ("BatchNorm2d", (2,), dict(momentum=0.3), (3, 2, 4, 3)),
    ("BatchNorm2d", (2,), dict(track_running_stats=False), (3, 2, 4, 3)),
    ("BatchNorm2d", (2,), dict(bias=False), (2, 2, 3, 3)),
    ("BatchNorm3d", (2,), dict(momentum=None, affine=False), (2, 2, 3, 2, 2)),
    ("InstanceNorm1d", (3,), {}, (2, 3, 6)),
    ("InstanceNorm1d", (3,), dict(affine=True, track_running_stats=True), (2, 3, 6)),
    ("InstanceNorm1d", (3,), dict(affine=True), (3, 6)),
    ("InstanceNorm2d", (2,), dict(track_running_stats=True, momentum=0.2), (2, 2, 3, 4)),
    ("InstanceNorm2d", (2,), dict(track_running_stats=True), (2, 3, 4)),
    ("InstanceNorm3d", (2,), dict(affine=True, bias=False), (2, 2, 2, 3, 3)),
]


@requires_torch
@pytest.mark.parametrize("name,args,kwargs,shape", BN_CASES)
def test_norm_layers_running_stats_match_torch(name, args, kwargs, shape):
    tm, pm = layer_pair(name, *args, **kwargs)
    same_repr(tm, pm)
    same_state_keys(tm, pm)
    for step in range(3):
        compare(tm, pm, [rand(*shape, low=-2.0, high=3.0)], atol=1e-4)
        for k, v in tm.state_dict().items():
            np.testing.assert_allclose(np_of(pm.state_dict()[k]), v.numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=f"{k} at step {step}")
    tm.eval()
    pm.eval()
    compare(tm, pm, [rand(*shape)], atol=1e-4)
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(np_of(pm.state_dict()[k]), v.numpy(), rtol=1e-5, atol=1e-6)


@requires_torch
@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("LayerNorm", (5,), {}, (2, 3, 5)),
    ("LayerNorm", ((3, 4),), dict(eps=1e-3, bias=False), (2, 3, 4)),
    ("LayerNorm", ([4],), dict(elementwise_affine=False), (3, 4)),
    ("GroupNorm", (2, 4), {}, (2, 4, 3)),
    ("GroupNorm", (3, 6), dict(affine=False), (2, 6, 2, 2)),
    ("GroupNorm", (1, 2), dict(bias=False), (3, 2, 5)),
    ("RMSNorm", (4,), {}, (3, 4)),
    ("RMSNorm", ((2, 3),), dict(eps=1e-4, elementwise_affine=False), (2, 2, 3)),
    ("LocalResponseNorm", (3,), {}, (2, 5, 3, 3)),
    ("LocalResponseNorm", (2, 1e-2, 0.5, 2.0), {}, (2, 4, 6)),
])
def test_feature_norms_match_torch(name, args, kwargs, shape):
    tm, pm = layer_pair(name, *args, **kwargs)
    with torch.no_grad():  # make the affine parameters non-trivial
        for p in tm.parameters():
            p.uniform_(0.5, 1.5)
    from test_nn_layers_util import copy_state
    copy_state(tm, pm)
    same_repr(tm, pm)
    same_state_keys(tm, pm)
    compare(tm, pm, [rand(*shape)], atol=1e-4)


@requires_torch
@pytest.mark.parametrize("size", [2, 3, 4, 5, 8])
def test_cross_map_lrn2d_matches_torch(size):
    tm, pm = layer_pair("CrossMapLRN2d", size, 0.1, 0.75, 2.0)
    same_repr(tm, pm)
    compare(tm, pm, [rand(2, 7, 3, 2)])  # torch's own backward formula, not autograd's


def test_batch_norm_running_stats_numpy_reference():
    bn = nn.BatchNorm1d(2, momentum=0.25)
    x = rand(6, 2)
    bn(pytensor.from_numpy(x))
    mean, var = x.mean(0), x.var(0, ddof=1)
    np.testing.assert_allclose(np_of(bn.running_mean), 0.25 * mean, rtol=1e-5)
    np.testing.assert_allclose(np_of(bn.running_var), 0.75 + 0.25 * var, rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1 and bn.num_batches_tracked.dtype == pytensor.int64
    cum = nn.BatchNorm1d(2, momentum=None)
    xs = [rand(5, 2) for _ in range(3)]
    for xi in xs:
        cum(pytensor.from_numpy(xi))
    np.testing.assert_allclose(np_of(cum.running_mean), np.mean([a.mean(0) for a in xs], 0),
                               rtol=1e-5, atol=1e-6)
    assert cum.num_batches_tracked.item() == 3
    cum.eval()
    y = np_of(cum(pytensor.from_numpy(xs[0])))
    ref = (xs[0] - np_of(cum.running_mean)) / np.sqrt(np_of(cum.running_var) + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)


def test_norm_initial_state_and_keys():
    bn = nn.BatchNorm2d(3)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    assert np_of(bn.weight).tolist() == [1.0] * 3 and np_of(bn.bias).tolist() == [0.0] * 3
    assert np_of(bn.running_var).tolist() == [1.0] * 3
    bn.running_mean.fill_(2.0)
    bn.num_batches_tracked.fill_(4)
    bn.reset_running_stats()
    assert np_of(bn.running_mean).tolist() == [0.0] * 3 and bn.num_batches_tracked.item() == 0
    nb = nn.BatchNorm1d(2, affine=False, track_running_stats=False)
    assert list(nb.state_dict()) == [] and nb.weight is None and nb.running_mean is None
    inn = nn.InstanceNorm2d(2)
    assert list(inn.state_dict()) == [] and not inn.affine and not inn.track_running_stats
    assert list(nn.LayerNorm(3, bias=False).state_dict()) == ["weight"]
    assert list(nn.RMSNorm([2, 2]).state_dict()) == ["weight"]
    assert tuple(nn.LayerNorm([2, 3]).weight.shape) == (2, 3)


def test_norm_reprs():
    assert repr(nn.BatchNorm1d(4)) == ("BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, "
                                       "bias=True, track_running_stats=True)")
    assert repr(nn.InstanceNorm2d(3, momentum=None)) == (
        "InstanceNorm2d(3, eps=1e-05, momentum=None, affine=False, bias=False, "
        "track_running_stats=False)")
    assert repr(nn.LayerNorm((2, 3), bias=False)) == (
        "LayerNorm((2, 3), eps=1e-05, elementwise_affine=True, bias=False)")
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert repr(nn.RMSNorm(3)) == "RMSNorm((3,), eps=None, elementwise_affine=True)"
    assert repr(nn.LocalResponseNorm(2)) == "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)"
    assert repr(nn.CrossMapLRN2d(3)) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"


@pytest.mark.parametrize("layer,shape,msg", [
    (nn.BatchNorm1d, (2, 3, 4, 5), "expected 2D or 3D input (got 4D input)"),
    (nn.BatchNorm2d, (2, 3, 4), "expected 4D input (got 3D input)"),
    (nn.BatchNorm3d, (2, 3, 4, 4), "expected 5D input (got 4D input)"),
    (nn.InstanceNorm1d, (3,), "expected 2D or 3D input (got 1D input)"),
    (nn.InstanceNorm2d, (2, 3), "expected 3D or 4D input (got 2D input)"),
    (nn.InstanceNorm3d, (2, 3, 3), "expected 4D or 5D input (got 3D input)"),
])
def test_norm_input_rank_errors(layer, shape, msg):
    with pytest.raises(ValueError) as e:
        layer(3)(pytensor.zeros(*shape))
    assert str(e.value) == msg


def test_instance_norm_feature_mismatch():
    with pytest.raises(ValueError) as e:
        nn.InstanceNorm1d(4, affine=True)(pytensor.zeros(2, 3, 5))
    assert str(e.value) == ("expected input's size at dim=1 to match num_features (4), "
                            "but got: 3.")
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        nn.InstanceNorm1d(4)(pytensor.zeros(2, 3, 5))


def test_group_norm_and_cross_map_errors():
    with pytest.raises(ValueError) as e:
        nn.GroupNorm(3, 4)
    assert str(e.value) == "num_channels (4) must be divisible by num_groups (3)"
    with pytest.raises(ValueError) as e:
        nn.CrossMapLRN2d(3)(pytensor.zeros(2, 3, 4))
    assert str(e.value) == "CrossMapLRN2d: Expected input to be 4D, got 3D instead."


@requires_torch
def test_norm_errors_match_torch():
    raises_like(ValueError, lambda: torch.nn.BatchNorm2d(2)(torch.zeros(2, 2)),
                lambda: nn.BatchNorm2d(2)(pytensor.zeros(2, 2)))
    raises_like(ValueError, lambda: torch.nn.GroupNorm(4, 6),
                lambda: nn.GroupNorm(4, 6))


def test_lazy_batch_and_instance_norm_materialize():
    bn = nn.LazyBatchNorm2d(momentum=0.5)
    out = bn(pytensor.from_numpy(rand(2, 3, 2, 2)))
    assert type(bn) is nn.BatchNorm2d and bn.num_features == 3
    assert tuple(bn.weight.shape) == (3,) and tuple(bn.running_mean.shape) == (3,)
    assert np_of(bn.weight).tolist() == [1.0] * 3 and bn.num_batches_tracked.item() == 1
    assert tuple(out.shape) == (2, 3, 2, 2)
    inn = nn.LazyInstanceNorm1d(affine=True, track_running_stats=True)
    inn(pytensor.zeros(2, 4, 5))
    assert type(inn) is nn.InstanceNorm1d and inn.num_features == 4
    assert list(inn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                      "num_batches_tracked"]


def test_batch_norm_loads_state_without_num_batches_tracked():
    bn = nn.BatchNorm1d(2)
    bn.num_batches_tracked.fill_(7)
    sd = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    sd = type(bn.state_dict())(sd)
    sd._metadata = {"": {"version": 1}}
    bn.load_state_dict(sd)
    assert bn.num_batches_tracked.item() == 7


def test_instance_norm_refuses_old_running_stats_without_tracking():
    sd = {"running_mean": pytensor.zeros(2), "running_var": pytensor.ones(2)}
    with pytest.raises(RuntimeError) as e:
        nn.InstanceNorm1d(2).load_state_dict(sd)
    assert ('Unexpected running stats buffer(s) "running_mean" and "running_var" for '
            "InstanceNorm1d with track_running_stats=False.") in str(e.value)
