/* shape_more.c - torch's composite shape and product operators (shape_more.yaml) and the few of
 * them that move data themselves.
 *
 * Most operators here are compositions: each step is an operator call through the dispatcher
 * (pt_call_*), so that a call which records history records torch's nodes (ravel is contiguous
 * then view, tensordot is permute, reshape, mm and reshape, take_along_dim is gather of
 * broadcast operands). The operators torch differentiates themselves (trace, diag_embed, rot90
 * and the *_scatter family, formulas in derivatives_shape.yaml) are registered at
 * CompositeExplicitAutograd and run below autograd; they still move data through the core's
 * copy machinery: diag_embed copies its input into a diagonal view of a zero result, a scatter
 * clones self and copies src into the view it names. The operators that compute or gather by
 * indices are in shape_index.c, the joins into products and the Tensor[] splits in
 * shape_products.c, einsum in shape_einsum.c.
 *
 * Every function returns a new reference through its out-parameter; intermediate results are
 * released before returning.
 */
#include <stdlib.h>
#include <string.h>

#include "shape_more.h"

/* ---------------------------------------------------------------- helpers */



/* t, a view of a temporary nobody else holds, made a tensor of its own (as the result of an
 * operator whose schema returns no alias): autograd must not track it as a view. */
static pt_tensor *unviewed(pt_tensor *t)
{
    if (!t) return NULL;
    if (t->view_base) pt_tensor_release(t->view_base);
    t->view_base = NULL;
    t->is_view = false;
    return t;
}

static bool is_complex(int32_t dtype) { return dtype == PT_COMPLEX64 || dtype == PT_COMPLEX128; }

static void release_all(int32_t n, pt_tensor **ts)
{
    for (int32_t i = 0; i < n; i++) pt_tensor_release(ts[i]);
    free(ts);
}

