"""Utilities, as ``torch.utils``: ``pytensor.utils.data`` (datasets, samplers and DataLoader) is
loaded on first use.

>>> import pytensor.utils
>>> pytensor.utils.data.TensorDataset.__name__
'TensorDataset'
"""


def __getattr__(name: str):
    if name == "data":
        import importlib
        return importlib.import_module(f"{__name__}.data")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | {"data"})
