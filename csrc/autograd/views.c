/* views.c - autograd for views (Note [view tracking] in autograd.h): the root-base link a view
 * function records, the CopySlices node an in-place write into a view gives the base, the
 * AsStridedBackward0 node a view whose history went stale gets, torch's as_strided_backward that
 * both use, and PyTorch's errors for views that may not be written in place.
 *
 * Note [CopySlices]
 * An in-place operation `op_` on a view v of base b computes v' = f(v, others) and leaves b' equal
 * to b outside v's elements. Its node (made by the operator's autograd kernel, edges to v's old
 * history and to the others) is kept by a CopySlices node that becomes b's grad_fn: its edge 0 is
 * b's previous edge, its edges 1.. are the node's. Backward gets grad(b'), copies it into a buffer
 * with b's geometry, hands the slice with v's geometry to the node, writes the node's gradient for
 * v back over that slice (the elements outside v pass unchanged, those inside go through f) and
 * passes the others' gradients on. The buffer is a zeroed 1-d storage covering both geometries, so
 * that any strides (negative ones included) address it as they addressed b's storage. Everything
 * is done with operator calls, so that under create_graph the result is differentiable (the
 * buffer's own views are rebased the same way).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "pt_ops.h"

/* ---------------------------------------------------------------- geometry */
typedef struct {
    int32_t ndim;
    int64_t offset;
    int64_t *sizes;   /* heap: ndim sizes then ndim strides */
    int64_t *strides;
} geometry;

