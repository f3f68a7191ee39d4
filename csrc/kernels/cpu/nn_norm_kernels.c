/* nn_norm_kernels.c - the loops of batch, layer and group norm (csrc/kernels/nn/norm.h lists
 * them), compiled once per CPU capability (cpu_kernel.h).
 *
 * Note [norm accumulation]
 * Means, variances and the sums of the backward pass accumulate in double for float32 data as well
 * as float64 (torch accumulates float32 statistics in float with Welford's update; double keeps a
 * 6M-element channel's sum exact to float32's precision without Welford's divisions). Variances
 * take two passes, sum((x - mean)^2) after the mean, so no cancellation of E[x^2] - E[x]^2. The
 * reductions keep LANES partial sums in an array, a loop the compiler vectorizes without
 * reassociation flags, so every capability gives the same bits. Group norm's statistics take one
 * pass instead (sum_sq, col_sum_sq: sums of x - k and (x - k)^2 about a shift k, an element of
 * the data, so that the variance sq / n - (s / n)^2 loses little to cancellation). Elementwise results (y, dx)
 * compute in the data's type from coefficients rounded once.
 */
#include "cpu_kernel.h"

#include "nn/norm.h"

/* 16 partial sums: two AVX-512 registers of doubles. */
enum { LANES = 16 };

