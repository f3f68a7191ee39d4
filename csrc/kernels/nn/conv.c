/* conv.c - the operators convolution, _convolution and convolution_backward: torch's argument
 * checks and messages, the result's shape and memory format, and the hand-over of each pass to a
 * path (conv.h).
 *
 * Note [transposed as backward]
 * A transposed convolution of x (N, Cin, in) with w (Cin, Cout/G, k) is the gradient with respect
 * to the input of the plain convolution whose input has the transposed result's shape (N, Cout,
 * out) and whose weight is w read as (Cin, Cout/G, k): the plain convolution's "output channels"
 * are the transposed one's input channels. So a transposed forward is the plain problem's
 * backward data; its gradient with respect to x is the plain forward of grad_output, and with
 * respect to w the plain backward weight with grad_output as the plain input and x as the plain
 * output gradient. Output padding only lengthens the plain input; its last rows get no taps.
 *
 * Note [convolution paths]
 * Each pass goes to oneDNN when pt_onednn_serves says so (onednn.c: float32, the build has it and
 * it loads, pytensor.backends.onednn.enabled, not pointwise), else to im2col + GEMM (conv_gemm.c),
 * depthwise problems excepted (below). float64
 * always runs on the GEMM path (oneDNN has no f64 convolution); float16 and bfloat16 run in
 * float32 and round once. pytensor.backends.onednn.conv_path (pt_conv_path) tells which path a
 * pass of a problem takes.
 * Measured per pass, one thread, batch 8, best of 3, on the shared 2-core AVX-512 development
 * machine (other builds running, so +-20%), GEMM (BLIS) ms / oneDNN ms:
 *                              forward          backward data    backward weight
 *   64ch 56x56 3x3 s1          40.2 / 25.4      36.6 / 24.4      44.7 / 52.1
 *   128ch 28x28 3x3 s1         38.4 / 26.7      34.6 / 26.9      37.9 / 44.1
 *   512ch 7x7 3x3 s1           48.2 / 43.7      54.2 / 37.5      75.2 / 68.9
 *   64->128ch 56x56 3x3 s2     22.0 / 20.3      27.6 / 19.0      36.1 / 32.4
 *   depthwise 128ch 28x28 3x3   9.4 / 1.6        5.9 / 1.5        5.5 / 1.9
 *   3->64ch 56x56 7x7 s2        8.0 / 6.7        7.3 / 2.4        3.4 / 1.9
 *   32ch 8x8 3x3 s1            0.38 / 0.12      0.25 / 0.19      0.44 / 0.17
 *   64ch 56x56 1x1 s1           3.5 / 5.5        3.7 / 8.8        4.1 / 6.4
 * oneDNN wins the 3x3 forward and backward-data passes by 1.1-1.6x, depthwise by 3-6x and small
 * problems (its per-call cost is lower than an unfolding's); GEMM wins the pointwise (1x1, stride
 * 1, no padding, one group) ones, which it runs as one product on the buffers as they are while
 * oneDNN reorders them into its blocked layout and back: those stay on GEMM. Backward weight of
 * the large 3x3 stages is within the noise of a tie (0.86-1.16) and stays on oneDNN.
 *
 * Depthwise problems (groups == input channels, over one or two dimensions) have a path of their
 * own, direct loops (conv_depthwise.c), in both layouts, which vectorize along a plane's rows;
 * oneDNN's depthwise kernel vectorizes over 16 channels of its blocked layout instead, and pays a
 * reorder on each side. Measured forward + backward (both gradients), one thread, batch 32, 3x3
 * padding 1, contiguous, on the shared 2-core AVX-512 machine (other work running: +-20%),
 * direct ms / oneDNN ms (torch, which takes oneDNN, in brackets):
 *   256ch 14x14 s1   18.0 / 3.4 (8.7)      512ch 7x7 s1     11.4 / 1.3 (1.4)
 *   256ch 14x14 s2    7.8 / 1.6 (2.3)      128ch 28x28 s1   23.1 / 8.4 (9.3)
 *   64ch 56x56 s1    28.1 / 51 (29)        96ch 56x56 s1    41.9 / 71 (88)
 *   32ch 112x112 s1  37.4 / 93 (118)       32ch 112x112 s2  31.1 / 47 (60)
 *   16ch 224x224 s1  65.7 / 197 (241)
 * So a contiguous pass takes the direct loops when the input's plane has at least
 * DW_DIRECT_MIN_PLANE elements (the crossover lies between 28x28 and 56x56 and was not measured
 * closer; 40x40 splits it), oneDNN below that when it serves the problem (float32), the direct
 * loops otherwise (float64, no oneDNN). On channels-last data oneDNN runs on the buffers as they
 * are (Note [oneDNN on channels-last data] in onednn.c) and takes every pass it serves; the
 * direct loops take the rest (a channel multiplier above 1 converts to contiguous first).
 *
 * The result keeps torch's memory format: channels_last (channels_last_3d for 5-D) when the
 * input or the weight is in it, else contiguous. Channels-last problems run on channels-last
 * buffers on every path (the inputs are converted only when one of them is contiguous): oneDNN
 * with its nhwc formats, GEMM with transposed products (Note [channels-last products] in
 * conv_gemm.c), the depthwise loops over a pixel's channels.
 */
