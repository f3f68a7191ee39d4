/* copy.c - copy_, fill_, clone, contiguous, to and item: moving elements between tensors, with a
 * dtype cast, broadcasting and device transfer.
 *
 * On the CPU a copy is one pt_loop_nd over (dst, src) whose inner loop is the cast function of
 * the dtype pair (pt_dtype_cast_fn; a byte copy for equal dtypes), with src's strides set to 0 on
 * the dimensions it is broadcast over. Two shortcuts come first: equal dtypes with equal dense
 * layouts are one memcpy, and a copy onto the very same view does nothing. When the two operands'
 * bytes overlap in any other way, src is first copied to a fresh contiguous tensor, so no element
 * is read after it was overwritten. Large copies and fills are split across the CPU threads
 * (pt_parallel_for, above PT_GRAIN elements): one thread does not reach the memory bandwidth.
 *
 * Between devices, or on a device whose kernels are not here, the copy is staged through the CPU
 * with the copy-bytes table only: src's byte extent (the span between its lowest and highest
 * element) comes over in one transfer and is viewed with its own strides, the CPU kernel does the
 * cast and broadcast, and dst's extent goes back in one transfer (read first when dst has gaps, so
 * the bytes between its elements survive). Meta tensors have no bytes: copies into them only check
 * shapes.
 */
#include <string.h>

#include "internal.h"
#include "iter.h"
#include "pt_ops.h"


static const pt_device cpu_device = {PT_DEV_CPU, 0};

static pt_status check_strided(const pt_tensor *t, const char *op, const char *arg)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor, got NULL", op, arg);
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: %s must be a strided tensor", op, arg);
    return PT_OK;
}

static pt_status check_writable(const pt_tensor *t, const char *op)
{
    if (!t->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the tensor's storage is read-only", op);
    return PT_OK;
}

static bool same_device(pt_device a, pt_device b) { return a.type == b.type && a.index == b.index; }

/* Lowest and highest element offsets (relative to the tensor's first element) its strides reach. */
static void extent(int32_t ndim, const int64_t *sizes, const int64_t *strides, int64_t *lo,
                   int64_t *hi)
{
    *lo = *hi = 0;
    for (int32_t d = 0; d < ndim; d++) {
        int64_t span = (sizes[d] - 1) * strides[d];
        if (span < 0) *lo += span; else *hi += span;
    }
}

/* torch's has_internal_overlap "YES" case: a broadcast (stride 0) dim of size > 1 in a tensor
 * that has elements. */
static bool has_internal_overlap(const pt_tensor *t)
{
    if (t->numel == 0) return false;
    for (int32_t d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] == 0) return true;
    return false;
}

/* Strides (in elements) that read src broadcast to dst's shape, with torch's messages. */
static pt_status broadcast_src(const pt_tensor *dst, const pt_tensor *src, int64_t *strides)
{
    int32_t nd = dst->ndim > src->ndim ? dst->ndim : src->ndim;
    int64_t shape[PT_MAX_DIMS];
    bool matches = nd == dst->ndim;
    for (int32_t i = nd - 1, a = dst->ndim - 1, b = src->ndim - 1; i >= 0; i--, a--, b--) {
        int64_t sa = a >= 0 ? dst->sizes[a] : 1, sb = b >= 0 ? src->sizes[b] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d",
                            (long long)sa, (long long)sb, (int)i);
        shape[i] = sa == 1 ? sb : sa;
        if (a < 0 || shape[i] != sa) matches = false;
    }
    if (!matches) {
        char out[256], want[256];
        return PT_ERROR(PT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        pt_format_ints(out, sizeof out, dst->ndim, dst->sizes),
                        pt_format_ints(want, sizeof want, nd, shape));
    }
    for (int32_t a = dst->ndim - 1, b = src->ndim - 1; a >= 0; a--, b--)
        strides[a] = (b >= 0 && src->sizes[b] == dst->sizes[a]) ? src->strides[b] : 0;
    return PT_OK;
}

/* ---------------------------------------------------------------- the CPU kernel */

static pt_status copy_impl(pt_tensor *dst, const pt_tensor *src, bool refuse_dst_overlap);

