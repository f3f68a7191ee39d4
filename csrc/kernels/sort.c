/* sort.c - sort, argsort and topk along a dimension, and the unique family (_unique2, unique_dim,
 * unique_consecutive, unique_dim_consecutive and the boxed `unique` that torch.unique is).
 *
 * Every one of them sorts or compares keys (Note [sortable keys]): each element becomes an
 * unsigned integer whose order is torch's order for the dtype, and a row is sorted by an LSD
 * radix sort on those keys that carries the elements' positions along. The sort is stable, so
 * sort(stable=True) and the default sort give the same answer (torch's default is allowed to be
 * either). Values are then gathered from the input by position, so that NaN payloads and the sign
 * of zero come out exactly as they went in.
 *
 * Rows are the 1-d slices along `dim`; the other dimensions are walked by decomposing a row
 * number into their indices, which lets OpenMP hand rows to threads when the work is large enough
 * (Note [sort threads]). Each thread owns its scratch buffers.
 *
 * unique sorts the flattened input once and reads groups of equal keys off the sorted order;
 * unique_dim sorts whole slices (a stable merge sort, comparing their keys lexicographically).
 * In both, NaN equals nothing, so every NaN (or slice holding one) stays apart, as in torch, and
 * the first element of a group in the stable order is the one kept. Meta tensors get
 * shapes and dtypes for sort/argsort/topk; the unique family's shapes depend on the data, so meta
 * tensors are refused there.
 *
 * Deviations from torch: topk(sorted=False) returns its values sorted (torch leaves the order
 * unspecified); out= tensors of another shape are resized only when they hold no elements.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "boxing.h"
#include "native.h"
#include "sort_common.h"

/* ---------------------------------------------------------------- shared checks */

static bool is_complex(int32_t id) { return id == PT_COMPLEX64 || id == PT_COMPLEX128; }
static pt_status move_out(const char *op, const char *arg, const pt_tensor *result,
                          pt_tensor *out_arg)
{
    PT_TRY(pt_iter_check_operand(out_arg, op, arg));
    if (out_arg->dtype != result->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        pt_dtype_info_of(result->dtype)->name,
                        pt_dtype_info_of(out_arg->dtype)->name);
    if (out_arg->device.type != result->device.type)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: expected %s on device %s, got one on %s", op, arg,
                        pt_device_type_name(result->device.type),
                        pt_device_type_name(out_arg->device.type));
    bool same = out_arg->ndim == result->ndim &&
                (result->ndim == 0 || memcmp(out_arg->sizes, result->sizes,
                                             sizeof(int64_t) * (size_t)result->ndim) == 0);
    if (!same) {
        if (out_arg->numel != 0) {
            char have[256], want[256];
            pt_format_ints(have, sizeof have, out_arg->ndim, out_arg->sizes);
            pt_format_ints(want, sizeof want, result->ndim, result->sizes);
            return PT_ERROR(PT_ERR_RUNTIME,
                            "%s: %s with shape %s doesn't match the result's shape %s; only an "
                            "out tensor with no elements is resized (resize_(0) it first)",
                            op, arg, have, want);
        }
        PT_TRY(pt_tensor_resize_(out_arg, result->ndim, result->sizes));
    }
    if (result->device.type != PT_DEV_CPU || result->numel == 0) return PT_OK;
    if (!out_arg->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the storage of %s is read-only", op, arg);
    return pt_tensor_copy_(out_arg, result);
}

pt_status pt_sort_move_out(const char *op, const char *arg, pt_tensor *result, pt_tensor *out_arg,
                           pt_tensor **ret)
{
    pt_status st = move_out(op, arg, result, out_arg);
    pt_tensor_release(result);
    if (st != PT_OK) return st;
    pt_tensor_retain(out_arg);
    *ret = out_arg;
    return PT_OK;
}

/* ---------------------------------------------------------------- keys
 * Note [sortable keys]
 * Every real dtype maps to an unsigned integer key of its own width whose unsigned order is the
 * order torch sorts in: unsigned values as they are, signed ones with the sign bit flipped, and
 * floating ones by their bits (positive numbers with the sign bit set, negative ones with every
 * bit inverted). Two fix-ups make it torch's order rather than the bits': every NaN gets the
 * largest key (torch sorts NaN above +inf, whatever its sign or payload), and -0.0 gets +0.0's
 * key (they compare equal, so a stable sort keeps their order). Descending order flips every key
 * bit, which puts NaN first as torch does and keeps equal keys in input order. Keys as narrow as
 * the dtype keep the radix sort's passes few: one per byte, and bytes in which all keys agree
 * are skipped. */

static int key_width(int32_t dtype)
{
    if (is_complex(dtype) || dtype >= PT_DTYPE_BUILTIN_COUNT) return 0;
    return pt_dtype_itemsize(dtype);
}

static uint64_t key_mask(int width)
{
    return width >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * width)) - 1;
}

