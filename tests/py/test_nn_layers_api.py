"""The layer classes' public surface against torch's: every class of torch's layer files
(but those another part of pytensor provides) exists in pytensor.nn with the same constructor
and forward signatures (names, defaults, kinds) and ``__constants__``; layers survive deepcopy,
pickling and dtype conversion with their buffers."""
import copy
import importlib
import inspect
import pickle

import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from _torch_oracle import requires_torch, torch
from test_nn_layers_util import np_of, rand

FILES = ["conv", "pooling", "batchnorm", "instancenorm", "normalization", "activation", "loss",
         "padding", "pixelshuffle", "upsampling", "distance", "fold", "channelshuffle"]
# torch names that these files leave out: distributed, attention (elsewhere), a loss over a
# fused linear layer that pytensor.nn.functional does not have
ELSEWHERE = {"SyncBatchNorm", "MultiheadAttention", "LinearCrossEntropyLoss"}
CLASSES = [(f, n) for f in FILES
           for n in importlib.import_module(f"pytensor.nn.modules.{f}").__all__]


def _params(fn):
    return [(p.name, p.default, p.kind) for p in inspect.signature(fn).parameters.values()]


def test_every_class_is_exported_from_nn():
    for f, name in CLASSES:
        assert getattr(nn, name) is getattr(importlib.import_module(f"pytensor.nn.modules.{f}"),
                                            name)
        assert issubclass(getattr(nn, name), nn.Module)
    assert len(CLASSES) == 124


@requires_torch
@pytest.mark.parametrize("file", FILES)
def test_files_hold_torchs_classes(file):
    ours = set(importlib.import_module(f"pytensor.nn.modules.{file}").__all__)
    theirs = set(importlib.import_module(f"torch.nn.modules.{file}").__all__) - ELSEWHERE
    assert ours == theirs


@requires_torch
@pytest.mark.parametrize("file,name", CLASSES)
def test_signatures_and_constants_match_torch(file, name):
    ours, theirs = getattr(nn, name), getattr(torch.nn, name)
    assert _params(ours.__init__) == _params(theirs.__init__)
    assert _params(ours.forward) == _params(theirs.forward)
    assert getattr(ours, "__constants__", None) == getattr(theirs, "__constants__", None)
    lazy = getattr(theirs, "cls_to_become", None)
    if lazy is not None:
        assert ours.cls_to_become is getattr(nn, lazy.__name__)


def test_deepcopy_and_pickle_keep_state():
    bn = nn.BatchNorm1d(3)
    bn(pytensor.from_numpy(rand(4, 3)))
    for clone in (copy.deepcopy(bn), pickle.loads(pickle.dumps(bn))):
        assert repr(clone) == repr(bn)
        for k, v in bn.state_dict().items():
            assert np.array_equal(np_of(clone.state_dict()[k]), np_of(v)), k
        assert clone.running_mean.data_ptr() != bn.running_mean.data_ptr()
    conv = nn.ConvTranspose2d(2, 3, 3, padding_mode="zeros")
    c2 = pickle.loads(pickle.dumps(conv))
    x = pytensor.from_numpy(rand(1, 2, 3, 3))
    assert np.array_equal(np_of(c2(x)), np_of(conv(x)))


def test_double_converts_floats_and_keeps_the_batch_count():
    bn = nn.BatchNorm2d(2).double()
    assert bn.weight.dtype == pytensor.float64 and bn.running_var.dtype == pytensor.float64
    assert bn.num_batches_tracked.dtype == pytensor.int64
    assert isinstance(bn.weight, nn.Parameter)
    out = bn(pytensor.from_numpy(rand(2, 2, 2, 2, dtype=np.float64)))
    assert out.dtype == pytensor.float64 and bn.num_batches_tracked.item() == 1


def test_factory_kwargs_make_parameters_of_that_dtype():
    f64 = pytensor.float64
    for layer in (nn.Conv1d(2, 2, 1, dtype=f64), nn.LayerNorm(3, dtype=f64),
                  nn.PReLU(dtype=f64), nn.GroupNorm(1, 2, dtype=f64),
                  nn.BatchNorm1d(2, dtype=f64), nn.RMSNorm(2, dtype=f64)):
        for p in layer.parameters():
            assert p.dtype == pytensor.float64
    assert nn.BatchNorm1d(2, dtype=pytensor.float64).num_batches_tracked.dtype == pytensor.int64


LAZY_CASES = [("LazyConv1d", (4, 3), dict(groups=2), (2, 4, 6)),
              ("LazyConv2d", (4, 3), {}, (3, 5, 5)),
              ("LazyConv3d", (2, 2), dict(bias=False), (1, 3, 2, 3, 3)),
              ("LazyConvTranspose1d", (2, 2), dict(stride=2), (1, 3, 4)),
              ("LazyConvTranspose2d", (2, 3), {}, (1, 3, 2, 2)),
              ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 2, 2, 2)),
              ("LazyBatchNorm1d", (), {}, (4, 3)),
              ("LazyBatchNorm2d", (), dict(affine=False), (2, 3, 2, 2)),
              ("LazyBatchNorm3d", (), dict(momentum=None), (2, 3, 2, 2, 2)),
              ("LazyInstanceNorm1d", (), {}, (2, 3, 4)),
              ("LazyInstanceNorm2d", (), dict(affine=True, track_running_stats=True),
               (2, 3, 4, 4)),
              ("LazyInstanceNorm3d", (), dict(affine=True), (1, 3, 2, 2, 2))]


@requires_torch
@pytest.mark.parametrize("name,args,kwargs,shape", LAZY_CASES)
def test_lazy_layers_like_torch(name, args, kwargs, shape):
    t = getattr(torch.nn, name)(*args, **kwargs)
    p = getattr(nn, name)(*args, **kwargs)
    assert repr(p) == repr(t)
    assert list(p.state_dict()) == list(t.state_dict())
    t(torch.zeros(*shape))
    p(pytensor.zeros(*shape))
    assert type(p).__name__ == type(t).__name__ and repr(p) == repr(t)
    for k, v in t.state_dict().items():
        assert tuple(p.state_dict()[k].shape) == tuple(v.shape), k
    fresh = getattr(nn, name)(*args, **kwargs)  # a lazy layer takes a checkpoint's shapes
    fresh.load_state_dict({k: pytensor.from_numpy(v.detach().numpy().copy())
                           for k, v in t.state_dict().items()})
    for k, v in t.state_dict().items():
        assert np.array_equal(np_of(fresh.state_dict()[k]), v.detach().numpy()), k


@requires_torch
def test_lazy_errors_like_torch():
    from test_nn_layers_util import raises_like
    raises_like(ValueError, lambda: torch.nn.LazyInstanceNorm1d(affine=True)(torch.zeros(3, 4)),
                lambda: nn.LazyInstanceNorm1d(affine=True)(pytensor.zeros(3, 4)))
    raises_like(ValueError, lambda: torch.nn.LazyConv1d(4, 1, groups=2)(torch.zeros(1, 3, 4)),
                lambda: nn.LazyConv1d(4, 1, groups=2)(pytensor.zeros(1, 3, 4)))
    raises_like(RuntimeError, lambda: torch.nn.LazyConv2d(4, 1)(torch.zeros(3, 4)),
                lambda: nn.LazyConv2d(4, 1)(pytensor.zeros(3, 4)))


@pytest.mark.parametrize("file", FILES)
def test_docstring_examples_run(file):
    import doctest
    m = importlib.import_module(f"pytensor.nn.modules.{file}")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in doctest.DocTestFinder().find(m, m.__name__, globs={"pytensor": pytensor})
             if t.examples]
    assert tests
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