typedef struct copy_ctx {
    pt_cast_fn cast; /* NULL: opaque dtype, copy itemsize bytes */
    int64_t itemsize;
} copy_ctx;

#define PT_FILL_RUN(T)                                                                             \
    {                                                                                              \
        T x;                                                                                       \
        memcpy(&x, v, sizeof x);                                                                   \
        for (int64_t i = 0; i < n; i++) memcpy(p + i * (int64_t)sizeof x, &x, sizeof x);           \
        return;                                                                                    \
    }

/* n contiguous elements of itemsize bytes set to the one at v: fixed-size stores, which the
 * compiler turns into vector stores of the value broadcast. */
static void fill_run(char *p, const unsigned char *v, int64_t itemsize, int64_t n)
{
    switch (itemsize) {
    case 1: memset(p, v[0], (size_t)n); return;
    case 2: PT_FILL_RUN(uint16_t)
    case 4: PT_FILL_RUN(uint32_t)
    case 8: PT_FILL_RUN(uint64_t)
    default:
        for (int64_t i = 0; i < n; i++) memcpy(p + i * itemsize, v, (size_t)itemsize);
    }
}

static void copy_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const copy_ctx *c = ctx;
    if (strides[1] == 0 && strides[0] == c->itemsize && n > 1) {
        /* A row of an expanded source (a gradient broadcast back over the dims a reduction
         * removed): one element converted, then stored n times. */
        _Alignas(16) unsigned char value[16];
        if (c->cast) c->cast((char *)value, c->itemsize, data[1], 0, 1);
        else memcpy(value, data[1], (size_t)c->itemsize);
        fill_run(data[0], value, c->itemsize, n);
        return;
    }
    if (c->cast) {
        c->cast(data[0], strides[0], data[1], strides[1], n);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        memcpy(data[0] + i * strides[0], data[1] + i * strides[1], (size_t)c->itemsize);
}

/* ---------------------------------------------------------------- splitting across threads */

/* Byte copies from this size up are split: PT_GRAIN float32 elements, the iterator's grain. */
#define COPY_GRAIN_BYTES ((int64_t)PT_GRAIN * 4)

typedef struct bytes_ctx {
    char *dst;
    const char *src;
} bytes_ctx;

static void copy_bytes_chunk(int64_t begin, int64_t end, void *arg)
{
    const bytes_ctx *c = arg;
    memcpy(c->dst + begin, c->src + begin, (size_t)(end - begin));
}

static void parallel_memcpy(char *dst, const char *src, int64_t nbytes)
{
    bytes_ctx c = {dst, src};
    pt_parallel_for(nbytes, COPY_GRAIN_BYTES, copy_bytes_chunk, &c);
}

/* pt_loop_nd over sub-ranges of the largest dimension, one per thread. */
typedef struct split_ctx {
    int32_t ntensors, ndim, dim;
    char **data;
    const int64_t *strides, *sizes;
    pt_loop_fn loop;
    void *ctx;
} split_ctx;

static void split_chunk(int64_t begin, int64_t end, void *arg)
{
    const split_ctx *c = arg;
    int64_t sizes[PT_MAX_DIMS];
    char *data[PT_LOOP_MAX_OPERANDS];
    memcpy(sizes, c->sizes, (size_t)c->ndim * sizeof *sizes);
    sizes[c->dim] = end - begin;
    for (int32_t k = 0; k < c->ntensors; k++)
        data[k] = c->data[k] + begin * c->strides[k * c->ndim + c->dim];
    pt_loop_nd(c->ntensors, data, c->strides, c->ndim, sizes, c->loop, c->ctx);
}

static void parallel_loop_nd(int32_t ntensors, char **data, const int64_t *strides, int32_t ndim,
                             const int64_t *sizes, int64_t numel, pt_loop_fn loop, void *ctx)
{
    int32_t dim = 0;
    for (int32_t i = 1; i < ndim; i++)
        if (sizes[i] > sizes[dim]) dim = i;
    if (ndim == 0 || numel < 2 * PT_GRAIN || sizes[dim] < 2) {
        pt_loop_nd(ntensors, data, strides, ndim, sizes, loop, ctx);
        return;
    }
    const int64_t inner = numel / sizes[dim];
    split_ctx c = {ntensors, ndim, dim, data, strides, sizes, loop, ctx};
    pt_parallel_for(sizes[dim], (PT_GRAIN + inner - 1) / inner, split_chunk, &c);
}

