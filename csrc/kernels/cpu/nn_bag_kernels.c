/* nn_bag_kernels.c - embedding_bag's loops, compiled once per CPU capability (cpu_stub.h): each
 * bag's reduction runs over whole embedding rows, the inner loop along the embedding dim (unit
 * stride) written for the compiler to vectorize.
 *
 * Forward: a bag's sum (per-sample weights scaling each row) or mean is accumulated into its
 * output row in index order; max keeps, per column, the first row holding the largest value (a
 * later row wins only when strictly larger, as torch's CPU loop), and the row's index. Backward
 * (dense): the caller owns a range of weight rows and every index in it adds its bag's gradient
 * row, so threads never write the same row and the order of the additions is the index order
 * whatever the threads. Rows at padding_idx take no part anywhere.
 *
 * The rows a bag reads are scattered over the table, which is usually far larger than the
 * caches: the forward prefetches the row PT_BAG_PREFETCH indices ahead (every cache line of it)
 * so that its memory latency overlaps the additions in between, and the dense backward does the
 * same for the gradient rows it adds into. A loop of this shape over a 100000 x 64 float32 table,
 * bags of 20, took about a third less time with it on the development machines; distances from
 * 4 to 16 gave about the same.
 */
#include "cpu/cpu_kernel.h"
#include "nn/embedding_bag.h"

enum { PT_BAG_PREFETCH = 12 };

static inline void prefetch_row(const void *row, int64_t bytes)
{
    for (int64_t c = 0; c < bytes; c += 64) __builtin_prefetch((const char *)row + c, 0, 3);
}

#define BAG_LOOPS(SUF, T)                                                                          \
    static void forward_##SUF(const pt_bag_args *a, int64_t begin, int64_t end)                    \
    {                                                                                              \
        const T *w = a->weight;                                                                    \
        const T *psw = a->psw;                                                                     \
        const int64_t D = a->D;                                                                    \
        const int64_t last = end > begin ? a->end[end - 1] : 0;                                    \
        for (int64_t b = begin; b < end; b++) {                                                    \
            T *o = (T *)a->out + b * D;                                                            \
            int64_t *mi = a->max_idx ? a->max_idx + b * D : NULL;                                  \
            for (int64_t k = 0; k < D; k++) o[k] = 0;                                              \
            if (mi)                                                                                \
                for (int64_t k = 0; k < D; k++) mi[k] = 0;                                         \
            int64_t count = 0;                                                                     \
            for (int64_t i = a->start[b]; i < a->end[b]; i++) {                                    \
                if (i + PT_BAG_PREFETCH < last)                                                    \
                    prefetch_row(w + a->idx[i + PT_BAG_PREFETCH] * a->row_stride,                  \
                                 D * (int64_t)sizeof(T));                                          \
                const int64_t r = a->idx[i];                                                       \
                if (r == a->padding_idx) continue;                                                 \
                const T *row = w + r * a->row_stride;                                              \
                if (a->mode == PT_BAG_MAX) {                                                       \
                    if (count == 0) {                                                              \
                        for (int64_t k = 0; k < D; k++) {                                          \
                            o[k] = row[k];                                                         \
                            mi[k] = r;                                                             \
                        }                                                                          \
                    } else {                                                                       \
                        for (int64_t k = 0; k < D; k++)                                            \
                            if (row[k] > o[k]) {                                                   \
                                o[k] = row[k];                                                     \
                                mi[k] = r;                                                         \
                            }                                                                      \
                    }                                                                              \
                } else if (psw) {                                                                  \
                    const T s = psw[i];                                                            \
                    PT_IVDEP for (int64_t k = 0; k < D; k++) o[k] += s * row[k];                   \
                } else {                                                                           \
                    PT_IVDEP for (int64_t k = 0; k < D; k++) o[k] += row[k];                       \
                }                                                                                  \
                count++;                                                                           \
            }                                                                                      \
            if (a->mode == PT_BAG_MEAN && count > 0) {                                             \
                const T inv = (T)1 / (T)count;                                                     \
                PT_IVDEP for (int64_t k = 0; k < D; k++) o[k] *= inv;                              \
            }                                                                                      \
            if (a->bag_size) a->bag_size[b] = a->mode == PT_BAG_SUM ? 0 : count;                   \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void dense_backward_##SUF(const pt_bag_grad_args *a, int64_t begin, int64_t end)        \
    {                                                                                              \
        const T *g = a->grad;                                                                      \
        T *gw = a->grad_weight;                                                                    \
        const int64_t D = a->D;                                                                    \
        if (a->mode == PT_BAG_MAX) {                                                               \
            for (int64_t b = 0; b < a->B; b++) {                                                   \
                if (a->bag_size[b] <= 0) continue;                                                 \
                const int64_t *mi = a->max_idx + b * D;                                            \
                const T *src = g + b * D;                                                          \
                for (int64_t k = 0; k < D; k++)                                                    \
                    if (mi[k] >= begin && mi[k] < end) gw[mi[k] * D + k] += src[k];                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        const T *psw = a->psw;                                                                     \
        for (int64_t i = 0; i < a->n; i++) {                                                       \
            if (i + PT_BAG_PREFETCH < a->n) {                                                      \
                const int64_t rp = a->idx[i + PT_BAG_PREFETCH];                                    \
                if (rp >= begin && rp < end) prefetch_row(gw + rp * D, D * (int64_t)sizeof(T));    \
            }                                                                                      \
            const int64_t r = a->idx[i], b = a->offset2bag[i];                                     \
            if (r < begin || r >= end || r == a->padding_idx || b < 0 || b >= a->B) continue;     \
            double s = 1.0;                                                                        \
            if (a->freq_scale) s *= a->freq_scale[r];                                              \
            if (a->mode == PT_BAG_MEAN) {                                                          \
                if (a->bag_size[b] <= 0) continue;                                                 \
                s /= (double)a->bag_size[b];                                                       \
            }                                                                                      \
            if (psw) s *= (double)psw[i];                                                          \
            const T st = (T)s;                                                                     \
            const T *src = g + b * D;                                                              \
            T *dst = gw + r * D;                                                                   \
            PT_IVDEP for (int64_t k = 0; k < D; k++) dst[k] += st * src[k];                        \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void psw_backward_##SUF(const pt_bag_grad_args *a, int64_t begin, int64_t end)          \
    {                                                                                              \
        const T *g = a->grad, *w = a->weight;                                                      \
        T *out = a->grad_psw;                                                                      \
        const int64_t D = a->D;                                                                    \
        for (int64_t i = begin; i < end; i++) {                                                    \
            const int64_t r = a->idx[i], b = a->offset2bag[i];                                     \
            if (r == a->padding_idx || b < 0 || b >= a->B) {                                       \
                out[i] = 0;                                                                        \
                continue;                                                                          \
            }                                                                                      \
            const T *x = g + b * D, *y = w + r * a->row_stride;                                    \
            T s = 0;                                                                               \
            for (int64_t k = 0; k < D; k++) s += x[k] * y[k];                                      \
            out[i] = s;                                                                            \
        }                                                                                          \
    }

BAG_LOOPS(f4, float)
BAG_LOOPS(f8, double)

PT_CPU_KERNELS_DEFINE(nn_bag, pt_bag_table) = {
    {forward_f4, forward_f8},
    {dense_backward_f4, dense_backward_f8},
    {psw_backward_f4, psw_backward_f8},
};
