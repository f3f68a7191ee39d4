/* unary.c - the elementwise functions of one tensor (abs, neg, exp, sin, isnan, round, ...), as
 * torch computes them: functional, in-place (`x_`) and out= (`x.out`) forms.
 *
 * Every operator is a row of `specs`: its loop in the unary table (cpu/unary_kernels.c, one table
 * per CPU capability), its name and torch's kernel name for messages, and a kind that decides the
 * dtypes (Note [unary dtypes]). pt_unary_call runs a spec through the iterator, which does the
 * checks, out= and in-place rules, layouts, meta tensors and the float16/bfloat16 staging; what is
 * left here is which dtypes each operator accepts, with torch's messages for the rest, and the
 * parameters of the few operators that take some (round's decimals, nan_to_num's values). The
 * activations and clamp/where (activation.c) use the same entry.
 *
 * Note [unary dtypes]
 *   FLOAT: the floating functions (exp, sin, sqrt, sigmoid, ...): integer and bool inputs compute
 *          in the default float dtype (torch's int-to-float promotion), floating and complex keep
 *          their dtype; float16/bfloat16 compute in float32 and are rounded once.
 *   KEEP:  the result has self's dtype (neg, sign, ceil, relu, ...); rounding an integer copies.
 *   ABS:   KEEP, but complex gives its real dtype (abs(complex64) is float32).
 *   BOOL:  predicates (isnan, logical_not): a bool result; logical_not's out= may be any dtype.
 * A dtype whose row of the table has no loop is refused with torch's NotImplementedError text.
 */
#include <math.h>
#include <string.h>

#include "cpu_stub.h"
#include "iter.h"
#include "pt_ops_internal.h"
#include "unary.h"

PT_CPU_STUB(unary, pt_unary_table, "unary functions, activations, clamp and where by dtype")

pt_loop_fn pt_unary_loop(int32_t op, int32_t dtype)
{
    return dtype >= 0 && dtype < PT_DTYPE_BUILTIN_COUNT
               ? PT_CPU_KERNELS(unary, pt_unary_table)->fn[op][dtype]
               : NULL;
}

pt_status pt_unary_not_implemented(const char *kname, int32_t dtype)
{
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kname,
                    pt_iter_type_name(dtype));
}

/* ---------------------------------------------------------------- dtype rules */

static int32_t real_of(int32_t dtype)
{
    return dtype == PT_COMPLEX64 ? PT_FLOAT32 : dtype == PT_COMPLEX128 ? PT_FLOAT64 : dtype;
}

/* The dtype the computation runs in (before float16/bfloat16 widen to float32). */
static int32_t common_dtype(const pt_unary_spec *spec, int32_t dtype)
{
    if (spec->kind == PT_UNARY_KIND_FLOAT && pt_is_integral(dtype, true)) return pt_dtype_default();
    return dtype;
}

/* torch's own refusals, before the table's "not implemented". */
static pt_status special_refusals(const pt_unary_spec *spec, int32_t dtype, int mode)
{
    const bool complex = pt_is_complex(dtype);
    switch (spec->op) {
    case PT_UNARY_NEG:
        if (dtype == PT_BOOL)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "Negation, the `-` operator, on a bool tensor is not supported. If you "
                            "are trying to invert a mask, use the `~` or `logical_not()` operator "
                            "instead.");
        break;
    case PT_UNARY_SIGN:
        if (complex)
            return PT_ERROR(PT_ERR_NOT_IMPLEMENTED,
                            "Unlike NumPy, torch.sign is not intended to support complex numbers. "
                            "Please use torch.sgn instead.");
        break;
    case PT_UNARY_CEIL:
    case PT_UNARY_FLOOR:
    case PT_UNARY_TRUNC:
        if (complex)
            return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s is not supported for complex inputs",
                            spec->name);
        break;
    case PT_UNARY_RELU:
        if (dtype == PT_BOOL)
            return PT_ERROR(PT_ERR_RUNTIME, "Boolean inputs not supported for relu");
        if (complex)
            return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "clamp is not supported for complex types");
        break;
    case PT_UNARY_ABS:
        if (complex && mode == PT_UNARY_INPLACE)
            return PT_ERROR(PT_ERR_RUNTIME, "In-place abs is not supported for complex tensors.");
        break;
    default: break;
    }
    return PT_OK;
}

