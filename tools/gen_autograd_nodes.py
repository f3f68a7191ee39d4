"""gen_autograd_nodes.py - the C of one derivatives.yaml entry's node type.

NodeGen turns a Derivative into the node's saved fields (struct), its `apply` (each formula run
only when its input's edge leads somewhere), `release_saved` / `destroy`, the `_saved_<name>`
accessor and its vtable; the Autograd kernels that record the node come from KernelGen
(gen_autograd_kernels.py), which NodeGen extends.
"""
from __future__ import annotations

import ast
import os
import re
import sys

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_autograd_formula import HELPERS, Emitter, FormulaError, Val  # noqa: E402
from gen_autograd_kernels import KernelGen  # noqa: E402
from gen_autograd_parse import DERIVATIVES_REL, Derivative  # noqa: E402
from gen_ops_yaml import DeclarationError  # noqa: E402

# ---------------------------------------------------------------- entries and nodes
SAVED_KINDS = {  # schema type -> (node field kind)
    ("Tensor", ""): "T", ("Tensor", "?"): "T?", ("Scalar", ""): "S", ("Scalar", "?"): "S?",
    ("int", ""): "I", ("SymInt", ""): "I", ("int", "?"): "I?", ("SymInt", "?"): "I?",
    ("int", "[]"): "L", ("SymInt", "[]"): "L", ("int", "[]?"): "L?", ("SymInt", "[]?"): "L?",
    ("bool", ""): "B", ("float", ""): "D", ("float", "?"): "D?", ("ScalarType", "?"): "Y",
    ("ScalarType", ""): "Y", ("str", ""): "str", ("str", "?"): "str?", ("bool", "?"): "B?",
    ("Tensor", "?[]"): "TS", ("Tensor", "[]"): "TS",
}




def _schema_kind(arg) -> str:
    key = (arg.type.base, arg.type.shape)
    if key not in SAVED_KINDS:
        raise FormulaError(f"argument '{arg.name}' of type {arg.type.text} cannot be saved")
    return SAVED_KINDS[key]


def _cname(n: str) -> str:
    import gen_ops
    return n + "_" if n in gen_ops.C_RESERVED else n



