/* norm_layer.c - layer norm: native_layer_norm and native_layer_norm_backward.
 *
 * Each leading index of the input is one row of prod(normalized_shape) elements, normalized with
 * its own mean and rstd, then scaled and shifted by the elementwise weight and bias. Operands
 * become contiguous tensors in the compute dtype (float32, or float64 for float64: float16 and
 * bfloat16 compute in float32 and are rounded once at the end); rows are split across threads
 * above a grain of PT_GRAIN elements. The weight and bias gradients are column sums over the rows:
 * each chunk of rows sums into its own double buffer, and the buffers are added in chunk order,
 * so results do not depend on the threads.
 *
 * With xhat = (x - mean) * rstd and g = dy * weight, dx = rstd * (g - mean(g) - xhat *
 * mean(g * xhat)) over the row, computed as rstd * w * dy + B * x + C with per-row B and C.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "nn/norm.h"
#include "pt_ops_internal.h"

static const pt_norm_table *loops(void) { return pt_norm_loops(); }

static void release_all(pt_tensor **ts, int n)
{
    for (int i = 0; i < n; i++)
        if (ts[i]) {
            pt_tensor_release(ts[i]);
            ts[i] = NULL;
        }
}

/* ================================================================ layer norm */

typedef struct ln_job {
    int64_t M, N;
    double eps;
    const void *x, *w, *b, *dy;
    void *y, *mean, *rstd, *dx;
    double *part; /* backward: per chunk, 2 * N doubles (weight, bias) */
    int64_t chunks;
    bool want_dw, want_db;
    int32_t cdt;
} ln_job;

#define LN_FORWARD(SUF, T)                                                                         \
    static void ln_forward_##SUF(int64_t begin, int64_t end, void *arg)                            \
    {                                                                                              \
        const ln_job *j = arg;                                                                     \
        const __typeof__(loops()->SUF) *L = &loops()->SUF;                                         \
        const T *x = j->x, *w = j->w, *b = j->b;                                                   \
        T *y = j->y, *mean = j->mean, *rstd = j->rstd;                                             \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const T *xr = x + r * j->N;                                                            \
            const double m = L->sum(xr, j->N) / (double)j->N;                                      \
            const double v = L->sqdev(xr, j->N, m) / (double)j->N;                                 \
            const double rs = 1.0 / sqrt(v + j->eps);                                              \
            L->norm_row(y + r * j->N, xr, w, b, j->N, (T)m, (T)rs);                                \
            mean[r] = (T)m;                                                                        \
            rstd[r] = (T)rs;                                                                       \
        }                                                                                          \
    }                                                                                              \
    static void ln_backward_##SUF(int64_t k, void *arg)                                            \
    {                                                                                              \
        const ln_job *j = arg;                                                                     \
        const __typeof__(loops()->SUF) *L = &loops()->SUF;                                         \
        const T *x = j->x, *w = j->w, *dy = j->dy, *mean = j->mean, *rstd = j->rstd;               \
        T *dx = j->dx;                                                                             \
        const int64_t begin = j->M * k / j->chunks, end = j->M * (k + 1) / j->chunks;              \
        double *dg = j->want_dw ? j->part + 2 * j->N * k : NULL;                                   \
        double *db = j->want_db ? j->part + 2 * j->N * k + j->N : NULL;                            \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const T *xr = x + r * j->N, *dyr = dy + r * j->N;                                      \
            const double m = (double)mean[r], rs = (double)rstd[r];                                \
            if (dx) {                                                                              \
                double s[2];                                                                       \
                L->sum_dot(dyr, w, xr, j->N, m, s);                                                \
                const double B = -rs * rs * rs * s[1] / (double)j->N;                              \
                const double C = -rs * s[0] / (double)j->N - B * m;                                \
                L->lin3(dx + r * j->N, dyr, w, xr, j->N, (T)rs, (T)B, (T)C);                       \
            }                                                                                      \
            if (dg || db) L->col_gamma_beta(dg, db, dyr, xr, j->N, m, rs);                         \
        }                                                                                          \
    }

LN_FORWARD(f32, float)
LN_FORWARD(f64, double)

