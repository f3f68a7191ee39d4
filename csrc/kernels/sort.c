/* sort.c - sort, argsort and topk along a dimension, and what the unique family (unique.c)
 * shares with them: the sortable keys, the radix sort and the move of a result into out=.
 *
 * Every one of them sorts keys (Note [sortable keys]): each element becomes an
 * unsigned integer whose order is torch's order for the dtype, and a row is sorted by an LSD
 * radix sort on those keys that carries the elements' positions along. The sort is stable, so
 * sort(stable=True) and the default sort give the same answer (torch's default is allowed to be
 * either). Values are then gathered from the input by position, so that NaN payloads and the sign
 * of zero come out exactly as they went in.
 *
 * Rows are the 1-d slices along `dim`; the other dimensions are walked by decomposing a row
 * number into their indices, which lets OpenMP hand rows to threads when the work is large enough
 * (Note [sort threads]). Each thread owns its scratch buffers. Meta tensors get shapes and dtypes.
 *
 * Deviations from torch: topk(sorted=False) returns its values sorted (torch leaves the order
 * unspecified); out= tensors of another shape are resized only when they hold no elements.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "native.h"
#include "sort_common.h"
#include "sort_internal.h"

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

int pt_sort_key_width(int32_t dtype)
{
    if (is_complex(dtype) || dtype >= PT_DTYPE_BUILTIN_COUNT) return 0;
    return pt_dtype_itemsize(dtype);
}

uint64_t pt_sort_key_mask(int width)
{
    return width >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * width)) - 1;
}

/* The key of IEEE bits of the width whose sign bit is `sign` and whose +inf is `inf`: selects,
 * not branches, so that a contiguous row's keys are computed in vector registers. */
static inline uint64_t float_key(uint64_t bits, uint64_t sign, uint64_t inf)
{
    const uint64_t mask = sign | (sign - 1), mag = bits & (sign - 1);
    uint64_t k = (bits & sign) ? ~bits & mask : bits | sign;
    k = mag == 0 ? sign : k;
    return mag > inf ? mask : k;
}

#define ENCODE(T, EXPR)                                                                            \
    if (stride == (int64_t)sizeof(T)) {                                                            \
        const T *row = (const T *)(const void *)src;                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T v = row[i];                                                                    \
            key[i] = (EXPR) ^ flip;                                                                \
        }                                                                                          \
        return;                                                                                    \
    }                                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                              \
        T v;                                                                                       \
        memcpy(&v, src + i * stride, sizeof v);                                                    \
        key[i] = (EXPR) ^ flip;                                                                    \
    }                                                                                              \
    return

