/* reduce_stats.c - the reductions composed of a map and a reduction: norm and
 * linalg_vector_norm, var and std (with var_mean and std_mean), logsumexp.
 *
 * Each runs in its input's compute type (float32 for float16/bfloat16) on a contiguous copy:
 *   norm p: |x| mapped per element, then summed (p = 1), summed as |x|^2 then square-rooted
 *     (p = 2, as torch computes it), max/min'd (p = +-inf), counted (p = 0) or summed as |x|^p
 *     and raised to 1/p;
 *   var: two passes - the mean, then the sum of |x - mean|^2 divided by max(0, n - correction) -
 *     which is as stable as Welford's update for a reduction that sees all its data at once;
 *   logsumexp: m = max (0 where it is infinite, as torch), then log(sum(exp(x - m))) + m; for
 *     complex x, m is the max of the real parts and the rest complex arithmetic.
 * For real types the map runs inside the reduction's walk (Note [mapped reductions] in reduce.c):
 * x is read once per pass and no temporary of its size is made; complex types map into one.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "iter.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "reduce.h"

static int32_t real_of(int32_t dtype)
{
    return dtype == PT_COMPLEX64 ? PT_FLOAT32 : dtype == PT_COMPLEX128 ? PT_FLOAT64 : dtype;
}

/* An entry point's result (NULL: its error is recorded). */
static pt_status called(pt_tensor *r, pt_tensor **out)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *out = r;
    return PT_OK;
}

/* A new contiguous tensor of x's shape in dtype holding map(x). */
static pt_status mapped(int32_t map, const pt_tensor *x, int32_t dtype, double p, pt_tensor **out)
{
    PT_TRY(pt_tensor_empty(x->ndim, x->sizes, dtype, x->device, out));
    pt_reduce_map(map, x, *out, p);
    return PT_OK;
}

/* ---------------------------------------------------------------- norms */

typedef struct norm_args {
    const pt_tensor *self;
    double p;
    int32_t ndims;
    const int64_t *dims;
    bool keepdim;
    int32_t dtype; /* -1: self's */
} norm_args;

static pt_status norm_checks(const norm_args *a)
{
    const pt_tensor *self = a->self;
    if (!pt_is_floating(self->dtype) && !pt_is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "linalg.vector_norm: Expected a floating point or "
                        "complex tensor as input. Got %s", pt_iter_type_name(self->dtype));
    if (a->dtype < 0) return PT_OK;
    PT_TRY(pt_dtype_check(a->dtype, "dtype"));
    const char *why = NULL;
    if (!pt_is_floating(a->dtype) && !pt_is_complex(a->dtype))
        why = "floating point or complex";
    else if (pt_is_complex(self->dtype) && !pt_is_complex(a->dtype))
        why = "complex for complex inputs";
    else if (!pt_is_complex(self->dtype) && pt_is_complex(a->dtype))
        why = "real for real inputs";
    if (why)
        return PT_ERROR(PT_ERR_RUNTIME, "linalg.vector_norm: dtype should be %s, but got %s", why,
                        pt_iter_type_name(a->dtype));
    return PT_OK;
}

/* Norms without an identity (p < 0, inf) refuse empty reductions, in torch's words (its second
 * message lacks a space after the dim, kept so that its text matches). */
static pt_status norm_nonempty(const norm_args *a, const bool *mask)
{
    const pt_tensor *self = a->self;
    if (self->numel != 0 || !(a->p < 0 || isinf(a->p))) return PT_OK;
    char ord[32];
    snprintf(ord, sizeof ord, "%g", a->p);
    if (a->ndims <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "linalg.vector_norm cannot compute the %s norm on an "
                        "empty tensor because the operation does not have an identity", ord);
    for (int32_t d = 0; d < self->ndim; d++)
        if (mask[d] && self->sizes[d] == 0)
            return PT_ERROR(PT_ERR_RUNTIME, "linalg.vector_norm cannot compute the %s norm on the "
                            "dimension %dbecause this dimension is empty and the operation does "
                            "not have an identity", ord, (int)d);
    return PT_OK;
}

