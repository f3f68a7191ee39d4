/* stats_bins.c - counting into bins and searching sorted sequences: bincount, histc, histogram
 * (a bin count or explicit edges), searchsorted and bucketize.
 *
 * bincount adds 1 (or the element's weight) at each non-negative integer; histc and histogram
 * place each element in a bin of a 1-d edge sequence, as torch's histogramdd kernel does
 * (Note [bin placement]). searchsorted finds, for each value, the first position in its sorted
 * row whose element is >= the value (>, for right=True) by binary search, with torch's
 * comparisons written as !(a >= b), so that a NaN value lands past every element; bucketize is
 * searchsorted over one 1-d boundaries tensor. Values and boundaries are compared in their common
 * dtype, read exactly as int64 (integers) or float64 (floating types).
 *
 * None of these is differentiable (their results are counts and positions; torch defines no
 * derivative for them either). Meta tensors get the checks that need no values, and shapes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "iter.h"
#include "native.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"
#include "sort_common.h"

static pt_status unsupported(const char *kernel, int32_t dtype)
{
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                    pt_iter_type_name(dtype));
}

/* t as a new contiguous tensor of dtype (t itself, retained, when it already is one). */
static pt_status as_contiguous(const pt_tensor *t, int32_t dtype, pt_tensor **out)
{
    if (t->dtype == dtype && pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS)) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    PT_TRY(pt_tensor_empty(t->ndim, t->sizes, dtype, t->device, out));
    const pt_status st = pt_tensor_copy_(*out, t);
    if (st != PT_OK) pt_tensor_release(*out);
    return st;
}

static pt_status zeros(int64_t n, int32_t dtype, pt_device dev, pt_tensor **out)
{
    PT_TRY(pt_tensor_empty(1, &n, dtype, dev, out));
    if (dev.type == PT_DEV_CPU && n > 0)
        memset(pt_tensor_data(*out), 0, (size_t)n * (size_t)pt_dtype_itemsize(dtype));
    return PT_OK;
}

/* ---------------------------------------------------------------- bincount */

static pt_status bincount(const pt_tensor *self, const pt_tensor *weights, int64_t minlength,
                          pt_tensor **out)
{
    PT_TRY(pt_iter_check_operand(self, "bincount", "self"));
    if (weights) PT_TRY(pt_iter_check_operand(weights, "bincount", "weights"));
    if (!pt_is_integral(self->dtype, false)) return unsupported("bincount_cpu", self->dtype);
    if (minlength < 0) return PT_ERROR(PT_ERR_RUNTIME, "minlength should be >= 0");
    if (self->ndim == 1 && self->numel == 0) return zeros(minlength, PT_INT64, self->device, out);
    if (self->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "bincount only supports 1-d non-negative integral inputs.");
    if (self->device.type != PT_DEV_CPU)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "bincount: the result's length depends on the "
                        "values, which a %s tensor does not hold",
                        pt_device_type_name(self->device.type));
    pt_tensor *x = NULL, *w = NULL;
    PT_TRY(as_contiguous(self, PT_INT64, &x));
    const int64_t *v = pt_tensor_data(x), n = x->numel;
    int64_t top = -1;
    for (int64_t i = 0; i < n; i++) {
        if (v[i] < 0) {
            pt_tensor_release(x);
            return PT_ERROR(PT_ERR_RUNTIME, "bincount only supports 1-d non-negative integral "
                            "inputs.");
        }
        if (v[i] > top) top = v[i];
    }
    if (weights && (weights->ndim != 1 || weights->sizes[0] != n)) {
        pt_tensor_release(x);
        return PT_ERROR(PT_ERR_RUNTIME, "weights should be 1-d and have the same length as input");
    }
    const int64_t len = top + 1 > minlength ? top + 1 : minlength;
    /* torch sums float32 weights in float32 and every other dtype in float64 */
    const int32_t rtype = !weights ? PT_INT64 : weights->dtype == PT_FLOAT32 ? PT_FLOAT32
                                                                            : PT_FLOAT64;
    pt_status st = weights ? as_contiguous(weights, rtype, &w) : PT_OK;
    if (st == PT_OK) st = zeros(len, rtype, self->device, out);
    if (st == PT_OK) {
        void *r = pt_tensor_data(*out);
        if (!w)
            for (int64_t i = 0; i < n; i++) ((int64_t *)r)[v[i]]++;
        else if (rtype == PT_FLOAT32)
            for (int64_t i = 0; i < n; i++) ((float *)r)[v[i]] += ((const float *)pt_tensor_data(w))[i];
        else
            for (int64_t i = 0; i < n; i++)
                ((double *)r)[v[i]] += ((const double *)pt_tensor_data(w))[i];
    }
    pt_tensor_release(x);
    if (w) pt_tensor_release(w);
    return st;
}

