/* activation.c - clamp (scalar and tensor bounds, clamp_min, clamp_max), threshold, relu, gelu,
 * silu, nan_to_num and where, as torch computes them, on the unary family's loops
 * (cpu/unary_kernels.c).
 *
 * The one-input operators are specs run by pt_unary_call (unary.c). clamp and where have several
 * inputs and torch's promotion between them, so they build their own iterator: clamp's result
 * type is torch.result_type over self and the given bounds (Python numbers as wrapped numbers, so
 * clamp(int tensor, 2.5) is float), where's over self and other (the condition must be bool, and
 * a bool never changes a result type). Scalar bounds become wrapped 0-d tensors: the iterator
 * converts them once and the loops read them with stride 0, so clamp(x, 0, 6) runs the same
 * vectorized path as a fused scalar kernel would.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "iter.h"
#include "pt_ops_internal.h"
#include "unary.h"

static const pt_device cpu_device = {PT_DEV_CPU, -1};

/* A wrapped 0-d tensor holding s (bool, int64, float64 or complex128 by its kind); NULL for
 * None. */
static pt_status wrap_scalar(const pt_scalar *s, pt_tensor **out)
{
    *out = NULL;
    if (!s) return PT_OK;
    int32_t dtype;
    switch (s->kind) {
    case PT_SCALAR_BOOL: dtype = PT_BOOL; break;
    case PT_SCALAR_INT: dtype = PT_INT64; break;
    case PT_SCALAR_FLOAT: dtype = PT_FLOAT64; break;
    case PT_SCALAR_COMPLEX: dtype = PT_COMPLEX128; break;
    default: return PT_ERROR(PT_ERR_VALUE, "unknown scalar kind %d", (int)s->kind);
    }
    pt_tensor *t;
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

/* ---------------------------------------------------------------- clamp */

/* bool_kname: torch's kernel name when a bool result is refused (NULL: bool is computed). */
static pt_status clamp_run(const char *name, const char *bool_kname, int mode,
                           const pt_tensor *self, const pt_tensor *min, const pt_tensor *max,
                           pt_tensor *out_arg, pt_tensor **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", name);
    if (!min && !max)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "torch.clamp: At least one of 'min' or 'max' must not be None");
    PT_TRY(pt_iter_check_operand(self, name, "self"));
    if (min) PT_TRY(pt_iter_check_operand(min, name, "min"));
    if (max) PT_TRY(pt_iter_check_operand(max, name, "max"));
    if (mode == PT_UNARY_OUT) PT_TRY(pt_iter_check_operand(out_arg, name, "out"));
    if (pt_is_complex(self->dtype) || (min && pt_is_complex(min->dtype)) ||
        (max && pt_is_complex(max->dtype)))
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "clamp is not supported for complex types");
    pt_iter it;
    pt_iter_init(&it, name, PT_ITER_PROMOTE | (mode == PT_UNARY_INPLACE ? PT_ITER_INPLACE : 0));
    pt_iter_add_output(&it, mode == PT_UNARY_INPLACE ? (pt_tensor *)self : out_arg,
                       mode == PT_UNARY_OUT ? "out" : "self");
    pt_iter_add_input(&it, self, "self");
    if (min) pt_iter_add_input(&it, min, "min");
    if (max) pt_iter_add_input(&it, max, "max");
    PT_TRY(pt_iter_build(&it));
    const int32_t op = min && max ? PT_UNARY_CLAMP_TENSOR
                       : min      ? PT_UNARY_CLAMP_MIN_TENSOR
                                  : PT_UNARY_CLAMP_MAX_TENSOR;
    pt_loop_fn loop = pt_unary_loop(op, it.loop_dtype[1]);
    if (!loop || (bool_kname && it.common == PT_BOOL)) {
        pt_iter_cleanup(&it);
        return pt_unary_not_implemented(bool_kname ? bool_kname : "clamp_cpu", it.common);
    }
    pt_iter_run(&it, loop, NULL);
    return pt_iter_finish(&it, out);
}

static const char *scalar_kname(bool min, bool max)
{
    return min && max ? "clamp_scalar_cpu" : min ? "clamp_min_scalar_cpu" : "clamp_max_scalar_cpu";
}

