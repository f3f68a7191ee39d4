/* view.c - views: new tensor objects over the same storage with other sizes, strides and offset.
 *
 * Every function here computes new metadata from the input's and hands it to pt_tensor_make, which
 * takes a new reference to the storage; no bytes move, except in reshape when the strides cannot
 * express the new shape (then it copies, as torch's reshape does). The metadata rules and the error
 * texts follow torch's (aten/src/ATen/native/TensorShape.cpp), so that messages users search for
 * match. Views derived from a valid tensor stay inside its storage by construction; as_strided,
 * which takes arbitrary strides, goes through pt_tensor_from_storage's extent check instead.
 * Unlike torch, negative strides are allowed (flip_view makes them; DLPack imports carry them).
 */
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "internal.h"

enum { LIST_CHARS = 256 }; /* a few shapes per message; the error slot holds 1 KiB */

/* A view shares its base's version counter (Note [version counters]) and its math bits, and
 * records its root base and how it was made (Note [view tracking] in csrc/autograd/autograd.h). */
static pt_status share_version(const pt_tensor *t, pt_tensor **out)
{
    (*out)->math_bits = t->math_bits; /* a view reads its base's values: Note [math bits] */
    pt_status st = pt_version_share(t, *out);
    if (st == PT_OK) st = pt_view_track(t, *out);
    if (st != PT_OK) {
        pt_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

static pt_status make_view(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                           const int64_t *strides, int64_t offset, pt_tensor **out)
{
    PT_TRY(pt_tensor_make(t->storage, t->dtype, ndim, sizes, strides, offset, out));
    return share_version(t, out);
}

static pt_status check_ndim(int32_t ndim, const char *what)
{
    if (ndim < 0 || ndim > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_VALUE, "%s: expected 0 to %d dimensions, got %d", what, PT_MAX_DIMS,
                        ndim);
    return PT_OK;
}

/* base + index * stride, or PT_ERR_RUNTIME when a hand-made (as_strided) view with a huge stride
 * would overflow it. */
static pt_status offset_add(int64_t base, int64_t index, int64_t stride, int64_t *out)
{
    int64_t step;
    if (__builtin_mul_overflow(index, stride, &step) || __builtin_add_overflow(base, step, out))
        return PT_ERROR(PT_ERR_RUNTIME, "view: storage offset %lld + %lld * %lld overflows int64",
                        (long long)base, (long long)index, (long long)stride);
    return PT_OK;
}

/* stride * step as torch computes it; when that overflows (a huge step on a hand-made view) a dim
 * of at most one element never steps, so its stride may stay as it was. */
static pt_status scaled_stride(int64_t stride, int64_t step, int64_t size, int64_t *out)
{
    if (!__builtin_mul_overflow(stride, step, out)) return PT_OK;
    if (size <= 1) {
        *out = stride;
        return PT_OK;
    }
    return PT_ERROR(PT_ERR_RUNTIME, "view: stride %lld * step %lld overflows int64",
                    (long long)stride, (long long)step);
}

pt_status pt_tensor_as_strided(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                               const int64_t *strides, int64_t offset, pt_tensor **out)
{
    PT_TRY(pt_tensor_from_storage(t->storage, t->dtype, ndim, sizes, strides, offset, out));
    return share_version(t, out);
}

/* A view that reads the same bytes as another dtype (view_as_real, view_as_complex): sizes,
 * strides and offset are in elements of `dtype`; the caller has checked that they stay inside t's
 * storage, which pt_tensor_from_storage checks again. */
pt_status pt_tensor_view_dtype(const pt_tensor *t, int32_t dtype, int32_t ndim,
                               const int64_t *sizes, const int64_t *strides, int64_t offset,
                               pt_tensor **out)
{
    PT_TRY(pt_tensor_from_storage(t->storage, dtype, ndim, sizes, strides, offset, out));
    return share_version(t, out);
}

/* ---------------------------------------------------------------- view / reshape */
/* torch's infer_size: fills the one -1 of `shape` so that the product is numel. */
static pt_status infer_size(int32_t ndim, const int64_t *shape, int64_t numel, int64_t *out)
{
    char buf[LIST_CHARS];
    int32_t infer = -1;
    int64_t product = 1;
    bool overflow = false;
    for (int32_t d = 0; d < ndim; d++) {
        out[d] = shape[d];
        if (shape[d] == -1) {
            if (infer >= 0) return PT_ERROR(PT_ERR_RUNTIME, "only one dimension can be inferred");
            infer = d;
        } else if (shape[d] < 0) {
            return PT_ERROR(PT_ERR_RUNTIME, "invalid shape dimension %lld at index %d of shape %s",
                            (long long)shape[d], d, pt_format_ints(buf, sizeof buf, ndim, shape));
        } else if (__builtin_mul_overflow(product, shape[d], &product)) {
            overflow = true;
        }
    }
    if (!overflow && (numel == product || (infer >= 0 && product > 0 && numel % product == 0))) {
        if (infer < 0) return PT_OK;
        if (product == 0)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "cannot reshape tensor of 0 elements into shape %s because the "
                            "unspecified dimension size -1 can be any value and is ambiguous",
                            pt_format_ints(buf, sizeof buf, ndim, shape));
        out[infer] = numel / product;
        return PT_OK;
    }
    return PT_ERROR(PT_ERR_RUNTIME, "shape '%s' is invalid for input of size %lld",
                    pt_format_ints(buf, sizeof buf, ndim, shape), (long long)numel);
}

/* torch's computeStride: the strides that let `shape` view the input without copying, or false.
 * The input is cut into chunks of dims that are contiguous with each other; each chunk's elements
 * must be covered exactly by consecutive dims of the new shape. */
static bool compute_stride(const pt_tensor *t, int32_t ndim, const int64_t *shape, int64_t *stride)
{
    const int64_t *os = t->sizes, *ost = t->strides;
    int32_t on = t->ndim;
    if (on == 0) {
        for (int32_t d = 0; d < ndim; d++) stride[d] = 1;
        return true;
    }
    if (t->numel == 0) {
        bool same = on == ndim && memcmp(os, shape, sizeof(int64_t) * (size_t)ndim) == 0;
        if (same)
            memcpy(stride, ost, sizeof(int64_t) * (size_t)ndim);
        else
            pt_contiguous_strides(ndim, shape, stride);
        return true;
    }
    /* Products of sizes and strides only overflow for hand-made views over huge meta storages;
     * such a view is simply not expressible. */
    int32_t view_d = ndim - 1;
    int64_t chunk_base_stride = ost[on - 1], tensor_numel = 1, view_numel = 1, span;
    for (int32_t tensor_d = on - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= os[tensor_d];
        bool chunk_ends =
            tensor_d == 0 ||
            (os[tensor_d - 1] != 1 &&
             (__builtin_mul_overflow(tensor_numel, chunk_base_stride, &span) ||
              ost[tensor_d - 1] != span));
        if (!chunk_ends) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
            if (__builtin_mul_overflow(view_numel, chunk_base_stride, &stride[view_d]))
                return false;
            view_numel *= shape[view_d];
            view_d--;
        }
        if (view_numel != tensor_numel) return false;
        if (tensor_d > 0) {
            chunk_base_stride = ost[tensor_d - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    return view_d == -1;
}

pt_status pt_tensor_view(const pt_tensor *t, int32_t ndim, const int64_t *sizes, pt_tensor **out)
{
    int64_t shape[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    PT_TRY(check_ndim(ndim, "view"));
    PT_TRY(infer_size(ndim, sizes, t->numel, shape));
    if (!compute_stride(t, ndim, shape, strides))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "view size is not compatible with input tensor's size and stride (at least "
                        "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                        "instead.");
    return make_view(t, ndim, shape, strides, t->offset, out);
}

pt_status pt_tensor_reshape_is_view(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                                    bool *is_view)
{
    int64_t shape[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    PT_TRY(check_ndim(ndim, "reshape"));
    PT_TRY(infer_size(ndim, sizes, t->numel, shape));
    *is_view = compute_stride(t, ndim, shape, strides);
    return PT_OK;
}

pt_status pt_tensor_reshape(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                            pt_tensor **out)
{
    int64_t shape[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    PT_TRY(check_ndim(ndim, "reshape"));
    PT_TRY(infer_size(ndim, sizes, t->numel, shape));
    if (compute_stride(t, ndim, shape, strides))
        return make_view(t, ndim, shape, strides, t->offset, out);
    /* a copy is no view of anything (torch's _unsafe_view of a clone) */
    pt_tensor *copy;
    PT_TRY(pt_tensor_clone(t, PT_MEMORY_FORMAT_CONTIGUOUS, &copy));
    pt_status st = pt_tensor_make(copy->storage, copy->dtype, ndim, shape, NULL, copy->offset, out);
    pt_tensor_release(copy);
    return st;
}

pt_status pt_tensor_flatten(const pt_tensor *t, int64_t start_dim, int64_t end_dim,
                            pt_tensor **out)
{
    int32_t start, end;
    PT_TRY(pt_wrap_dim(start_dim, t->ndim, &start));
    PT_TRY(pt_wrap_dim(end_dim, t->ndim, &end));
    if (start > end)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "flatten() has invalid args: start_dim cannot come after end_dim");
    if (t->ndim == 0) return pt_tensor_reshape(t, 1, (const int64_t[]){1}, out);
    if (start == end) return make_view(t, t->ndim, t->sizes, t->strides, t->offset, out);
    int64_t shape[PT_MAX_DIMS];
    int32_t n = 0;
    for (int32_t d = 0; d < start; d++) shape[n++] = t->sizes[d];
    /* Sizes already passed pt_shape_check, so any product of them fits in int64. */
    int64_t flat = 1;
    for (int32_t d = start; d <= end; d++) flat *= t->sizes[d];
    shape[n++] = flat;
    for (int32_t d = end + 1; d < t->ndim; d++) shape[n++] = t->sizes[d];
    return pt_tensor_reshape(t, n, shape, out);
}

/* ---------------------------------------------------------------- reordering dims */
pt_status pt_tensor_transpose(const pt_tensor *t, int64_t dim0, int64_t dim1, pt_tensor **out)
{
    int32_t a, b;
    PT_TRY(pt_wrap_dim(dim0, t->ndim, &a));
    PT_TRY(pt_wrap_dim(dim1, t->ndim, &b));
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    if (t->ndim > 0) {
        sizes[a] = t->sizes[b];
        sizes[b] = t->sizes[a];
        strides[a] = t->strides[b];
        strides[b] = t->strides[a];
    }
    return make_view(t, t->ndim, sizes, strides, t->offset, out);
}

pt_status pt_tensor_permute(const pt_tensor *t, int32_t ndim, const int64_t *dims, pt_tensor **out)
{
    if (ndim != t->ndim)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "permute(): number of dimensions in the tensor input does not match the "
                        "length of the desired ordering of dimensions i.e. input.dim() = %d is not "
                        "equal to len(dims) = %d",
                        t->ndim, ndim);
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    bool seen[PT_MAX_DIMS] = {false};
    for (int32_t i = 0; i < ndim; i++) {
        int32_t d;
        PT_TRY(pt_wrap_dim(dims[i], t->ndim, &d));
        if (seen[d]) return PT_ERROR(PT_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return make_view(t, ndim, sizes, strides, t->offset, out);
}

/* ---------------------------------------------------------------- adding and removing dims */
/* torch's inferExpandGeometry, walking the target sizes from the last dim. */
pt_status pt_tensor_expand(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                           pt_tensor **out)
{
    char want[LIST_CHARS], have[LIST_CHARS];
    PT_TRY(check_ndim(ndim, "expand"));
    if (ndim < t->ndim) {
        const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
        return PT_ERROR(PT_ERR_RUNTIME,
                        "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater "
                        "or equal to the number of dimensions in the tensor (%d)",
                        info ? info->name : "tensor",
                        pt_format_ints(have, sizeof have, t->ndim, t->sizes),
                        pt_format_ints(want, sizeof want, ndim, sizes), ndim, t->ndim);
    }
    int64_t new_sizes[PT_MAX_DIMS], new_strides[PT_MAX_DIMS];
    for (int32_t i = ndim - 1; i >= 0; i--) {
        int32_t dim = t->ndim - ndim + i;
        int64_t size = dim >= 0 ? t->sizes[dim] : 1;
        /* A new leading dim steps over everything after it (torch's choice; its stride only
         * matters when it is broadcast to 0 below). */
        int64_t stride = 1;
        if (dim >= 0)
            stride = t->strides[dim];
        else if (i < ndim - 1 && __builtin_mul_overflow(new_sizes[i + 1], new_strides[i + 1], &stride))
            stride = 1;
        int64_t target = sizes[i];
        if (target == -1) {
            if (dim < 0)
                return PT_ERROR(PT_ERR_RUNTIME,
                                "The expanded size of the tensor (-1) isn't allowed in a leading, "
                                "non-existing dimension %d",
                                i);
            target = size;
        }
        if (size != target) {
            if (size != 1 || target < 0)
                return PT_ERROR(PT_ERR_RUNTIME,
                                "The expanded size of the tensor (%lld) must match the existing "
                                "size (%lld) at non-singleton dimension %d.  Target sizes: %s.  "
                                "Tensor sizes: %s",
                                (long long)target, (long long)size, i,
                                pt_format_ints(want, sizeof want, ndim, sizes),
                                pt_format_ints(have, sizeof have, t->ndim, t->sizes));
            size = target;
            stride = 0;
        }
        new_sizes[i] = size;
        new_strides[i] = stride;
    }
    return make_view(t, ndim, new_sizes, new_strides, t->offset, out);
}

pt_status pt_tensor_squeeze(const pt_tensor *t, int32_t ndims, const int64_t *dims,
                            pt_tensor **out)
{
    if (ndims < 0)
        return PT_ERROR(PT_ERR_VALUE, "squeeze: expected a non-negative number of dims, got %d",
                        ndims);
    bool listed[PT_MAX_DIMS] = {false};
    for (int32_t i = 0; i < ndims; i++) {
        int32_t d;
        PT_TRY(pt_wrap_dim(dims[i], t->ndim, &d));
        if (listed[d])
            return PT_ERROR(PT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d);
        listed[d] = true;
    }
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    int32_t n = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 1 && (ndims == 0 || listed[d])) continue;
        sizes[n] = t->sizes[d];
        strides[n++] = t->strides[d];
    }
    return make_view(t, n, sizes, strides, t->offset, out);
}

pt_status pt_tensor_unsqueeze(const pt_tensor *t, int64_t dim, pt_tensor **out)
{
    PT_TRY(check_ndim(t->ndim + 1, "unsqueeze"));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, t->ndim + 1, &d));
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    /* The new dim's stride is what stepping over the dim it precedes would take (1 at the end);
     * it is never used for indexing, so an overflow in a hand-made view just falls back to 1. */
    int64_t stride = 1;
    if (d < t->ndim && __builtin_mul_overflow(t->sizes[d], t->strides[d], &stride)) stride = 1;
    for (int32_t i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = stride;
        } else {
            sizes[i] = t->sizes[j];
            strides[i] = t->strides[j++];
        }
    }
    return make_view(t, t->ndim + 1, sizes, strides, t->offset, out);
}

/* ---------------------------------------------------------------- ranges along one dim */
pt_status pt_tensor_slice(const pt_tensor *t, int64_t dim, int64_t start, int64_t end,
                          int64_t step, pt_tensor **out)
{
    if (t->ndim == 0)
        return PT_ERROR(PT_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
    if (step <= 0) return PT_ERROR(PT_ERR_RUNTIME, "slice step must be positive");
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, t->ndim, &d));
    int64_t size = t->sizes[d];
    /* Python's rules: negative bounds count from the end, then both clamp into [0, size]. */
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = start < 0 ? 0 : start > size ? size : start;
    end = end < start ? start : end > size ? size : end;
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS], offset = 0;
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    sizes[d] = end > start ? (end - start - 1) / step + 1 : 0;
    PT_TRY(offset_add(t->offset, start, t->strides[d], &offset));
    PT_TRY(scaled_stride(t->strides[d], step, sizes[d], &strides[d]));
    return make_view(t, t->ndim, sizes, strides, offset, out);
}

