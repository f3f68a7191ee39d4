"""Graph nodes as Python sees them (torch.autograd.graph)."""
from .._autograd import Node

__all__ = ["Node"]
