"""gen_autograd.py - turns csrc/ops/derivatives.yaml into the autograd layer's C.

derivatives.yaml lists, in PyTorch's format, one entry per differentiable operator overload:

    - name: mul.Tensor(Tensor self, Tensor other) -> Tensor
      self: grad * other
      other: grad * self
      output_differentiability: [True]

`name:` is the schema (it must match a declared operator); each other key names an input and gives
the formula of its gradient; an input without a formula gets no gradient (its edge is empty), and
`non_differentiable` as a formula says the same explicitly. `output_differentiability` marks the
outputs that get a history (integer and bool outputs never do). `result: ...` (forward-mode) is
read and ignored. `node_name: DivBackward0` gives the node the name PyTorch shows for an operator
that PyTorch differentiates through another (aliases such as divide, composites such as tile);
the generated C keeps its own unique names. An in-place operator listed by itself (`fill_.Scalar`)
counts among the entries of its out-of-place name, as PyTorch numbers them.

Formulas are expressions in a small language that reads like PyTorch's (the subset of Python's
expression grammar that the `ast` module parses):
  - names: `grad` (the gradient of output 0), `grads[i]`, `result` / `resultN` (the outputs),
    the schema's argument names (tensors are saved for backward, other values copied);
  - `x.sizes()`, `x.dim()`, `x.numel()`, `x.scalar_type()` of a tensor argument (saved as values,
    so the tensor itself is not kept);
  - + - * / ** and unary -, comparisons, between tensors and numbers or Scalars;
  - calls of operators (`sum(grad, dim, True)`, `grad.mm(other.t())`, keyword arguments allowed),
    resolved to an overload by the types of their arguments, and of the helpers of
    csrc/autograd/functions.c (HELPERS below).
Operators are called through their entry points, so formulas are differentiable themselves
(double backward).

The gradients of a node with several outputs may arrive undefined (the outputs nobody used):
`grads[i]` passed where a helper takes an optional tensor (T?) stays NULL there, and anywhere else
it is replaced by zeros of that output's shape, made only when it is undefined (Note [undefined
gradients of multi-output nodes] in csrc/autograd/functions_multi.c).

An operator whose result is a Tensor[] (split, unbind; boxed only) gets a boxed Autograd kernel and
a node input per element; its formula passes `grads` whole to a helper of kind GL, which gets the
node (for the shapes of the pieces) and the gradients, NULL for the pieces without one. Such
formulas may save ints, int lists and self.sizes() / self.dim().

A Tensor[] input (cat's `tensors`) gets one edge per element. Its formula must be the only one of
the entry and a call of a list helper (result kind TL: it fills one gradient per element, NULL
for none); `tensors.sizes()` there is the saved sizes of every element (kind LL).

For each entry the generator writes (build/generated/pt_autograd.c):
  - a node type named as PyTorch names it (`MulBackward0`: the operator's name in CamelCase, then
    "Backward" and the entry's index among the entries with that name), with its saved fields,
    `apply` (the formulas, each run only when its input's edge leads somewhere), `release_saved`
    and the `_saved_<name>` accessor;
  - the Autograd kernel of the operator, and of its in-place variant (`mul_.Tensor`) when one is
    declared: it finds whether any input requires grad, makes the node and its edges, saves what
    the formulas use, redispatches below autograd and makes the outputs the node's (an in-place
    write into a view rebases the view's base: pt_rebase_history, csrc/autograd/views.c).
gen_ops.py adds these kernels to the registrations at the Autograd key.

Usage: imported by gen_ops.py; `python3 tools/gen_autograd.py --check` parses the formulas.
"""
from __future__ import annotations

import ast
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Optional

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_pyfast  # noqa: E402
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
        for k in key.split(","):
            k = k.strip()
            if k in cur.fields:
                raise DeclarationError(f"{where}: '{k}' is given twice")
            cur.fields[k] = (value.strip(), lineno)
    return entries


