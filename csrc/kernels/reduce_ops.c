/* reduce_ops.c - the reduction operators as torch defines them: sum, prod, mean, amax, amin,
 * max, min, all, any, argmax, argmin, cumsum and cumprod (function, out= and in-place forms).
 *
 * Each front applies its operator's own rules - the result dtype (integers sum to int64, mean
 * refuses them, all/any give bool or uint8), the dtypes it refuses, torch's checks on empty
 * reductions and on out= dtypes - then casts the input to the type the loops accumulate in (so
 * float16/bfloat16 accumulate in float32, integers in int64) and runs the engine (reduce.c).
 * Composite statistics (norm, var, std, logsumexp) are reduce_stats.c. Meta tensors get the
 * same checks and a result of the right shape and dtype; nothing is computed for them.
 */
#include <string.h>

#include "iter.h"
#include "pt_ops_internal.h"
#include "reduce.h"

/* ---------------------------------------------------------------- shared steps */

pt_status pt_reduce_cast(const pt_tensor *t, int32_t dtype, bool contiguous, pt_tensor **out)
{
    if (t->dtype == dtype &&
        (!contiguous || pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS))) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(t->ndim, t->sizes, dtype, t->device, &r));
    pt_status st = pt_tensor_copy_(r, t);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_reduce_kept(const pt_tensor *self, const bool *mask, int32_t dtype, pt_tensor **out)
{
    int64_t sizes[PT_MAX_DIMS];
    const int32_t n = pt_reduce_shape(self, mask, true, sizes);
    return pt_tensor_empty(n, sizes, dtype, self->device, out);
}

pt_status pt_reduce_into(int32_t op, const pt_tensor *x, const bool *mask, pt_tensor **out)
{
    PT_TRY(pt_reduce_kept(x, mask, x->dtype, out));
    if (x->device.type != PT_DEV_CPU) return PT_OK;
    pt_status st = pt_reduce_run(op, x, mask, *out);
    if (st != PT_OK) pt_tensor_release(*out);
    return st;
}

pt_status pt_reduce_into_mapped(int32_t op, const pt_tensor *x, const bool *mask, int32_t map,
                                double p, const pt_tensor *shift, pt_tensor **out)
{
    PT_TRY(pt_reduce_kept(x, mask, x->dtype, out));
    if (x->device.type != PT_DEV_CPU) return PT_OK;
    pt_status st = pt_reduce_run_mapped(op, x, mask, *out, map, p, shift);
    if (st != PT_OK) pt_tensor_release(*out);
    return st;
}

int64_t pt_reduce_count(const pt_tensor *self, const bool *mask)
{
    int64_t n = 1;
    for (int32_t d = 0; d < self->ndim; d++)
        if (mask[d]) n *= self->sizes[d];
    return n;
}

pt_status pt_reduce_check(const pt_tensor *self, const char *name, pt_tensor *out_arg)
{
    PT_TRY(pt_iter_check_operand(self, name, "self"));
    if (out_arg) PT_TRY(pt_iter_check_operand(out_arg, name, "out"));
    return PT_OK;
}

/* The accumulation type of sum and prod: int64 for integers and bool, float32 for the halves. */
static int32_t sum_acc(int32_t dtype)
{
    return pt_is_integral(dtype, true) ? PT_INT64 : pt_opmath_dtype(dtype);
}

/* torch's get_dtype_from_self / infer_dtype_from_optional: dtype=, else out's, else self's with
 * integers and bool promoted to int64. */
static int32_t infer_dtype(const pt_tensor *self, int32_t dtype, const pt_tensor *out_arg)
{
    if (dtype >= 0) return dtype;
    if (out_arg) return out_arg->dtype;
    return pt_is_integral(self->dtype, true) ? PT_INT64 : self->dtype;
}

/* cast -> reduce -> finish, the path of sum, prod, amax, amin, all and any. */
static pt_status reduce_simple(const char *name, int32_t op, const pt_tensor *self,
                               const bool *mask, bool keepdim, int32_t acc, int32_t result,
                               pt_tensor *out_arg, pt_tensor **out)
{
    pt_tensor *x, *r;
    PT_TRY(pt_reduce_cast(self, acc, false, &x));
    pt_status st = pt_reduce_into(op, x, mask, &r);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    return pt_reduce_finish(name, r, self, mask, keepdim, result, out_arg, out);
}

