/* pool_fractional.c - fractional max pooling (fractional_max_pool2d/3d) and its backward
 * operators: torch's checks and messages, the forward loop, and the backward through the max
 * pools' scatter by index (pool.h).
 *
 * Fractional max pooling (Graham, 2014) pools windows of a fixed size P whose starts advance by
 * a non-integer step alpha = (I - P) / (O - 1) along a dim of input size I and output size O,
 * shifted by a sample u of [0, 1) drawn per plane and dim (the operator takes the samples as a
 * tensor of (N, C, nd); nn.functional draws them). Output i starts at
 * trunc((i + u) alpha) - trunc(u alpha), the last one at I - P. The starts are computed in the
 * input's dtype, each step rounded to it as torch's CPU kernel does (so float16 and bfloat16
 * round at every operation), and the window's maximum is taken with torch's rule: the first
 * largest value, a nan beating everything. Indices are flat within a plane, (d * H + h) * W + w.
 * Results are planar-contiguous whatever the input's layout, as torch's. A 2-d pool reads its
 * samples as (w, h), a 3-d one as (t, h, w). Starts outside the input (only from samples outside
 * [0, 1)) are clamped into it rather than read out of bounds.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "iter.h"
#include "pool.h"
#include "pt_ops_internal.h"

typedef struct frac_job {
    int32_t rounding;       /* the input's dtype: every interval step is rounded to it */
    bool f64;               /* loops in double, else float */
    int64_t in[3], out[3], k[3];
    int32_t sample_of[3];   /* which of a plane's samples each of D, H, W reads; -1: none */
    int32_t nsamples;
    const void *input;
    const float *samples32; /* float32 samples (float32, float16, bfloat16 inputs) */
    const double *samples64;
    void *output;
    int64_t *indices;
} frac_job;

/* v rounded to dtype (float32, float16, bfloat16; float64 unchanged). */
static double round_to(int32_t dtype, double v)
{
    switch (dtype) {
    case PT_FLOAT32: return (float)v;
    case PT_FLOAT16: return pt_half_to_float(pt_float_to_half((float)v));
    case PT_BFLOAT16: return pt_bfloat16_to_float(pt_float_to_bfloat16((float)v));
    default: return v;
    }
}

/* a + b, a * b, a / b of two values of dtype as its arithmetic gives them: in double for
 * float64, else in float (float16 and bfloat16 compute in float) rounded to dtype. */
static double add_in(int32_t dtype, double a, double b)
{
    return dtype == PT_FLOAT64 ? a + b : round_to(dtype, (float)a + (float)b);
}

static double mul_in(int32_t dtype, double a, double b)
{
    return dtype == PT_FLOAT64 ? a * b : round_to(dtype, (float)a * (float)b);
}

static double div_in(int32_t dtype, double a, double b)
{
    return dtype == PT_FLOAT64 ? a / b : round_to(dtype, (float)a / (float)b);
}

static int64_t trunc_int(double v)
{
    if (!(v > (double)INT_MIN)) return INT_MIN; /* nan too */
    if (v >= (double)INT_MAX) return INT_MAX;
    return (int64_t)v;
}

/* Window start of output i along a dim (alpha and u already rounded to the dtype). */
static int64_t frac_start(int32_t dtype, double u, double alpha, int64_t i, int64_t in,
                          int64_t out, int64_t k)
{
    if (i == out - 1) return in - k;
    const double a = mul_in(dtype, add_in(dtype, round_to(dtype, (double)i), u), alpha);
    const double b = mul_in(dtype, u, alpha);
    int64_t s = trunc_int(a) - trunc_int(b);
    if (s > in - k) s = in - k;
    return s < 0 ? 0 : s;
}

