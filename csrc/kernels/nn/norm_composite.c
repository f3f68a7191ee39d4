/* norm_composite.c - the operators torch writes as compositions of others (CompositeImplicit-
 * Autograd), so that autograd records torch's nodes: linear (addmm, or matmul and an in-place add,
 * with the views around them), batch_norm, instance_norm, layer_norm and group_norm (the native_*
 * operators, NativeBatchNormBackward0 and friends) and rms_norm (its arithmetic: pow, mean, add,
 * rsqrt, mul, as torch's CPU path).
 */
#include <string.h>

#include "iter.h"
#include "nn/norm.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

static void drop(pt_tensor *t)
{
    if (t) pt_tensor_release(t);
}

/* ---------------------------------------------------------------- linear */
/* torch: a 2-d input with a bias is one addmm; a contiguous input of 3 or more dims with a bias is
 * flattened to 2-d, given to addmm and viewed back; everything else is matmul with weight.t(),
 * then the bias added (torch adds in place; out of place records the same AddBackward0 here, where
 * matmul's result may be a view). */
pt_status pt_native_linear(const pt_tensor *input, const pt_tensor *weight, const pt_tensor *bias,
                           pt_tensor **ret)
{
    pt_tensor *wt = pt_call_t(weight);
    if (!wt) return returned(NULL, ret);
    pt_tensor *r = NULL;
    if (bias && input->ndim == 2) {
        r = pt_call_addmm(bias, input, wt, NULL, NULL);
    } else if (bias && input->ndim >= 3 && pt_tensor_is_contiguous(input,
                                                                   PT_MEMORY_FORMAT_CONTIGUOUS)) {
        const int64_t K = input->sizes[input->ndim - 1];
        const int64_t flat[2] = {K ? input->numel / K : 0, K};
        pt_tensor *x2 = pt_call_reshape(input, 2, flat);
        pt_tensor *y2 = x2 ? pt_call_addmm(bias, x2, wt, NULL, NULL) : NULL;
        if (y2) {
            int64_t sizes[PT_MAX_DIMS];
            memcpy(sizes, input->sizes, sizeof(int64_t) * (size_t)input->ndim);
            sizes[input->ndim - 1] = y2->sizes[1];
            r = pt_call_view(y2, input->ndim, sizes);
        }
        drop(y2);
        drop(x2);
    } else {
        r = pt_call_matmul(input, wt);
        if (r && bias) {
            pt_tensor *s = pt_call_add_Tensor(r, bias, NULL);
            pt_tensor_release(r);
            r = s;
        }
    }
    pt_tensor_release(wt);
    return returned(r, ret);
}

/* ---------------------------------------------------------------- batch and instance norm */
static pt_status check_features(const char *name, const pt_tensor *input, const pt_tensor *t)
{
    if (!t || input->ndim < 2) return PT_OK;
    if (t->numel != input->sizes[1])
        return PT_ERROR(PT_ERR_RUNTIME, "%s should contain %lld elements not %lld", name,
                        (long long)input->sizes[1], (long long)t->numel);
    return PT_OK;
}

pt_status pt_native_batch_norm(const pt_tensor *input, const pt_tensor *weight,
                               const pt_tensor *bias, const pt_tensor *running_mean,
                               const pt_tensor *running_var, int32_t training, double momentum,
                               double eps, int32_t cudnn_enabled, pt_tensor **ret)
{
    (void)cudnn_enabled;
    PT_TRY(check_features("running_mean", input, running_mean));
    PT_TRY(check_features("running_var", input, running_var));
    PT_TRY(check_features("weight", input, weight));
    PT_TRY(check_features("bias", input, bias));
    pt_tensor *r[3] = {NULL, NULL, NULL};
    PT_TRY(pt_call_native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                     momentum, eps, &r[0], &r[1], &r[2]));
    drop(r[1]);
    drop(r[2]);
    *ret = r[0];
    return PT_OK;
}

