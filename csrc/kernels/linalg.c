/* linalg.c - the plain matrix products: mm, bmm, mv, dot, vdot and matmul (functional and out=
 * as torch has them), with outer and ger as composites over mul. addmm, baddbmm and addmv, which
 * add a product to a tensor, are in linalg_add.c; the layer both stand on is linalg_run.c.
 *
 * Each front checks its arguments in torch's order and with torch's messages (ranks, shapes,
 * dtypes, out=), makes its result or takes the written-to tensor, and then describes the work as
 * one batched product C = beta * C + alpha * A * B over views: mv multiplies by a k x 1 view of the
 * vector, dot a 1 x k view by a k x 1 one, matmul broadcasts batch dimensions with stride-0 views
 * instead of copies. pt_linalg_run takes it from there (Note [running a product]); meta tensors
 * stop before it. The product itself is one call per matrix (Note [one gemm call] in linalg.h).
 *
 * Deviations from torch, each deliberate: an out= tensor of the wrong shape is resized only when
 * it holds no elements (torch resizes any, with a deprecation warning), as for the binary
 * operators; bool inputs are refused whenever a sum would be computed; matmul folds an N-D by 2-D
 * product into one mm only when the N-D operand's batch folds without a copy (torch copies to
 * fold) and otherwise loops over the batch.
 */
#include <string.h>

#include "linalg_internal.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

/* ---------------------------------------------------------------- mm, bmm */

static pt_status mm_checks(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out_arg)
{
    if (self->ndim != 2) return PT_ERROR(PT_ERR_RUNTIME, "self must be a matrix");
    if (mat2->ndim != 2) return PT_ERROR(PT_ERR_RUNTIME, "mat2 must be a matrix");
    if (self->sizes[1] != mat2->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
                        "%lldx%lld)", (long long)self->sizes[0], (long long)self->sizes[1],
                        (long long)mat2->sizes[0], (long long)mat2->sizes[1]);
    if (out_arg && out_arg->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        pt_linalg_cxx_name(self->dtype), pt_linalg_cxx_name(out_arg->dtype));
    if (self->dtype != mat2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected m1 and m2 to have the same dtype, but got: %s != "
                        "%s", pt_linalg_cxx_name(self->dtype), pt_linalg_cxx_name(mat2->dtype));
    return PT_OK;
}

static pt_status mm(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out_arg,
                    pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, mat2, out_arg};
    PT_TRY(pt_linalg_check_operands("mm", out_arg ? 3 : 2, ts,
                                    (const char *const[]){"self", "mat2", "out"}));
    PT_TRY(mm_checks(self, mat2, out_arg));
    int32_t device = pt_linalg_result_device(2, ts);
    int64_t sizes[2] = {self->sizes[0], mat2->sizes[1]};
    PT_TRY(pt_linalg_check_bool("addmm_impl_cpu_", self->dtype, device,
                                sizes[0] * sizes[1] > 0 && self->sizes[1] > 0));
    pt_tensor *r;
    PT_TRY(pt_linalg_make_result("mm", out_arg, 2, sizes, self->dtype, device,
                                 PT_LINALG_OUT_MSG_MM, &r));
    pt_linalg_product p = {false, NULL, NULL};
    static const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    p.beta = &zero;
    return pt_linalg_finish(r, r, self, mat2, &p, out);
}

pt_status pt_kernel_mm(const pt_tensor *self, const pt_tensor *mat2, pt_tensor **ret)
{
    return mm(self, mat2, NULL, ret);
}

pt_status pt_kernel_mm_out(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out,
                           pt_tensor **ret)
{
    return mm(self, mat2, out, ret);
}

