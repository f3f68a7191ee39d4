/* functions_nn_norm.c - the formula helpers of the normalizations (their double backward) and of
 * embedding. Same contract as functions.c: a new reference or NULL with the error recorded.
 *
 * Note [norm double backward]
 * batch, layer and group norm are one computation seen through different axes: over a view of the
 * input, mean mu and inverse deviation r are constant along the "statistics" dims (the reduction
 * S, keepdim, of n elements) and the weight gamma along the others (its gradient is the reduction
 * P over the dims gamma is broadcast along):
 *   batch norm (N, C, *):           S over every dim but 1, P the same;
 *   layer norm (M, N):              S over dim 1, P over dim 0;
 *   group norm (N, G, C / G, HxW):  S over dims 2, 3, P over dims 0, 3.
 * The first backward is gI = gamma * B(gO), gG = P(gO * xhat), gB = P(gO), with xhat = (x - mu) r
 * and, when the statistics come from x (training), B(g) = r / n * (n g - S(g) - xhat S(g xhat));
 * in evaluation B(g) = r g. Its derivatives, given the gradients ggI, ggG, ggB of its outputs
 * (torch's batchnorm_double_backward and layer_norm_double_backward, written for any S and P):
 *   grad_out: gamma * B(ggI) + ggG * xhat + ggB,
 *   weight:   P(gO * B(ggI)),
 *   input:    r^3 / n * [xm * (S(ggI) S(gx) / n - S(ggI gx) + 3 r^2 / n * S(gx xm) S(ggI xm))
 *                        + S(ggI xm) (S(gx) / n - gx) + S(gx xm) (S(ggI) / n - ggI)]
 *             + r g2 - r S(g2) / n - xm r^3 S(g2 xm) / n     (training),
 *             r g2                                             (evaluation),
 * with xm = x - mu, gx = gO * gamma, g2 = gO * ggG. All are operators, so a gradient of these is again a graph. An undefined
 * result (no term applies) is zeros of the input's, the weight's or grad_out's shape.
 */
#include "functions_internal.h"

/* ---------------------------------------------------------------- double backward */
enum { DD_SLOTS = 160 };

/* The temporaries of one double backward: every operator's result is kept until the end, and
 * after the first failure nothing more is called (each step returns NULL). */
typedef struct dd {
    pt_tensor *t[DD_SLOTS];
    int n;
    bool bad;
    int32_t ns, np;        /* the S and P dims */
    int64_t sd[PT_MAX_DIMS], pd[PT_MAX_DIMS];
    double count;          /* n: the elements of one statistic */
    bool training;
} dd;

static pt_tensor *dd_keep(dd *a, pt_tensor *t)
{
    if (!t) {
        a->bad = true;
        return NULL;
    }
    if (a->n == DD_SLOTS) {
        pt_tensor_release(t);
        PT_ERROR(PT_ERR_RUNTIME, "autograd: too many temporaries in a norm double backward");
        a->bad = true;
        return NULL;
    }
    a->t[a->n++] = t;
    return t;
}

#define DD(expr) (a->bad ? NULL : dd_keep(a, (expr)))

static pt_tensor *mul(dd *a, const pt_tensor *x, const pt_tensor *y)
{
    return DD(pt_call_mul_Tensor(x, y));
}

static pt_tensor *add(dd *a, const pt_tensor *x, const pt_tensor *y)
{
    if (!x) return (pt_tensor *)y;
    return DD(pt_call_add_Tensor(x, y, NULL));
}

static pt_tensor *sub(dd *a, const pt_tensor *x, const pt_tensor *y)
{
    return DD(pt_call_sub_Tensor(x, y, NULL));
}

static pt_tensor *scale(dd *a, const pt_tensor *x, double v)
{
    const pt_scalar s = s_double(v);
    return DD(pt_call_mul_Scalar(x, &s));
}

static pt_tensor *sum_s(dd *a, const pt_tensor *x)
{
    return DD(pt_call_sum_dim_IntList(x, a->ns, a->sd, 1, -1));
}

