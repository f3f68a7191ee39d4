/* stats_reduce.c - the reductions torch defines beside its plain ones: aminmax (both extremes
 * in one call), nansum and nanmean (NaN counted as zero, and left out of the count), and
 * count_nonzero.
 *
 * They reuse the reduction engine (reduce.c): aminmax runs its min and max loops over the input
 * read in its accumulation type; nansum zeroes the NaNs of a copy in the accumulation type before
 * summing it; count_nonzero sums the != 0 mask as int64. nanmean is CompositeImplicitAutograd, as
 * in torch: nansum over the count of non-NaN elements. Results are shaped, cast and moved into
 * out= tensors by pt_reduce_finish; meta tensors get shapes and dtypes only.
 */
#include <math.h>
#include <string.h>

#include "iter.h"
#include "native.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "reduce.h"
#include "sort_common.h"

/* torch 2.x raises its dispatch macros' "not implemented for" as NotImplementedError. */
static pt_status unsupported(const char *kernel, int32_t dtype)
{
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                    pt_iter_type_name(dtype));
}

static pt_status dtype_out(const pt_tensor *out_arg, int32_t dtype)
{
    if (!out_arg || out_arg->dtype == dtype) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                    pt_dtype_info_of(dtype)->name, pt_dtype_info_of(out_arg->dtype)->name);
}

static pt_status called(pt_tensor *r, pt_tensor **out)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *out = r;
    return PT_OK;
}

/* Both results of a two-output operator handed over by pt_reduce_finish; a failure leaves
 * nothing held. */
static pt_status finish_pair(const char *name, pt_tensor *r0, pt_tensor *r1, const pt_tensor *self,
                             const bool *mask, bool keepdim, int32_t dtype0, int32_t dtype1,
                             pt_tensor *out0, pt_tensor *out1, pt_tensor **ret0, pt_tensor **ret1)
{
    pt_status st = pt_reduce_finish(name, r0, self, mask, keepdim, dtype0, out0, ret0);
    if (st != PT_OK) {
        pt_tensor_release(r1);
        return st;
    }
    st = pt_reduce_finish(name, r1, self, mask, keepdim, dtype1, out1, ret1);
    if (st != PT_OK) pt_tensor_release(*ret0);
    return st;
}

/* ---------------------------------------------------------------- aminmax */

static pt_status aminmax(const pt_tensor *self, const int64_t *dim, bool keepdim,
                         pt_tensor *min_out, pt_tensor *max_out, pt_tensor **ret0,
                         pt_tensor **ret1)
{
    PT_TRY(pt_reduce_check(self, "aminmax", min_out));
    if (max_out) PT_TRY(pt_iter_check_operand(max_out, "aminmax", "max"));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, dim ? 1 : -1, dim, mask));
    if (self->numel == 0) {
        if (!dim)
            return PT_ERROR(PT_ERR_RUNTIME, "aminmax(): cannot compute aminmax over an empty "
                            "dimension as the operation has no identity.");
        for (int32_t d = 0; d < self->ndim; d++)
            if (mask[d] && self->sizes[d] == 0)
                return PT_ERROR(PT_ERR_INDEX, "aminmax: Expected reduction dim %d to have "
                                "non-zero size.", (int)d);
    }
    if (pt_is_complex(self->dtype) || self->dtype >= PT_DTYPE_BUILTIN_COUNT)
        return unsupported("aminmax_cpu", self->dtype);
    PT_TRY(dtype_out(min_out, self->dtype));
    PT_TRY(dtype_out(max_out, self->dtype));
    pt_tensor *x, *lo, *hi;
    PT_TRY(pt_reduce_cast(self, pt_opmath_dtype(self->dtype), false, &x));
    pt_status st = pt_reduce_into(PT_RED_MIN, x, mask, &lo);
    if (st == PT_OK) {
        st = pt_reduce_into(PT_RED_MAX, x, mask, &hi);
        if (st != PT_OK) pt_tensor_release(lo);
    }
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    return finish_pair("aminmax", lo, hi, self, mask, keepdim, self->dtype, self->dtype, min_out,
                       max_out, ret0, ret1);
}

