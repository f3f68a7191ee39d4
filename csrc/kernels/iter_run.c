/* iter_run.c - the elementwise iterator's driver: feeds an inner loop a plan's operands in the
 * loop's dtypes, split across OpenMP threads; and the thread controls (pytensor.set_num_threads).
 *
 * Inner loops take NumPy's (data, byte strides, n) form and see only operands of their own loop
 * dtype at aligned addresses. The driver makes that so: an operand whose dtype is not its loop
 * dtype (mixed-dtype inputs, an out= tensor of another dtype, every float16/bfloat16 operand,
 * whose arithmetic runs in float32) or whose address or stride is not aligned for it is "staged":
 * each row is processed in blocks of STAGE_BLOCK elements, inputs cast into stack buffers before
 * the loop runs and outputs cast from one after. An input that is one element broadcast over
 * everything (a 0-d tensor, a wrapped Python number) is converted once, up front, and read with
 * stride 0. Casts follow torch's order: an input is first cast to its mid dtype (the common dtype)
 * and only then to the loop's, and a result is rounded to its mid dtype (the output's logical
 * dtype) before it is cast to the output's own, so float16 results are rounded once from float32
 * and an out= of another dtype sees what torch stores.
 *
 * Large work is split along the slowest dimension of the coalesced shape into one slab per
 * thread, each slab run through pt_loop_nd.
 */
#include <stdatomic.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "half.h"
#include "iter.h"
#include "linalg.h"

/* ---------------------------------------------------------------- threads */

/* 0 until first asked: OpenMP's default (OMP_NUM_THREADS or the cores) then. A process-wide
 * setting, as torch.set_num_threads is, rather than OpenMP's per-thread one. */
static _Atomic int32_t num_threads;

int32_t pt_get_num_threads(void)
{
    int32_t n = atomic_load_explicit(&num_threads, memory_order_relaxed);
    if (n > 0) return n;
#ifdef _OPENMP
    n = omp_get_max_threads();
#else
    n = 1;
#endif
    return n > 0 ? n : 1;
}

pt_status pt_set_num_threads(int32_t n)
{
    if (n <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "set_num_threads expects a positive integer, got %d",
                        (int)n);
#ifndef _OPENMP
    n = 1; /* a build without OpenMP runs on the calling thread only */
#endif
    atomic_store_explicit(&num_threads, n, memory_order_relaxed);
#ifdef _OPENMP
    /* The calling thread's own OpenMP setting and BLIS's global one follow, so that code which
     * reads them (a bare `omp parallel`, BLAS calls made by LAPACK) sees the same count. */
    omp_set_num_threads(n);
#endif
    pt_blas_set_num_threads(n);
    return PT_OK;
}

static bool in_parallel(void)
{
#ifdef _OPENMP
    return omp_in_parallel() != 0;
#else
    return true;
#endif
}

typedef struct range_job {
    int64_t n, chunks;
    void (*fn)(int64_t, int64_t, void *);
    void *ctx;
} range_job;

void pt_parallel_for(int64_t n, int64_t grain, void (*fn)(int64_t begin, int64_t end, void *ctx),
                     void *ctx)
{
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    int64_t threads = pt_get_num_threads();
    if (threads > n / grain) threads = n / grain;
    if (threads <= 1 || in_parallel()) {
        fn(0, n, ctx);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)threads) schedule(static)
    for (int64_t t = 0; t < threads; t++) {
        const int64_t begin = n * t / threads, end = n * (t + 1) / threads;
        if (begin < end) fn(begin, end, ctx);
    }
#endif
}

/* ---------------------------------------------------------------- casts */

/* 256 elements: with at most 16-byte elements, a buffer per operand is 4 KiB; eight operands and
 * the intermediate stay within L1 while a block is cast, computed and cast back, and the casts'
 * per-call cost vanishes against 256 elements. */
enum { STAGE_BLOCK = 256, VALUE_BYTES = 16 };

/* Note [aliasing in the loops]
 * In-place and out= calls may hand a loop an input that is the output itself (the same address
 * and strides); the iterator refuses partial overlaps and copies inputs whose overlap it cannot
 * rule out, so each input is either exactly the output or disjoint from it. `restrict` would be a
 * lie in the first case, so contiguous loops instead say "no loop-carried dependence" (PT_IVDEP),
 * which holds in both cases: element i is read before element i is written. */

/* float16/bfloat16 conversions that vectorize: Note [half conversions] in csrc/core/half.h. */
#define PT_HALF_CAST(NAME, S, D, CONVERT)                                                          \
    static void NAME(char *dst, int64_t dst_stride, const char *src, int64_t src_stride,         \
                     int64_t n)                                                                    \
    {                                                                                              \
        if (dst_stride == (int64_t)sizeof(D) && src_stride == (int64_t)sizeof(S) &&                \
            (uintptr_t)dst % _Alignof(D) == 0 && (uintptr_t)src % _Alignof(S) == 0) {              \
            D *d = (D *)dst;                                                                       \
            const S *s = (const S *)src;                                                           \
            PT_IVDEP for (int64_t i = 0; i < n; i++) d[i] = CONVERT(s[i]);                         \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            S v;                                                                                   \
            memcpy(&v, src + i * src_stride, sizeof v);                                            \
            D r = CONVERT(v);                                                                      \
            memcpy(dst + i * dst_stride, &r, sizeof r);                                            \
        }                                                                                          \
    }