/* f applied to each of the n tensors (new references), for the stacking functions. */
static pt_status map_tensors(int32_t n, pt_tensor *const *ts, pt_tensor *(*f)(const pt_tensor *),
                             pt_tensor ***out)
{
    pt_tensor **r = calloc((size_t)(n > 0 ? n : 1), sizeof *r);
    if (!r) return PT_ERROR(PT_ERR_MEMORY, "out of memory for %d tensors", (int)n);
    for (int32_t i = 0; i < n; i++) {
        if (!ts[i] || !(r[i] = f(ts[i]))) {
            const pt_status st = ts[i] ? pt_error_code()
                                       : PT_ERROR(PT_ERR_TYPE, "expected a Tensor at position %d",
                                                  (int)i);
            release_all(i, r);
            return st;
        }
    }
    *out = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- concat, atleast, stacks */

pt_status pt_native_concat(int32_t n, pt_tensor *const *tensors, int64_t dim, pt_tensor **ret)
{
    return give(pt_call_cat(n, tensors, dim), ret);
}

pt_status pt_native_concat_out(int32_t n, pt_tensor *const *tensors, int64_t dim, pt_tensor *out,
                               pt_tensor **ret)
{
    return give(pt_call_cat_out(n, tensors, dim, out), ret);
}


/* torch's atleast_Nd: a 0-d tensor is reshaped, a 1-d one unsqueezed at the front (atleast_3d
 * also at the back, and a 2-d one there), a larger one returned as it is. */
static pt_tensor *atleast_1d(const pt_tensor *t)
{
    static const int64_t one[1] = {1};
    return t->ndim == 0 ? pt_call_reshape(t, 1, one) : self_ref(t);
}

static pt_tensor *atleast_2d(const pt_tensor *t)
{
    static const int64_t one[2] = {1, 1};
    if (t->ndim == 0) return pt_call_reshape(t, 2, one);
    return t->ndim == 1 ? pt_call_unsqueeze(t, 0) : self_ref(t);
}

static pt_tensor *atleast_3d(const pt_tensor *t)
{
    static const int64_t one[3] = {1, 1, 1};
    if (t->ndim == 0) return pt_call_reshape(t, 3, one);
    if (t->ndim == 2) return pt_call_unsqueeze(t, -1);
    if (t->ndim != 1) return self_ref(t);
    pt_tensor *a = pt_call_unsqueeze(t, 0);
    if (!a) return NULL;
    pt_tensor *b = pt_call_unsqueeze(a, -1);
    pt_tensor_release(a);
    return b;
}

pt_status pt_native_atleast_1d(const pt_tensor *self, pt_tensor **ret)
{
    return give(atleast_1d(self), ret);
}

pt_status pt_native_atleast_2d(const pt_tensor *self, pt_tensor **ret)
{
    return give(atleast_2d(self), ret);
}

pt_status pt_native_atleast_3d(const pt_tensor *self, pt_tensor **ret)
{
    return give(atleast_3d(self), ret);
}

/* column_stack's pieces: tensors of at most one dim become columns. */
static pt_tensor *as_column(const pt_tensor *t)
{
    if (t->ndim > 1) return self_ref(t);
    const int64_t shape[2] = {t->numel, 1};
    return pt_call_reshape(t, 2, shape);
}

enum { STACK_H, STACK_V, STACK_D, STACK_COLUMN };

static pt_status stacked(int kind, int32_t n, pt_tensor *const *tensors, pt_tensor *out,
                         pt_tensor **ret)
{
    static const char *const names[] = {"hstack", "vstack", "dstack", "column_stack"};
    static pt_tensor *(*const maps[])(const pt_tensor *) = {atleast_1d, atleast_2d, atleast_3d,
                                                            as_column};
    if (n == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "%s expects a non-empty TensorList", names[kind]);
    pt_tensor **ts = NULL;
    PT_TRY(map_tensors(n, tensors, maps[kind], &ts));
    int64_t dim = kind == STACK_V ? 0 : kind == STACK_D ? 2 : 1;
    if (kind == STACK_H && ts[0]->ndim == 1) dim = 0;
    pt_tensor *r = out ? pt_call_cat_out(n, ts, dim, out) : pt_call_cat(n, ts, dim);
    release_all(n, ts);
    return give(r, ret);
}

pt_status pt_native_hstack(int32_t n, pt_tensor *const *tensors, pt_tensor **ret)
{
    return stacked(STACK_H, n, tensors, NULL, ret);
}

pt_status pt_native_hstack_out(int32_t n, pt_tensor *const *tensors, pt_tensor *out,
                               pt_tensor **ret)
{
    return stacked(STACK_H, n, tensors, out, ret);
}

pt_status pt_native_vstack(int32_t n, pt_tensor *const *tensors, pt_tensor **ret)
{
    return stacked(STACK_V, n, tensors, NULL, ret);
}

pt_status pt_native_vstack_out(int32_t n, pt_tensor *const *tensors, pt_tensor *out,
                               pt_tensor **ret)
{
    return stacked(STACK_V, n, tensors, out, ret);
}

pt_status pt_native_dstack(int32_t n, pt_tensor *const *tensors, pt_tensor **ret)
{
    return stacked(STACK_D, n, tensors, NULL, ret);
}

pt_status pt_native_dstack_out(int32_t n, pt_tensor *const *tensors, pt_tensor *out,
                               pt_tensor **ret)
{
    return stacked(STACK_D, n, tensors, out, ret);
}

pt_status pt_native_column_stack(int32_t n, pt_tensor *const *tensors, pt_tensor **ret)
{
    return stacked(STACK_COLUMN, n, tensors, NULL, ret);
}

pt_status pt_native_column_stack_out(int32_t n, pt_tensor *const *tensors, pt_tensor *out,
                                     pt_tensor **ret)
{
    return stacked(STACK_COLUMN, n, tensors, out, ret);
}

/* ---------------------------------------------------------------- movedim and friends */

pt_status pt_native_movedim_intlist(const pt_tensor *self, int32_t ns, const int64_t *source,
                                    int32_t nd, const int64_t *destination, pt_tensor **ret)
{
    char a[PT_SHAPE_CHARS], b[PT_SHAPE_CHARS];
    if (ns != nd) {
        pt_format_ints(a, sizeof a, ns, source);
        pt_format_ints(b, sizeof b, nd, destination);
        return PT_ERROR(PT_ERR_RUNTIME, "movedim: Invalid source or destination dims: source (%s "
                        "dims) should contain the same number of dims as destination (%s dims)",
                        a, b);
    }
    const int32_t ndim = self->ndim, span = ndim > 0 ? ndim : 1;
    bool src_seen[PT_MAX_DIMS] = {false}, dst_seen[PT_MAX_DIMS] = {false};
    int64_t perm[PT_MAX_DIMS];
    for (int32_t i = 0; i < span; i++) perm[i] = -1;
    for (int32_t i = 0; i < ns; i++) {
        int32_t s, d;
        PT_TRY(pt_wrap_dim(source[i], ndim, &s));
        PT_TRY(pt_wrap_dim(destination[i], ndim, &d));
        const char *which = src_seen[s] ? "source" : dst_seen[d] ? "destination" : NULL;
        if (which) {
            pt_format_ints(a, sizeof a, ns, src_seen[s] ? source : destination);
            return PT_ERROR(PT_ERR_RUNTIME, "movedim: repeated dim in `%s` (%s)", which, a);
        }
        src_seen[s] = dst_seen[d] = true;
        perm[d] = s;
    }
    if (ndim == 0) return give(self_ref(self), ret);
    /* The dims not moved keep their order in the places left free. */
    int32_t next = 0;
    for (int32_t d = 0; d < ndim; d++) {
        if (perm[d] >= 0) continue;
        while (src_seen[next]) next++;
        perm[d] = next++;
    }
    return give(pt_call_permute(self, ndim, perm), ret);
}

pt_status pt_native_movedim_int(const pt_tensor *self, int64_t source, int64_t destination,
                                pt_tensor **ret)
{
    return pt_native_movedim_intlist(self, 1, &source, 1, &destination, ret);
}

pt_status pt_native_swapaxes(const pt_tensor *self, int64_t axis0, int64_t axis1, pt_tensor **ret)
{
    return give(pt_call_transpose_int(self, axis0, axis1), ret);
}

/* torch's ravel: contiguous() then view(-1), so a copy's node is CloneBackward0's. */
pt_status pt_native_ravel(const pt_tensor *self, pt_tensor **ret)
{
    pt_tensor *c = pt_call_contiguous(self, PT_MEMORY_FORMAT_CONTIGUOUS);
    if (!c) return pt_error_code();
    static const int64_t flat[1] = {-1};
    pt_tensor *r = pt_call_view(c, 1, flat);
    pt_tensor_release(c);
    return give(r, ret);
}

pt_status pt_native_unflatten_int(const pt_tensor *self, int64_t dim, int32_t n,
                                  const int64_t *sizes, pt_tensor **ret)
{
    int32_t d;
    PT_TRY(pt_wrap_dim(dim, self->ndim, &d));
    if (n == 0) return PT_ERROR(PT_ERR_RUNTIME, "unflatten: sizes must be non-empty");
    if (self->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "unflatten: Provided sizes don't multiply up to the size "
                        "of dim %lld (1) in the input tensor", (long long)dim);
    if (self->ndim - 1 + n > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "unflatten: the result would have %d dims (at most %d)",
                        (int)(self->ndim - 1 + n), (int)PT_MAX_DIMS);
    const int64_t len = self->sizes[d];
    int64_t shape[PT_MAX_DIMS], known = 1;
    int32_t infer = -1, nd = 0;
    for (int32_t i = 0; i < d; i++) shape[nd++] = self->sizes[i];
    for (int32_t i = 0; i < n; i++) {
        if (sizes[i] == -1) {
            if (infer >= 0) return PT_ERROR(PT_ERR_RUNTIME, "only one dimension can be inferred");
            infer = nd;
        } else {
            known *= sizes[i];
        }
        shape[nd++] = sizes[i];
    }
    for (int32_t i = d + 1; i < self->ndim; i++) shape[nd++] = self->sizes[i];
    bool ok = infer >= 0 ? (known != 0 && len % known == 0) || (known == 0 && len == 0)
                         : known == len;
    if (!ok) {
        char s[PT_SHAPE_CHARS];
        pt_format_ints(s, sizeof s, n, sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "unflatten: Provided sizes %s don't multiply up to the "
                        "size of dim %lld (%lld) in the input tensor", s, (long long)dim,
                        (long long)len);
    }
    if (infer >= 0) shape[infer] = known != 0 ? len / known : 0;
    return give(pt_call_view(self, nd, shape), ret);
}

pt_status pt_native_broadcast_to(const pt_tensor *self, int32_t n, const int64_t *size,
                                 pt_tensor **ret)
{
    return give(pt_call_expand(self, n, size, 0), ret);
}

pt_status pt_native_adjoint(const pt_tensor *self, pt_tensor **ret)
{
    if (self->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "tensor.adjoint() is only supported on matrices or "
                        "batches of matrices. Got %d-D tensor.", (int)self->ndim);
    pt_tensor *t = pt_call_transpose_int(self, -2, -1);
    if (!t || !is_complex(self->dtype)) return give(t, ret);
    pt_tensor *r = pt_call_conj(t);
    pt_tensor_release(t);
    return give(r, ret);
}

pt_status pt_native_flipud(const pt_tensor *self, pt_tensor **ret)
{
    if (self->ndim < 1) return PT_ERROR(PT_ERR_RUNTIME, "Input must be >= 1-d.");
    static const int64_t d[1] = {0};
    return give(pt_call_flip(self, 1, d), ret);
}

pt_status pt_native_fliplr(const pt_tensor *self, pt_tensor **ret)
{
    if (self->ndim < 2) return PT_ERROR(PT_ERR_RUNTIME, "Input must be >= 2-d.");
    static const int64_t d[1] = {1};
    return give(pt_call_flip(self, 1, d), ret);
}

/* torch's rot90: by k mod 4, a flip of one dim then the transpose (1 and 3), a flip of both (2),
 * or a contiguous clone (0). */
pt_status pt_native_rot90(const pt_tensor *self, int64_t k, int32_t n, const int64_t *dims,
                          pt_tensor **ret)
{
    const int64_t nd = self->ndim;
    if (n != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "expected total rotation dims == 2, but got dims = %d",
                        (int)n);
    if (nd < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "expected total dims >= 2, but got total dims = %lld",
                        (long long)nd);
    const int64_t d0 = dims[0], d1 = dims[1];
    if (d0 == d1 || llabs(d0 - d1) == nd)
        return PT_ERROR(PT_ERR_RUNTIME, "expected rotation dims to be different, but got dim0 = "
                        "%lld and dim1 = %lld", (long long)d0, (long long)d1);
    if (d0 >= nd || d0 < -nd)
        return PT_ERROR(PT_ERR_RUNTIME, "Rotation dim0 out of range, dim0 = %lld", (long long)d0);
    if (d1 >= nd || d1 < -nd)
        return PT_ERROR(PT_ERR_RUNTIME, "Rotation dim1 out of range, dim1 = %lld", (long long)d1);
    const int64_t turns = ((k % 4) + 4) % 4;
    if (turns == 0) return give(pt_call_clone(self, PT_MEMORY_FORMAT_CONTIGUOUS), ret);
    if (turns == 2) return give(pt_call_flip(self, 2, dims), ret);
    pt_tensor *f = pt_call_flip(self, 1, turns == 1 ? &dims[1] : &dims[0]);
    if (!f) return pt_error_code();
    pt_tensor *r = unviewed(pt_call_transpose_int(f, d0, d1));
    pt_tensor_release(f);
    return give(r, ret);
}

pt_status pt_native_rot90_out(const pt_tensor *self, int64_t k, int32_t n, const int64_t *dims,
                              pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_rot90(self, k, n, dims, &r));
    return give_out("rot90", r, out, ret);
}

