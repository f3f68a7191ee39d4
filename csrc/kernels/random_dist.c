/* random_dist.c - the random ops whose elements are not one block each: randperm and
 * multinomial. Both draw from the Philox stream of Note [Philox stream] (random.c), reserving
 * their blocks with one fetch-add and numbering them from the reserved offset, so a seed gives the
 * same result on any thread count and device.
 *
 *   randperm     Fisher-Yates from the top: step s (swapping slot n-1-s with a slot in
 *                [0, n-1-s]) draws from block o + s, reduced the way random_ does.
 *   multinomial  without replacement, or for one sample (as torch, which takes that path for one
 *                sample too): the exponential race. Category c of row r draws
 *                E = -log(v) from block o + r * categories + c (v in (0, 1) from 53 bits) and
 *                gets the key p / E; the row's samples are the categories of the largest keys, in
 *                decreasing order. This samples without replacement in proportion to p (the
 *                "Gumbel top-k" trick torch uses too). Zero-probability categories have key 0 and
 *                come last, ordered by E, so they appear only when more samples than positive
 *                categories are asked for, as in torch.
 *                With replacement: sample j of row r is the inverse of the row's cumulative sums
 *                (in double) at v * total, v from block o + r * samples + j (53 bits in [0, 1)).
 *
 * Meta tensors are checked and shaped like others and not drawn, without advancing the generator.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "philox.h"

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

/* g, or the device's default generator, as a new reference. */
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

typedef struct stream {
    uint32_t k0, k1;
    uint64_t offset;
} stream;

/* Reserves `blocks` blocks of g: the stream they make. */
static stream stream_reserve(pt_generator *g, uint64_t blocks)
{
    const uint64_t seed = pt_generator_initial_seed(g);
    return (stream){(uint32_t)seed, (uint32_t)(seed >> 32), pt_generator_reserve(g, blocks)};
}

static uint64_t bits64(const stream *s, uint64_t i)
{
    const uint64_t ctr = s->offset + i;
    uint32_t w[4];
    pt_philox_block((uint32_t)ctr, (uint32_t)(ctr >> 32), 0, 0, s->k0, s->k1, w);
    return ((uint64_t)w[1] << 32) | w[0];
}

/* ---------------------------------------------------------------- randperm */
/* Fisher-Yates over perm[0..n) from the stream's blocks 0, 1, ... */
static void shuffle(int64_t *perm, int64_t n, const stream *s)
{
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t k = 0; k + 1 < n; k++) {
        const int64_t i = n - 1 - k;
        const int64_t j = (int64_t)(bits64(s, (uint64_t)k) % (uint64_t)(i + 1));
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
    const stream s = stream_reserve(g, (uint64_t)n);
    if (n == 0) return PT_OK;
    if (t->dtype == PT_INT64) {
        shuffle(pt_tensor_data(t), n, &s);
        return PT_OK;
    }
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    if (!perm)
        return PT_ERROR(PT_ERR_MEMORY, "randperm: out of memory for %lld indices", (long long)n);
    shuffle(perm, n, &s);
    store_perm(perm, n, t);
    free(perm);
    return PT_OK;
}

