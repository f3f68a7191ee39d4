/* division.h - the division family's loop table: what division.c (the front of div, floor_divide,
 * remainder and fmod) and cpu/division_kernels.c (the loops, compiled once per CPU capability)
 * share. */
#ifndef PT_KERNELS_DIVISION_H
#define PT_KERNELS_DIVISION_H

#include "internal.h"

enum {
    PT_DIVISION_TRUE = 0,      /* a / b (floating and complex only: integers divide as floats) */
    PT_DIVISION_TRUNC = 1,     /* a / b rounded toward zero */
    PT_DIVISION_FLOOR = 2,     /* a / b rounded down (Python's //) */
    PT_DIVISION_REMAINDER = 3, /* a - floor(a / b) * b: the sign of b (Python's %) */
    PT_DIVISION_FMOD = 4,      /* a - trunc(a / b) * b: the sign of a (C's fmod and %) */
    PT_DIVISION_OP_COUNT = 5
};

/* Loops by (op, loop dtype), operands output, self, other of the loop dtype; NULL where torch
 * refuses the dtype. Integer loops take a pt_loop_flag * ctx, raised on a division by zero. */
typedef struct pt_division_table {
    pt_loop_fn fn[PT_DIVISION_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
} pt_division_table;

#endif
