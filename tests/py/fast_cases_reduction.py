"""Thunk cases of the reductions (csrc/ops/reduction.yaml), read by test_fast_paths.py: ident ->
(argument maker, mode) as in its CASES dict."""
import pytensor


def _t(*shape, dtype=pytensor.float32):
    return pytensor.arange(int(pytensor.Size(shape).numel()), dtype=dtype).reshape(shape)


def _mixed():
    """Values with ties, a negative and a zero, so that arg and all/any results are not trivial."""
    return pytensor.tensor([[3.0, -1.0, 3.0], [0.0, 2.0, 2.0]])


CASES = {
    "sum": (lambda: (_t(2, 3),), ""),
    "prod": (lambda: (_t(2, 3) + 1,), ""),
    "prod_dim_int": (lambda: (_t(2, 3) + 1, 1), ""),
    "mean": (lambda: (_t(2, 3),), ""),
    "norm_Scalar": (lambda: (_mixed(),), ""),
    "linalg_vector_norm": (lambda: (_mixed(),), ""),
    "std": (lambda: (_mixed(),), ""),
    "std_correction": (lambda: (_mixed(),), ""),
    "var": (lambda: (_mixed(),), ""),
    "var_correction": (lambda: (_mixed(),), ""),
    "amax": (lambda: (_mixed(),), ""),
    "amin": (lambda: (_mixed(),), ""),
    "max": (lambda: (_mixed(),), ""),
    "min": (lambda: (_mixed(),), ""),
    "max_other": (lambda: (_mixed(), _t(2, 3)), ""),
    "min_other": (lambda: (_mixed(), _t(2, 3)), ""),
    "argmax": (lambda: (_mixed(),), ""),
    "argmin": (lambda: (_mixed(),), ""),
    "all": (lambda: (_mixed(),), ""),
    "all_dim": (lambda: (_mixed(), 1), ""),
    "all_dims": (lambda: (_mixed(),), ""),
    "any": (lambda: (_mixed() * 0,), ""),
    "any_dim": (lambda: (_mixed(), 0), ""),
    "any_dims": (lambda: (_mixed(),), ""),
    "cumsum": (lambda: (_t(2, 3, dtype=pytensor.int32), 1), ""),
    "cumsum_": (lambda: (_t(2, 3), 0), "inplace"),
    "cumprod": (lambda: (_t(2, 3) + 1, 1), ""),
    "cumprod_": (lambda: (_t(2, 3) + 1, -1), "inplace"),
}

# Reductions over dims given as an int list or one int (int[1]).
CASES.update({
    "sum_dim_IntList": (lambda: (_t(2, 3), (0, 1)), ""),
    "mean_dim": (lambda: (_t(2, 3), 1), ""),
    "std_dim": (lambda: (_mixed(), [1]), ""),
    "var_dim": (lambda: (_mixed(), 0), ""),
    "logsumexp": (lambda: (_mixed(), -1), ""),
    "norm_ScalarOpt_dim": (lambda: (_mixed(), 3, (1,)), ""),
})
