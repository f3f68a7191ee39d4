/* linalg_add.c - the products added to a tensor: addmm, baddbmm and addmv, each functional, in
 * place and out= as torch has them (Note [the added term]). The plain products are in linalg.c,
 * the layer under both in linalg_run.c.
 *
 * Each front makes torch's checks in torch's order and with its messages, then hands one addcall
 * (the operands already shaped as the product's matrices: addmv's vector as a k x 1 view) to
 * add_product, which settles the written-to tensor, copies self into it unless beta is 0, and runs
 * the product over it (Note [running a product]).
 *
 * Deviations from torch, each deliberate: bool inputs are refused whenever a sum would be computed
 * (torch lets addmv through when k == 0 and fails addmm/baddbmm there with a type-cast error);
 * baddbmm's rank errors name the argument ("batch1 must be a 3D tensor") where torch's fail later
 * in an index check; an out= tensor of the wrong shape is resized only when it holds no elements.
 */
#include <string.h>

#include "linalg_internal.h"

enum { FUNCTIONAL = 0, INPLACE = 1, OUT = 2 };

/* Note [the added term]
 * addmm, baddbmm and addmv compute beta * self + alpha * product into a result C. In place, C is
 * self, whose shape must be the result's ("Bad in-place call"). Otherwise self broadcasts to the
 * result's shape, C is a new tensor or out=, and self is copied into it first unless beta is 0
 * (then self is not read at all: NaN there is ignored). An out= that overlaps an input gets the
 * functional result copied in, since the copy of self could overwrite a factor before it is
 * read. */
typedef struct addcall {
    const char *op;
    int mode;
    const pt_tensor *self, *a, *b;
    const pt_scalar *alpha, *beta;
    pt_tensor *target; /* self (in place) or out= */
    int32_t ndim;
    int64_t sizes[3];
    int32_t device;
} addcall;

static pt_status inplace_shape(const addcall *c)
{
    const pt_tensor *t = c->target;
    if (t->ndim == c->ndim && memcmp(t->sizes, c->sizes, sizeof(int64_t) * (size_t)c->ndim) == 0)
        return PT_OK;
    char have[PT_LINALG_SHAPE_CHARS], want[PT_LINALG_SHAPE_CHARS];
    return PT_ERROR(PT_ERR_RUNTIME, "Bad in-place call: input tensor size %s and output tensor "
                    "size %s should match", pt_format_ints(have, sizeof have, t->ndim, t->sizes),
                    pt_format_ints(want, sizeof want, c->ndim, c->sizes));
}

static pt_status add_product(const addcall *c, const pt_tensor *a_view, const pt_tensor *b_view,
                             pt_tensor **out);

/* The functional result copied into an out= that overlaps an input. */
static pt_status add_via_copy(const addcall *c, const pt_tensor *a_view, const pt_tensor *b_view,
                              pt_tensor **out)
{
    addcall f = *c;
    f.mode = FUNCTIONAL;
    f.target = NULL;
    pt_tensor *r = NULL;
    PT_TRY(add_product(&f, a_view, b_view, &r));
    pt_status st = pt_tensor_copy_(c->target, r);
    pt_tensor_release(r);
    if (st != PT_OK) return st;
    pt_tensor_retain(c->target);
    *out = c->target;
    return PT_OK;
}

/* The checked call of Note [the added term], with a and b already shaped as the product's
 * matrices (batched or not). */
static pt_status add_product(const addcall *c, const pt_tensor *a_view, const pt_tensor *b_view,
                             pt_tensor **out)
{
    pt_tensor *self_b = NULL, *result = NULL;
    if (c->mode == INPLACE) {
        PT_TRY(inplace_shape(c));
        result = c->target;
        if (c->device == PT_DEV_CPU && !result->storage->writable)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: the output tensor's storage is read-only", c->op);
        pt_tensor_retain(result);
    } else {
        PT_TRY(pt_tensor_expand(c->self, c->ndim, c->sizes, &self_b));
        pt_tensor *t = c->target;
        if (t && t != c->self && c->device == PT_DEV_CPU &&
            (pt_linalg_may_overlap(t, c->self) || pt_linalg_may_overlap(t, a_view) ||
             pt_linalg_may_overlap(t, b_view))) {
            pt_tensor_release(self_b);
            PT_TRY(pt_linalg_check_out(c->op, t, c->ndim, c->sizes, c->self->dtype, c->device,
                                       PT_LINALG_OUT_MSG_MM));
            return add_via_copy(c, a_view, b_view, out);
        }
        pt_status st = pt_linalg_make_result(c->op, t, c->ndim, c->sizes, c->self->dtype, c->device,
                                             PT_LINALG_OUT_MSG_MM, &result);
        if (st != PT_OK) {
            pt_tensor_release(self_b);
            return st;
        }
    }
    pt_linalg_product p = {false, c->alpha, c->beta};
    pt_blas_value unused;
    bool beta_zero = false, alpha_zero = false;
    int32_t compute = pt_linalg_is_half(c->self->dtype) ? PT_FLOAT32 : c->self->dtype;
    pt_status st = pt_linalg_scalar_value(c->beta, compute, &unused, &beta_zero);
    if (st == PT_OK) st = pt_linalg_scalar_value(c->alpha, compute, &unused, &alpha_zero);
    if (st == PT_OK && self_b && result != c->self && !beta_zero && c->device == PT_DEV_CPU)
        st = pt_tensor_copy_(result, self_b);
    pt_tensor_release(self_b);
    if (st != PT_OK) {
        pt_tensor_release(result);
        return st;
    }
    if (c->ndim == 1) return pt_linalg_finish_vector(result, a_view, b_view, &p, out);
    return pt_linalg_finish(result, result, a_view, b_view, &p, out);
}