#include <stdio.h>
#include <string.h>

#include "conv.h"
#include "iter.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

enum {
    SHAPE_CHARS = 256,
    DW_DIRECT_MIN_PLANE = 40 * 40, /* Note [convolution paths]: the depthwise crossover */
};

typedef struct conv_params {
    int32_t dims;
    int64_t stride[3], pad[3], dil[3], opad[3];
    bool transposed;
    int64_t groups;
} conv_params;

static const char *shape_text(char *buf, int32_t n, const int64_t *v)
{
    return pt_format_ints(buf, SHAPE_CHARS, n, v);
}

/* A parameter list of one value or `dims` values, as torch's expand_param_if_needed. */
static pt_status expand(const char *name, int32_t n, const int64_t *v, int32_t dims, int64_t *out)
{
    if (n != 1 && n != dims) {
        char buf[SHAPE_CHARS];
        return PT_ERROR(PT_ERR_RUNTIME, "expected %s to be a single integer value or a list of %d "
                        "values to match the convolution dimensions, but got %s=%s", name,
                        (int)dims, name, shape_text(buf, n, v));
    }
    for (int32_t i = 0; i < dims; i++) out[i] = v[n == 1 ? 0 : i];
    return PT_OK;
}

static pt_status parse(const pt_tensor *weight, int32_t ns, const int64_t *stride, int32_t np,
                       const int64_t *padding, int32_t nd, const int64_t *dilation,
                       int32_t transposed, int32_t nop, const int64_t *opad, int64_t groups,
                       conv_params *p)
{
    memset(p, 0, sizeof *p);
    if (!weight) return PT_ERROR(PT_ERR_TYPE, "convolution(): argument 'weight' must be Tensor");
    if (weight->ndim < 3 || weight->ndim > 5)
        return PT_ERROR(PT_ERR_RUNTIME, "weight should have at least three dimensions");
    p->dims = weight->ndim - 2;
    PT_TRY(expand("stride", ns, stride, p->dims, p->stride));
    PT_TRY(expand("padding", np, padding, p->dims, p->pad));
    PT_TRY(expand("dilation", nd, dilation, p->dims, p->dil));
    PT_TRY(expand("output_padding", nop, opad, p->dims, p->opad));
    p->transposed = transposed != 0;
    p->groups = groups;
    if (groups <= 0) return PT_ERROR(PT_ERR_RUNTIME, "non-positive groups is not supported");
    return PT_OK;
}

