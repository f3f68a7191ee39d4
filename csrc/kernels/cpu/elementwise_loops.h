/* elementwise_loops.h - the loop shapes of the elementwise families' kernels (division, arith,
 * compare, bitwise), included by their cpu/<family>_kernels.c after cpu_kernel.h.
 *
 * A loop takes NumPy's (data, byte strides, n) form: data[0] is the output, data[1] (and data[2])
 * the inputs, each already in its loop dtype (the iterator stages the rest). The binary shape has
 * the fast paths that the compiler vectorizes for the capability's instruction set - every
 * operand contiguous, one input a broadcast scalar (stride 0) beside contiguous ones, and both
 * inputs broadcast (one value computed and stored along the row) - and a strided loop for the
 * rest; the unary shape has the contiguous path, the broadcast one and the strided one.
 *
 * EXPR computes the result from x (self's element) and y (other's); it may read `ctx` and may set
 * `bad` (an int) when an input makes the operation fail (an integer division by zero): the loop
 * then raises the pt_loop_flag that ctx points to (binary.h), for the front to report. Loops whose
 * EXPR never sets `bad` lose the test to dead-code elimination.
 */
#ifndef PT_KERNELS_CPU_ELEMENTWISE_LOOPS_H
#define PT_KERNELS_CPU_ELEMENTWISE_LOOPS_H

#include <stdatomic.h>

#include "binary.h"

typedef struct pt_c64 {
    float re, im;
} pt_c64;
typedef struct pt_c128 {
    double re, im;
} pt_c128;

static inline void pt_loop_raise(void *ctx, int bad)
{
    if (bad && ctx) atomic_store_explicit((pt_loop_flag *)ctx, 1, memory_order_relaxed);
}

/* out (TO) = EXPR(x, y) with x, y of TI. */
#define PT_LOOP_BINARY(NAME, TI, TO, EXPR)                                                         \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        PT_UNUSED(ctx);                                                                            \
        int bad = 0;                                                                               \
        const int64_t si = (int64_t)sizeof(TI), so = (int64_t)sizeof(TO);                         \
        char *o = data[0];                                                                         \
        const char *a = data[1], *b = data[2];                                                     \
        if (s[0] == so && s[1] == si && s[2] == si) {                                              \
            TO *ov = (TO *)o;                                                                      \
            const TI *av = (const TI *)a, *bv = (const TI *)b;                                     \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const TI x = av[i], y = bv[i];                                                     \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == so && s[1] == si && s[2] == 0) {                                        \
            TO *ov = (TO *)o;                                                                      \
            const TI *av = (const TI *)a, y = *(const TI *)b;                                      \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const TI x = av[i];                                                                \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == so && s[1] == 0 && s[2] == si) {                                        \
            TO *ov = (TO *)o;                                                                      \
            const TI x = *(const TI *)a, *bv = (const TI *)b;                                      \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const TI y = bv[i];                                                                \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == so && s[1] == 0 && s[2] == 0) {                                         \
            /* both inputs broadcast along the row (an expanded gradient over a number) */         \
            TO *ov = (TO *)o;                                                                      \
            const TI x = *(const TI *)a, y = *(const TI *)b;                                       \
            const TO v = EXPR;                                                                     \
            PT_IVDEP for (int64_t i = 0; i < n; i++) ov[i] = v;                                    \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const TI x = *(const TI *)(a + i * s[1]), y = *(const TI *)(b + i * s[2]);         \
                *(TO *)(o + i * s[0]) = EXPR;                                                      \
            }                                                                                      \
        }                                                                                          \
        pt_loop_raise(ctx, bad);                                                                   \
    }

/* out (TO) = EXPR(x) with x of TI. */
#define PT_LOOP_UNARY(NAME, TI, TO, EXPR)                                                          \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        PT_UNUSED(ctx);                                                                            \
        const int64_t si = (int64_t)sizeof(TI), so = (int64_t)sizeof(TO);                         \
        if (s[0] == so && s[1] == si) {                                                            \
            TO *ov = (TO *)data[0];                                                                \
            const TI *av = (const TI *)data[1];                                                    \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const TI x = av[i];                                                                \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == so && s[1] == 0) {                                                      \
            TO *ov = (TO *)data[0];                                                                \
            const TI x = *(const TI *)data[1];                                                     \
            const TO v = EXPR;                                                                     \
            PT_IVDEP for (int64_t i = 0; i < n; i++) ov[i] = v;                                    \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const TI x = *(const TI *)(data[1] + i * s[1]);                                    \
                *(TO *)(data[0] + i * s[0]) = EXPR;                                                \
            }                                                                                      \
        }                                                                                          \
    }

/* A row of a family's table: one loop per loop dtype, NULL where the op refuses the dtype
 * (float16 and bfloat16 compute in float32 and have no loops of their own). */
#define PT_LOOP_ROW(B1, U8, I8, I16, I32, I64, F4, F8, C4, C8)                                  \
    {                                                                                              \
        [PT_BOOL] = B1, [PT_UINT8] = U8, [PT_INT8] = I8, [PT_INT16] = I16, [PT_INT32] = I32,       \
        [PT_INT64] = I64, [PT_FLOAT32] = F4, [PT_FLOAT64] = F8, [PT_COMPLEX64] = C4,              \
        [PT_COMPLEX128] = C8,                                                                      \
    }

#endif
