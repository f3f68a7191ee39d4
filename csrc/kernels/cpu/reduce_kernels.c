/* reduce_kernels.c - the loops of the reductions, scans and the maps that norm, var and logsumexp
 * apply around them, compiled once per CPU capability (cpu_kernel.h); reduce.c walks tensors
 * with them.
 *
 * A loop folds elements of one type into an accumulator of that type. Contiguous input has a
 * path written for the vectorizer: LANES independent accumulators (a few vector registers'
 * worth), so that the additions do not wait on one another, combined by a tree at the end.
 * Sums are also pairwise (Note [pairwise sums]), contiguous or strided. Max and min keep a NaN
 * flag beside the lanes instead of testing each element, so that the comparison loop stays a
 * plain vector max. Integers add and multiply in unsigned arithmetic, which wraps as torch's
 * two's-complement results do and is defined in C.
 */
#include "cpu_kernel.h"

#include <math.h>
#include <string.h>

#include "reduce.h"
#include "vec_math_simd.h"

typedef struct c64 {
    float re, im;
} c64;
typedef struct c128 {
    double re, im;
} c128;

/* 64 lanes: four AVX-512 registers of float32 (eight of AVX2), enough to hide the add latency;
 * a power of two for the tree. */
enum { LANES = 64 };

/* Note [pairwise sums]
 * A sum of n elements is split in halves until a block of at most PAIR_BLOCK elements is left,
 * which the lanes add (each lane adds PAIR_BLOCK / LANES elements in order); the blocks' sums are
 * added up the tree. The rounding error grows with PAIR_BLOCK / LANES + log2(n / PAIR_BLOCK)
 * instead of n, as NumPy's pairwise summation does (its blocks are 128 elements in 8 lanes). */
enum { PAIR_BLOCK = 2048 };
/* A row shorter than LANES (the 49 elements of a 7x7 plane that a global average pool sums) is
 * added in SHORT_LANES lanes (one AVX2 register of float32) and its last n % SHORT_LANES
 * elements in one more: zeroing and folding 64 lanes, or a lane array written element by element
 * for the tail, cost more than the row itself. A longer block's last n % LANES elements go the
 * same way: SHORT_LANES at a time into the first lanes, the rest into one more. */
enum { SHORT_LANES = 8 };

/* ---------------------------------------------------------------- sums */

