/* binary_kernels.c - the inner loops of add, sub and mul, compiled once per CPU capability
 * (cpu_kernel.h); binary.c runs them through the iterator.
 *
 * The typed loops take NumPy's (data, byte strides, n) form and exist once per loop dtype: bool,
 * the integer widths (8 to 64 bits, signed and unsigned alike, in unsigned arithmetic, which wraps
 * as torch's two's-complement results do and is defined in C), float32, float64 and the two
 * complex types. Each has three fast paths that the compiler vectorizes for the capability's
 * instruction set - every operand contiguous, and one input a broadcast scalar (stride 0) beside
 * contiguous ones - and a plain strided loop for the rest.
 */
#include "cpu_kernel.h"

#include "binary.h"

typedef struct c64 {
    float re, im;
} c64;
typedef struct c128 {
    double re, im;
} c128;

/* One loop: T the element type, EXPR the result from x (self's element), y (other's) and al. */
#define PT_BINARY_LOOP(NAME, T, EXPR)                                                              \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        const T al = *(const T *)ctx;                                                              \
        PT_UNUSED(al);                                                                             \
        const int64_t sz = (int64_t)sizeof(T);                                                     \
        char *o = data[0];                                                                         \
        const char *a = data[1], *b = data[2];                                                     \
        if (s[0] == sz && s[1] == sz && s[2] == sz) {                                              \
            T *ov = (T *)o;                                                                        \
            const T *av = (const T *)a, *bv = (const T *)b;                                        \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T x = av[i], y = bv[i];                                                      \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == sz && s[1] == sz && s[2] == 0) {                                        \
            T *ov = (T *)o;                                                                        \
            const T *av = (const T *)a, y = *(const T *)b;                                         \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T x = av[i];                                                                 \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == sz && s[1] == 0 && s[2] == sz) {                                        \
            T *ov = (T *)o;                                                                        \
            const T x = *(const T *)a, *bv = (const T *)b;                                         \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T y = bv[i];                                                                 \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == sz && s[1] == 0 && s[2] == 0) {                                         \
            /* both inputs broadcast along the row: one value, stored n times */                   \
            T *ov = (T *)o;                                                                        \
            const T x = *(const T *)a, y = *(const T *)b;                                          \
            const T v = EXPR;                                                                      \
            PT_IVDEP for (int64_t i = 0; i < n; i++) ov[i] = v;                                    \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const T x = *(const T *)(a + i * s[1]), y = *(const T *)(b + i * s[2]);            \
                *(T *)(o + i * s[0]) = EXPR;                                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* Integers: W is the unsigned type the arithmetic runs in (at least unsigned int, so that the
 * usual promotions never reach a signed int that could overflow). */
#define PT_INT_LOOPS(BITS, T, W)                                                                   \
    PT_BINARY_LOOP(add_u##BITS, T, (T)((W)x + (W)y))                                               \
    PT_BINARY_LOOP(sub_u##BITS, T, (T)((W)x - (W)y))                                               \
    PT_BINARY_LOOP(add_alpha_u##BITS, T, (T)((W)x + (W)al * (W)y))                                 \
    PT_BINARY_LOOP(mul_u##BITS, T, (T)((W)x * (W)y))
PT_INT_LOOPS(8, uint8_t, unsigned)
PT_INT_LOOPS(16, uint16_t, unsigned)
PT_INT_LOOPS(32, uint32_t, uint32_t)
PT_INT_LOOPS(64, uint64_t, uint64_t)

/* Bool: any nonzero byte is true (torch keeps odd bytes from raw memory); results are 0 or 1.
 * a + alpha * b in bool is "a or (alpha and b)"; sub never gets here. */
PT_BINARY_LOOP(add_b1, uint8_t, (uint8_t)((x != 0) | (y != 0)))
PT_BINARY_LOOP(add_alpha_b1, uint8_t, (uint8_t)((x != 0) | ((al != 0) & (y != 0))))
PT_BINARY_LOOP(mul_b1, uint8_t, (uint8_t)((x != 0) & (y != 0)))

/* Note [fused alpha]
 * torch computes self + alpha * other on floating types as one fused multiply-add (its vector
 * code calls fmadd, and its scalar code is compiled with contraction), so a + alpha * b is rounded
 * once here too: fma() is exactly rounded on every machine. The AVX2 and AVX-512 builds have the
 * instruction and vectorize it; the default build calls the C library per element, correct but
 * slow, and only serves CPUs without FMA or PYTENSOR_CPU_CAPABILITY=default. */
#define PT_FLOAT_LOOPS(SUF, T, FMA)                                                                \
    PT_BINARY_LOOP(add_##SUF, T, x + y)                                                            \
    PT_BINARY_LOOP(sub_##SUF, T, x - y)                                                            \
    PT_BINARY_LOOP(add_alpha_##SUF, T, FMA(al, y, x))                                \
    PT_BINARY_LOOP(mul_##SUF, T, x * y)
PT_FLOAT_LOOPS(f4, float, __builtin_fmaf)
PT_FLOAT_LOOPS(f8, double, __builtin_fma)

/* Complex products by the textbook formula, as torch's vectorized CPU code computes them (C's
 * own complex multiply adds an inf/NaN recovery that neither torch nor NumPy's loops do). */
#define PT_CMUL(T, P, Q) ((T){(P).re * (Q).re - (P).im * (Q).im, (P).re * (Q).im + (P).im * (Q).re})
#define PT_COMPLEX_LOOPS(SUF, T)                                                                   \
    PT_BINARY_LOOP(add_##SUF, T, ((T){x.re + y.re, x.im + y.im}))                                  \
    PT_BINARY_LOOP(sub_##SUF, T, ((T){x.re - y.re, x.im - y.im}))                                  \
    PT_BINARY_LOOP(add_alpha_##SUF, T,                                                             \
                   ((T){x.re + PT_CMUL(T, al, y).re, x.im + PT_CMUL(T, al, y).im}))                \
    PT_BINARY_LOOP(mul_##SUF, T, PT_CMUL(T, x, y))
PT_COMPLEX_LOOPS(c4, c64)
PT_COMPLEX_LOOPS(c8, c128)

/* By op, then loop dtype; float16 and bfloat16 compute in float32 and have no loops. */
#define PT_BINARY_ROW(OP, B1)                                                                      \
    {                                                                                              \
        [PT_BOOL] = B1, [PT_UINT8] = OP##_u8, [PT_INT8] = OP##_u8, [PT_INT16] = OP##_u16,          \
        [PT_INT32] = OP##_u32, [PT_INT64] = OP##_u64, [PT_FLOAT32] = OP##_f4,                      \
        [PT_FLOAT64] = OP##_f8, [PT_COMPLEX64] = OP##_c4, [PT_COMPLEX128] = OP##_c8,               \
    }
PT_CPU_KERNELS_DEFINE(binary, pt_binary_table) = {{
    [PT_BINARY_ADD] = PT_BINARY_ROW(add, add_b1),
    [PT_BINARY_SUB] = PT_BINARY_ROW(sub, NULL),
    [PT_BINARY_ADD_ALPHA] = PT_BINARY_ROW(add_alpha, add_alpha_b1),
    [PT_BINARY_MUL] = PT_BINARY_ROW(mul, mul_b1),
}};
_Static_assert(sizeof(c128) <= sizeof(pt_binary_value), "a value holds every loop type");