pt_status pt_linalg_bmm_checks(const pt_tensor *b1, const pt_tensor *b2)
{
    if (b1->ndim != 3) return PT_ERROR(PT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (b2->ndim != 3) return PT_ERROR(PT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (b2->sizes[0] != b1->sizes[0] || b2->sizes[1] != b1->sizes[2])
        return PT_ERROR(PT_ERR_RUNTIME, "Expected size for first two dimensions of batch2 tensor "
                        "to be: [%lld, %lld] but got: [%lld, %lld].", (long long)b1->sizes[0],
                        (long long)b1->sizes[2], (long long)b2->sizes[0], (long long)b2->sizes[1]);
    return PT_OK;
}

pt_status pt_linalg_batch_dtype_check(const pt_tensor *b1, const pt_tensor *b2)
{
    if (b1->dtype != b2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_linalg_legacy(b1->dtype), pt_linalg_legacy(b2->dtype));
    return PT_OK;
}

static pt_status bmm(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out_arg,
                     pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, mat2, out_arg};
    PT_TRY(pt_linalg_check_operands("bmm", out_arg ? 3 : 2, ts,
                                    (const char *const[]){"self", "mat2", "out"}));
    PT_TRY(pt_linalg_bmm_checks(self, mat2));
    int32_t device = pt_linalg_result_device(2, ts);
    int64_t sizes[3] = {self->sizes[0], self->sizes[1], mat2->sizes[2]};
    if (out_arg && out_arg->dtype != self->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        pt_linalg_cxx_name(self->dtype), pt_linalg_cxx_name(out_arg->dtype));
    PT_TRY(pt_linalg_batch_dtype_check(self, mat2));
    PT_TRY(pt_linalg_check_bool("bmm", self->dtype, device,
                                sizes[0] * sizes[1] * sizes[2] > 0 && self->sizes[2] > 0));
    pt_tensor *r;
    PT_TRY(pt_linalg_make_result("bmm", out_arg, 3, sizes, self->dtype, device,
                                 PT_LINALG_OUT_MSG_MM, &r));
    static const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    pt_linalg_product p = {false, NULL, &zero};
    return pt_linalg_finish(r, r, self, mat2, &p, out);
}

pt_status pt_kernel_bmm(const pt_tensor *self, const pt_tensor *mat2, pt_tensor **ret)
{
    return bmm(self, mat2, NULL, ret);
}

pt_status pt_kernel_bmm_out(const pt_tensor *self, const pt_tensor *mat2, pt_tensor *out,
                            pt_tensor **ret)
{
    return bmm(self, mat2, out, ret);
}
/* ---------------------------------------------------------------- mv */

static const pt_scalar scalar_zero = {PT_SCALAR_INT, 0, 0.0, 0.0};

/* torch's mv is addmv into a new vector of vec's dtype, which its messages show. */
static pt_status mv(const pt_tensor *self, const pt_tensor *vec, pt_tensor *out_arg,
                    pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, vec, out_arg};
    PT_TRY(pt_linalg_check_operands("mv", out_arg ? 3 : 2, ts,
                                    (const char *const[]){"self", "vec", "out"}));
    if (self->ndim != 2 || vec->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "vector + matrix @ vector expected, got 1, %d, %d",
                        (int)self->ndim, (int)vec->ndim);
    if (self->sizes[1] != vec->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "size mismatch, got input (%lld), mat (%lldx%lld), vec "
                        "(%lld)", (long long)self->sizes[0], (long long)self->sizes[0],
                        (long long)self->sizes[1], (long long)vec->sizes[0]);
    if (self->dtype != vec->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "addmv input tensors must have the same dtype, but got %s, "
                        "%s, and %s", pt_linalg_legacy(vec->dtype), pt_linalg_legacy(self->dtype),
                        pt_linalg_legacy(vec->dtype));
    int32_t device = pt_linalg_result_device(2, ts);
    PT_TRY(pt_linalg_check_bool("addmv_impl_cpu", self->dtype, device,
                                self->sizes[0] > 0 && self->sizes[1] > 0));
    pt_tensor *r = NULL, *col = NULL;
    PT_TRY(pt_linalg_make_result("mv", out_arg, 1, self->sizes, self->dtype, device,
                                 PT_LINALG_OUT_MSG_MM, &r));
    pt_status st = pt_linalg_as_column(vec, &col);
    pt_linalg_product p = {false, NULL, &scalar_zero};
    if (st == PT_OK) st = pt_linalg_finish_vector(r, self, col, &p, out);
    else pt_tensor_release(r);
    pt_tensor_release(col);
    return st;
}

pt_status pt_kernel_mv(const pt_tensor *self, const pt_tensor *vec, pt_tensor **ret)
{
    return mv(self, vec, NULL, ret);
}

