/* stats_calc.c - finite differences, integration and second moments, CompositeImplicitAutograd
 * as in PyTorch (diff, trapezoid, trapz, cumulative_trapezoid, cov, corrcoef) plus dist, which
 * PyTorch gives a node of its own (DistBackward0) and which is composed below autograd here.
 *
 * Each is written as torch writes it, step by step through the dispatcher, so that its values
 * come out of the same operations in the same order and autograd records the same nodes:
 *   diff: narrow(x, 1, m) - narrow(x, 0, m) (logical_xor for bool), n times, after prepend and
 *     append are concatenated along dim;
 *   trapezoid with x: sum(dx * (y[1:] + y[:-1])) / 2, dx the differences of x viewed against y;
 *   trapezoid with dx: (sum(y) - (y[0] + y[-1]) * 0.5) * dx;
 *   cumulative_trapezoid: the same terms, cumulatively summed;
 *   cov: torch's weighted covariance (frequency and analytic weights, correction), then
 *     corrcoef divides by the standard deviations and clips to [-1, 1];
 *   dist: norm(self - other, p).
 * Scalar checks read values on the CPU (cov's weights must not be negative), so these refuse
 * meta tensors where torch reads a value.
 */
#include <math.h>
#include <string.h>

#include "iter.h"
#include "native.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "sort_common.h"
#include "stats_internal.h"

#define STEP(var, expr) PT_STATS_STEP(T, var, expr)

static const pt_scalar ONE = {.kind = PT_SCALAR_INT, .i = 1};

/* ---------------------------------------------------------------- diff */

static pt_status diff(const pt_tensor *self, int64_t n, int64_t dim, const pt_tensor *prepend,
                      const pt_tensor *append, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "diff", "self"));
    if (self->ndim < 1)
        return PT_ERROR(PT_ERR_RUNTIME, "diff expects input to be at least one-dimensional");
    if (n < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "order must be non-negative but got %lld", (long long)n);
    if ((prepend && prepend->ndim != self->ndim) || (append && append->ndim != self->ndim))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "diff expects prepend or append to be the same dimension as input");
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    pt_stats_temps T = {.n = 0, .st = PT_OK};
    pt_tensor *x = (pt_tensor *)self, *r = NULL;
    if (prepend || append) {
        pt_tensor *parts[3];
        int32_t k = 0;
        if (prepend) parts[k++] = (pt_tensor *)prepend;
        parts[k++] = (pt_tensor *)self;
        if (append) parts[k++] = (pt_tensor *)append;
        STEP(x, pt_call_cat(k, parts, d));
    }
    if (n == 0) {
        STEP(r, pt_call_clone(x, -1));
        return pt_stats_result(&T, r, ret);
    }
    const bool logical = x->dtype == PT_BOOL;
    int64_t m = x->sizes[d] - 1;
    if (n > x->sizes[d]) n = x->sizes[d];
    r = x;
    for (int64_t i = 0; i < n; i++, m--) {
        pt_tensor *hi, *lo;
        STEP(hi, pt_call_narrow(r, d, 1, m));
        STEP(lo, pt_call_narrow(r, d, 0, m));
        if (logical) STEP(r, pt_call_logical_xor(hi, lo));
        else STEP(r, pt_call_sub_Tensor(hi, lo, &ONE));
    }
    if (r == self) STEP(r, pt_call_clone(x, -1)); /* n capped at 0: an empty dim */
done:
    return pt_stats_result(&T, r, ret);
}

pt_status pt_native_diff(const pt_tensor *self, int64_t n, int64_t dim, const pt_tensor *prepend,
                         const pt_tensor *append, pt_tensor **ret)
{
    return diff(self, n, dim, prepend, append, ret);
}

pt_status pt_native_diff_out(const pt_tensor *self, int64_t n, int64_t dim,
                             const pt_tensor *prepend, const pt_tensor *append, pt_tensor *out,
                             pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(diff(self, n, dim, prepend, append, &r));
    return pt_sort_move_out("diff", "out", r, out, ret);
}

/* ---------------------------------------------------------------- trapezoid */

static pt_status check_not_bool(const pt_tensor *t, const char *name)
{
    if (t->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "trapezoid: received a bool input for `%s`, but bool is "
                        "not supported", name);
    return PT_OK;
}

