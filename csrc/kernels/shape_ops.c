/* shape_ops.c - cat, stack, split, chunk, flip, roll, repeat, tile, tril and triu.
 *
 * None of these operators computes a value: each one decides a result shape, then moves elements
 * by describing source and destination as strided views and handing them to pt_tensor_copy_,
 * which walks both in one pt_loop_nd (casting where cat promotes). So
 *   cat     copies each input into a narrow view of the result along dim;
 *   flip    copies from a view with negated strides on the flipped dims;
 *   roll    copies two narrow pieces per rolled dim (one pass per dim);
 *   repeat  views the result as [r0, s0, r1, s1, ...] (each repeat count beside the size it
 *           repeats) and copies the input into it, read with stride 0 over the repeat dims;
 *   tril/triu clone, then zero the elements outside the triangle of every matrix.
 * split and chunk are narrow views; stack and tile are composites over cat and repeat. Meta
 * tensors get the shapes, dtypes and checks, and no copies.
 *
 * Results are contiguous (torch keeps some inputs' layouts, e.g. cat of channels-last inputs).
 */
#include <stdlib.h>
#include <string.h>

#include "boxing.h"
#include "shape_common.h"

/* ---------------------------------------------------------------- cat */

/* torch's legacy rule: 1-d tensors of size 0 are skipped whatever their shape says. */
static bool cat_skipped(const pt_tensor *t) { return t->ndim == 1 && t->sizes[0] == 0; }

static pt_status cat_check_sizes(int32_t n, pt_tensor *const *ts, const pt_tensor *ref,
                                 int32_t dim, int64_t *total)
{
    *total = 0;
    for (int32_t i = 0; i < n; i++) {
        const pt_tensor *t = ts[i];
        if (cat_skipped(t)) continue;
        if (t->ndim != ref->ndim)
            return PT_ERROR(PT_ERR_RUNTIME, "Tensors must have same number of dimensions: got "
                            "%d and %d", (int)ref->ndim, (int)t->ndim);
        for (int32_t d = 0; d < t->ndim; d++)
            if (d != dim && t->sizes[d] != ref->sizes[d])
                return PT_ERROR(PT_ERR_RUNTIME, "Sizes of tensors must match except in dimension "
                                "%d. Expected size %lld but got size %lld for tensor number %d "
                                "in the list.", (int)dim, (long long)ref->sizes[d],
                                (long long)t->sizes[d], (int)i);
        *total += t->sizes[dim];
    }
    return PT_OK;
}

/* Checks the inputs and works out the result: shape, dtype, device. */
static pt_status cat_plan(int32_t n, pt_tensor *const *ts, int64_t dim_arg, int32_t *dim,
                          int32_t *nd, int64_t *shape, int32_t *dtype, bool *meta)
{
    if (n <= 0 || !ts) return PT_ERROR(PT_ERR_VALUE, "torch.cat(): expected a non-empty list of "
                                       "Tensors");
    const pt_tensor *ref = NULL;
    for (int32_t i = 0; i < n; i++) {
        PT_TRY(pt_shape_check_tensor(ts[i], "cat", "tensors"));
        if (ts[i]->ndim == 0)
            return PT_ERROR(PT_ERR_RUNTIME, "zero-dimensional tensor (at position %d) cannot be "
                            "concatenated", (int)i);
        if (!ref && !cat_skipped(ts[i])) ref = ts[i];
    }
    PT_TRY(pt_shape_device(n, (const pt_tensor *const *)ts, meta));
    PT_TRY(pt_result_type(n, ts, dtype));
    if (!ref) { /* every input skipped: an empty 1-d result */
        *dim = 0;
        *nd = 1;
        shape[0] = 0;
        return PT_OK;
    }
    PT_TRY(pt_wrap_dim(dim_arg, ref->ndim, dim));
    int64_t total;
    PT_TRY(cat_check_sizes(n, ts, ref, *dim, &total));
    *nd = ref->ndim;
    memcpy(shape, ref->sizes, sizeof(int64_t) * (size_t)ref->ndim);
    shape[*dim] = total;
    return PT_OK;
}

static pt_status cat_fill(int32_t n, pt_tensor *const *ts, int32_t dim, pt_tensor *result)
{
    int64_t at = 0;
    for (int32_t i = 0; i < n; i++) {
        if (cat_skipped(ts[i])) continue;
        int64_t len = ts[i]->sizes[dim];
        if (len == 0) continue;
        pt_tensor *slot;
        PT_TRY(pt_tensor_narrow(result, dim, at, len, &slot));
        pt_status st = pt_tensor_copy_(slot, ts[i]);
        pt_tensor_release(slot);
        PT_TRY(st);
        at += len;
    }
    return PT_OK;
}