#define PT_SUM_REAL(SUF, T)                                                                        \
    static T sum_short_##SUF(const T *x, int64_t n)                                                \
    {                                                                                              \
        T a[SHORT_LANES] = {0}, tail = 0;                                                          \
        int64_t i = 0;                                                                             \
        for (; i + SHORT_LANES <= n; i += SHORT_LANES)                                             \
            for (int j = 0; j < SHORT_LANES; j++) a[j] += x[i + j];                                \
        for (; i < n; i++) tail += x[i];                                                           \
        for (int w = SHORT_LANES / 2; w > 0; w /= 2)                                               \
            for (int j = 0; j < w; j++) a[j] += a[j + w];                                          \
        return a[0] + tail;                                                                        \
    }                                                                                              \
    static T sum_block_##SUF(const T *x, int64_t n)                                                \
    {                                                                                              \
        if (n < LANES) return sum_short_##SUF(x, n);                                               \
        T a[LANES] = {0}, tail = 0;                                                                \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) a[j] += x[i + j];                                      \
        for (; i + SHORT_LANES <= n; i += SHORT_LANES)                                             \
            for (int j = 0; j < SHORT_LANES; j++) a[j] += x[i + j];                                \
        for (; i < n; i++) tail += x[i];                                                           \
        for (int w = LANES / 2; w > 0; w /= 2)                                                     \
            for (int j = 0; j < w; j++) a[j] += a[j + w];                                          \
        return a[0] + tail;                                                                        \
    }                                                                                              \
    static T sum_pairwise_##SUF(const T *x, int64_t n)                                             \
    {                                                                                              \
        if (n <= PAIR_BLOCK) return sum_block_##SUF(x, n);                                         \
        const int64_t half = (n / 2) / LANES * LANES;                                              \
        return sum_pairwise_##SUF(x, half) + sum_pairwise_##SUF(x + half, n - half);               \
    }                                                                                              \
    static T sum_strided_##SUF(const char *x, int64_t n, int64_t s)                                \
    {                                                                                              \
        if (n > PAIR_BLOCK / 8) {                                                                  \
            const int64_t half = n / 2;                                                            \
            return sum_strided_##SUF(x, half, s) + sum_strided_##SUF(x + half * s, n - half, s);   \
        }                                                                                          \
        T a[4] = {0};                                                                              \
        int64_t i = 0;                                                                             \
        for (; i + 4 <= n; i += 4)                                                                 \
            for (int j = 0; j < 4; j++) a[j] += *(const T *)(x + (i + j) * s);                     \
        for (; i < n; i++) a[0] += *(const T *)(x + i * s);                                        \
        return (a[0] + a[1]) + (a[2] + a[3]);                                                      \
    }                                                                                              \
    static void sum_inner_##SUF(const char *x, int64_t n, int64_t s, void *acc)                    \
    {                                                                                              \
        T r = s != (int64_t)sizeof(T) ? sum_strided_##SUF(x, n, s)                                 \
              : n < LANES               ? sum_short_##SUF((const T *)x, n)                         \
                                        : sum_pairwise_##SUF((const T *)x, n);                     \
        *(T *)acc += r;                                                                            \
    }                                                                                              \
    static void sum_rows_##SUF(const char *x, int64_t rows, int64_t n, int64_t xs, char *out,      \
                               int64_t os)                                                         \
    {                                                                                              \
        for (int64_t r = 0; r < rows; r++) {                                                       \
            const T *v = (const T *)(x + r * xs);                                                  \
            *(T *)(out + r * os) = n < LANES ? sum_short_##SUF(v, n) : sum_pairwise_##SUF(v, n);   \
        }                                                                                          \
    }                                                                                              \
    static void sum_outer_##SUF(void *acc, const char *x, int64_t k, int64_t s)                    \
    {                                                                                              \
        T *a = acc;                                                                                \
        if (s == (int64_t)sizeof(T)) {                                                             \
            const T *v = (const T *)x;                                                             \
            PT_IVDEP for (int64_t j = 0; j < k; j++) a[j] += v[j];                                 \
        } else {                                                                                   \
            for (int64_t j = 0; j < k; j++) a[j] += *(const T *)(x + j * s);                       \
        }                                                                                          \
    }                                                                                              \
    static void sum_combine_##SUF(void *acc, const void *other, int64_t k)                         \
    {                                                                                              \
        T *a = acc;                                                                                \
        const T *b = other;                                                                        \
        PT_IVDEP for (int64_t j = 0; j < k; j++) a[j] += b[j];                                     \
    }
PT_SUM_REAL(f4, float)
PT_SUM_REAL(f8, double)

/* int64 sums are exact (mod 2^64) in any order: lanes without the pairwise split. */
static void sum_inner_i8(const char *x, int64_t n, int64_t s, void *acc)
{
    uint64_t r = 0;
    if (s == 8) {
        const uint64_t *v = (const uint64_t *)x;
        uint64_t a[16] = {0};
        int64_t i = 0;
        for (; i + 16 <= n; i += 16)
            for (int j = 0; j < 16; j++) a[j] += v[i + j];
        for (; i < n; i++) r += v[i];
        for (int j = 0; j < 16; j++) r += a[j];
    } else {
        for (int64_t i = 0; i < n; i++) r += *(const uint64_t *)(x + i * s);
    }
    *(uint64_t *)acc += r;
}

static void sum_outer_i8(void *acc, const char *x, int64_t k, int64_t s)
{
    uint64_t *a = acc;
    if (s == 8) {
        const uint64_t *v = (const uint64_t *)x;
        PT_IVDEP for (int64_t j = 0; j < k; j++) a[j] += v[j];
    } else {
        for (int64_t j = 0; j < k; j++) a[j] += *(const uint64_t *)(x + j * s);
    }
}