/* M x N rows of input for normalized_shape, or torch's message. */
static pt_status ln_shape(const pt_tensor *input, int32_t nshape, const int64_t *shape,
                          const pt_tensor *weight, const pt_tensor *bias, int64_t *M, int64_t *N)
{
    char a[256], b[256];
    if (nshape < 1) {
        pt_norm_format_sizes(a, sizeof a, nshape, shape);
        return PT_ERROR(PT_ERR_RUNTIME, "Expected normalized_shape to be at least 1-dimensional, "
                        "i.e., containing at least one element, but got normalized_shape = %s", a);
    }
    const pt_tensor *ps[2] = {weight, bias};
    const char *pn[2] = {"weight", "bias"};
    for (int i = 0; i < 2; i++) {
        const pt_tensor *p = ps[i];
        if (!p) continue;
        if (p->ndim != nshape || memcmp(p->sizes, shape, sizeof(int64_t) * (size_t)nshape)) {
            pt_norm_format_sizes(a, sizeof a, p->ndim, p->sizes);
            pt_norm_format_sizes(b, sizeof b, nshape, shape);
            return PT_ERROR(PT_ERR_RUNTIME, "Expected %s to be of same shape as normalized_shape, "
                            "but got %s of shape %s and normalized_shape = %s", pn[i], pn[i], a,
                            b);
        }
    }
    const int32_t axis = input->ndim - nshape;
    if (axis < 0 || memcmp(input->sizes + axis, shape, sizeof(int64_t) * (size_t)nshape)) {
        pt_norm_format_sizes(a, sizeof a, nshape, shape);
        pt_norm_format_sizes(b, sizeof b, input->ndim, input->sizes);
        a[strlen(a) - 1] = '\0';
        return PT_ERROR(PT_ERR_RUNTIME, "Given normalized_shape=%s], expected input with shape "
                        "[*, %s], but got input of size%s", a, a + 1, b);
    }
    *M = 1;
    *N = 1;
    for (int32_t d = 0; d < axis; d++) *M *= input->sizes[d];
    for (int32_t d = axis; d < input->ndim; d++) *N *= input->sizes[d];
    return PT_OK;
}

pt_status pt_kernel_native_layer_norm(const pt_tensor *input, int32_t normalized_shape_len,
                                      const int64_t *normalized_shape, const pt_tensor *weight,
                                      const pt_tensor *bias, double eps, pt_tensor **ret0,
                                      pt_tensor **ret1, pt_tensor **ret2)
{
    int64_t M, N;
    PT_TRY(ln_shape(input, normalized_shape_len, normalized_shape, weight, bias, &M, &N));
    PT_TRY(pt_norm_check_dtype(input, "LayerNormKernelImpl"));
    PT_TRY(pt_norm_check_param(input, weight));
    PT_TRY(pt_norm_check_param(input, bias));
    const int32_t dt = input->dtype, cdt = pt_norm_compute_dtype(dt);
    int64_t ssz[PT_MAX_DIMS];
    const int32_t axis = input->ndim - normalized_shape_len;
    for (int32_t d = 0; d < input->ndim; d++) ssz[d] = d < axis ? input->sizes[d] : 1;
    pt_tensor *t[6] = {NULL}; /* y, mean, rstd, x, w, b */
    pt_status st;
    if (input->device.type == PT_DEV_META) {
        if ((st = pt_tensor_empty(input->ndim, input->sizes, dt, input->device, &t[0])) ||
            (st = pt_tensor_empty(input->ndim, ssz, dt, input->device, &t[1])) ||
            (st = pt_tensor_empty(input->ndim, ssz, dt, input->device, &t[2])))
            goto fail;
        goto done;
    }
    if ((st = pt_norm_contig(input, cdt, &t[3])) || (st = pt_norm_contig(weight, cdt, &t[4])) ||
        (st = pt_norm_contig(bias, cdt, &t[5])) ||
        (st = pt_tensor_empty(input->ndim, input->sizes, cdt, input->device, &t[0])) ||
        (st = pt_tensor_empty(input->ndim, ssz, cdt, input->device, &t[1])) ||
        (st = pt_tensor_empty(input->ndim, ssz, cdt, input->device, &t[2])))
        goto fail;
    if (M > 0) {
        ln_job j = {M, N, eps, pt_tensor_data(t[3]), t[4] ? pt_tensor_data(t[4]) : NULL,
                    t[5] ? pt_tensor_data(t[5]) : NULL, NULL, pt_tensor_data(t[0]),
                    pt_tensor_data(t[1]), pt_tensor_data(t[2]), NULL, NULL, 0, false, false, cdt};
        const int64_t grain = N ? (PT_GRAIN + N - 1) / N : M;
        pt_parallel_for(M, grain, cdt == PT_FLOAT64 ? ln_forward_f64 : ln_forward_f32, &j);
    }
    for (int i = 0; i < 3; i++)
        if ((st = pt_norm_result(t[i], dt, &t[i]))) {
            t[i] = NULL;
            goto fail;
        }
done:
    release_all(t + 3, 3);
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    return PT_OK;
fail:
    release_all(t, 6);
    return st;
}

/* A column-sum result of `count` doubles (chunk buffers summed in order) as a tensor shaped like
 * `like_n` sizes, of dtype dt. */