static pt_status check_dtype(const pt_unary_spec *spec, int32_t dtype, int mode)
{
    PT_TRY(special_refusals(spec, dtype, mode));
    if (!pt_unary_loop(spec->op, pt_opmath_dtype(common_dtype(spec, dtype))))
        return pt_unary_not_implemented(spec->kname, dtype);
    return PT_OK;
}

/* ---------------------------------------------------------------- the call */

/* Writes scalars[k], converted to the common dtype (as torch's Scalar::to<scalar_t>) and then to
 * the loop dtype, into the params. */
static pt_status convert_params(const pt_scalar *const *scalars, int32_t common, int32_t loop,
                                pt_unary_params *p)
{
    for (int k = 0; k < 3; k++) {
        if (!scalars[k]) continue;
        pt_unary_value tmp;
        memset(&tmp, 0, sizeof tmp);
        pt_dtype_scalar_to(common)(scalars[k], tmp.bytes);
        pt_iter_cast_fn(common, loop)((char *)p->v[k].bytes, 0, (const char *)tmp.bytes, 0, 1);
    }
    return PT_OK;
}

pt_status pt_unary_call(const pt_unary_spec *spec, int mode, const pt_tensor *self,
                        pt_tensor *out_arg, const pt_scalar *const *scalars, int64_t iparam,
                        pt_tensor **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", spec->name);
    PT_TRY(pt_iter_check_operand(self, spec->name, "self"));
    if (mode == PT_UNARY_OUT) PT_TRY(pt_iter_check_operand(out_arg, spec->name, "out"));
    PT_TRY(check_dtype(spec, self->dtype, mode));
    int32_t flags = mode == PT_UNARY_INPLACE ? PT_ITER_INPLACE : 0;
    if (spec->kind == PT_UNARY_KIND_BOOL) flags |= PT_ITER_ANY_OUTPUT_DTYPE;
    pt_iter it;
    pt_iter_init(&it, spec->name, flags);
    it.common = common_dtype(spec, self->dtype);
    if (spec->kind == PT_UNARY_KIND_BOOL) it.out_dtype = PT_BOOL;
    if (spec->kind == PT_UNARY_KIND_ABS) it.out_dtype = real_of(it.common);
    pt_tensor *target = mode == PT_UNARY_INPLACE ? (pt_tensor *)self : out_arg;
    pt_iter_add_output(&it, target, mode == PT_UNARY_OUT ? "out" : "self");
    pt_iter_add_input(&it, self, "self");
    PT_TRY(pt_iter_build(&it));
    pt_unary_params params;
    memset(&params, 0, sizeof params);
    params.i = iparam;
    static const pt_scalar *const none[3] = {NULL, NULL, NULL};
    convert_params(scalars ? scalars : none, it.common, it.loop_dtype[1], &params);
    pt_iter_run(&it, pt_unary_loop(spec->op, it.loop_dtype[1]), &params);
    return pt_iter_finish(&it, out);
}

/* ---------------------------------------------------------------- the operators */

#define SPEC(OP, NAME, KNAME, KIND)                                                                \
    static const pt_unary_spec spec_##NAME = {PT_UNARY_##OP, #NAME, KNAME, PT_UNARY_KIND_##KIND};
#define UNARY(OP, NAME, KNAME, KIND) SPEC(OP, NAME, KNAME, KIND) PT_UNARY_OPS(NAME)

