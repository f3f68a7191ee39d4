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
 *
 * Note [conv_tbc by products]
 * convolution takes floating dtypes only, while torch's conv_tbc, a loop of addmm over the
 * kernel's taps, takes every dtype addmm takes (integers and complex too). Those dtypes go
 * through the same sum here: with xp the input padded (or trimmed) in time,
 *     out = bias + sum_k xp[k : k + olen] @ weight[k],
 * and its backward: grad_weight[k] = xp[k : k + olen]^T @ grad (over time and batch),
 * grad_bias = grad summed over time and batch, and grad_input the sum over k of
 * grad @ weight[k]^T placed at time offset k, with the padding cut off again. All are operator
 * calls, so a second derivative traces them.
 */
#include <stdlib.h>
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

static void release_all(pt_tensor **r, int n)
{
    for (int i = 0; i < n; i++)
        if (r[i]) pt_tensor_release(r[i]);
}

/* True for the dtypes convolution takes (the other ones go by products). */
static bool by_convolution(int32_t dtype)
{
    return dtype == PT_FLOAT32 || dtype == PT_FLOAT64 || dtype == PT_FLOAT16 ||
           dtype == PT_BFLOAT16;
}

/* The input padded by `pad` zeros at both ends of time, or trimmed by -pad (a new reference). */
static pt_status padded_input(const pt_tensor *self, int64_t pad, pt_tensor **xp)
{
    if (pad >= 0) {
        const int64_t widen[6] = {0, 0, 0, 0, pad, pad};
        return called(pt_call_constant_pad_nd(self, 6, widen, NULL), xp);
    }
    return called(pt_call_narrow(self, 0, -pad, self->sizes[0] + 2 * pad), xp);
}

/* *acc += t (or *acc = t when *acc is NULL); t's reference is consumed. */
static pt_status accumulate(pt_tensor **acc, pt_tensor *t)
{
    if (!*acc) {
        *acc = t;
        return PT_OK;
    }
    pt_tensor *s = pt_call_add_Tensor(*acc, t, NULL);
    pt_tensor_release(t);
    pt_tensor_release(*acc);
    *acc = NULL;
    return called(s, acc);
}

/* xp[k : k + olen] @ weight[k] (Note [conv_tbc by products]). */
static pt_status tap_product(const pt_tensor *xp, const pt_tensor *weight, int64_t k, int64_t olen,
                             pt_tensor **out)
{
    pt_tensor *xk = NULL, *wk = NULL;
    PT_TRY(called(pt_call_narrow(xp, 0, k, olen), &xk));
    pt_status st = called(pt_call_select_int(weight, 0, k), &wk);
    if (st == PT_OK) st = called(pt_call_matmul(xk, wk), out);
    pt_tensor_release(xk);
    if (wk) pt_tensor_release(wk);
    return st;
}

static pt_status forward_by_products(const pt_tensor *self, const pt_tensor *weight,
                                     const pt_tensor *bias, int64_t pad, int64_t olen,
                                     pt_tensor **ret)
{
    pt_tensor *xp = NULL, *acc = NULL;
    PT_TRY(padded_input(self, pad, &xp));
    pt_status st = PT_OK;
    for (int64_t k = 0; k < weight->sizes[0] && st == PT_OK; k++) {
        pt_tensor *y = NULL;
        st = tap_product(xp, weight, k, olen, &y);
        if (st == PT_OK) st = accumulate(&acc, y);
    }
    pt_tensor_release(xp);
    if (st == PT_OK) {
        pt_tensor *b = pt_call_add_Tensor(acc, bias, NULL);
        st = called(b, ret);
    }
    if (acc) pt_tensor_release(acc);
    return st;
}