/* The reduction of |x| that the norm of order p is, on a contiguous x of a compute type. */
static pt_status norm_reduce(double p, const pt_tensor *x, const bool *mask, pt_tensor **out)
{
    const int32_t real = real_of(x->dtype);
    int32_t map = PT_RED_MAP_POWABS, op = PT_RED_SUM, post = PT_RED_MAP_POW;
    if (p == 0) map = PT_RED_MAP_NONZERO, post = -1;
    else if (p == 1) map = PT_RED_MAP_ABS, post = -1;
    else if (p == 2) map = PT_RED_MAP_ABS2, post = PT_RED_MAP_SQRT;
    else if (isinf(p)) map = PT_RED_MAP_ABS, op = p > 0 ? PT_RED_MAX : PT_RED_MIN, post = -1;
    pt_tensor *m, *r;
    if (real == x->dtype) { /* Note [mapped reductions]: no temporary */
        PT_TRY(pt_reduce_into_mapped(op, x, mask, map, p, NULL, &r));
    } else {
        PT_TRY(mapped(map, x, real, p, &m));
        pt_status st = pt_reduce_into(op, m, mask, &r);
        pt_tensor_release(m);
        if (st != PT_OK) return st;
    }
    if (post >= 0) pt_reduce_map(post, r, r, 1.0 / p);
    *out = r;
    return PT_OK;
}

static pt_status vector_norm(const norm_args *a, pt_tensor *out_arg, pt_tensor **out)
{
    const pt_tensor *self = a->self;
    PT_TRY(pt_reduce_check(self, "linalg.vector_norm", out_arg));
    PT_TRY(norm_checks(a));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, a->ndims, a->dims, mask));
    PT_TRY(norm_nonempty(a, mask));
    const int32_t in = a->dtype >= 0 ? a->dtype : self->dtype;
    pt_tensor *first, *x, *r;
    PT_TRY(pt_reduce_cast(self, in, false, &first));
    pt_status st = pt_reduce_cast(first, pt_opmath_dtype(in), true, &x);
    pt_tensor_release(first);
    if (st != PT_OK) return st;
    st = norm_reduce(a->p, x, mask, &r);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    return pt_reduce_finish("linalg.vector_norm", r, self, mask, a->keepdim, real_of(in), out_arg,
                            out);
}

/* A Scalar order as a double (NULL: 2, torch's default and its 'fro'). */
static pt_status order(const pt_scalar *p, double *out)
{
    if (!p) {
        *out = 2;
        return PT_OK;
    }
    if (p->kind == PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_RUNTIME, "linalg.vector_norm: ord must be a real number");
    *out = p->kind == PT_SCALAR_FLOAT ? p->re : (double)p->i;
    return PT_OK;
}

static pt_status norm(const pt_tensor *self, const pt_scalar *p, int32_t ndims,
                      const int64_t *dims, bool keepdim, int32_t dtype, pt_tensor *out_arg,
                      pt_tensor **out)
{
    norm_args a = {self, 0, ndims, dims, keepdim, dtype};
    PT_TRY(order(p, &a.p));
    return vector_norm(&a, out_arg, out);
}

pt_status pt_kernel_norm_Scalar(const pt_tensor *self, const pt_scalar *p, pt_tensor **ret)
{
    return norm(self, p, -1, NULL, false, -1, NULL, ret);
}

pt_status pt_kernel_norm_Scalar_out(const pt_tensor *self, const pt_scalar *p, pt_tensor *out,
                                    pt_tensor **ret)
{
    return norm(self, p, -1, NULL, false, -1, out, ret);
}

pt_status pt_kernel_norm_ScalarOpt_dtype(const pt_tensor *self, const pt_scalar *p, int32_t dtype,
                                         pt_tensor **ret)
{
    return norm(self, p, -1, NULL, false, dtype, NULL, ret);
}

pt_status pt_kernel_norm_ScalarOpt_dtype_out(const pt_tensor *self, const pt_scalar *p,
                                             int32_t dtype, pt_tensor *out, pt_tensor **ret)
{
    return norm(self, p, -1, NULL, false, dtype, out, ret);
}

pt_status pt_kernel_norm_ScalarOpt_dim(const pt_tensor *self, const pt_scalar *p, int32_t dim_len,
                                       const int64_t *dim, int32_t keepdim, pt_tensor **ret)
{
    return norm(self, p, dim_len, dim, keepdim, -1, NULL, ret);
}

pt_status pt_kernel_norm_out(const pt_tensor *self, const pt_scalar *p, int32_t dim_len,
                             const int64_t *dim, int32_t keepdim, pt_tensor *out, pt_tensor **ret)
{
    return norm(self, p, dim_len, dim, keepdim, -1, out, ret);
}

pt_status pt_kernel_norm_ScalarOpt_dim_dtype(const pt_tensor *self, const pt_scalar *p,
                                             int32_t dim_len, const int64_t *dim, int32_t keepdim,
                                             int32_t dtype, pt_tensor **ret)
{
    return norm(self, p, dim_len, dim, keepdim, dtype, NULL, ret);
}

