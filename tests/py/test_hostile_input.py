"""Hostile calls that once killed the process: each runs in a fresh child process, so a regression
is a failed test with the call named, not the end of the session."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

try:
    import torch
except ImportError:
    torch = None

import pytensor

# Children import the pytensor these tests imported (the installed one under tools/run_tests.py).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(pytensor.__file__)))


def run_child(code: str, timeout: float = 60.0) -> str:
    """Runs code in a fresh interpreter; fails the test on a signal or a hang; returns stdout."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1")
    src = "import pytensor, numpy as np\n" + textwrap.dedent(code)
    try:
        p = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung:\n{src}")
    assert p.returncode == 0, f"exit {p.returncode}:\n{src}\n{p.stderr[-2000:]}"
    return p.stdout


def expect_error(code: str, exc: str, text: str) -> None:
    out = run_child(f"""
try:
{textwrap.indent(textwrap.dedent(code), "    ")}
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
else:
    print("no error")
""")
    assert out.startswith(exc + ":") and text in out, out


# ---------------------------------------------------------------- indexed shapes past 64 dims
def test_index_put_on_a_64_dim_tensor_whose_indexed_shape_has_65_dims_writes():
    out = run_child("""
        x = pytensor.ones([1] * 64)
        x[pytensor.zeros(1, 1, dtype=pytensor.int64)] = 3
        print(x.sum().item())
        x.index_put_((pytensor.zeros(1, 1, dtype=pytensor.int64),), pytensor.tensor(0.5),
                     accumulate=True)
        print(x.sum().item())
    """)
    assert out.split() == ["3.0", "3.5"]


def test_index_put_with_a_46_dim_index_writes_as_torch_does():
    out = run_child("""
        x = pytensor.zeros([2] * 20)
        x[pytensor.zeros([1] * 45 + [2], dtype=pytensor.int64)] = 1
        print(x.sum().item(), x[0].sum().item())
        y = pytensor.zeros(2, 3)
        y[pytensor.tensor([1, 0]).reshape([1] * 50 + [2])] = pytensor.tensor([[1., 2, 3], [4, 5, 6]])
        print(y.tolist())
    """)
    lines = out.splitlines()
    assert lines[0] == f"{2.0 ** 19} {2.0 ** 19}"
    assert lines[1] == "[[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]]"


def test_reading_an_index_whose_shape_passes_64_dims_is_a_clean_error():
    expect_error("pytensor.ones([2] * 20)[pytensor.zeros([1] * 45 + [2], dtype=pytensor.int64)]",
                 "ValueError", "expected 0 to 64 dimensions, got 65")


def test_index_put_values_that_do_not_broadcast_to_a_long_indexed_shape_are_refused():
    expect_error("""
        x = pytensor.zeros([2] * 20)
        x[pytensor.zeros([1] * 45 + [2], dtype=pytensor.int64)] = pytensor.ones(3)
    """, "RuntimeError", "shape mismatch: value tensor of shape [3] cannot be broadcast")


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_index_put_past_64_dims_matches_torch():
    import numpy as np
    rng = np.random.default_rng(0)
    a = rng.random((2, 3, 2, 2)).astype("float32")
    idx = np.array([2, 0, 1]).reshape([1] * 62 + [3])
    v = rng.random((3, 2, 2)).astype("float32")
    x, t = pytensor.tensor(a), torch.tensor(a)
    x[:, pytensor.tensor(idx)] = pytensor.tensor(v)
    t[:, torch.tensor(idx)] = torch.tensor(v)
    assert np.array_equal(x.numpy(), t.numpy())


# ---------------------------------------------------------------- memory lent out, then resized
LENDERS = ["n = t.numpy()", "n = np.asarray(t)", "n = np.from_dlpack(t)",
           "n = memoryview(t.numpy())"]


