/* binary.c - add, sub and mul (functional, in-place and out=) as torch computes them.
 *
 * The iterator (iter.c) does what every elementwise operation shares: checks, overlap rules,
 * broadcasting, torch's result type with wrapped numbers, output allocation or checking. What is
 * left here is the arithmetic's own: sub refuses bool, alpha's type rules (torch's alpha_check)
 * and its sign for sub, and torch's one float16 quirk (mul reads a scalar other in float32 without
 * rounding it to float16 first). The loops are cpu/binary_kernels.c, one table per CPU capability.
 *
 * Small calls of two common shapes skip the iterator (Note [binary fast paths]): `a + b` and
 * `a + 1` on tiny tensors are dominated by per-call overhead, which the fast paths keep to one
 * output allocation and one loop call.
 */
#include <string.h>

#include "binary.h"
#include "cpu_stub.h"
#include "iter.h"
#include "kernels.h"

PT_CPU_STUB(binary, pt_binary_table, "add, sub and mul loops by loop dtype")

enum { FUNCTIONAL = PT_BINARY_FUNCTIONAL, INPLACE = PT_BINARY_INPLACE, OUT = PT_BINARY_OUT };

static const char *const op_names[PT_BINARY_OP_COUNT] = {"add", "sub", "add", "mul"};

static pt_loop_fn binary_loop(int32_t op, int32_t dtype)
{
    return PT_CPU_KERNELS(binary, pt_binary_table)->fn[op][dtype];
}

/* ---------------------------------------------------------------- argument checks */

static pt_status sub_check(const pt_tensor *a, const pt_tensor *b)
{
    if (a->dtype == PT_BOOL && b->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Subtraction, the `-` operator, with two bool tensors is not supported. "
                        "Use the `^` or `logical_xor()` operator instead.");
    if (a->dtype == PT_BOOL || b->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Subtraction, the `-` operator, with a bool tensor is not supported. If "
                        "you are trying to invert a mask, use the `~` or `logical_not()` "
                        "operator instead.");
    return PT_OK;
}

