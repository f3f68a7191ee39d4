"""pytensor.utils.data without worker processes: datasets, random_split, samplers, default_collate
and default_convert for every element type, DataLoader's options, lengths and warnings, and each
error torch raises, with its message. Values against exact references, and against
torch.utils.data where torch is installed (the same batches for sequential sampling, the same
structures, dtypes, messages)."""
from __future__ import annotations

import collections
import os
import warnings

import numpy as np
import pytest

import pytensor
from pytensor.utils import data as D
from _torch_oracle import requires_torch, torch

Point = collections.namedtuple("Point", "x y")


def _py(obj):
    """A library-neutral picture of a batch: tensors as (dtype name, shape, values)."""
    if isinstance(obj, pytensor.Tensor) or type(obj).__name__ == "Tensor":
        return ("T", str(obj.dtype).split(".")[-1], tuple(obj.shape), obj.tolist())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, [_py(v) for v in obj])
    if isinstance(obj, dict):
        return {k: _py(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_py(v) for v in obj])
    return obj


def _collate_cases(lib):
    return [
        [lib.tensor([1, 2]), lib.tensor([3, 4])],
        [lib.tensor(1.5), lib.tensor(2.5)],
        [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
        [np.float32(1), np.float32(2)],
        [np.int64(3), np.int64(4)],
        [np.bool_(True), np.bool_(False)],
        [1.0, 2.5],
        [1, 2, 3],
        [True, False],
        ["a", "b"],
        [b"a", b"b"],
        [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
        [Point(1, 2.0), Point(3, 4.0)],
        [(1, "x"), (2, "y")],
        [[1, 2], [3, 4]],
        [(lib.tensor([1.0]), 1), (lib.tensor([2.0]), 2)],
    ]


def test_default_collate_exact():
    t = D.default_collate([pytensor.tensor([1, 2]), pytensor.tensor([3, 4])])
    assert t.tolist() == [[1, 2], [3, 4]] and t.dtype == pytensor.int64
    assert D.default_collate([1.0, 2.0]).dtype == pytensor.float64
    assert D.default_collate([True, False]).dtype == pytensor.bool
    assert D.default_collate(["a", "b"]) == ["a", "b"]
    out = D.default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(out) is Point and out.x.tolist() == [1, 3] and out.y.tolist() == [2.0, 4.0]
    out = D.default_collate([(1, 2), (3, 4)])
    assert type(out) is list and [o.tolist() for o in out] == [[1, 3], [2, 4]]
    out = D.default_collate([{"a": np.ones(2)}, {"a": np.zeros(2)}])
    assert out["a"].dtype == pytensor.float64 and out["a"].shape == (2, 2)
    out = D.default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert type(out) is collections.OrderedDict


@requires_torch
def test_default_collate_matches_torch():
    from torch.utils.data import default_collate as tcollate
    for ours, theirs in zip(_collate_cases(pytensor), _collate_cases(torch)):
        assert _py(D.default_collate(ours)) == _py(tcollate(theirs)), ours


@requires_torch
def test_default_convert_matches_torch():
    from torch.utils.data import default_convert as tconvert
    cases = [np.arange(3), np.float64(2.5), (np.ones(2), 1), [np.int32(1), "s"],
             {"k": np.zeros(1)}, Point(np.ones(1), 2), "text", np.array(["a"]), 7]
    for case in cases:
        assert _py(D.default_convert(case)) == _py(tconvert(case)), case


def test_default_convert_exact():
    assert D.default_convert(np.arange(3)).tolist() == [0, 1, 2]
    assert D.default_convert((1, 2)) == [1, 2]
    a = np.array(["x"])
    assert D.default_convert(a) is a
    t = pytensor.ones(2)
    assert D.default_convert(t) is t


def test_collate_errors():
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size, but got "
                                           r"\[2\] at entry 0 and \[3\] at entry 1"):
        D.default_collate([pytensor.ones(2), pytensor.ones(3)])
    with pytest.raises(RuntimeError,
                       match="each element in list of batch should be of equal size"):
        D.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy "
                                        "arrays, numbers, dicts or lists; found <class 'object'>"):
        D.default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        D.default_collate([np.array(["a"]), np.array(["b"])])


