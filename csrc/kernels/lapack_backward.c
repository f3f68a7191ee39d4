/* lapack_backward.c - the backward operators of the LAPACK family whose formulas need branches
 * (csrc/ops/derivatives_linalg.yaml calls them): the A gradient of solve, of cholesky, of eigh
 * and of svd. Each is a CompositeImplicitAutograd operator that calls other operators, so that
 * its result records history in turn (double backward).
 *
 * The formulas are torch's (FunctionsManual.cpp), written here from their mathematics:
 *   solve    X = A^-1 B:  gA = -gB X^H (left), -X^H gB (right), with gB = A^-H gX.
 *   cholesky A = L L^H:   gA = sym(L^-H P L^-1), P = tril(L^H gL) with its diagonal halved.
 *   eigh     A = V L V^H: gA = V (diag(gL) + skew(V^H gV) / E) V^H, E_ij = L_j - L_i,
 *                         skew(X) = (X - X^H) / 2: the part a gauge-invariant loss can reach.
 *   svd      A = U S V^H: gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)
 *                         + i Im(diag(U^H gU)) / S] V^H, E_ij = S_j^2 - S_i^2 (skew without the
 *                         half here), plus (I - U U^H) gU S^-1 V^H when m > n and
 *                         U S^-1 gV^H (I - V V^H) when m < n.
 * A gradient that is undefined (an output nobody used) is a NULL argument and its terms drop.
 *
 * Note [temporaries of a backward operator]
 * Every intermediate tensor goes into one arena that is released at the end, so that a failure
 * anywhere (each pt_call_* returns NULL with the message set) is one `goto fail`.
 */
#include <string.h>

#include "lapack.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

/* The alpha of add and sub. */
static const pt_scalar ONE = {.kind = PT_SCALAR_INT, .i = 1};

enum { ARENA_MAX = 64 };

typedef struct arena {
    pt_tensor *t[ARENA_MAX];
    int n;
} arena;

/* Takes t into the arena. The helpers below keep what they return, and K keeps again what they
 * return: a tensor that is already the newest entry is not taken twice. */
static pt_tensor *keep(arena *a, pt_tensor *t)
{
    if (t && a->n > 0 && a->t[a->n - 1] == t) return t;
    if (t && a->n < ARENA_MAX) a->t[a->n++] = t;
    else if (t) {
        pt_tensor_release(t);
        PT_ERROR(PT_ERR_RUNTIME, "linalg backward: too many temporaries");
        return NULL;
    }
    return t;
}

static void arena_release(arena *a)
{
    for (int i = 0; i < a->n; i++) pt_tensor_release(a->t[i]);
    a->n = 0;
}

/* The arena's tensor t handed to the caller as a new reference. */
static pt_status finish(arena *a, pt_tensor *t, pt_tensor **ret)
{
    if (!t) {
        arena_release(a);
        return pt_error_code();
    }
    pt_tensor_retain(t);
    arena_release(a);
    *ret = t;
    return PT_OK;
}

#define K(var, expr)                                                                               \
    pt_tensor *var = keep(&ar, (expr));                                                            \
    if (!var) goto fail

static pt_tensor *mh(arena *a, const pt_tensor *x)
{
    pt_tensor *t = keep(a, pt_call_transpose_int(x, -2, -1));
    return t ? keep(a, pt_call_conj(t)) : NULL;
}

static pt_tensor *mm(arena *a, const pt_tensor *x, const pt_tensor *y)
{
    return x && y ? keep(a, pt_call_matmul(x, y)) : NULL;
}

/* An identity of k x k in x's real dtype (a mask for diagonals). */
static pt_tensor *eye_of(arena *a, const pt_tensor *x, int64_t k)
{
    pt_device cpu = {PT_DEV_CPU, 0};
    return keep(a, pt_call_eye(k, pt_lapack_real_dtype(x->dtype), -1, &cpu, -1));
}

