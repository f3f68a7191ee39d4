/* nn_ctc_kernels.c - the ctc loss's vectorizable loops, compiled once per CPU capability
 * (cpu_kernel.h): one time step of the alpha recursion (the beta recursion is the same step over
 * the labels in reverse order) and the backward's last pass, which turns the gathered log sums
 * into the gradient; csrc/kernels/nn/ctc.c drives them, one sample per thread chunk.
 *
 * A cell is straight-line code: the largest of its three predecessors is taken out of the
 * log-sum-exp (every exp argument is <= 0 and the log's argument lies in [1, 3]), and a cell whose
 * predecessors are all -inf stays -inf by a select, not a branch, so that the loop over the labels
 * vectorizes with vec_math.h's exp and log. float32 uses the float exp (within 1 ulp) and the log
 * computed in double and rounded once; float64 the double kernels (~1e-16 relative; their exp
 * clamps arguments below -200, which changes a sum of at least 1 by less than 1e-86).
 */
#include "cpu_kernel.h"

#include <math.h>

#include "nn/ctc.h"
#include "vec_math.h"

#define CTC_KERNELS(SUF, T, EXP, LOG)                                                              \
    static inline T cell_##SUF(T a1, T a2, T a3, T e)                                              \
    {                                                                                              \
        const T ninf = -(T)INFINITY;                                                               \
        T m = a1 > a2 ? a1 : a2;                                                                   \
        m = m > a3 ? m : a3;                                                                       \
        const bool none = m == ninf;                                                               \
        const T mm = none ? (T)0 : m;                                                              \
        const T v = (T)LOG(EXP(a1 - mm) + EXP(a2 - mm) + EXP(a3 - mm)) + mm + e;                   \
        return none ? ninf : v;                                                                    \
    }                                                                                              \
    static void step_##SUF(void *cur_, const void *prev_, const void *emit_,                       \
                           const uint8_t *skip, int64_t S)                                         \
    {                                                                                              \
        T *cur = cur_;                                                                             \
        const T *prev = prev_, *emit = emit_;                                                      \
        const T ninf = -(T)INFINITY;                                                               \
        cur[0] = cell_##SUF(prev[0], ninf, ninf, emit[0]);                                         \
        if (S > 1) cur[1] = cell_##SUF(prev[1], prev[0], ninf, emit[1]);                           \
        PT_IVDEP for (int64_t s = 2; s < S; s++)                                                   \
            cur[s] = cell_##SUF(prev[s], prev[s - 1], skip[s] ? prev[s - 2] : ninf, emit[s]);      \
    }                                                                                              \
    static void finish_##SUF(void *out_, const void *acc_, const void *lp_, double nll_,           \
                             double gr_, int64_t n)                                                \
    {                                                                                              \
        T *out = out_;                                                                             \
        const T *acc = acc_, *lp = lp_;                                                            \
        const T nll = (T)nll_, gr = (T)gr_;                                                        \
        PT_IVDEP for (int64_t c = 0; c < n; c++)                                                   \
            out[c] = (EXP(lp[c]) - EXP(acc[c] + nll - lp[c])) * gr;                                \
    }

CTC_KERNELS(f4, float, pt_vexpf, pt_vlogf)
CTC_KERNELS(f8, double, pt_vexpd_f, pt_vlogd)

PT_CPU_KERNELS_DEFINE(nn_ctc, pt_ctc_table) = {
    .step = {step_f4, step_f8},
    .finish = {finish_f4, finish_f8},
};