PT_HALF_CAST(cast_f16_f32, uint16_t, float, pt_half_to_float_inline)
PT_HALF_CAST(cast_f32_f16, float, uint16_t, pt_float_to_half_inline)
PT_HALF_CAST(cast_bf16_f32, uint16_t, float, pt_bfloat16_to_float_inline)
PT_HALF_CAST(cast_f32_bf16, float, uint16_t, pt_float_to_bfloat16_inline)

pt_cast_fn pt_iter_cast_fn(int32_t src, int32_t dst)
{
    if (src == PT_FLOAT16 && dst == PT_FLOAT32) return cast_f16_f32;
    if (src == PT_FLOAT32 && dst == PT_FLOAT16) return cast_f32_f16;
    if (src == PT_BFLOAT16 && dst == PT_FLOAT32) return cast_bf16_f32;
    if (src == PT_FLOAT32 && dst == PT_BFLOAT16) return cast_f32_bf16;
    return pt_dtype_cast_fn(src, dst);
}

/* What a loop's pointer casts need, by dtype: the component's alignment (complex64 is two floats). */
static int64_t loop_alignment(int32_t dtype)
{
    switch (dtype) {
    case PT_COMPLEX64: return _Alignof(float);
    case PT_COMPLEX128: return _Alignof(double);
    default: {
        int64_t s = pt_dtype_itemsize(dtype);
        return s > 8 ? 8 : s;
    }
    }
}

/* Up to two casts in a row: input: own -> mid -> loop; output: loop -> mid -> own. Both NULL: the
 * operand is not staged. A lone copy (same dtype) moves a misaligned operand. */
typedef struct chain {
    pt_cast_fn first, second;
    int64_t mid_size; /* itemsize of the first cast's output */
} chain;

static void run_chain(const chain *c, char *dst, int64_t dst_stride, const char *src,
                      int64_t src_stride, int64_t m, char *mid)
{
    if (!c->second) {
        c->first(dst, dst_stride, src, src_stride, m);
        return;
    }
    c->first(mid, c->mid_size, src, src_stride, m);
    c->second(dst, dst_stride, mid, c->mid_size, m);
}

/* The chain from `from` through `mid` (-1: none) to `to`. */
static chain chain_between(int32_t from, int32_t mid, int32_t to)
{
    chain c = {NULL, NULL, 0};
    if (mid < 0 || mid == from || mid == to) {
        if (from != to) c.first = pt_iter_cast_fn(from, to);
        c.mid_size = pt_dtype_itemsize(to);
        return c;
    }
    c.first = pt_iter_cast_fn(from, mid);
    c.second = pt_iter_cast_fn(mid, to);
    c.mid_size = pt_dtype_itemsize(mid);
    return c;
}

/* ---------------------------------------------------------------- the staged loop */

typedef struct run_ctx {
    pt_loop_fn loop;
    void *loop_ctx;
    int32_t nops, noutputs;
    chain chains[PT_ITER_MAX_OPERANDS];
    int64_t loop_size[PT_ITER_MAX_OPERANDS];
} run_ctx;

static void staged_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const run_ctx *r = ctx;
    _Alignas(64) char buf[PT_ITER_MAX_OPERANDS][STAGE_BLOCK * VALUE_BYTES];
    _Alignas(64) char mid[STAGE_BLOCK * VALUE_BYTES];
    for (int64_t done = 0; done < n; done += STAGE_BLOCK) {
        const int64_t m = n - done < STAGE_BLOCK ? n - done : STAGE_BLOCK;
        char *ptrs[PT_ITER_MAX_OPERANDS];
        int64_t st[PT_ITER_MAX_OPERANDS];
        for (int32_t k = 0; k < r->nops; k++) {
            ptrs[k] = data[k] + done * strides[k];
            st[k] = strides[k];
            if (!r->chains[k].first) continue;
            if (k >= r->noutputs) { /* an input broadcast along the row is cast once */
                const int64_t count = strides[k] == 0 ? 1 : m;
                run_chain(&r->chains[k], buf[k], r->loop_size[k], ptrs[k], strides[k], count, mid);
                st[k] = strides[k] == 0 ? 0 : r->loop_size[k];
            } else {
                st[k] = r->loop_size[k];
            }
            ptrs[k] = buf[k];
        }
        r->loop(ptrs, st, m, r->loop_ctx);
        for (int32_t k = 0; k < r->noutputs; k++)
            if (r->chains[k].first)
                run_chain(&r->chains[k], data[k] + done * strides[k], strides[k], buf[k], st[k], m,
                          mid);
    }
}

/* ---------------------------------------------------------------- splitting */

typedef struct coalesced {
    int32_t ndim, nops; /* slowest first */
    int64_t sizes[PT_MAX_DIMS];
    int64_t strides[PT_ITER_MAX_OPERANDS * PT_MAX_DIMS]; /* [k * ndim + d] */
} coalesced;

