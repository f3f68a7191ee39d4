/* lapack_ops.c - the torch.linalg functions that torch composes from the LAPACK operators of
 * lapack_factor.c (CompositeImplicitAutograd, so that autograd records the operator they call
 * and their graphs are torch's): inv and inverse over inv_ex, det over _linalg_det, slogdet and
 * logdet over _linalg_slogdet, solve over _linalg_solve_ex, cholesky over cholesky_ex, lu_factor
 * over lu_factor_ex, eigh / eigvalsh over _linalg_eigh, svd / svdvals / torch.svd over
 * _linalg_svd. The non-_ex forms check the info tensor with torch's message (pt_lapack_check_info)
 * and drop it.
 */
#include <string.h>

#include "lapack.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

/* The alpha of add and sub. */
static const pt_scalar ONE = {.kind = PT_SCALAR_INT, .i = 1};

static pt_status got(pt_tensor *t) { return t ? PT_OK : pt_error_code(); }

/* The boxed multi-result entry points take their results through out-pointers; the unboxed
 * pt_call_* of a multi-result operator is not generated, so composites call the kernels'
 * dispatcher through pt_call_<op> only where one exists. */

static pt_status take_checked(pt_tensor *value, pt_tensor *info, const char *api, bool batched,
                              pt_tensor **ret)
{
    pt_status st = pt_lapack_check_info(info, api, batched);
    pt_tensor_release(info);
    if (st != PT_OK) {
        pt_tensor_release(value);
        return st;
    }
    *ret = value;
    return PT_OK;
}

/* ---------------------------------------------------------------- inv */
pt_status pt_native_linalg_inv(const pt_tensor *A, pt_tensor **ret)
{
    pt_tensor *inv = NULL, *info = NULL;
    PT_TRY(pt_call_linalg_inv_ex(A, 0, &inv, &info));
    return take_checked(inv, info, "linalg.inv", A->ndim > 2, ret);
}

pt_status pt_native_inverse(const pt_tensor *self, pt_tensor **ret)
{
    return pt_native_linalg_inv(self, ret);
}

/* ---------------------------------------------------------------- det, slogdet, logdet */
pt_status pt_native_linalg_det(const pt_tensor *A, pt_tensor **ret)
{
    pt_tensor *det = NULL, *lu = NULL, *piv = NULL;
    PT_TRY(pt_call__linalg_det(A, &det, &lu, &piv));
    pt_tensor_release(lu);
    pt_tensor_release(piv);
    *ret = det;
    return PT_OK;
}

pt_status pt_native_det(const pt_tensor *self, pt_tensor **ret)
{
    return pt_native_linalg_det(self, ret);
}

pt_status pt_native_linalg_slogdet(const pt_tensor *A, pt_tensor **ret0, pt_tensor **ret1)
{
    pt_tensor *lu = NULL, *piv = NULL;
    PT_TRY(pt_call__linalg_slogdet(A, ret0, ret1, &lu, &piv));
    pt_tensor_release(lu);
    pt_tensor_release(piv);
    return PT_OK;
}

pt_status pt_native_slogdet(const pt_tensor *self, pt_tensor **ret0, pt_tensor **ret1)
{
    return pt_native_linalg_slogdet(self, ret0, ret1);
}

/* torch's logdet: log(sign) + logabsdet, which is nan for a negative real determinant and -inf
 * for a zero one. */
pt_status pt_native_logdet(const pt_tensor *self, pt_tensor **ret)
{
    PT_TRY(pt_lapack_check_input("logdet", self, PT_LP_SQUARE | PT_LP_FLOATING | PT_LP_NO_LOW,
                                 "lu_cpu"));
    pt_tensor *sign = NULL, *logabs = NULL;
    PT_TRY(pt_native_linalg_slogdet(self, &sign, &logabs));
    pt_tensor *lsign = pt_call_log(sign);
    pt_tensor_release(sign);
    pt_status st = got(lsign);
    if (st == PT_OK) {
        *ret = pt_call_add_Tensor(lsign, logabs, &ONE);
        st = got(*ret);
        pt_tensor_release(lsign);
    }
    pt_tensor_release(logabs);
    return st;
}

/* ---------------------------------------------------------------- solve */
pt_status pt_native_linalg_solve_ex(const pt_tensor *A, const pt_tensor *B, int32_t left,
                                    int32_t check_errors, pt_tensor **ret0, pt_tensor **ret1)
{
    pt_tensor *lu = NULL, *piv = NULL;
    PT_TRY(pt_call__linalg_solve_ex(A, B, left, check_errors, ret0, &lu, &piv, ret1));
    pt_tensor_release(lu);
    pt_tensor_release(piv);
    return PT_OK;
}

