"""What this machine's C toolchain offers pytensor's build: BLIS, oneDNN, OpenMP and the CPU
capabilities the kernels in csrc/kernels/cpu are compiled for.

One answer for both builds that compile csrc/: setup.py (the Python module) imports `detect()`,
and tests/c/Makefile runs this file with --make to get the same flags as make variables. Each
probe compiles and links a tiny program, so a header without its library (or the reverse) counts
as absent. BLIS is looked for by pkg-config first, then at the compiler's standard paths (where
Debian's libblis-dev puts blis.h and libblis.so), then in the multiarch blis-* folders. oneDNN
(Debian's libdnnl-dev: dnnl.h, libdnnl.so) is looked for by pkg-config, then at the standard
paths; convolutions use it when found (PYTENSOR_ONEDNN=0 builds without it). The module does not
link it: it records its SONAME and dlopens it on the first convolution that wants it. LAPACKE
(Debian's liblapacke-dev: lapacke.h, liblapacke.so over the system's LAPACK) is looked for by
pkg-config, then at the standard paths; the torch.linalg decompositions need it (PYTENSOR_LAPACK=0
builds without it, and they raise RuntimeError).
"""
from __future__ import annotations

import glob
import os
import platform
import shutil
import subprocess
import sys
import tempfile

BLIS_PROBE = r"""
#include <blis.h>
int main(void) { return bli_info_get_version_str() == 0; }
"""
ONEDNN_PROBE = r"""
#include <dnnl.h>
int main(void) { return dnnl_version()->major < 2; }
"""
# The file name the dynamic linker loads for -ldnnl (its SONAME, libdnnl.so.2), which the module
# dlopens on its first oneDNN convolution instead of linking it (Note [oneDNN loaded on first use]
# in csrc/kernels/nn/onednn.c).
ONEDNN_SONAME_PROBE = r"""
#define _GNU_SOURCE
#include <dnnl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
static int one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size; (void)data;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, "libdnnl", 7) == 0) { puts(base); return 1; }
    return 0;
}
int main(void) { return dnnl_version()->major < 2 || !dl_iterate_phdr(one, NULL); }
"""
LAPACK_PROBE = r"""
#include <lapacke.h>
int main(void) { double a = 2.0; lapack_int p; return LAPACKE_dgetrf(LAPACK_COL_MAJOR, 1, 1, &a, 1, &p) != 0; }
"""
AVX512_PROBE = r"""
#include <immintrin.h>
int main(void) { __m512 v = _mm512_set1_ps(1.0f); return (int)_mm512_reduce_add_ps(v) != 16; }
"""
AVX2_PROBE = r"""
#include <immintrin.h>
int main(void) { __m256 v = _mm256_fmadd_ps(_mm256_set1_ps(1.0f), _mm256_set1_ps(2.0f),
                                            _mm256_set1_ps(3.0f));
                 return (int)_mm256_cvtss_f32(v) != 5; }
"""
# The flags each capability's kernels are compiled with (cpu_capability.c checks the CPU and the
# OS for the same sets at run time). AVX-512 builds prefer 512-bit vectors: GCC's generic tuning
# would otherwise keep them at 256 bits. Kernels may vectorize sqrt and compare-selects: they never
# read errno or floating-point exception flags.
KERNEL_FLAGS = ["-O3", "-fno-math-errno", "-fno-trapping-math"]
# Python's own CFLAGS carry -g; debug information is an eighth of the build's compile time and no
# part of the installed module's behaviour, so a build leaves it out unless PYTENSOR_BUILD_DEBUG=1.
# (The C tests keep theirs: they read CONFIG's flags, not these.)
DEBUG_INFO_FLAGS = [] if os.environ.get("PYTENSOR_BUILD_DEBUG") == "1" else ["-g0"]
# PYTENSOR_SANITIZE=1 instruments the core and the kernels (not cffi's wrappers) as the C tests'
# SAN=1 build does, except that undefined behaviour is reported and execution goes on, so one run
# of tools/san_tests.py lists every report (it fails the run when there is any).
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
CPU_CAPABILITIES = {
    "default": ["-DPT_CPU_CAP_DEFAULT=1"],
    "avx2": ["-DPT_CPU_CAP_AVX2=1", "-mavx2", "-mfma", "-mf16c"],
    "avx512": ["-DPT_CPU_CAP_AVX512=1", "-mavx2", "-mfma", "-mf16c", "-mavx512f", "-mavx512bw",
               "-mavx512vl", "-mavx512dq", "-mprefer-vector-width=512"],
}
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