# ---------------------------------------------------------------- helpers (csrc/autograd/functions.c)
# name -> (C function, parameter kinds, result kind). Kinds: T tensor, T? optional tensor,
# S Scalar, S? optional Scalar, I int, I? optional int, L int list, L? optional int list, B bool,
# D double, Y dtype, GL the gradients of a Tensor[] result (the node and its grads array). Every
# helper returns a new tensor reference (NULL on failure).
HELPERS = {
    "sum_to": ("pt_ag_sum_to", ["T", "L"], "T"),
    "sum_backward": ("pt_ag_sum_backward", ["T", "L", "L?", "B"], "T"),
    "mean_backward": ("pt_ag_mean_backward", ["T", "L", "L?", "B"], "T"),
    "mul_alpha": ("pt_ag_mul_alpha", ["T", "S"], "T"),
    "pow_backward": ("pt_ag_pow_backward", ["T", "T", "S"], "T"),
    "pow_backward_self": ("pt_ag_pow_backward_self", ["T", "T", "T"], "T"),
    "pow_backward_exponent": ("pt_ag_pow_backward_exponent", ["T", "T", "T", "T"], "T"),
    "pow_backward_scalar_base": ("pt_ag_pow_backward_scalar_base", ["T", "S", "T", "T"], "T"),
    "clamp_backward": ("pt_ag_clamp_backward", ["T", "T", "S?", "S?"], "T"),
    "clamp_backward_tensor": ("pt_ag_clamp_backward_tensor", ["T", "T", "T?", "T?"], "T"),
    "clamp_backward_min_tensor": ("pt_ag_clamp_backward_min_tensor", ["T", "T", "T?", "T?"], "T"),
    "clamp_backward_max_tensor": ("pt_ag_clamp_backward_max_tensor", ["T", "T", "T?", "T?"],
                                  "T"),
    "matmul_backward_self": ("pt_ag_matmul_backward_self", ["T", "T", "T"], "T"),
    "matmul_backward_other": ("pt_ag_matmul_backward_other", ["T", "T", "T"], "T"),
    "permute_backward": ("pt_ag_permute_backward", ["T", "L"], "T"),
    "select_backward": ("pt_ag_select_backward", ["T", "L", "I", "I"], "T"),
    "slice_backward": ("pt_ag_slice_backward", ["T", "L", "I", "I?", "I?", "I"], "T"),
    "narrow_backward": ("pt_ag_narrow_backward", ["T", "L", "I", "I", "I"], "T"),
    "index_select_backward": ("pt_ag_index_select_backward", ["T", "L", "I", "T"], "T"),
    "gather_backward": ("pt_ag_gather_backward", ["T", "L", "I", "T"], "T"),
    "evenly_distribute_backward": ("pt_ag_evenly_distribute_backward", ["T", "T", "T"], "T"),
    "amax_amin_backward": ("pt_ag_amax_amin_backward", ["T", "T", "T", "L", "B"], "T"),
    "value_selecting_backward": ("pt_ag_value_selecting_backward", ["T", "I", "T", "L", "B"],
                                 "T"),
    "minmax_binary_backward": ("pt_ag_minmax_binary_backward", ["T", "T", "T", "B"], "T"),
    "prod_backward": ("pt_ag_prod_backward", ["T", "T", "T"], "T"),
    "prod_dim_backward": ("pt_ag_prod_dim_backward", ["T", "T", "T", "I", "B"], "T"),
    "softmax_backward": ("pt_ag_softmax_backward", ["T", "T", "I", "Y"], "T"),
    "log_softmax_backward": ("pt_ag_log_softmax_backward", ["T", "T", "I", "Y"], "T"),
    "logsumexp_backward": ("pt_ag_logsumexp_backward", ["T", "T", "T", "L", "B"], "T"),
    "var_backward": ("pt_ag_var_backward", ["T", "T", "L?", "S?", "B"], "T"),
    "std_backward": ("pt_ag_std_backward", ["T", "T", "T", "L?", "S?", "B"], "T"),
    "norm_backward": ("pt_ag_norm_backward", ["T", "T", "T", "S?", "L?", "B"], "T"),
    "cumsum_backward": ("pt_ag_cumsum_backward", ["T", "I"], "T"),
    "cumprod_backward": ("pt_ag_cumprod_backward", ["T", "T", "I", "T"], "T"),
    "gelu_backward": ("pt_ag_gelu_backward", ["T", "T", "str"], "T"),
    "silu_backward": ("pt_ag_silu_backward", ["T", "T"], "T"),
    "zeros_like_grad": ("pt_ag_zeros_like", ["T"], "T"),
    "div_mode_backward_self": ("pt_ag_div_mode_backward_self", ["T", "T", "str"], "T"),
    "div_mode_backward_other": ("pt_ag_div_mode_backward_other", ["T", "T", "T", "str"], "T"),
    "div_scalar_mode_backward": ("pt_ag_div_scalar_mode_backward", ["T", "S", "str"], "T"),
    "var_mean_backward": ("pt_ag_var_mean_backward", ["T?", "T?", "T", "L?", "S?", "B"], "T"),
    "std_mean_backward": ("pt_ag_std_mean_backward", ["T?", "T?", "T", "T", "L?", "S?", "B"],
                          "T"),
    "roll_backward": ("pt_ag_roll_backward", ["T", "L", "L"], "T"),
    "repeat_backward": ("pt_ag_repeat_backward", ["T", "L", "L"], "T"),
    "tile_backward": ("pt_ag_tile_backward", ["T", "L", "L"], "T"),
    "unfold_backward": ("pt_ag_unfold_backward", ["T", "L", "I", "I", "I"], "T"),
    "as_strided_grad": ("pt_ag_as_strided_grad", ["T", "T", "L", "L", "I?"], "T"),
    "diagonal_backward": ("pt_ag_diagonal_backward", ["T", "L", "I", "I", "I"], "T"),
    "take_backward": ("pt_ag_take_backward", ["T", "L", "T"], "T"),
    "masked_select_backward": ("pt_ag_masked_select_backward", ["T", "L", "T"], "T"),
    "cross_backward": ("pt_ag_cross_backward", ["T", "T", "L", "I?"], "T"),
    "narrow_tensor_backward": ("pt_ag_narrow_tensor_backward", ["T", "L", "I", "T", "I"], "T"),
    "index_backward": ("pt_ag_index_backward", ["T", "L", "TS"], "T"),
    "index_put_backward_self": ("pt_ag_index_put_backward_self", ["T", "TS", "B"], "T"),
    "index_put_backward_values": ("pt_ag_index_put_backward_values", ["T", "TS"], "T"),
    "view_as_real_backward": ("pt_ag_view_as_real_backward", ["T"], "T"),
    "view_as_complex_backward": ("pt_ag_view_as_complex_backward", ["T"], "T"),
    "sgn_backward": ("pt_ag_sgn_backward", ["T", "T", "T"], "T"),
    "angle_backward": ("pt_ag_angle_backward", ["T", "T"], "T"),
    "polar_backward_abs": ("pt_ag_polar_backward_abs", ["T", "T"], "T"),
    "polar_backward_angle": ("pt_ag_polar_backward_angle", ["T", "T"], "T"),
    "cat_tensors_backward": ("pt_ag_cat_tensors_backward", ["T", "LL", "I"], "TL"),
    "stack_tensors_backward": ("pt_ag_stack_tensors_backward", ["T", "LL", "I"], "TL"),
    "split_backward": ("pt_ag_split_backward", ["GL", "I", "I"], "T"),
    "unbind_backward": ("pt_ag_unbind_backward", ["GL", "I"], "T"),
    "native_dropout_grad": ("pt_ag_native_dropout_backward", ["T", "T", "D", "B"], "T"),
}


# ---------------------------------------------------------------- complex outputs
# Note [complex-differentiable operators]
# torch records complex outputs only for the operators whose formulas it has written for complex
# numbers (GRADIENT_IMPLEMENTED_FOR_COMPLEX in its gen_variable_type.py); any other operator
# raises "<op> does not support automatic differentiation for outputs with complex dtype." when
# an output that would require grad is complex, rather than return gradients computed with a
# real-only formula. These are the base names (in-place `_` dropped) of pytensor's entries that
# are written for complex (Note [conjugate Wirtinger gradients] in derivatives.yaml): torch's
# names, and the operators that torch differentiates through one of them (to through _to_copy,
# divide through div, matmul through mm and bmm, tile through repeat, ...).
COMPLEX_DIFFERENTIABLE = frozenset("""
    add sub mul div divide true_divide neg reciprocal pow exp exp2 expm1 log log2 log10 log1p
    sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh sigmoid sgn
    sum mean prod cumsum cumprod logsumexp std_mean var_mean linalg_vector_norm
    mm bmm addmm baddbmm addmv mv dot vdot outer ger matmul linalg_cross cross
    view reshape flatten t transpose permute expand squeeze unsqueeze select slice narrow flip
    tril triu clone contiguous _to_copy to roll repeat tile unfold normal uniform
    index_select gather take masked_select masked_fill where scatter scatter_add index index_put
    cat stack fill zero copy
    _conj_physical conj_physical view_as_real view_as_complex angle polar complex
""".split())