pt_status pt_kernel_bincount(const pt_tensor *self, const pt_tensor *weights, int64_t minlength,
                             pt_tensor **ret)
{
    return bincount(self, weights, minlength, ret);
}

pt_status pt_kernel_bincount_out(const pt_tensor *self, const pt_tensor *weights,
                                 int64_t minlength, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(bincount(self, weights, minlength, &r));
    return pt_sort_move_out("bincount", "out", r, out, ret);
}

/* ---------------------------------------------------------------- histc, histogram
 * Note [bin placement]
 * As torch's histogramdd kernel: an element outside [first edge, last edge] (or NaN) is skipped;
 * otherwise its bin is estimated by linear interpolation, (x - first) * bins / (last - first)
 * truncated, computed in the element type. histc keeps the estimate; histogram with a bin count
 * corrects it by a search among the neighbouring edges (the computed edges are linspace's, not
 * exactly evenly spaced); histogram with explicit edges binary-searches them (the last edge <= x).
 * The last bin includes its right edge. Weighted elements add their weight. */

enum { BIN_LINEAR = 0, BIN_LOCAL_SEARCH = 1, BIN_SEARCH = 2 };

/* The bin of x among edges e[0..m) (m >= 2) by the rule `how`; -1 when it falls outside. */
static int64_t bin_of(double x, const double *e, int64_t m, int how, bool single)
{
    const double lo = e[0], hi = e[m - 1];
    if (!(x >= lo && x <= hi)) return -1;
    int64_t pos;
    if (how == BIN_SEARCH) {
        int64_t a = 0, b = m; /* upper_bound */
        while (a < b) {
            const int64_t mid = a + (b - a) / 2;
            if (!(x < e[mid])) a = mid + 1;
            else b = mid;
        }
        pos = a - 1;
    } else {
        pos = single ? (int64_t)(((float)x - (float)lo) * (float)(m - 1) / ((float)hi - (float)lo))
                     : (int64_t)((x - lo) * (double)(m - 1) / (hi - lo));
        if (how == BIN_LOCAL_SEARCH) {
            int64_t a = pos - 1 > 0 ? pos - 1 : 0, b = pos + 2 < m ? pos + 2 : m;
            while (a < b) {
                const int64_t mid = a + (b - a) / 2;
                if (!(x < e[mid])) a = mid + 1;
                else b = mid;
            }
            pos = a - 1;
        }
    }
    if (pos == m - 1) pos--;
    return pos;
}

/* hist (contiguous, dtype of self, m - 1 bins, zeroed) += the counts of self's elements among
 * edges (contiguous, m values in self's dtype), weighted when weight is given. */
static pt_status fill_hist(const pt_tensor *self, const pt_tensor *edges, const pt_tensor *weight,
                           int how, pt_tensor *hist)
{
    pt_tensor *x = NULL, *e = NULL, *w = NULL, *h = NULL;
    PT_TRY(as_contiguous(self, PT_FLOAT64, &x));
    pt_status st = as_contiguous(edges, PT_FLOAT64, &e);
    if (st == PT_OK && weight) st = as_contiguous(weight, PT_FLOAT64, &w);
    if (st == PT_OK) st = zeros(hist->numel, PT_FLOAT64, hist->device, &h);
    if (st == PT_OK) {
        const double *xv = pt_tensor_data(x), *ev = pt_tensor_data(e);
        const double *wv = w ? pt_tensor_data(w) : NULL;
        double *hv = pt_tensor_data(h);
        const bool single = self->dtype != PT_FLOAT64;
        for (int64_t i = 0; i < x->numel; i++) {
            const int64_t b = bin_of(xv[i], ev, e->numel, how, single);
            if (b >= 0) hv[b] += wv ? wv[i] : 1.0;
        }
        st = pt_tensor_copy_(hist, h);
    }
    if (x) pt_tensor_release(x);
    if (e) pt_tensor_release(e);
    if (w) pt_tensor_release(w);
    if (h) pt_tensor_release(h);
    return st;
}

