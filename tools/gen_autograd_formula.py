"""gen_autograd_formula.py - compiles one backward formula into C statements.

A formula (an `ast` expression, see gen_autograd.py for the language) becomes a list of C
statements that compute its value into tensor temporaries: names resolve through the node's
lookup (saved fields, gradients), operators are called through their unboxed entry points
(pt_call_<op>, so formulas are differentiable themselves) and the helpers of
csrc/autograd/functions*.c through HELPERS. Every temporary is released at the node's `done`
label.
"""
from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass
from typing import Optional

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_pyfast  # noqa: E402

# ---------------------------------------------------------------- helpers (csrc/autograd/functions*.c)
# name -> (C function, parameter kinds, result kind). Kinds: T tensor, T? optional tensor,
# S Scalar, S? optional Scalar, I int, I? optional int, L int list, L? optional int list, B bool,
# D double, Y dtype, GL the gradients of a Tensor[] result (the node and its grads array). Every
# helper returns a new tensor reference (NULL on failure).
HELPERS = {
    "sum_to": ("pt_ag_sum_to", ["T", "L"], "T"),
    "sum_backward": ("pt_ag_sum_backward", ["T", "L", "L?", "B"], "T"),
    "mean_backward": ("pt_ag_mean_backward", ["T", "L", "L?", "B"], "T"),
    "mul_alpha": ("pt_ag_mul_alpha", ["T", "S"], "T"),
    "mm_mat1_backward": ("pt_ag_mm_mat1_backward", ["T", "T", "L", "L"], "T"),
    "mm_mat2_backward": ("pt_ag_mm_mat2_backward", ["T", "T", "L", "L"], "T"),
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
    "logsumexp_backward": ("pt_ag_logsumexp_backward", ["T", "T", "T", "L", "B"], "T"),
    "var_backward": ("pt_ag_var_backward", ["T", "T", "L?", "S?", "B"], "T"),
    "std_backward": ("pt_ag_std_backward", ["T", "T", "T", "L?", "S?", "B"], "T"),
    "norm_backward": ("pt_ag_norm_backward", ["T", "T", "T", "S?", "L?", "B"], "T"),
    "cumsum_backward": ("pt_ag_cumsum_backward", ["T", "I"], "T"),
    "cumprod_backward": ("pt_ag_cumprod_backward", ["T", "T", "I", "T"], "T"),
    "zeros_like_grad": ("pt_ag_zeros_like", ["T"], "T"),
    "max_pool_double_backward": ("pt_ag_max_pool_double_backward", ["T", "T", "I"], "T"),
    "adaptive_avg_pool_double_backward": ("pt_ag_adaptive_avg_pool_double_backward",
                                          ["T", "L", "I"], "T"),
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
    "block_diag_backward": ("pt_ag_block_diag_backward", ["T", "LL"], "TL"),
    "split_backward": ("pt_ag_split_backward", ["GL", "I", "I"], "T"),
    "unbind_backward": ("pt_ag_unbind_backward", ["GL", "I"], "T"),
    "native_dropout_grad": ("pt_ag_native_dropout_backward", ["T", "T", "D", "B"], "T"),
    "im2col_backward": ("pt_ag_im2col_backward", ["T", "L", "L", "L", "L", "L"], "T"),
    "convolution_double_backward_one": ("pt_ag_convolution_double_backward_one",
                                        ["T?", "T?", "T?", "T", "T", "T", "L", "L", "L", "B", "L",
                                         "I", "I"], "T"),

    "constant_pad_nd_backward": ("pt_ag_constant_pad_nd_backward", ["T", "L"], "T"),
    "grid_sampler_2d_backward_input": ("pt_ag_grid_sampler_2d_backward_input",
                                       ["T", "T", "T", "I", "I", "B"], "T"),
    "grid_sampler_2d_backward_grid": ("pt_ag_grid_sampler_2d_backward_grid",
                                      ["T", "T", "T", "I", "I", "B"], "T"),
    "grid_sampler_3d_backward_input": ("pt_ag_grid_sampler_3d_backward_input",
                                       ["T", "T", "T", "I", "I", "B"], "T"),
    "grid_sampler_3d_backward_grid": ("pt_ag_grid_sampler_3d_backward_grid",
                                      ["T", "T", "T", "I", "I", "B"], "T"),
    "channel_shuffle_backward": ("pt_ag_channel_shuffle_backward", ["T", "I"], "T"),

    # fft (csrc/autograd/functions_fft.c)
    "fft_c2c_backward": ("pt_ag_fft_c2c_backward", ["T", "L", "I", "B"], "T"),
    "fft_r2c_backward": ("pt_ag_fft_r2c_backward", ["T", "L", "I", "B", "L"], "T"),
    "fft_c2r_backward": ("pt_ag_fft_c2r_backward", ["T", "L", "I"], "T"),

    # nn losses (csrc/autograd/functions_nn_loss.c)
    "mse_loss_double_backward": ("pt_ag_mse_loss_double_backward", ["T", "T", "I"], "T"),
    "smooth_l1_loss_double_backward": ("pt_ag_smooth_l1_loss_double_backward",
                                       ["T", "T", "T", "I", "D"], "T"),
    "huber_loss_double_backward": ("pt_ag_huber_loss_double_backward", ["T", "T", "T", "I", "D"],
                                   "T"),
    "soft_margin_loss_double_backward": ("pt_ag_soft_margin_loss_double_backward",
                                         ["T", "T", "T", "I"], "T"),
    "soft_margin_loss_double_backward_grad_output": (
        "pt_ag_soft_margin_loss_double_backward_grad_output", ["T", "T", "T", "T", "I"], "T"),
    "binary_cross_entropy_target_backward": ("pt_ag_binary_cross_entropy_target_backward",
                                             ["T", "T", "T", "T?", "I"], "T"),
    "binary_cross_entropy_double_backward": ("pt_ag_binary_cross_entropy_double_backward",
                                             ["T", "T", "T", "T", "T?", "I"], "T"),
    "binary_cross_entropy_double_backward_target": (
        "pt_ag_binary_cross_entropy_double_backward_target", ["T", "T", "T", "T", "T?", "I"], "T"),
    "binary_cross_entropy_double_backward_grad_output": (
        "pt_ag_binary_cross_entropy_double_backward_grad_output", ["T", "T", "T", "T?", "I"], "T"),
    "binary_cross_entropy_with_logits_backward": (
        "pt_ag_binary_cross_entropy_with_logits_backward", ["T", "T", "T", "T?", "T?", "I"], "T"),
    "binary_cross_entropy_with_logits_target_backward": (
        "pt_ag_binary_cross_entropy_with_logits_target_backward",
        ["T", "T", "T", "T?", "T?", "I"], "T"),

    "batch_norm_double_backward_one": (
        "pt_ag_batch_norm_double_backward_one",
        ["T?", "T?", "T?", "T", "T", "T?", "T?", "T?", "T?", "T?", "B", "D", "I"], "T"),
    "layer_norm_double_backward_one": (
        "pt_ag_layer_norm_double_backward_one",
        ["T?", "T?", "T?", "T", "T", "L", "T", "T", "T?", "I"], "T"),
    "group_norm_double_backward_one": (
        "pt_ag_group_norm_double_backward_one",
        ["T?", "T?", "T?", "T", "T", "T", "T", "T?", "I", "I", "I", "I", "I"], "T"),
    "embedding_backward": ("pt_ag_embedding_backward", ["T", "T", "L", "I", "B", "B"], "T"),
    "embedding_dense_double_backward": ("pt_ag_embedding_dense_double_backward",
                                        ["T", "T", "I"], "T"),

    # nn: activation (csrc/autograd/functions_nn_activation.c)
    "elu_double_backward": ("pt_ag_elu_double_backward", ["T", "T", "S", "S", "S", "B", "T"], "T"),
    "celu_backward": ("pt_ag_celu_backward", ["T", "S", "B", "T"], "T"),
    "softplus_double_backward": ("pt_ag_softplus_double_backward", ["T", "T", "S", "S"], "T"),
    "mish_double_backward": ("pt_ag_mish_double_backward", ["T", "T", "T"], "T"),
    "gelu_double_backward": ("pt_ag_gelu_double_backward", ["T", "T", "T", "str"], "T"),
    "silu_double_backward": ("pt_ag_silu_double_backward", ["T", "T", "T"], "T"),
    "glu_double_backward_grad_output": ("pt_ag_glu_double_backward_grad_output", ["T", "T", "I"],
                                        "T"),
    "glu_double_backward": ("pt_ag_glu_double_backward", ["T", "T", "T", "I"], "T"),
    "softmax_double_backward": ("pt_ag_softmax_double_backward", ["T", "T", "I", "T"], "T"),
    "log_softmax_double_backward_grad_output": ("pt_ag_log_softmax_double_backward_grad_output",
                                                ["T", "T", "I"], "T"),
    "log_softmax_double_backward_output": ("pt_ag_log_softmax_double_backward_output",
                                           ["T", "T", "I", "T"], "T"),

    # nn: bag (csrc/autograd/functions_nn_bag.c)
    "embedding_bag_backward": ("pt_ag_embedding_bag_backward",
                               ["T", "T", "T", "T", "T", "T", "L", "B", "I", "B", "T?", "I"], "T"),

    # special functions (csrc/autograd/functions_special.c)
    "not_implemented": ("pt_ag_not_implemented", ["str"], "T"),
    "mvlgamma_backward": ("pt_ag_mvlgamma_backward", ["T", "T", "I"], "T"),
    "zero_where_self_zero_unless_above": ("pt_ag_zero_where_self_zero_unless_above",
                                          ["T", "T", "S", "D"], "T"),
    "zeta_self_scalar_backward": ("pt_ag_zeta_self_scalar_backward", ["T", "S", "T"], "T"),
}




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
        self.group_mask = None  # grad_input_mask while a formula of several inputs compiles
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
                if meth in ("sizes", "strides", "dim", "numel", "scalar_type") \
                        and isinstance(recv, ast.Name):
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

    def compile_multi(self, node, n: int) -> list:
        """A formula of several inputs (Note [one formula for several inputs] in
        gen_autograd_parse): one call of an operator with n Tensor results; their C names, each
        NULL where the operator left that gradient undefined."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            raise FormulaError("a formula of several inputs is one call of an operator")
        args = [self.compile(a) for a in node.args]
        kwargs = {k.arg: self.compile(k.value) for k in node.keywords}
        errors = []
        for op in self.ops_by_name.get(node.func.id, []):
            rets = op.schema.returns
            if len(rets) != n or any(t.base != "Tensor" or t.shape for t, _ in rets):
                errors.append(f"{op.schema.full_name}: does not return {n} tensors")
                continue
            try:
                cargs = self.bind(op, args, kwargs)
            except FormulaError as e:
                errors.append(f"{op.schema.full_name}: {e}")
                continue
            outs = [self.tensor_temp() for _ in range(n)]
            call = ", ".join(cargs + [f"&{o}" for o in outs])
            self.lines.append(f"    if (pt_call_{op.schema.ident}({call}) != PT_OK) goto fail;")
            return outs
        raise FormulaError(f"no overload of '{node.func.id}' fits: "
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
        if base == "bool" and shape == "[]":
            if v.kind != "L":
                raise FormulaError(f"{what}: expected a bool list (grad_input_mask)")
            return [v.expr]
        if base == "ScalarType":
            if v.kind == "None":
                return ["-1"]
            return self.as_kind(v, "Y", what)
        if base == "str":
            if v.kind == "None" and shape == "?":
                return ["NULL"]
            return self.as_kind(v, "str", what)
        raise FormulaError(f"{what}: type {t.text} is not passed by formulas")
