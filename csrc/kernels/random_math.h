/* random_math.h - the arithmetic that turns Philox words into normal numbers: log, sine and
 * cosine of 2 pi u, and Box-Muller, in float32 and float64, as plain inline C that the scalar
 * reference, every CPU capability's vector loops and (later) CUDA device code share.
 *
 * Note [normal arithmetic]
 * A seed must give the same numbers on every device, CPU capability and thread count (Note
 * [Philox stream], random.c), so a value may depend on nothing but its words: no libm (whose log
 * and cos differ between libraries, versions and devices), no operation whose rounding a compiler
 * or an instruction set may choose. The functions below are therefore straight-line sequences of
 * IEEE additions, multiplications, one division and sqrt (correctly rounded everywhere), bit
 * operations and exact int <-> float conversions:
 *   - no fused multiply-adds: ISO C (-std=c11) does not contract a * b + c, the CPU kernels'
 *     vector forms use separate multiplies and adds, and a CUDA build must not contract either
 *     (nvcc --fmad=false, or __fmul_rn / __fadd_rn);
 *   - no branches: every path computes the same operations in the same order, so the compiler
 *     may vectorize the loops that call them (it keeps IEEE semantics: no -ffast-math) and a
 *     value does not depend on the lane, the batch or the thread it is computed in.
 *
 * The log is fdlibm's (as musl keeps it): x = 2^k m with m in [sqrt(2)/2, sqrt(2)), f = m - 1,
 * s = f / (2 + f), log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)); below 1 ulp. Sine and cosine of
 * 2 pi u for u in [0, 1): q = round(4u) and f = u - q/4 are exact (u is a multiple of 2^-24 or
 * 2^-53 in the draws), so the reduction adds no error; sin(2 pi f) = f P(f^2) and
 * cos(2 pi f) = Q(f^2) on |f| <= 1/8 are Chebyshev fits (mpmath.chebyfit, 50 digits) of
 * degree 4 (float) and 7 (double) in f^2, whose own error is far below an ulp; the quadrant q
 * then swaps and negates them. tests/c/test_random_math.c measures every function against libm
 * (exhaustively over the float draws' inputs): Note [normal arithmetic accuracy] there.
 */
#ifndef PT_RANDOM_MATH_H
#define PT_RANDOM_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define PT_RANDOM_MATH_FN static inline __host__ __device__
#else
#define PT_RANDOM_MATH_FN static inline
#endif

PT_RANDOM_MATH_FN uint32_t pt_rm_bits_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

PT_RANDOM_MATH_FN float pt_rm_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

