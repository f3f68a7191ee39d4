/* stats.c - order statistics and the reductions and scans that torch defines beside its plain
 * ones: median and nanmedian (of everything and along a dim), kthvalue, mode, cummax, cummin,
 * logcumsumexp, and the composite msort.
 *
 * The order statistics work on rows, the 1-d slices along `dim`, each turned into the sortable
 * keys of the sorting kernels (Note [sortable keys] in sort.c: one unsigned integer per element
 * whose order is torch's, NaN above +inf). median, nanmedian and kthvalue then select one rank of
 * the row (Note [selection by pairs]); mode sorts the row's keys and walks the runs of equal keys
 * (Note [mode's runs]). The chosen element is copied from the input by its position, so values
 * come out bit for bit as they went in. cummax, cummin and logcumsumexp scan rows the same way.
 * Rows are independent and are handed to threads above a grain size (Note [row threads]).
 *
 * aminmax, nansum, nanmean and count_nonzero are stats_reduce.c. Results are shaped, cast and
 * moved into out= tensors by pt_reduce_finish. Meta tensors get the checks, shapes and dtypes,
 * and nothing is computed for them.
 *
 * Deviations from torch: mode counts all NaNs of a row as one value (torch's comparisons leave
 * NaN's run unspecified); among equal values, median/kthvalue name the position of the wanted
 * rank in input order (torch leaves the choice to std::nth_element); logcumsumexp refuses
 * complex inputs.
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
#include "reduce.h"
#include "sort_common.h"
#include "sort_internal.h"

/* ---------------------------------------------------------------- shared checks */

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

/* ---------------------------------------------------------------- rows along a dimension */

/* The rows of a tensor along dim: n elements `along` apart (element strides), and the other
 * dimensions whose indices a row number decomposes into. A 0-d tensor is one row of one. */
typedef struct lanes {
    int32_t nd;
    int64_t count, n, along;
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
} lanes;

static void lanes_init(lanes *l, const pt_tensor *t, int32_t dim)
{
    l->nd = 0;
    l->count = 1;
    l->n = t->ndim > 0 ? t->sizes[dim] : 1;
    l->along = t->ndim > 0 ? t->strides[dim] : 1;
    for (int32_t d = 0; d < t->ndim; d++) {
        if (d == dim) continue;
        l->sizes[l->nd] = t->sizes[d];
        l->strides[l->nd] = t->strides[d];
        l->count *= t->sizes[d];
        l->nd++;
    }
}

static int64_t lane_offset(const lanes *l, int64_t row)
{
    int64_t off = 0;
    for (int32_t d = l->nd - 1; d >= 0; d--) {
        off += (row % l->sizes[d]) * l->strides[d];
        row /= l->sizes[d];
    }
    return off;
}

/* Note [row threads]
 * Rows are independent, so threads take contiguous runs of rows with no synchronization. As for
 * sort (Note [sort threads] in sort.c) the split pays only with enough work per thread: ROW_GRAIN
 * elements, torch's grain for its sort and scan loops; one long row stays on one thread. Scratch
 * is allocated before the split, on the calling thread, so that failures are reported there. */
enum { ROW_GRAIN = 32768, ROW_MAX_THREADS = 64 };

static int64_t row_threads(int64_t rows, int64_t n)
{
    int64_t threads = 1;
#ifdef _OPENMP
    const int64_t work = rows * n;
    if (rows > 1 && work >= 2 * ROW_GRAIN && !omp_in_parallel()) {
        threads = pt_get_num_threads();
        if (threads > work / ROW_GRAIN) threads = work / ROW_GRAIN;
        if (threads > rows) threads = rows;
        if (threads > ROW_MAX_THREADS) threads = ROW_MAX_THREADS;
    }
#else
    PT_UNUSED(rows);
    PT_UNUSED(n);
#endif
    return threads < 1 ? 1 : threads;
}

/* ---------------------------------------------------------------- selection
 * Note [selection by pairs]
 * A row's rank r is found by quickselect over (key, position) pairs ordered by key and then by
 * position. Pairs are all distinct, so each partition step makes progress even when most keys
 * are equal (a row of one repeated value), and the answer is one definite element: the r-th in
 * the row's stable order, the element a stable sort would put at r. The pivot is the median of
 * three; a row whose partitions keep coming out lopsided (more than 2 log2(n) + 8 rounds, which
 * random rows practically never reach) finishes by heapsort of what is left, so the worst case
 * stays O(n log n). Expected work is about 3n comparisons against the full sort's n log n. */

