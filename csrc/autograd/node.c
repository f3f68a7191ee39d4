/* node.c - graph nodes: their allocation, edges, input metadata and release (without recursion:
 * long chains free in a loop), the node that stands for a missing formula, the fallback at the
 * autograd keys for operators without a formula, and the nodes of custom Functions. Tensor
 * metadata, saved variables and AccumulateGrad are variable.c's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "dispatch.h"
#include "pt_ops.h"

/* ---------------------------------------------------------------- nodes */
static _Atomic uint64_t next_seq;

uint64_t pt_autograd_next_seq(void)
{
    return atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed);
}

pt_status pt_node_new(size_t size, const pt_node_vtable *vt, int32_t n_next, int32_t n_inputs,
                      pt_node **out)
{
    pt_node *n = calloc(1, size);
    pt_edge *edges = n_next > 0 ? calloc((size_t)n_next, sizeof *edges) : NULL;
    pt_input_meta *meta = n_inputs > 0 ? calloc((size_t)n_inputs, sizeof *meta) : NULL;
    if (!n || (n_next > 0 && !edges) || (n_inputs > 0 && !meta)) {
        free(n);
        free(edges);
        free(meta);
        return PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory for a %s node", vt->name);
    }
    atomic_init(&n->refcount, 1);
    n->vt = vt;
    n->name = vt->name;
    n->seq = pt_autograd_next_seq();
    n->n_next = n_next;
    n->next = edges;
    n->n_inputs = n_inputs;
    n->input_meta = meta;
    for (int32_t i = 0; i < n_inputs; i++) meta[i].ndim = -1; /* not an output (yet) */
    pt_anomaly_record(n);
    *out = n;
    return PT_OK;
}

void pt_node_retain(pt_node *n)
{
    if (n) atomic_fetch_add_explicit(&n->refcount, 1, memory_order_relaxed);
}

/* Node destruction can recurse through long chains (each node drops its next edges); a
 * thread-local worklist turns the recursion into a loop so that a graph of 10^6 nodes does not
 * overflow the C stack. */
static _Thread_local pt_node *dying_head;
static _Thread_local bool dying_active;

static void node_destroy(pt_node *n)
{
    if (n->vt->destroy) n->vt->destroy(n);
    for (int32_t i = 0; i < n->n_inputs; i++)
        if (n->input_meta[i].sizes && n->input_meta[i].sizes != n->input_meta[i].inline_sizes)
            free(n->input_meta[i].sizes);
    free(n->input_meta);
    pt_hook_list_free(n->pre_hooks);
    pt_hook_list_free(n->node_pre_hooks);
    pt_hook_list_free(n->node_post_hooks);
    if (n->retains) {
        for (int32_t i = 0; i < n->n_inputs; i++) pt_autograd_meta_release(n->retains[i]);
        free(n->retains);
    }
    free(n->anomaly_trace);
    free(n->owned_name);
    /* The edges go last, onto the worklist. */
    for (int32_t i = 0; i < n->n_next; i++) {
        pt_node *m = n->next[i].node;
        if (m && pt_refcount_drop(&m->refcount)) {
            /* linked through seq, which a dying node no longer needs */
            m->seq = (uint64_t)(uintptr_t)dying_head;
            dying_head = m;
        }
    }
    free(n->next);
    free(n);
}

void pt_node_release(pt_node *n)
{
    if (!n || !pt_refcount_drop(&n->refcount)) return;
    if (dying_active) {
        n->seq = (uint64_t)(uintptr_t)dying_head;
        dying_head = n;
        return;
    }
    dying_active = true;
    node_destroy(n);
    while (dying_head) {
        pt_node *m = dying_head;
        dying_head = (pt_node *)(uintptr_t)m->seq;
        node_destroy(m);
    }
    dying_active = false;
}

pt_status pt_node_set_next_edge(pt_node *n, int32_t i, const pt_tensor *t)
{
    if (!pt_requires_grad(t)) return PT_OK;
    pt_edge e;
    PT_TRY(pt_gradient_edge(t, &e));
    pt_node_release(n->next[i].node);
    n->next[i] = e;
    return PT_OK;
}