pt_status pt_kernel_cat(int32_t tensors_len, pt_tensor *const *tensors, int64_t dim,
                        pt_tensor **out)
{
    int32_t d, nd, dtype;
    int64_t shape[PT_MAX_DIMS];
    bool meta;
    PT_TRY(cat_plan(tensors_len, tensors, dim, &d, &nd, shape, &dtype, &meta));
    pt_tensor *r;
    PT_TRY(pt_shape_empty(nd, shape, dtype, meta, &r));
    pt_status st = meta ? PT_OK : cat_fill(tensors_len, tensors, d, r);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_cat_out(int32_t tensors_len, pt_tensor *const *tensors, int64_t dim,
                            pt_tensor *out_arg, pt_tensor **out)
{
    int32_t d, nd, dtype;
    int64_t shape[PT_MAX_DIMS];
    bool meta;
    PT_TRY(pt_shape_check_tensor(out_arg, "cat", "out"));
    PT_TRY(cat_plan(tensors_len, tensors, dim, &d, &nd, shape, &dtype, &meta));
    if (!pt_dtype_can_cast(dtype, out_arg->dtype))
        return PT_ERROR(PT_ERR_TYPE, "torch.cat(): input types can't be cast to the desired "
                        "output type %s", pt_shape_legacy_name(out_arg->dtype));
    for (int32_t i = 0; i < tensors_len; i++)
        if (tensors[i]->storage == out_arg->storage && tensors[i]->numel > 0 && out_arg->numel > 0)
            return PT_ERROR(PT_ERR_RUNTIME, "unsupported operation: the input tensors cannot "
                            "refer to any of the output memory locations. Found overlap in input "
                            "tensor %d", (int)i);
    pt_tensor *r;
    PT_TRY(pt_shape_empty(nd, shape, out_arg->dtype, meta, &r));
    pt_status st = meta ? PT_OK : cat_fill(tensors_len, tensors, d, r);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    return pt_shape_finish_out("cat", r, out_arg, false, out);
}

/* ---------------------------------------------------------------- stack (composite) */

/* The inputs unsqueezed at dim, after torch's checks; *views holds n new references. */
static pt_status stack_views(int32_t n, pt_tensor *const *ts, int64_t dim, pt_tensor **views)
{
    if (n <= 0 || !ts) return PT_ERROR(PT_ERR_RUNTIME, "stack expects a non-empty TensorList");
    for (int32_t i = 0; i < n; i++) {
        PT_TRY(pt_shape_check_tensor(ts[i], "stack", "tensors"));
        if (!pt_shape_same(ts[i]->ndim, ts[i]->sizes, ts[0]->ndim, ts[0]->sizes)) {
            char a[PT_SHAPE_CHARS], b[PT_SHAPE_CHARS];
            pt_format_ints(a, sizeof a, ts[0]->ndim, ts[0]->sizes);
            pt_format_ints(b, sizeof b, ts[i]->ndim, ts[i]->sizes);
            return PT_ERROR(PT_ERR_RUNTIME, "stack expects each tensor to be equal size, but got "
                            "%s at entry 0 and %s at entry %d", a, b, (int)i);
        }
    }
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, ts[0]->ndim + 1, &d));
    for (int32_t i = 0; i < n; i++) {
        pt_status st = pt_tensor_unsqueeze(ts[i], d, &views[i]);
        if (st != PT_OK) {
            while (i > 0) pt_tensor_release(views[--i]);
            return st;
        }
    }
    return PT_OK;
}

static pt_status stack_call(int32_t n, pt_tensor *const *ts, int64_t dim, pt_tensor *out_arg,
                            pt_tensor **out)
{
    pt_tensor **views = malloc(sizeof(pt_tensor *) * (size_t)(n > 0 ? n : 1));
    if (!views) return PT_ERROR(PT_ERR_MEMORY, "stack: out of memory for %d views", (int)n);
    pt_status st = stack_views(n, ts, dim, views);
    if (st == PT_OK) {
        /* The unsqueezed views have dim + 1 dims, so dim is in range and no input is skipped. */
        int32_t d = 0;
        pt_wrap_dim(dim, ts[0]->ndim + 1, &d);
        pt_tensor *r = out_arg ? pt_call_cat_out(n, views, d, out_arg) : pt_call_cat(n, views, d);
        st = r ? PT_OK : pt_error_code();
        if (r) *out = r;
        for (int32_t i = 0; i < n; i++) pt_tensor_release(views[i]);
    }
    free(views);
    return st;
}