/* torch's alpha_check on the result dtype. */
static pt_status alpha_check(int32_t common, const pt_scalar *alpha)
{
    if (alpha->kind == PT_SCALAR_BOOL && common != PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    if (!pt_is_floating(common) && !pt_is_complex(common) && alpha->kind != PT_SCALAR_BOOL &&
        alpha->kind != PT_SCALAR_INT)
        return PT_ERROR(PT_ERR_RUNTIME, "For integral input tensors, argument alpha must not be "
                        "a floating point number.");
    if (!pt_is_complex(common) && alpha->kind == PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_RUNTIME, "For non-complex input tensors, argument alpha must not "
                        "be a complex number.");
    if (alpha->kind < PT_SCALAR_BOOL || alpha->kind > PT_SCALAR_COMPLEX)
        return PT_ERROR(PT_ERR_VALUE, "alpha: unknown scalar kind %d", (int)alpha->kind);
    return PT_OK;
}

static bool scalar_is_one(const pt_scalar *s)
{
    switch (s->kind) {
    case PT_SCALAR_BOOL: return s->i != 0;
    case PT_SCALAR_INT: return s->i == 1;
    case PT_SCALAR_FLOAT: return s->re == 1.0;
    default: return s->re == 1.0 && s->im == 0.0;
    }
}

/* Picks the loop and writes alpha (negated for sub, as torch's sub is add with -alpha) in the
 * compute dtype, through the common dtype as torch's Scalar::to<scalar_t> does. */
static pt_status prepare_alpha(int32_t op, const pt_scalar *alpha, int32_t common, int32_t opmath,
                               int32_t *loop_op, pt_binary_value *out)
{
    static const pt_scalar one = {PT_SCALAR_INT, 1, 0.0, 0.0};
    memset(out, 0, sizeof *out);
    *loop_op = op;
    if (op == PT_BINARY_MUL) return PT_OK;
    if (!alpha) alpha = &one;
    PT_TRY(alpha_check(common, alpha));
    if (scalar_is_one(alpha)) return PT_OK;
    pt_scalar v = *alpha;
    if (op == PT_BINARY_SUB) {
        v.i = (int64_t)(0 - (uint64_t)v.i); /* wraps for INT64_MIN like torch's -alpha */
        v.re = -v.re;
        v.im = -v.im;
    }
    PT_TRY(pt_dtype_scalar_check(common, &v));
    pt_binary_value tmp;
    pt_dtype_scalar_to(common)(&v, tmp.bytes);
    pt_dtype_cast_fn(common, opmath)((char *)out->bytes, 0, (const char *)tmp.bytes, 0, 1);
    *loop_op = PT_BINARY_ADD_ALPHA;
    return PT_OK;
}

/* ---------------------------------------------------------------- the operation */

typedef struct call {
    int32_t op; /* PT_BINARY_ADD, _SUB or _MUL as called */
    int mode;
    const pt_tensor *a, *b;
    const pt_scalar *alpha;
    pt_tensor *target; /* the written-to tensor of in-place and out= calls */
} call;

static pt_status binary_general(const call *c, pt_tensor **out)
{
    if (c->op == PT_BINARY_SUB) PT_TRY(sub_check(c->a, c->b));
    pt_iter it;
    pt_iter_init(&it, op_names[c->op],
                 PT_ITER_PROMOTE | (c->mode == INPLACE ? PT_ITER_INPLACE : 0));
    pt_iter_add_output(&it, c->target, c->mode == OUT ? "out" : "self");
    pt_iter_add_input(&it, c->a, "self");
    pt_iter_add_input(&it, c->b, "other");
    PT_TRY(pt_iter_build(&it));
    const int32_t opmath = pt_opmath_dtype(it.common);
    int32_t loop_op;
    pt_binary_value alpha;
    pt_status st = prepare_alpha(c->op, c->alpha, it.common, opmath, &loop_op, &alpha);
    if (st != PT_OK) {
        pt_iter_cleanup(&it);
        return st;
    }
    /* torch's mul on float16/bfloat16 reads a one-element other's original value in float32. */
    if (c->op == PT_BINARY_MUL && opmath != it.common && c->b->numel == 1) it.mid_dtype[2] = -1;
    pt_iter_run(&it, binary_loop(loop_op, opmath), &alpha);
    return pt_iter_finish(&it, out);
}

static bool same_sizes(const pt_tensor *a, const pt_tensor *b)
{
    return a->ndim == b->ndim &&
           (a->ndim == 0 || memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0);
}

/* ---------------------------------------------------------------- helpers for the fronts */

pt_status pt_binary_check(const char *name, int mode, const pt_tensor *a, const pt_tensor *b,
                          pt_tensor *out_arg, pt_tensor **out)
{
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", name);
    PT_TRY(pt_iter_check_operand(a, name, "self"));
    if (b) PT_TRY(pt_iter_check_operand(b, name, "other"));
    if (mode == PT_BINARY_OUT) PT_TRY(pt_iter_check_operand(out_arg, name, "out"));
    return PT_OK;
}

pt_status pt_binary_build(pt_iter *it, const char *name, int32_t flags, int32_t common,
                          int32_t out_dtype, int mode, const pt_tensor *a, const pt_tensor *b,
                          pt_tensor *out_arg)
{
    pt_tensor *target = mode == PT_BINARY_INPLACE ? (pt_tensor *)a
                        : mode == PT_BINARY_OUT   ? out_arg
                                                  : NULL;
    pt_iter_init(it, name, flags | (mode == PT_BINARY_INPLACE ? PT_ITER_INPLACE : 0));
    it->common = common;
    it->out_dtype = out_dtype;
    pt_iter_add_output(it, target, mode == PT_BINARY_OUT ? "out" : "self");
    pt_iter_add_input(it, a, "self");
    if (b) pt_iter_add_input(it, b, "other");
    return pt_iter_build(it);
}

pt_status pt_binary_result_type(const pt_tensor *a, const pt_tensor *b, int32_t *out)
{
    pt_tensor *pair[2] = {(pt_tensor *)a, (pt_tensor *)b};
    return pt_result_type(2, pair, out);
}

pt_status pt_binary_unsupported(const char *kernel, int32_t dtype)
{
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                    pt_iter_type_name(dtype));
}

