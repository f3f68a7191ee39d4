"""The hostile-argument fuzzer (fuzz_hostile.py) in a short, fixed form: no call may kill or hang
the child process that runs it.

A longer run, for manual use: PYTENSOR_FUZZ_SECONDS=600 python3 -m pytest tests/py/test_fuzz.py
(PYTENSOR_FUZZ_SEED picks the first seed; each further seed adds PYTENSOR_FUZZ_CALLS calls).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_hostile  # noqa: E402


def _report(r: dict) -> str:
    lines = [f"CRASH (exit {rc}): {c}" for rc, c in r["crashes"]]
    lines += [f"HANG: {c}" for c in r["hangs"]]
    return "\n".join(lines)


def test_no_hostile_call_kills_or_hangs_the_process():
    import time
    seconds = float(os.environ.get("PYTENSOR_FUZZ_SECONDS", "0"))
    seed = int(os.environ.get("PYTENSOR_FUZZ_SEED", "0"))
    calls = int(os.environ.get("PYTENSOR_FUZZ_CALLS", "1500"))
    deadline = time.monotonic() + seconds if seconds else None
    total = {"crashes": [], "hangs": [], "calls": 0}
    while True:
        r = fuzz_hostile.run(fuzz_hostile.make_calls(seed, calls), timeout=60.0,
                             deadline=deadline)
        total["crashes"] += r["crashes"]
        total["hangs"] += r["hangs"]
        total["calls"] += r["calls"]
        if deadline is None or time.monotonic() > deadline:
            break
        seed += 1
    assert total["calls"] > 0
    assert not total["crashes"] and not total["hangs"], _report(total)


def test_the_fuzzer_reports_a_crash_with_the_call_that_caused_it():
    r = fuzz_hostile.run(["pytensor.ones(1)", "__import__('os').abort()", "pytensor.zeros(2)"],
                         timeout=60.0)
    assert r["calls"] == 3
    assert len(r["crashes"]) == 1 and r["crashes"][0][1] == "__import__('os').abort()"
    assert r["crashes"][0][0] < 0  # killed by a signal


def test_the_fuzzer_reports_a_hang_and_goes_on():
    r = fuzz_hostile.run(["__import__('time').sleep(60)", "pytensor.ones(1)"], timeout=2.0)
    assert r["hangs"] == ["__import__('time').sleep(60)"]
    assert r["calls"] == 2 and r["kinds"].get("ok") == 1


@pytest.mark.parametrize("seed", [0, 1])
def test_calls_are_reproducible_from_the_seed(seed):
    assert fuzz_hostile.make_calls(seed, 50) == fuzz_hostile.make_calls(seed, 50)
