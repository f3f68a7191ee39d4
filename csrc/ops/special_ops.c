/* special_ops.c - the composites of the special family (csrc/ops/special.yaml): the Scalar
 * overloads of xlogy, special_xlog1py and special_zeta, and special_ndtr.
 *
 * A Scalar argument becomes a 0-d CPU tensor marked as a wrapped number (Note [wrapped numbers]
 * in pytensor.h), as arithmetic.c does for add and pow, and the call goes back through the
 * dispatcher by the Tensor overload's entry point. special_ndtr is torch's composite
 * (1 + erf(x / sqrt 2)) / 2, so that its values and its autograd graph are torch's.
 */
#include "native.h"

/* The entry points return a new reference or NULL with the error set. */
static pt_status result(pt_tensor *w, pt_tensor *r, pt_tensor **ret)
{
    pt_tensor_release(w);
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* op(Scalar self, Tensor other [, out]) and op(Tensor self, Scalar other [, out]) */
#define SCALAR_SELF(NAME, OP, CALL)                                                                \
    pt_status pt_native_##NAME(const pt_scalar *self, const pt_tensor *other, pt_tensor **ret)     \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(pt_native_wrapped_number(OP, "self", self, &w));                                    \
        return result(w, CALL(w, other), ret);                                                     \
    }
#define SCALAR_SELF_OUT(NAME, OP, CALL)                                                            \
    pt_status pt_native_##NAME(const pt_scalar *self, const pt_tensor *other, pt_tensor *out,      \
                               pt_tensor **ret)                                                    \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(pt_native_wrapped_number(OP, "self", self, &w));                                    \
        return result(w, CALL(w, other, out), ret);                                                \
    }
#define SCALAR_OTHER(NAME, OP, CALL, SELF_T)                                                       \
    pt_status pt_native_##NAME(SELF_T *self, const pt_scalar *other, pt_tensor **ret)              \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(pt_native_wrapped_number(OP, "other", other, &w));                                  \
        return result(w, CALL(self, w), ret);                                                      \
    }
#define SCALAR_OTHER_OUT(NAME, OP, CALL)                                                           \
    pt_status pt_native_##NAME(const pt_tensor *self, const pt_scalar *other, pt_tensor *out,      \
                               pt_tensor **ret)                                                    \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(pt_native_wrapped_number(OP, "other", other, &w));                                  \
        return result(w, CALL(self, w, out), ret);                                                 \
    }

SCALAR_SELF(xlogy_Scalar_Self, "xlogy", pt_call_xlogy_Tensor)
SCALAR_SELF_OUT(xlogy_OutScalar_Self, "xlogy", pt_call_xlogy_OutTensor)
SCALAR_OTHER(xlogy_Scalar_Other, "xlogy", pt_call_xlogy_Tensor, const pt_tensor)
SCALAR_OTHER(xlogy__Scalar_Other, "xlogy_", pt_call_xlogy__Tensor, pt_tensor)
SCALAR_OTHER_OUT(xlogy_OutScalar_Other, "xlogy", pt_call_xlogy_OutTensor)

#define SPECIAL_SCALARS(OP)                                                                        \
    SCALAR_SELF(special_##OP##_self_scalar, "special_" #OP, pt_call_special_##OP)                  \
    SCALAR_SELF_OUT(special_##OP##_self_scalar_out, "special_" #OP, pt_call_special_##OP##_out)    \
    SCALAR_OTHER(special_##OP##_other_scalar, "special_" #OP, pt_call_special_##OP,                \
                 const pt_tensor)                                                                  \
    SCALAR_OTHER_OUT(special_##OP##_other_scalar_out, "special_" #OP, pt_call_special_##OP##_out)
SPECIAL_SCALARS(xlog1py)
SPECIAL_SCALARS(zeta)

/* 1 + erf(x * sqrt(1/2)): torch's ndtr multiplies it by 0.5 last (MulBackward1). */
static pt_tensor *one_plus_erf(const pt_tensor *self)
{
    const pt_scalar half_sqrt2 = {PT_SCALAR_FLOAT, 0, 0.70710678118654752440, 0};
    const pt_scalar one = {PT_SCALAR_INT, 1, 0, 0};
    pt_tensor *t = pt_call_mul_Scalar(self, &half_sqrt2);
    if (!t) return NULL;
    pt_tensor *e = pt_call_erf(t);
    pt_tensor_release(t);
    if (!e) return NULL;
    pt_tensor *s = pt_call_add_Scalar(e, &one, &one);
    pt_tensor_release(e);
    return s;
}

static const pt_scalar ndtr_half = {PT_SCALAR_FLOAT, 0, 0.5, 0};

pt_status pt_native_special_ndtr(const pt_tensor *self, pt_tensor **ret)
{
    pt_tensor *s = one_plus_erf(self);
    if (!s) return result(NULL, NULL, ret);
    return result(s, pt_call_mul_Scalar(s, &ndtr_half), ret);
}

pt_status pt_native_special_ndtr_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(pt_native_wrapped_number("special_ndtr", "other", &ndtr_half, &w));
    pt_tensor *s = one_plus_erf(self);
    if (!s) return result(w, NULL, ret);
    pt_tensor *r = pt_call_mul_out(s, w, out);
    pt_tensor_release(s);
    return result(w, r, ret);
}
