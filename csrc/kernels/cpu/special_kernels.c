/* special_kernels.c - the inner loops of the special family, compiled once per CPU capability
 * (cpu_kernel.h); special.c runs them through the iterator.
 *
 * Every loop applies one scalar function of special_math.h per element: float64 directly, float32
 * through double (the argument is exact in double and the result is rounded once). The functions
 * branch by range and iterate series to convergence, so the loops are not written for the
 * vectorizer; what the capability builds change is only the code around the calls. A contiguous
 * path and a strided one, as elementwise_loops.h's shapes, with the params (pt_special_params) in
 * ctx.
 */
#include "cpu_kernel.h"

#include <complex.h>

#include "special.h"
#include "special_math.h"

/* out (T) = EXPR(x) with x of T; P the params. */
#define SF_UNARY(NAME, T, EXPR)                                                                    \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        pt_special_params *P = ctx;                                                                \
        PT_UNUSED(P);                                                                              \
        if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) {                            \
            T *o = (T *)data[0];                                                                   \
            const T *a = (const T *)data[1];                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const T x = a[i];                                                                  \
                o[i] = EXPR;                                                                       \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T x = *(const T *)(data[1] + i * s[1]);                                          \
            *(T *)(data[0] + i * s[0]) = EXPR;                                                     \
        }                                                                                          \
    }

/* out (T) = EXPR(x, y) with x, y of T. */
#define SF_BINARY(NAME, T, EXPR)                                                                   \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        pt_special_params *P = ctx;                                                                \
        PT_UNUSED(P);                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T x = *(const T *)(data[1] + i * s[1]), y = *(const T *)(data[2] + i * s[2]);    \
            *(T *)(data[0] + i * s[0]) = EXPR;                                                     \
        }                                                                                          \
    }

/* The float32 and float64 loops of a function of double F(x [, params]). */
#define SF_UNARY_PAIR(NAME, EXPR_D)                                                                \
    SF_UNARY(NAME##_f4, float, (float)EXPR_D((double)x))                                           \
    SF_UNARY(NAME##_f8, double, EXPR_D(x))
#define SF_BINARY_PAIR(NAME, F)                                                                    \
    SF_BINARY(NAME##_f4, float, (float)F((double)x, (double)y))                                    \
    SF_BINARY(NAME##_f8, double, F(x, y))

SF_UNARY_PAIR(lgamma, pt_sf_lgamma)
SF_UNARY_PAIR(digamma, pt_sf_digamma)
SF_UNARY_PAIR(erfinv, pt_sf_erfinv)
SF_UNARY_PAIR(i0, pt_sf_i0)
SF_UNARY_PAIR(i0e, pt_sf_i0e)
SF_UNARY_PAIR(i1, pt_sf_i1)
SF_UNARY_PAIR(i1e, pt_sf_i1e)
SF_UNARY_PAIR(sinc, pt_sf_sinc)
SF_UNARY_PAIR(entr, pt_sf_entr)
SF_UNARY_PAIR(erfcx, pt_sf_erfcx)
SF_UNARY_PAIR(ndtri, pt_sf_ndtri)
SF_UNARY_PAIR(log_ndtr, pt_sf_log_ndtr)
SF_UNARY(sinc_c4, float _Complex, pt_sf_csincf(x))
SF_UNARY(sinc_c8, double _Complex, pt_sf_csinc(x))

SF_UNARY(polygamma_f4, float, (float)pt_sf_polygamma(P->i, (double)x))
SF_UNARY(polygamma_f8, double, pt_sf_polygamma(P->i, x))
SF_UNARY(logit_f4, float, (float)pt_sf_logit((double)x, P->d))
SF_UNARY(logit_f8, double, pt_sf_logit(x, P->d))

SF_UNARY(mvlgamma_f4, float, (float)pt_sf_mvlgamma((double)x, P->i))
SF_UNARY(mvlgamma_f8, double, pt_sf_mvlgamma(x, P->i))

SF_BINARY_PAIR(xlogy, pt_sf_xlogy)
SF_BINARY_PAIR(xlog1py, pt_sf_xlog1py)
SF_BINARY_PAIR(igamma, pt_sf_igamma)
SF_BINARY_PAIR(igammac, pt_sf_igammac)
SF_BINARY_PAIR(zeta, pt_sf_zeta)
SF_BINARY(logit_backward_f4, float, (float)pt_sf_logit_backward((double)x, (double)y, P->d))
SF_BINARY(logit_backward_f8, double, pt_sf_logit_backward(x, y, P->d))

#define SF_ROW(NAME) {[PT_FLOAT32] = NAME##_f4, [PT_FLOAT64] = NAME##_f8}
PT_CPU_KERNELS_DEFINE(special, pt_special_table) = {{
    [PT_SPECIAL_LGAMMA] = SF_ROW(lgamma),
    [PT_SPECIAL_DIGAMMA] = SF_ROW(digamma),
    [PT_SPECIAL_ERFINV] = SF_ROW(erfinv),
    [PT_SPECIAL_I0] = SF_ROW(i0),
    [PT_SPECIAL_I0E] = SF_ROW(i0e),
    [PT_SPECIAL_I1] = SF_ROW(i1),
    [PT_SPECIAL_I1E] = SF_ROW(i1e),
    [PT_SPECIAL_SINC] = {[PT_FLOAT32] = sinc_f4, [PT_FLOAT64] = sinc_f8,
                         [PT_COMPLEX64] = sinc_c4, [PT_COMPLEX128] = sinc_c8},
    [PT_SPECIAL_ENTR] = SF_ROW(entr),
    [PT_SPECIAL_ERFCX] = SF_ROW(erfcx),
    [PT_SPECIAL_NDTRI] = SF_ROW(ndtri),
    [PT_SPECIAL_LOG_NDTR] = SF_ROW(log_ndtr),
    [PT_SPECIAL_POLYGAMMA] = SF_ROW(polygamma),
    [PT_SPECIAL_MVLGAMMA] = SF_ROW(mvlgamma),
    [PT_SPECIAL_LOGIT] = SF_ROW(logit),
    [PT_SPECIAL_XLOGY] = SF_ROW(xlogy),
    [PT_SPECIAL_XLOG1PY] = SF_ROW(xlog1py),
    [PT_SPECIAL_IGAMMA] = SF_ROW(igamma),
    [PT_SPECIAL_IGAMMAC] = SF_ROW(igammac),
    [PT_SPECIAL_ZETA] = SF_ROW(zeta),
    [PT_SPECIAL_LOGIT_BACKWARD] = SF_ROW(logit_backward),
}};
