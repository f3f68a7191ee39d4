"""The foundation's list of bad input, in one place: each raises the mapped exception with a message
that names the argument or says what was wrong, and failing over and over leaks nothing."""
import gc

import numpy as np
import pytest

import pytensor

CASES = [
    ("negative size", lambda: pytensor.zeros(2, -3), ValueError, r"size.*dim 1.*-3"),
    ("overflowing size", lambda: pytensor.empty(2**40, 2**40), RuntimeError, r"overflow"),
    ("overflowing nbytes", lambda: pytensor.empty(2**61, dtype=pytensor.float64), RuntimeError,
     r"overflow"),
    ("wrong dtype name", lambda: pytensor.zeros(2, dtype="float33"), TypeError, r"dtype.*float33"),
    ("dtype of the wrong type", lambda: pytensor.zeros(2, dtype=3.5), TypeError, r"dtype"),
    ("unknown device type", lambda: pytensor.zeros(2, device="tpu"), RuntimeError,
     r"device string: tpu"),
    ("absent CUDA device", lambda: pytensor.zeros(2, device="cuda:7"), RuntimeError, r"cuda"),
    ("malformed device index", lambda: pytensor.device("cuda:x"), RuntimeError, r"cuda:x"),
    ("view across strides", lambda: pytensor.zeros(2, 3).t().view(6), RuntimeError,
     r"view size is not compatible"),
    ("view of the wrong numel", lambda: pytensor.zeros(2, 3).view(4, 2), RuntimeError,
     r"shape '\[4, 2\]' is invalid for input of size 6"),
    ("index out of range", lambda: pytensor.zeros(3)[3], IndexError,
     r"index 3 is out of bounds for dimension 0 with size 3"),
    ("dim out of range", lambda: pytensor.zeros(3).unsqueeze(5), IndexError,
     r"Dimension out of range"),
    ("from_numpy of objects", lambda: pytensor.from_numpy(np.array([None, 1], dtype=object)),
     TypeError, r"object"),
    ("resize of non-resizable storage",
     lambda: pytensor.FloatStorage.from_buffer(b"\0" * 8, "little").resize_(4), RuntimeError,
     r"not resizable"),
    ("set_state with a float tensor", lambda: pytensor.Generator().set_state(pytensor.zeros(16)),
     TypeError, r"new_state"),
    ("set_state with too few bytes",
     lambda: pytensor.Generator().set_state(pytensor.zeros(4, dtype=pytensor.uint8)), ValueError,
     r"new_state"),
]


@pytest.mark.parametrize("what, call, exc, pattern", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_a_named_error(what, call, exc, pattern):
    with pytest.raises(exc, match=pattern) as info:
        call()
    # Errors raised by the C core say where: the file:line of the check.
    loc = getattr(info.value, "c_location", None)
    if loc is not None:
        assert loc.startswith("csrc/") and loc.rsplit(":", 1)[1].isdigit()


def test_failing_repeatedly_leaks_no_memory_and_no_handles():
    for _, call, exc, _ in CASES:  # warm up caches the first calls may fill
        with pytest.raises(exc):
            call()
    gc.collect()
    before = pytensor.memory_stats()["bytes_in_use"]
    handles = len(pytensor._C._keepalive)
    for _ in range(50):
        for _, call, exc, _ in CASES:
            with pytest.raises(exc):
                call()
    gc.collect()
    assert pytensor.memory_stats()["bytes_in_use"] == before
    assert len(pytensor._C._keepalive) == handles
