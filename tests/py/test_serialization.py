"""pytensor.save / pytensor.load: torch's zip checkpoint format, both ways.

Without torch: the files tests/py/data/make_torch_files.py wrote with torch load to exact
arange-based values (with sharing, offsets and strides kept), pytensor.save writes the same bytes
as that torch file (all but the random serialization id), round trips of every dtype, the zip
layout, weights_only refusals, map_location forms, damaged files. With torch: files go both ways
and errors match torch's texts.
"""
from __future__ import annotations

import io
import math
import os
import pathlib
import pickle
import struct
import zipfile
from collections import OrderedDict

import pytest

import pytensor
from pytensor import serialization
from _torch_oracle import requires_torch, torch

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]


# ---------------------------------------------------------------- the values the data files hold
def per_dtype(lib, name: str):
    dt = getattr(lib, name)
    if dt.is_complex:
        return lib.tensor([complex(i, 5 - i) for i in range(6)], dtype=dt).reshape(2, 3)
    if dt is lib.bool:
        return (lib.arange(6) % 2 == 1).reshape(2, 3)
    return lib.arange(6).to(dt).reshape(2, 3)


def state_dict(lib) -> OrderedDict:
    """The state dict of make_torch_files.py, built with ``lib`` (pytensor or torch)."""
    sd = OrderedDict()
    for name in DTYPES:
        sd[f"dtype.{name}"] = per_dtype(lib, name)
    base = lib.arange(12, dtype=lib.float32)
    sd["shared.base"] = base
    sd["shared.rows"] = base.view(4, 3)[1:3]
    sd["shared.t"] = base.view(3, 4).t()
    sd["shared.step"] = base[2::3]
    sd["scalar"] = lib.tensor(7.5, dtype=lib.float64)
    sd["empty"] = lib.empty(0, 3)
    sd["param"] = lib.nn.Parameter(lib.arange(4, dtype=lib.float32))
    sd["frozen"] = lib.nn.Parameter(lib.arange(3, dtype=lib.float32), requires_grad=False)
    sd["grad"] = lib.arange(2, dtype=lib.float32).requires_grad_()
    sd._metadata = OrderedDict([("", {"version": 1}), ("layer", {"version": 2})])
    return sd


def _ptr(t) -> int:
    return t.untyped_storage().data_ptr()


def check_state_dict(sd, expected_type=pytensor.Tensor) -> None:
    """``sd`` (loaded) equals state_dict(pytensor) in values, dtypes, layout and sharing."""
    want = state_dict(pytensor)
    assert list(sd.keys()) == list(want.keys())
    assert sd._metadata == want._metadata
    for k, w in want.items():
        got = sd[k]
        assert isinstance(got, expected_type), k
        assert got.dtype == w.dtype and tuple(got.shape) == tuple(w.shape), k
        assert got.stride() == w.stride() and got.storage_offset() == w.storage_offset(), k
        assert got.tolist() == w.tolist(), k
        assert got.requires_grad == w.requires_grad, k
    base = _ptr(sd["shared.base"])
    assert all(_ptr(sd[k]) == base for k in ("shared.rows", "shared.t", "shared.step"))
    assert sd["shared.base"].untyped_storage().nbytes() == 48
    assert type(sd["param"]) is pytensor.nn.Parameter and sd["param"].requires_grad
    assert type(sd["frozen"]) is pytensor.nn.Parameter and not sd["frozen"].requires_grad
    assert type(sd["grad"]) is pytensor.Tensor and sd["grad"].is_leaf
    sd["shared.base"][4] = 100.0  # one storage: the views see the write
    assert sd["shared.rows"][0, 1].item() == 100.0 and sd["shared.t"][0, 1].item() == 100.0


# ---------------------------------------------------------------- files torch wrote (no torch)
def test_load_torch_state_dict_file():
    check_state_dict(pytensor.load(os.path.join(DATA, "torch_state_dict.pt")))


def test_load_torch_file_mmap_and_weights_only_false():
    path = os.path.join(DATA, "torch_state_dict.pt")
    check_state_dict(pytensor.load(path, mmap=True))
    check_state_dict(pytensor.load(pathlib.Path(path), weights_only=False))


