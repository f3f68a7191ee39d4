/* random.c - the Philox stream behind the elementwise random ops and the basic fills on it
 * (uniform_, normal_, random_): the counter blocks, the rows that turn them into values, the walk
 * over strided tensors that threads split, generators and devices, and the fill that every op of
 * random_draws.c (exponential_, cauchy_, log_normal_, geometric_, bernoulli_) ends in.
 *
 * Note [Philox stream]
 * A random op reserves one 128-bit Philox counter block per element from its generator
 * (pt_generator_reserve: one atomic fetch-add, so concurrent ops never share blocks) - normal_
 * one per 4 elements (2 for float64), below. Element i of a call whose blocks start at offset o
 * is computed from
 *     philox4x32_10(counter = {lo32(o + i), hi32(o + i), 0, 0}, key = {lo32(seed), hi32(seed)})
 * (normal_: the block o + i / 4, or o + i / 2) and from nothing else. Any element can therefore
 * be computed on its own: OpenMP threads split the elements without coordination, a CUDA kernel
 * can give one element (or block) per thread, and a seed gives the same numbers on every device
 * and any thread count. "Element i" is the i-th element of the written view in row-major order,
 * whatever its strides, so a strided view receives exactly what a contiguous tensor of its shape
 * would. The offset counts blocks, not 32-bit words as in
 * PyTorch's CUDA generator, so offsets are not interchangeable with torch's.
 *
 * From the four words of a block:
 *   uniform_  float32 (and float16/bfloat16 through float32): the top 24 bits of word 0 give
 *             u in [0, 1) exactly; the value is from + u * (to - from). Rounding can still land on
 *             `to`, which becomes `from`, as in PyTorch's CUDA kernel, so values lie in [from, to).
 *             float64: 53 bits from words 0-1.
 *   normal_   Box-Muller, both branches: a pair u1 in (0, 1], u2 in [0, 1) gives
 *             r cos(2 pi u2) and r sin(2 pi u2), r = sqrt(-2 log u1). float32 (and float16/bfloat16
 *             through float32): words 0-1 and 2-3 are two pairs of 24-bit u, so element i is the
 *             cosine (i % 4 = 0), sine (1), cosine (2) or sine (3) normal of block o + i / 4.
 *             float64: u1 from words 0-1, u2 from 2-3 (53 bits each); element i is the cosine
 *             (i even) or sine normal of block o + i / 2. The call reserves ceil(n / 4) or
 *             ceil(n / 2) blocks. The arithmetic is random_math.h's, the same on every device and
 *             CPU capability (Note [normal arithmetic]); cpu/random_kernels.c vectorizes it.
 *   random_   x = words 0-1 as a 64-bit integer; from + x mod (to - from). The modulo bias is below
 *             (to - from) / 2^64: under 2^-32 for any range that fits 32 bits, which no test of
 *             a few million draws can see; rejection sampling would break "one block per element".
 *   the others (Note [distributions], random_draws.c) start from u in [0, 1) as uniform_ makes it
 *             - 24 bits for outputs below float64, 53 for float64 - or from normal_'s z.
 * randperm and multinomial, which are not one block per element, are in random_dist.c.
 *
 * Meta tensors are checked like others and then left alone, without advancing the generator.
 * The fills run on other devices by filling on the CPU and copying over (same numbers by
 * construction) until the backend brings its own kernels.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_stub.h"
#include "native.h"
#include "philox.h"
#include "random_internal.h"

PT_CPU_STUB(random, pt_random_table, "normal_'s float32 and float64 fills")

/* Below this many elements per thread, waking OpenMP threads (a few microseconds) costs more than
 * the work: one element is a 10-round Philox block plus a conversion, ~5-20 ns (normal_'s
 * vectorized float32 elements ~2.5 ns on a Zen 3 core: still 80 us per thread at the grain). */
enum { GRAIN = 32768 };

static inline float uniform_f32(const pt_random_ctx *c, const uint32_t w[4])
{
    const float v = pt_random_u24(w[0]) * c->rangef + c->af;
    return v >= c->bf ? c->af : v;
}

