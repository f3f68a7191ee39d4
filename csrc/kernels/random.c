/* random.c - the random fills (uniform_, normal_, random_) and randperm.
 *
 * Note [Philox stream]
 * A random op reserves one 128-bit Philox counter block per element from its generator
 * (pt_generator_reserve: one atomic fetch-add, so concurrent ops never share blocks). Element i of
 * a call whose blocks start at offset o is computed from
 *     philox4x32_10(counter = {lo32(o + i), hi32(o + i), 0, 0}, key = {lo32(seed), hi32(seed)})
 * and from nothing else. Any element can therefore be computed on its own: OpenMP threads split
 * the elements without coordination, a CUDA kernel can give one element per thread, and a seed
 * gives the same numbers on every device and any thread count. "Element i" is the i-th element of
 * the written view in row-major order, whatever its strides, so a strided view receives exactly
 * what a contiguous tensor of its shape would. The offset counts blocks, not 32-bit words as in
 * PyTorch's CUDA generator, so offsets are not interchangeable with torch's.
 *
 * From the four words of a block:
 *   uniform_  float32 (and float16/bfloat16 through float32): the top 24 bits of word 0 give
 *             u in [0, 1) exactly; the value is from + u * (to - from). Rounding can still land on
 *             `to`, which becomes `from`, as in PyTorch's CUDA kernel, so values lie in [from, to).
 *             float64: 53 bits from words 0-1.
 *   normal_   Box-Muller, cosine branch only (the sine half would need a second element's slot):
 *             u1 in (0, 1] and u2 in [0, 1) from words 0 and 1 (float) or 0-1 and 2-3 (double).
 *   random_   x = words 0-1 as a 64-bit integer; from + x mod (to - from). The modulo bias is below
 *             (to - from) / 2^64: under 2^-32 for any range that fits 32 bits, which no test of
 *             a few million draws can see; rejection sampling would break "one block per element".
 *   randperm  Fisher-Yates from the top: step s (swapping slot n-1-s with a slot in [0, n-1-s])
 *             draws from block o + s, reduced the way random_ does.
 *
 * Meta tensors are checked like others and then left alone, without advancing the generator.
 * Tensors on other devices are filled on the CPU and copied over (same numbers by construction)
 * until the backend brings its own kernels.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "philox.h"
#include "internal.h"

/* Below this many elements per thread, waking OpenMP threads (a few microseconds) costs more than
 * the work: one element is a 10-round Philox block plus a conversion, ~5-20 ns. */
enum { GRAIN = 32768 };

typedef struct rand_ctx {
    uint32_t k0, k1;
    uint64_t offset; /* first block of the call */
    double a, b;     /* uniform: from, to; normal: mean, std */
    float af, bf, rangef;
    double range;
    float to_rounded; /* `to` in the output dtype, read back as float (16-bit outputs) */
    uint16_t from_bits;
    uint64_t ufrom, urange; /* random_ */
} rand_ctx;

typedef void (*row_fn)(const rand_ctx *c, char *p, int64_t stride, int64_t n, uint64_t first);

static inline void block(const rand_ctx *c, uint64_t i, uint32_t w[4])
{
    const uint64_t ctr = c->offset + i;
    pt_philox_block((uint32_t)ctr, (uint32_t)(ctr >> 32), 0, 0, c->k0, c->k1, w);
}

static inline float u24(uint32_t w) { return (float)(w >> 8) * 0x1p-24f; }

static inline double u53(uint32_t hi, uint32_t lo)
{
    return (double)((((uint64_t)hi << 32) | lo) >> 11) * 0x1p-53;
}

static inline float uniform_f32(const rand_ctx *c, const uint32_t w[4])
{
    const float v = u24(w[0]) * c->rangef + c->af;
    return v >= c->bf ? c->af : v;
}

static inline double uniform_f64(const rand_ctx *c, const uint32_t w[4])
{
    const double v = u53(w[0], w[1]) * c->range + c->a;
    return v >= c->b ? c->a : v;
}

static inline uint16_t uniform_f16(const rand_ctx *c, const uint32_t w[4])
{
    const uint16_t h = pt_float_to_half(uniform_f32(c, w));
    return pt_half_to_float(h) >= c->to_rounded ? c->from_bits : h;
}

static inline uint16_t uniform_bf16(const rand_ctx *c, const uint32_t w[4])
{
    const uint16_t h = pt_float_to_bfloat16(uniform_f32(c, w));
    return pt_bfloat16_to_float(h) >= c->to_rounded ? c->from_bits : h;
}

static inline float normal_f32(const rand_ctx *c, const uint32_t w[4])
{
    const float u1 = 1.0f - u24(w[0]), u2 = u24(w[1]);
    const float r = sqrtf(-2.0f * logf(u1));
    return c->af + c->bf * (r * cosf(6.2831853071795865f * u2));
}