static void sum_combine_i8(void *acc, const void *other, int64_t k)
{
    uint64_t *a = acc;
    const uint64_t *b = other;
    PT_IVDEP for (int64_t j = 0; j < k; j++) a[j] += b[j];
}

/* Complex sums: the real and imaginary parts are two interleaved real sums; with an even lane
 * count, even lanes hold real parts and odd lanes imaginary ones, so the real loops serve. */
#define PT_SUM_COMPLEX(SUF, C, T, R)                                                               \
    static void sum_inner_##SUF(const char *x, int64_t n, int64_t s, void *acc)                    \
    {                                                                                              \
        C *a = acc;                                                                                \
        if (s == (int64_t)sizeof(C)) {                                                             \
            T re = 0, im = 0;                                                                      \
            for (int64_t done = 0; done < n; done += PAIR_BLOCK / 2) {                             \
                const int64_t m = n - done < PAIR_BLOCK / 2 ? n - done : PAIR_BLOCK / 2;           \
                C part = sum_block2_##SUF((const T *)(x + done * s), 2 * m);                       \
                re += part.re;                                                                     \
                im += part.im;                                                                     \
            }                                                                                      \
            a->re += re;                                                                           \
            a->im += im;                                                                           \
            return;                                                                                \
        }                                                                                          \
        a->re += sum_strided_##R(x, n, s);                                                         \
        a->im += sum_strided_##R(x + sizeof(T), n, s);                                             \
    }                                                                                              \
    static void sum_outer_##SUF(void *acc, const char *x, int64_t k, int64_t s)                    \
    {                                                                                              \
        C *a = acc;                                                                                \
        for (int64_t j = 0; j < k; j++) {                                                          \
            const C v = *(const C *)(x + j * s);                                                   \
            a[j].re += v.re;                                                                       \
            a[j].im += v.im;                                                                       \
        }                                                                                          \
    }                                                                                              \
    static void sum_combine_##SUF(void *acc, const void *other, int64_t k)                         \
    {                                                                                              \
        sum_combine_##R(acc, other, 2 * k);                                                        \
    }

/* The interleaved block sum: n reals (even), returned as (even lanes, odd lanes). */
#define PT_SUM_BLOCK2(SUF, C, T)                                                                   \
    static C sum_block2_##SUF(const T *x, int64_t n)                                               \
    {                                                                                              \
        T a[LANES] = {0};                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) a[j] += x[i + j];                                      \
        for (int j = 0; i < n; i++, j++) a[j] += x[i];                                             \
        for (int w = LANES / 2; w > 1; w /= 2)                                                     \
            for (int j = 0; j < w; j++) a[j] += a[j + w];                                          \
        return (C){a[0], a[1]};                                                                    \
    }
PT_SUM_BLOCK2(c4, c64, float)
PT_SUM_BLOCK2(c8, c128, double)
PT_SUM_COMPLEX(c4, c64, float, f4)
PT_SUM_COMPLEX(c8, c128, double, f8)

/* ---------------------------------------------------------------- products */

#define PT_PROD_LOOPS(SUF, T, W, ONE)                                                              \
    static void prod_inner_##SUF(const char *x, int64_t n, int64_t s, void *acc)                   \
    {                                                                                              \
        W r = (W)ONE;                                                                              \
        for (int64_t i = 0; i < n; i++) r = (W)(r * (W) * (const T *)(x + i * s));                 \
        *(T *)acc = (T)((W) * (T *)acc * r);                                                       \
    }                                                                                              \
    static void prod_outer_##SUF(void *acc, const char *x, int64_t k, int64_t s)                   \
    {                                                                                              \
        T *a = acc;                                                                                \
        for (int64_t j = 0; j < k; j++) a[j] = (T)((W)a[j] * (W) * (const T *)(x + j * s));        \
    }                                                                                              \
    static void prod_combine_##SUF(void *acc, const void *other, int64_t k)                        \
    {                                                                                              \
        T *a = acc;                                                                                \
        const T *b = other;                                                                        \
        for (int64_t j = 0; j < k; j++) a[j] = (T)((W)a[j] * (W)b[j]);                             \
    }
