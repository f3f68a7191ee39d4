"""The whole test suite, as the README's test command runs it.

1. The C unit tests (tests/c), built from csrc/ with -Wall -Wextra and run; the runner closes with
   "N passed, N failed".
2. The same C tests built with -fsanitize=address,undefined and run (skipped with --no-sanitize).
3. pytest over tests/py against the installed pytensor (`pip install .` first). The source tree is
   kept off sys.path (PYTHONSAFEPATH) so that the tests import what was installed.
Steps 1 and 3 run once per CPU capability the CPU has (PYTENSOR_CPU_CAPABILITY: the best one
first, then each lower one down to the portable default), so that every kernel variant the build
compiled for this CPU passes its tests; the sanitizer build runs under the best one. Steps 1 and 2
run one after the other in a thread beside step 3 (Note [C tests beside pytest]), with as many
compilers at once as the CPUs allow (make -j); their output is printed after pytest's.

Under the best capability pytest runs every test; under each lower one it runs only the tests
whose outcome the capability can change (--capability-dependent-only, Note [tests per
capability] in tests/py/conftest.py): the kernel families' files run in full, while the tests
marked capability_independent (the start-up, dispatch, schema, autograd, storage and exchange
layers, hostile-input child processes, and the tests that switch through every capability
themselves) are deselected there.

Exits non-zero when any step fails, and also when pytest collected no test (its exit status 5).

Options (CI's second, torch-free environment uses the last two): --no-sanitize skips step 2,
--no-c skips steps 1 and 2, --best-only runs under the best capability only. Other arguments go
to pytest.
"""
import os
import re
import subprocess
import sys
import threading

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


def c_tests(sanitize: bool, capability: str) -> tuple:
    """Builds and runs one C step; (passed, its output with its heading)."""
    label = "C tests (ASan+UBSan)" if sanitize else "C tests"
    label += f", {capability} kernels"
    cmd = ["make", "--no-print-directory", "-s", f"-j{build_jobs()}", "-C",
           os.path.join(ROOT, "tests", "c")]
    if sanitize:
        cmd.append("SAN=1")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
               PYTENSOR_CPU_CAPABILITY=capability)
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = re.search(r"^(\d+) passed, (\d+) failed$", proc.stdout, re.M)
    ok = proc.returncode == 0 and m is not None and int(m.group(1)) > 0 and int(m.group(2)) == 0
    text = f"== {label}\n{proc.stdout}"
    if not ok:
        text += f"{label}: FAILED (exit {proc.returncode})\n"
    return ok, text


class CSteps(threading.Thread):
    """The C steps, one after another, beside pytest (Note [C tests beside pytest])."""

    def __init__(self, steps: list):
        super().__init__(daemon=True)
        self.steps = steps  # (name, sanitize, capability)
        self.results = []  # (name, passed, output)

    def run(self):
        for name, sanitize, cap in self.steps:
            try:
                ok, text = c_tests(sanitize, cap)
            except OSError as e:  # make or the compiler could not be started
                ok, text = False, f"== {name}\n{name}: FAILED ({e})\n"
            self.results.append((name, ok, text))


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


# Note [C tests beside pytest]
# pytest runs on one core for most of its time, while building the C tests (twice: plain and with
# the sanitizers) keeps every core busy for minutes. So the C steps build and run in a thread of
# their own while pytest runs, their output held back and printed, each step whole, once pytest is
# done: the compilers use the cores that pytest leaves idle. Nothing is shared between the two:
# the C tests link the sources into their own binaries under build/ctest*, pytest imports the
# installed package. A C step that could not run at all counts as failed, so the summary always
# names every step.


def main(argv: list) -> int:
    options = {"--no-sanitize", "--no-c", "--best-only"}
    run_c = "--no-c" not in argv
    sanitize = run_c and "--no-sanitize" not in argv
    pytest_args = [a for a in argv if a not in options]
    caps = capabilities()
    if "--best-only" in argv:
        caps = caps[:1]
    steps = [(f"C tests ({cap})", False, cap) for cap in caps] if run_c else []
    if sanitize:
        steps.append((f"C tests ASan+UBSan ({caps[0]})", True, caps[0]))
    c_steps = CSteps(steps)
    if steps:
        print("== C tests: building and running beside pytest; their output follows it",
              flush=True)
        c_steps.start()
    py_results = [(f"pytest ({cap})", py_tests(pytest_args or ["-q"], cap, cap == caps[0]))
                  for cap in caps]
    if steps:
        c_steps.join()
    for _, _, text in c_steps.results:
        print(text, end="", flush=True)
    results = [(name, ok) for name, ok, _ in c_steps.results] + py_results
    print("== summary: " + "; ".join(f"{name} {'ok' if ok else 'FAILED'}" for name, ok in results),
          flush=True)
    return 0 if all(ok for _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
