/* elementwise_more_kernels.c - the inner loops of acosh, asinh, atanh, deg2rad, rad2deg, signbit,
 * isposinf, isneginf, frexp, hypot, copysign, nextafter, fmax, fmin, gcd, lcm, heaviside,
 * logaddexp, logaddexp2, ldexp, addcmul, addcdiv, lerp, isclose, isin and equal, compiled once
 * per CPU capability (cpu_kernel.h); elementwise_more.c and elementwise_search.c run them
 * through the iterator.
 *
 * The shapes are elementwise_loops.h's (contiguous paths the compiler vectorizes, a strided loop
 * for the rest). Floating functions are the C library's, as torch's CPU kernels call std::; the
 * integer ones (gcd, lcm) work in the unsigned type of the element's width so that torch's
 * two's-complement results (lcm overflowing, the gcd of the most negative value) come out without
 * undefined behaviour. nextafter on float16 and bfloat16 steps the 16-bit pattern itself, since a
 * step taken in float32 would round back to the same 16-bit value.
 */
#include <complex.h>
#include <math.h>

#include "cpu_kernel.h"

#include "elementwise_loops.h"
#include "elementwise_more.h"
#include "half.h"
#include "vec_math.h"

/* ---------------------------------------------------------------- unary, floating */
#define PT_EW_FLOAT_UNARY(SUF, T, ACOSH, ASINH, ATANH, SIGNBIT)                                    \
    PT_LOOP_UNARY(acosh_##SUF, T, T, ACOSH(x))                                                     \
    PT_LOOP_UNARY(asinh_##SUF, T, T, ASINH(x))                                                     \
    PT_LOOP_UNARY(atanh_##SUF, T, T, ATANH(x))                                                     \
    PT_LOOP_UNARY(deg2rad_##SUF, T, T, x * (T)(M_PI / 180.0))                                      \
    PT_LOOP_UNARY(rad2deg_##SUF, T, T, x * (T)(180.0 / M_PI))                                      \
    PT_LOOP_UNARY(signbit_##SUF, T, uint8_t, (uint8_t)(SIGNBIT(x) != 0))                           \
    PT_LOOP_UNARY(isposinf_##SUF, T, uint8_t, (uint8_t)(x == (T)INFINITY))                         \
    PT_LOOP_UNARY(isneginf_##SUF, T, uint8_t, (uint8_t)(x == -(T)INFINITY))
PT_EW_FLOAT_UNARY(f4, float, acoshf, asinhf, atanhf, signbit)
PT_EW_FLOAT_UNARY(f8, double, acosh, asinh, atanh, signbit)

#define PT_EW_COMPLEX_UNARY(SUF, C, CT, MAKE, RE, IM, CACOSH, CASINH, CATANH)                      \
    static inline C cacosh_##SUF(C a)                                                              \
    {                                                                                              \
        CT r = CACOSH(MAKE(a.re, a.im));                                                           \
        return (C){RE(r), IM(r)};                                                                  \
    }                                                                                              \
    static inline C casinh_##SUF(C a)                                                              \
    {                                                                                              \
        CT r = CASINH(MAKE(a.re, a.im));                                                           \
        return (C){RE(r), IM(r)};                                                                  \
    }                                                                                              \
    static inline C catanh_##SUF(C a)                                                              \
    {                                                                                              \
        CT r = CATANH(MAKE(a.re, a.im));                                                           \
        return (C){RE(r), IM(r)};                                                                  \
    }                                                                                              \
    PT_LOOP_UNARY(acosh_##SUF, C, C, cacosh_##SUF(x))                                              \
    PT_LOOP_UNARY(asinh_##SUF, C, C, casinh_##SUF(x))                                              \
    PT_LOOP_UNARY(atanh_##SUF, C, C, catanh_##SUF(x))
PT_EW_COMPLEX_UNARY(c4, pt_c64, float complex, CMPLXF, crealf, cimagf, cacoshf, casinhf, catanhf)
PT_EW_COMPLEX_UNARY(c8, pt_c128, double complex, CMPLX, creal, cimag, cacosh, casinh, catanh)

/* ---------------------------------------------------------------- unary, integral */
#define PT_EW_SIGNED_UNARY(SUF, T)                                                                 \
    PT_LOOP_UNARY(signbit_##SUF, T, uint8_t, (uint8_t)(x < 0))                                     \
    PT_LOOP_UNARY(false_##SUF, T, uint8_t, (uint8_t)((void)x, 0))
PT_EW_SIGNED_UNARY(i8, int8_t)
PT_EW_SIGNED_UNARY(i16, int16_t)
PT_EW_SIGNED_UNARY(i32, int32_t)
PT_EW_SIGNED_UNARY(i64, int64_t)
/* bool and uint8 hold no negative value and no infinity */
PT_LOOP_UNARY(false_u8, uint8_t, uint8_t, (uint8_t)((void)x, 0))

/* ---------------------------------------------------------------- frexp */
/* (mantissa, exponent, self): two outputs, so not one of the shared loop shapes. */
#define PT_EW_FREXP(SUF, T, FREXP)                                                                 \
    static void frexp_##SUF(char **data, const int64_t *s, int64_t n, void *ctx)                   \
    {                                                                                              \
        PT_UNUSED(ctx);                                                                            \
        for (int64_t i = 0; i < n; i++) {                                                          \
            int e = 0;                                                                             \
            const T m = FREXP(*(const T *)(data[2] + i * s[2]), &e);                               \
            *(T *)(data[0] + i * s[0]) = m;                                                        \
            *(int32_t *)(data[1] + i * s[1]) = (int32_t)e;                                         \
        }                                                                                          \
    }
PT_EW_FREXP(f4, float, frexpf)
PT_EW_FREXP(f8, double, frexp)

/* ---------------------------------------------------------------- binary, floating */
/* logaddexp: torch's form, exact for two equal infinities (whose difference would be NaN).
 * float64 calls libm; float32 (and the 16-bit types staged through it) computes the correction
 * log1p(exp(-|a - b|)) in double with vec_math.h's branch-free kernels, so that the loop
 * vectorizes (libm's calls kept it scalar: 9x torch's time on 1M elements) and the result is
 * rounded once (within 1 ulp of the exact value). */
#define PT_EW_LOGADDEXP_F8(NAME, EXP, SCALE)                                                       \
    static inline double NAME(double a, double b)                                                  \
    {                                                                                              \
        if (isinf(a) && a == b) return a;                                                          \
        const double m = a < b ? b : a;                                                            \
        return m + log1p(EXP(-fabs(a - b))) * SCALE;                                               \
    }
PT_EW_LOGADDEXP_F8(logaddexp_f8_of, exp, 1.0)
PT_EW_LOGADDEXP_F8(logaddexp2_f8_of, exp2, (1.0 / M_LN2))
/* LN2: the factor that turns the exponent into a natural one (1 for logaddexp, ln 2 for base 2);
 * OUT: the factor back (1, 1 / ln 2). */
#define PT_EW_LOGADDEXP_F4(NAME, LN2, OUT)                                                         \
    static inline float NAME(float a, float b)                                                     \
    {                                                                                              \
        const double m = a < b ? (double)b : (double)a;                                            \
        const double e = pt_vexpd_f(-fabs((double)a - (double)b) * LN2);                           \
        const float r = (float)(m + pt_vlogd(1.0 + e) * OUT);                                      \
        return isinf(a) && a == b ? a : r;                                                         \
    }
PT_EW_LOGADDEXP_F4(logaddexp_f4_of, 1.0, 1.0)
PT_EW_LOGADDEXP_F4(logaddexp2_f4_of, M_LN2, (1.0 / M_LN2))

/* hypot of float32 in double: the squares cannot overflow or lose bits there, so one rounding
 * gives C's hypotf result in all but double-rounding cases, and the loop vectorizes (hypotf is a
 * call per element); an infinite operand gives inf even beside a NaN, as hypot does. */
static inline float hypot_f4_of(float x, float y)
{
    const float r = (float)sqrt((double)x * (double)x + (double)y * (double)y);
    return isinf(x) || isinf(y) ? INFINITY : r;
}

/* fmax, fmin: a NaN loses to a number; the comparison form vectorizes. */
#define PT_EW_FLOAT_BINARY(SUF, T, HYPOT, COPYSIGN, NEXTAFTER)                                     \
    PT_LOOP_BINARY(hypot_##SUF, T, T, HYPOT(x, y))                                                 \
    PT_LOOP_BINARY(copysign_##SUF, T, T, COPYSIGN(x, y))                                           \
    PT_LOOP_BINARY(nextafter_##SUF, T, T, NEXTAFTER(x, y))                                         \
    PT_LOOP_BINARY(fmax_##SUF, T, T, (x != x) ? y : (y != y) ? x : (x > y ? x : y))               \
    PT_LOOP_BINARY(fmin_##SUF, T, T, (x != x) ? y : (y != y) ? x : (x < y ? x : y))               \
    PT_LOOP_BINARY(heaviside_##SUF, T, T, x == (T)0 ? y : (T)(x > (T)0))                           \
    PT_LOOP_BINARY(logaddexp_##SUF, T, T, logaddexp_##SUF##_of(x, y))                              \
    PT_LOOP_BINARY(logaddexp2_##SUF, T, T, logaddexp2_##SUF##_of(x, y))
PT_EW_FLOAT_BINARY(f4, float, hypot_f4_of, copysignf, nextafterf)
PT_EW_FLOAT_BINARY(f8, double, hypot, copysign, nextafter)

/* Complex logaddexp: the operand of larger real part factored out, log(1 + exp(d)) of the rest;
 * two equal infinite operands give themselves, as in the real case. */
#define PT_EW_COMPLEX_LOGADDEXP(SUF, C, CT, MAKE, RE, IM, CLOG, CEXP)                              \
    static inline C logaddexp_##SUF##_of(C a, C b)                                                 \
    {                                                                                              \
        if (isinf(a.re) && a.re == b.re && a.im == b.im) return a;                                 \
        const CT x = MAKE(a.re, a.im), y = MAKE(b.re, b.im);                                       \
        const CT m = a.re < b.re ? y : x, o = a.re < b.re ? x : y;                                 \
        const CT r = m + CLOG(1 + CEXP(o - m));                                                    \
        return (C){RE(r), IM(r)};                                                                  \
    }                                                                                              \
    PT_LOOP_BINARY(logaddexp_##SUF, C, C, logaddexp_##SUF##_of(x, y))
PT_EW_COMPLEX_LOGADDEXP(c4, pt_c64, float complex, CMPLXF, crealf, cimagf, clogf, cexpf)
PT_EW_COMPLEX_LOGADDEXP(c8, pt_c128, double complex, CMPLX, creal, cimag, clog, cexp)

/* ldexp: self * 2 ** other as torch computes it (a product with a power of two, not C's ldexp,
 * so that a fractional `other` scales by 2 ** other too). A complex `other` with no imaginary part
 * (an integer exponent, promoted) takes the real power, exact for integers. */
PT_LOOP_BINARY(ldexp_f4, float, float, x * exp2f(y))
PT_LOOP_BINARY(ldexp_f8, double, double, x * exp2(y))
#define PT_EW_COMPLEX_LDEXP(SUF, C, T, CT, MAKE, RE, IM, EXP2, CEXP)                               \
    static inline C ldexp_##SUF##_of(C a, C b)                                                     \
    {                                                                                              \
        if (b.im == 0) {                                                                           \
            const T p = EXP2(b.re);                                                                \
            return (C){a.re * p, a.im * p};                                                        \
        }                                                                                          \
        const CT r = MAKE(a.re, a.im) * CEXP(MAKE(b.re, b.im) * (T)M_LN2);                         \
        return (C){RE(r), IM(r)};                                                                  \
    }                                                                                              \
    PT_LOOP_BINARY(ldexp_##SUF, C, C, ldexp_##SUF##_of(x, y))
PT_EW_COMPLEX_LDEXP(c4, pt_c64, float, float complex, CMPLXF, crealf, cimagf, exp2f, cexpf)
PT_EW_COMPLEX_LDEXP(c8, pt_c128, double, double complex, CMPLX, creal, cimag, exp2, cexp)

/* ---------------------------------------------------------------- nextafter, 16-bit */
/* The next representable value after x towards y, on the bit patterns: away from zero is +1 on
 * the magnitude, towards it -1; from zero the smallest subnormal with y's sign. */
#define PT_EW_NEXTAFTER16(SUF, TO_FLOAT, FROM_FLOAT)                                               \
    static inline uint16_t next_##SUF(uint16_t x, uint16_t y)                                      \
    {                                                                                              \
        const float fx = TO_FLOAT(x), fy = TO_FLOAT(y);                                            \
        if (fx != fx || fy != fy) return FROM_FLOAT(fx + fy);                                      \
        if (fx == fy) return y;                                                                    \
        if (fx == 0.0f) return (uint16_t)((y & 0x8000u) | 1u);                                     \
        return (fx < fy) == (fx > 0.0f) ? (uint16_t)(x + 1u) : (uint16_t)(x - 1u);                 \
    }                                                                                              \
    PT_LOOP_BINARY(nextafter_##SUF, uint16_t, uint16_t, next_##SUF(x, y))
PT_EW_NEXTAFTER16(h2, pt_half_to_float_inline, pt_float_to_half_inline)
PT_EW_NEXTAFTER16(bf2, pt_bfloat16_to_float_inline, pt_float_to_bfloat16_inline)

/* ---------------------------------------------------------------- binary, integral */
/* S the element type, W the unsigned type of its width the arithmetic wraps in (at least
 * unsigned int). torch's gcd is Euclid's on the absolute values; its lcm |a / g * b|, where C's
 * promotion computes int8 and int16 in int (no overflow, so the absolute value is taken before the
 * result is narrowed) and int32 and int64 wrap first (the absolute value of the wrapped product:
 * OUTER). */
#define PT_EW_INT_BINARY(SUF, S, W, ABS, OUTER)                                                    \
    static inline W uabs_##SUF(S v) { return ABS; }                                                \
    static inline W ugcd_##SUF(W a, W b)                                                           \
    {                                                                                              \
        while (a != 0) {                                                                           \
            const W c = a;                                                                         \
            a = b % a;                                                                             \
            b = c;                                                                                 \
        }                                                                                          \
        return b;                                                                                  \
    }                                                                                              \
    static inline S lcm_##SUF##_of(S a, S b)                                                       \
    {                                                                                              \
        const W g = ugcd_##SUF(uabs_##SUF(a), uabs_##SUF(b));                                      \
        if (g == 0) return 0;                                                                      \
        const W p = uabs_##SUF(a) / g * uabs_##SUF(b);                                             \
        return OUTER ? (S)uabs_##SUF((S)p) : (S)p;                              \
    }                                                                                              \
    PT_LOOP_BINARY(gcd_##SUF, S, S, (S)ugcd_##SUF(uabs_##SUF(x), uabs_##SUF(y)))                   \
    PT_LOOP_BINARY(lcm_##SUF, S, S, lcm_##SUF##_of(x, y))                                          \
    PT_LOOP_BINARY(fmax_##SUF, S, S, x > y ? x : y)                                                \
    PT_LOOP_BINARY(fmin_##SUF, S, S, x < y ? x : y)                                                \
    PT_LOOP_BINARY(heaviside_##SUF, S, S, x == 0 ? y : (S)(x > 0))
#define PT_EW_SIGNED_ABS(W) (v < 0 ? (W)0 - (W)v : (W)v)
PT_EW_INT_BINARY(i8, int8_t, unsigned, PT_EW_SIGNED_ABS(unsigned), 0)
PT_EW_INT_BINARY(i16, int16_t, unsigned, PT_EW_SIGNED_ABS(unsigned), 0)
PT_EW_INT_BINARY(i32, int32_t, uint32_t, PT_EW_SIGNED_ABS(uint32_t), 1)
PT_EW_INT_BINARY(i64, int64_t, uint64_t, PT_EW_SIGNED_ABS(uint64_t), 1)
PT_EW_INT_BINARY(u8, uint8_t, unsigned, (unsigned)v, 0)
/* Bool: any nonzero byte is true; results are 0 or 1. */
PT_LOOP_BINARY(fmax_b1, uint8_t, uint8_t, (uint8_t)((x != 0) | (y != 0)))
PT_LOOP_BINARY(fmin_b1, uint8_t, uint8_t, (uint8_t)((x != 0) & (y != 0)))
PT_LOOP_BINARY(heaviside_b1, uint8_t, uint8_t, (uint8_t)(x != 0 ? 1 : (y != 0)))

/* ---------------------------------------------------------------- three inputs */
/* out (T) = EXPR(x, a, b, v): x self's element, a and b the others', v the Scalar in ctx. The
 * contiguous path vectorizes; broadcast operands (stride 0) take the strided loop. */
#define PT_EW_TERNARY(NAME, T, EXPR)                                                               \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        const T v = *(const T *)((const pt_ew_value *)ctx)->bytes;                                 \
        PT_UNUSED(v);                                                                              \
        const int64_t sz = (int64_t)sizeof(T);                                                     \
        if (s[0] == sz && s[1] == sz && s[2] == sz && s[3] == sz) {                                \
            T *o = (T *)data[0];                                                                   \
            const T *xs = (const T *)data[1], *as = (const T *)data[2], *bs = (const T *)data[3];  \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T x = xs[i], a = as[i], b = bs[i];                                           \
                PT_UNUSED(b);                                                                      \
                o[i] = EXPR;                                                                       \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T x = *(const T *)(data[1] + i * s[1]), a = *(const T *)(data[2] + i * s[2]),    \
                    b = *(const T *)(data[3] + i * s[3]);                                          \
            PT_UNUSED(b);                                                                          \
            *(T *)(data[0] + i * s[0]) = EXPR;                                                     \
        }                                                                                          \
    }
/* torch's lerp: from the nearer end, so that weight 1 gives `end` exactly. */
#define PT_EW_LERP(x, e, w, ABS)                                                                   \
    (ABS(w) < 0.5 ? (x) + (w) * ((e) - (x)) : (e) - ((e) - (x)) * (1 - (w)))
/* integers wrap, as torch's two's-complement results */
#define PT_EW_INT_TERNARY(SUF, T, W)                                                               \
    PT_EW_TERNARY(addcmul_##SUF, T, (T)((W)x + (W)v * (W)a * (W)b))
PT_EW_INT_TERNARY(u8, uint8_t, unsigned)
PT_EW_INT_TERNARY(i8, int8_t, unsigned)
PT_EW_INT_TERNARY(i16, int16_t, unsigned)
PT_EW_INT_TERNARY(i32, int32_t, uint32_t)
PT_EW_INT_TERNARY(i64, int64_t, uint64_t)
#define PT_EW_FLOAT_TERNARY(SUF, T, ABS)                                                           \
    PT_EW_TERNARY(addcmul_##SUF, T, x + v * a * b)                                                 \
    PT_EW_TERNARY(addcdiv_##SUF, T, x + v * a / b)                                                 \
    PT_EW_TERNARY(lerp_scalar_##SUF, T, PT_EW_LERP(x, a, v, ABS))                                  \
    PT_EW_TERNARY(lerp_tensor_##SUF, T, PT_EW_LERP(x, a, b, ABS))
PT_EW_FLOAT_TERNARY(f4, float, fabsf)
PT_EW_FLOAT_TERNARY(f8, double, fabs)
/* complex: C's complex arithmetic on the (re, im) pairs */
#define PT_EW_COMPLEX_TERNARY(SUF, C, CT, MAKE, RE, IM, CABS)                                      \
    static inline CT ct_##SUF(C p) { return MAKE(p.re, p.im); }                                    \
    static inline C cc_##SUF(CT r) { return (C){RE(r), IM(r)}; }                                   \
    static inline CT lerp_##SUF##_of(CT x, CT e, CT w)                                             \
    {                                                                                              \
        return PT_EW_LERP(x, e, w, CABS);                                                          \
    }                                                                                              \
    PT_EW_TERNARY(addcmul_##SUF, C,                                                                \
                  cc_##SUF(ct_##SUF(x) + ct_##SUF(v) * ct_##SUF(a) * ct_##SUF(b)))                 \
    PT_EW_TERNARY(addcdiv_##SUF, C,                                                                \
                  cc_##SUF(ct_##SUF(x) + ct_##SUF(v) * ct_##SUF(a) / ct_##SUF(b)))                 \
    PT_EW_TERNARY(lerp_scalar_##SUF, C,                                                            \
                  cc_##SUF(lerp_##SUF##_of(ct_##SUF(x), ct_##SUF(a), ct_##SUF(v))))                \
    PT_EW_TERNARY(lerp_tensor_##SUF, C,                                                            \
                  cc_##SUF(lerp_##SUF##_of(ct_##SUF(x), ct_##SUF(a), ct_##SUF(b))))
PT_EW_COMPLEX_TERNARY(c4, pt_c64, float complex, CMPLXF, crealf, cimagf, cabsf)
PT_EW_COMPLEX_TERNARY(c8, pt_c128, double complex, CMPLX, creal, cimag, cabs)

/* ---------------------------------------------------------------- isclose */
/* torch's formula: equal, or both NaN under equal_nan, or a finite |x - y| within
 * atol + |rtol * y|, computed in the element type (integers: the difference wraps in their type,
 * the tolerance is float32, the default dtype torch's composite computes it in). */
#define ISCLOSE_P ((const pt_ew_isclose_params *)ctx)
#define PT_EW_ISCLOSE_FLOAT(SUF, T, ABS)                                                           \
    static inline uint8_t isclose_##SUF##_of(T x, T y, const pt_ew_isclose_params *p)             \
    {                                                                                              \
        bool close = x == y;                                                                       \
        if (p->equal_nan) close |= (x != x) && (y != y);                                           \
        if (p->rtol == 0 && p->atol == 0) return close;                                            \
        const T allowed = (T)p->atol + ABS((T)p->rtol * y), actual = ABS(x - y);                   \
        return close || (isfinite(actual) && actual <= allowed);                                   \
    }                                                                                              \
    PT_LOOP_BINARY(isclose_##SUF, T, uint8_t, isclose_##SUF##_of(x, y, ISCLOSE_P))
PT_EW_ISCLOSE_FLOAT(f4, float, fabsf)
PT_EW_ISCLOSE_FLOAT(f8, double, fabs)
#define PT_EW_ISCLOSE_INT(SUF, T, W, ABSDIFF)                                                      \
    static inline uint8_t isclose_##SUF##_of(T x, T y, const pt_ew_isclose_params *p)             \
    {                                                                                              \
        if (x == y || (p->rtol == 0 && p->atol == 0)) return x == y;                               \
        const float allowed = (float)p->atol + fabsf((float)p->rtol * (float)y);                  \
        const T d = (T)((W)x - (W)y);                                                              \
        return (float)(ABSDIFF) <= allowed;                                                        \
    }                                                                                              \
    PT_LOOP_BINARY(isclose_##SUF, T, uint8_t, isclose_##SUF##_of(x, y, ISCLOSE_P))
#define PT_EW_WRAPPED_ABS(T, W) (d < 0 ? (T)((W)0 - (W)d) : d)
PT_EW_ISCLOSE_INT(i8, int8_t, unsigned, PT_EW_WRAPPED_ABS(int8_t, unsigned))
PT_EW_ISCLOSE_INT(i16, int16_t, unsigned, PT_EW_WRAPPED_ABS(int16_t, unsigned))
PT_EW_ISCLOSE_INT(i32, int32_t, uint32_t, PT_EW_WRAPPED_ABS(int32_t, uint32_t))
PT_EW_ISCLOSE_INT(i64, int64_t, uint64_t, PT_EW_WRAPPED_ABS(int64_t, uint64_t))
PT_EW_ISCLOSE_INT(u8, uint8_t, unsigned, d)
/* bool: torch compares in the default float dtype */
PT_LOOP_BINARY(isclose_b1, uint8_t, uint8_t,
               isclose_f4_of((float)(x != 0), (float)(y != 0), ISCLOSE_P))
#define PT_EW_ISCLOSE_COMPLEX(SUF, C, T, CT, MAKE, CABS)                                           \
    static inline uint8_t isclose_##SUF##_of(C x, C y, const pt_ew_isclose_params *p)             \
    {                                                                                              \
        bool close = x.re == y.re && x.im == y.im;                                                 \
        if (p->equal_nan)                                                                          \
            close |= (x.re != x.re || x.im != x.im) && (y.re != y.re || y.im != y.im);             \
        if (p->rtol == 0 && p->atol == 0) return close;                                            \
        const CT cx = MAKE(x.re, x.im), cy = MAKE(y.re, y.im);                                     \
        const T allowed = (T)p->atol + CABS((T)p->rtol * cy), actual = CABS(cx - cy);              \
        return close || (isfinite(actual) && actual <= allowed);                                   \
    }                                                                                              \
    PT_LOOP_BINARY(isclose_##SUF, C, uint8_t, isclose_##SUF##_of(x, y, ISCLOSE_P))
PT_EW_ISCLOSE_COMPLEX(c4, pt_c64, float, float complex, CMPLXF, cabsf)
PT_EW_ISCLOSE_COMPLEX(c8, pt_c128, double, double complex, CMPLX, cabs)
#undef ISCLOSE_P

/* ---------------------------------------------------------------- isin */
/* A binary search for each element among the sorted test values: the first value not below x,
 * then whether it equals x. NaNs sort last and are never below anything, so a NaN finds none. */
#define PT_EW_ISIN(SUF, T)                                                                         \
    static void isin_##SUF(char **data, const int64_t *s, int64_t n, void *ctx)                    \
    {                                                                                              \
        const pt_ew_isin_params *p = ctx;                                                          \
        const T *v = (const T *)p->values;                                                         \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T x = *(const T *)(data[1] + i * s[1]);                                          \
            int64_t lo = 0, hi = p->count;                                                         \
            while (lo < hi) {                                                                      \
                const int64_t mid = lo + (hi - lo) / 2;                                            \
                if (v[mid] < x) lo = mid + 1;                                                      \
                else hi = mid;                                                                     \
            }                                                                                      \
            const bool found = lo < p->count && v[lo] == x;                                        \
            *(uint8_t *)(data[0] + i * s[0]) = (uint8_t)(found != (p->invert != 0));               \
        }                                                                                          \
    }
PT_EW_ISIN(u8, uint8_t)
PT_EW_ISIN(i8, int8_t)
PT_EW_ISIN(i16, int16_t)
PT_EW_ISIN(i32, int32_t)
PT_EW_ISIN(i64, int64_t)
PT_EW_ISIN(f4, float)
PT_EW_ISIN(f8, double)

/* ---------------------------------------------------------------- equal */
/* (self, other) with no output: one flag for the whole run; `bad` collects a difference. */
#define PT_EW_DIFFER(SUF, T, NE)                                                                   \
    static void differ_##SUF(char **data, const int64_t *s, int64_t n, void *ctx)                  \
    {                                                                                              \
        int bad = 0;                                                                               \
        const int64_t sz = (int64_t)sizeof(T);                                                     \
        if (s[0] == sz && s[1] == sz) {                                                            \
            const T *a = (const T *)data[0], *b = (const T *)data[1];                              \
            for (int64_t i = 0; i < n; i++) bad |= NE(a[i], b[i]);                                 \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                bad |= NE(*(const T *)(data[0] + i * s[0]), *(const T *)(data[1] + i * s[1]));     \
        }                                                                                          \
        pt_loop_raise(ctx, bad);                                                                   \
    }
#define PT_EW_NE(x, y) ((x) != (y))
#define PT_EW_NE_BOOL(x, y) (((x) != 0) != ((y) != 0))
#define PT_EW_NE_COMPLEX(x, y) ((x).re != (y).re || (x).im != (y).im)
PT_EW_DIFFER(b1, uint8_t, PT_EW_NE_BOOL)
PT_EW_DIFFER(u8, uint8_t, PT_EW_NE)
PT_EW_DIFFER(i8, int8_t, PT_EW_NE)
PT_EW_DIFFER(i16, int16_t, PT_EW_NE)
PT_EW_DIFFER(i32, int32_t, PT_EW_NE)
PT_EW_DIFFER(i64, int64_t, PT_EW_NE)
PT_EW_DIFFER(f4, float, PT_EW_NE)
PT_EW_DIFFER(f8, double, PT_EW_NE)
PT_EW_DIFFER(c4, pt_c64, PT_EW_NE_COMPLEX)
PT_EW_DIFFER(c8, pt_c128, PT_EW_NE_COMPLEX)

/* ---------------------------------------------------------------- the table */
#define PT_EW_INT_ROW(OP, B1, F4, F8)                                                              \
    PT_LOOP_ROW(B1, OP##_u8, OP##_i8, OP##_i16, OP##_i32, OP##_i64, F4, F8, NULL, NULL)
#define PT_EW_REAL_ROW(OP, B1) PT_EW_INT_ROW(OP, B1, OP##_f4, OP##_f8)
#define PT_EW_FLOAT_ROW(OP, C4, C8)                                                                \
    PT_LOOP_ROW(NULL, NULL, NULL, NULL, NULL, NULL, OP##_f4, OP##_f8, C4, C8)
/* predicates of integers: signed types by their own loop, bool and uint8 always false */
#define PT_EW_PREDICATE_ROW(OP, SIGNED)                                                            \
    PT_LOOP_ROW(false_u8, false_u8, SIGNED##_i8, SIGNED##_i16, SIGNED##_i32, SIGNED##_i64,         \
                OP##_f4, OP##_f8, NULL, NULL)

PT_CPU_KERNELS_DEFINE(elementwise_more, pt_ew_table) = {
    .unary = {
        [PT_EWU_ACOSH] = PT_EW_FLOAT_ROW(acosh, acosh_c4, acosh_c8),
        [PT_EWU_ASINH] = PT_EW_FLOAT_ROW(asinh, asinh_c4, asinh_c8),
        [PT_EWU_ATANH] = PT_EW_FLOAT_ROW(atanh, atanh_c4, atanh_c8),
        [PT_EWU_DEG2RAD] = PT_EW_FLOAT_ROW(deg2rad, NULL, NULL),
        [PT_EWU_RAD2DEG] = PT_EW_FLOAT_ROW(rad2deg, NULL, NULL),
        [PT_EWU_SIGNBIT] = PT_EW_PREDICATE_ROW(signbit, signbit),
        [PT_EWU_ISPOSINF] = PT_EW_PREDICATE_ROW(isposinf, false),
        [PT_EWU_ISNEGINF] = PT_EW_PREDICATE_ROW(isneginf, false),
        [PT_EWU_FREXP] = PT_EW_FLOAT_ROW(frexp, NULL, NULL),
    },
    .binary = {
        [PT_EWB_HYPOT] = PT_EW_FLOAT_ROW(hypot, NULL, NULL),
        [PT_EWB_COPYSIGN] = PT_EW_FLOAT_ROW(copysign, NULL, NULL),
        [PT_EWB_NEXTAFTER] = PT_EW_FLOAT_ROW(nextafter, NULL, NULL),
        [PT_EWB_FMAX] = PT_EW_REAL_ROW(fmax, fmax_b1),
        [PT_EWB_FMIN] = PT_EW_REAL_ROW(fmin, fmin_b1),
        [PT_EWB_GCD] = PT_EW_INT_ROW(gcd, NULL, NULL, NULL),
        [PT_EWB_LCM] = PT_EW_INT_ROW(lcm, NULL, NULL, NULL),
        [PT_EWB_HEAVISIDE] = PT_EW_REAL_ROW(heaviside, heaviside_b1),
        [PT_EWB_LOGADDEXP] = PT_EW_FLOAT_ROW(logaddexp, logaddexp_c4, logaddexp_c8),
        [PT_EWB_LOGADDEXP2] = PT_EW_FLOAT_ROW(logaddexp2, NULL, NULL),
        [PT_EWB_LDEXP] = PT_EW_FLOAT_ROW(ldexp, ldexp_c4, ldexp_c8),
    },
    .nextafter16 = {[PT_FLOAT16] = nextafter_h2, [PT_BFLOAT16] = nextafter_bf2},
    .ternary = {
        [PT_EWT_ADDCMUL] = PT_LOOP_ROW(NULL, addcmul_u8, addcmul_i8, addcmul_i16, addcmul_i32,
                                       addcmul_i64, addcmul_f4, addcmul_f8, addcmul_c4,
                                       addcmul_c8),
        [PT_EWT_ADDCDIV] = PT_EW_FLOAT_ROW(addcdiv, addcdiv_c4, addcdiv_c8),
        [PT_EWT_LERP_SCALAR] = PT_EW_FLOAT_ROW(lerp_scalar, lerp_scalar_c4, lerp_scalar_c8),
        [PT_EWT_LERP_TENSOR] = PT_EW_FLOAT_ROW(lerp_tensor, lerp_tensor_c4, lerp_tensor_c8),
    },
    .isclose = PT_LOOP_ROW(isclose_b1, isclose_u8, isclose_i8, isclose_i16, isclose_i32,
                           isclose_i64, isclose_f4, isclose_f8, isclose_c4, isclose_c8),
    .isin = PT_LOOP_ROW(NULL, isin_u8, isin_i8, isin_i16, isin_i32, isin_i64, isin_f4, isin_f8,
                        NULL, NULL),
    .differ = PT_LOOP_ROW(differ_b1, differ_u8, differ_i8, differ_i16, differ_i32, differ_i64,
                          differ_f4, differ_f8, differ_c4, differ_c8),
};