/* ---------------------------------------------------------------- tensordot, inner, kron */

/* torch's tensordot: contracted dims of size 1 on one side are summed away first (they
 * broadcast); the others must agree. Each operand is permuted to (kept, contracted) /
 * (contracted, kept), reshaped to a matrix, multiplied by mm, and the product reshaped to the
 * kept dims of both. */
pt_status pt_native_tensordot(const pt_tensor *self, const pt_tensor *other, int32_t n1,
                              const int64_t *dims1, int32_t n2, const int64_t *dims2,
                              pt_tensor **ret)
{
    if (n1 != n2)
        return PT_ERROR(PT_ERR_RUNTIME, "both dimension lists should have same length");
    if (self->dtype != other->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "both inputs should have same dtype");
    bool c1[PT_MAX_DIMS] = {false}, c2[PT_MAX_DIMS] = {false};
    int64_t w1[PT_MAX_DIMS], w2[PT_MAX_DIMS];
    pt_tensor *t1 = self_ref(self), *t2 = self_ref(other), *r = NULL;
    if (!t1 || !t2) goto fail;
    int64_t csize = 1;
    for (int32_t i = 0; i < n1; i++) {
        int32_t a, b;
        if (pt_wrap_dim(dims1[i], self->ndim, &a) != PT_OK) goto fail;
        if (pt_wrap_dim(dims2[i], other->ndim, &b) != PT_OK) goto fail;
        w1[i] = a, w2[i] = b;
        c1[a] = c2[b] = true;
        const int64_t s1 = self->sizes[a], s2 = other->sizes[b];
        if (s2 == 1) {
            pt_tensor *s = pt_call_sum_dim_IntList(t1, 1, &w1[i], 1, t1->dtype);
            pt_tensor_release(t1);
            if (!(t1 = s)) goto fail;
        } else if (s1 == 1) {
            pt_tensor *s = pt_call_sum_dim_IntList(t2, 1, &w2[i], 1, t2->dtype);
            pt_tensor_release(t2);
            if (!(t2 = s)) goto fail;
        } else if (s1 != s2) {
            PT_ERROR(PT_ERR_RUNTIME, "contracted dimensions need to match, but first has size "
                     "%lld in dim %lld and second has size %lld in dim %lld", (long long)s1,
                     (long long)dims1[i], (long long)s2, (long long)dims2[i]);
            goto fail;
        } else {
            csize *= s1;
        }
    }
    int64_t p1[PT_MAX_DIMS], p2[PT_MAX_DIMS], rsizes[2 * PT_MAX_DIMS];
    int32_t np1 = 0, np2 = 0, nr = 0;
    int64_t size1 = 1, size2 = 1;
    for (int32_t i = 0; i < self->ndim; i++)
        if (!c1[i]) {
            p1[np1++] = i;
            size1 *= t1->sizes[i];
            rsizes[nr++] = t1->sizes[i];
        }
    for (int32_t i = 0; i < n1; i++) p1[np1++] = w1[i];
    for (int32_t i = 0; i < n2; i++) p2[np2++] = w2[i];
    for (int32_t i = 0; i < other->ndim; i++)
        if (!c2[i]) {
            p2[np2++] = i;
            size2 *= t2->sizes[i];
            rsizes[nr++] = t2->sizes[i];
        }
    if (np1 != self->ndim || np2 != other->ndim) {
        PT_ERROR(PT_ERR_RUNTIME, "tensordot: a dim is contracted more than once");
        goto fail;
    }
    if (nr > PT_MAX_DIMS) {
        PT_ERROR(PT_ERR_RUNTIME, "tensordot: the result would have %d dims (at most %d)",
                 (int)nr, (int)PT_MAX_DIMS);
        goto fail;
    }
    const int64_t m1[2] = {size1, csize}, m2[2] = {csize, size2};
    pt_tensor *x;
    if (size1 == 1 && size2 == 1) {
        /* Nothing of size > 1 is kept: a dot of the flattened operands, as torch takes it. */
        if (!(x = pt_call_permute(t1, np1, p1))) goto fail;
        pt_tensor_release(t1);
        t1 = pt_call_flatten_using_ints(x, 0, -1);
        pt_tensor_release(x);
        if (!t1 || !(x = pt_call_permute(t2, np2, p2))) goto fail;
        pt_tensor_release(t2);
        t2 = pt_call_flatten_using_ints(x, 0, -1);
        pt_tensor_release(x);
        if (!t2 || !(x = pt_call_dot(t1, t2))) goto fail;
        r = pt_call_reshape(x, nr, rsizes);
        pt_tensor_release(x);
        goto fail;
    }
    if (!(x = pt_call_permute(t1, np1, p1))) goto fail;
    pt_tensor_release(t1);
    t1 = pt_call_reshape(x, 2, m1);
    pt_tensor_release(x);
    if (!t1) goto fail;
    if (!(x = pt_call_permute(t2, np2, p2))) goto fail;
    pt_tensor_release(t2);
    t2 = pt_call_reshape(x, 2, m2);
    pt_tensor_release(x);
    if (!t2) goto fail;
    if (!(x = pt_call_mm(t1, t2))) goto fail;
    r = pt_call_reshape(x, nr, rsizes);
    pt_tensor_release(x);
fail: /* also the way out on success: r is set then */
    pt_tensor_release(t1);
    pt_tensor_release(t2);
    return give(r, ret);
}

