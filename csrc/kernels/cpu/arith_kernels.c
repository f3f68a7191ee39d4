/* arith_kernels.c - the inner loops of pow, maximum, minimum and atan2, compiled once per CPU
 * capability (cpu_kernel.h); arith.c runs them through the iterator.
 *
 * Integer powers are torch's powi: exponentiation by squaring in the unsigned type (wrapping as
 * torch's two's-complement results do), and for a negative exponent 1 for a base of 1, +-1 for -1
 * and 0 for every other base. Floating powers are the C library's pow (float32 elements with a
 * Scalar exponent in double, as torch computes them), complex ones cpow. maximum and minimum
 * propagate NaN in either operand, written as one compare and blend so that they vectorize.
 */
#include <complex.h>
#include <math.h>

#include "cpu_kernel.h"

#include "arith.h"
#include "elementwise_loops.h"

/* ---------------------------------------------------------------- powers */
#define PT_POWI(SUF, T, W)                                                                         \
    static inline T powi_##SUF(T a, W e)                                                           \
    {                                                                                              \
        W r = 1, base = (W)a;                                                                      \
        while (e) {                                                                                \
            if (e & 1) r *= base;                                                                  \
            e >>= 1;                                                                               \
            base *= base;                                                                          \
        }                                                                                          \
        return (T)r;                                                                               \
    }
/* S signed, W the unsigned type the products wrap in (at least unsigned int). */
#define PT_SIGNED_POW(SUF, S, W)                                                                   \
    PT_POWI(SUF, S, W)                                                                             \
    static inline S ipow_##SUF(S a, S b)                                                           \
    {                                                                                              \
        if (b < 0) return (S)(a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0);                      \
        return powi_##SUF(a, (W)b);                                                                \
    }
PT_POWI(u8, uint8_t, unsigned)
PT_SIGNED_POW(i8, int8_t, unsigned)
PT_SIGNED_POW(i16, int16_t, unsigned)
PT_SIGNED_POW(i32, int32_t, uint32_t)
PT_SIGNED_POW(i64, int64_t, uint64_t)
PT_LOOP_BINARY(pow_u8, uint8_t, uint8_t, powi_u8(x, y))
PT_LOOP_BINARY(pow_i8, int8_t, int8_t, ipow_i8(x, y))
PT_LOOP_BINARY(pow_i16, int16_t, int16_t, ipow_i16(x, y))
PT_LOOP_BINARY(pow_i32, int32_t, int32_t, ipow_i32(x, y))
PT_LOOP_BINARY(pow_i64, int64_t, int64_t, ipow_i64(x, y))
PT_LOOP_BINARY(pow_f4, float, float, powf(x, y))
PT_LOOP_BINARY(pow_f8, double, double, pow(x, y))

static inline pt_c64 cpow_c4(pt_c64 a, pt_c64 b)
{
    float complex r = cpowf(CMPLXF(a.re, a.im), CMPLXF(b.re, b.im));
    return (pt_c64){crealf(r), cimagf(r)};
}
static inline pt_c128 cpow_c8(pt_c128 a, pt_c128 b)
{
    double complex r = cpow(CMPLX(a.re, a.im), CMPLX(b.re, b.im));
    return (pt_c128){creal(r), cimag(r)};
}
PT_LOOP_BINARY(pow_c4, pt_c64, pt_c64, cpow_c4(x, y))
PT_LOOP_BINARY(pow_c8, pt_c128, pt_c128, cpow_c8(x, y))