PT_PROD_LOOPS(i8, int64_t, uint64_t, 1)
PT_PROD_LOOPS(f4, float, float, 1)
PT_PROD_LOOPS(f8, double, double, 1)

#define PT_CMUL(T, P, Q) ((T){(P).re * (Q).re - (P).im * (Q).im, (P).re * (Q).im + (P).im * (Q).re})
#define PT_PROD_COMPLEX(SUF, C)                                                                    \
    static void prod_inner_##SUF(const char *x, int64_t n, int64_t s, void *acc)                   \
    {                                                                                              \
        C r = *(C *)acc;                                                                           \
        for (int64_t i = 0; i < n; i++) r = PT_CMUL(C, r, *(const C *)(x + i * s));                \
        *(C *)acc = r;                                                                             \
    }                                                                                              \
    static void prod_outer_##SUF(void *acc, const char *x, int64_t k, int64_t s)                   \
    {                                                                                              \
        C *a = acc;                                                                                \
        for (int64_t j = 0; j < k; j++) a[j] = PT_CMUL(C, a[j], *(const C *)(x + j * s));          \
    }                                                                                              \
    static void prod_combine_##SUF(void *acc, const void *other, int64_t k)                        \
    {                                                                                              \
        C *a = acc;                                                                                \
        const C *b = other;                                                                        \
        for (int64_t j = 0; j < k; j++) a[j] = PT_CMUL(C, a[j], b[j]);                             \
    }
PT_PROD_COMPLEX(c4, c64)
PT_PROD_COMPLEX(c8, c128)

/* ---------------------------------------------------------------- max and min
 * BETTER(x, a) says x replaces a; the NaN flag is or-ed separately (ISNAN is 0 for integers), and
 * a NaN accumulator stays NaN in combines because no comparison with it is true. */
