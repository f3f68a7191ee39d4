"""The shape and indexing-along-a-dim operators against torch: cat, stack, split, chunk, flip,
roll, repeat, tile, tril/triu, gather, scatter (src, value, reduce), scatter_add, index_select,
take, masked_fill, masked_select and nonzero, over every dtype and over contiguous, transposed,
sliced, expanded, 0-d and empty inputs, with their in-place and out= forms and torch's errors.
"""
import numpy as np
import pytest

import pytensor

from _torch_oracle import requires_torch, torch

pytestmark = requires_torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def tdt(name):
    return getattr(torch, name)


def pdt(name):
    return getattr(pytensor, name)


def to_torch(x):
    """A pytensor result as a torch tensor of the same dtype (through exact Python values)."""
    name = str(x.dtype).split(".")[-1]
    return torch.tensor(x.tolist(), dtype=tdt(name)).reshape(tuple(x.shape))


def from_torch(t):
    name = str(t.dtype).split(".")[-1]
    return pytensor.tensor(t.tolist(), dtype=pdt(name)).reshape(tuple(t.shape))


def values(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    v = torch.randint(-6, 12, tuple(shape), generator=g)
    if dtype == "bool":
        return v > 3
    if dtype.startswith("complex"):
        w = torch.randint(-6, 12, tuple(shape), generator=g)
        return torch.complex(v.double(), w.double()).to(tdt(dtype))
    if dtype == "uint8":
        v = v.abs()
    return v.to(tdt(dtype))


def make(shape, dtype="float32", layout="contiguous", seed=0):
    """(pytensor tensor, torch tensor) with equal values and the same kind of layout."""
    shape = tuple(shape)
    if layout == "transposed" and len(shape) >= 2:
        base = values(shape[::-1], dtype, seed)
        perm = tuple(range(len(shape)))[::-1]
        return from_torch(base).permute(*perm), base.permute(*perm)
    if layout == "sliced" and len(shape) >= 1:
        base = values(shape[:-1] + (2 * shape[-1],), dtype, seed)
        return from_torch(base)[..., ::2], base[..., ::2]
    if layout == "expanded" and len(shape) >= 1:
        base = values((1,) + shape[1:], dtype, seed)
        return from_torch(base).expand(*shape), base.expand(*shape)
    base = values(shape, dtype, seed)
    return from_torch(base), base


def same(x, expected):
    assert isinstance(x, pytensor.Tensor), type(x)
    assert tuple(x.shape) == tuple(expected.shape)
    assert str(x.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert torch.equal(to_torch(x), expected.contiguous())


def long(*rows):
    return torch.tensor(list(rows), dtype=torch.int64)


# ---------------------------------------------------------------- cat, stack
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cat_matches_torch_over_dtypes_and_layouts(dtype, layout):
    a, ta = make((3, 4), dtype, layout, 1)
    b, tb = make((3, 4), dtype, layout, 2)
    for dim in (0, 1, -1):
        same(pytensor.cat([a, b, a], dim), torch.cat([ta, tb, ta], dim))


@pytest.mark.parametrize("pair", [("int32", "float64"), ("bool", "uint8"), ("int8", "uint8"),
                                  ("float16", "bfloat16"), ("float32", "complex64")])
def test_cat_promotes_like_torch(pair):
    a, ta = make((2, 3), pair[0])
    b, tb = make((1, 3), pair[1])
    same(pytensor.cat([a, b]), torch.cat([ta, tb]))


def test_cat_skips_empty_1d_tensors_and_keeps_their_dtype_in_promotion():
    a, ta = make((2, 3), "int32")
    e, te = make((0,), "float64")
    same(pytensor.cat([a, e, a]), torch.cat([ta, te, ta]))
    same(pytensor.cat([e, e]), torch.cat([te, te]))


def test_cat_out_casts_and_resizes_an_empty_out():
    a, ta = make((2, 3), "int32")
    out = pytensor.empty(0, dtype=pytensor.float64)
    r = pytensor.cat([a, a], 1, out=out)
    assert r is out
    same(out, torch.cat([ta, ta], 1).double())
    with pytest.raises(TypeError, match="can't be cast to the desired output type Int"):
        pytensor.cat([make((2,), "float32")[0]], out=pytensor.empty(0, dtype=pytensor.int32))


def test_cat_errors_are_torchs():
    a, b = pytensor.ones(2, 3), pytensor.ones(3, 3)
    with pytest.raises(RuntimeError, match=r"Sizes of tensors must match except in dimension 1\. "
                       r"Expected size 2 but got size 3 for tensor number 1 in the list\."):
        pytensor.cat([a, b], 1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                       r"\[-2, 1\], but got 2\)"):
        pytensor.cat([a, b], 2)
    # No tensor, no dispatch key: the dispatcher answers before the kernel (torch's Python
    # binding checks first and raises ValueError).
    with pytest.raises(NotImplementedError, match="There were no tensor arguments"):
        pytensor.cat([])
    with pytest.raises(RuntimeError, match="same number of dimensions: got 2 and 3"):
        pytensor.cat([a, pytensor.ones(2, 3, 1)])
    with pytest.raises(RuntimeError, match=r"zero-dimensional tensor \(at position 0\)"):
        pytensor.cat([pytensor.tensor(1.0)])


@pytest.mark.parametrize("dtype", ["bool", "int64", "bfloat16", "complex128"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack_matches_torch(dtype, dim):
    a, ta = make((2, 3), dtype, "transposed", 1)
    b, tb = make((2, 3), dtype, "sliced", 2)
    same(pytensor.stack([a, b], dim), torch.stack([ta, tb], dim))
    out = pytensor.empty(0, dtype=pdt(dtype))
    assert pytensor.stack([a, b], dim, out=out) is out
    same(out, torch.stack([ta, tb], dim))


def test_stack_errors_are_torchs():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got "
                       r"\[2, 3\] at entry 0 and \[3, 3\] at entry 1"):
        pytensor.stack([pytensor.ones(2, 3), pytensor.ones(3, 3)])
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        pytensor.stack([])
    with pytest.raises(IndexError, match="Dimension out of range"):
        pytensor.stack([pytensor.ones(2, 3)], 3)


def test_stack_of_0d_tensors_makes_a_vector():
    same(pytensor.stack([pytensor.tensor(1.0), pytensor.tensor(2.0)]),
         torch.stack([torch.tensor(1.0), torch.tensor(2.0)]))


# ---------------------------------------------------------------- split, chunk
@pytest.mark.parametrize("size,dim", [(1, 0), (2, 1), (3, 1), (5, 1), (4, -1), (10, 0)])
def test_split_by_size_gives_torchs_views(size, dim):
    a, ta = make((4, 7), "float32", "transposed")
    got, want = a.split(size, dim), ta.split(size, dim)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
        assert g.data_ptr() >= a.data_ptr() or g.numel() == 0


@pytest.mark.parametrize("sizes", [[1, 3], [4, 0], [0, 0, 4], [2, 1, 1]])
def test_split_with_sizes_matches_torch(sizes):
    a, ta = make((4, 3), "int16")
    for got, want in ((a.split(sizes), ta.split(sizes)),
                      (pytensor.split_with_sizes(a, sizes), torch.split_with_sizes(ta, sizes))):
        assert [tuple(g.shape) for g in got] == [tuple(w.shape) for w in want]
        for g, w in zip(got, want):
            same(g, w)


@pytest.mark.parametrize("n,length", [(1, 5), (2, 5), (3, 5), (5, 5), (6, 5), (4, 6), (3, 0)])
def test_chunk_matches_torch(n, length):
    a, ta = make((2, length), "complex64")
    got, want = a.chunk(n, 1), ta.chunk(n, 1)
    assert [tuple(g.shape) for g in got] == [tuple(w.shape) for w in want]
    for g, w in zip(got, want):
        same(g, w)


def test_split_pieces_are_views():
    a = pytensor.zeros(6)
    pieces = a.split(2)
    pieces[1].fill_(5.0)
    assert a.tolist() == [0, 0, 5, 5, 0, 0]


def test_split_and_chunk_errors_are_torchs():
    a = pytensor.ones(2, 3)
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0, but "
                       "got dimension size of 2"):
        a.split(0)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got "
                       "split_size=-1"):
        a.split(-1)
    with pytest.raises(RuntimeError, match=r"split_sizes have only non-negative entries, but got "
                       r"split_sizes=\[1, -1\]"):
        a.split([1, -1])
    with pytest.raises(RuntimeError, match=r"to sum exactly to 2"):
        a.split([1, 2])
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        a.chunk(0)
    with pytest.raises(RuntimeError, match="chunk expects at least a 1-dimensional tensor"):
        pytensor.tensor(1.0).chunk(2)
    with pytest.raises(RuntimeError, match="split expects at least a 1-dimensional tensor"):
        pytensor.tensor(1.0).split(1)


# ---------------------------------------------------------------- flip, roll
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flip_and_roll_match_torch(dtype, layout):
    a, ta = make((3, 4, 5), dtype, layout)
    for dims in ([0], [2], [0, 2], [-1, 1, 0], []):
        same(a.flip(dims), ta.flip(dims))
    for shifts, dims in ((1, None), (-7, None), (2, 1), ([1, -2], [0, 2]), ([13, 3, 1], [2, 0, 1])):
        want = ta.roll(shifts) if dims is None else ta.roll(shifts, dims)
        got = a.roll(shifts) if dims is None else a.roll(shifts, dims)
        same(got, want)


def test_flip_roll_out_and_edge_shapes():
    for shape in [(), (0,), (0, 3), (1,)]:
        a, ta = make(shape, "float64")
        same(a.roll(1), ta.roll(1))
        if shape:
            same(a.flip([0]), ta.flip([0]))
            same(a.roll(2, 0), ta.roll(2, 0))
    a, ta = make((2, 3), "int8")
    out = pytensor.empty(0, dtype=pytensor.int8)
    assert pytensor.flip(a, [1], out=out) is out
    same(out, ta.flip([1]))
    out = pytensor.empty(2, 3, dtype=pytensor.int8)
    assert pytensor.roll(a, 1, 1, out=out) is out
    same(out, ta.roll(1, 1))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype signed char, but "
                       "got float instead"):
        pytensor.flip(a, [1], out=pytensor.empty(0))