/* ---------------------------------------------------------------- the fast path */

static bool contiguous(const pt_tensor *t)
{
    if (t->numel <= 1) return true;
    int64_t expected = 1;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d];
    }
    return true;
}

/* contiguous() with the row-major strides on size-1 dims too: the layout that iteration_order
 * leaves in row-major order, so that the output torch gives is contiguous. */
static bool canonical(const pt_tensor *t)
{
    int64_t expected = 1;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d] > 1 ? t->sizes[d] : 1;
    }
    return true;
}

static int category(int32_t dtype)
{
    return dtype == PT_BOOL ? 0 : pt_is_floating(dtype) ? 2 : pt_is_complex(dtype) ? 3 : 1;
}

static bool loop_aligned(const pt_tensor *t)
{
    int64_t align = pt_dtype_itemsize(t->dtype) > 8 ? 8 : pt_dtype_itemsize(t->dtype);
    return (uintptr_t)pt_tensor_data(t) % (uintptr_t)align == 0;
}

/* Note [binary fast paths]
 * Two shapes of call skip the general path, because they are what `a + b`, `a < b` and `a + 1`
 * on small tensors look like and per-call overhead dominates there; in both the iterator's rules
 * give `a`'s dtype as the common dtype and a contiguous output of `a`'s shape, so none of them
 * needs to run:
 *   FAST_SAME: a and b of one dtype and shape, both contiguous (torch's "fast setup"); two
 *     wrapped numbers are excluded, as they would promote to the default dtype;
 *   FAST_SCALAR: b is 0-d and of a category no higher than a's, where a is dimensioned (or a
 *     plain 0-d tensor and b a wrapped number), and a has row-major strides: b is cast to a's
 *     dtype once and read with stride 0.
 * Both need a compute dtype the loops read directly (not float16/bfloat16), CPU tensors, an
 * aligned `a`, and fewer elements than a thread split would take. The front adds what only it
 * knows (alpha 1 for add, a loop for a's dtype, an output dtype that the common dtype decides). */
int pt_binary_fast_kind(const pt_tensor *a, const pt_tensor *b)
{
    int32_t dt = a->dtype;
    if (dt >= PT_DTYPE_BUILTIN_COUNT || dt == PT_FLOAT16 || dt == PT_BFLOAT16)
        return PT_BINARY_FAST_NONE;
    if (a->device.type != PT_DEV_CPU || b->device.type != PT_DEV_CPU) return PT_BINARY_FAST_NONE;
    if (a->numel >= 2 * PT_GRAIN || !contiguous(a) || !loop_aligned(a))
        return PT_BINARY_FAST_NONE;
    if (b->dtype == dt && same_sizes(a, b)) {
        if (a->wrapped_number && b->wrapped_number) return PT_BINARY_FAST_NONE;
        return contiguous(b) && loop_aligned(b) ? PT_BINARY_FAST_SAME : PT_BINARY_FAST_NONE;
    }
    if (b->ndim != 0 || b->dtype >= PT_DTYPE_BUILTIN_COUNT) return PT_BINARY_FAST_NONE;
    if (a->ndim == 0 && (a->wrapped_number || !b->wrapped_number)) return PT_BINARY_FAST_NONE;
    if (category(b->dtype) > category(dt) || !canonical(a)) return PT_BINARY_FAST_NONE;
    return PT_BINARY_FAST_SCALAR;
}

