"""Thunk cases of the shape_more family (tests/py/test_fast_paths.py reads CASES): the composite
shape and product operators of csrc/ops/shape_more.yaml and the *_copy forms of the views."""
import pytensor


def _t(*shape, dtype=pytensor.float32):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=dtype).reshape(shape)


def _i(*values):
    return pytensor.tensor(list(values), dtype=pytensor.int64)


CASES = {
    "adjoint": (lambda: (_t(2, 3),), ""),
    "atleast_1d": (lambda: (pytensor.tensor(2.0),), ""),
    "atleast_2d": (lambda: (_t(3),), ""),
    "atleast_3d": (lambda: (_t(2, 3),), ""),
    "broadcast_to": (lambda: (_t(3), [2, 3]), ""),
    "diag": (lambda: (_t(3, 3),), ""),
    "diag_embed": (lambda: (_t(2, 3),), ""),
    "diagflat": (lambda: (_t(2, 2),), ""),
    "diagonal_scatter": (lambda: (_t(3, 3), _t(3) + 100), ""),
    "select_scatter": (lambda: (_t(3, 4), _t(4) + 100, 0, 1), ""),
    "slice_scatter": (lambda: (_t(4, 3), _t(4, 3) + 100), ""),
    "as_strided_scatter": (lambda: (_t(3, 3), _t(3) + 100, [3], [4]), ""),
    "fliplr": (lambda: (_t(2, 3),), ""),
    "flipud": (lambda: (_t(2, 3),), ""),
    "inner": (lambda: (_t(2, 3), _t(4, 3)), ""),
    "kron": (lambda: (_t(2, 2), _t(2, 3)), ""),
    "tensordot": (lambda: (_t(2, 3), _t(3, 4), [1], [0]), ""),
    "trace": (lambda: (_t(3, 4),), ""),
    "trace_backward": (lambda: (pytensor.tensor(2.0), [2, 3]), ""),
    "moveaxis_int": (lambda: (_t(2, 3, 4), 0, -1), ""),
    "moveaxis_intlist": (lambda: (_t(2, 3, 4), [0, 1], [2, 0]), ""),
    "movedim_int": (lambda: (_t(2, 3, 4), 2, 0), ""),
    "movedim_intlist": (lambda: (_t(2, 3, 4), [0], [1]), ""),
    "swapaxes": (lambda: (_t(2, 3), 0, 1), ""),
    "swapdims": (lambda: (_t(2, 3, 4), 0, 2), ""),
    "ravel": (lambda: (_t(2, 3).t(),), ""),
    "unflatten_int": (lambda: (_t(2, 6), 1, [3, -1]), ""),
    "take_along_dim": (lambda: (_t(3, 4), _i(2, 0, 1)), ""),
    "repeat_interleave_Tensor": (lambda: (_i(1, 0, 3),), ""),
    "repeat_interleave_self_Tensor": (lambda: (_t(2, 2), _i(2, 1, 0, 1)), ""),
    "repeat_interleave_self_int": (lambda: (_t(2, 2), 3), ""),
    "vander": (lambda: (_i(1, 2, 3),), ""),
    "alias_copy": (lambda: (_t(2, 3).t(),), ""),
    "as_strided_copy": (lambda: (_t(3, 3), [2, 2], [1, 3]), ""),
    "detach_copy": (lambda: (_t(2, 3),), ""),
    "diagonal_copy": (lambda: (_t(3, 4),), ""),
    "expand_copy": (lambda: (_t(3), [2, 3]), ""),
    "narrow_copy": (lambda: (_t(4, 3), 0, 1, 2), ""),
    "permute_copy": (lambda: (_t(2, 3, 4), [2, 0, 1]), ""),
    "select_copy_int": (lambda: (_t(3, 4), 1, -1), ""),
    "slice_copy_Tensor": (lambda: (_t(5, 2),), ""),
    "squeeze_copy": (lambda: (_t(1, 3, 1),), ""),
    "squeeze_copy_dim": (lambda: (_t(1, 3, 1), 0), ""),
    "squeeze_copy_dims": (lambda: (_t(1, 3, 1), [0, 2]), ""),
    "t_copy": (lambda: (_t(2, 3),), ""),
    "transpose_copy_int": (lambda: (_t(2, 3, 4), 0, 2), ""),
    "unfold_copy": (lambda: (_t(7), 0, 3, 2), ""),
    "unsqueeze_copy": (lambda: (_t(2, 3), 1), ""),
    "view_copy": (lambda: (_t(2, 3).t(), [6]), ""),
    "view_as_real_copy": (lambda: (pytensor.tensor([1 + 2j, 3 - 1j]),), ""),
    "view_as_complex_copy": (lambda: (_t(3, 2),), ""),
    "combinations": (lambda: (_t(4),), ""),
    "swapaxes_": (lambda: (_t(2, 3), 0, 1), "inplace"),
    "swapdims_": (lambda: (_t(2, 3, 4), -1, 0), "inplace"),
    "as_strided_": (lambda: (_t(3, 3), [2, 2], [1, 3]), "inplace"),
}