pt_status pt_native_stack(int32_t tensors_len, pt_tensor *const *tensors, int64_t dim,
                          pt_tensor **out)
{
    return stack_call(tensors_len, tensors, dim, NULL, out);
}

pt_status pt_native_stack_out(int32_t tensors_len, pt_tensor *const *tensors, int64_t dim,
                              pt_tensor *out_arg, pt_tensor **out)
{
    return stack_call(tensors_len, tensors, dim, out_arg, out);
}

/* ---------------------------------------------------------------- split, chunk (boxed) */

/* Narrow views of self along dim, one per entry of sizes (which sum to the dim's size), pushed as
 * one owned Tensor[] result at stack position base. */
/* Every piece is a tensor object of its own, so a count near 2**62 (chunks of an empty dim, size-1
 * pieces of a 2**62 dim of an empty tensor) could never be made: refused before any allocation
 * whose byte count would wrap. 2**31 pieces already take hundreds of GiB. */
static pt_status check_piece_count(const char *op, int64_t n)
{
    if (n <= INT32_MAX) return PT_OK;
    return PT_ERROR(PT_ERR_MEMORY, "%s: %lld pieces are more than memory can hold (at most %d)",
                    op, (long long)n, (int)INT32_MAX);
}

static pt_status push_pieces(pt_stack *stack, int32_t base, const pt_tensor *self, int32_t dim,
                             int64_t n, const int64_t *sizes)
{
    PT_TRY(check_piece_count("split", n));
    pt_tensor **pieces = calloc((size_t)(n > 0 ? n : 1), sizeof(pt_tensor *));
    if (!pieces) return PT_ERROR(PT_ERR_MEMORY, "split: out of memory for %lld pieces",
                                 (long long)n);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        pt_status st = pt_tensor_narrow(self, dim, at, sizes[i], &pieces[i]);
        if (st != PT_OK) {
            while (i > 0) pt_tensor_release(pieces[--i]);
            free(pieces);
            return st;
        }
        at += sizes[i];
    }
    stack->items[base] = (pt_ivalue){.tag = PT_IV_TENSOR_LIST, .owned = 1, .len = n,
                                     .tensors = pieces};
    stack->size = base + 1;
    return PT_OK;
}

static pt_status split_sizes_check(const pt_tensor *self, int32_t n, const int64_t *sizes,
                                   int32_t dim)
{
    int64_t sum = 0;
    bool negative = false;
    for (int32_t i = 0; i < n; i++) {
        negative |= sizes[i] < 0;
        sum += sizes[i];
    }
    if (!negative && sum == self->sizes[dim]) return PT_OK;
    char list[PT_SHAPE_CHARS];
    pt_format_ints(list, sizeof list, n, sizes);
    if (negative)
        return PT_ERROR(PT_ERR_RUNTIME, "split_with_sizes expects split_sizes have only "
                        "non-negative entries, but got split_sizes=%s", list);
    return PT_ERROR(PT_ERR_RUNTIME, "split_with_sizes expects split_sizes to sum exactly to %lld "
                    "(input tensor's size at dimension %d), but got split_sizes=%s",
                    (long long)self->sizes[dim], (int)dim, list);
}

