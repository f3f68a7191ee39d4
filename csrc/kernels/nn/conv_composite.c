/* conv_composite.c - the operators torch writes as compositions of convolution
 * (CompositeImplicitAutograd): conv1d/2d/3d and their padding='same'/'valid' overloads,
 * conv_transpose1d/2d/3d and _convolution_double_backward; and pt_conv_path_of, which says which
 * path a problem takes.
 *
 * Each calls operators through the dispatcher, so a graph records what torch's records:
 * ConvolutionBackward0 for the convolution, UnsqueezeBackward0/SqueezeBackward1 around an
 * unbatched input, ConvolutionBackwardBackward0 when a gradient is differentiated again.
 *
 * Note [asymmetric same padding]
 * padding='same' pads dilation * (k - 1) in total along a dimension, the odd one on the right.
 * torch pads the input by the extra element (constant_pad_nd) and convolves with the left
 * padding; here the convolution takes the right padding on both sides and the output is narrowed
 * by the difference from its start, which reads the same taps: output o' of the left padding is
 * output o' + (right - left) of the right one. Values agree; the graph holds a NarrowBackward0
 * after the convolution where torch's holds a ConstantPadNdBackward0 before it, and torch's
 * UserWarning about the padded copy is not raised.
 */
#include <string.h>

#include "conv.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* torch's batchify: an unbatched input gains a batch dimension of 1 (*batched false). */
static pt_status batchify(const pt_tensor *input, int32_t dims, const char *name,
                          pt_tensor **out, bool *batched)
{
    if (!input) return PT_ERROR(PT_ERR_TYPE, "%s(): argument 'input' must be Tensor", name);
    *batched = input->ndim == dims + 2;
    if (!*batched && input->ndim != dims + 1) {
        char buf[256];
        return PT_ERROR(PT_ERR_RUNTIME, "Expected %dD (unbatched) or %dD (batched) input to %s, "
                        "but got input of size: %s", (int)(dims + 1), (int)(dims + 2), name,
                        pt_format_ints(buf, sizeof buf, input->ndim, input->sizes));
    }
    if (*batched) {
        pt_tensor_retain((pt_tensor *)input);
        *out = (pt_tensor *)input;
        return PT_OK;
    }
    return returned(pt_call_unsqueeze(input, 0), out);
}

/* convolution of the batchified input, squeezed back when it was unbatched. */
static pt_status conv_front(const pt_tensor *input, const pt_tensor *weight, const pt_tensor *bias,
                            int32_t dims, const char *name, int32_t ns, const int64_t *stride,
                            int32_t np, const int64_t *padding, int32_t nd,
                            const int64_t *dilation, bool transposed, int32_t nop,
                            const int64_t *opad, int64_t groups, pt_tensor **ret)
{
    pt_tensor *x = NULL;
    bool batched;
    PT_TRY(batchify(input, dims, name, &x, &batched));
    static const int64_t zeros[3] = {0, 0, 0};
    pt_tensor *y = pt_call_convolution(x, weight, bias, ns, stride, np, padding, nd, dilation,
                                       transposed, transposed ? nop : dims,
                                       transposed ? opad : zeros, groups);
    pt_tensor_release(x);
    if (!y || batched) return returned(y, ret);
    pt_tensor *s = pt_call_squeeze_dim(y, 0);
    pt_tensor_release(y);
    return returned(s, ret);
}

