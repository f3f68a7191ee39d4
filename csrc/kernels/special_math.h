/* special_math.h - the scalar special functions of the special family (lgamma, digamma,
 * polygamma, zeta, erfinv, ndtri, the modified Bessel functions I0 and I1, the incomplete gamma
 * ratios, erfcx, sinc, ...) in double arithmetic, written once as static inline functions that
 * cpu/special_kernels.c calls per element. float32 loops compute in double and round once, so
 * the float results are the correctly rounded ones but for rare double-rounding cases (Note
 * [special accuracy]).
 *
 * How each is computed:
 *   lgamma   Taylor series of log Gamma about 1, 3/2 and 2 on [0.75, 2.25] (coefficients below:
 *            psi^(k-1)(c) / k!, from mpmath at 40 digits), so the roots at 1 and 2 keep their
 *            relative accuracy; the recurrence log Gamma(x) = log Gamma(x - n) + log((x-1)...(x-n))
 *            below 8; Stirling's series from 8; the reflection formula below 0 with an exact
 *            reduction of sin(pi x) (x - rint(x) is exact).
 *   digamma  the derivatives of lgamma's series on [0.75, 2.25] (a series of its own about the
 *            positive root 1.4616...), the recurrence to that interval below 10, the asymptotic
 *            series (Bernoulli terms) above; the reflection formula below 0.
 *   trigamma the recurrence up to 10 and the asymptotic series; reflection below 0.
 *   zeta     Hurwitz zeta(s, q) by Euler-Maclaurin summation (nine terms, then the Bernoulli
 *            corrections (2k)!/B_2k), with Cephes' domain: s = 1 is inf, s < 1 nan, q a
 *            non-positive integer inf, q < 0 with s not an integer nan.
 *   polygamma(n >= 2, x) = (-1)^(n+1) n! zeta(n + 1, x).
 *   erfinv   Winitzki's closed-form guess (relative error below 2e-3), then three Halley steps
 *            on erf(x) - y, or on erfc(x) - (1 - |y|) above |y| = 1/2, where 1 - |y| is exact,
 *            so that the tail keeps its digits. ndtri uses the same inverse of erfc.
 *   i0, i1   the power series below |x| = 25 (positive terms: no cancellation), the asymptotic
 *            expansion of e^-|x| I(x) above, where its smallest term is below 1e-19.
 *   igamma   the series of P(a, x), the continued fraction of Q(a, x) (modified Lentz) and the
 *            small-x series of Q, chosen by (a, x) as Cephes chooses (without its Temme
 *            expansion for large a: a > 1e6 loses accuracy, Note [special accuracy]).
 *
 * Note [special accuracy]
 * Measured by tests/py/test_special.py against mpmath at 60 digits (max ulp error over 1000-3500
 * random arguments per function and dtype, spread over the ranges that test names). The float32
 * loops measured 0.5 ulp for every function (correctly rounded; 1 is asserted for double
 * rounding). The float64 loops: lgamma 1.8, digamma 2.2, trigamma 5.2, polygamma(3) 6.2,
 * erfinv 1.6, ndtri 2.2, erfcx 3.8, log_ndtr 2.7, sinc 2.2, zeta 4.4, i0e 4.5, i1e 2.7, and i0, i1
 * 11.5 (the power series' products round once per term below |x| = 25). The lgamma and digamma
 * bounds hold away from their negative roots, where the reflection formula leaves an absolute
 * error of about 1e-16 (as torch's). The incomplete gamma ratios lose relative accuracy as a
 * grows (the prefactor x^a e^-x / Gamma(a) is formed from logarithms of size a): 1500 ulp
 * (3e-13) measured at a <= 200 in float64, still 0.5 ulp in float32; float32 results hold to
 * a ~ 1e6.
 */
#ifndef PT_KERNELS_SPECIAL_MATH_H
#define PT_KERNELS_SPECIAL_MATH_H

#include <complex.h>
#include <math.h>
#include <stdint.h>

#define PT_SF_PI 3.14159265358979323846
#define PT_SF_EPS 1.1102230246251565e-16 /* 2^-53: the series stop below it */

