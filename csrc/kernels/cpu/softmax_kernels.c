/* softmax_kernels.c - softmax and log_softmax of one contiguous row, compiled once per CPU
 * capability (cpu_kernel.h); softmax.c hands them rows (gathered and widened first when a row is
 * strided or float16/bfloat16).
 *
 * Numerically stable, as torch: m = max(x), e = exp(x - m), then e / sum(e) or
 * (x - m) - log(sum(e)).
 * A row is walked three times (max, exp and sum, scale), each pass a loop the compiler vectorizes
 * (the float exps through vec_math_simd.h's intrinsics);
 * the reductions keep LANES partial results in an array, so that they vectorize without
 * reassociation flags and give the same bits under every capability. A nan anywhere in the row
 * makes the whole row nan (its exp is nan, so is the sum), and so does a row whose maximum is
 * infinite (inf - inf), both as torch.
 */
#include "cpu_kernel.h"

#include <math.h>

#include "softmax.h"
#include "vec_math_simd.h"

/* 16 partial results: one AVX-512 register of floats (two of doubles). */
enum { LANES = 16 };

#define ROW_KERNELS(SUF, T, MAP_EXP, LOG)                                                              \
    static T row_max_##SUF(const T *in, int64_t n)                                                 \
    {                                                                                              \
        T m[LANES];                                                                                \
        for (int j = 0; j < LANES; j++) m[j] = -(T)INFINITY;                                       \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) m[j] = in[i + j] > m[j] ? in[i + j] : m[j];            \
        for (; i < n; i++) m[0] = in[i] > m[0] ? in[i] : m[0];                                     \
        T r = m[0];                                                                                \
        for (int j = 1; j < LANES; j++) r = m[j] > r ? m[j] : r;                                   \
        return r;                                                                                  \
    }                                                                                              \
    static T row_sum_##SUF(const T *v, int64_t n)                                                  \
    {                                                                                              \
        T s[LANES] = {0};                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) s[j] += v[i + j];                                      \
        for (; i < n; i++) s[0] += v[i];                                                           \
        T r = 0;                                                                                   \
        for (int j = 0; j < LANES; j++) r += s[j];                                                 \
        return r;                                                                                  \
    }                                                                                              \
    /* max and sum of exp(x - max): the exps go to out (softmax) or tmp blocks (log_softmax). */   \
    static void softmax_##SUF(T *out, const T *in, int64_t n)                                      \
    {                                                                                              \
        const T m = row_max_##SUF(in, n);                                                          \
        MAP_EXP(out, in, n, m);                                                                    \
        const T inv = (T)1 / row_sum_##SUF(out, n);                                                \
        PT_IVDEP for (int64_t i = 0; i < n; i++) out[i] *= inv;                                    \
    }                                                                                              \
    static void log_softmax_##SUF(T *out, const T *in, int64_t n)                                  \
    {                                                                                              \
        enum { BLOCK = 256 };                                                                      \
        T tmp[BLOCK];                                                                              \
        const T m = row_max_##SUF(in, n);                                                          \
        T sum = 0;                                                                                 \
        for (int64_t b = 0; b < n; b += BLOCK) {                                                   \
            const int64_t len = n - b < BLOCK ? n - b : BLOCK;                                     \
            MAP_EXP(tmp, in + b, len, m);                                                          \
            sum += row_sum_##SUF(tmp, len);                                                        \
        }                                                                                          \
        const T lsum = LOG(sum); /* (x - m) - lsum: m + lsum would round away small results */     \
        PT_IVDEP for (int64_t i = 0; i < n; i++) out[i] = (in[i] - m) - lsum;                      \
    }

/* exp(x - shift) over a row: vec_math_simd.h's array form for float (Note [vector exp]), libm's
 * exp for double. */
static void map_exp_f8(double *y, const double *x, int64_t n, double shift)
{
    for (int64_t i = 0; i < n; i++) y[i] = exp(x[i] - shift);
}

/* Note [softmax across columns]
 * A softmax along a dim that is not the innermost (the classes of an (N, C, H, W) segmentation
 * map) has rows whose elements lie `stride` apart. Gathering each row costs more than the
 * softmax; instead W <= PT_SOFTMAX_COLS neighbouring rows are taken side by side as columns and
 * every pass runs along the contiguous direction, one lane per column: max, exp and sum, scale,
 * the same arithmetic per column as the row kernels. */
#define COL_KERNELS(SUF, T, MAP_EXP, LOG)                                                          \
    static void cols_##SUF(T *out, const T *in, int64_t n, int64_t stride, int64_t w, int lg)      \
    {                                                                                              \
        T m[PT_SOFTMAX_COLS], s[PT_SOFTMAX_COLS], e[PT_SOFTMAX_COLS];                              \
        for (int64_t j = 0; j < w; j++) m[j] = -(T)INFINITY, s[j] = 0;                             \
        for (int64_t c = 0; c < n; c++) {                                                          \
            const T *row = in + c * stride;                                                        \
            for (int64_t j = 0; j < w; j++) m[j] = row[j] > m[j] ? row[j] : m[j];                  \
        }                                                                                          \
        for (int64_t c = 0; c < n; c++) {                                                          \
            const T *row = in + c * stride;                                                        \
            PT_IVDEP for (int64_t j = 0; j < w; j++) e[j] = row[j] - m[j];                         \
            MAP_EXP(e, e, w, 0);                                                                   \
            PT_IVDEP for (int64_t j = 0; j < w; j++) s[j] += e[j];                                 \
            if (!lg) {                                                                             \
                T *orow = out + c * stride;                                                        \
                PT_IVDEP for (int64_t j = 0; j < w; j++) orow[j] = e[j];                           \
            }                                                                                      \
        }                                                                                          \
        if (!lg) {                                                                                 \
            for (int64_t j = 0; j < w; j++) s[j] = (T)1 / s[j];                                    \
            for (int64_t c = 0; c < n; c++) {                                                      \
                T *orow = out + c * stride;                                                        \
                PT_IVDEP for (int64_t j = 0; j < w; j++) orow[j] *= s[j];                          \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < w; j++) s[j] = LOG(s[j]);                                          \
        for (int64_t c = 0; c < n; c++) {                                                          \
            const T *row = in + c * stride;                                                        \
            T *orow = out + c * stride;                                                            \
            PT_IVDEP for (int64_t j = 0; j < w; j++) orow[j] = (row[j] - m[j]) - s[j];             \
        }                                                                                          \
    }                                                                                              \
    static void softmax_cols_##SUF(T *out, const T *in, int64_t n, int64_t stride, int64_t w)      \
    {                                                                                              \
        cols_##SUF(out, in, n, stride, w, 0);                                                      \
    }                                                                                              \
    static void log_softmax_cols_##SUF(T *out, const T *in, int64_t n, int64_t stride, int64_t w)  \
    {                                                                                              \
        cols_##SUF(out, in, n, stride, w, 1);                                                      \
    }

ROW_KERNELS(f4, float, pt_map_expf, logf)
ROW_KERNELS(f8, double, map_exp_f8, log)
COL_KERNELS(f4, float, pt_map_expf, logf)
COL_KERNELS(f8, double, map_exp_f8, log)

PT_CPU_KERNELS_DEFINE(softmax, pt_softmax_table) = {
    {softmax_f4, log_softmax_f4},
    {softmax_f8, log_softmax_f8},
    {softmax_cols_f4, log_softmax_cols_f4},
    {softmax_cols_f8, log_softmax_cols_f8},
};
