/* embedding_bag.c - _embedding_bag / _embedding_bag_forward_only (each bag of indices reduced to
 * one row: the sum, optionally weighted per sample, the mean or the per-column maximum of its
 * weight rows), _embedding_bag_backward, _embedding_bag_dense_backward and
 * _embedding_bag_per_sample_weights_backward.
 *
 * Bags: with offsets o[0..m), bag b covers indices [o[b], o[b+1]) and the last one runs to the
 * end of the indices; include_last_offset makes o[m-1] the end of bag m-2 instead (m-1 bags).
 * Every offset and index is checked before anything is read: a bad one is an error with torch's
 * text, never a read outside the table. padding_idx (>= 0) rows are left out of sums, means, maxima
 * and bag sizes, and get no gradient.
 *
 * The results besides the output are torch's: offset2bag (the bag of each index: the number of
 * offsets at or before it, less one), bag_size (rows counted per bag in mean and max mode, zeros
 * in sum mode) and max_indices ([B, D] rows of the maxima in max mode, bag_size again in mean
 * mode, zeros in sum mode). torch's float32 sum path returns an empty offset2bag; here it is
 * always filled, and _embedding_bag_backward rebuilds it from the offsets when it is empty.
 *
 * Threads: the forward splits bags (a grain of PT_GRAIN multiply-adds), the dense backward splits
 * the rows of the weight gradient, each thread scanning the indices for its own rows (no two
 * threads write one row: no atomics, and sums in index order whatever the threads). float16 and
 * bfloat16 weights are reduced in float32 and rounded once.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "nn/embedding_bag.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(nn_bag, pt_bag_table, "embedding_bag's forward and backward row loops (float32, "
            "float64)")

static const pt_bag_table *table(void) { return PT_CPU_KERNELS(nn_bag, pt_bag_table); }

static void drop(pt_tensor *t)
{
    if (t) pt_tensor_release(t);
}

/* ---------------------------------------------------------------- checks */

static pt_status check_index_dtype(const pt_tensor *t, const char *name)
{
    if (t->dtype == PT_INT64 || t->dtype == PT_INT32) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Expected tensor for argument #1 '%s' to have one of the "
                    "following scalar types: Long, Int; but got torch.%sTensor instead (while "
                    "checking arguments for embedding_bag)", name, pt_iter_type_name(t->dtype));
}

static bool reduced_float(int32_t dt) { return dt == PT_FLOAT16 || dt == PT_BFLOAT16; }

static pt_status check_float_dtype(const pt_tensor *t, const char *name)
{
    if (t->dtype == PT_FLOAT32 || t->dtype == PT_FLOAT64 || reduced_float(t->dtype)) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Expected tensor for argument #1 '%s' to have one of the "
                    "following scalar types: Half, BFloat16, Float, Double; but got torch.%sTensor "
                    "instead (while checking arguments for embedding_bag)", name,
                    pt_iter_type_name(t->dtype));
}

static pt_status check_mode(int64_t mode)
{
    if (mode == PT_BAG_SUM || mode == PT_BAG_MEAN || mode == PT_BAG_MAX) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "`mode` must be sum, mean, or max.");
}

/* A contiguous int64 copy of a 1-d index tensor (malloc'ed; one spare slot). */
static pt_status int64_array(const pt_tensor *t, int64_t **out)
{
    *out = NULL;
    pt_tensor *c = NULL, *cc = NULL;
    PT_TRY(pt_tensor_to(t, PT_INT64, t->device, 0, &c));
    const pt_status st = pt_tensor_contiguous(c, &cc);
    pt_tensor_release(c);
    if (st != PT_OK) return st;
    int64_t *a = malloc(sizeof(int64_t) * ((size_t)t->numel + 1));
    if (!a) {
        pt_tensor_release(cc);
        return PT_ERROR(PT_ERR_MEMORY, "embedding_bag: out of memory");
    }
    if (t->numel) memcpy(a, pt_tensor_data(cc), sizeof(int64_t) * (size_t)t->numel);
    pt_tensor_release(cc);
    *out = a;
    return PT_OK;
}

static pt_status check_rows(const int64_t *idx, int64_t n, int64_t num_weights)
{
    for (int64_t i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= num_weights)
            return PT_ERROR(PT_ERR_RUNTIME, "Index %lld of input takes value %lld which is not in "
                            "the valid range [0, %lld)", (long long)i, (long long)idx[i],
                            (long long)num_weights);
    return PT_OK;
}