static pt_status addmm(int mode, const pt_tensor *self, const pt_tensor *mat1,
                       const pt_tensor *mat2, const pt_scalar *beta, const pt_scalar *alpha,
                       pt_tensor *out_arg, pt_tensor **out)
{
    const char *op = mode == INPLACE ? "addmm_" : "addmm";
    const pt_tensor *ts[4] = {self, mat1, mat2, out_arg};
    PT_TRY(pt_linalg_check_operands(op, out_arg ? 4 : 3, ts,
                                    (const char *const[]){"self", "mat1", "mat2", "out"}));
    if (mat1->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "mat1 must be a matrix, got %d-D tensor", (int)mat1->ndim);
    if (mat2->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "mat2 must be a matrix, got %d-D tensor", (int)mat2->ndim);
    if (self->dtype != mat2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "self and mat2 must have the same dtype, but got %s and %s",
                        pt_linalg_legacy(self->dtype), pt_linalg_legacy(mat2->dtype));
    if (mat1->dtype != mat2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype, but got %s and %s",
                        pt_linalg_legacy(mat1->dtype), pt_linalg_legacy(mat2->dtype));
    if (mat1->sizes[1] != mat2->sizes[0])
        return PT_ERROR(PT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
                        "%lldx%lld)", (long long)mat1->sizes[0], (long long)mat1->sizes[1],
                        (long long)mat2->sizes[0], (long long)mat2->sizes[1]);
    addcall c = {op, mode, self, mat1, mat2, alpha, beta,
                 mode == INPLACE ? (pt_tensor *)self : out_arg, 2,
                 {mat1->sizes[0], mat2->sizes[1], 0}, pt_linalg_result_device(3, ts)};
    PT_TRY(pt_linalg_check_bool("addmm_impl_cpu_", self->dtype, c.device,
                                c.sizes[0] * c.sizes[1] > 0));
    return add_product(&c, mat1, mat2, out);
}

pt_status pt_kernel_addmm(const pt_tensor *self, const pt_tensor *mat1, const pt_tensor *mat2,
                          const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return addmm(FUNCTIONAL, self, mat1, mat2, beta, alpha, NULL, ret);
}

pt_status pt_kernel_addmm_(pt_tensor *self, const pt_tensor *mat1, const pt_tensor *mat2,
                           const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return addmm(INPLACE, self, mat1, mat2, beta, alpha, NULL, ret);
}

pt_status pt_kernel_addmm_out(const pt_tensor *self, const pt_tensor *mat1, const pt_tensor *mat2,
                              const pt_scalar *beta, const pt_scalar *alpha, pt_tensor *out,
                              pt_tensor **ret)
{
    return addmm(OUT, self, mat1, mat2, beta, alpha, out, ret);
}

static pt_status baddbmm(int mode, const pt_tensor *self, const pt_tensor *b1,
                         const pt_tensor *b2, const pt_scalar *beta, const pt_scalar *alpha,
                         pt_tensor *out_arg, pt_tensor **out)
{
    const char *op = mode == INPLACE ? "baddbmm_" : "baddbmm";
    const pt_tensor *ts[4] = {self, b1, b2, out_arg};
    PT_TRY(pt_linalg_check_operands(op, out_arg ? 4 : 3, ts,
                                    (const char *const[]){"self", "batch1", "batch2", "out"}));
    PT_TRY(pt_linalg_bmm_checks(b1, b2));
    if (self->dtype != b1->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "Input dtypes must be the same, got: input %s, batch1: %s, "
                        "batch2: %s", pt_linalg_cxx_name(self->dtype),
                        pt_linalg_cxx_name(b1->dtype), pt_linalg_cxx_name(b2->dtype));
    PT_TRY(pt_linalg_batch_dtype_check(b1, b2));
    addcall c = {op, mode, self, b1, b2, alpha, beta,
                 mode == INPLACE ? (pt_tensor *)self : out_arg, 3,
                 {b1->sizes[0], b1->sizes[1], b2->sizes[2]}, pt_linalg_result_device(3, ts)};
    PT_TRY(pt_linalg_check_bool("baddbmm", self->dtype, c.device,
                                c.sizes[0] * c.sizes[1] * c.sizes[2] > 0));
    return add_product(&c, b1, b2, out);
}

