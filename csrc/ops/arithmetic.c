/* arithmetic.c - the Scalar overloads of add, sub and mul (add.Scalar, add_.Scalar, ...).
 *
 * As in PyTorch, they are composites over the Tensor overloads: the Scalar becomes a 0-d CPU
 * tensor marked as a wrapped number (Note [wrapped numbers] in pytensor.h: bool, int64, float64
 * or complex128 by the Scalar's kind, contributing only its category to type promotion) and the
 * call goes back through the dispatcher by the Tensor overload's entry point, so that whatever
 * kernel serves `self`'s key serves these too.
 */
#include "native.h"

static const pt_device cpu_device = {PT_DEV_CPU, -1};

static pt_status wrapped_scalar(const char *op, const pt_scalar *s, pt_tensor **out)
{
    if (!s) return PT_ERROR(PT_ERR_TYPE, "%s(): argument 'other' must be a Number, not None", op);
    int32_t dtype;
    switch (s->kind) {
    case PT_SCALAR_BOOL: dtype = PT_BOOL; break;
    case PT_SCALAR_INT: dtype = PT_INT64; break;
    case PT_SCALAR_COMPLEX: dtype = PT_COMPLEX128; break;
    default: dtype = PT_FLOAT64; break;
    }
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(0, NULL, dtype, cpu_device, &t));
    const pt_status st = pt_tensor_fill_(t, s);
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    pt_tensor_set_wrapped_number(t, 1);
    *out = t;
    return PT_OK;
}

/* The entry points return a new reference or NULL with the error set. */
static pt_status result(pt_tensor *wrapped, pt_tensor *r, pt_tensor **ret)
{
    pt_tensor_release(wrapped);
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

pt_status pt_native_add_Scalar(const pt_tensor *self, const pt_scalar *other,
                               const pt_scalar *alpha, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("add", other, &w));
    return result(w, pt_call_add_Tensor(self, w, alpha), ret);
}

pt_status pt_native_add__Scalar(pt_tensor *self, const pt_scalar *other, const pt_scalar *alpha,
                                pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("add_", other, &w));
    return result(w, pt_call_add__Tensor(self, w, alpha), ret);
}

pt_status pt_native_sub_Scalar(const pt_tensor *self, const pt_scalar *other,
                               const pt_scalar *alpha, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("sub", other, &w));
    return result(w, pt_call_sub_Tensor(self, w, alpha), ret);
}

pt_status pt_native_sub__Scalar(pt_tensor *self, const pt_scalar *other, const pt_scalar *alpha,
                                pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("sub_", other, &w));
    return result(w, pt_call_sub__Tensor(self, w, alpha), ret);
}

pt_status pt_native_mul_Scalar(const pt_tensor *self, const pt_scalar *other, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("mul", other, &w));
    return result(w, pt_call_mul_Tensor(self, w), ret);
}

pt_status pt_native_mul__Scalar(pt_tensor *self, const pt_scalar *other, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("mul_", other, &w));
    return result(w, pt_call_mul__Tensor(self, w), ret);
}