/* torch's check_shape_forward, in its order. */
static pt_status check_shapes(const pt_tensor *input, const pt_tensor *weight,
                              const pt_tensor *bias, const conv_params *p)
{
    char a[SHAPE_CHARS], b[SHAPE_CHARS];
    const int32_t dims = p->dims;
    for (int32_t i = 0; i < dims; i++)
        if (p->pad[i] < 0) return PT_ERROR(PT_ERR_RUNTIME, "negative padding is not supported");
    for (int32_t i = 0; i < dims; i++)
        if (p->opad[i] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "negative output_padding is not supported");
    for (int32_t i = 0; i < dims; i++)
        if (p->stride[i] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "non-positive stride is not supported");
    for (int32_t i = 0; i < dims; i++)
        if (p->dil[i] <= 0)
            return PT_ERROR(PT_ERR_RUNTIME, "dilation should be greater than zero");
    if (input->ndim != weight->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected %d-dimensional input for %d-dimensional weight "
                        "%s, but got %d-dimensional input of size %s instead", (int)weight->ndim,
                        (int)weight->ndim, shape_text(a, weight->ndim, weight->sizes),
                        (int)input->ndim, shape_text(b, input->ndim, input->sizes));
    const int64_t g = p->groups, w0 = weight->sizes[0];
    if (w0 < g)
        return PT_ERROR(PT_ERR_RUNTIME, "Given groups=%lld, expected weight to be at least %lld at "
                        "dimension 0, but got weight of size %s instead", (long long)g,
                        (long long)g, shape_text(a, weight->ndim, weight->sizes));
    if (w0 % g != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Given groups=%lld, expected weight to be divisible by "
                        "%lld at dimension 0, but got weight of size [%s] instead", (long long)g,
                        (long long)g, shape_text(a, weight->ndim, weight->sizes));
    const int64_t channels = input->sizes[1];
    if (!p->transposed) {
        if (channels != weight->sizes[1] * g)
            return PT_ERROR(PT_ERR_RUNTIME, "Given groups=%lld, weight of size %s, expected input"
                            "%s to have %lld channels, but got %lld channels instead",
                            (long long)g, shape_text(a, weight->ndim, weight->sizes),
                            shape_text(b, input->ndim, input->sizes),
                            (long long)(weight->sizes[1] * g), (long long)channels);
        if (bias && (bias->ndim != 1 || bias->sizes[0] != w0))
            return PT_ERROR(PT_ERR_RUNTIME, "Given weight of size %s, expected bias to be "
                            "1-dimensional with %lld elements, but got bias of size %s instead",
                            shape_text(a, weight->ndim, weight->sizes), (long long)w0,
                            shape_text(b, bias->ndim, bias->sizes));
        int64_t padded[3], kernel[3];
        bool bad = false;
        for (int32_t i = 0; i < dims; i++) {
            padded[i] = input->sizes[i + 2] + 2 * p->pad[i];
            kernel[i] = p->dil[i] * (weight->sizes[i + 2] - 1) + 1;
            bad = bad || padded[i] < kernel[i];
        }
        if (bad) {
            char *x = a, *y = b;
            x[0] = y[0] = 0;
            for (int32_t i = 0; i < dims; i++) {
                snprintf(x + strlen(x), SHAPE_CHARS - strlen(x), "%s%lld", i ? " x " : "",
                         (long long)padded[i]);
                snprintf(y + strlen(y), SHAPE_CHARS - strlen(y), "%s%lld", i ? " x " : "",
                         (long long)kernel[i]);
            }
            return PT_ERROR(PT_ERR_RUNTIME, "Calculated padded input size per channel: (%s). "
                            "Kernel size: (%s). Kernel size can't be greater than actual input "
                            "size", x, y);
        }
    } else {
        if (channels != w0)
            return PT_ERROR(PT_ERR_RUNTIME, "Given transposed=1, weight of size %s, expected input"
                            "%s to have %lld channels, but got %lld channels instead",
                            shape_text(a, weight->ndim, weight->sizes),
                            shape_text(b, input->ndim, input->sizes), (long long)w0,
                            (long long)channels);
        const int64_t want = weight->sizes[1] * g;
        if (bias && (bias->ndim != 1 || bias->sizes[0] != want))
            return PT_ERROR(PT_ERR_RUNTIME, "Given transposed=1, weight of size %s, expected bias "
                            "to be 1-dimensional with %lld elements, but got bias of size %s "
                            "instead", shape_text(a, weight->ndim, weight->sizes),
                            (long long)want, shape_text(b, bias->ndim, bias->sizes));
        bool bad = false;
        for (int32_t i = 0; i < dims; i++)
            bad = bad || (p->opad[i] >= p->stride[i] && p->opad[i] >= p->dil[i]);
        if (bad) {
            static const char *const names[3] = {"depth", "height", "width"};
            const int32_t shown = dims < 2 ? 2 : dims; /* torch shows 1-D as 2-D */
            char *x = a;
            x[0] = 0;
            const int64_t *lists[3] = {p->opad, p->stride, p->dil};
            static const char *const what[3] = {"output_padding", "stride", "dilation"};
            for (int l = 0; l < 3; l++)
                for (int32_t i = 0; i < shown; i++) {
                    const int32_t src = i - (shown - dims);
                    const int64_t v = src < 0 ? (l == 0 ? 0 : 1) : lists[l][src];
                    snprintf(x + strlen(x), SHAPE_CHARS - strlen(x), "%s%s_%s: %lld",
                             x[0] ? " " : "", what[l], names[3 - shown + i], (long long)v);
                }
            return PT_ERROR(PT_ERR_RUNTIME, "output padding must be smaller than either stride or "
                            "dilation, but got %s", x);
        }
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- dtypes and layouts */

static const char *cxx_name(int32_t dtype)
{
    switch (dtype) {
    case PT_FLOAT32: return "float";
    case PT_FLOAT64: return "double";
    case PT_FLOAT16: return "c10::Half";
    case PT_BFLOAT16: return "c10::BFloat16";
    default: return pt_iter_type_name(dtype);
    }
}

static pt_status check_dtypes(const pt_tensor *input, const pt_tensor *weight,
                              const pt_tensor *bias)
{
    if (weight->dtype != input->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(input->dtype), pt_iter_type_name(weight->dtype));
    if (bias && bias->dtype != input->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Input type (%s) and bias type (%s) should be the same",
                        cxx_name(input->dtype), cxx_name(bias->dtype));
    switch (input->dtype) {
    case PT_FLOAT32: case PT_FLOAT64: case PT_FLOAT16: case PT_BFLOAT16: return PT_OK;
    default:
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"slow_conv%dd_cpu\" not implemented for '%s'",
                        (int)(input->ndim - 2), pt_iter_type_name(input->dtype));
    }
}

static bool is_half(int32_t dtype) { return dtype == PT_FLOAT16 || dtype == PT_BFLOAT16; }

/* channels_last (4-D) or channels_last_3d (5-D) when a tensor is in it and not plainly
 * contiguous (torch's suggest_memory_format). */
static bool channels_last(const pt_tensor *t)
{
    if (!t || (t->ndim != 4 && t->ndim != 5)) return false;
    const int32_t fmt = t->ndim == 4 ? PT_MEMORY_FORMAT_CHANNELS_LAST
                                     : PT_MEMORY_FORMAT_CHANNELS_LAST_3D;
    return pt_tensor_is_contiguous(t, fmt) &&
           !pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS);
}