pt_status pt_native_tensordot_out(const pt_tensor *self, const pt_tensor *other, int32_t n1,
                                  const int64_t *dims1, int32_t n2, const int64_t *dims2,
                                  pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_tensordot(self, other, n1, dims1, n2, dims2, &r));
    return give_out("tensordot", r, out, ret);
}

static pt_status inner_check(const pt_tensor *self, const pt_tensor *other)
{
    if (self->sizes[self->ndim - 1] == other->sizes[other->ndim - 1]) return PT_OK;
    char a[PT_SHAPE_CHARS], b[PT_SHAPE_CHARS];
    pt_format_ints(a, sizeof a, self->ndim, self->sizes);
    pt_format_ints(b, sizeof b, other->ndim, other->sizes);
    return PT_ERROR(PT_ERR_RUNTIME, "inner() the last dimension must match on both input tensors "
                    "but got shapes %s and %s", a, b);
}

pt_status pt_native_inner(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    if (self->ndim == 0 || other->ndim == 0) return give(pt_call_mul_Tensor(self, other), ret);
    PT_TRY(inner_check(self, other));
    const int64_t last = -1;
    return pt_native_tensordot(self, other, 1, &last, 1, &last, ret);
}

pt_status pt_native_inner_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                              pt_tensor **ret)
{
    if (self->ndim == 0 || other->ndim == 0) return give(pt_call_mul_out(self, other, out), ret);
    PT_TRY(inner_check(self, other));
    const int64_t last = -1;
    return pt_native_tensordot_out(self, other, 1, &last, 1, &last, out, ret);
}

