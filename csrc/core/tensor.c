/* tensor.c - the tensor object: a strided view (sizes, strides, offset, dtype) of one storage.
 *
 * A tensor holds a reference to its storage and its own metadata; up to PT_INLINE_DIMS dimensions
 * live inside the object (one block per tensor for the common shapes, from the per-thread cache of
 * alloc_cache.c), more go to a heap block of 2 * ndim int64s. Every way of pointing a tensor at a
 * storage (from_storage, set_, as_strided) passes one extent check: the lowest and highest element
 * the strides can reach must lie inside the storage, so kernels never need to check bounds.
 * Negative strides are allowed here (flipped views, DLPack imports); the factories (empty_strided)
 * refuse them as torch does.
 *
 * Also here: the shape helpers shared with view.c and the kernels (pt_shape_check, pt_wrap_dim,
 * pt_contiguous_strides) and torch's is_contiguous rules per memory format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_cache.h"
#include "internal.h"
#include "autograd.h"

/* ---------------------------------------------------------------- formatting for messages */
const char *pt_format_ints(char *buf, size_t cap, int32_t n, const int64_t *v)
{
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (int32_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, "]");
    if (len >= cap) memcpy(buf + cap - 4, "...", 4);
    return buf;
}

enum { LIST_CHARS = 256 }; /* a few shapes per message; the error slot holds 1 KiB */

/* ---------------------------------------------------------------- shape helpers */
pt_status pt_shape_check(int32_t ndim, const int64_t *sizes, int64_t *numel)
{
    char buf[LIST_CHARS];
    if (ndim < 0 || ndim > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_VALUE, "ndim: expected 0 to %d dimensions, got %d", PT_MAX_DIMS,
                        ndim);
    /* The product of the nonzero sizes is also the largest contiguous stride, so it must fit even
     * when another size is 0 (torch checks the same). */
    int64_t n = 1, product = 1;
    bool overflow = false;
    for (int32_t d = 0; d < ndim; d++) {
        if (sizes[d] < 0)
            return PT_ERROR(PT_ERR_VALUE,
                            "size: expected a non-negative size at dim %d, got %lld (trying to "
                            "create tensor with negative dimension %lld: %s)",
                            d, (long long)sizes[d], (long long)sizes[d],
                            pt_format_ints(buf, sizeof buf, ndim, sizes));
        if (sizes[d] == 0) n = 0;
        else if (__builtin_mul_overflow(product, sizes[d], &product)) overflow = true;
    }
    if (overflow)
        return PT_ERROR(PT_ERR_RUNTIME, "size: storage size calculation overflowed with sizes=%s",
                        pt_format_ints(buf, sizeof buf, ndim, sizes));
    *numel = n ? product : 0;
    return PT_OK;
}

void pt_contiguous_strides(int32_t ndim, const int64_t *sizes, int64_t *strides)
{
    int64_t s = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= sizes[d] > 1 ? sizes[d] : 1;
    }
}

pt_status pt_broadcast_sizes(int32_t na, const int64_t *a, int32_t nb, const int64_t *b,
                             int32_t *nd, int64_t *shape)
{
    const int32_t n = na > nb ? na : nb;
    for (int32_t i = n - 1, da = na - 1, db = nb - 1; i >= 0; i--, da--, db--) {
        const int64_t sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d",
                            (long long)sa, (long long)sb, (int)i);
        shape[i] = sa == 1 ? sb : sa;
    }
    *nd = n;
    return PT_OK;
}

pt_status pt_wrap_dim(int64_t dim, int32_t ndim, int32_t *out)
{
    /* A 0-d tensor answers to dim 0 and -1 as if it had one dimension, as in torch. */
    int64_t n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n)
        return PT_ERROR(PT_ERR_INDEX,
                        "Dimension out of range (expected to be in range of [%lld, %lld], but got "
                        "%lld)",
                        (long long)-n, (long long)(n - 1), (long long)dim);
    *out = (int32_t)(dim < 0 ? dim + n : dim);
    return PT_OK;
}

/* ---------------------------------------------------------------- extent */
/* The lowest and highest element offsets (relative to the storage start) that a view reaches; only
 * meaningful for numel > 0. PT_ERR_RUNTIME when they do not fit in int64. */