/* (X - X^H) * scale. */
static pt_tensor *skew(arena *a, const pt_tensor *x, double scale)
{
    pt_tensor *h = mh(a, x);
    if (!h) return NULL;
    pt_tensor *d = keep(a, pt_call_sub_Tensor(x, h, &ONE));
    pt_scalar s = {.kind = PT_SCALAR_FLOAT, .re = scale};
    return d ? keep(a, pt_call_mul_Scalar(d, &s)) : NULL;
}

/* x with its diagonal replaced by the vector d (NULL: zeroed). */
static pt_tensor *set_diag(arena *a, const pt_tensor *x, const pt_tensor *d, pt_tensor *eye)
{
    pt_scalar one = {.kind = PT_SCALAR_INT, .i = 1};
    pt_tensor *off = keep(a, pt_call_rsub_Scalar(eye, &one, &one)); /* 1 - I */
    if (!off) return NULL;
    pt_tensor *y = keep(a, pt_call_mul_Tensor(x, off));
    if (!y || !d) return y;
    pt_tensor *du = keep(a, pt_call_unsqueeze(d, -1));
    pt_tensor *dm = du ? keep(a, pt_call_mul_Tensor(du, eye)) : NULL;
    return dm ? keep(a, pt_call_add_Tensor(y, dm, &ONE)) : NULL;
}

/* ---------------------------------------------------------------- solve */
pt_status pt_native__linalg_solve_grad_A(const pt_tensor *gB, const pt_tensor *X, int64_t A_dim,
                                         int32_t left, pt_tensor **ret)
{
    arena ar = {.n = 0};
    bool vector = X->ndim < A_dim;
    pt_tensor *g = (pt_tensor *)gB, *x = (pt_tensor *)X;
    if (vector) {
        g = keep(&ar, pt_call_unsqueeze(gB, left ? -1 : -2));
        x = keep(&ar, pt_call_unsqueeze(X, left ? -1 : -2));
        if (!g || !x) goto fail;
    }
    K(xh, mh(&ar, x));
    K(prod, left ? mm(&ar, g, xh) : mm(&ar, xh, g));
    K(neg, pt_call_neg(prod));
    return finish(&ar, neg, ret);
fail:
    return finish(&ar, NULL, ret);
}

/* solve_triangular: gB = A^-H gX (a triangular solve with the other triangle); gA as solve's,
 * kept to A's triangle (without its diagonal when it is a unit one). for_A: which to return. */
pt_status pt_native__linalg_solve_triangular_grad(const pt_tensor *grad, const pt_tensor *A,
                                                  const pt_tensor *X, int32_t upper, int32_t left,
                                                  int32_t unitriangular, int32_t for_A,
                                                  pt_tensor **ret)
{
    arena ar = {.n = 0};
    K(Ah, mh(&ar, A));
    K(gB, pt_call_linalg_solve_triangular(Ah, grad, !upper, left, unitriangular));
    if (!for_A) return finish(&ar, gB, ret);
    K(Xh, mh(&ar, X));
    K(prod, left ? mm(&ar, gB, Xh) : mm(&ar, Xh, gB));
    K(neg, pt_call_neg(prod));
    K(tri, upper ? pt_call_triu(neg, unitriangular ? 1 : 0)
                 : pt_call_tril(neg, unitriangular ? -1 : 0));
    return finish(&ar, tri, ret);
fail:
    return finish(&ar, NULL, ret);
}

