/* nn_activation_kernels.c - the inner loops of the nn activations and their backward operators,
 * and the softmax backward rows, compiled once per CPU capability (cpu_kernel.h); nn/activation.c
 * and nn/activation_rows.c run them through the iterator or over rows.
 *
 * Every loop has NumPy's (data, byte strides, n) form over 2 to 5 operands and two paths: all
 * operands contiguous, which the compiler vectorizes for the capability's instruction set, and
 * strided. One body serves both: it names operand k through A(k), which each path defines. The
 * float32 transcendental functions are vec_math.h's branch-free ones (so the contiguous path
 * vectorizes), float64 calls libm; M_EXP and friends pick by the argument's type. The formulas
 * are torch's CPU kernels' (aten/src/ATen/native/cpu/Activation.cpp), comparisons included, so
 * that the boundary points (x == threshold, x == -3) and nan take the same branch.
 */
#include "cpu_kernel.h"

#include <math.h>

#include "nn/activation.h"
#include "vec_math.h"
#include "vec_math_simd.h"

static inline double sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }

/* e^x - 1 in float arithmetic for elu (full-width lanes; vec_math's pt_vexpm1f computes in
 * double, half the lanes, and made elu 1.4x slower than torch): pt_vexpf's reduction
 * x = n ln2 + r and polynomial for e^r - 1, then 2^n (e^r - 1) + (2^n - 1), which has no
 * cancellation near 0 (n = 0 there). Within 1.56 ulp of expm1 over every 7th float; -0 kept. */
static inline float expm1_fl(float x)
{
    const float hi = 88.72283935546875f, lo = -104.0f;
    float xc = x > hi ? hi : x;
    xc = xc < lo ? lo : xc;
    const float shift = 0x1.8p23f;
    const float kf = xc * 1.44269504088896341f + shift;
    const int32_t n = (int32_t)(pt_bits_of(kf) - pt_bits_of(shift));
    const float nf = kf - shift;
    float r = xc - nf * 0.693359375f;
    r = r - nf * -2.12194440e-4f;
    float p = 1.9875691500E-4f;
    p = p * r + 1.3981999507E-3f;
    p = p * r + 8.3334519073E-3f;
    p = p * r + 4.1665795894E-2f;
    p = p * r + 1.6666665459E-1f;
    p = p * r + 5.0000001201E-1f;
    const float em1 = p * (r * r) + r;
    const int32_t n1 = n / 2, n2 = n - n1;
    const float s1 = pt_float_of((uint32_t)(n1 + 127) << 23);
    const float s2 = pt_float_of((uint32_t)(n2 + 127) << 23);
    const float s = s1 * s2;
    /* above n = 24 the - 1 is below half an ulp, and 2^n alone may overflow */
    float y = n > 24 ? (em1 + 1.0f) * s1 * s2 : em1 * s + (s - 1.0f);
    y = x == 0.0f ? x : y;
    y = x > hi ? INFINITY : y;
    return x < lo ? -1.0f : y;
}

/* log(1 + t) for t >= 0 (the loops pass e^x) in float arithmetic, for softplus, mish and
 * log_sigmoid (pt_vlog1pf computes in double, half the lanes, and made softplus 2x slower than
 * torch): u = 1 + t rounded, log u from u's exponent and Cephes' logf polynomial on its mantissa
 * in [sqrt(1/2), sqrt 2), plus (t - (u - 1)) / u, what the rounding of u lost. Within 0.89 ulp of
 * log1p over every 5th non-negative float; inf and nan pass. */