enum { SELECT_SMALL = 16 }; /* below this many candidates, insertion sort is the cheaper finish */

static inline bool pair_less(const uint64_t *key, const int64_t *idx, int64_t a, int64_t b)
{
    return key[a] < key[b] || (key[a] == key[b] && idx[a] < idx[b]);
}

static inline void pair_swap(uint64_t *key, int64_t *idx, int64_t a, int64_t b)
{
    const uint64_t k = key[a];
    key[a] = key[b];
    key[b] = k;
    const int64_t i = idx[a];
    idx[a] = idx[b];
    idx[b] = i;
}

static void pair_sift(uint64_t *key, int64_t *idx, int64_t base, int64_t root, int64_t n)
{
    for (;;) {
        int64_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && pair_less(key, idx, base + child, base + child + 1)) child++;
        if (!pair_less(key, idx, base + root, base + child)) return;
        pair_swap(key, idx, base + root, base + child);
        root = child;
    }
}

static void pair_heapsort(uint64_t *key, int64_t *idx, int64_t lo, int64_t hi)
{
    const int64_t n = hi - lo + 1;
    for (int64_t r = n / 2 - 1; r >= 0; r--) pair_sift(key, idx, lo, r, n);
    for (int64_t end = n - 1; end > 0; end--) {
        pair_swap(key, idx, lo, lo + end);
        pair_sift(key, idx, lo, 0, end);
    }
}

static void pair_insertion(uint64_t *key, int64_t *idx, int64_t lo, int64_t hi)
{
    for (int64_t i = lo + 1; i <= hi; i++)
        for (int64_t j = i; j > lo && pair_less(key, idx, j, j - 1); j--) pair_swap(key, idx, j, j - 1);
}

/* The position (in the row) of the pair of rank r among key[0..n), idx[0..n) = 0..n-1. */
static int64_t select_rank(uint64_t *key, int64_t *idx, int64_t n, int64_t r)
{
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    int64_t lo = 0, hi = n - 1, rounds = 8;
    for (int64_t m = n; m > 1; m >>= 1) rounds += 2;
    while (hi > lo) {
        if (hi - lo < SELECT_SMALL) {
            pair_insertion(key, idx, lo, hi);
            break;
        }
        if (rounds-- == 0) {
            pair_heapsort(key, idx, lo, hi);
            break;
        }
        const int64_t mid = lo + (hi - lo) / 2;
        if (pair_less(key, idx, mid, lo)) pair_swap(key, idx, mid, lo);
        if (pair_less(key, idx, hi, lo)) pair_swap(key, idx, hi, lo);
        if (pair_less(key, idx, hi, mid)) pair_swap(key, idx, hi, mid);
        const uint64_t pk = key[mid];
        const int64_t pi = idx[mid];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (key[i] < pk || (key[i] == pk && idx[i] < pi)) i++;
            while (pk < key[j] || (pk == key[j] && pi < idx[j])) j--;
            if (i <= j) pair_swap(key, idx, i++, j--);
        }
        if (r <= j) hi = j;
        else if (r >= i) lo = i;
        else break; /* the pivot itself, between the two parts */
    }
    return idx[r];
}

enum { SEL_MEDIAN = 0, SEL_NANMEDIAN = 1, SEL_KTH = 2, SEL_MODE = 3 };

typedef struct select_plan {
    lanes in;
    int kind, width;
    int32_t dtype;
    bool floating;
    int64_t k; /* kthvalue's 1-based k */
    const char *src;
    char *vals;    /* contiguous, one per row */
    int64_t *idx;  /* contiguous, one per row */
} select_plan;

/* Note [mode's runs]
 * mode sorts the row's keys stably, carrying positions, and walks the runs of equal keys: the
 * longest run wins, the first (smallest value) among equally long ones, and its position is the
 * run's last, the largest position holding the value - torch's answer whenever its own sort
 * leaves equal values in input order. */