pt_status pt_kernel_norm_dtype_out(const pt_tensor *self, const pt_scalar *p, int32_t dim_len,
                                   const int64_t *dim, int32_t keepdim, int32_t dtype,
                                   pt_tensor *out, pt_tensor **ret)
{
    return norm(self, p, dim_len, dim, keepdim, dtype, out, ret);
}

pt_status pt_kernel_linalg_vector_norm(const pt_tensor *self, const pt_scalar *ord,
                                       int32_t dim_len, const int64_t *dim, int32_t keepdim,
                                       int32_t dtype, pt_tensor **ret)
{
    return norm(self, ord, dim_len, dim, keepdim, dtype, NULL, ret);
}

pt_status pt_kernel_linalg_vector_norm_out(const pt_tensor *self, const pt_scalar *ord,
                                           int32_t dim_len, const int64_t *dim, int32_t keepdim,
                                           int32_t dtype, pt_tensor *out, pt_tensor **ret)
{
    return norm(self, ord, dim_len, dim, keepdim, dtype, out, ret);
}

/* ---------------------------------------------------------------- var, std */

typedef struct var_args {
    const pt_tensor *self;
    int32_t ndims;
    const int64_t *dims;
    double correction;
    bool keepdim, take_sqrt;
} var_args;

/* The mean (kept shape, compute type) and the variance of a contiguous x of a compute type. */
static pt_status var_reduce(const var_args *a, const pt_tensor *x, const bool *mask,
                            pt_tensor **mean_out, pt_tensor **var_out)
{
    const double n = (double)pt_reduce_count(x, mask);
    pt_tensor *mean, *diff = NULL, *sq = NULL, *v = NULL;
    PT_TRY(pt_reduce_into(PT_RED_SUM, x, mask, &mean));
    pt_reduce_divide(mean, n);
    pt_status st = PT_OK;
    if (real_of(x->dtype) == x->dtype) /* Note [mapped reductions]: sum((x - mean)^2) in one pass */
        st = pt_reduce_into_mapped(PT_RED_SUM, x, mask, PT_RED_MAP_ABS2, 0, mean, &v);
    else
        st = called(pt_call_sub_Tensor(x, mean, NULL), &diff);
    if (st == PT_OK && !v) {
        st = mapped(PT_RED_MAP_ABS2, diff, real_of(x->dtype), 0, &sq);
        pt_tensor_release(diff);
    }
    if (st == PT_OK && sq) {
        st = pt_reduce_into(PT_RED_SUM, sq, mask, &v);
        pt_tensor_release(sq);
    }
    if (st != PT_OK) {
        pt_tensor_release(mean);
        return st;
    }
    pt_reduce_divide(v, n - a->correction > 0 ? n - a->correction : 0);
    if (a->take_sqrt) pt_reduce_map(PT_RED_MAP_SQRT, v, v, 0);
    *mean_out = mean;
    *var_out = v;
    return PT_OK;
}

static pt_status var_std(const var_args *a, pt_tensor *out_arg, pt_tensor *mean_arg,
                         pt_tensor **out, pt_tensor **mean_out)
{
    const pt_tensor *self = a->self;
    const char *name = a->take_sqrt ? "std" : "var";
    PT_TRY(pt_reduce_check(self, name, out_arg));
    if (mean_arg) PT_TRY(pt_iter_check_operand(mean_arg, name, "out1"));
    if (!pt_is_floating(self->dtype) && !pt_is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "std and var only support floating point and complex "
                        "dtypes");
    const int32_t result = real_of(self->dtype);
    if (out_arg && !pt_dtype_can_cast(result, out_arg->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "result type %s can't be cast to the desired output type "
                        "%s", pt_iter_type_name(result), pt_iter_type_name(out_arg->dtype));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, a->ndims, a->dims, mask));
    pt_tensor *x, *mean, *v;
    PT_TRY(pt_reduce_cast(self, pt_opmath_dtype(self->dtype), true, &x));
    pt_status st = var_reduce(a, x, mask, &mean, &v);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    st = pt_reduce_finish(name, v, self, mask, a->keepdim, result, out_arg, out);
    if (st != PT_OK || !mean_out) {
        pt_tensor_release(mean);
        return st;
    }
    st = pt_reduce_finish(name, mean, self, mask, a->keepdim, self->dtype, mean_arg, mean_out);
    if (st != PT_OK) pt_tensor_release(*out);
    return st;
}