/* edges (new, 1-d, m = bins + 1 values of dtype) = linspace(lo, hi, m) as torch's linspace. */
static pt_status linspace_edges(double lo, double hi, int64_t bins, int32_t dtype, pt_device dev,
                                pt_tensor **edges)
{
    const pt_scalar a = {.kind = PT_SCALAR_FLOAT, .re = lo}, b = {.kind = PT_SCALAR_FLOAT, .re = hi};
    pt_tensor *r = pt_call_linspace(&a, &b, bins + 1, dtype, -1, &dev, -1);
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *edges = r;
    return PT_OK;
}

static pt_status data_extrema(const pt_tensor *self, double *lo, double *hi)
{
    pt_tensor *x = NULL;
    PT_TRY(as_contiguous(self, PT_FLOAT64, &x));
    const double *v = pt_tensor_data(x);
    double mn = v[0], mx = v[0];
    for (int64_t i = 0; i < x->numel; i++) {
        if (isnan(v[i])) {
            mn = mx = v[i];
            break;
        }
        if (v[i] < mn) mn = v[i];
        if (v[i] > mx) mx = v[i];
    }
    pt_tensor_release(x);
    *lo = mn;
    *hi = mx;
    return PT_OK;
}

static pt_status histc(const pt_tensor *self, int64_t bins, const pt_scalar *min,
                       const pt_scalar *max, pt_tensor **out)
{
    PT_TRY(pt_iter_check_operand(self, "histc", "self"));
    if (!pt_is_floating(self->dtype)) return unsupported("histogram_cpu", self->dtype);
    if (bins <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogram(): bins must be > 0, but got %lld for "
                        "dimension 0", (long long)bins);
    double lo = min->kind == PT_SCALAR_FLOAT ? min->re : (double)min->i;
    double hi = max->kind == PT_SCALAR_FLOAT ? max->re : (double)max->i;
    if (lo == hi && self->numel > 0) {
        if (self->device.type != PT_DEV_CPU)
            return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "histc: the range comes from the values, "
                            "which a %s tensor does not hold",
                            pt_device_type_name(self->device.type));
        PT_TRY(data_extrema(self, &lo, &hi));
    }
    if (lo == hi) {
        lo -= 1;
        hi += 1;
    }
    if (!isfinite(lo) || !isfinite(hi))
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histc: range of [%g, %g] is not finite", lo, hi);
    if (!(lo < hi)) return PT_ERROR(PT_ERR_RUNTIME, "torch.histc: max must be larger than min");
    pt_tensor *edges = NULL;
    PT_TRY(linspace_edges(lo, hi, bins, self->dtype, self->device, &edges));
    pt_status st = zeros(bins, self->dtype, self->device, out);
    if (st == PT_OK && self->device.type == PT_DEV_CPU) {
        st = fill_hist(self, edges, NULL, BIN_LINEAR, *out);
        if (st != PT_OK) pt_tensor_release(*out);
    }
    pt_tensor_release(edges);
    return st;
}

pt_status pt_kernel_histc(const pt_tensor *self, int64_t bins, const pt_scalar *min,
                          const pt_scalar *max, pt_tensor **ret)
{
    return histc(self, bins, min, max, ret);
}

pt_status pt_kernel_histc_out(const pt_tensor *self, int64_t bins, const pt_scalar *min,
                              const pt_scalar *max, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(histc(self, bins, min, max, &r));
    return pt_sort_move_out("histc", "out", r, out, ret);
}

