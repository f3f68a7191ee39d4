"""What this machine's C toolchain offers pytensor's build: BLIS and OpenMP.

One answer for both builds that compile csrc/: setup.py (the Python module) imports `detect()`,
and tests/c/Makefile runs this file with --make to get the same flags as make variables. Each
probe compiles and links a tiny program, so a header without its library (or the reverse) counts
as absent. BLIS is looked for by pkg-config first, then at the compiler's standard paths (where
Debian's libblis-dev puts blis.h and libblis.so), then in the multiarch blis-* folders.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile

BLIS_PROBE = r"""
#include <blis.h>
int main(void) { return bli_info_get_version_str() == 0; }
"""
OPENMP_PROBE = r"""
#include <omp.h>
int main(void) { return omp_get_max_threads() < 1; }
"""


def _compiler() -> str:
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"


def _links(source: str, cflags: list[str], libs: list[str]) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(source)
        cmd = [_compiler(), src, "-o", os.path.join(tmp, "probe"), *cflags, *libs, "-lm"]
        try:
            return subprocess.run(cmd, capture_output=True, timeout=60).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False


def _pkg_config(name: str) -> tuple[list[str], list[str]] | None:
    if not shutil.which("pkg-config"):
        return None
    try:
        cflags = subprocess.run(["pkg-config", "--cflags", name], capture_output=True, text=True)
        libs = subprocess.run(["pkg-config", "--libs", name], capture_output=True, text=True)
    except OSError:
        return None
    if cflags.returncode or libs.returncode:
        return None
    return cflags.stdout.split(), libs.stdout.split()


def _find_blis() -> tuple[list[str], list[str], str] | None:
    candidates = []
    found = _pkg_config("blis")
    if found:
        candidates.append((*found, "pkg-config"))
    candidates.append(([], ["-lblis"], "standard paths"))
    for header in sorted(glob.glob("/usr/include/*/blis*/blis.h")) + sorted(
            glob.glob("/usr/local/include/blis/blis.h")):
        inc = os.path.dirname(header)
        libdir = inc.replace("/include/", "/lib/").replace("/local/lib/blis", "/local/lib")
        candidates.append(([f"-I{inc}"], [f"-L{libdir}", f"-Wl,-rpath,{libdir}", "-lblis"], inc))
    for cflags, libs, where in candidates:
        if _links(BLIS_PROBE, cflags, libs):
            return cflags, libs, where
    return None


_DETECTED: dict = {}


def detect() -> dict:
    """Returns cflags, libs, has_blis, has_openmp and one human line per finding (memoized)."""
    if not _DETECTED:
        _DETECTED.update(_detect())
    return _DETECTED


def _detect() -> dict:
    cflags: list[str] = []
    libs: list[str] = []
    notes = []
    disable_blis = os.environ.get("PYTENSOR_BLIS", "") == "0"
    blis = None if disable_blis else _find_blis()
    if blis:
        cflags += ["-DPT_HAVE_BLIS=1", *blis[0]]
        libs += blis[1]
        notes.append(f"pytensor: BLIS found ({blis[2]})")
    else:
        why = "PYTENSOR_BLIS=0" if disable_blis else "install libblis-dev for BLIS matrix products"
        notes.append(f"pytensor: BLIS not found, building without it ({why})")
    if _links(OPENMP_PROBE, ["-fopenmp"], ["-fopenmp"]):
        cflags.append("-fopenmp")
        libs.append("-fopenmp")
        notes.append("pytensor: OpenMP found")
    else:
        notes.append("pytensor: OpenMP not found, building single-threaded")
    return {"cflags": cflags, "libs": libs, "has_blis": bool(blis),
            "has_openmp": "-fopenmp" in cflags, "notes": notes}


def main(argv: list[str]) -> int:
    config = detect()
    if "--make" in argv:
        print("CONFIG_CFLAGS := " + " ".join(config["cflags"]))
        print("CONFIG_LIBS := " + " ".join(config["libs"]))
    else:
        print("\n".join(config["notes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
