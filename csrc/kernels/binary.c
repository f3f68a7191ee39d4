/* binary.c - add, sub and mul (functional, in-place and out=) as torch computes them: the part of
 * TensorIterator that decides what a binary operation means before any element is touched.
 *
 * A call goes through the checks in torch's order - sub on bool, overlap between the written-to
 * tensor and the inputs, broadcasting, devices, the result dtype and whether the output can hold
 * it, the output's shape, alpha - and then lays out the work: the broadcast shape, each operand's
 * strides over it (0 where it is broadcast), an iteration order that walks the operands' memory
 * in order (TensorIterator's reorder_dimensions), and for a new output the strides torch would
 * give it (the inputs' layout when they share one, else their dimension order made dense). Meta
 * tensors stop there. The elements are computed by binary_loops.c from a plan.
 *
 * The result dtype is torch.result_type (Note [wrapped numbers] in pytensor.h): per operand the
 * dtype promotes within one of three ranks - dimensioned tensors, 0-d tensors, wrapped Python
 * numbers - and a lower rank only counts where it brings a higher category.
 *
 * Deviations from torch, each deliberate: torch's complex32 results (float16 with complex) are
 * complex64 here, as pytensor has no complex32; an out= tensor of the wrong shape is resized only
 * when it holds no elements (torch resizes any, with a deprecation warning); an input that
 * overlaps the output in a way torch calls "too hard" to judge (neither dense) is copied first
 * instead of racing; meta tensors get the same checks as the CPU. Rounding follows torch's
 * vectorized loops (see binary_loops.c), which its short scalar tails do not always match.
 *
 * Small calls of two common shapes skip all of it (Note [binary fast paths]): `a + b` and `a + 1`
 * on tiny tensors are dominated by per-call overhead, which the fast paths keep to one output
 * allocation and one loop call.
 */
#include <string.h>

#include "binary.h"
#include "kernels.h"

enum { FUNCTIONAL = 0, INPLACE = 1, OUT = 2 };
enum { SHAPE_CHARS = 256 };

/* ---------------------------------------------------------------- dtypes */

static bool is_complex(int32_t id) { return id == PT_COMPLEX64 || id == PT_COMPLEX128; }
static bool is_floating(int32_t id)
{
    return id == PT_FLOAT16 || id == PT_BFLOAT16 || id == PT_FLOAT32 || id == PT_FLOAT64;
}

/* torch's names in messages: "Float", "Long". */
static const char *type_name(int32_t id) { return pt_dtype_info_of(id)->legacy_name; }

/* The complex dtype of a floating one's precision. torch gives complex32 for float16, which
 * pytensor does not have: complex64 is the nearest that holds it, as for the default complex. */
static int32_t to_complex(int32_t id) { return id == PT_FLOAT64 ? PT_COMPLEX128 : PT_COMPLEX64; }

/* promote_types where -1 means "no operand yet". */
static int32_t promote(int32_t a, int32_t b)
{
    if (a < 0) return b;
    if (b < 0) return a;
    int32_t out = a;
    pt_dtype_promote(a, b, &out); /* builtin ids only here: cannot fail */
    return out;
}

/* torch's combine_categories: `lower` only counts where its category is above `higher`'s. */
static int32_t combine(int32_t higher, int32_t lower)
{
    if (higher >= 0 && is_complex(higher)) return higher;
    if (lower >= 0 && is_complex(lower)) {
        if (higher >= 0 && is_floating(higher)) return to_complex(higher);
        return lower;
    }
    if (higher >= 0 && is_floating(higher)) return higher;
    if (higher == PT_BOOL || (lower >= 0 && is_floating(lower))) return promote(higher, lower);
    return higher >= 0 ? higher : lower;
}