static inline double normal_f64(const rand_ctx *c, const uint32_t w[4])
{
    const double u1 = 1.0 - u53(w[0], w[1]), u2 = u53(w[2], w[3]);
    const double r = sqrt(-2.0 * log(u1));
    return c->a + c->b * (r * cos(6.283185307179586 * u2));
}

/* from + x mod range, as int64 (the range check made it fit the output dtype exactly). */
static inline int64_t random_i64(const rand_ctx *c, const uint32_t w[4])
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

static inline void blocks(const rand_ctx *c, uint64_t first, batch_words *b)
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

/* One row of n elements at byte stride `stride`, element indices first..first+n-1; `expr` reads
 * the element's four words from w. A batch may compute a few blocks past the row's end: they are
 * never stored, and the counter is only a number, so nothing is consumed. */
#define ROW(name, ctype, expr)                                                                     \
    static void name(const rand_ctx *c, char *p, int64_t stride, int64_t n, uint64_t first)       \
    {                                                                                              \
        batch_words b;                                                                             \
        for (int64_t k0 = 0; k0 < n; k0 += BATCH) {                                                \
            blocks(c, first + (uint64_t)k0, &b);                                                   \
            const int m = n - k0 < BATCH ? (int)(n - k0) : BATCH;                                  \
            for (int j = 0; j < m; j++) {                                                          \
                const uint32_t w[4] = {b.w0[j], b.w1[j], b.w2[j], b.w3[j]};                        \
                *(ctype *)(void *)(p + (k0 + j) * stride) = (expr);                                \
            }                                                                                      \
        }                                                                                          \
    }

ROW(uniform_row_f16, uint16_t, uniform_f16(c, w))
ROW(uniform_row_bf16, uint16_t, uniform_bf16(c, w))
ROW(uniform_row_f32, float, uniform_f32(c, w))
ROW(uniform_row_f64, double, uniform_f64(c, w))
ROW(normal_row_f16, uint16_t, pt_float_to_half(normal_f32(c, w)))
ROW(normal_row_bf16, uint16_t, pt_float_to_bfloat16(normal_f32(c, w)))
ROW(normal_row_f32, float, normal_f32(c, w))
ROW(normal_row_f64, double, normal_f64(c, w))
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

static const row_fn uniform_rows[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_FLOAT16] = uniform_row_f16, [PT_BFLOAT16] = uniform_row_bf16,
    [PT_FLOAT32] = uniform_row_f32, [PT_FLOAT64] = uniform_row_f64,
};
static const row_fn normal_rows[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_FLOAT16] = normal_row_f16, [PT_BFLOAT16] = normal_row_bf16,
    [PT_FLOAT32] = normal_row_f32, [PT_FLOAT64] = normal_row_f64,
};
static const row_fn random_rows[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_BOOL] = random_row_bool,   [PT_UINT8] = random_row_u8,     [PT_INT8] = random_row_i8,
    [PT_INT16] = random_row_i16,   [PT_INT32] = random_row_i32,    [PT_INT64] = random_row_i64,
    [PT_FLOAT16] = random_row_f16, [PT_BFLOAT16] = random_row_bf16, [PT_FLOAT32] = random_row_f32,
    [PT_FLOAT64] = random_row_f64,
};

/* The floating dtypes' largest finite value and the integers they hold exactly (up to
 * 2^digits): the bounds of uniform_'s range and of random_'s and randperm's values. */
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

static const char *dtype_name(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return info ? info->name : "unknown";
}

static row_fn row_for(const row_fn *table, int32_t dtype)
{
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT ? table[dtype] : NULL;
}

/* ---------------------------------------------------------------- walking a strided tensor */
/* The tensor's dims with size-1 dims dropped and row-major-adjacent dims merged, which keeps the
 * row-major element order and makes a contiguous tensor one row. */
typedef struct walk_plan {
    char *base;
    int32_t ndim;
    int64_t sizes[PT_MAX_DIMS];
    int64_t strides[PT_MAX_DIMS]; /* bytes */
} walk_plan;

static void plan_make(const pt_tensor *t, walk_plan *p)
{
    const int64_t itemsize = pt_dtype_itemsize(t->dtype);
    p->base = pt_tensor_data(t);
    p->ndim = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        const int64_t size = t->sizes[d], stride = t->strides[d] * itemsize;
        if (size == 1) continue;
        if (p->ndim > 0 && p->strides[p->ndim - 1] == size * stride) {
            p->sizes[p->ndim - 1] *= size;
            p->strides[p->ndim - 1] = stride;
        } else {
            p->sizes[p->ndim] = size;
            p->strides[p->ndim] = stride;
            p->ndim++;
        }
    }
    if (p->ndim == 0) {
        p->ndim = 1;
        p->sizes[0] = 1;
        p->strides[0] = itemsize;
    }
}

