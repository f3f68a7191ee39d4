"""pytensor.nn.utils: gradient clipping (norms incl. inf, non-finite errors), vector
conversion, parametrize (registration, right_inverse, caching, removal, state_dict keys),
parametrizations.weight_norm / spectral_norm and the hooks-based weight_norm / spectral_norm;
values and keys against torch where it is installed."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pytensor
from pytensor import nn
from pytensor.nn import utils
from pytensor.nn.utils import parametrizations, parametrize
from _torch_oracle import requires_torch, torch


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


GRADS = [np.array([[3.0, -4.0], [1.0, 2.0]]), np.array([0.5, -12.0, 1.5])]


def _params(lib, grads=GRADS):
    ps = []
    for g in grads:
        p = lib.zeros(g.shape, dtype=lib.float64, requires_grad=True)
        p.grad = lib.tensor(g)
        ps.append(p)
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, "inf", math.inf, 0.5])
def test_clip_grad_norm_values(norm_type):
    ps = _params(pytensor)
    total = utils.clip_grad_norm_(ps, max_norm=1.0, norm_type=norm_type)
    flat = np.concatenate([g.ravel() for g in GRADS])
    p = float(norm_type)
    expect = np.abs(flat).max() if math.isinf(p) else (np.abs(flat) ** p).sum() ** (1 / p)
    assert total.item() == pytest.approx(expect)
    coef = min(1.0 / (expect + 1e-6), 1.0)
    for q, g in zip(ps, GRADS):
        np.testing.assert_allclose(_np(q.grad), g * coef, rtol=1e-12)


@requires_torch
@pytest.mark.parametrize("norm_type", [2.0, "inf", 1.0])
def test_clip_grad_norm_matches_torch(norm_type):
    ours, theirs = _params(pytensor), _params(torch)
    a = utils.clip_grad_norm_(ours, 0.5, norm_type, foreach=True)
    b = torch.nn.utils.clip_grad_norm_(theirs, 0.5, norm_type, foreach=True)
    assert a.item() == pytest.approx(b.item(), rel=1e-12)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(_np(p.grad), q.grad.numpy(), rtol=1e-12)
    assert utils.get_total_norm([]).tolist() == torch.nn.utils.get_total_norm([]).tolist()


def test_clip_grad_norm_small_grads_unchanged_and_single_tensor():
    (p,) = _params(pytensor, [np.array([0.1, 0.2])])
    total = utils.clip_grad_norm_(p, 10.0)
    assert total.item() == pytest.approx(math.sqrt(0.05))
    assert _np(p.grad).tolist() == [0.1, 0.2]
    q = pytensor.zeros(2, requires_grad=True)  # no grad: ignored
    assert utils.clip_grad_norm_([q], 1.0).item() == 0.0


def test_clip_grad_norm_nonfinite():
    ps = _params(pytensor, [np.array([1.0, np.inf])])
    with pytest.raises(RuntimeError, match=r"The total norm of order 2.0 for gradients from "
                                           r"`parameters` is non-finite, so it cannot be "
                                           r"clipped\. To disable this error"):
        utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    assert math.isinf(utils.clip_grad_norm_(ps, 1.0).item())
    with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient "
                                         "clipping will occur."):
        utils.clip_grad_norm_((p for p in []), 1.0)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        utils.clip_grad_norm(_params(pytensor), 1.0)


def test_get_total_norm_and_clip_with_norm():
    ps = _params(pytensor)
    total = utils.get_total_norm([p.grad for p in ps], norm_type=2.0)
    utils.clip_grads_with_norm_(ps, 2.0, total)
    assert utils.get_total_norm([p.grad for p in ps]).item() == pytest.approx(2.0, rel=1e-5)


def test_clip_grad_value():
    ps = _params(pytensor)
    utils.clip_grad_value_(ps, 2.5)
    for p, g in zip(ps, GRADS):
        np.testing.assert_array_equal(_np(p.grad), np.clip(g, -2.5, 2.5))
    utils.clip_grad_value_(ps[0], 0.1, foreach=False)
    assert np.abs(_np(ps[0].grad)).max() == pytest.approx(0.1)


def test_parameters_vector_round_trip():
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = utils.parameters_to_vector(m.parameters())
    assert tuple(vec.shape) == (11,)
    expect = np.concatenate([_np(p).ravel() for p in m.parameters()])
    np.testing.assert_array_equal(_np(vec), expect)
    new = pytensor.arange(11.0)
    utils.vector_to_parameters(new, m.parameters())
    assert _np(m[0].weight).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert _np(m[1].bias).tolist() == [10.0]
    assert isinstance(m[0].weight, nn.Parameter)
    with pytest.raises(TypeError, match="expected pytensor.Tensor, but got: list"):
        utils.vector_to_parameters([1.0], m.parameters())


# ---- parametrize ---------------------------------------------------------------------------

def _symmetric(nn_):
    class Symmetric(nn_.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    return Symmetric()


def _scale(nn_):
    class Scale(nn_.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, Y):
            return Y / 2

    return Scale()


def test_register_and_remove_parametrization():
    m = nn.Linear(3, 3)
    w0 = _np(m.weight)
    parametrize.register_parametrization(m, "weight", _symmetric(nn))
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    W = _np(m.weight)
    np.testing.assert_array_equal(W, W.T)
    np.testing.assert_array_equal(np.triu(W), np.triu(w0))
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    m(pytensor.ones(2, 3)).sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    parametrize.register_parametrization(m, "weight", _scale(nn))
    np.testing.assert_allclose(_np(m.weight), 2 * W)
    m.weight = pytensor.eye(3) * 4  # through both right_inverses
    np.testing.assert_allclose(_np(m.weight), np.eye(3) * 4)
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(_np(m.weight), np.eye(3) * 4)
    assert list(m.state_dict()) == ["bias", "weight"]  # registered again, last (as torch)


def test_remove_leaving_original():
    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", _scale(nn))
    original = _np(m.parametrizations.weight.original)
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    np.testing.assert_allclose(_np(m.weight), original)


def test_cached_computes_once():
    calls = []

    class Counting(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X + 0

    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Counting())
    calls.clear()
    with parametrize.cached():
        a, b = m.weight, m.weight
    assert a is b and len(calls) == 1
    m.weight
    assert len(calls) == 2


def test_parametrize_buffer_and_multiple_originals():
    class Split(nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, X):
            return X / 2, X / 2

    m = nn.Module()
    m.register_buffer("buf", pytensor.ones(3))
    parametrize.register_parametrization(m, "buf", Split())
    assert list(m.state_dict()) == ["parametrizations.buf.original0",
                                    "parametrizations.buf.original1"]
    assert _np(m.buf).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        parametrize.remove_parametrizations(m, "buf", leave_parametrized=False)


def _parametrize_errors(nn_, P, lib):
    class Shape(nn_.Module):
        def forward(self, X):
            return X[0]

    class Dtype(nn_.Module):
        def forward(self, X):
            return X.double()

    class NotTensor(nn_.Module):
        def forward(self, X):
            return 3

    class NoInverse(nn_.Module):
        def forward(self, X):
            return X

    def assign_without_inverse():
        m = nn_.Linear(2, 2)
        P.register_parametrization(m, "weight", NoInverse())
        m.weight = lib.zeros(2, 2)

    def pickled():
        import pickle
        m = nn_.Linear(2, 2)
        P.register_parametrization(m, "weight", NoInverse())
        pickle.dumps(m)

    return [lambda: P.register_parametrization(nn_.Linear(2, 2), "weight", Shape()),
            lambda: P.register_parametrization(nn_.Linear(2, 2), "weight", Dtype()),
            lambda: P.register_parametrization(nn_.Linear(2, 2), "weight", NotTensor()),
            lambda: P.register_parametrization(nn_.Linear(2, 2), "nothing", NoInverse()),
            lambda: P.remove_parametrizations(nn_.Linear(2, 2), "weight"),
            lambda: P.ParametrizationList([], lib.zeros(1)),
            assign_without_inverse, pickled]


@requires_torch
def test_parametrize_errors_match_torch():
    import torch.nn.utils.parametrize as TP
    for i, (a, b) in enumerate(zip(_parametrize_errors(nn, parametrize, pytensor),
                                   _parametrize_errors(torch.nn, TP, torch))):
        with pytest.raises(Exception) as ea:
            a()
        with pytest.raises(Exception) as eb:
            b()
        assert type(ea.value) is type(eb.value), i
        theirs = str(eb.value).replace("torch.", "pytensor.").replace("pypytensor.org",
                                                                      "pytorch.org")
        assert str(ea.value) == theirs, i


@requires_torch
def test_parametrized_repr_and_keys_match_torch():
    import torch.nn.utils.parametrize as TP
    ours = parametrize.register_parametrization(nn.Linear(3, 3), "weight", _symmetric(nn))
    theirs = TP.register_parametrization(torch.nn.Linear(3, 3), "weight", _symmetric(torch.nn))
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


# ---- weight_norm and spectral_norm ---------------------------------------------------------

def test_weight_norm_parametrization():
    m = nn.Linear(4, 3)
    w = _np(m.weight)
    parametrizations.weight_norm(m)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0",
                                    "parametrizations.weight.original1"]
    g = _np(m.parametrizations.weight.original0)
    np.testing.assert_allclose(g.ravel(), np.linalg.norm(w, axis=1), rtol=1e-6)
    np.testing.assert_allclose(_np(m.weight), w, rtol=1e-5, atol=1e-6)
    with pytest.warns(FutureWarning):
        old = utils.weight_norm(nn.Linear(4, 3))
    sd = old.state_dict()
    m.load_state_dict(sd)  # the old keys weight_g / weight_v are converted
    np.testing.assert_allclose(_np(m.weight), _np(old.weight), rtol=1e-5, atol=1e-6)
    whole = parametrizations.weight_norm(nn.Linear(4, 3), dim=None)
    assert tuple(whole.parametrizations.weight.original0.shape) == ()


@requires_torch
def test_weight_norm_matches_torch():
    t = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(4, 3), dim=1)
    ours = parametrizations.weight_norm(nn.Linear(4, 3), dim=1)
    assert list(ours.state_dict()) == list(t.state_dict())
    ours.load_state_dict({k: pytensor.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(_np(ours(pytensor.tensor(x))),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_spectral_norm_parametrization():
    m = parametrizations.spectral_norm(nn.Linear(6, 4))
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original",
                                    "parametrizations.weight.0._u",
                                    "parametrizations.weight.0._v"]
    for _ in range(30):
        m(pytensor.ones(1, 6))
    sigma = np.linalg.svd(_np(m.weight), compute_uv=False)[0]
    assert sigma == pytest.approx(1.0, rel=1e-3)
    m.eval()
    a = _np(m.weight)
    assert _np(m.weight).tolist() == a.tolist()  # no power iteration in eval
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got "
                                         "n_power_iterations=0"):
        parametrizations.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range "
                                         r"of \[-2, 1\] but got 2\)"):
        parametrizations.spectral_norm(nn.Linear(2, 2), dim=2)


def test_hooks_based_weight_norm():
    m = nn.Linear(4, 3)
    w = _np(m.weight)
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated in favor of"):
        utils.weight_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(_np(m.weight), w, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same "
                                           "parameter weight"):
        with pytest.warns(FutureWarning):
            utils.weight_norm(m)
    with pytensor.no_grad():
        m.weight_g.mul_(2)
    m(pytensor.ones(1, 4))
    np.testing.assert_allclose(_np(m.weight), 2 * w, rtol=1e-5, atol=1e-6)
    utils.remove_weight_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        utils.remove_weight_norm(m)


def test_hooks_based_spectral_norm():
    m = utils.spectral_norm(nn.Linear(5, 3))
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert m.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    for _ in range(30):
        m(pytensor.ones(1, 5))
    assert np.linalg.svd(_np(m.weight), compute_uv=False)[0] == pytest.approx(1.0, rel=1e-3)
    sd = m.state_dict()
    m.load_state_dict(sd)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        utils.spectral_norm(m)
    utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"] and not m._state_dict_hooks
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        utils.remove_spectral_norm(m)


@requires_torch
def test_hooks_based_keys_match_torch():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs = [(utils.weight_norm(nn.Linear(3, 2), dim=None),
                  torch.nn.utils.weight_norm(torch.nn.Linear(3, 2), dim=None)),
                 (utils.spectral_norm(nn.Linear(3, 2)),
                  torch.nn.utils.spectral_norm(torch.nn.Linear(3, 2)))]
    for ours, theirs in pairs:
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert dict(ours.state_dict()._metadata) == dict(theirs.state_dict()._metadata)
        for k, v in theirs.state_dict().items():
            assert tuple(ours.state_dict()[k].shape) == tuple(v.shape)


@pytest.mark.parametrize("shape,orth_map", [((4, 4), None), ((6, 3), None), ((3, 6), None),
                                            ((4, 4), "householder"), ((5, 2), "matrix_exp"),
                                            ((2, 4, 3), None)])
def test_orthogonal_parametrization(shape, orth_map):
    m = nn.Module()
    m.weight = nn.Parameter(pytensor.randn(*shape))
    parametrizations.orthogonal(m, orthogonal_map=orth_map)
    assert list(m.state_dict()) == ["parametrizations.weight.original",
                                    "parametrizations.weight.0.base"]
    off_diagonal = 1 - pytensor.eye(shape[-2], shape[-1])  # the diagonal carries signs only
    with pytensor.no_grad():
        m.parametrizations.weight.original.add_(pytensor.randn(*shape) * off_diagonal * 0.5)
    W = _np(m.weight)
    n, k = shape[-2:]
    gram = np.swapaxes(W, -1, -2) @ W if n >= k else W @ np.swapaxes(W, -1, -2)
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(min(n, k)), gram.shape), atol=1e-5)
    m.weight.sum().backward()
    assert m.parametrizations.weight.original.grad is not None


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor "
                                         "of 1 dimensions."):
        parametrizations.orthogonal(nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", '
                                         '"cayley", "householder". Got: qr'):
        parametrizations.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    with pytest.raises(NotImplementedError, match="cayley"):
        parametrizations.orthogonal(nn.Linear(2, 2), orthogonal_map="cayley")
    m = parametrizations.orthogonal(nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="It is not possible to assign to the matrix "
                                                  "exponential"):
        m.weight = pytensor.eye(3)


@requires_torch
@pytest.mark.parametrize("shape,orth_map", [((4, 4), None), ((5, 3), None), ((3, 5), None),
                                            ((4, 4), "householder"), ((5, 3), "matrix_exp")])
def test_orthogonal_matches_torch(shape, orth_map):
    t = torch.nn.Linear(shape[1], shape[0])
    ours = nn.Linear(shape[1], shape[0])
    ours.load_state_dict({k: pytensor.tensor(v.numpy()) for k, v in t.state_dict().items()})
    torch.nn.utils.parametrizations.orthogonal(t, orthogonal_map=orth_map)
    parametrizations.orthogonal(ours, orthogonal_map=orth_map)
    assert list(ours.state_dict()) == list(t.state_dict())
    np.testing.assert_allclose(_np(ours.weight), t.weight.detach().numpy(), atol=1e-5)
    with torch.no_grad():
        t.parametrizations.weight.original.add_(torch.randn(shape) * 0.3)
    ours.load_state_dict({k: pytensor.tensor(v.numpy()) for k, v in t.state_dict().items()})
    np.testing.assert_allclose(_np(ours.weight), t.weight.detach().numpy(), atol=1e-5)
    x = np.ones((2, shape[1]), dtype=np.float32)
    ours(pytensor.tensor(x)).pow(2).sum().backward()
    t(torch.tensor(x)).pow(2).sum().backward()
    np.testing.assert_allclose(_np(ours.parametrizations.weight.original.grad),
                               t.parametrizations.weight.original.grad.numpy(), atol=1e-4)
