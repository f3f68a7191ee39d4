/* norm_group.c - group norm: native_group_norm and native_group_norm_backward.
 *
 * Two layouts, as torch's CPU kernels: the input's own when it is channels_last (4-d) or
 * channels_last_3d (5-d) and not also contiguous, else contiguous; the result, the gradient and
 * the input's gradient take that layout (an operand in another is copied into it).
 *   - planes: (N, C, HxW) in memory order. Each (sample, group) is one run of C / group * HxW
 *     elements: its statistics in one pass (sum_sq), then y = x * scale + shift channel by channel
 *     (scale = rstd * w[c], shift = b[c] - mean * scale). Rows of (sample, group) are split
 *     across threads above a grain of PT_GRAIN elements.
 *   - rows: (N, HxW, C) in memory order. Per sample: per-channel shifted sums over the HxW rows
 *     (col_sum_sq, vectorized over C, the shift the first row), folded into each group's mean and
 *     variance, then each row y = x * scale[c] + shift[c]. Samples are split across threads.
 *
 * Note [group norm gradient]
 * With per-(n, c) sums ds = sum(dy * x) and db = sum(dy) over HxW, folded through the weight into
 * per-(n, g) sums dsg = sum_c ds * w[c] and dbg = sum_c db * w[c], and D = C/group * HxW:
 *   dx = rstd * w[c] * dy + c2 * x + c3,  c2 = (dbg * mean - dsg) * rstd^3 / D,
 *                                          c3 = -c2 * mean - dbg * rstd / D;
 *   dweight[c] = sum_n (ds - db * mean) * rstd,  dbias[c] = sum_n db.
 * ds and db are kept per (n, c), so the weight and bias gradients are a short sequential sum; the
 * loops that make them are the same in both layouts (col_sum_dot over rows in the second).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "nn/norm.h"
#include "pt_ops_internal.h"

typedef struct gn_job {
    int64_t N, C, HxW, G;
    double eps;
    const void *x, *w, *b, *dy;
    void *y, *mean, *rstd, *dx;
    double *sums; /* backward: (N * C) x {db, ds} */
    int failed;   /* rows layout: a worker's scratch could not be allocated */
} gn_job;

/* A group's mean and variance from per-channel sums s[c] of x - k[c] and q[c] of (x - k[c])^2
 * over hw elements each (x - m = (x - k) + (k - m)). */
static void gn_fold(const double *s, const double *q, const double *k, int64_t cg, int64_t hw,
                    double *mean, double *var)
{
    const double D = (double)(cg * hw);
    double t = 0;
    for (int64_t i = 0; i < cg; i++) t += k[i] * (double)hw + s[i];
    const double m = t / D;
    double sq = 0;
    for (int64_t i = 0; i < cg; i++) {
        const double d = k[i] - m;
        sq += q[i] + 2.0 * d * s[i] + (double)hw * d * d;
    }
    *mean = m;
    *var = sq > 0 ? sq / D : 0.0;
}