pt_status pt_node_set_input_meta(pt_node *n, int32_t i, const pt_tensor *t)
{
    pt_input_meta *m = &n->input_meta[i];
    if (m->sizes && m->sizes != m->inline_sizes) free(m->sizes);
    m->sizes = NULL;
    if (t->ndim <= PT_INLINE_DIMS) {
        m->sizes = m->inline_sizes;
    } else {
        m->sizes = malloc(sizeof(int64_t) * (size_t)t->ndim);
        if (!m->sizes) return PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory");
    }
    if (t->ndim > 0) memcpy(m->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    m->ndim = t->ndim;
    m->dtype = t->dtype;
    m->device = t->device;
    return PT_OK;
}

const char *pt_node_name(const pt_node *n) { return n->name; }
uint64_t pt_node_sequence_nr(const pt_node *n) { return n->seq; }
int32_t pt_node_num_next(const pt_node *n) { return n->n_next; }
int32_t pt_node_num_inputs(const pt_node *n) { return n->n_inputs; }
const char *pt_node_anomaly_trace(const pt_node *n) { return n->anomaly_trace; }

pt_status pt_node_next(const pt_node *n, int32_t i, pt_node **node, int32_t *input_nr)
{
    if (i < 0 || i >= n->n_next)
        return PT_ERROR(PT_ERR_INDEX, "next_functions: index %d out of range for %d edges",
                        (int)i, (int)n->n_next);
    *node = n->next[i].node;
    pt_node_retain(*node);
    *input_nr = n->next[i].input_nr;
    return PT_OK;
}

pt_status pt_node_saved(pt_node *n, const char *name, pt_ivalue *out)
{
    memset(out, 0, sizeof *out);
    int32_t found = 0;
    if (n->vt->saved) PT_TRY(n->vt->saved(n, name, out, &found));
    if (!found)
        return PT_ERROR(PT_ERR_VALUE, "'%s' object has no attribute '_saved_%s'", n->name, name);
    return PT_OK;
}

/* ---------------------------------------------------------------- not implemented */
typedef struct {
    pt_node base;
} not_implemented_node;

static pt_status not_implemented_apply(pt_node *self, pt_tensor *const *grads, pt_tensor **outs)
{
    PT_UNUSED(grads);
    PT_UNUSED(outs);
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "the derivative for '%s' is not implemented.",
                    self->owned_name ? self->owned_name : "?");
}

static const pt_node_vtable not_implemented_vt = {"NotImplemented", not_implemented_apply, NULL,
                                                  NULL, NULL};

static pt_status not_implemented_new(const char *opname, int32_t n_next, int32_t n_inputs,
                                     pt_node **out)
{
    PT_TRY(pt_node_new(sizeof(not_implemented_node), &not_implemented_vt, n_next, n_inputs, out));
    (*out)->owned_name = strdup(opname);
    if (!(*out)->owned_name) {
        pt_node_release(*out);
        return PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory");
    }
    return PT_OK;
}

