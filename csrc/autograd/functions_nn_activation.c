/* functions_nn_activation.c - formula helpers of the nn activations (derivatives.yaml, "nn:
 * activation"): the second derivatives of the backward operators that take more than a line
 * (torch's elu_double_backward, softplus_double_backward, gelu_double_backward, the glu and
 * softmax double backwards, and the derivatives of mish_backward and silu_backward, which torch
 * differentiates through its infinitely differentiable composites instead), celu's backward
 * (elu_backward with input_scale 1 / alpha) and the two results of _prelu_kernel_backward.
 *
 * Every helper composes operators through the dispatcher, so it is differentiable itself.
 */
#include <math.h>
#include <string.h>

#include "functions_internal.h"

/* where(cond, t, 0) */
static pt_tensor *masked(const pt_tensor *cond, const pt_tensor *t)
{
    if (!cond) return NULL;
    return pt_call_where_ScalarOther(cond, t, &S_ZERO);
}

/* 1 - t */
static pt_tensor *one_minus(const pt_tensor *t)
{
    return pt_call_rsub_Scalar(t, &S_ONE, &S_ONE);
}

static pt_tensor *sum_keep(const pt_tensor *t, int64_t dim)
{
    return pt_call_sum_dim_IntList(t, 1, &dim, 1, -1);
}

