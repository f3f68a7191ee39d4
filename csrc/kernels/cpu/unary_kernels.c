/* unary_kernels.c - the inner loops of the unary family (math functions, rounding, predicates,
 * activations, clamp and where), compiled once per CPU capability (cpu_kernel.h); unary.c and
 * activation.c run them through the iterator.
 *
 * Every loop has NumPy's (data, byte strides, n) form and a contiguous path that the compiler
 * vectorizes for the capability's instruction set. The float32 transcendental functions come
 * from vec_math.h (branch-free, so they vectorize; Note [vec_math accuracy]), exp, sigmoid, tanh
 * and the activations built on them from vec_math_simd.h's array forms (Note [vector exp]);
 * float64 calls libm
 * per element; complex types use C's <complex.h> (with torch's formulas where C has none). The
 * loops of several inputs (clamp with tensor bounds, where) add a path for bounds broadcast from
 * one element, the shape `clamp(x, 0, 6)` takes after the iterator converted its scalars once.
 */
#include "cpu_kernel.h"

#include <complex.h>
#include <math.h>

#include "unary.h"
#include "vec_math.h"
#include "vec_math_simd.h"

typedef float _Complex c64;
typedef double _Complex c128;

/* One loop: EXPR computes the output from x, an element of type TI; P is the params. */
#define UNARY_LOOP(NAME, TI, TO, EXPR)                                                             \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        const pt_unary_params *P = ctx;                                                            \
        PT_UNUSED(P);                                                                              \
        char *o = data[0];                                                                         \
        const char *a = data[1];                                                                   \
        if (s[0] == (int64_t)sizeof(TO) && s[1] == (int64_t)sizeof(TI)) {                          \
            TO *ov = (TO *)o;                                                                      \
            const TI *av = (const TI *)a;                                                          \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const TI x = av[i];                                                                \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const TI x = *(const TI *)(a + i * s[1]);                                          \
                *(TO *)(o + i * s[0]) = EXPR;                                                      \
            }                                                                                      \
        }                                                                                          \
    }

/* A float32 loop through an array form of vec_math_simd.h: contiguous runs directly, strided
 * ones through a block buffer, so that every element takes the same vector code. */
enum { MAP_BLOCK = 256 };
#define MAP_LOOP(NAME, MAP)                                                                        \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        PT_UNUSED(ctx);                                                                            \
        if (s[0] == (int64_t)sizeof(float) && s[1] == (int64_t)sizeof(float)) {                    \
            MAP((float *)data[0], (const float *)data[1], n, 0.0f);                                \
            return;                                                                                \
        }                                                                                          \
        float buf[MAP_BLOCK];                                                                      \
        for (int64_t b = 0; b < n; b += MAP_BLOCK) {                                               \
            const int64_t len = n - b < MAP_BLOCK ? n - b : MAP_BLOCK;                             \
            const char *a = data[1] + b * s[1];                                                    \
            char *o = data[0] + b * s[0];                                                          \
            for (int64_t i = 0; i < len; i++) buf[i] = *(const float *)(a + i * s[1]);             \
            MAP(buf, buf, len, 0.0f);                                                              \
            for (int64_t i = 0; i < len; i++) *(float *)(o + i * s[0]) = buf[i];                   \
        }                                                                                          \
    }

