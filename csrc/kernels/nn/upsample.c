/* upsample.c - interpolation of (N, C, spatial...) tensors: upsample_nearest{1,2,3}d,
 * _upsample_nearest_exact{1,2,3}d, upsample_linear1d, upsample_bilinear2d, upsample_bicubic2d,
 * upsample_trilinear3d, _upsample_bilinear2d_aa and _upsample_bicubic2d_aa, each with its backward
 * kernel and the .vec overload (output size or scale factors) that F.interpolate calls.
 *
 * Every mode is separable: per spatial dim, each output index reads a few input indices with
 * weights (Note [upsampling source indices]). This file builds those tables, in the tensors'
 * dtype as torch computes them, checks shapes with torch's messages, allocates results in the
 * input's memory format and splits the work; the sums are cpu/nn_sample_kernels.c's.
 *
 * Note [upsampling source indices]
 * torch's formulas, kept to the letter so that results agree to rounding (UpSample.h):
 *   - scale: align_corners ? (in - 1) / (out - 1) (0 for out == 1) : the given scale's inverse
 *     when it is positive, else in / out; nearest modes always use the latter, in float32;
 *   - nearest: floor(o * scale), clamped; torch's 2-d kernels and every nearest backward
 *     kernel take o itself when out == in and o / 2 when out == 2 * in, whatever the scale
 *     given, while its 1-d and 3-d forward kernels apply the scale (so with a scale factor that
 *     leaves a size unchanged or doubles it, torch's 1-d and 3-d backward is not the adjoint of
 *     its forward; pytensor keeps both as torch has them);
 *     nearest-exact: floor((o + 0.5) * scale), clamped;
 *   - linear: src = align_corners ? o * scale : max(scale * (o + 0.5) - 0.5, 0), taps floor(src)
 *     and the next one (or the same at the last index) with weights 1 - l, l, l = src - floor;
 *     the identity when out == in;
 *   - cubic: src as linear but not clamped at 0, four taps floor(src) - 1 .. + 2 clamped to the
 *     input, weights from Keys' kernel with A = -0.75;
 *   - antialias: a triangle (bilinear) or Keys' A = -0.5 (bicubic) filter stretched by the scale
 *     when downsampling, over the inputs within its support around the output's center, the
 *     weights normalized to sum 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "native.h"
#include "nn/nn_sample.h"

PT_CPU_STUB(nn_sample, pt_nn_sample_table, "upsampling and grid sampling loops (float32, float64)")

enum { NEAREST = 0, NEAREST_EXACT = 1, LINEAR = 2, CUBIC = 3, AA_LINEAR = 4, AA_CUBIC = 5 };

static const char *const table_kernel_names[] = {
    "compute_indices_weights_nearest", "compute_indices_weights_nearest",
    "compute_indices_weights_linear", "compute_indices_weights_cubic",
    "compute_index_ranges_weights", "compute_index_ranges_weights"};

/* ---------------------------------------------------------------- index and weight tables */

static float scale_f(int64_t in, int64_t out, const double *scale)
{
    return scale && *scale > 0 ? (float)(1.0 / *scale) : (float)in / (float)out;
}

/* shortcut: out == in and out == 2 * in taken exactly, whatever the scale given (Note
 * [upsampling source indices]). */
static int64_t nearest_index(int interp, int64_t o, int64_t in, int64_t out, const double *scale,
                             int shortcut)
{
    int64_t i;
    if (interp == NEAREST) {
        if (shortcut && out == in) return o;
        if (shortcut && out == 2 * in) return o >> 1;
        i = (int64_t)floorf((float)o * scale_f(in, out, scale));
    } else {
        i = (int64_t)floorf((float)(((double)o + 0.5) * (double)scale_f(in, out, scale)));
    }
    return i < in - 1 ? i : in - 1;
}

static float aa_filter_linear(float x)
{
    x = x < 0 ? -x : x;
    return x < 1 ? 1 - x : 0;
}

static float aa_filter_cubic(float x)
{
    const float a = -0.5f;
    x = x < 0 ? -x : x;
    if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
    return 0;
}

static double aa_filter_linear_d(double x)
{
    x = x < 0 ? -x : x;
    return x < 1 ? 1 - x : 0;
}