static pt_status view_extent(int32_t ndim, const int64_t *sizes, const int64_t *strides,
                             int64_t offset, int64_t *lo, int64_t *hi)
{
    int64_t low = offset, high = offset;
    for (int32_t d = 0; d < ndim; d++) {
        int64_t span;
        if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &span) ||
            __builtin_add_overflow(span < 0 ? low : high, span, span < 0 ? &low : &high))
            return PT_ERROR(PT_ERR_RUNTIME,
                            "setStorage: the extent of a view with size %lld and stride %lld at "
                            "dim %d overflows int64",
                            (long long)sizes[d], (long long)strides[d], d);
    }
    *lo = low;
    *hi = high;
    return PT_OK;
}

/* The check every storage-backed view passes (Note at the top of the file). */
static pt_status check_fits(const pt_storage *s, int32_t dtype, int32_t ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset, int64_t numel)
{
    if (offset < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor: invalid storage offset %lld", (long long)offset);
    if (numel == 0) return PT_OK;
    int64_t lo = 0, hi = 0, need = 0;
    PT_TRY(view_extent(ndim, sizes, strides, offset, &lo, &hi));
    int64_t itemsize = pt_dtype_itemsize(dtype);
    bool overflow = __builtin_add_overflow(hi, 1, &need) ||
                    __builtin_mul_overflow(need, itemsize, &need);
    if (lo >= 0 && !overflow && need <= s->nbytes) return PT_OK;
    char sz[LIST_CHARS], st[LIST_CHARS];
    pt_format_ints(sz, sizeof sz, ndim, sizes);
    pt_format_ints(st, sizeof st, ndim, strides);
    if (lo < 0)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "setStorage: sizes %s, strides %s and storage offset %lld reach element "
                        "%lld, before the start of the storage",
                        sz, st, (long long)offset, (long long)lo);
    if (overflow)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "setStorage: sizes %s, strides %s, storage offset %lld and itemsize %lld "
                        "require a storage size that overflows int64",
                        sz, st, (long long)offset, (long long)itemsize);
    return PT_ERROR(PT_ERR_RUNTIME,
                    "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %lld "
                    "requiring a storage size of %lld are out of bounds for storage of size %lld",
                    sz, st, (long long)offset, (long long)itemsize, (long long)need,
                    (long long)s->nbytes);
}

/* ---------------------------------------------------------------- objects */
/* Callers may pass NULL arrays for 0-d tensors, and memcpy from NULL is undefined even for 0 bytes. */
static void copy_ints(int64_t *dst, const int64_t *src, int32_t n)
{
    if (n > 0) memcpy(dst, src, sizeof(int64_t) * (size_t)n);
}

/* A heap block for the sizes and strides of ndim dims (more than fit inline). */
static pt_status dims_alloc(int32_t ndim, int64_t **out)
{
    int64_t *p = malloc(sizeof(int64_t) * 2 * (size_t)ndim);
    if (!p) return PT_ERROR(PT_ERR_MEMORY, "tensor: out of memory for %d dimensions", ndim);
    *out = p;
    return PT_OK;
}

static void dims_free(pt_tensor *t)
{
    if (t->sizes != t->inline_dims) free(t->sizes);
}

/* The tensor object around a storage reference the caller hands over (kept by the caller on
 * failure), for sizes that passed pt_shape_check (numel). Every field is set: a cached object holds
 * its last owner's. */
static pt_status tensor_new(pt_storage *storage, int32_t dtype, int32_t ndim, const int64_t *sizes,
                            const int64_t *strides, int64_t offset, int64_t numel, pt_tensor **out)
{
    pt_tensor *t = pt_cached_object_alloc(PT_CACHED_TENSOR);
    if (!t) return PT_ERROR(PT_ERR_MEMORY, "tensor: out of memory allocating a tensor object");
    if (ndim <= PT_INLINE_DIMS) {
        t->sizes = t->inline_dims;
    } else {
        pt_status st = dims_alloc(ndim, &t->sizes);
        if (st != PT_OK) {
            pt_cached_object_free(PT_CACHED_TENSOR, t);
            return st;
        }
    }
    atomic_init(&t->refcount, 1);
    t->strides = t->sizes + ndim;
    copy_ints(t->sizes, sizes, ndim);
    if (strides)
        copy_ints(t->strides, strides, ndim);
    else
        pt_contiguous_strides(ndim, sizes, t->strides);
    t->storage = storage;
    t->offset = offset;
    t->numel = numel;
    t->ndim = ndim;
    t->dtype = dtype;
    t->layout = PT_LAYOUT_STRIDED;
    t->wrapped_number = false;
    t->device = storage->device;
    t->is_view = false;
    t->view_creation = 0;
    t->view_base = NULL;
    t->is_inference = pt_inference_mode_on;
    t->math_bits = 0;
    t->autograd = NULL;
    t->pyobj = NULL;
    atomic_init(&t->version, NULL);
    *out = t;
    return PT_OK;
}