/* conv*d.padding: 'valid' is no padding; 'same' keeps the input's spatial size (stride 1). */
static pt_status conv_mode(const pt_tensor *input, const pt_tensor *weight, const pt_tensor *bias,
                           int32_t dims, const char *name, int32_t ns, const int64_t *stride,
                           const char *padding, int32_t nd, const int64_t *dilation,
                           int64_t groups, pt_tensor **ret)
{
    int64_t pad[3] = {0, 0, 0}, extra[3] = {0, 0, 0};
    bool asym = false;
    if (!padding || strcmp(padding, "valid") == 0) {
        /* no padding */
    } else if (strcmp(padding, "same") == 0) {
        for (int32_t i = 0; i < ns; i++)
            if (stride[i] != 1)
                return PT_ERROR(PT_ERR_RUNTIME, "padding='same' is not supported for strided "
                                "convolutions");
        if (!weight || weight->ndim != dims + 2)
            return conv_front(input, weight, bias, dims, name, ns, stride, 1, pad, nd, dilation,
                              false, 0, NULL, groups, ret);
        for (int32_t i = 0; i < dims; i++) {
            const int64_t d = dilation[nd == 1 ? 0 : i];
            const int64_t total = d * (weight->sizes[i + 2] - 1);
            const int64_t left = total / 2;
            pad[i] = total - left;
            extra[i] = pad[i] - left;
            asym = asym || extra[i] != 0;
        }
    } else {
        return PT_ERROR(PT_ERR_RUNTIME, "Invalid padding string: '%s'", padding);
    }
    pt_tensor *y = NULL;
    PT_TRY(conv_front(input, weight, bias, dims, name, ns, stride, dims, pad, nd, dilation, false,
                      0, NULL, groups, &y));
    /* Note [asymmetric same padding] */
    for (int32_t i = 0; asym && i < dims && y; i++) {
        if (!extra[i]) continue;
        const int32_t dim = y->ndim - dims + i;
        pt_tensor *n = pt_call_narrow(y, dim, extra[i], y->sizes[dim] - extra[i]);
        pt_tensor_release(y);
        y = n;
    }
    return returned(y, ret);
}

#define CONV_OPS(D, SUF)                                                                           \
    pt_status pt_native_conv##D##d(const pt_tensor *input, const pt_tensor *weight,                \
                                   const pt_tensor *bias, int32_t ns, const int64_t *stride,       \
                                   int32_t np, const int64_t *padding, int32_t nd,                 \
                                   const int64_t *dilation, int64_t groups, pt_tensor **ret)       \
    {                                                                                              \
        return conv_front(input, weight, bias, D, "conv" #D "d", ns, stride, np, padding, nd,      \
                          dilation, false, 0, NULL, groups, ret);                                  \
    }                                                                                              \
    pt_status pt_native_conv##D##d_padding(const pt_tensor *input, const pt_tensor *weight,        \
                                           const pt_tensor *bias, int32_t ns,                      \
                                           const int64_t *stride, const char *padding,             \
                                           int32_t nd, const int64_t *dilation, int64_t groups,    \
                                           pt_tensor **ret)                                        \
    {                                                                                              \
        return conv_mode(input, weight, bias, D, "conv" #D "d", ns, stride, padding, nd,           \
                         dilation, groups, ret);                                                   \
    }                                                                                              \
    pt_status pt_native_conv_transpose##D##d##SUF(                                                 \
        const pt_tensor *input, const pt_tensor *weight, const pt_tensor *bias, int32_t ns,        \
        const int64_t *stride, int32_t np, const int64_t *padding, int32_t nop,                    \
        const int64_t *opad, int64_t groups, int32_t nd, const int64_t *dilation, pt_tensor **ret) \
    {                                                                                              \
        return conv_front(input, weight, bias, D, "conv_transpose" #D "d", ns, stride, np,        \
                          padding, nd, dilation, true, nop, opad, groups, ret);                    \
    }
CONV_OPS(1, )
CONV_OPS(2, _input)
CONV_OPS(3, _input)

/* ---------------------------------------------------------------- double backward */

/* a + b where either may be NULL (then the other, a new reference); consumes both. */
static pt_tensor *sum_of(pt_tensor *a, pt_tensor *b)
{
    if (!a) return b;
    if (!b) return a;
    pt_tensor *s = pt_call_add_Tensor(a, b, NULL);
    pt_tensor_release(a);
    pt_tensor_release(b);
    return s;
}

/* The gradients of convolution_backward's three outputs (ggI, ggW, ggb: any may be None) with
 * respect to its inputs grad_output, input and weight. A convolution is bilinear in its input and
 * weight, so: d/d grad_output = conv(ggI, w) + conv(x, ggW) + ggb over the channels;
 * d/d input = the input gradient of conv(x, ggW) against grad_output; d/d weight = the weight
 * gradient of conv(ggI, w) against grad_output. An output that nothing feeds is None. */