static inline double uniform_f64(const pt_random_ctx *c, const uint32_t w[4])
{
    const double v = pt_random_u53(w[0], w[1]) * c->range + c->a;
    return v >= c->b ? c->a : v;
}

static inline uint16_t uniform_f16(const pt_random_ctx *c, const uint32_t w[4])
{
    const uint16_t h = pt_float_to_half(uniform_f32(c, w));
    return pt_half_to_float(h) >= c->to_rounded ? c->from_bits : h;
}

static inline uint16_t uniform_bf16(const pt_random_ctx *c, const uint32_t w[4])
{
    const uint16_t h = pt_float_to_bfloat16(uniform_f32(c, w));
    return pt_bfloat16_to_float(h) >= c->to_rounded ? c->from_bits : h;
}

/* from + x mod range, as int64 (the range check made it fit the output dtype exactly). */
static inline int64_t random_i64(const pt_random_ctx *c, const uint32_t w[4])
{
    const uint64_t x = ((uint64_t)w[1] << 32) | w[0];
    return (int64_t)(c->ufrom + x % c->urange);
}

/* Blocks of BATCH consecutive elements, computed in structure-of-arrays form so that the compiler
 * turns each round into vector multiplies (pmuludq and its wider forms). Measured on an AVX-512
 * Xeon at -O2 with baseline flags: 5.5 ns per block against 9.4 one block at a time; 16 lanes are
 * two 512-bit registers of 64-bit products per multiplier. */
enum { BATCH = 16 };
typedef struct batch_words {
    uint32_t w0[BATCH], w1[BATCH], w2[BATCH], w3[BATCH];
} batch_words;

static inline void blocks(const pt_random_ctx *c, uint64_t first, batch_words *b)
{
    uint32_t c0[BATCH], c1[BATCH], c2[BATCH], c3[BATCH];
    for (int k = 0; k < BATCH; k++) {
        const uint64_t ctr = c->offset + first + (uint64_t)k;
        c0[k] = (uint32_t)ctr;
        c1[k] = (uint32_t)(ctr >> 32);
        c2[k] = 0;
        c3[k] = 0;
    }
    uint32_t k0 = c->k0, k1 = c->k1;
    for (int round = 0; round < 10; round++) {
        /* Unrolled completely (as -O3 would), the lanes become straight-line code that the
         * vectorizer no longer treats as a loop. */
#pragma GCC unroll 1
        for (int k = 0; k < BATCH; k++) {
            const uint64_t p0 = (uint64_t)PT_PHILOX_M0 * c0[k];
            const uint64_t p1 = (uint64_t)PT_PHILOX_M1 * c2[k];
            const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[k] ^ k0;
            const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3[k] ^ k1;
            c1[k] = (uint32_t)p1;
            c3[k] = (uint32_t)p0;
            c0[k] = n0;
            c2[k] = n2;
        }
        k0 += PT_PHILOX_W0;
        k1 += PT_PHILOX_W1;
    }
    for (int k = 0; k < BATCH; k++) {
        b->w0[k] = c0[k];
        b->w1[k] = c1[k];
        b->w2[k] = c2[k];
        b->w3[k] = c3[k];
    }
}

/* One row of n elements of p[0]; `expr` reads the element's four words from w. A batch may
 * compute a few blocks past the row's end: they are never stored, and the counter is only a
 * number, so nothing is consumed. */
#define ROW(name, ctype, expr)                                                                     \
    static void name(const pt_random_ctx *c, char *const *p, const int64_t *s, int64_t n,         \
                     uint64_t first)                                                               \
    {                                                                                              \
        batch_words b;                                                                             \
        for (int64_t k0 = 0; k0 < n; k0 += BATCH) {                                                \
            blocks(c, first + (uint64_t)k0, &b);                                                   \
            const int m = n - k0 < BATCH ? (int)(n - k0) : BATCH;                                  \
            for (int j = 0; j < m; j++) {                                                          \
                const uint32_t w[4] = {b.w0[j], b.w1[j], b.w2[j], b.w3[j]};                        \
                *(ctype *)(void *)(p[0] + (k0 + j) * s[0]) = (expr);                               \
            }                                                                                      \
        }                                                                                          \
    }