/* ---------------------------------------------------------------- transposing copies */

/* Note [blocked transposing copy]
 * A copy whose destination runs contiguously along one dimension and whose source runs
 * contiguously along another (w.t().contiguous(), an NCHW -> NHWC permute) walks the source
 * with a whole row's stride between neighbouring elements when done in the destination's order:
 * every read touches a new cache line, used again only after the walk has left it. 1024 x 1024
 * float32 took 2983 us that way against torch's 612. This copy goes tile by tile instead: TILE_I
 * elements along the source's unit dimension by tile_j along the destination's, so the lines read
 * and written stay in L1 while the tile is done. The tile's width is measured (one core, float32;
 * us for w.t().contiguous() of 1024^2, 256x1024, 1024x256, 64x4096, 4096x64, 512^2, then an
 * NCHW -> NHWC and an NHWC -> NCHW permute of 32x64x56x56; torch: 612 103 110 112 118 98 4011
 * 5102): 16 gave 510 126 79 132 76 80 5474 3665; 64 gave 1772 435 120 429 81 242 3206 3881; 8
 * gave 438 94 114 92 123 93 6888 3956. A source stride that is a multiple of 4 KiB puts every
 * line of a tile into one set of the cache, whose ways a tile wider than 8 overflows: those take
 * 8; destination rows of at most WHOLE_ROW_J elements (the channels of an NHWC result) are done
 * whole, each written at one go; the rest take 16. The other dimensions are an outer loop; rows
 * of tiles are split across the threads. Below TRANSPOSE_MIN elements the plain loop costs no
 * more. */
enum { TILE_I = 64, TILE_J = 16, TILE_J_ALIASED = 8, WHOLE_ROW_J = 64, TRANSPOSE_MIN = 4096 };

typedef struct transpose_ctx {
    char *dst;
    const char *src;
    int64_t itemsize;
    int64_t n_src, n_dst;   /* the sizes of the source's and the destination's unit dimension */
    int64_t dst_step;       /* destination stride along the source's unit dimension (elements) */
    int64_t src_step;       /* source stride along the destination's unit dimension (elements) */
    int32_t nouter;
    int64_t outer_sizes[PT_MAX_DIMS], outer_dst[PT_MAX_DIMS], outer_src[PT_MAX_DIMS]; /* bytes */
    int64_t tiles;          /* tiles along the source's unit dimension, per outer index */
    int64_t tile_j;         /* a tile's extent along the destination's unit dimension */
} transpose_ctx;

#define TRANSPOSE_TILE(T)                                                                          \
    static void transpose_tile_##T(char *dv, const char *sv, int64_t i0, int64_t i1,              \
                                   int64_t j0, int64_t j1, int64_t dst_step, int64_t src_step)    \
    {                                                                                              \
        T *d = (T *)dv;                                                                            \
        const T *s = (const T *)sv;                                                                \
        for (int64_t i = i0; i < i1; i++)                                                          \
            for (int64_t j = j0; j < j1; j++) d[i * dst_step + j] = s[i + j * src_step];           \
    }
TRANSPOSE_TILE(uint8_t)
TRANSPOSE_TILE(uint16_t)
TRANSPOSE_TILE(uint32_t)
TRANSPOSE_TILE(uint64_t)

