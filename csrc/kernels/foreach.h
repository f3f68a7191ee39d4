/* foreach.h - the list kernels' loops: what foreach.c (the front: argument checks, the split of
 * all tensors' elements across threads) and cpu/foreach_kernels.c (compiled once per CPU
 * capability) share.
 *
 * A loop runs over n elements of one position of the lists: p[0] is written, p[1..4] are read
 * (p[0] may equal p[1] for the in-place forms; the fused optimizers write several). Every operand
 * is contiguous and of one dtype. The scalars of a position are in `a` (the fused optimizers' bias
 * corrections differ per tensor, hence per position).
 */
#ifndef PT_KERNELS_FOREACH_H
#define PT_KERNELS_FOREACH_H

#include "internal.h"

typedef enum pt_fe_op {
    PT_FE_ADD_S,      /* o = a + s0 */
    PT_FE_ADD_L,      /* o = a + s0 * b */
    PT_FE_MUL_S,      /* o = a * s0 */
    PT_FE_MUL_L,      /* o = a * b */
    PT_FE_DIV_S,      /* o = a / s0 */
    PT_FE_DIV_L,      /* o = a / b */
    PT_FE_MAX_S,      /* o = maximum(a, s0), NaN propagating */
    PT_FE_MAX_L,
    PT_FE_CLAMP_MIN_S, /* o = a < s0 ? s0 : a, NaN kept */
    PT_FE_CLAMP_MIN_L,
    PT_FE_CLAMP_MAX_S,
    PT_FE_CLAMP_MAX_L,
    PT_FE_ADDCMUL,    /* o = a + s0 * b * c */
    PT_FE_ADDCDIV,    /* o = a + s0 * b / c */
    PT_FE_LERP_S,     /* o = lerp(a, b, s0), torch's two-sided formula */
    PT_FE_LERP_L,     /* o = lerp(a, b, c) */
    PT_FE_SQRT,
    PT_FE_NEG,
    PT_FE_ABS,
    PT_FE_SIGN,
    PT_FE_RECIPROCAL,
    PT_FE_EXP,
    PT_FE_ZERO,
    PT_FE_COPY,       /* o = a */
    PT_FE_ADAM,       /* p: param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq (Note in foreach.c) */
    PT_FE_SGD,        /* p: param, grad, momentum_buffer */
    PT_FE_ADAGRAD,    /* p: param, grad, state_sum */
    PT_FE_COUNT
} pt_fe_op;

/* Flags of the fused optimizers. */
enum {
    PT_FE_AMSGRAD = 1, PT_FE_MAXIMIZE = 2, PT_FE_ADAMW = 4, PT_FE_SCALE = 8,
    PT_FE_NESTEROV = 16, PT_FE_FIRST_STEP = 32, PT_FE_MOMENTUM = 64
};

typedef struct pt_fe_args {
    double s[8];
    int32_t flags;
} pt_fe_args;

typedef void (*pt_fe_fn)(char *const *p, int64_t n, const pt_fe_args *a);

typedef struct pt_foreach_table {
    pt_fe_fn f32[PT_FE_COUNT];
    pt_fe_fn f64[PT_FE_COUNT];
    /* sum of |x|^ord (ord 0: count of nonzeros; ord +-inf: max/min |x|) of n contiguous
     * elements, accumulated in double */
    double (*norm_f32)(const float *x, int64_t n, double ord);
    double (*norm_f64)(const double *x, int64_t n, double ord);
} pt_foreach_table;

#endif