pt_status pt_tensor_make(pt_storage *storage, int32_t dtype, int32_t ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset, pt_tensor **out)
{
    int64_t numel;
    PT_TRY(pt_shape_check(ndim, sizes, &numel));
    PT_TRY(tensor_new(storage, dtype, ndim, sizes, strides, offset, numel, out));
    pt_storage_retain(storage);
    return PT_OK;
}

/* The bytes a tensor of these sizes (and strides, when given) needs from offset 0, and its numel;
 * PT_ERR_RUNTIME naming the sizes on overflow. */
static pt_status storage_bytes(int32_t ndim, const int64_t *sizes, const int64_t *strides,
                               int32_t dtype, int64_t *out, int64_t *numel)
{
    PT_TRY(pt_shape_check(ndim, sizes, numel));
    int64_t elems = *numel;
    if (strides && *numel > 0) {
        int64_t lo = 0, hi = 0;
        PT_TRY(view_extent(ndim, sizes, strides, 0, &lo, &hi));
        elems = hi + 1;
    }
    if (__builtin_mul_overflow(elems, (int64_t)pt_dtype_itemsize(dtype), out)) {
        char buf[LIST_CHARS];
        return PT_ERROR(PT_ERR_RUNTIME, "size: storage size calculation overflowed with sizes=%s",
                        pt_format_ints(buf, sizeof buf, ndim, sizes));
    }
    return PT_OK;
}

static pt_status empty_impl(int32_t ndim, const int64_t *sizes, const int64_t *strides,
                            int32_t dtype, pt_device device, pt_tensor **out)
{
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    int64_t nbytes, numel;
    PT_TRY(storage_bytes(ndim, sizes, strides, dtype, &nbytes, &numel));
    pt_storage *s;
    PT_TRY(pt_storage_new(nbytes, dtype, device, 1, &s));
    /* The new storage's only reference goes to the tensor: no retain and release around it. */
    pt_status st = tensor_new(s, dtype, ndim, sizes, strides, 0, numel, out);
    if (st != PT_OK) pt_storage_release(s);
    return st;
}

pt_status pt_tensor_empty(int32_t ndim, const int64_t *sizes, int32_t dtype, pt_device device,
                          pt_tensor **out)
{
    return empty_impl(ndim, sizes, NULL, dtype, device, out);
}

pt_status pt_tensor_empty_strided(int32_t ndim, const int64_t *sizes, const int64_t *strides,
                                  int32_t dtype, pt_device device, pt_tensor **out)
{
    PT_TRY(pt_shape_check(ndim, sizes, &(int64_t){0}));
    for (int32_t d = 0; d < ndim; d++) {
        if (strides[d] < 0) {
            char buf[LIST_CHARS];
            return PT_ERROR(PT_ERR_RUNTIME,
                            "empty_strided: negative strides are not supported, got strides %s",
                            pt_format_ints(buf, sizeof buf, ndim, strides));
        }
    }
    return empty_impl(ndim, sizes, strides, dtype, device, out);
}

pt_status pt_tensor_from_storage(pt_storage *s, int32_t dtype, int32_t ndim, const int64_t *sizes,
                                 const int64_t *strides, int64_t offset, pt_tensor **out)
{
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    int64_t numel, contiguous[PT_MAX_DIMS];
    PT_TRY(pt_shape_check(ndim, sizes, &numel));
    if (!strides) {
        pt_contiguous_strides(ndim, sizes, contiguous);
        strides = contiguous;
    }
    PT_TRY(check_fits(s, dtype, ndim, sizes, strides, offset, numel));
    return pt_tensor_make(s, dtype, ndim, sizes, strides, offset, out);
}