/* zeros of y's shape without dim d, in y's dtype: the integral over no samples. */
static pt_status zeros_except(const pt_tensor *y, int32_t d, pt_tensor **ret)
{
    int64_t sizes[PT_MAX_DIMS];
    int32_t k = 0;
    for (int32_t i = 0; i < y->ndim; i++)
        if (i != d) sizes[k++] = y->sizes[i];
    PT_TRY(pt_tensor_empty(k, sizes, y->dtype, y->device, ret));
    const pt_scalar zero = {.kind = PT_SCALAR_INT, .i = 0};
    const pt_status st = y->device.type == PT_DEV_CPU ? pt_tensor_fill_(*ret, &zero) : PT_OK;
    if (st != PT_OK) pt_tensor_release(*ret);
    return st;
}

/* dx: the differences of x along d, x viewed against y as torch views it (a 1-d x along d,
 * a shorter x with leading ones). */
static pt_tensor *x_differences(pt_stats_temps *Tp, const pt_tensor *y, const pt_tensor *x,
                                int32_t d)
{
    pt_stats_temps T = {.n = 0, .st = PT_OK};
    pt_tensor *xv = (pt_tensor *)x, *hi, *lo, *r = NULL;
    int64_t sizes[PT_MAX_DIMS];
    if (x->ndim == 1) {
        if (x->sizes[0] != y->sizes[d]) {
            T.st = PT_ERROR(PT_ERR_RUNTIME, "trapezoid: There must be one `x` value for each "
                            "sample point");
            goto done;
        }
        for (int32_t i = 0; i < y->ndim; i++) sizes[i] = i == d ? x->sizes[0] : 1;
        STEP(xv, pt_call_view(x, y->ndim, sizes));
    } else if (x->ndim < y->ndim) {
        const int32_t pad = y->ndim - x->ndim;
        for (int32_t i = 0; i < y->ndim; i++) sizes[i] = i < pad ? 1 : x->sizes[i - pad];
        STEP(xv, pt_call_view(x, y->ndim, sizes));
    }
    const int64_t m = xv->sizes[d] - 1;
    STEP(hi, pt_call_narrow(xv, d, 1, m));
    STEP(lo, pt_call_narrow(xv, d, 0, m));
    r = pt_call_sub_Tensor(hi, lo, &ONE);
    if (!r) T.st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
done:
    pt_stats_release(&T);
    if (T.st != PT_OK && Tp->st == PT_OK) Tp->st = T.st;
    return T.st == PT_OK ? r : NULL;
}

/* y[1:] + y[:-1] along d. */
static pt_tensor *pair_sums(pt_stats_temps *Tp, const pt_tensor *y, int32_t d)
{
    pt_stats_temps T = {.n = 0, .st = PT_OK};
    pt_tensor *hi, *lo, *r = NULL;
    const int64_t m = y->sizes[d] - 1;
    STEP(hi, pt_call_narrow(y, d, 1, m));
    STEP(lo, pt_call_narrow(y, d, 0, m));
    r = pt_call_add_Tensor(hi, lo, &ONE);
    if (!r) T.st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
done:
    pt_stats_release(&T);
    if (T.st != PT_OK && Tp->st == PT_OK) Tp->st = T.st;
    return T.st == PT_OK ? r : NULL;
}

static pt_status trapezoid_x(const pt_tensor *y, const pt_tensor *x, int64_t dim, bool cumulative,
                             pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(y, "trapezoid", "y"));
    PT_TRY(pt_iter_check_operand(x, "trapezoid", "x"));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, y->ndim, &d));
    if (y->ndim == 0)
        return PT_ERROR(PT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                        (long long)dim);
    if (y->sizes[d] == 0 && !cumulative) return zeros_except(y, d, ret);
    PT_TRY(check_not_bool(y, "y"));
    PT_TRY(check_not_bool(x, "x"));
    const pt_scalar two = {.kind = PT_SCALAR_FLOAT, .re = 2.0};
    pt_stats_temps T = {.n = 0, .st = PT_OK};
    pt_tensor *dx, *sums, *terms, *total, *r = NULL;
    if (y->sizes[d] == 0) STEP(r, pt_call_clone(y, -1)); /* no intervals: empty along dim */
    else {
        STEP(dx, x_differences(&T, y, x, d));
        STEP(sums, pair_sums(&T, y, d));
        STEP(terms, pt_call_mul_Tensor(dx, sums));
        const int64_t dd = d;
        if (cumulative) STEP(total, pt_call_cumsum(terms, d, -1));
        else STEP(total, pt_call_sum_dim_IntList(terms, 1, &dd, 0, -1));
        STEP(r, pt_call_div_Scalar(total, &two));
    }
