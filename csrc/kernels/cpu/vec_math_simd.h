/* vec_math_simd.h - array forms of the float-arithmetic kernels of vec_math.h (exp, sigmoid,
 * tanh and what is built from them): y[i] = f(x[i]) over contiguous float arrays, written with
 * intrinsics in the AVX-512 and AVX2 builds and as loops over vec_math.h's functions in the
 * default one. erf and gelu (pt_simd_erf: vec_math.h's pt_verff_fast) are built on exp here.
 *
 * Note [vector exp]
 * The portable C of vec_math.h vectorizes, but without fused multiply-adds (ISO C does not
 * contract), without AVX-512's vscalefps (2^n applied in one instruction, rounding once into the
 * subnormals and to inf) and with a division and clamps the compiler cannot drop: ~40
 * instructions per 16 lanes for e^x against ~14 here, where exp, tanh and sigmoid were 1.6-1.9x
 * slower than torch's. The algorithms are vec_math.h's (Cody-Waite reduction, Cephes' expf
 * polynomial; sigmoid from e^-|x|; tanh's odd polynomial below 0.625 and 1 - 2/(e^2|x| + 1)
 * above), evaluated with FMAs, so:
 *   - AVX2 and AVX-512 give the same bits: AVX2 applies 2^n as two exact power-of-two factors
 *     (2^(n/2) twice: the first product is exact, the second rounds once, as vscalefps does), and
 *     every other step is the same IEEE operation in both;
 *   - the default build (no FMA) differs from them by at most the kernels' ulp bounds; tests
 *     compare it with a tolerance, the two vector builds bit for bit;
 *   - every element goes through the same vector code, the tail too (a masked load and store
 *     with AVX-512, a padded 8-lane buffer with AVX2), so a value's result does not depend on its
 *     position in the array.
 * Measured maximum error over every 13th float32 bit pattern (benchmarks/ulp_sweep.c built with
 * -mavx2 -mfma and with -mavx512f ...; the two agree): Note [vec_math accuracy].
 */
#ifndef PT_VEC_MATH_SIMD_H
#define PT_VEC_MATH_SIMD_H

#include <stdint.h>

#include "vec_math.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>

#if defined(__AVX512F__)
#define PT_SIMD_LANES 16
typedef __m512 pt_vf;
#define VF_SET1 _mm512_set1_ps
#define VF_LOAD _mm512_loadu_ps
#define VF_STORE _mm512_storeu_ps
#define VF_ADD _mm512_add_ps
#define VF_SUB _mm512_sub_ps
#define VF_MUL _mm512_mul_ps
#define VF_DIV _mm512_div_ps
#define VF_FMA _mm512_fmadd_ps   /* a * b + c */
#define VF_FNMA _mm512_fnmadd_ps /* c - a * b */
#define VF_MIN _mm512_min_ps     /* the second operand when either is nan */
#define VF_MAX _mm512_max_ps
#define VF_ROUND(x) _mm512_roundscale_ps((x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VF_ABS(x) _mm512_abs_ps(x)
/* The sign of s on the magnitude of m (m >= 0). */
#define VF_WITH_SIGN(m, s)                                                                         \
    _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(m), _mm512_castps_si512(s),  \
                                                  _mm512_set1_epi32(INT32_MIN), 0xf8))
/* lt ? a : b, lt from x < c (false for nan). */
#define VF_SELECT_LT(x, c, a, b) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((x), (c), _CMP_LT_OQ), (b), (a))
#define VF_SELECT_GE(x, c, a, b) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((x), (c), _CMP_GE_OQ), (b), (a))

/* p 2^n for p in [0.5, 2] and integral n in [-150, 128], rounded once. */
static inline pt_vf pt_simd_scale(pt_vf p, pt_vf n) { return _mm512_scalef_ps(p, n); }

#else /* AVX2 + FMA */
#define PT_SIMD_LANES 8
typedef __m256 pt_vf;
#define VF_SET1 _mm256_set1_ps
#define VF_LOAD _mm256_loadu_ps
#define VF_STORE _mm256_storeu_ps
#define VF_ADD _mm256_add_ps
#define VF_SUB _mm256_sub_ps
#define VF_MUL _mm256_mul_ps
#define VF_DIV _mm256_div_ps
#define VF_FMA _mm256_fmadd_ps
#define VF_FNMA _mm256_fnmadd_ps
#define VF_MIN _mm256_min_ps
#define VF_MAX _mm256_max_ps
#define VF_ROUND(x) _mm256_round_ps((x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VF_ABS(x) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), (x))
#define VF_WITH_SIGN(m, s) _mm256_or_ps((m), _mm256_and_ps(_mm256_set1_ps(-0.0f), (s)))
#define VF_SELECT_LT(x, c, a, b) _mm256_blendv_ps((b), (a), _mm256_cmp_ps((x), (c), _CMP_LT_OQ))
#define VF_SELECT_GE(x, c, a, b) _mm256_blendv_ps((b), (a), _mm256_cmp_ps((x), (c), _CMP_GE_OQ))

