/* embedding.c - embedding (rows of a weight gathered by index), its dense backward (rows of the
 * gradient added back at their index), embedding_renorm_ (rows looked up scaled in place to a
 * maximum norm) and one_hot.
 *
 * Indices are int64 or int32, of any shape, and are checked against the table before anything is
 * written: an index out of range is an IndexError ("index out of range in self", torch's text), not
 * a read outside the table. embedding copies whole rows (any dtype) and splits the indices across
 * threads above a grain of PT_GRAIN elements. The backward sums in the gradient's type for float32
 * and float64 (float16 / bfloat16 through float32); it splits the destination rows across threads,
 * each thread scanning the indices for its own rows, so the sum at every row is added in index
 * order whatever the threads: results do not depend on scheduling.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "pt_ops_internal.h"

/* ---------------------------------------------------------------- indices */

static pt_status check_indices(const pt_tensor *indices, const char *op)
{
    if (indices->dtype == PT_INT64 || indices->dtype == PT_INT32) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Expected tensor for argument #1 'indices' to have one of the "
                    "following scalar types: Long, Int; but got torch.%sTensor instead (while "
                    "checking arguments for %s)", pt_iter_type_name(indices->dtype), op);
}

/* The indices as a contiguous int64 array (malloc'ed), each checked to lie in [0, n) when n >= 0. */
static pt_status read_indices(const pt_tensor *indices, int64_t n, int64_t **out)
{
    *out = NULL;
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_to(indices, PT_INT64, indices->device, 0, &c));
    pt_tensor *cc = NULL;
    const pt_status st = pt_tensor_contiguous(c, &cc);
    pt_tensor_release(c);
    if (st != PT_OK) return st;
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)indices->numel + 1);
    if (!idx) {
        pt_tensor_release(cc);
        return PT_ERROR(PT_ERR_MEMORY, "embedding: out of memory");
    }
    if (indices->numel) memcpy(idx, pt_tensor_data(cc), sizeof(int64_t) * (size_t)indices->numel);
    pt_tensor_release(cc);
    for (int64_t i = 0; i < indices->numel && n >= 0; i++)
        if (idx[i] < 0 || idx[i] >= n) {
            free(idx);
            return PT_ERROR(PT_ERR_INDEX, "index out of range in self");
        }
    *out = idx;
    return PT_OK;
}

/* ---------------------------------------------------------------- embedding */

typedef struct gather_job {
    const int64_t *idx;
    const char *w;
    char *out;
    size_t row_bytes;
} gather_job;

static void gather_rows(int64_t begin, int64_t end, void *arg)
{
    const gather_job *j = arg;
    for (int64_t i = begin; i < end; i++)
        memcpy(j->out + (size_t)i * j->row_bytes, j->w + (size_t)j->idx[i] * j->row_bytes,
               j->row_bytes);
}