/* The bag count of m offsets. */
static int64_t bag_count(int64_t m, int32_t include_last_offset)
{
    return include_last_offset ? (m > 0 ? m - 1 : 0) : m;
}

/* start/end of each bag (one malloc'ed block of 2 * B), the offsets checked as torch does and
 * also for order (torch reads past a decreasing pair). */
static pt_status make_bags(const int64_t *off, int64_t m, int64_t n, int32_t include_last_offset,
                           int64_t **out)
{
    *out = NULL;
    const int64_t B = bag_count(m, include_last_offset);
    if (m > 0 && off[0] != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "offsets[0] has to be 0, i.e., the first sequence in the "
                        "mini-batch has to start from position 0. However, got %lld",
                        (long long)off[0]);
    if (m > 0 && off[m - 1] > n)
        return PT_ERROR(PT_ERR_RUNTIME, "offsets[-1] can not be greater than input's length %lld "
                        "but got offsets[-1] of %lld", (long long)n, (long long)off[m - 1]);
    for (int64_t b = 1; b < m; b++)
        if (off[b] < off[b - 1])
            return PT_ERROR(PT_ERR_RUNTIME, "embedding_bag: offsets have to be non-decreasing, but "
                            "got offsets[%lld] = %lld after offsets[%lld] = %lld", (long long)b,
                            (long long)off[b], (long long)(b - 1), (long long)off[b - 1]);
    int64_t *se = malloc(sizeof(int64_t) * (2 * (size_t)B + 1));
    if (!se) return PT_ERROR(PT_ERR_MEMORY, "embedding_bag: out of memory");
    for (int64_t b = 0; b < B; b++) {
        se[b] = off[b];
        se[B + b] = b + 1 < m ? off[b + 1] : n;
    }
    *out = se;
    return PT_OK;
}

/* torch's offset2bag: for each index, the number of offsets (below n) at or before it, less one. */
static void fill_offset2bag(const int64_t *off, int64_t m, int64_t n, int64_t *o2b)
{
    memset(o2b, 0, sizeof(int64_t) * (size_t)n);
    for (int64_t b = 0; b < m; b++)
        if (off[b] < n) o2b[off[b]]++;
    int64_t run = -1;
    for (int64_t i = 0; i < n; i++) o2b[i] = run += o2b[i];
}

/* weight as the loops read it: float32/float64 with unit stride along dim 1 (a new reference). */
static pt_status loop_weight(const pt_tensor *weight, pt_tensor **out)
{
    const int32_t cdt = weight->dtype == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32;
    if (weight->dtype == cdt && (weight->strides[1] == 1 || weight->sizes[1] <= 1) &&
        weight->strides[0] >= 0) {
        pt_tensor_retain((pt_tensor *)weight);
        *out = (pt_tensor *)weight;
        return PT_OK;
    }
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_to(weight, cdt, weight->device, 0, &c));
    const pt_status st = pt_tensor_contiguous(c, out);
    pt_tensor_release(c);
    return st;
}

/* A contiguous copy of t in dtype (a new reference). */
static pt_status dense_as(const pt_tensor *t, int32_t dtype, pt_tensor **out)
{
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_to(t, dtype, t->device, 0, &c));
    const pt_status st = pt_tensor_contiguous(c, out);
    pt_tensor_release(c);
    return st;
}

static pt_status zeros(int32_t ndim, const int64_t *sizes, int32_t dtype, pt_device dev,
                       pt_tensor **out)
{
    PT_TRY(pt_tensor_empty(ndim, sizes, dtype, dev, out));
    if (dev.type != PT_DEV_META && (*out)->numel)
        memset(pt_tensor_data(*out), 0, (size_t)(*out)->numel * (size_t)pt_dtype_itemsize(dtype));
    return PT_OK;
}

/* ---------------------------------------------------------------- forward */

typedef struct fwd_job {
    pt_bag_args a;
    pt_bag_fn fn;
} fwd_job;

static void forward_chunk(int64_t begin, int64_t end, void *ctx)
{
    const fwd_job *j = ctx;
    j->fn(&j->a, begin, end);
}

