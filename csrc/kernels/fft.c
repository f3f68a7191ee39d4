/* fft.c - the kernels of _fft_c2c, _fft_r2c and _fft_c2r (and their out= forms): torch's
 * FFT primitives, on which the fft_* functions (csrc/ops/fft_composites.c) are built.
 *
 * A transform over several dims is a 1-D transform along each dim in turn. The result is a
 * new contiguous tensor; a complex-to-complex pass runs in place on it, line by line: a line
 * along dim d of a contiguous tensor starts at o * size_d * S + i (S the product of the sizes
 * after d, o < outer, i < S) and steps by S. Lines of unit step are transformed where they lie;
 * the others are gathered into a contiguous buffer, transformed and scattered back. The real
 * passes (r2c first, c2r last) read one tensor and write another the same way. Lines are
 * independent, so the batch is split across threads (pt_parallel_for, Note [fft grain]); each
 * thread's chunk allocates its own line and scratch buffers. The normalization (none, 1/sqrt(n)
 * or 1/n of the product of the signal sizes, torch's fft_norm_mode 0, 1, 2) is folded into the
 * first pass's writes.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "fft.h"
#include "iter.h"
#include "kernels.h"

PT_CPU_STUB_DECLARE(fft);

/* Note [fft grain]
 * A chunk of lines goes to a thread when the batch holds at least 2 * 32768 complex points: a
 * transform costs ~5 n log2(n) flops, so 32K points are ~100 us of one core even for short
 * lines, which dwarfs a parallel region's cost (Note [elementwise grain] in iter.h). */
enum { PT_FFT_GRAIN_POINTS = 32768 };

typedef struct {
    const pt_fft_plan *plan;
    int kind;           /* pt_fft_kind of this pass */
    int32_t real;       /* 4 or 8 */
    char *src, *dst;    /* contiguous tensors (the same one for c2c) */
    int64_t n;          /* the transform's length */
    int64_t in_len;     /* the line's length in src (elements of src's type) */
    int64_t out_len;    /* ... and in dst */
    int64_t stride;     /* S: the step between a line's elements, equal in src and dst */
    bool full;          /* r2c: write all n bins (the Hermitian half mirrored) */
    double scale;
    atomic_int failed;
} pass_job;

static void pass_chunk(int64_t begin, int64_t end, void *ctx)
{
    pass_job *j = ctx;
    const pt_fft_table *t = PT_CPU_KERNELS(fft, pt_fft_table);
    const size_t r = (size_t)j->real;
    const int64_t S = j->stride;
    /* in: the gathered input line, out: the line written, work: the plan's scratch */
    const int64_t in_cap = 2 * (j->kind == PT_FFT_R2C ? (j->in_len + 1) / 2 + 1 : j->in_len);
    const int64_t out_cap = 2 * (j->out_len + 1);
    char *buf = malloc(r * (size_t)(in_cap + out_cap + 2 * (j->plan->scratch + 1)));
    if (!buf) {
        atomic_store(&j->failed, 1);
        return;
    }
    char *in = buf, *out = buf + r * (size_t)in_cap, *work = out + r * (size_t)out_cap;
    /* bytes per element of the source and destination lines */
    const size_t ein = r * (j->kind == PT_FFT_R2C ? 1 : 2);
    const size_t eout = r * (j->kind == PT_FFT_C2R ? 1 : 2);
    for (int64_t L = begin; L < end; L++) {
        const int64_t o = L / S, i = L % S;
        char *src = j->src + ein * (size_t)(o * j->in_len * S + i);
        char *dst = j->dst + eout * (size_t)(o * j->out_len * S + i);
        const int64_t nin = j->kind == PT_FFT_C2R ? j->n / 2 + 1 : j->n;
        char *line = src;
        if (S != 1 || j->kind == PT_FFT_C2C) {
            /* c2c always works on a copy when S != 1; in place when the line is contiguous */
            if (S == 1) {
                line = src;
            } else {
                for (int64_t k = 0; k < nin; k++)
                    memcpy(in + ein * (size_t)k, src + ein * (size_t)(k * S), ein);
                line = in;
            }
        }
        char *res = (S == 1 && j->kind != PT_FFT_C2C) ? dst : out;
        if (j->kind == PT_FFT_C2C) res = line;
        if (r == 4) {
            const float sc = (float)j->scale;
            if (j->kind == PT_FFT_C2C)
                t->c2c_f4(j->plan, (float *)line, (float *)work, sc);
            else if (j->kind == PT_FFT_R2C)
                t->r2c_f4(j->plan, (const float *)line, (float *)res, (float *)work, sc);
            else
                t->c2r_f4(j->plan, (const float *)line, (float *)res, (float *)work, sc);
        } else {
            const double sc = j->scale;
            if (j->kind == PT_FFT_C2C)
                t->c2c_f8(j->plan, (double *)line, (double *)work, sc);
            else if (j->kind == PT_FFT_R2C)
                t->r2c_f8(j->plan, (const double *)line, (double *)res, (double *)work, sc);
            else
                t->c2r_f8(j->plan, (const double *)line, (double *)res, (double *)work, sc);
        }
        int64_t written = j->kind == PT_FFT_R2C ? j->n / 2 + 1 : j->n;
        if (j->full && j->kind == PT_FFT_R2C) {
            /* X_{n-k} = conj(X_k) for the bins above n/2 */
            for (int64_t k = written; k < j->n; k++) {
                if (r == 4) {
                    float *c = (float *)res;
                    c[2 * k] = c[2 * (j->n - k)];
                    c[2 * k + 1] = -c[2 * (j->n - k) + 1];
                } else {
                    double *c = (double *)res;
                    c[2 * k] = c[2 * (j->n - k)];
                    c[2 * k + 1] = -c[2 * (j->n - k) + 1];
                }
            }
            written = j->n;
        }
        if (res != dst) {
            if (S == 1)
                memcpy(dst, res, eout * (size_t)written);
            else
                for (int64_t k = 0; k < written; k++)
                    memcpy(dst + eout * (size_t)(k * S), res + eout * (size_t)k, eout);
        }
    }
    free(buf);
}