pt_status pt_tensor_shallow_copy_from(pt_tensor *dst, const pt_tensor *src)
{
    if (dst == src) return PT_OK;
    int64_t *sizes = dst->inline_dims;
    if (src->ndim > PT_INLINE_DIMS) PT_TRY(dims_alloc(src->ndim, &sizes));
    dims_free(dst);
    dst->sizes = sizes;
    dst->strides = sizes + src->ndim;
    copy_ints(dst->sizes, src->sizes, src->ndim);
    copy_ints(dst->strides, src->strides, src->ndim);
    pt_storage_retain(src->storage);
    pt_storage_release(dst->storage);
    dst->storage = src->storage;
    dst->offset = src->offset;
    dst->numel = src->numel;
    dst->ndim = src->ndim;
    dst->dtype = src->dtype;
    dst->layout = src->layout;
    dst->device = src->device;
    dst->math_bits = src->math_bits;
    return PT_OK;
}

void pt_tensor_retain(pt_tensor *t) { atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed); }

void pt_tensor_release(pt_tensor *t)
{
    if (!t || !pt_refcount_drop(&t->refcount)) return;
    if (t->autograd || atomic_load_explicit(&t->version, memory_order_relaxed))
        pt_autograd_tensor_free(t);
    if (t->view_base) pt_tensor_release(t->view_base); /* a root base: no deeper recursion */
    pt_storage_release(t->storage);
    dims_free(t);
    pt_cached_object_free(PT_CACHED_TENSOR, t);
}

size_t pt_tensor_pyobj_offset(void) { return offsetof(pt_tensor, pyobj); }

int64_t pt_tensor_refcount(const pt_tensor *t)
{
    return atomic_load_explicit(&((pt_tensor *)t)->refcount, memory_order_relaxed);
}
int32_t pt_tensor_ndim(const pt_tensor *t) { return t->ndim; }
const int64_t *pt_tensor_sizes(const pt_tensor *t) { return t->sizes; }
const int64_t *pt_tensor_strides(const pt_tensor *t) { return t->strides; }
int64_t pt_tensor_offset(const pt_tensor *t) { return t->offset; }
int64_t pt_tensor_numel(const pt_tensor *t) { return t->numel; }
int32_t pt_tensor_dtype(const pt_tensor *t) { return t->dtype; }
pt_device pt_tensor_device(const pt_tensor *t) { return t->device; }
int32_t pt_tensor_layout(const pt_tensor *t) { return t->layout; }
pt_storage *pt_tensor_storage(const pt_tensor *t) { return t->storage; }
void pt_tensor_set_wrapped_number(pt_tensor *t, int32_t wrapped) { t->wrapped_number = wrapped != 0; }
int32_t pt_tensor_is_wrapped_number(const pt_tensor *t) { return t->wrapped_number; }

int32_t pt_tensor_math_bits(const pt_tensor *t) { return t ? t->math_bits : 0; }

void pt_tensor_set_math_bits(pt_tensor *t, int32_t bits)
{
    t->math_bits = (uint8_t)(bits & (PT_MATH_BIT_CONJ | PT_MATH_BIT_NEG));
}

void *pt_tensor_data(const pt_tensor *t)
{
    char *base = t->storage->data;
    if (!base) return NULL;
    return base + t->offset * pt_dtype_itemsize(t->dtype);
}

/* ---------------------------------------------------------------- contiguity */
/* torch's rule: walking `order` from the fastest dim, each dim of size != 1 must have the stride
 * the dims before it span; size-1 dims may have any stride. */
static bool dense_in_order(const pt_tensor *t, const int *order)
{
    int64_t expected = 1;
    for (int32_t i = 0; i < t->ndim; i++) {
        int d = order[i];
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d];
    }
    return true;
}

int32_t pt_tensor_is_contiguous(const pt_tensor *t, int32_t memory_format)
{
    static const int nhwc[4] = {1, 3, 2, 0};
    static const int ndhwc[5] = {1, 4, 3, 2, 0};
    switch (memory_format) {
    case PT_MEMORY_FORMAT_CONTIGUOUS:
    case PT_MEMORY_FORMAT_PRESERVE: {
        if (t->numel == 0) return 1;
        int order[PT_MAX_DIMS];
        for (int32_t i = 0; i < t->ndim; i++) order[i] = t->ndim - 1 - i;
        return dense_in_order(t, order);
    }
    case PT_MEMORY_FORMAT_CHANNELS_LAST:
        return t->ndim == 4 && dense_in_order(t, nhwc);
    case PT_MEMORY_FORMAT_CHANNELS_LAST_3D:
        return t->ndim == 5 && dense_in_order(t, ndhwc);
    default:
        return 0;
    }
}

