/* nn_attention_kernels.c - the row kernels of the fused attention (nn/attention.h), compiled once
 * per CPU capability: the streaming softmax of the forward and the softmax gradient of the
 * backward, over blocks of scores. float exps go through vec_math_simd.h's vector exp, double
 * ones through libm. Maxima and sums keep LANES partial results so that they vectorize without
 * reassociation flags.
 */
#include "cpu_kernel.h"

#include <math.h>

#include "nn/attention.h"
#include "vec_math_simd.h"

enum { LANES = 16 };

static void map_exp_f8(double *y, const double *x, int64_t n, double shift)
{
    for (int64_t i = 0; i < n; i++) y[i] = exp(x[i] - shift);
}

#define ATTENTION_ROWS(SUF, T, MAP_EXP, EXP)                                                      \
    static T row_max_##SUF(const T *x, int64_t n)                                                  \
    {                                                                                              \
        T m[LANES];                                                                                \
        for (int j = 0; j < LANES; j++) m[j] = -(T)INFINITY;                                       \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) m[j] = x[i + j] > m[j] ? x[i + j] : m[j];              \
        for (; i < n; i++) m[0] = x[i] > m[0] ? x[i] : m[0];                                       \
        T r = m[0];                                                                                \
        for (int j = 1; j < LANES; j++) r = m[j] > r ? m[j] : r;                                   \
        return r;                                                                                  \
    }                                                                                              \
    static T row_sum_##SUF(const T *x, int64_t n)                                                  \
    {                                                                                              \
        T s[LANES] = {0};                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) s[j] += x[i + j];                                      \
        for (; i < n; i++) s[0] += x[i];                                                           \
        T r = 0;                                                                                   \
        for (int j = 0; j < LANES; j++) r += s[j];                                                 \
        return r;                                                                                  \
    }                                                                                              \
    static void online_##SUF(T *s, int64_t rows, int64_t cols, int64_t ld, T *m, T *l, T *alpha)  \
    {                                                                                              \
        for (int64_t r = 0; r < rows; r++) {                                                       \
            T *row = s + r * ld;                                                                   \
            const T bm = row_max_##SUF(row, cols);                                                 \
            const T mn = bm > m[r] ? bm : m[r];                                                    \
            if (mn == -(T)INFINITY) { /* nothing unmasked yet: probabilities 0 */                  \
                for (int64_t c = 0; c < cols; c++) row[c] = 0;                                     \
                alpha[r] = 1;                                                                      \
                continue;                                                                          \
            }                                                                                      \
            MAP_EXP(row, row, cols, mn);                                                           \
            alpha[r] = m[r] == -(T)INFINITY ? 0 : EXP(m[r] - mn);                                  \
            l[r] = l[r] * alpha[r] + row_sum_##SUF(row, cols);                                     \
            m[r] = mn;                                                                             \
        }                                                                                          \
    }                                                                                              \
    static void probs_##SUF(T *s, int64_t rows, int64_t cols, int64_t ld, const T *lse)            \
    {                                                                                              \
        for (int64_t r = 0; r < rows; r++) MAP_EXP(s + r * ld, s + r * ld, cols, lse[r]);          \
    }                                                                                              \
    static void dsoftmax_##SUF(T *dp, const T *p, int64_t rows, int64_t cols, int64_t ld,          \
                               const T *d)                                                         \
    {                                                                                              \
        for (int64_t r = 0; r < rows; r++) {                                                       \
            T *g = dp + r * ld;                                                                    \
            const T *pr = p + r * ld, dr = d[r];                                                   \
            PT_IVDEP for (int64_t c = 0; c < cols; c++) g[c] = pr[c] * (g[c] - dr);                \
        }                                                                                          \
    }

ATTENTION_ROWS(f4, float, pt_map_expf, expf)
ATTENTION_ROWS(f8, double, map_exp_f8, exp)

PT_CPU_KERNELS_DEFINE(nn_attention, pt_attention_table) = {
    {online_f4, probs_f4, dsoftmax_f4},
    {online_f8, probs_f8, dsoftmax_f8},
};
