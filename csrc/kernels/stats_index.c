/* stats_index.c - index_add, index_copy, index_fill and put: writes of whole slices (or, for
 * put, of elements of the flattened tensor) chosen by an index vector.
 *
 * Each is torch's operator with torch's checks and messages, run as the scatter it amounts to
 * (Note [index ops as scatters]). The kernels are registered at the CPU and Meta keys and the
 * scatters they call run below autograd, so a recorded call shows the operator's own node
 * (IndexAddBackward0, IndexCopyBackward0, IndexFillBackward0/1, PutBackward0) with torch's
 * formulas (csrc/ops/derivatives_stats.yaml).
 */
#include <string.h>

#include "iter.h"
#include "native.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "sort_common.h"

/* Note [index ops as scatters]
 * index_add(self, dim, index, source) adds source's slice j along dim to self's slice index[j]:
 * scatter_add along dim with an index of source's shape holding index[j] at every position of
 * slice j. index_copy is scatter.src with the same index, index_fill scatter.value with an index
 * of self's shape but index.numel() along dim, and put the scatter (or scatter_add, when
 * accumulating) of the flattened source into the flattened self. The expanded index is written
 * here directly (contiguous, as [outer, m, inner] blocks) rather than by view and expand, so that
 * the scatter reads plain memory. Negative indices are wrapped first where torch accepts them
 * (index_fill, put); bounds are checked here, with each operator's message, before any write. */

static pt_status called(pt_tensor *r, pt_tensor **out)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *out = r;
    return PT_OK;
}

/* index's values as a new contiguous int64 CPU tensor (NULL data pointer on meta). */
static pt_status index_values(const pt_tensor *index, pt_tensor **out)
{
    PT_TRY(pt_tensor_empty(index->ndim, index->sizes, PT_INT64, index->device, out));
    const pt_status st = pt_tensor_copy_(*out, index);
    if (st != PT_OK) pt_tensor_release(*out);
    return st;
}

/* Wraps negative entries by n (when wrap) and checks every entry lies in [0, n); the first that
 * does not is reported by `report`. */
typedef pt_status (*bound_fn)(int64_t value, int64_t n, int32_t dim);

static pt_status check_bounds(pt_tensor *idx, int64_t n, int32_t dim, bool wrap, bound_fn report)
{
    if (idx->device.type != PT_DEV_CPU) return PT_OK;
    int64_t *v = pt_tensor_data(idx);
    for (int64_t i = 0; i < idx->numel; i++) {
        const int64_t x = v[i];
        if (wrap && x < 0 && x >= -n) v[i] = x + n;
        if (v[i] < 0 || v[i] >= n) return report(x, n, dim);
    }
    return PT_OK;
}

/* An int64 tensor of `shape` (ndim dims, dim d of size m = idx->numel) holding idx[j] at every
 * position whose coordinate along d is j. */
static pt_status expanded_index(const pt_tensor *idx, int32_t ndim, const int64_t *shape, int32_t d,
                                pt_tensor **out)
{
    PT_TRY(pt_tensor_empty(ndim, shape, PT_INT64, idx->device, out));
    if (idx->device.type != PT_DEV_CPU || (*out)->numel == 0) return PT_OK;
    int64_t outer = 1, inner = 1;
    const int64_t m = ndim > 0 ? shape[d] : 1;
    for (int32_t i = 0; i < ndim; i++) {
        if (i < d) outer *= shape[i];
        if (i > d) inner *= shape[i];
    }
    const int64_t *v = pt_tensor_data(idx);
    int64_t *o = pt_tensor_data(*out);
    for (int64_t a = 0; a < outer; a++)
        for (int64_t j = 0; j < m; j++)
            for (int64_t b = 0; b < inner; b++) *o++ = v[j];
    return PT_OK;
}

static void shape_text(char *buf, size_t cap, const pt_tensor *t)
{
    pt_format_ints(buf, cap, t->ndim, t->sizes);
}

/* source's shape equals self's except along d (0-d tensors go with 0-d tensors). */
static bool slices_match(const pt_tensor *self, const pt_tensor *source, int32_t d)
{
    if (self->ndim != source->ndim) return false;
    for (int32_t i = 0; i < self->ndim; i++)
        if (i != d && self->sizes[i] != source->sizes[i]) return false;
    return true;
}

/* ---------------------------------------------------------------- index_add */