pt_status pt_tensor_narrow(const pt_tensor *t, int64_t dim, int64_t start, int64_t length,
                           pt_tensor **out)
{
    if (t->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
    if (length < 0) return PT_ERROR(PT_ERR_RUNTIME, "narrow(): length must be non-negative.");
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, t->ndim, &d));
    int64_t size = t->sizes[d];
    if (start < -size || start > size)
        return PT_ERROR(PT_ERR_INDEX,
                        "start out of range (expected to be in range of [%lld, %lld], but got "
                        "%lld)",
                        (long long)-size, (long long)size, (long long)start);
    if (start < 0) start += size;
    if (start > size - length)
        return PT_ERROR(PT_ERR_RUNTIME, "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                        (long long)start, (long long)length, (long long)size);
    return pt_tensor_slice(t, d, start, start + length, 1, out);
}

pt_status pt_tensor_select(const pt_tensor *t, int64_t dim, int64_t index, pt_tensor **out)
{
    if (t->ndim == 0)
        return PT_ERROR(PT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, t->ndim, &d));
    int64_t size = t->sizes[d];
    if (index < -size || index >= size)
        return PT_ERROR(PT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                        (long long)index, d, (long long)size);
    if (index < 0) index += size;
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS], offset = 0;
    PT_TRY(offset_add(t->offset, index, t->strides[d], &offset));
    for (int32_t i = 0, j = 0; i < t->ndim; i++) {
        if (i == d) continue;
        sizes[j] = t->sizes[i];
        strides[j++] = t->strides[i];
    }
    return make_view(t, t->ndim - 1, sizes, strides, offset, out);
}