/* torch's kron: both operands viewed with a size-1 dim beside each of their (left-padded)
 * dims, a on the even places and b on the odd ones, so that their product broadcasts to the
 * interleaved [a0, b0, a1, b1, ...] which is the result once its pairs are merged. */
pt_status pt_native_kron(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    const int32_t nd = self->ndim > other->ndim ? self->ndim : other->ndim;
    if (2 * nd > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "kron: operands of %d dims are more than supported "
                        "(at most %d)", (int)nd, (int)PT_MAX_DIMS / 2);
    const int32_t pa = nd - self->ndim, pb = nd - other->ndim;
    int64_t as[PT_MAX_DIMS], bs[PT_MAX_DIMS], rs[PT_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) {
        as[2 * i] = i >= pa ? self->sizes[i - pa] : 1;
        as[2 * i + 1] = 1;
        bs[2 * i] = 1;
        bs[2 * i + 1] = i >= pb ? other->sizes[i - pb] : 1;
        rs[i] = as[2 * i] * bs[2 * i + 1];
    }
    pt_tensor *a = pt_call__unsafe_view(self, 2 * nd, as), *b = NULL, *m = NULL, *r = NULL;
    if (a && (b = pt_call__unsafe_view(other, 2 * nd, bs)) && (m = pt_call_mul_Tensor(a, b)))
        r = pt_call__unsafe_view(m, nd, rs);
    pt_tensor_release(a);
    pt_tensor_release(b);
    pt_tensor_release(m);
    return give(r, ret);
}

