/* shape_products.c - operators that join several tensors into one product-shaped result
 * (block_diag, cartesian_prod, combinations, chain_matmul) and the splits whose pieces are not
 * views for autograd (unsafe_split, unsafe_split_with_sizes, unsafe_chunk) or are copies
 * (split_copy, split_with_sizes_copy, unbind_copy).
 *
 * block_diag copies each input into its block of a zero result (its formula is in
 * derivatives_shape.yaml); cartesian_prod and combinations are torch's compositions: grids made
 * by view and expand, flattened (cartesian_prod) or masked_select'ed by the mask of increasing
 * (non-decreasing, with replacement) index tuples (combinations), then stacked as columns.
 * chain_matmul multiplies in the order that costs fewest multiplications (the classic dynamic
 * program over split points), as torch's multi_dot does. The Tensor[] operators are boxed: they
 * call split / split_with_sizes / unbind's kernels and then either drop the pieces' view marks or
 * clone them.
 */
#include <stdlib.h>
#include <string.h>

#include "boxing.h"
#include "shape_more.h"



static void release_all(int32_t n, pt_tensor **ts)
{
    for (int32_t i = 0; i < n; i++) pt_tensor_release(ts[i]);
    free(ts);
}

/* ---------------------------------------------------------------- block_diag */

