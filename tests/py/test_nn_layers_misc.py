"""Padding, pixel/channel shuffle, upsampling, distance and fold layers: stored padding tuples,
extra_repr, forward and backward against torch, exact values without torch, and torch's
messages for inputs of the wrong rank."""
import numpy as np
import pytest

import pytensor
import pytensor.nn as nn
from _torch_oracle import requires_torch
from test_nn_layers_util import compare, layer_pair, np_of, rand, same_repr

MISC_CASES = [
    ("ConstantPad1d", (2, 3.5), (2, 3, 4)), ("ConstantPad1d", ((1, 2), -1.0), (3, 4)),
    ("ConstantPad2d", ((1, 0, 2, 1), 0.5), (1, 2, 3, 3)),
    ("ConstantPad3d", (1, 2.0), (1, 2, 2, 2)),
    ("ZeroPad1d", ((0, 2),), (2, 3, 4)), ("ZeroPad2d", (1,), (1, 2, 3, 3)),
    ("ZeroPad2d", ((1, 0, 2, 1),), (2, 3, 3)),
    ("ZeroPad3d", ((1, 0, 0, 1, 1, 0),), (1, 1, 2, 2, 2)),
    ("ReflectionPad1d", (2,), (2, 3, 4)), ("ReflectionPad2d", ((1, 2, 0, 1),), (1, 2, 3, 4)),
    ("ReflectionPad3d", (1,), (1, 1, 3, 3, 3)), ("ReplicationPad1d", ((3, 1),), (2, 3, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 3)), ("ReplicationPad3d", ((1, 0, 2, 1, 0, 1),),
                                           (1, 1, 2, 3, 2)),
    ("CircularPad1d", (2,), (2, 3, 4)), ("CircularPad2d", ((1, 0, 2, 1),), (1, 2, 3, 3)),
    ("CircularPad3d", (1,), (1, 1, 2, 3, 3)),
    ("PixelShuffle", (2,), (1, 8, 2, 3)), ("PixelUnshuffle", (2,), (2, 2, 4, 6)),
    ("ChannelShuffle", (2,), (1, 6, 2, 2)),
    ("Upsample", (None, 2), (1, 2, 3)), ("Upsample", ((4, 5), None, "bilinear"), (1, 2, 3, 3)),
    ("Upsample", (None, (2.0, 1.5), "bicubic", True), (1, 1, 3, 4)),
    ("Upsample", (None, 2, "trilinear"), (1, 1, 2, 2, 2)),
    ("Upsample", (5, None, "linear", False), (1, 2, 3)),
    ("UpsamplingNearest2d", (None, 3), (1, 2, 2, 2)),
    ("UpsamplingBilinear2d", ((5, 4),), (1, 2, 3, 2)),
    ("Fold", ((4, 5), 2), (2, 12, 12)), ("Fold", (4, (2, 2), 1, 1, 2), (1, 8, 9)),
    ("Unfold", (2,), (2, 3, 4, 4)), ("Unfold", ((2, 3), 2, 1, (1, 2)), (1, 2, 5, 5)),
]


@requires_torch
@pytest.mark.parametrize("name,args,shape", MISC_CASES)
def test_misc_layers_match_torch(name, args, shape):
    tm, pm = layer_pair(name, *args)
    same_repr(tm, pm)
    compare(tm, pm, [rand(*shape)], atol=1e-5)
    for attr in ("padding", "value", "scale_factor", "size", "mode", "align_corners",
                 "upscale_factor", "groups", "kernel_size", "output_size", "name"):
        if hasattr(tm, attr):
            assert getattr(pm, attr) == getattr(tm, attr), attr


@requires_torch
@pytest.mark.parametrize("name,args,shapes", [
    ("PairwiseDistance", (), [(3, 4), (3, 4)]),
    ("PairwiseDistance", (1.0, 1e-3, True), [(2, 5), (2, 5)]),
    ("PairwiseDistance", (3.0,), [(4,), (4,)]),
    ("CosineSimilarity", (), [(3, 4), (3, 4)]),
    ("CosineSimilarity", (0, 1e-6), [(4, 2), (4, 1)]),
])
def test_distance_layers_match_torch(name, args, shapes):
    tm, pm = layer_pair(name, *args)
    same_repr(tm, pm)
    compare(tm, pm, [rand(*s) for s in shapes], atol=1e-5)