static pt_status add_bound(int64_t value, int64_t n, int32_t dim)
{
    return PT_ERROR(PT_ERR_RUNTIME, "index %lld is out of bounds for dimension %d with size %lld",
                    (long long)value, (int)dim, (long long)n);
}

/* The checks index_add_ makes, and the expanded index and the scaled source it scatters. */
static pt_status index_add_prepare(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                   const pt_tensor *source, const pt_scalar *alpha, int32_t *d,
                                   pt_tensor **idx_out, pt_tensor **src_out)
{
    PT_TRY(pt_iter_check_operand(self, "index_add_", "self"));
    PT_TRY(pt_iter_check_operand(index, "index_add_", "index"));
    PT_TRY(pt_iter_check_operand(source, "index_add_", "source"));
    PT_TRY(pt_wrap_dim(dim, self->ndim, d));
    if (index->dtype != PT_INT64 && index->dtype != PT_INT32)
        return PT_ERROR(PT_ERR_RUNTIME, "index_add_(): Expected dtype int32/int64 for index but "
                        "got: %s", pt_iter_type_name(index->dtype));
    if (index->ndim > 1) {
        char s[256];
        shape_text(s, sizeof s, index);
        return PT_ERROR(PT_ERR_INDEX, "index_add_(): Index is supposed to be a vector, but got "
                        "dim: %d with type: %s and size: %s", (int)index->ndim,
                        pt_iter_type_name(index->dtype), s);
    }
    if (self->dtype != source->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "index_add_(): self (%s) and source (%s) must have the "
                        "same scalar type", pt_iter_type_name(self->dtype),
                        pt_iter_type_name(source->dtype));
    const int64_t along = source->ndim > 0 ? source->sizes[*d < source->ndim ? *d : 0] : 1;
    if (index->numel != along)
        return PT_ERROR(PT_ERR_RUNTIME, "index_add_(): Number of indices (%lld) should be equal "
                        "to source.size(dim): (%lld), for dim: %d", (long long)index->numel,
                        (long long)along, (int)*d);
    if (!slices_match(self, source, *d)) {
        char a[256], b[256];
        shape_text(a, sizeof a, self);
        shape_text(b, sizeof b, source);
        return PT_ERROR(PT_ERR_RUNTIME, "source tensor shape must match self tensor shape, "
                        "excluding the specified dimension. Got self.shape = %s source.shape = %s",
                        a, b);
    }
    pt_tensor *idx = NULL, *exp = NULL, *src = NULL;
    PT_TRY(index_values(index, &idx));
    pt_status st = check_bounds(idx, self->ndim > 0 ? self->sizes[*d] : 1, *d, false, add_bound);
    if (st == PT_OK) st = expanded_index(idx, source->ndim, source->sizes, *d, &exp);
    pt_tensor_release(idx);
    if (st != PT_OK) return st;
    const bool unit = (alpha->kind == PT_SCALAR_INT || alpha->kind == PT_SCALAR_BOOL) ? alpha->i == 1
                      : alpha->kind == PT_SCALAR_FLOAT && alpha->re == 1.0;
    if (unit) {
        pt_tensor_retain((pt_tensor *)source);
        src = (pt_tensor *)source;
    } else {
        pt_tensor *scaled = NULL;
        st = called(pt_call_mul_Scalar(source, alpha), &scaled);
        if (st == PT_OK && scaled->dtype != self->dtype) {
            st = pt_tensor_empty(scaled->ndim, scaled->sizes, self->dtype, scaled->device, &src);
            if (st == PT_OK) st = pt_tensor_copy_(src, scaled);
            pt_tensor_release(scaled);
        } else if (st == PT_OK) {
            src = scaled;
        }
    }
    if (st != PT_OK) {
        pt_tensor_release(exp);
        if (src) pt_tensor_release(src);
        return st;
    }
    *idx_out = exp;
    *src_out = src;
    return PT_OK;
}

static pt_status index_add(pt_tensor *self, int64_t dim, const pt_tensor *index,
                           const pt_tensor *source, const pt_scalar *alpha, bool inplace,
                           pt_tensor **ret)
{
    int32_t d;
    pt_tensor *idx, *src;
    PT_TRY(index_add_prepare(self, dim, index, source, alpha, &d, &idx, &src));
    pt_tensor *r = inplace ? pt_call_scatter_add_(self, d, idx, src)
                           : pt_call_scatter_add(self, d, idx, src);
    pt_tensor_release(idx);
    pt_tensor_release(src);
    return called(r, ret);
}

