/* composites.c - operators that PyTorch writes as compositions of others, so that the graph
 * autograd records (the node names a user reads from grad_fn and next_functions) is PyTorch's.
 *
 * rsub is sub with its operands swapped; its overloads have derivative entries of their own
 * (RsubBackward0, RsubBackward1), so the call below autograd is sub's kernel, not a recorded sub.
 *
 * matmul keeps its own kernel (csrc/kernels/linalg.c) for calls that record nothing; a call that
 * records history is decomposed at the Autograd key as PyTorch decomposes every call (Note
 * [matmul's decomposition]), so its graph holds PyTorch's nodes: DotBackward0, MvBackward0,
 * MmBackward0, BmmBackward0 and the views and copies around them.
 */
#include <string.h>

#include "autograd.h"
#include "native.h"

/* ---------------------------------------------------------------- rsub */
/* A Scalar as a 0-d CPU wrapped-number tensor (Note [wrapped numbers] in pytensor.h), the form
 * in which sub takes it. */
static pt_status wrapped_number(const pt_scalar *s, pt_tensor **out)
{
    if (!s) return PT_ERROR(PT_ERR_TYPE, "rsub(): argument 'other' must be a Number, not None");
    int32_t dtype;
    switch (s->kind) {
    case PT_SCALAR_BOOL: dtype = PT_BOOL; break;
    case PT_SCALAR_INT: dtype = PT_INT64; break;
    case PT_SCALAR_COMPLEX: dtype = PT_COMPLEX128; break;
    default: dtype = PT_FLOAT64; break;
    }
    const pt_device cpu = {PT_DEV_CPU, -1};
    pt_tensor *t = NULL;
    PT_TRY(pt_tensor_empty(0, NULL, dtype, cpu, &t));
    const pt_status st = pt_tensor_fill_(t, s);
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    pt_tensor_set_wrapped_number(t, 1);
    *out = t;
    return PT_OK;
}

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

pt_status pt_native_rsub_Tensor(const pt_tensor *self, const pt_tensor *other,
                                const pt_scalar *alpha, pt_tensor **ret)
{
    return returned(pt_call_sub_Tensor(other, self, alpha), ret);
}

pt_status pt_native_rsub_Scalar(const pt_tensor *self, const pt_scalar *other,
                                const pt_scalar *alpha, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(wrapped_number(other, &w));
    pt_tensor *r = pt_call_sub_Tensor(w, self, alpha);
    pt_tensor_release(w);
    return returned(r, ret);
}

/* ---------------------------------------------------------------- matmul */
/* Note [matmul's decomposition]
 * By the operands' dimensions (a is self, b is other):
 *   1-D x 1-D  dot;   2-D x 1-D  mv;   1-D x 2-D  a.unsqueeze(0).mm(b).squeeze(0);   2-D x 2-D  mm.
 *   One operand of 3 or more dimensions and the other of 1 or 2: "folded" when the smaller one
 *   requires grad (its gradient is then one product rather than a batch summed afterwards) or
 *   when the larger one's batch dimensions flatten into its rows without a copy (never for a
 *   2-D a, whose folded product would need a transposed copy). Folding makes the larger operand
 *   (b.mT() when b is the larger) a matrix by reshape, multiplies by mm or mv and views the
 *   product in the output's shape (_unsafe_view); when b was the larger, the product is
 *   transposed back and made contiguous.
 *   Otherwise both are expanded to the broadcast batch, reshaped to 3-D (a 1-D b to a column)
 *   and multiplied by bmm; the product is viewed in the output's shape.
 * Each step is an operator call through the dispatcher, so each records its own node. */

static int64_t product(int32_t n, const int64_t *sizes)
{
    int64_t p = 1;
    for (int32_t i = 0; i < n; i++) p *= sizes[i];
    return p;
}

/* The larger operand as the matrix it folds into: big's sizes and strides, its last two
 * swapped when it is b (b.mT()). */
