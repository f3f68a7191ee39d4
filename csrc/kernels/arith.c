/* arith.c - pow (Tensor ** Tensor, Tensor ** Scalar, Scalar ** Tensor), maximum, minimum and
 * atan2: functional, in-place and out= overloads, each one pass of the iterator (iter.c).
 *
 * The Scalar overloads of pow arrive here as the Tensor overload with a wrapped number (the
 * composites of csrc/ops/arithmetic.c), which is what torch's Python operators give too; a wrapped
 * exponent takes torch's Tensor-Scalar path (Note [pow with a Scalar exponent]) and a wrapped base
 * of 1 its Scalar-Tensor shortcut. The loops are cpu/arith_kernels.c, one table per CPU capability.
 */
#include "arith.h"
#include "binary.h"
#include "cpu_stub.h"
#include "iter.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(arith, pt_arith_table, "pow, maximum, minimum and atan2 loops by loop dtype")

static const pt_arith_table *table(void) { return PT_CPU_KERNELS(arith, pt_arith_table); }

/* One pass of a two-input loop of the table, with the refusal in torch's words. */
static pt_status binary_op(const char *name, const char *kernel, int32_t op, int32_t flags,
                           int mode, const pt_tensor *a, const pt_tensor *b, pt_tensor *out_arg,
                           pt_tensor **out)
{
    if (mode == PT_BINARY_FUNCTIONAL && !(flags & PT_ITER_INT_TO_FLOAT)) {
        int kind = pt_binary_fast_kind(a, b);
        pt_loop_fn fn = kind ? table()->binary[op][a->dtype] : NULL;
        if (fn) return pt_binary_fast_run(kind, a, b, a->dtype, fn, NULL, out);
    }
    pt_iter it;
    PT_TRY(pt_binary_build(&it, name, flags | PT_ITER_PROMOTE, -1, -1, mode, a, b, out_arg));
    pt_loop_fn fn = table()->binary[op][pt_opmath_dtype(it.common)];
    if (!fn) {
        pt_iter_cleanup(&it);
        return pt_binary_unsupported(kernel, it.common);
    }
    pt_iter_run(&it, fn, NULL);
    return pt_iter_finish(&it, out);
}

/* ---------------------------------------------------------------- pow */

/* Note [pow with a Scalar exponent]
 * torch's pow.Tensor_Scalar refuses a negative integral exponent for an integral (or bool) base,
 * computes in result_type(base, exponent), and then picks the work by the exponent: 0 fills ones
 * and 1 copies (whatever the base holds, NaN included); for float32, float64, bfloat16 and complex
 * 0.5, -0.5 and -1 are sqrt, rsqrt and reciprocal (so (-0) ** 0.5 is -0 and (-inf) ** 0.5 NaN, as
 * sqrt gives, where pow's own rules give +0 and +inf) and 2, 3, -2 are products; everything else,
 * float16 always, is pow. The exponent is cast to the computation's type first (refused when
 * an integral or 16-bit float type cannot hold it), except that a float32 base meets it as a
 * double. */
typedef struct scalar_value {
    bool integral; /* int or bool */
    int64_t i;
    double re, im;
} scalar_value;

static scalar_value wrapped_value(const pt_tensor *w)
{
    pt_scalar s;
    pt_dtype_scalar_from(w->dtype)(pt_tensor_data(w), &s);
    scalar_value v = {s.kind == PT_SCALAR_INT || s.kind == PT_SCALAR_BOOL, s.i, s.re, 0.0};
    if (v.integral) v.re = (double)s.i;
    if (s.kind == PT_SCALAR_COMPLEX) v.im = s.im;
    return v;
}

static bool equals(const scalar_value *v, double x) { return v->re == x && v->im == 0.0; }

static int32_t pow_choice(const scalar_value *e, int32_t common)
{
    if (equals(e, 0.0)) return PT_POW_ONE;
    if (equals(e, 1.0)) return PT_POW_COPY;
    if (pt_is_integral(common, true) || common == PT_FLOAT16) return PT_POW_GENERIC;
    static const struct {
        double value;
        int32_t op;
    } special[] = {{0.5, PT_POW_SQRT},  {-0.5, PT_POW_RSQRT}, {-1.0, PT_POW_RECIPROCAL},
                   {2.0, PT_POW_SQUARE}, {3.0, PT_POW_CUBE}, {-2.0, PT_POW_RSQUARE}};
    for (size_t k = 0; k < sizeof special / sizeof special[0]; k++)
        if (equals(e, special[k].value)) return special[k].op;
    return PT_POW_GENERIC;
}

/* The exponent as the loops read it (arith.h): rounded to the common dtype where torch rounds. */
static pt_pow_exponent exponent_for(const scalar_value *e, int32_t common)
{
    pt_pow_exponent x = {e->i, e->re, e->re, e->im};
    if (common == PT_FLOAT16 || common == PT_BFLOAT16) {
        pt_scalar s = {PT_SCALAR_FLOAT, 0, e->re, 0.0};
        uint16_t bits;
        pt_dtype_scalar_to(common)(&s, &bits);
        float f;
        pt_dtype_cast_fn(common, PT_FLOAT32)((char *)&f, 0, (const char *)&bits, 0, 1);
        x.d = f;
    } else if (common == PT_COMPLEX64) {
        x.re = (float)e->re;
        x.im = (float)e->im;
    }
    return x;
}

