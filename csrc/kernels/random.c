/* random.c - the elementwise random ops: the fills (uniform_, normal_, random_, exponential_,
 * cauchy_, log_normal_, geometric_, bernoulli_ with a number) and bernoulli_ with a tensor of
 * probabilities, which reads one input elementwise.
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
 *   the others (Note [distributions]) start from u in [0, 1) as uniform_ makes it - 24 bits for
 *             outputs below float64, 53 for float64 - or from normal_'s z.
 * randperm and multinomial, which are not one block per element, are in random_dist.c.
 *
 * Note [distributions]
 *   exponential_  -log1p(-u) / lambd (u < 1, so the value is finite; lambd = inf gives 0).
 *   cauchy_       median + sigma * tan(pi * (u - 1/2)).
 *   log_normal_   exp(mean + std * z).
 *   geometric_    ceil(log(v) / log1p(-p)) with v = (53 bits + 1/2) * 2^-53 in (0, 1), so the
 *                 value is at least 1; integer outputs saturate at the dtype's largest value.
 *   bernoulli     u < p with u from 53 bits whatever the dtypes, so p = 0 never and p = 1 always
 *                 gives 1, and a float32 p and its float64 copy draw the same values.
 * These compute in double and round once into the output, through per-dtype load and store
 * functions: a function call per element is small beside the Philox block. normal with tensor
 * mean or std and dropout are built from these fills in csrc/ops/random_ops.c, as torch builds
 * them.
 *
 * Meta tensors are checked like others and then left alone, without advancing the generator.
 * The fills run on other devices by filling on the CPU and copying over (same numbers by
 * construction) until the backend brings its own kernels; the ops that read tensors are registered
 * for the CPU and meta keys only.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "native.h"
#include "philox.h"

/* Below this many elements per thread, waking OpenMP threads (a few microseconds) costs more than
 * the work: one element is a 10-round Philox block plus a conversion, ~5-20 ns. */
enum { GRAIN = 32768 };

typedef double (*load_fn)(const char *p);
typedef void (*store_fn)(char *p, double v);
struct rand_ctx;
typedef double (*draw_fn)(const struct rand_ctx *c, const uint32_t w[4], double x);

typedef struct rand_ctx {
    uint32_t k0, k1;
    uint64_t offset; /* first block of the call */
    double a, b;     /* uniform: from, to; normal: mean, std; the distributions' parameters */
    float af, bf, rangef;
    double range;
    float to_rounded; /* `to` in the output dtype, read back as float (16-bit outputs) */
    uint16_t from_bits;
    uint64_t ufrom, urange; /* random_ */
    /* Note [distributions]: the input (NULL load: the constant x0), the draw, the output's
     * store, whether the output is float64, and the largest value it takes. */
    load_fn load;
    double x0;
    draw_fn draw;
    store_fn store;
    bool f64;
    double max;
} rand_ctx;

/* One row of n elements, element indices first..first+n-1; p[0] is the written operand and
 * p[1] the read one, each with its byte stride. */
typedef void (*row_fn)(const rand_ctx *c, char *const *p, const int64_t *s, int64_t n,
                       uint64_t first);

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

static inline float std_normal_f32(const uint32_t w[4])
{
    const float u1 = 1.0f - u24(w[0]), u2 = u24(w[1]);
    const float r = sqrtf(-2.0f * logf(u1));
    return r * cosf(6.2831853071795865f * u2);
}

static inline double std_normal_f64(const uint32_t w[4])
{
    const double u1 = 1.0 - u53(w[0], w[1]), u2 = u53(w[2], w[3]);
    const double r = sqrt(-2.0 * log(u1));
    return r * cos(6.283185307179586 * u2);
}

static inline float normal_f32(const rand_ctx *c, const uint32_t w[4])
{
    return c->af + c->bf * std_normal_f32(w);
}

