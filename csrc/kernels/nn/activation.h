/* activation.h - the nn activation family's loop table: what the fronts (nn/activation.c: the
 * elementwise activations and their backward operators; nn/activation_rows.c: glu, prelu and the
 * softmax backward operators) and cpu/nn_activation_kernels.c (the loops, compiled once per CPU
 * capability) share. */
#ifndef PT_KERNELS_NN_ACTIVATION_H
#define PT_KERNELS_NN_ACTIVATION_H

#include "internal.h"
#include "softmax.h"

/* The loops, by operator. Operands in the iterator's order: outputs first, then inputs; `x` is
 * self, `g` the incoming gradient. Parameters p[k] are the operator's Scalars in its own order. */
enum {
    /* (out, x) */
    PT_ACT_ELU,         /* p: alpha * scale (negcoef), scale, input_scale */
    PT_ACT_LEAKY_RELU,  /* p: negative_slope */
    PT_ACT_SOFTPLUS,    /* p: beta, threshold */
    PT_ACT_HARDSIGMOID,
    PT_ACT_HARDSWISH,
    PT_ACT_MISH,
    PT_ACT_SOFTSHRINK,  /* p: lambd */
    PT_ACT_HARDSHRINK,  /* p: lambd */
    /* (out, buffer, x) */
    PT_ACT_LOG_SIGMOID,
    /* (grad_input, g, x) */
    PT_ACT_HARDTANH_BW,    /* p: min_val, max_val */
    PT_ACT_ELU_BW,         /* p: negcoef, scale, input_scale; x is self */
    PT_ACT_ELU_BW_RESULT,  /* the same, x is the result */
    PT_ACT_LEAKY_RELU_BW,  /* p: negative_slope */
    PT_ACT_SOFTPLUS_BW,    /* p: beta, threshold */
    PT_ACT_HARDSIGMOID_BW,
    PT_ACT_HARDSWISH_BW,
    PT_ACT_MISH_BW,
    PT_ACT_SHRINK_BW,      /* p: lambd (softshrink and hardshrink) */
    PT_ACT_THRESHOLD_BW,   /* p: threshold */
    PT_ACT_GELU_BW,
    PT_ACT_GELU_TANH_BW,
    PT_ACT_SILU_BW,
    /* (grad_input, g, x, buffer) */
    PT_ACT_LOG_SIGMOID_BW,
    /* (out, x, weight) */
    PT_ACT_PRELU,
    /* (grad_input, grad_weight, g, x, weight) */
    PT_ACT_PRELU_BW,
    /* (out, a, b): a * sigmoid(b) */
    PT_ACT_GLU,
    /* (grad_a, grad_b, g, a, b) */
    PT_ACT_GLU_BW,
    /* (out, noise, x, u): u uniform in [0, 1) drawn before; p: lower, upper */
    PT_ACT_RRELU_TRAIN,
    PT_ACT_OP_COUNT
};

typedef struct pt_act_params {
    double p[4];
} pt_act_params;

/* Loops by (op, [0] float32, [1] float64); float16 and bfloat16 compute in float32. The softmax
 * backward rows: grad_input = y * (g - sum(g * y)) ([0]) or g - exp(y) * sum(g) ([1]) over one
 * contiguous row of n elements (y the forward's output). */
typedef struct pt_act_table {
    pt_loop_fn fn[PT_ACT_OP_COUNT][2];
    void (*softmax_bw_f32[2])(float *gi, const float *g, const float *y, int64_t n);
    void (*softmax_bw_f64[2])(double *gi, const double *g, const double *y, int64_t n);
    /* The same by columns (softmax.h's Note [softmax across columns]): w <= PT_SOFTMAX_COLS
     * columns, n rows `stride` elements apart. */
    void (*softmax_bw_cols_f32[2])(float *gi, const float *g, const float *y, int64_t n,
                                   int64_t stride, int64_t w);
    void (*softmax_bw_cols_f64[2])(double *gi, const double *g, const double *y, int64_t n,
                                   int64_t stride, int64_t w);
} pt_act_table;

/* The chosen capability's table (nn/activation.c). */
const pt_act_table *pt_act_kernels(void);

#endif
