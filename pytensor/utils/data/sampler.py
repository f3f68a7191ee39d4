"""Samplers, as ``torch.utils.data.sampler``: iterables of dataset keys (``Sequential``, ``Random``,
``SubsetRandom``, ``WeightedRandom``) and ``BatchSampler``, which groups them into lists.
Random ones draw from a pytensor ``Generator``; without one, ``RandomSampler`` seeds a fresh
generator from the default one at each iteration, as torch does.
"""

from __future__ import annotations

import itertools
from typing import Generic, Iterator, List, Optional, Sequence, TypeVar

import pytensor

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class of samplers: subclasses define ``__iter__`` (and ``__len__`` where known).

    >>> class Evens(Sampler):
    ...     def __iter__(self): return iter(range(0, 6, 2))
    >>> list(Evens())
    [0, 2, 4]
    """

    def __iter__(self) -> Iterator[_T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1.

    >>> list(SequentialSampler("abc"))
    [0, 1, 2]
    """

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Indices in random order: a permutation (repeated to reach ``num_samples``), or with
    ``replacement`` independent draws in chunks of 32.

    >>> g = pytensor.Generator().manual_seed(0)
    >>> sorted(RandomSampler(range(5), generator=g))
    [0, 1, 2, 3, 4]
    """

    def __init__(self, data_source, replacement: bool = False,
                 num_samples: Optional[int] = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            seed = int(pytensor.empty((), dtype=pytensor.int64).random_().item())
            generator = pytensor.Generator().manual_seed(seed)
        if self.replacement:
            # Drawn 32 at a time, so that a long epoch holds no index list of its whole length.
            for _ in range(self.num_samples // 32):
                yield from pytensor.randint(high=n, size=(32,), dtype=pytensor.int64,
                                            generator=generator).tolist()
            yield from pytensor.randint(high=n, size=(self.num_samples % 32,),
                                        dtype=pytensor.int64, generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from pytensor.randperm(n, generator=generator).tolist()
            yield from pytensor.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in random order.

    >>> sorted(SubsetRandomSampler([7, 3, 5]))
    [3, 5, 7]
    """

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in pytensor.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices of ``weights`` drawn with probabilities proportional to them
    (``multinomial``), with or without replacement.

    >>> list(WeightedRandomSampler([0.0, 1.0], 3))
    [1, 1, 1]
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = pytensor.as_tensor(weights, dtype=pytensor.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = pytensor.multinomial(self.weights, self.num_samples, self.replacement,
                                     generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[List[int]]):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter unless
    ``drop_last``).

    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[List[int]]:
        it = iter(self.sampler)
        if self.drop_last:
            yield from (list(batch) for batch in zip(*[it] * self.batch_size))
            return
        batch = list(itertools.islice(it, self.batch_size))
        while batch:
            yield batch
            batch = list(itertools.islice(it, self.batch_size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
