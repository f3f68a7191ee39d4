/* unique.c - the unique family: _unique2, unique_dim, unique_consecutive,
 * unique_dim_consecutive (each with its out= form) and the boxed `unique` that torch.unique is.
 *
 * They compare the sortable keys of sort.c (Note [sortable keys]). unique sorts the flattened
 * input once with the radix sort and reads groups of equal keys off the sorted order; unique_dim
 * sorts whole slices (a stable merge sort, comparing their keys lexicographically); the
 * consecutive forms read the groups off the input's own order. In all of them NaN equals nothing,
 * so every NaN (or slice holding one) stays apart, as in torch, and the first element of a group
 * in the stable order is the one kept. The results' shapes depend on the data, so meta tensors
 * are refused.
 *
 * Deviation from torch: out= tensors of another shape are resized only when they hold no
 * elements.
 */
#include <string.h>

#include "boxing.h"
#include "native.h"
#include "sort_common.h"
#include "sort_internal.h"

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
    if (pt_is_complex(self->dtype))
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
    uint64_t nan_key =
        pt_is_floating(src->dtype) ? pt_sort_key_mask(pt_sort_key_width(src->dtype)) : 0;
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
static pt_status flat_keys(const pt_tensor *self, bool sort, pt_tensor **flat, pt_sort_scratch *s)
{
    PT_TRY(pt_tensor_contiguous(self, flat));
    pt_status st = pt_sort_scratch_init(s, self->numel);
    if (st != PT_OK) {
        pt_tensor_release(*flat);
        return st;
    }
    int64_t isz = pt_dtype_itemsize(self->dtype);
    pt_sort_encode(self->dtype, pt_tensor_data(*flat), isz, self->numel, 0, s->key);
    for (int64_t i = 0; i < self->numel; i++) s->idx[i] = i;
    if (sort) pt_sort_keys(s, self->numel, pt_sort_key_width(self->dtype));
    return PT_OK;
}

static pt_status unique_flat_op(const char *op, const pt_tensor *self, bool sort, bool inverse,
                                bool counts, unique_out *u)
{
    PT_TRY(check_unique(op, self));
    pt_tensor *flat;
    pt_sort_scratch s;
    PT_TRY(flat_keys(self, sort, &flat, &s));
    /* the contiguous copy keeps self's shape, which the inverse takes */
    pt_status st = unique_flat(flat, s.key, s.idx, inverse, counts, u);
    pt_sort_scratch_free(&s);
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
static pt_status slice_keys(const pt_tensor *self, int32_t dim, slices *sl, pt_sort_scratch *s)
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
    sl->nan_key = pt_sort_key_mask(pt_sort_key_width(self->dtype));
    sl->len = sl->count ? self->numel / sl->count : 0;
    st = pt_sort_scratch_init(s, self->numel > sl->count ? self->numel : sl->count);
    if (st != PT_OK) {
        pt_tensor_release(sl->moved);
        return st;
    }
    int64_t isz = pt_dtype_itemsize(self->dtype);
    pt_sort_encode(self->dtype, pt_tensor_data(sl->moved), isz, self->numel, 0, s->key);
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
    pt_sort_scratch s;
    PT_TRY(slice_keys(self, d, &sl, &s));
    if (sort) merge_sort(s.idx, s.idx2, sl.count, s.key, sl.len);
    pt_status st = gather_slices(self, &sl, s.key, s.idx, u);
    if (st != PT_OK) unique_release(u);
    pt_sort_scratch_free(&s);
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
