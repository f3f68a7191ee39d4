/* binary.h - the binary arithmetic family's loop table: what binary.c (the front: checks,
 * promotion, outputs through the iterator) and cpu/binary_kernels.c (the loops, compiled once per
 * CPU capability) share. */
#ifndef PT_KERNELS_BINARY_H
#define PT_KERNELS_BINARY_H

#include "internal.h"

enum {
    PT_BINARY_ADD = 0,       /* a + b */
    PT_BINARY_SUB = 1,       /* a - b */
    PT_BINARY_ADD_ALPHA = 2, /* a + alpha * b (sub with alpha != 1 is add with -alpha, as torch) */
    PT_BINARY_MUL = 3,       /* a * b */
    PT_BINARY_OP_COUNT = 4
};

/* One element of a loop dtype (alpha, a pre-converted scalar operand); aligned for all. */
typedef union pt_binary_value {
    uint64_t u;
    double d[2];
    unsigned char bytes[16];
} pt_binary_value;

/* Loops by (op, loop dtype): operands output, self, other, all of the loop dtype; ctx points to a
 * pt_binary_value holding alpha (PT_BINARY_ADD_ALPHA). float16 and bfloat16 compute in float32 and
 * have no loops; sub has none for bool. */
typedef struct pt_binary_table {
    pt_loop_fn fn[PT_BINARY_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
} pt_binary_table;

#endif
