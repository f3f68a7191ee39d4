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

ROW_KERNELS(f4, float, pt_map_expf, logf)
ROW_KERNELS(f8, double, map_exp_f8, log)

PT_CPU_KERNELS_DEFINE(softmax, pt_softmax_table) = {
    {softmax_f4, log_softmax_f4},
    {softmax_f8, log_softmax_f8},
};