static inline float log1p_fl(float t)
{
    const float u = 1.0f + t;
    const float c = (t - (u - 1.0f)) / u;
    const uint32_t ub = pt_bits_of(u);
    int32_t e = (int32_t)((ub >> 23) & 0xffu) - 127;
    float m = pt_float_of((ub & 0x7fffffu) | 0x3f800000u);
    const int big = m > 1.41421356237309505f;
    m = big ? 0.5f * m : m;
    e = big ? e + 1 : e;
    const float ef = (float)e, x = m - 1.0f, z = x * x;
    float p = 7.0376836292E-2f;
    p = p * x - 1.1514610310E-1f;
    p = p * x + 1.1676998740E-1f;
    p = p * x - 1.2420140846E-1f;
    p = p * x + 1.4249322787E-1f;
    p = p * x - 1.6668057665E-1f;
    p = p * x + 2.0000714765E-1f;
    p = p * x - 2.4999993993E-1f;
    p = p * x + 3.3333331174E-1f;
    float y = x * z * p;
    y = y + ef * -2.12194440e-4f;
    y = y - 0.5f * z;
    y = y + c;
    float r = x + y;
    r = r + ef * 0.693359375f;
    r = u == 1.0f ? t : r;
    r = t == INFINITY ? t : r;
    return t != t ? t : r;
}

#define M_EXP(x) _Generic((x), float: pt_vexpf, default: exp)(x)
#define M_EXPM1(x) _Generic((x), float: expm1_fl, default: expm1)(x)
#define M_LOG1P(x) _Generic((x), float: log1p_fl, default: log1p)(x)
#define M_TANH(x) _Generic((x), float: pt_vtanhf, default: tanh)(x)
#define M_ERF(x) _Generic((x), float: pt_verff_fast, default: erf)(x)
#define M_SIGMOID(x) _Generic((x), float: pt_vsigmoidf, default: sigmoid_d)(x)

enum { MAX_OPS = 5 };

/* NAME_f4 and NAME_f8: BODY(A) runs once per element; p0..p3 are the params in the loop type. */
#define ACT_LOOP_T(NAME, T, N, BODY)                                                               \
    static void NAME(char **data, const int64_t *s, int64_t n, void *ctx)                          \
    {                                                                                              \
        const pt_act_params *P = ctx;                                                              \
        const T p0 = P ? (T)P->p[0] : 0, p1 = P ? (T)P->p[1] : 0, p2 = P ? (T)P->p[2] : 0,         \
                p3 = P ? (T)P->p[3] : 0;                                                           \
        PT_UNUSED(p0);                                                                             \
        PT_UNUSED(p1);                                                                             \
        PT_UNUSED(p2);                                                                             \
        PT_UNUSED(p3);                                                                             \
        char *d[MAX_OPS];                                                                          \
        int contiguous = 1;                                                                        \
        for (int k = 0; k < (N); k++) {                                                            \
            d[k] = data[k];                                                                        \
            contiguous &= s[k] == (int64_t)sizeof(T);                                              \
        }                                                                                          \
        if (contiguous) {                                                                          \
            PT_IVDEP for (int64_t i = 0; i < n; i++)                                               \
            {                                                                                      \
                BODY(T, CONTIG_AT)                                                                 \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                BODY(T, STRIDED_AT)                                                                \
            }                                                                                      \
        }                                                                                          \
    }
