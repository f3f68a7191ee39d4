/* pool_composite.c - the pooling operators PyTorch writes as compositions of others
 * (CompositeImplicitAutograd), so that autograd records PyTorch's graph:
 *   - the 1-d pools (max_pool1d[_with_indices], avg_pool1d, adaptive_avg_pool1d,
 *     adaptive_max_pool1d) add a height of 1 (unsqueeze(-2)), pool in 2-d and squeeze it away
 *     (SqueezeBackward1 over the 2-d node);
 *   - max_pool2d / max_pool3d are max_pool2d/3d_with_indices without the indices;
 *   - adaptive_avg_pool2d/3d to an output of one element is a mean over the spatial dims
 *     (MeanBackward1, Note [global average pooling]), any other size _adaptive_avg_pool2d/3d.
 * Each checks its arguments first with torch's messages for the 1-d forms.
 */
#include <stdio.h>
#include <string.h>

#include "pool.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

static pt_status failed(void)
{
    return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
}

/* torch's checkDimRange(2, 4) for the 1-d pools. */
static pt_status check_rank_1d(const char *name, const pt_tensor *self)
{
    if (self->ndim == 2 || self->ndim == 3) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "Expected 2 to 3 dimensions, but got %d-dimensional tensor for "
                    "argument #1 'self' (while checking arguments for %s)", self->ndim, name);
}

/* torch's check1d: an int-list argument of a 1-d pool holds one value (or none, when allowed). */
static pt_status check_1d(const char *name, const char *arg, int32_t len, bool may_be_empty)
{
    if (len == 1 || (len == 0 && may_be_empty)) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME, "%s() argument '%s' should contain one int (got %d)", name, arg,
                    len);
}

/* self with a height of 1 inserted before the last dim, pooled by `pool`, squeezed back. */
static pt_status squeeze_both(pt_tensor **a, pt_tensor **b)
{
    pt_tensor *sa = pt_call_squeeze_dim(*a, -2);
    pt_tensor *sb = sa && b ? pt_call_squeeze_dim(*b, -2) : NULL;
    pt_tensor_release(*a);
    *a = sa;
    if (b) {
        pt_tensor_release(*b);
        *b = sb;
    }
    if (!sa || (b && !sb)) {
        if (sa) pt_tensor_release(sa);
        if (sb) pt_tensor_release(sb);
        return failed();
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- max pooling */

static pt_status max1d(const pt_tensor *self, int32_t k_len, const int64_t *k, int32_t s_len,
                       const int64_t *s, int32_t p_len, const int64_t *p, int32_t d_len,
                       const int64_t *d, int32_t ceil_mode, pt_tensor **ret0, pt_tensor **ret1)
{
    const int64_t k2[2] = {1, k[0]}, s2[2] = {1, s_len ? s[0] : k[0]}, p2[2] = {0, p[0]};
    const int64_t d2[2] = {1, d[0]};
    (void)k_len, (void)p_len, (void)d_len;
    pt_tensor *x = pt_call_unsqueeze(self, -2);
    if (!x) return failed();
    pt_tensor *o = NULL, *i = NULL;
    const pt_status st = pt_call_max_pool2d_with_indices(x, 2, k2, 2, s2, 2, p2, 2, d2, ceil_mode,
                                                         &o, &i);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    if (!ret1) {
        pt_tensor_release(i);
        PT_TRY(squeeze_both(&o, NULL));
        *ret0 = o;
        return PT_OK;
    }
    PT_TRY(squeeze_both(&o, &i));
    *ret0 = o;
    *ret1 = i;
    return PT_OK;
}

pt_status pt_native_max_pool1d_with_indices(const pt_tensor *self, int32_t kernel_size_len,
                                            const int64_t *kernel_size, int32_t stride_len,
                                            const int64_t *stride, int32_t padding_len,
                                            const int64_t *padding, int32_t dilation_len,
                                            const int64_t *dilation, int32_t ceil_mode,
                                            pt_tensor **ret0, pt_tensor **ret1)
{
    const char *name = "max_pool1d";
    PT_TRY(check_rank_1d(name, self));
    PT_TRY(check_1d(name, "kernel_size", kernel_size_len, false));
    PT_TRY(check_1d(name, "stride", stride_len, true));
    PT_TRY(check_1d(name, "padding", padding_len, false));
    PT_TRY(check_1d(name, "dilation", dilation_len, false));
    return max1d(self, kernel_size_len, kernel_size, stride_len, stride, padding_len, padding,
                 dilation_len, dilation, ceil_mode, ret0, ret1);
}

/* torch's check_max_pool1d: max_pool1d's own checks and messages. */
static pt_status check_max_pool1d(const pt_tensor *self, int32_t k_len, const int64_t *k,
                                  int32_t s_len, const int64_t *s, int32_t p_len,
                                  const int64_t *p, int32_t d_len, const int64_t *d,
                                  int32_t ceil_mode)
{
    const int64_t *z = self->sizes;
    if (!((self->ndim == 2 && z[1] != 0) || (self->ndim == 3 && z[1] != 0 && z[2] != 0))) {
        char buf[256];
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d: Expected 2D or 3D (batch mode) tensor with "
                        "optional 0 dim batch size for input, but got:%s",
                        pt_pool_sizes_str(buf, sizeof buf, self->ndim, z));
    }
    if (k_len != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() kernel_size must be an int, list of ints or "
                        "tuple of ints of size 1 but got size %d", k_len);
    if (s_len != 0 && s_len != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() stride must be None, an int, list of ints, "
                        "or tuple of ints of size 1 but got size %d", s_len);
    if (p_len != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() padding must be an int, list of ints, or "
                        "tuple of ints of size 1 but got size %d", p_len);
    if (d_len != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() dilation must be an int, list of ints or "
                        "tuple of ints of size 1 but got size %d", d_len);
    const int64_t kk = k[0], ss = s_len ? s[0] : k[0], pp = p[0], dd = d[0];
    if (kk <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() kernel_size must be greater than zero, but "
                        "got %lld", (long long)kk);
    if (ss <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() stride must be greater than zero, but got "
                        "%lld", (long long)ss);
    if (pp < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() padding must be non-negative, but got %lld",
                        (long long)pp);
    if (pp > kk / 2)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() padding should be at most half of kernel "
                        "size, but got padding=%lld and kernel_size=%lld", (long long)pp,
                        (long long)kk);
    if (dd <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() dilation must be greater than zero, but got "
                        "%lld", (long long)dd);
    const int64_t in = z[self->ndim - 1];
    const int64_t num = in + 2 * pp - dd * (kk - 1) - 1 + (ceil_mode ? ss - 1 : 0);
    int64_t out = (num >= 0 ? num / ss : -((-num + ss - 1) / ss)) + 1;
    if (ceil_mode && (out - 1) * ss >= in + pp) out--;
    if (out <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "max_pool1d() Invalid computed output size: %lld",
                        (long long)out);
    return PT_OK;
}