/* self ** w for a wrapped number w; a unary pass over self in result_type(self, w). */
static pt_status pow_scalar(const char *name, int mode, const pt_tensor *a, const pt_tensor *w,
                            pt_tensor *out_arg, pt_tensor **out)
{
    scalar_value e = wrapped_value(w);
    if (pt_is_integral(a->dtype, true) && e.integral && e.i < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    int32_t common;
    PT_TRY(pt_binary_result_type(a, w, &common));
    const int32_t choice = pow_choice(&e, common);
    const bool narrow = pt_is_integral(common, true) || pt_opmath_dtype(common) != common;
    if (choice == PT_POW_GENERIC && narrow) {
        /* torch's Scalar::to<scalar_t> refuses an exponent the type cannot hold. */
        pt_scalar s;
        pt_dtype_scalar_from(w->dtype)(pt_tensor_data(w), &s);
        PT_TRY(pt_dtype_scalar_check(common, &s));
    }
    pt_loop_fn fn = table()->pow_scalar[choice][pt_opmath_dtype(common)];
    if (!fn) return pt_binary_unsupported("pow", common);
    pt_pow_exponent x = exponent_for(&e, common);
    pt_iter it;
    PT_TRY(pt_binary_build(&it, name, 0, common, -1, mode, a, NULL, out_arg));
    pt_iter_run(&it, fn, &x);
    return pt_iter_finish(&it, out);
}

/* torch's pow.Scalar: a base equal to 1 gives ones of the exponent's shape without reading it. */
static pt_status pow_one_base(int mode, const pt_tensor *w, const pt_tensor *b, pt_tensor *out_arg,
                              pt_tensor **out)
{
    int32_t common;
    PT_TRY(pt_binary_result_type(w, b, &common));
    pt_iter it;
    PT_TRY(pt_binary_build(&it, "pow", 0, common, -1, mode, b, NULL, out_arg));
    pt_pow_exponent unused = {0, 0.0, 0.0, 0.0};
    pt_iter_run(&it, table()->pow_scalar[PT_POW_ONE][pt_opmath_dtype(common)], &unused);
    return pt_iter_finish(&it, out);
}

static bool is_wrapped(const pt_tensor *t) { return t->wrapped_number && t->ndim == 0; }

static pt_status power(const char *name, int mode, const pt_tensor *a, const pt_tensor *b,
                       pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_binary_check(name, mode, a, b, out_arg, out));
    if (is_wrapped(b) && !is_wrapped(a)) return pow_scalar(name, mode, a, b, out_arg, out);
    if (is_wrapped(a) && !is_wrapped(b) && mode != PT_BINARY_INPLACE) {
        scalar_value base = wrapped_value(a);
        if (equals(&base, 1.0)) return pow_one_base(mode, a, b, out_arg, out);
    }
    return binary_op(name, "pow", PT_ARITH_POW, 0, mode, a, b, out_arg, out);
}

pt_status pt_kernel_pow(const pt_tensor *self, const pt_tensor *exponent, pt_tensor **ret)
{
    return power("pow", PT_BINARY_FUNCTIONAL, self, exponent, NULL, ret);
}

pt_status pt_kernel_pow_(pt_tensor *self, const pt_tensor *exponent, pt_tensor **ret)
{
    return power("pow_", PT_BINARY_INPLACE, self, exponent, NULL, ret);
}

pt_status pt_kernel_pow_out(const pt_tensor *self, const pt_tensor *exponent, pt_tensor *out,
                            pt_tensor **ret)
{
    return power("pow", PT_BINARY_OUT, self, exponent, out, ret);
}

/* ---------------------------------------------------------------- maximum, minimum, atan2 */

static pt_status extremum(const char *name, int32_t op, int mode, const pt_tensor *a,
                          const pt_tensor *b, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_binary_check(name, mode, a, b, out_arg, out));
    if (pt_is_complex(a->dtype) || pt_is_complex(b->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "%s not implemented for complex tensors.", name);
    return binary_op(name, name, op, 0, mode, a, b, out_arg, out);
}

pt_status pt_kernel_maximum(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return extremum("maximum", PT_ARITH_MAXIMUM, PT_BINARY_FUNCTIONAL, self, other, NULL, ret);
}

pt_status pt_kernel_maximum_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                                pt_tensor **ret)
{
    return extremum("maximum", PT_ARITH_MAXIMUM, PT_BINARY_OUT, self, other, out, ret);
}

pt_status pt_kernel_minimum(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return extremum("minimum", PT_ARITH_MINIMUM, PT_BINARY_FUNCTIONAL, self, other, NULL, ret);
}

pt_status pt_kernel_minimum_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                                pt_tensor **ret)
{
    return extremum("minimum", PT_ARITH_MINIMUM, PT_BINARY_OUT, self, other, out, ret);
}

static pt_status arctangent(const char *name, int mode, const pt_tensor *a, const pt_tensor *b,
                            pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_binary_check(name, mode, a, b, out_arg, out));
    return binary_op(name, "atan2_cpu", PT_ARITH_ATAN2, PT_ITER_INT_TO_FLOAT, mode, a, b, out_arg,
                     out);
}

pt_status pt_kernel_atan2(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return arctangent("atan2", PT_BINARY_FUNCTIONAL, self, other, NULL, ret);
}

pt_status pt_kernel_atan2_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return arctangent("atan2_", PT_BINARY_INPLACE, self, other, NULL, ret);
}

pt_status pt_kernel_atan2_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                              pt_tensor **ret)
{
    return arctangent("atan2", PT_BINARY_OUT, self, other, out, ret);
}