pt_status pt_kernel_index_add(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                              const pt_tensor *source, const pt_scalar *alpha, pt_tensor **ret)
{
    return index_add((pt_tensor *)self, dim, index, source, alpha, false, ret);
}

pt_status pt_kernel_index_add_(pt_tensor *self, int64_t dim, const pt_tensor *index,
                               const pt_tensor *source, const pt_scalar *alpha, pt_tensor **ret)
{
    return index_add(self, dim, index, source, alpha, true, ret);
}

pt_status pt_kernel_index_add_out(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                  const pt_tensor *source, const pt_scalar *alpha, pt_tensor *out,
                                  pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(index_add((pt_tensor *)self, dim, index, source, alpha, false, &r));
    return pt_sort_move_out("index_add", "out", r, out, ret);
}

/* ---------------------------------------------------------------- index_copy */

static pt_status copy_bound(int64_t value, int64_t n, int32_t dim)
{
    return PT_ERROR(PT_ERR_INDEX, "index_copy_(): index %lld is out of bounds for dimension %d "
                    "with size %lld", (long long)value, (int)dim, (long long)n);
}

static pt_status index_copy(pt_tensor *self, int64_t dim, const pt_tensor *index,
                            const pt_tensor *source, bool inplace, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "index_copy_", "self"));
    PT_TRY(pt_iter_check_operand(index, "index_copy_", "index"));
    PT_TRY(pt_iter_check_operand(source, "index_copy_", "source"));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    if (index->ndim > 1)
        return PT_ERROR(PT_ERR_INDEX, "index_copy_(): Index should have dimension 1 or 0 (got %d)",
                        (int)index->ndim);
    const int64_t along = source->ndim > 0 ? source->sizes[d < source->ndim ? d : 0] : 1;
    if (index->numel != along)
        return PT_ERROR(PT_ERR_INDEX, "index_copy_(): Number of indices (%lld) should be equal to "
                        "source.size(dim) (%lld)", (long long)index->numel, (long long)along);
    if (index->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "index_copy_(): Expected a long tensor for index, but got "
                        "%s", pt_iter_type_name(index->dtype));
    if (self->dtype != source->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "index_copy_(): self and source expected to have the same "
                        "dtype, but got (self) %s and (source) %s", pt_iter_type_name(self->dtype),
                        pt_iter_type_name(source->dtype));
    if (self->ndim != source->ndim && self->ndim > 0 && source->ndim > 0)
        return PT_ERROR(PT_ERR_INDEX, "index_copy_(): When source and destination are not scalars, "
                        "their dimensionality must match. Source dimensionality (%d), destination "
                        "dimensionality (%d)", (int)source->ndim, (int)self->ndim);
    for (int32_t i = 0; i < self->ndim && i < source->ndim; i++)
        if (i != d && self->sizes[i] != source->sizes[i])
            return PT_ERROR(PT_ERR_INDEX, "index_copy_(): Source/destination tensor must have same "
                            "slice shapes. Destination slice shape: %lld at dimension %d and "
                            "source slice shape: %lld at dimension %d.",
                            (long long)self->sizes[i], (int)i, (long long)source->sizes[i], (int)i);
    pt_tensor *idx = NULL, *exp = NULL, *src = (pt_tensor *)source;
    PT_TRY(index_values(index, &idx));
    pt_status st = check_bounds(idx, self->ndim > 0 ? self->sizes[d] : 1, d, false, copy_bound);
    /* a 0-d source of a 0-d self scatters as a tensor of self's (0-d) shape */
    if (st == PT_OK) st = expanded_index(idx, source->ndim, source->sizes, d, &exp);
    pt_tensor_release(idx);
    if (st != PT_OK) return st;
    pt_tensor *r = inplace ? pt_call_scatter__src(self, d, exp, src)
                           : pt_call_scatter_src(self, d, exp, src);
    pt_tensor_release(exp);
    return called(r, ret);
}

pt_status pt_kernel_index_copy(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                               const pt_tensor *source, pt_tensor **ret)
{
    return index_copy((pt_tensor *)self, dim, index, source, false, ret);
}

