"""The whole test suite, as the README's test command runs it.

1. The C unit tests (tests/c), built from csrc/ with -Wall -Wextra and run; the runner closes with
   "N passed, N failed".
2. The same C tests built with -fsanitize=address,undefined and run (skipped with --no-sanitize).
3. pytest over tests/py against the installed pytensor (`pip install .` first). The source tree is
   kept off sys.path (PYTHONSAFEPATH) so that the tests import what was installed.
Steps 1 and 3 run once per CPU capability the CPU has (PYTENSOR_CPU_CAPABILITY: the best one
first, then each lower one down to the portable default), so that every kernel variant the build
compiled for this CPU passes its tests; the sanitizer build runs under the best one. The C tests
are built once per step with as many compilers at once as the CPUs allow (make -j). Under the best
capability pytest runs every test; under each lower one it runs only the tests whose outcome the
capability can change (--capability-dependent-only, Note [tests per capability] in
tests/py/conftest.py): the kernel families' files run in full, while the tests marked
capability_independent (the start-up, dispatch, schema, autograd, storage and exchange layers,
hostile-input child processes, and the tests that switch through every capability themselves)
are deselected there.

Exits non-zero when any step fails, and also when pytest collected no test (its exit status 5).

Options (CI's second, torch-free environment uses the last two): --no-sanitize skips step 2,
--no-c skips steps 1 and 2, --best-only runs under the best capability only. Other arguments go
to pytest.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


CAPABILITY_NAMES = ["default", "avx2", "avx512"]


def capabilities() -> list:
    """The capabilities this CPU has, best first, as the installed pytensor detects them."""
    code = "from pytensor._C import lib; print(lib.pt_cpu_capability_detected())"
    env = dict(os.environ, PYTHONSAFEPATH="1")
    env.pop("PYTENSOR_CPU_CAPABILITY", None)
    try:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                             text=True, check=True).stdout
        best = int(out.strip())
    except (subprocess.CalledProcessError, ValueError) as e:
        print(f"could not ask pytensor for the CPU capability ({e}); testing the default only")
        best = 0
    return [CAPABILITY_NAMES[i] for i in range(best, -1, -1)]


def build_jobs() -> int:
    """The compilers make runs at once: one per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def c_tests(sanitize: bool, capability: str) -> bool:
    label = "C tests (ASan+UBSan)" if sanitize else "C tests"
    label += f", {capability} kernels"
    print(f"== {label}", flush=True)
    cmd = ["make", "--no-print-directory", "-s", f"-j{build_jobs()}", "-C",
           os.path.join(ROOT, "tests", "c")]
    if sanitize:
        cmd.append("SAN=1")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
               PYTENSOR_CPU_CAPABILITY=capability)
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(proc.stdout, end="", flush=True)
    m = re.search(r"^(\d+) passed, (\d+) failed$", proc.stdout, re.M)
    ok = proc.returncode == 0 and m is not None and int(m.group(1)) > 0 and int(m.group(2)) == 0
    if not ok:
        print(f"{label}: FAILED (exit {proc.returncode})", flush=True)
    return ok


def py_tests(args: list, capability: str, best: bool) -> bool:
    """pytest under `capability`: every test under the best one, else the dependent ones."""
    scope = [] if best else ["--capability-dependent-only"]
    print(f"== pytest, {capability} kernels{'' if best else ', capability-dependent tests'}",
          flush=True)
    env = dict(os.environ, PYTHONSAFEPATH="1", PYTENSOR_CPU_CAPABILITY=capability)
    rc = subprocess.call([sys.executable, "-m", "pytest", os.path.join(ROOT, "tests", "py"),
                          *scope, *args], cwd=ROOT, env=env)
    if rc == 5:
        print("pytest collected no test: FAILED", flush=True)
    return rc == 0


def main(argv: list) -> int:
    options = {"--no-sanitize", "--no-c", "--best-only"}
    run_c = "--no-c" not in argv
    sanitize = run_c and "--no-sanitize" not in argv
    pytest_args = [a for a in argv if a not in options]
    caps = capabilities()
    if "--best-only" in argv:
        caps = caps[:1]
    results = [(f"C tests ({cap})", c_tests(False, cap)) for cap in caps] if run_c else []
    if sanitize:
        results.append((f"C tests ASan+UBSan ({caps[0]})", c_tests(True, caps[0])))
    results += [(f"pytest ({cap})", py_tests(pytest_args or ["-q"], cap, cap == caps[0]))
                for cap in caps]
    print("== summary: " + "; ".join(f"{name} {'ok' if ok else 'FAILED'}" for name, ok in results),
          flush=True)
    return 0 if all(ok for _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