pt_status pt_kernel_embedding(const pt_tensor *weight, const pt_tensor *indices,
                              int64_t padding_idx, int32_t scale_grad_by_freq, int32_t sparse,
                              pt_tensor **ret)
{
    (void)padding_idx;
    (void)scale_grad_by_freq;
    (void)sparse;
    if (weight->ndim != 2) return PT_ERROR(PT_ERR_RUNTIME, "'weight' must be 2-D");
    PT_TRY(check_indices(indices, "embedding"));
    if (indices->ndim + 1 > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "embedding: indices have too many dims");
    int64_t sizes[PT_MAX_DIMS];
    memcpy(sizes, indices->sizes, sizeof(int64_t) * (size_t)indices->ndim);
    const int64_t D = weight->sizes[1];
    sizes[indices->ndim] = D;
    pt_tensor *r = NULL;
    PT_TRY(pt_tensor_empty(indices->ndim + 1, sizes, weight->dtype, weight->device, &r));
    if (weight->device.type == PT_DEV_META || indices->numel == 0) {
        *ret = r;
        return PT_OK;
    }
    int64_t *idx = NULL;
    pt_tensor *w = NULL;
    pt_status st;
    if ((st = read_indices(indices, weight->sizes[0], &idx)) ||
        (st = pt_tensor_contiguous(weight, &w))) {
        free(idx);
        pt_tensor_release(r);
        return st;
    }
    const size_t row_bytes = (size_t)D * (size_t)pt_dtype_itemsize(weight->dtype);
    gather_job j = {idx, pt_tensor_data(w), pt_tensor_data(r), row_bytes};
    if (row_bytes)
        pt_parallel_for(indices->numel, (int64_t)(PT_GRAIN / (row_bytes / 4 + 1)) + 1, gather_rows,
                        &j);
    free(idx);
    pt_tensor_release(w);
    *ret = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- embedding_dense_backward */

typedef struct scatter_job {
    const int64_t *idx;
    int64_t n, D, rows, padding_idx;
    const void *grad;
    void *out;
    const double *scale; /* per destination row, or NULL */
    int32_t f64;
} scatter_job;

#define SCATTER(SUF, T)                                                                            \
    static void scatter_##SUF(int64_t begin, int64_t end, void *arg)                               \
    {                                                                                              \
        const scatter_job *j = arg;                                                                \
        const T *g = j->grad;                                                                      \
        T *o = j->out;                                                                             \
        for (int64_t i = 0; i < j->n; i++) {                                                       \
            const int64_t r = j->idx[i];                                                           \
            if (r < begin || r >= end || r == j->padding_idx) continue;                            \
            T *dst = o + r * j->D;                                                                 \
            const T *src = g + i * j->D;                                                           \
            if (j->scale) {                                                                        \
                const T s = (T)j->scale[r];                                                        \
                PT_IVDEP for (int64_t k = 0; k < j->D; k++) dst[k] += src[k] * s;                  \
            } else {                                                                               \
                PT_IVDEP for (int64_t k = 0; k < j->D; k++) dst[k] += src[k];                      \
            }                                                                                      \
        }                                                                                          \
    }

SCATTER(f32, float)
SCATTER(f64, double)

pt_status pt_kernel_embedding_dense_backward(const pt_tensor *grad_output, const pt_tensor *indices,
                                             int64_t num_weights, int64_t padding_idx,
                                             int32_t scale_grad_by_freq, pt_tensor **ret)
{
    PT_TRY(check_indices(indices, "embedding_backward"));
    if (!pt_is_floating(grad_output->dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"embedding_dense_backward\" not implemented for "
                        "'%s'", pt_iter_type_name(grad_output->dtype));
    const int64_t D = grad_output->ndim ? grad_output->sizes[grad_output->ndim - 1] : 1;
    if (num_weights < 0 || grad_output->numel != indices->numel * D)
        return PT_ERROR(PT_ERR_RUNTIME, "embedding_dense_backward: grad_output must have the "
                        "indices' shape followed by the embedding dim");
    const int64_t osz[2] = {num_weights, D};
    const int32_t dt = grad_output->dtype, cdt = dt == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32;
    pt_tensor *r = NULL, *g = NULL;
    PT_TRY(pt_tensor_empty(2, osz, grad_output->device.type == PT_DEV_META ? dt : cdt,
                           grad_output->device, &r));
    if (grad_output->device.type == PT_DEV_META) {
        *ret = r;
        return PT_OK;
    }
    if (r->numel) memset(pt_tensor_data(r), 0, (size_t)r->numel * (size_t)pt_dtype_itemsize(cdt));
    int64_t *idx = NULL;
    double *scale = NULL;
    pt_status st;
    if ((st = read_indices(indices, num_weights, &idx))) goto fail;
    if ((st = pt_tensor_to(grad_output, cdt, grad_output->device, 0, &g))) goto fail;
    pt_tensor *gc = NULL;
    st = pt_tensor_contiguous(g, &gc);
    pt_tensor_release(g);
    g = gc;
    if (st) goto fail;
    if (scale_grad_by_freq) {
        if (!(scale = calloc((size_t)num_weights + 1, sizeof(double)))) {
            st = PT_ERROR(PT_ERR_MEMORY, "embedding_dense_backward: out of memory");
            goto fail;
        }
        for (int64_t i = 0; i < indices->numel; i++) scale[idx[i]] += 1.0;
        for (int64_t w = 0; w < num_weights; w++) scale[w] = scale[w] ? 1.0 / scale[w] : 0.0;
    }
    scatter_job j = {idx, indices->numel, D, num_weights, padding_idx, pt_tensor_data(g),
                     pt_tensor_data(r), scale, cdt == PT_FLOAT64};
    const int64_t work = indices->numel * D;
    if (num_weights && D)
        pt_parallel_for(num_weights, work >= 2 * PT_GRAIN ? 1 : num_weights,
                        cdt == PT_FLOAT64 ? scatter_f64 : scatter_f32, &j);
    free(idx);
    free(scale);
    pt_tensor_release(g);
    if (dt == cdt) {
        *ret = r;
        return PT_OK;
    }
    st = pt_tensor_to(r, dt, r->device, 0, ret);
    pt_tensor_release(r);
    return st;
fail:
    free(idx);
    free(scale);
    if (g) pt_tensor_release(g);
    pt_tensor_release(r);
    return st;
}

/* ---------------------------------------------------------------- embedding_renorm_ */

#define RENORM(SUF, T)                                                                             \
    static void renorm_row_##SUF(char *row, int64_t stride, int64_t D, double max_norm, double p)  \
    {                                                                                              \
        double s = 0;                                                                              \
        for (int64_t k = 0; k < D; k++) {                                                          \
            const double a = fabs((double)*(T *)(row + k * stride));                               \
            s += p == 1.0 ? a : p == 2.0 ? a * a : isinf(p) ? (a > s ? a - s : 0.0) : pow(a, p);  \
        }                                                                                          \
        const double norm = p == 1.0 || isinf(p) ? s : p == 2.0 ? sqrt(s) : pow(s, 1.0 / p);      \
        if (!(norm > max_norm)) return;                                                            \
        const double scale = max_norm / (norm + 1e-7);                                             \
        for (int64_t k = 0; k < D; k++) {                                                          \
            T *e = (T *)(row + k * stride);                                                        \
            *e = (T)((double)*e * scale);                                                          \
        }                                                                                          \
    }

RENORM(f32, float)
RENORM(f64, double)

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

pt_status pt_kernel_embedding_renorm_(pt_tensor *self, const pt_tensor *indices, double max_norm,
                                      double norm_type, pt_tensor **ret)
{
    if (self->ndim != 2) return PT_ERROR(PT_ERR_RUNTIME, "'self' must be 2-D");
    PT_TRY(check_indices(indices, "embedding_renorm_"));
    if (self->dtype != PT_FLOAT32 && self->dtype != PT_FLOAT64)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"embedding_renorm_cpu_\" not implemented for "
                        "'%s'", pt_iter_type_name(self->dtype));
    if (self->device.type != PT_DEV_META && indices->numel) {
        int64_t *idx = NULL;
        PT_TRY(read_indices(indices, self->sizes[0], &idx));
        qsort(idx, (size_t)indices->numel, sizeof(int64_t), cmp_i64);
        const int64_t isz = pt_dtype_itemsize(self->dtype);
        char *base = pt_tensor_data(self);
        for (int64_t i = 0; i < indices->numel; i++) {
            if (i && idx[i] == idx[i - 1]) continue;
            char *row = base + idx[i] * self->strides[0] * isz;
            if (self->dtype == PT_FLOAT32)
                renorm_row_f32(row, self->strides[1] * isz, self->sizes[1], max_norm, norm_type);
            else
                renorm_row_f64(row, self->strides[1] * isz, self->sizes[1], max_norm, norm_type);
        }
        free(idx);
    }
    pt_tensor_retain(self);
    *ret = self;
    return PT_OK;
}

/* ---------------------------------------------------------------- one_hot */

pt_status pt_kernel_one_hot(const pt_tensor *self, int64_t num_classes, pt_tensor **ret)
{
    if (self->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "one_hot is only applicable to index tensor of type "
                        "LongTensor.");
    if (num_classes < -1)
        return PT_ERROR(PT_ERR_RUNTIME, "num_classes should be positive");
    const bool meta = self->device.type == PT_DEV_META;
    if (meta && num_classes == -1)
        return PT_ERROR(PT_ERR_RUNTIME, "one_hot: num_classes must be given for a meta tensor");
    int64_t *idx = NULL;
    if (!meta && self->numel) {
        PT_TRY(read_indices(self, -1, &idx));
        for (int64_t i = 0; i < self->numel; i++)
            if (idx[i] < 0) {
                free(idx);
                return PT_ERROR(PT_ERR_RUNTIME, "Class values must be non-negative.");
            }
    }
    pt_status st = PT_OK;
    if (num_classes == -1) {
        if (self->numel == 0)
            return PT_ERROR(PT_ERR_RUNTIME, "Can not infer total number of classes from empty "
                            "tensor.");
        num_classes = 0;
        for (int64_t i = 0; i < self->numel; i++)
            if (idx[i] + 1 > num_classes) num_classes = idx[i] + 1;
    } else {
        for (int64_t i = 0; i < self->numel && idx; i++)
            if (idx[i] >= num_classes) {
                free(idx);
                return PT_ERROR(PT_ERR_RUNTIME, "Class values must be smaller than num_classes.");
            }
    }
    int64_t sizes[PT_MAX_DIMS];
    if (self->ndim + 1 > PT_MAX_DIMS) {
        free(idx);
        return PT_ERROR(PT_ERR_RUNTIME, "one_hot: too many dims");
    }
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    sizes[self->ndim] = num_classes;
    pt_tensor *r = NULL;
    if ((st = pt_tensor_empty(self->ndim + 1, sizes, PT_INT64, self->device, &r))) {
        free(idx);
        return st;
    }
    if (!meta && r->numel) {
        int64_t *o = pt_tensor_data(r);
        memset(o, 0, sizeof(int64_t) * (size_t)r->numel);
        for (int64_t i = 0; i < self->numel; i++) o[i * num_classes + idx[i]] = 1;
    }
    free(idx);
    *ret = r;
    return PT_OK;
}