static pt_status histogram_checks(const pt_tensor *self, const pt_tensor *weight)
{
    PT_TRY(pt_iter_check_operand(self, "histogram", "self"));
    if (self->dtype != PT_FLOAT32 && self->dtype != PT_FLOAT64)
        return unsupported("histogramdd", self->dtype);
    if (!weight) return PT_OK;
    PT_TRY(pt_iter_check_operand(weight, "histogram", "weight"));
    if (weight->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogramdd: if weight tensor is provided, it "
                        "should have the same dtype as the input tensor, but got weight %s and "
                        "input %s", pt_iter_type_name(weight->dtype),
                        pt_iter_type_name(self->dtype));
    bool same = weight->ndim == self->ndim;
    for (int32_t d = 0; same && d < self->ndim; d++) same = weight->sizes[d] == self->sizes[d];
    if (!same) {
        char a[256], b[256];
        const int64_t rows = self->numel;
        pt_format_ints(a, sizeof a, 2, (const int64_t[]){rows, 1});
        pt_format_ints(b, sizeof b, weight->ndim, weight->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogramdd: if weight tensor is provided it should "
                        "have the same shape as the input tensor excluding its innermost "
                        "dimension, but got input with shape %s and weight with shape %s", a, b);
    }
    return PT_OK;
}

/* hist = the (weighted, normalized when density) counts among edges (a 1-d float tensor). */
static pt_status histogram_fill(const pt_tensor *self, const pt_tensor *edges,
                                const pt_tensor *weight, bool density, int how, pt_tensor **hist)
{
    const int64_t bins = edges->numel - 1;
    PT_TRY(zeros(bins > 0 ? bins : 0, self->dtype, self->device, hist));
    if (self->device.type != PT_DEV_CPU || bins <= 0) return PT_OK;
    pt_status st = fill_hist(self, edges, weight, how, *hist);
    if (st == PT_OK && density) {
        /* hist / sum(hist) / bin widths, as torch divides */
        pt_tensor *h = NULL, *e = NULL;
        st = as_contiguous(*hist, PT_FLOAT64, &h);
        if (st == PT_OK) st = as_contiguous(edges, PT_FLOAT64, &e);
        if (st == PT_OK) {
            double *hv = pt_tensor_data(h), total = 0;
            const double *ev = pt_tensor_data(e);
            for (int64_t i = 0; i < bins; i++) total += hv[i];
            for (int64_t i = 0; i < bins; i++) hv[i] = hv[i] / total / (ev[i + 1] - ev[i]);
            st = pt_tensor_copy_(*hist, h);
        }
        if (h) pt_tensor_release(h);
        if (e) pt_tensor_release(e);
    }
    if (st != PT_OK) pt_tensor_release(*hist);
    return st;
}

static pt_status histogram_tensor(const pt_tensor *self, const pt_tensor *bins,
                                  const pt_tensor *weight, bool density, pt_tensor **hist,
                                  pt_tensor **edges)
{
    PT_TRY(histogram_checks(self, weight));
    PT_TRY(pt_iter_check_operand(bins, "histogram", "bins"));
    if (bins->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogramdd: input tensor and bins tensors should "
                        "have the same dtype, but got input %s and bins %s",
                        pt_iter_type_name(self->dtype), pt_iter_type_name(bins->dtype));
    if (bins->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogramdd: bins tensor should have one "
                        "dimension, but got %d dimensions in the bins tensor for dimension 0",
                        (int)bins->ndim);
    if (bins->numel == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogramdd: bins tensor should have at least 1 "
                        "element, but got 0 elements in the bins tensor for dimension 0");
    PT_TRY(as_contiguous(bins, bins->dtype, edges));
    const pt_status st = histogram_fill(self, *edges, weight, density, BIN_SEARCH, hist);
    if (st != PT_OK) pt_tensor_release(*edges);
    return st;
}