def test_flip_roll_errors_are_torchs():
    a = pytensor.ones(2, 3)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        a.flip([0, 0])
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        a.flip([2])
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        a.roll([1, 2], [0])
    with pytest.raises(RuntimeError, match="`shifts` required"):
        a.roll([], [])


# ---------------------------------------------------------------- repeat, tile
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_and_tile_match_torch(dtype, layout):
    a, ta = make((2, 3), dtype, layout)
    for reps in ([1, 1], [2, 3], [3, 1, 2], [2, 0], [1, 2, 1, 1]):
        same(a.repeat(*reps), ta.repeat(*reps))
    for dims in ([2], [2, 1], [1, 3, 2], []):
        same(a.tile(dims), ta.tile(dims))
        same(pytensor.tile(a, dims), torch.tile(ta, dims))


def test_repeat_of_0d_and_empty_and_out():
    for shape, reps in [((), [3]), ((), [2, 2]), ((0, 2), [2, 2]), ((1,), [4])]:
        a, ta = make(shape, "int32")
        same(a.repeat(*reps), ta.repeat(*reps))
    a, ta = make((2,), "float32")
    out = pytensor.empty(0)
    assert pytensor.ops.aten.repeat.out(a, [2, 2], out=out) is out
    same(out, ta.repeat(2, 2))