ROW(uniform_row_f16, uint16_t, uniform_f16(c, w))
ROW(uniform_row_bf16, uint16_t, uniform_bf16(c, w))
ROW(uniform_row_f32, float, uniform_f32(c, w))
ROW(uniform_row_f64, double, uniform_f64(c, w))
ROW(random_row_bool, _Bool, random_i64(c, w) != 0)
ROW(random_row_u8, uint8_t, (uint8_t)random_i64(c, w))
ROW(random_row_i8, int8_t, (int8_t)random_i64(c, w))
ROW(random_row_i16, int16_t, (int16_t)random_i64(c, w))
ROW(random_row_i32, int32_t, (int32_t)random_i64(c, w))
ROW(random_row_i64, int64_t, random_i64(c, w))
ROW(random_row_f16, uint16_t, pt_float_to_half((float)random_i64(c, w)))
ROW(random_row_bf16, uint16_t, pt_float_to_bfloat16((float)random_i64(c, w)))
ROW(random_row_f32, float, (float)random_i64(c, w))
ROW(random_row_f64, double, (double)random_i64(c, w))

/* normal_'s rows: the capability's kernel (cpu/random_kernels.c) writes a contiguous float32 or
 * float64 row in place; strided rows and 16-bit dtypes go through a buffer of STAGE values. */
enum { STAGE = 256 };

static pt_random_normal_args normal_args(const pt_random_ctx *c)
{
    return (pt_random_normal_args){.k0 = c->k0, .k1 = c->k1, .offset = c->offset,
                                   .mean_f = c->af, .std_f = c->bf, .mean = c->a, .std = c->b};
}

#define NORMAL_ROW(name, T, KERNEL, ctype, convert)                                                \
    static void name(const pt_random_ctx *c, char *const *p, const int64_t *s, int64_t n,         \
                     uint64_t first)                                                               \
    {                                                                                              \
        const pt_random_normal_args a = normal_args(c);                                            \
        const pt_random_table *table = PT_CPU_KERNELS(random, pt_random_table);                    \
        if (sizeof(ctype) == sizeof(T) && s[0] == (int64_t)sizeof(T)) {                            \
            table->KERNEL((T *)(void *)p[0], n, first, &a);                                        \
            return;                                                                                \
        }                                                                                          \
        T buf[STAGE];                                                                              \
        for (int64_t k0 = 0; k0 < n; k0 += STAGE) {                                                \
            const int64_t m = n - k0 < STAGE ? n - k0 : STAGE;                                     \
            table->KERNEL(buf, m, first + (uint64_t)k0, &a);                                       \
            for (int64_t j = 0; j < m; j++)                                                        \
                *(ctype *)(void *)(p[0] + (k0 + j) * s[0]) = convert(buf[j]);                      \
        }                                                                                          \
    }

static inline float same_f32(float v) { return v; }
static inline double same_f64(double v) { return v; }

NORMAL_ROW(normal_row_f16, float, normal_f32, uint16_t, pt_float_to_half)
NORMAL_ROW(normal_row_bf16, float, normal_f32, uint16_t, pt_float_to_bfloat16)
NORMAL_ROW(normal_row_f32, float, normal_f32, float, same_f32)
NORMAL_ROW(normal_row_f64, double, normal_f64, double, same_f64)

/* The row of the ops of Note [distributions]: reads the input (or takes the constant), draws,
 * stores. */
void pt_random_dist_row(const pt_random_ctx *c, char *const *p, const int64_t *s, int64_t n,
                        uint64_t first)
{
    batch_words b;
    for (int64_t k0 = 0; k0 < n; k0 += BATCH) {
        blocks(c, first + (uint64_t)k0, &b);
        const int m = n - k0 < BATCH ? (int)(n - k0) : BATCH;
        for (int j = 0; j < m; j++) {
            const uint32_t w[4] = {b.w0[j], b.w1[j], b.w2[j], b.w3[j]};
            const int64_t i = k0 + j;
            const double x = c->load ? c->load(p[1] + i * s[1]) : c->x0;
            c->store(p[0] + i * s[0], c->draw(c, w, x));
        }
    }
}