@requires_torch
def test_collate_error_messages_match_torch():
    from torch.utils.data import default_collate as tcollate
    cases = [lambda lib: [lib.ones(2), lib.ones(3)], lambda lib: [[1, 2], [3]],
             lambda lib: [object(), object()], lambda lib: [np.array(["a"]), np.array(["b"])],
             lambda lib: [None, None]]
    for case in cases:
        with pytest.raises(Exception) as ours:
            D.default_collate(case(pytensor))
        with pytest.raises(Exception) as theirs:
            tcollate(case(torch))
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).replace("<class 'object'>", "") == \
            str(theirs.value).replace("<class 'object'>", "")


def test_collate_custom_map():
    def tensor_sum(batch, *, collate_fn_map=None):
        return sum(t.sum().item() for t in batch)
    from pytensor.utils.data._utils.collate import collate
    assert collate([pytensor.ones(2), pytensor.ones(3)],
                   collate_fn_map={pytensor.Tensor: tensor_sum}) == 5.0


# ------------------------------------------------------------------ datasets

class Squares(D.Dataset):
    def __getitem__(self, i):
        return i * i

    def __len__(self):
        return 5


class Stream(D.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_dataset_base():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement "
                                                  "__getitem__."):
        D.Dataset()[0]
    with pytest.raises(TypeError):
        len(D.Dataset())
    both = Squares() + Squares()
    assert isinstance(both, D.ConcatDataset) and len(both) == 10 and both[7] == 4
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, D.ChainDataset) and list(chained) == [0, 1, 0, 1, 2]
    assert len(chained) == 5


def test_tensor_dataset():
    x, y = pytensor.arange(6).view(3, 2), pytensor.tensor([7, 8, 9])
    ds = D.TensorDataset(x, y)
    assert len(ds) == 3 and ds[1][0].tolist() == [2, 3] and ds[1][1].item() == 8
    assert ds.tensors[0] is x
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        D.TensorDataset(x, pytensor.ones(2))


def test_stack_dataset():
    ds = D.StackDataset([1, 2, 3], "abc")
    assert ds[1] == (2, "b") and len(ds) == 3 and ds.__getitems__([0, 2]) == [(1, "a"), (3, "c")]
    dd = D.StackDataset(a=[1, 2], b=D.Subset([5, 6, 7], [2, 1]))
    assert dd[0] == {"a": 1, "b": 7} and dd.__getitems__([1]) == [{"a": 2, "b": 6}]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        D.StackDataset([1], [1, 2])
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        D.StackDataset()
    with pytest.raises(ValueError, match=r"Supported either ``tuple``- \(via ``args``\) or"
                                         r"``dict``- \(via ``kwargs``\) like input/output"):
        D.StackDataset([1], a=[1])

    class Short(D.Dataset):
        def __getitems__(self, idx):
            return [0]

        def __len__(self):
            return 2
    with pytest.raises(ValueError, match="Nested dataset's output size mismatch. Expected 2, "
                                         "got 1"):
        D.StackDataset(Short()).__getitems__([0, 1])


def test_concat_dataset():
    ds = D.ConcatDataset([[1, 2], [], [3, 4, 5]])
    assert ds.cumulative_sizes == [2, 2, 5] and [ds[i] for i in range(5)] == [1, 2, 3, 4, 5]
    assert ds[-1] == 5 and ds[-5] == 1
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset "
                                         "length"):
        ds[-6]
    with pytest.raises(IndexError):
        ds[5]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        D.ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        D.ConcatDataset([Stream(1)])
    with pytest.warns(FutureWarning, match="`cummulative_sizes` attribute is renamed"):
        assert ds.cummulative_sizes == [2, 2, 5]


def test_chain_dataset_errors():
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(D.ChainDataset([[1]]))
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(D.ChainDataset([[1]]))


def test_subset():
    s = D.Subset([10, 11, 12, 13], [3, 1])
    assert len(s) == 2 and s[0] == 13 and s.__getitems__([1, 0]) == [11, 13]

    class Bad(D.Subset):
        def __getitem__(self, i):
            return 0
    with pytest.raises(NotImplementedError, match="Bad overrides __getitem__ but not "
                                                  "__getitems__"):
        Bad([1], [0])