pt_status pt_binary_fast_run(int kind, const pt_tensor *a, const pt_tensor *b, int32_t out_dtype,
                             pt_loop_fn loop, void *ctx, pt_tensor **out)
{
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(a->ndim, a->sizes, out_dtype, a->device, &r));
    if (r->numel > 0) {
        int64_t sz = pt_dtype_itemsize(a->dtype);
        int64_t strides[3] = {pt_dtype_itemsize(out_dtype), sz,
                              kind == PT_BINARY_FAST_SAME ? sz : 0};
        pt_binary_value scalar;
        char *data[3] = {pt_tensor_data(r), pt_tensor_data(a), pt_tensor_data(b)};
        if (kind == PT_BINARY_FAST_SCALAR) {
            pt_dtype_cast_fn(b->dtype, a->dtype)((char *)scalar.bytes, 0, data[2], 0, 1);
            data[2] = (char *)scalar.bytes;
        }
        loop(data, strides, r->numel, ctx);
    }
    *out = r;
    return PT_OK;
}

static int fast_kind(const call *c)
{
    if (c->op == PT_BINARY_SUB && (c->a->dtype == PT_BOOL || c->b->dtype == PT_BOOL))
        return PT_BINARY_FAST_NONE;
    if (c->alpha && !(c->alpha->kind == PT_SCALAR_INT && c->alpha->i == 1))
        return PT_BINARY_FAST_NONE;
    return pt_binary_fast_kind(c->a, c->b);
}

static pt_status binary_fast(const call *c, int kind, pt_tensor **out)
{
    pt_binary_value unused = {0};
    return pt_binary_fast_run(kind, c->a, c->b, c->a->dtype, binary_loop(c->op, c->a->dtype),
                              &unused, out);
}

/* ---------------------------------------------------------------- entry points */

static pt_status binary(int32_t op, int mode, const pt_tensor *a, const pt_tensor *b,
                        pt_tensor *target, const pt_scalar *alpha, pt_tensor **out)
{
    const char *name = op_names[op];
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", name);
    PT_TRY(pt_iter_check_operand(a, name, "self"));
    PT_TRY(pt_iter_check_operand(b, name, "other"));
    if (mode == OUT) PT_TRY(pt_iter_check_operand(target, name, "out"));
    call c = {op, mode, a, b, alpha, target};
    int kind = mode == FUNCTIONAL ? fast_kind(&c) : PT_BINARY_FAST_NONE;
    return kind != PT_BINARY_FAST_NONE ? binary_fast(&c, kind, out) : binary_general(&c, out);
}

pt_status pt_kernel_add(const pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                        pt_tensor **out)
{
    return binary(PT_BINARY_ADD, FUNCTIONAL, self, other, NULL, alpha, out);
}

pt_status pt_kernel_add_(pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha, pt_tensor **out)
{
    return binary(PT_BINARY_ADD, INPLACE, self, other, self, alpha, out);
}

pt_status pt_kernel_add_out(const pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                            pt_tensor *out_arg, pt_tensor **out)
{
    return binary(PT_BINARY_ADD, OUT, self, other, out_arg, alpha, out);
}

pt_status pt_kernel_sub(const pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                        pt_tensor **out)
{
    return binary(PT_BINARY_SUB, FUNCTIONAL, self, other, NULL, alpha, out);
}

pt_status pt_kernel_sub_(pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha, pt_tensor **out)
{
    return binary(PT_BINARY_SUB, INPLACE, self, other, self, alpha, out);
}

pt_status pt_kernel_sub_out(const pt_tensor *self, const pt_tensor *other, const pt_scalar *alpha,
                            pt_tensor *out_arg, pt_tensor **out)
{
    return binary(PT_BINARY_SUB, OUT, self, other, out_arg, alpha, out);
}

pt_status pt_kernel_mul(const pt_tensor *self, const pt_tensor *other, pt_tensor **out)
{
    return binary(PT_BINARY_MUL, FUNCTIONAL, self, other, NULL, NULL, out);
}

pt_status pt_kernel_mul_(pt_tensor *self, const pt_tensor *other, pt_tensor **out)
{
    return binary(PT_BINARY_MUL, INPLACE, self, other, self, NULL, out);
}

pt_status pt_kernel_mul_out(const pt_tensor *self, const pt_tensor *other,
                            pt_tensor *out_arg, pt_tensor **out)
{
    return binary(PT_BINARY_MUL, OUT, self, other, out_arg, NULL, out);
}