/* As vscalefps: 2^n as two factors 2^n1 2^n2 (n1 = n / 2 toward zero), each a normal float for
 * n in [-150, 128]; p 2^n1 is exact, so the result rounds once. (A nan n gives a garbage factor,
 * but then p is nan too.) */
static inline pt_vf pt_simd_scale(pt_vf p, pt_vf n)
{
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i n1 = _mm256_srai_epi32(_mm256_add_epi32(ni, _mm256_srli_epi32(ni, 31)), 1);
    const __m256i n2 = _mm256_sub_epi32(ni, n1);
    const __m256i bias = _mm256_set1_epi32(127);
    const pt_vf s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const pt_vf s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}
#endif

/* The reduction behind exp and tanh: x = n ln2 + r (Cody-Waite, |r| <= ln2/2) with n integral,
 * and e^r - 1 = r + r^2 P(r) (Cephes' expf polynomial), returned with n in *n. */
static inline pt_vf pt_simd_expm1_reduced(pt_vf x, pt_vf *n)
{
    *n = VF_ROUND(VF_MUL(x, VF_SET1(1.44269504088896341f)));
    pt_vf r = VF_FNMA(*n, VF_SET1(0.693359375f), x);
    r = VF_FNMA(*n, VF_SET1(-2.12194440e-4f), r);
    pt_vf p = VF_SET1(1.9875691500E-4f);
    p = VF_FMA(p, r, VF_SET1(1.3981999507E-3f));
    p = VF_FMA(p, r, VF_SET1(8.3334519073E-3f));
    p = VF_FMA(p, r, VF_SET1(4.1665795894E-2f));
    p = VF_FMA(p, r, VF_SET1(1.6666665459E-1f));
    p = VF_FMA(p, r, VF_SET1(5.0000001201E-1f));
    return VF_FMA(p, VF_MUL(r, r), r);
}

/* e^x: vec_math.h's pt_vexpf with FMAs. x is clamped to [-104, 88.75] first (nan passes: the
 * clamps return their second operand when it is nan), where 2^n covers every float result from 0
 * (below 2^-150) to inf (above FLT_MAX). */
static inline pt_vf pt_simd_exp(pt_vf x)
{
    x = VF_MIN(VF_SET1(88.75f), VF_MAX(VF_SET1(-104.0f), x));
    pt_vf n;
    const pt_vf em1 = pt_simd_expm1_reduced(x, &n);
    return pt_simd_scale(VF_ADD(em1, VF_SET1(1.0f)), n);
}

/* 1 / (1 + e^-x) from e = e^-|x|: 1/(1+e) for x >= 0, e/(1+e) below (small results stay
 * accurate down to the subnormals). */
static inline pt_vf pt_simd_sigmoid(pt_vf x)
{
    const pt_vf one = VF_SET1(1.0f);
    const pt_vf e = pt_simd_exp(VF_SUB(VF_SET1(0.0f), VF_ABS(x)));
    return VF_DIV(VF_SELECT_GE(x, VF_SET1(0.0f), one, e), VF_ADD(one, e));
}

/* tanh |x| = m / (m + 2) with m = e^2|x| - 1, the sign of x put back (tanh(-0) = -0). m comes
 * from the reduction of pt_simd_exp as 2^n (e^r - 1) + (2^n - 1), where e^r - 1 = r + r^2 P(r)
 * has no cancellation, so small |x| keep their relative accuracy without vec_math.h's second
 * polynomial (which, evaluated beside this one and blended, made tanh a third slower). The price
 * is the rounding of m + 2 and of the quotient: 2.4 ulp at most instead of 1.3 (Note [vec_math
 * accuracy]). |x| is clamped to 9.1, beyond which tanh rounds to 1 (and m / (m + 2) would be
 * inf / inf). */
static inline pt_vf pt_simd_tanh(pt_vf x)
{
    const pt_vf a = VF_MIN(VF_SET1(9.1f), VF_ABS(x));
    pt_vf n;
    const pt_vf em1r = pt_simd_expm1_reduced(VF_ADD(a, a), &n);
    const pt_vf s = pt_simd_scale(VF_SET1(1.0f), n); /* 2^n, n in [0, 27] */
    const pt_vf m = VF_FMA(s, em1r, VF_SUB(s, VF_SET1(1.0f)));
    return VF_WITH_SIGN(VF_DIV(m, VF_ADD(m, VF_SET1(2.0f))), x);
}

static inline pt_vf pt_simd_silu(pt_vf x) { return VF_MUL(x, pt_simd_sigmoid(x)); }

static inline pt_vf pt_simd_gelu_tanh(pt_vf x)
{
    const pt_vf x3 = VF_MUL(VF_MUL(x, x), x);
    const pt_vf inner = VF_MUL(VF_SET1(0.79788456080286536f), VF_FMA(VF_SET1(0.044715f), x3, x));
    return VF_MUL(VF_MUL(VF_SET1(0.5f), x), VF_ADD(VF_SET1(1.0f), pt_simd_tanh(inner)));
}