static pt_status geometry_of(const pt_tensor *t, geometry *g)
{
    g->ndim = t->ndim;
    g->offset = t->offset;
    g->sizes = malloc(sizeof(int64_t) * (size_t)(2 * t->ndim + 1));
    if (!g->sizes) return PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory for a view geometry");
    g->strides = g->sizes + t->ndim;
    if (t->ndim > 0) {
        memcpy(g->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
        memcpy(g->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    }
    return PT_OK;
}

static void geometry_free(geometry *g)
{
    free(g->sizes);
    g->sizes = g->strides = NULL;
}

/* The lowest and highest element offsets a geometry addresses; false when it has no element. */
static bool extent(int32_t nd, const int64_t *sizes, const int64_t *strides, int64_t offset,
                   int64_t *lo, int64_t *hi)
{
    *lo = *hi = offset;
    for (int32_t d = 0; d < nd; d++) {
        if (sizes[d] == 0) return false;
        const int64_t span = (sizes[d] - 1) * strides[d];
        if (span < 0) *lo += span;
        else *hi += span;
    }
    return true;
}

/* The storage span [lo, lo + *len) that covers both geometries (*len 0: neither has elements). */
static void union_extent(const geometry *a, const geometry *b, int64_t *lo, int64_t *len)
{
    int64_t alo, ahi, blo, bhi;
    const bool ha = extent(a->ndim, a->sizes, a->strides, a->offset, &alo, &ahi);
    const bool hb = extent(b->ndim, b->sizes, b->strides, b->offset, &blo, &bhi);
    if (!ha && !hb) {
        *lo = 0;
        *len = 0;
        return;
    }
    if (!ha) alo = blo, ahi = bhi;
    if (!hb) blo = alo, bhi = ahi;
    *lo = alo < blo ? alo : blo;
    *len = (ahi > bhi ? ahi : bhi) - *lo + 1;
}

/* Whether two elements of the geometry may share a storage element (conservative: true when
 * unsure). Dims of size 1 never step; the others, sorted by |stride|, must each step past the
 * whole extent of the smaller ones. */
static bool may_overlap(int32_t nd, const int64_t *sizes, const int64_t *strides)
{
    int64_t sz[PT_MAX_DIMS], st[PT_MAX_DIMS];
    int32_t n = 0;
    for (int32_t d = 0; d < nd; d++) {
        if (sizes[d] == 0) return false;
        if (sizes[d] == 1) continue;
        if (strides[d] == 0) return true;
        int32_t k = n++;
        const int64_t a = strides[d] < 0 ? -strides[d] : strides[d];
        while (k > 0 && st[k - 1] > a) {
            st[k] = st[k - 1];
            sz[k] = sz[k - 1];
            k--;
        }
        st[k] = a;
        sz[k] = sizes[d];
    }
    int64_t reach = 0; /* the largest offset the smaller dims address */
    for (int32_t k = 0; k < n; k++) {
        if (st[k] <= reach) return true;
        reach += (sz[k] - 1) * st[k];
    }
    return false;
}

/* ---------------------------------------------------------------- as_strided_backward */
/* The status of an operator call whose result is not needed. */
static pt_status call_done(pt_tensor *r)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    pt_tensor_release(r);
    return PT_OK;
}


/* The storage index of every element of a geometry (row-major), as an int64 tensor. */
static pt_tensor *flat_indices(int32_t nd, const int64_t *sizes, const int64_t *strides,
                               int64_t offset, int64_t numel, pt_device device)
{
    pt_device cpu = {PT_DEV_CPU, 0};
    pt_tensor *idx = pt_call_empty_memory_format(1, &numel, PT_INT64, PT_LAYOUT_STRIDED, &cpu, 0,
                                                 PT_MEMORY_FORMAT_CONTIGUOUS);
    if (!idx) return NULL;
    int64_t *out = (int64_t *)pt_tensor_data(idx);
    int64_t pos[PT_MAX_DIMS] = {0};
    int64_t cur = offset;
    for (int64_t i = 0; i < numel; i++) {
        out[i] = cur;
        for (int32_t d = nd - 1; d >= 0; d--) {
            if (++pos[d] < sizes[d]) {
                cur += strides[d];
                break;
            }
            cur -= (sizes[d] - 1) * strides[d];
            pos[d] = 0;
        }
    }
    if (device.type == PT_DEV_CPU) return idx;
    pt_tensor *moved = pt_call_to_device(idx, device, PT_INT64, 0, 0, PT_MEMORY_FORMAT_PRESERVE);
    pt_tensor_release(idx);
    return moved;
}

/* storage[index[i]] += values[i] (index_put_ with accumulate: repeated indices add up). */
static pt_status put_accumulate(pt_tensor *storage, pt_tensor *index, const pt_tensor *values)
{
    pt_tensor *flat = pt_call_reshape(values, 1, &(int64_t){-1});
    if (!flat) return pt_error_code();
    pt_tensor *r = pt_call_index_put_(storage, 1, &index, flat, 1);
    pt_tensor_release(flat);
    if (!r) return pt_error_code();
    pt_tensor_release(r);
    return PT_OK;
}

pt_tensor *pt_ag_as_strided_backward(const pt_tensor *grad, int32_t in_ndim,
                                     const int64_t *in_sizes, const int64_t *in_strides,
                                     int64_t in_offset, int32_t out_ndim, const int64_t *out_sizes,
                                     const int64_t *out_strides, int64_t out_offset)
{
    const geometry in = {in_ndim, in_offset, (int64_t *)in_sizes, (int64_t *)in_strides};
    const geometry out = {out_ndim, out_offset, (int64_t *)out_sizes, (int64_t *)out_strides};
    int64_t lo, len;
    union_extent(&in, &out, &lo, &len);
    pt_tensor *storage = pt_call_zeros(1, &len, grad->dtype, PT_LAYOUT_STRIDED, &grad->device, 0);
    if (!storage) return NULL;
    pt_tensor *view = NULL, *idx = NULL, *count = NULL, *ones = NULL, *result = NULL;
    pt_status st = PT_OK;
    int64_t n_out = 1, n_in = 1;
    for (int32_t d = 0; d < out_ndim; d++) n_out *= out_sizes[d];
    for (int32_t d = 0; d < in_ndim; d++) n_in *= in_sizes[d];
    if (n_out > 0 && n_in > 0) {
        if (may_overlap(out_ndim, out_sizes, out_strides)) {
            idx = flat_indices(out_ndim, out_sizes, out_strides, out_offset - lo, n_out,
                               grad->device);
            st = idx ? put_accumulate(storage, idx, grad) : pt_error_code();
        } else {
            st = pt_tensor_as_strided(storage, out_ndim, out_sizes, out_strides, out_offset - lo,
                                      &view);
            pt_tensor *r = st == PT_OK ? pt_call_copy_(view, grad, 0) : NULL;
            if (st == PT_OK && !r) st = pt_error_code();
            pt_tensor_release(r);
        }
        if (st == PT_OK && may_overlap(in_ndim, in_sizes, in_strides)) {
            /* elements of the input that share storage share its gradient: each gets its
               storage element's sum divided by how many share it, as torch does */
            pt_tensor_release(idx);
            idx = flat_indices(in_ndim, in_sizes, in_strides, in_offset - lo, n_in, grad->device);
            count = idx ? pt_call_zeros(1, &len, grad->dtype, PT_LAYOUT_STRIDED, &grad->device, 0)
                        : NULL;
            ones = count ? pt_call_ones(1, &n_in, grad->dtype, PT_LAYOUT_STRIDED, &grad->device, 0)
                         : NULL;
            st = ones ? put_accumulate(count, idx, ones) : pt_error_code();
            pt_tensor *r = st == PT_OK ? pt_call_div__Tensor(storage, count) : NULL;
            if (st == PT_OK && !r) st = pt_error_code();
            pt_tensor_release(r);
        }
    }
    if (st == PT_OK)
        st = pt_tensor_as_strided(storage, in_ndim, in_sizes, in_strides, in_offset - lo, &result);
    pt_tensor_release(view);
    pt_tensor_release(idx);
    pt_tensor_release(count);
    pt_tensor_release(ones);
    pt_tensor_release(storage);
    if (st != PT_OK && pt_error_code() == PT_OK) PT_ERROR(st, "as_strided_backward failed");
    return st == PT_OK ? result : NULL;
}

/* The formula of the as_strided operator: the view's geometry from its arguments (the storage
 * offset defaults to the input's, as the operator's does), the input's from the input. */
pt_tensor *pt_ag_as_strided_grad(const pt_tensor *grad, const pt_tensor *self, int32_t n_size,
                                 const int64_t *size, int32_t n_stride, const int64_t *stride,
                                 const int64_t *storage_offset)
{
    if (n_size != n_stride) {
        (void)PT_ERROR(PT_ERR_RUNTIME, "as_strided_backward: %d sizes but %d strides",
                       (int)n_size, (int)n_stride);
        return NULL;
    }
    return pt_ag_as_strided_backward(grad, self->ndim, self->sizes, self->strides, self->offset,
                                     n_size, size, stride,
                                     storage_offset ? *storage_offset : self->offset);
}

pt_tensor *pt_ag_diagonal_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                   int64_t offset, int64_t dim1, int64_t dim2)
{
    pt_tensor *z = pt_call_zeros(n, sizes, grad->dtype, PT_LAYOUT_STRIDED, &grad->device, 0);
    if (!z) return NULL;
    pt_tensor *d = NULL;
    pt_status st = pt_tensor_diagonal(z, offset, dim1, dim2, &d);
    if (st == PT_OK) st = call_done(pt_call_copy_(d, grad, 0));
    pt_tensor_release(d);
    if (st == PT_OK) return z;
    pt_tensor_release(z);
    return NULL;
}