static void transpose_chunk(int64_t begin, int64_t end, void *arg)
{
    const transpose_ctx *c = arg;
    void (*tile)(char *, const char *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t) =
        c->itemsize == 1 ? transpose_tile_uint8_t :
        c->itemsize == 2 ? transpose_tile_uint16_t :
        c->itemsize == 4 ? transpose_tile_uint32_t : transpose_tile_uint64_t;
    for (int64_t u = begin; u < end; u++) {
        int64_t outer = u / c->tiles, i0 = (u % c->tiles) * TILE_I;
        int64_t i1 = i0 + TILE_I < c->n_src ? i0 + TILE_I : c->n_src;
        char *d = c->dst;
        const char *s = c->src;
        for (int32_t k = c->nouter - 1; k >= 0; k--) {
            int64_t idx = outer % c->outer_sizes[k];
            outer /= c->outer_sizes[k];
            d += idx * c->outer_dst[k];
            s += idx * c->outer_src[k];
        }
        for (int64_t j0 = 0; j0 < c->n_dst; j0 += c->tile_j) {
            int64_t j1 = j0 + c->tile_j < c->n_dst ? j0 + c->tile_j : c->n_dst;
            tile(d, s, i0, i1, j0, j1, c->dst_step, c->src_step);
        }
    }
}

/* The copy as tiles of a transpose, when its layouts are such (Note [blocked transposing copy]);
 * false leaves it to the general loop. Equal dtypes, no overlap (the caller checked). */
static bool transposing_copy(pt_tensor *dst, const char *src, const int64_t *src_strides)
{
    int32_t nd = dst->ndim;
    int64_t size = pt_dtype_itemsize(dst->dtype);
    if (dst->numel < TRANSPOSE_MIN || nd < 2 || (size != 1 && size != 2 && size != 4 && size != 8))
        return false;
    int32_t dd = -1, sd = -1;
    for (int32_t i = 0; i < nd; i++) {
        if (dst->sizes[i] < 2) continue;
        if (dst->strides[i] == 1 && dd < 0) dd = i;
        if (src_strides[i] == 1 && sd < 0) sd = i;
    }
    if (dd < 0 || sd < 0 || dd == sd || dst->sizes[dd] < 8 || dst->sizes[sd] < 8)
        return false;
    transpose_ctx c;
    c.itemsize = size;
    c.dst = pt_tensor_data(dst);
    c.src = src;
    c.n_src = dst->sizes[sd];
    c.n_dst = dst->sizes[dd];
    c.dst_step = dst->strides[sd];
    c.src_step = src_strides[dd];
    c.nouter = 0;
    int64_t outer = 1;
    for (int32_t i = 0; i < nd; i++) {
        if (i == dd || i == sd || dst->sizes[i] == 1) continue;
        c.outer_sizes[c.nouter] = dst->sizes[i];
        c.outer_dst[c.nouter] = dst->strides[i] * size;
        c.outer_src[c.nouter] = src_strides[i] * size;
        c.nouter++;
        outer *= dst->sizes[i];
    }
    c.tiles = (c.n_src + TILE_I - 1) / TILE_I;
    bool aliased = (c.src_step * size) % 4096 == 0;
    c.tile_j = aliased ? TILE_J_ALIASED : c.n_dst <= WHOLE_ROW_J ? c.n_dst : TILE_J;
    /* a unit is one row of tiles: TILE_I x n_dst elements */
    int64_t per_unit = TILE_I * c.n_dst, grain = (PT_GRAIN + per_unit - 1) / per_unit;
    pt_parallel_for(outer * c.tiles, grain, transpose_chunk, &c);
    return true;
}

