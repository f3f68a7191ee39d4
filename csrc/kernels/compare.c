/* compare.c - eq, ne, lt, le, gt, ge and logical_and, logical_or, logical_xor: functional,
 * in-place and out= overloads, as torch's comparison_op computes them.
 *
 * The inputs are compared in their common dtype (torch's promotion, wrapped numbers included) and
 * the loops write bool. A functional call returns a bool tensor; an in-place call keeps self's
 * dtype and an out= tensor may have any dtype (both receive 0 or 1 cast to it: the iterator casts
 * the loop's bool output, torch's cast_common_dtype_to_outputs). Small calls take the binary fast
 * path (Note [binary fast paths] in binary.c), so that `a < b` costs what `a + b` does. The loops
 * are cpu/compare_kernels.c, one table per CPU capability.
 */
#include "binary.h"
#include "compare.h"
#include "cpu_stub.h"
#include "iter.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(compare, pt_compare_table, "comparison and logical loops by input loop dtype")

static const char *const kernel_names[PT_COMPARE_OP_COUNT] = {
    "eq_cpu", "ne_cpu", "lt_cpu", "le_cpu", "gt_cpu", "ge_cpu",
    "logical_and_cpu", "logical_or_cpu", "logical_xor_cpu"};

static pt_status compare(const char *name, int32_t op, int mode, const pt_tensor *a,
                         const pt_tensor *b, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_binary_check(name, mode, a, b, out_arg, out));
    const pt_compare_table *table = PT_CPU_KERNELS(compare, pt_compare_table);
    if (mode == PT_BINARY_FUNCTIONAL) {
        int kind = pt_binary_fast_kind(a, b);
        pt_loop_fn fn = kind ? table->fn[op][a->dtype] : NULL;
        if (fn) return pt_binary_fast_run(kind, a, b, PT_BOOL, fn, NULL, out);
    }
    pt_iter it;
    PT_TRY(pt_binary_build(&it, name, PT_ITER_PROMOTE | PT_ITER_ANY_OUTPUT_DTYPE, -1, PT_BOOL,
                           mode, a, b, out_arg));
    pt_loop_fn fn = table->fn[op][pt_opmath_dtype(it.common)];
    if (!fn) {
        pt_iter_cleanup(&it);
        return pt_binary_unsupported(kernel_names[op], it.common);
    }
    it.loop_dtype[0] = PT_BOOL;
    it.mid_dtype[0] = -1;
    pt_iter_run(&it, fn, NULL);
    return pt_iter_finish(&it, out);
}

#define PT_COMPARE_KERNELS(NAME, OP)                                                               \
    pt_status pt_kernel_##NAME(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)     \
    {                                                                                              \
        return compare(#NAME, OP, PT_BINARY_FUNCTIONAL, self, other, NULL, ret);                   \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)        \
    {                                                                                              \
        return compare(#NAME "_", OP, PT_BINARY_INPLACE, self, other, NULL, ret);                  \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, const pt_tensor *other,                \
                                     pt_tensor *out, pt_tensor **ret)                              \
    {                                                                                              \
        return compare(#NAME, OP, PT_BINARY_OUT, self, other, out, ret);                           \
    }
PT_COMPARE_KERNELS(eq, PT_COMPARE_EQ)
PT_COMPARE_KERNELS(ne, PT_COMPARE_NE)
PT_COMPARE_KERNELS(lt, PT_COMPARE_LT)
PT_COMPARE_KERNELS(le, PT_COMPARE_LE)
PT_COMPARE_KERNELS(gt, PT_COMPARE_GT)
PT_COMPARE_KERNELS(ge, PT_COMPARE_GE)
PT_COMPARE_KERNELS(logical_and, PT_COMPARE_LOGICAL_AND)
PT_COMPARE_KERNELS(logical_or, PT_COMPARE_LOGICAL_OR)
PT_COMPARE_KERNELS(logical_xor, PT_COMPARE_LOGICAL_XOR)
