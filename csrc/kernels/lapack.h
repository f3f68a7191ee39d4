/* lapack.h - what the LAPACK-backed operators (lapack.c: the factorizations; lapack_ops.c: the
 * functions torch composes from them, and their backward operators) share: torch's argument
 * checks, the column-major working copies LAPACK reads and writes, and the info checks that turn
 * a failed factorization into torch's message. Hidden like the rest of the core.
 */
#ifndef PT_KERNELS_LAPACK_H
#define PT_KERNELS_LAPACK_H

#include "internal.h"

/* What pt_lapack_check_input checks, in torch's order, beyond A having at least 2 dims. */
enum {
    PT_LP_SQUARE = 1,   /* "A must be batches of square matrices" */
    PT_LP_FLOATING = 2, /* "Expected a floating point or complex tensor as input" */
    PT_LP_NO_LOW = 4,   /* "Low precision dtypes not supported" (float16, bfloat16) */
};

/* PT_OK when LAPACK is there and turned on, else RuntimeError naming the missing library. */
pt_status pt_lapack_require(void);
/* torch's checks of a matrix (batch) argument; kernel: the name of torch's CPU kernel, used in
 * its "not implemented for 'Long'" refusal of the dtypes no LAPACK routine takes. */
pt_status pt_lapack_check_input(const char *api, const pt_tensor *A, unsigned flags,
                                const char *kernel);
/* A new tensor of A's sizes in `dtype` holding A's values (conjugate bit resolved), with every
 * matrix column-major and the batch contiguous: LAPACK's layout, and torch's for its results. */
pt_status pt_lapack_colmajor(const pt_tensor *A, int32_t dtype, pt_tensor **out);
/* An uninitialized column-major batch of the given sizes. */
pt_status pt_lapack_empty_colmajor(int32_t ndim, const int64_t *sizes, int32_t dtype,
                                   pt_tensor **out);
/* The number of matrices in a batch of ndim dims (the product of the leading ndim - 2 sizes). */
int64_t pt_lapack_batch(const pt_tensor *t);
/* torch's _linalg_check_errors: info (int32, one per matrix) all zero, else torch's message
 * for the api ("linalg.inv", "torch.linalg.solve", ...); batched: whether to name the element. */
pt_status pt_lapack_check_info(const pt_tensor *info, const char *api, bool batched);
/* The real dtype of a complex one (float32 for complex64); others unchanged. */
int32_t pt_lapack_real_dtype(int32_t dtype);

#endif
