/* functions_shape.c - the formula helpers of the operators that move elements around (roll,
 * repeat, tile, unfold, take, masked_select, cross, narrow with a tensor start) and of the
 * operators whose gradient depends on an option rather than on the values (div with a rounding
 * mode, std_mean / var_mean). Same contract as functions.c: operator calls through the
 * entry points, temporaries in an arena, a new reference or NULL with the error recorded. */
#include <stdlib.h>
#include <string.h>

#include "functions_internal.h"

/* ---------------------------------------------------------------- rounding division */
/* div with a rounding mode is piecewise constant: its gradient is zero wherever it exists. */
pt_tensor *pt_ag_div_mode_backward_self(const pt_tensor *grad, const pt_tensor *other,
                                        const char *rounding_mode)
{
    if (rounding_mode) return pt_ag_zeros_like(grad);
    return pt_call_div_Tensor(grad, other);
}

pt_tensor *pt_ag_div_mode_backward_other(const pt_tensor *grad, const pt_tensor *self,
                                         const pt_tensor *other, const char *rounding_mode)
{
    if (rounding_mode) return pt_ag_zeros_like(grad);
    arena ar = {0};
    pt_tensor *a, *b, *sq, *r;
    K(a, pt_call_mul_Tensor(grad, self));
    K(sq, pt_call_mul_Tensor(other, other));
    K(b, pt_call_div_Tensor(a, sq));
    const pt_scalar minus_one = {PT_SCALAR_INT, -1, 0.0, 0.0};
    K(r, pt_call_mul_Scalar(b, &minus_one));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_div_scalar_mode_backward(const pt_tensor *grad, const pt_scalar *other,
                                          const char *rounding_mode)
{
    if (rounding_mode) return pt_ag_zeros_like(grad);
    return pt_call_div_Scalar(grad, other);
}

/* ---------------------------------------------------------------- std_mean, var_mean */
/* Either output's gradient may be undefined (NULL): the sum of the defined terms. */
static pt_tensor *sum_defined(pt_tensor *a, pt_tensor *b)
{
    if (!a || !b) return a ? a : b;
    pt_tensor *r = pt_call_add_Tensor(a, b, NULL);
    pt_tensor_release(a);
    pt_tensor_release(b);
    return r;
}

pt_tensor *pt_ag_var_mean_backward(const pt_tensor *gvar, const pt_tensor *gmean,
                                   const pt_tensor *self, int32_t nd, const int64_t *dims,
                                   const pt_scalar *correction, int32_t keepdim)
{
    pt_tensor *a = NULL, *b = NULL;
    if (gvar && !(a = pt_ag_var_backward(gvar, self, nd, dims, correction, keepdim))) return NULL;
    if (gmean && !(b = pt_ag_mean_backward(gmean, self->ndim, self->sizes, nd, dims, keepdim))) {
        pt_tensor_release(a);
        return NULL;
    }
    return sum_defined(a, b);
}

pt_tensor *pt_ag_std_mean_backward(const pt_tensor *gstd, const pt_tensor *gmean,
                                   const pt_tensor *self, const pt_tensor *std, int32_t nd,
                                   const int64_t *dims, const pt_scalar *correction,
                                   int32_t keepdim)
{
    pt_tensor *a = NULL, *b = NULL;
    if (gstd && !(a = pt_ag_std_backward(gstd, self, std, nd, dims, correction, keepdim)))
        return NULL;
    if (gmean && !(b = pt_ag_mean_backward(gmean, self->ndim, self->sizes, nd, dims, keepdim))) {
        pt_tensor_release(a);
        return NULL;
    }
    return sum_defined(a, b);
}

/* ---------------------------------------------------------------- roll, repeat, tile */
pt_tensor *pt_ag_roll_backward(const pt_tensor *grad, int32_t ns, const int64_t *shifts,
                               int32_t nd, const int64_t *dims)
{
    int64_t neg[PT_MAX_DIMS];
    if (ns > PT_MAX_DIMS) {
        PT_ERROR(PT_ERR_VALUE, "roll: too many shifts");
        return NULL;
    }
    for (int32_t i = 0; i < ns; i++) neg[i] = -shifts[i];
    return pt_call_roll(grad, ns, neg, nd, dims);
}

/* repeat tiles self: grad viewed as (r0, s0, r1, s1, ...) summed over the r's, after the
 * leading dims that repeat added are summed away. */
pt_tensor *pt_ag_repeat_backward(const pt_tensor *grad, int32_t nr, const int64_t *repeats,
                                 int32_t n, const int64_t *sizes)
{
    const int32_t lead = nr - n;
    if (lead < 0 || nr > PT_MAX_DIMS) {
        PT_ERROR(PT_ERR_RUNTIME, "repeat_backward: fewer repeats than dims");
        return NULL;
    }
    if (grad->numel == 0) return zeros_for(grad, n, sizes);
    arena ar = {0};
    pt_tensor *g = (pt_tensor *)grad, *r;
    int64_t lead_dims[PT_MAX_DIMS], split[2 * PT_MAX_DIMS], even[PT_MAX_DIMS];
    for (int32_t i = 0; i < lead; i++) lead_dims[i] = i;
    if (lead > 0) K(g, pt_call_sum_dim_IntList(grad, lead, lead_dims, 0, -1));
    if (n == 0) {
        K(r, pt_call_reshape(g, 0, NULL));
        return finish(&ar, r);
    }
    for (int32_t i = 0; i < n; i++) {
        split[2 * i] = repeats[lead + i];
        split[2 * i + 1] = sizes[i];
        even[i] = 2 * i;
    }
    K(g, pt_call_reshape(g, 2 * n, split));
    K(r, pt_call_sum_dim_IntList(g, n, even, 0, -1));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* tile pads its dims with leading ones up to self's rank, then repeats. */
pt_tensor *pt_ag_tile_backward(const pt_tensor *grad, int32_t nr, const int64_t *reps,
                               int32_t n, const int64_t *sizes)
{
    if (nr >= n) return pt_ag_repeat_backward(grad, nr, reps, n, sizes);
    int64_t padded[PT_MAX_DIMS];
    for (int32_t i = 0; i < n - nr; i++) padded[i] = 1;
    for (int32_t i = 0; i < nr; i++) padded[n - nr + i] = reps[i];
    return pt_ag_repeat_backward(grad, n, padded, n, sizes);
}

/* ---------------------------------------------------------------- unfold */
/* Window i of size `size` starts at i * step: the gradient adds every window's slice back
 * where it came from. grad's window axis (last) moves next to `dim`, the two merge, and an
 * accumulating index_put along dim with the positions i * step + j sums the overlaps. */
pt_tensor *pt_ag_unfold_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                 int64_t dimension, int64_t size, int64_t step)
{
    arena ar = {0};
    pt_tensor *g, *pos, *off, *idx, *z, *r;
    if (n == 0) {
        K(r, pt_call_reshape(grad, 0, NULL));
        return finish(&ar, r);
    }
    int64_t d = wrap(dimension, n);
    if (d < 0) return NULL;
    const int64_t windows = grad->sizes[d];
    int64_t perm[PT_MAX_DIMS + 1], shape[PT_MAX_DIMS];
    int32_t k = 0;
    for (int32_t i = 0; i <= n; i++) {
        if (i == d + 1) perm[k++] = n;
        if (i < n) perm[k++] = i;
    }
    K(g, pt_call_permute(grad, n + 1, perm));
    for (int32_t i = 0; i < n; i++) shape[i] = i == d ? windows * size : sizes[i];
    K(g, pt_call_reshape(g, n, shape));
    pt_device dev = grad->device;
    const pt_scalar s_size = {PT_SCALAR_INT, size, 0.0, 0.0};
    const pt_scalar s_wend = {PT_SCALAR_INT, windows * step, 0.0, 0.0};
    const pt_scalar s_step = {PT_SCALAR_INT, step, 0.0, 0.0};
    const pt_scalar s_zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    K(pos, pt_call_arange_start_step(&s_zero, &s_wend, &s_step, PT_INT64, -1, &dev, -1));
    K(off, pt_call_arange(&s_size, PT_INT64, -1, &dev, -1));
    K(pos, pt_call_unsqueeze(pos, 1));
    K(idx, pt_call_add_Tensor(pos, off, NULL));
    K(idx, pt_call_reshape(idx, 1, (int64_t[]){-1}));
    K(z, zeros_for(grad, n, sizes));
    pt_tensor *indices[PT_MAX_DIMS] = {0};
    indices[d] = idx;
    K(r, pt_call_index_put(z, (int32_t)d + 1, indices, g, 1));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* ---------------------------------------------------------------- take, masked_select */
pt_tensor *pt_ag_take_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                               const pt_tensor *index)
{
    arena ar = {0};
    pt_tensor *z, *flat_i, *flat_g, *r;
    int64_t numel = 1;
    for (int32_t i = 0; i < n; i++) numel *= sizes[i];
    K(z, zeros_for(grad, 1, &numel));
    K(flat_i, pt_call_reshape(index, 1, (int64_t[]){-1}));
    K(flat_g, pt_call_reshape(grad, 1, (int64_t[]){-1}));
    pt_tensor *indices[1] = {flat_i};
    K(r, pt_call_index_put(z, 1, indices, flat_g, 1));
    K(r, pt_call_reshape(r, n, sizes));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* The selected elements go back to where the (broadcast) mask is true, then the broadcast
 * is summed away. */
pt_tensor *pt_ag_masked_select_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                        const pt_tensor *mask)
{
    int64_t shape[PT_MAX_DIMS];
    const int32_t nd = n > mask->ndim ? n : mask->ndim;
    for (int32_t i = 0; i < nd; i++) {
        const int32_t a = i - (nd - n), b = i - (nd - mask->ndim);
        const int64_t sa = a >= 0 ? sizes[a] : 1, sb = b >= 0 ? mask->sizes[b] : 1;
        shape[i] = sa == 1 ? sb : sa;
    }
    arena ar = {0};
    pt_tensor *z, *m, *r;
    K(z, zeros_for(grad, nd, shape));
    K(m, pt_call_expand(mask, nd, shape, 0));
    pt_tensor *indices[1] = {m};
    K(r, pt_call_index_put(z, 1, indices, grad, 0));
    K(r, pt_ag_sum_to(r, n, sizes));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* ---------------------------------------------------------------- cross, narrow */
/* cross without dim works along the first dim of self of size 3 (the kernel's rule). */
pt_tensor *pt_ag_cross_backward(const pt_tensor *a, const pt_tensor *b, int32_t n,
                                const int64_t *self_sizes, const int64_t *dim)
{
    if (dim) return pt_call_linalg_cross(a, b, *dim);
    for (int32_t d = 0; d < n; d++)
        if (self_sizes[d] == 3) return pt_call_linalg_cross(a, b, d);
    PT_ERROR(PT_ERR_RUNTIME, "no dimension of size 3 in input");
    return NULL;
}

pt_tensor *pt_ag_narrow_tensor_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                        int64_t dim, const pt_tensor *start, int64_t length)
{
    pt_scalar s;
    if (pt_tensor_item(start, &s) != PT_OK) return NULL;
    int64_t st = s.kind == PT_SCALAR_INT || s.kind == PT_SCALAR_BOOL ? s.i : (int64_t)s.re;
    return pt_ag_narrow_backward(grad, n, sizes, dim, st, length);
}

/* ---------------------------------------------------------------- cat, stack */
/* Each input gets its slice of grad along dim. A 1-D empty input takes no part in cat (the
 * legacy rule the kernel follows), so it gets no gradient; dim wraps against the first other
 * input. */
pt_status pt_ag_cat_tensors_backward(const pt_tensor *grad, int32_t n, const int32_t *ndims,
                                     const int64_t *sizes, int64_t dim, int32_t nout,
                                     pt_tensor **outs)
{
    const int64_t *at = sizes;
    int32_t rank = -1;
    for (int32_t i = 0; i < n && rank < 0; i++) {
        if (!(ndims[i] == 1 && at[0] == 0)) rank = ndims[i];
        at += ndims[i];
    }
    const int64_t d = rank < 0 ? 0 : wrap(dim, rank);
    if (d < 0) return pt_error_code();
    int64_t offset = 0;
    at = sizes;
    for (int32_t i = 0; i < n && i < nout; i++) {
        const int64_t *sz = at;
        at += ndims[i];
        if (ndims[i] == 1 && sz[0] == 0) continue;
        outs[i] = pt_call_narrow(grad, d, offset, sz[d]);
        if (!outs[i]) return pt_error_code();
        offset += sz[d];
    }
    return PT_OK;
}

/* stack put input i at index i of a new dim: its gradient is that slice. */
pt_status pt_ag_stack_tensors_backward(const pt_tensor *grad, int32_t n, const int32_t *ndims,
                                       const int64_t *sizes, int64_t dim, int32_t nout,
                                       pt_tensor **outs)
{
    (void)sizes;
    const int64_t d = wrap(dim, n > 0 ? ndims[0] + 1 : 1);
    if (d < 0) return pt_error_code();
    for (int32_t i = 0; i < n && i < nout; i++) {
        outs[i] = pt_call_select_int(grad, d, i);
        if (!outs[i]) return pt_error_code();
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- index, index_put */
/* The saved indices unpacked into ts (NULL elements: None); released with drop_indices. */
static pt_status unpack_indices(int32_t ni, pt_saved_var *vars, pt_node *owner, pt_tensor **ts)
{
    if (ni > PT_MAX_DIMS) return PT_ERROR(PT_ERR_INDEX, "too many indices for tensor");
    for (int32_t i = 0; i < ni; i++) ts[i] = NULL;
    for (int32_t i = 0; i < ni; i++) {
        pt_status st = pt_saved_unpack(&vars[i], owner, &ts[i]);
        if (st != PT_OK) {
            for (int32_t j = 0; j < i; j++) pt_tensor_release(ts[j]);
            return st;
        }
    }
    return PT_OK;
}

static void drop_indices(int32_t ni, pt_tensor **ts)
{
    for (int32_t i = 0; i < ni; i++) pt_tensor_release(ts[i]);
}

/* index gathers: its gradient adds grad back at the indexed places (repeats accumulate). */
pt_tensor *pt_ag_index_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                int32_t ni, pt_saved_var *indices, pt_node *owner)
{
    pt_tensor *ts[PT_MAX_DIMS], *z, *r = NULL;
    if (unpack_indices(ni, indices, owner, ts) != PT_OK) return NULL;
    z = zeros_for(grad, n, sizes);
    if (z) r = pt_call_index_put(z, ni, ts, grad, 1);
    pt_tensor_release(z);
    drop_indices(ni, ts);
    return r;
}

/* index_put keeps self where it does not write; with accumulate it keeps all of it. */
pt_tensor *pt_ag_index_put_backward_self(const pt_tensor *grad, int32_t ni,
                                         pt_saved_var *indices, pt_node *owner,
                                         int32_t accumulate)
{
    if (accumulate) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    pt_tensor *ts[PT_MAX_DIMS], *z, *r = NULL;
    if (unpack_indices(ni, indices, owner, ts) != PT_OK) return NULL;
    z = zeros_for(grad, 0, NULL);
    if (z) r = pt_call_index_put(grad, ni, ts, z, 0);
    pt_tensor_release(z);
    drop_indices(ni, ts);
    return r;
}

pt_tensor *pt_ag_index_put_backward_values(const pt_tensor *grad, int32_t ni,
                                           pt_saved_var *indices, pt_node *owner)
{
    pt_tensor *ts[PT_MAX_DIMS], *r;
    if (unpack_indices(ni, indices, owner, ts) != PT_OK) return NULL;
    r = pt_call_index_Tensor(grad, ni, ts);
    drop_indices(ni, ts);
    return r;
}

/* ---------------------------------------------------------------- native_dropout */
/* The kept elements were scaled by 1 / (1 - p) in training (0 for p = 1, where none is kept)
 * and copied otherwise; train = -1 (None) means training, as torch reads it. */
pt_tensor *pt_ag_native_dropout_backward(const pt_tensor *grad, const pt_tensor *mask, double p,
                                         int32_t train)
{
    const double scale = train == 0 ? 1.0 : p == 1.0 ? 0.0 : 1.0 / (1.0 - p);
    return pt_call_native_dropout_backward(grad, mask, scale);
}
