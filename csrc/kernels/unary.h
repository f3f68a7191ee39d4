/* unary.h - the unary family's loop table: what the fronts (unary.c: the math functions;
 * activation.c: clamp, where, threshold, relu, gelu, silu, nan_to_num) and cpu/unary_kernels.c
 * (the loops, compiled once per CPU capability) share. */
#ifndef PT_KERNELS_UNARY_H
#define PT_KERNELS_UNARY_H

#include "internal.h"

enum {
    /* one input: operands (output, self) */
    PT_UNARY_ABS, PT_UNARY_NEG, PT_UNARY_RECIPROCAL, PT_UNARY_FRAC, PT_UNARY_SIGN, PT_UNARY_SGN,
    PT_UNARY_ACOS, PT_UNARY_ASIN, PT_UNARY_ATAN, PT_UNARY_CEIL, PT_UNARY_FLOOR, PT_UNARY_ROUND,
    PT_UNARY_TRUNC, PT_UNARY_COS, PT_UNARY_COSH, PT_UNARY_SIN, PT_UNARY_SINH, PT_UNARY_TAN,
    PT_UNARY_TANH, PT_UNARY_ERF, PT_UNARY_ERFC, PT_UNARY_EXP, PT_UNARY_EXP2, PT_UNARY_EXPM1,
    PT_UNARY_LOG, PT_UNARY_LOG10, PT_UNARY_LOG1P, PT_UNARY_LOG2, PT_UNARY_RSQRT, PT_UNARY_SQRT,
    PT_UNARY_SIGMOID, PT_UNARY_SILU, PT_UNARY_RELU, PT_UNARY_GELU, PT_UNARY_GELU_TANH,
    /* (bool output, self) */
    PT_UNARY_LOGICAL_NOT, PT_UNARY_ISNAN, PT_UNARY_ISINF, PT_UNARY_ISFINITE,
    /* one input and parameters in ctx (a pt_unary_params) */
    PT_UNARY_ROUND_DECIMALS, /* params: d[0] = 10^|decimals|, i = decimals < 0 */
    PT_UNARY_NAN_TO_NUM,     /* params: v[0..2] = nan, posinf, neginf in the loop dtype */
    PT_UNARY_CLAMP_SCALAR,   /* params: v[0] = min, v[1] = max (-inf, +inf when not given) */
    PT_UNARY_THRESHOLD,      /* params: v[0] = threshold, v[1] = value */
    /* several inputs */
    PT_UNARY_CLAMP_TENSOR,     /* (out, self, min, max) */
    PT_UNARY_CLAMP_MIN_TENSOR, /* (out, self, min) */
    PT_UNARY_CLAMP_MAX_TENSOR, /* (out, self, max) */
    PT_UNARY_WHERE,            /* (out, condition as bool, self, other): by loop dtype */
    PT_UNARY_OP_COUNT
};

/* One element of a loop dtype; aligned for all. */
typedef union pt_unary_value {
    uint64_t u;
    double d[2];
    unsigned char bytes[16];
} pt_unary_value;

typedef struct pt_unary_params {
    pt_unary_value v[3];
    double d[1];
    int64_t i;
} pt_unary_params;

/* Loops by (op, loop dtype of self, or of the output for where): NULL where the op has no loop
 * for that dtype. float16 and bfloat16 compute in float32 and have no loops. */
typedef struct pt_unary_table {
    pt_loop_fn fn[PT_UNARY_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
} pt_unary_table;

/* ---------------------------------------------------------------- the fronts (unary.c) */

enum { PT_UNARY_KIND_FLOAT, PT_UNARY_KIND_KEEP, PT_UNARY_KIND_ABS, PT_UNARY_KIND_BOOL };
enum { PT_UNARY_FUNCTIONAL, PT_UNARY_INPLACE, PT_UNARY_OUT };

/* An operator of one tensor: its loop, its name, torch's kernel name for "not implemented"
 * messages and its dtype kind (Note [unary dtypes] in unary.c). */
typedef struct pt_unary_spec {
    int32_t op;
    const char *name;
    const char *kname;
    int32_t kind;
} pt_unary_spec;

/* Runs spec on self in one of the three modes (out_arg for PT_UNARY_OUT). scalars (NULL, or three
 * entries that may be NULL) become the params' values v[k] in the loop dtype, through self's
 * common dtype; iparam is the params' i. */
pt_status pt_unary_call(const pt_unary_spec *spec, int mode, const pt_tensor *self,
                        pt_tensor *out_arg, const pt_scalar *const *scalars, int64_t iparam,
                        pt_tensor **out);
/* The function, in-place and out= kernels of a plain unary operator NAME, through the spec
 * `spec_NAME` the including file defines. */
#define PT_UNARY_OPS(NAME)                                                                         \
    pt_status pt_kernel_##NAME(const pt_tensor *self, pt_tensor **out)                             \
    {                                                                                              \
        return pt_unary_call(&spec_##NAME, PT_UNARY_FUNCTIONAL, self, NULL, NULL, 0, out);         \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, pt_tensor **out)                                \
    {                                                                                              \
        return pt_unary_call(&spec_##NAME, PT_UNARY_INPLACE, self, NULL, NULL, 0, out);            \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, pt_tensor *out_arg, pt_tensor **out)   \
    {                                                                                              \
        return pt_unary_call(&spec_##NAME, PT_UNARY_OUT, self, out_arg, NULL, 0, out);             \
    }

/* The chosen capability's loop, NULL when (op, dtype) has none. */
pt_loop_fn pt_unary_loop(int32_t op, int32_t dtype);
/* torch's `"kname" not implemented for 'Float'` (NotImplementedError). */
pt_status pt_unary_not_implemented(const char *kname, int32_t dtype);

#endif
