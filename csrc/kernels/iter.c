/* iter.c - the elementwise iterator's set-up: what an elementwise operation means before any
 * element is touched (TensorIterator's build), for any number of inputs and outputs.
 *
 * pt_iter_build goes through torch's checks in torch's order - the operands, overlap between each
 * written-to tensor and the inputs, broadcasting, devices, the common dtype and whether each given
 * output can hold it, the outputs' shapes - and then lays out the work: the broadcast shape, each
 * operand's strides over it (0 where it is broadcast), an iteration order that walks the operands'
 * memory in order (TensorIterator's reorder_dimensions), and for new outputs the strides torch
 * gives them (the inputs' layout when they share one, else their dimension order made dense).
 * Meta tensors stop there. pt_iter_run (iter_run.c) computes the elements.
 *
 * The common dtype is torch.result_type (Note [wrapped numbers] in pytensor.h): per operand the
 * dtype promotes within one of three ranks - dimensioned tensors, 0-d tensors, wrapped Python
 * numbers - and a lower rank only counts where it brings a higher category.
 *
 * Deviations from torch, each deliberate: torch's complex32 results (float16 with complex) are
 * complex64 here, as pytensor has no complex32; an out= tensor of the wrong shape is resized only
 * when it holds no elements (torch resizes any, with a deprecation warning); an input that
 * overlaps an output in a way torch calls "too hard" to judge (neither dense) is copied first
 * instead of racing; meta tensors get the same checks as the CPU.
 */
#include <string.h>

#include "iter.h"
#include "kernels.h"

enum { SHAPE_CHARS = 256 };

/* ---------------------------------------------------------------- dtypes */

const char *pt_iter_type_name(int32_t id)
{
    const pt_dtype_info *info = pt_dtype_info_of(id);
    return info ? info->legacy_name : "unknown";
}

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
    if (higher >= 0 && pt_is_complex(higher)) return higher;
    if (lower >= 0 && pt_is_complex(lower)) {
        if (higher >= 0 && pt_is_floating(higher)) return to_complex(higher);
        return lower;
    }
    if (higher >= 0 && pt_is_floating(higher)) return higher;
    if (higher == PT_BOOL || (lower >= 0 && pt_is_floating(lower))) return promote(higher, lower);
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
        if (is_wrapped && pt_is_complex(cur)) cur = to_complex(pt_dtype_default());
        else if (is_wrapped && pt_is_floating(cur)) cur = pt_dtype_default();
        int32_t *rank = t->ndim > 0 ? &dim : is_wrapped ? &wrapped : &zero;
        *rank = promote(*rank, cur);
    }
    if (n <= 0) return PT_ERROR(PT_ERR_VALUE, "result_type: expected at least one tensor");
    *out = combine(dim, combine(zero, wrapped));
    return PT_OK;
}

/* ---------------------------------------------------------------- argument checks */

pt_status pt_iter_check_operand(const pt_tensor *t, const char *op, const char *arg)
{
    if (!t) return PT_ERROR(PT_ERR_VALUE, "%s: %s must be a tensor, got NULL", op, arg);
    if (t->layout != PT_LAYOUT_STRIDED)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "%s: %s must be a strided tensor", op, arg);
    const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
    if (!info || (info->kind & PT_KIND_OPAQUE) || t->dtype >= PT_DTYPE_BUILTIN_COUNT)
        return PT_ERROR(PT_ERR_TYPE, "\"%s\" not implemented for '%s' (argument '%s')", op,
                        info ? info->name : "unknown", arg);
    if (t->device.type == PT_DEV_CUDA)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED,
                        "%s: %s is a CUDA tensor; this kernel computes on the CPU and meta "
                        "devices only", op, arg);
    return PT_OK;
}

/* ---------------------------------------------------------------- memory overlap */

