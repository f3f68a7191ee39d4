/* linalg.h - the one matrix-product call that the linear-algebra operators make (through
 * pt_linalg_run, linalg_run.c), and the two implementations behind it: BLIS's typed API (blas.c)
 * and the portable blocked kernel (gemm_portable.c).
 *
 * Note [one gemm call]
 * Every operator of the family is C = beta * C + alpha * op(A) * B on one matrix of a batch: mm,
 * addmm and bmm directly, mv and addmv with n = 1, dot and vdot with m = n = 1 (vdot conjugates
 * A). The backend picks BLIS's level-1/2/3 routine by shape (dotxv, gemv, gemm), so the operators
 * need not. Strides are in elements, any sign; the caller guarantees that they are ones BLIS
 * accepts (pt_blas_strides_ok) and that C overlaps neither A nor B. beta == 0 means C is not
 * read (NaN and inf in it are ignored, torch's rule); alpha == 0 means A and B are not read.
 */
#ifndef PT_KERNELS_LINALG_H
#define PT_KERNELS_LINALG_H

#include "internal.h"

/* A value of the compute dtype (float32 for float16/bfloat16), as its bytes. */
typedef struct pt_blas_value {
    _Alignas(16) unsigned char bytes[16];
} pt_blas_value;

typedef struct pt_gemm {
    int32_t dtype; /* uint8..int64, float32, float64, complex64, complex128 */
    int64_t m, n, k;
    bool conj_a;
    bool alpha_zero, beta_zero;
    int32_t threads; /* the most threads this call may use (>= 1) */
    pt_blas_value alpha, beta;
    const char *a;
    int64_t rsa, csa;
    const char *b;
    int64_t rsb, csb;
    char *c;
    int64_t rsc, csc;
} pt_gemm;

enum { PT_BLAS_BLIS = 0, PT_BLAS_PORTABLE = 1 };

/* Runs one product on the backend in use (Note [one gemm call]). PT_ERR_MEMORY when the
 * portable kernel cannot get its packing buffers. */
pt_status pt_blas_gemm(const pt_gemm *g);
/* The portable blocked kernel: every dtype of pt_gemm. */
pt_status pt_gemm_portable(const pt_gemm *g);

/* Whether pt_gemm_split takes g on `threads` threads, and g run so (Note [splitting a product]
 * in gemm_split.c): one-thread backend calls on slices of m, n or k in a region of pytensor's. */
bool pt_gemm_split_serves(const pt_gemm *g, int32_t threads);
pt_status pt_gemm_split(const pt_gemm *g, int32_t threads);

/* BLIS's process-wide thread count (what BLAS-API calls into it use), kept equal to
 * pytensor.set_num_threads; pytensor's own calls pass their count per call (Note [BLIS threads]). */
void pt_blas_set_num_threads(int32_t n);

/* The backend in use: BLIS when the build has it, unless PYTENSOR_BLAS=portable at init; tests
 * switch it to check the portable kernel against BLIS. Returns the previous one. PT_BLAS_BLIS
 * without BLIS in the build is refused (the portable one stays). */
int32_t pt_blas_backend(void);
int32_t pt_blas_set_backend(int32_t backend);

/* Whether an m x n matrix with these element strides can go to BLIS as it is: no zero stride
 * and no two elements at one address, in the forms BLIS's stride check accepts. *rs and *cs of
 * size-1 dimensions are rewritten to values that pass it. */
bool pt_blas_strides_ok(int64_t m, int64_t n, int64_t *rs, int64_t *cs);

#endif
