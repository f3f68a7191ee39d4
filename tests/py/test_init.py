"""Start-up: the init report, the registries, `python -m pytensor`, the config facts, memory
counters, the error mapping and what `import pytensor` imports."""

import os
import subprocess
import sys

import pytest

import pytensor
from pytensor import _C
from pytensor._C import ffi, lib

PHASES = ["load-time records", "cpu capability", "cpu kernels", "dtypes", "devices", "blas", "onednn",
          "generators", "operators", "backends"]


def _run(*args: str) -> str:
    # The child imports the pytensor this process imported (installed or built in place), from a
    # folder that holds no other pytensor.
    home = os.path.dirname(os.path.dirname(os.path.abspath(pytensor.__file__)))
    env = dict(os.environ, PYTHONPATH=home + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True,
                          env=env, cwd=os.path.dirname(home)).stdout


def test_import_does_not_import_numpy():
    out = _run("-c", "import sys, pytensor; print('numpy' in sys.modules)")
    assert out.strip() == "False"


def test_init_report_lists_the_phases_in_order():
    report = _C._init_report()
    names = [p["name"] for p in report["phases"]]
    assert [n for n in names if n in PHASES] == PHASES
    assert names[-1] == "total"
    for p in report["phases"]:
        assert set(p) == {"name", "us", "count", "detail"}
        assert p["us"] >= 0 and isinstance(p["count"], int) and isinstance(p["detail"], str)
    total = report["phases"][-1]["us"]
    assert sum(p["us"] for p in report["phases"][:-1]) <= total * 1.01 + 1


def test_init_report_counts_the_registered_records():
    report = _C._init_report()
    records = next(p for p in report["phases"] if p["name"] == "load-time records")
    assert 0 < records["count"] <= sum(len(v) for v in _C._registries().values())


def test_init_report_config_holds_the_build_facts():
    config = _C._init_report()["config"]
    assert config["version"] == pytensor.__version__
    assert config["cpu_capability"] in ("default", "avx2", "avx512")
    for key in ("cpu_capability_detected", "blis", "onednn", "openmp", "compiler"):
        assert key in config
    assert config["cpu_capability"] == \
        ffi.string(lib.pt_cpu_capability_name(lib.pt_cpu_capability())).decode()


def test_pt_init_again_is_harmless():
    assert lib.pt_init(ffi.NULL) == 0
    assert len(_C._init_report()["phases"]) == lib.pt_init_phase_count()


def test_registries_list_themselves_and_their_entries():
    regs = _C._registries()
    assert "registry" in regs
    assert {e["key"] for e in regs["registry"]} == set(regs)
    for name in ("allocator", "device_guard", "generator", "copy_bytes"):
        assert name in regs and regs[name], name
    assert "cpu" in {e["key"] for e in regs["allocator"]}
    for entries in regs.values():
        for e in entries:
            assert set(e) == {"key", "help", "file", "line"}
            assert e["file"].startswith("csrc/") and e["line"] > 0
        keys = [e["key"] for e in entries]
        assert keys == sorted(keys)


def test_python_dash_m_prints_the_report():
    out = _run("-m", "pytensor")
    assert out.startswith(f"pytensor {pytensor.__version__}")
    for phase in PHASES + ["total"]:
        assert phase in out
    cap = _C._config()["cpu_capability"]
    assert f"cpu capability: {cap}" in out
    assert "blis: " in out and "openmp: " in out and "cuda available: " in out
    for name, entries in _C._registries().items():
        assert any(line.split()[:3] == [name, str(len(entries)), "keys"]
                   for line in out.splitlines()), name


def test_config_show_prints_every_fact(capsys):
    assert pytensor.__config__.show() is None
    out = capsys.readouterr().out
    assert out.startswith("pytensor built with:")
    for key, value in _C._config().items():
        assert key in out and value in out


def test_feature_flags_follow_the_config():
    config = _C._config()
    assert pytensor.has_blis == (config["blis"] != "no")
    assert pytensor.has_onednn == (config["onednn"] != "no")
    assert pytensor.has_openmp == (config["openmp"] == "yes")
    assert isinstance(pytensor.has_cuda, bool)
    assert isinstance(pytensor.__version__, str)


