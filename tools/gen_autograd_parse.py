"""gen_autograd_parse.py - reads csrc/ops/derivatives.yaml into Derivative records.

The file's format and the formula language are described in gen_autograd.py. This module reads
the entries (`- name:` and the indented `input: formula` fields), parses each schema and matches
it to a declared operator, parses each formula with `ast`, names the node as PyTorch does
(node_base_name), records which names every formula reads (a Formula's `uses`: what the node must
save, and for which inputs), and attaches the in-place variants that share an entry's formulas.
"""
from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from typing import Optional

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_ops_yaml import DeclarationError, parse_schema  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DERIVATIVES_REL = "csrc/ops/derivatives.yaml"
DERIVATIVES = os.path.join(ROOT, *DERIVATIVES_REL.split("/"))


# ---------------------------------------------------------------- reading the file
@dataclass
class Entry:
    line: int
    name: str
    fields: dict = field(default_factory=dict)  # key -> (value, line)
    groups: dict = field(default_factory=dict)  # key -> the keys of its line, when several


def read_entries(path: str = DERIVATIVES, rel: str = DERIVATIVES_REL) -> list:
    entries, cur = [], None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, raw in enumerate(lines, 1):
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        where = f"{rel}:{lineno}"
        if line.startswith("- name:"):
            cur = Entry(lineno, line[len("- name:"):].strip())
            entries.append(cur)
            continue
        if not line.startswith("  ") or cur is None:
            raise DeclarationError(f"{where}: expected '- name: <schema>' or an indented field")
        key, sep, value = line.strip().partition(":")
        if not sep or not value.strip():
            raise DeclarationError(f"{where}: expected 'input: formula'")
        keys = tuple(k.strip() for k in key.split(","))
        for k in keys:
            if k in cur.fields:
                raise DeclarationError(f"{where}: '{k}' is given twice")
            cur.fields[k] = (value.strip(), lineno)
            if len(keys) > 1:
                cur.groups[k] = keys
    return entries




# ---------------------------------------------------------------- names
def node_base_name(op_name: str) -> str:
    """`log_softmax` -> LogSoftmax, `_softmax` -> Softmax, `t` -> T, `log1p` -> Log1P: each
    part title-cased, so a letter after a digit is upper case, as in torch's names."""
    return "".join(p.title() for p in op_name.split("_") if p)



# The argument types the boxed kernel of an operator with a Tensor[] result unboxes.
LIST_OUTPUT_ARGS = {("Tensor", ""), ("int", ""), ("SymInt", ""), ("int", "[]"), ("SymInt", "[]")}


@dataclass
class Formula:
    inputs: list      # argument names this formula gives gradients for (one for now)
    text: str
    tree: object
    line: int
    uses: set = field(default_factory=set)  # names the formula reads
    # Note [one formula for several inputs]: `a, b, c: f(...)` gives each of a, b, c a Formula
    # with the same tree; group is (a, b, c) and f returns one gradient per name, in that order.
    group: tuple = ()


@dataclass
class Derivative:
    entry: Entry
    op: object                  # gen_ops.Op (out-of-place)
    node: str                   # MulBackward0 (unique among the entries: C identifiers)
    formulas: list              # Formula per differentiable input (schema order)
    diff_inputs: list           # tensor argument names with an edge (schema order)
    output_diff: list           # bool per output
    uses: set = field(default_factory=set)  # names the formulas read
    inplace: list = field(default_factory=list)  # gen_ops.Op of in-place variants
    display: str = ""           # the name the node reports (node unless node_name says)
    list_input: Optional[str] = None  # the Tensor[] input with an edge per element
    list_output: bool = False   # the one result is a Tensor[]: a node input per element


class _ReturnNames(ast.NodeTransformer):
    """Names an output by its schema name (`output`, `logsumexp`) as torch's formulas do: each
    becomes result<i>."""

    def __init__(self, schema):
        args = {a.name for a in schema.args}
        self.names = {n: f"result{i}" for i, (_, n) in enumerate(schema.returns)
                      if n and n not in args}

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(self.names[node.id], node.ctx), node)
        return node


class _Collect(ast.NodeVisitor):
    def __init__(self):
        self.names = set()

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and node.func.attr in (
                "sizes", "strides", "dim", "numel", "scalar_type") \
                and isinstance(node.func.value, ast.Name) \
                and not node.args:
            self.names.add(f"{node.func.value.id}.{node.func.attr}()")
            for k in node.keywords:
                self.visit(k.value)
            return
        if isinstance(node.func, ast.Attribute):
            self.visit(node.func.value)
        for a in node.args:
            self.visit(a)
        for k in node.keywords:
            self.visit(k.value)

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "grads":
            self.names.add(f"grads[{node.slice.value}]")
            return
        self.generic_visit(node)

    def visit_Name(self, node):
        self.names.add(node.id)