/* Whether r has exactly the strides new_result gives a channels-last tensor. */
static bool has_cl_strides(const pt_tensor *r)
{
    int64_t s = r->sizes[1] > 1 ? r->sizes[1] : 1;
    if (r->strides[1] != 1) return false;
    for (int32_t d = r->ndim - 1; d >= 2; d--) {
        if (r->strides[d] != s) return false;
        s *= r->sizes[d] > 1 ? r->sizes[d] : 1;
    }
    return r->strides[0] == s;
}

bool pt_conv_wants_cl(const pt_tensor *input, const pt_tensor *weight)
{
    return channels_last(input) || channels_last(weight);
}

/* A result in the memory format chosen for the call: r itself when contiguous is wanted or r is
 * channels-last already (a path computed it so), else a channels-last copy (r is released). */
static pt_status in_format(pt_tensor *r, bool cl, pt_tensor **out)
{
    *out = NULL;
    if (!cl || (r->ndim != 4 && r->ndim != 5) || has_cl_strides(r)) {
        *out = r;
        return PT_OK;
    }
    const int32_t fmt = r->ndim == 4 ? PT_MEMORY_FORMAT_CHANNELS_LAST
                                     : PT_MEMORY_FORMAT_CHANNELS_LAST_3D;
    const pt_status st = pt_tensor_clone(r, fmt, out);
    pt_tensor_release(r);
    return st;
}

/* ---------------------------------------------------------------- geometry */

/* The plain problem (Note [transposed as backward]) of input and weight sizes. */
static void make_geom(const int64_t *in_sizes, const int64_t *w_sizes, int32_t dtype,
                      const conv_params *p, pt_conv_geom *g)
{
    memset(g, 0, sizeof *g);
    g->dtype = is_half(dtype) ? PT_FLOAT32 : dtype;
    g->dims = p->dims;
    g->n = in_sizes[0];
    g->groups = p->groups;
    const int32_t lead = 3 - p->dims;
    for (int32_t i = 0; i < 3; i++) {
        const int32_t s = i - lead;
        const bool real = s >= 0;
        g->k[i] = real ? w_sizes[s + 2] : 1;
        g->stride[i] = real ? p->stride[s] : 1;
        g->pad[i] = real ? p->pad[s] : 0;
        g->dil[i] = real ? p->dil[s] : 1;
        const int64_t in = real ? in_sizes[s + 2] : 1;
        const int64_t span = g->dil[i] * (g->k[i] - 1) + 1;
        if (!p->transposed) {
            g->in[i] = in;
            g->out[i] = (in + 2 * g->pad[i] - span) / g->stride[i] + 1;
        } else {
            g->out[i] = in;
            g->in[i] = (in - 1) * g->stride[i] - 2 * g->pad[i] + span + (real ? p->opad[s] : 0);
        }
    }
    if (!p->transposed) {
        g->cin = in_sizes[1];
        g->cout = w_sizes[0];
    } else {
        g->cin = w_sizes[1] * p->groups;
        g->cout = w_sizes[0];
    }
}

