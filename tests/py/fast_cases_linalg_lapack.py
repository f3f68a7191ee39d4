"""Cases for the C fast paths of the LAPACK functions (tests/py/test_fast_paths.py runs them):
ident -> (argument maker, mode), as CASES there. Without LAPACK each call raises, on both paths
alike."""
import pytensor

_MODE = "" if pytensor.has_lapack else "raises"


def _spd(n=3, dtype=pytensor.float64):
    """A symmetric positive-definite matrix with exact entries: n I + the all-ones matrix."""
    return pytensor.eye(n, dtype=dtype) * n + pytensor.ones(n, n, dtype=dtype)


def _tri(n=3, dtype=pytensor.float64):
    return pytensor.tril(_spd(n, dtype))


CASES = {
    "linalg_inv": (lambda: (_spd(),), _MODE),
    "inverse": (lambda: (_spd(dtype=pytensor.float32),), _MODE),
    "linalg_det": (lambda: (_spd(),), _MODE),
    "det": (lambda: (_spd(2, pytensor.complex128),), _MODE),
    "logdet": (lambda: (_spd(),), _MODE),
    "linalg_solve": (lambda: (_spd(), pytensor.ones(3, 2, dtype=pytensor.float64)), _MODE),
    "linalg_cholesky": (lambda: (_spd(),), _MODE),
    "cholesky": (lambda: (_spd(4),), _MODE),
    "linalg_svdvals": (lambda: (_spd(),), _MODE),
    "_linalg_solve_grad_A": (lambda: (pytensor.ones(3, 2, dtype=pytensor.float64),
                                      pytensor.ones(3, 2, dtype=pytensor.float64), 2, True), ""),
    "_linalg_cholesky_grad": (lambda: (pytensor.ones(3, 3, dtype=pytensor.float64), _tri(),
                                       False), _MODE),
    "_linalg_eigh_grad": (lambda: (pytensor.ones(3, dtype=pytensor.float64),
                                   pytensor.ones(3, 3, dtype=pytensor.float64),
                                   pytensor.tensor([1., 2., 4.], dtype=pytensor.float64),
                                   pytensor.eye(3, dtype=pytensor.float64)), ""),
    "_linalg_svd_grad": (lambda: (pytensor.ones(3, 2, dtype=pytensor.float64),
                                  pytensor.ones(2, dtype=pytensor.float64),
                                  pytensor.ones(2, 2, dtype=pytensor.float64),
                                  pytensor.eye(3, 2, dtype=pytensor.float64),
                                  pytensor.tensor([3., 1.], dtype=pytensor.float64),
                                  pytensor.eye(2, dtype=pytensor.float64), False), ""),
    "_linalg_solve_triangular_grad": (lambda: (pytensor.ones(3, 2, dtype=pytensor.float64), _tri(),
                                               pytensor.ones(3, 2, dtype=pytensor.float64), False,
                                               True, False, True), _MODE),
}