def test_load_torch_file_from_bytesio():
    with open(os.path.join(DATA, "torch_state_dict.pt"), "rb") as fh:
        check_state_dict(pytensor.load(io.BytesIO(fh.read())))


def test_load_torch_legacy_file():
    got = pytensor.load(os.path.join(DATA, "torch_legacy.pt"))
    assert got["list"][0].tolist() == [0, 1, 2, 3] and got["list"][0].dtype == pytensor.int64
    tail = got["list"][1][0]
    assert tail.tolist() == [5, 6, 7, 8, 9] and tail.storage_offset() == 5
    assert _ptr(tail) == _ptr(got["list"][0])
    assert got["list"][1][1]["deep"].tolist() == [1.5, -2.0]
    assert (got["n"], got["s"], got["f"], got["none"]) == (3, "text", 0.25, None)


def _refusal(full_path: str) -> str:
    return ("Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint"
            f"\033[0m. \n\t(1) {serialization.UNSAFE_MESSAGE}\n\t(2) Alternatively, to load "
            "with `weights_only=True` please check the recommended steps in the following error "
            "message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL "
            f"{full_path} was not an allowed global by default. Please use "
            f"`torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist "
            "this global if you trust this class/function.\n\nCheck the documentation of "
            "torch.load to learn more about types accepted by default with weights_only "
            "https://pytorch.org/docs/stable/generated/torch.load.html.")


def test_weights_only_refuses_unknown_globals():
    path = os.path.join(DATA, "torch_unsafe.pt")
    with pytest.raises(pickle.UnpicklingError) as e:
        pytensor.load(path)
    assert str(e.value) == _refusal("math.sqrt")
    assert pytensor.load(path, weights_only=False)["fn"] is math.sqrt
    with serialization.safe_globals([math.sqrt]):
        assert serialization.get_safe_globals() == [math.sqrt]
        assert pytensor.load(path)["fn"] is math.sqrt
    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([math.sqrt])
    try:
        assert pytensor.load(path)["w"].tolist() == [1.0, 1.0]
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


class _Custom:
    pass


def test_weights_only_refusal_texts():
    buf = io.BytesIO()
    pytensor.save({"f": print}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError) as e:
        pytensor.load(buf)
    assert str(e.value) == _refusal("print")
    buf = io.BytesIO()
    pytensor.save([_Custom()], buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL test_serialization._Custom was not"):
        pytensor.load(buf)
    buf.seek(0)
    with serialization.safe_globals([_Custom]):
        assert isinstance(pytensor.load(buf)[0], _Custom)
    buf = io.BytesIO()
    pytensor.save([os.getcwd], buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="whose module posix is blocked"):
        pytensor.load(buf)


def test_load_argument_errors():
    buf = io.BytesIO()
    pytensor.save([1], buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="^Can not safely load weights when explicit "
                                           "pickle_module is specified$"):
        pytensor.load(buf, pickle_module=pickle, weights_only=True)
    assert pytensor.load(buf, pickle_module=pickle) == [1]
    buf.seek(0)
    with pytest.warns(UserWarning, match="pickle_load_args only works if"):
        pytensor.load(buf, encoding="latin1")
    buf.seek(0)
    with pytest.raises(ValueError, match="^f must be a file path in order to use the mmap "
                                         "argument$"):
        pytensor.load(buf, mmap=True)
    with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
        pytensor.load(os.path.join(DATA, "torch_legacy.pt"), mmap=True)
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like "
                                             "object with a 'write' attribute"):
        pytensor.save([1], 3)


# ---------------------------------------------------------------- pytensor.save's bytes
def _records(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i.filename) for i in z.infolist()}


def test_save_writes_the_bytes_torch_writes(tmp_path):
    """Same object graph, same file as torch.save's (the committed one) but for the
    serialization id record (random) and its CRC."""
    path = tmp_path / "torch_state_dict.pt"
    pytensor.save(state_dict(pytensor), path)
    ours = path.read_bytes()
    with open(os.path.join(DATA, "torch_state_dict.pt"), "rb") as fh:
        theirs = fh.read()
    assert len(ours) == len(theirs)
    diff = [i for i in range(len(ours)) if ours[i] != theirs[i]]
    ident = _records(ours)["torch_state_dict/.data/serialization_id"]
    assert len(ident) == 40 and ident.isdigit()
    assert len(diff) <= 48  # the 40 digits and the CRC-32 of that record (twice)
    assert _records(ours).keys() == _records(theirs).keys()
    for name, data in _records(theirs).items():
        if not name.endswith("serialization_id"):
            assert _records(ours)[name] == data, name