static pt_status histogram_count(const pt_tensor *self, int64_t bins, int32_t range_len,
                                 const double *range, const pt_tensor *weight, bool density,
                                 pt_tensor **hist, pt_tensor **edges)
{
    PT_TRY(histogram_checks(self, weight));
    if (bins <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogram(): bins must be > 0, but got %lld for "
                        "dimension 0", (long long)bins);
    double lo = 0.0, hi = 1.0;
    if (range) {
        if (range_len != 2)
            return PT_ERROR(PT_ERR_RUNTIME, "torch.histogramdd: for 1 dimensions, range must "
                            "have 2 elements, but got %d", (int)range_len);
        lo = range[0];
        hi = range[1];
    } else if (self->numel > 0) {
        if (self->device.type != PT_DEV_CPU)
            return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "histogram: the range comes from the values, "
                            "which a %s tensor does not hold",
                            pt_device_type_name(self->device.type));
        PT_TRY(data_extrema(self, &lo, &hi));
    }
    if (!isfinite(lo) || !isfinite(hi))
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogramdd: dimension 0's range [%g, %g] is not "
                        "finite", lo, hi);
    if (!(lo <= hi))
        return PT_ERROR(PT_ERR_RUNTIME, "torch.histogramdd: min should not exceed max, but got "
                        "min %g max %g for dimension 0", lo, hi);
    if (lo == hi) { /* numpy's widening of an empty range */
        lo -= 0.5;
        hi += 0.5;
    }
    PT_TRY(linspace_edges(lo, hi, bins, self->dtype, self->device, edges));
    const pt_status st = histogram_fill(self, *edges, weight, density, BIN_LOCAL_SEARCH, hist);
    if (st != PT_OK) pt_tensor_release(*edges);
    return st;
}

static pt_status move_two(const char *op, pt_tensor *h, pt_tensor *e, pt_tensor *hist_out,
                          pt_tensor *edges_out, pt_tensor **ret0, pt_tensor **ret1)
{
    pt_status st = pt_sort_move_out(op, "hist", h, hist_out, ret0);
    if (st != PT_OK) {
        pt_tensor_release(e);
        return st;
    }
    st = pt_sort_move_out(op, "bin_edges", e, edges_out, ret1);
    if (st != PT_OK) pt_tensor_release(*ret0);
    return st;
}

pt_status pt_kernel_histogram_bins_tensor(const pt_tensor *self, const pt_tensor *bins,
                                          const pt_tensor *weight, int32_t density,
                                          pt_tensor **ret0, pt_tensor **ret1)
{
    return histogram_tensor(self, bins, weight, density, ret0, ret1);
}

pt_status pt_kernel_histogram_bins_tensor_out(const pt_tensor *self, const pt_tensor *bins,
                                              const pt_tensor *weight, int32_t density,
                                              pt_tensor *hist, pt_tensor *bin_edges,
                                              pt_tensor **ret0, pt_tensor **ret1)
{
    pt_tensor *h = NULL, *e = NULL;
    PT_TRY(histogram_tensor(self, bins, weight, density, &h, &e));
    return move_two("histogram", h, e, hist, bin_edges, ret0, ret1);
}

pt_status pt_kernel_histogram_bin_ct(const pt_tensor *self, int64_t bins, int32_t range_len,
                                     const double *range, const pt_tensor *weight, int32_t density,
                                     pt_tensor **ret0, pt_tensor **ret1)
{
    return histogram_count(self, bins, range_len, range, weight, density, ret0, ret1);
}

pt_status pt_kernel_histogram_bin_ct_out(const pt_tensor *self, int64_t bins, int32_t range_len,
                                         const double *range, const pt_tensor *weight,
                                         int32_t density, pt_tensor *hist, pt_tensor *bin_edges,
                                         pt_tensor **ret0, pt_tensor **ret1)
{
    pt_tensor *h = NULL, *e = NULL;
    PT_TRY(histogram_count(self, bins, range_len, range, weight, density, &h, &e));
    return move_two("histogram", h, e, hist, bin_edges, ret0, ret1);
}

/* ---------------------------------------------------------------- searchsorted, bucketize */

typedef struct search_args {
    const pt_tensor *seq, *values, *sorter;
    bool out_int32, right;
    const char *side;
    const pt_tensor *out; /* out=, for its dtype check */
} search_args;

