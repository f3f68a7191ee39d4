/* softmax.h - the softmax family's row kernels: what softmax.c (the front: dims, dtypes, outputs,
 * rows split across threads) and cpu/softmax_kernels.c (compiled once per CPU capability) share. */
#ifndef PT_KERNELS_SOFTMAX_H
#define PT_KERNELS_SOFTMAX_H

#include "internal.h"

/* One contiguous row of n elements: out = softmax(in) or log_softmax(in); out may be in. */
/* Columns (Note [softmax across columns]): w <= PT_SOFTMAX_COLS columns side by side, n rows
 * `stride` elements apart, each column one softmax; out may be in. */
enum { PT_SOFTMAX_COLS = 64 };
typedef struct pt_softmax_table {
    void (*f32[2])(float *out, const float *in, int64_t n);   /* [0] softmax, [1] log_softmax */
    void (*f64[2])(double *out, const double *in, int64_t n);
    void (*f32_cols[2])(float *out, const float *in, int64_t n, int64_t stride, int64_t w);
    void (*f64_cols[2])(double *out, const double *in, int64_t n, int64_t stride, int64_t w);
} pt_softmax_table;

#endif
