/* variable.c - the autograd side of a tensor: metadata, version counters, hooks (of tensors, of
 * nodes, after accumulation), grad and inference mode, AccumulateGrad, and the ABI's autograd
 * accessors. Saved variables and saved-tensor hooks are saved.c's. Nodes, the fallback for
 * operators without a formula and custom Function nodes are node.c's; views written in place
 * (CopySlices, regenerated view histories) views.c's. The engine is engine.c;
 * the formulas' helpers functions*.c; the node types and kernels of the formulas are generated
 * (tools/gen_autograd.py and its gen_autograd_*.py stages).
 *
 * Note [weak accumulator]
 * A leaf that requires grad reaches its AccumulateGrad node through a weak pointer: the node
 * holds the leaf (strongly), the leaf's metadata points at the node without a reference, as in
 * PyTorch. The pointer is read and cleared under `acc_lock`; a node whose count already reached
 * 0 is being destroyed and is not revived (a new one is made).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "dispatch.h"
#include "pt_ops.h"

static pthread_mutex_t acc_lock = PTHREAD_MUTEX_INITIALIZER;
const pt_scalar pt_scalar_one = {PT_SCALAR_INT, 1, 0.0, 0.0};

/* ---------------------------------------------------------------- version counters */
pt_version *pt_version_of(pt_tensor *t)
{
    pt_version *v = atomic_load_explicit(&t->version, memory_order_acquire);
    if (v) return v;
    pt_version *fresh = malloc(sizeof *fresh);
    if (!fresh) {
        PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory for a version counter");
        return NULL;
    }
    atomic_init(&fresh->refcount, 1);
    atomic_init(&fresh->value, 0);
    pt_version *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&t->version, &expected, fresh,
                                                memory_order_acq_rel, memory_order_acquire))
        return fresh;
    free(fresh); /* another thread made it first */
    return expected;
}

void pt_version_release(pt_version *v)
{
    if (v && pt_refcount_drop(&v->refcount)) free(v);
}

pt_status pt_version_bump(pt_tensor *t)
{
    /* Note [inference mode]: inference tensors have no counter to bump */
    if (t->is_inference) {
        if (pt_inference_mode_on) return PT_OK;
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Inplace update to inference tensor outside InferenceMode is not allowed."
                        "You can make a clone to get a normal tensor before doing inplace update."
                        "See https://github.com/pytorch/rfcs/pull/17 for more details.");
    }
    pt_version *v = pt_version_of(t);
    if (!v) return PT_ERR_MEMORY;
    atomic_fetch_add_explicit(&v->value, 1, memory_order_relaxed);
    return PT_OK;
}

pt_status pt_version_bump_tensor(pt_tensor *t) { return pt_version_bump(t); }

pt_status pt_version_share(const pt_tensor *src, pt_tensor *dst)
{
    /* views and detach()es of inference tensors are inference tensors, of others not, whatever
       the mode they are made in (Note [inference mode]) */
    dst->is_inference = src->is_inference;
    if (src->is_inference) return PT_OK;
    pt_version *v = pt_version_of((pt_tensor *)src);
    if (!v) return PT_ERR_MEMORY;
    atomic_fetch_add_explicit(&v->refcount, 1, memory_order_relaxed);
    pt_version *old = atomic_exchange_explicit(&dst->version, v, memory_order_acq_rel);
    pt_version_release(old);
    return PT_OK;
}

/* ---------------------------------------------------------------- hooks */
void pt_hook_release(pt_hook *h)
{
    if (!h || !pt_refcount_drop(&h->refcount)) return;
    if (h->release && h->ctx) h->release(h->ctx);
    free(h);
}

void pt_hook_remove(pt_hook *h)
{
    if (!h) return;
    pthread_mutex_lock(&acc_lock);
    h->fn = NULL;
    h->node_fn = NULL;
    pthread_mutex_unlock(&acc_lock);
}

void pt_hook_list_free(struct pt_hook *h)
{
    while (h) {
        struct pt_hook *next = h->next;
        pt_hook_release(h);
        h = next;
    }
}

