/* functions.c - the formula helpers (functions.h) of the elementwise, shape, matmul and indexing
 * operators, the utilities the generated kernels use to save values, and the helpers the other
 * functions*.c files share (functions_internal.h). Each helper builds its result from operator
 * calls through the entry points, keeping its temporaries in a small arena released at the end.
 * The reductions' helpers are in functions_reduce.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "functions_internal.h"

/* ---------------------------------------------------------------- shared by the helper files */
/* The reduced dims as a mask over n dims: none given (nd < 0) or empty means all. */
pt_status pt_ag_reduced_mask(int32_t n, int32_t nd, const int64_t *dims, bool *mask)
{
    for (int32_t i = 0; i < n; i++) mask[i] = nd <= 0;
    for (int32_t i = 0; i < nd; i++) {
        int64_t d = wrap(dims[i], n);
        if (d < 0) return pt_error_code();
        if (n > 0) mask[d] = true;
    }
    return PT_OK;
}

/* grad with the reduced dims put back (size 1) when the reduction dropped them. */
pt_tensor *pt_ag_restore_dims(arena *a, const pt_tensor *grad, int32_t n, int32_t nd,
                              const int64_t *dims, int32_t keepdim)
{
    if (keepdim || n == 0 || grad->ndim == n) return (pt_tensor *)grad;
    bool mask[PT_MAX_DIMS];
    if (pt_ag_reduced_mask(n, nd, dims, mask) != PT_OK) return NULL;
    const pt_tensor *g = grad;
    for (int32_t d = 0; d < n; d++) {
        if (!mask[d]) continue;
        g = keep(a, pt_call_unsqueeze(g, d));
        if (!g) return NULL;
    }
    return (pt_tensor *)g;
}

/* When the helper computed its result with calls that record no history (buffers written in
 * place), the result gets a node that refuses double backward, so create_graph never silently
 * loses a term. */
pt_tensor *pt_ag_refuse_double_backward(pt_tensor *r, const char *name,
                                        const pt_tensor *input)
{
    if (!r || !pt_grad_mode_enabled() || !pt_requires_grad(input)) return r;
    pt_node *node;
    pt_status st = pt_not_implemented_node(name, 1, &input, 1, &node);
    if (st == PT_OK) {
        st = pt_set_history(r, node, 0);
        pt_node_release(node);
    }
    if (st != PT_OK) {
        pt_tensor_release(r);
        return NULL;
    }
    return r;
}

/* ---------------------------------------------------------------- utilities */
bool pt_ag_differentiable(const pt_tensor *t)
{
    const pt_dtype_info *info = pt_dtype_info_of(t->dtype);
    return info && (info->kind & (PT_KIND_FLOAT | PT_KIND_COMPLEX));
}

pt_status pt_ag_copy_ints(int32_t n, const int64_t *v, int32_t *len, int64_t **out)
{
    *len = n;
    *out = NULL;
    if (n <= 0) return PT_OK;
    *out = malloc(sizeof(int64_t) * (size_t)n);
    if (!*out) return PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory");
    memcpy(*out, v, sizeof(int64_t) * (size_t)n);
    return PT_OK;
}

pt_status pt_ag_save_copy(pt_saved_var *v, const pt_tensor *t)
{
    /* cloned through autograd, as PyTorch's self.clone(): the copy keeps t's history, so a
     * formula that reads it is differentiable again (double backward of pow_ and the like) */
    pt_tensor *c = pt_call_clone(t, -1);
    if (!c) return pt_error_code();
    pt_status st = pt_saved_save(v, c, false);
    pt_tensor_release(c);
    return st;
}

bool pt_ag_any_requires_grad(int32_t n, pt_tensor *const *ts)
{
    for (int32_t i = 0; i < n; i++)
        if (ts[i] && pt_requires_grad(ts[i])) return true;
    return false;
}

