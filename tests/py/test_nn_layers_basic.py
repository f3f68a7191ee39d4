"""The basic layers (Identity, Linear, Bilinear, LazyLinear, Embedding, EmbeddingBag, the
dropouts, Flatten, Unflatten) and the uninitialized parameters: parameter names and shapes,
default init bounds, forward values with torch's weights, reprs and error messages."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pytensor
from pytensor import nn
from pytensor.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from _torch_oracle import requires_torch, torch


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


REPRS = ["nn.Linear(3,4)", "nn.Linear(3,4,bias=False)", "nn.Bilinear(2,3,4)",
         "nn.Bilinear(2,3,4,False)", "nn.Identity(3, a=2)", "nn.LazyLinear(5)",
         "nn.Embedding(10,3)",
         "nn.Embedding(10,3,padding_idx=-1,max_norm=1.0,norm_type=1.0,scale_grad_by_freq=True,"
         "sparse=True)",
         "nn.EmbeddingBag(10,3)",
         "nn.EmbeddingBag(10,3,max_norm=2,mode='sum',padding_idx=2,norm_type=3)",
         "nn.Dropout()", "nn.Dropout2d(0.1, True)", "nn.AlphaDropout(0.3)",
         "nn.FeatureAlphaDropout()", "nn.Dropout1d()", "nn.Dropout3d(1)", "nn.Flatten()",
         "nn.Flatten(0, 2)", "nn.Unflatten(1, (2,3))", "nn.Unflatten(-1, [2,3])"]


@requires_torch
@pytest.mark.parametrize("expr", REPRS)
def test_repr_and_state_dict_keys_match_torch(expr):
    ours = eval(expr, {"nn": nn})
    theirs = eval(expr, {"nn": torch.nn})
    assert repr(ours) == repr(theirs).replace("torch.", "pytensor.")
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n1 == n2 and is_lazy(p1) == torch.nn.parameter.is_lazy(p2)
        if not is_lazy(p1):
            assert tuple(p1.shape) == tuple(p2.shape)


def test_reprs_without_torch():
    assert repr(nn.Linear(3, 4)) == "Linear(in_features=3, out_features=4, bias=True)"
    assert repr(nn.EmbeddingBag(10, 3)) == "EmbeddingBag(10, 3, mode='mean')"
    assert repr(nn.Unflatten(1, (2, 3))) == "Unflatten(dim=1, unflattened_size=(2, 3))"


def test_linear_default_init_bounds():
    m = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = _np(m.weight), _np(m.bias)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert np.abs(b).max() <= bound and abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    m = nn.Bilinear(50, 20, 30)
    bound = 1 / math.sqrt(50)
    assert np.abs(_np(m.weight)).max() <= bound and np.abs(_np(m.bias)).max() <= bound
    e = nn.Embedding(300, 200, padding_idx=3)
    v = _np(e.weight)
    assert not v[3].any() and abs(v.std() - 1.0) < 0.02
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert nn.Linear(0, 3).bias.abs().sum().item() == 0  # fan_in 0: bound 0


def test_linear_dtype_and_no_bias():
    m = nn.Linear(2, 3, bias=False, dtype=pytensor.float64)
    assert m.bias is None and m.weight.dtype == pytensor.float64
    assert list(m.state_dict()) == ["weight"]


@requires_torch
def test_forward_matches_torch_with_same_weights():
    rng = np.random.default_rng(1)
    pairs = [(nn.Linear(4, 3), torch.nn.Linear(4, 3), [(2, 5, 4)]),
             (nn.Bilinear(2, 3, 4), torch.nn.Bilinear(2, 3, 4), [(5, 2), (5, 3)])]
    for ours, theirs, shapes in pairs:
        ours.load_state_dict({k: pytensor.tensor(v.numpy())
                              for k, v in theirs.state_dict().items()})
        xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        np.testing.assert_allclose(_np(ours(*[pytensor.tensor(x) for x in xs])),
                                   theirs(*[torch.tensor(x) for x in xs]).detach().numpy(),
                                   rtol=1e-5, atol=1e-5)


def test_embedding_forward_and_from_pretrained():
    w = pytensor.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    e = nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad and e.weight.data_ptr() == w.data_ptr()
    assert _np(e(pytensor.tensor([[2, 0]]))).tolist() == [[[4.0, 5.0], [0.0, 1.0]]]
    e = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
    assert e.weight.requires_grad and e.padding_idx == 1
    assert _np(e.weight)[1].tolist() == [2.0, 3.0]  # from_pretrained keeps the padding row
    bag = nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert not bag.weight.requires_grad
    out = bag(pytensor.tensor([0, 1, 2]), pytensor.tensor([0, 2]))
    assert _np(out).tolist() == [[2.0, 4.0], [4.0, 5.0]]
    bag = nn.EmbeddingBag.from_pretrained(w, freeze=False, mode="max")
    assert bag.weight.requires_grad
    assert _np(bag(pytensor.tensor([[0, 2]]))).tolist() == [[4.0, 5.0]]


def _embedding_errors(nn_, lib):
    return [lambda: nn_.Embedding(3, 2, padding_idx=3), lambda: nn_.Embedding(3, 2, padding_idx=-4),
            lambda: nn_.EmbeddingBag(3, 2, padding_idx=5),
            lambda: nn_.Embedding(3, 2, _weight=lib.zeros(2, 2)),
            lambda: nn_.Embedding.from_pretrained(lib.zeros(3)),
            lambda: nn_.EmbeddingBag.from_pretrained(lib.zeros(3, 1, 1)),
            lambda: nn_.Dropout(1.5), lambda: nn_.Dropout2d(-0.1),
            lambda: nn_.Unflatten(1, 3), lambda: nn_.Unflatten(1, (2, "a")),
            lambda: nn_.Unflatten(0, (4, 4))(lib.zeros(6)),
            lambda: nn_.Unflatten(0, (-1, -1))(lib.zeros(6)),
            lambda: nn_.Unflatten(0, ())(lib.zeros(6)),
            lambda: nn_.Unflatten(3, (2, 3))(lib.zeros(6)),
            lambda: nn_.Bilinear(0, 2, 3)]


@requires_torch
def test_errors_match_torch():
    for i, (a, b) in enumerate(zip(_embedding_errors(nn, pytensor),
                                   _embedding_errors(torch.nn, torch))):
        with pytest.raises(Exception) as ea:
            a()
        with pytest.raises(Exception) as eb:
            b()
        assert type(ea.value) is type(eb.value), i
        theirs = str(eb.value).splitlines()[0] if "infer" not in str(eb.value) else (
            "only one dimension can be inferred")
        assert str(ea.value) == theirs, i


def test_dropout_train_and_eval():
    x = pytensor.ones(200, 50)
    for cls in (nn.Dropout, nn.AlphaDropout):
        d = cls(0.5)
        y = _np(d(x))
        assert (y != 1).any()
        d.eval()
        assert (_np(d(x)) == 1).all()
    d = nn.Dropout2d(0.5)
    y = _np(d(pytensor.ones(4, 30, 3, 3)))
    per_channel = y.reshape(4, 30, 9)
    assert ((per_channel == per_channel[..., :1]).all())  # whole channels kept or dropped
    d = nn.Dropout(0.3, inplace=True)
    t = pytensor.ones(100)
    assert d(t) is t
    for cls, shape in ((nn.Dropout1d, (2, 8, 5)), (nn.Dropout3d, (2, 8, 2, 2, 2)),
                       (nn.FeatureAlphaDropout, (2, 8, 3))):
        assert tuple(cls()(pytensor.ones(*shape)).shape) == shape


def test_flatten_unflatten():
    x = pytensor.arange(24.0).reshape(2, 3, 4)
    assert tuple(nn.Flatten()(x).shape) == (2, 12)
    assert tuple(nn.Flatten(0, -1)(x).shape) == (24,)
    y = nn.Unflatten(2, (2, -1))(x)
    assert tuple(y.shape) == (2, 3, 2, 2)
    assert _np(y).ravel().tolist() == list(range(24))
    assert tuple(nn.Unflatten(-1, [4, 1])(x).shape) == (2, 3, 4, 1)
    assert tuple(nn.Unflatten(0, pytensor.Size([1, 2]))(x).shape) == (1, 2, 3, 4)
    assert tuple(nn.Unflatten(2, (3, 1))(x.transpose(1, 2)).shape) == (2, 4, 3, 1)


def test_identity():
    x = pytensor.ones(2)
    assert nn.Identity(54, unused="x")(x) is x


# ---- lazy ----------------------------------------------------------------------------------

def test_lazy_linear_materializes_and_becomes_linear():
    m = nn.LazyLinear(3)
    assert is_lazy(m.weight) and is_lazy(m.bias) and m.has_uninitialized_params()
    assert repr(m.weight) == "<UninitializedParameter>"
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias"] and is_lazy(sd["weight"])
    y = m(pytensor.ones(4, 5))
    assert type(m) is nn.Linear and tuple(y.shape) == (4, 3)
    assert type(m.weight) is nn.Parameter and tuple(m.weight.shape) == (3, 5)
    assert m.in_features == 5 and not m._forward_pre_hooks
    bound = 1 / math.sqrt(5)
    assert np.abs(_np(m.weight)).max() <= bound
    y.sum().backward()
    assert tuple(m.weight.grad.shape) == (3, 5)


def test_lazy_linear_loads_state_dict():
    src = nn.Linear(6, 2)
    m = nn.LazyLinear(2)
    m.load_state_dict(src.state_dict())
    assert tuple(m.weight.shape) == (2, 6) and type(m.weight) is nn.Parameter
    np.testing.assert_array_equal(_np(m.weight), _np(src.weight))
    m(pytensor.ones(1, 6))
    assert type(m) is nn.Linear
    nobias = nn.LazyLinear(4, bias=False)
    nobias(pytensor.ones(2, 3))
    assert nobias.bias is None and tuple(nobias.weight.shape) == (4, 3)


def test_lazy_to_and_repr_before_materializing():
    m = nn.LazyLinear(3)
    m.double()
    assert is_lazy(m.weight)
    m(pytensor.ones(1, 2, dtype=pytensor.float64))
    assert m.weight.dtype == pytensor.float64


def test_uninitialized_errors():
    p = UninitializedParameter()
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in "
                                         "method sum"):
        p.sum()
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized "
                                           "parameter or buffer"):
        p.shape
    p.materialize((2, 3), dtype=pytensor.float64)
    assert type(p) is nn.Parameter and p.dtype == pytensor.float64 and p.requires_grad
    b = UninitializedBuffer()
    assert isinstance(b, nn.Buffer) and not b.requires_grad
    b.materialize(4)
    assert type(b) is pytensor.Tensor and tuple(b.shape) == (4,)


def test_lazy_mixin_needs_initialize_parameters():
    class Half(nn.modules.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = UninitializedParameter()

        def forward(self, x):
            return x

    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented "
                                                  "for Half"):
        Half()(pytensor.ones(1))