/* torch's diagonal: dims dim1 and dim2 go, a last dim walks their diagonal (offset > 0: above
 * it, in dim2's direction). */
pt_status pt_tensor_diagonal(const pt_tensor *t, int64_t offset, int64_t dim1, int64_t dim2,
                             pt_tensor **out)
{
    int32_t a, b;
    PT_TRY(pt_wrap_dim(dim1, t->ndim, &a));
    PT_TRY(pt_wrap_dim(dim2, t->ndim, &b));
    if (a == b)
        return PT_ERROR(PT_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld",
                        (long long)dim1, (long long)dim2);
    int64_t n;
    if (offset >= 0)
        n = t->sizes[b] - offset < t->sizes[a] ? t->sizes[b] - offset : t->sizes[a];
    else
        n = t->sizes[a] + offset < t->sizes[b] ? t->sizes[a] + offset : t->sizes[b];
    if (n < 0) n = 0;
    int64_t start = t->offset;
    if (n > 0)
        PT_TRY(offset_add(t->offset, offset >= 0 ? offset : -offset,
                          offset >= 0 ? t->strides[b] : t->strides[a], &start));
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    int32_t k = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        if (d == a || d == b) continue;
        sizes[k] = t->sizes[d];
        strides[k++] = t->strides[d];
    }
    sizes[k] = n;
    if (__builtin_add_overflow(t->strides[a], t->strides[b], &strides[k]))
        return PT_ERROR(PT_ERR_RUNTIME, "diagonal: stride %lld + %lld overflows int64",
                        (long long)t->strides[a], (long long)t->strides[b]);
    return make_view(t, k + 1, sizes, strides, start, out);
}

