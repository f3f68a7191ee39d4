"""The cffi builder for pytensor._C._core (API / out-of-line mode).

The cdef is csrc/include/pytensor.h itself after a mechanical strip: preprocessor lines, the
`extern "C"` block that only C++ sees, and the PT_API visibility token are removed, nothing else,
so no declaration is written twice. What Python alone needs from C — the deleter that drops a
Python object kept alive by external storage, and the PyCapsule destructor for DLPack capsules —
is declared below, because only this module (which includes Python.h) can provide it.

The operators' unboxed entry points are declared in pt_ops.h, which tools/gen_ops.py generates
from csrc/ops/native_functions.yaml (into build/generated); it is stripped the same way and
follows pytensor.h in the cdef.

The core's sources are not compiled here: setup.py builds them into a static library with the
project's own warning flags, and this module links it. What is compiled here besides cffi's
wrappers is csrc/python/pt_python*.c with the thunks tools/gen_pyfast.py generates (Note [Python
fast paths]): the Tensor base type and the operators' C callers, which use CPython's full API
(vectorcall, method descriptors, static types). The module is therefore built for the running
CPython version rather than for the stable ABI (py_limited_api=False, _CFFI_NO_LIMITED_API).
"""
from __future__ import annotations

import os
import re

import cffi

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, "csrc", "include", "pytensor.h")

PYTHON_CDEF = """
extern "Python" void pt_py_release_handle(void *ctx);
extern "Python" pt_status pt_py_grad_hook(void *ctx, pt_tensor *grad, pt_tensor **replacement);
extern "Python" pt_status pt_py_custom_apply(void *ctx, int32_t n_grads, pt_tensor *const *grads,
                                             int32_t n_outs, pt_tensor **outs);
extern "Python" void pt_py_anomaly_trace(char *buf, size_t cap);
extern "Python" pt_status pt_py_node_hook(void *ctx, int32_t n_grad_inputs, pt_tensor **grad_inputs,
                                          int32_t n_grad_outputs, pt_tensor **grad_outputs);
extern "Python" pt_status pt_py_post_acc_hook(void *ctx, pt_tensor *leaf, pt_tensor **replacement);
extern "Python" void pt_py_custom_release_saved(void *ctx);
extern "Python" pt_status pt_py_saved_pack(void *ctx, pt_tensor *t, void **packed);
extern "Python" pt_status pt_py_saved_unpack(void *ctx, void *packed, pt_tensor **out);
extern "Python" pt_status pt_py_boxed_kernel(const pt_op *op, int32_t key, uint64_t keyset,
                                             pt_stack *stack, void *ctx);
void *pt_py_capsule_destructor(int32_t versioned);
int pt_py_install(void);
pt_status pt_py_fast_kernel(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                            void *ctx);
const char *pt_py_capsule_name(int32_t versioned, int32_t used);
"""

# The parts of the module's C source, one translation unit, in the order PYTHON_SOURCE includes them.
PYTHON_PARTS = ("pt_python.c", "pt_python_callers.c", "pt_python_module.c")
# Files those parts include themselves.
PYTHON_INCLUDED = ("pt_python_args.c", "pt_python_index.c")