pt_status pt_native_block_diag(int32_t n, pt_tensor *const *tensors, pt_tensor **ret)
{
    int32_t dtype = n > 0 ? tensors[0]->dtype : pt_dtype_default();
    int64_t shape[2] = {0, 0};
    for (int32_t i = 0; i < n; i++) {
        const pt_tensor *t = tensors[i];
        if (t->ndim > 2)
            return PT_ERROR(PT_ERR_RUNTIME, "torch.block_diag: Input tensors must have 2 or fewer "
                            "dimensions. Input %d has %d dimensions", (int)i, (int)t->ndim);
        if (t->device.type != tensors[0]->device.type)
            return PT_ERROR(PT_ERR_RUNTIME, "torch.block_diag: input tensors must all be on the "
                            "same device. Input 0 is on device %s and input %d is on device %s",
                            tensors[0]->device.type == PT_DEV_CPU ? "cpu" : "other", (int)i,
                            t->device.type == PT_DEV_CPU ? "cpu" : "other");
        if (i > 0) PT_TRY(pt_dtype_promote(dtype, t->dtype, &dtype));
        shape[0] += t->ndim == 2 ? t->sizes[0] : 1;
        shape[1] += t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
    }
    if (n == 0) shape[0] = 1;
    const pt_device dev = n > 0 ? tensors[0]->device : (pt_device){PT_DEV_CPU, -1};
    pt_tensor *r = pt_call_zeros(2, shape, dtype, -1, &dev, -1);
    if (!r) return pt_error_code();
    int64_t row = 0, col = 0;
    for (int32_t i = 0; i < n; i++) {
        const pt_tensor *t = tensors[i];
        const int64_t rows = t->ndim == 2 ? t->sizes[0] : 1;
        const int64_t cols = t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
        pt_tensor *a = NULL, *b = NULL;
        pt_status st = pt_tensor_narrow(r, 0, row, rows, &a);
        if (st == PT_OK) st = pt_tensor_narrow(a, 1, col, cols, &b);
        if (st == PT_OK && dev.type != PT_DEV_META) {
            pt_tensor *src = t->ndim == 2 ? (pt_tensor *)t : NULL;
            const int64_t s2[2] = {rows, cols};
            if (!src && !(src = pt_call_reshape(t, 2, s2))) st = pt_error_code();
            if (st == PT_OK) st = pt_tensor_copy_(b, src);
            if (src && src != t) pt_tensor_release(src);
        }
        pt_tensor_release(a);
        pt_tensor_release(b);
        if (st != PT_OK) {
            pt_tensor_release(r);
            return st;
        }
        row += rows;
        col += cols;
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_native_block_diag_out(int32_t n, pt_tensor *const *tensors, pt_tensor *out,
                                   pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_block_diag(n, tensors, &r));
    return give_out("block_diag", r, out, ret);
}

/* ---------------------------------------------------------------- grids */

static pt_status check_vector(const pt_tensor *t)
{
    if (t->ndim == 1) return PT_OK;
    char s[PT_SHAPE_CHARS];
    pt_format_ints(s, sizeof s, t->ndim, t->sizes);
    return PT_ERROR(PT_ERR_RUNTIME, "Expect a 1D vector, but got shape %s", s);
}

/* torch's meshgrid (indexing "ij") of n vectors: grid i is vector i viewed along dim i and
 * expanded to the sizes of all of them. */
static pt_status grids_of(int32_t n, pt_tensor *const *vs, pt_tensor ***out)
{
    if (n > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "a grid of %d vectors has more dims than supported (%d)",
                        (int)n, (int)PT_MAX_DIMS);
    int64_t shape[PT_MAX_DIMS], view[PT_MAX_DIMS];
    for (int32_t i = 0; i < n; i++) shape[i] = vs[i]->numel, view[i] = 1;
    pt_tensor **g = calloc((size_t)(n > 0 ? n : 1), sizeof *g);
    if (!g) return PT_ERROR(PT_ERR_MEMORY, "out of memory for %d grids", (int)n);
    for (int32_t i = 0; i < n; i++) {
        view[i] = -1;
        pt_tensor *v = pt_call_view(vs[i], n, view);
        view[i] = 1;
        if (v) g[i] = pt_call_expand(v, n, shape, 0);
        pt_tensor_release(v);
        if (!g[i]) {
            release_all(i, g);
            return pt_error_code();
        }
    }
    *out = g;
    return PT_OK;
}

pt_status pt_native_cartesian_prod(int32_t n, pt_tensor *const *tensors, pt_tensor **ret)
{
    for (int32_t i = 0; i < n; i++) PT_TRY(check_vector(tensors[i]));
    if (n == 1) return pt_native_self(tensors[0], ret);
    pt_tensor **g = NULL;
    PT_TRY(grids_of(n, tensors, &g));
    pt_status st = PT_OK;
    for (int32_t i = 0; st == PT_OK && i < n; i++) {
        pt_tensor *f = pt_call_flatten_using_ints(g[i], 0, -1);
        pt_tensor_release(g[i]);
        g[i] = f;
        if (!f) st = pt_error_code();
    }
    pt_tensor *r = st == PT_OK ? pt_call_stack(n, g, 1) : NULL;
    for (int32_t i = 0; i < n; i++) pt_tensor_release(g[i]);
    free(g);
    return st != PT_OK ? st : give(r, ret);
}

/* The mask over the n**r index tuples (row-major) that keeps i0 < i1 < ... (<= with
 * replacement): torch's _triu_mask, written directly. */
static pt_tensor *tuple_mask(int64_t n, int64_t r, bool with_replacement, pt_device dev)
{
    int64_t shape[PT_MAX_DIMS], total = 1;
    for (int64_t i = 0; i < r; i++) {
        shape[i] = n;
        if (__builtin_mul_overflow(total, n, &total)) {
            PT_ERROR(PT_ERR_MEMORY, "combinations: %lld ** %lld index tuples are more than memory "
                     "can hold", (long long)n, (long long)r);
            return NULL;
        }
    }
    pt_tensor *m = NULL;
    const pt_device cpu = {PT_DEV_CPU, -1};
    if (pt_tensor_empty((int32_t)r, shape, PT_BOOL, cpu, &m) != PT_OK) return NULL;
    bool *p = pt_tensor_data(m);
    int64_t idx[PT_MAX_DIMS] = {0};
    for (int64_t k = 0; k < total; k++) {
        bool keep = true;
        for (int64_t i = 0; i + 1 < r && keep; i++)
            keep = with_replacement ? idx[i] <= idx[i + 1] : idx[i] < idx[i + 1];
        p[k] = keep;
        for (int64_t i = r - 1; i >= 0 && ++idx[i] == n; i--) idx[i] = 0;
    }
    if (dev.type == PT_DEV_CPU) return m;
    pt_tensor *moved = pt_call_to_device(m, dev, PT_BOOL, 0, 0, -1);
    pt_tensor_release(m);
    return moved;
}

pt_status pt_native_combinations(const pt_tensor *self, int64_t r, int32_t with_replacement,
                                 pt_tensor **ret)
{
    PT_TRY(check_vector(self));
    if (r < 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Expect a non-negative number, but got %lld",
                        (long long)r);
    if (r == 0) {
        const int64_t zero = 0;
        return pt_tensor_empty(1, &zero, self->dtype, self->device, ret);
    }
    if (r > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "combinations: r = %lld is more than supported (%d)",
                        (long long)r, (int)PT_MAX_DIMS);
    pt_tensor *same[PT_MAX_DIMS];
    for (int64_t i = 0; i < r; i++) same[i] = (pt_tensor *)self;
    pt_tensor **g = NULL;
    PT_TRY(grids_of((int32_t)r, same, &g));
    pt_tensor *mask = tuple_mask(self->sizes[0], r, with_replacement, self->device), *res = NULL;
    pt_status st = mask ? PT_OK : pt_error_code();
    for (int64_t i = 0; st == PT_OK && i < r; i++) {
        pt_tensor *s = pt_call_masked_select(g[i], mask);
        pt_tensor_release(g[i]);
        g[i] = s;
        if (!s) st = pt_error_code();
    }
    if (st == PT_OK && !(res = pt_call_stack((int32_t)r, g, 1))) st = pt_error_code();
    for (int64_t i = 0; i < r; i++) pt_tensor_release(g[i]);
    free(g);
    pt_tensor_release(mask);
    return st != PT_OK ? st : give(res, ret);
}

/* ---------------------------------------------------------------- chain_matmul */

/* The product of matrices i..j by the split points in `split` (new reference). */
static pt_tensor *chain_product(pt_tensor *const *ms, const int64_t *split, int32_t n, int32_t i,
                                int32_t j)
{
    if (i == j) {
        pt_tensor_retain(ms[i]);
        return ms[i];
    }
    const int32_t k = (int32_t)split[i * n + j];
    pt_tensor *a = chain_product(ms, split, n, i, k), *b = NULL, *r = NULL;
    if (a && (b = chain_product(ms, split, n, k + 1, j))) r = pt_call_mm(a, b);
    pt_tensor_release(a);
    pt_tensor_release(b);
    return r;
}

pt_status pt_native_chain_matmul(int32_t n, pt_tensor *const *matrices, pt_tensor **ret)
{
    if (n == 0) return PT_ERROR(PT_ERR_RUNTIME, "chain_matmul(): Expected one or more matrices");
    for (int32_t i = 0; i < n; i++)
        if (matrices[i]->ndim != 2)
            return PT_ERROR(PT_ERR_RUNTIME, "Tensor dimension is %d, expected 2 instead.",
                            (int)matrices[i]->ndim);
    if (n == 1) return give(pt_call_clone(matrices[0], PT_MEMORY_FORMAT_CONTIGUOUS), ret);
    for (int32_t i = 0; i + 1 < n; i++)
        if (matrices[i]->sizes[1] != matrices[i + 1]->sizes[0]) {
            char a[PT_SHAPE_CHARS], b[PT_SHAPE_CHARS];
            pt_format_ints(a, sizeof a, 2, matrices[i]->sizes);
            pt_format_ints(b, sizeof b, 2, matrices[i + 1]->sizes);
            return PT_ERROR(PT_ERR_RUNTIME, "multi_dot(): tensors %d and %d with shapes %s and %s "
                            "cannot be multiplied", (int)i, (int)i + 1, a, b);
        }
    /* cost[i][j]: fewest multiplications for matrices i..j; split[i][j]: where to split them.
     * dims p[0..n] are the chain's sizes (matrix i is p[i] x p[i+1]). */
    const size_t nn = (size_t)n * (size_t)n;
    int64_t *cost = calloc(nn, sizeof *cost), *split = calloc(nn, sizeof *split);
    int64_t *p = malloc(sizeof *p * (size_t)(n + 1));
    if (!cost || !split || !p) {
        free(cost), free(split), free(p);
        return PT_ERROR(PT_ERR_MEMORY, "chain_matmul(): out of memory");
    }
    for (int32_t i = 0; i < n; i++) p[i] = matrices[i]->sizes[0];
    p[n] = matrices[n - 1]->sizes[1];
    for (int32_t len = 1; len < n; len++)
        for (int32_t i = 0; i + len < n; i++) {
            const int32_t j = i + len;
            cost[i * n + j] = INT64_MAX;
            for (int32_t k = i; k < j; k++) {
                const int64_t c = cost[i * n + k] + cost[(k + 1) * n + j] +
                                  p[i] * p[k + 1] * p[j + 1];
                if (c < cost[i * n + j]) cost[i * n + j] = c, split[i * n + j] = k;
            }
        }
    pt_tensor *r = chain_product(matrices, split, n, 0, n - 1), *v = NULL;
    free(cost), free(split), free(p);
    if (r) v = pt_call_view(r, 2, r->sizes);
    pt_tensor_release(r);
    return give(v, ret);
}

pt_status pt_native_chain_matmul_out(int32_t n, pt_tensor *const *matrices, pt_tensor *out,
                                     pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_chain_matmul(n, matrices, &r));
    return give_out("chain_matmul", r, out, ret);
}

