/* norm_batch.c - batch norm: native_batch_norm (training and eval, running statistics updated in
 * place) and native_batch_norm_backward.
 *
 * The input is (N, C, *); each channel's statistics run over N x prod(*) elements. Two layouts,
 * both worked in place on a dense copy in the compute dtype (float32, or float64 for float64;
 * float16 and bfloat16 compute in float32):
 *   - planes: (N, C, HW) in row-major order. A channel is N runs of HW contiguous elements;
 *     channels are split across threads.
 *   - rows: (N * HW, C) in memory order: a 2-d input, or a 4-d channels_last one. Per-channel sums
 *     are column sums over the rows: chunks of rows sum into their own double buffers, added in
 *     chunk order; the elementwise passes split the rows across threads.
 * The result keeps the layout (a channels_last input gives a channels_last result), as torch's.
 *
 * Training: mean and the biased variance normalize; save_mean and save_invstd = 1/sqrt(var + eps)
 * are returned, and running_mean / running_var (when given) become
 * (1 - momentum) * running + momentum * statistic, with the unbiased variance. Eval: the running
 * statistics normalize and save_mean / save_invstd are empty. y = x * scale + shift with
 * scale = invstd * weight, shift = bias - mean * scale.
 * Gradients (training), with M = N * HW, sdy = sum(dy), dot = sum(dy * (x - mean)):
 *   dx = weight * invstd * (dy - sdy / M - (x - mean) * invstd^2 * dot / M),
 *   dweight = dot * invstd, dbias = sdy; in eval dx = weight * invstd * dy.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "nn/norm.h"
#include "pt_ops_internal.h"

typedef struct bn_job {
    int64_t N, C, HW, chunks, rows;
    const void *x, *dy;
    void *y;
    double *mean, *invstd;       /* per channel */
    const double *sa, *sb, *sc;  /* per channel coefficients (y: scale, shift; dx: a, b, c) */
    void *ta, *tb, *tc;          /* rows layout: the coefficients in the compute type */
    double *part;                /* rows layout: per chunk buffers */
    double *s0, *s1;             /* planes layout: per channel sums */
} bn_job;