static const pt_random_row_fn uniform_rows[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_FLOAT16] = uniform_row_f16, [PT_BFLOAT16] = uniform_row_bf16,
    [PT_FLOAT32] = uniform_row_f32, [PT_FLOAT64] = uniform_row_f64,
};
static const pt_random_row_fn normal_rows[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_FLOAT16] = normal_row_f16, [PT_BFLOAT16] = normal_row_bf16,
    [PT_FLOAT32] = normal_row_f32, [PT_FLOAT64] = normal_row_f64,
};
static const pt_random_row_fn random_rows[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_BOOL] = random_row_bool,   [PT_UINT8] = random_row_u8,     [PT_INT8] = random_row_i8,
    [PT_INT16] = random_row_i16,   [PT_INT32] = random_row_i32,    [PT_INT64] = random_row_i64,
    [PT_FLOAT16] = random_row_f16, [PT_BFLOAT16] = random_row_bf16, [PT_FLOAT32] = random_row_f32,
    [PT_FLOAT64] = random_row_f64,
};


/* The floating dtypes' largest finite value and the integers they hold exactly (up to
 * 2^digits): the bounds of uniform_'s range and of random_'s values. */
static const struct {
    double max;
    int32_t digits;
} float_limits[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_FLOAT16] = {65504.0, 11},
    [PT_BFLOAT16] = {3.3895313892515355e38, 8},
    [PT_FLOAT32] = {FLT_MAX, 24},
    [PT_FLOAT64] = {DBL_MAX, 53},
};
_Static_assert(PT_DTYPE_BUILTIN_COUNT == 12, "the tables above cover the builtin dtypes");

bool pt_random_is_floating(int32_t dtype)
{
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT && float_limits[dtype].digits > 0;
}

const char *pt_random_dtype_name(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return info ? info->name : "unknown";
}

static pt_random_row_fn row_for(const pt_random_row_fn *table, int32_t dtype)
{
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT ? table[dtype] : NULL;
}

/* ---------------------------------------------------------------- walking strided tensors */
/* The operands over the written tensor's shape (inputs broadcast to it with zero strides), size-1
 * dims dropped and row-major-adjacent dims merged where every operand allows it: the row-major
 * element order is kept, and contiguous operands make one row. */
typedef struct walk_plan {
    int32_t nops, ndim;
    char *base[PT_RANDOM_MAX_OPERANDS];
    int64_t sizes[PT_MAX_DIMS];
    int64_t strides[PT_RANDOM_MAX_OPERANDS][PT_MAX_DIMS]; /* bytes */
} walk_plan;

/* ops[k]->strides are over ops[0]'s shape (the inputs were expanded to it). */
static void plan_make(int32_t nops, const pt_tensor *const *ops, walk_plan *p)
{
    const pt_tensor *t = ops[0];
    memset(p, 0, sizeof *p); /* the strides of absent operands read as 0 */
    p->nops = nops;
    for (int32_t k = 0; k < nops; k++) p->base[k] = pt_tensor_data(ops[k]);
    for (int32_t d = 0; d < t->ndim; d++) {
        const int64_t size = t->sizes[d];
        if (size == 1) continue;
        bool merge = p->ndim > 0;
        for (int32_t k = 0; k < nops && merge; k++)
            merge = p->strides[k][p->ndim - 1] ==
                    size * ops[k]->strides[d] * pt_dtype_itemsize(ops[k]->dtype);
        if (merge) {
            p->sizes[p->ndim - 1] *= size;
        } else {
            p->sizes[p->ndim] = size;
            p->ndim++;
        }
        for (int32_t k = 0; k < nops; k++)
            p->strides[k][p->ndim - 1] = ops[k]->strides[d] * pt_dtype_itemsize(ops[k]->dtype);
    }
    if (p->ndim == 0) {
        p->ndim = 1;
        p->sizes[0] = 1;
        for (int32_t k = 0; k < nops; k++) p->strides[k][0] = 0;
    }
}