#define PT_MAXMIN_LOOPS(NAME, SUF, T, BETTER, ISNAN, NANV)                                            \
    static void NAME##_inner_##SUF(const char *x, int64_t n, int64_t s, void *acc)                 \
    {                                                                                              \
        T *r = acc;                                                                                \
        T best = *r;                                                                               \
        int nan = ISNAN(best);                                                                     \
        if (s == (int64_t)sizeof(T) && n >= LANES) {                                               \
            const T *v = (const T *)x;                                                             \
            T a[LANES];                                                                            \
            int flag[LANES];                                                                       \
            for (int j = 0; j < LANES; j++) {                                                      \
                a[j] = best;                                                                       \
                flag[j] = 0;                                                                       \
            }                                                                                      \
            int64_t i = 0;                                                                         \
            for (; i + LANES <= n; i += LANES)                                                     \
                for (int j = 0; j < LANES; j++) {                                                  \
                    const T e = v[i + j];                                                          \
                    a[j] = BETTER(e, a[j]) ? e : a[j];                                             \
                    flag[j] |= ISNAN(e);                                                           \
                }                                                                                  \
            for (int j = 0; j < LANES; j++) {                                                      \
                best = BETTER(a[j], best) ? a[j] : best;                                           \
                nan |= flag[j];                                                                    \
            }                                                                                      \
            x += i * s;                                                                            \
            n -= i;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T e = *(const T *)(x + i * s);                                                   \
            best = BETTER(e, best) ? e : best;                                                     \
            nan |= ISNAN(e);                                                                       \
        }                                                                                          \
        *r = nan ? NANV : best;                                                                     \
    }                                                                                              \
    static void NAME##_outer_##SUF(void *acc, const char *x, int64_t k, int64_t s)                 \
    {                                                                                              \
        T *a = acc;                                                                                \
        if (s == (int64_t)sizeof(T)) {                                                             \
            const T *v = (const T *)x;                                                             \
            PT_IVDEP for (int64_t j = 0; j < k; j++) a[j] =                                        \
                (BETTER(v[j], a[j]) || ISNAN(v[j])) ? v[j] : a[j];                                 \
        } else {                                                                                   \
            for (int64_t j = 0; j < k; j++) {                                                      \
                const T e = *(const T *)(x + j * s);                                               \
                a[j] = (BETTER(e, a[j]) || ISNAN(e)) ? e : a[j];                                   \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_combine_##SUF(void *acc, const void *other, int64_t k)                      \
    {                                                                                              \
        NAME##_outer_##SUF(acc, other, k, (int64_t)sizeof(T));                                     \
    }

#define PT_GT(x, a) ((x) > (a))
#define PT_LT(x, a) ((x) < (a))
#define PT_ISNAN_F(x) ((x) != (x))
#define PT_ISNAN_I(x) 0
#define PT_MAXMIN_TYPE(SUF, T, ISNAN, NANV)                                                        \
    PT_MAXMIN_LOOPS(max, SUF, T, PT_GT, ISNAN, NANV)                                               \
    PT_MAXMIN_LOOPS(min, SUF, T, PT_LT, ISNAN, NANV)
PT_MAXMIN_TYPE(u1, uint8_t, PT_ISNAN_I, 0)
PT_MAXMIN_TYPE(i1, int8_t, PT_ISNAN_I, 0)
PT_MAXMIN_TYPE(i2, int16_t, PT_ISNAN_I, 0)
PT_MAXMIN_TYPE(i4, int32_t, PT_ISNAN_I, 0)
PT_MAXMIN_TYPE(i8, int64_t, PT_ISNAN_I, 0)
PT_MAXMIN_TYPE(f4, float, PT_ISNAN_F, NAN)
PT_MAXMIN_TYPE(f8, double, PT_ISNAN_F, NAN)

/* ---------------------------------------------------------------- argmax and argmin */

/* A contiguous row is read twice instead of once through a branch per element: a vectorized
 * pass finds the extreme (and whether there is a nan), a second stops at its first occurrence
 * (torch's index: the first extreme, or the first nan); about 3x faster on float32 rows. */
enum { ARG_LANES = LANES }; /* 64: fewer and the compiler unrolls the lanes instead of vectorizing them */
#define PT_ARG_LOOP(NAME, SUF, T, BETTER, ISNAN)                                                   \
    static int64_t NAME##_##SUF##_dense(const T *v, int64_t n)                                     \
    {                                                                                              \
        /* u keeps a nan once one is seen: a select of T like m's, so both vectorize together. */ \
        T m[ARG_LANES], u[ARG_LANES];                                                              \
        for (int j = 0; j < ARG_LANES; j++) {                                                      \
            m[j] = v[0];                                                                           \
            u[j] = 0;                                                                              \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + ARG_LANES <= n; i += ARG_LANES)                                                 \
            for (int j = 0; j < ARG_LANES; j++) {                                                  \
                const T e = v[i + j];                                                              \
                m[j] = BETTER(e, m[j]) ? e : m[j];                                                 \
                u[j] = ISNAN(e) ? e : u[j];                                                        \
            }                                                                                      \
        for (; i < n; i++) {                                                                       \
            m[0] = BETTER(v[i], m[0]) ? v[i] : m[0];                                               \
            u[0] = ISNAN(v[i]) ? v[i] : u[0];                                                      \
        }                                                                                          \
        T best = m[0];                                                                             \
        int any_nan = ISNAN(u[0]);                                                                 \
        for (int j = 1; j < ARG_LANES; j++) {                                                      \
            best = BETTER(m[j], best) ? m[j] : best;                                               \
            any_nan |= ISNAN(u[j]);                                                                \
        }                                                                                          \
        for (i = 0; i < n; i++)                                                                    \
            if (any_nan ? ISNAN(v[i]) : v[i] == best) return i;                                    \
        return 0;                                                                                  \
    }                                                                                              \
    static int64_t NAME##_##SUF(const char *x, int64_t n, int64_t s)                               \
    {                                                                                              \
        if (s == (int64_t)sizeof(T) && n >= 4 * ARG_LANES)                                         \
            return NAME##_##SUF##_dense((const T *)x, n);                                          \
        T best = *(const T *)x;                                                                    \
        if (ISNAN(best)) return 0;                                                                 \
        int64_t at = 0;                                                                            \
        for (int64_t i = 1; i < n; i++) {                                                          \
            const T e = *(const T *)(x + i * s);                                                   \
            if (ISNAN(e)) return i;                                                                \
            if (BETTER(e, best)) {                                                                 \
                best = e;                                                                          \
                at = i;                                                                            \
            }                                                                                      \
        }                                                                                          \
        return at;                                                                                 \
    }
#define PT_ARG_TYPE(SUF, T, ISNAN)                                                                 \
    PT_ARG_LOOP(argmax, SUF, T, PT_GT, ISNAN)                                                      \
    PT_ARG_LOOP(argmin, SUF, T, PT_LT, ISNAN)
PT_ARG_TYPE(i8, int64_t, PT_ISNAN_I)
PT_ARG_TYPE(f4, float, PT_ISNAN_F)
PT_ARG_TYPE(f8, double, PT_ISNAN_F)

/* ---------------------------------------------------------------- scans
 * torch accumulates float32 scans in double on the CPU (its acc_type) and rounds each output. */
#define PT_SCAN_REAL(SUF, T, A, W)                                                                 \
    static void cumsum_##SUF(char *o, int64_t os, const char *x, int64_t xs, int64_t n)            \
    {                                                                                              \
        A r = 0;                                                                                   \
        for (int64_t i = 0; i < n; i++) {                                                          \
            r = (A)((W)r + (W) * (const T *)(x + i * xs));                                         \
            *(T *)(o + i * os) = (T)r;                                                             \
        }                                                                                          \
    }                                                                                              \
    static void cumprod_##SUF(char *o, int64_t os, const char *x, int64_t xs, int64_t n)           \
    {                                                                                              \
        A r = 1;                                                                                   \
        for (int64_t i = 0; i < n; i++) {                                                          \
            r = (A)((W)r * (W) * (const T *)(x + i * xs));                                         \
            *(T *)(o + i * os) = (T)r;                                                             \
        }                                                                                          \
    }
PT_SCAN_REAL(i8, int64_t, uint64_t, uint64_t)
PT_SCAN_REAL(f4, float, double, double)
PT_SCAN_REAL(f8, double, double, double)

#define PT_SCAN_COMPLEX(SUF, C, A)                                                                 \
    static void cumsum_##SUF(char *o, int64_t os, const char *x, int64_t xs, int64_t n)            \
    {                                                                                              \
        A r = {0, 0};                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const C v = *(const C *)(x + i * xs);                                                  \
            r.re += v.re;                                                                          \
            r.im += v.im;                                                                          \
            *(C *)(o + i * os) = (C){r.re, r.im};                                                  \
        }                                                                                          \
    }                                                                                              \
    static void cumprod_##SUF(char *o, int64_t os, const char *x, int64_t xs, int64_t n)           \
    {                                                                                              \
        A r = {1, 0};                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const C v = *(const C *)(x + i * xs);                                                  \
            const A w = {v.re, v.im};                                                              \
            r = PT_CMUL(A, r, w);                                                                  \
            *(C *)(o + i * os) = (C){r.re, r.im};                                                  \
        }                                                                                          \
    }
PT_SCAN_COMPLEX(c4, c64, c128)
PT_SCAN_COMPLEX(c8, c128, c128)

/* ---------------------------------------------------------------- maps
 * EXP_N(r, v, n) writes exp of n elements: vec_math_simd.h's array form for float32 (logsumexp's
 * sum(exp(x - max)) runs at its speed), libm's exp per element for float64. */
static void exp_n_f8(double *r, const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) r[i] = exp(v[i]);
}
#define EXP_N_F4(r, v, n) pt_map_expf((r), (v), (n), 0.0f)
#define EXP_N_F8(r, v, n) exp_n_f8((r), (v), (n))