done:
    return pt_stats_result(&T, r, ret);
}

static pt_status trapezoid_dx(const pt_tensor *y, const pt_scalar *dx, int64_t dim,
                              bool cumulative, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(y, "trapezoid", "y"));
    if (dx->kind == PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_RUNTIME, "trapezoid: Currently, we only support dx as a real "
                        "number.");
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, y->ndim, &d));
    if (y->ndim == 0)
        return PT_ERROR(PT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                        (long long)dim);
    if (y->sizes[d] == 0 && !cumulative) return zeros_except(y, d, ret);
    PT_TRY(check_not_bool(y, "y"));
    const pt_scalar half = {.kind = PT_SCALAR_FLOAT, .re = 0.5};
    pt_stats_temps T = {.n = 0, .st = PT_OK};
    pt_tensor *r = NULL;
    if (cumulative) {
        /* (dx / 2 * (y[1:] + y[:-1])).cumsum(dim) */
        pt_tensor *sums, *scaled;
        const double h = (dx->kind == PT_SCALAR_FLOAT ? dx->re : (double)dx->i) / 2.0;
        const pt_scalar hs = {.kind = PT_SCALAR_FLOAT, .re = h};
        if (y->sizes[d] == 0) STEP(r, pt_call_clone(y, -1));
        else {
            STEP(sums, pair_sums(&T, y, d));
            STEP(scaled, pt_call_mul_Scalar(sums, &hs));
            STEP(r, pt_call_cumsum(scaled, d, -1));
        }
    } else {
        pt_tensor *total, *first, *last, *ends, *half_ends, *inner;
        const int64_t dd = d;
        STEP(total, pt_call_sum_dim_IntList(y, 1, &dd, 0, -1));
        STEP(first, pt_call_select_int(y, d, 0));
        STEP(last, pt_call_select_int(y, d, -1));
        STEP(ends, pt_call_add_Tensor(first, last, &ONE));
        STEP(half_ends, pt_call_mul_Scalar(ends, &half));
        STEP(inner, pt_call_sub_Tensor(total, half_ends, &ONE));
        STEP(r, pt_call_mul_Scalar(inner, dx));
    }
done:
    return pt_stats_result(&T, r, ret);
}

pt_status pt_native_trapezoid_x(const pt_tensor *y, const pt_tensor *x, int64_t dim,
                                pt_tensor **ret)
{
    return trapezoid_x(y, x, dim, false, ret);
}

pt_status pt_native_trapezoid_dx(const pt_tensor *y, const pt_scalar *dx, int64_t dim,
                                 pt_tensor **ret)
{
    return trapezoid_dx(y, dx, dim, false, ret);
}

pt_status pt_native_trapz_x(const pt_tensor *y, const pt_tensor *x, int64_t dim, pt_tensor **ret)
{
    return trapezoid_x(y, x, dim, false, ret);
}

pt_status pt_native_trapz_dx(const pt_tensor *y, double dx, int64_t dim, pt_tensor **ret)
{
    const pt_scalar s = {.kind = PT_SCALAR_FLOAT, .re = dx};
    return trapezoid_dx(y, &s, dim, false, ret);
}

pt_status pt_native_cumulative_trapezoid_x(const pt_tensor *y, const pt_tensor *x, int64_t dim,
                                           pt_tensor **ret)
{
    return trapezoid_x(y, x, dim, true, ret);
}

pt_status pt_native_cumulative_trapezoid_dx(const pt_tensor *y, const pt_scalar *dx, int64_t dim,
                                            pt_tensor **ret)
{
    return trapezoid_dx(y, dx, dim, true, ret);
}

/* ---------------------------------------------------------------- cov, corrcoef */

/* The value of a 0-d tensor as a double (read on the CPU). */
static pt_status value_of(const pt_tensor *t, double *v)
{
    pt_scalar s;
    PT_TRY(pt_call_item(t, &s));
    *v = s.kind == PT_SCALAR_FLOAT ? s.re : s.kind == PT_SCALAR_COMPLEX ? s.re : (double)s.i;
    return PT_OK;
}

