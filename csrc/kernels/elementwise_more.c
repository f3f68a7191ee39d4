/* elementwise_more.c - acosh, asinh, atanh, deg2rad, rad2deg, signbit, isposinf, isneginf, frexp,
 * hypot, copysign, nextafter, fmax, fmin, gcd, lcm, heaviside, logaddexp, logaddexp2, ldexp,
 * addcmul, addcdiv and lerp as torch computes them: functional, in-place (`x_`) and out=
 * (`x.out`) forms, each one pass of the iterator (iter.c) over a loop of
 * cpu/elementwise_more_kernels.c.
 *
 * Every operator is a `spec` constant below: its loop, its names and a dtype rule
 * (Note [elementwise_more dtypes]); the iterator does the checks, broadcasting, promotion, the
 * out= and in-place rules and the float16/bfloat16 staging. What is left here is each operator's
 * refusals in torch's words. Small functional calls of two inputs take binary.c's fast path.
 *
 * Note [elementwise_more dtypes]
 *   FLOAT:  integer and bool inputs compute in the default float dtype (acosh, deg2rad, copysign);
 *   KEEP:   the result type of the inputs, refused by the table where it has no loop (hypot,
 *           nextafter, fmax, gcd, logaddexp): torch's `"hypot_cpu" not implemented for 'Long'`;
 *   BOOL:   predicates on one input (signbit, isposinf): a bool result, and out= must be bool.
 */
#include <string.h>

#include "binary.h"
#include "cpu_stub.h"
#include "elementwise_more.h"
#include "iter.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(elementwise_more, pt_ew_table,
            "acosh, hypot, copysign, gcd, logaddexp, frexp and more loops by loop dtype")

static const pt_ew_table *table(void) { return PT_CPU_KERNELS(elementwise_more, pt_ew_table); }

enum { FUNCTIONAL = PT_BINARY_FUNCTIONAL, INPLACE = PT_BINARY_INPLACE, OUT = PT_BINARY_OUT };
enum { KIND_FLOAT, KIND_KEEP, KIND_BOOL };

typedef struct spec {
    int32_t op;
    const char *name;   /* the operator, for messages */
    const char *kernel; /* torch's kernel name in "not implemented" messages */
    int32_t kind;
} spec;

/* ---------------------------------------------------------------- one input */

/* torch's refusals of complex inputs, which come before the dtype table's. */
static pt_status unary_refusal(const spec *sp, int32_t dtype)
{
    if (!pt_is_complex(dtype)) return PT_OK;
    switch (sp->op) {
    case PT_EWU_DEG2RAD:
    case PT_EWU_RAD2DEG:
        return PT_ERROR(PT_ERR_RUNTIME, "%s is not supported for complex tensors.", sp->name);
    case PT_EWU_SIGNBIT:
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "signbit is not implemented for complex tensors.");
    case PT_EWU_ISPOSINF:
    case PT_EWU_ISNEGINF:
        return PT_ERROR(PT_ERR_RUNTIME, "%s does not support complex inputs.", sp->name);
    default: return PT_OK;
    }
}

static pt_status unary(const spec *sp, int mode, const pt_tensor *self, pt_tensor *out_arg,
                       pt_tensor **out)
{
    PT_TRY(pt_binary_check(sp->name, mode, self, NULL, out_arg, out));
    PT_TRY(unary_refusal(sp, self->dtype));
    if (sp->kind == KIND_BOOL && mode == OUT && out_arg->dtype != PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "%s does not support non-boolean outputs.", sp->name);
    int32_t common = self->dtype;
    if (sp->kind == KIND_FLOAT && pt_is_integral(common, true)) common = pt_dtype_default();
    pt_loop_fn fn = table()->unary[sp->op][pt_opmath_dtype(common)];
    if (!fn) return pt_binary_unsupported(sp->kernel, common);
    pt_iter it;
    PT_TRY(pt_binary_build(&it, sp->name, 0, common, sp->kind == KIND_BOOL ? PT_BOOL : -1, mode,
                           self, NULL, out_arg));
    pt_iter_run(&it, fn, NULL);
    return pt_iter_finish(&it, out);
}