/* ---------------------------------------------------------------- cholesky */
pt_status pt_native__linalg_cholesky_grad(const pt_tensor *grad, const pt_tensor *L_, int32_t upper,
                                          pt_tensor **ret)
{
    arena ar = {.n = 0};
    const pt_tensor *L = L_, *gL = grad;
    if (upper) {
        L = mh(&ar, L_);
        gL = L ? mh(&ar, grad) : NULL;
        if (!gL) goto fail;
    }
    int64_t n = L->sizes[L->ndim - 1];
    K(Lh, mh(&ar, L));
    K(phi0, mm(&ar, Lh, gL));
    K(phi1, pt_call_tril(phi0, 0));
    K(eye, eye_of(&ar, L, n));
    pt_scalar half = {.kind = PT_SCALAR_FLOAT, .re = 0.5};
    K(hd, pt_call_mul_Scalar(eye, &half));
    pt_scalar one = {.kind = PT_SCALAR_INT, .i = 1};
    K(scale, pt_call_rsub_Scalar(hd, &one, &one)); /* 1 off the diagonal, 1/2 on it */
    K(phi, pt_call_mul_Tensor(phi1, scale));
    K(right, pt_call_linalg_solve_triangular(L, phi, 0, 0, 0));      /* P L^-1 */
    K(G, pt_call_linalg_solve_triangular(Lh, right, 1, 1, 0));       /* L^-H P L^-1 */
    K(Gh, mh(&ar, G));
    K(sum, pt_call_add_Tensor(G, Gh, &ONE));
    K(sym, pt_call_mul_Scalar(sum, &half));
    return finish(&ar, sym, ret);
fail:
    return finish(&ar, NULL, ret);
}

/* ---------------------------------------------------------------- eigh */
pt_status pt_native__linalg_eigh_grad(const pt_tensor *gL, const pt_tensor *gV, const pt_tensor *L,
                                      const pt_tensor *V, pt_tensor **ret)
{
    arena ar = {.n = 0};
    int64_t n = V->sizes[V->ndim - 1];
    K(eye, eye_of(&ar, V, n));
    K(Vh, mh(&ar, V));
    pt_tensor *inner;
    if (gV) {
        K(VhgV, mm(&ar, Vh, gV));
        K(sk, skew(&ar, VhgV, 0.5));
        K(Lr, pt_call_unsqueeze(L, -2));
        K(Lc, pt_call_unsqueeze(L, -1));
        K(E0, pt_call_sub_Tensor(Lr, Lc, &ONE));
        K(E, pt_call_add_Tensor(E0, eye, &ONE)); /* 1 on the diagonal: it is replaced below */
        K(q, pt_call_div_Tensor(sk, E));
        inner = gL ? set_diag(&ar, q, gL, eye) : q;
    } else {
        if (!gL) {
            K(z, pt_call_zeros_like(V, -1, -1, NULL, -1, -1));
            return finish(&ar, z, ret);
        }
        K(du, pt_call_unsqueeze(gL, -1));
        inner = keep(&ar, pt_call_mul_Tensor(du, eye));
    }
    if (!inner) goto fail;
    K(left, mm(&ar, V, inner));
    K(gA, mm(&ar, left, Vh));
    return finish(&ar, gA, ret);
fail:
    return finish(&ar, NULL, ret);
}

