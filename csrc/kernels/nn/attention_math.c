/* attention_math.c - scaled_dot_product_attention, the math composition that serves what the
 * fused kernel does not (_scaled_dot_product_attention_math), and _safe_softmax.
 *
 * scaled_dot_product_attention follows torch's CPU choice: a boolean mask becomes an additive
 * one (0 where True, -inf where False) in the query's dtype, then the fused kernel
 * (_scaled_dot_product_flash_attention_for_cpu, attention.c) serves calls without dropout whose
 * query, key and value are 4-D with one last dimension, non-empty sequences, a last stride of 1,
 * float/double/half/bfloat16, batch and head counts that agree (key/value heads dividing query
 * heads under enable_gqa) and a mask that needs no gradient; every other call is the math
 * composition, whose graph is torch's (matmuls, SafeSoftmaxBackward0, dropout).
 */
#include <math.h>
#include <string.h>

#include "autograd.h"
#include "iter.h"
#include "linalg_internal.h"
#include "native.h"

static const char *const SDPA = "scaled_dot_product_attention";

static bool step(pt_tensor **cur, pt_tensor *r)
{
    pt_tensor_release(*cur);
    *cur = r;
    return r != NULL;
}

static pt_tensor *ref(const pt_tensor *t)
{
    pt_tensor_retain((pt_tensor *)t);
    return (pt_tensor *)t;
}

static pt_status failed(void)
{
    return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
}

/* ---------------------------------------------------------------- _safe_softmax */
/* softmax along dim, with rows that are -inf throughout giving 0 rather than nan. */
pt_status pt_kernel__safe_softmax(const pt_tensor *self, int64_t dim, int32_t dtype,
                                  pt_tensor **ret)
{
    if (!self) return PT_ERROR(PT_ERR_VALUE, "_safe_softmax: self must be a tensor");
    pt_tensor *y = pt_call_softmax_int(self, dim, dtype);
    if (!y) return failed();
    if (self->numel == 0 || self->device.type == PT_DEV_META || !pt_is_floating(self->dtype)) {
        *ret = y;
        return PT_OK;
    }
    pt_tensor *m = NULL;
    const pt_scalar neg_inf = {PT_SCALAR_FLOAT, 0, -INFINITY, 0.0};
    const pt_scalar zero = {PT_SCALAR_FLOAT, 0, 0.0, 0.0};
    bool ok = step(&m, pt_call_amax(self, 1, &dim, 1)) && step(&m, pt_call_eq_Scalar(m, &neg_inf));
    pt_tensor *filled = ok ? pt_call_masked_fill__Scalar(y, m, &zero) : NULL;
    pt_tensor_release(m);
    if (!filled) {
        pt_tensor_release(y);
        return failed();
    }
    pt_tensor_release(filled); /* y itself */
    *ret = y;
    return PT_OK;
}

/* ---------------------------------------------------------------- masks */
/* torch's convert_boolean_attn_mask: 0 where True, -inf where False, in dtype; other masks
 * pass (a new reference), None stays NULL. */
