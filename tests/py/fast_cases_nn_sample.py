"""Thunk cases of the sampling operators (csrc/ops/nn_sample.yaml: padding, upsampling, grid
sampling, shuffles) for tests/py/test_fast_paths.py: ident -> (argument maker, mode), as its
CASES."""
import pytensor


def _t(*shape, dtype=pytensor.float32):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=dtype).reshape(shape)


def _grid(*shape):
    n = int(pytensor.Size(shape).numel())
    return (pytensor.arange(n, dtype=pytensor.float32) * (2.0 / n) - 1.0).reshape(shape)


CASES = {
    "constant_pad_nd": (lambda: (_t(2, 3), [1, 2, 0, 1]), ""),
    "_pad_circular": (lambda: (_t(1, 2, 4), [1, 2]), ""),
    "_pad_enum": (lambda: (_t(1, 2, 4), [1, 2], 0), ""),
    "grid_sampler": (lambda: (_t(1, 2, 3, 4), _grid(1, 2, 2, 2), 0, 0, False), ""),
    "grid_sampler_2d": (lambda: (_t(1, 2, 3, 4), _grid(1, 2, 2, 2), 2, 2, True), ""),
    "grid_sampler_3d": (lambda: (_t(1, 2, 2, 3, 4), _grid(1, 2, 2, 1, 3), 0, 1, False), ""),
    "affine_grid_generator": (lambda: (_t(2, 2, 3), [2, 1, 3, 4], False), ""),
    "affine_grid_generator_backward": (lambda: (_t(2, 3, 4, 2), [2, 1, 3, 4], True), ""),
    "pixel_shuffle": (lambda: (_t(1, 8, 2, 3), 2), ""),
    "pixel_unshuffle": (lambda: (_t(1, 2, 4, 6), 2), ""),
    "channel_shuffle": (lambda: (_t(1, 6, 2), 3), ""),
    "native_channel_shuffle": (lambda: (_t(1, 6, 2), 2), ""),
}
for _nd in (1, 2, 3):
    _shape = (1, 2, 3, 4, 3)[: _nd + 2]
    _out = (1, 2) + tuple(s + 2 for s in _shape[2:])
    _pad = [1, 1] * _nd
    _size = [5, 2, 4][:_nd]
    for _kind in ("reflection", "replication"):
        CASES[f"{_kind}_pad{_nd}d"] = (lambda s=_shape, p=_pad: (_t(*s), p), "")
        CASES[f"{_kind}_pad{_nd}d_backward"] = (
            lambda s=_shape, o=_out, p=_pad: (_t(*o), _t(*s), p), "")
    for _name in (f"upsample_nearest{_nd}d", f"_upsample_nearest_exact{_nd}d"):
        CASES[_name] = (lambda s=_shape, z=_size: (_t(*s), z), "")
        CASES[_name + "_backward"] = (
            lambda s=_shape, z=_size: (_t(*s[:2], *z), z, list(s)), "")
_LINEAR = {1: ["upsample_linear1d"], 2: ["upsample_bilinear2d", "_upsample_bilinear2d_aa",
                                         "upsample_bicubic2d", "_upsample_bicubic2d_aa"],
           3: ["upsample_trilinear3d"]}
for _nd, _names in _LINEAR.items():
    _shape = (1, 2, 3, 4, 3)[: _nd + 2]
    _size = [5, 2, 4][:_nd]
    for _name in _names:
        CASES[_name] = (lambda s=_shape, z=_size: (_t(*s), z, False), "")
        CASES[_name + "_backward"] = (
            lambda s=_shape, z=_size: (_t(*s[:2], *z), z, list(s), True), "")
