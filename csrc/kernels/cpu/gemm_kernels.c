/* gemm_kernels.c - the small matrix product's kernels (gemm_small.h), compiled once per CPU
 * capability (cpu_kernel.h): B packed into panels of NR columns, and C computed tile by tile, an
 * MR x NR tile of accumulators held in registers over the whole depth k.
 *
 * The tile is the Goto / BLIS micro-kernel shape: per step of k, one packed row of the panel (two
 * vectors) and MR elements of A, each broadcast and multiplied into both vectors. On AVX2 that is
 * 6 x 16 float32 (6 x 8 float64): 12 accumulators, 2 vectors of B and the broadcast, 15 of the 16
 * registers; the multiply-adds are fused where the capability has FMA. A is read in place with its
 * own strides (a broadcast costs the same from any address), so a transposed or sliced A needs no
 * copy; C too, with a vector path for unit column stride. Panels go outermost: one panel (k x NR,
 * 16 KiB of float32 at k = 256) stays in L1 while the rows of A stream past it from L2.
 *
 * Products with one output column take gemv_* instead: no panel, one pass over A.
 *
 * The vectors are GCC's generic 32-byte vectors, so one source serves every capability: the
 * default build splits them into SSE halves (with MR = 2, so that its 16 registers hold the
 * tile), and the AVX-512 build runs the AVX2 shape on its 256-bit instructions.
 */
#include "cpu_kernel.h"

#include <string.h>

#include "gemm_small.h"
#include "gemm_tile.h"

/* Note [rows outer for a shallow product]
 * With panels outermost, C is written one NR-column strip at a time: MR rows of one or two
 * cache lines each, then the next MR rows a whole row stride further on. Where k is short, those
 * stores are the work, and a strip that walks down a wide C (1024 x 1024 float32 at k = 1, a
 * linear layer's weight gradient at batch 1) touches each line of C on its own, far from the
 * last: 458 us on one core, write-bandwidth of 9 GB/s, against 55 us for torch's outer product.
 * When all the panels fit in a core's L1 and L2 with room to spare (ROWS_OUTER_BYTES), the tiles
 * go row block by row block instead, across every panel: each row of C is then written from
 * start to end, a few streams the prefetchers follow, while the packed B stays cached. */
enum { ROWS_OUTER_BYTES = 64 << 10 };