/* Reads (self, <int or int list>, dim) off the stack. */
static pt_status split_args(const pt_op *op, pt_stack *stack, int32_t list, const char *name,
                            pt_tensor **self, int32_t *n, const int64_t **sizes, int64_t *one,
                            int32_t *dim)
{
    PT_TRY(pt_box_check_stack(op, stack, 3, 1));
    const pt_ivalue *a = stack->items + stack->size - 3;
    PT_TRY(pt_unbox_tensor(op, a, 0, 0, self));
    if (list) PT_TRY(pt_unbox_int_list(op, a, 1, PT_IV_INT_LIST, 0, n, sizes));
    else PT_TRY(pt_unbox_int(op, a, 1, one));
    int64_t d;
    PT_TRY(pt_unbox_int(op, a, 2, &d));
    PT_TRY(pt_shape_check_tensor(*self, name, "self"));
    if ((*self)->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s expects at least a 1-dimensional tensor", name);
    return pt_wrap_dim(d, (*self)->ndim, dim);
}

static pt_status split_equal(pt_stack *stack, const pt_tensor *self, int64_t split_size,
                             int32_t dim)
{
    int32_t base = stack->size - 3;
    int64_t len = self->sizes[dim];
    if (split_size < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "split expects split_size be non-negative, but got "
                        "split_size=%lld", (long long)split_size);
    if (split_size == 0 && len != 0)
        return PT_ERROR(PT_ERR_RUNTIME, "split_size can only be 0 if dimension size is 0, but "
                        "got dimension size of %lld", (long long)len);
    int64_t n = split_size == 0 ? 1 : len / split_size + (len % split_size != 0);
    if (n < 1) n = 1;
    PT_TRY(check_piece_count("split", n));
    int64_t *sizes = malloc(sizeof(int64_t) * (size_t)n);
    if (!sizes) return PT_ERROR(PT_ERR_MEMORY, "split: out of memory for %lld pieces",
                                (long long)n);
    for (int64_t i = 0; i < n; i++) sizes[i] = split_size;
    sizes[n - 1] = len - split_size * (n - 1);
    pt_status st = push_pieces(stack, base, self, dim, n, sizes);
    free(sizes);
    return st;
}

pt_status pt_native_split_Tensor(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                 void *ctx)
{
    PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);
    pt_tensor *self;
    int64_t split_size;
    int32_t dim;
    PT_TRY(split_args(op, stack, 0, "split", &self, NULL, NULL, &split_size, &dim));
    return split_equal(stack, self, split_size, dim);
}

static pt_status split_list(const pt_op *op, pt_stack *stack)
{
    pt_tensor *self;
    int32_t n, dim;
    const int64_t *sizes;
    PT_TRY(split_args(op, stack, 1, "split", &self, &n, &sizes, NULL, &dim));
    PT_TRY(split_sizes_check(self, n, sizes, dim));
    return push_pieces(stack, stack->size - 3, self, dim, n, sizes);
}

pt_status pt_native_split_sizes(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                void *ctx)
{
    PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);
    return split_list(op, stack);
}

pt_status pt_native_split_with_sizes(const pt_op *op, int32_t key, uint64_t keyset,
                                     pt_stack *stack, void *ctx)
{
    PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);
    return split_list(op, stack);
}

/* Calls split.Tensor or split_with_sizes (`overload`) through the dispatcher on the stack's
 * arguments, item 1 replaced by `size_arg`: below the autograd keys when chunk's caller was, and
 * through their autograd kernels otherwise. */
static pt_status chunk_as_split(pt_stack *stack, const char *name, const char *overload,
                                pt_ivalue size_arg)
{
    pt_op *split;
    PT_TRY(pt_dispatch_find(name, overload, &split));
    stack->items[stack->size - 2] = size_arg;
    return pt_dispatch_call(split, stack);
}

pt_status pt_native_chunk(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                          void *ctx)
{
    PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);
    pt_tensor *self;
    int64_t chunks;
    int32_t dim;
    PT_TRY(split_args(op, stack, 0, "chunk", &self, NULL, NULL, &chunks, &dim));
    if (chunks <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld",
                        (long long)chunks);
    int64_t len = self->sizes[dim];
    int64_t split_size = len / chunks + (len % chunks != 0);
    if (split_size != 0 || len != 0)
        return chunk_as_split(stack, "aten::split", "Tensor",
                              (pt_ivalue){.tag = PT_IV_INT, .i = split_size});
    /* An empty dim: `chunks` empty pieces, as torch gives. */
    PT_TRY(check_piece_count("chunk", chunks));
    int64_t *zeros = calloc((size_t)chunks, sizeof(int64_t));
    if (!zeros) return PT_ERROR(PT_ERR_MEMORY, "chunk: out of memory for %lld pieces",
                                (long long)chunks);
    pt_status st = chunk_as_split(stack, "aten::split_with_sizes", "",
                                  (pt_ivalue){.tag = PT_IV_INT_LIST, .len = chunks,
                                              .ints = zeros});
    free(zeros);
    return st;
}