/* Note [clamp with number bounds]
 * Python-number bounds on a floating tensor leave its dtype as it is (torch.result_type of a
 * float tensor and numbers is the tensor's), and torch reads each bound in that dtype. Those calls
 * (x.clamp(0, 6), h.clamp(min=0), the clipping in a training step) run as a one-input loop with
 * the bounds as its parameters, read through self's dtype, a missing one as an infinity: no 0-d
 * tensors made and filled for the bounds, no three-operand iterator. Measured: x.clamp(-0.5, 0.5)
 * on 100 float32 elements 789 ns that way round, 2-3 times what a unary call costs. Integer and
 * bool tensors, complex bounds and out= keep the general path, whose promotion and casting
 * rules they need. */
static const pt_unary_spec spec_clamp_scalar = {PT_UNARY_CLAMP_SCALAR, "clamp", "clamp_scalar_cpu",
                                                PT_UNARY_KIND_KEEP};

static bool clamp_as_unary(int mode, const pt_tensor *self, const pt_scalar *min,
                           const pt_scalar *max)
{
    return mode != PT_UNARY_OUT && self && pt_is_floating(self->dtype) && (min || max) &&
           (!min || min->kind != PT_SCALAR_COMPLEX) && (!max || max->kind != PT_SCALAR_COMPLEX);
}

static pt_status clamp_scalar(const char *name, int mode, const pt_tensor *self,
                              const pt_scalar *min, const pt_scalar *max, pt_tensor *out_arg,
                              pt_tensor **out)
{
    if (out && clamp_as_unary(mode, self, min, max)) {
        /* torch reads each bound in self's dtype, refusing a finite one past its range */
        if (min) PT_TRY(pt_dtype_scalar_check(self->dtype, min));
        if (max) PT_TRY(pt_dtype_scalar_check(self->dtype, max));
        const pt_scalar lo = {PT_SCALAR_FLOAT, 0, -INFINITY, 0};
        const pt_scalar hi = {PT_SCALAR_FLOAT, 0, INFINITY, 0};
        const pt_scalar *bounds[3] = {min ? min : &lo, max ? max : &hi, NULL};
        return pt_unary_call(&spec_clamp_scalar, mode, self, NULL, bounds, 0, out);
    }
    pt_tensor *lo = NULL, *hi = NULL;
    PT_TRY(wrap_scalar(min, &lo));
    pt_status st = wrap_scalar(max, &hi);
    if (st == PT_OK)
        st = clamp_run(name, scalar_kname(min, max), mode, self, lo, hi, out_arg, out);
    if (lo) pt_tensor_release(lo);
    if (hi) pt_tensor_release(hi);
    return st;
}


/* Tensor bounds: torch computes bool with one bound and refuses it with both. Bounds that are all
 * wrapped numbers are Python numbers that reached the Tensor overload: the Scalar overload's rule
 * (bool refused) holds for them. */
static pt_status clamp_tensor(const char *name, int mode, const pt_tensor *self,
                              const pt_tensor *min, const pt_tensor *max, pt_tensor *out_arg,
                              pt_tensor **out)
{
    const bool numbers = (!min || min->wrapped_number) && (!max || max->wrapped_number);
    const char *kname = numbers ? scalar_kname(min, max) : min && max ? "clamp_cpu" : NULL;
    return clamp_run(name, kname, mode, self, min, max, out_arg, out);
}

pt_status pt_kernel_clamp(const pt_tensor *self, const pt_scalar *min, const pt_scalar *max,
                          pt_tensor **out)
{
    return clamp_scalar("clamp", PT_UNARY_FUNCTIONAL, self, min, max, NULL, out);
}

pt_status pt_kernel_clamp_(pt_tensor *self, const pt_scalar *min, const pt_scalar *max,
                           pt_tensor **out)
{
    return clamp_scalar("clamp_", PT_UNARY_INPLACE, self, min, max, NULL, out);
}

pt_status pt_kernel_clamp_out(const pt_tensor *self, const pt_scalar *min, const pt_scalar *max,
                              pt_tensor *out_arg, pt_tensor **out)
{
    return clamp_scalar("clamp", PT_UNARY_OUT, self, min, max, out_arg, out);
}