pt_status pt_kernel_mv_out(const pt_tensor *self, const pt_tensor *vec, pt_tensor *out,
                           pt_tensor **ret)
{
    return mv(self, vec, out, ret);
}

/* ---------------------------------------------------------------- dot, vdot */

static pt_status dot(const char *op, bool conj, const pt_tensor *self, const pt_tensor *other,
                     pt_tensor *out_arg, pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, other, out_arg};
    PT_TRY(pt_linalg_check_operands(op, out_arg ? 3 : 2, ts,
                                    (const char *const[]){"self", "other", "out"}));
    if (self->ndim != 1 || other->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors",
                        (int)self->ndim, (int)other->ndim);
    if (self->dtype != other->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "dot : expected both vectors to have same dtype, but found "
                        "%s and %s", pt_linalg_legacy(self->dtype), pt_linalg_legacy(other->dtype));
    if (self->sizes[0] != other->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "inconsistent tensor size, expected tensor [%lld] and src "
                        "[%lld] to have the same number of elements, but got %lld and %lld "
                        "elements respectively", (long long)self->sizes[0],
                        (long long)other->sizes[0], (long long)self->sizes[0],
                        (long long)other->sizes[0]);
    int32_t device = pt_linalg_result_device(2, ts);
    PT_TRY(pt_linalg_check_bool("dot", self->dtype, device, true));
    pt_tensor *r = NULL, *row = NULL, *col = NULL, *cell = NULL;
    PT_TRY(pt_linalg_make_result(op, out_arg, 0, NULL, self->dtype, device,
                                 PT_LINALG_OUT_MSG_DOT, &r));
    int64_t row_sizes[2] = {1, self->sizes[0]}, row_strides[2] = {self->sizes[0], self->strides[0]};
    int64_t one[2] = {1, 1};
    pt_status st = pt_linalg_view_as(self, 2, row_sizes, row_strides, &row);
    if (st == PT_OK) st = pt_linalg_as_column(other, &col);
    if (st == PT_OK) st = pt_linalg_view_as(r, 2, one, one, &cell);
    pt_linalg_product p = {conj, NULL, &scalar_zero};
    if (st == PT_OK) st = pt_linalg_run(cell, row, col, &p);
    pt_tensor_release(row);
    pt_tensor_release(col);
    pt_tensor_release(cell);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *out = r;
    return PT_OK;
}

pt_status pt_kernel_dot(const pt_tensor *self, const pt_tensor *tensor, pt_tensor **ret)
{
    return dot("dot", false, self, tensor, NULL, ret);
}

pt_status pt_kernel_dot_out(const pt_tensor *self, const pt_tensor *tensor, pt_tensor *out,
                            pt_tensor **ret)
{
    return dot("dot", false, self, tensor, out, ret);
}

pt_status pt_kernel_vdot(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return dot("vdot", true, self, other, NULL, ret);
}

pt_status pt_kernel_vdot_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                             pt_tensor **ret)
{
    return dot("vdot", true, self, other, out, ret);
}

/* ---------------------------------------------------------------- matmul */

/* A new view of t with other sizes (same strides where sizes are kept: the caller knows it). */
static pt_status reshaped(pt_tensor *t, int32_t ndim, const int64_t *sizes, pt_tensor **out)
{
    pt_tensor *v = NULL;
    pt_status st = pt_tensor_view(t, ndim, sizes, &v);
    pt_tensor_release(t);
    if (st == PT_OK) *out = v;
    return st;
}

/* N-D (N >= 3) by 1-D or 2-D as one mv or mm over self's batch folded into its rows, when self's
 * batch folds without a copy; *done is false otherwise. */
static pt_status matmul_fold(const pt_tensor *self, const pt_tensor *other, bool *done,
                             pt_tensor **out)
{
    int32_t d1 = self->ndim;
    int64_t k = self->sizes[d1 - 1], flat[2] = {-1, k};
    pt_tensor *folded = NULL, *r = NULL;
    *done = false;
    if (k == 0 || pt_tensor_view(self, 2, flat, &folded) != PT_OK) return PT_OK;
    *done = true;
    pt_status st = other->ndim == 1 ? mv(folded, other, NULL, &r) : mm(folded, other, NULL, &r);
    pt_tensor_release(folded);
    if (st != PT_OK) return st;
    int64_t sizes[PT_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)(d1 - 1));
    int32_t nd = d1 - 1;
    if (other->ndim == 2) sizes[nd++] = other->sizes[1];
    return reshaped(r, nd, sizes, out);
}

