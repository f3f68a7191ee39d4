/* arithmetic.c - the Scalar overloads of the binary operators: add, sub, mul (add.Scalar,
 * add_.Scalar, ...), div, floor_divide, remainder, fmod, pow, the comparisons and the bitwise
 * operators and shifts (csrc/ops/binary.yaml), including the forms whose Scalar is `self`
 * (remainder.Scalar_Tensor, pow.Scalar, bitwise_and.Scalar_Tensor, ...).
 *
 * As in PyTorch, they are composites over the Tensor overloads: the Scalar becomes a 0-d CPU
 * tensor marked as a wrapped number (Note [wrapped numbers] in pytensor.h: bool, int64, float64
 * or complex128 by the Scalar's kind, contributing only its category to type promotion) and the
 * call goes back through the dispatcher by the Tensor overload's entry point, so that whatever
 * kernel serves `self`'s key serves these too.
 */
#include "native.h"

static const pt_device cpu_device = {PT_DEV_CPU, -1};

pt_status pt_native_wrapped_number(const char *op, const char *arg, const pt_scalar *s,
                                   pt_tensor **out)
{
    if (!s)
        return PT_ERROR(PT_ERR_TYPE, "%s(): argument '%s' must be a Number, not None", op, arg);
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

static pt_status wrapped_scalar(const char *op, const pt_scalar *s, pt_tensor **out)
{
    return pt_native_wrapped_number(op, "other", s, out);
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

/* ---------------------------------------------------------------- csrc/ops/binary.yaml
 * One macro per shape of overload; NAME is the C name of the Scalar overload's composite, OP the
 * operator's name in messages, CALL the Tensor overload's entry point. */

/* op.Scalar(Tensor self, Scalar other) -> Tensor */
#define PT_SCALAR_OTHER(NAME, OP, CALL)                                                            \
    pt_status pt_native_##NAME(const pt_tensor *self, const pt_scalar *other, pt_tensor **ret)     \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(wrapped_scalar(OP, other, &w));                                                     \
        return result(w, CALL(self, w), ret);                                                      \
    }
/* op_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!) */
#define PT_SCALAR_OTHER_INPLACE(NAME, OP, CALL)                                                    \
    pt_status pt_native_##NAME(pt_tensor *self, const pt_scalar *other, pt_tensor **ret)           \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(wrapped_scalar(OP, other, &w));                                                     \
        return result(w, CALL(self, w), ret);                                                      \
    }
/* op.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!) */
#define PT_SCALAR_OTHER_OUT(NAME, OP, CALL)                                                        \
    pt_status pt_native_##NAME(const pt_tensor *self, const pt_scalar *other, pt_tensor *out,      \
                               pt_tensor **ret)                                                    \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(wrapped_scalar(OP, other, &w));                                                     \
        return result(w, CALL(self, w, out), ret);                                                 \
    }
/* op.Scalar_Tensor(Scalar self, Tensor other) -> Tensor; ARG names the Tensor in the schema. */
#define PT_SCALAR_SELF(NAME, OP, CALL, ARG)                                                        \
    pt_status pt_native_##NAME(const pt_scalar *self, const pt_tensor *ARG, pt_tensor **ret)       \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(pt_native_wrapped_number(OP, "self", self, &w));                                          \
        return result(w, CALL(w, ARG), ret);                                                       \
    }
/* op.Scalar_Tensor_out(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!) */
#define PT_SCALAR_SELF_OUT(NAME, OP, CALL, ARG)                                                    \
    pt_status pt_native_##NAME(const pt_scalar *self, const pt_tensor *ARG, pt_tensor *out,        \
                               pt_tensor **ret)                                                    \
    {                                                                                              \
        pt_tensor *w = NULL;                                                                       \
        PT_TRY(pt_native_wrapped_number(OP, "self", self, &w));                                          \
        return result(w, CALL(w, ARG, out), ret);                                                  \
    }
/* The three Scalar-other overloads of an operator whose Tensor entry points are T (functional),
 * TI (in place) and TO (out=). */
#define PT_SCALAR_FAMILY(NAME, INAME, OUTNAME, OP, T, TI, TO)                                      \
    PT_SCALAR_OTHER(NAME, OP, T)                                                                   \
    PT_SCALAR_OTHER_INPLACE(INAME, OP "_", TI)                                                     \
    PT_SCALAR_OTHER_OUT(OUTNAME, OP, TO)

