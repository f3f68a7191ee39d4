/* elementwise_composites.c - the elementwise operators PyTorch writes as compositions of others:
 * square (pow with exponent 2, so its node is PowBackward0), positive (self itself, bool refused)
 * and the Scalar overloads of copysign (the Scalar as a wrapped-number tensor through the Tensor
 * overload, as arithmetic.c does for the binary operators).
 */
#include "native.h"

static const pt_device cpu_device = {PT_DEV_CPU, -1};

/* A new reference or NULL with the error set, as the pt_call_* entry points return. */
static pt_status result_of(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- square, positive */
static const pt_scalar two = {PT_SCALAR_INT, 2, 0.0, 0.0};

pt_status pt_native_square(const pt_tensor *self, pt_tensor **ret)
{
    return result_of(pt_call_pow_Tensor_Scalar(self, &two), ret);
}

pt_status pt_native_square_(pt_tensor *self, pt_tensor **ret)
{
    return result_of(pt_call_pow__Scalar(self, &two), ret);
}

pt_status pt_native_square_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return result_of(pt_call_pow_Tensor_Scalar_out(self, &two, out), ret);
}

pt_status pt_native_positive(const pt_tensor *self, pt_tensor **ret)
{
    if (!self || !ret) return PT_ERROR(PT_ERR_VALUE, "positive: arguments must not be NULL");
    if (self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "The `+` operator, on a bool tensor is not supported.");
    return pt_native_self((pt_tensor *)self, ret);
}

/* ---------------------------------------------------------------- copysign with a Scalar */
/* The Scalar as a 0-d CPU wrapped number (Note [wrapped numbers] in pytensor.h). */
static pt_status wrapped(const char *op, const pt_scalar *s, pt_tensor **out)
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

static pt_status release_and_return(pt_tensor *w, pt_tensor *r, pt_tensor **ret)
{
    pt_tensor_release(w);
    return result_of(r, ret);
}

pt_status pt_native_copysign_Scalar(const pt_tensor *self, const pt_scalar *other, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped("copysign", other, &w));
    return release_and_return(w, pt_call_copysign_Tensor(self, w), ret);
}

pt_status pt_native_copysign__Scalar(pt_tensor *self, const pt_scalar *other, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped("copysign_", other, &w));
    return release_and_return(w, pt_call_copysign__Tensor(self, w), ret);
}

pt_status pt_native_copysign_Scalar_out(const pt_tensor *self, const pt_scalar *other,
                                        pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped("copysign", other, &w));
    return release_and_return(w, pt_call_copysign_out(self, w, out), ret);
}