/* unbind: the select views at each index of dim, as one Tensor[] result. */
pt_status pt_native_unbind_int(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                               void *ctx)
{
    PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);
    PT_TRY(pt_box_check_stack(op, stack, 2, 1));
    const int32_t base = stack->size - 2;
    const pt_ivalue *a = stack->items + base;
    pt_tensor *self;
    int64_t d;
    int32_t dim;
    PT_TRY(pt_unbox_tensor(op, a, 0, 0, &self));
    PT_TRY(pt_unbox_int(op, a, 1, &d));
    PT_TRY(pt_shape_check_tensor(self, "unbind", "self"));
    if (self->ndim == 0)
        return PT_ERROR(PT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                        (long long)d);
    PT_TRY(pt_wrap_dim(d, self->ndim, &dim));
    const int64_t n = self->sizes[dim];
    PT_TRY(check_piece_count("unbind", n));
    pt_tensor **pieces = calloc((size_t)(n > 0 ? n : 1), sizeof(pt_tensor *));
    if (!pieces) return PT_ERROR(PT_ERR_MEMORY, "unbind: out of memory for %lld pieces",
                                 (long long)n);
    for (int64_t i = 0; i < n; i++) {
        pieces[i] = pt_call_select_int(self, dim, i);
        if (!pieces[i]) {
            while (i > 0) pt_tensor_release(pieces[--i]);
            free(pieces);
            return pt_error_code();
        }
    }
    stack->items[base] = (pt_ivalue){.tag = PT_IV_TENSOR_LIST, .owned = 1, .len = n,
                                     .tensors = pieces};
    stack->size = base + 1;
    return PT_OK;
}

/* ---------------------------------------------------------------- flip */

/* Wraps a list of dims, refusing repeats (torch's message); marks them in `seen`. */
static pt_status wrap_dims(int32_t n, const int64_t *dims, int32_t ndim, bool *seen)
{
    memset(seen, 0, sizeof(bool) * PT_MAX_DIMS);
    for (int32_t i = 0; i < n; i++) {
        int32_t d;
        PT_TRY(pt_wrap_dim(dims[i], ndim, &d));
        if (seen[d])
            return PT_ERROR(PT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims",
                            (int)d);
        seen[d] = true;
    }
    return PT_OK;
}

static pt_status flip_compute(const pt_tensor *self, int32_t n, const int64_t *dims,
                              pt_tensor **out)
{
    bool seen[PT_MAX_DIMS];
    PT_TRY(pt_shape_check_tensor(self, "flip", "self"));
    PT_TRY(wrap_dims(n, dims, self->ndim, seen));
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(self->ndim, self->sizes, self->dtype, self->device, &r));
    if (self->device.type == PT_DEV_META || r->numel == 0) {
        *out = r;
        return PT_OK;
    }
    /* The input read backwards on the flipped dims: offset at their last element, stride
     * negated. */
    int64_t strides[PT_MAX_DIMS], offset = self->offset;
    for (int32_t d = 0; d < self->ndim; d++) {
        strides[d] = seen[d] ? -self->strides[d] : self->strides[d];
        if (seen[d]) offset += (self->sizes[d] - 1) * self->strides[d];
    }
    pt_tensor *src;
    pt_status st = pt_tensor_make(self->storage, self->dtype, self->ndim, self->sizes, strides,
                                  offset, &src);
    if (st == PT_OK) {
        st = pt_tensor_copy_(r, src);
        pt_tensor_release(src);
    }
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_flip(const pt_tensor *self, int32_t dims_len, const int64_t *dims,
                         pt_tensor **out)
{
    return flip_compute(self, dims_len, dims, out);
}

pt_status pt_kernel_flip_out(const pt_tensor *self, int32_t dims_len, const int64_t *dims,
                             pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, "flip", "out"));
    PT_TRY(pt_shape_out_dtype(out_arg, self ? self->dtype : out_arg->dtype));
    pt_tensor *r;
    PT_TRY(flip_compute(self, dims_len, dims, &r));
    return pt_shape_finish_out("flip", r, out_arg, false, out);
}

/* ---------------------------------------------------------------- roll */

/* dst <- src rolled by `shift` along dim: two narrow copies. */
static pt_status roll_dim(const pt_tensor *src, pt_tensor *dst, int32_t dim, int64_t shift)
{
    int64_t n = src->sizes[dim];
    if (n == 0) return PT_OK;
    int64_t s = ((shift % n) + n) % n;
    const int64_t from[2] = {0, n - s}, to[2] = {s, 0}, len[2] = {n - s, s};
    for (int k = 0; k < 2; k++) {
        if (len[k] == 0) continue;
        pt_tensor *a, *b;
        PT_TRY(pt_tensor_narrow(src, dim, from[k], len[k], &a));
        pt_status st = pt_tensor_narrow(dst, dim, to[k], len[k], &b);
        if (st == PT_OK) {
            st = pt_tensor_copy_(b, a);
            pt_tensor_release(b);
        }
        pt_tensor_release(a);
        PT_TRY(st);
    }
    return PT_OK;
}