pt_status pt_kernel_clamp_Tensor(const pt_tensor *self, const pt_tensor *min, const pt_tensor *max,
                                 pt_tensor **out)
{
    return clamp_tensor("clamp", PT_UNARY_FUNCTIONAL, self, min, max, NULL, out);
}

pt_status pt_kernel_clamp__Tensor(pt_tensor *self, const pt_tensor *min, const pt_tensor *max,
                                  pt_tensor **out)
{
    return clamp_tensor("clamp_", PT_UNARY_INPLACE, self, min, max, NULL, out);
}

pt_status pt_kernel_clamp_Tensor_out(const pt_tensor *self, const pt_tensor *min,
                                     const pt_tensor *max, pt_tensor *out_arg, pt_tensor **out)
{
    return clamp_tensor("clamp", PT_UNARY_OUT, self, min, max, out_arg, out);
}

/* clamp_min and clamp_max: one bound, required. */
#define CLAMP_BOUND_OPS(NAME, LO, HI)                                                              \
    pt_status pt_kernel_##NAME(const pt_tensor *self, const pt_scalar *b, pt_tensor **out)         \
    {                                                                                              \
        return clamp_scalar(#NAME, PT_UNARY_FUNCTIONAL, self, LO, HI, NULL, out);                  \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, const pt_scalar *b, pt_tensor **out)            \
    {                                                                                              \
        return clamp_scalar(#NAME "_", PT_UNARY_INPLACE, self, LO, HI, NULL, out);                 \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, const pt_scalar *b,                    \
                                     pt_tensor *out_arg, pt_tensor **out)                          \
    {                                                                                              \
        return clamp_scalar(#NAME, PT_UNARY_OUT, self, LO, HI, out_arg, out);                      \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_Tensor(const pt_tensor *self, const pt_tensor *b,                 \
                                        pt_tensor **out)                                           \
    {                                                                                              \
        return clamp_tensor(#NAME, PT_UNARY_FUNCTIONAL, self, LO, HI, NULL, out);                  \
    }                                                                                              \
    pt_status pt_kernel_##NAME##__Tensor(pt_tensor *self, const pt_tensor *b, pt_tensor **out)     \
    {                                                                                              \
        return clamp_tensor(#NAME "_", PT_UNARY_INPLACE, self, LO, HI, NULL, out);                 \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_Tensor_out(const pt_tensor *self, const pt_tensor *b,             \
                                            pt_tensor *out_arg, pt_tensor **out)                   \
    {                                                                                              \
        return clamp_tensor(#NAME, PT_UNARY_OUT, self, LO, HI, out_arg, out);                      \
    }
CLAMP_BOUND_OPS(clamp_min, b, NULL)
CLAMP_BOUND_OPS(clamp_max, NULL, b)

/* ---------------------------------------------------------------- threshold, relu, gelu, silu */

static const pt_unary_spec spec_threshold = {PT_UNARY_THRESHOLD, "threshold", "threshold_cpu",
                                             PT_UNARY_KIND_KEEP};
static const pt_unary_spec spec_relu = {PT_UNARY_RELU, "relu", "relu_cpu", PT_UNARY_KIND_KEEP};
static const pt_unary_spec spec_silu = {PT_UNARY_SILU, "silu", "silu_cpu", PT_UNARY_KIND_KEEP};
static const pt_unary_spec spec_gelu = {PT_UNARY_GELU, "gelu", "GeluKernelImpl",
                                        PT_UNARY_KIND_KEEP};
static const pt_unary_spec spec_gelu_tanh = {PT_UNARY_GELU_TANH, "gelu", "GeluKernelImpl",
                                             PT_UNARY_KIND_KEEP};

/* x <= threshold ? value : x, both numbers read in self's dtype (no promotion, as torch). */
static pt_status threshold(int mode, const pt_tensor *self, const pt_scalar *th,
                           const pt_scalar *value, pt_tensor *out_arg, pt_tensor **out)
{
    if (!th || !value)
        return PT_ERROR(PT_ERR_TYPE, "threshold(): arguments 'threshold' and 'value' must be "
                        "numbers, not None");
    const pt_scalar *scalars[3] = {th, value, NULL};
    return pt_unary_call(&spec_threshold, mode, self, out_arg, scalars, 0, out);
}

pt_status pt_kernel_threshold(const pt_tensor *self, const pt_scalar *th, const pt_scalar *value,
                              pt_tensor **out)
{
    return threshold(PT_UNARY_FUNCTIONAL, self, th, value, NULL, out);
}

pt_status pt_kernel_threshold_(pt_tensor *self, const pt_scalar *th, const pt_scalar *value,
                               pt_tensor **out)
{
    return threshold(PT_UNARY_INPLACE, self, th, value, NULL, out);
}

pt_status pt_kernel_threshold_out(const pt_tensor *self, const pt_scalar *th,
                                  const pt_scalar *value, pt_tensor *out_arg, pt_tensor **out)
{
    return threshold(PT_UNARY_OUT, self, th, value, out_arg, out);
}

PT_UNARY_OPS(relu)
PT_UNARY_OPS(silu)

static pt_status gelu(int mode, const pt_tensor *self, const char *approximate,
                      pt_tensor *out_arg, pt_tensor **out)
{
    const pt_unary_spec *spec;
    if (!approximate || strcmp(approximate, "none") == 0) spec = &spec_gelu;
    else if (strcmp(approximate, "tanh") == 0) spec = &spec_gelu_tanh;
    else return PT_ERROR(PT_ERR_RUNTIME, "approximate argument must be either none or tanh.");
    return pt_unary_call(spec, mode, self, out_arg, NULL, 0, out);
}

pt_status pt_kernel_gelu(const pt_tensor *self, const char *approximate, pt_tensor **out)
{
    return gelu(PT_UNARY_FUNCTIONAL, self, approximate, NULL, out);
}

pt_status pt_kernel_gelu_(pt_tensor *self, const char *approximate, pt_tensor **out)
{
    return gelu(PT_UNARY_INPLACE, self, approximate, NULL, out);
}

pt_status pt_kernel_gelu_out(const pt_tensor *self, const char *approximate, pt_tensor *out_arg,
                             pt_tensor **out)
{
    return gelu(PT_UNARY_OUT, self, approximate, out_arg, out);
}

/* ---------------------------------------------------------------- nan_to_num */

static const pt_unary_spec spec_nan_to_num = {PT_UNARY_NAN_TO_NUM, "nan_to_num", "nan_to_num",
                                              PT_UNARY_KIND_KEEP};

/* The largest finite value of a floating dtype (of the real part for complex). */
static double largest(int32_t dtype)
{
    switch (dtype) {
    case PT_FLOAT16: return 65504.0;
    case PT_BFLOAT16: return 0x1.fep127;
    case PT_FLOAT32: case PT_COMPLEX64: return FLT_MAX;
    default: return DBL_MAX;
    }
}

static pt_status nan_to_num(int mode, const pt_tensor *self, const double *nan,
                            const double *posinf, const double *neginf, pt_tensor *out_arg,
                            pt_tensor **out)
{
    if (!self) return PT_ERROR(PT_ERR_VALUE, "nan_to_num: self must be a tensor, got NULL");
    const double big = largest(self->dtype);
    const pt_scalar v[3] = {{PT_SCALAR_FLOAT, 0, nan ? *nan : 0.0, 0},
                            {PT_SCALAR_FLOAT, 0, posinf ? *posinf : big, 0},
                            {PT_SCALAR_FLOAT, 0, neginf ? *neginf : -big, 0}};
    const pt_scalar *scalars[3] = {&v[0], &v[1], &v[2]};
    return pt_unary_call(&spec_nan_to_num, mode, self, out_arg, scalars, 0, out);
}

pt_status pt_kernel_nan_to_num(const pt_tensor *self, const double *nan, const double *posinf,
                               const double *neginf, pt_tensor **out)
{
    return nan_to_num(PT_UNARY_FUNCTIONAL, self, nan, posinf, neginf, NULL, out);
}

pt_status pt_kernel_nan_to_num_(pt_tensor *self, const double *nan, const double *posinf,
                                const double *neginf, pt_tensor **out)
{
    return nan_to_num(PT_UNARY_INPLACE, self, nan, posinf, neginf, NULL, out);
}

pt_status pt_kernel_nan_to_num_out(const pt_tensor *self, const double *nan, const double *posinf,
                                   const double *neginf, pt_tensor *out_arg, pt_tensor **out)
{
    return nan_to_num(PT_UNARY_OUT, self, nan, posinf, neginf, out_arg, out);
}

/* ---------------------------------------------------------------- where */

static pt_status where(const pt_tensor *cond, const pt_tensor *self, const pt_tensor *other,
                       pt_tensor *out_arg, pt_tensor **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "where: out must not be NULL");
    PT_TRY(pt_iter_check_operand(cond, "where", "condition"));
    PT_TRY(pt_iter_check_operand(self, "where", "self"));
    PT_TRY(pt_iter_check_operand(other, "where", "other"));
    if (out_arg) PT_TRY(pt_iter_check_operand(out_arg, "where", "out"));
    if (cond->dtype != PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "where expected condition to be a boolean tensor, but got "
                        "a tensor with dtype %s", pt_iter_type_name(cond->dtype));
    /* The condition joins the promotion as a bool, which never changes a result type. */
    pt_iter it;
    pt_iter_init(&it, "where", PT_ITER_PROMOTE);
    pt_iter_add_output(&it, out_arg, "out");
    pt_iter_add_input(&it, cond, "condition");
    pt_iter_add_input(&it, self, "self");
    pt_iter_add_input(&it, other, "other");
    PT_TRY(pt_iter_build(&it));
    /* where moves elements: it runs in the common dtype itself, float16 included. */
    const int32_t common = it.common;
    for (int32_t k = 0; k < 4; k++) {
        it.loop_dtype[k] = k == 1 ? PT_BOOL : common;
        it.mid_dtype[k] = -1;
    }
    pt_iter_run(&it, pt_unary_loop(PT_UNARY_WHERE, common), NULL);
    return pt_iter_finish(&it, out);
}

pt_status pt_kernel_where_self(const pt_tensor *condition, const pt_tensor *self,
                               const pt_tensor *other, pt_tensor **out)
{
    return where(condition, self, other, NULL, out);
}

pt_status pt_kernel_where_self_out(const pt_tensor *condition, const pt_tensor *self,
                                   const pt_tensor *other, pt_tensor *out_arg, pt_tensor **out)
{
    return where(condition, self, other, out_arg, out);
}

/* The Scalar overloads: the numbers join as wrapped numbers. */
static pt_status where_scalars(const pt_tensor *cond, const pt_tensor *self, const pt_scalar *s,
                               const pt_tensor *other, const pt_scalar *o, pt_tensor **out)
{
    pt_tensor *ws = NULL, *wo = NULL;
    if (!self && !s) return PT_ERROR(PT_ERR_TYPE, "where(): argument 'self' must be a Number");
    if (!other && !o) return PT_ERROR(PT_ERR_TYPE, "where(): argument 'other' must be a Number");
    PT_TRY(wrap_scalar(s, &ws));
    pt_status st = wrap_scalar(o, &wo);
    if (st == PT_OK) st = where(cond, self ? self : ws, other ? other : wo, NULL, out);
    if (ws) pt_tensor_release(ws);
    if (wo) pt_tensor_release(wo);
    return st;
}

pt_status pt_kernel_where_ScalarSelf(const pt_tensor *condition, const pt_scalar *self,
                                     const pt_tensor *other, pt_tensor **out)
{
    return where_scalars(condition, NULL, self, other, NULL, out);
}

pt_status pt_kernel_where_ScalarOther(const pt_tensor *condition, const pt_tensor *self,
                                      const pt_scalar *other, pt_tensor **out)
{
    return where_scalars(condition, self, NULL, NULL, other, out);
}

pt_status pt_kernel_where_Scalar(const pt_tensor *condition, const pt_scalar *self,
                                 const pt_scalar *other, pt_tensor **out)
{
    return where_scalars(condition, NULL, self, NULL, other, out);
}