static pt_status copy_cpu(pt_tensor *dst, const pt_tensor *src, const int64_t *src_strides)
{
    int32_t nd = dst->ndim;
    int64_t dsz = pt_dtype_itemsize(dst->dtype), ssz = pt_dtype_itemsize(src->dtype);
    char *d = pt_tensor_data(dst), *s = pt_tensor_data(src);
    bool same_layout = dst->dtype == src->dtype;
    for (int32_t i = 0; same_layout && i < nd; i++)
        same_layout = dst->strides[i] == src_strides[i] || dst->sizes[i] == 1;

    int64_t dlo, dhi, slo, shi;
    extent(nd, dst->sizes, dst->strides, &dlo, &dhi);
    extent(nd, dst->sizes, src_strides, &slo, &shi);
    /* byte ranges [d0, d1) and [s0, s1), in unsigned arithmetic where negative offsets wrap */
    uintptr_t d0 = (uintptr_t)d + (uintptr_t)(dlo * dsz);
    uintptr_t d1 = (uintptr_t)d + (uintptr_t)((dhi + 1) * dsz);
    uintptr_t s0 = (uintptr_t)s + (uintptr_t)(slo * ssz);
    uintptr_t s1 = (uintptr_t)s + (uintptr_t)((shi + 1) * ssz);
    if (d0 < s1 && s0 < d1) {
        if (same_layout && d == s) return PT_OK; /* every element onto itself */
        pt_tensor *tmp;
        PT_TRY(pt_tensor_empty(src->ndim, src->sizes, src->dtype, cpu_device, &tmp));
        pt_status st = copy_impl(tmp, src, false);
        if (st == PT_OK) st = copy_impl(dst, tmp, false);
        pt_tensor_release(tmp);
        return st;
    }
    if (same_layout && dlo == 0 &&
        pt_strides_non_overlapping_and_dense(nd, dst->sizes, dst->strides)) {
        parallel_memcpy(d, s, dst->numel * dsz);
        return PT_OK;
    }
    if (dst->dtype == src->dtype && transposing_copy(dst, s, src_strides)) return PT_OK;
    int64_t byte_strides[2 * PT_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) {
        byte_strides[i] = dst->strides[i] * dsz;
        byte_strides[nd + i] = src_strides[i] * ssz;
    }
    copy_ctx ctx = {pt_dtype_cast_fn(src->dtype, dst->dtype), dsz};
    char *data[2] = {d, s};
    parallel_loop_nd(2, data, byte_strides, nd, dst->sizes, dst->numel, copy_loop, &ctx);
    return PT_OK;
}

/* ---------------------------------------------------------------- staging through the CPU */

/* A CPU copy of t's byte extent, viewed with t's own strides. */
typedef struct staged {
    pt_tensor *view; /* CPU tensor over the copy */
    char *device_base; /* where the extent starts on t's device */
    char *cpu_base;    /* where the copy starts */
    int64_t nbytes;
} staged;

/* With `read` false the copy is left uninitialized: the caller overwrites every byte. */
static pt_status stage_to_cpu(const pt_tensor *t, bool read, staged *out)
{
    int64_t lo, hi, isz = pt_dtype_itemsize(t->dtype);
    extent(t->ndim, t->sizes, t->strides, &lo, &hi);
    int64_t elems = hi - lo + 1;
    pt_tensor *buf;
    PT_TRY(pt_tensor_empty(1, &elems, t->dtype, cpu_device, &buf));
    out->device_base = (char *)pt_tensor_data(t) + lo * isz;
    out->cpu_base = pt_tensor_data(buf);
    out->nbytes = elems * isz;
    pt_status st = PT_OK;
    if (read)
        st = pt_copy_bytes(out->nbytes, out->device_base, t->device, out->cpu_base, cpu_device, 0);
    if (st == PT_OK)
        st = pt_tensor_from_storage(buf->storage, t->dtype, t->ndim, t->sizes, t->strides, -lo,
                                    &out->view);
    pt_tensor_release(buf);
    return st;
}

static pt_status copy_staged(pt_tensor *dst, const pt_tensor *src)
{
    staged in = {0}, back = {0};
    if (src->device.type == PT_DEV_CPU) {
        pt_tensor_retain((pt_tensor *)src);
        in.view = (pt_tensor *)src;
    } else {
        PT_TRY(stage_to_cpu(src, true, &in));
    }
    pt_status st;
    if (dst->device.type == PT_DEV_CPU) {
        st = copy_impl(dst, in.view, false);
    } else {
        bool gaps = !pt_strides_non_overlapping_and_dense(dst->ndim, dst->sizes, dst->strides);
        st = stage_to_cpu(dst, gaps, &back);
        if (st == PT_OK) st = copy_impl(back.view, in.view, false);
        if (st == PT_OK)
            st = pt_copy_bytes(back.nbytes, back.cpu_base, cpu_device, back.device_base,
                               dst->device, 0);
        if (back.view) pt_tensor_release(back.view);
    }
    pt_tensor_release(in.view);
    return st;
}