pt_status pt_result_type(int32_t n, pt_tensor *const *tensors, int32_t *out)
{
    int32_t dim = -1, zero = -1, wrapped = -1;
    for (int32_t i = 0; i < n; i++) {
        const pt_tensor *t = tensors[i];
        const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
        if (!info || (info->kind & PT_KIND_OPAQUE))
            return PT_ERROR(PT_ERR_TYPE, "result_type: the dtype '%s' of tensor %d has no "
                            "arithmetic", info ? info->name : "unknown", (int)i);
        int32_t cur = t->dtype;
        bool is_wrapped = t->wrapped_number && t->ndim == 0;
        if (is_wrapped && is_complex(cur)) cur = to_complex(pt_dtype_default());
        else if (is_wrapped && is_floating(cur)) cur = pt_dtype_default();
        int32_t *rank = t->ndim > 0 ? &dim : is_wrapped ? &wrapped : &zero;
        *rank = promote(*rank, cur);
    }
    if (n <= 0) return PT_ERROR(PT_ERR_VALUE, "result_type: expected at least one tensor");
    *out = combine(dim, combine(zero, wrapped));
    return PT_OK;
}

/* ---------------------------------------------------------------- argument checks */

static const char *const op_names[PT_BINARY_OP_COUNT] = {"add", "sub", "add", "mul"};

static pt_status check_operand(const pt_tensor *t, const char *op, const char *arg)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor, got NULL", op, arg);
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: %s must be a strided tensor", op, arg);
    const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
    if (!info || (info->kind & PT_KIND_OPAQUE))
        return PT_ERROR(PT_ERR_TYPE, "\"%s\" not implemented for '%s' (argument '%s')", op,
                        info ? info->name : "unknown", arg);
    if (t->device.type == PT_DEV_CUDA)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED,
                        "%s: %s is a CUDA tensor; this kernel computes on the CPU and meta "
                        "devices only", op, arg);
    return PT_OK;
}

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
    if (!is_floating(common) && !is_complex(common) && alpha->kind != PT_SCALAR_BOOL &&
        alpha->kind != PT_SCALAR_INT)
        return PT_ERROR(PT_ERR_RUNTIME, "For integral input tensors, argument alpha must not be "
                        "a floating point number.");
    if (!is_complex(common) && alpha->kind == PT_SCALAR_COMPLEX)
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

/* Devices: everything on the CPU, or on meta where CPU 0-d tensors may join as scalars (as they
 * may join CUDA tensors in torch). */
static pt_status common_device(const pt_tensor *a, const pt_tensor *b, const pt_tensor *target,
                               int32_t *out)
{
    bool meta = a->device.type == PT_DEV_META || b->device.type == PT_DEV_META ||
                (target && target->device.type == PT_DEV_META);
    *out = meta ? PT_DEV_META : PT_DEV_CPU;
    if (!meta) return PT_OK;
    const pt_tensor *inputs[2] = {a, b};
    for (int i = 0; i < 2; i++)
        if (inputs[i]->device.type != PT_DEV_META && inputs[i] != target && inputs[i]->ndim > 0)
            return PT_ERROR(PT_ERR_RUNTIME, "Tensor on device cpu is not on the expected device "
                            "meta!");
    if (target && target->device.type != PT_DEV_META)
        return PT_ERROR(PT_ERR_RUNTIME, "Attempting to copy from device meta to device cpu, but "
                        "cross-device copies are not allowed!");
    return PT_OK;
}

/* ---------------------------------------------------------------- memory overlap */

/* torch's is_non_overlapping_and_dense: some order of the dims is contiguous. */
static bool is_dense(const pt_tensor *t)
{
    int32_t perm[PT_MAX_DIMS], n = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 0) return true;
        if (t->sizes[d] > 1) perm[n++] = d;
    }
    for (int32_t i = 1; i < n; i++) /* insertion sort by stride; n <= 64 */
        for (int32_t j = i; j > 0 && t->strides[perm[j]] < t->strides[perm[j - 1]]; j--) {
            int32_t tmp = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = tmp;
        }
    int64_t expected = 1;
    for (int32_t i = 0; i < n; i++) {
        if (t->strides[perm[i]] != expected) return false;
        expected *= t->sizes[perm[i]];
    }
    return true;
}

static bool same_view(const pt_tensor *x, const pt_tensor *y)
{
    return x->storage == y->storage && x->offset == y->offset && x->ndim == y->ndim &&
           pt_dtype_itemsize(x->dtype) == pt_dtype_itemsize(y->dtype) &&
           (x->ndim == 0 || (memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->ndim) == 0 &&
                             memcmp(x->strides, y->strides, sizeof(int64_t) * (size_t)x->ndim) == 0));
}