#define FRAC_LOOP(T)                                                                               \
    do {                                                                                           \
        const T *ip = (const T *)j->input + pl * iplane;                                           \
        T *op = (T *)j->output + pl * oplane;                                                      \
        int64_t *xp = j->indices + pl * oplane, o = 0;                                             \
        for (int64_t od = 0; od < j->out[0]; od++) {                                               \
            const int64_t d0 = frac_start(r, u[0], alpha[0], od, j->in[0], j->out[0], j->k[0]);    \
            for (int64_t oh = 0; oh < j->out[1]; oh++) {                                           \
                const int64_t h0 = frac_start(r, u[1], alpha[1], oh, j->in[1], j->out[1],          \
                                              j->k[1]);                                            \
                for (int64_t ow = 0; ow < j->out[2]; ow++, o++) {                                  \
                    const int64_t w0 = frac_start(r, u[2], alpha[2], ow, j->in[2], j->out[2],      \
                                                  j->k[2]);                                        \
                    T m = -(T)INFINITY;                                                            \
                    int64_t mi = (d0 * IH + h0) * IW + w0;                                         \
                    for (int64_t d = d0; d < d0 + j->k[0] && d < j->in[0]; d++)                    \
                        for (int64_t h = h0; h < h0 + j->k[1] && h < IH; h++)                      \
                            for (int64_t w = w0; w < w0 + j->k[2] && w < IW; w++) {                \
                                const int64_t at = (d * IH + h) * IW + w;                          \
                                const T v = ip[at];                                                \
                                if (v > m || isnan(v)) {                                           \
                                    m = v;                                                         \
                                    mi = at;                                                       \
                                }                                                                  \
                            }                                                                      \
                    op[o] = m;                                                                     \
                    xp[o] = mi;                                                                    \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* begin/end: planes n * C + c. */
static void frac_range(int64_t begin, int64_t end, void *arg)
{
    const frac_job *j = arg;
    const int32_t r = j->rounding;
    const int64_t IH = j->in[1], IW = j->in[2];
    const int64_t iplane = j->in[0] * IH * IW, oplane = j->out[0] * j->out[1] * j->out[2];
    for (int64_t pl = begin; pl < end; pl++) {
        double u[3] = {0, 0, 0}, alpha[3] = {0, 0, 0};
        for (int i = 0; i < 3; i++) {
            const int32_t s = j->sample_of[i];
            if (s < 0) continue;
            const int64_t at = pl * j->nsamples + s;
            u[i] = j->f64 ? j->samples64[at] : (double)j->samples32[at];
            if (j->out[i] > 1)
                alpha[i] = div_in(r, round_to(r, (double)(j->in[i] - j->k[i])),
                                  round_to(r, (double)(j->out[i] - 1)));
        }
        if (j->f64) FRAC_LOOP(double);
        else FRAC_LOOP(float);
    }
}

/* ---------------------------------------------------------------- checks */

typedef struct frac_spec {
    const char *name;   /* "fractional_max_pool2d" */
    const char *front;  /* torch's prefix of the shape messages */
    int32_t nd;
} frac_spec;

static const frac_spec FRAC2 = {"fractional_max_pool2d", "fractional_max_pool2d()", 2};
static const frac_spec FRAC3 = {"fractional_max_pool3d", "fractional_max_pool3d_out()", 3};

static pt_status check_input(const frac_spec *sp, const pt_tensor *self, const int64_t *k,
                             const int64_t *out)
{
    char buf[256];
    const int32_t nd = sp->nd, ndim = self->ndim;
    if (ndim != nd + 1 && ndim != nd + 2)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: Expected %s tensor, but got: %s", sp->front,
                        nd == 2 ? "3D or 4D" : "4D or 5D",
                        pt_pool_sizes_str(buf, sizeof buf, ndim, self->sizes));
    for (int32_t i = 1; i < ndim; i++)
        if (self->sizes[i] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: Expected input to have non-zero size for "
                            "non-batch dimensions, but got%s with dimension %d being empty.",
                            sp->front, pt_pool_sizes_str(buf, sizeof buf, ndim, self->sizes), i);
    static const char *const dims[3] = {"time", "height", "width"};
    for (int32_t i = 0; i < nd; i++) {
        const int64_t in = self->sizes[ndim - nd + i];
        if (out[i] + k[i] - 1 > in)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: pool %s %lld too large relative to input %s %lld",
                            sp->front, dims[3 - nd + i], (long long)k[i], dims[3 - nd + i],
                            (long long)in);
    }
    int64_t sizes[5];
    for (int32_t i = 0; i < ndim - nd; i++) sizes[i] = self->sizes[i];
    for (int32_t i = 0; i < nd; i++) sizes[ndim - nd + i] = out[i];
    for (int32_t i = 0; i < nd; i++)
        if (out[i] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: "
                            "%s", (long long)out[i], pt_pool_sizes_str(buf, sizeof buf, ndim,
                                                                        sizes));
    return PT_OK;
}

/* torch's fractional_max_pool_check_shape. */
static pt_status check_samples(const frac_spec *sp, const pt_tensor *self, const pt_tensor *rs)
{
    if (rs->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Expect _random_samples to have the same dtype as input");
    if (rs->ndim != 3)
        return PT_ERROR(PT_ERR_RUNTIME, "Expect _random_samples to have 3 dimensions, got %d",
                        rs->ndim);
    const bool batched = self->ndim == sp->nd + 2;
    const int64_t batch = batched ? self->sizes[0] : 1, channels = self->sizes[batched ? 1 : 0];
    if (rs->sizes[0] < batch)
        return PT_ERROR(PT_ERR_RUNTIME, "Expect _random_samples.size(0) no less then input batch "
                        "size.");
    if (rs->sizes[1] != channels)
        return PT_ERROR(PT_ERR_RUNTIME, "Expect _random_samples.size(1) equals to input channel "
                        "size.");
    if (rs->sizes[2] != sp->nd)
        return PT_ERROR(PT_ERR_RUNTIME, "Expect _random_samples.size(2) equals to %d; got %lld.",
                        sp->nd, (long long)rs->sizes[2]);
    return PT_OK;
}

static pt_status check_lens(const frac_spec *sp, int32_t k_len, int32_t o_len)
{
    const char *what = sp->nd == 2 ? "Ints" : "three Ints";
    if (k_len != sp->nd)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: kernel_size must either be a single Int or tuple of "
                        "%s", sp->name, what);
    if (o_len != sp->nd)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: output_size must either be a single Int or tuple of "
                        "%s", sp->name, what);
    return PT_OK;
}

/* The geometry of a fractional pool of self as a 3-d pool (a 2-d one has depth 1). */
static void frac_geom(const frac_spec *sp, const pt_tensor *self, const int64_t *k,
                      const int64_t *out, pt_pool_geom *g, int64_t sizes[5])
{
    const int32_t nd = sp->nd, ndim = self->ndim;
    memset(g, 0, sizeof *g);
    g->batch = ndim == nd + 2 ? self->sizes[0] : 1;
    g->channels = self->sizes[ndim - nd - 1];
    for (int i = 0; i < 3; i++) g->in[i] = g->out[i] = g->k[i] = g->s[i] = g->d[i] = 1;
    for (int32_t i = 0; i < ndim - nd; i++) sizes[i] = self->sizes[i];
    for (int32_t i = 0; i < nd; i++) {
        g->in[3 - nd + i] = self->sizes[ndim - nd + i];
        g->out[3 - nd + i] = sizes[ndim - nd + i] = out[i];
        g->k[3 - nd + i] = k[i];
    }
}

/* ---------------------------------------------------------------- forward */

/* A new reference to t in dtype (t itself when it has it). */
static pt_status as_dtype(const pt_tensor *t, int32_t dtype, pt_tensor **out)
{
    if (t->dtype == dtype) {
        pt_tensor_retain((pt_tensor *)t);
        *out = (pt_tensor *)t;
        return PT_OK;
    }
    return pt_tensor_to(t, dtype, t->device, 0, out);
}

static pt_status frac_forward(const frac_spec *sp, const pt_tensor *self, int32_t k_len,
                              const int64_t *k, int32_t o_len, const int64_t *out,
                              const pt_tensor *samples, pt_tensor **ret0, pt_tensor **ret1)
{
    PT_TRY(check_lens(sp, k_len, o_len));
    PT_TRY(check_input(sp, self, k, out));
    PT_TRY(check_samples(sp, self, samples));
    char name[64];
    snprintf(name, sizeof name, "%s_out_frame", sp->name);
    const int32_t compute = pt_pool_compute_dtype(name, self->dtype, PT_POOL_ACCEPT_HALF);
    if (compute < 0) return PT_ERR_NOT_IMPLEMENTED;
    pt_pool_geom g;
    int64_t sizes[5];
    frac_geom(sp, self, k, out, &g, sizes);
    const int32_t ndim = self->ndim;
    pt_tensor *o = NULL, *idx = NULL, *conv = NULL, *in = NULL, *sconv = NULL, *s = NULL;
    pt_status st = pt_tensor_empty(ndim, sizes, compute, self->device, &o);
    if (st == PT_OK) st = pt_tensor_empty(ndim, sizes, PT_INT64, self->device, &idx);
    if (st == PT_OK && self->device.type == PT_DEV_CPU && o->numel > 0) {
        st = as_dtype(self, compute, &conv);
        if (st == PT_OK) st = pt_pool_dense(conv, false, sp->nd, &in);
        if (st == PT_OK) st = as_dtype(samples, compute, &sconv);
        if (st == PT_OK) st = pt_pool_dense(sconv, false, sp->nd, &s);
        if (st == PT_OK) {
            frac_job j = {self->dtype, compute == PT_FLOAT64, {0}, {0}, {0},
                          {sp->nd == 3 ? 0 : -1, 1, sp->nd == 3 ? 2 : 0}, sp->nd,
                          pt_tensor_data(in), NULL, NULL, pt_tensor_data(o),
                          pt_tensor_data(idx)};
            memcpy(j.in, g.in, sizeof j.in);
            memcpy(j.out, g.out, sizeof j.out);
            memcpy(j.k, g.k, sizeof j.k);
            if (j.f64) j.samples64 = pt_tensor_data(s);
            else j.samples32 = pt_tensor_data(s);
            const int64_t kvol = g.k[0] * g.k[1] * g.k[2] > 0 ? g.k[0] * g.k[1] * g.k[2] : 1;
            const int64_t work = g.out[0] * g.out[1] * g.out[2] * (kvol + 4);
            pt_parallel_for(g.batch * g.channels, (PT_GRAIN + work - 1) / work, frac_range, &j);
        }
    }
    if (st == PT_OK && compute != self->dtype) {
        pt_tensor *r = NULL;
        st = pt_tensor_to(o, self->dtype, o->device, 0, &r);
        pt_tensor_release(o);
        o = r;
    }
    if (conv) pt_tensor_release(conv);
    if (in) pt_tensor_release(in);
    if (sconv) pt_tensor_release(sconv);
    if (s) pt_tensor_release(s);
    if (st != PT_OK) {
        if (o) pt_tensor_release(o);
        if (idx) pt_tensor_release(idx);
        return st;
    }
    *ret0 = o;
    *ret1 = idx;
    return PT_OK;
}

/* ---------------------------------------------------------------- backward */

static pt_status frac_backward(const frac_spec *sp, const pt_tensor *grad_output,
                               const pt_tensor *self, int32_t k_len, const int64_t *k,
                               int32_t o_len, const int64_t *out, const pt_tensor *indices,
                               pt_tensor **ret)
{
    PT_TRY(check_lens(sp, k_len, o_len));
    char a[256];
    const int32_t nd = sp->nd, ndim = self->ndim;
    if (ndim != nd + 1 && ndim != nd + 2)
        return PT_ERROR(PT_ERR_RUNTIME, "%s_backward: Expected %s tensor, but got: %s", sp->name,
                        nd == 2 ? "3D or 4D" : "4D or 5D",
                        pt_pool_sizes_str(a, sizeof a, ndim, self->sizes));
    pt_pool_geom g;
    int64_t sizes[5];
    frac_geom(sp, self, k, out, &g, sizes);
    if (nd == 2) {
        if (grad_output->ndim != ndim ||
            memcmp(grad_output->sizes, sizes, sizeof(int64_t) * (size_t)ndim) != 0)
            return PT_ERROR(PT_ERR_RUNTIME, "fractional_max_pool2d_backward(): gradOutput sizes "
                            "unexpected");
    } else {
        static const char *const dims[3] = {"time", "height", "width"};
        if (grad_output->ndim != ndim)
            return PT_ERROR(PT_ERR_RUNTIME, "fractional_max_pool3d_backward_out(): gradOutput "
                            "sizes unexpected");
        for (int32_t i = 2; i >= 0; i--)
            if (grad_output->sizes[ndim - 3 + i] != out[i])
                return PT_ERROR(PT_ERR_RUNTIME, "fractional_max_pool3d_backward_out(): gradOutput "
                                "%s unexpected", dims[i]);
        for (int32_t i = 0; i < ndim - 3; i++)
            if (grad_output->sizes[i] != self->sizes[i])
                return PT_ERROR(PT_ERR_RUNTIME, "fractional_max_pool3d_backward_out(): gradOutput "
                                "sizes unexpected");
    }
    if (indices->ndim != ndim ||
        memcmp(indices->sizes, sizes, sizeof(int64_t) * (size_t)ndim) != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s_backward: indices of sizes %s do not match the output",
                        sp->name, pt_pool_sizes_str(a, sizeof a, indices->ndim, indices->sizes));
    if (indices->dtype != PT_INT64)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type Long but found %s",
                        pt_iter_type_name(indices->dtype));
    if (grad_output->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(self->dtype), pt_iter_type_name(grad_output->dtype));
    char name[64];
    snprintf(name, sizeof name, "%s_backward_out_frame", sp->name);
    return pt_pool_backward_run(name, nd, PT_POOL_MAX, &g, false, grad_output, self, indices, ret);
}