pt_status pt_kernel_baddbmm(const pt_tensor *self, const pt_tensor *batch1,
                            const pt_tensor *batch2, const pt_scalar *beta,
                            const pt_scalar *alpha, pt_tensor **ret)
{
    return baddbmm(FUNCTIONAL, self, batch1, batch2, beta, alpha, NULL, ret);
}

pt_status pt_kernel_baddbmm_(pt_tensor *self, const pt_tensor *batch1, const pt_tensor *batch2,
                             const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return baddbmm(INPLACE, self, batch1, batch2, beta, alpha, NULL, ret);
}

pt_status pt_kernel_baddbmm_out(const pt_tensor *self, const pt_tensor *batch1,
                                const pt_tensor *batch2, const pt_scalar *beta,
                                const pt_scalar *alpha, pt_tensor *out, pt_tensor **ret)
{
    return baddbmm(OUT, self, batch1, batch2, beta, alpha, out, ret);
}
/* ---------------------------------------------------------------- addmv */
static pt_status addmv_checks(const pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec)
{
    if (mat->ndim != 2 || vec->ndim != 1 || self->ndim > 1)
        return PT_ERROR(PT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d",
                        (int)self->ndim, (int)mat->ndim, (int)vec->ndim);
    int64_t input = self->ndim ? self->sizes[0] : 1;
    if (mat->sizes[1] != vec->sizes[0] || (input != mat->sizes[0] && input != 1))
        return PT_ERROR(PT_ERR_RUNTIME, "size mismatch, got input (%lld), mat (%lldx%lld), vec "
                        "(%lld)", (long long)input, (long long)mat->sizes[0],
                        (long long)mat->sizes[1], (long long)vec->sizes[0]);
    if (self->dtype != mat->dtype || mat->dtype != vec->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "addmv input tensors must have the same dtype, but got %s, "
                        "%s, and %s", pt_linalg_legacy(self->dtype), pt_linalg_legacy(mat->dtype),
                        pt_linalg_legacy(vec->dtype));
    return PT_OK;
}

static pt_status addmv(int mode, const pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec,
                       const pt_scalar *beta, const pt_scalar *alpha, pt_tensor *out_arg,
                       pt_tensor **out)
{
    const char *op = mode == INPLACE ? "addmv_" : "addmv";
    const pt_tensor *ts[4] = {self, mat, vec, out_arg};
    PT_TRY(pt_linalg_check_operands(op, out_arg ? 4 : 3, ts,
                                    (const char *const[]){"self", "mat", "vec", "out"}));
    PT_TRY(addmv_checks(self, mat, vec));
    addcall c = {op, mode, self, mat, vec, alpha, beta,
                 mode == INPLACE ? (pt_tensor *)self : out_arg, 1,
                 {mat->sizes[0], 0, 0}, pt_linalg_result_device(3, ts)};
    PT_TRY(pt_linalg_check_bool("addmv_impl_cpu", self->dtype, c.device, c.sizes[0] > 0));
    pt_tensor *col = NULL;
    PT_TRY(pt_linalg_as_column(vec, &col));
    pt_status st = add_product(&c, mat, col, out);
    pt_tensor_release(col);
    return st;
}

pt_status pt_kernel_addmv(const pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec,
                          const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return addmv(FUNCTIONAL, self, mat, vec, beta, alpha, NULL, ret);
}

pt_status pt_kernel_addmv_(pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec,
                           const pt_scalar *beta, const pt_scalar *alpha, pt_tensor **ret)
{
    return addmv(INPLACE, self, mat, vec, beta, alpha, NULL, ret);
}

pt_status pt_kernel_addmv_out(const pt_tensor *self, const pt_tensor *mat, const pt_tensor *vec,
                              const pt_scalar *beta, const pt_scalar *alpha, pt_tensor *out,
                              pt_tensor **ret)
{
    return addmv(OUT, self, mat, vec, beta, alpha, out, ret);
}
