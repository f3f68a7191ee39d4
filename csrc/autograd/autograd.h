/* autograd.h - what the autograd files (csrc/autograd) and the generated autograd kernels
 * (build/generated/pt_autograd.c, from csrc/ops/derivatives.yaml by tools/gen_autograd.py) share:
 * per-tensor metadata, version counters, graph nodes and their edges, saved variables, grad mode
 * and the calls that record history. Nothing here is exported; the ABI's autograd section
 * (pytensor.h) is what Python sees.
 *
 * Note [autograd metadata]
 * A tensor that takes no part in autograd has `autograd == NULL`, and then its key set holds no
 * autograd key, so a plain call never enters the autograd layer (one pointer test in
 * pt_tensor_keys). A tensor gets metadata when it is made to require grad, when an autograd
 * kernel records it as an output, or when it is given a .grad or a hook. The metadata is
 * reference-counted on its own: the tensor holds one reference, and a retain_grad hook holds
 * another, so that a hook never keeps its tensor alive (no cycle through grad_fn).
 *
 * Note [version counters]
 * A version counter is shared by a tensor, its views and its detach()es. Tensors start without
 * one (NULL reads as version 0); the first in-place write, view or save gives the tensor one.
 * An in-place or out= call bumps the counters of the tensors it writes at the layer just below
 * autograd: the generated entry points (and the boxed pt_dispatch_call) bump when the call's key
 * set holds no autograd key, so a call that passes through an autograd kernel is bumped once, by
 * the kernel's redispatch, before the kernel saves its result (PyTorch's ADInplaceOrView, folded
 * into the entry points instead of taking a dispatch hop of its own).
 *
 * Note [view tracking]
 * Every view a view function of csrc/core/view.c makes (and so every output of an operator whose
 * schema returns an alias `Tensor(a)`) holds its root base in `view_base` - the first tensor of
 * the chain that is not a view - and records in `view_creation` how it was made (PyTorch's
 * CreationMeta). That costs a plain view one reference count and one thread-local read; nothing
 * else is recorded, since the view's own sizes, strides and storage offset regenerate it from the
 * base (PyTorch's as_strided fallback). detach(), .data and saved aliases are not views.
 * Autograd reads the link three ways (views.c):
 *  - a view requires grad when its base does, and its key set holds the autograd keys when its
 *    base has metadata (pt_tensor_keys), so that writes into it and reads of it after the base
 *    changed reach the autograd kernels;
 *  - an in-place operation on a view rebases the base's history (pt_rebase_history): the base's
 *    grad_fn becomes a CopySlices node holding the base's previous edge, both geometries and the
 *    operation's node;
 *  - a view's history is valid for the version of the shared counter it was set at
 *    (view_version); a view read after it, its base or a sibling view was written in place gets a
 *    new AsStridedBackward0 node on the base's current history (pt_view_refresh), as PyTorch
 *    regenerates grad_fn when it is read.
 * A view that requires grad and was made in no_grad mode, by a function returning several views,
 * or inside a custom Function may not be written in place (PyTorch's errors, same text).
 *
 * Note [inference mode]
 * Inference mode (c10's InferenceMode) is a thread-local flag beside grad mode: entering it
 * turns grad mode off and puts the autograd keys in the dispatcher's thread-local exclude set;
 * leaving it (or inference_mode(False)) turns grad mode on. A tensor made while it is on is an
 * inference tensor (pt_tensor.is_inference, set where tensor objects are made); a view or
 * detach() takes its base's flag. An inference tensor has no version counter: a view of one
 * shares nothing, a bump inside inference mode does nothing and one outside is torch's
 * "Inplace update to inference tensor outside InferenceMode" error (raised after the kernel
 * wrote, as torch's bump does); saving one for backward is an error. Normal tensors written
 * in inference mode are still bumped: the entry points bump below autograd whatever the mode.
 * The cost on a plain call is one thread-local load when a tensor object is made.
 *
 * Note [saved tensor hooks]
 * autograd.graph.saved_tensors_hooks pushes a pack/unpack pair on a thread-local stack
 * (pt_autograd_saved_hooks_push); a tensor saved while the stack is not empty is handed to the
 * innermost pack function (with grad mode off) and the saved variable keeps what it returns (an
 * opaque pointer, a Python object for Python's hooks) and a reference to the pair. Unpacking
 * calls unpack on it every time; the result gets the history the saved tensor had (its grad_fn,
 * the owning node for outputs, or the leaf's AccumulateGrad, which the saved variable holds)
 * when grad mode is on. No version check is possible through hooks (as torch). Releasing the
 * saved variable releases the packed object, so it dies with the graph or after backward.
 */