static pt_tensor *sum_p(dd *a, const pt_tensor *x)
{
    return DD(pt_call_sum_dim_IntList(x, a->np, a->pd, 1, -1));
}

/* B(g) of the Note, times gamma when given. */
static pt_tensor *first_backward(dd *a, const pt_tensor *g, const pt_tensor *gamma,
                                 const pt_tensor *xm, const pt_tensor *r, const pt_tensor *r2)
{
    pt_tensor *h0 = gamma ? mul(a, gamma, r) : (pt_tensor *)r;
    if (!a->training) return mul(a, g, h0);
    h0 = scale(a, h0, 1.0 / a->count);
    pt_tensor *h1 = sub(a, scale(a, g, a->count), sum_s(a, g));
    h1 = sub(a, h1, mul(a, mul(a, xm, r2), sum_s(a, mul(a, g, xm))));
    return mul(a, h0, h1);
}

/* One result of the Note over the view (which: 0 input, 1 weight, 2 grad_out); *out NULL when no
 * term applies. x, gO and ggI have the view's shape, the others broadcast to it. */
static pt_status dd_core(dd *a, const pt_tensor *x, const pt_tensor *mu, const pt_tensor *r,
                         const pt_tensor *gamma, const pt_tensor *gO, const pt_tensor *ggI,
                         const pt_tensor *ggG, const pt_tensor *ggB, int64_t which,
                         pt_tensor **out)
{
    pt_tensor *res = NULL;
    const double n = a->count;
    pt_tensor *xm = sub(a, x, mu), *r2 = mul(a, r, r);
    if (which == 0) {
        if (a->training && ggI) {
            pt_tensor *r3 = mul(a, r2, r);
            pt_tensor *gx = gamma ? mul(a, gO, gamma) : (pt_tensor *)gO;
            pt_tensor *gx_s = sum_s(a, gx), *gx_xm_s = sum_s(a, mul(a, gx, xm));
            pt_tensor *gg_s = sum_s(a, ggI), *gg_xm_s = sum_s(a, mul(a, ggI, xm));
            pt_tensor *all = sub(a, scale(a, mul(a, gg_s, gx_s), 1.0 / n),
                                 sum_s(a, mul(a, ggI, gx)));
            all = add(a, all, scale(a, mul(a, mul(a, r2, gx_xm_s), gg_xm_s), 3.0 / n));
            pt_tensor *t0 = scale(a, mul(a, mul(a, xm, r3), all), 1.0 / n);
            pt_tensor *t1 = mul(a, scale(a, mul(a, gg_xm_s, r3), 1.0 / n),
                                sub(a, scale(a, gx_s, 1.0 / n), gx));
            pt_tensor *t2 = mul(a, scale(a, mul(a, gx_xm_s, r3), 1.0 / n),
                                sub(a, scale(a, gg_s, 1.0 / n), ggI));
            res = add(a, add(a, t0, t1), t2);
        }
        if (ggG) {
            pt_tensor *g2 = mul(a, gO, ggG), *term = mul(a, g2, r);
            if (a->training) {
                pt_tensor *t1 = scale(a, mul(a, r, sum_s(a, g2)), -1.0 / n);
                pt_tensor *t2 = scale(a, mul(a, mul(a, xm, mul(a, r2, r)),
                                             sum_s(a, mul(a, g2, xm))), -1.0 / n);
                term = add(a, add(a, term, t1), t2);
            }
            res = add(a, res, term);
        }
    } else if (which == 1) {
        if (ggI) res = sum_p(a, mul(a, gO, first_backward(a, ggI, NULL, xm, r, r2)));
    } else {
        if (ggI) res = first_backward(a, ggI, gamma, xm, r, r2);
        if (ggG) res = add(a, res, mul(a, ggG, mul(a, xm, r)));
        if (ggB) res = add(a, res, ggB);
    }
    *out = res;
    return a->bad ? (pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME) : PT_OK;
}

/* t viewed with `sizes` (NULL in, NULL out). */
static pt_tensor *as(dd *a, const pt_tensor *t, int32_t nd, const int64_t *sizes)
{
    return t ? DD(pt_call_reshape(t, nd, sizes)) : NULL;
}