pt_tensor *pt_ag_elu_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                     const pt_scalar *alpha, const pt_scalar *scale,
                                     const pt_scalar *input_scale, int32_t is_result,
                                     const pt_tensor *self_or_result)
{
    arena ar = {0};
    pt_tensor *gg, *t, *neg, *r;
    K(gg, pt_call_mul_Tensor(grad, grad_output));
    K(gg, pt_call_mul_Scalar(gg, input_scale));
    if (is_result) t = gg;
    else K(t, pt_call_elu_backward(gg, alpha, scale, input_scale, 0, self_or_result));
    K(neg, pt_call_lt_Scalar(self_or_result, &S_ZERO));
    K(r, masked(neg, t));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_celu_backward(const pt_tensor *grad, const pt_scalar *alpha, int32_t is_result,
                               const pt_tensor *self_or_result)
{
    /* torch's formula divides by alpha rounded to float */
    const pt_scalar inv = s_double(1.0 / (double)(float)scalar_value(alpha));
    return pt_call_elu_backward(grad, alpha, &S_ONE, &inv, is_result, self_or_result);
}

/* d/dx [z / (1 + z)] with z = exp(beta x): beta * s (1 - s), s = sigmoid(beta x), below the
 * threshold (above it the backward passes grad through). */
pt_tensor *pt_ag_softplus_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                          const pt_scalar *beta, const pt_scalar *threshold)
{
    arena ar = {0};
    pt_tensor *x, *s, *oms, *t, *below, *r;
    K(x, pt_call_mul_Scalar(self, beta));
    K(s, pt_call_sigmoid(x));
    K(oms, one_minus(s));
    K(t, pt_call_mul_Tensor(grad, s));
    K(t, pt_call_mul_Tensor(t, oms));
    K(t, pt_call_mul_Scalar(t, beta));
    K(below, pt_call_lt_Scalar(x, threshold));
    K(r, masked(below, t));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* mish''(x) = (1 - t^2) s (2 + x (1 - s) - 2 x t s), t = tanh(softplus(x)), s = sigmoid(x). */
pt_tensor *pt_ag_mish_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                      const pt_tensor *self)
{
    arena ar = {0};
    const pt_scalar one = S_ONE, twenty = {PT_SCALAR_INT, 20, 0.0, 0.0}, two = S_TWO;
    pt_tensor *sp, *t, *t2, *omt2, *s, *oms, *a, *b, *c, *r;
    K(sp, pt_call_softplus(self, &one, &twenty));
    K(t, pt_call_tanh(sp));
    K(t2, pt_call_mul_Tensor(t, t));
    K(omt2, one_minus(t2));
    K(s, pt_call_sigmoid(self));
    K(oms, one_minus(s));
    K(a, pt_call_mul_Tensor(self, oms));              /* x (1 - s) */
    K(b, pt_call_mul_Tensor(self, t));
    K(b, pt_call_mul_Tensor(b, s));
    K(b, pt_call_mul_Scalar(b, &two));                /* 2 x t s */
    K(c, pt_call_sub_Tensor(a, b, &S_ONE));
    K(c, pt_call_add_Scalar(c, &two, &S_ONE));
    K(c, pt_call_mul_Tensor(c, s));
    K(c, pt_call_mul_Tensor(c, omt2));
    K(r, pt_call_mul_Tensor(grad, grad_output));
    K(r, pt_call_mul_Tensor(r, c));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* 'none': gelu''(x) = phi(x) (2 - x^2). 'tanh': with t = tanh(beta (x + k x^3)) and
 * h = beta (1 + 3 k x^2), gelu''(x) = (1 - t^2) (h - x t h^2 + 3 beta k x^2). */
pt_tensor *pt_ag_gelu_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                      const pt_tensor *self, const char *approximate)
{
    arena ar = {0};
    pt_tensor *x2, *d, *r;
    K(x2, pt_call_mul_Tensor(self, self));
    if (approximate && strcmp(approximate, "tanh") == 0) {
        const double beta = 0.79788456080286535588, kappa = 0.044715;
        const pt_scalar sb = s_double(beta), sk = s_double(kappa), sh = s_double(3 * kappa * beta),
                        s3 = s_double(3 * beta * kappa);
        pt_tensor *u, *t, *omt2, *h, *xth2, *e;
        K(u, pt_call_mul_Tensor(x2, self));
        K(u, pt_call_mul_Scalar(u, &sk));
        K(u, pt_call_add_Tensor(u, self, &S_ONE));
        K(u, pt_call_mul_Scalar(u, &sb));
        K(t, pt_call_tanh(u));
        K(omt2, pt_call_mul_Tensor(t, t));
        K(omt2, one_minus(omt2));
        K(h, pt_call_mul_Scalar(x2, &sh));
        K(h, pt_call_add_Scalar(h, &sb, &S_ONE));
        K(xth2, pt_call_mul_Tensor(self, t));
        K(xth2, pt_call_mul_Tensor(xth2, h));
        K(xth2, pt_call_mul_Tensor(xth2, h));
        K(e, pt_call_mul_Scalar(x2, &s3));
        K(e, pt_call_add_Tensor(e, h, &S_ONE));
        K(e, pt_call_sub_Tensor(e, xth2, &S_ONE));
        K(d, pt_call_mul_Tensor(omt2, e));
    } else {
        const pt_scalar mhalf = s_double(-0.5), inv = s_double(0.39894228040143267794);
        pt_tensor *phi, *two_m;
        K(phi, pt_call_mul_Scalar(x2, &mhalf));
        K(phi, pt_call_exp(phi));
        K(phi, pt_call_mul_Scalar(phi, &inv));
        K(two_m, pt_call_rsub_Scalar(x2, &S_TWO, &S_ONE));
        K(d, pt_call_mul_Tensor(phi, two_m));
    }
    K(r, pt_call_mul_Tensor(grad, grad_output));
    K(r, pt_call_mul_Tensor(r, d));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* silu''(x) = s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(x). */
pt_tensor *pt_ag_silu_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                      const pt_tensor *self)
{
    arena ar = {0};
    pt_tensor *s, *oms, *a, *b, *r;
    K(s, pt_call_sigmoid(self));
    K(oms, one_minus(s));
    K(a, pt_call_mul_Scalar(s, &S_TWO));
    K(a, one_minus(a));
    K(a, pt_call_mul_Tensor(a, self));
    K(a, pt_call_add_Scalar(a, &S_TWO, &S_ONE));
    K(b, pt_call_mul_Tensor(s, oms));
    K(b, pt_call_mul_Tensor(b, a));
    K(r, pt_call_mul_Tensor(grad, grad_output));
    K(r, pt_call_mul_Tensor(r, b));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* ---------------------------------------------------------------- glu */
pt_tensor *pt_ag_glu_double_backward_grad_output(const pt_tensor *grad, const pt_tensor *self,
                                                 int64_t dim)
{
    arena ar = {0};
    const int64_t d = wrap(dim, self->ndim);
    if (d < 0) return NULL;
    int64_t sizes[PT_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    sizes[d] /= 2;
    pt_device dev = self->device;
    pt_tensor *ones, *t, *lo, *hi, *r;
    K(ones, pt_call_ones(self->ndim, sizes, self->dtype, -1, &dev, -1));
    K(t, pt_call_glu_backward(ones, self, d));
    K(t, pt_call_mul_Tensor(grad, t));
    K(lo, pt_call_narrow(t, d, 0, sizes[d]));
    K(hi, pt_call_narrow(t, d, sizes[d], sizes[d]));
    K(r, pt_call_add_Tensor(lo, hi, &S_ONE));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_glu_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                     const pt_tensor *self, int64_t dim)
{
    arena ar = {0};
    const int64_t d = wrap(dim, self->ndim);
    if (d < 0) return NULL;
    const int64_t h = self->sizes[d] / 2;
    pt_tensor *a, *b, *sig, *oms, *sos, *gga, *ggb, *ga, *second, *t, *u, *gb, *r;
    K(a, pt_call_narrow(self, d, 0, h));
    K(b, pt_call_narrow(self, d, h, h));
    K(sig, pt_call_sigmoid(b));
    K(oms, one_minus(sig));
    K(sos, pt_call_mul_Tensor(sig, oms));
    K(gga, pt_call_narrow(grad, d, 0, h));
    K(ggb, pt_call_narrow(grad, d, h, h));
    K(ga, pt_call_mul_Tensor(ggb, grad_output));
    K(ga, pt_call_mul_Tensor(ga, sos));
    /* d/db [s (1 - s)] = s (1 - s) (1 - s) - s * s (1 - s) */
    K(second, pt_call_mul_Tensor(sos, oms));
    K(t, pt_call_mul_Tensor(sig, sos));
    K(second, pt_call_sub_Tensor(second, t, &S_ONE));
    K(t, pt_call_mul_Tensor(ggb, a));
    K(t, pt_call_mul_Tensor(t, grad_output));
    K(t, pt_call_mul_Tensor(t, second));
    K(u, pt_call_mul_Tensor(gga, grad_output));
    K(u, pt_call_mul_Tensor(u, sos));
    K(gb, pt_call_add_Tensor(t, u, &S_ONE));
    pt_tensor *parts[2] = {ga, gb};
    K(r, pt_call_cat(2, parts, d));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* ---------------------------------------------------------------- softmax */
/* gi = y (go - sum(go y)): d gi / d y against grad is grad (go - sum(go y)) - go sum(grad y). */
pt_tensor *pt_ag_softmax_double_backward(const pt_tensor *grad, const pt_tensor *grad_output,
                                         int64_t dim, const pt_tensor *output)
{
    arena ar = {0};
    pt_tensor *t, *s1, *s2, *a, *b, *r;
    K(t, pt_call_mul_Tensor(grad_output, output));
    K(s1, sum_keep(t, dim));
    K(a, pt_call_sub_Tensor(grad_output, s1, &S_ONE));
    K(a, pt_call_mul_Tensor(grad, a));
    K(t, pt_call_mul_Tensor(grad, output));
    K(s2, sum_keep(t, dim));
    K(b, pt_call_mul_Tensor(grad_output, s2));
    K(r, pt_call_sub_Tensor(a, b, &S_ONE));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* gi = go - exp(y) sum(go) */
pt_tensor *pt_ag_log_softmax_double_backward_grad_output(const pt_tensor *grad,
                                                         const pt_tensor *output, int64_t dim)
{
    arena ar = {0};
    pt_tensor *e, *t, *s, *r;
    K(e, pt_call_exp(output));
    K(t, pt_call_mul_Tensor(grad, e));
    K(s, sum_keep(t, dim));
    K(r, pt_call_sub_Tensor(grad, s, &S_ONE));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_log_softmax_double_backward_output(const pt_tensor *grad,
                                                    const pt_tensor *grad_output, int64_t dim,
                                                    const pt_tensor *output)
{
    arena ar = {0};
    pt_tensor *s, *e, *r;
    K(s, sum_keep(grad_output, dim));
    K(s, pt_call_neg(s));
    K(e, pt_call_exp(output));
    K(r, pt_call_mul_Tensor(s, e));
    K(r, pt_call_mul_Tensor(r, grad));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}
