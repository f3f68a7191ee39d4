/* bitwise.h - the loop table of bitwise_and, bitwise_or, bitwise_xor, bitwise_not and the shifts:
 * what bitwise.c (the front) and cpu/bitwise_kernels.c (the loops, compiled once per CPU
 * capability) share. */
#ifndef PT_KERNELS_BITWISE_H
#define PT_KERNELS_BITWISE_H

#include "internal.h"

enum {
    PT_BITWISE_AND = 0,
    PT_BITWISE_OR = 1,
    PT_BITWISE_XOR = 2,
    PT_BITWISE_LSHIFT = 3, /* shifts of a negative count or of the width or more give 0 */
    PT_BITWISE_RSHIFT = 4, /* ... and here a shift by the width less the sign bit */
    PT_BITWISE_NOT = 5,    /* one input: output, self */
    PT_BITWISE_OP_COUNT = 6
};

/* Loops by (op, loop dtype), all operands of it; NULL where torch refuses the dtype (floating and
 * complex types; bool for the shifts). */
typedef struct pt_bitwise_table {
    pt_loop_fn fn[PT_BITWISE_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
} pt_bitwise_table;

#endif
