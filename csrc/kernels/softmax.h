/* softmax.h - the softmax family's row kernels: what softmax.c (the front: dims, dtypes, outputs,
 * rows split across threads) and cpu/softmax_kernels.c (compiled once per CPU capability) share. */
#ifndef PT_KERNELS_SOFTMAX_H
#define PT_KERNELS_SOFTMAX_H

#include "internal.h"

/* One contiguous row of n elements: out = softmax(in) or log_softmax(in); out may be in. */
typedef struct pt_softmax_table {
    void (*f32[2])(float *out, const float *in, int64_t n);   /* [0] softmax, [1] log_softmax */
    void (*f64[2])(double *out, const double *in, int64_t n);
} pt_softmax_table;

#endif