PYTHON_SOURCE = r"""
#include <string.h>

#include "pytensor.h"
#include "pt_ops.h"
#include "pt_python.c"
#include "pt_python_callers.c"
#include "pt_python_module.c"

static void pt_py_release_handle(void *ctx);
static pt_status pt_py_boxed_kernel(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                    void *ctx);

/* A DLPack capsule that was never consumed still owns its managed tensor (DLPack's rule): free it
 * through its deleter. A consumed one was renamed to "used_..." and is left alone. */
static void capsule_destructor_unversioned(PyObject *capsule)
{
    if (!PyCapsule_IsValid(capsule, "dltensor")) return;
    pt_dl_managed_tensor *m = (pt_dl_managed_tensor *)PyCapsule_GetPointer(capsule, "dltensor");
    if (m && m->deleter) m->deleter(m);
}

static void capsule_destructor_versioned(PyObject *capsule)
{
    if (!PyCapsule_IsValid(capsule, "dltensor_versioned")) return;
    pt_dl_managed_tensor_versioned *m =
        (pt_dl_managed_tensor_versioned *)PyCapsule_GetPointer(capsule, "dltensor_versioned");
    if (m && m->deleter) m->deleter(m);
}

static void *pt_py_capsule_destructor(int32_t versioned)
{
    return versioned ? (void *)capsule_destructor_versioned : (void *)capsule_destructor_unversioned;
}

static const char *pt_py_capsule_name(int32_t versioned, int32_t used)
{
    static const char *const names[2][2] = {{"dltensor", "used_dltensor"},
                                            {"dltensor_versioned", "used_dltensor_versioned"}};
    return names[versioned != 0][used != 0];
}
"""


def stripped_header(path: str = HEADER) -> str:
    """The header as cffi's cdef reads it (see the module docstring)."""
    out = []
    skip_depth = 0
    depth = 0
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if s.startswith("#"):
            if s.startswith(("#if", "#ifdef", "#ifndef")):
                depth += 1
                if "__cplusplus" in s and not skip_depth:
                    skip_depth = depth
            elif s.startswith("#endif"):
                if skip_depth == depth:
                    skip_depth = 0
                depth -= 1
            continue
        if skip_depth:
            continue
        out.append(re.sub(r"\bPT_API\s+", "", line))
    return "".join(out)


def _ops_header() -> tuple:
    """(the folder holding the generated pt_ops.h, its stripped text), generating it when the
    declarations changed (the generator writes nothing otherwise)."""
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    import gen_ops
    gen_ops.generate()
    return gen_ops.OUT, stripped_header(os.path.join(gen_ops.OUT, "pt_ops.h"))


def make_ffibuilder(libraries=(), library_dirs=(), extra_link_args=(), define_macros=(),
                    extra_compile_args=()):
    ffi = cffi.FFI()
    ops_dir, ops_cdef = _ops_header()
    ffi.cdef(stripped_header() + ops_cdef + PYTHON_CDEF)
    ffi.set_source(
        "pytensor._C._core",
        PYTHON_SOURCE,
        include_dirs=[os.path.join(ROOT, "csrc", "include"), os.path.join(ROOT, "csrc", "python"),
                      ops_dir],
        depends=[*(os.path.join(ROOT, "csrc", "python", f)
                   for f in PYTHON_PARTS + PYTHON_INCLUDED),
                 os.path.join(ops_dir, "pt_pyfast.c"), os.path.join(ops_dir, "pt_ops.h")],
        py_limited_api=False,
        libraries=list(libraries),
        library_dirs=list(library_dirs),
        extra_link_args=list(extra_link_args),
        extra_compile_args=list(extra_compile_args),
        define_macros=[*define_macros, ("_CFFI_NO_LIMITED_API", None)],
    )
    return ffi


def _ffibuilder():
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    import build_config  # one detection per build, shared with setup.py (detect() memoizes)
    config = build_config.detect()
    # The kernel libraries (one per CPU capability) sit between two mentions of the core: the core
    # refers to their tables, and they may call back into the core.
    cpu_libs = [f"pytensor_cpu_{cap}" for cap in config["cpu_capabilities"]]
    libs = (["pytensor_core"] + cpu_libs + ["pytensor_core"]
            + [a[2:] for a in config["libs"] if a.startswith("-l")])
    link_args = [a for a in config["libs"] if not a.startswith("-l")]
    return make_ffibuilder(libraries=libs + ["m", "pthread", "dl"], extra_link_args=link_args,
                           extra_compile_args=build_config.DEBUG_INFO_FLAGS)


# setup.py names this through cffi_modules ("tools/build_cffi.py:ffibuilder").
if __name__ == "__cffi__":
    ffibuilder = _ffibuilder()
