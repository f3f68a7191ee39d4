"""gen_ops_yaml.py - reads csrc/ops/native_functions.yaml for tools/gen_ops.py (stdlib only).

Two readers, both only as far as the generator needs them:
  - read_declarations(): the YAML subset the declarations file uses, PyTorch's layout: a list of
    mappings (`- func: ...`) whose values are one-line scalars, and one nested mapping, `dispatch:`,
    of `Key1, Key2: kernel` lines; `#` starts a comment. Each value keeps its line number for the
    debug strings and the error messages (`csrc/ops/native_functions.yaml:12: ...`).
  - parse_schema(): name, overload, argument types and names, returns. Types are kept with their
    suffixes in order (`Tensor?[]` is a list of optionals, `int[]?` an optional list) and their
    alias annotation (`Tensor(a!)` is written). Defaults are kept as text: no C signature depends
    on them, and the core's own parser (csrc/core/schema.c) reads them when pt_init defs the
    schema, so the two parsers never have to agree on more than the types.
PyYAML is not needed at build time.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

YAML_REL = "csrc/ops/native_functions.yaml"


class DeclarationError(Exception):
    """A problem in the declarations file, reported as file:line: message."""


# ---------------------------------------------------------------- the YAML subset
ENTRY_KEYS = {"func", "variants", "dispatch", "tags", "python_module", "device_check",
              "device_guard", "manual_cpp_binding", "autogen", "structured", "structured_delegate"}
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_, ]*?)\s*:(?:\s+(.*))?$")


@dataclass
class Entry:
    line: int
    fields: dict = field(default_factory=dict)    # key -> (value, line)
    dispatch: list = field(default_factory=list)  # (keys, kernel, line)


def _strip_comment(line: str) -> str:
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def read_declarations(path: str, rel: str = YAML_REL) -> list:
    """The entries of a native_functions.yaml: a list of mappings with one-line values and one
    nested mapping (dispatch:)."""
    entries: list = []
    cur: Optional[Entry] = None
    in_dispatch = False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, raw in enumerate(lines, 1):
        line = _strip_comment(raw).rstrip()
        if not line.strip():
            continue
        where = f"{rel}:{lineno}"
        indent = len(line) - len(line.lstrip(" "))
        if line[indent:indent + 1] == "\t":
            raise DeclarationError(f"{where}: tabs are not allowed for indentation")
        text = line.strip()
        if indent == 0:
            if not text.startswith("- "):
                raise DeclarationError(f"{where}: expected '- func: ...' to start an entry")
            cur = Entry(lineno)
            entries.append(cur)
            text, indent, in_dispatch = text[2:].strip(), 2, False
        if cur is None:
            raise DeclarationError(f"{where}: expected an entry ('- func: ...')")
        m = _KEY_RE.match(text)
        if not m:
            raise DeclarationError(f"{where}: expected 'key: value', got {text!r}")
        key, value = m.group(1).strip(), (m.group(2) or "").strip()
        if indent == 2:
            if key not in ENTRY_KEYS:
                raise DeclarationError(f"{where}: unknown key {key!r} (known: "
                                       f"{', '.join(sorted(ENTRY_KEYS))})")
            if key in cur.fields:
                raise DeclarationError(f"{where}: {key!r} given twice")
            in_dispatch = key == "dispatch" and not value
            cur.fields[key] = (_unquote(value), lineno)
        elif indent == 4 and in_dispatch:
            keys = [k.strip() for k in key.split(",")]
            if not value or not all(keys):
                raise DeclarationError(f"{where}: expected 'Key[, Key...]: kernel_name'")
            cur.dispatch.append((keys, _unquote(value), lineno))
        else:
            raise DeclarationError(f"{where}: unexpected indentation ({indent} spaces)")
    for e in entries:
        if "func" not in e.fields:
            raise DeclarationError(f"{rel}:{e.line}: the entry has no 'func:'")
    return entries


# ---------------------------------------------------------------- schemas (as far as C needs them)
@dataclass
class Type:
    base: str
    wrappers: list  # innermost first: "?" or ("[]", N)
    alias: Optional[str] = None
    write: bool = False
    text: str = ""

    @property
    def shape(self) -> str:
        """'' plain, '?' optional, '[]' list, '[]?' optional list, '?[]' list of optionals."""
        return "".join("?" if w == "?" else "[]" for w in self.wrappers)


@dataclass
class Arg:
    type: Type
    name: str
    default: Optional[str]
    kwarg_only: bool


@dataclass
class Schema:
    ns: str
    name: str
    overload: str
    args: list
    returns: list  # of (Type, name)
    vararg: bool = False
    varret: bool = False

    @property
    def full_name(self) -> str:
        return f"{self.ns}::{self.name}" + (f".{self.overload}" if self.overload else "")

    @property
    def ident(self) -> str:
        return self.name + (f"_{self.overload}" if self.overload else "")


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIGITS = re.compile(r"[0-9]+")


class _Scanner:
    def __init__(self, text: str, where: str):
        self.s, self.i, self.where = text, 0, where

    def error(self, what: str):
        raise DeclarationError(f"{self.where}: schema: {what} at column {self.i + 1}: {self.s}")

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def peek(self, tok: str) -> bool:
        self.ws()
        return self.s.startswith(tok, self.i)

    def take(self, tok: str) -> bool:
        if self.peek(tok):
            self.i += len(tok)
            return True
        return False

    def expect(self, tok: str):
        if not self.take(tok):
            found = self.s[self.i:self.i + 8] or "end of input"
            self.error(f"expected {tok!r} but found {found!r}")

    def ident(self) -> str:
        self.ws()
        m = _IDENT.match(self.s, self.i)
        if not m:
            self.error("expected a name")
        self.i = m.end()
        return m.group(0)

    def until_top_level(self, stops: str) -> str:
        """Raw text up to a stop character outside brackets and quotes (for defaults)."""
        start, depth, quote = self.i, 0, None
        while self.i < len(self.s):
            ch = self.s[self.i]
            if quote:
                if ch == "\\":
                    self.i += 1
                elif ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch in "([":
                depth += 1
            elif ch in ")]" and depth:
                depth -= 1
            elif ch in stops and depth == 0:
                break
            self.i += 1
        return self.s[start:self.i].strip()

    def type(self) -> Type:
        self.ws()
        start = self.i
        t = Type(self.ident(), [])
        while True:
            if self.s.startswith("(", self.i):
                self.i += 1
                ann = self.until_top_level(")")
                self.expect(")")
                t.alias, t.write = ann, "!" in ann
            elif self.s.startswith("!", self.i):
                self.i += 1
                t.write = True
            elif self.s.startswith("[", self.i):
                self.i += 1
                self.ws()
                m = _DIGITS.match(self.s, self.i)
                n = None
                if m:
                    n, self.i = int(m.group(0)), m.end()
                self.expect("]")
                t.wrappers.append(("[]", n))
            elif self.s.startswith("?", self.i):
                self.i += 1
                t.wrappers.append("?")
            else:
                break
        t.text = self.s[start:self.i]
        return t


def parse_schema(text: str, where: str) -> Schema:
    """Name, overload, typed arguments and returns of a schema (defaults kept as text: the C
    signature does not depend on them; the core's parser reads them at init)."""
    sc = _Scanner(text.strip(), where)
    name = sc.ident()
    ns = "aten"
    if sc.take("::"):
        ns, name = name, sc.ident()
    overload = ""
    if sc.s.startswith(".", sc.i):
        sc.i += 1
        overload = sc.ident()
    sc.expect("(")
    args, kwarg_only, vararg = [], False, False
    if not sc.take(")"):
        while True:
            if sc.take("..."):
                vararg = True
            elif sc.take("*"):
                kwarg_only = True
            else:
                t = sc.type()
                n = sc.ident()
                default = None
                if sc.take("="):
                    default = sc.until_top_level(",)")
                args.append(Arg(t, n, default, kwarg_only))
            if sc.take(")"):
                break
            sc.expect(",")
    sc.expect("->")
    returns, varret = [], False
    if sc.take("("):
        if not sc.take(")"):
            while True:
                if sc.take("..."):
                    varret = True
                else:
                    t = sc.type()
                    rn = "" if (sc.peek(",") or sc.peek(")")) else sc.ident()
                    returns.append((t, rn))
                if sc.take(")"):
                    break
                sc.expect(",")
    elif sc.take("..."):
        varret = True
    else:
        t = sc.type()
        sc.ws()
        rn = "" if sc.i >= len(sc.s) else sc.ident()
        returns.append((t, rn))
    sc.ws()
    if sc.i != len(sc.s):
        sc.error("expected end of schema")
    return Schema(ns, name, overload, args, returns, vararg, varret)
