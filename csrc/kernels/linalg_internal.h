/* linalg_internal.h - what the matrix-product operators (linalg.c: mm, bmm, mv, dot, vdot,
 * matmul; linalg_add.c: addmm, baddbmm, addmv) share with the layer under them (linalg_run.c):
 * torch's argument checks and names, the overlap test, the result helpers and pt_linalg_run
 * (Note [running a product]). Hidden like the rest of the core.
 */
#ifndef PT_KERNELS_LINALG_INTERNAL_H
#define PT_KERNELS_LINALG_INTERNAL_H

#include "linalg.h"

enum { PT_LINALG_SHAPE_CHARS = 256 };
/* the two texts torch uses for an out= of the wrong dtype */
enum { PT_LINALG_OUT_MSG_MM, PT_LINALG_OUT_MSG_DOT };

/* How pt_linalg_run combines the operands: c = beta * c + alpha * op(a) @ b. */
typedef struct pt_linalg_product {
    bool conj_a;
    const pt_scalar *alpha, *beta; /* NULL: 1 */
} pt_linalg_product;

static inline bool pt_linalg_is_half(int32_t dtype)
{
    return dtype == PT_FLOAT16 || dtype == PT_BFLOAT16;
}

/* torch's legacy names ("Float") and the C++ type names its TypeMeta prints ("float",
 * "long int", "c10::Half"). */
const char *pt_linalg_legacy(int32_t dtype);
const char *pt_linalg_cxx_name(int32_t dtype);

/* Each of the n tensors (names[i] in messages) is one this family computes with: not NULL,
 * strided, of a builtin dtype, not on CUDA (no kernels there). */
pt_status pt_linalg_check_operands(const char *op, int32_t n, const pt_tensor *const *ts,
                                   const char *const *names);
/* Meta when any input is (torch's meta functions take mixed inputs and give meta), else CPU. */
int32_t pt_linalg_result_device(int32_t n, const pt_tensor *const *ts);
/* Bool has no sums on the CPU: torch refuses it by its kernel's name when there is work. */
pt_status pt_linalg_check_bool(const char *kernel, int32_t dtype, int32_t device, bool work);
/* torch's Scalar::to<T> with its overflow check, into the compute dtype (float32 for float16 and
 * bfloat16); *zero: the converted value is 0. NULL: 1. */
pt_status pt_linalg_scalar_value(const pt_scalar *s, int32_t compute, pt_blas_value *out,
                                 bool *zero);
/* Whether the bytes x and y span intersect (a conservative test: strides are not followed). */
bool pt_linalg_may_overlap(const pt_tensor *x, const pt_tensor *y);

/* c = beta * c + alpha * a @ b over batches of matrices (Note [running a product]). */
pt_status pt_linalg_run(pt_tensor *c, const pt_tensor *a, const pt_tensor *b,
                        const pt_linalg_product *p);

/* The out= tensor for a result of (ndim, sizes, dtype) on `device` (msg: PT_LINALG_OUT_MSG_*). */
pt_status pt_linalg_check_out(const char *op, pt_tensor *out, int32_t ndim, const int64_t *sizes,
                              int32_t dtype, int32_t device, int msg);
/* A new contiguous result, or a new reference to the checked out= tensor. */
pt_status pt_linalg_make_result(const char *op, pt_tensor *out_arg, int32_t ndim,
                                const int64_t *sizes, int32_t dtype, int32_t device, int msg,
                                pt_tensor **out);
/* A view of t with the given sizes and strides (element strides, same offset). */
pt_status pt_linalg_view_as(const pt_tensor *t, int32_t ndim, const int64_t *sizes,
                            const int64_t *strides, pt_tensor **out);
/* Runs c = beta * c + alpha * a @ b and hands *result over to the caller, or releases it. */
pt_status pt_linalg_finish(pt_tensor *result, pt_tensor *c, const pt_tensor *a, const pt_tensor *b,
                           const pt_linalg_product *p, pt_tensor **out);
/* A vector of n elements as an n x 1 matrix (its column stride is never used). */
pt_status pt_linalg_as_column(const pt_tensor *v, pt_tensor **out);
/* pt_linalg_run into the vector result r through its m x 1 view; hands r over or releases it. */
pt_status pt_linalg_finish_vector(pt_tensor *r, const pt_tensor *a, const pt_tensor *b,
                                  const pt_linalg_product *p, pt_tensor **out);

/* bmm's checks, shared with baddbmm and matmul (linalg.c): batch1 and batch2 are 3-D and their
 * batch and inner sizes agree; the two dtypes agree ("expected scalar type"). */
pt_status pt_linalg_bmm_checks(const pt_tensor *b1, const pt_tensor *b2);
pt_status pt_linalg_batch_dtype_check(const pt_tensor *b1, const pt_tensor *b2);

#endif