pt_status pt_native_max_pool1d(const pt_tensor *self, int32_t kernel_size_len,
                               const int64_t *kernel_size, int32_t stride_len,
                               const int64_t *stride, int32_t padding_len, const int64_t *padding,
                               int32_t dilation_len, const int64_t *dilation, int32_t ceil_mode,
                               pt_tensor **ret)
{
    PT_TRY(check_max_pool1d(self, kernel_size_len, kernel_size, stride_len, stride, padding_len,
                            padding, dilation_len, dilation, ceil_mode));
    return max1d(self, kernel_size_len, kernel_size, stride_len, stride, padding_len, padding,
                 dilation_len, dilation, ceil_mode, ret, NULL);
}

pt_status pt_native_max_pool2d(const pt_tensor *self, int32_t kernel_size_len,
                               const int64_t *kernel_size, int32_t stride_len,
                               const int64_t *stride, int32_t padding_len, const int64_t *padding,
                               int32_t dilation_len, const int64_t *dilation, int32_t ceil_mode,
                               pt_tensor **ret)
{
    pt_tensor *i = NULL;
    PT_TRY(pt_call_max_pool2d_with_indices(self, kernel_size_len, kernel_size, stride_len, stride,
                                           padding_len, padding, dilation_len, dilation,
                                           ceil_mode, ret, &i));
    pt_tensor_release(i);
    return PT_OK;
}

pt_status pt_native_max_pool3d(const pt_tensor *self, int32_t kernel_size_len,
                               const int64_t *kernel_size, int32_t stride_len,
                               const int64_t *stride, int32_t padding_len, const int64_t *padding,
                               int32_t dilation_len, const int64_t *dilation, int32_t ceil_mode,
                               pt_tensor **ret)
{
    pt_tensor *i = NULL;
    PT_TRY(pt_call_max_pool3d_with_indices(self, kernel_size_len, kernel_size, stride_len, stride,
                                           padding_len, padding, dilation_len, dilation,
                                           ceil_mode, ret, &i));
    pt_tensor_release(i);
    return PT_OK;
}

/* ---------------------------------------------------------------- average pooling */

pt_status pt_native_avg_pool1d(const pt_tensor *self, int32_t kernel_size_len,
                               const int64_t *kernel_size, int32_t stride_len,
                               const int64_t *stride, int32_t padding_len, const int64_t *padding,
                               int32_t ceil_mode, int32_t count_include_pad, pt_tensor **ret)
{
    const char *name = "avg_pool1d";
    PT_TRY(check_rank_1d(name, self));
    PT_TRY(check_1d(name, "kernel_size", kernel_size_len, false));
    PT_TRY(check_1d(name, "stride", stride_len, true));
    PT_TRY(check_1d(name, "padding", padding_len, false));
    const int64_t k2[2] = {1, kernel_size[0]};
    const int64_t s2[2] = {1, stride_len ? stride[0] : kernel_size[0]}, p2[2] = {0, padding[0]};
    pt_tensor *x = pt_call_unsqueeze(self, -2);
    if (!x) return failed();
    pt_tensor *o = pt_call_avg_pool2d(x, 2, k2, 2, s2, 2, p2, ceil_mode, count_include_pad, NULL);
    pt_tensor_release(x);
    if (!o) return failed();
    PT_TRY(squeeze_both(&o, NULL));
    *ret = o;
    return PT_OK;
}