#define UNARY_SPEC(OP, NAME, KERNEL, KIND)                                                         \
    static const spec spec_##NAME = {PT_EWU_##OP, #NAME, KERNEL, KIND_##KIND};
/* function, in-place and out= */
#define UNARY_OPS(OP, NAME, KERNEL, KIND)                                                          \
    UNARY_SPEC(OP, NAME, KERNEL, KIND)                                                             \
    pt_status pt_kernel_##NAME(const pt_tensor *self, pt_tensor **ret)                             \
    {                                                                                              \
        return unary(&spec_##NAME, FUNCTIONAL, self, NULL, ret);                                   \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, pt_tensor **ret)                                \
    {                                                                                              \
        return unary(&spec_##NAME, INPLACE, self, NULL, ret);                                      \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)       \
    {                                                                                              \
        return unary(&spec_##NAME, OUT, self, out, ret);                                           \
    }
/* function and out= */
#define PREDICATE_OPS(OP, NAME)                                                                    \
    UNARY_SPEC(OP, NAME, #NAME, BOOL)                                                              \
    pt_status pt_kernel_##NAME(const pt_tensor *self, pt_tensor **ret)                             \
    {                                                                                              \
        return unary(&spec_##NAME, FUNCTIONAL, self, NULL, ret);                                   \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)       \
    {                                                                                              \
        return unary(&spec_##NAME, OUT, self, out, ret);                                           \
    }

UNARY_OPS(ACOSH, acosh, "acosh_cpu", FLOAT)
UNARY_OPS(ASINH, asinh, "asinh_cpu", FLOAT)
UNARY_OPS(ATANH, atanh, "atanh_cpu", FLOAT)
UNARY_OPS(DEG2RAD, deg2rad, "deg2rad_cpu", FLOAT)
UNARY_OPS(RAD2DEG, rad2deg, "rad2deg_cpu", FLOAT)
PREDICATE_OPS(SIGNBIT, signbit)
PREDICATE_OPS(ISPOSINF, isposinf)
PREDICATE_OPS(ISNEGINF, isneginf)

/* ---------------------------------------------------------------- frexp */

static const char *cpp_type_name(int32_t dtype)
{
    /* torch names the C++ types in these messages: "float", "double", "c10::Half", "long int" */
    switch (dtype) {
    case PT_BOOL: return "bool";
    case PT_UINT8: return "unsigned char";
    case PT_INT8: return "signed char";
    case PT_INT16: return "short int";
    case PT_INT32: return "int";
    case PT_INT64: return "long int";
    case PT_FLOAT16: return "c10::Half";
    case PT_BFLOAT16: return "c10::BFloat16";
    case PT_FLOAT32: return "float";
    case PT_FLOAT64: return "double";
    case PT_COMPLEX64: return "c10::complex<float>";
    case PT_COMPLEX128: return "c10::complex<double>";
    default: return "unknown";
    }
}

/* Both outputs in one pass: (mantissa of self's dtype, exponent int32, self). */
static pt_status frexp_run(const pt_tensor *self, pt_tensor *mantissa, pt_tensor *exponent,
                           pt_tensor **ret0, pt_tensor **ret1)
{
    if (!ret0 || !ret1) return PT_ERROR(PT_ERR_VALUE, "frexp: out must not be NULL");
    PT_TRY(pt_iter_check_operand(self, "frexp", "self"));
    if (!pt_is_floating(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "torch.frexp() only supports floating-point dtypes");
    if (mantissa) {
        PT_TRY(pt_iter_check_operand(mantissa, "frexp", "mantissa"));
        PT_TRY(pt_iter_check_operand(exponent, "frexp", "exponent"));
        if (mantissa->dtype != self->dtype)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "torch.frexp() expects mantissa to have dtype %s but got %s",
                            cpp_type_name(self->dtype), cpp_type_name(mantissa->dtype));
        if (exponent->dtype != PT_INT32)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "torch.frexp() expects exponent to have int dtype but got %s",
                            cpp_type_name(exponent->dtype));
    }
    pt_tensor *own_exponent = NULL;
    if (!exponent) {
        /* the iterator allocates outputs of one dtype; the int32 exponent is made here, in the
         * layout the iterator gives a fresh output of self's shape */
        PT_TRY(pt_tensor_empty(self->ndim, self->sizes, PT_INT32, self->device, &own_exponent));
        exponent = own_exponent;
    }
    pt_iter it;
    pt_iter_init(&it, "frexp", PT_ITER_ANY_OUTPUT_DTYPE);
    it.common = self->dtype;
    pt_iter_add_output(&it, mantissa, "mantissa");
    pt_iter_add_output(&it, exponent, "exponent");
    pt_iter_add_input(&it, self, "self");
    pt_status st = pt_iter_build(&it);
    if (st != PT_OK) {
        pt_tensor_release(own_exponent);
        return st;
    }
    it.loop_dtype[1] = PT_INT32;
    pt_iter_run(&it, table()->unary[PT_EWU_FREXP][pt_opmath_dtype(self->dtype)], NULL);
    pt_tensor *second = pt_iter_output(&it, 1);
    st = pt_iter_finish(&it, ret0);
    pt_tensor_release(own_exponent);
    if (st != PT_OK) {
        pt_tensor_release(second);
        return st;
    }
    *ret1 = second;
    return PT_OK;
}

pt_status pt_kernel_frexp(const pt_tensor *self, pt_tensor **mantissa, pt_tensor **exponent)
{
    return frexp_run(self, NULL, NULL, mantissa, exponent);
}

pt_status pt_kernel_frexp_out(const pt_tensor *self, pt_tensor *mantissa_out,
                              pt_tensor *exponent_out, pt_tensor **mantissa, pt_tensor **exponent)
{
    return frexp_run(self, mantissa_out, exponent_out, mantissa, exponent);
}

/* ---------------------------------------------------------------- two inputs */

static pt_status binary_refusal(const spec *sp, const pt_tensor *a, const pt_tensor *b)
{
    const bool complex = pt_is_complex(a->dtype) || pt_is_complex(b->dtype);
    switch (sp->op) {
    case PT_EWB_FMAX:
    case PT_EWB_FMIN:
        if (complex)
            return PT_ERROR(PT_ERR_RUNTIME, "%s not implemented for complex tensors.", sp->name);
        break;
    case PT_EWB_HEAVISIDE:
        if (complex)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "heaviside is not yet implemented for complex tensors.");
        if (a->dtype != b->dtype)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "heaviside is not yet implemented for tensors with different dtypes.");
        break;
    default: break;
    }
    return PT_OK;
}

/* torch's ldexp_ names itself where the iterator would name the result type. */
static pt_status ldexp_inplace_check(const pt_tensor *a, const pt_tensor *b)
{
    int32_t common;
    PT_TRY(pt_binary_result_type(a, b, &common));
    if (pt_is_integral(common, true)) common = pt_dtype_default();
    if (!pt_dtype_can_cast(common, a->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "ldexp can't be cast to the desired output type %s",
                        pt_iter_type_name(a->dtype));
    return PT_OK;
}

static pt_status binary(const spec *sp, int mode, const pt_tensor *a, const pt_tensor *b,
                        pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_binary_check(sp->name, mode, a, b, out_arg, out));
    PT_TRY(binary_refusal(sp, a, b));
    if (sp->op == PT_EWB_LDEXP && mode == INPLACE) PT_TRY(ldexp_inplace_check(a, b));
    const int32_t flags = PT_ITER_PROMOTE | (sp->kind == KIND_FLOAT ? PT_ITER_INT_TO_FLOAT : 0);
    if (mode == FUNCTIONAL && sp->kind == KIND_KEEP) {
        const int kind = pt_binary_fast_kind(a, b);
        pt_loop_fn fn = kind ? table()->binary[sp->op][a->dtype] : NULL;
        if (fn) return pt_binary_fast_run(kind, a, b, a->dtype, fn, NULL, out);
    }
    pt_iter it;
    PT_TRY(pt_binary_build(&it, sp->name, flags, -1, -1, mode, a, b, out_arg));
    pt_loop_fn fn = table()->binary[sp->op][pt_opmath_dtype(it.common)];
    if (sp->op == PT_EWB_NEXTAFTER && pt_opmath_dtype(it.common) != it.common) {
        /* Note in elementwise_more.h: the 16-bit loop reads and writes the values themselves */
        fn = table()->nextafter16[it.common];
        for (int32_t k = 0; k < 3; k++) {
            it.loop_dtype[k] = it.common;
            it.mid_dtype[k] = -1;
        }
    }
    if (!fn) {
        pt_iter_cleanup(&it);
        return pt_binary_unsupported(sp->kernel, it.common);
    }
    pt_iter_run(&it, fn, NULL);
    return pt_iter_finish(&it, out);
}

#define BINARY_SPEC(OP, NAME, KERNEL, KIND)                                                        \
    static const spec spec_##NAME = {PT_EWB_##OP, #NAME, KERNEL, KIND_##KIND};
#define BINARY_FUNCTION_OUT(NAME)                                                                  \
    pt_status pt_kernel_##NAME(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)     \
    {                                                                                              \
        return binary(&spec_##NAME, FUNCTIONAL, self, other, NULL, ret);                           \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, const pt_tensor *other,                \
                                     pt_tensor *out, pt_tensor **ret)                              \
    {                                                                                              \
        return binary(&spec_##NAME, OUT, self, other, out, ret);                                   \
    }
#define BINARY_INPLACE(NAME)                                                                       \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)        \
    {                                                                                              \
        return binary(&spec_##NAME, INPLACE, self, other, NULL, ret);                              \
    }
/* function, in-place and out= */
#define BINARY_OPS(OP, NAME, KERNEL, KIND)                                                         \
    BINARY_SPEC(OP, NAME, KERNEL, KIND) BINARY_FUNCTION_OUT(NAME) BINARY_INPLACE(NAME)
/* function and out= */
#define BINARY_OPS_NO_INPLACE(OP, NAME, KERNEL, KIND)                                              \
    BINARY_SPEC(OP, NAME, KERNEL, KIND) BINARY_FUNCTION_OUT(NAME)

BINARY_OPS(HYPOT, hypot, "hypot_cpu", KEEP)
BINARY_OPS(COPYSIGN, copysign, "copysign_cpu", FLOAT)
BINARY_OPS(NEXTAFTER, nextafter, "nextafter_cpu", KEEP)
BINARY_OPS_NO_INPLACE(FMAX, fmax, "fmax_cpu", KEEP)
BINARY_OPS_NO_INPLACE(FMIN, fmin, "fmin_cpu", KEEP)
BINARY_OPS(GCD, gcd, "gcd_cpu", KEEP)
BINARY_OPS(LCM, lcm, "lcm_cpu", KEEP)
BINARY_OPS(HEAVISIDE, heaviside, "heaviside_cpu", KEEP)
BINARY_OPS_NO_INPLACE(LOGADDEXP, logaddexp, "logaddexp_cpu", KEEP)
BINARY_OPS_NO_INPLACE(LOGADDEXP2, logaddexp2, "logaddexp2_cpu", KEEP)
BINARY_OPS(LDEXP, ldexp, "ldexp", FLOAT)

/* ---------------------------------------------------------------- three inputs */

typedef struct ternary_spec {
    int32_t op;
    const char *name, *kernel;
    const char *arg_a, *arg_b; /* argument names of the second and third inputs */
} ternary_spec;

static const ternary_spec spec_addcmul = {PT_EWT_ADDCMUL, "addcmul", "addcmul_cpu_out", "tensor1",
                                          "tensor2"};
static const ternary_spec spec_addcdiv = {PT_EWT_ADDCDIV, "addcdiv", "addcdiv_cpu", "tensor1",
                                          "tensor2"};
static const ternary_spec spec_lerp_scalar = {PT_EWT_LERP_SCALAR, "lerp", "lerp_kernel_scalar",
                                              "end", "self"};
static const ternary_spec spec_lerp_tensor = {PT_EWT_LERP_TENSOR, "lerp", "lerp_kernel_tensor",
                                              "end", "weight"};

static pt_status ternary_refusal(const ternary_spec *sp, const pt_tensor *self,
                                 const pt_tensor *a, const pt_tensor *b)
{
    if (sp->op == PT_EWT_ADDCDIV && pt_is_integral(a->dtype, true) &&
        pt_is_integral(b->dtype, true))
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Integer division with addcdiv is no longer supported, and in a future  "
                        "release addcdiv will perform a true division of tensor1 and tensor2. The "
                        "historic addcdiv behavior can be implemented as (input + value * "
                        "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                        "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                        "behavior is just the latter implementation: (input + value * tensor1 / "
                        "tensor2), for all dtypes.");
    if (sp->op != PT_EWT_LERP_SCALAR && sp->op != PT_EWT_LERP_TENSOR) return PT_OK;
    /* lerp computes in self's dtype: end must have it, and a dimensioned weight too */
    if (a->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected dtype %s for `end` but got dtype %s",
                        cpp_type_name(self->dtype), cpp_type_name(a->dtype));
    if (sp->op == PT_EWT_LERP_TENSOR && b->ndim > 0 && b->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected dtype %s for `weight` but got dtype %s",
                        cpp_type_name(self->dtype), cpp_type_name(b->dtype));
    return PT_OK;
}

/* The Scalar in the loop dtype, through the common dtype as torch's Scalar::to<scalar_t>. */
static pt_status scalar_value(const pt_scalar *value, int32_t common, int32_t loop,
                              pt_ew_value *out)
{
    static const pt_scalar one = {PT_SCALAR_INT, 1, 0.0, 0.0};
    if (!value) value = &one;
    PT_TRY(pt_dtype_scalar_check(common, value));
    pt_ew_value tmp;
    memset(&tmp, 0, sizeof tmp);
    memset(out, 0, sizeof *out);
    pt_dtype_scalar_to(common)(value, tmp.bytes);
    pt_iter_cast_fn(common, loop)((char *)out->bytes, 0, (const char *)tmp.bytes, 0, 1);
    return PT_OK;
}

static pt_status ternary(const ternary_spec *sp, int mode, const pt_tensor *self,
                         const pt_tensor *a, const pt_tensor *b, const pt_scalar *value,
                         pt_tensor *out_arg, pt_tensor **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", sp->name);
    PT_TRY(pt_iter_check_operand(self, sp->name, "self"));
    PT_TRY(pt_iter_check_operand(a, sp->name, sp->arg_a));
    PT_TRY(pt_iter_check_operand(b, sp->name, sp->arg_b));
    if (mode == OUT) PT_TRY(pt_iter_check_operand(out_arg, sp->name, "out"));
    PT_TRY(ternary_refusal(sp, self, a, b));
    const bool lerp = sp->op == PT_EWT_LERP_SCALAR || sp->op == PT_EWT_LERP_TENSOR;
    pt_iter it;
    pt_iter_init(&it, sp->name,
                 (lerp ? 0 : PT_ITER_PROMOTE) | (mode == INPLACE ? PT_ITER_INPLACE : 0));
    it.common = lerp ? self->dtype : -1;
    pt_iter_add_output(&it, mode == INPLACE ? (pt_tensor *)self : out_arg,
                       mode == OUT ? "out" : "self");
    pt_iter_add_input(&it, self, "self");
    pt_iter_add_input(&it, a, sp->arg_a);
    pt_iter_add_input(&it, b, sp->arg_b);
    PT_TRY(pt_iter_build(&it));
    const int32_t opmath = pt_opmath_dtype(it.common);
    pt_loop_fn fn = table()->ternary[sp->op][opmath];
    pt_ew_value v;
    pt_status st = fn ? scalar_value(value, it.common, opmath, &v)
                      : pt_binary_unsupported(sp->kernel, it.common);
    if (st != PT_OK) {
        pt_iter_cleanup(&it);
        return st;
    }
    pt_iter_run(&it, fn, &v);
    return pt_iter_finish(&it, out);
}

#define TERNARY_VALUE_OPS(NAME)                                                                    \
    pt_status pt_kernel_##NAME(const pt_tensor *self, const pt_tensor *tensor1,                    \
                               const pt_tensor *tensor2, const pt_scalar *value, pt_tensor **ret)  \
    {                                                                                              \
        return ternary(&spec_##NAME, FUNCTIONAL, self, tensor1, tensor2, value, NULL, ret);        \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, const pt_tensor *tensor1,                       \
                                  const pt_tensor *tensor2, const pt_scalar *value,                \
                                  pt_tensor **ret)                                                 \
    {                                                                                              \
        return ternary(&spec_##NAME, INPLACE, self, tensor1, tensor2, value, NULL, ret);           \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, const pt_tensor *tensor1,              \
                                     const pt_tensor *tensor2, const pt_scalar *value,             \
                                     pt_tensor *out, pt_tensor **ret)                              \
    {                                                                                              \
        return ternary(&spec_##NAME, OUT, self, tensor1, tensor2, value, out, ret);                \
    }
TERNARY_VALUE_OPS(addcmul)
TERNARY_VALUE_OPS(addcdiv)

pt_status pt_kernel_lerp_Scalar(const pt_tensor *self, const pt_tensor *end,
                                const pt_scalar *weight, pt_tensor **ret)
{
    return ternary(&spec_lerp_scalar, FUNCTIONAL, self, end, self, weight, NULL, ret);
}

pt_status pt_kernel_lerp__Scalar(pt_tensor *self, const pt_tensor *end, const pt_scalar *weight,
                                 pt_tensor **ret)
{
    return ternary(&spec_lerp_scalar, INPLACE, self, end, self, weight, NULL, ret);
}

pt_status pt_kernel_lerp_Scalar_out(const pt_tensor *self, const pt_tensor *end,
                                    const pt_scalar *weight, pt_tensor *out, pt_tensor **ret)
{
    return ternary(&spec_lerp_scalar, OUT, self, end, self, weight, out, ret);
}

pt_status pt_kernel_lerp_Tensor(const pt_tensor *self, const pt_tensor *end,
                                const pt_tensor *weight, pt_tensor **ret)
{
    return ternary(&spec_lerp_tensor, FUNCTIONAL, self, end, weight, NULL, NULL, ret);
}

pt_status pt_kernel_lerp__Tensor(pt_tensor *self, const pt_tensor *end, const pt_tensor *weight,
                                 pt_tensor **ret)
{
    return ternary(&spec_lerp_tensor, INPLACE, self, end, weight, NULL, NULL, ret);
}

pt_status pt_kernel_lerp_Tensor_out(const pt_tensor *self, const pt_tensor *end,
                                    const pt_tensor *weight, pt_tensor *out, pt_tensor **ret)
{
    return ternary(&spec_lerp_tensor, OUT, self, end, weight, NULL, out, ret);
}