/* ---------------------------------------------------------------- sum, prod, mean */

static pt_status sum_prod(const char *name, int32_t op, const pt_tensor *self, int32_t ndims,
                          const int64_t *dims, bool keepdim, int32_t dtype, pt_tensor *out_arg,
                          pt_tensor **out)
{
    PT_TRY(pt_reduce_check(self, name, out_arg));
    if (dtype >= 0) PT_TRY(pt_dtype_check(dtype, "dtype"));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, ndims, dims, mask));
    const int32_t result = infer_dtype(self, dtype, out_arg);
    /* torch reads the input in the result's dtype first (sum(x, dtype=...), out='s dtype) */
    pt_tensor *x;
    PT_TRY(pt_reduce_cast(self, result, false, &x));
    pt_status st = reduce_simple(name, op, x, mask, keepdim, sum_acc(result), result, out_arg,
                                 out);
    pt_tensor_release(x);
    return st;
}

pt_status pt_kernel_sum(const pt_tensor *self, int32_t dtype, pt_tensor **ret)
{
    return sum_prod("sum", PT_RED_SUM, self, -1, NULL, false, dtype, NULL, ret);
}

pt_status pt_kernel_sum_out(const pt_tensor *self, int32_t dtype, pt_tensor *out, pt_tensor **ret)
{
    return sum_prod("sum", PT_RED_SUM, self, -1, NULL, false, dtype, out, ret);
}

pt_status pt_kernel_sum_dim_IntList(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                    int32_t keepdim, int32_t dtype, pt_tensor **ret)
{
    return sum_prod("sum", PT_RED_SUM, self, dim_len, dim, keepdim, dtype, NULL, ret);
}

pt_status pt_kernel_sum_IntList_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                    int32_t keepdim, int32_t dtype, pt_tensor *out,
                                    pt_tensor **ret)
{
    return sum_prod("sum", PT_RED_SUM, self, dim_len, dim, keepdim, dtype, out, ret);
}

pt_status pt_kernel_prod(const pt_tensor *self, int32_t dtype, pt_tensor **ret)
{
    return sum_prod("prod", PT_RED_PROD, self, -1, NULL, false, dtype, NULL, ret);
}

pt_status pt_kernel_prod_out(const pt_tensor *self, int32_t dtype, pt_tensor *out, pt_tensor **ret)
{
    return sum_prod("prod", PT_RED_PROD, self, -1, NULL, false, dtype, out, ret);
}

pt_status pt_kernel_prod_dim_int(const pt_tensor *self, int64_t dim, int32_t keepdim,
                                 int32_t dtype, pt_tensor **ret)
{
    return sum_prod("prod", PT_RED_PROD, self, 1, &dim, keepdim, dtype, NULL, ret);
}

pt_status pt_kernel_prod_int_out(const pt_tensor *self, int64_t dim, int32_t keepdim,
                                 int32_t dtype, pt_tensor *out, pt_tensor **ret)
{
    return sum_prod("prod", PT_RED_PROD, self, 1, &dim, keepdim, dtype, out, ret);
}

/* x /= n over a contiguous floating or complex tensor (the mean's one division). */
void pt_reduce_divide(pt_tensor *t, double n)
{
    if (t->device.type != PT_DEV_CPU) return;
    const int64_t count = pt_is_complex(t->dtype) ? 2 * t->numel : t->numel;
    if (t->dtype == PT_FLOAT32 || t->dtype == PT_COMPLEX64) {
        float *v = pt_tensor_data(t);
        const float d = (float)n;
        for (int64_t i = 0; i < count; i++) v[i] /= d;
    } else {
        double *v = pt_tensor_data(t);
        for (int64_t i = 0; i < count; i++) v[i] /= n;
    }
}

