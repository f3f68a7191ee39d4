/* saved.c - saved variables: what a node keeps of its inputs and outputs for backward, the
 * version check at unpack, the thread-local stack of saved-tensor hooks that may hold the data
 * instead (Note [saved tensor hooks] in autograd.h), and saved variables on their own for custom
 * Functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "dispatch.h"

const char pt_backward_twice_message[] =
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.";

/* ---------------------------------------------------------------- the hooks stack */
struct pt_saved_hooks {
    _Atomic int64_t refcount; /* the stack's entry and every saved variable packed with it */
    pt_saved_pack_fn pack;
    pt_saved_unpack_fn unpack;
    pt_ctx_release_fn release_packed;
    void *ctx;
    pt_ctx_release_fn release;
    struct pt_saved_hooks *below; /* the stack, innermost first */
};

static _Thread_local struct pt_saved_hooks *hooks_top;
static _Thread_local char *hooks_disabled; /* the message; NULL: enabled */

static void hooks_release(struct pt_saved_hooks *h)
{
    if (!h || !pt_refcount_drop(&h->refcount)) return;
    if (h->release && h->ctx) h->release(h->ctx);
    free(h);
}

pt_status pt_autograd_saved_hooks_push(pt_saved_pack_fn pack, pt_saved_unpack_fn unpack,
                                       pt_ctx_release_fn release_packed, void *ctx,
                                       pt_ctx_release_fn release)
{
    if (hooks_disabled) return PT_ERROR(PT_ERR_RUNTIME, "%s", hooks_disabled);
    if (!pack || !unpack)
        return PT_ERROR(PT_ERR_VALUE, "saved_tensors_hooks: pack and unpack are required");
    struct pt_saved_hooks *h = calloc(1, sizeof *h);
    if (!h) return PT_ERROR(PT_ERR_MEMORY, "saved_tensors_hooks: out of memory");
    atomic_init(&h->refcount, 1);
    h->pack = pack;
    h->unpack = unpack;
    h->release_packed = release_packed;
    h->ctx = ctx;
    h->release = release;
    h->below = hooks_top;
    hooks_top = h;
    return PT_OK;
}

pt_status pt_autograd_saved_hooks_pop(void)
{
    struct pt_saved_hooks *h = hooks_top;
    if (!h) return PT_ERROR(PT_ERR_RUNTIME, "saved_tensors_hooks: no hooks to pop on this thread");
    hooks_top = h->below;
    hooks_release(h);
    return PT_OK;
}

pt_status pt_autograd_saved_hooks_disable(const char *message)
{
    if (!message) {
        free(hooks_disabled);
        hooks_disabled = NULL;
        return PT_OK;
    }
    /* as torch: disabling under hooks already pushed is the error the message describes */
    if (hooks_top) return PT_ERROR(PT_ERR_RUNTIME, "%s", message);
    char *copy = strdup(message);
    if (!copy) return PT_ERROR(PT_ERR_MEMORY, "disable_saved_tensors_hooks: out of memory");
    free(hooks_disabled);
    hooks_disabled = copy;
    return PT_OK;
}

const char *pt_autograd_saved_hooks_disabled_message(void) { return hooks_disabled; }

/* pack runs with grad mode off (as torch), whatever layer of a kernel saves. */
static pt_status call_pack(struct pt_saved_hooks *h, pt_tensor *t, void **packed)
{
    const uint64_t inc = pt_dispatch_tls_included(), exc = pt_dispatch_tls_excluded();
    const bool grad = pt_grad_mode_swap(false);
    pt_dispatch_tls_set(inc, exc | PT_AUTOGRAD_KEYS);
    pt_status st = h->pack(h->ctx, t, packed);
    pt_grad_mode_swap(grad);
    pt_dispatch_tls_set(inc, exc);
    return st;
}

/* ---------------------------------------------------------------- saved variables */
/* "pytensor.FloatTensor", as Tensor.type() names it. */
static const char *type_string(const pt_tensor *t, char *buf, size_t cap)
{
    const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
    const char *legacy = info && info->legacy_name && info->legacy_name[0] ? info->legacy_name
                                                                           : info ? info->name
                                                                                  : "?";
    snprintf(buf, cap, "pytensor.%s%sTensor", t->device.type == PT_DEV_CUDA ? "cuda." : "",
             legacy);
    return buf;
}