static inline double normal_f64(const rand_ctx *c, const uint32_t w[4])
{
    return c->a + c->b * std_normal_f64(w);
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

/* One row of n elements of p[0]; `expr` reads the element's four words from w. A batch may
 * compute a few blocks past the row's end: they are never stored, and the counter is only a
 * number, so nothing is consumed. */
#define ROW(name, ctype, expr)                                                                     \
    static void name(const rand_ctx *c, char *const *p, const int64_t *s, int64_t n,              \
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

/* The row of the ops of Note [distributions]: reads the input (or takes the constant), draws,
 * stores. */
static void dist_row(const rand_ctx *c, char *const *p, const int64_t *s, int64_t n,
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

/* ---------------------------------------------------------------- element loads and stores
 * Stores receive values the output holds: 0/1, or integers the caller clamped, for the integer
 * dtypes (a double out of an integer type's range does not convert). */
#define STORE(tag, ctype)                                                                          \
    static void store_##tag(char *p, double v) { *(ctype *)(void *)p = (ctype)v; }
STORE(u8, uint8_t)
STORE(i8, int8_t)
STORE(i16, int16_t)
STORE(i32, int32_t)
STORE(i64, int64_t)
STORE(f32, float)
STORE(f64, double)
static double load_f32(const char *p) { return *(const float *)(const void *)p; }
static double load_f64(const char *p) { return *(const double *)(const void *)p; }
static void store_bool(char *p, double v) { *(_Bool *)(void *)p = v != 0.0; }
static double load_f16(const char *p) { return pt_half_to_float(*(const uint16_t *)(const void *)p); }
static void store_f16(char *p, double v) { *(uint16_t *)(void *)p = pt_float_to_half((float)v); }
static double load_bf16(const char *p)
{
    return pt_bfloat16_to_float(*(const uint16_t *)(const void *)p);
}
static void store_bf16(char *p, double v)
{
    *(uint16_t *)(void *)p = pt_float_to_bfloat16((float)v);
}

static const load_fn loads[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_FLOAT16] = load_f16, [PT_BFLOAT16] = load_bf16, [PT_FLOAT32] = load_f32,
    [PT_FLOAT64] = load_f64,
};
static const store_fn stores[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_BOOL] = store_bool, [PT_UINT8] = store_u8,     [PT_INT8] = store_i8,
    [PT_INT16] = store_i16, [PT_INT32] = store_i32,    [PT_INT64] = store_i64,
    [PT_FLOAT16] = store_f16, [PT_BFLOAT16] = store_bf16, [PT_FLOAT32] = store_f32,
    [PT_FLOAT64] = store_f64,
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

static bool is_floating(int32_t dtype)
{
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT && float_limits[dtype].digits > 0;
}

/* bool, the integers and the floating dtypes: what the distributions may store to. */
static bool is_real(int32_t dtype)
{
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT && stores[dtype];
}

static const char *dtype_name(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return info ? info->name : "unknown";
}

/* torch's names in messages: "Float", "Long". */
static const char *legacy_name(int32_t dtype)
{
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    return info && info->legacy_name[0] ? info->legacy_name : dtype_name(dtype);
}

static row_fn row_for(const row_fn *table, int32_t dtype)
{
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT ? table[dtype] : NULL;
}

/* ---------------------------------------------------------------- the draws of Note [distributions] */
static inline double unit(const rand_ctx *c, const uint32_t w[4])
{
    return c->f64 ? u53(w[0], w[1]) : (double)u24(w[0]);
}

static inline double std_normal(const rand_ctx *c, const uint32_t w[4])
{
    return c->f64 ? std_normal_f64(w) : (double)std_normal_f32(w);
}

static double draw_exponential(const rand_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(x);
    return -log1p(-unit(c, w)) / c->a;
}

static double draw_cauchy(const rand_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(x);
    return c->a + c->b * tan(3.141592653589793 * (unit(c, w) - 0.5));
}

static double draw_log_normal(const rand_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(x);
    return exp(c->a + c->b * std_normal(c, w));
}

static double draw_geometric(const rand_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(x);
    const double v = ((double)((((uint64_t)w[0] << 32) | w[1]) >> 11) + 0.5) * 0x1p-53;
    const double k = ceil(log(v) / c->b); /* c->b = log1p(-p) < 0 */
    return k < c->max ? k : c->max;
}

/* x: the probability (an element of p, or the constant x0). */
static double draw_bernoulli(const rand_ctx *c, const uint32_t w[4], double x)
{
    PT_UNUSED(c);
    return u53(w[0], w[1]) < x ? 1.0 : 0.0;
}

/* ---------------------------------------------------------------- walking strided tensors */
/* The operands over the written tensor's shape (inputs broadcast to it with zero strides), size-1
 * dims dropped and row-major-adjacent dims merged where every operand allows it: the row-major
 * element order is kept, and contiguous operands make one row. */
enum { MAX_OPERANDS = 2 };
typedef struct walk_plan {
    int32_t nops, ndim;
    char *base[MAX_OPERANDS];
    int64_t sizes[PT_MAX_DIMS];
    int64_t strides[MAX_OPERANDS][PT_MAX_DIMS]; /* bytes */
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
static void walk_range(const walk_plan *p, int64_t begin, int64_t end, row_fn fn,
                       const rand_ctx *c)
{
    const int32_t last = p->ndim - 1, nops = p->nops;
    int64_t idx[PT_MAX_DIMS], off[MAX_OPERANDS] = {0, 0}, rem = begin;
    for (int32_t d = last; d >= 0; d--) {
        idx[d] = rem % p->sizes[d];
        rem /= p->sizes[d];
        for (int32_t k = 0; k < nops; k++) off[k] += idx[d] * p->strides[k][d];
    }
    const int64_t inner = p->sizes[last];
    const int64_t inner_strides[MAX_OPERANDS] = {p->strides[0][last], p->strides[1][last]};
    for (int64_t i = begin; i < end;) {
        int64_t n = inner - idx[last];
        if (n > end - i) n = end - i;
        char *ptrs[MAX_OPERANDS] = {NULL, NULL};
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

/* Runs fn over ops[0]'s elements (CPU tensors; ops[1..] read) from g's stream (Note [Philox
 * stream]). */
static void run_cpu(int32_t nops, const pt_tensor *const *ops, pt_generator *g, rand_ctx *c,
                    row_fn fn)
{
    const int64_t numel = ops[0]->numel;
    const uint64_t seed = pt_generator_initial_seed(g);
    c->k0 = (uint32_t)seed;
    c->k1 = (uint32_t)(seed >> 32);
    c->offset = pt_generator_reserve(g, (uint64_t)numel);
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
static pt_status check_written(const char *op, const pt_tensor *t)
{
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: only strided tensors are supported", op);
    if (t->device.type != PT_DEV_META && t->storage && !t->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the tensor's memory is read-only", op);
    return check_internal_overlap(t);
}

/* Everything common to the fills once the op checked its arguments: layout, read-only memory,
 * meta, the generator, and the detour through the CPU for other devices. */
static pt_status fill(const char *op, pt_tensor *t, pt_generator *g, rand_ctx *c, row_fn fn)
{
    PT_TRY(check_written(op, t));
    if (t->device.type == PT_DEV_META) return PT_OK;
    pt_generator *gen = NULL;
    PT_TRY(generator_for(t->device, g, &gen));
    if (t->device.type == PT_DEV_CPU) {
        run_cpu(1, (const pt_tensor *[]){t}, gen, c, fn);
        pt_generator_release(gen);
        return PT_OK;
    }
    pt_tensor *tmp = NULL;
    pt_status st = pt_tensor_empty(t->ndim, t->sizes, t->dtype, (pt_device){PT_DEV_CPU, 0}, &tmp);
    if (st == PT_OK) {
        run_cpu(1, (const pt_tensor *[]){tmp}, gen, c, fn);
        st = pt_tensor_copy_(t, tmp);
        pt_tensor_release(tmp);
    }
    pt_generator_release(gen);
    return st;
}

/* ---------------------------------------------------------------- uniform_, normal_, random_ */
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

/* ---------------------------------------------------------------- the other fills */
/* A fill through dist_row into self; returns a new reference to self. */
static pt_status dist_fill(const char *op, pt_tensor *self, pt_generator *g, rand_ctx *c,
                           pt_tensor **out)
{
    c->store = stores[self->dtype];
    c->f64 = self->dtype == PT_FLOAT64;
    PT_TRY(fill(op, self, g, c, dist_row));
    return pt_native_self(self, out);
}

/* torch's check for the continuous distributions: a floating self. */
static pt_status continuous_dtype(const char *dist, const pt_tensor *self)
{
    if (!is_floating(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s distribution is a continuous probability distribution. dtype must be a "
                        "floating point but you specified %s",
                        dist, legacy_name(self->dtype));
    return PT_OK;
}

pt_status pt_kernel_exponential_(pt_tensor *self, double lambd, pt_generator *generator,
                                 pt_tensor **out)
{
    PT_TRY(continuous_dtype("Exponential", self));
    if (!(lambd > 0.0))
        return PT_ERROR(PT_ERR_RUNTIME, "exponential_ expects lambda > 0.0, but found lambda=%g",
                        lambd);
    rand_ctx c = {.a = lambd, .draw = draw_exponential};
    return dist_fill("exponential_", self, generator, &c, out);
}

pt_status pt_kernel_cauchy_(pt_tensor *self, double median, double sigma,
                            pt_generator *generator, pt_tensor **out)
{
    PT_TRY(continuous_dtype("Cauchy", self));
    if (!(sigma > 0.0))
        return PT_ERROR(PT_ERR_RUNTIME, "cauchy_ expects sigma > 0.0, but found sigma=%g", sigma);
    rand_ctx c = {.a = median, .b = sigma, .draw = draw_cauchy};
    return dist_fill("cauchy_", self, generator, &c, out);
}

pt_status pt_kernel_log_normal_(pt_tensor *self, double mean, double std, pt_generator *generator,
                                pt_tensor **out)
{
    if (!is_floating(self->dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"log_normal_cpu\" not implemented for '%s'",
                        legacy_name(self->dtype));
    if (!(std > 0.0))
        return PT_ERROR(PT_ERR_RUNTIME, "log_normal_ expects std > 0.0, but found std=%g", std);
    rand_ctx c = {.a = mean, .b = std, .draw = draw_log_normal};
    return dist_fill("log_normal_", self, generator, &c, out);
}

pt_status pt_kernel_geometric_(pt_tensor *self, double p, pt_generator *generator, pt_tensor **out)
{
    if (!is_real(self->dtype) || self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"geometric_cpu\" not implemented for '%s'",
                        legacy_name(self->dtype));
    if (!(p > 0.0 && p < 1.0))
        return PT_ERROR(PT_ERR_RUNTIME, "geometric_ expects p to be in (0, 1), but got p=%g", p);
    const pt_dtype_info *info = pt_dtype_info_of(self->dtype);
    rand_ctx c = {.b = log1p(-p), .draw = draw_geometric};
    c.max = is_floating(self->dtype) ? INFINITY : (double)info->imax;
    if (self->dtype == PT_INT64) c.max = 0x1p63 - 1024.0; /* the largest double below 2^63 */
    return dist_fill("geometric_", self, generator, &c, out);
}

/* bernoulli_'s and dropout's probability check. */
static pt_status check_p(double p)
{
    if (!(p >= 0.0 && p <= 1.0))
        return PT_ERROR(PT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    return PT_OK;
}

static pt_status bernoulli_dtype(const char *what, int32_t dtype)
{
    if (!is_real(dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", what,
                        legacy_name(dtype));
    return PT_OK;
}

pt_status pt_kernel_bernoulli__float(pt_tensor *self, double p, pt_generator *generator,
                                     pt_tensor **out)
{
    PT_TRY(bernoulli_dtype("bernoulli_scalar_cpu_", self->dtype));
    PT_TRY(check_p(p));
    rand_ctx c = {.x0 = p, .draw = draw_bernoulli};
    return dist_fill("bernoulli_", self, generator, &c, out);
}

/* ---------------------------------------------------------------- ops that read tensors */
static pt_status check_input(const char *op, const char *arg, const pt_tensor *t)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor, got NULL", op, arg);
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: %s must be a strided tensor", op, arg);
    if (t->device.type != PT_DEV_CPU && t->device.type != PT_DEV_META)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED,
                        "%s: %s is a %s tensor; this kernel computes on the CPU and meta devices "
                        "only", op, arg, pt_device_type_name(t->device.type));
    return PT_OK;
}

/* Note [reading what is written]
 * An element reads its inputs before its own store, so an input that is the written tensor
 * itself (same view) is safe; an input that shares the written tensor's memory any other way is
 * copied first, where torch would refuse the partial overlap or race. */
static bool same_view(const pt_tensor *x, const pt_tensor *y)
{
    return x->storage == y->storage && x->offset == y->offset && x->ndim == y->ndim &&
           x->dtype == y->dtype &&
           (x->ndim == 0 || (!memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->ndim) &&
                             !memcmp(x->strides, y->strides, sizeof(int64_t) * (size_t)x->ndim)));
}

/* in expanded to out's shape, as a new reference; a copy where Note [reading what is written]
 * asks for one. */
static pt_status operand(const pt_tensor *out, const pt_tensor *in, pt_tensor **ret)
{
    pt_tensor *src = (pt_tensor *)in;
    const bool shared = in->storage == out->storage ||
                        (in->storage->data && in->storage->data == out->storage->data);
    if (shared && in->numel > 0 && !same_view(in, out))
        PT_TRY(pt_tensor_clone(in, PT_MEMORY_FORMAT_CONTIGUOUS, &src));
    else
        pt_tensor_retain(src);
    const pt_status st = pt_tensor_expand(src, out->ndim, out->sizes, ret);
    pt_tensor_release(src);
    return st;
}

/* torch's check of a probability tensor, made before anything is drawn (torch checks as it
 * draws, leaving the output partly written). */
static pt_status check_p_tensor(const pt_tensor *p)
{
    if (p->numel == 0) return PT_OK;
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_contiguous(p, &c));
    const char *data = pt_tensor_data(c);
    const load_fn load = loads[p->dtype];
    const int64_t itemsize = pt_dtype_itemsize(p->dtype);
    bool ok = true;
    for (int64_t i = 0; i < c->numel && ok; i++) {
        const double v = load(data + i * itemsize);
        ok = v >= 0.0 && v <= 1.0;
    }
    pt_tensor_release(c);
    if (!ok)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1 to be true, but got "
                        "false. (bernoulli_: an element of p is outside [0, 1])");
    return PT_OK;
}

/* bernoulli_(p) on the CPU: p's elements broadcast to self's shape, one block per element of
 * self as the fills draw them (Note [Philox stream]). */
static pt_status bernoulli_tensor_cpu(pt_tensor *self, const pt_tensor *p, pt_generator *g)
{
    PT_TRY(check_p_tensor(p));
    pt_generator *gen = NULL;
    PT_TRY(generator_for(self->device, g, &gen));
    pt_tensor *in = NULL;
    const pt_status st = operand(self, p, &in);
    if (st == PT_OK) {
        rand_ctx c = {.draw = draw_bernoulli, .load = loads[p->dtype],
                      .store = stores[self->dtype]};
        run_cpu(MAX_OPERANDS, (const pt_tensor *[]){self, in}, gen, &c, dist_row);
    }
    pt_tensor_release(in);
    pt_generator_release(gen);
    return st;
}

pt_status pt_kernel_bernoulli__Tensor(pt_tensor *self, const pt_tensor *p, pt_generator *generator,
                                      pt_tensor **out)
{
    PT_TRY(check_input("bernoulli_", "self", self));
    PT_TRY(check_input("bernoulli_", "p", p));
    PT_TRY(check_written("bernoulli_", self));
    if (p->device.type != self->device.type)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor on device %s is not on the expected device %s!",
                        pt_device_type_name(p->device.type),
                        pt_device_type_name(self->device.type));
    PT_TRY(bernoulli_dtype("bernoulli_tensor_cpu_self_", self->dtype));
    if (!is_floating(p->dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"bernoulli_tensor_cpu_p_\" not implemented for "
                        "'%s'", legacy_name(p->dtype));
    pt_tensor *view = NULL; /* torch's expand_inplace check, with its message */
    PT_TRY(pt_tensor_expand(p, self->ndim, self->sizes, &view));
    pt_tensor_release(view);
    if (self->device.type == PT_DEV_CPU) PT_TRY(bernoulli_tensor_cpu(self, p, generator));
    return pt_native_self(self, out);
}