def test_random_split_lengths_and_fractions():
    g = pytensor.Generator().manual_seed(3)
    a, b = D.random_split(range(10), [3, 7], generator=g)
    perm = pytensor.randperm(10, generator=pytensor.Generator().manual_seed(3)).tolist()
    assert list(a) == perm[:3] and list(b) == perm[3:]
    parts = D.random_split(range(11), [0.5, 0.3, 0.2], generator=g)
    assert [len(p) for p in parts] == [6, 3, 2]
    assert sorted(i for p in parts for i in p) == list(range(11))
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0. This might result in "
                                         "an empty dataset."):
        D.random_split(range(2), [1.0, 0.0])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the "
                                         "input dataset!"):
        D.random_split(range(3), [1, 1])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        D.random_split(range(3), [0.5, 1.5, -1.0])
    pytensor.manual_seed(0)
    first = [list(p) for p in D.random_split(range(6), [3, 3])]
    pytensor.manual_seed(0)
    assert [list(p) for p in D.random_split(range(6), [3, 3])] == first


@requires_torch
def test_random_split_sizes_match_torch():
    for n, fr in ((10, [0.3, 0.3, 0.4]), (7, [0.5, 0.5]), (5, [0.1, 0.9]), (3, [1 / 3] * 3)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = [len(p) for p in D.random_split(range(n), fr)]
            theirs = [len(p) for p in torch.utils.data.random_split(range(n), fr)]
        assert ours == theirs


# ------------------------------------------------------------------ samplers

def test_sequential_and_batch_sampler():
    assert list(D.SequentialSampler(range(4))) == [0, 1, 2, 3]
    assert len(D.SequentialSampler("abc")) == 3
    bs = D.BatchSampler(D.SequentialSampler(range(10)), 3, False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(bs) == 4
    bs = D.BatchSampler(range(10), 3, True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(bs) == 3
    for size in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match=f"batch_size should be a positive integer value, "
                                             f"but got batch_size={size}"):
            D.BatchSampler(range(3), size, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got "
                                         "drop_last=1"):
        D.BatchSampler(range(3), 2, 1)
    with pytest.raises(NotImplementedError):
        iter(D.Sampler())


def test_random_sampler():
    g = pytensor.Generator().manual_seed(7)
    perm = pytensor.randperm(5, generator=pytensor.Generator().manual_seed(7)).tolist()
    assert list(D.RandomSampler(range(5), generator=g)) == perm
    s = D.RandomSampler(range(5), num_samples=12, generator=pytensor.Generator().manual_seed(1))
    out = list(s)
    assert len(out) == len(s) == 12 and sorted(out[:5]) == list(range(5))
    s = D.RandomSampler(range(4), replacement=True, num_samples=70,
                        generator=pytensor.Generator().manual_seed(2))
    out = list(s)
    ref_g = pytensor.Generator().manual_seed(2)
    ref = pytensor.randint(high=4, size=(32,), dtype=pytensor.int64, generator=ref_g).tolist()
    assert len(out) == 70 and out[:32] == ref and set(out) <= set(range(4))
    # Without a generator each iteration draws a seed from the default one.
    pytensor.manual_seed(5)
    a = list(D.RandomSampler(range(20)))
    pytensor.manual_seed(5)
    assert list(D.RandomSampler(range(20))) == a
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got "
                                        "replacement=1"):
        D.RandomSampler(range(3), replacement=1)
    for n in (0, -2, 1.5):
        with pytest.raises(ValueError, match=f"num_samples should be a positive integer value, "
                                             f"but got num_samples={n}"):
            D.RandomSampler(range(3), num_samples=n)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but "
                                         "got num_samples=0"):
        D.RandomSampler([])


def test_subset_and_weighted_samplers():
    g = pytensor.Generator().manual_seed(4)
    perm = pytensor.randperm(3, generator=pytensor.Generator().manual_seed(4)).tolist()
    assert list(D.SubsetRandomSampler([10, 20, 30], generator=g)) == [[10, 20, 30][i]
                                                                       for i in perm]
    w = D.WeightedRandomSampler([0.0, 0.0, 1.0], 4)
    assert list(w) == [2, 2, 2, 2] and len(w) == 4 and w.weights.dtype == pytensor.float64
    w = D.WeightedRandomSampler([1.0, 2.0, 3.0], 3, replacement=False,
                                generator=pytensor.Generator().manual_seed(0))
    assert sorted(w) == [0, 1, 2]
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but "
                                         "got num_samples=True"):
        D.WeightedRandomSampler([1.0], True)
    with pytest.raises(ValueError, match="replacement should be a boolean value, but got "
                                         "replacement=0"):
        D.WeightedRandomSampler([1.0], 1, replacement=0)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights "
                                         r"have shape \(1, 2\)"):
        D.WeightedRandomSampler([[1.0, 2.0]], 1)


