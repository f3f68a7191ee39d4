/* ctc.h - what the ctc loss's front (csrc/kernels/nn/ctc.c) and its inner loops
 * (csrc/kernels/cpu/nn_ctc_kernels.c, compiled once per CPU capability) share. */
#ifndef PT_KERNELS_NN_CTC_H
#define PT_KERNELS_NN_CTC_H

#include "internal.h"

/* One time step of the log-space recursion over S extended labels:
 *     cur[s] = logsumexp(prev[s], prev[s-1], skip[s] ? prev[s-2] : -inf) + emit[s]
 * prev[-1] and prev[-2] must be readable (-inf). The backward's beta recursion is the same step
 * over the labels in reverse order. Rows are float32 ([0]) or float64 ([1]).
 * `finish` writes out[c] = (exp(lp[c]) - exp(acc[c] + nll - lp[c])) * gr for c in [0, n). */
typedef struct pt_ctc_table {
    void (*step[2])(void *cur, const void *prev, const void *emit, const uint8_t *skip,
                    int64_t S);
    void (*finish[2])(void *out, const void *acc, const void *lp, double nll, double gr,
                      int64_t n);
} pt_ctc_table;

#endif
