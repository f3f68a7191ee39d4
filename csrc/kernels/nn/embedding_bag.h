/* embedding_bag.h - embedding_bag's row loops (cpu/nn_bag_kernels.c, compiled once per CPU
 * capability) and what the front (embedding_bag.c: checks, bags, outputs, threads) hands them.
 *
 * A bag is the range [start[b], end[b]) of the indices; weight rows are dense (unit stride along
 * the embedding dim, row_stride elements apart), outputs and gradients are contiguous. The loops
 * work in float32 or float64 (float16 / bfloat16 go through float32 in the front). */
#ifndef PT_KERNELS_NN_EMBEDDING_BAG_H
#define PT_KERNELS_NN_EMBEDDING_BAG_H

#include "internal.h"

enum { PT_BAG_SUM = 0, PT_BAG_MEAN = 1, PT_BAG_MAX = 2 };

typedef struct pt_bag_args {
    const void *weight;        /* [num_weights, D], rows row_stride elements apart */
    int64_t row_stride, D, num_weights;
    const int64_t *idx;        /* the indices, checked to lie in [0, num_weights) */
    const int64_t *start, *end; /* per bag */
    const void *psw;           /* per-sample weights (weight's dtype) or NULL */
    int64_t padding_idx;       /* < 0: none */
    int32_t mode;
    void *out;                 /* [B, D] */
    int64_t *bag_size;         /* [B]: rows counted (padding excluded) */
    int64_t *max_idx;          /* [B, D] in max mode, else NULL */
} pt_bag_args;

/* The backward's view: rows [begin, end) of grad_weight belong to the caller, which zeroed them;
 * every index i whose row falls there adds its bag's gradient row, scaled. */
typedef struct pt_bag_grad_args {
    const void *grad;          /* [B, D] */
    int64_t B, D, n;
    const int64_t *idx, *offset2bag, *bag_size;
    const int64_t *max_idx;    /* [B, D] in max mode */
    const void *psw;
    const double *freq_scale;  /* per weight row (scale_grad_by_freq) or NULL */
    int64_t padding_idx;
    int32_t mode;
    void *grad_weight;         /* [num_weights, D] */
    /* per_sample_weights backward: the gathered weight rows */
    const void *weight;
    int64_t row_stride;
    void *grad_psw;            /* [n] */
} pt_bag_grad_args;

typedef void (*pt_bag_fn)(const pt_bag_args *a, int64_t begin, int64_t end);
typedef void (*pt_bag_grad_fn)(const pt_bag_grad_args *a, int64_t begin, int64_t end);

/* [0] float32, [1] float64. forward: bags [begin, end); dense_backward: weight rows [begin, end);
 * psw_backward: indices [begin, end). */
typedef struct pt_bag_table {
    pt_bag_fn forward[2];
    pt_bag_grad_fn dense_backward[2];
    pt_bag_grad_fn psw_backward[2];
} pt_bag_table;

#endif