/* The bytes [lo, hi) that t's elements occupy, as addresses; meta tensors count from 0 in their
 * own storage. */
static void byte_extent(const pt_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    int64_t isz = pt_dtype_itemsize(t->dtype), low = 0, high = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        int64_t span = (t->sizes[d] - 1) * t->strides[d];
        if (span < 0) low += span; else high += span;
    }
    uintptr_t base = (uintptr_t)t->storage->data + (uintptr_t)(t->offset * isz);
    *lo = base + (uintptr_t)(low * isz);
    *hi = base + (uintptr_t)((high + 1) * isz);
}

/* Whether x and y can share bytes at all: one storage, or two of real memory (external buffers
 * may alias one another). */
static bool may_share(const pt_tensor *x, const pt_tensor *y)
{
    if (x->numel == 0 || y->numel == 0) return false;
    return x->storage == y->storage || (x->storage->data && y->storage->data);
}

enum { OVERLAP_NO, OVERLAP_FULL, OVERLAP_PARTIAL, OVERLAP_TOO_HARD };

/* torch's get_overlap_status, except that "too hard" is only answered where the extents meet. */
static int overlap_status(const pt_tensor *x, const pt_tensor *y)
{
    if (x == y || (x->numel > 0 && same_view(x, y))) return OVERLAP_FULL;
    if (!may_share(x, y)) return OVERLAP_NO;
    uintptr_t x0, x1, y0, y1;
    byte_extent(x, &x0, &x1);
    byte_extent(y, &y0, &y1);
    if (!(x0 < y1 && y0 < x1)) return OVERLAP_NO;
    return is_dense(x) && is_dense(y) ? OVERLAP_PARTIAL : OVERLAP_TOO_HARD;
}

/* torch's assert_no_internal_overlap and assert_no_partial_overlap for the written-to tensor. */
static pt_status check_overlap(const pt_tensor *target, const pt_tensor *a, const pt_tensor *b)
{
    if (target->numel > 0 && !is_dense(target))
        for (int32_t d = 0; d < target->ndim; d++)
            if (target->sizes[d] > 1 && target->strides[d] == 0)
                return PT_ERROR(PT_ERR_RUNTIME,
                                "unsupported operation: more than one element of the written-to "
                                "tensor refers to a single memory location. Please clone() the "
                                "tensor before performing the operation.");
    if (overlap_status(target, a) == OVERLAP_PARTIAL || overlap_status(target, b) == OVERLAP_PARTIAL)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "unsupported operation: some elements of the input tensor and the "
                        "written-to tensor refer to a single memory location. Please clone() the "
                        "tensor before performing the operation.");
    return PT_OK;
}

/* ---------------------------------------------------------------- shapes and layouts */

static pt_status broadcast_shape(const pt_tensor *a, const pt_tensor *b, int32_t *nd,
                                 int64_t *shape)
{
    int32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int32_t i = n - 1, da = a->ndim - 1, db = b->ndim - 1; i >= 0; i--, da--, db--) {
        int64_t sa = da >= 0 ? a->sizes[da] : 1, sb = db >= 0 ? b->sizes[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return PT_ERROR(PT_ERR_RUNTIME,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d",
                            (long long)sa, (long long)sb, (int)i);
        shape[i] = sa == 1 ? sb : sa;
    }
    *nd = n;
    return PT_OK;
}

/* t's element strides over the broadcast shape: 0 on new leading dims and where a size 1 is
 * stretched. */
static void broadcast_strides(const pt_tensor *t, int32_t nd, const int64_t *shape,
                              int64_t *strides)
{
    for (int32_t d = 0, td = t->ndim - nd; d < nd; d++, td++)
        strides[d] = td < 0 || (t->sizes[td] == 1 && shape[d] != 1) ? 0 : t->strides[td];
}

/* TensorIterator's reorder_dimensions: perm[0] is the fastest dim. Dims are ordered by the first
 * operand whose strides tell them apart (broadcast strides never do); ties go to the smaller
 * size first; otherwise the row-major order stays. */
