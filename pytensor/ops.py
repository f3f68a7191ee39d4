"""``pytensor.ops.<namespace>.<name>[.<overload>]``: every registered operator as an object, as
``torch.ops`` offers them.

``pytensor.ops.aten`` is an ``_OpNamespace``; its attributes are ``OpOverloadPacket`` objects, one
per operator name, made on first access and cached. A packet is callable (the overload is picked
from the arguments, Note [overload order] in _ops) and its attributes are the ``OpOverload``
objects of single overloads (``.default`` is the one with the empty overload name), each with its
``_schema`` and a ``_dispatch_dump()``. Operators defined later from Python
(pytensor.library) appear in the same way; a packet notices new overloads of its name because the
table of operators is re-read whenever it changed.

>>> import pytensor
>>> pytensor.ops.aten.add.Tensor(pytensor.ones(2), pytensor.ones(2)).tolist()
[2.0, 2.0]
>>> str(pytensor.ops.aten.add.Tensor._schema)
'aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor'
"""

from __future__ import annotations

import types

from . import _ops, _opsgen
from ._C import lib


class OpOverload:
    """One overload of an operator: callable with its schema's arguments."""

    __slots__ = ("_ns", "_name", "_overloadname", "_op", "_packet", "_sig", "_fn",
                 "__weakref__")

    def __init__(self, packet: "OpOverloadPacket", overload: str, op):
        self._ns = packet._ns
        self._name = packet._name
        self._overloadname = overload or "default"
        self._op = op
        self._packet = packet
        self._sig = self._fn = None

    def __call__(self, *args, **kwargs):
        # The generated caller belongs to the schema it was made from: a def released and made
        # again gives the operator another schema, and the caller is made again.
        sig = self._sig
        if sig is None or sig.schema != lib.pt_op_schema(self._op):
            sig = self._sig = _ops.sig_of(self._op)
            self._fn = _opsgen.make_overload_caller(sig)
        return self._fn(*args, **kwargs)

    @property
    def _schema(self):
        from ._schema import FunctionSchema
        sig = _ops.sig_of(self._op)
        return FunctionSchema._from_handle(sig.schema)

    @property
    def overloadpacket(self) -> "OpOverloadPacket":
        return self._packet

    @property
    def __name__(self) -> str:
        return f"{self._name}.{self._overloadname}"

    def name(self) -> str:
        """``"aten::add.Tensor"`` (no overload part for the default overload)."""
        return self._qualified_name()

    def _qualified_name(self) -> str:
        base = f"{self._ns}::{self._name}"
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    def _dispatch_dump(self) -> str:
        """The dispatcher's state for this overload (schema, kernels per key, table)."""
        from ._dispatch import _dispatch_dump
        return _dispatch_dump(self._qualified_name())

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self._ns}.{self._name}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"{self._ns}.{self._name}.{self._overloadname}"


class OpOverloadPacket:
    """The overloads of one operator name. Calling it picks the overload from the arguments."""

    __slots__ = ("_ns", "_name", "_qualified_op_name", "_overloads", "_key", "_fn",
                 "__weakref__")

    def __init__(self, ns: str, name: str):
        self._ns = ns
        self._name = name
        self._qualified_op_name = f"{ns}::{name}"
        self._overloads = {}
        self._key = self._fn = None

    def __call__(self, *args, **kwargs):
        # Made again whenever the table of operators changed (an overload added or released).
        key = (lib.pt_dispatch_op_count(), _ops.generation)
        if key != self._key:
            self._fn = _opsgen.make_binding(self._qualified_op_name, 0)
            self._key = key
        return self._fn(*args, **kwargs)

    def _entries(self) -> dict:
        """{overload name ("" for the default): op entry} as the dispatcher has them now."""
        out = {}
        for op in _ops.table().get(self._qualified_op_name, ()):
            out[_ops.sig_of(op).overload] = op
        return out

    def overloads(self) -> list:
        """The overload names (``"default"`` for the empty one), in definition order.

        >>> pytensor.ops.aten.add.overloads()[:2]
        ['Tensor', 'out']
        """
        return [o or "default" for o in self._entries()]

    def __getattr__(self, key: str):
        if key.startswith("__"):
            raise AttributeError(key)
        overload = "" if key == "default" else key
        op = self._entries().get(overload)
        if op is None:
            raise AttributeError(f"The underlying op of '{self._ns}.{self._name}' has no overload "
                                 f"name '{key}'")
        cached = self._overloads.get(overload)
        if cached is None or cached._op != op:
            cached = self._overloads[overload] = OpOverload(self, overload, op)
        return cached

    def _dispatch_dump(self) -> str:
        """The dump of every overload, one after the other."""
        return "\n".join(getattr(self, o)._dispatch_dump() for o in self.overloads())

    @property
    def __name__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"

    def __str__(self) -> str:
        return f"{self._ns}.{self._name}"


class _OpNamespace(types.ModuleType):
    """``pytensor.ops.<ns>``: operator packets by name, made on first access."""

    def __init__(self, name: str):
        super().__init__(f"pytensor.ops.{name}")
        self._ns_name = name

    def __getattr__(self, op_name: str):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        ns = self._ns_name
        if f"{ns}::{op_name}" not in _ops.table():
            raise AttributeError(f"'_OpNamespace' '{ns}' object has no attribute '{op_name}'")
        packet = OpOverloadPacket(ns, op_name)
        setattr(self, op_name, packet)
        return packet

    def __dir__(self):
        prefix = f"{self._ns_name}::"
        return sorted(q[len(prefix):] for q in _ops.table() if q.startswith(prefix))


_namespaces: dict = {}


def overload_of(op) -> OpOverload:
    """The OpOverload object of a dispatcher entry (``pt_op *``)."""
    sig = _ops.sig_of(op)
    packet = getattr(__getattr__(sig.ns), sig.name)
    return getattr(packet, sig.overload or "default")


def __getattr__(ns: str):
    if ns.startswith("__"):
        raise AttributeError(f"module 'pytensor.ops' has no attribute '{ns}'")
    space = _namespaces.get(ns)
    if space is None:
        space = _namespaces[ns] = _OpNamespace(ns)
    return space