/* c[0] + c[1] z + ... + c[n-1] z^(n-1) */
static inline double pt_sf_poly(const double *c, int n, double z)
{
    double p = c[n - 1];
    for (int i = n - 2; i >= 0; i--) p = p * z + c[i];
    return p;
}

/* sin(pi x) with the exact reduction r = x - rint(x), |r| <= 1/2. */
static inline double pt_sf_sinpi(double x)
{
    const double n = rint(x), r = x - n;
    const double s = sin(PT_SF_PI * r);
    return fmod(n, 2.0) != 0.0 ? -s : s;
}

/* ---------------------------------------------------------------- lgamma */
/* log Gamma(1 + z) = sum_k c[k-1] z^k, |z| <= 1/4 (c: psi^(k-1)(1) / k!); as many terms as
 * digamma, the derivative of the series, needs to converge to 1e-19 there */
static const double pt_sf_lgamma_at1[40] = {
    -0.5772156649015329, 0.8224670334241132, -0.40068563438653143, 0.27058080842778454,
    -0.20738555102867398, 0.1695571769974082, -0.1440498967688461, 0.12550966952474304,
    -0.11133426586956469, 0.1000994575127818, -0.09095401714582904, 0.083353840546109,
    -0.0769325164113522, 0.07143294629536133, -0.06666870588242046, 0.06250095514121304,
    -0.058823978658684585, 0.055555767627403614, -0.05263167937961666, 0.05000004769810169,
    -0.047619070330142226, 0.04545455629320467, -0.04347826605304026, 0.04166666915034121,
    -0.04000000119214014, 0.03846153903467518, -0.037037037312989324, 0.035714285847333355,
    -0.034482758684919304, 0.03333333336437758, -0.03225806453115042, 0.03125000000727597,
    -0.030303030306558044, 0.029411764707594344, -0.02857142857226011, 0.027777777778181998,
    -0.027027027027223673, 0.02631578947377995, -0.025641025641072283, 0.025000000000022737};
/* log Gamma(3/2 + z) = sum_k c[k] z^k, |z| <= 1/4 */
static const double pt_sf_lgamma_at15[32] = {
    -0.12078223763524522, 0.03648997397857652, 0.46740110027233966, -0.13813277403905333,
    0.05871212641676822, -0.028952081888893543, 0.0154354841700493, -0.008622603929171286,
    0.004965728809475818, -0.002920970458667952, 0.00174503557579013, -0.001054915693867632,
    0.0006437029830381486, -0.00039577153964650777, 0.0002448711904829441,
    -0.00015231593814270082, 9.517939662502588e-05, -5.97136233623377e-05, 3.759490926961219e-05,
    -2.3743185469209343e-05, 1.5036983408359218e-05, -9.547151192148187e-06, 6.07540647448469e-06,
    -3.87415183000977e-06, 2.4751447344295936e-06, -1.5840896262969798e-06,
    1.0154409130025463e-06, -6.518875486314994e-07, 4.190703953838664e-07,
    -2.6974639512898124e-07, 1.7383654012719107e-07, -1.1215259661548152e-07};
/* log Gamma(2 + z) = sum_k c[k-1] z^k, |z| <= 1/4 */
static const double pt_sf_lgamma_at2[30] = {
    0.42278433509846713, 0.3224670334241132, -0.0673523010531981, 0.020580808427784546,
    -0.007385551028673986, 0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425,
    -0.00022315475845357939, 9.945751278180853e-05, -4.492623673813314e-05, 2.050721277567069e-05,
    -9.439488275268397e-06, 4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07,
    -4.492469198764566e-07, 2.1207184805554665e-07, -1.0043224823968099e-07,
    4.7698101693639804e-08, -2.2711094608943164e-08, 1.0838659214896955e-08,
    -5.183475041970047e-09, 2.4836745438024785e-09, -1.1921401405860912e-09,
    5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10, -6.4229645638381e-11,
    3.1044247747322276e-11};