static int64_t mode_position(pt_sort_scratch *s, int64_t n, int width)
{
    for (int64_t i = 0; i < n; i++) s->idx[i] = i;
    pt_sort_keys(s, n, width);
    int64_t best = 0, best_at = s->idx[0];
    for (int64_t a = 0; a < n;) {
        int64_t b = a + 1, last = s->idx[a];
        while (b < n && s->key[b] == s->key[a]) {
            if (s->idx[b] > last) last = s->idx[b];
            b++;
        }
        if (b - a > best) {
            best = b - a;
            best_at = last;
        }
        a = b;
    }
    return best_at;
}

static void select_row(const select_plan *p, pt_sort_scratch *s, int64_t row)
{
    const int64_t isz = pt_dtype_itemsize(p->dtype), n = p->in.n, step = p->in.along * isz;
    const char *src = p->src + lane_offset(&p->in, row) * isz;
    pt_sort_encode(p->dtype, src, step, n, 0, s->key);
    int64_t pick;
    if (p->kind == SEL_MODE) {
        pick = mode_position(s, n, p->width);
    } else if (p->kind == SEL_KTH) {
        pick = select_rank(s->key, s->idx, n, p->k - 1);
    } else {
        /* NaN's key is the largest there is only for floating dtypes: an integer's largest
         * value has every key bit set too. */
        const uint64_t nan_key = pt_sort_key_mask(p->width);
        int64_t nans = 0, first = -1;
        if (p->floating)
            for (int64_t i = 0; i < n; i++)
                if (s->key[i] == nan_key) {
                    if (first < 0) first = i;
                    nans++;
                }
        if (nans > 0 && (p->kind == SEL_MEDIAN || nans == n)) pick = first; /* NaN propagates */
        else if (p->kind == SEL_MEDIAN) pick = select_rank(s->key, s->idx, n, (n - 1) / 2);
        else pick = select_rank(s->key, s->idx, n, (n - nans - 1) / 2); /* NaNs rank last */
    }
    memcpy(p->vals + row * isz, src + pick * step, (size_t)isz);
    p->idx[row] = pick;
}

static pt_status run_select(const select_plan *p)
{
    const int64_t rows = p->in.count, n = p->in.n, threads = row_threads(rows, n);
    if (rows == 0 || n == 0) return PT_OK;
    pt_sort_scratch s[ROW_MAX_THREADS];
    for (int64_t t = 0; t < threads; t++) {
        const pt_status st = pt_sort_scratch_init(&s[t], n);
        if (st != PT_OK) {
            while (t-- > 0) pt_sort_scratch_free(&s[t]);
            return st;
        }
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)threads) schedule(static) if (threads > 1)
#endif
    for (int64_t t = 0; t < threads; t++)
        for (int64_t row = rows * t / threads; row < rows * (t + 1) / threads; row++)
            select_row(p, &s[t], row);
    for (int64_t t = 0; t < threads; t++) pt_sort_scratch_free(&s[t]);
    return PT_OK;
}

/* values and indices (kept shape with 1 at d, contiguous) of the selection along d. */
static pt_status select_along(int kind, int64_t k, const pt_tensor *self, int32_t d,
                              const bool *mask, pt_tensor **values, pt_tensor **indices)
{
    pt_tensor *v, *i;
    PT_TRY(pt_reduce_kept(self, mask, self->dtype, &v));
    pt_status st = pt_reduce_kept(self, mask, PT_INT64, &i);
    if (st != PT_OK) {
        pt_tensor_release(v);
        return st;
    }
    if (self->device.type == PT_DEV_CPU && self->numel > 0) {
        select_plan p = {.kind = kind, .width = pt_sort_key_width(self->dtype),
                         .dtype = self->dtype, .floating = pt_is_floating(self->dtype), .k = k,
                         .src = pt_tensor_data(self), .vals = pt_tensor_data(v),
                         .idx = pt_tensor_data(i)};
        lanes_init(&p.in, self, self->ndim > 0 ? d : -1);
        st = run_select(&p);
    }
    if (st != PT_OK) {
        pt_tensor_release(v);
        pt_tensor_release(i);
        return st;
    }
    *values = v;
    *indices = i;
    return PT_OK;
}