static double aa_filter_cubic_d(double x)
{
    const double a = -0.5;
    x = x < 0 ? -x : x;
    if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
    return 0;
}

/* The taps each interpolation reads per output index (antialias: its widest support). */
#define TABLE_BUILDER(SUF, T, AAF_LINEAR, AAF_CUBIC)                                               \
    static T area_scale_##SUF(int64_t in, int64_t out, int ac, const double *scale)                \
    {                                                                                              \
        if (ac) return out > 1 ? (T)(in - 1) / (T)(out - 1) : (T)0;                                \
        return scale && *scale > 0 ? (T)(1.0 / *scale) : (T)in / (T)out;                           \
    }                                                                                              \
    static T source_index_##SUF(T scale, int64_t o, int ac, int cubic)                             \
    {                                                                                              \
        if (ac) return scale * (T)o;                                                               \
        const T src = scale * ((T)o + (T)0.5) - (T)0.5;                                            \
        return !cubic && src < 0 ? (T)0 : src;                                                     \
    }                                                                                              \
    static void guard_##SUF(T real, int64_t in, int64_t *i, T *l)                                  \
    {                                                                                              \
        const int64_t f = (int64_t)floorf((float)real);                                            \
        *i = f < in - 1 ? f : in - 1;                                                              \
        const T d = real - (T)*i;                                                                  \
        *l = d < 0 ? (T)0 : d > 1 ? (T)1 : d;                                                      \
    }                                                                                              \
    static int32_t taps_##SUF(int interp, int64_t in, int64_t out, int ac, const double *scale)    \
    {                                                                                              \
        if (interp == NEAREST || interp == NEAREST_EXACT) return 1;                                \
        if (interp == LINEAR) return 2;                                                            \
        if (interp == CUBIC) return 4;                                                             \
        const T s = area_scale_##SUF(in, out, ac, scale);                                          \
        const T half = interp == AA_LINEAR ? (T)1 : (T)2;                                          \
        const T support = s >= 1 ? half * s : half;                                                \
        return (int32_t)ceil((double)support) * 2 + 1;                                             \
    }                                                                                              \
    static void fill_##SUF(int interp, int64_t in, int64_t out, int ac, const double *scale,       \
                           int shortcut, int32_t k, int64_t *idx, T *w)                            \
    {                                                                                              \
        const T s = area_scale_##SUF(in, out, ac, scale);                                          \
        for (int64_t o = 0; o < out; o++) {                                                        \
            int64_t *io = idx + o * k;                                                             \
            T *wo = w + o * k;                                                                     \
            if (interp == NEAREST || interp == NEAREST_EXACT) {                                    \
                io[0] = nearest_index(interp, o, in, out, scale, shortcut);                        \
                wo[0] = 1;                                                                         \
            } else if (interp == LINEAR) {                                                         \
                if (out == in) {                                                                   \
                    io[0] = io[1] = o;                                                             \
                    wo[0] = 1;                                                                     \
                    wo[1] = 0;                                                                     \
                    continue;                                                                      \
                }                                                                                  \
                T l;                                                                               \
                guard_##SUF(source_index_##SUF(s, o, ac, 0), in, &io[0], &l);                      \
                io[1] = io[0] + (io[0] < in - 1 ? 1 : 0);                                          \
                wo[0] = (T)1 - l;                                                                  \
                wo[1] = l;                                                                         \
            } else if (interp == CUBIC) {                                                          \
                int64_t i;                                                                         \
                T t;                                                                               \
                guard_##SUF(source_index_##SUF(s, o, ac, 1), in, &i, &t);                          \
                const T A = (T)-0.75;                                                              \
                T x = t + 1;                                                                       \
                wo[0] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;                                 \
                wo[1] = ((A + 2) * t - (A + 3)) * t * t + 1;                                       \
                x = 1 - t;                                                                         \
                wo[2] = ((A + 2) * x - (A + 3)) * x * x + 1;                                       \
                x = x + 1;                                                                         \
                wo[3] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;                                 \
                for (int j = 0; j < 4; j++) {                                                      \
                    const int64_t v = i - 1 + j;                                                   \
                    io[j] = v < 0 ? 0 : v > in - 1 ? in - 1 : v;                                   \
                }                                                                                  \
            } else {                                                                               \
                const T half = interp == AA_LINEAR ? (T)1 : (T)2;                                  \
                const T support = s >= 1 ? half * s : half;                                        \
                const T center = (T)((double)s * ((double)o + 0.5));                               \
                const T inv = s >= 1 ? (T)1 / s : (T)1;                                            \
                int64_t lo = (int64_t)((double)(center - support) + 0.5);                          \
                lo = lo > 0 ? lo : 0;                                                              \
                int64_t hi = (int64_t)((double)(center + support) + 0.5);                          \
                int64_t n = (hi < in ? hi : in) - lo;                                              \
                n = n < 0 ? 0 : n > k ? k : n;                                                     \
                T total = 0;                                                                       \
                for (int64_t j = 0; j < n; j++) {                                                  \
                    const T x = (T)(((double)((T)(j + lo) - center) + 0.5) * (double)inv);         \
                    wo[j] = interp == AA_LINEAR ? AAF_LINEAR(x) : AAF_CUBIC(x);                    \
                    total += wo[j];                                                                \
                    io[j] = j + lo;                                                                \
                }                                                                                  \
                if (total != 0)                                                                    \
                    for (int64_t j = 0; j < n; j++) wo[j] /= total;                                \
                for (int64_t j = n; j < k; j++) {                                                  \
                    io[j] = lo < in ? lo : in - 1;                                                 \
                    wo[j] = 0;                                                                     \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

TABLE_BUILDER(f4, float, aa_filter_linear, aa_filter_cubic)
TABLE_BUILDER(f8, double, aa_filter_linear_d, aa_filter_cubic_d)

/* ---------------------------------------------------------------- the job */

typedef struct up_job {
    pt_upsample_args a;
    int64_t *idx[PT_SAMPLE_MAX_DIMS];
    void *w[PT_SAMPLE_MAX_DIMS];
    int32_t f64, backward;
} up_job;

static void up_job_free(up_job *j)
{
    for (int d = 0; d < PT_SAMPLE_MAX_DIMS; d++) {
        free(j->idx[d]);
        free(j->w[d]);
    }
}

static void run_units(int64_t begin, int64_t end, void *arg)
{
    const up_job *j = arg;
    const pt_nn_sample_table *t = PT_CPU_KERNELS(nn_sample, pt_nn_sample_table);
    if (j->backward) t->upsample_bwd[j->f64](&j->a, begin, end);
    else t->upsample_fwd[j->f64](&j->a, begin, end);
}

/* Fills the tables and strides of j for in/out sizes (nd real spatial dims, the first
 * 3 - nd made trivial) and runs it. src/dst: forward input/output, backward grad_output /
 * grad_input. */
static pt_status up_run(int interp, int32_t nd, int ac, const double *const *scales,
                        const pt_tensor *src, pt_tensor *dst, int backward, const int64_t *in_sp,
                        const int64_t *out_sp)
{
    up_job j;
    memset(&j, 0, sizeof j);
    j.f64 = dst->dtype == PT_FLOAT64;
    j.backward = backward;
    pt_upsample_args *a = &j.a;
    a->src = pt_tensor_data(src);
    a->dst = pt_tensor_data(dst);
    a->n = dst->sizes[0];
    a->c = dst->sizes[1];
    a->nd = PT_SAMPLE_MAX_DIMS;
    const size_t wsz = j.f64 ? sizeof(double) : sizeof(float);
    const int shortcut = backward || nd == 2; /* Note [upsampling source indices] */
    pt_status st = PT_OK;
    for (int32_t d = 0; d < 2; d++) {
        a->src_s[d] = src->strides[d];
        a->dst_s[d] = dst->strides[d];
    }
    for (int32_t d = 0; d < PT_SAMPLE_MAX_DIMS && st == PT_OK; d++) {
        const int32_t r = d - (PT_SAMPLE_MAX_DIMS - nd); /* real spatial dim, < 0: trivial */
        const int64_t in = r < 0 ? 1 : in_sp[r], out = r < 0 ? 1 : out_sp[r];
        const double *sc = r < 0 ? NULL : scales[r];
        const int it = r < 0 ? NEAREST : interp;
        const int32_t k = j.f64 ? taps_f8(it, in, out, ac, sc) : taps_f4(it, in, out, ac, sc);
        j.idx[d] = malloc(sizeof(int64_t) * (size_t)(out * k));
        j.w[d] = malloc(wsz * (size_t)(out * k));
        if (!j.idx[d] || !j.w[d]) {
            st = PT_ERROR(PT_ERR_MEMORY, "upsampling: could not allocate index tables");
            break;
        }
        if (j.f64) fill_f8(it, in, out, ac, sc, shortcut, k, j.idx[d], j.w[d]);
        else fill_f4(it, in, out, ac, sc, shortcut, k, j.idx[d], j.w[d]);
        /* the tables index the input side: src forward, dst backward */
        const pt_tensor *fwd_in = backward ? dst : src, *fwd_out = backward ? src : dst;
        const int64_t in_stride = r < 0 ? 0 : fwd_in->strides[2 + r];
        const int64_t out_stride = r < 0 ? 0 : fwd_out->strides[2 + r];
        a->src_s[2 + d] = backward ? out_stride : in_stride;
        a->dst_s[2 + d] = backward ? in_stride : out_stride;
        a->dim[d] = (pt_sample_dim){j.idx[d], j.w[d], k, in, out};
    }
    if (st == PT_OK) {
        a->channels_last = src->strides[1] == 1 && dst->strides[1] == 1 && a->c > 1;
        int64_t out_numel = 1, units;
        for (int32_t d = 0; d < PT_SAMPLE_MAX_DIMS; d++) out_numel *= a->dim[d].out_size;
        int64_t per_unit;
        if (!a->channels_last) {
            units = a->n * a->c;
            per_unit = out_numel;
        } else if (!backward) {
            units = a->n * a->dim[0].out_size * a->dim[1].out_size;
            per_unit = a->dim[2].out_size * a->c;
        } else {
            units = a->n;
            per_unit = out_numel * a->c;
        }
        per_unit = per_unit > 0 ? per_unit : 1;
        pt_parallel_for(units, (PT_GRAIN + per_unit - 1) / per_unit, run_units, &j);
    }
    up_job_free(&j);
    return st;
}

/* ---------------------------------------------------------------- checks */

static pt_status check_sizes(int32_t nd, const int64_t *in_sp, const int64_t *out_sp)
{
    bool ok = true;
    for (int32_t d = 0; d < nd; d++) ok &= in_sp[d] > 0 && out_sp[d] > 0;
    if (ok) return PT_OK;
    static const char *const letters[3][3] = {{"W"}, {"H", "W"}, {"D", "H", "W"}};
    char in_s[160] = "", out_s[160] = "";
    size_t a = 0, b = 0;
    for (int32_t d = 0; d < nd; d++) {
        a += (size_t)snprintf(in_s + a, sizeof in_s - a, "%s%s: %lld", d ? ", " : "",
                              letters[nd - 1][d], (long long)in_sp[d]);
        b += (size_t)snprintf(out_s + b, sizeof out_s - b, "%s%s: %lld", d ? ", " : "",
                              letters[nd - 1][d], (long long)out_sp[d]);
    }
    return PT_ERROR(PT_ERR_RUNTIME, "Input and output sizes should be greater than 0, but got "
                    "input (%s)%s output (%s)", in_s, nd == 1 ? " and" : "", out_s);
}

static pt_status check_common(int32_t nd, int32_t osz_len, const int64_t *osz, int32_t in_ndim,
                              const int64_t *in_sizes)
{
    if (osz_len != nd)
        return PT_ERROR(PT_ERR_RUNTIME, "It is expected output_size equals to %d, but got size %d",
                        (int)nd, (int)osz_len);
    if (in_ndim != nd + 2)
        return PT_ERROR(PT_ERR_RUNTIME, "It is expected input_size equals to %d, but got size %d",
                        (int)(nd + 2), (int)in_ndim);
    return check_sizes(nd, in_sizes + 2, osz);
}

static pt_status up_forward(int interp, int32_t nd, const pt_tensor *self, int32_t osz_len,
                            const int64_t *osz, int ac, const double *const *scales,
                            pt_tensor **ret)
{
    PT_TRY(check_common(nd, osz_len, osz, self->ndim, self->sizes));
    bool empty = false;
    for (int32_t d = 1; d < self->ndim; d++) empty |= self->sizes[d] == 0;
    if (empty) {
        char shape[256];
        pt_sample_format_sizes(shape, sizeof shape, self->ndim, self->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "Non-empty %dD data tensor expected but got a tensor with "
                        "sizes %s", (int)(nd + 2), shape);
    }
    if (pt_sample_is_half(self->dtype) && interp != AA_LINEAR && interp != AA_CUBIC) {
        pt_tensor *f, *r = NULL; /* Note [reduced precision sampling] */
        PT_TRY(pt_sample_upcast(self, &f));
        const pt_status st = up_forward(interp, nd, f, osz_len, osz, ac, scales, &r);
        pt_tensor_release(f);
        return pt_sample_downcast(st, r, self->dtype, ret);
    }
    if (self->dtype != PT_FLOAT32 && self->dtype != PT_FLOAT64)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                        table_kernel_names[interp], pt_iter_type_name(self->dtype));
    int64_t sizes[2 + PT_SAMPLE_MAX_DIMS] = {self->sizes[0], self->sizes[1]};
    for (int32_t d = 0; d < nd; d++) sizes[2 + d] = osz[d];
    pt_tensor *r;
    PT_TRY(pt_sample_empty(nd + 2, sizes, self->dtype, self->device,
                           pt_sample_memory_format(self), &r));
    if (self->device.type == PT_DEV_CPU && r->numel) {
        const pt_status st = up_run(interp, nd, ac, scales, self, r, 0, self->sizes + 2, osz);
        if (st != PT_OK) {
            pt_tensor_release(r);
            return st;
        }
    }
    *ret = r;
    return PT_OK;
}

static pt_status up_backward(const char *name, int interp, int32_t nd, const pt_tensor *grad,
                             int32_t osz_len, const int64_t *osz, int32_t isz_len,
                             const int64_t *isz, int ac, const double *const *scales,
                             pt_tensor **ret)
{
    PT_TRY(check_common(nd, osz_len, osz, isz_len, isz));
    if (grad->ndim != nd + 2)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected grad_output to be a tensor of dimension %d but "
                        "got: dimension %d", (int)(nd + 2), (int)grad->ndim);
    for (int32_t d = 0; d < nd + 2; d++) {
        const int64_t want = d < 2 ? isz[d] : osz[d - 2];
        if (grad->sizes[d] != want)
            return PT_ERROR(PT_ERR_RUNTIME, "Expected grad_output to have the same shape as "
                            "output; output.size(%d) = %lld but got grad_output.size(%d) = %lld",
                            (int)d, (long long)want, (int)d, (long long)grad->sizes[d]);
    }
    const bool aa = interp == AA_LINEAR || interp == AA_CUBIC;
    if (pt_sample_is_half(grad->dtype) && !aa) {
        pt_tensor *f, *r = NULL; /* Note [reduced precision sampling] */
        PT_TRY(pt_sample_upcast(grad, &f));
        const pt_status st = up_backward(name, interp, nd, f, osz_len, osz, isz_len, isz, ac,
                                         scales, &r);
        pt_tensor_release(f);
        return pt_sample_downcast(st, r, grad->dtype, ret);
    }
    if (grad->dtype != PT_FLOAT32 && grad->dtype != PT_FLOAT64)
        /* torch names the antialiased kernels upsample_*_aa_backward_cpu */
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, aa ? "\"%s_backward_cpu\" not implemented for '%s'"
                                                   : "\"%s_backward\" not implemented for '%s'",
                        aa && name[0] == '_' ? name + 1 : name, pt_iter_type_name(grad->dtype));
    pt_tensor *r;
    PT_TRY(pt_sample_empty(nd + 2, isz, grad->dtype, grad->device, pt_sample_memory_format(grad),
                           &r));
    if (grad->device.type == PT_DEV_CPU && r->numel) {
        const pt_status st = up_run(interp, nd, ac, scales, grad, r, 1, isz + 2, osz);
        if (st != PT_OK) {
            pt_tensor_release(r);
            return st;
        }
    }
    *ret = r;
    return PT_OK;
}

/* ------------------------------------------------------------ .vec: sizes from scale factors */

/* torch's compute_output_size: exactly one of output_size and scale_factors; sizes from scale
 * factors are floor(input size * factor). */
static pt_status vec_sizes(const pt_tensor *input, int32_t nd, int32_t osz_len, const int64_t *osz,
                           int32_t sf_len, const double *sf, int64_t *sizes, int32_t *len,
                           const double **scales)
{
    for (int32_t d = 0; d < PT_SAMPLE_MAX_DIMS; d++) scales[d] = NULL;
    if ((osz_len >= 0) == (sf_len >= 0))
        return PT_ERROR(PT_ERR_RUNTIME, "Must specify exactly one of output_size and "
                        "scale_factors");
    if (osz_len >= 0) {
        *len = osz_len < 2 * PT_SAMPLE_MAX_DIMS ? osz_len : 2 * PT_SAMPLE_MAX_DIMS;
        memcpy(sizes, osz, sizeof(int64_t) * (size_t)*len);
        *len = osz_len;
        return PT_OK;
    }
    const int32_t spatial = input->ndim - 2;
    if (sf_len != spatial)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected static_cast<int64_t>(scale_factors->size()) == "
                        "spatial_dimensions to be true, but got false.  (Could this error "
                        "message be improved?  If so, please report an enhancement request to "
                        "PyTorch.)");
    for (int32_t d = 0; d < spatial && d < nd; d++) {
        sizes[d] = (int64_t)((double)input->sizes[2 + d] * sf[d]);
        scales[d] = &sf[d];
    }
    *len = spatial;
    return PT_OK;
}

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- entry points */

