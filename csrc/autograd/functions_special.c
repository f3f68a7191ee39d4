/* functions_special.c - the formula helpers of the special family (csrc/ops/
 * derivatives_special.yaml): torch's not_implemented gradients, mvlgamma_backward, and the
 * branches torch's formulas take on a Scalar argument's value. Same contract as functions.c:
 * operator calls through the entry points, temporaries in an arena, a new reference or NULL with
 * the error recorded. */
#include "functions_internal.h"

/* torch's refusal of a gradient it does not define (igamma's and zeta's first argument). */
pt_tensor *pt_ag_not_implemented(const char *what)
{
    PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "the derivative for '%s' is not implemented.", what);
    return NULL;
}

/* grad * sum_{j < p} digamma(self - j/2) */
pt_tensor *pt_ag_mvlgamma_backward(const pt_tensor *grad, const pt_tensor *self, int64_t p)
{
    arena ar = {0};
    pt_tensor *acc = NULL, *r;
    const pt_scalar one = {PT_SCALAR_INT, 1, 0.0, 0.0};
    for (int64_t j = 0; j < p; j++) {
        const pt_scalar shift = {PT_SCALAR_FLOAT, 0, -0.5 * (double)j, 0.0};
        pt_tensor *arg, *d;
        K(arg, pt_call_add_Scalar(self, &shift, &one));
        K(d, pt_call_digamma(arg));
        if (acc) K(acc, pt_call_add_Tensor(acc, d, &one));
        else acc = d;
    }
    K(r, pt_call_mul_Tensor(grad, acc));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* term where other > bound, else term with the elements where self == 0 set to 0 (torch's
 * `other.toDouble() > bound ? term : term.masked_fill(self == 0., 0.)`). */
pt_tensor *pt_ag_zero_where_self_zero_unless_above(const pt_tensor *term, const pt_tensor *self,
                                                   const pt_scalar *other, double bound)
{
    if (scalar_value(other) > bound) {
        pt_tensor_retain((pt_tensor *)term);
        return (pt_tensor *)term;
    }
    arena ar = {0};
    pt_tensor *mask, *r;
    const pt_scalar zero = {PT_SCALAR_FLOAT, 0, 0.0, 0.0};
    K(mask, pt_call_eq_Scalar(self, &zero));
    K(r, pt_call_masked_fill_Scalar(term, mask, &zero));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* grad * -self * zeta(self + 1, other) for a Scalar self */
pt_tensor *pt_ag_zeta_self_scalar_backward(const pt_tensor *grad, const pt_scalar *self,
                                           const pt_tensor *other)
{
    arena ar = {0};
    pt_tensor *z, *g, *r;
    const double s = scalar_value(self);
    const pt_scalar s1 = {PT_SCALAR_FLOAT, 0, s + 1.0, 0.0};
    const pt_scalar minus_s = {PT_SCALAR_FLOAT, 0, -s, 0.0};
    K(z, pt_call_special_zeta_self_scalar(&s1, other));
    K(g, pt_call_mul_Scalar(grad, &minus_s));
    K(r, pt_call_mul_Tensor(g, z));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}
