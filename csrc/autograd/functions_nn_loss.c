/* functions_nn_loss.c - the formula helpers of the loss operators (csrc/ops/nn_loss.yaml): the
 * derivatives torch writes in FunctionsManual for binary_cross_entropy's target, its logits form,
 * and the double backward of the pointwise losses. Same contract as functions.c: operator calls
 * through the entry points (so each helper differentiates again), a new reference or NULL with
 * the error recorded. `reduction` is torch's enum (0 none, 1 mean, 2 sum); a mean divides by
 * the input's number of elements.
 */
#include "functions_internal.h"

enum { MEAN = 1, SUM = 2 };

/* t / numel(of) for a mean (kept in the arena), else t itself. */
static pt_tensor *mean_scaled(arena *a, pt_tensor *t, const pt_tensor *of, int64_t reduction)
{
    if (reduction != MEAN) return t;
    const pt_scalar n = {PT_SCALAR_INT, pt_tensor_numel(of), 0.0, 0.0};
    return keep(a, pt_call_div_Scalar(t, &n));
}

/* t * weight when a weight is given. */
static pt_tensor *weighted(arena *a, pt_tensor *t, const pt_tensor *weight)
{
    return weight ? keep(a, pt_call_mul_Tensor(t, weight)) : t;
}

/* log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)), stable for either sign. */
static pt_tensor *log_sigmoid(arena *a, const pt_tensor *x)
{
    pt_tensor *m = keep(a, pt_call_clamp_max(x, &S_ZERO));
    pt_tensor *ab = m ? keep(a, pt_call_abs(x)) : NULL;
    pt_tensor *ng = ab ? keep(a, pt_call_neg(ab)) : NULL;
    pt_tensor *e = ng ? keep(a, pt_call_exp(ng)) : NULL;
    pt_tensor *l = e ? keep(a, pt_call_log1p(e)) : NULL;
    return l ? keep(a, pt_call_sub_Tensor(m, l, &S_ONE)) : NULL;
}

pt_tensor *pt_ag_mse_loss_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                          int64_t reduction)
{
    arena ar = {0};
    pt_tensor *r;
    K(r, pt_call_mul_Scalar(grad, &S_TWO));
    if (!(r = mean_scaled(&ar, r, self, reduction))) goto fail;
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

/* grad * (|x - y| < bound) [/ bound], the second derivative of smooth_l1 (divide) and huber. */
static pt_tensor *inside_band(const pt_tensor *grad, const pt_tensor *self,
                              const pt_tensor *target, int64_t reduction, double bound,
                              bool divide)
{
    arena ar = {0};
    pt_tensor *d, *in, *r;
    const pt_scalar b = s_double(bound);
    if (divide && bound == 0.0) return pt_call_zeros_like(grad, -1, -1, NULL, -1, -1);
    K(d, pt_call_sub_Tensor(self, target, &S_ONE));
    K(d, pt_call_abs(d));
    K(in, pt_call_lt_Scalar(d, &b));
    K(r, pt_call_mul_Tensor(grad, in));
    if (divide) K(r, pt_call_div_Scalar(r, &b));
    if (!(r = mean_scaled(&ar, r, self, reduction))) goto fail;
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

pt_tensor *pt_ag_smooth_l1_loss_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                                const pt_tensor *target, int64_t reduction,
                                                double beta)
{
    return inside_band(grad, self, target, reduction, beta, true);
}

pt_tensor *pt_ag_huber_loss_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                            const pt_tensor *target, int64_t reduction,
                                            double delta)
{
    return inside_band(grad, self, target, reduction, delta, false);
}