pt_status pt_kernel_aminmax(const pt_tensor *self, const int64_t *dim, int32_t keepdim,
                            pt_tensor **ret0, pt_tensor **ret1)
{
    return aminmax(self, dim, keepdim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_aminmax_out(const pt_tensor *self, const int64_t *dim, int32_t keepdim,
                                pt_tensor *min, pt_tensor *max, pt_tensor **ret0,
                                pt_tensor **ret1)
{
    return aminmax(self, dim, keepdim, min, max, ret0, ret1);
}

/* ---------------------------------------------------------------- nansum, nanmean */

/* Zeroes the NaNs of a contiguous float32/float64 CPU tensor in place. */
static void zero_nans(pt_tensor *t)
{
    const int64_t n = t->numel;
    if (t->dtype == PT_FLOAT32) {
        float *x = pt_tensor_data(t);
        for (int64_t i = 0; i < n; i++) x[i] = isnan(x[i]) ? 0.0f : x[i];
    } else {
        double *x = pt_tensor_data(t);
        for (int64_t i = 0; i < n; i++) x[i] = isnan(x[i]) ? 0.0 : x[i];
    }
}

/* torch's nansum: the result dtype is sum's (dtype=, else out's, else self's with integers and
 * bool as int64); the input is read in it and accumulated in its accumulation type. Integers
 * hold no NaN, so theirs is the plain sum. */
static pt_status nansum(const pt_tensor *self, int32_t ndims, const int64_t *dims, bool keepdim,
                        int32_t dtype, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_reduce_check(self, "nansum", out_arg));
    if (dtype >= 0) PT_TRY(pt_dtype_check(dtype, "dtype"));
    if (pt_is_complex(self->dtype) || self->dtype >= PT_DTYPE_BUILTIN_COUNT)
        return PT_ERROR(PT_ERR_RUNTIME, "nansum on CPU does not support complex inputs");
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, ndims, dims, mask));
    const int32_t result = dtype >= 0 ? dtype : out_arg ? out_arg->dtype
                           : pt_is_integral(self->dtype, true) ? PT_INT64 : self->dtype;
    if (pt_is_complex(result))
        return PT_ERROR(PT_ERR_RUNTIME, "nansum on CPU does not support complex inputs");
    const int32_t acc = pt_is_integral(result, true) ? PT_INT64 : pt_opmath_dtype(result);
    pt_tensor *first, *x, *r;
    PT_TRY(pt_reduce_cast(self, result, false, &first));
    pt_status st = PT_OK;
    if (pt_is_floating(acc)) { /* always a fresh copy: its NaNs are overwritten */
        st = pt_tensor_empty(first->ndim, first->sizes, acc, first->device, &x);
        if (st == PT_OK) st = pt_tensor_copy_(x, first);
        if (st == PT_OK && x->device.type == PT_DEV_CPU) zero_nans(x);
        if (st != PT_OK && x) pt_tensor_release(x);
    } else {
        st = pt_reduce_cast(first, acc, false, &x);
    }
    pt_tensor_release(first);
    if (st != PT_OK) return st;
    st = pt_reduce_into(PT_RED_SUM, x, mask, &r);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    return pt_reduce_finish("nansum", r, self, mask, keepdim, result, out_arg, out);
}

pt_status pt_kernel_nansum(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                           int32_t keepdim, int32_t dtype, pt_tensor **ret)
{
    return nansum(self, dim_len, dim, keepdim, dtype, NULL, ret);
}

pt_status pt_kernel_nansum_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                               int32_t keepdim, int32_t dtype, pt_tensor *out, pt_tensor **ret)
{
    return nansum(self, dim_len, dim, keepdim, dtype, out, ret);
}

/* torch's nanmean: nansum over the count of non-NaN elements, two recorded operators (hence
 * DivBackward0 under autograd). */
pt_status pt_native_nanmean(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                            int32_t keepdim, int32_t dtype, pt_tensor **ret)
{
    if (!pt_is_floating(self->dtype) && !pt_is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "nanmean(): expected input to have floating point or "
                        "complex dtype but got %s", pt_iter_type_name(self->dtype));
    pt_tensor *nan = NULL, *kept = NULL, *count = NULL, *sum = NULL;
    PT_TRY(called(pt_call_isnan(self), &nan));
    pt_status st = called(pt_call_logical_not(nan), &kept);
    pt_tensor_release(nan);
    if (st != PT_OK) return st;
    st = called(pt_call_sum_dim_IntList(kept, dim_len, dim, keepdim, -1), &count);
    pt_tensor_release(kept);
    if (st != PT_OK) return st;
    st = called(pt_call_nansum(self, dim_len, dim, keepdim, dtype), &sum);
    if (st == PT_OK) {
        st = called(pt_call_div_Tensor(sum, count), ret);
        pt_tensor_release(sum);
    }
    pt_tensor_release(count);
    return st;
}

pt_status pt_native_nanmean_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                int32_t keepdim, int32_t dtype, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_nanmean(self, dim_len, dim, keepdim, dtype, &r));
    return pt_sort_move_out("nanmean", "out", r, out, ret);
}

/* ---------------------------------------------------------------- count_nonzero */

static pt_status count_nonzero(const pt_tensor *self, int32_t ndims, const int64_t *dims,
                               pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_reduce_check(self, "count_nonzero", out_arg));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, ndims, dims, mask));
    PT_TRY(dtype_out(out_arg, PT_INT64));
    const pt_scalar zero = {.kind = PT_SCALAR_INT, .i = 0};
    pt_tensor *nz = NULL, *x = NULL, *r = NULL;
    PT_TRY(called(pt_call_ne_Scalar(self, &zero), &nz));
    pt_status st = pt_reduce_cast(nz, PT_INT64, false, &x);
    pt_tensor_release(nz);
    if (st != PT_OK) return st;
    st = pt_reduce_into(PT_RED_SUM, x, mask, &r);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    return pt_reduce_finish("count_nonzero", r, self, mask, false, PT_INT64, out_arg, out);
}

pt_status pt_kernel_count_nonzero_dim_IntList(const pt_tensor *self, int32_t dim_len,
                                              const int64_t *dim, pt_tensor **ret)
{
    return count_nonzero(self, dim_len, dim, NULL, ret);
}

pt_status pt_kernel_count_nonzero_dim_IntList_out(const pt_tensor *self, int32_t dim_len,
                                                  const int64_t *dim, pt_tensor *out,
                                                  pt_tensor **ret)
{
    return count_nonzero(self, dim_len, dim, out, ret);
}

pt_status pt_kernel_count_nonzero(const pt_tensor *self, const int64_t *dim, pt_tensor **ret)
{
    return count_nonzero(self, dim ? 1 : -1, dim, NULL, ret);
}

pt_status pt_kernel_count_nonzero_out(const pt_tensor *self, const int64_t *dim, pt_tensor *out,
                                      pt_tensor **ret)
{
    return count_nonzero(self, dim ? 1 : -1, dim, out, ret);
}