/* ---------------------------------------------------------------- AsStridedBackward0 */
/* The node a view whose history went stale gets: its gradient goes to the base's current edge
 * through as_strided_backward (PyTorch names it after the as_strided formula it stands for). */
typedef struct {
    pt_node base;
    geometry in;  /* the base */
    geometry out; /* the view */
    int32_t view_bits; /* the math bits the view has over its base's (Note [math bits]) */
} as_strided_node;

static pt_status as_strided_apply(pt_node *self, pt_tensor *const *grads, pt_tensor **outs)
{
    as_strided_node *n = (as_strided_node *)self;
    if (!grads[0] || !pt_node_needs_output(self, 0)) return PT_OK;
    /* a conjugated (negated) view passes its gradient on conjugated (negated), as _conj and
       _neg_view do */
    pt_tensor *g = grads[0], *flipped = NULL;
    if (n->view_bits & PT_MATH_BIT_CONJ) g = flipped = pt_call_conj(g);
    if (g && (n->view_bits & PT_MATH_BIT_NEG)) {
        g = pt_call_neg(g);
        pt_tensor_release(flipped);
        flipped = g;
    }
    if (!g) return pt_error_code();
    outs[0] = pt_ag_as_strided_backward(g, n->in.ndim, n->in.sizes, n->in.strides,
                                        n->in.offset, n->out.ndim, n->out.sizes, n->out.strides,
                                        n->out.offset);
    pt_tensor_release(flipped);
    return outs[0] ? PT_OK : pt_error_code();
}