/* Elements [begin, end) in row-major order. Offsets are kept as integers so that no pointer
 * outside the tensor is ever formed. */
static void walk_range(const walk_plan *p, int64_t begin, int64_t end, pt_random_row_fn fn,
                       const pt_random_ctx *c)
{
    const int32_t last = p->ndim - 1, nops = p->nops;
    int64_t idx[PT_MAX_DIMS], off[PT_RANDOM_MAX_OPERANDS] = {0, 0}, rem = begin;
    for (int32_t d = last; d >= 0; d--) {
        idx[d] = rem % p->sizes[d];
        rem /= p->sizes[d];
        for (int32_t k = 0; k < nops; k++) off[k] += idx[d] * p->strides[k][d];
    }
    const int64_t inner = p->sizes[last];
    const int64_t inner_strides[PT_RANDOM_MAX_OPERANDS] = {p->strides[0][last],
                                                           p->strides[1][last]};
    for (int64_t i = begin; i < end;) {
        int64_t n = inner - idx[last];
        if (n > end - i) n = end - i;
        char *ptrs[PT_RANDOM_MAX_OPERANDS] = {NULL, NULL};
        for (int32_t k = 0; k < nops; k++) ptrs[k] = p->base[k] + off[k];
        fn(c, ptrs, inner_strides, n, (uint64_t)i);
        i += n;
        if (i >= end) break;
        for (int32_t k = 0; k < nops; k++) off[k] -= idx[last] * p->strides[k][last];
        idx[last] = 0;
        for (int32_t d = last - 1; d >= 0; d--) {
            for (int32_t k = 0; k < nops; k++) off[k] += p->strides[k][d];
            if (++idx[d] < p->sizes[d]) break;
            for (int32_t k = 0; k < nops; k++) off[k] -= p->sizes[d] * p->strides[k][d];
            idx[d] = 0;
        }
    }
}

static void run_rows(const walk_plan *p, int64_t numel, pt_random_row_fn fn, const pt_random_ctx *c)
{
#ifdef _OPENMP
    const int64_t max_threads = pt_get_num_threads();
    if (numel >= 2 * GRAIN && max_threads > 1 && !omp_in_parallel()) {
        const int64_t nthreads = numel / GRAIN < max_threads ? numel / GRAIN : max_threads;
#pragma omp parallel num_threads((int)nthreads)
        {
            const int64_t nt = omp_get_num_threads(), tid = omp_get_thread_num();
            const int64_t chunk = (numel + nt - 1) / nt;
            const int64_t begin = tid * chunk, end = begin + chunk < numel ? begin + chunk : numel;
            if (begin < end) walk_range(p, begin, end, fn, c);
        }
        return;
    }
#endif
    walk_range(p, 0, numel, fn, c);
}

/* ---------------------------------------------------------------- generators and devices */
pt_status pt_random_generator_for(pt_device device, pt_generator *g, pt_generator **out)
{
    if (!g) return pt_generator_default(device, out);
    if (g->device.type != device.type) {
        const char *want = pt_device_type_name(device.type), *got = pt_device_type_name(g->device.type);
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Expected a '%s' device type for generator but found '%s'",
                        want ? want : "unknown", got ? got : "unknown");
    }
    pt_generator_retain(g);
    *out = g;
    return PT_OK;
}

/* Runs fn over ops[0]'s elements (CPU tensors; ops[1..] read) from g's stream (Note [Philox
 * stream]). */
void pt_random_run_cpu(int32_t nops, const pt_tensor *const *ops, pt_generator *g, pt_random_ctx *c,
                       pt_random_row_fn fn)
{
    const int64_t numel = ops[0]->numel;
    const uint64_t seed = pt_generator_initial_seed(g);
    const uint64_t per_block = c->per_block ? c->per_block : 1;
    c->k0 = (uint32_t)seed;
    c->k1 = (uint32_t)(seed >> 32);
    c->offset = pt_generator_reserve(g, ((uint64_t)numel + per_block - 1) / per_block);
    if (numel == 0) return;
    walk_plan plan;
    plan_make(nops, ops, &plan);
    run_rows(&plan, numel, fn, c);
}