#define GN_LOOPS(SUF, T)                                                                           \
    static void gn_forward_##SUF(int64_t begin, int64_t end, void *arg)                            \
    {                                                                                              \
        const gn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                        \
        const T *x = j->x, *w = j->w, *b = j->b;                                                   \
        T *y = j->y, *mean = j->mean, *rstd = j->rstd;                                             \
        const int64_t cg = j->C / j->G, D = cg * j->HxW;                                           \
        for (int64_t r = begin; r < end; r++) {                                                    \
            if (D == 0) { /* an empty group: torch's mean 0 and rstd 1 / sqrt(0 / 0) */            \
                mean[r] = (T)0.0;                                                                  \
                rstd[r] = (T)NAN;                                                                  \
                continue;                                                                          \
            }                                                                                      \
            const T *xr = x + r * D;                                                               \
            double sq[2];                                                                          \
            const double k = (double)xr[0];                                                        \
            L->sum_sq(xr, D, k, sq);                                                               \
            const double d = sq[0] / (double)D, var = sq[1] / (double)D - d * d;                   \
            const double m = k + d, rs = 1.0 / sqrt((var > 0 ? var : 0.0) + j->eps);               \
            mean[r] = (T)m;                                                                        \
            rstd[r] = (T)rs;                                                                       \
            const int64_t c0 = (r % j->G) * cg;                                                    \
            for (int64_t i = 0; i < cg; i++) {                                                     \
                const double sc = rs * (w ? (double)w[c0 + i] : 1.0);                              \
                const double sh = (b ? (double)b[c0 + i] : 0.0) - m * sc;                          \
                L->affine(y + r * D + i * j->HxW, xr + i * j->HxW, j->HxW, (T)sc, (T)sh);          \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void gn_backward_##SUF(int64_t begin, int64_t end, void *arg)                           \
    {                                                                                              \
        const gn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        const T *x = j->x, *w = j->w, *dy = j->dy, *mean = j->mean, *rstd = j->rstd;               \
        T *dx = j->dx;                                                                             \
        const int64_t cg = j->C / j->G, D = cg * j->HxW;                                           \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const int64_t c0 = (r % j->G) * cg, nc0 = (r / j->G) * j->C + c0;                      \
            double dsg = 0, dbg = 0;                                                               \
            for (int64_t i = 0; i < cg; i++) {                                                     \
                double *s = j->sums + 2 * (nc0 + i);                                               \
                L->sum_dot(dy + r * D + i * j->HxW, NULL, x + r * D + i * j->HxW, j->HxW, 0.0, s); \
                const double wc = w ? (double)w[c0 + i] : 1.0;                                     \
                dbg += s[0] * wc;                                                                  \
                dsg += s[1] * wc;                                                                  \
            }                                                                                      \
            if (!dx) continue;                                                                     \
            const double m = (double)mean[r], rs = (double)rstd[r];                                \
            const double c2 = (dbg * m - dsg) * rs * rs * rs / (double)D;                          \
            const double c3 = -c2 * m - dbg * rs / (double)D;                                      \
            for (int64_t i = 0; i < cg; i++) {                                                     \
                const double c1 = rs * (w ? (double)w[c0 + i] : 1.0);                              \
                L->lin3(dx + r * D + i * j->HxW, dy + r * D + i * j->HxW, NULL,                    \
                        x + r * D + i * j->HxW, j->HxW, (T)c1, (T)c2, (T)c3);                      \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* rows layout: samples [begin, end); scratch: 3 * C doubles and 3 * C T's */                 \
    static void gn_forward_rows_##SUF(int64_t begin, int64_t end, void *arg)                       \
    {                                                                                              \
        gn_job *j = arg;                                                                           \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                        \
        const T *x = j->x, *w = j->w, *b = j->b;                                                   \
        T *y = j->y, *mean = j->mean, *rstd = j->rstd;                                             \
        const int64_t C = j->C, HW = j->HxW, G = j->G, cg = C / G;                                 \
        double *s = malloc(sizeof(double) * (size_t)(3 * C) + sizeof(T) * (size_t)(2 * C));       \
        if (!s) {                                                                                  \
            j->failed = 1;                                                                         \
            return;                                                                                \
        }                                                                                          \
        double *q = s + C, *k = q + C;                                                             \
        T *scale = (T *)(k + C), *shift = scale + C;                                               \
        for (int64_t n = begin; n < end; n++) {                                                    \
            const T *xn = x + n * HW * C;                                                          \
            T *yn = y + n * HW * C;                                                                \
            for (int64_t c = 0; c < C; c++) {                                                      \
                s[c] = q[c] = 0;                                                                   \
                k[c] = (double)xn[c];                                                              \
            }                                                                                      \
            for (int64_t p = 0; p < HW; p++) L->col_sum_sq(s, q, xn + p * C, C, k);                \
            for (int64_t g = 0; g < G; g++) {                                                      \
                double m, var;                                                                     \
                gn_fold(s + g * cg, q + g * cg, k + g * cg, cg, HW, &m, &var);                     \
                const double rs = 1.0 / sqrt(var + j->eps);                                        \
                mean[n * G + g] = (T)m;                                                            \
                rstd[n * G + g] = (T)rs;                                                           \
                for (int64_t c = g * cg; c < (g + 1) * cg; c++) {                                  \
                    const double sc = rs * (w ? (double)w[c] : 1.0);                               \
                    scale[c] = (T)sc;                                                              \
                    shift[c] = (T)((b ? (double)b[c] : 0.0) - m * sc);                             \
                }                                                                                  \
            }                                                                                      \
            for (int64_t p = 0; p < HW; p++)                                                       \
                L->affine_col(yn + p * C, xn + p * C, C, scale, shift);                            \
        }                                                                                          \
        free(s);                                                                                   \
    }                                                                                              \
    static void gn_backward_rows_##SUF(int64_t begin, int64_t end, void *arg)                      \
    {                                                                                              \
        gn_job *j = arg;                                                                           \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        const T *x = j->x, *w = j->w, *dy = j->dy, *mean = j->mean, *rstd = j->rstd;               \
        T *dx = j->dx;                                                                             \
        const int64_t C = j->C, HW = j->HxW, G = j->G, cg = C / G, D = cg * HW;                    \
        double *db = malloc(sizeof(double) * (size_t)(3 * C) + sizeof(T) * (size_t)(3 * C));      \
        if (!db) {                                                                                 \
            j->failed = 1;                                                                         \
            return;                                                                                \
        }                                                                                          \
        double *ds = db + C, *zero = ds + C;                                                       \
        T *ca = (T *)(zero + C), *cb = ca + C, *cc = cb + C;                                       \
        for (int64_t c = 0; c < C; c++) zero[c] = 0;                                               \
        for (int64_t n = begin; n < end; n++) {                                                    \
            const int64_t o = n * HW * C;                                                          \
            for (int64_t c = 0; c < C; c++) db[c] = ds[c] = 0;                                     \
            for (int64_t p = 0; p < HW; p++)                                                       \
                L->col_sum_dot(db, ds, dy + o + p * C, x + o + p * C, C, zero);                    \
            for (int64_t c = 0; c < C; c++) {                                                      \
                j->sums[2 * (n * C + c)] = db[c];                                                  \
                j->sums[2 * (n * C + c) + 1] = ds[c];                                              \
            }                                                                                      \
            if (!dx) continue;                                                                     \
            for (int64_t g = 0; g < G; g++) {                                                      \
                double dsg = 0, dbg = 0;                                                           \
                for (int64_t c = g * cg; c < (g + 1) * cg; c++) {                                  \
                    const double wc = w ? (double)w[c] : 1.0;                                      \
                    dbg += db[c] * wc;                                                             \
                    dsg += ds[c] * wc;                                                             \
                }                                                                                  \
                const double m = (double)mean[n * G + g], rs = (double)rstd[n * G + g];            \
                const double c2 = (dbg * m - dsg) * rs * rs * rs / (double)D;                      \
                const double c3 = -c2 * m - dbg * rs / (double)D;                                  \
                for (int64_t c = g * cg; c < (g + 1) * cg; c++) {                                  \
                    ca[c] = (T)(rs * (w ? (double)w[c] : 1.0));                                    \
                    cb[c] = (T)c2;                                                                 \
                    cc[c] = (T)c3;                                                                 \
                }                                                                                  \
            }                                                                                      \
            for (int64_t p = 0; p < HW; p++)                                                       \
                L->lin3_col(dx + o + p * C, dy + o + p * C, x + o + p * C, C, ca, cb, cc);         \
        }                                                                                          \
        free(db);                                                                                  \
    }                                                                                              \
    static void gn_params_##SUF(const gn_job *j, double *dw, double *db)                           \
    {                                                                                              \
        const T *mean = j->mean, *rstd = j->rstd;                                                  \
        const int64_t cg = j->C / j->G;                                                            \
        for (int64_t c = 0; c < j->C; c++) {                                                       \
            double a = 0, bsum = 0;                                                                \
            for (int64_t n = 0; n < j->N; n++) {                                                   \
                const double *s = j->sums + 2 * (n * j->C + c);                                    \
                const int64_t r = n * j->G + c / cg;                                               \
                a += (s[1] - s[0] * (double)mean[r]) * (double)rstd[r];                            \
                bsum += s[0];                                                                      \
            }                                                                                      \
            if (dw) dw[c] = a;                                                                     \
            if (db) db[c] = bsum;                                                                  \
        }                                                                                          \
    }

GN_LOOPS(f32, float)
GN_LOOPS(f64, double)

/* The rows layout: a 4-d channels_last or 5-d channels_last_3d input that is not also
 * contiguous (torch's suggest_memory_format). */
static bool gn_rows(const pt_tensor *t)
{
    if (t->ndim != 4 && t->ndim != 5) return false;
    return !pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS) &&
           pt_tensor_is_contiguous(t, t->ndim == 4 ? PT_MEMORY_FORMAT_CHANNELS_LAST :
                                                     PT_MEMORY_FORMAT_CHANNELS_LAST_3D);
}

/* An empty tensor of like's shape in dtype, laid out channels-last when rows. */
static pt_status gn_empty(const pt_tensor *like, bool rows, int32_t dtype, pt_tensor **out)
{
    if (!rows) return pt_tensor_empty(like->ndim, like->sizes, dtype, like->device, out);
    int64_t st[PT_MAX_DIMS], run = like->sizes[1];
    st[1] = 1;
    for (int32_t d = like->ndim - 1; d >= 2; d--) {
        st[d] = run;
        run *= like->sizes[d];
    }
    st[0] = run;
    return pt_tensor_empty_strided(like->ndim, like->sizes, st, dtype, like->device, out);
}

/* t (of the input's shape) as a dense tensor of dtype in the layout: t itself when it is one. */
static pt_status gn_operand(const pt_tensor *t, bool rows, int32_t dtype, pt_tensor **out)
{
    if (!rows) return pt_norm_contig(t, dtype, out);
    *out = NULL;
    if (t->dtype == dtype && pt_tensor_is_contiguous(t, t->ndim == 4 ?
                                                         PT_MEMORY_FORMAT_CHANNELS_LAST :
                                                         PT_MEMORY_FORMAT_CHANNELS_LAST_3D)) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    pt_tensor *c = NULL;
    PT_TRY(gn_empty(t, true, dtype, &c));
    const pt_status st = t->numel ? pt_tensor_copy_(c, t) : PT_OK;
    if (st != PT_OK) {
        pt_tensor_release(c);
        return st;
    }
    *out = c;
    return PT_OK;
}

/* r converted to dtype, keeping its layout. */
static pt_status gn_result(pt_tensor *r, bool rows, int32_t dtype, pt_tensor **out)
{
    if (r->dtype == dtype || !rows) return pt_norm_result(r, dtype, out);
    const pt_status st = gn_operand(r, true, dtype, out);
    pt_tensor_release(r);
    return st;
}

static void release_all(pt_tensor **ts, int n)
{
    for (int i = 0; i < n; i++)
        if (ts[i]) {
            pt_tensor_release(ts[i]);
            ts[i] = NULL;
        }
}

static pt_status gn_check(const pt_tensor *input, const pt_tensor *weight, const pt_tensor *bias,
                          int64_t N, int64_t C, int64_t HxW, int64_t group)
{
    char a[256], b[256];
    if (group <= 0 || C % group)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected number of channels in input to be divisible by "
                        "num_groups, but got input of shape %s and num_groups=%lld",
                        (pt_norm_format_sizes(a, sizeof a, input->ndim, input->sizes), a),
                        (long long)group);
    const pt_tensor *ps[2] = {weight, bias};
    const char *pn[2] = {"weight", "bias"};
    for (int i = 0; i < 2; i++)
        if (ps[i] && (ps[i]->ndim != 1 || ps[i]->numel != C)) {
            pt_norm_format_sizes(a, sizeof a, ps[i]->ndim, ps[i]->sizes);
            pt_norm_format_sizes(b, sizeof b, input->ndim, input->sizes);
            return PT_ERROR(PT_ERR_RUNTIME, "Expected %s to be a vector of size equal to the number "
                            "of channels in input, but got %s of shape %s and input of shape %s",
                            pn[i], pn[i], a, b);
        }
    if (N < 0 || C < 0 || HxW < 0 || input->numel != N * C * HxW)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected the input to have N * C * HxW = %lld elements, "
                        "but got %lld", (long long)(N * C * HxW), (long long)input->numel);
    PT_TRY(pt_norm_check_param(input, weight));
    return pt_norm_check_param(input, bias);
}

pt_status pt_kernel_native_group_norm(const pt_tensor *input, const pt_tensor *weight,
                                      const pt_tensor *bias, int64_t N, int64_t C, int64_t HxW,
                                      int64_t group, double eps, pt_tensor **ret0,
                                      pt_tensor **ret1, pt_tensor **ret2)
{
    PT_TRY(pt_norm_check_dtype(input, "GroupNormKernelImpl"));
    PT_TRY(gn_check(input, weight, bias, N, C, HxW, group));
    const int32_t dt = input->dtype, cdt = pt_norm_compute_dtype(dt);
    const bool meta = input->device.type == PT_DEV_META;
    const int32_t wdt = meta ? dt : cdt;
    const int64_t ssz[2] = {N, group};
    const bool rows = gn_rows(input) && input->numel > 0;
    pt_tensor *t[6] = {NULL}; /* y, mean, rstd, x, w, b */
    pt_status st;
    if ((st = gn_empty(input, rows, wdt, &t[0])) ||
        (st = pt_tensor_empty(2, ssz, wdt, input->device, &t[1])) ||
        (st = pt_tensor_empty(2, ssz, wdt, input->device, &t[2])))
        goto fail;
    if (meta) goto done;
    if ((st = gn_operand(input, rows, cdt, &t[3])) || (st = pt_norm_contig(weight, cdt, &t[4])) ||
        (st = pt_norm_contig(bias, cdt, &t[5])))
        goto fail;
    const int64_t D = C / group * HxW;
    gn_job j = {N, C, HxW, group, eps, pt_tensor_data(t[3]), t[4] ? pt_tensor_data(t[4]) : NULL,
                t[5] ? pt_tensor_data(t[5]) : NULL, NULL, pt_tensor_data(t[0]),
                pt_tensor_data(t[1]), pt_tensor_data(t[2]), NULL, NULL, 0};
    if (rows && N * HxW > 0 && C > 0) {
        const int64_t per = C * HxW;
        pt_parallel_for(N, (PT_GRAIN + per - 1) / per,
                        cdt == PT_FLOAT64 ? gn_forward_rows_f64 : gn_forward_rows_f32, &j);
    } else if (!rows && N * group > 0) {
        pt_parallel_for(N * group, D ? (PT_GRAIN + D - 1) / D : N * group,
                        cdt == PT_FLOAT64 ? gn_forward_f64 : gn_forward_f32, &j);
    }
    if (j.failed) {
        st = PT_ERROR(PT_ERR_MEMORY, "native_group_norm: out of memory");
        goto fail;
    }
    for (int i = 0; i < 3; i++)
        if ((st = (i ? pt_norm_result(t[i], dt, &t[i]) : gn_result(t[i], rows, dt, &t[i])))) {
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

static bool mask_at(int32_t n, const int64_t *mask, int i) { return i < n && mask[i]; }

pt_status pt_kernel_native_group_norm_backward(const pt_tensor *grad_out, const pt_tensor *input,
                                               const pt_tensor *mean, const pt_tensor *rstd,
                                               const pt_tensor *weight, int64_t N, int64_t C,
                                               int64_t HxW, int64_t group, int32_t output_mask_len,
                                               const int64_t *output_mask, pt_tensor **ret0,
                                               pt_tensor **ret1, pt_tensor **ret2)
{
    PT_TRY(pt_norm_check_dtype(input, "GroupNormBackwardKernelImpl"));
    PT_TRY(gn_check(input, weight, NULL, N, C, HxW, group));
    if (grad_out->numel != input->numel || mean->numel != N * group || rstd->numel != N * group)
        return PT_ERROR(PT_ERR_RUNTIME, "native_group_norm_backward: grad_out, mean and rstd do "
                        "not match the input's shape");
    const bool want[3] = {mask_at(output_mask_len, output_mask, 0),
                          mask_at(output_mask_len, output_mask, 1),
                          mask_at(output_mask_len, output_mask, 2)};
    const int32_t dt = input->dtype, cdt = pt_norm_compute_dtype(dt);
    const int32_t pdt = weight ? weight->dtype : dt;
    const bool meta = input->device.type == PT_DEV_META;
    const int64_t csz[1] = {C};
    const bool rows = gn_rows(input) && input->numel > 0 && grad_out->ndim == input->ndim;
    pt_tensor *t[8] = {NULL}; /* dx, dw, db, x, dy, mean, rstd, w */
    double *sums = NULL;
    pt_status st = PT_OK;
    if ((want[0] && (st = gn_empty(input, rows, meta ? dt : cdt, &t[0]))) ||
        (want[1] && (st = pt_tensor_empty(1, csz, meta ? pdt : PT_FLOAT64, input->device,
                                          &t[1]))) ||
        (want[2] && (st = pt_tensor_empty(1, csz, meta ? pdt : PT_FLOAT64, input->device,
                                          &t[2]))))
        goto fail;
    if (meta) goto done;
    if ((st = gn_operand(input, rows, cdt, &t[3])) || (st = gn_operand(grad_out, rows, cdt, &t[4])) ||
        (st = pt_norm_contig(mean, cdt, &t[5])) || (st = pt_norm_contig(rstd, cdt, &t[6])) ||
        (st = pt_norm_contig(weight, cdt, &t[7])))
        goto fail;
    if (!(sums = calloc((size_t)(2 * N * C) + 1, sizeof(double)))) {
        st = PT_ERROR(PT_ERR_MEMORY, "native_group_norm_backward: out of memory");
        goto fail;
    }
    gn_job j = {N, C, HxW, group, 0.0, pt_tensor_data(t[3]), t[7] ? pt_tensor_data(t[7]) : NULL,
                NULL, pt_tensor_data(t[4]), NULL, pt_tensor_data(t[5]), pt_tensor_data(t[6]),
                t[0] ? pt_tensor_data(t[0]) : NULL, sums, 0};
    const int64_t D = C / group * HxW;
    if (rows && N * HxW > 0 && C > 0) {
        const int64_t per = C * HxW;
        pt_parallel_for(N, (PT_GRAIN + per - 1) / per,
                        cdt == PT_FLOAT64 ? gn_backward_rows_f64 : gn_backward_rows_f32, &j);
    } else if (!rows && N * group > 0) {
        pt_parallel_for(N * group, D ? (PT_GRAIN + D - 1) / D : N * group,
                        cdt == PT_FLOAT64 ? gn_backward_f64 : gn_backward_f32, &j);
    }
    if (j.failed) {
        st = PT_ERROR(PT_ERR_MEMORY, "native_group_norm_backward: out of memory");
        goto fail;
    }
    double *dw = t[1] ? pt_tensor_data(t[1]) : NULL, *db = t[2] ? pt_tensor_data(t[2]) : NULL;
    if (dw || db) {
        if (cdt == PT_FLOAT64) gn_params_f64(&j, dw, db);
        else gn_params_f32(&j, dw, db);
    }
    for (int i = 0; i < 3; i++)
        if (t[i] && (st = (i ? pt_norm_result(t[i], pdt, &t[i]) : gn_result(t[i], rows, dt,
                                                                             &t[i])))) {
            t[i] = NULL;
            goto fail;
        }
done:
    if ((st = pt_norm_placeholders(t, 3, input))) goto fail;
    free(sums);
    release_all(t + 3, 5);
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    return PT_OK;
fail:
    free(sums);
    release_all(t, 8);
    return st;
}