pt_status pt_ag_copy_sizes_list(int32_t n, pt_tensor *const *ts, int32_t *count, int32_t **ndims,
                                int64_t **sizes)
{
    size_t total = 0;
    for (int32_t i = 0; i < n; i++) total += (size_t)ts[i]->ndim;
    *count = n;
    *ndims = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    *sizes = malloc(sizeof(int64_t) * (total > 0 ? total : 1));
    if (!*ndims || !*sizes) {
        free(*ndims);
        free(*sizes);
        *ndims = NULL;
        *sizes = NULL;
        return PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory");
    }
    int64_t *at = *sizes;
    for (int32_t i = 0; i < n; i++) {
        (*ndims)[i] = ts[i]->ndim;
        memcpy(at, ts[i]->sizes, sizeof(int64_t) * (size_t)ts[i]->ndim);
        at += ts[i]->ndim;
    }
    return PT_OK;
}

pt_status pt_ag_save_list(int32_t n, pt_tensor *const *ts, int32_t *count, pt_saved_var **vars)
{
    *count = 0;
    *vars = calloc((size_t)(n > 0 ? n : 1), sizeof **vars);
    if (!*vars) return PT_ERROR(PT_ERR_MEMORY, "autograd: out of memory");
    for (int32_t i = 0; i < n; i++) {
        pt_status st = pt_saved_save(&(*vars)[i], ts[i], false);
        *count = i + 1;
        if (st != PT_OK) return st;
    }
    return PT_OK;
}

void pt_ag_saved_list_release(int32_t n, pt_saved_var *vars)
{
    for (int32_t i = 0; vars && i < n; i++) pt_saved_release(&vars[i]);
}

/* ---------------------------------------------------------------- shapes */
pt_tensor *pt_ag_zeros_like(const pt_tensor *grad) { return pt_call_zeros_like(grad, -1, -1, NULL, -1, -1); }