/* grad * y^2 z / (1 + z)^2 with z = exp(-y x). */
pt_tensor *pt_ag_soft_margin_loss_double_backward(const pt_tensor *grad, const pt_tensor *self,
                                                  const pt_tensor *target, int64_t reduction)
{
    arena ar = {0};
    pt_tensor *nt, *z, *z1, *den, *yy, *r;
    K(nt, pt_call_neg(target));
    K(z, pt_call_mul_Tensor(self, nt));
    K(z, pt_call_exp(z));
    K(z1, pt_call_add_Scalar(z, &S_ONE, &S_ONE));
    K(den, pt_call_mul_Tensor(z1, z1));
    K(yy, pt_call_mul_Tensor(target, target));
    K(r, pt_call_mul_Tensor(grad, yy));
    K(r, pt_call_mul_Tensor(r, z));
    K(r, pt_call_div_Tensor(r, den));
    if (!(r = mean_scaled(&ar, r, self, reduction))) goto fail;
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

pt_tensor *pt_ag_soft_margin_loss_double_backward_grad_output(const pt_tensor *grad,
                                                              const pt_tensor *grad_output,
                                                              const pt_tensor *self,
                                                              const pt_tensor *target,
                                                              int64_t reduction)
{
    if (reduction == 0) return pt_call_soft_margin_loss_backward(grad, self, target, reduction);
    arena ar = {0};
    pt_tensor *ones, *r;
    K(ones, pt_call_ones_like(grad_output, -1, -1, NULL, -1, -1));
    K(r, pt_call_soft_margin_loss_backward(ones, self, target, reduction));
    K(r, pt_call_mul_Tensor(r, grad));
    K(r, pt_call_sum(r, -1));
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

/* -logit(x) * grad [* weight], the derivative of binary_cross_entropy in its target. */
pt_tensor *pt_ag_binary_cross_entropy_target_backward(const pt_tensor *grad, const pt_tensor *self,
                                                      const pt_tensor *target,
                                                      const pt_tensor *weight, int64_t reduction)
{
    arena ar = {0};
    pt_tensor *nx, *l1, *lx, *r;
    K(nx, pt_call_neg(self));
    K(l1, pt_call_log1p(nx));
    K(lx, pt_call_log(self));
    K(r, pt_call_sub_Tensor(l1, lx, &S_ONE));
    K(r, pt_call_mul_Tensor(r, grad));
    if (!(r = weighted(&ar, r, weight))) goto fail;
    if (!(r = mean_scaled(&ar, r, target, reduction))) goto fail;
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

/* (x^2 - 2 x y + y) / ((x + eps)^2 (1 - x + eps)^2) * grad * grad_output [* weight]. */
pt_tensor *pt_ag_binary_cross_entropy_double_backward(const pt_tensor *grad_output,
                                                      const pt_tensor *grad, const pt_tensor *self,
                                                      const pt_tensor *target,
                                                      const pt_tensor *weight, int64_t reduction)
{
    arena ar = {0};
    const pt_scalar eps = s_double(1e-12);
    pt_tensor *xe, *ome, *xx, *xy, *num, *den, *d2, *gg, *r;
    K(xe, pt_call_add_Scalar(self, &eps, &S_ONE));
    K(ome, pt_call_rsub_Scalar(self, &S_ONE, &S_ONE));
    K(ome, pt_call_add_Scalar(ome, &eps, &S_ONE));
    K(xx, pt_call_mul_Tensor(self, self));
    K(xy, pt_call_mul_Tensor(self, target));
    K(xy, pt_call_mul_Scalar(xy, &S_TWO));
    K(num, pt_call_sub_Tensor(xx, xy, &S_ONE));
    K(num, pt_call_add_Tensor(num, target, &S_ONE));
    K(den, pt_call_pow_Tensor_Scalar(xe, &S_TWO));
    K(d2, pt_call_pow_Tensor_Scalar(ome, &S_TWO));
    K(den, pt_call_mul_Tensor(den, d2));
    K(r, pt_call_div_Tensor(num, den));
    K(gg, pt_call_mul_Tensor(grad, grad_output));
    K(r, pt_call_mul_Tensor(r, gg));
    if (!(r = weighted(&ar, r, weight))) goto fail;
    if (!(r = mean_scaled(&ar, r, self, reduction))) goto fail;
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

/* -grad * grad_output [* weight] / max((1 - x) x, eps): the derivative of binary_cross_entropy's
 * gradient in its target (the clamp, made outside autograd as torch's, passes no gradient). */
pt_tensor *pt_ag_binary_cross_entropy_double_backward_target(const pt_tensor *grad,
                                                             const pt_tensor *grad_output,
                                                             const pt_tensor *self,
                                                             const pt_tensor *target,
                                                             const pt_tensor *weight,
                                                             int64_t reduction)
{
    arena ar = {0};
    const pt_scalar eps = s_double(1e-12);
    pt_tensor *r, *den;
    K(r, pt_call_mul_Tensor(grad, grad_output));
    K(r, pt_call_neg(r));
    if (!(r = weighted(&ar, r, weight))) goto fail;
    K(den, pt_call_rsub_Scalar(self, &S_ONE, &S_ONE));
    K(den, pt_call_mul_Tensor(den, self));
    const int32_t was = pt_autograd_is_grad_enabled();
    pt_autograd_set_grad_enabled(0);
    pt_tensor *clamped = pt_call_clamp_min_(den, &eps);
    pt_autograd_set_grad_enabled(was);
    if (!clamped) goto fail;
    pt_tensor_release(clamped);
    K(r, pt_call_div_Tensor(r, den));
    if (!(r = mean_scaled(&ar, r, target, reduction))) goto fail;
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

pt_tensor *pt_ag_binary_cross_entropy_double_backward_grad_output(const pt_tensor *grad,
                                                                  const pt_tensor *self,
                                                                  const pt_tensor *target,
                                                                  const pt_tensor *weight,
                                                                  int64_t reduction)
{
    arena ar = {0};
    const pt_scalar eps = s_double(1e-12);
    pt_tensor *xe, *ome, *den, *r;
    K(xe, pt_call_add_Scalar(self, &eps, &S_ONE));
    K(ome, pt_call_rsub_Scalar(self, &S_ONE, &S_ONE));
    K(ome, pt_call_add_Scalar(ome, &eps, &S_ONE));
    K(den, pt_call_mul_Tensor(ome, xe));
    K(r, pt_call_sub_Tensor(self, target, &S_ONE));
    K(r, pt_call_div_Tensor(r, den));
    K(r, pt_call_mul_Tensor(r, grad));
    if (!(r = weighted(&ar, r, weight))) goto fail;
    if (reduction == MEAN || reduction == SUM) {
        K(r, pt_call_sum(r, -1));
        if (!(r = mean_scaled(&ar, r, self, reduction))) goto fail;
    }
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

/* (sigmoid(x) - y) or ((pw y + 1 - y) sigmoid(x) - pw y), times grad [* weight]. */
pt_tensor *pt_ag_binary_cross_entropy_with_logits_backward(const pt_tensor *grad,
                                                           const pt_tensor *self,
                                                           const pt_tensor *target,
                                                           const pt_tensor *weight,
                                                           const pt_tensor *pos_weight,
                                                           int64_t reduction)
{
    arena ar = {0};
    pt_tensor *sg, *t, *r;
    K(sg, pt_call_sigmoid(self));
    if (pos_weight) {
        K(t, pt_call_mul_Tensor(pos_weight, target));
        K(r, pt_call_add_Scalar(t, &S_ONE, &S_ONE));
        K(r, pt_call_sub_Tensor(r, target, &S_ONE));
        K(r, pt_call_mul_Tensor(r, sg));
        K(r, pt_call_sub_Tensor(r, t, &S_ONE));
    } else {
        K(r, pt_call_sub_Tensor(sg, target, &S_ONE));
    }
    K(r, pt_call_mul_Tensor(r, grad));
    if (!(r = weighted(&ar, r, weight))) goto fail;
    if (!(r = mean_scaled(&ar, r, self, reduction))) goto fail;
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}

/* -x, or log_sigmoid(-x) - pw log_sigmoid(x), times grad [* weight]. */
pt_tensor *pt_ag_binary_cross_entropy_with_logits_target_backward(const pt_tensor *grad,
                                                                  const pt_tensor *self,
                                                                  const pt_tensor *target,
                                                                  const pt_tensor *weight,
                                                                  const pt_tensor *pos_weight,
                                                                  int64_t reduction)
{
    arena ar = {0};
    pt_tensor *nx, *r;
    K(nx, pt_call_neg(self));
    if (pos_weight) {
        pt_tensor *ln, *lp;
        if (!(ln = log_sigmoid(&ar, nx)) || !(lp = log_sigmoid(&ar, self))) goto fail;
        K(lp, pt_call_mul_Tensor(lp, pos_weight));
        K(r, pt_call_sub_Tensor(ln, lp, &S_ONE));
    } else {
        r = nx;
    }
    K(r, pt_call_mul_Tensor(r, grad));
    if (!(r = weighted(&ar, r, weight))) goto fail;
    if (!(r = mean_scaled(&ar, r, target, reduction))) goto fail;
    return finish(&ar, r);
fail:
    arena_free(&ar);
    return NULL;
}