void pt_conv_geom_of(const int64_t *in_sizes, const int64_t *w_sizes, int32_t dtype, int32_t dims,
                     const int64_t *stride, const int64_t *padding, const int64_t *dilation,
                     bool transposed, const int64_t *output_padding, int64_t groups,
                     pt_conv_geom *g)
{
    conv_params p;
    memset(&p, 0, sizeof p);
    p.dims = dims;
    p.transposed = transposed;
    p.groups = groups;
    for (int32_t i = 0; i < dims; i++) {
        p.stride[i] = stride[i];
        p.pad[i] = padding[i];
        p.dil[i] = dilation[i];
        p.opad[i] = output_padding ? output_padding[i] : 0;
    }
    make_geom(in_sizes, w_sizes, dtype, &p, g);
}

/* The sizes of the plain problem's x (which = 0) or y (which = 1), in the caller's dims. */
static void plain_sizes(const pt_conv_geom *g, int which, int64_t *sizes)
{
    sizes[0] = g->n;
    sizes[1] = which == 0 ? g->cin : g->cout;
    for (int32_t i = 0; i < g->dims; i++)
        sizes[2 + i] = which == 0 ? g->in[3 - g->dims + i] : g->out[3 - g->dims + i];
}

/* Whether the direct depthwise loops take pass `pass` of a depthwise g rather than oneDNN
 * (Note [convolution paths]: contiguous problems with large planes; the others when oneDNN does
 * not serve them). */
static bool depthwise_first(const pt_conv_geom *g, int pass)
{
    PT_UNUSED(pass);
    if (g->cl) return false;
    int64_t plane = 1;
    for (int32_t i = 0; i < g->dims; i++) plane *= g->in[3 - g->dims + i];
    return plane >= DW_DIRECT_MIN_PLANE;
}

int32_t pt_conv_path(const pt_conv_geom *g, int pass)
{
    if (pt_conv_macs(g) == 0 && g->n * g->cout == 0) return PT_CONV_PATH_NONE;
    const bool dw = pt_conv_is_depthwise(g);
    if (dw && depthwise_first(g, pass)) return PT_CONV_PATH_DEPTHWISE;
    if (pt_onednn_serves(g, pass)) return PT_CONV_PATH_ONEDNN;
    return dw ? PT_CONV_PATH_DEPTHWISE : PT_CONV_PATH_GEMM;
}

bool pt_conv_path_takes_cl(const pt_conv_geom *g, int pass)
{
    return pt_conv_path(g, pass) != PT_CONV_PATH_DEPTHWISE || pt_conv_depthwise_takes_cl(g);
}

static pt_status run_pass(const pt_conv_geom *g, int pass, const void *a, const void *b, void *out)
{
    const int32_t path = pt_conv_path(g, pass);
    if (path == PT_CONV_PATH_ONEDNN) return pt_onednn_conv(g, pass, a, b, out);
    if (path == PT_CONV_PATH_DEPTHWISE) return pt_conv_depthwise(g, pass, a, b, out);
    switch (pass) {
    case PT_CONV_FORWARD: return pt_conv_gemm_forward(g, a, b, out);
    case PT_CONV_BACKWARD_DATA: return pt_conv_gemm_backward_data(g, a, b, out);
    default: return pt_conv_gemm_backward_weight(g, a, b, out);
    }
}

static int32_t cl_format(int32_t ndim)
{
    return ndim == 4 ? PT_MEMORY_FORMAT_CHANNELS_LAST : PT_MEMORY_FORMAT_CHANNELS_LAST_3D;
}

/* A float32/float64 copy of t, contiguous or channels-last (cl; 4-D and 5-D only): a new
 * reference to t when it is one already. */