def test_zip_layout():
    buf = io.BytesIO()
    a = pytensor.arange(5.)
    pytensor.save([a, a[1:], pytensor.ones(3, dtype=pytensor.int16), pytensor.empty(0)], buf)
    data = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        names = z.namelist()
        assert names == ["archive/data.pkl", "archive/.format_version",
                         "archive/.storage_alignment", "archive/byteorder", "archive/data/0",
                         "archive/data/1", "archive/data/2", "archive/version",
                         "archive/.data/serialization_id"]
        assert z.read("archive/.format_version") == b"1"
        assert z.read("archive/.storage_alignment") == b"64"
        assert z.read("archive/version") == b"3\n"
        assert z.read("archive/byteorder") == b"little"
        assert z.read("archive/data/0") == struct.pack("<5f", 0, 1, 2, 3, 4)
        assert z.read("archive/data/2") == b""
        for info in z.infolist():
            nlen, elen = struct.unpack_from("<HH", data, info.header_offset + 26)
            assert (info.header_offset + 30 + nlen + elen) % 64 == 0, info.filename
            assert data[info.header_offset + 30 + nlen:][:2] == b"FB"
    assert b"ctorch._utils\n_rebuild_tensor_v2\n" in _records(data)["archive/data.pkl"]
    assert b"ctorch\nFloatStorage\n" in _records(data)["archive/data.pkl"]


def test_archive_name_follows_the_file_name(tmp_path):
    for name, archive in (("model.pt", "model"), ("a.b.pt", "a.b"), ("noext", "noext")):
        pytensor.save(pytensor.ones(1), tmp_path / name)
        with zipfile.ZipFile(tmp_path / name) as z:
            assert z.namelist()[0] == f"{archive}/data.pkl"
        assert pytensor.load(str(tmp_path / name)).tolist() == [1.0]


# ---------------------------------------------------------------- round trips
@pytest.mark.parametrize("name", DTYPES)
def test_round_trip_every_dtype(name):
    t = per_dtype(pytensor, name)
    buf = io.BytesIO()
    pytensor.save({"t": t, "nc": t.t()}, buf)
    buf.seek(0)
    got = pytensor.load(buf)
    assert got["t"].dtype == t.dtype and got["t"].tolist() == t.tolist()
    assert got["nc"].stride() == (1, 3) and got["nc"].tolist() == t.t().tolist()
    assert _ptr(got["t"]) == _ptr(got["nc"])


def test_round_trip_state_dict_paths_and_mmap(tmp_path):
    for where in (tmp_path / "p.pt", str(tmp_path / "s.pt")):
        pytensor.save(state_dict(pytensor), where)
        check_state_dict(pytensor.load(where))
        check_state_dict(pytensor.load(where, mmap=True))
    with open(tmp_path / "f.pt", "wb") as fh:
        pytensor.save(state_dict(pytensor), fh)
    with open(tmp_path / "f.pt", "rb") as fh:
        check_state_dict(pytensor.load(fh))


def test_round_trip_storages_and_plain_values():
    s = pytensor.FloatStorage([1.0, 2.0])
    u = pytensor.UntypedStorage([1, 2, 3])
    buf = io.BytesIO()
    obj = {"s": s, "u": u, "size": pytensor.Size([2, 3]), "dtype": pytensor.bfloat16,
           "dev": pytensor.device("cpu"), "set": {1, 2}, "c": 1 + 2j, "b": bytearray(b"x")}
    pytensor.save(obj, buf)
    buf.seek(0)
    got = pytensor.load(buf)
    assert got["s"].tolist() == [1.0, 2.0] and got["s"].dtype == pytensor.float32
    assert got["u"].tolist() == [1, 2, 3] and got["u"].dtype == pytensor.uint8  # typed, as torch
    assert got["size"] == pytensor.Size([2, 3]) and type(got["size"]) is pytensor.Size
    assert got["dtype"] is pytensor.bfloat16 and got["dev"] == pytensor.device("cpu")
    assert (got["set"], got["c"], got["b"]) == ({1, 2}, 1 + 2j, bytearray(b"x"))


