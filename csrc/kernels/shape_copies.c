/* shape_copies.c - the *_copy operators: each view operator's result copied into a fresh
 * contiguous tensor (torch's view-copy forms, which functionalization uses in place of views).
 * Below autograd each is its view followed by a contiguous clone (view_copy reshapes, as torch's
 * does, so that it also takes inputs that no view can give); autograd records the view's formula
 * under torch's <View>Backward0_copy node name (derivatives_shape.yaml).
 */
#include "shape_common.h"

/* A view of everything self views (alias_copy's and detach_copy's "view"). */
static pt_tensor *view_of(const pt_tensor *self)
{
    pt_tensor *r = NULL;
    return pt_native_alias(self, &r) == PT_OK ? r : NULL;
}

/* v (a new reference to a view, or NULL with the error set) copied to a contiguous result. */
static pt_status copied(pt_tensor *v, pt_tensor **ret)
{
    if (!v) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    pt_tensor *r = pt_call_clone(v, PT_MEMORY_FORMAT_CONTIGUOUS);
    pt_tensor_release(v);
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

static pt_status copied_out(const char *op, pt_tensor *r, pt_tensor *out, pt_tensor **ret)
{
    pt_status st = pt_shape_out_dtype(out, r->dtype);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    return pt_shape_finish_out(op, r, out, true, ret);
}

pt_status pt_native_alias_copy(const pt_tensor *self, pt_tensor **ret)
{
    return copied(view_of(self), ret);
}

pt_status pt_native_alias_copy_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(view_of(self), &r));
    return copied_out("alias_copy", r, out, ret);
}

pt_status pt_native_as_strided_copy(const pt_tensor *self, int32_t size_len, const int64_t *size,
                                    int32_t stride_len, const int64_t *stride,
                                    const int64_t *storage_offset, pt_tensor **ret)
{
    return copied(pt_call_as_strided(self, size_len, size, stride_len, stride, storage_offset),
                  ret);
}

pt_status pt_native_as_strided_copy_out(const pt_tensor *self, int32_t size_len,
                                        const int64_t *size, int32_t stride_len,
                                        const int64_t *stride, const int64_t *storage_offset,
                                        pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_as_strided(self, size_len, size, stride_len, stride, storage_offset),
           &r));
    return copied_out("as_strided_copy", r, out, ret);
}

pt_status pt_native_detach_copy(const pt_tensor *self, pt_tensor **ret)
{
    return copied(view_of(self), ret);
}

pt_status pt_native_detach_copy_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(view_of(self), &r));
    return copied_out("detach_copy", r, out, ret);
}

pt_status pt_native_diagonal_copy(const pt_tensor *self, int64_t offset, int64_t dim1, int64_t dim2,
                                  pt_tensor **ret)
{
    return copied(pt_call_diagonal(self, offset, dim1, dim2), ret);
}

pt_status pt_native_diagonal_copy_out(const pt_tensor *self, int64_t offset, int64_t dim1,
                                      int64_t dim2, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_diagonal(self, offset, dim1, dim2), &r));
    return copied_out("diagonal_copy", r, out, ret);
}

pt_status pt_native_expand_copy(const pt_tensor *self, int32_t size_len, const int64_t *size,
                                int32_t implicit, pt_tensor **ret)
{
    return copied(pt_call_expand(self, size_len, size, implicit), ret);
}

pt_status pt_native_expand_copy_out(const pt_tensor *self, int32_t size_len, const int64_t *size,
                                    int32_t implicit, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_expand(self, size_len, size, implicit), &r));
    return copied_out("expand_copy", r, out, ret);
}

pt_status pt_native_permute_copy(const pt_tensor *self, int32_t dims_len, const int64_t *dims,
                                 pt_tensor **ret)
{
    return copied(pt_call_permute(self, dims_len, dims), ret);
}

pt_status pt_native_permute_copy_out(const pt_tensor *self, int32_t dims_len, const int64_t *dims,
                                     pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_permute(self, dims_len, dims), &r));
    return copied_out("permute_copy", r, out, ret);
}

pt_status pt_native_select_copy_int(const pt_tensor *self, int64_t dim, int64_t index,
                                    pt_tensor **ret)
{
    return copied(pt_call_select_int(self, dim, index), ret);
}

pt_status pt_native_select_copy_int_out(const pt_tensor *self, int64_t dim, int64_t index,
                                        pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_select_int(self, dim, index), &r));
    return copied_out("select_copy", r, out, ret);
}

pt_status pt_native_slice_copy_Tensor(const pt_tensor *self, int64_t dim, const int64_t *start,
                                      const int64_t *end, int64_t step, pt_tensor **ret)
{
    return copied(pt_call_slice_Tensor(self, dim, start, end, step), ret);
}

