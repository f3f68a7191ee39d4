"""Activation layers (pytensor.nn.ReLU ... LogSoftmax, PReLU, RReLU): forward and backward
against torch, inplace flags, extra_repr text, PReLU's parameter and init, RReLU in train and
eval mode, and torch's constructor checks."""
import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from _torch_oracle import requires_torch, torch
from test_nn_layers_util import compare, layer_pair, np_of, rand, same_repr, same_state_keys

ACT_CASES = [
    ("Threshold", (0.1, 20.0), {}), ("Threshold", (0.1, -1.0), dict(inplace=True)),
    ("ReLU", (), {}), ("ReLU", (), dict(inplace=True)), ("Hardtanh", (), {}),
    ("Hardtanh", (-0.5, 0.25), dict(inplace=True)), ("ReLU6", (), {}),
    ("ReLU6", (True,), {}), ("Sigmoid", (), {}), ("Hardsigmoid", (), {}),
    ("Hardsigmoid", (True,), {}), ("Tanh", (), {}), ("SiLU", (), {}), ("SiLU", (True,), {}),
    ("Mish", (), {}), ("Hardswish", (), {}), ("Hardswish", (True,), {}), ("ELU", (), {}),
    ("ELU", (0.5, True), {}), ("CELU", (2.0,), {}), ("SELU", (), {}), ("SELU", (True,), {}),
    ("GLU", (), {}), ("GLU", (1,), {}), ("GELU", (), {}), ("GELU", ("tanh",), {}),
    ("Hardshrink", (), {}), ("Hardshrink", (0.3,), {}), ("LeakyReLU", (), {}),
    ("LeakyReLU", (0.2, True), {}), ("LogSigmoid", (), {}), ("Softplus", (), {}),
    ("Softplus", (2.0, 1.0), {}), ("Softshrink", (0.25,), {}), ("PReLU", (), {}),
    ("PReLU", (4, 0.1), {}), ("Softsign", (), {}), ("Tanhshrink", (), {}),
    ("Softmin", (1,), {}), ("Softmax", (-1,), {}), ("Softmax", (0,), {}),
    ("LogSoftmax", (1,), {}), ("Softmax2d", (), {}), ("RReLU", (0.1, 0.3), {}),
]


@requires_torch
@pytest.mark.parametrize("name,args,kwargs", ACT_CASES)
def test_activation_layers_match_torch(name, args, kwargs):
    tm, pm = layer_pair(name, *args, **kwargs)
    same_repr(tm, pm)
    same_state_keys(tm, pm)
    x = rand(3, 4, 2, 2, low=-3.0, high=3.0)
    if name == "RReLU":  # the random slopes differ: eval mode is deterministic
        tm.eval()
        pm.eval()
    inplace = getattr(tm, "inplace", False)
    if inplace:  # an in-place activation needs a non-leaf input for its gradient
        tx, px = torch.from_numpy(x.copy()), pytensor.from_numpy(x.copy())
        np.testing.assert_allclose(np_of(pm(px)), tm(tx).numpy(), atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(np_of(px), tx.numpy(), atol=1e-5, rtol=1e-5)
        assert tm.__constants__ == pm.__constants__
        return
    compare(tm, pm, [x], atol=1e-5)
    assert getattr(tm, "__constants__", None) == getattr(pm, "__constants__", None)


def test_activation_reprs():
    assert repr(nn.ReLU()) == "ReLU()"
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(nn.Hardswish(True)) == "Hardswish()"
    assert repr(nn.ReLU6(True)) == "ReLU6(inplace=True)"
    assert repr(nn.Hardtanh(-2, 2)) == "Hardtanh(min_val=-2, max_val=2)"
    assert repr(nn.ELU(inplace=True)) == "ELU(alpha=1.0, inplace=True)"
    assert repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.Softshrink()) == "Softshrink(0.5)"
    assert repr(nn.Softmax(1)) == "Softmax(dim=1)"
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.RReLU()) == "RReLU(lower=0.125, upper=0.3333333333333333)"
    assert repr(nn.PReLU(3)) == "PReLU(num_parameters=3)"
    assert repr(nn.Threshold(0.1, 2)) == "Threshold(threshold=0.1, value=2)"
    assert repr(nn.Softplus()) == "Softplus(beta=1.0, threshold=20.0)"


def test_activation_values_without_torch():
    x = pytensor.tensor([-2.0, -0.5, 0.5, 8.0])
    assert nn.ReLU()(x).tolist() == [0.0, 0.0, 0.5, 8.0]
    assert nn.ReLU6()(x).tolist() == [0.0, 0.0, 0.5, 6.0]
    assert nn.Hardtanh()(x).tolist() == [-1.0, -0.5, 0.5, 1.0]
    assert nn.Threshold(1.0, -7.0)(x).tolist() == [-7.0, -7.0, -7.0, 8.0]
    np.testing.assert_allclose(np_of(nn.LeakyReLU(0.1)(x)), [-0.2, -0.05, 0.5, 8.0],
                               rtol=1e-6)
    np.testing.assert_allclose(np_of(nn.Softmax(0)(pytensor.tensor([0.0, 0.0]))), [0.5, 0.5])
    y = pytensor.tensor([1.0, -1.0])
    assert nn.ReLU(inplace=True)(y) is y and y.tolist() == [1.0, 0.0]


def test_prelu_parameter_and_init():
    p = nn.PReLU(3, init=0.2)
    assert list(p.state_dict()) == ["weight"] and tuple(p.weight.shape) == (3,)
    np.testing.assert_allclose(np_of(p.weight), [0.2] * 3)
    assert p.num_parameters == 3 and p.init == 0.2
    out = p(pytensor.tensor([[-1.0, -2.0, 3.0]]))
    np.testing.assert_allclose(np_of(out), [[-0.2, -0.4, 3.0]], rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(np_of(p.weight.grad), [-1.0, -2.0, 0.0])


def test_rrelu_train_slopes_in_range_and_eval_mean():
    m = nn.RReLU(0.1, 0.3)
    x = pytensor.full((1000,), -1.0)
    y = np_of(m(x))
    assert y.min() >= -0.3 - 1e-6 and y.max() <= -0.1 + 1e-6 and y.std() > 0.01
    m.eval()
    np.testing.assert_allclose(np_of(m(x)), np.full(1000, -0.2), rtol=1e-6)


def test_activation_constructor_and_input_errors():
    with pytest.raises(AssertionError) as e:
        nn.Hardtanh(1.0, 1.0)
    assert str(e.value) == "max_val (1.0) must be greater than min_val (1.0)"
    with pytest.raises(ValueError) as e:
        nn.Softmax2d()(pytensor.zeros(2, 3))
    assert str(e.value) == "Softmax2d: expected input to be 3D or 4D, got 2D instead"
    with pytest.warns(FutureWarning, match="keyword argument `min_value` is deprecated"):
        h = nn.Hardtanh(min_value=-3.0)
    assert h.min_val == -3.0


def test_softmax_without_dim_warns_like_torch():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        nn.Softmax()(pytensor.zeros(2, 3))