/* The key of IEEE bits of the width whose sign bit is `sign` and whose +inf is `inf`. */
static inline uint64_t float_key(uint64_t bits, uint64_t sign, uint64_t inf)
{
    uint64_t mask = sign | (sign - 1), mag = bits & (sign - 1);
    if (mag > inf) return mask;
    if (mag == 0) return sign;
    return (bits & sign) ? ~bits & mask : bits | sign;
}

#define ENCODE(T, EXPR)                                                                            \
    for (int64_t i = 0; i < n; i++) {                                                              \
        T v;                                                                                       \
        memcpy(&v, src + i * stride, sizeof v);                                                    \
        key[i] = (EXPR) ^ flip;                                                                    \
    }                                                                                              \
    return

static void encode(int32_t dtype, const char *src, int64_t stride, int64_t n, uint64_t flip,
                   uint64_t *key)
{
    switch (dtype) {
    case PT_BOOL:
    case PT_UINT8: ENCODE(uint8_t, (uint64_t)v);
    case PT_INT8: ENCODE(uint8_t, (uint64_t)(uint8_t)(v ^ 0x80u));
    case PT_INT16: ENCODE(uint16_t, (uint64_t)(uint16_t)(v ^ 0x8000u));
    case PT_INT32: ENCODE(uint32_t, (uint64_t)(v ^ 0x80000000u));
    case PT_INT64: ENCODE(uint64_t, v ^ ((uint64_t)1 << 63));
    case PT_FLOAT16: ENCODE(uint16_t, float_key(v, 0x8000u, 0x7c00u));
    case PT_BFLOAT16: ENCODE(uint16_t, float_key(v, 0x8000u, 0x7f80u));
    case PT_FLOAT32: ENCODE(uint32_t, float_key(v, 0x80000000u, 0x7f800000u));
    default: ENCODE(uint64_t, float_key(v, (uint64_t)1 << 63, (uint64_t)0x7ff << 52));
    }
}
#undef ENCODE

/* ---------------------------------------------------------------- the radix sort */

typedef struct scratch {
    uint64_t *key, *key2;
    int64_t *idx, *idx2;
    int64_t (*counts)[256];
} scratch;

static void scratch_free(scratch *s)
{
    free(s->key);
    free(s->key2);
    free(s->idx);
    free(s->idx2);
    free(s->counts);
    memset(s, 0, sizeof *s);
}

static pt_status scratch_init(scratch *s, int64_t n)
{
    size_t m = (size_t)(n > 0 ? n : 1);
    s->key = malloc(m * sizeof(uint64_t));
    s->key2 = malloc(m * sizeof(uint64_t));
    s->idx = malloc(m * sizeof(int64_t));
    s->idx2 = malloc(m * sizeof(int64_t));
    s->counts = malloc(sizeof(int64_t[8][256]));
    if (s->key && s->key2 && s->idx && s->idx2 && s->counts) return PT_OK;
    scratch_free(s);
    return PT_ERROR(PT_ERR_MEMORY, "sort: out of memory for the scratch of a row of %lld elements",
                    (long long)n);
}

/* Rows this short are sorted by insertion: a radix pass costs a 256-entry histogram. */
enum { INSERTION_MAX = 24 };

static void insertion_sort(uint64_t *key, int64_t *idx, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        uint64_t k = key[i];
        int64_t x = idx[i], j = i;
        for (; j > 0 && key[j - 1] > k; j--) {
            key[j] = key[j - 1];
            idx[j] = idx[j - 1];
        }
        key[j] = k;
        idx[j] = x;
    }
}

/* Sorts s->key[0..n) stably, carrying s->idx; the result is left in s->key / s->idx. */
static void sort_keys(scratch *s, int64_t n, int width)
{
    if (n <= INSERTION_MAX) {
        insertion_sort(s->key, s->idx, n);
        return;
    }
    memset(s->counts, 0, sizeof(int64_t[8][256]));
    for (int64_t i = 0; i < n; i++)
        for (int b = 0; b < width; b++) s->counts[b][(s->key[i] >> (8 * b)) & 255]++;
    for (int b = 0; b < width; b++) {
        int64_t *count = s->counts[b];
        if (count[(s->key[0] >> (8 * b)) & 255] == n) continue; /* every key has this byte */
        int64_t pos = 0;
        for (int d = 0; d < 256; d++) {
            int64_t c = count[d];
            count[d] = pos;
            pos += c;
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t at = count[(s->key[i] >> (8 * b)) & 255]++;
            s->key2[at] = s->key[i];
            s->idx2[at] = s->idx[i];
        }
        uint64_t *tk = s->key;
        s->key = s->key2;
        s->key2 = tk;
        int64_t *ti = s->idx;
        s->idx = s->idx2;
        s->idx2 = ti;
    }
}

/* ---------------------------------------------------------------- rows along a dimension */

/* The slices of the input and the outputs along `dim`: their element strides along it, and the
 * other dimensions (sizes, element strides per operand) whose index a row number decomposes
 * into. */
