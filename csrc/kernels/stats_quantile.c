/* stats_quantile.c - quantile and nanquantile, CompositeImplicitAutograd as in PyTorch: every
 * step is an operator call through the dispatcher, so that autograd records the steps and the
 * gradient reaches the two elements each quantile interpolates between.
 *
 * The steps are torch's: the input is sorted along the reduced dim (moved last, or flattened when
 * no dim is given) and viewed as [reduced shape..., n]; each q becomes a fractional rank
 * q * (n - 1) (for nanquantile, q * (non-NaN count - 1), clamped at 0 for a row of NaNs; for
 * quantile, a row holding NaN gets the last rank, where its sorted NaNs are); the interpolation
 * mode rounds the rank (lower: floor, higher: ceil, nearest: half to even) or keeps it (linear,
 * midpoint), the values at the rank's floor and ceiling are gathered and combined as lerp does,
 * and the q dimension is moved first (or dropped for a scalar q).
 *
 * Deviation from torch: pytensor has no lerp operator, so the interpolation is written out
 * (the two forms lerp chooses between by weight < 0.5); the values are lerp's, the graph holds
 * the arithmetic's nodes rather than LerpBackward1, and the last node is squeeze's.
 */
#include <math.h>
#include <string.h>

#include "iter.h"
#include "native.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "sort_common.h"
#include "stats_internal.h"

enum { Q_LINEAR, Q_LOWER, Q_HIGHER, Q_MIDPOINT, Q_NEAREST };

static pt_status interpolation_mode(const char *s, int *mode)
{
    static const char *const names[] = {"linear", "lower", "higher", "midpoint", "nearest"};
    for (int i = 0; i < 5; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *mode = i;
            return PT_OK;
        }
    return PT_ERROR(PT_ERR_RUNTIME, "quantile() interpolation must be one of linear, lower, "
                    "higher, midpoint or nearest, but got %s", s ? s : "None");
}

/* torch's quantile_checks, in its order. */
static pt_status quantile_checks(const pt_tensor *self, const pt_tensor *q)
{
    PT_TRY(pt_iter_check_operand(self, "quantile", "self"));
    PT_TRY(pt_iter_check_operand(q, "quantile", "q"));
    if (self->numel == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "quantile() input tensor must be non-empty");
    if (q->ndim > 1) return PT_ERROR(PT_ERR_RUNTIME, "quantile() q must be a scalar or 1D tensor");
    if (self->dtype != PT_FLOAT32 && self->dtype != PT_FLOAT64)
        return PT_ERROR(PT_ERR_RUNTIME, "quantile() input tensor must be either float or double "
                        "dtype");
    if (q->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "quantile() q tensor must be same dtype as the input "
                        "tensor");
    if (q->device.type != self->device.type)
        return PT_ERROR(PT_ERR_RUNTIME, "quantile() q tensor must be on the same device as the "
                        "input tensor");
    if (q->device.type != PT_DEV_CPU) return PT_OK; /* torch reads q's values on the CPU only */
    pt_tensor *qd = NULL;
    PT_TRY(pt_tensor_empty(q->ndim, q->sizes, PT_FLOAT64, q->device, &qd));
    pt_status st = pt_tensor_copy_(qd, q);
    if (st == PT_OK) {
        const double *v = pt_tensor_data(qd);
        for (int64_t i = 0; i < qd->numel; i++)
            if (!(v[i] >= 0.0 && v[i] <= 1.0)) {
                st = PT_ERROR(PT_ERR_RUNTIME, "quantile() q values must be in the range [0, 1]");
                break;
            }
    }
    pt_tensor_release(qd);
    return st;
}

#define STEP(var, expr) PT_STATS_STEP(T, var, expr)
typedef pt_stats_temps temps;
#define hold pt_stats_hold

/* lerp(a, b, w) as torch computes it: a + w (b - a) for w < 0.5, b - (b - a)(1 - w) above. */
static pt_tensor *lerp(temps *Tp, const pt_tensor *a, const pt_tensor *b, const pt_tensor *w)
{
    temps T = {.n = 0, .st = PT_OK};
    const pt_scalar one = {.kind = PT_SCALAR_INT, .i = 1}, half = {.kind = PT_SCALAR_FLOAT, .re = 0.5};
    pt_tensor *diff, *wd, *low, *omw, *dw, *high, *small, *r = NULL;
    STEP(diff, pt_call_sub_Tensor(b, a, &one));
    STEP(wd, pt_call_mul_Tensor(w, diff));
    STEP(low, pt_call_add_Tensor(a, wd, &one));
    STEP(omw, pt_call_rsub_Scalar(w, &one, &one));
    STEP(dw, pt_call_mul_Tensor(diff, omw));
    STEP(high, pt_call_sub_Tensor(b, dw, &one));
    STEP(small, pt_call_lt_Scalar(w, &half));
    r = pt_call_where_self(small, low, high);
    if (!r) T.st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
done:
    for (int i = 0; i < T.n; i++) pt_tensor_release(T.t[i]);
    if (T.st != PT_OK) {
        if (Tp->st == PT_OK) Tp->st = T.st;
        return NULL;
    }
    return r;
}