static pt_status search_checks(const search_args *a)
{
    const pt_tensor *seq = a->seq, *v = a->values;
    PT_TRY(pt_iter_check_operand(seq, "searchsorted", "sorted_sequence"));
    PT_TRY(pt_iter_check_operand(v, "searchsorted", "self"));
    if (a->out && a->out->dtype != (a->out_int32 ? PT_INT32 : PT_INT64))
        return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): output tensor's dtype is wrong, it "
                        "can only be Int(int32) or Long(int64) depending on whether out_int32 "
                        "flag is True, but we got output tensor's dtype %s and out_int32 flag is "
                        "%s", pt_iter_type_name(a->out->dtype), a->out_int32 ? "True" : "False");
    if (a->side) {
        if (strcmp(a->side, "left") != 0 && strcmp(a->side, "right") != 0)
            return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): side can only be 'left' or "
                            "'right' but got %s", a->side);
        if (a->right && strcmp(a->side, "left") == 0)
            return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): side and right can't be set to "
                            "opposites, got side of left while right was True");
    }
    if (seq->device.type != v->device.type)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): boundaries and input value tensors "
                        "should have same device type, but got boundaries tensor device type %s "
                        "and input value tensor device type %s",
                        pt_device_type_name(seq->device.type), pt_device_type_name(v->device.type));
    if (a->sorter) {
        const pt_tensor *s = a->sorter;
        PT_TRY(pt_iter_check_operand(s, "searchsorted", "sorter"));
        bool same = s->ndim == seq->ndim;
        for (int32_t d = 0; same && d < s->ndim; d++) same = s->sizes[d] == seq->sizes[d];
        if (!same) {
            char b[256], c[256];
            pt_format_ints(b, sizeof b, seq->ndim, seq->sizes);
            pt_format_ints(c, sizeof c, s->ndim, s->sizes);
            return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): boundary and sorter must have "
                            "the same size, but got boundary tensor %sand got sorter tensor %s",
                            b, c);
        }
        if (s->dtype != PT_INT64)
            return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): sorter must be a tensor of long "
                            "dtype but got dtype %s", pt_iter_type_name(s->dtype));
    }
    if (!(v->ndim > 0 || (v->numel == 1 && seq->ndim == 1)))
        return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): input value can be a scalar only "
                        "when boundaries tensor dimension is 1, but we got boundaries tensor "
                        "dim(%d) and input value's dim(%d) numel(%lld)", (int)seq->ndim,
                        (int)v->ndim, (long long)v->numel);
    if (seq->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): boundaries tensor should have "
                        "positive dimension, but got 0 dimension");
    bool matched = seq->ndim == 1;
    if (!matched && seq->ndim == v->ndim) {
        matched = true;
        for (int32_t d = 0; d + 1 < seq->ndim; d++) matched &= seq->sizes[d] == v->sizes[d];
    }
    if (!matched) {
        char b[256], c[256];
        pt_format_ints(b, sizeof b, seq->ndim, seq->sizes);
        pt_format_ints(c, sizeof c, v->ndim, v->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): boundaries tensor should be 1 "
                        "dimension or the first N-1 dimensions of boundaries tensor and input "
                        "value tensor must match, but we got boundaries tensor %s and input value "
                        "tensor %s", b, c);
    }
    return PT_OK;
}

/* The search loops, by key type: torch's comparisons (!(mid >= v) for the left bound, !(mid > v)
 * for the right one), on rows of n boundaries, each value reading row (i / per_row) or row 0. */
#define SEARCH(T)                                                                                  \
    do {                                                                                           \
        const T *bd = (const T *)(const void *)bdv, *val = (const T *)(const void *)vv;            \
        for (int64_t i = 0; i < count; i++) {                                                      \
            const int64_t base = rows1 ? 0 : (i / per_row) * n;                                    \
            const T x = val[i];                                                                    \
            int64_t a = 0, b = n;                                                                  \
            while (a < b) {                                                                        \
                const int64_t mid = a + (b - a) / 2;                                               \
                const T m = bd[base + (order ? order[base + mid] : mid)];                          \
                if (right ? !(m > x) : !(m >= x)) a = mid + 1;                                     \
                else b = mid;                                                                      \
            }                                                                                      \
            if (i32) ((int32_t *)out)[i] = (int32_t)a;                                             \
            else ((int64_t *)out)[i] = a;                                                          \
        }                                                                                          \
    } while (0)