#define BN_LOOPS(SUF, T)                                                                           \
    /* planes: mean and invstd of channels [begin, end) (eps in sc[0]) */                          \
    static void bn_plane_stats_##SUF(int64_t begin, int64_t end, void *arg)                        \
    {                                                                                              \
        const bn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        const T *x = j->x;                                                                         \
        const double M = (double)(j->N * j->HW);                                                   \
        for (int64_t c = begin; c < end; c++) {                                                    \
            double s = 0, q = 0;                                                                   \
            for (int64_t n = 0; n < j->N; n++) s += L->sum(x + (n * j->C + c) * j->HW, j->HW);     \
            const double m = s / M;                                                                \
            for (int64_t n = 0; n < j->N; n++) q += L->sqdev(x + (n * j->C + c) * j->HW, j->HW, m); \
            j->mean[c] = m;                                                                        \
            j->invstd[c] = q / M; /* the biased variance; the front takes it from here */          \
        }                                                                                          \
    }                                                                                              \
    /* planes: y = x * sa[c] + sb[c] */                                                            \
    static void bn_plane_affine_##SUF(int64_t begin, int64_t end, void *arg)                       \
    {                                                                                              \
        const bn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        for (int64_t c = begin; c < end; c++)                                                      \
            for (int64_t n = 0; n < j->N; n++) {                                                   \
                const int64_t o = (n * j->C + c) * j->HW;                                          \
                L->affine((T *)j->y + o, (const T *)j->x + o, j->HW, (T)j->sa[c], (T)j->sb[c]);    \
            }                                                                                      \
    }                                                                                              \
    /* planes: s0 = sum(dy), s1 = sum(dy * (x - mean)) */                                          \
    static void bn_plane_sums_##SUF(int64_t begin, int64_t end, void *arg)                         \
    {                                                                                              \
        const bn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        for (int64_t c = begin; c < end; c++) {                                                    \
            double s = 0, d = 0, o2[2];                                                            \
            for (int64_t n = 0; n < j->N; n++) {                                                   \
                const int64_t o = (n * j->C + c) * j->HW;                                          \
                L->sum_dot((const T *)j->dy + o, NULL, (const T *)j->x + o, j->HW, j->mean[c], o2); \
                s += o2[0];                                                                        \
                d += o2[1];                                                                        \
            }                                                                                      \
            j->s0[c] = s;                                                                          \
            j->s1[c] = d;                                                                          \
        }                                                                                          \
    }                                                                                              \
    /* planes: dx = sa * dy + sb * x + sc */                                                       \
    static void bn_plane_dx_##SUF(int64_t begin, int64_t end, void *arg)                           \
    {                                                                                              \
        const bn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        for (int64_t c = begin; c < end; c++)                                                      \
            for (int64_t n = 0; n < j->N; n++) {                                                   \
                const int64_t o = (n * j->C + c) * j->HW;                                          \
                L->lin3((T *)j->y + o, (const T *)j->dy + o, NULL, (const T *)j->x + o, j->HW,     \
                        (T)j->sa[c], (T)j->sb[c], (T)j->sc[c]);                                    \
            }                                                                                      \
    }                                                                                              \
    /* rows: per chunk column sums: kind 0 sum(x), 1 sum((x - mean)^2), 2 sum(dy) and dot */       \
    static void bn_row_sums_##SUF(int64_t k, void *arg, int kind)                                  \
    {                                                                                              \
        const bn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        const int64_t begin = j->rows * k / j->chunks, end = j->rows * (k + 1) / j->chunks;       \
        double *acc = j->part + 2 * j->C * k;                                                      \
        for (int64_t r = begin; r < end; r++) {                                                    \
            const T *xr = (const T *)j->x + r * j->C;                                              \
            if (kind == 0) L->col_sum(acc, xr, j->C);                                              \
            else if (kind == 1) L->col_sqdev(acc, xr, j->C, j->mean);                              \
            else L->col_sum_dot(acc, acc + j->C, (const T *)j->dy + r * j->C, xr, j->C, j->mean);  \
        }                                                                                          \
    }                                                                                              \
    static void bn_row_sum_##SUF(int64_t k, void *arg) { bn_row_sums_##SUF(k, arg, 0); }           \
    static void bn_row_sq_##SUF(int64_t k, void *arg) { bn_row_sums_##SUF(k, arg, 1); }            \
    static void bn_row_dot_##SUF(int64_t k, void *arg) { bn_row_sums_##SUF(k, arg, 2); }           \
    static void bn_row_affine_##SUF(int64_t begin, int64_t end, void *arg)                         \
    {                                                                                              \
        const bn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        for (int64_t r = begin; r < end; r++)                                                      \
            L->affine_col((T *)j->y + r * j->C, (const T *)j->x + r * j->C, j->C, j->ta, j->tb);   \
    }                                                                                              \
    static void bn_row_dx_##SUF(int64_t begin, int64_t end, void *arg)                             \
    {                                                                                              \
        const bn_job *j = arg;                                                                     \
        const __typeof__(pt_norm_loops()->SUF) *L = &pt_norm_loops()->SUF;                         \
        for (int64_t r = begin; r < end; r++)                                                      \
            L->lin3_col((T *)j->y + r * j->C, (const T *)j->dy + r * j->C,                         \
                        (const T *)j->x + r * j->C, j->C, j->ta, j->tb, j->tc);                    \
    }                                                                                              \
    static void to_type_##SUF(void *dst, const double *src, int64_t n)                             \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++) ((T *)dst)[i] = (T)src[i];                                 \
    }

BN_LOOPS(f32, float)
BN_LOOPS(f64, double)

typedef struct bn_fns {
    void (*plane_stats)(int64_t, int64_t, void *), (*plane_affine)(int64_t, int64_t, void *);
    void (*plane_sums)(int64_t, int64_t, void *), (*plane_dx)(int64_t, int64_t, void *);
    void (*row_sum)(int64_t, void *), (*row_sq)(int64_t, void *), (*row_dot)(int64_t, void *);
    void (*row_affine)(int64_t, int64_t, void *), (*row_dx)(int64_t, int64_t, void *);
    void (*to_type)(void *, const double *, int64_t);
} bn_fns;

static const bn_fns FNS[2] = {
    {bn_plane_stats_f32, bn_plane_affine_f32, bn_plane_sums_f32, bn_plane_dx_f32, bn_row_sum_f32,
     bn_row_sq_f32, bn_row_dot_f32, bn_row_affine_f32, bn_row_dx_f32, to_type_f32},
    {bn_plane_stats_f64, bn_plane_affine_f64, bn_plane_sums_f64, bn_plane_dx_f64, bn_row_sum_f64,
     bn_row_sq_f64, bn_row_dot_f64, bn_row_affine_f64, bn_row_dx_f64, to_type_f64},
};