def test_repeat_errors_are_torchs():
    a = pytensor.ones(2, 3)
    with pytest.raises(RuntimeError, match="can not be smaller than number of dimensions of "
                       "tensor"):
        a.repeat(2)
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -2: "
                       r"\[-2, 6\]"):
        a.repeat(-1, 2)


# ---------------------------------------------------------------- tril, triu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tril_triu_match_torch(dtype, layout):
    a, ta = make((2, 4, 5), dtype, layout)
    for k in (-5, -1, 0, 2, 7):
        same(a.tril(k), ta.tril(k))
        same(pytensor.triu(a, k), torch.triu(ta, k))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_tril_triu_in_place_and_out(layout):
    for k in (-1, 0, 1):
        a, ta = make((4, 3), "float16", layout)
        assert a.tril_(k) is a
        same(a, ta.clone().tril_(k))
        a, ta = make((4, 3), "complex64", layout)
        assert a.triu_(k) is a
        same(a, ta.clone().triu_(k))
    a, ta = make((3, 3), "int64")
    out = pytensor.empty(0, dtype=pytensor.int64)
    assert pytensor.tril(a, 1, out=out) is out
    same(out, ta.tril(1))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got "
                       "double instead"):
        pytensor.triu(a, out=pytensor.empty(0, dtype=pytensor.float64))
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        pytensor.ones(3).tril()


