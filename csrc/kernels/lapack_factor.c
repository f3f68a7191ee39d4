/* lapack_factor.c - the operators that run LAPACK: lu_factor_ex (getrf), inv_ex (getrf + getri),
 * _linalg_det and _linalg_slogdet (getrf, then the diagonal), _linalg_solve_ex (getrf + getrs),
 * cholesky_ex (potrf), solve_triangular (trtrs), _linalg_eigh (syevd / heevd), _linalg_svd
 * (gesdd) and qr (geqrf + orgqr / ungqr), for float32, float64, complex64 and complex128.
 *
 * Each kernel checks its arguments in torch's order and with torch's messages, then (Note
 * [LAPACK off] in lapack.c) requires LAPACK, copies its input into a column-major batch and runs
 * the routine once per matrix of the batch on that copy. LAPACK's routines take one matrix with a
 * leading dimension; the batch loop is here. The `info` of each matrix goes to the info tensor of
 * the _ex forms (int32, torch's dtype), or is checked with torch's message where torch checks it.
 *
 * Note [right-hand solves]
 * X A = B is solved as A^T X^T = B^T. A row-major (contiguous) matrix is the column-major copy
 * of its transpose, so the result X is allocated contiguous, B is copied into it, and LAPACK
 * solves in place for X^T with A^T's factors: no transposed copies are made afterwards.
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lapack.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

#ifdef PT_HAVE_LAPACK
#include <lapacke.h>
_Static_assert(sizeof(lapack_int) == sizeof(int32_t), "pivots and info are int32 tensors");

/* One LAPACKE routine in its four types (s, d, c, z names), column-major. void * operands
 * convert to each routine's element pointer type. */
