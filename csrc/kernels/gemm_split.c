/* gemm_split.c - a product of the sizes a training step is made of, split across threads by
 * pytensor instead of by BLIS (Note [splitting a product]): each thread runs a one-thread backend
 * call on its slice of m, n or k inside one parallel region of pytensor's own.
 *
 * Note [splitting a product]
 * BLIS 0.9 threads a product by its own factorisation of the thread count over its loops. For
 * the medium shapes of a small network (64x1000 @ 1000x100, 1000x64 @ 64x100: ~6M multiply-adds)
 * it splits n, and each thread packs all of A: measured on the 2-core AVX2 machine, 237 us on two
 * threads against 181 us on one, while torch took 134 us. Split by hand, the work divides without
 * repeated packing: a tall product (m the largest) by rows, each thread packing its rows of A and
 * the small B; a deep one (k much larger than m and n) by k, each thread packing its share of A
 * and B, the partial products summed into C after a barrier (m x n additions, against m x n x k
 * multiply-adds); a wide one by columns. The slices are whole multiples of SLICE rows or columns
 * so that no thread gets a ragged edge of BLIS's micro-tiles in the middle of C.
 */
#include <string.h>

#include "alloc_cache.h"
#include "linalg.h"

#ifdef _OPENMP
#include <omp.h>
#endif

enum {
    SLICE = 16,
    DEEP_MIN_K = 256, /* k-splitting pays the sum of partials only when the depth is large */
};

bool pt_gemm_split_serves(const pt_gemm *g, int32_t threads)
{
    return threads > 1 && (g->dtype == PT_FLOAT32 || g->dtype == PT_FLOAT64) && g->m > 1 &&
           g->n > 1 && g->k >= 1 && !g->alpha_zero;
}

static bool deep(const pt_gemm *g)
{
    return g->k >= DEEP_MIN_K && g->k >= 4 * g->m && g->k >= 4 * g->n;
}

/* [lo, hi) of the w-th of `parts` shares of `count` items, in whole slices. */
static void share(int64_t count, int32_t w, int32_t parts, int64_t *lo, int64_t *hi)
{
    int64_t slices = (count + SLICE - 1) / SLICE;
    *lo = slices * w / parts * SLICE;
    *hi = slices * (w + 1) / parts * SLICE;
    if (*lo > count) *lo = count;
    if (*hi > count) *hi = count;
}

/* Thread w's slice of a product split by rows (axis 0) or columns (axis 1). */
static pt_status run_slice(const pt_gemm *g, int axis, int32_t w, int32_t parts)
{
    pt_gemm s = *g;
    int64_t lo, hi, isz = pt_dtype_itemsize(g->dtype);
    s.threads = 1;
    if (axis == 0) {
        share(g->m, w, parts, &lo, &hi);
        s.m = hi - lo;
        s.a += lo * g->rsa * isz;
        s.c += lo * g->rsc * isz;
    } else {
        share(g->n, w, parts, &lo, &hi);
        s.n = hi - lo;
        s.b += lo * g->csb * isz;
        s.c += lo * g->csc * isz;
    }
    return s.m > 0 && s.n > 0 ? pt_blas_gemm(&s) : PT_OK;
}

#define ADD_PARTIALS(T)                                                                            \
    for (int64_t i = r0; i < r1; i++)                                                              \
        for (int32_t t = 1; t < parts; t++) {                                                      \
            const T *src = (const T *)partial + ((t - 1) * g->m + i) * g->n;                       \
            T *dst = (T *)g->c + i * g->rsc;                                                       \
            for (int64_t j = 0; j < g->n; j++) dst[j * g->csc] += src[j];                          \
        }

/* Split by k: thread 0 computes C = beta * C + alpha * A0 B0 in place, thread t > 0 the partial
 * alpha * At Bt into its m x n block of `partial`; then each thread adds the partials to its rows. */
static pt_status run_deep(const pt_gemm *g, int32_t threads, char *partial)
{
    pt_status st = PT_OK;
    int64_t isz = pt_dtype_itemsize(g->dtype);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
        int32_t w = 0, parts = 1; /* the team OpenMP gave, at most `threads` */
#ifdef _OPENMP
        w = omp_get_thread_num();
        parts = omp_get_num_threads();
#endif
        PT_UNUSED(threads);
        pt_gemm s = *g;
        int64_t k0, k1;
        share(g->k, w, parts, &k0, &k1);
        s.threads = 1;
        s.k = k1 - k0;
        s.a += k0 * g->csa * isz;
        s.b += k0 * g->rsb * isz;
        if (w > 0) {
            s.c = partial + (w - 1) * g->m * g->n * isz;
            s.rsc = g->n;
            s.csc = 1;
            s.beta_zero = true;
            memset(&s.beta, 0, sizeof s.beta); /* BLIS reads the value, not the flag */
        }
        pt_status mine = s.k > 0 ? pt_blas_gemm(&s) : PT_OK;
        if (mine == PT_OK && s.k == 0 && w > 0) memset(s.c, 0, (size_t)(g->m * g->n * isz));
        if (mine != PT_OK) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            st = mine;
        }
#ifdef _OPENMP
#pragma omp barrier
#endif
        int64_t r0 = g->m * w / parts, r1 = g->m * (w + 1) / parts;
        if (g->dtype == PT_FLOAT32) {
            ADD_PARTIALS(float)
        } else {
            ADD_PARTIALS(double)
        }
    }
    return st;
}

pt_status pt_gemm_split(const pt_gemm *g, int32_t threads)
{
    if (deep(g)) {
        int64_t bytes = (threads - 1) * g->m * g->n * pt_dtype_itemsize(g->dtype);
        void *partial = NULL;
        if (pt_cpu_block_alloc(bytes, &partial) != 0)
            return PT_ERROR(PT_ERR_MEMORY, "matrix product: out of memory for partial sums");
        pt_status st = run_deep(g, threads, partial);
        pt_cpu_block_free(partial, bytes);
        return st;
    }
    int axis = g->m >= g->n ? 0 : 1;
    pt_status st = PT_OK;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
    for (int32_t w = 0; w < threads; w++) {
        pt_status mine = run_slice(g, axis, w, threads);
        if (mine != PT_OK) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            st = mine;
        }
    }
    return st;
}