static int should_swap(int32_t nops, const int64_t *const *strides, const int64_t *shape,
                       int32_t d0, int32_t d1)
{
    for (int32_t k = 0; k < nops; k++) {
        int64_t s0 = strides[k][d0], s1 = strides[k][d1];
        if (s0 == 0 || s1 == 0) continue;
        if (s0 < s1) return -1;
        if (s0 > s1) return 1;
        if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
}

static void iteration_order(int32_t nd, const int64_t *shape, int32_t nops,
                            const int64_t *const *strides, int32_t *perm)
{
    for (int32_t i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    for (int32_t i = 1; i < nd; i++) {
        int32_t d1 = i;
        for (int32_t d0 = i - 1; d0 >= 0; d0--) {
            int c = should_swap(nops, strides, shape, perm[d0], perm[d1]);
            if (c > 0) {
                int32_t tmp = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = tmp;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
}

static bool same_sizes(const pt_tensor *a, const pt_tensor *b)
{
    return a->ndim == b->ndim &&
           (a->ndim == 0 || memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0);
}

/* The strides torch gives a new output: its fast setup when the inputs share a shape and one
 * layout (contiguous, channels-last, or any dense one), else dense in the iteration order. */
static void output_strides(const pt_tensor *a, const pt_tensor *b, int32_t nd,
                           const int64_t *shape, const int32_t *perm, int64_t *strides)
{
    if (same_sizes(a, b)) {
        if (pt_tensor_is_contiguous(a, PT_MEMORY_FORMAT_CONTIGUOUS) &&
            pt_tensor_is_contiguous(b, PT_MEMORY_FORMAT_CONTIGUOUS)) {
            pt_contiguous_strides(nd, shape, strides);
            return;
        }
        if (pt_tensor_is_contiguous(a, PT_MEMORY_FORMAT_CHANNELS_LAST) &&
            pt_tensor_is_contiguous(b, PT_MEMORY_FORMAT_CHANNELS_LAST)) {
            static const int order[4] = {1, 3, 2, 0};
            int64_t next = 1;
            for (int i = 0; i < 4; i++) {
                strides[order[i]] = next;
                next *= shape[order[i]] > 1 ? shape[order[i]] : 1;
            }
            return;
        }
        if (is_dense(a) && is_dense(b) &&
            memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)nd) == 0) {
            memcpy(strides, a->strides, sizeof(int64_t) * (size_t)nd);
            return;
        }
    }
    bool row_major = true;
    for (int32_t j = 0; j < nd; j++) row_major &= perm[j] == nd - 1 - j;
    if (row_major) {
        pt_contiguous_strides(nd, shape, strides);
        return;
    }
    int64_t next = 1; /* as torch: a size 0 zeroes the strides of the dims above it */
    for (int32_t j = 0; j < nd; j++) {
        strides[perm[j]] = next;
        next *= shape[perm[j]];
    }
}

/* ---------------------------------------------------------------- the operation */

typedef struct call {
    int32_t op; /* PT_BINARY_ADD, _SUB or _MUL as called */
    int mode;
    pt_tensor *a, *b;
    const pt_scalar *alpha;
    pt_tensor *target; /* the written-to tensor of in-place and out= calls */
} call;

/* The written-to tensor's shape: in-place calls need the broadcast shape exactly; out= tensors
 * of the wrong shape are resized when they hold no elements (torch resizes any, with a warning
 * that says this will stop). */
static pt_status check_target_shape(const call *c, int32_t nd, const int64_t *shape, bool *resize)
{
    const pt_tensor *t = c->target;
    bool match = t->ndim == nd &&
                 (nd == 0 || memcmp(t->sizes, shape, sizeof(int64_t) * (size_t)nd) == 0);
    *resize = false;
    if (match) return PT_OK;
    char have[SHAPE_CHARS], want[SHAPE_CHARS];
    pt_format_ints(have, sizeof have, t->ndim, t->sizes);
    pt_format_ints(want, sizeof want, nd, shape);
    if (c->mode == INPLACE)
        return PT_ERROR(PT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        have, want);
    if (t->numel != 0)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s: out with shape %s doesn't match the broadcast shape %s; only an out "
                        "tensor with no elements is resized (resize_(0) it first)",
                        op_names[c->op], have, want);
    *resize = true;
    return PT_OK;
}

/* Replaces an input whose bytes the output may overwrite before it is read (an overlap torch
 * calls too hard to judge) by a contiguous copy; *owned receives the copy. */
static pt_status separate_input(const pt_tensor *target, pt_tensor **input, pt_tensor **owned)
{
    *owned = NULL;
    if (overlap_status(target, *input) != OVERLAP_TOO_HARD) return PT_OK;
    PT_TRY(pt_tensor_clone(*input, PT_MEMORY_FORMAT_CONTIGUOUS, owned));
    *input = *owned;
    return PT_OK;
}

static void fill_plan(pt_binary_plan *p, int32_t nd, const int64_t *shape, const int32_t *perm,
                      pt_tensor *const *ops, const int64_t *const *strides)
{
    p->ndim = nd;
    for (int32_t i = 0; i < nd; i++) {
        int32_t d = perm[nd - 1 - i]; /* slowest first */
        p->sizes[i] = shape[d];
        for (int k = 0; k < 3; k++)
            p->strides[k * nd + i] = strides[k][d] * pt_dtype_itemsize(ops[k]->dtype);
    }
    for (int k = 0; k < 3; k++) {
        p->data[k] = pt_tensor_data(ops[k]);
        p->dtypes[k] = ops[k]->dtype;
    }
}

static pt_status compute(const call *c, pt_binary_plan *p, pt_tensor *out, const int32_t *perm,
                         const int64_t *shape)
{
    pt_tensor *a = c->a, *b = c->b, *copies[2] = {NULL, NULL};
    pt_status st = PT_OK;
    if (c->target) {
        st = separate_input(out, &a, &copies[0]);
        if (st == PT_OK) st = separate_input(out, &b, &copies[1]);
    }
    if (st == PT_OK) {
        int64_t sa[PT_MAX_DIMS], sb[PT_MAX_DIMS];
        broadcast_strides(a, p->ndim, shape, sa);
        broadcast_strides(b, p->ndim, shape, sb);
        pt_tensor *ops[3] = {out, a, b};
        const int64_t *strides[3] = {out->strides, sa, sb};
        fill_plan(p, p->ndim, shape, perm, ops, strides);
        pt_binary_run(p);
    }
    pt_tensor_release(copies[0]);
    pt_tensor_release(copies[1]);
    return st;
}

static pt_status binary_general(const call *c, pt_tensor **out)
{
    pt_tensor *a = c->a, *b = c->b, *t = c->target;
    if (c->op == PT_BINARY_SUB) PT_TRY(sub_check(a, b));
    if (t) PT_TRY(check_overlap(t, a, b));
    pt_binary_plan p;
    int64_t shape[PT_MAX_DIMS];
    PT_TRY(broadcast_shape(a, b, &p.ndim, shape));
    bool resize = false;
    if (c->mode == INPLACE) PT_TRY(check_target_shape(c, p.ndim, shape, &resize));
    int32_t device;
    PT_TRY(common_device(a, b, t, &device));
    PT_TRY(pt_result_type(2, (pt_tensor *[]){a, b}, &p.common));
    p.opmath = pt_binary_opmath(p.common);
    p.other_direct = c->op == PT_BINARY_MUL && p.opmath != p.common;
    if (t && !pt_dtype_can_cast(p.common, t->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                        type_name(p.common), type_name(t->dtype));
    if (c->mode == OUT) PT_TRY(check_target_shape(c, p.ndim, shape, &resize));
    if (t && t->device.type == PT_DEV_CPU && !t->storage->writable)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: the output tensor's storage is read-only",
                        op_names[c->op]);
    PT_TRY(prepare_alpha(c->op, c->alpha, p.common, p.opmath, &p.op, &p.alpha));

    /* Iteration order over (target unless it is resized, a, b), as torch sorts its operands. */
    int64_t st_t[PT_MAX_DIMS], st_a[PT_MAX_DIMS], st_b[PT_MAX_DIMS];
    const int64_t *order_strides[3];
    int32_t nops = 0, perm[PT_MAX_DIMS];
    if (t && !resize) {
        broadcast_strides(t, p.ndim, shape, st_t);
        order_strides[nops++] = st_t;
    }
    broadcast_strides(a, p.ndim, shape, st_a);
    broadcast_strides(b, p.ndim, shape, st_b);
    order_strides[nops++] = st_a;
    order_strides[nops++] = st_b;
    iteration_order(p.ndim, shape, nops, order_strides, perm);

    pt_tensor *result = t;
    if (!t || resize) {
        int64_t strides[PT_MAX_DIMS];
        output_strides(a, b, p.ndim, shape, perm, strides);
        if (!t) {
            pt_device dev = {device, 0};
            PT_TRY(pt_tensor_empty_strided(p.ndim, shape, strides, p.common, dev, &result));
        } else {
            PT_TRY(pt_tensor_resize_(t, p.ndim, shape));
            PT_TRY(pt_tensor_set_(t, t->storage, t->offset, p.ndim, shape, strides));
        }
    }
    pt_shape_check(p.ndim, shape, &p.numel);
    pt_status st = PT_OK;
    if (device == PT_DEV_CPU && p.numel > 0) st = compute(c, &p, result, perm, shape);
    if (st != PT_OK) {
        if (!t) pt_tensor_release(result);
        return st;
    }
    if (t) pt_tensor_retain(t);
    *out = result;
    return PT_OK;
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
    return dtype == PT_BOOL ? 0 : is_floating(dtype) ? 2 : is_complex(dtype) ? 3 : 1;
}

static bool loop_aligned(const pt_tensor *t)
{
    int64_t align = pt_dtype_itemsize(t->dtype) > 8 ? 8 : pt_dtype_itemsize(t->dtype);
    return (uintptr_t)pt_tensor_data(t) % (uintptr_t)align == 0;
}

enum { FAST_NONE, FAST_SAME, FAST_SCALAR };

/* Note [binary fast paths]
 * Two shapes of call skip the general path, because they are what `a + b` and `a + 1` on small
 * tensors look like and per-call overhead dominates there; in both the rules above give `a`'s
 * dtype and a contiguous output of `a`'s shape, so none of them needs to run:
 *   FAST_SAME: a and b of one dtype and shape, both contiguous (torch's "fast setup"); two
 *     wrapped numbers are excluded, as they would promote to the default dtype;
 *   FAST_SCALAR: b is 0-d and of a category no higher than a's, where a is dimensioned (or a
 *     plain 0-d tensor and b a wrapped number), and a has row-major strides: b is cast to a's
 *     dtype once and read with stride 0.
 * Both need a compute dtype the loops read directly (not float16/bfloat16), alpha 1, CPU tensors,
 * an aligned `a`, and fewer elements than a thread split would take. */
static int fast_kind(const call *c)
{
    const pt_tensor *a = c->a, *b = c->b;
    int32_t dt = a->dtype;
    if (dt >= PT_DTYPE_BUILTIN_COUNT || dt == PT_FLOAT16 || dt == PT_BFLOAT16) return FAST_NONE;
    if (c->op == PT_BINARY_SUB && (dt == PT_BOOL || b->dtype == PT_BOOL)) return FAST_NONE;
    if (a->device.type != PT_DEV_CPU || b->device.type != PT_DEV_CPU) return FAST_NONE;
    if (c->alpha && !(c->alpha->kind == PT_SCALAR_INT && c->alpha->i == 1)) return FAST_NONE;
    if (a->numel >= 2 * PT_BINARY_GRAIN || !contiguous(a) || !loop_aligned(a)) return FAST_NONE;
    if (b->dtype == dt && same_sizes(a, b)) {
        if (a->wrapped_number && b->wrapped_number) return FAST_NONE;
        return contiguous(b) && loop_aligned(b) ? FAST_SAME : FAST_NONE;
    }
    if (b->ndim != 0 || b->dtype >= PT_DTYPE_BUILTIN_COUNT) return FAST_NONE;
    if (a->ndim == 0 && (a->wrapped_number || !b->wrapped_number)) return FAST_NONE;
    if (category(b->dtype) > category(dt) || !canonical(a)) return FAST_NONE;
    return FAST_SCALAR;
}

static pt_status binary_fast(const call *c, int kind, pt_tensor **out)
{
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(c->a->ndim, c->a->sizes, c->a->dtype, c->a->device, &r));
    if (r->numel > 0) {
        int64_t sz = pt_dtype_itemsize(r->dtype);
        int64_t strides[3] = {sz, sz, kind == FAST_SAME ? sz : 0};
        pt_binary_value unused = {0}, scalar;
        char *data[3] = {pt_tensor_data(r), pt_tensor_data(c->a), pt_tensor_data(c->b)};
        if (kind == FAST_SCALAR) {
            pt_dtype_cast_fn(c->b->dtype, r->dtype)((char *)scalar.bytes, 0, data[2], 0, 1);
            data[2] = (char *)scalar.bytes;
        }
        pt_binary_loop(c->op, r->dtype)(data, strides, r->numel, &unused);
    }
    *out = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- entry points */

static pt_status binary(int32_t op, int mode, pt_tensor *a, pt_tensor *b, const pt_scalar *alpha,
                        pt_tensor *out_arg, pt_tensor **out)
{
    const char *name = op_names[op];
    if (!out) return PT_ERROR(PT_ERR_VALUE, "%s: out must not be NULL", name);
    PT_TRY(check_operand(a, name, "self"));
    PT_TRY(check_operand(b, name, "other"));
    if (mode == OUT) PT_TRY(check_operand(out_arg, name, "out"));
    call c = {op, mode, a, b, alpha, mode == INPLACE ? a : mode == OUT ? out_arg : NULL};
    int kind = mode == FUNCTIONAL ? fast_kind(&c) : FAST_NONE;
    return kind != FAST_NONE ? binary_fast(&c, kind, out) : binary_general(&c, out);
}

pt_status pt_kernel_add(pt_tensor *self, pt_tensor *other, const pt_scalar *alpha, pt_tensor **out)
{
    return binary(PT_BINARY_ADD, FUNCTIONAL, self, other, alpha, NULL, out);
}

pt_status pt_kernel_add_(pt_tensor *self, pt_tensor *other, const pt_scalar *alpha, pt_tensor **out)
{
    return binary(PT_BINARY_ADD, INPLACE, self, other, alpha, NULL, out);
}

pt_status pt_kernel_add_out(pt_tensor *self, pt_tensor *other, const pt_scalar *alpha,
                            pt_tensor *out_arg, pt_tensor **out)
{
    return binary(PT_BINARY_ADD, OUT, self, other, alpha, out_arg, out);
}

pt_status pt_kernel_sub(pt_tensor *self, pt_tensor *other, const pt_scalar *alpha, pt_tensor **out)
{
    return binary(PT_BINARY_SUB, FUNCTIONAL, self, other, alpha, NULL, out);
}

pt_status pt_kernel_sub_(pt_tensor *self, pt_tensor *other, const pt_scalar *alpha, pt_tensor **out)
{
    return binary(PT_BINARY_SUB, INPLACE, self, other, alpha, NULL, out);
}

pt_status pt_kernel_sub_out(pt_tensor *self, pt_tensor *other, const pt_scalar *alpha,
                            pt_tensor *out_arg, pt_tensor **out)
{
    return binary(PT_BINARY_SUB, OUT, self, other, alpha, out_arg, out);
}

pt_status pt_kernel_mul(pt_tensor *self, pt_tensor *other, pt_tensor **out)
{
    return binary(PT_BINARY_MUL, FUNCTIONAL, self, other, NULL, NULL, out);
}

pt_status pt_kernel_mul_(pt_tensor *self, pt_tensor *other, pt_tensor **out)
{
    return binary(PT_BINARY_MUL, INPLACE, self, other, NULL, NULL, out);
}

pt_status pt_kernel_mul_out(pt_tensor *self, pt_tensor *other, pt_tensor *out_arg, pt_tensor **out)
{
    return binary(PT_BINARY_MUL, OUT, self, other, NULL, out_arg, out);
}