UNARY(ABS, abs, "abs_cpu", ABS)
UNARY(NEG, neg, "neg_cpu", KEEP)
UNARY(RECIPROCAL, reciprocal, "reciprocal_cpu", FLOAT)
UNARY(FRAC, frac, "frac_cpu", KEEP)
UNARY(SIGN, sign, "sign_cpu", KEEP)
UNARY(SGN, sgn, "sgn_cpu", KEEP)
UNARY(ACOS, acos, "acos_vml_cpu", FLOAT)
UNARY(ASIN, asin, "asin_vml_cpu", FLOAT)
UNARY(ATAN, atan, "atan_vml_cpu", FLOAT)
UNARY(CEIL, ceil, "ceil_vml_cpu", KEEP)
UNARY(FLOOR, floor, "floor_vml_cpu", KEEP)
UNARY(ROUND, round, "round_vml_cpu", KEEP)
UNARY(TRUNC, trunc, "trunc_vml_cpu", KEEP)
UNARY(COS, cos, "cos_vml_cpu", FLOAT)
UNARY(COSH, cosh, "cosh_vml_cpu", FLOAT)
UNARY(SIN, sin, "sin_vml_cpu", FLOAT)
UNARY(SINH, sinh, "sinh_vml_cpu", FLOAT)
UNARY(TAN, tan, "tan_vml_cpu", FLOAT)
UNARY(TANH, tanh, "tanh_vml_cpu", FLOAT)
UNARY(ERF, erf, "erf_vml_cpu", FLOAT)
UNARY(ERFC, erfc, "erfc_vml_cpu", FLOAT)
UNARY(EXP, exp, "exp_vml_cpu", FLOAT)
UNARY(EXP2, exp2, "exp2_vml_cpu", FLOAT)
UNARY(EXPM1, expm1, "expm1_vml_cpu", FLOAT)
UNARY(LOG, log, "log_vml_cpu", FLOAT)
UNARY(LOG10, log10, "log10_vml_cpu", FLOAT)
UNARY(LOG1P, log1p, "log1p_vml_cpu", FLOAT)
UNARY(LOG2, log2, "log2_vml_cpu", FLOAT)
UNARY(RSQRT, rsqrt, "rsqrt_cpu", FLOAT)
UNARY(SQRT, sqrt, "sqrt_vml_cpu", FLOAT)
UNARY(SIGMOID, sigmoid, "sigmoid_cpu", FLOAT)
UNARY(LOGICAL_NOT, logical_not, "logical_not_cpu", BOOL)

/* isnan, isinf, isfinite: functional and out= only. */
#define PREDICATE(OP, NAME)                                                                        \
    SPEC(OP, NAME, #NAME, BOOL)                                                                    \
    pt_status pt_kernel_##NAME(const pt_tensor *self, pt_tensor **out)                             \
    {                                                                                              \
        return pt_unary_call(&spec_##NAME, PT_UNARY_FUNCTIONAL, self, NULL, NULL, 0, out);         \
    }
PREDICATE(ISNAN, isnan)
PREDICATE(ISINF, isinf)
PREDICATE(ISFINITE, isfinite)

pt_status pt_kernel_isnan_out(const pt_tensor *self, pt_tensor *out_arg, pt_tensor **out)
{
    return pt_unary_call(&spec_isnan, PT_UNARY_OUT, self, out_arg, NULL, 0, out);
}

pt_status pt_kernel_isinf_out(const pt_tensor *self, pt_tensor *out_arg, pt_tensor **out)
{
    return pt_unary_call(&spec_isinf, PT_UNARY_OUT, self, out_arg, NULL, 0, out);
}

/* ---------------------------------------------------------------- round(decimals) */

SPEC(ROUND_DECIMALS, round_decimals, "round_cpu", KEEP)

/* torch rounds x * 10^d (or x / 10^-d) half to even and scales back; decimals 0 is plain round. */
static pt_status round_decimals(int mode, const pt_tensor *self, int64_t decimals,
                                pt_tensor *out_arg, pt_tensor **out)
{
    /* decimals 0 is plain round, which torch then refuses for integers all the same */
    if (decimals == 0 && self && pt_is_integral(self->dtype, true))
        return pt_unary_not_implemented("round_vml_cpu", self->dtype);
    if (decimals == 0) return pt_unary_call(&spec_round, mode, self, out_arg, NULL, 0, out);
    const double power = pow(10.0, (double)(decimals < 0 ? -decimals : decimals));
    const pt_scalar ten = {PT_SCALAR_FLOAT, 0, power, 0};
    const pt_scalar *scalars[3] = {&ten, NULL, NULL};
    return pt_unary_call(&spec_round_decimals, mode, self, out_arg, scalars, decimals < 0, out);
}

pt_status pt_kernel_round_decimals(const pt_tensor *self, int64_t decimals, pt_tensor **out)
{
    return round_decimals(PT_UNARY_FUNCTIONAL, self, decimals, NULL, out);
}

pt_status pt_kernel_round__decimals(pt_tensor *self, int64_t decimals, pt_tensor **out)
{
    return round_decimals(PT_UNARY_INPLACE, self, decimals, NULL, out);
}

pt_status pt_kernel_round_decimals_out(const pt_tensor *self, int64_t decimals, pt_tensor *out_arg,
                                       pt_tensor **out)
{
    return round_decimals(PT_UNARY_OUT, self, decimals, out_arg, out);
}