static pt_hook *hook_new(pt_grad_hook_fn fn, void *ctx, pt_ctx_release_fn release, int32_t index)
{
    pt_hook *h = calloc(1, sizeof *h);
    if (!h) {
        PT_ERROR(PT_ERR_MEMORY, "register_hook: out of memory");
        return NULL;
    }
    atomic_init(&h->refcount, 1);
    h->fn = fn;
    h->ctx = ctx;
    h->release = release;
    h->index = index;
    return h;
}

static void hook_append(struct pt_hook **list, pt_hook *h)
{
    while (*list) list = &(*list)->next;
    *list = h;
}

/* ---------------------------------------------------------------- grad mode */
static _Thread_local bool grad_disabled;
_Thread_local bool pt_inference_mode_on;
static _Atomic int anomaly_mode;      /* bit 0: enabled, bit 1: check nan */
static pt_anomaly_trace_fn anomaly_tracer;

bool pt_grad_mode_enabled(void) { return !grad_disabled; }

int32_t pt_autograd_is_grad_enabled(void) { return !grad_disabled; }

void pt_autograd_set_grad_enabled(int32_t enabled)
{
    grad_disabled = !enabled;
    uint64_t excluded = pt_dispatch_tls_excluded();
    excluded = enabled ? excluded & ~PT_AUTOGRAD_KEYS : excluded | PT_AUTOGRAD_KEYS;
    pt_dispatch_tls_set(pt_dispatch_tls_included(), excluded);
}

bool pt_grad_mode_swap(bool enabled)
{
    const bool was = !grad_disabled;
    grad_disabled = !enabled;
    return was;
}

int32_t pt_autograd_is_inference_mode_enabled(void) { return pt_inference_mode_on; }

/* c10's InferenceMode guard: inference mode on means grad mode off and the autograd keys
 * excluded; off means grad mode on. */
void pt_autograd_set_inference_mode(int32_t enabled)
{
    pt_inference_mode_on = enabled != 0;
    pt_autograd_set_grad_enabled(!enabled);
}

int32_t pt_tensor_is_inference(const pt_tensor *t) { return t->is_inference; }

uint64_t pt_below_autograd_begin(void)
{
    uint64_t saved = pt_dispatch_tls_excluded();
    pt_dispatch_tls_set(pt_dispatch_tls_included(), saved | PT_AUTOGRAD_KEYS);
    return saved;
}

void pt_below_autograd_end(uint64_t saved)
{
    pt_dispatch_tls_set(pt_dispatch_tls_included(), saved);
}

bool pt_anomaly_enabled(void) { return atomic_load_explicit(&anomaly_mode, memory_order_relaxed) & 1; }
bool pt_anomaly_check_nan(void)
{
    return (atomic_load_explicit(&anomaly_mode, memory_order_relaxed) & 3) == 3;
}
int32_t pt_autograd_is_anomaly_enabled(void) { return pt_anomaly_enabled(); }
int32_t pt_autograd_is_anomaly_check_nan_enabled(void) { return pt_anomaly_check_nan(); }
void pt_autograd_set_anomaly_enabled(int32_t enabled, int32_t check_nan)
{
    atomic_store(&anomaly_mode, (enabled ? 1 : 0) | (check_nan ? 2 : 0));
}
void pt_autograd_set_anomaly_tracer(pt_anomaly_trace_fn fn) { anomaly_tracer = fn; }

void pt_anomaly_record(pt_node *n)
{
    if (!pt_anomaly_enabled() || !anomaly_tracer || n->anomaly_trace) return;
    enum { TRACE_CHARS = 8192 };
    char *buf = calloc(1, TRACE_CHARS);
    if (!buf) return;
    anomaly_tracer(buf, TRACE_CHARS);
    buf[TRACE_CHARS - 1] = 0;
    n->anomaly_trace = buf;
}