/* A statistic (mean, rstd, running stats) viewed with `sizes`, detached: the statistics are not
 * differentiated through (torch: not_implemented), whatever history a saved output carries. */
static pt_tensor *stat(dd *a, const pt_tensor *t, int32_t nd, const int64_t *sizes)
{
    if (!t || a->bad) return NULL;
    pt_tensor *d = NULL;
    if (pt_autograd_detach(t, &d) != PT_OK) {
        a->bad = true;
        return NULL;
    }
    return as(a, dd_keep(a, d), nd, sizes);
}

/* The helper's result: res brought back to like's shape (expanded from a broadcast ggB first), or
 * zeros of it when undefined; the temporaries released. */
static pt_tensor *dd_finish(dd *a, pt_status st, pt_tensor *res, const pt_tensor *like,
                            int32_t vnd, const int64_t *vsizes)
{
    pt_tensor *r = NULL;
    if (st == PT_OK) {
        if (!res) {
            r = pt_call_zeros_like(like, -1, -1, NULL, -1, -1);
        } else {
            pt_tensor *e = res->numel == like->numel ? res : DD(pt_call_expand(res, vnd, vsizes, 0));
            if (e) r = pt_call_reshape(e, like->ndim, like->sizes);
        }
    }
    for (int i = 0; i < a->n; i++) pt_tensor_release(a->t[i]);
    return r;
}

pt_tensor *pt_ag_batch_norm_double_backward_one(
    const pt_tensor *ggI, const pt_tensor *ggG, const pt_tensor *ggB, const pt_tensor *grad_out,
    const pt_tensor *input, const pt_tensor *weight, const pt_tensor *running_mean,
    const pt_tensor *running_var, const pt_tensor *save_mean, const pt_tensor *save_invstd,
    int32_t train, double eps, int64_t which)
{
    dd st_a = {.training = train != 0}, *a = &st_a;
    const int32_t nd = input->ndim;
    const int64_t C = nd > 1 ? input->sizes[1] : 1;
    int64_t ps[PT_MAX_DIMS]; /* (1, C, 1, ...) */
    for (int32_t d = 0; d < nd; d++) {
        ps[d] = d == 1 ? C : 1;
        if (d != 1) a->sd[a->ns++] = a->pd[a->np++] = d;
    }
    a->count = C ? (double)input->numel / (double)C : 0.0;
    const pt_tensor *mean = train ? save_mean : running_mean;
    pt_tensor *mu = NULL, *r = NULL, *res = NULL;
    pt_status st = PT_OK;
    if (!mean || (train ? !save_invstd : !running_var)) {
        st = PT_ERROR(PT_ERR_RUNTIME, "native_batch_norm_backward: double backward needs the %s "
                      "statistics", train ? "saved" : "running");
        return dd_finish(a, st, NULL, input, 0, NULL);
    }
    mu = stat(a, mean, nd, ps);
    if (train) {
        r = stat(a, save_invstd, nd, ps);
    } else {
        const pt_scalar e = s_double(eps);
        pt_tensor *var = stat(a, running_var, nd, ps);
        r = DD(pt_call_rsqrt(DD(pt_call_add_Scalar(var, &e, NULL))));
    }
    st = dd_core(a, input, mu, r, as(a, weight, nd, ps), grad_out, ggI, as(a, ggG, nd, ps),
                 as(a, ggB, nd, ps), which, &res);
    const pt_tensor *like = which == 0 ? input : which == 1 ? weight : grad_out;
    return dd_finish(a, st, res, like ? like : input, nd, input->sizes);
}

