"""Parameter initialization (``torch.nn.init``)."""