/* Saves through the innermost hooks: the history the tensor had is kept beside the packed value
 * (an output's is its owner's, given at unpack). */
static pt_status save_packed(pt_saved_var *v, const pt_tensor *t, bool is_output)
{
    pt_node *history = NULL;
    if (!is_output && t->autograd && t->autograd->grad_fn) {
        history = t->autograd->grad_fn;
        pt_node_retain(history);
    } else if (!is_output && pt_requires_grad(t)) {
        pt_edge e;
        PT_TRY(pt_gradient_edge(t, &e));
        history = e.node;
    }
    void *packed = NULL;
    pt_status st = call_pack(hooks_top, (pt_tensor *)t, &packed);
    if (st != PT_OK) {
        pt_node_release(history);
        return st;
    }
    atomic_fetch_add_explicit(&hooks_top->refcount, 1, memory_order_relaxed);
    v->hooks = hooks_top;
    v->packed = packed;
    v->history = history;
    return PT_OK;
}

pt_status pt_saved_save(pt_saved_var *v, const pt_tensor *t, bool is_output)
{
    memset(v, 0, sizeof *v);
    if (!t) return PT_OK;
    if (t->is_inference)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Inference tensors cannot be saved for backward. Please do not use Tensors "
                        "created in inference mode in computation tracked by autograd. To work "
                        "around this, you can make a clone to get a normal tensor and use it in "
                        "autograd, or use `pytensor.no_grad()` instead of "
                        "`pytensor.inference_mode()`.");
    if (t->autograd && t->autograd->grad_fn) {
        v->grad_fn_name = t->autograd->grad_fn->name;
        v->grad_fn_output_nr = t->autograd->output_nr;
    }
    v->is_leaf = !(t->autograd && t->autograd->grad_fn);
    v->output_nr = t->autograd ? t->autograd->output_nr : 0;
    v->is_output = is_output;
    /* wrapped numbers never reach the hooks (torch keeps them from users) */
    if (hooks_top && !t->wrapped_number) {
        PT_TRY(save_packed(v, t, is_output));
        v->was_saved = true;
        return PT_OK;
    }
    pt_version *ver = pt_version_of((pt_tensor *)t);
    if (!ver) return PT_ERR_MEMORY;
    v->version = atomic_load_explicit(&ver->value, memory_order_relaxed);
    v->was_saved = true;
    if (!is_output) {
        pt_tensor_retain((pt_tensor *)t);
        v->data = (pt_tensor *)t;
        return PT_OK;
    }
    /* An output is saved as a plain alias: holding the tensor itself would hold its grad_fn,
     * which holds this saved variable (a cycle). */
    pt_tensor *alias;
    PT_TRY(pt_tensor_make(t->storage, t->dtype, t->ndim, t->sizes, t->strides, t->offset, &alias));
    alias->math_bits = t->math_bits;
    pt_status st = pt_version_share(t, alias);
    if (st != PT_OK) {
        pt_tensor_release(alias);
        return st;
    }
    v->data = alias;
    return PT_OK;
}

/* A tensor over t's data that has the history `node` gives it: output output_nr of it, or, for
 * an AccumulateGrad node (a saved leaf), a leaf that requires grad and accumulates there. */
static pt_status with_history(pt_tensor *t, pt_node *node, int32_t output_nr, bool leaf,
                              pt_tensor **out)
{
    pt_tensor *a;
    PT_TRY(pt_tensor_make(t->storage, t->dtype, t->ndim, t->sizes, t->strides, t->offset, &a));
    a->math_bits = t->math_bits;
    pt_status st = pt_version_share(t, a);
    pt_autograd_meta *m = st == PT_OK ? pt_autograd_meta_of(a) : NULL;
    if (!m) {
        pt_tensor_release(a);
        return st != PT_OK ? st : PT_ERR_MEMORY;
    }
    pt_node_retain(node);
    if (leaf) {
        m->requires_grad = true;
        m->grad_accumulator = node; /* weak, kept alive by held_accumulator */
        m->held_accumulator = node;
    } else {
        m->grad_fn = node;
        m->output_nr = output_nr;
    }
    *out = a;
    return PT_OK;
}