/* A loop whose EXPR reads p0, p1, p2: the params' values in the loop dtype T, read once. */
#define PARAM_LOOP(NAME, T, EXPR)                                                                  \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        const pt_unary_params *P = ctx;                                                            \
        const T p0 = *(const T *)P->v[0].bytes, p1 = *(const T *)P->v[1].bytes,                    \
                p2 = *(const T *)P->v[2].bytes;                                                    \
        PT_UNUSED(p0);                                                                             \
        PT_UNUSED(p1);                                                                             \
        PT_UNUSED(p2);                                                                             \
        char *o = data[0];                                                                         \
        const char *a = data[1];                                                                   \
        if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) {                            \
            T *ov = (T *)o;                                                                        \
            const T *av = (const T *)a;                                                            \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T x = av[i];                                                                 \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const T x = *(const T *)(a + i * s[1]);                                            \
                *(T *)(o + i * s[0]) = EXPR;                                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* ---------------------------------------------------------------- sin, cos, tan (float32)
 * vec_math's reduction holds for |x| < PT_VTRIG_LIMIT; blocks of 64 that contain a larger
 * argument (or inf, nan) go to libm instead, decided by one OR over the block's bits. */
enum { TRIG_BLOCK = 64 };
#define TRIG_LOOP(NAME, VEC, LIBM)                                                                 \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        PT_UNUSED(ctx);                                                                            \
        const uint32_t limit = pt_bits_of(PT_VTRIG_LIMIT);                                             \
        if (s[0] == 4 && s[1] == 4) {                                                              \
            float *ov = (float *)data[0];                                                          \
            const float *av = (const float *)data[1];                                              \
            for (int64_t b = 0; b < n; b += TRIG_BLOCK) {                                          \
                const int64_t m = n - b < TRIG_BLOCK ? n - b : TRIG_BLOCK;                         \
                uint32_t big = 0;                                                                  \
                for (int64_t i = 0; i < m; i++) big |= (pt_bits_of(av[b + i]) & 0x7fffffffu) >= limit; \
                if (big) {                                                                         \
                    for (int64_t i = 0; i < m; i++) ov[b + i] = LIBM(av[b + i]);                   \
                    continue;                                                                      \
                }                                                                                  \
                PT_IVDEP for (int64_t i = 0; i < m; i++) ov[b + i] = VEC(av[b + i]);               \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const float x = *(const float *)(data[1] + i * s[1]);                                  \
            *(float *)(data[0] + i * s[0]) = fabsf(x) < PT_VTRIG_LIMIT ? VEC(x) : LIBM(x);         \
        }                                                                                          \
    }
TRIG_LOOP(sin_f4, pt_vsinf, sinf)
TRIG_LOOP(cos_f4, pt_vcosf, cosf)
TRIG_LOOP(tan_f4, pt_vtanf, tanf)

/* ---------------------------------------------------------------- integers */
/* W: the unsigned type of T's width for wrapping arithmetic (at least unsigned int). */
#define INT_LOOPS(SUF, T, W)                                                                       \
    UNARY_LOOP(abs_##SUF, T, T, (T)(x < 0 ? (W)0 - (W)x : (W)x))                                   \
    UNARY_LOOP(neg_##SUF, T, T, (T)((W)0 - (W)x))                                                  \
    UNARY_LOOP(sign_##SUF, T, T, (T)((x > 0) - (x < 0)))                                           \
    UNARY_LOOP(relu_##SUF, T, T, (T)(x < 0 ? 0 : x))                                               \
    UNARY_LOOP(copy_##SUF, T, T, x)                                                                \
    UNARY_LOOP(not_##SUF, T, uint8_t, (uint8_t)(x == 0))                                           \
    UNARY_LOOP(false_##SUF, T, uint8_t, (uint8_t)((void)x, 0))                                     \
    UNARY_LOOP(true_##SUF, T, uint8_t, (uint8_t)((void)x, 1))                                      \
    PARAM_LOOP(threshold_##SUF, T, x <= p0 ? p1 : x)
INT_LOOPS(i8, int8_t, unsigned)
INT_LOOPS(i16, int16_t, unsigned)
INT_LOOPS(i32, int32_t, uint32_t)
INT_LOOPS(i64, int64_t, uint64_t)
/* uint8: no negative values (and no comparison with 0 that the compiler would call pointless). */
UNARY_LOOP(abs_u8, uint8_t, uint8_t, x)
UNARY_LOOP(neg_u8, uint8_t, uint8_t, (uint8_t)(0u - x))
UNARY_LOOP(sign_u8, uint8_t, uint8_t, (uint8_t)(x != 0))
UNARY_LOOP(relu_u8, uint8_t, uint8_t, x)
UNARY_LOOP(copy_u8, uint8_t, uint8_t, x)
UNARY_LOOP(not_u8, uint8_t, uint8_t, (uint8_t)(x == 0))
UNARY_LOOP(false_u8, uint8_t, uint8_t, (uint8_t)((void)x, 0))
UNARY_LOOP(true_u8, uint8_t, uint8_t, (uint8_t)((void)x, 1))
PARAM_LOOP(threshold_u8, uint8_t, x <= p0 ? p1 : x)
/* Bool: any nonzero byte is true. */
UNARY_LOOP(sign_b1, uint8_t, uint8_t, (uint8_t)(x != 0))
UNARY_LOOP(not_b1, uint8_t, uint8_t, (uint8_t)(x == 0))

/* ---------------------------------------------------------------- floating point */
/* torch's sign: (0 < x) - (x < 0), so sign(-0.0) = 0.0 and sign(nan) = 0. */
#define PT_SIGN(T, x) ((T)((T)0 < (x)) - (T)((x) < (T)0))
/* nan_to_num: p0 for nan, p1 for +inf, p2 for -inf. */
#define PT_NAN_TO_NUM(x, INF) ((x) != (x) ? p0 : (x) == (INF) ? p1 : (x) == -(INF) ? p2 : (x))

#define FLOAT_COMMON_LOOPS(SUF, T, ABS, TRUNC, CEIL, FLOOR, RINT, SQRT)                            \
    UNARY_LOOP(abs_##SUF, T, T, ABS(x))                                                            \
    UNARY_LOOP(neg_##SUF, T, T, -x)                                                                \
    UNARY_LOOP(reciprocal_##SUF, T, T, (T)1 / x)                                                   \
    UNARY_LOOP(frac_##SUF, T, T, x - TRUNC(x))                                                     \
    UNARY_LOOP(sign_##SUF, T, T, PT_SIGN(T, x))                                                    \
    UNARY_LOOP(ceil_##SUF, T, T, CEIL(x))                                                          \
    UNARY_LOOP(floor_##SUF, T, T, FLOOR(x))                                                        \
    UNARY_LOOP(round_##SUF, T, T, RINT(x))                                                         \
    UNARY_LOOP(trunc_##SUF, T, T, TRUNC(x))                                                        \
    UNARY_LOOP(rsqrt_##SUF, T, T, (T)1 / SQRT(x))                                                  \
    UNARY_LOOP(sqrt_##SUF, T, T, SQRT(x))                                                          \
    UNARY_LOOP(relu_##SUF, T, T, x < (T)0 ? (T)0 : x)                                              \
    UNARY_LOOP(not_##SUF, T, uint8_t, (uint8_t)(x == (T)0))                                        \
    UNARY_LOOP(isnan_##SUF, T, uint8_t, (uint8_t)(x != x))                                         \
    UNARY_LOOP(isinf_##SUF, T, uint8_t, (uint8_t)(ABS(x) == (T)INFINITY))                          \
    UNARY_LOOP(isfinite_##SUF, T, uint8_t, (uint8_t)(ABS(x) < (T)INFINITY))                        \
    PARAM_LOOP(round_decimals_##SUF, T, P->i ? RINT(x / p0) * p0 : RINT(x * p0) / p0)              \
    PARAM_LOOP(nan_to_num_##SUF, T, PT_NAN_TO_NUM(x, (T)INFINITY))                                 \
    PARAM_LOOP(threshold_##SUF, T, x <= p0 ? p1 : x)

FLOAT_COMMON_LOOPS(f4, float, fabsf, truncf, ceilf, floorf, rintf, sqrtf)
FLOAT_COMMON_LOOPS(f8, double, fabs, trunc, ceil, floor, rint, sqrt)

/* float32: vec_math where it has the function, libm per element for the inverse trigonometric
 * functions. */
UNARY_LOOP(acos_f4, float, float, acosf(x))
UNARY_LOOP(asin_f4, float, float, asinf(x))
UNARY_LOOP(atan_f4, float, float, atanf(x))
UNARY_LOOP(cosh_f4, float, float, pt_vcoshf(x))
UNARY_LOOP(sinh_f4, float, float, pt_vsinhf(x))
MAP_LOOP(tanh_f4, pt_map_tanhf)
UNARY_LOOP(erf_f4, float, float, pt_verff(x))
UNARY_LOOP(erfc_f4, float, float, pt_verfcf(x))
MAP_LOOP(exp_f4, pt_map_expf)
UNARY_LOOP(exp2_f4, float, float, pt_vexp2f(x))
UNARY_LOOP(expm1_f4, float, float, pt_vexpm1f(x))
UNARY_LOOP(log_f4, float, float, pt_vlogf(x))
UNARY_LOOP(log10_f4, float, float, pt_vlog10f(x))
UNARY_LOOP(log1p_f4, float, float, pt_vlog1pf(x))
UNARY_LOOP(log2_f4, float, float, pt_vlog2f(x))
MAP_LOOP(sigmoid_f4, pt_map_sigmoidf)
MAP_LOOP(silu_f4, pt_map_siluf)
MAP_LOOP(gelu_f4, pt_map_geluf)
MAP_LOOP(gelu_tanh_f4, pt_map_gelu_tanhf)

/* float64: libm. */
static inline double sigmoid_d(double x)
{
    const double e = exp(-fabs(x)), s = 1.0 / (1.0 + e);
    return x >= 0.0 ? s : e * s;
}
UNARY_LOOP(acos_f8, double, double, acos(x))
UNARY_LOOP(asin_f8, double, double, asin(x))
UNARY_LOOP(atan_f8, double, double, atan(x))
UNARY_LOOP(cos_f8, double, double, cos(x))
UNARY_LOOP(cosh_f8, double, double, cosh(x))
UNARY_LOOP(sin_f8, double, double, sin(x))
UNARY_LOOP(sinh_f8, double, double, sinh(x))
UNARY_LOOP(tan_f8, double, double, tan(x))
UNARY_LOOP(tanh_f8, double, double, tanh(x))
UNARY_LOOP(erf_f8, double, double, erf(x))
UNARY_LOOP(erfc_f8, double, double, erfc(x))
UNARY_LOOP(exp_f8, double, double, exp(x))
UNARY_LOOP(exp2_f8, double, double, exp2(x))
UNARY_LOOP(expm1_f8, double, double, expm1(x))
UNARY_LOOP(log_f8, double, double, log(x))
UNARY_LOOP(log10_f8, double, double, log10(x))
UNARY_LOOP(log1p_f8, double, double, log1p(x))
UNARY_LOOP(log2_f8, double, double, log2(x))
UNARY_LOOP(sigmoid_f8, double, double, sigmoid_d(x))
UNARY_LOOP(silu_f8, double, double, x * sigmoid_d(x))
UNARY_LOOP(gelu_f8, double, double, 0.5 * x * (1.0 + erf(x * 0.70710678118654752)))
UNARY_LOOP(gelu_tanh_f8, double, double,
           0.5 * x * (1.0 + tanh(0.79788456080286536 * (x + 0.044715 * x * x * x))))

/* ---------------------------------------------------------------- complex */
/* expm1 and log1p without the cancellation of cexp(z) - 1 and clog(1 + z) near 0:
 * expm1(a + bi) = expm1(a) cos b - 2 sin^2(b/2) + i e^a sin b;
 * log1p(a + bi) = log1p(2a + a^2 + b^2) / 2 + i atan2(b, 1 + a). */
#define COMPLEX_HELPERS(SUF, C, R, F, MK)                                                          \
    static inline C expm1_##SUF##_(C z)                                                            \
    {                                                                                              \
        const R a = creal##F(z), b = cimag##F(z), h = sin##F(b / 2);                               \
        return MK(expm1##F(a) * cos##F(b) - 2 * h * h, exp##F(a) * sin##F(b));               \
    }                                                                                              \
    static inline C log1p_##SUF##_(C z)                                                            \
    {                                                                                              \
        const R a = creal##F(z), b = cimag##F(z);                                                  \
        return MK(log1p##F(2 * a + a * a + b * b) / 2, atan2##F(b, 1 + a));                  \
    }                                                                                              \
    static inline C sgn_##SUF##_(C z)                                                              \
    {                                                                                              \
        const R m = cabs##F(z);                                                                    \
        return m == 0 ? (C)0 : z / m;                                                              \
    }                                                                                              \
    static inline C nan_to_num_##SUF##_(C z, R p0, R p1, R p2)                                     \
    {                                                                                              \
        const R a = creal##F(z), b = cimag##F(z);                                                  \
        return MK(PT_NAN_TO_NUM(a, (R)INFINITY), PT_NAN_TO_NUM(b, (R)INFINITY));             \
    }
COMPLEX_HELPERS(c4, c64, float, f, CMPLXF)
COMPLEX_HELPERS(c8, c128, double, , CMPLX)

#define COMPLEX_LOOPS(SUF, C, R, F, LN2, LN10)                                                     \
    UNARY_LOOP(abs_##SUF, C, R, cabs##F(x))                                                        \
    UNARY_LOOP(neg_##SUF, C, C, -x)                                                                \
    UNARY_LOOP(reciprocal_##SUF, C, C, (R)1 / x)                                                   \
    UNARY_LOOP(sgn_##SUF, C, C, sgn_##SUF##_(x))                                                   \
    UNARY_LOOP(acos_##SUF, C, C, cacos##F(x))                                                      \
    UNARY_LOOP(asin_##SUF, C, C, casin##F(x))                                                      \
    UNARY_LOOP(atan_##SUF, C, C, catan##F(x))                                                      \
    UNARY_LOOP(cos_##SUF, C, C, ccos##F(x))                                                        \
    UNARY_LOOP(cosh_##SUF, C, C, ccosh##F(x))                                                      \
    UNARY_LOOP(sin_##SUF, C, C, csin##F(x))                                                        \
    UNARY_LOOP(sinh_##SUF, C, C, csinh##F(x))                                                      \
    UNARY_LOOP(tan_##SUF, C, C, ctan##F(x))                                                        \
    UNARY_LOOP(tanh_##SUF, C, C, ctanh##F(x))                                                      \
    UNARY_LOOP(exp_##SUF, C, C, cexp##F(x))                                                        \
    UNARY_LOOP(exp2_##SUF, C, C, cexp##F(x * LN2))                                                 \
    UNARY_LOOP(expm1_##SUF, C, C, expm1_##SUF##_(x))                                               \
    UNARY_LOOP(log_##SUF, C, C, clog##F(x))                                                        \
    UNARY_LOOP(log10_##SUF, C, C, clog##F(x) / LN10)                                               \
    UNARY_LOOP(log1p_##SUF, C, C, log1p_##SUF##_(x))                                               \
    UNARY_LOOP(log2_##SUF, C, C, clog##F(x) / LN2)                                                 \
    UNARY_LOOP(rsqrt_##SUF, C, C, (R)1 / csqrt##F(x))                                              \
    UNARY_LOOP(sqrt_##SUF, C, C, csqrt##F(x))                                                      \
    UNARY_LOOP(sigmoid_##SUF, C, C, (R)1 / ((R)1 + cexp##F(-x)))                                   \
    UNARY_LOOP(silu_##SUF, C, C, x / ((R)1 + cexp##F(-x)))                                         \
    UNARY_LOOP(not_##SUF, C, uint8_t, (uint8_t)(creal##F(x) == 0 && cimag##F(x) == 0))             \
    UNARY_LOOP(isnan_##SUF, C, uint8_t, (uint8_t)(isnan(creal##F(x)) || isnan(cimag##F(x))))       \
    UNARY_LOOP(isinf_##SUF, C, uint8_t, (uint8_t)(isinf(creal##F(x)) || isinf(cimag##F(x))))       \
    UNARY_LOOP(isfinite_##SUF, C, uint8_t,                                                         \
               (uint8_t)(isfinite(creal##F(x)) && isfinite(cimag##F(x))))                         \
    PARAM_LOOP(nan_to_num_##SUF, C,                                                                \
               nan_to_num_##SUF##_(x, creal##F(p0), creal##F(p1), creal##F(p2)))
COMPLEX_LOOPS(c4, c64, float, f, 0.693147180559945309f, 2.30258509299404568f)
COMPLEX_LOOPS(c8, c128, double, , 0.693147180559945309, 2.30258509299404568)

/* ---------------------------------------------------------------- clamp with tensor bounds */
/* Bounds of nan give nan, as torch's clamp does (a nan x stays nan: its comparisons fail). */
#define CLAMP_LO_F(x, lo) ((lo) != (lo) ? (lo) : (x) < (lo) ? (lo) : (x))
#define CLAMP_HI_F(x, hi) ((hi) != (hi) ? (hi) : (x) > (hi) ? (hi) : (x))
#define CLAMP_LO_I(x, lo) ((x) < (lo) ? (lo) : (x))
#define CLAMP_HI_I(x, hi) ((x) > (hi) ? (hi) : (x))

#define CLAMP3_LOOP(NAME, T, LO, HI)                                                               \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        PT_UNUSED(ctx);                                                                            \
        const int64_t sz = (int64_t)sizeof(T);                                                     \
        if (s[0] == sz && s[1] == sz && s[2] == 0 && s[3] == 0) {                                  \
            T *o = (T *)data[0];                                                                   \
            const T *a = (const T *)data[1], lo = *(const T *)data[2], hi = *(const T *)data[3];   \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T m = LO(a[i], lo);                                                 \
                o[i] = HI(m, hi);                                                         \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T x = *(const T *)(data[1] + i * s[1]), lo = *(const T *)(data[2] + i * s[2]),   \
                    hi = *(const T *)(data[3] + i * s[3]);                                         \
            const T m = LO(x, lo);                                                        \
            *(T *)(data[0] + i * s[0]) = HI(m, hi);                                       \
        }                                                                                          \
    }

/* clamp_min / clamp_max: (out, self, bound). */
#define CLAMP2_LOOP(NAME, T, BOUND)                                                                \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        PT_UNUSED(ctx);                                                                            \
        const int64_t sz = (int64_t)sizeof(T);                                                     \
        if (s[0] == sz && s[1] == sz && s[2] == 0) {                                               \
            T *o = (T *)data[0];                                                                   \
            const T *a = (const T *)data[1], b = *(const T *)data[2];                              \
            PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = BOUND(a[i], b);                     \
            return;                                                                                \
        }                                                                                          \
        if (s[0] == sz && s[1] == sz && s[2] == sz) {                                              \
            T *o = (T *)data[0];                                                                   \
            const T *a = (const T *)data[1], *b = (const T *)data[2];                              \
            PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = BOUND(a[i], b[i]);                  \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T x = *(const T *)(data[1] + i * s[1]), b = *(const T *)(data[2] + i * s[2]);    \
            *(T *)(data[0] + i * s[0]) = BOUND(x, b);                                           \
        }                                                                                          \
    }

/* clamp with number bounds on a floating tensor: (out, self), p0 = min, p1 = max, a missing
 * bound -inf or +inf (Note [clamp with number bounds] in activation.c). */
PARAM_LOOP(clamp_scalar_f4, float, CLAMP_HI_F(CLAMP_LO_F(x, p0), p1))
PARAM_LOOP(clamp_scalar_f8, double, CLAMP_HI_F(CLAMP_LO_F(x, p0), p1))

#define CLAMP_LOOPS(SUF, T, K)                                                                     \
    CLAMP3_LOOP(clamp_##SUF, T, CLAMP_LO_##K, CLAMP_HI_##K)                                        \
    CLAMP2_LOOP(clamp_min_##SUF, T, CLAMP_LO_##K)                                                  \
    CLAMP2_LOOP(clamp_max_##SUF, T, CLAMP_HI_##K)
CLAMP_LOOPS(u8, uint8_t, I)
CLAMP_LOOPS(i8, int8_t, I)
CLAMP_LOOPS(i16, int16_t, I)
CLAMP_LOOPS(i32, int32_t, I)
CLAMP_LOOPS(i64, int64_t, I)
CLAMP_LOOPS(f4, float, F)
CLAMP_LOOPS(f8, double, F)

/* ---------------------------------------------------------------- where */
/* (out, condition, self, other), moved as bits of the element's width: the front runs where in
 * the common dtype itself. */
#define WHERE_LOOP(NAME, T)                                                                        \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        PT_UNUSED(ctx);                                                                            \
        const int64_t sz = (int64_t)sizeof(T);                                                     \
        if (s[0] == sz && s[1] == 1 && s[2] == sz && s[3] == sz) {                                 \
            T *o = (T *)data[0];                                                                   \
            const uint8_t *c = (const uint8_t *)data[1];                                           \
            const T *a = (const T *)data[2], *b = (const T *)data[3];                              \
            PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = c[i] ? a[i] : b[i];                    \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const uint8_t c = *(const uint8_t *)(data[1] + i * s[1]);                              \
            *(T *)(data[0] + i * s[0]) =                                                           \
                c ? *(const T *)(data[2] + i * s[2]) : *(const T *)(data[3] + i * s[3]);           \
        }                                                                                          \
    }
typedef struct w128 {
    uint64_t lo, hi;
} w128;
WHERE_LOOP(where_1, uint8_t)
WHERE_LOOP(where_2, uint16_t)
WHERE_LOOP(where_4, uint32_t)
WHERE_LOOP(where_8, uint64_t)
WHERE_LOOP(where_16, w128)

/* ---------------------------------------------------------------- the table */
#define INTS(OP)                                                                                   \
    [PT_UINT8] = OP##_u8, [PT_INT8] = OP##_i8, [PT_INT16] = OP##_i16, [PT_INT32] = OP##_i32,       \
    [PT_INT64] = OP##_i64
#define FLOATS(OP) [PT_FLOAT32] = OP##_f4, [PT_FLOAT64] = OP##_f8
#define COMPLEX(OP) [PT_COMPLEX64] = OP##_c4, [PT_COMPLEX128] = OP##_c8
#define INEXACT(OP) FLOATS(OP), COMPLEX(OP)
#define ALL(OP) INTS(OP), FLOATS(OP), COMPLEX(OP)

PT_CPU_KERNELS_DEFINE(unary, pt_unary_table) = {{
    [PT_UNARY_ABS] = {INTS(abs), FLOATS(abs), COMPLEX(abs)},
    [PT_UNARY_NEG] = {ALL(neg)},
    [PT_UNARY_RECIPROCAL] = {INEXACT(reciprocal)},
    [PT_UNARY_FRAC] = {FLOATS(frac)},
    [PT_UNARY_SIGN] = {[PT_BOOL] = sign_b1, INTS(sign), FLOATS(sign)},
    [PT_UNARY_SGN] = {[PT_BOOL] = sign_b1, INTS(sign), FLOATS(sign), COMPLEX(sgn)},
    [PT_UNARY_ACOS] = {INEXACT(acos)},
    [PT_UNARY_ASIN] = {INEXACT(asin)},
    [PT_UNARY_ATAN] = {INEXACT(atan)},
    /* rounding an integer is a copy */
    [PT_UNARY_CEIL] = {INTS(copy), FLOATS(ceil)},
    [PT_UNARY_FLOOR] = {INTS(copy), FLOATS(floor)},
    [PT_UNARY_ROUND] = {INTS(copy), FLOATS(round)},
    [PT_UNARY_TRUNC] = {INTS(copy), FLOATS(trunc)},
    [PT_UNARY_COS] = {INEXACT(cos)},
    [PT_UNARY_COSH] = {INEXACT(cosh)},
    [PT_UNARY_SIN] = {INEXACT(sin)},
    [PT_UNARY_SINH] = {INEXACT(sinh)},
    [PT_UNARY_TAN] = {INEXACT(tan)},
    [PT_UNARY_TANH] = {INEXACT(tanh)},
    [PT_UNARY_ERF] = {FLOATS(erf)},
    [PT_UNARY_ERFC] = {FLOATS(erfc)},
    [PT_UNARY_EXP] = {INEXACT(exp)},
    [PT_UNARY_EXP2] = {INEXACT(exp2)},
    [PT_UNARY_EXPM1] = {INEXACT(expm1)},
    [PT_UNARY_LOG] = {INEXACT(log)},
    [PT_UNARY_LOG10] = {INEXACT(log10)},
    [PT_UNARY_LOG1P] = {INEXACT(log1p)},
    [PT_UNARY_LOG2] = {INEXACT(log2)},
    [PT_UNARY_RSQRT] = {INEXACT(rsqrt)},
    [PT_UNARY_SQRT] = {INEXACT(sqrt)},
    [PT_UNARY_SIGMOID] = {INEXACT(sigmoid)},
    [PT_UNARY_SILU] = {INEXACT(silu)},
    [PT_UNARY_RELU] = {INTS(relu), FLOATS(relu)},
    [PT_UNARY_GELU] = {FLOATS(gelu)},
    [PT_UNARY_GELU_TANH] = {FLOATS(gelu_tanh)},
    [PT_UNARY_LOGICAL_NOT] = {[PT_BOOL] = not_b1, ALL(not)},
    [PT_UNARY_ISNAN] = {[PT_BOOL] = false_u8, INTS(false), INEXACT(isnan)},
    [PT_UNARY_ISINF] = {[PT_BOOL] = false_u8, INTS(false), INEXACT(isinf)},
    [PT_UNARY_ISFINITE] = {[PT_BOOL] = true_u8, INTS(true), INEXACT(isfinite)},
    [PT_UNARY_ROUND_DECIMALS] = {FLOATS(round_decimals)},
    [PT_UNARY_NAN_TO_NUM] = {[PT_BOOL] = copy_u8, INTS(copy), INEXACT(nan_to_num)},
    [PT_UNARY_CLAMP_SCALAR] = {FLOATS(clamp_scalar)},
    [PT_UNARY_THRESHOLD] = {INTS(threshold), FLOATS(threshold)},
    [PT_UNARY_CLAMP_TENSOR] = {[PT_BOOL] = clamp_u8, INTS(clamp), FLOATS(clamp)},
    [PT_UNARY_CLAMP_MIN_TENSOR] = {[PT_BOOL] = clamp_min_u8, INTS(clamp_min), FLOATS(clamp_min)},
    [PT_UNARY_CLAMP_MAX_TENSOR] = {[PT_BOOL] = clamp_max_u8, INTS(clamp_max), FLOATS(clamp_max)},
    [PT_UNARY_WHERE] = {[PT_BOOL] = where_1, [PT_UINT8] = where_1, [PT_INT8] = where_1,
                        [PT_INT16] = where_2, [PT_FLOAT16] = where_2, [PT_BFLOAT16] = where_2,
                        [PT_INT32] = where_4, [PT_FLOAT32] = where_4, [PT_INT64] = where_8,
                        [PT_FLOAT64] = where_8, [PT_COMPLEX64] = where_8,
                        [PT_COMPLEX128] = where_16},
}};
_Static_assert(sizeof(c128) <= sizeof(pt_unary_value), "a value holds every loop type");