static pt_status compute_copy(const pt_tensor *t, int32_t dtype, bool cl, pt_tensor **out)
{
    pt_tensor *c = NULL;
    if (t->dtype != dtype) PT_TRY(pt_tensor_to(t, dtype, t->device, 0, &c));
    const pt_tensor *src = c ? c : t;
    pt_status st;
    if (!cl) {
        st = pt_tensor_contiguous(src, out);
    } else if (pt_tensor_is_contiguous(src, cl_format(src->ndim))) {
        pt_tensor_retain((pt_tensor *)src);
        *out = (pt_tensor *)src;
        st = PT_OK;
    } else {
        st = pt_tensor_clone(src, cl_format(src->ndim), out);
    }
    if (c) pt_tensor_release(c);
    return st;
}

/* A new tensor of `sizes`, channels-last when cl (torch's strides: size-0 dimensions count as 1). */
static pt_status new_result(int32_t ndim, const int64_t *sizes, int32_t dtype, pt_device device,
                            bool cl, pt_tensor **out)
{
    if (!cl) return pt_tensor_empty(ndim, sizes, dtype, device, out);
    int64_t strides[5], s = sizes[1] > 1 ? sizes[1] : 1;
    strides[1] = 1;
    for (int32_t d = ndim - 1; d >= 2; d--) {
        strides[d] = s;
        s *= sizes[d] > 1 ? sizes[d] : 1;
    }
    strides[0] = s;
    return pt_tensor_empty_strided(ndim, sizes, strides, dtype, device, out);
}

/* Runs one pass into a new tensor of `sizes` (dtype `dtype`): a and b are converted to the
 * compute dtype and made contiguous first, or channels-last when g->cl (the result then is
 * channels-last too). */
