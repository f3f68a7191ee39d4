"""The whole test suite, as the README's test command runs it.

1. The C unit tests (tests/c), built from csrc/ with -Wall -Wextra and run; the runner closes with
   "N passed, N failed".
2. The same C tests built with -fsanitize=address,undefined and run (skipped with --no-sanitize).
3. pytest over tests/py against the installed pytensor (`pip install .` first). The source tree is
   kept off sys.path (PYTHONSAFEPATH) so that the tests import what was installed.

Exits non-zero when any step fails, and also when pytest collected no test (its exit status 5).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def c_tests(sanitize: bool) -> bool:
    label = "C tests (ASan+UBSan)" if sanitize else "C tests"
    print(f"== {label}", flush=True)
    cmd = ["make", "--no-print-directory", "-s", "-C", os.path.join(ROOT, "tests", "c")]
    if sanitize:
        cmd.append("SAN=1")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(proc.stdout, end="", flush=True)
    m = re.search(r"^(\d+) passed, (\d+) failed$", proc.stdout, re.M)
    ok = proc.returncode == 0 and m is not None and int(m.group(1)) > 0 and int(m.group(2)) == 0
    if not ok:
        print(f"{label}: FAILED (exit {proc.returncode})", flush=True)
    return ok


def py_tests(args: list) -> bool:
    print("== pytest", flush=True)
    env = dict(os.environ, PYTHONSAFEPATH="1")
    rc = subprocess.call([sys.executable, "-m", "pytest", os.path.join(ROOT, "tests", "py"), *args],
                         cwd=ROOT, env=env)
    if rc == 5:
        print("pytest collected no test: FAILED", flush=True)
    return rc == 0


def main(argv: list) -> int:
    sanitize = "--no-sanitize" not in argv
    pytest_args = [a for a in argv if a != "--no-sanitize"]
    results = [c_tests(False)]
    if sanitize:
        results.append(c_tests(True))
    results.append(py_tests(pytest_args or ["-q"]))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