static pt_status unpack_hooked(pt_saved_var *v, pt_node *owner, pt_tensor **out)
{
    pt_tensor *r = NULL;
    PT_TRY(v->hooks->unpack(v->hooks->ctx, v->packed, &r));
    if (!r)
        return PT_ERROR(PT_ERR_TYPE, "Output of saved tensor unpack_hook expected to be a Tensor "
                        "but got result of type NoneType");
    pt_node *node = v->is_output ? owner : v->history;
    if (!node || !pt_grad_mode_enabled()) {
        *out = r;
        return PT_OK;
    }
    pt_status st = with_history(r, node, v->output_nr, !v->is_output && v->is_leaf, out);
    pt_tensor_release(r);
    return st;
}

pt_status pt_saved_unpack(pt_saved_var *v, pt_node *owner, pt_tensor **out)
{
    *out = NULL;
    if (v->released) return PT_ERROR(PT_ERR_RUNTIME, "%s", pt_backward_twice_message);
    if (v->hooks) return unpack_hooked(v, owner, out);
    if (!v->data) return PT_OK;
    int64_t now = pt_version_value(v->data);
    if (now != v->version) {
        char type[64], sizes[256], which[160] = "";
        pt_format_ints(sizes, sizeof sizes, v->data->ndim, v->data->sizes);
        /* as torch, a saved input is named by its history now: the in-place op that
           modified it, or for a view the history regenerated from its base's */
        if (!v->is_output && v->data->view_base && pt_view_refresh(v->data) != PT_OK)
            pt_error_clear();
        const pt_autograd_meta *m = v->is_output ? NULL : v->data->autograd;
        if (v->is_output)
            snprintf(which, sizeof which, ", which is output %d of %s,", (int)v->output_nr,
                     owner ? owner->name : "?");
        else if (m && m->grad_fn)
            snprintf(which, sizeof which, ", which is output %d of %s,", (int)m->output_nr,
                     m->grad_fn->name);
        else if (v->grad_fn_name)
            snprintf(which, sizeof which, ", which is output %d of %s,",
                     (int)v->grad_fn_output_nr, v->grad_fn_name);
        return PT_ERROR(PT_ERR_RUNTIME,
                        "one of the variables needed for gradient computation has been modified "
                        "by an inplace operation: [%s %s]%s is at version %lld; expected version "
                        "%lld instead. Hint: enable anomaly detection to find the operation that "
                        "failed to compute its gradient, with "
                        "pytensor.autograd.set_detect_anomaly(True).",
                        type_string(v->data, type, sizeof type), sizes, which, (long long)now,
                        (long long)v->version);
    }
    if (v->is_output && owner && pt_grad_mode_enabled())
        /* create_graph: the output regains its place in the graph (this node) */
        return with_history(v->data, owner, v->output_nr, false, out);
    pt_tensor_retain(v->data);
    *out = v->data;
    return PT_OK;
}

void pt_saved_release(pt_saved_var *v)
{
    if (v->was_saved) v->released = true;
    pt_tensor_release(v->data);
    v->data = NULL;
    struct pt_saved_hooks *h = v->hooks;
    void *packed = v->packed;
    pt_node *history = v->history;
    v->hooks = NULL;
    v->packed = NULL;
    v->history = NULL;
    if (h && h->release_packed && packed) h->release_packed(packed);
    hooks_release(h);
    pt_node_release(history);
}

/* ---------------------------------------------------------------- on their own */
struct pt_saved_tensor {
    pt_saved_var v;
};

pt_status pt_saved_tensor_new(const pt_tensor *t, int32_t is_output, pt_saved_tensor **out)
{
    *out = NULL;
    pt_saved_tensor *s = calloc(1, sizeof *s);
    if (!s) return PT_ERROR(PT_ERR_MEMORY, "save_for_backward: out of memory");
    pt_status st = pt_saved_save(&s->v, t, is_output != 0);
    if (st != PT_OK) {
        pt_saved_release(&s->v);
        free(s);
        return st;
    }
    *out = s;
    return PT_OK;
}

pt_status pt_saved_tensor_unpack(pt_saved_tensor *s, pt_node *owner, pt_tensor **out)
{
    return pt_saved_unpack(&s->v, owner, out);
}

void pt_saved_tensor_release_data(pt_saved_tensor *s)
{
    if (s) pt_saved_release(&s->v);
}

void pt_saved_tensor_free(pt_saved_tensor *s)
{
    if (!s) return;
    pt_saved_release(&s->v);
    free(s);
}
