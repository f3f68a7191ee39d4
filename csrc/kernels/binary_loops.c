/* binary_loops.c - the inner loops of add, sub and mul, and the driver that feeds them a plan's
 * operands: casts to the compute dtype, alignment, and the split across OpenMP threads.
 *
 * The typed loops take NumPy's (data, byte strides, n) form and exist once per compute type:
 * bool, the integer widths (8 to 64 bits, signed and unsigned alike, in unsigned arithmetic, which
 * wraps as torch's two's-complement results do and is defined in C), float32, float64 and the two
 * complex types. Each has three fast paths that the compiler vectorizes - every operand
 * contiguous, and one input a broadcast scalar (stride 0) beside contiguous ones - and a plain
 * strided loop for the rest.
 *
 * The loops see only operands of their own type at aligned addresses. The driver makes that so:
 * an operand whose dtype is not the compute dtype (mixed-dtype inputs, an out= tensor of another
 * dtype, every float16/bfloat16 operand, whose arithmetic runs in float32) or whose address or
 * stride is not aligned for it is "staged": each row is processed in blocks of STAGE_BLOCK
 * elements, inputs cast into stack buffers before the loop runs and the output cast from one
 * after. An input that is one element broadcast over everything (a 0-d tensor, a wrapped Python
 * number) is converted once, up front, and read with stride 0. Casts follow torch's order: an
 * input is first cast to the common dtype and only then widened to the compute dtype, and a
 * result is rounded to the common dtype before it is cast to the output's, so float16 results are
 * rounded once from float32 and an out= of another dtype sees what torch stores.
 *
 * Large work is split along the slowest dimension of the coalesced shape into one slab per
 * OpenMP thread, each slab run through pt_loop_nd.
 */
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "binary.h"
#include "half.h"

/* Note [aliasing in the loops]
 * In-place and out= calls may hand a loop an input that is the output itself (the same address
 * and strides); the front refuses partial overlaps and copies inputs whose overlap it cannot rule
 * out, so each input is either exactly the output or disjoint from it. `restrict` would be a lie
 * in the first case, so the contiguous loops instead say "no loop-carried dependence"
 * (GCC's ivdep, clang's assume_safety), which holds in both cases: element i is read before
 * element i is written, and no other element is involved. */
#if defined(__clang__)
#define PT_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define PT_IVDEP _Pragma("GCC ivdep")
#else
#define PT_IVDEP
#endif

typedef struct c64 {
    float re, im;
} c64;
typedef struct c128 {
    double re, im;
} c128;