def test_memory_stats_rise_and_fall():
    before = pytensor.memory_stats("cpu")
    assert set(before) == {"bytes_in_use", "peak_bytes", "allocations", "frees",
                           "bytes_cached"}
    s = pytensor.UntypedStorage(3 << 20)
    during = pytensor.memory_stats()
    assert during["bytes_in_use"] >= before["bytes_in_use"] + (3 << 20)
    assert during["allocations"] == before["allocations"] + 1
    assert during["peak_bytes"] >= during["bytes_in_use"]
    del s
    after = pytensor.memory_stats(pytensor.device("cpu"))
    assert after["bytes_in_use"] == before["bytes_in_use"]
    assert after["frees"] == before["frees"] + 1
    assert after["peak_bytes"] >= during["bytes_in_use"]
    pytensor.reset_peak_memory_stats()
    assert pytensor.memory_stats()["peak_bytes"] == pytensor.memory_stats()["bytes_in_use"]


def test_memory_stats_names_its_argument():
    with pytest.raises(TypeError, match="^device: "):
        pytensor.memory_stats(1.5)


@pytest.mark.parametrize("code, exc", [
    (lib.PT_ERR_VALUE, ValueError), (lib.PT_ERR_TYPE, TypeError), (lib.PT_ERR_INDEX, IndexError),
    (lib.PT_ERR_MEMORY, MemoryError), (lib.PT_ERR_NOT_IMPLEMENTED, NotImplementedError),
    (lib.PT_ERR_RUNTIME, RuntimeError),
])
def test_errors_map_to_exception_classes_with_their_c_location(code, exc):
    st = lib.pt_error_raise(code, b"csrc/core/example.c", 42, b"thing: went wrong")
    assert st == code
    with pytest.raises(exc, match="^thing: went wrong$") as info:
        _C._check(st)
    assert type(info.value) is exc
    assert info.value.c_location == "csrc/core/example.c:42"
    assert lib.pt_error_code() == 0


def test_check_passes_on_ok():
    assert _C._check(0) is None


def test_a_real_c_error_carries_its_location():
    with pytest.raises(RuntimeError) as info:
        pytensor.device("nonsense")
    file, line = info.value.c_location.rsplit(":", 1)
    assert file == "csrc/core/device.c" and int(line) > 0


def test_keepalive_handle_is_dropped_when_the_storage_dies():
    owner = bytearray(b"abcd")
    buf = ffi.from_buffer(owner)
    handle = _C._keep((owner, buf))
    key = int(ffi.cast("uintptr_t", handle))
    out = ffi.new("pt_storage **")
    cpu = ffi.new("pt_device *", {"type": lib.PT_DEV_CPU, "index": 0})
    _C._check(lib.pt_storage_from_external(buf, 4, lib.PT_UINT8, cpu[0],
                                           lib.pt_py_release_handle, handle, 1, out))
    assert key in _C._keepalive
    storage = pytensor.UntypedStorage._new_wrapping(out[0])
    del handle
    assert storage.tolist() == list(b"abcd")
    storage[0] = 0x41
    assert owner[0] == 0x41
    del storage
    assert key not in _C._keepalive


def test_capsule_helpers_are_declared():
    names = {(v, u): ffi.string(lib.pt_py_capsule_name(v, u)).decode()
             for v in (0, 1) for u in (0, 1)}
    assert names == {(0, 0): "dltensor", (0, 1): "used_dltensor",
                     (1, 0): "dltensor_versioned", (1, 1): "used_dltensor_versioned"}
    assert lib.pt_py_capsule_destructor(0) != ffi.NULL


def test_module_objects_are_built():
    for name in ("float32", "int64", "device", "Size", "strided", "contiguous_format",
                 "UntypedStorage", "FloatStorage", "Generator", "default_generator", "Tensor"):
        assert hasattr(pytensor, name), name


MINE = {"pytensor": "__init__.py", "pytensor._dtype": "_dtype.py",
        "pytensor._device": "_device.py", "pytensor._storage": "_storage.py",
        "pytensor._generator": "_generator.py", "pytensor.cuda": "cuda/__init__.py",
        "pytensor.__config__": "__config__.py", "pytensor._C": "_C/__init__.py"}


@pytest.mark.parametrize("module", sorted(MINE))
def test_docstring_examples_run(module, tmp_path, monkeypatch):
    import doctest
    import importlib
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    m = importlib.import_module(module)
    globs = dict(vars(m), pytensor=pytensor)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    # The package namespace also holds the other modules' objects: run only this part's files.
    files = tuple(os.path.join("pytensor", f) for f in MINE.values())
    tests = [t for t in doctest.DocTestFinder().find(m, module, globs=globs)
             if t.examples and t.filename and t.filename.endswith(files)]
    assert tests
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