static pt_status searchsorted(const search_args *a, pt_tensor **ret)
{
    PT_TRY(search_checks(a));
    pt_tensor *pair[2] = {(pt_tensor *)a->seq, (pt_tensor *)a->values};
    int32_t common;
    PT_TRY(pt_result_type(2, pair, &common));
    if (pt_is_complex(common) || common == PT_BOOL || common >= PT_DTYPE_BUILTIN_COUNT)
        return unsupported("searchsorted_out_cpu", common);
    const bool right = a->right || (a->side && strcmp(a->side, "right") == 0);
    const bool i32 = a->out_int32;
    PT_TRY(pt_tensor_empty(a->values->ndim, a->values->sizes, i32 ? PT_INT32 : PT_INT64,
                           a->values->device, ret));
    if (a->values->device.type != PT_DEV_CPU || a->values->numel == 0) return PT_OK;
    const int32_t key = pt_is_floating(common) ? PT_FLOAT64 : PT_INT64;
    pt_tensor *s = NULL, *v = NULL, *o = NULL;
    pt_status st = as_contiguous(a->seq, key, &s);
    if (st == PT_OK) st = as_contiguous(a->values, key, &v);
    if (st == PT_OK && a->sorter) st = as_contiguous(a->sorter, PT_INT64, &o);
    const int64_t n = a->seq->sizes[a->seq->ndim - 1];
    if (st == PT_OK && o) {
        const int64_t *ov = pt_tensor_data(o);
        for (int64_t i = 0; i < o->numel; i++)
            if (ov[i] < 0 || ov[i] >= n) {
                st = PT_ERROR(PT_ERR_RUNTIME, "torch.searchsorted(): sorter index out of range");
                break;
            }
    }
    if (st == PT_OK) {
        const char *bdv = pt_tensor_data(s), *vv = pt_tensor_data(v);
        const int64_t *order = o ? pt_tensor_data(o) : NULL, count = v->numel;
        const bool rows1 = a->seq->ndim == 1;
        const int64_t per_row = v->ndim > 0 ? v->sizes[v->ndim - 1] : 1;
        void *out = pt_tensor_data(*ret);
        if (n > 0) {
            if (key == PT_FLOAT64) SEARCH(double);
            else SEARCH(int64_t);
        } else if (i32) {
            memset(out, 0, (size_t)count * sizeof(int32_t));
        } else {
            memset(out, 0, (size_t)count * sizeof(int64_t));
        }
    }
    if (s) pt_tensor_release(s);
    if (v) pt_tensor_release(v);
    if (o) pt_tensor_release(o);
    if (st != PT_OK) pt_tensor_release(*ret);
    return st;
}
#undef SEARCH

/* A Scalar as a 0-d CPU wrapped number (its dtype decides promotion as a Python number's). */
static pt_status scalar_tensor(const pt_scalar *s, pt_tensor **out)
{
    const int32_t dtype = s->kind == PT_SCALAR_BOOL ? PT_BOOL : s->kind == PT_SCALAR_INT ? PT_INT64
                          : s->kind == PT_SCALAR_COMPLEX ? PT_COMPLEX128 : PT_FLOAT64;
    const pt_device cpu = {PT_DEV_CPU, -1};
    PT_TRY(pt_tensor_empty(0, NULL, dtype, cpu, out));
    const pt_status st = pt_tensor_fill_(*out, s);
    if (st != PT_OK) {
        pt_tensor_release(*out);
        return st;
    }
    pt_tensor_set_wrapped_number(*out, 1);
    return PT_OK;
}

static pt_status searchsorted_into(const search_args *a, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(searchsorted(a, &r));
    return pt_sort_move_out("searchsorted", "out", r, out, ret);
}

pt_status pt_kernel_searchsorted_Tensor(const pt_tensor *sorted_sequence, const pt_tensor *self,
                                        int32_t out_int32, int32_t right, const char *side,
                                        const pt_tensor *sorter, pt_tensor **ret)
{
    const search_args a = {sorted_sequence, self, sorter, out_int32, right, side, NULL};
    return searchsorted(&a, ret);
}