static bool should_fold(const pt_tensor *a, const pt_tensor *b)
{
    const bool a_larger = a->ndim >= b->ndim;
    const pt_tensor *big = a_larger ? a : b;
    const int32_t small_dim = a_larger ? b->ndim : a->ndim;
    if (big->ndim < 3 || small_dim < 1 || small_dim > 2) return false;
    if (pt_requires_grad(a_larger ? b : a)) return true;
    if (a->ndim == 2) return false;
    if (pt_tensor_numel(big) == 0) return true;
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    memcpy(sizes, big->sizes, (size_t)big->ndim * sizeof *sizes);
    memcpy(strides, big->strides, (size_t)big->ndim * sizeof *strides);
    if (!a_larger) {
        const int32_t d = big->ndim;
        int64_t t = sizes[d - 1];
        sizes[d - 1] = sizes[d - 2];
        sizes[d - 2] = t;
        t = strides[d - 1];
        strides[d - 1] = strides[d - 2];
        strides[d - 2] = t;
    }
    for (int32_t i = 0; i < big->ndim - 2; i++)
        if (strides[i] != strides[i + 1] * sizes[i + 1]) return false;
    return true;
}

/* Takes r (a new reference or NULL with the error set) as the next step of a chain: releases
 * the previous step *cur and makes r the current one. */
static bool step(pt_tensor **cur, pt_tensor *r)
{
    pt_tensor_release(*cur);
    *cur = r;
    return r != NULL;
}

/* x made contiguous as PyTorch's contiguous() is, a clone when it is not already. */
static pt_tensor *contiguous_clone(pt_tensor *x)
{
    if (pt_tensor_is_contiguous(x, PT_MEMORY_FORMAT_CONTIGUOUS)) {
        pt_tensor_retain(x);
        return x;
    }
    return pt_call_clone(x, PT_MEMORY_FORMAT_CONTIGUOUS);
}

static pt_status matmul_folded(const pt_tensor *a, const pt_tensor *b, pt_tensor **ret)
{
    const bool transpose = b->ndim > a->ndim;
    pt_tensor *t1 = NULL, *t2 = NULL, *out = NULL;
    pt_status st = PT_ERR_RUNTIME;
    if (transpose) {
        if (!(t1 = pt_call_transpose_int(b, -2, -1))) goto done;
        if (a->ndim == 2 && !(t2 = pt_call_t(a))) goto done;
    }
    const pt_tensor *big = transpose ? t1 : a;
    const pt_tensor *small = t2 ? t2 : transpose ? a : b;
    int64_t shape[PT_MAX_DIMS];
    int32_t nd = big->ndim - 1;
    memcpy(shape, big->sizes, (size_t)nd * sizeof *shape);
    const int64_t rows[2] = {product(nd, shape), big->sizes[nd]};
    const bool matrix = small->ndim == 2;
    if (matrix) shape[nd++] = small->sizes[1];
    if (!step(&out, pt_call_reshape(big, 2, rows))) goto done;
    if (!step(&out, matrix ? pt_call_mm(out, small) : pt_call_mv(out, small))) goto done;
    if (!step(&out, pt_call__unsafe_view(out, nd, shape))) goto done;
    if (matrix && transpose) {
        if (!step(&out, pt_call_transpose_int(out, -2, -1))) goto done;
        if (!step(&out, contiguous_clone(out))) goto done;
    }
    st = PT_OK;
done:
    if (st != PT_OK) st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    pt_tensor_release(t1);
    pt_tensor_release(t2);
    if (st == PT_OK) *ret = out;
    else pt_tensor_release(out);
    return st;
}

