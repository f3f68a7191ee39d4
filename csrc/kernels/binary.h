/* binary.h - the binary arithmetic family's loop table: what binary.c (the front: checks,
 * promotion, outputs through the iterator) and cpu/binary_kernels.c (the loops, compiled once per
 * CPU capability) share; and the helpers every elementwise front of one or two inputs uses
 * (binary.c defines them): building the iterator for a functional, in-place or out= call, the
 * small-call fast path, and torch's refusal of a dtype.
 */
#ifndef PT_KERNELS_BINARY_H
#define PT_KERNELS_BINARY_H

#include "internal.h"
#include "iter.h"

enum {
    PT_BINARY_ADD = 0,       /* a + b */
    PT_BINARY_SUB = 1,       /* a - b */
    PT_BINARY_ADD_ALPHA = 2, /* a + alpha * b (sub with alpha != 1 is add with -alpha, as torch) */
    PT_BINARY_MUL = 3,       /* a * b */
    PT_BINARY_OP_COUNT = 4
};

/* One element of a loop dtype (alpha, a pre-converted scalar operand); aligned for all. */
typedef union pt_binary_value {
    uint64_t u;
    double d[2];
    unsigned char bytes[16];
} pt_binary_value;

/* Loops by (op, loop dtype): operands output, self, other, all of the loop dtype; ctx points to a
 * pt_binary_value holding alpha (PT_BINARY_ADD_ALPHA). float16 and bfloat16 compute in float32 and
 * have no loops; sub has none for bool. */
typedef struct pt_binary_table {
    pt_loop_fn fn[PT_BINARY_OP_COUNT][PT_DTYPE_BUILTIN_COUNT];
} pt_binary_table;

/* ---------------------------------------------------------------- helpers for the fronts */

/* How an overload returns: a new tensor, `self` written in place, or the out= tensor. */
enum { PT_BINARY_FUNCTIONAL = 0, PT_BINARY_INPLACE = 1, PT_BINARY_OUT = 2 };

/* The checks every front starts with: a result pointer, and each operand a strided CPU or meta
 * tensor of a builtin dtype (the message names `name` and the argument); b may be NULL (unary). */
pt_status pt_binary_check(const char *name, int mode, const pt_tensor *a, const pt_tensor *b,
                          pt_tensor *out_arg, pt_tensor **out);
/* Builds `it` for target = f(a, b) (b NULL: f(a)) after pt_binary_check: target is allocated
 * (functional), `a` (in place: PT_ITER_INPLACE is added) or
 * out_arg (out=); common is the computation's dtype where flags lack PT_ITER_PROMOTE (else -1),
 * out_dtype the dtype of an allocated output (-1: the common dtype). On
 * success the caller owns the iterator (pt_iter_finish or pt_iter_cleanup). */
pt_status pt_binary_build(pt_iter *it, const char *name, int32_t flags, int32_t common,
                          int32_t out_dtype, int mode, const pt_tensor *a, const pt_tensor *b,
                          pt_tensor *out_arg);

/* Note [binary fast paths] (binary.c): which fast shape a functional call of a and b has, when
 * its result type is a's dtype. */
enum { PT_BINARY_FAST_NONE = 0, PT_BINARY_FAST_SAME = 1, PT_BINARY_FAST_SCALAR = 2 };
int pt_binary_fast_kind(const pt_tensor *a, const pt_tensor *b); /* checked operands */
/* Runs `loop` (inputs of a's dtype, output of out_dtype) over a call of that kind into a new
 * contiguous tensor of a's shape. */
pt_status pt_binary_fast_run(int kind, const pt_tensor *a, const pt_tensor *b, int32_t out_dtype,
                             pt_loop_fn loop, void *ctx, pt_tensor **out);

/* torch.result_type(a, b) (pt_result_type in kernels.h, for fronts that include the generated
 * kernel prototypes instead). */
pt_status pt_binary_result_type(const pt_tensor *a, const pt_tensor *b, int32_t *out);

/* torch's refusal of a dtype by a kernel: `"bitwise_and_cpu" not implemented for 'Float'`, a
 * NotImplementedError as torch's dispatch macros raise it. */
pt_status pt_binary_unsupported(const char *kernel, int32_t dtype);

/* The flag loops raise through their ctx (an _Atomic int32_t) when an input makes the operation
 * fail, such as an integer division by zero: the front reports it after the run. */
typedef _Atomic int32_t pt_loop_flag;

#endif
