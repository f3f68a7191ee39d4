/* conv_tbc.c - conv_tbc and conv_tbc_backward: a 1-D convolution of a (time, batch, in_channels)
 * input with a (kernel_width, in_channels, out_channels) weight and an out_channels bias, padded
 * by `pad` zeros at both ends of time, giving (time + 2 * pad - kernel_width + 1, batch,
 * out_channels).
 *
 * Both are one convolution (convolution_backward) with the operands' dimensions permuted into
 * (batch, channels, time) and (out, in, kernel) views; a negative pad trims -pad steps off both
 * ends of the input instead (the gradient of the trimmed steps is zero). conv_tbc is
 * CompositeExplicitAutograd with its own derivative (ConvTbcBackward0, as torch's);
 * conv_tbc_backward is CompositeImplicitAutograd, so a second derivative goes through
 * convolution_backward's.
 */
#include <string.h>

#include "conv.h"
#include "iter.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

static pt_status called(pt_tensor *r, pt_tensor **out)
{
    *out = r;
    if (r) return PT_OK;
    return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
}

/* torch's checks, in its order; *olen is the output's time length. */
static pt_status check(const pt_tensor *self, const pt_tensor *weight, const pt_tensor *bias,
                       int64_t pad, int64_t *olen)
{
    if (!self || !weight || !bias)
        return PT_ERROR(PT_ERR_TYPE, "conv_tbc(): arguments 'self', 'weight' and 'bias' must be "
                        "Tensor");
    if (self->ndim != 3)
        return PT_ERROR(PT_ERR_RUNTIME, "Input must have 3 dims: time, batch, in_channel");
    if (weight->ndim != 3)
        return PT_ERROR(PT_ERR_RUNTIME, "Weight tensor must have 3 dims: kernel_width, "
                        "in_channels, out_channels.");
    if (bias->ndim != 1) return PT_ERROR(PT_ERR_RUNTIME, "Bias must be 1-D");
    if (self->sizes[2] != weight->sizes[1])
        return PT_ERROR(PT_ERR_RUNTIME, "Input dim 2 (input channels) is not == dim 1 in the "
                        "weight tensor");
    if (weight->sizes[2] != bias->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "Bias size must equal dim 2 in the weight tensor (output "
                        "channels).");
    if (weight->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "self and mat2 must have the same dtype, but got %s and "
                        "%s", pt_iter_type_name(self->dtype), pt_iter_type_name(weight->dtype));
    *olen = self->sizes[0] + 2 * pad - weight->sizes[0] + 1;
    if (*olen < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: "
                        "[%lld, %lld, %lld]", (long long)*olen, (long long)*olen,
                        (long long)self->sizes[1], (long long)weight->sizes[2]);
    return PT_OK;
}

/* The (batch, in_channels, time) view of the input, trimmed by -pad at both ends when pad < 0,
 * and the (out, in, kernel) view of the weight. */
static pt_status operands(const pt_tensor *self, const pt_tensor *weight, int64_t pad,
                          pt_tensor **x, pt_tensor **w)
{
    static const int64_t to_bct[3] = {1, 2, 0}, to_oik[3] = {2, 1, 0};
    *x = *w = NULL;
    pt_tensor *v = NULL;
    PT_TRY(called(pt_call_permute(self, 3, to_bct), &v));
    if (pad < 0) {
        pt_tensor *n = pt_call_narrow(v, 2, -pad, self->sizes[0] + 2 * pad);
        pt_tensor_release(v);
        PT_TRY(called(n, &v));
    }
    const pt_status st = called(pt_call_permute(weight, 3, to_oik), w);
    if (st != PT_OK) {
        pt_tensor_release(v);
        return st;
    }
    *x = v;
    return PT_OK;
}