typedef struct select_args {
    const char *name, *kernel;
    int kind;
    bool takes_bool;
} select_args;

static const select_args MEDIAN = {"median", "median_out", SEL_MEDIAN, false};
static const select_args NANMEDIAN = {"nanmedian", "median_out", SEL_NANMEDIAN, false};
static const select_args KTHVALUE = {"kthvalue", "kthvalue_cpu", SEL_KTH, false};
static const select_args MODE = {"mode", "mode_cpu", SEL_MODE, true};

static pt_status check_selectable(const select_args *a, const char *kernel, const pt_tensor *self)
{
    if (pt_is_complex(self->dtype) || (self->dtype == PT_BOOL && !a->takes_bool) ||
        self->dtype >= PT_DTYPE_BUILTIN_COUNT)
        return unsupported(kernel, self->dtype);
    return PT_OK;
}

static pt_status select_dim(const select_args *a, const pt_tensor *self, int64_t k, int64_t dim,
                            bool keepdim, pt_tensor *values_out, pt_tensor *indices_out,
                            pt_tensor **values, pt_tensor **indices)
{
    PT_TRY(pt_reduce_check(self, a->name, values_out));
    if (indices_out) PT_TRY(pt_iter_check_operand(indices_out, a->name, "indices"));
    bool mask[PT_MAX_DIMS];
    PT_TRY(pt_reduce_dims(self, 1, &dim, mask));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    PT_TRY(pt_reduce_check_nonempty(a->name, self, 1, mask, false));
    PT_TRY(check_selectable(a, a->kernel, self));
    if (a->kind == SEL_KTH) {
        const int64_t n = self->ndim > 0 ? self->sizes[d] : 1;
        if (k < 1 || k > n)
            return PT_ERROR(PT_ERR_RUNTIME, "kthvalue(): selected number k out of range for "
                            "dimension %d", (int)d);
    }
    PT_TRY(dtype_out(values_out, self->dtype));
    PT_TRY(dtype_out(indices_out, PT_INT64));
    pt_tensor *v, *i;
    PT_TRY(select_along(a->kind, k, self, d, mask, &v, &i));
    return finish_pair(a->name, v, i, self, mask, keepdim, self->dtype, PT_INT64, values_out,
                       indices_out, values, indices);
}

/* median/nanmedian of every element: a 0-d tensor; NaN for an empty input, as torch gives. */
static pt_status select_all(const select_args *a, const pt_tensor *self, pt_tensor *out_arg,
                            pt_tensor **out)
{
    PT_TRY(pt_reduce_check(self, a->name, out_arg));
    PT_TRY(check_selectable(a, "median_cpu", self));
    PT_TRY(dtype_out(out_arg, self->dtype));
    pt_tensor *x, *flat, *v, *i;
    const bool all[1] = {true}, none[1] = {false};
    if (self->numel == 0) {
        PT_TRY(pt_tensor_empty(0, NULL, self->dtype, self->device, &v));
        const pt_scalar nan = {.kind = PT_SCALAR_FLOAT, .re = NAN};
        pt_status st = self->device.type == PT_DEV_CPU ? pt_tensor_fill_(v, &nan) : PT_OK;
        if (st != PT_OK) {
            pt_tensor_release(v);
            return st;
        }
        return pt_reduce_finish(a->name, v, v, none, true, self->dtype, out_arg, out);
    }
    PT_TRY(pt_reduce_cast(self, self->dtype, true, &x));
    const int64_t n = x->numel, one = 1;
    pt_status st = pt_tensor_make(x->storage, x->dtype, 1, &n, &one, x->offset, &flat);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    st = select_along(a->kind, 0, flat, 0, all, &v, &i);
    pt_tensor_release(flat);
    if (st != PT_OK) return st;
    pt_tensor_release(i);
    pt_tensor *scalar;
    st = pt_tensor_make(v->storage, v->dtype, 0, NULL, NULL, v->offset, &scalar);
    pt_tensor_release(v);
    if (st != PT_OK) return st;
    return pt_reduce_finish(a->name, scalar, scalar, none, true, self->dtype, out_arg, out);
}

pt_status pt_kernel_median(const pt_tensor *self, pt_tensor **ret)
{
    return select_all(&MEDIAN, self, NULL, ret);
}

