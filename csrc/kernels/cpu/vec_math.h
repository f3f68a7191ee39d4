/* vec_math.h - float32 math functions written so that the compiler vectorizes the loops that call
 * them: straight-line code (selects instead of branches, bit manipulation through memcpy, integer
 * conversion by the "add 1.5 * 2^k" trick), range reduction and polynomials, special values
 * (overflow to inf, underflow to 0 or a subnormal, nan passed through) handled by selects.
 *
 * Two kinds live here:
 *   - float arithmetic (pt_vexpf, pt_vsigmoidf, pt_vtanhf): the fast ones, as wide as the vector
 *     unit allows (16 lanes with AVX-512), within a few ulp (Note [vec_math accuracy]);
 *   - float results computed in double arithmetic (pt_vlogf, pt_verff, pt_vsinf, ...): the float
 *     argument is exact in double, the double kernels (pt_vexpd_f, pt_vlogd) are accurate to about
 *     1e-15, and the result is rounded once to float, which gives the correctly rounded float in
 *     all but rare double-rounding cases (at most 1 ulp); half the lanes of the float kind.
 * The same source compiled for every capability gives the same bits (no contraction into fma: the
 * build is ISO C11, where GCC does not contract), so the AVX2 and AVX-512 tables match the default
 * one exactly.
 *
 * Note [vec_math accuracy]
 * Maximum error in ulp, measured by benchmarks/ulp_sweep.c over every 13th float32 bit pattern
 * (330 million arguments per function, both signs, subnormals to inf and nan) against the double
 * libm function (sin, cos, tan below PT_VTRIG_LIMIT, where the loops use them):
 *   float arithmetic:  exp 0.98   sigmoid 2.34   tanh 1.31
 *     (the AVX2 and AVX-512 builds' array forms, vec_math_simd.h, Note [vector exp]:
 *      exp 1.004   sigmoid 2.34   tanh 2.42)
 *   double arithmetic: log, log2, log10, log1p, exp2, expm1, sinh, cosh, erf, sin, cos, tan 0.500;
 *                      erfc 0.506
 * (0.500: correctly rounded wherever the sweep looked.) Subnormal results count in units of the
 * smallest subnormal. The tests assert 1 ulp for the double kind, 1.01 for exp and 2.5 for tanh
 * and sigmoid, over a dense sample, under every capability.
 */
#ifndef PT_KERNELS_CPU_VEC_MATH_H
#define PT_KERNELS_CPU_VEC_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "half.h" /* pt_bits_of, pt_float_of */