#define NORM_LOOPS(SUF, T)                                                                         \
    static double sum_##SUF(const T *x, int64_t n)                                                 \
    {                                                                                              \
        double s[LANES] = {0};                                                                     \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) s[j] += (double)x[i + j];                              \
        for (; i < n; i++) s[0] += (double)x[i];                                                   \
        double r = 0;                                                                              \
        for (int j = 0; j < LANES; j++) r += s[j];                                                 \
        return r;                                                                                  \
    }                                                                                              \
    static double sqdev_##SUF(const T *x, int64_t n, double mean)                                  \
    {                                                                                              \
        double s[LANES] = {0};                                                                     \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) {                                                      \
                const double d = (double)x[i + j] - mean;                                          \
                s[j] += d * d;                                                                     \
            }                                                                                      \
        for (; i < n; i++) {                                                                       \
            const double d = (double)x[i] - mean;                                                  \
            s[0] += d * d;                                                                         \
        }                                                                                          \
        double r = 0;                                                                              \
        for (int j = 0; j < LANES; j++) r += s[j];                                                 \
        return r;                                                                                  \
    }                                                                                              \
    static void sum_sq_##SUF(const T *x, int64_t n, double k, double out[2])                       \
    {                                                                                              \
        double s[LANES] = {0}, q[LANES] = {0};                                                     \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) {                                                      \
                const double d = (double)x[i + j] - k;                                             \
                s[j] += d;                                                                         \
                q[j] += d * d;                                                                     \
            }                                                                                      \
        for (; i < n; i++) {                                                                       \
            const double d = (double)x[i] - k;                                                     \
            s[0] += d;                                                                             \
            q[0] += d * d;                                                                         \
        }                                                                                          \
        double rs = 0, rq = 0;                                                                     \
        for (int j = 0; j < LANES; j++) {                                                          \
            rs += s[j];                                                                            \
            rq += q[j];                                                                            \
        }                                                                                          \
        out[0] = rs;                                                                               \
        out[1] = rq;                                                                               \
    }                                                                                              \
    static void col_sum_sq_##SUF(double *s, double *q, const T *x, int64_t n, const double *k)     \
    {                                                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) {                                                 \
            const double d = (double)x[i] - k[i];                                                  \
            s[i] += d;                                                                             \
            q[i] += d * d;                                                                         \
        }                                                                                          \
    }                                                                                              \
    static void sum_dot_##SUF(const T *dy, const T *w, const T *x, int64_t n, double mean,         \
                              double out[2])                                                       \
    {                                                                                              \
        double s[LANES] = {0}, d[LANES] = {0};                                                     \
        int64_t i = 0;                                                                             \
        if (w) {                                                                                   \
            for (; i + LANES <= n; i += LANES)                                                     \
                for (int j = 0; j < LANES; j++) {                                                  \
                    const double g = (double)dy[i + j] * (double)w[i + j];                         \
                    s[j] += g;                                                                     \
                    d[j] += g * ((double)x[i + j] - mean);                                         \
                }                                                                                  \
            for (; i < n; i++) {                                                                   \
                const double g = (double)dy[i] * (double)w[i];                                     \
                s[0] += g;                                                                         \
                d[0] += g * ((double)x[i] - mean);                                                 \
            }                                                                                      \
        } else {                                                                                   \
            for (; i + LANES <= n; i += LANES)                                                     \
                for (int j = 0; j < LANES; j++) {                                                  \
                    const double g = (double)dy[i + j];                                            \
                    s[j] += g;                                                                     \
                    d[j] += g * ((double)x[i + j] - mean);                                         \
                }                                                                                  \
            for (; i < n; i++) {                                                                   \
                s[0] += (double)dy[i];                                                             \
                d[0] += (double)dy[i] * ((double)x[i] - mean);                                    \
            }                                                                                      \
        }                                                                                          \
        double rs = 0, rd = 0;                                                                     \
        for (int j = 0; j < LANES; j++) {                                                          \
            rs += s[j];                                                                            \
            rd += d[j];                                                                            \
        }                                                                                          \
        out[0] = rs;                                                                               \
        out[1] = rd;                                                                               \
    }                                                                                              \
    static void affine_##SUF(T *y, const T *x, int64_t n, T scale, T shift)                        \
    {                                                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) y[i] = x[i] * scale + shift;                      \
    }                                                                                              \
    static void norm_row_##SUF(T *y, const T *x, const T *w, const T *b, int64_t n, T mean,        \
                               T rstd)                                                             \
    {                                                                                              \
        if (w && b) {                                                                              \
            PT_IVDEP for (int64_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd * w[i] + b[i];    \
        } else if (w) {                                                                            \
            PT_IVDEP for (int64_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd * w[i];           \
        } else if (b) {                                                                            \
            PT_IVDEP for (int64_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd + b[i];           \
        } else {                                                                                   \
            PT_IVDEP for (int64_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd;                  \
        }                                                                                          \
    }                                                                                              \
    static void lin3_##SUF(T *dx, const T *dy, const T *w, const T *x, int64_t n, T a, T b, T c)   \
    {                                                                                              \
        if (w) {                                                                                   \
            PT_IVDEP for (int64_t i = 0; i < n; i++) dx[i] = a * w[i] * dy[i] + b * x[i] + c;      \
        } else {                                                                                   \
            PT_IVDEP for (int64_t i = 0; i < n; i++) dx[i] = a * dy[i] + b * x[i] + c;             \
        }                                                                                          \
    }                                                                                              \
    static void col_sum_##SUF(double *acc, const T *x, int64_t n)                                  \
    {                                                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) acc[i] += (double)x[i];                           \
    }                                                                                              \
    static void col_sqdev_##SUF(double *acc, const T *x, int64_t n, const double *mean)            \
    {                                                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) {                                                 \
            const double d = (double)x[i] - mean[i];                                               \
            acc[i] += d * d;                                                                       \
        }                                                                                          \
    }                                                                                              \
    static void col_sum_dot_##SUF(double *s, double *d, const T *dy, const T *x, int64_t n,        \
                                  const double *mean)                                              \
    {                                                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) {                                                 \
            s[i] += (double)dy[i];                                                                 \
            d[i] += (double)dy[i] * ((double)x[i] - mean[i]);                                      \
        }                                                                                          \
    }                                                                                              \
    static void col_gamma_beta_##SUF(double *dg, double *db, const T *dy, const T *x, int64_t n,   \
                                     double mean, double rstd)                                     \
    {                                                                                              \
        if (dg) {                                                                                  \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
                dg[i] += (double)dy[i] * (((double)x[i] - mean) * rstd);                           \
        }                                                                                          \
        if (db) {                                                                                  \
            PT_IVDEP for (int64_t i = 0; i < n; i++) db[i] += (double)dy[i];                       \
        }                                                                                          \
    }                                                                                              \
    static void affine_col_##SUF(T *y, const T *x, int64_t n, const T *scale, const T *shift)      \
    {                                                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) y[i] = x[i] * scale[i] + shift[i];                \
    }                                                                                              \
    static void lin3_col_##SUF(T *dx, const T *dy, const T *x, int64_t n, const T *a, const T *b,  \
                               const T *c)                                                         \
    {                                                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) dx[i] = a[i] * dy[i] + b[i] * x[i] + c[i];        \
    }

NORM_LOOPS(f4, float)
NORM_LOOPS(f8, double)

#define NORM_ENTRY(SUF)                                                                            \
    {sum_##SUF,        sqdev_##SUF,      sum_sq_##SUF,      sum_dot_##SUF,   affine_##SUF,         \
     norm_row_##SUF,   lin3_##SUF,       col_sum_##SUF,     col_sum_sq_##SUF, col_sqdev_##SUF,     \
     col_sum_dot_##SUF, col_gamma_beta_##SUF, affine_col_##SUF, lin3_col_##SUF}

PT_CPU_KERNELS_DEFINE(nn_norm, pt_norm_table) = {NORM_ENTRY(f4), NORM_ENTRY(f8)};