def test_same_data_as_two_dtypes_is_refused():
    a = pytensor.arange(4, dtype=pytensor.int32)
    with pytest.raises(RuntimeError, match="^Cannot save multiple tensors or storages that view "
                                           "the same data as different types$"):
        pytensor.save([a, pytensor.TypedStorage(wrap_storage=a.untyped_storage(),
                                                dtype=pytensor.float32)], io.BytesIO())


def test_legacy_format_round_trip():
    buf = io.BytesIO()
    a = pytensor.arange(6.)
    pytensor.save({"a": a, "b": a[2:]}, buf, _use_new_zipfile_serialization=False)
    assert not buf.getvalue().startswith(b"PK")
    buf.seek(0)
    got = pytensor.load(buf)
    assert got["b"].tolist() == [2.0, 3.0, 4.0, 5.0] and _ptr(got["a"]) == _ptr(got["b"])


def test_skip_data():
    buf = io.BytesIO()
    with serialization.skip_data():
        pytensor.save([pytensor.full((4,), 3.0)], buf)
        with pytest.raises(RuntimeError, match="Cannot use skip_data=True with "
                                               "_use_new_zipfile_serialization=False"):
            pytensor.save([1], io.BytesIO(), _use_new_zipfile_serialization=False)
    buf.seek(0)
    got = pytensor.load(buf)[0]
    assert got.shape == (4,) and got.tolist() == [0.0] * 4


