/* elementwise_more.h - the loop table of the inverse hyperbolic functions, the angle conversions,
 * the sign and infinity predicates, frexp, and the binary functions hypot, copysign, nextafter,
 * fmax, fmin, gcd, lcm, heaviside, logaddexp, logaddexp2 and ldexp, the functions of three
 * tensors addcmul, addcdiv and lerp, and the loops of isclose, isin and equal: what the fronts
 * (elementwise_more.c, elementwise_search.c) and cpu/elementwise_more_kernels.c (the loops,
 * compiled once per CPU capability) share. */
#ifndef PT_KERNELS_ELEMENTWISE_MORE_H
#define PT_KERNELS_ELEMENTWISE_MORE_H

#include "internal.h"

/* Loops of one input: (output, self); predicates write bool; frexp writes (mantissa, exponent as
 * int32, self). */
enum {
    PT_EWU_ACOSH, PT_EWU_ASINH, PT_EWU_ATANH, PT_EWU_DEG2RAD, PT_EWU_RAD2DEG,
    PT_EWU_SIGNBIT, PT_EWU_ISPOSINF, PT_EWU_ISNEGINF, PT_EWU_FREXP,
    PT_EWU_OP_COUNT
};

/* Loops of two inputs: (output, self, other), all of the loop dtype. */
enum {
    PT_EWB_HYPOT, PT_EWB_COPYSIGN, PT_EWB_NEXTAFTER, PT_EWB_FMAX, PT_EWB_FMIN, PT_EWB_GCD,
    PT_EWB_LCM, PT_EWB_HEAVISIDE, PT_EWB_LOGADDEXP, PT_EWB_LOGADDEXP2,
    PT_EWB_LDEXP, /* self * 2 ** other */
    PT_EWB_OP_COUNT
};

/* Loops of three inputs: (output, self, a, b), all of the loop dtype; ctx points to a
 * pt_ew_value holding the Scalar (value, weight) in the loop dtype where the op takes one. */
enum {
    PT_EWT_ADDCMUL,      /* self + value * a * b */
    PT_EWT_ADDCDIV,      /* self + value * a / b */
    PT_EWT_LERP_SCALAR,  /* lerp(self, a = end, weight = value); b unused (self again) */
    PT_EWT_LERP_TENSOR,  /* lerp(self, a = end, b = weight) */
    PT_EWT_OP_COUNT
};

/* One element of a loop dtype; aligned for all. */
typedef union pt_ew_value {
    uint64_t u;
    double d[2];
    unsigned char bytes[16];
} pt_ew_value;

/* isclose's parameters (ctx of the isclose loops: (bool output, self, other)). */
typedef struct pt_ew_isclose_params {
    double rtol, atol;
    int32_t equal_nan;
} pt_ew_isclose_params;

/* isin's test values, sorted ascending in the loop dtype with NaNs last (ctx of the isin loops:
 * (bool output, elements)). */
typedef struct pt_ew_isin_params {
    const void *values;
    int64_t count;
    int32_t invert;
} pt_ew_isin_params;

/* Loops by (op, loop dtype). float16 and bfloat16 compute in float32 and have no loops here,
 * except nextafter, whose step is one unit in the last place of the 16-bit type itself: its
 * half-precision loops read and write the raw 16-bit values (nextafter16). */
typedef struct pt_ew_table {
    pt_loop_fn unary[PT_EWU_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
    pt_loop_fn binary[PT_EWB_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
    pt_loop_fn nextafter16[PT_DTYPE_BUILTIN_COUNT]; /* [PT_FLOAT16], [PT_BFLOAT16] */
    pt_loop_fn ternary[PT_EWT_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
    pt_loop_fn isclose[PT_DTYPE_BUILTIN_COUNT];
    pt_loop_fn isin[PT_DTYPE_BUILTIN_COUNT];
    /* equal: (self, other), no output; raises the pt_loop_flag in ctx where two elements differ */
    pt_loop_fn differ[PT_DTYPE_BUILTIN_COUNT];
} pt_ew_table;

#endif