pt_status pt_native_kron_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                             pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_kron(self, other, &r));
    return give_out("kron", r, out, ret);
}

/* ---------------------------------------------------------------- trace, diagonals */

pt_status pt_native_trace(const pt_tensor *self, pt_tensor **ret)
{
    if (self->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "trace: expected a matrix, but got tensor with dim %d",
                        (int)self->ndim);
    if (self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"trace\" not implemented for 'Bool'");
    pt_tensor *d = pt_call_diagonal(self, 0, 0, 1);
    if (!d) return pt_error_code();
    pt_tensor *r = pt_call_sum(d, -1);
    pt_tensor_release(d);
    return give(r, ret);
}

pt_status pt_native_trace_out(const pt_tensor *self, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_trace(self, &r));
    return give_out("trace", r, out, ret);
}

/* The gradient of trace: grad (0-d) on the main diagonal of zeros of the input's shape, written
 * by diagonal_scatter so that it is differentiable in its turn. */
pt_status pt_native_trace_backward(const pt_tensor *grad, int32_t n, const int64_t *sizes,
                                   pt_tensor **ret)
{
    if (n != 2) return PT_ERROR(PT_ERR_RUNTIME, "expected matrix input");
    const int64_t k = sizes[0] < sizes[1] ? sizes[0] : sizes[1];
    pt_tensor *z = pt_call_zeros(2, sizes, grad->dtype, -1, &grad->device, -1);
    pt_tensor *e = NULL, *r = NULL;
    if (z && (e = pt_call_expand(grad, 1, &k, 0)))
        r = pt_call_diagonal_scatter(z, e, 0, 0, 1);
    pt_tensor_release(z);
    pt_tensor_release(e);
    return give(r, ret);
}

pt_status pt_native_diag_embed(const pt_tensor *self, int64_t offset, int64_t dim1, int64_t dim2,
                               pt_tensor **ret)
{
    PT_TRY(pt_shape_check_tensor(self, "diag_embed", "self"));
    if (self->ndim == 0)
        return PT_ERROR(PT_ERR_INDEX, "Dimension specified as -1 but tensor has no dimensions");
    if (self->ndim + 1 > PT_MAX_DIMS)
        return PT_ERROR(PT_ERR_RUNTIME, "diag_embed: the result would have %d dims (at most %d)",
                        (int)self->ndim + 1, (int)PT_MAX_DIMS);
    int32_t d1, d2;
    PT_TRY(pt_wrap_dim(dim1, self->ndim + 1, &d1));
    PT_TRY(pt_wrap_dim(dim2, self->ndim + 1, &d2));
    if (d1 == d2)
        return PT_ERROR(PT_ERR_RUNTIME, "diagonal dimensions cannot be identical %d, %d", (int)d1,
                        (int)d2);
    const int32_t lo = d1 < d2 ? d1 : d2, hi = d1 < d2 ? d2 : d1;
    const int64_t len = llabs(offset) + self->sizes[self->ndim - 1];
    int64_t shape[PT_MAX_DIMS];
    int32_t nd = 0, src = 0;
    for (int32_t i = 0; i < self->ndim + 1; i++) {
        if (i == lo || i == hi) shape[nd++] = len;
        else shape[nd++] = self->sizes[src++];
    }
    pt_tensor *r = NULL, *diag = NULL;
    pt_status st = pt_shape_empty(nd, shape, self->dtype, self->device.type == PT_DEV_META, &r);
    if (st != PT_OK) return st;
    if (self->device.type != PT_DEV_META) {
        const pt_scalar zero = {.kind = PT_SCALAR_INT, .i = 0};
        st = pt_tensor_fill_(r, &zero);
        if (st == PT_OK) st = pt_tensor_diagonal(r, offset, d1, d2, &diag);
        if (st == PT_OK) st = pt_tensor_copy_(diag, self);
        pt_tensor_release(diag);
    }
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_native_diag_embed_out(const pt_tensor *self, int64_t offset, int64_t dim1,
                                   int64_t dim2, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_diag_embed(self, offset, dim1, dim2, &r));
    return give_out("diag_embed", r, out, ret);
}

