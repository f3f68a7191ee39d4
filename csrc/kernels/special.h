/* special.h - the special family's loop table: what special.c (the front) and
 * cpu/special_kernels.c (the loops, compiled once per CPU capability) share. */
#ifndef PT_KERNELS_SPECIAL_H
#define PT_KERNELS_SPECIAL_H

#include "internal.h"

enum {
    /* one input: operands (output, self) */
    PT_SPECIAL_LGAMMA, PT_SPECIAL_DIGAMMA, PT_SPECIAL_ERFINV, PT_SPECIAL_I0, PT_SPECIAL_I0E,
    PT_SPECIAL_I1, PT_SPECIAL_I1E, PT_SPECIAL_SINC, PT_SPECIAL_ENTR, PT_SPECIAL_ERFCX,
    PT_SPECIAL_NDTRI, PT_SPECIAL_LOG_NDTR,
    /* one input and params */
    PT_SPECIAL_POLYGAMMA, /* i = n */
    PT_SPECIAL_MVLGAMMA,  /* i = p */
    PT_SPECIAL_LOGIT,     /* d = eps, negative for None */
    /* two inputs: (output, self, other) */
    PT_SPECIAL_XLOGY, PT_SPECIAL_XLOG1PY, PT_SPECIAL_IGAMMA, PT_SPECIAL_IGAMMAC, PT_SPECIAL_ZETA,
    PT_SPECIAL_LOGIT_BACKWARD, /* (grad_input, grad_output, self); d = eps */
    PT_SPECIAL_OP_COUNT
};

/* What the loops with params read (ctx). */
typedef struct pt_special_params {
    double d;
    int64_t i;
} pt_special_params;

/* Loops by (op, loop dtype): float32 and float64 (sinc also complex); float16 and bfloat16
 * compute in float32. */
typedef struct pt_special_table {
    pt_loop_fn fn[PT_SPECIAL_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
} pt_special_table;

#endif