static pt_status pass_result(const pt_conv_geom *g, int pass, const pt_tensor *a,
                             const pt_tensor *b, int32_t ndim, const int64_t *sizes,
                             int32_t dtype, pt_device device, pt_tensor **out)
{
    pt_tensor *r = NULL, *ca = NULL, *cb = NULL, *cr = NULL;
    const bool cl = g->cl && device.type != PT_DEV_META;
    PT_TRY(new_result(ndim, sizes, dtype, device, cl, &r));
    if (device.type == PT_DEV_META) {
        *out = r;
        return PT_OK;
    }
    pt_status st = compute_copy(a, g->dtype, cl, &ca);
    if (st == PT_OK) st = compute_copy(b, g->dtype, cl, &cb);
    if (st == PT_OK)
        st = dtype == g->dtype ? (pt_tensor_retain(r), cr = r, PT_OK)
                               : new_result(ndim, sizes, g->dtype, device, cl, &cr);
    if (st == PT_OK) st = run_pass(g, pass, pt_tensor_data(ca), pt_tensor_data(cb),
                                   pt_tensor_data(cr));
    if (st == PT_OK && cr != r) st = pt_tensor_copy_(r, cr);
    pt_tensor_release(ca);
    pt_tensor_release(cb);
    if (cr) pt_tensor_release(cr);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

/* out[:, c, ...] += bias[c] over every image and position (out contiguous, or channels-last when
 * cl). */
static pt_status add_bias(pt_tensor *out, const pt_tensor *bias, bool cl)
{
    if (out->device.type == PT_DEV_META || pt_tensor_numel(out) == 0) return PT_OK;
    pt_tensor *b = NULL;
    PT_TRY(pt_tensor_to(bias, out->dtype == PT_FLOAT64 ? PT_FLOAT64 : PT_FLOAT32, bias->device, 0,
                        &b));
    pt_tensor *cb = NULL;
    pt_status st = pt_tensor_contiguous(b, &cb);
    pt_tensor_release(b);
    if (st != PT_OK) return st;
    const int64_t n = out->sizes[0], c = out->sizes[1];
    const int64_t l = pt_tensor_numel(out) / (n * c);
    if (out->dtype == PT_FLOAT32) {
        float *y = pt_tensor_data(out);
        const float *v = pt_tensor_data(cb);
        if (cl)
            for (int64_t i = 0; i < n * l; i++)
                for (int64_t e = 0; e < c; e++) y[i * c + e] += v[e];
        else
            for (int64_t i = 0; i < n * c; i++)
                for (int64_t e = 0; e < l; e++) y[i * l + e] += v[i % c];
    } else if (out->dtype == PT_FLOAT64) {
        double *y = pt_tensor_data(out);
        const double *v = pt_tensor_data(cb);
        if (cl)
            for (int64_t i = 0; i < n * l; i++)
                for (int64_t e = 0; e < c; e++) y[i * c + e] += v[e];
        else
            for (int64_t i = 0; i < n * c; i++)
                for (int64_t e = 0; e < l; e++) y[i * l + e] += v[i % c];
    } else {
        pt_tensor_release(cb);
        return PT_ERROR(PT_ERR_RUNTIME, "convolution: bias of a reduced-precision result");
    }
    pt_tensor_release(cb);
    return PT_OK;
}

/* ---------------------------------------------------------------- convolution */

static pt_status convolution(const pt_tensor *input, const pt_tensor *weight,
                             const pt_tensor *bias, const conv_params *p, pt_tensor **ret)
{
    if (!input) return PT_ERROR(PT_ERR_TYPE, "convolution(): argument 'input' must be Tensor");
    PT_TRY(check_shapes(input, weight, bias, p));
    PT_TRY(check_dtypes(input, weight, bias));
    pt_conv_geom g;
    make_geom(input->sizes, weight->sizes, input->dtype, p, &g);
    int64_t sizes[5];
    plain_sizes(&g, p->transposed ? 0 : 1, sizes);
    const bool meta = input->device.type == PT_DEV_META || weight->device.type == PT_DEV_META;
    const pt_device dev = {meta ? PT_DEV_META : PT_DEV_CPU, -1};
    /* float16/bfloat16: computed in float32 (bias included), rounded once. */
    const int32_t rdtype = is_half(input->dtype) ? PT_FLOAT32 : input->dtype;
    const int pass = p->transposed ? PT_CONV_BACKWARD_DATA : PT_CONV_FORWARD;
    const bool cl = channels_last(input) || channels_last(weight);
    g.cl = cl && !meta && pt_conv_path_takes_cl(&g, pass);
    pt_tensor *r = NULL;
    PT_TRY(pass_result(&g, pass, input, weight, input->ndim, sizes, rdtype, dev, &r));
    pt_status st = bias && !meta ? add_bias(r, bias, g.cl) : PT_OK;
    if (st == PT_OK && rdtype != input->dtype) {
        pt_tensor *h = NULL;
        st = pt_tensor_to(r, input->dtype, dev, 0, &h);
        pt_tensor_release(r);
        r = st == PT_OK ? h : NULL;
    }
    if (st != PT_OK) {
        if (r) pt_tensor_release(r);
        return st;
    }
    return in_format(r, cl, ret);
}

pt_status pt_kernel_convolution(const pt_tensor *input, const pt_tensor *weight,
                                const pt_tensor *bias, int32_t ns, const int64_t *stride,
                                int32_t np, const int64_t *padding, int32_t nd,
                                const int64_t *dilation, int32_t transposed, int32_t nop,
                                const int64_t *output_padding, int64_t groups, pt_tensor **ret)
{
    conv_params p;
    PT_TRY(parse(weight, ns, stride, np, padding, nd, dilation, transposed, nop, output_padding,
                 groups, &p));
    return convolution(input, weight, bias, &p, ret);
}

pt_status pt_kernel__convolution(const pt_tensor *input, const pt_tensor *weight,
                                 const pt_tensor *bias, int32_t ns, const int64_t *stride,
                                 int32_t np, const int64_t *padding, int32_t nd,
                                 const int64_t *dilation, int32_t transposed, int32_t nop,
                                 const int64_t *output_padding, int64_t groups, int32_t benchmark,
                                 int32_t deterministic, int32_t cudnn_enabled, int32_t allow_tf32,
                                 pt_tensor **ret)
{
    PT_UNUSED(benchmark);
    PT_UNUSED(deterministic);
    PT_UNUSED(cudnn_enabled);
    PT_UNUSED(allow_tf32);
    return pt_kernel_convolution(input, weight, bias, ns, stride, np, padding, nd, dilation,
                                 transposed, nop, output_padding, groups, ret);
}

/* ---------------------------------------------------------------- convolution_backward */

/* grad_output summed over every dimension but 1, in `dtype`. */
static pt_status bias_grad(const pt_tensor *go, int32_t nb, const int64_t *bias_sizes,
                           pt_tensor **out)
{
    int64_t dims[5];
    int32_t n = 0;
    for (int32_t i = 0; i < go->ndim; i++)
        if (i != 1) dims[n++] = i;
    pt_tensor *s = pt_call_sum_dim_IntList(go, n, dims, 0, -1);
    if (!s) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    if (nb > 0 && (nb != 1 || bias_sizes[0] != s->sizes[0])) {
        pt_tensor *v = pt_call_reshape(s, nb, bias_sizes);
        pt_tensor_release(s);
        if (!v) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        s = v;
    }
    *out = s;
    return PT_OK;
}

static pt_status to_dtype(pt_tensor **t, int32_t dtype)
{
    if ((*t)->dtype == dtype) return PT_OK;
    pt_tensor *h = NULL;
    const pt_status st = pt_tensor_to(*t, dtype, (*t)->device, 0, &h);
    pt_tensor_release(*t);
    *t = st == PT_OK ? h : NULL;
    return st;
}

pt_status pt_kernel_convolution_backward(const pt_tensor *grad_output, const pt_tensor *input,
                                         const pt_tensor *weight, int32_t nb,
                                         const int64_t *bias_sizes, int32_t ns,
                                         const int64_t *stride, int32_t np,
                                         const int64_t *padding, int32_t nd,
                                         const int64_t *dilation, int32_t transposed,
                                         int32_t nop, const int64_t *output_padding,
                                         int64_t groups, int32_t nm, const int64_t *mask,
                                         pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2)
{
    *ret0 = *ret1 = *ret2 = NULL;
    conv_params p;
    PT_TRY(parse(weight, ns, stride, np, padding, nd, dilation, transposed, nop, output_padding,
                 groups, &p));
    if (!input || !grad_output)
        return PT_ERROR(PT_ERR_TYPE, "convolution_backward(): tensors must not be None");
    PT_TRY(check_shapes(input, weight, NULL, &p));
    PT_TRY(check_dtypes(input, weight, NULL));
    if (grad_output->dtype != input->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(input->dtype), pt_iter_type_name(grad_output->dtype));
    pt_conv_geom g;
    make_geom(input->sizes, weight->sizes, input->dtype, &p, &g);
    int64_t want[5];
    plain_sizes(&g, p.transposed ? 0 : 1, want);
    if (grad_output->ndim != input->ndim ||
        memcmp(grad_output->sizes, want, sizeof(int64_t) * (size_t)input->ndim) != 0) {
        char a[SHAPE_CHARS], b[SHAPE_CHARS];
        return PT_ERROR(PT_ERR_RUNTIME, "convolution_backward: expected grad_output of size %s, "
                        "but got %s", shape_text(a, input->ndim, want),
                        shape_text(b, grad_output->ndim, grad_output->sizes));
    }
    const bool meta = input->device.type == PT_DEV_META ||
                      weight->device.type == PT_DEV_META ||
                      grad_output->device.type == PT_DEV_META;
    const pt_device dev = {meta ? PT_DEV_META : PT_DEV_CPU, -1};
    const bool cl = channels_last(input) || channels_last(weight);
    const bool want_input = nm > 0 && mask[0], want_weight = nm > 1 && mask[1];
    const bool want_bias = nm > 2 && mask[2];
    pt_status st = PT_OK;
    if (want_input) {
        /* plain: backward data of grad_output; transposed: the plain forward of grad_output */
        const int pass = p.transposed ? PT_CONV_FORWARD : PT_CONV_BACKWARD_DATA;
        pt_conv_geom gp = g;
        gp.cl = cl && !meta && pt_conv_path_takes_cl(&gp, pass);
        st = pass_result(&gp, pass, grad_output, weight, input->ndim, input->sizes, input->dtype,
                         dev, ret0);
        if (st == PT_OK) st = in_format(*ret0, cl, ret0);
    }
    if (st == PT_OK && want_weight) {
        pt_conv_geom gp = g;
        gp.cl = cl && !meta && pt_conv_path_takes_cl(&gp, PT_CONV_BACKWARD_WEIGHT);
        st = p.transposed
                 ? pass_result(&gp, PT_CONV_BACKWARD_WEIGHT, grad_output, input, weight->ndim,
                               weight->sizes, input->dtype, dev, ret1)
                 : pass_result(&gp, PT_CONV_BACKWARD_WEIGHT, input, grad_output, weight->ndim,
                               weight->sizes, input->dtype, dev, ret1);
        if (st == PT_OK) st = in_format(*ret1, cl, ret1);
    }
    if (st == PT_OK && want_bias) {
        st = bias_grad(grad_output, nb, bias_sizes, ret2);
        if (st == PT_OK) st = to_dtype(ret2, input->dtype);
    }
    if (st != PT_OK) {
        pt_tensor *const r[3] = {*ret0, *ret1, *ret2};
        for (int i = 0; i < 3; i++)
            if (r[i]) pt_tensor_release(r[i]);
        *ret0 = *ret1 = *ret2 = NULL;
    }
    return st;
}
