/* nn_loss_kernels.c - the pointwise losses' inner loops (mse, smooth_l1, huber, soft_margin,
 * binary_cross_entropy and its logits form) and the sum that reduces them, compiled once per CPU
 * capability (cpu_kernel.h); csrc/kernels/nn/loss_pointwise.c hands them contiguous blocks.
 *
 * Each loss is the formula torch's CPU kernel computes, in the operands' dtype: smooth_l1 is
 * 0.5 z^2 / beta below beta and z - 0.5 beta above (z = |x - y|; beta = 0 leaves z), huber
 * 0.5 z^2 below delta and delta (z - 0.5 delta) above, soft_margin log1p(exp(-y x)),
 * binary_cross_entropy -(y log x + (1 - y) log(1 - x)) with each log clamped at -100, its logits
 * form (1 - y) x - (1 + (pw - 1) y) log_sigmoid(x) with log_sigmoid(x) = min(x, 0) -
 * log1p(exp(-|x|)). The loops without a branch on the operands' presence (weights are applied
 * in a pass of their own) vectorize. Sums keep LANES partial sums in double, so that they
 * vectorize without reassociation flags and give the same bits under every capability.
 */
#include "cpu_kernel.h"

#include <math.h>

#include "nn/loss.h"

enum { LANES = 8 };

#define G_AT(T, a, i) ((a)->g ? ((const T *)(a)->g)[i] : (T)(a)->gs)