/* torch's unfold: dim d becomes the number of windows and a new last dim walks one window. */
pt_status pt_tensor_unfold(const pt_tensor *t, int64_t dim, int64_t size, int64_t step,
                           pt_tensor **out)
{
    PT_TRY(check_ndim(t->ndim + 1, "unfold"));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, t->ndim, &d));
    int64_t max_size = t->ndim == 0 ? 1 : t->sizes[d];
    if (size > max_size)
        return PT_ERROR(PT_ERR_RUNTIME, "maximum size for tensor at dimension %d is %lld but size is %lld",
                        d, (long long)max_size, (long long)size);
    if (size < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "size is %lld but must be >= 0", (long long)size);
    if (step <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "step is %lld but must be > 0", (long long)step);
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    int32_t n = t->ndim;
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)n);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)n);
    sizes[n] = size;
    strides[n] = n == 0 ? 1 : t->strides[d];
    if (n > 0) {
        sizes[d] = (t->sizes[d] - size) / step + 1;
        PT_TRY(scaled_stride(t->strides[d], step, sizes[d], &strides[d]));
    }
    return make_view(t, n + 1, sizes, strides, t->offset, out);
}

pt_status pt_tensor_flip_view(const pt_tensor *t, int64_t dim, pt_tensor **out)
{
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, t->ndim, &d));
    if (t->ndim == 0) return make_view(t, 0, t->sizes, t->strides, t->offset, out);
    int64_t strides[PT_MAX_DIMS], offset = t->offset;
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    if (t->sizes[d] > 1) PT_TRY(offset_add(t->offset, t->sizes[d] - 1, t->strides[d], &offset));
    if (t->strides[d] == INT64_MIN)
        return PT_ERROR(PT_ERR_RUNTIME, "flip_view: stride %lld cannot be negated",
                        (long long)t->strides[d]);
    strides[d] = -t->strides[d];
    return make_view(t, t->ndim, t->sizes, strides, offset, out);
}
