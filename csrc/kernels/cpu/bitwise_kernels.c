/* bitwise_kernels.c - the inner loops of bitwise_and/or/xor/not and the shifts, compiled once per
 * CPU capability (cpu_kernel.h); bitwise.c runs them through the iterator.
 *
 * and, or, xor and not act on bits alone, so integers of one width share a loop; on bool they are
 * the logical operations (any nonzero byte is true; results are 0 or 1). Shifts follow torch's
 * kernels: a count that is negative (read as signed, so 200 in a uint8 counts as -56) or at least
 * the width gives 0 for a left shift; a right shift then shifts by the width less the sign bit,
 * which leaves 0 or -1 for signed types and 0 for uint8. Left shifts run on the unsigned type (a
 * signed one would overflow, undefined in C) and wrap as torch's results do.
 */
#include "cpu_kernel.h"

#include "bitwise.h"
#include "elementwise_loops.h"

#define PT_BITS(SUF, T)                                                                            \
    PT_LOOP_BINARY(and_##SUF, T, T, (T)(x & y))                                                    \
    PT_LOOP_BINARY(or_##SUF, T, T, (T)(x | y))                                                     \
    PT_LOOP_BINARY(xor_##SUF, T, T, (T)(x ^ y))                                                    \
    PT_LOOP_UNARY(not_##SUF, T, T, (T)~x)
PT_BITS(u8, uint8_t)
PT_BITS(u16, uint16_t)
PT_BITS(u32, uint32_t)
PT_BITS(u64, uint64_t)
PT_LOOP_BINARY(and_b1, uint8_t, uint8_t, (uint8_t)((x != 0) & (y != 0)))
PT_LOOP_BINARY(or_b1, uint8_t, uint8_t, (uint8_t)((x != 0) | (y != 0)))
PT_LOOP_BINARY(xor_b1, uint8_t, uint8_t, (uint8_t)((x != 0) ^ (y != 0)))
PT_LOOP_UNARY(not_b1, uint8_t, uint8_t, (uint8_t)(x == 0))

/* S the element type, SS its signed and U its unsigned twin, W the width in bits, SIGN 1 for
 * signed types. */
#define PT_SHIFTS(SUF, S, SS, U, W, SIGN)                                                          \
    static inline S shl_##SUF(S a, S b)                                                         \
    {                                                                                              \
        return (SS)b < 0 || b >= (W) ? (S)0 : (S)((U)a << b);                                      \
    }                                                                                              \
    static inline S shr_##SUF(S a, S b)                                                         \
    {                                                                                              \
        return (S)((SS)b < 0 || b >= (W) - (SIGN) ? a >> ((W) - (SIGN)) : a >> b);                \
    }                                                                                              \
    PT_LOOP_BINARY(lshift_##SUF, S, S, shl_##SUF(x, y))                                         \
    PT_LOOP_BINARY(rshift_##SUF, S, S, shr_##SUF(x, y))
PT_SHIFTS(u8, uint8_t, int8_t, uint8_t, 8, 0)
PT_SHIFTS(i8, int8_t, int8_t, uint8_t, 8, 1)
PT_SHIFTS(i16, int16_t, int16_t, uint16_t, 16, 1)
PT_SHIFTS(i32, int32_t, int32_t, uint32_t, 32, 1)
PT_SHIFTS(i64, int64_t, int64_t, uint64_t, 64, 1)

#define PT_BITS_ROW(OP)                                                                            \
    PT_LOOP_ROW(OP##_b1, OP##_u8, OP##_u8, OP##_u16, OP##_u32, OP##_u64, NULL, NULL, NULL, NULL)
#define PT_SHIFT_ROW(OP)                                                                           \
    PT_LOOP_ROW(NULL, OP##_u8, OP##_i8, OP##_i16, OP##_i32, OP##_i64, NULL, NULL, NULL, NULL)
PT_CPU_KERNELS_DEFINE(bitwise, pt_bitwise_table) = {{
    [PT_BITWISE_AND] = PT_BITS_ROW(and),
    [PT_BITWISE_OR] = PT_BITS_ROW(or),
    [PT_BITWISE_XOR] = PT_BITS_ROW(xor),
    [PT_BITWISE_LSHIFT] = PT_SHIFT_ROW(lshift),
    [PT_BITWISE_RSHIFT] = PT_SHIFT_ROW(rshift),
    [PT_BITWISE_NOT] = PT_BITS_ROW(not),
}};