static pt_status matmul_batched(const pt_tensor *a, const pt_tensor *b, pt_tensor **ret)
{
    const int64_t n = a->ndim > 1 ? a->sizes[a->ndim - 2] : 1, m1 = a->sizes[a->ndim - 1];
    const int64_t m2 = b->ndim > 1 ? b->sizes[b->ndim - 2] : b->sizes[0];
    const int64_t p = b->ndim > 1 ? b->sizes[b->ndim - 1] : 1;
    const int32_t na = a->ndim > 2 ? a->ndim - 2 : 0, nb = b->ndim > 2 ? b->ndim - 2 : 0;
    int64_t batch[PT_MAX_DIMS + 2], out_shape[PT_MAX_DIMS + 2];
    int32_t nbatch = 0;
    PT_TRY(pt_broadcast_sizes(na, a->sizes, nb, b->sizes, &nbatch, batch));
    const int64_t count = product(nbatch, batch);
    int32_t nout = nbatch;
    memcpy(out_shape, batch, (size_t)nbatch * sizeof *batch);
    if (a->ndim > 1) out_shape[nout++] = n;
    if (b->ndim > 1) out_shape[nout++] = p;

    pt_tensor *x = NULL, *y = NULL;
    pt_status st = PT_ERR_RUNTIME;
    batch[nbatch] = n;
    batch[nbatch + 1] = m1;
    const int64_t x3[3] = {count, n, m1};
    if (!step(&x, pt_call_expand(a, nbatch + 2, batch, 0))) goto done;
    if (!step(&x, pt_call_reshape(x, 3, x3))) goto done;
    const bool vector = b->ndim == 1;
    batch[nbatch] = m2;
    batch[nbatch + 1] = p;
    if (!step(&y, pt_call_expand(b, nbatch + (vector ? 1 : 2), batch, 0))) goto done;
    if (vector) {
        const int64_t y2[2] = {count, m2};
        if (!step(&y, pt_call_reshape(y, 2, y2))) goto done;
        if (!step(&y, pt_call_unsqueeze(y, 2))) goto done;
    } else {
        const int64_t y3[3] = {count, m2, p};
        if (!step(&y, pt_call_reshape(y, 3, y3))) goto done;
    }
    if (!step(&x, pt_call_bmm(x, y))) goto done;
    if (vector && !step(&x, pt_call_squeeze_dim(x, -1))) goto done;
    if (!step(&x, pt_call__unsafe_view(x, nout, out_shape))) goto done;
    st = PT_OK;
done:
    if (st != PT_OK) st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    pt_tensor_release(y);
    if (st == PT_OK) *ret = x;
    else pt_tensor_release(x);
    return st;
}

static pt_status matmul_decomposed(const pt_tensor *a, const pt_tensor *b, pt_tensor **ret)
{
    if (a->ndim == 1 && b->ndim == 1) return returned(pt_call_dot(a, b), ret);
    if (a->ndim == 2 && b->ndim == 1) return returned(pt_call_mv(a, b), ret);
    if (a->ndim == 2 && b->ndim == 2) return returned(pt_call_mm(a, b), ret);
    if (a->ndim == 1 && b->ndim == 2) {
        pt_tensor *r = NULL;
        bool ok = step(&r, pt_call_unsqueeze(a, 0)) && step(&r, pt_call_mm(r, b)) &&
                  step(&r, pt_call_squeeze_dim(r, 0));
        return ok ? returned(r, ret) : returned(NULL, ret);
    }
    return should_fold(a, b) ? matmul_folded(a, b, ret) : matmul_batched(a, b, ret);
}

pt_status pt_native_matmul_autograd(const pt_tensor *self, const pt_tensor *other,
                                    pt_tensor **ret)
{
    if (!self || !other)
        return PT_ERROR(PT_ERR_VALUE, "matmul: arguments must be tensors, got NULL");
    if (!(pt_grad_mode_enabled() && (pt_requires_grad(self) || pt_requires_grad(other)))) {
        const uint64_t saved = pt_below_autograd_begin();
        pt_tensor *r = pt_call_matmul(self, other);
        pt_below_autograd_end(saved);
        return returned(r, ret);
    }
    if (self->ndim == 0 || other->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "both arguments to matmul need to be at least 1D, but they are %dD and "
                        "%dD",
                        (int)self->ndim, (int)other->ndim);
    return matmul_decomposed(self, other, ret);
}

/* ---------------------------------------------------------------- cdist */
/* Note [cdist's euclidean path]
 * PyTorch's cdist computes p=2 distances by matrix products (_euclidean_dist, whose node is
 * EuclideanDistBackward0) when asked to (compute_mode 1) or by default when either operand has
 * more than 25 rows, and views the result in the output's shape (ViewBackward0); every other
 * call, and any with an empty operand, is _cdist_forward (CdistBackward0). Batched operands are
 * expanded to the broadcast batch and flattened to 3-D first. Calls that record nothing keep
 * cdist's kernel. */