/* log Gamma(1 + z) for |z| <= 1/4, z itself exact (no rounding of 1 + z). */
static inline double pt_sf_lgamma1p_small(double z)
{
    return z * pt_sf_poly(pt_sf_lgamma_at1, 40, z);
}

/* log Gamma(x) for x in [0.75, 2.25]. */
static inline double pt_sf_lgamma_core(double x)
{
    if (x < 1.25) return pt_sf_lgamma1p_small(x - 1.0) + 0.0; /* lgamma(1) = +0 */
    if (x < 1.75) return pt_sf_poly(pt_sf_lgamma_at15, 32, x - 1.5);
    const double z = x - 2.0;
    return z * pt_sf_poly(pt_sf_lgamma_at2, 30, z);
}

/* log Gamma(x) for x > 0 (inf and nan pass through Stirling's branch). */
static inline double pt_sf_lgamma_pos(double x)
{
    if (x < 0.25) return pt_sf_lgamma1p_small(x) - log(x);
    if (x < 0.75) return pt_sf_poly(pt_sf_lgamma_at15, 32, x - 0.5) - log(x);
    if (x <= 2.25) return pt_sf_lgamma_core(x);
    if (x < 8.0) {
        double p = 1.0;
        while (x > 2.25) { /* subtracting 1 is exact here */
            x -= 1.0;
            p *= x;
        }
        return log(p) + pt_sf_lgamma_core(x);
    }
    /* Stirling: B_2k / (2k (2k-1) x^(2k-1)), k = 1..8; the next term is below 1e-17 at 8 */
    const double z = 1.0 / x, z2 = z * z;
    double s = -3617.0 / 122400.0;
    s = s * z2 + 1.0 / 156.0;
    s = s * z2 + -691.0 / 360360.0;
    s = s * z2 + 1.0 / 1188.0;
    s = s * z2 + -1.0 / 1680.0;
    s = s * z2 + 1.0 / 1260.0;
    s = s * z2 + -1.0 / 360.0;
    s = s * z2 + 1.0 / 12.0;
    return (x - 0.5) * (log(x) - 1.0) + (0.91893853320467274178 - 0.5) + s * z;
}

static inline double pt_sf_lgamma(double x)
{
    if (x != x) return x;
    if (x > 0.0) return pt_sf_lgamma_pos(x);
    if (x == floor(x)) return INFINITY; /* 0, -0, the negative integers and -inf: poles */
    if (x > -0.25) return pt_sf_lgamma1p_small(x) - log(-x);
    /* |Gamma(x)| = pi / (|sin(pi x)| Gamma(1 - x)) */
    return log(PT_SF_PI / fabs(pt_sf_sinpi(x))) - pt_sf_lgamma_pos(1.0 - x);
}

/* log Gamma(1 + a) for a > -1, exact in a near 0. */
static inline double pt_sf_lgamma1p(double a)
{
    return fabs(a) <= 0.25 ? pt_sf_lgamma1p_small(a) : pt_sf_lgamma(1.0 + a);
}

/* ---------------------------------------------------------------- digamma, trigamma */
/* psi(x0 + z) = sum_k c[k-1] z^k about the positive root x0 (x0 = hi + lo), |z| <= 1/8 */
static const double pt_sf_digamma_root[16] = {
    0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652,
    0.10782405069126237, -0.07219956125645471, 0.04880428816414311, -0.03316112647484736,
    0.022597648232218104, -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
    0.004926781395729853, -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972};
#define PT_SF_DIGAMMA_ROOT_HI 1.4616321449683622
#define PT_SF_DIGAMMA_ROOT_LO 9.549995429965697e-17

/* d/dz of sum_k c[k] z^(k + shift) (shift 1: the series without a constant term) */
static inline double pt_sf_dpoly(const double *c, int n, int shift, double z)
{
    double p = (double)(n - 1 + shift) * c[n - 1];
    for (int i = n - 2; i >= 0; i--) p = p * z + (double)(i + shift) * c[i];
    return p;
}