static void release_all(pt_tensor **ts, int n)
{
    for (int i = 0; i < n; i++)
        if (ts[i]) {
            pt_tensor_release(ts[i]);
            ts[i] = NULL;
        }
}

/* The rows layout serves a 2-d input and a 4-d channels_last one (not also row-major). */
static bool rows_layout(const pt_tensor *t)
{
    if (t->ndim == 2) return true;
    return t->ndim == 4 && !pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS) &&
           pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CHANNELS_LAST);
}

/* A dense tensor of input's shape in dtype, laid out as `like` (channels_last when rows and 4-d),
 * holding src's values when src is given. */
static pt_status dense_like(const pt_tensor *like, bool rows, const pt_tensor *src, int32_t dtype,
                            pt_tensor **out)
{
    *out = NULL;
    if (src && src->dtype == dtype && pt_tensor_is_contiguous(src, rows && like->ndim == 4 ?
                                                                   PT_MEMORY_FORMAT_CHANNELS_LAST :
                                                                   PT_MEMORY_FORMAT_CONTIGUOUS)) {
        pt_tensor_retain((pt_tensor *)src);
        *out = (pt_tensor *)src;
        return PT_OK;
    }
    pt_tensor *t = NULL;
    if (rows && like->ndim == 4) {
        const int64_t *s = like->sizes;
        const int64_t st[4] = {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]};
        PT_TRY(pt_tensor_empty_strided(4, s, st, dtype, like->device, &t));
    } else {
        PT_TRY(pt_tensor_empty(like->ndim, like->sizes, dtype, like->device, &t));
    }
    if (src && src->numel && src->device.type != PT_DEV_META) {
        const pt_status st = pt_tensor_copy_(t, src);
        if (st != PT_OK) {
            pt_tensor_release(t);
            return st;
        }
    }
    *out = t;
    return PT_OK;
}

/* A C-vector operand (running stats, weight) as doubles; NULL -> fill. */
static pt_status vec_doubles(const pt_tensor *t, int64_t C, double fill, double *out)
{
    if (!t) {
        for (int64_t c = 0; c < C; c++) out[c] = fill;
        return PT_OK;
    }
    pt_tensor *d = NULL;
    PT_TRY(pt_norm_contig(t, PT_FLOAT64, &d));
    memcpy(out, pt_tensor_data(d), sizeof(double) * (size_t)C);
    pt_tensor_release(d);
    return PT_OK;
}

/* A 1-d tensor of C doubles -> dtype (a new tensor). */
static pt_status vec_tensor(const double *v, int64_t C, int32_t dtype, pt_device dev,
                            pt_tensor **out)
{
    pt_tensor *d = NULL;
    PT_TRY(pt_tensor_empty(1, &C, PT_FLOAT64, dev, &d));
    memcpy(pt_tensor_data(d), v, sizeof(double) * (size_t)C);
    return pt_norm_result(d, dtype, out);
}

static pt_status bn_check(const pt_tensor *input, const pt_tensor *const *params, int32_t np)
{
    static const char *const names[5] = {"weight", "bias", "running_mean", "running_var",
                                         "save_mean"};
    if (input->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "batch_norm: expected an input of at least 2 dims "
                        "(N, C, ...), but got %d", (int)input->ndim);
    const int64_t C = input->sizes[1];
    for (int32_t i = 0; i < np; i++) {
        const pt_tensor *p = params[i];
        if (!p) continue;
        if (p->numel != C)
            return PT_ERROR(PT_ERR_RUNTIME, "%s should contain %lld elements not %lld", names[i],
                            (long long)C, (long long)p->numel);
        PT_TRY(pt_norm_check_param(input, p));
    }
    return PT_OK;
}

