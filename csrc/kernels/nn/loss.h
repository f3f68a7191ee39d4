/* loss.h - what the loss kernels' fronts (csrc/kernels/nn/loss*.c) and their inner loops
 * (csrc/kernels/cpu/nn_loss_kernels.c, compiled once per CPU capability) share. */
#ifndef PT_KERNELS_NN_LOSS_H
#define PT_KERNELS_NN_LOSS_H

#include "internal.h"

/* torch's reduction enum (torch.nn._reduction.get_enum). */
enum { PT_LOSS_NONE = 0, PT_LOSS_MEAN = 1, PT_LOSS_SUM = 2 };

/* The pointwise losses: one value per element of the broadcast operands. */
enum {
    PT_LOSS_MSE,
    PT_LOSS_SMOOTH_L1,
    PT_LOSS_HUBER,
    PT_LOSS_SOFT_MARGIN,
    PT_LOSS_BCE,
    PT_LOSS_BCE_LOGITS,
    PT_LOSS_POINTWISE_COUNT
};

/* The operands of a pointwise loss, contiguous, of one floating dtype and n elements each.
 * w (weight) and pw (pos_weight) are NULL when absent. The backward reads the incoming gradient
 * per element from g, or when g is NULL the one value gs (a reduced loss's gradient), and
 * multiplies by scale (1/n for a mean). */
typedef struct pt_loss_operands {
    const void *x, *y, *w, *pw, *g;
    double gs, param, scale;
} pt_loss_operands;

/* Elements [begin, end) of the operands: out[i - begin] = loss (forward) or its derivative with
 * respect to x (backward), in the operands' dtype. */
typedef void (*pt_loss_fn)(void *out, const pt_loss_operands *a, int64_t begin, int64_t end);

typedef struct pt_loss_table {
    pt_loss_fn forward[2][PT_LOSS_POINTWISE_COUNT];  /* [0] float32, [1] float64 */
    pt_loss_fn backward[2][PT_LOSS_POINTWISE_COUNT]; /* NULL: no backward kernel */
    double (*sum[2])(const void *v, int64_t n);      /* summed in double */
} pt_loss_table;

#endif