/* psi on [0.75, 2.25]: the derivatives of the lgamma series, the root's own series near it. */
static inline double pt_sf_digamma_core(double x)
{
    if (fabs(x - PT_SF_DIGAMMA_ROOT_HI) < 0.125) {
        const double z = (x - PT_SF_DIGAMMA_ROOT_HI) - PT_SF_DIGAMMA_ROOT_LO;
        return z * pt_sf_poly(pt_sf_digamma_root, 16, z);
    }
    if (x < 1.25) return pt_sf_dpoly(pt_sf_lgamma_at1, 40, 1, x - 1.0);
    if (x < 1.75) return pt_sf_dpoly(pt_sf_lgamma_at15 + 1, 31, 1, x - 1.5);
    return pt_sf_dpoly(pt_sf_lgamma_at2, 30, 1, x - 2.0);
}

static inline double pt_sf_digamma_pos(double x)
{
    if (x < 0.75) return pt_sf_digamma_core(x + 1.0) - 1.0 / x;
    if (x <= 2.25) return pt_sf_digamma_core(x);
    if (x < 10.0) { /* psi(x) = psi(x - n) + sum 1 / (x - j): positive terms */
        double r = 0.0;
        while (x > 2.25) {
            x -= 1.0;
            r += 1.0 / x;
        }
        return r + pt_sf_digamma_core(x);
    }
    /* B_2k / (2k x^2k), k = 1..7: the next term is below 5e-17 at 10 */
    const double z2 = 1.0 / (x * x);
    double t = 1.0 / 12.0;
    t = t * z2 + -691.0 / 32760.0;
    t = t * z2 + 1.0 / 132.0;
    t = t * z2 + -1.0 / 240.0;
    t = t * z2 + 1.0 / 252.0;
    t = t * z2 + -1.0 / 120.0;
    t = t * z2 + 1.0 / 12.0;
    return log(x) - 0.5 / x - t * z2;
}

/* torch's values at the poles: psi(+-0) = -+inf, nan at the negative integers and -inf. */
static inline double pt_sf_digamma(double x)
{
    if (x != x) return x;
    if (x == 0.0) return copysign(INFINITY, -x);
    if (x > 0.0) return pt_sf_digamma_pos(x);
    if (x == floor(x)) return NAN;
    /* psi(x) = psi(1 - x) - pi / tan(pi x); tan has period 1, so x - rint(x) serves */
    return pt_sf_digamma_pos(1.0 - x) - PT_SF_PI / tan(PT_SF_PI * (x - rint(x)));
}