static pt_status quantile_impl(const pt_tensor *self, const pt_tensor *q, const int64_t *dim,
                               bool keepdim, const char *interpolation, bool ignore_nan,
                               pt_tensor **ret)
{
    PT_TRY(quantile_checks(self, q));
    int mode = Q_LINEAR;
    PT_TRY(interpolation_mode(interpolation, &mode));
    int32_t d = 0;
    if (dim) PT_TRY(pt_wrap_dim(*dim, self->ndim, &d));
    /* [reduced shape..., n]: the shape the sorted rows are viewed in */
    int64_t shape[PT_MAX_DIMS + 1];
    int32_t nr = 0;
    for (int32_t k = 0; k < self->ndim; k++) {
        if (!dim || k == d) {
            if (keepdim) shape[nr++] = 1;
        } else {
            shape[nr++] = self->sizes[k];
        }
    }
    const int64_t n = !dim ? self->numel : self->ndim > 0 ? self->sizes[d] : 1;
    shape[nr] = n;
    const pt_scalar one = {.kind = PT_SCALAR_INT, .i = 1}, zero = {.kind = PT_SCALAR_INT, .i = 0};
    const pt_scalar last = {.kind = PT_SCALAR_INT, .i = n - 1};
    const int64_t minus1 = -1;
    temps T = {.n = 0, .st = PT_OK};
    pt_tensor *src = (pt_tensor *)self, *moved, *sv, *si, *sorted, *isn, *ranks, *r, *out = NULL;
    if (!dim) STEP(src, pt_call_flatten_using_ints(self, 0, -1));
    else if (self->ndim > 0 && d != self->ndim - 1) {
        STEP(moved, pt_call_unsqueeze(self, -1));
        STEP(src, pt_call_transpose_int(moved, d, -1));
    }
    T.st = pt_call_sort(src, -1, 0, &sv, &si);
    if (T.st != PT_OK) goto done;
    hold(&T, sv);
    hold(&T, si);
    STEP(sorted, pt_call_reshape(sv, nr + 1, shape));
    STEP(isn, pt_call_isnan(sorted));
    if (ignore_nan) {
        pt_tensor *kept, *count, *count1, *scaled;
        STEP(kept, pt_call_logical_not(isn));
        STEP(count, pt_call_sum_dim_IntList(kept, 1, &minus1, 1, -1));
        STEP(count1, pt_call_sub_Scalar(count, &one, &one));
        STEP(scaled, pt_call_mul_Tensor(q, count1));
        STEP(ranks, pt_call_clamp_min(scaled, &zero)); /* a row of NaNs: rank 0, a NaN */
    } else {
        pt_tensor *scaled, *any;
        STEP(scaled, pt_call_mul_Scalar(q, &last));
        STEP(any, pt_call_any_dim(isn, -1, 1));
        STEP(ranks, pt_call_where_ScalarSelf(any, &last, scaled)); /* NaN sorts last */
    }
    if (mode == Q_LOWER) STEP(ranks, pt_call_floor(ranks));
    else if (mode == Q_HIGHER) STEP(ranks, pt_call_ceil(ranks));
    else if (mode == Q_NEAREST) STEP(ranks, pt_call_round(ranks));
    pt_tensor *below_i, *below;
    STEP(below_i, pt_call_to_dtype(ranks, PT_INT64, 0, 0, -1));
    STEP(below, pt_call_gather(sorted, -1, below_i, 0));
    r = below;
    if (mode == Q_LINEAR || mode == Q_MIDPOINT) {
        pt_tensor *w, *up, *above_i, *above;
        const pt_scalar half = {.kind = PT_SCALAR_FLOAT, .re = 0.5};
        if (mode == Q_MIDPOINT) STEP(w, pt_call_full_like(ranks, &half, -1, -1, NULL, -1, -1));
        else STEP(w, pt_call_sub_Tensor(ranks, below_i, &one));
        STEP(up, pt_call_ceil(ranks));
        STEP(above_i, pt_call_to_dtype(up, PT_INT64, 0, 0, -1));
        STEP(above, pt_call_gather(sorted, -1, above_i, 0));
        STEP(r, lerp(&T, below, above, w));
    }
    if (q->ndim == 0) {
        out = pt_call_squeeze_dim(r, -1);
    } else {
        pt_tensor *a, *b;
        STEP(a, pt_call_unsqueeze(r, 0));
        STEP(b, pt_call_transpose_int(a, 0, -1));
        out = pt_call_squeeze_dim(b, -1);
    }
    if (!out) T.st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
done:
    for (int i = 0; i < T.n; i++) pt_tensor_release(T.t[i]);
    if (T.st != PT_OK) return T.st;
    *ret = out;
    return PT_OK;
}
#undef STEP
#undef hold