def test_misc_values_without_torch():
    x = pytensor.tensor([[[1.0, 2.0, 3.0]]])
    assert nn.ReflectionPad1d(1)(x).flatten().tolist() == [2.0, 1.0, 2.0, 3.0, 2.0]
    assert nn.ReplicationPad1d((2, 0))(x).flatten().tolist() == [1.0, 1.0, 1.0, 2.0, 3.0]
    assert nn.CircularPad1d(1)(x).flatten().tolist() == [3.0, 1.0, 2.0, 3.0, 1.0]
    assert nn.ConstantPad1d((0, 1), 9.0)(x).flatten().tolist() == [1.0, 2.0, 3.0, 9.0]
    assert nn.Upsample(scale_factor=2)(x).flatten().tolist() == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    s = nn.PixelShuffle(2)(pytensor.arange(4.0).view(1, 4, 1, 1))
    assert s.flatten().tolist() == [0.0, 1.0, 2.0, 3.0] and tuple(s.shape) == (1, 1, 2, 2)
    assert nn.ChannelShuffle(2)(pytensor.arange(4.0).view(1, 4, 1)).flatten().tolist() == [
        0.0, 2.0, 1.0, 3.0]
    d = nn.PairwiseDistance(eps=0.0)(pytensor.tensor([[3.0, 0.0]]), pytensor.tensor([[0.0, 4.0]]))
    assert abs(d.item() - 5.0) < 1e-6
    img = pytensor.arange(16.0).view(1, 1, 4, 4)
    cols = nn.Unfold(2, stride=2)(img)
    assert tuple(cols.shape) == (1, 4, 4)
    back = nn.Fold((4, 4), 2, stride=2)(cols)
    assert np.array_equal(np_of(back), np_of(img))


def test_misc_reprs_and_attributes():
    assert repr(nn.ZeroPad2d(1)) == "ZeroPad2d((1, 1, 1, 1))"
    assert repr(nn.ConstantPad1d(2, 3.5)) == "ConstantPad1d(padding=(2, 2), value=3.5)"
    assert repr(nn.ReflectionPad3d(1)) == "ReflectionPad3d((1, 1, 1, 1, 1, 1))"
    assert repr(nn.CircularPad1d((1, 2))) == "CircularPad1d((1, 2))"
    assert repr(nn.PixelShuffle(3)) == "PixelShuffle(upscale_factor=3)"
    assert repr(nn.PixelUnshuffle(2)) == "PixelUnshuffle(downscale_factor=2)"
    assert repr(nn.ChannelShuffle(4)) == "ChannelShuffle(groups=4)"
    assert repr(nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    assert repr(nn.UpsamplingBilinear2d(size=4)) == "UpsamplingBilinear2d(size=4, mode='bilinear')"
    assert repr(nn.Fold(4, 2)) == (
        "Fold(output_size=4, kernel_size=2, dilation=1, padding=0, stride=1)")
    assert repr(nn.Unfold(3)) == "Unfold(kernel_size=3, dilation=1, padding=0, stride=1)"
    assert repr(nn.PairwiseDistance()) == "PairwiseDistance()"
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity()"
    from pytensor.nn.modules import padding
    assert isinstance(nn.ReflectionPad2d(1), padding._ReflectionPadNd)
    assert isinstance(nn.ReplicationPad3d(1), padding._ReplicationPadNd)
    assert isinstance(nn.ZeroPad1d(1), padding._ConstantPadNd)
    u = nn.UpsamplingBilinear2d(scale_factor=(2, 3))
    assert u.scale_factor == (2.0, 3.0) and u.align_corners and u.name == "UpsamplingBilinear2d"
    assert nn.PairwiseDistance(p=1).norm == 1


@pytest.mark.parametrize("layer,shape,msg", [
    (nn.CircularPad1d, (4,), "expected 2D or 3D input (got 1D input)"),
    (nn.CircularPad2d, (2, 4), "expected 3D or 4D input (got 2D input)"),
    (nn.CircularPad3d, (1, 2, 3, 4, 5, 6), "expected 4D or 5D input (got 6D input)"),
])
def test_circular_pad_rank_errors(layer, shape, msg):
    with pytest.raises(ValueError) as e:
        layer(1)(pytensor.zeros(*shape))
    assert str(e.value) == msg