#define UP_ENTRIES_1D(NAME, INTERP, AC_DECL, AC, AC_ARG)                                           \
    pt_status pt_kernel_##NAME(const pt_tensor *self, int32_t output_size_len,                     \
                               const int64_t *output_size, AC_DECL const double *scales,           \
                               pt_tensor **ret)                                                    \
    {                                                                                              \
        const double *s[1] = {scales};                                                             \
        return up_forward(INTERP, 1, self, output_size_len, output_size, AC, s, ret);              \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_backward(const pt_tensor *grad_output, int32_t output_size_len,   \
                                          const int64_t *output_size, int32_t input_size_len,      \
                                          const int64_t *input_size, AC_DECL const double *scales, \
                                          pt_tensor **ret)                                         \
    {                                                                                              \
        const double *s[1] = {scales};                                                             \
        return up_backward(#NAME, INTERP, 1, grad_output, output_size_len, output_size,            \
                           input_size_len, input_size, AC, s, ret);                                \
    }                                                                                              \
    pt_status pt_native_##NAME##_vec(const pt_tensor *input, int32_t output_size_len,              \
                                     const int64_t *output_size, AC_DECL int32_t sf_len,           \
                                     const double *sf, pt_tensor **ret)                            \
    {                                                                                              \
        int64_t sizes[2 * PT_SAMPLE_MAX_DIMS];                                                     \
        int32_t len = 0;                                                                           \
        const double *s[PT_SAMPLE_MAX_DIMS];                                                       \
        PT_TRY(vec_sizes(input, 1, output_size_len, output_size, sf_len, sf, sizes, &len, s));     \
        return returned(pt_call_##NAME(input, len, sizes, AC_ARG s[0]), ret);                      \
    }

#define UP_ENTRIES_2D(NAME, INTERP, AC_DECL, AC, AC_ARG)                                           \
    pt_status pt_kernel_##NAME(const pt_tensor *self, int32_t output_size_len,                     \
                               const int64_t *output_size, AC_DECL const double *scales_h,         \
                               const double *scales_w, pt_tensor **ret)                            \
    {                                                                                              \
        const double *s[2] = {scales_h, scales_w};                                                 \
        return up_forward(INTERP, 2, self, output_size_len, output_size, AC, s, ret);              \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_backward(const pt_tensor *grad_output, int32_t output_size_len,   \
                                          const int64_t *output_size, int32_t input_size_len,      \
                                          const int64_t *input_size, AC_DECL                       \
                                          const double *scales_h, const double *scales_w,          \
                                          pt_tensor **ret)                                         \
    {                                                                                              \
        const double *s[2] = {scales_h, scales_w};                                                 \
        return up_backward(#NAME, INTERP, 2, grad_output, output_size_len, output_size,            \
                           input_size_len, input_size, AC, s, ret);                                \
    }                                                                                              \
    pt_status pt_native_##NAME##_vec(const pt_tensor *input, int32_t output_size_len,              \
                                     const int64_t *output_size, AC_DECL int32_t sf_len,           \
                                     const double *sf, pt_tensor **ret)                            \
    {                                                                                              \
        int64_t sizes[2 * PT_SAMPLE_MAX_DIMS];                                                     \
        int32_t len = 0;                                                                           \
        const double *s[PT_SAMPLE_MAX_DIMS];                                                       \
        PT_TRY(vec_sizes(input, 2, output_size_len, output_size, sf_len, sf, sizes, &len, s));     \
        return returned(pt_call_##NAME(input, len, sizes, AC_ARG s[0], s[1]), ret);                \
    }

#define UP_ENTRIES_3D(NAME, INTERP, AC_DECL, AC, AC_ARG)                                           \
    pt_status pt_kernel_##NAME(const pt_tensor *self, int32_t output_size_len,                     \
                               const int64_t *output_size, AC_DECL const double *scales_d,         \
                               const double *scales_h, const double *scales_w, pt_tensor **ret)    \
    {                                                                                              \
        const double *s[3] = {scales_d, scales_h, scales_w};                                       \
        return up_forward(INTERP, 3, self, output_size_len, output_size, AC, s, ret);              \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_backward(const pt_tensor *grad_output, int32_t output_size_len,   \
                                          const int64_t *output_size, int32_t input_size_len,      \
                                          const int64_t *input_size, AC_DECL                       \
                                          const double *scales_d, const double *scales_h,          \
                                          const double *scales_w, pt_tensor **ret)                 \
    {                                                                                              \
        const double *s[3] = {scales_d, scales_h, scales_w};                                       \
        return up_backward(#NAME, INTERP, 3, grad_output, output_size_len, output_size,            \
                           input_size_len, input_size, AC, s, ret);                                \
    }                                                                                              \
    pt_status pt_native_##NAME##_vec(const pt_tensor *input, int32_t output_size_len,              \
                                     const int64_t *output_size, AC_DECL int32_t sf_len,           \
                                     const double *sf, pt_tensor **ret)                            \
    {                                                                                              \
        int64_t sizes[2 * PT_SAMPLE_MAX_DIMS];                                                     \
        int32_t len = 0;                                                                           \
        const double *s[PT_SAMPLE_MAX_DIMS];                                                       \
        PT_TRY(vec_sizes(input, 3, output_size_len, output_size, sf_len, sf, sizes, &len, s));     \
        return returned(pt_call_##NAME(input, len, sizes, AC_ARG s[0], s[1], s[2]), ret);          \
    }

#define NO_AC
#define AC_PARAM int32_t align_corners,
#define AC_PASS align_corners,

UP_ENTRIES_1D(upsample_nearest1d, NEAREST, NO_AC, 0, NO_AC)
UP_ENTRIES_1D(_upsample_nearest_exact1d, NEAREST_EXACT, NO_AC, 0, NO_AC)
UP_ENTRIES_2D(upsample_nearest2d, NEAREST, NO_AC, 0, NO_AC)
UP_ENTRIES_2D(_upsample_nearest_exact2d, NEAREST_EXACT, NO_AC, 0, NO_AC)
UP_ENTRIES_3D(upsample_nearest3d, NEAREST, NO_AC, 0, NO_AC)
UP_ENTRIES_3D(_upsample_nearest_exact3d, NEAREST_EXACT, NO_AC, 0, NO_AC)
UP_ENTRIES_1D(upsample_linear1d, LINEAR, AC_PARAM, align_corners, AC_PASS)
UP_ENTRIES_2D(upsample_bilinear2d, LINEAR, AC_PARAM, align_corners, AC_PASS)
UP_ENTRIES_2D(_upsample_bilinear2d_aa, AA_LINEAR, AC_PARAM, align_corners, AC_PASS)
UP_ENTRIES_2D(upsample_bicubic2d, CUBIC, AC_PARAM, align_corners, AC_PASS)
UP_ENTRIES_2D(_upsample_bicubic2d_aa, AA_CUBIC, AC_PARAM, align_corners, AC_PASS)
UP_ENTRIES_3D(upsample_trilinear3d, LINEAR, AC_PARAM, align_corners, AC_PASS)
