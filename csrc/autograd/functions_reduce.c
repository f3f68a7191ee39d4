/* functions_reduce.c - the formula helpers of the reductions: prod, the value-selecting ones
 * (max/min/median along a dim, amax/amin), logsumexp, var/std, norm, cumsum and cumprod. Same
 * contract as functions.c: operator calls through the entry points, temporaries in an arena, a
 * new reference or NULL with the error recorded. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "functions_internal.h"

/* ---------------------------------------------------------------- reductions */
/* The number of zeros in t (-1 on error). */
static int64_t count_zeros(const pt_tensor *t)
{
    pt_tensor *z = pt_call_eq_Scalar(t, &S_ZERO);
    if (!z) return -1;
    pt_tensor *s = pt_call_sum(z, -1);
    pt_tensor_release(z);
    if (!s) return -1;
    pt_scalar v;
    pt_status st = pt_tensor_item(s, &v);
    pt_tensor_release(s);
    return st == PT_OK ? v.i : -1;
}

pt_tensor *pt_ag_prod_backward(const pt_tensor *grad, const pt_tensor *self,
                               const pt_tensor *result)
{
    int64_t zeros = count_zeros(self);
    if (zeros < 0) return NULL;
    arena ar = {0};
    pt_tensor *r;
    if (zeros == 0) {
        pt_tensor *t;
        K(t, pt_call_div_Tensor(result, self));
        K(t, pt_call_conj(t));
        K(r, pt_call_mul_Tensor(grad, t));
    } else if (zeros > 1) {
        K(r, pt_call_zeros_like(self, -1, -1, NULL, -1, -1));
    } else {
        pt_tensor *mask, *others, *p, *w;
        K(mask, pt_call_eq_Scalar(self, &S_ZERO));
        K(others, pt_call_masked_fill_Scalar(self, mask, &S_ONE));
        K(p, pt_call_prod(others, -1));
        K(w, pt_call_where_ScalarOther(mask, p, &S_ZERO));
        K(w, pt_call_conj(w));
        K(r, pt_call_mul_Tensor(grad, w));
    }
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* Exclusive cumulative product along dim: out[i] = prod(x[:i]). */
static pt_tensor *exclusive_cumprod(arena *a, const pt_tensor *x, int64_t dim)
{
    const int64_t n = x->sizes[dim];
    pt_tensor *first = keep(a, pt_call_narrow(x, dim, 0, 1));
    if (!first) return NULL;
    pt_device dev = x->device; /* not ones_like: it would copy negative strides */
    pt_tensor *one = keep(a, pt_call_ones(first->ndim, first->sizes, x->dtype, -1, &dev, -1));
    if (!one) return NULL;
    if (n == 1) return one;
    pt_tensor *head = keep(a, pt_call_narrow(x, dim, 0, n - 1));
    if (!head) return NULL;
    pt_tensor *parts[2] = {one, head};
    pt_tensor *shifted = keep(a, pt_call_cat(2, parts, dim));
    if (!shifted) return NULL;
    return keep(a, pt_call_cumprod(shifted, dim, -1));
}

pt_tensor *pt_ag_prod_dim_backward(const pt_tensor *grad, const pt_tensor *self,
                                   const pt_tensor *result, int64_t dim, int32_t keepdim)
{
    if (self->ndim == 0) return pt_ag_prod_backward(grad, self, result);
    int64_t d = wrap(dim, self->ndim);
    if (d < 0) return NULL;
    int64_t zeros = count_zeros(self);
    if (zeros < 0) return NULL;
    arena ar = {0};
    pt_tensor *g = (pt_tensor *)grad, *res = (pt_tensor *)result, *r;
    if (!keepdim) {
        K(g, pt_call_unsqueeze(grad, d));
        K(res, pt_call_unsqueeze(result, d));
    }
    if (zeros == 0) {
        pt_tensor *t;
        K(t, pt_call_div_Tensor(res, self));
        K(t, pt_call_conj(t));
        K(r, pt_call_mul_Tensor(g, t));
        return finish(&ar, r);
    }
    if (self->sizes[d] == 0) {
        K(r, pt_call_zeros_like(self, -1, -1, NULL, -1, -1));
        return finish(&ar, r);
    }
    {
        /* products of the other elements, from exclusive products from both ends */
        const uint64_t saved = pt_below_autograd_begin();
        pt_tensor *left = exclusive_cumprod(&ar, self, d);
        pt_tensor *flipped = left ? keep(&ar, pt_call_flip(self, 1, &d)) : NULL;
        pt_tensor *rf = flipped ? exclusive_cumprod(&ar, flipped, d) : NULL;
        pt_tensor *right = rf ? keep(&ar, pt_call_flip(rf, 1, &d)) : NULL;
        pt_tensor *others = right ? keep(&ar, pt_call_mul_Tensor(left, right)) : NULL;
        if (others) others = keep(&ar, pt_call_conj(others));
        r = others ? keep(&ar, pt_call_mul_Tensor(g, others)) : NULL;
        pt_below_autograd_end(saved);
        if (!r) goto fail;
        return pt_ag_refuse_double_backward(finish(&ar, r), "prod_backward", grad);
    }
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_value_selecting_backward(const pt_tensor *grad, int64_t dim,
                                          const pt_tensor *indices, int32_t n,
                                          const int64_t *sizes, int32_t keepdim)
{
    arena ar = {0};
    pt_tensor *g = (pt_tensor *)grad, *idx = (pt_tensor *)indices, *z, *r;
    int64_t d = wrap(dim, n);
    if (d < 0) return NULL;
    if (n == 0) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    if (!keepdim) {
        K(g, pt_call_unsqueeze(grad, d));
        K(idx, pt_call_unsqueeze(indices, d));
    }
    {
        const uint64_t saved = pt_below_autograd_begin();
        z = keep(&ar, zeros_for(grad, n, sizes));
        r = z ? keep(&ar, pt_call_scatter_src(z, d, idx, g)) : NULL;
        pt_below_autograd_end(saved);
        if (!r) goto fail;
    }
    return pt_ag_refuse_double_backward(finish(&ar, r), "value_selecting_reduction_backward", grad);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_evenly_distribute_backward(const pt_tensor *grad, const pt_tensor *self,
                                            const pt_tensor *result)
{
    arena ar = {0};
    pt_tensor *eq, *n1, *n2, *nn, *mask, *cnt, *each, *r;
    K(eq, pt_call_eq_Tensor(self, result));
    K(n1, pt_call_isnan(self));
    K(n2, pt_call_isnan(result));
    K(nn, pt_call_logical_and(n1, n2));
    K(mask, pt_call_logical_or(eq, nn));
    K(cnt, pt_call_sum(mask, -1));
    K(each, pt_call_div_Tensor(grad, cnt));
    K(r, pt_call_where_ScalarOther(mask, each, &S_ZERO));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_amax_amin_backward(const pt_tensor *grad, const pt_tensor *self,
                                    const pt_tensor *result, int32_t nd, const int64_t *dims,
                                    int32_t keepdim)
{
    arena ar = {0};
    pt_tensor *g, *res, *mask, *cnt, *each, *r;
    const int32_t n = self->ndim;
    int64_t all[PT_MAX_DIMS];
    if (nd <= 0) {
        for (int32_t i = 0; i < n; i++) all[i] = i;
        dims = all;
        nd = n;
    }
    g = pt_ag_restore_dims(&ar, grad, n, nd, dims, keepdim);
    if (!g) goto fail;
    res = pt_ag_restore_dims(&ar, result, n, nd, dims, keepdim);
    if (!res) goto fail;
    K(mask, pt_call_eq_Tensor(res, self));
    if (nd > 0 && n > 0) K(cnt, pt_call_sum_dim_IntList(mask, nd, dims, 1, -1));
    else K(cnt, pt_call_sum_dim_IntList(mask, 0, NULL, 1, -1));
    K(each, pt_call_div_Tensor(g, cnt));
    K(r, pt_call_where_ScalarOther(mask, each, &S_ZERO));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_logsumexp_backward(const pt_tensor *grad, const pt_tensor *self,
                                    const pt_tensor *result, int32_t nd, const int64_t *dims,
                                    int32_t keepdim)
{
    arena ar = {0};
    pt_tensor *g, *res, *d, *e, *r;
    g = pt_ag_restore_dims(&ar, grad, self->ndim, nd, dims, keepdim);
    if (!g) goto fail;
    res = pt_ag_restore_dims(&ar, result, self->ndim, nd, dims, keepdim);
    if (!res) goto fail;
    K(d, pt_call_sub_Tensor(self, res, &S_ONE));
    K(e, pt_call_exp(d));
    K(e, pt_call_conj(e));
    K(r, pt_call_mul_Tensor(g, e));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* correction: None -> 1; a bool (unbiased) -> 1 or 0; a number as given. */
static double correction_value(const pt_scalar *c)
{
    if (!c) return 1.0;
    if (c->kind == PT_SCALAR_BOOL) return c->i ? 1.0 : 0.0;
    return scalar_value(c);
}

pt_tensor *pt_ag_var_backward(const pt_tensor *grad, const pt_tensor *self, int32_t nd,
                              const int64_t *dims, const pt_scalar *correction, int32_t keepdim)
{
    const int32_t n = self->ndim;
    bool mask[PT_MAX_DIMS];
    if (pt_ag_reduced_mask(n, nd, dims, mask) != PT_OK) return NULL;
    int64_t count = 1;
    for (int32_t i = 0; i < n; i++)
        if (mask[i]) count *= self->sizes[i];
    int64_t all[PT_MAX_DIMS];
    int32_t na = 0;
    for (int32_t i = 0; i < n; i++)
        if (mask[i]) all[na++] = i;
    arena ar = {0};
    pt_tensor *g, *mean, *centered, *t, *r;
    g = pt_ag_restore_dims(&ar, grad, n, nd, dims, keepdim);
    if (!g) goto fail;
    K(mean, pt_call_mean_dim(self, na, all, 1, -1));
    K(centered, pt_call_sub_Tensor(self, mean, &S_ONE));
    pt_scalar k = s_double(2.0 / ((double)count - correction_value(correction)));
    K(t, pt_call_mul_Scalar(centered, &k));
    K(r, pt_call_mul_Tensor(g, t));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_std_backward(const pt_tensor *grad, const pt_tensor *self,
                              const pt_tensor *result, int32_t nd, const int64_t *dims,
                              const pt_scalar *correction, int32_t keepdim)
{
    arena ar = {0};
    pt_tensor *two, *gv, *zero, *r;
    K(two, pt_call_mul_Scalar(result, &S_TWO));
    K(gv, pt_call_div_Tensor(grad, two));
    K(zero, pt_call_eq_Scalar(result, &S_ZERO));
    K(gv, pt_call_masked_fill_Scalar(gv, zero, &S_ZERO));
    K(r, pt_ag_var_backward(gv, self, nd, dims, correction, keepdim));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_norm_backward(const pt_tensor *grad, const pt_tensor *self,
                               const pt_tensor *result, const pt_scalar *p, int32_t nd,
                               const int64_t *dims, int32_t keepdim)
{
    const double pv = p ? scalar_value(p) : 2.0;
    arena ar = {0};
    pt_tensor *g, *res, *r;
    const int32_t n = self->ndim;
    if (nd < 0) { /* a full reduction: the 0-d gradient broadcasts as it is */
        g = (pt_tensor *)grad;
        res = (pt_tensor *)result;
    } else {
        g = pt_ag_restore_dims(&ar, grad, n, nd, dims, keepdim);
        if (!g) goto fail;
        res = pt_ag_restore_dims(&ar, result, n, nd, dims, keepdim);
        if (!res) goto fail;
    }
    if (pv == 0.0) {
        K(r, pt_call_zeros_like(self, -1, -1, NULL, -1, -1));
    } else if (pv == 1.0) {
        pt_tensor *s;
        K(s, pt_call_sgn(self));
        K(r, pt_call_mul_Tensor(s, g));
    } else if (pv == 2.0) {
        pt_tensor *q, *z;
        K(q, pt_call_div_Tensor(g, res));
        K(z, pt_call_eq_Scalar(res, &S_ZERO));
        K(q, pt_call_masked_fill_Scalar(q, z, &S_ZERO));
        K(r, pt_call_mul_Tensor(self, q));
    } else if (isinf(pv)) {
        pt_tensor *a, *mask, *cnt, *s, *q, *t;
        K(a, pt_call_abs(self));
        K(mask, pt_call_eq_Tensor(a, res));
        if (nd < 0) K(cnt, pt_call_sum(mask, -1));
        else {
            int64_t all[PT_MAX_DIMS];
            bool m[PT_MAX_DIMS];
            int32_t na = 0;
            if (pt_ag_reduced_mask(n, nd, dims, m) != PT_OK) goto fail;
            for (int32_t i = 0; i < n; i++)
                if (m[i]) all[na++] = i;
            K(cnt, pt_call_sum_dim_IntList(mask, na, all, 1, -1));
        }
        K(s, pt_call_sgn(self));
        K(q, pt_call_div_Tensor(g, cnt));
        K(t, pt_call_mul_Tensor(s, q));
        K(r, pt_call_where_ScalarOther(mask, t, &S_ZERO));
    } else {
        pt_tensor *a, *ap, *t, *rp, *q, *z;
        pt_scalar pm2 = s_double(pv - 2.0), pm1 = s_double(pv - 1.0);
        K(a, pt_call_abs(self));
        K(ap, pt_call_pow_Tensor_Scalar(a, &pm2));
        K(t, pt_call_mul_Tensor(self, ap));
        K(t, pt_call_mul_Tensor(t, g));
        K(rp, pt_call_pow_Tensor_Scalar(res, &pm1));
        K(q, pt_call_div_Tensor(t, rp));
        K(z, pt_call_eq_Scalar(res, &S_ZERO));
        K(r, pt_call_masked_fill_Scalar(q, z, &S_ZERO));
    }
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_cumsum_backward(const pt_tensor *grad, int64_t dim)
{
    if (grad->ndim == 0) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    int64_t d = wrap(dim, grad->ndim);
    if (d < 0) return NULL;
    arena ar = {0};
    pt_tensor *f, *c, *r;
    K(f, pt_call_flip(grad, 1, &d));
    K(c, pt_call_cumsum(f, d, -1));
    K(r, pt_call_flip(c, 1, &d));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* The gradient of element k of cumprod's input, one k at a time, as PyTorch computes it when
 * the input holds zeros (dividing by the input is then wrong): output[i] with x[k] left out is
 * prod(x[:k]) * prod(x[k+1:i+1]) for i >= k, and element k gets the sum of those times grad[i].
 * Quadratic in the dim's size, but built from operators, so it is differentiable again. */
static pt_tensor *cumprod_omitting(arena *a, const pt_tensor *x, int64_t d, int64_t k)
{
    const int64_t n = x->sizes[d];
    const int64_t k1 = k + 1, zero = 0;
    pt_tensor *until = NULL, *from = NULL, *ones, *rest, *scaled;
    if (k > 0) {
        pt_tensor *head = keep(a, pt_call_slice_Tensor(x, d, &zero, &k, 1));
        if (!head || !(until = keep(a, pt_call_prod_dim_int(head, d, 1, -1)))) return NULL;
        if (k == n - 1) return until;
    }
    if (!(rest = keep(a, pt_call_slice_Tensor(x, d, &k1, NULL, 1)))) return NULL;
    if (!(from = keep(a, pt_call_cumprod(rest, d, -1)))) return NULL;
    if (k == 0) {
        /* ones of x's shape with dim d of size 1 (ones_like would copy x's strides, which may
         * be negative) */
        int64_t shape[PT_MAX_DIMS];
        memcpy(shape, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
        shape[d] = 1;
        pt_device dev = x->device;
        if (!(ones = keep(a, pt_call_ones(x->ndim, shape, x->dtype, -1, &dev, -1)))) return NULL;
        pt_tensor *parts[2] = {ones, from};
        return keep(a, pt_call_cat(2, parts, d));
    }
    if (!(scaled = keep(a, pt_call_mul_Tensor(until, from)))) return NULL;
    pt_tensor *parts[2] = {until, scaled};
    return keep(a, pt_call_cat(2, parts, d));
}

static pt_tensor *cumprod_backward_zeros(const pt_tensor *grad, const pt_tensor *self,
                                         int64_t dim)
{
    const int64_t d = wrap(dim, self->ndim);
    if (d < 0) return NULL;
    const int64_t n = self->sizes[d];
    if (n == 1) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    pt_tensor **pieces = calloc((size_t)n, sizeof *pieces);
    if (!pieces) {
        PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory");
        return NULL;
    }
    pt_tensor *r = NULL;
    int64_t k = 0;
    for (; k < n; k++) {
        arena ar = {0};
        pt_tensor *omitted = cumprod_omitting(&ar, self, d, k), *gk = NULL, *prod = NULL;
        if (omitted) gk = keep(&ar, pt_call_slice_Tensor(grad, d, &k, NULL, 1));
        if (gk) omitted = keep(&ar, pt_call_conj(omitted));
        if (gk && omitted) prod = keep(&ar, pt_call_mul_Tensor(omitted, gk));
        pieces[k] = prod ? pt_call_sum_dim_IntList(prod, 1, &d, 1, -1) : NULL;
        arena_free(&ar);
        if (!pieces[k]) break;
    }
    if (k == n) r = pt_call_cat((int32_t)n, pieces, d);
    for (int64_t i = 0; i < n; i++) pt_tensor_release(pieces[i]);
    free(pieces);
    return r;
}

pt_tensor *pt_ag_cumprod_backward(const pt_tensor *grad, const pt_tensor *self, int64_t dim,
                                  const pt_tensor *result)
{
    if (self->ndim == 0) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    int64_t zeros = count_zeros(self);
    if (zeros < 0) return NULL;
    if (zeros > 0) return cumprod_backward_zeros(grad, self, dim);
    arena ar = {0};
    pt_tensor *rcj, *gr, *rc, *sc, *r;
    K(rcj, pt_call_conj(result));
    K(gr, pt_call_mul_Tensor(grad, rcj));
    K(rc, pt_ag_cumsum_backward(gr, dim));
    K(sc, pt_call_conj(self));
    K(r, pt_call_div_Tensor(rc, sc));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}