#define CONTIG_AT(T, k) (((T *)d[k])[i])
#define STRIDED_AT(T, k) (*(T *)(d[k] + i * s[k]))
#define ACT_LOOP(NAME, N, BODY)                                                                    \
    ACT_LOOP_T(NAME##_f4, float, N, BODY)                                                          \
    ACT_LOOP_T(NAME##_f8, double, N, BODY)

/* ---------------------------------------------------------------- forward */
#define ELU(T, A)                                                                                  \
    {                                                                                              \
        /* float32 computes e for every x (a select the loop vectorizes, not a branch) */         \
        const T x = A(T, 1), e = (sizeof(T) == 4 || x <= 0) ? M_EXPM1(x * p2) * p0 : (T)0;        \
        A(T, 0) = x <= 0 ? e : x * p1;                                                             \
    }
ACT_LOOP(elu, 2, ELU)

#define LEAKY_RELU(T, A)                                                                           \
    {                                                                                              \
        const T x = A(T, 1);                                                                       \
        A(T, 0) = x > 0 ? x : x * p0;                                                              \
    }
ACT_LOOP(leaky_relu, 2, LEAKY_RELU)

#define SOFTPLUS(T, A)                                                                             \
    {                                                                                              \
        const T x = A(T, 1), bx = x * p0;                                                          \
        const T sp = (sizeof(T) == 4 || !(bx > p1)) ? M_LOG1P(M_EXP(bx)) / p0 : (T)0;              \
        A(T, 0) = bx > p1 ? x : sp;                                                                \
    }
ACT_LOOP(softplus, 2, SOFTPLUS)

#define HARDSIGMOID(T, A)                                                                          \
    {                                                                                              \
        const T x = A(T, 1) + (T)3;                                                                \
        const T c = x < 0 ? (T)0 : x;                                                              \
        A(T, 0) = (c > 6 ? (T)6 : c) / (T)6;                                                       \
    }
ACT_LOOP(hardsigmoid, 2, HARDSIGMOID)

#define HARDSWISH(T, A)                                                                            \
    {                                                                                              \
        const T x = A(T, 1), y = x + (T)3;                                                         \
        const T c = y < 0 ? (T)0 : y;                                                              \
        A(T, 0) = x * (c > 6 ? (T)6 : c) / (T)6;                                                   \
    }
ACT_LOOP(hardswish, 2, HARDSWISH)

#define MISH(T, A)                                                                                 \
    {                                                                                              \
        const T x = A(T, 1);                                                                       \
        A(T, 0) = x * M_TANH(M_LOG1P(M_EXP(x)));                                                   \
    }
ACT_LOOP(mish, 2, MISH)

/* x * 0 rather than 0 inside the band keeps nan, as torch. */
#define SOFTSHRINK(T, A)                                                                           \
    {                                                                                              \
        const T x = A(T, 1);                                                                       \
        A(T, 0) = x > p0 ? x - p0 : (x < -p0 ? x + p0 : x * (T)0);                                 \
    }
ACT_LOOP(softshrink, 2, SOFTSHRINK)

#define HARDSHRINK(T, A)                                                                           \
    {                                                                                              \
        const T x = A(T, 1);                                                                       \
        A(T, 0) = (x >= -p0 && x <= p0) ? (T)0 : x;                                                \
    }
ACT_LOOP(hardshrink, 2, HARDSHRINK)

/* out = min(x, 0) - log1p(exp(-|x|)); the buffer keeps exp(-|x|) for the backward. */
#define LOG_SIGMOID(T, A)                                                                          \
    {                                                                                              \
        const T x = A(T, 2);                                                                       \
        const T z = M_EXP(x < 0 ? x : -x);                                                         \
        A(T, 1) = z;                                                                               \
        A(T, 0) = (x < 0 ? x : (T)0) - M_LOG1P(z);                                                 \
    }
ACT_LOOP(log_sigmoid, 3, LOG_SIGMOID)

#define PRELU(T, A)                                                                                \
    {                                                                                              \
        const T x = A(T, 1);                                                                       \
        A(T, 0) = x > 0 ? x : A(T, 2) * x;                                                         \
    }
ACT_LOOP(prelu, 3, PRELU)

#define GLU(T, A)                                                                                  \
    {                                                                                              \
        A(T, 0) = A(T, 1) * M_SIGMOID(A(T, 2));                                                    \
    }
ACT_LOOP(glu, 3, GLU)

/* A negative element is scaled by lower + u * (upper - lower), which is also its noise; the
 * others pass with noise 1. */
#define RRELU_TRAIN(T, A)                                                                          \
    {                                                                                              \
        const T x = A(T, 2), r = p0 + A(T, 3) * (p1 - p0);                                         \
        A(T, 1) = x <= 0 ? r : (T)1;                                                               \
        A(T, 0) = x <= 0 ? x * r : x;                                                              \
    }
ACT_LOOP(rrelu_train, 4, RRELU_TRAIN)

/* ---------------------------------------------------------------- backward */
#define HARDTANH_BW(T, A)                                                                          \
    {                                                                                              \
        const T x = A(T, 2);                                                                       \
        A(T, 0) = (x <= p0 || x >= p1) ? (T)0 : A(T, 1);                                           \
    }
ACT_LOOP(hardtanh_bw, 3, HARDTANH_BW)

#define ELU_BW(T, A)                                                                               \
    {                                                                                              \
        const T g = A(T, 1), x = A(T, 2);                                                          \
        A(T, 0) = x <= 0 ? g * p2 * p0 * M_EXP(x * p2) : g * p1;                                   \
    }
ACT_LOOP(elu_bw, 3, ELU_BW)

/* From the result y: for y <= 0, negcoef * exp(x * input_scale) = y + negcoef. */
#define ELU_BW_RESULT(T, A)                                                                        \
    {                                                                                              \
        const T g = A(T, 1), y = A(T, 2);                                                          \
        A(T, 0) = y <= 0 ? g * p2 * (y + p0) : g * p1;                                             \
    }
ACT_LOOP(elu_bw_result, 3, ELU_BW_RESULT)

#define LEAKY_RELU_BW(T, A)                                                                        \
    {                                                                                              \
        const T g = A(T, 1);                                                                       \
        A(T, 0) = A(T, 2) > 0 ? g : g * p0;                                                        \
    }
ACT_LOOP(leaky_relu_bw, 3, LEAKY_RELU_BW)

#define SOFTPLUS_BW(T, A)                                                                          \
    {                                                                                              \
        const T g = A(T, 1), bx = A(T, 2) * p0;                                                    \
        const T z = M_EXP(bx);                                                                     \
        A(T, 0) = bx > p1 ? g : g * z / (z + (T)1);                                                \
    }
ACT_LOOP(softplus_bw, 3, SOFTPLUS_BW)

#define HARDSIGMOID_BW(T, A)                                                                       \
    {                                                                                              \
        const T x = A(T, 2);                                                                       \
        A(T, 0) = (x > (T)-3 && x < (T)3) ? A(T, 1) * (T)(1.0f / 6.0f) : (T)0;                 \
    }
ACT_LOOP(hardsigmoid_bw, 3, HARDSIGMOID_BW)

#define HARDSWISH_BW(T, A)                                                                         \
    {                                                                                              \
        const T g = A(T, 1), x = A(T, 2);                                                          \
        A(T, 0) = x <= (T)-3 ? (T)0 : (x < (T)3 ? g * (x / (T)3 + (T)0.5) : g);                    \
    }
ACT_LOOP(hardswish_bw, 3, HARDSWISH_BW)

#define MISH_BW(T, A)                                                                              \
    {                                                                                              \
        const T g = A(T, 1), x = A(T, 2);                                                          \
        const T sig = M_SIGMOID(x), t = M_TANH(M_LOG1P(M_EXP(x)));                                 \
        A(T, 0) = g * (t + x * sig * ((T)1 - t * t));                                              \
    }
ACT_LOOP(mish_bw, 3, MISH_BW)

#define SHRINK_BW(T, A)                                                                            \
    {                                                                                              \
        const T x = A(T, 2);                                                                       \
        A(T, 0) = (x >= -p0 && x <= p0) ? (T)0 : A(T, 1);                                          \
    }
ACT_LOOP(shrink_bw, 3, SHRINK_BW)

#define THRESHOLD_BW(T, A)                                                                         \
    {                                                                                              \
        A(T, 0) = A(T, 2) <= p0 ? (T)0 : A(T, 1);                                                  \
    }
ACT_LOOP(threshold_bw, 3, THRESHOLD_BW)

/* d/dx x * Phi(x) = Phi(x) + x * phi(x). */
#define GELU_BW(T, A)                                                                              \
    {                                                                                              \
        const T x = A(T, 2);                                                                       \
        const T cdf = (T)0.5 * ((T)1 + M_ERF(x * (T)0.70710678118654752440));                      \
        const T pdf = M_EXP((T)-0.5 * x * x) * (T)0.39894228040143267794;                          \
        A(T, 0) = A(T, 1) * (cdf + x * pdf);                                                       \
    }
ACT_LOOP_T(gelu_bw_f8, double, 3, GELU_BW)

/* float32 gelu_backward through vec_math_simd.h (FMAs, full-width erf and exp) where the build
 * has it: contiguous operands directly, strided ones through block buffers, the tail through a
 * padded vector, so that every element takes the same vector code (as unary_kernels.c's
 * MAP_LOOP). */
#if defined(PT_SIMD_LANES)
static inline pt_vf gelu_bw_v(pt_vf g, pt_vf x)
{
    const pt_vf e = pt_simd_erf(VF_MUL(x, VF_SET1(0.70710678118654752440f)));
    const pt_vf cdf = VF_MUL(VF_SET1(0.5f), VF_ADD(VF_SET1(1.0f), e));
    const pt_vf pdf = VF_MUL(pt_simd_exp(VF_MUL(VF_MUL(VF_SET1(-0.5f), x), x)),
                             VF_SET1(0.39894228040143267794f));
    return VF_MUL(g, VF_FMA(x, pdf, cdf));
}
static void gelu_bw_run(float *o, const float *g, const float *x, int64_t n)
{
    int64_t i = 0;
    for (; i + PT_SIMD_LANES <= n; i += PT_SIMD_LANES)
        VF_STORE(o + i, gelu_bw_v(VF_LOAD(g + i), VF_LOAD(x + i)));
    if (i < n) {
        float gb[PT_SIMD_LANES] = {0}, xb[PT_SIMD_LANES] = {0};
        for (int64_t j = i; j < n; j++) {
            gb[j - i] = g[j];
            xb[j - i] = x[j];
        }
        VF_STORE(gb, gelu_bw_v(VF_LOAD(gb), VF_LOAD(xb)));
        for (int64_t j = i; j < n; j++) o[j] = gb[j - i];
    }
}
#else
static void gelu_bw_run(float *o, const float *g, const float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        const float xi = x[i];
        const float cdf = 0.5f * (1.0f + pt_verff_fast(xi * 0.70710678118654752440f));
        const float pdf = pt_vexpf(-0.5f * xi * xi) * 0.39894228040143267794f;
        o[i] = g[i] * (cdf + xi * pdf);
    }
}
#endif
enum { GELU_BLOCK = 256 };
static void gelu_bw_f4(char **data, const int64_t *s, int64_t n, void *ctx)
{
    PT_UNUSED(ctx);
    const int64_t f = (int64_t)sizeof(float);
    if (s[0] == f && s[1] == f && s[2] == f) {
        gelu_bw_run((float *)data[0], (const float *)data[1], (const float *)data[2], n);
        return;
    }
    float ob[GELU_BLOCK], gb[GELU_BLOCK], xb[GELU_BLOCK];
    for (int64_t b = 0; b < n; b += GELU_BLOCK) {
        const int64_t len = n - b < GELU_BLOCK ? n - b : GELU_BLOCK;
        for (int64_t i = 0; i < len; i++) {
            gb[i] = *(const float *)(data[1] + (b + i) * s[1]);
            xb[i] = *(const float *)(data[2] + (b + i) * s[2]);
        }
        gelu_bw_run(ob, gb, xb, len);
        for (int64_t i = 0; i < len; i++) *(float *)(data[0] + (b + i) * s[0]) = ob[i];
    }
}

#define GELU_TANH_BW(T, A)                                                                         \
    {                                                                                              \
        const T x = A(T, 2), beta = (T)0.79788456080286535588, kappa = (T)0.044715;                \
        const T x2 = x * x, t = M_TANH(beta * (x + kappa * x2 * x));                               \
        const T left = (T)0.5 * x, right = (T)1 + t;                                               \
        const T dleft = (T)0.5 * right;                                                            \
        const T dright = left * ((T)1 - t * t) * (beta * ((T)1 + (T)3 * kappa * x2));             \
        A(T, 0) = A(T, 1) * (dleft + dright);                                                      \
    }
ACT_LOOP(gelu_tanh_bw, 3, GELU_TANH_BW)

#define SILU_BW(T, A)                                                                              \
    {                                                                                              \
        const T x = A(T, 2), sig = M_SIGMOID(x);                                                   \
        A(T, 0) = A(T, 1) * sig * ((T)1 + x * ((T)1 - sig));                                       \
    }
ACT_LOOP(silu_bw, 3, SILU_BW)

/* With the buffer z = exp(-|x|): d/dx log_sigmoid = 1 - z/(1+z) for x < 0, z/(1+z) else. */
#define LOG_SIGMOID_BW(T, A)                                                                       \
    {                                                                                              \
        const T x = A(T, 2), z = A(T, 3);                                                          \
        const T q = z / ((T)1 + z);                                                                \
        A(T, 0) = (x < 0 ? (T)1 - q : q) * A(T, 1);                                                \
    }
ACT_LOOP(log_sigmoid_bw, 4, LOG_SIGMOID_BW)

#define PRELU_BW(T, A)                                                                             \
    {                                                                                              \
        const T g = A(T, 2), x = A(T, 3);                                                          \
        A(T, 0) = x > 0 ? g : A(T, 4) * g;                                                         \
        A(T, 1) = x > 0 ? (T)0 : x * g;                                                            \
    }
ACT_LOOP(prelu_bw, 5, PRELU_BW)

#define GLU_BW(T, A)                                                                               \
    {                                                                                              \
        const T g = A(T, 2), sig = M_SIGMOID(A(T, 4));                                             \
        A(T, 0) = sig * g;                                                                         \
        A(T, 1) = ((T)1 - sig) * sig * A(T, 3) * g;                                                \
    }
ACT_LOOP(glu_bw, 5, GLU_BW)

/* ---------------------------------------------------------------- softmax backward rows
 * The row sums keep LANES partial results, as softmax_kernels.c does, so that they vectorize
 * without reassociation flags and give the same bits under every capability. */
enum { LANES = 16 };

#define ROW_BW(SUF, T)                                                                             \
    static T dot_##SUF(const T *a, const T *b, int64_t n)                                          \
    {                                                                                              \
        T acc[LANES] = {0};                                                                        \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) acc[j] += a[i + j] * b[i + j];                         \
        for (; i < n; i++) acc[0] += a[i] * b[i];                                                  \
        T r = 0;                                                                                   \
        for (int j = 0; j < LANES; j++) r += acc[j];                                               \
        return r;                                                                                  \
    }                                                                                              \
    static T sum_##SUF(const T *a, int64_t n)                                                      \
    {                                                                                              \
        T acc[LANES] = {0};                                                                        \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            for (int j = 0; j < LANES; j++) acc[j] += a[i + j];                                    \
        for (; i < n; i++) acc[0] += a[i];                                                         \
        T r = 0;                                                                                   \
        for (int j = 0; j < LANES; j++) r += acc[j];                                               \
        return r;                                                                                  \
    }                                                                                              \
    static void softmax_bw_##SUF(T *gi, const T *g, const T *y, int64_t n)                         \
    {                                                                                              \
        const T s = dot_##SUF(g, y, n);                                                            \
        PT_IVDEP for (int64_t i = 0; i < n; i++) gi[i] = y[i] * (g[i] - s);                        \
    }                                                                                              \
    static void log_softmax_bw_##SUF(T *gi, const T *g, const T *y, int64_t n)                     \
    {                                                                                              \
        const T s = sum_##SUF(g, n);                                                               \
        PT_IVDEP for (int64_t i = 0; i < n; i++) gi[i] = g[i] - M_EXP(y[i]) * s;                   \
    }