#define LP_CALL(dt, s, d, c, z, ...)                                                               \
    ((dt) == PT_FLOAT32    ? LAPACKE_##s(LAPACK_COL_MAJOR, __VA_ARGS__)                            \
     : (dt) == PT_FLOAT64  ? LAPACKE_##d(LAPACK_COL_MAJOR, __VA_ARGS__)                            \
     : (dt) == PT_COMPLEX64 ? LAPACKE_##c(LAPACK_COL_MAJOR, __VA_ARGS__)                           \
                           : LAPACKE_##z(LAPACK_COL_MAJOR, __VA_ARGS__))
#endif

static void *mat(const pt_tensor *t, int64_t i, int64_t elems)
{
    return (char *)pt_tensor_data(t) + i * elems * pt_dtype_itemsize(t->dtype);
}

static int32_t ld(int64_t m) { return m > 0 ? (int32_t)m : 1; }

static pt_status int32_batch(const pt_tensor *A, int64_t last, bool with_last, pt_tensor **out)
{
    int64_t sizes[PT_MAX_DIMS];
    int32_t nd = A->ndim - 2;
    memcpy(sizes, A->sizes, sizeof(int64_t) * (size_t)nd);
    if (with_last) sizes[nd++] = last;
    pt_device cpu = {PT_DEV_CPU, 0};
    PT_TRY(pt_tensor_empty(nd, sizes, PT_INT32, cpu, out));
    memset(pt_tensor_data(*out), 0, (size_t)(*out)->numel * sizeof(int32_t));
    return PT_OK;
}

/* An uninitialized tensor of A's batch sizes followed by `extra` trailing sizes. */
static pt_status batch_tensor(const pt_tensor *A, int32_t nextra, const int64_t *extra,
                              int32_t dtype, bool colmajor, pt_tensor **out)
{
    int64_t sizes[PT_MAX_DIMS];
    int32_t nd = A->ndim - 2;
    memcpy(sizes, A->sizes, sizeof(int64_t) * (size_t)nd);
    for (int32_t i = 0; i < nextra; i++) sizes[nd++] = extra[i];
    if (colmajor) return pt_lapack_empty_colmajor(nd, sizes, dtype, out);
    pt_device cpu = {PT_DEV_CPU, 0};
    return pt_tensor_empty(nd, sizes, dtype, cpu, out);
}

static pt_status fail_release(pt_status st, int n, pt_tensor **ts)
{
    for (int i = 0; i < n; i++)
        if (ts[i]) pt_tensor_release(ts[i]);
    return st;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---------------------------------------------------------------- LU */

/* LU factors of every matrix of a (in place) into pivots and info. */
static void lu_batch(pt_tensor *a, pt_tensor *pivots, pt_tensor *info)
{
#ifdef PT_HAVE_LAPACK
    int64_t m = a->sizes[a->ndim - 2], n = a->sizes[a->ndim - 1], k = min64(m, n);
    int64_t batch = pt_lapack_batch(a);
    int32_t *piv = pt_tensor_data(pivots), *inf = pt_tensor_data(info);
    for (int64_t i = 0; i < batch && m > 0 && n > 0; i++)
        inf[i] = LP_CALL(a->dtype, sgetrf, dgetrf, cgetrf, zgetrf, (lapack_int)m, (lapack_int)n,
                         mat(a, i, m * n), ld(m), piv + i * k);
#else
    PT_UNUSED(a);
    PT_UNUSED(pivots);
    PT_UNUSED(info);
#endif
}

pt_status pt_kernel_linalg_lu_factor_ex(const pt_tensor *A, int32_t pivot, int32_t check_errors,
                                        pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2)
{
    if (A->ndim < 2) {
        char shape[PT_MAX_DIMS * 21 + 2] = "";
        size_t used = 0;
        for (int32_t i = 0; i < A->ndim; i++)
            used += (size_t)snprintf(shape + used, sizeof shape - used, i ? ", %lld" : "%lld",
                                     (long long)A->sizes[i]);
        return PT_ERROR(PT_ERR_RUNTIME, "torch.lu_factor: Expected tensor with 2 or more "
                        "dimensions. Got size: [%s] instead", shape);
    }
    PT_TRY(pt_lapack_check_input("linalg.lu_factor", A, 0, "lu_cpu"));
    if (!pivot)
        return PT_ERROR(PT_ERR_RUNTIME, "linalg.lu_factor: LU without pivoting is not implemented "
                        "on the CPU");
    PT_TRY(pt_lapack_require());
    int64_t k = min64(A->sizes[A->ndim - 2], A->sizes[A->ndim - 1]);
    pt_tensor *t[3] = {NULL, NULL, NULL};
    pt_status st = pt_lapack_colmajor(A, A->dtype, &t[0]);
    if (st == PT_OK) st = int32_batch(A, k, true, &t[1]);
    if (st == PT_OK) st = int32_batch(A, 0, false, &t[2]);
    if (st != PT_OK) return fail_release(st, 3, t);
    lu_batch(t[0], t[1], t[2]);
    if (check_errors) {
        st = pt_lapack_check_info(t[2], "torch.linalg.lu_factor_ex", A->ndim > 2);
        if (st != PT_OK) return fail_release(st, 3, t);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    return PT_OK;
}

pt_status pt_kernel_linalg_inv_ex(const pt_tensor *A, int32_t check_errors, pt_tensor **ret0,
                                  pt_tensor **ret1)
{
    PT_TRY(pt_lapack_check_input("linalg.inv", A, PT_LP_SQUARE | PT_LP_FLOATING | PT_LP_NO_LOW,
                                 "linalg_inv_cpu"));
    PT_TRY(pt_lapack_require());
    int64_t n = A->sizes[A->ndim - 1];
    pt_tensor *t[3] = {NULL, NULL, NULL};
    pt_status st = pt_lapack_colmajor(A, A->dtype, &t[0]);
    if (st == PT_OK) st = int32_batch(A, n, true, &t[2]);
    if (st == PT_OK) st = int32_batch(A, 0, false, &t[1]);
    if (st != PT_OK) return fail_release(st, 3, t);
    lu_batch(t[0], t[2], t[1]);
#ifdef PT_HAVE_LAPACK
    int32_t *inf = pt_tensor_data(t[1]), *piv = pt_tensor_data(t[2]);
    for (int64_t i = 0; i < pt_lapack_batch(A) && n > 0; i++)
        if (inf[i] == 0)
            inf[i] = LP_CALL(A->dtype, sgetri, dgetri, cgetri, zgetri, (lapack_int)n,
                             mat(t[0], i, n * n), ld(n), piv + i * n);
#endif
    pt_tensor_release(t[2]);
    if (check_errors) {
        st = pt_lapack_check_info(t[1], "linalg.inv_ex", A->ndim > 2);
        if (st != PT_OK) return fail_release(st, 2, t);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    return PT_OK;
}

/* ---------------------------------------------------------------- det, slogdet */

/* The determinant of one LU-factored n x n matrix: the product of U's diagonal, negated once
 * per row exchange. *mag_log: the sum of log |u_ii|; *phase: the product of u_ii / |u_ii| and
 * of the exchanges' signs (0 when some u_ii is 0). */
static void lu_det(int32_t dtype, const char *lu, const int32_t *piv, int64_t n,
                   double complex *det, double *mag_log, double complex *phase)
{
    double complex d = 1, ph = 1;
    double lg = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t at = j * n + j;
        double complex u;
        switch (dtype) {
        case PT_FLOAT32: u = ((const float *)lu)[at]; break;
        case PT_FLOAT64: u = ((const double *)lu)[at]; break;
        case PT_COMPLEX64: u = ((const float complex *)lu)[at]; break;
        default: u = ((const double complex *)lu)[at]; break;
        }
        if (piv[j] != j + 1) {
            d = -d;
            ph = -ph;
        }
        d *= u;
        double a = cabs(u);
        lg += log(a);
        ph = a == 0 ? 0 : ph * (u / a);
    }
    *det = d;
    *mag_log = lg;
    *phase = ph;
}

static void store(int32_t dtype, void *base, int64_t i, double complex v)
{
    switch (dtype) {
    case PT_FLOAT32: ((float *)base)[i] = (float)creal(v); break;
    case PT_FLOAT64: ((double *)base)[i] = creal(v); break;
    case PT_COMPLEX64: ((float complex *)base)[i] = (float complex)v; break;
    default: ((double complex *)base)[i] = v; break;
    }
}

/* The LU factors of A's batch, for det and slogdet. */
static pt_status det_lu(const pt_tensor *A, pt_tensor **lu, pt_tensor **pivots)
{
    PT_TRY(pt_lapack_require());
    int64_t n = A->sizes[A->ndim - 1];
    pt_tensor *t[3] = {NULL, NULL, NULL};
    pt_status st = pt_lapack_colmajor(A, A->dtype, &t[0]);
    if (st == PT_OK) st = int32_batch(A, n, true, &t[1]);
    if (st == PT_OK) st = int32_batch(A, 0, false, &t[2]);
    if (st != PT_OK) return fail_release(st, 3, t);
    lu_batch(t[0], t[1], t[2]);
    pt_tensor_release(t[2]); /* a singular matrix's determinant is 0: info is not an error */
    *lu = t[0];
    *pivots = t[1];
    return PT_OK;
}

pt_status pt_kernel__linalg_det(const pt_tensor *A, pt_tensor **ret0, pt_tensor **ret1,
                                pt_tensor **ret2)
{
    PT_TRY(pt_lapack_check_input("linalg.det", A, PT_LP_SQUARE | PT_LP_FLOATING, "lu_cpu"));
    pt_tensor *t[3] = {NULL, NULL, NULL};
    PT_TRY(det_lu(A, &t[1], &t[2]));
    pt_status st = batch_tensor(A, 0, NULL, A->dtype, false, &t[0]);
    if (st != PT_OK) return fail_release(st, 3, t);
    int64_t n = A->sizes[A->ndim - 1];
    const int32_t *piv = pt_tensor_data(t[2]);
    for (int64_t i = 0; i < t[0]->numel; i++) {
        double complex d, ph;
        double lg;
        lu_det(A->dtype, mat(t[1], i, n * n), piv + i * n, n, &d, &lg, &ph);
        store(A->dtype, pt_tensor_data(t[0]), i, d);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    return PT_OK;
}

pt_status pt_kernel__linalg_slogdet(const pt_tensor *A, pt_tensor **ret0, pt_tensor **ret1,
                                    pt_tensor **ret2, pt_tensor **ret3)
{
    PT_TRY(pt_lapack_check_input("linalg.slogdet", A,
                                 PT_LP_SQUARE | PT_LP_FLOATING | PT_LP_NO_LOW, "lu_cpu"));
    pt_tensor *t[4] = {NULL, NULL, NULL, NULL};
    PT_TRY(det_lu(A, &t[2], &t[3]));
    int32_t real = pt_lapack_real_dtype(A->dtype);
    pt_status st = batch_tensor(A, 0, NULL, A->dtype, false, &t[0]);
    if (st == PT_OK) st = batch_tensor(A, 0, NULL, real, false, &t[1]);
    if (st != PT_OK) return fail_release(st, 4, t);
    int64_t n = A->sizes[A->ndim - 1];
    const int32_t *piv = pt_tensor_data(t[3]);
    for (int64_t i = 0; i < t[0]->numel; i++) {
        double complex d, ph;
        double lg;
        lu_det(A->dtype, mat(t[2], i, n * n), piv + i * n, n, &d, &lg, &ph);
        store(A->dtype, pt_tensor_data(t[0]), i, ph);
        store(real, pt_tensor_data(t[1]), i, lg);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    *ret3 = t[3];
    return PT_OK;
}

/* ---------------------------------------------------------------- solve */

/* The sizes of A and B's broadcast batch (into out, returns its length), or an error. */
static pt_status broadcast_batch(const char *api, const pt_tensor *A, int32_t bnd,
                                 const int64_t *bsizes, int64_t *out, int32_t *nout)
{
    int32_t na = A->ndim - 2, nb = bnd, n = na > nb ? na : nb;
    for (int32_t i = 0; i < n; i++) {
        int64_t a = i - (n - na) >= 0 ? A->sizes[i - (n - na)] : 1;
        int64_t b = i - (n - nb) >= 0 ? bsizes[i - (n - nb)] : 1;
        if (a != b && a != 1 && b != 1)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: The size of tensor a (%lld) must match the size "
                            "of tensor b (%lld) at non-singleton dimension %d", api, (long long)a,
                            (long long)b, (int)i);
        out[i] = a == 1 ? b : a;
    }
    *nout = n;
    return PT_OK;
}

/* A new tensor of the given sizes (column-major, or contiguous when rowmajor) holding src
 * broadcast to them. */
static pt_status copy_into(const pt_tensor *src, int32_t nd, const int64_t *sizes, bool rowmajor,
                           pt_tensor **out)
{
    pt_tensor *t = NULL;
    pt_device cpu = {PT_DEV_CPU, 0};
    if (rowmajor || nd < 2) PT_TRY(pt_tensor_empty(nd, sizes, src->dtype, cpu, &t));
    else PT_TRY(pt_lapack_empty_colmajor(nd, sizes, src->dtype, &t));
    pt_status st = pt_tensor_copy_(t, src);
    if (st != PT_OK) {
        pt_tensor_release(t);
        return st;
    }
    *out = t;
    return PT_OK;
}

static pt_status solve_shapes(const char *api, const pt_tensor *A, const pt_tensor *B, bool left,
                              bool *vector)
{
    if (B->ndim < 1)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: The input tensor B must have at least 1 dimensions.",
                        api);
    if (A->dtype != B->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: Expected A and B to have the same dtype, but found A "
                        "of type %s and B of type %s instead", api,
                        pt_dtype_info_of(A->dtype)->legacy_name,
                        pt_dtype_info_of(B->dtype)->legacy_name);
    bool vec = B->ndim == 1;
    if (!vec && B->ndim == A->ndim - 1) {
        vec = true;
        for (int32_t i = 0; i < B->ndim; i++) vec = vec && B->sizes[i] == A->sizes[i];
    }
    int64_t n = A->sizes[A->ndim - 1];
    int64_t br = vec ? (left ? B->sizes[B->ndim - 1] : 1) : B->sizes[B->ndim - 2];
    int64_t bc = vec ? (left ? 1 : B->sizes[B->ndim - 1]) : B->sizes[B->ndim - 1];
    if ((left ? br : bc) != n)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: Incompatible shapes of A and B for the equation %s "
                        "(%lldx%lld and %lldx%lld)", api, left ? "AX = B" : "XA = B",
                        (long long)n, (long long)n, (long long)br, (long long)bc);
    *vector = vec;
    return PT_OK;
}

pt_status pt_kernel__linalg_solve_ex(const pt_tensor *A, const pt_tensor *B, int32_t left,
                                     int32_t check_errors, pt_tensor **ret0, pt_tensor **ret1,
                                     pt_tensor **ret2, pt_tensor **ret3)
{
    const char *api = "linalg.solve";
    PT_TRY(pt_lapack_check_input(api, A, PT_LP_SQUARE | PT_LP_FLOATING, "lu_cpu"));
    if (!B) return PT_ERROR(PT_ERR_VALUE, "%s: B must be a tensor, got None", api);
    bool vec = false;
    PT_TRY(solve_shapes(api, A, B, left, &vec));
    PT_TRY(pt_lapack_require());
    int64_t n = A->sizes[A->ndim - 1];
    int32_t bbatch = vec ? B->ndim - 1 : B->ndim - 2;
    int64_t sizes[PT_MAX_DIMS];
    int32_t nb;
    PT_TRY(broadcast_batch(api, A, bbatch, B->sizes, sizes, &nb));
    int64_t batch = 1;
    for (int32_t i = 0; i < nb; i++) batch *= sizes[i];
    int64_t k = vec ? 1 : B->sizes[B->ndim - (left ? 1 : 2)];
    pt_tensor *t[4] = {NULL, NULL, NULL, NULL};
    pt_tensor *At = NULL;
    /* The result: B's values broadcast, in the layout LAPACK solves in (Note [right-hand
     * solves]). */
    int32_t rnd = nb;
    if (vec) sizes[rnd++] = n;
    else if (left) sizes[rnd++] = n, sizes[rnd++] = k;
    else sizes[rnd++] = k, sizes[rnd++] = n;
    pt_status st = copy_into(B, rnd, sizes, !left || vec, &t[0]);
    /* The factors: of A (left) or of A^T (right), column-major. */
    if (st == PT_OK && !left) {
        At = pt_call_transpose_int(A, -2, -1);
        if (!At) st = pt_error_code();
    }
    sizes[nb] = n;
    sizes[nb + 1] = n;
    if (st == PT_OK) st = copy_into(left ? A : At, nb + 2, sizes, false, &t[1]);
    if (At) pt_tensor_release(At);
    pt_device cpu = {PT_DEV_CPU, 0};
    if (st == PT_OK) st = pt_tensor_empty(nb + 1, sizes, PT_INT32, cpu, &t[2]);
    if (st == PT_OK) st = pt_tensor_empty(nb, sizes, PT_INT32, cpu, &t[3]);
    if (st != PT_OK) return fail_release(st, 4, t);
    memset(pt_tensor_data(t[3]), 0, sizeof(int32_t) * (size_t)batch);
    lu_batch(t[1], t[2], t[3]);
#ifdef PT_HAVE_LAPACK
    int32_t *inf = pt_tensor_data(t[3]), *piv = pt_tensor_data(t[2]);
    for (int64_t i = 0; i < batch && n > 0 && k > 0; i++)
        if (inf[i] == 0)
            LP_CALL(A->dtype, sgetrs, dgetrs, cgetrs, zgetrs, 'N', (lapack_int)n, (lapack_int)k,
                    mat(t[1], i, n * n), ld(n), piv + i * n, mat(t[0], i, n * k), ld(n));
#endif
    if (check_errors) {
        st = pt_lapack_check_info(t[3], "torch.linalg.solve_ex", nb > 0);
        if (st != PT_OK) return fail_release(st, 4, t);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    *ret3 = t[3];
    return PT_OK;
}

/* ---------------------------------------------------------------- cholesky */

/* Zeroes the triangle LAPACK left unreferenced: above the diagonal (lower) or below (upper). */
static void zero_triangle(pt_tensor *a, bool lower)
{
    int64_t m = a->sizes[a->ndim - 2], n = a->sizes[a->ndim - 1];
    size_t isz = (size_t)pt_dtype_itemsize(a->dtype);
    int64_t batch = pt_lapack_batch(a);
    for (int64_t b = 0; b < batch; b++) {
        char *p = mat(a, b, m * n);
        for (int64_t j = 0; j < n; j++) {
            int64_t lo = lower ? 0 : min64(j + 1, m), hi = lower ? min64(j, m) : m;
            if (hi > lo) memset(p + (size_t)(j * m + lo) * isz, 0, (size_t)(hi - lo) * isz);
        }
    }
}

pt_status pt_kernel_linalg_cholesky_ex(const pt_tensor *self, int32_t upper, int32_t check_errors,
                                       pt_tensor **ret0, pt_tensor **ret1)
{
    PT_TRY(pt_lapack_check_input("linalg.cholesky", self, PT_LP_SQUARE | PT_LP_FLOATING,
                                 "cholesky_cpu"));
    PT_TRY(pt_lapack_require());
    pt_tensor *t[2] = {NULL, NULL};
    pt_status st = pt_lapack_colmajor(self, self->dtype, &t[0]);
    if (st == PT_OK) st = int32_batch(self, 0, false, &t[1]);
    if (st != PT_OK) return fail_release(st, 2, t);
#ifdef PT_HAVE_LAPACK
    int64_t n = self->sizes[self->ndim - 1];
    int32_t *inf = pt_tensor_data(t[1]);
    for (int64_t i = 0; i < pt_lapack_batch(self) && n > 0; i++)
        inf[i] = LP_CALL(self->dtype, spotrf, dpotrf, cpotrf, zpotrf, upper ? 'U' : 'L',
                         (lapack_int)n, mat(t[0], i, n * n), ld(n));
#endif
    zero_triangle(t[0], !upper);
    if (check_errors) {
        st = pt_lapack_check_info(t[1], "linalg.cholesky_ex", self->ndim > 2);
        if (st != PT_OK) return fail_release(st, 2, t);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    return PT_OK;
}

/* ---------------------------------------------------------------- triangular solve */

/* Back or forward substitution for op(A) X = B (n x k, column-major) where LAPACK's trtrs
 * refuses: a zero on A's diagonal, where torch's trsm divides by it (inf and nan). op is A (trans
 * 'N') or A^T ('T'); upper says which triangle of A holds it; unit: a unit diagonal. */
#define PT_LP_SUBST(T, NAME)                                                                       \
    static void NAME(const T *a, T *b, int64_t n, int64_t k, bool upper, bool trans, bool unit)  \
    {                                                                                              \
        bool up = upper != trans; /* the triangle of op(A) */                                     \
        for (int64_t c = 0; c < k; c++) {                                                          \
            T *x = b + c * n;                                                                      \
            for (int64_t s = 0; s < n; s++) {                                                      \
                int64_t i = up ? n - 1 - s : s;                                                    \
                T acc = x[i];                                                                      \
                for (int64_t j = up ? i + 1 : 0; j < (up ? n : i); j++)                            \
                    acc -= (trans ? a[i * n + j] : a[j * n + i]) * x[j];                           \
                x[i] = unit ? acc : acc / a[i * n + i];                                            \
            }                                                                                      \
        }                                                                                          \
    }
PT_LP_SUBST(float, subst_s)
PT_LP_SUBST(double, subst_d)
PT_LP_SUBST(float complex, subst_c)
PT_LP_SUBST(double complex, subst_z)

static void subst(int32_t dt, const void *a, void *b, int64_t n, int64_t k, bool upper, bool trans,
                  bool unit)
{
    switch (dt) {
    case PT_FLOAT32: subst_s(a, b, n, k, upper, trans, unit); break;
    case PT_FLOAT64: subst_d(a, b, n, k, upper, trans, unit); break;
    case PT_COMPLEX64: subst_c(a, b, n, k, upper, trans, unit); break;
    default: subst_z(a, b, n, k, upper, trans, unit); break;
    }
}

pt_status pt_kernel_linalg_solve_triangular(const pt_tensor *self, const pt_tensor *B,
                                            int32_t upper, int32_t left, int32_t unitriangular,
                                            pt_tensor **ret)
{
    const char *api = "linalg.solve_triangular";
    PT_TRY(pt_lapack_check_input(api, self, PT_LP_SQUARE, "triangular_solve_cpu"));
    if (!B) return PT_ERROR(PT_ERR_VALUE, "%s: B must be a tensor, got None", api);
    if (B->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: The input tensor B must have at least 2 dimensions.",
                        api);
    int64_t n = self->sizes[self->ndim - 1];
    int64_t br = B->sizes[B->ndim - 2], bc = B->sizes[B->ndim - 1];
    if ((left ? br : bc) != n)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: Incompatible shapes of A and B for the equation %s "
                        "(%lldx%lld and %lldx%lld)", api, left ? "AX = B" : "XA = B",
                        (long long)n, (long long)n, (long long)br, (long long)bc);
    if (self->dtype != B->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "%s: Expected A and B to have the same dtype, but found A "
                        "of type %s and B of type %s instead", api,
                        pt_dtype_info_of(self->dtype)->legacy_name,
                        pt_dtype_info_of(B->dtype)->legacy_name);
    PT_TRY(pt_lapack_require());
    int64_t sizes[PT_MAX_DIMS];
    int32_t nb;
    PT_TRY(broadcast_batch(api, self, B->ndim - 2, B->sizes, sizes, &nb));
    int64_t batch = 1;
    for (int32_t i = 0; i < nb; i++) batch *= sizes[i];
    int64_t k = left ? bc : br;
    pt_tensor *t[2] = {NULL, NULL};
    sizes[nb] = br;
    sizes[nb + 1] = bc;
    pt_status st = copy_into(B, nb + 2, sizes, !left, &t[0]); /* Note [right-hand solves] */
    sizes[nb] = sizes[nb + 1] = n;
    if (st == PT_OK) st = copy_into(self, nb + 2, sizes, false, &t[1]);
    if (st != PT_OK) return fail_release(st, 2, t);
    for (int64_t i = 0; i < batch && n > 0 && k > 0; i++) {
        void *a = mat(t[1], i, n * n), *b = mat(t[0], i, n * k);
        int info = 1;
#ifdef PT_HAVE_LAPACK
        info = LP_CALL(self->dtype, strtrs, dtrtrs, ctrtrs, ztrtrs, upper ? 'U' : 'L',
                       left ? 'N' : 'T', unitriangular ? 'U' : 'N', (lapack_int)n, (lapack_int)k,
                       a, ld(n), b, ld(n));
#endif
        if (info != 0) subst(self->dtype, a, b, n, k, upper, !left, unitriangular);
    }
    pt_tensor_release(t[1]);
    *ret = t[0];
    return PT_OK;
}

/* ---------------------------------------------------------------- eigh */

pt_status pt_kernel__linalg_eigh(const pt_tensor *A, const char *UPLO, int32_t compute_v,
                                 pt_tensor **ret0, pt_tensor **ret1)
{
    PT_TRY(pt_lapack_check_input("linalg.eigh", A, PT_LP_SQUARE, "linalg_eigh_cpu"));
    if (!UPLO || strlen(UPLO) != 1 || (UPLO[0] != 'L' && UPLO[0] != 'U' && UPLO[0] != 'l' &&
                                       UPLO[0] != 'u'))
        return PT_ERROR(PT_ERR_RUNTIME, "Expected UPLO argument to be 'L' or 'U', but got %s",
                        UPLO ? UPLO : "None");
    PT_TRY(pt_lapack_require());
    int64_t n = A->sizes[A->ndim - 1];
    pt_tensor *t[3] = {NULL, NULL, NULL};
    pt_status st = pt_lapack_colmajor(A, A->dtype, &t[1]);
    if (st == PT_OK)
        st = batch_tensor(A, 1, &n, pt_lapack_real_dtype(A->dtype), false, &t[0]);
    if (st == PT_OK) st = int32_batch(A, 0, false, &t[2]);
    if (st != PT_OK) return fail_release(st, 3, t);
#ifdef PT_HAVE_LAPACK
    int32_t *inf = pt_tensor_data(t[2]);
    char up = (UPLO[0] == 'U' || UPLO[0] == 'u') ? 'U' : 'L';
    for (int64_t i = 0; i < pt_lapack_batch(A) && n > 0; i++)
        inf[i] = LP_CALL(A->dtype, ssyevd, dsyevd, cheevd, zheevd, compute_v ? 'V' : 'N', up,
                         (lapack_int)n, mat(t[1], i, n * n), ld(n), mat(t[0], i, n));
#endif
    st = pt_lapack_check_info(t[2], "linalg.eigh", A->ndim > 2);
    pt_tensor_release(t[2]);
    if (st != PT_OK) return fail_release(st, 2, t);
    if (!compute_v) {
        pt_tensor_release(t[1]);
        int64_t zero = 0;
        pt_device cpu = {PT_DEV_CPU, 0};
        st = pt_tensor_empty(1, &zero, A->dtype, cpu, &t[1]);
        if (st != PT_OK) return fail_release(st, 1, t);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    return PT_OK;
}

/* ---------------------------------------------------------------- svd */

/* Sets every matrix of t (column-major m x n) to the identity's first columns. */
static void set_identity(pt_tensor *t)
{
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1];
    size_t isz = (size_t)pt_dtype_itemsize(t->dtype);
    memset(pt_tensor_data(t), 0, (size_t)t->numel * isz);
    for (int64_t b = 0; b < pt_lapack_batch(t); b++)
        for (int64_t j = 0; j < min64(m, n); j++)
            store(t->dtype, mat(t, b, m * n), j * m + j, 1);
}

pt_status pt_kernel__linalg_svd(const pt_tensor *A, int32_t full_matrices, int32_t compute_uv,
                                const char *driver, pt_tensor **ret0, pt_tensor **ret1,
                                pt_tensor **ret2)
{
    PT_TRY(pt_lapack_check_input("linalg.svd", A, PT_LP_FLOATING, "linalg_svd_cpu"));
    if (driver)
        return PT_ERROR(PT_ERR_RUNTIME, "torch.linalg.svd: keyword argument `driver=` is only "
                        "supported on CUDA inputs with cuSOLVER backend.");
    PT_TRY(pt_lapack_require());
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], k = min64(m, n);
    int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
    pt_tensor *t[5] = {NULL, NULL, NULL, NULL, NULL};
    int64_t us[2] = {m, ucols}, vs[2] = {vrows, n};
    pt_status st = pt_lapack_colmajor(A, A->dtype, &t[3]);
    if (st == PT_OK) st = batch_tensor(A, 1, &k, pt_lapack_real_dtype(A->dtype), false, &t[1]);
    if (st == PT_OK && compute_uv) st = batch_tensor(A, 2, us, A->dtype, true, &t[0]);
    if (st == PT_OK && compute_uv) st = batch_tensor(A, 2, vs, A->dtype, true, &t[2]);
    if (st == PT_OK) st = int32_batch(A, 0, false, &t[4]);
    if (st != PT_OK) return fail_release(st, 5, t);
    if (compute_uv && k == 0) {
        set_identity(t[0]);
        set_identity(t[2]);
    }
#ifdef PT_HAVE_LAPACK
    int32_t *inf = pt_tensor_data(t[4]);
    char jobz = compute_uv ? (full_matrices ? 'A' : 'S') : 'N';
    char dummy[16]; /* gesdd's U and VT when jobz is 'N' (never written, must not be NULL) */
    for (int64_t i = 0; i < pt_lapack_batch(A) && k > 0; i++)
        inf[i] = LP_CALL(A->dtype, sgesdd, dgesdd, cgesdd, zgesdd, jobz, (lapack_int)m,
                         (lapack_int)n, mat(t[3], i, m * n), ld(m), mat(t[1], i, k),
                         compute_uv ? mat(t[0], i, m * ucols) : dummy, ld(m),
                         compute_uv ? mat(t[2], i, vrows * n) : dummy, ld(vrows));
    /* gesdd refuses a matrix holding NaN as an illegal A (argument 5 of LAPACKE's call). */
    for (int64_t i = 0; i < t[4]->numel; i++)
        if (inf[i] == -5) {
            char prefix[64] = "";
            if (A->ndim > 2) snprintf(prefix, sizeof prefix, "(Batch element %lld): ", (long long)i);
            fail_release(PT_OK, 5, t);
            return PT_ERROR(PT_ERR_RUNTIME, "linalg.svd: %sThe algorithm failed to converge "
                            "because the input matrix contained non-finite values.", prefix);
        }
#endif
    st = pt_lapack_check_info(t[4], "linalg.svd", A->ndim > 2);
    pt_tensor_release(t[4]);
    pt_tensor_release(t[3]);
    if (st != PT_OK) return fail_release(st, 3, t);
    pt_device cpu = {PT_DEV_CPU, 0};
    int64_t zero = 0;
    if (!compute_uv) {
        st = pt_tensor_empty(1, &zero, A->dtype, cpu, &t[0]);
        if (st == PT_OK) st = pt_tensor_empty(1, &zero, A->dtype, cpu, &t[2]);
        if (st != PT_OK) return fail_release(st, 3, t);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    *ret2 = t[2];
    return PT_OK;
}

/* ---------------------------------------------------------------- qr */

pt_status pt_kernel_linalg_qr(const pt_tensor *A, const char *mode, pt_tensor **ret0,
                              pt_tensor **ret1)
{
    PT_TRY(pt_lapack_check_input("linalg.qr", A, PT_LP_FLOATING, "geqrf_cpu"));
    bool complete = mode && strcmp(mode, "complete") == 0, r_only = mode && !strcmp(mode, "r");
    if (!mode || (!complete && !r_only && strcmp(mode, "reduced") != 0))
        return PT_ERROR(PT_ERR_RUNTIME, "qr received unrecognized mode '%s' but expected one of "
                        "'reduced' (default), 'r', or 'complete'", mode ? mode : "None");
    PT_TRY(pt_lapack_require());
    int64_t m = A->sizes[A->ndim - 2], n = A->sizes[A->ndim - 1], k = min64(m, n);
    int64_t qcols = complete ? m : k, rrows = complete ? m : k;
    pt_tensor *t[4] = {NULL, NULL, NULL, NULL}; /* Q, R, the factored copy, tau */
    int64_t qs[2] = {m, qcols}, rs[2] = {rrows, n};
    pt_status st = pt_lapack_colmajor(A, A->dtype, &t[2]);
    if (st == PT_OK) st = batch_tensor(A, 1, &k, A->dtype, false, &t[3]);
    if (st == PT_OK) st = batch_tensor(A, 2, rs, A->dtype, true, &t[1]);
    if (st == PT_OK && !r_only) st = batch_tensor(A, 2, qs, A->dtype, true, &t[0]);
    if (st != PT_OK) return fail_release(st, 4, t);
    size_t isz = (size_t)pt_dtype_itemsize(A->dtype);
    int64_t batch = pt_lapack_batch(A);
    for (int64_t i = 0; i < batch; i++) {
        char *a = mat(t[2], i, m * n), *r = mat(t[1], i, rrows * n);
#ifdef PT_HAVE_LAPACK
        if (k > 0)
            LP_CALL(A->dtype, sgeqrf, dgeqrf, cgeqrf, zgeqrf, (lapack_int)m, (lapack_int)n, (void *)a,
                    ld(m), mat(t[3], i, k));
#endif
        memset(r, 0, (size_t)(rrows * n) * isz);
        for (int64_t j = 0; j < n; j++)
            memcpy(r + (size_t)(j * rrows) * isz, a + (size_t)(j * m) * isz,
                   (size_t)min64(j + 1, rrows) * isz);
        if (r_only) continue;
        char *q = mat(t[0], i, m * qcols);
        memset(q, 0, (size_t)(m * qcols) * isz);
        memcpy(q, a, (size_t)(m * min64(n, qcols)) * isz);
#ifdef PT_HAVE_LAPACK
        if (m > 0 && qcols > 0)
            LP_CALL(A->dtype, sorgqr, dorgqr, cungqr, zungqr, (lapack_int)m, (lapack_int)qcols,
                    (lapack_int)k, (void *)q, ld(m), mat(t[3], i, k));
#endif
    }
    pt_tensor_release(t[2]);
    pt_tensor_release(t[3]);
    if (r_only) {
        int64_t zero = 0;
        pt_device cpu = {PT_DEV_CPU, 0};
        st = pt_tensor_empty(1, &zero, A->dtype, cpu, &t[0]);
        if (st != PT_OK) return fail_release(st, 2, t);
    }
    *ret0 = t[0];
    *ret1 = t[1];
    return PT_OK;
}