static pt_status copy_between(pt_tensor *dst, const pt_tensor *src, const int64_t *src_strides)
{
    bool plain = dst->dtype == src->dtype && dst->ndim == src->ndim &&
                 pt_tensor_is_contiguous(dst, PT_MEMORY_FORMAT_CONTIGUOUS) &&
                 pt_tensor_is_contiguous(src, PT_MEMORY_FORMAT_CONTIGUOUS);
    for (int32_t i = 0; plain && i < dst->ndim; i++)
        plain = src_strides[i] == src->strides[i] && src->sizes[i] == dst->sizes[i];
    /* Two views of one device buffer may overlap, and device memcpy does not allow that. */
    if (plain && same_device(dst->device, src->device)) plain = dst->storage != src->storage;
    if (plain)
        return pt_copy_bytes(dst->numel * pt_dtype_itemsize(dst->dtype), pt_tensor_data(src),
                             src->device, pt_tensor_data(dst), dst->device, 0);
    return copy_staged(dst, src);
}

/* ---------------------------------------------------------------- copy_ */

/* The public copy_ refuses destinations whose elements share memory, as torch does; the staging
 * paths (and fill_ on other devices) copy into such views on purpose. */
static pt_status copy_impl(pt_tensor *dst, const pt_tensor *src, bool refuse_dst_overlap)
{
    PT_TRY(check_strided(dst, "copy_", "self"));
    PT_TRY(check_strided(src, "copy_", "src"));
    int64_t src_strides[PT_MAX_DIMS];
    PT_TRY(broadcast_src(dst, src, src_strides));
    PT_TRY(check_writable(dst, "copy_"));
    if (refuse_dst_overlap && has_internal_overlap(dst))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "unsupported operation: more than one element of the written-to tensor "
                        "refers to a single memory location. Please clone() the tensor before "
                        "performing the operation.");
    if (dst->dtype != src->dtype &&
        (dst->dtype >= PT_DTYPE_BUILTIN_COUNT || src->dtype >= PT_DTYPE_BUILTIN_COUNT))
        return PT_ERROR(PT_ERR_TYPE, "copy_: cannot convert between dtypes '%s' and '%s' "
                        "(opaque dtypes copy only to themselves)",
                        pt_dtype_info_of(src->dtype)->name, pt_dtype_info_of(dst->dtype)->name);
    if (dst->device.type == PT_DEV_META) return PT_OK;
    if (src->device.type == PT_DEV_META)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
    if (dst->numel == 0) return PT_OK;
    if (dst->device.type == PT_DEV_CPU && src->device.type == PT_DEV_CPU)
        return copy_cpu(dst, src, src_strides);
    return copy_between(dst, src, src_strides);
}

/* dst's stored elements conjugated (conj) and negated (neg) in place, ignoring its bits. */
static pt_status apply_bits(pt_tensor *dst, bool conj, bool neg)
{
    pt_tensor *alias;
    PT_TRY(pt_tensor_make(dst->storage, dst->dtype, dst->ndim, dst->sizes, dst->strides,
                          dst->offset, &alias));
    pt_status st = PT_OK;
    pt_tensor *r = NULL;
    if (conj && pt_is_complex(dst->dtype)) {
        r = pt_call_conj_physical_(alias);
        if (!r) st = pt_error_code();
        pt_tensor_release(r);
    }
    if (st == PT_OK && neg) {
        r = pt_call_neg_(alias);
        if (!r) st = pt_error_code();
        pt_tensor_release(r);
    }
    pt_tensor_release(alias);
    return st;
}

pt_status pt_tensor_copy_(pt_tensor *dst, const pt_tensor *src)
{
    PT_TRY(copy_impl(dst, src, true));
    const int32_t differ = (dst->math_bits ^ src->math_bits) & (PT_MATH_BIT_CONJ | PT_MATH_BIT_NEG);
    if (!differ || dst->numel == 0 || dst->device.type == PT_DEV_META) return PT_OK;
    return apply_bits(dst, differ & PT_MATH_BIT_CONJ, differ & PT_MATH_BIT_NEG);
}

/* ---------------------------------------------------------------- fill_ */

