"""Builds pytensor: the C core as a static library, the cffi module that links it, and the CUDA
backend library when nvcc is present.

The core (csrc/core, csrc/kernels, csrc/ops and the operator code that tools/gen_ops.py generates
from csrc/ops/native_functions.yaml into build/generated before build_clib runs) is compiled by
build_clib with the project's flags (C11, -O3, -Wall -Wextra, -fvisibility=hidden so that only the
PT_API symbols of csrc/include/pytensor.h and the generated pt_ops.h are exported); the cffi module
(tools/build_cffi.py) only compiles cffi's generated wrapper and links the library. BLIS and OpenMP
come from tools/build_config.py, which prints one line for each.
PYTENSOR_CUDA=0 skips the CUDA library, PYTENSOR_CUDA=1 requires it.
"""
import glob
import os
import sys

from setuptools import setup
from setuptools.command.build_clib import build_clib
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import build_config  # noqa: E402
import gen_ops  # noqa: E402

VERSION = {}
with open(os.path.join(ROOT, "pytensor", "_version.py")) as f:
    exec(f.read(), VERSION)

CONFIG = build_config.detect()
for note in CONFIG["notes"]:
    print(note)

GENERATED = os.path.relpath(gen_ops.OUT, ROOT)  # build/generated
# csrc/kernels/cpu is compiled once per CPU capability, each variant its own library of the same
# objects' names; the wrappers that select a capability are written into build/generated/cpu.
CPU_SOURCES = sorted(glob.glob("csrc/kernels/cpu/*.c"))
CPU_WRAPPERS = build_config.write_cpu_wrappers(CPU_SOURCES, GENERATED, CONFIG["cpu_capabilities"])
KERNEL_HEADERS = sorted(glob.glob("csrc/kernels/*.h") + glob.glob("csrc/kernels/cpu/*.h")
                        + glob.glob("csrc/core/*.h") + glob.glob("csrc/include/*.h"))
CORE_SOURCES = sorted(glob.glob("csrc/core/*.c") + glob.glob("csrc/kernels/*.c")
                      + glob.glob("csrc/ops/*.c")) + [os.path.join(GENERATED, "pt_ops.c")]
# What build_clib cannot see by itself: the operator sources read the generated headers.
OPS_DEPS = [os.path.join(GENERATED, "pt_ops.h"), os.path.join(GENERATED, "pt_ops_internal.h")]
OBJ_DEPS = {src: OPS_DEPS for src in CORE_SOURCES
            if src.startswith(("csrc/ops" + os.sep, GENERATED + os.sep))}
CORE_CFLAGS = ["-std=c11", "-O3", "-Wall", "-Wextra", "-fvisibility=hidden", "-D_GNU_SOURCE",
               f'-DPT_VERSION="{VERSION["__version__"]}"', *CONFIG["cflags"]]
INCLUDE_DIRS = ["csrc/include", "csrc/core", "csrc/ops", "csrc/kernels", GENERATED]


def cpu_library(cap: str) -> tuple:
    """The library of csrc/kernels/cpu compiled for one capability (setuptools rebuilds a wrapper
    when its source or any kernel header changed)."""
    wrappers = CPU_WRAPPERS[cap]
    deps = {w: [src] + KERNEL_HEADERS for w, src in zip(wrappers, CPU_SOURCES)}
    return (f"pytensor_cpu_{cap}", {
        "sources": wrappers,
        "include_dirs": INCLUDE_DIRS,
        "obj_deps": deps,
        "cflags": CORE_CFLAGS + build_config.KERNEL_FLAGS + CONFIG["cpu_capabilities"][cap],
    })


class BuildClib(build_clib):
    """build_clib that first generates the operator code from the declarations."""

    def run(self):
        gen_ops.generate()
        super().run()


class BuildExt(build_ext):
    """build_ext that also builds the CUDA backend library beside the module."""

    def run(self):
        # build_ext alone (an in-place build) does not run build_clib; `build` does. Run it here,
        # and make the module depend on the library so that a changed core relinks it.
        self.run_command("build_clib")
        clib = self.get_finalized_command("build_clib")
        for ext in self.extensions:
            ext.depends = list(ext.depends) + [
                os.path.join(clib.build_clib, clib.compiler.static_lib_format % (name, ".a"))
                for name in clib.get_library_names()]
        super().run()
        import build_cuda
        if self.inplace:
            out_dir = os.path.join(ROOT, "pytensor", "_C")
        else:
            out_dir = os.path.join(self.build_lib, "pytensor", "_C")
        os.makedirs(out_dir, exist_ok=True)
        build_cuda.build_cuda_library(os.path.join(out_dir, "libpytensor_cuda.so"),
                                      verbose=self.verbose)


setup(
    version=VERSION["__version__"],
    packages=["pytensor", "pytensor._C", "pytensor.cuda"],
    libraries=[("pytensor_core", {
        "sources": CORE_SOURCES,
        "include_dirs": INCLUDE_DIRS,
        "obj_deps": OBJ_DEPS,
        "cflags": CORE_CFLAGS,
    })] + [cpu_library(cap) for cap in CONFIG["cpu_capabilities"]],
    cffi_modules=["tools/build_cffi.py:ffibuilder"],
    cmdclass={"build_clib": BuildClib, "build_ext": BuildExt},
    zip_safe=False,
)