/* The batch dims of a (..., m, k) and b (..., k, n) broadcast together. */
static pt_status batch_shape(const pt_tensor *a, const pt_tensor *b, int32_t *nb, int64_t *shape)
{
    int32_t na = a->ndim - 2, nbb = b->ndim - 2, n = na > nbb ? na : nbb;
    for (int32_t i = n - 1, da = na - 1, db = nbb - 1; i >= 0; i--, da--, db--) {
        int64_t sa = da >= 0 ? a->sizes[da] : 1, sb = db >= 0 ? b->sizes[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return PT_ERROR(PT_ERR_RUNTIME, "The size of tensor a (%lld) must match the size of "
                            "tensor b (%lld) at non-singleton dimension %d", (long long)sa,
                            (long long)sb, (int)i);
        shape[i] = sa == 1 ? sb : sa;
    }
    *nb = n;
    return PT_OK;
}

/* The general case: 1-D operands become a row / a column, the batch dims broadcast by stride-0
 * views, and the result loses the added dims again. */
static pt_status matmul_batched(const pt_tensor *a, const pt_tensor *b, int32_t d1, int32_t d2,
                                pt_tensor **out)
{
    int32_t nb = 0;
    int64_t shape[PT_MAX_DIMS + 2], batch = 1;
    PT_TRY(batch_shape(a, b, &nb, shape));
    for (int32_t i = 0; i < nb; i++) batch *= shape[i];
    int64_t m = a->sizes[a->ndim - 2], k = a->sizes[a->ndim - 1], n = b->sizes[b->ndim - 1];
    if (b->sizes[b->ndim - 2] != k)
        return PT_ERROR(PT_ERR_RUNTIME, "Expected size for first two dimensions of batch2 tensor "
                        "to be: [%lld, %lld] but got: [%lld, %lld].", (long long)batch,
                        (long long)k, (long long)batch, (long long)b->sizes[b->ndim - 2]);
    PT_TRY(pt_linalg_batch_dtype_check(a, b));
    const pt_tensor *ts[2] = {a, b};
    int32_t device = pt_linalg_result_device(2, ts);
    PT_TRY(pt_linalg_check_bool("bmm", a->dtype, device, batch * m * n > 0 && k > 0));
    pt_tensor *ax = NULL, *bx = NULL, *r = NULL;
    shape[nb] = m;
    shape[nb + 1] = k;
    pt_status st = pt_tensor_expand(a, nb + 2, shape, &ax);
    shape[nb] = k;
    shape[nb + 1] = n;
    if (st == PT_OK) st = pt_tensor_expand(b, nb + 2, shape, &bx);
    shape[nb] = m;
    pt_device dev = {device, 0};
    if (st == PT_OK) st = pt_tensor_empty(nb + 2, shape, a->dtype, dev, &r);
    pt_linalg_product p = {false, NULL, &scalar_zero};
    if (st == PT_OK) st = pt_linalg_run(r, ax, bx, &p);
    pt_tensor_release(ax);
    pt_tensor_release(bx);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    int32_t nd = nb;
    if (d1 > 1) shape[nd++] = m;
    if (d2 > 1) shape[nd++] = n;
    return reshaped(r, nd, shape, out);
}

static pt_status matmul_functional(const pt_tensor *a, const pt_tensor *b, pt_tensor **out)
{
    int32_t d1 = a->ndim, d2 = b->ndim;
    if (d1 == 1 && d2 == 1) return dot("dot", false, a, b, NULL, out);
    if (d1 == 2 && d2 == 1) return mv(a, b, NULL, out);
    if (d1 == 2 && d2 == 2) return mm(a, b, NULL, out);
    pt_tensor *row = NULL, *col = NULL, *r = NULL;
    if (d1 == 1 && d2 == 2) {
        PT_TRY(pt_tensor_unsqueeze(a, 0, &row));
        pt_status st = mm(row, b, NULL, &r);
        pt_tensor_release(row);
        if (st != PT_OK) return st;
        return reshaped(r, 1, &b->sizes[1], out);
    }
    if (d1 >= 3 && d2 <= 2) {
        bool done;
        PT_TRY(matmul_fold(a, b, &done, out));
        if (done) return PT_OK;
    }
    if (d1 == 1) PT_TRY(pt_tensor_unsqueeze(a, 0, &row));
    pt_status st = d2 == 1 ? pt_tensor_unsqueeze(b, 1, &col) : PT_OK;
    if (st == PT_OK) st = matmul_batched(row ? row : a, col ? col : b, d1, d2, out);
    pt_tensor_release(row);
    pt_tensor_release(col);
    return st;
}

static pt_status matmul(const pt_tensor *self, const pt_tensor *other, pt_tensor *out_arg,
                        pt_tensor **out)
{
    const pt_tensor *ts[3] = {self, other, out_arg};
    PT_TRY(pt_linalg_check_operands("matmul", out_arg ? 3 : 2, ts,
                                    (const char *const[]){"self", "other", "out"}));
    if (self->ndim == 0 || other->ndim == 0)
        return PT_ERROR(PT_ERR_RUNTIME, "both arguments to matmul need to be at least 1D, but they "
                        "are %dD and %dD", (int)self->ndim, (int)other->ndim);
    if (!out_arg) return matmul_functional(self, other, out);
    /* out=: the result is computed first, so out may alias the inputs. */
    pt_tensor *r = NULL;
    PT_TRY(matmul_functional(self, other, &r));
    int msg = self->ndim == 1 && other->ndim == 1 ? PT_LINALG_OUT_MSG_DOT : PT_LINALG_OUT_MSG_MM;
    pt_status st = pt_linalg_check_out("matmul", out_arg, r->ndim, r->sizes, r->dtype,
                                       r->device.type, msg);
    if (st == PT_OK && r->device.type == PT_DEV_CPU) st = pt_tensor_copy_(out_arg, r);
    pt_tensor_release(r);
    if (st != PT_OK) return st;
    pt_tensor_retain(out_arg);
    *out = out_arg;
    return PT_OK;
}

pt_status pt_kernel_matmul(const pt_tensor *self, const pt_tensor *other, pt_tensor **ret)
{
    return matmul(self, other, NULL, ret);
}

pt_status pt_kernel_matmul_out(const pt_tensor *self, const pt_tensor *other, pt_tensor *out,
                               pt_tensor **ret)
{
    return matmul(self, other, out, ret);
}

/* ---------------------------------------------------------------- outer, ger */

/* torch's outer: self as a column times vec2, through mul, whose type promotion and out= rules
 * it takes (outer of bool or of mixed dtypes works, unlike the products above). */
static pt_status outer_column(const pt_tensor *self, const pt_tensor *vec2, pt_tensor **col)
{
    if (!self || !vec2) return PT_ERROR(PT_ERR_VALUE, "outer: arguments must be tensors, got NULL");
    if (self->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "outer: Expected 1-D argument self, but got %d-D",
                        (int)self->ndim);
    if (vec2->ndim != 1)
        return PT_ERROR(PT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got %d-D",
                        (int)vec2->ndim);
    int64_t sizes[2] = {self->sizes[0], 1};
    *col = pt_call_reshape(self, 2, sizes);
    return *col ? PT_OK : pt_error_code();
}

static pt_status outer(const pt_tensor *self, const pt_tensor *vec2, pt_tensor *out_arg,
                       pt_tensor **ret)
{
    pt_tensor *col = NULL;
    PT_TRY(outer_column(self, vec2, &col));
    pt_tensor *r = out_arg ? pt_call_mul_out(col, vec2, out_arg) : pt_call_mul_Tensor(col, vec2);
    pt_tensor_release(col);
    if (!r) return pt_error_code();
    *ret = r;
    return PT_OK;
}

pt_status pt_native_outer(const pt_tensor *self, const pt_tensor *vec2, pt_tensor **ret)
{
    return outer(self, vec2, NULL, ret);
}

pt_status pt_native_outer_out(const pt_tensor *self, const pt_tensor *vec2, pt_tensor *out,
                              pt_tensor **ret)
{
    return outer(self, vec2, out, ret);
}