#ifndef PT_AUTOGRAD_H
#define PT_AUTOGRAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* ---------------------------------------------------------------- version counters */
struct pt_version {
    _Atomic int64_t refcount;
    _Atomic int64_t value;
};
/* The tensor's counter, made when it has none (NULL: out of memory, error recorded). */
pt_version *pt_version_of(pt_tensor *t);
static inline int64_t pt_version_value(const pt_tensor *t)
{
    pt_version *v = atomic_load_explicit(&((pt_tensor *)t)->version, memory_order_acquire);
    return v ? atomic_load_explicit(&v->value, memory_order_relaxed) : 0;
}
void pt_version_release(pt_version *v);
/* Increments t's version (made on first use); fails only when out of memory. */
pt_status pt_version_bump(pt_tensor *t);
/* Shares src's counter with dst (dst has none yet): views and detach. */
pt_status pt_version_share(const pt_tensor *src, pt_tensor *dst);

/* ---------------------------------------------------------------- hooks */
/* A tensor hook: fn may write a replacement gradient (a new reference) or leave it NULL.
 * Removing a hook clears fn; the record stays in its owner's list until the owner dies. */
struct pt_hook {
    _Atomic int64_t refcount;
    pt_grad_hook_fn fn;
    pt_node_hook_fn node_fn; /* instead of fn for the hooks of a node (Note [node hooks]) */
    void *ctx;
    pt_ctx_release_fn release;
    int32_t index;        /* the node input (forward output) it watches */
    struct pt_hook *next; /* owner's list, oldest first */
};
void pt_hook_list_free(struct pt_hook *h);
/* A node hook's function now (NULL once removed). */
pt_node_hook_fn pt_hook_node_fn(const pt_hook *h);

/* ---------------------------------------------------------------- graph */
typedef struct pt_edge {
    pt_node *node; /* strong; NULL: no gradient flows there */
    int32_t input_nr;
} pt_edge;

/* What a node expects of the gradient arriving at one of its inputs (a forward output). */
typedef struct pt_input_meta {
    int32_t ndim;
    int32_t dtype;
    pt_device device;
    int64_t *sizes; /* inline_sizes or heap */
    int64_t inline_sizes[PT_INLINE_DIMS];
} pt_input_meta;

typedef struct pt_node_vtable {
    const char *name;
    /* grads: one per node input (NULL = undefined, i.e. zero); outs: one per next edge, NULL on
     * entry; the node writes new references. Runs with grad mode = create_graph. */
    pt_status (*apply)(pt_node *self, pt_tensor *const *grads, pt_tensor **outs);
    /* Drops saved variables (after a backward without retain_graph). May be NULL. */
    void (*release_saved)(pt_node *self);
    /* Frees what the node type adds to the base (saved variables, lists). May be NULL. */
    void (*destroy)(pt_node *self);
    /* The name of the node's saved fields, for Python's `_saved_<name>` (NULL: none). */
    pt_status (*saved)(pt_node *self, const char *name, pt_ivalue *out, int32_t *found);
} pt_node_vtable;

struct pt_node {
    _Atomic int64_t refcount;
    const pt_node_vtable *vt;
    const char *name;   /* vt->name unless set (custom Functions) */
    char *owned_name;   /* freed with the node */
    uint64_t seq;
    int32_t n_next;
    pt_edge *next;
    int32_t n_inputs;
    pt_input_meta *input_meta;
    struct pt_hook *pre_hooks;  /* tensor hooks of non-leaf outputs, by index */
    struct pt_hook *node_pre_hooks;  /* grad_fn.register_prehook, oldest first */
    struct pt_hook *node_post_hooks; /* grad_fn.register_hook, oldest first */
    struct pt_autograd_meta **retains; /* retain_grad targets by index (n_inputs), or NULL */
    char *anomaly_trace;        /* the Python stack that created the node (anomaly mode) */
    bool released;              /* saved variables freed */
    bool needs_all_grads;       /* materialize undefined input gradients as zeros */
};

/* Allocates a node of `size` bytes (>= sizeof(pt_node)), zeroed, refcount 1, next sequence
 * number, n_next edges (NULL nodes) and n_inputs input metadata slots. */
pt_status pt_node_new(size_t size, const pt_node_vtable *vt, int32_t n_next, int32_t n_inputs,
                      pt_node **out);