/* ---------------------------------------------------------------- entry points */

pt_status pt_kernel_fractional_max_pool2d(const pt_tensor *self, int32_t kernel_size_len,
                                          const int64_t *kernel_size, int32_t output_size_len,
                                          const int64_t *output_size,
                                          const pt_tensor *random_samples, pt_tensor **ret0,
                                          pt_tensor **ret1)
{
    return frac_forward(&FRAC2, self, kernel_size_len, kernel_size, output_size_len, output_size,
                        random_samples, ret0, ret1);
}

pt_status pt_kernel_fractional_max_pool3d(const pt_tensor *self, int32_t kernel_size_len,
                                          const int64_t *kernel_size, int32_t output_size_len,
                                          const int64_t *output_size,
                                          const pt_tensor *random_samples, pt_tensor **ret0,
                                          pt_tensor **ret1)
{
    return frac_forward(&FRAC3, self, kernel_size_len, kernel_size, output_size_len, output_size,
                        random_samples, ret0, ret1);
}

pt_status pt_kernel_fractional_max_pool2d_backward(const pt_tensor *grad_output,
                                                   const pt_tensor *self, int32_t kernel_size_len,
                                                   const int64_t *kernel_size,
                                                   int32_t output_size_len,
                                                   const int64_t *output_size,
                                                   const pt_tensor *indices, pt_tensor **ret)
{
    return frac_backward(&FRAC2, grad_output, self, kernel_size_len, kernel_size,
                         output_size_len, output_size, indices, ret);
}

pt_status pt_kernel_fractional_max_pool3d_backward(const pt_tensor *grad_output,
                                                   const pt_tensor *self, int32_t kernel_size_len,
                                                   const int64_t *kernel_size,
                                                   int32_t output_size_len,
                                                   const int64_t *output_size,
                                                   const pt_tensor *indices, pt_tensor **ret)
{
    return frac_backward(&FRAC3, grad_output, self, kernel_size_len, kernel_size,
                         output_size_len, output_size, indices, ret);
}