def _run_output(source: str, cflags: list[str], libs: list[str]) -> str | None:
    """What the program prints when it compiles, links and runs with status 0, else None."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write(source)
        try:
            if subprocess.run([_compiler(), src, "-o", exe, *cflags, *libs, "-lm"],
                              capture_output=True, timeout=60).returncode:
                return None
            run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        return run.stdout.strip() if run.returncode == 0 else None


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


def _find_onednn() -> tuple[list[str], list[str], str, str] | None:
    """cflags, the libs that replace -ldnnl (dlopen's, and a run path to the library's folder),
    where it was found and the SONAME to load."""
    candidates = []
    found = _pkg_config("dnnl")
    if found:
        candidates.append((*found, "pkg-config"))
    candidates.append(([], ["-ldnnl"], "standard paths"))
    for cflags, libs, where in candidates:
        if _links(ONEDNN_PROBE, cflags, libs):
            soname = _run_output(ONEDNN_SONAME_PROBE, cflags, libs)
            if not soname or not all(c.isalnum() or c in "._-+" for c in soname):
                continue
            dirs = [f[2:] for f in libs if f.startswith("-L")]
            return (cflags, [f"-Wl,-rpath,{d}" for d in dirs] + ["-ldl"], where, soname)
    return None


def _find_lapack() -> tuple[list[str], list[str], str] | None:
    candidates = []
    found = _pkg_config("lapacke")
    if found:
        candidates.append((*found, "pkg-config"))
    candidates.append(([], ["-llapacke"], "standard paths"))
    for cflags, libs, where in candidates:
        if _links(LAPACK_PROBE, cflags, libs):
            return cflags, libs, where
    return None


_DETECTED: dict = {}


def detect() -> dict:
    """Returns cflags, libs, has_blis, has_onednn, has_openmp and one human line per finding
    (memoized)."""
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
    disable_onednn = os.environ.get("PYTENSOR_ONEDNN", "") == "0"
    onednn = None if disable_onednn else _find_onednn()
    if onednn:
        cflags += ["-DPT_HAVE_ONEDNN=1", f"-DPT_ONEDNN_SONAME={onednn[3]}", *onednn[0]]
        libs += onednn[1]
        notes.append(f"pytensor: oneDNN found ({onednn[2]}; {onednn[3]}, loaded on first use)")
    else:
        why = ("PYTENSOR_ONEDNN=0" if disable_onednn
               else "install libdnnl-dev for oneDNN convolutions")
        notes.append(f"pytensor: oneDNN not found, building without it ({why})")
    disable_lapack = os.environ.get("PYTENSOR_LAPACK", "") == "0"
    lapack = None if disable_lapack else _find_lapack()
    if lapack:
        cflags += ["-DPT_HAVE_LAPACK=1", *lapack[0]]
        libs += lapack[1]
        notes.append(f"pytensor: LAPACK found (LAPACKE, {lapack[2]})")
    else:
        why = ("PYTENSOR_LAPACK=0" if disable_lapack
               else "install liblapacke-dev for torch.linalg's decompositions")
        notes.append(f"pytensor: LAPACK not found, building without it ({why})")
    if _links(OPENMP_PROBE, ["-fopenmp"], ["-fopenmp"]):
        cflags.append("-fopenmp")
        libs.append("-fopenmp")
        notes.append("pytensor: OpenMP found")
    else:
        notes.append("pytensor: OpenMP not found, building single-threaded")
    caps = {"default": CPU_CAPABILITIES["default"]}
    if platform.machine().lower() in ("x86_64", "amd64"):
        for name, probe in (("avx2", AVX2_PROBE), ("avx512", AVX512_PROBE)):
            flags = CPU_CAPABILITIES[name]
            if _links(probe, flags[1:], []):
                caps[name] = flags
                cflags.append(f"-DPT_CPU_BUILD_{name.upper()}=1")
    notes.append("pytensor: CPU kernels compiled for " + ", ".join(caps))
    if os.environ.get("PYTENSOR_SANITIZE", "") == "1":
        cflags += SANITIZE_FLAGS
        libs += SANITIZE_FLAGS[:1]
        notes.append("pytensor: built with AddressSanitizer and UndefinedBehaviorSanitizer "
                     "(PYTENSOR_SANITIZE=1; tools/san_tests.py runs pytest on such a build)")
    return {"cflags": cflags, "libs": libs, "has_blis": bool(blis), "has_onednn": bool(onednn),
            "has_lapack": bool(lapack),
            "has_openmp": "-fopenmp" in cflags, "notes": notes, "cpu_capabilities": caps}


def write_cpu_wrappers(sources: list[str], out_dir: str, caps: dict) -> dict:
    """One C file per (capability, csrc/kernels/cpu source) that defines the capability and
    includes the source, so that setuptools, which compiles each file once, builds every variant
    (tests/c/Makefile compiles the sources directly instead). Written only when changed.
    Returns {capability: [wrapper paths]}."""
    out = {}
    for cap in caps:
        folder = os.path.join(out_dir, "cpu", cap)
        os.makedirs(folder, exist_ok=True)
        out[cap] = []
        for src in sources:
            name = os.path.basename(src)
            text = (f"/* Generated by the build: csrc/kernels/cpu/{name} for the {cap} "
                    f"capability. */\n#define PT_CPU_CAP_{cap.upper()} 1\n"
                    f'#include "cpu/{name}"\n')
            path = os.path.join(folder, name)
            try:
                with open(path) as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                with open(path, "w") as f:
                    f.write(text)
            out[cap].append(path)
    return out


def main(argv: list[str]) -> int:
    config = detect()
    if "--make" in argv:
        print("CONFIG_CFLAGS := " + " ".join(config["cflags"]))
        print("CONFIG_LIBS := " + " ".join(config["libs"]))
        print("CPU_CAPS := " + " ".join(config["cpu_capabilities"]))
        print("KERNEL_CFLAGS := " + " ".join(KERNEL_FLAGS))
        for cap, flags in config["cpu_capabilities"].items():
            print(f"CPU_CFLAGS_{cap} := " + " ".join(flags))
    else:
        print("\n".join(config["notes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
