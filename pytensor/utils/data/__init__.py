"""Data loading, as ``torch.utils.data``: datasets, samplers, collation and DataLoader.

>>> from pytensor.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(pytensor.arange(6.).view(3, 2), pytensor.arange(3))
>>> [y.tolist() for _, y in DataLoader(ds, batch_size=2)]
[[0, 1], [2]]
"""

from .dataloader import (DataLoader, _DatasetKind, default_collate, default_convert,
                         get_worker_info)
from .distributed import DistributedSampler
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
    "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate",
    "default_convert", "get_worker_info", "random_split",
]