class NodeGen(KernelGen):
    """The C of one Derivative: node struct, apply, kernels."""

    def __init__(self, d: Derivative, ops_by_name: dict):
        self.d, self.ops_by_name = d, ops_by_name
        s = d.op.schema
        self.args = {a.name: a for a in s.args}
        self.nret = len(s.returns)
        self.fields = []   # (kind, field name, source) source: arg name / "result<i>" / attr
        uses = d.uses
        for name in sorted(uses):
            if name in ("grad", "grads") or name.startswith("grads["):
                continue
            if name == "result" or re.fullmatch(r"result\d+", name):
                i = 0 if name == "result" else int(name[6:])
                if i >= self.nret:
                    raise DeclarationError(f"{d.entry.name}: {name} is out of range")
                self.fields.append(("R", f"result{i}_", i))
            elif name.endswith("()"):
                arg, attr = name[:-2].split(".")
                if arg not in self.args or self.args[arg].type.base != "Tensor":
                    raise DeclarationError(f"{d.entry.name}: {name}: not a tensor argument")
                kind = {"sizes": "L", "strides": "L", "dim": "I", "numel": "I",
                        "scalar_type": "Y"}[attr]
                if self.args[arg].type.shape == "[]":
                    if attr != "sizes":
                        raise DeclarationError(f"{d.entry.name}: {name}: a tensor list has sizes()"
                                               " only")
                    kind = "LL"
                elif self.args[arg].type.shape == "?" and attr in ("sizes", "strides"):
                    if attr == "strides":
                        raise DeclarationError(f"{d.entry.name}: {name}: strides() of an optional"
                                               " tensor is not supported")
                    kind = "L?"  # an optional tensor's sizes: None (length -1) when it is None
                self.fields.append((kind, f"{arg}_{attr}", (arg, attr)))
            elif name in self.args:
                self.fields.append((_schema_kind(self.args[name]), _cname(name) + "_", name))
            elif name in HELPERS or name in ops_by_name:
                continue
            else:
                raise DeclarationError(f"{d.entry.name}: unknown name '{name}' in a formula")
        self.ident = s.ident

    # -------------------------------------------------------- struct
    def emit_struct(self, out):
        out.append("typedef struct {")
        out.append("    pt_node base;")
        for kind, fname, _ in self.fields:
            out.append("    " + {
                "T": f"pt_saved_var {fname};", "T?": f"pt_saved_var {fname};",
                "R": f"pt_saved_var {fname};",
                "S": f"pt_scalar {fname};", "S?": f"pt_scalar {fname}; bool {fname}set;",
                "I": f"int64_t {fname};", "I?": f"int64_t {fname}; bool {fname}set;",
                "L": f"int32_t {fname}len; int64_t *{fname};",
                "L?": f"int32_t {fname}len; int64_t *{fname};",
                "LL": f"int32_t {fname}n; int32_t *{fname}nd; int64_t *{fname};",
                "TS": f"int32_t {fname}n; pt_saved_var *{fname};",
                "B": f"int32_t {fname};", "B?": f"int32_t {fname};", "D": f"double {fname};",
                "D?": f"double {fname}; bool {fname}set;", "Y": f"int32_t {fname};",
                "str": f"char *{fname};", "str?": f"char *{fname};",
            }[kind])
        out.append(f"}} node_{self.d.node};")
        out.append("")

    # -------------------------------------------------------- apply
    def lookup(self, name, em: Emitter) -> Val:
        if name == "grad_input_mask":
            if em.group_mask is None:
                raise FormulaError("grad_input_mask is for a formula of several inputs")
            return em.group_mask
        if self.d.list_output:
            if name == "grads":
                return Val("GL", "self, grads")
            if name == "grad" or name.startswith("grads["):
                raise FormulaError("a Tensor[] result's gradients are `grads`, passed whole")
        elif name == "grads":
            raise FormulaError("`grads` whole is for a Tensor[] result; use grads[i]")
        if name == "grad":
            name = "grads[0]"
        m = re.fullmatch(r"grads\[(\d+)\]", name)
        if m:
            i = int(m.group(1))
            if i >= self.nret:
                raise FormulaError(f"{name}: the operator has {self.nret} outputs")
            # Note [undefined gradients of multi-output nodes]
            return Val("GU" if self.nret > 1 else "T", f"g{i}", i)
        for kind, fname, src in self.fields:
            if kind == "R" and (name == f"result{src}" or (name == "result" and src == 0)):
                return self.unpack(fname, em, "T")
            if kind in ("T", "T?") and src == name:
                return self.unpack(fname, em, kind)
            if kind == "TS" and src == name:  # helpers unpack the list themselves
                return Val("TS", f"n->{fname}n, n->{fname}, &n->base")
            if isinstance(src, tuple) and name == f"{src[0]}.{src[1]}()":
                if kind == "LL":
                    return Val("LL", f"n->{fname}n, n->{fname}nd, n->{fname}")
                if kind in ("L", "L?"):
                    return Val(kind, f"n->{fname}len, n->{fname}")
                return Val(kind, f"n->{fname}")
            if src == name:
                f = f"n->{fname}"
                if kind == "S":
                    return Val("S", f"&{f}")
                if kind == "S?":
                    return Val("S?", f"({f}set ? &{f} : NULL)")
                if kind == "I?":
                    return Val("I?", f"({f}set ? &{f} : NULL)")
                if kind == "D?":
                    return Val("D?", f"({f}set ? &{f} : NULL)")
                if kind in ("L", "L?"):
                    return Val(kind, f"n->{fname}len, n->{fname}")
                if kind == "B?":
                    return Val("B", f)
                if kind == "str?":
                    return Val("str", f)
                return Val(kind, f)
        raise FormulaError(f"unknown name '{name}'")

    def unpack(self, fname, em: Emitter, kind: str) -> Val:
        var = f"u_{fname}"
        if var not in em.temps:
            em.temps.append(var)
        if var not in em.chunk_unpacked:
            em.chunk_unpacked.add(var)
            em.lines.append(f"    if (!{var}) {{")
            em.lines.append(f"        st = pt_saved_unpack(&n->{fname}, &n->base, &{var});")
            em.lines.append("        if (st != PT_OK) goto done;")
            em.lines.append("    }")
        return Val(kind, var)

    def emit_apply(self, out):
        d = self.d
        out.append(f"static pt_status {d.node}_apply(pt_node *self, pt_tensor *const *grads, "
                   "pt_tensor **outs)")
        out.append("{")
        out.append(f"    node_{d.node} *n = (node_{d.node} *)self;")
        out.append("    PT_UNUSED(n);")
        out.append("    PT_UNUSED(outs);")
        out.append("    pt_status st = PT_OK;")
        body_em = Emitter(d.entry, self.ops_by_name, self.lookup, d.entry.name)
        if d.list_input:
            self.emit_list_apply(body_em, out)
            return
        chunks = []
        groups = {}  # Note [one formula for several inputs]: group -> its results' C names
        edge = {f.inputs[0]: i for i, f in enumerate(d.formulas)}
        for i, f in enumerate(d.formulas):
            em = body_em
            if f.group and f.group not in groups:
                needs = [f"pt_node_needs_output(self, {edge[n]})" for n in f.group if n in edge]
                em.chunk_unpacked = set()
                start = len(em.lines)
                if any(isinstance(x, ast.Name) and x.id == "grad_input_mask"
                       for x in ast.walk(f.tree)):
                    mask = em.fresh("mask")
                    em.locals.append(f"    int64_t {mask}[{len(f.group)}];")
                    for k, n in enumerate(f.group):
                        em.lines.append(f"    {mask}[{k}] = "
                                        + (f"pt_node_needs_output(self, {edge[n]});" if n in edge
                                           else "0;"))
                    em.group_mask = Val("L", f"{len(f.group)}, {mask}")
                try:
                    results = em.compile_multi(f.tree, len(f.group))
                except FormulaError as err:
                    raise DeclarationError(f"{DERIVATIVES_REL}:{f.line}: {', '.join(f.group)}: "
                                           f"{err}")
                em.group_mask = None
                groups[f.group] = results
                chunks.append((" || ".join(needs), em.lines[start:], None))
                del em.lines[start:]
            if f.group:
                chunks.append((f"pt_node_needs_output(self, {i})", [], i,
                               groups[f.group][f.group.index(f.inputs[0])]))
                continue
            em.chunk_unpacked = set()
            start = len(em.lines)
            try:
                v = em.compile(f.tree)
            except FormulaError as err:
                raise DeclarationError(f"{DERIVATIVES_REL}:{f.line}: {f.inputs[0]}: {err}")
            if v.kind not in ("T", "T?"):
                raise DeclarationError(f"{DERIVATIVES_REL}:{f.line}: the formula is not a tensor")
            body = em.lines[start:]
            del em.lines[start:]
            chunks.append((f"pt_node_needs_output(self, {i})", body, i, v.expr))
        for name in body_em.locals:
            out.append(name)
        for t in body_em.temps:
            out.append(f"    pt_tensor *{t} = NULL;")
        if d.list_output:
            out.append("    int32_t defined = 0;")
            out.append("    for (int32_t i = 0; i < self->n_inputs; i++) defined += grads[i] != NULL;")
            out.append("    if (!defined) return PT_OK;")
        else:
            for i in range(self.nret):
                out.append(f"    pt_tensor *const g{i} = grads[{i}];")
            out.append("    if (" + " && ".join(f"!g{i}" for i in range(self.nret)) +
                       ") return PT_OK;")
        for cond, body, *edge_result in chunks:
            out.append(f"    if ({cond}) {{")
            out.extend("    " + line for line in body)
            if edge_result[0] is not None:
                i, result = edge_result
                out.append(f"        outs[{i}] = {result};")
                out.append(f"        if ({result}) pt_tensor_retain({result});")
            out.append("    }")
        out.append("    goto done;")
        out.append("fail: __attribute__((unused));")
        out.append("    st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;")
        out.append("done: __attribute__((unused));")
        for t in body_em.temps:
            out.append(f"    pt_tensor_release({t});")
        out.append("    return st;")
        out.append("}")
        out.append("")

    def emit_list_apply(self, em, out):
        """apply of an entry whose one formula fills a gradient per element of a Tensor[]."""
        f = self.d.formulas[0]
        t = f.tree
        where = f"{DERIVATIVES_REL}:{f.line}"
        if not (isinstance(t, ast.Call) and isinstance(t.func, ast.Name)
                and HELPERS.get(t.func.id, ("", [], ""))[2] == "TL" and not t.keywords):
            raise DeclarationError(f"{where}: a Tensor[] input's formula must be one call of a "
                                   "list helper")
        cfn, kinds, _ = HELPERS[t.func.id]
        if len(t.args) != len(kinds):
            raise DeclarationError(f"{where}: {t.func.id} takes {len(kinds)} arguments")
        cargs = []
        try:
            for i, (a, k) in enumerate(zip(t.args, kinds)):
                cargs += em.as_kind(em.compile(a), k, f"{t.func.id} argument {i}")
        except FormulaError as err:
            raise DeclarationError(f"{where}: {err}")
        out.extend(em.locals)
        out.append("    pt_tensor *const g0 = grads[0];")
        for tmp in em.temps:
            out.append(f"    pt_tensor *{tmp} = NULL;")
        out.append("    if (!g0) return PT_OK;")
        out.extend(em.lines)
        out.append(f"    st = {cfn}({', '.join(cargs)}, self->n_next, outs);")
        out.append("    goto done;")
        out.append("fail: __attribute__((unused));")
        out.append("    st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;")
        out.append("done: __attribute__((unused));")
        for tmp in em.temps:
            out.append(f"    pt_tensor_release({tmp});")
        out.append("    return st;")
        out.append("}")
        out.append("")

    # -------------------------------------------------------- release / destroy / saved
    def emit_release(self, out):
        d = self.d
        out.append(f"static void {d.node}_release(pt_node *self)")
        out.append("{")
        out.append(f"    node_{d.node} *n = (node_{d.node} *)self;")
        out.append("    PT_UNUSED(n);")
        for kind, fname, _ in self.fields:
            if kind in ("T", "T?", "R"):
                out.append(f"    pt_saved_release(&n->{fname});")
            if kind == "TS":
                out.append(f"    pt_ag_saved_list_release(n->{fname}n, n->{fname});")
        out.append("}")
        out.append("")
        out.append(f"static void {d.node}_destroy(pt_node *self)")
        out.append("{")
        out.append(f"    node_{d.node} *n = (node_{d.node} *)self;")
        out.append(f"    {d.node}_release(self);")
        for kind, fname, _ in self.fields:
            if kind in ("L", "L?", "str", "str?", "LL", "TS"):
                out.append(f"    free(n->{fname});")
            if kind == "LL":
                out.append(f"    free(n->{fname}nd);")
        out.append("    PT_UNUSED(n);")
        out.append("}")
        out.append("")
        out.append(f"static pt_status {d.node}_saved(pt_node *self, const char *name, "
                   "pt_ivalue *out, int32_t *found)")
        out.append("{")
        out.append(f"    node_{d.node} *n = (node_{d.node} *)self;")
        out.append("    PT_UNUSED(n);")
        out.append("    PT_UNUSED(out);")
        for kind, fname, src in self.fields:
            if kind in ("LL", "TS"):
                continue  # no Python view of a list of sizes or of saved tensors
            pyname = (f"result{src}" if src else "result") if kind == "R" else (
                f"{src[0]}_sym_{src[1].replace('()', '')}" if isinstance(src, tuple) else src)
            if isinstance(src, tuple) and src[1] == "sizes":
                pyname = f"{src[0]}_sym_sizes" + ("_opt" if kind == "L?" else "")
            if kind == "R" and self.nret == 1:
                pyname = "result"
            out.append(f"    if (strcmp(name, \"{pyname}\") == 0) {{")
            out.append("        *found = 1;")
            if kind in ("T", "T?", "R"):
                out.append("        pt_tensor *t = NULL;")
                out.append(f"        PT_TRY(pt_saved_unpack(&n->{fname}, self, &t));")
                out.append("        out->tag = t ? PT_IV_TENSOR : PT_IV_NONE;")
                out.append("        out->t = t;")
            elif kind in ("L", "L?"):
                out.append(f"        if (n->{fname}len < 0) {{ out->tag = PT_IV_NONE; return PT_OK; }}")
                out.append("        out->tag = PT_IV_INT_LIST;")
                out.append(f"        out->len = n->{fname}len;")
                out.append(f"        out->ints = n->{fname};")
            elif kind in ("S", "S?"):
                if kind == "S?":
                    out.append(f"        if (!n->{fname}set) {{ out->tag = PT_IV_NONE; return PT_OK; }}")
                out.append(f"        pt_box_scalar(out, &n->{fname});")
            elif kind in ("I", "B", "B?", "Y"):
                tag = {"I": "PT_IV_INT", "B": "PT_IV_BOOL", "B?": "PT_IV_BOOL",
                       "Y": "PT_IV_DTYPE"}[kind]
                if kind in ("B?", "Y"):
                    out.append(f"        if (n->{fname} < 0) {{ out->tag = PT_IV_NONE; return PT_OK; }}")
                out.append(f"        out->tag = {tag};")
                out.append(f"        out->i = n->{fname};")
            elif kind in ("I?", "D?"):
                out.append(f"        if (!n->{fname}set) {{ out->tag = PT_IV_NONE; return PT_OK; }}")
                if kind == "I?":
                    out.append("        out->tag = PT_IV_INT;")
                    out.append(f"        out->i = n->{fname};")
                else:
                    out.append("        out->tag = PT_IV_DOUBLE;")
                    out.append(f"        out->d = n->{fname};")
            elif kind == "D":
                out.append("        out->tag = PT_IV_DOUBLE;")
                out.append(f"        out->d = n->{fname};")
            elif kind in ("str", "str?"):
                out.append(f"        out->tag = n->{fname} ? PT_IV_STRING : PT_IV_NONE;")
                out.append(f"        out->s = n->{fname};")
            out.append("        return PT_OK;")
            out.append("    }")
        out.append("    PT_UNUSED(name);")
        out.append("    PT_UNUSED(found);")
        out.append("    return PT_OK;")
        out.append("}")
        out.append("")
        out.append(f"static const pt_node_vtable {d.node}_vt = {{\"{d.display}\", {d.node}_apply, "
                   f"{d.node}_release, {d.node}_destroy, {d.node}_saved}};")
        out.append("")