static pt_status check_forward(const pt_tensor *weight, const pt_tensor *indices,
                               const pt_tensor *offsets, int64_t mode,
                               const pt_tensor *per_sample_weights)
{
    PT_TRY(check_index_dtype(indices, "indices"));
    PT_TRY(check_index_dtype(offsets, "offsets"));
    PT_TRY(check_float_dtype(weight, "weight"));
    if (weight->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "weight has to be a 2D Tensor, but got Tensor of "
                        "dimension %d", (int)weight->ndim);
    if (indices->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "input has to be a 1D Tensor, but got Tensor of "
                        "dimension %d", (int)indices->ndim);
    if (offsets->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "offsets has to be a 1D Tensor, but got Tensor of "
                        "dimension %d", (int)offsets->ndim);
    PT_TRY(check_mode(mode));
    if (!per_sample_weights) return PT_OK;
    if (mode != PT_BAG_SUM)
        return PT_ERROR(PT_ERR_RUNTIME, "embedding_bag: per_sample_weights only supported with "
                        "mode='sum'");
    if (per_sample_weights->dtype != weight->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected tensor for argument #1 'weight' to have the same "
                        "type as tensor for argument #1 'per_sample_weights'; but type "
                        "torch.%sTensor does not equal torch.%sTensor (while checking arguments "
                        "for embedding_bag)", pt_iter_type_name(weight->dtype),
                        pt_iter_type_name(per_sample_weights->dtype));
    if (per_sample_weights->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected per_sample_weights.value().dim() == 1 to be "
                        "true, but got false.  (Could this error message be improved?  If so, "
                        "please report an enhancement request to PyTorch.)");
    if (per_sample_weights->numel != indices->numel)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected per_sample_weights.value().numel() == "
                        "indices.numel() to be true, but got false.  (Could this error message be "
                        "improved?  If so, please report an enhancement request to PyTorch.)");
    return PT_OK;
}

static pt_status bag_forward(const pt_tensor *weight, const pt_tensor *indices,
                             const pt_tensor *offsets, int64_t mode,
                             const pt_tensor *per_sample_weights, int32_t include_last_offset,
                             int64_t padding_idx, pt_tensor **ret0, pt_tensor **ret1,
                             pt_tensor **ret2, pt_tensor **ret3)
{
    PT_TRY(check_forward(weight, indices, offsets, mode, per_sample_weights));
    const int64_t n = indices->numel, D = weight->sizes[1];
    const int64_t B = bag_count(offsets->numel, include_last_offset);
    const pt_device dev = weight->device;
    const int64_t osz[2] = {B, D};
    pt_tensor *out = NULL, *o2b = NULL, *bsz = NULL, *mxi = NULL, *w = NULL, *psw = NULL;
    int64_t *idx = NULL, *off = NULL, *bags = NULL;
    pt_status st;
    if ((st = zeros(2, osz, weight->dtype, dev, &out)) ||
        (st = pt_tensor_empty(1, &n, PT_INT64, dev, &o2b)) ||
        (st = zeros(1, &B, PT_INT64, dev, &bsz)) ||
        (st = zeros(mode == PT_BAG_MAX ? 2 : 1, osz, PT_INT64, dev, &mxi)))
        goto fail;
    if (dev.type == PT_DEV_META) goto done;
    if ((st = int64_array(indices, &idx)) || (st = int64_array(offsets, &off)) ||
        (st = make_bags(off, offsets->numel, n, include_last_offset, &bags)))
        goto fail;
    /* the bags cover [0, end of the last bag): indices past it (include_last_offset) go unread */
    if ((st = check_rows(idx, B ? bags[2 * B - 1] : 0, weight->sizes[0]))) goto fail;
    fill_offset2bag(off, offsets->numel, n, pt_tensor_data(o2b));
    if (B && D) {
        if ((st = loop_weight(weight, &w))) goto fail;
        if (per_sample_weights && (st = dense_as(per_sample_weights, w->dtype, &psw))) goto fail;
        const bool f64 = w->dtype == PT_FLOAT64;
        pt_tensor *acc = out;
        if (w->dtype != weight->dtype && (st = zeros(2, osz, w->dtype, dev, &acc))) goto fail;
        fwd_job j = {{pt_tensor_data(w), w->strides[0], D, weight->sizes[0], idx, bags, bags + B,
                      psw ? pt_tensor_data(psw) : NULL, padding_idx, (int32_t)mode,
                      pt_tensor_data(acc), pt_tensor_data(bsz),
                      mode == PT_BAG_MAX ? pt_tensor_data(mxi) : NULL},
                     table()->forward[f64]};
        const int64_t per_bag = (n / (B ? B : 1) + 1) * D;
        pt_parallel_for(B, PT_GRAIN / per_bag + 1, forward_chunk, &j);
        if (acc != out) {
            pt_tensor *r = NULL;
            st = pt_tensor_to(acc, weight->dtype, dev, 0, &r);
            pt_tensor_release(acc);
            if (st) goto fail;
            pt_tensor_release(out);
            out = r;
        }
    } else if (B && mode != PT_BAG_SUM) {
        /* D == 0: the bag sizes still count */
        int64_t *bs = pt_tensor_data(bsz);
        for (int64_t b = 0; b < B; b++)
            for (int64_t i = bags[b]; i < bags[B + b]; i++) bs[b] += idx[i] != padding_idx;
    }
    if (mode == PT_BAG_MEAN && B)
        memcpy(pt_tensor_data(mxi), pt_tensor_data(bsz), sizeof(int64_t) * (size_t)B);
done:
    free(idx);
    free(off);
    free(bags);
    drop(w);
    drop(psw);
    *ret0 = out;
    *ret1 = o2b;
    *ret2 = bsz;
    *ret3 = mxi;
    return PT_OK;
fail:
    free(idx);
    free(off);
    free(bags);
    drop(w);
    drop(psw);
    drop(out);
    drop(o2b);
    drop(bsz);
    drop(mxi);
    return st;
}