/* ---------------------------------------------------------------- splits that are not views */

/* The Tensor[] result on top of the stack: each piece's view mark dropped (the unsafe splits:
 * autograd then treats a piece as a tensor of its own) or each piece cloned (the copies). */
static pt_status rework_pieces(pt_stack *stack, bool clone)
{
    pt_ivalue *v = &stack->items[stack->size - 1];
    for (int64_t i = 0; i < v->len; i++) {
        if (!clone) {
            v->tensors[i]->is_view = false;
            continue;
        }
        pt_tensor *c = pt_call_clone(v->tensors[i], PT_MEMORY_FORMAT_CONTIGUOUS);
        if (!c) return pt_error_code();
        pt_tensor_release(v->tensors[i]);
        ((pt_tensor **)v->tensors)[i] = c; /* the list is owned: split allocated it */
    }
    return PT_OK;
}

pt_status pt_native_unsafe_split_Tensor(const pt_op *op, int32_t key, uint64_t keyset,
                                        pt_stack *stack, void *ctx)
{
    PT_TRY(pt_native_split_Tensor(op, key, keyset, stack, ctx));
    return rework_pieces(stack, false);
}

pt_status pt_native_unsafe_split_with_sizes(const pt_op *op, int32_t key, uint64_t keyset,
                                            pt_stack *stack, void *ctx)
{
    PT_TRY(pt_native_split_with_sizes(op, key, keyset, stack, ctx));
    return rework_pieces(stack, false);
}