/* ---------------------------------------------------------------- per-tensor metadata */
pt_autograd_meta *pt_autograd_meta_of(pt_tensor *t)
{
    if (t->autograd) return t->autograd;
    pt_autograd_meta *m = calloc(1, sizeof *m);
    if (!m) {
        PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory for tensor metadata");
        return NULL;
    }
    atomic_init(&m->refcount, 1);
    m->alive = true;
    t->autograd = m;
    return m;
}

void pt_autograd_meta_release(pt_autograd_meta *m)
{
    if (!m || !pt_refcount_drop(&m->refcount)) return;
    pt_tensor_release(m->grad);
    pt_node_release(m->grad_fn);
    pt_node_release(m->held_accumulator);
    pt_hook_list_free(m->hooks);
    pt_hook_list_free(m->post_acc_hooks);
    free(m);
}

void pt_autograd_tensor_free(pt_tensor *t)
{
    pt_autograd_meta *m = t->autograd;
    if (m) {
        t->autograd = NULL;
        pthread_mutex_lock(&acc_lock);
        m->alive = false;
        pthread_mutex_unlock(&acc_lock);
        /* The grad and grad_fn go with the tensor even if a retain_grad hook keeps the record. */
        pt_tensor *g = m->grad;
        pt_node *fn = m->grad_fn;
        struct pt_hook *hooks = m->hooks, *post = m->post_acc_hooks;
        pt_node *held = m->held_accumulator;
        m->grad = NULL;
        m->grad_fn = NULL;
        m->hooks = NULL;
        m->post_acc_hooks = NULL;
        m->held_accumulator = NULL;
        pt_autograd_meta_release(m);
        pt_tensor_release(g);
        pt_node_release(fn);
        pt_node_release(held);
        pt_hook_list_free(hooks);
        pt_hook_list_free(post);
    }
    pt_version_release(atomic_exchange_explicit(&t->version, NULL, memory_order_acq_rel));
}

/* ---------------------------------------------------------------- AccumulateGrad */
static const pt_node_vtable accumulate_vt;
typedef struct {
    pt_node base;
    pt_tensor *variable; /* the leaf, strong */
} accumulate_node;

/* Note [gradient layout contract]
 * As torch's AccumulateGrad: a leaf's first .grad has the leaf's strides when the leaf is dense
 * and non-overlapping (a channels_last parameter gets a channels_last gradient; dims of size 1
 * may differ), else row-major strides. An incoming gradient already laid out so, owned by nobody
 * else, becomes .grad itself; any other is copied into that layout. */
static bool obeys_layout_contract(const pt_tensor *g, const pt_tensor *leaf)
{
    if (!pt_strides_non_overlapping_and_dense(leaf->ndim, leaf->sizes, leaf->strides))
        return pt_tensor_is_contiguous(g, PT_MEMORY_FORMAT_CONTIGUOUS);
    for (int32_t d = 0; d < g->ndim; d++)
        if (g->sizes[d] != 1 ? g->strides[d] != leaf->strides[d] : g->strides[d] == 0)
            return false;
    return true;
}

static bool stealable(const pt_tensor *g, const pt_tensor *leaf)
{
    return pt_tensor_refcount(g) == 1 && pt_storage_refcount(g->storage) == 1 && g->offset == 0 &&
           !g->autograd && g->ndim == leaf->ndim && obeys_layout_contract(g, leaf);
}

/* A copy of g in the layout of Note [gradient layout contract]. */
static pt_tensor *clone_obeying_contract(const pt_tensor *g, const pt_tensor *leaf)
{
    if (g->ndim != leaf->ndim ||
        !pt_strides_non_overlapping_and_dense(leaf->ndim, leaf->sizes, leaf->strides))
        return pt_call_clone(g, PT_MEMORY_FORMAT_CONTIGUOUS);
    pt_tensor *c = NULL;
    if (pt_tensor_empty_strided(leaf->ndim, leaf->sizes, leaf->strides, g->dtype, g->device,
                                &c) != PT_OK)
        return NULL;
    if (pt_tensor_copy_(c, g) != PT_OK) {
        pt_tensor_release(c);
        return NULL;
    }
    return c;
}