pt_status pt_native_slice_copy_Tensor_out(const pt_tensor *self, int64_t dim, const int64_t *start,
                                          const int64_t *end, int64_t step, pt_tensor *out,
                                          pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_slice_Tensor(self, dim, start, end, step), &r));
    return copied_out("slice_copy", r, out, ret);
}

pt_status pt_native_squeeze_copy(const pt_tensor *self, pt_tensor **ret)
{
    return copied(pt_call_squeeze(self), ret);
}

pt_status pt_native_squeeze_copy_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_squeeze(self), &r));
    return copied_out("squeeze_copy", r, out, ret);
}

pt_status pt_native_squeeze_copy_dim(const pt_tensor *self, int64_t dim, pt_tensor **ret)
{
    return copied(pt_call_squeeze_dim(self, dim), ret);
}

pt_status pt_native_squeeze_copy_dim_out(const pt_tensor *self, int64_t dim, pt_tensor *out,
                                         pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_squeeze_dim(self, dim), &r));
    return copied_out("squeeze_copy", r, out, ret);
}

pt_status pt_native_squeeze_copy_dims(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                      pt_tensor **ret)
{
    return copied(pt_call_squeeze_dims(self, dim_len, dim), ret);
}

pt_status pt_native_squeeze_copy_dims_out(const pt_tensor *self, int32_t dim_len,
                                          const int64_t *dim, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_squeeze_dims(self, dim_len, dim), &r));
    return copied_out("squeeze_copy", r, out, ret);
}

pt_status pt_native_t_copy(const pt_tensor *self, pt_tensor **ret)
{
    return copied(pt_call_t(self), ret);
}

pt_status pt_native_t_copy_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_t(self), &r));
    return copied_out("t_copy", r, out, ret);
}

pt_status pt_native_transpose_copy_int(const pt_tensor *self, int64_t dim0, int64_t dim1,
                                       pt_tensor **ret)
{
    return copied(pt_call_transpose_int(self, dim0, dim1), ret);
}

pt_status pt_native_transpose_copy_int_out(const pt_tensor *self, int64_t dim0, int64_t dim1,
                                           pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_transpose_int(self, dim0, dim1), &r));
    return copied_out("transpose_copy", r, out, ret);
}

pt_status pt_native_unfold_copy(const pt_tensor *self, int64_t dimension, int64_t size,
                                int64_t step, pt_tensor **ret)
{
    return copied(pt_call_unfold(self, dimension, size, step), ret);
}

pt_status pt_native_unfold_copy_out(const pt_tensor *self, int64_t dimension, int64_t size,
                                    int64_t step, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_unfold(self, dimension, size, step), &r));
    return copied_out("unfold_copy", r, out, ret);
}

pt_status pt_native_unsqueeze_copy(const pt_tensor *self, int64_t dim, pt_tensor **ret)
{
    return copied(pt_call_unsqueeze(self, dim), ret);
}

pt_status pt_native_unsqueeze_copy_out(const pt_tensor *self, int64_t dim, pt_tensor *out,
                                       pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_unsqueeze(self, dim), &r));
    return copied_out("unsqueeze_copy", r, out, ret);
}

pt_status pt_native_view_copy(const pt_tensor *self, int32_t size_len, const int64_t *size,
                              pt_tensor **ret)
{
    return copied(pt_call_reshape(self, size_len, size), ret);
}

pt_status pt_native_view_copy_out(const pt_tensor *self, int32_t size_len, const int64_t *size,
                                  pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_reshape(self, size_len, size), &r));
    return copied_out("view_copy", r, out, ret);
}

pt_status pt_native_view_as_real_copy(const pt_tensor *self, pt_tensor **ret)
{
    return copied(pt_call_view_as_real(self), ret);
}

pt_status pt_native_view_as_real_copy_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_view_as_real(self), &r));
    return copied_out("view_as_real_copy", r, out, ret);
}

pt_status pt_native_view_as_complex_copy(const pt_tensor *self, pt_tensor **ret)
{
    return copied(pt_call_view_as_complex(self), ret);
}

pt_status pt_native_view_as_complex_copy_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_view_as_complex(self), &r));
    return copied_out("view_as_complex_copy", r, out, ret);
}

pt_status pt_native_narrow_copy(const pt_tensor *self, int64_t dim, int64_t start, int64_t length,
                                pt_tensor **ret)
{
    return copied(pt_call_narrow(self, dim, start, length), ret);
}

pt_status pt_native_narrow_copy_out(const pt_tensor *self, int64_t dim, int64_t start,
                                    int64_t length, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(copied(pt_call_narrow(self, dim, start, length), &r));
    return copied_out("narrow_copy", r, out, ret);
}