static void as_strided_destroy(pt_node *self)
{
    as_strided_node *n = (as_strided_node *)self;
    geometry_free(&n->in);
    geometry_free(&n->out);
}

static pt_status as_strided_saved(pt_node *self, const char *name, pt_ivalue *out, int32_t *found)
{
    as_strided_node *n = (as_strided_node *)self;
    if (strcmp(name, "size") == 0 || strcmp(name, "stride") == 0) {
        *found = 1;
        out->tag = PT_IV_INT_LIST;
        out->len = n->out.ndim;
        out->ints = name[1] == 'i' ? n->out.sizes : n->out.strides;
    } else if (strcmp(name, "storage_offset") == 0) {
        *found = 1;
        out->tag = PT_IV_INT;
        out->i = n->out.offset;
    }
    return PT_OK;
}

static const pt_node_vtable as_strided_vt = {"AsStridedBackward0", as_strided_apply, NULL,
                                             as_strided_destroy, as_strided_saved};

static pt_status as_strided_node_new(const pt_tensor *view, const pt_tensor *base, pt_node **out)
{
    as_strided_node *n;
    PT_TRY(pt_node_new(sizeof *n, &as_strided_vt, 1, 1, (pt_node **)&n));
    pt_status st = geometry_of(base, &n->in);
    if (st == PT_OK) st = geometry_of(view, &n->out);
    n->view_bits = view->math_bits ^ base->math_bits;
    if (st == PT_OK) st = pt_gradient_edge(base, &n->base.next[0]);
    if (st != PT_OK) {
        pt_node_release(&n->base);
        return st;
    }
    *out = &n->base;
    return PT_OK;
}

/* ---------------------------------------------------------------- CopySlices */
typedef struct {
    pt_node base;
    geometry base_geom;
    geometry view_geom;
    int32_t view_bits; /* the math bits the view has over its base's (Note [math bits]) */
    pt_node *fn; /* the in-place operation's node, owned; NULL once released */
} copy_slices_node;

/* Note [CopySlices] */
static pt_status copy_slices_apply(pt_node *self, pt_tensor *const *grads, pt_tensor **outs)
{
    copy_slices_node *n = (copy_slices_node *)self;
    pt_tensor *grad = grads[0];
    if (!grad) return PT_OK;
    pt_node *fn = n->fn;
    if (!fn) return PT_ERROR(PT_ERR_RUNTIME, "%s", pt_backward_twice_message);
    int64_t lo, len;
    union_extent(&n->base_geom, &n->view_geom, &lo, &len);
    pt_tensor *buf = pt_call_zeros(1, &len, grad->dtype, PT_LAYOUT_STRIDED, &grad->device, 0);
    if (!buf) return pt_error_code();
    pt_tensor *result = NULL, *slice = NULL, *slice_grad = NULL;
    pt_tensor **fn_outs = calloc((size_t)fn->n_next, sizeof *fn_outs);
    pt_tensor **fn_grads = calloc((size_t)(fn->n_inputs > 0 ? fn->n_inputs : 1), sizeof *fn_grads);
    pt_status st = fn_outs && fn_grads ? PT_OK
                                       : PT_ERROR(PT_ERR_MEMORY, "CopySlices: out of memory");
    if (st == PT_OK)
        st = pt_tensor_as_strided(buf, n->base_geom.ndim, n->base_geom.sizes, n->base_geom.strides,
                                  n->base_geom.offset - lo, &result);
    if (st == PT_OK) st = call_done(pt_call_copy_(result, grad, 0));
    if (st == PT_OK)
        st = pt_tensor_as_strided(buf, n->view_geom.ndim, n->view_geom.sizes, n->view_geom.strides,
                                  n->view_geom.offset - lo, &slice);
    if (st == PT_OK) pt_tensor_set_math_bits(slice, n->view_bits);
    if (st == PT_OK) {
        slice_grad = pt_call_clone(slice, PT_MEMORY_FORMAT_CONTIGUOUS);
        if (!slice_grad) st = pt_error_code();
    }
    if (st == PT_OK) {
        fn_grads[0] = slice_grad;
        st = fn->vt->apply(fn, fn_grads, fn_outs);
    }
    if (st == PT_OK && pt_node_needs_output(self, 0)) {
        /* no gradient from the node for the view: the written elements do not depend on what
           the view held */
        st = call_done(fn_outs[0] ? pt_call_copy_(slice, fn_outs[0], 0) : pt_call_zero_(slice));
        if (st == PT_OK) {
            outs[0] = result;
            result = NULL;
        }
    }
    for (int32_t i = 1; st == PT_OK && i < fn->n_next && i < self->n_next; i++) {
        outs[i] = fn_outs[i];
        fn_outs[i] = NULL;
    }
    for (int32_t i = 0; fn_outs && i < fn->n_next; i++) pt_tensor_release(fn_outs[i]);
    free(fn_outs);
    free(fn_grads);
    pt_tensor_release(slice_grad);
    pt_tensor_release(slice);
    pt_tensor_release(result);
    pt_tensor_release(buf);
    return st;
}