@pytest.mark.parametrize("lend", LENDERS)
def test_memory_lent_to_a_reader_is_never_resized_under_it(lend):
    out = run_child(f"""
        for resize in ("t.resize_(2**22)", "t.untyped_storage().resize_(0)",
                       "t.untyped_storage().resize_(2**24)"):
            t = pytensor.arange(2**20, dtype=pytensor.float32)
            {lend}
            try:
                exec(resize)
            except RuntimeError as e:
                print(e)
            pytensor.empty_cache()
            junk = pytensor.full((2**22,), 7.0)
            print(float(np.asarray(n, dtype=np.float32).sum()))
    """)
    lines = out.splitlines()
    total = float(np.float32(sum(range(2**20))))
    assert lines == ["Trying to resize storage that is not resizable", str(total)] * 3


def test_a_storage_lent_out_stays_unresizable_after_the_reader_is_gone():
    t = pytensor.ones(4)
    n = t.numpy()
    del n
    assert not t.untyped_storage().resizable()
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
        t.resize_(8)


def test_resize_without_an_export_still_grows_and_shrinks():
    t = pytensor.arange(4.)
    t.resize_(8)
    assert t.shape == (8,) and t[:4].tolist() == [0., 1., 2., 3.]
    s = pytensor.UntypedStorage(16)
    s.resize_(0)
    assert s.nbytes() == 0


# ---------------------------------------------------------------- storages shrunk under tensors
def test_shrinking_a_storage_that_a_tensor_views_is_refused():
    expect_error("""
        t = pytensor.randn(8)
        t.untyped_storage().resize_(0)
        t.sum()
    """, "RuntimeError", "resize_: cannot shrink a storage from 32 to 0 bytes while it has 1 "
         "other holder(s) (tensors viewing it, storages, exports)")


def test_a_storage_no_tensor_views_may_shrink_and_a_viewed_one_may_grow():
    t = pytensor.arange(8.)
    s = t.untyped_storage()
    s.resize_(64)
    assert t.sum().item() == 28.0
    del t
    s.resize_(0)
    assert s.nbytes() == 0


# ---------------------------------------------------------------- integers that do not fit
@pytest.mark.parametrize("code, exc, text", [
    ("pytensor.rand(2**63)", "TypeError",
     "rand(): argument 'size' failed to unpack the object at pos 1 with error \"Overflow when "
     "unpacking long long\""),
    ("pytensor.ones(3).resize_(2**64)", "TypeError",
     "resize_(): argument 'size' failed to unpack the object at pos 1 with error"),
    ("pytensor.prod(pytensor.ones(3), 2**64)", "ValueError",
     "prod(): argument 'dim' (position 2) = 18446744073709551616: Overflow when unpacking long "
     "long"),
    ("pytensor.zeros(2, -2**63 - 1)", "TypeError",
     "zeros(): argument 'size' failed to unpack the object at pos 2"),
    ("pytensor.ones(3).unsqueeze(2**64)", "ValueError", "unsqueeze(): argument 'dim'"),
    ("pytensor.ones(3).narrow(0, 2**64, 1)", "ValueError", "narrow(): argument 'start'"),
    ("pytensor.randint(2**64, (2,))", "ValueError", "randint(): argument 'high'"),
    ("pytensor.ones(3).add(2**64)", "OverflowError", "argument 'other' = 18446744073709551616"),
    ("pytensor.ones(3).sum(2**63)", "TypeError", "sum(): argument 'dim' failed to unpack"),
    ("pytensor.ones(3).topk(2**64)", "ValueError", "topk(): argument 'k'"),
])
def test_integers_past_64_bits_name_their_argument(code, exc, text):
    with pytest.raises(Exception) as info:
        eval(code)
    assert type(info.value).__name__ == exc and text in str(info.value), repr(info.value)


# ---------------------------------------------------------------- non-Tensor "other"
@pytest.mark.parametrize("method", ["view_as", "reshape_as", "expand_as", "type_as"])
@pytest.mark.parametrize("other", [3, None, "x", [1, 2]])
def test_methods_taking_a_tensor_refuse_anything_else_with_type_error(method, other):
    with pytest.raises(TypeError, match=rf"^{method}\(\): argument 'other' \(position 1\) must be "
                                        rf"Tensor, not {type(other).__name__}$"):
        getattr(pytensor.ones(3), method)(other)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("method", ["view_as", "reshape_as", "expand_as", "type_as"])