# ---------------------------------------------------------------- names
def node_base_name(op_name: str) -> str:
    """`log_softmax` -> LogSoftmax, `_softmax` -> Softmax, `t` -> T."""
    return "".join(p[:1].upper() + p[1:] for p in op_name.split("_") if p)


# ---------------------------------------------------------------- values in the generated C
@dataclass
class Val:
    kind: str            # T, T?, S, I, L, B, D, Y, N (number literal), None, str
    expr: str            # C expression (T: pt_tensor *, S: const pt_scalar *, L: "len, ptr")
    num: Optional[object] = None  # the Python value of a literal


class FormulaError(Exception):
    pass


def _c_double(v) -> str:
    r = repr(float(v))
    return r if ("." in r or "e" in r or "inf" in r or "nan" in r) else r + ".0"


class Emitter:
    """Compiles formulas of one node into C statements (temporaries released at `done`)."""

    def __init__(self, entry, ops_by_name, saved_lookup, where):
        self.entry, self.ops_by_name, self.saved_lookup, self.where = (
            entry, ops_by_name, saved_lookup, where)
        self.lines: list = []
        self.temps: list = []       # tensor temporaries (released at the end)
        self.locals: list = []      # other declarations
        self.chunk_unpacked: set = set()  # saved variables unpacked in the current formula
        self.n = 0

    def fresh(self, prefix="t"):
        self.n += 1
        return f"{prefix}{self.n}"

    def tensor_temp(self) -> str:
        name = self.fresh()
        self.temps.append(name)
        return name

    def check(self, var: str):
        self.lines.append(f"    if (!{var}) goto fail;")

    def defined_grad(self, v: Val) -> str:
        """The gradient of output v.num where a formula needs a tensor: zeros when it is
        undefined (Note [undefined gradients of multi-output nodes])."""
        var = f"z{v.num}"
        if var not in self.temps:
            self.temps.append(var)
        self.lines.append(f"    if (!{var}) {{")
        self.lines.append(f"        {var} = pt_ag_grad_or_zeros(self, {v.num}, {v.expr});")
        self.lines.append(f"        if (!{var}) goto fail;")
        self.lines.append("    }")
        return var

    def tensor(self, v: Val) -> Val:
        return Val("T", self.defined_grad(v)) if v.kind == "GU" else v

    # -------------------------------------------------------- expressions
    def compile(self, node) -> Val:
        if isinstance(node, ast.Constant):
            v = node.value
            if v is None:
                return Val("None", "NULL")
            if isinstance(v, bool):
                return Val("B", "1" if v else "0", v)
            if isinstance(v, (int, float)):
                return Val("N", repr(v), v)
            if isinstance(v, str):
                return Val("str", '"' + v + '"', v)
            raise FormulaError(f"constant {v!r}")
        if isinstance(node, ast.Name):
            return self.saved_lookup(node.id, self)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == "grads" and isinstance(node.slice, ast.Constant):
            return self.saved_lookup(f"grads[{node.slice.value}]", self)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.compile(e) for e in node.elts]
            if not all(i.kind in ("N", "I") for i in items):
                raise FormulaError("lists hold ints only")
            arr = self.fresh("l")
            vals = ", ".join(f"(int64_t)({i.expr})" for i in items) or "0"
            self.locals.append(f"    const int64_t {arr}[] = {{{vals}}};")
            return Val("L", f"{len(items)}, {arr}")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.tensor(self.compile(node.operand))
            if v.kind == "N":
                return Val("N", f"(-{v.expr})", -v.num)
            if v.kind in ("I", "D"):
                return Val(v.kind, f"(-{v.expr})")
            return self.call_op("neg", [v], {})
        if isinstance(node, ast.BinOp):
            a, b = self.tensor(self.compile(node.left)), self.tensor(self.compile(node.right))
            return self.binop(node.op, a, b)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a = self.tensor(self.compile(node.left))
            b = self.tensor(self.compile(node.comparators[0]))
            name = {ast.Gt: "gt", ast.Lt: "lt", ast.GtE: "ge", ast.LtE: "le", ast.Eq: "eq",
                    ast.NotEq: "ne"}[type(node.ops[0])]
            if a.kind in ("T",):
                return self.call_op(name, [a, b], {})
            flip = {"gt": "lt", "lt": "gt", "ge": "le", "le": "ge", "eq": "eq", "ne": "ne"}
            return self.call_op(flip[name], [b, a], {})
        if isinstance(node, ast.Call):
            kwargs = {k.arg: self.compile(k.value) for k in node.keywords}
            if isinstance(node.func, ast.Attribute):
                recv = node.func.value
                meth = node.func.attr
                if meth in ("sizes", "dim", "numel", "scalar_type") and isinstance(recv, ast.Name):
                    return self.saved_lookup(f"{recv.id}.{meth}()", self)
                args = [self.compile(recv)] + [self.compile(a) for a in node.args]
                if meth == "conj" and args[0].kind not in ("T", "T?"):
                    return self.scalar_conj(args[0], node.args or kwargs)
                return self.call(meth, args, kwargs)
            if isinstance(node.func, ast.Name):
                args = [self.compile(a) for a in node.args]
                return self.call(node.func.id, args, kwargs)
        raise FormulaError(f"unsupported expression: {ast.dump(node)[:80]}")

    def binop(self, op, a: Val, b: Val) -> Val:
        if a.kind in ("N", "I", "D") and b.kind in ("N", "I", "D"):
            sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(op)]
            kind = "D" if "D" in (a.kind, b.kind) or isinstance(op, ast.Div) or \
                any(isinstance(x.num, float) for x in (a, b)) else "I"
            if kind == "D":
                return Val("D", f"((double)({a.expr}) {sym} (double)({b.expr}))")
            return Val("I", f"(({a.expr}) {sym} ({b.expr}))")
        names = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}
        name = names[type(op)]
        if a.kind == "T":
            return self.call_op(name, [a, b], {})
        # number (or Scalar) on the left
        if name in ("add", "mul"):
            return self.call_op(name, [b, a], {})
        if name == "sub":  # a - b = (-b) + a
            return self.call_op("add", [self.call_op("neg", [b], {}), a], {})
        if name == "div":  # a / b = reciprocal(b) * a
            return self.call_op("mul", [self.call_op("reciprocal", [b], {}), a], {})
        if name == "pow":
            return self.call_op("pow", [a, b], {})
        raise FormulaError(f"{name} with a number on the left")

    def scalar_conj(self, v: Val, extra) -> Val:
        """`alpha.conj()` of a Scalar: a copy with the imaginary part negated (numbers and the
        Scalars of real kinds are their own conjugates)."""
        if extra:
            raise FormulaError("conj() takes no arguments")
        if v.kind in ("N", "I", "D", "B"):
            return v
        if v.kind not in ("S", "S?"):
            raise FormulaError(f"conj() of a {v.kind}")
        var = self.fresh("s")
        self.locals.append(f"    pt_scalar {var};")
        if v.kind == "S":
            self.lines.append(f"    {var} = *{v.expr};")
            self.lines.append(f"    {var}.im = -{var}.im;")
            return Val("S", f"&{var}")
        self.lines.append(f"    if ({v.expr}) {{ {var} = *{v.expr}; {var}.im = -{var}.im; }}")
        return Val("S?", f"({v.expr} ? &{var} : NULL)")

    def call(self, name, args, kwargs) -> Val:
        if name in HELPERS:
            return self.call_helper(name, args, kwargs)
        return self.call_op(name, args, kwargs)

    # -------------------------------------------------------- helpers
    def as_kind(self, v: Val, kind: str, what: str) -> list:
        """C argument expressions of v passed as a parameter of `kind`."""
        opt = kind.endswith("?")
        base = kind.rstrip("?")
        if v.kind == "None":
            if not opt:
                raise FormulaError(f"{what}: None for a {kind}")
            return {"T": ["NULL"], "S": ["NULL"], "I": ["NULL"], "L": ["-1, NULL"],
                    "Y": ["-1"]}[base]
        if base == "GL":
            if v.kind != "GL":
                raise FormulaError(f"{what}: expected `grads` of a Tensor[] result, got {v.kind}")
            return [v.expr]
        if base == "T" and v.kind == "GU":
            return [v.expr if opt else self.defined_grad(v)]
        if base == "TS":
            if v.kind != "TS":
                raise FormulaError(f"{what}: expected a saved tensor list, got {v.kind}")
            return [v.expr]
        if base == "LL":
            if v.kind != "LL":
                raise FormulaError(f"{what}: expected the sizes of a tensor list, got {v.kind}")
            return [v.expr]
        if base == "T":
            if v.kind not in ("T", "T?"):
                raise FormulaError(f"{what}: expected a tensor, got {v.kind}")
            return [v.expr]
        if base == "S":
            return [self.scalar_ptr(v, what)]
        if base == "I" and opt and v.kind == "I?":
            return [v.expr]
        if base == "D" and opt and v.kind == "D?":
            return [v.expr]
        if base == "I":
            if v.kind not in ("I", "N") or (v.kind == "N" and not isinstance(v.num, int)):
                raise FormulaError(f"{what}: expected an int, got {v.kind}")
            if opt:
                var = self.fresh("i")
                self.locals.append(f"    int64_t {var};")
                self.lines.append(f"    {var} = {v.expr};")
                return [f"&{var}"]
            return [f"(int64_t)({v.expr})"]
        if base == "L":
            if v.kind in ("L", "L?"):
                return [v.expr]
            if v.kind in ("I", "N"):
                arr = self.fresh("l")
                self.locals.append(f"    int64_t {arr}[1];")
                self.lines.append(f"    {arr}[0] = {v.expr};")
                return [f"1, {arr}"]
            raise FormulaError(f"{what}: expected an int list, got {v.kind}")
        if base == "B":
            if v.kind not in ("B", "I", "N"):
                raise FormulaError(f"{what}: expected a bool, got {v.kind}")
            return [f"(int32_t)({v.expr})"]
        if base == "D":
            if v.kind not in ("D", "I", "N"):
                raise FormulaError(f"{what}: expected a float, got {v.kind}")
            if opt:
                var = self.fresh("d")
                self.locals.append(f"    double {var};")
                self.lines.append(f"    {var} = {v.expr};")
                return [f"&{var}"]
            return [f"(double)({v.expr})"]
        if base == "Y":
            if v.kind != "Y":
                raise FormulaError(f"{what}: expected a dtype")
            return [v.expr]
        if base == "str":
            if v.kind != "str":
                raise FormulaError(f"{what}: expected a str")
            return [v.expr]
        raise FormulaError(f"{what}: parameter kind {kind}")

    def scalar_ptr(self, v: Val, what: str) -> str:
        if v.kind in ("S", "S?"):
            return v.expr
        var = self.fresh("s")
        if v.kind == "N":
            if isinstance(v.num, bool):
                init = f"{{PT_SCALAR_BOOL, {int(v.num)}, 0.0, 0.0}}"
            elif isinstance(v.num, int):
                init = f"{{PT_SCALAR_INT, INT64_C({v.num}), 0.0, 0.0}}"
            else:
                init = f"{{PT_SCALAR_FLOAT, 0, {_c_double(v.num)}, 0.0}}"
            self.locals.append(f"    const pt_scalar {var} = {init};")
            return f"&{var}"
        if v.kind == "I":
            self.locals.append(f"    pt_scalar {var};")
            self.lines.append(f"    {var} = (pt_scalar){{PT_SCALAR_INT, {v.expr}, 0.0, 0.0}};")
            return f"&{var}"
        if v.kind == "D":
            self.locals.append(f"    pt_scalar {var};")
            self.lines.append(f"    {var} = (pt_scalar){{PT_SCALAR_FLOAT, 0, {v.expr}, 0.0}};")
            return f"&{var}"
        if v.kind == "B":
            self.locals.append(f"    pt_scalar {var};")
            self.lines.append(f"    {var} = (pt_scalar){{PT_SCALAR_BOOL, {v.expr}, 0.0, 0.0}};")
            return f"&{var}"
        raise FormulaError(f"{what}: expected a Scalar, got {v.kind}")

    def call_helper(self, name, args, kwargs) -> Val:
        cfn, kinds, result = HELPERS[name]
        if result == "TL":
            raise FormulaError(f"{name} gives a tensor list: only the formula of a Tensor[] "
                               "input may call it, as the whole formula")
        if kwargs:
            raise FormulaError(f"{name}: helpers take positional arguments")
        if len(args) != len(kinds):
            raise FormulaError(f"{name}: {len(kinds)} arguments expected, {len(args)} given")
        cargs = []
        for i, (v, k) in enumerate(zip(args, kinds)):
            cargs += self.as_kind(v, k, f"{name} argument {i}")
        out = self.tensor_temp()
        self.lines.append(f"    {out} = {cfn}({', '.join(cargs)});")
        self.check(out)
        return Val("T", out)

    # -------------------------------------------------------- operators
    def call_op(self, name, args, kwargs) -> Val:
        cands = self.ops_by_name.get(name, [])
        errors = []
        for op in cands:
            try:
                cargs = self.bind(op, args, kwargs)
            except FormulaError as e:
                errors.append(f"{op.schema.full_name}: {e}")
                continue
            out = self.tensor_temp()
            if op.returns_tensor:
                self.lines.append(f"    {out} = pt_call_{op.schema.ident}({', '.join(cargs)});")
            else:
                raise FormulaError(f"{op.schema.full_name} does not return one tensor")
            self.check(out)
            return Val("T", out)
        raise FormulaError(f"no overload of '{name}' takes ({', '.join(a.kind for a in args)}"
                           f"{', ' if kwargs else ''}{', '.join(kwargs)}): "
                           + ("; ".join(errors) or "no such operator"))

    def bind(self, op, args, kwargs) -> list:
        params = op.schema.args
        positional = [p for p in params if not p.kwarg_only]
        if len(args) > len(positional):
            raise FormulaError("too many arguments")
        given = {}
        for p, v in zip(positional, args):
            given[p.name] = v
        for k, v in kwargs.items():
            if k not in {p.name for p in params}:
                raise FormulaError(f"no argument '{k}'")
            given[k] = v
        cargs, statics = [], []
        for p in params:
            if p.name in given:
                cargs += self.param_exprs(p, given[p.name])
            elif p.default is not None:
                try:
                    exprs = gen_pyfast._default_exprs(p, self.fresh(p.name + "_"), statics)
                except gen_pyfast.NoThunk as e:
                    raise FormulaError(f"default of {p.name}: {e}")
                cargs += exprs
            else:
                raise FormulaError(f"missing '{p.name}'")
        for st in statics:
            self.locals.append(st)
        return cargs

    def param_exprs(self, p, v: Val) -> list:
        t = p.type
        base, shape = t.base, t.shape
        what = f"argument '{p.name}'"
        if base == "Tensor" and shape in ("", "?"):
            if v.kind == "None" and shape == "?":
                return ["NULL"]
            if v.kind == "GU":
                v = self.tensor(v)
            if v.kind not in ("T", "T?"):
                raise FormulaError(f"{what}: expected a tensor, got {v.kind}")
            if t.write:
                raise FormulaError(f"{what}: formulas do not write")
            return [v.expr]
        if base == "Scalar" and shape in ("", "?"):
            if v.kind == "None" and shape == "?":
                return ["NULL"]
            if v.kind in ("T", "T?", "L", "Y", "str"):
                raise FormulaError(f"{what}: expected a Scalar, got {v.kind}")
            return [self.scalar_ptr(v, what)]
        if base in ("int", "SymInt"):
            if shape == "":
                return self.as_kind(v, "I", what)
            if shape == "?":
                return self.as_kind(v, "I?", what)
            if shape in ("[]", "[]?"):
                return self.as_kind(v, "L?" if shape == "[]?" else "L", what)
        if base == "float" and shape in ("", "?"):
            return self.as_kind(v, "D?" if shape == "?" else "D", what)
        if base == "bool" and shape == "":
            return self.as_kind(v, "B", what)
        if base == "bool" and shape == "?":
            if v.kind == "None":
                return ["-1"]
            return self.as_kind(v, "B", what)
        if base == "ScalarType":
            if v.kind == "None":
                return ["-1"]
            return self.as_kind(v, "Y", what)
        if base == "str":
            if v.kind == "None" and shape == "?":
                return ["NULL"]
            return self.as_kind(v, "str", what)
        raise FormulaError(f"{what}: type {t.text} is not passed by formulas")