/* Rolls `t` (CPU, at least 1-d) along each (shift, dim) in turn; *out is a new tensor. */
static pt_status roll_dims(const pt_tensor *t, int32_t n, const int64_t *shifts,
                           const int32_t *dims, pt_tensor **out)
{
    pt_tensor *cur = NULL;
    PT_TRY(pt_tensor_clone(t, PT_MEMORY_FORMAT_CONTIGUOUS, &cur));
    for (int32_t i = 0; i < n; i++) {
        pt_tensor *next;
        pt_status st = pt_tensor_empty(t->ndim, t->sizes, t->dtype, t->device, &next);
        if (st == PT_OK) st = roll_dim(cur, next, dims[i], shifts[i]);
        pt_tensor_release(cur);
        if (st != PT_OK) {
            pt_tensor_release(next);
            return st;
        }
        cur = next;
    }
    *out = cur;
    return PT_OK;
}

static pt_status roll_compute(const pt_tensor *self, int32_t nshifts, const int64_t *shifts,
                              int32_t ndims, const int64_t *dims, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "roll", "self"));
    if (ndims == 0 && nshifts == 0) return PT_ERROR(PT_ERR_RUNTIME, "`shifts` required");
    if ((ndims == 0 && nshifts != 1) || (ndims != 0 && ndims != nshifts))
        return PT_ERROR(PT_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:%d",
                        (int)nshifts, (int)ndims);
    /* torch rolls an empty tensor without looking at dims, and asks a 0-d one for the size of
     * the first dim (a 0-d tensor has no dim 0, unlike in the usual wrapping). */
    if (self->ndim == 0 && ndims > 0 && self->numel != 0)
        return PT_ERROR(PT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                        (long long)dims[0]);
    if (ndims > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_VALUE, "roll: at most %d dims, got %d", PT_MAX_DIMS, (int)ndims);
    int32_t wrapped[PT_MAX_DIMS];
    for (int32_t i = 0; i < ndims && self->numel != 0; i++)
        PT_TRY(pt_wrap_dim(dims[i], self->ndim, &wrapped[i]));
    if (self->device.type == PT_DEV_META || self->numel == 0 || self->ndim == 0)
        return pt_tensor_clone(self, PT_MEMORY_FORMAT_CONTIGUOUS, out);
    if (ndims > 0) return roll_dims(self, ndims, shifts, wrapped, out);
    /* No dims: roll the flattened tensor and give it its shape back. */
    pt_tensor *flat, *rolled;
    PT_TRY(pt_tensor_reshape(self, 1, (const int64_t[]){self->numel}, &flat));
    pt_status st = roll_dims(flat, 1, shifts, (const int32_t[]){0}, &rolled);
    pt_tensor_release(flat);
    PT_TRY(st);
    st = pt_tensor_view(rolled, self->ndim, self->sizes, out);
    pt_tensor_release(rolled);
    return st;
}

pt_status pt_kernel_roll(const pt_tensor *self, int32_t shifts_len, const int64_t *shifts,
                         int32_t dims_len, const int64_t *dims, pt_tensor **out)
{
    return roll_compute(self, shifts_len, shifts, dims_len, dims, out);
}

pt_status pt_kernel_roll_out(const pt_tensor *self, int32_t shifts_len, const int64_t *shifts,
                             int32_t dims_len, const int64_t *dims, pt_tensor *out_arg,
                             pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, "roll", "out"));
    PT_TRY(pt_shape_out_dtype(out_arg, self ? self->dtype : out_arg->dtype));
    pt_tensor *r;
    PT_TRY(roll_compute(self, shifts_len, shifts, dims_len, dims, &r));
    return pt_shape_finish_out("roll", r, out_arg, false, out);
}

/* ---------------------------------------------------------------- repeat, tile */

