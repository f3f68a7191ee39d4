/* reduce.c - the reduction engine: which dims a reduction runs over, the walk that feeds the
 * loops of cpu/reduce_kernels.c (reductions, arg reductions, scans, maps), threads, and how a
 * result reaches the caller (keepdim, dtype, out=). The operators' own rules are reduce_ops.c.
 *
 * A reduction of x over some dims into out (x's shape with 1 at the reduced dims) is planned as
 * two lists of dims, each sorted by x's strides (outermost first) and coalesced where consecutive
 * dims are one run of memory: the kept dims (with out's strides) and the reduced dims. Then one of
 * two walks:
 *   inner: for each output, the reduced elements are folded into one accumulator, the innermost
 *     reduced dim by one call of the type's inner loop (contiguous there: vectorized lanes and
 *     pairwise sums) - the case of reducing the last dim, or everything;
 *   outer: when the kept dim with the smallest stride is contiguous and below every reduced dim
 *     (sum over dim 0 of a row-major matrix), a block of up to COLUMN_BLOCK outputs is reduced
 *     together, each reduced "row" folded into a row of accumulators by the outer loop, which
 *     vectorizes across the kept dim.
 * Note [reduction order] says how the work is split and in what order float sums are added.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "reduce.h"

PT_CPU_STUB(reduce, pt_reduce_table, "sum, prod, max, min, arg, scan and map loops by dtype")

const pt_reduce_table *pt_reduce_kernels(void) { return PT_CPU_KERNELS(reduce, pt_reduce_table); }

enum { SHAPE_CHARS = 256, VALUE_BYTES = 16 };

/* ---------------------------------------------------------------- dims and shapes */

pt_status pt_reduce_dims(const pt_tensor *self, int32_t n, const int64_t *dims, bool *mask)
{
    const int32_t nd = self->ndim;
    for (int32_t d = 0; d < nd; d++) mask[d] = n <= 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t d;
        PT_TRY(pt_wrap_dim(dims[i], nd, &d));
        if (nd == 0) continue; /* a 0-d tensor answers to dim 0 and -1 */
        if (mask[d])
            return PT_ERROR(PT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims",
                            (int)d);
        mask[d] = true;
    }
    return PT_OK;
}

int32_t pt_reduce_shape(const pt_tensor *self, const bool *mask, bool keepdim, int64_t *sizes)
{
    int32_t n = 0;
    for (int32_t d = 0; d < self->ndim; d++) {
        if (!mask[d]) sizes[n++] = self->sizes[d];
        else if (keepdim) sizes[n++] = 1;
    }
    return n;
}

/* ---------------------------------------------------------------- the plan */

typedef struct dimv {
    int64_t size, in, out; /* byte strides of x and out */
} dimv;

typedef struct plan {
    int32_t nk, nr; /* outermost first */
    dimv k[PT_MAX_DIMS], r[PT_MAX_DIMS];
    int64_t nout, nred, isz;
    const char *x;
    char *o;
} plan;

static int64_t absl(int64_t v) { return v < 0 ? -v : v; }

/* Sorts by |x stride| descending and merges neighbours that are one run in x (and in out). */
static int32_t sort_coalesce(dimv *v, int32_t n)
{
    for (int32_t i = 1; i < n; i++)
        for (int32_t j = i; j > 0 && absl(v[j].in) > absl(v[j - 1].in); j--) {
            dimv t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (m > 0 && v[m - 1].in == v[i].in * v[i].size && v[m - 1].out == v[i].out * v[i].size) {
            v[m - 1].size *= v[i].size;
            v[m - 1].in = v[i].in;
            v[m - 1].out = v[i].out;
            continue;
        }
        v[m++] = v[i];
    }
    return m;
}

static void make_plan(const pt_tensor *x, const bool *mask, const pt_tensor *out, plan *p)
{
    p->isz = pt_dtype_itemsize(x->dtype);
    p->nk = p->nr = 0;
    p->nout = p->nred = 1;
    for (int32_t d = 0; d < x->ndim; d++) {
        const int64_t size = x->sizes[d];
        if (mask[d]) p->nred *= size;
        else p->nout *= size;
        if (size == 1) continue;
        dimv v = {size, x->strides[d] * p->isz, mask[d] ? 0 : out->strides[d] * p->isz};
        if (mask[d]) p->r[p->nr++] = v;
        else p->k[p->nk++] = v;
    }
    p->nr = sort_coalesce(p->r, p->nr);
    p->nk = sort_coalesce(p->k, p->nk);
    p->x = pt_tensor_data(x);
    p->o = out ? pt_tensor_data(out) : NULL;
}