#define PT_MAP_REAL(SUF, T, ABS, POW, EXP_N, LOG, SQRT)                                            \
    static void abs_##SUF(void *o, const void *x, int64_t n, double p)                             \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        T *r = o;                                                                                  \
        const T *v = x;                                                                            \
        PT_IVDEP for (int64_t i = 0; i < n; i++) r[i] = ABS(v[i]);                                 \
    }                                                                                              \
    static void abs2_##SUF(void *o, const void *x, int64_t n, double p)                            \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        T *r = o;                                                                                  \
        const T *v = x;                                                                            \
        PT_IVDEP for (int64_t i = 0; i < n; i++) r[i] = v[i] * v[i];                               \
    }                                                                                              \
    static void powabs_##SUF(void *o, const void *x, int64_t n, double p)                          \
    {                                                                                              \
        T *r = o;                                                                                  \
        const T *v = x;                                                                            \
        for (int64_t i = 0; i < n; i++) r[i] = POW(ABS(v[i]), (T)p);                               \
    }                                                                                              \
    static void nonzero_##SUF(void *o, const void *x, int64_t n, double p)                         \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        T *r = o;                                                                                  \
        const T *v = x;                                                                            \
        PT_IVDEP for (int64_t i = 0; i < n; i++) r[i] = v[i] != 0 ? (T)1 : (T)0;                   \
    }                                                                                              \
    static void exp_##SUF(void *o, const void *x, int64_t n, double p)                             \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        EXP_N((T *)o, (const T *)x, n);                                                            \
    }                                                                                              \
    static void log_##SUF(void *o, const void *x, int64_t n, double p)                             \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        T *r = o;                                                                                  \
        const T *v = x;                                                                            \
        for (int64_t i = 0; i < n; i++) r[i] = LOG(v[i]);                                          \
    }                                                                                              \
    static void pow_##SUF(void *o, const void *x, int64_t n, double p)                             \
    {                                                                                              \
        T *r = o;                                                                                  \
        const T *v = x;                                                                            \
        for (int64_t i = 0; i < n; i++) r[i] = POW(v[i], (T)p);                                    \
    }                                                                                              \
    static void sqrt_##SUF(void *o, const void *x, int64_t n, double p)                            \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        T *r = o;                                                                                  \
        const T *v = x;                                                                            \
        PT_IVDEP for (int64_t i = 0; i < n; i++) r[i] = SQRT(v[i]);                                \
    }