/* Runs the hooks of `list` watching `index` on *grad, replacing it by what they return. */
static pt_status run_hooks(struct pt_hook *list, int32_t index, pt_tensor **grad)
{
    for (struct pt_hook *h = list; h; h = h->next) {
        pthread_mutex_lock(&acc_lock);
        pt_grad_hook_fn fn = h->fn;
        pthread_mutex_unlock(&acc_lock);
        if (!fn || h->index != index || !*grad) continue;
        pt_tensor *r = NULL;
        PT_TRY(fn(h->ctx, *grad, &r));
        if (r) {
            pt_tensor_release(*grad);
            *grad = r;
        }
    }
    return PT_OK;
}

static pt_status accumulate_apply(pt_node *self, pt_tensor *const *grads, pt_tensor **outs)
{
    PT_UNUSED(outs);
    accumulate_node *n = (accumulate_node *)self;
    pt_tensor *leaf = n->variable;
    pt_autograd_meta *m = leaf->autograd;
    if (!grads[0] || !m) return PT_OK;
    pt_tensor *g = grads[0];
    pt_tensor_retain(g);
    pt_status st = PT_OK;
    const bool grad_mode = pt_grad_mode_enabled();
    pthread_mutex_lock(&acc_lock);
    pt_tensor *old = m->grad;
    if (!old) {
        if (grad_mode) {
            m->grad = g; /* create_graph: the gradient keeps its history */
            g = NULL;
        } else if (stealable(g, leaf)) {
            m->grad = g;
            g = NULL;
        } else {
            uint64_t saved = pt_below_autograd_begin();
            pt_tensor *c = clone_obeying_contract(g, leaf);
            pt_below_autograd_end(saved);
            if (!c) st = PT_ERR_RUNTIME;
            m->grad = c;
        }
    } else if (!grad_mode) {
        uint64_t saved = pt_below_autograd_begin();
        pt_tensor *r = pt_call_add__Tensor(old, g, &pt_scalar_one);
        pt_below_autograd_end(saved);
        if (!r) st = PT_ERR_RUNTIME;
        pt_tensor_release(r);
    } else {
        pt_tensor *r = pt_call_add_Tensor(old, g, &pt_scalar_one);
        if (!r) {
            st = PT_ERR_RUNTIME;
        } else {
            m->grad = r;
            pt_tensor_release(old);
        }
    }
    pthread_mutex_unlock(&acc_lock);
    pt_tensor_release(g);
    /* register_post_accumulate_grad_hook: each sees the leaf with its new .grad */
    for (struct pt_hook *h = m->post_acc_hooks; st == PT_OK && h; h = h->next) {
        pthread_mutex_lock(&acc_lock);
        pt_grad_hook_fn fn = h->fn;
        pthread_mutex_unlock(&acc_lock);
        pt_tensor *r = NULL;
        if (fn) st = fn(h->ctx, leaf, &r);
        pt_tensor_release(r);
    }
    return st;
}

pt_status pt_accumulate_leaf_hooks(pt_node *n, pt_tensor **grad)
{
    if (n->vt != &accumulate_vt || !*grad) return PT_OK;
    pt_autograd_meta *m = ((accumulate_node *)n)->variable->autograd;
    return m ? run_hooks(m->hooks, 0, grad) : PT_OK;
}

static void accumulate_destroy(pt_node *self)
{
    accumulate_node *n = (accumulate_node *)self;
    pthread_mutex_lock(&acc_lock);
    if (n->variable->autograd && n->variable->autograd->grad_accumulator == self)
        n->variable->autograd->grad_accumulator = NULL;
    pthread_mutex_unlock(&acc_lock);
    pt_tensor_release(n->variable);
}

static pt_status accumulate_saved(pt_node *self, const char *name, pt_ivalue *out, int32_t *found)
{
    accumulate_node *n = (accumulate_node *)self;
    if (strcmp(name, "variable") != 0) return PT_OK;
    *found = 1;
    out->tag = PT_IV_TENSOR;
    out->t = n->variable;
    pt_tensor_retain(n->variable);
    return PT_OK;
}