void pt_sort_encode(int32_t dtype, const char *src, int64_t stride, int64_t n, uint64_t flip,
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

void pt_sort_scratch_free(pt_sort_scratch *s)
{
    free(s->key);
    free(s->key2);
    free(s->idx);
    free(s->idx2);
    free(s->counts);
    memset(s, 0, sizeof *s);
}

pt_status pt_sort_scratch_init(pt_sort_scratch *s, int64_t n)
{
    size_t m = (size_t)(n > 0 ? n : 1);
    s->key = malloc(m * sizeof(uint64_t));
    s->key2 = malloc(m * sizeof(uint64_t));
    s->idx = malloc(m * sizeof(int64_t));
    s->idx2 = malloc(m * sizeof(int64_t));
    s->counts = malloc(sizeof(int64_t[8][256]));
    if (s->key && s->key2 && s->idx && s->idx2 && s->counts) return PT_OK;
    pt_sort_scratch_free(s);
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

/* The buffers written last become the ones read: after a pass, or a selection. */
static void swap_scratch(pt_sort_scratch *s)
{
    uint64_t *tk = s->key;
    s->key = s->key2;
    s->key2 = tk;
    int64_t *ti = s->idx;
    s->idx = s->idx2;
    s->idx2 = ti;
}

/* Sorts s->key[0..n) stably, carrying s->idx; the result is left in s->key / s->idx. */
void pt_sort_keys(pt_sort_scratch *s, int64_t n, int width)
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
        swap_scratch(s);
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

/* Note [topk selection]
 * topk needs the first k of a row's stable sort, not the whole sort. For k up to n / SELECT_RATIO
 * it selects them first: a radix select over the keys' bytes, most significant first (each pass
 * a histogram of the remaining candidates and a compaction to the bucket holding the k-th), finds
 * the k-th smallest key t; one pass then takes, in position order, every key below t and the
 * first keys equal to t up to k; the stable sort of those k is the same as the first k of the
 * stable sort of all n (ties keep the lower position). Deterministic O(n) work per byte of the
 * remaining candidates, usually one full pass, against the full sort's one pass per key byte.
 * For k up to INSERT_MAX_K, one pass keeps the best k seen so far in a sorted buffer: a key enters
 * only when it is below the buffer's last (strictly, so ties keep the lower position), which for
 * random rows happens about k ln(n / k) times; at worst (a row sorted the wrong way) every key
 * enters at a cost of k moves. */
enum { SELECT_RATIO = 4, INSERT_MAX_K = 32 };

static void insert_first_k(pt_sort_scratch *s, int64_t n, int64_t k)
{
    uint64_t *bk = s->key2;
    int64_t *bi = s->idx2, c = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint64_t key = s->key[i];
        if (c == k && key >= bk[k - 1]) continue;
        int64_t j = c < k ? c++ : k - 1;
        for (; j > 0 && bk[j - 1] > key; j--) {
            bk[j] = bk[j - 1];
            bi[j] = bi[j - 1];
        }
        bk[j] = key;
        bi[j] = i;
    }
    swap_scratch(s);
}

static void select_first_k(pt_sort_scratch *s, int64_t n, int64_t k, int width)
{
    const uint64_t *src = s->key;
    uint64_t *cand = s->key2;
    int64_t m = n, rank = k; /* the rank (1-based) of the wanted key among the candidates */
    for (int b = width - 1; b >= 0; b--) {
        int64_t hist[256] = {0};
        for (int64_t i = 0; i < m; i++) hist[(src[i] >> (8 * b)) & 255]++;
        int d = 0;
        while (rank > hist[d]) rank -= hist[d++];
        if (hist[d] == m) continue; /* every candidate has this byte */
        /* Branch-free: a bucket of random keys is taken about as often as not. */
        int64_t w = 0;
        for (int64_t i = 0; i < m; i++) {
            const uint64_t key = src[i];
            cand[w] = key;
            w += (int64_t)(((key >> (8 * b)) & 255) == (uint64_t)d);
        }
        src = cand;
        m = w;
    }
    const uint64_t t = src[0]; /* every candidate left is the k-th smallest key */
    int64_t w = 0, equal = rank; /* keys equal to t among the first k */
    for (int64_t i = 0; i < n && w < k; i++) {
        const uint64_t key = s->key[i];
        if (key < t || (key == t && equal > 0)) {
            if (key == t) equal--;
            s->key2[w] = key;
            s->idx2[w++] = i;
        }
    }
    swap_scratch(s);
    pt_sort_keys(s, k, width);
}

static void sort_row(const sort_plan *p, pt_sort_scratch *s, int64_t row)
{
    int64_t isz = pt_dtype_itemsize(p->dtype);
    const char *src = p->src + row_offset(&p->r, 0, row) * isz;
    pt_sort_encode(p->dtype, src, p->r.along[0] * isz, p->n, p->flip, s->key);
    if (p->k <= INSERT_MAX_K && p->k * SELECT_RATIO <= p->n) {
        insert_first_k(s, p->n, p->k); /* Note [topk selection] */
    } else if (p->k * SELECT_RATIO <= p->n) {
        select_first_k(s, p->n, p->k, p->width);
    } else {
        for (int64_t i = 0; i < p->n; i++) s->idx[i] = i;
        pt_sort_keys(s, p->n, p->width);
    }
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
        threads = pt_get_num_threads();
        if (threads > work / SORT_GRAIN) threads = work / SORT_GRAIN;
        if (threads > rows_n) threads = rows_n;
        if (threads > SORT_MAX_THREADS) threads = SORT_MAX_THREADS;
    }
#endif
    pt_sort_scratch s[SORT_MAX_THREADS];
    for (int64_t t = 0; t < threads; t++) {
        pt_status st = pt_sort_scratch_init(&s[t], p->n);
        if (st != PT_OK) {
            while (t-- > 0) pt_sort_scratch_free(&s[t]);
            return st;
        }
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)threads) schedule(static) if (threads > 1)
#endif
    for (int64_t t = 0; t < threads; t++)
        for (int64_t row = rows_n * t / threads; row < rows_n * (t + 1) / threads; row++)
            sort_row(p, &s[t], row);
    for (int64_t t = 0; t < threads; t++) pt_sort_scratch_free(&s[t]);
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
    sort_plan p = {.dtype = self->dtype, .width = pt_sort_key_width(self->dtype), .n = n,
                   .k = a->k >= 0 ? a->k : n, .src = pt_tensor_data(self),
                   .vals = *vals ? pt_tensor_data(*vals) : NULL, .idx = pt_tensor_data(*idx)};
    p.flip = a->descending ? pt_sort_key_mask(p.width) : 0;
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