/* erf: vec_math.h's pt_verff_fast with FMAs (both pieces evaluated, then chosen by |x|; a nan
 * passes the clamp of |x| and both pieces). */
static inline pt_vf pt_simd_erf(pt_vf x)
{
    const pt_vf a = VF_ABS(x), s = VF_MUL(x, x);
    pt_vf q = VF_SET1(-5.990988840e-4f);
    q = VF_FMA(q, s, VF_SET1(4.993212214e-3f));
    q = VF_FMA(q, s, VF_SET1(-2.676664378e-2f));
    q = VF_FMA(q, s, VF_SET1(1.128181721e-1f));
    q = VF_FMA(q, s, VF_SET1(-3.761249385e-1f));
    q = VF_FMA(q, s, VF_SET1(1.283791496e-1f));
    const pt_vf small = VF_FMA(x, q, x);
    const pt_vf t = VF_MIN(VF_SET1(3.925f), a);
    pt_vf p = VF_SET1(1.947348430e-4f);
    p = VF_FMA(p, t, VF_SET1(-3.031603957e-3f));
    p = VF_FMA(p, t, VF_SET1(2.218141095e-2f));
    p = VF_FMA(p, t, VF_SET1(-1.038389313e-1f));
    p = VF_FMA(p, t, VF_SET1(-6.372857306e-1f));
    p = VF_FMA(p, t, VF_SET1(-1.127615474e+0f));
    p = VF_FMA(p, t, VF_SET1(-2.099102631e-4f));
    const pt_vf large = VF_WITH_SIGN(VF_SUB(VF_SET1(1.0f), pt_simd_exp(p)), x);
    return VF_SELECT_LT(a, VF_SET1(0.921875f), small, large);
}

/* x Phi(x) = x (1 + erf(x / sqrt 2)) / 2 */
static inline pt_vf pt_simd_gelu(pt_vf x)
{
    const pt_vf e = pt_simd_erf(VF_MUL(x, VF_SET1(0.70710678118654752f)));
    return VF_MUL(VF_MUL(VF_SET1(0.5f), x), VF_ADD(VF_SET1(1.0f), e));
}

/* y[i] = F(x[i] - shift) for i < n; y may be x. */
#if defined(__AVX512F__)
#define PT_SIMD_MAP(NAME, F)                                                                       \
    static inline void NAME(float *y, const float *x, int64_t n, float shift)                      \
    {                                                                                              \
        const pt_vf s = VF_SET1(shift);                                                            \
        int64_t i = 0;                                                                             \
        for (; i + 16 <= n; i += 16) VF_STORE(y + i, F(VF_SUB(VF_LOAD(x + i), s)));               \
        if (i < n) {                                                                               \
            const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);                                 \
            _mm512_mask_storeu_ps(y + i, m, F(VF_SUB(_mm512_maskz_loadu_ps(m, x + i), s)));        \
        }                                                                                          \
    }
#else
#define PT_SIMD_MAP(NAME, F)                                                                       \
    static inline void NAME(float *y, const float *x, int64_t n, float shift)                      \
    {                                                                                              \
        const pt_vf s = VF_SET1(shift);                                                            \
        int64_t i = 0;                                                                             \
        for (; i + 8 <= n; i += 8) VF_STORE(y + i, F(VF_SUB(VF_LOAD(x + i), s)));                 \
        if (i < n) {                                                                               \
            float buf[8] = {0};                                                                    \
            for (int64_t j = i; j < n; j++) buf[j - i] = x[j];                                     \
            VF_STORE(buf, F(VF_SUB(VF_LOAD(buf), s)));                                             \
            for (int64_t j = i; j < n; j++) y[j] = buf[j - i];                                     \
        }                                                                                          \
    }
#endif

#else /* the default build: vec_math.h's portable functions */
#define PT_SIMD_MAP(NAME, F)                                                                       \
    static inline void NAME(float *y, const float *x, int64_t n, float shift)                      \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++) y[i] = F(x[i] - shift);                                    \
    }
#define pt_simd_exp pt_vexpf
#define pt_simd_sigmoid pt_vsigmoidf
#define pt_simd_tanh pt_vtanhf
static inline float pt_simd_silu(float x) { return x * pt_vsigmoidf(x); }
static inline float pt_simd_gelu_tanh(float x)
{
    return 0.5f * x * (1.0f + pt_vtanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}
#define pt_simd_erf pt_verff_fast
static inline float pt_simd_gelu(float x)
{
    return 0.5f * x * (1.0f + pt_verff_fast(x * 0.70710678118654752f));
}
#endif

PT_SIMD_MAP(pt_map_expf, pt_simd_exp)
PT_SIMD_MAP(pt_map_sigmoidf, pt_simd_sigmoid)
PT_SIMD_MAP(pt_map_tanhf, pt_simd_tanh)
PT_SIMD_MAP(pt_map_siluf, pt_simd_silu)
PT_SIMD_MAP(pt_map_gelu_tanhf, pt_simd_gelu_tanh)
PT_SIMD_MAP(pt_map_geluf, pt_simd_gelu)

#endif
