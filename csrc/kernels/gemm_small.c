/* gemm_small.c - the front of the small matrix product (Note [small products]): which products
 * it takes, where their packed B lives, and how a product large enough for two threads is split.
 * The kernels are in cpu/gemm_kernels.c, one variant per CPU capability (gemm_small.h).
 *
 * Note [small products]
 * A product of a few hundred thousand multiply-adds takes microseconds, and BLIS spends about
 * one of them per call before it computes: it builds its control tree and runtime objects, takes
 * packing blocks from its pool under a lock, and opens an OpenMP region even for one thread.
 * torch's small products (its own kernels and MKL's small-matrix paths) pay less, so mm of 8..32
 * ran 1.1-1.5x torch's time and bmm, which pays it per matrix, 1.7-4x. float32 and float64
 * products up to SMALL_WORK multiply-adds (and k up to SMALL_MAX_K, so that one packed panel
 * stays in L1/L2) therefore skip the backend: B is packed into panels (on the stack when it is
 * small, else in a block of the CPU allocator's cache) and a register-tiled kernel computes C.
 * Up to the limit the kernel runs about even with BLIS's and torch's on one thread once their
 * set-up is paid (2-core AVX2 machine, BLIS 0.9: 128^3 ~62 us, BLIS ~56, torch ~67; 256^3
 * 400-470 us for all three); beyond it, the kernel, which blocks neither m nor k for the caches,
 * is not meant to serve: the cache-blocked medium kernel takes over (Note [medium products] in
 * gemm_medium.c). Products with one output column (mv, addmv, dot) up to GEMV_WORK take
 * a one-pass kernel without packing (a panel of which one column is used would waste the rest);
 * products with one output row stay BLIS's gemv, as
 * packing all of B for one row of C costs more than the product. Other dtypes keep their path.
 *
 * On several threads (the caller's g->threads, from its grain) the product is shared as Note
 * [sharing the small product] says.
 *
 * Note [sharing the small product]
 * The threads pack B's panels together, each a share of them, into the one buffer, meet at a
 * barrier, and then split the tiles: the units of work are (panel, block of MR rows) pairs, taken
 * panel by panel, and each thread gets an equal run of them. Splitting whole panels instead (each
 * thread packing its own) left one thread idle for up to a quarter of the time when the panels
 * did not divide evenly: x.t().mm(gh) of the training loop, 1000x64 @ 64x100, has 7 panels of 16
 * columns, 3 against 4. With units the shares differ by at most one tile, and B is still packed
 * once, the packing itself split.
 *
 * Note [the small product's shares follow C's rows]
 * Where C is row-major, the units are taken row block by row block instead (all panels of one
 * block of rows, then the next), so that each thread writes one run of C's rows. The elementwise
 * call that follows a product in a training step (`1e-6 * x.t().mm(g)`) splits its elements the
 * same way, into runs of memory, and then each thread reads the rows its own core wrote. Shared
 * panel-major, each thread wrote a band of columns of every row, and half of what the next call
 * read came from the other core's cache: 1000x64 @ 64x100 then a scaling on 2 threads took 77 us
 * against 62 + 4 for the two alone (torch: 77 against 71 + 5); row-major, 65 us, and the product alone 59 (it was 62). */
#include <string.h>

#include "alloc_cache.h"
#include "cpu_stub.h"
#include "gemm_small.h"

#ifdef _OPENMP
#include <omp.h>
#endif

PT_CPU_STUB(gemm_small, pt_gemm_small_table, "the small matrix product: B packing and tiles");

enum {
    SMALL_MAX_K = 512,
    STACK_BYTES = 16 << 10, /* packed B up to a 64 x 64 float32 product on the stack */
};
#define SMALL_WORK ((int64_t)256 * 256 * 256)
#define GEMV_WORK ((int64_t)64 * 64)

bool pt_gemm_small_serves(const pt_gemm *g)
{
    if ((g->dtype != PT_FLOAT32 && g->dtype != PT_FLOAT64) || g->k < 1 || g->alpha_zero ||
        g->m < 1 || g->m * g->n * g->k > SMALL_WORK)
        return false;
    if (g->n == 1) return g->m <= PT_GEMM_SMALL_GEMV_MAX_M && g->m * g->k <= GEMV_WORK;
    return g->m >= 2 && g->n >= 2 && g->k <= SMALL_MAX_K;
}