/* What the operation's node saved goes with it, as PyTorch's CopySlices drops its fn. */
static void copy_slices_release(pt_node *self)
{
    copy_slices_node *n = (copy_slices_node *)self;
    pt_node *fn = n->fn;
    n->fn = NULL;
    pt_node_release(fn);
}

static void copy_slices_destroy(pt_node *self)
{
    copy_slices_node *n = (copy_slices_node *)self;
    copy_slices_release(self);
    geometry_free(&n->base_geom);
    geometry_free(&n->view_geom);
}

static const pt_node_vtable copy_slices_vt = {"CopySlices", copy_slices_apply, copy_slices_release,
                                              copy_slices_destroy, NULL};

/* ---------------------------------------------------------------- tracking and rebasing */
pt_status pt_view_track(const pt_tensor *t, pt_tensor *out)
{
    pt_tensor *base = t->view_base ? t->view_base : (pt_tensor *)t;
    uint8_t made = pt_inference_mode_enabled() ? PT_VIEW_INFERENCE_MODE
                   : pt_grad_mode_enabled()     ? PT_VIEW_DEFAULT
                                                : PT_VIEW_NO_GRAD_MODE;
    /* PyTorch's propagate_creation_meta: a view of a view keeps its parent's kind unless it was
       made in a mode of its own, and inference mode sticks */
    if (t->view_base && (made == PT_VIEW_DEFAULT || t->view_creation == PT_VIEW_INFERENCE_MODE))
        made = t->view_creation;
    out->is_view = true;
    out->view_creation = made;
    pt_tensor_retain(base);
    pt_tensor_release(out->view_base);
    out->view_base = base;
    if (!base->autograd) return PT_OK; /* no history to go stale: stays without metadata */
    /* Under no_grad the view has no history and keeps none until the base changes, as in
     * PyTorch. With grad on, an autograd kernel gives the view its history next; a view made
     * around the dispatcher (internal code, formulas' scratch views) gets one when it is used
     * (pt_view_refresh), so that it never silently cuts the graph. */
    pt_autograd_meta *m = pt_autograd_meta_of(out);
    if (!m) return PT_ERR_MEMORY;
    m->view_tracked = !pt_grad_mode_enabled();
    m->view_version = pt_version_value(out);
    return PT_OK;
}

/* "SplitBackward0" -> "Split", "FBackward" -> "F": how PyTorch names a node in these errors. */
static void short_name(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", name);
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] >= '0' && buf[n - 1] <= '9') n--;
    if (n >= 8 && memcmp(buf + n - 8, "Backward", 8) == 0) n -= 8;
    buf[n] = 0;
}