static pt_status randperm_check(int64_t n, int32_t dtype)
{
    if (n < 0) return PT_ERROR(PT_ERR_VALUE, "randperm: n must be non-negative, got %lld", (long long)n);
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    const pt_dtype_info *info = pt_dtype_info_of(dtype);
    if (!(info->kind & (PT_KIND_INTEGER | PT_KIND_FLOAT)) || (info->kind & PT_KIND_OPAQUE))
        return PT_ERROR(PT_ERR_TYPE, "randperm: expected an integer or floating dtype, but got %s",
                        info->name);
    /* the largest integer the dtype holds with all below it: 2^digits for floating dtypes */
    const int64_t hi = info->kind & PT_KIND_FLOAT ? INT64_C(1) << info->mantissa_bits : info->imax;
    if (n > 0 && n - 1 > hi)
        return PT_ERROR(PT_ERR_VALUE,
                        "randperm: n=%lld is too large for %s, which holds integers up to %lld "
                        "exactly",
                        (long long)n, info->name, (long long)hi);
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

/* ---------------------------------------------------------------- multinomial */
/* torch's FLOAT32_MAX_CONSECUTIVE_INT: its CUDA kernel keeps category indices in float. */
#define MAX_CATEGORIES (INT64_C(1) << 24)

typedef struct race_entry {
    double key, e;
    int64_t index;
} race_entry;

/* Larger keys first; among equal keys (the zero-probability categories) the smaller E. */
static int race_order(const void *pa, const void *pb)
{
    const race_entry *a = pa, *b = pb;
    if (a->key != b->key) return a->key > b->key ? -1 : 1;
    if (a->e != b->e) return a->e < b->e ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* 53 bits + 1/2, scaled into (0, 1): never 0, so -log is finite. */
static double open_unit(uint64_t x) { return ((double)(x >> 11) + 0.5) * 0x1p-53; }

/* One row without replacement: the n largest of p / E into out (int64, stride in elements). */
static void race_row(const double *p, int64_t ncat, int64_t n, const stream *s, uint64_t first,
                     race_entry *buf, int64_t *out, int64_t stride)
{
    for (int64_t c = 0; c < ncat; c++) {
        const double e = -log(open_unit(bits64(s, first + (uint64_t)c)));
        buf[c] = (race_entry){p[c] / e, e, c};
    }
    if (n == 1) {
        int64_t best = 0;
        for (int64_t c = 1; c < ncat; c++)
            if (race_order(&buf[c], &buf[best]) < 0) best = c;
        out[0] = best;
        return;
    }
    qsort(buf, (size_t)ncat, sizeof *buf, race_order);
    for (int64_t j = 0; j < n; j++) out[j * stride] = buf[j].index;
}

/* One row with replacement: inverse cumulative sums (cum, filled here) at v * total. */
static void cdf_row(const double *p, int64_t ncat, int64_t n, const stream *s, uint64_t first,
                    double *cum, int64_t *out, int64_t stride)
{
    double total = 0.0;
    int64_t last_positive = 0;
    for (int64_t c = 0; c < ncat; c++) {
        total += p[c];
        cum[c] = total;
        if (p[c] > 0.0) last_positive = c;
    }
    for (int64_t j = 0; j < n; j++) {
        const double target = (double)(bits64(s, first + (uint64_t)j) >> 11) * 0x1p-53 * total;
        int64_t lo = 0, hi = ncat; /* the first c with cum[c] > target */
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (cum[mid] > target) hi = mid;
            else lo = mid + 1;
        }
        /* v * total can round up to total itself: the last category that can be drawn */
        out[j * stride] = lo < ncat ? lo : last_positive;
    }
}

/* torch's checks of the probabilities, for the path each mode takes. */
static pt_status check_rows(const double *p, int64_t rows, int64_t ncat, bool race)
{
    for (int64_t r = 0; r < rows; r++) {
        double total = 0.0;
        for (int64_t c = 0; c < ncat; c++) {
            const double v = p[r * ncat + c];
            if (race && !(v >= 0.0 && v < INFINITY))
                return PT_ERROR(PT_ERR_RUNTIME, "probability tensor contains either `inf`, `nan` "
                                "or element < 0");
            if (!race && !(v >= 0.0))
                return PT_ERROR(PT_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                                "probability entry < 0)");
            if (!race && isinf(v))
                return PT_ERROR(PT_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                                "probability entry = infinity or NaN)");
            total += v;
        }
        if (!(total > 0.0))
            return PT_ERROR(PT_ERR_RUNTIME,
                            "invalid multinomial distribution (sum of probabilities <= 0)");
    }
    return PT_OK;
}

/* self's probabilities as a rows x ncat block of doubles (malloc'd). */
static pt_status read_probabilities(const pt_tensor *self, double **out)
{
    pt_tensor *c = NULL;
    PT_TRY(pt_tensor_contiguous(self, &c));
    double *p = malloc((size_t)self->numel * sizeof *p);
    if (!p) {
        pt_tensor_release(c);
        return PT_ERROR(PT_ERR_MEMORY, "multinomial: out of memory for %lld probabilities",
                        (long long)self->numel);
    }
    pt_dtype_cast_fn(self->dtype, PT_FLOAT64)((char *)p, sizeof *p, pt_tensor_data(c),
                                              pt_dtype_itemsize(self->dtype), self->numel);
    pt_tensor_release(c);
    *out = p;
    return PT_OK;
}

static pt_status multinomial_cpu(const pt_tensor *self, int64_t n, bool replacement,
                                 pt_generator *g, pt_tensor *result)
{
    const int64_t ncat = self->sizes[self->ndim - 1], rows = self->numel / ncat;
    const bool race = !replacement || n == 1;
    double *p = NULL;
    PT_TRY(read_probabilities(self, &p));
    pt_status st = check_rows(p, rows, ncat, race);
    void *buf = NULL;
    if (st == PT_OK) {
        buf = malloc((size_t)ncat * (race ? sizeof(race_entry) : sizeof(double)));
        if (!buf) st = PT_ERROR(PT_ERR_MEMORY, "multinomial: out of memory");
    }
    pt_generator *gen = NULL;
    if (st == PT_OK) st = generator_for(self->device, g, &gen);
    if (st == PT_OK) {
        const int64_t per_row = race ? ncat : n;
        const stream s = stream_reserve(gen, (uint64_t)(rows * per_row));
        int64_t *data = pt_tensor_data(result);
        const int64_t row_stride = result->ndim == 2 ? result->strides[0] : 0;
        const int64_t stride = result->strides[result->ndim - 1];
        for (int64_t r = 0; r < rows; r++) {
            const uint64_t first = (uint64_t)(r * per_row);
            if (race)
                race_row(p + r * ncat, ncat, n, &s, first, buf, data + r * row_stride, stride);
            else
                cdf_row(p + r * ncat, ncat, n, &s, first, buf, data + r * row_stride, stride);
        }
        pt_generator_release(gen);
    }
    free(buf);
    free(p);
    return st;
}

/* Writes multinomial(self, n, replacement) into result (int64; resized to the result's shape). */
static pt_status multinomial_into(const pt_tensor *self, int64_t n, int32_t replacement,
                                  pt_generator *g, pt_tensor *result)
{
    if (self->layout != PT_LAYOUT_STRIDED || result->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "multinomial: only strided tensors are supported");
    if (result->device.type != self->device.type)
        return PT_ERROR(PT_ERR_RUNTIME, "multinomial arguments must have the same device");
    if (self->ndim < 1 || self->ndim > 2)
        return PT_ERROR(PT_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
    const pt_dtype_info *info = pt_dtype_info_of(self->dtype);
    if (!info || !(info->kind & PT_KIND_FLOAT) || (info->kind & PT_KIND_OPAQUE))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "multinomial only supports floating-point dtypes for input, got: %s",
                        legacy_name(self->dtype));
    if (result->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "multinomial expects Long tensor out, got: %s",
                        legacy_name(result->dtype));
    if (n <= 0) return PT_ERROR(PT_ERR_RUNTIME, "cannot sample n_sample <= 0 samples");
    const int64_t ncat = self->sizes[self->ndim - 1];
    if (!replacement && n > ncat)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    if (ncat > MAX_CATEGORIES)
        return PT_ERROR(PT_ERR_RUNTIME, "number of categories cannot exceed 2^24");
    const int64_t shape[2] = {self->sizes[0], n};
    const int32_t nd = self->ndim;
    const int64_t *want = nd == 1 ? &n : shape;
    if (result->ndim != nd || memcmp(result->sizes, want, sizeof(int64_t) * (size_t)nd) != 0)
        PT_TRY(pt_tensor_resize_(result, nd, want));
    if (result->device.type != PT_DEV_META && result->storage && !result->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "multinomial: the output tensor's memory is read-only");
    if (self->numel == 0 || self->device.type == PT_DEV_META) return PT_OK;
    if (self->device.type != PT_DEV_CPU)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "multinomial: computes on the CPU and meta devices "
                        "only, got a %s tensor", pt_device_type_name(self->device.type));
    return multinomial_cpu(self, n, replacement != 0, g, result);
}

pt_status pt_kernel_multinomial(const pt_tensor *self, int64_t num_samples, int32_t replacement,
                                pt_generator *generator, pt_tensor **out)
{
    const int64_t none = 0;
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(1, &none, PT_INT64, self->device, &t));
    const pt_status st = multinomial_into(self, num_samples, replacement, generator, t);
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    *out = t;
    return PT_OK;
}

pt_status pt_kernel_multinomial_out(const pt_tensor *self, int64_t num_samples,
                                    int32_t replacement, pt_generator *generator, pt_tensor *out,
                                    pt_tensor **ret)
{
    PT_TRY(multinomial_into(self, num_samples, replacement, generator, out));
    return pt_native_self(out, ret);
}