typedef struct rows {
    int32_t nd;
    int64_t count;
    int64_t sizes[PT_MAX_DIMS];
    int64_t strides[3][PT_MAX_DIMS];
    int64_t along[3];
} rows;

static void rows_init(rows *r, int32_t dim, pt_tensor *const *ts, int32_t nts)
{
    const pt_tensor *t0 = ts[0];
    r->nd = 0;
    r->count = 1;
    for (int32_t d = 0; d < t0->ndim; d++) {
        if (d == dim) continue;
        r->sizes[r->nd] = t0->sizes[d];
        for (int32_t k = 0; k < nts; k++) r->strides[k][r->nd] = ts[k]->strides[d];
        r->count *= t0->sizes[d];
        r->nd++;
    }
    for (int32_t k = 0; k < nts; k++) r->along[k] = ts[k]->ndim > 0 ? ts[k]->strides[dim] : 1;
}

/* The element offset of row `row` in operand k. */
static int64_t row_offset(const rows *r, int32_t k, int64_t row)
{
    int64_t off = 0;
    for (int32_t d = r->nd - 1; d >= 0; d--) {
        off += (row % r->sizes[d]) * r->strides[k][d];
        row /= r->sizes[d];
    }
    return off;
}

/* One sort/topk call: operand 0 is the input, 1 the values (NULL data for argsort), 2 the
 * indices; n elements per row, the first k of each sorted row are written. */
typedef struct sort_plan {
    rows r;
    int32_t dtype;
    int width;
    int64_t n, k;
    uint64_t flip;
    const char *src;
    char *vals;
    int64_t *idx;
} sort_plan;

static void sort_row(const sort_plan *p, scratch *s, int64_t row)
{
    int64_t isz = pt_dtype_itemsize(p->dtype);
    const char *src = p->src + row_offset(&p->r, 0, row) * isz;
    encode(p->dtype, src, p->r.along[0] * isz, p->n, p->flip, s->key);
    for (int64_t i = 0; i < p->n; i++) s->idx[i] = i;
    sort_keys(s, p->n, p->width);
    int64_t *idx = p->idx + row_offset(&p->r, 2, row);
    for (int64_t j = 0; j < p->k; j++) idx[j * p->r.along[2]] = s->idx[j];
    if (!p->vals) return;
    char *vals = p->vals + row_offset(&p->r, 1, row) * isz;
    int64_t vstep = p->r.along[1] * isz, sstep = p->r.along[0] * isz;
    for (int64_t j = 0; j < p->k; j++)
        memcpy(vals + j * vstep, src + s->idx[j] * sstep, (size_t)isz);
}

/* Note [sort threads]
 * Rows are independent and each thread sorts whole rows with its own scratch, so splitting rows
 * across threads needs no synchronization. The split pays off only with enough work per thread
 * (torch's grain for its sort loop is 32768 elements); one long row stays on one thread. The
 * scratch of every thread is allocated before the split, on the calling thread, so that a
 * failure is reported there (the error message is thread-local) and the threads cannot fail. */
enum { SORT_GRAIN = 32768, SORT_MAX_THREADS = 64 };

static pt_status run_sort(const sort_plan *p)
{
    int64_t rows_n = p->r.count, threads = 1;
    if (rows_n == 0 || p->n == 0 || p->k == 0) return PT_OK;
#ifdef _OPENMP
    int64_t work = rows_n * p->n;
    if (rows_n > 1 && work >= 2 * SORT_GRAIN && !omp_in_parallel()) {
        threads = omp_get_max_threads();
        if (threads > work / SORT_GRAIN) threads = work / SORT_GRAIN;
        if (threads > rows_n) threads = rows_n;
        if (threads > SORT_MAX_THREADS) threads = SORT_MAX_THREADS;
    }
#endif
    scratch s[SORT_MAX_THREADS];
    for (int64_t t = 0; t < threads; t++) {
        pt_status st = scratch_init(&s[t], p->n);
        if (st != PT_OK) {
            while (t-- > 0) scratch_free(&s[t]);
            return st;
        }
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)threads) schedule(static) if (threads > 1)
#endif
    for (int64_t t = 0; t < threads; t++)
        for (int64_t row = rows_n * t / threads; row < rows_n * (t + 1) / threads; row++)
            sort_row(p, &s[t], row);
    for (int64_t t = 0; t < threads; t++) scratch_free(&s[t]);
    return PT_OK;
}

/* ---------------------------------------------------------------- sort, argsort, topk */

typedef struct sort_args {
    const char *op;
    const pt_tensor *self;
    int64_t dim;
    bool descending;
    bool want_values;
    int64_t k; /* -1: sort (all of each row, output shaped and laid out like self) */
} sort_args;

static pt_status check_sortable(const char *op, const pt_tensor *self, bool topk)
{
    PT_TRY(pt_iter_check_operand(self, op, "self"));
    if (is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "%s does not support complex dtypes on CPU",
                        topk ? "topk" : "Sort");
    if (topk && self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "topk does not support bool dtypes on CPU");
    return PT_OK;
}