/* torch's diag: a vector's diag_embed, a matrix's diagonal_copy. */
pt_status pt_native_diag(const pt_tensor *self, int64_t diagonal, pt_tensor **ret)
{
    if (self->ndim != 1 && self->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "diag(): Supports 1D or 2D tensors. Got %dD",
                        (int)self->ndim);
    if (self->ndim == 1) return give(pt_call_diag_embed(self, diagonal, 0, 1), ret);
    return give(pt_call_diagonal_copy(self, diagonal, 0, 1), ret);
}

pt_status pt_native_diag_out(const pt_tensor *self, int64_t diagonal, pt_tensor *out,
                             pt_tensor **ret)
{
    pt_tensor *r = NULL;
    PT_TRY(pt_native_diag(self, diagonal, &r));
    return give_out("diag", r, out, ret);
}

pt_status pt_native_diagflat(const pt_tensor *self, int64_t offset, pt_tensor **ret)
{
    pt_tensor *c = pt_call_contiguous(self, PT_MEMORY_FORMAT_CONTIGUOUS);
    if (!c) return pt_error_code();
    static const int64_t flat[1] = {-1};
    pt_tensor *v = pt_call_view(c, 1, flat);
    pt_tensor_release(c);
    if (!v) return pt_error_code();
    pt_tensor *r = pt_call_diag_embed(v, offset, 0, 1);
    pt_tensor_release(v);
    return give(r, ret);
}

/* ---------------------------------------------------------------- the scatters */

/* torch's clone_preserve_strides: a copy of self's whole storage viewed as self is, so that an
 * as_strided view of the copy names the same elements as one of self. A self whose elements
 * overlap gets a plain clone (its storage cannot be copied element for element). */
static pt_tensor *clone_preserve_strides(const pt_tensor *self)
{
    const int64_t item = pt_dtype_itemsize(self->dtype);
    const int64_t numel = pt_storage_nbytes(self->storage) / (item > 0 ? item : 1);
    bool dense = true;
    for (int32_t i = 0; i < self->ndim; i++) dense &= self->strides[i] != 0 || self->sizes[i] <= 1;
    if (!dense || self->device.type == PT_DEV_META)
        return pt_call_clone(self, PT_MEMORY_FORMAT_PRESERVE);
    const int64_t one = 1, off = self->offset;
    pt_tensor *full = pt_call_as_strided(self, 1, &numel, 1, &one, &(int64_t){0});
    if (!full) return NULL;
    pt_tensor *copy = pt_call_clone(full, PT_MEMORY_FORMAT_CONTIGUOUS);
    pt_tensor_release(full);
    if (!copy) return NULL;
    pt_tensor *r = pt_call_as_strided(copy, self->ndim, self->sizes, self->ndim, self->strides,
                                      &off);
    pt_tensor_release(copy);
    return r;
}

static pt_status scatter_check(const pt_tensor *slice, const pt_tensor *src)
{
    if (pt_shape_same(slice->ndim, slice->sizes, src->ndim, src->sizes)) return PT_OK;
    char a[PT_SHAPE_CHARS], b[PT_SHAPE_CHARS];
    pt_format_ints(a, sizeof a, src->ndim, src->sizes);
    pt_format_ints(b, sizeof b, slice->ndim, slice->sizes);
    return PT_ERROR(PT_ERR_RUNTIME, "expected src to have a size equal to the slice of self. src "
                    "size = %s, slice size = %s", a, b);
}

enum { SCATTER_DIAGONAL, SCATTER_SELECT, SCATTER_SLICE, SCATTER_STRIDED };

typedef struct scatter_args {
    int kind;
    int64_t a, b, c;             /* offset, dim1, dim2 / dim, index / dim, step */
    const int64_t *start, *end;  /* slice */
    int32_t nsize, nstride;      /* as_strided */
    const int64_t *size, *stride, *storage_offset;
} scatter_args;