def test_methods_taking_a_tensor_word_it_as_torch_does(method):
    with pytest.raises(TypeError) as ours:
        getattr(pytensor.ones(3), method)(3)
    with pytest.raises(TypeError) as theirs:
        getattr(torch.ones(3), method)(3)
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- lying sequences
def test_a_sequence_claiming_2_to_the_62_items_is_a_memory_error_with_a_message():
    out = run_child("""
        class Huge(list):
            def __len__(self):
                return 2**62
        for data in (Huge([1.0, 2.0]), [Huge([1.0])], (Huge([1]),)):
            try:
                pytensor.tensor(data)
            except MemoryError as e:
                print(e)
    """)
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[0] == ("tensor(): data claims the shape [4611686018427387904], more elements "
                        "than memory can hold")
    assert all("more elements than memory can hold" in x for x in lines)


def test_a_sequence_claiming_fewer_items_than_it_holds_is_refused():
    class Short(list):
        def __len__(self):
            return 1

    with pytest.raises(ValueError, match=r"claims the shape \[2, 1\] through len\(\) but holds 4"):
        pytensor.tensor([Short([1.0, 2.0]), Short([3.0, 4.0])])


# ---------------------------------------------------------------- printing under other defaults
@pytest.mark.parametrize("default", ["float16", "bfloat16"])
def test_repr_works_under_a_half_precision_default_dtype(default):
    out = run_child(f"""
        pytensor.set_default_dtype(pytensor.{default})
        print(repr(pytensor.ones(2)))
        print(repr(pytensor.tensor([1 + 2j])))
        print(repr(pytensor.ones(2, dtype=pytensor.float32)))
        for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                     "float32", "float64", "complex64", "complex128"):
            repr(pytensor.ones(2, 2, dtype=getattr(pytensor, name)))
            repr(pytensor.ones(0, dtype=getattr(pytensor, name)))
        print("printed all")
    """)
    assert out.splitlines() == ["tensor([1., 1.])", "tensor([1.+2.j])",
                                "tensor([1., 1.], dtype=pytensor.float32)", "printed all"]


# ---------------------------------------------------------------- found by the fuzzer
@pytest.mark.parametrize("code, exc, text", [
    ("pytensor.chunk(pytensor.empty(0, 2**62), 2**62, -1)", "MemoryError",
     "split: 4611686018427387904 pieces are more than memory can hold (at most 2147483647)"),
    ("pytensor.chunk(pytensor.empty(0), 2**62)", "MemoryError",
     "chunk: 4611686018427387904 pieces are more than memory can hold"),
    ("pytensor.empty(0, 2**63 - 1).split(1, 1)", "MemoryError",
     "split: 9223372036854775807 pieces"),
    ("pytensor.empty(0, 2**62).unbind(1)", "MemoryError",
     "unbind: 4611686018427387904 pieces are more than memory can hold"),
    ("pytensor.empty(0, 2**62).repeat(2, 2)", "RuntimeError",
     "repeat: dim 1 of size 4611686018427387904 repeated 2 times overflows int64"),
])
def test_piece_counts_and_sizes_that_overflow_are_refused(code, exc, text):
    expect_error(code, exc, text)


def test_split_and_chunk_still_cut_as_torch_does():
    assert [t.shape[0] for t in pytensor.arange(10).split(3)] == [3, 3, 3, 1]
    assert [t.shape[0] for t in pytensor.arange(10).chunk(4)] == [3, 3, 3, 1]
    assert [t.shape[0] for t in pytensor.arange(0).chunk(3)] == [0, 0, 0]
    assert [t.shape[0] for t in pytensor.empty(2**62, 0).split(2**61)] == [2**61, 2**61]


@pytest.mark.parametrize("arg", [2, None, "x", [1.0, 2.0]])
def test_norm_of_a_non_tensor_is_a_type_error(arg):
    with pytest.raises(TypeError, match=r"^norm\(\): argument 'input' \(position 1\) must be "
                                        rf"Tensor, not {type(arg).__name__}$"):
        pytensor.norm(arg, "fro")
    with pytest.raises(TypeError):
        pytensor.norm(arg, "nuc")