# ---------------------------------------------------------------- entries and nodes
SAVED_KINDS = {  # schema type -> (node field kind)
    ("Tensor", ""): "T", ("Tensor", "?"): "T?", ("Scalar", ""): "S", ("Scalar", "?"): "S?",
    ("int", ""): "I", ("SymInt", ""): "I", ("int", "?"): "I?", ("SymInt", "?"): "I?",
    ("int", "[]"): "L", ("SymInt", "[]"): "L", ("int", "[]?"): "L?", ("SymInt", "[]?"): "L?",
    ("bool", ""): "B", ("float", ""): "D", ("float", "?"): "D?", ("ScalarType", "?"): "Y",
    ("ScalarType", ""): "Y", ("str", ""): "str", ("str", "?"): "str?", ("bool", "?"): "B?",
    ("Tensor", "?[]"): "TS", ("Tensor", "[]"): "TS",
}


# The argument types the boxed kernel of an operator with a Tensor[] result unboxes.
LIST_OUTPUT_ARGS = {("Tensor", ""), ("int", ""), ("SymInt", ""), ("int", "[]"), ("SymInt", "[]")}


@dataclass
class Formula:
    inputs: list      # argument names this formula gives gradients for (one for now)
    text: str
    tree: object
    line: int


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


class _Collect(ast.NodeVisitor):
    def __init__(self):
        self.names = set()

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and node.func.attr in (
                "sizes", "dim", "numel", "scalar_type") and isinstance(node.func.value, ast.Name) \
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