# ------------------------------------------------------------------ DataLoader, one process

def test_loader_batches_exact():
    ds = D.TensorDataset(pytensor.arange(20.).view(10, 2), pytensor.arange(10))
    batches = list(D.DataLoader(ds, batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].shape == (4, 2) and type(batches[0]) is list
    assert [b[1].tolist() for b in D.DataLoader(ds, batch_size=4, drop_last=True)] == \
        [[0, 1, 2, 3], [4, 5, 6, 7]]
    # batch_size=None: samples one by one through default_convert
    out = list(D.DataLoader([np.int64(1), np.int64(2)], batch_size=None))
    assert [o.tolist() for o in out] == [1, 2] and isinstance(out[0], pytensor.Tensor)
    out = list(D.DataLoader(ds, batch_sampler=[[3, 1], [0]]))
    assert [b[1].tolist() for b in out] == [[3, 1], [0]]
    assert len(D.DataLoader(ds, batch_size=3)) == 4
    assert len(D.DataLoader(ds, batch_size=3, drop_last=True)) == 3


def test_loader_shuffle_uses_generator():
    g = pytensor.Generator().manual_seed(11)
    got = [b.tolist() for b in D.DataLoader(list(range(10)), batch_size=3, shuffle=True,
                                            generator=g)]
    # The iterator draws its base seed from the generator first, then the sampler permutes.
    ref_g = pytensor.Generator().manual_seed(11)
    pytensor.empty((), dtype=pytensor.int64).random_(generator=ref_g)
    ref = pytensor.randperm(10, generator=ref_g).tolist()
    assert [i for b in got for i in b] == ref
    g2 = pytensor.Generator().manual_seed(11)
    again = [b.tolist() for b in D.DataLoader(list(range(10)), batch_size=3, shuffle=True,
                                              generator=g2)]
    assert again == got


@requires_torch
def test_sequential_loader_matches_torch():
    import torch.utils.data as T
    x = np.arange(60, dtype=np.float32).reshape(10, 6)
    for kw in ({"batch_size": 3}, {"batch_size": 4, "drop_last": True}, {"batch_size": None},
               {"batch_sampler": [[1, 2], [5]]}):
        ours = list(D.DataLoader(D.TensorDataset(pytensor.tensor(x), pytensor.arange(10)), **kw))
        theirs = list(T.DataLoader(T.TensorDataset(torch.tensor(x), torch.arange(10)), **kw))
        assert _py(ours) == _py(theirs), kw
    samples = [{"a": i, "b": [float(i), "s"], "c": np.full(2, i)} for i in range(5)]
    assert _py(list(D.DataLoader(samples, batch_size=2))) == \
        _py(list(T.DataLoader(samples, batch_size=2)))


def test_iterable_loader_and_length_warning():
    loader = D.DataLoader(Stream(5), batch_size=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in D.DataLoader(Stream(5), batch_size=2, drop_last=True)] == \
        [[0, 1], [2, 3]]
    assert len(loader) == 3
    assert len(D.DataLoader(Stream(5), batch_size=2, drop_last=True)) == 2
    assert list(D.DataLoader(Stream(2), batch_size=None)) == [0, 1]

    class Liar(Stream):
        def __len__(self):
            return 1
    loader = D.DataLoader(Liar(3), batch_size=None)
    assert len(loader) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        list(loader)
    assert [str(w.message).split(" was ")[1] for w in caught] == [
        f"reported to be 1(when accessing len(dataloader)), but {n} samples have been fetched. "
        for n in (2, 3)]


def _loader_error(lib_data, ds, **kw):
    with pytest.raises(Exception) as info:
        lib_data.DataLoader(ds, **kw)
    return type(info.value), str(info.value)


LOADER_ERRORS = [
    ({"num_workers": -1}, ValueError, "num_workers option should be non-negative; use "
                                      "num_workers=0 to disable multiprocessing."),
    ({"timeout": -1}, ValueError, "timeout option should be non-negative"),
    ({"prefetch_factor": 2}, ValueError, "prefetch_factor option could only be specified in "
                                         "multiprocessing.let num_workers > 0 to enable"),
    ({"num_workers": 1, "prefetch_factor": -1}, ValueError,
     "prefetch_factor option should be non-negative"),
    ({"persistent_workers": True}, ValueError, "persistent_workers option needs num_workers > 0"),
    ({"sampler": [0], "shuffle": True}, ValueError,
     "sampler option is mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, ValueError,
     "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
     "drop_last"),
    ({"batch_size": None, "drop_last": True}, ValueError,
     "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"),
    ({"multiprocessing_context": "fork"}, ValueError,
     "multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
     "but got num_workers=0"),
    ({"num_workers": 1, "multiprocessing_context": "nope"}, ValueError,
     "multiprocessing_context option should specify a valid start method in"),
    ({"num_workers": 1, "multiprocessing_context": 3}, TypeError,
     "multiprocessing_context option should be a valid context object or a string specifying "
     "the start method, but got multiprocessing_context=3"),
]


@pytest.mark.parametrize("kw,exc,msg", LOADER_ERRORS)
def test_loader_option_errors(kw, exc, msg):
    etype, text = _loader_error(D, [1, 2], **kw)
    assert etype is exc and text.startswith(msg), text


@requires_torch
def test_loader_option_errors_match_torch():
    import torch.utils.data as T
    for kw, _, _ in LOADER_ERRORS:
        assert _loader_error(D, [1, 2], **kw) == _loader_error(T, [1, 2], **kw), kw
    class TStream(T.IterableDataset):
        def __iter__(self):
            return iter(range(2))
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        ours = _loader_error(D, Stream(2), **kw)
        theirs = _loader_error(T, TStream(), **kw)
        assert ours[0] is theirs[0] and ours[1].split(" object at")[0].replace("pytensor", "") \
            == theirs[1].split(" object at")[0].replace("torch", ""), kw


def test_loader_iterable_option_errors():
    assert _loader_error(D, Stream(2), shuffle=True) == (
        ValueError, "DataLoader with IterableDataset: expected unspecified shuffle option, but "
                    "got shuffle=True")
    etype, text = _loader_error(D, Stream(2), batch_sampler=[[0]])
    assert text == ("DataLoader with IterableDataset: expected unspecified batch_sampler "
                    "option, but got batch_sampler=[[0]]")


def test_loader_attributes_frozen_and_defaults():
    loader = D.DataLoader([1, 2, 3], batch_size=2)
    for attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                 "persistent_workers"):
        with pytest.raises(ValueError, match=f"{attr} attribute should not be set after "
                                             f"DataLoader is initialized"):
            setattr(loader, attr, None)
    loader.num_workers = 0  # others may change
    assert isinstance(loader.sampler, D.SequentialSampler)
    assert isinstance(loader.batch_sampler, D.BatchSampler)
    assert loader.collate_fn is D.default_collate and loader.prefetch_factor is None
    assert D.DataLoader([1], batch_size=None).collate_fn is D.default_convert
    assert isinstance(D.DataLoader([1], shuffle=True).sampler, D.RandomSampler)
    assert D.DataLoader([1], num_workers=1).prefetch_factor == 2
    it = iter(loader)
    assert len(it) == 2
    import pickle
    with pytest.raises(NotImplementedError):
        pickle.dumps(it)