static pt_status backward_by_products(const pt_tensor *grad, const pt_tensor *input,
                                      const pt_tensor *weight, int64_t pad, int64_t olen,
                                      pt_tensor **gi, pt_tensor **gw, pt_tensor **gb)
{
    const int64_t kw = weight->sizes[0], tp = input->sizes[0] + 2 * pad;
    const int64_t cin = weight->sizes[1], cout = weight->sizes[2];
    const int64_t time_batch[2] = {0, 1};
    pt_tensor *xp = NULL, *g2 = NULL, *acc = NULL;
    pt_tensor **taps = calloc((size_t)kw, sizeof *taps);
    if (!taps) return PT_ERROR(PT_ERR_MEMORY, "conv_tbc_backward: out of memory");
    pt_status st = called(pt_call_sum_dim_IntList(grad, 2, time_batch, 0, grad->dtype), gb);
    if (st == PT_OK) st = padded_input(input, pad, &xp);
    const int64_t rows_g[2] = {-1, cout}, rows_x[2] = {-1, cin};
    if (st == PT_OK) st = called(pt_call_reshape(grad, 2, rows_g), &g2);
    for (int64_t k = 0; k < kw && st == PT_OK; k++) {
        /* grad_weight[k] = xp[k : k + olen] (rows: time and batch)^T @ grad */
        pt_tensor *xk = NULL, *x2 = NULL, *x2t = NULL;
        st = called(pt_call_narrow(xp, 0, k, olen), &xk);
        if (st == PT_OK) st = called(pt_call_reshape(xk, 2, rows_x), &x2);
        if (st == PT_OK) st = called(pt_call_t(x2), &x2t);
        if (st == PT_OK) st = called(pt_call_mm(x2t, g2), &taps[k]);
        if (xk) pt_tensor_release(xk);
        if (x2) pt_tensor_release(x2);
        if (x2t) pt_tensor_release(x2t);
        /* grad @ weight[k]^T, placed at time offset k of the padded input */
        pt_tensor *wk = NULL, *wkt = NULL, *part = NULL, *placed = NULL;
        if (st == PT_OK) st = called(pt_call_select_int(weight, 0, k), &wk);
        if (st == PT_OK) st = called(pt_call_t(wk), &wkt);
        if (st == PT_OK) st = called(pt_call_matmul(grad, wkt), &part);
        if (st == PT_OK) {
            const int64_t place[6] = {0, 0, 0, 0, k, tp - olen - k};
            st = called(pt_call_constant_pad_nd(part, 6, place, NULL), &placed);
        }
        if (wk) pt_tensor_release(wk);
        if (wkt) pt_tensor_release(wkt);
        if (part) pt_tensor_release(part);
        if (st == PT_OK) st = accumulate(&acc, placed);
    }
    if (st == PT_OK) st = called(pt_call_stack((int32_t)kw, taps, 0), gw);
    if (st == PT_OK) {
        /* cut the padding off again, or give the trimmed steps a zero gradient */
        if (pad >= 0) {
            pt_tensor *n = pt_call_narrow(acc, 0, pad, input->sizes[0]);
            st = n ? called(pt_call_contiguous(n, PT_MEMORY_FORMAT_CONTIGUOUS), gi)
                   : called(NULL, gi);
            if (n) pt_tensor_release(n);
        } else {
            const int64_t widen[6] = {0, 0, 0, 0, -pad, -pad};
            st = called(pt_call_constant_pad_nd(acc, 6, widen, NULL), gi);
        }
    }
    for (int64_t k = 0; k < kw; k++)
        if (taps[k]) pt_tensor_release(taps[k]);
    free(taps);
    if (xp) pt_tensor_release(xp);
    if (g2) pt_tensor_release(g2);
    if (acc) pt_tensor_release(acc);
    if (st != PT_OK) {
        pt_tensor *r[3] = {*gi, *gw, *gb};
        release_all(r, 3);
        *gi = *gw = *gb = NULL;
    }
    return st;
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
    if (!by_convolution(self->dtype))
        return forward_by_products(self, weight, bias, pad, olen, ret);
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
    if (!by_convolution(input->dtype))
        return backward_by_products(grad, input, weight, pad, olen, ret0, ret1, ret2);
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