void pt_node_retain(pt_node *n);
void pt_node_release(pt_node *n);
/* Sets next edge i to t's gradient edge (nothing when t needs no grad or is NULL). */
pt_status pt_node_set_next_edge(pt_node *n, int32_t i, const pt_tensor *t);
/* True when next edge i leads somewhere (the formula of input i must run). */
static inline bool pt_node_needs_output(const pt_node *n, int32_t i)
{
    return i < n->n_next && n->next[i].node != NULL;
}
/* Records the input metadata (shape, dtype, device) of node input i from t. */
pt_status pt_node_set_input_meta(pt_node *n, int32_t i, const pt_tensor *t);

/* ---------------------------------------------------------------- per-tensor metadata */
typedef struct pt_autograd_meta {
    _Atomic int64_t refcount;
    bool alive;          /* false once the tensor died (retain_grad hooks then drop the grad) */
    bool requires_grad;  /* leaves: set by the user; non-leaves: have a grad_fn */
    bool retains_grad;
    pt_tensor *grad;     /* owned */
    pt_node *grad_fn;    /* owned */
    int32_t output_nr;
    pt_node *grad_accumulator; /* weak (Note [weak accumulator] in variable.c) */
    struct pt_hook *hooks;     /* leaf hooks, run before accumulation */
    struct pt_hook *post_acc_hooks; /* leaf hooks run after accumulation, given the leaf */
    pt_node *held_accumulator; /* owned: a saved leaf unpacked through hooks reaches the leaf's
                                  AccumulateGrad (grad_accumulator) while this tensor lives */
    bool view_tracked;         /* a view with a history: its version when the history was set */
    int64_t view_version;
} pt_autograd_meta;

/* t's metadata, made when absent (NULL when out of memory, error recorded). */
pt_autograd_meta *pt_autograd_meta_of(pt_tensor *t);
void pt_autograd_meta_release(pt_autograd_meta *m);
/* Frees what a dying tensor holds of autograd (called by pt_tensor_release). */
void pt_autograd_tensor_free(pt_tensor *t);

static inline bool pt_meta_requires_grad(const pt_autograd_meta *m)
{
    return m && (m->requires_grad || m->grad_fn);
}
/* A view requires grad when its base does (Note [view tracking]). */
static inline bool pt_requires_grad(const pt_tensor *t)
{
    return t && (pt_meta_requires_grad(t->autograd) ||
                 (t->view_base && pt_meta_requires_grad(t->view_base->autograd)));
}
/* The edge a gradient for t flows along: its grad_fn and output_nr, or the AccumulateGrad node of
 * a leaf that requires grad (made on demand); {NULL, 0} otherwise. New reference in out->node. */
pt_status pt_gradient_edge(const pt_tensor *t, pt_edge *out);
/* Makes t an output of node at output_nr (grad_fn, output_nr, node input metadata). */
pt_status pt_set_history(pt_tensor *t, pt_node *node, int32_t output_nr);
/* The check every in-place autograd kernel makes on the tensor it writes. */
pt_status pt_check_inplace(const pt_tensor *t, const char *opname);

/* ---------------------------------------------------------------- views (views.c) */
/* How a view was made (PyTorch's CreationMeta); values fixed, appended only. */
typedef enum pt_view_creation {
    PT_VIEW_DEFAULT = 0,
    PT_VIEW_IN_CUSTOM_FUNCTION = 1,
    PT_VIEW_MULTI_OUTPUT_NODE = 2,
    PT_VIEW_NO_GRAD_MODE = 3,
    PT_VIEW_INFERENCE_MODE = 4,
} pt_view_creation;
/* Makes out (fresh, over t's storage) a view of t: root base, creation kind, and for a base
 * that autograd knows the version its (absent) history is valid for (Note [view tracking]). */
pt_status pt_view_track(const pt_tensor *t, pt_tensor *out);
/* Gives a view whose history is stale (its version moved since it was set) a new
 * AsStridedBackward0 node on its base's current history; PyTorch's errors for views that may
 * not be rebased. Nothing for tensors that are not views. */
pt_status pt_view_refresh(pt_tensor *t);
/* Makes node the history of t written in place by the node's operation: t's own grad_fn, or,
 * for a view, a CopySlices node as its base's grad_fn and a regenerated grad_fn for t. */
pt_status pt_rebase_history(pt_tensor *t, pt_node *node);
/* The errors of an in-place write into view t that autograd records (creation kind). */
pt_status pt_view_check_inplace(const pt_tensor *t);
/* torch's as_strided_backward: the gradient of `input` (geometry in_*) from grad of its view
 * with geometry out_* (same storage): sums where the view overlaps itself, divides where the
 * input does. New reference, NULL on failure (error recorded). */
