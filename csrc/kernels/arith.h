/* arith.h - the loop table of pow, maximum, minimum and atan2: what arith.c (the front) and
 * cpu/arith_kernels.c (the loops, compiled once per CPU capability) share. */
#ifndef PT_KERNELS_ARITH_H
#define PT_KERNELS_ARITH_H

#include "internal.h"

/* Loops of two inputs: output, self, other of the loop dtype. */
enum {
    PT_ARITH_POW = 0,     /* self ** other elementwise (integers: torch's powi) */
    PT_ARITH_MAXIMUM = 1, /* NaN propagates */
    PT_ARITH_MINIMUM = 2,
    PT_ARITH_ATAN2 = 3,
    PT_ARITH_OP_COUNT = 4
};

/* Loops of pow with a Scalar exponent, one input (output, self), as torch chooses among them
 * (Note [pow with a Scalar exponent] in arith.c); ctx points to a pt_pow_exponent. */
enum {
    PT_POW_ONE = 0,        /* exponent 0: every element 1 */
    PT_POW_COPY = 1,       /* exponent 1 */
    PT_POW_GENERIC = 2,    /* pow(x, e) */
    PT_POW_SQUARE = 3,     /* x * x */
    PT_POW_CUBE = 4,       /* x * x * x */
    PT_POW_RSQUARE = 5,    /* 1 / (x * x) */
    PT_POW_SQRT = 6,       /* sqrt(x) */
    PT_POW_RSQRT = 7,      /* 1 / sqrt(x) */
    PT_POW_RECIPROCAL = 8, /* 1 / x */
    PT_POW_OP_COUNT = 9
};

/* The exponent as each loop reads it: integers as int64 (cast to the loop's type), floating
 * loops as a double (float32 computes pow in double, as torch), complex ones as (re, im). */
typedef struct pt_pow_exponent {
    int64_t i;
    double d, re, im;
} pt_pow_exponent;

typedef struct pt_arith_table {
    pt_loop_fn binary[PT_ARITH_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
    pt_loop_fn pow_scalar[PT_POW_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
} pt_arith_table;

#endif
