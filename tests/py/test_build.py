"""The build's promises: only pt_* symbols exported, the cdef is the header, versions agree."""
import os
import re
import shutil
import subprocess

import pytest

import pytensor
from pytensor._C import _core, lib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = os.path.join(ROOT, "csrc", "include", "pytensor.h")


@pytest.mark.skipif(shutil.which("nm") is None, reason="nm not installed")
def test_module_exports_only_pt_symbols_and_its_init():
    out = subprocess.run(["nm", "-D", "--defined-only", _core.__file__], capture_output=True,
                         text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines()
             if len(line.split()) == 3 and line.split()[1] in "TDBR"]
    assert "PyInit__core" in names
    stray = [n for n in names if not n.startswith("pt_") and n != "PyInit__core"
             and not n.startswith("_")]
    assert stray == []
    assert "pt_init" in names and "pt_tensor_empty" in names


@pytest.mark.skipif(not os.path.exists(HEADER), reason="source tree not available")
def test_every_header_function_is_reachable_through_cffi():
    text = open(HEADER).read()
    declared = set(re.findall(r"PT_API\s+[^;(]*?\b(pt_\w+)\s*\(", text))
    assert len(declared) > 100
    missing = sorted(n for n in declared if not hasattr(lib, n))
    assert missing == []


def test_c_core_version_matches_the_package():
    from pytensor._C import ffi
    out = ffi.new("const char **")
    assert lib.pt_config_get(b"version", out) == 0
    assert ffi.string(out[0]).decode() == pytensor.__version__
