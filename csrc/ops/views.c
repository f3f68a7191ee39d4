/* views.c - the view operators whose schemas the core's view functions (csrc/core/view.c) do not
 * match as they are: t, expand (the `implicit` flag), the three squeezes, slice with optional
 * bounds and as_strided with an optional offset. Views only touch metadata, so they serve every
 * backend (CompositeExplicitAutograd); the others (view, reshape, permute, ...) are registered as
 * the core functions themselves. Under autograd, reshape is torch's composite of view and
 * _unsafe_view, and flatten a reshape, so that they record the nodes torch records.
 */
#include "native.h"

pt_status pt_native_t(const pt_tensor *self, pt_tensor **ret)
{
    if (self->ndim > 2)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "t() expects a tensor with <= 2 dimensions, but self is %dD",
                        (int)self->ndim);
    if (self->ndim < 2) return pt_native_alias(self, ret);
    return pt_tensor_transpose(self, 0, 1, ret);
}

pt_status pt_native_expand(const pt_tensor *self, int32_t size_len, const int64_t *size,
                           int32_t implicit, pt_tensor **ret)
{
    PT_UNUSED(implicit); /* only autograd tells implicit expansions apart */
    return pt_tensor_expand(self, size_len, size, ret);
}

pt_status pt_native_squeeze(const pt_tensor *self, pt_tensor **ret)
{
    return pt_tensor_squeeze(self, 0, NULL, ret);
}

pt_status pt_native_squeeze_dim(const pt_tensor *self, int64_t dim, pt_tensor **ret)
{
    return pt_tensor_squeeze(self, 1, &dim, ret);
}

pt_status pt_native_squeeze_dims(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                 pt_tensor **ret)
{
    /* an empty list squeezes nothing (the core reads 0 dims as "all of them") */
    if (dim_len == 0) return pt_native_alias(self, ret);
    return pt_tensor_squeeze(self, dim_len, dim, ret);
}

pt_status pt_native_slice_Tensor(const pt_tensor *self, int64_t dim, const int64_t *start,
                                 const int64_t *end, int64_t step, pt_tensor **ret)
{
    return pt_tensor_slice(self, dim, start ? *start : 0, end ? *end : INT64_MAX, step, ret);
}

/* torch's narrow_tensor: the start as a 0-dim integer tensor (not bool). */
pt_status pt_native_narrow_Tensor(const pt_tensor *self, int64_t dim, const pt_tensor *start,
                                  int64_t length, pt_tensor **ret)
{
    bool integral = start->dtype == PT_UINT8 || start->dtype == PT_INT8 ||
                    start->dtype == PT_INT16 || start->dtype == PT_INT32 ||
                    start->dtype == PT_INT64;
    if (start->ndim != 0 || !integral)
        return PT_ERROR(PT_ERR_RUNTIME, "start must be an 0-dim integral Tensor.");
    pt_scalar s;
    PT_TRY(pt_tensor_item(start, &s));
    return pt_tensor_narrow(self, dim, s.i, length, ret);
}

pt_status pt_native_as_strided(const pt_tensor *self, int32_t size_len, const int64_t *size,
                               int32_t stride_len, const int64_t *stride,
                               const int64_t *storage_offset, pt_tensor **ret)
{
    if (size_len != stride_len)
        return PT_ERROR(PT_ERR_RUNTIME, "mismatch in length of strides and shape");
    return pt_tensor_as_strided(self, size_len, size, stride,
                                storage_offset ? *storage_offset : self->offset, ret);
}

/* The view of a tensor nobody else holds (reshape's clone): not marked a view, so autograd
 * treats it as the fresh tensor it is, as torch's _unsafe_view. */
pt_status pt_native__unsafe_view(const pt_tensor *self, int32_t size_len, const int64_t *size,
                                 pt_tensor **ret)
{
    PT_TRY(pt_tensor_view(self, size_len, size, ret));
    (*ret)->is_view = false;
    return PT_OK;
}

pt_status pt_native_reshape_autograd(const pt_tensor *self, int32_t shape_len,
                                     const int64_t *shape, pt_tensor **ret)
{
    bool is_view;
    PT_TRY(pt_tensor_reshape_is_view(self, shape_len, shape, &is_view));
    if (is_view) {
        *ret = pt_call_view(self, shape_len, shape);
        return *ret ? PT_OK : pt_error_code();
    }
    pt_tensor *copy = pt_call_clone(self, PT_MEMORY_FORMAT_CONTIGUOUS);
    if (!copy) return pt_error_code();
    *ret = pt_call__unsafe_view(copy, shape_len, shape);
    pt_tensor_release(copy);
    return *ret ? PT_OK : pt_error_code();
}

pt_status pt_native_flatten_autograd(const pt_tensor *self, int64_t start_dim, int64_t end_dim,
                                     pt_tensor **ret)
{
    int32_t start, end;
    PT_TRY(pt_wrap_dim(start_dim, self->ndim, &start));
    PT_TRY(pt_wrap_dim(end_dim, self->ndim, &end));
    if (start > end)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "flatten() has invalid args: start_dim cannot come after end_dim");
    if (self->ndim == 0) {
        *ret = pt_call_reshape(self, 1, (const int64_t[]){1});
        return *ret ? PT_OK : pt_error_code();
    }
    if (start == end) return pt_native_self((pt_tensor *)self, ret);
    int64_t shape[PT_MAX_DIMS];
    int32_t n = 0;
    for (int32_t d = 0; d < start; d++) shape[n++] = self->sizes[d];
    int64_t flat = 1; /* sizes passed pt_shape_check: any product of them fits in int64 */
    for (int32_t d = start; d <= end; d++) flat *= self->sizes[d];
    shape[n++] = flat;
    for (int32_t d = end + 1; d < self->ndim; d++) shape[n++] = self->sizes[d];
    *ret = pt_call_reshape(self, n, shape);
    return *ret ? PT_OK : pt_error_code();
}