/* A contiguous run is filled 64 bytes at a time from `pattern` (the element repeated; 64 is a
 * multiple of every item size): fixed-size copies the compiler turns into vector stores, where
 * one store per element through a variable stride ran at a fifteenth of torch's fill_. */
typedef struct fill_ctx {
    unsigned char value[16]; /* one element, the widest builtin is 16 bytes */
    int64_t itemsize;
    _Alignas(64) unsigned char pattern[64];
    bool zero; /* every byte of value is 0: memset */
} fill_ctx;

#define PT_FILL_CASE(N)                                                                            \
    case N:                                                                                        \
        for (int64_t i = 0; i < n; i++) memcpy(data[0] + i * strides[0], c->value, N);             \
        break;

static void fill_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const fill_ctx *c = ctx;
    if (c->itemsize == 1 && strides[0] == 1) {
        memset(data[0], c->value[0], (size_t)n);
        return;
    }
    if (strides[0] == c->itemsize) {
        const size_t bytes = (size_t)n * (size_t)c->itemsize;
        char *p = data[0];
        if (c->zero) {
            memset(p, 0, bytes);
            return;
        }
        size_t i = 0;
        for (; i + sizeof c->pattern <= bytes; i += sizeof c->pattern)
            memcpy(p + i, c->pattern, sizeof c->pattern);
        memcpy(p + i, c->pattern, bytes - i);
        return;
    }
    switch (c->itemsize) {
        PT_FILL_CASE(1)
        PT_FILL_CASE(2)
        PT_FILL_CASE(4)
        PT_FILL_CASE(8)
        PT_FILL_CASE(16)
    }
}

pt_status pt_tensor_fill_(pt_tensor *t, const pt_scalar *value)
{
    PT_TRY(check_strided(t, "fill_", "self"));
    if (!value) return PT_ERROR(PT_ERR_VALUE, "fill_: value must be a scalar, got NULL");
    PT_TRY(pt_dtype_scalar_check(t->dtype, value));
    PT_TRY(check_writable(t, "fill_"));
    if (t->device.type == PT_DEV_META || t->numel == 0) return PT_OK;
    fill_ctx ctx = {.itemsize = pt_dtype_itemsize(t->dtype), .zero = true};
    pt_dtype_scalar_to(t->dtype)(value, ctx.value);
    for (size_t i = 0; i < sizeof ctx.pattern; i++)
        ctx.pattern[i] = ctx.value[i % (size_t)ctx.itemsize];
    for (int64_t i = 0; i < ctx.itemsize; i++) ctx.zero &= ctx.value[i] == 0;
    if (t->device.type != PT_DEV_CPU) {
        /* A 0-d CPU tensor broadcast over t: the copy stages it to the device. */
        pt_tensor *one;
        PT_TRY(pt_tensor_empty(0, NULL, t->dtype, cpu_device, &one));
        memcpy(pt_tensor_data(one), ctx.value, (size_t)ctx.itemsize);
        pt_status st = copy_impl(t, one, false);
        pt_tensor_release(one);
        return st;
    }
    int64_t byte_strides[PT_MAX_DIMS];
    for (int32_t i = 0; i < t->ndim; i++) byte_strides[i] = t->strides[i] * ctx.itemsize;
    char *data[1] = {pt_tensor_data(t)};
    parallel_loop_nd(1, data, byte_strides, t->ndim, t->sizes, t->numel, fill_loop, &ctx);
    return PT_OK;
}

/* ---------------------------------------------------------------- clone, contiguous, to */

/* The strides a copy of t gets for memory_format (PRESERVE keeps a dense layout, permuted or
 * not; anything else, including negative strides, becomes row-major). */