static pt_tensor *scatter_view(pt_tensor *out, const scatter_args *s)
{
    switch (s->kind) {
    case SCATTER_DIAGONAL: return pt_call_diagonal(out, s->a, s->b, s->c);
    case SCATTER_SELECT: return pt_call_select_int(out, s->a, s->b);
    case SCATTER_SLICE: return pt_call_slice_Tensor(out, s->a, s->start, s->end, s->c);
    default: return pt_call_as_strided(out, s->nsize, s->size, s->nstride, s->stride,
                                       s->storage_offset);
    }
}

/* A copy of self with src written into the view of it that the arguments name. */
static pt_status scatter(const pt_tensor *self, const pt_tensor *src, const scatter_args *s,
                         pt_tensor *out_arg, pt_tensor **ret)
{
    pt_tensor *out = s->kind == SCATTER_STRIDED ? unviewed(clone_preserve_strides(self))
                                                : pt_call_clone(self, PT_MEMORY_FORMAT_PRESERVE);
    if (!out) return pt_error_code();
    pt_tensor *view = scatter_view(out, s);
    pt_status st = view ? scatter_check(view, src) : pt_error_code();
    if (st == PT_OK && view->device.type != PT_DEV_META) st = pt_tensor_copy_(view, src);
    pt_tensor_release(view);
    if (st != PT_OK) {
        pt_tensor_release(out);
        return st;
    }
    if (out_arg) return give_out("scatter", out, out_arg, ret);
    *ret = out;
    return PT_OK;
}

pt_status pt_native_diagonal_scatter(const pt_tensor *self, const pt_tensor *src, int64_t offset,
                                     int64_t dim1, int64_t dim2, pt_tensor **ret)
{
    const scatter_args s = {.kind = SCATTER_DIAGONAL, .a = offset, .b = dim1, .c = dim2};
    return scatter(self, src, &s, NULL, ret);
}

pt_status pt_native_diagonal_scatter_out(const pt_tensor *self, const pt_tensor *src,
                                         int64_t offset, int64_t dim1, int64_t dim2,
                                         pt_tensor *out, pt_tensor **ret)
{
    const scatter_args s = {.kind = SCATTER_DIAGONAL, .a = offset, .b = dim1, .c = dim2};
    return scatter(self, src, &s, out, ret);
}

pt_status pt_native_select_scatter(const pt_tensor *self, const pt_tensor *src, int64_t dim,
                                   int64_t index, pt_tensor **ret)
{
    const scatter_args s = {.kind = SCATTER_SELECT, .a = dim, .b = index};
    return scatter(self, src, &s, NULL, ret);
}

pt_status pt_native_select_scatter_out(const pt_tensor *self, const pt_tensor *src, int64_t dim,
                                       int64_t index, pt_tensor *out, pt_tensor **ret)
{
    const scatter_args s = {.kind = SCATTER_SELECT, .a = dim, .b = index};
    return scatter(self, src, &s, out, ret);
}

pt_status pt_native_slice_scatter(const pt_tensor *self, const pt_tensor *src, int64_t dim,
                                  const int64_t *start, const int64_t *end, int64_t step,
                                  pt_tensor **ret)
{
    const scatter_args s = {.kind = SCATTER_SLICE, .a = dim, .c = step, .start = start,
                            .end = end};
    return scatter(self, src, &s, NULL, ret);
}

pt_status pt_native_slice_scatter_out(const pt_tensor *self, const pt_tensor *src, int64_t dim,
                                      const int64_t *start, const int64_t *end, int64_t step,
                                      pt_tensor *out, pt_tensor **ret)
{
    const scatter_args s = {.kind = SCATTER_SLICE, .a = dim, .c = step, .start = start,
                            .end = end};
    return scatter(self, src, &s, out, ret);
}

pt_status pt_native_as_strided_scatter(const pt_tensor *self, const pt_tensor *src,
                                       int32_t nsize, const int64_t *size, int32_t nstride,
                                       const int64_t *stride, const int64_t *storage_offset,
                                       pt_tensor **ret)
{
    const scatter_args s = {.kind = SCATTER_STRIDED, .nsize = nsize, .nstride = nstride,
                            .size = size, .stride = stride, .storage_offset = storage_offset};
    return scatter(self, src, &s, NULL, ret);
}

pt_status pt_native_as_strided_scatter_out(const pt_tensor *self, const pt_tensor *src,
                                           int32_t nsize, const int64_t *size, int32_t nstride,
                                           const int64_t *stride, const int64_t *storage_offset,
                                           pt_tensor *out, pt_tensor **ret)
{
    const scatter_args s = {.kind = SCATTER_STRIDED, .nsize = nsize, .nstride = nstride,
                            .size = size, .stride = stride, .storage_offset = storage_offset};
    return scatter(self, src, &s, out, ret);
}