static bool is_dense(const pt_tensor *t)
{
    return pt_strides_non_overlapping_and_dense(t->ndim, t->sizes, t->strides);
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

/* torch's words when the written-to tensor shares memory with an input. */
static pt_status input_overlap_error(void)
{
    return PT_ERROR(PT_ERR_RUNTIME,
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation.");
}

/* torch's assert_no_internal_overlap and assert_no_partial_overlap for the written-to tensor. */
pt_status pt_iter_check_write(const pt_tensor *target, const pt_tensor *input)
{
    if (target->numel > 0 && !is_dense(target))
        for (int32_t d = 0; d < target->ndim; d++)
            if (target->sizes[d] > 1 && target->strides[d] == 0)
                return PT_ERROR(PT_ERR_RUNTIME,
                                "unsupported operation: more than one element of the written-to "
                                "tensor refers to a single memory location. Please clone() the "
                                "tensor before performing the operation.");
    if (input && overlap_status(target, input) == OVERLAP_PARTIAL)
        return input_overlap_error();
    return PT_OK;
}

pt_status pt_iter_check_no_overlap(const pt_tensor *target, const pt_tensor *input)
{
    int st = overlap_status(target, input);
    if (st == OVERLAP_PARTIAL || st == OVERLAP_FULL)
        return input_overlap_error();
    return PT_OK;
}

/* ---------------------------------------------------------------- shapes and layouts */

static pt_status broadcast_shape(const pt_iter *it, int32_t *nd, int64_t *shape)
{
    int32_t n = 0;
    for (int32_t k = it->noutputs; k < it->noutputs + it->ninputs; k++)
        if (it->ops[k]->ndim > n) n = it->ops[k]->ndim;
    for (int32_t i = 0; i < n; i++) shape[i] = 1;
    for (int32_t k = it->noutputs; k < it->noutputs + it->ninputs; k++) {
        const pt_tensor *t = it->ops[k];
        for (int32_t i = n - 1, d = t->ndim - 1; d >= 0; i--, d--) {
            int64_t s = t->sizes[d];
            if (s == shape[i] || s == 1) continue;
            if (shape[i] == 1) {
                shape[i] = s;
                continue;
            }
            /* torch names the first operand that disagrees "a" and the current one "b". */
            char sa[SHAPE_CHARS], sb[SHAPE_CHARS];
            pt_format_ints(sb, sizeof sb, t->ndim, t->sizes);
            pt_format_ints(sa, sizeof sa, n, shape);
            return PT_ERROR(PT_ERR_RUNTIME,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d (%s: shapes %s and %s of '%s' cannot be "
                            "broadcast together)",
                            (long long)shape[i], (long long)s, (int)i, it->name, sa, sb,
                            it->arg_names[k]);
        }
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
static int should_swap(int32_t nops, int64_t (*strides)[PT_MAX_DIMS], const int64_t *shape,
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
                            int64_t (*strides)[PT_MAX_DIMS], int32_t *perm)
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

static bool same_sizes(const pt_tensor *a, int32_t nd, const int64_t *shape)
{
    return a->ndim == nd && (nd == 0 || memcmp(a->sizes, shape, sizeof(int64_t) * (size_t)nd) == 0);
}

/* The strides torch gives a new output: its fast setup when the inputs all have the broadcast
 * shape and one layout (contiguous, channels-last, or any dense one), else dense in the
 * iteration order. */
static void output_strides(const pt_iter *it, int32_t nd, const int64_t *shape,
                           const int32_t *perm, int64_t *strides)
{
    const int32_t first = it->noutputs, end = it->noutputs + it->ninputs;
    bool fast = true;
    for (int32_t k = first; k < end && fast; k++) fast = same_sizes(it->ops[k], nd, shape);
    if (fast) {
        bool contig = true, cl = nd == 4, dense = true;
        for (int32_t k = first; k < end; k++) {
            const pt_tensor *t = it->ops[k];
            contig &= pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS) != 0;
            cl &= pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CHANNELS_LAST) != 0;
            dense &= is_dense(t) && memcmp(t->strides, it->ops[first]->strides,
                                           sizeof(int64_t) * (size_t)nd) == 0;
        }
        if (contig) {
            pt_contiguous_strides(nd, shape, strides);
            return;
        }
        if (cl) {
            static const int order[4] = {1, 3, 2, 0};
            int64_t next = 1;
            for (int i = 0; i < 4; i++) {
                strides[order[i]] = next;
                next *= shape[order[i]] > 1 ? shape[order[i]] : 1;
            }
            return;
        }
        if (dense) {
            memcpy(strides, it->ops[first]->strides, sizeof(int64_t) * (size_t)nd);
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

/* ---------------------------------------------------------------- building */

void pt_iter_init(pt_iter *it, const char *name, int32_t flags)
{
    memset(it, 0, offsetof(pt_iter, plan_sizes)); /* the plan is written whole by build */
    it->name = name;
    it->flags = flags;
    it->common = -1;
    it->out_dtype = -1;
}

void pt_iter_add_output(pt_iter *it, pt_tensor *t, const char *arg)
{
    if (it->ninputs > 0 || it->noutputs + it->ninputs >= PT_ITER_MAX_OPERANDS) {
        it->flags |= 1 << 30; /* misuse: build refuses */
        return;
    }
    it->arg_names[it->noutputs] = arg;
    it->ops[it->noutputs++] = t;
}

void pt_iter_add_input(pt_iter *it, const pt_tensor *t, const char *arg)
{
    if (it->noutputs + it->ninputs >= PT_ITER_MAX_OPERANDS) {
        it->flags |= 1 << 30;
        return;
    }
    int32_t k = it->noutputs + it->ninputs++;
    it->arg_names[k] = arg;
    it->ops[k] = (pt_tensor *)t; /* inputs are only read */
}

static pt_status check_devices(pt_iter *it)
{
    const int32_t n = it->noutputs + it->ninputs;
    bool meta = false;
    for (int32_t k = 0; k < n; k++)
        meta |= it->ops[k] && it->ops[k]->device.type == PT_DEV_META;
    it->device_type = meta ? PT_DEV_META : PT_DEV_CPU;
    if (!meta) return PT_OK;
    /* On meta, CPU 0-d inputs may join as scalars (as they may join CUDA tensors in torch). */
    for (int32_t k = it->noutputs; k < n; k++) {
        const pt_tensor *t = it->ops[k];
        if (t->device.type != PT_DEV_META && t->ndim > 0)
            return PT_ERROR(PT_ERR_RUNTIME, "Tensor on device cpu is not on the expected device "
                            "meta!");
    }
    for (int32_t k = 0; k < it->noutputs; k++)
        if (it->ops[k] && it->ops[k]->device.type != PT_DEV_META)
            return PT_ERROR(PT_ERR_RUNTIME, "Attempting to copy from device meta to device cpu, "
                            "but cross-device copies are not allowed!");
    return PT_OK;
}

static pt_status compute_dtypes(pt_iter *it)
{
    const int32_t n_in = it->ninputs;
    pt_tensor *const *inputs = it->ops + it->noutputs;
    if (it->flags & PT_ITER_SAME_INPUT_DTYPES)
        for (int32_t k = 1; k < n_in; k++)
            if (inputs[k]->dtype != inputs[0]->dtype)
                return PT_ERROR(PT_ERR_RUNTIME,
                                "%s: expected %s and %s to have the same dtype, but got: %s != %s",
                                it->name, it->arg_names[it->noutputs],
                                it->arg_names[it->noutputs + k],
                                pt_dtype_info_of(inputs[0]->dtype)->name,
                                pt_dtype_info_of(inputs[k]->dtype)->name);
    if (it->flags & PT_ITER_PROMOTE) PT_TRY(pt_result_type(n_in, inputs, &it->common));
    if (it->common < 0 || it->common >= PT_DTYPE_BUILTIN_COUNT)
        return PT_ERROR(PT_ERR_VALUE, "%s: no common dtype was given", it->name);
    if ((it->flags & PT_ITER_INT_TO_FLOAT) && pt_is_integral(it->common, true))
        it->common = pt_dtype_default();
    const int32_t logical = it->out_dtype >= 0 ? it->out_dtype : it->common;
    for (int32_t k = 0; k < it->noutputs; k++) {
        const pt_tensor *t = it->ops[k];
        if (t && !(it->flags & PT_ITER_ANY_OUTPUT_DTYPE) && !pt_dtype_can_cast(logical, t->dtype))
            return PT_ERROR(PT_ERR_RUNTIME,
                            "result type %s can't be cast to the desired output type %s",
                            pt_iter_type_name(logical), pt_iter_type_name(t->dtype));
        it->loop_dtype[k] = pt_opmath_dtype(logical);
        it->mid_dtype[k] = logical;
    }
    for (int32_t k = it->noutputs; k < it->noutputs + n_in; k++) {
        it->loop_dtype[k] = pt_opmath_dtype(it->common);
        it->mid_dtype[k] = it->common;
    }
    return PT_OK;
}

/* A given output's shape: in-place calls need the broadcast shape exactly; out= tensors of the
 * wrong shape are resized when they hold no elements (torch resizes any, with a warning that says
 * this will stop). */
static pt_status check_output_shape(const pt_iter *it, int32_t k, bool *resize)
{
    const pt_tensor *t = it->ops[k];
    *resize = false;
    if (same_sizes(t, it->ndim, it->shape)) return PT_OK;
    char have[SHAPE_CHARS], want[SHAPE_CHARS];
    pt_format_ints(have, sizeof have, t->ndim, t->sizes);
    pt_format_ints(want, sizeof want, it->ndim, it->shape);
    if ((it->flags & PT_ITER_INPLACE) && k == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        have, want);
    if (t->numel != 0)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "%s: %s with shape %s doesn't match the broadcast shape %s; only an out "
                        "tensor with no elements is resized (resize_(0) it first)",
                        it->name, it->arg_names[k], have, want);
    *resize = true;
    return PT_OK;
}

/* Replaces input k, when an output may overwrite its bytes before they are read (an overlap torch
 * calls too hard to judge), by a contiguous copy that the iterator owns. */
static pt_status separate_input(pt_iter *it, int32_t k)
{
    for (int32_t o = 0; o < it->noutputs; o++) {
        if (overlap_status(it->ops[o], it->ops[k]) != OVERLAP_TOO_HARD) continue;
        pt_tensor *copy;
        PT_TRY(pt_tensor_clone(it->ops[k], PT_MEMORY_FORMAT_CONTIGUOUS, &copy));
        it->ops[k] = copy;
        it->owned[k] = true;
        return PT_OK;
    }
    return PT_OK;
}

static pt_status allocate_outputs(pt_iter *it, const bool *resize, const int32_t *perm)
{
    int64_t strides[PT_MAX_DIMS];
    bool have_strides = false;
    for (int32_t k = 0; k < it->noutputs; k++) {
        if (it->ops[k] && !resize[k]) continue;
        if (!have_strides) {
            output_strides(it, it->ndim, it->shape, perm, strides);
            have_strides = true;
        }
        pt_tensor *t = it->ops[k];
        if (!t) {
            const int32_t dtype = it->out_dtype >= 0 ? it->out_dtype : it->common;
            pt_device dev = {it->device_type, it->device_type == PT_DEV_CPU ? -1 : 0};
            PT_TRY(pt_tensor_empty_strided(it->ndim, it->shape, strides, dtype, dev, &t));
            it->ops[k] = t;
            it->owned[k] = true;
        } else {
            PT_TRY(pt_tensor_resize_(t, it->ndim, it->shape));
            PT_TRY(pt_tensor_set_(t, t->storage, t->offset, it->ndim, it->shape, strides));
        }
    }
    return PT_OK;
}

static void fill_plan(pt_iter *it, int64_t (*strides)[PT_MAX_DIMS], const int32_t *perm)
{
    const int32_t n = it->noutputs + it->ninputs, nd = it->ndim;
    it->plan_ndim = nd;
    for (int32_t k = 0; k < n; k++) {
        const pt_tensor *t = it->ops[k];
        broadcast_strides(t, nd, it->shape, strides[k]);
        const int64_t isz = pt_dtype_itemsize(t->dtype);
        for (int32_t i = 0; i < nd; i++) it->plan_strides[k][i] = strides[k][perm[nd - 1 - i]] * isz;
        it->data[k] = it->device_type == PT_DEV_CPU ? pt_tensor_data(t) : NULL;
    }
    for (int32_t i = 0; i < nd; i++) it->plan_sizes[i] = it->shape[perm[nd - 1 - i]];
}

static pt_status build(pt_iter *it)
{
    const int32_t n = it->noutputs + it->ninputs;
    if (it->flags & (1 << 30) || it->ninputs < 1)
        return PT_ERROR(PT_ERR_VALUE, "%s: the iterator needs 1 to %d operands with outputs first",
                        it->name, PT_ITER_MAX_OPERANDS);
    for (int32_t k = 0; k < n; k++)
        if (k >= it->noutputs || it->ops[k])
            PT_TRY(pt_iter_check_operand(it->ops[k], it->name, it->arg_names[k]));
    for (int32_t o = 0; o < it->noutputs; o++) {
        if (!it->ops[o]) continue;
        PT_TRY(pt_iter_check_write(it->ops[o], NULL));
        for (int32_t k = it->noutputs; k < n; k++) PT_TRY(pt_iter_check_write(it->ops[o], it->ops[k]));
    }
    PT_TRY(broadcast_shape(it, &it->ndim, it->shape));
    bool resize[PT_ITER_MAX_OPERANDS] = {false};
    if ((it->flags & PT_ITER_INPLACE) && it->ops[0]) PT_TRY(check_output_shape(it, 0, &resize[0]));
    PT_TRY(check_devices(it));
    PT_TRY(compute_dtypes(it));
    for (int32_t k = 0; k < it->noutputs; k++)
        if (it->ops[k] && !((it->flags & PT_ITER_INPLACE) && k == 0))
            PT_TRY(check_output_shape(it, k, &resize[k]));
    for (int32_t k = 0; k < it->noutputs; k++)
        if (it->ops[k] && it->ops[k]->device.type == PT_DEV_CPU && !it->ops[k]->storage->writable)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: the output tensor's storage is read-only",
                            it->name);
    /* Iteration order over (given outputs that keep their layout, inputs), as torch sorts. */
    int64_t strides[PT_ITER_MAX_OPERANDS][PT_MAX_DIMS];
    int32_t nops = 0, perm[PT_MAX_DIMS];
    for (int32_t k = 0; k < n; k++)
        if (it->ops[k] && !resize[k]) broadcast_strides(it->ops[k], it->ndim, it->shape, strides[nops++]);
    iteration_order(it->ndim, it->shape, nops, strides, perm);
    PT_TRY(allocate_outputs(it, resize, perm));
    pt_shape_check(it->ndim, it->shape, &it->numel);
    if (it->device_type == PT_DEV_CPU && it->numel > 0 && it->noutputs > 0)
        for (int32_t k = it->noutputs; k < n; k++) PT_TRY(separate_input(it, k));
    fill_plan(it, strides, perm);
    return PT_OK;
}

pt_status pt_iter_build(pt_iter *it)
{
    pt_status st = build(it);
    if (st != PT_OK) pt_iter_cleanup(it);
    return st;
}

pt_tensor *pt_iter_output(pt_iter *it, int32_t k)
{
    pt_tensor *t = it->ops[k];
    pt_tensor_retain(t);
    return t;
}

void pt_iter_cleanup(pt_iter *it)
{
    for (int32_t k = 0; k < PT_ITER_MAX_OPERANDS; k++) {
        if (it->owned[k]) pt_tensor_release(it->ops[k]);
        it->owned[k] = false;
    }
}

pt_status pt_iter_finish(pt_iter *it, pt_tensor **out)
{
    *out = pt_iter_output(it, 0);
    pt_iter_cleanup(it);
    return PT_OK;
}