/* The outputs: a sort's take self's strides when they are dense (torch's sort meta function),
 * topk's are contiguous. */
static pt_status make_outputs(const sort_args *a, int32_t dim, pt_tensor **vals, pt_tensor **idx)
{
    const pt_tensor *self = a->self;
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    if (a->k >= 0 && self->ndim > 0) sizes[dim] = a->k;
    if (a->k < 0) pt_native_like_strides(self->ndim, sizes, self->strides, strides);
    else pt_contiguous_strides(self->ndim, sizes, strides);
    *vals = NULL;
    if (a->want_values)
        PT_TRY(pt_tensor_empty_strided(self->ndim, sizes, strides, self->dtype, self->device,
                                       vals));
    pt_status st = pt_tensor_empty_strided(self->ndim, sizes, strides, PT_INT64, self->device, idx);
    if (st != PT_OK) pt_tensor_release(*vals);
    return st;
}

static pt_status sort_common(const sort_args *a, pt_tensor **vals, pt_tensor **idx)
{
    const pt_tensor *self = a->self;
    PT_TRY(check_sortable(a->op, self, a->k >= 0));
    int32_t dim;
    PT_TRY(pt_wrap_dim(a->dim, self->ndim, &dim));
    int64_t n = self->ndim > 0 ? self->sizes[dim] : 1;
    if (a->k >= 0 && a->k > n) return PT_ERROR(PT_ERR_RUNTIME, "selected index k out of range");
    PT_TRY(make_outputs(a, dim, vals, idx));
    if (self->device.type != PT_DEV_CPU || self->numel == 0) return PT_OK;
    sort_plan p = {.dtype = self->dtype, .width = key_width(self->dtype), .n = n,
                   .k = a->k >= 0 ? a->k : n, .src = pt_tensor_data(self),
                   .vals = *vals ? pt_tensor_data(*vals) : NULL, .idx = pt_tensor_data(*idx)};
    p.flip = a->descending ? key_mask(p.width) : 0;
    pt_tensor *ops[3] = {(pt_tensor *)self, *vals ? *vals : *idx, *idx};
    rows_init(&p.r, self->ndim > 0 ? dim : -1, ops, 3);
    pt_status st = run_sort(&p);
    if (st != PT_OK) {
        pt_tensor_release(*vals);
        pt_tensor_release(*idx);
    }
    return st;
}

pt_status pt_kernel_sort(const pt_tensor *self, int64_t dim, int32_t descending, pt_tensor **ret0,
                         pt_tensor **ret1)
{
    sort_args a = {"sort", self, dim, descending != 0, true, -1};
    return sort_common(&a, ret0, ret1);
}

pt_status pt_kernel_sort_stable(const pt_tensor *self, int32_t stable, int64_t dim,
                                int32_t descending, pt_tensor **ret0, pt_tensor **ret1)
{
    PT_UNUSED(stable); /* every sort here is stable */
    return pt_kernel_sort(self, dim, descending, ret0, ret1);
}

/* Both outputs of an out= call, each moved into its tensor; a failure leaves nothing held. */
static pt_status move_pair(const char *op, pt_tensor *r0, pt_tensor *r1, pt_tensor *values,
                           pt_tensor *indices, pt_tensor **ret0, pt_tensor **ret1)
{
    pt_status st = pt_sort_move_out(op, "values", r0, values, ret0);
    if (st != PT_OK) {
        pt_tensor_release(r1);
        return st;
    }
    st = pt_sort_move_out(op, "indices", r1, indices, ret1);
    if (st != PT_OK) pt_tensor_release(*ret0);
    return st;
}

pt_status pt_kernel_sort_values(const pt_tensor *self, int64_t dim, int32_t descending,
                                pt_tensor *values, pt_tensor *indices, pt_tensor **ret0,
                                pt_tensor **ret1)
{
    pt_tensor *r0, *r1;
    PT_TRY(pt_kernel_sort(self, dim, descending, &r0, &r1));
    return move_pair("sort", r0, r1, values, indices, ret0, ret1);
}

pt_status pt_kernel_sort_values_stable(const pt_tensor *self, int32_t stable, int64_t dim,
                                       int32_t descending, pt_tensor *values, pt_tensor *indices,
                                       pt_tensor **ret0, pt_tensor **ret1)
{
    PT_UNUSED(stable);
    return pt_kernel_sort_values(self, dim, descending, values, indices, ret0, ret1);
}

pt_status pt_kernel_argsort(const pt_tensor *self, int64_t dim, int32_t descending,
                            pt_tensor **ret)
{
    sort_args a = {"argsort", self, dim, descending != 0, false, -1};
    pt_tensor *unused;
    return sort_common(&a, &unused, ret);
}

