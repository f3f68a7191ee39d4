/* compare.h - the loop table of the comparisons (eq, ne, lt, le, gt, ge) and the logical
 * operators (logical_and, logical_or, logical_xor): what compare.c (the front) and
 * cpu/compare_kernels.c (the loops, compiled once per CPU capability) share. */
#ifndef PT_KERNELS_COMPARE_H
#define PT_KERNELS_COMPARE_H

#include "internal.h"

enum {
    PT_COMPARE_EQ = 0,
    PT_COMPARE_NE = 1,
    PT_COMPARE_LT = 2,
    PT_COMPARE_LE = 3,
    PT_COMPARE_GT = 4,
    PT_COMPARE_GE = 5,
    PT_COMPARE_LOGICAL_AND = 6, /* operands count as true when nonzero (NaN included) */
    PT_COMPARE_LOGICAL_OR = 7,
    PT_COMPARE_LOGICAL_XOR = 8,
    PT_COMPARE_OP_COUNT = 9
};

/* Loops by (op, the inputs' loop dtype): inputs of that dtype, a bool output (bytes 0 or 1);
 * NULL where torch refuses the dtype (complex ordering). */
typedef struct pt_compare_table {
    pt_loop_fn fn[PT_COMPARE_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
} pt_compare_table;

#endif
