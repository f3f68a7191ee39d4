/* attention.h - the row kernels of the fused attention (attention.c, the front: shapes, masks,
 * blocks, threads; cpu/nn_attention_kernels.c, compiled once per CPU capability).
 *
 * A block is `rows` rows of `cols` scores, rows `ld` elements apart. Scores that a mask removes
 * are -inf. The kernels never see a row whose running maximum is -inf with a finite score
 * missing: a row that is -inf throughout gives probabilities 0.
 */
#ifndef PT_KERNELS_NN_ATTENTION_H
#define PT_KERNELS_NN_ATTENTION_H

#include "internal.h"

#define PT_ATTENTION_ROWS(NAME, T)                                                                 \
    typedef struct NAME {                                                                          \
        /* One step of the streaming softmax: with the block's scores s, the running maximum m   \
         * and sum l of each row are updated, s becomes exp(s - m_new), and alpha[r] is the     \
         * factor exp(m_old - m_new) that the row's accumulated output must be scaled by.        \
         */                                                                                        \
        void (*online)(T *s, int64_t rows, int64_t cols, int64_t ld, T *m, T *l, T *alpha);      \
        /* s = exp(s - lse[r]): the probabilities again, from the forward's log-sum-exp. */     \
        void (*probs)(T *s, int64_t rows, int64_t cols, int64_t ld, const T *lse);               \
        /* dp = p * (dp - d[r]): the gradient of the scores from that of the probabilities. */    \
        void (*dsoftmax)(T *dp, const T *p, int64_t rows, int64_t cols, int64_t ld, const T *d); \
    } NAME;

PT_ATTENTION_ROWS(pt_attention_rows_f32, float)
PT_ATTENTION_ROWS(pt_attention_rows_f64, double)

typedef struct pt_attention_table {
    pt_attention_rows_f32 f32;
    pt_attention_rows_f64 f64;
} pt_attention_table;

#endif