/* torch prints the C++ class of this node, namespace included. */
static const pt_node_vtable accumulate_vt = {"torch::autograd::AccumulateGrad", accumulate_apply,
                                             NULL, accumulate_destroy, accumulate_saved};

static bool try_retain_node(pt_node *n)
{
    int64_t c = atomic_load_explicit(&n->refcount, memory_order_relaxed);
    while (c > 0)
        if (atomic_compare_exchange_weak_explicit(&n->refcount, &c, c + 1, memory_order_acq_rel,
                                                  memory_order_relaxed))
            return true;
    return false;
}

static pt_status grad_accumulator(const pt_tensor *leaf, pt_node **out)
{
    pt_autograd_meta *m = leaf->autograd;
    pthread_mutex_lock(&acc_lock);
    pt_node *n = m->grad_accumulator;
    if (n && try_retain_node(n)) {
        pthread_mutex_unlock(&acc_lock);
        *out = n;
        return PT_OK;
    }
    pthread_mutex_unlock(&acc_lock);
    pt_node *fresh = NULL;
    PT_TRY(pt_node_new(sizeof(accumulate_node), &accumulate_vt, 0, 1, &fresh));
    fresh->seq = UINT64_MAX; /* accumulation runs as soon as its gradient is complete */
    pt_status st = pt_node_set_input_meta(fresh, 0, leaf);
    if (st != PT_OK) {
        pt_node_release(fresh);
        return st;
    }
    ((accumulate_node *)fresh)->variable = (pt_tensor *)leaf;
    pt_tensor_retain((pt_tensor *)leaf);
    pthread_mutex_lock(&acc_lock);
    n = m->grad_accumulator;
    if (n && try_retain_node(n)) {
        pthread_mutex_unlock(&acc_lock);
        pt_node_release(fresh); /* another thread made one first */
        *out = n;
        return PT_OK;
    }
    m->grad_accumulator = fresh;
    pthread_mutex_unlock(&acc_lock);
    *out = fresh;
    return PT_OK;
}

pt_status pt_gradient_edge(const pt_tensor *t, pt_edge *out)
{
    out->node = NULL;
    out->input_nr = 0;
    if (!t) return PT_OK;
    /* a view read after an in-place write into it, its base or a sibling: Note [view tracking] */
    if (t->view_base) PT_TRY(pt_view_refresh((pt_tensor *)t));
    if (!t->autograd) return PT_OK;
    pt_autograd_meta *m = t->autograd;
    if (m->grad_fn) {
        out->node = m->grad_fn;
        pt_node_retain(m->grad_fn);
        out->input_nr = m->output_nr;
        return PT_OK;
    }
    if (!m->requires_grad) return PT_OK;
    return grad_accumulator(t, &out->node);
}

pt_status pt_set_history(pt_tensor *t, pt_node *node, int32_t output_nr)
{
    if (output_nr < 0 || output_nr >= node->n_inputs)
        return PT_ERROR(PT_ERR_RUNTIME, "set_history: output %d of a node with %d outputs",
                        (int)output_nr, (int)node->n_inputs);
    pt_autograd_meta *m = pt_autograd_meta_of(t);
    if (!m) return PT_ERR_MEMORY;
    PT_TRY(pt_node_set_input_meta(node, output_nr, t));
    pt_node_retain(node);
    pt_node *old = m->grad_fn;
    m->grad_fn = node;
    m->output_nr = output_nr;
    m->requires_grad = false; /* a non-leaf requires grad through its grad_fn */
    m->view_tracked = t->view_base != NULL;
    m->view_version = pt_version_value(t);
    /* a view among several outputs of one node (split, unbind, chunk) may not be written in
       place: rebasing it would drop its siblings' gradients (Note [view tracking]) */
    if (t->view_base && node->n_inputs > 1 && t->view_creation == PT_VIEW_DEFAULT)
        t->view_creation = PT_VIEW_MULTI_OUTPUT_NODE;
    pt_node_release(old);
    return PT_OK;
}