pt_status pt_kernel_conv_tbc(const pt_tensor *self, const pt_tensor *weight,
                             const pt_tensor *bias, int64_t pad, pt_tensor **ret)
{
    int64_t olen = 0;
    PT_TRY(check(self, weight, bias, pad, &olen));
    if (olen == 0) {
        const int64_t sizes[3] = {0, self->sizes[1], weight->sizes[2]};
        return pt_tensor_empty(3, sizes, self->dtype, self->device, ret);
    }
    pt_tensor *x = NULL, *w = NULL;
    PT_TRY(operands(self, weight, pad, &x, &w));
    const int64_t one = 1, zero = 0, p = pad > 0 ? pad : 0;
    pt_tensor *y = pt_call_convolution(x, w, bias, 1, &one, 1, &p, 1, &one, 0, 1, &zero, 1);
    pt_tensor_release(x);
    pt_tensor_release(w);
    PT_TRY(called(y, &y));
    static const int64_t to_tbc[3] = {2, 0, 1};
    pt_tensor *t = pt_call_permute(y, 3, to_tbc);
    pt_tensor_release(y);
    PT_TRY(called(t, &t));
    const pt_status st = called(pt_call_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS), ret);
    pt_tensor_release(t);
    return st;
}

static void release_all(pt_tensor **r, int n)
{
    for (int i = 0; i < n; i++)
        if (r[i]) pt_tensor_release(r[i]);
}

pt_status pt_native_conv_tbc_backward(const pt_tensor *grad, const pt_tensor *input,
                                      const pt_tensor *weight, const pt_tensor *bias, int64_t pad,
                                      pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2)
{
    *ret0 = *ret1 = *ret2 = NULL;
    int64_t olen = 0;
    PT_TRY(check(input, weight, bias, pad, &olen));
    if (!grad) return PT_ERROR(PT_ERR_TYPE, "conv_tbc_backward(): argument 'self' must be Tensor");
    if (olen == 0) {
        pt_tensor *r[3] = {pt_call_zeros_like(input, -1, -1, NULL, -1, -1),
                           pt_call_zeros_like(weight, -1, -1, NULL, -1, -1),
                           pt_call_zeros_like(bias, -1, -1, NULL, -1, -1)};
        if (!r[0] || !r[1] || !r[2]) {
            release_all(r, 3);
            return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        }
        *ret0 = r[0], *ret1 = r[1], *ret2 = r[2];
        return PT_OK;
    }
    pt_tensor *x = NULL, *w = NULL, *g = NULL;
    PT_TRY(operands(input, weight, pad, &x, &w));
    static const int64_t to_bct[3] = {1, 2, 0};
    pt_status st = called(pt_call_permute(grad, 3, to_bct), &g);
    pt_tensor *r[3] = {NULL, NULL, NULL};
    if (st == PT_OK) {
        const int64_t one = 1, zero = 0, p = pad > 0 ? pad : 0, mask[3] = {1, 1, 1};
        const int64_t bias_sizes[1] = {bias->sizes[0]};
        st = pt_call_convolution_backward(g, x, w, 1, bias_sizes, 1, &one, 1, &p, 1, &one, 0, 1,
                                          &zero, 1, 3, mask, &r[0], &r[1], &r[2]);
    }
    pt_tensor_release(x);
    pt_tensor_release(w);
    if (g) pt_tensor_release(g);
    if (st != PT_OK) {
        release_all(r, 3);
        return st;
    }
    /* back to (time, batch, in) and (kernel, in, out); the trimmed steps' gradient is zero */
    pt_tensor *gx = r[0];
    if (pad < 0) {
        const int64_t widen[2] = {-pad, -pad};
        st = called(pt_call_constant_pad_nd(r[0], 2, widen, NULL), &gx);
        pt_tensor_release(r[0]);
        r[0] = gx;
    }
    static const int64_t from_bct[3] = {2, 0, 1}, from_oik[3] = {2, 1, 0};
    pt_tensor *a = NULL, *b = NULL;
    if (st == PT_OK) st = called(pt_call_permute(r[0], 3, from_bct), &a);
    if (st == PT_OK) st = called(pt_call_permute(r[1], 3, from_oik), &b);
    if (st == PT_OK) st = called(pt_call_contiguous(a, PT_MEMORY_FORMAT_CONTIGUOUS), ret0);
    if (st == PT_OK) st = called(pt_call_contiguous(b, PT_MEMORY_FORMAT_CONTIGUOUS), ret1);
    if (a) pt_tensor_release(a);
    if (b) pt_tensor_release(b);
    release_all(r, 2);
    if (st != PT_OK) {
        if (*ret0) pt_tensor_release(*ret0);
        if (*ret1) pt_tensor_release(*ret1);
        pt_tensor_release(r[2]);
        *ret0 = *ret1 = NULL;
        return st;
    }
    *ret2 = r[2];
    return PT_OK;
}