static pt_status mean(const pt_tensor *self, int32_t ndims, const int64_t *dims, bool keepdim,
                      int32_t dtype, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_reduce_check(self, "mean", out_arg));
    if (dtype >= 0) PT_TRY(pt_dtype_check(dtype, "dtype"));
    const int32_t in = infer_dtype(self, dtype, NULL);
    if (!pt_is_floating(in) && !pt_is_complex(in))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "mean(): could not infer output dtype. %s dtype must be either a "
                        "floating point or complex dtype. Got: %s",
                        dtype >= 0 ? "Optional" : "Input",
                        pt_iter_type_name(dtype >= 0 ? dtype : self->dtype));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, ndims, dims, mask));
    const int32_t result = infer_dtype(self, dtype, out_arg);
    const int32_t acc = pt_opmath_dtype(pt_is_floating(result) || pt_is_complex(result) ? result
                                                                                         : in);
    pt_tensor *x, *r;
    PT_TRY(pt_reduce_cast(self, acc, false, &x));
    pt_status st = pt_reduce_into(PT_RED_SUM, x, mask, &r);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    pt_reduce_divide(r, (double)pt_reduce_count(self, mask));
    return pt_reduce_finish("mean", r, self, mask, keepdim, result, out_arg, out);
}

pt_status pt_kernel_mean(const pt_tensor *self, int32_t dtype, pt_tensor **ret)
{
    return mean(self, -1, NULL, false, dtype, NULL, ret);
}

pt_status pt_kernel_mean_dtype_out(const pt_tensor *self, int32_t dtype, pt_tensor *out,
                                   pt_tensor **ret)
{
    return mean(self, -1, NULL, false, dtype, out, ret);
}

pt_status pt_kernel_mean_dim(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int32_t keepdim, int32_t dtype, pt_tensor **ret)
{
    return mean(self, dim_len, dim, keepdim, dtype, NULL, ret);
}

pt_status pt_kernel_mean_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int32_t keepdim, int32_t dtype, pt_tensor *out, pt_tensor **ret)
{
    return mean(self, dim_len, dim, keepdim, dtype, out, ret);
}

/* ---------------------------------------------------------------- amax, amin, max(), min() */

/* torch's zero_numel_check_dims: an empty input needs named dims, none of them empty. */
pt_status pt_reduce_check_nonempty(const char *name, const pt_tensor *self, int32_t ndims,
                                   const bool *mask, bool arg)
{
    if (self->numel != 0) return PT_OK;
    if (ndims <= 0)
        return PT_ERROR(arg ? PT_ERR_INDEX : PT_ERR_RUNTIME, "%s(): Expected reduction dim to be specified for "
                        "input.numel() == 0.%s", name,
                        arg ? "" : " Specify the reduction dim with the 'dim' argument.");
    for (int32_t d = 0; d < self->ndim; d++)
        if (mask[d] && self->sizes[d] == 0)
            return PT_ERROR(PT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.",
                            name, (int)d);
    return PT_OK;
}

/* torch 2.x raises its dispatch macros' "not implemented for" as NotImplementedError. */
static pt_status unsupported(const char *kernel, int32_t dtype)
{
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                    pt_iter_type_name(dtype));
}

static pt_status same_dtype_out(const pt_tensor *self, const pt_tensor *out_arg)
{
    if (!out_arg || out_arg->dtype == self->dtype) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Expected the dtype for input and out to match, but got %s "
                    "for input's dtype and %s for out's dtype.",
                    pt_iter_type_name(self->dtype), pt_iter_type_name(out_arg->dtype));
}

static pt_status amax_amin(bool max, const char *kernel_name, const pt_tensor *self,
                           int32_t ndims, const int64_t *dims, bool keepdim, pt_tensor *out_arg,
                           pt_tensor **out)
{
    const char *name = max ? "amax" : "amin";
    PT_TRY(pt_reduce_check(self, name, out_arg));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, ndims, dims, mask));
    PT_TRY(pt_reduce_check_nonempty(name, self, ndims, mask, false));
    /* torch only reaches its dtype dispatch when there is something to compute */
    if (pt_is_complex(self->dtype) && self->numel > 0) return unsupported(kernel_name, self->dtype);
    PT_TRY(same_dtype_out(self, out_arg));
    return reduce_simple(name, max ? PT_RED_MAX : PT_RED_MIN, self, mask, keepdim,
                         pt_opmath_dtype(self->dtype), self->dtype, out_arg, out);
}

pt_status pt_kernel_amax(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                         int32_t keepdim, pt_tensor **ret)
{
    return amax_amin(true, "max_values_cpu", self, dim_len, dim, keepdim, NULL, ret);
}