pt_tensor *pt_ag_sum_to(const pt_tensor *grad, int32_t n, const int64_t *sizes)
{
    if (grad->ndim == n && (n == 0 || memcmp(grad->sizes, sizes, sizeof(int64_t) * (size_t)n) == 0)) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    int64_t dims[PT_MAX_DIMS];
    int32_t nd = 0;
    const int32_t lead = grad->ndim - n;
    for (int32_t i = 0; i < grad->ndim; i++)
        if (i < lead || (sizes[i - lead] == 1 && grad->sizes[i] != 1)) dims[nd++] = i;
    arena ar = {0};
    pt_tensor *r = (pt_tensor *)grad;
    if (nd) K(r, pt_call_sum_dim_IntList(grad, nd, dims, 1, -1));
    K(r, pt_call_reshape(r, n, sizes));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_sum_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes, int32_t nd,
                              const int64_t *dims, int32_t keepdim)
{
    arena ar = {0};
    pt_tensor *g, *r;
    g = pt_ag_restore_dims(&ar, grad, n, nd, dims, keepdim);
    if (!g) goto fail;
    K(r, pt_call_expand(g, n, sizes, 0));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_mean_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                               int32_t nd, const int64_t *dims, int32_t keepdim)
{
    bool mask[PT_MAX_DIMS];
    if (pt_ag_reduced_mask(n, nd, dims, mask) != PT_OK) return NULL;
    int64_t count = 1;
    for (int32_t i = 0; i < n; i++)
        if (mask[i]) count *= sizes[i];
    arena ar = {0};
    pt_tensor *s, *r;
    K(s, pt_ag_sum_backward(grad, n, sizes, nd, dims, keepdim));
    pt_scalar c = {PT_SCALAR_INT, count, 0.0, 0.0};
    K(r, pt_call_div_Scalar(s, &c));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_mul_alpha(const pt_tensor *grad, const pt_scalar *alpha)
{
    if (!alpha || (alpha->kind != PT_SCALAR_COMPLEX && scalar_value(alpha) == 1.0)) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    return pt_call_mul_Scalar(grad, alpha);
}

pt_tensor *pt_ag_permute_backward(const pt_tensor *grad, int32_t n, const int64_t *dims)
{
    int64_t inv[PT_MAX_DIMS];
    for (int32_t i = 0; i < n; i++) {
        int64_t d = wrap(dims[i], n);
        if (d < 0) return NULL;
        inv[d] = i;
    }
    return pt_call_permute(grad, n, inv);
}

/* ---------------------------------------------------------------- pow */
/* x >= 0 for real x; for complex x, a real x >= 0 (imaginary part 0), as torch's pow formulas
 * decide where d(a^b)/db is 0 at a = 0. */
static pt_tensor *nonnegative_real(arena *a, const pt_tensor *x)
{
    if (!pt_ag_is_complex(x)) return pt_call_ge_Scalar(x, &S_ZERO);
    pt_tensor *re = keep(a, pt_call_real(x)), *im = re ? keep(a, pt_call_imag(x)) : NULL;
    pt_tensor *ge = im ? keep(a, pt_call_ge_Scalar(re, &S_ZERO)) : NULL;
    pt_tensor *im0 = ge ? keep(a, pt_call_eq_Scalar(im, &S_ZERO)) : NULL;
    return im0 ? pt_call_logical_and(ge, im0) : NULL;
}

pt_tensor *pt_ag_pow_backward(const pt_tensor *grad, const pt_tensor *self,
                              const pt_scalar *exponent)
{
    if (exponent->kind != PT_SCALAR_COMPLEX && scalar_value(exponent) == 0.0)
        return pt_call_zeros_like(self, -1, -1, NULL, -1, -1);
    pt_scalar em1 = *exponent;
    if (em1.kind == PT_SCALAR_FLOAT || em1.kind == PT_SCALAR_COMPLEX) em1.re -= 1.0;
    else em1 = (pt_scalar){PT_SCALAR_INT, exponent->i - 1, 0.0, 0.0};
    arena ar = {0};
    pt_tensor *p, *t, *r;
    K(p, pt_call_pow_Tensor_Scalar(self, &em1));
    K(t, pt_call_mul_Scalar(p, exponent));
    K(t, pt_call_conj(t));
    K(r, pt_call_mul_Tensor(grad, t));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_pow_backward_self(const pt_tensor *grad, const pt_tensor *self,
                                   const pt_tensor *exponent)
{
    arena ar = {0};
    pt_tensor *em1, *p, *t, *r0, *mask, *r;
    K(em1, pt_call_sub_Scalar(exponent, &S_ONE, &S_ONE));
    K(p, pt_call_pow_Tensor_Tensor(self, em1));
    K(t, pt_call_mul_Tensor(exponent, p));
    K(t, pt_call_conj(t));
    K(r0, pt_call_mul_Tensor(grad, t));
    K(mask, pt_call_eq_Scalar(exponent, &S_ZERO));
    K(r, pt_call_where_ScalarSelf(mask, &S_ZERO, r0));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_pow_backward_exponent(const pt_tensor *grad, const pt_tensor *self,
                                       const pt_tensor *exponent, const pt_tensor *result)
{
    arena ar = {0};
    pt_tensor *z, *ge, *cond, *base, *lg, *t, *w, *r;
    K(z, pt_call_eq_Scalar(self, &S_ZERO));
    K(ge, nonnegative_real(&ar, exponent));
    K(cond, pt_call_logical_and(z, ge));
    /* the log in the result's dtype: a negative real base of a complex power has one */
    K(base, pt_call_to_dtype(self, result->dtype, 0, 0, -1));
    K(lg, pt_call_log(base));
    K(t, pt_call_mul_Tensor(result, lg));
    K(t, pt_call_conj(t));
    K(w, pt_call_where_ScalarSelf(cond, &S_ZERO, t));
    K(r, pt_call_mul_Tensor(grad, w));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_pow_backward_scalar_base(const pt_tensor *grad, const pt_scalar *base,
                                          const pt_tensor *exponent, const pt_tensor *result)
{
    arena ar = {0};
    pt_tensor *t, *r;
    const double b = scalar_value(base), bi = base->kind == PT_SCALAR_COMPLEX ? base->im : 0.0;
    pt_scalar lb = s_double(log(b));
    if (bi != 0.0 || pt_ag_is_complex(result)) /* the principal complex log */
        lb = (pt_scalar){PT_SCALAR_COMPLEX, 0, log(hypot(b, bi)), atan2(bi, b)};
    K(t, pt_call_mul_Scalar(result, &lb));
    K(t, pt_call_conj(t));
    if (b == 0.0 && bi == 0.0) {
        pt_tensor *ge;
        K(ge, nonnegative_real(&ar, exponent));
        K(t, pt_call_where_ScalarSelf(ge, &S_ZERO, t));
    }
    K(r, pt_call_mul_Tensor(grad, t));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* ---------------------------------------------------------------- min / max / clamp */
pt_tensor *pt_ag_minmax_binary_backward(const pt_tensor *grad, const pt_tensor *self,
                                        const pt_tensor *other, int32_t is_max)
{
    arena ar = {0};
    pt_tensor *eq, *half, *w, *lose, *r;
    K(eq, pt_call_eq_Tensor(self, other));
    K(half, pt_call_div_Scalar(grad, &S_TWO));
    K(w, pt_call_where_self(eq, half, grad));
    K(lose, is_max ? pt_call_lt_Tensor(self, other) : pt_call_gt_Tensor(self, other));
    K(r, pt_call_masked_fill_Scalar(w, lose, &S_ZERO));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* grad where lo (self >= min) and hi (self <= max) both hold, 0 elsewhere; a missing mask holds
 * everywhere. Consumes lo and hi. */
static pt_tensor *where_in_range(const pt_tensor *grad, pt_tensor *lo, pt_tensor *hi)
{
    arena ar = {0};
    pt_tensor *mask, *r;
    if (lo) keep(&ar, lo);
    if (hi) keep(&ar, hi);
    if (!lo || !hi) {
        mask = lo ? lo : hi;
    } else {
        K(mask, pt_call_logical_and(lo, hi));
    }
    K(r, pt_call_where_ScalarOther(mask, grad, &S_ZERO));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_clamp_backward(const pt_tensor *grad, const pt_tensor *self,
                                const pt_scalar *min, const pt_scalar *max)
{
    if (!min && !max) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    pt_tensor *lo = min ? pt_call_ge_Scalar(self, min) : NULL;
    if (min && !lo) return NULL;
    pt_tensor *hi = max ? pt_call_le_Scalar(self, max) : NULL;
    if (max && !hi) {
        pt_tensor_release(lo);
        return NULL;
    }
    return where_in_range(grad, lo, hi);
}

pt_tensor *pt_ag_clamp_backward_tensor(const pt_tensor *grad, const pt_tensor *self,
                                       const pt_tensor *min, const pt_tensor *max)
{
    if (!min && !max) {
        pt_tensor_retain((pt_tensor *)grad);
        return (pt_tensor *)grad;
    }
    pt_tensor *lo = min ? pt_call_ge_Tensor(self, min) : NULL;
    if (min && !lo) return NULL;
    pt_tensor *hi = max ? pt_call_le_Tensor(self, max) : NULL;
    if (max && !hi) {
        pt_tensor_release(lo);
        return NULL;
    }
    return where_in_range(grad, lo, hi);
}

pt_tensor *pt_ag_clamp_backward_min_tensor(const pt_tensor *grad, const pt_tensor *self,
                                           const pt_tensor *min, const pt_tensor *max)
{
    arena ar = {0};
    pt_tensor *mask, *m2, *r;
    K(mask, pt_call_lt_Tensor(self, min));
    if (max) {
        K(m2, pt_call_lt_Tensor(min, max));
        K(mask, pt_call_logical_and(mask, m2));
    }
    K(r, pt_call_where_ScalarOther(mask, grad, &S_ZERO));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_clamp_backward_max_tensor(const pt_tensor *grad, const pt_tensor *self,
                                           const pt_tensor *min, const pt_tensor *max)
{
    arena ar = {0};
    pt_tensor *mask, *m2, *r;
    K(mask, pt_call_gt_Tensor(self, max));
    if (min) {
        K(m2, pt_call_lt_Tensor(max, min));
        K(mask, pt_call_logical_or(mask, m2));
    }
    K(r, pt_call_where_ScalarOther(mask, grad, &S_ZERO));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* ---------------------------------------------------------------- matmul */
/* The operands of matmul and its gradient as batched matrices (1-D operands get their dim). */
static pt_status matmul_operands(arena *a, const pt_tensor *grad, const pt_tensor *self,
                                 const pt_tensor *other, pt_tensor **g, pt_tensor **s,
                                 pt_tensor **o)
{
    *s = (pt_tensor *)self;
    *o = (pt_tensor *)other;
    *g = (pt_tensor *)grad;
    if (self->ndim == 1 && !(*s = keep(a, pt_call_unsqueeze(self, 0)))) return pt_error_code();
    if (other->ndim == 1 && !(*o = keep(a, pt_call_unsqueeze(other, 1)))) return pt_error_code();
    if (other->ndim == 1 && !(*g = keep(a, pt_call_unsqueeze(*g, -1)))) return pt_error_code();
    if (self->ndim == 1 && !(*g = keep(a, pt_call_unsqueeze(*g, -2)))) return pt_error_code();
    return PT_OK;
}

pt_tensor *pt_ag_matmul_backward_self(const pt_tensor *grad, const pt_tensor *self,
                                      const pt_tensor *other)
{
    arena ar = {0};
    pt_tensor *g, *s, *o, *ot, *r;
    if (matmul_operands(&ar, grad, self, other, &g, &s, &o) != PT_OK) goto fail;
    K(ot, pt_call_transpose_int(o, -1, -2));
    K(ot, pt_call_conj(ot));
    K(r, pt_call_matmul(g, ot));
    if (self->ndim == 1) K(r, pt_call_squeeze_dim(r, -2));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_matmul_backward_other(const pt_tensor *grad, const pt_tensor *self,
                                       const pt_tensor *other)
{
    arena ar = {0};
    pt_tensor *g, *s, *o, *st, *r;
    if (matmul_operands(&ar, grad, self, other, &g, &s, &o) != PT_OK) goto fail;
    K(st, pt_call_transpose_int(s, -1, -2));
    K(st, pt_call_conj(st));
    K(r, pt_call_matmul(st, g));
    if (other->ndim == 1) K(r, pt_call_squeeze_dim(r, -1));
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* Note [gradients of column-major operands]
 * As torch's mm_mat1_backward / mm_mat2_backward: when an operand of mm/addmm is column-major (a
 * row-major matrix seen through .t(), as linear passes its weight), its gradient is computed as
 * the transpose of a row-major product, so that it arrives column-major and, through the .t()
 * node, row-major at the weight: accumulating it into the weight's .grad is then no transposed
 * copy of the whole matrix. The values are the same product's. */
static bool column_major(int32_t n, const int64_t *sizes, const int64_t *strides)
{
    return n == 2 && strides[0] == 1 && strides[1] == sizes[0];
}

pt_tensor *pt_ag_mm_mat1_backward(const pt_tensor *grad, const pt_tensor *mat2, int32_t n,
                                  const int64_t *sizes, int32_t ns, const int64_t *strides)
{
    arena ar = {0};
    pt_tensor *a, *b, *r;
    if (ns == n && column_major(n, sizes, strides)) { /* (mat2.conj() @ grad.t()).t() */
        K(a, pt_call_conj(mat2));
        K(b, pt_call_t(grad));
        K(r, pt_call_mm(a, b));
        K(r, pt_call_t(r));
    } else { /* grad @ mat2.t().conj() */
        K(b, pt_call_t(mat2));
        K(b, pt_call_conj(b));
        K(r, pt_call_mm(grad, b));
    }
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_mm_mat2_backward(const pt_tensor *grad, const pt_tensor *mat1, int32_t n,
                                  const int64_t *sizes, int32_t ns, const int64_t *strides)
{
    arena ar = {0};
    pt_tensor *a, *b, *r;
    if (ns == n && column_major(n, sizes, strides)) { /* (grad.t() @ mat1.conj()).t() */
        K(a, pt_call_t(grad));
        K(b, pt_call_conj(mat1));
        K(r, pt_call_mm(a, b));
        K(r, pt_call_t(r));
    } else { /* mat1.t().conj() @ grad */
        K(a, pt_call_t(mat1));
        K(a, pt_call_conj(a));
        K(r, pt_call_mm(a, grad));
    }
    return finish(&ar, r);
fail:
    return finish(&ar, NULL);
}

/* ---------------------------------------------------------------- indexing views */
/* zeros(sizes) with `grad` copied into the part `view` selects. Under create_graph the copy is
 * recorded: the zeros get a CopySlices history (Note [view tracking]), whose backward reads the
 * same part of the gradient back, so these formulas are differentiable again. Otherwise the copy
 * runs below autograd. */
typedef pt_tensor *(*view_fn)(const pt_tensor *z, const void *ctx);

static pt_tensor *scatter_into_zeros(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                     view_fn view, const void *ctx)
{
    const bool record = pt_grad_mode_enabled() && pt_requires_grad(grad);
    const uint64_t saved = record ? 0 : pt_below_autograd_begin();
    pt_tensor *z = zeros_for(grad, n, sizes);
    pt_tensor *v = z ? view(z, ctx) : NULL;
    pt_tensor *c = v ? pt_call_copy_(v, grad, 0) : NULL;
    if (!record) pt_below_autograd_end(saved);
    pt_tensor_release(c);
    pt_tensor_release(v);
    if (!c) {
        pt_tensor_release(z);
        return NULL;
    }
    return z;
}

typedef struct {
    int64_t dim, a, b, step;
    const int64_t *start, *end;
} view_args;

static pt_tensor *select_view(const pt_tensor *z, const void *ctx)
{
    const view_args *v = ctx;
    return pt_call_select_int(z, v->dim, v->a);
}
static pt_tensor *slice_view(const pt_tensor *z, const void *ctx)
{
    const view_args *v = ctx;
    return pt_call_slice_Tensor(z, v->dim, v->start, v->end, v->step);
}
static pt_tensor *narrow_view(const pt_tensor *z, const void *ctx)
{
    const view_args *v = ctx;
    return pt_call_narrow(z, v->dim, v->a, v->b);
}

pt_tensor *pt_ag_select_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                 int64_t dim, int64_t index)
{
    view_args v = {dim, index, 0, 1, NULL, NULL};
    return scatter_into_zeros(grad, n, sizes, select_view, &v);
}

pt_tensor *pt_ag_slice_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                int64_t dim, const int64_t *start, const int64_t *end,
                                int64_t step)
{
    view_args v = {dim, 0, 0, step, start, end};
    return scatter_into_zeros(grad, n, sizes, slice_view, &v);
}

pt_tensor *pt_ag_narrow_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                 int64_t dim, int64_t start, int64_t length)
{
    view_args v = {dim, start, length, 1, NULL, NULL};
    return scatter_into_zeros(grad, n, sizes, narrow_view, &v);
}

pt_tensor *pt_ag_index_select_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                       int64_t dim, const pt_tensor *index)
{
    if (n == 0) return pt_ag_sum_to(grad, 0, sizes);
    int64_t d = wrap(dim, n);
    if (d < 0) return NULL;
    arena ar = {0};
    pt_tensor *idx, *z, *r;
    int64_t shape[PT_MAX_DIMS];
    for (int32_t i = 0; i < grad->ndim; i++) shape[i] = i == d ? -1 : 1;
    const uint64_t saved = pt_below_autograd_begin();
    idx = keep(&ar, pt_call_reshape(index, grad->ndim, shape));
    idx = idx ? keep(&ar, pt_call_expand(idx, grad->ndim, grad->sizes, 0)) : NULL;
    z = idx ? keep(&ar, zeros_for(grad, n, sizes)) : NULL;
    r = z ? keep(&ar, pt_call_scatter_add(z, d, idx, grad)) : NULL;
    pt_below_autograd_end(saved);
    if (!r) goto fail;
    return pt_ag_refuse_double_backward(finish(&ar, r), "index_select_backward", grad);
fail:
    return finish(&ar, NULL);
}

pt_tensor *pt_ag_gather_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                 int64_t dim, const pt_tensor *index)
{
    arena ar = {0};
    pt_tensor *z, *r;
    const uint64_t saved = pt_below_autograd_begin();
    z = keep(&ar, zeros_for(grad, n, sizes));
    r = z ? keep(&ar, pt_call_scatter_add(z, dim, index, grad)) : NULL;
    pt_below_autograd_end(saved);
    if (!r) goto fail;
    return pt_ag_refuse_double_backward(finish(&ar, r), "gather_backward", grad);
fail:
    return finish(&ar, NULL);
}
