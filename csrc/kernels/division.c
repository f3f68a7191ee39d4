/* division.c - div (true, or rounded by rounding_mode 'trunc' / 'floor'), its aliases divide and
 * true_divide, floor_divide, remainder and fmod: functional, in-place and out= overloads.
 *
 * Each call is one pass of the iterator (iter.c) with torch's promotion; true division also turns
 * integral and bool results into the default float dtype, as torch's div does. What is left here is
 * each op's own: the rounding mode's spelling, the dtypes torch refuses (in torch's words), torch's
 * float16/bfloat16 quirk of reading a one-element divisor in float32 for true and floor division
 * only, and the integer division by zero that the loops flag and torch reports as
 * "ZeroDivisionError". The loops are cpu/division_kernels.c, one table per CPU capability.
 */
#include <string.h>

#include "binary.h"
#include "cpu_stub.h"
#include "division.h"
#include "iter.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(division, pt_division_table, "div, remainder and fmod loops by loop dtype")

/* The names torch's dispatch macros give the kernels, for its "not implemented" message. */
static const char *const kernel_names[PT_DIVISION_OP_COUNT] = {
    "div_true_cpu", "div_trunc_cpu", "div_floor_cpu", "remainder_cpu", "fmod_cpu"};

static pt_status division(const char *name, int32_t op, int mode, const pt_tensor *a,
                          const pt_tensor *b, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_binary_check(name, mode, a, b, out_arg, out));
    const pt_division_table *table = PT_CPU_KERNELS(division, pt_division_table);
    pt_loop_flag zero_division = 0;
    const bool int_to_float = op == PT_DIVISION_TRUE && pt_is_integral(a->dtype, true);
    if (mode == PT_BINARY_FUNCTIONAL && !int_to_float) {
        int kind = pt_binary_fast_kind(a, b);
        pt_loop_fn fn = kind ? table->fn[op][a->dtype] : NULL;
        if (fn) {
            PT_TRY(pt_binary_fast_run(kind, a, b, a->dtype, fn, &zero_division, out));
            if (!zero_division) return PT_OK;
            pt_tensor_release(*out);
            *out = NULL;
            return PT_ERROR(PT_ERR_RUNTIME, "ZeroDivisionError");
        }
    }
    pt_iter it;
    const int32_t flags = PT_ITER_PROMOTE | (op == PT_DIVISION_TRUE ? PT_ITER_INT_TO_FLOAT : 0);
    PT_TRY(pt_binary_build(&it, name, flags, -1, -1, mode, a, b, out_arg));
    const int32_t opmath = pt_opmath_dtype(it.common);
    pt_loop_fn fn = table->fn[op][opmath];
    if (!fn) {
        pt_iter_cleanup(&it);
        return pt_binary_unsupported(kernel_names[op], it.common);
    }
    /* torch reads a one-element divisor's own value in float32 for true and floor division of
     * float16/bfloat16 (its reduced-float scalar paths), and rounds it to the common dtype for the
     * others. */
    if (opmath != it.common && b->numel == 1 && (op == PT_DIVISION_TRUE || op == PT_DIVISION_FLOOR))
        it.mid_dtype[2] = -1;
    pt_iter_run(&it, fn, &zero_division);
    if (zero_division) {
        pt_iter_cleanup(&it);
        return PT_ERROR(PT_ERR_RUNTIME, "ZeroDivisionError");
    }
    return pt_iter_finish(&it, out);
}

/* rounding_mode: None (NULL) divides exactly, 'trunc' and 'floor' round; torch's message else. */
static pt_status rounding_op(const char *mode, int32_t *op)
{
    if (!mode) *op = PT_DIVISION_TRUE;
    else if (strcmp(mode, "trunc") == 0) *op = PT_DIVISION_TRUNC;
    else if (strcmp(mode, "floor") == 0) *op = PT_DIVISION_FLOOR;
    else
        return PT_ERROR(PT_ERR_RUNTIME, "div expected rounding_mode to be one of None, 'trunc', or "
                        "'floor' but found '%s'", mode);
    return PT_OK;
}

static pt_status div_mode(int mode, const pt_tensor *a, const pt_tensor *b, const char *rounding,
                          pt_tensor *out_arg, pt_tensor **out)
{
    int32_t op = PT_DIVISION_TRUE;
    PT_TRY(rounding_op(rounding, &op));
    return division("div", op, mode, a, b, out_arg, out);
}

/* ---------------------------------------------------------------- entry points */

pt_status pt_kernel_div(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return division("div", PT_DIVISION_TRUE, PT_BINARY_FUNCTIONAL, self, other, NULL, ret);
}

pt_status pt_kernel_div_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return division("div_", PT_DIVISION_TRUE, PT_BINARY_INPLACE, self, other, NULL, ret);
}

pt_status pt_kernel_div_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                            pt_tensor **ret)
{
    return division("div", PT_DIVISION_TRUE, PT_BINARY_OUT, self, other, out, ret);
}

pt_status pt_kernel_div_mode(const pt_tensor *self, const pt_tensor *other,
                             const char *rounding_mode, pt_tensor **ret)
{
    return div_mode(PT_BINARY_FUNCTIONAL, self, other, rounding_mode, NULL, ret);
}

pt_status pt_kernel_div__mode(pt_tensor *self, const pt_tensor *other, const char *rounding_mode,
                              pt_tensor **ret)
{
    return div_mode(PT_BINARY_INPLACE, self, other, rounding_mode, NULL, ret);
}

pt_status pt_kernel_div_out_mode(const pt_tensor *self, const pt_tensor *other,
                                 const char *rounding_mode, pt_tensor *out, pt_tensor **ret)
{
    return div_mode(PT_BINARY_OUT, self, other, rounding_mode, out, ret);
}

pt_status pt_kernel_floor_divide(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return division("floor_divide", PT_DIVISION_FLOOR, PT_BINARY_FUNCTIONAL, self, other, NULL,
                    ret);
}

pt_status pt_kernel_floor_divide_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return division("floor_divide_", PT_DIVISION_FLOOR, PT_BINARY_INPLACE, self, other, NULL, ret);
}

pt_status pt_kernel_floor_divide_out(const pt_tensor *self, const pt_tensor *other,
                                     pt_tensor *out, pt_tensor **ret)
{
    return division("floor_divide", PT_DIVISION_FLOOR, PT_BINARY_OUT, self, other, out, ret);
}

pt_status pt_kernel_remainder(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return division("remainder", PT_DIVISION_REMAINDER, PT_BINARY_FUNCTIONAL, self, other, NULL,
                    ret);
}

pt_status pt_kernel_remainder_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return division("remainder_", PT_DIVISION_REMAINDER, PT_BINARY_INPLACE, self, other, NULL,
                    ret);
}

pt_status pt_kernel_remainder_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                                  pt_tensor **ret)
{
    return division("remainder", PT_DIVISION_REMAINDER, PT_BINARY_OUT, self, other, out, ret);
}

pt_status pt_kernel_fmod(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return division("fmod", PT_DIVISION_FMOD, PT_BINARY_FUNCTIONAL, self, other, NULL, ret);
}

pt_status pt_kernel_fmod_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return division("fmod_", PT_DIVISION_FMOD, PT_BINARY_INPLACE, self, other, NULL, ret);
}

pt_status pt_kernel_fmod_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                             pt_tensor **ret)
{
    return division("fmod", PT_DIVISION_FMOD, PT_BINARY_OUT, self, other, out, ret);
}