/* ---------------------------------------------------------------- adaptive pooling */

pt_status pt_native_adaptive_avg_pool1d(const pt_tensor *self, int32_t output_size_len,
                                        const int64_t *output_size, pt_tensor **ret)
{
    const char *name = "adaptive_avg_pool1d";
    PT_TRY(check_rank_1d(name, self));
    PT_TRY(check_1d(name, "output_size", output_size_len, false));
    const int64_t os[2] = {1, output_size[0]};
    pt_tensor *x = pt_call_unsqueeze(self, -2);
    if (!x) return failed();
    pt_tensor *o = pt_call_adaptive_avg_pool2d(x, 2, os);
    pt_tensor_release(x);
    if (!o) return failed();
    PT_TRY(squeeze_both(&o, NULL));
    *ret = o;
    return PT_OK;
}

static pt_status adaptive_avg(int32_t nd, const pt_tensor *self, int32_t len,
                              const int64_t *output_size, pt_tensor **ret)
{
    if (len != nd)
        return PT_ERROR(PT_ERR_RUNTIME, "adaptive_avg_pool%dd: output_size must be %d", nd, nd);
    bool ones = true, negative = false;
    for (int32_t i = 0; i < nd; i++) {
        ones = ones && output_size[i] == 1;
        negative = negative || output_size[i] < 0;
    }
    if (negative) {
        if (nd == 2)
            return PT_ERROR(PT_ERR_RUNTIME, "adaptive_avg_pool2d: elements of output_size must be "
                            "greater than or equal to 0 but received {%lld, %lld}",
                            (long long)output_size[0], (long long)output_size[1]);
        return PT_ERROR(PT_ERR_RUNTIME, "adaptive_avg_pool3d: elements of output_size must be "
                        "greater than or equal to 0 but received {%lld, %lld,%lld}",
                        (long long)output_size[0], (long long)output_size[1],
                        (long long)output_size[2]);
    }
    pt_tensor *o;
    /* Note [global average pooling]: an output of ones is the mean over the pooled dims, as in
     * torch (MeanBackward1). _adaptive_avg_pool2d's plane-sum kernel was used here for planar
     * input once, when the mean's backward (an expanded gradient divided by the count) stored one
     * element at a time: 32 x 512 x 7 x 7 forward and backward took 550 us by the mean against
     * 170 by the kernel. With the broadcast rows stored as vectors (csrc/kernels/copy.c,
     * cpu/elementwise_loops.h) the mean takes 250 us, torch 430, and the node is torch's. */
    if (ones) {
        const int64_t dims[3] = {-1, -2, -3};
        o = pt_call_mean_dim(self, nd, dims, 1, -1);
    } else {
        o = nd == 2 ? pt_call__adaptive_avg_pool2d(self, 2, output_size)
                    : pt_call__adaptive_avg_pool3d(self, 3, output_size);
    }
    if (!o) return failed();
    *ret = o;
    return PT_OK;
}

pt_status pt_native_adaptive_avg_pool2d(const pt_tensor *self, int32_t output_size_len,
                                        const int64_t *output_size, pt_tensor **ret)
{
    return adaptive_avg(2, self, output_size_len, output_size, ret);
}

pt_status pt_native_adaptive_avg_pool3d(const pt_tensor *self, int32_t output_size_len,
                                        const int64_t *output_size, pt_tensor **ret)
{
    return adaptive_avg(3, self, output_size_len, output_size, ret);
}

pt_status pt_native_adaptive_max_pool1d(const pt_tensor *self, int32_t output_size_len,
                                        const int64_t *output_size, pt_tensor **ret0,
                                        pt_tensor **ret1)
{
    const char *name = "adaptive_max_pool1d";
    PT_TRY(check_rank_1d(name, self));
    PT_TRY(check_1d(name, "output_size", output_size_len, false));
    const int64_t os[2] = {1, output_size[0]};
    pt_tensor *x = pt_call_unsqueeze(self, -2);
    if (!x) return failed();
    pt_tensor *o = NULL, *i = NULL;
    const pt_status st = pt_call_adaptive_max_pool2d(x, 2, os, &o, &i);
    pt_tensor_release(x);
    if (st != PT_OK) return st;
    PT_TRY(squeeze_both(&o, &i));
    *ret0 = o;
    *ret1 = i;
    return PT_OK;
}
