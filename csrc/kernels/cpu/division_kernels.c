/* division_kernels.c - the inner loops of div (true, trunc, floor), remainder and fmod, compiled
 * once per CPU capability (cpu_kernel.h); division.c runs them through the iterator.
 *
 * Integers divide in their own type, as torch does, with two guards C needs: a zero divisor sets
 * the loop's flag (torch's "ZeroDivisionError"; the element written is 0 and the front raises),
 * and a divisor of -1 is answered without dividing, because INT_MIN / -1 overflows (undefined in
 * C, a trap on x86-64; the two's-complement answer is -a, and the remainder 0). Floating types
 * follow torch's scalar formulas: trunc(a / b); for floor division Python's algorithm (from the
 * fmod, so that a // b and a % b agree with a == (a // b) * b + a % b as closely as rounding
 * allows, and 0 keeps the sign of a / b); remainder as fmod moved to the divisor's sign. Complex
 * division is Smith's algorithm, as NumPy's loops and torch's scalar code compute it.
 */
#include <math.h>

#include "cpu_kernel.h"

#include "division.h"
#include "elementwise_loops.h"

/* ---------------------------------------------------------------- integers */
/* S the signed type, U its unsigned twin (for -a without overflow). */
#define PT_SIGNED_DIVISION(SUF, S, U)                                                              \
    static inline S trunc_##SUF(S a, S b, int *bad)                                                \
    {                                                                                              \
        if (b == 0) {                                                                              \
            *bad = 1;                                                                              \
            return 0;                                                                              \
        }                                                                                          \
        if (b == -1) return (S)(0 - (U)a);                                                         \
        return (S)(a / b);                                                                         \
    }                                                                                              \
    static inline S floor_##SUF(S a, S b, int *bad)                                                \
    {                                                                                              \
        S q = trunc_##SUF(a, b, bad);                                                              \
        if (b == 0 || b == -1) return q;                                                           \
        S r = (S)(a % b);                                                                          \
        return (S)(r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q);                                    \
    }                                                                                              \
    static inline S imod_##SUF(S a, S b, int *bad)                                                 \
    {                                                                                              \
        if (b == 0) {                                                                              \
            *bad = 1;                                                                              \
            return 0;                                                                              \
        }                                                                                          \
        return b == -1 ? 0 : (S)(a % b);                                                           \
    }                                                                                              \
    static inline S irem_##SUF(S a, S b, int *bad)                                            \
    {                                                                                              \
        S r = imod_##SUF(a, b, bad);                                                               \
        return (S)(r != 0 && ((r < 0) != (b < 0)) ? r + b : r);                                    \
    }                                                                                              \
    PT_LOOP_BINARY(div_trunc_##SUF, S, S, trunc_##SUF(x, y, &bad))                                 \
    PT_LOOP_BINARY(div_floor_##SUF, S, S, floor_##SUF(x, y, &bad))                                 \
    PT_LOOP_BINARY(remainder_##SUF, S, S, irem_##SUF(x, y, &bad))                             \
    PT_LOOP_BINARY(fmod_##SUF, S, S, imod_##SUF(x, y, &bad))
PT_SIGNED_DIVISION(i8, int8_t, uint8_t)
PT_SIGNED_DIVISION(i16, int16_t, uint16_t)
PT_SIGNED_DIVISION(i32, int32_t, uint32_t)
PT_SIGNED_DIVISION(i64, int64_t, uint64_t)

/* uint8: no signs, so truncation is flooring and fmod is the remainder. */
static inline uint8_t udiv(uint8_t a, uint8_t b, int *bad)
{
    *bad |= b == 0;
    return b == 0 ? 0 : (uint8_t)(a / b);
}
static inline uint8_t umod(uint8_t a, uint8_t b, int *bad)
{
    *bad |= b == 0;
    return b == 0 ? 0 : (uint8_t)(a % b);
}
PT_LOOP_BINARY(div_u8, uint8_t, uint8_t, udiv(x, y, &bad))
PT_LOOP_BINARY(mod_u8, uint8_t, uint8_t, umod(x, y, &bad))

/* ---------------------------------------------------------------- floating types */
/* torch's div_floor_floating (Python's float floor division). */
#define PT_FLOAT_DIVISION(SUF, T, FMOD, FLOOR, TRUNC, COPYSIGN)                                    \
    static inline T floor_##SUF(T a, T b)                                                          \
    {                                                                                              \
        if (b == 0) return a / b;                                                                  \
        T mod = FMOD(a, b);                                                                        \
        T div = (a - mod) / b;                                                                     \
        if (mod != 0 && (b < 0) != (mod < 0)) div -= (T)1;                                         \
        if (div == 0) return COPYSIGN((T)0, a / b);                                                \
        T fl = FLOOR(div);                                                                         \
        return div - fl > (T)0.5 ? fl + (T)1 : fl;                                                 \
    }                                                                                              \
    static inline T frem_##SUF(T a, T b)                                                      \
    {                                                                                              \
        T mod = FMOD(a, b);                                                                        \
        return mod != 0 && ((b < 0) != (mod < 0)) ? mod + b : mod;                                 \
    }                                                                                              \
    PT_LOOP_BINARY(div_true_##SUF, T, T, x / y)                                                    \
    PT_LOOP_BINARY(div_trunc_##SUF, T, T, TRUNC(x / y))                                            \
    PT_LOOP_BINARY(div_floor_##SUF, T, T, floor_##SUF(x, y))                                       \
    PT_LOOP_BINARY(remainder_##SUF, T, T, frem_##SUF(x, y))                                   \
    PT_LOOP_BINARY(fmod_##SUF, T, T, FMOD(x, y))
PT_FLOAT_DIVISION(f4, float, fmodf, floorf, truncf, copysignf)
PT_FLOAT_DIVISION(f8, double, fmod, floor, trunc, copysign)

/* ---------------------------------------------------------------- complex */
/* Smith's algorithm, as NumPy: scales by the larger part of the divisor so that neither square
 * overflows; 0 / 0 gives the IEEE quotients of the parts. */
#define PT_COMPLEX_DIVISION(SUF, C, T, FABS)                                                       \
    static inline C cdiv_##SUF(C a, C b)                                                           \
    {                                                                                              \
        const T ac = FABS(b.re), ad = FABS(b.im);                                                  \
        if (ac >= ad) {                                                                            \
            if (ac == 0 && ad == 0) return (C){a.re / ac, a.im / ad};                              \
            const T rat = b.im / b.re, scl = (T)1.0 / (b.re + b.im * rat);                         \
            return (C){(a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl};                      \
        }                                                                                          \
        const T rat = b.re / b.im, scl = (T)1.0 / (b.im + b.re * rat);                             \
        return (C){(a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl};                          \
    }                                                                                              \
    PT_LOOP_BINARY(div_true_##SUF, C, C, cdiv_##SUF(x, y))
PT_COMPLEX_DIVISION(c4, pt_c64, float, fabsf)
PT_COMPLEX_DIVISION(c8, pt_c128, double, fabs)

/* uint8 shares its truncating and flooring loop, and its remainder and fmod loop. */
#define PT_DIVISION_INT_ROW(OP, U8)                                                                \
    PT_LOOP_ROW(NULL, U8, OP##_i8, OP##_i16, OP##_i32, OP##_i64, OP##_f4, OP##_f8, NULL, NULL)
PT_CPU_KERNELS_DEFINE(division, pt_division_table) = {{
    [PT_DIVISION_TRUE] = PT_LOOP_ROW(NULL, NULL, NULL, NULL, NULL, NULL, div_true_f4, div_true_f8,
                                     div_true_c4, div_true_c8),
    [PT_DIVISION_TRUNC] = PT_DIVISION_INT_ROW(div_trunc, div_u8),
    [PT_DIVISION_FLOOR] = PT_DIVISION_INT_ROW(div_floor, div_u8),
    [PT_DIVISION_REMAINDER] = PT_DIVISION_INT_ROW(remainder, mod_u8),
    [PT_DIVISION_FMOD] = PT_DIVISION_INT_ROW(fmod, mod_u8),
}};