bool pt_strides_non_overlapping_and_dense(int32_t ndim, const int64_t *sizes,
                                          const int64_t *strides)
{
    int32_t perm[PT_MAX_DIMS], n = 0;
    for (int32_t d = 0; d < ndim; d++) {
        if (sizes[d] == 0) return true;
        if (sizes[d] > 1) perm[n++] = d;
    }
    for (int32_t i = 1; i < n; i++) /* insertion sort by stride: n is at most PT_MAX_DIMS */
        for (int32_t j = i; j > 0 && strides[perm[j]] < strides[perm[j - 1]]; j--) {
            int32_t tmp = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = tmp;
        }
    int64_t expected = 1;
    for (int32_t i = 0; i < n; i++) {
        if (strides[perm[i]] != expected) return false;
        expected *= sizes[perm[i]];
    }
    return true;
}

/* ---------------------------------------------------------------- in-place metadata */
/* Replaces t's metadata; sizes/strides may point into t itself, so they are copied before the
 * old block goes. */
static pt_status replace_dims(pt_tensor *t, int32_t ndim, const int64_t *sizes,
                              const int64_t *strides, int64_t numel)
{
    int64_t tmp[2 * PT_MAX_DIMS];
    copy_ints(tmp, sizes, ndim);
    copy_ints(tmp + ndim, strides, ndim);
    int64_t *block = t->inline_dims;
    if (ndim > PT_INLINE_DIMS) {
        if (t->sizes != t->inline_dims && t->ndim >= ndim)
            block = t->sizes;
        else
            PT_TRY(dims_alloc(ndim, &block));
    }
    if (block != t->sizes) dims_free(t);
    t->sizes = block;
    t->strides = block + ndim;
    copy_ints(block, tmp, 2 * ndim);
    t->ndim = ndim;
    t->numel = numel;
    return PT_OK;
}

pt_status pt_tensor_set_(pt_tensor *t, pt_storage *s, int64_t offset, int32_t ndim,
                         const int64_t *sizes, const int64_t *strides)
{
    int64_t numel, contiguous[PT_MAX_DIMS];
    PT_TRY(pt_shape_check(ndim, sizes, &numel));
    if (!strides) {
        pt_contiguous_strides(ndim, sizes, contiguous);
        strides = contiguous;
    }
    PT_TRY(check_fits(s, t->dtype, ndim, sizes, strides, offset, numel));
    PT_TRY(replace_dims(t, ndim, sizes, strides, numel));
    if (s != t->storage) {
        pt_storage_retain(s);
        pt_storage_release(t->storage);
        t->storage = s;
        t->device = s->device;
    }
    t->offset = offset;
    return PT_OK;
}

pt_status pt_tensor_resize_(pt_tensor *t, int32_t ndim, const int64_t *sizes)
{
    int64_t numel, strides[PT_MAX_DIMS], need;
    PT_TRY(pt_shape_check(ndim, sizes, &numel));
    /* torch keeps the strides when the sizes do not change. */
    bool same = ndim == t->ndim &&
                (ndim == 0 || memcmp(sizes, t->sizes, sizeof(int64_t) * (size_t)ndim) == 0);
    if (same)
        memcpy(strides, t->strides, sizeof(int64_t) * (size_t)ndim);
    else
        pt_contiguous_strides(ndim, sizes, strides);
    if (numel > 0) {
        int64_t lo = 0, hi = 0;
        PT_TRY(view_extent(ndim, sizes, strides, t->offset, &lo, &hi));
        if (__builtin_add_overflow(hi, 1, &need) ||
            __builtin_mul_overflow(need, (int64_t)pt_dtype_itemsize(t->dtype), &need)) {
            char buf[LIST_CHARS];
            return PT_ERROR(PT_ERR_RUNTIME,
                            "resize_: storage size calculation overflowed with sizes=%s",
                            pt_format_ints(buf, sizeof buf, ndim, sizes));
        }
        if (need > t->storage->nbytes) PT_TRY(pt_storage_resize(t->storage, need));
    }
    return replace_dims(t, ndim, sizes, strides, numel);
}