static pt_status additive_mask(const pt_tensor *mask, int32_t dtype, pt_tensor **out)
{
    *out = NULL;
    if (!mask) return PT_OK;
    if (mask->dtype != PT_BOOL) {
        pt_tensor_retain((pt_tensor *)mask);
        *out = (pt_tensor *)mask;
        return PT_OK;
    }
    const pt_scalar neg_inf = {PT_SCALAR_FLOAT, 0, -INFINITY, 0.0};
    pt_tensor *r = NULL, *inv = NULL;
    bool ok = step(&r, pt_call_zeros_like(mask, dtype, -1, NULL, -1, -1)) &&
              step(&inv, pt_call_logical_not(mask));
    pt_tensor *f = ok ? pt_call_masked_fill__Scalar(r, inv, &neg_inf) : NULL;
    pt_tensor_release(inv);
    if (!f) {
        pt_tensor_release(r);
        return failed();
    }
    pt_tensor_release(f);
    *out = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- the math composition */
/* k repeated over the query heads (the math path's enable_gqa): (B, Hk, S, E) ->
 * (B, Hk * rep, S, E), each key head rep times in a row. */
static pt_tensor *repeat_heads(const pt_tensor *k, int64_t rep)
{
    const int32_t n = k->ndim;
    int64_t big[PT_MAX_DIMS + 1], flat[PT_MAX_DIMS];
    for (int32_t d = 0, o = 0; d < n; d++) {
        big[o++] = k->sizes[d];
        if (d == n - 3) big[o++] = rep;
        flat[d] = k->sizes[d] * (d == n - 3 ? rep : 1);
    }
    pt_tensor *r = NULL;
    if (!step(&r, pt_call_unsqueeze(k, n - 2))) return NULL;
    if (!step(&r, pt_call_expand(r, n + 1, big, 0))) return NULL;
    step(&r, pt_call_reshape(r, n, flat));
    return r;
}

pt_status pt_native__scaled_dot_product_attention_math(
    const pt_tensor *query, const pt_tensor *key, const pt_tensor *value,
    const pt_tensor *attn_mask, double dropout_p, int32_t is_causal, const pt_tensor *dropout_mask,
    const double *scale, int32_t enable_gqa, pt_tensor **ret0, pt_tensor **ret1)
{
    const char *op = "_scaled_dot_product_attention_math";
    if (!query || !key || !value)
        return PT_ERROR(PT_ERR_VALUE, "%s: query, key and value must be tensors", op);
    if (query->ndim < 2 || key->ndim < 2 || value->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: query, key and value must have at least 2 "
                        "dimensions", op);
    if (is_causal && attn_mask)
        return PT_ERROR(PT_ERR_RUNTIME, "_scaled_dot_product_attention: Explicit attn_mask "
                        "should not be set when is_causal=True");
    const int32_t dt = query->dtype;
    const bool half = dt == PT_FLOAT16 || dt == PT_BFLOAT16;
    const int64_t L = query->sizes[query->ndim - 2], S = key->sizes[key->ndim - 2];
    const double sf = scale ? *scale : 1.0 / sqrt((double)query->sizes[query->ndim - 1]);
    const pt_scalar root = {PT_SCALAR_FLOAT, 0, sqrt(sf), 0.0};
    pt_tensor *q = NULL, *k = NULL, *v = NULL, *mask = NULL, *attn = NULL, *out = NULL;
    pt_status st = PT_ERR_RUNTIME;
    /* float16 and bfloat16 compute in float32, as torch's math path */
    if (!step(&q, half ? pt_call_to_dtype(query, PT_FLOAT32, 0, 0, -1) :
                         ref(query)))
        goto done;
    if (!step(&k, half ? pt_call_to_dtype(key, PT_FLOAT32, 0, 0, -1) :
                         ref(key)))
        goto done;
    if (!step(&v, half ? pt_call_to_dtype(value, PT_FLOAT32, 0, 0, -1) :
                         ref(value)))
        goto done;
    if (enable_gqa && query->ndim >= 3 && key->ndim >= 3 && value->ndim >= 3) {
        const int64_t hq = query->sizes[query->ndim - 3], hk = key->sizes[key->ndim - 3];
        if (hk > 0 && hq != hk && hq % hk == 0) {
            if (!step(&k, repeat_heads(k, hq / hk))) goto done;
            if (!step(&v, repeat_heads(v, hq / value->sizes[value->ndim - 3]))) goto done;
        }
    }
    if (is_causal) {
        const int64_t ls[2] = {L, S};
        pt_tensor *ones = pt_call_ones(2, ls, PT_BOOL, -1, NULL, -1);
        pt_tensor *tril = ones ? pt_call_tril(ones, 0) : NULL;
        pt_tensor_release(ones);
        if (!tril) goto done;
        st = additive_mask(tril, q->dtype, &mask);
        pt_tensor_release(tril);
        if (st != PT_OK) goto done;
        st = PT_ERR_RUNTIME;
    } else if (attn_mask) {
        pt_tensor_retain((pt_tensor *)attn_mask);
        mask = (pt_tensor *)attn_mask;
    }
    if (!step(&q, pt_call_mul_Scalar(q, &root))) goto done;
    if (!step(&k, pt_call_mul_Scalar(k, &root))) goto done;
    if (!step(&k, pt_call_transpose_int(k, -2, -1))) goto done;
    if (!step(&attn, pt_call_matmul(q, k))) goto done;
    if (mask && !step(&attn, pt_call_add_Tensor(attn, mask, NULL))) goto done;
    if (!step(&attn, pt_call__safe_softmax(attn, -1, -1))) goto done;
    if (dropout_p > 0.0) {
        if (dropout_mask) {
            const pt_scalar zero = {PT_SCALAR_FLOAT, 0, 0.0, 0.0};
            const pt_scalar keep = {PT_SCALAR_FLOAT, 0, 1.0 / (1.0 - dropout_p), 0.0};
            pt_tensor *inv = pt_call_logical_not(dropout_mask);
            if (!inv) goto done;
            const bool ok = step(&attn, pt_call_masked_fill_Scalar(attn, inv, &zero));
            pt_tensor_release(inv);
            if (!ok || !step(&attn, pt_call_mul_Scalar(attn, &keep))) goto done;
        } else if (!step(&attn, pt_call_dropout(attn, dropout_p, 1))) {
            goto done;
        }
    }
    if (!step(&out, pt_call_matmul(attn, v))) goto done;
    if (half && (!step(&out, pt_call_to_dtype(out, dt, 0, 0, -1)) ||
                 !step(&attn, pt_call_to_dtype(attn, dt, 0, 0, -1))))
        goto done;
    st = PT_OK;
done:
    if (st != PT_OK) st = failed();
    pt_tensor_release(q);
    pt_tensor_release(k);
    pt_tensor_release(v);
    pt_tensor_release(mask);
    if (st != PT_OK) {
        pt_tensor_release(attn);
        pt_tensor_release(out);
        return st;
    }
    *ret0 = out;
    *ret1 = attn;
    return PT_OK;
}

/* ---------------------------------------------------------------- the public operator */
static bool fused_serves(const pt_tensor *q, const pt_tensor *k, const pt_tensor *v,
                         const pt_tensor *mask, double dropout_p, int32_t enable_gqa)
{
    if (dropout_p > 0.0 || q->ndim != 4 || k->ndim != 4 || v->ndim != 4) return false;
    if (q->device.type != PT_DEV_CPU) return false;
    const int32_t dt = q->dtype;
    if (dt != PT_FLOAT32 && dt != PT_FLOAT64 && dt != PT_FLOAT16 && dt != PT_BFLOAT16) return false;
    if (k->dtype != dt || v->dtype != dt) return false;
    if (q->sizes[3] != k->sizes[3] || q->sizes[3] != v->sizes[3]) return false;
    if (q->sizes[2] == 0 || k->sizes[2] == 0 || k->sizes[2] != v->sizes[2]) return false;
    if (q->strides[3] != 1 || k->strides[3] != 1 || v->strides[3] != 1) return false;
    if (q->sizes[0] != k->sizes[0] || q->sizes[0] != v->sizes[0]) return false;
    const int64_t hq = q->sizes[1], hk = k->sizes[1];
    if (k->sizes[1] != v->sizes[1]) return false;
    if (enable_gqa ? (hk == 0 || hq % hk != 0) : hq != hk) return false;
    if (mask && pt_requires_grad(mask) && pt_grad_mode_enabled()) return false;
    if (mask) { /* 2-D, or 4-D with batch and head counts of 1 or the query's */
        if (mask->ndim != 2 && mask->ndim != 4) return false;
        if (mask->ndim == 4 && ((mask->sizes[0] != 1 && mask->sizes[0] != q->sizes[0]) ||
                                (mask->sizes[1] != 1 && mask->sizes[1] != hq)))
            return false;
    }
    return true;
}

pt_status pt_native_scaled_dot_product_attention(const pt_tensor *query, const pt_tensor *key,
                                                 const pt_tensor *value,
                                                 const pt_tensor *attn_mask, double dropout_p,
                                                 int32_t is_causal, const double *scale,
                                                 int32_t enable_gqa, pt_tensor **ret)
{
    if (!query || !key || !value)
        return PT_ERROR(PT_ERR_VALUE, "%s: query, key and value must be tensors", SDPA);
    if (query->dtype != key->dtype || query->dtype != value->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected query, key, and value to have the same dtype, "
                        "but got query.dtype: %s key.dtype: %s and value.dtype: %s instead.",
                        pt_linalg_cxx_name(query->dtype), pt_linalg_cxx_name(key->dtype),
                        pt_linalg_cxx_name(value->dtype));
    if (query->ndim < 2 || key->ndim < 2 || value->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected query, key, and value to all be  at least 2 "
                        "dimensional, but got query.dim: %d key.dim: %d and value.dim: %d "
                        "instead.", (int)query->ndim, (int)key->ndim, (int)value->ndim);
    if (attn_mask && attn_mask->dtype != PT_BOOL && !pt_is_floating(attn_mask->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "Expected attn_mask dtype to be bool or float or to "
                        "match query dtype, but got attn_mask.dtype: %s and  query.dtype: %s "
                        "instead.", pt_linalg_cxx_name(attn_mask->dtype),
                        pt_linalg_cxx_name(query->dtype));
    if (!(dropout_p >= 0.0 && dropout_p <= 1.0))
        return PT_ERROR(PT_ERR_RUNTIME, "dropout probability has to be between 0 and 1, but got "
                        "%g", dropout_p);
    pt_tensor *mask = NULL;
    PT_TRY(additive_mask(attn_mask, query->dtype, &mask));
    pt_tensor *out = NULL, *aux = NULL;
    pt_status st;
    if (fused_serves(query, key, value, mask, dropout_p, enable_gqa))
        st = pt_call__scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p,
                                                                 is_causal, mask, scale, &out,
                                                                 &aux);
    else
        st = pt_call__scaled_dot_product_attention_math(query, key, value, mask, dropout_p,
                                                        is_causal, NULL, scale, enable_gqa, &out,
                                                        &aux);
    pt_tensor_release(mask);
    pt_tensor_release(aux);
    if (st != PT_OK) return st;
    *ret = out;
    return PT_OK;
}
