/* gemm_medium.h - the cache-blocked matrix product of medium sizes: what its front (gemm_medium.c:
 * which products it takes, the blocking loops, the threads' rectangles of C) and its kernels
 * (cpu/gemm_medium_kernels.c, compiled once per CPU capability) share. Note [medium products] in
 * gemm_medium.c says why it exists and how it is blocked.
 *
 * Packed A: a block of mc rows by kc depth, in slivers of MR rows: sliver s holds rows
 * [s * MR, s * MR + MR) as kc columns of MR contiguous elements, zero past the block's last row,
 * at ap + s * kc * MR. Packed B: a block of kc depth by nc columns, in panels of NR columns, panel
 * q as kc rows of NR contiguous elements, zero past the block's last column, at bp + q * kc * NR.
 */
#ifndef PT_KERNELS_GEMM_MEDIUM_H
#define PT_KERNELS_GEMM_MEDIUM_H

#include "linalg.h"

enum { PT_GEMM_MEDIUM_F32 = 0, PT_GEMM_MEDIUM_F64 = 1, PT_GEMM_MEDIUM_DTYPES = 2 };

typedef struct pt_gemm_medium_table {
    bool serves;                      /* whether this capability's kernel is in use at all */
    int32_t mr[PT_GEMM_MEDIUM_DTYPES]; /* the rows of one register tile (a sliver of A) */
    int32_t nr[PT_GEMM_MEDIUM_DTYPES]; /* the columns of one register tile (a panel of B) */
    int32_t mc[PT_GEMM_MEDIUM_DTYPES]; /* the most rows of a packed A block (a multiple of mr) */
    int32_t kc[PT_GEMM_MEDIUM_DTYPES]; /* the most depth of a packed block */
    int32_t nc[PT_GEMM_MEDIUM_DTYPES]; /* the most columns of a packed B block (a multiple of nr) */
    /* Packs A's rows [i0, i0 + mc) by depth [p0, p0 + kc) of g into ap (64-byte aligned). */
    void (*pack_a[PT_GEMM_MEDIUM_DTYPES])(const pt_gemm *g, void *ap, int64_t i0, int64_t mc,
                                          int64_t p0, int64_t kc);
    /* Packs B's depth [p0, p0 + kc) by columns [j0, j0 + nc) of g into bp (64-byte aligned). */
    void (*pack_b[PT_GEMM_MEDIUM_DTYPES])(const pt_gemm *g, void *bp, int64_t p0, int64_t kc,
                                          int64_t j0, int64_t nc);
    /* C's rows [i0, i0 + mc) by columns [j0, j0 + nc) from the packed B block of depth
     * [p0, p0 + kc) and the packed A block ap, or A read in place when ap is NULL:
     * first: C = beta * C + alpha * A B (C not read when g->beta_zero); else C += alpha * A B. */
    void (*block[PT_GEMM_MEDIUM_DTYPES])(const pt_gemm *g, const void *ap, const void *bp,
                                         int64_t i0, int64_t mc, int64_t p0, int64_t j0,
                                         int64_t nc, int64_t kc, bool first);
} pt_gemm_medium_table;

/* Whether the medium kernel takes g (Note [medium products]). */
bool pt_gemm_medium_serves(const pt_gemm *g);
/* g on the medium kernel, on g->threads threads. PT_ERR_MEMORY without packing buffers. */
pt_status pt_gemm_medium(const pt_gemm *g);

#endif