static pt_status repeat_shape(const pt_tensor *self, int32_t n, const int64_t *repeats,
                              int64_t *padded, int64_t *shape)
{
    if (n < self->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "Number of dimensions of repeat dims can not be smaller "
                        "than number of dimensions of tensor");
    if (2 * n > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_VALUE, "repeat: at most %d repeat dims, got %d", PT_MAX_DIMS / 2,
                        (int)n);
    bool negative = false;
    for (int32_t i = 0; i < n; i++) {
        int32_t d = self->ndim - n + i;
        padded[i] = d >= 0 ? self->sizes[d] : 1;
        negative |= repeats[i] < 0;
        if (__builtin_mul_overflow(padded[i], repeats[i], &shape[i]))
            return PT_ERROR(PT_ERR_RUNTIME, "repeat: dim %d of size %lld repeated %lld times "
                            "overflows int64", (int)i, (long long)padded[i],
                            (long long)repeats[i]);
    }
    for (int32_t i = 0; negative && i < n; i++) {
        if (shape[i] >= 0) continue;
        char list[PT_SHAPE_CHARS];
        pt_format_ints(list, sizeof list, n, shape);
        return PT_ERROR(PT_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s",
                        (long long)shape[i], list);
    }
    if (negative)
        return PT_ERROR(PT_ERR_RUNTIME, "repeat: repeats must be non-negative, got a negative "
                        "count for a dim of size 0");
    int64_t numel;
    return pt_shape_check(n, shape, &numel);
}

/* The result seen as [r0, s0, r1, s1, ...] and the input as the same shape with stride 0 over
 * every r: one copy fills every repetition. */
static pt_status repeat_fill(const pt_tensor *self, int32_t n, const int64_t *repeats,
                             const int64_t *padded, pt_tensor *r)
{
    int64_t sizes[PT_MAX_DIMS], dst_st[PT_MAX_DIMS], src_st[PT_MAX_DIMS];
    for (int32_t i = 0; i < n; i++) {
        int32_t d = self->ndim - n + i;
        sizes[2 * i] = repeats[i];
        sizes[2 * i + 1] = padded[i];
        dst_st[2 * i] = padded[i] * r->strides[i];
        dst_st[2 * i + 1] = r->strides[i];
        src_st[2 * i] = 0;
        src_st[2 * i + 1] = d >= 0 ? self->strides[d] : 0;
    }
    pt_tensor *dst, *src;
    PT_TRY(pt_tensor_make(r->storage, r->dtype, 2 * n, sizes, dst_st, r->offset, &dst));
    pt_status st = pt_tensor_make(self->storage, self->dtype, 2 * n, sizes, src_st, self->offset,
                                  &src);
    if (st == PT_OK) {
        st = pt_tensor_copy_(dst, src);
        pt_tensor_release(src);
    }
    pt_tensor_release(dst);
    return st;
}

