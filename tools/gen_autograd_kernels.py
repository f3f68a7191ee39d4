"""gen_autograd_kernels.py - the Autograd kernels of one derivatives.yaml entry.

The kernel of an operator (and of its in-place variants) finds whether any input requires grad,
makes the node and its edges, saves what the formulas use, redispatches below autograd and makes
the outputs the node's; an operator whose result is a Tensor[] gets a boxed kernel instead. The
methods read the node's description that NodeGen (gen_autograd_nodes.py) builds: `d` (the
Derivative), `args`, `nret` and `fields`.
"""
from __future__ import annotations

import os
import sys

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_ops_yaml import DeclarationError  # noqa: E402

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
    view _unsafe_view reshape flatten t transpose permute expand squeeze unsqueeze select slice
    narrow flip rsub
    tril triu clone contiguous _to_copy to roll repeat tile unfold normal uniform
    index_select gather take masked_select masked_fill where scatter scatter_add index index_put
    cat stack fill zero copy
    _conj_physical conj_physical view_as_real view_as_complex angle polar complex
    acosh asinh atanh arccos arcsin arctan arccosh arcsinh arctanh negative subtract multiply
    logaddexp addcmul addcdiv lerp ldexp
    _fft_c2c _fft_r2c _fft_c2r constant_pad_nd
    linalg_inv_ex _linalg_det _linalg_slogdet _linalg_solve_ex linalg_cholesky_ex
    linalg_solve_triangular _linalg_eigh _linalg_svd
""".split())




# Note [saving only what backward will use]
# The formula of input i runs only when that input required grad (pt_node_needs_output), so a
# tensor that only formulas of inputs needing no grad read is not saved: `a * b` with only `a`
# requiring grad keeps `b` (for a's gradient) and not `a`, and an input made in inference mode
# may take part as long as nobody needs it saved. A tensor is saved under the condition that one
# of the formulas reading it will run; one that every formula reads, the outputs (`result`) and
# the non-tensor values (sizes, scalars, ints: cheap, and the `_saved_*` accessors show them as
# torch does) are saved whenever the node is recorded. torch's generated code guards only the
# tensors that exactly one formula reads and saves the rest unconditionally; here a tensor read
# by several formulas but not all is saved only when one of them will run.


class KernelGen:
    """The Autograd kernels of a node type (a base of NodeGen, which holds the fields)."""

    def save_guard(self, name: str):
        """The C condition under which the saved tensor `name` is needed (None: always, that is
        whenever the node is recorded). Edge i of the node is input d.formulas[i]'s."""
        d = self.d
        users = [i for i, f in enumerate(d.formulas) if name in f.uses]
        if d.list_input or not users or len(users) == len(d.formulas):
            return None
        return " || ".join(f"pt_node_needs_output(&ag_n->base, {i})" for i in users)

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
                elif attr == "sizes" and kind == "L?":
                    out.append(f"        ag_st = {cn} ? pt_ag_copy_ints(pt_tensor_ndim({cn}), "
                               f"pt_tensor_sizes({cn}), &ag_n->{fname}len, &ag_n->{fname}) : "
                               f"pt_ag_copy_ints(-1, NULL, &ag_n->{fname}len, &ag_n->{fname});")
                    out.append("        if (ag_st != PT_OK) goto fail;")
                elif attr == "sizes":
                    out.append(f"        ag_st = pt_ag_copy_ints(pt_tensor_ndim({cn}), "
                               f"pt_tensor_sizes({cn}), &ag_n->{fname}len, &ag_n->{fname});")
                    out.append("        if (ag_st != PT_OK) goto fail;")
                elif attr == "strides":
                    out.append(f"        ag_st = pt_ag_copy_ints(pt_tensor_ndim({cn}), "
                               f"pt_tensor_strides({cn}), &ag_n->{fname}len, &ag_n->{fname});")
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
            if kind in ("T", "T?", "TS"):
                # Note [saving only what backward will use]
                guard = self.save_guard(src)
                pad = "    " if guard else ""
                if guard:
                    out.append(f"        if ({guard}) {{")
                if kind == "TS":
                    out.append(f"{pad}        ag_st = pt_ag_save_list({names[0]}, {names[1]}, "
                               f"&ag_n->{fname}n, &ag_n->{fname});")
                elif inplace and src == written[0].name:
                    # the original value is about to be overwritten: save a copy
                    out.append(f"{pad}        ag_st = pt_ag_save_copy(&ag_n->{fname}, {names[0]});")
                else:
                    out.append(f"{pad}        ag_st = pt_saved_save(&ag_n->{fname}, {names[0]}, "
                               "false);")
                out.append(f"{pad}        if (ag_st != PT_OK) goto fail;")
                if guard:
                    out.append("        }")
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
            out.append(f"    if (*{r} && pt_ag_differentiable(*{r}){cond}) {{")
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