def test_pin_memory_warns_without_accelerator():
    if pytensor.cuda.is_available():
        pytest.skip("an accelerator is present")
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator "
                                         "is found, then device pinned memory won't be used."):
        out = list(D.DataLoader([1, 2], pin_memory=True))
    assert [o.tolist() for o in out] == [[1], [2]]


def test_too_many_workers_warns():
    with pytest.warns(UserWarning, match="This DataLoader will create 4096 worker processes in "
                                         "total. Our suggested max number of worker in current "
                                         "system is"):
        D.DataLoader([1], num_workers=4096)


def test_get_worker_info_in_main_process():
    assert D.get_worker_info() is None


def test_worker_seed_state_matches_torch_formula():
    from pytensor.utils.data._utils.worker import _generate_state
    # NumPy's SeedSequence pool for (worker_id, base_seed) folded to four words: the values
    # torch 2.13 gives (computed once with torch.utils.data._utils.worker._generate_state).
    assert _generate_state(0, 0) == _generate_state(0, 0)
    assert len(set(map(tuple, (_generate_state(5, w) for w in range(4))))) == 4


@requires_torch
def test_worker_seed_state_equals_torch():
    from torch.utils.data._utils.worker import _generate_state as theirs
    from pytensor.utils.data._utils.worker import _generate_state as ours
    for base in (0, 1, 2**40 + 17, -5, 2**63 - 1, -(2**63)):
        for wid in (0, 1, 7):
            assert ours(base, wid) == theirs(base, wid)