/* One pass along dim d: src (sizes `sizes`, contiguous) to dst (the same sizes but out_len at
 * d, contiguous); src == dst for c2c. */
static pt_status run_pass(const char *name, int kind, int32_t real, char *src, char *dst,
                          int32_t ndim, const int64_t *sizes, int32_t d, int64_t n,
                          int64_t out_len, bool full, double scale, int sign)
{
    int64_t outer = 1, S = 1;
    for (int32_t k = 0; k < d; k++) outer *= sizes[k];
    for (int32_t k = d + 1; k < ndim; k++) S *= sizes[k];
    const int64_t lines = outer * S;
    if (lines == 0 || n == 0) return PT_OK;
    const pt_fft_plan *plan;
    bool owned;
    PT_TRY(pt_fft_plan_get(n, (pt_fft_kind)kind, sign, real, &plan, &owned));
    pass_job j = {plan, kind, real, src, dst, n, sizes[d], out_len, S, full, scale, 0};
    const int64_t grain = n >= PT_FFT_GRAIN_POINTS ? 1 : (PT_FFT_GRAIN_POINTS + n - 1) / n;
    pt_parallel_for(lines, grain, pass_chunk, &j);
    if (owned) pt_fft_plan_free((pt_fft_plan *)plan);
    if (atomic_load(&j.failed))
        return PT_ERROR(PT_ERR_MEMORY, "%s: could not allocate the buffers of a %lld-point "
                        "transform", name, (long long)n);
    return PT_OK;
}

/* ---------------------------------------------------------------- argument checks */
static pt_status wrap_dims(const char *name, const pt_tensor *self, int32_t dim_len,
                           const int64_t *dim, int32_t *out)
{
    for (int32_t i = 0; i < dim_len; i++) {
        PT_TRY(pt_wrap_dim(dim[i], self->ndim, &out[i]));
        for (int32_t k = 0; k < i; k++)
            if (out[k] == out[i])
                return PT_ERROR(PT_ERR_RUNTIME, "%s: dim %lld appears more than once", name,
                                (long long)dim[i]);
    }
    return PT_OK;
}

static pt_status norm_scale(int64_t normalization, double signal_numel, double *scale)
{
    switch (normalization) {
    case 0: *scale = 1; return PT_OK;
    case 1: *scale = 1 / sqrt(signal_numel); return PT_OK;
    case 2: *scale = 1 / signal_numel; return PT_OK;
    default:
        return PT_ERROR(PT_ERR_RUNTIME, "Invalid normalization mode: %lld (expected 0 none, "
                        "1 by_root_n or 2 by_n)", (long long)normalization);
    }
}

static const char *legacy_name(int32_t dtype)
{
    const pt_dtype_info *d = pt_dtype_info_of(dtype);
    return d ? d->legacy_name : "?";
}

