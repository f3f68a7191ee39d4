"""The set-up holds on any machine: the suite collects and its torch comparisons skip cleanly where
torch is not installed (tests/py/_torch_oracle.py), PYTENSOR_REQUIRE_TORCH turns a missing torch
into a failure, and the packaging metadata and README agree with what the commands need."""
import glob
import os
import re
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Put first on PYTHONPATH, this makes `import torch` fail as if torch were not installed.
BLOCKER = textwrap.dedent("""
    import sys

    class _NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError("No module named 'torch'", name=name)
            return None

    sys.meta_path.insert(0, _NoTorch())
""")


def _pytest_without_torch(tmp_path, *args, require=False):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [p for p in [env.get("PYTHONPATH")] if p])
    env.pop("PYTENSOR_REQUIRE_TORCH", None)
    if require:
        env["PYTENSOR_REQUIRE_TORCH"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_the_blocker_hides_torch(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), HERE]))
    code = "import _torch_oracle as o; print(o.HAVE_TORCH, o.torch)"
    out = subprocess.run([sys.executable, "-c", code], cwd=HERE, env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["False", "torch"]


def test_every_test_file_collects_without_torch(tmp_path):
    proc = _pytest_without_torch(tmp_path, "--collect-only", "-q", HERE)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    collected = {line.split("::")[0].replace("\\", "/").rsplit("/", 1)[-1]
                 for line in proc.stdout.splitlines() if "::" in line}
    files = {os.path.basename(p) for p in glob.glob(os.path.join(HERE, "test_*.py"))}
    assert sorted(files - collected) == []


def test_torch_comparisons_are_skipped_and_counted_without_torch(tmp_path):
    files = [os.path.join(HERE, f) for f in ("test_softmax.py", "test_operators.py")]
    proc = _pytest_without_torch(tmp_path, "-q", "-rN", *files)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    skipped = int(re.search(r"(\d+) skipped", out).group(1))
    assert skipped > 50 and " failed" not in out and " error" not in out
    assert (f"{skipped} tests skipped: torch is not installed "
            "(pip install torch==2.13.0 to run the torch comparisons)") in out


def test_requiring_torch_fails_the_session_without_it(tmp_path):
    proc = _pytest_without_torch(tmp_path, "-q", os.path.join(HERE, "test_softmax.py"),
                                 require=True)
    assert proc.returncode != 0
    assert "PYTENSOR_REQUIRE_TORCH=1 but torch does not import" in proc.stdout + proc.stderr


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "pyproject.toml")),
                    reason="source tree not available")
def test_requires_python_allows_only_versions_the_readme_commands_run_on():
    # The README's `python -P -m pytensor` needs 3.11 (-P), the build itself glob(root_dir=) 3.10.
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    assert re.search(r'^requires-python\s*=\s*">=3\.11"', text, re.M)
    assert sys.version_info >= (3, 11)


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "setup.py")),
                    reason="source tree not available")
def test_readme_explains_every_pytensor_environment_variable():
    names = set()
    for pattern in ("csrc/**/*.[ch]", "csrc/**/*.cu", "tools/*.py", "pytensor/**/*.py", "setup.py",
                    ".ci/run"):
        for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            names |= set(re.findall(r"\bPYTENSOR_[A-Z0-9_]*[A-Z0-9]\b", open(path).read()))
    names.discard("PYTENSOR_H")  # pytensor.h's include guard
    assert "PYTENSOR_CPU_CAPABILITY" in names
    readme = open(os.path.join(ROOT, "README.md")).read()
    assert sorted(n for n in names if n not in readme) == []


def test_setup_ships_every_python_package_of_the_source_tree():
    with open(os.path.join(ROOT, "setup.py"), encoding="utf-8") as f:
        listed = set(re.findall(r'"(pytensor(?:\.\w+)*)"', f.read()))
    here = set()
    for init in glob.glob(os.path.join(ROOT, "pytensor", "**", "__init__.py"), recursive=True):
        rel = os.path.relpath(os.path.dirname(init), ROOT)
        here.add(rel.replace(os.sep, "."))
    assert here <= listed, f"setup.py packages= misses {sorted(here - listed)}"