pt_status pt_kernel_index_copy_(pt_tensor *self, int64_t dim, const pt_tensor *index,
                                const pt_tensor *source, pt_tensor **ret)
{
    return index_copy(self, dim, index, source, true, ret);
}

pt_status pt_kernel_index_copy_out(const pt_tensor *self, int64_t dim, const pt_tensor *index,
                                   const pt_tensor *source, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(index_copy((pt_tensor *)self, dim, index, source, false, &r));
    return pt_sort_move_out("index_copy", "out", r, out, ret);
}

/* ---------------------------------------------------------------- index_fill */

static pt_status fill_bound(int64_t value, int64_t n, int32_t dim)
{
    return PT_ERROR(PT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                    (long long)value, (int)dim, (long long)n);
}

static pt_status index_fill(pt_tensor *self, int64_t dim, const pt_tensor *index,
                            const pt_scalar *value, bool inplace, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "index_fill_", "self"));
    PT_TRY(pt_iter_check_operand(index, "index_fill_", "index"));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    if (index->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    if (index->ndim > 1) return PT_ERROR(PT_ERR_RUNTIME, "Index has to be a vector/scalar");
    pt_tensor *idx = NULL, *exp = NULL;
    PT_TRY(index_values(index, &idx));
    pt_status st = check_bounds(idx, self->ndim > 0 ? self->sizes[d] : 1, d, true, fill_bound);
    int64_t shape[PT_MAX_DIMS];
    memcpy(shape, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    if (self->ndim > 0) shape[d] = idx->numel;
    if (st == PT_OK && (self->ndim > 0 || idx->numel > 0))
        st = expanded_index(idx, self->ndim, shape, d, &exp);
    pt_tensor_release(idx);
    if (st != PT_OK) return st;
    if (!exp) { /* a 0-d self and no index: nothing is filled */
        if (inplace) {
            pt_tensor_retain(self);
            *ret = self;
            return PT_OK;
        }
        return called(pt_call_clone(self, -1), ret);
    }
    pt_tensor *r = inplace ? pt_call_scatter__value(self, d, exp, value)
                           : pt_call_scatter_value(self, d, exp, value);
    pt_tensor_release(exp);
    return called(r, ret);
}

static pt_status value_scalar(const pt_tensor *value, pt_scalar *out)
{
    PT_TRY(pt_iter_check_operand(value, "index_fill_", "value"));
    if (value->ndim != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "index_fill_ only supports a 0-dimensional value tensor, "
                        "but got tensor with %d dimension(s).", (int)value->ndim);
    if (value->device.type != PT_DEV_CPU) {
        *out = (pt_scalar){.kind = PT_SCALAR_INT, .i = 0}; /* meta: no value to read */
        return PT_OK;
    }
    return pt_call_item(value, out);
}

pt_status pt_kernel_index_fill_int_Scalar(const pt_tensor *self, int64_t dim,
                                          const pt_tensor *index, const pt_scalar *value,
                                          pt_tensor **ret)
{
    return index_fill((pt_tensor *)self, dim, index, value, false, ret);
}

pt_status pt_kernel_index_fill__int_Scalar(pt_tensor *self, int64_t dim, const pt_tensor *index,
                                           const pt_scalar *value, pt_tensor **ret)
{
    return index_fill(self, dim, index, value, true, ret);
}

pt_status pt_kernel_index_fill_int_Scalar_out(const pt_tensor *self, int64_t dim,
                                              const pt_tensor *index, const pt_scalar *value,
                                              pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(index_fill((pt_tensor *)self, dim, index, value, false, &r));
    return pt_sort_move_out("index_fill", "out", r, out, ret);
}

pt_status pt_kernel_index_fill_int_Tensor(const pt_tensor *self, int64_t dim,
                                          const pt_tensor *index, const pt_tensor *value,
                                          pt_tensor **ret)
{
    pt_scalar v;
    PT_TRY(value_scalar(value, &v));
    return index_fill((pt_tensor *)self, dim, index, &v, false, ret);
}

pt_status pt_kernel_index_fill__int_Tensor(pt_tensor *self, int64_t dim, const pt_tensor *index,
                                           const pt_tensor *value, pt_tensor **ret)
{
    pt_scalar v;
    PT_TRY(value_scalar(value, &v));
    return index_fill(self, dim, index, &v, true, ret);
}

pt_status pt_kernel_index_fill_int_Tensor_out(const pt_tensor *self, int64_t dim,
                                              const pt_tensor *index, const pt_tensor *value,
                                              pt_tensor *out, pt_tensor **ret)
{
    pt_scalar v;
    PT_TRY(value_scalar(value, &v));
    pt_tensor *r = NULL;
    PT_TRY(index_fill((pt_tensor *)self, dim, index, &v, false, &r));
    return pt_sort_move_out("index_fill", "out", r, out, ret);
}

/* ---------------------------------------------------------------- put */

static pt_status put_bound(int64_t value, int64_t n, int32_t dim)
{
    PT_UNUSED(dim);
    return PT_ERROR(PT_ERR_INDEX, "out of range: tried to access index %lld on a tensor of %lld "
                    "elements.", (long long)value, (long long)n);
}

static pt_status put(pt_tensor *self, const pt_tensor *index, const pt_tensor *source,
                     bool accumulate, bool inplace, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "put_", "self"));
    PT_TRY(pt_iter_check_operand(index, "put_", "index"));
    PT_TRY(pt_iter_check_operand(source, "put_", "source"));
    if (index->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "put_(): Expected a long tensor for index, but got %s",
                        pt_iter_type_name(index->dtype));
    if (self->dtype != source->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "put_(): self and source expected to have the same dtype, "
                        "but got self.dtype = %s and source.dtype = %s",
                        pt_iter_type_name(self->dtype), pt_iter_type_name(source->dtype));
    if (source->numel != index->numel)
        return PT_ERROR(PT_ERR_INDEX, "put_(): Expected source and index to have the same number "
                        "of elements, but got source.numel() = %lld, index.numel() = %lld",
                        (long long)source->numel, (long long)index->numel);
    if (self->numel == 0 && index->numel > 0)
        return PT_ERROR(PT_ERR_INDEX, "put_(): Tried to put elements into an empty tensor");
    pt_tensor *idx = NULL, *flat_idx = NULL, *flat_src = NULL, *flat = NULL, *done = NULL;
    PT_TRY(index_values(index, &idx));
    const int64_t all = -1;
    pt_status st = check_bounds(idx, self->numel, 0, true, put_bound);
    if (st == PT_OK) st = called(pt_call_reshape(idx, 1, &all), &flat_idx);
    if (st == PT_OK) st = called(pt_call_reshape(source, 1, &all), &flat_src);
    /* the flattened self: a fresh contiguous copy (the in-place form copies it back) */
    if (st == PT_OK) st = called(pt_call_clone(self, PT_MEMORY_FORMAT_CONTIGUOUS), &flat);
    if (st == PT_OK) {
        pt_tensor *view = NULL;
        st = called(pt_call_reshape(flat, 1, &all), &view);
        if (st == PT_OK) {
            pt_tensor *r = accumulate ? pt_call_scatter_add_(view, 0, flat_idx, flat_src)
                                      : pt_call_scatter__src(view, 0, flat_idx, flat_src);
            st = called(r, &done);
            pt_tensor_release(view);
        }
    }
    if (st == PT_OK && inplace) {
        st = pt_tensor_copy_(self, flat);
        if (st == PT_OK) {
            pt_tensor_retain(self);
            *ret = self;
        }
    } else if (st == PT_OK) {
        pt_tensor_retain(flat);
        *ret = flat;
    }
    pt_tensor_release(idx);
    if (flat_idx) pt_tensor_release(flat_idx);
    if (flat_src) pt_tensor_release(flat_src);
    if (flat) pt_tensor_release(flat);
    if (done) pt_tensor_release(done);
    return st;
}

pt_status pt_kernel_put(const pt_tensor *self, const pt_tensor *index, const pt_tensor *source,
                        int32_t accumulate, pt_tensor **ret)
{
    return put((pt_tensor *)self, index, source, accumulate, false, ret);
}

pt_status pt_kernel_put_(pt_tensor *self, const pt_tensor *index, const pt_tensor *source,
                         int32_t accumulate, pt_tensor **ret)
{
    return put(self, index, source, accumulate, true, ret);
}

pt_status pt_kernel_put_out(const pt_tensor *self, const pt_tensor *index, const pt_tensor *source,
                            int32_t accumulate, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(put((pt_tensor *)self, index, source, accumulate, false, &r));
    return pt_sort_move_out("put", "out", r, out, ret);
}