pt_status pt_native_split_copy_Tensor(const pt_op *op, int32_t key, uint64_t keyset,
                                      pt_stack *stack, void *ctx)
{
    PT_TRY(pt_native_split_Tensor(op, key, keyset, stack, ctx));
    return rework_pieces(stack, true);
}

pt_status pt_native_split_with_sizes_copy(const pt_op *op, int32_t key, uint64_t keyset,
                                          pt_stack *stack, void *ctx)
{
    PT_TRY(pt_native_split_with_sizes(op, key, keyset, stack, ctx));
    return rework_pieces(stack, true);
}

pt_status pt_native_unbind_copy_int(const pt_op *op, int32_t key, uint64_t keyset,
                                    pt_stack *stack, void *ctx)
{
    PT_TRY(pt_native_unbind_int(op, key, keyset, stack, ctx));
    return rework_pieces(stack, true);
}

/* unsafe_chunk is unsafe_split by the chunk size torch computes (ceil(size / chunks)), called
 * through the dispatcher so that its pieces record UnsafeSplitBackward0. */
pt_status pt_native_unsafe_chunk(const pt_op *op, int32_t key, uint64_t keyset, pt_stack *stack,
                                 void *ctx)
{
    PT_UNUSED(key), PT_UNUSED(keyset), PT_UNUSED(ctx);
    PT_TRY(pt_box_check_stack(op, stack, 3, 1));
    const pt_ivalue *a = stack->items + stack->size - 3;
    pt_tensor *self;
    int64_t chunks, d;
    PT_TRY(pt_unbox_tensor(op, a, 0, 0, &self));
    PT_TRY(pt_unbox_int(op, a, 1, &chunks));
    PT_TRY(pt_unbox_int(op, a, 2, &d));
    if (self->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld",
                        (long long)chunks);
    int32_t dim;
    PT_TRY(pt_wrap_dim(d, self->ndim, &dim));
    const int64_t len = self->sizes[dim];
    const int64_t size = len / chunks + (len % chunks != 0);
    pt_op *split;
    PT_TRY(pt_dispatch_find("aten::unsafe_split", "Tensor", &split));
    stack->items[stack->size - 2] = (pt_ivalue){.tag = PT_IV_INT, .i = size};
    return pt_dispatch_call(split, stack);
}

/* ---------------------------------------------------------------- in-place restriding */

pt_status pt_native_as_strided_(pt_tensor *self, int32_t size_len, const int64_t *size,
                                int32_t stride_len, const int64_t *stride,
                                const int64_t *storage_offset, pt_tensor **ret)
{
    if (size_len != stride_len)
        return PT_ERROR(PT_ERR_RUNTIME, "mismatch in length of strides and shape");
    PT_TRY(pt_tensor_set_(self, self->storage, storage_offset ? *storage_offset : self->offset,
                          size_len, size, stride));
    return pt_native_self(self, ret);
}

/* swapaxes_ (transpose_ in torch): self's sizes and strides of the two dims exchanged. */
pt_status pt_native_swapaxes_(pt_tensor *self, int64_t axis0, int64_t axis1, pt_tensor **ret)
{
    int32_t a, b;
    PT_TRY(pt_wrap_dim(axis0, self->ndim, &a));
    PT_TRY(pt_wrap_dim(axis1, self->ndim, &b));
    if (self->ndim > 0 && a != b) {
        int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
        memcpy(sizes, self->sizes, sizeof *sizes * (size_t)self->ndim);
        memcpy(strides, self->strides, sizeof *strides * (size_t)self->ndim);
        sizes[a] = self->sizes[b], sizes[b] = self->sizes[a];
        strides[a] = self->strides[b], strides[b] = self->strides[a];
        PT_TRY(pt_tensor_set_(self, self->storage, self->offset, self->ndim, sizes, strides));
    }
    return pt_native_self(self, ret);
}