static pt_status repeat_compute(const pt_tensor *self, int32_t n, const int64_t *repeats,
                                pt_tensor **out)
{
    int64_t padded[PT_MAX_DIMS], shape[PT_MAX_DIMS];
    PT_TRY(pt_shape_check_tensor(self, "repeat", "self"));
    PT_TRY(repeat_shape(self, n, repeats, padded, shape));
    pt_tensor *r;
    PT_TRY(pt_tensor_empty(n, shape, self->dtype, self->device, &r));
    if (self->device.type != PT_DEV_META && r->numel > 0) {
        pt_status st = repeat_fill(self, n, repeats, padded, r);
        if (st != PT_OK) {
            pt_tensor_release(r);
            return st;
        }
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_repeat(const pt_tensor *self, int32_t repeats_len, const int64_t *repeats,
                           pt_tensor **out)
{
    return repeat_compute(self, repeats_len, repeats, out);
}

pt_status pt_kernel_repeat_out(const pt_tensor *self, int32_t repeats_len, const int64_t *repeats,
                               pt_tensor *out_arg, pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(out_arg, "repeat", "out"));
    PT_TRY(pt_shape_out_dtype(out_arg, self ? self->dtype : out_arg->dtype));
    pt_tensor *r;
    PT_TRY(repeat_compute(self, repeats_len, repeats, &r));
    return pt_shape_finish_out("repeat", r, out_arg, false, out);
}

pt_status pt_native_tile(const pt_tensor *self, int32_t dims_len, const int64_t *dims,
                         pt_tensor **out)
{
    PT_TRY(pt_shape_check_tensor(self, "tile", "self"));
    if (self->ndim > PT_MAX_DIMS / 2 || dims_len > PT_MAX_DIMS / 2)
        return PT_ERROR(PT_ERR_VALUE, "tile: at most %d dims", PT_MAX_DIMS / 2);
    /* Fewer dims than the tensor has: leading 1s, as torch pads them. */
    int64_t padded[PT_MAX_DIMS];
    int32_t n = dims_len < self->ndim ? self->ndim : dims_len;
    for (int32_t i = 0; i < n; i++) {
        int32_t j = dims_len - n + i;
        padded[i] = j >= 0 ? dims[j] : 1;
    }
    pt_tensor *r = pt_call_repeat(self, n, padded);
    if (!r) return pt_error_code();
    *out = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- tril, triu */

typedef struct tri_ctx {
    int64_t rows, cols, row_stride, col_stride, itemsize, diagonal;
    bool upper;
} tri_ctx;

/* Zeroes the elements outside the triangle of n matrices (one per batch element). */
static void tri_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const tri_ctx *c = ctx;
    for (int64_t b = 0; b < n; b++) {
        char *m = data[0] + b * strides[0];
        for (int64_t i = 0; i < c->rows; i++) {
            /* tril keeps j <= i + k; triu keeps j >= i + k. */
            int64_t lo = c->upper ? 0 : i + c->diagonal + 1;
            int64_t hi = c->upper ? i + c->diagonal : c->cols;
            if (lo < 0) lo = 0;
            if (hi > c->cols) hi = c->cols;
            for (int64_t j = lo; j < hi; j++)
                memset(m + i * c->row_stride + j * c->col_stride, 0, (size_t)c->itemsize);
        }
    }
}

static pt_status tri_apply(pt_tensor *t, int64_t diagonal, bool upper)
{
    if (t->device.type == PT_DEV_META || t->numel == 0) return PT_OK;
    int64_t isz = pt_dtype_itemsize(t->dtype);
    int32_t nd = t->ndim;
    tri_ctx c = {t->sizes[nd - 2], t->sizes[nd - 1], t->strides[nd - 2] * isz,
                 t->strides[nd - 1] * isz, isz, diagonal, upper};
    int64_t batch_strides[PT_MAX_DIMS];
    for (int32_t d = 0; d < nd - 2; d++) batch_strides[d] = t->strides[d] * isz;
    char *data[1] = {pt_tensor_data(t)};
    pt_loop_nd(1, data, batch_strides, nd - 2, t->sizes, tri_loop, &c);
    return PT_OK;
}

static pt_status tri_check(const pt_tensor *self, bool upper)
{
    const char *name = upper ? "triu" : "tril";
    PT_TRY(pt_shape_check_tensor(self, name, "self"));
    if (self->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: input tensor must have at least 2 dimensions", name);
    return PT_OK;
}

static pt_status tri(const pt_tensor *self, int64_t diagonal, bool upper, pt_tensor **out)
{
    PT_TRY(tri_check(self, upper));
    pt_tensor *r;
    PT_TRY(pt_tensor_clone(self, PT_MEMORY_FORMAT_CONTIGUOUS, &r));
    tri_apply(r, diagonal, upper);
    *out = r;
    return PT_OK;
}

static pt_status tri_(pt_tensor *self, int64_t diagonal, bool upper, pt_tensor **out)
{
    PT_TRY(tri_check(self, upper));
    PT_TRY(pt_shape_check_writable(self, upper ? "triu_" : "tril_"));
    PT_TRY(tri_apply(self, diagonal, upper));
    pt_tensor_retain(self);
    *out = self;
    return PT_OK;
}

static pt_status tri_out(const pt_tensor *self, int64_t diagonal, bool upper, pt_tensor *out_arg,
                         pt_tensor **out)
{
    const char *name = upper ? "triu" : "tril";
    PT_TRY(pt_shape_check_tensor(out_arg, name, "out"));
    PT_TRY(pt_shape_out_dtype(out_arg, self ? self->dtype : out_arg->dtype));
    pt_tensor *r;
    PT_TRY(tri(self, diagonal, upper, &r));
    return pt_shape_finish_out(name, r, out_arg, false, out);
}

pt_status pt_kernel_tril(const pt_tensor *self, int64_t diagonal, pt_tensor **out)
{
    return tri(self, diagonal, false, out);
}

pt_status pt_kernel_tril_(pt_tensor *self, int64_t diagonal, pt_tensor **out)
{
    return tri_(self, diagonal, false, out);
}

pt_status pt_kernel_tril_out(const pt_tensor *self, int64_t diagonal, pt_tensor *out_arg,
                             pt_tensor **out)
{
    return tri_out(self, diagonal, false, out_arg, out);
}

pt_status pt_kernel_triu(const pt_tensor *self, int64_t diagonal, pt_tensor **out)
{
    return tri(self, diagonal, true, out);
}

pt_status pt_kernel_triu_(pt_tensor *self, int64_t diagonal, pt_tensor **out)
{
    return tri_(self, diagonal, true, out);
}

pt_status pt_kernel_triu_out(const pt_tensor *self, int64_t diagonal, pt_tensor *out_arg,
                             pt_tensor **out)
{
    return tri_out(self, diagonal, true, out_arg, out);
}