def test_tril_of_empty_matrices():
    for shape in [(0, 3), (3, 0), (2, 0, 0)]:
        a, ta = make(shape, "float32")
        same(a.tril(), ta.tril())
        same(a.triu(1), ta.triu(1))


# ---------------------------------------------------------------- gather, scatter
def random_index(shape, high, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, shape, generator=g)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_gather_matches_torch(dtype, layout):
    a, ta = make((4, 5, 6), dtype, layout)
    for dim, ishape in ((0, (3, 5, 2)), (1, (4, 9, 6)), (2, (2, 3, 7)), (-1, (4, 5, 1))):
        ti = random_index(ishape, ta.shape[dim])
        same(a.gather(dim, from_torch(ti)), ta.gather(dim, ti))
        ti_t = random_index(ishape[::-1], ta.shape[dim]).permute(2, 1, 0)
        same(pytensor.gather(a, dim, from_torch(ti_t.contiguous()).permute(0, 1, 2)),
             torch.gather(ta, dim, ti_t.contiguous()))


def test_gather_edge_shapes_and_out():
    a, ta = make((), "float32")
    same(a.gather(0, pytensor.tensor(0)), ta.gather(0, torch.tensor(0)))
    a, ta = make((3, 4), "int32")
    ti = torch.zeros(0, 4, dtype=torch.long)
    same(a.gather(0, from_torch(ti)), ta.gather(0, ti))
    out = pytensor.empty(0, dtype=pytensor.int32)
    ti = long([2, 1], [0, 0])
    assert pytensor.gather(a, 1, from_torch(ti), out=out) is out
    same(out, ta.gather(1, ti))


def test_gather_errors_are_torchs():
    a = pytensor.ones(2, 3)
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 2"):
        a.gather(0, pytensor.tensor([[0, 5]]))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 2"):
        a.gather(0, pytensor.tensor([[-1]]))
    with pytest.raises(RuntimeError, match="gather\\(\\): Expected dtype int32/int64 for index"):
        a.gather(0, pytensor.tensor([[0]], dtype=pytensor.int16))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions "
                       "as input tensor"):
        a.gather(0, pytensor.tensor([0, 1]))
    with pytest.raises(RuntimeError, match=r"Size does not match at dimension 0 expected index "
                       r"\[3, 3\] to be no larger than self \[2, 3\] apart from dimension 1"):
        a.gather(1, pytensor.zeros(3, 3, dtype=pytensor.int64))


def unique_index(shape, dim, size, seed=0):
    """An index whose entries along dim are distinct (so scatter results do not depend on
    which write lands last)."""
    g = torch.Generator().manual_seed(seed)
    moved = list(shape)
    n = moved.pop(dim)
    rows = [torch.randperm(size, generator=g)[:n] for _ in range(int(np.prod(moved)))]
    t = torch.stack(rows, -1).reshape([n] + moved)
    return t.movedim(0, dim).contiguous()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS[:3])