/* ---------------------------------------------------------------- bits */
static inline uint64_t pt_d2u(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double pt_u2d(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ---------------------------------------------------------------- float arithmetic */

/* e^x. Cody-Waite reduction x = n ln2 + r (|r| <= ln2/2) and Cephes' expf polynomial; 2^n is
 * applied as two factors 2^(n/2) so that results down to the subnormals are rounded once. */
static inline float pt_vexpf(float x)
{
    const float hi = 88.72283935546875f, lo = -103.972084045410156f;
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
    const float e = p * (r * r) + r + 1.0f;
    const int32_t n1 = n / 2, n2 = n - n1;
    const float s1 = pt_float_of((uint32_t)(n1 + 127) << 23), s2 = pt_float_of((uint32_t)(n2 + 127) << 23);
    float y = e * s1 * s2;
    y = x > hi ? INFINITY : y;
    return x < lo ? 0.0f : y;
}

/* 1 / (1 + e^-x), computed from e = e^-|x| as 1/(1+e) or e/(1+e) (one division either way), so
 * that large negative x give the small (even subnormal) results instead of 0. */
static inline float pt_vsigmoidf(float x)
{
    const float e = pt_vexpf(-fabsf(x));
    return (x >= 0.0f ? 1.0f : e) / (1.0f + e);
}

/* tanh: Cephes' odd polynomial below 0.625, 1 - 2 / (e^2|x| + 1) above, with x's sign. */
static inline float pt_vtanhf(float x)
{
    const float a = fabsf(x), z = x * x;
    float p = -5.70498872745E-3f;
    p = p * z + 2.06390887954E-2f;
    p = p * z - 5.37397155531E-2f;
    p = p * z + 1.33314422036E-1f;
    p = p * z - 3.33332819422E-1f;
    const float small = p * z * x + x;
    const float e = pt_vexpf(a + a);
    const float large = 1.0f - 2.0f / (e + 1.0f);
    return __builtin_copysignf(a < 0.625f ? small : large, x); /* tanh(-0) = -0 */
}

/* ---------------------------------------------------------------- double kernels, float results */

/* e^x in double for results that end as float: exact enough (~1e-16) for |x| <= 200 and clamped
 * beyond, where every float result is 0 or inf. Reduction by n ln2 (fdlibm's split, exact for
 * these n) and the Taylor series to degree 11 (|r| <= ln2/2: truncation 6e-15 relative). */
static inline double pt_vexpd_f(double x)
{
    double xc = x > 200.0 ? 200.0 : x;
    xc = xc < -200.0 ? -200.0 : xc;
    const double shift = 0x1.8p52;
    const double kd = xc * 1.4426950408889634 + shift;
    const uint64_t ki = pt_d2u(kd);
    const double n = kd - shift;
    const double r = (xc - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;
    double p = 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    return p * pt_u2d((ki + 1023) << 52); /* the low bits of ki hold n */
}

/* log(u) in double for u from float arguments (no double subnormals): u = m 2^e with m in
 * [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.172, series to s^15. */
static inline double pt_vlogd(double u)
{
    const uint64_t bits = pt_d2u(u);
    double e = pt_u2d(0x4330000000000000ull | (bits >> 52)) - (0x1p52 + 1023.0);
    double m = pt_u2d((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    const int big = m > 1.4142135623730951;
    m = big ? m * 0.5 : m;
    e = big ? e + 1.0 : e;
    const double f = m - 1.0, s = f / (2.0 + f), z = s * s;
    double p = 1.0 / 15.0;
    p = p * z + 1.0 / 13.0;
    p = p * z + 1.0 / 11.0;
    p = p * z + 1.0 / 9.0;
    p = p * z + 1.0 / 7.0;
    p = p * z + 1.0 / 5.0;
    p = p * z + 1.0 / 3.0;
    double y = e * 0.69314718055994531 + (2.0 * s + 2.0 * s * z * p);
    y = u == 0.0 ? -INFINITY : y;
    y = u < 0.0 ? NAN : y;
    y = u == INFINITY ? INFINITY : y;
    return u != u ? u : y;
}

static inline float pt_vlogf(float x) { return (float)pt_vlogd((double)x); }
static inline float pt_vlog2f(float x) { return (float)(pt_vlogd((double)x) * 1.4426950408889634); }
static inline float pt_vlog10f(float x)
{
    return (float)(pt_vlogd((double)x) * 0.43429448190325182);
}

/* log(1 + x): 1 + x is exact in double for |x| >= 2^-29; below, log1p(x) rounds to x. */
static inline float pt_vlog1pf(float x)
{
    const float y = (float)pt_vlogd(1.0 + (double)x);
    return fabsf(x) < 0x1p-29f ? x : y;
}

static inline float pt_vexp2f(float x)
{
    return (float)pt_vexpd_f((double)x * 0.69314718055994531);
}

/* e^x - 1: the Taylor series below 0.25 (degree 10: truncation 3e-13), e^x - 1 above, where
 * the subtraction loses nothing a float can see. */
static inline float pt_vexpm1f(float x)
{
    const double d = x;
    double p = 1.0 / 39916800.0;
    p = p * d + 1.0 / 3628800.0;
    p = p * d + 1.0 / 362880.0;
    p = p * d + 1.0 / 40320.0;
    p = p * d + 1.0 / 5040.0;
    p = p * d + 1.0 / 720.0;
    p = p * d + 1.0 / 120.0;
    p = p * d + 1.0 / 24.0;
    p = p * d + 1.0 / 6.0;
    p = p * d + 0.5;
    const double small = __builtin_copysign(d + d * d * p, d); /* expm1(-0) = -0 */
    const double large = pt_vexpd_f(d) - 1.0;
    return (float)(fabs(d) < 0.25 ? small : large);
}

/* sinh, cosh from e = e^|x| (the odd Taylor series for sinh below 0.5: degree 11, 2e-11). */
static inline float pt_vsinhf(float x)
{
    const double d = x, z = d * d;
    double p = 1.0 / 39916800.0;
    p = p * z + 1.0 / 362880.0;
    p = p * z + 1.0 / 5040.0;
    p = p * z + 1.0 / 120.0;
    p = p * z + 1.0 / 6.0;
    const double small = __builtin_copysign(d + d * z * p, d);
    const double e = pt_vexpd_f(fabs(d));
    const double large = __builtin_copysign(0.5 * (e - 1.0 / e), d);
    return (float)(fabs(d) < 0.5 ? small : large);
}

static inline float pt_vcoshf(float x)
{
    const double e = pt_vexpd_f(fabs((double)x));
    return (float)(0.5 * (e + 1.0 / e));
}

/* erf and erfc. |x| < 0.875: erf = x P(x^2), a degree-9 fit (1.6e-15). Above: erfc(x) =
 * e^(-x^2) G(1/x) / x, where G(t) = erfc(1/t) e^(1/t^2) / t is smooth on [1/10.1, 1/0.875] and a
 * degree-14 fit holds it to 4e-10 relative; x^2 is exact in double. Beyond 10.1, erfc rounds to 0
 * in float, and erf to 1 beyond 3.9. */
static inline double pt_verf_small(double x)
{
    const double z = x * x;
    double p = -1.1613392989661069e-07;
    p = p * z + 1.573514072398124e-06;
    p = p * z + -1.4862145294464681e-05;
    p = p * z + 0.00012051937966527893;
    p = p * z + -0.0008548213977260503;
    p = p * z + 0.0052239753257112094;
    p = p * z + -0.02686617037587586;
    p = p * z + 0.11283791669353252;
    p = p * z + -0.37612638903146883;
    p = p * z + 1.1283791670955112;
    return x * p;
}

/* erfc(a) for a >= 0.875 (clamped to 10.1). */
static inline double pt_verfc_large(double a)
{
    a = a > 10.1 ? 10.1 : a;
    const double t = 1.0 / a;
    double g = -0.036803640434400937;
    g = g * t + 0.39127009092796811;
    g = g * t + -1.9052233979500304;
    g = g * t + 5.6201986456935975;
    g = g * t + -11.177665360487703;
    g = g * t + 15.737232092698054;
    g = g * t + -15.92789595518002;
    g = g * t + 11.370496531725916;
    g = g * t + -5.2437660684348799;
    g = g * t + 1.0620045912248899;
    g = g * t + 0.23427421040097043;
    g = g * t + 0.023136248076229937;
    g = g * t + -0.28394936499570483;
    g = g * t + 8.7182551679595988e-05;
    g = g * t + 0.56418777032066658;
    return pt_vexpd_f(-(a * a)) * g * t;
}

static inline float pt_verff(float x)
{
    const double d = x, a = fabs(d);
    const double large = __builtin_copysign(1.0 - pt_verfc_large(a), d);
    return (float)(a < 0.875 ? pt_verf_small(d) : large);
}

static inline float pt_verfcf(float x)
{
    const double d = x, a = fabs(d);
    const double c = pt_verfc_large(a);
    const double large = d < 0.0 ? 2.0 - c : c;
    const double y = a < 0.875 ? 1.0 - pt_verf_small(d) : large;
    return (float)(d != d ? d : y);
}

/* erf in float arithmetic (full-width lanes, for gelu and its backward; erf itself keeps the
 * double kind). |x| < 0.921875: erf = x + x q(x^2), q a degree-5 fit of erf(x)/x - 1 (relative
 * error 1.6e-8). Above: erf = 1 - e^Q(|x|), Q a degree-6 fit of log(erfc(t)) on [0.921875,
 * 3.925] (erf's absolute error 1.5e-9); |x| is clamped to 3.925, where erf rounds to 1 in float.
 * Max error 1.47 ulp over every float; vec_math_simd.h's FMA form (pt_simd_erf) 1.22 over every
 * third float below 4.5 (nan passes through the clamp, erf(+-inf) = +-1, -0 kept). */
static inline float pt_verff_fast(float x)
{
    const float a = fabsf(x), s = x * x;
    float q = -5.990988840e-4f;
    q = q * s + 4.993212214e-3f;
    q = q * s - 2.676664378e-2f;
    q = q * s + 1.128181721e-1f;
    q = q * s - 3.761249385e-1f;
    q = q * s + 1.283791496e-1f;
    const float small = x * q + x;
    const float t = a > 3.925f ? 3.925f : a;
    float p = 1.947348430e-4f;
    p = p * t - 3.031603957e-3f;
    p = p * t + 2.218141095e-2f;
    p = p * t - 1.038389313e-1f;
    p = p * t - 6.372857306e-1f;
    p = p * t - 1.127615474e+0f;
    p = p * t - 2.099102631e-4f;
    const float large = copysignf(1.0f - pt_vexpf(p), x);
    return a < 0.921875f ? small : large;
}

/* sin and cos for |x| < PT_VTRIG_LIMIT (the loops send larger arguments to libm): x = j pi/2 + r
 * in double (j pi/2 exact for |j| < 2^21 with pi/2 split in 33 + 53 bits), |r| <= pi/4, Taylor
 * series to degree 15 (sin) and 16 (cos): truncation below 1e-13. */
#define PT_VTRIG_LIMIT 0x1p20f
static inline void pt_vsincos_reduce(float x, double *r, uint32_t *q)
{
    const double shift = 0x1.8p52, d = x;
    const double kd = d * 0.63661977236758134 + shift;
    *q = (uint32_t)pt_d2u(kd);
    const double j = kd - shift;
    *r = (d - j * 1.5707963267341256) - j * 6.0771005065061922e-11;
}

static inline double pt_vsin_poly(double r)
{
    const double z = r * r;
    double p = -1.0 / 1307674368000.0;
    p = p * z + 1.0 / 6227020800.0;
    p = p * z + -1.0 / 39916800.0;
    p = p * z + 1.0 / 362880.0;
    p = p * z + -1.0 / 5040.0;
    p = p * z + 1.0 / 120.0;
    p = p * z + -1.0 / 6.0;
    return r + r * z * p;
}

static inline double pt_vcos_poly(double r)
{
    const double z = r * r;
    double p = 1.0 / 20922789888000.0;
    p = p * z + -1.0 / 87178291200.0;
    p = p * z + 1.0 / 479001600.0;
    p = p * z + -1.0 / 3628800.0;
    p = p * z + 1.0 / 40320.0;
    p = p * z + -1.0 / 720.0;
    p = p * z + 1.0 / 24.0;
    p = p * z + -0.5;
    return 1.0 + z * p;
}

/* sin(j pi/2 + r) by quadrant: sin r, cos r, -sin r, -cos r (cos: one quadrant later). */
static inline double pt_vtrig_quadrant(double r, uint32_t q)
{
    const double s = pt_vsin_poly(r), c = pt_vcos_poly(r);
    const double v = (q & 1u) ? c : s;
    return (q & 2u) ? -v : v;
}

static inline float pt_vsinf(float x)
{
    double r;
    uint32_t q;
    pt_vsincos_reduce(x, &r, &q);
    const float y = (float)pt_vtrig_quadrant(r, q);
    return x == 0.0f ? x : y; /* sin(-0) = -0 */
}

static inline float pt_vcosf(float x)
{
    double r;
    uint32_t q;
    pt_vsincos_reduce(x, &r, &q);
    return (float)pt_vtrig_quadrant(r, q + 1u);
}

static inline float pt_vtanf(float x)
{
    double r;
    uint32_t q;
    pt_vsincos_reduce(x, &r, &q);
    const double s = pt_vsin_poly(r), c = pt_vcos_poly(r);
    const float y = (float)((q & 1u) ? -c / s : s / c);
    return x == 0.0f ? x : y;
}

#endif