pt_status pt_kernel__embedding_bag(const pt_tensor *weight, const pt_tensor *indices,
                                   const pt_tensor *offsets, int32_t scale_grad_by_freq,
                                   int64_t mode, int32_t sparse,
                                   const pt_tensor *per_sample_weights,
                                   int32_t include_last_offset, int64_t padding_idx,
                                   pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2,
                                   pt_tensor **ret3)
{
    (void)scale_grad_by_freq;
    (void)sparse;
    return bag_forward(weight, indices, offsets, mode, per_sample_weights, include_last_offset,
                       padding_idx, ret0, ret1, ret2, ret3);
}

pt_status pt_kernel__embedding_bag_forward_only(const pt_tensor *weight, const pt_tensor *indices,
                                                const pt_tensor *offsets,
                                                int32_t scale_grad_by_freq, int64_t mode,
                                                int32_t sparse,
                                                const pt_tensor *per_sample_weights,
                                                int32_t include_last_offset, int64_t padding_idx,
                                                pt_tensor **ret0, pt_tensor **ret1,
                                                pt_tensor **ret2, pt_tensor **ret3)
{
    (void)scale_grad_by_freq;
    (void)sparse;
    return bag_forward(weight, indices, offsets, mode, per_sample_weights, include_last_offset,
                       padding_idx, ret0, ret1, ret2, ret3);
}

/* ---------------------------------------------------------------- backward */

typedef struct grad_job {
    pt_bag_grad_args a;
    pt_bag_grad_fn fn;
} grad_job;

static void grad_chunk(int64_t begin, int64_t end, void *ctx)
{
    const grad_job *j = ctx;
    j->fn(&j->a, begin, end);
}

static pt_status check_backward_args(const pt_tensor *grad, const pt_tensor *indices,
                                     const pt_tensor *offset2bag, int64_t mode,
                                     const pt_tensor *per_sample_weights, const char *op)
{
    PT_TRY(check_index_dtype(indices, "indices"));
    PT_TRY(check_mode(mode));
    if (!pt_is_floating(grad->dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", op,
                        pt_iter_type_name(grad->dtype));
    if (grad->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: grad has to be a 2D Tensor, but got Tensor of "
                        "dimension %d", op, (int)grad->ndim);
    if (indices->ndim != 1 || offset2bag->numel != indices->numel)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: indices and offset2bag have to be 1D Tensors of one "
                        "length", op);
    if (per_sample_weights && mode != PT_BAG_SUM)
        return PT_ERROR(PT_ERR_RUNTIME, "embedding_bag_backward: per_sample_weights only supported "
                        "for mode='sum'");
    if (per_sample_weights && per_sample_weights->numel != indices->numel)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: per_sample_weights must have one value per index",
                        op);
    return PT_OK;
}