PT_MAP_REAL(f4, float, fabsf, powf, EXP_N_F4, logf, sqrtf)
PT_MAP_REAL(f8, double, fabs, pow, EXP_N_F8, log, sqrt)

#define PT_MAP_COMPLEX(SUF, C, T, HYPOT, POW)                                                      \
    static void abs_##SUF(void *o, const void *x, int64_t n, double p)                             \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        T *r = o;                                                                                  \
        const C *v = x;                                                                            \
        for (int64_t i = 0; i < n; i++) r[i] = HYPOT(v[i].re, v[i].im);                            \
    }                                                                                              \
    static void abs2_##SUF(void *o, const void *x, int64_t n, double p)                            \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        T *r = o;                                                                                  \
        const C *v = x;                                                                            \
        for (int64_t i = 0; i < n; i++) r[i] = v[i].re * v[i].re + v[i].im * v[i].im;              \
    }                                                                                              \
    static void powabs_##SUF(void *o, const void *x, int64_t n, double p)                          \
    {                                                                                              \
        T *r = o;                                                                                  \
        const C *v = x;                                                                            \
        for (int64_t i = 0; i < n; i++) r[i] = POW(HYPOT(v[i].re, v[i].im), (T)p);                 \
    }                                                                                              \
    static void nonzero_##SUF(void *o, const void *x, int64_t n, double p)                         \
    {                                                                                              \
        PT_UNUSED(p);                                                                              \
        T *r = o;                                                                                  \
        const C *v = x;                                                                            \
        for (int64_t i = 0; i < n; i++) r[i] = (v[i].re != 0 || v[i].im != 0) ? (T)1 : (T)0;       \
    }