def load(ops: list, path: str = DERIVATIVES, rel: str = DERIVATIVES_REL) -> list:
    by_full = {op.schema.full_name: op for op in ops}
    derivs, counts = [], {}
    for e in read_entries(path, rel):
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
            formulas.append(Formula([key], value, tree, line))
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
            d.uses |= c.names
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


def _schema_kind(arg) -> str:
    key = (arg.type.base, arg.type.shape)
    if key not in SAVED_KINDS:
        raise FormulaError(f"argument '{arg.name}' of type {arg.type.text} cannot be saved")
    return SAVED_KINDS[key]


def _cname(n: str) -> str:
    import gen_ops
    return n + "_" if n in gen_ops.C_RESERVED else n


class NodeGen:
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
                kind = {"sizes": "L", "dim": "I", "numel": "I", "scalar_type": "Y"}[attr]
                if self.args[arg].type.shape == "[]":
                    if attr != "sizes":
                        raise DeclarationError(f"{d.entry.name}: {name}: a tensor list has sizes()"
                                               " only")
                    kind = "LL"
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
                if kind == "L":
                    return Val("L", f"n->{fname}len, n->{fname}")
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
        for i, f in enumerate(d.formulas):
            em = body_em
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
            chunks.append((i, body, v.expr))
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
        for i, body, result in chunks:
            out.append(f"    if (pt_node_needs_output(self, {i})) {{")
            out.extend("    " + line for line in body)
            out.append(f"        outs[{i}] = {result};")
            out.append(f"        pt_tensor_retain({result});")
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
                pyname = f"{src[0]}_sym_sizes"
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

    # -------------------------------------------------------- kernels
    def emit_kernel(self, op, inplace: bool, out):
        import gen_ops
        d = self.d
        s = op.schema
        params, outs = op.params(), op.out_params()
        cargs = {a.name: ca for a, ca in zip(s.args, op.cargs)}
        out.append(gen_ops._decl(f"pt_status pt_autograd_kernel_{s.ident}", params + outs, ""))
        out.append("{")
        # which inputs require grad
        req = []
        for name in d.diff_inputs:
            cn = cargs[name].params[0][1]
            if name == d.list_input:
                req.append(f"pt_ag_any_requires_grad({cn}, {cargs[name].params[1][1]})")
                continue
            req.append(f"pt_requires_grad({cn})")
        out.append("    const bool ag_need = pt_grad_mode_enabled() && (" +
                   (" || ".join(req) if req else "false") + ");")
        node_t = f"node_{d.node}"
        out.append(f"    {node_t} *ag_n = NULL;")
        out.append("    pt_status ag_st = PT_OK;")
        written = [a for a in s.args if a.type.base == "Tensor" and a.type.write]
        base = s.name[:-1] if inplace and s.name.endswith("_") else s.name
        complex_ok = base in COMPLEX_DIFFERENTIABLE
        complex_msg = (f"{base} does not support automatic differentiation for outputs with "
                       "complex dtype.")
        if inplace:
            w = cargs[written[0].name].params[0][1]
            out.append(f"    if (ag_need) PT_TRY(pt_check_inplace({w}, \"{s.name}\"));")
            if not complex_ok:  # Note [complex-differentiable operators]
                out.append(f"    if (ag_need && pt_ag_is_complex({w}))")
                out.append(f"        return PT_ERROR(PT_ERR_RUNTIME, \"{complex_msg}\");")
        out.append("    if (ag_need) {")
        n_edges = (cargs[d.list_input].params[0][1] if d.list_input
                   else str(len(d.diff_inputs)))
        out.append(f"        PT_TRY(pt_node_new(sizeof *ag_n, &{d.node}_vt, {n_edges}, "
                   f"{self.nret}, (pt_node **)&ag_n));")
        if d.list_input:
            ln, arr = (p[1] for p in cargs[d.list_input].params[:2])
            out.append(f"        for (int32_t ag_i = 0; ag_i < {ln}; ag_i++) {{")
            out.append(f"            ag_st = pt_node_set_next_edge(&ag_n->base, ag_i, {arr}[ag_i]);")
            out.append("            if (ag_st != PT_OK) goto fail;")
            out.append("        }")
        for i, name in enumerate(d.diff_inputs if not d.list_input else []):
            cn = cargs[name].params[0][1]
            out.append(f"        ag_st = pt_node_set_next_edge(&ag_n->base, {i}, {cn});")
            out.append("        if (ag_st != PT_OK) goto fail;")
        # saves (inputs and values) before the call
        for kind, fname, src in self.fields:
            if kind == "R":
                continue
            if isinstance(src, tuple):
                arg, attr = src
                cn = cargs[arg].params[0][1]
                if kind == "LL":
                    arr = cargs[arg].params[1][1]
                    out.append(f"        ag_st = pt_ag_copy_sizes_list({cn}, {arr}, "
                               f"&ag_n->{fname}n, &ag_n->{fname}nd, &ag_n->{fname});")
                    out.append("        if (ag_st != PT_OK) goto fail;")
                elif attr == "sizes":
                    out.append(f"        ag_st = pt_ag_copy_ints(pt_tensor_ndim({cn}), "
                               f"pt_tensor_sizes({cn}), &ag_n->{fname}len, &ag_n->{fname});")
                    out.append("        if (ag_st != PT_OK) goto fail;")
                elif attr == "dim":
                    out.append(f"        ag_n->{fname} = pt_tensor_ndim({cn});")
                elif attr == "numel":
                    out.append(f"        ag_n->{fname} = pt_tensor_numel({cn});")
                elif attr == "scalar_type":
                    out.append(f"        ag_n->{fname} = pt_tensor_dtype({cn});")
                continue
            ca = cargs[src]
            names = [p[1] for p in ca.params]
            if kind == "TS":
                out.append(f"        ag_st = pt_ag_save_list({names[0]}, {names[1]}, "
                           f"&ag_n->{fname}n, &ag_n->{fname});")
                out.append("        if (ag_st != PT_OK) goto fail;")
            elif kind in ("T", "T?"):
                is_written = inplace and src == written[0].name
                if is_written:
                    # the original value is about to be overwritten: save a copy
                    out.append(f"        ag_st = pt_ag_save_copy(&ag_n->{fname}, {names[0]});")
                else:
                    out.append(f"        ag_st = pt_saved_save(&ag_n->{fname}, {names[0]}, false);")
                out.append("        if (ag_st != PT_OK) goto fail;")
            elif kind == "S" and self.args[src].default == "1":
                out.append(f"        ag_n->{fname} = {names[0]} ? *{names[0]} : pt_scalar_one;")
            elif kind == "S":
                out.append(f"        if (!{names[0]}) {{")
                out.append(f"            ag_st = PT_ERROR(PT_ERR_TYPE, \"{s.full_name}(): argument "
                           f"'{src}' must be Scalar, not NULL\");")
                out.append("            goto fail;")
                out.append("        }")
                out.append(f"        ag_n->{fname} = *{names[0]};")
            elif kind == "S?":
                out.append(f"        if ({names[0]}) {{ ag_n->{fname} = *{names[0]}; "
                           f"ag_n->{fname}set = true; }}")
            elif kind in ("I", "B", "B?", "D", "Y"):
                out.append(f"        ag_n->{fname} = {names[0]};")
            elif kind in ("I?", "D?"):
                out.append(f"        if ({names[0]}) {{ ag_n->{fname} = *{names[0]}; "
                           f"ag_n->{fname}set = true; }}")
            elif kind in ("L", "L?"):
                out.append(f"        ag_st = pt_ag_copy_ints({names[0]}, {names[1]}, "
                           f"&ag_n->{fname}len, &ag_n->{fname});")
                out.append("        if (ag_st != PT_OK) goto fail;")
            elif kind in ("str", "str?"):
                out.append(f"        if ({names[0]}) {{ ag_n->{fname} = strdup({names[0]}); "
                           f"if (!ag_n->{fname}) {{ ag_st = PT_ERR_MEMORY; goto fail; }} }}")
        out.append("    }")
        # the call below autograd
        call_names = [p[1] for p in params]
        out.append("    {")
        out.append("        const uint64_t ag_saved = pt_below_autograd_begin();")
        if op.returns_tensor:
            out.append(gen_ops._wrap(8, f"*{outs[0][1]} = pt_call_{s.ident}", call_names, ";"))
            out.append("        pt_below_autograd_end(ag_saved);")
            out.append(f"        if (!*{outs[0][1]}) {{")
            out.append("            ag_st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;")
            out.append("            goto fail;")
            out.append("        }")
        else:
            out.append(gen_ops._wrap(8, f"ag_st = pt_call_{s.ident}",
                                     call_names + [o[1] for o in outs], ";"))
            out.append("        pt_below_autograd_end(ag_saved);")
            out.append("        if (ag_st != PT_OK) goto fail;")
        out.append("    }")
        out.append("    if (!ag_n) return PT_OK;")
        # outputs
        ret_names = [o[1] for o in outs]
        for i, (t, _) in enumerate(s.returns):
            if t.base != "Tensor" or t.shape or not d.output_diff[i]:
                continue
            r = ret_names[i]
            # Note [outputs that are inputs]: an operator that hands back an input itself (to()
            # of the same dtype, contiguous() of a contiguous tensor) leaves its history alone;
            # making that tensor the node's output would turn a leaf into a non-leaf whose graph
            # loops back to itself. The identity gradient the input already has is the right one.
            same = [] if inplace else [
                cargs[n].params[0][1] for n in d.diff_inputs if n != d.list_input]
            cond = "".join(f" && *{r} != {c}" for c in same)
            out.append(f"    if (pt_ag_differentiable(*{r}){cond}) {{")
            if not complex_ok and not inplace:  # Note [complex-differentiable operators]
                out.append(f"        if (pt_ag_is_complex(*{r})) {{")
                out.append(f"            ag_st = PT_ERROR(PT_ERR_RUNTIME, \"{complex_msg}\");")
                out.append("            goto fail_out;")
                out.append("        }")
            if inplace and i == 0:
                # a written view rebases its base's history (Note [CopySlices], views.c)
                out.append(f"        ag_st = pt_rebase_history(*{r}, &ag_n->base);")
            else:
                out.append(f"        ag_st = pt_set_history(*{r}, &ag_n->base, {i});")
            out.append("        if (ag_st != PT_OK) goto fail_out;")
            out.append("    }")
        for kind, fname, src in self.fields:
            if kind == "R":
                out.append(f"    ag_st = pt_saved_save(&ag_n->{fname}, *{ret_names[src]}, true);")
                out.append("    if (ag_st != PT_OK) goto fail_out;")
        out.append("    pt_node_release(&ag_n->base);")
        out.append("    return PT_OK;")
        out.append("fail_out: __attribute__((unused));")
        for i, (t, _) in enumerate(s.returns):
            if t.base == "Tensor" and not t.shape:
                out.append(f"    pt_tensor_release(*{ret_names[i]});")
                out.append(f"    *{ret_names[i]} = NULL;")
        out.append("fail: __attribute__((unused));")
        out.append("    pt_node_release(ag_n ? &ag_n->base : NULL);")
        out.append("    return ag_st;")
        out.append("}")
        out.append("")


    def emit_list_kernel(self, out):
        """The boxed Autograd kernel of an operator whose result is a Tensor[] (split, unbind):
        the number of node inputs is the length of the result, known after the call, so the
        saved values wait in a local copy of the node until the node is made."""
        d = self.d
        s = d.op.schema
        nargs = len(s.args)
        node_t = f"node_{d.node}"
        if any(kind not in ("I", "L") or (isinstance(src, tuple) and src[1] not in ("sizes", "dim"))
               for kind, _, src in self.fields):
            raise DeclarationError(f"{d.entry.name}: a Tensor[] result's formula may save ints "
                                   "and int lists only")
        out.append(f"pt_status pt_autograd_kernel_{s.ident}(const pt_op *op, int32_t key, "
                   "uint64_t keyset, pt_stack *stack, void *ctx)")
        out.append("{")
        out.append("    PT_UNUSED(key);")
        out.append("    PT_UNUSED(keyset);")
        out.append("    PT_UNUSED(ctx);")
        out.append(f"    PT_TRY(pt_box_check_stack(op, stack, {nargs}, 1));")
        out.append(f"    const int32_t ag_base = stack->size - {nargs};")
        out.append("    const pt_ivalue *ag_a = stack->items + ag_base;")
        tensor_arg = next(i for i, a in enumerate(s.args) if a.type.base == "Tensor")
        out.append("    pt_tensor *ag_self;")
        out.append(f"    PT_TRY(pt_unbox_tensor(op, ag_a, {tensor_arg}, 0, &ag_self));")
        out.append("    if (!pt_grad_mode_enabled() || !pt_requires_grad(ag_self)) {")
        out.append("        const uint64_t ag_saved = pt_below_autograd_begin();")
        out.append("        const pt_status ag_st = pt_dispatch_call(op, stack);")
        out.append("        pt_below_autograd_end(ag_saved);")
        out.append("        return ag_st;")
        out.append("    }")
        out.append(f"    {node_t} ag_v;")
        out.append("    memset(&ag_v, 0, sizeof ag_v);")
        out.append(f"    {node_t} *ag_n = NULL;")
        out.append("    pt_status ag_st = PT_OK;")
        index = {a.name: i for i, a in enumerate(s.args)}
        for kind, fname, src in self.fields:
            if isinstance(src, tuple) and src[1] == "dim":
                out.append(f"    ag_v.{fname} = pt_tensor_ndim(ag_self);")
            elif isinstance(src, tuple):
                out.append("    ag_st = pt_ag_copy_ints(pt_tensor_ndim(ag_self), "
                           f"pt_tensor_sizes(ag_self), &ag_v.{fname}len, &ag_v.{fname});")
            elif kind == "I":
                out.append(f"    ag_st = pt_unbox_int(op, ag_a, {index[src]}, &ag_v.{fname});")
            else:
                out.append("    {")
                out.append("        int32_t ag_len;")
                out.append("        const int64_t *ag_ints;")
                out.append(f"        ag_st = pt_unbox_int_list(op, ag_a, {index[src]}, "
                           "PT_IV_INT_LIST, 0, &ag_len, &ag_ints);")
                out.append("        if (ag_st == PT_OK) ag_st = pt_ag_copy_ints(ag_len, ag_ints, "
                           f"&ag_v.{fname}len, &ag_v.{fname});")
                out.append("    }")
            out.append("    if (ag_st != PT_OK) goto fail;")
        out.append("    pt_tensor_retain(ag_self); /* the call replaces the arguments */")
        out.append("    {")
        out.append("        const uint64_t ag_saved = pt_below_autograd_begin();")
        out.append("        ag_st = pt_dispatch_call(op, stack);")
        out.append("        pt_below_autograd_end(ag_saved);")
        out.append("    }")
        out.append("    pt_ivalue *ag_r = stack->items + ag_base;")
        out.append("    if (ag_st == PT_OK && (stack->size <= ag_base || ag_r->tag != PT_IV_TENSOR_LIST"
                   " || ag_r->len > INT32_MAX))")
        out.append(f"        ag_st = PT_ERROR(PT_ERR_RUNTIME, \"{s.full_name}: the kernel did not "
                   "return a tensor list\");")
        out.append("    if (ag_st == PT_OK)")
        out.append(f"        ag_st = pt_node_new(sizeof *ag_n, &{d.node}_vt, 1, (int32_t)ag_r->len, "
                   "(pt_node **)&ag_n);")
        out.append("    if (ag_st == PT_OK) {")
        out.append("        memcpy((char *)ag_n + sizeof(pt_node), (char *)&ag_v + sizeof(pt_node), "
                   "sizeof ag_v - sizeof(pt_node));")
        out.append("        memset(&ag_v, 0, sizeof ag_v);")
        out.append("        ag_st = pt_node_set_next_edge(&ag_n->base, 0, ag_self);")
        out.append("    }")
        out.append("    /* The pieces are views of self made by one node: PyTorch's")
        out.append("     * CreationMeta::MULTI_OUTPUT_NODE (an in-place change of a piece cannot be")
        out.append("     * rebased onto this node, Note [view tracking]). */")
        out.append("    for (int64_t ag_j = 0; ag_st == PT_OK && ag_j < ag_r->len; ag_j++) {")
        out.append("        pt_tensor *ag_t = ag_r->tensors[ag_j];")
        out.append("        if (ag_t && ag_t->view_base && ag_t->view_creation == PT_VIEW_DEFAULT)")
        out.append("            ag_t->view_creation = PT_VIEW_MULTI_OUTPUT_NODE;")
        out.append("        if (ag_t && pt_ag_differentiable(ag_t))")
        out.append("            ag_st = pt_set_history(ag_t, &ag_n->base, (int32_t)ag_j);")
        out.append("    }")
        out.append("    pt_tensor_release(ag_self);")
        out.append("fail: __attribute__((unused));")
        for kind, fname, _ in self.fields:
            if kind == "L":
                out.append(f"    free(ag_v.{fname});")
        out.append("    pt_node_release(ag_n ? &ag_n->base : NULL);")
        out.append("    return ag_st;")
        out.append("}")
        out.append("")