PT_RANDOM_MATH_FN uint64_t pt_rm_bits_f64(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

PT_RANDOM_MATH_FN double pt_rm_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ---------------------------------------------------------------- log */
/* log x for a normal, positive, finite x. */
PT_RANDOM_MATH_FN float pt_rm_logf(float x)
{
    const float ln2_hi = 6.9313812256e-01f, ln2_lo = 9.0580006145e-06f;
    const float lg1 = 0.66666662693f, lg2 = 0.40000972152f, lg3 = 0.28498786688f,
                lg4 = 0.24279078841f;
    uint32_t ix = pt_rm_bits_f32(x) + (0x3f800000u - 0x3f3504f3u);
    const float dk = (float)((int32_t)(ix >> 23) - 0x7f);
    ix = (ix & 0x007fffffu) + 0x3f3504f3u;
    const float f = pt_rm_f32(ix) - 1.0f;
    const float s = f / (2.0f + f);
    const float z = s * s, w = z * z;
    const float t1 = w * (lg2 + w * lg4), t2 = z * (lg1 + w * lg3);
    const float r = t2 + t1, hfsq = 0.5f * f * f;
    return s * (hfsq + r) + dk * ln2_lo - hfsq + f + dk * ln2_hi;
}

PT_RANDOM_MATH_FN double pt_rm_log(double x)
{
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01,
                 lg3 = 2.857142874366239149e-01, lg4 = 2.222219843214978396e-01,
                 lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                 lg7 = 1.479819860511658591e-01;
    uint64_t ix = pt_rm_bits_f64(x) + ((uint64_t)(0x3ff00000u - 0x3fe6a09eu) << 32);
    /* The exponent field as a double: 2^52 + e read back exactly, minus 2^52 and the bias. */
    const double dk = pt_rm_f64(UINT64_C(0x4330000000000000) | (ix >> 52)) - (0x1p52 + 1023.0);
    ix = (ix & UINT64_C(0x000fffffffffffff)) + ((uint64_t)0x3fe6a09eu << 32);
    const double f = pt_rm_f64(ix) - 1.0;
    const double hfsq = 0.5 * f * f;
    const double s = f / (2.0 + f);
    const double z = s * s, w = z * z;
    const double t1 = w * (lg2 + w * (lg4 + w * lg6));
    const double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
    const double r = t2 + t1;
    return s * (hfsq + r) + dk * ln2_lo - hfsq + f + dk * ln2_hi;
}

/* ---------------------------------------------------------------- sin and cos of 2 pi u */
/* Puts the quadrant q = round(4u) (0..4) on sin(2 pi f) and cos(2 pi f), f = u - q/4:
 * cos(2 pi u) is c, -s, -c, s, c and sin(2 pi u) is s, c, -s, -c, s for q = 0..4. */
PT_RANDOM_MATH_FN void pt_rm_quadrant_f32(int32_t q, float s, float c, float *sin_out,
                                          float *cos_out)
{
    const uint32_t swap = 0u - (uint32_t)(q & 1);
    const uint32_t sb = pt_rm_bits_f32(s), cb = pt_rm_bits_f32(c);
    const uint32_t sin_b = sb ^ ((sb ^ cb) & swap), cos_b = cb ^ ((sb ^ cb) & swap);
    *sin_out = pt_rm_f32(sin_b ^ ((uint32_t)(q >> 1) << 31));
    *cos_out = pt_rm_f32(cos_b ^ ((uint32_t)((q + 1) >> 1) << 31));
}

/* sin(2 pi u) and cos(2 pi u) for u in [0, 1). */
PT_RANDOM_MATH_FN void pt_rm_sincos2pif(float u, float *sin_out, float *cos_out)
{
    const int32_t q = (int32_t)(u * 4.0f + 0.5f);
    const float f = u - (float)q * 0.25f;
    const float t = f * f;
    const float s = f * (6.28318530715239961f +
                         t * (-41.3417021533949024f +
                              t * (81.6052047110457547f +
                                   t * (-76.6978663502028058f + t * 41.4728332395091925f))));
    const float c = 1.0f + t * (-19.7392086501305955f +
                                t * (64.9393161357090496f +
                                     t * (-85.4428446730816595f + t * 59.2201689582960962f)));
    pt_rm_quadrant_f32(q, s, c, sin_out, cos_out);
}

PT_RANDOM_MATH_FN void pt_rm_quadrant_f64(int32_t q, double s, double c, double *sin_out,
                                          double *cos_out)
{
    const uint64_t swap = 0u - (uint64_t)(q & 1);
    const uint64_t sb = pt_rm_bits_f64(s), cb = pt_rm_bits_f64(c);
    const uint64_t sin_b = sb ^ ((sb ^ cb) & swap), cos_b = cb ^ ((sb ^ cb) & swap);
    *sin_out = pt_rm_f64(sin_b ^ ((uint64_t)(q >> 1) << 63));
    *cos_out = pt_rm_f64(cos_b ^ ((uint64_t)((q + 1) >> 1) << 63));
}

PT_RANDOM_MATH_FN void pt_rm_sincos2pi(double u, double *sin_out, double *cos_out)
{
    const int32_t q = (int32_t)(u * 4.0 + 0.5);
    const double f = u - (double)q * 0.25;
    const double t = f * f;
    const double s =
        f * (6.28318530717958647691 +
             t * (-41.3417022403997601421 +
                  t * (81.6052492760749306677 +
                       t * (-76.7058597529981267297 +
                            t * (42.0586939289887834379 +
                                 t * (-15.0946404038915456487 +
                                      t * (3.81978812016321142289 +
                                           t * -0.711635809078166599648)))))));
    const double c =
        1.0 + t * (-19.7392088021787169892 +
                   t * (64.939394022667957529 +
                        t * (-85.4568172065227124866 +
                             t * (60.2446413288672933196 +
                                  t * (-26.4262509086221359587 +
                                       t * (7.9030916877516976361 +
                                            t * -1.69684947029188268062))))));
    pt_rm_quadrant_f64(q, s, c, sin_out, cos_out);
}

/* ---------------------------------------------------------------- Box-Muller */
/* u in [0, 1) from the top 24 bits of a word, and from 53 bits of two: hi's 32 and lo's top 21,
 * converted as two exact int32 halves (26 and 27 bits) so that vector units without a 64-bit
 * conversion take the same path; the value is exactly (hi:lo >> 11) 2^-53. */
PT_RANDOM_MATH_FN float pt_rm_u24(uint32_t w) { return (float)(int32_t)(w >> 8) * 0x1p-24f; }

PT_RANDOM_MATH_FN double pt_rm_u53(uint32_t hi, uint32_t lo)
{
    const int32_t top = (int32_t)(hi >> 6), low = (int32_t)(((hi & 63u) << 21) | (lo >> 11));
    return (double)top * 0x1p-26 + (double)low * 0x1p-53;
}

/* The two normals of one Box-Muller pair: u1 = 1 - u24(a) in (0, 1], u2 = u24(b);
 * r = sqrt(-2 log u1), z0 = r cos(2 pi u2), z1 = r sin(2 pi u2). */
PT_RANDOM_MATH_FN void pt_rm_box_muller_f32(uint32_t a, uint32_t b, float *z0, float *z1)
{
    const float r = sqrtf(-2.0f * pt_rm_logf(1.0f - pt_rm_u24(a)));
    float s, c;
    pt_rm_sincos2pif(pt_rm_u24(b), &s, &c);
    *z0 = r * c;
    *z1 = r * s;
}

/* The same from a whole block: u1 = 1 - u53(w0, w1), u2 = u53(w2, w3). */
PT_RANDOM_MATH_FN void pt_rm_box_muller_f64(const uint32_t w[4], double *z0, double *z1)
{
    const double r = sqrt(-2.0 * pt_rm_log(1.0 - pt_rm_u53(w[0], w[1])));
    double s, c;
    pt_rm_sincos2pi(pt_rm_u53(w[2], w[3]), &s, &c);
    *z0 = r * c;
    *z1 = r * s;
}

#endif
