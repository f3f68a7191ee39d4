/* dispatch_mathbits.c - the Conjugate and Negative keys' fallback (Note [math bits] in
 * pytensor.h), PyTorch's MathBitsFallback rebuilt over the boxed convention.
 *
 * A tensor with the conjugate (negative) bit puts the Conjugate (Negative) key in the key set of
 * every call it takes part in. Below autograd and above the backends, the key's fallback makes
 * the call see values instead of stored elements:
 *   - an operator whose result aliases an argument without writing it (a view: view, select,
 *     transpose, detach, contiguous, to, ...) is passed on as it is: view functions copy the
 *     bits to the view (view.c), and the ones that copy go through copy_, which applies them;
 *   - every other tensor argument with the bit is replaced by a resolved copy (bit cleared, other
 *     bits kept), so kernels read values;
 *   - a written argument with the bit (self of an in-place operator, out=) is resolved the same
 *     way, the operator writes the copy, and copy_ writes it back into the argument, which
 *     applies the bit again; a result that is the copy becomes the argument.
 * Operators that handle the bits themselves (copy_, clone, _to_copy, resolve_conj, resolve_neg,
 * _conj, _neg_view, resize_) are fallthroughs at both keys, registered here
 * with the fallbacks. Composite (CompositeImplicitAutograd) operators run before the fallback
 * (Note [filling a slot] in dispatch_table.c), so only the operators they call meet it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "dispatch.h"
#include "functions.h"
#include "pt_ops.h"

/* A copy of t with `bit` cleared and t's values (copy_ applies the difference of the bits). */
static pt_status resolved(const pt_tensor *t, int32_t bit, pt_tensor **out)
{
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(t->ndim, t->sizes, t->dtype, t->device, &r));
    r->math_bits = (uint8_t)(t->math_bits & ~bit);
    pt_status st = pt_tensor_copy_(r, t);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

/* Whether a result of op aliases an argument it does not write (a view or a maybe-view). */
static bool returns_alias(const pt_schema *s)
{
    const int32_t n = pt_schema_num_returns(s);
    for (int32_t i = 0; i < n; i++) {
        pt_schema_arg_info info;
        if (pt_schema_return(s, i, &info) != PT_OK) continue;
        if ((info.has_alias && !info.alias_is_write && info.alias_before[0]) ||
            (info.elem_has_alias && !info.elem_alias_is_write))
            return true;
    }
    return false;
}

/* What the fallback changed on the stack, to be undone after the call. */
enum { MAX_SWAPS = 16 };
typedef struct swaps {
    int32_t n;
    pt_tensor *original[MAX_SWAPS]; /* borrowed from the caller */
    pt_tensor *copy[MAX_SWAPS];     /* owned */
    bool written[MAX_SWAPS];
    int32_t nlists;
    pt_tensor **lists[MAX_SWAPS]; /* owned arrays that replaced Tensor[] arguments */
    pt_ivalue *list_args[MAX_SWAPS];
    pt_tensor *const *list_originals[MAX_SWAPS];
} swaps;

/* Puts the caller's arguments back (a failure before the call). */
static void swaps_undo(swaps *w)
{
    for (int32_t i = 0; i < w->nlists; i++) w->list_args[i]->tensors = w->list_originals[i];
}

static void swaps_free(swaps *w)
{
    for (int32_t i = 0; i < w->n; i++) pt_tensor_release(w->copy[i]);
    for (int32_t i = 0; i < w->nlists; i++) free(w->lists[i]);
}

static pt_status too_many(const pt_op *op)
{
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: more than %d tensor arguments with the "
                    "conjugate or negative bit in one call", pt_op_name(op), MAX_SWAPS);
}

static pt_status swap_in(const pt_op *op, pt_tensor **slot, int32_t bit, bool written, swaps *w)
{
    if (w->n == MAX_SWAPS) return too_many(op);
    pt_tensor *c;
    PT_TRY(resolved(*slot, bit, &c));
    w->original[w->n] = *slot;
    w->copy[w->n] = c;
    w->written[w->n] = written;
    w->n++;
    *slot = c;
    return PT_OK;
}