/* Custom Functions: a view they return keeps their backward, which an in-place write would
 * bypass, so it is marked as PyTorch marks it. */
pt_status pt_autograd_set_history(pt_tensor *t, pt_node *node, int32_t output_nr)
{
    if (!t || !node) return PT_ERROR(PT_ERR_VALUE, "set_history: tensor and node are required");
    PT_TRY(pt_set_history(t, node, output_nr));
    if (t->view_base) t->view_creation = PT_VIEW_IN_CUSTOM_FUNCTION;
    return PT_OK;
}

/* A tensor a custom Function wrote in place (mark_dirty): a view's base is rebased as for any
 * in-place operation, with the Function's node in the CopySlices node. */
pt_status pt_autograd_rebase_history(pt_tensor *t, pt_node *node, int32_t output_nr)
{
    if (!t || !node) return PT_ERROR(PT_ERR_VALUE, "rebase_history: tensor and node are required");
    if (!t->view_base || output_nr != 0 || node->n_inputs != 1)
        return pt_set_history(t, node, output_nr);
    return pt_rebase_history(t, node);
}

pt_status pt_check_inplace(const pt_tensor *t, const char *opname)
{
    PT_UNUSED(opname);
    if (!pt_grad_mode_enabled()) return PT_OK;
    if (t->view_base) {
        PT_TRY(pt_view_check_inplace(t));
        const pt_autograd_meta *bm = t->view_base->autograd;
        if (pt_requires_grad(t) && !(bm && bm->grad_fn))
            return PT_ERROR(PT_ERR_RUNTIME, "a view of a leaf Variable that requires grad is "
                            "being used in an in-place operation.");
    }
    if (t->autograd && t->autograd->requires_grad && !t->autograd->grad_fn)
        return PT_ERROR(PT_ERR_RUNTIME, "a leaf Variable that requires grad is being used in an "
                        "in-place operation.");
    return PT_OK;
}

/* ---------------------------------------------------------------- the ABI */
pt_status pt_autograd_set_requires_grad(pt_tensor *t, int32_t requires_grad)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "requires_grad_: tensor is NULL");
    if (t->autograd && t->autograd->grad_fn) {
        if (requires_grad) return PT_OK;
        return PT_ERROR(PT_ERR_RUNTIME,
                        "you can only change requires_grad flags of leaf variables. If you want "
                        "to use a computed variable in a subgraph that doesn't require "
                        "differentiation use var_no_grad = var.detach().");
    }
    if (requires_grad && t->is_inference && !pt_inference_mode_on)
        return PT_ERROR(PT_ERR_RUNTIME, "Setting requires_grad=True on inference tensor outside "
                        "InferenceMode is not allowed.");
    if (requires_grad && !pt_autograd_differentiable_dtype(t->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "only Tensors of floating point and complex dtype can "
                        "require gradients");
    if (!requires_grad && !t->autograd) return PT_OK;
    pt_autograd_meta *m = pt_autograd_meta_of(t);
    if (!m) return PT_ERR_MEMORY;
    m->requires_grad = requires_grad != 0;
    return PT_OK;
}

int32_t pt_autograd_requires_grad(const pt_tensor *t) { return pt_requires_grad(t); }
int32_t pt_autograd_is_leaf(const pt_tensor *t)
{
    pt_node *fn = pt_autograd_grad_fn(t);
    pt_node_release(fn);
    return fn == NULL;
}
int32_t pt_autograd_retains_grad(const pt_tensor *t)
{
    return t->autograd && t->autograd->retains_grad;
}
int32_t pt_autograd_output_nr(const pt_tensor *t) { return t->autograd ? t->autograd->output_nr : 0; }
int64_t pt_autograd_version(const pt_tensor *t) { return pt_version_value(t); }