def test_module_state_dict_and_optimizer_shapes():
    """A state dict plus an optimizer-like state (ints, floats, lists, tensors) in one file."""
    sd = state_dict(pytensor)
    opt = {"state": {0: {"step": pytensor.tensor(3.0), "exp_avg": pytensor.zeros(4)}},
           "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0]}]}
    buf = io.BytesIO()
    pytensor.save({"model": sd, "optim": opt}, buf)
    buf.seek(0)
    got = pytensor.load(buf)
    check_state_dict(got["model"])
    assert got["optim"]["param_groups"] == opt["param_groups"]
    assert got["optim"]["state"][0]["step"].item() == 3.0


# ---------------------------------------------------------------- map_location
def test_map_location_forms():
    buf = io.BytesIO()
    pytensor.save({"a": pytensor.arange(3.)}, buf)
    seen = []

    def callback(storage, location):
        seen.append((type(storage).__name__, location))
        return None

    for ml in ("cpu", b"cpu", pytensor.device("cpu"), {"cpu": "cpu"}, {"cuda:1": "cpu"},
               callback, lambda s, loc: s):
        buf.seek(0)
        assert pytensor.load(buf, map_location=ml)["a"].tolist() == [0.0, 1.0, 2.0]
    assert seen == [("UntypedStorage", "cpu")]
    buf.seek(0)
    with pytest.raises(RuntimeError, match=r"^don't know how to restore data location of "
                                           r"torch.storage.UntypedStorage \(tagged with xyz\)$"):
        pytensor.load(buf, map_location="xyz")
    if not pytensor.cuda.is_available():
        buf.seek(0)
        with pytest.raises(RuntimeError, match="^Attempting to deserialize object on a CUDA "
                                               "device but torch.cuda.is_available"):
            pytensor.load(buf, map_location={"cpu": "cuda:0"})


# ---------------------------------------------------------------- damaged files
def _small_file() -> bytes:
    buf = io.BytesIO()
    pytensor.save({"a": pytensor.arange(8.), "b": [pytensor.ones(2, dtype=pytensor.int64)]}, buf)
    return buf.getvalue()


def test_truncated_files_raise_runtime_error():
    data = _small_file()
    for cut in list(range(0, 64, 7)) + list(range(64, len(data), 37)) + [len(data) - 1]:
        with pytest.raises(RuntimeError) as e:
            pytensor.load(io.BytesIO(data[:cut]))
        msg = str(e.value)
        assert ("failed finding central directory" in msg or "not a ZIP archive" in msg
                or "file is empty" in msg), (cut, msg)


def test_corrupted_bytes_never_crash():
    data = _small_file()
    ok = (RuntimeError, ValueError, EOFError, pickle.UnpicklingError, UnicodeDecodeError,
          KeyError, TypeError, IndexError, OverflowError, AttributeError, struct.error)
    for i in range(len(data)):
        bad = bytearray(data)
        bad[i] ^= 0x5A
        try:
            pytensor.load(io.BytesIO(bytes(bad)))
        except ok:
            pass


def test_corrupt_pickle_record_is_named():
    data = bytearray(_small_file())
    data[80] ^= 0xFF  # inside data.pkl
    with pytest.raises(RuntimeError, match="record data.pkl fails its CRC-32 check"):
        pytensor.load(io.BytesIO(bytes(data)))


def test_wrong_storage_size_is_named():
    """An archive another zip writer made (no alignment) whose pickle asks for more bytes than
    the record holds."""
    buf = io.BytesIO()
    pytensor.save([pytensor.arange(4.)], buf)
    rec = _records(buf.getvalue())
    rec["archive/data.pkl"] = rec["archive/data.pkl"].replace(b"K\x04t", b"K\x05t", 1)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in rec.items():
            z.writestr(name, data)
    out.seek(0)
    with pytest.raises(RuntimeError, match="record data/0 holds 16 bytes, but the pickle "
                                           "describes a storage of 20 bytes"):
        pytensor.load(out)
    rec["archive/data.pkl"] = rec["archive/data.pkl"].replace(b"K\x05t", b"K\x04t", 1)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in rec.items():
            z.writestr(name, data)
    out.seek(0)
    assert pytensor.load(out)[0].tolist() == [0.0, 1.0, 2.0, 3.0]


# ---------------------------------------------------------------- both ways with torch
def _check_torch_state_dict(sd) -> None:
    want = state_dict(torch)
    assert list(sd.keys()) == list(want.keys()) and sd._metadata == want._metadata
    for k, w in want.items():
        got = sd[k]
        assert type(got) is type(w), k
        assert got.dtype == w.dtype and got.shape == w.shape, k
        assert got.stride() == w.stride() and got.storage_offset() == w.storage_offset(), k
        assert torch.equal(got.detach(), w.detach()) and got.requires_grad == w.requires_grad, k
    base = sd["shared.base"].untyped_storage().data_ptr()
    for k in ("shared.rows", "shared.t", "shared.step"):
        assert sd[k].untyped_storage().data_ptr() == base


@requires_torch
def test_pytensor_save_torch_load(tmp_path):
    path = tmp_path / "x.pt"
    pytensor.save(state_dict(pytensor), path)
    _check_torch_state_dict(torch.load(path))
    _check_torch_state_dict(torch.load(path, mmap=True))
    _check_torch_state_dict(torch.load(path, weights_only=False))
    buf = io.BytesIO()
    pytensor.save(state_dict(pytensor), buf)
    buf.seek(0)
    _check_torch_state_dict(torch.load(buf))


@requires_torch
def test_torch_save_pytensor_load(tmp_path):
    path = tmp_path / "y.pt"
    torch.save(state_dict(torch), path)
    check_state_dict(pytensor.load(path))
    check_state_dict(pytensor.load(path, mmap=True))
    buf = io.BytesIO()
    torch.save(state_dict(torch), buf)
    buf.seek(0)
    check_state_dict(pytensor.load(buf))


@requires_torch
def test_bytes_equal_torch_save():
    a, b = io.BytesIO(), io.BytesIO()
    torch.save(state_dict(torch), a)
    pytensor.save(state_dict(pytensor), b)
    ra, rb = _records(a.getvalue()), _records(b.getvalue())
    assert ra.keys() == rb.keys()
    for name in ra:
        if not name.endswith("serialization_id"):
            assert ra[name] == rb[name], name
    assert len(a.getvalue()) == len(b.getvalue())


@requires_torch
def test_legacy_format_both_ways():
    buf = io.BytesIO()
    a = pytensor.arange(6.)
    pytensor.save({"a": a, "b": a[2:]}, buf, _use_new_zipfile_serialization=False)
    buf.seek(0)
    got = torch.load(buf)
    assert got["b"].tolist() == [2.0, 3.0, 4.0, 5.0]
    assert got["a"].untyped_storage().data_ptr() == got["b"].untyped_storage().data_ptr()
    buf = io.BytesIO()
    t = torch.arange(6.)
    torch.save({"a": t, "b": t[2:]}, buf, _use_new_zipfile_serialization=False)
    buf.seek(0)
    got = pytensor.load(buf)
    assert got["b"].tolist() == [2.0, 3.0, 4.0, 5.0] and _ptr(got["a"]) == _ptr(got["b"])


@requires_torch
def test_error_texts_match_torch():
    path = os.path.join(DATA, "torch_unsafe.pt")
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(path)
    with pytest.raises(pickle.UnpicklingError) as ours:
        pytensor.load(path)
    assert str(ours.value) == str(theirs.value)
    buf = io.BytesIO()
    torch.save({"f": print}, buf)
    for lib in (torch, pytensor):
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError) as e:
            lib.load(buf)
        assert str(e.value) == _refusal("print")
    buf = io.BytesIO()
    torch.save([torch.ones(1)], buf)
    buf.seek(0)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(buf, map_location="xyz")
    buf.seek(0)
    with pytest.raises(RuntimeError) as ours:
        pytensor.load(buf, map_location="xyz")
    assert str(ours.value) == str(theirs.value)
    data = _small_file()
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(data[:100]))
    with pytest.raises(RuntimeError) as ours:
        pytensor.load(io.BytesIO(data[:100]))
    assert str(theirs.value).startswith(str(ours.value).split(".")[0])