#define POINTWISE_LOSSES(SUF, T, LOG, LOG1P, EXP, FABS)                                            \
    static void mse_fwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)        \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        PT_IVDEP for (int64_t i = 0; i < e - b; i++) {                                             \
            const T d = x[i] - y[i];                                                               \
            out[i] = d * d;                                                                        \
        }                                                                                          \
    }                                                                                              \
    static void smooth_l1_fwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)  \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        const T beta = (T)a->param;                                                                \
        PT_IVDEP for (int64_t i = 0; i < e - b; i++) {                                             \
            const T z = FABS(x[i] - y[i]);                                                         \
            out[i] = z < beta ? (T)0.5 * z * z / beta : z - (T)0.5 * beta;                         \
        }                                                                                          \
    }                                                                                              \
    static void huber_fwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)      \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        const T delta = (T)a->param;                                                               \
        PT_IVDEP for (int64_t i = 0; i < e - b; i++) {                                             \
            const T z = FABS(x[i] - y[i]);                                                         \
            out[i] = z < delta ? (T)0.5 * z * z : delta * (z - (T)0.5 * delta);                    \
        }                                                                                          \
    }                                                                                              \
    static void soft_margin_fwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)\
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        for (int64_t i = 0; i < e - b; i++) out[i] = LOG1P(EXP(-y[i] * x[i]));                     \
    }                                                                                              \
    static void apply_weight_##SUF(T *out, const pt_loss_operands *a, int64_t b, int64_t e)       \
    {                                                                                              \
        if (!a->w) return;                                                                         \
        const T *w = (const T *)a->w + b;                                                          \
        PT_IVDEP for (int64_t i = 0; i < e - b; i++) out[i] *= w[i];                               \
    }                                                                                              \
    static void bce_fwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)        \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        for (int64_t i = 0; i < e - b; i++) {                                                      \
            T lx = LOG(x[i]), l1x = LOG1P(-x[i]);                                                  \
            lx = lx < (T)-100 ? (T)-100 : lx;                                                      \
            l1x = l1x < (T)-100 ? (T)-100 : l1x;                                                   \
            out[i] = (y[i] - 1) * l1x - y[i] * lx;                                                 \
        }                                                                                          \
        apply_weight_##SUF(out, a, b, e);                                                          \
    }                                                                                              \
    static void bce_logits_fwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e) \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        const T *pw = a->pw ? (const T *)a->pw + b : NULL;                                         \
        for (int64_t i = 0; i < e - b; i++) {                                                      \
            const T ls = (x[i] < 0 ? x[i] : 0) - LOG1P(EXP(-FABS(x[i])));                         \
            const T lw = pw ? (pw[i] - 1) * y[i] + 1 : (T)1;                                       \
            out[i] = (1 - y[i]) * x[i] - lw * ls;                                                  \
        }                                                                                          \
        apply_weight_##SUF(out, a, b, e);                                                          \
    }                                                                                              \
    static void mse_bwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)        \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        const T s = (T)(2 * a->scale);                                                             \
        if (a->g) {                                                                                \
            const T *g = (const T *)a->g + b;                                                      \
            PT_IVDEP for (int64_t i = 0; i < e - b; i++) out[i] = s * (x[i] - y[i]) * g[i];        \
        } else {                                                                                   \
            const T sg = s * (T)a->gs;                                                             \
            PT_IVDEP for (int64_t i = 0; i < e - b; i++) out[i] = sg * (x[i] - y[i]);              \
        }                                                                                          \
    }                                                                                              \
    static void smooth_l1_bwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)  \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        const T beta = (T)a->param, s = (T)a->scale;                                               \
        for (int64_t i = 0; i < e - b; i++) {                                                      \
            const T d = x[i] - y[i];                                                               \
            const T dd = d <= -beta ? (T)-1 : d >= beta ? (T)1 : d / beta;                         \
            out[i] = dd * s * G_AT(T, a, b + i);                                                   \
        }                                                                                          \
    }                                                                                              \
    static void huber_bwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)      \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        const T delta = (T)a->param, s = (T)a->scale;                                              \
        for (int64_t i = 0; i < e - b; i++) {                                                      \
            const T d = x[i] - y[i];                                                               \
            const T dd = d < -delta ? -delta : d > delta ? delta : d;                              \
            out[i] = dd * s * G_AT(T, a, b + i);                                                   \
        }                                                                                          \
    }                                                                                              \
    static void soft_margin_bwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)\
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        const T s = (T)a->scale;                                                                   \
        for (int64_t i = 0; i < e - b; i++) {                                                      \
            const T z = EXP(-y[i] * x[i]);                                                         \
            out[i] = -y[i] * z / (1 + z) * s * G_AT(T, a, b + i);                                  \
        }                                                                                          \
    }                                                                                              \
    static void bce_bwd_##SUF(void *out_, const pt_loss_operands *a, int64_t b, int64_t e)        \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *x = (const T *)a->x + b, *y = (const T *)a->y + b;                                \
        const T s = (T)a->scale;                                                                   \
        for (int64_t i = 0; i < e - b; i++) {                                                      \
            T den = (1 - x[i]) * x[i];                                                             \
            den = den < (T)1e-12 ? (T)1e-12 : den;                                                 \
            out[i] = (x[i] - y[i]) / den * s * G_AT(T, a, b + i);                                  \
        }                                                                                          \
        apply_weight_##SUF(out, a, b, e);                                                          \
    }                                                                                              \
    static double sum_##SUF(const void *v_, int64_t n)                                             \
    {                                                                                              \
        const T *v = v_;                                                                           \
        double s[LANES] = {0};                                                                     \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) s[j] += (double)v[i + j];                              \
        for (; i < n; i++) s[0] += (double)v[i];                                                   \
        double r = 0;                                                                              \
        for (int j = 0; j < LANES; j++) r += s[j];                                                 \
        return r;                                                                                  \
    }

POINTWISE_LOSSES(f4, float, logf, log1pf, expf, fabsf)
POINTWISE_LOSSES(f8, double, log, log1p, exp, fabs)

PT_CPU_KERNELS_DEFINE(nn_loss, pt_loss_table) = {
    .forward = {{mse_fwd_f4, smooth_l1_fwd_f4, huber_fwd_f4, soft_margin_fwd_f4, bce_fwd_f4,
                 bce_logits_fwd_f4},
                {mse_fwd_f8, smooth_l1_fwd_f8, huber_fwd_f8, soft_margin_fwd_f8, bce_fwd_f8,
                 bce_logits_fwd_f8}},
    .backward = {{mse_bwd_f4, smooth_l1_bwd_f4, huber_bwd_f4, soft_margin_bwd_f4, bce_bwd_f4,
                  NULL},
                 {mse_bwd_f8, smooth_l1_bwd_f8, huber_bwd_f8, soft_margin_bwd_f8, bce_bwd_f8,
                  NULL}},
    .sum = {sum_f4, sum_f8},
};
_Static_assert(PT_LOSS_POINTWISE_COUNT == 6, "one forward per pointwise loss above");
