"""Runs pytest against a pytensor module built with AddressSanitizer and UndefinedBehaviorSanitizer.

    python3 tools/san_tests.py [pytest arguments]      # default: tests/py/test_nn_*.py

The C tests (`make -C tests/c SAN=1`) instrument what they call; this tool instruments what the
Python suite calls, which reaches every operator through its real entry points (the kernels of
csrc/kernels/nn/ among them) with the shapes, strides and dtypes the tests choose. It copies the
source tree (the files git tracks or would track) into build/san/tree, builds the module in place
there with PYTENSOR_SANITIZE=1 (incremental on later runs: only changed files are copied, so only
their objects recompile), and runs pytest on that copy with the sanitizer runtime preloaded —
CPython itself is not instrumented, so the runtime must come first. Leak detection is off (the
interpreter keeps what it allocates until exit); the first memory error or undefined behaviour
stops the run; undefined behaviour is reported and the run goes on. The reports go to files under
build/san/reports (pytest's capture would swallow what the runtime writes to stderr when a test
process dies), printed at the end. Exits non-zero when pytest fails or any report was written.

Slow by nature: the instrumented build takes several minutes, the tests run two to five times
slower. torch, when installed, is imported beside the runtime as usual.
"""
from __future__ import annotations

import filecmp
import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import build_config  # noqa: E402

TREE = os.path.join(ROOT, "build", "san", "tree")
REPORTS = os.path.join(ROOT, "build", "san", "reports")
DEFAULT_TESTS = ["tests/py/test_nn_*.py"]


def sync_tree() -> int:
    """Copies the source files into TREE, only those that differ; returns how many were copied."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, check=True).stdout
    copied = 0
    for rel in filter(None, out.decode().split("\0")):
        src, dst = os.path.join(ROOT, rel), os.path.join(TREE, rel)
        if not os.path.isfile(src):
            continue
        if os.path.exists(dst) and filecmp.cmp(src, dst, shallow=False):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(src, dst)  # a new time: the copy is newer than the objects built before
        copied += 1
    return copied


def runtime(name: str) -> str:
    """The path of a sanitizer runtime the compiler links (e.g. libasan.so)."""
    cc = os.environ.get("CC") or "cc"
    path = subprocess.run([cc, f"-print-file-name={name}"], capture_output=True,
                          text=True).stdout.strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        sys.exit(f"san_tests: the compiler ({cc}) has no {name}; AddressSanitizer is needed")
    return path


def main(argv: list) -> int:
    os.makedirs(TREE, exist_ok=True)
    print(f"san_tests: {sync_tree()} files copied into {os.path.relpath(TREE, ROOT)}", flush=True)
    flags = os.path.join(TREE, "build", "san-flags")
    wanted = " ".join(build_config.SANITIZE_FLAGS)
    if not os.path.exists(flags) or open(flags).read() != wanted:
        # Objects are rebuilt by their files' times alone: other flags need a clean build.
        for old in glob.glob(os.path.join(TREE, "build", "temp*")):
            shutil.rmtree(old)
        os.makedirs(os.path.dirname(flags), exist_ok=True)
        with open(flags, "w") as f:
            f.write(wanted)
    env = dict(os.environ, PYTENSOR_SANITIZE="1", PYTENSOR_CUDA="0")
    rc = subprocess.call([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=TREE,
                         env=env)
    if rc:
        print("san_tests: the instrumented build failed", flush=True)
        return rc
    tests = argv or DEFAULT_TESTS
    if any("*" in t for t in tests):
        tests = sorted(p for t in tests for p in (glob.glob(os.path.join(TREE, t)) or [t]))
    env = dict(os.environ, PYTHONPATH=TREE, PYTHONSAFEPATH="1",
               # libstdc++ right after the runtime: C++ libraries that tests import (torch) throw
               # exceptions, and the runtime's __cxa_throw interceptor needs the real one loaded.
               LD_PRELOAD=" ".join(filter(None, [runtime("libasan.so"), runtime("libstdc++.so"),
                                                 os.environ.get("LD_PRELOAD", "")])),
               ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:log_path="
                            + os.path.join(REPORTS, "asan"),
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=0:log_path="
                             + os.path.join(REPORTS, "ubsan"))
    shutil.rmtree(REPORTS, ignore_errors=True)
    os.makedirs(REPORTS)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests]
    rc = subprocess.call(cmd, cwd=TREE, env=env)
    reports = sorted(os.listdir(REPORTS))
    for name in reports:
        with open(os.path.join(REPORTS, name), errors="replace") as f:
            print(f"== {name}\n{f.read()}")
    print(f"san_tests: pytest exit {rc}, {len(reports)} sanitizer report file(s)")
    return rc or (1 if reports else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
