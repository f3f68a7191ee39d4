/* elementwise_composites.c - the elementwise operators PyTorch writes as compositions of others:
 * square (pow with exponent 2, so its node is PowBackward0), positive (self itself, bool refused)
 * the Scalar overloads of copysign (the Scalar as a wrapped-number tensor through the Tensor
 * overload, as arithmetic.c does for the binary operators), float_power (pow in double precision,
 * Note [float_power]) and isreal (imag == 0).
 */
#include "iter.h"
#include "native.h"

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
static pt_status release_and_return(pt_tensor *w, pt_tensor *r, pt_tensor **ret)
{
    pt_tensor_release(w);
    return result_of(r, ret);
}

pt_status pt_native_copysign_Scalar(const pt_tensor *self, const pt_scalar *other, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(pt_native_wrapped_number("copysign", "other", other, &w));
    return release_and_return(w, pt_call_copysign_Tensor(self, w), ret);
}

pt_status pt_native_copysign__Scalar(pt_tensor *self, const pt_scalar *other, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(pt_native_wrapped_number("copysign_", "other", other, &w));
    return release_and_return(w, pt_call_copysign__Tensor(self, w), ret);
}

pt_status pt_native_copysign_Scalar_out(const pt_tensor *self, const pt_scalar *other,
                                        pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(pt_native_wrapped_number("copysign", "other", other, &w));
    return release_and_return(w, pt_call_copysign_out(self, w, out), ret);
}

/* ---------------------------------------------------------------- float_power */
/* Note [float_power]
 * torch computes float_power in double precision whatever its inputs: float64, or complex128 when
 * an input (tensor or Scalar) is complex. The tensors are converted (`to`, recorded as
 * ToCopyBackward0) and pow does the rest, so the node is pow's: PowBackward0 for a Scalar
 * exponent, PowBackward1 for a tensor one, PowBackward2 for a Scalar base. out= and the in-place
 * forms must already have that dtype. */
static bool scalar_is_complex(const pt_scalar *s) { return s && s->kind == PT_SCALAR_COMPLEX; }

static int32_t double_dtype(bool complex) { return complex ? PT_COMPLEX128 : PT_FLOAT64; }

/* The Scalar as the double (or complex double) torch passes to pow. */
static pt_status double_scalar(const char *arg, const pt_scalar *s, pt_scalar *out)
{
    if (!s) return PT_ERROR(PT_ERR_TYPE, "float_power(): argument '%s' must be a Number", arg);
    *out = *s;
    if (s->kind == PT_SCALAR_BOOL || s->kind == PT_SCALAR_INT) {
        out->kind = PT_SCALAR_FLOAT;
        out->re = (double)s->i;
        out->im = 0.0;
    }
    return PT_OK;
}

static pt_status dtype_check(const char *what, const char *op, int32_t have, int32_t want)
{
    if (have == want) return PT_OK;
    return PT_ERROR(PT_ERR_RUNTIME,
                    "the %s given to %s has dtype %s but the operation's result requires dtype %s",
                    what, op, pt_iter_type_name(have), pt_iter_type_name(want));
}

static pt_status converted(const pt_tensor *t, int32_t dtype, pt_tensor **out)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "float_power: a tensor argument is NULL");
    return result_of(pt_call_to_dtype(t, dtype, 0, 0, -1), out);
}

/* pow(self, exponent) over the two tensors converted to `dtype`; out NULL: functional, out ==
 * self: in place. */
static pt_status power_tensors(const pt_tensor *self, const pt_tensor *exponent, int32_t dtype,
                               pt_tensor *out, bool inplace, pt_tensor **ret)
{
    pt_tensor *b = NULL, *e = NULL, *r = NULL;
    pt_status st = converted(exponent, dtype, &e);
    if (st == PT_OK && inplace) r = pt_call_pow__Tensor((pt_tensor *)self, e);
    else if (st == PT_OK && (st = converted(self, dtype, &b)) == PT_OK)
        r = out ? pt_call_pow_Tensor_Tensor_out(b, e, out) : pt_call_pow_Tensor_Tensor(b, e);
    pt_tensor_release(b);
    pt_tensor_release(e);
    return st != PT_OK ? st : result_of(r, ret);
}

pt_status pt_native_float_power_Tensor_Tensor(const pt_tensor *self, const pt_tensor *exponent,
                                              pt_tensor **ret)
{
    const int32_t dt = double_dtype(pt_is_complex(self->dtype) || pt_is_complex(exponent->dtype));
    return power_tensors(self, exponent, dt, NULL, false, ret);
}

pt_status pt_native_float_power_Tensor_Tensor_out(const pt_tensor *self, const pt_tensor *exponent,
                                                  pt_tensor *out, pt_tensor **ret)
{
    const int32_t dt = double_dtype(pt_is_complex(self->dtype) || pt_is_complex(exponent->dtype));
    PT_TRY(dtype_check("output", "float_power", out->dtype, dt));
    return power_tensors(self, exponent, dt, out, false, ret);
}