/* Chunked column sums of the rows layout into sum[0..C) (and sum[C..2C) for the dot). */
static pt_status row_sums(bn_job *j, void (*fn)(int64_t, void *), double *sum, int both)
{
    j->chunks = pt_norm_chunks(j->rows, j->C ? (PT_GRAIN + j->C - 1) / j->C : 1);
    j->part = calloc((size_t)(2 * j->C * j->chunks) + 1, sizeof(double));
    if (!j->part) return PT_ERROR(PT_ERR_MEMORY, "batch_norm: out of memory");
    if (j->rows) pt_norm_run_chunks(j->chunks, fn, j);
    for (int64_t c = 0; c < (both ? 2 : 1) * j->C; c++) {
        double s = 0;
        for (int64_t k = 0; k < j->chunks; k++) s += j->part[2 * j->C * k + c];
        sum[c] = s;
    }
    free(j->part);
    j->part = NULL;
    return PT_OK;
}

/* Coefficients in the compute type for the rows layout's elementwise passes (3 x C). */
static pt_status row_coefs(bn_job *j, const bn_fns *f, int32_t cdt, int n)
{
    const size_t isz = cdt == PT_FLOAT64 ? 8 : 4;
    char *buf = malloc(isz * (size_t)(3 * j->C) + 1);
    if (!buf) return PT_ERROR(PT_ERR_MEMORY, "batch_norm: out of memory");
    j->ta = buf;
    j->tb = buf + isz * (size_t)j->C;
    j->tc = buf + 2 * isz * (size_t)j->C;
    f->to_type(j->ta, j->sa, j->C);
    f->to_type(j->tb, j->sb, j->C);
    if (n > 2) f->to_type(j->tc, j->sc, j->C);
    return PT_OK;
}