pt_tensor *pt_ag_as_strided_backward(const pt_tensor *grad, int32_t in_ndim,
                                     const int64_t *in_sizes, const int64_t *in_strides,
                                     int64_t in_offset, int32_t out_ndim, const int64_t *out_sizes,
                                     const int64_t *out_strides, int64_t out_offset);

/* as_strided's formula: pt_ag_as_strided_backward from the input and the view's arguments. */
pt_tensor *pt_ag_as_strided_grad(const pt_tensor *grad, const pt_tensor *self, int32_t n_size,
                                 const int64_t *size, int32_t n_stride, const int64_t *stride,
                                 const int64_t *storage_offset);

/* torch's diagonal_backward: zeros of `sizes` with grad written on the diagonal; operator calls
 * all through, so that it is differentiable itself. New reference, NULL on failure. */
pt_tensor *pt_ag_diagonal_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                   int64_t offset, int64_t dim1, int64_t dim2);

/* ---------------------------------------------------------------- saved variables */
typedef struct pt_saved_var {
    pt_tensor *data;   /* NULL: nothing saved (or undefined) */
    int64_t version;
    int32_t output_nr;
    bool is_output;    /* data holds no grad_fn; unpack reattaches the owning node */
    bool was_saved;    /* saved and not yet released */
    bool released;
    const char *grad_fn_name; /* the saved tensor's grad_fn at save time, for the message */
    int32_t grad_fn_output_nr;
    bool is_leaf;
    /* Note [saved tensor hooks]: data is NULL, packed holds the tensor */
    struct pt_saved_hooks *hooks;
    void *packed;
    pt_node *history; /* owned: the grad_fn of a non-leaf input, the AccumulateGrad of a leaf */
} pt_saved_var;
/* Saves t (NULL saves nothing); is_output for results of the node's own op. */
pt_status pt_saved_save(pt_saved_var *v, const pt_tensor *t, bool is_output);
/* The saved tensor (new reference, NULL when none was saved); the errors for a graph already
 * freed or a tensor modified in place since. `owner` is the node unpacking. */
pt_status pt_saved_unpack(pt_saved_var *v, pt_node *owner, pt_tensor **out);
void pt_saved_release(pt_saved_var *v);

/* ---------------------------------------------------------------- grad mode */
bool pt_grad_mode_enabled(void);
static inline bool pt_inference_mode_enabled(void) { return pt_inference_mode_on; }
/* Sets this thread's grad-mode flag alone (not the dispatcher's sets); returns the old one. */
bool pt_grad_mode_swap(bool enabled);
/* Turns the autograd keys off for this thread until pt_below_autograd_end (redispatch below
 * autograd); returns the state to restore. */
uint64_t pt_below_autograd_begin(void);
void pt_below_autograd_end(uint64_t saved);
bool pt_anomaly_enabled(void);
bool pt_anomaly_check_nan(void);

/* ---------------------------------------------------------------- nodes every build has */
/* A node that raises "the derivative for 'name' is not implemented." when backward reaches it,
 * with edges to the n inputs that require grad and n_outputs outputs. */
pt_status pt_not_implemented_node(const char *opname, int32_t n, const pt_tensor *const *inputs,
                                  int32_t n_outputs, pt_node **out);
/* The sequence number of the next node (nodes made later run earlier in backward). */
uint64_t pt_autograd_next_seq(void);
/* Whether tensors of this dtype can require grad (floating point and complex). */
bool pt_autograd_differentiable_dtype(int32_t dtype);
/* The fallback at the autograd keys for operators without a formula (node.c). */
pt_status pt_autograd_fallback_init(void);

/* The Scalar 1 (alpha of the additions that sum gradients). */
extern const pt_scalar pt_scalar_one;
/* torch's "Trying to backward through the graph a second time ..." (saved.c): every node whose
 * saved state a backward without retain_graph freed answers a second run with it. */
extern const char pt_backward_twice_message[];

/* ---------------------------------------------------------------- engine helpers */
/* grad reduced and cast to what input i of node expects (sum over broadcast dims, dtype);
 * PT_ERR_RUNTIME naming the producing node when the shape cannot be reduced. New reference. */
pt_status pt_validate_grad(const pt_node *producer, int32_t index, const pt_input_meta *meta,
                           pt_tensor *grad, pt_tensor **out);
/* The leaf's tensor hooks on the gradient reaching an AccumulateGrad node (nothing for other
 * nodes): they run first of its hooks, as torch's tensor pre-hooks. */
pt_status pt_accumulate_leaf_hooks(pt_node *n, pt_tensor **grad);
/* Runs the Python stack recorder of anomaly mode, when set, into node->anomaly_trace. */
void pt_anomaly_record(pt_node *n);

#endif