pt_status pt_kernel_amax_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int32_t keepdim, pt_tensor *out, pt_tensor **ret)
{
    return amax_amin(true, "max_values_cpu", self, dim_len, dim, keepdim, out, ret);
}

pt_status pt_kernel_amin(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                         int32_t keepdim, pt_tensor **ret)
{
    return amax_amin(false, "min_values_cpu", self, dim_len, dim, keepdim, NULL, ret);
}

pt_status pt_kernel_amin_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int32_t keepdim, pt_tensor *out, pt_tensor **ret)
{
    return amax_amin(false, "min_values_cpu", self, dim_len, dim, keepdim, out, ret);
}

static pt_status max_all(bool max, const pt_tensor *self, pt_tensor *out_arg, pt_tensor **out)
{
    const char *name = max ? "max" : "min";
    PT_TRY(pt_reduce_check(self, name, out_arg));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, -1, NULL, mask));
    PT_TRY(pt_reduce_check_nonempty(name, self, -1, mask, false));
    if (pt_is_complex(self->dtype))
        return unsupported(max ? "max_all" : "min_all", self->dtype);
    return reduce_simple(name, max ? PT_RED_MAX : PT_RED_MIN, self, mask, false,
                         pt_opmath_dtype(self->dtype), self->dtype, out_arg, out);
}

pt_status pt_kernel_max(const pt_tensor *self, pt_tensor **ret)
{
    return max_all(true, self, NULL, ret);
}

pt_status pt_kernel_max_unary_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return max_all(true, self, out, ret);
}

pt_status pt_kernel_min(const pt_tensor *self, pt_tensor **ret)
{
    return max_all(false, self, NULL, ret);
}

pt_status pt_kernel_min_unary_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return max_all(false, self, out, ret);
}

/* ---------------------------------------------------------------- all, any */

static pt_status all_any(bool all, const pt_tensor *self, int32_t ndims, const int64_t *dims,
                         bool keepdim, pt_tensor *out_arg, pt_tensor **out)
{
    const char *name = all ? "all" : "any";
    PT_TRY(pt_reduce_check(self, name, out_arg));
    const int32_t result = self->dtype == PT_UINT8 ? PT_UINT8 : PT_BOOL;
    if (out_arg && out_arg->dtype != PT_BOOL && out_arg->dtype != PT_UINT8)
        return PT_ERROR(PT_ERR_RUNTIME, "%s only supports bool tensor for result, got: %s", name,
                        pt_iter_type_name(out_arg->dtype));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, ndims, dims, mask));
    return reduce_simple(name, all ? PT_RED_MIN : PT_RED_MAX, self, mask, keepdim, PT_BOOL,
                         result, out_arg, out);
}

/* all.dims / any.dims read an empty list as "no dims" (torch's allany_meta), unlike sum. */
static pt_status all_any_dims(bool all, const pt_tensor *self, int32_t n, const int64_t *dims,
                              bool keepdim, pt_tensor *out_arg, pt_tensor **out)
{
    if (n != 0) return all_any(all, self, n, dims, keepdim, out_arg, out);
    PT_TRY(pt_reduce_check(self, all ? "all" : "any", out_arg));
    const int32_t result = self->dtype == PT_UINT8 ? PT_UINT8 : PT_BOOL;
    pt_tensor *x;
    PT_TRY(pt_reduce_cast(self, PT_BOOL, true, &x));
    bool mask[PT_MAX_DIMS] = {false};
    return pt_reduce_finish(all ? "all" : "any", x, self, mask, keepdim, result, out_arg, out);
}

pt_status pt_kernel_all(const pt_tensor *self, pt_tensor **ret)
{
    return all_any(true, self, -1, NULL, false, NULL, ret);
}

pt_status pt_kernel_all_all_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return all_any(true, self, -1, NULL, false, out, ret);
}

pt_status pt_kernel_all_dim(const pt_tensor *self, int64_t dim, int32_t keepdim, pt_tensor **ret)
{
    return all_any(true, self, 1, &dim, keepdim, NULL, ret);
}