PT_MAP_COMPLEX(c4, c64, float, hypotf, powf)
PT_MAP_COMPLEX(c8, c128, double, hypot, pow)

/* ---------------------------------------------------------------- the table */

#define PT_SUMPROD_ROW(KIND)                                                                       \
    {                                                                                              \
        [PT_INT64] = KIND##_i8, [PT_FLOAT32] = KIND##_f4, [PT_FLOAT64] = KIND##_f8,                \
        [PT_COMPLEX64] = KIND##_c4, [PT_COMPLEX128] = KIND##_c8,                                   \
    }
#define PT_MAXMIN_ROW(KIND)                                                                        \
    {                                                                                              \
        [PT_BOOL] = KIND##_u1, [PT_UINT8] = KIND##_u1, [PT_INT8] = KIND##_i1,                      \
        [PT_INT16] = KIND##_i2, [PT_INT32] = KIND##_i4, [PT_INT64] = KIND##_i8,                    \
        [PT_FLOAT32] = KIND##_f4, [PT_FLOAT64] = KIND##_f8,                                        \
    }
#define PT_REAL_ROW(KIND) {[PT_FLOAT32] = KIND##_f4, [PT_FLOAT64] = KIND##_f8}
#define PT_ANY_ROW(KIND)                                                                           \
    {                                                                                              \
        [PT_FLOAT32] = KIND##_f4, [PT_FLOAT64] = KIND##_f8, [PT_COMPLEX64] = KIND##_c4,            \
        [PT_COMPLEX128] = KIND##_c8,                                                               \
    }

PT_CPU_KERNELS_DEFINE(reduce, pt_reduce_table) = {
    .inner = {[PT_RED_SUM] = PT_SUMPROD_ROW(sum_inner), [PT_RED_PROD] = PT_SUMPROD_ROW(prod_inner),
              [PT_RED_MAX] = PT_MAXMIN_ROW(max_inner), [PT_RED_MIN] = PT_MAXMIN_ROW(min_inner)},
    .outer = {[PT_RED_SUM] = PT_SUMPROD_ROW(sum_outer), [PT_RED_PROD] = PT_SUMPROD_ROW(prod_outer),
              [PT_RED_MAX] = PT_MAXMIN_ROW(max_outer), [PT_RED_MIN] = PT_MAXMIN_ROW(min_outer)},
    .combine = {[PT_RED_SUM] = PT_SUMPROD_ROW(sum_combine),
                [PT_RED_PROD] = PT_SUMPROD_ROW(prod_combine),
                [PT_RED_MAX] = PT_MAXMIN_ROW(max_combine),
                [PT_RED_MIN] = PT_MAXMIN_ROW(min_combine)},
    .arg = {[PT_RED_ARG_MAX] = {[PT_INT64] = argmax_i8, [PT_FLOAT32] = argmax_f4,
                                [PT_FLOAT64] = argmax_f8},
            [PT_RED_ARG_MIN] = {[PT_INT64] = argmin_i8, [PT_FLOAT32] = argmin_f4,
                                [PT_FLOAT64] = argmin_f8}},
    .scan = {[PT_RED_SCAN_SUM] = PT_SUMPROD_ROW(cumsum), [PT_RED_SCAN_PROD] = PT_SUMPROD_ROW(cumprod)},
    .map = {[PT_RED_MAP_ABS] = PT_ANY_ROW(abs), [PT_RED_MAP_ABS2] = PT_ANY_ROW(abs2),
            [PT_RED_MAP_POWABS] = PT_ANY_ROW(powabs), [PT_RED_MAP_NONZERO] = PT_ANY_ROW(nonzero),
            [PT_RED_MAP_EXP] = PT_REAL_ROW(exp), [PT_RED_MAP_LOG] = PT_REAL_ROW(log),
            [PT_RED_MAP_POW] = PT_REAL_ROW(pow), [PT_RED_MAP_SQRT] = PT_REAL_ROW(sqrt)},
    .sum_rows = PT_REAL_ROW(sum_rows),
};