/* torch's assert_no_internal_overlap, for the cases it can tell: a broadcast (stride 0) dim. */
static pt_status check_internal_overlap(const pt_tensor *t)
{
    for (int32_t d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] == 0)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "unsupported operation: more than one element of the written-to "
                            "tensor refers to a single memory location. Please clone() the tensor "
                            "before performing the operation.");
    return PT_OK;
}

/* What every written tensor must be: strided, writable, without self-overlap. */
pt_status pt_random_check_written(const char *op, const pt_tensor *t)
{
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported", op);
    if (t->device.type != PT_DEV_META && t->storage && !t->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the tensor's memory is read-only", op);
    return check_internal_overlap(t);
}

/* Everything common to the fills once the op checked its arguments: layout, read-only memory,
 * meta, the generator, and the detour through the CPU for other devices. */
pt_status pt_random_fill(const char *op, pt_tensor *t, pt_generator *g, pt_random_ctx *c,
                         pt_random_row_fn fn)
{
    PT_TRY(pt_random_check_written(op, t));
    if (t->device.type == PT_DEV_META) return PT_OK;
    pt_generator *gen = NULL;
    PT_TRY(pt_random_generator_for(t->device, g, &gen));
    if (t->device.type == PT_DEV_CPU) {
        pt_random_run_cpu(1, (const pt_tensor *[]){t}, gen, c, fn);
        pt_generator_release(gen);
        return PT_OK;
    }
    pt_tensor *tmp = NULL;
    pt_status st = pt_tensor_empty(t->ndim, t->sizes, t->dtype, (pt_device){PT_DEV_CPU, 0}, &tmp);
    if (st == PT_OK) {
        pt_random_run_cpu(1, (const pt_tensor *[]){tmp}, gen, c, fn);
        st = pt_tensor_copy_(t, tmp);
        pt_tensor_release(tmp);
    }
    pt_generator_release(gen);
    return st;
}

/* ---------------------------------------------------------------- uniform_, normal_, random_ */
/* Complex tensors draw through their real view (a trailing dim of 2: real and imaginary parts),
 * as torch does: uniform_ fills both parts from [from, to), normal_ both with std / sqrt(2), so
 * that the complex value's variance is std^2. */
/* Dims of size 1 are left out (they change no element's place in the row-major order the draws
 * follow), so the view fits PT_MAX_DIMS: 64 dims of sizes >= 2 would hold 2^64 elements. An
 * empty tensor's view is (0, 2). */
static pt_status real_view(const pt_tensor *t, pt_tensor **out)
{
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    int32_t nd = 0;
    for (int32_t d = 0; d < t->ndim && t->numel > 0; d++) {
        if (t->sizes[d] == 1) continue;
        sizes[nd] = t->sizes[d];
        strides[nd++] = t->strides[d] * 2;
    }
    if (t->numel == 0) {
        sizes[nd] = 0;
        strides[nd++] = 2;
    }
    sizes[nd] = 2;
    strides[nd] = 1;
    const int32_t real = t->dtype == PT_COMPLEX64 ? PT_FLOAT32 : PT_FLOAT64;
    return pt_tensor_make(t->storage, real, nd + 1, sizes, strides, t->offset * 2, out);
}

pt_status pt_tensor_uniform_(pt_tensor *t, double from, double to, pt_generator *g)
{
    if (t->dtype == PT_COMPLEX64 || t->dtype == PT_COMPLEX128) {
        pt_tensor *r;
        PT_TRY(real_view(t, &r));
        pt_status st = pt_tensor_uniform_(r, from, to, g);
        pt_tensor_release(r);
        return st;
    }
    const pt_random_row_fn fn = row_for(uniform_rows, t->dtype);
    if (!fn)
        return PT_ERROR(PT_ERR_TYPE, "uniform_ expects a floating point dtype, but got %s",
                        pt_random_dtype_name(t->dtype));
    if (!(from <= to))
        return PT_ERROR(PT_ERR_VALUE,
                        "uniform_ expects to return values in [from, to), but found from=%g > "
                        "to=%g",
                        from, to);
    const double max = float_limits[t->dtype].max;
    if (!(to - from <= max))
        return PT_ERROR(PT_ERR_VALUE,
                        "uniform_ expects to-from <= the largest %s (%g), but found to=%g and "
                        "from=%g which result in to-from to exceed the limit",
                        pt_random_dtype_name(t->dtype), max, to, from);
    pt_random_ctx c = {.a = from, .b = to, .range = to - from};
    c.af = (float)from;
    c.bf = (float)to;
    c.rangef = (float)(to - from);
    if (t->dtype == PT_FLOAT16) {
        c.from_bits = pt_float_to_half(c.af);
        c.to_rounded = pt_half_to_float(pt_float_to_half(c.bf));
    } else if (t->dtype == PT_BFLOAT16) {
        c.from_bits = pt_float_to_bfloat16(c.af);
        c.to_rounded = pt_bfloat16_to_float(pt_float_to_bfloat16(c.bf));
    }
    return pt_random_fill("uniform_", t, g, &c, fn);
}

pt_status pt_tensor_normal_(pt_tensor *t, double mean, double std, pt_generator *g)
{
    if (!(std >= 0.0))
        return PT_ERROR(PT_ERR_VALUE, "normal expects std >= 0.0, but found std %g", std);
    if (t->dtype == PT_COMPLEX64 || t->dtype == PT_COMPLEX128) {
        pt_tensor *r;
        PT_TRY(real_view(t, &r));
        pt_status st = pt_tensor_normal_(r, mean, std / sqrt(2.0), g);
        pt_tensor_release(r);
        return st;
    }
    const pt_random_row_fn fn = row_for(normal_rows, t->dtype);
    if (!fn)
        return PT_ERROR(PT_ERR_TYPE, "normal_ expects a floating point dtype, but got %s",
                        pt_random_dtype_name(t->dtype));
    pt_random_ctx c = {.a = mean, .b = std, .af = (float)mean, .bf = (float)std};
    c.per_block = t->dtype == PT_FLOAT64 ? PT_RANDOM_NORMALS_PER_BLOCK_F64
                                         : PT_RANDOM_NORMALS_PER_BLOCK_F32;
    return pt_random_fill("normal_", t, g, &c, fn);
}

/* The values random_ may write to a dtype: [*lo, *hi]. */
static void exact_range(int32_t dtype, int64_t *lo, int64_t *hi)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    if (float_limits[dtype].digits) {
        *hi = INT64_C(1) << float_limits[dtype].digits;
        *lo = -*hi;
    } else {
        *lo = info->imin;
        *hi = info->imax;
    }
}

