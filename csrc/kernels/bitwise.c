/* bitwise.c - bitwise_and, bitwise_or, bitwise_xor, bitwise_not, bitwise_left_shift and
 * bitwise_right_shift: functional, in-place and out= overloads, one pass of the iterator each.
 *
 * The inputs promote as for arithmetic (wrapped numbers included) and the common dtype must be
 * integral or bool (integral for the shifts); torch's message names its kernel otherwise
 * ("bitwise_and_cpu", "lshift_cpu"). The loops are cpu/bitwise_kernels.c, one table per CPU
 * capability.
 */
#include "binary.h"
#include "bitwise.h"
#include "cpu_stub.h"
#include "iter.h"
#include "pt_ops_internal.h"

PT_CPU_STUB(bitwise, pt_bitwise_table, "bitwise and shift loops by loop dtype")

static const char *const kernel_names[PT_BITWISE_OP_COUNT] = {
    "bitwise_and_cpu", "bitwise_or_cpu", "bitwise_xor_cpu", "lshift_cpu", "rshift_cpu",
    "bitwise_not_cpu"};

/* b NULL: bitwise_not. */
static pt_status bitwise(const char *name, int32_t op, int mode, const pt_tensor *a,
                         const pt_tensor *b, pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_binary_check(name, mode, a, b, out_arg, out));
    const pt_bitwise_table *table = PT_CPU_KERNELS(bitwise, pt_bitwise_table);
    if (mode == PT_BINARY_FUNCTIONAL && b) {
        int kind = pt_binary_fast_kind(a, b);
        pt_loop_fn fn = kind ? table->fn[op][a->dtype] : NULL;
        if (fn) return pt_binary_fast_run(kind, a, b, a->dtype, fn, NULL, out);
    }
    pt_iter it;
    const int32_t flags = b ? PT_ITER_PROMOTE : 0;
    PT_TRY(pt_binary_build(&it, name, flags, b ? -1 : a->dtype, -1, mode, a, b, out_arg));
    pt_loop_fn fn = table->fn[op][it.common];
    if (!fn) {
        pt_iter_cleanup(&it);
        return pt_binary_unsupported(kernel_names[op], it.common);
    }
    pt_iter_run(&it, fn, NULL);
    return pt_iter_finish(&it, out);
}

#define PT_BITWISE_KERNELS(NAME, OP)                                                               \
    pt_status pt_kernel_##NAME(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)     \
    {                                                                                              \
        return bitwise(#NAME, OP, PT_BINARY_FUNCTIONAL, self, other, NULL, ret);                   \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_(pt_tensor *self, const pt_tensor *other, pt_tensor **ret)        \
    {                                                                                              \
        return bitwise(#NAME "_", OP, PT_BINARY_INPLACE, self, other, NULL, ret);                  \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_out(const pt_tensor *self, const pt_tensor *other,                \
                                     pt_tensor *out, pt_tensor **ret)                              \
    {                                                                                              \
        return bitwise(#NAME, OP, PT_BINARY_OUT, self, other, out, ret);                           \
    }
PT_BITWISE_KERNELS(bitwise_and, PT_BITWISE_AND)
PT_BITWISE_KERNELS(bitwise_or, PT_BITWISE_OR)
PT_BITWISE_KERNELS(bitwise_xor, PT_BITWISE_XOR)
PT_BITWISE_KERNELS(bitwise_left_shift, PT_BITWISE_LSHIFT)
PT_BITWISE_KERNELS(bitwise_right_shift, PT_BITWISE_RSHIFT)

pt_status pt_kernel_bitwise_not(const pt_tensor *self, pt_tensor **ret)
{
    return bitwise("bitwise_not", PT_BITWISE_NOT, PT_BINARY_FUNCTIONAL, self, NULL, NULL, ret);
}

pt_status pt_kernel_bitwise_not_(pt_tensor *self, pt_tensor **ret)
{
    return bitwise("bitwise_not_", PT_BITWISE_NOT, PT_BINARY_INPLACE, self, NULL, NULL, ret);
}

pt_status pt_kernel_bitwise_not_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    return bitwise("bitwise_not", PT_BITWISE_NOT, PT_BINARY_OUT, self, NULL, out, ret);
}