pt_tensor *pt_autograd_grad(const pt_tensor *t)
{
    if (!t->autograd) return NULL;
    pthread_mutex_lock(&acc_lock);
    pt_tensor *g = t->autograd->grad;
    if (g) pt_tensor_retain(g);
    pthread_mutex_unlock(&acc_lock);
    return g;
}

pt_status pt_autograd_grad_fn_of(const pt_tensor *t, pt_node **out)
{
    *out = NULL;
    if (t->view_base) PT_TRY(pt_view_refresh((pt_tensor *)t));
    pt_node *n = t->autograd ? t->autograd->grad_fn : NULL;
    pt_node_retain(n);
    *out = n;
    return PT_OK;
}

pt_node *pt_autograd_grad_fn(const pt_tensor *t)
{
    pt_node *n;
    if (pt_autograd_grad_fn_of(t, &n) == PT_OK) return n;
    pt_error_clear(); /* a view that may not be rebased keeps the history it had */
    n = t->autograd ? t->autograd->grad_fn : NULL;
    pt_node_retain(n);
    return n;
}

int32_t pt_autograd_is_view(const pt_tensor *t) { return t->view_base != NULL; }

pt_tensor *pt_autograd_view_base(const pt_tensor *t)
{
    if (t->view_base) pt_tensor_retain(t->view_base);
    return t->view_base;
}

pt_status pt_autograd_set_grad(pt_tensor *t, const pt_tensor *grad)
{
    if (!grad && !t->autograd) return PT_OK;
    pt_autograd_meta *m = pt_autograd_meta_of(t);
    if (!m) return PT_ERR_MEMORY;
    if (grad) pt_tensor_retain((pt_tensor *)grad);
    pthread_mutex_lock(&acc_lock);
    pt_tensor *old = m->grad;
    m->grad = (pt_tensor *)grad;
    pthread_mutex_unlock(&acc_lock);
    pt_tensor_release(old);
    return PT_OK;
}

/* retain_grad: a hook on the tensor's grad_fn input that stores the gradient in the metadata
 * (held by reference, so the tensor itself can die first). */
pt_status pt_autograd_retain_grad(pt_tensor *t)
{
    if (!pt_requires_grad(t))
        return PT_ERROR(PT_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
    pt_autograd_meta *m = t->autograd;
    if (!m->grad_fn || m->retains_grad) return PT_OK; /* leaves keep theirs anyway */
    pt_node *n = m->grad_fn;
    if (!n->retains) {
        n->retains = calloc((size_t)(n->n_inputs > 0 ? n->n_inputs : 1), sizeof *n->retains);
        if (!n->retains) return PT_ERROR(PT_ERR_MEMORY, "retain_grad: out of memory");
    }
    if (m->output_nr < n->n_inputs && !n->retains[m->output_nr]) {
        atomic_fetch_add_explicit(&m->refcount, 1, memory_order_relaxed);
        n->retains[m->output_nr] = m;
    }
    m->retains_grad = true;
    return PT_OK;
}

pt_status pt_autograd_register_hook(pt_tensor *t, pt_grad_hook_fn fn, void *ctx,
                                    pt_ctx_release_fn release, pt_hook **out)
{
    *out = NULL;
    if (!pt_requires_grad(t))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "cannot register a hook on a tensor that doesn't require gradient");
    pt_autograd_meta *m = t->autograd;
    pt_hook *h = hook_new(fn, ctx, release, m->grad_fn ? m->output_nr : 0);
    if (!h) return PT_ERR_MEMORY;
    atomic_fetch_add_explicit(&h->refcount, 1, memory_order_relaxed); /* the caller's */
    pthread_mutex_lock(&acc_lock);
    hook_append(m->grad_fn ? &m->grad_fn->pre_hooks : &m->hooks, h);
    pthread_mutex_unlock(&acc_lock);
    *out = h;
    return PT_OK;
}