/* Byte offsets in x and out of kept index i (row-major over the plan's kept dims from `from`). */
static void kept_offsets(const plan *p, int32_t ndims, int64_t i, int64_t *xo, int64_t *oo)
{
    int64_t a = 0, b = 0;
    for (int32_t d = ndims - 1; d >= 0; d--) {
        const int64_t q = i / p->k[d].size, r = i - q * p->k[d].size;
        a += r * p->k[d].in;
        b += r * p->k[d].out;
        i = q;
    }
    *xo = a;
    *oo = b;
}

/* Byte offset in x of reduced index i over the reduced dims [from, nr). */
static int64_t red_offset(const plan *p, int32_t from, int64_t i)
{
    int64_t a = 0;
    for (int32_t d = p->nr - 1; d >= from; d--) {
        const int64_t q = i / p->r[d].size;
        a += (i - q * p->r[d].size) * p->r[d].in;
        i = q;
    }
    return a;
}

/* ---------------------------------------------------------------- identities */

static void identity(int32_t op, int32_t dtype, void *out)
{
    memset(out, 0, VALUE_BYTES);
    pt_scalar v = {PT_SCALAR_INT, 0, 0, 0};
    switch (op) {
    case PT_RED_SUM: return;
    case PT_RED_PROD: v.i = 1; break;
    default: {
        const bool max = op == PT_RED_MAX;
        if (pt_is_floating(dtype)) {
            v.kind = PT_SCALAR_FLOAT;
            v.re = max ? -INFINITY : INFINITY;
        } else if (dtype == PT_BOOL || dtype == PT_UINT8) {
            v.i = max ? 0 : dtype == PT_BOOL ? 1 : 255;
        } else {
            const int bits = 8 * pt_dtype_itemsize(dtype);
            const int64_t top = (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
            v.i = max ? -top - 1 : top;
        }
    }
    }
    pt_dtype_scalar_to(dtype)(&v, out);
}

/* The row filled by doubling copies: a few memcpy calls instead of one per element, as the
 * cascade refills a level every FAN rows. */
static void fill_row(void *row, const void *value, int64_t k, int64_t isz)
{
    if (k <= 0) return;
    char *r = row;
    memcpy(r, value, (size_t)isz);
    for (int64_t done = 1; done < k;) {
        const int64_t n = done < k - done ? done : k - done;
        memcpy(r + done * isz, r, (size_t)(n * isz));
        done += n;
    }
}

/* ---------------------------------------------------------------- the inner walk
 * Note [reduction order]
 * How a reduction is split never depends on the thread count, so results are the same with any
 * number of threads, for floats too. An output whose reduction covers at least 2 * CHUNK
 * elements is cut along its outermost reduced dim into chunks of about CHUNK elements; each chunk
 * is reduced into a partial (pairwise within the innermost dim's runs, Note [pairwise sums]) and
 * the partials are combined in a fixed pairwise tree. Threads take whole tasks (an output, or an
 * output's chunk). The outer walk adds rows in order into a cascade of accumulator rows: every
 * FAN rows one level is folded into the next, so a float sum over n rows has an error growing
 * with FAN * log_FAN(n) rather than n. */
enum { CHUNK = 1 << 16, COLUMN_BLOCK = 1024, FAN = 16, LEVELS = 16 };

typedef struct walk {
    const plan *p;
    const pt_reduce_table *t;
    int32_t op, dtype;
    int64_t nchunks;
    char *partials; /* nout * nchunks accumulators when nchunks > 1 */
    unsigned char id[VALUE_BYTES];
    /* Note [mapped reductions]: NULL, or applied to every element (minus the shift) before it is
     * reduced. */
    pt_red_map_fn map;
    double map_p;
    const char *shift; /* NULL, or the data of a tensor of out's shape, strides and dtype */
} walk;

/* Note [mapped reductions]
 * norm, var/std and logsumexp reduce a function of the elements: |x|^p, (x - mean)^2,
 * exp(x - max). Mapping x into a temporary first cost a write and a read of x's size (and, for
 * var and logsumexp, a broadcast subtraction into another): 3 to 6 passes over memory where the
 * reduction itself needs one. A mapped walk instead maps the elements as it reads them, a block of
 * MAP_BLOCK_BYTES at a time into a buffer on the stack that the reduction loop then folds, so x
 * is read once and nothing of its size is allocated. The shift (the mean, the max) is one value
 * per output: the inner walk subtracts the output's value, the outer walk a row of them. Float
 * sums keep their order of Note [reduction order] within each block and add the blocks in order;
 * within the CHUNK of a task that is at most 64 blocks. Real floating types only (float32,
 * float64): the maps of complex types change the element size. */
enum { MAP_BLOCK_BYTES = 8192 };
_Static_assert(MAP_BLOCK_BYTES >= COLUMN_BLOCK * 8, "a block holds an outer row of doubles");

/* dst[i] = x[i * xs] - shift[i * ss] (shift NULL: nothing subtracted) in float32 or float64. */
static void load_shifted(int32_t dtype, void *dst, const char *x, int64_t n, int64_t xs,
                         const char *shift, int64_t ss)
{
    if (dtype == PT_FLOAT32) {
        float *d = dst;
        for (int64_t i = 0; i < n; i++)
            d[i] = *(const float *)(x + i * xs) - (shift ? *(const float *)(shift + i * ss) : 0.0f);
    } else {
        double *d = dst;
        for (int64_t i = 0; i < n; i++)
            d[i] = *(const double *)(x + i * xs) - (shift ? *(const double *)(shift + i * ss) : 0.0);
    }
}

/* inner(x, n, stride, acc), of the mapped elements when the walk maps. */
static void fold(const walk *w, pt_red_inner_fn inner, const char *x, int64_t n, int64_t stride,
                 const char *shift, void *acc)
{
    if (!w->map) {
        inner(x, n, stride, acc);
        return;
    }
    _Alignas(64) unsigned char buf[MAP_BLOCK_BYTES];
    const int64_t isz = w->p->isz, cap = MAP_BLOCK_BYTES / isz;
    for (int64_t b = 0; b < n; b += cap) {
        const int64_t len = n - b < cap ? n - b : cap;
        const char *src = x + b * stride;
        if (shift || stride != isz) {
            load_shifted(w->dtype, buf, src, len, stride, shift, 0);
            src = (const char *)buf;
        }
        w->map(buf, src, len, w->map_p);
        inner((const char *)buf, len, isz, acc);
    }
}

/* Folds the reduced elements whose outermost reduced index lies in [r0, r1) into acc. */
static void reduce_range(const walk *w, const char *xb, int64_t r0, int64_t r1,
                         const char *shift, void *acc)
{
    const plan *p = w->p;
    pt_red_inner_fn inner = w->t->inner[w->op][w->dtype];
    if (p->nr == 0) {
        fold(w, inner, xb, 1, p->isz, shift, acc);
        return;
    }
    const dimv *last = &p->r[p->nr - 1];
    if (p->nr == 1) {
        fold(w, inner, xb + r0 * last->in, r1 - r0, last->in, shift, acc);
        return;
    }
    int64_t middle = 1; /* the dims between the outermost and the innermost */
    for (int32_t d = 1; d < p->nr - 1; d++) middle *= p->r[d].size;
    for (int64_t i = r0; i < r1; i++)
        for (int64_t m = 0; m < middle; m++) {
            const char *row = xb + i * p->r[0].in + (p->nr > 2 ? red_offset(p, 1, m * last->size) : 0);
            fold(w, inner, row, last->size, last->in, shift, acc);
        }
}

/* Note [rows back to back]
 * The common inner reduction, one contiguous reduced run per output (a 7x7 plane's 49 elements,
 * a row of a matrix), goes straight to the inner function from a running offset: the general
 * walk's index arithmetic, accumulator copies and nested calls cost more per output than a short
 * run's additions. */
static bool rows_back_to_back(const walk *w)
{
    const plan *p = w->p;
    return w->nchunks == 1 && !w->map && !w->shift && p->nr == 1 && p->nk == 1 &&
           p->r[0].in == p->isz;
}

static void rows_task(int64_t begin, int64_t end, const walk *w)
{
    const plan *p = w->p;
    pt_red_inner_fn inner = w->t->inner[w->op][w->dtype];
    const int64_t n = p->r[0].size, kin = p->k[0].in, kout = p->k[0].out, isz = p->isz;
    pt_red_rows_fn rows = w->op == PT_RED_SUM ? w->t->sum_rows[w->dtype] : NULL;
    if (rows) {
        rows(p->x + begin * kin, end - begin, n, kin, p->o + begin * kout, kout);
        return;
    }
    for (int64_t o = begin; o < end; o++) {
        unsigned char acc[VALUE_BYTES];
        memcpy(acc, w->id, (size_t)isz);
        inner(p->x + o * kin, n, isz, acc);
        memcpy(p->o + o * kout, acc, (size_t)isz);
    }
}

static void inner_task(int64_t begin, int64_t end, void *arg)
{
    const walk *w = arg;
    const plan *p = w->p;
    if (rows_back_to_back(w)) {
        rows_task(begin, end, w);
        return;
    }
    const int64_t outer = p->nr ? p->r[0].size : 1;
    for (int64_t task = begin; task < end; task++) {
        const int64_t o = task / w->nchunks, c = task - o * w->nchunks;
        int64_t xo, oo;
        kept_offsets(p, p->nk, o, &xo, &oo);
        unsigned char acc[VALUE_BYTES];
        memcpy(acc, w->id, sizeof acc);
        reduce_range(w, p->x + xo, outer * c / w->nchunks, outer * (c + 1) / w->nchunks,
                     w->shift ? w->shift + oo : NULL, acc);
        if (w->nchunks == 1) memcpy(p->o + oo, acc, (size_t)p->isz);
        else memcpy(w->partials + task * p->isz, acc, (size_t)p->isz);
    }
}

static pt_status run_inner(walk *w)
{
    const plan *p = w->p;
    const int64_t outer = p->nr ? p->r[0].size : 1;
    w->nchunks = p->nred >= 2 * CHUNK ? p->nred / CHUNK : 1;
    if (w->nchunks > outer) w->nchunks = outer;
    if (w->nchunks > 1) {
        w->partials = malloc((size_t)(p->nout * w->nchunks * p->isz));
        if (!w->partials)
            return PT_ERROR(PT_ERR_MEMORY, "reduction: out of memory for %lld partial results",
                            (long long)(p->nout * w->nchunks));
    }
    const int64_t per_task = p->nred / w->nchunks;
    pt_parallel_for(p->nout * w->nchunks, per_task >= PT_GRAIN ? 1 : PT_GRAIN / (per_task + 1) + 1,
                    inner_task, w);
    if (w->nchunks == 1) return PT_OK;
    pt_red_combine_fn combine = w->t->combine[w->op][w->dtype];
    for (int64_t o = 0; o < p->nout; o++) {
        char *part = w->partials + o * w->nchunks * p->isz;
        for (int64_t step = 1; step < w->nchunks; step *= 2)
            for (int64_t i = 0; i + step < w->nchunks; i += 2 * step)
                combine(part + i * p->isz, part + (i + step) * p->isz, 1);
        int64_t xo, oo;
        kept_offsets(p, p->nk, o, &xo, &oo);
        memcpy(p->o + oo, part, (size_t)p->isz);
    }
    free(w->partials);
    return PT_OK;
}

/* ---------------------------------------------------------------- the outer walk */

typedef struct cascade {
    char *level[LEVELS];
    int64_t count[LEVELS];
    int32_t used;
} cascade;

/* After a row went into level 0: folds every full level into the next. */
static void cascade_carry(const walk *w, cascade *c, int64_t kb)
{
    pt_red_combine_fn combine = w->t->combine[w->op][w->dtype];
    for (int32_t l = 0; l + 1 < LEVELS && c->count[l] == FAN; l++) {
        if (l + 1 == c->used) {
            memcpy(c->level[l + 1], c->level[l], (size_t)(kb * w->p->isz));
            c->count[l + 1] = 1;
            c->used++;
        } else {
            combine(c->level[l + 1], c->level[l], kb);
            c->count[l + 1]++;
        }
        fill_row(c->level[l], w->id, kb, w->p->isz);
        c->count[l] = 0;
    }
}

static void outer_block(const walk *w, const char *xb, char *ob, int64_t kb, char *buf)
{
    const plan *p = w->p;
    cascade c = {.used = 1};
    for (int32_t l = 0; l < LEVELS; l++) c.level[l] = buf + l * COLUMN_BLOCK * p->isz;
    fill_row(c.level[0], w->id, kb, p->isz);
    pt_red_outer_fn outer = w->t->outer[w->op][w->dtype];
    const int64_t os = p->k[p->nk - 1].out;
    const char *shift = w->shift ? w->shift + (ob - p->o) : NULL; /* the row of the outputs' */
    _Alignas(64) unsigned char mbuf[MAP_BLOCK_BYTES];
    for (int64_t r = 0; r < p->nred; r++) {
        const char *row = xb + red_offset(p, 0, r);
        if (w->map) { /* Note [mapped reductions]; rows are contiguous here (use_outer) */
            if (shift) {
                load_shifted(w->dtype, mbuf, row, kb, p->isz, shift, os);
                row = (const char *)mbuf;
            }
            w->map(mbuf, row, kb, w->map_p);
            row = (const char *)mbuf;
        }
        outer(c.level[0], row, kb, p->isz);
        c.count[0]++;
        cascade_carry(w, &c, kb);
    }
    pt_red_combine_fn combine = w->t->combine[w->op][w->dtype];
    for (int32_t l = 0; l + 1 < c.used; l++) combine(c.level[l + 1], c.level[l], kb);
    const char *res = c.level[c.used - 1];
    for (int64_t j = 0; j < kb; j++) memcpy(ob + j * os, res + j * p->isz, (size_t)p->isz);
}

static void outer_task(int64_t begin, int64_t end, void *arg)
{
    const walk *w = arg;
    const plan *p = w->p;
    const int64_t k = p->k[p->nk - 1].size, blocks = (k + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
    char *buf = malloc((size_t)(LEVELS * COLUMN_BLOCK * p->isz));
    if (!buf) return; /* run_outer checked that one such block can be had */
    for (int64_t task = begin; task < end; task++) {
        const int64_t g = task / blocks, b = task - g * blocks;
        int64_t xo, oo;
        kept_offsets(p, p->nk - 1, g, &xo, &oo);
        const int64_t j0 = b * COLUMN_BLOCK, kb = k - j0 < COLUMN_BLOCK ? k - j0 : COLUMN_BLOCK;
        outer_block(w, p->x + xo + j0 * p->k[p->nk - 1].in, p->o + oo + j0 * p->k[p->nk - 1].out,
                    kb, buf);
    }
    free(buf);
}

static bool use_outer(const plan *p)
{
    if (p->nk == 0 || p->nr == 0) return false;
    const dimv *kd = &p->k[p->nk - 1];
    return kd->in == p->isz && kd->size >= 8 && absl(p->r[p->nr - 1].in) > p->isz;
}

static pt_status run_outer(walk *w)
{
    const plan *p = w->p;
    const int64_t k = p->k[p->nk - 1].size, blocks = (k + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
    const int64_t tasks = p->nout / k * blocks;
    const int64_t per_task = p->nred * (k < COLUMN_BLOCK ? k : COLUMN_BLOCK);
    void *probe = malloc((size_t)(LEVELS * COLUMN_BLOCK * p->isz));
    if (!probe) return PT_ERROR(PT_ERR_MEMORY, "reduction: out of memory for accumulators");
    free(probe);
    pt_parallel_for(tasks, per_task >= PT_GRAIN ? 1 : PT_GRAIN / (per_task + 1) + 1, outer_task, w);
    return PT_OK;
}

/* ---------------------------------------------------------------- entry */

static void fill_outputs(const plan *p, const void *value)
{
    for (int64_t o = 0; o < p->nout; o++) {
        int64_t xo, oo;
        kept_offsets(p, p->nk, o, &xo, &oo);
        memcpy(p->o + oo, value, (size_t)p->isz);
    }
}

static pt_status run(int32_t op, const pt_tensor *x, const bool *mask, pt_tensor *out,
                     pt_red_map_fn map, double map_p, const pt_tensor *shift)
{
    plan p;
    make_plan(x, mask, out, &p);
    walk w = {.p = &p, .t = pt_reduce_kernels(), .op = op, .dtype = x->dtype, .map = map,
              .map_p = map_p, .shift = shift ? pt_tensor_data(shift) : NULL};
    if (p.nout == 0) return PT_OK;
    if (!w.t->inner[op][x->dtype])
        return PT_ERROR(PT_ERR_RUNTIME, "reduction: no loop for dtype %s",
                        pt_iter_type_name(x->dtype));
    identity(op, x->dtype, w.id);
    if (p.nred == 0) {
        fill_outputs(&p, w.id);
        return PT_OK;
    }
    return use_outer(&p) ? run_outer(&w) : run_inner(&w);
}

pt_status pt_reduce_run(int32_t op, const pt_tensor *x, const bool *mask, pt_tensor *out)
{
    return run(op, x, mask, out, NULL, 0, NULL);
}

pt_status pt_reduce_run_mapped(int32_t op, const pt_tensor *x, const bool *mask, pt_tensor *out,
                               int32_t map, double p, const pt_tensor *shift)
{
    if (x->dtype != PT_FLOAT32 && x->dtype != PT_FLOAT64)
        return PT_ERROR(PT_ERR_RUNTIME, "mapped reduction: no loop for dtype %s",
                        pt_iter_type_name(x->dtype));
    if (shift && (shift->dtype != out->dtype || shift->ndim != out->ndim ||
                  memcmp(shift->strides, out->strides, sizeof(int64_t) * (size_t)out->ndim) != 0))
        return PT_ERROR(PT_ERR_RUNTIME, "mapped reduction: the shift must have out's layout");
    return run(op, x, mask, out, pt_reduce_kernels()->map[map][x->dtype], p, shift);
}

/* ---------------------------------------------------------------- arg reductions */

typedef struct arg_walk {
    plan p;
    pt_red_arg_fn fn;
    int64_t n, stride, ostride_idx;
    char *idx;
} arg_walk;

static void arg_task(int64_t begin, int64_t end, void *arg)
{
    const arg_walk *a = arg;
    for (int64_t o = begin; o < end; o++) {
        int64_t xo, oo;
        kept_offsets(&a->p, a->p.nk, o, &xo, &oo);
        const int64_t i = a->fn(a->p.x + xo, a->n, a->stride);
        /* out's byte offsets are in x's itemsize; indices are int64 */
        int64_t io = oo / a->p.isz * 8;
        memcpy(a->idx + io, &i, sizeof i);
        if (a->p.o) memcpy(a->p.o + oo, a->p.x + xo + i * a->stride, (size_t)a->p.isz);
    }
}

pt_status pt_reduce_arg_run(int32_t which, const pt_tensor *x, int32_t dim, pt_tensor *values,
                            pt_tensor *indices)
{
    bool mask[PT_MAX_DIMS] = {false};
    if (x->ndim > 0) mask[dim] = true;
    arg_walk a;
    /* indices and values share the kept shape; the plan walks out's strides from `indices`,
     * counted in x's itemsize so that one offset serves both when they are contiguous alike. */
    make_plan(x, mask, indices, &a.p);
    a.p.o = values ? pt_tensor_data(values) : NULL;
    a.fn = pt_reduce_kernels()->arg[which][x->dtype];
    if (!a.fn)
        return PT_ERROR(PT_ERR_RUNTIME, "arg reduction: no loop for dtype %s",
                        pt_iter_type_name(x->dtype));
    a.n = x->ndim > 0 ? x->sizes[dim] : 1;
    a.stride = x->ndim > 0 ? x->strides[dim] * a.p.isz : a.p.isz;
    a.idx = pt_tensor_data(indices);
    if (a.p.nout == 0 || a.n == 0) return PT_OK;
    pt_parallel_for(a.p.nout, PT_GRAIN / a.n + 1, arg_task, &a);
    return PT_OK;
}

/* ---------------------------------------------------------------- scans */

typedef struct scan_walk {
    plan p;
    pt_red_scan_fn fn;
    int64_t n, xs, os;
} scan_walk;

static void scan_task(int64_t begin, int64_t end, void *arg)
{
    const scan_walk *s = arg;
    for (int64_t o = begin; o < end; o++) {
        int64_t xo, oo;
        kept_offsets(&s->p, s->p.nk, o, &xo, &oo);
        s->fn(s->p.o + oo, s->os, s->p.x + xo, s->xs, s->n);
    }
}

pt_status pt_reduce_scan_run(int32_t which, const pt_tensor *x, int32_t dim, pt_tensor *out)
{
    bool mask[PT_MAX_DIMS] = {false};
    if (x->ndim > 0) mask[dim] = true;
    scan_walk s;
    make_plan(x, mask, out, &s.p);
    s.fn = pt_reduce_kernels()->scan[which][x->dtype];
    if (!s.fn)
        return PT_ERROR(PT_ERR_RUNTIME, "scan: no loop for dtype %s", pt_iter_type_name(x->dtype));
    s.n = x->ndim > 0 ? x->sizes[dim] : 1;
    s.xs = x->ndim > 0 ? x->strides[dim] * s.p.isz : s.p.isz;
    s.os = x->ndim > 0 ? out->strides[dim] * s.p.isz : s.p.isz;
    if (s.p.nout == 0 || s.n == 0) return PT_OK;
    pt_parallel_for(s.p.nout, PT_GRAIN / s.n + 1, scan_task, &s);
    return PT_OK;
}

/* ---------------------------------------------------------------- maps */

typedef struct map_job {
    pt_red_map_fn fn;
    const char *x;
    char *o;
    int64_t xsz, osz;
    double p;
} map_job;

static void map_task(int64_t begin, int64_t end, void *arg)
{
    const map_job *m = arg;
    m->fn(m->o + begin * m->osz, m->x + begin * m->xsz, end - begin, m->p);
}

void pt_reduce_map(int32_t map, const pt_tensor *x, pt_tensor *out, double p)
{
    if (x->device.type != PT_DEV_CPU || x->numel == 0) return;
    map_job m = {pt_reduce_kernels()->map[map][x->dtype], pt_tensor_data(x), pt_tensor_data(out),
                 pt_dtype_itemsize(x->dtype), pt_dtype_itemsize(out->dtype), p};
    pt_parallel_for(x->numel, PT_GRAIN / 8, map_task, &m);
}

/* ---------------------------------------------------------------- results */

static pt_status check_out_shape(const char *name, pt_tensor *out_arg, int32_t nd,
                                 const int64_t *sizes)
{
    if (out_arg->ndim == nd &&
        (nd == 0 || memcmp(out_arg->sizes, sizes, sizeof(int64_t) * (size_t)nd) == 0))
        return PT_OK;
    if (out_arg->numel != 0) {
        char have[SHAPE_CHARS], want[SHAPE_CHARS];
        pt_format_ints(have, sizeof have, out_arg->ndim, out_arg->sizes);
        pt_format_ints(want, sizeof want, nd, sizes);
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s: out with shape %s doesn't match the result shape %s; only an out "
                        "tensor with no elements is resized (resize_(0) it first)",
                        name, have, want);
    }
    return pt_tensor_resize_(out_arg, nd, sizes);
}

/* result's view without the reduced dims (a new reference). */
static pt_status squeeze_reduced(pt_tensor *result, const pt_tensor *self, const bool *mask,
                                 pt_tensor **out)
{
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    int32_t n = 0;
    for (int32_t d = 0; d < self->ndim; d++) {
        if (mask[d]) continue;
        sizes[n] = result->sizes[d];
        strides[n++] = result->strides[d];
    }
    return pt_tensor_make(result->storage, result->dtype, n, sizes, strides, result->offset, out);
}

static pt_status deliver(const char *name, pt_tensor *v, int32_t dtype, pt_tensor *out_arg,
                         pt_tensor **out)
{
    if (out_arg) {
        PT_TRY(pt_iter_check_write(out_arg, NULL));
        PT_TRY(check_out_shape(name, out_arg, v->ndim, v->sizes));
        PT_TRY(pt_tensor_copy_(out_arg, v));
        pt_tensor_retain(out_arg);
        *out = out_arg;
        return PT_OK;
    }
    if (v->dtype == dtype) {
        pt_tensor_retain(v);
        *out = v;
        return PT_OK;
    }
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(v->ndim, v->sizes, dtype, v->device, &r));
    pt_status st = pt_tensor_copy_(r, v);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_reduce_finish(const char *name, pt_tensor *result, const pt_tensor *self,
                           const bool *mask, bool keepdim, int32_t dtype, pt_tensor *out_arg,
                           pt_tensor **out)
{
    pt_tensor *v = result;
    pt_status st = PT_OK;
    if (!keepdim && result->ndim > 0) st = squeeze_reduced(result, self, mask, &v);
    if (st == PT_OK) {
        st = deliver(name, v, dtype, out_arg, out);
        if (v != result) pt_tensor_release(v);
    }
    pt_tensor_release(result);
    return st;
}