ROW_BW(f4, float)
ROW_BW(f8, double)

/* The softmax backward by columns (softmax.h's Note [softmax across columns]): one lane per
 * column, the same arithmetic per column as the rows above. */
#define COL_BW(SUF, T)                                                                             \
    static void cols_bw_##SUF(T *gi, const T *g, const T *y, int64_t n, int64_t stride,            \
                              int64_t w, int log)                                                  \
    {                                                                                              \
        T s[PT_SOFTMAX_COLS];                                                                      \
        for (int64_t j = 0; j < w; j++) s[j] = 0;                                                  \
        for (int64_t c = 0; c < n; c++) {                                                          \
            const T *gr = g + c * stride, *yr = y + c * stride;                                    \
            if (log) {                                                                             \
                PT_IVDEP for (int64_t j = 0; j < w; j++) s[j] += gr[j];                            \
            } else {                                                                               \
                PT_IVDEP for (int64_t j = 0; j < w; j++) s[j] += gr[j] * yr[j];                    \
            }                                                                                      \
        }                                                                                          \
        for (int64_t c = 0; c < n; c++) {                                                          \
            const T *gr = g + c * stride, *yr = y + c * stride;                                    \
            T *o = gi + c * stride;                                                                \
            if (log) {                                                                             \
                PT_IVDEP for (int64_t j = 0; j < w; j++) o[j] = gr[j] - M_EXP(yr[j]) * s[j];       \
            } else {                                                                               \
                PT_IVDEP for (int64_t j = 0; j < w; j++) o[j] = yr[j] * (gr[j] - s[j]);            \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void softmax_bw_cols_##SUF(T *gi, const T *g, const T *y, int64_t n, int64_t stride,    \
                                      int64_t w)                                                   \
    {                                                                                              \
        cols_bw_##SUF(gi, g, y, n, stride, w, 0);                                                  \
    }                                                                                              \
    static void log_softmax_bw_cols_##SUF(T *gi, const T *g, const T *y, int64_t n,                \
                                          int64_t stride, int64_t w)                               \
    {                                                                                              \
        cols_bw_##SUF(gi, g, y, n, stride, w, 1);                                                  \
    }
COL_BW(f4, float)
COL_BW(f8, double)

#define BOTH(NAME) {NAME##_f4, NAME##_f8}

PT_CPU_KERNELS_DEFINE(nn_activation, pt_act_table) = {
    .fn = {
        [PT_ACT_ELU] = BOTH(elu),
        [PT_ACT_LEAKY_RELU] = BOTH(leaky_relu),
        [PT_ACT_SOFTPLUS] = BOTH(softplus),
        [PT_ACT_HARDSIGMOID] = BOTH(hardsigmoid),
        [PT_ACT_HARDSWISH] = BOTH(hardswish),
        [PT_ACT_MISH] = BOTH(mish),
        [PT_ACT_SOFTSHRINK] = BOTH(softshrink),
        [PT_ACT_HARDSHRINK] = BOTH(hardshrink),
        [PT_ACT_LOG_SIGMOID] = BOTH(log_sigmoid),
        [PT_ACT_HARDTANH_BW] = BOTH(hardtanh_bw),
        [PT_ACT_ELU_BW] = BOTH(elu_bw),
        [PT_ACT_ELU_BW_RESULT] = BOTH(elu_bw_result),
        [PT_ACT_LEAKY_RELU_BW] = BOTH(leaky_relu_bw),
        [PT_ACT_SOFTPLUS_BW] = BOTH(softplus_bw),
        [PT_ACT_HARDSIGMOID_BW] = BOTH(hardsigmoid_bw),
        [PT_ACT_HARDSWISH_BW] = BOTH(hardswish_bw),
        [PT_ACT_MISH_BW] = BOTH(mish_bw),
        [PT_ACT_SHRINK_BW] = BOTH(shrink_bw),
        [PT_ACT_THRESHOLD_BW] = BOTH(threshold_bw),
        [PT_ACT_GELU_BW] = BOTH(gelu_bw),
        [PT_ACT_GELU_TANH_BW] = BOTH(gelu_tanh_bw),
        [PT_ACT_SILU_BW] = BOTH(silu_bw),
        [PT_ACT_LOG_SIGMOID_BW] = BOTH(log_sigmoid_bw),
        [PT_ACT_PRELU] = BOTH(prelu),
        [PT_ACT_PRELU_BW] = BOTH(prelu_bw),
        [PT_ACT_GLU] = BOTH(glu),
        [PT_ACT_GLU_BW] = BOTH(glu_bw),
        [PT_ACT_RRELU_TRAIN] = BOTH(rrelu_train),
    },
    .softmax_bw_f32 = {softmax_bw_f4, log_softmax_bw_f4},
    .softmax_bw_f64 = {softmax_bw_f8, log_softmax_bw_f8},
    .softmax_bw_cols_f32 = {softmax_bw_cols_f4, log_softmax_bw_cols_f4},
    .softmax_bw_cols_f64 = {softmax_bw_cols_f8, log_softmax_bw_cols_f8},
};