/* torch: (N, C, *) is seen as (1, N * C, *), the per-channel parameters and running statistics
 * repeated N times; the running statistics then take the mean over the samples of the updated
 * copies. */
pt_status pt_native_instance_norm(const pt_tensor *input, const pt_tensor *weight,
                                  const pt_tensor *bias, const pt_tensor *running_mean,
                                  const pt_tensor *running_var, int32_t use_input_stats,
                                  double momentum, double eps, int32_t cudnn_enabled,
                                  pt_tensor **ret)
{
    if (!use_input_stats && (!running_mean || !running_var))
        return PT_ERROR(PT_ERR_RUNTIME, "Expected running_mean and running_var to be defined when "
                        "use_input_stats is false");
    if (input->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "instance_norm: expected an input of at least 2 dims "
                        "(N, C, ...), but got %d", (int)input->ndim);
    const int64_t b = input->sizes[0], c = input->sizes[1];
    int64_t shape[PT_MAX_DIMS];
    memcpy(shape, input->sizes, sizeof(int64_t) * (size_t)input->ndim);
    shape[0] = 1;
    shape[1] = b * c;
    const pt_tensor *src[4] = {weight, bias, running_mean, running_var};
    pt_tensor *rep[4] = {NULL}, *xc = NULL, *xv = NULL, *out = NULL;
    pt_status st = PT_OK;
    for (int i = 0; i < 4; i++)
        if (src[i] && !(rep[i] = pt_call_repeat(src[i], 1, &b))) goto fail;
    if (!(xc = pt_call_contiguous(input, PT_MEMORY_FORMAT_CONTIGUOUS))) goto fail;
    if (!(xv = pt_call_view(xc, input->ndim, shape))) goto fail;
    if ((st = pt_native_batch_norm(xv, rep[0], rep[1], rep[2], rep[3], use_input_stats, momentum,
                                   eps, cudnn_enabled, &out)))
        goto done;
    const int64_t bc[2] = {b, c}, zero = 0;
    for (int i = 2; i < 4; i++) {
        if (!src[i]) continue;
        pt_tensor *v = pt_call_view(rep[i], 2, bc);
        pt_tensor *m = v ? pt_call_mean_dim(v, 1, &zero, 0, -1) : NULL;
        st = m ? pt_tensor_copy_((pt_tensor *)src[i], m) : pt_error_code();
        drop(m);
        drop(v);
        if (st) goto done;
    }
    pt_tensor *r = pt_call_view(out, input->ndim, input->sizes);
    if (!r) goto fail;
    *ret = r;
    goto done;
fail:
    st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
done:
    for (int i = 0; i < 4; i++) drop(rep[i]);
    drop(out);
    drop(xv);
    drop(xc);
    return st;
}

/* ---------------------------------------------------------------- layer, group and rms norm */
pt_status pt_native_layer_norm(const pt_tensor *input, int32_t normalized_shape_len,
                               const int64_t *normalized_shape, const pt_tensor *weight,
                               const pt_tensor *bias, double eps, int32_t cudnn_enable,
                               pt_tensor **ret)
{
    (void)cudnn_enable;
    pt_tensor *r[3] = {NULL, NULL, NULL};
    PT_TRY(pt_call_native_layer_norm(input, normalized_shape_len, normalized_shape, weight, bias,
                                     eps, &r[0], &r[1], &r[2]));
    drop(r[1]);
    drop(r[2]);
    *ret = r[0];
    return PT_OK;
}

pt_status pt_native_group_norm(const pt_tensor *input, int64_t num_groups, const pt_tensor *weight,
                               const pt_tensor *bias, double eps, int32_t cudnn_enabled,
                               pt_tensor **ret)
{
    (void)cudnn_enabled;
    if (input->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected at least 2 dimensions for input tensor but "
                        "received %d", (int)input->ndim);
    if (num_groups <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected num groups to be greater than 0, got %lld",
                        (long long)num_groups);
    const int64_t N = input->sizes[0], C = input->sizes[1];
    int64_t hw = 1;
    for (int32_t d = 2; d < input->ndim; d++) hw *= input->sizes[d];
    pt_tensor *r[3] = {NULL, NULL, NULL};
    PT_TRY(pt_call_native_group_norm(input, weight, bias, N, C, hw, num_groups, eps,
                                     &r[0], &r[1], &r[2]));
    drop(r[1]);
    drop(r[2]);
    *ret = r[0];
    return PT_OK;
}

