/* gemm_medium.c - the front of the cache-blocked product of medium sizes (Note [medium products]):
 * which products it takes, the blocking loops around the kernels, the packing buffers, and the
 * rectangles of C that the threads compute. The kernels are in cpu/gemm_medium_kernels.c, one
 * variant per CPU capability (gemm_medium.h).
 *
 * Note [medium products]
 * The products a small network trains with (784-512-512-10 at batch 128: 128x784 @ 784x512,
 * 128x512 @ 512x512 and the transposed forms of backward) are too large for the small kernel
 * (Note [small products] in gemm_small.c: no blocking, depth <= 512) and were BLIS's. BLIS 0.9's
 * zen3 kernels ran them ~1.2x slower than torch's MKL on one thread on the 2-core AVX2 machine
 * (62-70 GFLOP/s against ~80). This kernel is the Goto / BLIS algorithm written for these sizes:
 * for each block of NC columns, each block of KC depth packs B into panels (kc x NR, in L1 while
 * used), and each block of MC rows packs A into slivers (mc x kc, in L2); the macro-kernel runs
 * an MR x NR register tile over every (panel, sliver) pair, C read and written once per tile and
 * block of depth. The depth k is cut into equal blocks of at most KC (784 into 4 of 196, not 3 of
 * 256 and a ragged 16), and m into equal blocks of at most MC, so that no block is a sliver.
 * The tiles at C's edges are smaller (down to 1 row, and one vector of columns for a narrow last
 * panel) rather than multiplying the packed zeros: 64 x 100 outputs waste 4%, not 12%.
 *
 * A's packing is paid back by its reuse, once per panel of the B block. With few panels (n <=
 * IN_PLACE_MAX_PANELS * NR) and A's rows contiguous along k, the tiles broadcast from A in place,
 * a stream per row, as the small kernel does: measured interleaved on one thread, 64x1000 @
 * 1000x100 ran 0.92-0.95 of its packed time and 300x600 @ 600x64 0.85-0.91, while n = 200 ran
 * even and n = 512 up to 5% slower, so those stay packed.
 *
 * On several threads C is cut into a grid of rectangles, in whole tiles, and each thread runs
 * the whole algorithm on its own rectangle with its own packing buffers: no thread waits for
 * another. A thread packs the A rows and B columns its rectangle needs, so cutting m repeats
 * B's packing in every thread and cutting n repeats A's; the grid is chosen by a cost estimate of
 * the largest rectangle's multiply-adds and packing (128 x 512 outputs: n is cut, the A rows are
 * packed twice, 128 x k, against B's k x 512 once).
 *
 * It takes the float32 and float64 products that the small kernel refuses (linalg_run.c asks it
 * first) up to MAX_WORK (2048^3) multiply-adds, with m and n >= 2; where a capability's variant
 * does not serve (AVX-512, where BLIS's skx kernels use vectors twice as wide and no 512-bit
 * tile of this kernel has been measured), BLIS stays. Measured interleaved with torch 2.13 (MKL)
 * on the 2-core AVX2 machine, one thread, ratios of min times (medians within a few percent):
 * 128x784 @ 784x512 0.97-1.04, 128x512 @ 512x512 0.95-1.03, 128x512 @ (512x512).t 0.96-1.03,
 * (128x512).t @ 128x512 0.87-0.91, (128x784).t @ 128x512 0.83-0.94, 64x1000 @ 1000x100
 * 0.94-1.01, 1024^3 0.80-0.99, where BLIS had 1.03-1.27 on the first five.
 */
#include <math.h>
#include <string.h>

#include "alloc_cache.h"
#include "cpu_stub.h"
#include "gemm_medium.h"

#ifdef _OPENMP
#include <omp.h>
#endif

PT_CPU_STUB(gemm_medium, pt_gemm_medium_table, "the medium matrix product: packing and blocks");

#define MAX_WORK ((int64_t)2048 * 2048 * 2048)
enum { MAX_THREADS = 64, MAX_DIM = 1 << 20, IN_PLACE_MAX_PANELS = 8 };

bool pt_gemm_medium_serves(const pt_gemm *g)
{
    const pt_gemm_medium_table *t = PT_CPU_KERNELS(gemm_medium, pt_gemm_medium_table);
    return t->serves && (g->dtype == PT_FLOAT32 || g->dtype == PT_FLOAT64) && !g->alpha_zero &&
           g->k >= 1 && g->m >= 2 && g->n >= 2 && g->m <= MAX_DIM && g->n <= MAX_DIM &&
           g->m * g->n * g->k <= MAX_WORK;
}

/* The blocking of one product: the block sizes, equalised over the dimension each cuts. */
typedef struct plan {
    int64_t mr, nr, mc, kc, nc;
    int64_t a_elems, b_elems; /* one thread's packing buffers */
} plan;

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

/* max blocks of at most `most` over `count`, equal in size, each a multiple of `unit`. */
static int64_t even_block(int64_t count, int64_t most, int64_t unit)
{
    int64_t blocks = ceil_div(count, most);
    int64_t size = round_up(ceil_div(count, blocks), unit);
    return size < most ? size : most;
}