#define GEMM_SMALL_KERNELS(SUF, T)                                                                 \
    enum { L_##SUF = (int)(sizeof(vec_##SUF) / sizeof(T)), NR_##SUF = 2 * L_##SUF };                \
                                                                                                   \
    static void pack_##SUF(const pt_gemm *g, void *bpv, int64_t q0, int64_t q1)                    \
    {                                                                                              \
        const int64_t k = g->k, n = g->n, rsb = g->rsb, csb = g->csb;                              \
        for (int64_t q = q0; q < q1; q++) {                                                        \
            T *dst = (T *)bpv + q * k * NR_##SUF;                                                  \
            int64_t j0 = q * NR_##SUF, nr = n - j0 < NR_##SUF ? n - j0 : NR_##SUF;                 \
            const T *b = (const T *)g->b + j0 * csb;                                               \
            if (nr < NR_##SUF) memset(dst, 0, sizeof(T) * (size_t)(k * NR_##SUF));                 \
            if (csb == 1) {                                                                        \
                for (int64_t p = 0; p < k; p++)                                                    \
                    memcpy(dst + p * NR_##SUF, b + p * rsb, sizeof(T) * (size_t)nr);               \
            } else {                                                                               \
                for (int64_t jj = 0; jj < nr; jj++)                                                \
                    for (int64_t p = 0; p < k; p++) dst[p * NR_##SUF + jj] = b[p * rsb + jj * csb]; \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* C's rows [i, i + mr) by the nr columns from j: mr is a constant where this is inlined. */   \
    static ALWAYS_INLINE void tile_##SUF(const pt_gemm *g, const T *panel, int64_t i, int mr,      \
                                         int64_t j, int64_t nr)                                    \
    {                                                                                              \
        const int64_t k = g->k, rsa = g->rsa, csa = g->csa;                                        \
        const T *a = (const T *)g->a + i * rsa;                                                    \
        vec_##SUF acc[MR][2];                                                                      \
        for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = (vec_##SUF){0};                       \
        _Pragma("GCC unroll 4") for (int64_t p = 0; p < k; p++) {                                  \
            const vec_##SUF b0 = *(const vec_##SUF *)(panel + p * NR_##SUF);                       \
            const vec_##SUF b1 = *(const vec_##SUF *)(panel + p * NR_##SUF + L_##SUF);             \
            const T *ap = a + p * csa;                                                             \
            for (int r = 0; r < MR; r++) {                                                         \
                if (r >= mr) break;                                                                \
                const vec_##SUF av = SPLAT_##SUF(ap[r * rsa]);                                 \
                acc[r][0] = FMA_##SUF(av, b0, acc[r][0]);                                          \
                acc[r][1] = FMA_##SUF(av, b1, acc[r][1]);                                          \
            }                                                                                      \
        }                                                                                          \
        const T alpha = *(const T *)g->alpha.bytes, beta = *(const T *)g->beta.bytes;              \
        const int64_t rsc = g->rsc, csc = g->csc;                                                  \
        T *c = (T *)g->c + i * rsc + j * csc;                                                      \
        if (nr == NR_##SUF && csc == 1) {                                                          \
            for (int r = 0; r < MR; r++) {                                                         \
                if (r >= mr) break;                                                                \
                uvec_##SUF *cr = (uvec_##SUF *)(c + r * rsc);                                      \
                vec_##SUF v0 = acc[r][0] * alpha, v1 = acc[r][1] * alpha;                          \
                if (!g->beta_zero) {                                                               \
                    v0 += cr[0] * beta;                                                            \
                    v1 = ((uvec_##SUF *)(c + r * rsc + L_##SUF))[0] * beta + v1;                   \
                }                                                                                  \
                cr[0] = v0;                                                                        \
                ((uvec_##SUF *)(c + r * rsc + L_##SUF))[0] = v1;                                   \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        T out[MR][NR_##SUF];                                                                       \
        memcpy(out, acc, sizeof out);                                                              \
        for (int r = 0; r < mr; r++)                                                               \
            for (int64_t jj = 0; jj < nr; jj++) {                                                  \
                T *cc = c + r * rsc + jj * csc;                                                    \
                *cc = g->beta_zero ? alpha * out[r][jj] : beta * *cc + alpha * out[r][jj];         \
            }                                                                                      \
    }                                                                                              \
                                                                                                   \
    /* C's rows [i, i1) (fewer than MR) by one panel, each count its own specialised tile. */     \
    static ALWAYS_INLINE void last_rows_##SUF(const pt_gemm *g, const T *panel, int64_t i,         \
                                              int64_t i1, int64_t j, int64_t nr)                   \
    {                                                                                              \
        switch (i1 - i) {                                                                          \
        case 5: tile_##SUF(g, panel, i, MR > 5 ? 5 : MR, j, nr); break;                            \
        case 4: tile_##SUF(g, panel, i, MR > 4 ? 4 : MR, j, nr); break;                            \
        case 3: tile_##SUF(g, panel, i, MR > 3 ? 3 : MR, j, nr); break;                            \
        case 2: tile_##SUF(g, panel, i, MR > 2 ? 2 : MR, j, nr); break;                            \
        case 1: tile_##SUF(g, panel, i, 1, j, nr); break;                                          \
        default: break;                                                                            \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void tiles_##SUF(const pt_gemm *g, const void *bpv, int64_t i0, int64_t i1, int64_t q0, \
                            int64_t q1)                                                            \
    {                                                                                              \
        const T *bp = (const T *)bpv;                                                              \
        const int64_t k = g->k;                                                                    \
        if ((q1 - q0) * k * NR_##SUF * (int64_t)sizeof(T) <= ROWS_OUTER_BYTES) {                   \
            /* Note [rows outer for a shallow product] */                                         \
            for (int64_t i = i0; i < i1; i += MR) {                                                \
                for (int64_t q = q0; q < q1; q++) {                                                \
                    const T *panel = bp + q * k * NR_##SUF;                                        \
                    int64_t j = q * NR_##SUF, nr = g->n - j < NR_##SUF ? g->n - j : NR_##SUF;      \
                    if (i + MR <= i1)                                                              \
                        tile_##SUF(g, panel, i, MR, j, nr);                                        \
                    else                                                                           \
                        last_rows_##SUF(g, panel, i, i1, j, nr);                                   \
                }                                                                                  \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t q = q0; q < q1; q++) {                                                        \
            const T *panel = bp + q * k * NR_##SUF;                                                \
            int64_t j = q * NR_##SUF, nr = g->n - j < NR_##SUF ? g->n - j : NR_##SUF;              \
            int64_t i = i0;                                                                        \
            for (; i + MR <= i1; i += MR) tile_##SUF(g, panel, i, MR, j, nr);                      \
            last_rows_##SUF(g, panel, i, i1, j, nr);                                               \
        }                                                                                          \
    }

/* One output column (mv, addmv, dot): c = beta * c + alpha * A b, without packing. A row-major
 * (or b a single element apart) sums each row in GEMV_LANES partial sums, which vectorize
 * without reassociation flags; A column-major adds b's elements times A's columns into a row of
 * sums, vectorized over the rows; any other layout takes the plain loop. */
enum { GEMV_LANES = 16 };

#define GEMV_KERNEL(SUF, T)                                                                        \
    static void gemv_##SUF(const pt_gemm *g)                                                       \
    {                                                                                              \
        const int64_t m = g->m, k = g->k, rsa = g->rsa, csa = g->csa, rsb = g->rsb;               \
        const T *a = (const T *)g->a, *b = (const T *)g->b;                                        \
        const T alpha = *(const T *)g->alpha.bytes, beta = *(const T *)g->beta.bytes;              \
        T *c = (T *)g->c;                                                                          \
        T sums[PT_GEMM_SMALL_GEMV_MAX_M];                                                          \
        if (csa == 1 && rsb == 1) {                                                                \
            for (int64_t i = 0; i < m; i++) {                                                      \
                const T *ai = a + i * rsa;                                                         \
                T part[GEMV_LANES] = {0};                                                          \
                int64_t p = 0;                                                                     \
                for (; p + GEMV_LANES <= k; p += GEMV_LANES)                                       \
                    for (int j = 0; j < GEMV_LANES; j++) part[j] += ai[p + j] * b[p + j];          \
                for (; p < k; p++) part[0] += ai[p] * b[p];                                        \
                T sum = 0;                                                                         \
                for (int j = 0; j < GEMV_LANES; j++) sum += part[j];                               \
                sums[i] = sum;                                                                     \
            }                                                                                      \
        } else if (rsa == 1) {                                                                     \
            for (int64_t i = 0; i < m; i++) sums[i] = 0;                                           \
            for (int64_t p = 0; p < k; p++) {                                                      \
                const T *ap = a + p * csa, bp = b[p * rsb];                                        \
                for (int64_t i = 0; i < m; i++) sums[i] += ap[i] * bp;                             \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < m; i++) {                                                      \
                T sum = 0;                                                                         \
                for (int64_t p = 0; p < k; p++) sum += a[i * rsa + p * csa] * b[p * rsb];          \
                sums[i] = sum;                                                                     \
            }                                                                                      \
        }                                                                                          \
        for (int64_t i = 0; i < m; i++) {                                                          \
            T *ci = c + i * g->rsc;                                                                \
            *ci = g->beta_zero ? alpha * sums[i] : beta * *ci + alpha * sums[i];                   \
        }                                                                                          \
    }

GEMM_SMALL_KERNELS(f32, float)
GEMM_SMALL_KERNELS(f64, double)
GEMV_KERNEL(f32, float)
GEMV_KERNEL(f64, double)

PT_CPU_KERNELS_DEFINE(gemm_small, pt_gemm_small_table) = {
    .nr = {[PT_GEMM_SMALL_F32] = NR_f32, [PT_GEMM_SMALL_F64] = NR_f64},
    .mr = {[PT_GEMM_SMALL_F32] = MR, [PT_GEMM_SMALL_F64] = MR},
    .pack = {[PT_GEMM_SMALL_F32] = pack_f32, [PT_GEMM_SMALL_F64] = pack_f64},
    .tiles = {[PT_GEMM_SMALL_F32] = tiles_f32, [PT_GEMM_SMALL_F64] = tiles_f64},
    .gemv = {[PT_GEMM_SMALL_F32] = gemv_f32, [PT_GEMM_SMALL_F64] = gemv_f64},
};
