"""Builds pytensor: the C core as a static library, the cffi module that links it, and the CUDA
backend library when nvcc is present.

The core (csrc/core, csrc/kernels, csrc/ops and the operator code that tools/gen_ops.py generates
from csrc/ops/native_functions.yaml into build/generated before build_clib runs) is compiled by
build_clib with the project's flags (C11, -O3, -Wall -Wextra, -fvisibility=hidden so that only the
PT_API symbols of csrc/include/pytensor.h and the generated pt_ops.h are exported); the cffi module
(tools/build_cffi.py) only compiles cffi's generated wrapper and links the library. BLIS and OpenMP
come from tools/build_config.py, which prints one line for each.
PYTENSOR_CUDA=0 skips the CUDA library, PYTENSOR_CUDA=1 requires it. The C sources compile in
parallel (BuildClib, BuildExt), as many at once as PYTENSOR_BUILD_JOBS says or the CPUs allow.
"""
import concurrent.futures
import glob
import os
import sys
import threading

from setuptools import setup
from setuptools.command.build import build
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
                        + glob.glob("csrc/kernels/nn/*.h")
                        + glob.glob("csrc/core/*.h") + glob.glob("csrc/include/*.h")
                        + glob.glob("csrc/autograd/*.h"))
CORE_SOURCES = sorted(glob.glob("csrc/core/*.c") + glob.glob("csrc/kernels/*.c")
                      + glob.glob("csrc/kernels/nn/*.c")
                      + glob.glob("csrc/ops/*.c") + glob.glob("csrc/autograd/*.c")) + [
    os.path.join(GENERATED, "pt_ops.c"), os.path.join(GENERATED, "pt_autograd.c")]
# What build_clib cannot see by itself: the headers a source includes. Objects are rebuilt one by
# one (BuildClib), so each core object depends on every header it may read, the generated ones
# included: a changed header recompiles the core rather than leaving objects of the old layout.
OPS_DEPS = [os.path.join(GENERATED, "pt_ops.h"), os.path.join(GENERATED, "pt_ops_internal.h")]
OBJ_DEPS = {"": KERNEL_HEADERS + sorted(glob.glob("csrc/ops/*.h")) + OPS_DEPS}
CORE_CFLAGS = ["-std=c11", "-O3", "-Wall", "-Wextra", "-fvisibility=hidden", "-D_GNU_SOURCE",
               f'-DPT_VERSION="{VERSION["__version__"]}"', *CONFIG["cflags"],
               *build_config.DEBUG_INFO_FLAGS]
INCLUDE_DIRS = ["csrc/include", "csrc/core", "csrc/autograd", "csrc/ops", "csrc/kernels", GENERATED]


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


def build_jobs() -> int:
    """How many compilers run at once: PYTENSOR_BUILD_JOBS, else the CPUs this process may use."""
    if os.environ.get("PYTENSOR_BUILD_JOBS", "").isdigit():
        return max(1, int(os.environ["PYTENSOR_BUILD_JOBS"]))
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _stale(obj: str, inputs: list) -> bool:
    if not os.path.exists(obj):
        return True
    built = os.path.getmtime(obj)
    return any(os.path.getmtime(p) > built for p in inputs)


class BuildClib(build_clib):
    """build_clib that first generates the operator code from the declarations, then compiles the
    objects of every library (the core and one kernel library per CPU capability, ~90 translation
    units) on a pool of build_jobs() threads, each running one compiler process.

    setuptools' own build_libraries compiles one library at a time, one file at a time, and
    recompiles a whole library when any of its objects is stale; here each object is checked
    against its own source and obj_deps, and only stale ones are compiled. Compiler output goes
    straight to the terminal (warnings stay visible; lines of two compilers may interleave); a
    failed compile cancels the sources not yet started and fails the build."""

    def run(self):
        gen_ops.generate()
        super().run()

    def build_libraries(self, libraries):
        jobs = []
        for lib_name, info in libraries:
            sources = sorted(info["sources"])
            objects = self.compiler.object_filenames(sources, output_dir=self.build_temp)
            deps = info.get("obj_deps", {})
            for src, obj in zip(sources, objects):
                inputs = [src, *deps.get("", []), *deps.get(src, [])]
                if self.force or _stale(obj, inputs):
                    # The largest C first (a kernel wrapper weighs what it includes): the longest
                    # compiles start early, so the pool's threads finish close together.
                    weight = sum(os.path.getsize(p) for p in inputs if p.endswith(".c"))
                    jobs.append((weight, src, info))
                    os.makedirs(os.path.dirname(obj), exist_ok=True)
        jobs.sort(key=lambda job: -job[0])
        workers = min(build_jobs(), len(jobs)) or 1
        if jobs:
            print(f"pytensor: compiling {len(jobs)} C sources, {workers} at a time", flush=True)

        def compile_one(job):
            _, src, info = job
            self.compiler.compile([src], output_dir=self.build_temp, macros=info.get("macros"),
                                  include_dirs=info.get("include_dirs"),
                                  extra_postargs=info.get("cflags"), debug=self.debug)

        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(compile_one, job) for job in jobs]
            try:
                for future in futures:
                    future.result()  # re-raises the compile error of a failed source
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        for lib_name, info in libraries:
            objects = self.compiler.object_filenames(sorted(info["sources"]),
                                                     output_dir=self.build_temp)
            self.compiler.create_static_lib(objects, lib_name, output_dir=self.build_clib,
                                            debug=self.debug)