pt_status pt_kernel_all_out(const pt_tensor *self, int64_t dim, int32_t keepdim, pt_tensor *out,
                            pt_tensor **ret)
{
    return all_any(true, self, 1, &dim, keepdim, out, ret);
}

pt_status pt_kernel_all_dims(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int32_t keepdim, pt_tensor **ret)
{
    return all_any_dims(true, self, dim_len, dim, keepdim, NULL, ret);
}

pt_status pt_kernel_all_dims_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                 int32_t keepdim, pt_tensor *out, pt_tensor **ret)
{
    return all_any_dims(true, self, dim_len, dim, keepdim, out, ret);
}

pt_status pt_kernel_any(const pt_tensor *self, pt_tensor **ret)
{
    return all_any(false, self, -1, NULL, false, NULL, ret);
}

pt_status pt_kernel_any_all_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return all_any(false, self, -1, NULL, false, out, ret);
}

pt_status pt_kernel_any_dim(const pt_tensor *self, int64_t dim, int32_t keepdim, pt_tensor **ret)
{
    return all_any(false, self, 1, &dim, keepdim, NULL, ret);
}

pt_status pt_kernel_any_out(const pt_tensor *self, int64_t dim, int32_t keepdim, pt_tensor *out,
                            pt_tensor **ret)
{
    return all_any(false, self, 1, &dim, keepdim, out, ret);
}

pt_status pt_kernel_any_dims(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int32_t keepdim, pt_tensor **ret)
{
    return all_any_dims(false, self, dim_len, dim, keepdim, NULL, ret);
}

pt_status pt_kernel_any_dims_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                 int32_t keepdim, pt_tensor *out, pt_tensor **ret)
{
    return all_any_dims(false, self, dim_len, dim, keepdim, out, ret);
}

/* ---------------------------------------------------------------- max.dim, min.dim, argmax, argmin
 * Arg reductions read every dtype in one of three exact types: int64 (bool, integers), float32
 * (the halves and float32) or float64. */

static int32_t arg_acc(int32_t dtype)
{
    return dtype == PT_FLOAT64 ? PT_FLOAT64 : pt_is_floating(dtype) ? PT_FLOAT32 : PT_INT64;
}

/* torch names out='s expected dtype in C++ terms here ("long int", "double"). */
static const char *cpp_type_name(int32_t dtype)
{
    static const char *const names[PT_DTYPE_BUILTIN_COUNT] = {
        [PT_BOOL] = "bool", [PT_UINT8] = "unsigned char", [PT_INT8] = "signed char",
        [PT_INT16] = "short int", [PT_INT32] = "int", [PT_INT64] = "long int",
        [PT_FLOAT16] = "c10::Half", [PT_BFLOAT16] = "c10::BFloat16", [PT_FLOAT32] = "float",
        [PT_FLOAT64] = "double", [PT_COMPLEX64] = "c10::complex<float>",
        [PT_COMPLEX128] = "c10::complex<double>"};
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT ? names[dtype] : "unknown";
}

static pt_status long_out(const pt_tensor *out_arg)
{
    if (!out_arg || out_arg->dtype == PT_INT64) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype long int, but got %s "
                    "instead", cpp_type_name(out_arg->dtype));
}

/* values (may be NULL) and indices of the first extreme along dim, in the kept shape. */
static pt_status arg_along(int32_t which, const pt_tensor *self, int32_t dim, const bool *mask,
                           pt_tensor **values, pt_tensor **indices)
{
    pt_tensor *x, *v = NULL, *i = NULL;
    PT_TRY(pt_reduce_cast(self, arg_acc(self->dtype), false, &x));
    pt_status st = pt_reduce_kept(x, mask, PT_INT64, &i);
    if (st == PT_OK && values) st = pt_reduce_kept(x, mask, x->dtype, &v);
    if (st == PT_OK && x->device.type == PT_DEV_CPU) st = pt_reduce_arg_run(which, x, dim, v, i);
    pt_tensor_release(x);
    if (st != PT_OK) {
        if (v) pt_tensor_release(v);
        if (i) pt_tensor_release(i);
        return st;
    }
    if (values) *values = v;
    *indices = i;
    return PT_OK;
}

