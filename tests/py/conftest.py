"""Session-wide rules of the pytest suites: PyTorch is an optional oracle (tests/py/_torch_oracle.py).

Without torch its comparisons are skipped and the run ends with one line saying how many and how to
turn them on; with PYTENSOR_REQUIRE_TORCH=1 (CI) a missing torch fails the session instead, so the
comparisons can never be skipped there unnoticed.
"""
import pytest

import _torch_oracle


def pytest_sessionstart(session):
    if _torch_oracle.REQUIRED and not _torch_oracle.HAVE_TORCH:
        pytest.exit("PYTENSOR_REQUIRE_TORCH=1 but torch does not import: the torch comparisons "
                    f"would be skipped ({_torch_oracle.INSTALL_HINT})", returncode=1)


def pytest_collection_finish(session):
    _torch_oracle.end_collection()


def _reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def pytest_terminal_summary(terminalreporter):
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if _torch_oracle.is_torch_skip(_reason(r))]
    if skipped:
        terminalreporter.write_line(f"{len(skipped)} tests skipped: "
                                    f"{_torch_oracle.SKIP_REASON} ({_torch_oracle.INSTALL_HINT})",
                                    yellow=True)