pt_status pt_autograd_register_post_accumulate_hook(pt_tensor *t, pt_grad_hook_fn fn, void *ctx,
                                                    pt_ctx_release_fn release, pt_hook **out)
{
    *out = NULL;
    if (!fn) return PT_ERROR(PT_ERR_VALUE, "register_post_accumulate_grad_hook: fn is NULL");
    if (!pt_requires_grad(t))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "cannot register a hook on a tensor that doesn't require gradient");
    if (t->autograd->grad_fn)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "post accumulate grad hooks cannot be registered on non-leaf tensors");
    pt_hook *h = hook_new(fn, ctx, release, 0);
    if (!h) return PT_ERR_MEMORY;
    atomic_fetch_add_explicit(&h->refcount, 1, memory_order_relaxed); /* the caller's */
    pthread_mutex_lock(&acc_lock);
    hook_append(&t->autograd->post_acc_hooks, h);
    pthread_mutex_unlock(&acc_lock);
    *out = h;
    return PT_OK;
}

pt_status pt_node_register_hook(pt_node *n, int32_t kind, pt_node_hook_fn fn, void *ctx,
                                pt_ctx_release_fn release, pt_hook **out)
{
    *out = NULL;
    if (!n || !fn) return PT_ERROR(PT_ERR_VALUE, "register_hook: node and fn are required");
    if (kind != PT_NODE_PRE_HOOK && kind != PT_NODE_POST_HOOK)
        return PT_ERROR(PT_ERR_VALUE, "register_hook: kind %d is not a node hook kind", (int)kind);
    pt_hook *h = hook_new(NULL, ctx, release, -1);
    if (!h) return PT_ERR_MEMORY;
    h->node_fn = fn;
    atomic_fetch_add_explicit(&h->refcount, 1, memory_order_relaxed); /* the caller's */
    pthread_mutex_lock(&acc_lock);
    hook_append(kind == PT_NODE_PRE_HOOK ? &n->node_pre_hooks : &n->node_post_hooks, h);
    pthread_mutex_unlock(&acc_lock);
    *out = h;
    return PT_OK;
}

/* The function of a hook now (NULL once removed); read under the lock that remove takes. */
pt_node_hook_fn pt_hook_node_fn(const pt_hook *h)
{
    pthread_mutex_lock(&acc_lock);
    pt_node_hook_fn fn = h->node_fn;
    pthread_mutex_unlock(&acc_lock);
    return fn;
}

pt_status pt_autograd_detach(const pt_tensor *t, pt_tensor **out)
{
    PT_TRY(pt_tensor_make(t->storage, t->dtype, t->ndim, t->sizes, t->strides, t->offset, out));
    (*out)->math_bits = t->math_bits;
    pt_status st = pt_version_share(t, *out);
    if (st != PT_OK) {
        pt_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

pt_status pt_autograd_detach_(pt_tensor *t)
{
    /* as torch: a view shares its base's history, which detaching in place would cut for the
       view only */
    if (t->is_view)
        return PT_ERROR(PT_ERR_RUNTIME, "Can't detach views in-place. Use detach() instead.");
    pt_autograd_meta *m = t->autograd;
    if (!m) return PT_OK;
    pt_node *fn = m->grad_fn;
    m->grad_fn = NULL;
    m->requires_grad = false;
    m->output_nr = 0;
    pt_node_release(fn);
    return PT_OK;
}

pt_status pt_autograd_data(const pt_tensor *t, pt_tensor **out)
{
    PT_TRY(pt_tensor_make(t->storage, t->dtype, t->ndim, t->sizes, t->strides, t->offset, out));
    (*out)->math_bits = t->math_bits;
    (*out)->is_inference = t->is_inference;
    return PT_OK;
}

pt_status pt_autograd_bump_version(pt_tensor *t) { return pt_version_bump(t); }

pt_status pt_autograd_set_data(pt_tensor *t, const pt_tensor *src)
{
    if (t->autograd && t->autograd->requires_grad && !pt_autograd_differentiable_dtype(src->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "data set to a tensor that requires gradients must be "
                        "floating point or complex dtype");
    return pt_tensor_shallow_copy_from(t, src);
}