/* The end of `blocks` blocks of mr rows, at most m. */
static int64_t row_end(const pt_gemm *g, int64_t mr, int64_t blocks)
{
    return blocks * mr < g->m ? blocks * mr : g->m;
}

/* Thread w's share of the tiles when B is packed once for every thread (Note [sharing the small
 * product]): units [u0, u1) of panels x row blocks, panel-major, so a thread keeps one panel while
 * its rows stream past. */
static void run_units(const pt_gemm_small_table *t, int d, const pt_gemm *g, const void *bp,
                      int64_t panels, int32_t w, int32_t parts)
{
    int64_t mr = t->mr[d], blocks = (g->m + mr - 1) / mr, units = panels * blocks;
    int64_t u0 = units * w / parts, u1 = units * (w + 1) / parts;
    if (g->csc == 1 && g->rsc >= g->n) {
        /* Note [the small product's shares follow C's rows]: units [u0, u1) row-block-major, as
         * the tail of one block of rows, whole blocks, and the head of another. */
        int64_t b0 = u0 / panels, q0 = u0 % panels, b1 = u1 / panels, q1 = u1 % panels;
        if (b0 == b1) {
            if (q0 < q1) t->tiles[d](g, bp, b0 * mr, row_end(g, mr, b0 + 1), q0, q1);
            return;
        }
        if (q0 > 0) {
            t->tiles[d](g, bp, b0 * mr, row_end(g, mr, b0 + 1), q0, panels);
            b0++;
        }
        if (b0 < b1) t->tiles[d](g, bp, b0 * mr, row_end(g, mr, b1), 0, panels);
        if (q1 > 0) t->tiles[d](g, bp, b1 * mr, row_end(g, mr, b1 + 1), 0, q1);
        return;
    }
    for (int64_t q = u0 / blocks; q < panels && q * blocks < u1; q++) {
        int64_t b0 = u0 > q * blocks ? u0 - q * blocks : 0;
        int64_t b1 = u1 < (q + 1) * blocks ? u1 - q * blocks : blocks;
        int64_t i0 = b0 * mr, i1 = b1 * mr < g->m ? b1 * mr : g->m;
        if (i0 < i1) t->tiles[d](g, bp, i0, i1, q, q + 1);
    }
}

static void run(const pt_gemm_small_table *t, int d, const pt_gemm *g, void *bp, int64_t panels,
                int32_t threads)
{
    if (threads <= 1) {
        t->pack[d](g, bp, 0, panels);
        t->tiles[d](g, bp, 0, g->m, 0, panels);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
    {
        int32_t w = omp_get_thread_num(), parts = omp_get_num_threads();
        t->pack[d](g, bp, panels * w / parts, panels * (w + 1) / parts);
#pragma omp barrier
        run_units(t, d, g, bp, panels, w, parts);
    }
#else
    PT_UNUSED(threads);
    run(t, d, g, bp, panels, 1);
#endif
}

pt_status pt_gemm_small(const pt_gemm *g)
{
    const pt_gemm_small_table *t = PT_CPU_KERNELS(gemm_small, pt_gemm_small_table);
    int d = g->dtype == PT_FLOAT64 ? PT_GEMM_SMALL_F64 : PT_GEMM_SMALL_F32;
    if (g->n == 1) {
        t->gemv[d](g);
        return PT_OK;
    }
    int64_t nr = t->nr[d], panels = (g->n + nr - 1) / nr;
    int64_t bytes = panels * nr * g->k * pt_dtype_itemsize(g->dtype);
    int32_t threads = g->threads;
    if (threads > panels * ((g->m + t->mr[d] - 1) / t->mr[d])) threads = 1;
    if (bytes <= STACK_BYTES) {
        _Alignas(64) unsigned char local[STACK_BYTES];
        run(t, d, g, local, panels, threads);
        return PT_OK;
    }
    void *bp = NULL;
    if (pt_cpu_block_alloc(bytes, &bp) != 0)
        return PT_ERROR(PT_ERR_MEMORY, "matrix product: out of memory for a packing buffer");
    run(t, d, g, bp, panels, threads);
    pt_cpu_block_free(bp, bytes);
    return PT_OK;
}