static inline double pt_sf_trigamma_pos(double x)
{
    double acc = 0.0;
    while (x < 10.0) {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    /* 1/x + 1/(2x^2) + sum B_2k / x^(2k+1), k = 1..7 */
    const double z = 1.0 / x, z2 = z * z;
    double t = 7.0 / 6.0;
    t = t * z2 + -691.0 / 2730.0;
    t = t * z2 + 5.0 / 66.0;
    t = t * z2 + -1.0 / 30.0;
    t = t * z2 + 1.0 / 42.0;
    t = t * z2 + -1.0 / 30.0;
    t = t * z2 + 1.0 / 6.0;
    return acc + (z + 0.5 * z2 + t * z2 * z);
}

/* psi'(x): +inf at the poles (0 and the negative integers), nan at -inf. */
static inline double pt_sf_trigamma(double x)
{
    if (x != x || x == -INFINITY) return NAN;
    if (x > 0.0) return pt_sf_trigamma_pos(x);
    if (x == floor(x)) return INFINITY;
    const double s = pt_sf_sinpi(x);
    return PT_SF_PI * PT_SF_PI / (s * s) - pt_sf_trigamma_pos(1.0 - x);
}

/* ---------------------------------------------------------------- zeta, polygamma */
/* (2k)! / B_2k, k = 1..12: the Euler-Maclaurin corrections */
static const double pt_sf_zeta_bern[12] = {
    12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1892437580.3183792, 74724249600.0,
    -2950130727918.164, 116467828143500.67, -4597978722407473.0, 1.8152105401943546e+17,
    -7.166165256175667e+18};

/* Hurwitz zeta(s, q) = sum_k (q + k)^-s. */
static inline double pt_sf_zeta(double s, double q)
{
    if (s != s || q != q) return NAN;
    if (s == 1.0) return INFINITY;
    if (s < 1.0) return NAN;
    if (q <= 0.0) {
        if (q == floor(q)) return INFINITY;
        if (s != floor(s)) return NAN; /* a negative base to a fractional power */
    }
    double sum = pow(q, -s), a = q, b = 0.0;
    int i = 0;
    while (i < 9 || a <= 9.0) {
        i++;
        a += 1.0;
        b = pow(a, -s);
        sum += b;
        if (fabs(b / sum) < PT_SF_EPS) return sum;
    }
    const double w = a;
    sum += b * w / (s - 1.0) - 0.5 * b;
    double fac = 1.0, k = 0.0;
    for (i = 0; i < 12; i++) {
        fac *= s + k;
        b /= w;
        const double t = fac * b / pt_sf_zeta_bern[i];
        sum += t;
        if (fabs(t / sum) < PT_SF_EPS) break;
        k += 1.0;
        fac *= s + k;
        b /= w;
        k += 1.0;
    }
    return sum;
}

/* psi^(n)(x) for n >= 0 (the front refuses n < 0). */
static inline double pt_sf_polygamma(int64_t n, double x)
{
    if (n == 0) return pt_sf_digamma(x);
    if (n == 1) return pt_sf_trigamma(x);
    double f = 1.0; /* n!, inf beyond 170 */
    for (int64_t k = 2; k <= n && f < INFINITY; k++) f *= (double)k;
    return ((n & 1) ? f : -f) * pt_sf_zeta((double)n + 1.0, x);
}

/* sum_{j < p} log Gamma(x - j/2) + p (p - 1) / 4 log(pi) */
static inline double pt_sf_mvlgamma(double x, int64_t p)
{
    double s = (double)p * (double)(p - 1) * 0.25 * 1.1447298858494002;
    for (int64_t j = 0; j < p; j++) s += pt_sf_lgamma(x - 0.5 * (double)j);
    return s;
}

/* ---------------------------------------------------------------- erfinv, ndtri */
/* Winitzki's approximation of erfinv from l = log(1 - y^2): relative error below 2e-3. */
static inline double pt_sf_erfinv_guess(double l)
{
    const double a = 0.147, t = 2.0 / (PT_SF_PI * a) + 0.5 * l;
    return sqrt(sqrt(t * t - l / a) - t);
}

/* Halley's step for f = erf(x) - y (or erfc(x) - c): f'' = -2x f', so the step is
 * f / (f' + x f). */
static inline double pt_sf_erfinv_refine(double x, double y)
{
    for (int i = 0; i < 3; i++) {
        const double f = erf(x) - y, fp = 1.1283791670955126 * exp(-x * x);
        x -= f / (fp + x * f);
    }
    return x;
}

static inline double pt_sf_erfcx(double x);

/* x >= 0 with erfc(x) = c, for 0 < c <= 1. Above x ~ 1.4 (c < 0.05) Newton's method on
 * log erfc(x) - log c, with log erfc(x) = log erfcx(x) - x^2 (no underflow down to the smallest
 * subnormal c; log erfc is concave, so the steps approach the root from one side and converge
 * quadratically: five steps from the guess's 2e-3); below, Halley's on erfc(x) - c. */
static inline double pt_sf_erfcinv_tail(double c)
{
    double x = pt_sf_erfinv_guess(log(c) + log(2.0 - c));
    if (c < 0.05) {
        const double lc = log(c);
        for (int i = 0; i < 5; i++) {
            const double e = pt_sf_erfcx(x);
            /* -g / g' with g' = -2 / (sqrt(pi) erfcx(x)) */
            x += (log(e) - x * x - lc) * 0.88622692545275801 * e;
        }
        return x;
    }
    for (int i = 0; i < 3; i++) {
        const double f = erfc(x) - c, fp = -1.1283791670955126 * exp(-x * x);
        x -= f / (fp + x * f);
    }
    return x;
}

static inline double pt_sf_erfinv(double y)
{
    const double a = fabs(y);
    if (!(a < 1.0)) return a == 1.0 ? copysign(INFINITY, y) : NAN;
    if (a == 0.0) return y;
    if (a < 0.5) {
        const double guess = pt_sf_erfinv_guess(log1p(-y * y));
        return pt_sf_erfinv_refine(y < 0 ? -guess : guess, y);
    }
    return copysign(pt_sf_erfcinv_tail(1.0 - a), y);
}

/* The standard normal quantile: sqrt(2) erfinv(2p - 1), with the tails through erfc's inverse
 * (2p and 2(1 - p) are exact there). */
static inline double pt_sf_ndtri(double p)
{
    if (!(p > 0.0 && p < 1.0)) return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
    if (p < 0.25) return -1.4142135623730951 * pt_sf_erfcinv_tail(2.0 * p);
    if (p > 0.75) return 1.4142135623730951 * pt_sf_erfcinv_tail(2.0 * (1.0 - p));
    return 1.4142135623730951 * pt_sf_erfinv(2.0 * p - 1.0);
}

/* ---------------------------------------------------------------- erfcx, ndtr, log_ndtr */
/* e^(x^2) erfc(x): directly with x^2 split exactly (hi + lo) up to 26, where erfc is still
 * normal; the asymptotic series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k above. */
static inline double pt_sf_erfcx(double x)
{
    if (x != x) return x;
    if (x == -INFINITY) return INFINITY;
    if (x < 26.0) {
        const double hi = x * x, lo = fma(x, x, -hi);
        return exp(hi) * (1.0 + lo) * erfc(x);
    }
    if (x == INFINITY) return 0.0;
    const double z = 1.0 / (2.0 * x * x);
    double t = 1.0, s = 1.0;
    for (int k = 1; k < 12; k++) {
        t *= -(2.0 * k - 1.0) * z;
        s += t;
    }
    return s / (x * 1.7724538509055160);
}

/* log((1 + erf(x / sqrt 2)) / 2): log(erfcx(-t) / 2) - t^2 below -1, log1p(-erfc(t) / 2) above,
 * t = x / sqrt 2. t is rounded (and 1/sqrt 2 too): the lost part d (with 1/sqrt 2's own error,
 * -4.8336466567264567e-17) enters t^2 exactly and erfc(t) to first order, which erfc's relative
 * sensitivity 2t^2 would otherwise turn into ~100 ulp at x = 10. */
static inline double pt_sf_log_ndtr(double x)
{
    if (isinf(x)) return x > 0 ? -0.0 : -INFINITY; /* torch's -0 at +inf */
    const double t = x * 0.70710678118654752440;
    const double d = fma(x, 0.70710678118654752440, -t) + x * -4.8336466567264567e-17;
    if (x < -1.0) {
        const double sq = t * t, sq_lo = fma(t, t, -sq) + 2.0 * t * d;
        return log(pt_sf_erfcx(-t) / 2.0) - sq - sq_lo;
    }
    const double c = erfc(t) - d * 1.1283791670955126 * exp(-t * t);
    return log1p(-c / 2.0);
}

/* ---------------------------------------------------------------- modified Bessel I0, I1 */
/* I_nu(x), nu 0 or 1, by its power series (x/2)^nu sum (x^2/4)^k / (k! (k + nu)!). */
static inline double pt_sf_bessel_i_series(double x, int nu)
{
    const double q = 0.25 * x * x;
    double t = nu ? 0.5 * x : 1.0, s = t;
    for (int k = 1; k < 200; k++) {
        t *= q / ((double)k * (double)(k + nu));
        s += t;
        if (fabs(t) <= PT_SF_EPS * 0.1 * fabs(s)) break;
    }
    return s;
}

/* e^-a I_nu(a) for a >= 25: the asymptotic expansion, terms t_k = t_(k-1) ((2k-1)^2 - 4nu^2) /
 * (8 k a), stopped once below 1e-17 of the sum (k ~ 30 at 25). */
static inline double pt_sf_bessel_ie_asym(double a, int nu)
{
    const double mu = 4.0 * nu * nu;
    double t = 1.0, s = 1.0;
    for (int k = 1; k < 60; k++) {
        const double odd = 2.0 * k - 1.0;
        t *= -(mu - odd * odd) / (8.0 * k * a);
        s += t;
        if (fabs(t) <= PT_SF_EPS * 0.1 * fabs(s)) break;
    }
    return s / sqrt(2.0 * PT_SF_PI * a);
}

#define PT_SF_BESSEL_SERIES_LIMIT 25.0

/* e^a (scaled), with e^a applied in two halves so that results near the top of the range
 * do not overflow early. */
static inline double pt_sf_unscale(double scaled, double a)
{
    const double h = exp(0.5 * a);
    return scaled * h * h;
}

static inline double pt_sf_i0(double x)
{
    const double a = fabs(x);
    if (a < PT_SF_BESSEL_SERIES_LIMIT) return pt_sf_bessel_i_series(x, 0);
    if (a == INFINITY) return NAN; /* torch's value (its Chebyshev form gives inf * 0) */
    return pt_sf_unscale(pt_sf_bessel_ie_asym(a, 0), a); /* nan passes */
}

static inline double pt_sf_i0e(double x)
{
    const double a = fabs(x);
    if (a < PT_SF_BESSEL_SERIES_LIMIT) return pt_sf_bessel_i_series(x, 0) * exp(-a);
    if (a == INFINITY) return 0.0;
    return pt_sf_bessel_ie_asym(a, 0);
}

static inline double pt_sf_i1(double x)
{
    const double a = fabs(x);
    if (a < PT_SF_BESSEL_SERIES_LIMIT) return pt_sf_bessel_i_series(x, 1);
    if (a == INFINITY) return NAN; /* torch's value, as i0's */
    return copysign(pt_sf_unscale(pt_sf_bessel_ie_asym(a, 1), a), x);
}

static inline double pt_sf_i1e(double x)
{
    const double a = fabs(x);
    if (a < PT_SF_BESSEL_SERIES_LIMIT) return pt_sf_bessel_i_series(x, 1) * exp(-a);
    if (a == INFINITY) return copysign(0.0, x);
    return copysign(pt_sf_bessel_ie_asym(a, 1), x);
}

/* ---------------------------------------------------------------- elementary ones */
/* sin(pi x) / (pi x), 1 at 0 (torch's sinc), with sin(pi x) reduced exactly. */
static inline double pt_sf_sinc(double x)
{
    if (x == 0.0) return 1.0;
    if (isinf(x)) return NAN;
    return pt_sf_sinpi(x) / (PT_SF_PI * x) + 0.0; /* +0 at the nonzero integers */
}

static inline double _Complex pt_sf_csinc(double _Complex z)
{
    if (creal(z) == 0.0 && cimag(z) == 0.0) return 1.0;
    const double _Complex w = CMPLX(PT_SF_PI * creal(z), PT_SF_PI * cimag(z));
    return csin(w) / w;
}

static inline float _Complex pt_sf_csincf(float _Complex z)
{
    if (crealf(z) == 0.0f && cimagf(z) == 0.0f) return 1.0f;
    const float pi = (float)PT_SF_PI;
    const float _Complex w = CMPLXF(pi * crealf(z), pi * cimagf(z));
    return csinf(w) / w;
}

/* torch's logit: eps < 0 (None) leaves x alone, else clamps it to [eps, 1 - eps] (nan
 * passes). */
static inline double pt_sf_logit(double x, double eps)
{
    if (eps >= 0.0) {
        const double lo = eps, hi = 1.0 - eps;
        x = x < lo ? lo : x > hi ? hi : x;
    }
    return log(x / (1.0 - x));
}

/* d logit / dx times g: outside [0, 1] nan (no eps), outside [eps, 1 - eps] 0 (eps). */
static inline double pt_sf_logit_backward(double g, double x, double eps)
{
    if (eps < 0.0) return (x < 0.0 || x > 1.0) ? NAN : g / (x * (1.0 - x));
    return (x < eps || x > 1.0 - eps) ? 0.0 : g / (x * (1.0 - x));
}

static inline double pt_sf_xlogy(double x, double y)
{
    if (y != y) return y;
    if (x == 0.0) return 0.0;
    return x * log(y);
}

static inline double pt_sf_xlog1py(double x, double y)
{
    if (y != y) return y;
    if (x == 0.0) return 0.0;
    return x * log1p(y);
}

static inline double pt_sf_entr(double x)
{
    if (x != x) return x;
    if (x > 0.0) return -x * log(x);
    return x == 0.0 ? 0.0 : -INFINITY;
}

/* ---------------------------------------------------------------- incomplete gamma */
#define PT_SF_IGAM_MAXITER 20000 /* the series need ~ 8 sqrt(a) terms near x = a: a to 6e6 */

/* P(a, x) = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a+1)...(a+n)) */
static inline double pt_sf_igam_series(double a, double x)
{
    const double fac = exp(a * log(x) - x - pt_sf_lgamma1p(a));
    if (fac == 0.0) return 0.0;
    double r = a, c = 1.0, s = 1.0;
    for (int n = 0; n < PT_SF_IGAM_MAXITER; n++) {
        r += 1.0;
        c *= x / r;
        s += c;
        if (c <= PT_SF_EPS * s) break;
    }
    return s * fac;
}

/* Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)),
 * by the modified Lentz method. */
static inline double pt_sf_igamc_fraction(double a, double x)
{
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < PT_SF_IGAM_MAXITER; i++) {
        const double an = -(double)i * ((double)i - a);
        b += 2.0;
        d = an * d + b;
        d = fabs(d) < tiny ? tiny : d;
        c = b + an / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        const double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < PT_SF_EPS) break;
    }
    return exp(a * log(x) - x - pt_sf_lgamma(a)) * h;
}