static pt_status check_dtype(const pt_tensor *self, bool complex)
{
    if (complex && !pt_is_complex(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "Only supports complex dtypes, but found: %s",
                        legacy_name(self->dtype));
    if (!complex && self->dtype != PT_FLOAT32 && self->dtype != PT_FLOAT64)
        return PT_ERROR(PT_ERR_RUNTIME, "Only supports floating-point dtypes, but found: %s",
                        legacy_name(self->dtype));
    if (self->device.type != PT_DEV_CPU && self->device.type != PT_DEV_META)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "fft: only CPU and meta tensors are supported");
    return PT_OK;
}

static int32_t real_size(int32_t dtype)
{
    return dtype == PT_COMPLEX64 || dtype == PT_FLOAT32 ? 4 : 8;
}

/* A contiguous copy of self with its math bits resolved, in dtype. */
static pt_status materialize(const pt_tensor *self, pt_tensor **out)
{
    pt_tensor *t;
    PT_TRY(pt_tensor_empty(self->ndim, self->sizes, self->dtype, self->device, &t));
    if (self->device.type == PT_DEV_CPU && self->numel) {
        const pt_status st = pt_tensor_copy_(t, self);
        if (st != PT_OK) {
            pt_tensor_release(t);
            return st;
        }
    }
    *out = t;
    return PT_OK;
}

/* c2c passes in place over `dims` (already wrapped) of the contiguous complex tensor t. */
static pt_status c2c_passes(const char *name, pt_tensor *t, int32_t nd, const int32_t *dims,
                            double scale, int sign)
{
    if (t->device.type != PT_DEV_CPU || t->numel == 0) return PT_OK;
    char *data = pt_tensor_data(t);
    for (int32_t i = nd - 1; i >= 0; i--) {
        const int32_t d = dims[i];
        PT_TRY(run_pass(name, PT_FFT_C2C, real_size(t->dtype), data, data, t->ndim, t->sizes, d,
                        t->sizes[d], t->sizes[d], false, i == nd - 1 ? scale : 1, sign));
    }
    return PT_OK;
}

/* The out= forms: the result computed anew, then out resized and written (torch's rules for
 * out tensors: same dtype, resized when its shape differs). */
static pt_status into_out(const char *name, pt_tensor *r, pt_tensor *out, pt_tensor **ret)
{
    pt_status st = PT_OK;
    if (out->dtype != r->dtype) {
        st = PT_ERROR(PT_ERR_RUNTIME, "%s: expected an out tensor of dtype %s, but got %s", name,
                      legacy_name(r->dtype), legacy_name(out->dtype));
    } else {
        const bool same = out->ndim == r->ndim &&
                          (r->ndim == 0 ||
                           !memcmp(out->sizes, r->sizes, sizeof(int64_t) * (size_t)r->ndim));
        if (!same) st = pt_tensor_resize_(out, r->ndim, r->sizes);
        if (st == PT_OK && r->numel && r->device.type == PT_DEV_CPU) st = pt_tensor_copy_(out, r);
    }
    pt_tensor_release(r);
    if (st != PT_OK) return st;
    pt_tensor_retain(out);
    *ret = out;
    return PT_OK;
}

/* ---------------------------------------------------------------- _fft_c2c */
pt_status pt_kernel__fft_c2c(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int64_t normalization, int32_t forward, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "_fft_c2c", "self"));
    PT_TRY(check_dtype(self, true));
    int32_t dims[PT_MAX_DIMS];
    if (dim_len > self->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "_fft_c2c: %d dims given for a tensor of %d dimensions",
                        (int)dim_len, (int)self->ndim);
    PT_TRY(wrap_dims("_fft_c2c", self, dim_len, dim, dims));
    double numel = 1, scale = 1;
    for (int32_t i = 0; i < dim_len; i++) numel *= (double)self->sizes[dims[i]];
    PT_TRY(norm_scale(normalization, numel, &scale));
    pt_tensor *r;
    PT_TRY(materialize(self, &r));
    const pt_status st = c2c_passes("_fft_c2c", r, dim_len, dims, scale, forward ? -1 : 1);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_kernel__fft_c2c_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                 int64_t normalization, int32_t forward, pt_tensor *out,
                                 pt_tensor **ret)
{
    pt_tensor *r;
    PT_TRY(pt_kernel__fft_c2c(self, dim_len, dim, normalization, forward, &r));
    return into_out("_fft_c2c", r, out, ret);
}