/* PyTorch's handle_view_on_rebase: indirect when the base or a sibling was written. */
static pt_status rebase_check(const pt_tensor *t, bool indirect)
{
    const int c = t->view_creation;
    if (c == PT_VIEW_DEFAULT) return PT_OK;
    const char *what = indirect ? "its base or another view of its base has been" : "is being";
    const pt_node *fn = t->autograd ? t->autograd->grad_fn : NULL;
    char head[256], name[128];
    if (fn) {
        short_name(fn->name, name, sizeof name);
        snprintf(head, sizeof head, "Output %d of %s is a view and %s modified inplace.",
                 (int)t->autograd->output_nr, name, what);
    } else if (c == PT_VIEW_INFERENCE_MODE) {
        snprintf(head, sizeof head,
                 "A view was created in inference mode and %s modified inplace in normal mode.",
                 what);
    } else {
        snprintf(head, sizeof head,
                 "A view was created in no_grad mode and %s modified inplace with grad mode "
                 "enabled.",
                 what);
    }
    const char *tail =
        c == PT_VIEW_MULTI_OUTPUT_NODE
            ? " This view is the output of a function that returns multiple views. Such functions "
              "do not allow the output views to be modified inplace. You should replace the "
              "inplace operation by an out-of-place one."
        : c == PT_VIEW_IN_CUSTOM_FUNCTION
            ? " This view was created inside a custom Function (or because an input was returned "
              "as-is) and the autograd logic to handle view+inplace would override the custom "
              "backward associated with the custom Function, leading to incorrect gradients. "
              "This behavior is forbidden. You can fix this by cloning the output of the custom "
              "Function."
        : c == PT_VIEW_INFERENCE_MODE
            ? " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
              "clarify your code by moving both the view and the inplace either both inside the "
              "inference_mode block (if you don't want the inplace to be tracked) or both outside "
              "(if you want the inplace to be tracked)."
            : " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
              "clarify your code by moving both the view and the inplace either both inside the "
              "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
              "want the inplace to be tracked).";
    return PT_ERROR(PT_ERR_RUNTIME, "%s%s", head, tail);
}

pt_status pt_view_check_inplace(const pt_tensor *t) { return rebase_check(t, false); }

static bool is_current(const pt_tensor *t)
{
    const pt_autograd_meta *m = t->autograd;
    if (!(m && m->grad_fn) && !pt_meta_requires_grad(t->view_base->autograd)) return true;
    return m && m->view_tracked && m->view_version == pt_version_value(t);
}

/* Regenerations are rare (a view read after a write): one lock serializes them, so that two
 * threads reading one stale view do not both replace its grad_fn; the current case takes none. */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;

static pt_status refresh_locked(pt_tensor *t)
{
    if (is_current(t)) return PT_OK;
    pt_tensor *base = t->view_base;
    PT_TRY(rebase_check(t, true));
    pt_node *fn;
    PT_TRY(as_strided_node_new(t, base, &fn));
    /* hooks and retain_grad stay with the old node, as in PyTorch (they no longer fire) */
    pt_status st = pt_set_history(t, fn, 0);
    pt_node_release(fn);
    return st;
}

pt_status pt_view_refresh(pt_tensor *t)
{
    if (!t->view_base || is_current(t)) return PT_OK;
    pthread_mutex_lock(&refresh_lock);
    pt_status st = refresh_locked(t);
    pthread_mutex_unlock(&refresh_lock);
    return st;
}

pt_status pt_rebase_history(pt_tensor *t, pt_node *fn)
{
    pt_tensor *base = t->view_base;
    if (!base) return pt_set_history(t, fn, 0);
    copy_slices_node *cs;
    PT_TRY(pt_node_new(sizeof *cs, &copy_slices_vt, fn->n_next, 1, (pt_node **)&cs));
    pt_status st = geometry_of(base, &cs->base_geom);
    if (st == PT_OK) st = geometry_of(t, &cs->view_geom);
    cs->view_bits = t->math_bits ^ base->math_bits;
    if (st == PT_OK) st = pt_gradient_edge(base, &cs->base.next[0]);
    for (int32_t i = 1; st == PT_OK && i < fn->n_next; i++) {
        cs->base.next[i] = fn->next[i];
        pt_node_retain(fn->next[i].node);
    }
    if (st == PT_OK) {
        pt_node_retain(fn);
        cs->fn = fn;
        st = pt_set_history(base, &cs->base, 0);
    }
    pt_node_release(&cs->base);
    if (st != PT_OK) return st;
    /* the view's own history now goes through the base's */
    if (t->autograd) t->autograd->view_tracked = false;
    return pt_view_refresh(t);
}