def derivative_files() -> list:
    """(path, relative path) of every formulas file: derivatives.yaml first, then the
    csrc/ops/derivatives_<family>.yaml files in name order (one per operator family, as the
    declarations are split)."""
    folder = os.path.dirname(DERIVATIVES)
    rel_dir = os.path.dirname(DERIVATIVES_REL)
    names = sorted(n for n in os.listdir(folder)
                   if n.startswith("derivatives_") and n.endswith(".yaml"))
    return [(DERIVATIVES, DERIVATIVES_REL)] + [(os.path.join(folder, n), f"{rel_dir}/{n}")
                                               for n in names]


def load(ops: list, files: Optional[list] = None) -> list:
    by_full = {op.schema.full_name: op for op in ops}
    derivs, counts = [], {}
    entries = [(e, rel) for path, rel in (files if files is not None else derivative_files())
               for e in read_entries(path, rel)]
    for e, rel in entries:
        where = f"{rel}:{e.line}"
        schema = parse_schema(e.name, where)
        op = by_full.get(schema.full_name)
        if op is None:
            raise DeclarationError(f"{where}: {schema.full_name} is not a declared operator")
        list_output = [(t.base, t.shape) for t, _ in schema.returns] == [("Tensor", "[]")]
        if not op.unboxed and not list_output:
            raise DeclarationError(f"{where}: {schema.full_name} has no unboxed entry point")
        if [a.name for a in schema.args] != [a.name for a in op.schema.args]:
            raise DeclarationError(f"{where}: the schema's arguments differ from the declaration's")
        base = schema.name.lstrip("_")
        if base.endswith("_") and any(a.type.write for a in schema.args):
            base = base[:-1]
        idx = counts.get(base, 0)
        counts[base] = idx + 1
        node = node_base_name(base) + f"Backward{idx}"
        tensor_args = [a.name for a in schema.args if a.type.base == "Tensor"]
        formulas, diff = [], []
        for key, (value, line) in e.fields.items():
            if key in ("result", "output_differentiability", "node_name"):
                continue
            if key not in tensor_args:
                raise DeclarationError(f"{rel}:{line}: '{key}' is not a tensor argument of "
                                       f"{schema.full_name}")
            if value == "non_differentiable":
                continue
            try:
                tree = ast.parse(value, mode="eval").body
            except SyntaxError as err:
                raise DeclarationError(f"{rel}:{line}: formula does not parse: {err.msg}")
            tree = _ReturnNames(schema).visit(tree)
            formulas.append(Formula([key], value, tree, line, group=e.groups.get(key, ())))
        order = {n: i for i, n in enumerate(tensor_args)}
        formulas.sort(key=lambda f: order[f.inputs[0]])
        diff = [f.inputs[0] for f in formulas]
        lists = [a.name for a in schema.args if a.type.base == "Tensor" and a.type.shape == "[]"]
        list_input = next((n for n in diff if n in lists), None)
        if list_input and len(diff) > 1:
            raise DeclarationError(f"{where}: a Tensor[] input must be the only one with a formula")
        nret = len(schema.returns)
        output_diff = [True] * nret
        if "output_differentiability" in e.fields:
            value, line = e.fields["output_differentiability"]
            items = [v.strip() for v in value.strip("[] ").split(",")]
            if len(items) != nret or any(v not in ("True", "False") for v in items):
                raise DeclarationError(f"{rel}:{line}: expected one True/False per output")
            output_diff = [v == "True" for v in items]
        d = Derivative(e, op, node, formulas, diff, output_diff)
        d.display = e.fields["node_name"][0] if "node_name" in e.fields else node
        d.list_input = list_input
        d.list_output = list_output
        if list_output and (list_input or any(
                (a.type.base, a.type.shape) not in LIST_OUTPUT_ARGS for a in schema.args)):
            raise DeclarationError(f"{where}: an operator with a Tensor[] result takes one Tensor "
                                   "and int / int[] arguments here")
        for f in formulas:
            c = _Collect()
            c.visit(f.tree)
            f.uses = c.names
            if f.group:
                f.uses = f.uses - {"grad_input_mask"}
            elif "grad_input_mask" in f.uses:
                raise DeclarationError(f"{rel}:{f.line}: grad_input_mask is for a formula of "
                                       "several inputs")
            d.uses |= f.uses
        derivs.append(d)
    _attach_inplace(ops, derivs)
    return derivs


def _attach_inplace(ops: list, derivs: list) -> None:
    """In-place variants: name_ with the same arguments, of the same overload or, where the
    overload names differ (pow_.Scalar for pow.Tensor_Scalar), of the one entry whose arguments
    match and that no in-place overload of the same name claims."""
    def sig(schema):
        return [(a.name, a.type.base, a.type.shape) for a in schema.args]
    listed = {d.op.schema.full_name for d in derivs}
    for other in ops:
        s = other.schema
        if not s.name.endswith("_") or not other.unboxed or s.full_name in listed:
            continue
        same = [d for d in derivs if d.op.schema.name + "_" == s.name
                and sig(d.op.schema) == sig(s)]
        exact = [d for d in same if d.op.schema.overload == s.overload]
        if exact:
            exact[0].inplace.append(other)
            continue
        taken = {o.schema.overload for o in ops if o.schema.name == s.name}
        loose = [d for d in same if d.op.schema.overload not in taken]
        if len(loose) == 1:
            loose[0].inplace.append(other)
