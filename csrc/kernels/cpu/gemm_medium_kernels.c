/* gemm_medium_kernels.c - the medium matrix product's kernels (gemm_medium.h), compiled once per
 * CPU capability (cpu_kernel.h): A and B packed into blocks of slivers and panels, and the
 * macro-kernel that runs an MR x NR register tile over each (sliver, panel) pair of a block.
 *
 * The tile is the small kernel's shape (cpu/gemm_kernels.c): per step of k, NV vectors of the
 * packed B row and MR elements of the packed A sliver, each broadcast and multiplied into the NV
 * vectors; 6 x 16 float32 and 6 x 8 float64 on AVX2 (12 accumulators, 15 of the 16 registers).
 * Unlike the small kernel's, both operands are read from the packed blocks, so the broadcasts
 * stream from one contiguous sliver whatever A's layout, and the depth is bounded by the block's
 * kc: the panel (kc x NR) stays in L1 while the slivers of the A block stream past it from L2. C
 * is read and written once per tile and block of depth, with alpha applied there.
 *
 * The vectors are GCC's generic 32-byte vectors: the default build splits them into SSE halves
 * (MR = 2, so that its 16 registers hold the tile), and the AVX-512 build compiles the AVX2 shape
 * but does not serve (BLIS's AVX-512 kernels stay; Note [medium products]).
 */
#include "cpu_kernel.h"

#include <string.h>

#include "gemm_medium.h"
#include "gemm_tile.h"

enum { NV = 2 }; /* vectors per row of a tile */

#if defined(PT_CPU_CAP_AVX512)
#define MEDIUM_SERVES false
#else
#define MEDIUM_SERVES true
#endif

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* Packs 8 float32 columns of B stored along k (B's rows one element apart) by depth [0, 8k):
 * eight columns of 8 contiguous elements become eight packed rows, an 8 x 8 transpose in
 * registers, instead of the 64 scalar copies of the generic loop. Returns the depth done. */
#if defined(__AVX__)
static int64_t pack_columns8_f32(const float *b, int64_t csb, int64_t kc, float *dst, int64_t ld)
{
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) {
        __m256 r[8], t[8], u[8];
        for (int c = 0; c < 8; c++) r[c] = _mm256_loadu_ps(b + c * csb + p);
        for (int c = 0; c < 8; c += 2) {
            t[c] = _mm256_unpacklo_ps(r[c], r[c + 1]);
            t[c + 1] = _mm256_unpackhi_ps(r[c], r[c + 1]);
        }
        for (int c = 0; c < 8; c += 4) {
            u[c] = _mm256_shuffle_ps(t[c], t[c + 2], _MM_SHUFFLE(1, 0, 1, 0));
            u[c + 1] = _mm256_shuffle_ps(t[c], t[c + 2], _MM_SHUFFLE(3, 2, 3, 2));
            u[c + 2] = _mm256_shuffle_ps(t[c + 1], t[c + 3], _MM_SHUFFLE(1, 0, 1, 0));
            u[c + 3] = _mm256_shuffle_ps(t[c + 1], t[c + 3], _MM_SHUFFLE(3, 2, 3, 2));
        }
        for (int q = 0; q < 4; q++) {
            _mm256_store_ps(dst + (p + q) * ld, _mm256_permute2f128_ps(u[q], u[q + 4], 0x20));
            _mm256_store_ps(dst + (p + q + 4) * ld, _mm256_permute2f128_ps(u[q], u[q + 4], 0x31));
        }
    }
    return p;
}
#define PACK_COLUMNS_f32(b, csb, kc, dst)                                                          \
    (pack_columns8_f32((b), (csb), (kc), (dst), NR_f32),                                           \
     pack_columns8_f32((b) + 8 * (csb), (csb), (kc), (dst) + 8, NR_f32))
#else
#define PACK_COLUMNS_f32(b, csb, kc, dst) ((int64_t)0)
#endif
#define PACK_COLUMNS_f64(b, csb, kc, dst) ((int64_t)0)

/* The tile of the last R rows of a block (panel_*'s names in scope). */
#define EDGE_TILE(SUF, R)                                                                          \
    case R:                                                                                        \
        tile_##SUF(g, sliver, ars, acs, panel, kc, MIN(MR, R), nv, i0 + i, R, j, cols, first);    \
        break;