/* One loop: T the element type, EXPR the result from x (self's element), y (other's) and al. */
#define PT_BINARY_LOOP(NAME, T, EXPR)                                                              \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        const T al = *(const T *)ctx;                                                              \
        PT_UNUSED(al);                                                                             \
        const int64_t sz = (int64_t)sizeof(T);                                                     \
        char *o = data[0];                                                                         \
        const char *a = data[1], *b = data[2];                                                     \
        if (s[0] == sz && s[1] == sz && s[2] == sz) {                                              \
            T *ov = (T *)o;                                                                        \
            const T *av = (const T *)a, *bv = (const T *)b;                                        \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T x = av[i], y = bv[i];                                                      \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == sz && s[1] == sz && s[2] == 0) {                                        \
            T *ov = (T *)o;                                                                        \
            const T *av = (const T *)a, y = *(const T *)b;                                         \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T x = av[i];                                                                 \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else if (s[0] == sz && s[1] == 0 && s[2] == sz) {                                        \
            T *ov = (T *)o;                                                                        \
            const T x = *(const T *)a, *bv = (const T *)b;                                         \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                const T y = bv[i];                                                                 \
                ov[i] = EXPR;                                                                      \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const T x = *(const T *)(a + i * s[1]), y = *(const T *)(b + i * s[2]);            \
                *(T *)(o + i * s[0]) = EXPR;                                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* Integers: W is the unsigned type the arithmetic runs in (at least unsigned int, so that the
 * usual promotions never reach a signed int that could overflow). */
#define PT_INT_LOOPS(BITS, T, W)                                                                   \
    PT_BINARY_LOOP(add_u##BITS, T, (T)((W)x + (W)y))                                               \
    PT_BINARY_LOOP(sub_u##BITS, T, (T)((W)x - (W)y))                                               \
    PT_BINARY_LOOP(add_alpha_u##BITS, T, (T)((W)x + (W)al * (W)y))                                 \
    PT_BINARY_LOOP(mul_u##BITS, T, (T)((W)x * (W)y))
PT_INT_LOOPS(8, uint8_t, unsigned)
PT_INT_LOOPS(16, uint16_t, unsigned)
PT_INT_LOOPS(32, uint32_t, uint32_t)
PT_INT_LOOPS(64, uint64_t, uint64_t)

/* Bool: any nonzero byte is true (torch keeps odd bytes from raw memory); results are 0 or 1.
 * a + alpha * b in bool is "a or (alpha and b)"; sub never gets here. */
PT_BINARY_LOOP(add_b1, uint8_t, (uint8_t)((x != 0) | (y != 0)))
PT_BINARY_LOOP(add_alpha_b1, uint8_t, (uint8_t)((x != 0) | ((al != 0) & (y != 0))))
PT_BINARY_LOOP(mul_b1, uint8_t, (uint8_t)((x != 0) & (y != 0)))

/* Note [fused alpha]
 * torch computes self + alpha * other on floating types as one fused multiply-add (its vector
 * code calls fmadd, and its scalar code is compiled with contraction), so a + alpha * b is rounded
 * once here too: fma() is exactly rounded on every machine, with or without the instruction. GCC
 * builds the loop twice, with and without the FMA instruction set, and picks one at load time
 * (an ifunc), since a libm call per element would not vectorize. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PT_FMA_CLONES __attribute__((target_clones("arch=haswell", "default")))
#else
#define PT_FMA_CLONES
#endif
#define PT_FLOAT_LOOPS(SUF, T, FMA)                                                                \
    PT_BINARY_LOOP(add_##SUF, T, x + y)                                                            \
    PT_BINARY_LOOP(sub_##SUF, T, x - y)                                                            \
    PT_FMA_CLONES PT_BINARY_LOOP(add_alpha_##SUF, T, FMA(al, y, x))                                \
    PT_BINARY_LOOP(mul_##SUF, T, x * y)
PT_FLOAT_LOOPS(f4, float, __builtin_fmaf)
PT_FLOAT_LOOPS(f8, double, __builtin_fma)

/* Complex products by the textbook formula, as torch's vectorized CPU code computes them (C's
 * own complex multiply adds an inf/NaN recovery that neither torch nor NumPy's loops do). */
#define PT_CMUL(T, P, Q) ((T){(P).re * (Q).re - (P).im * (Q).im, (P).re * (Q).im + (P).im * (Q).re})
#define PT_COMPLEX_LOOPS(SUF, T)                                                                   \
    PT_BINARY_LOOP(add_##SUF, T, ((T){x.re + y.re, x.im + y.im}))                                  \
    PT_BINARY_LOOP(sub_##SUF, T, ((T){x.re - y.re, x.im - y.im}))                                  \
    PT_BINARY_LOOP(add_alpha_##SUF, T,                                                             \
                   ((T){x.re + PT_CMUL(T, al, y).re, x.im + PT_CMUL(T, al, y).im}))                \
    PT_BINARY_LOOP(mul_##SUF, T, PT_CMUL(T, x, y))
PT_COMPLEX_LOOPS(c4, c64)
PT_COMPLEX_LOOPS(c8, c128)

#define PT_LOOP_ROW(SUF) {add_##SUF, sub_##SUF, add_alpha_##SUF, mul_##SUF}
/* By compute dtype; float16 and bfloat16 compute in float32 and have no row. */
static const pt_loop_fn loops[PT_DTYPE_BUILTIN_COUNT][PT_BINARY_OP_COUNT] = {
    [PT_BOOL] = {add_b1, NULL, add_alpha_b1, mul_b1},
    [PT_UINT8] = PT_LOOP_ROW(u8),
    [PT_INT8] = PT_LOOP_ROW(u8),
    [PT_INT16] = PT_LOOP_ROW(u16),
    [PT_INT32] = PT_LOOP_ROW(u32),
    [PT_INT64] = PT_LOOP_ROW(u64),
    [PT_FLOAT32] = PT_LOOP_ROW(f4),
    [PT_FLOAT64] = PT_LOOP_ROW(f8),
    [PT_COMPLEX64] = PT_LOOP_ROW(c4),
    [PT_COMPLEX128] = PT_LOOP_ROW(c8),
};
/* What the loops' pointer casts need, by compute dtype. */
static const int64_t loop_alignment[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_BOOL] = 1,
    [PT_UINT8] = 1,
    [PT_INT8] = 1,
    [PT_INT16] = _Alignof(uint16_t),
    [PT_INT32] = _Alignof(uint32_t),
    [PT_INT64] = _Alignof(uint64_t),
    [PT_FLOAT32] = _Alignof(float),
    [PT_FLOAT64] = _Alignof(double),
    [PT_COMPLEX64] = _Alignof(c64),
    [PT_COMPLEX128] = _Alignof(c128),
};
_Static_assert(sizeof(c128) <= sizeof(pt_binary_value), "a value holds every compute type");

pt_loop_fn pt_binary_loop(int32_t op, int32_t opmath) { return loops[opmath][op]; }

/* ---------------------------------------------------------------- staging */

/* 256 elements: six buffers of at most 16-byte elements are 24 KiB of stack, within L1 while a
 * block is cast, computed and cast back; long enough that the casts' per-call cost vanishes. */
enum { STAGE_BLOCK = 256 };

/* float16/bfloat16 conversions: Note [half conversions] in csrc/core/half.h. */
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

/* The dtype table's cast, or one of the above. */
static pt_cast_fn cast_fn(int32_t src, int32_t dst)
{
    if (src == PT_FLOAT16 && dst == PT_FLOAT32) return cast_f16_f32;
    if (src == PT_FLOAT32 && dst == PT_FLOAT16) return cast_f32_f16;
    if (src == PT_BFLOAT16 && dst == PT_FLOAT32) return cast_bf16_f32;
    if (src == PT_FLOAT32 && dst == PT_BFLOAT16) return cast_f32_bf16;
    return pt_dtype_cast_fn(src, dst);
}

pt_cast_fn pt_binary_cast_fn(int32_t src, int32_t dst) { return cast_fn(src, dst); }

/* Up to two casts in a row: input: src -> common -> opmath; output: opmath -> common -> dst.
 * Both NULL: the operand is not staged. A lone copy (same dtype) moves a misaligned operand. */
typedef struct chain {
    pt_cast_fn first, second;
} chain;

typedef struct run_ctx {
    pt_loop_fn loop;
    const pt_binary_value *alpha;
    chain chains[3];
    bool staged; /* any chain is set */
    int64_t size_in[3]; /* itemsize of the first cast's output, per operand */
    int64_t opmath_size;
} run_ctx;

/* Applies a chain to m elements; `mid` is scratch for the intermediate dtype. */
static void run_chain(const chain *c, char *dst, int64_t dst_stride, const char *src,
                      int64_t src_stride, int64_t m, char *mid, int64_t mid_size)
{
    if (!c->second) {
        c->first(dst, dst_stride, src, src_stride, m);
        return;
    }
    c->first(mid, mid_size, src, src_stride, m);
    c->second(dst, dst_stride, mid, mid_size, m);
}

static void staged_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const run_ctx *r = ctx;
    _Alignas(16) char buf[3][STAGE_BLOCK * sizeof(pt_binary_value)];
    _Alignas(16) char mid[STAGE_BLOCK * sizeof(pt_binary_value)];
    for (int64_t done = 0; done < n; done += STAGE_BLOCK) {
        int64_t m = n - done < STAGE_BLOCK ? n - done : STAGE_BLOCK;
        char *ptrs[3];
        int64_t st[3];
        for (int k = 0; k < 3; k++) {
            ptrs[k] = data[k] + done * strides[k];
            st[k] = strides[k];
            if (!r->chains[k].first) continue;
            if (k > 0) { /* an input broadcast along the row is cast once */
                int64_t count = strides[k] == 0 ? 1 : m;
                run_chain(&r->chains[k], buf[k], r->opmath_size, ptrs[k], strides[k], count, mid,
                          r->size_in[k]);
                st[k] = strides[k] == 0 ? 0 : r->opmath_size;
            } else {
                st[k] = r->opmath_size;
            }
            ptrs[k] = buf[k];
        }
        r->loop(ptrs, st, m, (void *)r->alpha);
        if (r->chains[0].first)
            run_chain(&r->chains[0], data[0] + done * strides[0], strides[0], buf[0], st[0], m,
                      mid, r->size_in[0]);
    }
}

static bool aligned(const pt_binary_plan *p, int k, int64_t alignment)
{
    if ((uintptr_t)p->data[k] % (uintptr_t)alignment) return false;
    for (int32_t d = 0; d < p->ndim; d++)
        if (p->strides[k * p->ndim + d] % alignment) return false;
    return true;
}

static bool broadcast_scalar(const pt_binary_plan *p, int k)
{
    for (int32_t d = 0; d < p->ndim; d++)
        if (p->strides[k * p->ndim + d] != 0 && p->sizes[d] != 1) return false;
    return true;
}

/* The casts operand k needs (none when it is already what the loop reads). */
static chain chain_for(const pt_binary_plan *p, int k, int64_t *size_in)
{
    int32_t d = p->dtypes[k];
    chain c = {NULL, NULL};
    *size_in = pt_dtype_itemsize(p->common);
    if (k == 0) {
        if (p->opmath != p->common) c.first = cast_fn(p->opmath, p->common);
        if (p->common != d) {
            if (c.first) c.second = cast_fn(p->common, d);
            else c.first = cast_fn(p->common, d);
        }
    } else {
        if (d != p->common) c.first = cast_fn(d, p->common);
        if (p->common != p->opmath) {
            if (c.first) c.second = cast_fn(p->common, p->opmath);
            else c.first = cast_fn(p->common, p->opmath);
        }
    }
    if (!c.first && !aligned(p, k, loop_alignment[p->opmath]))
        c.first = cast_fn(d, d);
    return c;
}

/* ---------------------------------------------------------------- splitting */

typedef struct coalesced {
    int32_t ndim; /* slowest first */
    int64_t sizes[PT_MAX_DIMS];
    int64_t strides[3 * PT_MAX_DIMS];
} coalesced;

/* Merges dims that are one run of memory in every operand (as pt_loop_nd does), so that the
 * slowest remaining dim is the one worth splitting. */
static void coalesce(const pt_binary_plan *p, coalesced *c)
{
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS][3];
    int32_t n = 0; /* innermost first while building */
    for (int32_t d = p->ndim - 1; d >= 0; d--) {
        if (p->sizes[d] == 1) continue;
        bool merge = n > 0;
        for (int k = 0; merge && k < 3; k++)
            merge = p->strides[k * p->ndim + d] == strides[n - 1][k] * sizes[n - 1];
        if (merge) {
            sizes[n - 1] *= p->sizes[d];
            continue;
        }
        sizes[n] = p->sizes[d];
        for (int k = 0; k < 3; k++) strides[n][k] = p->strides[k * p->ndim + d];
        n++;
    }
    c->ndim = n;
    for (int32_t i = 0; i < n; i++) {
        c->sizes[i] = sizes[n - 1 - i];
        for (int k = 0; k < 3; k++) c->strides[k * n + i] = strides[n - 1 - i][k];
    }
}

static void run_slab(const coalesced *c, char *const *data, int64_t begin, int64_t end,
                     pt_loop_fn fn, void *ctx)
{
    char *ptrs[3];
    int64_t sizes[PT_MAX_DIMS];
    memcpy(sizes, c->sizes, sizeof(int64_t) * (size_t)c->ndim);
    sizes[0] = end - begin;
    for (int k = 0; k < 3; k++) ptrs[k] = data[k] + begin * c->strides[k * c->ndim];
    pt_loop_nd(3, ptrs, c->strides, c->ndim, sizes, fn, ctx);
}

static void run_split(const pt_binary_plan *p, char *const *data, pt_loop_fn fn, void *ctx)
{
    coalesced c;
    coalesce(p, &c);
    if (c.ndim == 0) { /* one element */
        static const int64_t zero[3];
        fn((char **)data, zero, 1, ctx);
        return;
    }
#ifdef _OPENMP
    int64_t threads = omp_get_max_threads();
    if (p->numel >= 2 * PT_BINARY_GRAIN && threads > 1 && c.sizes[0] > 1 && !omp_in_parallel()) {
        if (threads > p->numel / PT_BINARY_GRAIN) threads = p->numel / PT_BINARY_GRAIN;
        if (threads > c.sizes[0]) threads = c.sizes[0];
        const int64_t outer = c.sizes[0];
#pragma omp parallel for num_threads((int)threads) schedule(static)
        for (int64_t t = 0; t < threads; t++) {
            /* Slab edges rounded to 16 outer steps: neighbours rarely share a cache line. */
            int64_t begin = outer * t / threads, end = outer * (t + 1) / threads;
            if (outer >= 16 * threads) {
                begin = t == 0 ? 0 : begin / 16 * 16;
                end = t == threads - 1 ? outer : end / 16 * 16;
            }
            if (begin < end) run_slab(&c, data, begin, end, fn, ctx);
        }
        return;
    }
#endif
    run_slab(&c, data, 0, c.sizes[0], fn, ctx);
}

/* ---------------------------------------------------------------- driver */

void pt_binary_run(const pt_binary_plan *plan)
{
    pt_binary_plan p = *plan;
    run_ctx r = {.loop = loops[p.opmath][p.op], .alpha = &plan->alpha,
                 .opmath_size = pt_dtype_itemsize(p.opmath)};
    pt_binary_value scalars[3];
    for (int k = 0; k < 3; k++) {
        r.chains[k] = chain_for(&p, k, &r.size_in[k]);
        if (k == 2 && p.other_direct && broadcast_scalar(&p, k))
            r.chains[k] = (chain){cast_fn(p.dtypes[k], p.opmath), NULL};
        if (k > 0 && r.chains[k].first && broadcast_scalar(&p, k)) {
            /* One element everywhere: convert it once and read it in place. */
            _Alignas(16) char mid[sizeof(pt_binary_value)];
            run_chain(&r.chains[k], (char *)&scalars[k], 0, p.data[k], 0, 1, mid, r.size_in[k]);
            p.data[k] = (char *)&scalars[k];
            r.chains[k] = (chain){NULL, NULL};
        }
        r.staged |= r.chains[k].first != NULL;
    }
    if (r.staged)
        run_split(&p, p.data, staged_loop, &r);
    else
        run_split(&p, p.data, r.loop, (void *)&plan->alpha);
}