pt_status pt_not_implemented_node(const char *opname, int32_t n, const pt_tensor *const *inputs,
                                  int32_t n_outputs, pt_node **out)
{
    PT_TRY(not_implemented_new(opname, n, n_outputs, out));
    for (int32_t i = 0; i < n; i++) {
        pt_status st = pt_node_set_next_edge(*out, i, inputs[i]);
        if (st != PT_OK) {
            pt_node_release(*out);
            *out = NULL;
            return st;
        }
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- the fallback */
bool pt_autograd_differentiable_dtype(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return info && (info->kind & (PT_KIND_FLOAT | PT_KIND_COMPLEX));
}

static int32_t count_tensors(const pt_ivalue *v)
{
    if (v->tag == PT_IV_TENSOR) return v->t ? 1 : 0;
    if (v->tag == PT_IV_TENSOR_LIST || v->tag == PT_IV_OPT_TENSOR_LIST) return (int32_t)v->len;
    return 0;
}

/* Gives the results on the stack from `base` on (tensors and the tensors of lists, in order)
 * a NotImplemented node with edges to the n inputs. A result that is the tensor the call wrote
 * in place rebases its history (a view's base gets a CopySlices node: Note [view tracking]). */
static pt_status attach_not_implemented(const char *opname, pt_tensor *const *ins, int32_t n,
                                        const pt_tensor *written, pt_stack *stack, int32_t base)
{
    int32_t n_outputs = 0;
    for (int32_t i = base; i < stack->size; i++) n_outputs += count_tensors(&stack->items[i]);
    pt_node *node;
    PT_TRY(not_implemented_new(opname, n, n_outputs, &node));
    pt_status st = PT_OK;
    for (int32_t k = 0; st == PT_OK && k < n; k++)
        if (ins[k]) st = pt_node_set_next_edge(node, k, ins[k]);
    for (int32_t i = base, r = 0; st == PT_OK && i < stack->size; i++) {
        pt_ivalue *v = &stack->items[i];
        if (v->tag == PT_IV_TENSOR) {
            if (v->t && pt_autograd_differentiable_dtype(v->t->dtype))
                st = v->t == written && n_outputs == 1 ? pt_rebase_history(v->t, node)
                                                       : pt_set_history(v->t, node, r);
            r += v->t ? 1 : 0;
        } else if (v->tag == PT_IV_TENSOR_LIST || v->tag == PT_IV_OPT_TENSOR_LIST) {
            for (int64_t j = 0; st == PT_OK && v->tensors && j < v->len; j++, r++)
                if (v->tensors[j] && pt_autograd_differentiable_dtype(v->tensors[j]->dtype))
                    st = pt_set_history(v->tensors[j], node, r);
        }
    }
    pt_node_release(node);
    return st;
}

/* Operators without a formula: a call whose inputs require grad runs below autograd and its
 * floating-point outputs get a node that raises "the derivative for 'op' is not implemented"
 * when backward reaches it (PyTorch's autogradNotImplementedFallback). */
static pt_status autograd_fallback(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                   void *ctx)
{
    PT_UNUSED(key);
    PT_UNUSED(keyset);
    PT_UNUSED(ctx);
    const pt_arg_plan *plan = atomic_load_explicit(&op->plan, memory_order_acquire);
    const int32_t nargs = plan ? plan->nargs : 0;
    const int32_t base = stack->size - nargs;
    bool any = false;
    int32_t n_edges = 0;
    const pt_tensor *written = NULL; /* borrowed: kept by ins */
    if (plan && !plan->vararg && pt_grad_mode_enabled()) {
        for (int32_t i = 0; i < nargs; i++) {
            const pt_ivalue *v = &stack->items[base + i];
            n_edges += count_tensors(v);
            if (v->tag == PT_IV_TENSOR) any |= pt_requires_grad(v->t);
            else if (v->tag == PT_IV_TENSOR_LIST || v->tag == PT_IV_OPT_TENSOR_LIST)
                for (int64_t j = 0; v->tensors && j < v->len; j++)
                    any |= pt_requires_grad(v->tensors[j]);
        }
        if (any)
            for (int32_t i = 0; i < nargs && i < 64; i++) {
                if (!(plan->written & ((uint64_t)1 << i))) continue;
                pt_schema_arg_info info;
                PT_TRY(pt_schema_argument(plan->schema, i, &info));
                if (info.kwarg_only) {
                    const char *name = strstr(op->name, "::");
                    name = name ? name + 2 : op->name;
                    return PT_ERROR(PT_ERR_RUNTIME,
                                    "%.*s(): functions with out=... arguments don't support "
                                    "automatic differentiation, but one of the arguments "
                                    "requires grad.",
                                    (int)(op->name + op->base_len - name), name);
                }
                const pt_ivalue *v = &stack->items[base + i];
                if (v->tag == PT_IV_TENSOR && v->t) {
                    PT_TRY(pt_check_inplace(v->t, op->name));
                    if (!written) written = v->t;
                }
            }
    }
    /* The node is made after the call: a Tensor[] result gives one node output per tensor,
     * and its length is known only then. The inputs are kept until their edges are set. */
    pt_tensor **ins = NULL;
    if (any) {
        ins = calloc((size_t)(n_edges > 0 ? n_edges : 1), sizeof *ins);
        if (!ins) return PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory");
        int32_t e = 0;
        for (int32_t i = 0; i < nargs; i++) {
            const pt_ivalue *v = &stack->items[base + i];
            if (v->tag == PT_IV_TENSOR && v->t) ins[e++] = v->t;
            else if (v->tag == PT_IV_TENSOR_LIST || v->tag == PT_IV_OPT_TENSOR_LIST)
                for (int64_t j = 0; v->tensors && j < v->len; j++) ins[e++] = v->tensors[j];
        }
        n_edges = e;
        for (int32_t k = 0; k < n_edges; k++)
            if (ins[k]) pt_tensor_retain(ins[k]);
    }
    uint64_t saved = pt_below_autograd_begin();
    pt_status st = pt_dispatch_call(op, stack);
    pt_below_autograd_end(saved);
    if (st == PT_OK && ins)
        st = attach_not_implemented(op->name, ins, n_edges, written, stack, base);
    for (int32_t k = 0; ins && k < n_edges; k++) pt_tensor_release(ins[k]);
    free(ins);
    return st;
}

static pt_registration *fallback_handles[3];

pt_status pt_autograd_fallback_init(void)
{
    static const int32_t keys[3] = {PT_KEY_AUTOGRAD_CPU, PT_KEY_AUTOGRAD_CUDA,
                                    PT_KEY_AUTOGRAD_META};
    for (int i = 0; i < 3; i++)
        if (!fallback_handles[i])
            PT_TRY(pt_dispatch_fallback(keys[i], autograd_fallback, NULL,
                                        "autograd fallback: the derivative is not implemented "
                                        "(csrc/autograd/variable.c)",
                                        &fallback_handles[i]));
    return PT_OK;
}

pt_status pt_autograd_init(int64_t *count, const char **detail)
{
    *detail = "formulas from csrc/ops/derivatives.yaml, and the fallback for operators without";
    PT_TRY(pt_autograd_fallback_init());
    *count = pt_autograd_formula_count();
    return PT_OK;
}

/* ---------------------------------------------------------------- custom Functions */
typedef struct {
    pt_node base;
    pt_custom_apply_fn fn;
    void *ctx;
    pt_ctx_release_fn release;
    pt_ctx_release_fn release_saved; /* frees what the Function saved, given ctx */
} custom_node;

static pt_status custom_apply(pt_node *self, pt_tensor *const *grads, pt_tensor **outs)
{
    custom_node *n = (custom_node *)self;
    if (self->released)
        return PT_ERROR(PT_ERR_RUNTIME, "%s", pt_backward_twice_message);
    return n->fn(n->ctx, self->n_inputs, grads, self->n_next, outs);
}

/* The tensors a Function saved live in its Python ctx: a backward without retain_graph has the
 * ctx free them (and their packed values, Note [saved tensor hooks]); the engine's `released`
 * flag ends the right to run again. */
static void custom_release_saved(pt_node *self)
{
    custom_node *n = (custom_node *)self;
    if (n->release_saved && n->ctx && !self->released) n->release_saved(n->ctx);
}

static void custom_destroy(pt_node *self)
{
    custom_node *n = (custom_node *)self;
    if (n->release && n->ctx) n->release(n->ctx);
}

static const pt_node_vtable custom_vt = {"CustomFunction", custom_apply, custom_release_saved,
                                         custom_destroy, NULL};

pt_status pt_autograd_custom_node_on_release(pt_node *n, pt_ctx_release_fn release_saved)
{
    if (!n || n->vt != &custom_vt)
        return PT_ERROR(PT_ERR_VALUE, "custom node: not the node of a custom Function");
    ((custom_node *)n)->release_saved = release_saved;
    return PT_OK;
}

pt_status pt_autograd_custom_node(const char *name, pt_custom_apply_fn apply, void *ctx,
                                  pt_ctx_release_fn release, int32_t n_inputs,
                                  pt_tensor *const *inputs, int32_t n_outputs, pt_node **out)
{
    *out = NULL;
    if (!apply || n_inputs < 0 || n_outputs < 0)
        return PT_ERROR(PT_ERR_VALUE, "custom node: apply and counts are required");
    pt_node *n;
    PT_TRY(pt_node_new(sizeof(custom_node), &custom_vt, n_inputs, n_outputs, &n));
    custom_node *c = (custom_node *)n;
    c->fn = apply;
    c->ctx = ctx;
    c->release = release;
    n->needs_all_grads = true;
    if (name) {
        n->owned_name = strdup(name);
        if (n->owned_name) n->name = n->owned_name;
    }
    for (int32_t i = 0; i < n_inputs; i++) {
        pt_status st = inputs && inputs[i] ? pt_node_set_next_edge(n, i, inputs[i]) : PT_OK;
        if (st != PT_OK) {
            pt_node_release(n);
            return st;
        }
    }
    *out = n;
    return PT_OK;
}

pt_status pt_autograd_custom_node_materialize(pt_node *n, int32_t materialize)
{
    if (!n || n->vt != &custom_vt)
        return PT_ERROR(PT_ERR_VALUE, "custom node: not a custom Function's node");
    n->needs_all_grads = materialize != 0;
    return PT_OK;
}
