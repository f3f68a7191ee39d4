"""benchmarks/bench_ops.py in its quick mode: the table, the JSON, the chart and the paths that
read "n/a" (an operator pytensor lacks, a library that is not there). Neither torch nor matplotlib
is required: what needs them checks for them, and their absence is itself exercised."""

import importlib.util
import json
import math
import os
import sys

import pytest

import pytensor

from _torch_oracle import HAVE_TORCH

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


def _load_bench():
    spec = importlib.util.spec_from_file_location(
        "bench_ops", os.path.join(ROOT, "benchmarks", "bench_ops.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_ops"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = _load_bench()


@pytest.fixture
def keep_threads(monkeypatch):
    """The benchmark sets every library's thread count: give the rest of the suite its own back."""
    for var in bench.BLAS_THREAD_VARS:  # set when NumPy has not loaded yet
        if var in os.environ:
            monkeypatch.setenv(var, os.environ[var])
        else:
            monkeypatch.delenv(var, raising=False)
    pt_threads = pytensor.get_num_threads()
    torch = bench.import_optional("torch") if HAVE_TORCH else None  # the run imports it anyway
    torch_threads = torch.get_num_threads() if torch is not None else None
    path = bench.find_libblis(pytensor)
    blis = bench.Blis(path) if path else None
    blis_threads = blis.get_threads() if blis else None
    yield
    pytensor.set_num_threads(pt_threads)
    if torch is not None:
        torch.set_num_threads(torch_threads)
    if blis:
        blis.set_threads(blis_threads)


class Hiding:
    """pytensor with some attributes missing, as in a build that lacks those operators."""

    def __init__(self, module, hidden):
        self._module, self._hidden = module, set(hidden)

    def __getattr__(self, name):
        if name in self._hidden:
            raise AttributeError(name)
        return getattr(self._module, name)


def test_quick_run_prints_the_table_and_writes_the_numbers(tmp_path, capsys, keep_threads):
    out = tmp_path / "bench.json"
    result = bench.main(["--quick", "--threads", "1", "--json", str(out)])
    text = capsys.readouterr().out
    assert "pt/torch" in text and "pt/numpy" in text and "< 1 means pytensor is faster" in text
    assert "memcpy bandwidth of this run" in text
    assert "NumPy runs elementwise operators and reductions on one thread" in text
    saved = json.loads(out.read_text())
    assert saved["meta"]["threads"] == 1 and saved["meta"]["quick"] is True
    assert (saved["meta"]["torch"] is not None) == HAVE_TORCH
    groups = {r["group"] for r in saved["rows"]}
    assert groups == {"memory", "sgemm", "small"}
    assert [r["label"] for r in saved["rows"]] == [r["label"] for r in result["rows"]]
    sizes = {r["size"] for r in saved["rows"] if r["group"] == "small"}
    assert sizes == {str(n) for n in bench.QUICK.small}
    for row in saved["rows"]:
        assert row["label"] in text
        for lib, t in row["times"].items():
            # Every cell is a time or says why it is not.
            assert (t is not None and t > 0) or lib in row["missing"], (row["label"], lib)
        pt, torch_t = row["times"]["pytensor"], row["times"].get("torch")
        if pt and torch_t:
            assert math.isclose(row["ratio"]["torch"], pt / torch_t, rel_tol=1e-9)
            assert math.isclose(row["throughput"]["pytensor"], row["work"] / pt / 1e9,
                                rel_tol=1e-9)
    # add exists in every build: its rows have pytensor times, and read against the copy.
    add_rows = [r for r in saved["rows"] if r["op"] == "add"]
    assert add_rows and all(r["times"]["pytensor"] for r in add_rows)
    assert any("of copy bw" in " ".join(r["notes"]) for r in add_rows if r["group"] == "memory")
    # Operators this build lacks read n/a with the reason, and the run went on past them.
    for row in saved["rows"]:
        if row["group"] != "sgemm" and not hasattr(pytensor, row["op"]) and row["op"] != "copy":
            assert row["times"]["pytensor"] is None
            assert f"pytensor has no {row['op']} yet" in row["missing"]["pytensor"]
        if row["group"] == "sgemm":
            has_mm = hasattr(pytensor, "mm") or hasattr(pytensor, "matmul")
            assert (row["times"]["pytensor"] is not None) == has_mm, row["missing"]
            if not has_mm:
                assert row["missing"]["pytensor"] == "pytensor has no mm or matmul yet"


def test_an_operator_pytensor_lacks_reads_na_and_the_run_goes_on(capsys):
    import numpy as np
    args = bench.parse_args(["--quick", "--only", "add,copy"])
    libs = bench.Libs(pytensor=Hiding(pytensor, {"add"}), np=np)
    result = bench.run(args, libs)
    text = capsys.readouterr().out
    rows = {(r["label"], r["size"]): r for r in result["rows"]}
    adds = [r for r in result["rows"] if r["op"] == "add"]
    assert len(adds) == 2 + len(bench.QUICK.small)
    for row in adds:
        assert row["times"]["pytensor"] is None and row["times"]["numpy"] > 0
        assert row["missing"]["pytensor"] == "pytensor has no add yet"
        assert row["ratio"]["numpy"] is None
    copy = [r for r in rows.values() if r["op"] == "copy"]
    assert copy and copy[0]["times"]["pytensor"] > 0  # the rows after went on
    assert "pytensor has no add yet" in text and "n/a" in text


def test_without_torch_its_column_reads_na(capsys, keep_threads):
    result = bench.main(["--quick", "--threads", "1", "--libs", "pytensor,numpy", "--only",
                         "mul,sgemm"])
    text = capsys.readouterr().out
    assert result["meta"]["torch"] is None and result["meta"]["blis"] is None
    assert result["rows"]
    for row in result["rows"]:
        assert row["times"]["torch"] is None and row["ratio"]["torch"] is None
        assert row["missing"]["torch"] == "torch not loaded"
    mul = [r for r in result["rows"] if r["op"] == "mul"]
    assert mul and all(r["times"]["pytensor"] > 0 and r["times"]["numpy"] > 0 for r in mul)
    assert all(r["times"]["blis"] is None for r in result["rows"] if r["group"] == "sgemm")
    assert "torch n/a" in text


def test_bli_sgemm_through_ctypes_matches_numpy(keep_threads):
    np = pytest.importorskip("numpy")
    path = bench.find_libblis(pytensor)
    if path is None:
        pytest.skip("no libblis on this machine")
    blis = bench.Blis(path)
    rng = np.random.default_rng(5)
    # Three different extents: a stride mixed up between rows and columns would show.
    a = rng.standard_normal((7, 11), dtype=np.float32)
    b = rng.standard_normal((11, 5), dtype=np.float32)
    c = np.full((7, 5), np.nan, dtype=np.float32)
    blis.set_threads(1)
    blis.mm(7, 11, 5, a.ctypes.data, b.ctypes.data, c.ctypes.data)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    assert blis.get_threads() == 1


def test_linked_blis_is_the_one_pytensor_loaded():
    if not pytensor.has_blis:
        pytest.skip("this build has no BLIS")
    path = bench.find_libblis(pytensor)
    assert path is not None and "libblis" in os.path.basename(path)
    with open("/proc/self/maps", encoding="utf-8") as maps:
        assert os.path.realpath(path) in {os.path.realpath(line.split()[-1])
                                          for line in maps if "libblis" in line}


@pytest.mark.skipif(not HAVE_MPL, reason="matplotlib is not installed")
def test_png_chart_is_written(tmp_path, capsys, keep_threads):
    png = tmp_path / "chart.png"
    bench.main(["--quick", "--threads", "1", "--only", "add,small", "--png", str(png)])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"chart written to {png}" in capsys.readouterr().out


def test_png_without_matplotlib_says_so(tmp_path, capsys, monkeypatch, keep_threads):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    png = tmp_path / "chart.png"
    bench.main(["--quick", "--threads", "1", "--only", "copy", "--png", str(png)])
    assert "the chart needs matplotlib" in capsys.readouterr().out
    assert not png.exists()


@pytest.mark.parametrize("argv, message", [
    (["--only", "nope"], "--only: unknown nope"),
    (["--libs", "pytensor,jax"], "--libs: unknown jax"),
    (["--reps", "0"], "--reps must be at least 1"),
    (["--threads", "0"], "--threads must be at least 1"),
])
def test_bad_options_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit):
        bench.parse_args(argv)
    assert message in capsys.readouterr().err


def test_only_keeps_the_copy_reference_for_add_and_mul():
    cases = bench.memory_cases(bench.Libs(), bench.QUICK) + bench.small_cases(bench.Libs(),
                                                                            bench.QUICK)
    chosen = bench.selected(cases, {"mul"})
    assert chosen[0].op == "copy"
    assert {c.op for c in chosen} == {"copy", "mul"}
    assert {c.group for c in bench.selected(cases, {"small"})} == {"small"}


@pytest.mark.parametrize("seconds, text", [(2.5, "2.5 s"), (1.5e-3, "1.5 ms"), (4.25e-6, "4.25 us"),
                                           (1.23e-7, "123 ns"), (None, "n/a")])
def test_time_format(seconds, text):
    assert bench.fmt_time(seconds) == text


def test_calibrated_timing_warms_up_and_loops():
    calls = []
    per_call = bench.best_time_calibrated(lambda: calls.append(1), reps=3, target_s=1e-3)
    warm = len(calls) // 4  # warm-up plus three loops of the same count
    assert len(calls) == 4 * warm and warm >= 20
    assert 0 < per_call < 1e-3