/* Elements [begin, end) in row-major order. Offsets are kept as integers so that no pointer
 * outside the tensor is ever formed. */
static void walk_range(const walk_plan *p, int64_t begin, int64_t end, row_fn fn,
                       const rand_ctx *c)
{
    const int32_t last = p->ndim - 1;
    int64_t idx[PT_MAX_DIMS];
    int64_t off = 0, rem = begin;
    for (int32_t d = last; d >= 0; d--) {
        idx[d] = rem % p->sizes[d];
        rem /= p->sizes[d];
        off += idx[d] * p->strides[d];
    }
    const int64_t inner = p->sizes[last], stride = p->strides[last];
    for (int64_t i = begin; i < end;) {
        int64_t n = inner - idx[last];
        if (n > end - i) n = end - i;
        fn(c, p->base + off, stride, n, (uint64_t)i);
        i += n;
        if (i >= end) break;
        off -= idx[last] * stride;
        idx[last] = 0;
        for (int32_t d = last - 1; d >= 0; d--) {
            off += p->strides[d];
            if (++idx[d] < p->sizes[d]) break;
            off -= p->sizes[d] * p->strides[d];
            idx[d] = 0;
        }
    }
}

static void run_rows(const walk_plan *p, int64_t numel, row_fn fn, const rand_ctx *c)
{
#ifdef _OPENMP
    const int64_t max_threads = omp_get_max_threads();
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
static pt_status generator_for(pt_device device, pt_generator *g, pt_generator **out)
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

/* Fills a CPU tensor from g's stream (Note [Philox stream]). */
static void fill_cpu(pt_tensor *t, pt_generator *g, rand_ctx *c, row_fn fn)
{
    const int64_t numel = t->numel;
    const uint64_t seed = pt_generator_initial_seed(g);
    c->k0 = (uint32_t)seed;
    c->k1 = (uint32_t)(seed >> 32);
    c->offset = pt_generator_reserve(g, (uint64_t)numel);
    if (numel == 0) return;
    walk_plan plan;
    plan_make(t, &plan);
    run_rows(&plan, numel, fn, c);
}

/* Everything common to the fills once the op checked its arguments: layout, read-only memory,
 * meta, the generator, and the detour through the CPU for other devices. */
static pt_status fill(const char *op, pt_tensor *t, pt_generator *g, rand_ctx *c, row_fn fn)
{
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported", op);
    if (t->device.type == PT_DEV_META) return PT_OK;
    if (t->storage && !t->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the tensor's memory is read-only", op);
    pt_generator *gen = NULL;
    PT_TRY(generator_for(t->device, g, &gen));
    if (t->device.type == PT_DEV_CPU) {
        fill_cpu(t, gen, c, fn);
        pt_generator_release(gen);
        return PT_OK;
    }
    pt_tensor *tmp = NULL;
    pt_status st = pt_tensor_empty(t->ndim, t->sizes, t->dtype, (pt_device){PT_DEV_CPU, 0}, &tmp);
    if (st == PT_OK) {
        fill_cpu(tmp, gen, c, fn);
        st = pt_tensor_copy_(t, tmp);
        pt_tensor_release(tmp);
    }
    pt_generator_release(gen);
    return st;
}

/* ---------------------------------------------------------------- the ops */
pt_status pt_tensor_uniform_(pt_tensor *t, double from, double to, pt_generator *g)
{
    const row_fn fn = row_for(uniform_rows, t->dtype);
    if (!fn)
        return PT_ERROR(PT_ERR_TYPE, "uniform_ expects a floating point dtype, but got %s",
                        dtype_name(t->dtype));
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
                        dtype_name(t->dtype), max, to, from);
    rand_ctx c = {.a = from, .b = to, .range = to - from};
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
    return fill("uniform_", t, g, &c, fn);
}

pt_status pt_tensor_normal_(pt_tensor *t, double mean, double std, pt_generator *g)
{
    if (!(std >= 0.0))
        return PT_ERROR(PT_ERR_VALUE, "normal expects std >= 0.0, but found std %g", std);
    const row_fn fn = row_for(normal_rows, t->dtype);
    if (!fn)
        return PT_ERROR(PT_ERR_TYPE, "normal_ expects a floating point dtype, but got %s",
                        dtype_name(t->dtype));
    rand_ctx c = {.a = mean, .b = std, .af = (float)mean, .bf = (float)std};
    return fill("normal_", t, g, &c, fn);
}

/* The values random_ and randperm may write to a dtype: [*lo, *hi]. */
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
    const row_fn fn = row_for(random_rows, t->dtype);
    if (!fn)
        return PT_ERROR(PT_ERR_TYPE, "random_ expects an integer, bool or floating dtype, but got %s",
                        dtype_name(t->dtype));
    if (from >= to)
        return PT_ERROR(PT_ERR_VALUE,
                        "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                        (long long)from, (long long)to);
    int64_t lo, hi;
    exact_range(t->dtype, &lo, &hi);
    if (from < lo)
        return PT_ERROR(PT_ERR_VALUE, "random_: from=%lld is out of bounds for %s (%lld to %lld)",
                        (long long)from, dtype_name(t->dtype), (long long)lo, (long long)hi);
    if (to - 1 > hi)
        return PT_ERROR(PT_ERR_VALUE,
                        "random_: to - 1=%lld is out of bounds for %s (%lld to %lld)",
                        (long long)(to - 1), dtype_name(t->dtype), (long long)lo, (long long)hi);
    rand_ctx c = {.ufrom = (uint64_t)from, .urange = (uint64_t)to - (uint64_t)from};
    return fill("random_", t, g, &c, fn);
}

/* Fisher-Yates over perm[0..n) from blocks o, o+1, ... (Note [Philox stream]). */
static void shuffle(int64_t *perm, int64_t n, uint64_t seed, uint64_t o)
{
    const rand_ctx c = {.k0 = (uint32_t)seed, .k1 = (uint32_t)(seed >> 32), .offset = o};
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t s = 0; s + 1 < n; s++) {
        const int64_t i = n - 1 - s;
        uint32_t w[4];
        block(&c, (uint64_t)s, w);
        const uint64_t x = ((uint64_t)w[1] << 32) | w[0];
        const int64_t j = (int64_t)(x % (uint64_t)(i + 1));
        const int64_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
}

static void store_perm(const int64_t *perm, int64_t n, pt_tensor *t)
{
    char *p = pt_tensor_data(t);
    const pt_scalar_to_fn to = pt_dtype_scalar_to(t->dtype);
    const int64_t itemsize = pt_dtype_itemsize(t->dtype);
    for (int64_t i = 0; i < n; i++) {
        const pt_scalar v = {.kind = PT_SCALAR_INT, .i = perm[i]};
        to(&v, p + i * itemsize);
    }
}

/* randperm on the CPU into t (1-D, contiguous, n elements). */
static pt_status randperm_cpu(pt_tensor *t, int64_t n, pt_generator *g)
{
    const uint64_t seed = pt_generator_initial_seed(g);
    const uint64_t o = pt_generator_reserve(g, (uint64_t)n);
    if (n == 0) return PT_OK;
    if (t->dtype == PT_INT64) {
        shuffle(pt_tensor_data(t), n, seed, o);
        return PT_OK;
    }
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    if (!perm)
        return PT_ERROR(PT_ERR_MEMORY, "randperm: out of memory for %lld indices", (long long)n);
    shuffle(perm, n, seed, o);
    store_perm(perm, n, t);
    free(perm);
    return PT_OK;
}

static pt_status randperm_check(int64_t n, int32_t dtype)
{
    if (n < 0) return PT_ERROR(PT_ERR_VALUE, "randperm: n must be non-negative, got %lld", (long long)n);
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    if (dtype == PT_BOOL || !row_for(random_rows, dtype))
        return PT_ERROR(PT_ERR_TYPE, "randperm: expected an integer or floating dtype, but got %s",
                        dtype_name(dtype));
    int64_t lo, hi;
    exact_range(dtype, &lo, &hi);
    if (n > 0 && n - 1 > hi)
        return PT_ERROR(PT_ERR_VALUE,
                        "randperm: n=%lld is too large for %s, which holds integers up to %lld "
                        "exactly",
                        (long long)n, dtype_name(dtype), (long long)hi);
    return PT_OK;
}

pt_status pt_tensor_randperm(int64_t n, int32_t dtype, pt_device device, pt_generator *g,
                             pt_tensor **out)
{
    PT_TRY(randperm_check(n, dtype));
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(1, &n, dtype, device, &t));
    if (t->device.type == PT_DEV_META) {
        *out = t;
        return PT_OK;
    }
    pt_generator *gen = NULL;
    pt_status st = generator_for(t->device, g, &gen);
    if (st != PT_OK) goto fail;
    if (t->device.type == PT_DEV_CPU) {
        st = randperm_cpu(t, n, gen);
    } else {
        pt_tensor *tmp = NULL;
        st = pt_tensor_empty(1, &n, dtype, (pt_device){PT_DEV_CPU, 0}, &tmp);
        if (st == PT_OK) {
            st = randperm_cpu(tmp, n, gen);
            if (st == PT_OK) st = pt_tensor_copy_(t, tmp);
            pt_tensor_release(tmp);
        }
    }
    pt_generator_release(gen);
    if (st != PT_OK) goto fail;
    *out = t;
    return PT_OK;
fail:
    pt_tensor_release(t);
    return st;
}