pt_status pt_kernel_searchsorted_Tensor_out(const pt_tensor *sorted_sequence,
                                            const pt_tensor *self, int32_t out_int32,
                                            int32_t right, const char *side,
                                            const pt_tensor *sorter, pt_tensor *out,
                                            pt_tensor **ret)
{
    const search_args a = {sorted_sequence, self, sorter, out_int32, right, side, out};
    return searchsorted_into(&a, out, ret);
}

static pt_status searchsorted_scalar(const pt_tensor *seq, const pt_scalar *self, int32_t out_int32,
                                     int32_t right, const char *side, const pt_tensor *sorter,
                                     pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *v = NULL;
    PT_TRY(scalar_tensor(self, &v));
    pt_tensor *moved = v;
    pt_status st = PT_OK;
    if (seq->device.type != PT_DEV_CPU) { /* the value goes where the boundaries are */
        st = pt_tensor_empty(0, NULL, v->dtype, seq->device, &moved);
        if (st == PT_OK) pt_tensor_set_wrapped_number(moved, 1);
    }
    if (st == PT_OK) {
        const search_args a = {seq, moved, sorter, out_int32, right, side, out};
        st = out ? searchsorted_into(&a, out, ret) : searchsorted(&a, ret);
    }
    if (moved != v) pt_tensor_release(moved);
    pt_tensor_release(v);
    return st;
}

pt_status pt_kernel_searchsorted_Scalar(const pt_tensor *sorted_sequence, const pt_scalar *self,
                                        int32_t out_int32, int32_t right, const char *side,
                                        const pt_tensor *sorter, pt_tensor **ret)
{
    return searchsorted_scalar(sorted_sequence, self, out_int32, right, side, sorter, NULL, ret);
}

pt_status pt_kernel_searchsorted_Scalar_out(const pt_tensor *sorted_sequence,
                                            const pt_scalar *self, int32_t out_int32,
                                            int32_t right, const char *side,
                                            const pt_tensor *sorter, pt_tensor *out,
                                            pt_tensor **ret)
{
    return searchsorted_scalar(sorted_sequence, self, out_int32, right, side, sorter, out, ret);
}

static pt_status bucketize_check(const pt_tensor *boundaries)
{
    PT_TRY(pt_iter_check_operand(boundaries, "bucketize", "boundaries"));
    if (boundaries->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "boundaries tensor must be 1 dimension, but got dim(%d)",
                        (int)boundaries->ndim);
    return PT_OK;
}

pt_status pt_kernel_bucketize_Tensor(const pt_tensor *self, const pt_tensor *boundaries,
                                     int32_t out_int32, int32_t right, pt_tensor **ret)
{
    PT_TRY(bucketize_check(boundaries));
    const search_args a = {boundaries, self, NULL, out_int32, right, NULL, NULL};
    return searchsorted(&a, ret);
}

pt_status pt_kernel_bucketize_Tensor_out(const pt_tensor *self, const pt_tensor *boundaries,
                                         int32_t out_int32, int32_t right, pt_tensor *out,
                                         pt_tensor **ret)
{
    PT_TRY(bucketize_check(boundaries));
    const search_args a = {boundaries, self, NULL, out_int32, right, NULL, out};
    return searchsorted_into(&a, out, ret);
}

pt_status pt_kernel_bucketize_Scalar(const pt_scalar *self, const pt_tensor *boundaries,
                                     int32_t out_int32, int32_t right, pt_tensor **ret)
{
    PT_TRY(bucketize_check(boundaries));
    return searchsorted_scalar(boundaries, self, out_int32, right, NULL, NULL, NULL, ret);
}

pt_status pt_kernel_bucketize_Scalar_out(const pt_scalar *self, const pt_tensor *boundaries,
                                         int32_t out_int32, int32_t right, pt_tensor *out,
                                         pt_tensor **ret)
{
    PT_TRY(bucketize_check(boundaries));
    return searchsorted_scalar(boundaries, self, out_int32, right, NULL, NULL, out, ret);
}