# ---------------------------------------------------------------- tests per capability

KERNEL_FILES = ["test_binary_ops.py", "test_unary.py", "test_reductions.py", "test_softmax.py",
                "test_linalg.py", "test_small_gemm.py", "test_random.py", "test_random_normal.py",
                "test_random_ops.py", "test_numpy_oracle.py", "test_operators.py",
                "test_cpu_kernels.py", "test_loop_perf_paths.py"]


def test_kernel_families_and_new_files_run_under_every_capability():
    import conftest  # the rule of Note [tests per capability]
    for name in KERNEL_FILES + ["test_a_new_kernel_family.py"]:
        assert os.path.exists(os.path.join(HERE, name)) or name.startswith("test_a_new")
        assert not conftest.capability_independent_file(os.path.join(HERE, name)), name


def test_autograd_files_run_under_the_best_capability_only():
    import conftest
    for name in ("test_autograd.py", "test_autograd_formulas.py", "test_autograd_views.py",
                 "test_autograd_hooks.py", "test_autograd_complex.py", "test_inference_mode.py"):
        assert conftest.capability_independent_file(os.path.join(HERE, name)), name


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "tools", "run_tests.py")),
                    reason="source tree not available")
def test_run_tests_deselects_independent_tests_under_lower_capabilities_only(monkeypatch):
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import run_tests
    finally:
        sys.path.pop(0)
    calls = []
    monkeypatch.setattr(run_tests.subprocess, "call",
                        lambda cmd, **kw: calls.append((cmd, kw["env"])) or 0)
    assert run_tests.py_tests(["-q"], "avx2", best=True)
    assert run_tests.py_tests(["-q"], "default", best=False)
    (best, best_env), (lower, lower_env) = calls
    assert "--capability-dependent-only" not in best and best[-1] == "-q"
    assert "--capability-dependent-only" in lower and lower[-1] == "-q"
    assert best_env["PYTENSOR_CPU_CAPABILITY"] == "avx2"
    assert lower_env["PYTENSOR_CPU_CAPABILITY"] == "default"


def test_the_option_deselects_exactly_the_marked_tests(tmp_path):
    # A lower capability's run keeps a kernel file whole and drops an autograd file and the
    # tests marked capability_independent.
    files = [os.path.join(HERE, f) for f in ("test_softmax.py", "test_dispatch_keys.py")]
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q"]
    full = subprocess.run(args + files, cwd=ROOT, capture_output=True, text=True, timeout=600)
    low = subprocess.run(args + ["--capability-dependent-only"] + files, cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    ids = lambda out: {line for line in out.splitlines() if "::" in line}  # noqa: E731
    full_ids, low_ids = ids(full.stdout), ids(low.stdout)
    assert full.returncode == 0 and low.returncode == 0, full.stdout[-2000:] + low.stdout[-2000:]
    dropped = full_ids - low_ids
    assert low_ids < full_ids
    assert all("test_dispatch_keys.py" in i or "every_capability" in i for i in dropped), dropped
    assert not any("test_dispatch_keys.py" in i for i in low_ids)
    assert sum("test_softmax.py" in i for i in low_ids) == \
        sum("test_softmax.py" in i for i in full_ids) - 1


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "tools", "run_tests.py")),
                    reason="source tree not available")
def test_a_c_step_that_cannot_start_is_a_failure(monkeypatch):
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import run_tests
    finally:
        sys.path.pop(0)

    def no_make(sanitize, capability):
        raise FileNotFoundError("make")
    monkeypatch.setattr(run_tests, "c_tests", no_make)
    steps = run_tests.CSteps([("C tests (default)", False, "default")])
    steps.start()
    steps.join()
    assert [(name, ok) for name, ok, _ in steps.results] == [("C tests (default)", False)]
    assert "FAILED" in steps.results[0][2]