static pt_status correction_of(const pt_scalar *c, double *out)
{
    if (!c) {
        *out = 1;
        return PT_OK;
    }
    if (c->kind == PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_RUNTIME, "correction: expected a real number");
    *out = c->kind == PT_SCALAR_FLOAT ? c->re : (double)c->i;
    return PT_OK;
}

/* One entry for every overload: dims (n < 0: None), correction (NULL: 1), or unbiased (-1: the
 * correction is used). */
static pt_status var_entry(bool take_sqrt, const pt_tensor *self, int32_t ndims,
                           const int64_t *dims, const pt_scalar *correction, int32_t unbiased,
                           bool keepdim, pt_tensor *out_arg, pt_tensor *mean_arg, pt_tensor **out,
                           pt_tensor **mean_out)
{
    var_args a = {self, ndims, dims, 1, keepdim, take_sqrt};
    if (unbiased >= 0) a.correction = unbiased ? 1 : 0;
    else PT_TRY(correction_of(correction, &a.correction));
    return var_std(&a, out_arg, mean_arg, out, mean_out);
}

#define PT_VAR_OVERLOADS(NAME, SQRT)                                                               \
    pt_status pt_kernel_##NAME(const pt_tensor *self, int32_t unbiased, pt_tensor **ret)           \
    {                                                                                              \
        return var_entry(SQRT, self, -1, NULL, NULL, unbiased, false, NULL, NULL, ret, NULL);      \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_dim(const pt_tensor *self, int32_t dim_len, const int64_t *dim,   \
                                     int32_t unbiased, int32_t keepdim, pt_tensor **ret)           \
    {                                                                                              \
        return var_entry(SQRT, self, dim_len, dim, NULL, unbiased, keepdim, NULL, NULL, ret,       \
                         NULL);                                                                    \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,   \
                                     int32_t unbiased, int32_t keepdim, pt_tensor *out,            \
                                     pt_tensor **ret)                                              \
    {                                                                                              \
        return var_entry(SQRT, self, dim_len, dim, NULL, unbiased, keepdim, out, NULL, ret, NULL); \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_correction(const pt_tensor *self, int32_t dim_len,                \
                                            const int64_t *dim, const pt_scalar *correction,       \
                                            int32_t keepdim, pt_tensor **ret)                      \
    {                                                                                              \
        return var_entry(SQRT, self, dim_len, dim, correction, -1, keepdim, NULL, NULL, ret,       \
                         NULL);                                                                    \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_correction_out(const pt_tensor *self, int32_t dim_len,            \
                                                const int64_t *dim, const pt_scalar *correction,   \
                                                int32_t keepdim, pt_tensor *out, pt_tensor **ret)  \
    {                                                                                              \
        return var_entry(SQRT, self, dim_len, dim, correction, -1, keepdim, out, NULL, ret, NULL); \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_mean(const pt_tensor *self, int32_t unbiased, pt_tensor **ret0,   \
                                      pt_tensor **ret1)                                            \
    {                                                                                              \
        return var_entry(SQRT, self, -1, NULL, NULL, unbiased, false, NULL, NULL, ret0, ret1);     \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_mean_dim(const pt_tensor *self, int32_t dim_len,                  \
                                          const int64_t *dim, int32_t unbiased, int32_t keepdim,   \
                                          pt_tensor **ret0, pt_tensor **ret1)                      \
    {                                                                                              \
        return var_entry(SQRT, self, dim_len, dim, NULL, unbiased, keepdim, NULL, NULL, ret0,      \
                         ret1);                                                                    \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_mean_correction(const pt_tensor *self, int32_t dim_len,           \
                                                 const int64_t *dim, const pt_scalar *correction,  \
                                                 int32_t keepdim, pt_tensor **ret0,                \
                                                 pt_tensor **ret1)                                 \
    {                                                                                              \
        return var_entry(SQRT, self, dim_len, dim, correction, -1, keepdim, NULL, NULL, ret0,      \
                         ret1);                                                                    \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_mean_correction_out(                                              \
        const pt_tensor *self, int32_t dim_len, const int64_t *dim, const pt_scalar *correction,   \
        int32_t keepdim, pt_tensor *out0, pt_tensor *out1, pt_tensor **ret0, pt_tensor **ret1)     \
    {                                                                                              \
        return var_entry(SQRT, self, dim_len, dim, correction, -1, keepdim, out0, out1, ret0,      \
                         ret1);                                                                    \
    }
PT_VAR_OVERLOADS(var, false)
PT_VAR_OVERLOADS(std, true)

/* ---------------------------------------------------------------- logsumexp */

/* m = 0 where m is infinite (torch's masked_fill of the maxima), so that all -inf inputs give
 * -inf and +inf inputs give +inf rather than NaN. */
static void zero_infinities(pt_tensor *m)
{
    if (m->device.type != PT_DEV_CPU) return;
    if (m->dtype == PT_FLOAT32) {
        float *v = pt_tensor_data(m);
        for (int64_t i = 0; i < m->numel; i++)
            if (isinf(v[i])) v[i] = 0;
    } else {
        double *v = pt_tensor_data(m);
        for (int64_t i = 0; i < m->numel; i++)
            if (isinf(v[i])) v[i] = 0;
    }
}

/* log(sum(exp(x - m))) + m over a contiguous real x of a compute type. */
static pt_status logsumexp_reduce(const pt_tensor *x, const bool *mask, pt_tensor **out)
{
    pt_tensor *m, *s = NULL;
    if (pt_reduce_count(x, mask) == 0) {
        PT_TRY(pt_reduce_kept(x, mask, x->dtype, &m));
        const pt_scalar zero = {PT_SCALAR_INT, 0, 0, 0};
        pt_tensor_fill_(m, &zero);
    } else {
        PT_TRY(pt_reduce_into(PT_RED_MAX, x, mask, &m));
        zero_infinities(m);
    }
    /* Note [mapped reductions]: sum(exp(x - m)) in one pass (m is made with x's mask). */
    pt_status st = pt_reduce_into_mapped(PT_RED_SUM, x, mask, PT_RED_MAP_EXP, 0, m, &s);
    if (st == PT_OK) {
        pt_reduce_map(PT_RED_MAP_LOG, s, s, 0);
        st = called(pt_call_add_Tensor(s, m, NULL), out);
        pt_tensor_release(s);
    }
    pt_tensor_release(m);
    return st;
}

/* Complex x, as torch: m = the max of the real parts (0 where infinite), then
 * log(sum(exp(x - m))) + m with the complex exp, sum and log. */
static pt_status logsumexp_complex(const pt_tensor *x, const bool *mask, pt_tensor **out)
{
    int64_t strides[PT_MAX_DIMS];
    for (int32_t d = 0; d < x->ndim; d++) strides[d] = x->strides[d] * 2;
    pt_tensor *re, *m = NULL, *d = NULL, *e = NULL, *s = NULL, *l = NULL;
    PT_TRY(pt_tensor_make(x->storage, real_of(x->dtype), x->ndim, x->sizes, strides,
                          x->offset * 2, &re));
    pt_status st;
    if (pt_reduce_count(x, mask) == 0) {
        st = pt_reduce_kept(re, mask, re->dtype, &m);
        const pt_scalar zero = {PT_SCALAR_INT, 0, 0, 0};
        if (st == PT_OK) st = pt_tensor_fill_(m, &zero);
    } else {
        st = pt_reduce_into(PT_RED_MAX, re, mask, &m);
        if (st == PT_OK) zero_infinities(m);
    }
    pt_tensor_release(re);
    if (st == PT_OK) st = called(pt_call_sub_Tensor(x, m, NULL), &d);
    if (st == PT_OK) st = called(pt_call_exp(d), &e);
    if (st == PT_OK) st = pt_reduce_into(PT_RED_SUM, e, mask, &s);
    if (st == PT_OK) st = called(pt_call_log(s), &l);
    if (st == PT_OK) st = called(pt_call_add_Tensor(l, m, NULL), out);
    pt_tensor *held[] = {m, d, e, s, l};
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++)
        if (held[i]) pt_tensor_release(held[i]);
    return st;
}

static pt_status logsumexp(const pt_tensor *self, int32_t ndims, const int64_t *dims,
                           bool keepdim, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_reduce_check(self, "logsumexp", out_arg));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, ndims, dims, mask));
    const int32_t result = pt_is_integral(self->dtype, true) ? pt_dtype_default() : self->dtype;
    pt_tensor *x, *r = NULL;
    PT_TRY(pt_reduce_cast(self, pt_opmath_dtype(result), true, &x));
    pt_status st = pt_is_complex(x->dtype) ? logsumexp_complex(x, mask, &r)
                                           : logsumexp_reduce(x, mask, &r);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    return pt_reduce_finish("logsumexp", r, self, mask, keepdim, result, out_arg, out);
}

pt_status pt_kernel_logsumexp(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                              int32_t keepdim, pt_tensor **ret)
{
    return logsumexp(self, dim_len, dim, keepdim, NULL, ret);
}

pt_status pt_kernel_logsumexp_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                  int32_t keepdim, pt_tensor *out, pt_tensor **ret)
{
    return logsumexp(self, dim_len, dim, keepdim, out, ret);
}