pt_status pt_native_float_power__Tensor(pt_tensor *self, const pt_tensor *exponent,
                                        pt_tensor **ret)
{
    const int32_t dt = double_dtype(pt_is_complex(self->dtype) || pt_is_complex(exponent->dtype));
    PT_TRY(dtype_check("base", "float_power_", self->dtype, dt));
    return power_tensors(self, exponent, dt, NULL, true, ret);
}

/* pow(self, exponent Scalar); out NULL: functional, out == self: in place. */
static pt_status power_scalar_exponent(const pt_tensor *self, const pt_scalar *exponent,
                                       pt_tensor *out, bool inplace, pt_tensor **ret)
{
    pt_scalar e;
    PT_TRY(double_scalar("exponent", exponent, &e));
    const int32_t dt = double_dtype(pt_is_complex(self->dtype) || scalar_is_complex(exponent));
    if (inplace) {
        PT_TRY(dtype_check("base", "float_power_", self->dtype, dt));
        return result_of(pt_call_pow__Scalar((pt_tensor *)self, &e), ret);
    }
    if (out) PT_TRY(dtype_check("output", "float_power", out->dtype, dt));
    pt_tensor *b = NULL;
    PT_TRY(converted(self, dt, &b));
    pt_tensor *r =
        out ? pt_call_pow_Tensor_Scalar_out(b, &e, out) : pt_call_pow_Tensor_Scalar(b, &e);
    pt_tensor_release(b);
    return result_of(r, ret);
}

pt_status pt_native_float_power_Tensor_Scalar(const pt_tensor *self, const pt_scalar *exponent,
                                              pt_tensor **ret)
{
    return power_scalar_exponent(self, exponent, NULL, false, ret);
}

pt_status pt_native_float_power_Tensor_Scalar_out(const pt_tensor *self, const pt_scalar *exponent,
                                                  pt_tensor *out, pt_tensor **ret)
{
    return power_scalar_exponent(self, exponent, out, false, ret);
}

pt_status pt_native_float_power__Scalar(pt_tensor *self, const pt_scalar *exponent,
                                        pt_tensor **ret)
{
    return power_scalar_exponent(self, exponent, NULL, true, ret);
}

static pt_status power_scalar_base(const pt_scalar *self, const pt_tensor *exponent,
                                   pt_tensor *out, pt_tensor **ret)
{
    pt_scalar b;
    PT_TRY(double_scalar("self", self, &b));
    const int32_t dt = double_dtype(scalar_is_complex(self) || pt_is_complex(exponent->dtype));
    if (out) PT_TRY(dtype_check("output", "float_power", out->dtype, dt));
    pt_tensor *e = NULL;
    PT_TRY(converted(exponent, dt, &e));
    pt_tensor *r = out ? pt_call_pow_Scalar_out(&b, e, out) : pt_call_pow_Scalar(&b, e);
    pt_tensor_release(e);
    return result_of(r, ret);
}

pt_status pt_native_float_power_Scalar(const pt_scalar *self, const pt_tensor *exponent,
                                       pt_tensor **ret)
{
    return power_scalar_base(self, exponent, NULL, ret);
}

pt_status pt_native_float_power_Scalar_out(const pt_scalar *self, const pt_tensor *exponent,
                                           pt_tensor *out, pt_tensor **ret)
{
    return power_scalar_base(self, exponent, out, ret);
}

/* ---------------------------------------------------------------- isreal */
/* True where the imaginary part is 0; every element of a real tensor. */
pt_status pt_native_isreal(const pt_tensor *self, pt_tensor **ret)
{
    if (!self || !ret) return PT_ERROR(PT_ERR_VALUE, "isreal: arguments must not be NULL");
    if (!pt_is_complex(self->dtype))
        return result_of(pt_call_ones_like(self, PT_BOOL, -1, NULL, -1, -1), ret);
    static const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    pt_tensor *im = pt_call_imag(self);
    if (!im) return result_of(NULL, ret);
    pt_tensor *r = pt_call_eq_Scalar(im, &zero);
    pt_tensor_release(im);
    return result_of(r, ret);
}

/* ---------------------------------------------------------------- allclose */
/* isclose(...).all() as a Python bool, as torch composes it. */
pt_status pt_native_allclose(const pt_tensor *self, const pt_tensor *other, double rtol,
                             double atol, int32_t equal_nan, int32_t *ret)
{
    if (!ret) return PT_ERROR(PT_ERR_VALUE, "allclose: out must not be NULL");
    pt_tensor *close = pt_call_isclose(self, other, rtol, atol, equal_nan);
    if (!close) return result_of(NULL, NULL);
    pt_tensor *all = pt_call_all(close);
    pt_tensor_release(close);
    if (!all) return result_of(NULL, NULL);
    pt_scalar s;
    const pt_status st = pt_tensor_item(all, &s);
    pt_tensor_release(all);
    PT_TRY(st);
    *ret = s.i != 0;
    return PT_OK;
}