pt_status pt_kernel_native_batch_norm(const pt_tensor *input, const pt_tensor *weight,
                                      const pt_tensor *bias, const pt_tensor *running_mean,
                                      const pt_tensor *running_var, int32_t training,
                                      double momentum, double eps, pt_tensor **ret0,
                                      pt_tensor **ret1, pt_tensor **ret2)
{
    const pt_tensor *params[4] = {weight, bias, running_mean, running_var};
    PT_TRY(bn_check(input, params, 4));
    PT_TRY(pt_norm_check_dtype(input, "batch_norm_cpu"));
    if (!training && (!running_mean || !running_var))
        return PT_ERROR(PT_ERR_RUNTIME, "running_mean and running_var must be defined in "
                        "evaluation mode");
    const int32_t dt = input->dtype, cdt = pt_norm_compute_dtype(dt);
    const bool rows = rows_layout(input), meta = input->device.type == PT_DEV_META;
    const int64_t N = input->sizes[0], C = input->sizes[1], HW = C && N ? input->numel / (N * C) : 0;
    const int64_t zero = 0;
    pt_tensor *t[4] = {NULL}; /* y, save_mean, save_invstd, x */
    double *v = NULL;
    pt_status st;
    if ((st = dense_like(input, rows, NULL, meta ? dt : cdt, &t[0])) ||
        (st = pt_tensor_empty(1, training ? &C : &zero, cdt, input->device, &t[1])) ||
        (st = pt_tensor_empty(1, training ? &C : &zero, cdt, input->device, &t[2])))
        goto fail;
    if (meta) goto done;
    if ((st = dense_like(input, rows, input, cdt, &t[3]))) goto fail;
    if (!(v = malloc(sizeof(double) * (size_t)(6 * C) + 1))) {
        st = PT_ERROR(PT_ERR_MEMORY, "batch_norm: out of memory");
        goto fail;
    }
    double *mean = v, *invstd = v + C, *scale = v + 2 * C, *shift = v + 3 * C, *w = v + 4 * C,
           *b = v + 5 * C;
    if ((st = vec_doubles(weight, C, 1.0, w)) || (st = vec_doubles(bias, C, 0.0, b))) goto fail;
    const bn_fns *f = &FNS[cdt == PT_FLOAT64];
    bn_job j = {N, C, HW, 1, N * HW, pt_tensor_data(t[3]), NULL, pt_tensor_data(t[0]), mean,
                invstd, scale, shift, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const int64_t per_c = N * HW, cgrain = per_c ? (PT_GRAIN + per_c - 1) / per_c : C;
    if (training) {
        if (rows) {
            if ((st = row_sums(&j, f->row_sum, mean, 0))) goto fail;
            for (int64_t c = 0; c < C; c++) mean[c] /= (double)per_c;
            if ((st = row_sums(&j, f->row_sq, invstd, 0))) goto fail;
            for (int64_t c = 0; c < C; c++) invstd[c] /= (double)per_c;
        } else if (C) {
            pt_parallel_for(C, cgrain, f->plane_stats, &j);
        }
        /* invstd holds the biased variance here */
        double *rm = scale, *rv = shift; /* scratch until the coefficients are made */
        if (running_mean && (st = vec_doubles(running_mean, C, 0.0, rm))) goto fail;
        if (running_var && (st = vec_doubles(running_var, C, 1.0, rv))) goto fail;
        const double unbias = per_c > 1 ? (double)per_c / (double)(per_c - 1) : INFINITY;
        for (int64_t c = 0; c < C; c++) {
            rm[c] = (1 - momentum) * rm[c] + momentum * mean[c];
            rv[c] = (1 - momentum) * rv[c] + momentum * invstd[c] * unbias;
            invstd[c] = 1.0 / sqrt(invstd[c] + eps);
        }
        pt_tensor *u = NULL;
        const pt_tensor *run[2] = {running_mean, running_var};
        for (int i = 0; i < 2; i++) {
            if (!run[i]) continue;
            if ((st = vec_tensor(i ? rv : rm, C, PT_FLOAT64, input->device, &u))) goto fail;
            st = pt_tensor_copy_((pt_tensor *)run[i], u);
            pt_tensor_release(u);
            if (st) goto fail;
        }
        f->to_type(pt_tensor_data(t[1]), mean, C);
        f->to_type(pt_tensor_data(t[2]), invstd, C);
    } else {
        if ((st = vec_doubles(running_mean, C, 0.0, mean)) ||
            (st = vec_doubles(running_var, C, 1.0, invstd)))
            goto fail;
        for (int64_t c = 0; c < C; c++) invstd[c] = 1.0 / sqrt(invstd[c] + eps);
    }
    for (int64_t c = 0; c < C; c++) {
        scale[c] = invstd[c] * w[c];
        shift[c] = b[c] - mean[c] * scale[c];
    }
    if (rows) {
        if ((st = row_coefs(&j, f, cdt, 2))) goto fail;
        pt_parallel_for(j.rows, C ? (PT_GRAIN + C - 1) / C : j.rows, f->row_affine, &j);
        free(j.ta);
    } else if (C) {
        pt_parallel_for(C, cgrain, f->plane_affine, &j);
    }
    if ((st = pt_norm_result(t[0], dt, &t[0]))) {
        t[0] = NULL;
        goto fail;
    }
done:
    free(v);
    release_all(t + 3, 1);
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    return PT_OK;
fail:
    free(v);
    release_all(t, 4);
    return st;
}

static bool mask_at(int32_t n, const int64_t *mask, int i) { return i < n && mask[i]; }

pt_status pt_kernel_native_batch_norm_backward(const pt_tensor *grad_out, const pt_tensor *input,
                                               const pt_tensor *weight,
                                               const pt_tensor *running_mean,
                                               const pt_tensor *running_var,
                                               const pt_tensor *save_mean,
                                               const pt_tensor *save_invstd, int32_t train,
                                               double eps, int32_t output_mask_len,
                                               const int64_t *output_mask, pt_tensor **ret0,
                                               pt_tensor **ret1, pt_tensor **ret2)
{
    const pt_tensor *params[3] = {weight, NULL, NULL};
    PT_TRY(bn_check(input, params, 1));
    PT_TRY(pt_norm_check_dtype(input, "batch_norm_backward_cpu"));
    if (grad_out->ndim != input->ndim || memcmp(grad_out->sizes, input->sizes,
                                                sizeof(int64_t) * (size_t)input->ndim))
        return PT_ERROR(PT_ERR_RUNTIME, "native_batch_norm_backward: grad_out's shape differs "
                        "from input's");
    const pt_tensor *m_src = train ? save_mean : running_mean;
    const pt_tensor *v_src = train ? save_invstd : running_var;
    const int64_t C = input->sizes[1];
    if (!m_src || !v_src || m_src->numel != C || v_src->numel != C)
        return PT_ERROR(PT_ERR_RUNTIME, "native_batch_norm_backward: %s must hold %lld elements",
                        train ? "save_mean and save_invstd" : "running_mean and running_var",
                        (long long)C);
    const bool want[3] = {mask_at(output_mask_len, output_mask, 0),
                          mask_at(output_mask_len, output_mask, 1),
                          mask_at(output_mask_len, output_mask, 2)};
    const int32_t dt = input->dtype, cdt = pt_norm_compute_dtype(dt);
    const int32_t pdt = weight ? weight->dtype : dt;
    const bool rows = rows_layout(input), meta = input->device.type == PT_DEV_META;
    const int64_t N = input->sizes[0], HW = C && N ? input->numel / (N * C) : 0;
    pt_tensor *t[5] = {NULL}; /* dx, dw, db, x, dy */
    double *v = NULL;
    pt_status st = PT_OK;
    if (want[0] && (st = dense_like(input, rows, NULL, meta ? dt : cdt, &t[0]))) goto fail;
    if (meta) {
        if ((want[1] && (st = pt_tensor_empty(1, &C, pdt, input->device, &t[1]))) ||
            (want[2] && (st = pt_tensor_empty(1, &C, pdt, input->device, &t[2]))))
            goto fail;
        goto done;
    }
    if ((st = dense_like(input, rows, input, cdt, &t[3])) ||
        (st = dense_like(input, rows, grad_out, cdt, &t[4])))
        goto fail;
    if (!(v = malloc(sizeof(double) * (size_t)(8 * C) + 1))) {
        st = PT_ERROR(PT_ERR_MEMORY, "batch_norm: out of memory");
        goto fail;
    }
    double *mean = v, *invstd = v + C, *sdy = v + 2 * C, *dot = v + 3 * C, *a = v + 4 * C,
           *b = v + 5 * C, *c3 = v + 6 * C, *w = v + 7 * C;
    if ((st = vec_doubles(m_src, C, 0.0, mean)) || (st = vec_doubles(v_src, C, 1.0, invstd)) ||
        (st = vec_doubles(weight, C, 1.0, w)))
        goto fail;
    if (!train)
        for (int64_t c = 0; c < C; c++) invstd[c] = 1.0 / sqrt(invstd[c] + eps);
    const bn_fns *f = &FNS[cdt == PT_FLOAT64];
    bn_job j = {N, C, HW, 1, N * HW, pt_tensor_data(t[3]), pt_tensor_data(t[4]),
                t[0] ? pt_tensor_data(t[0]) : NULL, mean, invstd, a, b, c3, NULL, NULL, NULL,
                NULL, sdy, dot};
    const int64_t per_c = N * HW, cgrain = per_c ? (PT_GRAIN + per_c - 1) / per_c : C;
    if (want[1] || want[2] || (want[0] && train)) {
        if (rows) {
            double *both = malloc(sizeof(double) * (size_t)(2 * C) + 1);
            if (!both) {
                st = PT_ERROR(PT_ERR_MEMORY, "batch_norm: out of memory");
                goto fail;
            }
            st = row_sums(&j, f->row_dot, both, 1);
            memcpy(sdy, both, sizeof(double) * (size_t)C);
            memcpy(dot, both + C, sizeof(double) * (size_t)C);
            free(both);
            if (st) goto fail;
        } else if (C) {
            pt_parallel_for(C, cgrain, f->plane_sums, &j);
        }
    }
    if (want[0]) {
        for (int64_t c = 0; c < C; c++) {
            a[c] = w[c] * invstd[c];
            if (train && per_c) {
                b[c] = -w[c] * invstd[c] * invstd[c] * invstd[c] * dot[c] / (double)per_c;
                c3[c] = -a[c] * sdy[c] / (double)per_c - b[c] * mean[c];
            } else {
                b[c] = 0;
                c3[c] = 0;
            }
        }
        if (rows) {
            if ((st = row_coefs(&j, f, cdt, 3))) goto fail;
            pt_parallel_for(j.rows, C ? (PT_GRAIN + C - 1) / C : j.rows, f->row_dx, &j);
            free(j.ta);
        } else if (C) {
            pt_parallel_for(C, cgrain, f->plane_dx, &j);
        }
        if ((st = pt_norm_result(t[0], dt, &t[0]))) {
            t[0] = NULL;
            goto fail;
        }
    }
    if (want[1]) {
        for (int64_t c = 0; c < C; c++) a[c] = dot[c] * invstd[c];
        if ((st = vec_tensor(a, C, pdt, input->device, &t[1]))) goto fail;
    }
    if (want[2] && (st = vec_tensor(sdy, C, pdt, input->device, &t[2]))) goto fail;
done:
    if ((st = pt_norm_placeholders(t, 3, input))) goto fail;
    free(v);
    release_all(t + 3, 2);
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    return PT_OK;
fail:
    free(v);
    release_all(t, 5);
    return st;
}
