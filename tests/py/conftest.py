"""Session-wide rules of the pytest suites.

PyTorch is an optional oracle (tests/py/_torch_oracle.py). Without torch its comparisons are
skipped and the run ends with one line saying how many and how to turn them on; with
PYTENSOR_REQUIRE_TORCH=1 (CI) a missing torch fails the session instead, so the comparisons can
never be skipped there unnoticed.

Tests that do not depend on the CPU capability (Note [tests per capability]) carry the
`capability_independent` marker; `--capability-dependent-only` deselects them, which
tools/run_tests.py asks for under every capability but the best.
"""
import fnmatch
import os

# Note [a one-thread NumPy oracle]
# NumPy's OpenBLAS starts a thread per core for a float64 reference product and keeps it spinning
# after the call; beside pytensor's own OpenMP threads (and the next test's) those spinners took a
# core the tests needed: tests/py/test_small_gemm.py ran 25 s with them and 9 s without on the
# 2-core machine (at a load average of about 4). The oracle's speed is not under test, so it runs
# on one thread unless the caller chose otherwise. This must precede NumPy's first import
# (OpenBLAS reads the variable once, when it loads), which is the test modules' and
# _torch_oracle's; child processes that the tests start inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402

import _torch_oracle  # noqa: E402

# Note [tests per capability]
# tools/run_tests.py runs pytest once per CPU capability the machine has (PYTENSOR_CPU_CAPABILITY),
# so that every kernel variant of csrc/kernels/cpu, and the BLIS kernel set chosen from the
# capability (Note [BLIS kernel set]), passes its tests. A test whose outcome the capability
# cannot change gains nothing from the repeats: one of the start-up, dispatch, schema, autograd,
# storage or exchange layers, a child-process test of hostile input, or a test that switches
# through every capability itself (pt_cpu_capability_select). Those run under the best capability
# only: under the lower ones run_tests.py passes --capability-dependent-only, which deselects
# every test marked `capability_independent`. A test file gets the marker from the patterns
# below, a single test from `@pytest.mark.capability_independent`. A file that matches no
# pattern runs under every capability, so a new kernel test file is never left out of a lower
# capability's run by default; autograd's files (test_autograd*.py, test_inference_mode.py)
# are independent by pattern, as the formulas and the engine are the same C under every
# capability and the kernels they call are tested in their families' own files.
CAPABILITY_INDEPENDENT_FILES = (
    "test_autograd*.py", "test_inference_mode.py",
    "test_advanced_indexing.py", "test_bad_input.py", "test_bench_ops.py", "test_build.py",
    "test_device.py", "test_dispatch_keys.py", "test_dlpack.py", "test_dtype.py",
    "test_factory.py", "test_fast_paths.py", "test_fuzz.py", "test_generator.py",
    "test_hostile_input.py", "test_indexing.py", "test_indexing_slots.py", "test_library.py",
    "test_numpy_exchange.py", "test_ops_front.py", "test_repr.py", "test_return_types.py",
    "test_schema.py", "test_setup.py", "test_shape_ops.py", "test_sorting.py", "test_storage.py",
    "test_tensor.py", "test_torch_parity.py", "test_views.py",
)
DEPENDENT_ONLY = "--capability-dependent-only"


def capability_independent_file(path: str) -> bool:
    """Whether the test file at `path` runs under the best capability only."""
    name = os.path.basename(path)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in CAPABILITY_INDEPENDENT_FILES)


def pytest_addoption(parser):
    parser.addoption(DEPENDENT_ONLY, action="store_true", default=False,
                     help="deselect the tests marked capability_independent (tools/run_tests.py "
                          "passes it under every CPU capability but the best)")


def pytest_configure(config):
    config.addinivalue_line("markers", "capability_independent: the CPU capability cannot change "
                                       "the outcome (Note [tests per capability] in conftest.py)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if capability_independent_file(str(item.path)):
            item.add_marker(pytest.mark.capability_independent)
    if not config.getoption(DEPENDENT_ONLY):
        return
    keep = [i for i in items if i.get_closest_marker("capability_independent") is None]
    dropped = [i for i in items if i.get_closest_marker("capability_independent") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_report_header(config):
    if config.getoption(DEPENDENT_ONLY):
        return ("capability-dependent tests only: the capability_independent ones run under the "
                "best capability")
    return None


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


@pytest.fixture(params=[1, 2], ids=lambda n: f"threads{n}")
def threads(request):
    """Runs the test once on one thread and once on two (pytensor.set_num_threads), restoring
    the count after."""
    import pytensor
    saved = pytensor.get_num_threads()
    pytensor.set_num_threads(request.param)
    yield request.param
    pytensor.set_num_threads(saved)