NOTE = """\
/* pt_autograd.c - the nodes and Autograd kernels of the formulas in csrc/ops/derivatives.yaml.
 * Generated by tools/gen_autograd.py: do not edit. */
"""


def emit(ops: list, derivs: list) -> str:
    ops_by_name = {}
    for op in ops:
        s = op.schema
        if not op.unboxed:
            continue
        if any(a.type.write for a in s.args):
            continue  # formulas never call in-place or out= overloads
        ops_by_name.setdefault(s.name, []).append(op)
    out = [NOTE, "#include <stdbool.h>", "#include <stdint.h>", "#include <stdlib.h>",
           "#include <string.h>", "", "#include \"autograd.h\"", "#include \"boxing.h\"",
           "#include \"functions.h\"", "#include \"pt_ops.h\"", "#include \"pt_ops_internal.h\"",
           ""]
    names = []
    for d in derivs:
        g = NodeGen(d, ops_by_name)
        out.append(f"/* ---------------- {d.node}: {d.op.schema.full_name} "
                   f"({DERIVATIVES_REL}:{d.entry.line}) */")
        g.emit_struct(out)
        g.emit_apply(out)
        g.emit_release(out)
        if d.list_output:
            g.emit_list_kernel(out)
        else:
            g.emit_kernel(d.op, any(a.type.write for a in d.op.schema.args), out)
        names.append(d.op.schema.full_name)
        for ip in d.inplace:
            g.emit_kernel(ip, True, out)
            names.append(ip.schema.full_name)
    out.append("static const char *const formula_ops[] = {")
    out.extend(f"    \"{n}\"," for n in names)
    out.append("    NULL};")
    out.append(f"int32_t pt_autograd_formula_count(void) {{ return {len(names)}; }}")
    out.append("const char *pt_autograd_formula_op(int32_t index)")
    out.append("{")
    out.append(f"    return index >= 0 && index < {len(names)} ? formula_ops[index] : NULL;")
    out.append("}")
    out.append("")
    return "\n".join(out)


def kernels(derivs: list) -> dict:
    """full operator name -> Autograd kernel name, for gen_ops' registrations."""
    r = {}
    for d in derivs:
        r[d.op.schema.full_name] = f"pt_autograd_kernel_{d.op.schema.ident}"
        for ip in d.inplace:
            r[ip.schema.full_name] = f"pt_autograd_kernel_{ip.schema.ident}"
    return r


if __name__ == "__main__":
    import gen_ops
    all_ops = gen_ops.load_ops()
    ds = load(all_ops)
    emit(all_ops, ds)
    print(f"{len(ds)} derivative entries")
