/* compare_kernels.c - the inner loops of the comparisons and the logical operators, compiled once
 * per CPU capability (cpu_kernel.h); compare.c runs them through the iterator.
 *
 * Every loop reads two inputs of one loop dtype and writes bool bytes (0 or 1). Signed and
 * unsigned 8-bit integers order differently, so each integer dtype has its own loop. A bool input
 * counts as true for any nonzero byte (torch keeps odd bytes from raw memory). Complex values are
 * equal when both parts are, and true when either part is nonzero; they have no order.
 */
#include "cpu_kernel.h"

#include "compare.h"
#include "elementwise_loops.h"

#define PT_ORDERED(SUF, T)                                                                         \
    PT_LOOP_BINARY(eq_##SUF, T, uint8_t, (uint8_t)(x == y))                                        \
    PT_LOOP_BINARY(ne_##SUF, T, uint8_t, (uint8_t)(x != y))                                        \
    PT_LOOP_BINARY(lt_##SUF, T, uint8_t, (uint8_t)(x < y))                                         \
    PT_LOOP_BINARY(le_##SUF, T, uint8_t, (uint8_t)(x <= y))                                        \
    PT_LOOP_BINARY(gt_##SUF, T, uint8_t, (uint8_t)(x > y))                                         \
    PT_LOOP_BINARY(ge_##SUF, T, uint8_t, (uint8_t)(x >= y))                                        \
    PT_LOOP_BINARY(logical_and_##SUF, T, uint8_t, (uint8_t)((x != 0) & (y != 0)))                  \
    PT_LOOP_BINARY(logical_or_##SUF, T, uint8_t, (uint8_t)((x != 0) | (y != 0)))                   \
    PT_LOOP_BINARY(logical_xor_##SUF, T, uint8_t, (uint8_t)((x != 0) ^ (y != 0)))
PT_ORDERED(u8, uint8_t)
PT_ORDERED(i8, int8_t)
PT_ORDERED(i16, int16_t)
PT_ORDERED(i32, int32_t)
PT_ORDERED(i64, int64_t)
PT_ORDERED(f4, float)
PT_ORDERED(f8, double)

/* Bool: compared as truth values. */
#define B(v) ((v) != 0)
PT_LOOP_BINARY(eq_b1, uint8_t, uint8_t, (uint8_t)(B(x) == B(y)))
PT_LOOP_BINARY(ne_b1, uint8_t, uint8_t, (uint8_t)(B(x) != B(y)))
PT_LOOP_BINARY(lt_b1, uint8_t, uint8_t, (uint8_t)(B(x) < B(y)))
PT_LOOP_BINARY(le_b1, uint8_t, uint8_t, (uint8_t)(B(x) <= B(y)))
PT_LOOP_BINARY(gt_b1, uint8_t, uint8_t, (uint8_t)(B(x) > B(y)))
PT_LOOP_BINARY(ge_b1, uint8_t, uint8_t, (uint8_t)(B(x) >= B(y)))
#undef B
#define logical_and_b1 logical_and_u8
#define logical_or_b1 logical_or_u8
#define logical_xor_b1 logical_xor_u8

#define PT_COMPLEX_COMPARE(SUF, C)                                                                 \
    PT_LOOP_BINARY(eq_##SUF, C, uint8_t, (uint8_t)((x.re == y.re) & (x.im == y.im)))               \
    PT_LOOP_BINARY(ne_##SUF, C, uint8_t, (uint8_t)((x.re != y.re) | (x.im != y.im)))               \
    PT_LOOP_BINARY(logical_and_##SUF, C, uint8_t,                                                  \
                   (uint8_t)(((x.re != 0) | (x.im != 0)) & ((y.re != 0) | (y.im != 0))))           \
    PT_LOOP_BINARY(logical_or_##SUF, C, uint8_t,                                                   \
                   (uint8_t)(((x.re != 0) | (x.im != 0)) | ((y.re != 0) | (y.im != 0))))           \
    PT_LOOP_BINARY(logical_xor_##SUF, C, uint8_t,                                                  \
                   (uint8_t)(((x.re != 0) | (x.im != 0)) ^ ((y.re != 0) | (y.im != 0))))
PT_COMPLEX_COMPARE(c4, pt_c64)
PT_COMPLEX_COMPARE(c8, pt_c128)

#define PT_COMPARE_ROW(OP, C4, C8)                                                                 \
    PT_LOOP_ROW(OP##_b1, OP##_u8, OP##_i8, OP##_i16, OP##_i32, OP##_i64, OP##_f4, OP##_f8, C4, C8)
PT_CPU_KERNELS_DEFINE(compare, pt_compare_table) = {{
    [PT_COMPARE_EQ] = PT_COMPARE_ROW(eq, eq_c4, eq_c8),
    [PT_COMPARE_NE] = PT_COMPARE_ROW(ne, ne_c4, ne_c8),
    [PT_COMPARE_LT] = PT_COMPARE_ROW(lt, NULL, NULL),
    [PT_COMPARE_LE] = PT_COMPARE_ROW(le, NULL, NULL),
    [PT_COMPARE_GT] = PT_COMPARE_ROW(gt, NULL, NULL),
    [PT_COMPARE_GE] = PT_COMPARE_ROW(ge, NULL, NULL),
    [PT_COMPARE_LOGICAL_AND] = PT_COMPARE_ROW(logical_and, logical_and_c4, logical_and_c8),
    [PT_COMPARE_LOGICAL_OR] = PT_COMPARE_ROW(logical_or, logical_or_c4, logical_or_c8),
    [PT_COMPARE_LOGICAL_XOR] = PT_COMPARE_ROW(logical_xor, logical_xor_c4, logical_xor_c8),
}};