/* Merges dims that are one run of memory in every operand (as pt_loop_nd does), so that the
 * slowest remaining dim is the one worth splitting. */
static void coalesce(const pt_iter *it, int32_t nops, coalesced *c)
{
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS][PT_ITER_MAX_OPERANDS];
    int32_t n = 0; /* innermost first while building */
    for (int32_t d = it->plan_ndim - 1; d >= 0; d--) {
        if (it->plan_sizes[d] == 1) continue;
        bool merge = n > 0;
        for (int32_t k = 0; merge && k < nops; k++)
            merge = it->plan_strides[k][d] == strides[n - 1][k] * sizes[n - 1];
        if (merge) {
            sizes[n - 1] *= it->plan_sizes[d];
            continue;
        }
        sizes[n] = it->plan_sizes[d];
        for (int32_t k = 0; k < nops; k++) strides[n][k] = it->plan_strides[k][d];
        n++;
    }
    c->ndim = n;
    c->nops = nops;
    for (int32_t i = 0; i < n; i++) {
        c->sizes[i] = sizes[n - 1 - i];
        for (int32_t k = 0; k < nops; k++) c->strides[k * n + i] = strides[n - 1 - i][k];
    }
}

typedef struct slab_job {
    const coalesced *c;
    char *const *data;
    pt_loop_fn fn;
    void *ctx;
} slab_job;

static void run_slab(int64_t begin, int64_t end, void *arg)
{
    const slab_job *j = arg;
    const coalesced *c = j->c;
    char *ptrs[PT_ITER_MAX_OPERANDS];
    int64_t sizes[PT_MAX_DIMS];
    memcpy(sizes, c->sizes, sizeof(int64_t) * (size_t)c->ndim);
    sizes[0] = end - begin;
    for (int32_t k = 0; k < c->nops; k++) ptrs[k] = j->data[k] + begin * c->strides[k * c->ndim];
    pt_loop_nd(c->nops, ptrs, c->strides, c->ndim, sizes, j->fn, j->ctx);
}

static void run_split(const pt_iter *it, int32_t nops, char *const *data, pt_loop_fn fn, void *ctx)
{
    coalesced c;
    coalesce(it, nops, &c);
    if (c.ndim == 0) { /* one element */
        static const int64_t zero[PT_ITER_MAX_OPERANDS];
        fn((char **)data, zero, 1, ctx);
        return;
    }
    slab_job job = {&c, data, fn, ctx};
    /* The grain in outer steps: the slowest dim's share of PT_GRAIN elements. */
    const int64_t inner = it->numel / c.sizes[0];
    const int64_t grain = (PT_GRAIN + inner - 1) / inner;
    pt_parallel_for(c.sizes[0], grain, run_slab, &job);
}

/* ---------------------------------------------------------------- driver */

static bool aligned(const pt_iter *it, int32_t k, int64_t alignment)
{
    if ((uintptr_t)it->data[k] % (uintptr_t)alignment) return false;
    for (int32_t d = 0; d < it->plan_ndim; d++)
        if (it->plan_strides[k][d] % alignment) return false;
    return true;
}

static bool broadcast_scalar(const pt_iter *it, int32_t k)
{
    for (int32_t d = 0; d < it->plan_ndim; d++)
        if (it->plan_strides[k][d] != 0 && it->plan_sizes[d] != 1) return false;
    return true;
}

void pt_iter_run(pt_iter *it, pt_loop_fn loop, void *ctx)
{
    if (it->device_type != PT_DEV_CPU || it->numel == 0) return;
    const int32_t nops = it->noutputs + it->ninputs;
    run_ctx r = {.loop = loop, .loop_ctx = ctx, .nops = nops, .noutputs = it->noutputs};
    _Alignas(64) char scalars[PT_ITER_MAX_OPERANDS][VALUE_BYTES];
    char *data[PT_ITER_MAX_OPERANDS];
    bool staged = false;
    for (int32_t k = 0; k < nops; k++) {
        const int32_t own = it->ops[k]->dtype, to = it->loop_dtype[k];
        r.loop_size[k] = pt_dtype_itemsize(to);
        r.chains[k] = k < it->noutputs ? chain_between(to, it->mid_dtype[k], own)
                                       : chain_between(own, it->mid_dtype[k], to);
        data[k] = it->data[k];
        if (!r.chains[k].first && !aligned(it, k, loop_alignment(to)))
            r.chains[k].first = pt_iter_cast_fn(own, own);
        if (k >= it->noutputs && r.chains[k].first && broadcast_scalar(it, k)) {
            /* One element everywhere: convert it once and read it in place. */
            _Alignas(64) char mid[VALUE_BYTES];
            run_chain(&r.chains[k], scalars[k], 0, data[k], 0, 1, mid);
            data[k] = scalars[k];
            r.chains[k] = (chain){NULL, NULL, 0};
        }
        staged |= r.chains[k].first != NULL;
    }
    if (staged) run_split(it, nops, data, staged_loop, &r);
    else run_split(it, nops, data, loop, ctx);
}