static pt_status weight_checks(const char *name, const pt_tensor *w, int64_t observations,
                               bool integral)
{
    PT_TRY(pt_iter_check_operand(w, "cov", name));
    if (w->ndim > 1)
        return PT_ERROR(PT_ERR_RUNTIME, "cov(): expected %s to have one or fewer dimensions but "
                        "got %s with %d dimensions", name, name, (int)w->ndim);
    if (integral ? !pt_is_integral(w->dtype, false) : !pt_is_floating(w->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "cov(): expected %s to have %s dtype but got %s with %s "
                        "dtype", name, integral ? "integral" : "floating point", name,
                        pt_iter_type_name(w->dtype));
    if (w->numel != observations)
        return PT_ERROR(PT_ERR_RUNTIME, "cov(): expected %s to have the same numel as there are "
                        "observations in the input but got %lld != %lld", name,
                        (long long)w->numel, (long long)observations);
    if (observations == 0) return PT_OK;
    pt_tensor *lo = pt_call_min(w);
    if (!lo) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    double v = 0;
    const pt_status st = value_of(lo, &v);
    pt_tensor_release(lo);
    if (st != PT_OK) return st;
    if (!(v >= 0)) return PT_ERROR(PT_ERR_RUNTIME, "cov(): %s cannot be negative", name);
    return PT_OK;
}

static pt_status cov(const pt_tensor *self, int64_t correction, const pt_tensor *fweights,
                     const pt_tensor *aweights, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "cov", "self"));
    if (self->ndim > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "cov(): expected input to have two or fewer dimensions "
                        "but got an input with %d dimensions", (int)self->ndim);
    if (self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "cov(): bool dtype is not supported for input");
    const int64_t observations = self->ndim == 2 ? self->sizes[1] : self->numel;
    if (fweights) PT_TRY(weight_checks("fweights", fweights, observations, true));
    if (aweights) PT_TRY(weight_checks("aweights", aweights, observations, false));
    pt_stats_temps T = {.n = 0, .st = PT_OK};
    pt_tensor *in = (pt_tensor *)self, *w = NULL, *w_sum, *weighted, *total, *avg, *norm,
              *avg1, *centred, *wc, *wct, *wctc, *c, *q, *r = NULL;
    if (self->ndim < 2) {
        const int64_t shape[2] = {1, -1};
        STEP(in, pt_call_view(self, 2, shape));
    }
    if (fweights) w = (pt_tensor *)fweights;
    if (aweights) {
        if (w) STEP(w, pt_call_mul_Tensor(w, aweights));
        else w = (pt_tensor *)aweights;
    }
    if (w) {
        STEP(w_sum, pt_call_sum(w, -1));
        double s = 0;
        T.st = value_of(w_sum, &s);
        if (T.st != PT_OK) goto done;
        if (s == 0) {
            T.st = PT_ERROR(PT_ERR_RUNTIME, "cov(): weights sum to zero, can't be normalized");
            goto done;
        }
    } else { /* the observation count, a 0-d int64 tensor as torch's scalar_tensor */
        const pt_scalar n = {.kind = PT_SCALAR_INT, .i = observations};
        T.st = pt_tensor_empty(0, NULL, PT_INT64, in->device, &w_sum);
        if (T.st != PT_OK) goto done;
        pt_stats_hold(&T, w_sum);
        if (in->device.type == PT_DEV_CPU) T.st = pt_tensor_fill_(w_sum, &n);
        if (T.st != PT_OK) goto done;
    }
    const int64_t obs_dim = 1;
    if (w) STEP(weighted, pt_call_mul_Tensor(in, w));
    else weighted = in;
    STEP(total, pt_call_sum_dim_IntList(weighted, 1, &obs_dim, 0, -1));
    STEP(avg, pt_call_div_Tensor(total, w_sum));
    const pt_scalar corr = {.kind = PT_SCALAR_INT, .i = correction};
    if (w && aweights && correction != 0) {
        pt_tensor *wa, *was, *scaled, *frac;
        STEP(wa, pt_call_mul_Tensor(w, aweights));
        STEP(was, pt_call_sum(wa, -1));
        STEP(scaled, pt_call_mul_Scalar(was, &corr));
        STEP(frac, pt_call_div_Tensor(scaled, w_sum));
        STEP(norm, pt_call_sub_Tensor(w_sum, frac, &ONE));
    } else {
        STEP(norm, pt_call_sub_Scalar(w_sum, &corr, &ONE));
    }
    double nf = 0;
    T.st = value_of(norm, &nf);
    if (T.st != PT_OK) goto done;
    if (nf <= 0) { /* torch warns that the degrees of freedom are <= 0 and divides by zero */
        STEP(norm, pt_call_zeros_like(norm, -1, -1, NULL, -1, -1));
    }
    STEP(avg1, pt_call_unsqueeze(avg, 1));
    STEP(centred, pt_call_sub_Tensor(in, avg1, &ONE));
    if (w) STEP(wc, pt_call_mul_Tensor(centred, w));
    else wc = centred;
    STEP(wct, pt_call_t(wc));
    STEP(wctc, pt_call_conj(wct));
    STEP(c, pt_call_mm(centred, wctc));
    STEP(q, pt_call_true_divide_Tensor(c, norm));
    STEP(r, pt_call_squeeze(q));