static pt_status column_result(const double *part, int64_t chunks, int64_t stride, int64_t count,
                               int32_t ndim, const int64_t *sizes, int32_t dt, pt_device dev,
                               pt_tensor **out)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_tensor_empty(ndim, sizes, PT_FLOAT64, dev, &r));
    double *o = pt_tensor_data(r);
    for (int64_t i = 0; i < count; i++) {
        double s = 0;
        for (int64_t k = 0; k < chunks; k++) s += part[k * stride + i];
        o[i] = s;
    }
    return pt_norm_result(r, dt, out);
}

static bool mask_at(int32_t n, const int64_t *mask, int i) { return i < n && mask[i]; }

pt_status pt_kernel_native_layer_norm_backward(const pt_tensor *grad_out, const pt_tensor *input,
                                               int32_t normalized_shape_len,
                                               const int64_t *normalized_shape,
                                               const pt_tensor *mean, const pt_tensor *rstd,
                                               const pt_tensor *weight, const pt_tensor *bias,
                                               int32_t output_mask_len, const int64_t *output_mask,
                                               pt_tensor **ret0, pt_tensor **ret1,
                                               pt_tensor **ret2)
{
    int64_t M, N;
    PT_TRY(ln_shape(input, normalized_shape_len, normalized_shape, weight, bias, &M, &N));
    PT_TRY(pt_norm_check_dtype(input, "LayerNormBackwardKernelImpl"));
    if (grad_out->numel != input->numel || mean->numel != M || rstd->numel != M)
        return PT_ERROR(PT_ERR_RUNTIME, "native_layer_norm_backward: grad_out, mean and rstd do "
                        "not match input's shape");
    const bool want[3] = {mask_at(output_mask_len, output_mask, 0),
                          mask_at(output_mask_len, output_mask, 1),
                          mask_at(output_mask_len, output_mask, 2)};
    const int32_t dt = input->dtype, cdt = pt_norm_compute_dtype(dt);
    const int32_t wdt = weight ? weight->dtype : dt, bdt = bias ? bias->dtype : dt;
    pt_tensor *t[9] = {NULL}; /* dx, dw, db, x, dy, mean, rstd, w, (spare) */
    double *part = NULL;
    pt_status st = PT_OK;
    const bool meta = input->device.type == PT_DEV_META;
    if (meta) {
        if ((want[0] && (st = pt_tensor_empty(input->ndim, input->sizes, dt, input->device, &t[0]))) ||
            (want[1] && (st = pt_tensor_empty(normalized_shape_len, normalized_shape, wdt,
                                              input->device, &t[1]))) ||
            (want[2] && (st = pt_tensor_empty(normalized_shape_len, normalized_shape, bdt,
                                              input->device, &t[2]))))
            goto fail;
        goto done;
    }
    if ((st = pt_norm_contig(input, cdt, &t[3])) || (st = pt_norm_contig(grad_out, cdt, &t[4])) ||
        (st = pt_norm_contig(mean, cdt, &t[5])) || (st = pt_norm_contig(rstd, cdt, &t[6])) ||
        (st = pt_norm_contig(weight, cdt, &t[7])))
        goto fail;
    if (want[0] && (st = pt_tensor_empty(input->ndim, input->sizes, cdt, input->device, &t[0])))
        goto fail;
    const int64_t grain = N ? (PT_GRAIN + N - 1) / N : (M ? M : 1);
    const int64_t chunks = pt_norm_chunks(M, grain);
    if ((want[1] || want[2]) && !(part = calloc((size_t)(2 * N * chunks) + 1, sizeof(double)))) {
        st = PT_ERROR(PT_ERR_MEMORY, "native_layer_norm_backward: out of memory");
        goto fail;
    }
    if (M > 0 && (want[0] || want[1] || want[2])) {
        ln_job j = {M, N, 0.0, pt_tensor_data(t[3]), t[7] ? pt_tensor_data(t[7]) : NULL, NULL,
                    pt_tensor_data(t[4]), NULL, pt_tensor_data(t[5]), pt_tensor_data(t[6]),
                    t[0] ? pt_tensor_data(t[0]) : NULL, part, chunks, want[1], want[2], cdt};
        pt_norm_run_chunks(chunks, cdt == PT_FLOAT64 ? ln_backward_f64 : ln_backward_f32, &j);
    }
    if (want[0] && (st = pt_norm_result(t[0], dt, &t[0]))) {
        t[0] = NULL;
        goto fail;
    }
    if (want[1] && (st = column_result(part, chunks, 2 * N, N, normalized_shape_len,
                                       normalized_shape, wdt, input->device, &t[1])))
        goto fail;
    if (want[2] && (st = column_result(part + N, chunks, 2 * N, N, normalized_shape_len,
                                       normalized_shape, bdt, input->device, &t[2])))
        goto fail;
done:
    if ((st = pt_norm_placeholders(t, 3, input))) goto fail;
    free(part);
    release_all(t + 3, 6);
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    return PT_OK;
fail:
    free(part);
    release_all(t, 9);
    return st;
}