/* A grid of pm x pn rectangles over C's tiles: thread w's rows [*i0, *i1), columns [*j0, *j1). */
static void rectangle(const pt_gemm *g, const plan *pl, int32_t pm, int32_t pn, int32_t w,
                      int64_t *i0, int64_t *i1, int64_t *j0, int64_t *j1)
{
    int64_t um = ceil_div(g->m, pl->mr), un = ceil_div(g->n, pl->nr);
    int32_t a = w / pn, b = w % pn;
    *i0 = um * a / pm * pl->mr;
    *i1 = um * (a + 1) / pm * pl->mr;
    *j0 = un * b / pn * pl->nr;
    *j1 = un * (b + 1) / pn * pl->nr;
    if (*i1 > g->m) *i1 = g->m;
    if (*j1 > g->n) *j1 = g->n;
}

/* The grid for `threads` threads with the least cost for its largest rectangle: its
 * multiply-adds (16 per cycle on AVX2) plus its elements packed (about one per cycle). */
static void choose_grid(const pt_gemm *g, const plan *pl, int32_t threads, int32_t *pm,
                        int32_t *pn)
{
    int64_t um = ceil_div(g->m, pl->mr), un = ceil_div(g->n, pl->nr);
    double best = -1;
    *pm = 1;
    *pn = threads;
    for (int32_t a = 1; a <= threads; a++) {
        if (threads % a) continue;
        int32_t b = threads / a;
        if (a > um || b > un) continue;
        double rows = (double)(ceil_div(um, a) * pl->mr), cols = (double)(ceil_div(un, b) * pl->nr);
        if (rows > (double)g->m) rows = (double)g->m;
        if (cols > (double)g->n) cols = (double)g->n;
        double jblocks = ceil(cols / (double)pl->nc);
        double cost = rows * cols * (double)g->k / 16 + (rows * jblocks + cols) * (double)g->k;
        if (best < 0 || cost < best) {
            best = cost;
            *pm = a;
            *pn = b;
        }
    }
}

/* C's rows [i0, i1) by columns [j0, j1), on one thread with its buffers ap and bp. */
static void run_rectangle(const pt_gemm_medium_table *t, int d, const pt_gemm *g, const plan *pl,
                          void *ap, void *bp, int64_t i0, int64_t i1, int64_t j0, int64_t j1)
{
    if (i0 >= i1 || j0 >= j1) return;
    int64_t mc_step = even_block(i1 - i0, pl->mc, pl->mr);
    int64_t nc_step = even_block(j1 - j0, pl->nc, pl->nr);
    bool in_place = g->csa == 1 && ceil_div(nc_step, pl->nr) <= IN_PLACE_MAX_PANELS;
    for (int64_t jc = j0; jc < j1; jc += nc_step) {
        int64_t nc = j1 - jc < nc_step ? j1 - jc : nc_step;
        for (int64_t pc = 0; pc < g->k; pc += pl->kc) {
            int64_t kc = g->k - pc < pl->kc ? g->k - pc : pl->kc;
            t->pack_b[d](g, bp, pc, kc, jc, nc);
            for (int64_t ic = i0; ic < i1; ic += mc_step) {
                int64_t mc = i1 - ic < mc_step ? i1 - ic : mc_step;
                if (in_place) {
                    t->block[d](g, NULL, bp, ic, mc, pc, jc, nc, kc, pc == 0);
                    continue;
                }
                t->pack_a[d](g, ap, ic, mc, pc, kc);
                t->block[d](g, ap, bp, ic, mc, pc, jc, nc, kc, pc == 0);
            }
        }
    }
}

pt_status pt_gemm_medium(const pt_gemm *g)
{
    const pt_gemm_medium_table *t = PT_CPU_KERNELS(gemm_medium, pt_gemm_medium_table);
    int d = g->dtype == PT_FLOAT64 ? PT_GEMM_MEDIUM_F64 : PT_GEMM_MEDIUM_F32;
    plan pl;
    pl.mr = t->mr[d];
    pl.nr = t->nr[d];
    pl.mc = t->mc[d];
    pl.nc = t->nc[d];
    pl.kc = even_block(g->k, t->kc[d], 1);
    int32_t threads = g->threads < 1 ? 1 : g->threads > MAX_THREADS ? MAX_THREADS : g->threads;
    int32_t pm = 1, pn = 1;
    if (threads > 1) choose_grid(g, &pl, threads, &pm, &pn);
    threads = pm * pn;
    int64_t rows = ceil_div(ceil_div(g->m, pl.mr), pm) * pl.mr;
    int64_t cols = ceil_div(ceil_div(g->n, pl.nr), pn) * pl.nr;
    pl.a_elems = (rows < pl.mc ? rows : pl.mc) * pl.kc;
    pl.b_elems = (cols < pl.nc ? cols : pl.nc) * pl.kc;
    int64_t isz = pt_dtype_itemsize(g->dtype);
    int64_t a_bytes = round_up(pl.a_elems * isz, 64);
    int64_t each = a_bytes + round_up(pl.b_elems * isz, 64);
    int64_t bytes = each * threads;
    char *buf = NULL;
    if (pt_cpu_block_alloc(bytes, (void **)&buf) != 0)
        return PT_ERROR(PT_ERR_MEMORY, "matrix product: out of memory for a packing buffer");
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1)
#endif
    {
        int32_t w = 0, parts = 1;
#ifdef _OPENMP
        w = omp_get_thread_num();
        parts = omp_get_num_threads();
#endif
        for (int32_t r = w; r < threads; r += parts) {
            int64_t i0, i1, j0, j1;
            rectangle(g, &pl, pm, pn, r, &i0, &i1, &j0, &j1);
            char *ap = buf + each * w;
            run_rectangle(t, d, g, &pl, ap, ap + a_bytes, i0, i1, j0, j1);
        }
    }
    pt_cpu_block_free(buf, bytes);
    return PT_OK;
}
