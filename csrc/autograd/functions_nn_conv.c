/* functions_nn_conv.c - the formula helpers of the convolution family (csrc/ops/derivatives.yaml,
 * "nn: conv"): one output of _convolution_double_backward at a time, so that each gradient a node
 * computes is one formula, and im2col's gradient.
 */
#include "functions_internal.h"

static const int64_t masks[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* Keeps output `which` of a three-output call and releases the others. */
static pt_tensor *keep_one(pt_status st, pt_tensor **r, int64_t which)
{
    pt_tensor *out = st == PT_OK ? r[which] : NULL;
    for (int i = 0; i < 3; i++)
        if (r[i] && r[i] != out) pt_tensor_release(r[i]);
    return out;
}

pt_tensor *pt_ag_convolution_double_backward_one(
    const pt_tensor *ggI, const pt_tensor *ggW, const pt_tensor *ggb, const pt_tensor *gO,
    const pt_tensor *weight, const pt_tensor *input, int32_t ns, const int64_t *stride, int32_t np,
    const int64_t *padding, int32_t nd, const int64_t *dilation, int32_t transposed, int32_t nop,
    const int64_t *output_padding, int64_t groups, int64_t which)
{
    pt_tensor *r[3] = {NULL, NULL, NULL};
    const pt_status st = pt_call__convolution_double_backward(
        ggI, ggW, ggb, gO, weight, input, ns, stride, np, padding, nd, dilation, transposed, nop,
        output_padding, groups, 3, masks[which], &r[0], &r[1], &r[2]);
    pt_tensor *out = keep_one(st, r, which);
    if (out || st != PT_OK) return out;
    /* nothing feeds this gradient: zeros of its input's shape */
    const pt_tensor *like = which == 0 ? gO : which == 1 ? input : weight;
    return pt_call_zeros_like(like, -1, -1, NULL, -1, -1);
}

pt_tensor *pt_ag_im2col_backward(const pt_tensor *grad, int32_t n, const int64_t *self_sizes,
                                 int32_t nk, const int64_t *kernel_size, int32_t nd,
                                 const int64_t *dilation, int32_t np, const int64_t *padding,
                                 int32_t ns, const int64_t *stride)
{
    const int64_t out[2] = {self_sizes[n - 2], self_sizes[n - 1]};
    return pt_call_col2im(grad, 2, out, nk, kernel_size, nd, dilation, np, padding, ns, stride);
}