pt_status pt_kernel_argsort_stable(const pt_tensor *self, int32_t stable, int64_t dim,
                                   int32_t descending, pt_tensor **ret)
{
    PT_UNUSED(stable);
    return pt_kernel_argsort(self, dim, descending, ret);
}

pt_status pt_kernel_argsort_stable_out(const pt_tensor *self, int32_t stable, int64_t dim,
                                       int32_t descending, pt_tensor *out, pt_tensor **ret)
{
    PT_UNUSED(stable);
    pt_tensor *r;
    PT_TRY(pt_kernel_argsort(self, dim, descending, &r));
    return pt_sort_move_out("argsort", "out", r, out, ret);
}

pt_status pt_kernel_topk(const pt_tensor *self, int64_t k_, int64_t dim, int32_t largest,
                         int32_t sorted, pt_tensor **ret0, pt_tensor **ret1)
{
    PT_UNUSED(sorted); /* the k values always come sorted */
    if (k_ < 0) {
        PT_TRY(check_sortable("topk", self, true));
        return PT_ERROR(PT_ERR_RUNTIME, "selected index k out of range");
    }
    sort_args a = {"topk", self, dim, largest != 0, true, k_};
    return sort_common(&a, ret0, ret1);
}

pt_status pt_kernel_topk_values(const pt_tensor *self, int64_t k_, int64_t dim, int32_t largest,
                                int32_t sorted, pt_tensor *values, pt_tensor *indices,
                                pt_tensor **ret0, pt_tensor **ret1)
{
    pt_tensor *r0, *r1;
    PT_TRY(pt_kernel_topk(self, k_, dim, largest, sorted, &r0, &r1));
    return move_pair("topk", r0, r1, values, indices, ret0, ret1);
}

/* ---------------------------------------------------------------- the unique family */

typedef struct unique_out {
    pt_tensor *values, *inverse, *counts;
} unique_out;

static void unique_release(unique_out *u)
{
    pt_tensor_release(u->values);
    pt_tensor_release(u->inverse);
    pt_tensor_release(u->counts);
    memset(u, 0, sizeof *u);
}

static pt_status check_unique(const char *op, const pt_tensor *self)
{
    PT_TRY(pt_iter_check_operand(self, op, "self"));
    if (is_complex(self->dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", op,
                        pt_iter_type_name(self->dtype));
    if (self->device.type == PT_DEV_META)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: the shape of the result depends on the "
                        "input's values, which meta tensors do not have", op);
    return PT_OK;
}

static pt_status empty_1d(int64_t n, int32_t dtype, pt_tensor **out)
{
    return pt_tensor_empty(1, &n, dtype, (pt_device){PT_DEV_CPU, 0}, out);
}

/* The flat unique: the groups of equal keys along `order` (the sorted positions, or the
 * identity for unique_consecutive). NaN keys never start nor join a group of equals. */
static pt_status unique_flat(const pt_tensor *src, const uint64_t *key, const int64_t *order,
                             bool want_inverse, bool want_counts, unique_out *u)
{
    int64_t n = src->numel, groups = 0, isz = pt_dtype_itemsize(src->dtype);
    uint64_t nan_key = pt_is_floating(src->dtype) ? key_mask(key_width(src->dtype)) : 0;
    bool has_nan = pt_is_floating(src->dtype);
    for (int64_t j = 0; j < n; j++)
        groups += j == 0 || key[j] != key[j - 1] || (has_nan && key[j] == nan_key);
    PT_TRY(empty_1d(groups, src->dtype, &u->values));
    pt_status st = want_inverse ? pt_tensor_empty(src->ndim, src->sizes, PT_INT64, src->device,
                                                  &u->inverse)
                                : empty_1d(0, PT_INT64, &u->inverse);
    if (st == PT_OK) st = empty_1d(want_counts ? groups : 0, PT_INT64, &u->counts);
    if (st != PT_OK) {
        unique_release(u);
        return st;
    }
    const char *data = pt_tensor_data(src);
    char *vals = pt_tensor_data(u->values);
    int64_t *inv = pt_tensor_data(u->inverse), *cnt = pt_tensor_data(u->counts), g = -1;
    for (int64_t j = 0; j < n; j++) {
        if (j == 0 || key[j] != key[j - 1] || (has_nan && key[j] == nan_key)) {
            g++;
            memcpy(vals + g * isz, data + order[j] * isz, (size_t)isz);
            if (want_counts) cnt[g] = 0;
        }
        if (want_inverse) inv[order[j]] = g;
        if (want_counts) cnt[g]++;
    }
    return PT_OK;
}

/* Flattened (contiguous copy) keys of self in s, positions in s->idx; sorted when `sort`. */
static pt_status flat_keys(const pt_tensor *self, bool sort, pt_tensor **flat, scratch *s)
{
    PT_TRY(pt_tensor_contiguous(self, flat));
    pt_status st = scratch_init(s, self->numel);
    if (st != PT_OK) {
        pt_tensor_release(*flat);
        return st;
    }
    int64_t isz = pt_dtype_itemsize(self->dtype);
    encode(self->dtype, pt_tensor_data(*flat), isz, self->numel, 0, s->key);
    for (int64_t i = 0; i < self->numel; i++) s->idx[i] = i;
    if (sort) sort_keys(s, self->numel, key_width(self->dtype));
    return PT_OK;
}