pt_status pt_native_linalg_solve(const pt_tensor *A, const pt_tensor *B, int32_t left,
                                 pt_tensor **ret)
{
    pt_tensor *x = NULL, *info = NULL;
    PT_TRY(pt_native_linalg_solve_ex(A, B, left, 0, &x, &info));
    return take_checked(x, info, "torch.linalg.solve", info->ndim > 0, ret);
}

/* ---------------------------------------------------------------- cholesky, lu_factor */
pt_status pt_native_linalg_cholesky(const pt_tensor *self, int32_t upper, pt_tensor **ret)
{
    pt_tensor *L = NULL, *info = NULL;
    PT_TRY(pt_call_linalg_cholesky_ex(self, upper, 0, &L, &info));
    return take_checked(L, info, "linalg.cholesky", self->ndim > 2, ret);
}

pt_status pt_native_cholesky(const pt_tensor *self, int32_t upper, pt_tensor **ret)
{
    return pt_native_linalg_cholesky(self, upper, ret);
}

pt_status pt_native_linalg_lu_factor(const pt_tensor *A, int32_t pivot, pt_tensor **ret0,
                                     pt_tensor **ret1)
{
    pt_tensor *info = NULL;
    PT_TRY(pt_call_linalg_lu_factor_ex(A, pivot, 0, ret0, ret1, &info));
    pt_status st = pt_lapack_check_info(info, "torch.linalg.lu_factor", A->ndim > 2);
    pt_tensor_release(info);
    if (st != PT_OK) {
        pt_tensor_release(*ret0);
        pt_tensor_release(*ret1);
    }
    return st;
}

/* ---------------------------------------------------------------- eigh, svd */
pt_status pt_native_linalg_eigh(const pt_tensor *self, const char *UPLO, pt_tensor **ret0,
                                pt_tensor **ret1)
{
    return pt_call__linalg_eigh(self, UPLO, 1, ret0, ret1);
}

/* The eigenvectors are computed only when a gradient may need them (torch's rule). */
pt_status pt_native_linalg_eigvalsh(const pt_tensor *self, const char *UPLO, pt_tensor **ret)
{
    pt_tensor *v = NULL;
    bool grad = self && pt_autograd_requires_grad(self) && pt_autograd_is_grad_enabled();
    PT_TRY(pt_call__linalg_eigh(self, UPLO, grad, ret, &v));
    pt_tensor_release(v);
    return PT_OK;
}

pt_status pt_native_linalg_svd(const pt_tensor *A, int32_t full_matrices, const char *driver,
                               pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2)
{
    return pt_call__linalg_svd(A, full_matrices, 1, driver, ret0, ret1, ret2);
}

pt_status pt_native_linalg_svdvals(const pt_tensor *A, const char *driver, pt_tensor **ret)
{
    pt_tensor *u = NULL, *vh = NULL;
    bool grad = A && pt_autograd_requires_grad(A) && pt_autograd_is_grad_enabled();
    PT_TRY(pt_call__linalg_svd(A, 0, grad, driver, &u, ret, &vh));
    pt_tensor_release(u);
    pt_tensor_release(vh);
    return PT_OK;
}

/* torch.svd: V rather than V^H; without compute_uv, U and V are zeros of their full shapes. */
pt_status pt_native_svd(const pt_tensor *self, int32_t some, int32_t compute_uv,
                        pt_tensor **ret0, pt_tensor **ret1, pt_tensor **ret2)
{
    pt_tensor *vh = NULL;
    PT_TRY(pt_call__linalg_svd(self, !some, 1, NULL, ret0, ret1, &vh));
    pt_tensor *vt = pt_call_transpose_int(vh, -2, -1);
    pt_tensor_release(vh);
    pt_status st = got(vt);
    if (st == PT_OK) {
        *ret2 = pt_call_conj(vt);
        pt_tensor_release(vt);
        st = got(*ret2);
    }
    if (st == PT_OK && !compute_uv) {
        pt_tensor *z0 = pt_call_zeros_like(*ret0, -1, -1, NULL, -1, -1);
        pt_tensor *z2 = pt_call_zeros_like(*ret2, -1, -1, NULL, -1, -1);
        pt_tensor_release(*ret0);
        pt_tensor_release(*ret2);
        *ret0 = z0;
        *ret2 = z2;
        if (!z0 || !z2) st = pt_error_code();
    }
    if (st != PT_OK) {
        if (*ret0) pt_tensor_release(*ret0);
        pt_tensor_release(*ret1);
    }
    return st;
}