static pt_status swap_list(const pt_op *op, pt_ivalue *v, int32_t bit, swaps *w)
{
    bool any = false;
    for (int64_t i = 0; v->tensors && i < v->len; i++)
        any = any || (v->tensors[i] && (v->tensors[i]->math_bits & bit));
    if (!any) return PT_OK;
    if (w->nlists == MAX_SWAPS) return too_many(op);
    pt_tensor **list = malloc(sizeof *list * (size_t)v->len);
    if (!list) return PT_ERROR(PT_ERR_MEMORY, "%s: out of memory", pt_op_name(op));
    memcpy(list, v->tensors, sizeof *list * (size_t)v->len);
    w->lists[w->nlists] = list;
    w->list_args[w->nlists] = v;
    w->list_originals[w->nlists++] = v->tensors;
    v->tensors = list;
    for (int64_t i = 0; i < v->len; i++)
        if (list[i] && (list[i]->math_bits & bit)) PT_TRY(swap_in(op, &list[i], bit, false, w));
    return PT_OK;
}

/* After the call: written copies go back into their arguments (copy_ applies the bit again),
 * and results that are such copies become the arguments, as the operator promised. */
static pt_status write_back(pt_stack *stack, int32_t base, int32_t nrets, swaps *w)
{
    for (int32_t i = 0; i < w->n; i++) {
        if (!w->written[i]) continue;
        /* the call that wrote the argument bumps its version: this copy leaves it alone */
        pt_version_guard++;
        pt_tensor *r = pt_call_copy_(w->original[i], w->copy[i], 0);
        pt_version_guard--;
        if (!r) return pt_error_code();
        pt_tensor_release(r);
        for (int32_t k = base; k < base + nrets && k < stack->size; k++) {
            pt_ivalue *v = &stack->items[k];
            if (v->tag != PT_IV_TENSOR || v->t != w->copy[i]) continue;
            pt_tensor_retain(w->original[i]);
            pt_tensor_release(v->t);
            v->t = w->original[i];
        }
    }
    return PT_OK;
}

static pt_status mathbits_fallback(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                   void *ctx)
{
    const int32_t bit = (int32_t)(intptr_t)ctx;
    const pt_schema *s = pt_op_schema(op);
    if (!s || returns_alias(s)) return pt_dispatch_redispatch(op, key, keyset, stack);
    const pt_arg_plan *plan = atomic_load_explicit(&op->plan, memory_order_acquire);
    const int32_t nargs = plan->nargs;
    const int32_t base = stack->size - nargs;
    pt_ivalue *args = stack->items + base;
    swaps w = {0};
    pt_status st = PT_OK;
    for (int32_t i = 0; st == PT_OK && i < plan->ntensors; i++) {
        const pt_plan_arg *a = &plan->tensor_args[i];
        pt_ivalue *v = &args[a->index];
        if (v->tag == PT_IV_TENSOR && v->t && (v->t->math_bits & bit))
            st = swap_in(op, &v->t, bit, (plan->written >> a->index) & 1, &w);
        else if (v->tag == PT_IV_TENSOR_LIST || v->tag == PT_IV_OPT_TENSOR_LIST)
            st = swap_list(op, v, bit, &w);
    }
    if (st != PT_OK) {
        for (int32_t i = 0; i < w.n; i++) /* the single tensors go back in place too */
            for (int32_t j = 0; j < nargs; j++)
                if (args[j].tag == PT_IV_TENSOR && args[j].t == w.copy[i])
                    args[j].t = w.original[i];
        swaps_undo(&w);
        swaps_free(&w);
        return st;
    }
    st = pt_dispatch_redispatch(op, key, keyset, stack);
    if (st == PT_OK) {
        st = write_back(stack, base, pt_schema_num_returns(s), &w);
        if (st != PT_OK) { /* the results are owned: drop them, the caller's values stay */
            pt_stack results = {stack->items + base, stack->size - base, stack->capacity - base};
            pt_stack_clear(&results);
            stack->size = base;
        }
    }
    swaps_free(&w);
    return st;
}

/* ---------------------------------------------------------------- _conj and _neg_view autograd */
static pt_status flip_apply(pt_node *self, pt_tensor *const *grads, pt_tensor **outs, bool conj)
{
    if (!grads[0] || !pt_node_needs_output(self, 0)) return PT_OK;
    outs[0] = conj ? pt_call_conj(grads[0]) : pt_call_neg(grads[0]);
    return outs[0] ? PT_OK : pt_error_code();
}

static pt_status conj_apply(pt_node *self, pt_tensor *const *grads, pt_tensor **outs)
{
    return flip_apply(self, grads, outs, true);
}

static pt_status neg_view_apply(pt_node *self, pt_tensor *const *grads, pt_tensor **outs)
{
    return flip_apply(self, grads, outs, false);
}

static const pt_node_vtable conj_vt = {"ConjBackward0", conj_apply, NULL, NULL, NULL};
static const pt_node_vtable neg_view_vt = {"NegViewBackward0", neg_view_apply, NULL, NULL, NULL};