/* div with a rounding mode: the Scalar_mode overloads carry rounding_mode through. */
pt_status pt_native_div_Scalar_mode(const pt_tensor *self, const pt_scalar *other,
                                    const char *rounding_mode, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("div", other, &w));
    return result(w, pt_call_div_Tensor_mode(self, w, rounding_mode), ret);
}

pt_status pt_native_div__Scalar_mode(pt_tensor *self, const pt_scalar *other,
                                     const char *rounding_mode, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("div_", other, &w));
    return result(w, pt_call_div__Tensor_mode(self, w, rounding_mode), ret);
}

pt_status pt_native_div_Scalar_mode_out(const pt_tensor *self, const pt_scalar *other,
                                        const char *rounding_mode, pt_tensor *out,
                                        pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_scalar("div", other, &w));
    return result(w, pt_call_div_out_mode(self, w, rounding_mode, out), ret);
}

PT_SCALAR_FAMILY(div_Scalar, div__Scalar, div_Scalar_out, "div", pt_call_div_Tensor,
                 pt_call_div__Tensor, pt_call_div_out)
PT_SCALAR_FAMILY(floor_divide_Scalar, floor_divide__Scalar, floor_divide_Scalar_out, "floor_divide",
                 pt_call_floor_divide, pt_call_floor_divide__Tensor, pt_call_floor_divide_out)
PT_SCALAR_FAMILY(remainder_Scalar, remainder__Scalar, remainder_Scalar_out, "remainder",
                 pt_call_remainder_Tensor, pt_call_remainder__Tensor, pt_call_remainder_Tensor_out)
PT_SCALAR_SELF(remainder_Scalar_Tensor, "remainder", pt_call_remainder_Tensor, other)
PT_SCALAR_SELF_OUT(remainder_Scalar_Tensor_out, "remainder", pt_call_remainder_Tensor_out, other)
PT_SCALAR_FAMILY(fmod_Scalar, fmod__Scalar, fmod_Scalar_out, "fmod", pt_call_fmod_Tensor,
                 pt_call_fmod__Tensor, pt_call_fmod_Tensor_out)

/* pow: a wrapped exponent takes torch's Tensor-Scalar rules in the kernel (kernels/arith.c). */
PT_SCALAR_FAMILY(pow_Tensor_Scalar, pow__Scalar, pow_Tensor_Scalar_out, "pow",
                 pt_call_pow_Tensor_Tensor, pt_call_pow__Tensor, pt_call_pow_Tensor_Tensor_out)
PT_SCALAR_SELF(pow_Scalar, "pow", pt_call_pow_Tensor_Tensor, exponent)
PT_SCALAR_SELF_OUT(pow_Scalar_out, "pow", pt_call_pow_Tensor_Tensor_out, exponent)

#define PT_COMPARE_SCALARS(OP)                                                                     \
    PT_SCALAR_FAMILY(OP##_Scalar, OP##__Scalar, OP##_Scalar_out, #OP, pt_call_##OP##_Tensor,       \
                     pt_call_##OP##__Tensor, pt_call_##OP##_Tensor_out)
PT_COMPARE_SCALARS(eq)
PT_COMPARE_SCALARS(ne)
PT_COMPARE_SCALARS(lt)
PT_COMPARE_SCALARS(le)
PT_COMPARE_SCALARS(gt)
PT_COMPARE_SCALARS(ge)

/* The bitwise operators' Scalar overloads are named Scalar, the shifts' Tensor_Scalar. */
#define PT_BITWISE_SCALARS(OP, SUF)                                                                \
    PT_SCALAR_FAMILY(OP##_##SUF, OP##__##SUF, OP##_##SUF##_out, #OP, pt_call_##OP##_Tensor,        \
                     pt_call_##OP##__Tensor, pt_call_##OP##_Tensor_out)                            \
    PT_SCALAR_SELF(OP##_Scalar_Tensor, #OP, pt_call_##OP##_Tensor, other)                          \
    PT_SCALAR_SELF_OUT(OP##_Scalar_Tensor_out, #OP, pt_call_##OP##_Tensor_out, other)
PT_BITWISE_SCALARS(bitwise_and, Scalar)
PT_BITWISE_SCALARS(bitwise_or, Scalar)
PT_BITWISE_SCALARS(bitwise_xor, Scalar)
PT_BITWISE_SCALARS(bitwise_left_shift, Tensor_Scalar)
PT_BITWISE_SCALARS(bitwise_right_shift, Tensor_Scalar)
