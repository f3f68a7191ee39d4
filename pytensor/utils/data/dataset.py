"""Datasets, as ``torch.utils.data.dataset``: the map-style ``Dataset`` (``__getitem__``, optional
``__len__`` and batched ``__getitems__``) and the iterable ``IterableDataset``, the combinators
(``TensorDataset``, ``StackDataset``, ``ConcatDataset``, ``ChainDataset``, ``Subset``) and
``random_split``.
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable
from typing import Generic, List, Sequence, TypeVar, Union

import pytensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """A map from keys to samples: subclasses define ``__getitem__`` and, for the default samplers,
    ``__len__``; ``__getitems__(indices)`` may fetch a whole batch at once. ``a + b`` concatenates.

    >>> class Squares(Dataset):
    ...     def __getitem__(self, i): return i * i
    ...     def __len__(self): return 4
    >>> len(Squares() + Squares())
    8
    """

    def __getitem__(self, index) -> _T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    # No default __len__: a NotImplemented or raising one would change how list() and other
    # callers probe sizes; len() of a dataset without one is Python's TypeError, as in torch.

    def __add__(self, other: "Dataset[_T_co]") -> "ConcatDataset[_T_co]":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable):
    """A stream of samples: subclasses define ``__iter__``. Each DataLoader worker iterates its own
    copy, so a dataset meant for several workers splits its stream with ``get_worker_info()``.
    ``a + b`` chains.

    >>> class Count(IterableDataset):
    ...     def __iter__(self): return iter(range(3))
    >>> list(Count() + Count())
    [0, 1, 2, 0, 1, 2]
    """

    def __add__(self, other: Dataset[_T_co]):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dimension.

    >>> ds = TensorDataset(pytensor.arange(3), pytensor.zeros(3))
    >>> len(ds), ds[1]
    (3, (tensor(1), tensor(0.)))
    """

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Datasets of one length side by side: positional ones give tuple samples, keyword ones dict
    samples.

    >>> StackDataset(a=[1, 2], b=[3, 4])[1]
    {'a': 2, 'b': 4}
    """

    def __init__(self, *args, **kwargs) -> None:
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or"
                    "``dict``- (via ``kwargs``) like input/output, but both types are given.")
            parts = args
        elif kwargs:
            parts = list(kwargs.values())
        else:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    @staticmethod
    def _column(dataset, indices):
        getitems = getattr(dataset, "__getitems__", None)
        if not callable(getitems):
            return [dataset[i] for i in indices]
        items = getitems(indices)
        if len(items) != len(indices):
            raise ValueError("Nested dataset's output size mismatch."
                             f" Expected {len(indices)}, got {len(items)}")
        return items

    def __getitems__(self, indices: list):
        if isinstance(self.datasets, dict):
            batch = [{} for _ in indices]
            for key, dataset in self.datasets.items():
                for sample, value in zip(batch, self._column(dataset, indices)):
                    sample[key] = value
            return batch
        columns = [self._column(dataset, indices) for dataset in self.datasets]
        return [tuple(row) for row in zip(*columns)] if columns else []

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after another; ``cumulative_sizes`` holds the running lengths.

    >>> ds = ConcatDataset([[1, 2], [3]])
    >>> ds.cumulative_sizes, ds[2], ds[-3]
    ([2, 3], 3, 1)
    """

    @staticmethod
    def cumsum(sequence):
        sizes, total = [], 0
        for e in sequence:
            total += len(e)
            sizes.append(total)
        return sizes

    def __init__(self, datasets) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx - self.cumulative_sizes[dataset_idx - 1] if dataset_idx else idx
        return self.datasets[dataset_idx][sample_idx]

    @property
    def cummulative_sizes(self):
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets one after another, chained as they are iterated.

    >>> list(ChainDataset([ChainDataset([]), ChainDataset([])]))
    []
    """

    def __init__(self, datasets) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``. A subclass that overrides ``__getitem__`` must
    override ``__getitems__`` too (DataLoader fetches batches through it).

    >>> Subset([10, 11, 12], [2, 0])[0]
    12
    """

    def __init__(self, dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: List[int]) -> list:
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def _fraction_lengths(n: int, fractions) -> List[int]:
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    # What flooring left over goes one by one to the splits, round robin from the first.
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          f"This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths: Sequence[Union[int, float]],
                 generator=None) -> List[Subset]:
    """Splits a dataset into non-overlapping random Subsets of the given lengths, or of the given
    fractions of its length (summing to 1; the remainder of flooring goes round robin). The order
    comes from ``randperm`` with ``generator`` (the default generator when None).

    >>> a, b = random_split(range(10), [0.3, 0.7], generator=pytensor.Generator().manual_seed(0))
    >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
    (3, 7, True)
    """
    if generator is None:
        generator = pytensor.default_generator
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _fraction_lengths(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = pytensor.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