def test_big_endian_records_are_swapped():
    """A file whose byteorder record says "big" (as a big-endian machine writes it)."""
    buf = io.BytesIO()
    pytensor.save({"f": pytensor.arange(3.), "c": pytensor.tensor([1 + 2j]),
                   "h": pytensor.arange(2, dtype=pytensor.int16)}, buf)
    rec = _records(buf.getvalue())
    rec["archive/byteorder"] = b"big"
    for name in list(rec):
        if "/data/" in name:
            data = rec[name]
            unit = 4 if len(data) in (12, 8) and name != "archive/data/2" else 2
            rec[name] = b"".join(data[i:i + unit][::-1] for i in range(0, len(data), unit))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in rec.items():
            z.writestr(name, data)
    out.seek(0)
    got = pytensor.load(out)
    assert got["f"].tolist() == [0.0, 1.0, 2.0]
    assert got["c"].tolist() == [1 + 2j] and got["h"].tolist() == [0, 1]
    rec["archive/byteorder"] = b"middle"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in rec.items():
            z.writestr(name, data)
    out.seek(0)
    with pytest.raises(ValueError, match="^Unknown endianness type: middle$"):
        pytensor.load(out)


def test_c_pickler_and_python_pickler_agree():
    """The fast path (C pickler + renamed GLOBAL opcodes) writes what the pure-Python pickler
    writes, and a user string holding "pytensor" takes the pure-Python path."""
    obj = OrderedDict(w=pytensor.ones(2), d=pytensor.float16, s=pytensor.Size([1, 2]),
                      dev=pytensor.device("cpu"), layout=pytensor.strided)
    for extra in ({}, {"note": "cpytensor._utils\n_rebuild_tensor_v2\n"}):
        obj.update(extra)
        pid, _ = serialization._storage_pids()
        fast = serialization._c_dump(obj, 2, pid)
        assert (fast is None) == bool(extra)
        pid, _ = serialization._storage_pids()
        slow = io.BytesIO()
        serialization._Pickler(slow, 2, pid).dump(obj)
        if fast is not None:
            assert fast == slow.getvalue()
        buf = io.BytesIO()
        pytensor.save(obj, buf)
        buf.seek(0)
        got = pytensor.load(buf)
        assert got["d"] is pytensor.float16 and got["layout"] is pytensor.strided
        assert got.get("note") == extra.get("note")


def test_safe_globals_tuple_form_and_errors():
    buf = io.BytesIO()
    pytensor.save({"fn": math.floor}, buf)
    buf.seek(0)
    with serialization.safe_globals([(math.floor, "math.floor")]):
        assert pytensor.load(buf)["fn"] is math.floor
    serialization.add_safe_globals([(math.floor,)])
    try:
        buf.seek(0)
        with pytest.raises(ValueError, match="^Expected tuple of length 2 \\(global, str of "
                                             "callable full path\\), but got tuple of length: 1$"):
            pytensor.load(buf)
    finally:
        serialization.clear_safe_globals()