pt_status pt_kernel__embedding_bag_dense_backward(const pt_tensor *grad, const pt_tensor *indices,
                                                  const pt_tensor *offset2bag,
                                                  const pt_tensor *bag_size,
                                                  const pt_tensor *maximum_indices,
                                                  int64_t num_weights, int32_t scale_grad_by_freq,
                                                  int64_t mode,
                                                  const pt_tensor *per_sample_weights,
                                                  int64_t padding_idx, pt_tensor **ret)
{
    static const char op[] = "_embedding_bag_dense_backward";
    PT_TRY(check_backward_args(grad, indices, offset2bag, mode, per_sample_weights, op));
    const int64_t B = grad->sizes[0], D = grad->sizes[1], n = indices->numel;
    if (num_weights < 0) return PT_ERROR(PT_ERR_RUNTIME, "%s: num_weights is negative", op);
    if (mode != PT_BAG_SUM && bag_size->numel != B)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: bag_size has to hold one size per bag", op);
    if (mode == PT_BAG_MAX && maximum_indices->numel != B * D)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: maximum_indices has to be [bags, embedding_dim]", op);
    const int32_t dt = grad->dtype, cdt = dt == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32;
    const int64_t wsz[2] = {num_weights, D};
    if (grad->device.type == PT_DEV_META) return pt_tensor_empty(2, wsz, dt, grad->device, ret);
    pt_tensor *gw = NULL, *g = NULL, *psw = NULL;
    int64_t *idx = NULL, *o2b = NULL, *bs = NULL, *mx = NULL;
    double *freq = NULL;
    pt_status st;
    if ((st = zeros(2, wsz, cdt, grad->device, &gw))) return st;
    if ((st = int64_array(indices, &idx)) || (st = check_rows(idx, n, num_weights)) ||
        (st = int64_array(offset2bag, &o2b)))
        goto fail;
    if (mode != PT_BAG_SUM && (st = int64_array(bag_size, &bs))) goto fail;
    if (mode == PT_BAG_MAX) {
        pt_tensor *flat = NULL;
        const int64_t all = maximum_indices->numel;
        if ((st = pt_tensor_reshape(maximum_indices, 1, &all, &flat))) goto fail;
        st = int64_array(flat, &mx);
        pt_tensor_release(flat);
        if (st) goto fail;
        for (int64_t b = 0; b < B; b++)
            if (bs[b] > 0 && (st = check_rows(mx + b * D, D, num_weights))) goto fail;
    }
    if ((st = dense_as(grad, cdt, &g))) goto fail;
    if (per_sample_weights && (st = dense_as(per_sample_weights, cdt, &psw))) goto fail;
    if (scale_grad_by_freq && mode != PT_BAG_MAX) {
        if (!(freq = calloc((size_t)num_weights + 1, sizeof(double)))) {
            st = PT_ERROR(PT_ERR_MEMORY, "embedding_bag: out of memory");
            goto fail;
        }
        for (int64_t i = 0; i < n; i++) freq[idx[i]] += 1.0;
        for (int64_t r = 0; r < num_weights; r++) freq[r] = freq[r] ? 1.0 / freq[r] : 0.0;
    }
    if (num_weights && D && B) {
        grad_job j = {{pt_tensor_data(g), B, D, n, idx, o2b, bs, mx,
                       psw ? pt_tensor_data(psw) : NULL, freq, padding_idx, (int32_t)mode,
                       pt_tensor_data(gw), NULL, 0, NULL},
                      table()->dense_backward[cdt == PT_FLOAT64]};
        const int64_t work = (mode == PT_BAG_MAX ? B : n) * D;
        pt_parallel_for(num_weights, work >= 2 * PT_GRAIN ? 1 : num_weights, grad_chunk, &j);
    }
    free(idx);
    free(o2b);
    free(bs);
    free(mx);
    free(freq);
    drop(g);
    drop(psw);
    if (dt == cdt) {
        *ret = gw;
        return PT_OK;
    }
    st = pt_tensor_to(gw, dt, gw->device, 0, ret);
    pt_tensor_release(gw);
    return st;
fail:
    free(idx);
    free(o2b);
    free(bs);
    free(mx);
    free(freq);
    drop(g);
    drop(psw);
    drop(gw);
    return st;
}