done:
    return pt_stats_result(&T, r, ret);
}

pt_status pt_native_cov(const pt_tensor *self, int64_t correction, const pt_tensor *fweights,
                        const pt_tensor *aweights, pt_tensor **ret)
{
    return cov(self, correction, fweights, aweights, ret);
}

pt_status pt_native_corrcoef(const pt_tensor *self, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "corrcoef", "self"));
    if (self->ndim > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "corrcoef(): expected input to have two or fewer "
                        "dimensions but got an input with %d dimensions", (int)self->ndim);
    pt_stats_temps T = {.n = 0, .st = PT_OK};
    pt_tensor *c = NULL, *d, *dr, *sd, *col, *row, *c1, *c2, *r = NULL;
    T.st = cov(self, 1, NULL, NULL, &c);
    if (T.st != PT_OK) goto done;
    pt_stats_hold(&T, c);
    if (c->ndim == 0) {
        STEP(r, pt_call_div_Tensor(c, c)); /* NaN for a NaN, infinite or zero variance */
        goto done;
    }
    const bool cplx = pt_is_complex(c->dtype);
    STEP(d, pt_call_diagonal(c, 0, 0, 1));
    if (cplx) STEP(dr, pt_call_real(d));
    else dr = d;
    STEP(sd, pt_call_sqrt(dr));
    const int64_t as_col[2] = {-1, 1}, as_row[2] = {1, -1};
    STEP(col, pt_call_view(sd, 2, as_col));
    STEP(row, pt_call_view(sd, 2, as_row));
    STEP(c1, pt_call_div_Tensor(c, col));
    STEP(c2, pt_call_div_Tensor(c1, row));
    const pt_scalar lo = {.kind = PT_SCALAR_INT, .i = -1}, hi = {.kind = PT_SCALAR_INT, .i = 1};
    if (cplx) {
        pt_tensor *re, *im, *rec, *imc;
        STEP(re, pt_call_real(c2));
        STEP(im, pt_call_imag(c2));
        STEP(rec, pt_call_clamp(re, &lo, &hi));
        STEP(imc, pt_call_clamp(im, &lo, &hi));
        STEP(r, pt_call_complex(rec, imc));
    } else {
        STEP(r, pt_call_clamp(c2, &lo, &hi));
    }
done:
    return pt_stats_result(&T, r, ret);
}

/* ---------------------------------------------------------------- dist */

pt_status pt_native_dist(const pt_tensor *self, const pt_tensor *other, const pt_scalar *p,
                         pt_tensor **ret)
{
    pt_stats_temps T = {.n = 0, .st = PT_OK};
    pt_tensor *d, *r = NULL;
    STEP(d, pt_call_sub_Tensor(self, other, &ONE));
    if (!pt_is_floating(d->dtype) && !pt_is_complex(d->dtype)) {
        T.st = PT_ERROR(PT_ERR_RUNTIME, "norm(): input dtype should be either floating point or "
                        "complex. Got %s instead.", pt_iter_type_name(d->dtype));
        goto done;
    }
    STEP(r, pt_call_norm_Scalar(d, p));
done:
    return pt_stats_result(&T, r, ret);
}

pt_status pt_native_dist_out(const pt_tensor *self, const pt_tensor *other, const pt_scalar *p,
                             pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_dist(self, other, p, &r));
    return pt_sort_move_out("dist", "out", r, out, ret);
}
#undef STEP
