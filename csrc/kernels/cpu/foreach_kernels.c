/* foreach_kernels.c - the loops of the list operators and of the fused optimizers (csrc/kernels/
 * foreach.h), float32 and float64, compiled once per CPU capability.
 *
 * Each loop is one pass over contiguous operands, written so that the compiler vectorizes it for
 * the capability's flags. Arithmetic happens in the tensor's dtype with the scalars rounded to it
 * once, as torch's CPU kernels do for float and double (their opmath type is the dtype itself),
 * and in the order torch's kernels evaluate each formula, so that results agree with torch's to
 * the last bits wherever the compiler does not contract a multiply and an add into one FMA.
 */
#include "cpu_kernel.h"

#include <math.h>

#include "foreach.h"

#define FE_LOOPS(SUF, T, SQRT, EXP, FABS)                                                          \
    static void add_s_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                        \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], s = (T)a->s[0];                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] + s;                                  \
    }                                                                                              \
    static void add_l_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                        \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2], s = (T)a->s[0];                        \
        if (s == (T)1) {                                                                           \
            PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] + y[i];                           \
            return;                                                                                \
        }                                                                                          \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] + s * y[i];                           \
    }                                                                                              \
    static void mul_s_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                        \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], s = (T)a->s[0];                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] * s;                                  \
    }                                                                                              \
    static void mul_l_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                        \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2];                                        \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] * y[i];                               \
    }                                                                                              \
    static void div_s_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                        \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], s = (T)a->s[0];                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] / s;                                  \
    }                                                                                              \
    static void div_l_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                        \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2];                                        \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] / y[i];                               \
    }                                                                                              \
    /* maximum propagates NaN from either side; clamp_min/max keep a NaN self */                   \
    static void max_s_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                        \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], s = (T)a->s[0];                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = (x[i] != x[i] || s != s) ? x[i] + s : (x[i] > s ? x[i] : s);                    \
    }                                                                                              \
    static void max_l_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                        \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2];                                        \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = (x[i] != x[i] || y[i] != y[i]) ? x[i] + y[i] : (x[i] > y[i] ? x[i] : y[i]);     \
    }                                                                                              \
    static void cmin_s_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                       \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], s = (T)a->s[0];                                              \
        for (int64_t i = 0; i < n; i++) o[i] = x[i] < s ? s : x[i];                                \
    }                                                                                              \
    static void cmin_l_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                       \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2];                                        \
        for (int64_t i = 0; i < n; i++) o[i] = x[i] < y[i] ? y[i] : x[i];                          \
    }                                                                                              \
    static void cmax_s_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                       \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], s = (T)a->s[0];                                              \
        for (int64_t i = 0; i < n; i++) o[i] = x[i] > s ? s : x[i];                                \
    }                                                                                              \
    static void cmax_l_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                       \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2];                                        \
        for (int64_t i = 0; i < n; i++) o[i] = x[i] > y[i] ? y[i] : x[i];                          \
    }                                                                                              \
    static void addcmul_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                      \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2], *z = (const T *)p[3];                  \
        const T s = (T)a->s[0];                                                                    \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] + s * y[i] * z[i];                    \
    }                                                                                              \
    static void addcdiv_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                      \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2], *z = (const T *)p[3];                  \
        const T s = (T)a->s[0];                                                                    \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i] + s * y[i] / z[i];                    \
    }                                                                                              \
    static inline T lerp_##SUF(T x, T y, T w)                                                      \
    {                                                                                              \
        return FABS(w) < (T)0.5 ? x + w * (y - x) : y - (y - x) * ((T)1 - w);                      \
    }                                                                                              \
    static void lerp_s_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                       \
    {                                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2], w = (T)a->s[0];                        \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = lerp_##SUF(x[i], y[i], w);                 \
    }                                                                                              \
    static void lerp_l_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                       \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1], *y = (const T *)p[2], *w = (const T *)p[3];                  \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = lerp_##SUF(x[i], y[i], w[i]);              \
    }                                                                                              \
    static void sqrt_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                         \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1];                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = SQRT(x[i]);                                \
    }                                                                                              \
    static void neg_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                          \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1];                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = -x[i];                                     \
    }                                                                                              \
    static void abs_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                          \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1];                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = FABS(x[i]);                                \
    }                                                                                              \
    static void sign_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                         \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1];                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = x[i] != x[i] ? x[i] : (T)((x[i] > 0) - (x[i] < 0));                             \
    }                                                                                              \
    static void reciprocal_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                   \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1];                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = (T)1 / x[i];                               \
    }                                                                                              \
    static void exp_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                          \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1];                                                              \
        for (int64_t i = 0; i < n; i++) o[i] = EXP(x[i]);                                          \
    }                                                                                              \
    static void zero_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                         \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = 0;                                         \
    }                                                                                              \
    static void copy_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                         \
    {                                                                                              \
        PT_UNUSED(a);                                                                              \
        T *o = (T *)p[0];                                                                          \
        const T *x = (const T *)p[1];                                                              \
        PT_IVDEP for (int64_t i = 0; i < n; i++) o[i] = x[i];                                      \
    }                                                                                              \
    /* s: lr, beta1, beta2, weight_decay, eps, step_size, sqrt(bias_correction2), grad_scale.     \
     * The flags are arguments of an always-inlined body called with constants, so that each      \
     * combination gets its own branch-free loop, which the compiler vectorizes. */               \
    static inline __attribute__((always_inline)) void adam_body_##SUF(                             \
        char *const *p, int64_t n, const pt_fe_args *a, const bool ams, const int wdm,             \
        const bool neg)                                                                            \
    {                                                                                              \
        T *w = (T *)p[0], *g = (T *)p[1], *m = (T *)p[2], *v = (T *)p[3], *vmax = (T *)p[4];       \
        const T lr = (T)a->s[0], b1 = (T)(1 - a->s[1]), b2 = (T)a->s[2], nb2 = (T)(1 - a->s[2]);   \
        const T wd = (T)a->s[3], eps = (T)a->s[4], step = (T)a->s[5], bc2 = (T)a->s[6];            \
        const T decay = (T)1 - lr * wd;                                                            \
        PT_IVDEP for (int64_t i = 0; i < n; i++) {                                                 \
            T gi = neg ? -g[i] : g[i], wi = w[i];                                                  \
            if (wdm == 1) gi = gi + wi * wd;                                                       \
            if (wdm == 2) wi = wi * decay;                                                         \
            const T mi = lerp_##SUF(m[i], gi, b1);                                                 \
            const T vi = v[i] * b2 + nb2 * gi * gi;                                                \
            m[i] = mi, v[i] = vi;                                                                  \
            T d = vi;                                                                              \
            if (ams) {                                                                             \
                const T mx = vmax[i];                                                              \
                d = (mx > vi || mx != mx) ? mx : vi;                                               \
                vmax[i] = d;                                                                       \
            }                                                                                      \
            w[i] = wi - step * mi / (SQRT(d) / bc2 + eps);                                         \
        }                                                                                          \
    }                                                                                              \
    static void adam_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                         \
    {                                                                                              \
        const int32_t f = a->flags;                                                                \
        if (f & PT_FE_SCALE) {                                                                     \
            T *g = (T *)p[1];                                                                      \
            const T scale = (T)a->s[7];                                                            \
            PT_IVDEP for (int64_t i = 0; i < n; i++) g[i] = g[i] / scale;                          \
        }                                                                                          \
        const int wdm = a->s[3] == 0 ? 0 : (f & PT_FE_ADAMW) ? 2 : 1;                              \
        const int key = ((f & PT_FE_AMSGRAD) ? 6 : 0) + wdm * 2 + ((f & PT_FE_MAXIMIZE) ? 1 : 0);  \
        switch (key) {                                                                             \
        case 0: adam_body_##SUF(p, n, a, false, 0, false); break;                                  \
        case 1: adam_body_##SUF(p, n, a, false, 0, true); break;                                   \
        case 2: adam_body_##SUF(p, n, a, false, 1, false); break;                                  \
        case 3: adam_body_##SUF(p, n, a, false, 1, true); break;                                   \
        case 4: adam_body_##SUF(p, n, a, false, 2, false); break;                                  \
        case 5: adam_body_##SUF(p, n, a, false, 2, true); break;                                   \
        case 6: adam_body_##SUF(p, n, a, true, 0, false); break;                                   \
        case 7: adam_body_##SUF(p, n, a, true, 0, true); break;                                    \
        case 8: adam_body_##SUF(p, n, a, true, 1, false); break;                                   \
        case 9: adam_body_##SUF(p, n, a, true, 1, true); break;                                    \
        case 10: adam_body_##SUF(p, n, a, true, 2, false); break;                                  \
        default: adam_body_##SUF(p, n, a, true, 2, true); break;                                   \
        }                                                                                          \
    }                                                                                              \
    /* s: weight_decay, momentum, lr, dampening, -, -, -, grad_scale */                            \
    static void sgd_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                          \
    {                                                                                              \
        T *w = (T *)p[0], *g = (T *)p[1], *buf = (T *)p[2];                                        \
        const int32_t f = a->flags;                                                                \
        const T wd = (T)a->s[0], mom = (T)a->s[1], lr = (T)a->s[2], damp = (T)(1 - a->s[3]);       \
        const T scale = (T)a->s[7];                                                                \
        PT_IVDEP for (int64_t i = 0; i < n; i++) {                                                 \
            T gi = g[i];                                                                           \
            if (f & PT_FE_SCALE) g[i] = gi = gi / scale;                                           \
            if (f & PT_FE_MAXIMIZE) gi = -gi;                                                      \
            if (wd != 0) gi = gi + w[i] * wd;                                                      \
            if (f & PT_FE_MOMENTUM) {                                                              \
                const T bi = (f & PT_FE_FIRST_STEP) ? gi : buf[i] * mom + damp * gi;               \
                buf[i] = bi;                                                                       \
                gi = (f & PT_FE_NESTEROV) ? gi + mom * bi : bi;                                    \
            }                                                                                      \
            w[i] = w[i] - lr * gi;                                                                 \
        }                                                                                          \
    }                                                                                              \
    /* s: clr (lr after decay), weight_decay, eps, -, -, -, -, grad_scale */                       \
    static void adagrad_##SUF(char *const *p, int64_t n, const pt_fe_args *a)                      \
    {                                                                                              \
        T *w = (T *)p[0], *g = (T *)p[1], *sum = (T *)p[2];                                        \
        const int32_t f = a->flags;                                                                \
        const T clr = (T)a->s[0], wd = (T)a->s[1], eps = (T)a->s[2], scale = (T)a->s[7];           \
        PT_IVDEP for (int64_t i = 0; i < n; i++) {                                                 \
            T gi = g[i];                                                                           \
            if (f & PT_FE_SCALE) g[i] = gi = gi / scale;                                           \
            if (f & PT_FE_MAXIMIZE) gi = -gi;                                                      \
            if (wd != 0) gi = gi + w[i] * wd;                                                      \
            const T si = sum[i] + gi * gi;                                                         \
            sum[i] = si;                                                                           \
            w[i] = w[i] + (-clr) * gi / (SQRT(si) + eps);                                          \
        }                                                                                          \
    }                                                                                              \
    static double norm_##SUF(const T *x, int64_t n, double ord)                                    \
    {                                                                                              \
        double acc = 0;                                                                            \
        if (ord == 2) {                                                                            \
            for (int64_t i = 0; i < n; i++) acc += (double)x[i] * (double)x[i];                    \
        } else if (ord == 1) {                                                                     \
            for (int64_t i = 0; i < n; i++) acc += fabs((double)x[i]);                             \
        } else if (ord == 0) {                                                                     \
            for (int64_t i = 0; i < n; i++) acc += x[i] != 0;                                      \
        } else if (isinf(ord)) {                                                                   \
            acc = ord > 0 ? 0 : INFINITY;                                                          \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const double v = fabs((double)x[i]);                                               \
                if (v != v) return v;                                                              \
                acc = ord > 0 ? (v > acc ? v : acc) : (v < acc ? v : acc);                         \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) acc += pow(fabs((double)x[i]), ord);                   \
        }                                                                                          \
        return acc;                                                                                \
    }

