/* gemm_small.h - the small matrix product: what its front (gemm_small.c: which products it takes,
 * the packing buffer, threads) and its kernels (cpu/gemm_kernels.c, compiled once per CPU
 * capability) share. Note [small products] in gemm_small.c says why it exists.
 *
 * B is packed into panels of NR columns (NR per dtype and capability, the table's nr): panel q
 * holds columns [q * NR, q * NR + NR) as k rows of NR contiguous elements, zero past n, at
 * bp + q * k * NR. A and C are read and written in place with their own strides.
 */
#ifndef PT_KERNELS_GEMM_SMALL_H
#define PT_KERNELS_GEMM_SMALL_H

#include "linalg.h"

enum { PT_GEMM_SMALL_F32 = 0, PT_GEMM_SMALL_F64 = 1, PT_GEMM_SMALL_DTYPES = 2 };
/* The most rows a one-column product on the small kernel may have (its sums live on the stack). */
enum { PT_GEMM_SMALL_GEMV_MAX_M = 1024 };

typedef struct pt_gemm_small_table {
    int32_t nr[PT_GEMM_SMALL_DTYPES]; /* the panel width */
    int32_t mr[PT_GEMM_SMALL_DTYPES]; /* the rows of one register tile */
    /* Packs B's panels [q0, q1) of g (float32 or float64) into bp (aligned to 64 bytes). */
    void (*pack[PT_GEMM_SMALL_DTYPES])(const pt_gemm *g, void *bp, int64_t q0, int64_t q1);
    /* C's rows [i0, i1) by panels [q0, q1): beta * C + alpha * A * B from the packed panels.
     * Needs k >= 1 and alpha != 0 (the front sends the others elsewhere). */
    void (*tiles[PT_GEMM_SMALL_DTYPES])(const pt_gemm *g, const void *bp, int64_t i0, int64_t i1,
                                        int64_t q0, int64_t q1);
    /* g with n == 1 and m <= PT_GEMM_SMALL_GEMV_MAX_M, k >= 1, alpha != 0, on one thread. */
    void (*gemv[PT_GEMM_SMALL_DTYPES])(const pt_gemm *g);
} pt_gemm_small_table;

/* Whether the small kernel takes g (Note [small products]): float32/float64 with work. */
bool pt_gemm_small_serves(const pt_gemm *g);
/* g on the small kernel, on g->threads threads. PT_ERR_MEMORY without a packing buffer. */
pt_status pt_gemm_small(const pt_gemm *g);

#endif