def _wrapped(wrapper_cls, exc):
    try:
        raise exc
    except Exception:
        return wrapper_cls(where="in DataLoader worker process 3")


def test_exception_wrapper_reraise():
    from pytensor.utils.data._utils import ExceptionWrapper
    with pytest.raises(ValueError) as info:
        _wrapped(ExceptionWrapper, ValueError("boom")).reraise()
    text = str(info.value)
    assert text.startswith("Caught ValueError in DataLoader worker process 3.\nOriginal Traceback "
                           "(most recent call last):\n") and text.endswith("ValueError: boom\n")
    with pytest.raises(KeyError) as info:
        _wrapped(ExceptionWrapper, KeyError("k")).reraise()
    assert repr(info.value).startswith("KeyError(Caught KeyError in DataLoader worker process 3.")

    class TwoArgs(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)
    with pytest.raises(RuntimeError, match="Caught TwoArgs in DataLoader worker process 3"):
        _wrapped(ExceptionWrapper, TwoArgs(1, 2)).reraise()


@requires_torch
def test_exception_wrapper_matches_torch():
    from torch._utils import ExceptionWrapper as TW
    from pytensor.utils.data._utils import ExceptionWrapper as PW
    for exc in (ValueError("x"), KeyError("k"), IndexError(3)):
        got = []
        for cls in (PW, TW):
            with pytest.raises(Exception) as info:
                _wrapped(cls, exc).reraise()
            lines = str(info.value).splitlines()
            got.append((type(info.value), lines[:2], lines[-1]))
        assert got[0] == got[1]


def test_distributed_sampler():
    parts = [list(D.DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False))
             for r in range(2)]
    assert parts == [[0, 2, 4], [1, 3, 0]]
    parts = [list(D.DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False,
                                       drop_last=True)) for r in range(2)]
    assert parts == [[0, 2], [1, 3]]
    assert list(D.DistributedSampler(range(1), num_replicas=3, rank=2, shuffle=False)) == [0]
    s = D.DistributedSampler(range(8), num_replicas=2, rank=0, seed=3)
    perm = pytensor.randperm(8, generator=pytensor.Generator().manual_seed(3)).tolist()
    assert list(s) == perm[0::2] and len(s) == 4
    s.set_epoch(2)
    perm = pytensor.randperm(8, generator=pytensor.Generator().manual_seed(5)).tolist()
    assert list(s) == perm[0::2]
    with pytest.raises(ValueError,
                       match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        D.DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        D.DistributedSampler(range(4))


@requires_torch
def test_distributed_sampler_unshuffled_matches_torch():
    from torch.utils.data import DistributedSampler as TDS
    for n, reps, drop in ((5, 2, False), (5, 2, True), (7, 3, False), (2, 4, False),
                          (9, 4, True)):
        for r in range(reps):
            kw = dict(num_replicas=reps, rank=r, shuffle=False, drop_last=drop)
            assert list(D.DistributedSampler(range(n), **kw)) == list(TDS(range(n), **kw))


@pytest.mark.parametrize("module", [
    "pytensor.utils", "pytensor.utils.data", "pytensor.utils.data.dataset",
    "pytensor.utils.data.sampler", "pytensor.utils.data.dataloader",
    "pytensor.utils.data.distributed", "pytensor.utils.data._utils",
    "pytensor.utils.data._utils.collate", "pytensor.utils.data._utils.worker"])
def test_docstring_examples(module):
    import doctest
    import importlib
    m = importlib.import_module(module)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in doctest.DocTestFinder().find(m, module, globs=dict(vars(m),
                                                                           pytensor=pytensor))
             if t.examples and t.filename and t.filename.startswith(os.path.dirname(
                 pytensor.__file__))]
    assert tests
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_pytensor_utils_reachable_after_plain_import():
    import pytensor as p
    assert p.utils.data.DataLoader is D.DataLoader
    assert D.DataLoader.__module__ == "pytensor.utils.data.dataloader"
    from pytensor.utils.data._utils.worker import WorkerInfo
    assert repr(WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)) == (
        "WorkerInfo(id=0, num_workers=1, seed=3, dataset=None, rng=None, "
        "worker_method='multiprocessing')")