class Build(build):
    """`build` (what pip runs) without its own build_clib step: build_ext runs it, beside the
    module's compile on a fresh build."""

    sub_commands = [cmd for cmd in build.sub_commands if cmd[0] != "build_clib"]


class BuildExt(build_ext):
    """build_ext that runs build_clib, and also builds the CUDA backend library beside the module.

    A fresh build (no module yet) compiles the module's own C — cffi's wrappers and the Python
    fast paths, one large translation unit — while build_clib compiles the core, and links once
    the libraries are there. A rebuild runs build_clib first, so that the module's up-to-date
    check sees the libraries as they will be linked."""

    _clib_thread = None
    _clib_error = None

    def run(self):
        # build_ext alone (an in-place build) does not run build_clib; `build` does. Run it here,
        # and make the module depend on the library so that a changed core relinks it.
        clib = self.get_finalized_command("build_clib")
        for ext in self.extensions:
            ext.depends = list(ext.depends) + [
                os.path.join(clib.build_clib, f"lib{name}.a")  # the unix compiler's name
                for name in clib.get_library_names()]
        fresh = not all(os.path.exists(self.get_ext_fullpath(e.name)) for e in self.extensions)
        if fresh and not self.dry_run:
            self._clib_thread = threading.Thread(target=self._run_clib, name="build_clib")
            self._clib_thread.start()
        else:
            self.run_command("build_clib")
        try:
            super().run()
        finally:
            self._wait_clib()
        import build_cuda
        if self.inplace:
            out_dir = os.path.join(ROOT, "pytensor", "_C")
        else:
            out_dir = os.path.join(self.build_lib, "pytensor", "_C")
        os.makedirs(out_dir, exist_ok=True)
        build_cuda.build_cuda_library(os.path.join(out_dir, "libpytensor_cuda.so"),
                                      verbose=self.verbose)

    def _run_clib(self):
        try:
            self.run_command("build_clib")
        except BaseException as e:  # handed to the main thread by _wait_clib
            self._clib_error = e

    def _wait_clib(self):
        if self._clib_thread is not None:
            self._clib_thread.join()
            self._clib_thread = None
        if self._clib_error is not None:
            error, self._clib_error = self._clib_error, None
            raise error

    def build_extensions(self):
        link = self.compiler.link

        def link_after_clib(*args, **kwargs):
            self._wait_clib()
            return link(*args, **kwargs)

        self.compiler.link = link_after_clib
        super().build_extensions()


setup(
    version=VERSION["__version__"],
    packages=["pytensor", "pytensor._C", "pytensor.autograd", "pytensor.backends", "pytensor.cuda",
              "pytensor.nn", "pytensor.nn.modules", "pytensor.nn.utils",
              "pytensor.utils", "pytensor.utils.data", "pytensor.utils.data._utils",
              "pytensor.multiprocessing", "pytensor.optim"],
    libraries=[("pytensor_core", {
        "sources": CORE_SOURCES,
        "include_dirs": INCLUDE_DIRS,
        "obj_deps": OBJ_DEPS,
        "cflags": CORE_CFLAGS,
    })] + [cpu_library(cap) for cap in CONFIG["cpu_capabilities"]],
    cffi_modules=["tools/build_cffi.py:ffibuilder"],
    cmdclass={"build": Build, "build_clib": BuildClib, "build_ext": BuildExt},
    zip_safe=False,
)