pt_tensor *pt_ag_layer_norm_double_backward_one(
    const pt_tensor *ggI, const pt_tensor *ggG, const pt_tensor *ggB, const pt_tensor *grad_out,
    const pt_tensor *input, int32_t nshape, const int64_t *normalized_shape,
    const pt_tensor *mean, const pt_tensor *rstd, const pt_tensor *weight, int64_t which)
{
    dd st_a = {.training = true, .ns = 1, .sd = {1}, .np = 1, .pd = {0}}, *a = &st_a;
    int64_t N = 1;
    for (int32_t i = 0; i < nshape; i++) N *= normalized_shape[i];
    const int64_t M = N ? input->numel / N : 0;
    const int64_t v[2] = {M, N}, sv[2] = {M, 1}, pv[2] = {1, N};
    a->count = (double)N;
    pt_tensor *res = NULL;
    const pt_status st = dd_core(a, as(a, input, 2, v), stat(a, mean, 2, sv), stat(a, rstd, 2, sv),
                                 as(a, weight, 2, pv), as(a, grad_out, 2, v), as(a, ggI, 2, v),
                                 as(a, ggG, 2, pv), as(a, ggB, 2, pv), which, &res);
    const pt_tensor *like = which == 0 ? input : which == 1 ? weight : grad_out;
    return dd_finish(a, st, res, like ? like : input, 2, v);
}

pt_tensor *pt_ag_group_norm_double_backward_one(
    const pt_tensor *ggI, const pt_tensor *ggG, const pt_tensor *ggB, const pt_tensor *grad_out,
    const pt_tensor *input, const pt_tensor *mean, const pt_tensor *rstd,
    const pt_tensor *weight, int64_t N, int64_t C, int64_t HxW, int64_t group, int64_t which)
{
    dd st_a = {.training = true, .ns = 2, .sd = {2, 3}, .np = 2, .pd = {0, 3}}, *a = &st_a;
    const int64_t cg = group ? C / group : 0;
    const int64_t v[4] = {N, group, cg, HxW}, sv[4] = {N, group, 1, 1}, pv[4] = {1, group, cg, 1};
    a->count = (double)(cg * HxW);
    pt_tensor *res = NULL;
    const pt_status st = dd_core(a, as(a, input, 4, v), stat(a, mean, 4, sv), stat(a, rstd, 4, sv),
                                 as(a, weight, 4, pv), as(a, grad_out, 4, v), as(a, ggI, 4, v),
                                 as(a, ggG, 4, pv), as(a, ggB, 4, pv), which, &res);
    const pt_tensor *like = which == 0 ? input : which == 1 ? weight : grad_out;
    return dd_finish(a, st, res, like ? like : input, 4, v);
}

/* torch's embedding_backward: the dense kernel; sparse gradients need a layout pytensor lacks. */
pt_tensor *pt_ag_embedding_backward(const pt_tensor *grad, const pt_tensor *indices,
                                    int32_t nsizes, const int64_t *weight_sizes,
                                    int64_t padding_idx, int32_t scale_grad_by_freq,
                                    int32_t sparse)
{
    if (sparse) {
        PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "embedding: sparse=True needs sparse gradients, and "
                 "pytensor has no sparse layout; use sparse=False");
        return NULL;
    }
    const int64_t num_weights = nsizes > 0 ? weight_sizes[0] : 0;
    return pt_call_embedding_dense_backward(grad, indices, num_weights, padding_idx,
                                            scale_grad_by_freq);
}

/* embedding_dense_backward is linear in grad_output: its own gradient gathers grad's rows at
 * the indices (zero at padding_idx), shaped as grad_output (indices' shape + [dim]). */
pt_tensor *pt_ag_embedding_dense_double_backward(const pt_tensor *grad, const pt_tensor *indices,
                                                 int64_t padding_idx)
{
    pt_tensor *r = pt_call_embedding(grad, indices, -1, 0, 0);
    if (!r || padding_idx < 0) return r;
    pt_tensor *ne = NULL, *mask = NULL, *out = NULL;
    const pt_scalar pad = {PT_SCALAR_INT, padding_idx, 0.0, 0.0};
    if (!(ne = pt_call_ne_Scalar(indices, &pad))) goto done;
    if (!(mask = pt_call_unsqueeze(ne, -1))) goto done;
    out = pt_call_mul_Tensor(r, mask);
done:
    if (mask) pt_tensor_release(mask);
    if (ne) pt_tensor_release(ne);
    pt_tensor_release(r);
    return out;
}