pt_status pt_native__convolution_double_backward(
    const pt_tensor *ggI, const pt_tensor *ggW, const pt_tensor *ggb, const pt_tensor *gO,
    const pt_tensor *weight, const pt_tensor *self, int32_t ns, const int64_t *stride, int32_t np,
    const int64_t *padding, int32_t nd, const int64_t *dilation, int32_t transposed, int32_t nop,
    const int64_t *opad, int64_t groups, int32_t nm, const int64_t *mask, pt_tensor **ret0,
    pt_tensor **ret1, pt_tensor **ret2)
{
    *ret0 = *ret1 = *ret2 = NULL;
    if (nm > 0 && mask[0]) {
        pt_tensor *r = NULL;
        bool failed = false;
        if (ggI) {
            r = pt_call_convolution(ggI, weight, NULL, ns, stride, np, padding, nd, dilation,
                                    transposed, nop, opad, groups);
            failed = !r;
        }
        if (!failed && ggW) {
            pt_tensor *t = pt_call_convolution(self, ggW, NULL, ns, stride, np, padding, nd,
                                               dilation, transposed, nop, opad, groups);
            failed = !t;
            r = sum_of(r, t);
        }
        if (!failed && ggb) {
            int64_t shape[5] = {1, -1, 1, 1, 1};
            pt_tensor *v = pt_call_view(ggb, gO->ndim, shape);
            failed = !v;
            if (v && !r) {
                pt_tensor *z = pt_call_zeros_like(gO, -1, -1, NULL, -1, -1);
                r = z ? sum_of(z, v) : NULL;
                failed = !r;
                if (!z) pt_tensor_release(v);
            } else if (v) {
                r = sum_of(r, v);
            }
        }
        if (failed) {
            if (r) pt_tensor_release(r);
            return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        }
        *ret0 = r;
    }
    pt_status st = PT_OK;
    if (nm > 1 && mask[1] && ggW) {
        const int64_t m[3] = {1, 0, 0};
        pt_tensor *unused1 = NULL, *unused2 = NULL;
        st = pt_call_convolution_backward(gO, self, ggW, -1, NULL, ns, stride, np, padding, nd,
                                          dilation, transposed, nop, opad, groups, 3, m, ret1,
                                          &unused1, &unused2);
        if (unused1) pt_tensor_release(unused1);
        if (unused2) pt_tensor_release(unused2);
    }
    if (st == PT_OK && nm > 2 && mask[2] && ggI) {
        const int64_t m[3] = {0, 1, 0};
        pt_tensor *unused0 = NULL, *unused2 = NULL;
        st = pt_call_convolution_backward(gO, ggI, weight, -1, NULL, ns, stride, np, padding, nd,
                                          dilation, transposed, nop, opad, groups, 3, m,
                                          &unused0, ret2, &unused2);
        if (unused0) pt_tensor_release(unused0);
        if (unused2) pt_tensor_release(unused2);
    }
    if (st != PT_OK) {
        pt_tensor *const r[3] = {*ret0, *ret1, *ret2};
        for (int i = 0; i < 3; i++)
            if (r[i]) pt_tensor_release(r[i]);
        *ret0 = *ret1 = *ret2 = NULL;
    }
    return st;
}

/* ---------------------------------------------------------------- which path */

pt_status pt_conv_path_of(const pt_tensor *input, const pt_tensor *weight, int32_t dims,
                          const int64_t *stride, const int64_t *padding, const int64_t *dilation,
                          int32_t transposed, const int64_t *output_padding, int64_t groups,
                          int32_t pass, int32_t *path)
{
    if (!input || !weight || !path || dims < 1 || dims > 3 || input->ndim != dims + 2 ||
        weight->ndim != dims + 2 || groups < 1 || pass < 0 || pass > 2)
        return PT_ERROR(PT_ERR_VALUE, "pt_conv_path_of: expected a batched input and a weight of "
                        "%d spatial dimensions, groups >= 1 and pass 0-2", (int)dims);
    pt_conv_geom g;
    pt_conv_geom_of(input->sizes, weight->sizes, input->dtype, dims, stride, padding, dilation,
                    transposed != 0, output_padding, groups, &g);
    g.cl = pt_conv_wants_cl(input, weight) && pt_conv_path_takes_cl(&g, pass);
    *path = pt_conv_path(&g, pass);
    return PT_OK;
}
