"""``pytensor.return_types``: the named tuples that operators with named returns give back, as
``torch.return_types`` has them.

An operator whose schema names each of its several returns (``max.dim(...) -> (Tensor values,
Tensor indices)``) returns, through its function and its Tensor method, an instance of the type
named after the operator's base name (``max`` for ``max.dim``), or of ``<name>_out`` for an out=
overload, with one field per return. The types are made from the schemas (``type_of``), once per
name, when an overload is first read; this module's attributes list every one of them. The
operator objects (``pytensor.ops.aten.max.dim``) give plain tuples, as torch.ops does.

Each type behaves as torch's structseq types do: a tuple subclass (indexing, unpacking, slicing to
a plain tuple, equality and hash of a tuple) whose fields are read-only attributes, whose
constructor takes one sequence of exactly the fields' count, whose repr puts one field per line,
and which pickles by reference to this module.

>>> import pytensor
>>> r = pytensor.max(pytensor.tensor([[1, 5], [4, 2]]), 1)
>>> type(r).__name__, r.indices.tolist(), isinstance(r, tuple)
('max', [1, 0], True)
"""

from __future__ import annotations

import operator as _operator

# __all__ and all_return_types are answered by __getattr__ after every operator was read.
_types: dict = {}        # type name -> type, in the order they were made
_scanned = False


def _make(name: str, fields: tuple) -> type:
    n = len(fields)
    qual = f"{__name__}.{name}"

    def __new__(cls, sequence, dict=None):
        try:
            items = tuple(sequence)
        except TypeError:
            raise TypeError("constructor requires a sequence") from None
        if len(items) != n:
            raise TypeError(f"{qual}() takes a {n}-sequence ({len(items)}-sequence given)")
        return tuple.__new__(cls, items)

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"{qual}(\n{body})"

    def __reduce__(self):
        return type(self), (tuple(self), {})

    ns = {"__slots__": (), "__module__": __name__, "__qualname__": name, "__doc__": None,
          "__new__": __new__, "__repr__": __repr__, "__reduce__": __reduce__,
          "__match_args__": fields, "n_fields": n, "n_sequence_fields": n,
          "n_unnamed_fields": 0}
    for i, f in enumerate(fields):
        ns[f] = property(_operator.itemgetter(i), doc=f"Alias for field number {i}")
    return type(name, (tuple,), ns)


def _register(name: str, fields: tuple) -> type:
    cls = _types.get(name)
    if cls is not None:
        return cls
    cls = _types[name] = _make(name, fields)
    globals()[name] = cls
    return cls


def type_of(sig):
    """The named-tuple type of an overload's results (its ``Sig``), or None when its schema does
    not name every one of two or more returns. Overloads of one name whose fields differ get
    numbered names (``name1``, ...), as torch's code generator numbers them."""
    rets = sig.returns
    if sig.ns != "aten" or len(rets) < 2 or not all(r.name for r in rets):
        return None
    fields = tuple(r.name for r in rets)
    base = sig.name + ("_out" if sig.has_out else "")
    name, k = base, 0
    while name in _types and _types[name].__match_args__ != fields:
        k += 1
        name = f"{base}{k}"
    return _register(name, fields)


def _scan() -> None:
    """Makes the types of every declared operator (the module's attributes are complete only
    after this)."""
    global _scanned
    from . import _ops
    for qual, ops in _ops.table().items():
        if qual.startswith("aten::"):
            for op in ops:
                _ops.sig_of(op)
    _scanned = True


def __getattr__(name: str):
    if name == "__all__" or name == "all_return_types" or \
            (not _scanned and not name.startswith("__")):
        if not _scanned:
            _scan()
        if name == "__all__":  # private operators' types are reachable but not exported, as torch's
            return ["all_return_types"] + [n for n in _types if not n.startswith("_")]
        if name == "all_return_types":
            return list(_types.values())
        if name in _types:
            return _types[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__() -> list:
    if not _scanned:
        _scan()
    return sorted(set(globals()) | set(_types))
