"""Thunk cases of the list operators of csrc/ops/foreach.yaml (tests/py/test_fast_paths.py reads
CASES). None of them has a thunk: a thunk serves an overload that returns one Tensor, and these
return nothing (the in-place forms and the fused steps) or a Tensor[]; the dict stays so that a
future thunk here has its place, and test_every_thunk_has_a_case would name it."""

CASES: dict = {}
