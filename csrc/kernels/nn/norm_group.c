/* norm_group.c - group norm: native_group_norm and native_group_norm_backward.
 *
 * The input is (N, C, HxW) in memory order (made contiguous in the compute dtype first, see
 * norm_layer.c); each (sample, group) is one row of C/group channels x HxW elements with its
 * mean and rstd, and each channel its own weight and bias, applied as y = x * scale + shift with
 * scale = rstd * w[c] and shift = b[c] - mean * scale. The (sample, group) rows are split across
 * threads above a grain of PT_GRAIN elements.
 *
 * Note [group norm gradient]
 * With per-(n, c) sums ds = sum(dy * x) and db = sum(dy) over HxW, folded through the weight into
 * per-(n, g) sums dsg = sum_c ds * w[c] and dbg = sum_c db * w[c], and D = C/group * HxW:
 *   dx = rstd * w[c] * dy + c2 * x + c3,  c2 = (dbg * mean - dsg) * rstd^3 / D,
 *                                          c3 = -c2 * mean - dbg * rstd / D;
 *   dweight[c] = sum_n (ds - db * mean) * rstd,  dbias[c] = sum_n db.
 * ds and db are kept per (n, c), so the weight and bias gradients are a short sequential sum.
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
} gn_job;

#define GN_LOOPS(SUF, T)                                                                           \
    static void gn_forward_##SUF(int64_t begin, int64_t end, void *arg)                            \
    {                                                                                              \
        const gn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                        \
        const T *x = j->x, *w = j->w, *b = j->b;                                                   \
        T *y = j->y, *mean = j->mean, *rstd = j->rstd;                                             \
        const int64_t cg = j->C / j->G, D = cg * j->HxW;                                           \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const T *xr = x + r * D;                                                               \
            const double m = L->sum(xr, D) / (double)D;                                            \
            const double rs = 1.0 / sqrt(L->sqdev(xr, D, m) / (double)D + j->eps);                 \
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
    pt_tensor *t[6] = {NULL}; /* y, mean, rstd, x, w, b */
    pt_status st;
    if ((st = pt_tensor_empty(input->ndim, input->sizes, wdt, input->device, &t[0])) ||
        (st = pt_tensor_empty(2, ssz, wdt, input->device, &t[1])) ||
        (st = pt_tensor_empty(2, ssz, wdt, input->device, &t[2])))
        goto fail;
    if (meta) goto done;
    if ((st = pt_norm_contig(input, cdt, &t[3])) || (st = pt_norm_contig(weight, cdt, &t[4])) ||
        (st = pt_norm_contig(bias, cdt, &t[5])))
        goto fail;
    const int64_t D = C / group * HxW;
    if (N * group > 0) {
        gn_job j = {N, C, HxW, group, eps, pt_tensor_data(t[3]),
                    t[4] ? pt_tensor_data(t[4]) : NULL, t[5] ? pt_tensor_data(t[5]) : NULL, NULL,
                    pt_tensor_data(t[0]), pt_tensor_data(t[1]), pt_tensor_data(t[2]), NULL, NULL};
        pt_parallel_for(N * group, D ? (PT_GRAIN + D - 1) / D : N * group,
                        cdt == PT_FLOAT64 ? gn_forward_f64 : gn_forward_f32, &j);
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
    pt_tensor *t[8] = {NULL}; /* dx, dw, db, x, dy, mean, rstd, w */
    double *sums = NULL;
    pt_status st = PT_OK;
    if ((want[0] && (st = pt_tensor_empty(input->ndim, input->sizes, meta ? dt : cdt,
                                          input->device, &t[0]))) ||
        (want[1] && (st = pt_tensor_empty(1, csz, meta ? pdt : PT_FLOAT64, input->device,
                                          &t[1]))) ||
        (want[2] && (st = pt_tensor_empty(1, csz, meta ? pdt : PT_FLOAT64, input->device,
                                          &t[2]))))
        goto fail;
    if (meta) goto done;
    if ((st = pt_norm_contig(input, cdt, &t[3])) || (st = pt_norm_contig(grad_out, cdt, &t[4])) ||
        (st = pt_norm_contig(mean, cdt, &t[5])) || (st = pt_norm_contig(rstd, cdt, &t[6])) ||
        (st = pt_norm_contig(weight, cdt, &t[7])))
        goto fail;
    if (!(sums = calloc((size_t)(2 * N * C) + 1, sizeof(double)))) {
        st = PT_ERROR(PT_ERR_MEMORY, "native_group_norm_backward: out of memory");
        goto fail;
    }
    gn_job j = {N, C, HxW, group, 0.0, pt_tensor_data(t[3]), t[7] ? pt_tensor_data(t[7]) : NULL,
                NULL, pt_tensor_data(t[4]), NULL, pt_tensor_data(t[5]), pt_tensor_data(t[6]),
                t[0] ? pt_tensor_data(t[0]) : NULL, sums};
    const int64_t D = C / group * HxW;
    if (N * group > 0)
        pt_parallel_for(N * group, D ? (PT_GRAIN + D - 1) / D : N * group,
                        cdt == PT_FLOAT64 ? gn_backward_f64 : gn_backward_f32, &j);
    double *dw = t[1] ? pt_tensor_data(t[1]) : NULL, *db = t[2] ? pt_tensor_data(t[2]) : NULL;
    if (dw || db) {
        if (cdt == PT_FLOAT64) gn_params_f64(&j, dw, db);
        else gn_params_f32(&j, dw, db);
    }
    for (int i = 0; i < 3; i++)
        if (t[i] && (st = pt_norm_result(t[i], i ? pdt : dt, &t[i]))) {
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