#define GEMM_MEDIUM_KERNELS(SUF, T)                                                                \
    enum { L_##SUF = (int)(sizeof(vec_##SUF) / sizeof(T)), NR_##SUF = NV * L_##SUF };              \
                                                                                                   \
    static void pack_a_##SUF(const pt_gemm *g, void *apv, int64_t i0, int64_t mc, int64_t p0,      \
                             int64_t kc)                                                           \
    {                                                                                              \
        const int64_t rsa = g->rsa, csa = g->csa;                                                  \
        const T *a = (const T *)g->a + i0 * rsa + p0 * csa;                                        \
        T *dst = (T *)apv;                                                                         \
        for (int64_t s = 0; s < mc; s += MR, dst += kc * MR) {                                     \
            const T *as = a + s * rsa;                                                             \
            int64_t rows = MIN(MR, mc - s);                                                        \
            if (rows == MR && rsa == 1) {                                                          \
                for (int64_t p = 0; p < kc; p++)                                                   \
                    for (int r = 0; r < MR; r++) dst[p * MR + r] = as[p * csa + r];                \
            } else if (rows == MR && csa == 1) {                                                   \
                for (int64_t p = 0; p < kc; p++)                                                   \
                    for (int r = 0; r < MR; r++) dst[p * MR + r] = as[r * rsa + p];                \
            } else {                                                                               \
                for (int64_t p = 0; p < kc; p++)                                                   \
                    for (int r = 0; r < MR; r++)                                                   \
                        dst[p * MR + r] = r < rows ? as[r * rsa + p * csa] : (T)0;                 \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void pack_b_##SUF(const pt_gemm *g, void *bpv, int64_t p0, int64_t kc, int64_t j0,      \
                             int64_t nc)                                                           \
    {                                                                                              \
        const int64_t rsb = g->rsb, csb = g->csb;                                                  \
        const T *b = (const T *)g->b + p0 * rsb + j0 * csb;                                        \
        T *dst = (T *)bpv;                                                                         \
        for (int64_t j = 0; j < nc; j += NR_##SUF, dst += kc * NR_##SUF) {                         \
            const T *bj = b + j * csb;                                                             \
            int64_t cols = MIN(NR_##SUF, nc - j);                                                  \
            if (cols == NR_##SUF && csb == 1) {                                                    \
                for (int64_t p = 0; p < kc; p++)                                                   \
                    for (int v = 0; v < NV; v++)                                                   \
                        *(vec_##SUF *)(dst + p * NR_##SUF + v * L_##SUF) =                         \
                            *(const uvec_##SUF *)(bj + p * rsb + v * L_##SUF);                     \
            } else if (cols == NR_##SUF && rsb == 1) {                                             \
                for (int64_t p = PACK_COLUMNS_##SUF(bj, csb, kc, dst); p < kc; p++)                \
                    for (int jj = 0; jj < NR_##SUF; jj++)                                          \
                        dst[p * NR_##SUF + jj] = bj[jj * csb + p];                                 \
            } else {                                                                               \
                for (int64_t p = 0; p < kc; p++)                                                   \
                    for (int jj = 0; jj < NR_##SUF; jj++)                                          \
                        dst[p * NR_##SUF + jj] = jj < cols ? bj[jj * csb + p * rsb] : (T)0;        \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* One tile: C's rows [i, i + rows) by columns [j, j + cols) from a sliver and a panel, with  \
     * mr rows and nv vectors of accumulators (constants where this is inlined: the edges of C    \
     * take smaller tiles rather than multiply the packed zeros). */                              \
    static ALWAYS_INLINE void tile_##SUF(const pt_gemm *g, const T *ap, int64_t ars, int64_t acs,  \
                                         const T *bp, int64_t kc, int mr, int nv, int64_t i,       \
                                         int64_t rows, int64_t j, int64_t cols, bool first)        \
    {                                                                                              \
        const int64_t rsc = g->rsc, csc = g->csc;                                                  \
        T *c = (T *)g->c + i * rsc + j * csc;                                                      \
        for (int r = 0; r < mr; r++) __builtin_prefetch(c + MIN(r, rows - 1) * rsc, 1, 3);         \
        vec_##SUF acc[MR][NV];                                                                     \
        for (int r = 0; r < MR; r++)                                                               \
            for (int v = 0; v < NV; v++) acc[r][v] = (vec_##SUF){0};                               \
        _Pragma("GCC unroll 4") for (int64_t p = 0; p < kc; p++) {                                 \
            vec_##SUF bv[NV];                                                                      \
            for (int v = 0; v < nv; v++)                                                           \
                bv[v] = *(const vec_##SUF *)(bp + p * NR_##SUF + v * L_##SUF);                     \
            for (int r = 0; r < mr; r++) {                                                         \
                const vec_##SUF av = SPLAT_##SUF(ap[p * acs + r * ars]);                           \
                for (int v = 0; v < nv; v++) acc[r][v] = FMA_##SUF(av, bv[v], acc[r][v]);          \
            }                                                                                      \
        }                                                                                          \
        const T alpha = *(const T *)g->alpha.bytes, beta = *(const T *)g->beta.bytes;              \
        const bool read = !first || !g->beta_zero;                                                 \
        const T scale = first ? beta : (T)1;                                                       \
        if (cols == nv * L_##SUF && csc == 1) {                                                    \
            for (int r = 0; r < mr; r++) {                                                         \
                if (r >= rows) break;                                                              \
                for (int v = 0; v < nv; v++) {                                                     \
                    uvec_##SUF *cp = (uvec_##SUF *)(c + r * rsc + v * L_##SUF);                    \
                    vec_##SUF x = acc[r][v] * alpha;                                               \
                    if (read) x = cp[0] * scale + x;                                               \
                    cp[0] = x;                                                                     \
                }                                                                                  \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        T out[MR][NR_##SUF];                                                                       \
        memcpy(out, acc, sizeof out);                                                              \
        for (int64_t r = 0; r < rows; r++)                                                         \
            for (int64_t jj = 0; jj < cols; jj++) {                                                \
                T *cc = c + r * rsc + jj * csc;                                                    \
                *cc = read ? scale * *cc + alpha * out[r][jj] : alpha * out[r][jj];                \
            }                                                                                      \
    }                                                                                              \
                                                                                                   \
    /* The tiles of one panel: whole slivers, then the last one's rows, each count its own tile. */\
    static ALWAYS_INLINE void panel_##SUF(const pt_gemm *g, const T *ap, int64_t ars, int64_t acs, \
                                          int64_t irs, const T *panel, int64_t kc, int nv,         \
                                          int64_t i0, int64_t mc, int64_t j, int64_t cols,         \
                                          bool first)                                              \
    {                                                                                              \
        int64_t i = 0;                                                                             \
        for (; i + MR <= mc; i += MR)                                                              \
            tile_##SUF(g, ap + i * irs, ars, acs, panel, kc, MR, nv, i0 + i, MR, j, cols, first);  \
        const T *sliver = ap + i * irs;                                                            \
        switch (mc - i) {                                                                          \
        EDGE_TILE(SUF, 5)                                                                          \
        EDGE_TILE(SUF, 4)                                                                          \
        EDGE_TILE(SUF, 3)                                                                          \
        EDGE_TILE(SUF, 2)                                                                          \
        EDGE_TILE(SUF, 1)                                                                          \
        default: break;                                                                            \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* A packed (ap): row i (a multiple of MR) + r at ap + i * kc + r, depth steps MR apart; A in  \
     * place (ap NULL): g's own strides. Each a copy of the loops with its strides, irs the        \
     * distance between rows i and i + 1 of whole slivers. */                                      \
    static ALWAYS_INLINE void panels_##SUF(const pt_gemm *g, const T *ap, int64_t ars,             \
                                           int64_t acs, int64_t irs, const T *bp, int64_t i0,      \
                                           int64_t mc, int64_t j0, int64_t nc, int64_t kc,         \
                                           bool first)                                             \
    {                                                                                              \
        for (int64_t j = 0; j < nc; j += NR_##SUF) {                                               \
            int64_t cols = MIN(NR_##SUF, nc - j);                                                  \
            if (cols > L_##SUF)                                                                    \
                panel_##SUF(g, ap, ars, acs, irs, bp + j * kc, kc, NV, i0, mc, j0 + j, cols, first);\
            else /* a narrow last panel: one vector of its columns */                              \
                panel_##SUF(g, ap, ars, acs, irs, bp + j * kc, kc, 1, i0, mc, j0 + j, cols, first);\
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void block_##SUF(const pt_gemm *g, const void *apv, const void *bpv, int64_t i0,        \
                            int64_t mc, int64_t p0, int64_t j0, int64_t nc, int64_t kc,            \
                            bool first)                                                            \
    {                                                                                              \
        const T *bp = (const T *)bpv;                                                              \
        if (apv) {                                                                                 \
            panels_##SUF(g, (const T *)apv, 1, MR, kc, bp, i0, mc, j0, nc, kc, first);             \
            return;                                                                                \
        }                                                                                          \
        const T *a = (const T *)g->a + i0 * g->rsa + p0 * g->csa;                                  \
        panels_##SUF(g, a, g->rsa, g->csa, g->rsa, bp, i0, mc, j0, nc, kc, first);                 \
    }

GEMM_MEDIUM_KERNELS(f32, float)
GEMM_MEDIUM_KERNELS(f64, double)

/* Block sizes: a B panel of kc rows (16 KiB of float32 at kc = 256) stays in L1, an A block of mc
 * x kc (144 KiB) in L2, a B block of kc x nc in L3. */
PT_CPU_KERNELS_DEFINE(gemm_medium, pt_gemm_medium_table) = {
    .serves = MEDIUM_SERVES,
    .mr = {[PT_GEMM_MEDIUM_F32] = MR, [PT_GEMM_MEDIUM_F64] = MR},
    .nr = {[PT_GEMM_MEDIUM_F32] = NR_f32, [PT_GEMM_MEDIUM_F64] = NR_f64},
    .mc = {[PT_GEMM_MEDIUM_F32] = 144, [PT_GEMM_MEDIUM_F64] = 72},
    .kc = {[PT_GEMM_MEDIUM_F32] = 256, [PT_GEMM_MEDIUM_F64] = 256},
    .nc = {[PT_GEMM_MEDIUM_F32] = 3072, [PT_GEMM_MEDIUM_F64] = 1536},
    .pack_a = {[PT_GEMM_MEDIUM_F32] = pack_a_f32, [PT_GEMM_MEDIUM_F64] = pack_a_f64},
    .pack_b = {[PT_GEMM_MEDIUM_F32] = pack_b_f32, [PT_GEMM_MEDIUM_F64] = pack_b_f64},
    .block = {[PT_GEMM_MEDIUM_F32] = block_f32, [PT_GEMM_MEDIUM_F64] = block_f64},
};