FE_LOOPS(f4, float, sqrtf, expf, fabsf)
FE_LOOPS(f8, double, sqrt, exp, fabs)

#define FE_TABLE(SUF)                                                                              \
    {                                                                                              \
        [PT_FE_ADD_S] = add_s_##SUF, [PT_FE_ADD_L] = add_l_##SUF, [PT_FE_MUL_S] = mul_s_##SUF,     \
        [PT_FE_MUL_L] = mul_l_##SUF, [PT_FE_DIV_S] = div_s_##SUF, [PT_FE_DIV_L] = div_l_##SUF,     \
        [PT_FE_MAX_S] = max_s_##SUF, [PT_FE_MAX_L] = max_l_##SUF,                                  \
        [PT_FE_CLAMP_MIN_S] = cmin_s_##SUF, [PT_FE_CLAMP_MIN_L] = cmin_l_##SUF,                    \
        [PT_FE_CLAMP_MAX_S] = cmax_s_##SUF, [PT_FE_CLAMP_MAX_L] = cmax_l_##SUF,                    \
        [PT_FE_ADDCMUL] = addcmul_##SUF, [PT_FE_ADDCDIV] = addcdiv_##SUF,                          \
        [PT_FE_LERP_S] = lerp_s_##SUF, [PT_FE_LERP_L] = lerp_l_##SUF, [PT_FE_SQRT] = sqrt_##SUF,   \
        [PT_FE_NEG] = neg_##SUF, [PT_FE_ABS] = abs_##SUF, [PT_FE_SIGN] = sign_##SUF,               \
        [PT_FE_RECIPROCAL] = reciprocal_##SUF, [PT_FE_EXP] = exp_##SUF,                            \
        [PT_FE_ZERO] = zero_##SUF, [PT_FE_COPY] = copy_##SUF, [PT_FE_ADAM] = adam_##SUF,           \
        [PT_FE_SGD] = sgd_##SUF, [PT_FE_ADAGRAD] = adagrad_##SUF,                                  \
    }

_Static_assert(PT_FE_COUNT == 27, "every list operation has a loop in FE_TABLE");

PT_CPU_KERNELS_DEFINE(foreach, pt_foreach_table) = {
    FE_TABLE(f4),
    FE_TABLE(f8),
    norm_f4,
    norm_f8,
};
