"""Builds the CUDA backend, libpytensor_cuda.so, from csrc/cuda with nvcc.

setup.py calls build_cuda_library() after the extension is built and puts the library beside it,
where pt_init() looks for it. The library links the CUDA runtime statically (`-cudart static`), so
it needs only the NVIDIA driver at run time, and exports one symbol, pt_cuda_backend_entry (hidden
visibility plus a version script: the static runtime's own symbols stay inside). `-z defs` makes
an undefined symbol a link error: the library must reach the core only through the table it is
handed, never by linking against it.

PYTENSOR_CUDA=0 skips the build; PYTENSOR_CUDA=1 makes a missing nvcc or a failed build an error;
unset, a machine without nvcc simply gets no CUDA backend (import still works).
Run it directly to build into a folder: `python3 tools/build_cuda.py OUT_DIR`.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY = "libpytensor_cuda.so"
ENTRY = "pt_cuda_backend_entry"

C_FLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-fPIC", "-fvisibility=hidden", "-D_GNU_SOURCE"]
CU_FLAGS = ["-std=c++17", "-O3", "-Xcompiler", "-fPIC,-fvisibility=hidden"]
INCLUDES = ["-Icsrc/include", "-Icsrc/core"]


def find_nvcc() -> str | None:
    """nvcc from $NVCC, $CUDA_HOME, /usr/local/cuda or PATH."""
    candidates = [os.environ.get("NVCC")]
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            candidates.append(os.path.join(home, "bin", "nvcc"))
    candidates.append(shutil.which("nvcc"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def _sources() -> list[str]:
    return sorted(glob.glob("csrc/cuda/*.c", root_dir=ROOT) + glob.glob("csrc/cuda/*.cu", root_dir=ROOT))


def _up_to_date(out_path: str, sources: list[str]) -> bool:
    if not os.path.exists(out_path):
        return False
    inputs = sources + glob.glob("csrc/cuda/*.h", root_dir=ROOT) + [
        "csrc/core/backend.h", "csrc/core/internal.h", "csrc/include/pytensor.h",
        os.path.relpath(__file__, ROOT)]
    built = os.path.getmtime(out_path)
    return all(os.path.getmtime(os.path.join(ROOT, p)) <= built for p in inputs)


def _commands(nvcc: str, sources: list[str], tmp: str, out_path: str) -> list[list[str]]:
    objects, commands = [], []
    for src in sources:
        obj = os.path.join(tmp, os.path.basename(src) + ".o")
        objects.append(obj)
        if src.endswith(".cu"):
            commands.append([nvcc, "-c", *CU_FLAGS, *INCLUDES, src, "-o", obj])
        else:  # nvcc hands .c files to the host compiler in C mode
            commands.append([nvcc, "-c", "-Xcompiler", ",".join(C_FLAGS), *INCLUDES, src, "-o", obj])
    script = os.path.join(tmp, "exports.map")
    with open(script, "w") as f:
        f.write("{ global: %s; local: *; };\n" % ENTRY)
    commands.append([nvcc, "-shared", "-cudart", "static", "-o", out_path, *objects,
                     "-Xlinker", f"--version-script={script}", "-Xlinker", "-z,defs"])
    return commands


def build_cuda_library(out_path: str, verbose: bool = False) -> bool:
    """Builds libpytensor_cuda.so at out_path; True when it is there and current.

    When the library cannot be built and PYTENSOR_CUDA is not "1", prints one line saying why
    and returns False; with PYTENSOR_CUDA=1 it raises RuntimeError instead.

    >>> build_cuda_library("build/libpytensor_cuda.so")  # doctest: +SKIP
    True
    """
    mode = os.environ.get("PYTENSOR_CUDA", "").strip()
    required = mode == "1"

    def give_up(reason: str) -> bool:
        if required:
            raise RuntimeError(f"PYTENSOR_CUDA=1 but the CUDA backend cannot be built: {reason}")
        print(f"pytensor: CUDA backend not built: {reason}", file=sys.stderr)
        return False

    if mode == "0":
        return give_up("PYTENSOR_CUDA=0")
    nvcc = find_nvcc()
    if nvcc is None:
        return give_up("nvcc not found (set CUDA_HOME or NVCC, or put nvcc on PATH)")
    sources = _sources()
    if not sources:
        return give_up("no sources in csrc/cuda")
    out_path = os.path.abspath(out_path)
    if _up_to_date(out_path, sources):
        return True
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        partial = os.path.join(tmp, LIBRARY)
        for cmd in _commands(nvcc, sources, tmp, partial):
            if verbose:
                print(" ".join(cmd))
            try:
                run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            except OSError as e:
                return give_up(f"cannot run {nvcc}: {e}")
            if run.returncode != 0:
                lines = (run.stderr or run.stdout).strip().splitlines()
                if verbose:
                    print(run.stdout + run.stderr, file=sys.stderr)
                return give_up(f"{os.path.basename(cmd[0])} failed: {lines[0] if lines else 'no output'}")
            if verbose and (run.stdout or run.stderr):
                print(run.stdout + run.stderr)
        shutil.move(partial, out_path)  # the final name appears only once the link succeeded
    return True


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build_cuda.py OUT_DIR")
    ok = build_cuda_library(os.path.join(sys.argv[1], LIBRARY), verbose=True)
    sys.exit(0 if ok else 1)