/* A scalar q as a 0-d tensor of self's dtype, after torch's range check of the number. */
static pt_status scalar_q(const pt_tensor *self, double q, pt_tensor **out)
{
    if (!(q >= 0.0 && q <= 1.0))
        return PT_ERROR(PT_ERR_RUNTIME, "quantile() q must be in the range [0, 1] but got %g", q);
    PT_TRY(pt_tensor_empty(0, NULL, self->dtype, self->device, out));
    const pt_scalar v = {.kind = PT_SCALAR_FLOAT, .re = q};
    const pt_status st = self->device.type == PT_DEV_CPU ? pt_tensor_fill_(*out, &v) : PT_OK;
    if (st != PT_OK) pt_tensor_release(*out);
    return st;
}

static pt_status quantile_out(const pt_tensor *self, const pt_tensor *q, const int64_t *dim,
                              bool keepdim, const char *interpolation, bool ignore_nan,
                              pt_tensor *out, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(out, "quantile", "out"));
    if (out->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "quantile() out tensor must be same dtype as the input "
                        "tensor");
    if (out->device.type != self->device.type)
        return PT_ERROR(PT_ERR_RUNTIME, "quantile() out tensor must be on the same device as the "
                        "input tensor");
    pt_tensor *r = NULL;
    PT_TRY(quantile_impl(self, q, dim, keepdim, interpolation, ignore_nan, &r));
    return pt_sort_move_out("quantile", "out", r, out, ret);
}

static pt_status quantile_scalar(const pt_tensor *self, double q, const int64_t *dim,
                                 bool keepdim, const char *interpolation, bool ignore_nan,
                                 pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *qt = NULL;
    PT_TRY(scalar_q(self, q, &qt));
    const pt_status st =
        out ? quantile_out(self, qt, dim, keepdim, interpolation, ignore_nan, out, ret)
            : quantile_impl(self, qt, dim, keepdim, interpolation, ignore_nan, ret);
    pt_tensor_release(qt);
    return st;
}

pt_status pt_native_quantile(const pt_tensor *self, const pt_tensor *q, const int64_t *dim,
                             int32_t keepdim, const char *interpolation, pt_tensor **ret)
{
    return quantile_impl(self, q, dim, keepdim, interpolation, false, ret);
}

pt_status pt_native_quantile_scalar(const pt_tensor *self, double q, const int64_t *dim,
                                    int32_t keepdim, const char *interpolation, pt_tensor **ret)
{
    return quantile_scalar(self, q, dim, keepdim, interpolation, false, NULL, ret);
}

pt_status pt_native_quantile_out(const pt_tensor *self, const pt_tensor *q, const int64_t *dim,
                                 int32_t keepdim, const char *interpolation, pt_tensor *out,
                                 pt_tensor **ret)
{
    return quantile_out(self, q, dim, keepdim, interpolation, false, out, ret);
}

pt_status pt_native_quantile_scalar_out(const pt_tensor *self, double q, const int64_t *dim,
                                        int32_t keepdim, const char *interpolation,
                                        pt_tensor *out, pt_tensor **ret)
{
    return quantile_scalar(self, q, dim, keepdim, interpolation, false, out, ret);
}

pt_status pt_native_nanquantile(const pt_tensor *self, const pt_tensor *q, const int64_t *dim,
                                int32_t keepdim, const char *interpolation, pt_tensor **ret)
{
    return quantile_impl(self, q, dim, keepdim, interpolation, true, ret);
}

pt_status pt_native_nanquantile_scalar(const pt_tensor *self, double q, const int64_t *dim,
                                       int32_t keepdim, const char *interpolation,
                                       pt_tensor **ret)
{
    return quantile_scalar(self, q, dim, keepdim, interpolation, true, NULL, ret);
}

pt_status pt_native_nanquantile_out(const pt_tensor *self, const pt_tensor *q, const int64_t *dim,
                                    int32_t keepdim, const char *interpolation, pt_tensor *out,
                                    pt_tensor **ret)
{
    return quantile_out(self, q, dim, keepdim, interpolation, true, out, ret);
}

pt_status pt_native_nanquantile_scalar_out(const pt_tensor *self, double q, const int64_t *dim,
                                           int32_t keepdim, const char *interpolation,
                                           pt_tensor *out, pt_tensor **ret)
{
    return quantile_scalar(self, q, dim, keepdim, interpolation, true, out, ret);
}