/* torch's CPU rms_norm: x * rsqrt(mean(x^2 over the normalized dims) + eps) [* weight], in
 * float32 for float16 / bfloat16 inputs (cast back before the weight); eps None is the compute
 * type's machine epsilon. */
pt_status pt_native_rms_norm(const pt_tensor *input, int32_t normalized_shape_len,
                             const int64_t *normalized_shape, const pt_tensor *weight,
                             const double *eps, pt_tensor **ret)
{
    char a[256], b[256];
    const int32_t axis = input->ndim - normalized_shape_len;
    if (weight && (weight->ndim != normalized_shape_len ||
                   memcmp(weight->sizes, normalized_shape,
                          sizeof(int64_t) * (size_t)normalized_shape_len))) {
        pt_norm_format_sizes(a, sizeof a, weight->ndim, weight->sizes);
        pt_norm_format_sizes(b, sizeof b, normalized_shape_len, normalized_shape);
        return PT_ERROR(PT_ERR_RUNTIME, "Expected weight to be of same shape as normalized_shape, "
                        "but got weight of shape %s and normalized_shape = %s", a, b);
    }
    if (axis < 0 || memcmp(input->sizes + axis, normalized_shape,
                           sizeof(int64_t) * (size_t)normalized_shape_len)) {
        pt_norm_format_sizes(a, sizeof a, normalized_shape_len, normalized_shape);
        pt_norm_format_sizes(b, sizeof b, input->ndim, input->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "Given normalized_shape=%s, expected input with shape "
                        "[*%s, but got input of size%s", a, a + 1, b);
    }
    if (!pt_is_floating(input->dtype))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"rms_norm\" not implemented for '%s'",
                        pt_iter_type_name(input->dtype));
    const int32_t dt = input->dtype;
    const bool reduced = dt == PT_FLOAT16 || dt == PT_BFLOAT16;
    const int32_t cdt = reduced ? PT_FLOAT32 : dt;
    const double e = eps ? *eps : pt_dtype_info_of(cdt)->eps;
    int64_t dims[PT_MAX_DIMS];
    for (int32_t i = 0; i < normalized_shape_len; i++) dims[i] = axis + i;
    pt_tensor *x = NULL, *sq = NULL, *m = NULL, *s = NULL, *rs = NULL, *y = NULL, *yc = NULL;
    pt_tensor *r = NULL;
    const pt_scalar two = {PT_SCALAR_INT, 2, 0.0, 0.0}, es = {PT_SCALAR_FLOAT, 0, e, 0.0};
    if (reduced) {
        x = pt_call_to_dtype(input, cdt, 0, 0, -1);
    } else {
        x = (pt_tensor *)input;
        pt_tensor_retain(x);
    }
    if (!x || !(sq = pt_call_pow_Tensor_Scalar(x, &two)) ||
        !(m = pt_call_mean_dim(sq, normalized_shape_len, dims, 1, -1)) ||
        !(s = pt_call_add__Scalar(m, &es, NULL)) || !(rs = pt_call_rsqrt(m)) ||
        !(y = pt_call_mul_Tensor(x, rs)))
        goto done;
    if (reduced) {
        if (!(yc = pt_call_to_dtype(y, dt, 0, 0, -1))) goto done;
    } else {
        yc = y;
        pt_tensor_retain(yc);
    }
    if (weight) r = pt_call_mul_Tensor(yc, weight);
    else {
        r = yc;
        pt_tensor_retain(r);
    }
done:
    drop(yc);
    drop(y);
    drop(rs);
    drop(s);
    drop(m);
    drop(sq);
    drop(x);
    return returned(r, ret);
}