static pt_status max_min_dim(bool max, const pt_tensor *self, int64_t dim, bool keepdim,
                             pt_tensor *values_out, pt_tensor *indices_out, pt_tensor **values,
                             pt_tensor **indices)
{
    const char *name = max ? "max" : "min";
    PT_TRY(pt_reduce_check(self, name, values_out));
    if (indices_out) PT_TRY(pt_iter_check_operand(indices_out, name, "indices"));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, 1, &dim, mask));
    PT_TRY(pt_reduce_check_nonempty(name, self, 1, mask, false));
    if (pt_is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "%s(): does not support complex input", name);
    PT_TRY(long_out(indices_out));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    pt_tensor *v, *i;
    PT_TRY(arg_along(max ? PT_RED_ARG_MAX : PT_RED_ARG_MIN, self, d, mask, &v, &i));
    pt_status st = pt_reduce_finish(name, v, self, mask, keepdim, self->dtype, values_out, values);
    if (st != PT_OK) {
        pt_tensor_release(i);
        return st;
    }
    st = pt_reduce_finish(name, i, self, mask, keepdim, PT_INT64, indices_out, indices);
    if (st != PT_OK) pt_tensor_release(*values);
    return st;
}

pt_status pt_kernel_max_dim(const pt_tensor *self, int64_t dim, int32_t keepdim, pt_tensor **ret0,
                            pt_tensor **ret1)
{
    return max_min_dim(true, self, dim, keepdim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_max_dim_max(const pt_tensor *self, int64_t dim, int32_t keepdim,
                                pt_tensor *max, pt_tensor *max_values, pt_tensor **ret0,
                                pt_tensor **ret1)
{
    return max_min_dim(true, self, dim, keepdim, max, max_values, ret0, ret1);
}

pt_status pt_kernel_min_dim(const pt_tensor *self, int64_t dim, int32_t keepdim, pt_tensor **ret0,
                            pt_tensor **ret1)
{
    return max_min_dim(false, self, dim, keepdim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_min_dim_min(const pt_tensor *self, int64_t dim, int32_t keepdim,
                                pt_tensor *min, pt_tensor *min_indices, pt_tensor **ret0,
                                pt_tensor **ret1)
{
    return max_min_dim(false, self, dim, keepdim, min, min_indices, ret0, ret1);
}

/* argmax/argmin without a dim: the index into the flattened input. */
static pt_status arg_flat(int32_t which, const char *name, const pt_tensor *self, bool keepdim,
                          pt_tensor *out_arg, pt_tensor **out)
{
    if (self->numel == 0)
        return PT_ERROR(PT_ERR_INDEX, "%s(): Expected reduction dim to be specified for "
                        "input.numel() == 0.", name);
    pt_tensor *x, *flat, *i;
    PT_TRY(pt_reduce_cast(self, arg_acc(self->dtype), true, &x));
    const int64_t n = x->numel, one = 1;
    pt_status st = pt_tensor_make(x->storage, x->dtype, 1, &n, &one, x->offset, &flat);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    const bool mask[1] = {true};
    st = arg_along(which, flat, 0, mask, NULL, &i);
    pt_tensor_release(flat);
    if (st != PT_OK) return st;
    int64_t ones[PT_MAX_DIMS];
    const int32_t nd = keepdim ? self->ndim : 0;
    for (int32_t d = 0; d < nd; d++) ones[d] = 1;
    pt_tensor *shaped;
    st = pt_tensor_make(i->storage, PT_INT64, nd, ones, ones, i->offset, &shaped);
    pt_tensor_release(i);
    if (st != PT_OK) return st;
    const bool none[1] = {false};
    return pt_reduce_finish(name, shaped, shaped, none, true, PT_INT64, out_arg, out);
}

static pt_status argmax_argmin(bool max, const pt_tensor *self, const int64_t *dim, bool keepdim,
                               pt_tensor *out_arg, pt_tensor **out)
{
    const char *name = max ? "argmax" : "argmin";
    PT_TRY(pt_reduce_check(self, name, out_arg));
    if (pt_is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "%s(): does not support complex input", name);
    if (self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "%s(): does not support bool input", name);
    PT_TRY(long_out(out_arg));
    const int32_t which = max ? PT_RED_ARG_MAX : PT_RED_ARG_MIN;
    if (!dim) return arg_flat(which, name, self, keepdim, out_arg, out);
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, 1, dim, mask));
    PT_TRY(pt_reduce_check_nonempty(name, self, 1, mask, true));
    int32_t d;
    PT_TRY(pt_wrap_dim(*dim, self->ndim, &d));
    pt_tensor *i;
    PT_TRY(arg_along(which, self, d, mask, NULL, &i));
    return pt_reduce_finish(name, i, self, mask, keepdim, PT_INT64, out_arg, out);
}

pt_status pt_kernel_argmax(const pt_tensor *self, const int64_t *dim, int32_t keepdim,
                           pt_tensor **ret)
{
    return argmax_argmin(true, self, dim, keepdim, NULL, ret);
}

pt_status pt_kernel_argmax_out(const pt_tensor *self, const int64_t *dim, int32_t keepdim,
                               pt_tensor *out, pt_tensor **ret)
{
    return argmax_argmin(true, self, dim, keepdim, out, ret);
}

pt_status pt_kernel_argmin(const pt_tensor *self, const int64_t *dim, int32_t keepdim,
                           pt_tensor **ret)
{
    return argmax_argmin(false, self, dim, keepdim, NULL, ret);
}

pt_status pt_kernel_argmin_out(const pt_tensor *self, const int64_t *dim, int32_t keepdim,
                               pt_tensor *out, pt_tensor **ret)
{
    return argmax_argmin(false, self, dim, keepdim, out, ret);
}

/* ---------------------------------------------------------------- cumsum, cumprod */

/* torch's meta_func_cum_ops: dtype=, else out's (self's for the in-place form), else self's with
 * integers and bool promoted to int64; the input is read in that dtype and accumulated in its
 * accumulation type. */
static pt_status scan(bool sum, const pt_tensor *self, int64_t dim, int32_t dtype,
                      pt_tensor *out_arg, pt_tensor **out)
{
    const char *name = sum ? "cumsum" : "cumprod";
    PT_TRY(pt_reduce_check(self, name, out_arg));
    if (dtype >= 0) PT_TRY(pt_dtype_check(dtype, "dtype"));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    const int32_t result = infer_dtype(self, dtype, out_arg);
    pt_tensor *first, *x, *r = NULL;
    PT_TRY(pt_reduce_cast(self, result, false, &first));
    pt_status st = pt_reduce_cast(first, sum_acc(result), false, &x);
    pt_tensor_release(first);
    if (st != PT_OK) return st;
    st = pt_tensor_empty(x->ndim, x->sizes, x->dtype, x->device, &r);
    if (st == PT_OK && x->device.type == PT_DEV_CPU)
        st = pt_reduce_scan_run(sum ? PT_RED_SCAN_SUM : PT_RED_SCAN_PROD, x, d, r);
    pt_tensor_release(x);
    if (st != PT_OK) {
        if (r) pt_tensor_release(r);
        return st;
    }
    const bool none[PT_MAX_DIMS] = {false};
    return pt_reduce_finish(name, r, self, none, true, result, out_arg, out);
}

pt_status pt_kernel_cumsum(const pt_tensor *self, int64_t dim, int32_t dtype, pt_tensor **ret)
{
    return scan(true, self, dim, dtype, NULL, ret);
}

pt_status pt_kernel_cumsum_(pt_tensor *self, int64_t dim, int32_t dtype, pt_tensor **ret)
{
    return scan(true, self, dim, dtype, self, ret);
}

pt_status pt_kernel_cumsum_out(const pt_tensor *self, int64_t dim, int32_t dtype, pt_tensor *out,
                               pt_tensor **ret)
{
    return scan(true, self, dim, dtype, out, ret);
}

pt_status pt_kernel_cumprod(const pt_tensor *self, int64_t dim, int32_t dtype, pt_tensor **ret)
{
    return scan(false, self, dim, dtype, NULL, ret);
}

pt_status pt_kernel_cumprod_(pt_tensor *self, int64_t dim, int32_t dtype, pt_tensor **ret)
{
    return scan(false, self, dim, dtype, self, ret);
}

pt_status pt_kernel_cumprod_out(const pt_tensor *self, int64_t dim, int32_t dtype, pt_tensor *out,
                                pt_tensor **ret)
{
    return scan(false, self, dim, dtype, out, ret);
}