/* ---------------------------------------------------------------- _fft_r2c */
pt_status pt_kernel__fft_r2c(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int64_t normalization, int32_t onesided, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "_fft_r2c", "self"));
    PT_TRY(check_dtype(self, false));
    if (dim_len < 1 || dim_len > self->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "_fft_r2c: expected between 1 and %d dims, got %d",
                        (int)self->ndim, (int)dim_len);
    int32_t dims[PT_MAX_DIMS];
    PT_TRY(wrap_dims("_fft_r2c", self, dim_len, dim, dims));
    double numel = 1, scale = 1;
    for (int32_t i = 0; i < dim_len; i++) numel *= (double)self->sizes[dims[i]];
    PT_TRY(norm_scale(normalization, numel, &scale));
    const int32_t last = dims[dim_len - 1];
    const int64_t n = self->sizes[last];
    int64_t sizes[PT_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    sizes[last] = onesided ? n / 2 + 1 : n;
    const int32_t cdtype = self->dtype == PT_FLOAT32 ? PT_COMPLEX64 : PT_COMPLEX128;
    pt_tensor *r, *x = NULL;
    PT_TRY(pt_tensor_empty(self->ndim, sizes, cdtype, self->device, &r));
    pt_status st = PT_OK;
    if (self->device.type == PT_DEV_CPU && self->numel) {
        st = materialize(self, &x);
        if (st == PT_OK)
            st = run_pass("_fft_r2c", PT_FFT_R2C, real_size(self->dtype), pt_tensor_data(x),
                          pt_tensor_data(r), self->ndim, self->sizes, last, n, sizes[last],
                          !onesided, scale, -1);
        if (st == PT_OK) st = c2c_passes("_fft_r2c", r, dim_len - 1, dims, 1, -1);
    }
    if (x) pt_tensor_release(x);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_kernel__fft_r2c_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                 int64_t normalization, int32_t onesided, pt_tensor *out,
                                 pt_tensor **ret)
{
    pt_tensor *r;
    PT_TRY(pt_kernel__fft_r2c(self, dim_len, dim, normalization, onesided, &r));
    return into_out("_fft_r2c", r, out, ret);
}

/* ---------------------------------------------------------------- _fft_c2r */
pt_status pt_kernel__fft_c2r(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                             int64_t normalization, int64_t last_dim_size, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "_fft_c2r", "self"));
    PT_TRY(check_dtype(self, true));
    if (dim_len < 1 || dim_len > self->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "_fft_c2r: expected between 1 and %d dims, got %d",
                        (int)self->ndim, (int)dim_len);
    int32_t dims[PT_MAX_DIMS];
    PT_TRY(wrap_dims("_fft_c2r", self, dim_len, dim, dims));
    const int32_t last = dims[dim_len - 1];
    if (last_dim_size < 1)
        return PT_ERROR(PT_ERR_RUNTIME, "Invalid number of data points (%lld) specified",
                        (long long)last_dim_size);
    if (self->sizes[last] < last_dim_size / 2 + 1)
        return PT_ERROR(PT_ERR_RUNTIME, "_fft_c2r: an output of %lld points along dim %d needs "
                        "%lld input elements there, got %lld", (long long)last_dim_size,
                        (int)last, (long long)(last_dim_size / 2 + 1),
                        (long long)self->sizes[last]);
    int64_t sizes[PT_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    sizes[last] = last_dim_size;
    double numel = 1, scale = 1;
    for (int32_t i = 0; i < dim_len; i++) numel *= (double)sizes[dims[i]];
    PT_TRY(norm_scale(normalization, numel, &scale));
    const int32_t rdtype = self->dtype == PT_COMPLEX64 ? PT_FLOAT32 : PT_FLOAT64;
    pt_tensor *r, *x = NULL;
    PT_TRY(pt_tensor_empty(self->ndim, sizes, rdtype, self->device, &r));
    pt_status st = PT_OK;
    if (self->device.type == PT_DEV_CPU && r->numel) {
        st = materialize(self, &x);
        /* the c2c passes first, on the input's copy, with the scale; the c2r pass last */
        if (st == PT_OK) st = c2c_passes("_fft_c2r", x, dim_len - 1, dims, scale, 1);
        if (st == PT_OK)
            st = run_pass("_fft_c2r", PT_FFT_C2R, real_size(self->dtype), pt_tensor_data(x),
                          pt_tensor_data(r), self->ndim, x->sizes, last, last_dim_size,
                          last_dim_size, false, dim_len == 1 ? scale : 1, 1);
    }
    if (x) pt_tensor_release(x);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_kernel__fft_c2r_out(const pt_tensor *self, int32_t dim_len, const int64_t *dim,
                                 int64_t normalization, int64_t last_dim_size, pt_tensor *out,
                                 pt_tensor **ret)
{
    pt_tensor *r;
    PT_TRY(pt_kernel__fft_c2r(self, dim_len, dim, normalization, last_dim_size, &r));
    return into_out("_fft_c2r", r, out, ret);
}
