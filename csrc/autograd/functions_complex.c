/* functions_complex.c - the formula helpers of the operators that take complex numbers apart or
 * make them (sgn, angle, polar), as torch's FunctionsManual writes them: gradients in the
 * conjugate Wirtinger convention (Note [conjugate Wirtinger gradients] in derivatives.yaml). Same
 * contract as functions.c: operator calls through the entry points (so double backward works),
 * temporaries in an arena, a new reference or NULL with the error recorded. */
#include "functions_internal.h"

/* The Scalar i. */
static const pt_scalar S_I = {PT_SCALAR_COMPLEX, 0, 0.0, 1.0};

/* The views between complex and real dtypes move the gradient back through the other view, of a
 * contiguous copy when the gradient's layout cannot be viewed (an expanded gradient, say). */
static pt_tensor *view_other(const pt_tensor *grad, bool to_complex)
{
    pt_tensor *c = (pt_tensor *)grad;
    if (pt_tensor_is_contiguous(grad, PT_MEMORY_FORMAT_CONTIGUOUS))
        pt_tensor_retain(c);
    else if (!(c = pt_call_contiguous(grad, PT_MEMORY_FORMAT_CONTIGUOUS)))
        return NULL;
    pt_tensor *r = to_complex ? pt_call_view_as_complex(c) : pt_call_view_as_real(c);
    pt_tensor_release(c);
    return r;
}

pt_tensor *pt_ag_view_as_real_backward(const pt_tensor *grad) { return view_other(grad, true); }

pt_tensor *pt_ag_view_as_complex_backward(const pt_tensor *grad)
{
    return view_other(grad, false);
}

/* sgn(z) = z / |z| is not holomorphic: with s = sgn(z) and a = |z|, the gradient is
 * (g - s^2 conj(g)) / (2a), and 0 where z = 0. For real z sgn is locally constant. */
pt_tensor *pt_ag_sgn_backward(const pt_tensor *self, const pt_tensor *grad,
                              const pt_tensor *result)
{
    if (!pt_ag_is_complex(self)) return pt_ag_zeros_like(grad);
    arena ar = {0};
    pt_tensor *a, *s2, *gc, *t, *num, *den, *q, *z, *r;
    K(a, pt_call_abs(self));
    K(s2, pt_call_mul_Tensor(result, result));
    K(gc, pt_call_conj(grad));
    K(t, pt_call_mul_Tensor(s2, gc));
    K(num, pt_call_sub_Tensor(grad, t, &S_ONE));
    K(den, pt_call_mul_Scalar(a, &S_TWO));
    K(q, pt_call_div_Tensor(num, den));
    K(z, pt_call_eq_Scalar(a, &S_ZERO));
    K(r, pt_call_masked_fill_Scalar(q, z, &S_ZERO));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* angle(z) = atan2(y, x): the gradient is g * i z / |z|^2, and 0 at z = 0; the angle of a real
 * number is locally constant. */
pt_tensor *pt_ag_angle_backward(const pt_tensor *grad, const pt_tensor *self)
{
    if (!pt_ag_is_complex(self)) return pt_call_zeros_like(self, -1, -1, NULL, -1, -1);
    arena ar = {0};
    pt_tensor *a, *a2, *t, *q, *iq, *z, *r;
    K(a, pt_call_abs(self));
    K(a2, pt_call_pow_Tensor_Scalar(a, &S_TWO));
    K(t, pt_call_mul_Tensor(grad, self));
    K(q, pt_call_div_Tensor(t, a2));
    K(iq, pt_call_mul_Scalar(q, &S_I));
    K(z, pt_call_eq_Scalar(self, &S_ZERO));
    K(r, pt_call_where_ScalarSelf(z, &S_ZERO, iq));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* polar(r, theta) = r e^{i theta}: d/dr is e^{i theta} = sgn(result), d/dtheta is i * result;
 * the real inputs keep the real part of conj(g) times each. */
static pt_tensor *polar_part(const pt_tensor *grad, const pt_tensor *result, bool angle)
{
    arena ar = {0};
    pt_tensor *gc, *d, *t, *r;
    K(gc, pt_call_conj(grad));
    if (angle) K(d, pt_call_mul_Scalar(result, &S_I));
    else K(d, pt_call_sgn(result));
    K(t, pt_call_mul_Tensor(gc, d));
    K(r, pt_call_real(t));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_polar_backward_abs(const pt_tensor *grad, const pt_tensor *result)
{
    return polar_part(grad, result, false);
}

pt_tensor *pt_ag_polar_backward_angle(const pt_tensor *grad, const pt_tensor *result)
{
    return polar_part(grad, result, true);
}