/* Q(a, x) for small x: with u = a log x - log Gamma(1 + a),
 * Q = -expm1(u) - a e^u sum_{n>=1} (-1)^n x^n / (n! (a + n)). */
static inline double pt_sf_igamc_series(double a, double x)
{
    const double u = a * log(x) - pt_sf_lgamma1p(a);
    double t = 1.0, s = 0.0;
    for (int n = 1; n < PT_SF_IGAM_MAXITER; n++) {
        t *= -x / n;
        const double term = t / (a + n);
        s += term;
        if (fabs(term) <= PT_SF_EPS * fabs(s)) break;
    }
    return -expm1(u) - a * exp(u) * s;
}

static inline double pt_sf_igammac(double a, double x);

/* The regularized lower incomplete gamma function, with torch's values at the edges. */
static inline double pt_sf_igamma(double a, double x)
{
    if (a != a || x != x) return NAN;
    if (a < 0.0 || x < 0.0) return NAN;
    if (a == 0.0) return x > 0.0 ? 1.0 : NAN;
    if (x == 0.0) return 0.0;
    if (isinf(a)) return isinf(x) ? NAN : 0.0;
    if (isinf(x)) return 1.0;
    if (x > 1.0 && x > a) return 1.0 - pt_sf_igammac(a, x);
    return pt_sf_igam_series(a, x);
}

/* The regularized upper incomplete gamma function. */
static inline double pt_sf_igammac(double a, double x)
{
    if (a != a || x != x) return NAN;
    if (a < 0.0 || x < 0.0) return NAN;
    if (a == 0.0) return x > 0.0 ? 0.0 : NAN;
    if (x == 0.0) return 1.0;
    if (isinf(a)) return isinf(x) ? NAN : 1.0;
    if (isinf(x)) return 0.0;
    if (x > 1.1) return x < a ? 1.0 - pt_sf_igam_series(a, x) : pt_sf_igamc_fraction(a, x);
    const bool series_p = x <= 0.5 ? -0.4 / log(x) < a : x * 1.1 < a;
    return series_p ? 1.0 - pt_sf_igam_series(a, x) : pt_sf_igamc_series(a, x);
}

#endif