pt_status pt_kernel_median_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return select_all(&MEDIAN, self, out, ret);
}

pt_status pt_kernel_median_dim(const pt_tensor *self, int64_t dim, int32_t keepdim,
                               pt_tensor **ret0, pt_tensor **ret1)
{
    return select_dim(&MEDIAN, self, 0, dim, keepdim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_median_dim_values(const pt_tensor *self, int64_t dim, int32_t keepdim,
                                      pt_tensor *values, pt_tensor *indices, pt_tensor **ret0,
                                      pt_tensor **ret1)
{
    return select_dim(&MEDIAN, self, 0, dim, keepdim, values, indices, ret0, ret1);
}

pt_status pt_kernel_nanmedian(const pt_tensor *self, pt_tensor **ret)
{
    return select_all(&NANMEDIAN, self, NULL, ret);
}

pt_status pt_kernel_nanmedian_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return select_all(&NANMEDIAN, self, out, ret);
}

pt_status pt_kernel_nanmedian_dim(const pt_tensor *self, int64_t dim, int32_t keepdim,
                                  pt_tensor **ret0, pt_tensor **ret1)
{
    return select_dim(&NANMEDIAN, self, 0, dim, keepdim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_nanmedian_dim_values(const pt_tensor *self, int64_t dim, int32_t keepdim,
                                         pt_tensor *values, pt_tensor *indices, pt_tensor **ret0,
                                         pt_tensor **ret1)
{
    return select_dim(&NANMEDIAN, self, 0, dim, keepdim, values, indices, ret0, ret1);
}

pt_status pt_kernel_kthvalue(const pt_tensor *self, int64_t k, int64_t dim, int32_t keepdim,
                             pt_tensor **ret0, pt_tensor **ret1)
{
    return select_dim(&KTHVALUE, self, k, dim, keepdim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_kthvalue_values(const pt_tensor *self, int64_t k, int64_t dim,
                                    int32_t keepdim, pt_tensor *values, pt_tensor *indices,
                                    pt_tensor **ret0, pt_tensor **ret1)
{
    return select_dim(&KTHVALUE, self, k, dim, keepdim, values, indices, ret0, ret1);
}

pt_status pt_kernel_mode(const pt_tensor *self, int64_t dim, int32_t keepdim, pt_tensor **ret0,
                         pt_tensor **ret1)
{
    return select_dim(&MODE, self, 0, dim, keepdim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_mode_values(const pt_tensor *self, int64_t dim, int32_t keepdim,
                                pt_tensor *values, pt_tensor *indices, pt_tensor **ret0,
                                pt_tensor **ret1)
{
    return select_dim(&MODE, self, 0, dim, keepdim, values, indices, ret0, ret1);
}

/* msort is sort along dim 0 (torch's CompositeImplicitAutograd, hence SortBackward0). */
pt_status pt_native_msort(const pt_tensor *self, pt_tensor **ret)
{
    pt_tensor *v, *i;
    PT_TRY(pt_call_sort(self, 0, 0, &v, &i));
    pt_tensor_release(i);
    *ret = v;
    return PT_OK;
}

pt_status pt_native_msort_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_msort(self, &r));
    return pt_sort_move_out("msort", "out", r, out, ret);
}

/* ---------------------------------------------------------------- scans with indices
 * cummax/cummin keep the running extreme and its position: an element equal to it takes over
 * (the latest position wins, as torch's >= / <= do), and a NaN takes over from anything, NaN
 * included, and is never displaced. logcumsumexp folds log(exp(a) + exp(b)) as
 * max + log1p(exp(min - max)), the form that neither overflows nor loses the smaller term; two
 * equal infinities give themselves (their difference would be NaN) and a NaN propagates. */

enum { SCAN_MAX = 0, SCAN_MIN = 1, SCAN_LOGSUMEXP = 2 };

typedef struct scan_plan {
    lanes in, out;
    int which;
    int32_t dtype; /* bool, the integers, float32 or float64 */
    const char *src;
    char *vals;
    int64_t *idx; /* NULL for logcumsumexp */
} scan_plan;

#define EXTREME_SCAN(T, ISNAN)                                                                     \
    do {                                                                                           \
        const T *x = (const T *)(const void *)src;                                                 \
        T *v = (T *)(void *)vals;                                                                  \
        T best = x[0];                                                                             \
        int64_t at = 0;                                                                            \
        for (int64_t j = 0; j < n; j++) {                                                          \
            const T c = x[j * sa];                                                                 \
            const bool take = max ? c >= best : c <= best;                                         \
            if (ISNAN(c) || (!ISNAN(best) && take)) {                                              \
                best = c;                                                                          \
                at = j;                                                                            \
            }                                                                                      \
            v[j * va] = best;                                                                      \
            idx[j * va] = at;                                                                      \
        }                                                                                          \
    } while (0)

#define NEVER_NAN(v) ((void)(v), false)

#define LOGSUMEXP_SCAN(T)                                                                          \
    do {                                                                                           \
        const T *x = (const T *)(const void *)src;                                                 \
        T *v = (T *)(void *)vals;                                                                  \
        T acc = x[0];                                                                              \
        v[0] = acc;                                                                                \
        for (int64_t j = 1; j < n; j++) {                                                          \
            const T c = x[j * sa];                                                                 \
            if (isnan(acc) || isnan(c)) acc = (T)NAN;                                              \
            else {                                                                                 \
                const T hi = acc > c ? acc : c, lo = acc > c ? c : acc;                            \
                if (!(isinf(hi) && hi == lo)) acc = hi + (T)log1p(exp((double)(lo - hi)));         \
            }                                                                                      \
            v[j * va] = acc;                                                                       \
        }                                                                                          \
    } while (0)

static void scan_row(const scan_plan *p, int64_t row)
{
    const int64_t isz = pt_dtype_itemsize(p->dtype), n = p->in.n, sa = p->in.along,
                  va = p->out.along;
    const char *src = p->src + lane_offset(&p->in, row) * isz;
    const int64_t oo = lane_offset(&p->out, row);
    char *vals = p->vals + oo * isz;
    int64_t *idx = p->idx ? p->idx + oo : NULL;
    const bool max = p->which == SCAN_MAX;
    if (p->which == SCAN_LOGSUMEXP) {
        if (p->dtype == PT_FLOAT32) LOGSUMEXP_SCAN(float);
        else LOGSUMEXP_SCAN(double);
        return;
    }
    switch (p->dtype) {
    case PT_BOOL:
    case PT_UINT8: EXTREME_SCAN(uint8_t, NEVER_NAN); break;
    case PT_INT8: EXTREME_SCAN(int8_t, NEVER_NAN); break;
    case PT_INT16: EXTREME_SCAN(int16_t, NEVER_NAN); break;
    case PT_INT32: EXTREME_SCAN(int32_t, NEVER_NAN); break;
    case PT_INT64: EXTREME_SCAN(int64_t, NEVER_NAN); break;
    case PT_FLOAT32: EXTREME_SCAN(float, isnan); break;
    default: EXTREME_SCAN(double, isnan); break;
    }
}
#undef EXTREME_SCAN
#undef LOGSUMEXP_SCAN
#undef NEVER_NAN

static void run_scan(const scan_plan *p)
{
    const int64_t rows = p->in.count, n = p->in.n, threads = row_threads(rows, n);
    if (rows == 0 || n == 0) return;
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)threads) schedule(static) if (threads > 1)
#endif
    for (int64_t t = 0; t < threads; t++)
        for (int64_t row = rows * t / threads; row < rows * (t + 1) / threads; row++)
            scan_row(p, row);
}

/* The scan of x (a dtype scan_row serves) along d into a new tensor of x's shape (and indices
 * when idx is given). */
static pt_status scan_along(int which, const pt_tensor *x, int32_t d, pt_tensor **vals,
                            pt_tensor **idx)
{
    pt_tensor *v, *i = NULL;
    PT_TRY(pt_tensor_empty(x->ndim, x->sizes, x->dtype, x->device, &v));
    if (idx) {
        const pt_status st = pt_tensor_empty(x->ndim, x->sizes, PT_INT64, x->device, &i);
        if (st != PT_OK) {
            pt_tensor_release(v);
            return st;
        }
    }
    if (x->device.type == PT_DEV_CPU && x->numel > 0) {
        scan_plan p = {.which = which, .dtype = x->dtype, .src = pt_tensor_data(x),
                       .vals = pt_tensor_data(v), .idx = i ? pt_tensor_data(i) : NULL};
        const int32_t dd = x->ndim > 0 ? d : -1;
        lanes_init(&p.in, x, dd);
        lanes_init(&p.out, v, dd);
        run_scan(&p);
    }
    *vals = v;
    if (idx) *idx = i;
    return PT_OK;
}

/* The type a scan reads: the halves in float32 (exactly), everything else as it is. */
static int32_t scan_type(int32_t dtype)
{
    return dtype == PT_FLOAT16 || dtype == PT_BFLOAT16 ? PT_FLOAT32 : dtype;
}

static pt_status cummax_cummin(bool max, const pt_tensor *self, int64_t dim, pt_tensor *values_out,
                               pt_tensor *indices_out, pt_tensor **ret0, pt_tensor **ret1)
{
    const char *name = max ? "cummax" : "cummin";
    PT_TRY(pt_reduce_check(self, name, values_out));
    if (indices_out) PT_TRY(pt_iter_check_operand(indices_out, name, "indices"));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    if (pt_is_complex(self->dtype) || self->dtype >= PT_DTYPE_BUILTIN_COUNT)
        return unsupported(max ? "cummax_cpu" : "cummin_cpu", self->dtype);
    PT_TRY(dtype_out(values_out, self->dtype));
    PT_TRY(dtype_out(indices_out, PT_INT64));
    pt_tensor *x, *v, *i;
    PT_TRY(pt_reduce_cast(self, scan_type(self->dtype), false, &x));
    const pt_status st = scan_along(max ? SCAN_MAX : SCAN_MIN, x, d, &v, &i);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    const bool none[PT_MAX_DIMS] = {false};
    return finish_pair(name, v, i, self, none, true, self->dtype, PT_INT64, values_out,
                       indices_out, ret0, ret1);
}

pt_status pt_kernel_cummax(const pt_tensor *self, int64_t dim, pt_tensor **ret0, pt_tensor **ret1)
{
    return cummax_cummin(true, self, dim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_cummax_out(const pt_tensor *self, int64_t dim, pt_tensor *values,
                               pt_tensor *indices, pt_tensor **ret0, pt_tensor **ret1)
{
    return cummax_cummin(true, self, dim, values, indices, ret0, ret1);
}

pt_status pt_kernel_cummin(const pt_tensor *self, int64_t dim, pt_tensor **ret0, pt_tensor **ret1)
{
    return cummax_cummin(false, self, dim, NULL, NULL, ret0, ret1);
}

pt_status pt_kernel_cummin_out(const pt_tensor *self, int64_t dim, pt_tensor *values,
                               pt_tensor *indices, pt_tensor **ret0, pt_tensor **ret1)
{
    return cummax_cummin(false, self, dim, values, indices, ret0, ret1);
}

static pt_status logcumsumexp(const pt_tensor *self, int64_t dim, pt_tensor *out_arg,
                              pt_tensor **out)
{
    PT_TRY(pt_reduce_check(self, "logcumsumexp", out_arg));
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    if (!pt_is_floating(self->dtype)) return unsupported("logcumsumexp_out_cpu", self->dtype);
    PT_TRY(dtype_out(out_arg, self->dtype));
    pt_tensor *x, *v;
    PT_TRY(pt_reduce_cast(self, scan_type(self->dtype), false, &x));
    const pt_status st = scan_along(SCAN_LOGSUMEXP, x, d, &v, NULL);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    const bool none[PT_MAX_DIMS] = {false};
    return pt_reduce_finish("logcumsumexp", v, self, none, true, self->dtype, out_arg, out);
}

pt_status pt_kernel_logcumsumexp(const pt_tensor *self, int64_t dim, pt_tensor **ret)
{
    return logcumsumexp(self, dim, NULL, ret);
}

pt_status pt_kernel_logcumsumexp_out(const pt_tensor *self, int64_t dim, pt_tensor *out,
                                     pt_tensor **ret)
{
    return logcumsumexp(self, dim, out, ret);
}