static bool euclidean_path(const pt_tensor *x1, const pt_tensor *x2, double p,
                           const int64_t *mode)
{
    if (x1->ndim < 2 || x2->ndim < 2 || p != 2.0) return false;
    if (pt_tensor_numel(x1) == 0 || pt_tensor_numel(x2) == 0) return false;
    const int64_t m = mode ? *mode : 0;
    return m == 1 || (m == 0 && (x1->sizes[x1->ndim - 2] > 25 || x2->sizes[x2->ndim - 2] > 25));
}

/* x expanded to batch + its last two sizes and flattened to (count, rows, cols). */
static pt_tensor *batch_flat(const pt_tensor *x, int32_t nbatch, const int64_t *batch,
                             int64_t count)
{
    int64_t sizes[PT_MAX_DIMS + 2];
    memcpy(sizes, batch, (size_t)nbatch * sizeof *sizes);
    sizes[nbatch] = x->sizes[x->ndim - 2];
    sizes[nbatch + 1] = x->sizes[x->ndim - 1];
    const int64_t flat[3] = {count, sizes[nbatch], sizes[nbatch + 1]};
    pt_tensor *r = NULL;
    if (!step(&r, pt_call_expand(x, nbatch + 2, sizes, 0))) return NULL;
    step(&r, pt_call_reshape(r, 3, flat));
    return r;
}

static pt_status cdist_euclidean(const pt_tensor *x1, const pt_tensor *x2, pt_tensor **ret)
{
    int64_t batch[PT_MAX_DIMS + 2];
    int32_t nbatch = 0;
    PT_TRY(pt_broadcast_sizes(x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, &nbatch, batch));
    const int64_t count = product(nbatch, batch);
    int64_t shape[PT_MAX_DIMS + 2];
    memcpy(shape, batch, (size_t)nbatch * sizeof *shape);
    shape[nbatch] = x1->sizes[x1->ndim - 2];
    shape[nbatch + 1] = x2->sizes[x2->ndim - 2];
    pt_tensor *a = NULL, *b = NULL, *d = NULL;
    pt_status st = PT_ERR_RUNTIME;
    if (count != 1) {
        if (!(a = batch_flat(x1, nbatch, batch, count))) goto done;
        if (!(b = batch_flat(x2, nbatch, batch, count))) goto done;
    }
    if (!step(&d, pt_call__euclidean_dist(a ? a : x1, b ? b : x2))) goto done;
    if (!step(&d, pt_call_view(d, nbatch + 2, shape))) goto done;
    st = PT_OK;
done:
    if (st != PT_OK) st = pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    pt_tensor_release(a);
    pt_tensor_release(b);
    if (st == PT_OK) *ret = d;
    else pt_tensor_release(d);
    return st;
}

pt_status pt_native_cdist_autograd(const pt_tensor *x1, const pt_tensor *x2, double p,
                                   const int64_t *compute_mode, pt_tensor **ret)
{
    if (!x1 || !x2) return PT_ERROR(PT_ERR_VALUE, "cdist: arguments must be tensors, got NULL");
    if (!(pt_grad_mode_enabled() && (pt_requires_grad(x1) || pt_requires_grad(x2)))) {
        const uint64_t saved = pt_below_autograd_begin();
        pt_tensor *r = pt_call_cdist(x1, x2, p, compute_mode);
        pt_below_autograd_end(saved);
        return returned(r, ret);
    }
    if (euclidean_path(x1, x2, p, compute_mode)) return cdist_euclidean(x1, x2, ret);
    return returned(pt_call__cdist_forward(x1, x2, p, compute_mode), ret);
}

/* The distances of _euclidean_dist, by cdist's kernel in its matrix-product mode. */
pt_status pt_native__euclidean_dist(const pt_tensor *x1, const pt_tensor *x2, pt_tensor **ret)
{
    const int64_t use_mm = 1;
    return returned(pt_call__cdist_forward(x1, x2, 2.0, &use_mm), ret);
}