pt_status pt_kernel__embedding_bag_backward(const pt_tensor *grad, const pt_tensor *indices,
                                            const pt_tensor *offsets, const pt_tensor *offset2bag,
                                            const pt_tensor *bag_size,
                                            const pt_tensor *maximum_indices, int64_t num_weights,
                                            int32_t scale_grad_by_freq, int64_t mode,
                                            int32_t sparse, const pt_tensor *per_sample_weights,
                                            int64_t padding_idx, pt_tensor **ret)
{
    if (sparse)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "embedding_bag: sparse=True makes a sparse "
                        "gradient, and pytensor has no sparse layout; use sparse=False");
    PT_TRY(check_index_dtype(indices, "indices"));
    PT_TRY(check_index_dtype(offsets, "offsets"));
    if (indices->numel == 0 || offset2bag->numel != 0 || indices->ndim != 1 ||
        offsets->ndim != 1 || grad->device.type == PT_DEV_META) {
        pt_tensor *r = pt_call__embedding_bag_dense_backward(grad, indices, offset2bag, bag_size,
                                                             maximum_indices, num_weights,
                                                             scale_grad_by_freq, mode,
                                                             per_sample_weights, padding_idx);
        if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        *ret = r;
        return PT_OK;
    }
    /* an empty offset2bag (torch's float32 sum path): rebuilt from the offsets */
    int64_t *off = NULL;
    pt_tensor *o2b = NULL;
    const int64_t n = indices->numel;
    PT_TRY(int64_array(offsets, &off));
    pt_status st = pt_tensor_empty(1, &n, PT_INT64, indices->device, &o2b);
    if (st == PT_OK) {
        fill_offset2bag(off, offsets->numel, n, pt_tensor_data(o2b));
        pt_tensor *r = pt_call__embedding_bag_dense_backward(grad, indices, o2b, bag_size,
                                                             maximum_indices, num_weights,
                                                             scale_grad_by_freq, mode,
                                                             per_sample_weights, padding_idx);
        if (r) *ret = r;
        else st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    }
    free(off);
    drop(o2b);
    return st;
}

pt_status pt_kernel__embedding_bag_per_sample_weights_backward(const pt_tensor *grad,
                                                               const pt_tensor *weight,
                                                               const pt_tensor *indices,
                                                               const pt_tensor *offsets,
                                                               const pt_tensor *offset2bag,
                                                               int64_t mode, int64_t padding_idx,
                                                               pt_tensor **ret)
{
    static const char op[] = "_embedding_bag_per_sample_weights_backward";
    if (mode != PT_BAG_SUM)
        return PT_ERROR(PT_ERR_RUNTIME, "embedding_bag_backward: per_sample_weights only supported "
                        "for mode='sum'");
    PT_TRY(check_backward_args(grad, indices, offset2bag, mode, NULL, op));
    PT_TRY(check_index_dtype(offsets, "offsets"));
    PT_TRY(check_float_dtype(weight, "weight"));
    if (weight->ndim != 2 || weight->sizes[1] != grad->sizes[1])
        return PT_ERROR(PT_ERR_RUNTIME, "%s: weight has to be 2D with grad's embedding dim", op);
    const int64_t n = indices->numel, B = grad->sizes[0], D = grad->sizes[1];
    const int32_t dt = grad->dtype, cdt = dt == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32;
    if (grad->device.type == PT_DEV_META) return pt_tensor_empty(1, &n, dt, grad->device, ret);
    pt_tensor *r = NULL, *g = NULL, *w = NULL;
    int64_t *idx = NULL, *o2b = NULL;
    pt_status st;
    if ((st = zeros(1, &n, cdt, grad->device, &r))) return st;
    if ((st = int64_array(indices, &idx)) || (st = check_rows(idx, n, weight->sizes[0])) ||
        (st = int64_array(offset2bag, &o2b)) || (st = dense_as(grad, cdt, &g)))
        goto fail;
    if (D && n) {
        if (w == NULL && (st = dense_as(weight, cdt, &w))) goto fail;
        grad_job j = {{pt_tensor_data(g), B, D, n, idx, o2b, NULL, NULL, NULL, NULL, padding_idx,
                       PT_BAG_SUM, NULL, pt_tensor_data(w), D, pt_tensor_data(r)},
                      table()->psw_backward[cdt == PT_FLOAT64]};
        pt_parallel_for(n, PT_GRAIN / (D + 1) + 1, grad_chunk, &j);
    }
    free(idx);
    free(o2b);
    drop(g);
    drop(w);
    if (dt == cdt) {
        *ret = r;
        return PT_OK;
    }
    st = pt_tensor_to(r, dt, r->device, 0, ret);
    pt_tensor_release(r);
    return st;
fail:
    free(idx);
    free(o2b);
    drop(g);
    drop(w);
    drop(r);
    return st;
}