pt_status pt_tensor_random_(pt_tensor *t, int64_t from, int64_t to, pt_generator *g)
{
    const pt_random_row_fn fn = row_for(random_rows, t->dtype);
    if (!fn)
        return PT_ERROR(PT_ERR_TYPE, "random_ expects an integer, bool or floating dtype, but got %s",
                        pt_random_dtype_name(t->dtype));
    if (from >= to)
        return PT_ERROR(PT_ERR_VALUE,
                        "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                        (long long)from, (long long)to);
    int64_t lo, hi;
    exact_range(t->dtype, &lo, &hi);
    if (from < lo)
        return PT_ERROR(PT_ERR_VALUE, "random_: from=%lld is out of bounds for %s (%lld to %lld)",
                        (long long)from, pt_random_dtype_name(t->dtype), (long long)lo,
                        (long long)hi);
    if (to - 1 > hi)
        return PT_ERROR(PT_ERR_VALUE,
                        "random_: to - 1=%lld is out of bounds for %s (%lld to %lld)",
                        (long long)(to - 1), pt_random_dtype_name(t->dtype), (long long)lo,
                        (long long)hi);
    pt_random_ctx c = {.ufrom = (uint64_t)from, .urange = (uint64_t)to - (uint64_t)from};
    return pt_random_fill("random_", t, g, &c, fn);
}

