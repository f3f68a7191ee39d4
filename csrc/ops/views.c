/* views.c - the view operators whose schemas the core's view functions (csrc/core/view.c) do not
 * match as they are: t, expand (the `implicit` flag), the three squeezes, slice with optional
 * bounds and as_strided with an optional offset. Views only touch metadata, so they serve every
 * backend (CompositeExplicitAutograd); the others (view, reshape, permute, ...) are registered as
 * the core functions themselves.
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