static pt_status strides_for(const pt_tensor *t, int32_t memory_format, const char *op,
                             int64_t *strides)
{
    int32_t nd = t->ndim;
    const int64_t *sz = t->sizes;
    switch (memory_format) {
    case PT_MEMORY_FORMAT_PRESERVE: {
        bool keep = pt_strides_non_overlapping_and_dense(nd, sz, t->strides);
        for (int32_t d = 0; keep && d < nd; d++) keep = t->strides[d] >= 0;
        if (keep) {
            memcpy(strides, t->strides, sizeof(int64_t) * (size_t)nd);
            return PT_OK;
        }
        pt_contiguous_strides(nd, sz, strides);
        return PT_OK;
    }
    case PT_MEMORY_FORMAT_CONTIGUOUS:
        pt_contiguous_strides(nd, sz, strides);
        return PT_OK;
    case PT_MEMORY_FORMAT_CHANNELS_LAST:
        if (nd != 4)
            return PT_ERROR(PT_ERR_RUNTIME, "required rank 4 tensor to use channels_last format");
        /* NHWC: C fastest, then W, H, N (torch's get_channels_last_strides_2d) */
        strides[1] = 1;
        strides[3] = sz[1];
        strides[2] = strides[3] * sz[3];
        strides[0] = strides[2] * sz[2];
        return PT_OK;
    case PT_MEMORY_FORMAT_CHANNELS_LAST_3D:
        if (nd != 5)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "required rank 5 tensor to use channels_last_3d format");
        strides[1] = 1;
        strides[4] = sz[1];
        strides[3] = strides[4] * sz[4];
        strides[2] = strides[3] * sz[3];
        strides[0] = strides[2] * sz[2];
        return PT_OK;
    default:
        return PT_ERROR(PT_ERR_VALUE, "%s: unknown memory_format %d", op, (int)memory_format);
    }
}

static pt_status copy_as(const pt_tensor *t, const int64_t *strides, int32_t dtype,
                         pt_device device, pt_tensor **out)
{
    pt_tensor *r;
    PT_TRY(pt_tensor_empty_strided(t->ndim, t->sizes, strides, dtype, device, &r));
    pt_status st = pt_tensor_copy_(r, t);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_tensor_clone(const pt_tensor *t, int32_t memory_format, pt_tensor **out)
{
    PT_TRY(check_strided(t, "clone", "self"));
    int64_t strides[PT_MAX_DIMS];
    PT_TRY(strides_for(t, memory_format, "clone", strides));
    return copy_as(t, strides, t->dtype, t->device, out);
}

pt_status pt_tensor_contiguous(const pt_tensor *t, pt_tensor **out)
{
    PT_TRY(check_strided(t, "contiguous", "self"));
    if (pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS)) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    return pt_tensor_clone(t, PT_MEMORY_FORMAT_CONTIGUOUS, out);
}

pt_status pt_tensor_to(const pt_tensor *t, int32_t dtype, pt_device device, int32_t copy,
                       pt_tensor **out)
{
    PT_TRY(check_strided(t, "to", "self"));
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    pt_device dev;
    PT_TRY(pt_device_resolve(device, &dev));
    if (!copy && dtype == t->dtype && same_device(dev, t->device)) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    int64_t strides[PT_MAX_DIMS];
    PT_TRY(strides_for(t, PT_MEMORY_FORMAT_PRESERVE, "to", strides));
    return copy_as(t, strides, dtype, dev, out);
}

/* ---------------------------------------------------------------- item */

pt_status pt_tensor_item(const pt_tensor *t, pt_scalar *out)
{
    PT_TRY(check_strided(t, "item", "self"));
    if (t->numel != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "a Tensor with %lld elements cannot be converted to Scalar",
                        (long long)t->numel);
    if (t->device.type == PT_DEV_META)
        return PT_ERROR(PT_ERR_RUNTIME, "Tensor.item() cannot be called on meta tensors");
    pt_scalar_from_fn from = pt_dtype_scalar_from(t->dtype);
    if (!from)
        return PT_ERROR(PT_ERR_TYPE, "item: the opaque dtype '%s' has no scalar value",
                        pt_dtype_info_of(t->dtype)->name);
    unsigned char elem[16];
    const void *p = pt_tensor_data(t);
    if (t->device.type != PT_DEV_CPU) {
        PT_TRY(pt_copy_bytes(pt_dtype_itemsize(t->dtype), p, t->device, elem, cpu_device, 0));
        p = elem;
    }
    from(p, out);
    return PT_OK;
}