/* ---------------------------------------------------------------- svd */
pt_status pt_native__linalg_svd_grad(const pt_tensor *gU_, const pt_tensor *gS,
                                     const pt_tensor *gVh_, const pt_tensor *U_,
                                     const pt_tensor *S, const pt_tensor *Vh_,
                                     int32_t full_matrices, pt_tensor **ret)
{
    arena ar = {.n = 0};
    int64_t k = S->sizes[S->ndim - 1];
    const pt_tensor *U = U_, *Vh = Vh_, *gU = gU_, *gVh = gVh_;
    if (full_matrices) { /* only the first k singular vectors are determined */
        U = keep(&ar, pt_call_narrow(U_, -1, 0, k));
        Vh = keep(&ar, pt_call_narrow(Vh_, -2, 0, k));
        if (!U || !Vh) goto fail;
        if (gU_ && !(gU = keep(&ar, pt_call_narrow(gU_, -1, 0, k)))) goto fail;
        if (gVh_ && !(gVh = keep(&ar, pt_call_narrow(gVh_, -2, 0, k)))) goto fail;
    }
    int64_t m = U->sizes[U->ndim - 2], n = Vh->sizes[Vh->ndim - 1];
    bool cplx = U->dtype == PT_COMPLEX64 || U->dtype == PT_COMPLEX128;
    K(eye, eye_of(&ar, U, k));
    K(Su, pt_call_unsqueeze(S, -2)); /* S_j along a row */
    K(Sc, pt_call_unsqueeze(S, -1)); /* S_i down a column */
    if (!gU && !gVh) {
        if (!gS) {
            pt_device cpu = {PT_DEV_CPU, 0};
            int64_t sizes[PT_MAX_DIMS];
            memcpy(sizes, U->sizes, sizeof(int64_t) * (size_t)(U->ndim - 1));
            sizes[U->ndim - 1] = n;
            K(z, pt_call_zeros(U->ndim, sizes, U->dtype, -1, &cpu, -1));
            return finish(&ar, z, ret);
        }
        K(gSu, pt_call_unsqueeze(gS, -2));
        K(Ug, pt_call_mul_Tensor(U, gSu));
        K(gA, mm(&ar, Ug, Vh));
        return finish(&ar, gA, ret);
    }
    K(V, mh(&ar, Vh));
    K(Uh, mh(&ar, U));
    pt_tensor *gV = gVh ? mh(&ar, gVh) : NULL;
    if (gVh && !gV) goto fail;
    K(S2r, pt_call_mul_Tensor(Su, Su));
    K(S2c, pt_call_mul_Tensor(Sc, Sc));
    K(E0, pt_call_sub_Tensor(S2r, S2c, &ONE));
    K(E, pt_call_add_Tensor(E0, eye, &ONE)); /* the diagonal is set apart below */
    pt_tensor *acc = NULL, *UhgU = NULL;
    if (gU) {
        UhgU = mm(&ar, Uh, gU);
        pt_tensor *sk = UhgU ? skew(&ar, UhgU, 1.0) : NULL;
        acc = sk ? keep(&ar, pt_call_mul_Tensor(sk, Su)) : NULL;
        if (!acc) goto fail;
    }
    if (gV) {
        K(VhgV, mm(&ar, Vh, gV));
        K(sk, skew(&ar, VhgV, 1.0));
        K(t, pt_call_mul_Tensor(Sc, sk));
        acc = acc ? keep(&ar, pt_call_add_Tensor(acc, t, &ONE)) : t;
        if (!acc) goto fail;
    }
    K(q, pt_call_div_Tensor(acc, E));
    /* The diagonal: gS, plus for complex inputs the imaginary part of diag(U^H gU) / S. */
    pt_tensor *diag = gS ? (pt_tensor *)gS : NULL;
    if (cplx && UhgU) {
        K(dU, pt_call_diagonal(UhgU, 0, -2, -1));
        K(im, pt_call_imag(dU));
        K(ims, pt_call_div_Tensor(im, S));
        K(zero, pt_call_zeros_like(ims, -1, -1, NULL, -1, -1));
        K(ic, pt_call_complex(zero, ims));
        diag = diag ? keep(&ar, pt_call_add_Tensor(diag, ic, &ONE)) : ic;
        if (!diag) goto fail;
    }
    K(inner, set_diag(&ar, q, diag, eye));
    K(left, mm(&ar, U, inner));
    K(gA0, mm(&ar, left, Vh));
    pt_tensor *gA = gA0;
    if (m > k && gU) { /* (I - U U^H) gU S^-1 V^H */
        K(proj, mm(&ar, U, UhgU));
        K(d, pt_call_sub_Tensor(gU, proj, &ONE));
        K(ds, pt_call_div_Tensor(d, Su));
        K(t, mm(&ar, ds, Vh));
        gA = keep(&ar, pt_call_add_Tensor(gA, t, &ONE));
        if (!gA) goto fail;
    }
    if (n > k && gV) { /* U S^-1 gV^H (I - V V^H) */
        K(VhgV, mm(&ar, Vh, gV));
        K(proj, mm(&ar, V, VhgV));
        K(d, pt_call_sub_Tensor(gV, proj, &ONE));
        K(dh, mh(&ar, d));
        K(ds, pt_call_div_Tensor(dh, Sc));
        K(t, mm(&ar, U, ds));
        gA = keep(&ar, pt_call_add_Tensor(gA, t, &ONE));
        if (!gA) goto fail;
    }
    return finish(&ar, gA, ret);
fail:
    return finish(&ar, NULL, ret);
}