def test_foreign_pickle_module_and_protocols():
    import types
    mod = types.SimpleNamespace(Pickler=pickle.Pickler, Unpickler=pickle.Unpickler,
                                dump=pickle.dump, load=pickle.load)
    a = pytensor.arange(4.)
    for kwargs in ({"pickle_module": mod}, {"pickle_protocol": 1}, {"pickle_protocol": 3},
                   {"pickle_protocol": 4}, {"pickle_protocol": 5}):
        buf = io.BytesIO()
        pytensor.save({"a": a, "v": a[1:]}, buf, **kwargs)
        buf.seek(0)
        got = pytensor.load(buf, weights_only=False, pickle_module=mod)
        assert got["v"].tolist() == [1.0, 2.0, 3.0] and _ptr(got["a"]) == _ptr(got["v"])
        buf.seek(0)
        assert pytensor.load(buf)["v"].tolist() == [1.0, 2.0, 3.0]


@requires_torch
@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
@pytest.mark.parametrize("protocol", [2, 3])  # torch.load refuses its own 1, 4, 5
def test_protocols_both_ways_with_torch(protocol):
    buf = io.BytesIO()
    pytensor.save(state_dict(pytensor), buf, pickle_protocol=protocol)
    buf.seek(0)
    _check_torch_state_dict(torch.load(buf))
    buf = io.BytesIO()
    torch.save(state_dict(torch), buf, pickle_protocol=protocol)
    buf.seek(0)
    check_state_dict(pytensor.load(buf))


@requires_torch
def test_layouts_dtypes_sizes_devices_with_torch():
    buf = io.BytesIO()
    pytensor.save([pytensor.strided, pytensor.bfloat16, pytensor.Size([2, 3]),
                   pytensor.device("cpu")], buf)
    buf.seek(0)
    assert torch.load(buf) == [torch.strided, torch.bfloat16, torch.Size([2, 3]),
                               torch.device("cpu")]
    buf = io.BytesIO()
    torch.save([torch.strided, torch.complex64, torch.Size([4]), torch.device("cpu")], buf)
    buf.seek(0)
    assert pytensor.load(buf) == [pytensor.strided, pytensor.complex64, pytensor.Size([4]),
                                  pytensor.device("cpu")]


def test_legacy_tar_format_is_named():
    import tarfile
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("sys_info")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    buf.seek(0)
    with pytest.raises(RuntimeError, match="legacy .tar format"):
        pytensor.load(buf, weights_only=False)


@requires_torch
def test_torch_model_and_optimizer_checkpoint_round_trip():
    """torch.save of a model's state_dict and an Adam state -> pytensor.load -> pytensor.save ->
    torch's load_state_dict."""
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2),
                            torch.nn.Flatten(), torch.nn.Linear(2 * 4 * 4, 3))
    opt = torch.optim.Adam(m.parameters())
    m(torch.randn(2, 1, 6, 6)).sum().backward()
    opt.step()
    buf = io.BytesIO()
    torch.save({"model": m.state_dict(), "opt": opt.state_dict(), "epoch": 3}, buf)
    buf.seek(0)
    ck = pytensor.load(buf)
    assert ck["model"]["1.num_batches_tracked"].dtype == pytensor.int64
    assert ck["opt"]["param_groups"][0]["lr"] == 0.001
    again = io.BytesIO()
    pytensor.save(ck, again)
    again.seek(0)
    ck2 = torch.load(again)
    m.load_state_dict(ck2["model"])
    opt.load_state_dict(ck2["opt"])
    assert ck2["epoch"] == 3
    for k, v in m.state_dict().items():
        assert torch.equal(ck2["model"][k], v), k


def test_saving_over_an_existing_file(tmp_path):
    """A path that holds a file (longer or shorter) ends up holding exactly the new archive."""
    path = tmp_path / "ck.pt"
    for n in (1000, 10, 3000, 0):
        pytensor.save({"a": pytensor.arange(float(n))}, path)
        fresh = tmp_path / f"fresh{n}"
        fresh.mkdir()
        pytensor.save({"a": pytensor.arange(float(n))}, fresh / "ck.pt")
        assert path.stat().st_size == (fresh / "ck.pt").stat().st_size
        with zipfile.ZipFile(path) as z:
            assert z.testzip() is None
        assert pytensor.load(path)["a"].tolist() == [float(i) for i in range(n)]