def test_scatter_src_and_value_match_torch(dtype, layout):
    for dim, ishape in ((0, (3, 5, 2)), (1, (2, 4, 6)), (-1, (4, 5, 3))):
        a, ta = make((4, 5, 6), dtype, layout, 1)
        src, tsrc = make((4, 6, 7), dtype, "contiguous", 2)
        ti = unique_index(ishape, dim % 3, ta.shape[dim])
        i = from_torch(ti)
        same(a.scatter(dim, i, src), ta.scatter(dim, ti, tsrc))
        same(pytensor.scatter(a, dim, i, 3), torch.scatter(ta, dim, ti, 3))
        b, tb = a.clone(), ta.clone()
        assert b.scatter_(dim, i, src) is b
        same(b, tb.scatter_(dim, ti, tsrc))
        assert b.scatter_(dim, i, 1) is b
        same(b, tb.scatter_(dim, ti, 1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_and_reduce_sum_repeated_indices_like_torch(dtype):
    a, ta = make((3, 4), dtype, "transposed", 1)
    src, tsrc = make((5, 4), dtype, "contiguous", 2)
    ti = random_index((5, 4), 3, 3)
    i = from_torch(ti)
    same(a.scatter_add(0, i, src), ta.scatter_add(0, ti, tsrc))
    b, tb = a.clone(), ta.clone()
    assert b.scatter_add_(0, i, src) is b
    same(b, tb.scatter_add_(0, ti, tsrc))
    for reduce in ("add", "multiply"):
        if reduce == "multiply" and dtype in ("float16", "bfloat16"):
            # torch multiplies in float16 at each step; both round differently from float32
            continue
        same(a.scatter(0, i, src, reduce=reduce), ta.scatter(0, ti, tsrc, reduce=reduce))
        same(a.scatter(0, i, 2, reduce=reduce), ta.scatter(0, ti, 2, reduce=reduce))


def test_scatter_out_forms():
    a, ta = make((3, 4), "float64")
    ti = long([0, 2, 1, 0])
    for call, want in (
        (lambda o: pytensor.scatter(a, 0, from_torch(ti), a, out=o),
         torch.scatter(ta, 0, ti, ta)),
        (lambda o: pytensor.scatter(a, 0, from_torch(ti), 1.5, out=o),
         torch.scatter(ta, 0, ti, 1.5)),
        (lambda o: pytensor.scatter_add(a, 0, from_torch(ti), a, out=o),
         torch.scatter_add(ta, 0, ti, ta)),
        (lambda o: pytensor.scatter(a, 0, from_torch(ti), a, reduce="multiply", out=o),
         torch.scatter(ta, 0, ti, ta, reduce="multiply")),
    ):
        out = pytensor.empty(0, dtype=pytensor.float64)
        assert call(out) is out
        same(out, want)


def test_scatter_errors_are_torchs():
    a = pytensor.ones(2, 3)
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 2"):
        a.scatter(0, pytensor.tensor([[0, 5]]), 1.0)
    with pytest.raises(RuntimeError, match=r"Expected index \[1, 2\] to be no larger than self "
                       r"\[2, 3\] apart from dimension 0 and to be no larger size than src "
                       r"\[1, 1\]"):
        a.scatter(0, pytensor.tensor([[0, 1]]), pytensor.ones(1, 1))
    with pytest.raises(RuntimeError, match="scatter\\(\\): Expected self.dtype to be equal to "
                       "src.dtype"):
        a.scatter(0, pytensor.tensor([[0, 1]]), pytensor.ones(1, 2, dtype=pytensor.float64))
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply."):
        a.scatter(0, pytensor.tensor([[0, 1]]), 2.0, reduce="mean")
    with pytest.raises(RuntimeError, match="scatter\\(\\): Expected dtype int32/int64 for index"):
        a.scatter_add(0, pytensor.tensor([[0]], dtype=pytensor.int16), a)


# ---------------------------------------------------------------- index_select, take
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_index_select_matches_torch(dtype, layout, index_dtype):
    a, ta = make((4, 5, 6), dtype, layout)
    for dim in (0, 1, 2, -1):
        ti = random_index((7,), ta.shape[dim]).to(tdt(index_dtype))
        same(a.index_select(dim, from_torch(ti)), ta.index_select(dim, ti))
        same(a.index_select(dim, from_torch(ti[:0])), ta.index_select(dim, ti[:0]))
        ti0 = ti[0]
        same(a.index_select(dim, from_torch(ti0)), ta.index_select(dim, ti0))


def test_index_select_0d_and_out_and_errors():
    a, ta = make((), "int64")
    same(a.index_select(0, pytensor.tensor([0])), ta.index_select(0, torch.tensor([0])))
    a, ta = make((3, 2), "float32")
    out = pytensor.empty(0)
    assert pytensor.index_select(a, 0, pytensor.tensor([2, 2]), out=out) is out
    same(out, ta.index_select(0, torch.tensor([2, 2])))
    with pytest.raises(IndexError, match="index out of range in self"):
        a.index_select(0, pytensor.tensor([3]))
    with pytest.raises(IndexError, match="index out of range in self"):
        a.index_select(0, pytensor.tensor([-1]))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        a.index_select(0, pytensor.tensor([[0]]))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        a.index_select(0, pytensor.tensor([0.0]))
    with pytest.raises(RuntimeError, match="self and result must have the same scalar type"):
        pytensor.index_select(a, 0, pytensor.tensor([0]),
                              out=pytensor.empty(0, dtype=pytensor.int8))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_matches_torch(dtype, layout):
    a, ta = make((3, 4), dtype, layout)
    ti = torch.tensor([[0, 11, -1], [-12, 5, 5]])
    same(a.take(from_torch(ti)), ta.take(ti))
    same(pytensor.take(a, from_torch(ti.t())), torch.take(ta, ti.t()))
    same(a.take(from_torch(ti[:0])), ta.take(ti[:0]))


def test_take_errors_are_torchs():
    a = pytensor.ones(2, 3)
    with pytest.raises(IndexError, match="out of range: tried to access index 6 on a tensor of 6 "
                       "elements."):
        a.take(pytensor.tensor([6]))
    with pytest.raises(IndexError, match="tried to access index -7"):
        a.take(pytensor.tensor([-7]))
    with pytest.raises(RuntimeError, match="take\\(\\): Expected a long tensor for index, but got "
                       "Int"):
        a.take(pytensor.tensor([0], dtype=pytensor.int32))


# ---------------------------------------------------------------- masks, nonzero
def random_mask(shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2, shape, generator=g).bool()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_fill_matches_torch(dtype, layout):
    a, ta = make((3, 4), dtype, layout)
    value = {"bool": True, "uint8": 7}.get(dtype, -3)
    for mshape in ((3, 4), (4,), (3, 1), (), (2, 3, 4)):
        tm = random_mask(mshape)
        m = from_torch(tm)
        same(a.masked_fill(m, value), ta.masked_fill(tm, value))
        tv = torch.tensor(value, dtype=tdt(dtype))
        same(pytensor.masked_fill(a, m, from_torch(tv)), torch.masked_fill(ta, tm, tv))
        if len(mshape) < 3 and layout != "expanded":
            b, tb = a.clone(), ta.clone()
            assert b.masked_fill_(m, value) is b
            same(b, tb.masked_fill_(tm, value))


def test_masked_fill_value_casts_and_errors():
    a, ta = make((2, 3), "int64")
    m, tm = from_torch(random_mask((2, 3))), random_mask((2, 3))
    same(a.masked_fill(m, 2.7), ta.masked_fill(tm, 2.7))
    same(a.masked_fill(m, pytensor.tensor(2.7)), ta.masked_fill(tm, torch.tensor(2.7)))
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got "
                       "mask with dtype unsigned char"):
        a.masked_fill(pytensor.ones(2, 3, dtype=pytensor.uint8), 1)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        a.masked_fill(pytensor.ones(3, 3, dtype=pytensor.bool), 1)
    with pytest.raises(RuntimeError, match=r"only supports a 0-dimensional value tensor, but got "
                       r"tensor with 1 dimension\(s\)"):
        a.masked_fill(m, pytensor.ones(1, dtype=pytensor.int64))
    with pytest.raises(RuntimeError, match=r"output with shape \[2, 3\] doesn't match the "
                       r"broadcast shape \[2, 2, 3\]"):
        a.masked_fill_(pytensor.ones(2, 2, 3, dtype=pytensor.bool), 1)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8"):
        pytensor.ones(3, dtype=pytensor.int8).masked_fill_(pytensor.tensor(True), 300)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_select_matches_torch(dtype, layout):
    a, ta = make((3, 4), dtype, layout)
    for mshape in ((3, 4), (4,), (2, 3, 4), ()):
        tm = random_mask(mshape, 5)
        same(a.masked_select(from_torch(tm)), ta.masked_select(tm))
    out = pytensor.empty(7, dtype=pdt(dtype))
    tm = random_mask((3, 4), 6)
    assert pytensor.masked_select(a, from_torch(tm), out=out) is out
    same(out, torch.masked_select(ta, tm))
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor for mask"):
        a.masked_select(pytensor.ones(4, dtype=pytensor.uint8))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_nonzero_matches_torch_with_its_strides(dtype, layout):
    for shape in ((3, 4), (5,), (2, 3, 2), (), (0, 3)):
        a, ta = make(shape, dtype, layout)
        got, want = a.nonzero(), ta.nonzero()
        same(got, want)
        assert got.stride() == want.stride()
        cols = pytensor.nonzero_numpy(a)
        want_cols = ta.nonzero(as_tuple=True)
        assert len(cols) == len(want_cols)
        for c, w in zip(cols, want_cols):
            same(c, w)


def test_nonzero_treats_negative_zero_as_zero_and_nan_as_nonzero():
    t = torch.tensor([0.0, -0.0, float("nan"), 1.0, -2.0])
    for dtype in ("float16", "bfloat16", "float32", "float64", "complex64"):
        got = pytensor.tensor(t.tolist(), dtype=pdt(dtype)).nonzero()
        assert got.tolist() == t.to(tdt(dtype)).nonzero().tolist()
    out = pytensor.empty(5, dtype=pytensor.int64)
    assert pytensor.nonzero(pytensor.tensor([0, 3, 0, 4]), out=out) is out
    assert out.tolist() == [[1], [3]]
    with pytest.raises(RuntimeError, match="Expected out tensor to have scalar type Long but got "
                       "scalar typeDouble"):
        pytensor.nonzero(pytensor.tensor([1]), out=pytensor.empty(0, dtype=pytensor.float64))


# ---------------------------------------------------------------- meta tensors
def test_meta_tensors_get_shapes_and_dtypes():
    meta = pytensor.empty(3, 4, device="meta")
    i = pytensor.empty(2, 4, dtype=pytensor.int64, device="meta")
    cases = [
        (pytensor.cat([meta, meta], 1), (3, 8)),
        (pytensor.stack([meta, meta]), (2, 3, 4)),
        (meta.flip([0]), (3, 4)),
        (meta.roll(1), (3, 4)),
        (meta.repeat(2, 1, 3), (2, 3, 12)),
        (meta.tile([2]), (3, 8)),
        (meta.tril(), (3, 4)),
        (meta.gather(0, i), (2, 4)),
        (meta.scatter(0, i, 1.0), (3, 4)),
        (meta.scatter_add(0, i, meta), (3, 4)),
        (meta.index_select(1, pytensor.empty(5, dtype=pytensor.int64, device="meta")), (3, 5)),
        (meta.take(i), (2, 4)),
        (meta.masked_fill(pytensor.empty(4, dtype=pytensor.bool, device="meta"), 1.0), (3, 4)),
        (pytensor.index_put(meta, [i[0]], pytensor.empty(4, device="meta")), (3, 4)),
    ]
    for r, shape in cases:
        assert r.device.type == "meta" and tuple(r.shape) == shape
    assert [tuple(p.shape) for p in meta.split(3, 1)] == [(3, 3), (3, 1)]
    with pytest.raises(NotImplementedError, match="meta tensors do not hold"):
        meta.nonzero()
    with pytest.raises(NotImplementedError, match="meta tensors do not hold"):
        meta.masked_select(pytensor.empty(4, dtype=pytensor.bool, device="meta"))
    with pytest.raises(RuntimeError, match="not on the expected device meta"):
        pytensor.cat([meta, pytensor.ones(3, 4)])


def test_large_inputs_cross_the_copy_paths():
    a, ta = make((300, 257), "float32", "transposed")
    same(pytensor.cat([a, a], 0), torch.cat([ta, ta], 0))
    same(a.flip([0, 1]), ta.flip([0, 1]))
    same(a.roll([100, -3], [0, 1]), ta.roll([100, -3], [0, 1]))
    ti = random_index((257, 300), 300).t()
    same(a.gather(0, from_torch(ti.contiguous())), ta.gather(0, ti.contiguous()))
    tm = random_mask((300, 257))
    same(a.masked_select(from_torch(tm)), ta.masked_select(tm))