/* ---------------------------------------------------------------- pow with a Scalar exponent */
#define E ((const pt_pow_exponent *)ctx)
#define PT_POW_ONE_COPY(SUF, T, ONE)                                                               \
    PT_LOOP_UNARY(one_##SUF, T, T, ((void)x, ONE))                                                 \
    PT_LOOP_UNARY(copy_##SUF, T, T, x)
PT_POW_ONE_COPY(b1, uint8_t, (uint8_t)1)
PT_POW_ONE_COPY(u8, uint8_t, (uint8_t)1)
PT_POW_ONE_COPY(u16, uint16_t, (uint16_t)1)
PT_POW_ONE_COPY(u32, uint32_t, (uint32_t)1)
PT_POW_ONE_COPY(u64, uint64_t, (uint64_t)1)
PT_POW_ONE_COPY(f4, float, 1.0f)
PT_POW_ONE_COPY(f8, double, 1.0)
PT_POW_ONE_COPY(c4, pt_c64, ((pt_c64){1.0f, 0.0f}))
PT_POW_ONE_COPY(c8, pt_c128, ((pt_c128){1.0, 0.0}))

/* The exponent is cast to the element type first, as torch's Scalar::to<scalar_t>. */
PT_LOOP_UNARY(pows_u8, uint8_t, uint8_t, powi_u8(x, (unsigned)(uint8_t)E->i))
PT_LOOP_UNARY(pows_i8, int8_t, int8_t, ipow_i8(x, (int8_t)E->i))
PT_LOOP_UNARY(pows_i16, int16_t, int16_t, ipow_i16(x, (int16_t)E->i))
PT_LOOP_UNARY(pows_i32, int32_t, int32_t, ipow_i32(x, (int32_t)E->i))
PT_LOOP_UNARY(pows_i64, int64_t, int64_t, ipow_i64(x, E->i))

#define PT_REAL_POWS(SUF, T, SQRT)                                                                 \
    PT_LOOP_UNARY(pows_##SUF, T, T, (T)pow((double)x, E->d))                                       \
    PT_LOOP_UNARY(square_##SUF, T, T, x * x)                                                       \
    PT_LOOP_UNARY(cube_##SUF, T, T, x * x * x)                                                     \
    PT_LOOP_UNARY(rsquare_##SUF, T, T, (T)1 / (x * x))                                             \
    PT_LOOP_UNARY(sqrt_##SUF, T, T, SQRT(x))                                                       \
    PT_LOOP_UNARY(rsqrt_##SUF, T, T, (T)1 / SQRT(x))                                               \
    PT_LOOP_UNARY(reciprocal_##SUF, T, T, (T)1 / x)
PT_REAL_POWS(f4, float, sqrtf)
PT_REAL_POWS(f8, double, sqrt)

/* Complex: products by the textbook formula (torch's vectorized multiply), quotients by Smith's
 * algorithm (NumPy's and torch's scalar division), roots and powers from the C library. */
#define PT_COMPLEX_POWS(SUF, C, T, CT, MAKE, FABS, CPOW, CSQRT, RE, IM)                            \
    static inline C mul_##SUF(C p, C q)                                                            \
    {                                                                                              \
        return (C){p.re * q.re - p.im * q.im, p.re * q.im + p.im * q.re};                          \
    }                                                                                              \
    static inline C recip_##SUF(C b)                                                               \
    {                                                                                              \
        const T ac = FABS(b.re), ad = FABS(b.im);                                                  \
        if (ac >= ad) {                                                                            \
            if (ac == 0 && ad == 0) return (C){(T)1 / ac, (T)0 / ad};                              \
            const T rat = b.im / b.re, scl = (T)1.0 / (b.re + b.im * rat);                         \
            return (C){scl, -rat * scl};                                                           \
        }                                                                                          \
        const T rat = b.re / b.im, scl = (T)1.0 / (b.im + b.re * rat);                             \
        return (C){rat * scl, -scl};                                                               \
    }                                                                                              \
    static inline C csqrt_##SUF(C a)                                                               \
    {                                                                                              \
        CT r = CSQRT(MAKE(a.re, a.im));                                                            \
        return (C){RE(r), IM(r)};                                                                  \
    }                                                                                              \
    static inline C cpows_##SUF(C a, const pt_pow_exponent *e)                                     \
    {                                                                                              \
        CT r = CPOW(MAKE(a.re, a.im), MAKE((T)e->re, (T)e->im));                                   \
        return (C){RE(r), IM(r)};                                                                  \
    }                                                                                              \
    PT_LOOP_UNARY(pows_##SUF, C, C, cpows_##SUF(x, E))                                             \
    PT_LOOP_UNARY(square_##SUF, C, C, mul_##SUF(x, x))                                             \
    PT_LOOP_UNARY(cube_##SUF, C, C, mul_##SUF(mul_##SUF(x, x), x))                                 \
    PT_LOOP_UNARY(rsquare_##SUF, C, C, recip_##SUF(mul_##SUF(x, x)))                               \
    PT_LOOP_UNARY(sqrt_##SUF, C, C, csqrt_##SUF(x))                                                \
    PT_LOOP_UNARY(rsqrt_##SUF, C, C, recip_##SUF(csqrt_##SUF(x)))                                  \
    PT_LOOP_UNARY(reciprocal_##SUF, C, C, recip_##SUF(x))
PT_COMPLEX_POWS(c4, pt_c64, float, float complex, CMPLXF, fabsf, cpowf, csqrtf, crealf, cimagf)
PT_COMPLEX_POWS(c8, pt_c128, double, double complex, CMPLX, fabs, cpow, csqrt, creal, cimag)
#undef E

/* ---------------------------------------------------------------- maximum, minimum, atan2 */
#define PT_MINMAX(SUF, T)                                                                          \
    PT_LOOP_BINARY(maximum_##SUF, T, T, (x > y || x != x) ? x : y)                                 \
    PT_LOOP_BINARY(minimum_##SUF, T, T, (x < y || x != x) ? x : y)
PT_MINMAX(u8, uint8_t)
PT_MINMAX(i8, int8_t)
PT_MINMAX(i16, int16_t)
PT_MINMAX(i32, int32_t)
PT_MINMAX(i64, int64_t)
PT_MINMAX(f4, float)
PT_MINMAX(f8, double)
/* Bool: any nonzero byte is true; the results are 0 or 1. */
PT_LOOP_BINARY(maximum_b1, uint8_t, uint8_t, (uint8_t)((x != 0) | (y != 0)))
PT_LOOP_BINARY(minimum_b1, uint8_t, uint8_t, (uint8_t)((x != 0) & (y != 0)))
PT_LOOP_BINARY(atan2_f4, float, float, atan2f(x, y))
PT_LOOP_BINARY(atan2_f8, double, double, atan2(x, y))

/* ---------------------------------------------------------------- the table */
#define PT_ARITH_ROW(OP, B1, C4, C8)                                                               \
    PT_LOOP_ROW(B1, OP##_u8, OP##_i8, OP##_i16, OP##_i32, OP##_i64, OP##_f4, OP##_f8, C4, C8)
/* One and copy move bits, so integer widths share them. */
#define PT_BITS_ROW(OP)                                                                            \
    PT_LOOP_ROW(OP##_b1, OP##_u8, OP##_u8, OP##_u16, OP##_u32, OP##_u64, OP##_f4, OP##_f8,         \
                OP##_c4, OP##_c8)
#define PT_FLOAT_ROW(OP)                                                                           \
    PT_LOOP_ROW(NULL, NULL, NULL, NULL, NULL, NULL, OP##_f4, OP##_f8, OP##_c4, OP##_c8)
PT_CPU_KERNELS_DEFINE(arith, pt_arith_table) = {
    .binary = {
        [PT_ARITH_POW] = PT_ARITH_ROW(pow, NULL, pow_c4, pow_c8),
        [PT_ARITH_MAXIMUM] = PT_ARITH_ROW(maximum, maximum_b1, NULL, NULL),
        [PT_ARITH_MINIMUM] = PT_ARITH_ROW(minimum, minimum_b1, NULL, NULL),
        [PT_ARITH_ATAN2] = PT_LOOP_ROW(NULL, NULL, NULL, NULL, NULL, NULL, atan2_f4, atan2_f8,
                                       NULL, NULL),
    },
    .pow_scalar = {
        [PT_POW_ONE] = PT_BITS_ROW(one),
        [PT_POW_COPY] = PT_BITS_ROW(copy),
        [PT_POW_GENERIC] = PT_ARITH_ROW(pows, NULL, pows_c4, pows_c8),
        [PT_POW_SQUARE] = PT_FLOAT_ROW(square),
        [PT_POW_CUBE] = PT_FLOAT_ROW(cube),
        [PT_POW_RSQUARE] = PT_FLOAT_ROW(rsquare),
        [PT_POW_SQRT] = PT_FLOAT_ROW(sqrt),
        [PT_POW_RSQRT] = PT_FLOAT_ROW(rsqrt),
        [PT_POW_RECIPROCAL] = PT_FLOAT_ROW(reciprocal),
    },
};