/* The Autograd kernel of _conj (ctx: conj_vt) and _neg_view (neg_view_vt): one input, one view
 * output whose history is the node. */
static pt_status flip_autograd(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                               void *ctx)
{
    const int32_t base = stack->size - 1;
    const pt_tensor *self = base >= 0 ? stack->items[base].t : NULL;
    pt_node *n = NULL;
    if (self && pt_grad_mode_enabled() && pt_requires_grad(self)) {
        PT_TRY(pt_node_new(sizeof *n, ctx, 1, 1, &n));
        pt_status st = pt_node_set_next_edge(n, 0, self);
        if (st != PT_OK) {
            pt_node_release(n);
            return st;
        }
    }
    const uint64_t saved = pt_below_autograd_begin();
    pt_status st = pt_dispatch_redispatch(op, key, keyset, stack);
    pt_below_autograd_end(saved);
    if (st == PT_OK && n) {
        pt_tensor *r = stack->items[base].t;
        if (pt_ag_differentiable(r) && r != self) st = pt_set_history(r, n, 0);
    }
    pt_node_release(n);
    return st;
}

/* The operators that read or keep the bits themselves (PyTorch's fallthrough list for the
 * math-bit keys, over pytensor's operators). Views need no entry: the fallback passes on every
 * operator whose result aliases an argument. */
static const char *const handled[] = {
    "aten::copy_",       "aten::clone",    "aten::_to_copy",  "aten::resolve_conj",
    "aten::resolve_neg", "aten::_conj",    "aten::_neg_view", "aten::resize_",
};

/* The matrix products read A's conjugate bit as BLIS's conj flag (Note [conjugate operands] in
 * csrc/kernels/linalg_run.c): fallthroughs at the Conjugate key only. */
static const char *const products[] = {
    "aten::mm",       "aten::mm.out",     "aten::bmm",          "aten::bmm.out",
    "aten::addmm",    "aten::addmm.out",  "aten::addmm_",       "aten::baddbmm",
    "aten::baddbmm.out", "aten::baddbmm_", "aten::addmv",       "aten::addmv.out",
    "aten::addmv_",   "aten::mv",         "aten::mv.out",       "aten::dot",
    "aten::dot.out",  "aten::vdot",       "aten::vdot.out",     "aten::matmul",
    "aten::matmul.out",
};

enum {
    NHANDLED = sizeof handled / sizeof handled[0],
    NPRODUCTS = sizeof products / sizeof products[0]
};
static pt_registration *registrations[4 + 2 * NHANDLED + NPRODUCTS];

pt_status pt_dispatch_mathbits_register(void)
{
    char debug[128];
    snprintf(debug, sizeof debug, "math-bit fallback, registered at %s:%d",
             pt_source_relative(__FILE__), __LINE__);
    PT_TRY(pt_dispatch_builtin_fallback(PT_KEY_CONJUGATE, mathbits_fallback,
                                (void *)(intptr_t)PT_MATH_BIT_CONJ, debug, &registrations[0]));
    PT_TRY(pt_dispatch_builtin_fallback(PT_KEY_NEGATIVE, mathbits_fallback,
                                (void *)(intptr_t)PT_MATH_BIT_NEG, debug, &registrations[1]));
    PT_TRY(pt_dispatch_builtin_impl("aten::_conj", PT_KEY_AUTOGRAD, flip_autograd,
                                    (void *)&conj_vt, debug, &registrations[2 + 2 * NHANDLED]));
    PT_TRY(pt_dispatch_builtin_impl("aten::_neg_view", PT_KEY_AUTOGRAD, flip_autograd,
                                    (void *)&neg_view_vt, debug,
                                    &registrations[3 + 2 * NHANDLED]));
    for (int32_t i = 0; i < NHANDLED; i++) {
        PT_TRY(pt_dispatch_builtin_impl(handled[i], PT_KEY_CONJUGATE, NULL, NULL, debug,
                                        &registrations[2 + 2 * i]));
        PT_TRY(pt_dispatch_builtin_impl(handled[i], PT_KEY_NEGATIVE, NULL, NULL, debug,
                                        &registrations[3 + 2 * i]));
    }
    for (int32_t i = 0; i < NPRODUCTS; i++)
        PT_TRY(pt_dispatch_builtin_impl(products[i], PT_KEY_CONJUGATE, NULL, NULL, debug,
                                        &registrations[4 + 2 * NHANDLED + i]));
    return PT_OK;
}
