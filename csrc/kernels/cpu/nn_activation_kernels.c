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

static inline double sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }

/* erf in float arithmetic for gelu's backward (Abramowitz and Stegun 7.1.26, the approximation
 * torch's vectorized float erf uses): absolute error below 1.5e-7, branch-free, so the loop
 * vectorizes in full-width float lanes; vec_math's pt_verff computes in double, half the lanes,
 * and made gelu_backward 2.6x slower. float64 keeps libm's erf. */
static inline float erf_as(float x)
{
    const float a = fabsf(x), t = 1.0f / (1.0f + 0.3275911f * a);
    float p = 1.061405429f;
    p = p * t - 1.453152027f;
    p = p * t + 1.421413741f;
    p = p * t - 0.284496736f;
    p = p * t + 0.254829592f;
    const float r = 1.0f - p * t * pt_vexpf(-a * a);
    return copysignf(r, x);
}

#define M_EXP(x) _Generic((x), float: pt_vexpf, default: exp)(x)
#define M_EXPM1(x) _Generic((x), float: pt_vexpm1f, default: expm1)(x)
#define M_LOG1P(x) _Generic((x), float: pt_vlog1pf, default: log1p)(x)
#define M_TANH(x) _Generic((x), float: pt_vtanhf, default: tanh)(x)
#define M_ERF(x) _Generic((x), float: erf_as, default: erf)(x)
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
        const T x = A(T, 1);                                                                       \
        A(T, 0) = x <= 0 ? M_EXPM1(x * p2) * p0 : x * p1;                                          \
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
        A(T, 0) = bx > p1 ? x : M_LOG1P(M_EXP(bx)) / p0;                                           \
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
ACT_LOOP(gelu_bw, 3, GELU_BW)

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
};