static pt_status unique_flat_op(const char *op, const pt_tensor *self, bool sort, bool inverse,
                                bool counts, unique_out *u)
{
    PT_TRY(check_unique(op, self));
    pt_tensor *flat;
    scratch s;
    PT_TRY(flat_keys(self, sort, &flat, &s));
    /* the contiguous copy keeps self's shape, which the inverse takes */
    pt_status st = unique_flat(flat, s.key, s.idx, inverse, counts, u);
    scratch_free(&s);
    pt_tensor_release(flat);
    return st;
}

/* ---------------------------------------------------------------- unique along a dimension */

/* Lexicographic order of two slices' keys. */
static int slice_cmp(const uint64_t *key, int64_t len, int64_t a, int64_t b)
{
    const uint64_t *x = key + a * len, *y = key + b * len;
    for (int64_t i = 0; i < len; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Stable merge sort of the slice numbers in idx[0..n) by slice_cmp; tmp holds n. */
static void merge_sort(int64_t *idx, int64_t *tmp, int64_t n, const uint64_t *key, int64_t len)
{
    if (n <= 1) return;
    int64_t h = n / 2;
    merge_sort(idx, tmp, h, key, len);
    merge_sort(idx + h, tmp, n - h, key, len);
    int64_t i = 0, j = h, o = 0;
    while (i < h && j < n) tmp[o++] = slice_cmp(key, len, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
    while (i < h) tmp[o++] = idx[i++];
    while (j < n) tmp[o++] = idx[j++];
    memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
}

typedef struct slices {
    pt_tensor *moved; /* contiguous, dim first */
    int64_t count, len;
    int32_t perm[PT_MAX_DIMS];
    bool has_nan;     /* a floating dtype: NaN keys make slices unequal */
    uint64_t nan_key;
} slices;

/* Whether two slices are equal as torch's unique_dim compares them: element by element, where
 * NaN equals nothing. */
static bool slice_same(const slices *sl, const uint64_t *key, int64_t a, int64_t b)
{
    const uint64_t *x = key + a * sl->len, *y = key + b * sl->len;
    for (int64_t i = 0; i < sl->len; i++)
        if (x[i] != y[i] || (sl->has_nan && x[i] == sl->nan_key)) return false;
    return true;
}

/* The slices of self along dim as rows of a contiguous copy, and their keys in s->key. */
static pt_status slice_keys(const pt_tensor *self, int32_t dim, slices *sl, scratch *s)
{
    int64_t perm[PT_MAX_DIMS];
    perm[0] = dim;
    for (int32_t d = 0, j = 1; d < self->ndim; d++)
        if (d != dim) perm[j++] = d;
    for (int32_t d = 0; d < self->ndim; d++) sl->perm[d] = (int32_t)perm[d];
    pt_tensor *view;
    PT_TRY(pt_tensor_permute(self, self->ndim, perm, &view));
    pt_status st = pt_tensor_contiguous(view, &sl->moved);
    pt_tensor_release(view);
    if (st != PT_OK) return st;
    sl->count = self->sizes[dim];
    sl->has_nan = pt_is_floating(self->dtype);
    sl->nan_key = key_mask(key_width(self->dtype));
    sl->len = sl->count ? self->numel / sl->count : 0;
    st = scratch_init(s, self->numel > sl->count ? self->numel : sl->count);
    if (st != PT_OK) {
        pt_tensor_release(sl->moved);
        return st;
    }
    int64_t isz = pt_dtype_itemsize(self->dtype);
    encode(self->dtype, pt_tensor_data(sl->moved), isz, self->numel, 0, s->key);
    for (int64_t i = 0; i < sl->count; i++) s->idx[i] = i;
    return PT_OK;
}

/* The unique slices along `order` into u (values laid out like self, dim first then moved back). */
static pt_status gather_slices(const pt_tensor *self, const slices *sl, const uint64_t *key,
                               const int64_t *order, unique_out *u)
{
    int64_t groups = 0, S = sl->count, L = sl->len, isz = pt_dtype_itemsize(self->dtype);
    for (int64_t j = 0; j < S; j++)
        groups += j == 0 || !slice_same(sl, key, order[j], order[j - 1]);
    int64_t sizes[PT_MAX_DIMS], back[PT_MAX_DIMS];
    for (int32_t d = 0; d < self->ndim; d++) {
        sizes[d] = d == 0 ? groups : self->sizes[sl->perm[d]];
        back[sl->perm[d]] = d;
    }
    pt_tensor *moved;
    PT_TRY(pt_tensor_empty(self->ndim, sizes, self->dtype, self->device, &moved));
    pt_status st = empty_1d(S, PT_INT64, &u->inverse);
    if (st == PT_OK) st = empty_1d(groups, PT_INT64, &u->counts);
    if (st != PT_OK) {
        pt_tensor_release(moved);
        return st;
    }
    const char *src = pt_tensor_data(sl->moved);
    char *dst = pt_tensor_data(moved);
    int64_t *inv = pt_tensor_data(u->inverse), *cnt = pt_tensor_data(u->counts), g = -1;
    for (int64_t j = 0; j < S; j++) {
        if (j == 0 || !slice_same(sl, key, order[j], order[j - 1])) {
            g++;
            memcpy(dst + g * L * isz, src + order[j] * L * isz, (size_t)(L * isz));
            cnt[g] = 0;
        }
        inv[order[j]] = g;
        cnt[g]++;
    }
    pt_tensor *view;
    st = pt_tensor_permute(moved, self->ndim, back, &view);
    pt_tensor_release(moved);
    if (st != PT_OK) return st;
    st = pt_tensor_contiguous(view, &u->values);
    pt_tensor_release(view);
    return st;
}

static pt_status unique_dim_op(const char *op, const pt_tensor *self, int64_t dim, bool sort,
                               unique_out *u)
{
    PT_TRY(check_unique(op, self));
    if (self->ndim == 0)
        return PT_ERROR(PT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                        (long long)dim);
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    for (int32_t k = 0; k < self->ndim; k++)
        if (k != d && self->sizes[k] == 0)
            return PT_ERROR(PT_ERR_RUNTIME, "There are 0 sized dimensions, and they aren't "
                            "selected, so unique cannot be applied");
    slices sl;
    scratch s;
    PT_TRY(slice_keys(self, d, &sl, &s));
    if (sort) merge_sort(s.idx, s.idx2, sl.count, s.key, sl.len);
    pt_status st = gather_slices(self, &sl, s.key, s.idx, u);
    if (st != PT_OK) unique_release(u);
    scratch_free(&s);
    pt_tensor_release(sl.moved);
    return st;
}

static void unique_take(unique_out *u, pt_tensor **r0, pt_tensor **r1, pt_tensor **r2)
{
    *r0 = u->values;
    *r1 = u->inverse;
    *r2 = u->counts;
}

/* The three results moved into out0..out2; a failure leaves nothing held. */
static pt_status unique_move(const char *op, pt_status st, unique_out *u, pt_tensor *out0,
                             pt_tensor *out1, pt_tensor *out2, pt_tensor **r0, pt_tensor **r1,
                             pt_tensor **r2)
{
    if (st != PT_OK) return st;
    st = pt_sort_move_out(op, "out0", u->values, out0, r0);
    u->values = NULL;
    if (st == PT_OK) {
        st = pt_sort_move_out(op, "out1", u->inverse, out1, r1);
        u->inverse = NULL;
        if (st != PT_OK) pt_tensor_release(*r0);
    }
    if (st == PT_OK) {
        st = pt_sort_move_out(op, "out2", u->counts, out2, r2);
        u->counts = NULL;
        if (st != PT_OK) {
            pt_tensor_release(*r0);
            pt_tensor_release(*r1);
        }
    }
    unique_release(u);
    return st;
}

pt_status pt_kernel_unique2(const pt_tensor *self, int32_t sorted, int32_t return_inverse,
                            int32_t return_counts, pt_tensor **ret0, pt_tensor **ret1,
                            pt_tensor **ret2)
{
    PT_UNUSED(sorted); /* the values always come sorted, as torch's CPU kernel gives them */
    unique_out u = {0};
    PT_TRY(unique_flat_op("unique", self, true, return_inverse, return_counts, &u));
    unique_take(&u, ret0, ret1, ret2);
    return PT_OK;
}

pt_status pt_kernel_unique2_out(const pt_tensor *self, int32_t sorted, int32_t return_inverse,
                                int32_t return_counts, pt_tensor *out0, pt_tensor *out1,
                                pt_tensor *out2, pt_tensor **ret0, pt_tensor **ret1,
                                pt_tensor **ret2)
{
    PT_UNUSED(sorted);
    unique_out u = {0};
    pt_status st = unique_flat_op("unique", self, true, return_inverse, return_counts, &u);
    return unique_move("unique", st, &u, out0, out1, out2, ret0, ret1, ret2);
}

pt_status pt_kernel_unique_dim(const pt_tensor *self, int64_t dim, int32_t sorted,
                               int32_t return_inverse, int32_t return_counts, pt_tensor **ret0,
                               pt_tensor **ret1, pt_tensor **ret2)
{
    /* torch computes the inverse and the counts whatever the flags say, and so do we */
    PT_UNUSED(sorted);
    PT_UNUSED(return_inverse);
    PT_UNUSED(return_counts);
    unique_out u = {0};
    PT_TRY(unique_dim_op("unique_dim", self, dim, true, &u));
    unique_take(&u, ret0, ret1, ret2);
    return PT_OK;
}

pt_status pt_kernel_unique_dim_out(const pt_tensor *self, int64_t dim, int32_t sorted,
                                   int32_t return_inverse, int32_t return_counts, pt_tensor *out0,
                                   pt_tensor *out1, pt_tensor *out2, pt_tensor **ret0,
                                   pt_tensor **ret1, pt_tensor **ret2)
{
    PT_UNUSED(sorted);
    PT_UNUSED(return_inverse);
    PT_UNUSED(return_counts);
    unique_out u = {0};
    pt_status st = unique_dim_op("unique_dim", self, dim, true, &u);
    return unique_move("unique_dim", st, &u, out0, out1, out2, ret0, ret1, ret2);
}

/* torch's unique_consecutive: the flat form unless a dim is given (and is not the only dim). */
static pt_status consecutive(const pt_tensor *self, bool inverse, bool counts, const int64_t *dim,
                             unique_out *u)
{
    if (dim && !(self && self->ndim == 1 && (*dim == 0 || *dim == -1)))
        return unique_dim_op("unique_dim", self, *dim, false, u);
    return unique_flat_op("unique", self, false, inverse, counts, u);
}

pt_status pt_kernel_unique_consecutive(const pt_tensor *self, int32_t return_inverse,
                                       int32_t return_counts, const int64_t *dim,
                                       pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2)
{
    unique_out u = {0};
    PT_TRY(consecutive(self, return_inverse, return_counts, dim, &u));
    unique_take(&u, ret0, ret1, ret2);
    return PT_OK;
}

pt_status pt_kernel_unique_consecutive_out(const pt_tensor *self, int32_t return_inverse,
                                           int32_t return_counts, const int64_t *dim,
                                           pt_tensor *out0, pt_tensor *out1, pt_tensor *out2,
                                           pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2)
{
    unique_out u = {0};
    pt_status st = consecutive(self, return_inverse, return_counts, dim, &u);
    return unique_move("unique_consecutive", st, &u, out0, out1, out2, ret0, ret1, ret2);
}

pt_status pt_kernel_unique_dim_consecutive(const pt_tensor *self, int64_t dim,
                                           int32_t return_inverse, int32_t return_counts,
                                           pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2)
{
    PT_UNUSED(return_inverse);
    PT_UNUSED(return_counts);
    unique_out u = {0};
    PT_TRY(unique_dim_op("unique_dim", self, dim, false, &u));
    unique_take(&u, ret0, ret1, ret2);
    return PT_OK;
}

pt_status pt_kernel_unique_dim_consecutive_out(const pt_tensor *self, int64_t dim,
                                               int32_t return_inverse, int32_t return_counts,
                                               pt_tensor *out0, pt_tensor *out1, pt_tensor *out2,
                                               pt_tensor **ret0, pt_tensor **ret1,
                                               pt_tensor **ret2)
{
    PT_UNUSED(return_inverse);
    PT_UNUSED(return_counts);
    unique_out u = {0};
    pt_status st = unique_dim_op("unique_dim", self, dim, false, &u);
    return unique_move("unique_dim_consecutive", st, &u, out0, out1, out2, ret0, ret1, ret2);
}

/* torch.unique as an operator: _unique2 or unique_dim, then the values followed by the inverse
 * and the counts where they were asked for (the schema's `(Tensor, ...)`). */
pt_status pt_native_unique(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                           void *ctx)
{
    PT_UNUSED(key);
    PT_UNUSED(keyset);
    PT_UNUSED(ctx);
    PT_TRY(pt_box_check_stack(op, stack, 5, 3));
    const int32_t base = stack->size - 5;
    const pt_ivalue *a = stack->items + base;
    pt_tensor *self;
    int32_t sorted, inverse, counts;
    int64_t dim_value;
    const int64_t *dim;
    PT_TRY(pt_unbox_tensor(op, a, 0, 0, &self));
    PT_TRY(pt_unbox_bool(op, a, 1, &sorted));
    PT_TRY(pt_unbox_bool(op, a, 2, &inverse));
    PT_TRY(pt_unbox_bool(op, a, 3, &counts));
    PT_TRY(pt_unbox_opt_int(op, a, 4, &dim_value, &dim));
    pt_tensor *r[3] = {NULL, NULL, NULL};
    pt_status st =
        dim ? pt_call_unique_dim(self, *dim, sorted, inverse, counts, &r[0], &r[1], &r[2])
            : pt_call__unique2(self, sorted, inverse, counts, &r[0], &r[1], &r[2]);
    stack->size = base;
    if (st != PT_OK) return st;
    const bool keep[3] = {true, inverse != 0, counts != 0};
    for (int i = 0; i < 3; i++) {
        if (!keep[i]) {
            pt_tensor_release(r[i]);
            continue;
        }
        pt_box_tensor(&stack->items[stack->size++], r[i]);
    }
    return PT_OK;
}
